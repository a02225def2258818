// JUnit XML for CI (Jenkins, GitLab). Known failures are skipped and unexpected passes are failures,
// so the CI view is green exactly when the run's verdict is. A test is named by its case id (stable
// when a title changes, so CI history holds), with its requirements, spec section, level and title
// as the testcase's properties. Flaky cases follow surefire's convention: a passing testcase with a
// <flakyFailure>/<flakyError> per failed attempt; a case that failed every attempt keeps its
// <failure>/<error> (the last attempt) with a <rerunFailure>/<rerunError> per earlier one.
import type { CaseAttempt, CaseResult, Exchange, RunReport } from '../runner/results.js';
import {
  FileReporter,
  type FileReporterOptions,
  backgroundLoadText,
  escapeAttr,
  escapeText,
  exchangeSummary,
  outcome,
  selectionText,
  truncate,
  unexpectedPassMessage,
  findingLines,
  attemptLine,
  evidencePlan,
  type EvidencePlan,
  omittedExchangesText,
  shownExchanges,
} from './format.js';
import { isPartial } from './coverage.js';
import { nothingRan, policyFailures, skipSummaryLines } from './skips.js';

/** Bodies in the compact exchange rendering are cut to this many characters (fewer for a big run). */
const JUNIT_BODY_LIMIT = 1024;

/** Characters of bodies the whole file may take before bodies are cut shorter than JUNIT_BODY_LIMIT. */
const JUNIT_BODY_BUDGET = 1024 * 1024;

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

function compactExchange(ex: Exchange, plan: EvidencePlan): string {
  const lines = [`  ${exchangeSummary(ex)}`];
  if (ex.requestBody) lines.push(`    request: ${truncate(ex.requestBody, plan.bodyLimit).replace(/\n/g, '\n      ')}`);
  if (ex.responseBody) lines.push(`    response: ${truncate(ex.responseBody, plan.bodyLimit).replace(/\n/g, '\n      ')}`);
  return lines.join('\n');
}

function exchangeLines(list: readonly Exchange[], plan: EvidencePlan): string[] {
  if (!list.length) return [];
  const { shown, omitted, omittedBefore } = shownExchanges(list, plan.exchangesShown);
  const lines = [`exchanges (${list.length}):`];
  shown.forEach(({ ex, n }, i) => {
    if (i === omittedBefore) lines.push(`  ${omittedExchangesText(omitted)}`);
    lines.push(compactExchange(ex, plan).replace(/^ {2}/, `  ${n}. `));
  });
  return lines;
}

function detailBody(c: CaseResult, plan: EvidencePlan, lead?: string): string {
  const lines: string[] = [];
  if (lead) lines.push(lead);
  if (c.message && c.message !== lead) lines.push(c.message);
  if (c.expected !== undefined) lines.push(`expected: ${c.expected}`);
  if (c.actual !== undefined) lines.push(`actual: ${c.actual}`);
  for (const f of findingLines(c)) lines.push(`finding: ${f}`);
  lines.push(`requirements: ${c.requirements.length ? c.requirements.join(', ') : '(none)'}`);
  lines.push(`spec: ${c.spec.doc} §${c.spec.section}`);
  const attempts = c.attempts ?? [];
  if (attempts.length > 1) lines.push(...attempts.map((a, i) => attemptLine(a, i, attempts.length)));
  lines.push(...exchangeLines(c.exchanges, plan));
  return lines.join('\n');
}

function attemptBody(a: CaseAttempt, i: number, of: number, plan: EvidencePlan): string {
  const lines = [attemptLine(a, i, of)];
  if (a.expected !== undefined) lines.push(`expected: ${a.expected}`);
  if (a.actual !== undefined) lines.push(`actual: ${a.actual}`);
  lines.push(...exchangeLines(a.exchanges, plan));
  return lines.join('\n');
}

/**
 * The attempts before the last that failed or errored, as surefire writes reruns: `flaky` in a
 * passing testcase, `rerun` beside the failure of one that never passed.
 */
function attemptElements(c: CaseResult, prefix: 'flaky' | 'rerun', plan: EvidencePlan): string[] {
  const attempts = c.attempts ?? [];
  return attempts.slice(0, -1).flatMap((a, i) => {
    if (a.status !== 'failed' && a.status !== 'errored') return [];
    const tag = `${prefix}${a.status === 'failed' ? 'Failure' : 'Error'}`;
    const type = a.status === 'failed' ? 'assertion' : 'error';
    return [`<${tag} message="${escapeAttr(a.message)}" type="${type}"><stackTrace>${escapeText(attemptBody(a, i, attempts.length, plan))}</stackTrace></${tag}>`];
  });
}

/** A testcase's properties: what the case checks, so CI tools can group and search by requirement. */
function caseProperties(c: CaseResult): string {
  const props: [string, string][] = [
    ...c.requirements.map((r): [string, string] => ['requirement', r]),
    ['spec', `${c.spec.doc} §${c.spec.section}`],
    ['level', c.level],
    ['title', c.title],
  ];
  if (c.attempts && c.attempts.length > 1) props.push(['attempts', String(c.attempts.length)]);
  return `<properties>${props.map(([k, v]) => `<property name="${escapeAttr(k)}" value="${escapeAttr(v)}"/>`).join('')}</properties>`;
}

