// Every case is proven: it fails against a target broken in exactly its rule (see proof/*.ts), and
// passes against the reference (shown by the main run in conformance-doc.test.ts; here under PROOF_FOCUS). A case without a breakage fails here. Runs are not
// strict: a MUST case must fail on its own verdict, a SHOULD case warn (helpers/proof-level.ts).
import t from 'tap';
import { failedAtLevel } from './helpers/proof-level.js';
import { ALL_CASES as EVERY_CASE } from '../suites/index.js';
import { AGENT_KINDS } from '../suites/case.js';
import { runCases } from '../runner/run.js';
import { profileOf, startEmbeddedTarget, type EmbeddedTarget } from '../runner/embedded.js';
import { startBrokenTarget } from './helpers/broken-target.js';
import { BREAKAGES } from './proof/index.js';
import type { Case } from '../suites/case.js';
import type { TargetGroup } from '../runner/run.js';

// Cases that observe an agent are proven in proof-agent.test.ts, against broken agents; cases that
// observe a controller or the scheduler in proof-controllers.test.ts, against broken controllers.
const ALL_CASES = EVERY_CASE.filter((c) => !c.needs.some((k) => AGENT_KINDS.has(k)) && !(c.controllers?.length));

/** Runs one case against a target group, optionally through another URL (the broken proxy). */
async function runOne(c: Case, group: Omit<TargetGroup, 'cases'>, baseUrl = group.conn.baseUrl) {
  // The component's metrics and debug endpoints are at the same (proxied) URL as its API.
  const conn = { ...group.conn, baseUrl };
  const report = await runCases({ cases: [c], conn, components: { apiserver: conn }, embedded: false, gates: group.gates, facts: group.facts, version: 'test', timeoutMs: 20_000, strict: false });
  return report.cases[0]!;
}

t.test('every case has a breakage, and every breakage a case', async (t) => {
  const ids = new Set(ALL_CASES.map((c) => c.id));
  t.same(ALL_CASES.filter((c) => !(c.id in BREAKAGES)).map((c) => c.id), [], 'cases without a proof');
  t.same(Object.keys(BREAKAGES).filter((id) => !ids.has(id)), [], 'breakages without a case');
});

t.test('each case passes against the reference and fails against its broken target', async (t) => {
  // One reference per gate set, shared by the proofs of that set. A case that needs target facts
  // (a corrupt object it removes, a token it outwaits) gets a fresh reference for each of its runs.
  // Promises, so that workers asking for the same profile at once share one reference.
  const shared = new Map<string, Promise<EmbeddedTarget>>();
  t.teardown(() => Promise.all([...shared.values()].map(async (r) => (await r).close())));
  let seq = 0;
  // PROOF_ETCD_SERVERS=<urls>: the references keep their objects in that etcd, each under a prefix
  // of its own (test/proof-etcd.test.ts), so that the proofs hold on etcd too.
  const etcdServers = process.env['PROOF_ETCD_SERVERS'];
  const storage = (): Parameters<typeof startEmbeddedTarget>[1]['storage'] =>
    etcdServers ? { storage: 'etcd', etcd: { servers: etcdServers.split(','), prefix: `/proof-${process.pid}-${seq++}` } } : undefined;
  const targetFor = async (c: Case): Promise<{ target: EmbeddedTarget; own: boolean }> => {
    const profile = profileOf(c);
    if (profile.facts.length) return { target: await startEmbeddedTarget(profile, { runId: `proof${seq++}`, storage: storage() }), own: true };
    const key = JSON.stringify(profile);
    if (!shared.has(key)) shared.set(key, startEmbeddedTarget(profile, { runId: 'proof', storage: storage() }));
    return { target: await shared.get(key)!, own: false };
  };
  // PROOF_FOCUS=<regex> proves only the matching cases (while working on a few).
  const focus = process.env['PROOF_FOCUS'] ? new RegExp(process.env['PROOF_FOCUS']) : undefined;
  const selected = ALL_CASES.filter((c) => !focus || focus.test(c.id));
  // A few at a time: each proof is independent (own run id, own proxy).
  const queue = [...selected];
  const work = async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      // The passing side is the main run's (conformance-doc.test.ts: every case passes against the
      // embedded reference); a focused proof (PROOF_FOCUS) shows both sides.
      if (focus) {
        const good = await withTarget(c, (g) => runOne(c, g));
        t.equal(good.status, 'passed', `${c.id} passes against the reference${good.status !== 'passed' ? `: ${good.message} expected=${good.expected} actual=${good.actual}` : ''}`);
      }
      const bad = await withTarget(c, async (g) => {
        const broken = await startBrokenTarget(g.conn.baseUrl, BREAKAGES[c.id], { caPem: g.conn.caPem });
        try {
          return await runOne(c, g, broken.url);
        } finally {
          await broken.close();
        }
      });
      t.equal(bad.status, failedAtLevel(c), `${c.id} fails against a target broken in its rule, at its level${bad.status !== failedAtLevel(c) ? ` (got ${bad.status}: ${bad.message})` : ''}`);
      t.ok(bad.exchanges.length > 0, `${c.id}: the failure carries the recorded exchanges`);
    }
  };
  const withTarget = async <T>(c: Case, use: (g: EmbeddedTarget['group']) => Promise<T>): Promise<T> => {
    const { target, own } = await targetFor(c);
    try {
      return await use(target.group);
    } finally {
      if (own) await target.close();
    }
  };
  await Promise.all([work(), work(), work(), work()]);
});
