// The pod info gRPC service (spec 001 §4.2): the field mask, the server over a fake source (list order,
// NOT_FOUND, FAILED_PRECONDITION, watch events, a client that stops reading), hostile input (random
// metadata and message bytes: always a gRPC status, never a crash), the socket's file, and the real
// agent: its pods with the status it computed, with and without the control plane.
import t from 'tap';
import fc from 'fast-check';
import { propertyRuns } from '../helpers/property.js';
import * as grpc from '@grpc/grpc-js';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyFieldMask, checkPath, fieldMaskOf, FieldMaskError } from '../../reference/agent/pod-info/field-mask.js';
import { startPodInfoServer, type PodInfoSource } from '../../reference/agent/pod-info/server.js';
import { loadPods, FIELD_MASK_KEY } from '../../reference/agent/pod-info/proto.js';
import { podInfoClient, type PodInfoClient } from '../../suites/001-node-agent/pod-info-client.js';
import { startReference } from '../../reference/server.js';
import { startMockCri } from '../../mocks/cri/server.js';
import { ApiClient } from '../../reference/client/api-client.js';
import { startAgent } from '../../reference/agent/agent.js';
import { until } from './helpers.js';

const tmp = (t: any, prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

const pod = (uid: string, name = `p-${uid}`, extra: object = {}) => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name, namespace: 'default', uid, labels: { a: 'b' } },
  spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }] },
  status: { phase: 'Running', podIP: '10.0.0.1', podIPs: [{ ip: '10.0.0.1' }] },
  ...extra,
});

/** A source the test drives: pods by UID, an initialized flag, change notifications. */
function fakeSource(initial: any[] = []) {
  const pods = new Map<string, any>(initial.map((p) => [p.metadata.uid, p]));
  const listeners = new Set<(uid: string) => void>();
  let ready = true;
  const source: PodInfoSource = {
    initialized: () => ready,
    pods: () => [...pods.values()],
    pod: (uid) => pods.get(uid),
    onChange: (fn) => { listeners.add(fn); return () => listeners.delete(fn); },
  };
  return {
    source,
    set(p: any) { pods.set(p.metadata.uid, p); for (const l of listeners) l(p.metadata.uid); },
    remove(uid: string) { pods.delete(uid); for (const l of listeners) l(uid); },
    setReady(v: boolean) { ready = v; },
    listeners,
  };
}

async function serve(t: any, initial: any[] = [], opts: { watchMaxPendingBytes?: number; watchMaxConnectionPendingBytes?: number; watchMaxTotalPendingBytes?: number } = {}) {
  const dir = tmp(t, 'pi-');
  const fake = fakeSource(initial);
  const server = await startPodInfoServer({ socketPath: join(dir, 'pods', 'agent.sock'), source: fake.source, ...opts });
  t.teardown(() => server.close());
  const client = await podInfoClient(server.socketPath);
  t.teardown(() => client.close());
  return { dir, fake, server, client };
}

t.test('field mask paths: fields of Pod, descending only through objects', async (t) => {
  for (const p of ['metadata', 'metadata.name', 'status.phase', 'status.podIPs', 'spec.containers', 'spec.affinity.nodeAffinity.x', 'status.containerStatuses', 'apiVersion', 'metadata.labels']) {
    t.doesNotThrow(() => checkPath(p), p);
  }
  const bad: Array<[string, RegExp]> = [
    ['', /empty path/], ['status.', /malformed/], ['.status', /malformed/], ['status..phase', /malformed/], ['status phase', /malformed/],
    ['status.nope', /status has no field "nope"/], ['nope', /Pod has no field/], ['metadata.labels.a', /metadata\.labels is a map/],
    ['spec.containers.name', /a list, so the path must end there/], ['status.phase.x', /a value/], ['__proto__', /malformed/], ['spec.affinity.constructor', /malformed/],
  ];
  for (const [p, re] of bad) t.throws(() => checkPath(p), { name: 'FieldMaskError', message: re }, JSON.stringify(p));
  t.equal(fieldMaskOf([]), undefined, 'no value: the whole pod');
  t.same(fieldMaskOf(['status.phase,metadata.name']), ['status.phase', 'metadata.name']);
  t.throws(() => fieldMaskOf(['a', 'b']), { message: 'multiple field masks not supported' });
  t.throws(() => fieldMaskOf(['metadata.name, status.phase']), { message: 'multiple field masks not supported' }, 'two values as Node joins them');
  t.throws(() => fieldMaskOf(['x'.repeat(9000)]), { message: /longer than/ });
  t.throws(() => fieldMaskOf([Array(300).fill('status').join(',')]), { message: /more than 256 paths/ });
  t.throws(() => fieldMaskOf(['status.phase,']), { message: /empty path/ });
  t.throws(() => fieldMaskOf(['status.nope']), FieldMaskError);
});

