// Legal agents pass: the cases that observe the shared agent (needs agent or cri) run against agents
// that differ from the reference only where spec 001 leaves freedom, and none may fail or error.
// Each variant rewrites what the reference agent writes to the API or answers on its port
// (helpers/agent-node.ts), or starts it with a setting of its own; the agent-exec cases start agents of their own, so these variants do not
// reach them.
import t from 'tap';
import { runCases } from '../runner/run.js';
import { AGENT_CASES } from './helpers/agent-proof.js';
import { startProofNode, type AgentBreakage, type ProofNode } from './helpers/agent-node.js';
import { editJson, type ProxiedRequest } from './helpers/broken-target.js';

const NODE_WRITE = /^\/api\/v1\/nodes(\/[^/?]+\/status)?(\?|$)/;

/** How many writes each variant rewrote: a variant that changed nothing proves nothing. */
const rewrites = new Map<AgentBreakage, number>();

/** Rewrites the status of every write of the agent's Node. */
function nodeStatus(edit: (status: any) => void): AgentBreakage {
  const variant: AgentBreakage = {
    api: {
      request(req: ProxiedRequest) {
        if (!['POST', 'PUT', 'PATCH'].includes(req.method) || !NODE_WRITE.test(req.path)) return;
        editJson(req, (o) => {
          if (!o?.status) return;
          edit(o.status);
          rewrites.set(variant, (rewrites.get(variant) ?? 0) + 1);
        });
      },
    },
  };
  return variant;
}

const VARIANTS: Record<string, AgentBreakage> = {
  // The spec's spelling of the host name address type (upstream writes `Hostname`).
  'address-type-HostName': nodeStatus((s) => { for (const a of s.addresses ?? []) if (a?.type === 'Hostname') a.type = 'HostName'; }),
  // An ExternalIP besides the InternalIP, conditions in another order, and a NetworkUnavailable
  // condition (set by network plugins on some nodes).
  'more-addresses-and-conditions': nodeStatus((s) => {
    s.addresses = [...(s.addresses ?? []), { type: 'ExternalIP', address: '203.0.113.9' }];
    const t0 = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    s.conditions = [...(s.conditions ?? [])].reverse();
    if (s.conditions.length) s.conditions.push({ type: 'NetworkUnavailable', status: 'False', reason: 'RouteCreated', message: 'routes created', lastHeartbeatTime: t0, lastTransitionTime: t0 });
  }),
  // No declaredFeatures at all (an agent with no feature under development enabled).
  'no-declared-features': nodeStatus((s) => { delete s.declaredFeatures; }),
  // "Zero or unset means the default CRI timeout" (§4.1): the agent passes a default of its own (30 s)
  // rather than 0, the runtime's (upstream's choice).
  'checkpoint-default-timeout-30': { args: ['--checkpoint-default-timeout', '30'] },
};

/**
 * What shows that a variant took effect: the node status writes it rewrote, or for an agent setting,
 * what the agent asked its runtime.
 */
function effect(name: string, variant: AgentBreakage, node: ProofNode): { n: number; what: string } {
  if (name === 'checkpoint-default-timeout-30') {
    const n = node.cri.control.calls.list({ rpc: 'CheckpointContainer' }).filter((c) => Number((c as { request?: { timeout?: unknown } }).request?.timeout) === 30).length;
    return { n, what: 'CheckpointContainer calls with its default timeout of 30 s' };
  }
  return { n: rewrites.get(variant) ?? 0, what: 'node status writes' };
}

/**
 * Several variants as one agent: their API request hooks in order (each rewrites the Node's status
 * writes in place), their options together. Only those two kinds compose here; a variant of another
 * kind runs alone.
 */
function combined(vs: readonly AgentBreakage[]): AgentBreakage {
  const requests = vs.map((v) => v.api?.request).filter((r) => r !== undefined);
  return {
    api: {
      async request(req) {
        for (const r of requests) {
          const early = await r(req);
          if (early) return early;
        }
      },
    },
    args: vs.flatMap((v) => v.args ?? []),
  };
}

const composable = (v: AgentBreakage) => !v.switch && !v.endpoints && !v.api?.response && !v.api?.watchLine && !v.api?.watchHead && !v.api?.watchOpen && !v.api?.watchSplit;

/**
 * The agents the cases run against. The variants take freedoms of different things (the address
 * types, the list of addresses and the conditions' order, declaredFeatures, the default checkpoint
 * timeout), none of which hides another, so one agent takes them all at once: one control plane,
 * runtime, agent and run of the cases instead of one per variant. AGENT_LEGAL_VARIANTS=each runs each
 * variant on an agent of its own, to tell which freedom a failure comes from.
 */
const eachAlone = process.env['AGENT_LEGAL_VARIANTS'] === 'each';
const RUNS: string[][] = eachAlone
  ? Object.keys(VARIANTS).map((name) => [name])
  : [Object.keys(VARIANTS).filter((n) => composable(VARIANTS[n]!)), ...Object.keys(VARIANTS).filter((n) => !composable(VARIANTS[n]!)).map((n) => [n])].filter((r) => r.length > 0);

const cases = AGENT_CASES.filter((c) => !c.needs.includes('agent-exec'));

t.test('the agent cases pass against agents that use the spec\'s freedom', async (t) => {
  let seq = 0;
  await Promise.all(RUNS.map(async (names) => {
    const label = names.join(' + ');
    const runId = `alv${seq++}`;
    const variants = names.map((n) => VARIANTS[n]!);
    const node = await startProofNode(runId, variants.length === 1 ? variants[0] : combined(variants), true);
    try {
      const g = node.target.group;
      const report = await runCases({ cases, conn: g.conn, node: node.node, embedded: false, gates: g.gates, facts: g.facts, version: 'test', timeoutMs: 45_000, runId });
      const bad = report.cases.filter((c) => c.status === 'failed' || c.status === 'errored');
      t.same(bad.map((c) => `${c.id}: ${c.status} ${c.message} expected=${c.expected} actual=${c.actual}`), [], `${label}: no agent case fails or errors`);
      t.ok(report.summary.passed > cases.length / 2, `${label}: ${report.summary.passed} of ${cases.length} passed (skipped: ${report.cases.filter((c) => c.status === 'skipped').map((c) => c.id).join(', ') || 'none'})`);
      t.same(report.leaks, [], `${label}: nothing left behind`);
      for (const [i, name] of names.entries()) {
        const { n, what } = effect(name, variants[i]!, node);
        t.ok(n > 0, `${name}: the variant took effect: ${n} ${what}`);
      }
    } finally {
      await node.close();
    }
  }));
});
