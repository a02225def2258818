// Start-up and storage faults of the reference on a real etcd (Debian's etcd-server), issue 23 §6:
// API servers bootstrapping one fresh prefix at once all start (the initial namespaces another wrote
// first are taken as they are), and a hung etcd (SIGSTOP) answers requests within the storage
// deadline with a 504 Timeout or 503 saying storage is unavailable, service resuming after SIGCONT.
// One etcd for the file; the servers are in-process (startReference), so the 20 trials stay cheap.
// The real two-process concurrent start is in etcd-serve.test.ts.
import t from 'tap';
import { startReference, type RunningReference } from '../reference/server.js';
import { etcdUnavailable, startEtcd } from './helpers/etcd.js';

const RQ = '/api/v1/namespaces/default/resourcequotas';
const TRIALS = 20;
/** The storage deadline of the hung-etcd test, and what a request may take beyond it. */
const STORAGE_TIMEOUT_MS = 1_000;
const SLACK_MS = 3_000;

const quota = (name: string) => ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard: { pods: '1' } } });

async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any; ms: number }> {
  const started = Date.now();
  const res = await fetch(base + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, ms: Date.now() - started };
}

const unavailable = etcdUnavailable();
if (unavailable) {
  t.plan(0, unavailable);
} else {
  t.setTimeout(120_000);
  const etcd = await startEtcd(t);
  const startOn = (prefix: string, requestTimeoutMs?: number): Promise<RunningReference> => startReference({
    storage: 'etcd', etcd: { servers: etcd.clientUrls, prefix, requestTimeoutMs }, controllerManager: false, scheduler: false,
  });

  t.test(`two API servers bootstrapping one fresh prefix at once both start (${TRIALS} trials)`, async (t) => {
    const failures: string[] = [];
    for (let i = 0; i < TRIALS; i++) {
      const started = await Promise.allSettled([startOn(`/boot-${i}`), startOn(`/boot-${i}`)]);
      for (const s of started) {
        if (s.status === 'rejected') failures.push(`trial ${i}: ${(s.reason as Error).message}`);
        else await s.value.close();
      }
    }
    t.same(failures, [], 'every server started');
    // And the namespaces are there once each (what both bootstraps wanted).
    const ref = await startOn(`/boot-${TRIALS - 1}`);
    t.teardown(() => ref.close());
    const list = await call(ref.url, 'GET', '/api/v1/namespaces');
    const names = list.body.items.map((n: any) => n.metadata.name);
    t.same(names.filter((n: string) => n === 'default'), ['default'], 'one default namespace');
  });

  t.test('a hung etcd: requests answered within the storage deadline, then service resumes', async (t) => {
    const ref = await startOn('/hung', STORAGE_TIMEOUT_MS);
    t.teardown(() => ref.close());
    t.equal((await call(ref.url, 'POST', RQ, quota('before'))).status, 201);
    const member = etcd.members[0]!;
    member.pause();
    let resumed = false;
    const resume = () => { if (!resumed) { resumed = true; member.resume(); } };
    t.teardown(resume);
    for (const [method, path, body] of [['GET', RQ], ['POST', RQ, quota('during')], ['GET', `${RQ}/before`], ['DELETE', `${RQ}/before`]] as const) {
      const r = await call(ref.url, method, path, body);
      const what = `${method} ${path}`;
      t.ok(r.ms < STORAGE_TIMEOUT_MS + SLACK_MS, `${what} answered in ${r.ms} ms`);
      // The first call waits out the deadline (504); once the client's breaker is open, calls fail at once (503).
      t.ok(r.status === 504 || r.status === 503, `${what}: 504 or 503, got ${r.status}`);
      t.match(r.body, { kind: 'Status', status: 'Failure', reason: r.status === 504 ? 'Timeout' : 'ServiceUnavailable', code: r.status }, what);
      t.match(r.body.message, /storage is unavailable/, `${what}: the message says why: ${r.body.message}`);
      if (r.status === 504) t.match(r.body.message, /^Timeout: request did not complete within requested timeout - /, 'upstream\'s timeout words');
    }
    resume();
    // The client's breaker half-opens a few seconds after the last failure: poll, bounded.
    const deadline = Date.now() + 20_000;
    let last = await call(ref.url, 'GET', RQ);
    while (last.status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      last = await call(ref.url, 'GET', RQ);
    }
    t.equal(last.status, 200, 'reads work again after SIGCONT');
    t.equal((await call(ref.url, 'POST', RQ, quota('after'))).status, 201, 'writes work again');
  });
}
