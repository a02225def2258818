// Live progress on a terminal, then a summary with every failure's evidence.
import type { CaseResult, RunReport } from '../runner/results.js';
import { caseReproducer, reproducerTarget } from './reproducer.js';
import { type Outcome, backgroundLoadText, countsText, exchangeSummary, findingLines, formatDuration, outcome, plural, targetLabel, verdict, verdictText, writeOutput } from './format.js';
import type { CaseStarted, Reporter, RunPlan } from './types.js';
import { coverageOf } from './coverage.js';
import { skipSummaryLines } from './skips.js';
import { rerunCommand } from '../runner/rerun.js';
import { differentialLines } from '../runner/differential.js';

export interface ConsoleStyle {
  /** ANSI colours. */
  color: boolean;
  /** Unicode status marks (✓ ✗ ! -) rather than ASCII words. */
  unicode: boolean;
}

const PLAIN: ConsoleStyle = { color: false, unicode: false };

type Paint = (s: string) => string;

function painter(style: ConsoleStyle): Record<'green' | 'red' | 'yellow' | 'dim' | 'bold', Paint> {
  const wrap =
    (open: number, close: number): Paint =>
    (s) =>
      style.color ? `\u001b[${open}m${s}\u001b[${close}m` : s;
  return { green: wrap(32, 39), red: wrap(31, 39), yellow: wrap(33, 39), dim: wrap(2, 22), bold: wrap(1, 22) };
}

function mark(o: Outcome, style: ConsoleStyle): string {
  const p = painter(style);
  const u = style.unicode;
  switch (o) {
    case 'passed':
      return p.green(u ? '✓' : 'ok  ');
    case 'failed':
      return p.red(u ? '✗' : 'FAIL');
    case 'errored':
      return p.red(u ? '!' : 'ERR ');
    case 'warned':
      return p.yellow(u ? '⚠' : 'WARN');
    case 'interrupted':
      return p.yellow(u ? '⏹' : 'INT ');
    case 'unstarted':
      return p.dim(u ? '·' : 'n/s ');
    case 'flaky':
      return p.yellow(u ? '~' : 'FLKY');
    case 'skipped':
      return p.dim(u ? '-' : 'skip');
    case 'known-failure':
      return p.yellow(u ? '✗' : 'xfail');
    case 'unexpected-pass':
      return p.red(u ? '✓' : 'XPASS');
  }
}

/** The line printed when a case finishes (without the progress counter). */
export function renderCaseLine(c: CaseResult, style: ConsoleStyle = PLAIN): string {
  const p = painter(style);
  const o = outcome(c);
  let line = `${mark(o, style)} ${c.id} ${p.dim(`(${formatDuration(c.durationMs)})`)}`;
  if (o === 'skipped') line += p.dim(` skipped: ${oneLine(c.message)}`);
  else if (o === 'known-failure') line += p.yellow(` known failure: ${oneLine(c.knownFailure?.reason ?? '')}`);
  else if (o === 'unexpected-pass') line += p.red(' unexpected pass (listed as a known failure)');
  else if (o === 'failed' || o === 'errored') line += ` ${oneLine(c.message)}`;
  else if (o === 'warned') line += p.yellow(` warning (SHOULD): ${oneLine(c.message)}`);
  else if (o === 'interrupted') line += p.yellow(' interrupted');
  else if (o === 'unstarted') line += p.dim(' not started (run interrupted)');
  else if (o === 'flaky') line += p.yellow(` flaky: passed on attempt ${c.attempts?.length ?? '?'}`);
  return line;
}

/**
 * The first line of a message, at most 160 characters. A longer one loses its middle, not its end:
 * skip reasons end with the flag that lets the case run.
 */
export function oneLine(s: string): string {
  const first = s.split(/\r?\n/, 1)[0] ?? '';
  return first.length > 160 ? `${first.slice(0, 60)} ... ${first.slice(-95)}` : first;
}

function indent(s: string, prefix: string): string {
  return s.replace(/\r?\n/g, `\n${prefix}`);
}

