// Node fit and scoring, as upstream kube-scheduler's default filter and score plugins (simplified):
// a node Ready=True (upstream leaves this to the not-ready taint; the reference checks it as well), not
// unschedulable (NodeUnschedulable), every NoSchedule/NoExecute taint tolerated (TaintToleration),
// nodeSelector and required node affinity (NodeAffinity), requests against allocatable minus what is
// placed there, and the pod count (NodeResourcesFit). Filters run in upstream's plugin order and stop at
// the first that rejects, so each node has one plugin's reasons, worded as upstream words them.
// Scoring is LeastAllocated over cpu and memory (upstream's non-zero request defaults), ties by name.
import { parseQuantityJSON } from '../apiserver/quantity.js';
import type { KubeObject } from '../client/informer.js';
import { toleratesTaint, type Taint, type Toleration } from '../taints.js';

/** Resource amounts in milli-units (cpu 1 = 1000; memory bytes × 1000), by resource name. */
export type Resources = Map<string, bigint>;

export type { Taint, Toleration } from '../taints.js';

/** Upstream's reasons (framework statuses of the default plugins), `orch.io` for `kubernetes.io`. */
export const REASON = {
  notReady: 'node(s) were not ready',
  unschedulable: 'node(s) were unschedulable',
  affinity: "node(s) didn't match Pod's node affinity/selector",
  tooManyPods: 'Too many pods',
  insufficient: (r: string) => `Insufficient ${r}`,
  taint: (t: Taint) => `node(s) had untolerated taint {${t.key}: ${t.value ?? ''}}`,
} as const;

/** The taint the node lifecycle controller puts on `spec.unschedulable` nodes (NodeUnschedulable tolerates it). */
export const UNSCHEDULABLE_TAINT: Taint = { key: 'node.orch.io/unschedulable', effect: 'NoSchedule' };

/** An error in the pod's scheduling constraints (a node affinity the scheduler cannot parse). */
export class ConstraintError extends Error {
  override name = 'ConstraintError';
}

// ---- requests ----

const milli = (q: unknown): bigint | undefined => {
  const r = parseQuantityJSON(q);
  return r.ok ? r.quantity.milliValue() : undefined;
};

export function resourceList(list: Record<string, unknown> | undefined): Resources {
  const out: Resources = new Map();
  for (const [k, v] of Object.entries(list ?? {})) {
    const m = milli(v);
    if (m !== undefined) out.set(k, m);
  }
  return out;
}

function addTo(into: Resources, from: Resources, sign = 1n): void {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0n) + sign * v);
}

function maxInto(into: Resources, from: Resources): void {
  for (const [k, v] of from) if (v > (into.get(k) ?? 0n)) into.set(k, v);
}

const requestsOf = (c: any): Resources => resourceList(c?.resources?.requests);

/**
 * The pod's effective requests (upstream resource.PodRequests): the sum of its containers and sidecars
 * (init containers with restartPolicy Always), or the largest init container (plus the sidecars started
 * before it) if that is more, plus spec.overhead.
 */
export function podRequests(pod: KubeObject): Resources {
  const spec = pod.spec ?? {};
  const sum: Resources = new Map();
  for (const c of spec.containers ?? []) addTo(sum, requestsOf(c));
  const initMax: Resources = new Map();
  const sidecars: Resources = new Map();
  for (const c of spec.initContainers ?? []) {
    const req = requestsOf(c);
    if (c?.restartPolicy === 'Always') {
      addTo(sum, req);
      addTo(sidecars, req);
    } else {
      const withSidecars: Resources = new Map(sidecars);
      addTo(withSidecars, req);
      maxInto(initMax, withSidecars);
    }
  }
  maxInto(sum, initMax);
  addTo(sum, resourceList(spec.overhead));
  return sum;
}

// ---- node usage ----

