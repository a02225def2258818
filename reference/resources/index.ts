// Every resource the reference serves, in spec order. A new resource is one strategy file and one
// line here.
import type { ResourceStrategy } from '../apiserver/strategy.js';
import type { AdmissionFactory, ControllerFactory } from '../apiserver/apiserver.js';
import { namespaceStrategy } from './namespace.js';
import { storageClassStrategy } from './storageclass.js';
import { evictionRequestStrategy } from './evictionrequest.js';
import { podGroupStrategy } from './podgroup.js';
import { ClusterRoleAggregationController, clusterRoleStrategy, clusterRoleBindingStrategy, roleStrategy, roleBindingStrategy } from './rbac.js';
import { nodeStrategy } from './node.js';
import { podStrategy } from './pod.js';
import { leaseStrategy } from './lease.js';
import { storageVersionMigrationStrategy } from './storageversionmigration.js';
import { resourceQuotaStrategy } from './resourcequota.js';
import { eventStrategy } from './event.js';
import { GarbageCollector } from '../controllers/garbage-collector.js';
import { REVIEW_STRATEGIES } from './reviews.js';
// <<imports>>

export const REFERENCE_RESOURCES: readonly ResourceStrategy[] = [
  namespaceStrategy,
  storageClassStrategy,
  evictionRequestStrategy,
  podGroupStrategy,
  clusterRoleStrategy,
  clusterRoleBindingStrategy,
  roleStrategy,
  roleBindingStrategy,
  nodeStrategy,
  podStrategy,
  leaseStrategy,
  storageVersionMigrationStrategy,
  resourceQuotaStrategy,
  eventStrategy,
  ...REVIEW_STRATEGIES,
  // <<strategies>>
];

/** Controllers that act on the served resources (the namespace controller is always there). */
export const REFERENCE_CONTROLLERS: readonly ControllerFactory[] = [
  (registry, storage, log) => new ClusterRoleAggregationController(registry, storage, log),
  (registry, storage, log) => new GarbageCollector(registry, storage, log),
];

/** Admission plug-ins after namespace lifecycle, in upstream's order (the apiserver's admission chain). */
export const REFERENCE_ADMISSION: readonly AdmissionFactory[] = [
  // <<admission>>
];
