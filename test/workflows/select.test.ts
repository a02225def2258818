// Issue 25, selection and retry: --id, --rerun-failed, the rerun command of a failure, --retries
// and flaky, "did you mean", --level in any case, --agent-exec checked before any case.
import t, { type Test } from 'tap';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execaNode } from 'execa';
import { exitCodeFor, runCases } from '../../runner/run.js';
import { selectCases } from '../../runner/select.js';
import { loadExpectations } from '../../runner/expect.js';
import { planRerun, redactArgs, rerunCommand } from '../../runner/rerun.js';
import { closest } from '../../runner/suggest.js';
import { agentCommandProblem } from '../../runner/agent-exec.js';
import { UsageError } from '../../runner/errors.js';
import { verdict } from '../../reporters/format.js';
import { renderConsoleSummary } from '../../reporters/console.js';
import { ALL_CASES } from '../../suites/index.js';
import { defineCase, type Case } from '../../suites/case.js';
import { fail } from '../../suites/verify.js';
import type { RunReport } from '../../runner/results.js';
import { kase } from '../helpers/report-fixture.js';

const BIN = new URL('../../bin/orch-conformance.js', import.meta.url).pathname;
const ids = (cs: readonly Case[]) => cs.map((c) => c.id).sort();

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'oc-select-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('--id selects exactly its cases; an unknown id is refused with the nearest ones', async (t) => {
  t.same(ids(selectCases(ALL_CASES, { ids: ['api.shape.role'] })), ['api.shape.role'], 'not api.shape.rolebinding too');
  t.ok(selectCases(ALL_CASES, { focus: 'api.shape.role' }).length > 1, 'where --focus api.shape.role takes more than one');
  t.same(ids(selectCases(ALL_CASES, { ids: ['api.shape.role', 'api.shape.event'] })), ['api.shape.event', 'api.shape.role']);
  t.same(selectCases(ALL_CASES, { ids: ['api.shape.role'], level: 'SHOULD' }).length, ALL_CASES.find((c) => c.id === 'api.shape.role')!.level === 'SHOULD' ? 1 : 0, 'the other flags still apply');
  t.throws(() => selectCases(ALL_CASES, { ids: ['api.shape.rol'] }), { name: 'UsageError', message: /no case has the id "api.shape.rol" \(did you mean api\.shape\.role/ });
  t.throws(() => selectCases(ALL_CASES, { suites: ['shape'] }), { message: /unknown suite "shape" \(did you mean shapes\?\)/ });
});

