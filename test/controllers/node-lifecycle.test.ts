// The node lifecycle and taint eviction controllers (controllers.md §3), driven through the API of a
// reference that runs only them with short periods: silent nodes turn Unknown (Lease renewals count
// as heartbeats), NoSchedule taints follow the conditions, NoExecute taints come per zone through the
// rate limiter and stop in full disruption, pods on a node gone silent are marked not ready, and pods
// on NoExecute-tainted nodes are evicted unless (or until) they tolerate it.
import t from 'tap';
import { startReference } from '../../reference/server.js';
import { ApiClient, ApiError } from '../../reference/client/api-client.js';
import type { ControllerSettings } from '../../reference/controllers/controller.js';

const NODES = '/api/v1/nodes';
const LEASES = '/apis/coordination.orch.io/v1/namespaces/node-lease/leases';
const PODS = '/api/v1/namespaces/default/pods';
const NOT_READY = 'node.orch.io/not-ready';
const UNREACHABLE = 'node.orch.io/unreachable';

const FAST: Partial<ControllerSettings> = { nodeMonitorGracePeriodMs: 1_000, nodeMonitorPeriodMs: 100, nodeStartupGracePeriodMs: 1_500, nodeEvictionRate: 100 };

async function setup(t: { teardown(fn: () => unknown): void }, o: { settings?: Partial<ControllerSettings>; breaks?: string[] } = {}) {
  const ref = await startReference({
    scheduler: false,
    controllerManager: { controllers: ['node-lifecycle-controller', 'taint-eviction-controller'], settings: { ...FAST, ...o.settings }, breaks: new Set(o.breaks ?? []) },
  });
  const c = new ApiClient({ url: ref.url });
  const beats: Array<() => void> = [];
  t.teardown(async () => { for (const stop of beats) stop(); c.close(); await ref.close(); });
  return { c, beats };
}

const sec = (ms = Date.now()) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const micro = (ms = Date.now()) => new Date(ms).toISOString().replace(/Z$/, '000Z');
const cond = (o: any, type: string) => (o?.status?.conditions ?? []).find((x: any) => x.type === type);
const taints = (o: any): string[] => (o?.spec?.taints ?? []).map((x: any) => `${x.key}:${x.effect}`).sort();

let seq = 0;
interface Opts { ready?: 'True' | 'False'; zone?: string; extra?: Array<[string, string]>; unschedulable?: boolean; noStatus?: boolean }
const conditions = (o: Opts) => [...(o.extra ?? []), ['Ready', o.ready ?? 'True']].map(([type, status]) => ({ type, status, reason: 'Test', message: 'test', lastHeartbeatTime: sec(), lastTransitionTime: sec(0) }));

/** A node (with its Lease); `beat()` renews both, `every(ms)` keeps doing so (stopped at teardown). */
async function node(c: ApiClient, beats: Array<() => void>, o: Opts = {}) {
  const name = `n${seq++}`;
  const n = await c.create(NODES, {
    apiVersion: 'v1', kind: 'Node',
    metadata: { name, labels: o.zone ? { 'topology.orch.io/zone': o.zone } : {} },
    spec: { unschedulable: o.unschedulable },
    ...(o.noStatus ? {} : { status: { conditions: conditions(o) } }),
  });
  await c.create(LEASES, { apiVersion: 'coordination.orch.io/v1', kind: 'Lease', metadata: { name }, spec: { holderIdentity: name, renewTime: micro() } });
  const path = `${NODES}/${name}`;
  let status = o;
  const api = {
    name, path, created: n,
    async beat(which: { status?: boolean; lease?: boolean } = { status: true, lease: true }) {
      if (which.status) await c.patchStatus(path, { status: { conditions: conditions(status) } });
      if (which.lease) await c.patch(`${LEASES}/${name}`, { spec: { renewTime: micro() } });
    },
    set(next: Opts) { status = { ...status, ...next }; },
    every(ms: number, which?: { status?: boolean; lease?: boolean }) {
      const timer = setInterval(() => { void api.beat(which).catch(() => undefined); }, ms);
      const stop = () => clearInterval(timer);
      beats.push(stop);
      return stop;
    },
  };
  return api;
}

