// The eviction manager's signals and hard thresholds, as far as node conditions need them (spec 001
// §3 pressure conditions; the spec does not say how pressure is judged, so the reference follows
// upstream's agent): `evictionHard` of the configuration maps a signal to a threshold, a quantity
// ("100Mi") or a percentage of the signal's capacity ("10%"); a threshold is met when the signal's
// available amount is below it. Signals: memory.available (the machine's available memory),
// nodefs.available / nodefs.inodesFree (statfs of the root dir), imagefs.available /
// imagefs.inodesFree (the same filesystem: the reference keeps images nowhere else), pid.available
// (pid_max less the processes running). Met memory thresholds give MemoryPressure, fs ones
// DiskPressure, pid ones PIDPressure; a condition stays True for evictionPressureTransitionPeriod
// after its last threshold stopped being met, as upstream's. Pods are not evicted: the reference
// only reports the conditions.
import { readFileSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import * as os from 'node:os';
import { parseQuantity } from '../apiserver/quantity.js';

export type Pressure = 'memory' | 'disk' | 'pid';

/** Upstream's signals and the pressure each reports (its signalToNodeCondition, without allocatable and containerfs). */
const SIGNALS: Readonly<Record<string, Pressure>> = {
  'memory.available': 'memory',
  'nodefs.available': 'disk',
  'nodefs.inodesFree': 'disk',
  'imagefs.available': 'disk',
  'imagefs.inodesFree': 'disk',
  'pid.available': 'pid',
};

/** Upstream's default evictionHard on Linux. */
export const DEFAULT_EVICTION_HARD: Readonly<Record<string, string>> = {
  'memory.available': '100Mi',
  'nodefs.available': '10%',
  'nodefs.inodesFree': '5%',
  'imagefs.available': '15%',
  'imagefs.inodesFree': '5%',
};

export interface Threshold {
  signal: string;
  /** An absolute amount (bytes, inodes or process ids) ... */
  quantity?: number;
  /** ... or a fraction of the signal's capacity (0 < p < 1). */
  fraction?: number;
}

export class EvictionConfigError extends Error {
  override name = 'EvictionConfigError';
}

/** Parses evictionHard as upstream's parseThresholdStatement: unknown signals and bad values are errors; 0% and 100% are ignored. */
export function parseEvictionHard(map: Readonly<Record<string, string>>): Threshold[] {
  const out: Threshold[] = [];
  for (const [signal, raw] of Object.entries(map)) {
    if (!(signal in SIGNALS)) throw new EvictionConfigError(`evictionHard: unsupported eviction signal ${signal}`);
    const val = String(raw).trim();
    if (val.endsWith('%')) {
      if (val === '0%' || val === '100%') continue;
      const p = Number(val.slice(0, -1));
      if (!Number.isFinite(p) || val.length === 1) throw new EvictionConfigError(`evictionHard: ${signal}: ${JSON.stringify(val)} is not a percentage`);
      if (p < 0) throw new EvictionConfigError(`eviction percentage threshold ${signal} must be >= 0%: ${val}`);
      if (p > 100) throw new EvictionConfigError(`eviction percentage threshold ${signal} must be <= 100%: ${val}`);
      out.push({ signal, fraction: p / 100 });
      continue;
    }
    const q = parseQuantity(val);
    if (!q.ok) throw new EvictionConfigError(`evictionHard: ${signal}: ${q.error}`);
    const n = Number(q.quantity.milliValue()) / 1000;
    if (!(n > 0)) throw new EvictionConfigError(`eviction threshold ${signal} must be positive: ${val}`);
    out.push({ signal, quantity: n });
  }
  return out;
}

/** pid_max and the number of processes (threads) now: the rlimit figures of the node. */
export function pidCounts(): { max: number; used: number } | undefined {
  try {
    const max = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8').trim());
    const used = Number(/^(\d+)/.exec(readFileSync('/proc/loadavg', 'utf8').split(' ')[3]?.split('/')[1] ?? '')?.[1]);
    if (Number.isFinite(max) && Number.isFinite(used)) return { max, used };
  } catch { /* Linux only */ }
  return undefined;
}

/**
 * Memory available as upstream counts it (capacity minus the working set, which leaves out the page
 * cache the kernel can drop): the kernel's MemAvailable. os.freemem() is MemFree, which a busy page
 * cache drives near zero on a machine with plenty to spare, and would report pressure falsely.
 */
function memoryAvailable(): number {
  try {
    const kb = /^MemAvailable:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1];
    if (kb) return Number(kb) * 1024;
  } catch { /* Linux only */ }
  return os.freemem();
}

/** One signal's observation: what is available and of how much (the base of a percentage). */
export interface Observation { available: number; capacity: number }

/** The node's signals now; a signal that cannot be read is left out (its thresholds are not judged). */
export async function observeSignals(rootDir: string): Promise<Record<string, Observation>> {
  const obs: Record<string, Observation> = {
    'memory.available': { available: memoryAvailable(), capacity: os.totalmem() },
  };
  try {
    const s = await statfs(rootDir);
    const bytes = { available: s.bavail * s.bsize, capacity: s.blocks * s.bsize };
    obs['nodefs.available'] = obs['imagefs.available'] = bytes;
    // Filesystems without inodes (some report 0 files) have no inode signal.
    if (s.files > 0) obs['nodefs.inodesFree'] = obs['imagefs.inodesFree'] = { available: s.ffree, capacity: s.files };
  } catch { /* root dir not there yet */ }
  const pids = pidCounts();
  if (pids) obs['pid.available'] = { available: pids.max - pids.used, capacity: pids.max };
  return obs;
}

/** The signals whose thresholds are met. */
export function thresholdsMet(thresholds: readonly Threshold[], obs: Readonly<Record<string, Observation>>): string[] {
  return thresholds.filter((t) => {
    const o = obs[t.signal];
    if (!o) return false;
    const min = t.quantity ?? (t.fraction ?? 0) * o.capacity;
    return o.available < min;
  }).map((t) => t.signal);
}

/**
 * The pressure conditions over time: a condition is True while one of its thresholds is met and for
 * `transitionPeriodMs` after the last time one was (upstream's evictionPressureTransitionPeriod,
 * which keeps a node from flapping between pressure and none).
 */
export class PressureTracker {
  private readonly lastMet = new Map<Pressure, number>();

  constructor(private readonly thresholds: readonly Threshold[], private readonly transitionPeriodMs: number, private readonly rootDir: string) {}

  async pressure(now = Date.now()): Promise<Record<Pressure, boolean>> {
    return this.assess(await observeSignals(this.rootDir), now);
  }

  /** The pressure conditions given the node's signals now (observeSignals), for a caller that reads them anyway. */
  assess(obs: Readonly<Record<string, Observation>>, now = Date.now()): Record<Pressure, boolean> {
    const met = thresholdsMet(this.thresholds, obs);
    for (const signal of met) this.lastMet.set(SIGNALS[signal]!, now);
    const on = (p: Pressure) => {
      const t = this.lastMet.get(p);
      return t !== undefined && now - t < Math.max(this.transitionPeriodMs, 1);
    };
    return { memory: on('memory'), disk: on('disk'), pid: on('pid') };
  }
}
