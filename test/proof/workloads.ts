// Targets broken in exactly one rule, for the EvictionRequest (§2.5) and PodGroup (§2.6) cases.
import { randomUUID } from 'node:crypto';
import { deepEqual } from '../../reference/apiserver/field-errors.js';
import { answer, editJson, jsonBody, statusBody, type Breakage, type ProxiedRequest, type ProxiedResponse } from '../helpers/broken-target.js';

const ER = /^\/apis\/lifecycle\.orch\.io\/v1alpha1\/namespaces\/([^/]+)\/evictionrequests(?:\/([^/]+))?(\/status)?$/;
const PG = /^\/apis\/scheduling\.orch\.io\/v1beta1\/namespaces\/([^/]+)\/podgroups(?:\/([^/]+))?(\/status)?$/;
const KIND = new Map<RegExp, string>([[ER, 'EvictionRequest'], [PG, 'PodGroup']]);

interface Route { ns: string; name?: string; status: boolean }

function route(re: RegExp, r: ProxiedRequest): Route | undefined {
  const m = re.exec(r.path.split('?')[0]!);
  return m ? { ns: decodeURIComponent(m[1]!), name: m[2] && decodeURIComponent(m[2]), status: !!m[3] } : undefined;
}
const isCreate = (re: RegExp, r: ProxiedRequest) => r.method === 'POST' && route(re, r)?.name === undefined && !!route(re, r);
const isPut = (re: RegExp, r: ProxiedRequest, status: boolean) => {
  const rt = route(re, r);
  return r.method === 'PUT' && !!rt?.name && rt.status === status;
};

const clone = <T>(v: T): T => (v === undefined ? v : structuredClone(v));
function getAt(o: any, p: string): any {
  return p.split('.').reduce((x, k) => (x == null ? undefined : x[k]), o);
}
function setAt(o: any, p: string, v: unknown): void {
  const keys = p.split('.');
  let x = o;
  for (const k of keys.slice(0, -1)) x = x[k] ??= {};
  if (v === undefined) delete x[keys.at(-1)!];
  else x[keys.at(-1)!] = v;
}

/** The objects of kind `re` in a response (one object, or a list's items). */
function eachObject(re: RegExp, res: { body: string }, edit: (o: any) => void): void {
  const kind = KIND.get(re);
  editJson(res, (o) => {
    if (o?.kind === kind) edit(o);
    if (Array.isArray(o?.items)) o.items.forEach((i: any) => edit(i));
  });
}

/** A server that lets `edit` rewrite create bodies (fills in what is missing, fixes what is wrong). */
const onCreate = (re: RegExp, edit: (body: any) => void): Breakage => ({
  request: (r) => { if (isCreate(re, r)) editJson(r, edit); },
});

/** A server that lets `edit` rewrite the status of PUT .../status bodies. */
const onStatusPut = (re: RegExp, edit: (status: any, body: any) => void): Breakage => ({
  request: (r) => { if (isPut(re, r, true)) editJson(r, (b) => { edit(b.status ??= {}, b); }); },
});

/** A 422 a broken server sends by itself. */
function invalid(re: RegExp, field: string, reason: string, message: string): ProxiedResponse {
  const kind = KIND.get(re)!;
  const group = re === ER ? 'lifecycle.orch.io' : 'scheduling.orch.io';
  return answer(422, statusBody(422, 'Invalid', `${kind}.${group} "x" is invalid: ${field}: ${message}`, [{ field, reason, message }]));
}

/** A server that refuses creates matching `pred` (a value it does not know). */
const rejectCreate = (re: RegExp, pred: (body: any) => boolean, field: string, reason: string, message: string): Breakage => ({
  request: (r) => (isCreate(re, r) && pred(jsonBody(r)) ? invalid(re, field, reason, message) : undefined),
});

/** A server that refuses PUT .../status bodies matching `pred`. */
const rejectStatusPut = (re: RegExp, pred: (body: any) => boolean, field: string, reason: string, message: string): Breakage => ({
  request: (r) => (isPut(re, r, true) && pred(jsonBody(r)) ? invalid(re, field, reason, message) : undefined),
});

