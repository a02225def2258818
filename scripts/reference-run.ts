// Runs every case against a freshly started embedded reference, quietly. Used to generate
// CONFORMANCE.md and by the tests that check it.
import { ALL_CASES } from '../suites/index.js';
import { runCases } from '../runner/run.js';
import { defaultGates } from '../runner/gates.js';
import { startReference } from '../reference/server.js';
import type { RunReport } from '../runner/results.js';

export async function runAgainstReference(): Promise<RunReport> {
  const ref = await startReference({ host: '127.0.0.1', port: 0 });
  try {
    return await runCases({ cases: ALL_CASES, conn: { baseUrl: ref.url }, embedded: true, gates: defaultGates(), version: 'reference-run' });
  } finally {
    await ref.close();
  }
}
