// Issue 25, verdict: a run that checked nothing is no pass; --fail-on-skip and --min-coverage; the
// verdict says what was checked; grouped skip reasons with their flags; known failures apart in the
// requirements line; the failing exchange of a failure; progress lines off a TTY; `list` says what a
// run would skip. In-process runs of small fake cases against one reference, plus two short CLI calls.
import t, { type Test } from 'tap';
import { execaNode } from 'execa';
import { PassThrough } from 'node:stream';
import { BIN } from '../helpers/serve.js';
import { startReference } from '../../reference/server.js';
import { runCases, exitCodeFor } from '../../runner/run.js';
import { parseGates } from '../../runner/gates.js';
import type { Case } from '../../suites/case.js';
import { fail } from '../../suites/verify.js';
import { REQUIREMENTS } from '../../suites/requirements/index.js';
import type { RunReport, VerdictPolicy } from '../../runner/results.js';
import { ConsoleReporter, coverageLine, renderCaseLine, renderConsoleSummary } from '../../reporters/console.js';
import { verdict, verdictText } from '../../reporters/format.js';
import { renderMarkdown } from '../../reporters/markdown.js';
import { renderHtml } from '../../reporters/html.js';
import { flagsIn, skipGroups } from '../../reporters/skips.js';
import { kase, passed } from '../helpers/report-fixture.js';
import { summarise } from '../../runner/run.js';

// Two control-plane requirements of the catalogue (doc 000 rules count any case naming them).
const [REQ_A, REQ_B] = REQUIREMENTS.filter((r) => r.doc === '000').map((r) => r.id) as [string, string];

function fake(id: string, over: Partial<Case> & Pick<Case, 'run'>): Case {
  return { id, title: `fake ${id}`, suite: 'verdict', requirements: [REQ_A], spec: { doc: '000', section: '1' }, level: 'MUST', impact: 'read-only', needs: ['api'], ...over };
}

const passes = (id: string, req = REQ_A) => fake(id, { requirements: [req], run: async (ctx) => { await ctx.api.get('/version'); } });
const needsAgent = (id: string, req = REQ_B) => fake(id, { requirements: [req], needs: ['api', 'agent'], run: async () => { throw new Error('never runs: no agent'); } });

async function withReference(t: Test): Promise<string> {
  const ref = await startReference();
  t.teardown(() => ref.close());
  return ref.url;
}

type RunExtra = { policy?: VerdictPolicy; expectations?: Map<string, string>; reporters?: ConsoleReporter[] };
const run = (url: string, cases: Case[], extra: RunExtra = {}): Promise<RunReport> =>
  runCases({ cases, conn: { baseUrl: url }, embedded: false, gates: parseGates(undefined), version: 'test', timeoutMs: 10_000, ...extra });

