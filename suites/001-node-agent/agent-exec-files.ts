// Spec 001 §2.1: the agent's local files, observed on agents the case starts (the launcher runs
// them on this machine, so their root dir can be read). The table is informational in the spec
// ("implementation details that may change"), hence SHOULD, except the lock file's conflict rule
// which is observed through behaviour.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { defineCase, type Case } from '../case.js';
import { fail, show } from '../verify.js';
import { agentCase, createPodOnNode, isRunning, podPath, RUN_IMAGE, waitFor } from './agent-kit.js';
import { expectStarts, healthyWithin, withScratch } from './agent-exec-kit.js';

/** Waits (bounded polling of the file system) until `path` exists; gives its stat, or undefined. */
async function appears(path: string, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await stat(path);
    } catch { /* not yet */ }
    if (Date.now() >= deadline) return undefined;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function listing(dir: string): Promise<string> {
  return show(await readdir(dir).catch((e) => `(cannot list: ${(e as Error).message})`));
}

/** A case that starts a standalone agent and expects each of `entries` (relative to its root dir, `/` for a directory). */
function rootEntries(id: string, title: string, req: string, entries: readonly string[]): Case {
  return defineCase({
    id: `agent.files.${id}`, title, requirements: [req], ...agentCase('2.1', 'SHOULD', 'exec'),
    async run(ctx) {
      const a = await ctx.agents.launch({ controlPlane: false });
      for (const e of entries) {
        const dir = e.endsWith('/');
        const st = await appears(join(a.rootDir, e));
        if (!st || (dir && !st.isDirectory())) fail(`<root_dir>/${e} after the agent started (within 5s)`, dir ? 'a directory' : 'present', `${st ? 'not a directory' : 'absent'}; <root_dir> holds ${await listing(a.rootDir)}`);
      }
    },
  });
}

/** Names of the files in `dir` whose text contains `marker`. */
async function filesWith(dir: string, marker: RegExp): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const out: string[] = [];
  for (const n of names) {
    const text = await readFile(join(dir, n), 'utf8').catch(() => '');
    if (marker.test(text)) out.push(n);
  }
  return out;
}

