// What the node-status cases (spec 001 §2.2, §3) share: the agent's Node and Lease, its conditions,
// and quantities compared across capacity and allocatable.
import type { CaseContext } from '../case.js';
import type { LaunchedAgent } from '../../runner/agent-exec.js';
import { CaseFailure, fail, show } from '../verify.js';
import { nodePath, waitFor } from './agent-kit.js';

export const NODE_LEASE_NAMESPACE = 'node-lease';
export const leasePath = (node: string) => `/apis/coordination.orch.io/v1/namespaces/${NODE_LEASE_NAMESPACE}/leases/${node}`;

/** The condition of `type` in a Node's status, if any. */
export const condition = (node: any, type: string): any => (node?.status?.conditions ?? []).find((c: any) => c?.type === type);

/**
 * The object at `path` (a Node, a Lease), once `pred` holds on it (its agent may still be creating
 * it). Fails after `timeoutMs` with `view` of the object as last read (the part the case looks at;
 * default waitFor's: its status).
 */
export async function objectWhen(ctx: CaseContext, path: string, pred: (o: any) => boolean, what: string, expected: string, view?: (o: any) => unknown, timeoutMs = 10_000): Promise<any> {
  try {
    return await waitFor(ctx, path, pred, what, expected, timeoutMs);
  } catch (err) {
    if (!(err instanceof CaseFailure) || !view) throw err;
    const res = await ctx.api.get(path);
    return fail(err.message, expected, res.status === 200 ? show(view(res.json)) : `HTTP ${res.status}`);
  }
}

/** objectWhen on the Node `nodeName`. */
export const nodeWhen = (ctx: CaseContext, nodeName: string, pred: (n: any) => boolean, what: string, expected: string, view?: (n: any) => unknown, timeoutMs = 10_000) =>
  objectWhen(ctx, nodePath(nodeName), pred, what, expected, view, timeoutMs);

/** nodeWhen on the Node of the agent under test. */
export const agentNode = (ctx: CaseContext, pred: (n: any) => boolean, what: string, expected: string, view?: (n: any) => unknown, timeoutMs = 10_000) =>
  nodeWhen(ctx, ctx.agent().nodeName, pred, what, expected, view, timeoutMs);

/** The Ready condition of a Node (or its condition types when it has none), for failure messages. */
export const readyView = (n: any) => condition(n, 'Ready') ?? { conditions: (n?.status?.conditions ?? []).map((c: any) => c?.type) };

/**
 * Waits until the Node of a launched agent reports Ready True: the agent is up and publishing. 20 s:
 * a fresh agent process registering on a loaded CI machine was seen to need more than 10.
 */
export function launchedReady(ctx: CaseContext, launched: LaunchedAgent, timeoutMs = 20_000): Promise<any> {
  return nodeWhen(ctx, launched.nodeName, (n) => condition(n, 'Ready')?.status === 'True',
    'the launched agent registers its Node and reports it Ready (its runtime is ready)', 'condition Ready with status True', readyView, timeoutMs);
}

/**
 * Makes a launched agent's runtime report RuntimeReady false and waits until the agent has written
 * Ready False: a status write the agent made after that moment (`what` says why the case needs it).
 */
export function runtimeNotReady(ctx: CaseContext, launched: LaunchedAgent, what: string): Promise<any> {
  launched.cri.control.setRuntimeReady(false, 'ConformanceNotReady', 'made not ready by the conformance case');
  return nodeWhen(ctx, launched.nodeName, (n) => condition(n, 'Ready')?.status === 'False', what, 'condition Ready with status False', readyView, 20_000);
}

const SUFFIX: Record<string, number> = {
  '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/** A resource quantity as a number (`4`, `3500m`, `16Gi`, `1e3`); undefined when it is not one. */
export function quantity(q: unknown): number | undefined {
  if (typeof q === 'number') return q;
  if (typeof q !== 'string') return undefined;
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei))?$/.exec(q.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  if (m[2]) return n * 10 ** Number(m[2].slice(1));
  return n * SUFFIX[m[3] ?? '']!;
}
