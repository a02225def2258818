// Fault injection and the call log of the mock CRI runtime (mocks/cri/faults.ts), in-process.
import t from 'tap';
import {
  CALL_LOG_CAPACITY,
  CALL_LOG_MAX_BYTES,
  CRI_RPCS,
  CallLog,
  FaultSpecError,
  Faults,
  IMAGE_SERVICE_RPCS,
  RUNTIME_SERVICE_RPCS,
  criServiceOf,
  type FaultSpec,
} from '../../../mocks/cri/faults.js';
import { rfc3339Nano } from '../../../mocks/cri/clock.js';
import { loadCri } from '../../../cri/proto.js';

const UNAVAILABLE = 14;
const INTERNAL = 13;
const NOT_FOUND = 5;
const CANCELLED = 1;

/** A promise's state without waiting for it: settled promises resolve before a macrotask runs. */
async function isPending(p: Promise<unknown>): Promise<boolean> {
  const marker = Symbol('pending');
  const winner = await Promise.race([p, new Promise((r) => setImmediate(() => r(marker)))]);
  return winner === marker;
}

t.test('CRI_RPCS names exactly the methods of both services in api.proto', async (t) => {
  const d = loadCri();
  t.same([...RUNTIME_SERVICE_RPCS].sort(), Object.keys(d.RuntimeService.service).sort(), 'RuntimeService');
  t.same([...IMAGE_SERVICE_RPCS].sort(), Object.keys(d.ImageService.service).sort(), 'ImageService');
  t.equal(CRI_RPCS.length, RUNTIME_SERVICE_RPCS.length + IMAGE_SERVICE_RPCS.length);
  t.equal(criServiceOf('PullImage'), 'ImageService');
  t.equal(criServiceOf('CheckpointContainer'), 'RuntimeService');
  t.equal(criServiceOf('checkpointcontainer'), undefined, 'names are case-sensitive');
});

t.test('a fault spec is validated field by field', async (t) => {
  const f = new Faults();
  const bad: [unknown, RegExp][] = [
    [null, /JSON object/],
    [[{ rpc: 'Version', code: 2 }], /JSON object/],
    [{ code: 2 }, /"rpc" must be a non-empty string/],
    [{ rpc: '', code: 2 }, /"rpc" must be a non-empty string/],
    [{ rpc: 'Nope', code: 2 }, /"Nope" is not an RPC/],
    [{ rpc: 'Version', code: 17 }, /"code" must be a gRPC status code/],
    [{ rpc: 'Version', code: -1 }, /"code"/],
    [{ rpc: 'Version', code: 2.5 }, /"code"/],
    [{ rpc: 'Version', code: '14' }, /"code"/],
    [{ rpc: 'Version', delayMs: -5 }, /"delayMs" must be an integer/],
    [{ rpc: 'Version', delayMs: 600_001 }, /"delayMs"/],
    [{ rpc: 'Version', delayMs: 1.5 }, /"delayMs"/],
    [{ rpc: 'Version', code: 2, times: 0 }, /"times" must be an integer 1\.\./],
    [{ rpc: 'Version', code: 2, times: 2_000_000 }, /"times"/],
    [{ rpc: 'Version', code: 2, times: '1' }, /"times"/],
    [{ rpc: 'Version', hang: 'yes' }, /"hang" must be a boolean/],
    [{ rpc: 'Version', hang: true, code: 14 }, /"hang" excludes "code"/],
    [{ rpc: 'Version', hang: true, delayMs: 10 }, /"hang" excludes/],
    [{ rpc: 'Version' }, /needs "code", "delayMs" or "hang"/],
    [{ rpc: 'Version', hang: false }, /needs "code", "delayMs" or "hang"/],
    [{ rpc: 'Version', message: 'x', delayMs: 1 }, /"message" needs "code"/],
    [{ rpc: 'Version', code: 2, message: 7 }, /"message" must be a string/],
    [{ rpc: 'Version', code: 2, message: 'x'.repeat(5000) }, /longer than/],
    [{ rpc: 'Version', code: 2, extra: 1 }, /unknown fault field "extra"/],
  ];
  for (const [spec, msg] of bad) {
    t.throws(() => f.add(spec as FaultSpec), { name: 'FaultSpecError', message: msg }, JSON.stringify(spec)?.slice(0, 80));
  }
  t.ok(new FaultSpecError('x') instanceof Error);
  t.same(f.list(), [], 'no refused spec was activated');
});

