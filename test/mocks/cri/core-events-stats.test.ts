// GetContainerEvents as things happen, container and sandbox stats, metrics (and their switch), and
// CheckpointContainer (archive, errors, the runtime without the API, the timeout).
import t, { type Test } from 'tap';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { list as tarList } from 'tar';
import { startMockCri } from '../../../mocks/cri/server.js';
import type { CriClient } from '../../../cri/proto.js';
import { CHECKPOINT_ENTRIES } from '../../../mocks/cri/checkpoint.js';
import { failure, startCri } from './helpers.js';

const start = (t: Test, starter: typeof startMockCri = startMockCri) => startCri(t, {}, starter);

async function runPod(c: CriClient, name: string, labels: Record<string, string> = {}): Promise<string> {
  return (await c.call('RunPodSandbox', { config: { metadata: { name, uid: `uid-${name}`, namespace: 'team', attempt: 0 }, labels } })).pod_sandbox_id;
}

async function startContainer(c: CriClient, sb: string, name: string, command: string[] = ['sleep', 'infinity'], labels: Record<string, string> = {}): Promise<string> {
  const id = (await c.call('CreateContainer', { pod_sandbox_id: sb, config: { metadata: { name }, image: { image: 'busybox' }, command, labels } })).container_id;
  await c.call('StartContainer', { container_id: id });
  return id;
}

/** Collects events from a GetContainerEvents stream; `until` resolves when `n` have come (bounded). */
async function subscribe(t: Test, c: CriClient) {
  const stream = c.stream('GetContainerEvents', {});
  const events: any[] = [];
  let waiters: (() => void)[] = [];
  stream.on('data', (e) => { events.push(e); waiters.forEach((w) => w()); });
  stream.on('error', () => { /* cancelled at the end */ });
  t.teardown(() => stream.cancel());
  await new Promise((resolve) => stream.once('metadata', resolve)); // subscribed
  return {
    events,
    async until(n: number, ms = 3000) {
      const deadline = Date.now() + ms;
      while (events.length < n) {
        if (Date.now() > deadline) throw new Error(`${events.length} events after ${ms} ms, wanted ${n}`);
        await new Promise<void>((r) => { waiters.push(r); setTimeout(r, 50); });
        waiters = [];
      }
      return events;
    },
  };
}

t.test('GetContainerEvents streams each lifecycle step as it happens, with the sandbox and container statuses', async (t) => {
  const { c } = await start(t);
  const sub = await subscribe(t, c);
  const sb = await runPod(c, 'ev');
  const id = await startContainer(c, sb, 'short', ['sh', '-c', 'sleep 0.05; exit 2']);
  await sub.until(5); // sandbox created+started, container created+started+stopped
  await c.call('RemovePodSandbox', { pod_sandbox_id: sb });
  const events = await sub.until(8);
  t.same(events.map((e) => [e.container_id === sb ? 'sandbox' : e.container_id === id ? 'container' : '?', e.container_event_type]), [
    ['sandbox', 'CONTAINER_CREATED_EVENT'],
    ['sandbox', 'CONTAINER_STARTED_EVENT'],
    ['container', 'CONTAINER_CREATED_EVENT'],
    ['container', 'CONTAINER_STARTED_EVENT'],
    ['container', 'CONTAINER_STOPPED_EVENT'],
    // RemovePodSandbox stops the sandbox first, then removes its containers, then itself.
    ['sandbox', 'CONTAINER_STOPPED_EVENT'],
    ['container', 'CONTAINER_DELETED_EVENT'],
    ['sandbox', 'CONTAINER_DELETED_EVENT'],
  ]);
  const stopped = events[4];
  t.match(stopped.created_at, /^\d{19}$/);
  t.equal(stopped.pod_sandbox_status.id, sb);
  t.equal(stopped.pod_sandbox_status.state, 'SANDBOX_READY');
  t.match(stopped.containers_statuses, [{ id, state: 'CONTAINER_EXITED', exit_code: 2, reason: 'Error' }]);
  const times = events.map((e) => BigInt(e.created_at));
  t.ok(times.every((x, i) => i === 0 || x >= times[i - 1]), 'in time order');
  t.equal(events[7].pod_sandbox_status.state, 'SANDBOX_NOTREADY');

  // A second subscriber sees only what happens after it subscribed.
  const late = await subscribe(t, c);
  const sb2 = await runPod(c, 'late');
  await late.until(2);
  t.same(late.events.map((e) => e.container_id), [sb2, sb2]);
});

t.test('control exits and OOM kills show as CONTAINER_STOPPED events', async (t) => {
  const { m, c } = await start(t);
  const sb = await runPod(c, 'p');
  const id = await startContainer(c, sb, 'victim');
  const sub = await subscribe(t, c);
  m.control.oomKill(id);
  const [e] = await sub.until(1);
  t.equal(e.container_event_type, 'CONTAINER_STOPPED_EVENT');
  t.match(e.containers_statuses, [{ id, exit_code: 137, reason: 'OOMKilled' }]);
});

