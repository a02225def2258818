// HTTPS end to end: `serve` (HTTPS by default) or `serve --cert-dir`, then
// `run --api https://... --ca <file>`; `--plain-http`; serve's TLS usage errors and a port in use;
// and the proof of the HTTPS cases (spec 002 §1, §4) against an https reference and the
// plain-HTTP proof proxy in front of it, run here until the proof test starts TLS references.
import t from 'tap';
import { execaNode } from 'execa';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { runCases } from '../runner/run.js';
import { defaultGates } from '../runner/gates.js';
import { startReference } from '../reference/server.js';
import { generateSelfSigned } from '../reference/tls.js';
import { startBrokenTarget } from './helpers/broken-target.js';
import { BIN, startServe } from './helpers/serve.js';
import { BREAKAGES } from './proof/index.js';
import { metricsDebugCases } from '../suites/002-metrics-debug/index.js';
import type { TargetConnection } from '../runner/client.js';
import { AGENT_KINDS, type Case } from '../suites/case.js';
import { ALL_CASES } from '../suites/index.js';
import { GATES_OFF } from './helpers/gates-off.js';


function tempDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'orch-cli-tls-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('serve --cert-dir serves HTTPS; run --api https://... --ca <file> --focus https passes', async (t) => {
  const dir = join(tempDir(t), 'certs');
  const s = await startServe(t, ['--cert-dir', dir]);
  t.match(s.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  t.equal(s.ca, join(dir, 'apiserver-ca.crt'), 'the generated CA is printed for run --ca');
  t.ok(existsSync(join(dir, 'apiserver.crt')) && existsSync(join(dir, 'apiserver.key')), 'upstream\'s file names');
  const report = join(dir, '..', 'results.json');
  const run = await execaNode(BIN, ['run', '--api', s.url, '--ca', s.ca!, '--focus', 'https', '--reporter', `json=${report}`], { reject: false, timeout: 60_000 });
  t.equal(run.exitCode, 0, `run exits 0: ${run.stderr}`);
  const cases = JSON.parse(readFileSync(report, 'utf8')).cases as Array<{ id: string; status: string }>;
  t.same(cases.map((c) => [c.id, c.status]).sort(), [['debug.https.get', 'passed'], ['debug.https.port', 'passed']]);

  const untrusted = await execaNode(BIN, ['run', '--api', s.url, '--focus', 'https'], { reject: false, timeout: 60_000 });
  t.equal(untrusted.exitCode, 2, 'without --ca the certificate is not trusted: a set-up error, not an unreachable target');
  t.match(untrusted.stderr, /SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|self-signed/i);
  t.match(untrusted.stderr, /not trusted.*--ca <file>.*--insecure-skip-tls-verify/, 'it names the flags that fix it');
  t.notMatch(untrusted.stderr, /cannot reach/);

  const ca = readFileSync(s.ca!, 'utf8');
  s.proc.kill('SIGTERM');
  t.equal((await s.proc).exitCode, 0);
  const again = await startServe(t, ['--cert-dir', dir]);
  t.equal(readFileSync(again.ca!, 'utf8'), ca, 'a second start reuses the certificates in --cert-dir');
  const run2 = await execaNode(BIN, ['run', '--api', again.url, '--ca', again.ca!, '--focus', 'debug.https.port'], { reject: false, timeout: 60_000 });
  t.equal(run2.exitCode, 0, `the reused pair still verifies: ${run2.stderr}`);
});

// No whole-suite run here: every case runs against `serve` through `run --api` in etcd-suite.test.ts
// (with the default-on gates off, --strict) and against the embedded reference in the main run. What
// this run adds is the user's first command with no other flag: a selection of cases that pass over
// HTTPS (the API server's own metrics among them), of cases that skip for want of a fact
// (continue-token validity) or an agent, and every API and metrics case that needs one of the
// default-on gates on: the etcd-suite run has those gates off, so this is where they run through
// `run --api` with the gates read from serve.
const GATED_ON = ALL_CASES.filter((c) => !c.needs.some((k) => AGENT_KINDS.has(k)) && Object.entries(c.gates ?? {}).some(([g, on]) => on && GATES_OFF.includes(g)));
const escapeId = (id: string) => id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const NO_FLAG_SELECTION = `^(debug\\.https|api\\.list\\.continue|api\\.discovery|metrics\\.text|agent\\.sync\\.deletion)|^(${GATED_ON.map((c) => escapeId(c.id)).join('|')})$`;

