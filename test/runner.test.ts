// The runner: selection, gates, expectations, deadlines, cleanup and the leak check, interrupts.
import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCases, exitCodeFor } from '../runner/run.js';
import { selectCases } from '../runner/select.js';
import { parseGates, gateMismatch, gateComponents, resolveGates, statedGateNames } from '../runner/gates.js';
import { loadExpectations } from '../runner/expect.js';
import { UsageError } from '../runner/errors.js';
import { probeTarget, TargetUnreachableError } from '../runner/target.js';
import { ALL_CASES } from '../suites/index.js';
import { defineCase, type Case } from '../suites/case.js';
import { fail, skip } from '../suites/verify.js';
import { noteMay, upstream } from '../suites/findings.js';
import { startReference } from '../reference/server.js';
import { startBrokenTarget } from './helpers/broken-target.js';

const SC = '/apis/storage.orch.io/v1/storageclasses';
const base = { suite: 'test', requirements: ['000-2.2-provisioner-required'], spec: { doc: '000', section: '2.2' }, level: 'MUST', impact: 'cluster-scoped', needs: ['api'] } as const;

/** A case that creates a labelled StorageClass and then does `then`. */
function creating(id: string, then: () => Promise<void> | void = () => undefined): Case {
  return defineCase({
    ...base, id, title: id,
    async run(ctx) {
      const name = ctx.uniqueName('obj');
      ctx.track(`${SC}/${name}`);
      const res = await ctx.api.post(SC, { apiVersion: 'storage.orch.io/v1', kind: 'StorageClass', metadata: { name, labels: { ...ctx.labels } }, provisioner: 'x.orch.io/p' });
      if (res.status !== 201) fail('create', '201', String(res.status));
      await then();
    },
  });
}

async function scNames(url: string): Promise<string[]> {
  const res = await fetch(`${url}${SC}`);
  return ((await res.json()) as any).items.map((i: any) => i.metadata.name);
}

t.test('selection by focus, skip, suite and level', async (t) => {
  const all = selectCases(ALL_CASES, {});
  t.equal(all.length, ALL_CASES.length);
  const focus = selectCases(ALL_CASES, { focus: 'reclaim-policy' });
  t.ok(focus.length >= 2 && focus.every((c) => /reclaim-policy/.test(c.id + c.title + c.requirements.join())));
  t.ok(selectCases(ALL_CASES, { focus: '000-2.2-provisioner-required' }).some((c) => c.id === 'api.storageclass.provisioner.required'), 'focus matches requirement ids');
  t.notOk(selectCases(ALL_CASES, { skip: 'storageclass' }).some((c) => c.id.includes('storageclass')));
  t.ok(selectCases(ALL_CASES, { suites: ['discovery'] }).every((c) => c.suite === 'discovery'));
  t.ok(selectCases(ALL_CASES, { level: 'SHOULD' }).every((c) => c.level === 'SHOULD'));
  t.throws(() => selectCases(ALL_CASES, { focus: '(' }), UsageError);
  t.throws(() => selectCases(ALL_CASES, { suites: ['nope'] }), UsageError);
});

t.test('gates: parsing, unknown names and mismatch reasons', async (t) => {
  t.equal(parseGates('ShardedListAndWatch=true').ShardedListAndWatch, true);
  t.throws(() => parseGates('Nope=true'), UsageError);
  t.throws(() => parseGates('ShardedListAndWatch=yes'), UsageError);
  t.same(statedGateNames('ShardedListAndWatch=true, NativeHistograms=true'), ['ShardedListAndWatch', 'NativeHistograms']);
  t.throws(() => statedGateNames('Nope=true'), UsageError);
  t.equal(gateMismatch({ ShardedListAndWatch: true }, resolveGates(parseGates('ShardedListAndWatch=true'))), undefined);
});

