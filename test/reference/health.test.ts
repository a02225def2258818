// Health endpoints and their SLIs: the upstream answers (ok, verbose, exclude, failures with reasons
// withheld, single checks), the API server's checks, and orch_healthcheck/orch_healthchecks_total
// following real evaluations, failures included (made with the test-only fault hook).
import t from 'tap';
import { evaluateOne, evaluateRoot, namedCheck, type HealthEndpoint } from '../../reference/observability/health.js';
import { HealthSlis } from '../../reference/observability/slis.js';
import { apiServerHealthChecks } from '../../reference/apiserver/debug-endpoints.js';
import { startReference } from '../../reference/server.js';
import { MemoryStorage } from '../../reference/storage/memory.js';
import { parseExposition, samplesOf } from '../../suites/002-metrics-debug/exposition.js';

const ok = (name: string) => namedCheck(name, () => undefined);
const bad = (name: string, why: string) => namedCheck(name, async () => { throw new Error(why); });

t.test('evaluateRoot: ok, verbose listing, exclusions and the warning for unknown ones', async (t) => {
  const checks = [ok('ping'), ok('log'), ok('etcd')];
  t.same(await evaluateRoot('healthz', checks, new URLSearchParams()), { status: 200, body: 'ok' });
  t.same(await evaluateRoot('readyz', checks, new URLSearchParams('verbose')), { status: 200, body: '[+]ping ok\n[+]log ok\n[+]etcd ok\nreadyz check passed\n' });
  const ex = await evaluateRoot('livez', checks, new URLSearchParams('verbose&exclude=log&exclude=zz&exclude=aa'));
  t.same(ex, { status: 200, body: '[+]ping ok\n[+]log excluded: ok\n[+]etcd ok\nwarn: some health checks cannot be excluded: no matches for "aa","zz"\nlivez check passed\n' });
  t.same(await evaluateRoot('healthz', checks, new URLSearchParams('exclude=log')), { status: 200, body: 'ok' }, 'exclusions without verbose still answer ok');
});

t.test('evaluateRoot: a failing check is 500 with the listing, verbose or not, its reason withheld', async (t) => {
  const checks = [ok('ping'), bad('etcd', 'connection refused'), ok('log')];
  const want = { status: 500, body: '[+]ping ok\n[-]etcd failed: reason withheld\n[+]log ok\nhealthz check failed\n' };
  t.same(await evaluateRoot('healthz', checks, new URLSearchParams()), want);
  t.same(await evaluateRoot('healthz', checks, new URLSearchParams('verbose')), want);
  t.same(await evaluateRoot('healthz', checks, new URLSearchParams('exclude=etcd')), { status: 200, body: 'ok' }, 'excluding the failing check');
});

t.test('evaluateRoot reports each evaluated check to the observer, excluded ones not', async (t) => {
  const seen: Array<[string, HealthEndpoint, boolean]> = [];
  await evaluateRoot('readyz', [ok('ping'), bad('etcd', 'x'), ok('log')], new URLSearchParams('exclude=log'), (n, e, r) => seen.push([n, e, r]));
  t.same(seen, [['ping', 'readyz', true], ['etcd', 'readyz', false]]);
});

t.test('evaluateOne: ok, or 500 with the reason', async (t) => {
  t.same(await evaluateOne(ok('ping')), { status: 200, body: 'ok' });
  t.same(await evaluateOne(bad('etcd', 'connection refused')), { status: 500, body: 'internal server error: connection refused\n' });
});

t.test('HealthSlis: gauge 1/0 and counter by status, healthz and readyz only, alpha help', async (t) => {
  const s = new HealthSlis();
  s.observe('ping', 'healthz', true);
  s.observe('ping', 'healthz', true);
  s.observe('etcd', 'readyz', false);
  s.observe('ping', 'livez', true);
  const exp = parseExposition(await s.expose());
  t.same(exp.errors, []);
  t.match(s.contentType, /^text\/plain; version=0\.0\.4/);
  t.same(exp.families.get('orch_healthcheck'), { help: '[ALPHA] This metric records the result of a single healthcheck.', type: 'gauge' });
  t.same(exp.families.get('orch_healthchecks_total'), { help: '[ALPHA] This metric records the results of all healthcheck.', type: 'counter' });
  t.same(samplesOf(exp, 'orch_healthcheck'), [
    { name: 'orch_healthcheck', labels: { name: 'ping', type: 'healthz' }, value: 1 },
    { name: 'orch_healthcheck', labels: { name: 'etcd', type: 'readyz' }, value: 0 },
  ]);
  t.same(samplesOf(exp, 'orch_healthchecks_total'), [
    { name: 'orch_healthchecks_total', labels: { name: 'ping', status: 'success', type: 'healthz' }, value: 2 },
    { name: 'orch_healthchecks_total', labels: { name: 'etcd', status: 'error', type: 'readyz' }, value: 1 },
  ]);
});

