// Spec 001 §2.3 (the configuration object: kind, keys, key types) and §5.1 (--config-dir merging),
// observed on agents the case starts: the merge through /configz (a case skips without it), the
// rest through whether the agent starts.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectEqual, expectTrue, fail, show } from '../verify.js';
import { agentCase } from './agent-kit.js';
import { CONFIG_API_VERSION, CONFIG_KIND, configArgs, durationMs, expectRefused, expectStarts, freePort, healthyWithin, readConfigz, withScratch, type ConfigFiles } from './agent-exec-kit.js';

/** Starts an agent with these configuration files (and flags) and gives its merged configuration. */
async function mergedConfig(ctx: CaseContext, files: (dir: string) => Promise<ConfigFiles> | ConfigFiles, args: string[] = []): Promise<Record<string, any>> {
  return withScratch(async (dir) => {
    const a = await ctx.agents.launch({ args: [...await configArgs(dir, await files(dir)), ...args] });
    return readConfigz(a);
  });
}

/** A static pod directory of the case's own (the key must name a directory the agent may watch). */
async function staticDir(dir: string, name: string): Promise<string> {
  const p = join(dir, name);
  await mkdir(p, { recursive: true, mode: 0o700 });
  return p;
}

const merge = (id: string, title: string, req: string, run: (ctx: CaseContext) => Promise<void>): Case => defineCase({
  id: `agent.config.${id}`, title, requirements: [req], ...agentCase('5.1', 'MUST', 'exec'), run,
});