t.test('serve with no flags serves HTTPS; run --api URL --ca CA with no other flag passes, or skips for what it was not told', async (t) => {
  const s = await startServe(t);
  t.match(s.url, /^https:\/\/127\.0\.0\.1:\d+$/, 'HTTPS by default (spec 002 §1)');
  t.ok(s.ca, 'the generated CA is printed');
  const dir = dirname(s.ca!);
  t.equal(basename(s.ca!), 'apiserver-ca.crt');
  t.ok(dir.startsWith(tmpdir()), `in a fresh directory under the temp dir: ${dir}`);
  t.equal(statSync(dir).mode & 0o777, 0o700, 'the directory is owner-only');
  t.equal(statSync(join(dir, 'apiserver.key')).mode & 0o777, 0o600, 'the key is owner-only');

  const report = join(tempDir(t), 'results.json');
  const run = await execaNode(BIN, ['run', '--api', s.url, '--ca', s.ca!, '--focus', NO_FLAG_SELECTION, '--reporter', `json=${report}`], { reject: false, timeout: 120_000 });
  const r = JSON.parse(readFileSync(report, 'utf8'));
  const notPassed = (r.cases as Array<{ id: string; status: string; message?: string }>).filter((c) => c.status !== 'passed');
  const unexpected = notPassed.filter((c) => c.status !== 'skipped' || !/needs feature gate|needs to know .*: pass --|pass --metrics|pass --failing-health-check|pass --agent <url>|pass --cri-control|pass --agent-exec/.test(c.message ?? ''));
  t.equal(run.exitCode, 0, `run exits 0: ${run.stderr}`);
  t.same(unexpected.map((c) => `${c.id}: ${c.status} ${c.message}`), [], 'every case passed, but those needing another gate state or a target fact, skipped');
  t.ok(r.summary.passed >= 8, `cases passed: ${r.summary.passed}`);
  const skippedFor = (re: RegExp) => notPassed.some((c) => c.status === 'skipped' && re.test(c.message ?? ''));
  t.ok(skippedFor(/needs to know .*: pass --/) && skippedFor(/pass --agent <url>/), 'cases needing a fact or an agent skip and say what to pass', { notPassed });
  t.ok(r.cases.some((c: { id: string; status: string }) => c.id === 'debug.https.port' && c.status === 'passed'), 'the HTTPS cases among them');
  const gatedRan = r.cases.filter((c: { id: string; status: string }) => GATED_ON.some((g) => g.id === c.id) && c.status === 'passed').length;
  t.ok(GATED_ON.length > 20 && gatedRan > GATED_ON.length / 2, `the cases needing a default-on gate on ran with serve's defaults (${gatedRan} of ${GATED_ON.length} passed; the rest need a fact)`);

  s.proc.kill('SIGTERM');
  t.equal((await s.proc).exitCode, 0, 'serve stops on SIGTERM');
  t.notOk(existsSync(dir), 'and removes its private directory: the key goes, and nobody trusts the CA any more');
});

