// Spec 001 §4.1 container checkpoint, §6 (its authentication), §8 (its errors) and §9 (its timeout),
// observed on an agent: `POST /checkpoint/{namespace}/{pod}/{container}` on its HTTPS port for a pod
// running on its node, what it asks its runtime (the mock CRI's call log, faults scoped to the case's
// pod), the archive it leaves, and its answers. Upstream's answers (ground truth) are SHOULD cases of
// their own. Cases that need the root dir or a gate turned off start agents of their own.
//
// Not covered: 001-4.1-checkpoint-stateful-copy (a restored container continues from the checkpoint
// time) needs a restore, which the agent does not offer (upstream restores through the runtime, by
// creating a container from the archive) and the mock runtime cannot run; 001-4.1-checkpoint-gate
// (beta since 1.30, on by default) is a stage and a default: the shared agent's gates are whatever
// its operator set, and the stage is seen through orch_feature_enabled (agent.node.feature-stage.*).
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectTrue, fail, show, skip } from '../verify.js';
import { noteMay } from '../findings.js';
import { ApiClient, createDispatcher, type ApiResponse } from '../../runner/client.js';
import type { LaunchedAgent } from '../../runner/agent-exec.js';
import type { CriCall } from '../../runner/agent-target.js';
import { agentCase, containerStatus, runningPodOnNode, criCallsFor, podKey, podPath, RUN_IMAGE, runtimeId, waitFor } from './agent-kit.js';
import { withPodOn } from './agent-exec-more.js';

/** The checkpoint path for these names (each percent-encoded) and an optional raw query (`?timeout=5`). */
const checkpointPath = (namespace: string, pod: string, container: string, query = '') =>
  `/checkpoint/${encodeURIComponent(namespace)}/${encodeURIComponent(pod)}/${encodeURIComponent(container)}${query}`;

/** POSTs a checkpoint request (no body) with `client` (the agent's, carrying the run's credentials). */
const postCheckpoint = (client: ApiClient, namespace: string, pod: string, container: string, query = '') =>
  client.post(checkpointPath(namespace, pod, container, query), undefined, { timeoutMs: 60_000 });

const summary = (res: ApiResponse) => `HTTP ${res.status} ${show(res.text.length > 300 ? `${res.text.slice(0, 300)}…` : res.text)}`;

const runningPod = (ctx: CaseContext, hint: string, spec: Record<string, unknown> = {}, nodeName?: string) => runningPodOnNode(ctx, spec, hint, nodeName);

/** A checkpoint of container c of a running pod of the case's own: the pod and the answer. */
async function checkpointed(ctx: CaseContext, hint: string, query = ''): Promise<{ pod: any; res: ApiResponse }> {
  const pod = await runningPod(ctx, hint);
  const res = await postCheckpoint(ctx.agent().client, pod.metadata.namespace, pod.metadata.name, 'c', query);
  return { pod, res };
}

/** The 200 answer to a checkpoint of a running container (the case's rule is about what follows). */
function expectOk(res: ApiResponse, what: string): void {
  if (res.status !== 200) fail(`${what}: POST /checkpoint/{namespace}/{pod}/{container} of a running container`, 'HTTP 200', summary(res));
}

/**
 * The archive path of a 200 answer when it has upstream's body (`{"items":["<path>"]}`); the body is
 * "not shown" by the spec, so without it the case cannot find the archive and skips.
 */
function archivePath(res: ApiResponse): string {
  const items = res.json?.items;
  if (!Array.isArray(items) || typeof items[0] !== 'string' || !isAbsolute(items[0])) {
    skip(`the checkpoint answer does not name the archive as upstream does ({"items":["<archive path>"]}; the spec does not show the body), so the archive cannot be found: ${summary(res)}`);
  }
  return items[0];
}

