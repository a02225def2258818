// The embedded collector's node side (spec 002 §4.1: node-level and image-filesystem stats always
// come from here): figures of the real machine, read from /proc, the root cgroup (v2) where readable,
// statfs and /proc/pressure. Nothing is made up: a source that cannot be read leaves its figures out.
//
// usageNanoCores is a rate, so the collector keeps an earlier sample: the first one is taken when it
// starts, and the reference moves forward once it is a second old, so every answer averages over at
// least the time since the previous one (upstream's cadvisor averages over its housekeeping window).
import { readFile, statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as os from 'node:os';
import { nodePressure, type PsiResource } from './psi.js';
import type { PsiStats } from './summary-types.js';
import { pidCounts } from '../node-status.js';

/** /proc/stat counts in USER_HZ, which Linux fixes at 100 for user space whatever the kernel's HZ. */
const USER_HZ = 100;
/** The rate's reference sample is replaced once it is this old. */
const RATE_WINDOW_MS = 1000;

export interface Iface { name: string; rxBytes: number; rxErrors: number; txBytes: number; txErrors: number }

export interface NodeSample {
  timeMs: number;
  /** When the machine booted (the root cgroup's start, upstream's node startTime). */
  bootMs: number;
  cpu?: { coreNs: number; nanoCores?: number };
  memory?: { capacity: number; usage: number; workingSet: number; available: number; rss?: number; pageFaults?: number; majorPageFaults?: number };
  network?: { default?: Iface; interfaces: Iface[] };
  psi?: Record<PsiResource, PsiStats>;
  rlimit?: { max: number; used: number };
}

export interface FsFigures { capacity: number; available: number; used: number; inodes: number; inodesFree: number; inodesUsed: number }

export interface NodeCollectorOptions {
  /** Where /proc is (tests point it at a fixture). */
  procDir?: string;
  /** Where the cgroup v2 root is mounted. */
  cgroupDir?: string;
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** `Key: 123 kB` lines of /proc/meminfo as bytes. */
export function parseMeminfo(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([^:]+):\s+(\d+)(?:\s+kB)?\s*$/.exec(line);
    if (m) out.set(m[1]!, Number(m[2]) * (line.includes('kB') ? 1024 : 1));
  }
  return out;
}

/** `key value` lines (/proc/vmstat, cgroup v2 cpu.stat). */
export function parseFlatKeyed(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const [k, v] = line.trim().split(/\s+/);
    if (k && v !== undefined && /^\d+$/.test(v)) out.set(k, Number(v));
  }
  return out;
}

/** CPU time used by everything on the machine, ns, from the `cpu` line of /proc/stat (idle and iowait excluded). */
export function cpuNsFromProcStat(text: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) return undefined;
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  if (f.length < 4 || f.some((x) => !Number.isFinite(x))) return undefined;
  // user nice system idle iowait irq softirq steal (guest time is already in user)
  const busy = (f[0] ?? 0) + (f[1] ?? 0) + (f[2] ?? 0) + (f[5] ?? 0) + (f[6] ?? 0) + (f[7] ?? 0);
  return (busy * 1e9) / USER_HZ;
}

/** Interfaces of /proc/net/dev (loopback left out, as upstream's node network does). */
export function parseNetDev(text: string): Iface[] {
  const out: Iface[] = [];
  for (const line of text.split('\n').slice(2)) {
    const m = /^\s*([^:\s]+):\s*(.*)$/.exec(line);
    if (!m || m[1] === 'lo') continue;
    const f = m[2]!.trim().split(/\s+/).map(Number);
    if (f.length < 16) continue;
    out.push({ name: m[1]!, rxBytes: f[0]!, rxErrors: f[2]!, txBytes: f[8]!, txErrors: f[10]! });
  }
  return out;
}

/** The interface of the default route (destination 00000000) in /proc/net/route. */
export function defaultRouteInterface(text: string): string | undefined {
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f[1] === '00000000' && f[7] === '00000000') return f[0];
  }
  return undefined;
}

