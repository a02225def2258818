// Helpers shared by the reporters: outcomes, verdict, durations, exchanges, escaping, output.
import { findingLabel, type Finding } from '../suites/findings.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { CaseAttempt, CaseResult, Exchange, RunReport } from '../runner/results.js';
import type { Reporter } from './types.js';
import { isPartial } from './coverage.js';
import { flagsAskedFor, nothingRan, policyFailures, requirementsChecked, skipGroups } from './skips.js';

/**
 * What a case means for the run, known-failure list applied: a listed failure does not fail the
 * run, a listed case that passed does.
 */
export type Outcome = 'passed' | 'failed' | 'warned' | 'errored' | 'skipped' | 'interrupted' | 'flaky' | 'unstarted' | 'known-failure' | 'unexpected-pass';

export function outcome(c: CaseResult): Outcome {
  if (c.unexpectedPass) return 'unexpected-pass';
  if (c.knownFailure && (c.status === 'failed' || c.status === 'warned' || c.status === 'errored')) return 'known-failure';
  return c.status;
}

import { failsRun } from '../runner/run.js';
export { failsRun };

export type Verdict = 'PASS' | 'FAIL' | 'INCOMPLETE' | 'UNCHECKED';

/**
 * FAIL when a case fails the run or objects were left behind (both make the exit code 1);
 * otherwise INCOMPLETE when interrupted; otherwise UNCHECKED when no selected case ran (every one
 * was skipped: exit code 2, a set-up to fix); otherwise FAIL when the run misses its policy
 * (`--fail-on-skip`, `--min-coverage`); otherwise PASS. runner/run.ts exitCodeFor agrees.
 */
export function verdict(report: RunReport): Verdict {
  if (report.cases.some((c) => failsRun(c, report.strict)) || report.leaks.length > 0) return 'FAIL';
  if (report.interrupted) return 'INCOMPLETE';
  if (nothingRan(report)) return 'UNCHECKED';
  if (policyFailures(report).length) return 'FAIL';
  return 'PASS';
}

/** `1 warning`, `3 warnings`. */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/**
 * The verdict with what qualifies it: warnings (SHOULD rules not met, which do not fail the run
 * without --strict) and a partial selection, e.g. "PASS with 3 warnings (partial run: 12 of 724 cases)".
 */
export function verdictHeadline(report: RunReport): string {
  const warned = report.summary.warned;
  const sel = report.selection;
  return [
    verdict(report),
    warned ? ` with ${plural(warned, 'warning')}` : '',
    // A shard ran its slice of the selection; a merged report, every shard of it.
    report.shard && sel ? ` (shard ${report.shard.index}/${report.shard.count}: ${report.summary.total} of the ${sel.selectedCases} selected cases${sel.selectedCases < sel.totalCases ? `, of ${sel.totalCases} in the kit` : ''})`
      : isPartial(report) && sel ? ` (partial run: ${sel.selectedCases} of ${sel.totalCases} cases selected${report.merged ? `, merged from ${report.merged.length} shards` : ''})`
        : report.merged ? ` (merged from ${report.merged.length} shards)` : '',
  ].join('');
}

/**
 * What the run checked, in every verdict: its non-zero counts and how many requirements of the
 * catalogue it left unchecked, e.g. "710 passed, 285 skipped; 250 of 770 requirements not checked".
 */
export function checkedText(report: RunReport): string {
  const r = requirementsChecked(report);
  const notChecked = r.total - r.checked;
  const reqs = notChecked ? `${notChecked} of ${r.total} requirements not checked${r.notSelected ? ` (${r.notSelected} not selected)` : ''}` : `all ${r.total} requirements checked`;
  return `${countsText(report.summary, { nonZero: true })}; ${reqs}`;
}

/** Why the verdict is what it is, after what the run checked. */
export function verdictReason(report: RunReport): string {
  const s = report.summary;
  const warnings = s.warned ? `; ${plural(s.warned, 'SHOULD rule')} not met (--strict makes ${s.warned === 1 ? 'it a failure' : 'them failures'})` : '';
  const checked = checkedText(report);
  switch (verdict(report)) {
    case 'PASS':
      return `${checked}${warnings}`;
    case 'INCOMPLETE':
      return `the run was interrupted before every case finished; ${checked}${warnings}`;
    case 'UNCHECKED': {
      const flags = flagsAskedFor(skipGroups(report));
      return `no selected case ran (${plural(s.skipped, 'case')} skipped), so nothing was checked${flags.length ? `; the skip reasons ask for ${flags.join(', ')}` : ''}`;
    }
    case 'FAIL': {
      const failing = s.failed + s.errored;
      return [
        failing ? `${plural(failing, 'case')} failed or errored` : '',
        s.unexpectedPasses ? `${plural(s.unexpectedPasses, 'known failure')} passed` : '',
        report.leaks.length ? `${plural(report.leaks.length, 'object')} left behind` : '',
        ...policyFailures(report),
      ].filter(Boolean).join(', ') + `; ${checked}${warnings}`;
    }
  }
}

