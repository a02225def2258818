// The node lifecycle controller (upstream pkg/controller/nodelifecycle; spec 001 §3): watches Nodes,
// their heartbeat Leases (`node-lease/<node>`) and Pods, and
//   - every node-monitor-period, marks a node whose agent went silent: a node's probe time is when
//     its Ready condition's lastHeartbeatTime last changed or its Lease's renewTime last advanced;
//     past node-monitor-grace-period (node-startup-grace-period for a node that never posted a Ready
//     condition) Ready, MemoryPressure, DiskPressure and PIDPressure become Unknown
//     (`NodeStatusUnknown`, `Agent stopped posting node status.`; missing ones are added as
//     `NodeStatusNeverUpdated`, `Agent never posted node status.`), written with a guarded status
//     update; NetworkUnavailable is left alone;
//   - keeps the NoSchedule taints in step with the conditions (Ready False `not-ready`, Unknown
//     `unreachable`, MemoryPressure/DiskPressure/PIDPressure/NetworkUnavailable True, and
//     spec.unschedulable; all `node.orch.io/` keys), adding and removing them at once;
//   - adds the NoExecute `not-ready` / `unreachable` taint as soon as it observes Ready not True,
//     through a per-zone rate limiter (upstream's token buckets: --node-eviction-rate per healthy
//     zone, --secondary-node-eviction-rate in an unhealthy large zone, none in an unhealthy small
//     one), swaps the two directly, and removes both when Ready is True again; when every zone is
//     fully disrupted (no Ready node anywhere) it removes them all and stops, as upstream does (the
//     control plane, not the nodes, is then the likely fault);
//   - sets the Ready condition of the pods on a node to False when it turns the node's Ready from
//     True to something else (and for pods bound later to a node that is not Ready).
// Zones are the `topology.orch.io/region` and `topology.orch.io/zone` labels; nodes labelled
// `node.orch.io/exclude-disruption` do not count towards their zone's health. Events (best effort):
// RegisteredNode, RemovingNode, NodeNotReady on the node; NodeNotReady on each pod marked.
// Every write goes through the API: status with the resourceVersion read, taints with a PUT carrying
// the resourceVersion (a 409 reads the node again and recomputes), pod conditions with a status patch.
import { isConflict, isNotFound } from '../client/api-client.js';
import type { Informer, KubeObject } from '../client/informer.js';
import { keyOf, splitKey } from '../client/informer.js';
import { WorkQueue } from '../client/workqueue.js';
import type { Controller, ControllerContext, ControllerDefinition } from './controller.js';
import { TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE, type Taint } from '../taints.js';

export const NODE_LIFECYCLE_CONTROLLER = 'node-lifecycle-controller';

/** The namespace of the nodes' heartbeat Leases (spec 001 §2.2). */
const NODE_LEASE_NAMESPACE = 'node-lease';

export const TAINT_UNSCHEDULABLE = 'node.orch.io/unschedulable';

export type { Taint } from '../taints.js';

export const NOT_READY_NO_EXECUTE: Taint = { key: TAINT_NODE_NOT_READY, effect: 'NoExecute' };
export const UNREACHABLE_NO_EXECUTE: Taint = { key: TAINT_NODE_UNREACHABLE, effect: 'NoExecute' };

/** Condition type, then status, to the NoSchedule taint key it brings (upstream nodeConditionToTaintKeyStatusMap). */
const CONDITION_TAINTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Ready: { False: TAINT_NODE_NOT_READY, Unknown: TAINT_NODE_UNREACHABLE },
  MemoryPressure: { True: 'node.orch.io/memory-pressure' },
  DiskPressure: { True: 'node.orch.io/disk-pressure' },
  PIDPressure: { True: 'node.orch.io/pid-pressure' },
  NetworkUnavailable: { True: 'node.orch.io/network-unavailable' },
};
const CONDITION_TAINT_KEYS = new Set(Object.values(CONDITION_TAINTS).flatMap((m) => Object.values(m)));

