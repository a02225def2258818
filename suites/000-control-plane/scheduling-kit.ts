// What the scheduler cases share (spec 000 §2.6/§3.2, spec 001 §3): each case registers Nodes of its
// own - Ready, with allocatable resources, a label and a NoSchedule taint unique to the node - and
// creates pods without nodeName that select that label and tolerate that taint, so its pods land
// nowhere else and no other pod lands on its nodes, whatever else the cluster runs. The Nodes post
// a heartbeat (Ready's lastHeartbeatTime) every second while the case runs, so a node lifecycle
// controller with a short grace period does not take them away mid-case.
import type { CaseContext } from '../case.js';
import type { ApiResponse } from '../../runner/client.js';
import { expectObject, fail, show, skip, SUCCESS } from '../verify.js';
import { waitFor } from '../wait.js';
import { itemPath } from './kinds.js';
import { POD_GROUP } from './kinds-workloads.js';

export const IMAGE = 'registry.orch.io/conformance/pause:3.10';
const LABEL = 'scheduling.conformance.orch.io/node';
const CONFINE = 'scheduling.conformance.orch.io/confine';
const MERGE = { 'content-type': 'application/merge-patch+json' };

/** Header fields of every scheduler case. */
export const schedulingCase = {
  suite: 'scheduling',
  impact: 'cluster-scoped',
  needs: ['api'],
  controllers: ['scheduler'],
} as const;

export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: 'NoSchedule' | 'NoExecute' | 'PreferNoSchedule';
}

export interface Toleration {
  readonly key?: string;
  readonly operator?: 'Exists' | 'Equal';
  readonly value?: string;
  readonly effect?: string;
}

export interface TestNode {
  readonly name: string;
  readonly path: string;
  /** What a pod needs to be placed here and only here. */
  readonly nodeSelector: Readonly<Record<string, string>>;
  readonly toleration: Toleration;
}

export interface NodeOptions {
  /** Allocatable `pods` (default 10): how many of the case's pods fit. */
  readonly pods?: number;
  readonly taints?: readonly Taint[];
  readonly unschedulable?: boolean;
}

export interface PodOptions {
  readonly hint?: string;
  readonly tolerations?: readonly Toleration[];
  readonly priority?: number;
  readonly group?: string;
  readonly affinity?: unknown;
}

const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const ready = (since: string) => ({ type: 'Ready', status: 'True', reason: 'ConformanceTest', message: 'registered by a conformance case', lastHeartbeatTime: now(), lastTransitionTime: since });

export const podPath = (ctx: CaseContext, name: string) => `/api/v1/namespaces/${encodeURIComponent(ctx.namespace)}/pods/${encodeURIComponent(name)}`;
export const groupPath = (ctx: CaseContext, name: string) => itemPath(POD_GROUP, ctx.namespace, name);

export const boundTo = (node: string) => (p: any) => !p?.deleted && p?.spec?.nodeName === node;
export const unbound = (p: any) => !p?.deleted && !p?.spec?.nodeName;
export const conditionOf = (o: any, type: string): any => (o?.status?.conditions ?? []).find((c: any) => c?.type === type);

/** The Nodes and pods of one case; `close` stops the heartbeats (the run deletes what was tracked). */
export class SchedulingEnv {
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(readonly ctx: CaseContext) {}

  /** Registers a Ready Node with its own label and confining taint (plus `o.taints`). */
  async node(o: NodeOptions = {}): Promise<TestNode> {
    const ctx = this.ctx;
    const name = ctx.uniqueName('node');
    const path = `/api/v1/nodes/${name}`;
    const confine: Taint = { key: CONFINE, value: name, effect: 'NoSchedule' };
    const since = now();
    const status = { capacity: { cpu: '4', memory: '8Gi', pods: String(o.pods ?? 10) }, allocatable: { cpu: '4', memory: '8Gi', pods: String(o.pods ?? 10) }, conditions: [ready(since)] };
    const body = {
      apiVersion: 'v1', kind: 'Node',
      metadata: { name, labels: { ...ctx.labels, [LABEL]: name } },
      spec: { taints: [confine, ...(o.taints ?? [])], ...(o.unschedulable ? { unschedulable: true } : {}) },
      status,
    };
    ctx.track(path);
    const created = expectObject(await ctx.api.post('/api/v1/nodes', body), SUCCESS.create, 'Node', `registering Node ${name}`);
    // A server may drop status on create: then it goes through the status subresource.
    if (conditionOf(created, 'Ready')?.status !== 'True') {
      expectObject(await ctx.api.put(`${path}/status`, { ...created, status }), SUCCESS.replace, 'Node', `writing the status of Node ${name}`);
    }
    const beat = setInterval(() => {
      void ctx.api.request('PATCH', `${path}/status`, { body: { status: { conditions: [ready(since)] } }, headers: MERGE }).catch(() => undefined);
    }, 1_000);
    beat.unref?.();
    this.timers.push(beat);
    return { name, path, nodeSelector: { [LABEL]: name }, toleration: { key: CONFINE, operator: 'Equal', value: name, effect: 'NoSchedule' } };
  }

