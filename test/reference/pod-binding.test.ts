// pods/{name}/binding and the legacy bindings collection (upstream BindingREST, LegacyBindingREST):
// the answers (codes, Status bodies), the stored pod, concurrent binds, dry run, routing, discovery
// and the request attributes RBAC decides on.
import t from 'tap';
import { startReference } from '../../reference/server.js';
import { requestInfo } from '../../reference/apiserver/auth/request-info.js';
import { call } from './helpers.js';

const NS = 'default';
const PODS = `/api/v1/namespaces/${NS}/pods`;
const pod = (name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, ...metadata }, spec: { containers: [{ name: 'main', image: 'registry.orch.io/app:1.0' }], ...spec } });
const binding = (name: string, node: string, extra: Record<string, unknown> = {}) =>
  ({ apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { apiVersion: 'v1', kind: 'Node', name: node }, ...extra });
const SUCCESS = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };

async function server(t: { teardown(fn: () => unknown): void }) {
  const ref = await startReference({ controllerManager: false, scheduler: false });
  t.teardown(() => ref.close());
  const u = ref.url;
  const create = async (p: Record<string, unknown>) => {
    const r = await call(u, 'POST', PODS, p);
    if (r.status !== 201) throw new Error(`pod create: ${r.status} ${r.text}`);
    return r.body;
  };
  return { u, create };
}

