// More cases on agents the case starts itself: §2.1 local files (staticPodPath, --config,
// <root_dir>/seccomp), §5.1 null in a drop-in, §5.2 the watchdog's environment, and §1 CRI wire
// fields observed on the launched agent's own runtime (its call log, its state, and what the agent
// makes of the answers). All SHOULD: ground-truth (upstream) or the informational file table.
import { join } from 'node:path';
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectEqual, expectTrue, fail, show } from '../verify.js';
import { agentCase, createPodOnNode, isRunning, podPath, RUN_IMAGE, waitFor } from './agent-kit.js';
import { configArgs, durationMs, healthyWithin, readConfigz, withScratch } from './agent-exec-kit.js';
import { listenNotify, says, type NotifySocket } from './agent-exec-notify.js';
import { condition, nodeWhen, readyView } from './agent-node-kit.js';
import { loadCriClient, loadMockCri, writeFiles, type LaunchedAgent } from '../../runner/agent-exec.js';

/** Bounded polling (every 100 ms) of something local (a launched runtime's state, a file): the first truthy value, or undefined. */
export async function pollUntil<T>(get: () => T | undefined | Promise<T | undefined>, timeoutMs: number): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (v) return v;
    if (Date.now() >= deadline) return undefined;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The sandboxes a launched agent's runtime holds for pod `<namespace>/<name>`. */
const sandboxesOf = (a: LaunchedAgent, namespace: string, name: string): any[] =>
  (a.cri.control.state().sandboxes as any[]).filter((s) => s.metadata?.namespace === namespace && s.metadata?.name === name);

/** Runs `fn` with a pod (`spec` over one sleeping container c) on the launched agent's node, deleted (grace 0) before the case ends. */
export async function withPodOn(ctx: CaseContext, a: LaunchedAgent, spec: Record<string, unknown>, hint: string, fn: (pod: any) => Promise<void>): Promise<void> {
  const pod = await createPodOnNode(ctx, spec, hint, a.nodeName);
  try {
    await fn(pod);
  } finally {
    // Gone before the agent stops, so the pod does not wait for a node that no longer answers.
    await ctx.api.delete(podPath(ctx, pod.metadata.name), { query: { gracePeriodSeconds: 0 } }).catch(() => undefined);
  }
}

/** The CreateContainer calls the launched agent made for the pod (by the sandbox config's uid). */
const createCallsFor = (a: LaunchedAgent, pod: any) =>
  a.cri.control.calls.list({ rpc: 'CreateContainer' }).filter((c: any) => c.request?.sandbox_config?.metadata?.uid === pod.metadata.uid);

/** Every value of `key` in the requests of the call log (ids the agent named to its runtime). */
function requestValues(a: LaunchedAgent, key: string): Set<string> {
  const out = new Set<string>();
  for (const c of a.cri.control.calls.list()) {
    const v = (c.request as any)?.[key];
    if (typeof v === 'string' && v) out.add(v);
  }
  return out;
}

/** Configuration that lets anonymous requests read a standalone agent's endpoints (/configz). */
const STANDALONE_OPEN = { authentication: { anonymous: { enabled: true }, webhook: { enabled: false } }, authorization: { mode: 'AlwaysAllow' } } as const;

const isStringMap = (m: unknown) => !!m && typeof m === 'object' && !Array.isArray(m) && Object.values(m).every((v) => typeof v === 'string');

