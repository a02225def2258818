// Spec 002 §2.2, §4, §4.1 and §4.2 observed on an agent: the summary stats (levels, consistency,
// upstream's shape), pressure stall information (summary, metrics, the locked gate), the resource
// metrics, the metrics provider indicator, pod and container metrics on /metrics/cadvisor, the
// runtime as their source with gate PodAndContainerStatsFromCRI (and the fallback, and the gate
// turned off again), the node's own figures kept with the gate on, and the summary through the API
// server's node proxy.
//
// The summary's shape is "not shown" in the spec: the MUST cases look for the levels and groups
// where upstream puts them (node, pods[].podRef, containers, volume, cpu, memory, network,
// process_stats, psi) and accept any figures inside; the exact shape is the SHOULD case's. Figures
// may lag behind a pod's start (an embedded collector samples periodically), so the cases wait for
// the pod to appear, boundedly.
import { readFileSync } from 'node:fs';
import * as os from 'node:os';
import { defineCase, type Case, type CaseContext, type TargetKind } from '../case.js';
import type { Level } from '../requirements/types.js';
import type { ApiClient } from '../../runner/client.js';
import { loadCriClient, type LaunchedAgent } from '../../runner/agent-exec.js';
import { expectCode, expectEqual, expectTrue, fail, show, skip } from '../verify.js';
import { samplesOf, type Exposition, type Sample } from './exposition.js';
import { agentCase, isRunning, podPath, runningPodOnNode, waitFor } from '../001-node-agent/agent-kit.js';
import { exposes, scrapeAgent } from '../001-node-agent/agent-endpoints.js';
import { pollUntil, withPodOn } from '../001-node-agent/agent-exec-more.js';
import { expectStarts } from '../001-node-agent/agent-exec-kit.js';
import { launchedReady } from '../001-node-agent/agent-node-kit.js';

/** The header of an agent case of spec 002 (agentCase's needs and impact, this document's section). */
function statsCase(section: string, level: Level, kind: 'node' | 'read' | 'exec', extra: readonly TargetKind[] = []) {
  return { ...agentCase(section, level, kind, extra), suite: 'metrics-debug', spec: { doc: '002' as const, section } };
}

const CRI_GATE = '--feature-gates=PodAndContainerStatsFromCRI=true';
/** How long figures of a new pod may take to show (an embedded collector's housekeeping period and more). */
const APPEAR_MS = 20_000;
const UNIMPLEMENTED = 12;

// ---- observations ----

const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
/** A stats group: an object with at least one figure in it. */
const hasFigures = (v: unknown): boolean => isObject(v) && Object.values(v).some((x) => typeof x === 'number' && Number.isFinite(x));

/** GET /stats/summary: 200 with a JSON object holding `node` and `pods`. */
async function summaryOf(client: ApiClient, who = 'the agent'): Promise<any> {
  const res = await client.get('/stats/summary');
  expectCode(res, 200, `GET /stats/summary of ${who}`);
  const s = res.json;
  expectTrue(isObject(s) && isObject(s.node) && Array.isArray(s.pods), `GET /stats/summary of ${who}: the body`, 'a JSON object with `node` (object) and `pods` (array)', res.text.slice(0, 300));
  return s;
}

const podEntry = (s: any, pod: any) => (s.pods as any[]).find((p) => p?.podRef?.uid === pod.metadata.uid);
const containerEntry = (p: any, name = 'c') => (Array.isArray(p?.containers) ? p.containers : []).find((c: any) => c?.name === name);

const runningPod = (ctx: CaseContext, spec: Record<string, unknown> = {}, hint = 'stats') => runningPodOnNode(ctx, spec, hint);

/** The summary once it lists the pod with its container c (and what `more` wants of the entry). */
async function summaryWithPod(ctx: CaseContext, pod: any, client = ctx.agent().client, more: (p: any) => boolean = () => true): Promise<{ s: any; p: any }> {
  let last: any;
  const got = await pollUntil(async () => {
    last = await summaryOf(client);
    const p = podEntry(last, pod);
    return p && containerEntry(p) && more(p) ? { s: last, p } : undefined;
  }, APPEAR_MS);
  if (!got) {
    fail(`/stats/summary lists the pod ${pod.metadata.namespace}/${pod.metadata.name} with its container c (within ${APPEAR_MS / 1000}s)`,
      `pods[] with podRef.uid ${show(pod.metadata.uid)} and containers[] with name "c"`, show((last?.pods ?? []).map((p: any) => ({ podRef: p?.podRef, containers: (p?.containers ?? []).map((c: any) => c?.name), volume: p?.volume }))));
  }
  return got;
}

/** Samples of `name` for container c of `pod`, by the labels namespace, pod and container. */
const containerSamples = (exp: Exposition, name: string, pod: any, container = 'c'): Sample[] =>
  samplesOf(exp, name).filter((s) => s.labels['namespace'] === pod.metadata.namespace && s.labels['pod'] === pod.metadata.name && s.labels['container'] === container);

