// The agent's delegated authentication and authorization (auth/*.ts, upstream kubelet's auth filter):
// its HTTPS endpoints behind the filter, against a fake control plane that answers TokenReview and
// SubjectAccessReview. Tokens, client certificates, anonymous requests, the review caches and their
// TTLs, the attributes asked about, the answers (401, 403, 500), health left open, standalone mode
// failing closed, and the settings from configuration and flags.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { execaNode } from 'execa';
import { agentHealthChecks, startAgentServer, type AgentServer } from '../../reference/agent/endpoints.js';
import { ApiClient } from '../../reference/client/api-client.js';
import { agentRequestAuth } from '../../reference/agent/auth/request-auth.js';
import { authSettingsOf, AuthSettingsError, DEFAULT_AUTH_SETTINGS, withAuthFlags, type AgentAuthSettings } from '../../reference/agent/auth/settings.js';
import { subresourcesOf, verbOf } from '../../reference/agent/auth/request-attributes.js';
import { bearerToken } from '../../reference/auth-delegation/authenticator.js';
import { FeatureGates } from '../../reference/features.js';
import { generateSelfSigned } from '../../reference/tls.js';
import { generateAgentClientCert } from '../../reference/apiserver/agent-client-cert.js';
import { startMockCri } from '../../mocks/cri/server.js';
import { BIN } from '../helpers/serve.js';
import { httpsRequest, makeClientPki, startFakeReviews, type FakeReviews } from './auth-fixtures.js';

const NODE = 'node-a';
const cert = generateSelfSigned('127.0.0.1');

function settings(over: Partial<AgentAuthSettings> = {}): AgentAuthSettings {
  return { ...structuredClone(DEFAULT_AUTH_SETTINGS), ...over };
}

/** The agent's endpoints behind the filter; `api` undefined: standalone. */
async function serve(t: Test, s: AgentAuthSettings, api: FakeReviews | undefined, opts: { now?: () => number; log?: string[] } = {}): Promise<AgentServer> {
  const client = api ? new ApiClient({ url: api.url }) : undefined;
  const auth = agentRequestAuth({ settings: s, api: client, nodeName: NODE, now: opts.now, log: (m) => opts.log?.push(m) });
  const server = await startAgentServer({
    address: '127.0.0.1', port: 0, cert, checks: agentHealthChecks({ lastRelist: () => Date.now() }).checks, featureGates: new FeatureGates(),
    flags: {}, configz: { agentconfig: { port: 0 } }, pods: () => [], auth,
    routes: [{ path: '/checkpoint/', methods: ['POST'], handle: async (_req, res) => { res.writeHead(200); res.end('checkpointed'); } }],
  });
  t.teardown(async () => { await server.close(); client?.close(); });
  return server;
}

const get = (s: AgentServer, path: string, headers: Record<string, string> = {}, method = 'GET') => httpsRequest(`${s.url}${path}`, { ca: cert.caPem, headers, method });

t.test('attributes: verbs and subresources as upstream derives them', async (t) => {
  t.same(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].map(verbOf), ['get', 'get', 'create', 'update', 'patch', 'delete']);
  t.same(subresourcesOf('/stats/summary'), ['stats']);
  t.same(subresourcesOf('/metrics'), ['metrics']);
  t.same(subresourcesOf('/metrics/cadvisor'), ['metrics']);
  t.same(subresourcesOf('/logs/x'), ['log']);
  t.same(subresourcesOf('/spec'), ['spec']);
  t.same(subresourcesOf('/checkpoint/a/b/c'), ['checkpoint']);
  t.same(subresourcesOf('/pods'), ['pods', 'proxy']);
  t.same(subresourcesOf('/configz'), ['configz', 'proxy']);
  t.same(subresourcesOf('/statsfoo'), ['proxy'], 'a path that only starts like /stats is not under it');
  t.same(subresourcesOf('/flagz'), ['proxy']);
  t.equal(bearerToken('Bearer abc'), 'abc');
  t.equal(bearerToken('bearer abc'), 'abc', 'the scheme is case-insensitive');
  t.equal(bearerToken('Bearer '), undefined, 'an empty token is no credential');
  t.equal(bearerToken('Basic Zm9vOmJhcg=='), undefined, 'another scheme is no bearer credential');
});

