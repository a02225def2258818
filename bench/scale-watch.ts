// Watch delivery at scale (issue 27 §2): many watchers of one resource while writers create
// objects of it at a fixed rate, each write's delivery timed at every watcher, from the write's
// acknowledgement (its answer reaching the writer) to its event reaching the watcher. Against `serve`
// (memory), against three `serve --storage etcd` on one etcd (watchers and writes spread over the
// three), and, in the same run, against a bare node:http fan-out server doing the same job (each write
// written to every open connection): the baseline. Aims: p99 ≤ 50 ms for 1,000 watchers at 100
// writes/s, ≤ 100 ms for 5,000 watchers at 20 writes/s. Each write creates a small Lease.
//
//   node dist/bench/scale-watch.js [--watchers 1000] [--writes-per-second 100] [--seconds 10] [--target memory|etcd3|both]
//
// Every server runs in a child process of its own, and so do the watchers (WATCHER_PROCESSES of
// them, none parsing JSON: each finds the write's sequence number in the stream with indexOf), so
// the load generator is not what is measured. Times are wall-clock milliseconds from
// performance.timeOrigin + performance.now() in each process, compared on one machine. A watcher
// may see an event before its writer sees the answer (the memory storage tells watchers inside the
// write): such deliveries count as negative latencies.
// bench/scale.ts calls watchProfiles('short' | 'full') for its table.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { etcdUnavailable, startEtcd } from '../test/helpers/etcd.js';
import { stopProcess } from './load.js';
import { positiveInt, printTable } from './report.js';

const HERE = fileURLToPath(import.meta.url);
const BIN = fileURLToPath(new URL('../bin/orch-conformance.js', import.meta.url));
const NAMESPACE = 'scale-watch';
const COLLECTION = `/apis/coordination.orch.io/v1/namespaces/${NAMESPACE}/leases`;
/** The watchers' marker: a write's sequence number (a label) follows it in its event's JSON. */
const MARKER = '"seq":"';
const WATCHER_PROCESSES = 3;
/** Concurrent writers (connections) per server. */
const WRITER_CONNECTIONS = 8;
/** How long after the last write the watchers may still take to see it. */
const DRAIN_MS = 10_000;
/** Histogram buckets of the latencies, 0.1 ms wide, from -1 s on. */
const BUCKET_MS = 0.1;
const BUCKET_OFFSET_MS = 1000;

const now = (): number => performance.timeOrigin + performance.now();

export interface WatchProfile {
  readonly watchers: number;
  readonly writesPerSecond: number;
  readonly seconds: number;
  /** p99 aim, ms. */
  readonly aimP99Ms: number;
}

export type Target = 'memory' | 'etcd3';

interface Measured {
  p50: number;
  p99: number;
  /** Deliveries seen over deliveries owed (watchers × writes). */
  delivered: number;
  /** Writes per second actually acknowledged. */
  ackRate: number;
}

// ---------------------------------------------------------------------------------------------
// Watcher child: opens its share of the watches, notes when each write's marker arrives on each,
// and when told the writes' acknowledgement times answers a histogram of the latencies.

interface WatchTargetSpec {
  readonly port: number;
  readonly path: string;
}

type ToWatcher = { kind: 'open'; targets: WatchTargetSpec[]; count: number; writes: number } | { kind: 'acks'; acks: number[] } | { kind: 'count' };
type FromWatcher = { kind: 'open'; error?: string } | { kind: 'count'; seen: number } | { kind: 'histogram'; buckets: Record<string, number>; seen: number };