  /** Sets or clears the node's spec.unschedulable. */
  async setUnschedulable(n: TestNode, unschedulable: boolean): Promise<void> {
    const res = await this.ctx.api.request('PATCH', n.path, { body: { spec: { unschedulable: unschedulable ? true : null } }, headers: MERGE });
    expectObject(res, SUCCESS.patch, 'Node', `setting spec.unschedulable=${unschedulable} on the Node`);
  }

  /** The body of a pod bound for `n` (it selects n's label and tolerates n's taint), not yet sent. */
  podBody(n: TestNode, o: PodOptions = {}): any {
    const ctx = this.ctx;
    return {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: ctx.uniqueName(o.hint ?? 'pod'), labels: { ...ctx.labels, [LABEL]: n.name } },
      spec: {
        containers: [{ name: 'c', image: IMAGE }],
        terminationGracePeriodSeconds: 0,
        nodeSelector: { ...n.nodeSelector },
        tolerations: [n.toleration, ...(o.tolerations ?? [])],
        ...(o.priority !== undefined ? { priority: o.priority } : {}),
        ...(o.group ? { schedulingGroup: { podGroupName: o.group } } : {}),
        ...(o.affinity ? { affinity: o.affinity } : {}),
      },
    };
  }

  /**
   * The body of a pod that may go to any of `nodes` and nowhere else (a required node affinity on the
   * nodes' labels, and each node's taint tolerated), not yet sent: for cases that need the scheduler
   * to choose between several feasible nodes.
   */
  podBodyFor(nodes: readonly TestNode[], o: PodOptions & { preferred?: unknown[] } = {}): any {
    const body = this.podBody(nodes[0]!, o);
    delete body.spec.nodeSelector;
    body.spec.tolerations = [...nodes.map((n) => n.toleration), ...(o.tolerations ?? [])];
    const required = { nodeSelectorTerms: [{ matchExpressions: [{ key: LABEL, operator: 'In', values: nodes.map((n) => n.name) }] }] };
    body.spec.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: required, ...(o.preferred ? { preferredDuringSchedulingIgnoredDuringExecution: o.preferred } : {}) } };
    return body;
  }

  /** Creates a pod for `n` without nodeName; a target that refuses spec.priority makes the case skip. */
  async pod(n: TestNode, o: PodOptions = {}): Promise<any> {
    const body = this.podBody(n, o);
    const res = await this.ctx.api.post(`/api/v1/namespaces/${encodeURIComponent(this.ctx.namespace)}/pods`, body);
    if (o.priority !== undefined) refusedPriority(res, 'Pod spec.priority');
    return expectObject(res, SUCCESS.create, 'Pod', `creating pod ${body.metadata.name} without nodeName`);
  }

  /** Creates a PodGroup: `gang` minCount, or basic; a target that refuses spec.priority makes the case skip. */
  async group(o: { gang?: number; priority?: number; hint?: string; name?: string } = {}): Promise<any> {
    const ctx = this.ctx;
    const spec: Record<string, unknown> = { schedulingPolicy: o.gang !== undefined ? { gang: { minCount: o.gang } } : { basic: {} } };
    if (o.priority !== undefined) spec['priority'] = o.priority;
    const name = o.name ?? ctx.uniqueName(o.hint ?? 'pg');
    const res = await ctx.api.post(`/apis/${POD_GROUP.apiVersion}/namespaces/${encodeURIComponent(ctx.namespace)}/podgroups`, {
      apiVersion: POD_GROUP.apiVersion, kind: 'PodGroup', metadata: { name, labels: { ...ctx.labels } }, spec,
    });
    if (o.priority !== undefined) refusedPriority(res, 'PodGroup spec.priority');
    return expectObject(res, SUCCESS.create, 'PodGroup', `creating PodGroup ${name}`);
  }

  /** Waits until the pod is bound to `n`. */
  bound(name: string, n: TestNode, what = `pod ${name} is bound to the case's node`, timeoutMs = 15_000): Promise<any> {
    return waitFor(this.ctx, podPath(this.ctx, name), boundTo(n.name), what, `spec.nodeName ${show(n.name)}`, timeoutMs);
  }

  /** Waits until one of the case's pods for `n` is bound to it; returns that pod. */
  async anyBound(n: TestNode, what: string, timeoutMs = 15_000): Promise<any> {
    const ctx = this.ctx;
    const collection = `/api/v1/namespaces/${encodeURIComponent(ctx.namespace)}/pods`;
    const labelSelector = `${LABEL}=${n.name}`;
    const deadline = Date.now() + timeoutMs;
    const list = await ctx.api.get(collection, { query: { labelSelector } });
    const hit = (list.json?.items ?? []).find(boundTo(n.name));
    if (hit) return hit;
    const w = await ctx.api.watch(collection, { labelSelector, resourceVersion: list.json?.metadata?.resourceVersion, allowWatchBookmarks: false });
    try {
      while (w.status === 200) {
        const left = deadline - Date.now();
        if (left <= 0) break;
        const ev = await w.next(left);
        if (!ev) break;
        if (ev.type !== 'DELETED' && boundTo(n.name)(ev.object)) return ev.object;
      }
    } finally {
      w.close();
    }
    return fail(`${what} (within ${timeoutMs / 1000}s)`, `a pod bound to ${n.name}`, 'none was bound');
  }

  close(): void {
    for (const t of this.timers.splice(0)) clearInterval(t);
  }
}

