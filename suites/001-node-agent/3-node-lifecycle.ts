// Spec 001 §3, the control plane's side of node states: what the node lifecycle controller does when
// a node's agent falls silent or reports Ready False, and what the taint eviction controller does to
// pods on nodes with NoExecute taints. The cases act as an agent themselves: each registers a Node of
// its own (a unique name, a zone label of its own, a NoSchedule hold taint so no scheduler places
// anything there) with a heartbeat Lease in `node-lease`, heartbeats both, stops, and watches the
// condition and taints. How long to wait comes from the target fact `nodeMonitorGracePeriod` (`run
// --node-monitor-grace-period`); a case that cannot outwait it within its 30 s skips, saying so.
//
// Cases that check a NoExecute taint also keep a second node of theirs Ready in the same zone: a
// control plane that sees no Ready node at all may suspect itself rather than the nodes and hold its
// NoExecute taints back (upstream's full-disruption mode), and a zone of its own keeps the case clear
// of the other cases' silent nodes (upstream rate-limits and stops tainting in an unhealthy zone).
//
// The eviction cases (pods "may be evicted because of NoExecute taints unless they carry
// tolerations") put a NoExecute taint of their own on a node of theirs: that is the rule, whatever
// taints a control plane puts on silent nodes, and it needs no grace period.
import { defineCase, type Case, type CaseContext } from '../case.js';
import { fact } from '../../runner/facts.js';
import { expectEqual, expectObject, expectTrue, fail, show, skip, SUCCESS } from '../verify.js';
import { holdsFor, waitFor } from '../wait.js';
import { createObject } from '../000-control-plane/kinds.js';
import { HOLD_TAINT, IMAGE, POD } from './kinds.js';

const NODES = '/api/v1/nodes';
const LEASES = '/apis/coordination.orch.io/v1/namespaces/node-lease/leases';
const NOT_READY = 'node.orch.io/not-ready';
const UNREACHABLE = 'node.orch.io/unreachable';
const ZONE_LABEL = 'topology.orch.io/zone';
const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' };

/**
 * Time a control plane gets to act once a condition holds: upstream checks node health every
 * node-monitor-period (5 s by default), then writes.
 */
const MARGIN_MS = 8_000;
/** What a case may spend waiting, under the default 30 s case timeout. */
const CASE_BUDGET_MS = 26_000;
/**
 * Slack on "not before the grace period": a control plane may count silence from the Ready
 * condition's lastHeartbeatTime, which has whole seconds.
 */
const CLOCK_SLACK_MS = 1_000;

/** metav1.Time: whole seconds. */
const metaTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
/** metav1.MicroTime. */
const microTime = (ms: number) => new Date(ms).toISOString().replace(/Z$/, '000Z');

const condition = (o: any, type: string) => (o?.status?.conditions ?? []).find((c: any) => c?.type === type);
const readyStatus = (o: any): string | undefined => condition(o, 'Ready')?.status;
const taintsOf = (o: any): any[] => o?.spec?.taints ?? [];
const hasTaint = (o: any, key: string, effect?: string) => taintsOf(o).some((t) => t?.key === key && (!effect || t?.effect === effect));
const showTaints = (o: any) => show(taintsOf(o).map((t) => `${t?.key}:${t?.effect}`));
const gone = (o: any) => !!o?.deleted || !!o?.metadata?.deletionTimestamp;

/** The stated node-monitor-grace-period, in ms; skips when the case cannot wait `g × graces + extraMs`. */
function gracePeriod(ctx: CaseContext, extraMs: number, graces = 1): number {
  const g = fact(ctx.facts, 'nodeMonitorGracePeriodSeconds') * 1000;
  if (g * graces + extraMs > CASE_BUDGET_MS) {
    skip(`the target's node-monitor-grace-period (${g / 1000}s) is longer than this case can outwait within its timeout (it needs ${graces > 1 ? `${graces} × ` : ''}the grace period + ${Math.ceil(extraMs / 1000)}s under ${CASE_BUDGET_MS / 1000}s)`);
  }
  return g;
}

/** The grace period assumed for the heartbeat of nodes whose case does not know it (the fastest beat). */
const DEFAULT_BEAT_GRACE_MS = 0;

/** How often the cases heartbeat: a quarter of the grace period, at least 200 ms, at most 1 s. */
const beatPeriod = (graceMs: number) => Math.min(1_000, Math.max(200, Math.floor(graceMs / 4)));

