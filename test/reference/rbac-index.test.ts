// The RBAC authorizer's binding index (reference/apiserver/auth/binding-index.ts): every write to a
// binding or a role counts from the very next request on (no waiting: each request is sent only
// once the write was answered), subjects match as upstream's appliesToUser, and an index whose
// watch ended is rebuilt with what was written meanwhile.
import t from 'tap';
import { startApiServer } from '../../reference/apiserver/apiserver.js';
import { RbacAuthorizer } from '../../reference/apiserver/auth/authorizer.js';
import { requestInfo } from '../../reference/apiserver/auth/request-info.js';
import { plantCorrupt } from '../../reference/debug-plant.js';
import { REFERENCE_RESOURCES } from '../../reference/resources/index.js';
import { MemoryStorage } from '../../reference/storage/memory.js';
import { call } from './helpers.js';

const G = 'rbac.authorization.orch.io';
const RBAC = `/apis/${G}/v1`;
const CR = `${RBAC}/clusterroles`;
const CRB = `${RBAC}/clusterrolebindings`;
const roles = (ns: string) => `${RBAC}/namespaces/${ns}/roles`;
const rbs = (ns: string) => `${RBAC}/namespaces/${ns}/rolebindings`;
const NS = 'team';
const LEASES = '/apis/coordination.orch.io/v1/leases';
const LEASE = `/apis/coordination.orch.io/v1/namespaces/${NS}/leases/l`;
const GET_LEASES = { apiGroups: ['coordination.orch.io'], resources: ['leases'], verbs: ['get', 'list'] };
const SA_USER = `system:serviceaccount:${NS}:builder`;
const TOKENS = [
  { token: 'admin', user: 'admin', groups: ['system:masters'] },
  { token: 'alice', user: 'alice', groups: ['devs'] },
  { token: 'bob', user: 'bob' },
  { token: 'sa', user: SA_USER },
];
const user = (name: string) => ({ kind: 'User', apiGroup: G, name });

