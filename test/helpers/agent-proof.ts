// Proves agent cases (those whose needs include agent, cri or agent-exec): each passes against the
// reference agent and fails against an agent broken in exactly its rule (proof/agent-*.ts,
// helpers/agent-node.ts). Runs are strict, so a broken SHOULD rule shows as `failed`. The proofs are
// split over several test files by case id prefix, so that they run side by side and each file stays
// within tap's per-file time limit.
import type { Test } from 'tap';
import { ALL_CASES } from '../../suites/index.js';
import { AGENT_KINDS, type Case } from '../../suites/case.js';
import { runCases } from '../../runner/run.js';
import { AGENT_BREAKAGES } from '../proof/agent-index.js';
import { startProofNode, type AgentBreakage } from './agent-node.js';

export const AGENT_CASES = ALL_CASES.filter((c) => c.needs.some((k) => AGENT_KINDS.has(k)));

let seq = 0;
async function runAgainst(c: Case, breakage?: AgentBreakage) {
  const runId = `pa${process.pid % 1000}x${seq++}`;
  const node = await startProofNode(runId, breakage, c.needs.includes('agent') || c.needs.includes('cri'));
  try {
    const g = node.target.group;
    const report = await runCases({ cases: [c], conn: g.conn, node: node.node, embedded: false, gates: g.gates, facts: g.facts, version: 'test', timeoutMs: 45_000, strict: true, runId });
    return { result: report.cases[0]!, leaks: report.leaks };
  } finally {
    await node.close();
  }
}

/** Proves the agent cases whose id matches `ids` (and PROOF_FOCUS, when set), `workers` at a time. */
export async function proveAgentCases(t: Test, ids: RegExp, workers = 4): Promise<void> {
  const focus = process.env['PROOF_FOCUS'] ? new RegExp(process.env['PROOF_FOCUS']) : undefined;
  const queue = AGENT_CASES.filter((c) => ids.test(c.id) && (!focus || focus.test(c.id)));
  const work = async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      const [good, bad] = await Promise.all([runAgainst(c), runAgainst(c, AGENT_BREAKAGES[c.id])]);
      t.equal(good.result.status, 'passed', `${c.id} passes against the reference agent${good.result.status !== 'passed' ? `: ${good.result.message} expected=${good.result.expected} actual=${good.result.actual}` : ''}`);
      t.same(good.leaks, [], `${c.id}: nothing left behind`);
      t.equal(bad.result.status, 'failed', `${c.id} fails against an agent broken in its rule${bad.result.status !== 'failed' ? ` (got ${bad.result.status}: ${bad.result.message})` : ''}`);
    }
  };
  await Promise.all(Array.from({ length: workers }, work));
}
