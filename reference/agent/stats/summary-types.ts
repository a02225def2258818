// The /stats/summary payload in upstream's shape (kubelet stats/v1alpha1, with the PSI and IO
// additions of KEP-4205): JSON names as upstream writes them, optional figures left out when unknown
// (upstream's `omitempty` pointers). Times are kept as epoch milliseconds, which the metrics
// endpoints use as sample timestamps, and written as RFC 3339 strings by `summaryJson`.

/** Epoch milliseconds; RFC 3339 in the JSON. */
export type Time = number;

export interface PsiData { total: number; avg10: number; avg60: number; avg300: number }
export interface PsiStats { full: PsiData; some: PsiData }

export interface CpuStats { time: Time; usageNanoCores?: number; usageCoreNanoSeconds?: number; psi?: PsiStats }
export interface MemoryStats {
  time: Time;
  availableBytes?: number;
  usageBytes?: number;
  workingSetBytes?: number;
  rssBytes?: number;
  pageFaults?: number;
  majorPageFaults?: number;
  psi?: PsiStats;
}
export interface IoStats { time: Time; psi?: PsiStats }
export interface InterfaceStats { name: string; rxBytes?: number; rxErrors?: number; txBytes?: number; txErrors?: number }
export interface NetworkStats extends Partial<InterfaceStats> { time: Time; interfaces?: InterfaceStats[] }
export interface FsStats {
  time: Time;
  availableBytes?: number;
  capacityBytes?: number;
  usedBytes?: number;
  inodesFree?: number;
  inodes?: number;
  inodesUsed?: number;
}
export interface VolumeStats extends FsStats { name: string }
export interface RlimitStats { time: Time; maxpid?: number; curproc?: number }

export interface ContainerStats {
  name: string;
  startTime: Time;
  cpu?: CpuStats;
  memory?: MemoryStats;
  rootfs?: FsStats;
  logs?: FsStats;
  io?: IoStats;
}

export interface PodStats {
  podRef: { name: string; namespace: string; uid: string };
  startTime: Time;
  containers: ContainerStats[];
  cpu?: CpuStats;
  memory?: MemoryStats;
  network?: NetworkStats;
  volume?: VolumeStats[];
  'ephemeral-storage'?: FsStats;
  process_stats?: { process_count?: number };
  io?: IoStats;
}

export interface NodeStats {
  nodeName: string;
  startTime: Time;
  cpu?: CpuStats;
  memory?: MemoryStats;
  network?: NetworkStats;
  fs?: FsStats;
  runtime?: { imageFs?: FsStats };
  rlimit?: RlimitStats;
  io?: IoStats;
}

export interface Summary { node: NodeStats; pods: PodStats[] }

/** metav1.Time as upstream marshals it: RFC 3339 in UTC, whole seconds. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The summary as upstream's JSON: every `time` and `startTime` as RFC 3339. */
export function summaryJson(s: unknown): string {
  return JSON.stringify(s, (k, v) => ((k === 'time' || k === 'startTime') && typeof v === 'number' ? rfc3339(v) : v));
}