const filesCases: Case[] = [
  defineCase({
    id: 'agent.files.static-pod-path', title: 'the agent runs the Pod manifests of the directory its staticPodPath option names (with a mirror pod <name>-<node> in the API)',
    requirements: ['001-2.1-static-pod-path'], ...agentCase('2.1', 'SHOULD', 'exec'),
    async run(ctx) {
      await withScratch(async (dir) => {
        const manifests = join(dir, 'manifests');
        const name = ctx.uniqueName('static');
        const manifest = {
          apiVersion: 'v1', kind: 'Pod',
          metadata: { name, namespace: ctx.namespace, labels: { ...ctx.labels } },
          spec: { containers: [{ name: 'c', image: RUN_IMAGE, command: ['sleep', '3600'] }], terminationGracePeriodSeconds: 1 },
        };
        // JSON is YAML: a manifest any agent reads.
        await writeFiles(manifests, { 'static-pod.yaml': JSON.stringify(manifest, null, 2) });
        const a = await ctx.agents.launch({ args: await configArgs(dir, { main: { staticPodPath: manifests } }) });
        // Upstream names a static pod (and its mirror) `<name>-<nodeName>`.
        const mirror = `${name}-${a.nodeName}`;
        ctx.track(podPath(ctx, mirror));
        try {
          const sb = await pollUntil(() => {
            const s = [...sandboxesOf(a, ctx.namespace, mirror), ...sandboxesOf(a, ctx.namespace, name)];
            return s.length ? s : undefined;
          }, 20_000);
          if (!sb) fail('the static pod of staticPodPath runs in the launched agent\'s runtime (within 20s)', `a sandbox for ${ctx.namespace}/${mirror}`, `sandboxes: ${show((a.cri.control.state().sandboxes as any[]).map((s) => s.metadata))}`);
          await waitFor(ctx, podPath(ctx, mirror), (p) => !!p?.metadata?.uid && !p.deleted, 'the mirror pod of the static pod in the API', `a Pod ${ctx.namespace}/${mirror}`);
        } finally {
          // The agent recreates a mirror pod it still has a manifest for: stop it first.
          await a.stop();
          await ctx.api.delete(podPath(ctx, mirror), { query: { gracePeriodSeconds: 0 } }).catch(() => undefined);
        }
      });
    },
  }),
  defineCase({
    id: 'agent.files.seccomp-dir', title: 'a Localhost seccomp profile `oc/<file>` is the file <root_dir>/seccomp/oc/<file>: the path the agent gives its runtime',
    requirements: ['001-2.1-seccomp-profiles-dir'], ...agentCase('2.1', 'SHOULD', 'exec'),
    async run(ctx) {
      // Unlike agent.seccomp.localhost-loaded (the runtime runs the container with the profile), this
      // looks at where the agent says the profile lives, in a subdirectory of <root_dir>/seccomp.
      const a = await ctx.agents.launch();
      const file = join(a.rootDir, 'seccomp', 'oc', 'profile.json');
      await writeFiles(join(a.rootDir, 'seccomp', 'oc'), { 'profile.json': JSON.stringify({ defaultAction: 'SCMP_ACT_ALLOW' }) });
      const spec = { containers: [{ name: 'c', image: RUN_IMAGE, command: ['sleep', '3600'], securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'oc/profile.json' } } }] };
      await withPodOn(ctx, a, spec, 'seccomp-dir', async (pod) => {
        const calls = await pollUntil(() => { const c = createCallsFor(a, pod); return c.length ? c : undefined; }, 20_000);
        if (!calls) fail('the agent creates container c of the pod with the Localhost profile oc/profile.json (within 20s)', 'a CreateContainer call for the pod', 'none');
        const refs = calls.map((c: any) => c.request?.config?.linux?.security_context?.seccomp?.localhost_ref);
        expectTrue(refs.every((r) => r === file), 'CreateContainer for container c: linux.security_context.seccomp.localhost_ref', show(file), show(refs));
      });
    },
  }),
  defineCase({
    id: 'agent.config.file', title: 'the file --config names is the configuration the agent runs with',
    requirements: ['001-2.1-config-file'], ...agentCase('2.1', 'SHOULD', 'exec'),
    async run(ctx) {
      // Keys the launcher passes no flag for, with values no default has. Standalone, nothing can check
      // credentials (§6's webhooks need a control plane): /configz is opened to anonymous requests.
      await withScratch(async (dir) => {
        const a = await ctx.agents.launch({ controlPlane: false, args: await configArgs(dir, { main: { clusterDNS: ['10.0.0.77'], staticPodURLHeader: { 'X-Oc': ['file'] }, ...STANDALONE_OPEN } }) });
        const cfg = await readConfigz(a);
        expectEqual(cfg.clusterDNS, ['10.0.0.77'], '/configz: clusterDNS from the --config file');
        expectEqual(cfg.staticPodURLHeader, { 'X-Oc': ['file'] }, '/configz: staticPodURLHeader from the --config file');
      });
    },
  }),
  defineCase({
    id: 'agent.config.drop-in-null', title: 'a drop-in is a JSON merge patch (RFC 7386): a field it sets to null is removed (back to its default)',
    requirements: ['001-5.1-drop-in-merge-patch'], ...agentCase('5.1', 'SHOULD', 'exec'),
    async run(ctx) {
      await withScratch(async (dir) => {
        const a = await ctx.agents.launch({ controlPlane: false, args: await configArgs(dir, {
          main: { clusterDNS: ['10.0.0.10'], authentication: STANDALONE_OPEN.authentication, authorization: { mode: 'AlwaysAllow', webhook: { cacheAuthorizedTTL: '7m0s' } } },
          dropIns: { '10-null.conf': { clusterDNS: null, authorization: { webhook: { cacheAuthorizedTTL: null } } } },
        }) });
        const cfg = await readConfigz(a);
        const dns = cfg.clusterDNS;
        expectTrue(dns === undefined || dns === null || (Array.isArray(dns) && dns.length === 0), 'clusterDNS: null in the drop-in removes the main file\'s list', 'absent, null or [] (no cluster DNS)', show(dns));
        const ttl = cfg.authorization?.webhook?.cacheAuthorizedTTL;
        expectTrue(durationMs(ttl) !== 420_000, 'authorization.webhook.cacheAuthorizedTTL: null in the drop-in removes the main file\'s 7m0s (a nested null)', 'the default or absent, not 7m0s', show(ttl));
        expectEqual(cfg.authorization?.mode, 'AlwaysAllow', 'authorization.mode: a sibling of the nulled field keeps the main file\'s value');
      });
    },
  }),
];