t.test('container stats: deterministic, growing, with PSI; filters; unknown ids NOT_FOUND', async (t) => {
  const { c } = await start(t);
  const a = await runPod(c, 'a', { app: 'x' });
  const b = await runPod(c, 'b');
  const c1 = await startContainer(c, a, 'one', undefined, { role: 'main' });
  const c2 = await startContainer(c, a, 'two');
  const c3 = await startContainer(c, b, 'three', undefined, { role: 'main' });
  const created = (await c.call('CreateContainer', { pod_sandbox_id: b, config: { metadata: { name: 'idle' }, image: { image: 'busybox' } } })).container_id;

  const s1 = (await c.call('ContainerStats', { container_id: c1 })).stats;
  t.match(s1.attributes, { id: c1, metadata: { name: 'one', attempt: 0 }, labels: { role: 'main' } });
  for (const part of ['cpu', 'memory', 'io'] as const) {
    t.ok(s1[part].psi, `${part} PSI`);
    for (const k of ['Some', 'Full'] as const) t.match(s1[part].psi[k], { Total: /^\d+$/, Avg10: Number, Avg60: Number, Avg300: Number }, `${part} ${k}`);
  }
  t.match(s1.cpu.timestamp, /^\d{19}$/);
  await new Promise((r) => setTimeout(r, 60));
  const s2 = (await c.call('ContainerStats', { container_id: c1 })).stats;
  t.ok(BigInt(s2.cpu.usage_core_nano_seconds.value) > BigInt(s1.cpu.usage_core_nano_seconds.value), 'cumulative CPU grows');
  t.ok(BigInt(s2.cpu.psi.Some.Total) >= BigInt(s1.cpu.psi.Some.Total), 'PSI totals never shrink');
  t.ok(BigInt(s2.memory.working_set_bytes.value) > 0n);

  const ids = (r: { stats: { attributes: { id: string } }[] }) => r.stats.map((s) => s.attributes.id).sort();
  t.same(ids(await c.call('ListContainerStats', {})), [c1, c2, c3].sort(), 'running containers only');
  t.same(ids(await c.call('ListContainerStats', { filter: { pod_sandbox_id: a } })), [c1, c2].sort());
  t.same(ids(await c.call('ListContainerStats', { filter: { label_selector: { role: 'main' } } })), [c1, c3].sort());
  t.same(ids(await c.call('ListContainerStats', { filter: { id: c2 } })), [c2]);
  t.same(ids(await c.call('ListContainerStats', { filter: { id: 'nope' } })), []);
  t.ok((await c.call('ContainerStats', { container_id: created })).stats, 'a created container has (zero) stats');

  const ps = (await c.call('PodSandboxStats', { pod_sandbox_id: a })).stats;
  t.match(ps.attributes, { id: a, metadata: { name: 'a', namespace: 'team', uid: 'uid-a' }, labels: { app: 'x' } });
  t.equal(ps.linux.containers.length, 2);
  t.equal(ps.linux.network.default_interface.name, 'eth0');
  t.ok(ps.linux.io.psi.Some);
  t.ok(Number(ps.linux.process.process_count.value) >= 1);
  const podIds = (r: { stats: { attributes: { id: string } }[] }) => r.stats.map((s) => s.attributes.id).sort();
  t.same(podIds(await c.call('ListPodSandboxStats', {})), [a, b].sort());
  t.same(podIds(await c.call('ListPodSandboxStats', { filter: { label_selector: { app: 'x' } } })), [a]);
  t.same(podIds(await c.call('ListPodSandboxStats', { filter: { id: b } })), [b]);
  await c.call('StopPodSandbox', { pod_sandbox_id: b });
  t.same(podIds(await c.call('ListPodSandboxStats', {})), [a], 'ready sandboxes only');

  let err = await failure(c.call('ContainerStats', { container_id: 'nope' }));
  t.equal(err.code, grpc.status.NOT_FOUND);
  t.equal(err.details, 'failed to find container "nope": not found');
  err = await failure(c.call('PodSandboxStats', { pod_sandbox_id: 'nope' }));
  t.equal(err.code, grpc.status.NOT_FOUND);
});

