// PodGroup rules (spec §2.6, §3.2; upstream declarative validation and dropDisabledPodGroupFields).
import t from 'tap';
import { startApiServer } from '../../reference/apiserver/apiserver.js';
import { ResourceStore } from '../../reference/apiserver/store.js';
import type { ApiObject } from '../../reference/apiserver/strategy.js';
import { FeatureGates } from '../../reference/features.js';
import { dropDisabledPodGroupFields, podGroupStrategy } from '../../reference/resources/podgroup.js';
import { MemoryStorage } from '../../reference/storage/memory.js';
import { call } from './helpers.js';

const PGS = '/apis/scheduling.orch.io/v1beta1/namespaces/default/podgroups';
const T = '2025-01-01T00:00:00Z';

async function server(t: { teardown(fn: () => unknown): void }, gates: Record<string, boolean> = { GenericWorkload: true }): Promise<string> {
  const api = await startApiServer({
    storage: new MemoryStorage(),
    strategies: [podGroupStrategy],
    featureGates: new FeatureGates(gates),
    log: (m, e) => console.error('unexpected server error:', m, e),
  });
  t.teardown(() => api.close());
  return api.url;
}

const pg = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'scheduling.orch.io/v1beta1',
  kind: 'PodGroup',
  metadata: { name },
  spec: { schedulingPolicy: { gang: { minCount: 2 } }, ...spec },
});

async function invalid(url: string, body: unknown): Promise<any> {
  const r = await call(url, 'POST', PGS, body);
  if (r.status !== 422) throw new Error(`expected 422 for ${JSON.stringify(body)}, got ${r.status} ${r.text}`);
  return r.body;
}

const ALL_ON = { GenericWorkload: true, CompositePodGroup: true, PodGroupPreemptionPolicy: true, TopologyAwareWorkloadScheduling: true, DRAWorkloadResourceClaims: true };
const ALL_OFF = { GenericWorkload: true, CompositePodGroup: false, PodGroupPreemptionPolicy: false, TopologyAwareWorkloadScheduling: false, DRAWorkloadResourceClaims: false };
const gatedSpec = () => ({
  parentCompositePodGroupName: 'root',
  workloadRef: { workloadName: 'w', templateName: 't' },
  preemptionPolicy: 'Never',
  schedulingConstraints: { topology: [{ key: 'rack' }] },
  resourceClaims: [{ name: 'gpus', resourceClaimTemplateName: 'tpl' }],
});

t.test('dropDisabledFields: gated fields go while their gate is off, unless the stored object uses them', async (t) => {
  const on = pg('x', gatedSpec()) as unknown as ApiObject;
  dropDisabledPodGroupFields(on as any, undefined, new FeatureGates(ALL_ON));
  t.same((on as any).spec, { schedulingPolicy: { gang: { minCount: 2 } }, ...gatedSpec() }, 'all gates on: nothing dropped');

  const off = { ...pg('x', gatedSpec()), status: { resourceClaimStatuses: [{ name: 'gpus' }] } } as any;
  dropDisabledPodGroupFields(off, undefined, new FeatureGates(ALL_OFF));
  t.same(off.spec, { schedulingPolicy: { gang: { minCount: 2 } }, workloadRef: { workloadName: 'w', templateName: 't' } }, 'all gates off: every gated field dropped on create');
  t.same(off.status, {}, 'status.resourceClaimStatuses goes with DRAWorkloadResourceClaims');

  const old = pg('x', gatedSpec()) as any;
  const update = pg('x', { ...gatedSpec(), parentCompositePodGroupName: 'other' }) as any;
  dropDisabledPodGroupFields(update, old, new FeatureGates(ALL_OFF));
  t.same(update.spec, { schedulingPolicy: { gang: { minCount: 2 } }, ...gatedSpec(), parentCompositePodGroupName: 'other' }, 'kept on update when the stored object uses them');

  const oldWithout = pg('x') as any;
  const adding = pg('x', gatedSpec()) as any;
  dropDisabledPodGroupFields(adding, oldWithout, new FeatureGates(ALL_OFF));
  t.equal(adding.spec.parentCompositePodGroupName, undefined, 'not added on update when the stored object does not use them');
  t.equal(adding.spec.resourceClaims, undefined);
});

