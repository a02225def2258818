// Container checkpoint latency (issue 12, spec 001 §4.1): the reference API server with token
// authentication, the mock CRI runtime and the reference agent, one pod running on the node; then N
// checkpoints of its container through the agent's HTTPS endpoint (POST /checkpoint/default/<pod>/c,
// with the bearer token the agent reviews through the API, answers cached as upstream caches them),
// one after another on a keep-alive connection. Baseline, in the same run: N CheckpointContainer calls
// straight to the same mock with criClient, for the same container, into a directory of its own. The
// gap is the agent's share: authentication and authorization, the pod and container lookup (a
// ListContainers), the archive's directory and mode.
//
//   node dist/bench/checkpoint.js [--count 200] [--deadline-seconds 60]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent as HttpsAgent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { criClient } from '../cri/proto.js';
import { startMockCri } from '../mocks/cri/server.js';
import { ApiClient } from '../reference/client/api-client.js';
import { startAgent } from '../reference/agent/agent.js';
import { startReference } from '../reference/server.js';
import { positiveInt, printTable, quantile } from './report.js';

const { values: args } = parseArgs({ options: { count: { type: 'string', default: '200' }, 'deadline-seconds': { type: 'string', default: '60' } } });


const COUNT = positiveInt('checkpoint', 'count', args.count!);
const DEADLINE_MS = positiveInt('checkpoint', 'deadline-seconds', args['deadline-seconds']!) * 1000;
const TOKEN = 'bench-checkpoint-token';
const NODE = 'bench-ckpt-node';

async function timed(n: number, what: string, deadline: number, one: () => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    if (Date.now() > deadline) throw new Error(`${what}: only ${i} of ${n} within the deadline`);
    const t0 = process.hrtime.bigint();
    await one();
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return out;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-ckpt-'));
  const closers: Array<() => Promise<unknown> | void> = [];
  let failed = false;
  try {
    const ref = await startReference({ port: 0, auth: { tokens: [{ token: TOKEN, user: 'bench', groups: ['system:masters'] }], authorizationMode: 'RBAC' } });
    closers.push(() => ref.close());
    const cri = await startMockCri({ socket: join(dir, 'cri', 'cri.sock'), root: join(dir, 'cri-state') });
    closers.push(() => cri.close());
    const agent = await startAgent({
      api: { url: ref.url, token: TOKEN }, criEndpoint: cri.criUrl, nodeName: NODE, rootDir: join(dir, 'root'), relistPeriodMs: 200,
      serve: { address: '127.0.0.1', port: 0 }, log: () => undefined,
    });
    closers.push(() => agent.close());
    const api = new ApiClient({ url: ref.url, token: TOKEN });
    closers.push(() => api.close());

    await api.create('/api/v1/namespaces/default/pods', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bench-ckpt', namespace: 'default' },
      spec: { nodeName: NODE, terminationGracePeriodSeconds: 1, containers: [{ name: 'c', image: 'busybox:1.36', command: ['sleep', '3600'] }] },
    });
    const deadline = Date.now() + DEADLINE_MS;
    let containerId: string | undefined;
    while (!containerId) {
      if (Date.now() > deadline) throw new Error('the pod did not run within the deadline');
      const p = await api.get('/api/v1/namespaces/default/pods/bench-ckpt');
      const s = p.status?.containerStatuses?.[0];
      if (s?.state?.running) containerId = String(s.containerID).replace(/^[^:]+:\/\//, '');
      else await new Promise((r) => setTimeout(r, 50));
    }

    const ca = readFileSync(agent.caFile!, 'utf8');
    const keepAlive = new HttpsAgent({ keepAlive: true, maxSockets: 1, ca });
    closers.push(() => keepAlive.destroy());
    const viaAgent = () => new Promise<void>((resolve, reject) => {
      const req = request(`${agent.url}/checkpoint/default/bench-ckpt/c`, { method: 'POST', agent: keepAlive, headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`POST /checkpoint answered ${res.statusCode}: ${body.slice(0, 300)}`))));
      });
      req.on('error', reject);
      req.end();
    });
    const direct = criClient(cri.criUrl);
    closers.push(() => direct.close());
    const directDir = mkdtempSync(join(dir, 'direct-'));
    let n = 0;
    const viaCri = () => direct.call('CheckpointContainer', { container_id: containerId, location: join(directDir, `checkpoint-${n++}.tar`), timeout: '0' }, { deadlineMs: 30_000 }).then(() => undefined);

    // Warm-up: connections, the review caches, the JIT.
    await timed(10, 'warm-up through the agent', deadline, viaAgent);
    await timed(10, 'warm-up direct', deadline, viaCri);
    const agentMs = await timed(COUNT, 'checkpoints through the agent', deadline, viaAgent);
    const criMs = await timed(COUNT, 'direct CheckpointContainer calls', deadline, viaCri);

    const ms = (x: number) => `${x.toFixed(2)} ms`;
    console.log(`\nContainer checkpoint latency, ${COUNT} sequential checkpoints of one running container (mock CRI)\n`);
    const p50a = quantile(agentMs, 0.5);
    const p95a = quantile(agentMs, 0.95);
    const p50c = quantile(criMs, 0.5);
    const p95c = quantile(criMs, 0.95);
    printTable(['', 'p50', 'p95', 'max'], [
      ['CheckpointContainer straight to the mock (baseline)', ms(p50c), ms(p95c), ms(Math.max(...criMs))],
      ['POST /checkpoint through the agent', ms(p50a), ms(p95a), ms(Math.max(...agentMs))],
    ]);
    console.log(`\nRatio agent / direct: p50 ${(p50a / p50c).toFixed(2)}x, p95 ${(p95a / p95c).toFixed(2)}x\n`);
  } catch (err) {
    failed = true;
    console.error(`bench/checkpoint: ${(err as Error).message}`);
  } finally {
    for (const c of closers.reverse()) await Promise.resolve(c()).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
  if (failed) process.exit(1);
}

await main();
