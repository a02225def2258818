// pods/exec, pods/attach and pods/portforward through the reference API server (pod-streaming.ts): real
// protocol clients against the API's URL, the server forwarding to the reference agent with its
// agent-client certificate, the agent to the mock CRI's streaming server. SPDY and WebSocket, the
// WebSocket tunnel of SPDY for port forwarding (kubectl 1.30+), authorization as upstream (the method's
// verb, and `create` for a WebSocket upgrade too), upstream's 400s, and the bounds (idle timeout,
// either side closing, shutdown).
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Duplex } from 'node:stream';
import t from 'tap';
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { SpdyConnection } from '../../mocks/cri/streaming/spdy.js';
import { until } from '../agent/helpers.js';
import { collect, spdyCommand, spdyConnect, startStreamingNode, wsCommand, wsConnect, type CommandResult, type Refusal } from '../helpers/streaming-clients.js';

const ADMIN = 'pod-streaming-admin';
const GETTER = 'pod-streaming-getter';
const CREATOR = 'pod-streaming-creator';
const IDLE_MS = 2000;

const done = (r: CommandResult | Refusal): CommandResult => {
  if ('refused' in r) throw new Error(`refused ${r.status}: ${r.body}`);
  return r;
};

t.test('exec, attach and port forwarding through the API server', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pod-streaming-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { ref, cri, api } = await startStreamingNode(t, dir, [
    { token: ADMIN, user: 'admin', groups: ['system:masters'] },
    { token: GETTER, user: 'getter', groups: [] },
    { token: CREATOR, user: 'creator', groups: [] },
  ], { throughApi: true, streaming: { idleTimeoutMs: IDLE_MS } });
  const as = (token: string, path: string) => ({ url: `${ref.url}${path}`, headers: { Authorization: `Bearer ${token}` } });
  const base = '/api/v1/namespaces/default/pods';

  // getter: `get` on the streaming subresources only; creator: `create` only.
  for (const [who, verb] of [['getter', 'get'], ['creator', 'create']] as const) {
    await api.create('/apis/rbac.authorization.orch.io/v1/namespaces/default/roles', {
      apiVersion: 'rbac.authorization.orch.io/v1', kind: 'Role', metadata: { name: who, namespace: 'default' },
      rules: [{ apiGroups: [''], resources: ['pods/exec', 'pods/attach', 'pods/portforward'], verbs: [verb] }],
    });
    await api.create('/apis/rbac.authorization.orch.io/v1/namespaces/default/rolebindings', {
      apiVersion: 'rbac.authorization.orch.io/v1', kind: 'RoleBinding', metadata: { name: who, namespace: 'default' },
      roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'Role', name: who }, subjects: [{ kind: 'User', name: who, apiGroup: 'rbac.authorization.orch.io' }],
    });
  }
  await api.create(base, {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' },
    spec: {
      nodeName: 'n1', terminationGracePeriodSeconds: 1,
      containers: [
        { name: 'c', image: 'busybox:1.36', command: ['nc', '-l', '-p', '8080'] },
        { name: 'shell', image: 'busybox:1.36', command: ['sh'], stdin: true },
      ],
    },
  });
  await api.create(base, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'unbound', namespace: 'default' }, spec: { schedulingGates: [{ name: 'held' }], containers: [{ name: 'c', image: 'busybox:1.36' }] } });
  await until('pod web running', async () => {
    const p = await api.get(`${base}/web`);
    return p.status?.phase === 'Running' && p.status.containerStatuses?.every((s: any) => s.state?.running) ? p : undefined;
  }, 20_000);

  t.test('exec over WebSocket v5 and SPDY v4: the API options become the agent\'s', async (t) => {
    const ws = done(await wsCommand(as(ADMIN, `${base}/web/exec?container=c&command=sh&command=-c&command=echo%20hi%3B%20exit%202&stdout=true&stderr=true`), 'v5.channel.k8s.io'));
    t.equal(ws.protocol, 'v5.channel.k8s.io');
    t.equal(ws.stdout, 'hi\n');
    t.match(JSON.parse(ws.error), { status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '2' }] } });
    t.match(cri.control.calls.list({ rpc: 'Exec' }).at(-1)!.request, { cmd: ['sh', '-c', 'echo hi; exit 2'], tty: false, stdin: false, stdout: true, stderr: true });

    const spdy = done(await spdyCommand(as(ADMIN, `${base}/web/exec?container=c&command=cat&stdin=true&stdout=true`), ['v4.channel.k8s.io'], { stdin: ['through the API\n'], closeStdin: true }));
    t.equal(spdy.protocol, 'v4.channel.k8s.io');
    t.equal(spdy.stdout, 'through the API\n');
    t.same(JSON.parse(spdy.error), { metadata: {}, status: 'Success' });

    const tty = done(await wsCommand(as(ADMIN, `${base}/web/exec?container=c&command=echo&command=x&stdout=1&tty=true`), 'v5.channel.k8s.io'));
    t.equal(tty.stdout, 'x\r\n', 'tty=true reached the agent as tty=1');
  });

  t.test('attach: stdin to the container, its output back', async (t) => {
    const s = await wsConnect(as(ADMIN, `${base}/web/attach?container=shell&stdin=true&stdout=true&stderr=true`), ['v5.channel.k8s.io']);
    if ('refused' in s) throw new Error(`refused ${s.status}: ${s.body}`);
    s.send(0, 'echo attached through the API\n');
    const stdout = () => Buffer.concat(s.messages.filter((x) => x.ch === 1).map((x) => x.data)).toString();
    await s.until(() => stdout().includes('attached through the API\n'), 'the echo');
    t.pass('the container\'s shell ran the line');
    s.ws.close();
  });

  t.test('port forwarding: SPDY, and the WebSocket tunnel of SPDY kubectl tries first', async (t) => {
    const c = await spdyConnect(as(ADMIN, `${base}/web/portforward`), ['portforward.k8s.io']);
    if ('refused' in c) throw new Error(`refused ${c.status}: ${c.body}`);
    t.equal(c.protocol, 'portforward.k8s.io');
    await c.conn.openStream({ streamType: 'error', port: '8080', requestID: '0' });
    const data = await c.conn.openStream({ streamType: 'data', port: '8080', requestID: '0' });
    const echoed = new Promise<string>((resolve) => { data.ondata = (d) => resolve(d.toString()); });
    data.write(Buffer.from('ping'));
    t.equal(await echoed, 'ping');
    c.conn.destroy('done');

    // The `ws` client refuses a subprotocol with a `/` in it; kubectl's (gorilla) sends it: the handshake by hand.
    const ws = await tunnelHandshake(`${ref.url}${base}/web/portforward?ports=8080`, ADMIN);
    t.equal(ws.protocol, 'SPDY/3.1+portforward.k8s.io', 'the agent\'s SPDY protocol, with the tunnel prefix');
    // SPDY bytes in binary messages, as client-go's tunneling connection carries them.
    const tunnel = new Duplex({ read() {}, write(chunk: Buffer, _enc, cb) { ws.socket.write(maskedFrame(2, chunk), cb); } });
    const frames = new ServerFrames((payload) => tunnel.push(payload));
    ws.socket.on('data', (d: Buffer) => frames.feed(d));
    ws.socket.on('close', () => tunnel.push(null));
    const conn = new SpdyConnection(tunnel, { isServer: false, maxQueuedBytes: 1 << 20, idleTimeoutMs: 0 });
    await conn.openStream({ streamType: 'error', port: '8080', requestID: '0' });
    const tdata = await conn.openStream({ streamType: 'data', port: '8080', requestID: '0' });
    const tEchoed = new Promise<string>((resolve) => { tdata.ondata = (d) => resolve(d.toString()); });
    tdata.write(Buffer.from('through the tunnel'));
    t.equal(await tEchoed, 'through the tunnel');
    const err = await conn.openStream({ streamType: 'error', port: '9', requestID: '1' });
    const refused = collect(err);
    await conn.openStream({ streamType: 'data', port: '9', requestID: '1' });
    t.match(await refused, /error forwarding port 9 to pod/, 'a port nobody listens on: the error stream says so');
    ws.socket.write(maskedFrame(8, Buffer.from([0x03, 0xe8])));
    await new Promise((resolve) => ws.socket.on('close', resolve));
  });

  t.test('authorization: the method\'s verb on the subresource, and create for a WebSocket upgrade', async (t) => {
    const before = cri.control.calls.list({ rpc: 'Exec' }).length;
    const exec = `${base}/web/exec?container=c&command=true&stdout=true`;
    t.match(await spdyCommand(as(GETTER, exec), ['v4.channel.k8s.io']), { refused: true, status: 403, body: /User \\"getter\\" cannot create resource \\"pods\/exec\\" in API group \\"\\" in the namespace \\"default\\"/ }, 'SPDY (POST) needs create');
    t.match(await wsCommand(as(GETTER, exec), 'v5.channel.k8s.io'), { refused: true, status: 403, body: /User \\"getter\\" cannot create resource \\"pods\/exec\\"/ }, 'a WebSocket upgrade (GET) needs create as well as get');
    t.match(await wsCommand(as(CREATOR, exec), 'v5.channel.k8s.io'), { refused: true, status: 403, body: /User \\"creator\\" cannot get resource \\"pods\/exec\\"/ }, '... and get');
    t.equal(done(await spdyCommand(as(CREATOR, exec), ['v4.channel.k8s.io'])).error, '{"metadata":{},"status":"Success"}', 'create is enough for SPDY');
    t.equal(cri.control.calls.list({ rpc: 'Exec' }).length, before + 1, 'only the allowed one reached the runtime');
  });

  t.test("upstream's refusals before any upgrade", async (t) => {
    const cases: Array<[string, number, RegExp]> = [
      [`${base}/web/exec?command=true&stdout=true`, 400, /a container name must be specified for pod web, choose one of: \[c shell\]/],
      [`${base}/web/exec?container=nope&command=true&stdout=true`, 400, /container nope is not valid for pod web/],
      [`${base}/unbound/exec?command=true&stdout=true`, 400, /pod unbound does not have a host assigned/],
      [`${base}/nope/exec?container=c&command=true&stdout=true`, 404, /pods \\"nope\\" not found/],
      [`${base}/web/exec?container=c&command=true&stdout=maybe`, 400, /stdout: invalid value/],
      [`${base}/web/portforward?ports=http`, 400, /ports: invalid value/],
    ];
    for (const [path, status, body] of cases) t.match(await spdyCommand(as(ADMIN, path), ['v4.channel.k8s.io']), { refused: true, status, body }, path);
    // The agent's own refusal (no stream asked for) comes back as it answered.
    t.match(await spdyCommand(as(ADMIN, `${base}/web/exec?container=c&command=true`), ['v4.channel.k8s.io']), { refused: true, status: 400, body: /you must specify at least 1 of stdin, stdout, stderr/ });
    const plain = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${ref.url}${base}/web/exec?container=c&command=true&stdout=true`, { method: 'POST', headers: { Authorization: `Bearer ${ADMIN}` } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => { body += c; });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    t.equal(plain.status, 400);
    t.match(JSON.parse(plain.body), { kind: 'Status', reason: 'BadRequest', message: 'Upgrade request required' });
  });

  t.test('discovery lists the three subresources as upstream does', async (t) => {
    const list = (await api.get('/api/v1')).resources as any[];
    for (const [sub, kind] of [['attach', 'PodAttachOptions'], ['exec', 'PodExecOptions'], ['portforward', 'PodPortForwardOptions']]) {
      t.same(list.find((r) => r.name === `pods/${sub}`), { name: `pods/${sub}`, singularName: '', namespaced: true, kind, verbs: ['create', 'get'] });
    }
  });

  t.test('an upgrade header on any other path: served as a plain request', async (t) => {
    const r = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${ref.url}/api/v1/namespaces/default/pods/web`, { headers: { Authorization: `Bearer ${ADMIN}`, Connection: 'Upgrade', Upgrade: 'h2c' } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => { body += c; });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    t.equal(r.status, 200);
    t.equal(JSON.parse(r.body).metadata.name, 'web');
  });

  t.test('bounded: an idle session is closed, a closed client ends the agent side', async (t) => {
    const s = await wsConnect(as(ADMIN, `${base}/web/attach?container=shell&stdin=true&stdout=true`), ['v5.channel.k8s.io']);
    if ('refused' in s) throw new Error(`refused ${s.status}: ${s.body}`);
    const started = Date.now();
    await Promise.race([s.closed, new Promise((_, reject) => setTimeout(() => reject(new Error('not closed')), IDLE_MS * 5))]);
    t.ok(Date.now() - started >= IDLE_MS - 100, `closed after the idle timeout (${Date.now() - started} ms)`);

    const c = await spdyConnect(as(ADMIN, `${base}/web/portforward`), ['portforward.k8s.io']);
    if ('refused' in c) throw new Error(`refused ${c.status}: ${c.body}`);
    // A session is recorded in the request metrics when it ends (code 101): the client's going ends it.
    const ended = async () => {
      const text = await (await fetch(`${ref.url}/metrics`, { headers: { Authorization: `Bearer ${ADMIN}` } })).text();
      return text.split('\n').filter((l) => l.startsWith('apiserver_request_total{') && l.includes('subresource="portforward"') && l.includes('code="101"'))
        .reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
    };
    const before = await ended();
    c.socket.destroy();
    await until('the session to end on the server', async () => ((await ended()) > before ? true : undefined), 5000);
    t.pass('the client went away, the server ended its session');
  });

  t.test('the server\'s shutdown ends open sessions', async (t) => {
    const s = await wsConnect(as(ADMIN, `${base}/web/attach?container=shell&stdin=true&stdout=true`), ['v5.channel.k8s.io']);
    if ('refused' in s) throw new Error(`refused ${s.status}: ${s.body}`);
    await ref.close();
    await Promise.race([s.closed, new Promise((_, reject) => setTimeout(() => reject(new Error('not closed by the shutdown')), 5000))]);
    t.pass('closed');
  });
});

