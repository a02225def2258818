// What the controller writes into an Eviction's status (controllers.md §1 step 4), as a pure function
// of the Eviction, the EvictionRequests of its target and the pod's state: the requesters and their
// intents, the responders and their states, and the TargetEvicted / Failed conditions of the table.
import {
  DEFAULT_RESPONDER,
  DEFAULT_RESPONDER_PRIORITY,
  FAILED,
  GRACEFUL_COMPLETION_DELAY_MS,
  MESSAGE,
  REASON,
  RESPONDER_HEARTBEAT_TIMEOUT_MS,
  TARGET_EVICTED,
  condition,
  conditionOf,
  evictionFinal,
  nowTime,
  type Condition,
  type EvictionObject,
  type EvictionRequest,
  type ResponderEntry,
  type TargetResponder,
} from './model.js';
import { MAX_EVICTION_REQUESTERS } from '../../resources/eviction.js';

/** The target pod as the controller sees it (`replaced`: a pod of that name with another uid). */
export type PodState =
  | { readonly kind: 'present'; readonly pod: any }
  | { readonly kind: 'terminating'; readonly pod: any }
  | { readonly kind: 'terminal'; readonly pod: any }
  | { readonly kind: 'gone' }
  | { readonly kind: 'replaced'; readonly uid: string };

export interface EvictionStatus {
  observedGeneration?: number;
  requesters: Array<{ name: string; intent: string }>;
  targetResponders: TargetResponder[];
  /** Only the fields the controller owns (name, startTime); responders report the rest. */
  responders: Array<{ name: string; startTime?: string }>;
  conditions: Condition[];
}

export interface EvictionSyncInput {
  readonly eviction: EvictionObject;
  /** Every EvictionRequest of the target, including those being deleted. */
  readonly requests: readonly EvictionRequest[];
  /**
   * The pod, asked for only when the Eviction is not final yet; `fresh` reads it from the API rather
   * than the informer's cache (a responder reported completion: its eviction may be newer than the cache).
   */
  readonly pod: (fresh?: boolean) => Promise<PodState>;
  /** An older active Eviction exists for the same target. */
  readonly duplicate: boolean;
  /** When this Eviction first saw its pod terminating (GracefulCompletionDelay). */
  readonly terminatingSince: (ms: number) => number;
  readonly nowMs: number;
  readonly breaks: ReadonlySet<string>;
}

export interface EvictionSyncResult {
  readonly status: EvictionStatus;
  /** Look again after this many ms (a grace delay or heartbeat deadline runs). */
  readonly recheckMs?: number;
}

export const isLive = (er: EvictionRequest): boolean => !er.metadata.deletionTimestamp;

/**
 * status.requesters: every requester ever seen, in order, never removed (at most 100). A requester
 * whose requests are all deleted or being deleted is Withdrawn.
 */
export function requestersOf(ev: EvictionObject, requests: readonly EvictionRequest[], breaks: ReadonlySet<string>): Array<{ name: string; intent: string }> {
  const now = new Map<string, string>();
  for (const er of requests) {
    const name = er.spec?.requester;
    if (!name) continue;
    // Test-only (breaks): a request being deleted keeps its intent instead of counting as withdrawn.
    const intent = isLive(er) || breaks.has('evictionrequest.deleted-keeps-intent') ? er.spec?.intent ?? 'Withdrawn' : 'Withdrawn';
    if (now.get(name) !== 'Eviction') now.set(name, intent);
  }
  const out: Array<{ name: string; intent: string }> = [];
  for (const r of ev.status?.requesters ?? []) {
    if (!r?.name) continue;
    if (now.has(r.name)) out.push({ name: r.name, intent: now.get(r.name)! });
    // Test-only (breaks): requesters whose requests are gone are dropped from the list.
    else if (breaks.has('evictionrequest.requesters-drop-deleted')) continue;
    // Test-only (breaks): a deleted request's requester keeps its last intent.
    else out.push({ name: r.name, intent: breaks.has('evictionrequest.deleted-keeps-intent') ? r.intent : 'Withdrawn' });
  }
  for (const [name, intent] of now) {
    if (out.length >= MAX_EVICTION_REQUESTERS) break;
    if (!out.some((r) => r.name === name)) out.push({ name, intent });
  }
  return out;
}