async function start(t: { teardown(fn: () => unknown): void }) {
  const storage = new MemoryStorage();
  const api = await startApiServer({
    storage, strategies: REFERENCE_RESOURCES, auth: { tokens: TOKENS, authorizationMode: 'RBAC' },
    log: (m, e) => console.error('unexpected server error:', m, e),
  });
  t.teardown(() => api.close());
  const as = (token: string, method: string, path: string, body?: unknown, contentType?: string) =>
    call(api.url, method, path, body, { authorization: `Bearer ${token}`, ...(contentType ? { 'content-type': contentType } : {}) });
  const admin = async (method: string, path: string, body?: unknown, contentType?: string) => {
    const r = await as('admin', method, path, body, contentType);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  /** The status of `token`'s GET of the Lease (200 allowed, 403 refused). */
  const get = async (token: string, path = LEASE) => (await as(token, 'GET', path)).status;
  const role = (ns: string | undefined, name: string, rules: unknown[]) =>
    admin('POST', ns ? roles(ns) : CR, { apiVersion: `${G}/v1`, kind: ns ? 'Role' : 'ClusterRole', metadata: { name }, rules });
  const bind = (ns: string | undefined, name: string, roleRef: { kind: string; name: string }, subjects: unknown[]) =>
    admin('POST', ns ? rbs(ns) : CRB, { apiVersion: `${G}/v1`, kind: ns ? 'RoleBinding' : 'ClusterRoleBinding', metadata: { name }, roleRef: { apiGroup: G, ...roleRef }, subjects });
  await admin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await admin('POST', `/apis/coordination.orch.io/v1/namespaces/${NS}/leases`, { apiVersion: 'coordination.orch.io/v1', kind: 'Lease', metadata: { name: 'l' }, spec: {} });
  return { api, storage, as, admin, get, role, bind };
}

t.test('a new binding authorizes the very next request', async (t) => {
  const { get, role, bind } = await start(t);
  t.equal(await get('alice'), 403, 'read before anything is bound: the index is built');
  await role(NS, 'lease-reader', [GET_LEASES]);
  await bind(NS, 'alice-reads', { kind: 'Role', name: 'lease-reader' }, [user('alice')]);
  t.equal(await get('alice'), 200, 'a RoleBinding naming the user');
  t.equal(await get('alice', LEASES), 403, 'a RoleBinding grants in its namespace only');

  await role(undefined, 'all-leases', [GET_LEASES]);
  await bind(undefined, 'devs-read', { kind: 'ClusterRole', name: 'all-leases' }, [{ kind: 'Group', apiGroup: G, name: 'devs' }]);
  t.equal(await get('alice', LEASES), 200, 'a ClusterRoleBinding naming a group of the user');
  t.equal(await get('bob', LEASES), 403, 'not another user');

  t.equal(await get('sa'), 403);
  await bind(NS, 'builder-reads', { kind: 'Role', name: 'lease-reader' }, [{ kind: 'ServiceAccount', name: 'builder' }]);
  t.equal(await get('sa'), 200, 'a service account subject, in the binding\'s namespace by default');
});

t.test('a deleted binding revokes on the very next request', async (t) => {
  const { admin, get, role, bind } = await start(t);
  await role(undefined, 'all-leases', [GET_LEASES]);
  await bind(undefined, 'alice-all', { kind: 'ClusterRole', name: 'all-leases' }, [user('alice')]);
  await bind(NS, 'alice-here', { kind: 'ClusterRole', name: 'all-leases' }, [user('alice')]);
  t.equal(await get('alice'), 200);
  await admin('DELETE', `${CRB}/alice-all`);
  t.equal(await get('alice', LEASES), 403, 'the ClusterRoleBinding is gone');
  t.equal(await get('alice'), 200, 'the RoleBinding still grants in its namespace');
  await admin('DELETE', `${rbs(NS)}/alice-here`);
  t.equal(await get('alice'), 403, 'and once it is gone too, nothing does');
});

t.test('a changed ClusterRole or Role counts on the very next request', async (t) => {
  const { admin, get, role, bind } = await start(t);
  await role(undefined, 'reader', [GET_LEASES]);
  await bind(undefined, 'alice-reads', { kind: 'ClusterRole', name: 'reader' }, [user('alice')]);
  t.equal(await get('alice'), 200);
  const merge = 'application/merge-patch+json';
  await admin('PATCH', `${CR}/reader`, { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }, merge);
  t.equal(await get('alice'), 403, 'the rule is gone from the ClusterRole');
  await admin('PATCH', `${CR}/reader`, { rules: [GET_LEASES] }, merge);
  t.equal(await get('alice'), 200, 'and back');

  await role(NS, 'local', []);
  await bind(NS, 'bob-local', { kind: 'Role', name: 'local' }, [user('bob')]);
  t.equal(await get('bob'), 403, 'a Role without rules');
  await admin('PATCH', `${roles(NS)}/local`, { rules: [GET_LEASES] }, merge);
  t.equal(await get('bob'), 200, 'the Role gained the rule');
});

t.test('a changed RoleBinding subject counts on the very next request', async (t) => {
  const { admin, get, role, bind } = await start(t);
  await role(NS, 'lease-reader', [GET_LEASES]);
  await bind(NS, 'reader', { kind: 'Role', name: 'lease-reader' }, [user('alice')]);
  t.equal(await get('alice'), 200);
  t.equal(await get('bob'), 403);
  await admin('PATCH', `${rbs(NS)}/reader`, { subjects: [user('bob')] }, 'application/merge-patch+json');
  t.equal(await get('alice'), 403, 'the old subject lost it');
  t.equal(await get('bob'), 200, 'the new subject has it');
  const b = await admin('GET', `${rbs(NS)}/reader`);
  await admin('PUT', `${rbs(NS)}/reader`, { ...b, subjects: [user('bob'), { kind: 'Group', apiGroup: G, name: 'devs' }] });
  t.equal(await get('alice'), 200, 'an update adding a group of the user');
});

t.test('subjects match as upstream appliesToUser', async (t) => {
  const { api, role, bind } = await start(t);
  const authz = new RbacAuthorizer(api.registry);
  const may = async (name: string, groups: string[], path = LEASE) => (await authz.authorize({ ...requestInfo('GET', path), user: { name, groups } })).allowed;
  await role(undefined, 'all-leases', [GET_LEASES]);
  await bind(undefined, 'sa-elsewhere', { kind: 'ClusterRole', name: 'all-leases' }, [{ kind: 'ServiceAccount', namespace: 'ci', name: 'runner' }]);
  await bind(NS, 'sa-explicit', { kind: 'ClusterRole', name: 'all-leases' }, [{ kind: 'ServiceAccount', namespace: 'other', name: 'deployer' }]);
  t.ok(await may('system:serviceaccount:ci:runner', [], LEASES), 'a ClusterRoleBinding names a service account by its namespace');
  t.ok(await may('system:serviceaccount:other:deployer', []), 'a RoleBinding may name another namespace\'s service account');
  t.notOk(await may('system:serviceaccount:team:deployer', []), 'and then not the one of its own namespace');
  t.notOk(await may('runner', ['ci']), 'a user or group of the same name is not the service account');
  await bind(undefined, 'user-named-like-a-group', { kind: 'ClusterRole', name: 'all-leases' }, [user('ops')]);
  t.notOk(await may('x', ['ops'], LEASES), 'a User subject does not name a group');
  t.ok(await may('ops', [], LEASES));
});

t.test('bindings are walked in storage (name) order, each once however many of its subjects name the user', async (t) => {
  const { api, bind } = await start(t);
  const authz = new RbacAuthorizer(api.registry);
  const devs = { kind: 'Group', apiGroup: G, name: 'devs' };
  await bind(undefined, 'z-both', { kind: 'ClusterRole', name: 'gone-z' }, [user('alice'), devs]);
  await bind(undefined, 'a-group', { kind: 'ClusterRole', name: 'gone-a' }, [devs]);
  await bind(NS, 'm-user', { kind: 'Role', name: 'gone-m' }, [user('alice')]);
  const d = await authz.authorize({ ...requestInfo('GET', LEASE), user: { name: 'alice', groups: ['devs'] } });
  t.equal(d.reason, `RBAC: [clusterrole.${G} "gone-a" not found, clusterrole.${G} "gone-z" not found, role.${G} "gone-m" not found]`);
});

t.test('an index whose watch ended is rebuilt with what was written meanwhile', async (t) => {
  const { api, storage, as, get, role, bind } = await start(t);
  await role(NS, 'lease-reader', [GET_LEASES]);
  await bind(NS, 'alice-reads', { kind: 'Role', name: 'lease-reader' }, [user('alice')]);
  t.equal(await get('alice'), 200, 'the index is built and watched');
  // An undecodable binding ends the watch (an ERROR event). Only system:masters acts until it is gone.
  await plantCorrupt(api.registry, storage, `${rbs(NS)}/broken`);
  await bind(NS, 'bob-reads', { kind: 'Role', name: 'lease-reader' }, [user('bob')]);
  t.equal((await as('admin', 'DELETE', `${rbs(NS)}/broken?ignoreStoreReadErrorWithClusterBreakingPotential=true`)).status, 200);
  t.equal(await get('bob'), 200, 'the binding written while nothing watched counts');
  t.equal(await get('alice'), 200);
});