/** A server that drops `field` from every object it returns. */
const dropOnOutput = (re: RegExp, field: string): Breakage => ({
  response: (_r, res) => eachObject(re, res, (o) => setAt(o, field, undefined)),
});

/** A server that ignores the feature gate of `field`: it keeps what the create sent. */
function keepsGatedField(re: RegExp, field: string): Breakage {
  const sent = new Map<string, unknown>();
  return {
    request: (r) => {
      const b = isCreate(re, r) ? jsonBody(r) : undefined;
      if (b?.metadata?.name && getAt(b, field) !== undefined) sent.set(b.metadata.name, getAt(b, field));
    },
    response: (_r, res) => eachObject(re, res, (o) => {
      const v = sent.get(o?.metadata?.name);
      if (v !== undefined && getAt(o, field) === undefined) setAt(o, field, clone(v));
    }),
  };
}

/**
 * A server that allows a change of `field` it should refuse (`forbidden(next, prev)`): the request is
 * rewritten so the reference sees no change, and the response shows the change as if it had been made.
 */
function allowsChange(re: RegExp, field: string, opts: { status?: boolean; forbidden?: (next: any, prev: any) => boolean } = {}): Breakage {
  const seen = new Map<string, any>();
  const pending = new Map<string, unknown>();
  const forbidden = opts.forbidden ?? ((a: unknown, b: unknown) => !deepEqual(a ?? null, b ?? null));
  return {
    request: (r) => {
      if (!isPut(re, r, !!opts.status)) return;
      const rt = route(re, r)!;
      const key = `${rt.ns}/${rt.name}`;
      const prev = seen.get(key);
      const body = jsonBody(r);
      if (!prev || !body || !forbidden(getAt(body, field), getAt(prev, field))) return;
      pending.set(key, getAt(body, field));
      editJson(r, (b) => setAt(b, field, clone(getAt(prev, field))));
    },
    response: (r, res) => {
      const rt = route(re, r);
      if (!rt) return;
      eachObject(re, res, (o) => {
        const key = `${o?.metadata?.namespace ?? rt.ns}/${o?.metadata?.name}`;
        if (r.method === 'PUT' && pending.has(key)) {
          setAt(o, field, clone(pending.get(key)));
          pending.delete(key);
        }
        seen.set(key, clone(o));
      });
    },
  };
}

const sanitizeName = (s: string, dots = true) => s.toLowerCase().replace(dots ? /[^a-z0-9.-]/g : /[^a-z0-9-]/g, '-').replace(/^-+|-+$/g, '') || 'x';
const VALID_CONDITION_STATUSES = ['True', 'False', 'Unknown'];
function fixCondition(c: any): void {
  if (!VALID_CONDITION_STATUSES.includes(c.status)) c.status = 'Unknown';
  c.reason ||= 'Unspecified';
  c.lastTransitionTime ||= '2025-01-01T00:00:00Z';
  if (typeof c.type === 'string') c.type = c.type.replace(/[^A-Za-z0-9.]/g, '') || 'Fixed';
}
function dedupeByType(status: any): void {
  if (!Array.isArray(status.conditions)) return;
  const seen = new Set<string>();
  status.conditions = status.conditions.filter((c: any) => !seen.has(c?.type) && !!seen.add(c?.type));
}

