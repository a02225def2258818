// JUnit XML for CI (Jenkins, GitLab). Known failures are skipped and unexpected passes are failures,
// so the CI view is green exactly when the run's verdict is.
import type { CaseResult, Exchange, RunReport } from '../runner/results.js';
import {
  FileReporter,
  type FileReporterOptions,
  escapeAttr,
  escapeText,
  exchangeSummary,
  outcome,
  selectionText,
  truncate,
  unexpectedPassMessage,
  findingLines,
} from './format.js';
import { isPartial } from './coverage.js';

/** Bodies in the compact exchange rendering are cut to this many characters. */
const JUNIT_BODY_LIMIT = 1024;

interface Counts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  timeMs: number;
}

function seconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}

function countsAttrs(c: Counts): string {
  return `tests="${c.tests}" failures="${c.failures}" errors="${c.errors}" skipped="${c.skipped}" time="${seconds(c.timeMs)}"`;
}

function compactExchange(ex: Exchange): string {
  const lines = [`  ${exchangeSummary(ex)}`];
  if (ex.requestBody) lines.push(`    request: ${truncate(ex.requestBody, JUNIT_BODY_LIMIT).replace(/\n/g, '\n      ')}`);
  if (ex.responseBody) lines.push(`    response: ${truncate(ex.responseBody, JUNIT_BODY_LIMIT).replace(/\n/g, '\n      ')}`);
  return lines.join('\n');
}

function detailBody(c: CaseResult, lead?: string): string {
  const lines: string[] = [];
  if (lead) lines.push(lead);
  if (c.message && c.message !== lead) lines.push(c.message);
  if (c.expected !== undefined) lines.push(`expected: ${c.expected}`);
  if (c.actual !== undefined) lines.push(`actual: ${c.actual}`);
  for (const f of findingLines(c)) lines.push(`finding: ${f}`);
  lines.push(`requirements: ${c.requirements.length ? c.requirements.join(', ') : '(none)'}`);
  lines.push(`spec: ${c.spec.doc} §${c.spec.section}`);
  if (c.exchanges.length) {
    lines.push('exchanges:');
    for (const ex of c.exchanges) lines.push(compactExchange(ex));
  }
  return lines.join('\n');
}

function renderCase(c: CaseResult): string {
  const open = `    <testcase classname="${escapeAttr(c.suite)}" name="${escapeAttr(`${c.id}: ${c.title}`)}" time="${seconds(c.durationMs)}"`;
  let inner: string;
  switch (outcome(c)) {
    case 'passed':
      return `${open}/>`;
    case 'skipped':
      inner = `<skipped message="${escapeAttr(c.message)}"/>`;
      break;
    case 'known-failure': {
      const reason = c.knownFailure?.reason ?? '';
      inner = `<skipped message="${escapeAttr(`known failure: ${reason}`)}">${escapeText(detailBody(c, `${c.status} (known failure: ${reason})`))}</skipped>`;
      break;
    }
    case 'unexpected-pass': {
      const msg = unexpectedPassMessage(c);
      inner = `<failure message="${escapeAttr(msg)}" type="unexpected-pass">${escapeText(detailBody(c, msg))}</failure>`;
      break;
    }
    case 'failed':
      inner = `<failure message="${escapeAttr(c.message)}" type="assertion">${escapeText(detailBody(c))}</failure>`;
      break;
    case 'errored':
      inner = `<error message="${escapeAttr(c.message)}" type="error">${escapeText(detailBody(c))}</error>`;
      break;
    case 'warned':
      // A SHOULD rule not met, in a run without --strict: the test passes, the evidence is kept.
      inner = `<system-out>${escapeText(`WARNING (SHOULD): ${detailBody(c)}`)}</system-out>`;
      break;
    case 'interrupted':
      inner = `<skipped message="${escapeAttr('interrupted: the run was stopped while this case ran')}"/>`;
      break;
    case 'unstarted':
      inner = `<skipped message="${escapeAttr('not started: the run was interrupted first')}"/>`;
      break;
    case 'flaky':
      inner = `<system-out>${escapeText(`FLAKY: passed on attempt ${c.attempts?.length ?? '?'} of ${c.attempts?.length ?? '?'}`)}</system-out>`;
      break;
  }
  return `${open}>\n      ${inner}\n    </testcase>`;
}

