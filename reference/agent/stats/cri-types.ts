// The CRI stats and metrics messages as the agent reads them (runtime.v1 api.proto, the loader's
// keepCase names, 64-bit integers as decimal strings, enums by name). Every message field may be
// null: a runtime leaves out what it does not measure, and the agent must then leave the figure out
// too rather than report 0.

export interface UInt64Value { value: string }

export interface PsiDataMsg { Total: string; Avg10: number; Avg60: number; Avg300: number }
export interface PsiStatsMsg { Full: PsiDataMsg | null; Some: PsiDataMsg | null }

export interface CpuUsageMsg {
  timestamp: string;
  usage_core_nano_seconds: UInt64Value | null;
  usage_nano_cores: UInt64Value | null;
  psi?: PsiStatsMsg | null;
}

export interface MemoryUsageMsg {
  timestamp: string;
  working_set_bytes: UInt64Value | null;
  available_bytes: UInt64Value | null;
  usage_bytes: UInt64Value | null;
  rss_bytes: UInt64Value | null;
  page_faults: UInt64Value | null;
  major_page_faults: UInt64Value | null;
  psi?: PsiStatsMsg | null;
}

export interface IoUsageMsg { timestamp: string; psi: PsiStatsMsg | null }

export interface FilesystemUsageMsg {
  timestamp: string;
  fs_id: { mountpoint: string } | null;
  used_bytes: UInt64Value | null;
  inodes_used: UInt64Value | null;
}

export interface ContainerStatsMsg {
  attributes: { id: string; metadata: { name: string; attempt: number } | null; labels: Record<string, string>; annotations: Record<string, string> } | null;
  cpu: CpuUsageMsg | null;
  memory: MemoryUsageMsg | null;
  writable_layer: FilesystemUsageMsg | null;
  io?: IoUsageMsg | null;
}

export interface NetworkInterfaceUsageMsg {
  name: string;
  rx_bytes: UInt64Value | null;
  rx_errors: UInt64Value | null;
  tx_bytes: UInt64Value | null;
  tx_errors: UInt64Value | null;
}

export interface PodSandboxStatsMsg {
  attributes: {
    id: string;
    metadata: { name: string; uid: string; namespace: string; attempt: number } | null;
    labels: Record<string, string>;
    annotations: Record<string, string>;
  } | null;
  linux: {
    cpu: CpuUsageMsg | null;
    memory: MemoryUsageMsg | null;
    network: { timestamp: string; default_interface: NetworkInterfaceUsageMsg | null; interfaces: NetworkInterfaceUsageMsg[] } | null;
    process: { timestamp: string; process_count: UInt64Value | null } | null;
    containers: ContainerStatsMsg[];
    io?: IoUsageMsg | null;
  } | null;
}

export interface MetricDescriptorMsg { name: string; help: string; label_keys: string[] }
export interface MetricMsg { name: string; timestamp: string; metric_type: string; label_values: string[]; value: UInt64Value | null }
export interface PodSandboxMetricsMsg {
  pod_sandbox_id: string;
  metrics: MetricMsg[];
  container_metrics: Array<{ container_id: string; metrics: MetricMsg[] }>;
}

/** A UInt64Value as a number (stats are float64 wherever they end up), undefined when absent. */
export function num(v: UInt64Value | null | undefined): number | undefined {
  return v ? Number(v.value) : undefined;
}

/** An int64 nanosecond timestamp as milliseconds; undefined for 0 or none ("gathered live"). */
export function nsToMs(ns: string | undefined): number | undefined {
  // float64 keeps a nanosecond count of today to within a microsecond: plenty for milliseconds.
  const ms = Math.floor(Number(ns) / 1e6);
  return ms > 0 ? ms : undefined;
}