t.test('applying a mask keeps only the named fields and never writes into the pod', async (t) => {
  const p = pod('u1');
  const before = JSON.stringify(p);
  t.same(JSON.parse(JSON.stringify(applyFieldMask(p, ['metadata.name']))), { metadata: { name: 'p-u1' } });
  t.same(JSON.parse(JSON.stringify(applyFieldMask(p, ['status.phase', 'status.podIPs', 'metadata.uid']))), { status: { phase: 'Running', podIPs: [{ ip: '10.0.0.1' }] }, metadata: { uid: 'u1' } });
  t.same(JSON.parse(JSON.stringify(applyFieldMask(p, ['status.phase', 'status']))), { status: p.status }, 'a path under one already named adds nothing');
  t.same(JSON.parse(JSON.stringify(applyFieldMask(p, ['status.nominatedNodeName']))), {}, 'a field the pod has no value at adds nothing');
  t.equal(JSON.stringify(p), before, 'the pod is unchanged');
  applyFieldMask({ spec: { affinity: {} } }, ['spec.affinity.__proto__.polluted']);
  t.equal(({} as any).polluted, undefined, 'no path reaches a prototype');
});

t.test('ListPods sorted by UID, GetPod, NOT_FOUND, masks, FAILED_PRECONDITION', async (t) => {
  const { client, fake } = await serve(t, [pod('c3'), pod('a1'), pod('b2')]);
  const l = await client.list();
  t.ok(l.ok);
  if (l.ok) t.same(l.pods.map((p) => p.metadata.uid), ['a1', 'b2', 'c3']);
  const g = await client.get('b2');
  t.ok(g.ok && g.pod.metadata.name === 'p-b2');
  t.match(await client.get('zz'), { ok: false, codeName: 'NOT_FOUND', details: 'pod with UID zz not found' });
  const long = await client.get('x'.repeat(5000));
  t.match(long, { ok: false, codeName: 'NOT_FOUND' });
  t.ok(!long.ok && long.details.length < 400, 'a huge UID is cut in the message');
  const m = await client.get('a1', { mask: 'status.phase' });
  t.same(m.ok && m.pod, { status: { phase: 'Running' } });
  const ml = await client.list({ mask: 'metadata.uid' });
  t.same(ml.ok && ml.pods, [{ metadata: { uid: 'a1' } }, { metadata: { uid: 'b2' } }, { metadata: { uid: 'c3' } }]);
  t.match(await client.list({ metadata: [[FIELD_MASK_KEY, 'metadata.name'], [FIELD_MASK_KEY, 'status.phase']] }), { ok: false, codeName: 'INVALID_ARGUMENT', details: 'multiple field masks not supported' });
  t.match(await client.get('a1', { mask: 'status.nope' }), { ok: false, codeName: 'INVALID_ARGUMENT', details: /^invalid field mask: / });
  fake.setReady(false);
  t.match(await client.list(), { ok: false, codeName: 'FAILED_PRECONDITION', details: /not initialized/ });
  t.match(await client.get('a1'), { ok: false, codeName: 'FAILED_PRECONDITION' });
  const w = client.watch();
  t.match(await w.next(2000), { end: { codeName: 'FAILED_PRECONDITION' } });
});

