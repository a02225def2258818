// The reference node agent under load (issue 11): `serve --plain-http`, `mock-cri` and `agent` as the
// processes users start, 100 pods (busybox ["sleep","3600"]) created on the agent's node through the
// API, watched until Running, then deleted. Figures: pods per second from the first create to the last
// Running, create-to-Running p50/p95, the agent process's memory (VmRSS of /proc/<pid>/status) at rest
// before the pods, with them, and at rest again after they are gone, and the teardown time (first
// delete to last pod gone, and to the runtime holding nothing).
//
// Baseline, measured in the same run: the same work driven straight into a mock CRI process of its own
// with criClient, as many pods in flight as the API creates: RunPodSandbox, PullImage (busybox has no
// tag, so the agent pulls it Always), CreateContainer, StartContainer per pod, then StopContainer,
// RemoveContainer, StopPodSandbox, RemovePodSandbox. The gap between the two rows is the agent's and the
// API's share: the watch, the per-pod workers, status writes, the PLEG.
//
//   node dist/bench/agent.js [--pods 100] [--concurrency 16] [--deadline-seconds 60]
//
// Every wait is bounded (--deadline-seconds per phase) and driven by the pod watch or by polling with
// a deadline; a phase that times out fails the run with what was missing.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { criClient, type CriClient } from '../cri/proto.js';
import { ApiClient, type Watch } from '../reference/client/api-client.js';
import { positiveInt, printTable, quantile } from './report.js';

const BIN = fileURLToPath(new URL('../bin/orch-conformance.js', import.meta.url));
const NODE = 'bench-node';
const NAMESPACE = 'default';
const LABEL = 'bench.orch.io/run';

const { values: args } = parseArgs({
  options: {
    pods: { type: 'string', default: '100' },
    concurrency: { type: 'string', default: '16' },
    'deadline-seconds': { type: 'string', default: '60' },
  },
});


const PODS = positiveInt('agent', 'pods', args.pods!);
const CONCURRENCY = positiveInt('agent', 'concurrency', args.concurrency!);
const DEADLINE_MS = positiveInt('agent', 'deadline-seconds', args['deadline-seconds']!) * 1000;

// ---- child processes ----

interface Child {
  name: string;
  proc: ChildProcess;
  /** Standard error so far (last 8 KiB), for the message when something fails. */
  stderr(): string;
}

/** Starts `orch-conformance <args>` and resolves with its stdout once `ready` matched it. */
function startBin(name: string, binArgs: string[], ready: RegExp, children: Child[]): Promise<{ child: Child; out: string }> {
  const proc = spawn(process.execPath, [BIN, ...binArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr!.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-8192)));
  const child: Child = { name, proc, stderr: () => err };
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${name} not ready within ${DEADLINE_MS / 1000} s: ${out}${err}`)), DEADLINE_MS);
    proc.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve({ child, out });
      }
    });
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code ?? signal}) before it was ready: ${out}${err}`));
    });
  });
}

/** SIGTERM, then SIGKILL if it has not exited within 10 s; resolves with the exit code (null when killed). */
function stop(child: Child): Promise<number | null> {
  const p = child.proc;
  if (p.exitCode !== null || p.signalCode !== null) return Promise.resolve(p.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => p.kill('SIGKILL'), 10_000);
    p.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    p.kill('SIGTERM');
  });
}

/** VmRSS and VmHWM (peak) of a process, MB. */
function memoryMb(pid: number): { rss: number; peak: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string): number => {
    const m = new RegExp(`^${key}:\\s+(\\d+) kB$`, 'm').exec(text);
    if (!m) throw new Error(`no ${key} in /proc/${pid}/status`);
    return Number(m[1]) / 1024;
  };
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** GET on the mock's control socket, JSON. */
function controlGet(socketPath: string, path: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, method: 'GET' }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => {
        try {
          resolve(JSON.parse(text));
        } catch (e) {
          reject(new Error(`control ${path}: not JSON (${res.statusCode}): ${text.slice(0, 200)}`));
        }
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Polls `f` every 50 ms until it returns a value, for at most DEADLINE_MS. */
async function until<T>(what: string, f: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${DEADLINE_MS / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Runs `work(i)` for i in [0, n) with `concurrency` in flight. */
async function pool(n: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(n, concurrency) }, worker));
}


