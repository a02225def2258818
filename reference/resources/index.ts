// Every resource the reference serves, in spec order. A new resource is one strategy file and one
// line here.
import type { ResourceStrategy } from '../apiserver/strategy.js';
import type { AdmissionFactory } from '../apiserver/apiserver.js';
import { namespaceStrategy } from './namespace.js';
import { storageClassStrategy } from './storageclass.js';
import { evictionRequestStrategy } from './evictionrequest.js';
import { evictionStrategy } from './eviction.js';
import { podGroupStrategy } from './podgroup.js';
import { clusterRoleStrategy, clusterRoleBindingStrategy, roleStrategy, roleBindingStrategy } from './rbac.js';
import { nodeStrategy } from './node.js';
import { podStrategy } from './pod.js';
import { bindingStrategy } from './pod-subresources.js';
import { defaultTolerationSecondsAdmission } from '../admission/default-tolerations.js';
import { resourceQuotaAdmission } from '../admission/resource-quota.js';
import { leaseStrategy } from './lease.js';
import { storageVersionMigrationStrategy } from './storageversionmigration.js';
import { resourceQuotaStrategy } from './resourcequota.js';
import { eventStrategy } from './event.js';
import { coreEventStrategy } from './core-event.js';
import { REVIEW_STRATEGIES } from './reviews.js';
// <<imports>>

export const REFERENCE_RESOURCES: readonly ResourceStrategy[] = [
  namespaceStrategy,
  storageClassStrategy,
  evictionRequestStrategy,
  evictionStrategy,
  podGroupStrategy,
  clusterRoleStrategy,
  clusterRoleBindingStrategy,
  roleStrategy,
  roleBindingStrategy,
  nodeStrategy,
  podStrategy,
  bindingStrategy,
  leaseStrategy,
  storageVersionMigrationStrategy,
  resourceQuotaStrategy,
  eventStrategy,
  coreEventStrategy,
  ...REVIEW_STRATEGIES,
  // <<strategies>>
];

/** Admission plug-ins after namespace lifecycle, in upstream's order (the apiserver's admission chain). */
export const REFERENCE_ADMISSION: readonly AdmissionFactory[] = [
  defaultTolerationSecondsAdmission,
  resourceQuotaAdmission,
  // <<admission>>
];