const seen = (sock: NotifySocket) => show(sock.messages.map((m) => m.text));

const watchdogCases: Case[] = [
  defineCase({
    id: 'agent.watchdog.env', title: 'WATCHDOG_PID naming another process disables the watchdog; a WATCHDOG_USEC that is not positive is not a timeout',
    requirements: ['001-5.2-watchdog-env'], ...agentCase('5.2', 'SHOULD', 'exec'),
    async run(ctx) {
      await withScratch(async (dir) => {
        const at = join(dir, 'notify.sock');
        const sock = await listenNotify(at);
        try {
          // The runner's own pid: never the agent's (the agent is a child of the runner).
          await ctx.agents.launch({ controlPlane: false, env: { NOTIFY_SOCKET: at, WATCHDOG_USEC: '1000000', WATCHDOG_PID: String(process.pid) } });
          // 3 s after ready is six periods of this 1 s timeout: a watchdog left on would have pinged.
          const m = await sock.waitFor((t) => says(t, 'WATCHDOG=1'), 3_000);
          if (m) fail(`no WATCHDOG=1 with WATCHDOG_PID=${process.pid}, another process than the agent`, 'no ping (the watchdog is another process\'s)', `received ${seen(sock)}`);

          // Not positive: the agent refuses to start (as upstream's go-systemd reading errs) or runs without pings.
          const before = sock.messages.length;
          const neg = await ctx.agents.launch({ controlPlane: false, env: { NOTIFY_SOCKET: at, WATCHDOG_USEC: '-1000000' }, waitReady: false });
          let exit: { code: number | null } | undefined;
          void neg.exited.then((e) => { exit = e; });
          if (await healthyWithin(neg, 15_000, () => exit !== undefined)) {
            const p = await sock.waitFor((t) => says(t, 'WATCHDOG=1'), 3_000, before);
            if (p) fail('WATCHDOG_USEC=-1000000 is not a watchdog timeout', 'the agent refuses to start, or runs without watchdog pings', `it runs and pings: received ${seen(sock)}`);
          } else if (!exit) {
            fail('WATCHDOG_USEC=-1000000: the agent refuses to start or runs (within 15s)', 'an exit with a non-zero status, or /healthz 200', `neither; it printed: ${show(neg.output().slice(-400))}`);
          } else if (exit.code === 0) {
            fail('WATCHDOG_USEC=-1000000: the agent refuses to start', 'a non-zero exit status', 'exit status 0');
          }
        } finally {
          await sock.close();
        }
      });
    },
  }),
];