/** A client's WebSocket frame: final, masked. */
function maskedFrame(opcode: number, payload: Buffer): Buffer {
  const n = payload.length;
  const head = n < 126 ? Buffer.from([0x80 | opcode, 0x80 | n]) : Buffer.from([0x80 | opcode, 0x80 | 126, n >> 8, n & 0xff]);
  if (n >= 65536) throw new Error('frame too large for this test client');
  const mask = randomBytes(4);
  const body = Buffer.from(payload.map((b, i) => b ^ mask[i & 3]!));
  return Buffer.concat([head, mask, body]);
}

/** Reads the server's (unmasked) frames, handing binary payloads on. */
class ServerFrames {
  private buf = Buffer.alloc(0);
  constructor(private readonly onData: (payload: Buffer) => void) {}
  feed(chunk: Buffer): void {
    this.buf = Buffer.concat([this.buf, chunk]);
    for (;;) {
      if (this.buf.length < 2) return;
      let len = this.buf[1]! & 0x7f;
      let at = 2;
      if (len === 126) { if (this.buf.length < 4) return; len = this.buf.readUInt16BE(2); at = 4; }
      else if (len === 127) { if (this.buf.length < 10) return; len = Number(this.buf.readBigUInt64BE(2)); at = 10; }
      if (this.buf.length < at + len) return;
      const opcode = this.buf[0]! & 0x0f;
      const payload = this.buf.subarray(at, at + len);
      this.buf = this.buf.subarray(at + len);
      if (opcode === 2 || opcode === 0) this.onData(Buffer.from(payload));
    }
  }
}

/** kubectl's port-forward handshake: a WebSocket upgrade offering the SPDY tunnel. */
function tunnelHandshake(url: string, token: string): Promise<{ socket: Socket; protocol: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: {
      Authorization: `Bearer ${token}`, Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13',
      'Sec-WebSocket-Key': randomBytes(16).toString('base64'), 'Sec-WebSocket-Protocol': 'SPDY/3.1+portforward.k8s.io',
    } });
    req.on('upgrade', (res, socket, head) => {
      if (head.length) socket.unshift(head);
      resolve({ socket, protocol: String(res.headers['sec-websocket-protocol'] ?? '') });
    });
    req.on('response', (res) => reject(new Error(`refused ${res.statusCode}`)));
    req.on('error', reject);
    req.end();
  });
}