/**
 * A Node the case registered and heartbeats as an agent would: status writes (the Ready condition
 * and the pressure conditions with a fresh lastHeartbeatTime) and renewals of its Lease
 * `node-lease/<name>`, every `period` between start() and stop().
 */
class CaseNode {
  readonly path: string;
  readonly leasePath: string;
  /** When the last accepted heartbeat was sent (ms, this machine's clock). */
  lastBeat = 0;
  /**
   * The longest the node went without a fresh heartbeat on the server, as this machine saw it: from
   * one accepted heartbeat's sending to the next one's acceptance. A loaded machine that cannot keep
   * its own beat within the grace period leaves a control plane right to mark the node Unknown.
   */
  longestGap = 0;
  private transition: string;
  private loop: Promise<void> | undefined;
  private stopping = false;
  private wake: (() => void) | undefined;
  private failure: string | undefined;

  private constructor(private readonly ctx: CaseContext, readonly name: string, private readonly ready: 'True' | 'False', private readonly statusBeats: boolean) {
    this.path = `${NODES}/${name}`;
    this.leasePath = `${LEASES}/${name}`;
    this.transition = metaTime(Date.now());
  }

  static async register(ctx: CaseContext, o: { zone: string; hint: string; ready?: 'True' | 'False'; statusBeats?: boolean }): Promise<CaseNode> {
    const n = new CaseNode(ctx, ctx.uniqueName(o.hint), o.ready ?? 'True', o.statusBeats ?? true);
    const now = Date.now();
    ctx.track(n.path);
    const node = expectObject(await ctx.api.post(NODES, {
      apiVersion: 'v1', kind: 'Node',
      metadata: { name: n.name, labels: { ...ctx.labels, [ZONE_LABEL]: o.zone } },
      spec: { taints: [HOLD_TAINT] },
      status: { conditions: n.conditions(now) },
    }), SUCCESS.create, 'Node', `register node ${n.name}`);
    ctx.track(n.leasePath);
    expectObject(await ctx.api.post(LEASES, {
      apiVersion: 'coordination.orch.io/v1', kind: 'Lease',
      metadata: { name: n.name, namespace: 'node-lease', labels: { ...ctx.labels }, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: n.name, uid: node.metadata?.uid }] },
      spec: { holderIdentity: n.name, leaseDurationSeconds: 40, renewTime: microTime(now) },
    }), SUCCESS.create, 'Lease', `create the Lease of node ${n.name} in node-lease`);
    // The first heartbeat writes the status again, through /status, for a server that drops it on create.
    await n.beat(true);
    if (n.failure) fail(`post the status of node ${n.name}`, 'the write accepted', n.failure);
    return n;
  }

  conditions(at: number): Record<string, string>[] {
    const c = (type: string, status: string) => ({
      type, status, reason: 'ConformanceHeartbeat', message: 'posted by the conformance case acting as the node\'s agent',
      lastHeartbeatTime: metaTime(at), lastTransitionTime: this.transition,
    });
    return [c('MemoryPressure', 'False'), c('DiskPressure', 'False'), c('PIDPressure', 'False'), c('NetworkUnavailable', 'False'), c('Ready', this.ready)];
  }

  /** Heartbeats again after a silence the control plane marked Unknown: Ready changes, so a new lastTransitionTime. */
  revive(periodMs: number): void {
    this.transition = metaTime(Date.now());
    this.start(periodMs);
  }

  /** One heartbeat: the status (when `status`), then the Lease. */
  async beat(status = this.statusBeats): Promise<void> {
    const at = Date.now();
    try {
      if (status) {
        const res = await this.ctx.api.request('PATCH', `${this.path}/status`, { body: { status: { conditions: this.conditions(at) } }, headers: MERGE_PATCH });
        if (res.status >= 300) { this.failure = `PATCH ${this.path}/status: HTTP ${res.status} ${res.text.slice(0, 200)}`; return; }
      }
      const res = await this.ctx.api.request('PATCH', this.leasePath, { body: { spec: { renewTime: microTime(at) } }, headers: MERGE_PATCH });
      if (res.status >= 300) { this.failure = `PATCH ${this.leasePath}: HTTP ${res.status} ${res.text.slice(0, 200)}`; return; }
      if (this.lastBeat) this.longestGap = Math.max(this.longestGap, Date.now() - this.lastBeat);
      this.lastBeat = at;
    } catch (err) {
      if (!this.ctx.signal.aborted) this.failure = `heartbeat of ${this.name}: ${(err as Error).message}`;
    }
  }

  /** Heartbeats every `periodMs` until stop() (or halt()). */
  start(periodMs: number): void {
    if (this.loop) return;
    this.stopping = false;
    this.loop = (async () => {
      while (!this.stopping && !this.ctx.signal.aborted) {
        await this.beat();
        if (this.stopping) break;
        await new Promise<void>((r) => {
          const t = setTimeout(r, periodMs);
          this.wake = () => { clearTimeout(t); r(); };
        });
      }
    })();
  }

  /** Stops heartbeating; fails the case if a heartbeat was refused. Returns when the last one was sent. */
  async stop(): Promise<number> {
    await this.halt();
    if (this.failure) fail(`the case heartbeats node ${this.name} (status and Lease writes)`, 'every write accepted', this.failure);
    return this.lastBeat;
  }

  /** Stops heartbeating, whatever happened (for finally blocks). */
  async halt(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }
}

