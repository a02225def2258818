// pods/{name}/eviction (upstream EvictionREST, without PodDisruptionBudgets: every eviction is
// allowed): DisruptionTarget then delete, the Eviction's deleteOptions, dry run, the refusals,
// routing and discovery.
import t from 'tap';
import { startReference } from '../../reference/server.js';
import { requestInfo } from '../../reference/apiserver/auth/request-info.js';
import { call, WatchReader } from './helpers.js';

const NS = 'default';
const PODS = `/api/v1/namespaces/${NS}/pods`;
const pod = (name: string, metadata: Record<string, unknown> = {}) =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, ...metadata }, spec: { containers: [{ name: 'main', image: 'registry.orch.io/app:1.0' }] } });
const eviction = (name: string, extra: Record<string, unknown> = {}, apiVersion = 'policy/v1') =>
  ({ apiVersion, kind: 'Eviction', metadata: { name, namespace: NS }, ...extra });
const SUCCESS = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };

async function server(t: { teardown(fn: () => unknown): void }) {
  const ref = await startReference({ controllerManager: false, scheduler: false });
  t.teardown(() => ref.close());
  const u = ref.url;
  /** A pod in `phase` (set through the status subresource). */
  const create = async (name: string, phase = 'Running', metadata: Record<string, unknown> = {}) => {
    const r = await call(u, 'POST', PODS, pod(name, metadata));
    if (r.status !== 201) throw new Error(`pod create: ${r.status} ${r.text}`);
    if (phase === 'Pending') return r.body;
    const s = await call(u, 'PUT', `${PODS}/${name}/status`, { ...r.body, status: { ...r.body.status, phase } });
    if (s.status !== 200) throw new Error(`pod status: ${s.status} ${s.text}`);
    return s.body;
  };
  const get = (name: string) => call(u, 'GET', `${PODS}/${name}`);
  return { u, create, get };
}

