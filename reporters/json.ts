// The run as JSON: exactly the RunReport shape, which `report` reads back. Selection and coverage
// included: a report re-rendered from a file written before coverage existed gets it computed.
import type { RunReport } from '../runner/results.js';
import { coverageOf } from './coverage.js';
import { FileReporter, type FileReporterOptions } from './format.js';

export function renderJson(report: RunReport): string {
  return `${JSON.stringify(report.coverage ? report : { ...report, coverage: coverageOf(report) }, null, 2)}\n`;
}

export class JsonReporter extends FileReporter {
  constructor(opts: FileReporterOptions = {}) {
    super('json', renderJson, opts);
  }
}
