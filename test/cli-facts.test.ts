// Target facts from the command line: `run --api` against a `serve` configured so that the facts
// hold (short continue-token validity and history, a failing check, planted corrupt objects) runs
// the cases that need them; the embedded run refuses fact flags; bad values are usage errors.
import t from 'tap';
import { execaNode } from 'execa';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, startServe } from './helpers/serve.js';

const cli = (args: string[]) => execaNode(BIN, args, { reject: false, timeout: 120_000 });

const CORRUPT = ['/apis/storage.orch.io/v1/storageclasses/facts-corrupt-a', '/apis/storage.orch.io/v1/storageclasses/facts-corrupt-b'];

t.test('run --api with fact flags runs the fact cases against a serve configured to match', async (t) => {
  const { url } = await startServe(t, ['--plain-http', '--continue-ttl', '2s', '--compaction-interval', '1s', '--debug-fail-health-check', 'informer-sync', ...CORRUPT.flatMap((p) => ['--debug-plant-corrupt', p])]);
  const dir = mkdtempSync(join(tmpdir(), 'oc-facts-'));
  const focus = 'continue\\.(expired|valid)|expired-resource-version|errors\\.internal|unsafe-delete|failing-check|failed-zero';
  const r = await cli(['run', '--api', url, '--focus', focus, '--continue-ttl', '2s', '--compaction-interval', '1s', '--failing-health-check', 'readyz/informer-sync', ...CORRUPT.flatMap((p) => ['--corrupt-object', p]), '--reporter', `json=${dir}/r.json`]);
  const report = JSON.parse(readFileSync(`${dir}/r.json`, 'utf8'));
  const notPassed = (report.cases as any[]).filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.status} ${c.message}`);
  t.equal(r.exitCode, 0, `exit 0\n${notPassed.join('\n')}\n${r.stderr}`);
  t.equal(report.summary.total, 10, 'the fact cases were selected');
  t.same(notPassed, [], 'every fact case ran and passed');
  // The two corrupt-object cases each removed the object they were given.
  for (const p of CORRUPT) t.equal((await fetch(`${url}${p}`)).status, 404, `${p} removed`);
});

t.test('run --api --node-monitor-grace-period runs the node lifecycle cases against serve --node-monitor-grace-period', async (t) => {
  const { url } = await startServe(t, ['--plain-http', '--node-monitor-grace-period', '2s', '--node-monitor-period', '200ms']);
  const dir = mkdtempSync(join(tmpdir(), 'oc-facts-'));
  const r = await cli(['run', '--api', url, '--focus', '^api\\.node-lifecycle\\.(ready-unknown|unreachable-taint)$', '--node-monitor-grace-period', '2s', '--reporter', `json=${dir}/r.json`]);
  const report = JSON.parse(readFileSync(`${dir}/r.json`, 'utf8'));
  t.equal(r.exitCode, 0, `exit 0\n${r.stderr}`);
  t.same((report.cases as any[]).map((c) => `${c.id}: ${c.status}`).sort(), ['api.node-lifecycle.ready-unknown: passed', 'api.node-lifecycle.unreachable-taint: passed']);
  t.same(report.selection.facts, [{ fact: 'nodeMonitorGracePeriod', flag: '--node-monitor-grace-period', value: '2s' }], 'the stated fact is in the report');
});

t.test('fact flags: refused without --api, bad values are usage errors', async (t) => {
  for (const [args, msg] of [
    [['run', '--continue-ttl', '2s'], /--continue-ttl describes a target given with --api/],
    [['run', '--api', 'http://127.0.0.1:1', '--continue-ttl', 'soon'], /--continue-ttl soon: want a positive duration/],
    [['serve', '--api-port', '0', '--debug-fail-health-check', 'nope'], /--debug-fail-health-check nope: no such check; checks: ping, log/],
    [['run', '--api', 'http://127.0.0.1:1', '--compaction-interval', '0s'], /--compaction-interval 0s: want a positive duration/],
    [['run', '--node-monitor-grace-period', '3s'], /--node-monitor-grace-period describes a target given with --api/],
    [['run', '--api', 'http://127.0.0.1:1', '--node-monitor-grace-period', 'soon'], /--node-monitor-grace-period soon: want a positive duration/],
    [['run', '--api', 'http://127.0.0.1:1', '--failing-health-check', 'etcd'], /--failing-health-check etcd: want endpoint\/check/],
    [['run', '--api', 'http://127.0.0.1:1', '--corrupt-object', 'storageclasses/x'], /--corrupt-object storageclasses\/x: want an object's path/],
    [['run', '--api', 'http://127.0.0.1:1', '--corrupt-object', CORRUPT[0]!, '--corrupt-object', CORRUPT[0]!], /the same object given twice/],
  ] as const) {
    const r = await cli([...args]);
    t.equal(r.exitCode, 2, `${args.join(' ')} exits 2`);
    t.match(r.stderr, msg, `${args.join(' ')} says why`);
  }
});
