// Any :authority (cri/authority.ts): CRI clients of some grpc-go releases (crictl, the CRI validator)
// send the unix socket path as the HTTP/2 `:authority`, which Node's HTTP/2 server refuses. Through the
// mock CRI with Node's own http2 client sending such an authority: every rpc of RuntimeService and
// ImageService (as api.proto defines them) answers as through @grpc/grpc-js; empty and `localhost`
// authorities, none at all, a container events stream, a deadline, large headers and bodies; the agent's
// pod info socket; the bounds (an oversized header block or frame closes that connection, the server
// stays up); and the HPACK pieces the layer stands on.
import t, { type Test } from 'tap';
import http2 from 'node:http2';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { criClient, loadCri, type CriClient, type CriServiceName } from '../cri/proto.js';
import { authorityAccepted, AuthorityRewriter, MAX_HEADER_BLOCK } from '../cri/authority.js';
import { encodeWithoutIndexing, HpackDecoder } from '../cri/hpack.js';
import { startMockCri, type MockCri } from '../mocks/cri/server.js';
import { startPodInfoServer } from '../reference/agent/pod-info/server.js';
import { loadPods } from '../reference/agent/pod-info/proto.js';
import { podInfoClient } from '../suites/001-node-agent/pod-info-client.js';
import { h2frame, PREFACE, rawCall, rawConnection, rawSession, requestBlock, type RawAnswer } from './helpers/raw-grpc.js';

const GOAWAY = 7;
const HEADERS = 1;

