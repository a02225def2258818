// Every agent case's breakage (spec 001 cases whose needs include agent, cri or agent-exec), one file
// per area. How an agent is broken (helpers/agent-node.ts): a test-only switch of the reference agent
// (ORCH_CONFORMANCE_AGENT_BREAK, reference/agent/breaks.ts) that breaks exactly the case's rule, a
// proxy between the agent and the API server rewriting what it writes or reads, or a proxy in front
// of its HTTPS port rewriting what its endpoints answer.
import type { AgentBreakage } from '../helpers/agent-node.js';
import { agentSyncLoopBreakages } from './agent-sync-loop.js';
import { agentNodeStatusBreakages } from './agent-node-status.js';
import { agentSeccompBreakages } from './agent-seccomp.js';
import { agentKernelBreakages } from './agent-kernel.js';
import { agentExecBreakages } from './agent-exec.js';
import { agentCheckpointBreakages } from './agent-checkpoint.js';
import { agentPodInfoBreakages } from './agent-pod-info.js';
import { agentStatsBreakages } from './agent-stats.js';
import { agentLogsBreakages } from './agent-logs.js';
import { agentEventBreakages } from './agent-events.js';
// <<imports>>

export const AGENT_BREAKAGES: Record<string, AgentBreakage> = {
  ...agentSyncLoopBreakages,
  ...agentNodeStatusBreakages,
  ...agentSeccompBreakages,
  ...agentKernelBreakages,
  ...agentExecBreakages,
  ...agentCheckpointBreakages,
  ...agentPodInfoBreakages,
  ...agentStatsBreakages,
  ...agentLogsBreakages,
  ...agentEventBreakages,
  // <<breakages>>
};
