// Issue 26 part 1, differential replay: a planted non-conformance (the reference behind a proxy
// broken in one rule) fails its case, and the replay against the embedded reference names what the
// reference answered and the field that differs; the structural body diff leaves out what cases
// treat as free; the reporters show it; `report --differential` does it on a saved results file.
import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execaNode } from 'execa';
import { cmdReport } from '../../bin/commands/report.js';
import { cmdRun } from '../../bin/commands/run.js';
import { runCases } from '../../runner/run.js';
import { profileOf, startEmbeddedTarget } from '../../runner/embedded.js';
import { bodyDiff, firstDifference, replayOnReference } from '../../runner/differential.js';
import { renderReport } from '../../reporters/index.js';
import { ALL_CASES } from '../../suites/index.js';
import { startBrokenTarget } from '../helpers/broken-target.js';
import { controlPlaneBreakages } from '../proof/control-plane.js';
import type { Exchange, RunReport } from '../../runner/results.js';

const BIN = new URL('../../bin/orch-conformance.js', import.meta.url).pathname;
const caseOf = (id: string) => ALL_CASES.find((c) => c.id === id)!;

type Target = Awaited<ReturnType<typeof startEmbeddedTarget>>;

/** Runs one case against the reference behind a proxy broken in that case's rule. */
async function brokenRun(target: Target, id: string): Promise<RunReport> {
  const broken = await startBrokenTarget(target.group.conn.baseUrl, controlPlaneBreakages[id]!, { caPem: target.group.conn.caPem });
  try {
    const conn = { ...target.group.conn, baseUrl: broken.url };
    return await runCases({ cases: [caseOf(id)], conn, components: { apiserver: conn }, embedded: false, gates: target.group.gates, version: 'test', timeoutMs: 20_000, strict: false });
  } finally {
    await broken.close();
  }
}

// One reference behind the broken proxies of both planted non-conformances (both cases have the
// default profile); each replay starts references of its own, as the command does.
t.test('planted non-conformances', async (t) => {
  const target = await startEmbeddedTarget(profileOf(caseOf('api.storageclass.provisioner.required')), { runId: 'dift' });
  t.teardown(() => target.close());

  t.test('run --api ... --differential: a status the target answers where the reference refuses, named with its cause', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'oc-diff-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const id = 'api.storageclass.provisioner.required';
    const broken = await startBrokenTarget(target.group.conn.baseUrl, controlPlaneBreakages[id]!, { caPem: target.group.conn.caPem });
    t.teardown(() => broken.close());
    const file = join(dir, 'results.json');
    // The command line's own path: the reporters render once the replay is done.
    const res = await execaNode(BIN, ['run', '--api', broken.url, '--id', id, '--differential', '--reporter', `json=${file}`, '--reporter', 'console'], { reject: false });
    t.equal(res.exitCode, 1, 'the exit code stays the target\'s verdict');
    t.match(res.stdout, /Differential \(reference: passed\): at POST \/apis\/storage\.orch\.io\/v1\/storageclasses the reference answered 422 Invalid with cause `provisioner`; the target answered 201/, 'the console shows it at the failure');
    const report = JSON.parse(readFileSync(file, 'utf8')) as RunReport;
    const r = report.cases[0]!;
    t.equal(r.status, 'failed', 'the planted non-conformance fails its case');
    const d = r.differential!;
    t.equal(d.referenceStatus, 'passed', 'the reference passes the case');
    t.equal(d.exchange?.request, 'POST /apis/storage.orch.io/v1/storageclasses', 'the differing exchange is the create');
    t.equal(d.exchange?.reference.status, 422);
    t.equal(d.exchange?.target.status, 201);
    t.ok(d.exchange?.fields.some((f) => f.path === 'code' && f.reference === '422'), 'the body diff shows the Status code the reference sent');
    t.match(renderReport('markdown', report), /Differential \(reference: passed\).*cause .*provisioner/);
    t.match(renderReport('html', report), /<div class="differential">.*422 Invalid with cause `provisioner`/s);
    // `report --differential` replays a saved file (in-process here: no second CLI start).
    delete r.differential;
    writeFileSync(file, JSON.stringify(report));
    const out = join(dir, 'again.json');
    t.equal(await cmdReport({ results: file, differential: true, reporter: [`json=${out}`] }, 'test'), 1, 'report keeps the run\'s exit code');
    t.same(JSON.parse(readFileSync(out, 'utf8')).cases[0].differential.summary, d.summary, 'report --differential finds the same');
    await t.rejects(cmdRun({ differential: true, id: [id], parallel: 1, timeout: 30 }, 'test'), /--differential compares a target given with --api/, 'without --api there is nothing to compare');
  });

  t.test('a field the target drops from an answer: both answered alike, the missing field is named', async (t) => {
    const report = await brokenRun(target, 'api.storageclass.parameters.round-trip');
    const r = report.cases[0]!;
    t.equal(r.status, 'failed');
    await replayOnReference(report, { cases: ALL_CASES, version: 'test' });
    const d = r.differential!;
    t.equal(d.referenceStatus, 'passed');
    t.match(d.summary, /both answered 20\d, but the target's answer lacks `parameters\.[^`]+`/, d.summary);
    t.ok(d.exchange?.fields.every((f) => f.change === 'missing' && f.path.startsWith('parameters.')), 'only the dropped parameter differs (resourceVersion, uid, times are left out)');
  });
});