function failureBlock(c: CaseResult, style: ConsoleStyle): string[] {
  const p = painter(style);
  const out = [`  ${mark(outcome(c), style)} ${p.bold(c.id)}: ${c.title}`];
  if (c.message) out.push(`      ${indent(c.message, '      ')}`);
  if (c.expected !== undefined) out.push(`      ${p.green('expected:')} ${indent(c.expected, '                ')}`);
  if (c.actual !== undefined) out.push(`      ${p.red('actual:')}   ${indent(c.actual, '                ')}`);
  for (const f of findingLines(c)) out.push(`      ${p.yellow('finding:')}  ${indent(f, '                ')}`);
  out.push(`      requirements: ${c.requirements.length ? c.requirements.join(', ') : '(none)'}; spec ${c.spec.doc} §${c.spec.section}`);
  // The exchange the failed check followed, when the runner recorded it: the requests after it are
  // the case's own clean-up, which say nothing about the failure.
  const failing = c.failedExchange !== undefined ? c.exchanges[c.failedExchange] : undefined;
  if (failing) {
    const after = c.exchanges.length - 1 - c.failedExchange!;
    out.push(`      failing exchange: ${exchangeSummary(failing)}${after ? ` (then ${plural(after, 'more request')}, e.g. clean-up)` : ''}`);
  } else {
    const last = c.exchanges.at(-1);
    if (last) out.push(`      last exchange: ${exchangeSummary(last)}`);
  }
  // `--differential`: what the reference answered where the target's answer differs.
  if (c.differential) out.push(...differentialLines(c.differential).map((l) => `      ${indent(l, '        ')}`));
  return out;
}

/**
 * The curl command that sends the first failure's failing request again (only the first: the
 * others are in the Markdown, HTML and JSON reports, where they do not flood a terminal).
 */
function firstReproducer(report: RunReport, c: CaseResult, first: CaseResult): string[] {
  const r = c === first ? caseReproducer(c, reproducerTarget(report)) : undefined;
  // Not indented: a here-doc's closing line must start its line for the command to paste whole.
  return r ? [`      reproducer (exchange ${r.n}; the other failures' are in the Markdown, HTML and JSON reports):`, r.text] : [];
}