t.test('binding a pod: 201 with a Success Status, nodeName and PodScheduled set', async (t) => {
  const { u, create } = await server(t);
  const before = await create(pod('p1'));
  const r = await call(u, 'POST', `${PODS}/p1/binding`, binding('p1', 'node-a', { metadata: { name: 'p1', annotations: { 'example.orch.io/why': 'test' } } }));
  t.equal(r.status, 201, r.text);
  t.same(r.body, SUCCESS, 'upstream answers Status{Success} with the create code');
  t.equal(r.headers.get('content-type'), 'application/json');
  const p = (await call(u, 'GET', `${PODS}/p1`)).body;
  t.equal(p.spec.nodeName, 'node-a');
  t.equal(p.metadata.annotations['example.orch.io/why'], 'test', "the binding's annotations are copied to the pod");
  const cond = p.status.conditions.find((c: any) => c.type === 'PodScheduled');
  t.match(cond, { type: 'PodScheduled', status: 'True', lastTransitionTime: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/ });
  t.notOk('reason' in cond, 'no reason on the True condition');
  t.equal(p.metadata.generation, before.metadata.generation, 'no generation bump (the pod strategy is bypassed, as upstream)');
  t.same(p.metadata.managedFields, before.metadata.managedFields, 'no managedFields entry for the binding');
  t.not(p.metadata.resourceVersion, before.metadata.resourceVersion);

  // A pending pod's PodScheduled=False (reason Unschedulable) is replaced whole.
  await create(pod('p2'));
  const cur = (await call(u, 'GET', `${PODS}/p2`)).body;
  cur.status.conditions = [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/1 nodes are available', lastTransitionTime: '2020-01-01T00:00:00Z' }];
  t.equal((await call(u, 'PUT', `${PODS}/p2/status`, cur)).status, 200);
  t.equal((await call(u, 'POST', `${PODS}/p2/binding`, binding('p2', 'node-a'))).status, 201);
  const c2 = (await call(u, 'GET', `${PODS}/p2`)).body.status.conditions;
  t.equal(c2.length, 1);
  t.equal(c2[0].status, 'True');
  t.notOk(c2[0].reason, 'reason cleared');
  t.notOk(c2[0].message, 'message cleared');
  t.not(c2[0].lastTransitionTime, '2020-01-01T00:00:00Z', 'the status changed: a new transition time');
});

t.test('refusals: already bound, being deleted, gated, absent, bad bodies', async (t) => {
  const { u, create } = await server(t);
  await create(pod('bound'));
  t.equal((await call(u, 'POST', `${PODS}/bound/binding`, binding('bound', 'node-a'))).status, 201);
  const again = await call(u, 'POST', `${PODS}/bound/binding`, binding('bound', 'node-b'));
  t.equal(again.status, 409);
  t.match(again.body, {
    kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409,
    message: 'Operation cannot be fulfilled on pods/binding "bound": pod bound is already assigned to node "node-a"',
    details: { name: 'bound', kind: 'pods/binding' },
  });
  t.equal((await call(u, 'GET', `${PODS}/bound`)).body.spec.nodeName, 'node-a', 'the first binding stays');

  await create(pod('deleting', {}, { finalizers: ['example.orch.io/hold'] }));
  t.equal((await call(u, 'DELETE', `${PODS}/deleting`)).status, 200);
  const del = await call(u, 'POST', `${PODS}/deleting/binding`, binding('deleting', 'node-a'));
  t.equal(del.status, 409);
  t.equal(del.body.message, 'Operation cannot be fulfilled on pods/binding "deleting": pod deleting is being deleted, cannot be assigned to a host');

  await create(pod('gated', { schedulingGates: [{ name: 'example.orch.io/wait' }] }));
  const gated = await call(u, 'POST', `${PODS}/gated/binding`, binding('gated', 'node-a'));
  t.equal(gated.status, 409);
  t.match(gated.body.message, /pod gated has non-empty \.spec\.schedulingGates/);

  const absent = await call(u, 'POST', `${PODS}/nope/binding`, binding('nope', 'node-a'));
  t.equal(absent.status, 404);
  t.match(absent.body, { reason: 'NotFound', message: 'pods "nope" not found', details: { name: 'nope', kind: 'pods' } });

  await create(pod('free'));
  const mismatch = await call(u, 'POST', `${PODS}/free/binding`, binding('other', 'node-a'));
  t.equal(mismatch.status, 400);
  t.match(mismatch.body, { kind: 'Status', reason: 'BadRequest', message: 'name in URL does not match name in Binding object' });

  const noTarget = await call(u, 'POST', `${PODS}/free/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'free' }, target: {} });
  t.equal(noTarget.status, 422);
  t.match(noTarget.body, { reason: 'Invalid', details: { kind: 'Binding', name: 'free', causes: [{ field: 'target.name', reason: 'FieldValueRequired' }] } });
  const podTarget = await call(u, 'POST', `${PODS}/free/binding`, binding('free', 'x', { target: { kind: 'Pod', name: 'x' } }));
  t.equal(podTarget.status, 422);
  t.match(podTarget.body.details.causes, [{ field: 'target.kind', reason: 'FieldValueNotSupported' }]);
  const wrongType = await call(u, 'POST', `${PODS}/free/binding`, { metadata: { name: 'free' }, target: { name: 7 } });
  t.equal(wrongType.status, 422, 'a mistyped field is a field error');
  t.match(wrongType.body.details.causes, [{ field: 'target.name' }]);

  const badJson = await call(u, 'POST', `${PODS}/free/binding`, '{"metadata":', { 'content-type': 'application/json' });
  t.equal(badJson.status, 400);
  t.equal(badJson.body.kind, 'Status');
  const wrongKind = await call(u, 'POST', `${PODS}/free/binding`, { ...binding('free', 'node-a'), kind: 'Pod' });
  t.equal(wrongKind.status, 400);
  t.match(wrongKind.body.message, /kind in the data \(Pod\) does not match the expected kind \(Binding\)/);
  const wrongNs = await call(u, 'POST', `${PODS}/free/binding`, binding('free', 'node-a', { metadata: { name: 'free', namespace: 'kube-system' } }));
  t.equal(wrongNs.status, 400);
  t.match(wrongNs.body.message, /namespace of the provided object does not match/);
  const strict = await call(u, 'POST', `${PODS}/free/binding?fieldValidation=Strict`, { ...binding('free', 'node-a'), bogus: 1 });
  t.equal(strict.status, 400);
  t.match(strict.body.message, /unknown field "bogus"/);
  const warn = await call(u, 'POST', `${PODS}/free/binding?dryRun=All`, { ...binding('free', 'node-a'), bogus: 1 });
  t.equal(warn.status, 201);
  t.match(warn.headers.get('warning'), /unknown field \\?"bogus\\?"/, 'Warn (the default) reports the unknown field');

  const uidPre = await call(u, 'POST', `${PODS}/free/binding`, binding('free', 'node-a', { metadata: { name: 'free', uid: 'not-the-uid' } }));
  t.equal(uidPre.status, 409, 'a uid precondition that does not match');
  t.match(uidPre.body.message, /^Operation cannot be fulfilled on pods "free": Precondition failed: UID in precondition: not-the-uid, UID in object meta: /);
  t.notOk((await call(u, 'GET', `${PODS}/free`)).body.spec.nodeName, 'nothing was bound by the refused requests');
  const rv = (await call(u, 'GET', `${PODS}/free`)).body.metadata.resourceVersion;
  t.equal((await call(u, 'POST', `${PODS}/free/binding`, binding('free', 'node-a', { metadata: { name: 'free', resourceVersion: rv } }))).status, 201, 'a matching resourceVersion precondition');
});

t.test('routing: methods, unknown subresources, the legacy collection', async (t) => {
  const { u, create } = await server(t);
  await create(pod('r'));
  for (const m of ['GET', 'PUT', 'PATCH', 'DELETE']) {
    const r = await call(u, m, `${PODS}/r/binding`, m === 'GET' || m === 'DELETE' ? undefined : {});
    t.equal(r.status, 405, `${m} on binding`);
    t.match(r.body, { kind: 'Status', reason: 'MethodNotAllowed' });
  }
  const unknown = await call(u, 'POST', `${PODS}/r/bindings`, binding('r', 'n'));
  t.equal(unknown.status, 404);
  t.equal(unknown.body.kind, 'Status');
  t.equal((await call(u, 'GET', `/api/v1/watch/namespaces/${NS}/pods/r/binding`)).status, 404, 'no watch form');
  t.equal((await call(u, 'POST', '/api/v1/nodes/n/binding', binding('n', 'x'))).status, 404, 'nodes have no binding');

  const legacy = await call(u, 'POST', `/api/v1/namespaces/${NS}/bindings`, binding('r', 'node-l'));
  t.equal(legacy.status, 201, legacy.text);
  t.same(legacy.body, SUCCESS);
  t.equal((await call(u, 'GET', `${PODS}/r`)).body.spec.nodeName, 'node-l', 'the legacy collection binds the pod the body names');
  const noName = await call(u, 'POST', `/api/v1/namespaces/${NS}/bindings`, { apiVersion: 'v1', kind: 'Binding', metadata: {}, target: { name: 'n' } });
  t.equal(noName.status, 400);
  t.equal(noName.body.message, 'Name parameter required.');
  t.equal((await call(u, 'POST', '/api/v1/bindings', binding('r', 'n'))).status, 405, 'no create across namespaces');
  t.equal((await call(u, 'GET', `/api/v1/namespaces/${NS}/bindings`)).status, 405, 'create only');
});

t.test('two binds at once: one 201, one 409, no lost update', async (t) => {
  const { u, create } = await server(t);
  for (let i = 0; i < 10; i++) {
    const name = `race-${i}`;
    await create(pod(name));
    const [a, b] = await Promise.all([
      call(u, 'POST', `${PODS}/${name}/binding`, binding(name, 'node-a')),
      call(u, 'POST', `${PODS}/${name}/binding`, binding(name, 'node-b')),
    ]);
    t.same([a.status, b.status].sort(), [201, 409], `${name}: ${a.status} ${b.status}`);
    const winner = a.status === 201 ? 'node-a' : 'node-b';
    t.equal((await call(u, 'GET', `${PODS}/${name}`)).body.spec.nodeName, winner, `${name}: the 201 one holds`);
  }
  // A concurrent writer of the pod's status is not lost either.
  await create(pod('mixed'));
  const cur = (await call(u, 'GET', `${PODS}/mixed`)).body;
  const [bind, patch] = await Promise.all([
    call(u, 'POST', `${PODS}/mixed/binding`, binding('mixed', 'node-a')),
    call(u, 'PATCH', `${PODS}/mixed/status`, { status: { conditions: [{ type: 'example.orch.io/Probe', status: 'True' }] } }, { 'content-type': 'application/strategic-merge-patch+json' }),
  ]);
  t.equal(bind.status, 201);
  t.equal(patch.status, 200);
  const after = (await call(u, 'GET', `${PODS}/mixed`)).body;
  t.equal(after.spec.nodeName, 'node-a');
  t.same(after.status.conditions.map((c: any) => c.type).sort(), ['PodScheduled', 'example.orch.io/Probe'], 'both writes are in the pod');
  t.ok(Number(after.metadata.resourceVersion) > Number(cur.metadata.resourceVersion));
});

t.test('dry run: every check, no write', async (t) => {
  const { u, create } = await server(t);
  const created = await create(pod('d'));
  const dry = await call(u, 'POST', `${PODS}/d/binding?dryRun=All`, binding('d', 'node-a'));
  t.equal(dry.status, 201);
  t.same(dry.body, SUCCESS);
  const p = (await call(u, 'GET', `${PODS}/d`)).body;
  t.notOk(p.spec.nodeName, 'not bound');
  t.equal(p.metadata.resourceVersion, created.metadata.resourceVersion, 'nothing written');
  t.equal((await call(u, 'POST', `${PODS}/nope/binding?dryRun=All`, binding('nope', 'node-a'))).status, 404, 'an absent pod is still 404');
  t.equal((await call(u, 'POST', `${PODS}/d/binding`, binding('d', 'node-a'))).status, 201);
  t.equal((await call(u, 'POST', `${PODS}/d/binding?dryRun=All`, binding('d', 'node-b'))).status, 409, 'an already bound pod is still 409');
  const bad = await call(u, 'POST', `${PODS}/d/binding?dryRun=Bogus`, binding('d', 'node-b'));
  t.equal(bad.status, 422);
  t.match(bad.body.message, /CreateOptions.meta.orch.io "" is invalid: dryRun: Unsupported value/);
});

t.test('discovery, OpenAPI and the request attributes RBAC sees', async (t) => {
  const { u } = await server(t);
  const list = (await call(u, 'GET', '/api/v1')).body.resources as any[];
  t.same(list.find((r) => r.name === 'pods/binding'), { name: 'pods/binding', singularName: '', namespaced: true, kind: 'Binding', verbs: ['create'] });
  t.same(list.find((r) => r.name === 'bindings'), { name: 'bindings', singularName: 'binding', namespaced: true, kind: 'Binding', verbs: ['create'] });
  const names = list.map((r) => r.name);
  t.ok(names.indexOf('pods/binding') > names.indexOf('pods') && names.indexOf('pods/binding') < names.indexOf('pods/status'), 'subresources follow their resource, by name');
  const doc = (await call(u, 'GET', '/openapi/v3/api/v1')).body;
  const op = doc.paths['/api/v1/namespaces/{namespace}/pods/{name}/binding']?.post;
  t.equal(op?.operationId, 'createCoreV1NamespacedPodBinding');
  t.same(op?.['x-kubernetes-group-version-kind'], { group: '', kind: 'Binding', version: 'v1' });
  t.ok(doc.components.schemas['io.orch.api.core.v1.Binding'], 'the Binding schema');

  const ri = (m: string, p: string) => {
    const r = requestInfo(m, p);
    return `${r.verb} ${r.apiGroup}/${r.apiVersion} ns=${r.namespace} ${r.resource}${r.subresource ? `/${r.subresource}` : ''} name=${r.name}`;
  };
  t.equal(ri('POST', `${PODS}/p/binding`), 'create /v1 ns=default pods/binding name=p');
  t.equal(ri('POST', `/api/v1/namespaces/${NS}/bindings`), 'create /v1 ns=default bindings name=');
});

t.test('RBAC: pods/binding create is what binding takes', async (t) => {
  const tokens = [
    { token: 'admin-token', user: 'admin', uid: 'u0', groups: ['system:masters'] },
    { token: 'binder-token', user: 'binder', uid: 'u1' },
    { token: 'creator-token', user: 'creator', uid: 'u2' },
  ];
  const ref = await startReference({ controllerManager: false, scheduler: false, auth: { tokens, authorizationMode: 'RBAC' } });
  t.teardown(() => ref.close());
  const as = (token: string) => ({ authorization: `Bearer ${token}` });
  const rbac = `/apis/rbac.authorization.orch.io/v1/namespaces/${NS}`;
  const role = (name: string, resources: string[]) => ({ apiVersion: 'rbac.authorization.orch.io/v1', kind: 'Role', metadata: { name }, rules: [{ apiGroups: [''], resources, verbs: ['create'] }] });
  const bind = (name: string, user: string) => ({
    apiVersion: 'rbac.authorization.orch.io/v1', kind: 'RoleBinding', metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'Role', name }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.orch.io', name: user }],
  });
  for (const [name, resources, user] of [['binder', ['pods/binding'], 'binder'], ['creator', ['pods'], 'creator']] as const) {
    t.equal((await call(ref.url, 'POST', `${rbac}/roles`, role(name, [...resources]), as('admin-token'))).status, 201);
    t.equal((await call(ref.url, 'POST', `${rbac}/rolebindings`, bind(name, user), as('admin-token'))).status, 201);
  }
  t.equal((await call(ref.url, 'POST', PODS, pod('x'), as('admin-token'))).status, 201);
  const denied = await call(ref.url, 'POST', `${PODS}/x/binding`, binding('x', 'n'), as('creator-token'));
  t.equal(denied.status, 403, 'create on pods does not grant pods/binding');
  t.match(denied.body.message, /cannot create resource "pods\/binding"/);
  const allowed = await call(ref.url, 'POST', `${PODS}/x/binding`, binding('x', 'n'), as('binder-token'));
  t.equal(allowed.status, 201, allowed.text);
});
