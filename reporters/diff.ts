// `report diff base.json head.json`: what changed between two runs (two commits of an implementation,
// or two implementations): regressions, fixes, other status changes, cases new and removed, and the
// requirements whose result changed. Rendered for a terminal, as JSON, or as Markdown bounded to fit
// a pull-request comment.
import type { CaseResult, CaseStatus, CoverageCounts, RunReport } from '../runner/results.js';
import { UsageError } from '../runner/errors.js';
import { byRequirement, coverageOf, requirementResult, type RequirementResult } from './coverage.js';

/** A case in both runs whose status changed. */
export interface StatusChange {
  id: string;
  title: string;
  base: CaseStatus;
  head: CaseStatus;
  /** The head run's message (failure, error or skip reason), first line. */
  message?: string;
  /** The head run lists it as a known failure (--expect). */
  knownFailure?: boolean;
}

export interface RequirementChange {
  id: string;
  base: RequirementResult;
  head: RequirementResult;
}

export interface RunDiff {
  base: DiffSide;
  head: DiffSide;
  /** Passed (or flaky: held on a retry) in base, failed or errored in head. */
  regressions: StatusChange[];
  /** Failed or errored in base, passed (or flaky) in head. */
  fixes: StatusChange[];
  /** Any other change of status (e.g. passed -> skipped, warned -> passed). */
  changed: StatusChange[];
  /** In head only / in base only. */
  added: Array<{ id: string; title: string; status: CaseStatus }>;
  removed: Array<{ id: string; title: string; status: CaseStatus }>;
  /** Requirements whose result (the worst of their cases') differs. */
  requirements: RequirementChange[];
}

/** What the diff says about each run: enough to tell which is which. */
export interface DiffSide {
  runId: string;
  version: string;
  target: string;
  startedAt: string;
  /** Requirements passed (met) out of the catalogue's, from the run's coverage. */
  requirementsPassed: number;
  requirements: number;
  cases: number;
  /** The run's requirement counts (coverage total): where each catalogue requirement stands. */
  coverage: CoverageCounts;
}

const GOOD = new Set<CaseStatus>(['passed', 'flaky']);
const BAD = new Set<CaseStatus>(['failed', 'errored']);

function side(r: RunReport): DiffSide {
  const cov = coverageOf(r).total;
  const target = r.target?.embedded ? 'embedded reference' : r.target?.api ?? 'unknown target';
  return { runId: r.runId, version: r.version, target, startedAt: r.startedAt, requirementsPassed: cov.passed, requirements: cov.requirements, cases: r.cases.length, coverage: { ...cov } };
}

const firstLine = (s: string | undefined) => (s ?? '').split('\n')[0]!.trim();
const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Each requirement's result in a run, over the requirements its cases name. */
function requirementResults(cases: readonly CaseResult[]): Map<string, RequirementResult> {
  return new Map([...byRequirement(cases)].map(([id, rs]) => [id, requirementResult(rs, true)]));
}

export function diffReports(base: RunReport, head: RunReport): RunDiff {
  const baseCases = new Map(base.cases.map((c) => [c.id, c]));
  const headCases = new Map(head.cases.map((c) => [c.id, c]));
  const out: RunDiff = { base: side(base), head: side(head), regressions: [], fixes: [], changed: [], added: [], removed: [], requirements: [] };
  for (const h of head.cases) {
    const b = baseCases.get(h.id);
    if (!b) {
      out.added.push({ id: h.id, title: h.title, status: h.status });
      continue;
    }
    if (b.status === h.status) continue;
    const change: StatusChange = { id: h.id, title: h.title, base: b.status, head: h.status, ...(h.message ? { message: firstLine(h.message) } : {}), ...(h.knownFailure ? { knownFailure: true } : {}) };
    if (GOOD.has(b.status) && BAD.has(h.status)) out.regressions.push(change);
    else if (BAD.has(b.status) && GOOD.has(h.status)) out.fixes.push(change);
    else out.changed.push(change);
  }
  for (const b of base.cases) if (!headCases.has(b.id)) out.removed.push({ id: b.id, title: b.title, status: b.status });
  const rb = requirementResults(base.cases);
  const rh = requirementResults(head.cases);
  for (const id of new Set([...rb.keys(), ...rh.keys()])) {
    const b = rb.get(id) ?? 'not-run';
    const h = rh.get(id) ?? 'not-run';
    if (b !== h) out.requirements.push({ id, base: b, head: h });
  }
  for (const list of [out.regressions, out.fixes, out.changed, out.added, out.removed, out.requirements]) list.sort(byId);
  return out;
}