const criCases: Case[] = [
  defineCase({
    id: 'agent.cri.version', title: 'the agent asks its runtime Version and reads runtime_name (2) and runtime_version (3): nodeInfo.containerRuntimeVersion is <runtime_name>://<runtime_version>',
    requirements: ['001-1-cri-version'], ...agentCase('1', 'SHOULD', 'exec'),
    async run(ctx) {
      const a = await ctx.agents.launch();
      const node = await nodeWhen(ctx, a.nodeName, (n) => typeof n?.status?.nodeInfo?.containerRuntimeVersion === 'string' && n.status.nodeInfo.containerRuntimeVersion !== '',
        'the launched agent publishes nodeInfo.containerRuntimeVersion', 'a non-empty string', (n) => n?.status?.nodeInfo, 15_000);
      const asked = a.cri.control.calls.list({ rpc: 'Version' });
      expectTrue(asked.length > 0, 'the agent calls Version on its runtime', 'at least one Version call in the runtime\'s call log', 'none');
      // The runtime's own answer, as any CRI client reads it.
      const cri = (await loadCriClient()).criClient(a.cri.criUrl);
      const v: any = await cri.call('Version', { version: '0.1.0' }, { deadlineMs: 5_000 }).finally(() => cri.close());
      expectEqual(node.status.nodeInfo.containerRuntimeVersion, `${v.runtime_name}://${v.runtime_version}`,
        'nodeInfo.containerRuntimeVersion from VersionResponse runtime_name (field 2) and runtime_version (field 3), upstream\'s `<name>://<version>`');
    },
  }),
  defineCase({
    id: 'agent.cri.runtime-status', title: 'the agent calls Status and reads its RuntimeConditions by field: NetworkReady false makes Ready False, with the condition\'s reason (3) or message (4)',
    requirements: ['001-1-cri-runtime-status'], ...agentCase('1', 'SHOULD', 'exec'),
    async run(ctx) {
      const a = await ctx.agents.launch();
      const reason = 'OcNetworkWithheld';
      const message = `network withheld by the case ${ctx.uniqueName('status')}`;
      a.cri.control.setNetworkReady(false, reason, message);
      // NetworkReady is expected true; upstream's Ready message carries the condition's reason and message.
      await nodeWhen(ctx, a.nodeName, (n) => {
        const r = condition(n, 'Ready');
        return r?.status === 'False' && typeof r.message === 'string' && (r.message.includes(reason) || r.message.includes(message));
      }, 'the agent reports Ready False once its runtime answers Status with NetworkReady false', `condition Ready False whose message names the runtime's reason ${show(reason)} or message ${show(message)}`, readyView, 20_000);
      const calls = a.cri.control.calls.list({ rpc: 'Status' });
      expectTrue(calls.length > 0 && calls.every((c) => typeof (c.request as any)?.verbose === 'boolean'), 'the agent\'s Status calls', 'StatusRequest{verbose} calls in the runtime\'s call log', show(calls.slice(-3)));
    },
  }),
  defineCase({
    id: 'agent.cri.list-containers', title: 'ListContainers filters are ContainerFilters used by field: id names a container, pod_sandbox_id a sandbox, state a ContainerState, label_selector a string map',
    requirements: ['001-1-cri-list-containers'], ...agentCase('1', 'SHOULD', 'exec'),
    async run(ctx) {
      const a = await ctx.agents.launch();
      await withPodOn(ctx, a, {}, 'cri-lc', async (pod) => {
        // Until the pod's container runs in the runtime: the agent has listed containers to get there.
        const running = await pollUntil(() => {
          const st = a.cri.control.state();
          const sbs = new Set(sandboxesOf(a, pod.metadata.namespace, pod.metadata.name).map((x) => x.id));
          return (st.containers as any[]).some((c) => sbs.has(c.sandboxId) && c.state === 'CONTAINER_RUNNING');
        }, 20_000);
        if (!running) fail('the pod\'s container runs in the launched agent\'s runtime (within 20s)', 'container c CONTAINER_RUNNING', show(a.cri.control.state().containers));
        const calls = a.cri.control.calls.list({ rpc: 'ListContainers' });
        if (!calls.length) fail('the agent lists its runtime\'s containers (ListContainers) while it runs a pod', 'ListContainers calls', 'none');
        const state = a.cri.control.state();
        // Ids the runtime ever had: what it holds now, and every id the agent named in a request.
        const containers = new Set([...(state.containers as any[]).map((c) => c.id), ...requestValues(a, 'container_id')]);
        const sandboxes = new Set([...(state.sandboxes as any[]).map((s) => s.id), ...requestValues(a, 'pod_sandbox_id')]);
        const states = ['CONTAINER_CREATED', 'CONTAINER_RUNNING', 'CONTAINER_EXITED', 'CONTAINER_UNKNOWN'];
        for (const c of calls) {
          const f = (c.request as any)?.filter;
          if (!f) continue;
          const ok = (!f.id || containers.has(f.id)) && (!f.pod_sandbox_id || sandboxes.has(f.pod_sandbox_id))
            && (!f.state || states.includes(f.state.state)) && (f.label_selector == null || isStringMap(f.label_selector));
          if (!ok) fail('each ListContainers filter the agent sends', 'ContainerFilter{id: a container id, state: a ContainerState, pod_sandbox_id: a sandbox id, label_selector: a string map}',
            `${show(f)}; the runtime's containers ${show([...containers])}, sandboxes ${show([...sandboxes])}`);
        }
      });
    },
  }),
  defineCase({
    id: 'agent.cri.pod-sandboxes', title: 'the agent reads PodSandbox.state from ListPodSandbox: a sandbox that turned SANDBOX_NOTREADY is replaced by a new one',
    requirements: ['001-1-cri-pod-sandboxes'], ...agentCase('1', 'SHOULD', 'exec'),
    async run(ctx) {
      const a = await ctx.agents.launch();
      await withPodOn(ctx, a, {}, 'cri-sb', async (pod) => {
        await waitFor(ctx, podPath(ctx, pod.metadata.name), isRunning, 'the pod runs on the launched agent', 'phase Running, container c running');
        const sbs = () => sandboxesOf(a, pod.metadata.namespace, pod.metadata.name);
        const first = sbs().find((s) => s.state === 'SANDBOX_READY');
        if (!first) fail('the running pod\'s sandbox in the runtime', 'a SANDBOX_READY sandbox', show(sbs()));
        // Stopped behind the agent's back: the runtime now lists it SANDBOX_NOTREADY (1).
        const cri = (await loadCriClient()).criClient(a.cri.criUrl);
        await cri.call('StopPodSandbox', { pod_sandbox_id: first.id }, { deadlineMs: 5_000 }).finally(() => cri.close());
        const next = await pollUntil(() => sbs().find((s) => s.state === 'SANDBOX_READY' && s.id !== first.id), 20_000);
        if (!next) fail('after its sandbox was stopped, the agent runs the pod in a new sandbox (within 20s)', 'another SANDBOX_READY sandbox for the pod', show(sbs().map((s) => ({ id: s.id, state: s.state, attempt: s.metadata?.attempt }))));
      });
    },
  }),
];

