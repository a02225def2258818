// Every controller the controller manager runs, by upstream name. A new controller is one module
// exporting a ControllerDefinition and one line here.
import type { ControllerDefinition } from './controller.js';
import { nodeLifecycleController } from './node-lifecycle.js';
import { taintEvictionController } from './taint-eviction.js';
import { evictionRequestController } from './evictionrequest/controller.js';
import { imperativeEvictionController } from './imperative-eviction.js';
import { resourceQuotaController } from './resourcequota.js';
import { storageVersionMigrator } from './storage-version-migrator.js';
import { garbageCollectorController } from './garbage-collector.js';
import { namespaceController } from './namespace.js';
import { clusterRoleAggregationController } from './clusterrole-aggregation.js';
import { podGcController } from './podgc.js';
// <<imports>>

export const CONTROLLERS: readonly ControllerDefinition[] = [
  nodeLifecycleController,
  taintEvictionController,
  evictionRequestController,
  imperativeEvictionController,
  resourceQuotaController,
  storageVersionMigrator,
  garbageCollectorController,
  namespaceController,
  clusterRoleAggregationController,
  podGcController,
  // <<controllers>>
];