function watcherChild(): void {
  const marker = Buffer.from(MARKER);
  let writes = 0;
  /** seen[c * writes + seq]: when connection c saw write seq (0: not yet). */
  let seen = new Float64Array(0);
  let seenCount = 0;
  const send = (m: FromWatcher): void => void process.send!(m);

  const open = (t: WatchTargetSpec, c: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: t.port, path: t.path, agent: false, headers: { accept: 'application/json' } }, (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`watch ${t.path} answered ${res.statusCode}`));
          res.resume();
          return;
        }
        let carry: Buffer | undefined;
        res.on('data', (chunk: Buffer) => {
          const at = now();
          const data = carry ? Buffer.concat([carry, chunk]) : chunk;
          let pos = 0;
          let keepFrom = Math.max(0, data.length - (marker.length - 1));
          for (;;) {
            const i = data.indexOf(marker, pos);
            if (i < 0) break;
            const end = data.indexOf(0x22, i + marker.length);
            if (end < 0) {
              keepFrom = i;
              break;
            }
            const seq = Number(data.toString('latin1', i + marker.length, end));
            if (Number.isInteger(seq) && seq >= 0 && seq < writes && seen[c * writes + seq] === 0) {
              seen[c * writes + seq] = at;
              seenCount++;
            }
            pos = end + 1;
            keepFrom = Math.max(keepFrom, pos);
          }
          carry = keepFrom < data.length ? data.subarray(keepFrom) : undefined;
        });
        resolve();
      });
      req.on('error', reject);
      req.end();
    });

  process.on('message', (m: ToWatcher) => {
    if (m.kind === 'open') {
      writes = m.writes;
      seen = new Float64Array(m.count * writes);
      const jobs: Array<() => Promise<void>> = [];
      for (let c = 0; c < m.count; c++) jobs.push(() => open(m.targets[c % m.targets.length]!, c));
      // A few connections at a time: a burst of thousands of connects at once is not what is measured.
      void inBatches(jobs, 50).then(
        () => send({ kind: 'open' }),
        (err: Error) => send({ kind: 'open', error: err.message }),
      );
    } else if (m.kind === 'count') {
      send({ kind: 'count', seen: seenCount });
    } else {
      const buckets: Record<string, number> = {};
      for (let i = 0; i < seen.length; i++) {
        const at = seen[i]!;
        const ack = m.acks[i % writes]!;
        if (at === 0 || !(ack > 0)) continue;
        const b = Math.max(0, Math.round((at - ack + BUCKET_OFFSET_MS) / BUCKET_MS));
        buckets[b] = (buckets[b] ?? 0) + 1;
      }
      send({ kind: 'histogram', buckets, seen: seenCount });
    }
  });
}

async function inBatches(jobs: Array<() => Promise<void>>, size: number): Promise<void> {
  for (let i = 0; i < jobs.length; i += size) await Promise.all(jobs.slice(i, i + size).map((j) => j()));
}

class Watchers {
  private readonly children: ChildProcess[] = [];