/** stat of an archive the agent names, skipping when this machine cannot see it (the agent runs elsewhere, or keeps it from us). */
async function localArchive(path: string): Promise<{ mode: number; isFile: boolean }> {
  try {
    const st = await stat(path);
    return { mode: st.mode, isFile: st.isFile() };
  } catch (err) {
    return skip(`the archive ${path} the agent names is not readable from where the run is (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): the agent may run on another machine`);
  }
}

/** The CheckpointContainer calls for the pod after `since` (a call-log seq). */
async function checkpointCalls(ctx: CaseContext, pod: any, since: number): Promise<CriCall[]> {
  return (await criCallsFor(ctx, pod, 'CheckpointContainer')).filter((c) => c.seq > since);
}

/** A client of the agent's endpoints without any credentials (no token, no client certificate). */
async function withAnonymousClient<T>(ctx: CaseContext, fn: (client: ApiClient) => Promise<T>): Promise<T> {
  const own = ctx.agent().client;
  const conn = { baseUrl: own.conn.baseUrl, caPem: own.conn.caPem, insecureSkipTlsVerify: own.conn.insecureSkipTlsVerify, maxResponseBytes: own.conn.maxResponseBytes };
  const dispatcher = createDispatcher(conn);
  try {
    return await fn(new ApiClient(conn, dispatcher, ctx.signal, own.exchanges));
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
}

/** Runs `fn` with a running pod on a launched agent's node, deleted (grace 0) before the agent stops. */
const withPodOnLaunched = (ctx: CaseContext, a: LaunchedAgent, hint: string, spec: Record<string, unknown>, fn: (pod: any) => Promise<void>): Promise<void> =>
  withPodOn(ctx, a, spec, hint, async (created) =>
    fn(await waitFor(ctx, podPath(ctx, created.metadata.name), (p) => p?.status?.phase === 'Running', 'the pod on the launched agent\'s node runs', 'status.phase Running', 20_000)));

const notFound = (res: ApiResponse, what: string) => {
  if (res.status !== 404) fail(what, 'HTTP 404 Not Found', summary(res));
};

/** Upstream's 404 and 500 answers are plain text; an agent may add a trailing newline. */
const plain = (res: ApiResponse) => res.text.replace(/\r?\n$/, '');

export const agentCheckpointCases: Case[] = [
  defineCase({
    ...agentCase('4.1', 'MUST', 'node'),
    gates: { ContainerCheckpoint: true },
    id: 'agent.checkpoint.ok',
    title: 'POST /checkpoint/{namespace}/{pod}/{container} for a running container of a pod on the node answers 200 OK',
    requirements: ['001-4.1-checkpoint-endpoint', '001-4.1-checkpoint-ok'],
    async run(ctx) {
      const { res } = await checkpointed(ctx, 'ckpt-ok');
      expectOk(res, 'the checkpoint');
    },
  }),
  defineCase({
    ...agentCase('4.1', 'SHOULD', 'node'),
    gates: { ContainerCheckpoint: true },
    id: 'agent.checkpoint.ok-body',
    title: 'A successful checkpoint answers application/json {"items":["<archive path>"]} (upstream)',
    requirements: ['001-4.1-checkpoint-ok-body'],
    async run(ctx) {
      const { res } = await checkpointed(ctx, 'ckpt-body');
      expectOk(res, 'the checkpoint');
      const type = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      expectTrue(type === 'application/json', 'the checkpoint answer\'s media type', 'application/json', show(res.headers['content-type']));
      const items = res.json?.items;
      expectTrue(Array.isArray(items) && items.length === 1 && typeof items[0] === 'string' && isAbsolute(items[0]) && items[0].endsWith('.tar'),
        'the checkpoint answer\'s body', '{"items":["<absolute path of the .tar archive>"]}', summary(res));
    },
  }),
  defineCase({
    ...agentCase('4.1', 'MUST', 'node'),
    gates: { ContainerCheckpoint: true },
    id: 'agent.checkpoint.archive-tar',
    title: 'The checkpoint archive is a tar archive any tar implementation reads (here: node-tar lists it, strictly)',
    requirements: ['001-4.1-checkpoint-archive-tar'],
    async run(ctx) {
      const { res } = await checkpointed(ctx, 'ckpt-tar');
      expectOk(res, 'the checkpoint');
      const path = archivePath(res);
      const st = await localArchive(path);
      expectTrue(st.isFile, `the archive ${path}`, 'a regular file', 'not a regular file');
      const entries: string[] = [];
      try {
        // Loaded here: the tar package is needed by this case only, not at every start of the CLI.
        const { list: tarList } = await import('tar');
        await tarList({ file: path, strict: true, onReadEntry: (e) => void entries.push(e.path) });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EACCES') skip(`the archive ${path} is not readable by the run's user (it should be readable only by root): run as root to read it`);
        fail(`the archive ${path} read as a tar archive`, 'a tar archive listed without error', `${(err as Error).message}; entries read before: ${show(entries)}`);
      }
      // The contents depend on the runtime; a tar archive without an entry is no checkpoint of anything.
      expectTrue(entries.length > 0, `the entries of the archive ${path}`, 'at least one entry', show(entries));
    },
  }),
  defineCase({
    ...agentCase('4.1', 'MUST', 'exec'),
    gates: { ContainerCheckpoint: true },
    id: 'agent.checkpoint.archive-location',
    title: 'The archive is checkpoint-<pod_full_name>-<container>-<timestamp>.tar in the checkpoints subdirectory of the root dir',
    requirements: ['001-4.1-checkpoint-archive-name', '001-4.1-checkpoint-archive-location'],
    async run(ctx) {
      // The shared agent's root dir is not known to a run: an agent started here has one the case knows.
      const a = await ctx.agents.launch();
      const spec = { containers: [{ name: 'ckpt-app', image: RUN_IMAGE, command: ['sleep', '3600'] }] };
      await withPodOnLaunched(ctx, a, 'ckpt-loc', spec, async (pod) => {
        const res = await postCheckpoint(a.client, pod.metadata.namespace, pod.metadata.name, 'ckpt-app');
        expectOk(res, 'the checkpoint on the launched agent');
        const dir = join(a.rootDir, 'checkpoints');
        const names = await readdir(dir).catch(() => undefined);
        const archives = (names ?? []).filter((n) => n.endsWith('.tar'));
        if (archives.length === 0) {
          fail('the archive in <root_dir>/checkpoints after the checkpoint', 'a .tar archive there',
            `${names === undefined ? 'no checkpoints directory' : `it holds ${show(names)}`}; the root dir holds ${show(await readdir(a.rootDir).catch(() => []))}`);
        }
        const pattern = /^checkpoint-(?<pod>.+)-ckpt-app-(?<time>.+)\.tar$/;
        const named = archives.filter((n) => pattern.exec(n)?.groups?.pod?.includes(pod.metadata.name));
        expectTrue(named.length > 0, 'the archive\'s name', `checkpoint-<pod_full_name, which holds ${pod.metadata.name}>-ckpt-app-<timestamp>.tar`, show(archives));
      });
    },
  }),
  defineCase({
    ...agentCase('4.1', 'SHOULD', 'node'),
    gates: { ContainerCheckpoint: true },
    id: 'agent.checkpoint.archive-name-format',
    title: 'The archive is <root_dir>/checkpoints/checkpoint-<pod>_<namespace>-<container>-<RFC 3339 time>.tar (upstream)',
    requirements: ['001-4.1-checkpoint-archive-name-format'],
    async run(ctx) {
      const before = Date.now();
      const { pod, res } = await checkpointed(ctx, 'ckpt-name');
      expectOk(res, 'the checkpoint');
      const path = archivePath(res);
      expectTrue(basename(dirname(path)) === 'checkpoints', `the directory of the archive ${path}`, '<root_dir>/checkpoints', dirname(path));
      const m = /^checkpoint-(.+)-c-(.+)\.tar$/.exec(basename(path));
      const want = `${pod.metadata.name}_${pod.metadata.namespace}`;
      expectTrue(m?.[1] === want, 'the archive\'s name', `checkpoint-${want}-c-<RFC 3339 time>.tar`, basename(path));
      const time = m![2]!;
      const at = Date.parse(time);
      const rfc3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(time);
      // Whole seconds in the name: the time may round down to just before the request.
      expectTrue(rfc3339 && at >= before - 2_000 && at <= Date.now() + 2_000, 'the time in the archive\'s name', 'the time of the checkpoint in RFC 3339 (e.g. 2026-01-02T15:04:05Z)', time);
    },
  }),
  defineCase({
    ...agentCase('4.1', 'SHOULD', 'node'),
    gates: { ContainerCheckpoint: true },
    id: 'agent.checkpoint.archive-mode',
    title: 'The archive (all memory pages of the container) is readable only by its owner: no group or other permission',
    requirements: ['001-4.1-checkpoint-archive-root-only'],
    async run(ctx) {
      const { res } = await checkpointed(ctx, 'ckpt-mode');
      expectOk(res, 'the checkpoint');
      const path = archivePath(res);
      const st = await localArchive(path);
      const mode = st.mode & 0o777;
      expectTrue((mode & 0o077) === 0, `the mode of the archive ${path}`, 'owner-only (0600 or 0400)', `0${mode.toString(8)}`);
    },
  }),
  defineCase({
    ...agentCase('4.1', 'MUST', 'node'),
    gates: { ContainerCheckpoint: true },
    id: 'agent.checkpoint.cri',
    title: 'A checkpoint request makes the agent ask its runtime to checkpoint that container (CheckpointContainer)',
    requirements: ['001-4.1-checkpoint-cri'],
    async run(ctx) {
      const pod = await runningPod(ctx, 'ckpt-cri');
      const since = await ctx.cri().lastSeq();
      const res = await postCheckpoint(ctx.agent().client, pod.metadata.namespace, pod.metadata.name, 'c');
      const calls = await checkpointCalls(ctx, pod, since);
      expectTrue(calls.length > 0, 'the runtime\'s call log after the checkpoint request', 'a CheckpointContainer call naming the pod\'s container', `none (the agent answered ${summary(res)})`);
      expectOk(res, 'the checkpoint');
    },
  }),
  defineCase({
    ...agentCase('1', 'SHOULD', 'node'),
    gates: { ContainerCheckpoint: true },
    id: 'agent.checkpoint.cri-request',
    title: 'CheckpointContainerRequest carries container_id (1) of the running container, the archive location (2) as an absolute path and the timeout (3)',
    requirements: ['001-1-cri-checkpoint-container'],
    async run(ctx) {
      const pod = await runningPod(ctx, 'ckpt-req');
      const id = runtimeId(containerStatus(pod, 'c')?.containerID);
      if (!id) fail('the running container reports its runtime id', 'containerStatuses[c].containerID <runtime>://<id>', show(containerStatus(pod, 'c')));
      const since = await ctx.cri().lastSeq();
      const res = await postCheckpoint(ctx.agent().client, pod.metadata.namespace, pod.metadata.name, 'c', '?timeout=9');
      const call = (await ctx.cri().calls('CheckpointContainer', since)).find((c) => c.request?.container_id === id);
      if (!call) fail('the CheckpointContainer request for container c', `container_id ${show(id)}`, show((await ctx.cri().calls('CheckpointContainer', since)).map((c) => c.request)));
      const r = call.request;
      expectTrue(typeof r.location === 'string' && isAbsolute(r.location) && r.location.endsWith('.tar'), 'CheckpointContainerRequest.location (2)', 'the absolute path of the .tar archive', show(r.location));
      expectTrue(Number(r.timeout) === 9, 'CheckpointContainerRequest.timeout (3) for ?timeout=9', '9', show(r.timeout));
      const named = res.json?.items?.[0];
      if (res.status === 200 && typeof named === 'string') expectTrue(named === r.location, 'the archive the agent names', `the location it gave the runtime, ${r.location}`, show(named));
    },
  }),
  defineCase({
    ...agentCase('4.1', 'MUST', 'read'),
    gates: { ContainerCheckpoint: true },
    id: 'agent.checkpoint.unauthorized',
    title: 'A checkpoint request without credentials, or with a bearer token the control plane rejects, gets 401 Unauthorized',
    requirements: ['001-4.1-checkpoint-unauthorized-401', '001-6-checkpoint-authn-authz', '001-8-checkpoint-unauthorized'],
    async run(ctx) {
      await withAnonymousClient(ctx, async (client) => {
        const path = checkpointPath(ctx.namespace, ctx.uniqueName('ckpt-anon'), 'c');
        const none = await client.post(path, undefined);
        expectTrue(none.status === 401, 'POST /checkpoint/... without credentials', 'HTTP 401 Unauthorized', summary(none));
        const bad = await client.post(path, undefined, { headers: { authorization: `Bearer not-a-token-${ctx.uniqueName('x')}` } });
        expectTrue(bad.status === 401, 'POST /checkpoint/... with a bearer token no one issued', 'HTTP 401 Unauthorized', summary(bad));
      });
    },
  }),
  defineCase({
    ...agentCase('4.1', 'MUST', 'exec'),
    id: 'agent.checkpoint.gate-disabled',
    title: 'With the ContainerCheckpoint gate disabled, a checkpoint request for a running container gets 404 Not Found',
    requirements: ['001-4.1-checkpoint-gate-disabled-404', '001-8-checkpoint-not-found'],
    async run(ctx) {
      const a = await ctx.agents.launch({ args: ['--feature-gates=ContainerCheckpoint=false'] });
      // A pod that runs there: the 404 then comes from the gate, not from a missing pod.
      await withPodOnLaunched(ctx, a, 'ckpt-gate', {}, async (pod) => {
        notFound(await postCheckpoint(a.client, pod.metadata.namespace, pod.metadata.name, 'c'), 'POST /checkpoint/... of a running container, gate ContainerCheckpoint=false');
      });
    },
  }),
  defineCase({
    ...agentCase('4.1', 'MUST', 'exec'),
    id: 'agent.checkpoint.on-by-default',
    title: 'Checkpointing is enabled by default: an agent started without feature gates checkpoints a running container (200)',
    requirements: ['001-4.1-checkpoint-gate'],
    async run(ctx) {
      // The shared agent's gates are its operator's: only an agent started here has the defaults for sure.
      const a = await ctx.agents.launch();
      await withPodOnLaunched(ctx, a, 'ckpt-default', {}, async (pod) => {
        expectOk(await postCheckpoint(a.client, pod.metadata.namespace, pod.metadata.name, 'c'), 'the checkpoint on an agent started without --feature-gates');
      });
    },
  }),
  defineCase({
    ...agentCase('4.1', 'MUST', 'node'),
    gates: { ContainerCheckpoint: true },
    id: 'agent.checkpoint.namespace-missing',
    title: 'A checkpoint request naming a namespace that does not exist (with the name of a pod that runs elsewhere) gets 404',
    requirements: ['001-4.1-checkpoint-not-found-404', '001-8-checkpoint-not-found'],
    async run(ctx) {
      const pod = await runningPod(ctx, 'ckpt-ns');
      const missing = ctx.uniqueName('no-ns');
      notFound(await postCheckpoint(ctx.agent().client, missing, pod.metadata.name, 'c'), `POST /checkpoint/${missing}/${pod.metadata.name}/c (the pod runs in ${pod.metadata.namespace})`);
    },
  }),
  defineCase({
    ...agentCase('4.1', 'MUST', 'read'),
    gates: { ContainerCheckpoint: true },
    id: 'agent.checkpoint.pod-missing',
    title: 'A checkpoint request naming a pod that does not exist gets 404',
    requirements: ['001-4.1-checkpoint-not-found-404', '001-8-checkpoint-not-found'],
    async run(ctx) {
      const missing = ctx.uniqueName('no-pod');
      notFound(await postCheckpoint(ctx.agent().client, ctx.namespace, missing, 'c'), `POST /checkpoint/${ctx.namespace}/${missing}/c`);
    },
  }),
  defineCase({
    ...agentCase('4.1', 'MUST', 'node'),
    gates: { ContainerCheckpoint: true },
    id: 'agent.checkpoint.container-missing',
    title: 'A checkpoint request naming a container the running pod does not have gets 404',
    requirements: ['001-4.1-checkpoint-not-found-404', '001-8-checkpoint-not-found'],
    async run(ctx) {
      const pod = await runningPod(ctx, 'ckpt-noc');
      notFound(await postCheckpoint(ctx.agent().client, pod.metadata.namespace, pod.metadata.name, 'no-such-container'), `POST /checkpoint/${pod.metadata.namespace}/${pod.metadata.name}/no-such-container`);
    },
  }),
  defineCase({
    ...agentCase('4.1', 'SHOULD', 'read'),
    gates: { ContainerCheckpoint: true },
    id: 'agent.checkpoint.pod-missing-message',
    title: 'A checkpoint request for a missing pod gets 404 `pod does not exist` (upstream)',
    requirements: ['001-4.1-checkpoint-pod-missing-404'],
    async run(ctx) {
      const res = await postCheckpoint(ctx.agent().client, ctx.namespace, ctx.uniqueName('no-pod'), 'c');
      expectTrue(res.status === 404 && plain(res) === 'pod does not exist', 'POST /checkpoint/... for a missing pod', 'HTTP 404 `pod does not exist`', summary(res));
    },
  }),
  defineCase({
    ...agentCase('4.1', 'SHOULD', 'node'),
    gates: { ContainerCheckpoint: true },
    id: 'agent.checkpoint.container-missing-message',
    title: 'A missing container gets 404 `container <name> does not exist`; init containers are searched too (upstream)',
    requirements: ['001-4.1-checkpoint-container-missing-404'],
    async run(ctx) {
      const pod = await runningPod(ctx, 'ckpt-init', { initContainers: [{ name: 'prep', image: RUN_IMAGE, command: ['true'] }] });
      const { namespace, name } = pod.metadata;
      const res = await postCheckpoint(ctx.agent().client, namespace, name, 'no-such-container');
      expectTrue(res.status === 404 && plain(res) === 'container no-such-container does not exist', 'POST /checkpoint/... for a container the pod does not have',
        'HTTP 404 `container no-such-container does not exist`', summary(res));
      // The init container is in the spec, so it is found; it has finished, so what follows is the runtime's business.
      const init = await postCheckpoint(ctx.agent().client, namespace, name, 'prep');
      expectTrue(!(init.status === 404 && /does not exist/.test(init.text)), 'POST /checkpoint/... for the pod\'s init container `prep`',
        'not 404 `container prep does not exist` (initContainers are searched)', summary(init));
    },
  }),
  defineCase({
    ...agentCase('4.1', 'SHOULD', 'node'),
    gates: { ContainerCheckpoint: true },
    id: 'agent.checkpoint.timeout-unparsable',
    title: 'An unparsable timeout gets 404 `cannot parse value of timeout parameter`; when timeout is repeated the last value counts (upstream)',
    requirements: ['001-4.1-checkpoint-timeout-unparsable-404'],
    async run(ctx) {
      const pod = await runningPod(ctx, 'ckpt-tmo');
      const { namespace, name } = pod.metadata;
      const bad = await postCheckpoint(ctx.agent().client, namespace, name, 'c', '?timeout=soon');
      expectTrue(bad.status === 404 && plain(bad) === 'cannot parse value of timeout parameter', 'POST /checkpoint/...?timeout=soon',
        'HTTP 404 `cannot parse value of timeout parameter`', summary(bad));
      const last = await postCheckpoint(ctx.agent().client, namespace, name, 'c', '?timeout=soon&timeout=30');
      expectTrue(last.status === 200, 'POST /checkpoint/...?timeout=soon&timeout=30 (the last value counts)', 'HTTP 200', summary(last));
      const lastBad = await postCheckpoint(ctx.agent().client, namespace, name, 'c', '?timeout=30&timeout=soon');
      expectTrue(lastBad.status === 404, 'POST /checkpoint/...?timeout=30&timeout=soon (the last value counts)', 'HTTP 404', summary(lastBad));
    },
  }),
  defineCase({
    ...agentCase('4.1', 'MUST', 'node'),
    gates: { ContainerCheckpoint: true },
    id: 'agent.checkpoint.runtime-error',
    title: 'When the runtime fails the checkpoint, the agent answers 500 with the runtime\'s error in the message',
    requirements: ['001-4.1-checkpoint-cri-error-500', '001-8-checkpoint-cri-failure'],
    async run(ctx) {
      const pod = await runningPod(ctx, 'ckpt-err');
      const message = `checkpoint refused by the case ${ctx.uniqueName('fault')}`;
      await ctx.cri().addFault({ rpc: 'CheckpointContainer', code: 13, message, pod: podKey(pod) });
      const res = await postCheckpoint(ctx.agent().client, pod.metadata.namespace, pod.metadata.name, 'c');
      expectTrue(res.status === 500, 'POST /checkpoint/... while the runtime answers CheckpointContainer with INTERNAL', 'HTTP 500 Internal Server Error', summary(res));
      expectTrue(res.text.includes(message), 'the 500 answer\'s message', `the runtime's error (${show(message)}) in it`, summary(res));
    },
  }),
  defineCase({
    ...agentCase('4.1', 'SHOULD', 'node'),
    gates: { ContainerCheckpoint: true },
    id: 'agent.checkpoint.runtime-error-message',
    title: 'A runtime failure reads `checkpointing of <ns>/<pod>/<container> failed (<error>)` (upstream)',
    requirements: ['001-4.1-checkpoint-runtime-error-message'],
    async run(ctx) {
      const pod = await runningPod(ctx, 'ckpt-msg');
      const message = `checkpoint refused by the case ${ctx.uniqueName('fault')}`;
      await ctx.cri().addFault({ rpc: 'CheckpointContainer', code: 13, message, pod: podKey(pod) });
      const { namespace, name } = pod.metadata;
      const res = await postCheckpoint(ctx.agent().client, namespace, name, 'c');
      const head = `checkpointing of ${namespace}/${name}/c failed (`;
      const text = plain(res);
      expectTrue(res.status === 500 && text.startsWith(head) && text.endsWith(')') && text.includes(message), 'the 500 answer to a failed checkpoint',
        `HTTP 500 \`${head}<the runtime's error, with ${show(message)}>)\``, summary(res));
    },
  }),
  defineCase({
    ...agentCase('4.1', 'MUST', 'node'),
    gates: { ContainerCheckpoint: true },
    id: 'agent.checkpoint.unimplemented',
    title: 'When the runtime lacks the checkpoint API (UNIMPLEMENTED), the agent answers 500 with the details in the message',
    requirements: ['001-4.1-checkpoint-cri-unsupported-500', '001-8-checkpoint-cri-failure'],
    async run(ctx) {
      const pod = await runningPod(ctx, 'ckpt-unimpl');
      const message = `CheckpointContainer is not implemented by this runtime (${ctx.uniqueName('fault')})`;
      // What a runtime without the API (containerd 1.6) answers: gRPC UNIMPLEMENTED (12).
      await ctx.cri().addFault({ rpc: 'CheckpointContainer', code: 12, message, pod: podKey(pod) });
      const res = await postCheckpoint(ctx.agent().client, pod.metadata.namespace, pod.metadata.name, 'c');
      expectTrue(res.status === 500, 'POST /checkpoint/... while the runtime answers CheckpointContainer with UNIMPLEMENTED', 'HTTP 500 Internal Server Error', summary(res));
      expectTrue(res.text.includes(message), 'the 500 answer\'s message', `the runtime's details (${show(message)}) in it`, summary(res));
    },
  }),
  defineCase({
    ...agentCase('4.1', 'MUST', 'node'),
    gates: { ContainerCheckpoint: true },
    id: 'agent.checkpoint.timeout',
    title: 'The timeout query parameter reaches the runtime in seconds; zero or no timeout asks for the default CRI timeout (0, the runtime\'s, or the agent\'s own), the same for both',
    requirements: ['001-4.1-checkpoint-timeout', '001-9-checkpoint-timeout'],
    async run(ctx) {
      const pod = await runningPod(ctx, 'ckpt-to');
      const { namespace, name } = pod.metadata;
      const asked = async (query: string): Promise<number[]> => {
        const since = await ctx.cri().lastSeq();
        const res = await postCheckpoint(ctx.agent().client, namespace, name, 'c', query);
        const calls = await checkpointCalls(ctx, pod, since);
        if (calls.length === 0) fail(`POST /checkpoint/...${query || ' without timeout'}: the runtime is asked`, 'a CheckpointContainer call', `none (the agent answered ${summary(res)})`);
        return calls.map((c) => Number(c.request?.timeout ?? 0));
      };
      const given = await asked('?timeout=17');
      expectTrue(given.every((t) => t === 17), 'CheckpointContainerRequest.timeout for ?timeout=17', '17 (seconds)', show(given));
      // "Zero or unset means the default CRI timeout": an agent may leave it to the runtime (0, as
      // upstream does) or pass the default it is configured with (a positive number of seconds), but
      // the one default for both.
      const unset = await asked('');
      const zero = await asked('?timeout=0');
      const all = [...unset, ...zero];
      expectTrue(all.every((t) => Number.isSafeInteger(t) && t >= 0 && t === all[0]), 'CheckpointContainerRequest.timeout without timeout and for ?timeout=0',
        'one default for both: 0 (the runtime\'s own) or the agent\'s default in seconds', `without: ${show(unset)}; ?timeout=0: ${show(zero)}`);
      if (all[0] !== 0) noteMay('CheckpointContainerRequest.timeout for a checkpoint without timeout (the default CRI timeout)', '0 (the runtime\'s own default)', `${all[0]} (the agent's default, in seconds)`);
    },
  }),
  defineCase({
    ...agentCase('4.1', 'MUST', 'node'),
    gates: { ContainerCheckpoint: true },
    id: 'agent.checkpoint.path-parameters',
    title: 'namespace, pod and container are required path parameters: a path without the container (or the pod) checkpoints nothing and gets a 4xx',
    requirements: ['001-4.1-checkpoint-path-parameters'],
    async run(ctx) {
      const pod = await runningPod(ctx, 'ckpt-params');
      const { namespace, name } = pod.metadata;
      const since = await ctx.cri().lastSeq();
      for (const path of [`/checkpoint/${namespace}/${name}`, `/checkpoint/${namespace}`, `/checkpoint/${namespace}/${name}/`]) {
        const res = await ctx.agent().client.post(path, undefined);
        // 401 and 403 would say nothing about the parameters: the client is authenticated and allowed.
        expectTrue(res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 403, `POST ${path}`, 'a 4xx answer (400 or 404)', summary(res));
      }
      const calls = await checkpointCalls(ctx, pod, since);
      expectTrue(calls.length === 0, 'the runtime\'s call log after the requests without all path parameters', 'no CheckpointContainer call for the pod', show(calls.map((c) => c.request)));
    },
  }),
];
