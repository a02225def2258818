// Proofs of the cases that observe the control plane's controllers and scheduler (spec 000 §2.3,
// §2.4, §2.5, §2.8, §3.1, §3.2; spec 001 §3). A proxy cannot make a controller misbehave, so each such case
// names test-only switches (`breaks`) that the reference's controller manager and scheduler honour
// (ControllerContext.breaks, SchedulerOptions.breaks): the broken control plane really does the
// wrong thing - skips the requester label, never taints, counts a pod out of scope - and the case must
// see it. test/proof-controllers.test.ts runs each case against the reference and against a fresh
// reference started with its switches; proof.test.ts leaves these cases to it. A switch no code checks
// breaks nothing, so its case passes against the "broken" target and the proof fails: a typo cannot
// make a proof vacuous.
import { evictionProofs } from './controllers-eviction.js';
import { schedulerProofs } from './controllers-scheduler.js';
import { nodeLifecycleProofs } from './controllers-node-lifecycle.js';
import { quotaMigrationProofs } from './controllers-quota-migration.js';
import { rbacAggregationProofs } from './controllers-rbac.js';

export interface ControllerBreakage {
  /** Switch names, `<controller>.<rule>` (e.g. `evictionrequest.no-requester-label`). */
  readonly breaks: readonly string[];
}

export const CONTROLLER_BREAKAGES: Readonly<Record<string, ControllerBreakage>> = {
  ...evictionProofs,
  ...schedulerProofs,
  ...nodeLifecycleProofs,
  ...quotaMigrationProofs,
  ...rbacAggregationProofs,
};
