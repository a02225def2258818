// Slow watchers against `serve` (issue 23 §5) at the size the issue names: 300 watches whose clients
// never read, then 30 writes of 250 KB StorageClasses (a 250 KB parameter), each event owed to every watcher
// (2.2 GB if the server kept it all). Measured on the server process (a child, so its memory is its
// own): peak resident memory (VmHWM), the watches it closed, and /healthz latency while the writes go on;
// next to the same load with the total bound raised to 64 GiB (only the per-watch bound left: the
// baseline), in the same run. Aim: with the default bounds, peak RSS under 600 MB and /healthz p99 under
// 500 ms.
//
//   node dist/bench/watch-bounds.js [--watchers 300] [--writes 30]
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { positiveInt, printTable, quantile } from './report.js';

const { values: args } = parseArgs({ options: { watchers: { type: 'string', default: '300' }, writes: { type: 'string', default: '30' } } });
const WATCHERS = positiveInt('watch-bounds', 'watchers', args.watchers!);
const WRITES = positiveInt('watch-bounds', 'writes', args.writes!);
const AIM_RSS_MB = 600;
const AIM_HEALTHZ_P99_MS = 500;
const BIN = fileURLToPath(new URL('../bin/orch-conformance.js', import.meta.url));

interface Server { proc: ChildProcess; port: number }

async function startServe(extra: string[]): Promise<Server> {
  const proc = spawn(process.execPath, [BIN, 'serve', '--plain-http', '--api-port', '0', '--controllers', '', '--no-scheduler', ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error('serve printed no api: line within 30 s')), 30_000);
    proc.once('exit', (code) => reject(new Error(`serve exited (${code}) before it was ready`)));
    proc.stdout!.on('data', (c: Buffer) => {
      text += c.toString();
      const m = /^api: (\S+)$/m.exec(text);
      if (m) { clearTimeout(timer); resolve(m[1]!); }
    });
  });
  return { proc, port: Number(new URL(url).port) };
}

async function stop(s: Server): Promise<void> {
  s.proc.removeAllListeners('exit');
  const exited = new Promise<void>((resolve) => s.proc.once('exit', () => resolve()));
  s.proc.kill('SIGTERM');
  await exited;
}

/** Peak resident memory of a process so far (VmHWM), MB. */
function peakRssMb(pid: number): number {
  const m = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** A raw request; the status and the body. */
function request(port: number, method: string, path: string, body?: string): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    let text = '';
    s.on('data', (d) => { text += d.toString('latin1'); });
    s.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0), ms: performance.now() - t0 }));
    s.on('error', reject);
    const head = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${body ? `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` : ''}\r\n`;
    s.end(body ? head + body : head);
  });
}

/** A watch whose client reads the response headers and then nothing. */
function stalledWatch(port: number, path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    s.once('error', reject);
    s.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    let head = '';
    const onData = (d: Buffer) => {
      head += d.toString('latin1');
      if (head.includes('\r\n\r\n')) { s.off('data', onData); s.pause(); resolve(s); }
    };
    s.on('data', onData);
  });
}

async function terminated(port: number): Promise<number> {
  const s = connect(port, '127.0.0.1');
  let text = '';
  await new Promise<void>((resolve, reject) => {
    s.on('data', (d) => { text += d.toString(); });
    s.on('end', () => resolve());
    s.on('error', reject);
    s.end('GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
  });
  return [...text.matchAll(/^apiserver_terminated_watchers_total\{[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
}

async function measure(label: string, extra: string[]): Promise<string[]> {
  const s = await startServe(extra);
  try {
    const SC = '/apis/storage.orch.io/v1/storageclasses';
    const watches: Socket[] = [];
    for (let i = 0; i < WATCHERS; i++) watches.push(await stalledWatch(s.port, `${SC}?watch=true`));
    const healthz: number[] = [];
    let writing = true;
    const probe = (async () => {
      while (writing) {
        healthz.push((await request(s.port, 'GET', '/healthz')).ms);
        await sleep(20);
      }
    })();
    const value = 'x'.repeat(250 * 1024);
    for (let i = 0; i < WRITES; i++) {
      const r = await request(s.port, 'POST', SC, JSON.stringify({ apiVersion: 'storage.orch.io/v1', kind: 'StorageClass', metadata: { name: `big-${i}` }, provisioner: 'example.orch.io/bench', parameters: { blob: value } }));
      if (r.status !== 201) throw new Error(`write ${i}: HTTP ${r.status}`);
    }
    await sleep(1000);
    writing = false;
    await probe;
    const closed = await terminated(s.port);
    const rss = peakRssMb(s.proc.pid!);
    for (const w of watches) w.destroy();
    return [label, rss.toFixed(0), String(closed), quantile(healthz, 0.5).toFixed(0), quantile(healthz, 0.99).toFixed(0)];
  } finally {
    await stop(s);
  }
}

const rows = [
  await measure('default bounds (256 MiB total, 16 MiB per watch)', []),
  await measure('baseline: total bound raised to 64 GiB', ['--max-watch-pending-bytes', '64Gi']),
];
console.log(`\n${WATCHERS} watches that never read, ${WRITES} writes of 250 KB; serve --plain-http in a child process\n`);
printTable(['', 'peak RSS MB', 'watches closed', '/healthz p50 ms', '/healthz p99 ms'], rows);
const rss = Number(rows[0]![1]);
const p99 = Number(rows[0]![4]);
const met = rss < AIM_RSS_MB && p99 < AIM_HEALTHZ_P99_MS;
console.log(`\nAim: peak RSS < ${AIM_RSS_MB} MB and /healthz p99 < ${AIM_HEALTHZ_P99_MS} ms with the default bounds: ${met ? 'met' : 'NOT met'} (${rows[0]![1]} MB, ${rows[0]![4]} ms)`);
