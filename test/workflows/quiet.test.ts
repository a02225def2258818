// Quiet and current (issue 25): the reference's components log one line per event, and the embedded
// run only with --verbose; --help fits the terminal without cutting words; README's figures are
// checked against a run and its test command sets a machine up. The main run's own checks (nothing on
// standard error, README's figures) are in test/conformance-doc.test.ts, the one full run.
import t from 'tap';
import { execaNode } from 'execa';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { logLine } from '../../reference/log.js';
import type { RunReport } from '../../runner/results.js';
import { BIN } from '../helpers/serve.js';
import { readmeDrift } from '../helpers/readme-figures.js';

const root = (p: string) => fileURLToPath(new URL(`../../../${p}`, import.meta.url));

t.test('a log line is one line: no stack, control characters escaped, bounded', async (t) => {
  const err = new Error('GET /x: 500 InternalError: corrupt \u0000object\nsecond line');
  const line = logLine('controller-manager', 'watch /x restarted', err);
  t.equal(line, '[controller-manager] watch /x restarted: GET /x: 500 InternalError: corrupt \\x00object second line');
  class ApiError extends Error { override name = 'ApiError'; }
  t.equal(logLine('scheduler', 'bind failed', new ApiError('409 Conflict')), '[scheduler] bind failed: ApiError: 409 Conflict');
  t.equal(logLine('reference', 'no error'), '[reference] no error');
  t.ok(logLine('reference', 'big', 'x'.repeat(5000)).length <= 1001, 'a whole response body does not make a page of log');
});

t.test('run --verbose: the embedded components log on standard error, one line per event', async (t) => {
  // The one case that needs a planted corrupt object: its reference's controller manager logs.
  const r = await execaNode(BIN, ['run', '--verbose', '--focus', '^api\\.delete\\.ignore-store-read-error\\.unsafe-delete$', '--reporter', 'console'], { reject: false, timeout: 60_000 });
  t.equal(r.exitCode, 0, `exit 0${r.exitCode ? `\n${r.stdout}\n${r.stderr}` : ''}`);
  const lines = r.stderr.split('\n').filter(Boolean);
  t.match(r.stderr, /^\[controller-manager\] watch \/apis\/storage\.orch\.io\/v1\/storageclasses restarted: ApiError: .*corrupt object/m, 'the watch restart on the corrupt object, with its error');
  t.same(lines.filter((l) => !/^\[(reference|controller-manager|scheduler|agent)\] /.test(l)), [], 'every line is a component\'s log line (no stack frames, no dumped objects)');
});

t.test('--help: not wrapped off a terminal; on one, at its width and between words', async (t) => {
  const describe = 'Feature gates the target has: Name=true,Other=false. Gates not given are read from each component\'s orch_feature_enabled where it reports them, else taken as the 1.37 defaults';
  const piped = await execaNode(BIN, ['run', '--help'], { timeout: 30_000 });
  t.ok(piped.stdout.split('\n').some((l) => l.includes(describe)), 'a long description stays on one line');
  // A terminal of 100 columns, as far as yargs can tell.
  const tty = await execaNode(BIN, ['run', '--help'], { timeout: 30_000, nodeOptions: ['--import', 'data:text/javascript,process.stdout.isTTY=true;process.stdout.columns=100;'] });
  const lines = tty.stdout.split('\n');
  t.same(lines.filter((l) => [...l].length > 100), [], 'no line wider than the terminal');
  t.ok(lines.some((l) => [...l].length > 80), 'the width used is the terminal\'s, not 80');
  t.ok(tty.stdout.replace(/\s+/g, ' ').includes(describe), 'lines break between words, never inside one');
});

/** A report whose coverage is `docs` (doc -> [covered, requirements]) and whose cases all passed. */
function report(docs: Record<string, [number, number]>, cases: number): Pick<RunReport, 'summary' | 'cases' | 'coverage'> {
  const zero = { passed: 0, failed: 0, errored: 0, warned: 0, interrupted: 0, skipped: 0, notRun: 0, notCoveredIds: [], notRunIds: [] };
  const sections = Object.entries(docs).map(([doc, [covered, requirements]]) => ({ ...zero, doc, section: '1', title: 't', requirements, covered, passed: covered, notCovered: requirements - covered }));
  const sum = (k: 'covered' | 'requirements') => sections.reduce((n, s) => n + s[k], 0);
  const total = { ...zero, requirements: sum('requirements'), covered: sum('covered'), passed: sum('covered'), notCovered: sum('requirements') - sum('covered') };
  delete (total as Partial<typeof zero>).notCoveredIds;
  delete (total as Partial<typeof zero>).notRunIds;
  return {
    summary: { total: cases, passed: cases, failed: 0, warned: 0, skipped: 0, errored: 0, interrupted: 0, knownFailures: 0, unexpectedPasses: 0 },
    cases: [],
    coverage: { sections, total } as unknown as RunReport['coverage'],
  };
}

