// Two `serve --storage etcd` processes on one real etcd (Debian's etcd-server) answer as one API
// server: what one writes the other reads, lists (a continue token of one works on the other) and
// watches (from a resourceVersion of the first); read-modify-write through both loses no update; a
// `kill -9` of a server loses no acknowledged write; readiness follows etcd. Also the flag errors of
// --storage etcd.
import t from 'tap';
import { execa, execaNode } from 'execa';
import { BIN, startServe, type StartedServe } from './helpers/serve.js';
import { etcdUnavailable, startEtcd } from './helpers/etcd.js';
import { freePort } from '../runner/agent-exec.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { certificatePem, issue } from '../reference/certificate.js';

// ResourceQuotas: a namespaced core kind with a small spec, and no controller running to change them.
const CM = '/api/v1/namespaces/default/resourcequotas';
const REQUEST_MS = 15_000;

async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(base + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_MS),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

function quota(name: string, pods = '10'): unknown {
  return { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard: { pods } } };
}

t.test('flag errors of --storage etcd exit 2 with a clear message', async (t) => {
  const cases: Array<[string[], RegExp]> = [
    [['--storage', 'etcd'], /--storage etcd needs --etcd-servers/],
    [['--storage', 'etcd', '--etcd-servers', 'not a url'], /--etcd-servers not a url: want a client URL/],
    [['--storage', 'memory', '--etcd-servers', 'http://127.0.0.1:2379'], /--etcd-servers needs --storage etcd/],
    [['--storage', 'disk'], /--storage disk: want memory or etcd/],
    [['--storage', 'etcd', '--etcd-servers', 'http://127.0.0.1:2379', '--etcd-certfile', '/nonexistent'], /--etcd-certfile and --etcd-keyfile go together/],
  ];
  for (const [args, message] of cases) {
    const r = await execaNode(BIN, ['serve', '--plain-http', '--api-port', '0', ...args], { reject: false, timeout: 30_000 });
    t.equal(r.exitCode, 2, `exit 2 for ${args.join(' ')}`);
    t.match(r.stderr, message);
  }
  // An etcd that does not answer is a refused start, not a server that fails every request.
  const port = await freePort();
  const r = await execaNode(BIN, ['serve', '--plain-http', '--api-port', '0', '--controllers', '', '--no-scheduler', '--storage', 'etcd', '--etcd-servers', `http://127.0.0.1:${port}`], { reject: false, timeout: 60_000 });
  t.equal(r.exitCode, 2, 'an unreachable etcd: exit 2');
  t.match(r.stderr, /etcd at http:\/\/127\.0\.0\.1:\d+ does not answer/);
});

t.test('the default memory storage loads no etcd client (etcd3, @grpc/proto-loader) at start', async (t) => {
  const server = new URL('../reference/server.js', import.meta.url).href;
  const script = `
    import { createRequire } from 'node:module';
    const { startReference } = await import(${JSON.stringify(server)});
    const ref = await startReference({ controllerManager: false, scheduler: false });
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => /node_modules\\/(etcd3|@grpc\\/proto-loader)\\//.test(k));
    await ref.close();
    console.log(JSON.stringify(loaded));
  `;
  const r = await execa(process.execPath, ['--input-type=module', '-e', script], { reject: false, timeout: 60_000 });
  t.equal(r.exitCode, 0, r.stderr);
  t.same(JSON.parse(r.stdout.trim().split('\n').pop() ?? 'null'), [], 'no etcd client module loaded');
});

