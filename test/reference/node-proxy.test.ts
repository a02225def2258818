// The node proxy of the reference API server (reference/apiserver/node-proxy.ts, spec 002 §4):
// `/api/v1/nodes/{name}/proxy/...` forwarded to a small HTTPS server standing in for an agent,
// registered as a Node. Requests and answers pass through; the server presents its agent-client
// certificate and no bearer credential, never the client's; unknown nodes, missing addresses,
// unreachable or silent agents and `..` get Status answers, quickly; RBAC on nodes/proxy; the agent's
// certificate checked only with a CA. The stand-ins listen on 127.0.0.1, so these servers opt in to
// loopback node addresses (node-proxy-targets.test.ts: what is refused without it).
import t from 'tap';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createHttpServer, request, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { DEFAULT_AUTH_SETTINGS } from '../../reference/agent/auth/settings.js';
import { startReference, type ReferenceOptions } from '../../reference/server.js';
import { startApiServer } from '../../reference/apiserver/apiserver.js';
import { REFERENCE_RESOURCES } from '../../reference/resources/index.js';
import { MemoryStorage } from '../../reference/storage/memory.js';
import { generateSelfSigned } from '../../reference/tls.js';
import { agentPath } from '../../reference/apiserver/node-proxy.js';
import { startMockCri } from '../../mocks/cri/server.js';
import { startAgent } from '../../reference/agent/agent.js';
import { cmdAgent } from '../../bin/commands/agent.js';
import fc from 'fast-check';
import { propertyRuns } from '../helpers/property.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ADMIN = 'admin-token';
const BOB = 'bob-token';
const AUTH: ReferenceOptions['auth'] = { tokens: [{ token: ADMIN, user: 'admin', groups: ['system:masters'] }, { token: BOB, user: 'bob' }], authorizationMode: 'RBAC' };
/** The stand-ins listen on loopback. */
const LOCAL = { nodeProxyAllowLoopback: true } as const;
const G = 'rbac.authorization.orch.io';

interface Seen { method: string; url: string; headers: IncomingMessage['headers']; body: string; peer?: PeerCertificate }
interface Res { status: number; headers: IncomingMessage['headers']; text: string; body: any }
type Teardown = { teardown(fn: () => unknown): void };

const listening = (s: Server | HttpsServer): Promise<number> =>
  new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));

/** Answers every request with what it saw; `?status=` picks the status code. */
function recorder(seen: Seen[]) {
  return (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString(); });
    req.on('end', () => {
      const socket = req.socket as TLSSocket;
      const peer = typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate() : undefined;
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body, ...(peer && Object.keys(peer).length ? { peer } : {}) });
      const status = Number(new URL(`http://x${req.url!}`).searchParams.get('status') ?? 200);
      res.writeHead(status, { 'content-type': 'application/json', 'x-agent': 'yes', 'x-drop': 'hop', connection: 'close, x-drop' });
      res.end(JSON.stringify({ method: req.method, url: req.url, body }));
    });
  };
}

/** A stand-in agent: HTTPS with a self-signed certificate for 127.0.0.1; it asks for (and records) client certificates. */
async function fakeAgent(t: Teardown) {
  const seen: Seen[] = [];
  const cert = generateSelfSigned('127.0.0.1');
  const server = createHttpsServer({ cert: cert.certPem, key: cert.keyPem, requestCert: true, rejectUnauthorized: false }, recorder(seen));
  const port = await listening(server);
  t.teardown(() => new Promise((r) => server.close(r)));
  return { seen, port, caPem: cert.caPem };
}