t.test('WatchPods: ADDED for the current pods, then MODIFIED and DELETED; unchanged pods send nothing', async (t) => {
  const { client, fake } = await serve(t, [pod('b'), pod('a')]);
  const w = client.watch({ mask: 'metadata.uid,status.phase' });
  const ev = async () => { const n = await w.next(3000); if (!n || !('event' in n)) throw new Error(`no event: ${JSON.stringify(n)}`); return n.event; };
  t.same([await ev(), await ev()], [{ type: 'ADDED', pod: { metadata: { uid: 'a' }, status: { phase: 'Running' } } }, { type: 'ADDED', pod: { metadata: { uid: 'b' }, status: { phase: 'Running' } } }]);
  fake.set(pod('a'));
  fake.set({ ...pod('a'), status: { phase: 'Failed' } });
  t.same(await ev(), { type: 'MODIFIED', pod: { metadata: { uid: 'a' }, status: { phase: 'Failed' } } }, 'a notification that changed nothing sends nothing');
  fake.set(pod('c'));
  t.same(await ev(), { type: 'ADDED', pod: { metadata: { uid: 'c' }, status: { phase: 'Running' } } });
  fake.remove('b');
  t.same(await ev(), { type: 'DELETED', pod: { metadata: { uid: 'b' }, status: { phase: 'Running' } } }, 'DELETED carries the pod as last known');
  t.equal(await w.next(200), undefined);
  w.close();
  await until('the cancelled watch is forgotten', () => (fake.listeners.size === 1 ? true : undefined));
});

t.test('a watch whose client stops reading is dropped with RESOURCE_EXHAUSTED; memory stays bounded and the server serves on', async (t) => {
  const big = 'x'.repeat(64 * 1024);
  const { client, fake, server } = await serve(t, [pod('a')], { watchMaxPendingBytes: 512 * 1024 });
  // A raw client whose stream is never read from until the end.
  const Pods = loadPods().Pods;
  const raw = new Pods(`unix:${server.socketPath}`, grpc.credentials.createInsecure());
  t.teardown(() => raw.close());
  const stream = (raw as any).WatchPods({}, new grpc.Metadata(), { deadline: Date.now() + 30_000 }) as grpc.ClientReadableStream<any>;
  // The cut arrives as a reset, whether the client reads or not.
  stream.on('error', () => undefined);
  const ended = new Promise<grpc.StatusObject>((resolve) => stream.on('status', resolve));
  // Registered once its initial event came; from then on nothing is read.
  await new Promise((resolve) => stream.once('data', resolve));
  stream.pause();
  // Far more than the socket buffers and HTTP/2 windows hold, so the server's own queue must grow.
  for (let i = 0; i < 400; i++) fake.set(pod('a', 'p-a', { metadata: { name: 'p-a', namespace: 'default', uid: 'a', annotations: { big: `${i}${big}` } } }));
  t.ok(await client.list().then((r) => r.ok), 'other calls are answered meanwhile');
  let events = 0;
  stream.on('data', () => { events++; });
  stream.resume();
  const end = await ended;
  // An HTTP/2 reset (ENHANCE_YOUR_CALM), which frees what was queued: the details are grpc-js's.
  t.equal(end.code, grpc.status.RESOURCE_EXHAUSTED, end.details);
  t.ok(events < 399, `the dropped watch ended early (${events + 1} of 401 events delivered)`);
  t.equal(server.watchPendingBytes, 0, 'nothing is held for it any more');
});

