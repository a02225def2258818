// The summary of spec 002 §4 (`/stats/summary`), built per request: the node from the embedded
// collector (node-collector.ts), pods and containers from the runtime's stats RPCs. One request asks
// the runtime a fixed handful of List RPCs, whatever the number of pods; directory usage (logs,
// volumes) comes from a cache that is walked in the background.
//
// As upstream's CRI stats provider: only running containers are listed (the latest of each name),
// the runtime's usage_nano_cores is used when it gives one and otherwise computed from the previous
// sample, and the pod's start time is its sandbox's creation.
import { join } from 'node:path';
import type { CriContainer, CriSandbox, Runtime } from '../runtime.js';
import { LABEL_POD_UID } from '../runtime.js';
import { num, nsToMs, type ContainerStatsMsg, type CpuUsageMsg, type FilesystemUsageMsg, type IoUsageMsg, type MemoryUsageMsg, type NetworkInterfaceUsageMsg, type PodSandboxStatsMsg } from './cri-types.js';
import { DirUsageCache } from './dir-usage.js';
import { fsFigures, type FsFigures, type Iface, type NodeCollector, type NodeSample } from './node-collector.js';
import { psiFromCri } from './psi.js';
import type { ContainerStats, CpuStats, FsStats, InterfaceStats, IoStats, MemoryStats, NetworkStats, NodeStats, PodStats, Summary, VolumeStats } from './summary-types.js';

/** Volume types whose data lives on the node's disk under the pod's directory (upstream's layout). */
const LOCAL_VOLUME_TYPES: Readonly<Record<string, string>> = {
  emptyDir: 'kubernetes.io~empty-dir',
  configMap: 'kubernetes.io~configmap',
  secret: 'kubernetes.io~secret',
  projected: 'kubernetes.io~projected',
  downwardAPI: 'kubernetes.io~downward-api',
};

export interface SummaryOptions {
  runtime: Runtime;
  nodeName: string;
  rootDir: string;
  node: NodeCollector;
  /** The pods the agent manages (their specs name the volumes). */
  pods(): any[];
  /** Whether PSI is shown (spec 002 §4.2: always, the gate is locked on). */
  psi(): boolean;
}

/** What one request read from the runtime. */
export interface CriView {
  timeMs: number;
  /** Per pod (by uid), the stats of its newest sandbox. */
  sandboxStats: PodSandboxStatsMsg[];
  containers: Map<string, CriContainer>;
  sandboxes: Map<string, CriSandbox>;
}

export class RuntimeStatsError extends Error {
  override readonly name = 'RuntimeStatsError';
}

const message = (err: unknown) => (err as { details?: string })?.details || (err as Error)?.message || String(err);

function fsStats(time: number, f: FsFigures | undefined, used?: number, inodesUsed?: number): FsStats {
  return {
    time,
    availableBytes: f?.available, capacityBytes: f?.capacity, usedBytes: used ?? f?.used,
    inodesFree: f?.inodesFree, inodes: f?.inodes, inodesUsed: inodesUsed ?? f?.inodesUsed,
  };
}

const iface = (i: NetworkInterfaceUsageMsg): InterfaceStats =>
  ({ name: i.name, rxBytes: num(i.rx_bytes), rxErrors: num(i.rx_errors), txBytes: num(i.tx_bytes), txErrors: num(i.tx_errors) });
const nodeIface = (i: Iface): InterfaceStats => ({ ...i });

/** usage_nano_cores computed from two cumulative samples, when the runtime gives none. */
class RateCache {
  private readonly last = new Map<string, { coreNs: number; tsMs: number }>();

  nanoCores(id: string, coreNs: number | undefined, tsMs: number): number | undefined {
    if (coreNs === undefined) return undefined;
    const prev = this.last.get(id);
    if (!prev || coreNs < prev.coreNs || tsMs - prev.tsMs >= 1000) this.last.set(id, { coreNs, tsMs });
    if (!prev || tsMs <= prev.tsMs || coreNs < prev.coreNs) return undefined;
    return Math.round(((coreNs - prev.coreNs) / ((tsMs - prev.tsMs) * 1e6)) * 1e9);
  }

