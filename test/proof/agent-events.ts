// Breakages for the agent event cases (suites/001-node-agent/agent-7-events.ts).
import type { AgentBreakage } from '../helpers/agent-node.js';

export const agentEventBreakages: Record<string, AgentBreakage> = {
  // The agent records no events about its pods (its node's are still recorded).
  'agent.events.container-lifecycle': { switch: 'events-pods-none' },
  // The agent records no events about its node (its pods' are still recorded).
  'agent.events.node-ready': { switch: 'events-node-none' },
};
