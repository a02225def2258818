// Live progress on a terminal, then a summary with every failure's evidence.
import type { CaseResult, RunReport } from '../runner/results.js';
import { type Outcome, countsText, exchangeSummary, findingLines, formatDuration, outcome, targetLabel, verdict, verdictText, writeOutput } from './format.js';
import type { Reporter, RunPlan } from './types.js';
import { coverageOf } from './coverage.js';
import { rerunCommand } from '../runner/rerun.js';

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

function oneLine(s: string): string {
  const first = s.split(/\r?\n/, 1)[0] ?? '';
  return first.length > 160 ? `${first.slice(0, 157)}...` : first;
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
  const last = c.exchanges.at(-1);
  if (last) out.push(`      last exchange: ${exchangeSummary(last)}`);
  return out;
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
    for (const c of failures) out.push(...failureBlock(c, style), `      ${p.dim('rerun:')} ${rerunCommand(report, c.id)}`, '');
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
  if (report.interrupted) out.push(p.bold(p.yellow('Interrupted: the run stopped before every case finished.')), '');

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
    t.interrupted ? `${t.interrupted} interrupted` : '',
    t.skipped ? `${t.skipped} skipped` : '',
    t.notRun ? `${t.notRun} not run` : '',
    t.notCovered ? `${t.notCovered} not covered` : '',
  ].filter(Boolean).join(', ');
  return `Requirements: ${t.covered} of ${t.requirements} covered by cases; in this run ${where}`;
}

/** The header printed at start. */
export function renderConsoleHeader(plan: RunPlan): string {
  return `Run ${plan.runId} against ${targetLabel(plan.target)}: ${plan.total} case${plan.total === 1 ? '' : 's'}\n`;
}

/** Console rendering of a saved run: the header line, then the end summary. */
export function renderConsole(report: RunReport): string {
  const header = renderConsoleHeader({ runId: report.runId, target: report.target, total: report.summary.total });
  return `${header}${renderConsoleSummary(report, PLAIN)}`;
}

export interface ConsoleReporterOptions {
  /** Force colours on or off; default: the stream is a TTY and NO_COLOR is unset. */
  color?: boolean;
}

export class ConsoleReporter implements Reporter {
  readonly name = 'console';
  private readonly tty: boolean;
  private readonly style: ConsoleStyle;
  private total = 0;
  private done = 0;

  constructor(
    private readonly out: NodeJS.WritableStream = process.stdout,
    opts: ConsoleReporterOptions = {},
  ) {
    this.tty = (out as { isTTY?: boolean }).isTTY === true;
    this.style = {
      color: opts.color ?? (this.tty && process.env.NO_COLOR === undefined),
      unicode: this.tty,
    };
  }

  start(plan: RunPlan): void {
    this.total = plan.total;
    this.done = 0;
    this.out.write(renderConsoleHeader(plan));
  }

  caseEnd(result: CaseResult): void {
    this.done++;
    const counter = this.tty ? `${painter(this.style).dim(`[${this.done}/${this.total || '?'}]`)} ` : '';
    this.out.write(`${counter}${renderCaseLine(result, this.style)}\n`);
  }

  async end(report: RunReport): Promise<void> {
    const text = renderConsoleSummary(report, this.style);
    await writeOutput(text, undefined, this.out);
  }
}