t.test('the store drops and keeps gated fields with the gates it runs with', async (t) => {
  const storage = new MemoryStorage();
  t.teardown(() => storage.close());
  const withGates = new ResourceStore({ storage, strategy: podGroupStrategy, gates: new FeatureGates(ALL_ON) });
  const without = new ResourceStore({ storage, strategy: podGroupStrategy, gates: new FeatureGates(ALL_OFF) });
  const created = (await withGates.create('default', pg('a', gatedSpec()))).object as any;
  t.equal(created.spec.parentCompositePodGroupName, 'root');
  t.equal(created.spec.preemptionPolicy, 'Never');
  // The same stored object, updated by a server with the gates off: what it uses stays.
  const updated = (await without.update('default', 'a', { ...created, spec: { ...created.spec, schedulingPolicy: { gang: { minCount: 3 } } } })).object as any;
  t.equal(updated.spec.schedulingPolicy.gang.minCount, 3);
  t.same(updated.spec.schedulingConstraints, { topology: [{ key: 'rack' }] });
  t.same(updated.spec.resourceClaims, [{ name: 'gpus', resourceClaimTemplateName: 'tpl' }]);
  const fresh = (await without.create('default', pg('b', gatedSpec()))).object as any;
  t.same(Object.keys(fresh.spec).sort(), ['disruptionMode', 'schedulingPolicy', 'workloadRef'], 'a create with the gates off keeps none of them');
});

t.test('the API is served only with GenericWorkload on', async (t) => {
  const off = await server(t, {});
  t.equal((await call(off, 'GET', PGS)).status, 404);
  t.equal((await call(off, 'POST', PGS, pg('x'))).status, 404);
  const groups = (await call(off, 'GET', '/apis')).body.groups.map((g: any) => g.name);
  t.notOk(groups.includes('scheduling.orch.io'), 'absent from /apis');
  t.equal((await call(off, 'GET', '/apis/scheduling.orch.io/v1beta1')).status, 404);

  const on = await server(t);
  t.equal((await call(on, 'POST', PGS, pg('x'))).status, 201);
  const disc = (await call(on, 'GET', '/apis/scheduling.orch.io/v1beta1')).body;
  t.same(disc.resources.map((r: any) => r.name).sort(), ['podgroups', 'podgroups/status']);
});

t.test('defaults: disruptionMode single; preemptionPolicy only with its gate', async (t) => {
  const off = await server(t);
  const a = (await call(off, 'POST', PGS, pg('a'))).body;
  t.same(a.spec.disruptionMode, { single: {} });
  t.equal(a.spec.preemptionPolicy, undefined, 'no preemptionPolicy without PodGroupPreemptionPolicy');
  t.same((await call(off, 'POST', PGS, pg('b', { disruptionMode: { all: {} } }))).body.spec.disruptionMode, { all: {} });
  const on = await server(t, { GenericWorkload: true, PodGroupPreemptionPolicy: true });
  t.equal((await call(on, 'POST', PGS, pg('a'))).body.spec.preemptionPolicy, 'PreemptLowerPriority');
  t.equal((await call(on, 'POST', PGS, pg('b', { preemptionPolicy: 'Never' }))).body.spec.preemptionPolicy, 'Never');
});

