// Throughput and latency of the mock CRI runtime (mocks/cri/), next to a bare @grpc/grpc-js server
// of the same runtime.v1 services answering Version with a fixed message: the ratio says what the
// mock's own work costs over gRPC's. Each server runs in its own child process (one core each; the
// load generator has the parent), on a unix socket in a private temporary directory.
//
//   node dist/bench/cri.js [--pods 100] [--containers 3] [--calls 20000] [--concurrency 32] [--starts 200]
//
// Figures: RPCs per second of Version (mock and bare), ListContainers (all pods x containers in one
// answer), ContainerStatus (a random container each call), both per second of wall time and per
// second of the server's own CPU time (what one core of it can serve, whatever the client costs);
// CreateContainer+StartContainer latency; Version again from Node's http2 client sending the socket
// path as `:authority`, as grpc-go clients of some releases do (cri/authority.ts re-encodes every header
// block of such a connection; grpc-js's `localhost` passes as it came).
// `--serve mock|bare --socket <path>` is the child mode.
import { spawn, type ChildProcess } from 'node:child_process';
import http2 from 'node:http2';
import { connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { criClient, loadCri, unixTarget, type CriClient } from '../cri/proto.js';
import { startMockCri } from '../mocks/cri/server.js';
import { printTable, quantile } from './report.js';

const { values: args } = parseArgs({
  options: {
    serve: { type: 'string' },
    socket: { type: 'string' },
    pods: { type: 'string', default: '100' },
    containers: { type: 'string', default: '3' },
    calls: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '32' },
    starts: { type: 'string', default: '200' },
  },
});

/** Child mode: serve until the parent closes our stdin. */
async function serve(kind: string, socket: string): Promise<void> {
  let close: () => Promise<void>;
  if (kind === 'mock') {
    const cri = await startMockCri({ socket, pullDelayMs: 0 });
    close = () => cri.close();
  } else {
    // The same services, every rpc UNIMPLEMENTED except Version, which answers a fixed message.
    const defs = loadCri();
    const server = new grpc.Server();
    const version = { version: '0.1.0', runtime_name: 'bare', runtime_version: '0', runtime_api_version: 'v1' };
    server.addService(defs.RuntimeService.service, { Version: (_call: unknown, cb: grpc.sendUnaryData<unknown>) => cb(null, version) });
    await new Promise<void>((resolve, reject) => server.bindAsync(unixTarget(socket), grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
    close = () => new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  }
  process.stdout.write('READY\n');
  // Each line on stdin asks for the CPU time this process has used so far (microseconds).
  process.stdin.on('data', () => {
    const { user, system } = process.cpuUsage();
    process.stdout.write(`CPU ${user + system}\n`);
  });
  process.stdin.on('end', () => void close().then(() => process.exit(0)));
}

/** The child's CPU time so far, in seconds. */
function cpuSeconds(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onData = (b: Buffer) => {
      const m = /CPU (\d+)/.exec(b.toString());
      if (!m) return;
      child.stdout!.off('data', onData);
      resolve(Number(m[1]) / 1e6);
    };
    child.stdout!.on('data', onData);
    child.stdin!.write('cpu\n');
  });
}

interface Figure { perSecond: number; perCoreSecond: number }

/** Calls per second of wall time, and per second of the server's own CPU time (its capacity on one core). */
async function measure(server: ChildProcess, total: number, concurrency: number, make: () => Promise<unknown>): Promise<Figure> {
  const cpu0 = await cpuSeconds(server);
  const perSecond = await throughput(total, concurrency, make);
  const cpu = (await cpuSeconds(server)) - cpu0;
  return { perSecond, perCoreSecond: total / cpu };
}

