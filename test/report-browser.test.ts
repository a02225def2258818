// The HTML report as a user sees it: opened in headless Chromium (Debian's `chromium`; .ci/run
// installs it), the DOM checked after the browser parsed and styled it. Without Chromium the test
// is skipped with the reason, except in CI (`CI` set), where it must run.
import t from 'tap';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RunReport } from '../runner/results.js';
import { summarise } from '../runner/run.js';
import { renderHtml } from '../reporters/html.js';
import { computeCoverage } from '../reporters/coverage.js';
import { REQ_DEFAULT, failed, passed, passingWithWarning, skipped, warned } from './helpers/report-fixture.js';

function findChromium(): string | undefined {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (found.status === 0 && found.stdout.trim()) return found.stdout.trim();
  }
  return undefined;
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
<script>
const out = document.getElementById('result');
window.addEventListener('error', (e) => { out.textContent = 'ERROR ' + e.message; });
document.getElementById('report').addEventListener('load', () => {
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
      matrixFirst: !!(matrix && firstSection && (matrix.compareDocumentPosition(firstSection) & Node.DOCUMENT_POSITION_FOLLOWING)),
      warningText: (d.getElementById('warnings') || {}).textContent || '',
      warningsDetail: (d.getElementById('case-${warned.id}') || {}).innerText || '',
    });
  } catch (e) {
    out.textContent = 'ERROR ' + e;
  }
});
</script></body></html>`;

const RED = 'rgb(251, 218, 218)';
const YELLOW = 'rgb(253, 240, 204)';
const TRANSPARENT = 'rgba(0, 0, 0, 0)';

const chromium = findChromium();
// Skipped only off CI: in CI a missing browser is a failure, not a silent skip.
const skip = !chromium && !process.env.CI ? 'chromium is not installed (apt-get install --no-install-recommends chromium); CI runs this test' : false;

t.test('the HTML report in headless Chromium: matrix, counts, partial verdict, links, no scripts', { skip }, async (t) => {
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
  await writeFile(join(dir, 'report.html'), renderHtml(report));
  await writeFile(join(dir, 'probe.html'), PROBE);

  // The report alone, as the browser parsed it: the matrix survives parsing intact.
  const dom = await dumpDom(chromium, join(dir, 'report.html'), join(dir, 'profile-1'));
  t.match(dom, /<table class="matrix">/);
  t.equal((dom.match(/<tr class="section"/g) ?? []).length, report.coverage!.sections.length, 'a row per spec section after parsing');
  t.notMatch(dom, /<script/i, 'no script in the report');

  const probed = await dumpDom(chromium, join(dir, 'probe.html'), join(dir, 'profile-2'));
  const m = /<pre id="result">([\s\S]*?)<\/pre>/.exec(probed);
  t.ok(m, 'the probe page ran');
  const text = m![1]!.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  t.notMatch(text, /^ERROR|^not run/, `the probe ran without script errors: ${text.slice(0, 200)}`);
  const seen = JSON.parse(text) as {
    title: string; verdict: string; headers: string[]; links: number; brokenLinks: string[]; scripts: number; matrixFirst: boolean;
    rows: Array<{ doc: string; section: string; href: string; counts: number[]; backgrounds: string[] }>;
    warningText: string; warningsDetail: string;
  };

  t.match(seen.verdict, /^FAIL with 1 warning \(partial run: 3 of 700 cases selected\)/, 'the verdict says partial run');
  t.equal(seen.scripts, 0, 'no script elements');
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
});