t.test('spec field rules and their messages', async (t) => {
  const url = await server(t, ALL_ON);
  let b = await invalid(url, { ...pg('nospec'), spec: undefined });
  t.equal(b.message, 'PodGroup.scheduling.orch.io "nospec" is invalid: spec: Required value');

  b = await invalid(url, pg('nopolicy', { schedulingPolicy: undefined }));
  t.equal(b.message, 'PodGroup.scheduling.orch.io "nopolicy" is invalid: spec.schedulingPolicy: Invalid value: "": must specify one of: `basic`, `gang`');
  b = await invalid(url, pg('both', { schedulingPolicy: { basic: {}, gang: { minCount: 1 } } }));
  t.equal(b.message, 'PodGroup.scheduling.orch.io "both" is invalid: spec.schedulingPolicy: Invalid value: "{basic, gang}": must specify exactly one of: `basic`, `gang`');
  b = await invalid(url, pg('nomin', { schedulingPolicy: { gang: {} } }));
  t.same(b.details.causes, [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.schedulingPolicy.gang.minCount' }]);
  b = await invalid(url, pg('negmin', { schedulingPolicy: { gang: { minCount: -1 } } }));
  t.same(b.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 1', field: 'spec.schedulingPolicy.gang.minCount' }]);

  b = await invalid(url, pg('modes', { disruptionMode: { all: {}, single: {} } }));
  t.equal(b.details.causes[0].message, 'Invalid value: "{single, all}": must specify exactly one of: `single`, `all`');
  b = await invalid(url, pg('nomode', { disruptionMode: {} }));
  t.equal(b.details.causes[0].field, 'spec.disruptionMode');

  b = await invalid(url, pg('parent', { parentCompositePodGroupName: 'root' }));
  t.same(b.details.causes, [{ reason: 'FieldValueRequired', message: 'Required value: must be set when parentCompositePodGroupName is set', field: 'spec.workloadRef' }]);
  b = await invalid(url, pg('parentname', { parentCompositePodGroupName: 'Root_1', workloadRef: { workloadName: 'w', templateName: 't' } }));
  t.equal(b.details.causes[0].field, 'spec.parentCompositePodGroupName');
  b = await invalid(url, pg('wref', { workloadRef: { workloadName: 'W_1', templateName: 'a.b' } }));
  t.same(b.details.causes.map((c: any) => c.field), ['spec.workloadRef.workloadName', 'spec.workloadRef.templateName']);
  b = await invalid(url, pg('wref2', { workloadRef: {} }));
  t.same(b.details.causes.map((c: any) => [c.field, c.reason]), [['spec.workloadRef.workloadName', 'FieldValueRequired'], ['spec.workloadRef.templateName', 'FieldValueRequired']]);

  b = await invalid(url, pg('topo', { schedulingConstraints: { topology: [{ key: 'a' }, { key: 'b' }] } }));
  t.equal(b.message, 'PodGroup.scheduling.orch.io "topo" is invalid: spec.schedulingConstraints.topology: Too many: 2: must have at most 1 items');
  b = await invalid(url, pg('topokey', { schedulingConstraints: { topology: [{}] } }));
  t.same(b.details.causes[0], { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.schedulingConstraints.topology[0].key' });

  b = await invalid(url, pg('claims', { resourceClaims: [{ name: 'a' }, { name: 'a', resourceClaimName: 'c', resourceClaimTemplateName: 't' }, { resourceClaimName: 'x' }] }));
  t.same(b.details.causes.map((c: any) => [c.field, c.reason]), [
    ['spec.resourceClaims[0]', 'FieldValueInvalid'],
    ['spec.resourceClaims[1]', 'FieldValueDuplicate'],
    ['spec.resourceClaims[1]', 'FieldValueInvalid'],
    ['spec.resourceClaims[2].name', 'FieldValueRequired'],
  ]);
  t.equal(b.details.causes[0].message, 'Invalid value: "": must specify one of: `resourceClaimName`, `resourceClaimTemplateName`');
  b = await invalid(url, pg('claims5', { resourceClaims: Array.from({ length: 5 }, (_, i) => ({ name: `c${i}`, resourceClaimName: 'x' })) }));
  t.equal(b.details.causes[0].message, 'Too many: 5: must have at most 4 items');

  b = await invalid(url, pg('prio', { priority: 1_000_000_001, priorityClassName: 'High', preemptionPolicy: 'Sometimes' }));
  t.same(b.details.causes, [
    { reason: 'FieldValueInvalid', message: 'Invalid value: "High": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')', field: 'spec.priorityClassName' },
    { reason: 'FieldValueInvalid', message: 'Invalid value: 1000000001: must be less than or equal to 1000000000', field: 'spec.priority' },
    { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Sometimes": supported values: "Never", "PreemptLowerPriority"', field: 'spec.preemptionPolicy' },
  ]);
  t.equal((await call(url, 'POST', PGS, pg('maxprio', { priority: 1_000_000_000 }))).status, 201);
});

t.test('updates: the policy variant is frozen, minCount mutable, the rest immutable', async (t) => {
  const url = await server(t, ALL_ON);
  const full = { ...gatedSpec(), priority: 10, priorityClassName: 'high' };
  let cur = (await call(url, 'POST', PGS, pg('u', full))).body;
  const put = (spec: Record<string, unknown>) => call(url, 'PUT', `${PGS}/u`, { ...cur, spec: { ...cur.spec, ...spec } });

  let r = await put({ schedulingPolicy: { gang: { minCount: 7 } } });
  t.equal(r.status, 200, r.text);
  t.equal(r.body.metadata.generation, 2);
  cur = r.body;

  r = await put({ schedulingPolicy: { basic: {} } });
  t.same(r.body.details.causes, [
    { reason: 'FieldValueForbidden', message: 'Forbidden: field is immutable', field: 'spec.schedulingPolicy.basic' },
    { reason: 'FieldValueInvalid', message: 'Invalid value: null: field cannot be cleared once set', field: 'spec.schedulingPolicy.gang' },
  ]);
  const changes: Record<string, unknown> = {
    parentCompositePodGroupName: 'other',
    workloadRef: { workloadName: 'w', templateName: 'u' },
    schedulingConstraints: { topology: [{ key: 'zone' }] },
    resourceClaims: [{ name: 'gpus', resourceClaimTemplateName: 'tpl2' }],
    disruptionMode: { all: {} },
    priorityClassName: 'low',
    priority: 11,
    preemptionPolicy: 'PreemptLowerPriority',
  };
  for (const [field, value] of Object.entries(changes)) {
    r = await put({ [field]: value });
    t.same(r.body?.details?.causes, [{ reason: 'FieldValueForbidden', message: 'Forbidden: field is immutable', field: `spec.${field}` }], `${field} is immutable`);
  }

  const basic = (await call(url, 'POST', PGS, pg('b', { schedulingPolicy: { basic: {} } }))).body;
  r = await call(url, 'PUT', `${PGS}/b`, { ...basic, spec: { ...basic.spec, schedulingPolicy: { gang: { minCount: 1 } } } });
  t.same(r.body.details.causes.map((c: any) => c.message), ['Forbidden: field is immutable', 'Invalid value: null: field cannot be set once created']);
});

t.test('status: conditions, PodGroupInitiallyScheduled is terminal, resourceClaimStatuses match the spec', async (t) => {
  const url = await server(t);
  let cur = (await call(url, 'POST', PGS, pg('s', { resourceClaims: [{ name: 'gpus', resourceClaimTemplateName: 'tpl' }] }))).body;
  const put = (status: unknown) => call(url, 'PUT', `${PGS}/s/status`, { ...cur, status });
  const cond = (type: string, status: string, reason: string) => ({ type, status, reason, message: '', lastTransitionTime: T });

  let r = await put({ conditions: [cond('PodGroupInitiallyScheduled', 'False', 'Unschedulable'), cond('DisruptionTarget', 'False', 'NotPreempted')] });
  t.equal(r.status, 200, r.text);
  cur = r.body;
  r = await put({ conditions: [cond('PodGroupInitiallyScheduled', 'False', 'SchedulerError')] });
  t.equal(r.status, 200, 'False may change its reason and drop other conditions');
  cur = r.body;
  r = await put({ conditions: [cond('PodGroupInitiallyScheduled', 'True', 'Scheduled')] });
  t.equal(r.status, 200);
  cur = r.body;
  r = await put({ conditions: [cond('PodGroupInitiallyScheduled', 'False', 'Unschedulable')] });
  t.same(r.body.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: "False": PodGroupInitiallyScheduled is terminal once True and may not revert', field: 'status.conditions[0].status' }]);
  r = await put({ conditions: [cond('DisruptionTarget', 'True', 'PreemptionByScheduler')] });
  t.same(r.body.details.causes, [{ reason: 'FieldValueForbidden', message: 'Forbidden: the PodGroupInitiallyScheduled condition may not be removed once True', field: 'status.conditions' }]);
  r = await put({ conditions: [cond('PodGroupInitiallyScheduled', 'True', 'Scheduled'), cond('DisruptionTarget', 'True', 'PreemptionByScheduler')] });
  t.equal(r.status, 200, 'True stays True; other conditions may come');
  cur = r.body;
  r = await put({ conditions: [cond('PodGroupInitiallyScheduled', 'True', 'Scheduled'), cond('PodGroupInitiallyScheduled', 'True', 'Again')] });
  t.same(r.body.details.causes, [{ reason: 'FieldValueDuplicate', message: 'Duplicate value: "PodGroupInitiallyScheduled"', field: 'status.conditions[1].type' }]);

  const conditions = cur.status.conditions;
  r = await put({ conditions, resourceClaimStatuses: [{ name: 'gpus', resourceClaimName: 's-gpus-abcde' }] });
  t.equal(r.status, 200, r.text);
  cur = r.body;
  r = await put({ conditions, resourceClaimStatuses: [{ name: 'other' }] });
  t.same(r.body.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: "other": must match the name of an entry in `spec.resourceClaims`', field: 'status.resourceClaimStatuses[0].name' }]);
});

t.test('delete returns a Status (upstream: the PodGroup store does not return the object)', async (t) => {
  const url = await server(t);
  await call(url, 'POST', PGS, pg('d'));
  const r = await call(url, 'DELETE', `${PGS}/d`);
  t.equal(r.status, 200);
  t.equal(r.body.kind, 'Status');
  t.equal(r.body.status, 'Success');
});