  retain(ids: ReadonlySet<string>): void {
    for (const k of this.last.keys()) if (!ids.has(k)) this.last.delete(k);
  }
}

export class SummaryProvider {
  private readonly rates = new RateCache();
  private readonly dirs = new DirUsageCache();

  constructor(private readonly o: SummaryOptions) {}

  /** The runtime's stats and listings, in parallel; the pods' newest sandboxes only. */
  async criView(): Promise<CriView> {
    let stats: PodSandboxStatsMsg[];
    let containers: CriContainer[];
    let sandboxes: CriSandbox[];
    try {
      [stats, containers, sandboxes] = await Promise.all([this.o.runtime.listPodSandboxStats(), this.o.runtime.listContainers(), this.o.runtime.listSandboxes()]);
    } catch (err) {
      throw new RuntimeStatsError(`failed to list pod stats: ${message(err)}`);
    }
    const sandboxById = new Map(sandboxes.map((s) => [s.id, s]));
    const newest = new Map<string, PodSandboxStatsMsg>();
    const created = (s: PodSandboxStatsMsg) => Number(sandboxById.get(s.attributes?.id ?? '')?.created_at ?? 0);
    for (const s of stats) {
      const uid = s.attributes?.metadata?.uid || s.attributes?.labels?.[LABEL_POD_UID];
      if (!uid || !s.linux) continue;
      const seen = newest.get(uid);
      if (!seen || created(s) > created(seen)) newest.set(uid, s);
    }
    return { timeMs: Date.now(), sandboxStats: [...newest.values()], containers: new Map(containers.map((c) => [c.id, c])), sandboxes: sandboxById };
  }

  /** Running containers of a sandbox's stats, the newest per name (a restarted container's old one is gone). */
  runningContainers(view: CriView, s: PodSandboxStatsMsg): Array<{ stats: ContainerStatsMsg; container: CriContainer }> {
    const byName = new Map<string, { stats: ContainerStatsMsg; container: CriContainer }>();
    for (const cs of s.linux?.containers ?? []) {
      const c = view.containers.get(cs.attributes?.id ?? '');
      if (!c || c.state !== 'CONTAINER_RUNNING') continue;
      const name = cs.attributes?.metadata?.name ?? c.metadata.name;
      const seen = byName.get(name);
      if (!seen || Number(c.created_at) > Number(seen.container.created_at)) byName.set(name, { stats: cs, container: c });
    }
    return [...byName.values()];
  }

  cpu(msg: CpuUsageMsg | null | undefined, id: string, fallbackMs: number): CpuStats | undefined {
    if (!msg) return undefined;
    const time = nsToMs(msg.timestamp) ?? fallbackMs;
    const coreNs = num(msg.usage_core_nano_seconds);
    const out: CpuStats = { time, usageNanoCores: num(msg.usage_nano_cores) ?? this.rates.nanoCores(id, coreNs, time), usageCoreNanoSeconds: coreNs };
    const psi = this.o.psi() ? psiFromCri(msg.psi) : undefined;
    if (psi) out.psi = psi;
    return out;
  }

  memory(msg: MemoryUsageMsg | null | undefined, fallbackMs: number): MemoryStats | undefined {
    if (!msg) return undefined;
    const out: MemoryStats = {
      time: nsToMs(msg.timestamp) ?? fallbackMs,
      availableBytes: num(msg.available_bytes), usageBytes: num(msg.usage_bytes), workingSetBytes: num(msg.working_set_bytes),
      rssBytes: num(msg.rss_bytes), pageFaults: num(msg.page_faults), majorPageFaults: num(msg.major_page_faults),
    };
    const psi = this.o.psi() ? psiFromCri(msg.psi) : undefined;
    if (psi) out.psi = psi;
    return out;
  }

