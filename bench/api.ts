// Throughput of the reference API server next to a bare node:http JSON server answering the same
// payloads, measured in the same run by the same load generator, plus start-up: from process spawn
// to a served /version, for `serve` as users start it (HTTPS, its CA and serving key generated at
// start) and `serve --plain-http`, and for startReference alone.
//
//   node dist/bench/api.js [--requests 10000] [--connections 32] [--rounds 3] [--max-seconds 10] [--starts 7]
//   node dist/bench/api.js --start-only      (start-up figures only)
//
// Each server runs in its own child process (so the load generator does not share its event loop)
// on loopback. `--serve reference|bare` is the child mode.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { printTable } from './report.js';
import { fmt, load, spawnUntilReady, stop, type Child, type LoadResult } from './load.js';

const SC_PATH = '/apis/storage.orch.io/v1/storageclasses';
const here = fileURLToPath(import.meta.url);
const serverModule = pathToFileURL(fileURLToPath(new URL('../reference/server.js', import.meta.url))).href;
const BIN = fileURLToPath(new URL('../bin/orch-conformance.js', import.meta.url));

const { values: args } = parseArgs({
  options: {
    serve: { type: 'string' },
    requests: { type: 'string', default: '10000' },
    connections: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '3' },
    'max-seconds': { type: 'string', default: '10' },
    starts: { type: 'string', default: '7' },
    'start-only': { type: 'boolean', default: false },
  },
});

const storageClass = (name: string): Record<string, unknown> => ({
  apiVersion: 'storage.orch.io/v1',
  kind: 'StorageClass',
  metadata: { name },
  provisioner: 'example.orch.io/bench',
  parameters: { type: 'ssd' },
});

// ---- child modes ----

async function serveReference(): Promise<void> {
  const { startReference } = (await import(serverModule)) as typeof import('../reference/server.js');
  const ref = await startReference({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`READY ${ref.url}\n`);
  process.once('SIGTERM', () => void ref.close().then(() => process.exit(0)));
}

/** What a minimal hand-written server does for the same requests: parse, stamp metadata, serialise. */
async function serveBare(): Promise<void> {
  let revision = 0;
  const stored = new Map<string, string>();
  const server = createServer((req, res) => {
    const reply = (code: number, body: unknown): void => {
      const text = JSON.stringify(body) + '\n';
      res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    };
    if (req.method === 'GET') {
      const name = (req.url ?? '').slice(SC_PATH.length + 1);
      const value = stored.get(name);
      if (value === undefined) return reply(404, { kind: 'Status', code: 404 });
      const obj = JSON.parse(value);
      obj.metadata.resourceVersion = String(revision);
      return reply(200, obj);
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const obj = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const name = obj.metadata.name ?? `${obj.metadata.generateName}${Math.random().toString(36).slice(2, 7)}`;
      obj.metadata = { ...obj.metadata, name, uid: randomUUID(), creationTimestamp: new Date().toISOString(), generation: 1 };
      obj.reclaimPolicy ??= 'Delete';
      obj.volumeBindingMode ??= 'Immediate';
      stored.set(name, JSON.stringify(obj));
      obj.metadata.resourceVersion = String(++revision);
      reply(201, obj);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.stdout.write(`READY http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

// ---- driver ----

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function drive(): Promise<void> {
  const opts = {
    requests: Number(args.requests),
    connections: Number(args.connections),
    maxMs: Number(args['max-seconds']) * 1000,
  };
  const starts = Number(args.starts);
  const children: Child[] = [];
  const cleanup = async (): Promise<void> => {
    await Promise.all(children.map(stop));
  };
  process.once('SIGINT', () => void cleanup().then(() => process.exit(130)));
  if (args['start-only']) return startUp(starts);
  try {
    const reference = await spawnUntilReady([here, '--serve', 'reference']);
    children.push(reference);
    const bare = await spawnUntilReady([here, '--serve', 'bare']);
    children.push(bare);
    const targets = [
      { label: 'reference', url: reference.line },
      { label: 'bare node:http', url: bare.line },
    ];
    for (const tg of targets) {
      const res = await fetch(`${tg.url}${SC_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(storageClass('bench')),
      });
      if (res.status !== 201) throw new Error(`${tg.label}: seeding failed with ${res.status}`);
    }

    const ops = [
      { label: 'GET storageclass', expect: 200, make: () => ({ method: 'GET' as const, path: `${SC_PATH}/bench` }) },
      {
        label: 'POST storageclass',
        expect: 201,
        make: () => ({ method: 'POST' as const, path: SC_PATH, body: JSON.stringify({ ...storageClass(''), metadata: { generateName: 'b-' } }) }),
      },
    ];
    const rows: string[][] = [];
    for (const op of ops) {
      // Warm up (JIT, connections) before measuring.
      for (const tg of targets) await load(tg.url, op.make, op.expect, { ...opts, requests: Math.min(2000, opts.requests), maxMs: 5000 });
      // Rounds alternate between the two servers, so that a slow moment of the machine falls on
      // both alike; each server's figures are those of its median round.
      const rounds: LoadResult[][] = targets.map(() => []);
      for (let r = 0; r < Number(args.rounds); r++) {
        for (const [i, tg] of targets.entries()) rounds[i]!.push(await load(tg.url, op.make, op.expect, opts));
      }
      const [ref, base] = rounds.map((rs) => [...rs].sort((a, b) => a.rps - b.rps)[Math.floor(rs.length / 2)]!) as [LoadResult, LoadResult];
      rows.push([
        op.label,
        fmt(ref.rps),
        fmt(base.rps),
        `${((ref.rps / base.rps) * 100).toFixed(0)}%`,
        `${ref.p50.toFixed(2)} / ${ref.p99.toFixed(2)}`,
        `${base.p50.toFixed(2)} / ${base.p99.toFixed(2)}`,
        `${ref.done}/${base.done}` + (ref.failures + base.failures ? ` (${ref.failures + base.failures} failed)` : ''),
      ]);
    }
    await cleanup();
    children.length = 0;

    console.log(`\nAPI throughput (${opts.connections} connections, up to ${opts.requests} requests or ${opts.maxMs / 1000}s a round, median of ${args.rounds} alternating rounds, loopback; aim: GET >= 60%, POST >= 30% of bare)\n`);
    printTable(['operation', 'reference req/s', 'bare node:http req/s', 'ref/bare', 'ref p50/p99 ms', 'bare p50/p99 ms', 'requests'], rows);
    await startUp(starts);
  } finally {
    await cleanup();
  }
}

/** GET /version over http or https (trusting `caPem`), resolving once the whole answer is in. */
function getVersion(base: string, caPem?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL('/version', base);
    const done = (res: import('node:http').IncomingMessage) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    };
    const req = url.protocol === 'https:' ? httpsGet(url, { ca: caPem, agent: false }, done) : httpGet(url, { agent: false }, done);
    req.on('error', reject);
  });
}

