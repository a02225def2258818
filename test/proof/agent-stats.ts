// Breakages for the stats and metrics cases of spec 002 on an agent (suites/002-metrics-debug/
// agent-stats.ts). Cases on the shared agent: a proxy in front of its HTTPS port rewrites what
// /stats/summary, /metrics/cadvisor, /metrics/resource and /metrics answer. The node proxy case: a
// proxy between the agent and the API server makes it publish a port nothing listens on. Cases that
// launch their own agents: switches of the reference agent (reference/agent/stats/agent-stats.ts).
import type { AgentBreakage } from '../helpers/agent-node.js';
import { editJson, type Breakage, type ProxiedRequest } from '../helpers/broken-target.js';

const pathOf = (req: ProxiedRequest) => req.path.split('?')[0];

/** Edits the JSON of every /stats/summary answer. */
const summary = (edit: (s: any) => void): { endpoints: Breakage } => ({
  endpoints: {
    response(req, res) {
      if (pathOf(req) === '/stats/summary' && res.status === 200) editJson(res, (s) => { edit(s); });
    },
  },
});

/** Rewrites the text of every answer of `path`. */
const text = (path: string, edit: (body: string) => string): { endpoints: Breakage } => ({
  endpoints: {
    response(req, res) {
      if (pathOf(req) === path && res.status === 200) res.body = edit(res.body);
    },
  },
});

const eachPod = (s: any, f: (p: any) => void) => { for (const p of s?.pods ?? []) f(p); };
const eachContainer = (s: any, f: (c: any) => void) => eachPod(s, (p) => { for (const c of p?.containers ?? []) f(c); });
/** Text exposition without the lines (samples, HELP, TYPE) of metrics matching `name`. */
const withoutMetrics = (name: RegExp) => (body: string) => body.split('\n').filter((l) => !name.test(l.replace(/^# (HELP|TYPE) /, ''))).join('\n');

const NODE_WRITE = /^\/api\/v1\/nodes(\/[^/?]+\/status)?(\?|$)/;

export const agentStatsBreakages: Record<string, AgentBreakage> = {
  // The volume level is never reported.
  'agent.stats.summary.levels': summary((s) => eachPod(s, (p) => { delete p.volume; })),
  // A pod using more CPU than the whole node.
  'agent.stats.summary.consistent': summary((s) => eachPod(s, (p) => {
    if (p.cpu) p.cpu.usageCoreNanoSeconds = 2 * (s.node?.cpu?.usageCoreNanoSeconds ?? 1e12) + 1;
  })),
  // The pod's ephemeral storage under a camelCase key upstream does not use.
  'agent.stats.summary.shape': summary((s) => eachPod(s, (p) => {
    p.ephemeralStorage = p['ephemeral-storage'];
    delete p['ephemeral-storage'];
  })),
  // No pressure stall information at container level.
  'agent.stats.psi.summary': summary((s) => eachContainer(s, (c) => { for (const r of ['cpu', 'memory', 'io']) if (c?.[r]) delete c[r].psi; })),
  // Averages under a name upstream does not use.
  'agent.stats.psi.shape': text('/stats/summary', (b) => b.replace(/"avg10":/g, '"avg_10":')),
  'agent.stats.psi.metrics': text('/metrics/cadvisor', withoutMetrics(/^container_pressure_/)),
  'agent.stats.psi.gate-locked': { switch: 'psi-gate-honoured' },
  // No container figures: what the aggregator reads per pod is missing.
  'agent.stats.resource.metrics': text('/metrics/resource', withoutMetrics(/^container_/)),
  // Samples without their timestamps.
  'agent.stats.resource.names': text('/metrics/resource', (b) => b.replace(/^([^#\s][^ ]*(?:\{[^}]*\})? \S+) -?\d+$/gm, '$1')),
  'agent.stats.provider.present': text('/metrics', withoutMetrics(/^agent_metrics_provider\b/)),
  // cadvisor's label names from before 1.16: pod_name and container_name.
  'agent.stats.cadvisor.labels': text('/metrics/cadvisor', (b) => b.replace(/([{,])pod="/g, '$1pod_name="').replace(/([{,])container="/g, '$1container_name="')),
  'agent.stats.cri.from-runtime': { switch: 'cri-metrics-ignored' },
  'agent.stats.cri.fallback': { switch: 'cri-metrics-no-fallback' },
  'agent.stats.cri.gate-off-restores': { switch: 'cri-metrics-without-gate' },
  'agent.stats.cri.node-metrics': { switch: 'cri-metrics-drop-node' },
  'agent.stats.cri.node-summary': { switch: 'cri-stats-drop-node' },
  // The agent publishes a port its endpoints do not listen on: the API server cannot reach them.
  'agent.stats.summary.proxy': {
    api: {
      request(req) {
        if (!['POST', 'PUT', 'PATCH'].includes(req.method) || !NODE_WRITE.test(req.path)) return;
        editJson(req, (o) => { if (o?.status?.daemonEndpoints?.agentEndpoint) o.status.daemonEndpoints.agentEndpoint.Port = 1; });
      },
    },
  },
};
