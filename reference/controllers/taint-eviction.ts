// The taint eviction controller (upstream pkg/controller/tainteviction; spec 001 §3 "pods already
// scheduled may be evicted because of NoExecute taints unless they carry tolerations"): for each pod
// bound to a node with NoExecute taints,
//   - a pod that does not tolerate every one of them is deleted at once;
//   - a pod that tolerates them all, some with tolerationSeconds, is deleted once the smallest of
//     those has passed (counted from when the controller first saw it tolerated only for a while; a
//     change of taints or tolerations is weighed again, and a removed taint cancels the deletion);
//   - a pod whose tolerations carry no tolerationSeconds stays.
// Before deleting, it records the event `TaintManagerEviction` ("Marking for deletion Pod <ns>/<name>")
// and sets the pod condition DisruptionTarget=True, reason `DeletionByTaintManager`, message
// `Taint manager: deleting due to NoExecute taint` (a status patch); then it DELETEs the pod.
// A cancelled deletion records `TaintManagerEviction` "Cancelling deletion of Pod <ns>/<name>".
import { isNotFound } from '../client/api-client.js';
import type { Informer, KubeObject } from '../client/informer.js';
import { keyOf, splitKey } from '../client/informer.js';
import { WorkQueue } from '../client/workqueue.js';
import type { Controller, ControllerContext, ControllerDefinition } from './controller.js';
import { toleratesTaint, type Taint, type Toleration } from '../taints.js';
import { timerDelay } from '../../cri/timers.js';

export const TAINT_EVICTION_CONTROLLER = 'taint-eviction-controller';

/**
 * Upstream GetMatchingTolerations + getMinTolerationTime: undefined when some taint is not tolerated;
 * otherwise how long the pod may stay in ms (Infinity: forever; 0: not at all).
 */
export function toleratedFor(taints: readonly Taint[], tolerations: readonly Toleration[]): number | undefined {
  if (taints.length === 0) return Infinity;
  const used: Toleration[] = [];
  for (const t of taints) {
    const tol = tolerations.find((x) => toleratesTaint(x, t));
    if (!tol) return undefined;
    used.push(tol);
  }
  let min = Infinity;
  for (const tol of used) {
    if (typeof tol.tolerationSeconds !== 'number') continue;
    if (tol.tolerationSeconds <= 0) return 0;
    min = Math.min(min, tol.tolerationSeconds * 1000);
  }
  return min;
}

const noExecute = (node: KubeObject | undefined): Taint[] => (node?.spec?.taints ?? []).filter((t: Taint) => t?.effect === 'NoExecute');

interface Scheduled {
  readonly createdAt: number;
  readonly fireAt: number;
  readonly uid?: string;
  /** Re-armed while fireAt is further away than one timer reaches (timers.ts). */
  timer: NodeJS.Timeout;
}

class TaintEvictionController implements Controller {
  readonly name = TAINT_EVICTION_CONTROLLER;
  private readonly nodes: Informer;
  private readonly pods: Informer;
  /** Keys `node/<name>` (weigh every pod on it) and `pod/<ns>/<name>`. */
  private readonly queue: WorkQueue;
  /** Deletions due, by pod key: `evict/<ns>/<name>` keys of this queue delete the pod. */
  private readonly evictions: WorkQueue;
  private readonly scheduled = new Map<string, Scheduled>();

  constructor(private readonly ctx: ControllerContext) {
    this.nodes = ctx.informers.for('/api/v1/nodes');
    this.pods = ctx.informers.for('/api/v1/pods');
    this.pods.addIndex('taint-eviction:nodeName', (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []));
    this.queue = new WorkQueue({ name: 'taint_eviction_controller', metrics: ctx.queueMetrics });
    this.evictions = new WorkQueue({ name: 'taint_eviction_controller_deletions', metrics: ctx.queueMetrics });
    const nodeChanged = (old: KubeObject | undefined, node: KubeObject | undefined) => {
      const name = (node ?? old)!.metadata.name;
      if (old && node && JSON.stringify(noExecute(old)) === JSON.stringify(noExecute(node))) return;
      this.queue.add(`node/${name}`);
    };
    this.nodes.addEventHandler({ onAdd: (n) => nodeChanged(undefined, n), onUpdate: nodeChanged, onDelete: (n) => nodeChanged(n, undefined) });
    const podChanged = (old: KubeObject | undefined, pod: KubeObject) => {
      if (old && old.spec?.nodeName === pod.spec?.nodeName && JSON.stringify(old.spec?.tolerations ?? []) === JSON.stringify(pod.spec?.tolerations ?? [])) return;
      this.queue.add(`pod/${keyOf(pod)}`);
    };
    this.pods.addEventHandler({ onAdd: (p) => podChanged(undefined, p), onUpdate: podChanged, onDelete: (p) => this.cancel(keyOf(p), false) });
  }

  private breaks(rule: string): boolean { return this.ctx.breaks.has(`taint-eviction.${rule}`); }
  private stopped = false;
  /** Errors after stop() come from the shutdown (requests cut short): not worth a line. */
  private log(message: string, err?: unknown): void { if (!this.stopped) this.ctx.log(message, err); }

  run(): void {
    const onError = (key: string, err: unknown) => this.log(`${key}: ${(err as Error)?.message ?? err}`);
    void this.queue.run(4, (key) => this.reconcile(key), onError);
    void this.evictions.run(4, (key) => this.evict(key), onError);
  }