function startChild(kind: string, socket: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', kind, '--socket', socket], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${kind} server not ready within 20 s`)), 20_000);
    child.once('exit', (code) => reject(new Error(`${kind} server exited (${code}) before it was ready`)));
    child.stdout!.on('data', (b: Buffer) => {
      if (b.toString().includes('READY')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
  });
}

/** `total` calls of `make()` with `concurrency` in flight; calls per second. */
async function throughput(total: number, concurrency: number, make: () => Promise<unknown>): Promise<number> {
  let started = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (started < total) {
      started++;
      await make();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return total / ((performance.now() - t0) / 1000);
}


/** Version over Node's http2 with `authority`: gRPC framing by hand (an empty request is 5 bytes). */
function pathAuthorityVersion(socket: string, authority: string): { call(): Promise<void>; close(): void } {
  const session = http2.connect('http://localhost', { createConnection: () => connect(socket) });
  const headers = {
    ':method': 'POST', ':scheme': 'http', ':path': '/runtime.v1.RuntimeService/Version', ':authority': authority,
    'content-type': 'application/grpc', te: 'trailers',
  };
  const empty = Buffer.alloc(5);
  return {
    call: () => new Promise<void>((resolve, reject) => {
      const req = session.request(headers);
      let status: string | undefined;
      req.on('trailers', (h) => { status = String(h['grpc-status']); });
      req.on('data', () => {});
      req.on('error', reject);
      req.on('close', () => (status === '0' ? resolve() : reject(new Error(`Version through :authority ${authority}: grpc-status ${status}, rst ${req.rstCode}`))));
      req.end(empty);
    }),
    close: () => session.close(),
  };
}

async function populate(cri: CriClient, pods: number, perPod: number, logDir: string): Promise<string[]> {
  const ids: string[] = [];
  for (let p = 0; p < pods; p++) {
    const sandboxConfig = { metadata: { name: `pod-${p}`, uid: `uid-${p}`, namespace: 'bench', attempt: 0 }, log_directory: join(logDir, `pod-${p}`), labels: { app: 'bench' } };
    const { pod_sandbox_id } = await cri.call('RunPodSandbox', { config: sandboxConfig });
    for (let c = 0; c < perPod; c++) {
      const config = { metadata: { name: `c${c}`, attempt: 0 }, image: { image: 'busybox' }, command: ['sleep', '3600'], log_path: `c${c}.log` };
      const { container_id } = await cri.call('CreateContainer', { pod_sandbox_id, config, sandbox_config: sandboxConfig });
      await cri.call('StartContainer', { container_id });
      ids.push(container_id);
    }
  }
  return ids;
}

async function main(): Promise<void> {
  if (args.serve) return serve(args.serve, args.socket!);
  const pods = Number(args.pods);
  const perPod = Number(args.containers);
  const calls = Number(args.calls);
  const concurrency = Number(args.concurrency);
  const starts = Number(args.starts);
  const dir = mkdtempSync(join(tmpdir(), 'bench-cri-'));
  const children: ChildProcess[] = [];
  try {
    const [mockChild, bareChild] = await Promise.all([startChild('mock', join(dir, 'mock.sock')), startChild('bare', join(dir, 'bare.sock'))]);
    children.push(mockChild, bareChild);
    const mock = criClient(join(dir, 'mock.sock'));
    const bare = criClient(join(dir, 'bare.sock'));
    const ids = await populate(mock, pods, perPod, join(dir, 'logs'));
    // Warm-up: connections, JIT.
    await throughput(2000, concurrency, () => mock.call('Version', {}));
    await throughput(2000, concurrency, () => bare.call('Version', {}));

    const bareVersion = await measure(bareChild, calls, concurrency, () => bare.call('Version', {}));
    const mockVersion = await measure(mockChild, calls, concurrency, () => mock.call('Version', {}));
    let i = 0;
    const status = await measure(mockChild, calls, concurrency, () => mock.call('ContainerStatus', { container_id: ids[i++ % ids.length] }));
    const listCalls = Math.max(200, Math.floor(calls / 20));
    const list = await measure(mockChild, listCalls, concurrency, () => mock.call('ListContainers', {}));
    const listed = (await mock.call<{ containers: unknown[] }>('ListContainers', {})).containers.length;
    const pathClient = pathAuthorityVersion(join(dir, 'mock.sock'), join(dir, 'mock.sock'));
    await throughput(2000, concurrency, () => pathClient.call());
    const pathVersion = await measure(mockChild, calls, concurrency, () => pathClient.call());
    pathClient.close();

    // CreateContainer + StartContainer, one after the other, in a sandbox of its own.
    const sandboxConfig = { metadata: { name: 'latency', uid: 'uid-latency', namespace: 'bench', attempt: 0 }, log_directory: join(dir, 'logs', 'latency') };
    const { pod_sandbox_id } = await mock.call('RunPodSandbox', { config: sandboxConfig });
    const latencies: number[] = [];
    for (let n = 0; n < starts; n++) {
      const config = { metadata: { name: `l${n}`, attempt: 0 }, image: { image: 'busybox' }, command: ['sleep', '3600'], log_path: `l${n}.log` };
      const t0 = performance.now();
      const { container_id } = await mock.call('CreateContainer', { pod_sandbox_id, config, sandbox_config: sandboxConfig });
      await mock.call('StartContainer', { container_id });
      latencies.push(performance.now() - t0);
    }
    mock.close();
    bare.close();

    const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
    const row = (label: string, f: Figure) => [label, fmt(f.perSecond), fmt(f.perCoreSecond), (f.perCoreSecond / bareVersion.perCoreSecond).toFixed(2)];
    console.log(`\nMock CRI: ${pods} pods x ${perPod} containers, ${calls} calls, ${concurrency} in flight, servers in child processes on unix sockets`);
    console.log('RPCs/s: with this one client (it shares the machine with the server); per server CPU s: calls / CPU time the server used, its capacity on one core\n');
    printTable(['', 'RPCs/s', 'per server CPU s', 'vs baseline'], [
      row('Version, bare grpc-js server (baseline)', bareVersion),
      row('Version, mock', mockVersion),
      row(`ContainerStatus, mock (${ids.length} containers)`, status),
      row(`ListContainers, mock (${listed} containers per answer)`, list),
      row('Version, mock, socket path as :authority (Node http2)', pathVersion),
    ]);
    console.log(`\nCreateContainer+StartContainer, ${starts} in sequence: median ${quantile(latencies, 0.5).toFixed(2)} ms, p95 ${quantile(latencies, 0.95).toFixed(2)} ms, max ${Math.max(...latencies).toFixed(2)} ms`);
    const simple = Math.min(mockVersion.perCoreSecond, status.perCoreSecond, pathVersion.perCoreSecond);
    console.log(`Aim: >= 5,000 simple RPCs/s on one core (Version, ContainerStatus, Version with a path :authority per server CPU second): ${simple >= 5000 ? 'met' : 'NOT met'} (${fmt(simple)})\n`);
  } finally {
    for (const c of children) c.stdin?.end();
    await Promise.all(children.map((c) => new Promise<void>((resolve) => (c.exitCode !== null ? resolve() : c.once('exit', () => resolve())))));
    rmSync(dir, { recursive: true, force: true });
  }
}


await main();
