// Proofs of the scheduler cases: case id to the scheduler switches that break exactly its rule
// (reference/scheduler/scheduler.ts, each use commented "Test-only (breaks)").
//
// One rule cannot be broken from the scheduler: spec 000 §3.2 "once True, PodGroupInitiallyScheduled
// never reverts" is also enforced by the reference API server (a status write that reverts it is
// refused), so a scheduler switch that writes False again changes nothing observable. The case that
// checks it (podgroup.initially-scheduled-terminal) is proven by a scheduler that never reports the
// requirement satisfied, the other half of what it observes.
import type { ControllerBreakage } from './controllers.js';

export const schedulerProofs: Readonly<Record<string, ControllerBreakage>> = {
  // spec 001 §3
  'api.scheduler.taints.tolerated-binds': { breaks: ['scheduler.no-bind'] },
  'api.scheduler.taints.no-schedule': { breaks: ['scheduler.ignore-taints'] },
  'api.scheduler.taints.no-execute': { breaks: ['scheduler.ignore-taints'] },
  'api.scheduler.taints.unschedulable-condition': { breaks: ['scheduler.plain-messages'] },
  // spec 000 §2.6, §3.2
  'api.scheduler.gang.min-count-or-none': { breaks: ['scheduler.gang-bind-partial'] },
  'api.scheduler.gang.min-count-change': { breaks: ['scheduler.min-count-cached'] },
  'api.scheduler.gang.unschedulable': { breaks: ['scheduler.no-podgroup-unschedulable'] },
  'api.scheduler.gang.unschedulable-message': { breaks: ['scheduler.plain-messages'] },
  'api.scheduler.podgroup.initially-scheduled-terminal': { breaks: ['scheduler.initially-scheduled-not-set'] },
  'api.scheduler.podgroup.missing-group-waits': { breaks: ['scheduler.ignore-missing-group'] },
  'api.scheduler.basic-policy.pod-by-pod': { breaks: ['scheduler.basic-held'] },
  'api.scheduler.priority.higher-first': { breaks: ['scheduler.priority-inverted'] },
  'api.scheduler.preemption.podgroup-disruption-target': { breaks: ['scheduler.no-podgroup-disruption-target'] },
  'api.scheduler.preemption.pod-disruption-target': { breaks: ['scheduler.no-pod-disruption-target'] },
  'api.scheduler.podgroup.affinity-error': { breaks: ['scheduler.ignore-affinity-errors'] },
  // A scheduler that words its own errors as Unschedulable: SchedulerError kept apart from Unschedulable.
  'api.scheduler.podgroup.scheduler-error': { breaks: ['scheduler.errors-unschedulable'] },
  'api.scheduler.podgroup.scheduler-error.upstream': { breaks: ['scheduler.errors-unschedulable'] },
};
