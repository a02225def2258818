// The orch-conformance command, run as users run it (the built bin through execa).
import t from 'tap';
import { execaNode } from 'execa';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BIN, startServe } from './helpers/serve.js';

const cli = (args: string[], opts: Record<string, unknown> = {}) => execaNode(BIN, args, { reject: false, timeout: 120_000, ...opts });
const tmp = () => mkdtempSync(join(tmpdir(), 'oc-cli-'));

// The README's main command (run without --api: every case against the embedded reference, every
// reporter) is run once, by conformance-doc.test.ts, which also checks CONFORMANCE.md against its results.

t.test('a misbehaving target: the case fails, exit 1, and the report shows the exchange', async (t) => {
  // A target that answers every request with an empty JSON object.
  const srv = createServer((_q, s) => { s.setHeader('content-type', 'application/json'); s.end('{}'); });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.teardown(() => srv.close());
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  const dir = tmp();
  // --strict: the version document's shape is a SHOULD rule (upstream's), a failure only when strict.
  const r = await cli(['run', '--api', url, '--strict', '--focus', '^api\\.discovery\\.version$', '--reporter', `json=${dir}/r.json`, '--reporter', `html=${dir}/r.html`]);
  t.equal(r.exitCode, 1);
  t.match(r.stderr, /1 case\(s\) failed or errored/);
  const report = JSON.parse(readFileSync(`${dir}/r.json`, 'utf8'));
  t.equal(report.cases[0].status, 'failed');
  t.match(report.cases[0].exchanges[0], { method: 'GET', url: `${url}/version`, status: 200, responseBody: '{}' });
  t.match(readFileSync(`${dir}/r.html`, 'utf8'), /\/version/);
});

t.test('an unreachable target exits 3 with a message that says what to do', async (t) => {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  const r = await cli(['run', '--api', `http://127.0.0.1:${port}`]);
  t.equal(r.exitCode, 3);
  t.match(r.stderr, /cannot reach the target API at http:\/\/127\.0\.0\.1:\d+.*Check --api/);
});

t.test('bad usage exits 2 with a clear message', async (t) => {
  for (const [args, msg] of [
    [['run', '--reporter', 'pdf'], /unknown reporter|pdf/i],
    [['run', '--focus', '('], /--focus: not a valid regular expression/],
    [['run', '--gates', 'NoSuchGate=true'], /unknown feature gate "NoSuchGate"/],
    [['run', '--suite', 'nope'], /unknown suite "nope"/],
    [['run', '--focus', 'matches-nothing-at-all'], /no case matches/],
    [['run', '--parallel', '0'], /--parallel/],
    [['run', '--expect', '/nonexistent/expect.yaml'], /--expect/],
    [['run', '--metrics', 'agent=http://127.0.0.1:1'], /--metrics needs --api/],
    [['run', '--metrics', 'nonsense'], /--metrics nonsense: want name=url/],
    [['run', '--api', 'http://127.0.0.1:1', '--metrics', 'agent=ftp://x'], /must be http or https/],
    [['run', '--api', 'http://127.0.0.1:1', '--metrics', 'agent=http://a', '--metrics', 'agent=http://b'], /component "agent" given twice/],
    [['run', '--api', 'https://127.0.0.1:1', '--ca', '/nonexistent/ca.pem'], /--ca \/nonexistent\/ca\.pem: cannot read it \(ENOENT\)/],
    [['frobnicate'], /Unknown|command/i],
  ] as const) {
    const r = await cli([...args]);
    t.equal(r.exitCode, 2, `${args.join(' ')} exits 2`);
    t.match(r.stderr, msg, `${args.join(' ')} says why`);
  }
});

t.test('serve --feature-gates: unknown and locked gates are refused at start', async (t) => {
  const unknown = await cli(['serve', '--api-port', '0', '--feature-gates', 'NoSuchGate=true'], { timeout: 20_000 });
  t.equal(unknown.exitCode, 2);
  t.match(unknown.stderr, /--feature-gates: unknown feature gate "NoSuchGate"/);
  const locked = await cli(['serve', '--api-port', '0', '--feature-gates', 'NodeDeclaredFeatures=false'], { timeout: 20_000 });
  t.equal(locked.exitCode, 2);
  t.match(locked.stderr, /cannot set feature gate NodeDeclaredFeatures to false, feature is locked to true/);
  const garbled = await cli(['serve', '--api-port', '0', '--feature-gates', 'GenericWorkload'], { timeout: 20_000 });
  t.equal(garbled.exitCode, 2);
});

t.test('list shows what would run, as text and JSON', async (t) => {
  const r = await cli(['list', '--json', '--suite', 'storageclass']);
  t.equal(r.exitCode, 0);
  const rows = JSON.parse(r.stdout);
  t.ok(rows.length > 5);
  for (const row of rows) {
    t.equal(row.suite, 'storageclass');
    t.ok(row.requirements.length > 0 && row.spec.doc === '000' && ['read-only', 'namespaced', 'cluster-scoped'].includes(row.impact));
  }
  const text = await cli(['list', '--focus', 'reclaim-policy.default']);
  t.match(text.stdout, /api\.storageclass\.reclaim-policy\.default\n\s+MUST 000 §2\.2\s+cluster-scoped\s+000-2\.2-reclaim-policy-default/);
});

