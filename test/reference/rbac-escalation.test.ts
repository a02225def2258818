// RBAC privilege escalation prevention (reference/apiserver/auth/escalation.ts; upstream
// pkg/registry/rbac/*/policybased): roles and bindings grant only what their writer holds, unless he
// may `escalate` or `bind`, or is in system:masters.
import t from 'tap';
import { startReference, type ReferenceOptions } from '../../reference/server.js';
import { breakdownRule, compactString, uncovered } from '../../reference/apiserver/auth/escalation.js';
import { eventually } from './helpers.js';

const G = 'rbac.authorization.orch.io';
const RBAC = `/apis/${G}/v1`;
const CR = `${RBAC}/clusterroles`;
const CRB = `${RBAC}/clusterrolebindings`;
const roles = (ns: string) => `${RBAC}/namespaces/${ns}/roles`;
const rbs = (ns: string) => `${RBAC}/namespaces/${ns}/rolebindings`;
const ADMIN = 'admin-token';
const TOKENS = ['bob', 'carol', 'dave', 'erin', 'frank'].map((u) => ({ token: `${u}-token`, user: u }));
const token = (u: string) => `${u}-token`;
const MERGE = 'application/merge-patch+json';
const APPLY = 'application/apply-patch+yaml';
const GET_PODS = { apiGroups: [''], resources: ['pods'], verbs: ['get'] };
const user = (name: string) => ({ kind: 'User', apiGroup: G, name });
const held = (u: string) => `user "${u}" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:`;

interface Res { status: number; body: any; text: string }

