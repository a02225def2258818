// Breakages for the container-log cases (suites/001-node-agent/agent-logs.ts): switches of the
// reference agent's /containerLogs (reference/agent/logs/container-logs.ts).
import type { AgentBreakage } from '../helpers/agent-node.js';

export const agentLogsBreakages: Record<string, AgentBreakage> = {
  // The agent leaves the stderr records of the log file out.
  'agent.node.logs.container-output': { switch: 'logs-stdout-only' },
  // The agent answers the whole log whatever tailLines says.
  'agent.node.logs.tail-lines': { switch: 'logs-tail-ignored' },
};
