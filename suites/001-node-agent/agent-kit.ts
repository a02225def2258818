// What cases that observe a node agent share (spec 001): their header, pods run on the agent's node,
// waits on the API that use watches with a deadline (never fixed sleeps), and the mock CRI's call
// log. Assertions stay in ../verify.ts; this file only gathers observations.
import type { CaseContext, Impact, TargetKind } from '../case.js';
import type { Level } from '../requirements/types.js';
import type { CriCall } from '../../runner/agent-target.js';
import { fail, show } from '../verify.js';

/** Pods cases run come from the mock CRI's catalogue: pullable without a network. */
export const RUN_IMAGE = 'docker.io/library/busybox:1.36';

/**
 * The header of a case that observes an agent. `node`: it runs pods on the agent's node, through the
 * mock CRI it controls; `read`: it only reads what the agent publishes (Node, Lease, endpoints);
 * `exec`: it starts agents itself.
 */
export function agentCase(section: string, level: Level, kind: 'node' | 'read' | 'exec', extra: readonly TargetKind[] = []) {
  const needs: TargetKind[] = kind === 'node' ? ['api', 'agent', 'cri'] : kind === 'read' ? ['api', 'agent'] : ['api', 'agent-exec'];
  const impact: Impact = kind === 'node' ? 'node' : kind === 'read' ? 'read-only' : 'disruptive';
  return { suite: 'node-agent', spec: { doc: '001' as const, section }, level, impact, needs: [...new Set([...needs, ...extra])] };
}

export const podPath = (ctx: CaseContext, name: string) => `/api/v1/namespaces/${ctx.namespace}/pods/${name}`;
export const nodePath = (name: string) => `/api/v1/nodes/${name}`;

/**
 * Creates a pod bound to the agent's node (spec.nodeName set, so no scheduler is involved) in the
 * run's namespace, labelled with the run and tracked for deletion. `spec` is merged over one
 * container `c` of RUN_IMAGE that sleeps. `name` is for a case that must know it before the pod
 * exists (e.g. to fault the pod's runtime calls first).
 */
export async function createPodOnNode(ctx: CaseContext, spec: Record<string, unknown> = {}, hint = 'pod', nodeName = ctx.agent().nodeName, name = ctx.uniqueName(hint)): Promise<any> {
  const body = {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, namespace: ctx.namespace, labels: { ...ctx.labels } },
    spec: { containers: [{ name: 'c', image: RUN_IMAGE, command: ['sleep', '3600'] }], terminationGracePeriodSeconds: 1, ...spec, nodeName },
  };
  const res = await ctx.api.post(`/api/v1/namespaces/${ctx.namespace}/pods`, body);
  if (res.status < 200 || res.status > 202) fail('create a pod on the agent\'s node', 'HTTP 200, 201 or 202 with the Pod', `HTTP ${res.status} ${res.text.slice(0, 300)}`);
  ctx.track(podPath(ctx, name));
  return res.json;
}

/**
 * Waits, on a watch of the one object at `path` (a pod or node), until `pred` holds; returns the
 * object. Fails with the last state seen when `timeoutMs` passes. The watch is reopened if the server
 * ends it early.
 */
export async function waitFor(ctx: CaseContext, path: string, pred: (o: any) => boolean, what: string, expected: string, timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  const slash = path.lastIndexOf('/');
  const collection = path.slice(0, slash);
  const name = path.slice(slash + 1);
  let last: any;
  while (Date.now() < deadline) {
    const res = await ctx.api.get(path);
    if (res.status === 200) {
      last = res.json;
      if (pred(last)) return last;
    }
    const w = await ctx.api.watch(collection, { fieldSelector: `metadata.name=${name}`, resourceVersion: res.json?.metadata?.resourceVersion, allowWatchBookmarks: false });
    try {
      if (w.status !== 200) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      for (;;) {
        const left = deadline - Date.now();
        if (left <= 0) break;
        const ev = await w.next(left);
        if (!ev) break;
        if (ev.type === 'ERROR') break;
        if (ev.object?.metadata?.name !== name) continue;
        if (ev.type === 'DELETED') { last = { deleted: true, ...ev.object }; if (pred(last)) return last; continue; }
        last = ev.object;
        if (pred(last)) return last;
      }
    } finally {
      w.close();
    }
  }
  return fail(`${what} (within ${timeoutMs / 1000}s)`, expected, show(last?.status ?? last ?? 'nothing read'));
}

