// What a run checked and what it left out: skipped cases grouped by reason with the flags that would
// let them run, the guard against a run that checked nothing, and the run's verdict policy
// (`--fail-on-skip`, `--min-coverage`). The runner's exit code and every report's verdict read these.
import type { CaseResult, RunReport } from '../runner/results.js';
import { coverageOf } from './coverage.js';

/** The file reports list this many skip reasons at most (the JSON report keeps every skipped case). */
export const SKIP_GROUPS_SHOWN = 50;

/** What grouping needs of a run: its cases' ids, statuses and reasons (`list` passes the cases it would skip). */
export interface SkippedCases {
  cases: readonly Pick<CaseResult, 'id' | 'status' | 'message'>[];
}

/** Skipped cases that share one reason. */
export interface SkipGroup {
  reason: string;
  count: number;
  /** The flags the reason names (e.g. `--agent`, `--node`): giving them lets these cases run. */
  flags: string[];
  ids: string[];
}

/**
 * Run flags a skip reason names, in order, once each: the runner's reasons end with the flag to
 * pass. Flags inside `code spans` belong to other commands (`orch-conformance mock-cri --control`).
 */
export function flagsIn(reason: string): string[] {
  const prose = reason.replace(/`[^`]*`/g, '');
  return [...new Set(prose.match(/(?<![\w-])--[a-z][a-z0-9-]*/g) ?? [])];
}

/** The run's skipped cases grouped by reason, the largest group first (ties by reason). */
export function skipGroups(report: SkippedCases): SkipGroup[] {
  const groups = new Map<string, SkipGroup>();
  for (const c of report.cases) {
    if (c.status !== 'skipped') continue;
    let g = groups.get(c.message);
    if (!g) groups.set(c.message, (g = { reason: c.message, count: 0, flags: flagsIn(c.message), ids: [] }));
    g.count++;
    g.ids.push(c.id);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
}

/** Every flag the skip reasons ask for, the most asked first. */
export function flagsAskedFor(groups: readonly SkipGroup[]): string[] {
  const weight = new Map<string, number>();
  for (const g of groups) for (const f of g.flags) weight.set(f, (weight.get(f) ?? 0) + g.count);
  return [...weight].sort((a, b) => b[1] - a[1]).map(([f]) => f);
}

/**
 * True when the run selected cases and none of them ran (each was skipped): it checked nothing, so
 * it is no pass, whatever else it says. An interrupted run is judged as interrupted instead.
 */
export function nothingRan(report: Pick<RunReport, 'cases' | 'interrupted'>): boolean {
  return !report.interrupted && report.cases.length > 0 && report.cases.every((c) => c.status === 'skipped');
}

/** How many requirements the run checked: of the catalogue (`total`) and of those its selected cases name (`selected`). */
export interface RequirementsChecked {
  /** Requirements some case of this run ran for (passed, failed, errored, warned or a known failure). */
  checked: number;
  /** Requirements named by a selected case. */
  selected: number;
  /** Requirements of the catalogue. */
  total: number;
  /** Requirements some case of the kit names but no selected case does (a partial run). */
  notSelected: number;
}

export function requirementsChecked(report: RunReport): RequirementsChecked {
  const t = coverageOf(report).total;
  const checked = t.passed + t.failed + t.errored + t.warned + (t.knownFailures ?? 0);
  return { checked, selected: t.requirements - t.notRun - t.notCovered, total: t.requirements, notSelected: t.notRun };
}

/** The share of the selected requirements the run checked, in percent, rounded down to 0.1 (100 when none was selected). */
export function checkedPercent(r: RequirementsChecked): number {
  return r.selected === 0 ? 100 : Math.floor((r.checked / r.selected) * 1000) / 10;
}

/** Why the run fails its policy (`--fail-on-skip`, `--min-coverage`); empty when it meets it or has none. */
export function policyFailures(report: RunReport): string[] {
  const policy = report.policy;
  if (!policy) return [];
  const out: string[] = [];
  const skipped = report.cases.filter((c) => c.status === 'skipped').length;
  if (policy.failOnSkip && skipped > 0) out.push(`${skipped} selected case${skipped === 1 ? '' : 's'} skipped (--fail-on-skip)`);
  if (policy.minCoverage !== undefined) {
    const r = requirementsChecked(report);
    const pct = checkedPercent(r);
    if (pct < policy.minCoverage) out.push(`${pct}% of the selected requirements checked (${r.checked} of ${r.selected}), below --min-coverage ${policy.minCoverage}%`);
  }
  return out;
}

/**
 * The grouped skip summary as text lines: each reason with its count and the flags that would let
 * its cases run; with `ids`, the cases of each group too (`--fail-on-skip` lists them).
 */
export function skipSummaryLines(report: SkippedCases, opts: { ids?: boolean } = {}): string[] {
  const out: string[] = [];
  for (const g of skipGroups(report)) {
    out.push(`  ${g.count} case${g.count === 1 ? '' : 's'}: ${g.reason}${g.flags.length ? ` (flags: ${g.flags.join(', ')})` : ''}`);
    if (opts.ids) for (const id of g.ids) out.push(`      ${id}`);
  }
  return out;
}