t.test('watches that never read are cut, slowest first, within the per-connection and total bounds', async (t) => {
  const big = 'x'.repeat(16 * 1024);
  const perConnection = 256 * 1024;
  const total = 512 * 1024;
  // The per-stream bound (16 MiB) is never reached: the shared bounds do the cutting.
  const { client, fake, server } = await serve(t, [pod('a')], { watchMaxConnectionPendingBytes: perConnection, watchMaxTotalPendingBytes: total });
  const Pods = loadPods().Pods;
  // Three connections of 10 streams each (distinct channel options: grpc-js shares equal channels).
  const streams: Array<{ conn: number; stream: grpc.ClientReadableStream<any>; ended: Promise<grpc.StatusObject> }> = [];
  for (let c = 0; c < 3; c++) {
    const raw = new Pods(`unix:${server.socketPath}`, grpc.credentials.createInsecure(), { 'grpc.test-connection': c } as any);
    t.teardown(() => raw.close());
    for (let i = 0; i < 10; i++) {
      const stream = (raw as any).WatchPods({}, new grpc.Metadata(), { deadline: Date.now() + 30_000 }) as grpc.ClientReadableStream<any>;
      stream.on('error', () => undefined);
      const ended = new Promise<grpc.StatusObject>((resolve) => stream.on('status', resolve));
      await new Promise((resolve) => stream.once('data', resolve));
      stream.pause();
      streams.push({ conn: c, stream, ended });
    }
  }
  let peak = 0;
  for (let i = 0; i < 200; i++) {
    fake.set(pod('a', 'p-a', { metadata: { name: 'p-a', namespace: 'default', uid: 'a', annotations: { big: `${i}${big}` } } }));
    peak = Math.max(peak, server.watchPendingBytes);
  }
  t.ok(peak <= total, `watches held at most ${peak} bytes, within the total bound of ${total}`);
  t.ok(await client.list().then((r) => r.ok), 'other calls are answered meanwhile');
  const ends = await Promise.all(streams.map(({ stream, ended }) => {
    stream.on('data', () => undefined);
    stream.resume();
    return ended;
  }));
  t.ok(ends.every((e) => e.code === grpc.status.RESOURCE_EXHAUSTED), `every stream was cut with RESOURCE_EXHAUSTED: ${[...new Set(ends.map((e) => grpc.status[e.code]))].join(', ')}`);
  t.equal(server.watchPendingBytes, 0);
  // A reading watch is not cut by what others leave unread.
  const reader = (new Pods(`unix:${server.socketPath}`, grpc.credentials.createInsecure()) as any).WatchPods({}, new grpc.Metadata(), { deadline: Date.now() + 30_000 }) as grpc.ClientReadableStream<any>;
  let got = 0;
  reader.on('data', () => { got++; });
  reader.on('error', () => undefined);
  await until('the reading watch has its initial event', () => (got >= 1 ? true : undefined));
  // More than the bounds in all, at the pace the reader takes them.
  for (let i = 0; i < 40; i++) {
    fake.set(pod('a', 'p-a', { metadata: { name: 'p-a', namespace: 'default', uid: 'a', annotations: { big: `r${i}${big}` } } }));
    await until(`the reading watch gets event ${i + 2}`, () => (got >= i + 2 ? true : undefined));
  }
  reader.cancel();
});

