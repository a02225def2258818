// Breakages for the agent endpoint cases (suites/001-node-agent/agent-endpoints.ts): the metrics
// endpoints and the feature stages read from them are broken by a proxy in front of the shared
// agent's HTTPS port; the own-labels case launches its own agent, so its breakage is a switch of the
// reference agent (reference/agent/node-status.ts).
import type { AgentBreakage } from '../helpers/agent-node.js';
import { answer, type Breakage, type ProxiedRequest } from '../helpers/broken-target.js';

const pathOf = (req: ProxiedRequest) => req.path.split('?')[0];

/** The agent answers 404 for `path`. */
const notServed = (path: string): { endpoints: Breakage } => ({
  endpoints: {
    request(req) {
      if (pathOf(req) === path) return { ...answer(404, '404 page not found\n'), headers: { 'content-type': 'text/plain; charset=utf-8' } };
    },
  },
});

/** /metrics reports another stage for one gate in orch_feature_enabled. */
const stageOf = (gate: string, stage: string): { endpoints: Breakage } => ({
  endpoints: {
    response(req, res) {
      if (pathOf(req) !== '/metrics') return;
      res.body = res.body.replace(/^orch_feature_enabled\{[^}]*\}.*$/gm, (line) => (line.includes(`name="${gate}"`) ? line.replace(/stage="[^"]*"/, `stage="${stage}"`) : line));
    },
  },
});

export const agentEndpointBreakages: Record<string, AgentBreakage> = {
  'agent.node.metrics.text': notServed('/metrics'),
  'agent.node.metrics.slis': notServed('/metrics/slis'),
  'agent.node.stage.checkpoint-beta': stageOf('ContainerCheckpoint', 'ALPHA'),
  'agent.node.stage.declared-features-ga': stageOf('NodeDeclaredFeatures', 'BETA'),
  'agent.node.stage.pod-allocation-records-ga': stageOf('InPlacePodVerticalScaling', 'ALPHA'),
  'agent.node.labels.own-through-api': { switch: 'node-status-strips-labels' },
};