const unavailable = etcdUnavailable();
if (unavailable) {
  t.test('two API servers on one etcd', { skip: unavailable }, async () => {});
} else {
  t.test('two API servers on one etcd', async (t) => {
    t.setTimeout(240_000);
    const etcd = await startEtcd(t);
    const args = ['--plain-http', '--controllers', '', '--no-scheduler', '--storage', 'etcd', '--etcd-servers', etcd.clientUrls.join(',')];
    // Started at once on the fresh etcd: both bootstraps write the initial namespaces, and the one
    // that finds another's already there takes it (issue 23; test/etcd-faults.test.ts runs 20 such
    // races in-process).
    const [a, b] = await Promise.all([startServe(t, args), startServe(t, args)]);

    await t.test('written through one, read, listed and continued through the other', async (t) => {
      const names = ['cm-a', 'cm-b', 'cm-c', 'cm-d', 'cm-e'];
      const created: Record<string, string> = {};
      for (const n of names) {
        const r = await call(a.url, 'POST', CM, quota(n));
        t.equal(r.status, 201, `create ${n} through A`);
        created[n] = r.body.metadata.resourceVersion;
      }
      const got = await call(b.url, 'GET', `${CM}/cm-c`);
      t.equal(got.status, 200);
      t.equal(got.body.metadata.resourceVersion, created['cm-c'], 'B reads the resourceVersion A answered');
      t.equal(got.body.spec.hard.pods, '10');

      const page1 = await call(b.url, 'GET', `${CM}?limit=2`);
      t.equal(page1.status, 200);
      t.same(page1.body.items.map((i: any) => i.metadata.name), ['cm-a', 'cm-b']);
      const token = page1.body.metadata.continue;
      t.ok(token, 'a continue token from B');
      // A write between the pages must not show: the chunks are one snapshot.
      t.equal((await call(a.url, 'POST', CM, quota('cm-bb'))).status, 201);
      const page2 = await call(a.url, 'GET', `${CM}?limit=10&continue=${encodeURIComponent(token)}`);
      t.equal(page2.status, 200, `B's continue token works on A: ${JSON.stringify(page2.body?.message ?? '')}`);
      t.same(page2.body.items.map((i: any) => i.metadata.name), ['cm-c', 'cm-d', 'cm-e'], 'the rest of the same snapshot');
      t.equal(page2.body.metadata.resourceVersion, page1.body.metadata.resourceVersion, 'one resourceVersion across the chunks');
    });

    await t.test('a watch on B from A\'s resourceVersion gets A\'s later writes', async (t) => {
      const start = await call(a.url, 'POST', CM, quota('w-0'));
      t.equal(start.status, 201);
      const rv = start.body.metadata.resourceVersion;
      const ac = new AbortController();
      t.teardown(() => ac.abort());
      const res = await fetch(`${b.url}${CM}?watch=1&resourceVersion=${rv}`, { signal: ac.signal });
      t.equal(res.status, 200);
      const reader = res.body!.getReader();
      const events: any[] = [];
      let buf = '';
      const want = ['w-1', 'w-2'];
      const reading = (async () => {
        const dec = new TextDecoder();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buf += dec.decode(value, { stream: true });
          let nl;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl).trim();
            buf = buf.slice(nl + 1);
            if (line) events.push(JSON.parse(line));
          }
          if (want.every((n) => events.some((e) => e.object?.metadata?.name === n))) return;
        }
      })();
      const w1 = await call(a.url, 'POST', CM, quota('w-1'));
      const w2 = await call(a.url, 'PUT', `${CM}/w-1`, { ...w1.body, spec: { hard: { pods: '20' } } });
      t.equal(w2.status, 200);
      t.equal((await call(a.url, 'POST', CM, quota('w-2'))).status, 201);
      const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error(`watch events so far: ${JSON.stringify(events.map((e) => [e.type, e.object?.metadata?.name]))}`)), 20_000).unref());
      await Promise.race([reading, timeout]);
      ac.abort();
      t.same(
        events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion]),
        [
          ['ADDED', 'w-1', w1.body.metadata.resourceVersion],
          ['MODIFIED', 'w-1', w2.body.metadata.resourceVersion],
          ['ADDED', 'w-2', events[2]?.object?.metadata?.resourceVersion],
        ],
        'every later event, in order, none before the resourceVersion',
      );
      t.equal(events[1]?.object?.spec?.hard?.pods, '20');
    });

    await t.test('20 clients doing read-modify-write through both servers lose no update', async (t) => {
      t.equal((await call(a.url, 'POST', CM, quota('rmw'))).status, 201);
      const clients = 20;
      const each = 5;
      let conflicts = 0;
      const increment = async (server: string) => {
        for (;;) {
          const cur = await call(server, 'GET', `${CM}/rmw`);
          const count = Number(cur.body.metadata.annotations?.count ?? '0');
          const next = { ...cur.body, metadata: { ...cur.body.metadata, annotations: { count: String(count + 1) } } };
          const put = await call(server, 'PUT', `${CM}/rmw`, next);
          if (put.status === 200) return;
          if (put.status !== 409) throw new Error(`PUT answered ${put.status}: ${JSON.stringify(put.body)}`);
          conflicts++;
        }
      };
      await Promise.all(Array.from({ length: clients }, async (_, i) => {
        for (let n = 0; n < each; n++) await increment((i + n) % 2 ? a.url : b.url);
      }));
      const final = await call(b.url, 'GET', `${CM}/rmw`);
      t.equal(final.body.metadata.annotations.count, String(clients * each), `every increment is there (${conflicts} conflicts were retried)`);
      t.ok(conflicts > 0, 'the clients did collide, and the collisions were refused with 409');
    });

    await t.test('kill -9 of a server loses no acknowledged write', async (t) => {
      const total = 1000;
      const clients = 20;
      const acked = new Map<string, string>();
      let next = 0;
      const worker = async () => {
        while (next < total) {
          const name = `d-${next++}`;
          const r = await call(next % 2 ? a.url : b.url, 'POST', CM, quota(name));
          if (r.status === 201) acked.set(name, r.body.metadata.resourceVersion);
        }
      };
      await Promise.all(Array.from({ length: clients }, worker));
      t.equal(acked.size, total, 'every write acknowledged');
      a.proc.kill('SIGKILL');
      await a.proc;
      const again: StartedServe = await startServe(t, args);
      // Every acknowledged object, at its acknowledged resourceVersion, in one list; and read one by one
      // for every 20th (the single-object read from etcd, without a thousand sequential requests).
      const list = await call(again.url, 'GET', CM);
      const listed = new Map<string, string>(list.body.items.map((i: any) => [i.metadata.name, i.metadata.resourceVersion]));
      t.same([...acked.keys()].filter((n) => !listed.has(n)), [], 'every acknowledged object is there after the restart');
      t.same([...acked].filter(([n, rv]) => listed.has(n) && listed.get(n) !== rv).map(([n]) => n), [], 'each at its acknowledged resourceVersion');
      let missing = 0;
      let wrong = 0;
      for (const [name, rv] of [...acked].filter((_, i) => i % 20 === 0)) {
        const r = await call(again.url, 'GET', `${CM}/${name}`);
        if (r.status !== 200) missing++;
        else if (r.body.metadata.resourceVersion !== rv) wrong++;
      }
      t.equal(missing + wrong, 0, 'read one by one, each is there at its acknowledged resourceVersion');

      // A page of a large collection counts what remains from etcd's own count (not by reading it).
      const page = await call(b.url, 'GET', `${CM}?limit=5`);
      t.equal(page.status, 200);
      t.equal(page.body.items.length, 5);
      t.equal(page.body.metadata.remainingItemCount, list.body.items.length - 5, 'remainingItemCount: the rest of the collection');
    });

    await t.test('readiness names etcd, fails while etcd is down, and service resumes on its own', async (t) => {
      const health = async (path: string) => {
        const res = await fetch(`${b.url}${path}?verbose`);
        return { status: res.status, text: await res.text() };
      };
      const ready = await health('/readyz');
      t.equal(ready.status, 200);
      t.match(ready.text, /\[\+\]etcd ok/, 'upstream\'s check names');
      t.match(ready.text, /\[\+\]etcd-readiness ok/);
      // A watch open on the server when etcd goes away must end (or say so with an ERROR event), not
      // hang silently as if nothing happened.
      const ac = new AbortController();
      t.teardown(() => ac.abort());
      const watch = await fetch(`${b.url}${CM}?watch=1`, { signal: ac.signal });
      t.equal(watch.status, 200);
      const ended = (async () => {
        const reader = watch.body!.getReader();
        const dec = new TextDecoder();
        let text = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return 'ended';
          text += dec.decode(value, { stream: true });
          if (text.includes('"type":"ERROR"')) return 'error event';
        }
      })();
      await etcd.members[0]!.kill();
      const outcome = await Promise.race([ended, new Promise((r) => setTimeout(() => r('still open'), 20_000).unref())]);
      t.ok(outcome === 'ended' || outcome === 'error event', `the open watch ${String(outcome)} when etcd went away`);
      const down = await health('/readyz');
      t.not(down.status, 200, 'not ready without etcd');
      t.match(down.text, /\[-\]etcd-readiness failed/);
      const read = await call(b.url, 'GET', CM);
      t.ok(read.status >= 500, `a read fails with a 5xx (${read.status})`);
      t.equal(read.body?.kind, 'Status', 'as a Status');
      await etcd.members[0]!.restart();
      const deadline = Date.now() + 30_000;
      let back = await health('/readyz');
      while (back.status !== 200 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        back = await health('/readyz');
      }
      t.equal(back.status, 200, 'ready again once etcd is back');
      t.equal((await call(b.url, 'GET', CM)).status, 200, 'and serving');
    });
  });
}