/** Scrapes `path` until `ok` holds (bounded); the last exposition either way. */
async function scrapeUntil(ctx: CaseContext, client: ApiClient, path: string, ok: (e: Exposition) => boolean, timeoutMs = APPEAR_MS): Promise<Exposition> {
  let last!: Exposition;
  await pollUntil(async () => ((last = await scrapeAgent(ctx, path, client)), ok(last) ? true : undefined), timeoutMs);
  return last;
}

/** agent_metrics_provider on /metrics: provider label to value. */
async function providers(ctx: CaseContext, client: ApiClient): Promise<Record<string, number>> {
  const exp = await scrapeAgent(ctx, '/metrics', client);
  return Object.fromEntries(samplesOf(exp, 'agent_metrics_provider').map((s) => [s.labels['provider'] ?? '', s.value]));
}

/** The provider in use: the one at 1 (undefined when none or several). */
function inUse(p: Record<string, number>): string | undefined {
  const on = Object.entries(p).filter(([, v]) => v === 1).map(([k]) => k);
  return on.length === 1 ? on[0] : undefined;
}

/** Waits until agent_metrics_provider names `want` as the source in use. */
async function providerBecomes(ctx: CaseContext, client: ApiClient, want: 'cri' | 'cadvisor', what: string, timeoutMs = APPEAR_MS): Promise<void> {
  let last: Record<string, number> = {};
  const ok = await pollUntil(async () => ((last = await providers(ctx, client)), inUse(last) === want ? true : undefined), timeoutMs);
  if (!ok) fail(`${what} (within ${timeoutMs / 1000}s)`, `agent_metrics_provider{provider="${want}"} 1, the other provider not 1`, show(last));
}

/**
 * Whether the runner can tell that it runs on the agent's node (the agent's address is loopback or
 * one of this machine's), so that the node's kernel is this one: undefined when it cannot tell.
 */
function runnerOnNode(client: ApiClient): boolean | undefined {
  const host = new URL(client.conn.baseUrl).hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === 'localhost' || host === '::1' || /^127\./.test(host)) return true;
  const local = Object.values(os.networkInterfaces()).flat().map((a) => a?.address);
  return local.includes(host) ? true : undefined;
}

/** The kernel here gives pressure stall information (/proc/pressure, 4.20+ with PSI on). */
function kernelHasPsi(): boolean {
  try {
    return /^some avg10=/m.test(readFileSync('/proc/pressure/cpu', 'utf8'));
  } catch {
    return false;
  }
}

/** Skips unless the agent's node has PSI, as far as the runner can tell. */
function requireNodePsi(client: ApiClient): void {
  if (!runnerOnNode(client)) skip('the runner cannot tell whether the agent\'s node has pressure stall information (it does not run on that node)');
  if (!kernelHasPsi()) skip('the node has no pressure stall information (/proc/pressure absent or PSI off: kernel before 4.20, CONFIG_PSI unset or psi=0); the agent then shows none');
}

const PSI_RESOURCES = ['cpu', 'memory', 'io'] as const;

/** Where a level lacks psi under cpu, memory or io: `level.resource` names. */
function psiMissing(level: string, o: any): string[] {
  return PSI_RESOURCES.filter((r) => !isObject(o?.[r]?.psi)).map((r) => `${level}.${r}.psi`);
}

/** A launched agent with the CRI stats gate on (control plane on: its endpoints authorize through it). */
const launchWithCriStats = (ctx: CaseContext) => ctx.agents.launch({ args: [CRI_GATE] });

/** Runs `fn` with a running pod (container c) on a launched agent. */
async function withRunningPodOn(ctx: CaseContext, a: LaunchedAgent, hint: string, fn: (pod: any) => Promise<void>): Promise<void> {
  await launchedReady(ctx, a);
  await withPodOn(ctx, a, {}, hint, async (created) => {
    const pod = await waitFor(ctx, podPath(ctx, created.metadata.name), isRunning, 'the pod runs on the launched agent\'s node', 'phase Running with container c running');
    await fn(pod);
  });
}

/** Pod and container metrics of the pod's container c on /metrics/cadvisor (cpu and memory). */
const servesPodMetrics = (exp: Exposition, pod: any) =>
  containerSamples(exp, 'container_cpu_usage_seconds_total', pod).length > 0 && containerSamples(exp, 'container_memory_working_set_bytes', pod).length > 0;

const podMetricsView = (exp: Exposition, pod: any) =>
  exp.samples.filter((s) => s.labels['pod'] === pod.metadata.name).map((s) => `${s.name}{container=${show(s.labels['container'])}}`).slice(0, 20);

// ---- /metrics/resource ----

