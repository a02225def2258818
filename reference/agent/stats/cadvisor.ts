// /metrics/cadvisor (spec 002 §4, §4.1): cadvisor's names and labels. Node and machine series
// always come from the embedded collector; pod and container series come either from the runtime's
// ListPodSandboxMetrics (provider `cri`), passed on with its names, labels and timestamps, or from
// the agent's own collection over the runtime's stats RPCs (provider `cadvisor`).
import * as os from 'node:os';
import type { MetricDescriptorMsg, PodSandboxMetricsMsg, PsiStatsMsg } from './cri-types.js';
import { num, nsToMs } from './cri-types.js';
import type { NodeSample } from './node-collector.js';
import type { CriView, SummaryProvider } from './summary.js';
import { PSI_RESOURCES } from './psi.js';
import { escapeLabel, labelText, type TextExposition } from './text-exposition.js';
import type { PsiStats } from './summary-types.js';

/** Every container_* series carries these, in this order (cadvisor's), then the family's own. */
export const CADVISOR_LABELS = ['id', 'name', 'image', 'namespace', 'pod', 'container'] as const;
type Labels = Record<(typeof CADVISOR_LABELS)[number], string>;

const ROOT_LABELS: Labels = { id: '/', name: '', image: '', namespace: '', pod: '', container: '' };

const FAMILIES = {
  machine_cpu_cores: ['gauge', 'Number of logical CPU cores.'],
  machine_memory_bytes: ['gauge', 'Amount of memory installed on the machine.'],
  container_cpu_usage_seconds_total: ['counter', 'Cumulative cpu time consumed in seconds.'],
  container_memory_usage_bytes: ['gauge', 'Current memory usage in bytes, including all memory regardless of when it was accessed.'],
  container_memory_working_set_bytes: ['gauge', 'Current working set in bytes.'],
  container_memory_rss: ['gauge', 'Size of RSS in bytes.'],
  container_fs_usage_bytes: ['gauge', 'Number of bytes that are consumed by the container on this filesystem.'],
  container_processes: ['gauge', 'Number of processes running inside the container.'],
  container_start_time_seconds: ['gauge', 'Start time of the container since unix epoch in seconds.'],
  container_network_receive_bytes_total: ['counter', 'Cumulative count of bytes received.'],
  container_network_receive_errors_total: ['counter', 'Cumulative count of errors encountered while receiving.'],
  container_network_transmit_bytes_total: ['counter', 'Cumulative count of bytes transmitted.'],
  container_network_transmit_errors_total: ['counter', 'Cumulative count of errors encountered while transmitting.'],
  container_pressure_cpu_waiting_seconds_total: ['counter', 'Total time duration tasks in the container have waited due to CPU congestion.'],
  container_pressure_cpu_stalled_seconds_total: ['counter', 'Total time duration no tasks in the container could make progress due to CPU congestion.'],
  container_pressure_memory_waiting_seconds_total: ['counter', 'Total time duration tasks in the container have waited due to memory congestion.'],
  container_pressure_memory_stalled_seconds_total: ['counter', 'Total time duration no tasks in the container could make progress due to memory congestion.'],
  container_pressure_io_waiting_seconds_total: ['counter', 'Total time duration tasks in the container have waited due to I/O congestion.'],
  container_pressure_io_stalled_seconds_total: ['counter', 'Total time duration no tasks in the container could make progress due to I/O congestion.'],
} as const satisfies Record<string, readonly ['counter' | 'gauge', string]>;
type FamilyName = keyof typeof FAMILIES;

function declare(exp: TextExposition, name: FamilyName): void {
  const [type, help] = FAMILIES[name];
  exp.family(name, type, help);
}

/** A series' cadvisor labels, rendered once for all its families. */
const seriesLabels = (l: Labels): string => labelText(CADVISOR_LABELS.map((k) => [k, l[k]] as const));

const CPU_TOTAL = labelText([['cpu', 'total']]);