t.test('bearer tokens: TokenReview, then SubjectAccessReview for nodes/<subresource> of the node', async (t) => {
  const api = await startFakeReviews();
  t.teardown(() => api.close());
  api.tokens.set('good', { username: 'alice', groups: ['devs'] });
  // No caching here: each request shows the reviewers' current answer (the caches have their own test).
  const s = await serve(t, settings({ webhook: { enabled: true, cacheTtlMs: 0 }, authorization: { mode: 'Webhook', cacheAuthorizedTtlMs: 0, cacheUnauthorizedTtlMs: 0 } }), api);

  const none = await get(s, '/configz');
  t.same([none.status, none.body], [401, 'Unauthorized'], 'no credentials, anonymous off: 401 Unauthorized');
  t.equal(none.headers['www-authenticate'], undefined, 'no WWW-Authenticate, as upstream');
  for (const p of ['/healthz', '/livez', '/readyz', '/healthz/ping', '/readyz?verbose']) t.equal((await get(s, p)).status, 200, `${p} stays open`);
  t.equal(api.tokenReviews.length + api.accessReviews.length, 0, 'nothing asked for requests without credentials');

  const ok = await get(s, '/configz', { authorization: 'Bearer good' });
  t.equal(ok.status, 200, 'a good token on an allowed path: 200');
  t.same(api.tokenReviews[0], { apiVersion: 'authentication.orch.io/v1', kind: 'TokenReview', metadata: {}, spec: { token: 'good' } }, 'the TokenReview sent');
  t.same(api.accessReviews[0].spec, {
    user: 'alice', groups: ['devs', 'system:authenticated'],
    resourceAttributes: { verb: 'get', version: 'v1', resource: 'nodes', subresource: 'configz', name: NODE },
  }, 'the SubjectAccessReview: the user with system:authenticated added, nodes/configz of this node');
  t.equal(api.accessReviews[0].apiVersion, 'authorization.orch.io/v1');

  const bad = await get(s, '/configz', { authorization: 'Bearer nope' });
  t.same([bad.status, bad.body], [401, 'Unauthorized'], 'a rejected token: 401');

  api.decide = (spec) => spec.resourceAttributes.subresource !== 'checkpoint';
  const denied = await get(s, '/checkpoint/ns/p/c', { authorization: 'Bearer good' }, 'POST');
  t.same([denied.status, denied.body], [403, 'Forbidden (user=alice, verb=create, resource=nodes, subresource(s)=[checkpoint])'], 'denied: 403 with upstream\'s message');
  t.equal(denied.headers['content-type'], 'text/plain; charset=utf-8');

  api.decide = (spec) => spec.resourceAttributes.subresource === 'proxy';
  t.equal((await get(s, '/pods', { authorization: 'Bearer good' })).status, 200, '/pods: nodes/proxy allowed is enough (fine-grained pods first)');
  api.decide = () => false;
  const podsDenied = await get(s, '/pods', { authorization: 'Bearer good' });
  t.same([podsDenied.status, podsDenied.body], [403, 'Forbidden (user=alice, verb=get, resource=nodes, subresource(s)=[pods proxy])'], '/pods: both denied');

  api.decide = () => 'error';
  const broken = await get(s, '/metrics', { authorization: 'Bearer good' });
  t.same([broken.status, broken.body], [500, 'Authorization error (user=alice, verb=get, resource=nodes, subresource(s)=[metrics])'], 'the authorizer cannot be asked: 500');

  api.failTokenReviews = true;
  t.equal((await get(s, '/configz', { authorization: 'Bearer other' })).status, 401, 'TokenReview cannot be asked: 401');
  t.equal((await get(s, '/nowhere')).status, 401, 'an unknown path is authenticated first (nothing learnt about which paths exist)');
});