/** The end-of-run summary; its last line is the verdict, which also names warnings and a partial run. */
export function renderConsoleSummary(report: RunReport, style: ConsoleStyle = PLAIN): string {
  const p = painter(style);
  const s = report.summary;
  const cases = report.cases;
  const out: string[] = [''];

  const failures = cases.filter((c) => outcome(c) === 'failed' || outcome(c) === 'errored');
  if (failures.length) {
    out.push(p.bold('Failures:'));
    // Each failure ends with the command that runs it alone again.
    for (const c of failures) out.push(...failureBlock(c, style), `      ${p.dim('rerun:')} ${rerunCommand(report, c.id)}`, ...firstReproducer(report, c, failures[0]!), '');
  }
  const warnings = cases.filter((c) => outcome(c) === 'warned');
  if (warnings.length) {
    out.push(p.bold(p.yellow('Warnings (SHOULD rules not met; --strict makes them failures):')));
    for (const c of warnings) out.push(...failureBlock(c, style), '');
  }
  const known = cases.filter((c) => outcome(c) === 'known-failure');
  if (known.length) {
    out.push(p.bold('Known failures (listed in the expect file; they do not fail the run):'));
    for (const c of known) {
      out.push(`  ${mark('known-failure', style)} ${c.id}: ${c.knownFailure?.reason ?? ''}${c.message ? ` (${oneLine(c.message)})` : ''}`);
    }
    out.push('');
  }
  const unexpected = cases.filter((c) => outcome(c) === 'unexpected-pass');
  if (unexpected.length) {
    out.push(p.bold(p.red('Unexpected passes (listed as known failures; remove them from the expect file):')));
    for (const c of unexpected) out.push(`  ${mark('unexpected-pass', style)} ${c.id}${c.knownFailure ? `: ${c.knownFailure.reason}` : ''}`);
    out.push('');
  }
  const interrupted = cases.filter((c) => outcome(c) === 'interrupted');
  if (interrupted.length) {
    out.push(p.bold(p.yellow('Interrupted (stopped with the run; no verdict on the target):')));
    for (const c of interrupted) out.push(`  ${mark('interrupted', style)} ${c.id}`);
    out.push('');
  }
  if (report.leaks.length) {
    out.push(p.bold(p.yellow(`Leaked objects (still present after cleanup): ${report.leaks.length}`)));
    for (const l of report.leaks) out.push(`  ${l}`);
    out.push('');
  }
  if (report.cleanupUnverified?.length) {
    out.push(p.bold(p.yellow(`Cleanup not verified (not known to be left behind; check by hand): ${report.cleanupUnverified.length}`)));
    for (const l of report.cleanupUnverified) out.push(`  ${l}`);
    out.push('');
  }
  const unstarted = cases.filter((c) => outcome(c) === 'unstarted');
  if (unstarted.length) {
    out.push(p.bold(p.yellow(`Not started (the run was interrupted first; no verdict on the target): ${unstarted.length}`)));
    for (const c of unstarted.slice(0, UNSTARTED_LISTED)) out.push(`  ${mark('unstarted', style)} ${c.id}`);
    if (unstarted.length > UNSTARTED_LISTED) out.push(`  ... and ${unstarted.length - UNSTARTED_LISTED} more`);
    out.push('');
  }
  const skips = skipSummaryLines(report, { ids: !!report.policy?.failOnSkip });
  if (skips.length) out.push(p.bold('Skipped, by reason (the flags named would let them run):'), ...skips.map((l) => p.dim(l)), '');
  if (report.interrupted) {
    const notRun = unstarted.length + interrupted.length;
    out.push(p.bold(p.yellow(`Interrupted: the run stopped before every case finished${notRun ? ` (${plural(interrupted.length, 'case')} stopped, ${unstarted.length} not started)` : ''}.`)), '');
  }

  out.push(coverageLine(report));
  out.push(`${countsText(s)}; ${s.total} total in ${formatDuration(report.durationMs)}`);
  const v = verdict(report);
  const paint = v === 'FAIL' ? p.red : v === 'PASS' && !s.warned ? p.green : p.yellow;
  out.push(paint(p.bold(verdictText(report))));
  return `${out.join('\n')}\n`;
}

/** Requirements of the spec catalogue: how many the kit covers, and where this run leaves them. */
export function coverageLine(report: RunReport): string {
  const t = coverageOf(report).total;
  const where = [
    t.passed ? `${t.passed} passed` : '',
    t.failed ? `${t.failed} failed` : '',
    t.errored ? `${t.errored} errored` : '',
    t.warned ? `${t.warned} warned` : '',
    t.knownFailures ? `${t.knownFailures} known failure${t.knownFailures === 1 ? '' : 's'}` : '',
    t.interrupted ? `${t.interrupted} interrupted or not started` : '',
    t.skipped ? `${t.skipped} skipped` : '',
    t.notRun ? `${t.notRun} not run` : '',
    t.notCovered ? `${t.notCovered} not covered` : '',
  ].filter(Boolean).join(', ');
  return `Requirements: ${t.covered} of ${t.requirements} covered by cases; in this run ${where}`;
}

/** Not-started cases the console names one by one; the rest are counted. */
const UNSTARTED_LISTED = 20;

/** The header printed at start. */
export function renderConsoleHeader(plan: RunPlan): string {
  const load = backgroundLoadText(plan.backgroundLoad);
  return `Run ${plan.runId} against ${targetLabel(plan.target)}: ${plan.total} case${plan.total === 1 ? '' : 's'}\n${load ? `Background load: ${load}\n` : ''}`;
}

/** Console rendering of a saved run: the header line, then the end summary. */
export function renderConsole(report: RunReport): string {
  const header = renderConsoleHeader({ runId: report.runId, target: report.target, total: report.summary.total, backgroundLoad: report.backgroundLoad });
  return `${header}${renderConsoleSummary(report, PLAIN)}`;
}