t.test('gate mismatch reasons say where the state came from', async (t) => {
  // Nobody said: the 1.37 default is an assumption, and says so (never "the target has").
  t.equal(gateMismatch({ ShardedListAndWatch: true }, resolveGates(parseGates(undefined))),
    'needs feature gate ShardedListAndWatch=true; ShardedListAndWatch=false is the assumed 1.37 default (the target does not report it; say otherwise with --gates ShardedListAndWatch=true)');
  // --gates: the run's statement, whatever the component reports.
  const reported = { ComponentStatusz: true, NativeHistograms: false };
  t.equal(gateMismatch({ ComponentStatusz: true }, resolveGates(parseGates('ComponentStatusz=false'), ['ComponentStatusz'], reported)),
    'needs feature gate ComponentStatusz=true; the run declares (--gates) ComponentStatusz=false');
  // A default stated explicitly still wins over the report.
  t.equal(gateMismatch({ NativeHistograms: false }, resolveGates(parseGates('NativeHistograms=true'), ['NativeHistograms'], reported)),
    'needs feature gate NativeHistograms=false; the run declares (--gates) NativeHistograms=true');
  // The component's orch_feature_enabled, named with the component when it is not the API server.
  t.equal(gateMismatch({ NativeHistograms: true }, resolveGates(parseGates(undefined), [], reported), 'scheduler'),
    'needs feature gate NativeHistograms=true on scheduler; the target reports NativeHistograms=false (orch_feature_enabled of scheduler)');
  t.equal(gateMismatch({ NativeHistograms: true }, resolveGates(parseGates(undefined), [], reported)),
    'needs feature gate NativeHistograms=true; the target reports NativeHistograms=false (orch_feature_enabled)');
  t.equal(gateMismatch({ NativeHistograms: true }, resolveGates(parseGates(undefined), [], reported), ['apiserver', 'scheduler']),
    'needs feature gate NativeHistograms=true on apiserver, scheduler; the target reports NativeHistograms=false (orch_feature_enabled of apiserver, scheduler)');
  // A gate the component does not report stays an assumed default.
  t.match(gateMismatch({ GenericWorkload: true }, resolveGates(parseGates(undefined), [], reported)), /GenericWorkload=false is the assumed 1\.37 default/);
  // A state other than the default can only have been stated.
  t.match(gateMismatch({ GenericWorkload: false }, resolveGates({ ...parseGates(undefined), GenericWorkload: true })), /the run declares \(--gates\) GenericWorkload=true/);
});

t.test('which component a gate is read on', async (t) => {
  t.same(gateComponents({ needs: ['api'] }, 'GenericWorkload'), ['apiserver']);
  t.same(gateComponents({ needs: ['api', 'agent'] }, 'ContainerCheckpoint'), ['agent']);
  t.same(gateComponents({ needs: ['api', 'agent', 'cri'] }, 'NativeHistograms'), ['agent'], 'a gate every component has: the one the case reads');
  t.same(gateComponents({ needs: ['metrics'], components: ['scheduler'] }, 'ComponentStatusz'), ['scheduler']);
  t.same(gateComponents({ needs: ['metrics'] }, 'ComponentFlagz'), ['apiserver']);
});

t.test('expect file: map and list forms, unknown ids refused', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'oc-expect-'));
  writeFileSync(join(dir, 'map.yaml'), 'api.storageclass.list: "server pages results"\n');
  writeFileSync(join(dir, 'list.json'), JSON.stringify([{ id: 'api.storageclass.list', reason: 'r' }]));
  writeFileSync(join(dir, 'bad.yaml'), 'api.no.such.case: r\n');
  writeFileSync(join(dir, 'noreason.yaml'), 'api.storageclass.list: ""\n');
  t.equal(loadExpectations(join(dir, 'map.yaml'), ALL_CASES).get('api.storageclass.list'), 'server pages results');
  t.equal(loadExpectations(join(dir, 'list.json'), ALL_CASES).get('api.storageclass.list'), 'r');
  t.throws(() => loadExpectations(join(dir, 'bad.yaml'), ALL_CASES), UsageError);
  t.throws(() => loadExpectations(join(dir, 'noreason.yaml'), ALL_CASES), UsageError);
  t.throws(() => loadExpectations(join(dir, 'missing.yaml'), ALL_CASES), UsageError);
});