t.test('code: the RPC is answered with the status and message', async (t) => {
  const f = new Faults();
  const a = f.add({ rpc: 'CheckpointContainer', code: 12, message: 'no CRIU here' });
  t.match(a, { id: /^fault-\d+$/, rpc: 'CheckpointContainer', code: 12, message: 'no CRIU here' });
  t.notOk('remaining' in a, 'no remaining count without times');
  const signal = new AbortController().signal;
  t.same(await f.before('CheckpointContainer', signal), { code: 12, message: 'no CRIU here' });
  t.same(await f.before('CheckpointContainer', signal), { code: 12, message: 'no CRIU here' }, 'every call until cleared');
  t.equal(await f.before('Version', signal), undefined, 'other RPCs are untouched');
  f.add({ rpc: 'Status', code: UNAVAILABLE });
  const r = await f.before('Status', signal);
  t.equal(r?.code, UNAVAILABLE);
  t.match(r?.message, /UNAVAILABLE/, 'a default message names the status');
  f.add({ rpc: 'Version', code: 0, delayMs: 1 });
  t.equal(await f.before('Version', signal), undefined, 'code 0 (OK) answers normally');
});

t.test('delay: the answer comes late, normally or with the code', async (t) => {
  const f = new Faults();
  const signal = new AbortController().signal;
  f.add({ rpc: 'ListContainers', delayMs: 60, times: 1 });
  let start = performance.now();
  t.equal(await f.before('ListContainers', signal), undefined);
  t.ok(performance.now() - start >= 55, `delayed ${Math.round(performance.now() - start)} ms`);
  f.add({ rpc: 'ListContainers', delayMs: 40, code: INTERNAL, times: 1 });
  start = performance.now();
  t.equal((await f.before('ListContainers', signal))?.code, INTERNAL);
  t.ok(performance.now() - start >= 35, 'the error comes after the delay');
  t.same(f.list(), [], 'both faults used up');
  t.equal(await f.before('ListContainers', signal), undefined, 'answered normally once they are gone');
});

t.test('a delay ends early when the client cancels', async (t) => {
  const f = new Faults();
  f.add({ rpc: 'PullImage', delayMs: 60_000 });
  const ac = new AbortController();
  const p = f.before('PullImage', ac.signal);
  t.ok(await isPending(p));
  const start = performance.now();
  ac.abort();
  t.equal((await p)?.code, CANCELLED);
  t.ok(performance.now() - start < 1000);
});

t.test('hang: no answer until the client cancels', async (t) => {
  const f = new Faults();
  f.add({ rpc: 'ListPodSandboxMetrics', hang: true });
  const ac = new AbortController();
  const p = f.before('ListPodSandboxMetrics', ac.signal);
  // Let timers run for a while: a hung call must still be pending.
  await new Promise((r) => setTimeout(r, 50));
  t.ok(await isPending(p), 'still pending');
  f.clear();
  t.ok(await isPending(p), 'clearing faults does not answer a call already held');
  ac.abort();
  t.match(await p, { code: CANCELLED, message: /cancelled/ });
  const done = new AbortController();
  done.abort();
  f.add({ rpc: 'ListPodSandboxMetrics', hang: true });
  t.equal((await f.before('ListPodSandboxMetrics', done.signal))?.code, CANCELLED, 'an already-cancelled call is released at once');
});

t.test('times: the next N calls only, then the fault is gone', async (t) => {
  const f = new Faults();
  const signal = new AbortController().signal;
  const a = f.add({ rpc: 'RunPodSandbox', code: NOT_FOUND, times: 2 });
  t.equal(a.remaining, 2);
  t.equal((await f.before('RunPodSandbox', signal))?.code, NOT_FOUND);
  t.equal(f.list()[0]?.remaining, 1);
  t.equal((await f.before('RunPodSandbox', signal))?.code, NOT_FOUND);
  t.same(f.list(), [], 'removed after its last call');
  t.equal(await f.before('RunPodSandbox', signal), undefined);
});

t.test('several faults on one RPC apply first added first', async (t) => {
  const f = new Faults();
  const signal = new AbortController().signal;
  const first = f.add({ rpc: 'StartContainer', code: UNAVAILABLE, times: 1 });
  const second = f.add({ rpc: 'StartContainer', code: INTERNAL, times: 2 });
  const third = f.add({ rpc: 'StartContainer', code: NOT_FOUND });
  f.add({ rpc: 'StopContainer', code: 2 });
  t.same(f.list().map((x) => x.id).slice(0, 3), [first.id, second.id, third.id], 'list in the order added');
  const codes = [];
  for (let i = 0; i < 5; i++) codes.push((await f.before('StartContainer', signal))?.code);
  t.same(codes, [UNAVAILABLE, INTERNAL, INTERNAL, NOT_FOUND, NOT_FOUND]);
  f.clear('StartContainer');
  t.same(f.list().map((x) => x.rpc), ['StopContainer'], 'clear(rpc) keeps the other RPCs');
  f.clear();
  t.same(f.list(), []);
});