async function expectServingPair(dir: string, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const certs = await filesWith(dir, /-----BEGIN CERTIFICATE-----/);
    const keys = await filesWith(dir, /-----BEGIN [A-Z ]*PRIVATE KEY-----/);
    if (certs.length && keys.length) return;
    if (Date.now() >= deadline) fail(`${what}: the generated serving certificate and key (within ${timeoutMs / 1000}s)`, 'a PEM certificate file and a PEM private key file', `the directory holds ${await listing(dir)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits (bounded polling) until the file at `path` mentions `text`. */
async function fileMentions(path: string, text: string, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '(absent)';
  for (;;) {
    last = await readFile(path, 'utf8').catch(() => '(absent)');
    if (last.includes(text)) return;
    if (Date.now() >= deadline) fail(`${what} (within ${timeoutMs / 1000}s)`, `the file mentions the pod's UID ${text}`, show(last.slice(0, 400)));
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const agentExecFilesCases: Case[] = [
  defineCase({
    id: 'agent.files.pod-allocation-records', title: 'a pod the agent admitted and started is recorded in <root_dir>/allocated_pods_state and <root_dir>/actuated_pods_state',
    requirements: ['001-2.1-pod-allocation-records'], ...agentCase('2.1', 'SHOULD', 'exec'),
    async run(ctx) {
      const a = await ctx.agents.launch();
      const resources = { requests: { cpu: '10m', memory: '16Mi' }, limits: { cpu: '100m', memory: '32Mi' } };
      const pod = await createPodOnNode(ctx, { containers: [{ name: 'c', image: RUN_IMAGE, command: ['sleep', '3600'], resources }] }, 'alloc', a.nodeName);
      try {
        await waitFor(ctx, podPath(ctx, pod.metadata.name), isRunning, 'the pod runs on the launched agent', 'phase Running, container c running');
        await fileMentions(join(a.rootDir, 'allocated_pods_state'), pod.metadata.uid, '<root_dir>/allocated_pods_state records the admitted pod');
        await fileMentions(join(a.rootDir, 'actuated_pods_state'), pod.metadata.uid, '<root_dir>/actuated_pods_state records the started pod');
      } finally {
        // Gone before the agent stops, so the pod does not wait for a node that no longer answers.
        await ctx.api.delete(podPath(ctx, pod.metadata.name), { query: { gracePeriodSeconds: 0 } }).catch(() => undefined);
      }
    },
  }),
  defineCase({
    id: 'agent.files.cert-dir', title: 'the generated serving certificate and key go to <root_dir>/pki by default, to --cert-dir when given',
    requirements: ['001-2.1-cert-dir'], ...agentCase('2.1', 'SHOULD', 'exec'),
    async run(ctx) {
      const a = await ctx.agents.launch({ controlPlane: false });
      await expectServingPair(join(a.rootDir, 'pki'), '<root_dir>/pki');
      await withScratch(async (dir) => {
        const certDir = join(dir, 'certs');
        await ctx.agents.launch({ controlPlane: false, args: ['--cert-dir', certDir] });
        await expectServingPair(certDir, '--cert-dir');
      });
    },
  }),
  rootEntries('plugins-registry', 'the plugin registration directory is <root_dir>/plugins_registry', '001-2.1-plugins-registry', ['plugins_registry/']),
  rootEntries('pod-resources', 'the pod resources API socket lives at <root_dir>/pod-resources', '001-2.1-pod-resources-socket', ['pod-resources']),
  rootEntries('resource-manager-state', 'resource manager state is kept in <root_dir>: memory_manager_state, cpu_manager_state, dra_manager_state', '001-2.1-resource-manager-state',
    ['memory_manager_state', 'cpu_manager_state', 'dra_manager_state']),
  rootEntries('image-pull-records', 'image pull records live in <root_dir>/image_manager with pulling/ and pulled/', '001-2.1-image-pull-records',
    ['image_manager/', 'image_manager/pulling/', 'image_manager/pulled/']),
  defineCase({
    id: 'agent.lock.exclusive', title: 'an agent does not start while another holds the same --lock-file; once that one stops, the lock can be taken',
    requirements: ['001-2.1-lock-file'], ...agentCase('2.1', 'SHOULD', 'exec'),
    async run(ctx) {
      await withScratch(async (dir) => {
        const lock = join(dir, 'agent.lock');
        const launched = Date.now();
        const first = await ctx.agents.launch({ controlPlane: false, args: ['--lock-file', lock] });
        // An agent that ignored the lock would come up about as fast as the first one did: three times
        // that (at least 5 s, at most 15 s) is ample on a slow machine too.
        const window = Math.min(15_000, Math.max(5_000, 3 * (Date.now() - launched)));
        const second = await ctx.agents.launch({ controlPlane: false, args: ['--lock-file', lock], waitReady: false });
        let exited = false;
        void second.exited.then(() => { exited = true; });
        // The second may refuse (exit) or wait for the lock as upstream does; it must not serve.
        if (await healthyWithin(second, window, () => exited)) fail('a second agent on the same --lock-file while the first runs', 'it exits or waits without serving', `it answered GET /healthz with 200; it printed: ${show(second.output().slice(-300))}`);
        if (!await healthyWithin(first, 5_000)) fail('the first agent keeps running while the second tries the lock', 'GET /healthz 200', 'no 200');
        // Different lock paths do not see each other.
        await expectStarts(ctx, { args: ['--lock-file', join(dir, 'other.lock')] }, 'an agent on another --lock-file while the first runs');
        await first.stop();
        // A waiting second agent now takes the lock; one that gave up is replaced by a third.
        const next = exited ? await ctx.agents.launch({ controlPlane: false, args: ['--lock-file', lock], waitReady: false }) : second;
        let nextExited = false;
        void next.exited.then(() => { nextExited = true; });
        if (!await healthyWithin(next, 20_000, () => nextExited)) fail('an agent on the lock file once its holder stopped', 'it starts (GET /healthz 200) within 20s', `${nextExited ? `it exited (${show(await next.exited)})` : 'no 200'}; it printed: ${show(next.output().slice(-300))}`);
      });
    },
  }),
];

