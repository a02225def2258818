// Quota evaluation, shared by the resource quota controller (which computes status.used) and the
// resource quota admission (which checks and charges each create): resource lists and their
// arithmetic, what a pod or any other object uses, which quota resource names an object's evaluator
// tracks, and whether a quota's scopes and scope selector match an object. Follows upstream
// pkg/quota/v1 (resources.go, generic/evaluator.go, evaluator/core/pods.go) and the admission's
// checkRequest (staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go).
import { Quantity, parseQuantityJSON } from '../apiserver/quantity.js';

/** Resource name to quantity, as quotas and containers write them (strings, canonical). */
export type ResourceList = Record<string, string>;

export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

export interface ScopeRequirement {
  readonly scopeName?: string;
  readonly operator?: string;
  readonly values?: readonly string[];
}

export interface QuotaLike {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
  spec?: { hard?: Record<string, unknown>; scopes?: string[]; scopeSelector?: { matchExpressions?: ScopeRequirement[] } };
  status?: { hard?: Record<string, unknown>; used?: Record<string, unknown> };
}

// ---- Quantities and resource lists ----

const ZERO = new Quantity(0n, 0, 'DecimalSI');
const ONE = new Quantity(1n, 0, 'DecimalSI');

export function quantity(v: unknown): Quantity {
  const r = parseQuantityJSON(v);
  return r.ok ? r.quantity : ZERO;
}

function aligned(a: Quantity, b: Quantity): [bigint, bigint, number] {
  const scale = Math.min(a.scale, b.scale);
  return [a.unscaled * 10n ** BigInt(a.scale - scale), b.unscaled * 10n ** BigInt(b.scale - scale), scale];
}

/** a + b; the result keeps a's format unless a is zero (upstream Quantity.Add). */
export function addQuantity(a: Quantity, b: Quantity): Quantity {
  const [x, y, scale] = aligned(a, b);
  return new Quantity(x + y, scale, a.isZero() ? b.format : a.format);
}

export function compareQuantity(a: Quantity, b: Quantity): number {
  const [x, y] = aligned(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

const text = (q: Quantity) => q.canonical();

/** Upstream quota.Add: the union of keys, values of common keys summed. */
export function addLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(a)) out[k] = k in b ? text(addQuantity(quantity(v), quantity(b[k]))) : text(quantity(v));
  for (const [k, v] of Object.entries(b)) if (!(k in a)) out[k] = text(quantity(v));
  return out;
}

/** Upstream quota.Mask: only the entries named. */
export function mask(list: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = {};
  for (const n of names) if (n in list) out[n] = list[n]!;
  return out;
}

/** Upstream quota.Equals: the same keys with equal values. */
export function listsEqual(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  const kb = Object.keys(b ?? {});
  if (ka.length !== kb.length) return false;
  return ka.every((k) => k in (b ?? {}) && compareQuantity(quantity(a![k]), quantity(b![k])) === 0);
}

export function isZeroList(list: ResourceList): boolean {
  return Object.values(list).every((v) => quantity(v).isZero());
}

/** Upstream quota.LessThanOrEqual(a, b): the names of b whose value a exceeds. */
export function exceeding(a: ResourceList, b: ResourceList): string[] {
  return Object.keys(b).filter((k) => k in a && compareQuantity(quantity(a[k]), quantity(b[k])) > 0);
}

/** A list normalized to canonical quantity strings (values a quota or container may write loosely). */
export function toList(v: Record<string, unknown> | undefined): ResourceList {
  const out: ResourceList = {};
  for (const [k, x] of Object.entries(v ?? {})) out[k] = text(quantity(x));
  return out;
}

/** `a=1,b=2`, keys sorted (upstream prettyPrint). */
export function prettyPrint(list: ResourceList): string {
  return Object.keys(list).sort().map((k) => `${k}=${list[k]}`).join(',');
}

/** `a,b`, sorted (upstream prettyPrintResourceNames). */
export function prettyPrintNames(names: Iterable<string>): string {
  return [...new Set(names)].sort().join(',');
}

