// Spec 001 §4.2 (with §2.1, §6, §7, §8 where they restate it): the agent's pod info gRPC service on its
// unix socket, called through pod-info-client.ts. Cases on the shared agent use its socket
// (`--agent-pod-socket`); those about start-up, the socket's place and the control plane going away
// start agents of their own.
//
// What the spec leaves open, the suite takes from upstream (KEP-4188, ground truth): the gRPC package
// and service (v1alpha1.Pods) and the field mask's metadata key (x-orch-fieldmask). MUST cases skip
// when the agent answers UNIMPLEMENTED for that service, or ignores a mask under that key; the SHOULD
// cases agent.podinfo.service-name and agent.podinfo.field-mask-metadata-key check those names. Pods
// travel as their JSON (UTF-8) in the messages' bytes (pods.proto): an agent that sends another
// encoding fails with a decoding error that shows what it sent.
//
// Not here: 001-4.2-pod-info-not-windows. It is about agents on Windows nodes; a runner on Linux cannot
// observe it, and a case that can only skip would be no proof.
import { randomUUID } from 'node:crypto';
import { lstat, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Stats } from 'node:fs';
import { defineCase, type Case, type CaseContext } from '../case.js';
import type { Level } from '../requirements/types.js';
import { expectEqual, expectTrue, fail, show, skip } from '../verify.js';
import { agentCase, containerStatus, createPodOnNode, isRunning, podPath, runtimeId, waitFor } from './agent-kit.js';
import { expectOk, FIELD_MASK_KEY, listedPod, PODS_SERVICE, withPodInfo, type PodInfoClient } from './pod-info-client.js';
import { startApiRelay } from './api-relay.js';
import { AgentStartError, loadMockCri, type LaunchedAgent } from '../../runner/agent-exec.js';
import { withScratch } from './agent-exec-kit.js';

/** The header of a case on the shared agent's pod info socket; `node` when it runs pods there, `cri` when it drives their runtime. */
function podInfoCase(section: string, level: Level, impact: 'read-only' | 'node', cri = false) {
  return { ...agentCase(section, level, 'read', cri ? ['cri', 'agent-socket'] : ['agent-socket']), impact };
}

/** The socket the spec names, under a launched agent's root dir. */
const socketOf = (a: LaunchedAgent) => join(a.rootDir, 'pods', 'agent.sock');

/** Polls (bounded) until something exists at `path`; gives its lstat, or undefined. */
async function appears(path: string, timeoutMs: number, everyMs = 100): Promise<Stats | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await lstat(path);
    } catch { /* not yet */ }
    if (Date.now() >= deadline) return undefined;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const listing = async (dir: string) => show(await readdir(dir).catch((e) => `(cannot list: ${(e as Error).message})`));

/** Creates a pod (one sleeping container c, `spec` over it) on the shared agent's node and waits until pod info lists it running. */
async function runningPod(ctx: CaseContext, c: PodInfoClient, spec: Record<string, unknown> = {}, hint = 'pod'): Promise<any> {
  const pod = await createPodOnNode(ctx, spec, hint);
  return listedPod(c, pod.metadata.uid, isRunning, `ListPods shows pod ${pod.metadata.name} running`, 'the pod listed with status.phase Running and container c running', 20_000);
}

/** Only these keys (type metadata aside: an agent may name the kind). */
function onlyKeys(o: unknown, keys: readonly string[], what: string): void {
  const got = o && typeof o === 'object' ? Object.keys(o).filter((k) => k !== 'apiVersion' && k !== 'kind').sort() : o;
  expectEqual(got, [...keys].sort(), what);
}

/** A case on a socket at <root_dir>/pods/agent.sock of an agent started with its defaults (§2.1 and §4.2 name it). */
async function socketAtRootDir(ctx: CaseContext): Promise<void> {
  const a = await ctx.agents.launch({ controlPlane: false });
  const path = socketOf(a);
  const st = await appears(path, 10_000);
  if (!st) fail('<root_dir>/pods/agent.sock once the agent started (within 10s)', 'a unix socket', `absent; <root_dir>/pods holds ${await listing(join(a.rootDir, 'pods'))}`);
  if (!st.isSocket()) fail('<root_dir>/pods/agent.sock', 'a unix socket', 'a file of another type');
  await withPodInfo(path, async (c) => {
    const r = await c.list();
    // A gRPC answer of the service (FAILED_PRECONDITION while it initializes; UNIMPLEMENTED: another package) shows who listens.
    if (!r.ok && !['FAILED_PRECONDITION', 'UNIMPLEMENTED'].includes(r.codeName)) {
      fail(`ListPods on ${path}`, 'a gRPC answer of the pod info service (OK, or FAILED_PRECONDITION while it initializes)', `${r.codeName}: ${show(r.details)}`);
    }
  });
}