t.test('results: gate skips, known failures, unexpected passes and exit codes', async (t) => {
  const ref = await startReference({ host: '127.0.0.1', port: 0 });
  t.teardown(() => ref.close());
  const failing = defineCase({ ...base, id: 'x.fails', title: 'fails', async run() { fail('always', 'a', 'b'); } });
  const passing = defineCase({ ...base, id: 'x.passes', title: 'passes', async run() {} });
  const gated = defineCase({ ...base, id: 'x.gated', title: 'gated', gates: { ShardedListAndWatch: true }, async run() {} });
  const crashing = defineCase({ ...base, id: 'x.crashes', title: 'crashes', async run() { throw new TypeError('boom'); } });
  const report = await runCases({ cases: [failing, passing, gated, crashing], conn: { baseUrl: ref.url }, embedded: false, gates: parseGates(undefined), version: 't' });
  const by = Object.fromEntries(report.cases.map((c) => [c.id, c]));
  t.equal(by['x.fails'].status, 'failed');
  t.equal(by['x.fails'].expected, 'a');
  t.equal(by['x.fails'].actual, 'b');
  t.equal(by['x.passes'].status, 'passed');
  t.equal(by['x.gated'].status, 'skipped');
  t.match(by['x.gated'].message, /^needs feature gate ShardedListAndWatch=true; ShardedListAndWatch=false is the assumed 1\.37 default/);
  t.equal(by['x.crashes'].status, 'errored');
  t.match(by['x.crashes'].message, /boom/);
  t.same(report.summary, { total: 4, passed: 1, failed: 1, warned: 0, skipped: 1, errored: 1, interrupted: 0, flaky: 0, unstarted: 0, knownFailures: 0, unexpectedPasses: 0 });
  t.equal(exitCodeFor(report), 1);

  const known = await runCases({
    cases: [failing, passing], conn: { baseUrl: ref.url }, embedded: false, gates: parseGates(undefined), version: 't',
    expectations: new Map([['x.fails', 'known bug #1']]),
  });
  t.same(known.cases[0].knownFailure, { reason: 'known bug #1' });
  t.equal(exitCodeFor(known), 0, 'a known failure does not fail the run');
  const surprise = await runCases({
    cases: [passing], conn: { baseUrl: ref.url }, embedded: false, gates: parseGates(undefined), version: 't',
    expectations: new Map([['x.passes', 'thought broken']]),
  });
  t.equal(surprise.cases[0].unexpectedPass, true);
  t.equal(exitCodeFor(surprise), 1, 'an unexpected pass fails the run');
});

t.test('findings: upstream\'s shape warns beside a held verdict, fails only when strict; a MAY note never', async (t) => {
  const ref = await startReference({ host: '127.0.0.1', port: 0 });
  t.teardown(() => ref.close());
  const shape = defineCase({ ...base, id: 'x.shape', title: 'shape', upstreamShape: true, async run() { upstream(() => fail('Status reason (upstream\'s)', 'Invalid', 'BadRequest')); } });
  const verdictAndShape = defineCase({ ...base, id: 'x.both', title: 'both', async run() { upstream(() => fail('code', '422', '400')); fail('nothing stored', '404', '200'); } });
  const mayNote = defineCase({ ...base, id: 'x.may', title: 'may', async run() { noteMay('kind inferred', 'inferred', 'required'); } });
  const should = defineCase({ ...base, level: 'SHOULD', id: 'x.should', title: 'should', async run() { fail('wording', 'a', 'b'); } });
  const cases = [shape, verdictAndShape, mayNote, should];
  for (const strict of [false, true]) {
    const report = await runCases({ cases, conn: { baseUrl: ref.url }, embedded: false, gates: parseGates(undefined), version: 't', strict });
    const by = Object.fromEntries(report.cases.map((c) => [c.id, c]));
    t.equal(by['x.shape'].status, strict ? 'failed' : 'warned', `a held verdict with a SHOULD finding (strict=${strict})`);
    t.match(by['x.shape'].message, /^SHOULD \(upstream\): Status reason/, 'the message says it is upstream\'s');
    t.same([by['x.shape'].expected, by['x.shape'].actual], ['Invalid', 'BadRequest'], 'expected vs actual of the finding');
    t.equal(by['x.both'].status, 'failed', 'a failed verdict fails, findings or not');
    t.equal(by['x.both'].expected, '404', 'and reports the verdict\'s expected');
    t.equal(by['x.both'].findings?.length, 1, 'its finding is kept beside it');
    t.equal(by['x.may'].status, 'passed', `a MAY note never warns (strict=${strict})`);
    t.same(by['x.may'].findings?.map((f) => f.level), ['MAY'], 'and is reported as information');
    t.equal(by['x.should'].status, strict ? 'failed' : 'warned');
    t.equal(report.summary.warned, strict ? 0 : 2, 'warnings counted once per case');
    t.equal(exitCodeFor(report), 1);
  }
});

