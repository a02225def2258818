// Descriptors of the workload kinds of spec 000: EvictionRequest (§2.5) and PodGroup (§2.6). They live
// apart from kinds.ts (which lists them in KINDS) so that the two files do not import each other.
import { randomUUID } from 'node:crypto';
import type { ResourceKind } from './kinds.js';

/** A fixed RFC 3339 time for conditions the cases write. */
export const CONDITION_TIME = '2025-01-01T00:00:00Z';

export const EVICTION_REQUEST: ResourceKind = {
  kind: 'EvictionRequest',
  apiVersion: 'lifecycle.orch.io/v1alpha1',
  plural: 'evictionrequests',
  namespaced: true,
  hasStatus: true,
  deleteResponse: 'status',
  section: '2.5',
  valid: () => ({
    spec: {
      intent: 'Eviction',
      requester: 'conformance.example.com/requester',
      target: { pod: { name: 'target-pod', uid: randomUUID() } },
    },
  }),
  change: { patch: { spec: { intent: 'Withdrawn' } }, changed: (o) => o?.spec?.intent === 'Withdrawn' },
  status: () => ({
    observedGeneration: 1,
    conditions: [{ type: 'Failed', status: 'False', reason: 'Processing', message: 'a responder is working on it', lastTransitionTime: CONDITION_TIME }],
  }),
};

export const POD_GROUP: ResourceKind = {
  kind: 'PodGroup',
  apiVersion: 'scheduling.orch.io/v1beta1',
  plural: 'podgroups',
  namespaced: true,
  hasStatus: true,
  // §4.2 does not show it; the reference answers a Status, as upstream's PodGroup store does.
  deleteResponse: 'unspecified',
  gates: { GenericWorkload: true },
  section: '2.6',
  valid: () => ({ spec: { schedulingPolicy: { gang: { minCount: 2 } } } }),
  change: {
    patch: { spec: { schedulingPolicy: { gang: { minCount: 3 } } } },
    changed: (o) => o?.spec?.schedulingPolicy?.gang?.minCount === 3,
  },
  status: () => ({
    conditions: [{ type: 'PodGroupInitiallyScheduled', status: 'False', reason: 'Unschedulable', message: 'not enough capacity for the gang', lastTransitionTime: CONDITION_TIME }],
  }),
};
