// The runner and target facts: a case needing a fact the run was not told is skipped with the
// flag that would let it run; corrupt objects are handed out one per case, never shared.
import t from 'tap';
import { ALL_CASES } from '../suites/index.js';
import { runCases } from '../runner/run.js';
import { defaultGates } from '../runner/gates.js';
import { startReference } from '../reference/server.js';

const byId = (id: string) => {
  const c = ALL_CASES.find((x) => x.id === id);
  if (!c) throw new Error(`no case ${id}`);
  return c;
};

t.test('fact cases are skipped, naming the flag, when the run is not told the fact', async (t) => {
  const ref = await startReference({ host: '127.0.0.1', port: 0 });
  t.teardown(() => ref.close());
  const cases = ['api.list.continue.expired', 'api.watch.expired-resource-version', 'api.errors.internal', 'debug.health.failing-check', 'api.node-lifecycle.ready-unknown'].map(byId);
  const report = await runCases({ cases, conn: { baseUrl: ref.url }, embedded: false, gates: defaultGates(), version: 'test' });
  t.same(report.cases.map((c) => c.status), ['skipped', 'skipped', 'skipped', 'skipped', 'skipped']);
  t.match(report.cases[0]!.message, /pass --continue-ttl/);
  t.match(report.cases[1]!.message, /pass --compaction-interval/);
  t.match(report.cases[2]!.message, /pass --corrupt-object/);
  t.match(report.cases[3]!.message, /pass --failing-health-check/);
  t.match(report.cases[4]!.message, /pass --node-monitor-grace-period/);
});

t.test('each corrupt-object case gets its own object; one too few skips the last case', async (t) => {
  const planted = '/apis/storage.orch.io/v1/storageclasses/runner-facts-corrupt';
  const ref = await startReference({ host: '127.0.0.1', port: 0, debugPlantCorrupt: [planted] });
  t.teardown(() => ref.close());
  const cases = ['api.errors.internal', 'api.delete.ignore-store-read-error.unsafe-delete'].map(byId);
  const report = await runCases({ cases, conn: { baseUrl: ref.url }, embedded: false, gates: defaultGates(), facts: { corruptObjects: [planted] }, version: 'test', parallel: 1 });
  t.equal(report.cases[0]!.status, 'passed', report.cases[0]!.message);
  t.equal(report.cases[1]!.status, 'skipped');
  t.match(report.cases[1]!.message, /needs a corrupt object of its own; the 1 given \(--corrupt-object\) are taken by other cases/);
  t.equal((await fetch(`${ref.url}${planted}`)).status, 404, 'the case removed the object it was given');
});