interface Run {
  podsPerSecond: number;
  p50: number;
  p95: number;
  teardownMs: number;
}

// ---- baseline: the mock CRI alone ----

async function baseline(cri: CriClient, logDir: string): Promise<Run> {
  const latencies: number[] = [];
  const made: { sandbox: string; container: string }[] = [];
  const t0 = performance.now();
  await pool(PODS, CONCURRENCY, async (i) => {
    const start = performance.now();
    const sandboxConfig = {
      metadata: { name: `base-${i}`, uid: `base-uid-${i}`, namespace: NAMESPACE, attempt: 0 },
      log_directory: join(logDir, `base-${i}`),
      labels: { [LABEL]: 'baseline' },
    };
    const { pod_sandbox_id } = await cri.call<{ pod_sandbox_id: string }>('RunPodSandbox', { config: sandboxConfig });
    await cri.call('PullImage', { image: { image: 'busybox' }, sandbox_config: sandboxConfig });
    const config = { metadata: { name: 'main', attempt: 0 }, image: { image: 'busybox' }, command: ['sleep', '3600'], log_path: 'main_0.log' };
    const { container_id } = await cri.call<{ container_id: string }>('CreateContainer', { pod_sandbox_id, config, sandbox_config: sandboxConfig });
    await cri.call('StartContainer', { container_id });
    latencies.push(performance.now() - start);
    made.push({ sandbox: pod_sandbox_id, container: container_id });
  });
  const elapsed = performance.now() - t0;
  const d0 = performance.now();
  await pool(made.length, CONCURRENCY, async (i) => {
    const { sandbox, container } = made[i]!;
    await cri.call('StopContainer', { container_id: container, timeout: '30' });
    await cri.call('RemoveContainer', { container_id: container });
    await cri.call('StopPodSandbox', { pod_sandbox_id: sandbox });
    await cri.call('RemovePodSandbox', { pod_sandbox_id: sandbox });
  });
  const teardownMs = performance.now() - d0;
  const left = await cri.call<{ containers: unknown[] }>('ListContainers', {});
  if (left.containers.length !== 0) throw new Error(`baseline: ${left.containers.length} containers left after teardown`);
  return { podsPerSecond: PODS / (elapsed / 1000), p50: quantile(latencies, 0.5), p95: quantile(latencies, 0.95), teardownMs };
}

// ---- the agent ----

const podManifest = (name: string): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: NAMESPACE, labels: { [LABEL]: 'agent' } },
  spec: { nodeName: NODE, containers: [{ name: 'main', image: 'busybox', command: ['sleep', '3600'] }] },
});

/** The highest sequence number in the mock's call log so far. */
async function lastSeq(control: string): Promise<number> {
  return Math.max(0, ...(await controlGet(control, '/calls')).calls.map((c: { seq: number }) => c.seq));
}

/** A PLEG relist's ListContainers: every container, no filter (a worker's carries its pod's label). */
const isRelist = (c: { rpc: string; request: any }): boolean => c.rpc === 'ListContainers' && !c.request?.filter?.label_selector;

/** Resolves once the call log shows `count` PLEG relists after this call. */
async function relists(control: string, count: number): Promise<void> {
  const since = await lastSeq(control);
  await until(`${count} PLEG relists`, async () => {
    const calls = (await controlGet(control, `/calls?rpc=ListContainers&since=${since}`)).calls as { rpc: string; request: any }[];
    return calls.filter(isRelist).length >= count ? true : undefined;
  });
}

interface AgentFigures extends Run {
  idle: { rss: number; peak: number };
  loaded: { rss: number; peak: number };
  after: { rss: number; peak: number };
  runtimeEmptyMs: number;
  /** RPCs the agent sent per pod while creating (PLEG relists apart), by name. */
  rpcsPerPod: Record<string, number>;
  stopExit: number | null;
}

