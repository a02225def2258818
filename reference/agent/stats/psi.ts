// Pressure stall information (spec 002 §4.2): the node's from /proc/pressure/{cpu,memory,io}
// (kernel 4.20+ with CONFIG_PSI), pods' and containers' from the runtime's stats. Where the kernel
// gives none, there is no `psi` at all: a figure the machine did not give is never made up.
import { readFile } from 'node:fs/promises';
import type { PsiStatsMsg } from './cri-types.js';
import type { PsiData, PsiStats } from './summary-types.js';

export const PSI_RESOURCES = ['cpu', 'memory', 'io'] as const;
export type PsiResource = (typeof PSI_RESOURCES)[number];

/**
 * One pressure file (`some avg10=0.00 avg60=0.00 avg300=0.00 total=0` and the `full` line). The
 * kernel counts `total` in microseconds; the summary, like the CRI, counts nanoseconds. Kernels
 * before 5.13 have no `full` line for cpu, where the figure is zero by definition at node level.
 */
export function parsePressure(text: string): PsiStats | undefined {
  const lines = new Map<string, PsiData>();
  for (const line of text.split('\n')) {
    const m = /^(some|full)\s+avg10=([\d.]+)\s+avg60=([\d.]+)\s+avg300=([\d.]+)\s+total=(\d+)\s*$/.exec(line.trim());
    if (m) lines.set(m[1]!, { avg10: Number(m[2]), avg60: Number(m[3]), avg300: Number(m[4]), total: Number(m[5]) * 1000 });
  }
  const some = lines.get('some');
  if (!some) return undefined;
  return { full: lines.get('full') ?? { total: 0, avg10: 0, avg60: 0, avg300: 0 }, some };
}

/** The node's PSI per resource; undefined when the kernel has no /proc/pressure (or PSI is off). */
export async function nodePressure(dir = '/proc/pressure'): Promise<Record<PsiResource, PsiStats> | undefined> {
  try {
    const texts = await Promise.all(PSI_RESOURCES.map((r) => readFile(`${dir}/${r}`, 'utf8')));
    const parsed = texts.map(parsePressure);
    if (parsed.some((p) => !p)) return undefined;
    return { cpu: parsed[0]!, memory: parsed[1]!, io: parsed[2]! };
  } catch {
    // ENOENT without CONFIG_PSI; EOPNOTSUPP when built in but disabled (psi=0 on the command line).
    return undefined;
  }
}

const psiData = (d: { Total: string; Avg10: number; Avg60: number; Avg300: number }): PsiData =>
  ({ total: Number(d.Total), avg10: d.Avg10, avg60: d.Avg60, avg300: d.Avg300 });

/** The runtime's PSI as the summary shows it; undefined when the runtime gave none. */
export function psiFromCri(p: PsiStatsMsg | null | undefined): PsiStats | undefined {
  if (!p?.Some) return undefined;
  return { full: p.Full ? psiData(p.Full) : { total: 0, avg10: 0, avg60: 0, avg300: 0 }, some: psiData(p.Some) };
}
