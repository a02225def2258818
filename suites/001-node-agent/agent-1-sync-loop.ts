// Spec 001 §1, observed on an agent: the sync loop runs the pods bound to its node through the CRI
// (sandbox, then containers) and tears them down on deletion; the PLEG turns runtime changes into
// pod status.
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectEqual, expectTrue, fail, show, skip } from '../verify.js';
import type { CriCall } from '../../runner/agent-target.js';
import {
  agentCase, containerStatus, createPodOnNode, criCallsFor, isRunning, podPath, runtimeId, sandboxIdsOf, waitFor, waitGone, RUN_IMAGE,
} from './agent-kit.js';

/**
 * Creates a pod on the agent's node and waits until container `c` runs; returns it with the runtime's ids.
 * The wait is as long as agent-kit's (20 s): a pod with init containers takes a sync round per init
 * container, which a loaded CI machine stretches (15 s was seen to fall short there).
 */
async function runningPod(ctx: CaseContext, spec: Record<string, unknown> = {}, hint = 'pod'): Promise<{ pod: any; containerId: string; sandboxIds: string[] }> {
  const created = await createPodOnNode(ctx, spec, hint);
  const pod = await waitFor(ctx, podPath(ctx, created.metadata.name), isRunning, 'the pod on the agent\'s node runs', 'status.phase Running with container c running');
  const containerId = runtimeId(containerStatus(pod, 'c')?.containerID);
  if (!containerId) fail('the running container reports its runtime id', 'containerStatuses[c].containerID <runtime>://<id>', show(containerStatus(pod, 'c')));
  const sandboxIds = await sandboxIdsOf(ctx, pod);
  if (sandboxIds.length === 0) fail('the runtime holds a sandbox for the running pod', 'a sandbox with the pod\'s metadata', 'none');
  return { pod, containerId: containerId!, sandboxIds };
}

/** The first call of `rpc` whose request names `field` = one of `ids`, or undefined. */
async function firstCall(ctx: CaseContext, rpc: string, field: string, ids: readonly string[]): Promise<CriCall | undefined> {
  return (await ctx.cri().calls(rpc)).find((c) => ids.includes(c.request?.[field]));
}

/** Waits, polling the call log (bounded), until `rpc` names one of `ids`. */
async function waitCall(ctx: CaseContext, rpc: string, field: string, ids: readonly string[], timeoutMs: number): Promise<CriCall | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const c = await firstCall(ctx, rpc, field, ids);
    if (c || Date.now() >= deadline) return c;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Container c terminated with `code` (state, or lastState once restarted). */
const exitedWith = (code: number) => (p: any) => {
  const s = containerStatus(p, 'c');
  return s?.state?.terminated?.exitCode === code || s?.lastState?.terminated?.exitCode === code;
};

