// Placeholder: filled by the issue 12 work.
import type { AgentBreakage } from '../helpers/agent-node.js';

export const agentCheckpointBreakages: Record<string, AgentBreakage> = {};