t.test('against one reference', async (t) => {
  const url = await withReference(t);

  await t.test('a run in which every selected case was skipped is no pass: exit 2, naming the flags', async (t) => {
    const report = await run(url, [needsAgent('v.a'), needsAgent('v.b')]);
    t.equal(report.summary.skipped, 2);
    t.equal(exitCodeFor(report), 2, 'exit 2, not 0');
    t.equal(verdict(report), 'UNCHECKED');
    t.match(verdictText(report), /^UNCHECKED: no selected case ran \(2 cases skipped\), so nothing was checked; the skip reasons ask for --agent, --node$/);
    const groups = skipGroups(report);
    t.equal(groups.length, 1, 'one reason');
    t.same(groups[0]!.flags, ['--agent', '--node']);
    t.equal(groups[0]!.count, 2);
    // One case that ran is enough for a pass; the verdict line says what was and was not checked.
    const mixed = await run(url, [passes('v.ok'), needsAgent('v.skip')]);
    t.equal(exitCodeFor(mixed), 0);
    t.match(verdictText(mixed), /^PASS: 1 passed, 1 skipped; \d+ of \d+ requirements not checked \(\d+ not selected\)$/);
    const summary = renderConsoleSummary(mixed);
    t.match(summary, 'Skipped, by reason (the flags named would let them run):\n  1 case: needs an agent under test: pass --agent <url> and --node <name> (flags: --agent, --node)');
    t.notMatch(summary, '      v.skip', 'ids are listed only with --fail-on-skip');
  });

  await t.test('--fail-on-skip and --min-coverage fail a run that ran', async (t) => {
    const cases = [passes('v.ok', REQ_A), needsAgent('v.skip', REQ_B)];
    const onSkip = await run(url, cases, { policy: { failOnSkip: true } });
    t.same(onSkip.policy, { failOnSkip: true }, 'recorded in the report');
    t.equal(exitCodeFor(onSkip), 1);
    t.match(verdictText(onSkip), /^FAIL: 1 selected case skipped \(--fail-on-skip\); 1 passed, 1 skipped;/);
    t.match(renderConsoleSummary(onSkip), '(flags: --agent, --node)\n      v.skip\n', 'the skipped cases are listed under their reason');
    // One of the two selected requirements was checked: 50%.
    const high = await run(url, cases, { policy: { minCoverage: 60 } });
    t.equal(exitCodeFor(high), 1);
    t.match(verdictText(high), /^FAIL: 50% of the selected requirements checked \(1 of 2\), below --min-coverage 60%;/);
    const low = await run(url, cases, { policy: { minCoverage: 50 } });
    t.equal(exitCodeFor(low), 0, '50% meets --min-coverage 50');
    t.equal(verdict(low), 'PASS');
    // Without a policy the same run passes, and records none.
    const none = await run(url, cases);
    t.equal(exitCodeFor(none), 0);
    t.equal(none.policy, undefined);
  });

  await t.test('a known failure is not counted as failed in the requirements line', async (t) => {
    const failing = fake('v.fails', { requirements: [REQ_B], run: async () => fail('the rule', 'x', 'y') });
    const report = await run(url, [passes('v.ok', REQ_A), failing], { expectations: new Map([['v.fails', 'tracked upstream']]) });
    t.equal(exitCodeFor(report), 0);
    t.equal(report.coverage!.total.knownFailures, 1);
    t.equal(report.coverage!.total.failed, 0);
    const line = coverageLine(report);
    t.match(line, '1 known failure');
    t.notMatch(line, /\bfailed\b/);
    // Unlisted, the same failure is a failed requirement.
    const unlisted = await run(url, [failing]);
    t.equal(unlisted.coverage!.total.failed, 1);
    t.equal(unlisted.coverage!.total.knownFailures, 0);
  });

  await t.test('the console shows the exchange a failed check followed, not the clean-up after it', async (t) => {
    const c = fake('v.cleanup', {
      run: async (ctx) => {
        try {
          await ctx.api.get('/version');
          fail('the version', 'something else', 'what it was');
        } finally {
          await ctx.api.get('/api');
        }
      },
    });
    const report = await run(url, [c]);
    const r = report.cases[0]!;
    t.equal(r.status, 'failed');
    t.equal(r.exchanges.length, 2);
    t.equal(r.failedExchange, 0, 'the failure records the exchange before it');
    const text = renderConsoleSummary(report);
    t.match(text, /failing exchange: GET http:\/\/[^ ]+\/version -> 200 \(\d+ms\) \(then 1 more request, e.g. clean-up\)/);
    t.notMatch(text, 'last exchange: GET', 'not the clean-up request');
  });

  await t.test('off a TTY the console prints progress lines with the longest-running cases', async (t) => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d) => (text += String(d)));
    const console = new ConsoleReporter(out, { progressIntervalMs: 40 });
    // The slow case runs until a progress line has named it (bounded by the case timeout).
    const slow = fake('v.slow', {
      run: async () => {
        for (let i = 0; i < 200 && !/progress: .*v\.slow/.test(text); i++) await new Promise((r) => setTimeout(r, 10));
      },
    });
    await run(url, [passes('v.ok'), slow], { reporters: [console] });
    t.match(text, /progress: \d of 2 done( \(1 passed\))? after [\d.]+m?s; 1 running, longest: v\.slow \([\d.]+m?s\)\n/);
    const quiet = new PassThrough();
    let none = '';
    quiet.on('data', (d) => (none += String(d)));
    const off = new ConsoleReporter(quiet, { progressIntervalMs: 0 });
    await run(url, [passes('v.ok')], { reporters: [off] });
    t.notMatch(none, 'progress:', 'interval 0: no progress lines');
  });

  await t.test('CLI: exit 2 for a run that checked nothing; list names what a run would skip', async (t) => {
    const focus = '^agent\\.sync\\.';
    // The two commands at once: each is mostly the CLI's start.
    const [r, list] = await Promise.all([
      execaNode(BIN, ['run', '--api', url, '--focus', focus, '--progress-interval', '0'], { reject: false, timeout: 30_000 }),
      execaNode(BIN, ['list', '--api', url, '--focus', focus, '--json'], { reject: false, timeout: 30_000 }),
    ]);
    t.equal(r.exitCode, 2, `exit 2 (stderr: ${r.stderr})`);
    t.match(r.stderr, /no selected case ran: all \d+ were skipped, so this run checked nothing and is no pass\. The skip reasons ask for --agent, --node/);
    t.match(r.stdout, /\nUNCHECKED \(partial run: \d+ of \d+ cases selected\): no selected case ran/);
    t.equal(list.exitCode, 0, list.stderr);
    const rows = JSON.parse(list.stdout) as Array<{ id: string; wouldSkip?: string }>;
    t.ok(rows.length > 0);
    t.ok(rows.every((row) => /pass --agent <url> and --node <name>/.test(row.wouldSkip ?? '')), 'every agent case would be skipped, with the runner\'s reason');
  });
});