function tally(cases: CaseResult[]): Counts {
  const n: Counts = { tests: cases.length, failures: 0, errors: 0, skipped: 0, timeMs: 0 };
  for (const c of cases) {
    n.timeMs += c.durationMs;
    const o = outcome(c);
    if (o === 'failed' || o === 'unexpected-pass') n.failures++;
    else if (o === 'errored') n.errors++;
    else if (o === 'skipped' || o === 'known-failure' || o === 'interrupted' || o === 'unstarted') n.skipped++;
  }
  return n;
}

function properties(report: RunReport): string {
  const props: [string, string][] = [
    ['runId', report.runId],
    ['tool', `${report.tool} ${report.version}`],
    ['target.api', report.target.api ?? ''],
    ['target.embedded', String(report.target.embedded)],
    ['strict', String(report.strict)],
    // JUnit has no warning outcome: warned cases pass with their evidence in system-out, counted here.
    ['warnings', String(report.summary.warned)],
  ];
  const selection = selectionText(report);
  if (selection) props.push(['selection', selection], ['selection.partial', String(isPartial(report))]);
  if (report.cleanupUnverified?.length) props.push(['cleanupUnverified', report.cleanupUnverified.join('\n')]);
  return [
    '    <properties>',
    ...props.map(([k, v]) => `      <property name="${escapeAttr(k)}" value="${escapeAttr(v)}"/>`),
    '    </properties>',
  ].join('\n');
}

export function renderJunit(report: RunReport): string {
  const suites = new Map<string, CaseResult[]>();
  for (const c of report.cases) {
    const list = suites.get(c.suite);
    if (list) list.push(c);
    else suites.set(c.suite, [c]);
  }
  const ts = escapeAttr(report.startedAt);
  const total: Counts = { tests: 0, failures: 0, errors: 0, skipped: 0, timeMs: report.durationMs };
  const blocks: string[] = [];
  for (const [name, cases] of suites) {
    const n = tally(cases);
    total.tests += n.tests;
    total.failures += n.failures;
    total.errors += n.errors;
    total.skipped += n.skipped;
    blocks.push(
      [
        `  <testsuite name="${escapeAttr(name)}" ${countsAttrs(n)} timestamp="${ts}">`,
        properties(report),
        ...cases.map(renderCase),
        '  </testsuite>',
      ].join('\n'),
    );
  }

  // Run-level problems fail the run too: an interruption shows as an error, leaks as a failure.
  if (report.interrupted || report.leaks.length) {
    const lines = [];
    const n: Counts = { tests: 0, failures: 0, errors: 0, skipped: 0, timeMs: 0 };
    if (report.interrupted) {
      n.tests++;
      n.errors++;
      total.tests++;
      total.errors++;
      const msg = 'the run was interrupted before every case finished';
      lines.push(
        `    <testcase classname="${escapeAttr(report.tool)}" name="run: interrupted" time="0.000">`,
        `      <error message="${escapeAttr(msg)}" type="interrupted">${escapeText(msg)}</error>`,
        '    </testcase>',
      );
    }
    if (report.leaks.length) {
      n.tests++;
      n.failures++;
      total.tests++;
      total.failures++;
      const msg = `${report.leaks.length} object(s) labelled with this run still present after cleanup`;
      lines.push(
        `    <testcase classname="${escapeAttr(report.tool)}" name="run: cleanup" time="0.000">`,
        `      <failure message="${escapeAttr(msg)}" type="leak">${escapeText(`${msg}:\n${report.leaks.join('\n')}`)}</failure>`,
        '    </testcase>',
      );
    }
    blocks.push(
      [
        `  <testsuite name="${escapeAttr(`${report.tool} run`)}" ${countsAttrs(n)} timestamp="${ts}">`,
        properties(report),
        ...lines,
        '  </testsuite>',
      ].join('\n'),
    );
  }

  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escapeAttr(`${report.tool} ${report.runId}`)}" ${countsAttrs(total)} timestamp="${ts}">`,
    ...blocks,
    '</testsuites>',
    '',
  ].join('\n');
}

export class JunitReporter extends FileReporter {
  constructor(opts: FileReporterOptions = {}) {
    super('junit', renderJunit, opts);
  }
}
