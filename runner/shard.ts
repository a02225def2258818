// `run --shard i/n`: one deterministic slice of a selection, so that a CI farm splits a run across
// machines and `report merge` puts the slices back together. Every shard of the same selection and
// kit computes the same partition, with no coordination: by a stable hash of the case ids, or, given
// a previous run's results (`--shard-timings`), by the durations the cases took there.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { UsageError } from './errors.js';
import type { RunReport, ShardSpec } from './results.js';

/** `2/4` -> { index: 2, count: 4 }: index 1-based, 1 <= index <= count. */
export function parseShard(text: string): ShardSpec {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(String(text));
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count) {
    throw new UsageError(`--shard ${text}: want <index>/<count> with 1 <= index <= count, e.g. --shard 2/4 (the second of four slices)`);
  }
  return { index, count };
}

/**
 * Each case's duration in milliseconds from a results file (`run --reporter json=FILE`, or a merged
 * one): the cases that ran (a skip took no time and says nothing about how long the case runs).
 */
export function loadShardTimings(file: string): Map<string, number> {
  let report: RunReport;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--shard-timings ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  if (!report || !Array.isArray(report.cases)) throw new UsageError(`--shard-timings ${file}: not a results file written by 'run --reporter json=FILE'`);
  const out = new Map<string, number>();
  for (const c of report.cases) {
    if (typeof c?.id !== 'string' || typeof c.durationMs !== 'number') continue;
    if (c.status === 'skipped' || c.status === 'unstarted' || c.status === 'interrupted') continue;
    out.set(c.id, Math.max(0, c.durationMs));
  }
  return out;
}

/** A stable 48-bit number per case id: the same on every machine and in every Node version. */
function idHash(id: string): number {
  return parseInt(createHash('sha256').update(id).digest('hex').slice(0, 12), 16);
}

/**
 * The cases of `shard`, in their original order. Without timings: the cases ordered by a hash of
 * their ids and dealt out in turn, so shard sizes differ by at most one and a case's shard does not
 * depend on the order the selection lists them in. With timings: longest first, each to the shard
 * with the least time so far (ties to the lower index); a case the timings lack weighs as the median
 * of those they have, so new cases spread out too.
 */
export function shardCases<T extends { readonly id: string }>(cases: readonly T[], shard: ShardSpec, timings?: ReadonlyMap<string, number>): T[] {
  const slot = assignShards(cases.map((c) => c.id), shard.count, timings);
  return cases.filter((c) => slot.get(c.id) === shard.index);
}

/** Case id -> the shard (1-based) it belongs to, for every id given. */
export function assignShards(ids: readonly string[], count: number, timings?: ReadonlyMap<string, number>): Map<string, number> {
  const byHash = [...new Set(ids)].map((id) => ({ id, h: idHash(id) })).sort((a, b) => a.h - b.h || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const out = new Map<string, number>();
  const known = timings ? byHash.map((x) => timings.get(x.id)).filter((d): d is number => d !== undefined).sort((a, b) => a - b) : [];
  if (!timings || known.length === 0) {
    byHash.forEach((x, i) => out.set(x.id, (i % count) + 1));
    return out;
  }
  const median = known[Math.floor(known.length / 2)]!;
  // Longest first; equal durations keep the hash order, so the result is the same everywhere.
  const weighted = byHash.map((x, i) => ({ id: x.id, d: timings.get(x.id) ?? median, i })).sort((a, b) => b.d - a.d || a.i - b.i);
  const load = new Array<number>(count).fill(0);
  const size = new Array<number>(count).fill(0);
  for (const x of weighted) {
    let best = 0;
    for (let s = 1; s < count; s++) {
      if (load[s]! < load[best]! || (load[s] === load[best] && size[s]! < size[best]!)) best = s;
    }
    load[best] = load[best]! + x.d;
    size[best] = size[best]! + 1;
    out.set(x.id, best + 1);
  }
  return out;
}

/**
 * The run id of a shard when the operator named the run: each shard gets its own (`<id>s<index>`),
 * since shards may run against one target at once, and each cleans up and audits only its own objects.
 */
export function shardRunId(runId: string, shard: ShardSpec): string {
  return `${runId}s${shard.index}`;
}