t.test('console wording: skip reasons keep their fix; never-started cases are not skipped', async (t) => {
  const reason = `needs to know ${'a very long description of a target fact, '.repeat(5)}: pass --corrupt-object`;
  const line = renderCaseLine(kase({ id: 'v.long', status: 'skipped', message: reason }));
  t.ok(line.length < 220, 'still one short line');
  t.match(line, /pass --corrupt-object$/, 'the flag at the end survives');
  t.same(flagsIn('start `orch-conformance mock-cri --control <p>` and pass --cri-control <p>'), ['--cri-control'], 'flags of other commands (code spans) are not asked for');

  const cases = [passed, kase({ id: 'v.int', status: 'interrupted' }), ...['v.n1', 'v.n2'].map((id) => kase({ id, status: 'unstarted', message: 'not started: the run was interrupted first' }))];
  const report: RunReport = { tool: 'orch-conformance', version: 'test', target: { api: 'http://x', embedded: false }, runId: 'r', startedAt: new Date(0).toISOString(), durationMs: 1, summary: summarise(cases), cases, leaks: [], cleanupUnverified: [], interrupted: true, strict: false };
  const text = renderConsoleSummary(report);
  t.match(text, 'Not started (the run was interrupted first; no verdict on the target): 2\n');
  t.match(text, 'Interrupted: the run stopped before every case finished (1 case stopped, 2 not started).');
  t.notMatch(text, /skipped, by reason/i, 'not-started cases are no skips');
  t.match(text.trimEnd().split('\n').at(-1)!, /^INCOMPLETE: the run was interrupted before every case finished; 1 passed, 1 interrupted, 2 not started;/);
  const out = new PassThrough();
  let live = '';
  out.on('data', (d) => (live += String(d)));
  const c = new ConsoleReporter(out, { progressIntervalMs: 0 });
  for (const r of cases) c.caseEnd(r);
  t.notMatch(live, 'v.n1', 'no line per never-started case while the run stops');
});

t.test('Markdown and HTML group skipped cases by reason with the flags', async (t) => {
  const agent = 'needs an agent under test: pass --agent <url> and --node <name>';
  const cases = [passed, ...['v.s1', 'v.s2'].map((id) => kase({ id, status: 'skipped', message: agent })), kase({ id: 'v.s3', status: 'skipped', message: 'cannot be observed on this target: the server ignores limit' })];
  const report: RunReport = { tool: 'orch-conformance', version: 'test', target: { api: 'http://x', embedded: false }, runId: 'r', startedAt: new Date(0).toISOString(), durationMs: 1, summary: summarise(cases), cases, leaks: [], cleanupUnverified: [], interrupted: false, strict: false };
  const md = renderMarkdown(report);
  t.match(md, '## Skipped cases by reason');
  t.match(md, '| 2 | needs an agent under test: pass --agent &lt;url&gt; and --node &lt;name&gt; | `--agent` `--node` |');
  t.match(md, '| 1 | cannot be observed on this target: the server ignores limit | (none: the target itself) |');
  const html = renderHtml(report);
  t.match(html, '<h3 id="skips">Skipped cases by reason</h3>');
  t.match(html, '<tr><td class="n">2</td><td>needs an agent under test: pass --agent &lt;url&gt; and --node &lt;name&gt;</td><td><code>--agent</code> <code>--node</code></td></tr>');
});

