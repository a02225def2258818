// Every case's breakage, gathered from one file per area.
import type { Breakage } from '../helpers/broken-target.js';
import { controlPlaneBreakages } from './control-plane.js';
import { operationBreakages } from './operations.js';
import { workloadBreakages } from './workloads.js';
import { rbacNodeBreakages } from './rbac-nodes.js';
import { quotaEventBreakages } from './quota-events.js';
import { debugEndpointBreakages } from './debug-endpoints.js';
import { deleteBreakages } from './delete.js';
import { metricsBreakages } from './metrics.js';
import { writeParamBreakages } from './write-params.js';
import { patchBreakages } from './patch.js';
import { listWatchBreakages } from './list-watch.js';
import { httpsBreakages } from './https.js';
import { factBreakages } from './facts.js';
import { metricsVersioningBreakages } from './metrics-versioning.js';
import { surfaceBreakages } from './surface.js';
import { apiRowsBreakages } from './api-rows.js';
import { authBreakages } from './auth.js';
import { nodeLifecycleApiBreakages } from './node-lifecycle-api.js';
import { shapeBreakages } from './shapes.js';
// <<imports>>

export const BREAKAGES: Record<string, Breakage> = {
  ...controlPlaneBreakages,
  ...operationBreakages,
  ...workloadBreakages,
  ...rbacNodeBreakages,
  ...quotaEventBreakages,
  ...debugEndpointBreakages,
  ...deleteBreakages,
  ...metricsBreakages,
  ...writeParamBreakages,
  ...patchBreakages,
  ...listWatchBreakages,
  ...httpsBreakages,
  ...factBreakages,
  ...metricsVersioningBreakages,
  ...surfaceBreakages,
  ...apiRowsBreakages,
  ...authBreakages,
  ...nodeLifecycleApiBreakages,
  ...shapeBreakages,
  // <<breakages>>
};
