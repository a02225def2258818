// The scheduler (upstream kube-scheduler, one profile `default-scheduler`): a client of the API server
// it is pointed at, with its own HTTPS port serving spec 002's endpoints as `orch-scheduler`.
//
// It watches pods, nodes and (when the API serves them: GenericWorkload) PodGroups, and binds each
// pending pod of its own (empty spec.nodeName, schedulerName default-scheduler, not terminating, not
// terminal, no scheduling gates) through the pods `binding` subresource to the node that fits it best
// (filters.ts), assuming it there before the binding returns. A pod that fits nowhere gets
// PodScheduled=False/Unschedulable with upstream's message, may preempt lower-priority pods
// (preemption.ts), and waits until a node or pod changes (queue.ts). Pods of a gang PodGroup are
// scheduled together, all or nothing (gang.ts), and the scheduler writes the PodGroup conditions of
// spec 000 §3.2 (status.ts). Scoring is least-allocated plus preferred node affinity; a preferred
// term it cannot parse fails the cycle with SchedulerError, as upstream's PreScore does. Choices where
// upstream is richer (no pod affinity, topology spread, volumes or ports) are listed in
// reference/README.md.
import { ApiClient, isConflict, isNotFound, waitForApiServer } from '../client/api-client.js';
import { InformerFactory, keyOf, splitKey, type Informer, type KubeObject } from '../client/informer.js';
import { FeatureGates } from '../features.js';
import { namedCheck, type HealthFaults } from '../observability/health.js';
import type { ComponentMetrics } from '../observability/metrics.js';
import { startComponentServer, type ComponentServe } from '../components/component-server.js';
import { componentRequestAuth } from '../components/request-auth.js';
import type { ApiConnection } from '../controllers/manager.js';
import { eventRecorder, type EventRecorder } from '../controllers/events.js';
import { isTerminal, SchedulerCache, Simulation, type PlacedPod } from './cache.js';
import {
  ConstraintError, fitErrorMessage, fitReasons, leastAllocatedScore, podRequests, preferredTerms, resolvableByPreemption, resourceList, type Resources,
} from './filters.js';
import { gangOrder, isGang, planGang, WAITING_FOR_MIN_COUNT, WAITING_FOR_PREEMPTION, waitingForPodGroup, type GangMember, type PlaceResult, type Placement } from './gang.js';
import { noCandidateMessage, pickCandidate, preemptionMessage, victimsOnNode, type Candidate } from './preemption.js';
import { SchedulingQueue } from './queue.js';
import { DISRUPTION_TARGET, INITIALLY_SCHEDULED, PODGROUPS_PATH, StatusWriter } from './status.js';
import { componentLog } from '../log.js';

export const SCHEDULER_COMPONENT = 'orch-scheduler';
export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

export interface SchedulerOptions {
  readonly api: ApiConnection;
  readonly featureGates?: FeatureGates;
  /** Where the HTTPS endpoints listen; `false`: none. Default 127.0.0.1, ephemeral port. */
  readonly serve?: ComponentServe;
  readonly flags?: Readonly<Record<string, string>>;
  readonly healthFaults?: HealthFaults;
  /** Test-only: named ways to break the scheduler in exactly one rule (test/proof/controllers-scheduler.ts). */
  readonly breaks?: ReadonlySet<string>;
  readonly log?: (message: string, err?: unknown) => void;
}

export interface RunningScheduler {
  readonly url?: string;
  readonly caPem?: string;
  close(): Promise<void>;
}

export async function startScheduler(o: SchedulerOptions): Promise<RunningScheduler> {
  const say = o.log ?? componentLog('scheduler');
  // Writes still in flight when the scheduler closes fail with the connection: nothing to report.
  let closed = false;
  const log = (m: string, e?: unknown) => { if (!closed) say(m, e); };
  const gates = o.featureGates ?? new FeatureGates();
  const client = new ApiClient({ url: o.api.url, token: o.api.token, caPem: o.api.caPem, userAgent: 'orch-scheduler' });
  const informers = new InformerFactory(client, log);
  let synced = false;
  const server = o.serve === false ? undefined : await startComponentServer({
    name: SCHEDULER_COMPONENT,
    host: o.serve?.host,
    port: o.serve?.port,
    tls: o.serve?.tls,
    featureGates: gates,
    flags: o.flags ?? { 'bind-address': o.serve?.host ?? '127.0.0.1', 'secure-port': String(o.serve?.port ?? 0) },
    config: { componentconfig: { profiles: [{ schedulerName: DEFAULT_SCHEDULER_NAME }], featureGates: gates.all() } },
    apiClient: client,
    // Callers are checked by delegation to the API server, with this component's own client.
    auth: o.serve?.delegatedAuth === false ? undefined : componentRequestAuth({ api: client, log }),
    readyChecks: [namedCheck('sched-handler-sync', () => { if (!synced) throw new Error('scheduler informers have not synced yet'); })],
    healthFaults: o.healthFaults,
  });
  let scheduler: Scheduler;
  try {
    await waitForApiServer(client, log);
    scheduler = new Scheduler({
      client, informers, log,
      podGroups: await podGroupsServed(client, gates),
      breaks: o.breaks ?? new Set(),
      metrics: server?.metrics,
      // Events are best effort: one about a pod whose namespace just went away is no news.
      events: eventRecorder(eventSink(client), DEFAULT_SCHEDULER_NAME, `${SCHEDULER_COMPONENT}-${process.pid}`, (m, e) => { if (!isNotFound(e)) log(m, e); }),
    });
    await informers.start();
  } catch (err) {
    informers.stop();
    client.close();
    await server?.close();
    throw err;
  }
  synced = true;
  scheduler.run();
  let closing: Promise<void> | undefined;
  return {
    url: server?.url,
    caPem: server?.caPem,
    close: () => (closing ??= (async () => {
      closed = true;
      scheduler.stop();
      informers.stop();
      client.close();
      await server?.close();
    })()),
  };
}