export const agentExecConfigCases: Case[] = [
  merge('main-overlaid', 'the final configuration is the main file overlaid by every drop-in of --config-dir', '001-5.1-main-overlaid', async (ctx) => {
    const cfg = await mergedConfig(ctx, async (dir) => ({
      main: { staticPodPath: await staticDir(dir, 'main'), serializeImagePulls: false },
      dropIns: { '10-a.conf': { staticPodPath: await staticDir(dir, 'drop') }, '20-b.conf': { clusterDNS: ['10.0.0.53'] } },
    }));
    expectTrue(String(cfg.staticPodPath).endsWith('/drop'), 'staticPodPath: the first drop-in overlays the main file', 'the drop-in\'s path (…/drop)', cfg.staticPodPath);
    expectEqual(cfg.clusterDNS, ['10.0.0.53'], 'clusterDNS: the second drop-in applies too');
    expectEqual(cfg.serializeImagePulls, false, 'serializeImagePulls: the main file\'s value, which no drop-in names');
  }),
  merge('scalars-replace', 'a scalar a drop-in sets replaces the main value; fields it does not mention keep theirs', '001-5.1-scalars-replace', async (ctx) => {
    const cfg = await mergedConfig(ctx, async (dir) => ({
      main: { serializeImagePulls: false, staticPodPath: await staticDir(dir, 'main') },
      dropIns: { '10-a.conf': { serializeImagePulls: true } },
    }));
    expectEqual(cfg.serializeImagePulls, true, 'serializeImagePulls: the drop-in\'s value replaces the main one');
    expectTrue(String(cfg.staticPodPath).endsWith('/main'), 'staticPodPath: not mentioned by the drop-in, keeps the main value', 'the main file\'s path (…/main)', cfg.staticPodPath);
  }),
  merge('nested-merge', 'nested structures merge field by field: authorization.mode replaced, the webhook TTLs kept', '001-5.1-nested-merge', async (ctx) => {
    const cfg = await mergedConfig(ctx, () => ({
      main: { authorization: { mode: 'Webhook', webhook: { cacheAuthorizedTTL: '7m0s', cacheUnauthorizedTTL: '45s' } } },
      dropIns: { '10-a.conf': { authorization: { mode: 'AlwaysAllow' } } },
    }));
    expectEqual(cfg.authorization?.mode, 'AlwaysAllow', 'authorization.mode: replaced by the drop-in');
    const w = cfg.authorization?.webhook ?? {};
    expectTrue(durationMs(w.cacheAuthorizedTTL) === 420_000 && durationMs(w.cacheUnauthorizedTTL) === 45_000,
      'authorization.webhook: the fields the drop-in does not mention keep the main file\'s values', 'cacheAuthorizedTTL 7m0s and cacheUnauthorizedTTL 45s', show(w));
  }),
  merge('lists-replace', 'a list (clusterDNS) is replaced whole by the drop-in\'s list', '001-5.1-lists-replace', async (ctx) => {
    const cfg = await mergedConfig(ctx, () => ({ main: { clusterDNS: ['10.0.0.10', '10.0.0.11'] }, dropIns: { '10-a.conf': { clusterDNS: ['10.0.0.53'] } } }));
    expectEqual(cfg.clusterDNS, ['10.0.0.53'], 'clusterDNS: the drop-in\'s list, whole (not appended or merged by index)');
  }),
  merge('maps-merge', 'a map (featureGates) merges per key', '001-5.1-maps-merge', async (ctx) => {
    // InPlacePodVerticalScaling is locked on and "ignored if set" (§2.1); ContainerCheckpoint is beta, on by default.
    const cfg = await mergedConfig(ctx, () => ({
      main: { featureGates: { InPlacePodVerticalScaling: true, ContainerCheckpoint: true } },
      dropIns: { '10-a.conf': { featureGates: { ContainerCheckpoint: false } } },
    }));
    const g = cfg.featureGates ?? {};
    expectTrue(g.ContainerCheckpoint === false && g.InPlacePodVerticalScaling === true, 'featureGates: the drop-in\'s entry replaced, the main file\'s other entry kept',
      '{"ContainerCheckpoint": false, "InPlacePodVerticalScaling": true} among the gates', show(g));
  }),
  merge('map-of-lists', 'a map of string to list (staticPodURLHeader): the list of a key the drop-in names is replaced whole, other keys stay', '001-5.1-map-of-lists', async (ctx) => {
    const cfg = await mergedConfig(ctx, () => ({
      main: { staticPodURLHeader: { 'X-A': ['a1', 'a2'], 'X-B': ['b1'] } },
      dropIns: { '10-a.conf': { staticPodURLHeader: { 'X-A': ['a3'] } } },
    }));
    expectEqual(cfg.staticPodURLHeader, { 'X-A': ['a3'], 'X-B': ['b1'] }, 'staticPodURLHeader after the drop-in');
  }),
  defineCase({
    id: 'agent.config.drop-in-files', title: 'drop-ins are the `.conf` files under --config-dir, walked recursively in lexical order (the last wins)',
    requirements: ['001-5.1-drop-in-files'], ...agentCase('5.1', 'SHOULD', 'exec'),
    async run(ctx) {
      const cfg = await mergedConfig(ctx, () => ({
        main: { clusterDNS: ['10.0.0.1'] },
        dropIns: {
          // Written out of order; a file not ending `.conf` is not a drop-in however it sorts.
          '30-sub/10-x.conf': { clusterDNS: ['10.0.0.30'] },
          '20-b.conf': { clusterDNS: ['10.0.0.20'] },
          '10-a.conf': { clusterDNS: ['10.0.0.10'] },
          '99-z.conf.disabled': { clusterDNS: ['10.0.0.99'] },
          '98-y.yaml': { clusterDNS: ['10.0.0.98'] },
        },
      }));
      expectEqual(cfg.clusterDNS, ['10.0.0.30'], 'clusterDNS: from the lexically last `.conf` file (30-sub/10-x.conf, in a subdirectory); 99-z.conf.disabled and 98-y.yaml ignored');
    },
  }),
  defineCase({
    id: 'agent.config.flags-win', title: 'a command-line flag (--port) wins over the same setting in a drop-in',
    requirements: ['001-5.1-flags-win'], ...agentCase('5.1', 'SHOULD', 'exec'),
    async run(ctx) {
      // The launcher passes --port; the drop-in names another free port. Serving there means the flag lost.
      const other = await freePort();
      await withScratch(async (dir) => {
        const a = await ctx.agents.launch({ args: await configArgs(dir, { dropIns: { '10-port.conf': { port: other } } }), waitReady: false });
        let exited = false;
        void a.exited.then(() => { exited = true; });
        const onFlag = await healthyWithin(a, 20_000, () => exited);
        if (!onFlag) fail('the agent serves on the --port of its command line', `GET ${a.url}/healthz answers 200`, `no answer there within 20s${exited ? ` (it exited: ${show(await a.exited)})` : ''}; the drop-in's port was ${other}; it printed: ${show(a.output().slice(-400))}`);
      });
    },
  }),
  defineCase({
    id: 'agent.config.drop-in-strict', title: 'a drop-in is decoded strictly and carries its own apiVersion and kind: an unknown field or a missing kind refuses the start',
    requirements: ['001-5.1-drop-in-strict'], ...agentCase('5.1', 'SHOULD', 'exec'),
    async run(ctx) {
      await withScratch(async (dir) => {
        await expectRefused(ctx, { args: await configArgs(join(dir, 'a'), { dropIns: { '10-a.conf': { clusterDNS: ['10.0.0.10'], noSuchField: true } } }) }, 'a drop-in with the unknown field noSuchField');
        await expectRefused(ctx, { args: await configArgs(join(dir, 'b'), { dropIns: { '10-a.conf': JSON.stringify({ clusterDNS: ['10.0.0.10'] }) } }) }, 'a drop-in without apiVersion and kind');
      });
    },
  }),
  defineCase({
    id: 'agent.config.kind', title: `the configuration file is typed by apiVersion ${CONFIG_API_VERSION} and kind ${CONFIG_KIND}: another kind or version is refused`,
    requirements: ['001-2.3-config-kind'], ...agentCase('2.3', 'MUST', 'exec'),
    async run(ctx) {
      await withScratch(async (dir) => {
        await expectRefused(ctx, { args: await configArgs(join(dir, 'k'), { main: JSON.stringify({ apiVersion: CONFIG_API_VERSION, kind: 'NodeConfiguration', clusterDNS: ['10.0.0.10'] }) }) }, `a --config file of kind NodeConfiguration`);
        await expectRefused(ctx, { args: await configArgs(join(dir, 'v'), { main: JSON.stringify({ apiVersion: 'agent.config.orch.io/v0', kind: CONFIG_KIND, clusterDNS: ['10.0.0.10'] }) }) }, `a --config file of apiVersion agent.config.orch.io/v0`);
        await expectStarts(ctx, { args: await configArgs(join(dir, 'ok'), { main: { clusterDNS: ['10.0.0.10'] } }) }, `a --config file of apiVersion ${CONFIG_API_VERSION} and kind ${CONFIG_KIND}`);
      });
    },
  }),
  defineCase({
    id: 'agent.config.keys', title: 'a configuration file with every key spec 001 §2.3 names is accepted',
    requirements: ['001-2.3-config-keys'], ...agentCase('2.3', 'MUST', 'exec'),
    async run(ctx) {
      await withScratch(async (dir) => {
        // A first agent only lends its runtime: imageServiceEndpoint must name a runtime that serves.
        const first = await ctx.agents.launch({ controlPlane: false });
        await first.stop();
        const endpoint = first.cri.criUrl;
        const fields = {
          port: await freePort(), address: '127.0.0.1',
          authorization: { mode: 'Webhook', webhook: { cacheAuthorizedTTL: '5m0s', cacheUnauthorizedTTL: '30s' } },
          serializeImagePulls: true, clusterDNS: ['10.0.0.10'], featureGates: { ContainerCheckpoint: true },
          staticPodURLHeader: { 'X-A': ['a'] }, containerRuntimeEndpoint: endpoint, imageServiceEndpoint: endpoint,
          staticPodPath: await staticDir(dir, 'manifests'),
        };
        // With a control plane: authorization mode Webhook needs one to ask (upstream refuses it standalone).
        const a = await expectStarts(ctx, { args: await configArgs(dir, { main: fields }), cri: first.cri, controlPlane: true }, 'a --config file with every key of §2.3');
        // Where /configz is served, the keys the flags do not override hold the file's values.
        const res = await a.client.get('/configz');
        if (res.status !== 200) return;
        const cfg = res.json?.agentconfig;
        if (!cfg) return;
        for (const k of ['serializeImagePulls', 'clusterDNS', 'staticPodURLHeader', 'imageServiceEndpoint', 'staticPodPath'] as const) {
          expectEqual(cfg[k], fields[k], `/configz: ${k} as the file set it`);
        }
        expectEqual(cfg.featureGates?.ContainerCheckpoint, true, '/configz: featureGates.ContainerCheckpoint as the file set it');
        expectEqual(cfg.authorization?.mode, 'Webhook', '/configz: authorization.mode as the file set it');
      });
    },
  }),
  defineCase({
    id: 'agent.config.key-types', title: 'clusterDNS is a list, featureGates a map of name to boolean, staticPodURLHeader a map of string to list: other shapes are refused',
    requirements: ['001-2.3-config-key-types'], ...agentCase('2.3', 'MUST', 'exec'),
    async run(ctx) {
      await withScratch(async (dir) => {
        const bad: Array<[string, Record<string, unknown>]> = [
          ['clusterDNS as a string, not a list', { clusterDNS: '10.0.0.10' }],
          ['featureGates with a string value, not a boolean', { featureGates: { ContainerCheckpoint: 'yes' } }],
          ['staticPodURLHeader with a string value, not a list', { staticPodURLHeader: { 'X-A': 'a' } }],
        ];
        for (const [i, [why, fields]] of bad.entries()) {
          await expectRefused(ctx, { args: await configArgs(join(dir, String(i)), { main: fields }) }, `a --config file with ${why}`);
        }
        await expectStarts(ctx, { args: await configArgs(join(dir, 'ok'), { main: { clusterDNS: ['10.0.0.10'], featureGates: { ContainerCheckpoint: true }, staticPodURLHeader: { 'X-A': ['a', 'b'] } } }) }, 'a --config file with the keys in their shapes');
      });
    },
  }),
];
