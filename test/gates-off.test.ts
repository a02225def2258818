// Every gate a case depends on is declared: the whole suite (agent cases included) runs against the
// embedded reference with the gates the spec names that are on by default in 1.37 turned off, told
// the same gates (`run --gates`), and nothing may fail, warn or error. A case that needs one of those
// gates on but does not say so runs here and fails; one that declares it is skipped, naming the gate
// and that the run declared it. CASE_FOCUS=<regex> runs only matching cases.
//
// Why one run with every such gate off at once, not one run per gate: each of these gates switches
// its own surface only (ComponentStatusz /statusz, ComponentFlagz /flagz, NativeHistograms the native
// exposition, ContainerCheckpoint the agent's /checkpoint route, DRAWorkloadResourceClaims the
// PodGroup claim fields) and none changes what another does, so a case that silently needs one of
// them fails here just as it would with that gate alone off: one suite run (about a minute) finds
// what five would. What it cannot see: a case that declares one of these gates on is skipped here,
// so a second, undeclared dependency of it on another of them would need that gate off alone.
// GenericWorkload is turned on: PodGroups, and so their claim fields, exist only with it, and only
// then can a case lean on DRAWorkloadResourceClaims unseen (the few cases needing GenericWorkload
// off are skipped here and run in every default run). The embedded agent runs with these gates too
// (runner/embedded.ts), so agent cases leaning on ContainerCheckpoint show up the same way.
import t from 'tap';
import { ALL_CASES } from '../suites/index.js';
import { runEmbedded } from '../runner/embedded.js';
import { defaultGates, GATES_1_37 } from '../runner/gates.js';

t.setTimeout(8 * 60_000);

/** The gates the spec names, on by default in 1.37 and not locked: each off. */
const OFF = Object.entries(GATES_1_37).filter(([, g]) => g.default && !g.locked).map(([name]) => name).sort();
const STATED: Record<string, boolean> = { ...Object.fromEntries(OFF.map((name) => [name, false])), GenericWorkload: true };

t.test('the gates turned off are the toggleable default-on gates the spec names', async (t) => {
  t.same(OFF, ['ComponentFlagz', 'ComponentStatusz', 'ContainerCheckpoint', 'DRAWorkloadResourceClaims', 'NativeHistograms']);
});

t.test('with every default-on gate off, no case fails, warns or errors: each skip names its gate and that the run declared it', async (t) => {
  const focus = process.env['CASE_FOCUS'] ? new RegExp(process.env['CASE_FOCUS']) : undefined;
  const cases = ALL_CASES.filter((c) => !focus || focus.test(c.id));
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
  // Each gate turned off keeps some case from running: the declarations are there and are read.
  for (const gate of Object.keys(STATED)) {
    if (focus) break;
    t.ok(skipped.some((c) => c.message.includes(`the run declares (--gates) ${gate}=${STATED[gate]}`)), `some case is skipped for ${gate}=${STATED[gate]}`);
  }
});