/** The verdict line: headline and reason. */
export function verdictText(report: RunReport): string {
  return `${verdictHeadline(report)}: ${verdictReason(report)}`;
}

/** Why an unexpected pass fails the run (the runner puts this in the message). */
export function unexpectedPassMessage(c: CaseResult): string {
  if (c.message) return c.message;
  const reason = c.knownFailure ? ` ("${c.knownFailure.reason}")` : '';
  return `unexpected pass: listed as a known failure${reason}; remove it from the expect file`;
}

/**
 * The summary's disjoint counts as words, each bucket once, adding up to the total:
 * "3 passed, 1 failed, 0 errored, 2 skipped, 1 warning, 1 known failure".
 * Passed, failed, errored and skipped always show (unless `nonZero`); the other buckets when not zero.
 */
export function countsText(s: RunReport['summary'], opts: { nonZero?: boolean } = {}): string {
  const always = (n: number, text: string) => (n || !opts.nonZero ? text : '');
  return [
    always(s.passed, `${s.passed} passed`),
    always(s.failed, `${s.failed} failed`),
    always(s.errored, `${s.errored} errored`),
    always(s.skipped, `${s.skipped} skipped`),
    s.warned ? plural(s.warned, 'warning') : '',
    s.interrupted ? `${s.interrupted} interrupted` : '',
    s.flaky ? `${s.flaky} flaky` : '',
    s.unstarted ? `${s.unstarted} not started` : '',
    s.knownFailures ? plural(s.knownFailures, 'known failure') : '',
    s.unexpectedPasses ? plural(s.unexpectedPasses, 'unexpected pass', 'unexpected passes') : '',
  ].filter(Boolean).join(', ');
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const m = Math.floor(s / 60);
  return `${m}m${(s - m * 60).toFixed(1)}s`;
}

export function targetLabel(target: RunReport['target']): string {
  const agent = target.agent ? `, agent ${target.agent.url} (node ${target.agent.node})` : '';
  if (target.embedded) return `${target.api ? `${target.api} (embedded reference)` : 'embedded reference'}${agent}`;
  const metrics = Object.entries(target.metrics ?? {}).map(([name, url]) => `${name}=${url}`).join(', ');
  return `${target.api ?? '(no API URL)'}${metrics ? ` (metrics: ${metrics})` : ''}${agent}`;
}

/**
 * The load a run's cases ran under (`run --background-nodes`), e.g. "200 hollow nodes, started by the
 * run" or "50 hollow nodes, already running on the target"; undefined when there was none.
 */
export function backgroundLoadText(load: RunReport['backgroundLoad']): string | undefined {
  if (!load) return undefined;
  const nodes = plural(load.hollowNodes, 'hollow node', 'hollow nodes');
  const source = load.source === 'started by the run' ? 'started by the run' : 'already running on the target';
  const beside = load.alreadyRunning ? ` (and ${plural(load.alreadyRunning, 'hollow node', 'hollow nodes')} already running)` : '';
  return `${nodes}, ${source}${beside}${load.endedEarly ? `; ${load.endedEarly}` : ''}`;
}

/** `GET https://host/path -> 404 (12ms)`, or `-> no response: <error>`. */
export function exchangeSummary(ex: Exchange): string {
  const result =
    ex.status !== undefined
      ? String(ex.status)
      : `no response${ex.error ? `: ${ex.error}` : ''}`;
  const err = ex.status !== undefined && ex.error ? ` (${ex.error})` : '';
  return `${ex.method} ${ex.url} -> ${result}${err} (${formatDuration(ex.durationMs)})`;
}

/** Bodies in human-readable reports are cut to this many characters. */
export const BODY_LIMIT = 4096;

/** Where a reader finds what a human-readable report cut: the JSON report keeps every exchange whole. */
export const FULL_TEXT_HINT = 'the full text is in the JSON report (--reporter json=<path>)';