// ---- Scopes ----

/** spec.scopes as Exists requirements, then spec.scopeSelector's expressions (upstream getScopeSelectorsFromQuota). */
export function scopeSelectorsOf(q: QuotaLike): ScopeRequirement[] {
  return [
    ...(q.spec?.scopes ?? []).map((scopeName) => ({ scopeName, operator: 'Exists' })),
    ...(q.spec?.scopeSelector?.matchExpressions ?? []),
  ];
}

// ---- Evaluators ----

/** What quota needs to know about the objects of one resource (upstream quota.Evaluator). */
export interface Evaluator {
  readonly groupResource: GroupResource;
  /** The names among `names` this evaluator tracks. */
  matchingResources(names: readonly string[]): string[];
  /** Whether one scope requirement matches the object. */
  matchesScope(req: ScopeRequirement, obj: any): boolean;
  /** What the object uses. */
  usage(obj: any, now?: number): ResourceList;
  /** Why the object cannot be admitted under a quota tracking `required`, or undefined. */
  constraints(required: readonly string[], obj: any): string | undefined;
}

/** Every scope and selector expression of the quota matches the object (no scopes: all match). */
export function matchesScopes(ev: Evaluator, q: QuotaLike, obj: any): boolean {
  return scopeSelectorsOf(q).every((req) => ev.matchesScope(req, obj));
}

/**
 * Upstream generic.Matches: the quota tracks something of this evaluator among `hardNames` (the
 * admission passes status.hard, the enforced limits) and its scopes match the object.
 */
export function quotaMatches(ev: Evaluator, q: QuotaLike, obj: any, hardNames: readonly string[]): boolean {
  return ev.matchingResources(hardNames).length > 0 && matchesScopes(ev, q, obj);
}

/** `count/<resource>` for the core group, `count/<resource>.<group>` otherwise. */
export function objectCountName(gr: GroupResource): string {
  return gr.group ? `count/${gr.resource}.${gr.group}` : `count/${gr.resource}`;
}

/** Upstream's legacy object count names (core group): the resource name itself. */
const LEGACY_COUNT_ALIASES = new Set(['configmaps', 'resourcequotas', 'replicationcontrollers', 'secrets', 'services', 'persistentvolumeclaims']);

/** Upstream generic object count evaluator: `count/<resource>[.<group>]` (and a legacy alias), no scopes. */
export function objectCountEvaluator(gr: GroupResource): Evaluator {
  const names = [objectCountName(gr)];
  if (!gr.group && LEGACY_COUNT_ALIASES.has(gr.resource)) names.push(gr.resource);
  return {
    groupResource: gr,
    matchingResources: (input) => input.filter((n) => names.includes(n)),
    // Upstream MatchesNoScopeFunc: a scoped quota never tracks these objects.
    matchesScope: () => false,
    usage: () => Object.fromEntries(names.map((n) => [n, '1'])),
    constraints: () => undefined,
  };
}

export const POD_OBJECT_COUNT = 'count/pods';
/** The quota names the pod evaluator tracks besides prefixed and extended ones (upstream podResources). */
const POD_RESOURCES = new Set([
  POD_OBJECT_COUNT, 'cpu', 'memory', 'ephemeral-storage',
  'requests.cpu', 'requests.memory', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods',
]);
const POD_RESOURCE_PREFIXES = ['hugepages-', 'requests.hugepages-'];
/** Names whose per-container presence a quota demands (upstream validationSet). */
const VALIDATION_SET = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);
const NATIVE_PREFIXES = ['kubernetes.io/', 'orch.io/'];

/** Upstream helper.IsExtendedResourceName: domain-qualified, not native, not `requests.`-prefixed. */
function isExtendedResourceName(name: string): boolean {
  if (!name.includes('/')) return false;
  if (NATIVE_PREFIXES.some((p) => name.includes(p))) return false;
  if (name.startsWith('requests.')) return false;
  return /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(name);
}