if (!unavailable) {
  t.test('etcd over TLS with client certificates: --etcd-cafile, --etcd-certfile, --etcd-keyfile', async (t) => {
    t.setTimeout(120_000);
    const now = Date.now();
    const validity = { notBefore: new Date(now - 3600_000), notAfter: new Date(now + 3600_000) };
    const ca = issue({ commonName: 'etcd-ca', ...validity });
    const server = issue({ commonName: 'etcd', issuer: ca, ips: ['127.0.0.1'], ...validity });
    const client = issue({ commonName: 'orch-apiserver', issuer: ca, client: true, ...validity });
    const pem = (k: import('node:crypto').KeyObject) => k.export({ type: 'pkcs8', format: 'pem' }) as string;
    const tls = { certPem: certificatePem(server.der), keyPem: pem(server.key), caPem: certificatePem(ca.der), clientCertPem: certificatePem(client.der), clientKeyPem: pem(client.key) };
    const etcd = await startEtcd(t, 1, tls);
    t.match(etcd.clientUrls[0], /^https:/);
    const dir = mkdtempSync(join(tmpdir(), 'oc-etcd-tls-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const files = { ca: join(dir, 'ca.crt'), cert: join(dir, 'client.crt'), key: join(dir, 'client.key') };
    writeFileSync(files.ca, tls.caPem);
    writeFileSync(files.cert, tls.clientCertPem);
    writeFileSync(files.key, tls.clientKeyPem, { mode: 0o600 });
    const base = ['--plain-http', '--controllers', '', '--no-scheduler', '--storage', 'etcd', '--etcd-servers', etcd.clientUrls.join(',')];

    const s = await startServe(t, [...base, '--etcd-cafile', files.ca, '--etcd-certfile', files.cert, '--etcd-keyfile', files.key]);
    t.equal((await call(s.url, 'POST', CM, quota('tls'))).status, 201, 'a write over TLS with the client certificate');
    t.equal((await call(s.url, 'GET', `${CM}/tls`)).body?.spec?.hard?.pods, '10', 'and a read');

    // Without the client certificate etcd refuses the connection: the server does not start.
    const refused = await execaNode(BIN, ['serve', '--api-port', '0', ...base, '--etcd-cafile', files.ca], { reject: false, timeout: 60_000 });
    t.equal(refused.exitCode, 2, 'no client certificate: a refused start');
  });
}
