// What the scheduler writes besides bindings, all through status patches (strategic merge, conditions
// merged on `type`): the pod condition PodScheduled=False when a pod cannot be placed (with
// nominatedNodeName after a preemption), DisruptionTarget on the pods it preempts, and the PodGroup
// conditions of spec 000 §3.2 (PodGroupInitiallyScheduled True once and never back; DisruptionTarget
// after a preemption), with observedGeneration. A write that would change nothing is skipped, and
// writes to one object go out in order (a later PodScheduled=False never overtakes a binding).
import { isNotFound, type ApiClient } from '../client/api-client.js';
import { keyOf, type Informer, type KubeObject } from '../client/informer.js';

export const POD_SCHEDULED = 'PodScheduled';
export const DISRUPTION_TARGET = 'DisruptionTarget';
export const INITIALLY_SCHEDULED = 'PodGroupInitiallyScheduled';
export const PODGROUPS_PATH = '/apis/scheduling.orch.io/v1beta1';

/** metav1.Time: RFC 3339 with whole seconds. */
export const nowTime = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

const podPath = (pod: KubeObject) => `/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}`;
export const podGroupPath = (namespace: string, name: string) => `${PODGROUPS_PATH}/namespaces/${namespace}/podgroups/${name}`;

interface Cond {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

const conditionOf = (o: KubeObject | undefined, type: string): Cond | undefined => (o?.status?.conditions ?? []).find((c: Cond) => c?.type === type);
const same = (a: Cond | undefined, status: string, reason: string, message: string) => !!a && a.status === status && a.reason === reason && (a.message ?? '') === message;

export class StatusWriter {
  private readonly chains = new Map<string, Promise<void>>();
  /** What this scheduler last wrote, by `<object key>|<type>` (the informer may not show it yet). */
  private readonly written = new Map<string, Cond>();

  constructor(
    private readonly client: ApiClient,
    private readonly pods: Informer,
    private readonly podGroups: () => Informer | undefined,
    private readonly log: (message: string, err?: unknown) => void,
  ) {}

  /** Runs `fn` after the writes already queued for `key` (a binding too); its failure is the caller's. */
  inOrder<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const result = (this.chains.get(key) ?? Promise.resolve()).then(fn);
    const settled = result.then(() => undefined, () => undefined);
    this.chains.set(key, settled);
    void settled.then(() => {
      if (this.chains.get(key) === settled) this.chains.delete(key);
    });
    return result;
  }

  /**
   * A write nobody waits for: its failure is logged (a 404 - the object went away - is not). With
   * `memo`, the condition remembered as written is forgotten when the write failed (unless a later
   * one replaced it), so that the next attempt writes it again instead of taking it as done: a
   * failed write (a storage timeout under load) must not leave a pod without its condition for good.
   */
  fire(key: string, fn: () => Promise<unknown>, memo?: { key: string; cond: Cond }): Promise<void> {
    return this.inOrder(key, fn).then(() => undefined, (err) => {
      if (memo && this.written.get(memo.key) === memo.cond) this.written.delete(memo.key);
      if (!isNotFound(err)) this.log(`write for ${key} failed`, err);
    });
  }

  /** The pod object is gone: forget what was written to it. */
  forgetPod(key: string): void {
    for (const t of [POD_SCHEDULED, DISRUPTION_TARGET]) this.written.delete(`p:${key}|${t}`);
  }

  forgetPodGroup(key: string): void {
    for (const t of [INITIALLY_SCHEDULED, DISRUPTION_TARGET]) this.written.delete(`g:${key}|${t}`);
  }

  /** PodScheduled=False with `reason` (Unschedulable, SchedulerError) and `message`; nominatedNodeName when given. */
  podUnschedulable(pod: KubeObject, reason: string, message: string, nominatedNodeName?: string): Promise<void> {
    const key = keyOf(pod);
    const memo = `p:${key}|${POD_SCHEDULED}`;
    const current = this.pods.getByKey(key);
    const nominatedSame = nominatedNodeName === undefined || current?.status?.nominatedNodeName === nominatedNodeName;
    if (nominatedSame && (same(this.written.get(memo), 'False', reason, message) || same(conditionOf(current, POD_SCHEDULED), 'False', reason, message))) return Promise.resolve();
    const was = conditionOf(current, POD_SCHEDULED);
    const cond = { type: POD_SCHEDULED, status: 'False', reason, message, lastTransitionTime: was?.status === 'False' && was.lastTransitionTime ? was.lastTransitionTime : nowTime() };
    this.written.set(memo, cond);
    const status: Record<string, unknown> = { conditions: [cond] };
    if (nominatedNodeName !== undefined) status['nominatedNodeName'] = nominatedNodeName;
    return this.fire(key, () => this.client.patchStatus(podPath(pod), { status }, 'strategic'), { key: memo, cond });
  }

  /** DisruptionTarget=True, reason PreemptionByScheduler, on a pod about to be deleted for a preemptor. */
  podDisruptionTarget(pod: KubeObject, message: string): Promise<void> {
    const key = keyOf(pod);
    const cond = { type: DISRUPTION_TARGET, status: 'True', reason: 'PreemptionByScheduler', message, lastTransitionTime: nowTime() };
    const memo = `p:${key}|${DISRUPTION_TARGET}`;
    this.written.set(memo, cond);
    return this.fire(key, () => this.client.patchStatus(podPath(pod), { status: { conditions: [cond] } }, 'strategic'), { key: memo, cond });
  }

  /**
   * A PodGroup condition. PodGroupInitiallyScheduled, once True (as stored or as written here), is
   * never written False again (spec 000 §3.2).
   */
  podGroupCondition(namespace: string, name: string, type: string, status: 'True' | 'False', reason: string, message: string): Promise<void> {
    const key = `${namespace}/${name}`;
    const memo = `g:${key}|${type}`;
    const pg = this.podGroups()?.get(namespace, name);
    if (!pg) return Promise.resolve();
    const stored = conditionOf(pg, type);
    const mine = this.written.get(memo);
    if (type === INITIALLY_SCHEDULED && status === 'False' && (stored?.status === 'True' || mine?.status === 'True')) return Promise.resolve();
    const generation = pg.metadata.generation;
    const upToDate = (c: Cond | undefined) => same(c, status, reason, message) && (generation === undefined || c!.observedGeneration === generation);
    if (upToDate(mine) || upToDate(stored)) return Promise.resolve();
    const was = mine ?? stored;
    const cond: Cond = {
      type, status, reason, message,
      lastTransitionTime: was?.status === status && was.lastTransitionTime ? was.lastTransitionTime : nowTime(),
      ...(generation !== undefined ? { observedGeneration: generation } : {}),
    };
    this.written.set(memo, cond);
    return this.fire(`pg:${key}`, () => this.client.patchStatus(podGroupPath(namespace, name), { status: { conditions: [cond] } }, 'strategic'), { key: memo, cond });
  }
}