const README = `Coverage today: **15 of the 20 requirements** of the three spec documents are
checked by at least one case (000: 10 of 12, 001: 5 of 8); the rest. The other 5 are listed as "not covered" in every
report's matrix. Console output of that command (trimmed):

\`\`\`text
Run abc against https://127.0.0.1:1 (embedded reference): 30 cases
ok   api.x (3ms)
…

Requirements: 15 of 20 covered by cases; in this run 15 passed, 5 not covered
30 passed, 0 failed, 0 errored, 0 skipped; 30 total in 48.6s
PASS: every case that ran passed
\`\`\`
`;
const CONSOLE = 'Run zz against https://127.0.0.1:2 (embedded reference): 30 cases\nok   api.x (1ms)\n\nRequirements: 15 of 20 covered by cases; in this run 15 passed, 5 not covered\n30 passed, 0 failed, 0 errored, 0 skipped; 30 total in 1m2.0s\nPASS: every case that ran passed\n';

t.test("README's figures: current ones pass, stale ones and missing ones are named", async (t) => {
  t.same(readmeDrift(README, report({ '000': [10, 12], '001': [5, 8] }, 30), CONSOLE), [], 'figures and sample that match the run, durations aside');
  const stale = readmeDrift(README, report({ '000': [11, 12], '001': [5, 9] }, 31), CONSOLE.replaceAll('30', '31').replace('15 of 20', '16 of 21'));
  t.match(stale, [
    /requirements covered 15 of 20, the run gives 16 of 21/,
    /spec 000's coverage 10 of 12, the run gives 11 of 12/,
    /spec 001's coverage 5 of 8, the run gives 5 of 9/,
  ]);
  t.match(stale.join('\n'), /in its sample header 30 cases, the run gives 31 cases/);
  t.match(stale.join('\n'), /sample line is not what the run printed: Requirements: 15 of 20/);
  t.match(stale.join('\n'), /sample line is not what the run printed: 30 passed/);
  t.notMatch(stale.join('\n'), /PASS: every case/, 'an unchanged line is not named');
  // A README that no longer says them in the expected words must not pass by matching nothing.
  t.equal(readmeDrift('nothing here', report({ '000': [1, 1] }, 1), '').filter((l) => l.includes('no longer states')).length, 4);
  // The project's own README states every figure where the check looks (their values are the main run's business).
  const own = readFileSync(root('README.md'), 'utf8');
  t.same(readmeDrift(own, report({ '000': [1, 1] }, 1), '').filter((l) => l.includes('no longer states')), [], "README's figures are all found");
});

t.test("README's test command sets up a fresh machine, and its script does not call itself", async (t) => {
  const pkg = JSON.parse(readFileSync(root('package.json'), 'utf8')) as { scripts: Record<string, string> };
  t.equal(pkg.scripts['test:ci'], 'bash .ci/run');
  const ci = readFileSync(root('.ci/run'), 'utf8').split('\n').filter((l) => !l.trimStart().startsWith('#')).join('\n');
  t.match(ci, /apt-get install/, 'it installs the packages');
  t.match(ci, /^npm test\b/m, 'then runs the tests');
  t.notMatch(ci, /test:ci|\.ci\/run/, '.ci/run never runs itself again');
  t.notMatch(pkg.scripts.test, /test:ci|\.ci\/run/, 'nor does npm test');
  const readme = readFileSync(root('README.md'), 'utf8');
  t.match(readme, /```sh\nnpm run test:ci\n```/, "README's test command");
  t.match(readme, /apt-get/, 'README says it uses apt-get');
  t.match(readme, /npm run conformance -- /, 'README starts the CLI without npx');
  t.match(readme, /node dist\/bin\/orch-conformance\.js/);
});