/** What is placed on one node: requests summed, the non-zero requests for scoring, and the pod count. */
export class NodeUsage {
  readonly requested: Resources = new Map();
  nonZeroCpu = 0n;
  nonZeroMemory = 0n;
  pods = 0;

  add(req: Resources, sign: 1 | -1 = 1): void {
    addTo(this.requested, req, BigInt(sign));
    this.nonZeroCpu += BigInt(sign) * nonZero(req, 'cpu');
    this.nonZeroMemory += BigInt(sign) * nonZero(req, 'memory');
    this.pods += sign;
  }

  clone(): NodeUsage {
    const u = new NodeUsage();
    addTo(u.requested, this.requested);
    u.nonZeroCpu = this.nonZeroCpu;
    u.nonZeroMemory = this.nonZeroMemory;
    u.pods = this.pods;
    return u;
  }
}

/** Upstream's DefaultMilliCPURequest (100m) and DefaultMemoryRequest (200 MiB), used only for scoring. */
const DEFAULT_CPU = 100n;
const DEFAULT_MEMORY = 200n * 1024n * 1024n * 1000n;
function nonZero(req: Resources, r: 'cpu' | 'memory'): bigint {
  const v = req.get(r) ?? 0n;
  return v !== 0n ? v : r === 'cpu' ? DEFAULT_CPU : DEFAULT_MEMORY;
}

// ---- filters ----

export function isReady(node: KubeObject): boolean {
  return (node.status?.conditions ?? []).some((c: any) => c?.type === 'Ready' && c?.status === 'True');
}

/** The first NoSchedule/NoExecute taint of the node that no toleration tolerates, if any. */
export function untoleratedTaint(taints: readonly Taint[], tolerations: readonly Toleration[]): Taint | undefined {
  return taints.find((t) => (t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !tolerations.some((tol) => toleratesTaint(tol, t)));
}

interface Requirement {
  key?: string;
  operator?: string;
  values?: string[];
}

function parseInteger(v: string | undefined, what: string): bigint {
  if (v === undefined || !/^[+-]?\d+$/.test(v.trim())) throw new ConstraintError(`for 'Gt', 'Lt' operators, the value must be an integer: ${what} ${JSON.stringify(v ?? '')}`);
  return BigInt(v.trim());
}

/** One node selector requirement against a value map (labels, or {metadata.name} for matchFields). */
function requirementMatches(r: Requirement, values: Readonly<Record<string, string>>, field: boolean): boolean {
  const key = r.key ?? '';
  const has = Object.prototype.hasOwnProperty.call(values, key);
  const v = has ? values[key]! : undefined;
  const list = r.values ?? [];
  if (field && key !== 'metadata.name') throw new ConstraintError(`not a valid field selector key: "${key}"`);
  switch (r.operator) {
    case 'In':
      if (list.length === 0) throw new ConstraintError(`values must be specified when operator is 'In': key "${key}"`);
      return has && list.includes(v!);
    case 'NotIn':
      if (list.length === 0) throw new ConstraintError(`values must be specified when operator is 'NotIn': key "${key}"`);
      return !has || !list.includes(v!);
    case 'Exists':
      if (field) throw new ConstraintError(`"${r.operator}" is not a valid node field selector operator`);
      return has;
    case 'DoesNotExist':
      if (field) throw new ConstraintError(`"${r.operator}" is not a valid node field selector operator`);
      return !has;
    case 'Gt':
    case 'Lt': {
      if (field) throw new ConstraintError(`"${r.operator}" is not a valid node field selector operator`);
      if (list.length !== 1) throw new ConstraintError(`for 'Gt', 'Lt' operators, exactly one value is required: key "${key}"`);
      const want = parseInteger(list[0], `key "${key}"`);
      if (!has || !/^[+-]?\d+$/.test(v!.trim())) return false;
      const got = BigInt(v!.trim());
      return r.operator === 'Gt' ? got > want : got < want;
    }
    default:
      throw new ConstraintError(`"${String(r.operator)}" is not a valid node selector operator`);
  }
}

/**
 * Whether the node matches the pod's nodeSelector and required node affinity (terms ORed, expressions
 * and fields ANDed). Throws ConstraintError for a selector that cannot be parsed.
 */
export function matchesNodeAffinity(pod: KubeObject, node: KubeObject, errorsMatch = false): boolean {
  const labels: Record<string, string> = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries((pod.spec?.nodeSelector ?? {}) as Record<string, string>)) if (labels[k] !== v) return false;
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) return true;
  const terms: any[] = Array.isArray(required.nodeSelectorTerms) ? required.nodeSelectorTerms : [];
  // Upstream: an empty list of terms matches nothing; an empty term matches nothing.
  let matched = false;
  let error: ConstraintError | undefined;
  for (const term of terms) {
    const exprs: Requirement[] = term?.matchExpressions ?? [];
    const fields: Requirement[] = term?.matchFields ?? [];
    if (exprs.length === 0 && fields.length === 0) continue;
    try {
      if (exprs.every((e) => requirementMatches(e, labels, false)) && fields.every((f) => requirementMatches(f, { 'metadata.name': node.metadata.name }, true))) matched = true;
    } catch (err) {
      if (!(err instanceof ConstraintError)) throw err;
      error ??= err;
    }
  }
  // Upstream's LazyErrorNodeSelector: a parse error counts only when no other term matched.
  if (!matched && error) {
    if (errorsMatch) return true;
    throw error;
  }
  return matched;
}