async function benchAgent(apiUrl: string, agent: Child, control: string): Promise<AgentFigures> {
  const pid = agent.proc.pid!;
  const api = new ApiClient({ url: apiUrl, userAgent: 'bench-agent' });
  let watch: Watch | undefined;
  try {
    await until(`node ${NODE} Ready`, async () => {
      const node = await api.get(`/api/v1/nodes/${NODE}`).catch(() => undefined);
      return node?.status?.conditions?.find((c: any) => c.type === 'Ready')?.status === 'True' ? true : undefined;
    });
    // At rest: registered, Ready, and two PLEG relists done with nothing to run.
    await relists(control, 2);
    const idle = memoryMb(pid);

    const names = Array.from({ length: PODS }, (_, i) => `bench-${String(i).padStart(3, '0')}`);
    const wanted = new Set(names);
    const createSent = new Map<string, number>();
    const running = new Map<string, number>();
    const gone = new Map<string, number>();
    let onProgress = (): void => {};
    watch = api.watch(`/api/v1/namespaces/${NAMESPACE}/pods`, {
      fieldSelector: `spec.nodeName=${NODE}`,
      labelSelector: `${LABEL}=agent`,
      onList: () => {},
      onEvent: (ev) => {
        const name = ev.object?.metadata?.name;
        if (!wanted.has(name)) return;
        const now = performance.now();
        if (ev.type === 'DELETED') {
          if (!gone.has(name)) gone.set(name, now);
        } else if (ev.object?.status?.phase === 'Running' && !running.has(name)) {
          running.set(name, now);
        }
        onProgress();
      },
      onError: (err) => console.error(`bench/agent: watch: ${(err as Error).message}`),
    });
    await watch.synced;
    const waitFor = (what: string, done: () => boolean, missing: () => string): Promise<void> => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out after ${DEADLINE_MS / 1000} s waiting for ${what}; missing: ${missing()}`)), DEADLINE_MS);
      onProgress = () => {
        if (done()) {
          clearTimeout(timer);
          onProgress = () => {};
          resolve();
        }
      };
      onProgress();
    });
    const missingOf = (m: Map<string, number>) => () => names.filter((n) => !m.has(n)).slice(0, 10).join(', ') + (names.length - m.size > 10 ? ', ...' : '');

    const seqBefore = await lastSeq(control);
    const allRunning = waitFor(`${PODS} pods Running`, () => running.size === PODS, missingOf(running));
    const t0 = performance.now();
    await pool(PODS, CONCURRENCY, async (i) => {
      createSent.set(names[i]!, performance.now());
      await api.create(`/api/v1/namespaces/${NAMESPACE}/pods`, podManifest(names[i]!));
    });
    await allRunning;
    const tRunning = Math.max(...running.values());
    const latencies = names.map((n) => running.get(n)! - createSent.get(n)!);
    const loadedNow = memoryMb(pid);
    // With the pods: once the agent has relisted them twice more (status settled).
    await relists(control, 2);
    const loaded = memoryMb(pid);
    loaded.rss = Math.max(loaded.rss, loadedNow.rss);

    // Every RPC the agent sent while creating, PLEG relists apart: what one pod costs the runtime.
    const calls = (await controlGet(control, `/calls?since=${seqBefore}`)).calls as { rpc: string; request: any }[];
    const rpcsPerPod: Record<string, number> = {};
    for (const c of calls) {
      if (c.rpc === 'ListPodSandbox' && !c.request?.filter?.label_selector) continue;
      if (isRelist(c)) continue;
      rpcsPerPod[c.rpc] = (rpcsPerPod[c.rpc] ?? 0) + 1 / PODS;
    }

    const allGone = waitFor(`${PODS} pods deleted`, () => gone.size === PODS, missingOf(gone));
    const d0 = performance.now();
    await pool(PODS, CONCURRENCY, async (i) => {
      await api.delete(`/api/v1/namespaces/${NAMESPACE}/pods/${names[i]}`);
    });
    await allGone;
    const teardownMs = Math.max(...gone.values()) - d0;
    await until('the runtime emptied', async () => {
      const s = await controlGet(control, '/state');
      return s.containers.length === 0 && s.sandboxes.length === 0 ? true : undefined;
    });
    const runtimeEmptyMs = performance.now() - d0;
    await relists(control, 2);
    const after = memoryMb(pid);

    watch.stop();
    watch = undefined;
    const stopExit = await stop(agent);
    return {
      podsPerSecond: PODS / ((tRunning - t0) / 1000),
      p50: quantile(latencies, 0.5),
      p95: quantile(latencies, 0.95),
      teardownMs,
      runtimeEmptyMs,
      idle,
      loaded,
      after,
      rpcsPerPod,
      stopExit,
    };
  } finally {
    watch?.stop();
    api.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-agent-'));
  const children: Child[] = [];
  let failed = false;
  try {
    const agentSocket = join(dir, 'run', 'cri.sock');
    const control = join(dir, 'run', 'control.sock');
    const baseSocket = join(dir, 'base', 'cri.sock');
    const [serve, , base] = await Promise.all([
      startBin('serve', ['serve', '--plain-http', '--api-port', '0'], /^api: \S+$/m, children),
      startBin('mock-cri', ['mock-cri', '--socket', agentSocket, '--control', control], /^control: /m, children),
      startBin('mock-cri (baseline)', ['mock-cri', '--socket', baseSocket], /^cri: /m, children),
    ]);
    const apiUrl = /^api: (\S+)$/m.exec(serve.out)![1]!;

    // The baseline first, alone on the machine but for an idle API server; its runtime is then stopped.
    const cri = criClient(baseSocket);
    let base0: Run;
    try {
      base0 = await baseline(cri, join(dir, 'base-logs'));
    } finally {
      cri.close();
    }
    await stop(base.child);

    const { child: agent } = await startBin('agent', [
      'agent', '--api', apiUrl, '--container-runtime-endpoint', `unix://${agentSocket}`, '--root-dir', join(dir, 'root'),
      '--node-name', NODE, '--address', '127.0.0.1', '--port', '0',
    ], /^agent: \S+$/m, children);
    const a = await benchAgent(apiUrl, agent, control);

    const ms = (n: number) => `${n.toFixed(0)} ms`;
    const mb = (n: number) => `${n.toFixed(1)} MB`;
    console.log(`\nAgent: ${PODS} pods (busybox ["sleep","3600"]) on one agent with the mock CRI, ${CONCURRENCY} creates in flight; serve, mock-cri and agent in their own processes`);
    console.log('pods/s: first create sent to last Running seen on the watch; create-to-Running per pod; teardown: first delete to last pod gone\n');
    printTable(['', 'pods/s', 'p50', 'p95', 'teardown'], [
      ['mock CRI alone, driven with criClient (baseline)', base0.podsPerSecond.toFixed(1), ms(base0.p50), ms(base0.p95), ms(base0.teardownMs)],
      ['agent: API create to Running', a.podsPerSecond.toFixed(1), ms(a.p50), ms(a.p95), ms(a.teardownMs)],
    ]);
    console.log(`\nRuntime empty after the deletes: ${ms(a.runtimeEmptyMs)}`);
    console.log(`CRI calls per pod from the agent while creating: ${Object.entries(a.rpcsPerPod).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}`);
    console.log('\nAgent process memory (VmRSS; peak is VmHWM so far)\n');
    printTable(['', 'RSS', 'peak'], [
      ['at rest, before the pods', mb(a.idle.rss), mb(a.idle.peak)],
      [`with ${PODS} pods Running`, mb(a.loaded.rss), mb(a.loaded.peak)],
      ['at rest, after the deletes', mb(a.after.rss), mb(a.after.peak)],
    ]);
    console.log(`\nAgent stopped on SIGTERM with exit code ${a.stopExit}`);
    const rateMet = a.podsPerSecond >= 20;
    const memMet = a.loaded.peak <= 150;
    console.log(`Aim: >= 20 pods/s: ${rateMet ? 'met' : 'NOT met'} (${a.podsPerSecond.toFixed(1)}); <= 150 MB with ${PODS} pods (peak RSS): ${memMet ? 'met' : 'NOT met'} (${mb(a.loaded.peak)})\n`);
  } catch (err) {
    failed = true;
    console.error(`bench/agent: ${(err as Error).message}`);
    for (const c of children) {
      const tail = c.stderr().trim();
      if (tail) console.error(`--- ${c.name} stderr (tail) ---\n${tail.slice(-2000)}`);
    }
  } finally {
    await Promise.all(children.map(stop));
    rmSync(dir, { recursive: true, force: true });
  }
  if (failed) process.exit(1);
}

await main();