export function truncate(s: string, max = BODY_LIMIT): string {
  if (s.length <= max) return s;
  return `${s.slice(0, max)}\n… (truncated: ${s.length - max} more characters in the JSON report)`;
}

/** Exchanges a human-readable report shows per case (or attempt) at most; the JSON report keeps them all. */
export const EXCHANGES_SHOWN = 12;

/** An exchange as a report shows it: `n` is its 1-based place in the case's full list. */
export interface NumberedExchange {
  ex: Exchange;
  n: number;
}

/**
 * The exchanges a report shows of a list, each with its number in the full list, and how many
 * between were left out (`omittedBefore`: the index in `shown` before which they go, -1 for none).
 * A case that polled a controller for 20 s records hundreds of reads; one page of them helps
 * nobody. A quarter of those shown are the first (the set-up), the rest the last, where a failure
 * usually is.
 */
export function shownExchanges(exchanges: readonly Exchange[], max = EXCHANGES_SHOWN): { shown: NumberedExchange[]; omitted: number; omittedBefore: number } {
  const numbered = exchanges.map((ex, i) => ({ ex, n: i + 1 }));
  if (numbered.length <= max) return { shown: numbered, omitted: 0, omittedBefore: -1 };
  const first = Math.floor(max / 4);
  return {
    shown: [...numbered.slice(0, first), ...numbered.slice(numbered.length - (max - first))],
    omitted: numbered.length - max,
    omittedBefore: first,
  };
}

/** The line a report puts where exchanges were left out. */
export function omittedExchangesText(omitted: number): string {
  return `… ${plural(omitted, 'exchange')} left out here; the JSON report has every exchange`;
}

/** How much evidence a report shows per exchange list and per body (evidencePlan). */
export interface EvidencePlan {
  exchangesShown: number;
  bodyLimit: number;
}

/** Below this, a body says too little to be worth showing cut. */
const MIN_BODY_LIMIT = 256;
/** Bodies are cut shorter, down to this, before fewer exchanges are shown. */
const SHORT_BODY_LIMIT = 512;

/**
 * How much of the exchanges of the detailed `cases` (each case's and each earlier attempt's) a
 * report shows, so that their bodies (two per exchange) fit `budget` characters: every exchange up
 * to EXCHANGES_SHOWN with bodies of `max` characters for a run with a few failures; for one with a
 * thousand, shorter bodies first, then fewer exchanges (12, 6, 3), bodies never under MIN_BODY_LIMIT.
 */
export function evidencePlan(cases: readonly CaseResult[], budget: number, max = BODY_LIMIT): EvidencePlan {
  const lists = cases.flatMap((c) => [c.exchanges, ...(c.attempts ?? []).slice(0, -1).map((a) => a.exchanges)]);
  const steps = [EXCHANGES_SHOWN, EXCHANGES_SHOWN / 2, EXCHANGES_SHOWN / 4];
  for (const exchangesShown of steps) {
    const bodies = 2 * lists.reduce((n, l) => n + Math.min(l.length, exchangesShown), 0);
    const limit = bodies ? Math.floor(budget / bodies) : max;
    if (limit >= Math.min(SHORT_BODY_LIMIT, max) || exchangesShown === steps.at(-1)) {
      return { exchangesShown, bodyLimit: Math.max(MIN_BODY_LIMIT, Math.min(max, limit)) };
    }
  }
  throw new Error('unreachable');
}

/**
 * Cuts one-line text (a message in a table cell) to about `max` characters, keeping its start and
 * its end: a skip reason ends with the flag that would enable the case, a failure with what the
 * target did.
 */
export function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  const tail = Math.floor(max / 3);
  const head = max - tail;
  return `${s.slice(0, head)} … (${s.length - max} characters left out) … ${s.slice(s.length - tail)}`;
}

/** Pretty-prints a JSON body (when it parses) and truncates it. */
export function displayBody(body: string, max = BODY_LIMIT): string {
  let text = body;
  const trimmed = body.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      text = JSON.stringify(JSON.parse(trimmed), null, 2);
    } catch {
      // not JSON (or cut short by the recorder): show as is
    }
  }
  return truncate(text, max);
}

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

/** Header lines for display, with credentials masked (the scheme of an Authorization header is kept). */
export function headerLines(headers: Record<string, string> | undefined): string[] {
  if (!headers) return [];
  return Object.entries(headers).map(([name, value]) => {
    if (!SECRET_HEADERS.has(name.toLowerCase())) return `${name}: ${value}`;
    const scheme = /^(\S+)\s+\S/.exec(value);
    return `${name}: ${scheme && name.toLowerCase().endsWith('authorization') ? `${scheme[1]} ` : ''}<redacted>`;
  });
}