/** One parsed preferred node affinity term (upstream nodeaffinity.PreferredSchedulingTerms). */
export interface PreferredTerm {
  readonly weight: number;
  matches(node: KubeObject): boolean;
}

/**
 * The pod's preferred node affinity terms, parsed as upstream's NodeAffinity PreScore parses them (all
 * at once, terms of weight 0 or with nothing in them skipped). Unlike the required terms, whose parse
 * errors upstream ignores ("for backwards compatibility": such a term matches no node), an unparsable
 * preferred term is an error of the scheduling cycle (reason SchedulerError): ConstraintError, worded
 * as upstream's `running PreScore plugin "NodeAffinity": <field errors>`.
 */
export function preferredTerms(pod: KubeObject): PreferredTerm[] {
  const terms: any[] = pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [];
  const out: PreferredTerm[] = [];
  const errors: string[] = [];
  terms.forEach((t, i) => {
    const exprs: Requirement[] = t?.preference?.matchExpressions ?? [];
    const fields: Requirement[] = t?.preference?.matchFields ?? [];
    if (!t?.weight || (exprs.length === 0 && fields.length === 0)) return;
    const before = errors.length;
    const check = (list: Requirement[], field: boolean, path: string) => list.forEach((r, j) => {
      const at = `[${i}].preference.${path}[${j}]`;
      if ((r.operator === 'Gt' || r.operator === 'Lt') && !field && (r.values ?? []).length === 1 && !/^[+-]?\d+$/.test(r.values![0]!)) {
        errors.push(`${at}.values[0]: Invalid value: ${JSON.stringify(r.values![0])}: for 'Gt', 'Lt' operators, the value must be an integer`);
        return;
      }
      try {
        requirementMatches(r, {}, field);
      } catch (err) {
        if (!(err instanceof ConstraintError)) throw err;
        errors.push(`${at}: ${err.message}`);
      }
    });
    check(exprs, false, 'matchExpressions');
    check(fields, true, 'matchFields');
    if (errors.length > before) return;
    out.push({
      weight: Number(t.weight),
      matches: (node) => exprs.every((e) => requirementMatches(e, node.metadata.labels ?? {}, false))
        && fields.every((f) => requirementMatches(f, { 'metadata.name': node.metadata.name }, true)),
    });
  });
  if (errors.length) {
    // Upstream's flattened aggregate: one error as itself, several as `[e1, e2]`.
    throw new ConstraintError(`running PreScore plugin "NodeAffinity": ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}`);
  }
  return out;
}

