// Stats and metrics of the mock CRI runtime (mocks/cri/stats.ts): deterministic, growing, shaped as
// api.proto says (checked by a round trip through the project's .proto), metrics labelled in the
// order their descriptors give.
import t from 'tap';
import { loadCri } from '../../../cri/proto.js';
import {
  BASE_LABEL_KEYS,
  DEFAULT_MEMORY_LIMIT,
  containerStats,
  metricDescriptors,
  sandboxMetrics,
  sandboxStats,
  type ContainerStatsMsg,
  type PsiStatsMsg,
  type StatsContainer,
  type StatsSandbox,
} from '../../../mocks/cri/stats.js';

const S = 1_000_000_000n;
const T0 = 1_700_000_000n * S;

const container = (over: Partial<StatsContainer> = {}): StatsContainer => ({
  id: 'c-aaaa',
  name: 'app',
  sandboxId: 'sb-1',
  podName: 'web-0',
  podNamespace: 'shop',
  podUid: 'uid-1',
  startedAtNs: T0,
  running: true,
  image: 'docker.io/library/nginx:1.25',
  attempt: 1,
  labels: { tier: 'front' },
  annotations: { note: 'x' },
  ...over,
});

const sandbox = (containers: StatsContainer[], over: Partial<StatsSandbox> = {}): StatsSandbox => ({
  id: 'sb-1',
  podName: 'web-0',
  podNamespace: 'shop',
  podUid: 'uid-1',
  attempt: 0,
  createdAtNs: T0 - 2n * S,
  ready: true,
  labels: { app: 'web' },
  annotations: {},
  containers,
  ...over,
});

const n = (v: { value: string }) => BigInt(v.value);

/** Every cumulative or growing figure of a container's stats, by name. */
function growing(m: ContainerStatsMsg): Record<string, bigint> {
  const psi = (p: PsiStatsMsg, k: string) => ({ [`${k}.some`]: BigInt(p.Some.Total), [`${k}.full`]: BigInt(p.Full.Total) });
  return {
    cpu: n(m.cpu.usage_core_nano_seconds),
    nanoCores: n(m.cpu.usage_nano_cores),
    workingSet: n(m.memory.working_set_bytes),
    usage: n(m.memory.usage_bytes),
    rss: n(m.memory.rss_bytes),
    pageFaults: n(m.memory.page_faults),
    majorPageFaults: n(m.memory.major_page_faults),
    fsUsed: n(m.writable_layer.used_bytes),
    inodes: n(m.writable_layer.inodes_used),
    ...psi(m.cpu.psi, 'cpu'),
    ...psi(m.memory.psi, 'memory'),
    ...psi(m.io.psi, 'io'),
  };
}

/** Drops null message fields (the loader's defaults for absent messages) so a round trip compares. */
function stripNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripNulls);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, stripNulls(x)]));
  }
  return v;
}

/** Encodes `response` as the RPC's response message and decodes it back with the project's .proto:
 *  any field name the .proto does not know would be lost on the way. */
function roundTrip(rpc: string, response: object): unknown {
  const method = (loadCri().RuntimeService.service as Record<string, { responseSerialize(v: object): Buffer; responseDeserialize(b: Buffer): unknown }>)[rpc]!;
  return stripNulls(method.responseDeserialize(method.responseSerialize(response)));
}

t.test('container stats are deterministic and shaped as ContainerStats', async (t) => {
  const c = container();
  const now = T0 + 42n * S + 123n;
  const a = containerStats(c, now);
  t.same(containerStats(c, now), a, 'same input, same figures');
  t.notSame(containerStats(container({ id: 'c-bbbb' }), now).cpu, a.cpu, 'another id, other figures');
  t.match(a.attributes, { id: 'c-aaaa', metadata: { name: 'app', attempt: 1 }, labels: { tier: 'front' }, annotations: { note: 'x' } });
  for (const part of [a.cpu, a.memory, a.writable_layer, a.swap, a.io]) t.equal(part.timestamp, now.toString(), 'timestamp is now, in ns');
  for (const [k, v] of Object.entries(growing(a))) t.ok(v >= 0n, `${k} is a non-negative integer`);
  const walk = (o: unknown): void => {
    if (o && typeof o === 'object') {
      if ('value' in o) t.match((o as { value: unknown }).value, /^\d+$/, 'uint64 as a decimal string');
      Object.values(o).forEach(walk);
    }
  };
  walk(a);
  t.equal(n(a.memory.available_bytes), DEFAULT_MEMORY_LIMIT - n(a.memory.working_set_bytes), 'available = limit - working set');
  t.ok(n(a.memory.usage_bytes) >= n(a.memory.working_set_bytes));
  t.ok(n(a.cpu.usage_core_nano_seconds) > 0n && n(a.cpu.usage_nano_cores) > 0n);
  for (const p of [a.cpu.psi, a.memory.psi, a.io.psi]) {
    t.ok(BigInt(p.Full.Total) <= BigInt(p.Some.Total), 'full stall time never exceeds some');
    for (const d of [p.Some, p.Full]) for (const avg of [d.Avg10, d.Avg60, d.Avg300]) t.ok(avg >= 0 && avg <= 100, 'PSI averages are percentages');
  }
  t.same(roundTrip('ContainerStats', { stats: a }), { stats: a }, 'survives a round trip through api.proto');
  const limited = containerStats(container({ memoryLimitBytes: 64n * 1024n * 1024n }), now);
  t.equal(n(limited.memory.available_bytes), 64n * 1024n * 1024n - n(limited.memory.working_set_bytes), 'a given limit is used');
});

