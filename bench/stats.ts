// The agent's stats and metrics endpoints under load (issue 12, spec 002 §4): /stats/summary,
// /metrics/cadvisor (own collection, gate off; and from the runtime, gate PodAndContainerStatsFromCRI
// on) and /metrics/resource with `--pods` pods of 3 containers each (default 100 × 3), asked one
// request after another, p50/p95 per endpoint. Aim: at most 50 ms each.
//
// The runtime is `mock-cri` in a process of its own, as on a node; the pods are put straight into it
// (RunPodSandbox, CreateContainer, StartContainer with the agent's labels), so the agent serves them
// without a control plane (standalone, anonymous requests allowed). Baseline, measured in the same
// run and the same way: the raw CRI List RPCs each endpoint stands on (ListPodSandboxStats,
// ListPodSandboxMetrics), asked by a plain CRI client: what is left above them is the agent's share.
//
//   node dist/bench/stats.js [--pods 100] [--requests 30] [--deadline-seconds 60]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Agent, fetch } from 'undici';
import { criClient, type CriClient } from '../cri/proto.js';
import { startAgent, type RunningAgent } from '../reference/agent/agent.js';
import { LABEL_CONTAINER_NAME, LABEL_POD_NAME, LABEL_POD_NAMESPACE, LABEL_POD_UID } from '../reference/agent/runtime.js';
import { FeatureGates } from '../reference/features.js';
import { positiveInt, printTable, quantile } from './report.js';
import { stopProcess } from './load.js';

const BIN = fileURLToPath(new URL('../bin/orch-conformance.js', import.meta.url));
const IMAGE = 'docker.io/library/busybox:1.36';

const { values: args } = parseArgs({
  options: {
    pods: { type: 'string', default: '100' },
    requests: { type: 'string', default: '30' },
    'deadline-seconds': { type: 'string', default: '60' },
  },
});


const PODS = positiveInt('stats', 'pods', args.pods!);
const REQUESTS = positiveInt('stats', 'requests', args.requests!);
const DEADLINE_MS = positiveInt('stats', 'deadline-seconds', args['deadline-seconds']!) * 1000;

/** `mock-cri` as its own process; resolves once it prints its socket. */
function startRuntime(socket: string): Promise<ChildProcess> {
  const proc = spawn(process.execPath, [...(process.env['MOCK_PROF'] ? ['--cpu-prof', '--cpu-prof-dir=/tmp/mockprof'] : []), BIN, 'mock-cri', '--socket', socket], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mock-cri not ready within ${DEADLINE_MS / 1000} s: ${out}`)), DEADLINE_MS);
    const seen = (b: Buffer) => {
      out += b.toString();
      if (/^cri: /m.test(out)) {
        clearTimeout(timer);
        resolve(proc);
      }
    };
    proc.stdout!.on('data', seen);
    proc.stderr!.on('data', (b: Buffer) => (out += b.toString()));
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mock-cri exited (${code}) before it was ready: ${out}`));
    });
  });
}


/** PODS pods of 3 running containers, labelled as the agent labels its own, a few at a time. */
async function populate(cri: CriClient, rootDir: string): Promise<void> {
  await cri.call('PullImage', { image: { image: IMAGE } });
  const one = async (i: number) => {
    const name = `bench-${i}`;
    const uid = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const config = {
      metadata: { name, uid, namespace: 'default', attempt: 0 },
      log_directory: join(rootDir, 'pods', `default_${name}_${uid}`),
      labels: { [LABEL_POD_NAME]: name, [LABEL_POD_NAMESPACE]: 'default', [LABEL_POD_UID]: uid },
    };
    const { pod_sandbox_id: sandbox } = await cri.call('RunPodSandbox', { config });
    for (const c of ['app', 'sidecar', 'proxy']) {
      const { container_id: id } = await cri.call('CreateContainer', {
        pod_sandbox_id: sandbox,
        config: { metadata: { name: c, attempt: 0 }, image: { image: IMAGE }, command: ['sleep', '3600'], log_path: `${c}/0.log`, labels: { ...config.labels, [LABEL_CONTAINER_NAME]: c } },
        sandbox_config: config,
      });
      await cri.call('StartContainer', { container_id: id });
    }
  };
  for (let i = 0; i < PODS; i += 8) await Promise.all(Array.from({ length: Math.min(8, PODS - i) }, (_, k) => one(i + k)));
}

