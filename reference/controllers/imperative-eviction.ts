// The imperative evictor (KEP-4563's default responder `imperative-eviction.orch.io/evictor`, priority
// 100, which the eviction-request controller adds last to every Eviction): when it is the Active
// responder of an Eviction, it evicts the target through the pods `eviction` subresource (so
// disruption budgets would apply) and reports completion in the Eviction's status. Pods already
// terminating are left alone (their deletion is under way). A failed eviction is retried with
// exponential backoff, each failure reported as a heartbeat with upstream's message. It never acts on
// an Eviction whose responder the controller canceled.
//
// Mirror pods and DaemonSet pods it must not evict (KEP-4563: "API-initiated eviction of DaemonSet
// pods and mirror pods is not supported"; the request may still end them by other means): for those
// it reports completion without evicting, as a responder that steps back does (the KEP's way for a
// responder to withdraw), so the controller hands on to the next responder, or, with none left,
// fails the Eviction (spec 000 §3.1: "no responder managed to evict"). Upstream's exact handling of
// such pods is not in code we could read; staying Active and silent would end the same way, only after
// the 20-minute heartbeat timeout.
import { ApiError, isConflict, isNotFound } from '../client/api-client.js';
import type { Informer } from '../client/informer.js';
import { WorkQueue } from '../client/workqueue.js';
import type { Controller, ControllerContext, ControllerDefinition } from './controller.js';
import {
  DEFAULT_RESPONDER,
  EVICTIONS_PATH,
  EVICTOR_NAME,
  LIFECYCLE_GV,
  PODS_PATH,
  evictionFinal,
  evictionItem,
  nowTime,
  podItem,
  type EvictionObject,
} from './evictionrequest/model.js';

const WORKERS = 5;

/** Upstream's `kubernetes.io/config.mirror`, renamed (the agent's mirror pods carry it; static-pods.ts). */
const MIRROR_ANNOTATION = 'orch.io/config.mirror';

/** Why this responder must not evict `pod` through the eviction API, or undefined when it may. */
export function notEvictable(pod: any): string | undefined {
  if (pod?.metadata?.annotations?.[MIRROR_ANNOTATION] !== undefined) return 'API-initiated eviction of mirror pods is not supported';
  const owner = (pod?.metadata?.ownerReferences ?? []).find((r: any) => r?.controller === true);
  if (owner?.kind === 'DaemonSet' && String(owner.apiVersion ?? '').startsWith('apps/')) return 'API-initiated eviction of DaemonSet pods is not supported';
  return undefined;
}

export const imperativeEvictionController: ControllerDefinition = {
  name: EVICTOR_NAME,
  requires: [{ group: 'lifecycle.orch.io', resource: 'evictions' }, { group: '', resource: 'pods' }],
  make: (ctx) => new ImperativeEvictionController(ctx),
};

/** The default responder is the Active one and has not reported completion. */
export function evictorActive(ev: EvictionObject): boolean {
  if (ev.metadata.deletionTimestamp || evictionFinal(ev)) return false;
  if (ev.status?.targetResponders?.find((r) => r.name === DEFAULT_RESPONDER)?.state !== 'Active') return false;
  return !ev.status?.responders?.find((r) => r.name === DEFAULT_RESPONDER)?.completionTime;
}

export class ImperativeEvictionController implements Controller {
  readonly name = EVICTOR_NAME;
  private readonly queue: WorkQueue;
  private stopped = false;
  private readonly evictions: Informer<EvictionObject>;
  private readonly pods: Informer;
  /** Evictions (by uid) whose target this responder already evicted: a stale cache must not evict twice. */
  private readonly done = new Set<string>();

  constructor(private readonly ctx: ControllerContext) {
    this.queue = new WorkQueue({ name: 'imperative-eviction', metrics: ctx.queueMetrics, baseDelayMs: 200, maxDelayMs: 60_000 });
    this.evictions = ctx.informers.for<EvictionObject>(EVICTIONS_PATH);
    this.pods = ctx.informers.for(PODS_PATH);
    const enqueue = (ev: EvictionObject) => {
      const key = `${ev.metadata.namespace}/${ev.metadata.name}`;
      // A key backing off after a failed eviction waits for its turn: its own failure reports (and any
      // other change) must not make it try again at once.
      if (evictorActive(ev) && this.queue.retries(key) === 0) this.queue.add(key);
    };
    this.evictions.addEventHandler({ onAdd: enqueue, onUpdate: (_, ev) => enqueue(ev), onDelete: (ev) => this.done.delete(ev.metadata.uid ?? '') });
  }

