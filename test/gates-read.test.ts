// A target's gates are read from what it serves: each component's orch_feature_enabled (spec 002
// §9), unless `run --gates` states them. Gate skips say where the state came from.
import t from 'tap';
import { execaNode } from 'execa';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, startServe } from './helpers/serve.js';
import { ALL_CASES } from '../suites/index.js';
import { runCases } from '../runner/run.js';
import { parseGates } from '../runner/gates.js';
import { startReference } from '../reference/server.js';

const byId = (report: { cases: Array<{ id: string }> }) => Object.fromEntries(report.cases.map((c) => [c.id, c])) as Record<string, any>;

t.test('run --api: gates come from the target\'s orch_feature_enabled, and --gates overrides them', async (t) => {
  const { url } = await startServe(t, ['--plain-http', '--feature-gates', 'ComponentStatusz=false']);
  const dir = mkdtempSync(join(tmpdir(), 'oc-gates-'));
  const run = async (name: string, extra: string[]) => {
    const r = await execaNode(BIN, ['run', '--api', url, '--focus', '^debug\\.statusz\\.(json|gate-off)$', '--reporter', `json=${dir}/${name}.json`, ...extra], { reject: false, timeout: 120_000 });
    return { exitCode: r.exitCode, cases: byId(JSON.parse(readFileSync(`${dir}/${name}.json`, 'utf8'))) };
  };

  // No --gates: the server says ComponentStatusz is off, so the case about the gate being off runs
  // and the one needing it on is skipped, saying it is the target's word.
  const read = await run('read', []);
  t.equal(read.exitCode, 0);
  t.equal(read.cases['debug.statusz.gate-off'].status, 'passed', 'the gate-off case runs: the target reports the gate off');
  t.equal(read.cases['debug.statusz.json'].status, 'skipped');
  t.equal(read.cases['debug.statusz.json'].message, 'needs feature gate ComponentStatusz=true on apiserver; the target reports ComponentStatusz=false (orch_feature_enabled of apiserver)');

  // --gates wins over the report: the run is told the gate is on, so the case needing it runs (and
  // fails: the server has it off) and the gate-off case is skipped on the run's word.
  const told = await run('told', ['--gates', 'ComponentStatusz=true']);
  t.equal(told.exitCode, 1);
  t.equal(told.cases['debug.statusz.json'].status, 'failed', 'the case runs against what --gates says');
  t.match(told.cases['debug.statusz.json'].actual, /404/);
  t.equal(told.cases['debug.statusz.gate-off'].status, 'skipped');
  t.equal(told.cases['debug.statusz.gate-off'].message, 'needs feature gate ComponentStatusz=false on apiserver; the run declares (--gates) ComponentStatusz=true');
});

t.test('a gate every component has on its own is read per component: a case for every component runs on those that have it', async (t) => {
  const ref = await startReference({ host: '127.0.0.1', port: 0 });
  t.teardown(() => ref.close());
  // A component that reports ComponentStatusz off and, as it should then, serves no /statusz.
  const off = createServer((req, res) => {
    if (req.url === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end('# HELP orch_feature_enabled [BETA] feature state\n# TYPE orch_feature_enabled gauge\norch_feature_enabled{name="ComponentStatusz",stage="BETA"} 0\n');
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => off.listen(0, '127.0.0.1', resolve));
  t.teardown(() => off.close());
  const cases = ALL_CASES.filter((c) => c.id === 'debug.statusz.json' || c.id === 'debug.statusz.gate-off' || c.id === 'debug.statusz.api-version');
  t.equal(cases.length, 3);
  const scheduler = { baseUrl: `http://127.0.0.1:${(off.address() as AddressInfo).port}` };
  const report = await runCases({ cases, conn: { baseUrl: ref.url }, components: { scheduler }, embedded: false, gates: parseGates(undefined), readGates: true, version: 'test', strict: true });
  const by = byId(report);
  // /statusz on the API server only: the scheduler says its gate is off, and the result says so.
  t.equal(by['debug.statusz.json'].status, 'passed');
  t.equal(by['debug.statusz.json'].message, 'not checked on scheduler: needs feature gate ComponentStatusz=true on scheduler; the target reports ComponentStatusz=false (orch_feature_enabled of scheduler)');
  t.equal(by['debug.statusz.api-version'].status, 'passed');
  // Its 404 on the scheduler only: the API server reports the gate on.
  t.equal(by['debug.statusz.gate-off'].status, 'passed');
  t.equal(by['debug.statusz.gate-off'].message, 'not checked on apiserver: needs feature gate ComponentStatusz=false on apiserver; the target reports ComponentStatusz=true (orch_feature_enabled of apiserver)');
  t.equal(report.summary.failed + report.summary.errored, 0);

  // Without reading (a run that is not told to), the scheduler is taken at the 1.37 default, and
  // the case fails there: reading is what keeps the operator's choice from being blamed.
  const blind = byId(await runCases({ cases, conn: { baseUrl: ref.url }, components: { scheduler }, embedded: false, gates: parseGates(undefined), version: 'test', strict: true }));
  t.equal(blind['debug.statusz.json'].status, 'failed');
  t.match(blind['debug.statusz.json'].message, /\[scheduler\]/);
  t.equal(blind['debug.statusz.gate-off'].status, 'skipped');
  t.match(blind['debug.statusz.gate-off'].message, /ComponentStatusz=true is the assumed 1\.37 default/);
});