/** The running container of pod `uid` in a runtime's state (by its sandbox's metadata). */
function runningContainerIn(state: { sandboxes: any[]; containers: any[] }, uid: string): string | undefined {
  const sandboxes = new Set(state.sandboxes.filter((s) => s?.metadata?.uid === uid).map((s) => s.id));
  return state.containers.find((k) => sandboxes.has(k?.sandboxId) && k?.state === 'CONTAINER_RUNNING')?.id;
}

/** Container c of the pod terminated with `code`. */
const terminatedWith = (code: number) => (p: any) => containerStatus(p, 'c')?.state?.terminated?.exitCode === code;

/**
 * Starts an agent whose control plane is reached through a relay the case controls, with a running pod
 * (restartPolicy Never) on its node; gives them to `fn`, then deletes the pod.
 */
async function withRelayedAgent(ctx: CaseContext, hint: string, fn: (a: LaunchedAgent, relay: Awaited<ReturnType<typeof startApiRelay>>, c: PodInfoClient, pod: any) => Promise<void>): Promise<void> {
  const relay = await startApiRelay(ctx.api.conn.baseUrl);
  try {
    let a: LaunchedAgent;
    try {
      a = await ctx.agents.launch({ apiUrl: relay.url });
    } catch (err) {
      if (err instanceof AgentStartError) skip(`an agent whose kubeconfig points at a TCP relay on the loopback (${relay.url}) in front of the run's API did not start, so the API cannot be taken away from it (is the API's certificate valid for that address?): ${err.message.slice(0, 300)}`);
      throw err;
    }
    const created = await createPodOnNode(ctx, { restartPolicy: 'Never' }, hint, a.nodeName);
    try {
      await withPodInfo(socketOf(a), async (c) => {
        const pod = await listedPod(c, created.metadata.uid, isRunning, `ListPods of the launched agent shows pod ${created.metadata.name} running`, 'the pod listed with status.phase Running and container c running', 20_000);
        await fn(a, relay, c, pod);
      });
    } finally {
      await ctx.api.delete(podPath(ctx, created.metadata.name), { query: { gracePeriodSeconds: 0 } }).catch(() => undefined);
    }
  } finally {
    await relay.close();
  }
}

