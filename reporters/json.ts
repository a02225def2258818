// The run as JSON: exactly the RunReport shape, which `report` reads back. Selection and coverage
// included: a report re-rendered from a file written before coverage existed gets it computed.
import type { RunReport } from '../runner/results.js';
import { coverageOf } from './coverage.js';
import { FileReporter, type FileReporterOptions } from './format.js';
import { caseReproducer, reproducerTarget } from './reproducer.js';

/** The report with each failure's failing exchange carrying its reproducer (computed here, not by the runner). */
function withReproducers(report: RunReport): RunReport {
  const target = reproducerTarget(report);
  const cases = report.cases.map((c) => {
    const r = caseReproducer(c, target);
    if (!r) return c;
    const exchanges = c.exchanges.map((ex, i) => (i === r.n - 1 ? { ...ex, reproducer: r.text } : ex));
    return { ...c, exchanges };
  });
  return { ...report, cases };
}

export function renderJson(report: RunReport): string {
  const r = withReproducers(report);
  return `${JSON.stringify(r.coverage ? r : { ...r, coverage: coverageOf(r) }, null, 2)}\n`;
}

export class JsonReporter extends FileReporter {
  constructor(opts: FileReporterOptions = {}) {
    super('json', renderJson, opts);
  }
}