/**
 * The client events go out through, as upstream's event broadcaster sends them: one at a time, in the
 * background, at most 1000 waiting (more are dropped), so they never hold up bindings.
 */
function eventSink(client: ApiClient): ApiClient {
  let tail: Promise<unknown> = Promise.resolve();
  let waiting = 0;
  const sink = Object.create(client) as ApiClient;
  sink.create = <T>(path: string, obj: unknown): Promise<T> => {
    if (waiting >= 1000) return Promise.reject(new Error('event queue full: event dropped'));
    waiting++;
    const sent = tail.then(() => client.create<T>(path, obj)).finally(() => waiting--);
    tail = sent.catch(() => undefined);
    return sent;
  };
  return sink;
}

/**
 * Whether the API serves PodGroups (discovery of scheduling.orch.io/v1beta1), so the scheduler works
 * against any API server; the scheduler's own GenericWorkload gate when discovery cannot be read.
 */
async function podGroupsServed(client: ApiClient, gates: FeatureGates): Promise<boolean> {
  try {
    const list = await client.get<{ resources?: Array<{ name?: string }> }>(PODGROUPS_PATH);
    return (list.resources ?? []).some((r) => r.name === 'podgroups');
  } catch (err) {
    if (isNotFound(err)) return false;
    return gates.enabled('GenericWorkload');
  }
}

interface SchedulerDeps {
  readonly client: ApiClient;
  readonly informers: InformerFactory;
  readonly podGroups: boolean;
  readonly breaks: ReadonlySet<string>;
  readonly log: (message: string, err?: unknown) => void;
  readonly metrics?: ComponentMetrics;
  readonly events?: EventRecorder;
}

/** Bindings in flight at once (upstream binds each pod in a goroutine of its own). */
const MAX_BINDINGS_IN_FLIGHT = 64;
const PROFILE = DEFAULT_SCHEDULER_NAME;
const groupIndexKey = (namespace: string, name: string) => `${namespace}/${name}`;

interface Nomination {
  readonly node: string;
  readonly requests: Resources;
  readonly priority: number;
}

interface FindResult {
  readonly node?: string;
  readonly total: number;
  readonly reasonsByNode: Map<string, string[]>;
}

export class Scheduler {
  private readonly pods: Informer;
  private readonly nodes: Informer;
  private readonly podGroups?: Informer;
  private readonly cache = new SchedulerCache();
  private readonly queue = new SchedulingQueue();
  private readonly status: StatusWriter;
  private readonly nominated = new Map<string, Nomination>();
  /** Victims whose deletion was asked for, by key, with their node: not victims twice, and waited for. */
  private readonly preempting = new Map<string, string>();
  private readonly allocatable = new Map<string, { rv?: string; list: Resources }>();
  /** Test-only (breaks): minCount as first seen, for `scheduler.min-count-cached`. */
  private readonly firstMinCount = new Map<string, number>();
  private inFlight = 0;
  private readonly slotWaiters: Array<() => void> = [];
  private stopped = false;
  private readonly m?: ReturnType<typeof schedulerMetrics>;

  constructor(private readonly d: SchedulerDeps) {
    this.pods = d.informers.for('/api/v1/pods');
    this.nodes = d.informers.for('/api/v1/nodes');
    if (d.podGroups) this.podGroups = d.informers.for(`${PODGROUPS_PATH}/podgroups`);
    this.status = new StatusWriter(d.client, this.pods, () => this.podGroups, d.log);
    this.pods.addIndex('group', (p) => {
      const g = p.spec?.schedulingGroup?.podGroupName;
      return typeof g === 'string' && g ? [groupIndexKey(p.metadata.namespace ?? '', g)] : [];
    });
    if (d.metrics) this.m = schedulerMetrics(d.metrics, this);

    this.pods.addEventHandler({
      onAdd: (p) => this.podChanged(undefined, p),
      onUpdate: (old, p) => this.podChanged(old, p),
      onDelete: (p) => this.podDeleted(p),
    });
    this.nodes.addEventHandler({
      onAdd: () => this.queue.moveAll(),
      onUpdate: (old, n) => { if (nodeChanged(old, n)) this.queue.moveAll(); },
      onDelete: (n) => this.allocatable.delete(n.metadata.name),
    });
    this.podGroups?.addEventHandler({
      onAdd: (pg) => this.podGroupChanged(pg),
      onUpdate: (old, pg) => { if (JSON.stringify(old.spec) !== JSON.stringify(pg.spec)) this.podGroupChanged(pg); },
      onDelete: (pg) => {
        this.status.forgetPodGroup(keyOf(pg));
        this.queue.delete(`g:${keyOf(pg)}`);
        this.podGroupChanged(pg);
      },
    });
  }

