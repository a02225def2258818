// Every gate a case depends on is declared: the cases that observe an agent run against the embedded
// reference (its agent included) with the gates the spec names that are on by default in 1.37 turned
// off, told the same gates (`run --gates`), and nothing may fail, warn or error. A case that needs one
// of those gates on but does not say so runs here and fails; one that declares it is skipped, naming
// the gate and that the run declared it. The API and metrics cases get the same check through the
// real CLI against `serve` (test/cli.test.ts), so each case runs once with the gates off; why one run
// with all of them off is enough: helpers/gates-off.ts. CASE_FOCUS=<regex> runs only matching cases.
import t from 'tap';
import { ALL_CASES } from '../suites/index.js';
import { runEmbedded } from '../runner/embedded.js';
import { defaultGates } from '../runner/gates.js';
import { AGENT_KINDS } from '../suites/case.js';
import { GATES_OFF, GATES_OFF_STATED } from './helpers/gates-off.js';

t.setTimeout(8 * 60_000);

const OFF = GATES_OFF;
const STATED = GATES_OFF_STATED;

t.test('the gates turned off are the toggleable default-on gates the spec names', async (t) => {
  t.same(OFF, ['ComponentFlagz', 'ComponentStatusz', 'ContainerCheckpoint', 'DRAWorkloadResourceClaims', 'NativeHistograms']);
});

t.test('with every default-on gate off, no case fails, warns or errors: each skip names its gate and that the run declared it', async (t) => {
  const focus = process.env['CASE_FOCUS'] ? new RegExp(process.env['CASE_FOCUS']) : undefined;
  const cases = ALL_CASES.filter((c) => c.needs.some((k) => AGENT_KINDS.has(k)) && (!focus || focus.test(c.id)));
  // Strict: a SHOULD case leaning on a gate it does not declare is as wrong as a MUST one.
  const report = await runEmbedded(cases, { version: 'test', gates: { ...defaultGates(), ...STATED }, statedGates: Object.keys(STATED), strict: true, timeoutMs: 45_000 });
  const bad = report.cases.filter((c) => c.status !== 'passed' && c.status !== 'skipped');
  for (const c of bad) t.fail(`${c.id} ${c.status}: ${c.message}`, { expected: c.expected, actual: c.actual, diagnostic: true });
  const s = report.summary;
  t.equal(bad.length, 0, `no case fails, warns or errors: ${s.passed} passed, ${s.skipped} skipped of ${s.total}`);
  t.same(report.leaks, [], 'the run leaves nothing behind');

  // The embedded run starts a reference for every case: only gates may keep one from running.
  const skipped = report.cases.filter((c) => c.status === 'skipped');
  const unexplained = skipped.filter((c) => !/needs feature gate \w+=(true|false)/.test(c.message) || !/the run declares \(--gates\)|assumed 1\.37 default/.test(c.message));
  t.same(unexplained.map((c) => `${c.id}: ${c.message}`), [], 'every skip names the gate and where its state came from');
  // The agent's gate turned off keeps its cases from running: the declarations are there and are
  // read (the API server's gates are checked so in test/cli.test.ts).
  if (!focus) t.ok(skipped.some((c) => c.message.includes('the run declares (--gates) ContainerCheckpoint=false')), 'some agent case is skipped for ContainerCheckpoint=false');
});