/** statfs of `path`, or of its nearest existing ancestor (a runtime may name a mount point it has not made yet). */
export async function fsFigures(path: string): Promise<FsFigures | undefined> {
  for (let p = path; ; p = dirname(p)) {
    try {
      const s = await statfs(p);
      return {
        capacity: s.blocks * s.bsize,
        available: s.bavail * s.bsize,
        used: (s.blocks - s.bfree) * s.bsize,
        inodes: s.files,
        inodesFree: s.ffree,
        inodesUsed: s.files - s.ffree,
      };
    } catch {
      if (p === dirname(p)) return undefined;
    }
  }
}

export class NodeCollector {
  private readonly proc: string;
  private readonly cgroup: string;
  private reference?: { timeMs: number; coreNs: number };
  /** Read once: computed again per sample, rounding would make the boot time wander by a second. */
  private readonly bootMs = Math.round((Date.now() - os.uptime() * 1000) / 1000) * 1000;

  constructor(o: NodeCollectorOptions = {}) {
    this.proc = o.procDir ?? '/proc';
    this.cgroup = o.cgroupDir ?? '/sys/fs/cgroup';
  }

  /** Takes the first CPU sample, so that the first answer already has a rate. */
  async start(): Promise<void> {
    await this.sample();
  }

  /** CPU time of the machine, ns: the cgroup v2 root's cpu.stat (kernel 5.8+) where readable, else /proc/stat. */
  private async cpuNs(): Promise<number | undefined> {
    const stat = await readText(`${this.cgroup}/cpu.stat`);
    const usec = stat ? parseFlatKeyed(stat).get('usage_usec') : undefined;
    if (usec !== undefined) return usec * 1000;
    const text = await readText(`${this.proc}/stat`);
    return text ? cpuNsFromProcStat(text) : undefined;
  }

  async sample(): Promise<NodeSample> {
    const [coreNs, meminfo, vmstat, netDev, route, psi] = await Promise.all([
      this.cpuNs(),
      readText(`${this.proc}/meminfo`),
      readText(`${this.proc}/vmstat`),
      readText(`${this.proc}/net/dev`),
      readText(`${this.proc}/net/route`),
      nodePressure(`${this.proc}/pressure`),
    ]);
    const timeMs = Date.now();
    const out: NodeSample = { timeMs, bootMs: this.bootMs };

    if (coreNs !== undefined) {
      const ref = this.reference;
      const nanoCores = ref && timeMs > ref.timeMs && coreNs >= ref.coreNs ? Math.round(((coreNs - ref.coreNs) / ((timeMs - ref.timeMs) * 1e6)) * 1e9) : undefined;
      if (!ref || timeMs - ref.timeMs >= RATE_WINDOW_MS || coreNs < ref.coreNs) this.reference = { timeMs, coreNs };
      out.cpu = { coreNs, nanoCores };
    }
    if (meminfo) {
      const m = parseMeminfo(meminfo);
      const total = m.get('MemTotal');
      const free = m.get('MemFree');
      if (total !== undefined && free !== undefined) {
        // cadvisor's root container: usage is what is not free; the working set leaves out the
        // inactive page cache, which the kernel reclaims first; available is capacity minus that.
        const usage = total - free;
        const workingSet = Math.max(0, usage - (m.get('Inactive(file)') ?? 0));
        const vm = vmstat ? parseFlatKeyed(vmstat) : new Map<string, number>();
        out.memory = {
          capacity: total, usage, workingSet, available: total - workingSet,
          rss: m.get('AnonPages'), pageFaults: vm.get('pgfault'), majorPageFaults: vm.get('pgmajfault'),
        };
      }
    }
    if (netDev) {
      const interfaces = parseNetDev(netDev);
      const name = route ? defaultRouteInterface(route) : undefined;
      out.network = { default: interfaces.find((i) => i.name === name) ?? interfaces[0], interfaces };
    }
    if (psi) out.psi = psi;
    const pids = pidCounts();
    if (pids) out.rlimit = pids;
    return out;
  }
}
