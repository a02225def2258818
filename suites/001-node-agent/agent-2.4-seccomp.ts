// Spec 001 §2.4 (and §8's seccomp row), observed on an agent: the seccomp profile each container of a
// pod runs with, as the mock CRI decided it from the agent's CreateContainer request, and the profile
// reference the agent puts in that request. The control-plane side (which fields the API stores and
// validates) is in 2.4-seccomp.ts.
//
// Legal variance: the CRI carries a profile either in the structured `seccomp` field or in the
// deprecated `seccomp_profile_path` string, and a privileged container may be sent with any profile
// (the runtime runs it unconfined). So the profile a container runs with is read from the mock's
// effective profile (containers[].seccomp.profileType), which applies the runtime's rules to both
// forms; only the Localhost reference is read from the request itself.
import { defineCase, type Case, type CaseContext } from '../case.js';
import { CaseFailure, eventually, expectTrue, fail, show, skip } from '../verify.js';
import { join } from 'node:path';
import { writeFiles } from '../../runner/agent-exec.js';
import { agentCase, containerStatus, createPodOnNode, criCallsFor, isRunning, podPath, RUN_IMAGE, waitFor } from './agent-kit.js';

type ProfileType = 'RuntimeDefault' | 'Unconfined';

/** The runtime's record of each container of the pod (the latest attempt), by container name. */
async function runtimeContainers(ctx: CaseContext, pod: any): Promise<Map<string, any>> {
  const state = await ctx.cri().state();
  const { namespace, name } = pod.metadata;
  const sandboxIds = new Set(state.sandboxes.filter((s: any) => s.metadata?.namespace === namespace && s.metadata?.name === name).map((s: any) => s.id));
  const byName = new Map<string, any>();
  for (const c of state.containers) {
    if (!sandboxIds.has(c.sandboxId)) continue;
    const prev = byName.get(c.metadata?.name);
    if (!prev || Number(c.metadata?.attempt ?? 0) >= Number(prev.metadata?.attempt ?? 0)) byName.set(c.metadata?.name, c);
  }
  return byName;
}

/** Runs the pod until container `c` runs, then checks the profile each of `expected`'s containers runs with. */
async function expectProfiles(ctx: CaseContext, pod: any, expected: Record<string, ProfileType>, why: string): Promise<void> {
  await waitFor(ctx, podPath(ctx, pod.metadata.name), isRunning, 'the pod on the agent\'s node runs', 'status.phase Running with container c running');
  const containers = await runtimeContainers(ctx, pod);
  for (const [name, type] of Object.entries(expected)) {
    const seen = containers.get(name)?.seccomp;
    expectTrue(seen?.profileType === type, `container ${name} runs with seccomp ${type} (${why})`,
      `the runtime's effective profile ${type}`, seen ? show(seen) : `no container ${name} in the runtime: ${show([...containers.keys()])}`);
  }
}

/** An init container that ends at once, so the pod goes on to container `c`. */
const initContainer = (extra: Record<string, unknown> = {}) => ({ name: 'init', image: RUN_IMAGE, command: ['true'], ...extra });
const profile = (type: string, localhostProfile?: string) => ({ seccompProfile: { type, ...(localhostProfile ? { localhostProfile } : {}) } });

/** The Localhost reference of a CreateContainer request, in either CRI form; undefined when it names none. */
function localhostRef(call: any): string | undefined {
  const sc = call.request?.config?.linux?.security_context ?? {};
  if (sc.seccomp) return sc.seccomp.profile_type === 'Localhost' ? String(sc.seccomp.localhost_ref ?? '') : undefined;
  const p = String(sc.seccomp_profile_path ?? '');
  return p.startsWith('localhost/') ? p.slice('localhost/'.length) : undefined;
}

/** A pod whose container `c` asks for a Localhost profile no node has (a name unique to the run). */
async function podWithMissingProfile(ctx: CaseContext, hint: string): Promise<{ pod: any; file: string }> {
  const file = `${ctx.uniqueName('profile')}.json`;
  const pod = await createPodOnNode(ctx, {
    containers: [{ name: 'c', image: RUN_IMAGE, command: ['sleep', '3600'], securityContext: profile('Localhost', file) }],
  }, hint);
  return { pod, file };
}