export interface ConsoleReporterOptions {
  /** Force colours on or off; default: the stream is a TTY and NO_COLOR is unset. */
  color?: boolean;
  /**
   * Off a TTY, a progress line this often (counts and the slowest running cases), for CI logs that
   * show nothing else for minutes; 0 for none. Default 30 s (`run --progress-interval`).
   */
  progressIntervalMs?: number;
}

/** Running cases the progress line names, the longest-running first. */
const SLOWEST_SHOWN = 3;

/**
 * The periodic progress line: done of total with the counts so far, and the cases running longest,
 * e.g. "progress: 120 of 995 done (110 passed, 10 skipped) after 1m30.0s; 6 running, longest: a (45.0s), b (30.2s)".
 */
export function renderProgressLine(p: { done: number; total: number; counts: ReadonlyMap<Outcome, number>; elapsedMs: number; running: ReadonlyMap<string, number>; now: number }): string {
  const counts = [...p.counts].filter(([, n]) => n > 0).map(([o, n]) => `${n} ${o.replace('-', ' ')}`).join(', ');
  const longest = [...p.running].sort((a, b) => a[1] - b[1]).slice(0, SLOWEST_SHOWN).map(([id, t0]) => `${id} (${formatDuration(p.now - t0)})`);
  const running = p.running.size ? `; ${p.running.size} running, longest: ${longest.join(', ')}` : '';
  return `progress: ${p.done} of ${p.total} done${counts ? ` (${counts})` : ''} after ${formatDuration(p.elapsedMs)}${running}`;
}

export class ConsoleReporter implements Reporter {
  readonly name = 'console';
  private readonly tty: boolean;
  private readonly style: ConsoleStyle;
  private total = 0;
  private done = 0;
  private readonly progressIntervalMs: number;
  private progressTimer?: NodeJS.Timeout;
  private startedAt = 0;
  /** Running cases by id, with when each started. */
  private readonly running = new Map<string, number>();
  private readonly counts = new Map<Outcome, number>();

  constructor(
    private readonly out: NodeJS.WritableStream = process.stdout,
    opts: ConsoleReporterOptions = {},
  ) {
    this.tty = (out as { isTTY?: boolean }).isTTY === true;
    this.style = {
      color: opts.color ?? (this.tty && process.env.NO_COLOR === undefined),
      unicode: this.tty,
    };
    this.progressIntervalMs = opts.progressIntervalMs ?? 30_000;
  }

  start(plan: RunPlan): void {
    this.total = plan.total;
    this.done = 0;
    this.startedAt = performance.now();
    this.out.write(renderConsoleHeader(plan));
    // A terminal shows the counter on every line; a CI log gets a line now and then instead.
    if (!this.tty && this.progressIntervalMs > 0) {
      this.progressTimer = setInterval(() => this.out.write(`${this.progressLine()}\n`), this.progressIntervalMs);
      this.progressTimer.unref();
    }
  }

  /** The progress line as of now (also what the timer writes). */
  progressLine(): string {
    const now = performance.now();
    return renderProgressLine({ done: this.done, total: this.total, counts: this.counts, elapsedMs: now - this.startedAt, running: this.running, now });
  }

  caseStart(c: CaseStarted): void {
    this.running.set(c.id, performance.now());
  }

  caseEnd(result: CaseResult): void {
    this.done++;
    this.running.delete(result.id);
    const o = outcome(result);
    this.counts.set(o, (this.counts.get(o) ?? 0) + 1);
    // After an interrupt the cases that never started are counted in the summary, not listed here.
    if (o === 'unstarted') return;
    const counter = this.tty ? `${painter(this.style).dim(`[${this.done}/${this.total || '?'}]`)} ` : '';
    this.out.write(`${counter}${renderCaseLine(result, this.style)}\n`);
  }

  async end(report: RunReport): Promise<void> {
    clearInterval(this.progressTimer);
    const text = renderConsoleSummary(report, this.style);
    await writeOutput(text, undefined, this.out);
  }
}