  private has(rule: string): boolean {
    return this.d.breaks.has(`scheduler.${rule}`);
  }

  run(): void {
    void this.loop();
  }

  stop(): void {
    this.stopped = true;
    this.queue.close();
    for (const w of this.slotWaiters.splice(0)) w();
  }

  // ---- events ----

  /** Is this a pod this scheduler should place now? */
  isPending(p: KubeObject): boolean {
    const spec = p.spec ?? {};
    return !spec.nodeName
      && (!spec.schedulerName || spec.schedulerName === DEFAULT_SCHEDULER_NAME)
      && !p.metadata.deletionTimestamp
      && !isTerminal(p)
      && !(spec.schedulingGates?.length > 0);
  }

  private podChanged(old: KubeObject | undefined, p: KubeObject): void {
    this.cache.observe(p);
    const key = keyOf(p);
    if (!this.isPending(p)) {
      this.queue.delete(`p:${key}`);
      if (p.spec?.nodeName) this.nominated.delete(key);
      // A pod that ends frees its node.
      if (old && isTerminal(p) && !isTerminal(old)) this.queue.moveAll();
      return;
    }
    // A status-only change (the scheduler's own PodScheduled write) is no reason to try again.
    if (old && this.isPending(old) && JSON.stringify(old.spec) === JSON.stringify(p.spec) && JSON.stringify(old.metadata.labels) === JSON.stringify(p.metadata.labels)) return;
    this.enqueuePod(p);
  }

  private podDeleted(p: KubeObject): void {
    const key = keyOf(p);
    const freed = !!this.cache.get(key) || this.nominated.has(key);
    this.cache.remove(key);
    this.nominated.delete(key);
    this.preempting.delete(key);
    this.queue.delete(`p:${key}`);
    this.status.forgetPod(key);
    if (freed) this.queue.moveAll();
  }

  private podGroupChanged(pg: KubeObject): void {
    for (const p of this.pods.byIndex('group', groupIndexKey(pg.metadata.namespace ?? '', pg.metadata.name))) {
      if (this.isPending(p)) this.enqueuePod(p);
    }
  }

  /** The queue unit of a pending pod: its gang (`g:ns/group`) or itself (`p:ns/name`). */
  private unitOf(p: KubeObject): string {
    const g = this.groupOf(p);
    if (g?.pg && (isGang(g.pg) || this.has('basic-held')) && !this.has('gang-bind-partial')) return `g:${groupIndexKey(p.metadata.namespace ?? '', g.name)}`;
    return `p:${keyOf(p)}`;
  }

  private enqueuePod(p: KubeObject): void {
    const unit = this.unitOf(p);
    if (unit.startsWith('g:')) this.queue.delete(`p:${keyOf(p)}`);
    this.queue.add(unit, this.unitPriority(unit));
  }

  /** The PodGroup a pod names, when the API serves PodGroups. */
  private groupOf(p: KubeObject): { name: string; pg?: KubeObject } | undefined {
    if (!this.podGroups) return undefined;
    const name = p.spec?.schedulingGroup?.podGroupName;
    if (typeof name !== 'string' || !name) return undefined;
    return { name, pg: this.podGroups.get(p.metadata.namespace ?? '', name) };
  }

  /** Higher first. A pod of a PodGroup takes the group's spec.priority, else its own spec.priority; 0 without. */
  priorityOf(p: KubeObject): number {
    const pg = this.groupOf(p)?.pg;
    const v = Number(pg?.spec?.priority ?? p.spec?.priority ?? 0) || 0;
    // Test-only (breaks): `scheduler.priority-inverted` orders and preempts lowest priority first.
    return this.has('priority-inverted') ? -v : v;
  }

  private groupPriority(pg: KubeObject, members: readonly KubeObject[]): number {
    const own = pg.spec?.priority;
    const v = own !== undefined ? Number(own) || 0 : Math.max(0, ...members.map((p) => Number(p.spec?.priority ?? 0) || 0));
    // Test-only (breaks): `scheduler.priority-inverted`.
    return this.has('priority-inverted') ? -v : v;
  }

  private unitPriority(unit: string): number {
    const key = unit.slice(2);
    if (unit.startsWith('p:')) {
      const p = this.pods.getByKey(key);
      return p ? this.priorityOf(p) : 0;
    }
    const { namespace, name } = splitKey(key);
    const pg = this.podGroups?.get(namespace, name);
    return pg ? this.groupPriority(pg, this.members(namespace, name)) : 0;
  }