  static async open(targets: WatchTargetSpec[], watchers: number, writes: number): Promise<Watchers> {
    const w = new Watchers();
    const per = Math.ceil(watchers / WATCHER_PROCESSES);
    const opened: Promise<void>[] = [];
    for (let i = 0; i < WATCHER_PROCESSES; i++) {
      const count = Math.min(per, watchers - i * per);
      if (count <= 0) break;
      const child = fork(HERE, ['--watcher-child'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      w.children.push(child);
      // Each child starts on a different server, so that every server gets its share.
      const mine = targets.map((_, k) => targets[(k + i) % targets.length]!);
      opened.push(
        w.ask(child, { kind: 'open', targets: mine, count, writes }, 'open').then((m) => {
          if (m.kind === 'open' && m.error) throw new Error(m.error);
        }),
      );
    }
    try {
      await Promise.all(opened);
    } catch (err) {
      await w.close();
      throw err;
    }
    return w;
  }

  private ask(child: ChildProcess, m: ToWatcher, answer: FromWatcher['kind']): Promise<FromWatcher> {
    return new Promise((resolve, reject) => {
      const onMessage = (r: FromWatcher): void => {
        if (r.kind !== answer) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(r);
      };
      const onExit = (code: number | null): void => reject(new Error(`watcher process exited (${code})`));
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send(m);
    });
  }

  /** Deliveries seen so far, over every watcher. */
  async seen(): Promise<number> {
    const counts = await Promise.all(this.children.map((c) => this.ask(c, { kind: 'count' }, 'count')));
    return counts.reduce((n, m) => n + (m.kind === 'count' ? m.seen : 0), 0);
  }

  /** The latency histogram over every watcher, given each write's acknowledgement time. */
  async histogram(acks: number[]): Promise<{ buckets: Map<number, number>; seen: number }> {
    const answers = await Promise.all(this.children.map((c) => this.ask(c, { kind: 'acks', acks }, 'histogram')));
    const buckets = new Map<number, number>();
    let seen = 0;
    for (const a of answers) {
      if (a.kind !== 'histogram') continue;
      seen += a.seen;
      for (const [b, n] of Object.entries(a.buckets)) buckets.set(Number(b), (buckets.get(Number(b)) ?? 0) + n);
    }
    return { buckets, seen };
  }

  async close(): Promise<void> {
    await Promise.all(this.children.map((c) => stopProcess(c)));
  }
}

/** The latency below which a share q of the histogram lies, ms. */
function histogramQuantile(buckets: Map<number, number>, q: number): number {
  const keys = [...buckets.keys()].sort((a, b) => a - b);
  const total = keys.reduce((n, k) => n + buckets.get(k)!, 0);
  let acc = 0;
  for (const k of keys) {
    acc += buckets.get(k)!;
    if (acc > q * total - 1e-9) return k * BUCKET_MS - BUCKET_OFFSET_MS;
  }
  return NaN;
}

// ---------------------------------------------------------------------------------------------
// The bare baseline: a node:http server that writes each write, once encoded, to every open watch.

function bareChild(): void {
  const watches = new Set<ServerResponse>();
  let rv = 1;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET' && !req.url?.includes('watch=1')) {
      // The list that tells the watchers where to start.
      const text = JSON.stringify({ kind: 'LeaseList', apiVersion: 'coordination.orch.io/v1', metadata: { resourceVersion: String(rv) }, items: [] });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) });
      res.end(text);
      return;
    }
    if (req.method === 'GET') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      res.flushHeaders();
      watches.add(res);
      res.on('close', () => watches.delete(res));
      return;
    }
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const obj = JSON.parse(Buffer.concat(parts).toString()) as { metadata: Record<string, unknown> };
      obj.metadata['resourceVersion'] = String(++rv);
      const text = JSON.stringify(obj);
      const line = Buffer.from(`{"type":"ADDED","object":${text}}\n`);
      // Answered first, as the reference answers a write before its watchers' sockets are written.
      res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) });
      res.end(text);
      for (const w of watches) w.write(line);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const addr = server.address();
    process.stdout.write(`api: http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}\n`);
  });
  process.once('SIGTERM', () => {
    for (const w of watches) w.destroy();
    server.close(() => process.exit(0));
  });
}

// ---------------------------------------------------------------------------------------------
// Servers and writers.

interface Server {
  readonly proc: ChildProcess;
  readonly url: string;
  readonly port: number;
}

