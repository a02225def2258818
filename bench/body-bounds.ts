// The worst request bodies under the byte limit (test/reference/hostile-bodies.ts) against the
// reference API server (issue 14): for each, sent as a create in its own format and as a
// server-side apply, the time to the whole answer and the heap it took; and the latency of /healthz,
// asked for without pause while they are sent, next to /healthz on the idle server and to a valid
// body, measured in the same run. Budget for every body: answered within 100 ms, with at most 50 MB
// of extra heap.
//
//   node --expose-gc dist/bench/body-bounds.js [--rounds 3]
//
// The server runs in this process, so that its heap is the one measured: heapUsed after a full GC
// before a first request, and as the answer arrives, before any further full GC (what the request
// left behind counts, as it was part of its peak); the times are those of the rounds after it.
// Without --expose-gc the heap figures include earlier garbage.
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { startReference } from '../reference/server.js';
import { yaml } from '../reference/packages.js';
import { hostileBodies, PODS, SC, type HostileBody } from '../test/reference/hostile-bodies.js';
import { positiveInt, printTable, quantile } from './report.js';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '3' } } });
const ROUNDS = positiveInt('body-bounds', 'rounds', args.rounds!);
const BUDGET_MS = 100;
const BUDGET_MB = 50;

const NAME = 'bench';
const VALID: HostileBody[] = [
  {
    label: 'valid StorageClass (baseline)',
    collection: SC,
    name: NAME,
    format: 'json',
    text: JSON.stringify({ apiVersion: 'storage.orch.io/v1', kind: 'StorageClass', metadata: { name: NAME }, provisioner: 'example.orch.io/fast', parameters: { type: 'ssd' } }),
  },
  {
    label: 'valid StorageClass, YAML (baseline)',
    collection: SC,
    name: NAME,
    format: 'yaml',
    text: `apiVersion: storage.orch.io/v1\nkind: StorageClass\nmetadata:\n  name: ${NAME}\nprovisioner: example.orch.io/fast\nparameters:\n  type: ssd\n`,
  },
];

/** A bulky legitimate pod: 20 containers of 20 variables. */
const bulkyPod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `${NAME}-bulky` },
  spec: {
    containers: Array.from({ length: 20 }, (_, i) => ({
      name: `c${i}`,
      image: 'registry.orch.io/app:1.0',
      env: Array.from({ length: 20 }, (_, j) => ({ name: `VAR_${j}`, value: `value-${j}` })),
    })),
  },
};
VALID.push(
  { label: 'bulky pod, 20 containers x 20 env', collection: PODS, name: bulkyPod.metadata.name, format: 'json', text: JSON.stringify(bulkyPod) },
  { label: 'bulky pod, YAML', collection: PODS, name: bulkyPod.metadata.name, format: 'yaml', text: yaml().stringify(bulkyPod) },
);

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

async function main(): Promise<void> {
  const ref = await startReference({ host: '127.0.0.1', port: 0, controllerManager: false, scheduler: false });
  const bodies = new Pool(ref.url, { connections: 1 });
  const probes = new Pool(ref.url, { connections: 1 });
  try {
    const send = async (method: 'POST' | 'PATCH', path: string, contentType: string, body?: string): Promise<number> => {
      const res = await bodies.request({ method, path, body, headers: { 'content-type': contentType } });
      await res.body.text();
      return res.statusCode;
    };
    if ((await send('POST', SC, 'application/json', VALID[0]!.text)) !== 201) throw new Error('could not create the StorageClass the bodies name');

    // /healthz one after another until stopped: idle first, then while the bodies are sent.
    const healthz = (): { stop: () => Promise<number[]> } => {
      const latencies: number[] = [];
      let running = true;
      const loop = (async () => {
        while (running) {
          const t0 = performance.now();
          const res = await probes.request({ method: 'GET', path: '/healthz' });
          await res.body.text();
          latencies.push(performance.now() - t0);
        }
      })();
      return { stop: async () => ((running = false), await loop, latencies) };
    };
    const idleProbe = healthz();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const idle = await idleProbe.stop();

    const requests = [...VALID, ...hostileBodies(NAME)].flatMap((body) => [
      { body, way: 'create', method: 'POST' as const, path: body.collection, contentType: body.format === 'json' ? 'application/json' : 'application/yaml' },
      { body, way: 'apply', method: 'PATCH' as const, path: `${body.collection}/${body.name}?fieldManager=bench`, contentType: 'application/apply-patch+yaml' },
    ]);
    const results = requests.map(() => ({ heap: 0, ms: [] as number[], statuses: new Set<number>() }));
    // The heap, each request once from a full GC; then, in a second pass, the times, with /healthz
    // asked meanwhile (a forced full GC takes its own time, and slows the next request down, up
    // to twice, by what it throws away).
    for (const [i, r] of requests.entries()) {
      gc();
      const before = process.memoryUsage().heapUsed;
      results[i]!.statuses.add(await send(r.method, r.path, r.contentType, r.body.text));
      results[i]!.heap = process.memoryUsage().heapUsed - before;
    }
    const busyProbe = healthz();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, r] of requests.entries()) {
        const t0 = performance.now();
        results[i]!.statuses.add(await send(r.method, r.path, r.contentType, r.body.text));
        results[i]!.ms.push(performance.now() - t0);
      }
    }
    const busy = await busyProbe.stop();
    const baselineMs = quantile(results[0]!.ms, 0.5);
    let failures = 0;
    const rows = requests.map((r, i) => {
      const { heap, ms, statuses } = results[i]!;
      const ok = Math.max(...ms) <= BUDGET_MS && heap <= BUDGET_MB * 1024 * 1024 && ![...statuses].some((s) => s >= 500);
      if (!ok) failures++;
      return [
        `${r.body.label} (${(r.body.text.length / 1024).toFixed(0)} KiB)`,
        r.way,
        [...statuses].join(','),
        quantile(ms, 0.5).toFixed(1),
        Math.max(...ms).toFixed(1),
        `${(quantile(ms, 0.5) / baselineMs).toFixed(0)}x`,
        mb(heap),
        ok ? 'yes' : 'NO',
      ];
    });

    console.log(`\nRequest bodies (heap: a first pass; times: ${ROUNDS} more${(globalThis as { gc?: unknown }).gc ? '' : ', no --expose-gc: heap includes earlier garbage'}; budget ${BUDGET_MS} ms, ${BUDGET_MB} MB)\n`);
    printTable(['body', 'sent as', 'status', 'p50 ms', 'max ms', 'p50/valid', 'heap MB', 'in budget'], rows);
    console.log(`\n/healthz, one request after another: idle for 2 s, then while the bodies above were sent (${ROUNDS} rounds)\n`);
    const row = (label: string, xs: number[]): string[] => [label, String(xs.length), quantile(xs, 0.5).toFixed(2), quantile(xs, 0.99).toFixed(2), Math.max(...xs).toFixed(2)];
    printTable(['', 'requests', 'p50 ms', 'p99 ms', 'max ms'], [row('idle', idle), row('during the bodies', busy)]);
    console.log(`\nratio during/idle: p50 ${(quantile(busy, 0.5) / quantile(idle, 0.5)).toFixed(1)}x, p99 ${(quantile(busy, 0.99) / quantile(idle, 0.99)).toFixed(1)}x; /healthz worst ${Math.max(...busy).toFixed(1)} ms (budget ${BUDGET_MS} ms)`);
    console.log(`${failures ? `${failures} row(s) out of budget` : 'every body within budget'}\n`);
  } finally {
    await bodies.close();
    await probes.close();
    await ref.close();
  }
}

await main();
