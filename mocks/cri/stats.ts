// Resource figures of the mock CRI runtime: container and sandbox stats (ContainerStats,
// PodSandboxStats and their List forms) and cadvisor-style metrics (ListMetricDescriptors,
// ListPodSandboxMetrics; spec 002 §4.1).
//
// Nothing is measured: every figure is a pure function of the object's id and of how long it has been
// running at `nowNs`, so a test can predict it, two calls at the same instant agree, and cumulative
// figures only grow. Per object, the id (hashed) picks a steady CPU rate, a memory footprint, a network
// rate and PSI levels; counters are rate × running time, memory grows slowly for the first ten minutes
// then levels off. When a container stops, counters hold the value they had at `finishedAtNs` and the
// instantaneous figures (CPU rate, memory in use, processes) drop to 0, as its cgroup is gone.
//
// Message objects follow api.proto with the loader's options (keepCase, int64/uint64 as decimal
// strings, enums by name); the PSI messages keep upstream's capitalised field names (Full, Some, Total,
// Avg10...).

/** A container as the stats need it; CORE maps its state onto this. */
export interface StatsContainer {
  id: string;
  name: string;
  sandboxId: string;
  podName: string;
  podNamespace: string;
  podUid: string;
  /** 0n when never started. */
  startedAtNs: bigint;
  running: boolean;
  /** When it stopped (ContainerStatus.finished_at); counters of a stopped container freeze there. */
  finishedAtNs?: bigint;
  /** Image reference, for the `image` metric label. */
  image?: string;
  attempt?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** Memory limit (LinuxContainerResources.memory_limit_in_bytes); 0 or absent: DEFAULT_MEMORY_LIMIT. */
  memoryLimitBytes?: bigint | number;
}

/** A sandbox and its containers as the stats need them. */
export interface StatsSandbox {
  id: string;
  podName: string;
  podNamespace: string;
  podUid: string;
  attempt?: number;
  createdAtNs: bigint;
  /** SANDBOX_READY. */
  ready: boolean;
  /** When it was stopped; its network counters freeze there. */
  stoppedAtNs?: bigint;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  containers: StatsContainer[];
}

// ---- message shapes (api.proto, keepCase names, 64-bit integers as decimal strings) ----

export interface UInt64ValueMsg { value: string }
export interface PsiDataMsg { Total: string; Avg10: number; Avg60: number; Avg300: number }
export interface PsiStatsMsg { Full: PsiDataMsg; Some: PsiDataMsg }
export interface CpuUsageMsg { timestamp: string; usage_core_nano_seconds: UInt64ValueMsg; usage_nano_cores: UInt64ValueMsg; psi: PsiStatsMsg }
export interface MemoryUsageMsg {
  timestamp: string;
  working_set_bytes: UInt64ValueMsg;
  available_bytes: UInt64ValueMsg;
  usage_bytes: UInt64ValueMsg;
  rss_bytes: UInt64ValueMsg;
  page_faults: UInt64ValueMsg;
  major_page_faults: UInt64ValueMsg;
  psi: PsiStatsMsg;
}
export interface IoUsageMsg { timestamp: string; psi: PsiStatsMsg }
export interface SwapUsageMsg { timestamp: string; swap_available_bytes: UInt64ValueMsg; swap_usage_bytes: UInt64ValueMsg }
export interface FilesystemUsageMsg { timestamp: string; fs_id: { mountpoint: string }; used_bytes: UInt64ValueMsg; inodes_used: UInt64ValueMsg }
export interface ContainerStatsMsg {
  attributes: { id: string; metadata: { name: string; attempt: number }; labels: Record<string, string>; annotations: Record<string, string> };
  cpu: CpuUsageMsg;
  memory: MemoryUsageMsg;
  writable_layer: FilesystemUsageMsg;
  swap: SwapUsageMsg;
  io: IoUsageMsg;
}
export interface NetworkInterfaceUsageMsg { name: string; rx_bytes: UInt64ValueMsg; rx_errors: UInt64ValueMsg; tx_bytes: UInt64ValueMsg; tx_errors: UInt64ValueMsg }
export interface NetworkUsageMsg { timestamp: string; default_interface: NetworkInterfaceUsageMsg; interfaces: NetworkInterfaceUsageMsg[] }
export interface ProcessUsageMsg { timestamp: string; process_count: UInt64ValueMsg }
export interface PodSandboxStatsMsg {
  attributes: {
    id: string;
    metadata: { name: string; uid: string; namespace: string; attempt: number };
    labels: Record<string, string>;
    annotations: Record<string, string>;
  };
  linux: {
    cpu: CpuUsageMsg;
    memory: MemoryUsageMsg;
    network: NetworkUsageMsg;
    process: ProcessUsageMsg;
    containers: ContainerStatsMsg[];
    io: IoUsageMsg;
  };
}
export type MetricTypeName = 'COUNTER' | 'GAUGE';
export interface MetricDescriptorMsg { name: string; help: string; label_keys: string[] }
export interface MetricMsg { name: string; timestamp: string; metric_type: MetricTypeName; label_values: string[]; value: UInt64ValueMsg }
export interface ContainerMetricsMsg { container_id: string; metrics: MetricMsg[] }
export interface PodSandboxMetricsMsg { pod_sandbox_id: string; metrics: MetricMsg[]; container_metrics: ContainerMetricsMsg[] }