export const agentSeccompCases: Case[] = [
  defineCase({
    ...agentCase('2.4', 'MUST', 'node'),
    id: 'agent.seccomp.inherit-pod',
    title: 'Containers and init containers without their own seccompProfile run with the pod\'s',
    requirements: ['001-2.4-seccomp-inherit-pod'],
    async run(ctx) {
      // One pod per type: whatever the agent's seccompDefault, an agent that ignores the pod's
      // profile runs one of the two pods with the other type. (Ephemeral containers are not covered:
      // they need the ephemeralcontainers subresource and an agent that runs them.)
      const pods = await Promise.all((['RuntimeDefault', 'Unconfined'] as const).map(async (type) => ({
        type,
        pod: await createPodOnNode(ctx, { securityContext: profile(type), initContainers: [initContainer()] }, `inherit-${type.toLowerCase()}`),
      })));
      for (const { type, pod } of pods) {
        await expectProfiles(ctx, pod, { init: type, c: type }, `pod-level seccompProfile ${type}, none on the containers`);
      }
    },
  }),

  defineCase({
    ...agentCase('2.4', 'MUST', 'node'),
    id: 'agent.seccomp.container-priority',
    title: 'A container\'s own seccompProfile takes priority over the pod\'s',
    requirements: ['001-2.4-seccomp-container-priority'],
    async run(ctx) {
      const pod = await createPodOnNode(ctx, {
        securityContext: profile('RuntimeDefault'),
        initContainers: [initContainer({ securityContext: profile('Unconfined') })],
        containers: [{ name: 'c', image: RUN_IMAGE, command: ['sleep', '3600'], securityContext: profile('Unconfined') }],
      }, 'priority');
      await expectProfiles(ctx, pod, { init: 'Unconfined', c: 'Unconfined' }, 'pod-level RuntimeDefault, container-level Unconfined');
    },
  }),

  defineCase({
    ...agentCase('2.4', 'MUST', 'node'),
    id: 'agent.seccomp.privileged-unconfined',
    title: 'A privileged container runs Unconfined even when the pod sets a seccomp profile',
    requirements: ['001-2.4-seccomp-privileged-unconfined'],
    async run(ctx) {
      // The profile is set at pod level: a privileged container may not carry its own (§2.4), and an
      // API may reject that combination. Whether the agent sends Unconfined or `privileged` with any
      // profile, the runtime's effective profile is what the container runs with.
      const pod = await createPodOnNode(ctx, {
        securityContext: profile('RuntimeDefault'),
        containers: [{ name: 'c', image: RUN_IMAGE, command: ['sleep', '3600'], securityContext: { privileged: true } }],
      }, 'privileged').catch((err) => {
        // An API that enforces "privileged cannot have a profile" at validation leaves nothing to run,
        // whatever error it answers (upstream's validation would say 422).
        if (err instanceof CaseFailure && /^HTTP 4\d\d /.test(err.actual)) skip(`the API rejects a privileged container in a pod with a seccomp profile: ${err.actual.slice(0, 200)}`);
        throw err;
      });
      await expectProfiles(ctx, pod, { c: 'Unconfined' }, 'privileged: true, pod-level RuntimeDefault');
    },
  }),

  defineCase({
    ...agentCase('2.4', 'MUST', 'node'),
    id: 'agent.seccomp.type-runtime-default',
    title: 'A container with seccompProfile RuntimeDefault runs with the runtime\'s default profile',
    requirements: ['001-2.4-seccomp-type-runtime-default'],
    async run(ctx) {
      const pod = await createPodOnNode(ctx, {
        containers: [{ name: 'c', image: RUN_IMAGE, command: ['sleep', '3600'], securityContext: profile('RuntimeDefault') }],
      }, 'runtime-default');
      await expectProfiles(ctx, pod, { c: 'RuntimeDefault' }, 'seccompProfile RuntimeDefault');
    },
  }),

  defineCase({
    ...agentCase('2.4', 'MUST', 'node'),
    id: 'agent.seccomp.type-unconfined',
    title: 'A container with seccompProfile Unconfined runs without seccomp restriction',
    requirements: ['001-2.4-seccomp-type-unconfined'],
    async run(ctx) {
      const pod = await createPodOnNode(ctx, {
        containers: [{ name: 'c', image: RUN_IMAGE, command: ['sleep', '3600'], securityContext: profile('Unconfined') }],
      }, 'unconfined');
      await expectProfiles(ctx, pod, { c: 'Unconfined' }, 'seccompProfile Unconfined');
    },
  }),

  defineCase({
    ...agentCase('2.4', 'MUST', 'node'),
    id: 'agent.seccomp.localhost-path',
    title: 'A Localhost profile is asked of the runtime as the file <root_dir>/seccomp/<localhostProfile>',
    requirements: ['001-2.4-seccomp-localhost-profile', '001-2.4-seccomp-type-localhost'],
    async run(ctx) {
      // The case cannot put a profile on the node, so the file is missing and creation fails; the
      // request still names the file. The agent's root dir is not known to the case (it is set with
      // --root-dir), so only the path's form is checked: absolute, ending in /seccomp/<localhostProfile>.
      const { pod, file } = await podWithMissingProfile(ctx, 'localhost');
      let refs: Array<string | undefined> = [];
      await eventually(async () => {
        const calls = (await criCallsFor(ctx, pod, 'CreateContainer')).filter((c) => c.request?.config?.metadata?.name === 'c');
        refs = calls.map(localhostRef);
        return { ok: calls.length > 0, actual: 'no CreateContainer request for container c' };
      }, 'the agent asks the runtime to create container c', 'a CreateContainer request for c', 20_000);
      const bad = refs.filter((r) => r === undefined || !r.startsWith('/') || !r.endsWith(`/seccomp/${file}`));
      if (bad.length > 0) {
        fail('the CreateContainer request names the Localhost profile file under <root_dir>/seccomp',
          `seccomp {profile_type Localhost, localhost_ref "<root_dir>/seccomp/${file}"} (or seccomp_profile_path "localhost/<root_dir>/seccomp/${file}")`,
          show(refs.map((r) => r ?? 'no Localhost profile')));
      }
    },
  }),

  defineCase({
    ...agentCase('2.4', 'MUST', 'node'),
    id: 'agent.seccomp.localhost-missing',
    title: 'A missing Localhost seccomp profile makes container creation fail with CreateContainerError',
    requirements: ['001-2.4-seccomp-localhost-missing', '001-8-seccomp-localhost-missing'],
    async run(ctx) {
      const { pod } = await podWithMissingProfile(ctx, 'localhost-missing');
      await waitFor(ctx, podPath(ctx, pod.metadata.name), (p) => containerStatus(p, 'c')?.state?.waiting?.reason === 'CreateContainerError',
        'container c, whose Localhost profile is missing, is not created', 'container c waiting with reason CreateContainerError');
    },
  }),

  defineCase({
    ...agentCase('2.4', 'MUST', 'exec'),
    id: 'agent.seccomp.localhost-loaded',
    title: 'A Localhost profile that exists on the node under <root_dir>/seccomp is the profile the container runs with',
    requirements: ['001-2.4-seccomp-type-localhost'],
    async run(ctx) {
      // An agent of the case's own, whose root dir the case can write the profile into (a node's
      // file system is out of reach otherwise); its runtime reads profiles from that directory.
      const agent = await ctx.agents.launch();
      const file = 'oc-profile.json';
      const profileJson = { defaultAction: 'SCMP_ACT_ERRNO', defaultErrnoRet: 1, syscalls: [{ names: ['read', 'write', 'exit_group'], action: 'SCMP_ACT_ALLOW' }] };
      await writeFiles(join(agent.rootDir, 'seccomp'), { [file]: JSON.stringify(profileJson) });
      const pod = await createPodOnNode(ctx, {
        containers: [{ name: 'c', image: RUN_IMAGE, command: ['sleep', '3600'], securityContext: profile('Localhost', file) }],
      }, 'localhost-loaded', agent.nodeName);
      try {
        await waitFor(ctx, podPath(ctx, pod.metadata.name), isRunning, 'the pod with an existing Localhost profile runs', 'status.phase Running with container c running');
        const runtime = (agent.cri.control.state().containers as any[]).find((c) => c.metadata?.name === 'c' && c.sandboxId && c.state === 'CONTAINER_RUNNING');
        expectTrue(runtime?.seccomp?.profileType === 'Localhost' && JSON.stringify(runtime.seccomp.profile) === JSON.stringify(profileJson),
          'container c runs with the profile file from <root_dir>/seccomp', `Localhost with the profile ${show(profileJson)}`, show(runtime?.seccomp ?? 'no running container c'));
      } finally {
        // Gone before the agent stops, so the pod does not wait for a node that no longer answers.
        await ctx.api.delete(podPath(ctx, pod.metadata.name), { query: { gracePeriodSeconds: 0 } }).catch(() => undefined);
      }
    },
  }),
];
