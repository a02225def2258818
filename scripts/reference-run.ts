// Runs every case against freshly started embedded references (one per feature-gate set the cases
// need), quietly. Used to generate CONFORMANCE.md and by the tests that check it.
import { ALL_CASES } from '../suites/index.js';
import { runEmbedded } from '../runner/embedded.js';
import type { RunReport } from '../runner/results.js';

export function runAgainstReference(): Promise<RunReport> {
  return runEmbedded(ALL_CASES, { version: 'reference-run' });
}
