// Every case that observes a controller or the scheduler is proven: it passes against the reference
// and fails against a reference whose controller manager or scheduler runs with the case's test-only
// switches (test/proof/controllers.ts). Runs are not strict: a MUST case must fail on
// its own verdict, a SHOULD case warn (helpers/proof-level.ts).
import t from 'tap';
import { failedAtLevel } from './helpers/proof-level.js';
import { ALL_CASES } from '../suites/index.js';
import { runCases } from '../runner/run.js';
import { profileOf, startEmbeddedTarget, type EmbeddedTarget } from '../runner/embedded.js';
import { CONTROLLER_BREAKAGES } from './proof/controllers.js';
import { evictionMayOutcomes } from './proof/controllers-eviction.js';
import type { Case } from '../suites/case.js';

const CASES = ALL_CASES.filter((c) => (c.controllers?.length ?? 0) > 0);
/** Cases of "may" rules and the controller switches that take the outcome the reference does not. */
const CONTROLLER_MAY_OUTCOMES = { ...evictionMayOutcomes };

async function runOne(c: Case, target: EmbeddedTarget) {
  const g = target.group;
  const report = await runCases({ cases: [c], conn: g.conn, components: g.components, embedded: false, gates: g.gates, facts: g.facts, version: 'test', timeoutMs: 60_000, strict: false });
  return report.cases[0]!;
}

t.test('every controller case has a breakage, and every breakage a controller case', async (t) => {
  const ids = new Set(CASES.map((c) => c.id));
  t.same(CASES.filter((c) => !(c.id in CONTROLLER_BREAKAGES)).map((c) => c.id), [], 'controller cases without a proof');
  t.same(Object.keys(CONTROLLER_BREAKAGES).filter((id) => !ids.has(id)), [], 'breakages without a controller case');
});

t.test('each controller case passes against the reference and fails against its broken controller', async (t) => {
  const shared = new Map<string, Promise<EmbeddedTarget>>();
  t.teardown(() => Promise.all([...shared.values()].map(async (r) => (await r).close())));
  let seq = 0;
  const focus = process.env['PROOF_FOCUS'] ? new RegExp(process.env['PROOF_FOCUS']) : undefined;
  const queue = CASES.filter((c) => c.id in CONTROLLER_BREAKAGES && (!focus || focus.test(c.id)));
  const work = async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      const profile = profileOf(c);
      const key = JSON.stringify(profile);
      // The passing side is the main run's (conformance-doc.test.ts: every case passes against the
      // embedded reference) and the split control plane's (split-control-plane.test.ts); a focused
      // proof (PROOF_FOCUS) shows both sides.
      if (focus) {
        if (!shared.has(key)) shared.set(key, startEmbeddedTarget(profile, { runId: `cproof${seq++}` }));
        const good = await runOne(c, await shared.get(key)!);
        t.equal(good.status, 'passed', `${c.id} passes against the reference${good.status !== 'passed' ? `: ${good.message} expected=${good.expected} actual=${good.actual}` : ''}`);
      }
      const broken = await startEmbeddedTarget(profile, { runId: `cbroken${seq++}`, breaks: new Set(CONTROLLER_BREAKAGES[c.id]!.breaks) });
      try {
        const bad = await runOne(c, broken);
        t.equal(bad.status, failedAtLevel(c), `${c.id} fails against a control plane broken in its rule, at its level${bad.status !== failedAtLevel(c) ? ` (got ${bad.status}: ${bad.message})` : ''}`);
      } finally {
        await broken.close();
      }
    }
  };
  // Mostly waiting on controllers' timers and the cases' bounded waits, not on the CPU (about 22 s of CPU
  // in 166 s with six at once): sixteen at once.
  await Promise.all(Array.from({ length: 16 }, work));
});

t.test('a controller case of a "may" rule passes against a controller that takes the other permitted outcome', async (t) => {
  const focus = process.env['PROOF_FOCUS'] ? new RegExp(process.env['PROOF_FOCUS']) : undefined;
  let seq = 0;
  for (const [id, outcome] of Object.entries(CONTROLLER_MAY_OUTCOMES)) {
    if (focus && !focus.test(id)) continue;
    const c = CASES.find((x) => x.id === id);
    t.ok(c, `${id} is a controller case`);
    if (!c) continue;
    const other = await startEmbeddedTarget(profileOf(c), { runId: `cmay${seq++}`, breaks: new Set(outcome.breaks) });
    try {
      const r = await runOne(c, other);
      t.equal(r.status, 'passed', `${id} passes (strict) with ${outcome.breaks.join(', ')}${r.status !== 'passed' ? `: ${r.message} expected=${r.expected} actual=${r.actual}` : ''}`);
    } finally {
      await other.close();
    }
  }
});