/** A child printing `api: <url>` when it serves. */
function startChild(args: string[]): Promise<Server> {
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise<Server>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => {
      proc.kill();
      reject(new Error(`${args.join(' ')} printed no api: line within 60 s`));
    }, 60_000);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited (${code}) before it served`));
    });
    proc.stdout!.on('data', (c: Buffer) => {
      text += c.toString();
      const m = /^api: (\S+)$/m.exec(text);
      if (m) {
        clearTimeout(timer);
        proc.removeAllListeners('exit');
        proc.stdout!.resume();
        resolve({ proc, url: m[1]!, port: Number(new URL(m[1]!).port) });
      }
    });
  });
}

const serve = (extra: string[]): Promise<Server> => startChild([BIN, 'serve', '--plain-http', '--api-port', '0', '--controllers', '', '--no-scheduler', ...extra]);

/** The object each write creates: a Lease (small, as most watched objects of a busy cluster are), its sequence number a label. */
const lease = (seq: number): string =>
  JSON.stringify({ apiVersion: 'coordination.orch.io/v1', kind: 'Lease', metadata: { name: `scale-watch-${process.pid}-${seq}`, labels: { seq: String(seq) } }, spec: { holderIdentity: `writer-${seq % WRITER_CONNECTIONS}`, leaseDurationSeconds: 40 } });

/**
 * The collection's current resourceVersion (its namespace created first if need be): the watches
 * start there, so they see only this run's writes.
 */
async function listRevision(url: string): Promise<string> {
  const pool = new Pool(url, { connections: 1 });
  try {
    const ns = await pool.request({ method: 'POST', path: '/api/v1/namespaces', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }) });
    await ns.body.dump();
    if (ns.statusCode !== 201 && ns.statusCode !== 409) throw new Error(`creating namespace ${NAMESPACE} answered ${ns.statusCode}`);
    const res = await pool.request({ method: 'GET', path: `${COLLECTION}?limit=1` });
    const body = (await res.body.json()) as { metadata?: { resourceVersion?: string } };
    return body.metadata?.resourceVersion ?? '';
  } finally {
    await pool.close();
  }
}

/**
 * Writes at `rate` per second for `seconds`, open loop (each write starts on its schedule, however
 * long the others take, over WRITER_CONNECTIONS connections per server), round robin over the
 * servers; answers each write's acknowledgement time (0 when it failed).
 */
async function write(servers: Server[], rate: number, seconds: number): Promise<{ acks: number[]; ms: number }> {
  const total = rate * seconds;
  const pools = servers.map((s) => new Pool(s.url, { connections: WRITER_CONNECTIONS, pipelining: 1 }));
  const acks = new Array<number>(total).fill(0);
  const started = performance.now();
  const inflight: Promise<void>[] = [];
  try {
    for (let seq = 0; seq < total; seq++) {
      const due = started + (seq * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const pool = pools[seq % pools.length]!;
      inflight.push(
        pool.request({ method: 'POST', path: COLLECTION, headers: { 'content-type': 'application/json' }, body: lease(seq) }).then(
          async (res) => {
            await res.body.dump();
            if (res.statusCode === 201) acks[seq] = now();
          },
          () => {},
        ),
      );
    }
    await Promise.all(inflight);
    return { acks, ms: performance.now() - started };
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
}

/** One profile against one set of servers (several: watchers and writes spread over them). */
async function measure(servers: Server[], profile: WatchProfile): Promise<Measured> {
  const rv = await listRevision(servers[0]!.url);
  const path = `${COLLECTION}?watch=1&resourceVersion=${encodeURIComponent(rv)}&timeoutSeconds=3600`;
  const total = profile.writesPerSecond * profile.seconds;
  const watchers = await Watchers.open(servers.map((s) => ({ port: s.port, path })), profile.watchers, total);
  try {
    const { acks, ms } = await write(servers, profile.writesPerSecond, profile.seconds);
    const acked = acks.filter((a) => a > 0).length;
    const owed = acked * profile.watchers;
    // Until every watcher has seen every acknowledged write, or DRAIN_MS passes: bounded polling.
    const deadline = performance.now() + DRAIN_MS;
    while (performance.now() < deadline && (await watchers.seen()) < owed) await new Promise((r) => setTimeout(r, 100));
    const h = await watchers.histogram(acks);
    return {
      p50: histogramQuantile(h.buckets, 0.5),
      p99: histogramQuantile(h.buckets, 0.99),
      delivered: owed ? h.seen / owed : 0,
      ackRate: acked / (ms / 1000),
    };
  } finally {
    await watchers.close();
  }
}

interface Setup {
  readonly servers: Server[];
  close(): Promise<void>;
}

async function memorySetup(): Promise<Setup> {
  const s = await serve([]);
  return { servers: [s], close: () => stopProcess(s.proc) };
}

async function bareSetup(): Promise<Setup> {
  const s = await startChild([HERE, '--bare-child']);
  return { servers: [s], close: () => stopProcess(s.proc) };
}

async function etcdSetup(): Promise<Setup> {
  const teardown: Array<() => unknown> = [];
  const servers: Server[] = [];
  const close = async (): Promise<void> => {
    await Promise.all(servers.map((s) => stopProcess(s.proc)));
    for (const fn of teardown.reverse()) await fn();
  };
  try {
    const etcd = await startEtcd({ teardown: (fn) => void teardown.push(fn) });
    for (let i = 0; i < 3; i++) servers.push(await serve(['--storage', 'etcd', '--etcd-servers', etcd.clientUrls.join(',')]));
    return { servers, close };
  } catch (err) {
    await close();
    throw err;
  }
}

async function withSetup<T>(setup: () => Promise<Setup>, fn: (servers: Server[]) => Promise<T>): Promise<T> {
  const s = await setup();
  try {
    return await fn(s.servers);
  } finally {
    await s.close();
  }
}

const ms = (x: number): string => (Number.isFinite(x) ? `${x.toFixed(1)} ms` : 'n/a');
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const thousands = (n: number): string => n.toLocaleString('en-US');

/** Table rows (head: figure, measured, aim, baseline) for each profile on each target, the bare server measured in the same run. */
export async function runProfiles(profiles: readonly WatchProfile[], targets: readonly Target[]): Promise<string[][]> {
  const rows: string[][] = [];
  const etcdWhy = targets.includes('etcd3') ? etcdUnavailable() : undefined;
  for (const p of profiles) {
    const label = `${thousands(p.watchers)} watchers @ ${p.writesPerSecond} writes/s`;
    const bare = await withSetup(bareSetup, (s) => measure(s, p));
    const baseline = (x: number): string => `${ms(x)} (bare node:http)`;
    for (const target of targets) {
      if (target === 'etcd3' && etcdWhy) {
        rows.push([`watch delivery, ${label}, 3 servers on etcd`, `skipped: ${etcdWhy}`, '', '']);
        continue;
      }
      const where = target === 'memory' ? 'serve (memory)' : '3 servers on etcd';
      const m = await withSetup(target === 'memory' ? memorySetup : etcdSetup, (s) => measure(s, p));
      rows.push([`watch delivery p50, ${label}, ${where}`, ms(m.p50), '', baseline(bare.p50)]);
      rows.push([`watch delivery p99, ${label}, ${where}`, ms(m.p99), `≤ ${p.aimP99Ms} ms`, baseline(bare.p99)]);
      rows.push([`  events delivered / writes acknowledged per s`, `${pct(m.delivered)} / ${m.ackRate.toFixed(0)}`, '100% / ' + p.writesPerSecond, `${pct(bare.delivered)} / ${bare.ackRate.toFixed(0)}`]);
    }
  }
  return rows;
}

/** Part 3's entry (bench/scale.ts): short is 1,000 watchers at 100 writes/s for 5 s; full adds 5,000 at 20 writes/s and runs 10 and 20 s. */
export async function watchProfiles(size: 'short' | 'full'): Promise<string[][]> {
  const profiles: WatchProfile[] =
    size === 'short'
      ? [{ watchers: 1000, writesPerSecond: 100, seconds: 5, aimP99Ms: 50 }]
      : [
          { watchers: 1000, writesPerSecond: 100, seconds: 10, aimP99Ms: 50 },
          { watchers: 5000, writesPerSecond: 20, seconds: 20, aimP99Ms: 100 },
        ];
  return runProfiles(profiles, ['memory', 'etcd3']);
}

export const WATCH_TABLE_HEAD = ['figure', 'measured', 'aim', 'baseline'];

async function main(): Promise<void> {
  const { values: args } = parseArgs({
    options: {
      watchers: { type: 'string', default: '1000' },
      'writes-per-second': { type: 'string', default: '100' },
      seconds: { type: 'string', default: '10' },
      target: { type: 'string', default: 'both' },
    },
  });
  const watchers = positiveInt('scale-watch', 'watchers', args.watchers!);
  const writesPerSecond = positiveInt('scale-watch', 'writes-per-second', args['writes-per-second']!);
  const seconds = positiveInt('scale-watch', 'seconds', args.seconds!);
  const targets: Target[] | undefined = args.target === 'both' ? ['memory', 'etcd3'] : args.target === 'memory' || args.target === 'etcd3' ? [args.target] : undefined;
  if (!targets) {
    console.error(`bench/scale-watch: --target must be memory, etcd3 or both, got ${JSON.stringify(args.target)}`);
    process.exit(2);
  }
  // The aims: 50 ms up to 1,000 watchers, 100 ms beyond.
  const aimP99Ms = watchers <= 1000 ? 50 : 100;
  const rows = await runProfiles([{ watchers, writesPerSecond, seconds, aimP99Ms }], targets);
  console.log(`\nwatch delivery, write acknowledgement to event at each watcher (${WATCHER_PROCESSES} watcher processes, ${WRITER_CONNECTIONS} writer connections per server):`);
  printTable(WATCH_TABLE_HEAD, rows);
}

const invoked = process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(HERE);
if (invoked) {
  if (process.argv.includes('--watcher-child')) watcherChild();
  else if (process.argv.includes('--bare-child')) bareChild();
  else
    main().then(
      () => process.exit(0),
      (err: Error) => {
        console.error(err);
        process.exit(1);
      },
    );
}
