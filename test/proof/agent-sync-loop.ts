// Breakages for the §1 sync-loop cases (suites/001-node-agent/agent-1-sync-loop.ts).
import type { AgentBreakage } from '../helpers/agent-node.js';

export const agentSyncLoopBreakages: Record<string, AgentBreakage> = {
  // The agent creates the container but never starts it.
  'agent.sync.pod-runs-through-cri': { switch: 'sync-skip-start-container' },
};