function put(exp: TextExposition, name: FamilyName, labels: string, value: number | undefined, ts: number, extra = ''): void {
  if (value === undefined || !Number.isFinite(value)) return;
  declare(exp, name);
  exp.sampleText(name, extra ? `${labels},${extra}` : labels, value, ts);
}

function putPsi(exp: TextExposition, l: string, psi: Partial<Record<(typeof PSI_RESOURCES)[number], PsiStats | undefined>>, ts: number): void {
  for (const r of PSI_RESOURCES) {
    const p = psi[r];
    if (!p) continue;
    put(exp, `container_pressure_${r}_waiting_seconds_total` as FamilyName, l, p.some.total / 1e9, ts);
    put(exp, `container_pressure_${r}_stalled_seconds_total` as FamilyName, l, p.full.total / 1e9, ts);
  }
}

const criPsi = (p: PsiStatsMsg | null | undefined): PsiStats | undefined =>
  p?.Some ? { some: { total: Number(p.Some.Total), avg10: 0, avg60: 0, avg300: 0 }, full: { total: Number(p.Full?.Total ?? 0), avg10: 0, avg60: 0, avg300: 0 } } : undefined;

/** The machine and the root cgroup (id "/"): always the embedded collector's. */
export function nodeSeries(exp: TextExposition, n: NodeSample, psi: boolean): void {
  const t = n.timeMs;
  declare(exp, 'machine_cpu_cores');
  exp.sample('machine_cpu_cores', [], os.cpus().length, t);
  if (n.memory) {
    declare(exp, 'machine_memory_bytes');
    exp.sample('machine_memory_bytes', [], n.memory.capacity, t);
  }
  const root = seriesLabels(ROOT_LABELS);
  if (n.cpu) put(exp, 'container_cpu_usage_seconds_total', root, n.cpu.coreNs / 1e9, t, CPU_TOTAL);
  if (n.memory) {
    put(exp, 'container_memory_usage_bytes', root, n.memory.usage, t);
    put(exp, 'container_memory_working_set_bytes', root, n.memory.workingSet, t);
    put(exp, 'container_memory_rss', root, n.memory.rss, t);
  }
  for (const i of n.network?.interfaces ?? []) {
    const ifl = labelText([['interface', i.name]]);
    put(exp, 'container_network_receive_bytes_total', root, i.rxBytes, t, ifl);
    put(exp, 'container_network_receive_errors_total', root, i.rxErrors, t, ifl);
    put(exp, 'container_network_transmit_bytes_total', root, i.txBytes, t, ifl);
    put(exp, 'container_network_transmit_errors_total', root, i.txErrors, t, ifl);
  }
  if (psi && n.psi) putPsi(exp, root, n.psi, t);
}

