// /metrics/resource (spec 002 §4): what the resource metrics aggregator reads since 0.6.x, with
// upstream's names, help texts and labels; every sample carries the time its figure was measured
// (the aggregator computes rates from them). resource_scrape_error says whether the pod and
// container figures could be read; the node's are given either way.
import type { Summary } from './summary-types.js';
import { TextExposition } from './text-exposition.js';

const FAMILIES = [
  ['container_cpu_usage_seconds_total', 'counter', '[STABLE] Cumulative cpu time consumed by the container in core-seconds'],
  ['container_memory_working_set_bytes', 'gauge', '[STABLE] Current working set of the container in bytes'],
  ['container_start_time_seconds', 'gauge', '[STABLE] Start time of the container since unix epoch in seconds'],
  ['node_cpu_usage_seconds_total', 'counter', '[STABLE] Cumulative cpu time consumed by the node in core-seconds'],
  ['node_memory_working_set_bytes', 'gauge', '[STABLE] Current working set of the node in bytes'],
  ['pod_cpu_usage_seconds_total', 'counter', '[STABLE] Cumulative cpu time consumed by the pod in core-seconds'],
  ['pod_memory_working_set_bytes', 'gauge', '[STABLE] Current working set of the pod in bytes'],
  ['resource_scrape_error', 'gauge', '[STABLE] 1 if there was an error while getting container metrics, 0 otherwise'],
] as const;

/** The exposition of `summary` (only CPU and memory are read); `podsFailed`: the runtime could not be read. */
export function resourceMetrics(summary: Summary, podsFailed: boolean): string {
  const exp = new TextExposition();
  for (const [name, type, help] of FAMILIES) exp.family(name, type, help);
  for (const p of summary.pods) {
    const pod = [['namespace', p.podRef.namespace], ['pod', p.podRef.name]] as const;
    for (const c of p.containers) {
      const l = [['container', c.name], ...pod] as const;
      if (c.cpu?.usageCoreNanoSeconds !== undefined) exp.sample('container_cpu_usage_seconds_total', l, c.cpu.usageCoreNanoSeconds / 1e9, c.cpu.time);
      if (c.memory?.workingSetBytes !== undefined) exp.sample('container_memory_working_set_bytes', l, c.memory.workingSetBytes, c.memory.time);
      exp.sample('container_start_time_seconds', l, c.startTime / 1000, c.startTime);
    }
    if (p.cpu?.usageCoreNanoSeconds !== undefined) exp.sample('pod_cpu_usage_seconds_total', pod, p.cpu.usageCoreNanoSeconds / 1e9, p.cpu.time);
    if (p.memory?.workingSetBytes !== undefined) exp.sample('pod_memory_working_set_bytes', pod, p.memory.workingSetBytes, p.memory.time);
  }
  const n = summary.node;
  if (n.cpu?.usageCoreNanoSeconds !== undefined) exp.sample('node_cpu_usage_seconds_total', [], n.cpu.usageCoreNanoSeconds / 1e9, n.cpu.time);
  if (n.memory?.workingSetBytes !== undefined) exp.sample('node_memory_working_set_bytes', [], n.memory.workingSetBytes, n.memory.time);
  exp.sample('resource_scrape_error', [], podsFailed ? 1 : 0);
  return exp.render();
}