t.test('report renders a saved run again, with the run\'s exit code', async (t) => {
  const dir = tmp();
  const saved = await cli(['run', '--focus', '^api\\.discovery\\.', '--reporter', `json=${dir}/r.json`]);
  t.equal(saved.exitCode, 0);
  const r = await cli(['report', `${dir}/r.json`, '--reporter', `junit=${dir}/again.xml`, '--reporter', 'tap']);
  t.equal(r.exitCode, 0);
  t.match(r.stdout, /^TAP version 14/m);
  t.match(readFileSync(`${dir}/again.xml`, 'utf8'), /api\.discovery\.version/);
  writeFileSync(`${dir}/junk.json`, '{"not": "a report"}');
  const bad = await cli(['report', `${dir}/junk.json`]);
  t.equal(bad.exitCode, 2);
});

for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
  t.test(`${signal} stops the run, cleans up and exits ${code}`, async (t) => {
    // A target whose StorageClass reads hang, so the run is still going when the signal comes.
    const { startReference } = await import('../reference/server.js');
    const { startBrokenTarget } = await import('./helpers/broken-target.js');
    const ref = await startReference({ host: '127.0.0.1', port: 0 });
    t.teardown(() => ref.close());
    // The signal goes once a case hangs on such a read: the run is under way (its handler installed),
    // however long the process took to start.
    let hanging!: () => void;
    const hung = new Promise<void>((resolve) => (hanging = resolve));
    const broken = await startBrokenTarget(ref.url, {
      request: (r) => {
        if (r.method !== 'GET' || !r.path.includes('/storageclasses/')) return undefined;
        hanging();
        return new Promise<void>(() => undefined);
      },
    });
    t.teardown(() => broken.close());
    const dir = tmp();
    // One case at a time: with two, the other case's create could be in flight through the proxy when
    // the signal comes and reach the reference after the run's cleanup (a server may complete a
    // request its client abandoned), which no runner can delete.
    const child = cli(['run', '--api', broken.url, '--suite', 'storageclass', '--parallel', '1', '--reporter', 'console', '--reporter', `json=${dir}/r.json`]);
    await hung;
    child.kill(signal);
    const r = await child;
    t.equal(r.exitCode, code, r.stderr);
    t.match(r.stderr, new RegExp(`interrupted \\(${signal}\\)`));
    const list = await (await fetch(`${ref.url}/apis/storage.orch.io/v1/storageclasses`)).json() as any;
    t.same(list.items.map((i: any) => i.metadata.name), [], 'what the run created was deleted');
    const report = JSON.parse(readFileSync(`${dir}/r.json`, 'utf8'));
    t.equal(report.interrupted, true);
    t.ok(report.summary.interrupted >= 1, 'the hanging cases are interrupted');
    t.equal(report.summary.failed + report.summary.errored, 0, 'an interrupted case is no failure');
  });
}

t.test('run --metrics: components\' debug endpoints, serve\'s flags on /flagz, an unreachable component exits 3', async (t) => {
  const { url } = await startServe(t, ['--plain-http']);
  const flagz = await (await fetch(`${url}/flagz`)).text();
  t.match(flagz, /^\norch-apiserver flags\n.*\n\n(.*\n)*api-port=0\n(.*\n)*feature-gates=\nhost=127\.0\.0\.1\n(.*\n)*storage=memory\n/, '/flagz shows the flags serve was started with, defaults and unset ones included');
  const dir = tmp();
  const r = await cli(['run', '--api', url, '--metrics', `apiserver=${url}`, '--suite', 'health,slis,statusz,flagz,debug-endpoints', '--reporter', `json=${dir}/r.json`]);
  t.equal(r.exitCode, 0, r.stderr);
  const report = JSON.parse(readFileSync(`${dir}/r.json`, 'utf8'));
  t.same(report.target.metrics, { apiserver: url });
  t.ok(report.summary.passed > 30);
  t.ok(report.cases.filter((c: any) => c.status === 'skipped').every((c: any) => /needs feature gate Component(Statusz|Flagz)=false|pass --failing-health-check/.test(c.message)), 'only the gate-off cases and those needing a failing check are skipped');

  const srv = createServer();
  await new Promise<void>((res) => srv.listen(0, '127.0.0.1', res));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((res) => srv.close(() => res()));
  const dead = await cli(['run', '--api', url, '--metrics', `agent=http://127.0.0.1:${port}`]);
  t.equal(dead.exitCode, 3);
  t.match(dead.stderr, /cannot reach component "agent" at http:\/\/127\.0\.0\.1:\d+.*Check --metrics agent=<url>/);
});

t.test('list into a reader that stops early (| head) ends quietly with exit 0', async (t) => {
  const child = execaNode(BIN, ['list'], { reject: false, buffer: false });
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  child.stdout!.destroy();
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const r = await child;
  t.equal(r.exitCode, 0, stderr);
  t.notMatch(stderr, /EPIPE|Unhandled/);
});