/** An HTTP request with the path exactly as given (fetch would resolve `..` and `%2e%2e` itself). */
function raw(base: string, method: string, path: string, opts: { token?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Res> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers['authorization'] = `Bearer ${opts.token}`;
    if (opts.body !== undefined) headers['content-length'] = String(Buffer.byteLength(opts.body));
    const req = request({ host: u.hostname, port: u.port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => { text += c.toString(); });
      res.on('end', () => {
        let body: any;
        try { body = JSON.parse(text); } catch { body = undefined; }
        resolve({ status: res.statusCode!, headers: res.headers, text, body });
      });
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

async function server(t: Teardown, opts: ReferenceOptions = { auth: AUTH }) {
  const ref = await startReference({ ...LOCAL, ...opts });
  t.teardown(() => ref.close());
  const call = (method: string, path: string, o: { token?: string; body?: string; headers?: Record<string, string> } = {}) => raw(ref.url, method, path, { token: ADMIN, ...o });
  const json = (method: string, path: string, body: unknown, token = ADMIN) => raw(ref.url, method, path, { token, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const node = async (name: string, status: Record<string, unknown>) => {
    const r = await json('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name }, status });
    if (r.status !== 201) throw new Error(`node ${name}: ${r.status} ${r.text}`);
  };
  return { ref, call, json, node };
}

const at = (port: number, addresses: Array<{ type: string; address: string }> = [{ type: 'InternalIP', address: '127.0.0.1' }]) => ({ addresses, daemonEndpoints: { agentEndpoint: { Port: port } } });

t.test('requests and answers pass through; the agent sees the server, not the client', async (t) => {
  const agent = await fakeAgent(t);
  const { ref, call, node } = await server(t);
  await node('n1', at(agent.port, [{ type: 'Hostname', address: 'n1.does-not-resolve.invalid' }, { type: 'InternalIP', address: '127.0.0.1' }]));

  const get = await call('GET', '/api/v1/nodes/n1/proxy/stats/summary?a=1&b=x%20y', { headers: { 'x-client': 'hello', 'impersonate-user': 'someone', 'impersonate-group': 'system:masters' } });
  t.equal(get.status, 200, get.text);
  t.equal(get.headers['x-agent'], 'yes', 'the agent\'s headers come back');
  t.notOk(get.headers['x-drop'], 'less those its Connection header lists');
  t.same(get.body, { method: 'GET', url: '/stats/summary?a=1&b=x%20y', body: '' }, 'path and query as sent, at the InternalIP (preferred over the Hostname)');
  const s = agent.seen.at(-1)!;
  t.equal(s.headers['x-client'], 'hello', 'the client\'s own headers go along');
  t.notOk('authorization' in s.headers, 'no Authorization header: neither the client\'s credentials nor a token of the server');
  t.notOk('impersonate-user' in s.headers || 'impersonate-group' in s.headers, 'nor its impersonation headers');
  t.equal(s.headers['host'], `127.0.0.1:${agent.port}`);

  const post = await call('POST', '/api/v1/nodes/n1/proxy/checkpoint/ns/pod/c?status=202', { body: 'payload', headers: { 'content-type': 'text/plain' } });
  t.equal(post.status, 202, 'the agent\'s status code comes back');
  t.same(post.body, { method: 'POST', url: '/checkpoint/ns/pod/c?status=202', body: 'payload' }, 'method and body pass');
  t.equal(agent.seen.at(-1)!.headers['content-type'], 'text/plain');
  for (const method of ['PUT', 'PATCH', 'DELETE']) {
    const r = await call(method, '/api/v1/nodes/n1/proxy/x?status=409', { body: method });
    t.same([r.status, r.body], [409, { method, url: '/x?status=409', body: method }], method);
  }
  const head = await call('HEAD', '/api/v1/nodes/n1/proxy/stats/summary');
  t.same([head.status, head.text, agent.seen.at(-1)!.method], [200, '', 'HEAD'], 'HEAD');
  t.equal((await call('GET', '/api/v1/nodes/n1/proxy')).body.url, '/', 'no path: the agent\'s root');
  t.equal((await call('GET', '/api/v1/nodes/n1/proxy/')).body.url, '/');
  t.equal((await call('GET', '/api/v1/nodes/n1/proxy/a%2Fb')).body.url, '/a%2Fb', 'escapes are kept');

  // The server's identity is a client certificate (a listener cannot replay it), of the agent-client
  // user in the one group the bootstrap role system:agent-api-admin is bound to.
  t.ok(s.peer, 'the server presents a client certificate');
  t.equal(s.peer!.subject.CN, 'orch-apiserver-agent-client');
  t.same([s.peer!.subject.O].flat(), ['system:agent-api-clients'], 'not a superuser: no system:masters');
  const x509 = new X509Certificate(s.peer!.raw);
  t.ok(x509.verify(new X509Certificate(ref.agentClientCaPem!).publicKey), 'signed by the CA agents are given (agentClientCaPem)');
  t.same(x509.keyUsage, ['1.3.6.1.5.5.7.3.2'], 'for client authentication only');
  t.ok(agent.seen.every((x) => !('authorization' in x.headers) && x.peer?.fingerprint256 === s.peer!.fingerprint256), 'the same certificate, and no token, every time');
});

t.test('a server without authentication still presents its agent-client certificate', async (t) => {
  const agent = await fakeAgent(t);
  const { ref, call, node } = await server(t, {});
  await node('n1', at(agent.port));
  t.equal((await call('GET', '/api/v1/nodes/n1/proxy/stats/summary')).status, 200);
  const s = agent.seen.at(-1)!;
  t.notOk('authorization' in s.headers);
  t.equal(s.peer?.subject.CN, 'orch-apiserver-agent-client');
  t.ok(new X509Certificate(s.peer!.raw).verify(new X509Certificate(ref.agentClientCaPem!).publicKey));
});

t.test('Status answers: unknown node, no address, unreachable or silent agent', async (t) => {
  const { call, node } = await server(t);
  const nope = await call('GET', '/api/v1/nodes/nope/proxy/stats/summary');
  t.equal(nope.status, 404);
  t.match(nope.body, { kind: 'Status', reason: 'NotFound', message: 'nodes "nope" not found' });

  await node('bare', { daemonEndpoints: { agentEndpoint: { Port: 10250 } } });
  const bare = await call('GET', '/api/v1/nodes/bare/proxy/stats/summary');
  t.equal(bare.status, 503, bare.text);
  t.match(bare.body, { kind: 'Status', reason: 'ServiceUnavailable', message: 'no preferred addresses found; known addresses: []' });
  await node('dns-only', at(10250, [{ type: 'InternalDNS', address: 'x.example' }]));
  t.match((await call('GET', '/api/v1/nodes/dns-only/proxy/')).body.message, 'no preferred addresses found; known addresses: [{InternalDNS x.example}]');

  // A port nothing listens on: taken and released.
  const probe = createTcpServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const closedPort = (probe.address() as AddressInfo).port;
  await new Promise((r) => probe.close(r));
  await node('gone', at(closedPort));
  const started = Date.now();
  const gone = await call('GET', '/api/v1/nodes/gone/proxy/stats/summary');
  t.equal(gone.status, 503, gone.text);
  t.match(gone.body.message, `error trying to reach the agent at 127.0.0.1:${closedPort}`);
  t.ok(Date.now() - started < 5000, 'at once');
  t.equal((await call('GET', '/healthz')).status, 200, 'the server keeps serving');
});

t.test('an agent that never answers is given up on', async (t) => {
  const sockets = new Set<Socket>();
  const silent = createTcpServer((s) => { sockets.add(s); s.on('error', () => undefined); });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  t.teardown(() => { for (const s of sockets) s.destroy(); silent.close(); });
  const api = await startApiServer({ storage: new MemoryStorage(), strategies: REFERENCE_RESOURCES, agentProxy: { timeoutMs: 300, allowLoopback: true }, log: () => undefined });
  t.teardown(() => api.close());
  const created = await raw(api.url, 'POST', '/api/v1/nodes', {
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'mute' }, status: at((silent.address() as AddressInfo).port) }),
    headers: { 'content-type': 'application/json' },
  });
  t.equal(created.status, 201);
  const started = Date.now();
  const r = await raw(api.url, 'GET', '/api/v1/nodes/mute/proxy/stats/summary');
  t.equal(r.status, 503, r.text);
  t.match(r.body.message, /no response within/);
  t.ok(Date.now() - started < 3000, 'after the timeout, not a hang');
});

t.test('paths never leave the agent\'s path space', async (t) => {
  const agent = await fakeAgent(t);
  const { call, node } = await server(t);
  await node('n1', at(agent.port));
  const before = agent.seen.length;
  for (const p of ['..', 'a/../b', '%2e%2e/etc', '%2E%2E', 'a/..%2f..%2fetc', 'a/..%5c..%5cetc', '..%2F', 'a/../../x']) {
    const r = await call('GET', `/api/v1/nodes/n1/proxy/${p}`);
    t.equal(r.status, 400, `${p}: ${r.text}`);
    t.equal(r.body?.kind, 'Status');
  }
  t.equal((await call('GET', '/api/v1/nodes/n1/proxy/%zz')).status, 400, 'an undecodable escape');
  t.equal(agent.seen.length, before, 'none reached the agent');
  t.equal((await call('GET', '/api/v1/nodes/n1/proxy/a..b/.../c')).body.url, '/a..b/.../c', 'dots within names are fine');
  t.throws(() => agentPath('/x/%2e%2E/y'), { message: /may not contain "\.\." segments/ });
  t.equal(agentPath(''), '/');
});

t.test('property: any path is proxied or refused with 400, and no parent step reaches the agent', async (t) => {
  const agent = await fakeAgent(t);
  const { call, node } = await server(t);
  await node('n1', at(agent.port));
  const segment = fc.constantFrom('..', '.', 'a', 'stats', '%2e%2e', '%2E%2e', '.%2e', '%2f', '..%2f', '%5c..', '%', '%zz', '', '%00', 'é', '%c3%a9', '?', '#');
  await fc.assert(fc.asyncProperty(fc.array(segment, { maxLength: 6 }), async (segs) => {
    const path = segs.join('/').replace(/[?#]/g, encodeURIComponent);
    const before = agent.seen.length;
    const r = await call('GET', `/api/v1/nodes/n1/proxy/${path}`);
    if (r.status !== 200 && r.status !== 400) throw new Error(`${path}: HTTP ${r.status} ${r.text}`);
    if (r.status === 400 && agent.seen.length !== before) throw new Error(`${path}: refused, yet the agent was asked`);
    if (r.status === 200) {
      const url = agent.seen.at(-1)!.url;
      if (decodeURIComponent(url.split('?')[0]!).split(/[/\\]/).includes('..')) throw new Error(`${path}: the agent got ${url}`);
    }
  }), propertyRuns(150));
  t.pass('held');
});

t.test('authorized as verbs on nodes/proxy', async (t) => {
  const agent = await fakeAgent(t);
  const { call, json, node } = await server(t);
  await node('n1', at(agent.port));
  const denied = await call('GET', '/api/v1/nodes/n1/proxy/stats/summary', { token: BOB });
  t.equal(denied.status, 403);
  t.match(denied.body.message, 'User "bob" cannot get resource "nodes/proxy" in API group "" at the cluster scope');
  t.equal((await json('POST', `/apis/${G}/v1/clusterroles`, { apiVersion: `${G}/v1`, kind: 'ClusterRole', metadata: { name: 'node-reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['nodes/proxy'] }] })).status, 201);
  t.equal((await json('POST', `/apis/${G}/v1/clusterrolebindings`, {
    apiVersion: `${G}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'bob-nodes' }, roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'node-reader' }, subjects: [{ kind: 'User', apiGroup: G, name: 'bob' }],
  })).status, 201);
  t.equal((await call('GET', '/api/v1/nodes/n1/proxy/stats/summary', { token: BOB })).status, 200, 'get granted');
  const post = await call('POST', '/api/v1/nodes/n1/proxy/checkpoint/a/b/c', { token: BOB, body: '' });
  t.equal(post.status, 403, 'POST is create, not granted');
  t.match(post.body.message, 'cannot create resource "nodes/proxy"');
});

t.test('the agent\'s certificate is verified only against a configured CA', async (t) => {
  const agent = await fakeAgent(t);
  const good = await server(t, { auth: AUTH, agentCaPem: agent.caPem });
  await good.node('n1', at(agent.port));
  t.equal((await good.call('GET', '/api/v1/nodes/n1/proxy/stats/summary')).status, 200, 'signed by the configured CA');
  const other = await server(t, { auth: AUTH, agentCaPem: generateSelfSigned('127.0.0.1').caPem });
  await other.node('n1', at(agent.port));
  const before = agent.seen.length;
  const r = await other.call('GET', '/api/v1/nodes/n1/proxy/stats/summary?secret=1', { body: 'payload' });
  t.equal(r.status, 503, 'another CA: refused');
  t.match(r.body.message, /error trying to reach the agent.*(self-signed|certificate)/);
  t.equal(agent.seen.length, before, 'a listener with a certificate of another CA receives no request: the TLS handshake failed first');
});

t.test('address types in the configured order; HostName counts as Hostname', async (t) => {
  const agent = await fakeAgent(t);
  const { call, node } = await server(t, { auth: AUTH, agentPreferredAddressTypes: ['Hostname', 'InternalIP'] });
  await node('spelled', at(agent.port, [{ type: 'ExternalIP', address: '192.0.2.1' }, { type: 'HostName', address: '127.0.0.1' }]));
  t.equal((await call('GET', '/api/v1/nodes/spelled/proxy/x')).status, 200, 'the spec\'s HostName spelling');
  await node('external-only', at(agent.port, [{ type: 'ExternalIP', address: '127.0.0.1' }]));
  t.match((await call('GET', '/api/v1/nodes/external-only/proxy/x')).body.message, 'no preferred addresses found', 'ExternalIP not configured here');
});

t.test('name:port addresses another port of the node, without the server\'s credentials', async (t) => {
  const agent = await fakeAgent(t);
  const seen: Seen[] = [];
  const plain = createHttpServer(recorder(seen));
  const port = await listening(plain);
  t.teardown(() => new Promise((r) => plain.close(r)));
  const { call, node } = await server(t);
  await node('n1', at(agent.port));
  const r = await call('GET', `/api/v1/nodes/n1:${port}/proxy/metrics`);
  t.equal(r.status, 200, r.text);
  t.equal(seen.at(-1)!.url, '/metrics');
  t.notOk(seen.at(-1)!.headers['authorization'], 'no credential for other ports');
  t.equal((await call('GET', `/api/v1/nodes/https:n1:${agent.port}/proxy/x`)).status, 200, 'scheme:name:port with the agent\'s own port');
  t.equal((await call('GET', '/api/v1/nodes/ftp:n1:1/proxy/x')).status, 400, 'unknown scheme');
  t.equal((await call('GET', '/api/v1/nodes/n1:99999/proxy/x')).status, 400, 'no such port');
});

t.test('the reference agent with --node-ip 127.0.0.1, reached through the proxy', async (t) => {
  const { ref, call } = await server(t);
  const dir = mkdtempSync(join(tmpdir(), 'node-proxy-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cri = await startMockCri({ socket: join(dir, 'cri', 'cri.sock'), root: join(dir, 'cri-state') });
  t.teardown(() => cri.close());
  // The agent accepts the server's client certificate through authentication.x509.clientCAFile.
  const clientCaFile = join(dir, 'agent-client-ca.crt');
  writeFileSync(clientCaFile, ref.agentClientCaPem!);
  const agent = await startAgent({
    api: { url: ref.url, token: ADMIN }, criEndpoint: cri.criUrl, nodeName: 'real', hostnameOverride: 'real', nodeIP: '127.0.0.1',
    rootDir: join(dir, 'root'), serve: { address: '127.0.0.1', port: 0 }, auth: { ...DEFAULT_AUTH_SETTINGS, clientCaFile }, log: () => undefined,
  });
  t.teardown(() => agent.close());
  const node = (await call('GET', '/api/v1/nodes/real')).body;
  t.same(node.status.addresses.find((a: any) => a.type === 'InternalIP'), { type: 'InternalIP', address: '127.0.0.1' }, 'the InternalIP given');
  t.equal(node.status.daemonEndpoints.agentEndpoint.Port, Number(new URL(agent.url!).port), 'the port it serves on');
  const health = await call('GET', '/api/v1/nodes/real/proxy/healthz');
  t.same([health.status, health.text], [200, 'ok'], health.text);
  const pods = await call('GET', '/api/v1/nodes/real/proxy/pods');
  t.equal(pods.status, 200, `the agent accepts the server's certificate (and authorizes its user with a SubjectAccessReview): ${pods.text.slice(0, 300)}`);
  t.equal(pods.body?.kind, 'PodList');
  await t.rejects(cmdAgent({ rootDir: join(dir, 'other'), nodeIp: 'not-an-ip' }), { message: '--node-ip not-an-ip: not an IP address' });
});