export const workloadBreakages: Record<string, Breakage> = {
  // §2.5 EvictionRequest
  'api.evictionrequest.spec.required': onCreate(ER, (b) => {
    b.spec ??= { intent: 'Eviction', requester: 'filled.example.com/by-proxy', target: { pod: { name: 'filled', uid: randomUUID() } } };
  }),
  'api.evictionrequest.intent.required': onCreate(ER, (b) => { b.spec.intent ??= 'Eviction'; }),
  'api.evictionrequest.intent.allowed': rejectCreate(ER, (b) => b?.spec?.intent === 'Withdrawn', 'spec.intent', 'FieldValueNotSupported', 'Unsupported value: "Withdrawn": supported values: "Eviction"'),
  'api.evictionrequest.intent.unsupported': onCreate(ER, (b) => { if (!['Eviction', 'Withdrawn', undefined].includes(b.spec?.intent)) b.spec.intent = 'Eviction'; }),
  'api.evictionrequest.intent.withdraw': {
    // A server that treats the whole spec as immutable.
    request: (r) => (isPut(ER, r, false) && jsonBody(r)?.spec?.intent === 'Withdrawn'
      ? invalid(ER, 'spec.intent', 'FieldValueForbidden', 'Forbidden: field is immutable') : undefined),
  },
  'api.evictionrequest.requester.required': onCreate(ER, (b) => { b.spec.requester ??= 'filled.example.com/by-proxy'; }),
  'api.evictionrequest.requester.domain-prefixed': onCreate(ER, (b) => {
    // A server that takes a bare name as a key of its own domain.
    const req = b.spec?.requester;
    if (typeof req === 'string' && !req.includes('/')) b.spec.requester = `example.com/${req}`;
  }),
  'api.evictionrequest.requester.reserved-domains': onCreate(ER, (b) => {
    const req = b.spec?.requester;
    if (typeof req === 'string' && /^([a-z0-9-]+\.)*(orch\.io|kubernetes\.io|k8s\.io)\//.test(req)) b.spec.requester = req.replace(/^[^/]+/, 'example.com');
  }),
  'api.evictionrequest.requester.reserved-upstream-domains': onCreate(ER, (b) => {
    const req = b.spec?.requester;
    if (typeof req === 'string' && /^([a-z0-9-]+\.)*kubernetes\.io\//.test(req)) b.spec.requester = req.replace(/^[^/]+/, 'example.com');
  }),
  'api.evictionrequest.requester.immutable': allowsChange(ER, 'spec.requester'),
  'api.evictionrequest.target.required': onCreate(ER, (b) => { b.spec.target ??= { pod: { name: 'filled', uid: randomUUID() } }; }),
  'api.evictionrequest.target.immutable': allowsChange(ER, 'spec.target'),
  'api.evictionrequest.target.pod-name.required': onCreate(ER, (b) => { if (b.spec?.target?.pod) b.spec.target.pod.name ??= 'filled'; }),
  'api.evictionrequest.target.pod-name.format': onCreate(ER, (b) => { const p = b.spec?.target?.pod; if (typeof p?.name === 'string') p.name = sanitizeName(p.name); }),
  'api.evictionrequest.target.pod-uid.required': onCreate(ER, (b) => { if (b.spec?.target?.pod) b.spec.target.pod.uid ??= randomUUID(); }),
  'api.evictionrequest.target.pod-uid.format': onCreate(ER, (b) => {
    // Case-insensitive and lenient: anything that is not a lowercase UUID becomes one.
    const p = b.spec?.target?.pod;
    if (typeof p?.uid !== 'string') return;
    p.uid = p.uid.toLowerCase();
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(p.uid)) p.uid = randomUUID();
  }),
  'api.evictionrequest.status.conditions.max-100': onStatusPut(ER, (s) => { if (Array.isArray(s.conditions)) s.conditions = s.conditions.slice(0, 100); }),
  'api.evictionrequest.status.conditions.unique-type': onStatusPut(ER, dedupeByType),
  'api.evictionrequest.status.condition.shape': onStatusPut(ER, (s) => { (s.conditions ?? []).forEach(fixCondition); }),
  // A value below 1 is let through as one the server accepts whatever the controller wrote before (a
  // removed field would meet "cannot decrement" once the eviction-request controller set it to 1).
  'api.evictionrequest.status.observed-generation.minimum': onStatusPut(ER, (s) => { if (s.observedGeneration < 1) s.observedGeneration = 1_000_000; }),
  'api.evictionrequest.status.observed-generation.increment-only': allowsChange(ER, 'status.observedGeneration', {
    status: true,
    forbidden: (next, prev) => typeof prev === 'number' && (next === undefined || next < prev),
  }),
  'api.evictionrequest.scope.namespaced': dropOnOutput(ER, 'metadata.namespace'),

  // §2.6 PodGroup
  'api.podgroup.spec.required': onCreate(PG, (b) => { b.spec ??= { schedulingPolicy: { basic: {} } }; }),
  'api.podgroup.scheduling-policy.required': onCreate(PG, (b) => { b.spec.schedulingPolicy ??= { basic: {} }; }),
  'api.podgroup.scheduling-policy.exactly-one': onCreate(PG, (b) => {
    const p = b.spec?.schedulingPolicy;
    if (p?.basic && p?.gang) delete p.basic;
    if (p && !p.basic && !p.gang) p.basic = {};
  }),
  'api.podgroup.scheduling-policy.basic': rejectCreate(PG, (b) => b?.spec?.schedulingPolicy?.basic !== undefined, 'spec.schedulingPolicy', 'FieldValueRequired', 'Required value: gang is required'),
  'api.podgroup.scheduling-policy.gang': {
    response: (_r, res) => eachObject(PG, res, (o) => { if (o.spec?.schedulingPolicy?.gang) o.spec.schedulingPolicy.gang = {}; }),
  },
  'api.podgroup.gang.cannot-set': allowsChange(PG, 'spec.schedulingPolicy', { forbidden: (n, p) => (n?.gang === undefined) !== (p?.gang === undefined) }),
  'api.podgroup.gang.cannot-unset': allowsChange(PG, 'spec.schedulingPolicy', { forbidden: (n, p) => (n?.gang === undefined) !== (p?.gang === undefined) }),
  'api.podgroup.gang.min-count.required': onCreate(PG, (b) => { const g = b.spec?.schedulingPolicy?.gang; if (g) g.minCount ??= 1; }),
  'api.podgroup.gang.min-count.positive': onCreate(PG, (b) => { const g = b.spec?.schedulingPolicy?.gang; if (g && g.minCount < 1) g.minCount = 1; }),
  'api.podgroup.gang.min-count.mutable': {
    request: (r) => (isPut(PG, r, false) ? invalid(PG, 'spec.schedulingPolicy.gang.minCount', 'FieldValueForbidden', 'Forbidden: field is immutable') : undefined),
  },
  'api.podgroup.disruption-mode.default': onCreate(PG, (b) => { if (b.spec) b.spec.disruptionMode ??= { all: {} }; }),
  'api.podgroup.disruption-mode.allowed': rejectCreate(PG, (b) => b?.spec?.disruptionMode?.all !== undefined, 'spec.disruptionMode.all', 'FieldValueForbidden', 'Forbidden: not supported'),
  'api.podgroup.disruption-mode.exactly-one': onCreate(PG, (b) => {
    const m = b.spec?.disruptionMode;
    if (m?.all && m?.single) delete m.all;
    if (m && !m.all && !m.single) m.single = {};
  }),
  'api.podgroup.disruption-mode.immutable': allowsChange(PG, 'spec.disruptionMode'),
  'api.podgroup.parent-composite.dropped-gate-off': keepsGatedField(PG, 'spec.parentCompositePodGroupName'),
  'api.podgroup.parent-composite.kept-gate-on': dropOnOutput(PG, 'spec.parentCompositePodGroupName'),
  'api.podgroup.parent-composite.format': onCreate(PG, (b) => { if (typeof b.spec?.parentCompositePodGroupName === 'string') b.spec.parentCompositePodGroupName = sanitizeName(b.spec.parentCompositePodGroupName); }),
  'api.podgroup.parent-composite.requires-workload-ref': onCreate(PG, (b) => {
    if (b.spec?.parentCompositePodGroupName) b.spec.workloadRef ??= { workloadName: 'filled', templateName: 'filled' };
  }),
  'api.podgroup.parent-composite.immutable': allowsChange(PG, 'spec.parentCompositePodGroupName'),
  'api.podgroup.preemption-policy.dropped-gate-off': keepsGatedField(PG, 'spec.preemptionPolicy'),
  'api.podgroup.preemption-policy.not-stored-gate-off': keepsGatedField(PG, 'spec.preemptionPolicy'),
  'api.podgroup.preemption-policy.default': onCreate(PG, (b) => { if (b.spec) b.spec.preemptionPolicy ??= 'Never'; }),
  'api.podgroup.preemption-policy.allowed': rejectCreate(PG, (b) => b?.spec?.preemptionPolicy === 'Never', 'spec.preemptionPolicy', 'FieldValueNotSupported', 'Unsupported value: "Never": supported values: "PreemptLowerPriority"'),
  'api.podgroup.preemption-policy.unsupported': onCreate(PG, (b) => { if (!['Never', 'PreemptLowerPriority', undefined].includes(b.spec?.preemptionPolicy)) b.spec.preemptionPolicy = 'Never'; }),
  'api.podgroup.preemption-policy.immutable': allowsChange(PG, 'spec.preemptionPolicy'),
  'api.podgroup.priority.maximum': onCreate(PG, (b) => { if (b.spec?.priority > 1_000_000_000) b.spec.priority = 1_000_000_000; }),
  'api.podgroup.priority.immutable': allowsChange(PG, 'spec.priority'),
  'api.podgroup.priority-class-name.format': onCreate(PG, (b) => { if (typeof b.spec?.priorityClassName === 'string') b.spec.priorityClassName = sanitizeName(b.spec.priorityClassName); }),
  'api.podgroup.priority-class-name.immutable': allowsChange(PG, 'spec.priorityClassName'),
  'api.podgroup.resource-claims.kept-gate-on': dropOnOutput(PG, 'spec.resourceClaims'),
  'api.podgroup.resource-claims.dropped-gate-off': keepsGatedField(PG, 'spec.resourceClaims'),
  'api.podgroup.resource-claims.not-stored-gate-off': keepsGatedField(PG, 'spec.resourceClaims'),
  'api.podgroup.resource-claims.name-required': onCreate(PG, (b) => { (b.spec?.resourceClaims ?? []).forEach((c: any, i: number) => { c.name ??= `filled-${i}`; }); }),
  'api.podgroup.resource-claims.name-dns-label': onCreate(PG, (b) => { (b.spec?.resourceClaims ?? []).forEach((c: any) => { if (typeof c.name === 'string') c.name = sanitizeName(c.name, false); }); }),
  'api.podgroup.resource-claims.name-unique': onCreate(PG, (b) => {
    const seen = new Set<string>();
    (b.spec?.resourceClaims ?? []).forEach((c: any, i: number) => { if (seen.has(c.name)) c.name = `${c.name}-${i}`; seen.add(c.name); });
  }),
  'api.podgroup.resource-claims.exactly-one-source': onCreate(PG, (b) => {
    (b.spec?.resourceClaims ?? []).forEach((c: any) => {
      if (c.resourceClaimName && c.resourceClaimTemplateName) delete c.resourceClaimName;
      if (!c.resourceClaimName && !c.resourceClaimTemplateName) c.resourceClaimTemplateName = 'filled';
    });
  }),
  'api.podgroup.resource-claims.reference-names-format': onCreate(PG, (b) => {
    (b.spec?.resourceClaims ?? []).forEach((c: any) => {
      for (const f of ['resourceClaimName', 'resourceClaimTemplateName']) if (typeof c[f] === 'string') c[f] = sanitizeName(c[f]);
    });
  }),
  'api.podgroup.resource-claims.immutable': allowsChange(PG, 'spec.resourceClaims'),
  'api.podgroup.resource-claims.template-name-immutable': allowsChange(PG, 'spec.resourceClaims'),
  'api.podgroup.resource-claims.max-4': onCreate(PG, (b) => { if (Array.isArray(b.spec?.resourceClaims)) b.spec.resourceClaims = b.spec.resourceClaims.slice(0, 4); }),
  'api.podgroup.scheduling-constraints.dropped-gate-off': keepsGatedField(PG, 'spec.schedulingConstraints'),
  'api.podgroup.scheduling-constraints.not-stored-gate-off': keepsGatedField(PG, 'spec.schedulingConstraints'),
  'api.podgroup.scheduling-constraints.kept-gate-on': dropOnOutput(PG, 'spec.schedulingConstraints'),
  'api.podgroup.scheduling-constraints.single-topology': onCreate(PG, (b) => {
    const c = b.spec?.schedulingConstraints;
    if (Array.isArray(c?.topology)) c.topology = c.topology.slice(0, 1);
  }),
  'api.podgroup.scheduling-constraints.key-required': onCreate(PG, (b) => { (b.spec?.schedulingConstraints?.topology ?? []).forEach((t: any) => { t.key ??= 'topology.example.com/filled'; }); }),
  'api.podgroup.scheduling-constraints.key-label-key': onCreate(PG, (b) => {
    (b.spec?.schedulingConstraints?.topology ?? []).forEach((t: any) => { if (typeof t.key === 'string') t.key = t.key.replace(/[^A-Za-z0-9./_-]/g, '') || 'fixed'; });
  }),
  'api.podgroup.scheduling-constraints.immutable': allowsChange(PG, 'spec.schedulingConstraints'),
  'api.podgroup.workload-ref.template-name-required': onCreate(PG, (b) => { if (b.spec?.workloadRef) b.spec.workloadRef.templateName ??= 'filled'; }),
  'api.podgroup.workload-ref.workload-name-required': onCreate(PG, (b) => { if (b.spec?.workloadRef) b.spec.workloadRef.workloadName ??= 'filled'; }),
  'api.podgroup.workload-ref.template-name-dns-label': onCreate(PG, (b) => {
    const w = b.spec?.workloadRef;
    if (typeof w?.templateName === 'string') w.templateName = sanitizeName(w.templateName, false);
  }),
  'api.podgroup.workload-ref.workload-name-dns-name': onCreate(PG, (b) => {
    const w = b.spec?.workloadRef;
    if (typeof w?.workloadName === 'string') w.workloadName = sanitizeName(w.workloadName);
  }),
  'api.podgroup.workload-ref.immutable': allowsChange(PG, 'spec.workloadRef'),
  'api.podgroup.status.initially-scheduled.reasons': rejectStatusPut(
    PG,
    (b) => (b?.status?.conditions ?? []).some((c: any) => c?.reason === 'SchedulerError'),
    'status.conditions[0].reason',
    'FieldValueNotSupported',
    'Unsupported value: "SchedulerError": supported values: "Unschedulable"',
  ),
  'api.podgroup.status.disruption-target': rejectStatusPut(
    PG,
    (b) => (b?.status?.conditions ?? []).some((c: any) => c?.type === 'DisruptionTarget'),
    'status.conditions[0].type',
    'FieldValueNotSupported',
    'Unsupported value: "DisruptionTarget": supported values: "PodGroupInitiallyScheduled"',
  ),
  'api.podgroup.status.conditions.unique-type': onStatusPut(PG, dedupeByType),
  'api.podgroup.status.condition.shape': onStatusPut(PG, (s) => { (s.conditions ?? []).forEach(fixCondition); }),
  'api.podgroup.status.resource-claim-statuses.name': onStatusPut(PG, (s, b) => {
    // A server that does not match statuses against the spec: it quietly drops the strays.
    const names = new Set((b.spec?.resourceClaims ?? []).map((c: any) => c?.name));
    if (Array.isArray(s.resourceClaimStatuses)) s.resourceClaimStatuses = s.resourceClaimStatuses.filter((e: any) => names.has(e?.name));
  }),
  'api.podgroup.api.gated': {
    // Serves the collection although the gate is off.
    request: (r) => (r.method === 'GET' && route(PG, r) && !route(PG, r)!.name
      ? answer(200, { kind: 'PodGroupList', apiVersion: 'scheduling.orch.io/v1beta1', metadata: { resourceVersion: '1' }, items: [] }) : undefined),
  },
  'api.podgroup.scope.namespaced': dropOnOutput(PG, 'metadata.namespace'),
  'api.podgroup.watch.all-namespaces': {
    request: (r) => (r.path.split('?')[0] === '/apis/scheduling.orch.io/v1beta1/watch/podgroups'
      ? answer(404, statusBody(404, 'NotFound', 'the server could not find the requested resource')) : undefined),
  },
};