/** Polls `get` until `pred` holds (10 s at most); gives the last value. */
async function until<T>(get: () => Promise<T>, pred: (v: T) => boolean, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  for (;;) {
    try { last = await get(); if (pred(last)) return last; } catch (err) { if (!(err instanceof ApiError && err.status === 404)) throw err; }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Checks `pred` keeps holding for `ms`. */
async function holds<T>(get: () => Promise<T>, pred: (v: T) => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!pred(await get())) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

// Deleted: gone, or marked for deletion (a pod bound to a node is deleted gracefully, and no agent
// runs these nodes to finish it).
const gone = async (c: ApiClient, path: string) => c.get(path).then((o: any) => !!o?.metadata?.deletionTimestamp, (e) => e instanceof ApiError && e.status === 404);

t.test('a silent node turns Unknown: upstream reasons, missing conditions added, NetworkUnavailable kept, events', async (t) => {
  const { c, beats } = await setup(t);
  const n = await node(c, beats, { extra: [['MemoryPressure', 'False'], ['NetworkUnavailable', 'False']] });
  const got = await until(() => c.get(n.path), (o) => cond(o, 'Ready')?.status === 'Unknown', 'Ready Unknown');
  t.match(cond(got, 'Ready'), { status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Agent stopped posting node status.' });
  t.match(cond(got, 'MemoryPressure'), { status: 'Unknown', reason: 'NodeStatusUnknown' });
  t.match(cond(got, 'DiskPressure'), { status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Agent never posted node status.' });
  t.match(cond(got, 'PIDPressure'), { status: 'Unknown', reason: 'NodeStatusNeverUpdated' });
  t.match(cond(got, 'NetworkUnavailable'), { status: 'False', reason: 'Test' });
  t.equal(cond(got, 'Ready').lastHeartbeatTime, cond(n.created, 'Ready').lastHeartbeatTime, 'lastHeartbeatTime kept');
  const events = await until(() => c.list('/apis/events.orch.io/v1/namespaces/default/events'), (l) => ['RegisteredNode', 'NodeNotReady'].every((r) => l.items.some((e: any) => e.reason === r && e.regarding?.name === n.name)), 'node events');
  t.ok(events.items.some((e: any) => e.reason === 'NodeNotReady' && e.note === `Node ${n.name} status is now: NodeNotReady`), 'NodeNotReady event');
  await c.delete(n.path);
  await until(() => c.list('/apis/events.orch.io/v1/namespaces/default/events'), (l) => l.items.some((e: any) => e.reason === 'RemovingNode' && e.regarding?.name === n.name), 'RemovingNode event');
});

t.test('a node that never posted status is Unknown after the startup grace period', async (t) => {
  const { c, beats } = await setup(t, { settings: { nodeStartupGracePeriodMs: 800 } });
  const n = await node(c, beats, { noStatus: true });
  // Its Lease was created once; without renewals it stops counting.
  const got = await until(() => c.get(n.path), (o) => cond(o, 'Ready')?.status === 'Unknown', 'Ready Unknown');
  t.match(cond(got, 'Ready'), { reason: 'NodeStatusNeverUpdated', message: 'Agent never posted node status.', lastHeartbeatTime: got.metadata.creationTimestamp });
});

t.test('status heartbeats or Lease renewals alone keep a node Ready', async (t) => {
  const { c, beats } = await setup(t);
  const byStatus = await node(c, beats);
  const byLease = await node(c, beats);
  const idle = await node(c, beats);
  byStatus.every(1_000, { status: true });
  byLease.every(200, { lease: true });
  await until(() => c.get(idle.path), (o) => cond(o, 'Ready')?.status === 'Unknown', 'the idle node Unknown');
  t.ok(await holds(() => c.get(byLease.path), (o) => cond(o, 'Ready')?.status === 'True', 2_000), 'Lease renewals keep it Ready');
  t.equal(cond(await c.get(byStatus.path), 'Ready')?.status, 'True', 'status heartbeats keep it Ready');
});

t.test('ignore-lease break: Lease renewals do not count', async (t) => {
  const { c, beats } = await setup(t, { breaks: ['node-lifecycle.ignore-lease'] });
  const n = await node(c, beats);
  n.every(200, { lease: true });
  await until(() => c.get(n.path), (o) => cond(o, 'Ready')?.status === 'Unknown', 'Unknown despite the Lease');
  t.pass();
});

t.test('NoSchedule taints follow the conditions and spec.unschedulable, and go when they clear', async (t) => {
  const { c, beats } = await setup(t);
  const n = await node(c, beats, { extra: [['MemoryPressure', 'True'], ['DiskPressure', 'True'], ['PIDPressure', 'True'], ['NetworkUnavailable', 'True']], unschedulable: true });
  n.every(200);
  const want = ['memory-pressure', 'disk-pressure', 'pid-pressure', 'network-unavailable', 'unschedulable'].map((k) => `node.orch.io/${k}:NoSchedule`).sort();
  const got = await until(() => c.get(n.path), (o) => want.every((x) => taints(o).includes(x)), 'the condition taints');
  t.ok(got.spec.taints.every((x: any) => typeof x.timeAdded === 'string'), 'timeAdded stamped');
  n.set({ extra: [['MemoryPressure', 'False'], ['DiskPressure', 'False'], ['PIDPressure', 'False'], ['NetworkUnavailable', 'False']] });
  await c.patch(n.path, { spec: { unschedulable: false } });
  await until(() => c.get(n.path), (o) => taints(o).length === 0, 'no taints left');
  t.pass();
});

t.test('NoExecute: not-ready for Ready False, swapped for unreachable once silent, all removed when Ready again', async (t) => {
  const { c, beats } = await setup(t);
  const w = await node(c, beats, { zone: 'a' });
  w.every(200);
  const n = await node(c, beats, { zone: 'a', ready: 'False' });
  const stop = n.every(200);
  await until(() => c.get(n.path), (o) => taints(o).join() === [`${NOT_READY}:NoExecute`, `${NOT_READY}:NoSchedule`].join(), 'not-ready, both effects');
  stop();
  await until(() => c.get(n.path), (o) => taints(o).join() === [`${UNREACHABLE}:NoExecute`, `${UNREACHABLE}:NoSchedule`].join(), 'swapped for unreachable');
  n.set({ ready: 'True' });
  n.every(200);
  await until(() => c.get(n.path), (o) => taints(o).length === 0 && cond(o, 'Ready')?.status === 'True', 'taints removed');
  t.pass();
});

t.test('full disruption: no Ready node anywhere, no NoExecute taints until one is Ready again', async (t) => {
  const { c, beats } = await setup(t);
  const n = await node(c, beats, { zone: 'x' });
  await until(() => c.get(n.path), (o) => taints(o).includes(`${UNREACHABLE}:NoSchedule`), 'unreachable NoSchedule');
  t.ok(await holds(() => c.get(n.path), (o) => !taints(o).includes(`${UNREACHABLE}:NoExecute`), 1_000), 'no NoExecute taint while every node is down');
  // A Ready node in the same zone ends the disruption (upstream: a new zone would not, the old
  // one's limiter stays off until its own state changes).
  const w = await node(c, beats, { zone: 'x' });
  w.every(200);
  await until(() => c.get(n.path), (o) => taints(o).includes(`${UNREACHABLE}:NoExecute`), 'NoExecute once another node is Ready');
  t.pass();
});

t.test('the per-zone rate limit spaces NoExecute taints (upstream token bucket, burst 1)', async (t) => {
  const { c, beats } = await setup(t, { settings: { nodeEvictionRate: 0.5 } });
  for (let i = 0; i < 2; i++) (await node(c, beats, { zone: 'r' })).every(200);
  const a = await node(c, beats, { zone: 'r', ready: 'False' });
  const b = await node(c, beats, { zone: 'r', ready: 'False' });
  a.every(200);
  b.every(200);
  const tainted = async () => (await Promise.all([a, b].map((x) => c.get(x.path)))).filter((o) => taints(o).includes(`${NOT_READY}:NoExecute`)).length;
  await until(tainted, (k) => k >= 1, 'the first NoExecute taint');
  const first = Date.now();
  await until(tainted, (k) => k === 2, 'the second NoExecute taint');
  t.ok(Date.now() - first >= 1_200, `the second came ${Date.now() - first} ms after the first (0.5 nodes/s)`);
});

t.test('pods on a node that goes silent are marked not Ready', async (t) => {
  const { c, beats } = await setup(t);
  const n = await node(c, beats);
  const stop = n.every(200);
  const tolerate = [NOT_READY, UNREACHABLE].map((key) => ({ key, operator: 'Exists', effect: 'NoExecute' }));
  const p = await c.create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${seq++}` }, spec: { nodeName: n.name, containers: [{ name: 'c', image: 'img' }], tolerations: tolerate } });
  await c.updateStatus(`${PODS}/${p.metadata.name}`, { ...p, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: sec() }] } });
  stop();
  const got = await until(() => c.get(`${PODS}/${p.metadata.name}`), (o) => cond(o, 'Ready')?.status === 'False', 'the pod not Ready');
  t.equal(got.status.phase, 'Running', 'only the condition changes');
});

t.test('taint eviction: untolerated at once with DisruptionTarget, tolerationSeconds later, tolerated stays, removed taint cancels', async (t) => {
  const { c, beats } = await setup(t);
  const n = await node(c, beats);
  n.every(200);
  const taint = { key: 'test.example.com/evict', effect: 'NoExecute' };
  const mk = async (tolerations: unknown[]) => c.create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${seq++}` }, spec: { nodeName: n.name, containers: [{ name: 'c', image: 'img' }], tolerations } });
  const untolerated = await mk([]);
  const oneSecond = await mk([{ ...taint, operator: 'Exists', tolerationSeconds: 1 }]);
  const forever = await mk([{ ...taint, operator: 'Exists' }]);
  const cancelled = await mk([{ ...taint, operator: 'Exists', tolerationSeconds: 2 }]);
  // 34.7 days: past what one Node timer waits (about 24.8 days; a longer delay fires after 1 ms).
  const longWait = await mk([{ ...taint, operator: 'Exists', tolerationSeconds: 3_000_000 }]);
  const seen: any[] = [];
  const w = c.watch(PODS, { onList: () => undefined, onEvent: (ev) => seen.push(ev) });
  await w.synced;
  t.teardown(() => w.stop());
  const path = (p: any) => `${PODS}/${p.metadata.name}`;
  await c.patch(n.path, { spec: { taints: [taint] } });
  const tainted = Date.now();
  await until(() => gone(c, path(untolerated)), (x) => x, 'the untolerated pod evicted');
  const marked = seen.find((ev) => ev.type === 'MODIFIED' && ev.object.metadata.name === untolerated.metadata.name && cond(ev.object, 'DisruptionTarget'));
  t.match(cond(marked?.object, 'DisruptionTarget'), { status: 'True', reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint' }, 'DisruptionTarget before the deletion');
  await until(() => gone(c, path(oneSecond)), (x) => x, 'the 1 s pod evicted');
  t.ok(Date.now() - tainted >= 900, 'not before its second');
  t.notOk(await gone(c, path(longWait)), 'a toleration longer than one timer reaches is not due at once');
  // The taint goes before the 2 s pod's time is up: its deletion is cancelled.
  await c.patch(n.path, { spec: { taints: null } });
  t.ok(await holds(async () => !(await gone(c, path(cancelled))) && !(await gone(c, path(forever))), (x) => x, 2_500), 'the tolerated pod and the one whose taint went stay');
  const events = await c.list('/apis/events.orch.io/v1/namespaces/default/events');
  t.ok(events.items.some((e: any) => e.reason === 'TaintManagerEviction' && e.note === `Marking for deletion Pod default/${untolerated.metadata.name}`), 'TaintManagerEviction event');
});

t.test('taint eviction breaks: ignore-tolerations evicts tolerated pods; no-eviction evicts nothing', async (t) => {
  for (const [brk, expectGone] of [['taint-eviction.ignore-tolerations', true], ['taint-eviction.no-eviction', false]] as const) {
    const { c, beats } = await setup(t, { breaks: [brk] });
    const n = await node(c, beats);
    n.every(200);
    const taint = { key: 'test.example.com/evict', effect: 'NoExecute' };
    const p = await c.create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${seq++}` }, spec: { nodeName: n.name, containers: [{ name: 'c', image: 'img' }], tolerations: expectGone ? [{ ...taint, operator: 'Exists' }] : [] } });
    await c.patch(n.path, { spec: { taints: [taint] } });
    if (expectGone) await until(() => gone(c, `${PODS}/${p.metadata.name}`), (x) => x, `${brk}: evicted`);
    else t.ok(await holds(async () => !(await gone(c, `${PODS}/${p.metadata.name}`)), (x) => x, 1_000), `${brk}: stays`);
  }
  t.pass();
});
