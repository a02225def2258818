// Every case that observes a node agent is proven: it passes against the reference agent and fails
// against an agent broken in exactly its rule (proof/agent-*.ts, helpers/agent-node.ts). Runs are
// strict, so a broken SHOULD rule shows as `failed`.
import t from 'tap';
import { ALL_CASES } from '../suites/index.js';
import { AGENT_KINDS, type Case } from '../suites/case.js';
import { runCases } from '../runner/run.js';
import { AGENT_BREAKAGES } from './proof/agent-index.js';
import { startProofNode, type AgentBreakage } from './helpers/agent-node.js';

const agentCases = ALL_CASES.filter((c) => c.needs.some((k) => AGENT_KINDS.has(k)));

let seq = 0;
async function prove(c: Case, breakage?: AgentBreakage) {
  const runId = `pa${seq++}`;
  const node = await startProofNode(runId, breakage, c.needs.includes('agent') || c.needs.includes('cri'));
  try {
    const g = node.target.group;
    const report = await runCases({ cases: [c], conn: g.conn, node: node.node, embedded: false, gates: g.gates, facts: g.facts, version: 'test', timeoutMs: 45_000, strict: true, runId });
    return { result: report.cases[0]!, leaks: report.leaks, output: node.output() };
  } finally {
    await node.close();
  }
}

t.test('every agent case has a breakage, and every breakage a case', async (t) => {
  const ids = new Set(agentCases.map((c) => c.id));
  t.same(agentCases.filter((c) => !(c.id in AGENT_BREAKAGES)).map((c) => c.id), [], 'agent cases without a proof');
  t.same(Object.keys(AGENT_BREAKAGES).filter((id) => !ids.has(id)), [], 'breakages without an agent case');
});

t.test('each agent case passes against the reference agent and fails against one broken in its rule', async (t) => {
  const focus = process.env['PROOF_FOCUS'] ? new RegExp(process.env['PROOF_FOCUS']) : undefined;
  const queue = agentCases.filter((c) => !focus || focus.test(c.id));
  const work = async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      const good = await prove(c);
      t.equal(good.result.status, 'passed', `${c.id} passes against the reference agent${good.result.status !== 'passed' ? `: ${good.result.message} expected=${good.result.expected} actual=${good.result.actual}` : ''}`);
      t.same(good.leaks, [], `${c.id}: nothing left behind`);
      const bad = await prove(c, AGENT_BREAKAGES[c.id]);
      t.equal(bad.result.status, 'failed', `${c.id} fails against an agent broken in its rule${bad.result.status !== 'failed' ? ` (got ${bad.result.status}: ${bad.result.message})` : ''}`);
    }
  };
  await Promise.all([work(), work(), work()]);
});