t.test('did you mean: near names only', async (t) => {
  t.same(closest('fous', ['focus', 'skip', 'suite']), ['focus']);
  t.same(closest('x', ['focus', 'skip']), [], 'nothing close, nothing said');
  const dir = tempDir(t);
  const file = join(dir, 'expect.yaml');
  writeFileSync(file, 'api.shape.rol: typo\n');
  t.throws(() => loadExpectations(file, ALL_CASES), { message: /no case has the id "api.shape.rol" \(did you mean api\.shape\.role/ });
});

/** A target whose GET /flaky answers 500 the first `failures` times, then 200. */
async function flakyTarget(t: Test, failures: number): Promise<string> {
  let seen = 0;
  const server: Server = createServer((req, res) => {
    res.writeHead(req.url === '/flaky' && seen++ < failures ? 500 : 200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const names: string[] = [];
const flakyCase = defineCase({
  id: 'test.flaky', title: 'GET /flaky answers 200', suite: 'test', requirements: ['000-2.2-provisioner-required'],
  spec: { doc: '000', section: '2.2' }, level: 'MUST', impact: 'read-only', needs: ['api'],
  async run(ctx) {
    names.push(ctx.uniqueName('obj'));
    const res = await ctx.api.get('/flaky');
    if (res.status !== 200) fail('GET /flaky does not answer 200', '200', String(res.status));
  },
});

t.test('--retries: a case that fails once and then passes is flaky, with both attempts', async (t) => {
  const run = async (failures: number, extra: { retries?: number; expectations?: Map<string, string>; strict?: boolean } = {}) =>
    runCases({ cases: [flakyCase], conn: { baseUrl: await flakyTarget(t, failures) }, embedded: false, gates: {}, version: 'test', ...extra });

  const once = await run(1);
  t.equal(once.cases[0]!.status, 'failed', 'without --retries the first failure is the verdict');
  t.equal(once.cases[0]!.attempts, undefined);

  names.length = 0;
  const flaky = await run(1, { retries: 2 });
  const r = flaky.cases[0]!;
  t.equal(r.status, 'flaky');
  t.equal(r.attempts?.length, 2, 'it stops at the first pass');
  t.same(r.attempts!.map((a) => a.status), ['failed', 'passed']);
  t.ok(r.attempts![0]!.exchanges.some((x) => x.status === 500), 'the failed attempt keeps its evidence');
  t.ok(r.attempts![1]!.exchanges.some((x) => x.status === 200), 'and so does the passing retry');
  t.match(r.message, /passed on attempt 2 of 3; attempt 1 failed: GET \/flaky does not answer 200/);
  t.equal(new Set(names).size, 2, `each attempt names its objects apart (${names.join(', ')})`);
  t.equal(flaky.summary.flaky, 1);
  t.equal(flaky.retries, 2, 'the report says how many retries the run allowed');
  t.equal(exitCodeFor(flaky), 0, 'flaky passes the run');
  t.equal(verdict(flaky), 'PASS');
  t.equal(exitCodeFor({ ...flaky, strict: true }), 1, 'but not with --strict');
  t.equal(verdict({ ...flaky, strict: true }), 'FAIL');

  const always = (await run(5, { retries: 2 })).cases[0]!;
  t.equal(always.status, 'failed', 'failing every attempt is a failure');
  t.equal(always.attempts?.length, 3);

  const listed = (await run(1, { retries: 2, expectations: new Map([['test.flaky', 'known']]) })).cases[0]!;
  t.equal(listed.attempts, undefined, 'a known failure is not retried');
  t.ok(listed.knownFailure);
});

/** A results file of a run against --api, with one case of each outcome. */
function results(over: Partial<RunReport> = {}): RunReport {
  return {
    tool: 'orch-conformance', version: 'test', runId: 'abc', startedAt: new Date(0).toISOString(), durationMs: 1,
    target: { api: 'https://10.0.0.1:6443', embedded: false, metrics: { scheduler: 'https://10.0.0.1:10259' }, agent: { url: 'https://10.0.0.2:10250', node: 'n1' } },
    summary: { total: 5, passed: 1, failed: 1, warned: 1, skipped: 0, errored: 1, interrupted: 0, knownFailures: 1, unexpectedPasses: 0 },
    cases: [
      kase({ id: 'api.shape.role', status: 'passed' }),
      kase({ id: 'api.shape.rolebinding', status: 'failed', message: 'boom' }),
      kase({ id: 'api.shape.event', status: 'errored', message: 'timed out' }),
      kase({ id: 'api.shape.podgroup', status: 'warned', level: 'SHOULD' }),
      kase({ id: 'api.shape.clusterrole', status: 'failed', knownFailure: { reason: 'known' } }),
    ],
    leaks: [], cleanupUnverified: [], interrupted: false, strict: false,
    selection: { suites: [], facts: [{ fact: 'continueTtl', flag: '--continue-ttl', value: '300s' }, { fact: 'authentication', flag: '--token' }], gates: { ShardedListAndWatch: true }, strict: false, selectedCases: 5, totalCases: 5, partial: false },
    command: ['run', '--api', 'https://10.0.0.1:6443', '--token', '<redacted>', '--suite', 'shapes', 'api', '--focus=shape', '--reporter', 'json=r.json', 'junit=j.xml', '--retries', '1'],
    ...over,
  };
}

t.test('--rerun-failed: the failed set of a results file, with its target unless given again', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'results.json');
  writeFileSync(file, JSON.stringify(results()));
  const plan = planRerun(file, {}, ALL_CASES);
  t.same(plan.ids.sort(), ['api.shape.event', 'api.shape.rolebinding'], 'failed and errored; not a pass, a warning or a known failure');
  t.equal(plan.defaults.api, 'https://10.0.0.1:6443');
  t.same(plan.defaults.metrics, ['scheduler=https://10.0.0.1:10259']);
  t.equal(plan.defaults.agent, 'https://10.0.0.2:10250');
  t.equal(plan.defaults.node, 'n1');
  t.equal(plan.defaults.gates, 'ShardedListAndWatch=true');
  t.equal(plan.defaults.continueTtl, '300s');
  t.equal(plan.defaults.token, undefined, 'never a credential');
  t.same(plan.args, ['--api', 'https://10.0.0.1:6443', '--metrics', 'scheduler=https://10.0.0.1:10259', '--agent', 'https://10.0.0.2:10250', '--node', 'n1', '--gates', 'ShardedListAndWatch=true', '--continue-ttl', '300s'], 'as flags, for the report\'s command');
  t.same(planRerun(file, { strict: true }, ALL_CASES).ids.sort(), ['api.shape.event', 'api.shape.podgroup', 'api.shape.rolebinding'], 'with --strict its warnings too');
  const over = planRerun(file, { api: 'https://other:6443', continueTtl: '1m' }, ALL_CASES);
  t.equal(over.defaults.api, undefined, 'an option given again wins');
  t.equal(over.defaults.continueTtl, undefined);
  t.equal(planRerun(file, { kubeconfig: 'kc' }, ALL_CASES).defaults.api, undefined, '--kubeconfig gives the server');

  // The embedded run records the agent, runtime and command it started for itself: not to be taken.
  writeFileSync(file, JSON.stringify(results({ target: { embedded: true, agent: { url: 'https://127.0.0.1:1', node: 'n' }, criControl: '/tmp/c.sock', agentExec: 'node agent' } })));
  t.same(planRerun(file, {}, ALL_CASES).args, ['--gates', 'ShardedListAndWatch=true', '--continue-ttl', '300s']);

  writeFileSync(file, JSON.stringify(results({ cases: [kase({ id: 'api.shape.role', status: 'passed' })] })));
  t.throws(() => planRerun(file, {}, ALL_CASES), { name: 'UsageError', message: /nothing to rerun/ });
  writeFileSync(file, JSON.stringify(results({ cases: [kase({ id: 'api.shape.gone', status: 'failed' })] })));
  t.throws(() => planRerun(file, {}, ALL_CASES), { message: /no case has the id "api.shape.gone"/ });
  writeFileSync(file, '{"cases": []}');
  t.throws(() => planRerun(file, {}, ALL_CASES), UsageError, 'not a results file');
});

t.test('every failure ends with the command that reruns it alone; secrets are redacted', async (t) => {
  t.same(redactArgs(['run', '--token', 's3cret', '--token=s3cret', '--api', 'x']), ['run', '--token', '<redacted>', '--token=<redacted>', '--api', 'x']);
  const report = results();
  t.equal(rerunCommand(report, 'api.shape.rolebinding'),
    "orch-conformance run --api https://10.0.0.1:6443 --token '<redacted>' --retries 1 --id api.shape.rolebinding",
    'the selection and the reports give way to --id');
  t.equal(rerunCommand({ ...report, command: undefined }, 'api.shape.event'),
    'orch-conformance run --api https://10.0.0.1:6443 --metrics scheduler=https://10.0.0.1:10259 --agent https://10.0.0.2:10250 --node n1 --gates ShardedListAndWatch=true --continue-ttl 300s --id api.shape.event',
    'a report without its command line: from its target');
  const text = renderConsoleSummary(report);
  t.match(text, /api\.shape\.rolebinding[\s\S]*rerun: orch-conformance run .* --id api\.shape\.rolebinding/);
  t.match(text, /rerun: orch-conformance run .* --id api\.shape\.event/);
});

t.test('--agent-exec: a command that cannot start is found before any case', async (t) => {
  t.match(agentCommandProblem('no-such-agent-binary --flag'), /"no-such-agent-binary" is not a command/);
  t.match(agentCommandProblem('./no/such/agent'), /no such file/);
  t.equal(agentCommandProblem(`FOO=1 ${process.execPath} agent.js`), undefined, 'assignments first, then an executable');
  t.equal(agentCommandProblem('exec node x'), undefined, 'a builtin');
  t.equal(agentCommandProblem('"$AGENT" --x'), undefined, 'what the shell would expand is left to the run');
  // Checked in the plan of the run, before the target is even probed (port 1: nothing listens).
  const run = await execaNode(BIN, ['run', '--api', 'http://127.0.0.1:1', '--agent-exec', 'no-such-agent-binary', '--suite', 'node-agent'], { reject: false });
  t.equal(run.exitCode, 2, 'a usage error, not 3 (unreachable) nor an error per case');
  t.match(run.stderr, /^orch-conformance: --agent-exec no-such-agent-binary: cannot start agents: "no-such-agent-binary" is not a command/);
  t.equal(run.stderr.trim().split('\n').length, 1, 'one message');
});

t.test('CLI: run --rerun-failed reruns exactly the failed set; --level in any case; did you mean', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'results.json');
  const out = join(dir, 'rerun.json');
  writeFileSync(file, JSON.stringify(results({ target: { embedded: true }, selection: undefined })));
  const run = await execaNode(BIN, ['run', '--rerun-failed', file, '--level', 'must', '--reporter', `json=${out}`], { reject: false, timeout: 60_000 });
  t.equal(run.exitCode, 0, run.stderr);
  const report = JSON.parse(readFileSync(out, 'utf8')) as RunReport;
  const want = ALL_CASES.filter((c) => ['api.shape.event', 'api.shape.rolebinding'].includes(c.id) && c.level === 'MUST').map((c) => c.id).sort();
  t.ok(want.length > 0);
  t.same(report.cases.map((c) => c.id).sort(), want, 'the failed and errored cases, at the level asked');
  t.equal(report.selection?.rerunFailed, file);
  t.same(report.command, ['run', '--rerun-failed', file, '--level', 'must', '--reporter', `json=${out}`]);
  const typo = await execaNode(BIN, ['run', '--fous', 'x', '--id', 'api.shape.role'], { reject: false });
  t.equal(typo.exitCode, 2);
  t.match(typo.stderr, /Unknown argument: fous\n\s+fous: did you mean --focus\?/);
  const command = await execaNode(BIN, ['lst'], { reject: false });
  t.equal(command.exitCode, 2);
  t.match(command.stderr, /Did you mean list\?/);
  const both = await execaNode(BIN, ['list', '--rerun-failed', file, '--id', 'api.shape.role'], { reject: false });
  t.equal(both.exitCode, 2);
  t.match(both.stderr, /give one of them/);
});
