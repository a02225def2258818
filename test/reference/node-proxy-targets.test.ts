// Where the node proxy may connect (reference/apiserver/proxy-target.ts): a Node's address is whatever
// its writer put there, so without checks the proxy reaches the API server's machine (etcd on
// loopback, cloud metadata on link-local) and the API server itself, over and over. Real listeners
// show that refused targets receive nothing, not even a connection; a property over node addresses
// and proxy paths observes every connection attempt (through the proxy's connect hook), against an
// oracle of its own (net.BlockList), with and without the operator's opt-in.
import t from 'tap';
import fc from 'fast-check';
import { lookup } from 'node:dns/promises';
import { request } from 'node:http';
import { BlockList, createServer as createTcpServer, isIP, Socket, type AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { startReference, type ReferenceOptions } from '../../reference/server.js';
import { startApiServer } from '../../reference/apiserver/apiserver.js';
import { REFERENCE_RESOURCES } from '../../reference/resources/index.js';
import { MemoryStorage } from '../../reference/storage/memory.js';
import type { ProxyConnection } from '../../reference/apiserver/node-proxy.js';
import { propertyRuns } from '../helpers/property.js';

interface Res { status: number; text: string; body: any }
type Teardown = { teardown(fn: () => unknown): void };

function call(base: string, method: string, path: string, body?: unknown): Promise<Res> {
  const u = new URL(base);
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method, path, headers: text ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) } : {} }, (res) => {
      let out = '';
      res.on('data', (c: Buffer) => { out += c.toString(); });
      res.on('end', () => {
        let parsed: any;
        try { parsed = JSON.parse(out); } catch { parsed = undefined; }
        resolve({ status: res.statusCode!, text: out, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(text);
  });
}

async function createNode(base: string, name: string, address: { type: string; address: string }, port: number): Promise<void> {
  const r = await call(base, 'POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name }, status: { addresses: [address], daemonEndpoints: { agentEndpoint: { Port: port } } } });
  if (r.status !== 201) throw new Error(`node ${name}: ${r.status} ${r.text}`);
}

/** A TCP listener on 127.0.0.1 that counts connections: what a loopback service sees. */
async function countingListener(t: Teardown): Promise<{ port: number; connections(): number }> {
  let n = 0;
  const server = createTcpServer((s) => { n++; s.destroy(); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise((r) => server.close(r)));
  return { port: (server.address() as AddressInfo).port, connections: () => n };
}

async function reference(t: Teardown, opts: ReferenceOptions): Promise<string> {
  const ref = await startReference({ controllerManager: false, scheduler: false, ...opts });
  t.teardown(() => ref.close());
  return ref.url;
}

const isRefusal = (r: Res) => r.status === 400 && r.body?.kind === 'Status' && r.body?.reason === 'BadRequest' && /^address not allowed: /.test(r.body?.message ?? '');

t.test('without the opt-in: loopback, unspecified and link-local node addresses are refused, and nothing is connected', async (t) => {
  const listener = await countingListener(t);
  const url = await reference(t, {});
  const targets: Array<[string, string, RegExp]> = [
    ['InternalIP', '127.0.0.1', /a loopback address, unless the server is started with --node-proxy-allow-loopback/],
    ['InternalIP', '127.3.2.1', /loopback/],
    ['InternalIP', '::ffff:127.0.0.1', /loopback/],
    ['InternalIP', '::ffff:7f00:1', /loopback/],
    ['InternalIP', '::1', /loopback/],
    ['InternalIP', '0.0.0.0', /unspecified/],
    ['InternalIP', '::', /unspecified/],
    ['InternalIP', '169.254.169.254', /a link-local address, ever/],
    ['InternalIP', 'fe80::1', /link-local/],
    ['InternalIP', '::ffff:169.254.169.254', /link-local/],
    ['Hostname', 'localhost', /localhost \(which resolves to (127\.0\.0\.1|::1)\), a loopback address/],
  ];
  let i = 0;
  for (const [type, address, why] of targets) {
    const name = `n${i++}`;
    await createNode(url, name, { type, address }, listener.port);
    for (const path of [`/api/v1/nodes/${name}/proxy/`, `/api/v1/nodes/http:${name}:${listener.port}/proxy/v3/kv/put`, `/api/v1/nodes/${name}%3A${listener.port}/proxy/`]) {
      const r = await call(url, 'POST', path, { key: 'Zm9v', value: 'YmFy' });
      t.ok(isRefusal(r), `${address} ${path}: 400 BadRequest Status (${r.status} ${r.text})`);
      t.match(r.body?.message, why);
    }
  }
  t.equal(listener.connections(), 0, 'the loopback service saw no connection at all');
});

t.test('the server\'s own address is refused even with the opt-in: no request loops into it', async (t) => {
  const listener = await countingListener(t);
  const url = await reference(t, { nodeProxyAllowLoopback: true });
  const apiPort = Number(new URL(url).port);
  await createNode(url, 'self', { type: 'InternalIP', address: '127.0.0.1' }, apiPort);
  await createNode(url, 'other', { type: 'InternalIP', address: '127.0.0.1' }, listener.port);
  await createNode(url, 'self-by-name', { type: 'Hostname', address: 'localhost' }, apiPort);
  await createNode(url, 'self-unspecified', { type: 'InternalIP', address: '0.0.0.0' }, apiPort);
  // A path that would nest proxy requests into the server itself, were it followed.
  const nested = `/api/v1/nodes/self/proxy${'/api/v1/nodes/self/proxy'.repeat(20)}/healthz`;
  for (const path of [nested, '/api/v1/nodes/self/proxy/healthz', `/api/v1/nodes/other:${apiPort}/proxy/healthz`, `/api/v1/nodes/https:other:${apiPort}/proxy/healthz`, '/api/v1/nodes/self-by-name/proxy/', '/api/v1/nodes/self-unspecified/proxy/']) {
    const r = await call(url, 'GET', path);
    t.ok(isRefusal(r), `${path.slice(0, 60)}: refused (${r.status} ${r.text.slice(0, 200)})`);
    t.match(r.body?.message, /is this API server's own address; the node proxy never proxies to itself/);
  }
  // The opt-in opens loopback, not link-local.
  await createNode(url, 'metadata', { type: 'InternalIP', address: '169.254.169.254' }, 80);
  t.ok(isRefusal(await call(url, 'GET', '/api/v1/nodes/metadata/proxy/latest/meta-data/')), 'link-local stays refused');
  // What the opt-in is for: a loopback service other than the server itself.
  const r = await call(url, 'GET', `/api/v1/nodes/other:${listener.port}/proxy/`);
  t.equal(r.status, 503, `another loopback port is reached (the listener hangs up): ${r.text}`);
  t.equal(listener.connections(), 1, 'one connection, to the listener');
});

/** The oracle: what must never be connected to, written independently of proxy-target.ts. */
function oracle(apiPort: number) {
  const loopback = new BlockList();
  loopback.addSubnet('127.0.0.0', 8, 'ipv4');
  loopback.addSubnet('0.0.0.0', 8, 'ipv4');
  loopback.addAddress('::1', 'ipv6');
  loopback.addAddress('::', 'ipv6');
  const linkLocal = new BlockList();
  linkLocal.addSubnet('169.254.0.0', 16, 'ipv4');
  linkLocal.addSubnet('fe80::', 10, 'ipv6');
  const local = new Set(Object.values(networkInterfaces()).flatMap((l) => (l ?? []).map((a) => a.address)));
  const check = (list: BlockList, ip: string) => list.check(ip.replace(/%.*$/, ''), isIP(ip) === 6 ? 'ipv6' : 'ipv4');
  return {
    /** Why connecting to address:port would break the rule, or undefined. */
    violation(address: string, port: number, allowLoopback: boolean): string | undefined {
      if (!isIP(address)) return 'not an IP address: a second lookup could rebind it';
      if (check(linkLocal, address)) return 'link-local';
      if (check(loopback, address) && !allowLoopback) return 'loopback without the opt-in';
      if (port === apiPort && (check(loopback, address) || local.has(address.replace(/^::ffff:/, '')))) return 'the API server itself';
      return undefined;
    },
  };
}

t.test('property: no connection ever leaves for a loopback, link-local or the server\'s own address without the opt-in', async (t) => {
  // Host names through a stub resolver; "rebind" answers a public address first and loopback after,
  // as a rebinding attacker's DNS would: only the checked answer may be connected to.
  let rebinds = 0;
  const names: Record<string, () => string[]> = {
    'public.test': () => ['203.0.113.7'],
    'public6.test': () => ['2001:db8::7'],
    'local.test': () => ['127.0.0.1'],
    'local6.test': () => ['::1'],
    'mapped.test': () => ['::ffff:127.0.0.1'],
    'metadata.test': () => ['169.254.169.254'],
    'mixed.test': () => ['203.0.113.8', '127.0.0.1'],
    'rebind.test': () => (rebinds++ % 2 === 0 ? ['203.0.113.9'] : ['127.0.0.1']),
  };
  const resolver = async (host: string) => {
    if (names[host]) return names[host]!().map((address) => ({ address }));
    // Numeric spellings (0x7f.1, 2130706433) the system resolves without asking DNS.
    if (/^[0-9a-fx.]+$/i.test(host)) return lookup(host, { all: true });
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  };
  const attempts: ProxyConnection[] = [];
  // Observes the attempt, then fails it: nothing leaves the process.
  const connect = (to: ProxyConnection) => {
    attempts.push(to);
    const s = new Socket();
    setImmediate(() => s.destroy(Object.assign(new Error('connect ECONNREFUSED (stub)'), { code: 'ECONNREFUSED' })));
    return s;
  };
  const servers = await Promise.all([false, true].map(async (allowLoopback) => {
    const api = await startApiServer({ storage: new MemoryStorage(), strategies: REFERENCE_RESOURCES, agentProxy: { allowLoopback, resolver, connect, caPem: 'unused' }, log: () => undefined });
    t.teardown(() => api.close());
    return { api, allowLoopback, port: Number(new URL(api.url).port) };
  }));

  const v4Special = fc.constantFrom('127.0.0.1', '127.255.255.254', '0.0.0.0', '0.1.2.3', '169.254.169.254', '169.254.0.1', '10.0.0.1', '203.0.113.5', '224.0.0.1', '255.255.255.255');
  const v6Special = fc.constantFrom('::1', '::', 'fe80::1', 'fe80::1%lo', 'febf:ffff::1', '2001:db8::1', 'ff02::1', '::127.0.0.1', '0:0:0:0:0:0:0:1');
  const v4 = fc.oneof(fc.ipV4(), v4Special);
  const address = fc.oneof(
    v4.map((a) => ({ type: 'InternalIP', address: a })),
    fc.oneof(fc.ipV6(), v6Special).map((a) => ({ type: 'InternalIP', address: a })),
    v4.map((a) => ({ type: 'InternalIP', address: `::ffff:${a}` })),
    v4.map((a) => {
      // The hex spelling of the mapped form.
      const b = a.split('.').map(Number);
      return { type: 'InternalIP', address: `::ffff:${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}` };
    }),
    fc.constantFrom(...Object.keys(names), 'localhost.invalid').map((a) => ({ type: 'Hostname', address: a })),
    fc.ipV4Extended().filter((a) => isIP(a) === 0).map((a) => ({ type: 'Hostname', address: a })),
  );
  // The agent's published port and the port a path asks for: the server's own one among them.
  const form = fc.constantFrom('plain', 'port', 'http', 'https', 'encoded', 'encoded-scheme');
  let seq = 0;
  await fc.assert(fc.asyncProperty(fc.constantFrom(0, 1), address, fc.nat(3), fc.nat(3), form, async (which, addr, agentPortIndex, askPortIndex, shape) => {
    const s = servers[which]!;
    const ports = [s.port, 10250, 8080, 2379];
    const agentPort = ports[agentPortIndex]!;
    const ask = ports[askPortIndex]!;
    const name = `p${seq++}`;
    await createNode(s.api.url, name, addr, agentPort);
    const id = { plain: name, port: `${name}:${ask}`, http: `http:${name}:${ask}`, https: `https:${name}:${ask}`, encoded: `${name}%3A${ask}`, 'encoded-scheme': `http%3A${name}%3a${ask}` }[shape];
    const before = attempts.length;
    const r = await call(s.api.url, 'GET', `/api/v1/nodes/${id}/proxy/x`);
    const made = attempts.slice(before);
    const o = oracle(s.port);
    for (const a of made) {
      const why = o.violation(a.address, a.port, s.allowLoopback);
      if (why) throw new Error(`${addr.address} via ${id}: connected to ${a.address}:${a.port} (${why}); answer ${r.status} ${r.text}`);
    }
    if (made.length > 1) throw new Error(`${addr.address} via ${id}: ${made.length} connections for one request`);
    // Refused requests connect nowhere; the rest reach a connection attempt (503 from the stub) or fail to resolve.
    if (isRefusal(r) && made.length) throw new Error(`${addr.address}: refused, yet connected`);
    if (!isRefusal(r) && r.status !== 503) throw new Error(`${addr.address} via ${id}: unexpected answer ${r.status} ${r.text}`);
    const targetPort = shape === 'plain' ? agentPort : ask;
    if (r.status === 503 && made.length === 0 && !/ENOTFOUND/.test(r.text)) throw new Error(`${addr.address} via ${id}:${targetPort}: 503 without an attempt: ${r.text}`);
  }), propertyRuns(400));
  t.ok(attempts.length > 50, `connections were attempted where allowed (${attempts.length})`);
  t.ok(attempts.every((a) => isIP(a.address) > 0), 'always to an address, never to a name a second lookup could rebind');
});
