// Authentication (static tokens, anonymous), impersonation and authorization (AlwaysAllow, RBAC)
// of the reference: reference/apiserver/auth/.
import t from 'tap';
import { startReference, type ReferenceOptions } from '../../reference/server.js';
import { parseTokenCsv } from '../../reference/apiserver/auth/token-file.js';
import { requestInfo } from '../../reference/apiserver/auth/request-info.js';
import { authFromFlags } from '../../reference/apiserver/auth/serve-flags.js';

const G = 'rbac.authorization.orch.io';
const RBAC = `/apis/${G}/v1`;
const SC = '/apis/storage.orch.io/v1/storageclasses';
const quotas = (ns: string) => `/api/v1/namespaces/${ns}/resourcequotas`;
const ADMIN = 'admin-token';
const ALICE = 'alice-token';
const BOB = 'bob-token';
const SA = 'sa-token';

const TOKENS = [
  { token: ADMIN, user: 'admin', groups: ['system:masters'] },
  { token: ALICE, user: 'alice', uid: 'alice-uid', groups: ['devs'] },
  { token: BOB, user: 'bob' },
  { token: SA, user: 'system:serviceaccount:team:builder' },
];

interface Res { status: number; body: any; text: string }

async function startAuth(t: { teardown(fn: () => unknown): void }, auth: ReferenceOptions['auth'] = { tokens: TOKENS, authorizationMode: 'RBAC' }) {
  const ref = await startReference({ auth });
  t.teardown(() => ref.close());
  const call = async (method: string, path: string, opts: { token?: string; headers?: Record<string, string> | Array<[string, string]>; body?: unknown } = {}): Promise<Res> => {
    const headers = new Headers(opts.headers as HeadersInit | undefined);
    if (opts.token) headers.set('authorization', `Bearer ${opts.token}`);
    if (opts.body !== undefined) headers.set('content-type', 'application/json');
    const res = await fetch(`${ref.url}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const text = await res.text();
    let body: any;
    try { body = JSON.parse(text); } catch { body = undefined; }
    return { status: res.status, body, text };
  };
  const admin = (method: string, path: string, body?: unknown) => call(method, path, { token: ADMIN, body });
  const mustCreate = async (path: string, body: any) => {
    const r = await admin('POST', path, body);
    if (r.status !== 201) throw new Error(`creating at ${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  const role = (ns: string | undefined, name: string, rules: unknown[]) =>
    mustCreate(ns ? `${RBAC}/namespaces/${ns}/roles` : `${RBAC}/clusterroles`, { apiVersion: `${G}/v1`, kind: ns ? 'Role' : 'ClusterRole', metadata: { name }, rules });
  const bind = (ns: string | undefined, name: string, roleRef: { kind: string; name: string }, subjects: unknown[]) =>
    mustCreate(ns ? `${RBAC}/namespaces/${ns}/rolebindings` : `${RBAC}/clusterrolebindings`, {
      apiVersion: `${G}/v1`, kind: ns ? 'RoleBinding' : 'ClusterRoleBinding', metadata: { name }, roleRef: { apiGroup: G, ...roleRef }, subjects,
    });
  const ns = (name: string) => mustCreate('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return { ref, call, admin, role, bind, ns };
}

const user = (name: string) => ({ kind: 'User', apiGroup: G, name });

t.test('token file CSV', async (t) => {
  t.same(parseTokenCsv('t1,alice,u1,"a,b"\nt2,bob,u2\n\n t3, carol ,,x,extra\n'), [
    { token: 't1', user: 'alice', uid: 'u1', groups: ['a', 'b'] },
    { token: 't2', user: 'bob', uid: 'u2' },
    { token: ' t3', user: ' carol ', groups: ['x'] },
  ], 'quoted groups, optional group column, fields kept as written (spaces too), further columns ignored');
  // Upstream (encoding/csv without TrimLeadingSpace, then strings.Split) keeps the padding: the
  // padded name is not the privileged group.
  t.same(parseTokenCsv('t,u,1," system:masters "\n')[0]!.groups, [' system:masters ']);
  t.same(parseTokenCsv('t,u,1,"a, b,,c"\n')[0]!.groups, ['a', ' b', 'c'], 'split on commas as written; empty names dropped');
  t.same(parseTokenCsv('t,"multi\r\nline",1\r\n\r\nu,"say ""hi""",2')
    .map((x) => x.user), ['multi\nline', 'say "hi"'], 'CRLF lines, quoted newlines and doubled quotes, no final newline');
  const warnings: string[] = [];
  const warn = (m: string) => { warnings.push(m); };
  t.same(parseTokenCsv('t,a,1\r\n,nobody,2\nt,b,2\r\n', 'f.csv', warn).map((x) => x.user), ['b'], 'a repeated token keeps its last row');
  t.same(warnings, [
    "empty token has been found in token file 'f.csv', record 2 (line 2): row skipped",
    "duplicate token has been found in token file 'f.csv', record 3 (line 3): this later row wins",
  ], 'an empty and a repeated token are warned about, naming the record and line');
  t.throws(() => parseTokenCsv('\uFEFFt,a,1\n'), /line 1 starts with a byte order mark/);
  t.throws(() => parseTokenCsv('t1,a,1\n\nt2,,2\n'), /record 2 \(line 3\) has an empty user name/);
  t.throws(() => parseTokenCsv('t1,alice\n'), /must have at least 3 columns \(token, user name, user uid\), found 2: record 1 \(line 1\)/);
  t.throws(() => parseTokenCsv('t1,"alice,u1\n'), /not valid CSV: line 1: extraneous or missing "/);
  t.throws(() => parseTokenCsv('t0,a,1\nt1,al"ice,u1\n'), /line 2: bare "/);
  t.throws(() => parseTokenCsv('t1,u,1, "g"\n'), /bare "/, 'a space before a quote is not trimmed away (Go: bare quote)');
  t.throws(() => parseTokenCsv('t1,"u"x,1\n'), /extraneous or missing "/);
  t.same(parseTokenCsv(''), []);
  t.same(parseTokenCsv('\n\r\n'), [], 'empty lines are skipped');
});

t.test('serve flags', async (t) => {
  t.equal(authFromFlags({ anonymousAuth: true }), undefined, 'no flag: no auth at all');
  t.same(authFromFlags({ authorizationMode: 'RBAC', anonymousAuth: true }), { tokens: [], authorizationMode: 'RBAC', anonymous: true });
  t.same(authFromFlags({ anonymousAuth: false }), { tokens: [], authorizationMode: 'AlwaysAllow', anonymous: false });
  t.throws(() => authFromFlags({ authorizationMode: 'ABAC' }), /--authorization-mode ABAC: want one of AlwaysAllow, RBAC/);
  t.throws(() => authFromFlags({ tokenAuthFile: '/nonexistent/tokens.csv' }), /--token-auth-file: cannot read token file/);
});

t.test('request attributes from the path (upstream RequestInfo)', async (t) => {
  const ri = (m: string, u: string) => {
    const r = requestInfo(m, u);
    return r.resourceRequest ? `${r.verb} ${r.apiGroup}/${r.apiVersion} ns=${r.namespace} ${r.resource}${r.subresource ? `/${r.subresource}` : ''} name=${r.name}` : `${r.verb} path ${r.path}`;
  };
  t.equal(ri('GET', '/api'), 'get path /api');
  t.equal(ri('GET', '/api/v1'), 'get path /api/v1');
  t.equal(ri('GET', '/apis/storage.orch.io/v1'), 'get path /apis/storage.orch.io/v1');
  t.equal(ri('GET', '/metrics/slis'), 'get path /metrics/slis');
  t.equal(ri('POST', '/healthz'), 'post path /healthz');
  t.equal(ri('GET', `${SC}`), 'list storage.orch.io/v1 ns= storageclasses name=');
  t.equal(ri('GET', `${SC}?watch=true`), 'watch storage.orch.io/v1 ns= storageclasses name=');
  t.equal(ri('GET', `${SC}?watch=false`), 'list storage.orch.io/v1 ns= storageclasses name=');
  t.equal(ri('GET', `${SC}?fieldSelector=metadata.name%3Dfast`), 'list storage.orch.io/v1 ns= storageclasses name=fast');
  t.equal(ri('GET', '/apis/storage.orch.io/v1/watch/storageclasses/fast'), 'watch storage.orch.io/v1 ns= storageclasses name=fast');
  t.equal(ri('HEAD', `${SC}/fast`), 'get storage.orch.io/v1 ns= storageclasses name=fast');
  t.equal(ri('DELETE', `${SC}`), 'deletecollection storage.orch.io/v1 ns= storageclasses name=');
  t.equal(ri('DELETE', `${SC}/fast`), 'delete storage.orch.io/v1 ns= storageclasses name=fast');
  t.equal(ri('PUT', `${quotas('a')}/q/status`), 'update /v1 ns=a resourcequotas/status name=q');
  t.equal(ri('PATCH', `${quotas('a')}/q`), 'patch /v1 ns=a resourcequotas name=q');
  t.equal(ri('POST', quotas('a')), 'create /v1 ns=a resourcequotas name=');
  t.equal(ri('GET', '/api/v1/namespaces/a'), 'get /v1 ns=a namespaces name=a', 'a namespace is in its own scope');
  t.equal(ri('PUT', '/api/v1/namespaces/a/finalize'), 'update /v1 ns=a namespaces/finalize name=a');
  t.equal(ri('GET', '/api/v1/namespaces'), 'list /v1 ns= namespaces name=');
});

t.test('authentication: static tokens, anonymous, invalid tokens', async (t) => {
  const { call } = await startAuth(t, { tokens: TOKENS });
  t.equal((await call('GET', SC, { token: BOB })).status, 200, 'a known token (AlwaysAllow)');
  const bad = await call('GET', SC, { token: 'nope' });
  t.equal(bad.status, 401);
  t.same(bad.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
  t.equal((await call('GET', SC)).status, 200, 'no token: anonymous (on by default), allowed by AlwaysAllow');
  t.equal((await call('GET', SC, { headers: { authorization: 'Basic YTpi' } })).status, 200, 'another scheme is no credential: anonymous');
  t.equal((await call('GET', SC, { headers: { authorization: 'Bearer' } })).status, 200, 'a bare Bearer is no credential');
  t.equal((await call('GET', SC, { headers: { authorization: 'Bearer ' } })).status, 200, 'trimmed to a bare Bearer');
  t.equal((await call('GET', SC, { headers: { authorization: 'Bearer  x' } })).status, 401, 'Bearer with an empty token is invalid');
  t.equal((await call('GET', '/healthz', { token: 'nope' })).status, 401, 'every path is authenticated, debug endpoints too');
  t.equal((await call('GET', '/metrics', { token: 'nope' })).status, 401);

  const closed = await startAuth(t, { tokens: TOKENS, anonymous: false });
  t.equal((await closed.call('GET', SC)).status, 401, 'anonymous off: no token is 401');
  t.equal((await closed.call('GET', '/healthz')).status, 401);
  t.equal((await closed.call('GET', SC, { token: ALICE })).status, 200);
});

t.test('no auth option: everything allowed, tokens ignored', async (t) => {
  const ref = await startReference();
  t.teardown(() => ref.close());
  t.equal((await fetch(`${ref.url}${SC}`, { headers: { authorization: 'Bearer whatever' } })).status, 200);
  t.equal((await fetch(`${ref.url}${SC}`, { headers: { 'impersonate-group': 'g' } })).status, 200, 'impersonation headers mean nothing without auth');
});

t.test('RBAC: superuser, discovery and public info, denial messages', async (t) => {
  const { call } = await startAuth(t);
  t.equal((await call('GET', SC, { token: ADMIN })).status, 200, 'system:masters may list');
  t.equal((await call('DELETE', `${SC}/missing`, { token: ADMIN })).status, 404, 'system:masters may delete (then: not found)');
  t.equal((await call('GET', '/metrics', { token: ADMIN })).status, 200);
  for (const p of ['/api', '/api/v1', '/apis', '/apis/storage.orch.io/v1', '/version', '/healthz', '/livez', '/readyz', '/openapi/v3']) {
    t.equal((await call('GET', p, { token: BOB })).status, 200, `an authenticated user reads ${p} (system:discovery)`);
  }
  for (const p of ['/version', '/healthz', '/livez', '/readyz']) t.equal((await call('GET', p)).status, 200, `anonymous reads ${p} (system:public-info-viewer)`);
  const anonApi = await call('GET', '/api');
  t.equal(anonApi.status, 403, 'anonymous may not read discovery');
  t.equal(anonApi.body.message, 'forbidden: User "system:anonymous" cannot get path "/api"');
  const m = await call('GET', '/metrics', { token: BOB });
  t.equal(m.status, 403, '/metrics needs system:monitoring');
  t.same(m.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'forbidden: User "bob" cannot get path "/metrics"', reason: 'Forbidden', details: {}, code: 403 });
  t.equal((await call('GET', '/readyz/ping', { token: BOB })).status, 403, 'named checks are for monitoring');
  const list = await call('GET', SC, { token: BOB });
  t.equal(list.status, 403);
  t.same(list.body, {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
    message: 'storageclasses.storage.orch.io is forbidden: User "bob" cannot list resource "storageclasses" in API group "storage.orch.io" at the cluster scope',
    details: { group: 'storage.orch.io', kind: 'storageclasses' },
  });
  const get = await call('GET', `${quotas('default')}/q/status`, { token: BOB });
  t.equal(get.body.message, 'resourcequotas "q" is forbidden: User "bob" cannot get resource "resourcequotas/status" in API group "" in the namespace "default"');
  t.same(get.body.details, { name: 'q', kind: 'resourcequotas' });
  t.equal((await call('GET', SC)).body.message, 'storageclasses.storage.orch.io is forbidden: User "system:anonymous" cannot list resource "storageclasses" in API group "storage.orch.io" at the cluster scope', 'anonymous is 403, not 401');
});

t.test('RBAC rule matching: verbs, groups, subresources, resourceNames, nonResourceURLs', async (t) => {
  const { call, role, bind } = await startAuth(t);
  await role(undefined, 'sc-reader', [{ apiGroups: ['storage.orch.io'], resources: ['storageclasses'], verbs: ['get', 'list'], resourceNames: ['fast'] }]);
  await role(undefined, 'quota-status', [{ apiGroups: [''], resources: ['resourcequotas/status'], verbs: ['get'] }, { apiGroups: ['*'], resources: ['*/finalize'], verbs: ['update'] }]);
  await role(undefined, 'monitor', [{ verbs: ['get'], nonResourceURLs: ['/metrics', '/readyz/*'] }]);
  await role(undefined, 'watcher', [{ apiGroups: ['*'], resources: ['storageclasses'], verbs: ['list'] }]);
  await bind(undefined, 'bob-sc', { kind: 'ClusterRole', name: 'sc-reader' }, [user('bob')]);
  await bind(undefined, 'bob-quota', { kind: 'ClusterRole', name: 'quota-status' }, [user('bob')]);
  await bind(undefined, 'devs-monitor', { kind: 'ClusterRole', name: 'monitor' }, [{ kind: 'Group', apiGroup: G, name: 'devs' }]);
  await bind(undefined, 'alice-watch', { kind: 'ClusterRole', name: 'watcher' }, [user('alice')]);

  t.equal((await call('GET', `${SC}/fast`, { token: BOB })).status, 404, 'get of the named resource is allowed (and not found)');
  t.equal((await call('GET', `${SC}/slow`, { token: BOB })).status, 403, 'another name is not');
  t.equal((await call('GET', SC, { token: BOB })).status, 403, 'a list names nothing: resourceNames do not allow it');
  t.equal((await call('GET', `${SC}?fieldSelector=metadata.name%3Dfast`, { token: BOB })).status, 200, 'a list selecting the name is allowed');
  t.equal((await call('DELETE', `${SC}/fast`, { token: BOB })).status, 403, 'delete is not among the verbs');
  t.equal((await call('GET', `${quotas('default')}/q/status`, { token: BOB })).status, 404, 'the status subresource is granted');
  t.equal((await call('GET', `${quotas('default')}/q`, { token: BOB })).status, 403, 'the resource itself is not');
  t.not((await call('PUT', '/api/v1/namespaces/default/finalize', { token: BOB, body: {} })).status, 403, '*/finalize matches namespaces/finalize');
  t.equal((await call('GET', '/metrics', { token: ALICE })).status, 200, 'a group subject; exact non-resource URL');
  t.equal((await call('GET', '/readyz/ping', { token: ALICE })).status, 200, 'non-resource URL prefix with *');
  t.equal((await call('GET', '/metrics/slis', { token: ALICE })).status, 403, 'no prefix match without *');
  t.equal((await call('GET', SC, { token: ALICE })).status, 200, 'apiGroups *');
  t.equal((await call('GET', `${SC}?watch=true&timeoutSeconds=1`, { token: ALICE })).status, 403, 'watch is its own verb');
});

t.test('RBAC namespace scope, service accounts and missing roles', async (t) => {
  const { call, role, bind, ns } = await startAuth(t);
  await ns('a');
  await ns('b');
  await ns('team');
  await role('a', 'quota-reader', [{ apiGroups: [''], resources: ['resourcequotas'], verbs: ['list'] }]);
  await bind('a', 'bob-reads', { kind: 'Role', name: 'quota-reader' }, [user('bob')]);
  t.equal((await call('GET', quotas('a'), { token: BOB })).status, 200, 'granted in its namespace');
  const other = await call('GET', quotas('b'), { token: BOB });
  t.equal(other.status, 403, 'not in another');
  t.equal(other.body.message, 'resourcequotas is forbidden: User "bob" cannot list resource "resourcequotas" in API group "" in the namespace "b"');
  t.equal((await call('GET', '/api/v1/resourcequotas', { token: BOB })).status, 403, 'nor across all namespaces');

  await role(undefined, 'sc-lister', [{ apiGroups: ['', 'storage.orch.io'], resources: ['resourcequotas', 'storageclasses'], verbs: ['list'] }]);
  await bind('b', 'alice-reads', { kind: 'ClusterRole', name: 'sc-lister' }, [user('alice')]);
  t.equal((await call('GET', quotas('b'), { token: ALICE })).status, 200, 'a RoleBinding to a ClusterRole grants in the binding\'s namespace');
  t.equal((await call('GET', quotas('a'), { token: ALICE })).status, 403, 'only there');
  t.equal((await call('GET', SC, { token: ALICE })).status, 403, 'and never cluster-scoped resources');

  await bind('team', 'sa-reads', { kind: 'ClusterRole', name: 'sc-lister' }, [{ kind: 'ServiceAccount', name: 'builder' }]);
  t.equal((await call('GET', quotas('team'), { token: SA })).status, 200, 'a ServiceAccount subject defaults to the binding\'s namespace');
  await bind(undefined, 'sa-everywhere', { kind: 'ClusterRole', name: 'sc-lister' }, [{ kind: 'ServiceAccount', name: 'builder', namespace: 'team' }]);
  t.equal((await call('GET', SC, { token: SA })).status, 200, 'a ClusterRoleBinding grants cluster-wide');
  t.equal((await call('GET', quotas('a'), { token: SA })).status, 200, 'and in every namespace');

  await bind('a', 'dangling', { kind: 'Role', name: 'gone' }, [user('carol')]);
  await bind(undefined, 'dangling', { kind: 'ClusterRole', name: 'gone-too' }, [user('carol')]);
  const carol = await startAuth(t, { tokens: [{ token: 'c', user: 'carol' }], authorizationMode: 'RBAC' });
  t.equal((await carol.call('GET', quotas('a'), { token: 'c' })).status, 403, 'a fresh server knows no bindings');
  // The reason names the roles that could not be found (on the first server, where they are bound).
  const first = await startAuth(t, { tokens: [...TOKENS, { token: 'c', user: 'carol' }], authorizationMode: 'RBAC' });
  await first.ns('a');
  await first.bind('a', 'dangling', { kind: 'Role', name: 'gone' }, [user('carol')]);
  await first.bind(undefined, 'dangling', { kind: 'ClusterRole', name: 'gone-too' }, [user('carol')]);
  const denied = await first.call('GET', quotas('a'), { token: 'c' });
  t.equal(denied.body.message, `resourcequotas is forbidden: User "carol" cannot list resource "resourcequotas" in API group "" in the namespace "a": RBAC: [clusterrole.${G} "gone-too" not found, role.${G} "gone" not found]`);
});

t.test('impersonation', async (t) => {
  const { call, role, bind } = await startAuth(t);
  const as = (token: string, headers: Array<[string, string]>, path = SC) => call('GET', path, { token, headers });
  // The admin may impersonate anyone; the impersonated user has only its own rights.
  const asBob = await as(ADMIN, [['Impersonate-User', 'bob']]);
  t.equal(asBob.status, 403);
  t.match(asBob.body.message, /User "bob" cannot list/);
  t.equal((await as(ADMIN, [['Impersonate-User', 'bob'], ['Impersonate-Group', 'system:masters']])).status, 200, 'impersonated groups count');
  const both = await as(ADMIN, [['Impersonate-User', 'bob'], ['Impersonate-Group', 'a'], ['Impersonate-Group', 'b']], '/api');
  t.equal(both.status, 200, 'explicit groups still get system:authenticated added (a non-anonymous user), so discovery is allowed');
  t.equal((await as(ADMIN, [['Impersonate-User', 'bob'], ['Impersonate-Group', 'system:unauthenticated']], '/api')).status, 403, 'system:unauthenticated keeps system:authenticated away');
  t.equal((await as(ADMIN, [['Impersonate-User', 'bob']], '/api')).status, 200, 'an impersonated user is authenticated (system:discovery)');
  t.equal((await as(ADMIN, [['Impersonate-User', 'system:anonymous']], '/api')).status, 403, 'the anonymous user is not');
  t.equal((await as(ADMIN, [['Impersonate-User', 'system:anonymous']], '/healthz')).status, 200);

  t.equal((await as(BOB, [['Impersonate-User', '']], '/api')).status, 200, 'an empty Impersonate-User asks for nothing');
  const noUser = await as(ADMIN, [['Impersonate-Group', 'system:masters']]);
  t.equal(noUser.status, 400, 'groups without a user');
  t.equal(noUser.body.reason, 'BadRequest');

  const denied = await as(BOB, [['Impersonate-User', 'admin']]);
  t.equal(denied.status, 403, 'bob may not impersonate');
  t.equal(denied.body.message, 'users "admin" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope');
  t.same(denied.body.details, { name: 'admin', kind: 'users' });

  await role(undefined, 'impersonate-carol', [
    { apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['carol'] },
    { apiGroups: [''], resources: ['groups'], verbs: ['impersonate'], resourceNames: ['readers'] },
    { apiGroups: ['authentication.orch.io'], resources: ['uids'], verbs: ['impersonate'], resourceNames: ['c-1'] },
    { apiGroups: ['storage.orch.io'], resources: ['storageclasses'], verbs: ['list'] },
  ]);
  await bind(undefined, 'bob-impersonates', { kind: 'ClusterRole', name: 'impersonate-carol' }, [user('bob')]);
  await role(undefined, 'readers', [{ apiGroups: [''], resources: ['namespaces'], verbs: ['list'] }]);
  await bind(undefined, 'readers', { kind: 'ClusterRole', name: 'readers' }, [{ kind: 'Group', apiGroup: G, name: 'readers' }]);
  t.equal((await as(BOB, [['Impersonate-User', 'carol']])).status, 403, 'as carol, bob\'s own rights are gone');
  t.equal((await as(BOB, [['Impersonate-User', 'carol'], ['Impersonate-Group', 'readers']], '/api/v1/namespaces')).status, 200, 'an allowed group');
  t.equal((await as(BOB, [['Impersonate-User', 'carol'], ['Impersonate-Group', 'system:masters']])).body.message,
    'groups "system:masters" is forbidden: User "bob" cannot impersonate resource "groups" in API group "" at the cluster scope');
  t.equal((await as(BOB, [['Impersonate-User', 'carol'], ['Impersonate-Uid', 'c-1']], '/api')).status, 200, 'an allowed uid');
  t.equal((await as(BOB, [['Impersonate-User', 'carol'], ['Impersonate-Uid', 'c-2']])).body.message,
    'uids.authentication.orch.io "c-2" is forbidden: User "bob" cannot impersonate resource "uids" in API group "authentication.orch.io" at the cluster scope');
  t.equal((await as(BOB, [['Impersonate-User', 'dave']])).status, 403, 'only the named user');
  t.equal((await as(BOB, [['Impersonate-User', 'system:serviceaccount:team:x']])).body.message,
    'serviceaccounts "x" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "team"');
  t.equal((await as(BOB, [['Impersonate-User', 'carol'], ['Impersonate-Extra-Scopes', 'view']])).body.message,
    'userextras.authentication.orch.io "view" is forbidden: User "bob" cannot impersonate resource "userextras/scopes" in API group "authentication.orch.io" at the cluster scope');

  // AlwaysAllow allows impersonation too.
  const open = await startAuth(t, { tokens: TOKENS });
  t.equal((await open.call('GET', SC, { token: BOB, headers: { 'impersonate-user': 'anyone' } })).status, 200);
});