export async function syncEviction(i: EvictionSyncInput): Promise<EvictionSyncResult> {
  const ev = i.eviction;
  const old = ev.status ?? {};
  const requesters = requestersOf(ev, i.requests, i.breaks);
  const base = { observedGeneration: ev.metadata.generation ?? 1, requesters };
  const ownResponders = (rs: readonly ResponderEntry[] | undefined) => (rs ?? []).map((r) => (r.startTime ? { name: r.name, startTime: r.startTime } : { name: r.name }));
  if (evictionFinal(ev)) {
    // Final: only the requesters move on, and an Active responder that reported completion is Completed.
    const done = (name: string) => !!old.responders?.find((r) => r.name === name)?.completionTime;
    const targetResponders = (old.targetResponders ?? []).map((r) => (r.state === 'Active' && done(r.name) ? { ...r, state: 'Completed' as const } : { ...r }));
    return { status: { ...base, targetResponders, responders: ownResponders(old.responders), conditions: [...(old.conditions ?? [])] } };
  }

  const now = nowTime(i.nowMs);
  const entryOf = (name: string) => old.responders?.find((r) => r.name === name);
  const targetResponders: TargetResponder[] = (old.targetResponders ?? []).map((r) => ({ ...r }));
  if (!targetResponders.some((r) => r.name === DEFAULT_RESPONDER)) targetResponders.push({ name: DEFAULT_RESPONDER, priority: DEFAULT_RESPONDER_PRIORITY, state: 'Inactive' });
  targetResponders.sort((a, b) => b.priority - a.priority);
  const responders = ownResponders(old.responders);
  let recheckMs: number | undefined;
  const recheck = (ms: number) => { recheckMs = Math.max(1, Math.min(recheckMs ?? ms, ms)); };

  // The Active responder finished (reported completion) or went silent for too long.
  let completed = false;
  const active = targetResponders.find((r) => r.state === 'Active');
  if (active) {
    const entry = entryOf(active.name);
    if (entry?.completionTime) {
      active.state = 'Completed';
      completed = true;
    } else {
      const last = Date.parse(entry?.heartbeatTime ?? entry?.startTime ?? '') || i.nowMs;
      const deadline = last + RESPONDER_HEARTBEAT_TIMEOUT_MS;
      if (deadline <= i.nowMs) active.state = 'Interrupted';
      else recheck(deadline - i.nowMs);
    }
  }

  const tOld = conditionOf(ev, TARGET_EVICTED);
  const fOld = conditionOf(ev, FAILED);
  const conditions = (t: ['True' | 'False', string, string], f: ['True' | 'False', string, string]): Condition[] => [
    condition(TARGET_EVICTED, ...t, tOld, now),
    condition(FAILED, ...f, fOld, now),
  ];
  const hasIntent = intentRemains(i, requesters);
  const evicted = await evictedBy(i, completed, hasIntent, recheck);
  let result: Condition[];
  if (evicted) {
    result = conditions(['True', ...evicted], ['False', REASON.succeeded, '']);
  } else if (i.duplicate) {
    result = conditions(['False', REASON.evictionFailed, ''], ['True', REASON.invalid, MESSAGE.duplicate]);
  } else if (!hasIntent) {
    // Canceled: the Active responder is told to stop; inactive ones never run.
    // Test-only (breaks): the Active responder is left Active.
    for (const r of targetResponders) if (r.state === 'Active' && !i.breaks.has('evictionrequest.cancel-leaves-active')) r.state = 'Canceled';
    // Test-only (breaks): the Failed reason upstream gives a cancellation is replaced.
    const reason = i.breaks.has('evictionrequest.canceled-reason') ? 'Canceled' : REASON.canceled;
    result = conditions(['False', REASON.evictionFailed, ''], ['True', reason, MESSAGE.canceled]);
  } else {
    if (!targetResponders.some((r) => r.state === 'Active')) {
      const next = targetResponders.find((r) => r.state === 'Inactive');
      if (next) {
        next.state = 'Active';
        const at = responders.findIndex((r) => r.name === next.name);
        if (at >= 0) responders[at] = { name: next.name, startTime: now };
        else responders.push({ name: next.name, startTime: now });
        recheck(RESPONDER_HEARTBEAT_TIMEOUT_MS);
      }
    }
    // Test-only (breaks): with every responder finished and the pod still there, the Eviction is
    // left waiting instead of failed.
    const waiting = targetResponders.some((r) => r.state === 'Active') || i.breaks.has('evictionrequest.no-further-responder-waits');
    result = waiting
      ? conditions(['False', REASON.awaiting, ''], ['False', REASON.awaiting, ''])
      : conditions(['False', REASON.evictionFailed, ''], ['True', REASON.noFurtherResponder, MESSAGE.noFurtherResponder]);
  }
  return { status: { ...base, targetResponders, responders, conditions: result }, recheckMs };
}