/** Exit status of `report diff`: 1 when head regressed a case (a PR gate), else 0. */
export function diffExitCode(d: RunDiff): 0 | 1 {
  return d.regressions.length ? 1 : 0;
}

/** The requirement counts that changed, e.g. "passed 700 -> 698, failed 3 -> 5"; empty when none did. */
export function coverageChanges(d: RunDiff): string[] {
  const keys: Array<[keyof CoverageCounts, string]> = [['passed', 'passed'], ['failed', 'failed'], ['errored', 'errored'], ['warned', 'warned'], ['skipped', 'skipped'], ['interrupted', 'interrupted'], ['notRun', 'not run'], ['covered', 'covered by the kit'], ['notCovered', 'not covered'], ['requirements', 'in the catalogue']];
  return keys.filter(([k]) => d.base.coverage[k] !== d.head.coverage[k]).map(([k, label]) => `${label} ${d.base.coverage[k]} -> ${d.head.coverage[k]}`);
}

function headline(d: RunDiff): string {
  const n = (k: number, one: string, many = `${one}s`) => `${k} ${k === 1 ? one : many}`;
  return `${n(d.regressions.length, 'regression')}, ${n(d.fixes.length, 'fix', 'fixes')}, ${n(d.changed.length, 'other change')}, ${d.added.length} new, ${d.removed.length} removed; requirements passed ${d.base.requirementsPassed} -> ${d.head.requirementsPassed} of ${d.head.requirements}`;
}

export function renderDiffConsole(d: RunDiff): string {
  const lines = [
    `base: ${d.base.runId} (${d.base.version}, ${d.base.target}, ${d.base.cases} cases)`,
    `head: ${d.head.runId} (${d.head.version}, ${d.head.target}, ${d.head.cases} cases)`,
  ];
  const change = (c: StatusChange) => `  ${c.id}: ${c.base} -> ${c.head}${c.knownFailure ? ' (known failure in head)' : ''}${c.message ? `: ${c.message}` : ''}`;
  const section = (title: string, rows: string[]) => { if (rows.length) lines.push('', `${title} (${rows.length}):`, ...rows); };
  section('Regressions', d.regressions.map(change));
  section('Fixes', d.fixes.map(change));
  section('Other changes', d.changed.map(change));
  section('New cases', d.added.map((c) => `  ${c.id}: ${c.status}`));
  section('Removed cases', d.removed.map((c) => `  ${c.id}: was ${c.status}`));
  section('Requirements whose result changed', d.requirements.map((r) => `  ${r.id}: ${r.base} -> ${r.head}`));
  const counts = coverageChanges(d);
  if (counts.length) lines.push('', `Requirement counts: ${counts.join(', ')}`);
  lines.push('', `${d.regressions.length ? 'REGRESSED' : 'NO REGRESSION'}: ${headline(d)}`);
  return `${lines.join('\n')}\n`;
}

/** GitHub refuses comments over 65,536 characters; this leaves room for a bot's own header. */
export const DIFF_MARKDOWN_BUDGET = 60_000;