/** Runs `f` REQUESTS times (after one warm-up), one after another; the durations, ms. */
async function timed(f: () => Promise<void>): Promise<number[]> {
  await f();
  const out: number[] = [];
  const deadline = Date.now() + DEADLINE_MS;
  for (let i = 0; i < REQUESTS; i++) {
    if (Date.now() > deadline) throw new Error(`timed out after ${DEADLINE_MS / 1000} s (${i} of ${REQUESTS} requests)`);
    const t = performance.now();
    await f();
    out.push(performance.now() - t);
  }
  return out;
}

const row = (what: string, ms: number[]) => [what, quantile(ms, 0.5).toFixed(1), quantile(ms, 0.95).toFixed(1)];

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'orch-bench-stats-'));
  const socket = join(dir, 'cri', 'cri.sock');
  let runtime: ChildProcess | undefined;
  const agents: RunningAgent[] = [];
  const cri = () => criClient(`unix://${socket}`);
  let client: CriClient | undefined;
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
  try {
    runtime = await startRuntime(socket);
    client = cri();
    await populate(client, join(dir, 'root-off'));
    // Standalone agents (no control plane to ask reviews of): anonymous requests allowed.
    const auth = { webhook: { enabled: false, cacheTtlMs: 0 }, anonymous: true, authorization: { mode: 'AlwaysAllow' as const, cacheAuthorizedTtlMs: 0, cacheUnauthorizedTtlMs: 0 } };
    const start = (gateOn: boolean) => startAgent({
      criEndpoint: `unix://${socket}`, rootDir: join(dir, gateOn ? 'root-on' : 'root-off'), nodeName: 'bench-node',
      featureGates: new FeatureGates({ PodAndContainerStatsFromCRI: gateOn }), auth,
      serve: { address: '127.0.0.1', port: 0 }, log: () => undefined,
    });
    const off = await start(false);
    agents.push(off);
    const on = await start(true);
    agents.push(on);
    const get = (a: RunningAgent, path: string) => async () => {
      const res = await fetch(`${a.url}${path}`, { dispatcher });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status} ${body.slice(0, 200)}`);
    };
    // Every pod must be in the answer before anything is timed.
    const summary = await (await fetch(`${off.url}/stats/summary`, { dispatcher })).json() as { pods: unknown[] };
    if (summary.pods.length !== PODS) throw new Error(`the summary lists ${summary.pods.length} pods, want ${PODS}`);

    const rows = [
      row('baseline: ListPodSandboxStats (raw CRI)', await timed(async () => { await client!.call('ListPodSandboxStats', { filter: null }); })),
      row('baseline: ListPodSandboxMetrics (raw CRI)', await timed(async () => { await client!.call('ListPodSandboxMetrics', {}); })),
      row('GET /stats/summary', await timed(get(off, '/stats/summary'))),
      row('GET /stats/summary?only_cpu_and_memory=true', await timed(get(off, '/stats/summary?only_cpu_and_memory=true'))),
      row('GET /metrics/cadvisor (own collection)', await timed(get(off, '/metrics/cadvisor'))),
      row('GET /metrics/cadvisor (from the runtime)', await timed(get(on, '/metrics/cadvisor'))),
      row('GET /metrics/resource', await timed(get(off, '/metrics/resource'))),
    ];
    console.log(`agent stats endpoints: ${PODS} pods × 3 containers, ${REQUESTS} requests each, one at a time (aim: ≤ 50 ms)`);
    printTable(['', 'p50 ms', 'p95 ms'], rows);
  } finally {
    for (const a of agents) await a.close().catch(() => undefined);
    client?.close();
    await dispatcher.close();
    if (runtime) await stopProcess(runtime);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`bench/stats: ${(err as Error).message}`);
  process.exitCode = 1;
});