  run(): void {
    // Requests cut short by the stop (the client closing) are not worth a log line.
    void this.queue.run(WORKERS, (key) => this.sync(key), (key, err) => this.stopped || this.ctx.log(`evicting the target of ${key} failed`, err));
  }

  stop(): void {
    this.stopped = true;
    this.queue.shutDown();
  }

  private async sync(key: string): Promise<void> {
    const ev = this.evictions.getByKey(key);
    if (!ev || !evictorActive(ev) || this.done.has(ev.metadata.uid ?? '')) return;
    // Test-only (breaks): the default responder never evicts.
    if (this.ctx.breaks.has('imperative-eviction.never-evict')) return;
    const target = ev.spec?.target?.pod;
    if (!target?.name || !target.uid) return;
    let namespace = ev.metadata.namespace!;
    // Test-only (breaks): the target is looked for by uid in every namespace.
    if (this.ctx.breaks.has('imperative-eviction.target-any-namespace')) {
      const anywhere = this.pods.list().find((p) => p.metadata.uid === target.uid);
      if (anywhere) namespace = anywhere.metadata.namespace!;
    }
    let pod = this.pods.get(namespace, target.name);
    // The pods informer may lag behind the Evictions' one: what the target is (a mirror or DaemonSet
    // pod is declined) must be known before evicting, so a pod the cache does not know is read.
    if (!pod || pod.metadata.uid !== target.uid) pod = await this.readPod(namespace, target.name);
    // Already terminating: its deletion is under way, there is nothing to evict.
    if (pod && pod.metadata.uid === target.uid && pod.metadata.deletionTimestamp) return;
    // Not ours to evict: step back without evicting (see the head of this file).
    const declined = pod && pod.metadata.uid === target.uid ? notEvictable(pod) : undefined;
    if (declined) {
      await this.report(ev, { completionTime: nowTime(), message: declined });
      this.done.add(ev.metadata.uid ?? '');
      return;
    }
    try {
      await this.ctx.client.create(`${podItem(namespace, target.name)}/eviction`, {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name: target.name, namespace },
        deleteOptions: { preconditions: { uid: target.uid } },
      });
    } catch (err) {
      // Gone, or replaced by a pod of another uid (precondition failed): the target is evicted.
      if (!isNotFound(err) && !isConflict(err)) {
        const retries = this.queue.retries(key) + 1;
        await this.report(ev, { heartbeatTime: nowTime(), message: `Could not evict a pod due to failing eviction requests, number of retries: ${retries}` }).catch(() => undefined);
        throw err instanceof ApiError ? err : new Error(`evicting pod ${namespace}/${target.name}: ${String(err)}`);
      }
    }
    // Test-only (breaks): the responder does its work but never reports it.
    if (this.ctx.breaks.has('imperative-eviction.no-progress')) return;
    await this.report(ev, { completionTime: nowTime(), message: '' });
    this.done.add(ev.metadata.uid ?? '');
  }

  /** The pod from the API; undefined when there is none. */
  private async readPod(namespace: string, name: string): Promise<any> {
    try {
      return await this.ctx.client.get(podItem(namespace, name));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Writes this responder's own fields of its `status.responders` entry (server-side apply, as itself). */
  private async report(ev: EvictionObject, fields: { completionTime?: string; heartbeatTime?: string; message?: string }): Promise<void> {
    const entry: Record<string, string> = { name: DEFAULT_RESPONDER };
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) entry[k] = v;
    try {
      await this.ctx.client.apply(evictionItem(ev.metadata.namespace!, ev.metadata.name), {
        apiVersion: LIFECYCLE_GV, kind: 'Eviction', metadata: { name: ev.metadata.name, namespace: ev.metadata.namespace }, status: { responders: [entry] },
      }, { fieldManager: EVICTOR_NAME, force: true, subresource: 'status' });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }
}
