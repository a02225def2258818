// Helpers shared by the reporters: outcomes, verdict, durations, exchanges, escaping, output.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { CaseResult, Exchange, RunReport } from '../runner/results.js';
import type { Reporter } from './types.js';

/**
 * What a case means for the run, known-failure list applied: a listed failure does not fail the
 * run, a listed case that passed does.
 */
export type Outcome = 'passed' | 'failed' | 'errored' | 'skipped' | 'known-failure' | 'unexpected-pass';

export function outcome(c: CaseResult): Outcome {
  if (c.unexpectedPass) return 'unexpected-pass';
  if (c.knownFailure && (c.status === 'failed' || c.status === 'errored')) return 'known-failure';
  return c.status;
}

/** True when the case makes the run fail. */
export function failsRun(c: CaseResult): boolean {
  const o = outcome(c);
  return o === 'failed' || o === 'errored' || o === 'unexpected-pass';
}

export type Verdict = 'PASS' | 'FAIL' | 'INCOMPLETE';

/**
 * FAIL when a case fails the run or objects were left behind (both make the exit code 1);
 * otherwise INCOMPLETE when interrupted; otherwise PASS.
 */
export function verdict(report: RunReport): Verdict {
  if (report.cases.some(failsRun) || report.leaks.length > 0) return 'FAIL';
  if (report.interrupted) return 'INCOMPLETE';
  return 'PASS';
}

export function verdictText(report: RunReport): string {
  switch (verdict(report)) {
    case 'PASS':
      return 'PASS: every case that ran passed, was skipped or is a known failure';
    case 'INCOMPLETE':
      return 'INCOMPLETE: the run was interrupted before every case finished';
    case 'FAIL': {
      const failing = report.cases.filter((c) => outcome(c) === 'failed' || outcome(c) === 'errored').length;
      const { unexpectedPasses } = knownCounts(report);
      const why = [
        failing ? `${failing} case${failing === 1 ? '' : 's'} failed or errored` : '',
        unexpectedPasses ? `${unexpectedPasses} known failure${unexpectedPasses === 1 ? '' : 's'} passed` : '',
        report.leaks.length ? `${report.leaks.length} object${report.leaks.length === 1 ? '' : 's'} left behind` : '',
      ].filter(Boolean);
      return `FAIL: ${why.join(', ')}`;
    }
  }
}

/** Why an unexpected pass fails the run (the runner puts this in the message). */
export function unexpectedPassMessage(c: CaseResult): string {
  if (c.message) return c.message;
  const reason = c.knownFailure ? ` ("${c.knownFailure.reason}")` : '';
  return `unexpected pass: listed as a known failure${reason}; remove it from the expect file`;
}

/** Counts known failures and unexpected passes, which the summary does not break out. */
export function knownCounts(report: RunReport): { knownFailures: number; unexpectedPasses: number } {
  let knownFailures = 0;
  let unexpectedPasses = 0;
  for (const c of report.cases) {
    const o = outcome(c);
    if (o === 'known-failure') knownFailures++;
    else if (o === 'unexpected-pass') unexpectedPasses++;
  }
  return { knownFailures, unexpectedPasses };
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
  if (target.embedded) return target.api ? `${target.api} (embedded reference)` : 'embedded reference';
  const metrics = Object.entries(target.metrics ?? {}).map(([name, url]) => `${name}=${url}`).join(', ');
  return `${target.api ?? '(no API URL)'}${metrics ? ` (metrics: ${metrics})` : ''}`;
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

export function truncate(s: string, max = BODY_LIMIT): string {
  if (s.length <= max) return s;
  return `${s.slice(0, max)}\n… (truncated, ${s.length - max} more characters)`;
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
  errored: 'ERRORED',
  skipped: 'skipped',
  'known-failure': 'known failure',
  'unexpected-pass': 'UNEXPECTED PASS',
};

/** Cases whose details (expected/actual, exchanges) the auditor reports show: failed or errored. */
export function detailedCases(report: RunReport): CaseResult[] {
  return report.cases.filter((c) => c.status === 'failed' || c.status === 'errored');
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

/** The plain facts of a run's summary table, shared by the markdown and HTML reports. */
export function summaryFacts(report: RunReport): [string, string][] {
  const s = report.summary;
  const k = knownCounts(report);
  return [
    ['Target', targetLabel(report.target)],
    ['Date', report.startedAt],
    ['Tool', `${report.tool} ${report.version}`],
    ['Duration', formatDuration(report.durationMs)],
    ['Cases', String(s.total)],
    ['Passed', String(s.passed)],
    ['Failed', String(s.failed)],
    ['Errored', String(s.errored)],
    ['Skipped', String(s.skipped)],
    ['Known failures (do not fail the run)', String(k.knownFailures)],
    ['Unexpected passes (fail the run)', String(k.unexpectedPasses)],
    ['Leaked objects', String(report.leaks.length)],
  ];
}