  private members(namespace: string, group: string): KubeObject[] {
    return this.pods.byIndex('group', groupIndexKey(namespace, group)).filter((p) => !p.metadata.deletionTimestamp && !isTerminal(p));
  }

  // ---- the scheduling loop ----

  private async loop(): Promise<void> {
    let slice = performance.now();
    for (;;) {
      const u = await this.queue.pop();
      if (!u || this.stopped) return;
      const seq = this.queue.moveSeq;
      const started = performance.now();
      try {
        if (u.key.startsWith('g:')) await this.scheduleGang(u.key.slice(2), seq, started);
        else await this.schedulePod(u.key.slice(2), seq, started);
      } catch (err) {
        this.d.log(`scheduling ${u.key} failed`, err);
        this.m?.attempt('error', started);
        this.queue.retryLater(u.key, u.priority, 1_000);
      }
      // Attempts are synchronous and short: after a few ms of them, let informer events and binding
      // answers in (one attempt per turn of the event loop would cap the rate at the loop's pace).
      if (performance.now() - slice > 5) {
        await new Promise<void>((r) => setImmediate(r));
        slice = performance.now();
      }
    }
  }

  private allocatableOf(node: KubeObject): Resources {
    const cur = this.allocatable.get(node.metadata.name);
    if (cur && cur.rv === node.metadata.resourceVersion) return cur.list;
    const list = resourceList(node.status?.allocatable);
    this.allocatable.set(node.metadata.name, { rv: node.metadata.resourceVersion, list });
    return list;
  }

  /** Requests of the pods nominated to `node` with at least `priority`, other than `self`. */
  private nominatedOn(node: string, priority: number, self: string): { requests: Resources; pods: number } | undefined {
    // Called for every node of every attempt: without nominations (no preemption pending), nothing to add.
    if (this.nominated.size === 0) return undefined;
    let out: { requests: Resources; pods: number } | undefined;
    for (const [key, n] of this.nominated) {
      if (key === self || n.node !== node || n.priority < priority) continue;
      out ??= { requests: new Map(), pods: 0 };
      for (const [r, v] of n.requests) out.requests.set(r, (out.requests.get(r) ?? 0n) + v);
      out.pods++;
    }
    return out;
  }

  /** Filters every node, scores those that fit; throws ConstraintError for an unparsable affinity. */
  private findNode(pod: KubeObject, requests: Resources, sim?: Simulation): FindResult {
    const key = keyOf(pod);
    const priority = this.priorityOf(pod);
    const reasonsByNode = new Map<string, string[]>();
    const feasible: Array<{ node: KubeObject; score: number }> = [];
    const nodes = this.nodes.list();
    // Test-only (breaks): `scheduler.ignore-taints`, `scheduler.ignore-affinity-errors`; read once
    // per attempt, not once per node.
    const ignoreTaints = this.has('ignore-taints');
    const affinityErrorsMatch = this.has('ignore-affinity-errors');
    for (const node of nodes) {
      const name = node.metadata.name;
      const usage = sim ? sim.usageOf(name) : this.cache.usageOf(name);
      const allocatable = this.allocatableOf(node);
      const nom = this.nominatedOn(name, priority, key);
      const reasons = fitReasons({
        pod, requests, node, allocatable, usage, nominated: nom?.requests, nominatedPods: nom?.pods, ignoreTaints, affinityErrorsMatch,
      });
      if (reasons.length) {
        reasonsByNode.set(name, reasons);
        continue;
      }
      feasible.push({ node, score: leastAllocatedScore(requests, allocatable, usage) });
    }
    // Upstream scores only when there is a choice: with one feasible node, PreScore and Score do not run.
    if (feasible.length > 1) this.addAffinityScores(pod, feasible);
    let best: { name: string; score: number } | undefined;
    for (const { node, score } of feasible) {
      const name = node.metadata.name;
      if (!best || score > best.score || (score === best.score && name < best.name)) best = { name, score };
    }
    return { node: best?.name, total: nodes.length, reasonsByNode };
  }

  /**
   * Upstream's NodeAffinity score (plugin weight 2): the weights of the preferred terms a node matches,
   * normalised to 0..100 over the feasible nodes. Throws ConstraintError for an unparsable term.
   */
  private addAffinityScores(pod: KubeObject, feasible: Array<{ node: KubeObject; score: number }>): void {
    const terms = preferredTerms(pod);
    if (terms.length === 0) return;
    const raw = feasible.map((f) => terms.reduce((sum, t) => sum + (t.matches(f.node) ? t.weight : 0), 0));
    const max = Math.max(...raw);
    if (max <= 0) return;
    feasible.forEach((f, i) => { f.score += 2 * Math.floor((raw[i]! * 100) / max); });
  }

  /** The reason of a cycle that failed on an error of the pod's constraints (not a fit failure). */
  private errorReason(): 'SchedulerError' | 'Unschedulable' {
    // Test-only (breaks): `scheduler.errors-unschedulable` reports its own errors as Unschedulable.
    return this.has('errors-unschedulable') ? 'Unschedulable' : 'SchedulerError';
  }

