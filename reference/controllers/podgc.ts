// The pod garbage collector (upstream pkg/controller/podgc): removes pods that no node agent will
// ever finish, so that a deletion, a namespace deletion or a run never waits on them for ever:
//   - orphaned pods: bound to a node that does not exist, checked again after a quarantine of 40 s
//     (a node may be registering): marked Failed with DisruptionTarget=True, reason DeletionByPodGC,
//     message `PodGC: node no longer exists`, then deleted with grace 0;
//   - terminating pods on an out-of-service node (NotReady and tainted `node.orch.io/out-of-service`):
//     marked Failed, deleted with grace 0.
// Upstream's third rule, terminating pods bound to no node (gcUnscheduledTerminating), is left out:
// the API server deletes an unbound pod at once, so only a finalizer can keep one terminating, and
// marking it Failed would only race its owner's work (the eviction cases hold pods so).
// A terminating pod on a node that exists and is not out of service stays until its agent finishes
// it, however long that takes: that is upstream's rule (a pod on a dead node stays Terminating until
// the node is removed or marked out of service). Upstream's count-based removal of finished pods
// (--terminated-pod-gc-threshold, 12500) is not done here.
// Upstream checks every 20 s; this one also checks soon after a pod or node changes, which changes
// when, never whether, a pod goes.
import { isNotFound } from '../client/api-client.js';
import type { Informer, KubeObject } from '../client/informer.js';
import type { Controller, ControllerContext, ControllerDefinition } from './controller.js';
import type { Taint } from '../taints.js';

export const POD_GC_CONTROLLER = 'pod-garbage-collector-controller';
export const TAINT_NODE_OUT_OF_SERVICE = 'node.orch.io/out-of-service';
/** Upstream gcCheckPeriod. */
const CHECK_PERIOD_MS = 20_000;
/** Upstream quarantineTime: how long a node must stay missing before its pods go. */
const QUARANTINE_MS = 40_000;
/** A pass this long after a change, so that a burst of changes costs one pass. */
const SETTLE_MS = 500;

const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
const isTerminal = (p: KubeObject) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
const podPath = (p: KubeObject) => `/api/v1/namespaces/${encodeURIComponent(p.metadata.namespace!)}/pods/${encodeURIComponent(p.metadata.name)}`;

/** Upstream: Ready not True, and the out-of-service taint (any effect). */
function outOfService(node: KubeObject): boolean {
  const ready = (node.status?.conditions ?? []).find((c: any) => c?.type === 'Ready');
  return ready?.status !== 'True' && (node.spec?.taints ?? []).some((t: Taint) => t?.key === TAINT_NODE_OUT_OF_SERVICE);
}

class PodGcController implements Controller {
  readonly name = POD_GC_CONTROLLER;
  private readonly nodes: Informer;
  private readonly pods: Informer;
  /** Node names seen missing, with when they were first seen so. */
  private readonly missingSince = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private dueAt = Infinity;
  private running = false;
  private again = false;
  private stopped = false;

  constructor(private readonly ctx: ControllerContext) {
    this.nodes = ctx.informers.for('/api/v1/nodes');
    this.pods = ctx.informers.for('/api/v1/pods');
    const soon = () => this.schedule(SETTLE_MS);
    this.nodes.addEventHandler({ onAdd: soon, onUpdate: soon, onDelete: soon });
    this.pods.addEventHandler({ onAdd: soon, onUpdate: soon });
  }

  private breaks(rule: string): boolean { return this.ctx.breaks.has(`podgc.${rule}`); }

  run(): void { this.schedule(0); }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** A pass in `delayMs` at the latest (an earlier one already due stays). */
  private schedule(delayMs: number): void {
    if (this.stopped) return;
    const at = Date.now() + delayMs;
    if (this.timer && at >= this.dueAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.dueAt = at;
    this.timer = setTimeout(() => { this.timer = undefined; this.dueAt = Infinity; void this.pass(); }, delayMs);
    this.timer.unref?.();
  }

  private async pass(): Promise<void> {
    if (this.running) { this.again = true; return; }
    this.running = true;
    try {
      await this.gc();
    } catch (err) {
      if (!this.stopped) this.ctx.log(`pod garbage collection: ${(err as Error)?.message ?? err}`);
    } finally {
      this.running = false;
      if (this.again) { this.again = false; this.schedule(0); } else this.schedule(CHECK_PERIOD_MS);
    }
  }

  private async gc(): Promise<void> {
    const pods = this.pods.list();
    const nodeOf = (name: string) => this.nodes.get('', name);
    const doomed: { pod: KubeObject; condition?: Record<string, string> }[] = [];
    const missing = new Set<string>();
    const t = Date.now();
    for (const pod of pods) {
      const nodeName: string | undefined = pod.spec?.nodeName;
      const terminating = !!pod.metadata.deletionTimestamp;
      if (!nodeName) continue;
      const node = nodeOf(nodeName);
      if (!node) {
        missing.add(nodeName);
        continue;
      }
      // Test-only (breaks): a terminating pod goes whatever its node's state (as if every node were out of service).
      if (terminating && (outOfService(node) || this.breaks('terminating-any-node'))) doomed.push({ pod });
    }
    // Orphans: the node must have been missing for the whole quarantine, and the API must confirm it.
    for (const name of [...this.missingSince.keys()]) if (!missing.has(name)) this.missingSince.delete(name);
    let nextCheck = Infinity;
    for (const name of missing) {
      const since = this.missingSince.get(name) ?? t;
      this.missingSince.set(name, since);
      const left = since + QUARANTINE_MS - t;
      if (left > 0) { nextCheck = Math.min(nextCheck, left); continue; }
      if (!(await this.nodeGone(name))) { this.missingSince.delete(name); continue; }
      for (const pod of pods) {
        if (pod.spec?.nodeName === name) doomed.push({ pod, condition: { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' } });
      }
      this.missingSince.delete(name);
    }
    for (const d of doomed) {
      if (this.stopped) return;
      await this.markFailedAndDelete(d.pod, d.condition);
    }
    if (nextCheck !== Infinity) this.schedule(nextCheck);
  }

  private async nodeGone(name: string): Promise<boolean> {
    try {
      await this.ctx.client.get(`/api/v1/nodes/${encodeURIComponent(name)}`);
      return false;
    } catch (err) {
      if (isNotFound(err)) return true;
      throw err;
    }
  }

  /** Upstream markFailedAndDeletePodWithCondition: phase Failed (unless finished), then a delete with grace 0. */
  private async markFailedAndDelete(pod: KubeObject, condition?: Record<string, string>): Promise<void> {
    const path = podPath(pod);
    try {
      if (!isTerminal(pod)) {
        const status: Record<string, unknown> = { phase: 'Failed' };
        if (condition) status['conditions'] = [{ ...condition, lastTransitionTime: now() }];
        await this.ctx.client.patchStatus(path, { metadata: { uid: pod.metadata.uid }, status }, 'strategic');
      }
      await this.ctx.client.delete(path, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } });
    } catch (err) {
      // Gone already, or replaced by a new pod of the same name: nothing of this pod is left to remove.
      if (isNotFound(err) || (err as { status?: number })?.status === 409) return;
      throw err;
    }
  }
}

export const podGcController: ControllerDefinition = {
  requires: [{ group: '', resource: 'nodes' }, { group: '', resource: 'pods' }],
  name: POD_GC_CONTROLLER,
  make: (ctx) => new PodGcController(ctx),
};