/** Runs `body` with a registrar of heartbeating nodes, and stops every heartbeat however it ends. */
async function withNodes(ctx: CaseContext, body: (register: (o: { hint: string; ready?: 'True' | 'False'; statusBeats?: boolean }) => Promise<CaseNode>) => Promise<void>): Promise<void> {
  const nodes: CaseNode[] = [];
  const zone = ctx.uniqueName('zone');
  try {
    await body(async (o) => {
      const n = await CaseNode.register(ctx, { ...o, zone });
      nodes.push(n);
      return n;
    });
  } finally {
    await Promise.all(nodes.map((n) => n.halt()));
  }
}

/** A second node in the case's zone, kept Ready for the whole case (see the header). */
async function witness(register: (o: { hint: string }) => Promise<CaseNode>, periodMs: number): Promise<CaseNode> {
  const w = await register({ hint: 'witness' });
  w.start(periodMs);
  return w;
}

/** Heartbeats `n` for two periods, watching Ready stay True (a node alive, then silent). */
async function aliveThenSilent(ctx: CaseContext, n: CaseNode, periodMs: number): Promise<number> {
  n.start(periodMs);
  await holdsFor(ctx, n.path, (o) => readyStatus(o) === 'True', 2 * periodMs, `node ${n.name} stays Ready while it heartbeats`, 'Ready True');
  return n.stop();
}

const lifecycle = (level: 'MUST' | 'SHOULD', section = '3') => ({
  suite: 'node-lifecycle',
  spec: { doc: '001' as const, section },
  level,
  impact: 'cluster-scoped' as const,
  needs: ['api'] as const,
  facts: ['nodeMonitorGracePeriod'] as const,
  controllers: ['node-lifecycle-controller'] as const,
});

// Pods of the eviction cases: bound to the case's node by spec.nodeName (no scheduler involved); the
// cases also register that node, but need the run's namespace for the pods.
const eviction = (level: 'MUST' | 'SHOULD') => ({
  suite: 'node-lifecycle',
  spec: { doc: '001' as const, section: '3' },
  level,
  impact: 'namespaced' as const,
  needs: ['api'] as const,
  controllers: ['taint-eviction-controller'] as const,
});

/** The NoExecute taint the eviction cases put on their node. */
const EVICT_TAINT = { key: 'conformance.orch.io/evict', value: 'now', effect: 'NoExecute' };
/** Tolerates the node lifecycle taints for good, so only the cases' own taint decides. */
const LIFECYCLE_TOLERATIONS = [
  { key: NOT_READY, operator: 'Exists', effect: 'NoExecute' },
  { key: UNREACHABLE, operator: 'Exists', effect: 'NoExecute' },
];

const podPath = (ctx: CaseContext, name: string) => `/api/v1/namespaces/${ctx.namespace}/pods/${name}`;

/** Creates a pod bound to `node` with these tolerations (and `extra` spec fields). */
async function podOn(ctx: CaseContext, node: string, tolerations: unknown[], hint: string, extra: Record<string, unknown> = {}): Promise<any> {
  const body = {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: ctx.uniqueName(hint), namespace: ctx.namespace, labels: { ...ctx.labels } },
    spec: { nodeName: node, containers: [{ name: 'main', image: IMAGE }], tolerations, ...extra },
  };
  return expectObject(await ctx.api.post(`/api/v1/namespaces/${ctx.namespace}/pods`, body), SUCCESS.create, 'Pod', `create pod ${hint} bound to node ${node}`);
}

/**
 * Adds the eviction taint to the node (a merge patch of the taints read, guarded by their
 * resourceVersion: a control plane may be writing taints of its own); returns when it was sent.
 */