  private fitMessage(r: FindResult): string {
    // Test-only (breaks): `scheduler.plain-messages` words failures its own way.
    if (this.has('plain-messages')) return 'no node fits the pod';
    return r.total === 0 ? 'no nodes available to schedule pods' : fitErrorMessage(r.total, r.reasonsByNode);
  }

  private preemptionEligible(pod: KubeObject): boolean {
    if (pod.spec?.preemptionPolicy === 'Never') return false;
    return this.groupOf(pod)?.pg?.spec?.preemptionPolicy !== 'Never';
  }

  private async schedulePod(key: string, seq: number, started: number): Promise<void> {
    const pod = this.pods.getByKey(key);
    if (!pod || !this.isPending(pod) || this.cache.get(key)) return;
    // Test-only (breaks): `scheduler.no-bind` leaves every pod where it is.
    if (this.has('no-bind')) return;
    const unit = `p:${key}`;
    const priority = this.priorityOf(pod);
    const group = this.groupOf(pod);
    // Test-only (breaks): `scheduler.ignore-missing-group` schedules such pods as if they had no group.
    if (group && !group.pg && !this.has('ignore-missing-group')) {
      this.failPod(pod, 'Unschedulable', waitingForPodGroup(group.name));
      this.queue.unschedulableNow(unit, priority, seq);
      this.m?.attempt('unschedulable', started);
      return;
    }
    const gangUnit = this.unitOf(pod);
    if (gangUnit !== unit) {
      this.queue.add(gangUnit, this.unitPriority(gangUnit));
      return;
    }
    const requests = podRequests(pod);
    let r: FindResult;
    try {
      r = this.findNode(pod, requests);
    } catch (err) {
      if (!(err instanceof ConstraintError)) throw err;
      this.failPod(pod, this.errorReason(), err.message);
      if (group?.pg) this.groupCondition(group.pg, 'False', this.errorReason(), err.message);
      this.queue.unschedulableNow(unit, priority, seq);
      this.m?.attempt('error', started);
      return;
    }
    if (r.node) {
      await this.bindAll([{ pod, requests, node: r.node }], started, (bound) => {
        if (bound > 0 && group?.pg) this.groupScheduled(group.pg);
      });
      return;
    }
    if (r.total === 0) {
      // Upstream: ErrNoNodesAvailable is an error of the cycle, not a FitError (reason SchedulerError).
      this.failPod(pod, 'SchedulerError', this.fitMessage(r));
      this.queue.unschedulableNow(unit, priority, seq);
      this.m?.attempt('error', started);
      return;
    }
    let message = this.fitMessage(r);
    let nominate: string | undefined;
    if (!this.preemptionEligible(pod)) {
      message += ' preemption: not eligible due to preemptionPolicy=Never.';
    } else {
      this.m?.preemptionAttempt();
      const pre = this.preemptFor(pod, requests, priority, r);
      if (pre) nominate = pre;
      else if (!this.has('plain-messages')) message += ` ${noCandidateMessage(r.total, r.reasonsByNode)}`;
    }
    if (!nominate) this.nominated.delete(key);
    this.failPod(pod, 'Unschedulable', message, nominate);
    if (group?.pg) this.groupCondition(group.pg, 'False', 'Unschedulable', message);
    this.queue.unschedulableNow(unit, priority, seq);
    this.m?.attempt('unschedulable', started);
  }

  /** PodScheduled=False on the pod, and a FailedScheduling event when the message is new. */
  private failPod(pod: KubeObject, reason: string, message: string, nominatedNodeName?: string): void {
    const before = (pod.status?.conditions ?? []).find((c: any) => c?.type === 'PodScheduled');
    void this.status.podUnschedulable(pod, reason, message, nominatedNodeName);
    if (before?.message !== message) this.d.events?.record(pod, 'Warning', 'FailedScheduling', 'Scheduling', message);
  }

  private groupCondition(pg: KubeObject, status: 'True' | 'False', reason: string, message: string): void {
    // Test-only (breaks): `scheduler.initially-scheduled-not-set` never reports a satisfied group;
    // `scheduler.no-podgroup-unschedulable` never reports a group that cannot be placed.
    if (status === 'True' && this.has('initially-scheduled-not-set')) return;
    if (status === 'False' && this.has('no-podgroup-unschedulable')) return;
    void this.status.podGroupCondition(pg.metadata.namespace ?? '', pg.metadata.name, INITIALLY_SCHEDULED, status, reason, message);
  }

  private groupScheduled(pg: KubeObject): void {
    this.groupCondition(pg, 'True', 'Scheduled', '');
  }

  // ---- gangs ----

