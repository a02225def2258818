// The whole conformance suite through the CLI against `serve`, as users run it (`run --api` with its
// CA, the companions' metrics URLs and every controller), in one run that checks two things at once:
// - the storage changes nothing an implementer can observe: serve keeps its objects in a private etcd
//   (memory where etcd is not installed), and no case is skipped for what the storage does;
// - every gate a case depends on is declared: serve runs with the gates the spec names that are on by
//   default turned off and the run is told the same (`--gates`), strictly, so a case that leans on a
//   gate it does not declare fails here; one that declares it is skipped, naming the gate and that the
//   run declared it (helpers/gates-off.ts says why one run with all of them off is enough; the agent
//   cases get the same in gates-off.test.ts).
// The cases that need one of those gates on run through `run --api` against serve's defaults in
// cli-tls.test.ts, and embedded in the main run (conformance-doc.test.ts).
import t from 'tap';
import { execaNode } from 'execa';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { etcdUnavailable, startEtcd } from './helpers/etcd.js';
import { BIN, startServe } from './helpers/serve.js';
import { DECLARED_GATE_SKIP, GATES_OFF_FLAG, GATES_OFF_STATED } from './helpers/gates-off.js';

/**
 * Flags the server and the run share: short continue and compaction windows, so those cases run. The
 * continue window is wider than the embedded run's 2 s: a token must still be good half a window after
 * it was issued, and on a loaded CI machine a list through etcd can take most of a second each way.
 */
const WINDOWS = ['--continue-ttl', '4s', '--compaction-interval', '2s'];

interface CaseRow { id: string; status: string; message?: string; expected?: string; actual?: string }

const unavailable = etcdUnavailable();
const storage = unavailable ? 'memory' : 'etcd';

t.test(`every case passes on ${storage} with the default-on gates off, or skips only for a declared gate, a fact or a node-agent target`, async (t) => {
  t.setTimeout(900_000);
  if (unavailable) t.comment(`etcd: ${unavailable}; the run uses memory storage`);
  const dir = mkdtempSync(join(tmpdir(), 'oc-etcd-suite-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const storageFlags = unavailable ? [] : ['--storage', 'etcd', '--etcd-servers', (await startEtcd(t)).clientUrls.join(',')];
  const serve = await startServe(t, [...WINDOWS, ...storageFlags, '--feature-gates', GATES_OFF_FLAG]);
  t.ok(serve.ca && serve.components?.['controller-manager'] && serve.components?.['scheduler'], 'serve printed its CA and companions');
  const metrics = Object.entries(serve.components ?? {}).flatMap(([name, url]) => ['--metrics', `${name}=${url}`]);
  const reportFile = join(dir, 'report.json');
  const r = await execaNode(BIN, ['run', '--api', serve.url, '--ca', serve.ca!, ...metrics, '--controllers', 'all', ...WINDOWS,
    '--gates', GATES_OFF_FLAG, '--strict', '--reporter', `json=${reportFile}`], { reject: false, timeout: 400_000 });
  if (r.exitCode !== 0 && r.exitCode !== 1) throw new Error(`run exited ${r.exitCode}: ${r.stderr}`);
  const report = JSON.parse(readFileSync(reportFile, 'utf8'));
  const cases = report.cases as CaseRow[];
  // expected/actual too: a failure on CI must say what was seen, not only which assertion.
  const show = (c: CaseRow) => `${c.id}: ${c.status}${c.message ? `: ${c.message}` : ''}${c.expected || c.actual ? ` (expected ${c.expected ?? '?'}; actual ${c.actual ?? '?'})` : ''}`;
  t.equal(report.target.embedded, false);
  t.equal(report.target.api, serve.url);
  const passed = cases.filter((c) => c.status === 'passed');
  t.ok(passed.length > 550, `the run passed most of the suite (${passed.length})`);
  t.same(cases.filter((c) => c.status !== 'passed' && c.status !== 'skipped').map(show), [], `no case fails, errors or warns on ${storage} (strict)`);
  t.equal(r.exitCode, 0, `run exits 0: ${r.stderr.slice(-2000)}`);
  const skipped = cases.filter((c) => c.status === 'skipped');
  t.same(skipped.filter((c) => !/needs feature gate|needs to know .*: pass --|pass --agent <url>|pass --cri-control|pass --agent-exec/.test(c.message ?? '')).map(show), [],
    'no case is skipped for what the storage does: only gate, fact and node-agent-target skips');
  const gateSkips = skipped.filter((c) => /needs feature gate/.test(c.message ?? ''));
  // A gate the run states is the run's word; any other is read from serve's orch_feature_enabled.
  t.same(gateSkips.filter((c) => !DECLARED_GATE_SKIP.test(c.message ?? '') && !/the target reports \w+=(true|false) \(orch_feature_enabled\)/.test(c.message ?? '')).map(show), [],
    'each gate skip says where the gate state came from: the run (--gates) or the target');
  // Each of the API server's gates turned off keeps some case from running: declared and read.
  for (const [gate, on] of Object.entries(GATES_OFF_STATED)) {
    if (gate === 'ContainerCheckpoint') continue; // the agent's: gates-off.test.ts
    t.ok(gateSkips.some((c) => c.message!.includes(`the run declares (--gates) ${gate}=${on}`)), `some case is skipped for ${gate}=${on}`);
  }
  // The run left nothing behind on the server (a run-labelled object would show here).
  t.same(report.leaks ?? [], [], 'the run leaves nothing behind');
  serve.proc.kill('SIGTERM');
  t.equal((await serve.proc).exitCode, 0, 'serve shuts down cleanly on SIGTERM');
});