/** Characters XML 1.0 does not allow anywhere (also lone surrogates, via the `u` flag). */
const XML_INVALID = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function stripInvalidXmlChars(s: string): string {
  return s.replace(XML_INVALID, '');
}

/** Escapes text content for XML and HTML; drops characters XML 1.0 forbids. */
export function escapeText(s: string): string {
  return stripInvalidXmlChars(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Escapes an attribute value (to be put in double quotes); keeps tabs and newlines as references. */
export function escapeAttr(s: string): string {
  return escapeText(s)
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}

/** An id usable as an HTML anchor. */
export function anchor(prefix: string, id: string): string {
  return `${prefix}-${id.replace(/[^A-Za-z0-9._-]/g, '-')}`;
}

/** Writes text to a file (creating parent directories) or, without a path, to a stream. */
export async function writeOutput(text: string, path: string | undefined, stream: NodeJS.WritableStream): Promise<void> {
  if (path !== undefined) {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text, 'utf8');
    return;
  }
  await new Promise<void>((resolve, reject) => {
    stream.write(text, (err) => (err ? reject(err) : resolve()));
  });
}

export interface FileReporterOptions {
  /** Where to write; stdout when absent. */
  path?: string;
  stdout?: NodeJS.WritableStream;
}

/** A reporter that renders the finished run once, to a file or stdout. */
export class FileReporter implements Reporter {
  readonly path: string | undefined;
  private readonly stdout: NodeJS.WritableStream;

  constructor(
    readonly name: string,
    private readonly render: (report: RunReport) => string,
    opts: FileReporterOptions = {},
  ) {
    this.path = opts.path;
    this.stdout = opts.stdout ?? process.stdout;
  }

  async end(report: RunReport): Promise<void> {
    await writeOutput(this.render(report), this.path, this.stdout);
  }
}

/** How the human-readable reports name an outcome. */
export const OUTCOME_LABEL: Record<Outcome, string> = {
  passed: 'passed',
  failed: 'FAILED',
  warned: 'WARNING (SHOULD)',
  errored: 'ERRORED',
  interrupted: 'interrupted',
  flaky: 'FLAKY (passed on a retry)',
  unstarted: 'not started',
  skipped: 'skipped',
  'known-failure': 'known failure',
  'unexpected-pass': 'UNEXPECTED PASS',
};

/** Failed and errored cases, known failures included (their outcome says so); the auditor reports detail them. */
export function failedCases(report: RunReport): CaseResult[] {
  return report.cases.filter((c) => c.status === 'failed' || c.status === 'errored');
}

/** Cases that passed on a retry (`run --retries`): the reports detail each failed attempt. */
export function flakyCases(report: RunReport): CaseResult[] {
  return report.cases.filter((c) => c.status === 'flaky');
}

/** Cases whose evidence the auditor reports detail: failures and errors, warnings, flaky cases. */
export function detailedCases(report: RunReport): CaseResult[] {
  return [...failedCases(report), ...warnedCases(report), ...flakyCases(report)];
}

/** True for a case the auditor reports detail (so a row may link to its details). */
export function isDetailed(c: CaseResult): boolean {
  return c.status === 'failed' || c.status === 'errored' || c.status === 'warned' || c.status === 'flaky';
}

/** "attempt 2 of 3: failed (1.2s): message", one line per attempt, for every report. */
export function attemptLine(a: CaseAttempt, i: number, of: number): string {
  return `attempt ${i + 1} of ${of}: ${OUTCOME_LABEL[a.status as Outcome] ?? a.status} (${formatDuration(a.durationMs)})${a.message ? `: ${a.message}` : ''}`;
}

/** Failed SHOULD cases of a run without --strict. */
export function warnedCases(report: RunReport): CaseResult[] {
  return report.cases.filter((c) => c.status === 'warned');
}

/** Splits prose into plain runs and `code spans` (backtick-delimited, as the spec writes them). */
export function splitCodeSpans(s: string): { code: boolean; text: string }[] {
  const out: { code: boolean; text: string }[] = [];
  const re = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g;
  let last = 0;
  for (const m of s.matchAll(re)) {
    if (m.index > last) out.push({ code: false, text: s.slice(last, m.index) });
    out.push({ code: true, text: m[2]! });
    last = m.index + m[0].length;
  }
  if (last < s.length) out.push({ code: false, text: s.slice(last) });
  return out;
}

/** What was selected, in words: "3 of 724 cases (partial run): focus /x/, suites a, b, level MUST". */
export function selectionText(report: RunReport): string | undefined {
  const sel = report.selection;
  if (!sel) return undefined;
  const how = [
    sel.focus !== undefined ? `focus /${sel.focus}/` : '',
    sel.skip !== undefined ? `skip /${sel.skip}/` : '',
    sel.suites.length ? `suites ${sel.suites.join(', ')}` : '',
    sel.level ? `level ${sel.level}` : '',
  ].filter(Boolean);
  const size = sel.partial ? `${sel.selectedCases} of ${sel.totalCases} cases (partial run)` : `all ${sel.totalCases} cases`;
  return `${size}${how.length ? `: ${how.join(', ')}` : ''}`;
}

/** The selection's other settings, for the summary tables; only what was stated. */
function selectionFacts(report: RunReport): [string, string][] {
  const sel = report.selection;
  if (!sel) return [];
  const rows: [string, string][] = [['Selection', selectionText(report)!]];
  if (sel.gates) {
    const gates = Object.entries(sel.gates).map(([k, v]) => `${k}=${v}`).join(', ');
    rows.push(['Feature gates (stated)', gates || 'the 1.37 defaults']);
  }
  if (sel.facts.length) rows.push(['Target facts (stated)', sel.facts.map((f) => (f.value !== undefined ? `${f.flag} ${f.value}` : f.flag)).join(', ')]);
  if (sel.expect) rows.push(['Known failures file', `${sel.expect.file} (${plural(Object.keys(sel.expect.entries).length, 'entry', 'entries')})`]);
  return rows;
}

/** The plain facts of a run's summary table, shared by the markdown and HTML reports. */
export function summaryFacts(report: RunReport): [string, string][] {
  const s = report.summary;
  const rows: [string, string][] = [
    ['Target', targetLabel(report.target)],
    ['Date', report.startedAt],
    ['Tool', `${report.tool} ${report.version}`],
    ['Duration', formatDuration(report.durationMs)],
    ...(report.backgroundLoad ? [['Background load', backgroundLoadText(report.backgroundLoad)!] as [string, string]] : []),
    ...selectionFacts(report),
    ...(report.shard ? [['Shard', `${report.shard.index} of ${report.shard.count} (merge the shards' JSON results with \`report merge\`)`] as [string, string]] : []),
    ...(report.merged ? [['Merged from', report.merged.map((m) => `${m.shard ? `shard ${m.shard.index}/${m.shard.count}` : 'run'} ${m.runId} (${m.cases} cases)`).join(', ')] as [string, string]] : []),
    ['Strict', report.strict ? 'yes: a failed SHOULD case fails the run' : 'no: a failed SHOULD case is a warning (--strict makes it a failure)'],
    ['Cases', String(s.total)],
    ['Passed', String(s.passed)],
    ['Failed', String(s.failed)],
    ['Errored', String(s.errored)],
    ['Warnings (SHOULD rules not met)', String(s.warned)],
    ['Skipped', String(s.skipped)],
    ['Interrupted', String(s.interrupted)],
    ...(s.unstarted ? [['Not started (the run was interrupted first)', String(s.unstarted)] as [string, string]] : []),
    ...(s.flaky ? [['Flaky (failed, then passed on a retry)', String(s.flaky)] as [string, string]] : []),
    ['Known failures (do not fail the run)', String(s.knownFailures)],
    ['Unexpected passes (fail the run)', String(s.unexpectedPasses)],
    ['Leaked objects', String(report.leaks.length)],
  ];
  if (report.cleanupUnverified?.length) rows.push(['Cleanup not verified (check by hand)', String(report.cleanupUnverified.length)]);
  return rows;
}

/**
 * A case's findings (suites/findings.ts) as lines, verdict-relevant first: each says whether it is
 * upstream's shape or the spec's recommendation (SHOULD) or a permitted outcome noted (MAY), so
 * that a reader of any report tells the spec's verdict from upstream's.
 */
export function findingLines(c: CaseResult): string[] {
  const order = (f: Finding) => (f.level === 'SHOULD' ? 0 : 1);
  return [...(c.findings ?? [])].sort((a, b) => order(a) - order(b)).map((f) => `${findingLabel(f)}: ${f.message}; expected ${f.expected}; actual ${f.actual}`);
}