const RESOURCE_NODE = ['node_cpu_usage_seconds_total', 'node_memory_working_set_bytes'] as const;
const RESOURCE_CONTAINER = ['container_cpu_usage_seconds_total', 'container_memory_working_set_bytes', 'container_start_time_seconds'] as const;
const RESOURCE_POD = ['pod_cpu_usage_seconds_total', 'pod_memory_working_set_bytes'] as const;

/** /metrics/resource once it has the container's CPU and memory. */
async function resourceWithPod(ctx: CaseContext, pod: any): Promise<Exposition> {
  const exp = await scrapeUntil(ctx, ctx.agent().client, '/metrics/resource', (e) =>
    containerSamples(e, 'container_cpu_usage_seconds_total', pod).length > 0 && containerSamples(e, 'container_memory_working_set_bytes', pod).length > 0);
  for (const name of ['container_cpu_usage_seconds_total', 'container_memory_working_set_bytes']) {
    expectTrue(containerSamples(exp, name, pod).length === 1, `/metrics/resource: ${name} of container c of the pod (within ${APPEAR_MS / 1000}s)`,
      `one sample labelled container="c", pod=${show(pod.metadata.name)}, namespace=${show(pod.metadata.namespace)}`, show(samplesOf(exp, name).slice(0, 5)));
  }
  return exp;
}

