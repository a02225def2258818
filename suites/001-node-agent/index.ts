// Every case of spec 001, in spec order.
import type { Case } from '../case.js';
import { podCases } from './1-pods.js';
import { nodeStatusCases } from './2.2-node-status.js';
import { seccompCases } from './2.4-seccomp.js';
import { agentSyncLoopCases } from './agent-1-sync-loop.js';
import { agentNodeStatusCases } from './agent-2.2-node-status.js';
import { agentSeccompCases } from './agent-2.4-seccomp.js';
import { agentKernelCases } from './agent-2.5-kernel.js';
import { agentExecCases } from './agent-exec.js';
import { agentCheckpointCases } from './agent-4.1-checkpoint.js';
import { agentPodInfoCases } from './agent-4.2-pod-info.js';
import { agentLogsCases } from './agent-logs.js';
import { nodeLifecycleCases } from './3-node-lifecycle.js';
import { schedulerTaintCases } from './3-scheduler.js';
import { agentEventCases } from './agent-7-events.js';
// <<imports>>

export const nodeAgentCases: Case[] = [
  ...podCases,
  ...nodeStatusCases,
  ...seccompCases,
  ...agentSyncLoopCases,
  ...agentNodeStatusCases,
  ...agentSeccompCases,
  ...agentKernelCases,
  ...agentExecCases,
  ...agentCheckpointCases,
  ...agentPodInfoCases,
  ...agentLogsCases,
  ...nodeLifecycleCases,
  ...schedulerTaintCases,
  ...agentEventCases,
  // <<cases>>
];
