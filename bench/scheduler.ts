// Scheduling throughput (issue 13): `--nodes` Nodes registered as objects (Ready, allocatable), then
// `--pods` pods created without nodeName; the time from the first create to the last pod seen bound
// on a watch, as pods/s. Baseline, in the same run against the same kind of API server: the same pods
// created and bound by hand through the pods `binding` subresource (round robin over the nodes), as
// fast as the same number of client workers go - what is left above it is the scheduler's share.
// Aim: at least 300 pods/s (upstream's scheduler SLO is about 100).
//
//   node dist/bench/scheduler.js [--nodes 100] [--pods 1000] [--workers 32] [--runs 3]
//
// The API server (and its scheduler) runs in a child process of its own, as `serve` runs them, so the
// driver's load generation and watch do not share its event loop. `--serve with|without` is the
// child mode (with or without the scheduler).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Agent, fetch } from 'undici';
import { ApiClient } from '../reference/client/api-client.js';
import { positiveInt, printTable } from './report.js';

const here = fileURLToPath(import.meta.url);
const serverModule = pathToFileURL(fileURLToPath(new URL('../reference/server.js', import.meta.url))).href;
const NS = 'default';
const PODS = `/api/v1/namespaces/${NS}/pods`;

const { values: args } = parseArgs({
  options: {
    serve: { type: 'string' },
    nodes: { type: 'string', default: '100' },
    pods: { type: 'string', default: '1000' },
    workers: { type: 'string', default: '32' },
    runs: { type: 'string', default: '3' },
  },
});

// ---- child mode ----

async function serve(withScheduler: boolean): Promise<void> {
  const { startReference } = (await import(serverModule)) as typeof import('../reference/server.js');
  const ref = await startReference({ host: '127.0.0.1', port: 0, controllerManager: false, scheduler: withScheduler ? {} : false });
  const s = ref.components.scheduler;
  process.stdout.write(`READY ${JSON.stringify({ url: ref.url, scheduler: s?.url, caPem: s?.caPem })}\n`);
  process.once('SIGTERM', () => void ref.close().then(() => process.exit(0)));
}

// ---- driver ----

interface Child {
  proc: ChildProcess;
  url: string;
  scheduler?: string;
  caPem?: string;
}

function spawnChild(mode: 'with' | 'without'): Promise<Child> {
  return new Promise((resolve, reject) => {
    const prof = process.env['BENCH_PROF'] ? ['--cpu-prof', `--cpu-prof-dir=${process.env['BENCH_PROF']}`] : [];
    const proc = spawn(process.execPath, [...prof, here, '--serve', mode], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const timer = setTimeout(() => {
      proc.kill();
      reject(new Error('the reference did not start within 30s'));
    }, 30_000);
    proc.on('exit', (code) => reject(new Error(`child exited (${code}) before it was ready`)));
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /^READY (.*)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        proc.removeAllListeners('exit');
        resolve({ proc, ...JSON.parse(m[1]!) });
      }
    });
  });
}

function stop(child: Child): Promise<void> {
  return new Promise((resolve) => {
    if (child.proc.exitCode !== null) return resolve();
    child.proc.once('exit', () => resolve());
    child.proc.kill('SIGTERM');
  });
}

const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const nodeName = (i: number) => `bench-node-${String(i).padStart(3, '0')}`;

async function registerNodes(c: ApiClient, n: number): Promise<void> {
  await pool(n, 16, (i) => c.create('/api/v1/nodes', {
    apiVersion: 'v1', kind: 'Node', metadata: { name: nodeName(i), labels: { 'bench.orch.io/zone': `z${i % 3}` } },
    status: {
      capacity: { cpu: '32', memory: '128Gi', pods: '110' },
      allocatable: { cpu: '32', memory: '128Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'bench', lastHeartbeatTime: now(), lastTransitionTime: now() }],
    },
  }));
}

const podBody = (run: number, i: number) => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name: `bench-${run}-${i}`, labels: { 'bench.orch.io/run': String(run) } },
  spec: { containers: [{ name: 'c', image: 'registry.orch.io/bench/pause:3.10', resources: { requests: { cpu: '100m', memory: '128Mi' } } }] },
});

/** Runs `fn(0..n-1)` with `workers` at a time. */
async function pool(n: number, workers: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(workers, n) }, async () => {
    for (let i = next++; i < n; i = next++) await fn(i);
  }));
}