/** Extended resources are quota'd only as `requests.<name>`. */
const isExtendedResourceNameForQuota = (name: string) => name.startsWith('requests.') && isExtendedResourceName(name.slice('requests.'.length));

/** Upstream QuotaV1Pod: a pod counts until it is terminal or its deletion grace period has passed. */
export function podCounts(pod: any, now = Date.now()): boolean {
  const phase = pod?.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const ts = pod?.metadata?.deletionTimestamp;
  const grace = pod?.metadata?.deletionGracePeriodSeconds;
  if (ts && typeof grace === 'number' && now > Date.parse(ts) + grace * 1000) return false;
  return true;
}

interface Containerish {
  name?: string;
  restartPolicy?: string;
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
}

function addInto(into: Map<string, Quantity>, list: Record<string, unknown> | undefined): void {
  for (const [k, v] of Object.entries(list ?? {})) {
    const q = quantity(v);
    const cur = into.get(k);
    into.set(k, cur ? addQuantity(cur, q) : q);
  }
}

function maxInto(into: Map<string, Quantity>, other: Map<string, Quantity>): void {
  for (const [k, q] of other) {
    const cur = into.get(k);
    if (!cur || compareQuantity(q, cur) > 0) into.set(k, q);
  }
}

/**
 * Upstream resourcehelper.PodRequests / PodLimits: the containers' sum, at least the largest init
 * container (restartable init containers run along and add up), pod-level cpu/memory when set, and
 * the pod overhead (on limits only where a limit exists).
 */
export function podResources(pod: any, kind: 'requests' | 'limits'): Map<string, Quantity> {
  const spec = pod?.spec ?? {};
  const out = new Map<string, Quantity>();
  for (const c of (spec.containers ?? []) as Containerish[]) addInto(out, c.resources?.[kind]);
  const restartable = new Map<string, Quantity>();
  const initMax = new Map<string, Quantity>();
  for (const c of (spec.initContainers ?? []) as Containerish[]) {
    let own: Map<string, Quantity>;
    if (c.restartPolicy === 'Always') {
      addInto(out, c.resources?.[kind]);
      addInto(restartable, c.resources?.[kind]);
      own = restartable;
    } else {
      own = new Map();
      addInto(own, c.resources?.[kind]);
      for (const [k, q] of restartable) own.set(k, own.has(k) ? addQuantity(own.get(k)!, q) : q);
    }
    maxInto(initMax, own);
  }
  maxInto(out, initMax);
  const podLevel = spec.resources?.[kind];
  if (podLevel && typeof podLevel === 'object') {
    for (const r of ['cpu', 'memory']) if (r in podLevel) out.set(r, quantity(podLevel[r]));
  }
  for (const [k, v] of Object.entries((spec.overhead ?? {}) as Record<string, unknown>)) {
    const cur = out.get(k);
    if (cur) out.set(k, addQuantity(cur, quantity(v)));
    else if (kind === 'requests') out.set(k, quantity(v));
  }
  return out;
}

/** Upstream podComputeUsageHelper: the quota names a set of requests and limits amounts to. */
function computeUsage(requests: Map<string, Quantity>, limits: Map<string, Quantity>): Map<string, Quantity> {
  const out = new Map<string, Quantity>([['pods', ONE]]);
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    const req = requests.get(r);
    if (req) {
      out.set(r, req);
      out.set(`requests.${r}`, req);
    }
    const lim = limits.get(r);
    if (lim) out.set(`limits.${r}`, lim);
  }
  for (const [r, req] of requests) {
    if (POD_RESOURCE_PREFIXES.some((p) => r.startsWith(p))) {
      out.set(r, req);
      out.set(`requests.${r}`, req);
    }
    if (isExtendedResourceName(r)) out.set(`requests.${r}`, req);
  }
  return out;
}

const fromMap = (m: Map<string, Quantity>): ResourceList => Object.fromEntries([...m].map(([k, q]) => [k, text(q)]));
const asMap = (list: Record<string, unknown> | undefined) => {
  const m = new Map<string, Quantity>();
  addInto(m, list);
  return m;
};