t.test('the API server\'s checks: readyz has more than livez; each fails for its own reason', async (t) => {
  const storage = new MemoryStorage();
  const state = { registered: true, started: true, shutting: false };
  const checks = apiServerHealthChecks({ storage, registered: () => state.registered, controllersStarted: () => state.started, shuttingDown: () => state.shutting });
  const names = (e: HealthEndpoint) => checks[e].map((c) => c.name);
  t.same(names('livez'), ['ping', 'log', 'storage', 'autoregister-completion']);
  t.same(names('healthz'), names('livez'));
  t.same(names('readyz'), ['ping', 'log', 'storage', 'storage-readiness', 'informer-sync', 'autoregister-completion', 'shutdown']);
  const failing = async (e: HealthEndpoint) => (await Promise.all(checks[e].map(async (c) => ((await evaluateOne(c)).status === 500 ? c.name : undefined)))).filter(Boolean);
  t.same(await failing('readyz'), []);
  state.started = false;
  state.registered = false;
  state.shutting = true;
  t.same(await failing('readyz'), ['informer-sync', 'autoregister-completion', 'shutdown']);
  t.same(await failing('livez'), ['autoregister-completion'], 'a process shutting down is still alive');
  await storage.close();
  t.same(await failing('healthz'), ['storage', 'autoregister-completion']);
  t.match((await evaluateOne(checks.readyz.find((c) => c.name === 'storage-readiness')!)).body, /internal server error: storage is closed/);
});

t.test('the reference: failures through the fault hook reach the endpoints and the SLIs', async (t) => {
  const faults = new Map<string, string>();
  const ref = await startReference({ healthFaults: faults });
  t.teardown(() => ref.close());
  const get = async (p: string, init?: RequestInit) => {
    const r = await fetch(`${ref.url}${p}`, init);
    return { status: r.status, type: r.headers.get('content-type'), body: await r.text() };
  };
  const gauge = async (name: string, type: string) => {
    const exp = parseExposition((await get('/metrics/slis')).body);
    return samplesOf(exp, 'orch_healthcheck').find((s) => s.labels['name'] === name && s.labels['type'] === type)?.value;
  };
  const count = async (labels: Record<string, string>) => {
    const exp = parseExposition((await get('/metrics/slis')).body);
    return samplesOf(exp, 'orch_healthchecks_total').find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value ?? 0;
  };

  t.same(await get('/readyz'), { status: 200, type: 'text/plain; charset=utf-8', body: 'ok' });
  t.equal(await gauge('storage', 'readyz'), 1);
  faults.set('storage', 'the disk is on fire');
  const r = await get('/readyz?verbose');
  t.equal(r.status, 500);
  t.match(r.body, /^\[\+\]ping ok\n\[\+\]log ok\n\[-\]storage failed: reason withheld\n\[\+\]storage-readiness ok\n/);
  t.match(r.body, /\nreadyz check failed\n$/);
  t.notMatch(r.body, /fire/, 'the reason is withheld from the root endpoint');
  t.same(await get('/readyz/storage'), { status: 500, type: 'text/plain; charset=utf-8', body: 'internal server error: the disk is on fire\n' });
  t.equal((await get('/livez')).status, 500, 'livez runs the storage check too');
  t.equal((await get('/readyz?exclude=storage')).status, 200, 'excluding the failing check');
  t.equal(await gauge('storage', 'readyz'), 0, 'orch_healthcheck is 0 for the failed check');
  t.equal(await gauge('ping', 'readyz'), 1);
  t.equal(await count({ name: 'storage', type: 'readyz', status: 'error' }), 1, 'the error counted once (the excluded evaluation did not count)');

  const before = await count({ name: 'storage', type: 'healthz', status: 'error' });
  await get('/healthz/storage');
  t.equal(await count({ name: 'storage', type: 'healthz', status: 'error' }), before, 'single-check paths are not recorded (upstream)');
  await get('/livez');
  t.notMatch((await get('/metrics/slis')).body, /type="livez"/, 'livez evaluations are not recorded: the spec\'s type is healthz or readyz');

  faults.delete('storage');
  t.equal((await get('/readyz')).status, 200);
  t.equal(await gauge('storage', 'readyz'), 1, 'back to 1 once the check passes');
  t.equal(await count({ name: 'storage', type: 'readyz', status: 'error' }), 1, 'the counter keeps the past error');
});

t.test('the reference: health paths answer GET and HEAD; other methods 405; unknown checks 404', async (t) => {
  const ref = await startReference();
  t.teardown(() => ref.close());
  t.equal((await fetch(`${ref.url}/healthz`, { method: 'HEAD' })).status, 200);
  const post = await fetch(`${ref.url}/healthz`, { method: 'POST' });
  t.equal(post.status, 405);
  t.equal(post.headers.get('allow'), 'GET, HEAD');
  t.match(await post.json(), { kind: 'Status', status: 'Failure', reason: 'MethodNotAllowed', code: 405 }, 'a Status, as every error');
  t.equal((await fetch(`${ref.url}/healthz/no-such-check`)).status, 404);
  const root = (await (await fetch(ref.url)).json()) as { paths: string[] };
  for (const p of ['/healthz', '/healthz/ping', '/livez/storage', '/readyz/informer-sync', '/metrics', '/metrics/slis', '/statusz', '/flagz', '/configz', '/version']) {
    t.ok(root.paths.includes(p), `/ lists ${p}`);
  }
});
