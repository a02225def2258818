// TAP version 14. Known failures carry a TODO directive (TAP consumers do not count them);
// unexpected passes are `not ok`; an interrupted run ends with `Bail out!`.
import { stringify } from 'yaml';
import type { CaseResult, RunReport } from '../runner/results.js';
import {
  FileReporter,
  type FileReporterOptions,
  exchangeSummary,
  formatDuration,
  outcome,
  targetLabel,
  unexpectedPassMessage,
} from './format.js';

/** One line, with `#` and `\` escaped as TAP 14 requires in descriptions. */
function description(s: string): string {
  return s.replace(/[\r\n]+/g, ' ').replace(/\\/g, '\\\\').replace(/#/g, '\\#');
}

/** A directive's reason: one line. */
function reason(s: string): string {
  return s.replace(/[\r\n]+/g, ' ').trim();
}

function diagnostic(c: CaseResult, message: string): string {
  const diag: Record<string, unknown> = { message };
  if (c.expected !== undefined) diag.expected = c.expected;
  if (c.actual !== undefined) diag.actual = c.actual;
  diag.requirements = c.requirements;
  diag.spec = `${c.spec.doc} §${c.spec.section}`;
  diag.status = c.status;
  diag.duration_ms = c.durationMs;
  if (c.exchanges.length) diag.exchanges = c.exchanges.map(exchangeSummary);
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

export function renderTap(report: RunReport): string {
  const lines = [
    'TAP version 14',
    `# ${description(`${report.tool} ${report.version}, run ${report.runId} against ${targetLabel(report.target)}`)}`,
    `1..${report.cases.length}`,
  ];
  report.cases.forEach((c, i) => lines.push(testPoint(c, i + 1)));
  const s = report.summary;
  lines.push(
    `# passed ${s.passed}, failed ${s.failed}, errored ${s.errored}, skipped ${s.skipped}, total ${s.total} in ${formatDuration(report.durationMs)}`,
  );
  for (const leak of report.leaks) lines.push(`# leak: ${reason(leak)}`);
  if (report.interrupted) lines.push('Bail out! run interrupted before every case finished');
  return `${lines.join('\n')}\n`;
}

export class TapReporter extends FileReporter {
  constructor(opts: FileReporterOptions = {}) {
    super('tap', renderTap, opts);
  }
}