t.test('container figures grow monotonically while it runs', async (t) => {
  const c = container();
  let prev = growing(containerStats(c, T0));
  t.equal(prev.cpu, 0n, 'nothing used at the start instant');
  let strictCpu = true;
  for (let s = 7n; s <= 1500n; s += 37n) {
    const cur = growing(containerStats(c, T0 + s * S + 999n));
    for (const k of Object.keys(cur)) {
      if (cur[k]! < prev[k]!) t.fail(`${k} went down at ${s} s: ${prev[k]} -> ${cur[k]}`);
    }
    if (cur.cpu! <= prev.cpu!) strictCpu = false;
    prev = cur;
  }
  t.ok(strictCpu, 'CPU time strictly grows');
  const early = growing(containerStats(c, T0 + 10n * S));
  const later = growing(containerStats(c, T0 + 20n * S));
  t.ok(later.workingSet! > early.workingSet!, 'memory grows early on');
  t.ok(later['io.some']! > early['io.some']!, 'PSI totals grow');
  t.equal(later.cpu! - early.cpu!, early.cpu!, 'CPU grows at a steady rate');
});

t.test('a stopped container keeps its counters and drops its instantaneous figures', async (t) => {
  const finished = T0 + 30n * S;
  const atStop = containerStats(container(), finished);
  const stopped = container({ running: false, finishedAtNs: finished });
  const later = containerStats(stopped, finished + 600n * S);
  t.equal(later.cpu.usage_core_nano_seconds.value, atStop.cpu.usage_core_nano_seconds.value, 'CPU time frozen at the stop');
  t.equal(later.memory.page_faults.value, atStop.memory.page_faults.value);
  t.equal(later.io.psi.Some.Total, atStop.io.psi.Some.Total);
  t.equal(later.cpu.usage_nano_cores.value, '0');
  t.equal(later.memory.working_set_bytes.value, '0');
  const never = containerStats(container({ startedAtNs: 0n, running: false }), T0 + 5n * S);
  t.equal(never.cpu.usage_core_nano_seconds.value, '0', 'never started: nothing used');
  t.equal(never.memory.page_faults.value, '0');
});

t.test('sandbox stats sum the containers and add the pause process and network', async (t) => {
  const c1 = container();
  const c2 = container({ id: 'c-bbbb', name: 'sidecar', startedAtNs: T0 + 5n * S });
  const now = T0 + 60n * S;
  const s = sandboxStats(sandbox([c1, c2]), now);
  t.same(sandboxStats(sandbox([c1, c2]), now), s, 'deterministic');
  t.match(s.attributes, { id: 'sb-1', metadata: { name: 'web-0', uid: 'uid-1', namespace: 'shop', attempt: 0 }, labels: { app: 'web' } });
  const cs = [containerStats(c1, now), containerStats(c2, now)];
  t.same(s.linux.containers, cs, 'containers carry their own stats');
  const sumOf = (get: (m: ContainerStatsMsg) => { value: string }) => cs.reduce((a, m) => a + n(get(m)), 0n);
  t.ok(n(s.linux.cpu.usage_core_nano_seconds) > sumOf((m) => m.cpu.usage_core_nano_seconds), 'pod CPU = containers + pause');
  t.equal(n(s.linux.memory.working_set_bytes), sumOf((m) => m.memory.working_set_bytes) + 512n * 1024n);
  t.equal(s.linux.network.default_interface.name, 'eth0');
  t.same(s.linux.network.interfaces, []);
  t.ok(n(s.linux.network.default_interface.rx_bytes) > 0n && n(s.linux.network.default_interface.tx_bytes) > 0n);
  t.ok(n(s.linux.process.process_count) >= 3n, 'at least one process per container plus pause');
  t.equal(BigInt(s.linux.io.psi.Some.Total), cs.reduce((a, m) => a + BigInt(m.io.psi.Some.Total), 0n), 'pod I/O stall = sum of containers');
  t.same(roundTrip('PodSandboxStats', { stats: s }), { stats: s }, 'survives a round trip through api.proto');

  const later = sandboxStats(sandbox([c1, c2]), now + 30n * S);
  t.ok(n(later.linux.network.default_interface.rx_bytes) > n(s.linux.network.default_interface.rx_bytes), 'network counters grow');
  const stopped = sandbox([c1, c2], { ready: false, stoppedAtNs: now });
  const frozen = sandboxStats(stopped, now + 300n * S);
  t.equal(frozen.linux.network.default_interface.rx_bytes.value, s.linux.network.default_interface.rx_bytes.value, 'network frozen once stopped');
});