  private minCountOf(pg: KubeObject, members: number): number {
    const key = keyOf(pg);
    const gang = pg.spec?.schedulingPolicy?.gang;
    // Test-only (breaks): `scheduler.basic-held` holds a basic group like a gang that never completes.
    let min = gang ? Math.max(1, Number(gang.minCount) || 1) : members + 1;
    // Test-only (breaks): `scheduler.min-count-cached` keeps the minCount it saw first.
    if (this.has('min-count-cached')) {
      if (!this.firstMinCount.has(key)) this.firstMinCount.set(key, min);
      min = this.firstMinCount.get(key)!;
    }
    return min;
  }

  private async scheduleGang(groupKey: string, seq: number, started: number): Promise<void> {
    const { namespace, name } = splitKey(groupKey);
    const unit = `g:${groupKey}`;
    const pg = this.podGroups?.get(namespace, name);
    const members = this.members(namespace, name).filter((p) => !p.spec?.schedulerName || p.spec.schedulerName === DEFAULT_SCHEDULER_NAME);
    if (!pg || this.unitOf(members[0] ?? { metadata: { name: '' } }) !== unit) {
      // No longer a gang (or gone): each pod goes back as itself.
      for (const p of members) if (this.isPending(p)) this.enqueuePod(p);
      return;
    }
    if (this.has('no-bind')) return;
    const priority = this.groupPriority(pg, members);
    const scheduled = members.filter((p) => p.spec?.nodeName || this.cache.get(keyOf(p)));
    const pending = members.filter((p) => this.isPending(p) && !this.cache.get(keyOf(p))).map((pod) => ({ pod, requests: podRequests(pod) })).sort(gangOrder((p) => this.priorityOf(p)));
    if (pending.length === 0) return;
    const minCount = this.minCountOf(pg, members.length);
    if (scheduled.length + pending.length < minCount) {
      this.failGang(pg, pending, 'Unschedulable', this.has('plain-messages') ? 'the gang is incomplete' : WAITING_FOR_MIN_COUNT);
      this.queue.unschedulableNow(unit, priority, seq);
      this.m?.attempt('unschedulable', started);
      return;
    }
    let plan;
    try {
      const sim = new Simulation(this.cache);
      plan = planGang(minCount, scheduled.length, pending, (m) => this.placeOn(sim, m));
    } catch (err) {
      if (!(err instanceof ConstraintError)) throw err;
      // Upstream: the pod in error stops the cycle, and the group reports the error it carries.
      for (const m of pending) this.failPod(m.pod, this.errorReason(), err.message);
      this.groupCondition(pg, 'False', this.errorReason(), `failed to schedule other pod from a pod group: ${err.message}`);
      this.queue.unschedulableNow(unit, priority, seq);
      this.m?.attempt('error', started);
      return;
    }
    if (plan.ok) {
      for (const u of plan.unplaced) this.failPod(u.pod, 'Unschedulable', u.message);
      if (plan.unplaced.length > 0) this.queue.unschedulableNow(unit, priority, seq);
      await this.bindAll(plan.placements, started, (bound) => {
        if (scheduled.length + bound >= minCount) this.groupScheduled(pg);
        else this.queue.retryLater(unit, priority, 1_000);
      });
      return;
    }
    let message = this.has('plain-messages') ? 'the gang does not fit' : plan.message;
    if (pg.spec?.preemptionPolicy !== 'Never') {
      this.m?.preemptionAttempt();
      if (this.preemptForGang(pg, pending, scheduled.length, minCount)) message = WAITING_FOR_PREEMPTION;
    }
    this.failGang(pg, pending, 'Unschedulable', message);
    this.queue.unschedulableNow(unit, priority, seq);
    this.m?.attempt('unschedulable', started);
  }

  private failGang(pg: KubeObject, pending: readonly GangMember[], reason: string, message: string): void {
    for (const m of pending) this.failPod(m.pod, reason, message);
    this.groupCondition(pg, 'False', reason, message);
  }

  /** Places one gang member on the what-if view. */
  private placeOn(sim: Simulation, m: GangMember): PlaceResult {
    const r = this.findNode(m.pod, m.requests, sim);
    if (!r.node) return { message: this.fitMessage(r) };
    sim.add(r.node, m.requests);
    return { node: r.node };
  }

  // ---- binding ----

  private async slot(): Promise<void> {
    while (this.inFlight >= MAX_BINDINGS_IN_FLIGHT && !this.stopped) await new Promise<void>((r) => this.slotWaiters.push(r));
    this.inFlight++;
  }

  private release(): void {
    this.inFlight--;
    this.slotWaiters.shift()?.();
  }

  /**
   * Assumes every placement on its node, then binds them all (upstream's binding cycles); `after` gets
   * how many bindings succeeded once all have answered.
   */
  private async bindAll(placements: readonly Placement[], started: number, after?: (bound: number) => void): Promise<void> {
    for (const p of placements) {
      this.cache.assume(p.pod, p.node, p.requests);
      this.nominated.delete(keyOf(p.pod));
    }
    if (placements.length === 0) return after?.(0);
    let answered = 0;
    let bound = 0;
    for (const p of placements) {
      await this.slot();
      void this.bindOne(p, started).then((ok) => {
        this.release();
        if (ok) bound++;
        if (++answered === placements.length) after?.(bound);
      });
    }
  }