async function start(t: { teardown(fn: () => unknown): void }, opts: Partial<ReferenceOptions> & { rbac?: boolean } = {}) {
  const { rbac = true, ...rest } = opts;
  const auth = { tokens: [{ token: ADMIN, user: 'admin', groups: ['system:masters'] }, ...TOKENS], authorizationMode: rbac ? 'RBAC' as const : 'AlwaysAllow' as const };
  const ref = await startReference({ auth, scheduler: false, controllerManager: false, ...rest });
  t.teardown(() => ref.close());
  const call = async (tok: string, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Res> => {
    const headers: Record<string, string> = { authorization: `Bearer ${tok}` };
    if (body !== undefined) headers['content-type'] = contentType;
    const res = await fetch(`${ref.url}${path}`, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
    const text = await res.text();
    let parsed: any;
    try { parsed = JSON.parse(text); } catch { parsed = undefined; }
    return { status: res.status, body: parsed, text };
  };
  const must = async (path: string, body: unknown) => {
    const r = await call(ADMIN, 'POST', path, body);
    if (r.status !== 201) throw new Error(`creating at ${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  const role = (ns: string | undefined, name: string, rules: unknown[], extra: Record<string, unknown> = {}) =>
    ({ apiVersion: `${G}/v1`, kind: ns ? 'Role' : 'ClusterRole', metadata: { name, ...extra }, rules });
  const binding = (ns: string | undefined, name: string, roleRef: { kind: string; name: string }, subjects: unknown[]) =>
    ({ apiVersion: `${G}/v1`, kind: ns ? 'RoleBinding' : 'ClusterRoleBinding', metadata: { name }, roleRef: { apiGroup: G, ...roleRef }, subjects });
  /** Admin-made grants: a (Cluster)Role and its binding to one user. */
  const grant = async (ns: string | undefined, u: string, name: string, rules: unknown[]) => {
    await must(ns ? roles(ns) : CR, role(ns, name, rules));
    await must(ns ? rbs(ns) : CRB, binding(ns, `${name}-${u}`, { kind: ns ? 'Role' : 'ClusterRole', name }, [user(u)]));
  };
  const ns = (name: string) => must('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return { ref, call, must, role, binding, grant, ns };
}

t.test('Covers: atoms, wildcards, subresources, names, non-resource URLs', async (t) => {
  t.same(breakdownRule({ apiGroups: ['', 'apps'], resources: ['pods'], verbs: ['get', 'list'], resourceNames: ['a'] }).map(compactString), [
    '{APIGroups:[""], Resources:["pods"], ResourceNames:["a"], Verbs:["get"]}',
    '{APIGroups:[""], Resources:["pods"], ResourceNames:["a"], Verbs:["list"]}',
    '{APIGroups:["apps"], Resources:["pods"], ResourceNames:["a"], Verbs:["get"]}',
    '{APIGroups:["apps"], Resources:["pods"], ResourceNames:["a"], Verbs:["list"]}',
  ]);
  t.same(breakdownRule({ nonResourceURLs: ['/a', '/b'], verbs: ['get'] }).map(compactString), ['{NonResourceURLs:["/a"], Verbs:["get"]}', '{NonResourceURLs:["/b"], Verbs:["get"]}']);
  const covered = (owner: object[], servant: object[]) => uncovered(owner, servant).length === 0;
  t.ok(covered([{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }], [{ apiGroups: ['apps'], resources: ['deployments/scale'], verbs: ['patch'], resourceNames: ['x'] }]));
  t.notOk(covered([{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }], [{ apiGroups: [''], resources: ['pods'], verbs: ['*'] }]), 'verb * only by a held *');
  t.notOk(covered([{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }], [{ apiGroups: [''], resources: ['*'], verbs: ['get'] }]), 'resource * only by a held *');
  t.ok(covered([{ apiGroups: [''], resources: ['*/status'], verbs: ['get'] }], [{ apiGroups: [''], resources: ['pods/status'], verbs: ['get'] }]), '*/sub covers x/sub');
  t.notOk(covered([{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }], [{ apiGroups: [''], resources: ['pods/status'], verbs: ['get'] }]), 'x does not cover x/sub');
  t.ok(covered([GET_PODS], [{ ...GET_PODS, resourceNames: ['a'] }]), 'no names covers any name');
  t.notOk(covered([{ ...GET_PODS, resourceNames: ['a'] }], [GET_PODS]), 'names do not cover all');
  t.notOk(covered([{ ...GET_PODS, resourceNames: ['a'] }], [{ ...GET_PODS, resourceNames: ['a', 'b'] }]), 'each name must be held');
  t.ok(covered([{ nonResourceURLs: ['/metrics*'], verbs: ['get'] }], [{ nonResourceURLs: ['/metrics/slis'], verbs: ['get'] }]), 'a URL prefix ending in *');
  t.notOk(covered([{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }], [{ nonResourceURLs: ['/x'], verbs: ['get'] }]), 'resource rules cover no URL');
  t.ok(covered([{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }, { apiGroups: [''], resources: ['pods'], verbs: ['list'] }], [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }]), 'atoms covered by different rules');
});

t.test('ClusterRoleBindings: create alone does not make anyone cluster-admin; bind does', async (t) => {
  const { call, grant, binding } = await start(t);
  await grant(undefined, 'bob', 'crb-writer', [{ apiGroups: [G], resources: ['clusterrolebindings'], verbs: ['create'] }]);
  const body = binding(undefined, 'bob-admin', { kind: 'ClusterRole', name: 'cluster-admin' }, [user('bob')]);
  const refused = await call(token('bob'), 'POST', CRB, body);
  t.equal(refused.status, 403);
  t.same(refused.body, {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
    message: `clusterrolebindings.${G} "bob-admin" is forbidden: ${held('bob')}\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}`,
    details: { name: 'bob-admin', group: G, kind: 'clusterrolebindings' },
  });
  t.equal((await call(ADMIN, 'GET', `${CRB}/bob-admin`)).status, 404, 'nothing stored');
  t.equal((await call(token('bob'), 'POST', `${CRB}?dryRun=All`, body)).status, 403, 'a dry run is checked the same way');
  t.equal((await call(token('bob'), 'GET', '/api/v1/namespaces')).status, 403, 'bob is still nobody');

  const missing = await call(token('bob'), 'POST', CRB, binding(undefined, 'to-nothing', { kind: 'ClusterRole', name: 'nope' }, [user('bob')]));
  t.equal(missing.status, 404, 'a missing ClusterRole fails the check with the lookup error, as upstream');
  t.equal(missing.body.message, `clusterroles.${G} "nope" not found`);

  await grant(undefined, 'bob', 'bind-admin', [{ apiGroups: [G], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['cluster-admin'] }]);
  t.equal((await call(token('bob'), 'POST', CRB, binding(undefined, 'bob-view', { kind: 'ClusterRole', name: 'system:monitoring' }, [user('bob')]))).status, 403, 'bind names only cluster-admin');
  t.equal((await call(token('bob'), 'POST', CRB, body)).status, 201, 'with bind on clusterroles/cluster-admin');
  t.equal((await call(token('bob'), 'GET', '/api/v1/namespaces')).status, 200, 'and now he is cluster-admin');
});

t.test('Roles: only rules held, unless escalate', async (t) => {
  const { call, grant, ns, role } = await start(t);
  await ns('team');
  await grant('team', 'carol', 'role-writer', [{ apiGroups: [G], resources: ['roles'], verbs: ['create', 'update', 'patch'] }, GET_PODS]);

  t.equal((await call(token('carol'), 'POST', roles('team'), role('team', 'getter', [GET_PODS]))).status, 201, 'a rule she holds');
  const wider = role('team', 'deleter', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'delete', 'deletecollection'] }]);
  const refused = await call(token('carol'), 'POST', roles('team'), wider);
  t.equal(refused.status, 403);
  t.equal(refused.body.message, `roles.${G} "deleter" is forbidden: ${held('carol')}\n{APIGroups:[""], Resources:["pods"], Verbs:["delete" "deletecollection"]}`, 'the missing atoms, compacted');
  t.same(refused.body.details, { name: 'deleter', group: G, kind: 'roles' });
  t.equal((await call(token('carol'), 'POST', `${roles('team')}?dryRun=All`, wider)).status, 403, 'dry run');

  // Patches and server-side apply are checked on the object they produce.
  const patched = await call(token('carol'), 'PATCH', `${roles('team')}/getter`, { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'delete'] }] }, MERGE);
  t.equal(patched.status, 403, 'a merge patch adding a rule');
  t.match(patched.body.message, /Verbs:\["delete"\]}$/);
  const applyBody = (name: string, verbs: string[]) => JSON.stringify({ apiVersion: `${G}/v1`, kind: 'Role', metadata: { name }, rules: [{ apiGroups: [''], resources: ['pods'], verbs }] });
  t.equal((await call(token('carol'), 'PATCH', `${roles('team')}/getter?fieldManager=carol&force=true`, applyBody('getter', ['get', 'delete']), APPLY)).status, 403, 'an apply adding a rule');
  t.equal((await call(token('carol'), 'PATCH', `${roles('team')}/applied?fieldManager=carol`, applyBody('applied', ['delete']), APPLY)).status, 403, 'an apply creating a role');
  t.equal((await call(token('carol'), 'PATCH', `${roles('team')}/applied?fieldManager=carol`, applyBody('applied', ['get']), APPLY)).status, 201, 'an apply of held rules');
  t.equal((await call(ADMIN, 'GET', `${roles('team')}/getter`)).body.rules[0].verbs.join(), 'get', 'nothing changed');

  await grant('team', 'carol', 'escalator', [{ apiGroups: [G], resources: ['roles'], verbs: ['escalate'] }]);
  t.equal((await call(token('carol'), 'POST', roles('team'), wider)).status, 201, 'with escalate on roles');
  t.equal((await call(token('carol'), 'PATCH', `${roles('team')}/getter`, { rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] }, MERGE)).status, 200, 'any rule then');
});

t.test('updates touching only ownerReferences and finalizers pass', async (t) => {
  const { call, grant, ns, must, role } = await start(t);
  await ns('team');
  await grant('team', 'carol', 'role-writer', [{ apiGroups: [G], resources: ['roles'], verbs: ['get', 'update', 'patch'] }]);
  await must(roles('team'), role('team', 'wide', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]));
  const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '6b6c3b4c-0000-4000-8000-000000000000' };
  const gc = await call(token('carol'), 'PATCH', `${roles('team')}/wide`, { metadata: { ownerReferences: [owner], finalizers: ['example.orch.io/hold'] } }, MERGE);
  t.equal(gc.status, 200, gc.text);
  t.same(gc.body.metadata.finalizers, ['example.orch.io/hold']);
  const current = (await call(token('carol'), 'GET', `${roles('team')}/wide`)).body;
  t.equal((await call(token('carol'), 'PUT', `${roles('team')}/wide`, { ...current, metadata: { ...current.metadata, finalizers: undefined } })).status, 200, 'a PUT dropping a finalizer');
  const labels = await call(token('carol'), 'PATCH', `${roles('team')}/wide`, { metadata: { labels: { a: 'b' } } }, MERGE);
  t.equal(labels.status, 403, 'any other change needs the rules held');
  t.match(labels.body.message, /\{APIGroups:\["\*"\], Resources:\["\*"\], Verbs:\["\*"\]}$/);
});

t.test('RoleBindings: checked in the binding\'s namespace', async (t) => {
  const { call, grant, ns, must, role, binding } = await start(t);
  await ns('team');
  await ns('other');
  await grant(undefined, 'dave', 'rb-writer', [{ apiGroups: [G], resources: ['rolebindings', 'clusterrolebindings'], verbs: ['create'] }]);
  await must(CR, role(undefined, 'pod-getter', [GET_PODS]));
  await must(rbs('team'), binding('team', 'dave-gets', { kind: 'ClusterRole', name: 'pod-getter' }, [user('dave')]));
  await must(roles('other'), role('other', 'local-getter', [GET_PODS]));

  const toGetter = (n: string) => binding(n, 'frank-gets', { kind: 'ClusterRole', name: 'pod-getter' }, [user('frank')]);
  t.equal((await call(token('dave'), 'POST', rbs('team'), toGetter('team'))).status, 201, 'held through a RoleBinding in that namespace');
  const other = await call(token('dave'), 'POST', rbs('other'), toGetter('other'));
  t.equal(other.status, 403, 'not held in another namespace');
  t.equal(other.body.message, `rolebindings.${G} "frank-gets" is forbidden: ${held('dave')}\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`);
  t.equal((await call(token('dave'), 'POST', rbs('other'), binding('other', 'local', { kind: 'Role', name: 'local-getter' }, [user('frank')]))).status, 403, 'a Role of that namespace likewise');
  const missing = await call(token('dave'), 'POST', rbs('other'), binding('other', 'nothing', { kind: 'Role', name: 'nope' }, [user('frank')]));
  t.equal(missing.status, 404);
  t.equal(missing.body.message, `roles.${G} "nope" not found`);

  await grant('other', 'dave', 'binder', [{ apiGroups: [G], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['pod-getter'] }]);
  t.equal((await call(token('dave'), 'POST', rbs('other'), toGetter('other'))).status, 201, 'bind on the ClusterRole, granted in the binding\'s namespace');
  const everywhere = await call(token('dave'), 'POST', CRB, binding(undefined, 'frank-everywhere', { kind: 'ClusterRole', name: 'pod-getter' }, [user('frank')]));
  t.equal(everywhere.status, 403, 'but not cluster-wide: a ClusterRoleBinding is checked at the cluster scope');
  t.equal(everywhere.body.message, `clusterrolebindings.${G} "frank-everywhere" is forbidden: ${held('dave')}\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`);
});

t.test('aggregationRule needs full authority', async (t) => {
  const { call, grant, binding, must, role } = await start(t);
  await grant(undefined, 'erin', 'cr-writer', [{ apiGroups: [G], resources: ['clusterroles'], verbs: ['create', 'update', 'patch'] }]);
  const agg = (name: string) => ({ ...role(undefined, name, []), aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'x.orch.io/agg': 'true' } }] } });
  const refused = await call(token('erin'), 'POST', CR, agg('agg'));
  t.equal(refused.status, 403);
  t.equal(refused.body.message, `clusterroles.${G} "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule`);

  await must(CR, agg('existing'));
  const removing = await call(token('erin'), 'PATCH', `${CR}/existing`, { aggregationRule: null }, MERGE);
  t.equal(removing.status, 403, 'removing one too');

  await must(CRB, binding(undefined, 'erin-admin', { kind: 'ClusterRole', name: 'cluster-admin' }, [user('erin')]));
  t.equal((await call(token('erin'), 'POST', CR, agg('agg'))).status, 201, 'bound to cluster-admin (not system:masters)');
});

t.test('system:masters and AlwaysAllow servers are unaffected', async (t) => {
  const rbac = await start(t);
  t.equal((await rbac.call(ADMIN, 'POST', CRB, rbac.binding(undefined, 'x', { kind: 'ClusterRole', name: 'cluster-admin' }, [user('bob')]))).status, 201);
  t.equal((await rbac.call(ADMIN, 'POST', CRB, rbac.binding(undefined, 'y', { kind: 'ClusterRole', name: 'nope' }, [user('bob')]))).status, 201, 'even to a role that does not exist');

  const open = await start(t, { rbac: false });
  t.equal((await open.call(token('bob'), 'POST', CRB, open.binding(undefined, 'bob-admin', { kind: 'ClusterRole', name: 'cluster-admin' }, [user('bob')]))).status, 201);
  t.equal((await open.call(token('bob'), 'POST', CR, { ...open.role(undefined, 'agg', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]), aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } })).status, 201);
  const none = await startReference({ scheduler: false, controllerManager: false });
  t.teardown(() => none.close());
  const r = await fetch(`${none.url}${CRB}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(open.binding(undefined, 'z', { kind: 'ClusterRole', name: 'cluster-admin' }, [user('bob')])) });
  t.equal(r.status, 201, 'no authentication at all');
});

t.test('the controller manager aggregates rules it does not hold (escalate on clusterroles)', async (t) => {
  const { call, must, role } = await start(t, { controllerManager: {} });
  await must(CR, role(undefined, 'source', [{ apiGroups: [''], resources: ['secrets'], verbs: ['create'] }], { labels: { 'x.orch.io/agg': 'true' } }));
  await must(CR, { ...role(undefined, 'aggregate', []), aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'x.orch.io/agg': 'true' } }] } });
  const rules = await eventually(async () => {
    const r = (await call(ADMIN, 'GET', `${CR}/aggregate`)).body.rules;
    return r?.length ? r : undefined;
  }, 10_000);
  t.same(rules, [{ apiGroups: [''], resources: ['secrets'], verbs: ['create'] }]);
});
