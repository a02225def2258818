// Proofs of the eviction cases (spec 000 §2.5, §3.1, §6): case id to the controller switches that
// break exactly its rule in the reference's eviction-request controller (`evictionrequest.*`,
// reference/controllers/evictionrequest/) or its default responder (`imperative-eviction.*`,
// reference/controllers/imperative-eviction.ts).
import type { ControllerBreakage } from './controllers.js';

export const evictionProofs: Readonly<Record<string, ControllerBreakage>> = {
  // §6
  'api.eviction.controller-creates-evictions': { breaks: ['evictionrequest.no-eviction'] },
  'api.eviction.responders-report-progress': { breaks: ['imperative-eviction.no-progress'] },
  // §3.1 rows
  'api.eviction.withdraw-other-requester-continues': { breaks: ['evictionrequest.withdraw-cancels-early'] },
  'api.eviction.all-withdrawn-cancels': { breaks: ['evictionrequest.ignore-withdrawal'] },
  'api.eviction.delete-counts-as-withdrawal': { breaks: ['evictionrequest.deleted-keeps-intent'] },
  'api.eviction.all-removed-evictions-collected': { breaks: ['evictionrequest.no-owner-references'] },
  'api.eviction.failed-condition': { breaks: ['evictionrequest.failed-not-copied'] },
  'api.eviction.failed-no-responder-evicted': { breaks: ['evictionrequest.no-further-responder-waits'] },
  'api.eviction.target-evicted-condition': { breaks: ['evictionrequest.no-target-evicted'] },
  // A terminal pod the controller does not recognise would still be evicted by the responder: both break.
  'api.eviction.target-terminated-condition': { breaks: ['evictionrequest.terminal-not-detected', 'imperative-eviction.never-evict'] },
  // Reset or kept, the conditions are the controller's choice ("may be reset"); what it cannot skip is
  // observing the new intent.
  'api.eviction.new-eviction-resets-conditions': { breaks: ['evictionrequest.stale-observed-generation'] },
  'api.eviction.cancel-responders': { breaks: ['evictionrequest.cancel-leaves-active'] },
  'api.eviction.relationship': { breaks: ['evictionrequest.eviction-per-request'] },
  'api.eviction.requester-label': { breaks: ['evictionrequest.no-requester-label'] },
  // §2.5 rules the controller carries
  'api.eviction.target-pod-group-unsupported': { breaks: ['evictionrequest.pod-group-allowed'] },
  'api.eviction.target-pod-same-namespace': { breaks: ['evictionrequest.target-any-namespace', 'imperative-eviction.target-any-namespace'] },
  'api.eviction.status-condition-types': { breaks: ['evictionrequest.wrong-condition-type'] },
  'api.eviction.observed-generation': { breaks: ['evictionrequest.stale-observed-generation'] },
  // upstream specifics
  'api.eviction.eviction-name': { breaks: ['evictionrequest.random-name'] },
  'api.eviction.eviction-labels-owners': { breaks: ['evictionrequest.requester-label-value'] },
  'api.eviction.eviction-requesters': { breaks: ['evictionrequest.requesters-drop-deleted'] },
  'api.eviction.awaiting-eviction': { breaks: ['evictionrequest.awaiting-message'] },
  'api.eviction.pod-deleted-reason': { breaks: ['evictionrequest.pod-deleted-reason'] },
  'api.eviction.pod-terminal-reason': { breaks: ['evictionrequest.terminal-not-detected'] },
  'api.eviction.canceled-reason': { breaks: ['evictionrequest.canceled-reason'] },
  'api.eviction.invalid-target.not-found': { breaks: ['evictionrequest.invalid-target-message'] },
  'api.eviction.invalid-target.uid-mismatch': { breaks: ['evictionrequest.invalid-target-message'] },
  'api.eviction.invalid-target.pod-group': { breaks: ['evictionrequest.invalid-target-message'] },
};

/**
 * The other permitted outcome of a "may" rule, taken by a switch of the reference's controller: the
 * case passes against it too (test/proof-controllers.test.ts), strict.
 */
export const evictionMayOutcomes: Readonly<Record<string, ControllerBreakage>> = {
  // Conditions kept after a new intent (no new Eviction while the canceled one stands).
  'api.eviction.new-eviction-resets-conditions': { breaks: ['evictionrequest.no-reset'] },
};