t.test('metric descriptors: cadvisor names, namespace/pod/container labels', async (t) => {
  const ds = metricDescriptors();
  const names = ds.map((d) => d.name);
  t.equal(new Set(names).size, names.length, 'names are unique');
  for (const want of [
    'container_cpu_usage_seconds_total',
    'container_memory_working_set_bytes',
    'container_memory_usage_bytes',
    'container_network_receive_bytes_total',
    'container_fs_usage_bytes',
    'container_processes',
    'container_pressure_cpu_waiting_seconds_total',
    'container_pressure_memory_stalled_seconds_total',
    'container_pressure_io_waiting_seconds_total',
  ]) {
    t.ok(names.includes(want), want);
  }
  for (const d of ds) {
    t.ok(['namespace', 'pod', 'container'].every((k) => d.label_keys.includes(k)), `${d.name} has namespace, pod, container`);
    t.ok(d.help.length > 0);
  }
  t.same(metricDescriptors(), ds, 'static');
  t.same(roundTrip('ListMetricDescriptors', { descriptors: ds }), { descriptors: ds });
});

t.test('sandbox metrics: every sample matches its descriptor and carries the pod labels', async (t) => {
  const c1 = container();
  const c2 = container({ id: 'c-bbbb', name: 'sidecar', image: 'busybox:1.36' });
  const notStarted = container({ id: 'c-cccc', name: 'late', startedAtNs: 0n, running: false });
  const now = T0 + 120n * S;
  const m = sandboxMetrics(sandbox([c1, c2, notStarted]), now);
  t.same(sandboxMetrics(sandbox([c1, c2, notStarted]), now), m, 'deterministic');
  t.equal(m.pod_sandbox_id, 'sb-1');
  t.same(m.container_metrics.map((c) => c.container_id), ['c-aaaa', 'c-bbbb'], 'containers that never started have no metrics');
  const byName = new Map(metricDescriptors().map((d) => [d.name, d]));
  const label = (metric: { name: string; label_values: string[] }, key: string) => metric.label_values[byName.get(metric.name)!.label_keys.indexOf(key)];
  for (const metric of m.metrics) {
    const d = byName.get(metric.name);
    t.ok(d, `${metric.name} is described`);
    t.equal(metric.label_values.length, d!.label_keys.length);
    t.equal(label(metric, 'namespace'), 'shop');
    t.equal(label(metric, 'pod'), 'web-0');
    t.equal(label(metric, 'container'), '', 'pod-level (network) samples have an empty container');
    t.equal(label(metric, 'interface'), 'eth0');
    t.equal(metric.metric_type, 'COUNTER');
  }
  for (const cm of m.container_metrics) {
    const c = cm.container_id === 'c-aaaa' ? c1 : c2;
    t.ok(cm.metrics.length >= 15);
    for (const metric of cm.metrics) {
      const d = byName.get(metric.name)!;
      t.ok(d, `${metric.name} is described`);
      t.equal(metric.label_values.length, d.label_keys.length, `${metric.name}: one value per key`);
      t.same(
        BASE_LABEL_KEYS.map((k) => label(metric, k)),
        [c.id, c.id, c.image, 'shop', 'web-0', c.name],
        `${metric.name}: id, name, image, namespace, pod, container`,
      );
      t.equal(metric.timestamp, now.toString());
      t.match(metric.value.value, /^\d+$/);
      t.ok(['COUNTER', 'GAUGE'].includes(metric.metric_type));
    }
  }
  const cpu = m.container_metrics[0]!.metrics.find((x) => x.name === 'container_cpu_usage_seconds_total')!;
  t.equal(label(cpu, 'cpu'), 'total');
  t.equal(cpu.value.value, (n(containerStats(c1, now).cpu.usage_core_nano_seconds) / S).toString(), 'whole seconds of the same CPU figure');
  const ws = m.container_metrics[0]!.metrics.find((x) => x.name === 'container_memory_working_set_bytes')!;
  t.equal(ws.value.value, containerStats(c1, now).memory.working_set_bytes.value);
  t.same(roundTrip('ListPodSandboxMetrics', { pod_metrics: [m] }), { pod_metrics: [m] }, 'survives a round trip through api.proto');

  const later = sandboxMetrics(sandbox([c1, c2, notStarted]), now + 600n * S);
  for (const [i, cm] of later.container_metrics.entries()) {
    for (const [j, metric] of cm.metrics.entries()) {
      if (metric.metric_type === 'COUNTER') t.ok(BigInt(metric.value.value) >= BigInt(m.container_metrics[i]!.metrics[j]!.value.value), `${metric.name} does not go down`);
    }
  }
  const cpuLater = later.container_metrics[0]!.metrics.find((x) => x.name === 'container_cpu_usage_seconds_total')!;
  t.ok(BigInt(cpuLater.value.value) > BigInt(cpu.value.value), 'CPU seconds grow');
});