/** Pod and container series of the agent's own collection, from the runtime's stats RPCs. */
export function ownSeries(exp: TextExposition, view: CriView, summary: SummaryProvider, psi: boolean): void {
  for (const s of view.sandboxStats) {
    const md = s.attributes!.metadata;
    const lx = s.linux!;
    const namespace = md?.namespace ?? '';
    const podName = md?.name ?? '';
    const pod = seriesLabels({ id: s.attributes!.id, name: s.attributes!.id, image: '', namespace, pod: podName, container: '' });
    const t = nsToMs(lx.cpu?.timestamp) ?? view.timeMs;
    const podNs = num(lx.cpu?.usage_core_nano_seconds);
    put(exp, 'container_cpu_usage_seconds_total', pod, podNs !== undefined ? podNs / 1e9 : undefined, t, CPU_TOTAL);
    put(exp, 'container_memory_usage_bytes', pod, num(lx.memory?.usage_bytes), t);
    put(exp, 'container_memory_working_set_bytes', pod, num(lx.memory?.working_set_bytes), t);
    put(exp, 'container_memory_rss', pod, num(lx.memory?.rss_bytes), t);
    put(exp, 'container_processes', pod, num(lx.process?.process_count), t);
    const net = lx.network;
    for (const i of [...(net?.default_interface ? [net.default_interface] : []), ...(net?.interfaces ?? [])]) {
      const ifl = labelText([['interface', i.name]]);
      const nt = nsToMs(net?.timestamp) ?? t;
      put(exp, 'container_network_receive_bytes_total', pod, num(i.rx_bytes), nt, ifl);
      put(exp, 'container_network_receive_errors_total', pod, num(i.rx_errors), nt, ifl);
      put(exp, 'container_network_transmit_bytes_total', pod, num(i.tx_bytes), nt, ifl);
      put(exp, 'container_network_transmit_errors_total', pod, num(i.tx_errors), nt, ifl);
    }
    if (psi) putPsi(exp, pod, { cpu: criPsi(lx.cpu?.psi), memory: criPsi(lx.memory?.psi), io: criPsi(lx.io?.psi) }, t);

    for (const { stats: cs, container: c } of summary.runningContainers(view, s)) {
      const l = seriesLabels({ id: c.id, name: c.id, image: c.image?.image ?? '', namespace, pod: podName, container: c.metadata.name });
      const ct = nsToMs(cs.cpu?.timestamp) ?? t;
      const coreNs = num(cs.cpu?.usage_core_nano_seconds);
      put(exp, 'container_cpu_usage_seconds_total', l, coreNs !== undefined ? coreNs / 1e9 : undefined, ct, CPU_TOTAL);
      put(exp, 'container_memory_usage_bytes', l, num(cs.memory?.usage_bytes), ct);
      put(exp, 'container_memory_working_set_bytes', l, num(cs.memory?.working_set_bytes), ct);
      put(exp, 'container_memory_rss', l, num(cs.memory?.rss_bytes), ct);
      const wl = cs.writable_layer;
      if (wl) put(exp, 'container_fs_usage_bytes', l, num(wl.used_bytes), nsToMs(wl.timestamp) ?? ct, labelText([['device', wl.fs_id?.mountpoint ?? '']]));
      const started = nsToMs(c.created_at);
      put(exp, 'container_start_time_seconds', l, started !== undefined ? started / 1000 : undefined, ct);
      if (psi) putPsi(exp, l, { cpu: criPsi(cs.cpu?.psi), memory: criPsi(cs.memory?.psi), io: criPsi(cs.io?.psi) }, ct);
    }
  }
}

/**
 * The runtime's metrics as given: family and help from its descriptors, labels by the descriptor's
 * keys, values and timestamps as reported. Returns how many samples were passed on (0: the runtime
 * reported nothing usable).
 */
/** Label names of a descriptor checked once; values escaped per sample. */
const checkedKeys = new WeakMap<MetricDescriptorMsg, string[]>();
function labelsOf(d: MetricDescriptorMsg, values: readonly string[]): string {
  let keys = checkedKeys.get(d);
  if (!keys) {
    labelText(d.label_keys.map((k) => [k, ''] as const)); // throws on a name the format cannot carry
    checkedKeys.set(d, (keys = d.label_keys));
  }
  let out = '';
  for (let i = 0; i < keys.length; i++) out += `${i ? ',' : ''}${keys[i]}="${escapeLabel(values[i]!)}"`;
  return out;
}

export function criSeries(exp: TextExposition, pods: readonly PodSandboxMetricsMsg[], descriptors: ReadonlyMap<string, MetricDescriptorMsg>, nowMs: number): number {
  let n = 0;
  for (const p of pods) {
    for (const m of [...(p.metrics ?? []), ...(p.container_metrics ?? []).flatMap((c) => c.metrics ?? [])]) {
      const d = descriptors.get(m.name);
      const value = num(m.value);
      if (!d || value === undefined || d.label_keys.length !== (m.label_values ?? []).length) continue;
      try {
        exp.family(m.name, m.metric_type === 'COUNTER' ? 'counter' : 'gauge', d.help || m.name);
        exp.sampleText(m.name, labelsOf(d, m.label_values), value, nsToMs(m.timestamp) ?? nowMs);
        n++;
      } catch {
        // A name or label the exposition format cannot carry: that sample is left out.
      }
    }
  }
  return n;
}