t.test('the structural diff leaves out what cases treat as free', async (t) => {
  const ref = { kind: 'List', metadata: { resourceVersion: '10', continue: 'abc' }, items: [
    { metadata: { name: 'a', uid: '1', creationTimestamp: 't1', managedFields: [{ manager: 'x' }] }, spec: { x: 1 } },
    { metadata: { name: 'b', uid: '2' }, spec: { x: 2 } },
  ] };
  const tgt = { kind: 'List', metadata: { resourceVersion: '99' }, items: [
    { metadata: { name: 'b', uid: '9' }, spec: { x: 2 } },
    { metadata: { name: 'a', uid: '8', creationTimestamp: 't2' }, spec: { x: 1 } },
  ] };
  t.same(bodyDiff(JSON.stringify(ref), JSON.stringify(tgt)), [], 'resourceVersion, uid, timestamps, managedFields, continue and list order');
  const gen = (name: string) => JSON.stringify({ metadata: { generateName: 'p-', name }, status: { conditions: [{ type: 'Ready', lastTransitionTime: name }] } });
  t.same(bodyDiff(gen('p-abc'), gen('p-xyz')), [], 'generated names and condition times');
  t.same(bodyDiff(JSON.stringify({ a: 1, b: { c: 'x' } }), JSON.stringify({ b: { c: 'y' }, d: true })), [
    { path: 'a', change: 'missing', reference: '1' },
    { path: 'b.c', change: 'changed', reference: '"x"', target: '"y"' },
    { path: 'd', change: 'added', target: 'true' },
  ], 'fields missing, changed and added');
  // Paths that carry each run's id compare alike; the exchange the failure is about bounds the search.
  const ex = (url: string, status: number, body = '{}'): Exchange => ({ method: 'GET', url, requestHeaders: {}, status, responseBody: body, durationMs: 1 });
  const target = [ex('https://impl:6443/api/v1/namespaces/oc-aaa', 200), ex('https://impl:6443/x', 500)];
  const reference = [ex('http://127.0.0.1:1/api/v1/namespaces/oc-bbb', 404), ex('http://127.0.0.1:1/x', 200)];
  t.equal(firstDifference(target, reference, ['aaa', 'bbb'])?.request, 'GET /api/v1/namespaces/oc-<run>', 'run ids made alike');
  t.equal(firstDifference(target.slice(1), reference.slice(1), ['aaa', 'bbb'], 0)?.target.status, 500);
});