function tmp(t: Test, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function mock(t: Test, dir: string): Promise<MockCri> {
  const m = await startMockCri({ socket: join(dir, 'run', 'cri.sock'), root: join(dir, 'root'), pullDelayMs: 1 });
  t.teardown(() => m.close());
  return m;
}

const cri = loadCri();
const methodOf = (rpc: string) => {
  const service: CriServiceName = Object.prototype.hasOwnProperty.call(cri.RuntimeService.service, rpc) ? 'RuntimeService' : 'ImageService';
  return { service, def: cri[service].service[rpc] };
};

/** One answer, whoever carried it: the status, its details and the decoded messages. */
interface Answer { code: number; details: string; messages: unknown[] }

/** A CRI call by name through Node's http2 with a chosen `:authority`. */
function rawCri(session: http2.ClientHttp2Session, authority: string) {
  return async (rpc: string, request: object, o: { take?: number; timeout?: string; metadata?: Record<string, string> } = {}): Promise<Answer & { raw: RawAnswer }> => {
    const { service, def } = methodOf(rpc);
    const raw = await rawCall(session, { path: `/runtime.v1.${service}/${rpc}`, authority, request: def.requestSerialize(request), ...o });
    // A reset stream (what nghttp2 does to the authority without the layer) has no status: it shows
    // as a code no grpc-js answer has.
    const code = raw.code ?? (raw.rstCode ? -100 - raw.rstCode : -1);
    return { code, details: raw.details, messages: raw.messages.map((m) => def.responseDeserialize(m)), raw };
  };
}

/** The same call through @grpc/grpc-js. */
function grpcJs(c: CriClient) {
  return (rpc: string, request: object, o: { take?: number } = {}): Promise<Answer> => {
    const { def } = methodOf(rpc);
    if (!def.responseStream) {
      return c.call(rpc, request).then(
        (res) => ({ code: 0, details: '', messages: [res] }),
        (err: grpc.ServiceError) => ({ code: err.code, details: err.details, messages: [] }),
      );
    }
    return new Promise((resolve) => {
      const s = c.stream(rpc, request);
      const messages: unknown[] = [];
      let done = false;
      const end = (a: Answer) => { if (!done) { done = true; resolve(a); } };
      s.on('data', (m) => {
        messages.push(m);
        if (o.take !== undefined && messages.length >= o.take) {
          end({ code: -1, details: '', messages });
          s.cancel();
        }
      });
      s.on('error', (err: grpc.ServiceError) => end({ code: err.code, details: err.details, messages }));
      s.on('status', (st) => end({ code: st.code, details: st.details, messages }));
    });
  };
}

/**
 * What may differ between two runtimes doing the same things: ids (named by first appearance), the
 * runtime's directory, times and counters (int64 decimal strings), pids, streaming URLs; in stats and
 * metrics every number (the mock derives usage from the time the container has run); the details of
 * an OK status (grpc-js sends `OK`, its client reports none for a unary call).
 */
function normalise(answer: { rpc: string } & Answer, root: string): unknown {
  const stats = /Stats|Metric/.test(answer.rpc);
  const value = { ...answer, details: answer.code === 0 ? '' : answer.details };
  const ids = new Map<string, string>();
  const fix = (s: string) => s.split(root).join('<root>').replace(/[0-9a-f]{64}/g, (id) => {
    if (!ids.has(id)) ids.set(id, `<id${ids.size}>`);
    return ids.get(id)!;
  });
  const walk = (v: unknown, key = ''): unknown => {
    if (Buffer.isBuffer(v) || v instanceof Uint8Array) return fix(Buffer.from(v).toString('latin1'));
    if (typeof v === 'string') {
      if (/^\d{10,}$/.test(v) || (stats && /^\d+$/.test(v))) return '<int64>';
      if (key === 'url') return '<url>';
      if (key === 'info' || key === 'config') return fix(v).replace(/"pid":\d+/g, '"pid":0').replace(/\d{10,}/g, '<int64>');
      return fix(v);
    }
    if (key === 'pid' && typeof v === 'number') return 0;
    if (stats && typeof v === 'number') return '<n>';
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return walk(value);
}

const sandboxConfig = (name: string, root: string) => ({
  metadata: { name, uid: `uid-${name}`, namespace: 'authority', attempt: 0 }, log_directory: join(root, 'logs', name), labels: { test: 'authority' },
});
const containerConfig = (name: string) => ({ metadata: { name, attempt: 0 }, image: { image: 'busybox' }, command: ['sleep', '3600'], log_path: `${name}.log` });

/** What is left and in what order: the rpcs that take state away come last. */
const LAST = ['StopContainer', 'RemoveContainer', 'StopPodSandbox', 'RemovePodSandbox', 'RemoveImage'];

/** The request for each rpc, given what the run made so far; an rpc not listed here gets `{}`. */
function requestFor(rpc: string, ctx: { sb: string; ct: string; created?: string; root: string }): object {
  const { sb, ct, root } = ctx;
  const byRpc: Record<string, object> = {
    RunPodSandbox: { config: sandboxConfig('second', root) },
    StopPodSandbox: { pod_sandbox_id: sb },
    RemovePodSandbox: { pod_sandbox_id: sb },
    PodSandboxStatus: { pod_sandbox_id: sb, verbose: true },
    ListPodSandbox: { filter: { label_selector: { test: 'authority' } } },
    CreateContainer: { pod_sandbox_id: sb, config: containerConfig('second'), sandbox_config: sandboxConfig('first', root) },
    StartContainer: { container_id: ctx.created ?? ct },
    StopContainer: { container_id: ct, timeout: 0 },
    RemoveContainer: { container_id: ct },
    ContainerStatus: { container_id: ct, verbose: true },
    UpdateContainerResources: { container_id: ct, linux: { cpu_shares: 512 } },
    ReopenContainerLog: { container_id: ct },
    ExecSync: { container_id: ct, cmd: ['echo', 'through any authority'], timeout: 5 },
    Exec: { container_id: ct, cmd: ['sh'], stdout: true },
    Attach: { container_id: ct, stdout: true },
    PortForward: { pod_sandbox_id: sb, port: [80] },
    ContainerStats: { container_id: ct },
    PodSandboxStats: { pod_sandbox_id: sb },
    UpdateRuntimeConfig: { runtime_config: { network_config: { pod_cidr: '10.88.0.0/16' } } },
    Status: { verbose: true },
    CheckpointContainer: { container_id: ct, location: join(root, 'checkpoint.tar') },
    GetContainerEvents: {},
    UpdatePodSandboxResources: { pod_sandbox_id: sb, resources: { cpu_shares: 512 } },
    ImageStatus: { image: { image: 'busybox' }, verbose: true },
    PullImage: { image: { image: 'busybox' } },
    RemoveImage: { image: { image: 'busybox' } },
  };
  return byRpc[rpc] ?? {};
}

t.test('a socket path as :authority: every rpc of RuntimeService and ImageService answers as through grpc-js', async (t) => {
  const dirA = tmp(t, 'auth-a-');
  const dirB = tmp(t, 'auth-b-');
  const [a, b] = await Promise.all([mock(t, dirA), mock(t, dirB)]);
  const client = criClient(a.criUrl);
  t.teardown(() => client.close());
  const session = rawSession(b.socket);
  t.teardown(() => session.close());
  const viaGrpcJs = grpcJs(client);
  // The authority grpc-go of those releases sends: the socket path itself.
  const viaPath = rawCri(session, b.socket);

  const rpcs = [...Object.keys(cri.RuntimeService.service), ...Object.keys(cri.ImageService.service)];
  t.ok(rpcs.length >= 40, `api.proto's services define ${rpcs.length} rpcs`);
  const order = [...rpcs.filter((r) => !LAST.includes(r)), ...LAST.filter((r) => rpcs.includes(r))];

  // The same history on both runtimes, each through its own client.
  const setup = async (call: typeof viaGrpcJs, root: string) => {
    const sb = ((await call('RunPodSandbox', { config: sandboxConfig('first', root) })).messages[0] as any).pod_sandbox_id as string;
    const ct = ((await call('CreateContainer', { pod_sandbox_id: sb, config: containerConfig('first'), sandbox_config: sandboxConfig('first', root) })).messages[0] as any).container_id as string;
    t.equal((await call('StartContainer', { container_id: ct })).code, 0);
    return { sb, ct, root } as { sb: string; ct: string; created?: string; root: string };
  };
  const ctxA = await setup(viaGrpcJs, a.root);
  const ctxB = await setup(viaPath, b.root);
  a.control.setCheckpointSupported(true);
  b.control.setCheckpointSupported(true);

  const transcriptA: unknown[] = [];
  const transcriptB: unknown[] = [];
  for (const rpc of order) {
    let answers: [Answer, Answer];
    if (rpc === 'GetContainerEvents') {
      // A stream that does not end: the first event after a container is created on each side.
      const first = (call: typeof viaGrpcJs, m: MockCri, ctx: typeof ctxA) => firstEvent(m, call, () => call('CreateContainer', { pod_sandbox_id: ctx.sb, config: containerConfig('event'), sandbox_config: sandboxConfig('first', ctx.root) }));
      answers = [await first(viaGrpcJs, a, ctxA), await first(viaPath, b, ctxB)];
    } else {
      answers = [await viaGrpcJs(rpc, requestFor(rpc, ctxA)), await viaPath(rpc, requestFor(rpc, ctxB))];
    }
    const [ga, pb] = answers;
    if (rpc === 'CreateContainer') {
      ctxA.created = (ga.messages[0] as any)?.container_id;
      ctxB.created = (pb.messages[0] as any)?.container_id;
    }
    const na = normalise({ rpc, code: ga.code, details: ga.details, messages: ga.messages }, a.root);
    const nb = normalise({ rpc, code: pb.code, details: pb.details, messages: pb.messages }, b.root);
    transcriptA.push(na);
    transcriptB.push(nb);
    t.same(nb, na, `${rpc}: ${grpc.status[ga.code] ?? 'cut'}${ga.details ? ` (${ga.details.slice(0, 80)})` : ''}`);
  }
  // Statuses the runs must have seen: answers, errors and UNIMPLEMENTED (Stream* list rpcs) alike.
  const codes = new Set(transcriptA.map((x: any) => x.code));
  t.ok(codes.has(grpc.status.OK) && codes.has(grpc.status.UNIMPLEMENTED), `statuses seen: ${[...codes].join(', ')}`);
});

/**
 * Opens GetContainerEvents, waits until the runtime has it (its call log; the subscription follows in
 * the same turn), then runs `trigger`: the answer holds the first event, the stream cut after it.
 */
async function firstEvent(m: MockCri, call: (rpc: string, req: object, o: { take?: number }) => Promise<Answer>, trigger: () => Promise<unknown>, take = 1): Promise<Answer> {
  const before = m.control.calls.list({ rpc: 'GetContainerEvents' }).length;
  const answer = call('GetContainerEvents', {}, { take });
  const until = Date.now() + 5000;
  while (m.control.calls.list({ rpc: 'GetContainerEvents' }).length === before && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
  await trigger();
  const a = await answer;
  // Whoever ended the stream, it was cut after its events.
  return { ...a, code: -1 };
}

t.test('empty, localhost and absent authorities; a plain grpc-js server refuses the path', async (t) => {
  const dir = tmp(t, 'auth-');
  const m = await mock(t, dir);
  const session = rawSession(m.socket);
  t.teardown(() => session.close());
  for (const authority of ['', 'localhost', m.socket, 'unix:' + m.socket, 'host with spaces']) {
    const v = await rawCri(session, authority)('Version', {});
    t.match(v, { code: 0, messages: [{ runtime_name: 'orch-mock-cri' }] }, `Version with :authority ${JSON.stringify(authority)}`);
  }
  t.ok(authorityAccepted('localhost') && authorityAccepted('[::1]:80') && !authorityAccepted('') && !authorityAccepted('/a') && !authorityAccepted('a b'));

  // No :authority at all (allowed by HTTP/2; Node's client always sends one): raw frames.
  const conn = await rawConnection(m.socket);
  t.teardown(() => conn.socket.destroy());
  const body = cri.RuntimeService.service.Version.requestSerialize({});
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(body.length, 1);
  conn.socket.write(Buffer.concat([h2frame(HEADERS, 0x4, 1, requestBlock('/runtime.v1.RuntimeService/Version')), h2frame(0, 0x1, 1, Buffer.concat([prefix, body]))]));
  await conn.waitFor(HEADERS, 1);
  const until = Date.now() + 5000;
  while (conn.headers.filter((h) => h.streamId === 1).length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  const trailers = conn.headers.filter((h) => h.streamId === 1).at(-1)!.fields;
  t.equal(trailers.find((f) => f.name === 'grpc-status')?.value, '0', 'no :authority: answered OK');

  // Without the layer: what the issue saw (the stream is reset, PROTOCOL_ERROR).
  const plain = new grpc.Server();
  plain.addService(cri.RuntimeService.service, { Version: (_c: unknown, cb: grpc.sendUnaryData<unknown>) => cb(null, { version: '0', runtime_name: 'plain' }) });
  const plainSock = join(dir, 'plain.sock');
  await new Promise<void>((ok, fail) => plain.bindAsync(`unix:${plainSock}`, grpc.ServerCredentials.createInsecure(), (e) => (e ? fail(e) : ok())));
  t.teardown(() => plain.forceShutdown());
  const ps = rawSession(plainSock);
  t.teardown(() => ps.close());
  const refused = await rawCall(ps, { path: '/runtime.v1.RuntimeService/Version', authority: plainSock, request: body });
  t.equal(refused.rstCode, http2.constants.NGHTTP2_PROTOCOL_ERROR, 'a plain grpc-js server resets the stream');
});

t.test('through a path authority: container events stream, deadlines, large headers and bodies', async (t) => {
  const dir = tmp(t, 'auth-');
  const m = await mock(t, dir);
  const session = rawSession(m.socket);
  t.teardown(() => session.close());
  const call = rawCri(session, m.socket);
  const sb = (await call('RunPodSandbox', { config: sandboxConfig('p', m.root) })).messages[0] as any;
  const ct = (await call('CreateContainer', { pod_sandbox_id: sb.pod_sandbox_id, config: containerConfig('c'), sandbox_config: sandboxConfig('p', m.root) })).messages[0] as any;

  // Server streaming: events of the container as it starts and stops, on one stream.
  const events = firstEvent(m, call, async () => {
    await call('StartContainer', { container_id: ct.container_id });
    await call('StopContainer', { container_id: ct.container_id, timeout: 0 });
  }, 2);
  const got = await events;
  t.same(got.messages.map((e: any) => [e.container_event_type, e.container_id]), [
    ['CONTAINER_STARTED_EVENT', ct.container_id], ['CONTAINER_STOPPED_EVENT', ct.container_id],
  ], 'started then stopped, streamed');

  // A deadline (grpc-timeout) the server honours: a Version held by a fault past it.
  m.control.faults.add({ rpc: 'Version', hang: true, times: 1 });
  const t0 = Date.now();
  const late = await call('Version', {}, { timeout: '200m' });
  t.equal(late.code, grpc.status.DEADLINE_EXCEEDED, 'DEADLINE_EXCEEDED');
  t.ok(Date.now() - t0 < 3000, `within the deadline's reach (${Date.now() - t0} ms)`);

  // Header blocks over one frame (CONTINUATION, re-encoded past 16 KiB) and bodies over the flow-control
  // window both ways.
  const big = { 'x-big-1': 'a'.repeat(12_000), 'x-big-2': 'b'.repeat(12_000) };
  const runner = await call('RunPodSandbox', { config: sandboxConfig('q', m.root) });
  const q = (runner.messages[0] as any).pod_sandbox_id;
  const c2 = (await call('CreateContainer', { pod_sandbox_id: q, config: containerConfig('c2'), sandbox_config: sandboxConfig('q', m.root) })).messages[0] as any;
  t.equal((await call('StartContainer', { container_id: c2.container_id }, { metadata: big })).code, 0, '24 KiB of metadata');
  const text = 'x'.repeat(200_000);
  const echoed = await call('ExecSync', { container_id: c2.container_id, cmd: ['echo', text], timeout: 10 }, { metadata: big });
  t.equal(echoed.code, 0, echoed.details);
  t.equal(Buffer.from((echoed.messages[0] as any).stdout).toString(), `${text}\n`, '200 KB there and back');
});

t.test('the pod info socket with a path authority', async (t) => {
  const dir = tmp(t, 'auth-pi-');
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: 'u1' }, status: { phase: 'Running' } };
  const server = await startPodInfoServer({
    socketPath: join(dir, 'pods', 'agent.sock'),
    source: { initialized: () => true, pods: () => [pod], pod: (uid) => (uid === 'u1' ? pod : undefined), onChange: () => () => {} },
  });
  t.teardown(() => server.close());
  const def = loadPods().Pods.service;
  const session = rawSession(server.socketPath);
  t.teardown(() => session.close());
  const list = await rawCall(session, { path: def.ListPods.path, authority: server.socketPath, request: def.ListPods.requestSerialize({}) });
  t.equal(list.code, 0);
  const listed = (def.ListPods.responseDeserialize(list.messages[0]) as any).pods.map((p: Buffer) => JSON.parse(p.toString()));
  const client = await podInfoClient(server.socketPath);
  t.teardown(() => client.close());
  const viaGrpcJs = await client.list();
  t.same(listed, viaGrpcJs.ok ? viaGrpcJs.pods : undefined, 'ListPods answers as through grpc-js');
  const missing = await rawCall(session, { path: def.GetPod.path, authority: server.socketPath, request: def.GetPod.requestSerialize({ podUID: 'nope' }) });
  t.match(missing, { code: grpc.status.NOT_FOUND, details: /not found/ }, 'GetPod of an unknown pod: NOT_FOUND');
});

t.test('bounds: an oversized header block or frame closes that connection with a GOAWAY; the server stays up', async (t) => {
  const dir = tmp(t, 'auth-');
  const m = await mock(t, dir);
  const client = criClient(m.criUrl);
  t.teardown(() => client.close());

  // A header block past 64 KiB, in frames each within the frame size.
  const conn = await rawConnection(m.socket);
  const block = requestBlock('/runtime.v1.RuntimeService/Version', [['x-huge', 'h'.repeat(MAX_HEADER_BLOCK + 1000)]], m.socket);
  const frames = [h2frame(HEADERS, 0, 1, block.subarray(0, 16_384))];
  for (let at = 16_384; at < block.length; at += 16_384) frames.push(h2frame(9, at + 16_384 >= block.length ? 0x4 : 0, 1, block.subarray(at, at + 16_384)));
  conn.socket.write(Buffer.concat(frames));
  const goaway = await conn.waitFor(GOAWAY);
  t.ok(goaway, 'GOAWAY');
  t.equal(goaway?.payload.readUInt32BE(4), http2.constants.NGHTTP2_COMPRESSION_ERROR, 'COMPRESSION_ERROR: the block was refused');
  await conn.closed;
  t.pass('the connection is closed');

  // A frame longer than the server's maximum frame size.
  const conn2 = await rawConnection(m.socket);
  conn2.socket.write(h2frame(HEADERS, 0x4, 1, Buffer.alloc(20_000)));
  const goaway2 = await conn2.waitFor(GOAWAY);
  t.equal(goaway2?.payload.readUInt32BE(4), http2.constants.NGHTTP2_FRAME_SIZE_ERROR, 'FRAME_SIZE_ERROR');
  await conn2.closed;

  // Not HTTP/2 at all: closed as the server closes it.
  const conn3 = await rawConnection(m.socket);
  conn3.socket.write('GET / HTTP/1.1\r\n\r\n');
  await conn3.closed;

  t.match(await client.call('Version', {}), { runtime_name: 'orch-mock-cri' }, 'the server still answers');
});

t.test('clients that leave, a server that closes: everything ends promptly', async (t) => {
  const dir = tmp(t, 'auth-');
  const m = await startMockCri({ socket: join(dir, 'run', 'cri.sock'), root: join(dir, 'root'), pullDelayMs: 1 });
  // Clients that go away mid-call and between calls.
  for (let i = 0; i < 10; i++) {
    const s = rawSession(m.socket);
    const pending = rawCri(s, m.socket)('Version', {});
    if (i % 2) await pending;
    s.destroy();
  }
  const conn = await rawConnection(m.socket);
  conn.socket.write(Buffer.concat([h2frame(HEADERS, 0, 1, requestBlock('/runtime.v1.RuntimeService/Version').subarray(0, 3))]));
  conn.socket.destroy();
  // A stream open while the server closes.
  const session = rawSession(m.socket);
  const events = rawCall(session, { path: '/runtime.v1.RuntimeService/GetContainerEvents', authority: m.socket, request: Buffer.alloc(0) });
  await new Promise((r) => setTimeout(r, 100));
  const t0 = Date.now();
  await m.close();
  const ended = await events;
  t.ok(Date.now() - t0 < 2500, `close() took ${Date.now() - t0} ms`);
  t.ok(ended.code !== undefined || ended.rstCode !== 0 || session.destroyed || session.closed, 'the events stream ended');
  session.destroy();
  // Nothing listens any more.
  const s2 = rawSession(m.socket);
  const gone = await new Promise<string>((resolve) => { s2.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? '')); s2.once('connect', () => resolve('connected')); });
  t.match(gone, /ENOENT|ECONNREFUSED/, 'the socket is gone');
  s2.destroy();
});