  stop(): void {
    this.stopped = true;
    for (const s of this.scheduled.values()) clearTimeout(s.timer);
    this.scheduled.clear();
    this.queue.shutDown();
    this.evictions.shutDown();
  }

  private async reconcile(key: string): Promise<void> {
    if (key.startsWith('node/')) {
      const name = key.slice('node/'.length);
      const taints = noExecute(this.nodes.get('', name));
      for (const pod of this.pods.byIndex('taint-eviction:nodeName', name)) this.weigh(pod, taints);
      return;
    }
    const podKey = key.slice('pod/'.length);
    const { namespace, name } = splitKey(podKey);
    const pod = this.pods.get(namespace, name);
    if (!pod) return this.cancel(podKey, false);
    const nodeName: string | undefined = pod.spec?.nodeName;
    if (!nodeName) return;
    this.weigh(pod, noExecute(this.nodes.get('', nodeName)));
  }

  /** Upstream processPodOnNode: schedules, keeps or cancels the pod's deletion. */
  private weigh(pod: KubeObject, taints: readonly Taint[]): void {
    const key = keyOf(pod);
    if (taints.length === 0) return this.cancel(key, true);
    const tolerations: Toleration[] = pod.spec?.tolerations ?? [];
    let stay = toleratedFor(taints, tolerations);
    // Test-only (breaks): tolerations are ignored, every pod goes at once.
    if (this.breaks('ignore-tolerations')) stay = undefined;
    // Test-only (breaks): tolerationSeconds is ignored, a tolerated pod stays.
    if (this.breaks('ignore-toleration-seconds') && stay !== undefined) stay = Infinity;
    const now = Date.now();
    if (stay === undefined) {
      this.cancel(key, false);
      return this.schedule(pod, now, now);
    }
    if (stay === Infinity) return this.cancel(key, true);
    const existing = this.scheduled.get(key);
    let start = now;
    if (existing) {
      start = existing.createdAt;
      // Already due no later than the new deadline: keep it.
      if (start + stay <= existing.fireAt) return;
      this.cancel(key, false);
    }
    this.schedule(pod, start, start + stay);
  }

  private schedule(pod: KubeObject, createdAt: number, fireAt: number): void {
    const key = keyOf(pod);
    // tolerationSeconds may reach past what one timer waits (about 24.8 days): re-arm until due.
    const arm = (): NodeJS.Timeout => setTimeout(() => {
      if (fireAt - Date.now() > 0) entry.timer = arm();
      else this.evictions.add(`evict/${key}`);
    }, timerDelay(fireAt - Date.now()));
    const entry: Scheduled = { createdAt, fireAt, uid: pod.metadata.uid, timer: arm() };
    this.scheduled.set(key, entry);
  }

  private cancel(key: string, withEvent: boolean): void {
    const s = this.scheduled.get(key);
    if (!s) return;
    clearTimeout(s.timer);
    this.scheduled.delete(key);
    if (!withEvent) return;
    const pod = this.pods.getByKey(key);
    if (pod) this.ctx.events.record({ ...pod, apiVersion: 'v1', kind: 'Pod' }, 'Normal', 'TaintManagerEviction', 'Cancel', `Cancelling deletion of Pod ${key}`);
  }

  /** Upstream addConditionAndDeletePod: DisruptionTarget, then DELETE (the uid must still match). */
  private async evict(work: string): Promise<void> {
    const key = work.slice('evict/'.length);
    const s = this.scheduled.get(key);
    if (!s) return;
    // Test-only (breaks): the controller never deletes anything.
    if (this.breaks('no-eviction')) return;
    const { namespace, name } = splitKey(key);
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}`;
    const cached = this.pods.get(namespace, name);
    if (cached) this.ctx.events.record({ ...cached, apiVersion: 'v1', kind: 'Pod' }, 'Normal', 'TaintManagerEviction', 'Delete', `Marking for deletion Pod ${key}`);
    let pod: KubeObject;
    try {
      pod = await this.ctx.client.get(path);
    } catch (err) {
      if (isNotFound(err)) return this.done(key, s);
      throw err;
    }
    if (s.uid && pod.metadata.uid !== s.uid) return this.done(key, s);
    if (!pod.metadata.deletionTimestamp) {
      const cond = (pod.status?.conditions ?? []).find((c: any) => c?.type === 'DisruptionTarget');
      // Test-only (breaks): no DisruptionTarget condition before the deletion.
      if (!this.breaks('no-disruption-target') && !(cond?.status === 'True' && cond?.reason === 'DeletionByTaintManager')) {
        const condition = { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint', lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') };
        try {
          await this.ctx.client.patchStatus(path, { metadata: { uid: pod.metadata.uid }, status: { conditions: [condition] } }, 'strategic');
        } catch (err) {
          if (isNotFound(err)) return this.done(key, s);
          throw err;
        }
      }
      try {
        await this.ctx.client.delete(path, { preconditions: { uid: pod.metadata.uid } });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    this.done(key, s);
  }

  private done(key: string, s: Scheduled): void {
    if (this.scheduled.get(key) === s) this.scheduled.delete(key);
  }
}

export const taintEvictionController: ControllerDefinition = {
  requires: [{ group: '', resource: 'nodes' }, { group: '', resource: 'pods' }],
  name: TAINT_EVICTION_CONTROLLER,
  make: (ctx) => new TaintEvictionController(ctx),
};