export const agentStatsCases: Case[] = [
  // ------------------------------------------------------------------ §4 /stats/summary
  defineCase({
    ...statsCase('4', 'MUST', 'node'),
    id: 'agent.stats.summary.levels',
    title: '/stats/summary gives node, pod, container and volume levels: CPU, memory, network and process stats for the pod, CPU and memory for its container, its emptyDir volume',
    requirements: ['002-4-stats-summary'],
    async run(ctx) {
      const pod = await runningPod(ctx, { volumes: [{ name: 'scratch', emptyDir: {} }] }, 'levels');
      const { s, p } = await summaryWithPod(ctx, pod, undefined, (e) => Array.isArray(e.volume) && e.volume.some((v: any) => v?.name === 'scratch'));
      const missing: string[] = [];
      for (const g of ['cpu', 'memory']) if (!hasFigures(s.node[g])) missing.push(`node.${g}`);
      for (const g of ['cpu', 'memory', 'network', 'process_stats']) if (!hasFigures(p[g])) missing.push(`pod.${g}`);
      const c = containerEntry(p);
      for (const g of ['cpu', 'memory']) if (!hasFigures(c[g])) missing.push(`container c.${g}`);
      const v = p.volume.find((x: any) => x?.name === 'scratch');
      if (!hasFigures(v)) missing.push('volume scratch (its figures)');
      expectTrue(missing.length === 0, 'the summary\'s levels and their stats', 'each an object with figures (numbers)', `missing or empty: ${missing.join(', ')}`);
    },
  }),
  defineCase({
    ...statsCase('4', 'MUST', 'node'),
    id: 'agent.stats.summary.consistent',
    title: '/stats/summary is consistent: the pod\'s CPU, memory and processes are not above the node\'s, and cumulative counters never go back between two reads',
    requirements: ['002-4-stats-summary'],
    async run(ctx) {
      const pod = await runningPod(ctx, {}, 'consistent');
      const first = await summaryWithPod(ctx, pod);
      const second = await summaryWithPod(ctx, pod);
      const checks: string[] = [];
      const bad: string[] = [];
      const notAbove = (what: string, part: unknown, whole: unknown) => {
        if (!isCount(part) || !isCount(whole)) return;
        checks.push(what);
        if (part > whole) bad.push(`${what}: pod ${part} > node ${whole}`);
      };
      for (const { s, p } of [first, second]) {
        notAbove('cpu.usageCoreNanoSeconds', p.cpu?.usageCoreNanoSeconds, s.node.cpu?.usageCoreNanoSeconds);
        notAbove('memory.workingSetBytes', p.memory?.workingSetBytes, s.node.memory?.workingSetBytes);
        notAbove('memory.usageBytes', p.memory?.usageBytes, s.node.memory?.usageBytes);
        notAbove('process_stats.process_count vs node rlimit.curproc', p.process_stats?.process_count, s.node.rlimit?.curproc);
      }
      const counters: Array<[string, (e: { s: any; p: any }) => unknown]> = [
        ['node cpu.usageCoreNanoSeconds', (e) => e.s.node.cpu?.usageCoreNanoSeconds],
        ['pod cpu.usageCoreNanoSeconds', (e) => e.p.cpu?.usageCoreNanoSeconds],
        ['container c cpu.usageCoreNanoSeconds', (e) => containerEntry(e.p)?.cpu?.usageCoreNanoSeconds],
        ['pod network.rxBytes', (e) => e.p.network?.rxBytes],
        ['pod network.txBytes', (e) => e.p.network?.txBytes],
        ['container c memory.pageFaults', (e) => containerEntry(e.p)?.memory?.pageFaults],
      ];
      for (const [what, get] of counters) {
        const a = get(first);
        const b = get(second);
        if (!isCount(a) || !isCount(b)) continue;
        checks.push(what);
        if (b < a) bad.push(`${what}: ${a} then ${b}`);
      }
      if (checks.length === 0) skip('no figure of the summary could be compared (neither the pod\'s against the node\'s nor a counter across reads)');
      expectTrue(bad.length === 0, `the summary's figures (${checks.length} comparisons)`, 'pod figures at most the node\'s; counters not decreasing from one read to the next', bad.join('; '));
    },
  }),
  defineCase({
    ...statsCase('4', 'SHOULD', 'node'),
    id: 'agent.stats.summary.shape',
    title: '/stats/summary has upstream\'s shape: node {nodeName, startTime, cpu, memory, network, fs, runtime.imageFs, rlimit}, pods [{podRef, startTime, containers [{name, startTime, cpu, memory, rootfs, logs}], cpu, memory, network, volume, ephemeral-storage, process_stats}]',
    requirements: ['002-4-stats-summary-shape'],
    async run(ctx) {
      const pod = await runningPod(ctx, { volumes: [{ name: 'scratch', emptyDir: {} }] }, 'shape');
      const { s, p } = await summaryWithPod(ctx, pod, undefined, (e) => Array.isArray(e.volume) && e.volume.length > 0);
      const bad: string[] = [];
      const time = (where: string, v: unknown) => { if (typeof v !== 'string' || Number.isNaN(Date.parse(v))) bad.push(`${where}: not an RFC 3339 time (${show(v)})`); };
      const counts = (where: string, o: any, required: readonly string[], optional: readonly string[] = []) => {
        if (!isObject(o)) return void bad.push(`${where}: missing`);
        time(`${where}.time`, o.time);
        for (const k of required) if (!isCount(o[k])) bad.push(`${where}.${k}: ${o[k] === undefined ? 'missing' : `not a count (${show(o[k])})`}`);
        for (const k of optional) if (o[k] !== undefined && !isCount(o[k])) bad.push(`${where}.${k}: not a count (${show(o[k])})`);
      };
      // usageNanoCores is a rate (absent before a second sample); availableBytes is absent without a memory limit.
      const cpu = (w: string, o: any) => counts(w, o, ['usageCoreNanoSeconds'], ['usageNanoCores']);
      const memory = (w: string, o: any) => counts(w, o, ['usageBytes', 'workingSetBytes'], ['availableBytes', 'rssBytes', 'pageFaults', 'majorPageFaults']);
      const fs = (w: string, o: any) => counts(w, o, ['usedBytes'], ['availableBytes', 'capacityBytes', 'inodesFree', 'inodes', 'inodesUsed']);
      const network = (w: string, o: any) => counts(w, o, [], ['rxBytes', 'rxErrors', 'txBytes', 'txErrors']);

      const n = s.node;
      if (n.nodeName !== ctx.agent().nodeName) bad.push(`node.nodeName: ${show(n.nodeName)}, want ${show(ctx.agent().nodeName)}`);
      time('node.startTime', n.startTime);
      cpu('node.cpu', n.cpu);
      memory('node.memory', n.memory);
      network('node.network', n.network);
      fs('node.fs', n.fs);
      if (!isObject(n.runtime)) bad.push('node.runtime: missing');
      else fs('node.runtime.imageFs', n.runtime.imageFs);
      counts('node.rlimit', n.rlimit, [], ['maxpid', 'curproc']);

      const ref = p.podRef;
      if (!isObject(ref) || ref.name !== pod.metadata.name || ref.namespace !== pod.metadata.namespace || ref.uid !== pod.metadata.uid) bad.push(`pod.podRef: ${show(ref)}`);
      time('pod.startTime', p.startTime);
      cpu('pod.cpu', p.cpu);
      memory('pod.memory', p.memory);
      network('pod.network', p.network);
      fs('pod.ephemeral-storage', p['ephemeral-storage']);
      if (!isObject(p.process_stats) || !isCount(p.process_stats.process_count)) bad.push(`pod.process_stats.process_count: ${show(p.process_stats)}`);
      for (const v of p.volume) {
        if (typeof v?.name !== 'string') bad.push(`pod.volume[]: no name (${show(v)})`);
        fs(`pod.volume ${show(v?.name)}`, v);
      }
      const c = containerEntry(p);
      time('container c.startTime', c.startTime);
      cpu('container c.cpu', c.cpu);
      memory('container c.memory', c.memory);
      fs('container c.rootfs', c.rootfs);
      fs('container c.logs', c.logs);
      expectTrue(bad.length === 0, 'the summary in upstream\'s shape (stats/v1alpha1)', 'every field named, times RFC 3339, figures non-negative numbers', bad.slice(0, 12).join('; '));
    },
  }),

  // ------------------------------------------------------------------ §4.2 pressure stall information
  defineCase({
    ...statsCase('4.2', 'MUST', 'node'),
    id: 'agent.stats.psi.summary',
    title: 'With PSI on the node, /stats/summary shows CPU, memory and I/O pressure at node, pod and container level',
    requirements: ['002-4.2-psi-levels'],
    async run(ctx) {
      requireNodePsi(ctx.agent().client);
      const pod = await runningPod(ctx, {}, 'psi');
      const { s, p } = await summaryWithPod(ctx, pod);
      const missing = [...psiMissing('node', s.node), ...psiMissing('pod', p), ...psiMissing('container c', containerEntry(p))];
      expectTrue(missing.length === 0, 'pressure stall information in the summary (cpu.psi, memory.psi, io.psi)', 'a psi object under cpu, memory and io of the node, the pod and its container', `missing: ${missing.join(', ')}`);
    },
  }),
  defineCase({
    ...statsCase('4', 'SHOULD', 'node'),
    id: 'agent.stats.psi.shape',
    title: 'The summary\'s psi is upstream\'s: {full: {total, avg10, avg60, avg300}, some: {...}}, averages in percent',
    requirements: ['002-4-stats-summary-psi'],
    async run(ctx) {
      requireNodePsi(ctx.agent().client);
      const pod = await runningPod(ctx, {}, 'psi-shape');
      const { s, p } = await summaryWithPod(ctx, pod);
      const bad: string[] = [];
      let seen = 0;
      for (const [level, o] of [['node', s.node], ['pod', p], ['container c', containerEntry(p)]] as const) {
        for (const r of PSI_RESOURCES) {
          const psi = o?.[r]?.psi;
          if (psi === undefined) continue;
          seen++;
          for (const kind of ['full', 'some']) {
            const d = psi?.[kind];
            const where = `${level}.${r}.psi.${kind}`;
            if (!isObject(d)) { bad.push(`${where}: missing`); continue; }
            if (!isCount(d.total)) bad.push(`${where}.total: ${show(d.total)}`);
            for (const a of ['avg10', 'avg60', 'avg300']) if (!isCount(d[a]) || d[a] > 100) bad.push(`${where}.${a}: ${show(d[a])} (want a percentage 0..100)`);
          }
        }
      }
      if (seen === 0) fail('psi in the summary', 'psi under cpu, memory or io', 'none anywhere');
      expectTrue(bad.length === 0, `the summary's psi objects (${seen})`, '{full, some} each with total, avg10, avg60, avg300', bad.slice(0, 10).join('; '));
    },
  }),
  defineCase({
    ...statsCase('4.2', 'MUST', 'node'),
    id: 'agent.stats.psi.metrics',
    title: 'With PSI on the node, /metrics/cadvisor shows the CPU, memory and I/O pressure of a pod\'s container',
    requirements: ['002-4.2-psi-levels'],
    async run(ctx) {
      requireNodePsi(ctx.agent().client);
      const pod = await runningPod(ctx, {}, 'psi-metrics');
      // cadvisor's names. Only the container level is asked for here: the node's pressure is in the
      // summary (agent.stats.psi.summary), and cadvisor has no pressure files for the root cgroup.
      const names = (r: string) => [`container_pressure_${r}_waiting_seconds_total`, `container_pressure_${r}_stalled_seconds_total`];
      const has = (e: Exposition, r: string) => names(r).some((n) => containerSamples(e, n, pod).length > 0);
      const exp = await scrapeUntil(ctx, ctx.agent().client, '/metrics/cadvisor', (e) => PSI_RESOURCES.every((r) => has(e, r)));
      const missing = PSI_RESOURCES.filter((r) => !has(exp, r));
      expectTrue(missing.length === 0, `pressure metrics of container c on /metrics/cadvisor (within ${APPEAR_MS / 1000}s)`,
        'container_pressure_<cpu|memory|io>_<waiting|stalled>_seconds_total with the namespace, pod and container labels of container c', `missing: ${missing.join(', ')}`);
    },
  }),
  defineCase({
    ...statsCase('4.2', 'MUST', 'exec'),
    id: 'agent.stats.psi.gate-locked',
    title: 'KubeletPSI is locked to true: an agent started with --feature-gates=KubeletPSI=false starts and still shows the node\'s pressure stall information',
    requirements: ['002-4.2-psi-stable'],
    async run(ctx) {
      // A launched agent runs on this machine: its node's kernel is the runner's.
      if (!kernelHasPsi()) skip('this machine has no pressure stall information (/proc/pressure absent or PSI off), so an agent started here shows none either way');
      const a = await expectStarts(ctx, { controlPlane: true, args: ['--feature-gates=KubeletPSI=false'] }, 'KubeletPSI=false is ignored (the gate is locked to true)');
      const s = await summaryOf(a.client, 'the agent started with KubeletPSI=false');
      const missing = psiMissing('node', s.node);
      expectTrue(missing.length === 0, 'the node\'s pressure stall information with KubeletPSI=false given', 'psi under node.cpu, node.memory and node.io (the setting is ignored)', `missing: ${missing.join(', ')}`);
      const gate = samplesOf(await scrapeAgent(ctx, '/metrics', a.client), 'orch_feature_enabled').filter((x) => x.labels['name'] === 'KubeletPSI');
      if (gate.length) expectEqual(gate.map((x) => x.value), [1], 'orch_feature_enabled{name="KubeletPSI"} of the agent started with KubeletPSI=false');
    },
  }),

  // ------------------------------------------------------------------ §4 /metrics/resource
  defineCase({
    ...statsCase('4', 'MUST', 'node'),
    id: 'agent.stats.resource.metrics',
    title: '/metrics/resource serves what the resource metrics aggregator reads: the node\'s CPU and memory and those of a pod\'s container',
    requirements: ['002-4-metrics-resource'],
    async run(ctx) {
      const pod = await runningPod(ctx, {}, 'resource');
      const exp = await resourceWithPod(ctx, pod);
      for (const name of RESOURCE_NODE) expectTrue(samplesOf(exp, name).length === 1, `/metrics/resource: ${name}`, 'one sample (the node)', show(samplesOf(exp, name)));
    },
  }),
  defineCase({
    ...statsCase('4', 'SHOULD', 'node'),
    id: 'agent.stats.resource.names',
    title: '/metrics/resource has upstream\'s families (node, pod and container CPU and memory, container start time, resource_scrape_error 0) and every figure carries a timestamp',
    requirements: ['002-4-metrics-resource-names'],
    async run(ctx) {
      const pod = await runningPod(ctx, {}, 'resource-names');
      const exp = await resourceWithPod(ctx, pod);
      const missing = [...RESOURCE_NODE, ...RESOURCE_CONTAINER, ...RESOURCE_POD, 'resource_scrape_error'].filter((n) => !exposes(exp, n));
      expectTrue(missing.length === 0, '/metrics/resource: upstream\'s families', 'all eight', `missing: ${missing.join(', ')}`);
      const podSamples = RESOURCE_POD.flatMap((n) => samplesOf(exp, n).filter((s) => s.labels['namespace'] === pod.metadata.namespace && s.labels['pod'] === pod.metadata.name));
      expectTrue(podSamples.length === RESOURCE_POD.length, '/metrics/resource: the pod\'s own series, labelled pod and namespace', RESOURCE_POD.join(', '), show(podSamples));
      const figures = [...RESOURCE_NODE.flatMap((n) => samplesOf(exp, n)), ...RESOURCE_CONTAINER.flatMap((n) => containerSamples(exp, n, pod)), ...podSamples];
      const untimed = figures.filter((s) => s.timestamp === undefined);
      expectTrue(untimed.length === 0, '/metrics/resource: timestamps of the node\'s, the pod\'s and its container\'s samples', 'each with a timestamp (when the figure was measured)', show(untimed.slice(0, 5)));
      expectEqual(samplesOf(exp, 'resource_scrape_error').map((s) => s.value), [0], '/metrics/resource: resource_scrape_error while the figures are read');
    },
  }),

  // ------------------------------------------------------------------ §2.2 provider, §4 /metrics/cadvisor
  defineCase({
    ...statsCase('2.2', 'MUST', 'read'),
    id: 'agent.stats.provider.present',
    title: 'The agent\'s /metrics has agent_metrics_provider with label provider "cri" or "cadvisor", exactly one of them in use (1)',
    requirements: ['002-2.2-metrics-provider'],
    async run(ctx) {
      const series = samplesOf(await scrapeAgent(ctx, '/metrics'), 'agent_metrics_provider');
      expectTrue(series.length > 0, 'agent_metrics_provider on the agent\'s /metrics', 'at least one sample', 'none');
      const other = series.filter((s) => !['cri', 'cadvisor'].includes(s.labels['provider'] ?? ''));
      expectTrue(other.length === 0, 'agent_metrics_provider: the provider label', '"cri" or "cadvisor"', show(other));
      const on = series.filter((s) => s.value === 1);
      expectTrue(on.length === 1 && series.every((s) => s.value === 0 || s.value === 1), 'agent_metrics_provider: the source in use', 'exactly one provider at 1 (any other at 0)', show(series));
    },
  }),
  defineCase({
    ...statsCase('4', 'MUST', 'node'),
    id: 'agent.stats.cadvisor.labels',
    title: '/metrics/cadvisor serves a pod\'s container metrics (CPU, memory) labelled namespace, pod and container',
    requirements: ['002-4-metrics-cadvisor'],
    async run(ctx) {
      const pod = await runningPod(ctx, {}, 'cadvisor');
      const exp = await scrapeUntil(ctx, ctx.agent().client, '/metrics/cadvisor', (e) => servesPodMetrics(e, pod));
      expectTrue(servesPodMetrics(exp, pod), `/metrics/cadvisor: container c of the pod (within ${APPEAR_MS / 1000}s)`,
        `container_cpu_usage_seconds_total and container_memory_working_set_bytes with namespace=${show(pod.metadata.namespace)}, pod=${show(pod.metadata.name)}, container="c"`,
        show(podMetricsView(exp, pod)));
    },
  }),

  // ------------------------------------------------------------------ §4.1 CRI-sourced statistics
  defineCase({
    ...statsCase('4.1', 'MUST', 'exec'),
    id: 'agent.stats.cri.from-runtime',
    title: 'With PodAndContainerStatsFromCRI on and a runtime that reports them, pod and container metrics come from ListPodSandboxMetrics, under the runtime\'s names on /metrics/cadvisor, and agent_metrics_provider says cri',
    requirements: ['002-4.1-cri-stats', '002-4-metrics-cadvisor'],
    async run(ctx) {
      const a = await launchWithCriStats(ctx);
      await withRunningPodOn(ctx, a, 'cri', async (pod) => {
        const exp = await scrapeUntil(ctx, a.client, '/metrics/cadvisor', (e) => servesPodMetrics(e, pod));
        expectTrue(a.cri.control.calls.list({ rpc: 'ListPodSandboxMetrics' }).length > 0, 'the agent asks its runtime ListPodSandboxMetrics', 'calls in the runtime\'s call log', 'none');
        // What the runtime reports for the pod's container c, asked as any CRI client asks it.
        const sandboxes = (a.cri.control.state().sandboxes as any[]).filter((s) => s.metadata?.uid === pod.metadata.uid).map((s) => s.id);
        const cri = (await loadCriClient()).criClient(a.cri.criUrl);
        const reported: any[] = await cri.call<{ pod_metrics: any[] }>('ListPodSandboxMetrics', {}, { deadlineMs: 10_000 }).then((r) => r.pod_metrics).finally(() => cri.close());
        const names = new Set(reported.filter((p) => sandboxes.includes(p.pod_sandbox_id)).flatMap((p) => (p.container_metrics ?? []).flatMap((c: any) => (c.metrics ?? []).map((m: any) => m.name as string))));
        if (names.size === 0) fail('the runtime reports metrics for the pod', 'ListPodSandboxMetrics with container metrics for the pod\'s sandbox', show(reported.map((p) => p.pod_sandbox_id)));
        const absent = [...names].filter((n) => containerSamples(exp, n, pod).length === 0);
        expectTrue(absent.length === 0, '/metrics/cadvisor: the runtime\'s families for container c, under its names', [...names].join(', '), `absent for container c: ${absent.join(', ')}`);
        expectEqual(inUse(await providers(ctx, a.client)), 'cri', 'agent_metrics_provider: the source in use with the gate on and the runtime reporting');
      });
    },
  }),
  defineCase({
    ...statsCase('4.1', 'MUST', 'exec'),
    id: 'agent.stats.cri.fallback',
    title: 'With PodAndContainerStatsFromCRI on, a runtime that stops reporting metrics (ListPodSandboxMetrics UNIMPLEMENTED) makes the agent fall back to its own collection: pod metrics still served, provider cadvisor',
    requirements: ['002-4.1-fallback-embedded'],
    async run(ctx) {
      const a = await launchWithCriStats(ctx);
      await withRunningPodOn(ctx, a, 'fallback', async (pod) => {
        await scrapeUntil(ctx, a.client, '/metrics/cadvisor', (e) => servesPodMetrics(e, pod));
        await providerBecomes(ctx, a.client, 'cri', 'before the runtime stops reporting: the runtime is the source (gate on, metrics reported)');
        a.cri.control.faults.add({ rpc: 'ListPodSandboxMetrics', code: UNIMPLEMENTED, message: 'ListPodSandboxMetrics is not implemented by this runtime (conformance case)' });
        const exp = await scrapeUntil(ctx, a.client, '/metrics/cadvisor', (e) => servesPodMetrics(e, pod));
        expectTrue(servesPodMetrics(exp, pod), `/metrics/cadvisor once the runtime answers UNIMPLEMENTED (within ${APPEAR_MS / 1000}s)`,
          'container_cpu_usage_seconds_total and container_memory_working_set_bytes of container c, from the agent\'s own collection', show(podMetricsView(exp, pod)));
        await providerBecomes(ctx, a.client, 'cadvisor', 'after the runtime stopped reporting: the agent\'s own collection is the source');
      });
    },
  }),
  defineCase({
    ...statsCase('4.1', 'MUST', 'exec'),
    id: 'agent.stats.cri.gate-off-restores',
    title: 'An agent restarted with PodAndContainerStatsFromCRI off collects pod and container metrics itself again: provider cadvisor, ListPodSandboxMetrics no longer asked',
    requirements: ['002-4.1-gate-off-restores'],
    async run(ctx) {
      const first = await launchWithCriStats(ctx);
      await withRunningPodOn(ctx, first, 'gate-off', async (pod) => {
        await scrapeUntil(ctx, first.client, '/metrics/cadvisor', (e) => servesPodMetrics(e, pod));
        await providerBecomes(ctx, first.client, 'cri', 'with the gate on: the runtime is the source');
        await first.stop();
        const since = Math.max(0, ...first.cri.control.calls.list().map((c) => c.seq));
        const again = await ctx.agents.launch({ cri: first.cri, rootDir: first.rootDir, nodeName: first.nodeName });
        const exp = await scrapeUntil(ctx, again.client, '/metrics/cadvisor', (e) => servesPodMetrics(e, pod));
        expectTrue(servesPodMetrics(exp, pod), `/metrics/cadvisor of the agent restarted with the gate off (within ${APPEAR_MS / 1000}s)`,
          'container_cpu_usage_seconds_total and container_memory_working_set_bytes of container c', show(podMetricsView(exp, pod)));
        await providerBecomes(ctx, again.client, 'cadvisor', 'after the restart with the gate off: the agent\'s own collection is the source');
        const asked = again.cri.control.calls.list({ rpc: 'ListPodSandboxMetrics', since });
        expectTrue(asked.length === 0, 'ListPodSandboxMetrics after the restart with the gate off', 'no call', `${asked.length} calls`);
      });
    },
  }),
  defineCase({
    ...statsCase('4', 'MUST', 'exec'),
    id: 'agent.stats.cri.node-metrics',
    title: 'With PodAndContainerStatsFromCRI on, /metrics/cadvisor still has the machine\'s and the node\'s own metrics (machine_cpu_cores, machine_memory_bytes, the root cgroup id "/")',
    requirements: ['002-4-metrics-cadvisor-node-embedded'],
    async run(ctx) {
      const a = await launchWithCriStats(ctx);
      const exp = await scrapeAgent(ctx, '/metrics/cadvisor', a.client);
      const bad: string[] = [];
      for (const name of ['machine_cpu_cores', 'machine_memory_bytes']) {
        const s = samplesOf(exp, name);
        if (s.length !== 1 || !(s[0]!.value > 0)) bad.push(`${name}: ${show(s)}`);
      }
      const root = exp.samples.filter((s) => s.name.startsWith('container_') && s.labels['id'] === '/');
      if (root.length === 0) bad.push('no container_* series of the root cgroup (id="/")');
      expectTrue(bad.length === 0, '/metrics/cadvisor of an agent with PodAndContainerStatsFromCRI on: machine and node series', 'machine_cpu_cores and machine_memory_bytes above 0, and container_* series with id="/"', bad.join('; '));
    },
  }),
  defineCase({
    ...statsCase('4.1', 'MUST', 'exec'),
    id: 'agent.stats.cri.node-summary',
    title: 'With PodAndContainerStatsFromCRI on, /stats/summary still has the node\'s CPU, memory and filesystem and the image filesystem (from the embedded collector)',
    requirements: ['002-4.1-node-stats-embedded'],
    async run(ctx) {
      const a = await launchWithCriStats(ctx);
      const s = await summaryOf(a.client, 'the agent with PodAndContainerStatsFromCRI on');
      const missing = [['node.cpu', s.node.cpu], ['node.memory', s.node.memory], ['node.fs', s.node.fs], ['node.runtime.imageFs', s.node.runtime?.imageFs]]
        .filter(([, v]) => !hasFigures(v)).map(([k]) => k);
      expectTrue(missing.length === 0, 'the node\'s own stats with PodAndContainerStatsFromCRI on', 'node.cpu, node.memory, node.fs and node.runtime.imageFs, each with figures', `missing or empty: ${missing.join(', ')}`);
    },
  }),

  // ------------------------------------------------------------------ §4 through the API server
  defineCase({
    ...statsCase('4', 'MUST', 'read'),
    id: 'agent.stats.summary.proxy',
    title: 'GET /api/v1/nodes/{node}/proxy/stats/summary through the API server returns that node\'s summary',
    requirements: ['002-4-stats-summary-proxy'],
    async run(ctx) {
      const node = ctx.agent().nodeName;
      const res = await ctx.api.get(`/api/v1/nodes/${encodeURIComponent(node)}/proxy/stats/summary`);
      expectCode(res, 200, `GET /api/v1/nodes/${node}/proxy/stats/summary`);
      const s = res.json;
      expectTrue(isObject(s) && isObject(s.node) && Array.isArray(s.pods), 'the proxied summary', 'a JSON object with `node` and `pods`', res.text.slice(0, 300));
      const direct = await summaryOf(ctx.agent().client);
      expectEqual(s.node.nodeName, direct.node.nodeName, 'node.nodeName of the summary through the API server, against the agent\'s own');
      expectEqual(s.node.startTime, direct.node.startTime, 'node.startTime of the summary through the API server, against the agent\'s own (the same node)');
    },
  }),
];
