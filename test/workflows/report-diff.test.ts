// `report diff base.json head.json`: a planted regression is found and fails the command (exit 1),
// fixes, other changes, new and removed cases and requirement results are listed, and the Markdown
// stays within a pull-request comment even with a thousand regressions.
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIFF_MARKDOWN_BUDGET, diffExitCode, diffReports, renderDiff, renderDiffConsole, renderDiffMarkdown } from '../../reporters/diff.js';
import { computeCoverage } from '../../reporters/coverage.js';
import { summarise } from '../../runner/run.js';
import type { CaseResult, CaseStatus, RunReport } from '../../runner/results.js';
import { kase, REQ_DEFAULT, REQ_NOT_FOUND } from '../helpers/report-fixture.js';

const CLI = fileURLToPath(new URL('../../bin/orch-conformance.js', import.meta.url));

function run(runId: string, cases: CaseResult[]): RunReport {
  return {
    tool: 'orch-conformance', version: '1.0.0', target: { api: 'https://impl.example:6443', embedded: false }, runId, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1000,
    summary: summarise(cases), cases, leaks: [], cleanupUnverified: [], interrupted: false, strict: false, coverage: computeCoverage(cases),
  };
}

const c = (id: string, status: CaseStatus, over: Partial<CaseResult> = {}) => kase({ id, status, ...over });

const base = run('base1', [
  c('x.regressed', 'passed', { requirements: [REQ_NOT_FOUND] }),
  c('x.fixed', 'failed', { message: 'was broken' }),
  c('x.skipped-now', 'passed'),
  c('x.same', 'passed'),
  c('x.removed', 'passed'),
]);
const head = run('head1', [
  c('x.regressed', 'failed', { requirements: [REQ_NOT_FOUND], message: 'expected 404\nsecond line' }),
  c('x.fixed', 'passed'),
  c('x.skipped-now', 'skipped', { message: 'needs --agent' }),
  c('x.same', 'passed'),
  c('x.new', 'errored'),
]);

t.test('a planted regression, a fix, other changes, new and removed cases, requirement results', async (t) => {
  const d = diffReports(base, head);
  t.same(d.regressions.map((r) => [r.id, r.base, r.head, r.message]), [['x.regressed', 'passed', 'failed', 'expected 404']]);
  t.same(d.fixes.map((r) => r.id), ['x.fixed']);
  t.same(d.changed.map((r) => [r.id, r.base, r.head]), [['x.skipped-now', 'passed', 'skipped']]);
  t.same(d.added, [{ id: 'x.new', title: 'title of x.new', status: 'errored' }]);
  t.same(d.removed.map((r) => r.id), ['x.removed']);
  // REQ_DEFAULT: worst of its cases, failed (x.fixed) in base, errored (x.new) in head.
  t.same(d.requirements, [{ id: REQ_DEFAULT, base: 'failed', head: 'errored' }, { id: REQ_NOT_FOUND, base: 'passed', head: 'failed' }].sort((a, b) => (a.id < b.id ? -1 : 1)), 'requirements whose worst result changed');
  t.equal(diffExitCode(d), 1, 'a regression fails the diff');
  t.equal(diffExitCode(diffReports(base, base)), 0, 'no change, no failure');
  t.equal(diffExitCode(diffReports(run('b', [c('x.a', 'failed'), c('x.b', 'passed')]), run('h', [c('x.a', 'passed'), c('x.b', 'skipped')]))), 0, 'fixes and other changes do not fail the diff');
  const text = renderDiffConsole(d);
  t.match(text, /Regressions \(1\):\n  x\.regressed: passed -> failed: expected 404/);
  t.match(text, /REGRESSED: 1 regression, 1 fix, 1 other change, 1 new, 1 removed/);
  // REQ_NOT_FOUND passed -> failed, REQ_DEFAULT failed -> errored: one passed less, one errored more,
  // as many failed.
  const counts = /Requirement counts: passed (\d+) -> (\d+), errored (\d+) -> (\d+)\n/.exec(text);
  t.ok(counts, 'the requirement counts that changed');
  t.same(counts && [Number(counts[1]) - Number(counts[2]), Number(counts[4]) - Number(counts[3])], [1, 1]);
  t.same(JSON.parse(renderDiff('json', d)), JSON.parse(JSON.stringify(d)));
  t.throws(() => renderDiff('junit', d), { name: 'UsageError' });
  const md = renderDiffMarkdown(d);
  t.match(md, /## Conformance diff: regressed/);
  t.match(md, /\| `x\.regressed` \| passed → failed \| expected 404 \|/);
  t.match(md, `| \`${REQ_NOT_FOUND}\` | passed → failed |`, 'requirement changes listed');
  t.match(md, /Requirement counts: passed \d+ -> \d+, errored/, 'and the counts');
});

t.test('the Markdown fits a PR comment with a thousand regressions, and says what it left out', async (t) => {
  const many = (status: CaseStatus) => Array.from({ length: 1000 }, (_, i) => c(`api.case.number-${String(i).padStart(4, '0')}`, status, { message: `${'long failure text | with pipes <b> '.repeat(20)}`, requirements: [`000-2.2-req-${i}`] }));
  const d = diffReports(run('b', many('passed')), run('h', many('failed')));
  t.equal(d.regressions.length, 1000);
  const md = renderDiffMarkdown(d);
  t.ok(md.length <= DIFF_MARKDOWN_BUDGET, `${md.length} characters`);
  t.match(md, /_… and \d+ more not shown here: `orch-conformance report diff base\.json head\.json --reporter json` lists them all\._/);
  t.match(md, /\*\*1000 regressions/, 'the headline counts them all');
  t.notMatch(md, /<b>/, 'a target\'s text cannot inject HTML');
  for (const budget of [2_000, 5_000]) t.ok(renderDiffMarkdown(d, budget).length <= budget, `within a budget of ${budget}`);
});

t.test('report diff on the command line: exit 1 on a regression, Markdown to a file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'oc-diff-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'base.json'), JSON.stringify(base));
  await writeFile(join(dir, 'head.json'), JSON.stringify(head));
  const res = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [CLI, 'report', 'diff', join(dir, 'base.json'), join(dir, 'head.json'), '--reporter', 'console', '--reporter', `markdown=${join(dir, 'diff.md')}`], { encoding: 'utf8', timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }));
  });
  t.equal(res.code, 1, `exit 1 (${res.stderr})`);
  t.match(res.stdout, /x\.regressed: passed -> failed/);
  t.match(await readFile(join(dir, 'diff.md'), 'utf8'), /### Regressions \(1\)/);
});
