// HTML report for auditors: one self-contained file (inline CSS, no script, no external assets),
// the same content as the markdown report. Every piece of data is escaped.
import type { CaseResult, CoverageCounts, Exchange, RunReport } from '../runner/results.js';
import {
  FileReporter,
  type FileReporterOptions,
  OUTCOME_LABEL,
  type Outcome,
  anchor,
  displayBody,
  escapeAttr,
  escapeText as h,
  formatDuration,
  headerLines,
  outcome,
  splitCodeSpans,
  targetLabel,
  unexpectedPassMessage,
  verdict,
  verdictHeadline,
  verdictReason,
  summaryFacts,
  failedCases,
  warnedCases,
  findingLines,
} from './format.js';
import { requirementLabel } from './grouping.js';
import { coverageOf, matrixColumns, sectionAnchor, specOutline, type OutlineDoc } from './coverage.js';
import { SKIP_GROUPS_SHOWN, skipGroups } from './skips.js';
import type { Requirement } from '../suites/requirements/index.js';

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1d2330}
h1{font-size:1.6rem}h2{margin-top:2.5rem;border-bottom:2px solid #ccd;padding-bottom:.2rem}h3{margin-top:1.8rem}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #ccd;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f2f3f7}code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
pre{background:#f6f7f9;border:1px solid #dde;padding:.5rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
blockquote{margin:.5rem 0;padding:.25rem .75rem;border-left:4px solid #99a;background:#fafafc;white-space:pre-wrap}
.req{border:1px solid #dde;border-radius:6px;padding:.5rem 1rem;margin:1rem 0}.req h4{margin:.3rem 0}
.badge{display:inline-block;padding:0 .45rem;border-radius:3px;font-size:12px;font-weight:600;white-space:nowrap}
.passed{background:#d9f2dd;color:#175c24}.failed,.errored,.unexpected-pass{background:#fbdada;color:#8a1414}
.skipped,.interrupted{background:#ebebef;color:#4a4f5c}.known-failure,.warned{background:#fdf0cc;color:#6d5200}
table.matrix td.n{text-align:right;font-variant-numeric:tabular-nums}table.matrix td.zero{color:#9a9fab}
table.matrix td.n-passed{background:#d9f2dd;color:#175c24}table.matrix td.n-failed,table.matrix td.n-errored{background:#fbdada;color:#8a1414;font-weight:700}
table.matrix td.n-warned{background:#fdf0cc;color:#6d5200;font-weight:600}table.matrix td.n-notCovered{background:#f3e8fb;color:#5b2a86}
table.matrix td.n-skipped,table.matrix td.n-notRun,table.matrix td.n-interrupted{background:#ebebef;color:#4a4f5c}
table.matrix tr.doc th{background:#e4e6ee}table.matrix tfoot td,table.matrix tfoot th{font-weight:700;border-top:2px solid #99a}
.counts{color:#4a4f5c}
.verdict{font-size:1.2rem;padding:.2rem .7rem}.verdict-line{font-size:1.05rem}.PASS{background:#d9f2dd;color:#175c24}.FAIL{background:#fbdada;color:#8a1414}
.INCOMPLETE,.UNCHECKED{background:#fdf0cc;color:#6d5200}.missing{color:#8a1414;font-style:italic}.meta{color:#4a4f5c}
details{margin:.4rem 0}summary{cursor:pointer}
`;

function badge(o: Outcome): string {
  return `<span class="badge ${o}">${h(OUTCOME_LABEL[o])}</span>`;
}

/** Text with line breaks kept. */
function multiline(s: string): string {
  return h(s).replace(/\r?\n/g, '<br/>');
}

/** Spec prose: code spans as <code>, everything escaped. */
function prose(s: string): string {
  return splitCodeSpans(s)
    .map((p) => (p.code ? `<code>${h(p.text)}</code>` : h(p.text)))
    .join('');
}

/** The verdict line the report opens with. */
function verdictLine(report: RunReport): string {
  const v = verdict(report);
  return `<p class="verdict-line"><span class="badge verdict ${v}">${h(verdictHeadline(report))}</span> ${h(verdictReason(report))}</p>`;
}

function summary(report: RunReport): string {
  const rows: [string, string][] = [
    ['Run id', `<code>${h(report.runId)}</code>`],
    ...summaryFacts(report).map(([a, b]): [string, string] => [a, h(b)]),
  ];
  const out = ['<section><h2 id="run">Run</h2>', '<table class="summary">', ...rows.map(([a, b]) => `<tr><th>${h(a)}</th><td>${b}</td></tr>`), '</table>'];
  if (report.interrupted) {
    out.push('<p class="missing"><strong>Interrupted:</strong> the run stopped before every case finished; cases that did not run are not listed.</p>');
  }
  if (report.leaks.length) {
    out.push('<p>Objects labelled with this run that were still present after cleanup:</p><ul>');
    for (const l of report.leaks) out.push(`<li><code>${h(l)}</code></li>`);
    out.push('</ul>');
  }
  if (report.cleanupUnverified?.length) {
    out.push('<p>Collections whose cleanup could not be verified (nothing is known to be left behind; check by hand):</p><ul>');
    for (const l of report.cleanupUnverified) out.push(`<li><code>${h(l)}</code></li>`);
    out.push('</ul>');
  }
  out.push(skipSummary(report));
  out.push('</section>');
  return out.join('\n');
}

/** Skipped cases grouped by reason, each with the flags that would let them run (reporters/skips.ts). */
function skipSummary(report: RunReport): string {
  const groups = skipGroups(report);
  if (!groups.length) return '';
  const shown = groups.slice(0, SKIP_GROUPS_SHOWN);
  const out = ['<h3 id="skips">Skipped cases by reason</h3>', '<table class="skips"><thead><tr><th>Cases</th><th>Reason</th><th>Flags that would run them</th></tr></thead><tbody>'];
  for (const g of shown) out.push(`<tr><td class="n">${g.count}</td><td>${prose(g.reason)}</td><td>${g.flags.map((f) => `<code>${h(f)}</code>`).join(' ') || '(none: the target itself)'}</td></tr>`);
  out.push('</tbody></table>');
  if (groups.length > shown.length) out.push(`<p>… and ${groups.length - shown.length} more reasons (every skipped case and its reason is in the JSON report).</p>`);
  return out.join('\n');
}

function caseNote(c: CaseResult): string {
  const parts: string[] = [];
  const o = outcome(c);
  if (o === 'known-failure') parts.push(`known failure: ${h(c.knownFailure?.reason ?? '')}`);
  if (o === 'unexpected-pass') parts.push(h(unexpectedPassMessage(c)));
  else if (c.message) parts.push(multiline(c.message));
  if (c.status === 'failed' || c.status === 'errored' || c.status === 'warned') parts.push(`<a href="#${escapeAttr(anchor('case', c.id))}">details</a>`);
  return parts.join(' · ');
}

/** The per-section matrix: one row per spec section, coloured counts, each linking to its detail. */
function matrix(report: RunReport, docs: OutlineDoc[]): string {
  const coverage = coverageOf(report);
  const cols = matrixColumns(coverage);
  const cells = (counts: CoverageCounts): string =>
    cols.map(({ key }) => `<td class="n ${counts[key] ? `n-${key}` : 'zero'}">${counts[key]}</td>`).join('');
  const out = [
    '<section><h2 id="coverage">Coverage by spec section</h2>',
    '<p class="meta">Each catalogue requirement counts once, under the worst result of the cases of this run that name it. <em>Covered</em>: some case of the kit names it; <em>Not run</em>: covered, but no selected case names it; <em>Not covered</em>: no case checks it.</p>',
    `<table class="matrix"><thead><tr><th>Section</th>${cols.map((c) => `<th>${h(c.label)}</th>`).join('')}</tr></thead><tbody>`,
  ];
  for (const doc of docs) {
    out.push(`<tr class="doc"><th colspan="${cols.length + 1}"><a href="#${escapeAttr(anchor('doc', doc.doc))}">${h(`${doc.doc}: ${doc.title}`)}</a></th></tr>`);
    for (const sec of doc.sections) {
      if (!sec.coverage) continue;
      const link = `<a href="#${escapeAttr(sectionAnchor(doc.doc, sec.section))}">${h(`${doc.doc} §${sec.section} ${sec.title ?? ''}`.trim())}</a>`;
      out.push(`<tr class="section" data-doc="${escapeAttr(doc.doc)}" data-section="${escapeAttr(sec.section)}"><td>${link}</td>${cells(sec.coverage)}</tr>`);
    }
  }
  out.push(`</tbody><tfoot><tr class="total"><th>All sections</th>${cells(coverage.total)}</tr></tfoot></table>`);
  const links = [
    failedCases(report).length ? '<a href="#failures">Failures and errors</a>' : '',
    warnedCases(report).length ? '<a href="#warnings">Warnings (SHOULD rules not met)</a>' : '',
  ].filter(Boolean);
  if (links.length) out.push(`<p>Details: ${links.join(' · ')}</p>`);
  out.push('</section>');
  return out.join('\n');
}

function requirementList(reqs: readonly Requirement[], caption: string, cls: string): string {
  if (!reqs.length) return '';
  const rows = reqs.map((r) => `<tr id="${escapeAttr(anchor('req', r.id))}"><td><code>${h(r.id)}</code></td><td>${h(r.level)}</td><td>${prose(r.text)}</td></tr>`);
  return [`<p class="${cls}"><strong>${h(caption)}</strong> (${reqs.length})</p>`, '<table><tr><th>Requirement</th><th>Level</th><th>Rule</th></tr>', ...rows, '</table>'].join('\n');
}

function requirementsSection(docs: OutlineDoc[]): string {
  const out: string[] = [];
  for (const doc of docs) {
    out.push(`<section><h2 id="${escapeAttr(anchor('doc', doc.doc))}">${h(`${doc.doc}: ${doc.title}`)}</h2>`);
    for (const sec of doc.sections) {
      out.push(`<h3 id="${escapeAttr(sectionAnchor(doc.doc, sec.section))}">${h(`${sec.section} ${sec.title ?? ''}`.trim())}</h3>`);
      if (sec.coverage) {
        const c = sec.coverage;
        out.push(`<p class="counts">${c.requirements} requirements, ${c.covered} covered: ${c.passed} passed, ${c.failed} failed, ${c.errored} errored, ${c.warned} warned, ${c.skipped} skipped, ${c.notRun} not run, ${c.notCovered} not covered · <a href="#coverage">back to the matrix</a></p>`);
      }
      for (const g of sec.requirements) {
        out.push(`<div class="req"${g.id ? ` id="${escapeAttr(anchor('req', g.id))}"` : ''}>`);
        out.push(`<h4>${g.id ? `<code>${h(g.id)}</code>` : h(requirementLabel(g))} ${badge(g.status)}</h4>`);
        if (g.requirement) {
          out.push(`<p class="meta"><strong>${h(g.requirement.level)}</strong> · source: ${h(g.requirement.source)}</p>`);
          out.push(`<blockquote>${prose(g.requirement.text)}</blockquote>`);
        } else if (g.id) {
          out.push('<p class="missing">not in catalogue</p>');
        }
        out.push('<table><tr><th>Status</th><th>Case</th><th>Duration</th><th>Notes</th></tr>');
        for (const c of g.cases) {
          out.push(
            `<tr><td>${badge(outcome(c))}</td><td><code>${h(c.id)}</code><br/>${h(c.title)}</td><td>${h(formatDuration(c.durationMs))}</td><td>${caseNote(c)}</td></tr>`,
          );
        }
        out.push('</table></div>');
      }
      out.push(requirementList(sec.notRun, 'Not run (no selected case names them)', 'meta'));
      out.push(requirementList(sec.notCovered, 'Not covered (no case of the kit checks them)', 'missing'));
    }
    out.push('</section>');
  }
  return out.filter(Boolean).join('\n');
}

function exchange(ex: Exchange, n: number): string {
  const status = ex.status !== undefined ? String(ex.status) : 'no response';
  const out = [
    `<details><summary>${n}. <code>${h(`${ex.method} ${ex.url}`)}</code> → <strong>${h(status)}</strong> (${h(formatDuration(ex.durationMs))})</summary>`,
  ];
  if (ex.error) out.push(`<p class="missing">Error: ${h(ex.error)}</p>`);
  const req = headerLines(ex.requestHeaders);
  out.push(`<p>Request</p><pre>${h([`${ex.method} ${ex.url}`, ...req, ...(ex.requestBody ? ['', displayBody(ex.requestBody)] : [])].join('\n'))}</pre>`);
  if (ex.status !== undefined || ex.responseBody) {
    const res = headerLines(ex.responseHeaders);
    out.push(`<p>Response</p><pre>${h([`status ${status}`, ...res, ...(ex.responseBody ? ['', displayBody(ex.responseBody)] : [])].join('\n'))}</pre>`);
  }
  out.push('</details>');
  return out.join('\n');
}

function caseDetail(c: CaseResult): string {
  const out = [`<div class="req" id="${escapeAttr(anchor('case', c.id))}">`];
  out.push(`<h3><code>${h(c.id)}</code> ${h(c.title)} ${badge(outcome(c))}</h3>`);
  out.push('<table>');
  if (c.knownFailure) out.push(`<tr><th>Known failure</th><td>${h(c.knownFailure.reason)}</td></tr>`);
  out.push(`<tr><th>Suite</th><td>${h(c.suite)}</td></tr>`);
  out.push(`<tr><th>Level</th><td>${h(c.level)}</td></tr>`);
  out.push(`<tr><th>Spec</th><td><a href="#${escapeAttr(sectionAnchor(c.spec.doc, c.spec.section))}">${h(`${c.spec.doc} §${c.spec.section}`)}</a></td></tr>`);
  out.push(
    `<tr><th>Requirements</th><td>${c.requirements.length ? c.requirements.map((r) => `<a href="#${escapeAttr(anchor('req', r))}"><code>${h(r)}</code></a>`).join(', ') : '(none)'}</td></tr>`,
  );
  out.push(`<tr><th>Duration</th><td>${h(formatDuration(c.durationMs))}</td></tr>`);
  out.push('</table>');
  if (c.message) out.push(`<p>Message</p><pre>${h(c.message)}</pre>`);
  if (c.expected !== undefined) out.push(`<p>Expected</p><pre>${h(c.expected)}</pre>`);
  if (c.actual !== undefined) out.push(`<p>Actual</p><pre>${h(c.actual)}</pre>`);
  const findings = findingLines(c);
  if (findings.length) out.push(`<p>Findings (SHOULD: upstream's shape or the spec's recommendation, apart from the verdict; MAY: a permitted outcome, noted)</p><ul>${findings.map((f) => `<li>${h(f)}</li>`).join('')}</ul>`);
  if (c.exchanges.length) {
    out.push(`<h4>Exchanges (${c.exchanges.length})</h4>`);
    c.exchanges.forEach((ex, i) => out.push(exchange(ex, i + 1)));
  }
  out.push('</div>');
  return out.join('\n');
}

function details(report: RunReport): string {
  const out: string[] = [];
  const failures = failedCases(report);
  if (failures.length) out.push('<section><h2 id="failures">Failures and errors</h2>', ...failures.map(caseDetail), '</section>');
  const warnings = warnedCases(report);
  if (warnings.length) {
    out.push(
      '<section><h2 id="warnings">Warnings (SHOULD rules not met)</h2>',
      '<p class="meta">These cases check rules of level SHOULD (recommendations and upstream behaviour). They do not fail the run; <code>run --strict</code> makes them failures.</p>',
      ...warnings.map(caseDetail),
      '</section>',
    );
  }
  return out.join('\n');
}

export function renderHtml(report: RunReport): string {
  const docs = specOutline(report);
  const title = `Conformance report: ${targetLabel(report.target)}`;
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8"/>',
    '<meta name="viewport" content="width=device-width, initial-scale=1"/>',
    `<title>${h(title)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    `<h1>${h(title)}</h1>`,
    verdictLine(report),
    matrix(report, docs),
    summary(report),
    requirementsSection(docs),
    details(report),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

export class HtmlReporter extends FileReporter {
  constructor(opts: FileReporterOptions = {}) {
    super('html', renderHtml, opts);
  }
}