export const agentPodInfoCases: Case[] = [
  // ---------------------------------------------------------------- the socket
  defineCase({
    ...agentCase('4.2', 'MUST', 'exec'),
    id: 'agent.podinfo.socket-path',
    title: 'The pod info gRPC service listens on the unix socket <root_dir>/pods/agent.sock',
    requirements: ['001-4.2-pod-info-socket'],
    run: socketAtRootDir,
  }),
  defineCase({
    ...agentCase('2.1', 'SHOULD', 'exec'),
    id: 'agent.podinfo.socket-in-root-dir',
    title: 'The file table\'s pod info socket is <root_dir>/pods/agent.sock (the spec\'s /var/lib/agent/pods/agent.sock)',
    requirements: ['001-2.1-pod-info-socket'],
    run: socketAtRootDir,
  }),
  defineCase({
    ...agentCase('4.2', 'MUST', 'exec'),
    id: 'agent.podinfo.enabled-by-default',
    title: 'An agent started without any feature gate or configuration serves pod info: ListPods answers OK on its socket',
    requirements: ['001-4.2-pod-info-default-enabled'],
    async run(ctx) {
      const a = await ctx.agents.launch({ controlPlane: false });
      const path = socketOf(a);
      if (!await appears(path, 10_000)) fail('the pod info socket of an agent with default settings (within 10s)', `a socket at ${path}`, `absent; <root_dir>/pods holds ${await listing(join(a.rootDir, 'pods'))}`);
      await withPodInfo(path, async (c) => {
        const deadline = Date.now() + 15_000;
        for (;;) {
          const r = await c.list();
          if (r.ok) return;
          if (r.codeName === 'UNIMPLEMENTED') expectOk(r, 'ListPods');
          if (Date.now() >= deadline) fail('ListPods on the socket of an agent with default settings (within 15s of its start)', 'OK: the service is on without any gate', `${r.codeName}: ${show(r.details)}`);
          await new Promise((res) => setTimeout(res, 200));
        }
      });
    },
  }),
  defineCase({
    ...podInfoCase('6', 'MUST', 'read-only'),
    id: 'agent.podinfo.socket-owner-only',
    title: 'The pod info socket is restricted by file permissions to its owner: no group or other permission bits on it, or on its directory',
    requirements: ['001-6-pod-info-socket-permissions'],
    async run(ctx) {
      const path = ctx.podInfoSocket();
      let st: Stats;
      try {
        st = await lstat(path);
      } catch (err) {
        return skip(`the pod info socket ${path} cannot be looked at from this run (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      }
      expectTrue(st.isSocket(), `${path}: file type`, 'a unix socket', 'a file of another type');
      if ((st.mode & 0o077) === 0) return;
      // The socket's own bits are open: its directory may still keep everyone else out (a 0660 socket
      // in a 0700 directory of the same owner is restricted by file permissions too).
      const dir = await lstat(dirname(path));
      const closed = (dir.mode & 0o077) === 0 && dir.uid === st.uid;
      expectTrue(closed, `${path}: permission bits of the socket and of its directory`,
        'owner-only: no group or other bits on the socket (e.g. srw-------, 0600), or on its directory (same owner)',
        `socket 0${(st.mode & 0o777).toString(8)}, directory 0${(dir.mode & 0o777).toString(8)}${dir.uid === st.uid ? '' : ' (another owner)'}`);
    },
  }),

  // ---------------------------------------------------------------- service and messages
  defineCase({
    ...podInfoCase('4.2', 'SHOULD', 'read-only'),
    id: 'agent.podinfo.service-name',
    title: `The pod info service is upstream's ${PODS_SERVICE} (package v1alpha1, service Pods): ListPods on it answers OK with pods as bytes`,
    requirements: ['001-4.2-service-name'],
    async run(ctx) {
      await withPodInfo(ctx.podInfoSocket(), async (c) => {
        const r = await c.list();
        if (!r.ok) fail(`ListPods as /${PODS_SERVICE}/ListPods`, 'gRPC status OK', `${r.codeName}: ${show(r.details)}`);
      });
    },
  }),
  defineCase({
    ...podInfoCase('4.2', 'MUST', 'node'),
    id: 'agent.podinfo.list-pods',
    title: 'ListPods returns the pods the agent manages: a pod created on its node is listed, with its metadata',
    requirements: ['001-4.2-list-pods'],
    async run(ctx) {
      await withPodInfo(ctx.podInfoSocket(), async (c) => {
        const pod = await createPodOnNode(ctx, {}, 'list');
        const listed = await listedPod(c, pod.metadata.uid, () => true, `ListPods lists pod ${pod.metadata.name}`, `a pod with metadata.uid ${pod.metadata.uid}`);
        expectEqual([listed.metadata?.namespace, listed.metadata?.name], [pod.metadata.namespace, pod.metadata.name], 'the listed pod: metadata.namespace and metadata.name');
      });
    },
  }),
  defineCase({
    ...podInfoCase('4.2', 'SHOULD', 'node'),
    id: 'agent.podinfo.list-sorted-by-uid',
    title: 'ListPods returns the pods sorted by UID',
    requirements: ['001-4.2-list-sorted-by-uid'],
    async run(ctx) {
      await withPodInfo(ctx.podInfoSocket(), async (c) => {
        const pods = await Promise.all([createPodOnNode(ctx, {}, 'sort-a'), createPodOnNode(ctx, {}, 'sort-b')]);
        for (const p of pods) await listedPod(c, p.metadata.uid, () => true, `ListPods lists pod ${p.metadata.name}`, `a pod with metadata.uid ${p.metadata.uid}`);
        const r = expectOk(await c.list(), 'ListPods');
        const uids = r.pods.map((p) => String(p?.metadata?.uid ?? ''));
        expectEqual(uids, [...uids].sort(), `ListPods: the order of the ${uids.length} pods' metadata.uid`);
      });
    },
  }),
  defineCase({
    ...podInfoCase('4.2', 'MUST', 'node'),
    id: 'agent.podinfo.get-pod',
    title: 'GetPod with a pod\'s UID returns that pod',
    requirements: ['001-4.2-get-pod'],
    async run(ctx) {
      await withPodInfo(ctx.podInfoSocket(), async (c) => {
        const pod = await createPodOnNode(ctx, {}, 'get');
        const uid = pod.metadata.uid;
        // The agent learns of the pod from its watch: until then the UID is unknown to it.
        const deadline = Date.now() + 15_000;
        for (;;) {
          const r = await c.get(uid);
          if (r.ok) {
            expectEqual([r.pod?.metadata?.uid, r.pod?.metadata?.namespace, r.pod?.metadata?.name], [uid, pod.metadata.namespace, pod.metadata.name], `GetPod(${uid}): the pod's metadata.uid, namespace and name`);
            return;
          }
          if (r.codeName === 'UNIMPLEMENTED') expectOk(r, 'GetPod');
          if (Date.now() >= deadline) fail(`GetPod(${uid}) for pod ${pod.metadata.name} on the agent's node (within 15s)`, 'OK with the pod', `${r.codeName}: ${show(r.details)}`);
          await new Promise((res) => setTimeout(res, 200));
        }
      });
    },
  }),
  defineCase({
    ...podInfoCase('4.2', 'SHOULD', 'read-only'),
    id: 'agent.podinfo.get-pod-not-found',
    title: 'GetPod with a UID the agent does not know fails with NOT_FOUND `pod with UID <uid> not found`',
    requirements: ['001-4.2-get-pod-not-found'],
    async run(ctx) {
      const uid = randomUUID();
      await withPodInfo(ctx.podInfoSocket(), async (c) => {
        const r = await c.get(uid);
        if (r.ok) fail(`GetPod(${uid}), a UID no pod has`, 'NOT_FOUND', `OK with ${show(r.pod)}`);
        if (r.codeName === 'UNIMPLEMENTED') expectOk(r, 'GetPod');
        expectEqual([r.codeName, r.details], ['NOT_FOUND', `pod with UID ${uid} not found`], `GetPod(${uid}), a UID no pod has: status and message`);
      });
    },
  }),

  // ---------------------------------------------------------------- watch
  defineCase({
    ...podInfoCase('4.2', 'SHOULD', 'node'),
    id: 'agent.podinfo.watch-initial',
    title: 'WatchPods first sends every existing pod (ADDED): a pod that runs unchanged arrives as ADDED at once',
    requirements: ['001-4.2-watch-initial-pods'],
    async run(ctx) {
      await withPodInfo(ctx.podInfoSocket(), async (c) => {
        const pod = await runningPod(ctx, c, {}, 'watch-initial');
        const uid = pod.metadata.uid;
        // The API's copy settles too (the agent's status write and its echo), so nothing else moves the pod.
        await waitFor(ctx, podPath(ctx, pod.metadata.name), isRunning, 'the pod runs in the API too', 'status.phase Running with container c running');
        const w = c.watch();
        const deadline = Date.now() + 5_000;
        for (;;) {
          const n = await w.next(deadline - Date.now());
          if (!n) fail('WatchPods: the initial events (within 5s)', `an ADDED event for the running pod ${uid}`, 'none for it');
          if ('end' in n) {
            if (n.end.codeName === 'UNIMPLEMENTED') expectOk({ ok: false, ...n.end }, 'WatchPods');
            fail('WatchPods: the initial events', `an ADDED event for the running pod ${uid}`, `the stream ended: ${n.end.codeName} ${show(n.end.details)}`);
          }
          if (n.event.pod?.metadata?.uid !== uid) continue;
          expectEqual(n.event.type, 'ADDED', `WatchPods: the first event for pod ${uid}, which existed before the watch: its type (field 2; absent reads ADDED)`);
          return;
        }
      });
    },
  }),
  defineCase({
    ...podInfoCase('4.2', 'MUST', 'node', true),
    id: 'agent.podinfo.watch-update',
    title: 'WatchPods streams a pod\'s local changes: after its container exits in the runtime, an update carries the terminated state with its exit code',
    requirements: ['001-4.2-watch-pods', '001-7-watch-pods-stream'],
    async run(ctx) {
      await withPodInfo(ctx.podInfoSocket(), async (c) => {
        const listed = await runningPod(ctx, c, { restartPolicy: 'Never' }, 'watch-update');
        const uid = listed.metadata.uid;
        const containerId = runtimeId(containerStatus(listed, 'c')?.containerID) ?? runningContainerIn(await ctx.cri().state(), uid);
        if (!containerId) fail('the running container\'s runtime id', 'containerStatuses[c].containerID <runtime>://<id>', show(containerStatus(listed, 'c')));
        const w = c.watch();
        // An agent that sends the current pods first is ready once ours came; one that does not gets a moment.
        const settle = Date.now() + 3_000;
        for (;;) {
          const n = await w.next(settle - Date.now());
          if (!n) break;
          if ('end' in n) {
            if (n.end.codeName === 'UNIMPLEMENTED') expectOk({ ok: false, ...n.end }, 'WatchPods');
            fail('WatchPods', 'an open stream', `it ended: ${n.end.codeName} ${show(n.end.details)}`);
          }
          if (n.event.pod?.metadata?.uid === uid) break;
        }
        await ctx.cri().exitContainer(containerId!, 3);
        const deadline = Date.now() + 10_000;
        let last: unknown = 'no event for the pod';
        for (;;) {
          const n = await w.next(deadline - Date.now());
          if (!n) fail('WatchPods: an update for the pod after its container exited (within 10s)', 'an event whose containerStatuses[c].state.terminated.exitCode is 3', show(last));
          if ('end' in n) fail('WatchPods: an update for the pod after its container exited', 'an open stream with the update', `it ended: ${n.end.codeName} ${show(n.end.details)}`);
          if (n.event.pod?.metadata?.uid !== uid) continue;
          last = { type: n.event.type, containerStatus: containerStatus(n.event.pod, 'c') };
          if (terminatedWith(3)(n.event.pod)) return;
        }
      });
    },
  }),

  // ---------------------------------------------------------------- field mask
  defineCase({
    ...podInfoCase('4.2', 'MUST', 'node'),
    id: 'agent.podinfo.field-mask',
    title: 'A field mask in gRPC metadata returns only the fields it names: status.phase,metadata.name gives {metadata: {name}, status: {phase}}',
    requirements: ['001-4.2-field-mask'],
    async run(ctx) {
      await withPodInfo(ctx.podInfoSocket(), async (c) => {
        const pod = await runningPod(ctx, c, {}, 'mask');
        const mask = 'status.phase,metadata.name';
        const r = expectOk(await c.get(pod.metadata.uid, { mask }), `GetPod with field mask ${mask}`);
        // The whole pod (spec included, which the mask does not name) means the mask was not read at all.
        if (r.pod.spec !== undefined) {
          skip(`the agent ignored the mask under metadata key ${FIELD_MASK_KEY} (it returned the whole pod); the spec names no key, so a mask under the agent's own cannot be sent (agent.podinfo.field-mask-metadata-key checks upstream's)`);
        }
        onlyKeys(r.pod, ['metadata', 'status'], `GetPod with mask ${mask}: the pod's top-level fields`);
        onlyKeys(r.pod.metadata, ['name'], `GetPod with mask ${mask}: fields of metadata`);
        onlyKeys(r.pod.status, ['phase'], `GetPod with mask ${mask}: fields of status`);
        expectEqual([r.pod.metadata.name, r.pod.status.phase], [pod.metadata.name, 'Running'], `GetPod with mask ${mask}: metadata.name and status.phase`);
      });
    },
  }),
  defineCase({
    ...podInfoCase('4.2', 'MUST', 'node'),
    id: 'agent.podinfo.no-mask-full-pod',
    title: 'Without a field mask the whole pod is returned: metadata, spec (its containers) and status (phase, container statuses)',
    requirements: ['001-4.2-no-field-mask-full-pod'],
    async run(ctx) {
      await withPodInfo(ctx.podInfoSocket(), async (c) => {
        const pod = await runningPod(ctx, c, {}, 'whole');
        const r = expectOk(await c.get(pod.metadata.uid), 'GetPod without a field mask');
        const p = r.pod;
        expectEqual([p.metadata?.namespace, p.metadata?.name, p.metadata?.uid], [pod.metadata.namespace, pod.metadata.name, pod.metadata.uid], 'GetPod without a mask: metadata.namespace, name and uid');
        expectTrue(Array.isArray(p.spec?.containers) && p.spec.containers[0]?.name === 'c' && typeof p.spec.containers[0]?.image === 'string', 'GetPod without a mask: spec.containers', 'container c with its image', show(p.spec));
        expectTrue(p.status?.phase === 'Running' && containerStatus(p, 'c')?.state?.running !== undefined, 'GetPod without a mask: status', 'phase Running and containerStatuses[c] running', show(p.status));
      });
    },
  }),
  defineCase({
    ...podInfoCase('4.2', 'SHOULD', 'node'),
    id: 'agent.podinfo.field-mask-metadata-key',
    title: `The field mask is read from gRPC metadata key ${FIELD_MASK_KEY}, comma-joined paths: metadata.name,status.phase selects those two fields`,
    requirements: ['001-4.2-field-mask-metadata-key'],
    async run(ctx) {
      await withPodInfo(ctx.podInfoSocket(), async (c) => {
        const pod = await runningPod(ctx, c, {}, 'mask-key');
        const mask = 'metadata.name,status.phase';
        const r = expectOk(await c.get(pod.metadata.uid, { mask }), `GetPod with ${FIELD_MASK_KEY}: ${mask}`);
        onlyKeys(r.pod, ['metadata', 'status'], `GetPod with ${FIELD_MASK_KEY}: ${mask}: the pod's top-level fields`);
        onlyKeys(r.pod.metadata, ['name'], `GetPod with ${FIELD_MASK_KEY}: ${mask}: fields of metadata`);
      });
    },
  }),
  defineCase({
    ...podInfoCase('4.2', 'SHOULD', 'read-only'),
    id: 'agent.podinfo.field-mask-multiple',
    title: `Two values of ${FIELD_MASK_KEY} fail with INVALID_ARGUMENT \`multiple field masks not supported\``,
    requirements: ['001-4.2-field-mask-multiple'],
    async run(ctx) {
      await withPodInfo(ctx.podInfoSocket(), async (c) => {
        const r = await c.list({ metadata: [[FIELD_MASK_KEY, 'metadata.name'], [FIELD_MASK_KEY, 'status.phase']] });
        if (r.ok) fail(`ListPods with two ${FIELD_MASK_KEY} values`, 'INVALID_ARGUMENT', `OK with ${r.pods.length} pod(s)`);
        if (r.codeName === 'UNIMPLEMENTED') expectOk(r, 'ListPods');
        expectEqual([r.codeName, r.details], ['INVALID_ARGUMENT', 'multiple field masks not supported'], `ListPods with two ${FIELD_MASK_KEY} values: status and message`);
      });
    },
  }),
  defineCase({
    ...podInfoCase('4.2', 'SHOULD', 'read-only'),
    id: 'agent.podinfo.field-mask-invalid-path',
    title: 'A field mask naming no field of Pod fails with INVALID_ARGUMENT `invalid field mask: ...`',
    requirements: ['001-4.2-field-mask-invalid-path'],
    async run(ctx) {
      const mask = 'status.ocNoSuchField';
      await withPodInfo(ctx.podInfoSocket(), async (c) => {
        const r = await c.list({ mask });
        if (r.ok) fail(`ListPods with field mask ${mask}`, 'INVALID_ARGUMENT', `OK with ${r.pods.length} pod(s)`);
        if (r.codeName === 'UNIMPLEMENTED') expectOk(r, 'ListPods');
        expectEqual(r.codeName, 'INVALID_ARGUMENT', `ListPods with field mask ${mask}: status`);
        expectTrue(r.details.startsWith('invalid field mask'), `ListPods with field mask ${mask}: message`, '"invalid field mask: ..."', show(r.details));
      });
    },
  }),

  // ---------------------------------------------------------------- start-up and the control plane
  defineCase({
    ...agentCase('4.2', 'MUST', 'exec'),
    id: 'agent.podinfo.not-initialized',
    title: 'Pod info calls fail with FAILED_PRECONDITION while a starting agent\'s state is not initialized (its runtime holds the first relist)',
    requirements: ['001-4.2-not-initialized-failed-precondition', '001-8-pod-info-not-initialized'],
    async run(ctx) {
      const HOLD_MS = 5_000;
      await withScratch(async (dir) => {
        // A runtime of the case's own that answers every sandbox and container list late: the agent's
        // first reconciliation with the runtime cannot finish before HOLD_MS.
        const cri = await (await loadMockCri()).startMockCri({ socket: join(dir, 'cri', 'cri.sock'), root: join(dir, 'cri-state') });
        let a: LaunchedAgent | undefined;
        try {
          const held = ['ListPodSandbox', 'ListContainers'].map((rpc) => cri.control.faults.add({ rpc, delayMs: HOLD_MS }));
          a = await ctx.agents.launch({ controlPlane: false, cri, waitReady: false });
          const path = socketOf(a);
          // As soon as the socket exists.
          const st = await appears(path, 15_000, 10);
          if (!st) fail('the pod info socket of the starting agent (within 15s)', `a socket at ${path}`, `absent; the agent printed ${show(a.output().slice(-300))}`);
          await withPodInfo(path, async (c) => {
            let r = await c.list({ deadlineMs: 3_000 });
            // Bound but not yet accepting: once more.
            for (let i = 0; i < 20 && !r.ok && r.codeName === 'UNAVAILABLE'; i++) {
              await new Promise((res) => setTimeout(res, 50));
              r = await c.list({ deadlineMs: 3_000 });
            }
            const at = Date.now();
            if (!r.ok && r.codeName === 'FAILED_PRECONDITION') return;
            if (!r.ok && r.codeName === 'UNIMPLEMENTED') expectOk(r, 'ListPods');
            const lists = cri.control.calls.list().filter((k) => k.rpc === 'ListPodSandbox' || k.rpc === 'ListContainers');
            const firstAnswer = lists.length ? Date.parse(lists[0]!.time) + HOLD_MS : Infinity;
            if (r.ok && at >= firstAnswer) skip('the window was not observable: the socket answered only after the agent\'s first runtime lists were answered');
            fail('ListPods on the socket of an agent whose first runtime relist is still held (no ListPodSandbox or ListContainers answered yet)',
              'FAILED_PRECONDITION: its state is not initialized', r.ok ? `OK with ${r.pods.length} pod(s), before the runtime had answered any list` : `${r.codeName}: ${show(r.details)}`);
          });
          for (const f of held) cri.control.faults.remove(f.id);
        } finally {
          await a?.stop();
          await cri.close();
        }
      });
    },
  }),
  defineCase({
    ...agentCase('4.2', 'MUST', 'exec'),
    id: 'agent.podinfo.without-control-plane',
    title: 'Pod info stays available when the node loses the control plane: after the API is cut off, ListPods and GetPod still return the pod',
    requirements: ['001-4.2-available-without-control-plane'],
    async run(ctx) {
      await withRelayedAgent(ctx, 'offline', async (_a, relay, c, pod) => {
        const uid = pod.metadata.uid;
        relay.cut();
        // The agent's own retries show it noticed (a watch or lease renewal reconnecting); without any, the checks still run.
        await relay.attempted(2, 15_000);
        const l = expectOk(await c.list(), 'ListPods after the control plane was cut off');
        expectTrue(l.pods.some((p) => p?.metadata?.uid === uid), 'ListPods after the control plane was cut off', `the pod ${uid} listed`, `${l.pods.length} pod(s): ${show(l.pods.map((p) => p?.metadata?.uid))}`);
        const g = expectOk(await c.get(uid), `GetPod(${uid}) after the control plane was cut off`);
        expectEqual(g.pod?.metadata?.uid, uid, `GetPod(${uid}) after the control plane was cut off: metadata.uid`);
      });
    },
  }),
  defineCase({
    ...agentCase('4.2', 'MUST', 'exec'),
    id: 'agent.podinfo.latest-known-data',
    title: 'Pod info serves what the agent knows from the runtime: with the control plane cut off, a container exit shows in ListPods as the terminated state',
    requirements: ['001-4.2-latest-known-data'],
    async run(ctx) {
      await withRelayedAgent(ctx, 'latest', async (a, relay, c, pod) => {
        const uid = pod.metadata.uid;
        const containerId = runtimeId(containerStatus(pod, 'c')?.containerID) ?? runningContainerIn(a.cri.control.state() as any, uid);
        if (!containerId) fail('the running container\'s runtime id', 'containerStatuses[c].containerID <runtime>://<id>', show(containerStatus(pod, 'c')));
        // The API can no longer hear of the exit: only the agent's own reconciliation can report it.
        relay.cut();
        a.cri.control.exitContainer(containerId!, 3);
        await listedPod(c, uid, terminatedWith(3), 'ListPods after container c exited with 3, the control plane cut off', 'containerStatuses[c].state.terminated.exitCode 3', 15_000);
      });
    },
  }),
];
