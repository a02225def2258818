// The review APIs of the reference API server (reference/resources/reviews.ts, auth/reviews.ts):
// TokenReview and SelfSubjectReview, SubjectAccessReview and SelfSubjectAccessReview, decided by the
// server's own authenticator and authorizer; RBAC on creating them; discovery and OpenAPI; a server
// without authentication. The agent-client token is exercised through the node proxy
// (node-proxy.test.ts), the only place it leaves the server.
import t from 'tap';
import { startReference, type ReferenceOptions } from '../../reference/server.js';
import { API_AUDIENCES } from '../../reference/apiserver/auth/reviews.js';

const AUTHN = '/apis/authentication.orch.io/v1';
const AUTHZ = '/apis/authorization.orch.io/v1';
const RBAC = '/apis/rbac.authorization.orch.io/v1';
const ADMIN = 'admin-token';
const ALICE = 'alice-token';
const BOB = 'bob-token';
const TOKENS = [
  { token: ADMIN, user: 'admin', groups: ['system:masters'] },
  { token: ALICE, user: 'alice', uid: 'alice-uid', groups: ['devs'] },
  { token: BOB, user: 'bob' },
];

interface Res { status: number; body: any; text: string }

/** `auth` null: a server without authentication. */
async function start(t: { teardown(fn: () => unknown): void }, auth: ReferenceOptions['auth'] | null = { tokens: TOKENS, authorizationMode: 'RBAC' }) {
  const ref = await startReference({ auth: auth ?? undefined });
  t.teardown(() => ref.close());
  const call = async (method: string, path: string, token?: string, body?: unknown): Promise<Res> => {
    const headers: Record<string, string> = {};
    if (token) headers['authorization'] = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${ref.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let parsed: any;
    try { parsed = JSON.parse(text); } catch { parsed = undefined; }
    return { status: res.status, body: parsed, text };
  };
  return { ref, call };
}

const tokenReview = (token: string, audiences?: string[]) => ({
  apiVersion: 'authentication.orch.io/v1', kind: 'TokenReview', spec: { token, ...(audiences ? { audiences } : {}) },
});
const sar = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({ apiVersion: 'authorization.orch.io/v1', kind: 'SubjectAccessReview', metadata, spec });
const ssar = (spec: Record<string, unknown>) => ({ apiVersion: 'authorization.orch.io/v1', kind: 'SelfSubjectAccessReview', spec });
const podsIn = (ns: string, verb = 'get') => ({ resourceAttributes: { namespace: ns, verb, resource: 'pods' } });

t.test('TokenReview: the server\'s own token table', async (t) => {
  const { call } = await start(t);
  const ok = await call('POST', `${AUTHN}/tokenreviews`, ADMIN, tokenReview(ALICE));
  t.equal(ok.status, 201, ok.text);
  t.equal(ok.body.kind, 'TokenReview');
  t.equal(ok.body.apiVersion, 'authentication.orch.io/v1');
  t.same(ok.body.spec, { token: ALICE }, 'the spec comes back as sent');
  t.same(ok.body.status, {
    authenticated: true,
    user: { username: 'alice', uid: 'alice-uid', groups: ['devs', 'system:authenticated'] },
    audiences: API_AUDIENCES,
  }, 'user, uid, groups (system:authenticated added) and the server\'s audiences');

  const unknown = await call('POST', `${AUTHN}/tokenreviews`, ADMIN, tokenReview('no-such-token'));
  t.equal(unknown.status, 201, 'an unknown token is an answer, not an HTTP error');
  t.equal(unknown.body.status.authenticated, false);
  t.same(unknown.body.status.user, {});
  t.equal(unknown.body.status.error, 'invalid bearer token');

  const empty = await call('POST', `${AUTHN}/tokenreviews`, ADMIN, tokenReview(''));
  t.equal(empty.status, 400, 'no token: upstream\'s BadRequest');
  t.match(empty.body, { kind: 'Status', reason: 'BadRequest', message: 'token is required for TokenReview in authentication' });

  const other = await call('POST', `${AUTHN}/tokenreviews`, ADMIN, tokenReview(ALICE, ['https://elsewhere.example']));
  t.equal(other.body.status.authenticated, false, 'a token is not valid for audiences the server does not serve');
  const mixed = await call('POST', `${AUTHN}/tokenreviews`, ADMIN, tokenReview(ALICE, ['https://elsewhere.example', API_AUDIENCES[0]!]));
  t.equal(mixed.body.status.authenticated, true);
  t.same(mixed.body.status.audiences, API_AUDIENCES, 'the audiences granted: the intersection');

  const forged = await call('POST', `${AUTHN}/tokenreviews`, ADMIN, { ...tokenReview('no-such-token'), status: { authenticated: true, user: { username: 'admin' } } });
  t.equal(forged.body.status.authenticated, false, 'a status sent along is replaced, never believed');

  const dry = await call('POST', `${AUTHN}/tokenreviews?dryRun=All`, ADMIN, tokenReview(ALICE));
  t.equal(dry.status, 201, 'dryRun is harmless');
  t.equal(dry.body.status.authenticated, true);

  t.equal((await call('GET', `${AUTHN}/tokenreviews`, ADMIN)).status, 405, 'create only: no list');
  t.equal((await call('GET', `${AUTHN}/tokenreviews/x`, ADMIN)).status, 405, 'create only: no get');
  t.equal((await call('POST', `${AUTHN}/namespaces/default/tokenreviews`, ADMIN, tokenReview(ALICE))).status, 404, 'cluster-scoped');
});

t.test('SelfSubjectReview: who the requester is', async (t) => {
  const { call } = await start(t);
  const r = await call('POST', `${AUTHN}/selfsubjectreviews`, ALICE, { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' });
  t.equal(r.status, 201, r.text);
  t.same(r.body.status, { userInfo: { username: 'alice', uid: 'alice-uid', groups: ['devs', 'system:authenticated'] } });
  t.match(r.body.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const bob = await call('POST', `${AUTHN}/selfsubjectreviews`, BOB, { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' });
  t.equal(bob.status, 201, 'every authenticated user may ask (system:basic-user)');
  t.equal(bob.body.status.userInfo.username, 'bob');
});

t.test('SubjectAccessReview: decided for the user in the spec', async (t) => {
  const { call } = await start(t);
  const ask = async (spec: Record<string, unknown>) => {
    const r = await call('POST', `${AUTHZ}/subjectaccessreviews`, ADMIN, sar(spec));
    t.equal(r.status, 201, r.text);
    return r.body;
  };
  const before = await ask({ user: 'alice', groups: ['devs'], ...podsIn('team') });
  t.same(before.status, { allowed: false }, 'nothing granted yet: not allowed, and not denied (RBAC has no opinion)');
  t.same(before.spec, { user: 'alice', groups: ['devs'], ...podsIn('team') }, 'the spec comes back as sent');

  const G = 'rbac.authorization.orch.io';
  t.equal((await call('POST', '/api/v1/namespaces', ADMIN, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } })).status, 201);
  t.equal((await call('POST', `${RBAC}/namespaces/team/roles`, ADMIN, { apiVersion: `${G}/v1`, kind: 'Role', metadata: { name: 'reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] })).status, 201);
  t.equal((await call('POST', `${RBAC}/namespaces/team/rolebindings`, ADMIN, {
    apiVersion: `${G}/v1`, kind: 'RoleBinding', metadata: { name: 'devs-read' }, roleRef: { apiGroup: G, kind: 'Role', name: 'reader' }, subjects: [{ kind: 'Group', apiGroup: G, name: 'devs' }],
  })).status, 201);
  t.same((await ask({ user: 'alice', groups: ['devs'], ...podsIn('team') })).status, { allowed: true }, 'granted to the group');
  t.same((await ask({ user: 'alice', ...podsIn('team') })).status, { allowed: false }, 'groups are only what the spec names (none added)');
  t.same((await ask({ user: 'alice', groups: ['devs'], ...podsIn('elsewhere') })).status, { allowed: false }, 'a RoleBinding grants in its namespace only');
  t.same((await ask({ user: 'alice', groups: ['devs'], ...podsIn('team', 'delete') })).status, { allowed: false });
  t.same((await ask({ groups: ['system:masters'], ...podsIn('any', 'delete') })).status, { allowed: true }, 'groups alone; system:masters may do anything');
  t.same((await ask({ user: 'alice', groups: ['system:authenticated'], nonResourceAttributes: { path: '/version', verb: 'get' } })).status, { allowed: true }, 'non-resource: public info');
  t.same((await ask({ user: 'alice', nonResourceAttributes: { path: '/metrics', verb: 'get' } })).status, { allowed: false });
  t.same((await ask({ user: 'alice', groups: ['devs'], resourceAttributes: { namespace: 'team', verb: 'get', resource: 'pods', version: 'v1', name: 'p' } })).status, { allowed: true }, 'version and name given');

  const withReason = await call('POST', `${RBAC}/clusterrolebindings`, ADMIN, {
    apiVersion: `${G}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'dangling' }, roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'missing-role' }, subjects: [{ kind: 'User', apiGroup: G, name: 'carol' }],
  });
  t.equal(withReason.status, 201);
  t.same((await ask({ user: 'carol', ...podsIn('team') })).status, { allowed: false, reason: 'RBAC: clusterrole.rbac.authorization.orch.io "missing-role" not found' }, 'the authorizer\'s reason comes back');
});

t.test('SubjectAccessReview: 422 as upstream', async (t) => {
  const { call } = await start(t);
  const invalid = async (body: unknown, field: string, message: string) => {
    const r = await call('POST', `${AUTHZ}/subjectaccessreviews`, ADMIN, body);
    t.equal(r.status, 422, r.text);
    t.match(r.body, { kind: 'Status', reason: 'Invalid', details: { group: 'authorization.orch.io', kind: 'SubjectAccessReview' } });
    t.ok(r.body.details.causes.some((c: any) => c.field === field && c.message.includes(message)), `${field}: ${message} (${r.body.message})`);
    return r.body;
  };
  const both = await invalid(sar({ user: 'a', ...podsIn('x'), nonResourceAttributes: { path: '/x', verb: 'get' } }), 'spec.nonResourceAttributes', 'cannot be specified in combination with resourceAttributes');
  t.match(both.message, /^SubjectAccessReview\.authorization\.orch\.io "" is invalid: /);
  await invalid(sar({ user: 'a' }), 'spec.resourceAttributes', 'exactly one of nonResourceAttributes or resourceAttributes must be specified');
  await invalid(sar({ ...podsIn('x') }), 'spec.user', 'at least one of user or group must be specified');
  await invalid(sar({ user: '', groups: [], ...podsIn('x') }), 'spec.user', 'at least one of user or group must be specified');
  await invalid(sar({ user: 'a', ...podsIn('x') }, { name: 'named' }), 'metadata', 'must be empty');
  await invalid(sar({ user: 'a', resourceAttributes: 'pods' }), 'spec.resourceAttributes', 'must be of type object');
  const ssarBoth = await call('POST', `${AUTHZ}/selfsubjectaccessreviews`, BOB, ssar({}));
  t.equal(ssarBoth.status, 422, 'SelfSubjectAccessReview: one of the attributes is needed too');
  t.ok(ssarBoth.body.details.causes.some((c: any) => c.field === 'spec.resourceAttributes'));
  t.equal((await call('POST', `${AUTHZ}/subjectaccessreviews`, ADMIN, sar({ user: 'a', ...podsIn('x') }, { creationTimestamp: null, labels: {} }))).status, 201, 'empty metadata fields are fine');
});

t.test('SelfSubjectAccessReview: decided for the requester', async (t) => {
  const { call } = await start(t);
  const bob = async (spec: Record<string, unknown>) => {
    const r = await call('POST', `${AUTHZ}/selfsubjectaccessreviews`, BOB, ssar(spec));
    t.equal(r.status, 201, r.text);
    return r.body.status;
  };
  t.same(await bob(podsIn('default')), { allowed: false });
  t.same(await bob({ resourceAttributes: { verb: 'create', group: 'authorization.orch.io', resource: 'selfsubjectaccessreviews' } }), { allowed: true });
  const admin = await call('POST', `${AUTHZ}/selfsubjectaccessreviews`, ADMIN, ssar(podsIn('default', 'delete')));
  t.same(admin.body.status, { allowed: true });
});

t.test('creating TokenReview and SubjectAccessReview needs RBAC (system:auth-delegator)', async (t) => {
  const { call } = await start(t);
  const tr = await call('POST', `${AUTHN}/tokenreviews`, BOB, tokenReview(ALICE));
  t.equal(tr.status, 403, tr.text);
  t.match(tr.body.message, 'tokenreviews.authentication.orch.io is forbidden: User "bob" cannot create resource "tokenreviews" in API group "authentication.orch.io" at the cluster scope');
  t.equal((await call('POST', `${AUTHZ}/subjectaccessreviews`, BOB, sar({ user: 'a', ...podsIn('x') }))).status, 403);
  t.equal((await call('POST', `${AUTHN}/tokenreviews`, undefined, tokenReview(ALICE))).status, 403, 'anonymous neither');

  const G = 'rbac.authorization.orch.io';
  const bind = await call('POST', `${RBAC}/clusterrolebindings`, ADMIN, {
    apiVersion: `${G}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'bob-delegates' }, roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'system:auth-delegator' }, subjects: [{ kind: 'User', apiGroup: G, name: 'bob' }],
  });
  t.equal(bind.status, 201, bind.text);
  const after = await call('POST', `${AUTHN}/tokenreviews`, BOB, tokenReview(ALICE));
  t.equal(after.status, 201, 'the built-in system:auth-delegator role grants it');
  t.equal(after.body.status.user.username, 'alice');
  t.equal((await call('POST', `${AUTHZ}/subjectaccessreviews`, BOB, sar({ user: 'a', ...podsIn('x') }))).status, 201);
});

t.test('discovery and OpenAPI list the review kinds, create only', async (t) => {
  const { call } = await start(t);
  const groups = (await call('GET', '/apis', ADMIN)).body.groups.map((g: any) => g.name);
  t.ok(groups.includes('authentication.orch.io') && groups.includes('authorization.orch.io'), groups.join(' '));
  const authn = (await call('GET', AUTHN, ADMIN)).body;
  t.same(authn.resources.map((r: any) => [r.name, r.kind, r.namespaced, r.verbs]).sort(), [
    ['selfsubjectreviews', 'SelfSubjectReview', false, ['create']],
    ['tokenreviews', 'TokenReview', false, ['create']],
  ]);
  const authz = (await call('GET', AUTHZ, ADMIN)).body;
  t.same(authz.resources.map((r: any) => [r.name, r.verbs]).sort(), [
    ['selfsubjectaccessreviews', ['create']],
    ['selfsubjectrulesreviews', ['create']],
    ['subjectaccessreviews', ['create']],
  ]);
  const doc = (await call('GET', '/openapi/v3/apis/authentication.orch.io/v1', ADMIN)).body;
  const op = doc.paths[`${AUTHN}/tokenreviews`];
  t.ok(op?.post, 'POST documented');
  t.notOk(op?.get, 'no list documented');
  t.ok(doc.components.schemas['io.orch.api.authentication.v1.TokenReview'], 'the kind\'s schema');
  t.notOk(doc.components.schemas['io.orch.api.authentication.v1.TokenReviewList'], 'no list type: it cannot be listed');
});

t.test('a server without authentication: AlwaysAllow, only the agent-client token is known', async (t) => {
  const { call } = await start(t, null);
  const tr = await call('POST', `${AUTHN}/tokenreviews`, undefined, tokenReview('any-token'));
  t.equal(tr.status, 201, tr.text);
  t.equal(tr.body.status.authenticated, false, 'no token table: no token authenticates');
  const s = await call('POST', `${AUTHZ}/subjectaccessreviews`, undefined, sar({ user: 'nobody', ...podsIn('x', 'delete') }));
  t.same(s.body.status, { allowed: true }, 'AlwaysAllow');
  const who = await call('POST', `${AUTHN}/selfsubjectreviews`, undefined, { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' });
  t.same(who.body.status.userInfo, { username: 'system:anonymous', groups: ['system:unauthenticated'] }, 'nothing is authenticated: anonymous');
});

t.test('SelfSubjectRulesReview: what the requester may do in a namespace', async (t) => {
  const { call } = await start(t);
  const ssrr = (namespace?: string) => ({ apiVersion: 'authorization.orch.io/v1', kind: 'SelfSubjectRulesReview', spec: namespace === undefined ? {} : { namespace } });
  t.equal((await call('POST', '/api/v1/namespaces', ADMIN, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } })).status, 201);
  t.equal((await call('POST', `${RBAC}/namespaces/team/roles`, ADMIN, { apiVersion: 'rbac.authorization.orch.io/v1', kind: 'Role', metadata: { name: 'pod-reader' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }] })).status, 201);
  t.equal((await call('POST', `${RBAC}/namespaces/team/rolebindings`, ADMIN, { apiVersion: 'rbac.authorization.orch.io/v1', kind: 'RoleBinding', metadata: { name: 'alice-reads' }, roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'Role', name: 'pod-reader' }, subjects: [{ kind: 'User', name: 'alice' }] })).status, 201);
  const inTeam = await call('POST', `${AUTHZ}/selfsubjectrulesreviews`, ALICE, ssrr('team'));
  t.equal(inTeam.status, 201, inTeam.text);
  t.equal(inTeam.body.kind, 'SelfSubjectRulesReview');
  t.ok(inTeam.body.status.resourceRules.some((r: any) => r.resources.includes('pods') && r.verbs.includes('list')), 'the RoleBinding\'s rules in its namespace');
  t.ok(inTeam.body.status.resourceRules.some((r: any) => r.resources.includes('selfsubjectrulesreviews')), 'the built-in basic-user rules');
  t.ok(inTeam.body.status.nonResourceRules.some((r: any) => r.nonResourceURLs.includes('/healthz')), 'non-resource rules (public info, discovery)');
  t.equal(inTeam.body.status.incomplete, false);
  const elsewhere = await call('POST', `${AUTHZ}/selfsubjectrulesreviews`, ALICE, ssrr('other'));
  t.notOk(elsewhere.body.status.resourceRules.some((r: any) => r.resources.includes('pods')), 'a RoleBinding grants nothing outside its namespace');
  const admin = await call('POST', `${AUTHZ}/selfsubjectrulesreviews`, ADMIN, ssrr('team'));
  t.same(admin.body.status.resourceRules[0], { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, 'system:masters holds everything');
  // Upstream's privileged-group authorizer resolves no rules: a member's come from the built-in
  // cluster-admin binding only, each once (the reference listed them twice).
  const twice = (rules: unknown[]) => rules.filter((r, i) => rules.slice(0, i).some((o) => JSON.stringify(o) === JSON.stringify(r)));
  t.same(twice(admin.body.status.resourceRules), [], 'no resource rule listed twice');
  t.same(twice(admin.body.status.nonResourceRules), [], 'no non-resource rule listed twice');
  t.equal(admin.body.status.resourceRules.filter((r: any) => r.resources.includes('*')).length, 1, 'everything, once');
  // Upstream answers with a fresh object: the spec (namespace included) is not echoed.
  t.same(admin.body.spec, {}, 'the spec is not echoed, as upstream');
  const none = await call('POST', `${AUTHZ}/selfsubjectrulesreviews`, ALICE, ssrr());
  t.equal(none.status, 400, 'no namespace: upstream\'s BadRequest');
  t.match(none.body, { kind: 'Status', reason: 'BadRequest', message: 'no namespace on request' });
  const open = await start(t, null);
  const all = await open.call('POST', `${AUTHZ}/selfsubjectrulesreviews`, undefined, ssrr('team'));
  t.same(all.body.status, { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false }, 'a server that allows everything says so');
});
