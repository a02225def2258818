// `report matrix a.json b.json ...`: Markdown, HTML and console written where asked,
// runs of different kit versions compared only on the cases every run ran (and marked), a single
// file or a run given twice refused; and `run --label` recorded in the results a matrix reads.
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildMatrix, renderMatrix, renderMatrixMarkdown } from '../../reporters/matrix.js';
import { computeCoverage } from '../../reporters/coverage.js';
import { summarise } from '../../runner/run.js';
import type { CaseResult, RunReport } from '../../runner/results.js';
import { kase, REQ_DEFAULT, REQ_NOT_FOUND } from '../helpers/report-fixture.js';

const CLI = fileURLToPath(new URL('../../bin/orch-conformance.js', import.meta.url));

function run(runId: string, version: string, cases: CaseResult[], label?: string): RunReport {
  return {
    tool: 'orch-conformance', version, target: { api: `https://${runId}.example:6443`, embedded: false }, runId, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1000,
    summary: summarise(cases), cases, leaks: [], cleanupUnverified: [], interrupted: false, strict: false, coverage: computeCoverage(cases), ...(label ? { label } : {}),
  };
}

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 60_000 }, (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }));
  });
}

const notFound = (status: CaseResult['status']) => kase({ id: 'api.status.not-found', status, requirements: [REQ_NOT_FOUND], spec: { doc: '000', section: '7' }, ...(status === 'failed' ? { message: 'expected 404, got 200', expected: '404', actual: '200' } : {}) });
// The newer kit has a case for REQ_DEFAULT the older lacks: compared, the older would look worse
// (not covered) only because of the kit.
const newer = run('new1', '2.0.0', [notFound('passed'), kase({ id: 'api.storageclass.new-case', status: 'passed' })], 'acme 2.0');
const older = run('old1', '1.0.0', [notFound('failed')], 'acme 1.0');

t.test('runs of different kit versions: compared on the cases both ran, and marked', async (t) => {
  const m = buildMatrix([{ file: 'new.json', report: newer }, { file: 'old.json', report: older }]);
  t.equal(m.mixedVersions, true);
  t.equal(m.commonCases, 1, 'one case both ran');
  t.same(m.runs.map((r) => [r.label, r.comparedCases, r.cases]), [['acme 2.0', 1, 2], ['acme 1.0', 1, 1]]);
  const req = (id: string) => m.sections.flatMap((s) => s.requirements).find((q) => q.id === id)!;
  t.same(req(REQ_DEFAULT).cells.map((c) => c.bucket), ['notCovered', 'notCovered'], 'the newer kit\'s own case is left out of the comparison');
  t.same(req(REQ_NOT_FOUND).cells.map((c) => c.bucket), ['pass', 'fail']);
  t.equal(m.interop.passed, 0, 'no requirement passed by both');
  const same = buildMatrix([{ file: 'a.json', report: run('a1', '2.0.0', newer.cases) }, { file: 'b.json', report: run('b1', '2.0.0', [notFound('passed')]) }]);
  t.equal(same.mixedVersions, false);
  t.equal(same.sections.flatMap((s) => s.requirements).find((q) => q.id === REQ_DEFAULT)!.cells[0]!.bucket, 'pass', 'one kit version: each run counts every case it ran');
  t.same(same.runs.map((r) => r.label), ['a.json', 'b.json'], 'without --label, a column is named by its file');

  const md = renderMatrixMarkdown(m);
  t.match(md, /\*\*Kit versions differ:\*\* runs are compared on the 1 cases every run ran\./);
  t.match(md, /\| 000 §7 [^|]*\| 1 pass, \d+ not covered \| \[1 fail, \d+ not covered\]\(#ev-1-api\.status\.not-found\) \|/, 'a section row, the failure linking to its evidence');
  t.match(md, new RegExp(`\\| \`${REQ_NOT_FOUND}\` \\| SHOULD \\| pass \\| \\[fail\\]\\(#ev-1-api\\.status\\.not-found\\) \\|`), 'the requirement not passed by every run');
  t.match(md, /<a id="ev-1-api\.status\.not-found"><\/a>\n### \[2\] acme 1\.0: `api\.status\.not-found` failed\n\n- message: expected 404, got 200/);
  t.match(md, /\*\*Interop:\*\* 0 of \d+ requirements passed by every run/);
});

t.test('a single file, a run given twice, a reporter that is not for matrices: usage errors', async (t) => {
  t.throws(() => buildMatrix([{ file: 'new.json', report: newer }]), { name: 'UsageError', message: /at least two results files/ });
  t.throws(() => buildMatrix([{ file: 'a.json', report: newer }, { file: 'b.json', report: newer }]), { name: 'UsageError', message: /b\.json and a\.json are the same run \(new1\)/ });
  t.throws(() => renderMatrix('junit', buildMatrix([{ file: 'new.json', report: newer }, { file: 'old.json', report: older }])), { name: 'UsageError', message: /reporter "junit" is not one for matrices/ });
});

t.test('run --label is kept in the results; report matrix of that run and another writes HTML, Markdown and console', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'orch-matrix-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  // One fast case against the embedded reference: a real run's results, as a matrix reads them.
  const ran = await cli(['run', '--id', 'api.storageclass.reclaim-policy.default', '--label', 'reference 1.37', '--reporter', `json=${join(dir, 'ref.json')}`]);
  t.equal(ran.code, 0, ran.stderr);
  const ref = JSON.parse(await readFile(join(dir, 'ref.json'), 'utf8')) as RunReport;
  t.equal(ref.label, 'reference 1.37', 'the label is in the results');
  await writeFile(join(dir, 'old.json'), JSON.stringify(older));
  const ok = await cli(['report', 'matrix', join(dir, 'ref.json'), join(dir, 'old.json'), '--reporter', `html=${join(dir, 'out', 'm.html')}`, '--reporter', `markdown=${join(dir, 'm.md')}`, '--reporter', 'console']);
  t.equal(ok.code, 0, ok.stderr);
  t.match(ok.stdout, /^\[1\] reference 1\.37: https:\/\/127\.0\.0\.1:\d+ \(embedded reference\)/, 'the column is named by its label');
  t.match(ok.stdout, /\[2\] acme 1\.0: https:\/\/old1\.example:6443, kit 1\.0\.0 \(versions differ: compared on 0 of its 1 cases\)/, 'kit versions differ: no case both ran');
  t.match(ok.stdout, /Interop: 0 of \d+ requirements passed by every run/);
  t.match(await readFile(join(dir, 'm.md'), 'utf8'), /^# Conformance matrix\n[\s\S]*\| 1 \| reference 1\.37 \| https:\/\/127\.0\.0\.1:\d+ \(embedded reference\)/);
  t.match(await readFile(join(dir, 'out', 'm.html'), 'utf8'), /<table class="matrix-runs">/);
});