t.test('hostile input: random metadata, message bytes and unknown methods get a gRPC status, never a crash', async (t) => {
  const { server } = await serve(t, [pod('a'), pod('b')]);
  const channel = new grpc.Client(`unix:${server.socketPath}`, grpc.credentials.createInsecure());
  t.teardown(() => channel.close());
  const identity = (b: Buffer) => b;
  const call = (method: string, body: Buffer, md: grpc.Metadata) => new Promise<number>((resolve) => {
    if (method.endsWith('WatchPods')) {
      const s = channel.makeServerStreamRequest(method, identity, identity, body, md, { deadline: Date.now() + 3000 });
      // A watch that streams is answering: its first event is enough.
      s.on('data', () => { resolve(grpc.status.OK); s.cancel(); });
      s.on('error', () => undefined);
      s.on('status', (st) => resolve(st.code));
      return;
    }
    channel.makeUnaryRequest(method, identity, identity, body, md, { deadline: Date.now() + 3000 }, (err) => resolve(err ? err.code : grpc.status.OK));
  });
  const methods = ['/v1alpha1.Pods/ListPods', '/v1alpha1.Pods/GetPod', '/v1alpha1.Pods/WatchPods', '/v1alpha1.Pods/Nope', '/other.Svc/ListPods'];
  const entry = fc.oneof(
    fc.tuple(fc.constant(FIELD_MASK_KEY), fc.oneof(fc.string({ maxLength: 200 }), fc.constantFrom('status.phase', 'metadata.name,status', 'spec.containers', ''))),
    fc.tuple(fc.constantFrom(`${FIELD_MASK_KEY}-bin`, 'x-other-bin'), fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a))),
    fc.tuple(fc.constantFrom(FIELD_MASK_KEY, 'x-big'), fc.integer({ min: 1, max: 40_000 }).map((n) => 'a'.repeat(n))),
    fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), fc.stringMatching(/^[ -~]{0,100}$/)),
  );
  const valid = new Set(Object.values(grpc.status).filter((v) => typeof v === 'number'));
  await fc.assert(fc.asyncProperty(
    fc.constantFrom(...methods),
    fc.oneof(fc.uint8Array({ maxLength: 64 * 1024 }).map((a) => Buffer.from(a)), fc.constant(Buffer.from([0x0a, 0x01, 0x61]))),
    fc.array(entry, { maxLength: 6 }),
    async (method, body, entries) => {
      const md = new grpc.Metadata();
      for (const [k, v] of entries) {
        try { md.add(k, v as any); } catch { /* a key grpc-js refuses to send */ }
      }
      const code = await call(method, body, md);
      return valid.has(code);
    },
  ), propertyRuns(150));
  // Still serving, and the good path is intact.
  const c = await podInfoClient(server.socketPath);
  t.teardown(() => c.close());
  const l = await c.list();
  t.ok(l.ok && l.pods.length === 2, 'the server answers after the hostile calls');
  t.match(await new Promise<number>((resolve) => channel.makeUnaryRequest('/v1alpha1.Pods/Nope', (b: Buffer) => b, (b: Buffer) => b, Buffer.alloc(0), new grpc.Metadata(), (err) => resolve(err?.code ?? 0))), grpc.status.UNIMPLEMENTED, 'unknown method: UNIMPLEMENTED');
});