t.test('list() hands out copies', async (t) => {
  const f = new Faults();
  f.add({ rpc: 'Version', code: 2, times: 3 });
  const copy = f.list()[0]!;
  copy.remaining = 0;
  copy.code = 99;
  t.match(f.list()[0], { remaining: 3, code: 2 });
});

t.test('rfc3339Nano formats like Go', async (t) => {
  t.equal(rfc3339Nano(1_700_000_000_123_456_789n), '2023-11-14T22:13:20.123456789Z');
  t.equal(rfc3339Nano(1_700_000_000_120_000_000n), '2023-11-14T22:13:20.12Z', 'trailing zeros dropped');
  t.equal(rfc3339Nano(1_700_000_000_000_000_000n), '2023-11-14T22:13:20Z', 'no fraction when whole');
});

t.test('the call log records every call in order with its request', async (t) => {
  const log = new CallLog();
  log.record('RuntimeService', 'Version', { version: '0.1.0' });
  log.record('ImageService', 'PullImage', { image: { image: 'busybox' } });
  log.record('RuntimeService', 'ListContainers', {});
  const all = log.list();
  t.same(all.map((r) => [r.seq, r.service, r.rpc]), [
    [1, 'RuntimeService', 'Version'],
    [2, 'ImageService', 'PullImage'],
    [3, 'RuntimeService', 'ListContainers'],
  ]);
  t.same(all[1]!.request, { image: { image: 'busybox' } });
  for (const r of all) t.match(r.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/);
  const times = all.map((r) => Date.parse(r.time));
  t.ok(times.every((x, i) => i === 0 || x >= times[i - 1]!), 'times do not go back');
  t.same(log.list({ rpc: 'PullImage' }).map((r) => r.seq), [2]);
  t.same(log.list({ since: 1 }).map((r) => r.seq), [2, 3]);
  t.same(log.list({ since: 1, rpc: 'Version' }), []);
  log.clear();
  t.same(log.list(), []);
  log.record('RuntimeService', 'Status', {});
  t.equal(log.list()[0]!.seq, 4, 'seq goes on after a clear');
  t.equal(log.lastSeq, 4);
});

t.test('the call log keeps at most 64 MiB of requests: the oldest go, counted', async (t) => {
  const log = new CallLog();
  t.equal(log.maxBytes, CALL_LOG_MAX_BYTES);
  t.equal(CALL_LOG_MAX_BYTES, 64 * 1024 * 1024);
  // One shared string: the test holds 900 KB, the log counts 100 records of it.
  const blob = 'b'.repeat(900_000);
  for (let i = 1; i <= 100; i++) log.record('RuntimeService', 'CreateContainer', { i, config: { annotations: { blob } } });
  t.ok(log.keptBytes <= CALL_LOG_MAX_BYTES, `kept ${log.keptBytes} bytes`);
  const kept = log.list();
  t.equal(kept.length + log.dropped, 100, 'kept or dropped, every one');
  t.ok(log.dropped >= 25, `dropped ${log.dropped}`);
  t.equal(kept.at(-1)!.seq, 100, 'the newest is kept');
  // A request over the per-record cap (1 MiB) is kept cut: bytes fields too.
  log.record('RuntimeService', 'CreateContainer', { config: { envs: [{ key: 'K', value: Buffer.alloc(2 * 1024 * 1024, 1) }] } });
  const big = log.list().at(-1)!;
  t.ok(big.truncatedFrom! > 2 * 1024 * 1024, 'the full size is given');
  t.equal((big.request as any).config.envs[0].value.length, 4096, 'the bytes are cut');
  log.clear();
  t.equal(log.keptBytes, 0);
  t.throws(() => new CallLog(10, 0), RangeError);
  t.throws(() => new CallLog(10, 100, 200), RangeError, 'a record cannot be allowed more than the log');
});

t.test('the call log keeps the last 10,000 records', async (t) => {
  const log = new CallLog();
  t.equal(log.capacity, CALL_LOG_CAPACITY);
  t.equal(CALL_LOG_CAPACITY, 10_000);
  const n = CALL_LOG_CAPACITY + 25;
  for (let i = 1; i <= n; i++) log.record('RuntimeService', i % 2 ? 'ContainerStatus' : 'ListContainers', { i });
  const all = log.list();
  t.equal(all.length, CALL_LOG_CAPACITY);
  t.equal(all[0]!.seq, 26, 'the oldest were dropped');
  t.equal(all.at(-1)!.seq, n);
  t.ok(all.every((r, i) => i === 0 || r.seq === all[i - 1]!.seq + 1), 'contiguous and in order');
  t.equal(log.list({ since: n - 3 }).length, 3);
  t.throws(() => new CallLog(0), RangeError);
});