async function taintNode(ctx: CaseContext, n: CaseNode): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const cur = expectObject(await ctx.api.get(n.path), [200], 'Node', `read node ${n.name}`);
    const sent = Date.now();
    const res = await ctx.api.request('PATCH', n.path, { body: { metadata: { resourceVersion: cur.metadata?.resourceVersion }, spec: { taints: [...taintsOf(cur), EVICT_TAINT] } }, headers: MERGE_PATCH });
    // The node's status heartbeats change its resourceVersion too: on a slow machine several reads
    // in a row may be overtaken.
    if (res.status === 409 && attempt < 10) continue;
    expectObject(res, SUCCESS.patch, 'Node', `add the NoExecute taint ${EVICT_TAINT.key} to node ${n.name}`);
    return sent;
  }
}

/** Deletes the case's pods at once (a node of the case runs no agent to finish a graceful deletion). */
async function dropPods(ctx: CaseContext, pods: readonly any[]): Promise<void> {
  await Promise.all(pods.map((p) => ctx.api.delete(podPath(ctx, p.metadata.name), { query: { gracePeriodSeconds: 0 } }).catch(() => undefined)));
}

/** Runs `body` on a Ready node of the case's own with the pods it creates, removing the pods after. */
async function withPodsOnNode(ctx: CaseContext, body: (n: CaseNode, pod: (tolerations: unknown[], hint: string, extra?: Record<string, unknown>) => Promise<any>) => Promise<void>): Promise<void> {
  const pods: any[] = [];
  try {
    await withNodes(ctx, async (register) => {
      const n = await register({ hint: 'node' });
      // Kept Ready throughout: with a short node-monitor-grace-period a silent node would go Unknown
      // mid-case and the control plane's own taints would mix with the case's.
      n.start(beatPeriod(DEFAULT_BEAT_GRACE_MS));
      await body(n, async (tolerations, hint, extra) => {
        const p = await podOn(ctx, n.name, tolerations, hint, extra);
        pods.push(p);
        return p;
      });
    });
  } finally {
    await dropPods(ctx, pods);
  }
}