/** Waits until the object at `path` is gone (404). */
export async function waitGone(ctx: CaseContext, path: string, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 0;
  while (Date.now() < deadline) {
    const res = await ctx.api.get(path);
    last = res.status;
    if (res.status === 404) return;
    const left = deadline - Date.now();
    if (left <= 0) break;
    await waitFor(ctx, path, (o) => !!o?.deleted, what, 'the object deleted', Math.min(left, 5_000)).catch(() => undefined);
  }
  fail(`${what} (within ${timeoutMs / 1000}s)`, 'the object gone (404)', `HTTP ${last}`);
}

/** The pod's `<namespace>/<name>`, as the mock CRI's faults and sandbox metadata name it. */
export const podKey = (pod: any) => `${pod.metadata.namespace}/${pod.metadata.name}`;

/** Calls of `rpc` (all if absent) that concern the pod, in order. */
export async function criCallsFor(ctx: CaseContext, pod: any, rpc?: string): Promise<CriCall[]> {
  const state = await ctx.cri().state();
  const ns = pod.metadata.namespace;
  const name = pod.metadata.name;
  const sandboxIds = new Set(state.sandboxes.filter((s: any) => s.metadata?.namespace === ns && s.metadata?.name === name).map((s: any) => s.id));
  const containerIds = new Set(state.containers.filter((c: any) => sandboxIds.has(c.sandboxId ?? c.pod_sandbox_id)).map((c: any) => c.id));
  const calls = await ctx.cri().calls(rpc);
  return calls.filter((c) => {
    const r = c.request ?? {};
    const md = r.config?.metadata?.uid !== undefined ? r.config.metadata : r.sandbox_config?.metadata;
    if (md) return md.namespace === ns && md.name === name;
    if (r.pod_sandbox_id) return sandboxIds.has(r.pod_sandbox_id);
    if (r.container_id) return containerIds.has(r.container_id);
    return false;
  });
}

/** The status of container `name` (containers, initContainers or ephemeral) of a pod. */
export function containerStatus(pod: any, name = 'c'): any {
  const all = [...(pod?.status?.initContainerStatuses ?? []), ...(pod?.status?.containerStatuses ?? []), ...(pod?.status?.ephemeralContainerStatuses ?? [])];
  return all.find((s: any) => s?.name === name);
}

export const isRunning = (pod: any) => pod?.status?.phase === 'Running' && containerStatus(pod)?.state?.running !== undefined;

/** Creates a pod on the agent's node (createPodOnNode) and waits until it runs (phase Running, container c running). */
export async function runningPodOnNode(ctx: CaseContext, spec: Record<string, unknown> = {}, hint = 'pod', nodeName?: string): Promise<any> {
  const created = await createPodOnNode(ctx, spec, hint, nodeName);
  return waitFor(ctx, podPath(ctx, created.metadata.name), isRunning, 'the pod on the agent\'s node runs', 'status.phase Running with container c running');
}

/** The runtime's id of a container from its status' containerID (`<runtime>://<id>`). */
export const runtimeId = (containerID: string | undefined): string | undefined => containerID?.replace(/^[^:]+:\/\//, '') || undefined;

/** The ids of the sandboxes the runtime holds now for the pod (by its sandbox metadata). */
export async function sandboxIdsOf(ctx: CaseContext, pod: any): Promise<string[]> {
  const state = await ctx.cri().state();
  return state.sandboxes.filter((s: any) => s.metadata?.namespace === pod.metadata.namespace && s.metadata?.name === pod.metadata.name).map((s: any) => s.id);
}
