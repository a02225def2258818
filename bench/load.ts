// What the throughput benchmarks share: a server in a child process of its own (so that the load
// generator does not share its event loop), and one load generator (undici, a fixed number of
// connections, each request after the last answer on its connection).
import { spawn, type ChildProcess } from 'node:child_process';

export interface Child {
  proc: ChildProcess;
  line: string;
  ms: number;
}

/** Spawns node and resolves with its first READY line and the time from spawn to it. */
export function spawnUntilReady(nodeArgs: string[]): Promise<Child> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const proc = spawn(process.execPath, nodeArgs, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const timer = setTimeout(() => {
      proc.kill();
      reject(new Error(`no READY line within 30s from node ${nodeArgs.join(' ')}`));
    }, 30_000);
    proc.on('error', reject);
    proc.on('exit', (code) => reject(new Error(`child exited (${code}) before it was ready`)));
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /^READY(.*)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        proc.removeAllListeners('exit');
        resolve({ proc, line: m[1]!.trim(), ms: Number(process.hrtime.bigint() - started) / 1e6 });
      }
    });
  });
}

export function stop(child: Child): Promise<void> {
  return stopProcess(child.proc);
}

/** SIGTERM, then SIGKILL after 10 s; resolves once the process has exited. */
export function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    proc.kill('SIGTERM');
  });
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  done: number;
  failures: number;
}

export async function load(
  origin: string,
  make: (i: number) => { method: 'GET' | 'POST'; path: string; body?: string },
  expectStatus: number,
  opts: { requests: number; connections: number; maxMs: number },
): Promise<LoadResult> {
  const { Pool } = await import('undici');
  const pool = new Pool(origin, { connections: opts.connections, pipelining: 1 });
  const latencies: number[] = [];
  let issued = 0;
  let failures = 0;
  const started = performance.now();
  const deadline = started + opts.maxMs;
  const worker = async (): Promise<void> => {
    while (issued < opts.requests && performance.now() < deadline) {
      const r = make(issued++);
      const t0 = performance.now();
      const res = await pool.request({
        method: r.method,
        path: r.path,
        body: r.body,
        headers: r.body ? { 'content-type': 'application/json' } : {},
      });
      await res.body.text();
      latencies.push(performance.now() - t0);
      if (res.statusCode !== expectStatus) failures++;
    }
  };
  await Promise.all(Array.from({ length: opts.connections }, worker));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const pct = (p: number): number => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
  return { rps: latencies.length / elapsed, p50: pct(0.5), p99: pct(0.99), done: latencies.length, failures };
}

/** Figures as the tables print them: thousands separated, no decimals. */
export const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