export const nodeLifecycleCases: Case[] = [
  // ---- Ready Unknown (§3 conditions table, §9)
  defineCase({
    ...lifecycle('MUST'),
    id: 'api.node-lifecycle.ready-unknown',
    title: 'A node whose status updates and Lease renewals stop turns Ready Unknown once node-monitor-grace-period has passed',
    requirements: ['001-3-condition-ready-unknown'],
    async run(ctx) {
      const g = gracePeriod(ctx, MARGIN_MS + 2_000);
      const period = beatPeriod(g);
      await withNodes(ctx, async (register) => {
        const n = await register({ hint: 'silent' });
        await aliveThenSilent(ctx, n, period);
        await waitFor(ctx, n.path, (o) => readyStatus(o) === 'Unknown', `node ${n.name} turns Ready Unknown after it stopped heartbeating (grace period ${g / 1000}s)`, 'condition Ready with status Unknown', g + MARGIN_MS);
      });
    },
  }),
  defineCase({
    ...lifecycle('MUST'),
    id: 'api.node-lifecycle.ready-unknown.not-within-grace',
    title: 'A node that heartbeats stays Ready, and is not made Unknown before node-monitor-grace-period has passed since its last heartbeat',
    requirements: ['001-3-condition-ready-unknown'],
    async run(ctx) {
      const g = gracePeriod(ctx, MARGIN_MS + 2_000, 2);
      const period = beatPeriod(g);
      await withNodes(ctx, async (register) => {
        const n = await register({ hint: 'beating' });
        n.start(period);
        try {
          await holdsFor(ctx, n.path, (o) => readyStatus(o) === 'True', g + 1_000, `node ${n.name} heartbeating (status and Lease every ${period} ms) stays Ready for longer than the grace period (${g / 1000}s)`, 'Ready True throughout');
        } catch (err) {
          await n.halt();
          if (n.longestGap >= g - CLOCK_SLACK_MS) {
            skip(`this run could not keep node ${n.name}'s heartbeat within the grace period (${g / 1000}s): ${(n.longestGap / 1000).toFixed(1)}s passed between two of its heartbeats, so Ready Unknown was the control plane's right`);
          }
          throw err;
        }
        const last = await n.stop();
        const window = last + g - CLOCK_SLACK_MS - Date.now();
        if (window > 200) {
          await holdsFor(ctx, n.path, (o) => readyStatus(o) !== 'Unknown', window, `node ${n.name} is not Ready Unknown before the grace period (${g / 1000}s, less ${CLOCK_SLACK_MS / 1000}s of clock slack) has passed since its last heartbeat`, 'Ready not Unknown yet');
        }
        await waitFor(ctx, n.path, (o) => readyStatus(o) === 'Unknown', `node ${n.name} turns Ready Unknown once the grace period has passed`, 'condition Ready with status Unknown', g + MARGIN_MS);
      });
    },
  }),
  defineCase({
    ...lifecycle('SHOULD'),
    id: 'api.node-lifecycle.ready-unknown.conditions',
    title: 'A silent node\'s Ready, MemoryPressure, DiskPressure and PIDPressure become Unknown with reason NodeStatusUnknown and upstream\'s message; NetworkUnavailable is left alone',
    requirements: ['001-3-unknown-conditions'],
    async run(ctx) {
      const g = gracePeriod(ctx, MARGIN_MS + 2_000);
      const period = beatPeriod(g);
      await withNodes(ctx, async (register) => {
        const n = await register({ hint: 'silent' });
        await aliveThenSilent(ctx, n, period);
        const silenced = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];
        const node = await waitFor(ctx, n.path, (o) => silenced.every((t) => condition(o, t)?.status === 'Unknown'), `node ${n.name}'s conditions turn Unknown after it stopped heartbeating`,
          'Ready, MemoryPressure, DiskPressure and PIDPressure with status Unknown', g + MARGIN_MS);
        for (const t of silenced) {
          const c = condition(node, t);
          expectEqual({ reason: c?.reason, message: c?.message }, { reason: 'NodeStatusUnknown', message: 'Agent stopped posting node status.' }, `reason and message of the ${t} condition the control plane set Unknown`);
        }
        const net = condition(node, 'NetworkUnavailable');
        expectEqual({ status: net?.status, reason: net?.reason }, { status: 'False', reason: 'ConformanceHeartbeat' }, 'the NetworkUnavailable condition the node posted, left alone');
        expectTrue(condition(node, 'Ready')?.lastHeartbeatTime === metaTime(n.lastBeat), 'the Ready condition keeps the lastHeartbeatTime the node last posted', metaTime(n.lastBeat), show(condition(node, 'Ready')));
      });
    },
  }),

  // ---- taints (§3 transitions)
  defineCase({
    ...lifecycle('MUST'),
    id: 'api.node-lifecycle.unreachable-taint',
    title: 'A node whose Ready stays Unknown past node-monitor-grace-period gets the taint node.orch.io/unreachable',
    requirements: ['001-3-unreachable-taint'],
    async run(ctx) {
      const g = gracePeriod(ctx, MARGIN_MS + 4_000);
      const period = beatPeriod(g);
      await withNodes(ctx, async (register) => {
        const n = await register({ hint: 'silent' });
        await aliveThenSilent(ctx, n, period);
        await waitFor(ctx, n.path, (o) => readyStatus(o) === 'Unknown' && hasTaint(o, UNREACHABLE), `node ${n.name}, silent, turns Ready Unknown and gets the taint ${UNREACHABLE}`,
          `Ready Unknown and a taint with key ${UNREACHABLE}`, g + MARGIN_MS + 2_000);
      });
    },
  }),
  defineCase({
    ...lifecycle('SHOULD'),
    id: 'api.node-lifecycle.unreachable-taint.effects',
    title: 'A silent node gets node.orch.io/unreachable both as NoSchedule and as NoExecute, and no not-ready taint',
    requirements: ['001-3-taint-effects'],
    async run(ctx) {
      const g = gracePeriod(ctx, MARGIN_MS + 4_000);
      const period = beatPeriod(g);
      await withNodes(ctx, async (register) => {
        await witness(register, period);
        const n = await register({ hint: 'silent' });
        await aliveThenSilent(ctx, n, period);
        const node = await waitFor(ctx, n.path, (o) => hasTaint(o, UNREACHABLE, 'NoSchedule') && hasTaint(o, UNREACHABLE, 'NoExecute'), `node ${n.name}, silent, gets the unreachable taint with both effects`,
          `taints ${UNREACHABLE}:NoSchedule and ${UNREACHABLE}:NoExecute`, g + MARGIN_MS + 2_000);
        expectTrue(!hasTaint(node, NOT_READY), `node ${n.name} has no ${NOT_READY} taint while Ready is Unknown`, `no taint with key ${NOT_READY}`, showTaints(node));
      });
    },
  }),
  defineCase({
    ...lifecycle('MUST'),
    id: 'api.node-lifecycle.not-ready-taint',
    title: 'A node that keeps reporting Ready False gets the taint node.orch.io/not-ready within node-monitor-grace-period',
    requirements: ['001-3-not-ready-taint'],
    async run(ctx) {
      const g = gracePeriod(ctx, MARGIN_MS + 2_000);
      await withNodes(ctx, async (register) => {
        const n = await register({ hint: 'not-ready', ready: 'False' });
        n.start(beatPeriod(g));
        await waitFor(ctx, n.path, (o) => hasTaint(o, NOT_READY), `node ${n.name}, heartbeating with Ready False, gets the taint ${NOT_READY}`, `a taint with key ${NOT_READY}`, g + MARGIN_MS);
        await n.stop();
      });
    },
  }),
  defineCase({
    ...lifecycle('SHOULD'),
    id: 'api.node-lifecycle.not-ready-taint.effects',
    title: 'A node reporting Ready False gets node.orch.io/not-ready as NoSchedule and NoExecute; once silent, both are swapped for node.orch.io/unreachable',
    requirements: ['001-3-taint-effects'],
    async run(ctx) {
      const g = gracePeriod(ctx, MARGIN_MS + 4_000, 2);
      const period = beatPeriod(g);
      await withNodes(ctx, async (register) => {
        await witness(register, period);
        // Ready False posted once, then silence: not-ready first, unreachable once the grace period has passed.
        const n = await register({ hint: 'not-ready', ready: 'False' });
        await waitFor(ctx, n.path, (o) => hasTaint(o, NOT_READY, 'NoSchedule') && hasTaint(o, NOT_READY, 'NoExecute'), `node ${n.name}, Ready False, gets the not-ready taint with both effects`,
          `taints ${NOT_READY}:NoSchedule and ${NOT_READY}:NoExecute`, g + MARGIN_MS);
        const node = await waitFor(ctx, n.path, (o) => hasTaint(o, UNREACHABLE, 'NoExecute') && !hasTaint(o, NOT_READY, 'NoExecute'), `node ${n.name}, silent since, has its NoExecute not-ready taint swapped for unreachable`,
          `${UNREACHABLE}:NoExecute and no ${NOT_READY}:NoExecute`, g + MARGIN_MS + 2_000);
        expectTrue(readyStatus(node) === 'Unknown', `node ${n.name} is Ready Unknown when tainted unreachable`, 'Ready Unknown', show(condition(node, 'Ready')));
      });
    },
  }),
  defineCase({
    ...lifecycle('SHOULD'),
    id: 'api.node-lifecycle.taints-removed',
    title: 'When a node heartbeats with Ready True again, its unreachable (and not-ready) taints are removed',
    requirements: ['001-3-taints-removed'],
    async run(ctx) {
      const g = gracePeriod(ctx, 2 * MARGIN_MS + 4_000);
      const period = beatPeriod(g);
      await withNodes(ctx, async (register) => {
        await witness(register, period);
        const n = await register({ hint: 'returns' });
        await aliveThenSilent(ctx, n, period);
        await waitFor(ctx, n.path, (o) => hasTaint(o, UNREACHABLE, 'NoSchedule') && hasTaint(o, UNREACHABLE, 'NoExecute'), `node ${n.name}, silent, is tainted unreachable`,
          `taints ${UNREACHABLE}:NoSchedule and ${UNREACHABLE}:NoExecute`, g + MARGIN_MS + 2_000);
        n.revive(period);
        await waitFor(ctx, n.path, (o) => readyStatus(o) === 'True' && !hasTaint(o, UNREACHABLE) && !hasTaint(o, NOT_READY), `node ${n.name}, heartbeating Ready True again, loses its unreachable and not-ready taints`,
          `Ready True and no ${UNREACHABLE} or ${NOT_READY} taint`, MARGIN_MS);
        await n.stop();
      });
    },
  }),

  // ---- heartbeats through the Lease (§2.2, upstream)
  defineCase({
    ...lifecycle('SHOULD'),
    id: 'api.node-lifecycle.lease-heartbeat',
    title: 'A node that only renews its Lease in node-lease, without status updates, stays Ready past node-monitor-grace-period',
    requirements: ['001-3-lease-heartbeat'],
    async run(ctx) {
      const g = gracePeriod(ctx, MARGIN_MS + 2_000);
      await withNodes(ctx, async (register) => {
        const n = await register({ hint: 'lease-only', statusBeats: false });
        n.start(beatPeriod(g));
        await holdsFor(ctx, n.path, (o) => readyStatus(o) === 'True', g + MARGIN_MS, `node ${n.name}, renewing only its Lease, stays Ready for the grace period (${g / 1000}s) and more`, 'Ready True throughout');
        await n.stop();
      });
    },
  }),

  // ---- pods on a node that is no longer Ready (upstream)
  defineCase({
    ...lifecycle('SHOULD'),
    impact: 'namespaced',
    id: 'api.node-lifecycle.pods-not-ready',
    title: 'When a silent node turns Ready Unknown, the pods bound to it get their Ready condition set to False',
    requirements: ['001-3-pods-not-ready'],
    async run(ctx) {
      const g = gracePeriod(ctx, MARGIN_MS + 2_000);
      const period = beatPeriod(g);
      const pods: any[] = [];
      try {
        await withNodes(ctx, async (register) => {
          const n = await register({ hint: 'silent' });
          n.start(period);
          // Tolerates the node's lifecycle taints, so it stays bound for the case to watch.
          const pod = await podOn(ctx, n.name, LIFECYCLE_TOLERATIONS, 'ready');
          pods.push(pod);
          const path = podPath(ctx, pod.metadata.name);
          const now = metaTime(Date.now());
          // As the node's agent would report it: running and Ready.
          expectObject(await ctx.api.put(`${path}/status`, { ...pod, status: { ...pod.status, phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }, { type: 'ContainersReady', status: 'True', lastTransitionTime: now }] } }),
            SUCCESS.replace, 'Pod', 'report the pod Running and Ready (as its agent would)');
          await n.stop();
          await waitFor(ctx, path, (o) => condition(o, 'Ready')?.status === 'False', `pod ${pod.metadata.name} on node ${n.name}, which went silent, is marked not Ready`, 'pod condition Ready with status False', g + MARGIN_MS);
        });
      } finally {
        await dropPods(ctx, pods);
      }
    },
  }),

  // ---- NoExecute taints and pods (§3 transitions: "pods already scheduled may be evicted ...")
  defineCase({
    ...eviction('MUST'),
    id: 'api.node-lifecycle.no-execute.untolerated-evicted',
    title: 'A pod bound to a node that gets a NoExecute taint the pod does not tolerate is evicted',
    requirements: ['001-3-no-execute-eviction'],
    async run(ctx) {
      await withPodsOnNode(ctx, async (n, pod) => {
        const p = await pod([], 'untolerated');
        await taintNode(ctx, n);
        await waitFor(ctx, podPath(ctx, p.metadata.name), gone, `pod ${p.metadata.name}, not tolerating the NoExecute taint ${EVICT_TAINT.key} of its node, is evicted`,
          'the pod deleted (gone, or with a deletionTimestamp)', 20_000);
      });
    },
  }),
  defineCase({
    ...eviction('SHOULD'),
    spec: { doc: '001', section: '1' },
    controllers: ['pod-garbage-collector-controller'],
    id: 'api.node-lifecycle.terminating-pod-stays',
    title: 'A pod deleted on a node whose agent never finishes it stays terminating past its grace period: nothing removes it while the node exists and is not out of service',
    requirements: ['001-1-terminating-pod-waits-for-agent'],
    async run(ctx) {
      await withPodsOnNode(ctx, async (n, pod) => {
        const p = await pod(LIFECYCLE_TOLERATIONS, 'stuck', { terminationGracePeriodSeconds: 1 });
        const path = podPath(ctx, p.metadata.name);
        const del = await ctx.api.delete(path);
        if (del.status !== 200 && del.status !== 202) fail(`delete pod ${p.metadata.name}`, 'HTTP 200 or 202', `HTTP ${del.status} ${del.text.slice(0, 200)}`);
        // Spec 000 leaves a kind's default grace period open: a server may remove the pod at once.
        if (!del.json?.metadata?.deletionTimestamp) skip('the server removed the pod at once (no deletionTimestamp in the answer to the delete): no pod is left waiting for its agent');
        // The case's node runs no agent: well past the grace period of 1 s, the pod is still waiting for one.
        await holdsFor(ctx, path, (o) => !o?.deleted && !!o?.metadata?.deletionTimestamp, 4_000, `pod ${p.metadata.name}, deleted on node ${n.name} whose agent never finishes it, stays terminating`,
          'the pod still in the API, with its deletionTimestamp');
      });
    },
  }),
  defineCase({
    ...eviction('MUST'),
    id: 'api.node-lifecycle.no-execute.tolerated-stays',
    title: 'A pod tolerating a node\'s NoExecute taint (without tolerationSeconds) stays while a pod on the same node that does not tolerate it is evicted',
    requirements: ['001-3-no-execute-eviction'],
    async run(ctx) {
      await withPodsOnNode(ctx, async (n, pod) => {
        const untolerated = await pod([], 'untolerated');
        const tolerated = await pod([{ key: EVICT_TAINT.key, operator: 'Exists', effect: 'NoExecute' }, ...LIFECYCLE_TOLERATIONS], 'tolerated');
        await taintNode(ctx, n);
        await waitFor(ctx, podPath(ctx, untolerated.metadata.name), gone, `pod ${untolerated.metadata.name}, not tolerating the taint, is evicted (the control plane acts on the taint)`,
          'the pod deleted (gone, or with a deletionTimestamp)', 20_000);
        await holdsFor(ctx, podPath(ctx, tolerated.metadata.name), (o) => !gone(o) && o?.spec?.nodeName === n.name, 3_000, `pod ${tolerated.metadata.name}, tolerating the NoExecute taint, stays on node ${n.name}`,
          'the pod still bound and not being deleted');
      });
    },
  }),
  defineCase({
    ...eviction('SHOULD'),
    id: 'api.node-lifecycle.no-execute.toleration-seconds',
    title: 'A pod tolerating a NoExecute taint for tolerationSeconds 1 is evicted after that second; one tolerating it for an hour stays',
    requirements: ['001-3-toleration-seconds'],
    async run(ctx) {
      await withPodsOnNode(ctx, async (n, pod) => {
        const brief = await pod([{ key: EVICT_TAINT.key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 1 }, ...LIFECYCLE_TOLERATIONS], 'one-second');
        const hour = await pod([{ key: EVICT_TAINT.key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 3600 }, ...LIFECYCLE_TOLERATIONS], 'one-hour');
        const sent = await taintNode(ctx, n);
        await waitFor(ctx, podPath(ctx, brief.metadata.name), gone, `pod ${brief.metadata.name}, tolerating the taint for 1 s, is evicted`, 'the pod deleted (gone, or with a deletionTimestamp)', 10_000);
        const after = Date.now() - sent;
        expectTrue(after >= 800, `pod ${brief.metadata.name} is not evicted before its tolerationSeconds (1 s) have passed`, 'evicted 1 s or more after the taint was added', `seen evicted ${after} ms after the taint was sent`);
        await holdsFor(ctx, podPath(ctx, hour.metadata.name), (o) => !gone(o), 2_000, `pod ${hour.metadata.name}, tolerating the taint for an hour, stays`, 'the pod still there and not being deleted');
      });
    },
  }),
  defineCase({
    ...eviction('SHOULD'),
    id: 'api.node-lifecycle.no-execute.disruption-target',
    title: 'A pod evicted for a NoExecute taint first gets the condition DisruptionTarget True, reason DeletionByTaintManager',
    requirements: ['001-3-disruption-target'],
    async run(ctx) {
      await withPodsOnNode(ctx, async (n, pod) => {
        const p = await pod([], 'untolerated');
        const path = podPath(ctx, p.metadata.name);
        await taintNode(ctx, n);
        const seen = await waitFor(ctx, path, (o) => !!condition(o, 'DisruptionTarget') || gone(o), `pod ${p.metadata.name}, about to be evicted, is marked as a disruption target`,
          'pod condition DisruptionTarget', 10_000);
        const c = condition(seen, 'DisruptionTarget');
        expectEqual({ status: c?.status, reason: c?.reason, message: c?.message }, { status: 'True', reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint' },
          `the DisruptionTarget condition of pod ${p.metadata.name} (seen ${seen?.deleted ? 'on its deletion' : 'before its deletion'})`);
      });
    },
  }),

  // ---- default tolerations (admission, upstream DefaultTolerationSeconds)
  defineCase({
    suite: 'node-lifecycle',
    spec: { doc: '001', section: '3' },
    level: 'SHOULD',
    impact: 'namespaced',
    needs: ['api'],
    id: 'api.node-lifecycle.default-tolerations',
    title: 'A pod created without tolerations gets NoExecute tolerations of node.orch.io/not-ready and node.orch.io/unreachable for 300 s',
    requirements: ['001-3-default-tolerations'],
    async run(ctx) {
      const pod = await createObject(ctx, POD, {}, 'pod');
      const got = expectObject(await ctx.api.get(podPath(ctx, pod.metadata.name)), [200], 'Pod', 'read the pod back');
      for (const key of [NOT_READY, UNREACHABLE]) {
        const want = { key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };
        const found = (got.spec?.tolerations ?? []).find((t: any) => t?.key === key);
        expectEqual(found, want, `the toleration of ${key} the API server added to the pod`);
      }
    },
  }),
];
