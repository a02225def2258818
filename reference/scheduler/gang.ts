// Gang scheduling (upstream GangScheduling plugin and the pod-group cycle, controllers.md §2): a gang
// PodGroup's pods are held until at least minCount of them exist (scheduled or not); then one cycle
// tries every unscheduled pod, by priority then age, on a what-if copy of the nodes, and stops as soon
// as the pods placed so far plus those left cannot reach minCount. Nothing is bound unless the cycle
// reaches minCount: the caller binds all placements together or none.
import type { KubeObject } from '../client/informer.js';
import type { Resources } from './filters.js';

export const WAITING_FOR_MIN_COUNT = 'waiting for minCount pods from a gang to appear in scheduling queue';
export const waitingForPodGroup = (name: string): string => `waiting for pod's pod group "${name}" to appear in scheduling queue`;
export const minCountUnsatisfied = (minCount: number, scheduled: number, remaining: number): string =>
  `minCount (${minCount}) cannot be satisfied: ${scheduled} scheduled, ${remaining} remaining`;
/** KEP-5710's wording (UNCONFIRMED in code). */
export const WAITING_FOR_PREEMPTION = 'pod group is waiting for podgroup preemption to complete';

export interface GangMember {
  readonly pod: KubeObject;
  readonly requests: Resources;
}

export interface Placement extends GangMember {
  readonly node: string;
}

export interface PlaceResult {
  /** The node chosen (already counted in the caller's what-if view), or undefined. */
  readonly node?: string;
  /** Why it fits nowhere (upstream's FitError text). */
  readonly message?: string;
}

export interface GangPlan {
  /** minCount reached: bind `placements` (all of them, together). */
  readonly ok: boolean;
  readonly placements: readonly Placement[];
  /** Pods that fit nowhere, with their own message (a gang past minCount may leave some). */
  readonly unplaced: ReadonlyArray<GangMember & { readonly message: string }>;
  /** When not ok: the group's message. */
  readonly message: string;
}

/** Is the PodGroup a gang (spec.schedulingPolicy.gang)? */
export const isGang = (pg: KubeObject | undefined): boolean => pg?.spec?.schedulingPolicy?.gang !== undefined;

/** Orders a gang's pending pods: priority (highest first), then creation time, then name. */
export function gangOrder(priorityOf: (pod: KubeObject) => number): (a: GangMember, b: GangMember) => number {
  return (a, b) => priorityOf(b.pod) - priorityOf(a.pod)
    || String(a.pod.metadata.creationTimestamp ?? '').localeCompare(String(b.pod.metadata.creationTimestamp ?? ''))
    || a.pod.metadata.name.localeCompare(b.pod.metadata.name);
}

/**
 * One gang cycle over `pending` (already ordered): `place` tries one pod on the what-if view. The cycle
 * fails, with upstream's message, once `scheduled` + placed + remaining < minCount.
 */
export function planGang(minCount: number, scheduled: number, pending: readonly GangMember[], place: (m: GangMember) => PlaceResult): GangPlan {
  const placements: Placement[] = [];
  const unplaced: Array<GangMember & { message: string }> = [];
  for (let i = 0; i < pending.length; i++) {
    const m = pending[i]!;
    const r = place(m);
    if (r.node) placements.push({ ...m, node: r.node });
    else unplaced.push({ ...m, message: r.message ?? '' });
    const s = scheduled + placements.length;
    const remaining = pending.length - i - 1;
    if (s + remaining < minCount) return { ok: false, placements: [], unplaced, message: minCountUnsatisfied(minCount, s, remaining) };
  }
  return { ok: true, placements, unplaced, message: '' };
}