/** The conditions set to Unknown when the agent falls silent (NetworkUnavailable is the network's business). */
const SILENCED_CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'] as const;

export const REGION_LABEL = 'topology.orch.io/region';
export const ZONE_LABEL = 'topology.orch.io/zone';
export const EXCLUDE_DISRUPTION_LABEL = 'node.orch.io/exclude-disruption';

/** How often the NoExecute tainting pass runs (upstream scheduler.NodeEvictionPeriod). */
const NODE_EVICTION_PERIOD_MS = 100;
/** A failed status write is retried this many times with a fresh read (upstream NodeHealthUpdateRetry). */
const HEALTH_UPDATE_RETRIES = 5;
const RETRY_SLEEP_MS = 20;
/** Nodes whose health is checked at once in a monitor pass. */
const MONITOR_CONCURRENCY = 8;

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

/** What the controller remembers of a node between passes (upstream nodeHealthData). */
interface Health {
  /** When the node last gave a sign of life, by this controller's clock (ms). */
  probeMs: number;
  /** The Ready condition as last seen (after this controller's own change), if any. */
  ready?: Condition;
  /** The Lease's renewTime last seen, in microseconds. */
  leaseRenewUs?: number;
}

type ZoneState = 'Initial' | 'Normal' | 'PartialDisruption' | 'FullDisruption';

