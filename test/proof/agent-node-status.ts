// Breakages for the agent cases of this area (placeholder: filled in by the area's author).
import type { AgentBreakage } from '../helpers/agent-node.js';

export const agentNodeStatusBreakages: Record<string, AgentBreakage> = {};
