// The HTML report as a user sees it: opened in headless Chromium (Debian's `chromium`; .ci/run
// installs it), the DOM checked after the browser parsed and styled it. Without Chromium the test
// is skipped with the reason, except in CI (`CI` set), where it must run. One probe page (one
// browser start) reads three reports: a small one, a 1,000-failure one whose filter and search it
// drives, and a copy of the small one with a script planted as an escaping bug would let a target's
// answer in, which the report's Content-Security-Policy must keep from running.
import t, { type Test } from 'tap';
import { createHash } from 'node:crypto';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RunReport } from '../runner/results.js';
import { summarise } from '../runner/run.js';
import { renderHtml } from '../reporters/html.js';
import { computeCoverage } from '../reporters/coverage.js';
import { REQ_DEFAULT, failed, manyFailures, passed, passingWithWarning, skipped, warned } from './helpers/report-fixture.js';
import { REQUIREMENTS } from '../suites/requirements/index.js';
import { kase, REQ_NOT_FOUND } from './helpers/report-fixture.js';
import { buildMatrix, renderMatrixHtml } from '../reporters/matrix.js';
import { newRunId, runGroups } from '../runner/run.js';
import { selectCases } from '../runner/select.js';
import { startEmbeddedGroups } from '../runner/embedded.js';
import { ALL_CASES } from '../suites/index.js';
import { processSelfSigned } from '../reference/tls.js';
import { startBrokenTarget } from './helpers/broken-target.js';

function findChromium(): string | undefined {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (found.status === 0 && found.stdout.trim()) return found.stdout.trim();
  }
  return undefined;
}

/**
 * Opens `dir`/probe.html in headless Chromium and returns what its script wrote into `<pre id="result">`
 * (the probe's JSON), checking that the probe ran without a script error.
 */
async function probeText(t: Test, chromium: string, dir: string): Promise<string> {
  const probed = await dumpDom(chromium, join(dir, 'probe.html'), join(dir, 'profile'));
  const m = /<pre id="result">([\s\S]*?)<\/pre>/.exec(probed);
  t.ok(m, 'the probe page ran');
  const text = (m?.[1] ?? '').replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  t.notMatch(text, /^ERROR|^not run/, `the probe ran without script errors: ${text.slice(0, 200)}`);
  return text;
}