/** §2.1 runtime sockets: image operations go to imageServiceEndpoint, runtime operations to containerRuntimeEndpoint. */
const socketCases: Case[] = [
  defineCase({
    id: 'agent.files.runtime-sockets', title: 'with imageServiceEndpoint set, image operations go to that socket and runtime operations to containerRuntimeEndpoint',
    requirements: ['001-2.1-runtime-sockets'], ...agentCase('2.1', 'SHOULD', 'exec'),
    async run(ctx) {
      await withScratch(async (dir) => {
        // A second runtime of the case's own serves the image service; the launcher's runs the rest.
        const images = await (await loadMockCri()).startMockCri({ socket: join(dir, 'images', 'cri.sock'), root: join(dir, 'images-state') });
        try {
          const a = await ctx.agents.launch({ args: await configArgs(dir, { main: { imageServiceEndpoint: images.criUrl } }) });
          const since = Math.max(0, ...a.cri.control.calls.list().map((c) => c.seq));
          await withPodOn(ctx, a, {}, 'sockets', async (pod) => {
            await waitFor(ctx, podPath(ctx, pod.metadata.name), isRunning, 'the pod runs on the launched agent', 'status.phase Running with container c running');
            const imageCalls = images.control.calls.list().filter((c) => c.service === 'ImageService');
            expectTrue(imageCalls.some((c) => /busybox/.test(JSON.stringify(c.request ?? {}))), 'the pod\'s image is looked up or pulled through imageServiceEndpoint',
              `an ImageService call about ${RUN_IMAGE} on the image socket`, show(imageCalls.map((c) => c.rpc)));
            const misplaced = a.cri.control.calls.list({ since }).filter((c) => c.service === 'ImageService');
            expectTrue(misplaced.length === 0, 'no image operation goes to containerRuntimeEndpoint', 'no ImageService call on the runtime socket', show(misplaced.map((c) => c.rpc)));
            const runtimeCalls = a.cri.control.calls.list({ since }).map((c) => c.rpc);
            expectTrue(runtimeCalls.includes('CreateContainer'), 'runtime operations go to containerRuntimeEndpoint', 'CreateContainer on the runtime socket', show([...new Set(runtimeCalls)]));
          });
        } finally {
          await images.close();
        }
      });
    },
  }),
];

export const agentExecMoreCases: Case[] = [...filesCases, ...watchdogCases, ...criCases, ...socketCases];
