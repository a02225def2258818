// Proves agent cases (those whose needs include agent, cri or agent-exec) fail against an agent broken
// in exactly their rule (proof/agent-*.ts, helpers/agent-node.ts). Runs are not strict: a MUST case
// must fail on its own verdict, a broken SHOULD rule warn (proof-level.ts). That each passes against the reference agent (and leaves nothing behind) is
// shown by the embedded runs of every case: test/conformance-doc.test.ts (CONFORMANCE.md records a
// pass for each, and is compared with a fresh run) and test/cli.test.ts (the README's main command
// exits 0); running the passing side again here would double the cost of these proofs. PROOF_FOCUS
// runs (proof-agent.test.ts) still run both sides. The proofs are split over several test files by
// case id prefix, so that they run side by side and each stays within tap's per-file time limit.
import type { Test } from 'tap';
import { failedAtLevel } from './proof-level.js';
import { ALL_CASES } from '../../suites/index.js';
import { AGENT_KINDS, type Case } from '../../suites/case.js';
import { runCases } from '../../runner/run.js';
import { AGENT_BREAKAGES } from '../proof/agent-index.js';
import { startProofNode, type AgentBreakage, type ProofNode } from './agent-node.js';

export const AGENT_CASES = ALL_CASES.filter((c) => c.needs.some((k) => AGENT_KINDS.has(k)));

let seq = 0;
const needsAgentProcess = (c: Case) => c.needs.includes('agent') || c.needs.includes('cri');

async function runOn(node: ProofNode, c: Case, runId: string) {
  const g = node.target.group;
  const report = await runCases({ cases: [c], conn: g.conn, node: node.node, embedded: false, gates: g.gates, facts: g.facts, version: 'test', timeoutMs: 45_000, strict: false, runId });
  return { result: report.cases[0]!, leaks: report.leaks };
}

/** A broken node is the case's own: its agent (or the agents it launches) carry the breakage. */
async function runBroken(c: Case, breakage: AgentBreakage) {
  const runId = `pa${process.pid % 1000}x${seq++}`;
  const node = await startProofNode(runId, breakage, needsAgentProcess(c));
  try {
    return await runOn(node, c, runId);
  } finally {
    await node.close();
  }
}

/**
 * Proves the agent cases whose id matches `ids` (and PROOF_FOCUS, when set), `workers` at a time;
 * with `passing`, each also against a healthy node, which the passing runs share as the cases share
 * one agent in a real run.
 */
export async function proveAgentCases(t: Test, ids: RegExp, opts: { passing?: boolean; workers?: number } = {}): Promise<void> {
  const focus = process.env['PROOF_FOCUS'] ? new RegExp(process.env['PROOF_FOCUS']) : undefined;
  const queue = AGENT_CASES.filter((c) => ids.test(c.id) && (!focus || focus.test(c.id)));
  if (queue.length === 0) return;
  let good: ProofNode | undefined;
  if (opts.passing) {
    good = await startProofNode(`pa${process.pid % 1000}good`, {}, queue.some(needsAgentProcess));
    t.teardown(() => good!.close());
  }
  const work = async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      const [ok, bad] = await Promise.all([good && runOn(good, c, `pa${process.pid % 1000}g${seq++}`), runBroken(c, AGENT_BREAKAGES[c.id]!)]);
      if (ok) {
        t.equal(ok.result.status, 'passed', `${c.id} passes against the reference agent${ok.result.status !== 'passed' ? `: ${ok.result.message} expected=${ok.result.expected} actual=${ok.result.actual}` : ''}`);
        t.same(ok.leaks, [], `${c.id}: nothing left behind`);
      }
      t.equal(bad.result.status, failedAtLevel(c), `${c.id} fails against an agent broken in its rule, at its level${bad.result.status !== failedAtLevel(c) ? ` (got ${bad.result.status}: ${bad.result.message})` : ''}`);
    }
  };
  // Each broken node mostly waits (on its agent, its lease, the cases' bounded waits): about a third
  // of the wall time is CPU, so five at once.
  await Promise.all(Array.from({ length: opts.workers ?? 5 }, work));
}
