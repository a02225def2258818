// Every case's breakage, gathered from one file per area.
import type { Breakage } from '../helpers/broken-target.js';
import { controlPlaneBreakages } from './control-plane.js';
import { operationBreakages } from './operations.js';
import { workloadBreakages } from './workloads.js';
import { rbacNodeBreakages } from './rbac-nodes.js';
import { quotaEventBreakages } from './quota-events.js';
// <<imports>>

export const BREAKAGES: Record<string, Breakage> = {
  ...controlPlaneBreakages,
  ...operationBreakages,
  ...workloadBreakages,
  ...rbacNodeBreakages,
  ...quotaEventBreakages,
  // <<breakages>>
};
