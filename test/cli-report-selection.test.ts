// The CLI records what was selected and what it covers in the JSON report, says "partial run" on
// its verdict line, and `report` re-renders a saved file with the coverage recorded in it.
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunReport } from '../runner/results.js';
import { REQUIREMENTS } from '../suites/requirements/index.js';
import { ALL_CASES } from '../suites/index.js';

const CLI = fileURLToPath(new URL('../bin/orch-conformance.js', import.meta.url));

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

t.test('run records selection and coverage; report re-renders the recorded coverage', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'orch-cli-selection-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const selected = ALL_CASES.filter((c) => /reclaim-policy/.test(c.id + c.title + c.requirements.join()));
  const outside = ALL_CASES.find((c) => !selected.includes(c))!;
  const expect = join(dir, 'known.yaml');
  await writeFile(expect, `${outside.id}: tracked elsewhere\n`);
  const json = join(dir, 'results.json');

  const run = await cli(['run', '--focus', 'reclaim-policy', '--expect', expect, '--strict', '--reporter', 'console', '--reporter', `json=${json}`]);
  t.equal(run.code, 0, run.stderr);
  const last = run.stdout.trimEnd().split('\n').at(-1)!;
  t.match(last, new RegExp(`^PASS \\(partial run: ${selected.length} of ${ALL_CASES.length} cases selected\\): ${selected.length} passed; \\d+ of \\d+ requirements not checked \\(\\d+ not selected\\)$`));

  const report = JSON.parse(await readFile(json, 'utf8')) as RunReport;
  t.same(report.selection, {
    focus: 'reclaim-policy', suites: [], facts: [], strict: true,
    expect: { file: expect, entries: { [outside.id]: 'tracked elsewhere' } },
    selectedCases: selected.length, totalCases: ALL_CASES.length, partial: true,
  });
  const cov = report.coverage!;
  t.equal(cov.total.requirements, REQUIREMENTS.length);
  t.equal(cov.sections.reduce((n, s) => n + s.requirements, 0), REQUIREMENTS.length, 'sections add up to the total');
  t.ok(cov.total.passed > 0 && cov.total.notRun > 0, 'some requirements passed, the rest of the covered ones were not run');
  t.equal(cov.total.passed + cov.total.notRun, cov.total.covered);
  const s22 = cov.sections.find((s) => s.doc === '000' && s.section === '2.2')!;
  t.ok(s22.passed >= 1);

  // `report` uses the coverage saved in the file, not one computed again.
  cov.total.covered = 12345;
  await writeFile(json, JSON.stringify(report));
  const md = await cli(['report', json, '--reporter', 'markdown']);
  t.equal(md.code, 0, md.stderr);
  t.match(md.stdout, `| **All sections** | ${cov.total.requirements} | 12345 |`);
  t.match(md.stdout, '**Verdict: PASS (partial run:');
});