/**
 * Milliseconds from spawning `nodeArgs` to a 200 on /version from the URL it prints on a line
 * `api: <url>` (with its CA file on an earlier `ca: <file>` line, or the PEM as JSON on `caPem: ...`).
 */
async function timeToVersion(nodeArgs: string[]): Promise<number> {
  const started = process.hrtime.bigint();
  const proc = spawn(process.execPath, nodeArgs, { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const out = await new Promise<string>((resolve, reject) => {
      let text = '';
      const timer = setTimeout(() => reject(new Error(`no api: line within 30s from node ${nodeArgs.join(' ')}`)), 30_000);
      proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`node ${nodeArgs.join(' ')} exited (${code}) before it was ready`)); });
      proc.stdout!.on('data', (c: Buffer) => {
        text += c.toString();
        if (/^api: \S+$/m.test(text)) {
          clearTimeout(timer);
          resolve(text);
        }
      });
    });
    const url = /^api: (\S+)$/m.exec(out)![1]!;
    const caFile = /^ca: (\S+)$/m.exec(out)?.[1];
    const caJson = /^caPem: (.+)$/m.exec(out)?.[1];
    const status = await getVersion(url, caFile ? readFileSync(caFile, 'utf8') : caJson ? JSON.parse(caJson) : undefined);
    if (status !== 200) throw new Error(`GET ${url}/version: ${status}`);
    return Number(process.hrtime.bigint() - started) / 1e6;
  } finally {
    proc.removeAllListeners('exit');
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    await exited;
  }
}

/** Start-up to a served /version, each way `starts` times, interleaved so that machine load hits all alike. */
async function startUp(starts: number): Promise<void> {
  const reference = (tls: boolean) => `import { startReference } from ${JSON.stringify(serverModule)}; const r = await startReference({ port: 0${tls ? ", tls: 'self-signed'" : ''} }); console.log((r.caPem ? 'caPem: ' + JSON.stringify(r.caPem) + '\\n' : '') + 'api: ' + r.url); process.once('SIGTERM', () => r.close());`;
  const ways: Array<[string, string[]]> = [
    ['serve (HTTPS, CA and key generated)', [BIN, 'serve', '--api-port', '0']],
    ['serve --plain-http', [BIN, 'serve', '--api-port', '0', '--plain-http']],
    ["startReference({ tls: 'self-signed' })", ['--input-type=module', '-e', reference(true)]],
    ['startReference() (plain HTTP)', ['--input-type=module', '-e', reference(false)]],
  ];
  const ms = ways.map(() => [] as number[]);
  const baseline: number[] = [];
  for (let i = 0; i < starts; i++) {
    for (const [w, [, argv]] of ways.entries()) ms[w]!.push(await timeToVersion(argv));
    const b = await spawnUntilReady(['--input-type=module', '-e', "console.log('READY')"]);
    baseline.push(b.ms);
    await waitExit(b);
  }
  console.log(`\nStart-up: spawn -> first 200 on /version, ${starts} runs (budget: 300 ms for serve)\n`);
  const row = (label: string, xs: number[]) => [label, median(xs).toFixed(0), Math.min(...xs).toFixed(0), Math.max(...xs).toFixed(0)];
  printTable(['', 'median ms', 'min ms', 'max ms'], [...ways.map(([label], w) => row(label, ms[w]!)), row('node -e (baseline, to its first line)', baseline)]);
  console.log('');
}

function waitExit(child: Child): Promise<void> {
  return new Promise((resolve) => {
    if (child.proc.exitCode !== null) return resolve();
    child.proc.once('exit', () => resolve());
  });
}



if (args.serve === 'reference') await serveReference();
else if (args.serve === 'bare') await serveBare();
else if (args.serve !== undefined) throw new Error(`--serve must be reference or bare, not ${args.serve}`);
else await drive();