t.test('the socket: 0600, a stale socket is replaced, a non-socket file refuses the start', async (t) => {
  const dir = tmp(t, 'pi-sock-');
  const path = join(dir, 'pods', 'agent.sock');
  mkdirSync(join(dir, 'pods'), { mode: 0o700 });
  // A socket file left by a process that died without removing it.
  const r = spawnSync(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => process.exit(0))`]);
  t.equal(r.status, 0);
  t.ok(statSync(path).isSocket(), 'a stale socket is there');
  const s = await startPodInfoServer({ socketPath: path, source: fakeSource([pod('a')]).source });
  t.equal(statSync(path).mode & 0o777, 0o600, 'owner-only');
  const c = await podInfoClient(path);
  t.ok((await c.list()).ok, 'served on the replaced socket');
  c.close();
  await s.close();
  t.throws(() => statSync(path), 'removed on close');
  writeFileSync(path, 'not a socket');
  await t.rejects(startPodInfoServer({ socketPath: path, source: fakeSource().source }), /exists and is not a socket/);
  mkdirSync(join(dir, 'open'), { mode: 0o755 });
  chmodSync(join(dir, 'open'), 0o755);
  await t.rejects(startPodInfoServer({ socketPath: join(dir, 'open', 'agent.sock'), source: fakeSource().source }), /open to others \(0755\); it must be owner-only/, 'a directory others can enter is refused');
});

async function agentSetup(t: any) {
  const ref = await startReference({ port: 0 });
  let refOpen = true;
  t.teardown(() => refOpen && ref.close());
  const dir = tmp(t, 'pi-agent-');
  const cri = await startMockCri({ socket: join(dir, 'cri.sock') });
  t.teardown(() => cri.close());
  const api = new ApiClient({ url: ref.url });
  t.teardown(() => api.close());
  const agent = await startAgent({ api: { url: ref.url }, criEndpoint: cri.criUrl, rootDir: join(dir, 'root'), nodeName: 'n1', relistPeriodMs: 100, log: () => {} });
  t.teardown(() => agent.close());
  const client = await podInfoClient(join(dir, 'root', 'pods', 'agent.sock'));
  t.teardown(() => client.close());
  const closeRef = async () => { refOpen = false; await ref.close(); };
  return { ref, cri, api, dir, agent, client, closeRef };
}

const listed = (c: PodInfoClient, uid: string, pred: (p: any) => boolean) => until(`pod ${uid} listed as expected`, async () => {
  const r = await c.list();
  const p = r.ok ? r.pods.find((x) => x.metadata?.uid === uid) : undefined;
  return p && pred(p) ? p : undefined;
});

t.test('the agent: its pods with the status it computed, watch events from the PLEG, pod info without the control plane', async (t) => {
  const { api, cri, client, dir, closeRef } = await agentSetup(t);
  t.equal(statSync(join(dir, 'root', 'pods')).mode & 0o777, 0o700, 'pods/ is private');
  t.equal(statSync(join(dir, 'root', 'pods', 'agent.sock')).mode & 0o777, 0o600, 'the socket is owner-only');
  const created = await api.create('/api/v1/namespaces/default/pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1', namespace: 'default' },
    spec: { nodeName: 'n1', restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'] }] },
  });
  const uid = created.metadata.uid;
  const running = await listed(client, uid, (p) => p.status?.phase === 'Running');
  t.match(running, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1', uid }, spec: { containers: [{ name: 'c' }] } });
  const w = client.watch({ mask: 'metadata.uid,status.containerStatuses' });
  const first = await w.next(3000);
  t.match(first, { event: { type: 'ADDED', pod: { metadata: { uid } } } });
  // The control plane goes away; the agent still knows its pod and what the runtime says of it.
  await closeRef();
  const id = (cri.control.state().containers as any[]).find((c) => c.state === 'CONTAINER_RUNNING').id;
  cri.control.exitContainer(id, 7);
  let terminated: any;
  for (let i = 0; i < 20 && !terminated; i++) {
    const n = await w.next(3000);
    if (n && 'event' in n && n.event.pod.status?.containerStatuses?.[0]?.state?.terminated) terminated = n.event;
  }
  t.match(terminated, { type: 'MODIFIED', pod: { status: { containerStatuses: [{ state: { terminated: { exitCode: 7 } } }] } } }, 'the exit reaches watchers from the PLEG, with the API gone');
  const after = await listed(client, uid, (p) => p.status?.phase === 'Failed');
  t.equal(after.status.containerStatuses[0].state.terminated.exitCode, 7, 'ListPods serves the status the agent computed, not the API\'s copy');
  const g = await client.get(uid);
  t.ok(g.ok && g.pod.status.phase === 'Failed', 'GetPod too');
});

t.test('the agent: a deleted pod is DELETED on the watch and gone from the list', async (t) => {
  const { api, client } = await agentSetup(t);
  const created = await api.create('/api/v1/namespaces/default/pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p2', namespace: 'default' },
    spec: { nodeName: 'n1', terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'] }] },
  });
  const uid = created.metadata.uid;
  await listed(client, uid, (p) => p.status?.phase === 'Running');
  const w = client.watch({ mask: 'metadata.uid' });
  await api.delete('/api/v1/namespaces/default/pods/p2', { gracePeriodSeconds: 0 });
  let deleted = false;
  for (let i = 0; i < 50 && !deleted; i++) {
    const n = await w.next(3000);
    if (!n) break;
    if ('event' in n && n.event.type === 'DELETED' && n.event.pod.metadata.uid === uid) deleted = true;
  }
  t.ok(deleted, 'DELETED event');
  const l = await client.list();
  t.ok(l.ok && !l.pods.some((p) => p.metadata.uid === uid), 'no longer listed');
});

t.test('a file at the socket\'s path refuses the agent\'s start, saying so', async (t) => {
  const dir = tmp(t, 'pi-refuse-');
  const cri = await startMockCri({ socket: join(dir, 'cri.sock') });
  t.teardown(() => cri.close());
  mkdirSync(join(dir, 'root', 'pods'), { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'root', 'pods', 'agent.sock'), 'x');
  await t.rejects(startAgent({ criEndpoint: cri.criUrl, rootDir: join(dir, 'root'), nodeName: 'n1', log: () => {} }), /cannot serve the pod info socket .*exists and is not a socket/);
});