t.test('metrics: descriptors, cadvisor families with namespace/pod/container labels, switched off by control', async (t) => {
  const { m, c } = await start(t);
  const descriptors = (await c.call('ListMetricDescriptors', {})).descriptors;
  const byName = new Map<string, { label_keys: string[] }>(descriptors.map((d: { name: string; label_keys: string[] }) => [d.name, d]));
  t.ok(byName.has('container_cpu_usage_seconds_total'));
  t.ok(byName.has('container_memory_working_set_bytes'));
  t.same(await c.call('ListPodSandboxMetrics', {}), { pod_metrics: [] }, 'no pods, no metrics');

  const sb = await runPod(c, 'web');
  const id = await startContainer(c, sb, 'nginx');
  const pm = (await c.call('ListPodSandboxMetrics', {})).pod_metrics;
  t.equal(pm.length, 1);
  t.equal(pm[0].pod_sandbox_id, sb);
  const cm = pm[0].container_metrics.find((x: { container_id: string }) => x.container_id === id);
  t.ok(cm, 'the container has metrics');
  const ws = cm.metrics.find((x: { name: string }) => x.name === 'container_memory_working_set_bytes');
  const keys = byName.get(ws.name)!.label_keys;
  const labels = Object.fromEntries(keys.map((k, i) => [k, ws.label_values[i]]));
  t.match(labels, { namespace: 'team', pod: 'web', container: 'nginx' });
  t.equal(ws.metric_type, 'GAUGE');
  t.ok(Number(ws.value.value) > 0);
  for (const metric of [...pm[0].metrics, ...cm.metrics]) t.ok(byName.has(metric.name), `${metric.name} is described`);

  m.control.setMetricsEnabled(false);
  t.same(await c.call('ListPodSandboxMetrics', {}), { pod_metrics: [] }, 'no metrics while switched off');
  t.ok((await c.call('ListContainerStats', {})).stats.length, 'the stats RPCs go on');
  m.control.setMetricsEnabled(true);
  t.equal((await c.call('ListPodSandboxMetrics', {})).pod_metrics.length, 1);
});

t.test('CheckpointContainer: a 0600 tar of a running container; NOT_FOUND, FAILED_PRECONDITION, UNIMPLEMENTED', async (t) => {
  const { m, c, dir } = await start(t);
  const sb = await runPod(c, 'p');
  const id = await startContainer(c, sb, 'app');
  const location = join(dir, 'checkpoint-app.tar');
  t.same(await c.call('CheckpointContainer', { container_id: id, location, timeout: 10 }), {});
  t.equal(statSync(location).mode & 0o777, 0o600, 'archive 0600');
  const entries: string[] = [];
  await tarList({ file: location, onReadEntry: (e) => { entries.push(e.path); } });
  t.same(entries, [...CHECKPOINT_ENTRIES]);
  t.equal((await c.call('ContainerStatus', { container_id: id })).status.state, 'CONTAINER_RUNNING', 'the container goes on running');

  let err = await failure(c.call('CheckpointContainer', { container_id: 'nope', location }));
  t.equal(err.code, grpc.status.NOT_FOUND);
  err = await failure(c.call('CheckpointContainer', { container_id: id, location: 'relative.tar' }));
  t.equal(err.code, grpc.status.INVALID_ARGUMENT);
  err = await failure(c.call('CheckpointContainer', { container_id: id, location: join(dir, 'no', 'such', 'dir', 'x.tar') }));
  t.equal(err.code, grpc.status.INVALID_ARGUMENT);
  err = await failure(c.call('CheckpointContainer', { container_id: id, location: '' }));
  t.equal(err.code, grpc.status.INVALID_ARGUMENT);
  const created = (await c.call('CreateContainer', { pod_sandbox_id: sb, config: { metadata: { name: 'idle' }, image: { image: 'busybox' } } })).container_id;
  err = await failure(c.call('CheckpointContainer', { container_id: created, location }));
  t.equal(err.code, grpc.status.FAILED_PRECONDITION);
  t.match(err.details, /CONTAINER_CREATED/);

  m.control.setCheckpointSupported(false);
  err = await failure(c.call('CheckpointContainer', { container_id: id, location }));
  t.equal(err.code, grpc.status.UNIMPLEMENTED);
  t.equal(err.details, 'method CheckpointContainer not implemented', 'as containerd 1.6 answers');
  m.control.setCheckpointSupported(true);
  t.ok(await c.call('CheckpointContainer', { container_id: id, location }));
});

t.test('CheckpointContainer honours its timeout: DEADLINE_EXCEEDED when the archive takes longer', async (t) => {
  // A checkpoint writer that never finishes (a stuck runtime), through the real server and gRPC.
  // (Absolute URLs: tap resolves relative ones against the source-mapped .ts file, not the compiled one.)
  const here = (p: string) => new URL(p, import.meta.url).href;
  const checkpoint = await import('../../../mocks/cri/checkpoint.js');
  const { startMockCri: startStuck } = await t.mockImport<typeof import('../../../mocks/cri/server.js')>(here('../../../mocks/cri/server.js'), {
    [here('../../../mocks/cri/checkpoint.js')]: { ...checkpoint, writeCheckpoint: () => new Promise(() => {}) },
  });
  const { c, dir } = await start(t, startStuck);
  const sb = await runPod(c, 'p');
  const id = await startContainer(c, sb, 'app');
  const t0 = Date.now();
  const err = await failure(c.call('CheckpointContainer', { container_id: id, location: join(dir, 'x.tar'), timeout: 1 }));
  const took = Date.now() - t0;
  t.equal(err.code, grpc.status.DEADLINE_EXCEEDED);
  t.match(err.details, /did not finish within 1s/);
  t.ok(took >= 950 && took < 3000, `at the timeout (${took} ms)`);
});
