// `report`: a saved JSON results file rendered again by any reporter, with the run's exit code;
// `report merge`: shards' results as one report; `report diff`: what changed between two runs;
// `report matrix`: several runs side by side.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { exitCodeFor } from '../../runner/run.js';
import type { RunReport } from '../../runner/results.js';
import { UsageError } from '../../runner/errors.js';
import { createReporter } from '../../reporters/index.js';

/** A results file written by `run --reporter json=FILE`, with fields older reports lack filled in. */
function readResults(file: string): RunReport {
  let report: RunReport;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  if (!report || !Array.isArray(report.cases) || !report.summary) throw new UsageError(`${file} is not a results file written by 'run --reporter json=FILE'`);
  report.leaks ??= [];
  report.cleanupUnverified ??= [];
  report.strict ??= false;
  return report;
}

async function render(report: RunReport, specs: string[] | undefined): Promise<void> {
  const reporters = (specs?.length ? specs : ['console']).map((spec) => createReporter(spec));
  for (const r of reporters) await r.end(report);
}

export async function cmdReport(argv: any, version = ''): Promise<number> {
  const report = readResults(argv.results);
  if (argv.differential) {
    // Runs the failed and warned cases against the embedded reference; the verdicts stay the run's.
    const [{ replayOnReference }, { ALL_CASES }] = await Promise.all([import('../../runner/differential.js'), import('../../suites/index.js')]);
    await replayOnReference(report, { cases: ALL_CASES, version });
  }
  await render(report, argv.reporter);
  return exitCodeFor(report);
}

/** `report merge a.json b.json ...`: the shards of one run as one report, exit code as that run's. */
export async function cmdReportMerge(argv: any): Promise<number> {
  const { mergeReports } = await import('../../runner/merge.js');
  const files: string[] = (argv.files ?? []).map(String);
  const merged = mergeReports(files.map((file) => ({ file, report: readResults(file) })));
  await render(merged, argv.reporter);
  return exitCodeFor(merged);
}

/** `report diff base.json head.json`: exit 1 when head regressed a case that passed in base. */
export async function cmdReportDiff(argv: any): Promise<number> {
  const { diffReports, diffExitCode, renderDiff } = await import('../../reporters/diff.js');
  const diff = diffReports(readResults(argv.base), readResults(argv.head));
  writeRendered(argv.reporter, (name) => renderDiff(name, diff));
  return diffExitCode(diff);
}

/** `report matrix a.json b.json ...`: the runs side by side; exit 0 once written (it judges no run). */
export async function cmdReportMatrix(argv: any): Promise<number> {
  const { buildMatrix, renderMatrix } = await import('../../reporters/matrix.js');
  const files: string[] = (argv.files ?? []).map(String);
  const matrix = buildMatrix(files.map((file) => ({ file, report: readResults(file) })));
  writeRendered(argv.reporter, (name) => renderMatrix(name, matrix));
  return 0;
}

/**
 * Writes `render(name)` for each `--reporter name[=path]` (default console), to the path or to
 * standard output. Every reporter name is checked before anything is written.
 */
function writeRendered(reporter: string[] | undefined, render: (name: string) => string): void {
  const specs: string[] = reporter?.length ? reporter : ['console'];
  const outputs = specs.map((spec) => {
    const eq = spec.indexOf('=');
    const name = (eq === -1 ? spec : spec.slice(0, eq)).trim();
    const path = eq === -1 || spec.slice(eq + 1) === '-' ? undefined : spec.slice(eq + 1);
    if (name === 'console' && path !== undefined) throw new UsageError(`the console reporter writes to the terminal and takes no path (got "${spec}")`);
    return { path, text: render(name) };
  });
  for (const { path, text } of outputs) {
    if (path === undefined) {
      process.stdout.write(text);
      continue;
    }
    try {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    } catch (err) {
      throw new UsageError(`--reporter: cannot write ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  }
}