/** metav1.Time now: RFC 3339, whole seconds. */
export function metaTime(ms = Date.now()): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** An RFC 3339 time (any precision) in microseconds since the epoch, or undefined. */
export function timeMicros(s: unknown): number | undefined {
  if (typeof s !== 'string') return undefined;
  const m = /^(\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/.exec(s);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}${m[3]!.toUpperCase() === 'Z' ? 'Z' : m[3]}`);
  if (Number.isNaN(ms)) return undefined;
  return ms * 1000 + Number(((m[2] ?? '') + '000000').slice(0, 6));
}

/** Upstream nodetopology.GetZoneKey: region and zone labels, "" when the node has neither. */
export function zoneKey(node: KubeObject): string {
  const labels = node.metadata.labels ?? {};
  const region = labels[REGION_LABEL] ?? '';
  const zone = labels[ZONE_LABEL] ?? '';
  return region === '' && zone === '' ? '' : `${region}:\u0000:${zone}`;
}

export function conditionOf(obj: KubeObject | undefined, type: string): Condition | undefined {
  return (obj?.status?.conditions ?? []).find((c: Condition) => c?.type === type);
}

const sameTaint = (a: Taint, b: Taint): boolean => a.key === b.key && a.effect === b.effect;
export const hasTaint = (node: KubeObject, t: Taint): boolean => (node.spec?.taints ?? []).some((x: Taint) => sameTaint(x, t));

/** A token bucket of burst 1 (client-go flowcontrol.NewTokenBucketRateLimiter(qps, 1)); qps 0 never accepts. */
class TokenBucket {
  private tokens = 1;
  private last = Date.now();
  constructor(readonly qps: number) {}
  tryAccept(): boolean {
    if (this.qps <= 0) return false;
    const now = Date.now();
    this.tokens = Math.min(1, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/**
 * Upstream's RateLimitedTimedQueue: node names waiting for their NoExecute taint, each processed once
 * (a processed name stays in the set, so it is not queued again, until `remove`).
 */
class ZoneTainter {
  private readonly due = new Map<string, number>();
  private readonly set = new Set<string>();
  constructor(private limiter: TokenBucket) {}

  add(name: string): boolean {
    if (this.set.has(name)) return false;
    this.set.add(name);
    this.due.set(name, Date.now());
    return true;
  }

  remove(name: string): void {
    this.set.delete(name);
    this.due.delete(name);
  }

  swapLimiter(qps: number): void {
    if (this.limiter.qps === qps) return;
    const next = new TokenBucket(qps);
    // Waiting on the old limiter: the new one starts drained too (upstream, for burst 1).
    if (qps > 0 && !this.limiter.tryAccept()) next.tryAccept();
    this.limiter = next;
  }

  /** Processes due names while the limiter allows; `fn` says done, or when to try again. */
  async try(fn: (name: string) => Promise<{ done: boolean; retryMs?: number }>): Promise<void> {
    for (;;) {
      let head: string | undefined;
      let at = Infinity;
      for (const [n, t] of this.due) if (t < at) { head = n; at = t; }
      if (head === undefined || Date.now() < at) return;
      if (!this.limiter.tryAccept()) return;
      const r = await fn(head);
      if (!this.due.has(head)) continue;
      if (r.done) this.due.delete(head);
      else this.due.set(head, Date.now() + (r.retryMs ?? 0) + 1);
    }
  }
}

/** Runs `fn` over `items`, `n` at a time. */
async function eachLimited<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) await fn(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

class NodeLifecycleController implements Controller {
  readonly name = NODE_LIFECYCLE_CONTROLLER;
  private readonly nodes: Informer;
  private readonly leases: Informer;
  private readonly pods: Informer;
  private readonly noScheduleQueue: WorkQueue;
  private readonly podQueue: WorkQueue;
  private readonly health = new Map<string, Health>();
  private readonly known = new Map<string, KubeObject>();
  private readonly zoneStates = new Map<string, ZoneState>();
  private readonly tainters = new Map<string, ZoneTainter>();
  /** Nodes whose pods could not all be marked not ready: tried again next pass. */
  private readonly podsToRetry = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(private readonly ctx: ControllerContext) {
    this.nodes = ctx.informers.for('/api/v1/nodes');
    this.leases = ctx.informers.for(`/apis/coordination.orch.io/v1/namespaces/${NODE_LEASE_NAMESPACE}/leases`);
    this.pods = ctx.informers.for('/api/v1/pods');
    this.pods.addIndex('node-lifecycle:nodeName', (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []));
    this.noScheduleQueue = new WorkQueue({ name: 'node_lifecycle_controller', metrics: ctx.queueMetrics });
    this.podQueue = new WorkQueue({ name: 'node_lifecycle_controller_pods', metrics: ctx.queueMetrics });
    this.nodes.addEventHandler({
      onAdd: (n) => this.noScheduleQueue.add(n.metadata.name),
      onUpdate: (_o, n) => this.noScheduleQueue.add(n.metadata.name),
      onDelete: (n) => this.podsToRetry.delete(n.metadata.name),
    });
    const podChanged = (old: KubeObject | undefined, pod: KubeObject) => {
      const node = pod.spec?.nodeName;
      if (node && (!old || old.spec?.nodeName !== node)) this.podQueue.add(keyOf(pod));
    };
    this.pods.addEventHandler({ onAdd: (p) => podChanged(undefined, p), onUpdate: podChanged });
  }

  private get settings() { return this.ctx.settings; }
  /** Errors after stop() come from the shutdown (requests cut short): not worth a line. */
  private log(message: string, err?: unknown): void { if (!this.stopped) this.ctx.log(message, err); }
  private breaks(rule: string): boolean { return this.ctx.breaks.has(`node-lifecycle.${rule}`); }

  run(): void {
    const onError = (key: string, err: unknown) => this.log(`${key}: ${(err as Error)?.message ?? err}`);
    void this.noScheduleQueue.run(4, (name) => this.doNoScheduleTaintingPass(name), onError);
    void this.podQueue.run(4, (key) => this.processPod(key), onError);
    this.every(this.settings.nodeMonitorPeriodMs, () => this.monitorNodeHealth());
    this.every(NODE_EVICTION_PERIOD_MS, () => this.doNoExecuteTaintingPass());
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.noScheduleQueue.shutDown();
    this.podQueue.shutDown();
  }

  /** Runs `fn` now and then `ms` after each run ends (wait.Until, sliding). */
  private every(ms: number, fn: () => Promise<void>): void {
    const tick = async () => {
      if (this.stopped) return;
      try {
        await fn();
      } catch (err) {
        this.log('pass failed', err);
      }
      if (this.stopped) return;
      const t = setTimeout(() => { this.timers.delete(t); void tick(); }, ms);
      this.timers.add(t);
    };
    void tick();
  }

  private nodePath(name: string): string {
    return `/api/v1/nodes/${encodeURIComponent(name)}`;
  }

  private record(obj: KubeObject, kind: 'Node' | 'Pod', type: 'Normal' | 'Warning', reason: string, action: string, note: string): void {
    this.ctx.events.record({ ...obj, apiVersion: 'v1', kind }, type, reason, action, note);
  }

  // ---- NoSchedule taints from conditions (upstream doNoScheduleTaintingPass) ----

  private async doNoScheduleTaintingPass(name: string): Promise<void> {
    const node = this.nodes.get('', name);
    if (!node) return;
    const want: Taint[] = [];
    for (const c of node.status?.conditions ?? []) {
      const key = CONDITION_TAINTS[c?.type]?.[c?.status];
      if (key) want.push({ key, effect: 'NoSchedule' });
    }
    if (node.spec?.unschedulable) want.push({ key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' });
    const have: Taint[] = (node.spec?.taints ?? []).filter((t: Taint) => t.effect === 'NoSchedule' && (t.key === TAINT_UNSCHEDULABLE || CONDITION_TAINT_KEYS.has(t.key)));
    // Test-only (breaks): the control plane never adds this taint.
    const wanted = want.filter((t) => !(this.breaks('no-unreachable-taint') && t.key === TAINT_NODE_UNREACHABLE) && !(this.breaks('no-not-ready-taint') && t.key === TAINT_NODE_NOT_READY));
    const add = wanted.filter((t) => !have.some((h) => sameTaint(h, t)));
    // Test-only (breaks): the not-ready and unreachable taints stay after Ready comes back.
    const del = have.filter((h) => !wanted.some((t) => sameTaint(h, t)) && !(this.breaks('keep-taints') && (h.key === TAINT_NODE_NOT_READY || h.key === TAINT_NODE_UNREACHABLE)));
    if (add.length === 0 && del.length === 0) return;
    if (!(await this.swapTaints(node, add, del))) throw new Error(`failed to swap NoSchedule taints of node ${name}`);
  }

  /**
   * Adds `add` (stamped timeAdded = now) and removes `del` (matched by key and effect) in one PUT
   * carrying the node's resourceVersion; a conflict reads the node again (upstream
   * SwapNodeControllerTaint with RetryOnConflict). False when it could not be written.
   */
  private async swapTaints(node: KubeObject, add: readonly Taint[], del: readonly Taint[]): Promise<boolean> {
    const path = this.nodePath(node.metadata.name);
    let cur: KubeObject = node;
    for (let attempt = 0; attempt < HEALTH_UPDATE_RETRIES; attempt++) {
      if (attempt > 0) {
        try {
          cur = await this.ctx.client.get(path);
        } catch (err) {
          if (isNotFound(err)) return true;
          this.log(`reading node ${node.metadata.name}`, err);
          return false;
        }
      }
      const taints: Taint[] = cur.spec?.taints ?? [];
      const next = taints.filter((t) => !del.some((d) => sameTaint(d, t)));
      const now = metaTime();
      for (const a of add) {
        const i = next.findIndex((t) => sameTaint(t, a));
        if (i < 0) next.push({ ...a, timeAdded: now });
        else if ((next[i]!.value ?? '') !== (a.value ?? '')) next[i] = { ...a, timeAdded: now };
      }
      if (next.length === taints.length && next.every((t, i) => t === taints[i])) return true;
      const spec = { ...cur.spec, taints: next };
      if (next.length === 0) delete spec.taints;
      try {
        await this.ctx.client.update(path, { ...cur, apiVersion: 'v1', kind: 'Node', spec });
        return true;
      } catch (err) {
        if (isNotFound(err)) return true;
        if (!isConflict(err)) {
          this.log(`updating the taints of node ${node.metadata.name}`, err);
          return false;
        }
      }
    }
    return false;
  }

  // ---- NoExecute taints through the zone rate limiters (upstream doNoExecuteTaintingPass) ----

  private tainterFor(zone: string): ZoneTainter {
    let t = this.tainters.get(zone);
    if (!t) this.tainters.set(zone, (t = new ZoneTainter(new TokenBucket(this.settings.nodeEvictionRate))));
    return t;
  }

  private async doNoExecuteTaintingPass(): Promise<void> {
    for (const tainter of [...this.tainters.values()]) {
      await tainter.try(async (name) => {
        const node = this.nodes.get('', name);
        if (!node) return { done: true };
        const ready = conditionOf(node, 'Ready');
        if (!ready) return { done: false, retryMs: 50 };
        // The two are exclusive, as Ready's statuses are.
        let add: Taint;
        let opposite: Taint;
        if (ready.status === 'False') [add, opposite] = [NOT_READY_NO_EXECUTE, UNREACHABLE_NO_EXECUTE];
        else if (ready.status === 'Unknown') [add, opposite] = [UNREACHABLE_NO_EXECUTE, NOT_READY_NO_EXECUTE];
        else return { done: true };
        // Test-only (breaks): no NoExecute taint at all, or never this one.
        if (this.breaks('no-noexecute-taint') || this.noTaint(add)) return { done: true };
        return { done: await this.swapTaints(node, [add], [opposite]) };
      });
    }
  }

  /** Test-only (breaks): whether the switches say never to add `t`. */
  private noTaint(t: Taint): boolean {
    return (this.breaks('no-unreachable-taint') && t.key === TAINT_NODE_UNREACHABLE) || (this.breaks('no-not-ready-taint') && t.key === TAINT_NODE_NOT_READY);
  }

  /** Queues the node for its NoExecute taint (again, when the taint is missing). */
  private markNodeForTainting(node: KubeObject, status: 'False' | 'Unknown'): void {
    const tainter = this.tainterFor(zoneKey(node));
    if (!hasTaint(node, status === 'False' ? NOT_READY_NO_EXECUTE : UNREACHABLE_NO_EXECUTE)) tainter.remove(node.metadata.name);
    tainter.add(node.metadata.name);
  }

  /** Removes both NoExecute taints and forgets the node's queued tainting; true when it removed one. */
  private async markNodeAsReachable(node: KubeObject): Promise<boolean> {
    this.tainterFor(zoneKey(node)).remove(node.metadata.name);
    // Test-only (breaks): the taints stay after Ready comes back.
    if (this.breaks('keep-taints')) return false;
    const present = [UNREACHABLE_NO_EXECUTE, NOT_READY_NO_EXECUTE].filter((t) => hasTaint(node, t));
    if (present.length === 0) return false;
    if (!(await this.swapTaints(node, [], present))) throw new Error(`failed to remove the NoExecute taints of node ${node.metadata.name}`);
    return true;
  }

  private async processTaintBaseEviction(node: KubeObject, observed: Condition): Promise<void> {
    switch (observed.status) {
      case 'False':
        if (hasTaint(node, UNREACHABLE_NO_EXECUTE) && !this.noTaint(NOT_READY_NO_EXECUTE) && !this.breaks('no-noexecute-taint')) {
          await this.swapTaints(node, [NOT_READY_NO_EXECUTE], [UNREACHABLE_NO_EXECUTE]);
        } else {
          this.markNodeForTainting(node, 'False');
        }
        break;
      case 'Unknown':
        if (hasTaint(node, NOT_READY_NO_EXECUTE) && !this.noTaint(UNREACHABLE_NO_EXECUTE) && !this.breaks('no-noexecute-taint')) {
          await this.swapTaints(node, [UNREACHABLE_NO_EXECUTE], [NOT_READY_NO_EXECUTE]);
        } else {
          this.markNodeForTainting(node, 'Unknown');
        }
        break;
      case 'True':
        await this.markNodeAsReachable(node).catch((err) => this.log('removing NoExecute taints', err));
        break;
    }
  }

  // ---- node health (upstream monitorNodeHealth, tryUpdateNodeHealth) ----

  private async monitorNodeHealth(): Promise<void> {
    const nodes = this.nodes.list();
    const present = new Set(nodes.map((n) => n.metadata.name));
    for (const n of nodes) {
      const zone = zoneKey(n);
      if (!this.zoneStates.has(zone)) this.zoneStates.set(zone, 'Initial');
      this.tainterFor(zone);
      if (!this.known.has(n.metadata.name)) {
        this.known.set(n.metadata.name, n);
        this.record(n, 'Node', 'Normal', 'RegisteredNode', 'Register', `Registered Node ${n.metadata.name} in Controller`);
        await this.markNodeAsReachable(n).catch((err) => this.log('removing NoExecute taints', err));
      }
    }
    for (const [name, n] of [...this.known]) {
      if (present.has(name)) continue;
      this.known.delete(name);
      this.health.delete(name);
      this.tainters.get(zoneKey(n))?.remove(name);
      this.record(n, 'Node', 'Normal', 'RemovingNode', 'Remove', `Removing Node ${name} from Controller`);
    }

    const zoneReady = new Map<string, Array<string | undefined>>();
    await eachLimited(nodes, MONITOR_CONCURRENCY, async (listed) => {
      const r = await this.updateHealthWithRetry(listed);
      if (!r) return;
      const { node, observed, current } = r;
      const name = node.metadata.name;
      if (!(EXCLUDE_DISRUPTION_LABEL in (node.metadata.labels ?? {}))) {
        const zone = zoneKey(node);
        if (!zoneReady.has(zone)) zoneReady.set(zone, []);
        zoneReady.get(zone)!.push(current?.status);
      }
      if (current) {
        await this.processTaintBaseEviction(node, observed);
        const leftTrue = current.status !== 'True' && observed.status === 'True';
        if (leftTrue) this.record(node, 'Node', 'Normal', 'NodeNotReady', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
        if (leftTrue || (this.podsToRetry.has(name) && observed.status !== 'True')) {
          try {
            await this.markPodsNotReady(this.pods.byIndex('node-lifecycle:nodeName', name), name);
          } catch (err) {
            this.log(`marking the pods of node ${name} not ready; will retry`, err);
            this.podsToRetry.add(name);
            return;
          }
        }
      }
      this.podsToRetry.delete(name);
    });
    await this.handleDisruption(zoneReady, nodes);
  }

  /** tryUpdateNodeHealth, retried with a fresh read after a failed write; undefined when it kept failing. */
  private async updateHealthWithRetry(listed: KubeObject): Promise<{ node: KubeObject; observed: Condition; current?: Condition } | undefined> {
    let node = listed;
    for (let attempt = 0; attempt < HEALTH_UPDATE_RETRIES; attempt++) {
      try {
        return { node, ...(await this.tryUpdateNodeHealth(node)) };
      } catch (err) {
        if (!isConflict(err)) this.log(`updating the health of node ${node.metadata.name}`, err);
        await sleep(RETRY_SLEEP_MS);
        try {
          node = await this.ctx.client.get(this.nodePath(listed.metadata.name));
        } catch (e) {
          if (!isNotFound(e)) this.log(`reading node ${listed.metadata.name}`, e);
          return undefined;
        }
      }
    }
    this.log(`the health of node ${listed.metadata.name} could not be updated; no pods will be evicted`);
    return undefined;
  }

  private async tryUpdateNodeHealth(node: KubeObject): Promise<{ observed: Condition; current?: Condition }> {
    const name = node.metadata.name;
    const now = Date.now();
    const created: string | undefined = node.metadata.creationTimestamp;
    let health = this.health.get(name);
    let current = conditionOf(node, 'Ready');
    let observed: Condition;
    let grace: number;
    if (!current) {
      // Never posted: a made-up Unknown condition dated at creation, and the startup grace period.
      observed = { type: 'Ready', status: 'Unknown', lastHeartbeatTime: created, lastTransitionTime: created };
      grace = this.settings.nodeStartupGracePeriodMs;
      if (health) health = { ...health, ready: undefined };
      else health = { probeMs: timeMicros(created) !== undefined ? timeMicros(created)! / 1000 : now };
    } else {
      observed = { ...current };
      grace = this.settings.nodeMonitorGracePeriodMs;
    }
    // Test-only (breaks): Unknown long before the grace period has passed.
    if (this.breaks('early-unknown')) grace /= 4;
    const saved = health?.ready;
    if (!health || (!saved && current) || (saved && current && saved.lastHeartbeatTime !== current.lastHeartbeatTime)) {
      // First sight, first Ready condition, or a new heartbeat in the status.
      health = { probeMs: now, ready: current, leaseRenewUs: health?.leaseRenewUs };
    } else {
      health = { ...health, ready: current };
    }
    // A renewed Lease is a heartbeat too (upstream: always, even for a node that never posted status).
    const lease = this.leases.get(NODE_LEASE_NAMESPACE, name);
    const renew = timeMicros(lease?.spec?.renewTime);
    // Test-only (breaks): Lease renewals are not heartbeats.
    if (renew !== undefined && (health.leaseRenewUs === undefined || health.leaseRenewUs < renew) && !this.breaks('ignore-lease')) {
      health = { ...health, probeMs: now, leaseRenewUs: renew };
    }
    this.health.set(name, health);

    // Test-only (breaks): the controller never notices a silent node.
    if (now <= health.probeMs + grace || this.breaks('no-unknown')) return { observed, current };
    const stamp = metaTime(now);
    const conditions: Condition[] = structuredClone(node.status?.conditions ?? []);
    for (const type of SILENCED_CONDITIONS) {
      const c = conditions.find((x) => x?.type === type);
      if (!c) {
        conditions.push({ type, status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Agent never posted node status.', lastHeartbeatTime: created, lastTransitionTime: stamp });
      } else if (c.status !== 'Unknown') {
        c.status = 'Unknown';
        // Test-only (breaks): a reason and message of its own instead of upstream's.
        c.reason = this.breaks('wrong-unknown-reason') ? 'NodeSilent' : 'NodeStatusUnknown';
        c.message = this.breaks('wrong-unknown-reason') ? 'The node is silent.' : 'Agent stopped posting node status.';
        c.lastTransitionTime = stamp;
      }
    }
    current = conditions.find((x) => x.type === 'Ready');
    if (JSON.stringify(current) === JSON.stringify(observed)) return { observed, current };
    await this.ctx.client.updateStatus(this.nodePath(name), { ...node, apiVersion: 'v1', kind: 'Node', status: { ...node.status, conditions } });
    this.health.set(name, { ...health, ready: current });
    return { observed, current };
  }

  // ---- zones (upstream handleDisruption, ComputeZoneState) ----

  private zoneState(statuses: ReadonlyArray<string | undefined>): ZoneState {
    const ready = statuses.filter((s) => s === 'True').length;
    const notReady = statuses.length - ready;
    if (ready === 0 && notReady > 0) return 'FullDisruption';
    if (notReady > 2 && notReady / statuses.length >= this.settings.unhealthyZoneThreshold) return 'PartialDisruption';
    return 'Normal';
  }

  private setLimiterInZone(zone: string, size: number, state: ZoneState): void {
    const s = this.settings;
    const qps = state === 'PartialDisruption' ? (size > s.largeClusterSizeThreshold ? s.secondaryNodeEvictionRate : 0) : s.nodeEvictionRate;
    this.tainterFor(zone).swapLimiter(qps);
  }

  private async handleDisruption(zoneReady: Map<string, Array<string | undefined>>, nodes: readonly KubeObject[]): Promise<void> {
    const next = new Map<string, ZoneState>();
    let allFull = true;
    for (const [zone, statuses] of zoneReady) {
      const state = this.zoneState(statuses);
      if (state !== 'FullDisruption') allFull = false;
      next.set(zone, state);
      if (!this.zoneStates.has(zone)) this.zoneStates.set(zone, 'Initial');
    }
    let allWereFull = true;
    for (const [zone, state] of [...this.zoneStates]) {
      if (!zoneReady.has(zone)) {
        this.zoneStates.delete(zone);
        continue;
      }
      if (state !== 'FullDisruption') {
        allWereFull = false;
        break;
      }
    }
    if (allFull && allWereFull) return;
    if (allFull) {
      // Every node is not Ready: full disruption mode (no NoExecute taints).
      for (const n of nodes) await this.markNodeAsReachable(n).catch((err) => this.log('removing NoExecute taints', err));
      for (const zone of this.zoneStates.keys()) {
        this.tainterFor(zone).swapLimiter(0);
        this.zoneStates.set(zone, 'FullDisruption');
      }
      return;
    }
    if (allWereFull) {
      // Some node is Ready again: leaving full disruption mode, every node's grace period starts over.
      const now = Date.now();
      for (const n of nodes) {
        const h = this.health.get(n.metadata.name);
        if (h) this.health.set(n.metadata.name, { ...h, probeMs: now });
      }
      for (const zone of this.zoneStates.keys()) {
        this.setLimiterInZone(zone, zoneReady.get(zone)?.length ?? 0, next.get(zone)!);
        this.zoneStates.set(zone, next.get(zone)!);
      }
      return;
    }
    for (const [zone, state] of this.zoneStates) {
      const now = next.get(zone)!;
      if (state === now) continue;
      this.setLimiterInZone(zone, zoneReady.get(zone)?.length ?? 0, now);
      this.zoneStates.set(zone, now);
    }
  }

  // ---- pods (upstream processPod, MarkPodsNotReady) ----

  private async processPod(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const pod = this.pods.get(namespace, name);
    if (!pod) return;
    const nodeName: string = pod.spec?.nodeName;
    const health = this.health.get(nodeName);
    if (!health) return;
    if (!this.nodes.get('', nodeName)) throw new Error(`node ${nodeName} of pod ${key} not in the cache yet`);
    if (!health.ready) return;
    if (health.ready.status !== 'True') await this.markPodsNotReady([pod], nodeName);
  }

  /** Sets the Ready condition of each pod on `nodeName` that has one to False (status patch). */
  private async markPodsNotReady(pods: readonly KubeObject[], nodeName: string): Promise<void> {
    // Test-only (breaks): pods on a node gone not Ready keep their Ready condition.
    if (this.breaks('no-pod-not-ready')) return;
    const errors: unknown[] = [];
    for (const pod of pods) {
      if (pod.spec?.nodeName !== nodeName) continue;
      const ready = conditionOf(pod, 'Ready');
      if (!ready || ready.status === 'False') continue;
      const path = `/api/v1/namespaces/${encodeURIComponent(pod.metadata.namespace!)}/pods/${encodeURIComponent(pod.metadata.name)}`;
      try {
        await this.ctx.client.patchStatus(path, { metadata: { uid: pod.metadata.uid }, status: { conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: metaTime() }] } }, 'strategic');
      } catch (err) {
        if (isNotFound(err)) continue;
        errors.push(err);
        continue;
      }
      this.record(pod, 'Pod', 'Warning', 'NodeNotReady', 'MarkNotReady', 'Node is not ready');
    }
    if (errors.length) throw errors[0];
  }
}

export const nodeLifecycleController: ControllerDefinition = {
  requires: [{ group: '', resource: 'nodes' }, { group: 'coordination.orch.io', resource: 'leases' }, { group: '', resource: 'pods' }],
  name: NODE_LIFECYCLE_CONTROLLER,
  make: (ctx) => new NodeLifecycleController(ctx),
};