t.test('evicting a running pod: DisruptionTarget, then deleted; 201 with a Success Status', async (t) => {
  const { u, create, get } = await server(t);
  const p = await create('victim');
  const w = await WatchReader.open(`${u}${PODS}?watch=true&resourceVersion=${p.metadata.resourceVersion}&fieldSelector=metadata.name%3Dvictim`);
  t.teardown(() => w.close());
  const r = await call(u, 'POST', `${PODS}/victim/eviction`, eviction('victim'));
  t.equal(r.status, 201, r.text);
  t.same(r.body, SUCCESS);
  t.equal((await get('victim')).status, 404, 'the pod is gone');
  const modified = await w.next();
  t.equal(modified?.type, 'MODIFIED', 'first the condition');
  const cond = modified?.object.status.conditions.find((c: any) => c.type === 'DisruptionTarget');
  t.match(cond, { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting', lastTransitionTime: /Z$/ });
  const deleted = await w.next();
  t.equal(deleted?.type, 'DELETED', 'then the deletion');
  t.ok(deleted?.object.status.conditions.some((c: any) => c.type === 'DisruptionTarget'), 'the deleted pod carries the condition');

  // A pending pod is evicted too (upstream: deleted without PDB checks).
  await create('pending', 'Pending');
  t.equal((await call(u, 'POST', `${PODS}/pending/eviction`, eviction('pending'))).status, 201);
  t.equal((await get('pending')).status, 404);
});

t.test('terminal pods, pods being deleted, pods with finalizers', async (t) => {
  const { u, create, get } = await server(t);
  const done = await create('done', 'Succeeded');
  const w = await WatchReader.open(`${u}${PODS}?watch=true&resourceVersion=${done.metadata.resourceVersion}&fieldSelector=metadata.name%3Ddone`);
  t.teardown(() => w.close());
  t.equal((await call(u, 'POST', `${PODS}/done/eviction`, eviction('done'))).status, 201);
  const ev = await w.next();
  t.equal(ev?.type, 'DELETED', 'a terminal pod is deleted without a DisruptionTarget condition first');
  t.notOk((ev?.object.status.conditions ?? []).some((c: any) => c.type === 'DisruptionTarget'));

  // Finalizers hold the pod: it is marked, and carries the condition.
  await create('held', 'Running', { finalizers: ['example.orch.io/hold'] });
  t.equal((await call(u, 'POST', `${PODS}/held/eviction`, eviction('held'))).status, 201);
  const held = (await get('held')).body;
  t.ok(held.metadata.deletionTimestamp, 'marked for deletion');
  t.ok(held.status.conditions.some((c: any) => c.type === 'DisruptionTarget' && c.status === 'True'));
  // Already being deleted: 201, nothing more.
  const again = await call(u, 'POST', `${PODS}/held/eviction`, eviction('held'));
  t.equal(again.status, 201);
  t.same(again.body, SUCCESS);
  t.equal((await get('held')).body.metadata.resourceVersion, held.metadata.resourceVersion, 'not written again');
});

t.test('deleteOptions: preconditions, validation, dry run', async (t) => {
  const { u, create, get } = await server(t);
  const p = await create('pre');
  const badUid = await call(u, 'POST', `${PODS}/pre/eviction`, eviction('pre', { deleteOptions: { preconditions: { uid: 'not-the-uid' } } }));
  t.equal(badUid.status, 409);
  t.match(badUid.body, { reason: 'Conflict', message: /^Operation cannot be fulfilled on Pod "pre": the UID in the precondition \(not-the-uid\) does not match the UID in record/ });
  const badRv = await call(u, 'POST', `${PODS}/pre/eviction`, eviction('pre', { deleteOptions: { preconditions: { resourceVersion: '1' } } }));
  t.equal(badRv.status, 409);
  t.match(badRv.body.message, /the ResourceVersion in the precondition \(1\) does not match the ResourceVersion in record/);
  const still = (await get('pre')).body;
  t.equal(still.metadata.resourceVersion, p.metadata.resourceVersion, 'a refused eviction writes nothing (no condition)');

  const invalid = await call(u, 'POST', `${PODS}/pre/eviction`, eviction('pre', { deleteOptions: { propagationPolicy: 'Sideways' } }));
  t.equal(invalid.status, 422);
  t.match(invalid.body, { reason: 'Invalid', message: /DeleteOptions.meta.orch.io "" is invalid: propagationPolicy: Unsupported value: "Sideways"/ });
  const mistyped = await call(u, 'POST', `${PODS}/pre/eviction`, eviction('pre', { deleteOptions: { gracePeriodSeconds: 'soon' } }));
  t.equal(mistyped.status, 422);
  t.match(mistyped.body.details.causes, [{ field: 'deleteOptions.gracePeriodSeconds' }]);

  for (const [what, path, body] of [
    ['dryRun=All on the query', `${PODS}/pre/eviction?dryRun=All`, eviction('pre')],
    ['dryRun in deleteOptions', `${PODS}/pre/eviction`, eviction('pre', { deleteOptions: { dryRun: ['All'] } })],
  ] as const) {
    const dry = await call(u, 'POST', path, body);
    t.equal(dry.status, 201, what);
    t.same(dry.body, SUCCESS);
    const after = await get('pre');
    t.equal(after.status, 200, `${what}: the pod stays`);
    t.equal(after.body.metadata.resourceVersion, p.metadata.resourceVersion, `${what}: nothing written`);
  }
  t.equal((await call(u, 'POST', `${PODS}/pre/eviction`, eviction('pre', { deleteOptions: { dryRun: ['Bogus'] } }))).status, 422);

  const ok = await call(u, 'POST', `${PODS}/pre/eviction`, eviction('pre', { deleteOptions: { preconditions: { uid: p.metadata.uid, resourceVersion: p.metadata.resourceVersion }, gracePeriodSeconds: 0 } }));
  t.equal(ok.status, 201, `matching preconditions (the resourceVersion one follows the condition's own write): ${ok.text}`);
  t.equal((await get('pre')).status, 404);
});

t.test('refusals, body versions and routing', async (t) => {
  const { u, create, get } = await server(t);
  await create('e');
  const mismatch = await call(u, 'POST', `${PODS}/e/eviction`, eviction('other'));
  t.equal(mismatch.status, 400);
  t.match(mismatch.body, { kind: 'Status', reason: 'BadRequest', message: 'name in URL does not match name in Eviction object' });
  const absent = await call(u, 'POST', `${PODS}/nope/eviction`, eviction('nope'));
  t.equal(absent.status, 404);
  t.match(absent.body, { reason: 'NotFound', message: 'pods "nope" not found' });
  const badJson = await call(u, 'POST', `${PODS}/e/eviction`, '{"apiVersion":', { 'content-type': 'application/json' });
  t.equal(badJson.status, 400);
  t.equal(badJson.body.kind, 'Status');
  const wrongKind = await call(u, 'POST', `${PODS}/e/eviction`, { ...eviction('e'), kind: 'Binding' });
  t.equal(wrongKind.status, 400);
  const wrongVersion = await call(u, 'POST', `${PODS}/e/eviction`, eviction('e', {}, 'policy/v2'));
  t.equal(wrongVersion.status, 400);
  t.match(wrongVersion.body.message, /API version in the data \(policy\/v2\) does not match the expected API version \(policy\/v1\)/);
  const wrongNs = await call(u, 'POST', `${PODS}/e/eviction`, { ...eviction('e'), metadata: { name: 'e', namespace: 'kube-system' } });
  t.equal(wrongNs.status, 400);
  for (const m of ['GET', 'PUT', 'DELETE']) t.equal((await call(u, m, `${PODS}/e/eviction`, m === 'PUT' ? {} : undefined)).status, 405, `${m} on eviction`);
  t.equal((await call(u, 'POST', `${PODS}/e/evictions`, eviction('e'))).status, 404, 'unknown subresource');
  t.equal((await get('e')).status, 200, 'none of those evicted');

  t.equal((await call(u, 'POST', `${PODS}/e/eviction`, eviction('e', {}, 'policy/v1beta1'))).status, 201, 'a policy/v1beta1 Eviction');
  await create('bare');
  t.equal((await call(u, 'POST', `${PODS}/bare/eviction`, { metadata: { name: 'bare' } })).status, 201, 'a body without type meta');

  const list = (await call(u, 'GET', '/api/v1')).body.resources as any[];
  t.same(list.find((r) => r.name === 'pods/eviction'), { name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
  const doc = (await call(u, 'GET', '/openapi/v3/api/v1')).body;
  const op = doc.paths['/api/v1/namespaces/{namespace}/pods/{name}/eviction']?.post;
  t.equal(op?.operationId, 'createCoreV1NamespacedPodEviction');
  t.same(op?.['x-kubernetes-group-version-kind'], { group: 'policy', kind: 'Eviction', version: 'v1' });
  t.ok(doc.components.schemas['io.orch.api.policy.v1.Eviction'], 'the Eviction schema');
  const r = requestInfo('POST', `${PODS}/e/eviction`);
  t.same([r.verb, r.resource, r.subresource, r.name, r.namespace], ['create', 'pods', 'eviction', 'e', NS], 'RBAC sees create on pods/eviction');
});

t.test('concurrent evictions of one pod: both succeed or 404, the pod is gone once', async (t) => {
  const { u, create, get } = await server(t);
  await create('twice');
  const codes = (await Promise.all([1, 2].map(() => call(u, 'POST', `${PODS}/twice/eviction`, eviction('twice'))))).map((r) => r.status);
  t.ok(codes.includes(201), `one eviction succeeds (${codes.join(', ')})`);
  t.ok(codes.every((c) => c === 201 || c === 404), 'the other sees the pod or its absence, never a 500');
  t.equal((await get('twice')).status, 404);
});