  private async bindOne(p: Placement, started: number): Promise<boolean> {
    const { namespace = '', name, uid } = p.pod.metadata;
    const key = keyOf(p.pod);
    const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace, uid }, target: { apiVersion: 'v1', kind: 'Node', name: p.node } };
    try {
      await this.status.inOrder(key, () => this.d.client.create(`/api/v1/namespaces/${namespace}/pods/${name}/binding`, binding));
      this.m?.attempt('scheduled', started);
      this.d.events?.record(p.pod, 'Normal', 'Scheduled', 'Binding', `Successfully assigned ${namespace}/${name} to ${p.node}`);
      return true;
    } catch (err) {
      this.cache.forget(key);
      this.m?.attempt('error', started);
      const current = this.pods.getByKey(key);
      // Gone, or bound by someone else meanwhile: nothing to retry.
      if (isNotFound(err) || !current || !this.isPending(current)) return false;
      this.d.log(`binding ${key} to ${p.node} failed`, err);
      const unit = this.unitOf(current);
      this.queue.retryLater(unit, this.unitPriority(unit), isConflict(err) ? 100 : 1_000);
      return false;
    }
  }

  // ---- preemption ----

  /** The pods on `node` that a preemptor of `priority` may take away. */
  private candidatesOn(node: string, priority: number, exclude: (p: PlacedPod) => boolean): PlacedPod[] {
    return this.cache.podsOn(node).filter((p) => !p.assumed && !p.pod.metadata.deletionTimestamp && !this.preempting.has(p.key) && this.priorityOf(p.pod) < priority && !exclude(p));
  }

  /** The best node and victims for one pod on the what-if view (victims already taken are excluded). */
  private findVictims(pod: KubeObject, requests: Resources, priority: number, r: FindResult, sim: Simulation | undefined, exclude: (p: PlacedPod) => boolean): Candidate | undefined {
    const candidates: Candidate[] = [];
    for (const node of this.nodes.list()) {
      const name = node.metadata.name;
      if (!resolvableByPreemption(r.reasonsByNode.get(name) ?? [])) continue;
      const nom = this.nominatedOn(name, priority, keyOf(pod));
      const victims = victimsOnNode({
        requests, allocatable: this.allocatableOf(node), usage: sim ? sim.usageOf(name) : this.cache.usageOf(name),
        candidates: this.candidatesOn(name, priority, exclude), priorityOf: (p) => this.priorityOf(p),
        nominated: nom?.requests, nominatedPods: nom?.pods,
      });
      if (victims && victims.length > 0) candidates.push({ node: name, victims });
    }
    return pickCandidate(candidates, (p) => this.priorityOf(p));
  }

  /** Preemption for a single pod; returns the nominated node, or undefined when none helps. */
  private preemptFor(pod: KubeObject, requests: Resources, priority: number, r: FindResult): string | undefined {
    const key = keyOf(pod);
    // Victims still terminating on the node it was nominated to: wait for them, preempt nothing more.
    const nominated = this.nominated.get(key)?.node ?? pod.status?.nominatedNodeName;
    if (nominated && this.cache.podsOn(nominated).some((p) => (p.pod.metadata.deletionTimestamp || this.preempting.has(p.key)) && this.priorityOf(p.pod) < priority)) return nominated;
    const c = this.findVictims(pod, requests, priority, r, undefined, () => false);
    if (!c) return undefined;
    this.nominated.set(key, { node: c.node, requests, priority });
    this.evict(c.victims, pod, c.node, 'pod');
    return c.node;
  }

  /** Preemption for a gang: every pending pod placed with victims if need be, or nothing happens. */
  private preemptForGang(pg: KubeObject, pending: readonly GangMember[], scheduled: number, minCount: number): boolean {
    const groupKey = keyOf(pg);
    const priority = this.groupPriority(pg, pending.map((m) => m.pod));
    const sim = new Simulation(this.cache);
    const taken = new Map<string, PlacedPod>();
    const isMember = (p: PlacedPod) => p.pod.spec?.schedulingGroup?.podGroupName === pg.metadata.name && p.pod.metadata.namespace === pg.metadata.namespace;
    let plan;
    try {
      plan = planGang(minCount, scheduled, pending, (m) => {
        const r = this.findNode(m.pod, m.requests, sim);
        if (r.node) {
          sim.add(r.node, m.requests);
          return { node: r.node };
        }
        const c = this.findVictims(m.pod, m.requests, priority, r, sim, (p) => taken.has(p.key) || isMember(p));
        if (!c) return {};
        for (const v of c.victims) {
          taken.set(v.key, v);
          sim.add(v.node, v.requests, -1);
        }
        sim.add(c.node, m.requests);
        return { node: c.node };
      });
    } catch (err) {
      if (err instanceof ConstraintError) return false;
      throw err;
    }
    if (!plan.ok || taken.size === 0) return false;
    const preemptor = pending[0]!.pod;
    this.evict([...taken.values()], preemptor, plan.placements[0]?.node ?? '', 'podgroup');
    for (const p of plan.placements) {
      this.nominated.set(keyOf(p.pod), { node: p.node, requests: p.requests, priority });
      void this.status.podUnschedulable(p.pod, 'Unschedulable', WAITING_FOR_PREEMPTION, p.node);
    }
    this.d.log(`podgroup ${groupKey}: preempting ${taken.size} pod(s)`);
    return true;
  }

  /**
   * Takes the victims away: DisruptionTarget=True/PreemptionByScheduler on each, then deletes it; the
   * gang PodGroups they belong to get DisruptionTarget=True/PreemptionByScheduler too (spec §3.2).
   */
  private evict(victims: readonly PlacedPod[], preemptor: KubeObject, node: string, what: 'pod' | 'podgroup'): void {
    const message = preemptionMessage(preemptor.spec?.schedulerName || DEFAULT_SCHEDULER_NAME, what);
    const groups = new Map<string, KubeObject>();
    for (const v of victims) {
      const key = v.key;
      this.preempting.set(key, v.node);
      // Test-only (breaks): `scheduler.no-pod-disruption-target` deletes victims without the condition.
      if (!this.has('no-pod-disruption-target')) void this.status.podDisruptionTarget(v.pod, message);
      void this.status.fire(key, () => this.d.client.delete(`/api/v1/namespaces/${v.pod.metadata.namespace}/pods/${v.pod.metadata.name}`, { preconditions: { uid: v.pod.metadata.uid } }));
      this.d.events?.record(v.pod, 'Normal', 'Preempted', 'Preempting', `Preempted by pod ${preemptor.metadata.uid} on node ${node}`);
      const pg = this.groupOf(v.pod)?.pg;
      if (pg && isGang(pg)) groups.set(keyOf(pg), pg);
    }
    // Test-only (breaks): `scheduler.no-podgroup-disruption-target` leaves the victims' PodGroups alone.
    if (this.has('no-podgroup-disruption-target')) return;
    for (const pg of groups.values()) {
      void this.status.podGroupCondition(pg.metadata.namespace ?? '', pg.metadata.name, DISRUPTION_TARGET, 'True', 'PreemptionByScheduler', message);
    }
  }

  // ---- metrics ----

  /** Pending pods by the queue their unit waits in, and those held by scheduling gates. */
  pendingCounts(): Record<'active' | 'backoff' | 'unschedulable' | 'gated', number> {
    const out = { active: 0, backoff: 0, unschedulable: 0, gated: 0 };
    for (const p of this.pods.list()) {
      if (p.spec?.nodeName || p.metadata.deletionTimestamp || isTerminal(p)) continue;
      if (p.spec?.schedulingGates?.length > 0) {
        out.gated++;
        continue;
      }
      if (!this.isPending(p) || this.cache.get(keyOf(p))) continue;
      const where = this.queue.where(this.unitOf(p));
      if (where) out[where]++;
    }
    return out;
  }
}

