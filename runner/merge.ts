// `report merge`: the JSON results of a sharded run's slices (`run --shard i/n`) put back into one
// report, as if one run had run them all. It refuses what would make that report wrong: parts of
// different kit versions or selections, a slice given twice or missing, a case in two slices.
import { ALL_CASES } from '../suites/index.js';
import { computeCoverage } from '../reporters/coverage.js';
import { UsageError } from './errors.js';
import { summarise, TOOL } from './run.js';
import type { BackgroundLoad, CaseResult, RunReport, RunSelection, ShardRecord } from './results.js';

export interface MergeInput {
  /** Where the part was read from, for messages. */
  file: string;
  report: RunReport;
}

/** The selection as the shards must agree on it: `partial` says a shard is one, so it is left out. */
function selectionKey(sel: RunSelection | undefined): string {
  if (!sel) return 'none';
  const { partial: _partial, ...rest } = sel;
  // Key order must not matter: the same selection written by another run compares equal.
  const sorted = (v: unknown): unknown => Array.isArray(v) ? v.map(sorted)
    : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, sorted(x)]))
    : v;
  return JSON.stringify(sorted(rest));
}

/** Which selection fields differ between two parts, for the refusal message. */
function selectionDiff(a: RunSelection | undefined, b: RunSelection | undefined): string[] {
  const keys = new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})].filter((k) => k !== 'partial'));
  return [...keys].filter((k) => JSON.stringify((a as any)?.[k]) !== JSON.stringify((b as any)?.[k])).sort();
}

/**
 * One report of the parts' cases: summary and requirement coverage recomputed over them all, the
 * runs it came from in `merged` (each with its selection and target), the wall time from the first
 * start to the last end. Throws a UsageError naming the first thing that makes the parts unmergeable.
 */
export function mergeReports(parts: readonly MergeInput[]): RunReport {
  if (parts.length < 2) throw new UsageError('report merge: give the JSON results of at least two shards (run --shard i/n --reporter json=FILE)');
  for (const { file, report } of parts) {
    if (report.merged?.length) throw new UsageError(`report merge: ${file} is itself a merged report; merge the shards' own results`);
    if (!report.shard) throw new UsageError(`report merge: ${file} is not a shard's results (it was not written by run --shard i/n)`);
  }
  const [first, ...rest] = parts as [MergeInput, ...MergeInput[]];
  for (const p of rest) {
    if (p.report.tool !== first.report.tool || p.report.version !== first.report.version) {
      throw new UsageError(`report merge: ${p.file} was written by ${p.report.tool} ${p.report.version} and ${first.file} by ${first.report.tool} ${first.report.version}: shards of different kit versions select and check different cases`);
    }
    if (p.report.shard!.count !== first.report.shard!.count) {
      throw new UsageError(`report merge: ${p.file} is shard ${p.report.shard!.index}/${p.report.shard!.count} and ${first.file} shard ${first.report.shard!.index}/${first.report.shard!.count}: slices of different splits`);
    }
    if (selectionKey(p.report.selection) !== selectionKey(first.report.selection)) {
      throw new UsageError(`report merge: ${p.file} and ${first.file} are shards of different selections (${selectionDiff(p.report.selection, first.report.selection).join(', ')} differ): run every shard with the same selection options`);
    }
  }
  const count = first.report.shard!.count;
  const byIndex = new Map<number, string>();
  for (const { file, report } of parts) {
    const seen = byIndex.get(report.shard!.index);
    if (seen) throw new UsageError(`report merge: shard ${report.shard!.index}/${count} given twice (${seen} and ${file})`);
    byIndex.set(report.shard!.index, file);
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length) throw new UsageError(`report merge: shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} missing: a merged report must hold every slice`);

  const owner = new Map<string, string>();
  for (const { file, report } of parts) {
    for (const c of report.cases) {
      const other = owner.get(c.id);
      if (other) throw new UsageError(`report merge: case ${c.id} is in ${other} and in ${file}: the shards overlap (were they split with different --shard-timings?)`);
      owner.set(c.id, file);
    }
  }
  const selected = first.report.selection?.selectedCases;
  if (selected !== undefined && owner.size !== selected) {
    throw new UsageError(`report merge: the shards hold ${owner.size} case(s) but their selection has ${selected}: slices split differently (different --shard-timings?) or interrupted before listing every case`);
  }

  // The kit's order, as one run lists its cases; ids the kit lacks (none, for the same version) last.
  const order = new Map(ALL_CASES.map((c, i) => [c.id, i]));
  const rank = (c: CaseResult) => order.get(c.id) ?? Number.MAX_SAFE_INTEGER;
  const cases = parts.flatMap((p) => p.report.cases).sort((a, b) => rank(a) - rank(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const starts = parts.map((p) => Date.parse(p.report.startedAt));
  const ends = parts.map((p, i) => starts[i]! + p.report.durationMs);
  const start = Math.min(...starts);
  const sorted = [...parts].sort((a, b) => a.report.shard!.index - b.report.shard!.index);
  const merged: ShardRecord[] = sorted.map(({ report }) => ({
    runId: report.runId,
    shard: { ...report.shard! },
    target: report.target,
    ...(report.selection ? { selection: report.selection } : {}),
    startedAt: report.startedAt,
    durationMs: report.durationMs,
    cases: report.cases.length,
    ...(report.backgroundLoad ? { backgroundLoad: report.backgroundLoad } : {}),
  }));
  // The load the merged run ran under: the shards' nodes add up when each started its own; hollow
  // Nodes found already running were the same ones for every shard, so the most any shard saw.
  const loads = parts.map((p) => p.report.backgroundLoad).filter((l): l is BackgroundLoad => l !== undefined);
  const startedLoads = loads.filter((l) => l.source === 'started by the run');
  const already = Math.max(0, ...loads.map((l) => (l.source === 'already running' ? l.hollowNodes : l.alreadyRunning ?? 0)));
  const endedEarly = loads.map((l) => l.endedEarly).filter((e): e is string => !!e);
  const backgroundLoad: BackgroundLoad | undefined = startedLoads.length > 0
    ? {
      hollowNodes: startedLoads.reduce((n, l) => n + l.hollowNodes, 0), source: 'started by the run',
      ...(already > 0 ? { alreadyRunning: already } : {}),
      ...(endedEarly.length > 0 ? { endedEarly: endedEarly.join('; ') } : {}),
    }
    : loads.length > 0 ? { hollowNodes: already, source: 'already running' } : undefined;
  const selection = first.report.selection ? { ...first.report.selection, partial: first.report.selection.selectedCases < first.report.selection.totalCases } : undefined;
  return {
    tool: first.report.tool ?? TOOL,
    version: first.report.version,
    // The report's one target is the first shard's; each shard's own is in `merged`.
    target: sorted[0]!.report.target,
    runId: sorted.map((p) => p.report.runId).join('+'),
    startedAt: new Date(start).toISOString(),
    durationMs: Math.max(...ends) - start,
    summary: summarise(cases),
    cases,
    leaks: parts.flatMap((p) => p.report.leaks ?? []).sort(),
    cleanupUnverified: parts.flatMap((p) => p.report.cleanupUnverified ?? []).sort(),
    interrupted: parts.some((p) => p.report.interrupted),
    strict: !!first.report.strict,
    ...(selection ? { selection } : {}),
    coverage: computeCoverage(cases),
    merged,
    // The shards of one run carry one --label; shards labelled apart keep the first's.
    ...(sorted[0]!.report.label !== undefined ? { label: sorted[0]!.report.label } : {}),
    ...(backgroundLoad ? { backgroundLoad } : {}),
  };
}
