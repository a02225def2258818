// What the controller writes into an EvictionRequest's status (controllers.md §1 steps 1 and 3): the
// early checks of its target, and otherwise both conditions copied from the most relevant Eviction of
// the target, with observedGeneration = metadata.generation.
import type { PodState } from './eviction-sync.js';
import {
  FAILED,
  MESSAGE,
  REASON,
  TARGET_EVICTED,
  byAge,
  condition,
  conditionOf,
  evictionFinal,
  isTrue,
  nowTime,
  type Condition,
  type EvictionObject,
  type EvictionRequest,
} from './model.js';

export interface RequestStatus {
  observedGeneration: number;
  conditions: Condition[];
}

/**
 * Why the target cannot be evicted, or undefined. Pod not found and UID mismatch count only while no
 * Eviction exists for the target yet (afterwards the pod going away is the eviction succeeding).
 */
export function invalidTarget(er: EvictionRequest, pod: PodState, evictionExists: boolean, breaks: ReadonlySet<string>): string | undefined {
  if (!er.spec?.target?.pod) return MESSAGE.unsupportedTarget;
  if (!evictionExists) {
    if (pod.kind === 'gone') return MESSAGE.podNotFound;
    if (pod.kind === 'replaced') return MESSAGE.uidMismatch(er.spec.target.pod.uid ?? '', pod.uid);
  }
  // Test-only (breaks): pods of a PodGroup are evicted like any other.
  if ('pod' in pod && pod.pod?.spec?.schedulingGroup && !breaks.has('evictionrequest.pod-group-allowed')) return MESSAGE.schedulingGroup;
  return undefined;
}

/** The status of a request whose target is invalid: Failed=True EvictionInvalid. */
export function invalidStatus(er: EvictionRequest, message: string, nowMs: number, breaks: ReadonlySet<string>): RequestStatus {
  const now = nowTime(nowMs);
  // Test-only (breaks): the invalid target's message is not upstream's.
  const msg = breaks.has('evictionrequest.invalid-target-message') ? 'invalid target' : message;
  return {
    observedGeneration: generationOf(er, breaks),
    conditions: named([
      condition(TARGET_EVICTED, 'False', REASON.evictionFailed, '', conditionOf(er, TARGET_EVICTED), now),
      condition(FAILED, 'True', REASON.invalid, msg, conditionOf(er, FAILED), now),
    ], breaks),
  };
}

/** The Eviction a request reports on: the first evicted one, else the oldest active, else the newest failed. */
export function mostRelevant(evictions: readonly EvictionObject[]): EvictionObject | undefined {
  const sorted = [...evictions].sort(byAge);
  return sorted.find((ev) => isTrue(ev, TARGET_EVICTED))
    ?? sorted.find((ev) => !evictionFinal(ev))
    ?? [...sorted].reverse().find((ev) => isTrue(ev, FAILED));
}

/** Both conditions copied (status, reason, message) from the most relevant Eviction, or AwaitingEviction. */
export function requestStatus(er: EvictionRequest, evictions: readonly EvictionObject[], nowMs: number, breaks: ReadonlySet<string>): RequestStatus {
  const now = nowTime(nowMs);
  const from = mostRelevant(evictions);
  const copy = (type: string): Condition => {
    const c = conditionOf(from, type);
    // Test-only (breaks): the message upstream gives a request with no Eviction to report is replaced.
    const waiting = breaks.has('evictionrequest.awaiting-message') ? 'waiting' : MESSAGE.awaitingRequest;
    if (!c || (c.status !== 'True' && c.status !== 'False')) return condition(type, 'False', REASON.awaiting, waiting, conditionOf(er, type), now);
    // Test-only (breaks): a failed Eviction is not reported as Failed on its requests.
    if (type === FAILED && c.status === 'True' && breaks.has('evictionrequest.failed-not-copied')) return condition(type, 'False', REASON.awaiting, '', conditionOf(er, type), now);
    return condition(type, c.status, c.reason ?? '', c.message ?? '', conditionOf(er, type), now);
  };
  return { observedGeneration: generationOf(er, breaks), conditions: named([copy(TARGET_EVICTED), copy(FAILED)], breaks) };
}

function generationOf(er: EvictionRequest, breaks: ReadonlySet<string>): number {
  // Test-only (breaks): observedGeneration stays at the first generation.
  return breaks.has('evictionrequest.stale-observed-generation') ? 1 : er.metadata.generation ?? 1;
}

function named(cs: Condition[], breaks: ReadonlySet<string>): Condition[] {
  // Test-only (breaks): TargetEvicted is written under another type.
  return breaks.has('evictionrequest.wrong-condition-type') ? cs.map((c) => (c.type === TARGET_EVICTED ? { ...c, type: 'Evicted' } : c)) : cs;
}