/** Markdown table cell: no pipes or line breaks from a target's answer, and bounded. */
function cell(s: string, max = 160): string {
  const t = s.replace(/\s+/g, ' ').replace(/\|/g, '\\|').replace(/</g, '&lt;');
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/**
 * Markdown for a PR comment: the headline first, then each list as a table, rows added while the
 * whole stays under `budget` characters; what did not fit is counted and pointed to the JSON diff.
 */
export function renderDiffMarkdown(d: RunDiff, budget = DIFF_MARKDOWN_BUDGET): string {
  const head = [
    `## Conformance diff: ${d.regressions.length ? 'regressed' : 'no regression'}`,
    '',
    `**${cell(headline(d), 400)}**`,
    '',
    `| | run | version | target | cases |`,
    `|---|---|---|---|---|`,
    `| base | ${cell(d.base.runId)} | ${cell(d.base.version)} | ${cell(d.base.target)} | ${d.base.cases} |`,
    `| head | ${cell(d.head.runId)} | ${cell(d.head.version)} | ${cell(d.head.target)} | ${d.head.cases} |`,
    ...(coverageChanges(d).length ? ['', `Requirement counts: ${cell(coverageChanges(d).join(', '), 600)}`] : []),
  ].join('\n');
  const tail = '\n';
  let used = head.length + tail.length;
  const parts = [head];
  const omittedNote = (n: number) => `\n_… and ${n} more not shown here: \`orch-conformance report diff base.json head.json --reporter json\` lists them all._\n`;
  // Room kept for each section's "and N more" line, so the notes themselves never break the budget.
  const reserve = 200;
  const table = (title: string, header: string, rows: string[]) => {
    if (rows.length === 0) return;
    const top = `\n\n### ${title} (${rows.length})\n\n${header}\n`;
    if (used + top.length + reserve > budget) {
      const note = `\n\n### ${title} (${rows.length})\n${omittedNote(rows.length)}`;
      if (used + note.length <= budget) { parts.push(note); used += note.length; }
      return;
    }
    parts.push(top);
    used += top.length;
    let shown = 0;
    for (const row of rows) {
      if (used + row.length + 1 + reserve > budget) break;
      parts.push(`${row}\n`);
      used += row.length + 1;
      shown++;
    }
    if (shown < rows.length) {
      const note = omittedNote(rows.length - shown);
      parts.push(note);
      used += note.length;
    }
  };
  const changeRows = (cs: StatusChange[]) => cs.map((c) => `| \`${cell(c.id, 120)}\` | ${c.base} → ${c.head}${c.knownFailure ? ' (known)' : ''} | ${cell(c.message ?? '')} |`);
  table('Regressions', '| case | status | message |\n|---|---|---|', changeRows(d.regressions));
  table('Fixes', '| case | status | message |\n|---|---|---|', changeRows(d.fixes));
  table('Other changes', '| case | status | message |\n|---|---|---|', changeRows(d.changed));
  table('New cases', '| case | status |\n|---|---|', d.added.map((c) => `| \`${cell(c.id, 120)}\` | ${c.status} |`));
  table('Removed cases', '| case | was |\n|---|---|', d.removed.map((c) => `| \`${cell(c.id, 120)}\` | ${c.status} |`));
  table('Requirements whose result changed', '| requirement | result |\n|---|---|', d.requirements.map((r) => `| \`${cell(r.id, 120)}\` | ${r.base} → ${r.head} |`));
  parts.push(tail);
  return parts.join('');
}

export const DIFF_REPORTERS = ['console', 'markdown', 'json'] as const;

/** The diff rendered by reporter name (`console`, `markdown`, `json`). */
export function renderDiff(name: string, d: RunDiff): string {
  if (name === 'console') return renderDiffConsole(d);
  if (name === 'markdown') return renderDiffMarkdown(d);
  if (name === 'json') return `${JSON.stringify(d, null, 2)}\n`;
  throw new UsageError(`report diff: reporter "${name}" is not one for diffs; use ${DIFF_REPORTERS.join(', ')}`);
}