  io(msg: IoUsageMsg | null | undefined, fallbackMs: number): IoStats | undefined {
    if (!msg) return undefined;
    const out: IoStats = { time: nsToMs(msg.timestamp) ?? fallbackMs };
    const psi = this.o.psi() ? psiFromCri(msg.psi) : undefined;
    if (psi) out.psi = psi;
    return out;
  }

  nodeStats(n: NodeSample, onlyCpuAndMemory: boolean, fs?: FsFigures, imageFs?: FsStats): NodeStats {
    const t = n.timeMs;
    const out: NodeStats = { nodeName: this.o.nodeName, startTime: n.bootMs };
    const psi = this.o.psi() ? n.psi : undefined;
    if (n.cpu) out.cpu = { time: t, usageNanoCores: n.cpu.nanoCores, usageCoreNanoSeconds: n.cpu.coreNs, ...(psi ? { psi: psi.cpu } : {}) };
    if (n.memory) {
      const m = n.memory;
      out.memory = {
        time: t, availableBytes: m.available, usageBytes: m.usage, workingSetBytes: m.workingSet,
        rssBytes: m.rss, pageFaults: m.pageFaults, majorPageFaults: m.majorPageFaults, ...(psi ? { psi: psi.memory } : {}),
      };
    }
    if (onlyCpuAndMemory) return out;
    if (n.network) {
      out.network = { time: t, ...(n.network.default ? nodeIface(n.network.default) : {}), interfaces: n.network.interfaces.map(nodeIface) };
    }
    if (fs) out.fs = fsStats(t, fs);
    if (imageFs) out.runtime = { imageFs };
    if (n.rlimit) out.rlimit = { time: t, maxpid: n.rlimit.max, curproc: n.rlimit.used };
    if (psi) out.io = { time: t, psi: psi.io };
    return out;
  }

  /** runtime.imageFs: the runtime's usage on the image filesystem, that filesystem's size from statfs. */
  private async imageFs(timeMs: number): Promise<FsStats | undefined> {
    let info: FilesystemUsageMsg | undefined;
    try {
      info = (await this.o.runtime.imageFsInfo()).image_filesystems?.[0];
    } catch {
      return undefined; // a runtime without ImageFsInfo: no image filesystem figures
    }
    if (!info) return undefined;
    const f = info.fs_id?.mountpoint ? await fsFigures(info.fs_id.mountpoint) : undefined;
    return fsStats(nsToMs(info.timestamp) ?? timeMs, f, num(info.used_bytes), num(info.inodes_used));
  }

  private logDir(pod: { name: string; namespace: string; uid: string }, container: string): string {
    return join(this.o.rootDir, 'pods', `${pod.namespace}_${pod.name}_${pod.uid}`, container);
  }

  private volumeDirs(uid: string): Array<{ name: string; dir: string; counts: boolean }> {
    const pod = this.o.pods().find((p) => p?.metadata?.uid === uid);
    const out: Array<{ name: string; dir: string; counts: boolean }> = [];
    for (const v of pod?.spec?.volumes ?? []) {
      const type = Object.keys(LOCAL_VOLUME_TYPES).find((k) => v?.[k] !== undefined);
      if (!type || typeof v.name !== 'string') continue;
      // Only emptyDir counts towards the pod's ephemeral storage besides its containers', as upstream.
      out.push({ name: v.name, dir: join(this.o.rootDir, 'pods', uid, 'volumes', LOCAL_VOLUME_TYPES[type]!, v.name), counts: type === 'emptyDir' });
    }
    return out;
  }

  /** The node alone (when the runtime cannot be read: /metrics/resource still gives the node's figures). */
  async nodeOnly(onlyCpuAndMemory = true): Promise<Summary> {
    return { node: this.nodeStats(await this.o.node.sample(), onlyCpuAndMemory), pods: [] };
  }