t.test('caches: token answers for cacheTTL (by hash), access answers for the allowed and denied TTLs', async (t) => {
  const api = await startFakeReviews();
  t.teardown(() => api.close());
  api.tokens.set('good', { username: 'alice' });
  let now = 1_000_000;
  const s = await serve(t, settings({
    webhook: { enabled: true, cacheTtlMs: 60_000 },
    authorization: { mode: 'Webhook', cacheAuthorizedTtlMs: 120_000, cacheUnauthorizedTtlMs: 10_000 },
  }), api, { now: () => now });
  const hit = (path: string, token: string) => get(s, path, { authorization: `Bearer ${token}` });

  await hit('/configz', 'good');
  await hit('/configz', 'good');
  t.equal(api.tokenReviews.length, 1, 'the token reviewed once within cacheTTL');
  t.equal(api.accessReviews.length, 1, 'the allowed decision reused');
  await hit('/configz', 'bad');
  await hit('/configz', 'bad');
  t.equal(api.tokenReviews.length, 2, 'a rejection is cached too');

  now += 61_000;
  await hit('/configz', 'good');
  t.equal(api.tokenReviews.length, 3, 'after cacheTTL the token is reviewed again');
  t.equal(api.accessReviews.length, 1, 'the allowed decision lives for cacheAuthorizedTTL');
  now += 60_000;
  await hit('/configz', 'good');
  t.equal(api.accessReviews.length, 2, 'after cacheAuthorizedTTL it is asked again');

  api.decide = () => false;
  t.equal((await hit('/metrics', 'good')).status, 403);
  t.equal((await hit('/metrics', 'good')).status, 403);
  t.equal(api.accessReviews.length, 3, 'a denial is reused within cacheUnauthorizedTTL');
  api.decide = () => true;
  now += 11_000;
  t.equal((await hit('/metrics', 'good')).status, 200, 'after cacheUnauthorizedTTL the new answer counts');

  api.decide = () => 'error';
  t.equal((await hit('/flagz', 'good')).status, 500);
  api.decide = () => true;
  t.equal((await hit('/flagz', 'good')).status, 200, 'a failure to ask is not cached');
});

t.test('anonymous: requests without credentials; a presented bad token still fails', async (t) => {
  const api = await startFakeReviews();
  t.teardown(() => api.close());
  const s = await serve(t, settings({ anonymous: true }), api);
  api.decide = (spec) => spec.user === 'system:anonymous' && spec.resourceAttributes.subresource === 'metrics';
  t.equal((await get(s, '/metrics')).status, 200, 'anonymous allowed where the authorizer allows it');
  t.same(api.accessReviews[0].spec.groups, ['system:unauthenticated'], 'system:anonymous in system:unauthenticated');
  const denied = await get(s, '/configz');
  t.same([denied.status, denied.body], [403, 'Forbidden (user=system:anonymous, verb=get, resource=nodes, subresource(s)=[configz proxy])'], 'anonymous denied: 403');
  t.equal((await get(s, '/metrics', { authorization: 'Bearer wrong' })).status, 401, 'a rejected token is not anonymous (401)');
  t.equal((await get(s, '/metrics', { authorization: 'Basic Zm9vOmJhcg==' })).status, 200, 'another scheme is no credential: anonymous');
});

t.test('AlwaysAllow: no access review', async (t) => {
  const api = await startFakeReviews();
  t.teardown(() => api.close());
  api.tokens.set('good', { username: 'bob' });
  const s = await serve(t, settings({ authorization: { mode: 'AlwaysAllow', cacheAuthorizedTtlMs: 1, cacheUnauthorizedTtlMs: 1 } }), api);
  t.equal((await get(s, '/configz', { authorization: 'Bearer good' })).status, 200);
  t.equal((await get(s, '/configz')).status, 401, 'still authenticated');
  t.equal(api.accessReviews.length, 0);
});