export const agentSyncLoopCases: Case[] = [
  defineCase({
    ...agentCase('1', 'MUST', 'node'),
    id: 'agent.sync.pod-runs-through-cri',
    title: 'A pod bound to the node runs: RunPodSandbox, then CreateContainer and StartContainer in it, and the pod reports Running',
    requirements: ['001-1-sync-loop-assigned-pods', '001-1-cri-client'],
    async run(ctx) {
      const pod = await createPodOnNode(ctx);
      const running = await waitFor(ctx, podPath(ctx, pod.metadata.name), isRunning, 'the pod on the agent\'s node runs', 'status.phase Running with container c running');
      expectTrue(!!containerStatus(running, 'c')?.containerID, 'the running container has a containerID', 'a containerID', show(containerStatus(running, 'c')));
      const calls = (await criCallsFor(ctx, pod)).map((c) => c.rpc);
      const order = ['RunPodSandbox', 'CreateContainer', 'StartContainer'].map((rpc) => calls.indexOf(rpc));
      expectTrue(order.every((i) => i >= 0) && order[0]! < order[1]! && order[1]! < order[2]!, 'the agent asked the runtime for a sandbox, then created and started the container in it',
        'RunPodSandbox before CreateContainer before StartContainer', show(calls));
    },
  }),

  defineCase({
    ...agentCase('1', 'MUST', 'node'),
    id: 'agent.sync.deletion-stops-through-cri',
    // Removal (RemoveContainer, RemovePodSandbox) is left out: upstream leaves it to garbage collection,
    // a minute or more later, and the spec sets no time for it.
    title: 'A deleted pod is terminated through the CRI: StopContainer for its container before StopPodSandbox for its sandbox, then the pod object goes away',
    requirements: ['001-1-sync-loop-pod-worker'],
    async run(ctx) {
      const { pod, containerId, sandboxIds } = await runningPod(ctx, {}, 'del');
      const path = podPath(ctx, pod.metadata.name);
      const res = await ctx.api.delete(path);
      if (res.status !== 200 && res.status !== 202) fail('delete the running pod', 'HTTP 200 or 202', `HTTP ${res.status} ${res.text.slice(0, 200)}`);
      // terminationGracePeriodSeconds is 1: the agent has well under the bound to stop it and let it go.
      await waitGone(ctx, path, 'the deleted pod is terminated by the agent and removed', 12_000);
      const stopC = await waitCall(ctx, 'StopContainer', 'container_id', [containerId], 2_000);
      const stopS = await waitCall(ctx, 'StopPodSandbox', 'pod_sandbox_id', sandboxIds, 2_000);
      expectTrue(!!stopC, 'the agent stopped the pod\'s container through the CRI', `StopContainer{container_id: ${containerId}}`, show(await criCallsFor(ctx, pod)));
      expectTrue(!!stopS, 'the agent stopped the pod\'s sandbox through the CRI', `StopPodSandbox{pod_sandbox_id: one of ${sandboxIds.join(', ')}}`, show((await ctx.cri().calls('StopPodSandbox')).slice(-10)));
      expectTrue(stopC!.seq < stopS!.seq, 'the container is stopped before its sandbox', 'StopContainer before StopPodSandbox',
        `StopContainer seq ${stopC!.seq}, StopPodSandbox seq ${stopS!.seq}`);
    },
  }),

  defineCase({
    ...agentCase('1', 'MUST', 'node'),
    id: 'agent.pleg.container-exit-in-status',
    title: 'A container that exits in the runtime shows in the pod status as terminated with its exit code, with no change made to the pod through the API',
    requirements: ['001-1-pleg-polling'],
    async run(ctx) {
      const { pod, containerId } = await runningPod(ctx, { restartPolicy: 'Never' }, 'exit');
      await ctx.cri().exitContainer(containerId, 3);
      const after = await waitFor(ctx, podPath(ctx, pod.metadata.name), exitedWith(3), 'the exit in the runtime reaches the pod status',
        'containerStatuses[c].state.terminated.exitCode 3', 10_000);
      const term = containerStatus(after, 'c').state?.terminated ?? containerStatus(after, 'c').lastState?.terminated;
      expectEqual(runtimeId(term.containerID) ?? containerId, containerId, 'the terminated state is the container that exited');
    },
  }),

  defineCase({
    ...agentCase('7', 'MUST', 'node'),
    id: 'agent.pleg.exit-wakes-sync-loop',
    title: 'A container exit seen by polling the runtime wakes the sync loop: with restartPolicy Always the agent starts the container again and counts the restart',
    requirements: ['001-7-pleg-events'],
    async run(ctx) {
      const { pod, containerId } = await runningPod(ctx, { restartPolicy: 'Always' }, 'wake');
      await ctx.cri().exitContainer(containerId, 3);
      // Upstream restarts a container's first exit at once (back-off starts at the second).
      const after = await waitFor(ctx, podPath(ctx, pod.metadata.name), (p) => (containerStatus(p, 'c')?.restartCount ?? 0) >= 1,
        'the exit wakes the sync loop, which restarts the container', 'containerStatuses[c].restartCount ≥ 1', 12_000);
      const starts = (await criCallsFor(ctx, pod, 'StartContainer')).filter((c) => c.request?.container_id !== containerId);
      expectTrue(starts.length > 0, 'the agent started a new instance of the container through the CRI', 'a StartContainer for another container id', show(await criCallsFor(ctx, pod)));
      expectEqual(containerStatus(after, 'c')?.lastState?.terminated?.exitCode, 3, 'lastState.terminated.exitCode of the restarted container');
    },
  }),

  defineCase({
    ...agentCase('1', 'MUST', 'node'),
    id: 'agent.sync.only-assigned-pods',
    title: 'The agent runs only pods bound to its node: a pod bound to another node gets no sandbox while a later pod on its own node runs',
    requirements: ['001-1-sync-loop-assigned-pods'],
    async run(ctx) {
      const other = await createPodOnNode(ctx, {}, 'elsewhere', `${ctx.agent().nodeName}-elsewhere`);
      try {
        // Created after the other: once it runs, the agent has seen the other pod's creation too.
        await runningPod(ctx, {}, 'here');
        const sandboxes = (await ctx.cri().calls('RunPodSandbox')).filter((c) => {
          const md = c.request?.config?.metadata;
          return md?.namespace === other.metadata.namespace && md?.name === other.metadata.name;
        });
        expectEqual(sandboxes.length, 0, `RunPodSandbox calls for pod ${other.metadata.name}, bound to node ${other.spec.nodeName}`);
      } finally {
        // No agent will ever terminate it: remove it at once.
        await ctx.api.delete(podPath(ctx, other.metadata.name), { query: { gracePeriodSeconds: 0 } }).catch(() => undefined);
      }
    },
  }),

  defineCase({
    ...agentCase('1', 'MUST', 'node'),
    id: 'agent.sync.init-containers-in-order',
    title: 'Init containers are created and started one after another in spec order, each before the next, and all before the app container',
    requirements: ['001-1-cri-client'],
    async run(ctx) {
      const init = (name: string) => ({ name, image: RUN_IMAGE, command: ['sh', '-c', 'exit 0'] });
      const { pod } = await runningPod(ctx, { initContainers: [init('i1'), init('i2')] }, 'init');
      const calls = await criCallsFor(ctx, pod);
      const created = (name: string) => calls.findIndex((c) => c.rpc === 'CreateContainer' && c.request?.config?.metadata?.name === name);
      // StartContainer names an id: the runtime's state tells which container (by metadata name) it is.
      const state = await ctx.cri().state();
      const started = (name: string) => {
        const ids = state.containers.filter((c: any) => c.metadata?.name === name).map((c: any) => c.id);
        return calls.findIndex((c) => c.rpc === 'StartContainer' && ids.includes(c.request?.container_id));
      };
      const seq = [created('i1'), started('i1'), created('i2'), started('i2'), created('c'), started('c')];
      const ok = seq.every((i) => i >= 0) && seq.every((i, k) => k === 0 || seq[k - 1]! < i);
      expectTrue(ok, 'the init containers ran in order before the app container',
        'Create i1 < Start i1 < Create i2 < Start i2 < Create c < Start c',
        show(calls.filter((c) => c.rpc === 'CreateContainer' || c.rpc === 'StartContainer').map((c) => `${c.rpc} ${c.request?.config?.metadata?.name ?? c.request?.container_id}`)));
    },
  }),

  defineCase({
    ...agentCase('1', 'SHOULD', 'node'),
    id: 'agent.sync.cri-run-pod-sandbox-metadata',
    title: 'RunPodSandbox carries the pod in config.metadata: its name, uid and namespace',
    requirements: ['001-1-cri-run-pod-sandbox'],
    async run(ctx) {
      const { pod } = await runningPod(ctx, {}, 'sbmd');
      // Found by uid, so that a request naming the pod wrongly is still seen (and judged).
      const calls = (await ctx.cri().calls('RunPodSandbox')).filter((c) => c.request?.config?.metadata?.uid === pod.metadata.uid);
      if (calls.length === 0) fail('the pod\'s RunPodSandbox request', `config.metadata.uid ${pod.metadata.uid}`, 'no RunPodSandbox with that uid');
      const md = calls[0]!.request.config.metadata;
      expectEqual({ name: md.name, uid: md.uid, namespace: md.namespace }, { name: pod.metadata.name, uid: pod.metadata.uid, namespace: pod.metadata.namespace },
        'RunPodSandboxRequest.config.metadata {name, uid, namespace}');
    },
  }),

  defineCase({
    ...agentCase('1', 'SHOULD', 'node'),
    id: 'agent.sync.cri-create-container-request',
    title: 'CreateContainer names the pod\'s sandbox (pod_sandbox_id), the container (config.metadata.name, command) and repeats the sandbox config with the pod\'s metadata',
    requirements: ['001-1-cri-create-container'],
    async run(ctx) {
      const { pod, sandboxIds } = await runningPod(ctx, {}, 'ccreq');
      const call = (await ctx.cri().calls('CreateContainer')).find((c) => sandboxIds.includes(c.request?.pod_sandbox_id) && c.request?.config?.metadata?.name === 'c');
      if (!call) fail('the CreateContainer request for container c', `pod_sandbox_id one of ${sandboxIds.join(', ')} and config.metadata.name "c"`, show(await criCallsFor(ctx, pod, 'CreateContainer')));
      const r = call!.request;
      expectEqual(r.config.command, ['sleep', '3600'], 'CreateContainerRequest.config.command (the container\'s command)');
      expectTrue(!!r.config.image?.image, 'CreateContainerRequest.config.image.image names the image', 'a non-empty image', show(r.config.image));
      const md = r.sandbox_config?.metadata;
      expectEqual({ name: md?.name, uid: md?.uid, namespace: md?.namespace }, { name: pod.metadata.name, uid: pod.metadata.uid, namespace: pod.metadata.namespace },
        'CreateContainerRequest.sandbox_config.metadata {name, uid, namespace}');
    },
  }),

  defineCase({
    ...agentCase('1', 'SHOULD', 'node'),
    id: 'agent.sync.cri-stop-container-request',
    title: 'On deletion StopContainer names the container (container_id) and carries the grace period in seconds (timeout)',
    requirements: ['001-1-cri-container-lifecycle'],
    async run(ctx) {
      // A grace period above upstream's 2 s minimum, so that the timeout is exactly it.
      const { pod, containerId } = await runningPod(ctx, { terminationGracePeriodSeconds: 5 }, 'stopreq');
      const path = podPath(ctx, pod.metadata.name);
      const res = await ctx.api.delete(path);
      if (res.status !== 200 && res.status !== 202) fail('delete the running pod', 'HTTP 200 or 202', `HTTP ${res.status} ${res.text.slice(0, 200)}`);
      const stop = await waitCall(ctx, 'StopContainer', 'container_id', [containerId], 10_000);
      if (!stop) fail('the agent stops the deleted pod\'s container (within 10s)', `StopContainer{container_id: ${containerId}}`, show(await criCallsFor(ctx, pod)));
      expectEqual(Number(stop!.request.timeout), 5, 'StopContainerRequest.timeout (the deletion grace period, seconds)');
    },
  }),
  defineCase({
    ...agentCase('1', 'SHOULD', 'node'),
    id: 'agent.sync.terminating-final-delete',
    title: 'A deleted pod stays in the API, terminating, until the agent has stopped its container (StopContainer with the grace period) and reported it terminated; the agent then deletes it',
    requirements: ['001-1-sync-terminating-final-delete'],
    async run(ctx) {
      const { pod, containerId } = await runningPod(ctx, { terminationGracePeriodSeconds: 3 }, 'final');
      const name = pod.metadata.name;
      const w = await ctx.api.watch(`/api/v1/namespaces/${ctx.namespace}/pods`, { fieldSelector: `metadata.name=${name}`, resourceVersion: pod.metadata.resourceVersion, allowWatchBookmarks: false });
      try {
        if (w.status !== 200) fail('watch the pod', 'HTTP 200', `HTTP ${w.status}`);
        const del = await ctx.api.delete(podPath(ctx, name));
        if (del.status !== 200 && del.status !== 202) fail('delete the running pod', 'HTTP 200 or 202', `HTTP ${del.status} ${del.text.slice(0, 200)}`);
        // Spec 000 leaves a kind's default grace period open: a server may remove the pod at once.
        if (!del.json?.metadata?.deletionTimestamp) skip('the server removed the pod at once (no deletionTimestamp in the answer to the delete): there is no terminating pod whose end the agent could bring about');
        const deadline = Date.now() + 15_000;
        let last: any = del.json;
        let gone: any;
        while (!gone) {
          const left = deadline - Date.now();
          const ev = left > 0 ? await w.next(left) : undefined;
          if (!ev) fail('the agent finishes the deletion: the pod leaves the API (within 15s)', 'a DELETED watch event', show(last?.metadata));
          if (ev!.type === 'ERROR') fail('watch the pod', 'no ERROR event', show(ev!.object));
          if (ev!.object?.metadata?.name !== name) continue;
          if (ev!.type === 'DELETED') gone = ev!.object;
          else last = ev!.object;
        }
        // Read as soon as the pod left the API: a stop asked for afterwards is not in the log yet.
        const stop = await firstCall(ctx, 'StopContainer', 'container_id', [containerId]);
        if (!stop) fail('the agent stopped the container through the CRI before the pod left the API', `StopContainer{container_id: ${containerId}}`, show(await criCallsFor(ctx, pod)));
        expectEqual(Number(stop!.request.timeout), 3, 'StopContainerRequest.timeout (the deletion grace period, seconds)');
        expectTrue(!!containerStatus(gone, 'c')?.state?.terminated, 'the last status the pod had in the API shows its container terminated (the agent\'s final status)',
          'containerStatuses[c].state.terminated', show(containerStatus(gone, 'c')?.state));
      } finally {
        w.close();
      }
    },
  }),
  defineCase({
    ...agentCase('1', 'MUST', 'node'),
    id: 'agent.sync.runtime-refusal-not-running',
    // Upstream's waiting reason (CreateContainerError) and message are not in the spec: not checked here.
    title: 'The runtime is the source of truth for containers: when it refuses CreateContainer, the pod status does not report the container running or ready',
    requirements: ['001-1-sources-of-truth'],
    async run(ctx) {
      const name = ctx.uniqueName('refused');
      // The fault is in place before the pod exists, and only for this pod's calls.
      await ctx.cri().addFault({ rpc: 'CreateContainer', code: 2, message: 'oc-conformance: the runtime refuses this container', pod: `${ctx.namespace}/${name}` });
      const pod = await createPodOnNode(ctx, {}, 'refused', ctx.agent().nodeName, name);
      const deadline = Date.now() + 10_000;
      while ((await criCallsFor(ctx, pod, 'CreateContainer')).length === 0) {
        if (Date.now() >= deadline) fail('the agent asks the runtime to create the container (within 10s)', 'a CreateContainer call for the pod', show(await criCallsFor(ctx, pod)));
        await new Promise((r) => setTimeout(r, 200));
      }
      const seen = await waitFor(ctx, podPath(ctx, name), (p) => !!containerStatus(p, 'c'), 'the agent reports the container after the refused creation',
        'containerStatuses[c]', 10_000);
      const c = containerStatus(seen, 'c');
      expectTrue(c.state?.running === undefined && c.ready !== true && seen.status?.phase !== 'Running', 'a container the runtime refused to create is not reported running',
        'state not running, ready false, phase not Running', show({ phase: seen.status?.phase, c }));
    },
  }),
];