/** Whether a node update may let a pending pod fit (anything but a heartbeat). */
function nodeChanged(old: KubeObject, n: KubeObject): boolean {
  const ready = (x: KubeObject) => (x.status?.conditions ?? []).find((c: any) => c?.type === 'Ready')?.status;
  return JSON.stringify(old.spec) !== JSON.stringify(n.spec)
    || JSON.stringify(old.metadata.labels) !== JSON.stringify(n.metadata.labels)
    || JSON.stringify(old.status?.allocatable) !== JSON.stringify(n.status?.allocatable)
    || ready(old) !== ready(n);
}

/** Upstream's scheduler metrics this scheduler keeps (STABLE names and help texts). */
function schedulerMetrics(m: ComponentMetrics, s: Scheduler) {
  const attempts = m.counter({
    name: 'scheduler_schedule_attempts_total',
    help: "[STABLE] Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be scheduled, while 'error' means an internal scheduler problem.",
    labelNames: ['result', 'profile'],
  });
  const duration = m.histogram({
    name: 'scheduler_scheduling_attempt_duration_seconds',
    help: '[STABLE] Scheduling attempt latency in seconds (scheduling algorithm + binding)',
    labelNames: ['result', 'profile'],
    buckets: Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i),
  });
  m.gauge({
    name: 'scheduler_pending_pods',
    help: "[STABLE] Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in unschedulablePods that the scheduler attempted to schedule and failed; 'gated' is the number of unschedulable pods that the scheduler never attempted to schedule because they are gated.",
    labelNames: ['queue'],
    collect() {
      for (const [queue, n] of Object.entries(s.pendingCounts())) this.set({ queue }, n);
    },
  });
  const preemptions = m.counter({ name: 'scheduler_preemption_attempts_total', help: '[STABLE] Total preemption attempts in the cluster till now' });
  return {
    attempt(result: 'scheduled' | 'unschedulable' | 'error', started: number): void {
      attempts.inc({ result, profile: PROFILE });
      duration.observe({ result, profile: PROFILE }, (performance.now() - started) / 1000);
    },
    preemptionAttempt(): void {
      preemptions.inc();
    },
  };
}