/** Loads `page` in headless Chromium and returns the DOM it ends with. */
function dumpDom(chromium: string, page: string, profile: string): Promise<string> {
  const args = [
    '--headless=new', '--no-sandbox', '--disable-gpu', `--user-data-dir=${profile}`,
    // The probe page reads the report in an iframe: both are local files.
    '--allow-file-access-from-files',
    '--dump-dom', pathToFileURL(page).href,
  ];
  return new Promise((resolve, reject) => {
    execFile(chromium, args, { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${chromium} failed: ${err.message}\n${stderr.slice(-2000)}`));
      else resolve(stdout);
    });
  });
}

/**
 * A page that opens the report in an iframe and writes what a reader would find into #result:
 * the matrix rows with their counts and colours, the verdict as rendered, links without targets,
 * scripts, and errors.
 */
const PROBE = `<!DOCTYPE html><html><body><pre id="result">not run</pre>
<iframe id="report" src="report.html" style="width:1280px;height:900px"></iframe>
<iframe id="big" src="big.html" style="width:1280px;height:900px"></iframe>
<iframe id="tampered" src="tampered.html" style="width:1280px;height:900px"></iframe>
<script>
const out = document.getElementById('result');
window.addEventListener('error', (e) => { out.textContent = 'ERROR ' + e.message; });
// Drives the big report's filter as a reader would (menus, search box) and records what shows.
function filtering() {
  const w = document.getElementById('big').contentWindow;
  const d = w.document;
  const shown = () => [...d.querySelectorAll('[data-status]')].filter((el) => el.getClientRects().length > 0);
  const set = (id, value, type) => { const el = d.getElementById(id); el.value = value; el.dispatchEvent(new w.Event(type)); };
  const look = () => {
    const els = shown();
    return {
      count: d.getElementById('f-count').textContent,
      cases: new Set(els.map((el) => el.dataset.case)).size,
      statuses: [...new Set(els.map((el) => el.dataset.status))].sort(),
      sections: [...new Set(els.map((el) => el.dataset.section))].sort(),
      levels: [...new Set(els.map((el) => el.dataset.level))].sort(),
      ids: els.length < 20 ? [...new Set(els.map((el) => el.dataset.case))] : [],
      failuresShown: d.getElementById('failures').getClientRects().length > 0,
      flakyShown: d.getElementById('flaky').getClientRects().length > 0,
    };
  };
  const views = { initial: look() };
  set('f-status', 'flaky', 'change'); views.flaky = look();
  set('f-status', 'failed', 'change'); views.failed = look();
  set('f-level', 'SHOULD', 'change'); views.failedShould = look();
  set('f-status', '', 'change'); set('f-level', '', 'change');
  set('f-section', '000 §7', 'change'); views.section = look();
  set('f-section', '', 'change');
  set('f-search', 'CASE-0500', 'input'); views.search = look();
  set('f-search', '', 'input'); views.cleared = look();
  return {
    views,
    scripts: [...d.scripts].map((s) => s.textContent),
    csp: d.querySelector('meta[http-equiv="Content-Security-Policy"]').getAttribute('content'),
    cspFirst: d.head.firstElementChild.nextElementSibling === d.querySelector('meta[http-equiv="Content-Security-Policy"]'),
  };
}
let loaded = 0;
for (const id of ['report', 'big', 'tampered']) document.getElementById(id).addEventListener('load', () => { if (++loaded === 3) probe(); });
function probe() {
  try {
    const frame = document.getElementById('report');
    const d = frame.contentDocument;
    const w = frame.contentWindow;
    const rows = [...d.querySelectorAll('table.matrix tbody tr.section')].map((tr) => ({
      doc: tr.dataset.doc,
      section: tr.dataset.section,
      href: tr.querySelector('a').getAttribute('href'),
      counts: [...tr.querySelectorAll('td.n')].map((td) => Number(td.textContent)),
      backgrounds: [...tr.querySelectorAll('td.n')].map((td) => w.getComputedStyle(td).backgroundColor),
    }));
    const headers = [...d.querySelectorAll('table.matrix thead th')].map((th) => th.textContent);
    const links = [...d.querySelectorAll('a[href^="#"]')].map((a) => a.getAttribute('href').slice(1));
    const matrix = d.querySelector('table.matrix');
    const firstSection = d.querySelector('h3[id^="sec-"]');
    out.textContent = JSON.stringify({
      title: d.title,
      verdict: d.querySelector('.verdict-line').innerText,
      headers,
      rows,
      links: links.length,
      brokenLinks: links.filter((id) => !d.getElementById(id)),
      scripts: d.scripts.length,
      matrixTables: d.querySelectorAll('table.matrix').length,
      matrixFirst: !!(matrix && firstSection && (matrix.compareDocumentPosition(firstSection) & Node.DOCUMENT_POSITION_FOLLOWING)),
      warningText: (d.getElementById('warnings') || {}).textContent || '',
      warningsDetail: (d.getElementById('case-${warned.id}') || {}).innerText || '',
      big: filtering(),
      tampered: {
        planted: document.getElementById('tampered').contentWindow.planted === true,
        own: document.getElementById('tampered').contentDocument.getElementById('f-count').textContent,
      },
    });
  } catch (e) {
    out.textContent = 'ERROR ' + e;
  }
}
</script></body></html>`;

const RED = 'rgb(251, 218, 218)';
const YELLOW = 'rgb(253, 240, 204)';
const TRANSPARENT = 'rgba(0, 0, 0, 0)';

const chromium = findChromium();
// Skipped only off CI: in CI a missing browser is a failure, not a silent skip.
const skip = !chromium && !process.env.CI ? 'chromium is not installed (apt-get install --no-install-recommends chromium); CI runs this test' : false;

/** The base64 sha256 of a script, as a CSP names it. */
const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64');

t.test('the HTML report in headless Chromium: matrix, counts, partial verdict, links, no script but its own (pinned by CSP), filter and search at 1,000 failures', { skip }, async (t) => {
  if (!chromium) {
    t.fail('chromium is not installed, and CI must run this test: .ci/run installs it (apt-get install chromium)');
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), 'orch-report-browser-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));

  const base = passingWithWarning();
  // The warning names another requirement than the failure, so that §2.2 shows it (worst result).
  const cases = [passed, failed, skipped, { ...warned, requirements: [REQ_DEFAULT], spec: { doc: '000' as const, section: '2.2' } }];
  const report: RunReport = { ...base, cases, summary: summarise(cases), coverage: computeCoverage(cases) };
  const html = renderHtml(report);
  await writeFile(join(dir, 'report.html'), html);
  // The sizes at 1,000 failures are checked in reporters.test.ts; here the filter needs the cases,
  // not their evidence, so one small exchange each keeps the browser's work down.
  const big = manyFailures(REQUIREMENTS, 1000, 1, 200);
  await writeFile(join(dir, 'big.html'), renderHtml(big));
  // As if a target's answer had got into the page unescaped: the CSP must keep it from running.
  await writeFile(join(dir, 'tampered.html'), html.replace('</h1>', '</h1><script>window.planted = true;</script>'));
  await writeFile(join(dir, 'probe.html'), PROBE);


  const text = await probeText(t, chromium, dir);
  const seen = JSON.parse(text) as {
    title: string; verdict: string; headers: string[]; links: number; brokenLinks: string[]; scripts: number; matrixTables: number; matrixFirst: boolean;
    rows: Array<{ doc: string; section: string; href: string; counts: number[]; backgrounds: string[] }>;
    warningText: string; warningsDetail: string;
    big: { views: Record<string, View>; scripts: string[]; csp: string; cspFirst: boolean };
    tampered: { planted: boolean; own: string };
  };

  t.match(seen.verdict, /^FAIL with 1 warning \(partial run: 3 of 700 cases selected\)/, 'the verdict says partial run');
  t.equal(seen.scripts, 1, 'one script element: the report\'s own');
  // The report as the browser parsed it: the matrix survives parsing intact.
  t.equal(seen.matrixTables, 1, 'the matrix table');
  t.equal(seen.rows.length, report.coverage!.sections.length, 'a row per spec section after parsing');
  t.ok(seen.links > 0);
  t.same(seen.brokenLinks, [], 'every in-page link resolves to an element');
  t.ok(seen.matrixFirst, 'the matrix comes before the section details');

  t.same(seen.headers, ['Section', 'Requirements', 'Covered', 'Passed', 'Failed', 'Errored', 'Warned', 'Skipped', 'Not run', 'Not covered']);
  const sections = report.coverage!.sections;
  t.same(seen.rows.map((r) => `${r.doc} ${r.section}`), sections.map((s) => `${s.doc} ${s.section}`), 'one row per spec section, in spec order');
  t.same(seen.rows.map((r) => r.href), sections.map((s) => `#sec-${s.doc}-${s.section}`));
  const col = (name: string): number => seen.headers.indexOf(name) - 1;
  sections.forEach((s, i) => {
    const row = seen.rows[i]!;
    t.same(row.counts, [s.requirements, s.covered, s.passed, s.failed, s.errored, s.warned, s.skipped, s.notRun, s.notCovered], `counts of ${s.doc} §${s.section}`);
  });
  // §7 has the failure and the warning: red and yellow cells; a zero count has no colour.
  const s7 = seen.rows.find((r) => r.doc === '000' && r.section === '7')!;
  t.equal(s7.counts[col('Failed')], 1);
  t.equal(s7.backgrounds[col('Failed')], RED, 'a failed count is red');
  t.equal(s7.backgrounds[col('Errored')], TRANSPARENT, 'a zero count is not coloured');
  const s22 = seen.rows.find((r) => r.doc === '000' && r.section === '2.2')!;
  t.equal(s22.counts[col('Warned')], 1);
  t.equal(s22.backgrounds[col('Warned')], YELLOW, 'a warned count is yellow');
  t.equal(s22.counts[col('Passed')], 0, 'the requirement counts under its worst result');

  t.match(seen.warningText, 'Warnings (SHOULD rules not met)');
  t.match(seen.warningsDetail, warned.expected!, 'the warning shows what was expected');
  t.match(seen.warningsDetail, warned.actual!, 'and what the target did');

  // The script is the report's own, pinned by its hash; nothing else may run or load.
  const { big: b } = seen;
  t.equal(b.scripts.length, 1, 'the big report has one script too');
  t.ok(b.cspFirst, 'the CSP comes right after the charset, before anything it governs');
  t.match(b.csp, /^default-src 'none'; /, 'nothing loads: the report is read offline');
  t.ok(b.csp.includes(`script-src 'sha256-${sha256(b.scripts[0]!)}'`), 'the CSP pins the script by its hash');
  t.notMatch(b.csp, /unsafe-inline|unsafe-eval|https?:/, 'no other script source');
  t.notOk(seen.tampered.planted, 'a script planted in the page does not run');
  t.equal(seen.tampered.own, `${cases.length} cases`, 'while the report\'s own script still does');

  // The filter and search over 1,000 failures, a flaky case and one never started.
  const v = b.views;
  const total = big.cases.length;
  t.same(v.initial, { ...v.initial, count: `${total} cases`, cases: total, failuresShown: true, flakyShown: true }, 'nothing filtered at first');
  t.match(v.flaky, { count: `1 of ${total} cases match`, cases: 1, statuses: ['flaky'], ids: ['api.status.flaky-read'], failuresShown: false, flakyShown: true }, 'status flaky: the flaky case alone');
  t.match(v.failed, { count: `1000 of ${total} cases match`, cases: 1000, statuses: ['failed'], flakyShown: false }, 'status failed: the thousand failures');
  const should = big.cases.filter((c) => c.status === 'failed' && c.level === 'SHOULD').length;
  t.ok(should > 0 && should < 1000);
  t.match(v.failedShould, { count: `${should} of ${total} cases match`, cases: should, statuses: ['failed'], levels: ['SHOULD'] }, 'status and level combine');
  const inSection = big.cases.filter((c) => c.spec.doc === '000' && c.spec.section === '7').length;
  t.match(v.section, { cases: inSection, sections: ['000 §7'] }, 'section 000 §7: its cases only');
  t.match(v.search, { count: `1 of ${total} cases match`, ids: ['api.bulk.case-0500'] }, 'search, case-insensitive, finds one case among a thousand');
  t.same(v.cleared, v.initial, 'clearing the filter shows everything again');
});

interface View {
  count: string; cases: number; statuses: string[]; sections: string[]; levels: string[]; ids: string[]; failuresShown: boolean; flakyShown: boolean;
}

/**
 * `report matrix` in the browser: the page a reader opens. Three runs, as the issue names them:
 * the reference; the reference behind a proxy that breaks one rule (a GET of a missing object
 * answered 200); the reference with no agent given (its agent cases skipped). Synthetic reports
 * built from the fixtures' cases: the matrix reads results files, not targets.
 */
const MATRIX_PROBE = `<!DOCTYPE html><html><body><pre id="result">not run</pre>
<iframe id="matrix" src="matrix.html" style="width:1280px;height:900px"></iframe>
<script>
const out = document.getElementById('result');
document.getElementById('matrix').addEventListener('load', () => {
  try {
    const w = document.getElementById('matrix').contentWindow;
    const d = w.document;
    const section = (doc, sec) => d.querySelector('tbody.section[data-doc="' + doc + '"][data-section="' + sec + '"]');
    const cells = (doc, sec) => [...section(doc, sec).querySelectorAll('td.cell')].map((td) => ({
      counts: (({ run, ...counts }) => counts)(td.dataset),
      badges: [...td.querySelectorAll('.b')].map((b) => ({ text: b.textContent, href: b.getAttribute('href'), bg: w.getComputedStyle(b).backgroundColor })),
    }));
    const visibleReqs = (doc, sec) => [...section(doc, sec).querySelectorAll('tr.req')].filter((tr) => tr.getClientRects().length > 0).length;
    const closed = visibleReqs('000', '7');
    section('000', '7').querySelector('details').open = true;
    const opened = visibleReqs('000', '7');
    const reqRow = (id) => [...section('000', '7').querySelectorAll('tr.req')].find((tr) => tr.dataset.req === id);
    const links = [...d.querySelectorAll('a[href^="#"]')].map((a) => a.getAttribute('href').slice(1));
    out.textContent = JSON.stringify({
      scripts: d.scripts.length,
      csp: d.querySelector('meta[http-equiv="Content-Security-Policy"]').getAttribute('content'),
      headers: [...d.querySelectorAll('thead th[data-run]')].map((th) => th.innerText),
      s7: cells('000', '7'), s22: cells('000', '2.2'), s001: cells('001', '1'),
      closed, opened, reqs7: section('000', '7').querySelectorAll('tr.req').length,
      notFoundRow: [...reqRow('${REQ_NOT_FOUND}').querySelectorAll('td.rcell')].map((td) => td.dataset.bucket),
      must: [...d.querySelectorAll('tfoot tr.must td')].map((td) => [Number(td.dataset.mustPassed), Number(td.dataset.mustTotal)]),
      interop: { ...d.querySelector('tfoot tr.interop td').dataset, text: d.querySelector('tfoot tr.interop td').textContent },
      brokenLinks: links.filter((id) => !d.getElementById(id)),
      evidence: [...d.querySelectorAll('.ev')].map((el) => ({ id: el.id, text: el.innerText })),
    });
  } catch (e) {
    out.textContent = 'ERROR ' + e;
  }
});
</script></body></html>`;

t.test('report matrix in headless Chromium: three runs (reference, a proxy breaking one rule, no agent), counts, links to evidence, sections open without script, MUST and interop shares', { skip }, async (t) => {
  if (!chromium) {
    t.fail('chromium is not installed, and CI must run this test: .ci/run installs it (apt-get install chromium)');
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), 'orch-matrix-browser-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));

  const AGENT_REQ = '001-1-stateless-per-node';
  const agentCase = kase({ id: 'agent.stateless', status: 'passed', suite: 'agent', requirements: [AGENT_REQ], spec: { doc: '001', section: '1' }, needs: ['agent'] });
  const notFound = kase({ ...failed, status: 'passed', message: '', expected: undefined, actual: undefined, exchanges: [] });
  const run = (runId: string, label: string, target: RunReport['target'], cases: RunReport['cases']): RunReport => ({
    ...passingWithWarning(), runId, label, target, startedAt: '2026-11-29T01:00:00.000Z', cases, summary: summarise(cases), coverage: computeCoverage(cases),
  });
  const agent = { url: 'https://127.0.0.1:10250', node: 'node-1' };
  const reference = run('ref1', 'reference', { embedded: true, agent }, [passed, notFound, agentCase]);
  const proxied = run('proxy1', 'reference behind a proxy', { api: 'https://127.0.0.1:7443', embedded: false, agent }, [passed, failed, agentCase]);
  const noAgent = run('noagent1', 'no agent', { api: 'https://127.0.0.1:6443', embedded: false }, [passed, notFound, { ...agentCase, status: 'skipped', message: 'needs --agent and --node' }]);
  const matrix = buildMatrix([{ file: 'ref.json', report: reference }, { file: 'proxy.json', report: proxied }, { file: 'noagent.json', report: noAgent }]);
  await writeFile(join(dir, 'matrix.html'), renderMatrixHtml(matrix));
  await writeFile(join(dir, 'probe.html'), MATRIX_PROBE);

  const text = await probeText(t, chromium, dir);
  type Cell = { counts: Record<string, string>; badges: Array<{ text: string; href: string | null; bg: string }> };
  const seen = JSON.parse(text) as {
    scripts: number; csp: string; headers: string[]; s7: Cell[]; s22: Cell[]; s001: Cell[]; closed: number; opened: number; reqs7: number;
    notFoundRow: string[]; must: Array<[number, number]>; interop: Record<string, string>; brokenLinks: string[]; evidence: Array<{ id: string; text: string }>;
  };

  t.equal(seen.scripts, 0, 'the matrix has no script');
  t.match(seen.csp, /^default-src 'none'; style-src 'sha256-/, 'nothing loads and nothing runs');
  t.equal(seen.headers.length, 3, 'a column per run');
  t.match(seen.headers[0]!, /^reference\n[\s\S]*embedded reference, agent https:\/\/127\.0\.0\.1:10250 \(node node-1\)/, 'a column is headed by its label and target');
  t.match(seen.headers[1]!, /^reference behind a proxy\n[\s\S]*https:\/\/127\.0\.0\.1:7443/);
  t.match(seen.headers[2]!, /^no agent\n/);
  t.notMatch(seen.headers[2]!, /agent https/, 'the run without an agent names none');

  const inSection = (doc: string, section: string) => REQUIREMENTS.filter((r) => r.doc === doc && r.section === section).length;
  const counts = (pass: number, fail: number, warn: number, skip: number, notCovered: number) => ({ pass: String(pass), fail: String(fail), warn: String(warn), skip: String(skip), notCovered: String(notCovered) });
  const n7 = inSection('000', '7');
  t.same(seen.s7.map((c) => c.counts), [counts(1, 0, 0, 0, n7 - 1), counts(0, 1, 0, 0, n7 - 1), counts(1, 0, 0, 0, n7 - 1)], '000 §7: the proxy\'s run fails the rule the proxy breaks');
  const failBadge = seen.s7[1]!.badges.find((b) => b.text === '1 fail')!;
  t.ok(failBadge, 'the failure is shown as a count');
  t.equal(failBadge.bg, RED, 'in red');
  t.equal(failBadge.href, `#ev-1-${failed.id}`, 'linking to its evidence');
  t.equal(seen.s7[0]!.badges.find((b) => b.text === '1 pass')!.href, null, 'a pass has no evidence to link to');
  const n22 = inSection('000', '2.2');
  t.same(seen.s22.map((c) => c.counts), [0, 1, 2].map(() => counts(1, 0, 0, 0, n22 - 1)), '000 §2.2: every run passes the one requirement it checked');
  const n001 = inSection('001', '1');
  t.same(seen.s001.map((c) => c.counts), [counts(1, 0, 0, 0, n001 - 1), counts(1, 0, 0, 0, n001 - 1), counts(0, 0, 0, 1, n001 - 1)], '001 §1: the run without an agent skipped its agent rule');
  t.equal(seen.s001[2]!.badges.find((b) => b.text === '1 skip')!.href, '#ev-2-agent.stateless', 'the skip links to its reason');

  t.equal(seen.closed, 0, 'a section\'s requirements are hidden while it is closed');
  t.equal(seen.opened, seen.reqs7, 'and all shown once its <details> is opened, without script');
  t.equal(seen.reqs7, n7, 'a requirement row per catalogue requirement of the section');
  t.same(seen.notFoundRow, ['pass', 'fail', 'pass'], 'the broken rule\'s row, run by run');

  const mustTotal = REQUIREMENTS.filter((r) => r.level === 'MUST').length;
  // The planted failure's rule is SHOULD: the proxy's run passes as many MUST rules as the reference.
  t.same(seen.must, [[2, mustTotal], [2, mustTotal], [1, mustTotal]], 'MUST requirements passed, per run');
  t.same({ passed: seen.interop.interopPassed, total: seen.interop.interopTotal }, { passed: '1', total: String(REQUIREMENTS.length) }, 'interop: the one requirement every run passes');
  t.match(seen.interop.text, `1 of ${REQUIREMENTS.length} requirements passed by every run`);

  t.same(seen.brokenLinks, [], 'every link resolves');
  t.same(seen.evidence.map((e) => e.id), [`ev-1-${failed.id}`, 'ev-2-agent.stateless'], 'evidence for the failure and the skip only');
  t.match(seen.evidence[0]!.text, failed.expected!, 'the evidence says what was expected');
  t.match(seen.evidence[0]!.text, 'GET http://127.0.0.1:8080/api/v1/namespaces/x/pods/missing', 'and the exchange the failure is about');
  t.match(seen.evidence[1]!.text, 'needs --agent and --node');
});

/** The matrix page's requirement rows (data-req) and what the reader can follow: buckets per run, links, scripts. */
const MATRIX_ROWS_PROBE = (ids: readonly string[]) => `<!DOCTYPE html><html><body><pre id="result">not run</pre>
<iframe id="matrix" src="matrix.html" style="width:1280px;height:900px"></iframe>
<script>
const out = document.getElementById('result');
document.getElementById('matrix').addEventListener('load', () => {
  try {
    const d = document.getElementById('matrix').contentWindow.document;
    const row = (id) => [...d.querySelectorAll('tr.req')].find((tr) => tr.dataset.req === id);
    const links = [...d.querySelectorAll('a[href^="#"]')].map((a) => a.getAttribute('href').slice(1));
    out.textContent = JSON.stringify({
      scripts: d.scripts.length,
      headers: [...d.querySelectorAll('thead th[data-run]')].map((th) => th.innerText),
      rows: Object.fromEntries(${JSON.stringify(ids)}.map((id) => [id, row(id) ? [...row(id).querySelectorAll('td.rcell')].map((td) => ({ bucket: td.dataset.bucket, href: td.querySelector('a') ? td.querySelector('a').getAttribute('href') : null })) : null])),
      brokenLinks: links.filter((id) => !d.getElementById(id)),
      evidence: [...d.querySelectorAll('.ev')].map((el) => ({ id: el.id, text: el.innerText })),
    });
  } catch (e) {
    out.textContent = 'ERROR ' + e;
  }
});
</script></body></html>`;

t.test('report matrix of three real runs in headless Chromium: the reference, the reference behind a proxy breaking one rule, the reference without its agent', { skip }, async (t) => {
  if (!chromium) {
    t.fail('chromium is not installed, and CI must run this test: .ci/run installs it (apt-get install chromium)');
    return;
  }
  const API_CASE = 'api.storageclass.provisioner.required';
  const AGENT_CASE = 'agent.stats.provider.present';
  const cases = selectCases(ALL_CASES, { ids: [API_CASE, AGENT_CASE] });
  t.equal(cases.length, 2);
  // One embedded reference with its mock CRI and agent, run three ways.
  const started = await startEmbeddedGroups(cases, { runId: newRunId(), node: true });
  t.teardown(() => started.close());
  t.equal(started.groups.length, 1, 'one profile');
  const group = started.groups[0]!;
  const tls = processSelfSigned('127.0.0.1');
  // The one rule broken: a StorageClass without provisioner is accepted (201) instead of refused.
  const broken = await startBrokenTarget(group.conn.baseUrl, {
    request: (r) => {
      if (r.method !== 'POST' || !r.path.startsWith('/apis/storage.orch.io/v1/storageclasses')) return undefined;
      const obj = JSON.parse(r.body);
      if (obj.provisioner !== undefined) return undefined;
      return { status: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...obj, metadata: { ...obj.metadata, uid: 'planted' } }) };
    },
  }, { tls, caPem: group.conn.caPem });
  t.teardown(() => broken.close());
  const runOn = async (label: string, g: typeof group): Promise<RunReport> => ({ ...(await runGroups([g], { embedded: false, version: 'test', runId: newRunId() })), label });
  const reference = await runOn('reference', group);
  const proxied = await runOn('reference behind a proxy', { ...group, conn: { ...group.conn, baseUrl: broken.url, caPem: tls.caPem } });
  const noAgent = await runOn('no agent', { ...group, node: undefined });
  const statuses = (r: RunReport) => r.cases.map((c) => `${c.id}: ${c.status}`);
  t.same(statuses(reference), [`${API_CASE}: passed`, `${AGENT_CASE}: passed`], 'the reference passes both');
  t.same(statuses(proxied), [`${API_CASE}: failed`, `${AGENT_CASE}: passed`], 'the proxy breaks exactly its rule');
  t.same(statuses(noAgent), [`${API_CASE}: passed`, `${AGENT_CASE}: skipped`], 'without the agent its case is skipped');

  const dir = await mkdtemp(join(tmpdir(), 'orch-matrix-real-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const apiReqs = cases[0]!.id === API_CASE ? cases[0]!.requirements : cases[1]!.requirements;
  const agentReqs = (cases[0]!.id === AGENT_CASE ? cases[0]! : cases[1]!).requirements;
  const matrix = buildMatrix([{ file: 'ref.json', report: reference }, { file: 'proxy.json', report: proxied }, { file: 'noagent.json', report: noAgent }]);
  await writeFile(join(dir, 'matrix.html'), renderMatrixHtml(matrix));
  await writeFile(join(dir, 'probe.html'), MATRIX_ROWS_PROBE([...apiReqs, ...agentReqs]));
  const text = await probeText(t, chromium, dir);
  const seen = JSON.parse(text) as { scripts: number; headers: string[]; rows: Record<string, Array<{ bucket: string; href: string | null }> | null>; brokenLinks: string[]; evidence: Array<{ id: string; text: string }> };
  t.equal(seen.scripts, 0, 'no script');
  t.same(seen.headers.map((h) => h.split('\n')[0]), ['reference', 'reference behind a proxy', 'no agent'], 'a column per run, by its label');
  for (const id of apiReqs) t.same(seen.rows[id]?.map((c) => c.bucket), ['pass', 'fail', 'pass'], `${id}: only the proxy's run fails it`);
  for (const id of agentReqs) t.same(seen.rows[id]?.map((c) => c.bucket), ['pass', 'pass', 'skip'], `${id}: the run without the agent skipped it`);
  const failLink = seen.rows[apiReqs[0]!]![1]!.href;
  t.ok(failLink, 'the failure links to its evidence');
  const ev = seen.evidence.find((e) => `#${e.id}` === failLink);
  t.match(ev?.text ?? '', API_CASE, 'which names the case');
  t.same(seen.brokenLinks, [], 'every link resolves');
});
