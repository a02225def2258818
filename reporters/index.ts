// Reporter selection: `--reporter name` or `--reporter name=path`.
import type { RunReport } from '../runner/results.js';
import { UsageError } from '../runner/errors.js';
import { ConsoleReporter, renderConsole } from './console.js';
import type { FileReporterOptions } from './format.js';
import { HtmlReporter, renderHtml } from './html.js';
import { JsonReporter, renderJson } from './json.js';
import { JunitReporter, renderJunit } from './junit.js';
import { MarkdownReporter, renderMarkdown } from './markdown.js';
import { TapReporter, renderTap } from './tap.js';
import type { Reporter } from './types.js';

export type { Reporter, RunPlan } from './types.js';

export const REPORTER_NAMES = ['console', 'json', 'junit', 'markdown', 'html', 'tap'] as const;
export type ReporterName = (typeof REPORTER_NAMES)[number];

const RENDERERS: Record<ReporterName, (report: RunReport) => string> = {
  console: renderConsole,
  json: renderJson,
  junit: renderJunit,
  markdown: renderMarkdown,
  html: renderHtml,
  tap: renderTap,
};

const FILE_REPORTERS: Record<Exclude<ReporterName, 'console'>, new (opts: FileReporterOptions) => Reporter> = {
  json: JsonReporter,
  junit: JunitReporter,
  markdown: MarkdownReporter,
  html: HtmlReporter,
  tap: TapReporter,
};

function checkName(name: string): ReporterName {
  if ((REPORTER_NAMES as readonly string[]).includes(name)) return name as ReporterName;
  throw new UsageError(`unknown reporter "${name}"; valid reporters: ${REPORTER_NAMES.join(', ')}`);
}

/**
 * Creates a reporter from `name` or `name=path`. File reporters write to the path (creating its
 * directories) or, without one (or with `-`), to stdout. The console reporter takes no path.
 */
export function createReporter(spec: string, opts: { stdout?: NodeJS.WritableStream; progressIntervalMs?: number } = {}): Reporter {
  const eq = spec.indexOf('=');
  const name = checkName((eq === -1 ? spec : spec.slice(0, eq)).trim());
  const rawPath = eq === -1 ? undefined : spec.slice(eq + 1);
  if (rawPath !== undefined && rawPath.trim() === '') {
    throw new UsageError(`reporter "${spec}": empty path after "="; use ${name} or ${name}=<path>`);
  }
  const path = rawPath === '-' ? undefined : rawPath;
  if (name === 'console') {
    if (path !== undefined) throw new UsageError(`the console reporter writes to the terminal and takes no path (got "${spec}")`);
    return new ConsoleReporter(opts.stdout ?? process.stdout, { progressIntervalMs: opts.progressIntervalMs });
  }
  return new FILE_REPORTERS[name]({ path, stdout: opts.stdout });
}

/** Renders a saved run with the named reporter (`report` command); console gives the end summary. */
export function renderReport(name: string, report: RunReport): string {
  return RENDERERS[checkName(name)](report);
}
