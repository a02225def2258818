// What cases that observe a node agent share (spec 001): their header, pods run on the agent's node,
// waits on the API that use watches with a deadline (never fixed sleeps), and the mock CRI's call
// log. Assertions stay in ../verify.ts; this file only gathers observations.
import type { CaseContext, Impact, TargetKind } from '../case.js';
import type { Level } from '../requirements/types.js';
import type { CriCall } from '../../runner/agent-target.js';
import { fail } from '../verify.js';
import { waitFor } from '../wait.js';
export { waitFor, waitGone } from '../wait.js';

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
