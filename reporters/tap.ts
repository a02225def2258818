// TAP version 14. Known failures carry a TODO directive (TAP consumers do not count them);
// unexpected passes are `not ok`; objects left behind are one `not ok` test point after the cases;
// an interrupted run ends with `Bail out!`.
import { stringify } from 'yaml';
import type { CaseResult, RunReport } from '../runner/results.js';
import {
  FileReporter,
  type FileReporterOptions,
  exchangeSummary,
  countsText,
  formatDuration,
  outcome,
  selectionText,
  verdictText,
  targetLabel,
  unexpectedPassMessage,
  findingLines,
  attemptLine,
  omittedExchangesText,
  shownExchanges,
} from './format.js';
import type { Exchange } from '../runner/results.js';

/** One line, with `#` and `\` escaped as TAP 14 requires in descriptions. */
function description(s: string): string {
  return s.replace(/[\r\n]+/g, ' ').replace(/\\/g, '\\\\').replace(/#/g, '\\#');
}

/** A directive's reason: one line. */
function reason(s: string): string {
  return s.replace(/[\r\n]+/g, ' ').trim();
}

/** Exchanges as summary lines, numbered, at most EXCHANGES_SHOWN of them (the JSON report has all). */
function exchangeList(list: readonly Exchange[]): string[] {
  const { shown, omitted, omittedBefore } = shownExchanges(list);
  return shown.flatMap(({ ex, n }, i) => [...(i === omittedBefore ? [omittedExchangesText(omitted)] : []), `${n}. ${exchangeSummary(ex)}`]);
}

function diagnostic(c: CaseResult, message: string): string {
  const diag: Record<string, unknown> = { message };
  if (c.expected !== undefined) diag.expected = c.expected;
  if (c.actual !== undefined) diag.actual = c.actual;
  const findings = findingLines(c);
  if (findings.length) diag.findings = findings;
  diag.requirements = c.requirements;
  diag.spec = `${c.spec.doc} §${c.spec.section}`;
  diag.status = c.status;
  diag.duration_ms = c.durationMs;
  const attempts = c.attempts ?? [];
  if (attempts.length > 1) {
    // Each attempt (`run --retries`) with its own evidence: a flaky pass keeps why it failed first.
    diag.attempts = attempts.map((a, i) => ({
      attempt: attemptLine(a, i, attempts.length),
      ...(a.expected !== undefined ? { expected: a.expected } : {}),
      ...(a.actual !== undefined ? { actual: a.actual } : {}),
      ...(a.exchanges.length ? { exchanges: exchangeList(a.exchanges) } : {}),
    }));
  }
  if (c.exchanges.length) diag.exchanges = exchangeList(c.exchanges);
  const yaml = stringify(diag, { lineWidth: 0 }).trimEnd();
  return ['  ---', ...yaml.split('\n').map((l) => `  ${l}`), '  ...'].join('\n');
}

function testPoint(c: CaseResult, n: number): string {
  const desc = `${n} - ${description(`${c.id}: ${c.title}`)}`;
  switch (outcome(c)) {
    case 'passed':
      return `ok ${desc}`;
    case 'skipped':
      return `ok ${desc} # SKIP ${reason(c.message)}`;
    case 'interrupted':
      return `ok ${desc} # SKIP interrupted: the run was stopped while this case ran`;
    case 'unstarted':
      return `ok ${desc} # SKIP not started: the run was interrupted first`;
    case 'flaky':
      return `ok ${desc}\n${diagnostic(c, `flaky: failed, then passed on ${c.attempts?.length ? `attempt ${c.attempts.length}` : 'a retry'}`)}`;
    case 'warned':
      return `ok ${desc}\n${diagnostic(c, `warning (SHOULD rule not met): ${c.message}`)}`;
    case 'known-failure': {
      const why = reason(`known failure: ${c.knownFailure?.reason ?? ''}`);
      return `not ok ${desc} # TODO ${why}\n${diagnostic(c, c.message)}`;
    }
    case 'unexpected-pass':
      return `not ok ${desc}\n${diagnostic(c, unexpectedPassMessage(c))}`;
    case 'failed':
    case 'errored':
      return `not ok ${desc}\n${diagnostic(c, c.message)}`;
  }
}

/** A leak fails the run, so it is a failing test point after the cases, with the paths. */
function leakPoint(report: RunReport, n: number): string {
  const diag = stringify({ message: `${report.leaks.length} object(s) labelled with this run still present after cleanup`, leaks: report.leaks }, { lineWidth: 0 }).trimEnd();
  return [`not ok ${n} - run: cleanup left objects behind`, '  ---', ...diag.split('\n').map((l) => `  ${l}`), '  ...'].join('\n');
}

export function renderTap(report: RunReport): string {
  const leakPoints = report.leaks.length ? 1 : 0;
  const lines = [
    'TAP version 14',
    `# ${description(`${report.tool} ${report.version}, run ${report.runId} against ${targetLabel(report.target)}`)}`,
  ];
  const selection = selectionText(report);
  if (selection) lines.push(`# selection: ${description(selection)}`);
  lines.push(`1..${report.cases.length + leakPoints}`);
  report.cases.forEach((c, i) => lines.push(testPoint(c, i + 1)));
  if (leakPoints) lines.push(leakPoint(report, report.cases.length + 1));
  lines.push(`# ${countsText(report.summary)}; ${report.summary.total} total in ${formatDuration(report.durationMs)}`);
  for (const u of report.cleanupUnverified ?? []) lines.push(`# cleanup not verified (not known to be left behind): ${reason(u)}`);
  lines.push(`# ${description(verdictText(report))}`);
  if (report.interrupted) lines.push('Bail out! run interrupted before every case finished');
  return `${lines.join('\n')}\n`;
}

export class TapReporter extends FileReporter {
  constructor(opts: FileReporterOptions = {}) {
    super('tap', renderTap, opts);
  }
}
