// What `run --differential` costs (issue 26): a run with ~30 failures (spec-000 cases each run
// through a proxy broken in its rule, test/proof/control-plane.ts) is replayed against the embedded
// reference, and the replay's wall time (references started, cases run, exchanges compared) is set
// against the failed cases' own time in the run (the sum of their durations).   aim: under 2x
//
// The replay runs one case at a time by default (--parallel 1), as the failed run did here: a
// replay with the run's parallelism is faster than this figure says.
//
//   node dist/bench/differential.js [--failures 30] [--parallel 1]
import { parseArgs } from 'node:util';
import { ALL_CASES } from '../suites/index.js';
import { AGENT_KINDS, type Case } from '../suites/case.js';
import { runCases, summarise } from '../runner/run.js';
import { profileOf, startEmbeddedTarget } from '../runner/embedded.js';
import { replayOnReference } from '../runner/differential.js';
import type { CaseResult, RunReport } from '../runner/results.js';
import { startBrokenTarget } from '../test/helpers/broken-target.js';
import { controlPlaneBreakages } from '../test/proof/control-plane.js';
import { positiveInt, printTable } from './report.js';

const { values: args } = parseArgs({ options: { failures: { type: 'string', default: '30' }, parallel: { type: 'string', default: '1' } } });
const wanted = positiveInt('differential', 'failures', args.failures!);
const parallel = positiveInt('differential', 'parallel', args.parallel!);

// API cases of the default profile only: one reference serves the whole failed run.
const plain = (c: Case) => c.id in controlPlaneBreakages && !c.needs.some((k) => AGENT_KINDS.has(k)) && !c.controllers?.length
  && !c.facts?.length && Object.keys(profileOf(c).overrides).length === 0;
const candidates = ALL_CASES.filter(plain);

const target = await startEmbeddedTarget(profileOf(candidates[0]!), { runId: 'benchd' });
const failed: CaseResult[] = [];
try {
  for (const c of candidates) {
    if (failed.length >= wanted) break;
    const broken = await startBrokenTarget(target.group.conn.baseUrl, controlPlaneBreakages[c.id]!, { caPem: target.group.conn.caPem });
    try {
      const conn = { ...target.group.conn, baseUrl: broken.url };
      const r = (await runCases({ cases: [c], conn, components: { apiserver: conn }, embedded: false, gates: target.group.gates, version: 'bench', timeoutMs: 20_000 })).cases[0]!;
      if (r.status === 'failed' || r.status === 'warned') failed.push(r);
    } finally {
      await broken.close();
    }
  }
} finally {
  await target.close();
}

const report: RunReport = {
  tool: 'orch-conformance', version: 'bench', target: { api: 'http://broken.invalid', embedded: false }, runId: 'benchd', startedAt: new Date().toISOString(),
  durationMs: 0, summary: summarise(failed), cases: failed, leaks: [], cleanupUnverified: [], interrupted: false, strict: false,
};
const own = failed.reduce((n, r) => n + r.durationMs, 0);
const t0 = performance.now();
await replayOnReference(report, { cases: ALL_CASES, version: 'bench', parallel });
const replay = performance.now() - t0;
const named = failed.filter((r) => r.differential?.exchange).length;
const ratio = replay / own;

printTable(['measure', 'value'], [
  ['failed or warned cases', String(failed.length)],
  ['their own time in the run (sum)', `${own.toFixed(0)} ms`],
  [`replay on the reference (--parallel ${parallel})`, `${replay.toFixed(0)} ms`],
  ['overhead (replay / own time)', `${ratio.toFixed(2)}x (aim < 2x)`],
  ['cases with a differing exchange named', `${named} of ${failed.length}`],
]);
if (failed.length < wanted) console.log(`note: only ${failed.length} plain API cases failed through their proxies (asked for ${wanted})`);