/** Upstream qos.GetPodQOS: status.qosClass when set, else computed from cpu and memory. */
export function podQOS(pod: any): string {
  if (typeof pod?.status?.qosClass === 'string' && pod.status.qosClass) return pod.status.qosClass;
  const spec = pod?.spec ?? {};
  const all: Containerish[] = [...(spec.containers ?? []), ...(spec.initContainers ?? [])];
  let any = false;
  let guaranteed = true;
  for (const c of all) {
    for (const r of ['cpu', 'memory']) {
      const req = c.resources?.requests?.[r];
      const lim = c.resources?.limits?.[r];
      if ((req !== undefined && !quantity(req).isZero()) || (lim !== undefined && !quantity(lim).isZero())) any = true;
      if (lim === undefined || req === undefined || compareQuantity(quantity(req), quantity(lim)) !== 0) guaranteed = false;
    }
  }
  for (const kind of ['requests', 'limits'] as const) {
    const podLevel = spec.resources?.[kind];
    if (podLevel && ['cpu', 'memory'].some((r) => podLevel[r] !== undefined && !quantity(podLevel[r]).isZero())) any = true;
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** Upstream IsTerminating: spec.activeDeadlineSeconds >= 0. */
export const isTerminating = (pod: any): boolean => typeof pod?.spec?.activeDeadlineSeconds === 'number' && pod.spec.activeDeadlineSeconds >= 0;

function crossNamespaceTerms(terms: any): boolean {
  return Array.isArray(terms) && terms.some((t) => (Array.isArray(t?.namespaces) && t.namespaces.length > 0) || (t?.namespaceSelector !== undefined && t?.namespaceSelector !== null));
}

/** Upstream usesCrossNamespacePodAffinity: an affinity or anti-affinity term sets namespaces or a namespaceSelector. */
export function usesCrossNamespacePodAffinity(pod: any): boolean {
  const a = pod?.spec?.affinity;
  for (const kind of [a?.podAffinity, a?.podAntiAffinity]) {
    if (!kind) continue;
    if (crossNamespaceTerms(kind.requiredDuringSchedulingIgnoredDuringExecution)) return true;
    const preferred = kind.preferredDuringSchedulingIgnoredDuringExecution;
    if (Array.isArray(preferred) && crossNamespaceTerms(preferred.map((p: any) => p?.podAffinityTerm))) return true;
  }
  return false;
}

/**
 * PriorityClass as a label selector over `{PriorityClass: spec.priorityClassName}` (no label when the
 * pod names none, so DoesNotExist and NotIn match it).
 */
function priorityClassMatches(req: ScopeRequirement, pod: any): boolean {
  const name: string = pod?.spec?.priorityClassName ?? '';
  const values = req.values ?? [];
  switch (req.operator) {
    case 'Exists': return name !== '';
    case 'DoesNotExist': return name === '';
    case 'In': return name !== '' && values.includes(name);
    case 'NotIn': return name === '' || !values.includes(name);
    default: return false;
  }
}

/** Upstream podMatchesScopeFunc. */
export function podMatchesScope(req: ScopeRequirement, pod: any): boolean {
  switch (req.scopeName) {
    case 'Terminating': return isTerminating(pod);
    case 'NotTerminating': return !isTerminating(pod);
    case 'BestEffort': return podQOS(pod) === 'BestEffort';
    case 'NotBestEffort': return podQOS(pod) !== 'BestEffort';
    case 'PriorityClass': return priorityClassMatches(req, pod);
    case 'CrossNamespacePodAffinity': return usesCrossNamespacePodAffinity(pod);
    default: return false;
  }
}

/** Upstream's pod evaluator. */
export const podEvaluator: Evaluator = {
  groupResource: { group: '', resource: 'pods' },
  matchingResources(input) {
    return input.filter((n) => POD_RESOURCES.has(n) || POD_RESOURCE_PREFIXES.some((p) => n.startsWith(p)) || isExtendedResourceNameForQuota(n));
  },
  matchesScope: podMatchesScope,
  usage(pod, now = Date.now()) {
    // Object counts track every stored pod; compute resources (and `pods`) only pods that still count.
    const out: ResourceList = { [POD_OBJECT_COUNT]: '1' };
    if (!podCounts(pod, now)) return out;
    return { ...out, ...fromMap(computeUsage(podResources(pod, 'requests'), podResources(pod, 'limits'))) };
  },
  constraints(required, pod) {
    // Upstream: a quota on cpu or memory makes every container state it (a backward-compatible rule).
    const needed = required.filter((r) => VALIDATION_SET.has(r));
    if (needed.length === 0) return undefined;
    const missing = new Map<string, string[]>();
    const spec = pod?.spec ?? {};
    for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])] as Containerish[]) {
      const has = computeUsage(asMap(c.resources?.requests), asMap(c.resources?.limits));
      for (const r of needed) {
        if (has.has(r)) continue;
        const list = missing.get(r) ?? [];
        list.push(c.name ?? '');
        missing.set(r, list);
      }
    }
    if (missing.size === 0) return undefined;
    const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...new Set(missing.get(r))].sort().join(',')}`);
    return `must specify ${parts.join('; ')}`;
  },
};

/** The evaluator of a resource: pods have their own, every other kind is counted. */
export function evaluatorFor(gr: GroupResource): Evaluator {
  return !gr.group && gr.resource === 'pods' ? podEvaluator : objectCountEvaluator(gr);
}

/**
 * The group-resources a quota's hard names are about: pods for the pod names, and `count/<r>[.<g>]`
 * and the legacy aliases for the rest. (Names about kinds that nobody serves simply find nothing.)
 */
export function resourcesNamedBy(names: readonly string[]): GroupResource[] {
  const out = new Map<string, GroupResource>();
  const add = (gr: GroupResource) => out.set(`${gr.resource}.${gr.group}`, gr);
  if (podEvaluator.matchingResources(names).length > 0) add(podEvaluator.groupResource);
  for (const n of names) {
    if (n.startsWith('count/')) {
      const rest = n.slice('count/'.length);
      const dot = rest.indexOf('.');
      add(dot < 0 ? { group: '', resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) });
    } else if (LEGACY_COUNT_ALIASES.has(n)) {
      add({ group: '', resource: n });
    } else if (n.startsWith('services.')) {
      add({ group: '', resource: 'services' });
    } else if (n === 'requests.storage' || n.endsWith('.storageclass.storage.orch.io/requests.storage') || n.endsWith('.storageclass.storage.orch.io/persistentvolumeclaims')) {
      add({ group: '', resource: 'persistentvolumeclaims' });
    }
  }
  return [...out.values()];
}

/**
 * Upstream CalculateUsageStats for one evaluator: each tracked name from zero, plus the usage of
 * every object that matches the quota's scopes and selector. The options other than `now` serve the
 * controller's test-only breaks (ignore the scopes or the selector, match nothing).
 */
export function usageOf(ev: Evaluator, q: QuotaLike, objects: Iterable<any>, names: readonly string[], opts: { now?: number; ignoreScopes?: boolean; ignoreSelector?: boolean; matchNothing?: boolean } = {}): ResourceList {
  let used: ResourceList = Object.fromEntries(names.map((n) => [n, '0']));
  if (opts.matchNothing) return used;
  const scopes = (q.spec?.scopes ?? []).map((scopeName) => ({ scopeName, operator: 'Exists' }));
  const selector = q.spec?.scopeSelector?.matchExpressions ?? [];
  for (const obj of objects) {
    const reqs = [...(opts.ignoreScopes ? [] : scopes), ...(opts.ignoreSelector ? [] : selector)];
    if (!reqs.every((r) => ev.matchesScope(r, obj))) continue;
    used = addLists(used, ev.usage(obj, opts.now));
  }
  return mask(used, names);
}