t.test('serve --plain-http serves plain HTTP, and --help says what serve does', async (t) => {
  const s = await startServe(t, ['--plain-http']);
  t.match(s.url, /^http:\/\//);
  t.equal(s.ca, undefined, 'no ca: line');
  t.equal((await fetch(`${s.url}/version`)).status, 200);
  const help = await execaNode(BIN, ['serve', '--help'], { reject: false });
  t.match(help.stdout, /Serves HTTPS/);
  t.match(help.stdout, /--plain-http/);
  t.match(help.stdout, /--cert-dir/);
  t.match(help.stdout, /--tls-cert-file/);
  t.match(help.stdout, /--tls-private-key-file/);
});

t.test('serve on a port in use: the usage error line only, exit 2', async (t) => {
  const taken = createServer();
  await new Promise<void>((res) => taken.listen(0, '127.0.0.1', res));
  t.teardown(() => taken.close());
  const port = (taken.address() as AddressInfo).port;
  // serve's own temp dir, to see that the certificate directory it made is gone too.
  const tmp = tempDir(t);
  for (const flags of [[], ['--plain-http']]) {
    const r = await execaNode(BIN, ['serve', '--api-port', String(port), ...flags], { reject: false, timeout: 20_000, env: { TMPDIR: tmp } });
    t.equal(r.exitCode, 2, `serve ${flags.join(' ')}: exit 2`);
    // Only serve's own directory counts: the node process may leave caches of its own in TMPDIR
    // (the ts-node fork under tap writes v8-compile-cache-<uid> there from inherited loader flags).
    t.same(readdirSync(tmp).filter((f) => f.startsWith('orch-conformance-')), [], 'no certificate directory left in the temp dir');
    t.equal(r.stdout, '', 'no ca: or api: line');
    t.match(r.stderr, new RegExp(`^orch-conformance: cannot start the reference on 127\\.0\\.0\\.1:${port} \\(--api-port\\): port in use[^\n]*--api-port[^\n]*$`), 'one line, naming the fix');
    t.notMatch(r.stderr, /\n|\bat \S+ \(|EADDRINUSE/, 'no stack trace, no system error code');
  }
});

t.test('serve refuses bad TLS flag combinations and unusable files with exit 2', async (t) => {
  const dir = tempDir(t);
  const cases: Array<[string[], RegExp]> = [
    [['--tls-cert-file', join(dir, 'a.crt')], /--tls-cert-file and --tls-private-key-file go together/],
    [['--tls-private-key-file', join(dir, 'a.key')], /go together/],
    [['--cert-dir', dir, '--tls-cert-file', 'a', '--tls-private-key-file', 'b'], /not both/],
    [['--tls-cert-file', join(dir, 'missing.crt'), '--tls-private-key-file', join(dir, 'missing.key')], /cannot read the certificate file .*missing\.crt/],
    [['--cert-dir', ''], /--cert-dir needs a path/],
    [['--plain-http', '--cert-dir', dir], /--plain-http serves without TLS/],
    [['--plain-http', '--tls-cert-file', 'a', '--tls-private-key-file', 'b'], /--plain-http serves without TLS/],
  ];
  for (const [args, message] of cases) {
    const r = await execaNode(BIN, ['serve', '--api-port', '0', ...args], { reject: false, timeout: 20_000 });
    t.equal(r.exitCode, 2, `serve ${args.join(' ')}: exit 2`);
    t.match(r.stderr, message);
  }
  const refused = await execaNode(BIN, ['serve', '--api-port', '0', '--cert-dir', join(dir, 'a'), '--tls-cert-file', 'x'], { reject: false, timeout: 20_000 });
  t.equal(refused.exitCode, 2, 'refused before anything is generated');
  t.notOk(existsSync(join(dir, 'a')), 'no cert-dir was made for a refused command line');
  // A key that is not the certificate's.
  writeFileSync(join(dir, 'one.crt'), generateSelfSigned().certPem);
  writeFileSync(join(dir, 'two.key'), generateSelfSigned().keyPem);
  const mismatched = await execaNode(BIN, ['serve', '--api-port', '0', '--tls-cert-file', join(dir, 'one.crt'), '--tls-private-key-file', join(dir, 'two.key')], { reject: false, timeout: 20_000 });
  t.equal(mismatched.exitCode, 2);
  t.match(mismatched.stderr, /two\.key is not the private key of .*one\.crt/);
});

t.test('proof of the HTTPS cases: pass against an https reference, fail against the plain-HTTP proxy', async (t) => {
  const ref = await startReference({ tls: 'self-signed' });
  t.teardown(() => ref.close());
  const runOne = async (c: Case, conn: TargetConnection) => {
    const report = await runCases({ cases: [c], conn, components: { apiserver: conn }, embedded: false, gates: defaultGates(), version: 'test', timeoutMs: 20_000, strict: true });
    return report.cases[0]!;
  };
  const https = metricsDebugCases.filter((c) => c.suite === 'https');
  t.same(https.map((c) => c.id).sort(), ['debug.https.get', 'debug.https.port']);
  for (const c of https) {
    const good = await runOne(c, { baseUrl: ref.url, caPem: ref.caPem });
    t.equal(good.status, 'passed', `${c.id} passes against the https reference: ${good.message}`);
    const broken = await startBrokenTarget(ref.url, BREAKAGES[c.id]!, { caPem: ref.caPem });
    try {
      const bad = await runOne(c, { baseUrl: broken.url });
      t.equal(bad.status, 'failed', `${c.id} fails against the plain-HTTP proxy (got ${bad.status}: ${bad.message})`);
      t.match(bad.expected, /https/, `${c.id}: expected names https`);
      t.match(bad.actual, /^http:\/\/127\.0\.0\.1:\d+$/, `${c.id}: actual is the plain URL`);
      t.ok(bad.exchanges.length > 0, `${c.id}: the failure carries the recorded exchanges`);
    } finally {
      await broken.close();
    }
  }
});

t.test('the proof proxy forwards to an https upstream: other breakages still bite', async (t) => {
  const ref = await startReference({ tls: 'self-signed' });
  t.teardown(() => ref.close());
  const c = metricsDebugCases.find((x) => x.id === 'debug.health.ok')!;
  const broken = await startBrokenTarget(ref.url, BREAKAGES[c.id]!, { caPem: ref.caPem });
  t.teardown(() => broken.close());
  const conn = { baseUrl: broken.url };
  // Strict, as proofs run: a broken SHOULD case is then failed, not warned.
  const report = await runCases({ cases: [c], conn, components: { apiserver: conn }, embedded: false, gates: defaultGates(), version: 'test', timeoutMs: 20_000, strict: true });
  t.equal(report.cases[0]!.status, 'failed', `${c.id} against its breakage over an https upstream: ${report.cases[0]!.message}`);
  const passThrough = await startBrokenTarget(ref.url, {}, { caPem: ref.caPem });
  t.teardown(() => passThrough.close());
  const res = await fetch(`${passThrough.url}/healthz`);
  t.equal(res.status, 200);
  t.equal(await res.text(), 'ok');
});