t.test('the rewriter: pass-through until a block needs a change, then re-encoding without the dynamic table', async (t) => {
  // A client's blocks as nghttp2 would send them: literal with incremental indexing, then indexed.
  const lit = (name: number, value: string) => Buffer.concat([Buffer.from([0x40 | name, value.length]), Buffer.from(value, 'latin1')]);
  const settings = h2frame(4, 0, 0);
  const first = Buffer.concat([Buffer.from([0x83, 0x86]), lit(4, '/runtime.v1.RuntimeService/Version'), lit(1, 'localhost')]);
  const second = Buffer.from([0x83, 0x86, 0xbf, 0xbe]); // :path and :authority from the dynamic table
  const third = Buffer.concat([Buffer.from([0x83, 0x86, 0xbf]), lit(1, '/run/x/cri.sock')]);
  const fourth = Buffer.from([0x83, 0x86, 0xc0, 0xbe]); // :path, and the socket path from the table
  const r = new AuthorityRewriter();
  const input = Buffer.concat([PREFACE, settings, h2frame(1, 5, 1, first), h2frame(1, 5, 3, second), h2frame(1, 5, 5, third), h2frame(1, 5, 7, fourth)]);
  // Fed a byte at a time: every split of frame headers and payloads.
  const out = Buffer.concat([...input].flatMap((byte) => r.push(Buffer.from([byte]))));
  t.ok(r.reencoding && !r.refused);
  // The server side's view: decode what came out with one table.
  const server = new HpackDecoder();
  const blocks: Record<string, string>[] = [];
  let at = PREFACE.length;
  t.same(out.subarray(0, at), PREFACE);
  while (at < out.length) {
    const len = out.readUIntBE(at, 3);
    if (out[at + 3] === 1) blocks.push(Object.fromEntries(server.decode(out.subarray(at + 9, at + 9 + len)).map((f) => [f.name, f.value])));
    at += 9 + len;
  }
  t.same(blocks.map((b) => [b[':path'], b[':authority']]), [
    ['/runtime.v1.RuntimeService/Version', 'localhost'], ['/runtime.v1.RuntimeService/Version', 'localhost'],
    ['/runtime.v1.RuntimeService/Version', 'localhost'], ['/runtime.v1.RuntimeService/Version', 'localhost'],
  ]);
  t.same(out.subarray(PREFACE.length, PREFACE.length + settings.length + 9 + first.length + 9 + second.length), input.subarray(PREFACE.length, PREFACE.length + settings.length + 9 + first.length + 9 + second.length), 'blocks before the first change pass unchanged');

  // HPACK: Huffman strings (RFC 7541 C.4.1), and what must be refused.
  const d = new HpackDecoder();
  t.same(d.decode(Buffer.from('828684418cf1e3c2e5f23a6ba0ab90f4ff', 'hex')).map((f) => f.value), ['GET', 'http', '/', 'www.example.com']);
  t.throws(() => new HpackDecoder().decode(Buffer.from([0x80])), /index 0/);
  t.throws(() => new HpackDecoder().decode(Buffer.from([0xff, 0x00])), /beyond/);
  t.throws(() => new HpackDecoder().decode(Buffer.from([0x3f, 0xe2, 0x1f])), /above the 4096/);
  t.same(new HpackDecoder().decode(encodeWithoutIndexing([{ name: 'x-a', value: 'é', neverIndex: true }, { name: ':method', value: 'POST', neverIndex: false }])),
    [{ name: 'x-a', value: 'é', neverIndex: true }, { name: ':method', value: 'POST', neverIndex: false }]);
});