  async summary(onlyCpuAndMemory = false): Promise<Summary> {
    const [view, node, rootFs, imageFs] = await Promise.all([
      this.criView(),
      this.o.node.sample(),
      onlyCpuAndMemory ? undefined : fsFigures(this.o.rootDir),
      onlyCpuAndMemory ? undefined : this.imageFs(Date.now()),
    ]);
    const mounts = new Map<string, Promise<FsFigures | undefined>>();
    const mountFigures = (m: string) => {
      if (!mounts.has(m)) mounts.set(m, fsFigures(m));
      return mounts.get(m)!;
    };
    const seenIds = new Set<string>();
    const seenDirs = new Set<string>();
    const pods = await Promise.all(view.sandboxStats.map(async (s): Promise<PodStats> => {
      const md = s.attributes!.metadata ?? { name: '', namespace: '', uid: '', attempt: 0 };
      const podRef = { name: md.name, namespace: md.namespace, uid: md.uid };
      const t = view.timeMs;
      const sandbox = view.sandboxes.get(s.attributes!.id);
      seenIds.add(s.attributes!.id);
      const containers = await Promise.all(this.runningContainers(view, s).map(async ({ stats: cs, container: c }): Promise<ContainerStats> => {
        seenIds.add(c.id);
        const out: ContainerStats = { name: c.metadata.name, startTime: nsToMs(c.created_at) ?? t };
        const cpu = this.cpu(cs.cpu, c.id, t);
        const memory = this.memory(cs.memory, t);
        if (cpu) out.cpu = cpu;
        if (memory) out.memory = memory;
        if (onlyCpuAndMemory) return out;
        const wl = cs.writable_layer;
        if (wl) out.rootfs = fsStats(nsToMs(wl.timestamp) ?? t, wl.fs_id?.mountpoint ? await mountFigures(wl.fs_id.mountpoint) : undefined, num(wl.used_bytes) ?? 0, num(wl.inodes_used) ?? 0);
        const logDir = this.logDir(podRef, c.metadata.name);
        seenDirs.add(logDir);
        const logs = await this.dirs.usage(logDir);
        out.logs = fsStats(t, rootFs, logs.bytes, logs.inodes);
        const io = this.io(cs.io, t);
        if (io) out.io = io;
        return out;
      }));
      const pod: PodStats = { podRef, startTime: nsToMs(sandbox?.created_at) ?? t, containers };
      const cpu = this.cpu(s.linux!.cpu, s.attributes!.id, t);
      const memory = this.memory(s.linux!.memory, t);
      if (cpu) pod.cpu = cpu;
      if (memory) pod.memory = memory;
      if (onlyCpuAndMemory) return pod;
      const net = s.linux!.network;
      if (net) {
        const n: NetworkStats = { time: nsToMs(net.timestamp) ?? t, ...(net.default_interface ? iface(net.default_interface) : {}) };
        n.interfaces = (net.interfaces ?? []).map(iface);
        pod.network = n;
      }
      const volumes: VolumeStats[] = [];
      let ephUsed = 0;
      let ephInodes = 0;
      for (const v of this.volumeDirs(md.uid)) {
        seenDirs.add(v.dir);
        const u = await this.dirs.usage(v.dir);
        volumes.push({ ...fsStats(t, rootFs, u.bytes, u.inodes), name: v.name });
        if (v.counts) { ephUsed += u.bytes; ephInodes += u.inodes; }
      }
      if (volumes.length) pod.volume = volumes;
      for (const c of containers) {
        ephUsed += (c.rootfs?.usedBytes ?? 0) + (c.logs?.usedBytes ?? 0);
        ephInodes += (c.rootfs?.inodesUsed ?? 0) + (c.logs?.inodesUsed ?? 0);
      }
      pod['ephemeral-storage'] = fsStats(t, rootFs, ephUsed, ephInodes);
      const procs = num(s.linux!.process?.process_count);
      if (s.linux!.process) pod.process_stats = procs === undefined ? {} : { process_count: procs };
      const io = this.io(s.linux!.io, t);
      if (io) pod.io = io;
      return pod;
    }));
    this.rates.retain(seenIds);
    if (!onlyCpuAndMemory) this.dirs.retain(seenDirs);
    return { node: this.nodeStats(node, onlyCpuAndMemory, rootFs, imageFs), pods };
  }
}
