// Every agent case has a breakage (proof/agent-*.ts) and every breakage a case; the proofs
// themselves run in proof-agent/*.test.ts, split by area.
import t from 'tap';
import { AGENT_BREAKAGES } from './proof/agent-index.js';
import { AGENT_CASES, proveAgentCases } from './helpers/agent-proof.js';
import { PROOF_AREAS } from './proof-agent/areas.js';

t.test('every agent case has a breakage, and every breakage a case', async (t) => {
  const ids = new Set(AGENT_CASES.map((c) => c.id));
  t.same(AGENT_CASES.filter((c) => !(c.id in AGENT_BREAKAGES)).map((c) => c.id), [], 'agent cases without a proof');
  t.same(Object.keys(AGENT_BREAKAGES).filter((id) => !ids.has(id)), [], 'breakages without an agent case');
});

t.test('every agent case is proven by one of the area files', async (t) => {
  t.same(AGENT_CASES.filter((c) => PROOF_AREAS.filter((re) => re.test(c.id)).length !== 1).map((c) => c.id), [], 'cases in no area, or in two');
});

// PROOF_FOCUS=<regex> proves the matching agent cases here too (while working on a few of them).
if (process.env['PROOF_FOCUS']) {
  t.test('the focused agent cases pass against the reference agent and fail against one broken in their rule', (t) => proveAgentCases(t, /.*/, { passing: true }));
}