t.test('client certificates verified against the client CA: user = CN, groups = O', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-auth-pki-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const pki = makeClientPki(dir);
  const api = await startFakeReviews();
  t.teardown(() => api.close());
  api.tokens.set('good', { username: 'carol' });
  const s = await serve(t, settings({ clientCaFile: pki.caFile }), api);
  const withCert = (c: { cert: string; key: string }, headers: Record<string, string> = {}) => httpsRequest(`${s.url}/configz`, { ca: cert.caPem, ...c, headers });

  t.equal((await withCert(pki.alice)).status, 200, 'a client certificate of the CA authenticates');
  t.same(api.accessReviews.at(-1).spec.user, 'alice');
  t.same(api.accessReviews.at(-1).spec.groups, ['team-a', 'team-b', 'system:authenticated'], 'its organizations are the groups');
  t.equal(api.tokenReviews.length, 0, 'no token review for a certificate');
  t.equal((await withCert(pki.stranger)).status, 401, 'a certificate of another CA: 401');
  t.equal((await withCert(pki.serverOnly)).status, 401, 'a certificate not for client authentication: 401');
  t.equal((await withCert(pki.stranger, { authorization: 'Bearer good' })).status, 200, 'a good token still authenticates beside a bad certificate (upstream union)');
  t.equal((await get(s, '/configz', { authorization: 'Bearer good' })).status, 200, 'no certificate: the token');
  t.equal((await get(s, '/healthz')).status, 200, 'no certificate needed for health (requested, not required)');
});

t.test('the API server\'s agent-client certificate: its user and group, authorized like any user', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-auth-apiserver-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const client = generateAgentClientCert();
  writeFileSync(join(dir, 'agent-client-ca.crt'), client.caPem);
  const api = await startFakeReviews();
  t.teardown(() => api.close());
  api.decide = (spec) => spec.user === 'orch-apiserver-agent-client' && spec.resourceAttributes.subresource === 'proxy';
  const s = await serve(t, settings({ clientCaFile: join(dir, 'agent-client-ca.crt') }), api);
  const r = await httpsRequest(`${s.url}/pods`, { ca: cert.caPem, cert: client.certPem, key: client.keyPem });
  t.equal(r.status, 200, 'authenticated by the certificate, authorized by a SubjectAccessReview');
  t.same([api.accessReviews.at(-1).spec.user, api.accessReviews.at(-1).spec.groups], ['orch-apiserver-agent-client', ['system:agent-api-clients', 'system:authenticated']]);
  t.equal(api.tokenReviews.length, 0, 'no token involved');
  // A fresh agent (nothing cached) whose reviews deny that user.
  const strict = await startFakeReviews();
  t.teardown(() => strict.close());
  strict.decide = (spec) => spec.user !== 'orch-apiserver-agent-client';
  const s2 = await serve(t, settings({ clientCaFile: join(dir, 'agent-client-ca.crt') }), strict);
  const denied = await httpsRequest(`${s2.url}/pods`, { ca: cert.caPem, cert: client.certPem, key: client.keyPem });
  t.equal(denied.status, 403, 'denied when the review says no, as any user');
});

t.test('standalone: the webhooks cannot be asked, so the agent fails closed and says so once', async (t) => {
  const log: string[] = [];
  const s = await serve(t, settings(), undefined, { log });
  t.equal(log.length, 1, 'one warning at start');
  t.match(log[0], /standalone/);
  t.equal((await get(s, '/configz', { authorization: 'Bearer anything' })).status, 401, 'a token authenticates no one: 401');
  t.equal((await get(s, '/healthz')).status, 200);

  const anon = await serve(t, settings({ anonymous: true }), undefined);
  const r = await get(anon, '/configz');
  t.same([r.status, r.body], [403, 'Forbidden (user=system:anonymous, verb=get, resource=nodes, subresource(s)=[configz proxy])'], 'anonymous, mode Webhook without an API: 403');

  const open = await serve(t, settings({ anonymous: true, webhook: { enabled: false, cacheTtlMs: 0 }, authorization: { mode: 'AlwaysAllow', cacheAuthorizedTtlMs: 0, cacheUnauthorizedTtlMs: 0 } }), undefined, { log });
  t.equal((await get(open, '/configz')).status, 200, 'anonymous and AlwaysAllow: served');
  t.equal(log.length, 1, 'no warning when no webhook is configured');
});

