// `report`: a saved JSON results file rendered again by any reporter, with the run's exit code.
import { readFileSync } from 'node:fs';
import { exitCodeFor } from '../../runner/run.js';
import type { RunReport } from '../../runner/results.js';
import { UsageError } from '../../runner/errors.js';
import { createReporter } from '../../reporters/index.js';

export async function cmdReport(argv: any): Promise<number> {
  let report: RunReport;
  try {
    report = JSON.parse(readFileSync(argv.results, 'utf8'));
  } catch (err) {
    throw new UsageError(`cannot read ${argv.results}: ${(err as Error).message}`);
  }
  if (!report || !Array.isArray(report.cases) || !report.summary) throw new UsageError(`${argv.results} is not a results file written by 'run --reporter json=FILE'`);
  report.leaks ??= [];
  report.cleanupUnverified ??= [];
  report.strict ??= false;
  for (const spec of argv.reporter?.length ? argv.reporter : ['console']) await createReporter(spec).end(report);
  return exitCodeFor(report);
}