/** Runs `body` with a fresh SchedulingEnv, stopping its heartbeats afterwards. */
export async function scheduling(ctx: CaseContext, body: (env: SchedulingEnv) => Promise<void>): Promise<void> {
  const env = new SchedulingEnv(ctx);
  try {
    await body(env);
  } finally {
    env.close();
  }
}

/**
 * Spec 000 §2.6 lets a priority admission controller refuse a priority set by the user (it fills it
 * from a PriorityClass, which this kit does not create): such a target cannot be asked for priorities.
 */
function refusedPriority(res: ApiResponse, what: string): void {
  if (res.status >= 400 && res.status < 500 && res.status !== 409 && /priority/i.test(res.text)) {
    skip(`the target refuses ${what} set by the client (priority admission: HTTP ${res.status}); priorities come from PriorityClasses there`);
  }
}

/** Reads the pod and fails unless it is still unbound. */
export async function expectUnbound(ctx: CaseContext, name: string, what: string): Promise<any> {
  const res = await ctx.api.get(podPath(ctx, name));
  if (res.status !== 200) fail(what, 'the pod, unbound', `GET: HTTP ${res.status}`);
  if (res.json?.spec?.nodeName) fail(what, 'no spec.nodeName', `spec.nodeName ${show(res.json.spec.nodeName)}`);
  return res.json;
}

/**
 * The pod is not bound for `windowMs` (or is gone: a preempted pod is deleted, which is as good):
 * read once, then watched.
 */
export async function staysUnbound(ctx: CaseContext, name: string, windowMs: number, what: string): Promise<void> {
  const path = podPath(ctx, name);
  const res = await ctx.api.get(path);
  if (res.status === 404) return;
  if (res.status !== 200) fail(what, 'the pod, unbound (or gone)', `GET: HTTP ${res.status}`);
  if (res.json?.spec?.nodeName) fail(what, 'no spec.nodeName', `spec.nodeName ${show(res.json.spec.nodeName)}`);
  const events = await recordEvents(ctx, path, res.json?.metadata?.resourceVersion);
  try {
    const bound = await events.until((ev) => ev.type !== 'DELETED' && !!ev.object?.spec?.nodeName, windowMs);
    if (bound) fail(`${what} (within ${windowMs / 1000}s)`, 'no spec.nodeName', `spec.nodeName ${show(bound.object.spec.nodeName)}`);
  } finally {
    events.close();
  }
}

/**
 * Records the events of a watch on one object from its current resourceVersion, in the background,
 * for what may be over before a later read (a pod marked, then deleted at once).
 */
export async function recordEvents(ctx: CaseContext, path: string, resourceVersion: string): Promise<{ events: any[]; until(pred: (ev: any) => boolean, timeoutMs: number): Promise<any>; close(): void }> {
  const slash = path.lastIndexOf('/');
  const w = await ctx.api.watch(path.slice(0, slash), { fieldSelector: `metadata.name=${decodeURIComponent(path.slice(slash + 1))}`, resourceVersion, allowWatchBookmarks: false });
  if (w.status !== 200) fail(`watching ${path}`, 'HTTP 200', `HTTP ${w.status}`);
  const events: any[] = [];
  return {
    events,
    async until(pred, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (const ev of events) if (pred(ev)) return ev;
      for (;;) {
        const left = deadline - Date.now();
        if (left <= 0) return undefined;
        const ev = await w.next(left);
        if (!ev) return undefined;
        events.push(ev);
        if (pred(ev)) return ev;
      }
    },
    close: () => w.close(),
  };
}
