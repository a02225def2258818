// The reference on etcd (issue 15): create throughput through `serve --storage etcd` next to raw etcd
// puts from the same number of concurrent clients on the same private etcd, measured in the same run
// (aim: >= 50% of raw), and the time to list 10,000 objects paged by 500 (aim: <= 1 s), on etcd and
// on the memory storage for comparison.
//
//   node dist/bench/etcd.js [--requests 5000] [--connections 32] [--objects 10000] [--page 500]
//
// Needs /usr/bin/etcd (Debian's etcd-server): without it the script says so and exits 0, so that
// `npm run bench` still prints the rest. Each reference runs in its own child process.
import { randomBytes } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { etcdUnavailable, startEtcd } from '../test/helpers/etcd.js';
import { fmt, load, spawnUntilReady, stop, type Child } from './load.js';
import { positiveInt, printTable } from './report.js';

const SC_PATH = '/apis/storage.orch.io/v1/storageclasses';
const here = fileURLToPath(import.meta.url);
const serverModule = pathToFileURL(fileURLToPath(new URL('../reference/server.js', import.meta.url))).href;

const { values: args } = parseArgs({
  options: {
    serve: { type: 'string' },
    servers: { type: 'string' },
    requests: { type: 'string', default: '5000' },
    connections: { type: 'string', default: '32' },
    objects: { type: 'string', default: '10000' },
    page: { type: 'string', default: '500' },
  },
});

const storageClass = (generateName: string): string =>
  JSON.stringify({ apiVersion: 'storage.orch.io/v1', kind: 'StorageClass', metadata: { generateName }, provisioner: 'example.orch.io/bench', parameters: { type: 'ssd' } });

/** Child mode: the reference as `serve` runs it (controller manager and scheduler in-process), on the storage asked for. */
async function serveReference(storage: 'memory' | 'etcd', servers: string | undefined): Promise<void> {
  const { startReference } = (await import(serverModule)) as typeof import('../reference/server.js');
  const ref = await startReference({ host: '127.0.0.1', port: 0, storage, ...(servers ? { etcd: { servers: servers.split(',') } } : {}) });
  process.stdout.write(`READY ${ref.url}\n`);
  process.once('SIGTERM', () => void ref.close().then(() => process.exit(0)));
}

/** Raw puts of values the size of a stored StorageClass, `connections` at a time, through one etcd3 client. */
async function rawPuts(servers: string[], requests: number, connections: number): Promise<number> {
  const { Etcd3 } = await import('etcd3');
  const client = new Etcd3({ hosts: servers });
  try {
    const value = randomBytes(300).toString('base64');
    await client.put('/bench/warm').value(value);
    let issued = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (issued < requests) await client.put(`/bench/raw/${issued++}`).value(value);
      }),
    );
    return requests / ((performance.now() - started) / 1000);
  } finally {
    client.close();
  }
}

/** Creates objects through the API until there are `n`, then times listing them all in pages of `page`. */
async function listTime(url: string, n: number, page: number, connections: number): Promise<{ ms: number; items: number; pages: number }> {
  const pool = new Pool(url, { connections: 1 });
  try {
    const counted = await pool.request({ method: 'GET', path: SC_PATH });
    const existing = ((await counted.body.json()) as { items: unknown[] }).items.length;
    if (existing < n) await load(url, () => ({ method: 'POST', path: SC_PATH, body: storageClass('list-') }), 201, { requests: n - existing, connections, maxMs: 600_000 });
    const started = performance.now();
    let items = 0;
    let pages = 0;
    let cont = '';
    do {
      const res = await pool.request({ method: 'GET', path: `${SC_PATH}?limit=${page}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}` });
      const body = (await res.body.json()) as { items: unknown[]; metadata: { continue?: string } };
      if (res.statusCode !== 200) throw new Error(`list answered ${res.statusCode}`);
      items += body.items.length;
      pages++;
      cont = body.metadata.continue ?? '';
    } while (cont);
    return { ms: performance.now() - started, items, pages };
  } finally {
    await pool.close();
  }
}

async function drive(): Promise<void> {
  const why = etcdUnavailable();
  if (why) {
    console.log(`\netcd storage: skipped, ${why}`);
    return;
  }
  const requests = positiveInt('etcd', 'requests', args.requests!);
  const connections = positiveInt('etcd', 'connections', args.connections!);
  const objects = positiveInt('etcd', 'objects', args.objects!);
  const page = positiveInt('etcd', 'page', args.page!);
  const teardown: Array<() => unknown> = [];
  const children: Child[] = [];
  try {
    const etcd = await startEtcd({ teardown: (fn) => void teardown.push(fn) });
    const raw = await rawPuts(etcd.clientUrls, requests, connections);

    const onEtcd = await spawnUntilReady([here, '--serve', 'etcd', '--servers', etcd.clientUrls.join(',')]);
    children.push(onEtcd);
    const onMemory = await spawnUntilReady([here, '--serve', 'memory']);
    children.push(onMemory);
    const make = () => ({ method: 'POST' as const, path: SC_PATH, body: storageClass('b-') });
    // Warm up (JIT, connections, etcd's first writes) before measuring.
    await load(onEtcd.line, make, 201, { requests: Math.min(1000, requests), connections, maxMs: 10_000 });
    const created = await load(onEtcd.line, make, 201, { requests, connections, maxMs: 60_000 });

    console.log(`\nCreate throughput on etcd (${connections} concurrent clients, ${requests} requests, one private etcd member on loopback; aim >= 50% of raw)\n`);
    printTable(
      ['operation', 'req/s', 'p50/p99 ms', 'of raw etcd put'],
      [
        ['raw etcd put (etcd3 client)', fmt(raw), '-', '100%'],
        ['POST storageclass, serve --storage etcd', fmt(created.rps), `${created.p50.toFixed(2)} / ${created.p99.toFixed(2)}`, `${((created.rps / raw) * 100).toFixed(0)}%`],
      ],
    );
    if (created.failures) console.log(`(${created.failures} creates failed)`);

    const rows: string[][] = [];
    for (const [label, child] of [['etcd', onEtcd], ['memory', onMemory]] as const) {
      const l = await listTime(child.line, objects, page, connections);
      rows.push([label, String(l.items), String(l.pages), fmt(l.ms)]);
    }
    console.log(`\nList of ${objects} StorageClasses paged by ${page} (limit/continue), one client; aim <= 1,000 ms on etcd\n`);
    printTable(['storage', 'items', 'pages', 'ms'], rows);
  } finally {
    await Promise.all(children.map(stop));
    for (const fn of teardown.reverse()) await fn();
  }
}

if (args.serve === 'etcd' || args.serve === 'memory') await serveReference(args.serve, args.servers);
else await drive();
