// The run as JSON: exactly the RunReport shape, which `report` reads back.
import type { RunReport } from '../runner/results.js';
import { FileReporter, type FileReporterOptions } from './format.js';

export function renderJson(report: RunReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

export class JsonReporter extends FileReporter {
  constructor(opts: FileReporterOptions = {}) {
    super('json', renderJson, opts);
  }
}
