// Placeholder: filled by the issue 12 work.
import type { AgentBreakage } from '../helpers/agent-node.js';

export const agentStatsBreakages: Record<string, AgentBreakage> = {};
