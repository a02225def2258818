// Every case is proven: it passes against the reference and fails against a target broken in
// exactly its rule (see proof/*.ts). A case without a breakage fails here.
import t from 'tap';
import { ALL_CASES } from '../suites/index.js';
import { runCases } from '../runner/run.js';
import { defaultGates } from '../runner/gates.js';
import { startReference, type RunningReference } from '../reference/server.js';
import { groupByGates } from '../runner/embedded.js';
import { startBrokenTarget } from './helpers/broken-target.js';
import { BREAKAGES } from './proof/index.js';
import type { Case } from '../suites/case.js';

/** The gate overrides a case needs (against 1.37 defaults). */
function overridesFor(c: Case): Record<string, boolean> {
  return groupByGates([c])[0]!.overrides;
}

async function runOne(c: Case, baseUrl: string) {
  // The component's metrics and debug endpoints are at the same (proxied) URL as its API.
  const report = await runCases({ cases: [c], conn: { baseUrl }, components: { apiserver: { baseUrl } }, embedded: false, gates: { ...defaultGates(), ...overridesFor(c) }, version: 'test', timeoutMs: 20_000 });
  return report.cases[0]!;
}

t.test('every case has a breakage, and every breakage a case', async (t) => {
  const ids = new Set(ALL_CASES.map((c) => c.id));
  t.same(ALL_CASES.filter((c) => !(c.id in BREAKAGES)).map((c) => c.id), [], 'cases without a proof');
  t.same(Object.keys(BREAKAGES).filter((id) => !ids.has(id)), [], 'breakages without a case');
});

t.test('each case passes against the reference and fails against its broken target', async (t) => {
  // One reference per gate set the cases need, shared by the proofs of that set.
  const refs = new Map<string, RunningReference>();
  t.teardown(() => Promise.all([...refs.values()].map((r) => r.close())));
  const refFor = async (c: Case) => {
    const key = JSON.stringify(overridesFor(c));
    if (!refs.has(key)) refs.set(key, await startReference({ host: '127.0.0.1', port: 0, featureGates: overridesFor(c) }));
    return refs.get(key)!;
  };
  for (const c of ALL_CASES) await refFor(c);
  // A few at a time: each proof is independent (own run id, own proxy).
  const queue = [...ALL_CASES];
  const work = async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      const ref = await refFor(c);
      const good = await runOne(c, ref.url);
      t.equal(good.status, 'passed', `${c.id} passes against the reference${good.status !== 'passed' ? `: ${good.message} expected=${good.expected} actual=${good.actual}` : ''}`);
      const broken = await startBrokenTarget(ref.url, BREAKAGES[c.id]);
      try {
        const bad = await runOne(c, broken.url);
        t.equal(bad.status, 'failed', `${c.id} fails against a target broken in its rule${bad.status !== 'failed' ? ` (got ${bad.status}: ${bad.message})` : ''}`);
        t.ok(bad.exchanges.length > 0, `${c.id}: the failure carries the recorded exchanges`);
      } finally {
        await broken.close();
      }
    }
  };
  await Promise.all([work(), work(), work(), work()]);
});