t.test('settings: from the configuration, flags over it key by key, bad values refused', async (t) => {
  t.same(authSettingsOf({ authentication: {}, authorization: {} }), DEFAULT_AUTH_SETTINGS, 'upstream defaults');
  const cfg = {
    authentication: { x509: { clientCAFile: '/ca.pem' }, webhook: { enabled: false, cacheTTL: '10s' }, anonymous: { enabled: true } },
    authorization: { mode: 'AlwaysAllow', webhook: { cacheAuthorizedTTL: '1m0s', cacheUnauthorizedTTL: '5s' } },
  };
  t.same(authSettingsOf(cfg), {
    clientCaFile: '/ca.pem', webhook: { enabled: false, cacheTtlMs: 10_000 }, anonymous: true,
    authorization: { mode: 'AlwaysAllow', cacheAuthorizedTtlMs: 60_000, cacheUnauthorizedTtlMs: 5_000 },
  });
  const flagged = withAuthFlags(cfg, { anonymousAuth: false, authorizationMode: 'Webhook' });
  t.same(flagged.authentication.anonymous, { enabled: false }, '--anonymous-auth=false over the file');
  t.same(flagged.authentication.webhook, { enabled: false, cacheTTL: '10s' }, 'siblings of a flagged key stay');
  t.same(flagged.authorization, { mode: 'Webhook', webhook: { cacheAuthorizedTTL: '1m0s', cacheUnauthorizedTTL: '5s' } });
  t.same(cfg.authorization.mode, 'AlwaysAllow', 'the input is not changed');
  t.throws(() => authSettingsOf({ authentication: {}, authorization: { mode: 'RBAC' } }), AuthSettingsError, 'an unsupported mode');
  t.throws(() => authSettingsOf({ authentication: { webhook: { cacheTTL: 'soon' } }, authorization: {} }), AuthSettingsError, 'a bad TTL');
  t.throws(() => agentRequestAuth({ settings: settings({ clientCaFile: '/no/such/ca.pem' }), nodeName: NODE }), /clientCAFile: cannot read "\/no\/such\/ca.pem": no such file/);
});

t.test('agent CLI: the auth flags win over the file and show in /configz and /flagz; a bad mode is exit 2', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-auth-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cri = await startMockCri({ socket: join(dir, 'cri.sock') });
  t.teardown(() => cri.close());
  const base = ['agent', '--container-runtime-endpoint', cri.criUrl, '--root-dir', join(dir, 'root'), '--node-name', 'n1', '--address', '127.0.0.1', '--port', '0'];
  const bad = await execaNode(BIN, [...base, '--authorization-mode', 'RBAC'], { reject: false });
  t.equal(bad.exitCode, 2, 'an unsupported --authorization-mode: exit 2');
  t.match(bad.stderr, /authorization\.mode: unsupported value "RBAC"/);

  const proc = execaNode(BIN, [...base, '--anonymous-auth', '--authentication-token-webhook=false', '--authorization-mode', 'AlwaysAllow'], { reject: false });
  t.teardown(() => { proc.kill('SIGKILL'); });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (c: Buffer) => { out += c.toString(); if (/^agent: \S+\n/m.test(out)) resolve(); });
    proc.on('exit', (code) => reject(new Error(`agent exited ${code}: ${out}`)));
  });
  const url = /^agent: (\S+)$/m.exec(out)![1]!;
  const cz = await httpsRequest(`${url}/configz`);
  t.equal(cz.status, 200, 'anonymous AlwaysAllow: /configz without credentials');
  const c = JSON.parse(cz.body).agentconfig;
  t.same(c.authentication.anonymous, { enabled: true });
  t.same(c.authentication.webhook, { enabled: false, cacheTTL: '2m0s' }, 'the flag sets enabled; the default TTL stays');
  t.equal(c.authorization.mode, 'AlwaysAllow');
  const fz = await httpsRequest(`${url}/flagz`, { headers: { accept: 'text/plain' } });
  t.match(fz.body, /anonymous-auth=true/);
  t.match(fz.body, /authorization-mode=AlwaysAllow/);
});