// ---- the model ----

export const DEFAULT_MEMORY_LIMIT = 512n * 1024n * 1024n;
/** Mount point reported for container writable layers. */
export const WRITABLE_LAYER_MOUNTPOINT = '/var/lib/orch-mock-cri/rootfs';
/** The sandbox's network interface (the only one; `interfaces` lists the others, so it is empty). */
export const DEFAULT_INTERFACE = 'eth0';

const NS_PER_S = 1_000_000_000n;
const KIB = 1024n;
const MIB = 1024n * 1024n;
/** Memory grows for this long after the start, then stays level. */
const MEMORY_RAMP_S = 600n;

/** FNV-1a (32 bits) of `salt:text`: the deterministic source of every per-object parameter. */
function hash(text: string, salt: string): number {
  let h = 0x811c9dc5;
  const s = `${salt}:${text}`;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** An integer in [lo, hi] picked by the hash. */
function pick(id: string, salt: string, lo: number, hi: number): bigint {
  return BigInt(lo + (hash(id, salt) % (hi - lo + 1)));
}

const u64 = (v: bigint): UInt64ValueMsg => ({ value: (v < 0n ? 0n : v).toString() });
const minBig = (a: bigint, b: bigint) => (a < b ? a : b);

/** Running time in ns at `nowNs`: from `startNs` to now, or to `endNs` when the object has stopped. */
function runningNs(startNs: bigint, nowNs: bigint, running: boolean, endNs: bigint | undefined): bigint {
  if (startNs <= 0n) return 0n;
  const end = running ? nowNs : endNs && endNs > 0n ? minBig(endNs, nowNs) : nowNs;
  return end > startNs ? end - startNs : 0n;
}

/** Fixed PSI levels (percent, two decimals) and stall totals proportional to running time. `full`
 *  is half of `some` (all tasks stalled is never more than some task stalled); the longer windows
 *  read a little lower, as for a load that was lighter before. */
function psi(id: string, resource: string, elapsedNs: bigint): PsiStatsMsg {
  const someBasisPoints = Number(pick(id, `psi-${resource}`, 0, 800)); // 0 .. 8.00 %
  const data = (bp: number): PsiDataMsg => ({
    Total: ((elapsedNs * BigInt(bp)) / 10_000n).toString(),
    Avg10: bp / 100,
    Avg60: Math.round(bp * 0.8) / 100,
    Avg300: Math.round(bp * 0.6) / 100,
  });
  return { Some: data(someBasisPoints), Full: data(Math.floor(someBasisPoints / 2)) };
}

/** The raw figures of one container, before they become messages or metrics. */
interface ContainerFigures {
  elapsedNs: bigint;
  running: boolean;
  nanoCores: bigint;
  coreNs: bigint;
  workingSet: bigint;
  usage: bigint;
  rss: bigint;
  limit: bigint;
  pageFaults: bigint;
  majorPageFaults: bigint;
  fsUsed: bigint;
  inodes: bigint;
  processes: bigint;
  psi: { cpu: PsiStatsMsg; memory: PsiStatsMsg; io: PsiStatsMsg };
}

function containerFigures(c: StatsContainer, nowNs: bigint): ContainerFigures {
  const elapsedNs = runningNs(c.startedAtNs, nowNs, c.running, c.finishedAtNs);
  const elapsedS = elapsedNs / NS_PER_S;
  const running = c.running && c.startedAtNs > 0n;
  const millicores = pick(c.id, 'cpu', 50, 250);
  const baseWs = pick(c.id, 'mem', 4, 32) * MIB;
  const wsGrowth = pick(c.id, 'mem-growth', 1, 8) * KIB * minBig(elapsedS, MEMORY_RAMP_S);
  const ws = running ? baseWs + wsGrowth : 0n;
  const cache = running ? (ws * pick(c.id, 'cache', 10, 40)) / 100n : 0n;
  const limit = c.memoryLimitBytes && BigInt(c.memoryLimitBytes) > 0n ? BigInt(c.memoryLimitBytes) : DEFAULT_MEMORY_LIMIT;
  return {
    elapsedNs,
    running,
    nanoCores: running ? millicores * 1_000_000n : 0n,
    // millicores × 10^6 ns of CPU per second of running time.
    coreNs: (elapsedNs * millicores) / 1000n,
    workingSet: ws,
    usage: ws + cache,
    rss: (ws * 3n) / 4n,
    limit,
    pageFaults: elapsedNs > 0n ? 1000n + elapsedS * pick(c.id, 'faults', 20, 80) : 0n,
    majorPageFaults: elapsedNs > 0n ? 3n + elapsedS / 60n : 0n,
    fsUsed: elapsedNs > 0n ? 16n * KIB + pick(c.id, 'fs', 1, 4) * 512n * minBig(elapsedS, MEMORY_RAMP_S) : 0n,
    inodes: elapsedNs > 0n ? 8n + minBig(elapsedS, MEMORY_RAMP_S) / 30n : 0n,
    processes: running ? pick(c.id, 'procs', 1, 3) : 0n,
    psi: { cpu: psi(c.id, 'cpu', elapsedNs), memory: psi(c.id, 'memory', elapsedNs), io: psi(c.id, 'io', elapsedNs) },
  };
}

function cpuMsg(ts: string, coreNs: bigint, nanoCores: bigint, p: PsiStatsMsg): CpuUsageMsg {
  return { timestamp: ts, usage_core_nano_seconds: u64(coreNs), usage_nano_cores: u64(nanoCores), psi: p };
}

function memoryMsg(ts: string, f: Pick<ContainerFigures, 'workingSet' | 'usage' | 'rss' | 'limit' | 'pageFaults' | 'majorPageFaults'>, p: PsiStatsMsg): MemoryUsageMsg {
  return {
    timestamp: ts,
    working_set_bytes: u64(f.workingSet),
    available_bytes: u64(f.limit - f.workingSet),
    usage_bytes: u64(f.usage),
    rss_bytes: u64(f.rss),
    page_faults: u64(f.pageFaults),
    major_page_faults: u64(f.majorPageFaults),
    psi: p,
  };
}

/** Deterministic, monotonically growing figures from (id, seconds since the container started). */
export function containerStats(c: StatsContainer, nowNs: bigint): ContainerStatsMsg {
  const f = containerFigures(c, nowNs);
  const ts = nowNs.toString();
  return {
    attributes: {
      id: c.id,
      metadata: { name: c.name, attempt: c.attempt ?? 0 },
      labels: { ...(c.labels ?? {}) },
      annotations: { ...(c.annotations ?? {}) },
    },
    cpu: cpuMsg(ts, f.coreNs, f.nanoCores, f.psi.cpu),
    memory: memoryMsg(ts, f, f.psi.memory),
    writable_layer: { timestamp: ts, fs_id: { mountpoint: WRITABLE_LAYER_MOUNTPOINT }, used_bytes: u64(f.fsUsed), inodes_used: u64(f.inodes) },
    // No swap is configured: nothing used, nothing available.
    swap: { timestamp: ts, swap_available_bytes: u64(0n), swap_usage_bytes: u64(0n) },
    io: { timestamp: ts, psi: f.psi.io },
  };
}

/** The sandbox's own network figures (the pod's network namespace belongs to the sandbox). */
function networkFigures(s: StatsSandbox, nowNs: bigint) {
  const elapsedNs = runningNs(s.createdAtNs, nowNs, s.ready, s.stoppedAtNs);
  const elapsedS = elapsedNs / NS_PER_S;
  return {
    rxBytes: (elapsedNs * pick(s.id, 'rx', 1000, 8000)) / NS_PER_S,
    txBytes: (elapsedNs * pick(s.id, 'tx', 500, 4000)) / NS_PER_S,
    rxErrors: elapsedS / 900n,
    txErrors: elapsedS / 1800n,
  };
}

/** Sums PSI of the containers: stall totals add up, averages take the worst container. */
function sumPsi(all: PsiStatsMsg[]): PsiStatsMsg {
  const one = (key: 'Full' | 'Some'): PsiDataMsg => ({
    Total: all.reduce((t, p) => t + BigInt(p[key].Total), 0n).toString(),
    Avg10: Math.max(0, ...all.map((p) => p[key].Avg10)),
    Avg60: Math.max(0, ...all.map((p) => p[key].Avg60)),
    Avg300: Math.max(0, ...all.map((p) => p[key].Avg300)),
  });
  return { Full: one('Full'), Some: one('Some') };
}

/** The pause process of a ready sandbox: a sliver of CPU, half a MiB, one process. */
const PAUSE_MILLICORES = 1n;
const PAUSE_MEMORY = 512n * KIB;

/** Stats of a sandbox: its containers' figures summed, plus the pause process and the network. */
export function sandboxStats(s: StatsSandbox, nowNs: bigint): PodSandboxStatsMsg {
  const ts = nowNs.toString();
  const figures = s.containers.map((c) => containerFigures(c, nowNs));
  const sandboxNs = runningNs(s.createdAtNs, nowNs, s.ready, s.stoppedAtNs);
  const sum = (get: (f: ContainerFigures) => bigint) => figures.reduce((t, f) => t + get(f), 0n);
  const pauseMem = s.ready ? PAUSE_MEMORY : 0n;
  const ws = sum((f) => f.workingSet) + pauseMem;
  const net = networkFigures(s, nowNs);
  const iface: NetworkInterfaceUsageMsg = {
    name: DEFAULT_INTERFACE,
    rx_bytes: u64(net.rxBytes),
    rx_errors: u64(net.rxErrors),
    tx_bytes: u64(net.txBytes),
    tx_errors: u64(net.txErrors),
  };
  return {
    attributes: {
      id: s.id,
      metadata: { name: s.podName, uid: s.podUid, namespace: s.podNamespace, attempt: s.attempt ?? 0 },
      labels: { ...(s.labels ?? {}) },
      annotations: { ...(s.annotations ?? {}) },
    },
    linux: {
      cpu: cpuMsg(
        ts,
        sum((f) => f.coreNs) + (sandboxNs * PAUSE_MILLICORES) / 1000n,
        sum((f) => f.nanoCores) + (s.ready ? PAUSE_MILLICORES * 1_000_000n : 0n),
        sumPsi(figures.map((f) => f.psi.cpu)),
      ),
      memory: memoryMsg(
        ts,
        {
          workingSet: ws,
          usage: sum((f) => f.usage) + pauseMem,
          rss: sum((f) => f.rss) + pauseMem,
          // The pod has no limit of its own here: the sum of its containers' (the default for each).
          limit: figures.reduce((t, f) => t + f.limit, 0n) + pauseMem,
          pageFaults: sum((f) => f.pageFaults),
          majorPageFaults: sum((f) => f.majorPageFaults),
        },
        sumPsi(figures.map((f) => f.psi.memory)),
      ),
      network: { timestamp: ts, default_interface: iface, interfaces: [] },
      process: { timestamp: ts, process_count: u64(sum((f) => f.processes) + (s.ready ? 1n : 0n)) },
      containers: s.containers.map((c) => containerStats(c, nowNs)),
      io: { timestamp: ts, psi: sumPsi(figures.map((f) => f.psi.io)) },
    },
  };
}

// ---- metrics (cadvisor names) ----

/** Labels every family carries, in this order, then the family's own. `namespace`, `pod` and
 *  `container` are the ones spec 002 §4.1 requires; `id`, `name`, `image` are cadvisor's. */
export const BASE_LABEL_KEYS = ['id', 'name', 'image', 'namespace', 'pod', 'container'] as const;

type Scope = 'container' | 'pod';
interface Family {
  name: string;
  help: string;
  type: MetricTypeName;
  scope: Scope;
  extra: string[];
}

const fam = (name: string, type: MetricTypeName, help: string, scope: Scope = 'container', extra: string[] = []): Family => ({
  name,
  help,
  type,
  scope,
  extra,
});

const FAMILIES: Family[] = [
  fam('container_cpu_usage_seconds_total', 'COUNTER', 'Cumulative CPU time consumed, in whole seconds.', 'container', ['cpu']),
  fam('container_cpu_user_seconds_total', 'COUNTER', 'Cumulative user CPU time consumed, in whole seconds.'),
  fam('container_cpu_system_seconds_total', 'COUNTER', 'Cumulative system CPU time consumed, in whole seconds.'),
  fam('container_memory_usage_bytes', 'GAUGE', 'Current memory usage in bytes, including all memory regardless of when it was accessed.'),
  fam('container_memory_working_set_bytes', 'GAUGE', 'Current working set in bytes.'),
  fam('container_memory_rss', 'GAUGE', 'Size of RSS in bytes.'),
  fam('container_memory_cache', 'GAUGE', 'Page cache memory in bytes.'),
  fam('container_spec_memory_limit_bytes', 'GAUGE', 'Memory limit of the container in bytes.'),
  fam('container_fs_usage_bytes', 'GAUGE', 'Bytes consumed by the container on this filesystem.', 'container', ['device']),
  fam('container_processes', 'GAUGE', 'Number of processes running inside the container.'),
  fam('container_start_time_seconds', 'GAUGE', 'Start time of the container since the Unix epoch, in whole seconds.'),
  fam('container_pressure_cpu_waiting_seconds_total', 'COUNTER', 'Total time tasks in the container waited for CPU, in whole seconds (PSI some).'),
  fam('container_pressure_cpu_stalled_seconds_total', 'COUNTER', 'Total time no task in the container made progress for lack of CPU, in whole seconds (PSI full).'),
  fam('container_pressure_memory_waiting_seconds_total', 'COUNTER', 'Total time tasks in the container waited for memory, in whole seconds (PSI some).'),
  fam('container_pressure_memory_stalled_seconds_total', 'COUNTER', 'Total time no task in the container made progress for lack of memory, in whole seconds (PSI full).'),
  fam('container_pressure_io_waiting_seconds_total', 'COUNTER', 'Total time tasks in the container waited for I/O, in whole seconds (PSI some).'),
  fam('container_pressure_io_stalled_seconds_total', 'COUNTER', 'Total time no task in the container made progress for lack of I/O, in whole seconds (PSI full).'),
  fam('container_network_receive_bytes_total', 'COUNTER', 'Cumulative count of bytes received.', 'pod', ['interface']),
  fam('container_network_transmit_bytes_total', 'COUNTER', 'Cumulative count of bytes transmitted.', 'pod', ['interface']),
  fam('container_network_receive_errors_total', 'COUNTER', 'Cumulative count of errors encountered while receiving.', 'pod', ['interface']),
  fam('container_network_transmit_errors_total', 'COUNTER', 'Cumulative count of errors encountered while transmitting.', 'pod', ['interface']),
];

const labelKeys = (f: Family) => [...BASE_LABEL_KEYS, ...f.extra];
const FAMILY_BY_NAME = new Map(FAMILIES.map((f) => [f.name, f]));

/** Every family ListPodSandboxMetrics may return; static for the runtime's lifetime, as the CRI asks. */
export function metricDescriptors(): MetricDescriptorMsg[] {
  return FAMILIES.map((f) => ({ name: f.name, help: f.help, label_keys: labelKeys(f) }));
}

/** One sample, its label values laid out in the order of the family's label_keys. */
function sample(name: string, ts: string, labels: Record<string, string>, value: bigint): MetricMsg {
  const f = FAMILY_BY_NAME.get(name);
  if (!f) throw new Error(`metric family ${name} is not described`);
  return {
    name,
    timestamp: ts,
    metric_type: f.type,
    label_values: labelKeys(f).map((k) => {
      const v = labels[k];
      if (v === undefined) throw new Error(`metric ${name}: no value for label ${k}`);
      return v;
    }),
    value: u64(value),
  };
}

const wholeSeconds = (ns: bigint) => ns / NS_PER_S;

/**
 * ListPodSandboxMetrics for one sandbox: network families at pod level (the network belongs to the
 * sandbox, so their `container` label is empty, as cadvisor shows the pod's network), the rest per
 * container that has started. The CRI carries values as unsigned integers, so families counted in
 * seconds report whole seconds. Timestamps are `nowNs`, the instant the figures describe.
 */
export function sandboxMetrics(s: StatsSandbox, nowNs: bigint): PodSandboxMetricsMsg {
  const ts = nowNs.toString();
  const podLabels = { namespace: s.podNamespace, pod: s.podName };
  const net = networkFigures(s, nowNs);
  const netLabels = { ...podLabels, id: s.id, name: s.id, image: '', container: '', interface: DEFAULT_INTERFACE };
  const metrics = [
    sample('container_network_receive_bytes_total', ts, netLabels, net.rxBytes),
    sample('container_network_transmit_bytes_total', ts, netLabels, net.txBytes),
    sample('container_network_receive_errors_total', ts, netLabels, net.rxErrors),
    sample('container_network_transmit_errors_total', ts, netLabels, net.txErrors),
  ];
  const containerMetrics: ContainerMetricsMsg[] = [];
  for (const c of s.containers) {
    if (c.startedAtNs <= 0n) continue; // never ran: nothing to report, as cadvisor has no cgroup for it
    const f = containerFigures(c, nowNs);
    const l = { ...podLabels, id: c.id, name: c.id, image: c.image ?? '', container: c.name };
    const userNs = (f.coreNs * 7n) / 10n;
    containerMetrics.push({
      container_id: c.id,
      metrics: [
        sample('container_cpu_usage_seconds_total', ts, { ...l, cpu: 'total' }, wholeSeconds(f.coreNs)),
        sample('container_cpu_user_seconds_total', ts, l, wholeSeconds(userNs)),
        sample('container_cpu_system_seconds_total', ts, l, wholeSeconds(f.coreNs - userNs)),
        sample('container_memory_usage_bytes', ts, l, f.usage),
        sample('container_memory_working_set_bytes', ts, l, f.workingSet),
        sample('container_memory_rss', ts, l, f.rss),
        sample('container_memory_cache', ts, l, f.usage - f.workingSet),
        sample('container_spec_memory_limit_bytes', ts, l, f.limit),
        sample('container_fs_usage_bytes', ts, { ...l, device: WRITABLE_LAYER_MOUNTPOINT }, f.fsUsed),
        sample('container_processes', ts, l, f.processes),
        sample('container_start_time_seconds', ts, l, wholeSeconds(c.startedAtNs)),
        sample('container_pressure_cpu_waiting_seconds_total', ts, l, wholeSeconds(BigInt(f.psi.cpu.Some.Total))),
        sample('container_pressure_cpu_stalled_seconds_total', ts, l, wholeSeconds(BigInt(f.psi.cpu.Full.Total))),
        sample('container_pressure_memory_waiting_seconds_total', ts, l, wholeSeconds(BigInt(f.psi.memory.Some.Total))),
        sample('container_pressure_memory_stalled_seconds_total', ts, l, wholeSeconds(BigInt(f.psi.memory.Full.Total))),
        sample('container_pressure_io_waiting_seconds_total', ts, l, wholeSeconds(BigInt(f.psi.io.Some.Total))),
        sample('container_pressure_io_stalled_seconds_total', ts, l, wholeSeconds(BigInt(f.psi.io.Full.Total))),
      ],
    });
  }
  return { pod_sandbox_id: s.id, metrics, container_metrics: containerMetrics };
}