export interface FitInput {
  readonly pod: KubeObject;
  readonly requests: Resources;
  readonly node: KubeObject;
  readonly allocatable: Resources;
  readonly usage: NodeUsage | undefined;
  /** Requests of pods nominated to this node with at least the pod's priority (upstream's nominated pods). */
  readonly nominated?: Resources;
  readonly nominatedPods?: number;
  /** Test-only (breaks): `scheduler.ignore-taints`. */
  readonly ignoreTaints?: boolean;
  /** Test-only (breaks): `scheduler.ignore-affinity-errors`: an unparsable node affinity matches. */
  readonly affinityErrorsMatch?: boolean;
}

/** Why the pod does not fit on the node (upstream's reasons, one plugin's), or [] when it fits. */
export function fitReasons(i: FitInput): string[] {
  const { pod, node } = i;
  if (!isReady(node)) return [REASON.notReady];
  const tolerations: Toleration[] = pod.spec?.tolerations ?? [];
  if (node.spec?.unschedulable && !tolerations.some((t) => toleratesTaint(t, UNSCHEDULABLE_TAINT))) return [REASON.unschedulable];
  if (!i.ignoreTaints) {
    const taint = untoleratedTaint(node.spec?.taints ?? [], tolerations);
    if (taint) return [REASON.taint(taint)];
  }
  if (!matchesNodeAffinity(pod, node, i.affinityErrorsMatch)) return [REASON.affinity];
  return resourceReasons(i);
}

/** NodeResourcesFit: the pod count, then each requested resource, against what is left. */
export function resourceReasons(i: Pick<FitInput, 'requests' | 'allocatable' | 'usage' | 'nominated' | 'nominatedPods'>): string[] {
  const reasons: string[] = [];
  const podsAllowed = i.allocatable.get('pods');
  const placed = (i.usage?.pods ?? 0) + (i.nominatedPods ?? 0);
  if (podsAllowed !== undefined && BigInt(placed + 1) * 1000n > podsAllowed) reasons.push(REASON.tooManyPods);
  for (const [r, want] of i.requests) {
    if (want <= 0n || r === 'pods') continue;
    const used = (i.usage?.requested.get(r) ?? 0n) + (i.nominated?.get(r) ?? 0n);
    if (want > (i.allocatable.get(r) ?? 0n) - used) reasons.push(REASON.insufficient(r));
  }
  return reasons;
}

/** Whether every reason is one that removing pods from the node could cure (preemption may help). */
export function resolvableByPreemption(reasons: readonly string[]): boolean {
  return reasons.length > 0 && reasons.every((r) => r === REASON.tooManyPods || r.startsWith('Insufficient '));
}

/** LeastAllocated (upstream NodeResourcesFit default): 0..100, higher is emptier, over cpu and memory. */
export function leastAllocatedScore(requests: Resources, allocatable: Resources, usage: NodeUsage | undefined): number {
  const score = (r: 'cpu' | 'memory', used: bigint) => {
    const cap = allocatable.get(r) ?? 0n;
    if (cap <= 0n) return 0;
    const after = used + nonZero(requests, r);
    if (after > cap) return 0;
    return Number(((cap - after) * 100n) / cap);
  };
  return (score('cpu', usage?.nonZeroCpu ?? 0n) + score('memory', usage?.nonZeroMemory ?? 0n)) / 2;
}

/** Upstream FitError text: `0/<n> nodes are available: <count> <reason>, ... .` (reasons sorted). */
export function fitErrorMessage(total: number, reasonsByNode: ReadonlyMap<string, readonly string[]>): string {
  const counts = new Map<string, number>();
  for (const reasons of reasonsByNode.values()) for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  const parts = [...counts].map(([r, n]) => `${n} ${r}`).sort();
  return `0/${total} nodes are available: ${parts.join(', ')}.`;
}