/** Some live request still has intent Eviction. */
function intentRemains(i: EvictionSyncInput, requesters: ReadonlyArray<{ intent: string }>): boolean {
  const live = i.requests.filter(isLive);
  // Test-only (breaks): never cancel while any request exists.
  if (i.breaks.has('evictionrequest.ignore-withdrawal')) return i.requests.length > 0;
  // Test-only (breaks): one requester withdrawing cancels the eviction for all.
  if (i.breaks.has('evictionrequest.withdraw-cancels-early')) return live.length > 0 && live.every((er) => er.spec?.intent === 'Eviction');
  // Test-only (breaks): the requesters list (where deleted requests keep their intent) decides.
  if (i.breaks.has('evictionrequest.deleted-keeps-intent')) return requesters.some((r) => r.intent === 'Eviction');
  return live.some((er) => er.spec?.intent === 'Eviction');
}

/**
 * TargetEvicted's [reason, message] when the pod is gone, replaced, terminal, or terminating long
 * enough while someone still wants it evicted. A pod that is only terminating (not yet deleted nor
 * terminated, spec 000 §3.1's words for TargetEvicted) whose every requester withdrew is not counted
 * as evicted: the withdrawal cancels the eviction, as the §3.1 table says.
 */
async function evictedBy(i: EvictionSyncInput, responderCompleted: boolean, wanted: boolean, recheck: (ms: number) => void): Promise<[string, string] | undefined> {
  // Test-only (breaks): the controller never notices that its target went.
  if (i.breaks.has('evictionrequest.no-target-evicted')) return undefined;
  let pod = await i.pod();
  if (responderCompleted && pod.kind === 'present') pod = await i.pod(true);
  // Test-only (breaks): the reason upstream gives a deleted pod is replaced.
  const deleted: [string, string] = [i.breaks.has('evictionrequest.pod-deleted-reason') ? 'Deleted' : REASON.podDeleted, MESSAGE.podDeleted];
  switch (pod.kind) {
    case 'gone':
    case 'replaced':
      return deleted;
    case 'terminal':
      // Test-only (breaks): a terminal pod is not taken as evicted.
      return i.breaks.has('evictionrequest.terminal-not-detected') ? undefined : [REASON.podTerminal, MESSAGE.podTerminal];
    case 'terminating': {
      // Being deleted: evicted once the Active responder reports completion, or after the grace delay.
      if (responderCompleted) return deleted;
      if (!wanted) return undefined;
      const since = i.terminatingSince(i.nowMs);
      const left = since + GRACEFUL_COMPLETION_DELAY_MS - i.nowMs;
      if (left <= 0) return deleted;
      recheck(left);
      return undefined;
    }
    default:
      return undefined;
  }
}
