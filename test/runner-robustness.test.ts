// The runner against targets that refuse or overwhelm it: a cleanup that cannot be verified is
// reported apart from leaks; response bodies and watch lines over the cap fail the request with
// the cap's message; the credential preflight tells 401 and 403 apart.
import t from 'tap';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runCases, exitCodeFor } from '../runner/run.js';
import { parseGates } from '../runner/gates.js';
import { ApiClient, createDispatcher, ResponseTooLargeError, formatBytes } from '../runner/client.js';
import { checkCredentials, TargetAccessError } from '../runner/target.js';
import { defineCase } from '../suites/case.js';
import { fail } from '../suites/verify.js';
import { startReference } from '../reference/server.js';
import { startBrokenTarget } from './helpers/broken-target.js';

const SC = '/apis/storage.orch.io/v1/storageclasses';

async function serve(t: { teardown(fn: () => unknown): void }, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const srv = createServer(handler);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.teardown(() => { srv.closeAllConnections(); srv.close(); });
  return `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
}

t.test('a cleanup the target does not let the run verify (403 on the list) is no leak', async (t) => {
  const ref = await startReference({ host: '127.0.0.1', port: 0 });
  t.teardown(() => ref.close());
  // Lists of the collection are forbidden; everything else works.
  const broken = await startBrokenTarget(ref.url, {
    request: (r) => (r.method === 'GET' && r.path.split('?')[0] === SC ? { status: 403, headers: {}, body: '{"kind":"Status","code":403,"reason":"Forbidden"}' } : undefined),
  });
  t.teardown(() => broken.close());
  const creating = defineCase({
    id: 'x.creates', title: 'x.creates', suite: 'test', requirements: ['000-2.2-provisioner-required'], spec: { doc: '000', section: '2.2' }, level: 'MUST', impact: 'cluster-scoped', needs: ['api'],
    async run(ctx) {
      const name = ctx.uniqueName('obj');
      ctx.track(`${SC}/${name}`);
      const res = await ctx.api.post(SC, { apiVersion: 'storage.orch.io/v1', kind: 'StorageClass', metadata: { name, labels: { ...ctx.labels } }, provisioner: 'x.orch.io/p' });
      if (res.status !== 201) fail('create', '201', String(res.status));
    },
  });
  const report = await runCases({ cases: [creating], conn: { baseUrl: broken.url }, embedded: false, gates: parseGates(undefined), version: 't', runId: 'unver1' });
  t.equal(report.cases[0]!.status, 'passed');
  t.same(report.leaks, [], 'not reported as objects left behind');
  t.same(report.cleanupUnverified, [`${SC}: could not verify cleanup (HTTP 403: these credentials may not list it)`]);
  t.equal(exitCodeFor(report), 0, 'an unverified cleanup does not fail the run by itself');
});

t.test('bodies over the cap: Content-Length up front or while streaming; smaller ones are read whole', async (t) => {
  const url = await serve(t, (req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/declared') { res.setHeader('content-length', '5000'); res.end('x'.repeat(5000)); return; }
    if (req.url === '/streamed') { res.write('x'.repeat(3000)); setTimeout(() => res.end('x'.repeat(3000)), 10); return; }
    res.end(JSON.stringify({ ok: 'y'.repeat(900) }));
  });
  const conn = { baseUrl: url, maxResponseBytes: 4096 };
  const dispatcher = createDispatcher(conn);
  t.teardown(() => dispatcher.close());
  const api = new ApiClient(conn, dispatcher);
  for (const path of ['/declared', '/streamed']) {
    const err = await api.get(path).catch((e) => e);
    t.type(err, ResponseTooLargeError, path);
    t.equal(err.message, 'response body larger than 4 KiB (--max-response-bytes)');
  }
  t.match(api.exchanges[0], { status: 200, error: /larger than 4 KiB/ }, 'the exchange records the status and why');
  t.equal((await api.get('/small')).json.ok.length, 900);
  t.equal(formatBytes(16 * 1024 * 1024), '16 MiB');
});

t.test('a watch line over the cap closes the stream; next() yields the events before it, then throws', async (t) => {
  const url = await serve(t, (_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.write(`${JSON.stringify({ type: 'ADDED', object: { n: 1 } })}\n`);
    // An endless line: the runner must stop reading it, not buffer it.
    const chunk = 'z'.repeat(1024);
    const timer = setInterval(() => { if (!res.write(chunk)) clearInterval(timer); }, 1);
    res.on('close', () => clearInterval(timer));
  });
  const conn = { baseUrl: url, maxResponseBytes: 8192 };
  const dispatcher = createDispatcher(conn);
  t.teardown(() => dispatcher.close());
  const api = new ApiClient(conn, dispatcher);
  const w = await api.watch('/w');
  t.match(await w.next(5_000), { type: 'ADDED', object: { n: 1 } });
  await t.rejects(w.next(5_000), ResponseTooLargeError);
  t.match(api.exchanges[0]!.error, /larger than 8 KiB .*watch event line over the cap/);
  w.close();
});

t.test('credential preflight: 401 and 403 on GET /api are access errors; 200 passes', async (t) => {
  let answer = 401;
  const url = await serve(t, (_req, res) => { res.statusCode = answer; res.setHeader('content-type', 'application/json'); res.end('{"kind":"Status","message":"no"}'); });
  await t.rejects(checkCredentials({ baseUrl: url, token: 't' }), new TargetAccessError('the target rejected the credentials: pass --token or --kubeconfig (or --token-file) with credentials ' + url + ' accepts (401 Unauthorized on GET /api; sent a bearer token)'));
  answer = 403;
  await t.rejects(checkCredentials({ baseUrl: url }), /denied API discovery, GET \/api \(403 Forbidden: no\)/);
  answer = 200;
  await checkCredentials({ baseUrl: url });
  t.pass('200 passes');
});