function renderCase(c: CaseResult, plan: EvidencePlan, strict = false): string {
  const open = `    <testcase classname="${escapeAttr(c.suite)}" name="${escapeAttr(c.id)}" time="${seconds(c.durationMs)}">\n      ${caseProperties(c)}`;
  const close = (inner: string[]) => `${open}${inner.map((x) => `\n      ${x}`).join('')}\n    </testcase>`;
  const detailBodyOf = (lead?: string) => detailBody(c, plan, lead);
  let inner: string;
  switch (outcome(c)) {
    case 'passed':
      return close([]);
    case 'skipped':
      inner = `<skipped message="${escapeAttr(c.message)}"/>`;
      break;
    case 'known-failure': {
      const reason = c.knownFailure?.reason ?? '';
      inner = `<skipped message="${escapeAttr(`known failure: ${reason}`)}">${escapeText(detailBodyOf(`${c.status} (known failure: ${reason})`))}</skipped>`;
      break;
    }
    case 'unexpected-pass': {
      const msg = unexpectedPassMessage(c);
      inner = `<failure message="${escapeAttr(msg)}" type="unexpected-pass">${escapeText(detailBodyOf(msg))}</failure>`;
      break;
    }
    case 'failed':
      return close([`<failure message="${escapeAttr(c.message)}" type="assertion">${escapeText(detailBodyOf())}</failure>`, ...attemptElements(c, 'rerun', plan)]);
    case 'errored':
      return close([`<error message="${escapeAttr(c.message)}" type="error">${escapeText(detailBodyOf())}</error>`, ...attemptElements(c, 'rerun', plan)]);
    case 'warned':
      // A SHOULD rule not met, in a run without --strict: the test passes, the evidence is kept.
      inner = `<system-out>${escapeText(`WARNING (SHOULD): ${detailBodyOf()}`)}</system-out>`;
      break;
    case 'interrupted':
      inner = `<skipped message="${escapeAttr('interrupted: the run was stopped while this case ran')}"/>`;
      break;
    case 'unstarted':
      inner = `<skipped message="${escapeAttr('not started: the run was interrupted first')}"/>`;
      break;
    case 'flaky': {
      const n = c.attempts?.length;
      const summary = `FLAKY: failed, then passed on ${n ? `attempt ${n} of ${n}` : 'a retry'}\n${detailBodyOf()}`;
      // With --strict a case that passed only on a retry fails the run: a failure here too.
      const failure = strict ? [`<failure message="${escapeAttr(`flaky: passed only on attempt ${n ?? '?'} (--strict)`)}" type="flaky">${escapeText(summary)}</failure>`] : [];
      return close([...failure, ...attemptElements(c, 'flaky', plan), `<system-out>${escapeText(summary)}</system-out>`]);
    }
  }
  return close([inner]);
}

/**
 * A suite's counts. Its time is the run's wall time: the kit's suites run interleaved in one run,
 * so no suite has a span of its own, and a sum of case durations (cases run in parallel) would
 * claim several times the run's length.
 */
function tally(cases: CaseResult[], wallMs: number, strict = false): Counts {
  const n: Counts = { tests: cases.length, failures: 0, errors: 0, skipped: 0, timeMs: wallMs };
  for (const c of cases) {
    const o = outcome(c);
    if (o === 'failed' || o === 'unexpected-pass' || (strict && o === 'flaky')) n.failures++;
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
  if (report.backgroundLoad) props.push(['backgroundLoad', backgroundLoadText(report.backgroundLoad)!]);
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
  const plan = evidencePlan(report.cases.filter((c) => c.status !== 'passed' && c.status !== 'skipped'), JUNIT_BODY_BUDGET, JUNIT_BODY_LIMIT);
  for (const [name, cases] of suites) {
    const n = tally(cases, report.durationMs, report.strict);
    total.tests += n.tests;
    total.failures += n.failures;
    total.errors += n.errors;
    total.skipped += n.skipped;
    blocks.push(
      [
        `  <testsuite name="${escapeAttr(name)}" ${countsAttrs(n)} timestamp="${ts}">`,
        properties(report),
        ...cases.map((c) => renderCase(c, plan, report.strict)),
        '  </testsuite>',
      ].join('\n'),
    );
  }

  // Run-level problems fail the run too: an interruption shows as an error, leaks as a failure, and
  // so do a run that checked nothing (every selected case skipped: exit 2) and a missed
  // --fail-on-skip or --min-coverage (exit 1), so that a CI reading only the JUnit file sees them.
  const unchecked = nothingRan(report);
  const missed = policyFailures(report);
  if (report.interrupted || report.leaks.length || unchecked || missed.length) {
    const lines = [];
    const n: Counts = { tests: 0, failures: 0, errors: 0, skipped: 0, timeMs: 0 };
    const runFailure = (name: string, type: string, msg: string, body: string) => {
      n.tests++;
      n.failures++;
      total.tests++;
      total.failures++;
      lines.push(
        `    <testcase classname="${escapeAttr(report.tool)}" name="${escapeAttr(name)}" time="0.000">`,
        `      <failure message="${escapeAttr(msg)}" type="${escapeAttr(type)}">${escapeText(body)}</failure>`,
        '    </testcase>',
      );
    };
    if (unchecked) {
      const msg = `nothing was checked: every one of the ${report.cases.length} selected case(s) was skipped`;
      runFailure('run: nothing checked', 'unchecked', msg, `${msg}; by reason:\n${skipSummaryLines(report).join('\n')}`);
    }
    for (const why of missed) runFailure('run: policy', 'policy', why, why);
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