t.test('objects created by a run are deleted, pass or fail, and only those', async (t) => {
  const ref = await startReference({ host: '127.0.0.1', port: 0 });
  t.teardown(() => ref.close());
  // Someone else's object, unlabelled, must survive the run.
  await fetch(`${ref.url}${SC}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'not-ours' }, provisioner: 'x.orch.io/p' }) });
  const report = await runCases({
    cases: [creating('x.ok'), creating('x.bad', () => fail('after create', 'x', 'y'))],
    conn: { baseUrl: ref.url }, embedded: false, gates: parseGates(undefined), version: 't', runId: 'cleanup1',
  });
  t.same(report.cases.map((c) => c.status), ['passed', 'failed']);
  t.same(report.leaks, []);
  t.same(await scNames(ref.url), ['not-ours']);
});

t.test('the leak check reports labelled objects the target failed to delete', async (t) => {
  const ref = await startReference({ host: '127.0.0.1', port: 0 });
  t.teardown(() => ref.close());
  // A target that acknowledges deletes without doing them.
  const broken = await startBrokenTarget(ref.url, { request: (r) => (r.method === 'DELETE' ? { status: 200, headers: {}, body: '{}' } : undefined) });
  t.teardown(() => broken.close());
  const report = await runCases({ cases: [creating('x.leaky')], conn: { baseUrl: broken.url }, embedded: false, gates: parseGates(undefined), version: 't', runId: 'leak1' });
  // The storage class, and the run's namespace (cluster-scoped cases get one too: they may create pods).
  t.equal(report.leaks.filter((l) => /storageclasses\/oc-leak1-/.test(l)).length, 1, 'the storage class is reported');
  t.same(report.leaks.filter((l) => !/storageclasses\/|namespaces\/oc-leak1$/.test(l)), [], 'nothing but it and the run\'s namespace');
  t.equal(exitCodeFor(report), 1, 'a leak fails the run');
  const names = await scNames(ref.url);
  t.ok(names.every((n) => n.startsWith('oc-leak1-')), 'nothing else was touched');
});

t.test('a hanging target: each case times out, the run finishes and still cleans up', async (t) => {
  const ref = await startReference({ host: '127.0.0.1', port: 0 });
  t.teardown(() => ref.close());
  // Creates go through, then every read hangs forever.
  const broken = await startBrokenTarget(ref.url, { request: (r) => (r.method === 'GET' && r.path.includes('/storageclasses/') ? new Promise<void>(() => undefined) : undefined) });
  t.teardown(() => broken.close());
  const hangs = (id: string) => defineCase({
    ...base, id, title: id,
    async run(ctx) {
      const name = ctx.uniqueName('h');
      ctx.track(`${SC}/${name}`);
      await ctx.api.post(SC, { metadata: { name, labels: { ...ctx.labels } }, provisioner: 'x.orch.io/p' });
      await ctx.api.get(`${SC}/${name}`);
    },
  });
  const started = Date.now();
  const report = await runCases({ cases: [hangs('x.h1'), hangs('x.h2'), hangs('x.h3')], conn: { baseUrl: broken.url }, embedded: false, gates: parseGates(undefined), version: 't', timeoutMs: 500, parallel: 3, runId: 'hang1' });
  t.ok(Date.now() - started < 15_000, 'the run finished');
  t.same(report.cases.map((c) => c.status), ['errored', 'errored', 'errored']);
  t.match(report.cases[0].message, /timed out after 0.5s/);
  t.ok(report.cases[0].exchanges.length >= 2, 'the timed-out case keeps its exchanges');
  t.same(report.leaks, []);
  t.same(await scNames(ref.url), [], 'cleanup deleted what the cases created');
});

t.test('an interrupted run reports what has not started as not started, and cleans up', async (t) => {
  const ref = await startReference({ host: '127.0.0.1', port: 0 });
  t.teardown(() => ref.close());
  const interrupt = new AbortController();
  const slow = creating('x.slow', () => new Promise<void>((resolve) => { interrupt.abort(); setTimeout(resolve, 200); }));
  const later = creating('x.later');
  const report = await runCases({ cases: [slow, later], conn: { baseUrl: ref.url }, embedded: false, gates: parseGates(undefined), version: 't', interrupt: interrupt.signal, parallel: 1 });
  t.equal(report.interrupted, true);
  t.equal(report.cases[0].status, 'interrupted', 'a case stopped by the interrupt is interrupted, not errored');
  t.equal(report.cases[1].status, 'unstarted', 'a case never started is reported not started, not skipped');
  t.same(await scNames(ref.url), []);
});

t.test('probe: an unreachable target is a clear error; any HTTP answer is reachable', async (t) => {
  const dead = createServer();
  await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
  const port = (dead.address() as AddressInfo).port;
  await new Promise<void>((r) => dead.close(() => r()));
  await t.rejects(probeTarget({ baseUrl: `http://127.0.0.1:${port}` }), TargetUnreachableError);
  await t.rejects(probeTarget({ baseUrl: `http://127.0.0.1:${port}` }), { message: /cannot reach the target API at http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/ });
  const teapot = createServer((_q, s) => { s.statusCode = 418; s.end(); });
  await new Promise<void>((r) => teapot.listen(0, '127.0.0.1', r));
  t.teardown(() => teapot.close());
  await probeTarget({ baseUrl: `http://127.0.0.1:${(teapot.address() as AddressInfo).port}` });
  const silent = createServer(() => undefined);
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  t.teardown(() => { silent.closeAllConnections(); silent.close(); });
  await t.rejects(probeTarget({ baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}` }, 300), { message: /no answer within 0.3s/ });
});

t.test('metrics targets: ctx.component reaches each named component, apiserver defaults to the API, missing ones skip', async (t) => {
  // Two plain servers standing for an API server and an agent: each says who it is and what was asked.
  const serve = (who: string) => createServer((q, s) => { s.setHeader('content-type', 'text/plain'); s.end(`${who} ${q.url} accept=${q.headers.accept ?? '(none)'}`); });
  const api = serve('api');
  const agent = serve('agent');
  for (const s of [api, agent]) await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  t.teardown(() => { api.close(); agent.close(); });
  const url = (s: typeof api) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  const seen: string[] = [];
  const metricsBase = { ...base, needs: ['metrics'], impact: 'read-only' } as const;
  const both = defineCase({
    ...metricsBase, id: 'x.both', title: 'both', components: ['apiserver', 'agent'],
    async run(ctx) {
      seen.push((await ctx.component().get('/healthz', { headers: { accept: undefined } })).text);
      seen.push((await ctx.component('agent').get('/metrics')).text);
      fail('to see the exchanges', 'a', 'b');
    },
  });
  const agentOnly = defineCase({ ...metricsBase, id: 'x.agent', title: 'agent', components: ['agent'], async run() {} });
  const apiOnly = defineCase({ ...metricsBase, id: 'x.api', title: 'api', async run(ctx) { seen.push((await ctx.component().get('/statusz')).text); } });

  const without = await runCases({ cases: [both, agentOnly, apiOnly], conn: { baseUrl: url(api) }, embedded: false, gates: parseGates(undefined), version: 't' });
  t.same(without.cases.map((c) => c.status), ['skipped', 'skipped', 'passed']);
  t.match(without.cases[0]!.message, /needs the metrics and debug endpoints of component "agent": pass --metrics agent=<url>/);
  t.same(seen, [`api /statusz accept=application/json`], 'apiserver is the API URL when not given');
  t.equal(without.target.metrics, undefined);

  seen.length = 0;
  const withAgent = await runCases({ cases: [both], conn: { baseUrl: url(api) }, components: { agent: { baseUrl: url(agent) } }, embedded: false, gates: parseGates(undefined), version: 't' });
  t.same(seen, ['api /healthz accept=(none)', 'agent /metrics accept=application/json']);
  t.same(withAgent.cases[0]!.exchanges.map((e) => e.url), [`${url(api)}/healthz`, `${url(agent)}/metrics`], 'one exchange log for the case, in order');
  t.same(withAgent.target.metrics, { agent: url(agent) });
});

t.test('a case that cannot observe its rule is skipped with the reason, not passed', async (t) => {
  const ref = await startReference({ host: '127.0.0.1', port: 0 });
  t.teardown(() => ref.close());
  const unobservable = defineCase({
    id: 'x.unobservable', title: 'skips', suite: 'x', requirements: ['000-7-status-gone'], spec: { doc: '000', section: '7' },
    level: 'MUST', impact: 'read-only', needs: ['api'],
    run: async () => skip('the server ignored limit'),
  });
  const report = await runCases({ cases: [unobservable], conn: { baseUrl: ref.url }, embedded: false, gates: parseGates(undefined), version: 't' });
  t.equal(report.cases[0]!.status, 'skipped');
  t.match(report.cases[0]!.message, /the server ignored limit/);
  t.equal(exitCodeFor(report), 2, 'its only case skipped: the run checked nothing, which is no pass (issue 25)');
});
