// Proofs of the node-lifecycle cases (suites/001-node-agent/3-node-lifecycle.ts): case id to the
// controller switches that break exactly its rule (reference/controllers/node-lifecycle.ts and
// taint-eviction.ts, "Test-only (breaks)").
import type { ControllerBreakage } from './controllers.js';

export const nodeLifecycleProofs: Readonly<Record<string, ControllerBreakage>> = {
  // A silent node is never marked Unknown.
  'api.node-lifecycle.ready-unknown': { breaks: ['node-lifecycle.no-unknown'] },
  // The controller counts a quarter of the grace period: Unknown while the node still heartbeats, or too soon after.
  'api.node-lifecycle.ready-unknown.not-within-grace': { breaks: ['node-lifecycle.early-unknown'] },
  // Unknown with a reason and message of its own.
  'api.node-lifecycle.ready-unknown.conditions': { breaks: ['node-lifecycle.wrong-unknown-reason'] },
  // No unreachable taint, of either effect.
  'api.node-lifecycle.unreachable-taint': { breaks: ['node-lifecycle.no-unreachable-taint'] },
  // NoSchedule taints only.
  'api.node-lifecycle.unreachable-taint.effects': { breaks: ['node-lifecycle.no-noexecute-taint'] },
  // No not-ready taint, of either effect.
  'api.node-lifecycle.not-ready-taint': { breaks: ['node-lifecycle.no-not-ready-taint'] },
  'api.node-lifecycle.not-ready-taint.effects': { breaks: ['node-lifecycle.no-noexecute-taint'] },
  // The not-ready and unreachable taints stay when Ready comes back.
  'api.node-lifecycle.taints-removed': { breaks: ['node-lifecycle.keep-taints'] },
  // Lease renewals are not heartbeats.
  'api.node-lifecycle.lease-heartbeat': { breaks: ['node-lifecycle.ignore-lease'] },
  // Pods keep their Ready condition on a node gone Unknown.
  'api.node-lifecycle.pods-not-ready': { breaks: ['node-lifecycle.no-pod-not-ready'] },
  // The taint eviction controller deletes nothing.
  'api.node-lifecycle.no-execute.untolerated-evicted': { breaks: ['taint-eviction.no-eviction'] },
  // Tolerations are ignored: the tolerating pod goes too.
  // The pod garbage collector removes terminating pods whatever their node's state.
  'api.node-lifecycle.terminating-pod-stays': { breaks: ['podgc.terminating-any-node'] },
  'api.node-lifecycle.no-execute.tolerated-stays': { breaks: ['taint-eviction.ignore-tolerations'] },
  // tolerationSeconds is ignored: the pod tolerating for 1 s stays.
  'api.node-lifecycle.no-execute.toleration-seconds': { breaks: ['taint-eviction.ignore-toleration-seconds'] },
  // Deleted without the DisruptionTarget condition.
  'api.node-lifecycle.no-execute.disruption-target': { breaks: ['taint-eviction.no-disruption-target'] },
};