/** Resolves when `count` pods of the run are seen bound on a watch; the watch is open before it returns. */
async function watchBound(c: ApiClient, run: number, count: number): Promise<{ done: Promise<number> }> {
  const bound = new Set<string>();
  let resolveDone!: (t: number) => void;
  const done = new Promise<number>((r) => (resolveDone = r));
  const see = (p: any) => {
    if (p?.spec?.nodeName) bound.add(p.metadata.name);
    if (bound.size === count) resolveDone(performance.now());
  };
  const w = c.watch(PODS, { labelSelector: `bench.orch.io/run=${run}`, onList: (items) => items.forEach(see), onEvent: (ev) => { if (ev.type !== 'DELETED') see(ev.object); } });
  await w.synced;
  return { done: done.finally(() => w.stop()) };
}

async function measure(child: Child, byHand: boolean, run: number, pods: number, nodes: number, workers: number): Promise<number> {
  const c = new ApiClient({ url: child.url, userAgent: 'bench' });
  try {
    const w = await watchBound(c, run, pods);
    const t0 = performance.now();
    await pool(pods, workers, async (i) => {
      const p = await c.create(PODS, podBody(run, i));
      if (byHand) {
        await c.create(`${PODS}/${p.metadata.name}/binding`, {
          apiVersion: 'v1', kind: 'Binding', metadata: { name: p.metadata.name, namespace: NS, uid: p.metadata.uid },
          target: { apiVersion: 'v1', kind: 'Node', name: nodeName(i % nodes) },
        });
      }
    });
    let timer: NodeJS.Timeout | undefined;
    const t1 = await Promise.race([w.done, new Promise<number>((_, reject) => (timer = setTimeout(() => reject(new Error(`not all ${pods} pods bound within 120s`)), 120_000)))]);
    clearTimeout(timer);
    return (t1 - t0) / 1000;
  } finally {
    c.close();
  }
}

/** The scheduler's own account: attempts and their mean duration, from its /metrics. */
async function schedulerFigures(child: Child): Promise<string> {
  if (!child.scheduler) return '';
  const dispatcher = new Agent({ connect: { ca: child.caPem } });
  try {
    const text = await (await fetch(`${child.scheduler}/metrics`, { dispatcher })).text();
    const sum = (re: RegExp) => [...text.matchAll(re)].reduce((n, m) => n + Number(m[1]), 0);
    const count = sum(/^scheduler_scheduling_attempt_duration_seconds_count\{[^}]*\} (\S+)$/gm);
    const seconds = sum(/^scheduler_scheduling_attempt_duration_seconds_sum\{[^}]*\} (\S+)$/gm);
    const unsched = sum(/^scheduler_schedule_attempts_total\{result="unschedulable"[^}]*\} (\S+)$/gm);
    return `scheduler: ${count} attempts (${unsched} unschedulable), mean attempt (filter + score + binding round trip) ${(1000 * seconds / Math.max(1, count)).toFixed(1)} ms`;
  } finally {
    await dispatcher.close();
  }
}

async function main(): Promise<void> {
  if (args.serve) return serve(args.serve === 'with');
  const nodes = positiveInt('scheduler', 'nodes', args.nodes!);
  const pods = positiveInt('scheduler', 'pods', args.pods!);
  const workers = positiveInt('scheduler', 'workers', args.workers!);
  const runs = positiveInt('scheduler', 'runs', args.runs!);
  const rows: string[][] = [];
  const best = { sched: 0, hand: 0 };
  let figures = '';
  for (let run = 1; run <= runs; run++) {
    // A fresh pair of servers per run: each run schedules onto empty nodes.
    const withSched = await spawnChild('with');
    const without = await spawnChild('without');
    try {
      for (const child of [withSched, without]) {
        const c = new ApiClient({ url: child.url });
        await registerNodes(c, nodes);
        c.close();
      }
      const sched = await measure(withSched, false, run, pods, nodes, workers);
      const hand = await measure(without, true, run, pods, nodes, workers);
      figures = await schedulerFigures(withSched);
      const ps = pods / sched;
      const ph = pods / hand;
      best.sched = Math.max(best.sched, ps);
      best.hand = Math.max(best.hand, ph);
      rows.push([`run ${run}`, sched.toFixed(2), ps.toFixed(0), hand.toFixed(2), ph.toFixed(0), (ps / ph).toFixed(2)]);
    } finally {
      await Promise.all([stop(withSched), stop(without)]);
    }
  }
  console.log(`\nScheduling throughput: ${nodes} nodes (objects), ${pods} pods created without nodeName by ${workers} client workers, until all are seen bound on a watch\n`);
  printTable(['', 'scheduler s', 'scheduler pods/s', 'by hand s', 'by hand pods/s', 'scheduler/by hand'], rows);
  console.log(`\nbest: ${best.sched.toFixed(0)} pods/s with the scheduler (aim >= 300), ${best.hand.toFixed(0)} pods/s created and bound by hand`);
  if (figures) console.log(figures);
  console.log('');
  if (best.sched < 300) process.exitCode = 1;
}

await main();
