// The words of the eviction-request model (controllers.md §1, upstream pkg/controller/evictionrequest
// renamed): paths, condition types, reasons and messages, the default responder, and small helpers on
// EvictionRequests and Evictions that the controller, the imperative evictor and tests share.
import type { KubeObject } from '../../client/informer.js';

export const LIFECYCLE_GV = 'lifecycle.orch.io/v1alpha1';
export const ER_PATH = '/apis/lifecycle.orch.io/v1alpha1/evictionrequests';
export const EVICTIONS_PATH = '/apis/lifecycle.orch.io/v1alpha1/evictions';
export const PODS_PATH = '/api/v1/pods';

export const erItem = (ns: string, name: string) => `/apis/lifecycle.orch.io/v1alpha1/namespaces/${ns}/evictionrequests/${name}`;
export const evictionsIn = (ns: string) => `/apis/lifecycle.orch.io/v1alpha1/namespaces/${ns}/evictions`;
export const evictionItem = (ns: string, name: string) => `${evictionsIn(ns)}/${name}`;
export const podItem = (ns: string, name: string) => `/api/v1/namespaces/${ns}/pods/${name}`;

export const CONTROLLER_NAME = 'evictionrequest-controller';
export const EVICTOR_NAME = 'imperative-eviction-controller';

/** The responder the controller always adds last: it evicts through the pods `eviction` subresource. */
export const DEFAULT_RESPONDER = 'imperative-eviction.orch.io/evictor';
export const DEFAULT_RESPONDER_PRIORITY = 100;
/** How long a terminating pod waits for the Active responder to report completion (GracefulCompletionDelay). */
export const GRACEFUL_COMPLETION_DELAY_MS = 5_000;
/** An Active responder silent this long is Interrupted (ResponderHeartbeatTimeout). */
export const RESPONDER_HEARTBEAT_TIMEOUT_MS = 20 * 60_000;

export const TARGET_EVICTED = 'TargetEvicted';
export const FAILED = 'Failed';

export const REASON = {
  awaiting: 'AwaitingEviction',
  podDeleted: 'PodDeleted',
  podTerminal: 'PodTerminal',
  succeeded: 'Succeeded',
  evictionFailed: 'EvictionFailed',
  canceled: 'CanceledDueToNoRequesters',
  noFurtherResponder: 'NoFurtherResponder',
  invalid: 'EvictionInvalid',
} as const;

export const MESSAGE = {
  awaitingRequest: 'waiting for an Eviction to report on progress',
  podDeleted: 'Target pod has been deleted',
  podTerminal: 'Pod has reached terminal state',
  canceled: 'No active requesters with eviction intent',
  noFurtherResponder: 'All responders have completed without evicting the target',
  duplicate: 'Active Eviction already exists for the same target.',
  unsupportedTarget: 'Unsupported target type.',
  podNotFound: 'Target pod not found.',
  uidMismatch: (expected: string, got: string) => `Target pod UID mismatch: expected ${expected}, got ${got}.`,
  schedulingGroup: 'Target pod references a SchedulingGroup. Eviction is currently not supported.',
} as const;

export interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

export interface EvictionRequest extends KubeObject {
  spec?: { target?: { pod?: { name?: string; uid?: string } }; requester?: string; intent?: string };
  status?: { observedGeneration?: number; conditions?: Condition[] };
}

export interface ResponderEntry {
  name: string;
  startTime?: string;
  heartbeatTime?: string;
  completionTime?: string;
  message?: string;
}

export interface TargetResponder {
  name: string;
  priority: number;
  state: 'Inactive' | 'Active' | 'Completed' | 'Interrupted' | 'Canceled';
}

export interface EvictionObject extends KubeObject {
  spec?: { target?: { pod?: { name?: string; uid?: string } } };
  status?: {
    observedGeneration?: number;
    requesters?: Array<{ name: string; intent: string }>;
    targetResponders?: TargetResponder[];
    responders?: ResponderEntry[];
    conditions?: Condition[];
  };
}

/** A target: the pod an ER or Eviction names, in its own namespace (`ns/name/uid`). */
export function targetKey(o: EvictionRequest | EvictionObject): string | undefined {
  const pod = o.spec?.target?.pod;
  if (!pod?.name || !pod.uid) return undefined;
  return `${o.metadata.namespace}/${pod.name}/${pod.uid}`;
}

export function splitTarget(key: string): { namespace: string; name: string; uid: string } {
  const [namespace = '', name = '', uid = ''] = key.split('/');
  return { namespace, name, uid };
}

export const conditionOf = (o: { status?: { conditions?: Condition[] } } | undefined, type: string): Condition | undefined =>
  o?.status?.conditions?.find((c) => c.type === type);

export const isTrue = (o: { status?: { conditions?: Condition[] } } | undefined, type: string): boolean => conditionOf(o, type)?.status === 'True';

/** An Eviction is final once TargetEvicted or Failed is True (validation keeps them so). */
export const evictionFinal = (ev: EvictionObject): boolean => isTrue(ev, TARGET_EVICTED) || isTrue(ev, FAILED);

/** An ER is finished once its target was evicted or it was found invalid; nothing changes it then. */
export function requestFinished(er: EvictionRequest): boolean {
  if (isTrue(er, TARGET_EVICTED)) return true;
  const failed = conditionOf(er, FAILED);
  return failed?.status === 'True' && failed.reason === REASON.invalid;
}

/** metav1.Time: RFC 3339 in seconds. */
export const nowTime = (ms = Date.now()): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A condition with lastTransitionTime kept while its status stays the same. */
export function condition(type: string, status: 'True' | 'False', reason: string, message: string, old: Condition | undefined, now: string): Condition {
  return { type, status, reason, message, lastTransitionTime: old && old.status === status && old.lastTransitionTime ? old.lastTransitionTime : now };
}

/** The two managed conditions compare equal (type, status, reason, message). */
export function sameConditions(a: readonly Condition[] | undefined, b: readonly Condition[]): boolean {
  return b.every((w) => {
    const c = a?.find((x) => x.type === w.type);
    return !!c && c.status === w.status && (c.reason ?? '') === w.reason && (c.message ?? '') === w.message;
  });
}

/** Creation order: creationTimestamp, then the name's counter, then the name. */
export function byAge(a: KubeObject, b: KubeObject): number {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  const na = counterOf(a.metadata.name) ?? 0;
  const nb = counterOf(b.metadata.name) ?? 0;
  if (na !== nb) return na - nb;
  return a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
}

/** n of an Eviction named `pod-<n>-<podName>`. */
export function counterOf(name: string, podName?: string): number | undefined {
  const m = /^pod-(\d+)-(.*)$/.exec(name);
  if (!m) return undefined;
  // A name cut at 253 characters keeps only a prefix of the pod's name.
  if (podName !== undefined && m[2] !== podName && !(name.length >= 250 && podName.startsWith(m[2]!))) return undefined;
  return Number(m[1]);
}

/** `pod-<n>-<podName>`, cut to 253 characters (and never ending in `-` or `.`). */
export function evictionName(n: number, podName: string): string {
  return `pod-${n}-${podName}`.slice(0, 253).replace(/[-.]+$/, '');
}
