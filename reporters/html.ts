// HTML report for auditors: one self-contained file (inline CSS, no external assets), the same
// content as the markdown report, with a filter (status, section, level) and a search that work
// offline. Its one script is a constant of this module, pinned by a Content-Security-Policy with
// its sha256 hash: nothing a target answered (every piece of data is escaped anyway) can run.
import { createHash } from 'node:crypto';
import type { CaseAttempt, CaseResult, CoverageCounts, Exchange, RunReport } from '../runner/results.js';
import { differentialLines } from '../runner/differential.js';
import {
  FileReporter,
  type FileReporterOptions,
  OUTCOME_LABEL,
  type Outcome,
  anchor,
  BODY_LIMIT,
  EXCHANGES_SHOWN,
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
  flakyCases,
  findingLines,
  FULL_TEXT_HINT,
  attemptLine,
  evidencePlan,
  type EvidencePlan,
  clip,
  detailedCases,
  isDetailed,
  omittedExchangesText,
  shownExchanges,
} from './format.js';
import { requirementLabel } from './grouping.js';
import { caseReproducer, fitsBodyLimit, reproducerLeftOutText, reproducerTarget, type ReproducerTarget } from './reproducer.js';
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
.flaky{background:#e3ecfb;color:#1f4e8c}.unstarted{background:#ebebef;color:#4a4f5c}
[hidden]{display:none!important}
.filter{position:sticky;top:0;z-index:1;background:#fff;border-bottom:1px solid #ccd;padding:.5rem 0;display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center}
.filter input[type=search]{min-width:16rem}
.repro button{margin-left:.5rem;font-size:12px}
`;

/**
 * The filter and search: every case row and case detail carries data-status (its outcome),
 * data-section ("000 §7"), data-level and data-text (lower-case id, title, suite, requirements,
 * message); a requirement, section or document with no row left to show is hidden with them.
 * It reads nothing but the page and writes nothing but `hidden` and the count. A reproducer's Copy
 * button puts its command on the clipboard (the Clipboard API where the page is a secure context, a
 * selection and the copy command otherwise: both work offline). Written without `&`
 * and `<`, so that the report stays well-formed XML as well as HTML.
 */
const SCRIPT = `(() => {
  const byId = (id) => document.getElementById(id);
  const status = byId('f-status'), section = byId('f-section'), level = byId('f-level'), search = byId('f-search'), count = byId('f-count');
  const items = [...document.querySelectorAll('[data-status]')];
  const groups = [...document.querySelectorAll('.f-group')];
  const total = Number(count.dataset.total);
  const apply = () => {
    const st = status.value, se = section.value, lv = level.value, q = search.value.trim().toLowerCase();
    const active = Boolean(st || se || lv || q);
    const cases = new Set();
    for (const el of items) {
      const show = [st ? el.dataset.status === st : true, se ? el.dataset.section === se : true, lv ? el.dataset.level === lv : true, q ? el.dataset.text.includes(q) : true].every(Boolean);
      el.hidden = !show;
      if (show) cases.add(el.dataset.case);
    }
    for (const g of groups) g.hidden = active ? !g.querySelector('[data-status]:not([hidden])') : false;
    count.textContent = active ? cases.size + ' of ' + total + ' cases match' : total + ' cases';
  };
  for (const el of [status, section, level]) el.addEventListener('change', apply);
  search.addEventListener('input', apply);
  apply();
  const copied = (b, ok) => { b.textContent = ok ? 'Copied' : 'Selected: press Ctrl+C'; };
  for (const b of document.querySelectorAll('button.copy')) b.addEventListener('click', () => {
    const pre = byId(b.dataset.copy);
    const viaSelection = () => {
      const range = document.createRange();
      range.selectNodeContents(pre);
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      let ok = false;
      try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
      copied(b, ok);
    };
    const api = window.isSecureContext ? navigator.clipboard : undefined;
    if (api) api.writeText(pre.textContent).then(() => copied(b, true), viaSelection);
    else viaSelection();
  });
})();`;

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** Only this module's style and script may apply; nothing may load (the report is read offline). */
export const CSP = `default-src 'none'; style-src ${sha256(CSS)}; script-src ${sha256(SCRIPT)}; base-uri 'none'; form-action 'none'`;

/** Characters of bodies the details may take in all, before bodies are cut shorter than BODY_LIMIT. */
const BODY_BUDGET = 1024 * 1024;

/** A message in a table cell is cut to this many characters; the case's details have it whole. */
const NOTE_LIMIT = 300;

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
    out.push('<p class="missing"><strong>Interrupted:</strong> the run stopped before every case finished; cases it never started are listed as <em>not started</em> and checked nothing.</p>');
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
  else if (c.message) parts.push(multiline(clip(c.message, NOTE_LIMIT)));
  if (isDetailed(c)) parts.push(`<a href="#${escapeAttr(anchor('case', c.id))}">details</a>`);
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
    flakyCases(report).length ? '<a href="#flaky">Flaky cases (passed on a retry)</a>' : '',
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

/** The filter's key of a spec section, as its menu offers it. */
const sectionKey = (doc: string, section: string): string => `${doc} §${section}`;

/** What the filter matches a case on (see SCRIPT). */
function filterAttrs(c: CaseResult, section: string): string {
  const text = [c.id, c.title, c.suite, ...c.requirements, clip(c.message, NOTE_LIMIT)].join(' ').toLowerCase();
  return `data-case="${escapeAttr(c.id)}" data-status="${escapeAttr(outcome(c))}" data-section="${escapeAttr(section)}" data-level="${escapeAttr(c.level)}" data-text="${escapeAttr(text)}"`;
}

function requirementsSection(docs: OutlineDoc[]): string {
  const out: string[] = [];
  for (const doc of docs) {
    out.push(`<section class="f-group"><h2 id="${escapeAttr(anchor('doc', doc.doc))}">${h(`${doc.doc}: ${doc.title}`)}</h2>`);
    for (const sec of doc.sections) {
      const key = sectionKey(doc.doc, sec.section);
      out.push(`<div class="f-group">`);
      out.push(`<h3 id="${escapeAttr(sectionAnchor(doc.doc, sec.section))}">${h(`${sec.section} ${sec.title ?? ''}`.trim())}</h3>`);
      if (sec.coverage) {
        const c = sec.coverage;
        out.push(`<p class="counts">${c.requirements} requirements, ${c.covered} covered: ${c.passed} passed, ${c.failed} failed, ${c.errored} errored, ${c.warned} warned, ${c.skipped} skipped, ${c.notRun} not run, ${c.notCovered} not covered · <a href="#coverage">back to the matrix</a></p>`);
      }
      for (const g of sec.requirements) {
        out.push(`<div class="req f-group"${g.id ? ` id="${escapeAttr(anchor('req', g.id))}"` : ''}>`);
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
            `<tr ${filterAttrs(c, key)}><td>${badge(outcome(c))}</td><td><code>${h(c.id)}</code><br/>${h(c.title)}</td><td>${h(formatDuration(c.durationMs))}</td><td>${caseNote(c)}</td></tr>`,
          );
        }
        out.push('</table></div>');
      }
      out.push(requirementList(sec.notRun, 'Not run (no selected case names them)', 'meta'));
      out.push(requirementList(sec.notCovered, 'Not covered (no case of the kit checks them)', 'missing'));
      out.push('</div>');
    }
    out.push('</section>');
  }
  return out.filter(Boolean).join('\n');
}

function exchange(ex: Exchange, n: number, plan: EvidencePlan): string {
  const status = ex.status !== undefined ? String(ex.status) : 'no response';
  const out = [
    `<details><summary>${n}. <code>${h(`${ex.method} ${ex.url}`)}</code> → <strong>${h(status)}</strong> (${h(formatDuration(ex.durationMs))})</summary>`,
  ];
  if (ex.error) out.push(`<p class="missing">Error: ${h(ex.error)}</p>`);
  const req = headerLines(ex.requestHeaders);
  out.push(`<p>Request</p><pre>${h([`${ex.method} ${ex.url}`, ...req, ...(ex.requestBody ? ['', displayBody(ex.requestBody, plan.bodyLimit)] : [])].join('\n'))}</pre>`);
  if (ex.status !== undefined || ex.responseBody) {
    const res = headerLines(ex.responseHeaders);
    out.push(`<p>Response</p><pre>${h([`status ${status}`, ...res, ...(ex.responseBody ? ['', displayBody(ex.responseBody, plan.bodyLimit)] : [])].join('\n'))}</pre>`);
  }
  out.push('</details>');
  return out.join('\n');
}

function exchanges(list: readonly Exchange[], heading: string, plan: EvidencePlan): string[] {
  if (!list.length) return [];
  const { shown, omitted, omittedBefore } = shownExchanges(list, plan.exchangesShown);
  const out = [`<h4>${h(heading)} (${list.length})</h4>`];
  shown.forEach(({ ex, n }, i) => {
    if (i === omittedBefore) out.push(`<p class="meta">${h(omittedExchangesText(omitted))}</p>`);
    out.push(exchange(ex, n, plan));
  });
  return out;
}

/** Message, expected and actual of a case or an attempt. */
function evidence(e: Pick<CaseAttempt, 'message' | 'expected' | 'actual'>): string[] {
  const out: string[] = [];
  if (e.message) out.push(`<p>Message</p><pre>${h(e.message)}</pre>`);
  if (e.expected !== undefined) out.push(`<p>Expected</p><pre>${h(e.expected)}</pre>`);
  if (e.actual !== undefined) out.push(`<p>Actual</p><pre>${h(e.actual)}</pre>`);
  return out;
}

/** The attempts before the last (`run --retries`): each with what it ended with and its evidence. */
function earlierAttempts(c: CaseResult, plan: EvidencePlan): string[] {
  const attempts = c.attempts ?? [];
  if (attempts.length < 2) return [];
  const out = [`<h4>Attempts (${attempts.length})</h4>`, `<ol class="attempts">${attempts.map((a, i) => `<li>${h(attemptLine(a, i, attempts.length))}</li>`).join('')}</ol>`];
  attempts.slice(0, -1).forEach((a, i) => {
    out.push(`<details class="attempt"><summary>Attempt ${i + 1}: ${h(OUTCOME_LABEL[a.status as Outcome] ?? a.status)}</summary>`);
    out.push(...evidence(a), ...exchanges(a.exchanges, `Exchanges of attempt ${i + 1}`, plan), '</details>');
  });
  return out;
}

/** The curl command that sends the failing request again, with a button that copies it. */
function reproducer(c: CaseResult, target: ReproducerTarget, plan: EvidencePlan): string[] {
  const r = caseReproducer(c, target);
  if (!r) return [];
  if (!fitsBodyLimit(r.text, plan.bodyLimit)) return [`<p class="meta">${h(reproducerLeftOutText(r.n))}</p>`];
  const id = escapeAttr(anchor('repro', c.id));
  return [`<div class="repro"><h4>Reproducer (exchange ${r.n})<button type="button" class="copy" data-copy="${id}">Copy</button></h4><pre id="${id}">${h(r.text)}</pre></div>`];
}

function caseDetail(c: CaseResult, plan: EvidencePlan, target: ReproducerTarget): string {
  const out = [`<div class="req" id="${escapeAttr(anchor('case', c.id))}" ${filterAttrs(c, sectionKey(c.spec.doc, c.spec.section))}>`];
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
  out.push(...evidence(c));
  const findings = findingLines(c);
  if (findings.length) out.push(`<p>Findings (SHOULD: upstream's shape or the spec's recommendation, apart from the verdict; MAY: a permitted outcome, noted)</p><ul>${findings.map((f) => `<li>${h(f)}</li>`).join('')}</ul>`);
  // `--differential`: what the reference answered where the target's answer differs.
  if (c.differential) out.push(`<div class="differential"><p>Differential</p><ul>${differentialLines(c.differential).map((l) => `<li>${h(l.trim())}</li>`).join('')}</ul></div>`);
  out.push(...earlierAttempts(c, plan));
  out.push(...exchanges(c.exchanges, (c.attempts?.length ?? 0) > 1 ? 'Exchanges of the last attempt' : 'Exchanges', plan));
  out.push(...reproducer(c, target, plan));
  out.push('</div>');
  return out.join('\n');
}

function details(report: RunReport): string {
  const out: string[] = [];
  // A run with a thousand failures gets shorter bodies, so that the file stays one a browser opens.
  const plan = evidencePlan(detailedCases(report), BODY_BUDGET);
  const target = reproducerTarget(report);
  const detail = (c: CaseResult) => caseDetail(c, plan, target);
  const cut =
    plan.bodyLimit < BODY_LIMIT || plan.exchangesShown < EXCHANGES_SHOWN
      ? `<p class="meta">To keep this report a size a browser opens, each case shows at most ${plan.exchangesShown} exchanges and bodies are cut at ${plan.bodyLimit} characters; ${h(FULL_TEXT_HINT)}.</p>`
      : '';
  const failures = failedCases(report);
  if (failures.length) out.push('<section class="f-group"><h2 id="failures">Failures and errors</h2>', cut, ...failures.map(detail), '</section>');
  const warnings = warnedCases(report);
  if (warnings.length) {
    out.push(
      '<section class="f-group"><h2 id="warnings">Warnings (SHOULD rules not met)</h2>',
      '<p class="meta">These cases check rules of level SHOULD (recommendations and upstream behaviour). They do not fail the run; <code>run --strict</code> makes them failures.</p>',
      ...warnings.map(detail),
      '</section>',
    );
  }
  const flaky = flakyCases(report);
  if (flaky.length) {
    out.push(
      '<section class="f-group"><h2 id="flaky">Flaky cases (passed on a retry)</h2>',
      "<p class=\"meta\">These cases failed or errored, then passed when <code>run --retries</code> ran them again: each failed attempt's evidence is below. They do not fail the run without <code>--strict</code>.</p>",
      ...flaky.map(detail),
      '</section>',
    );
  }
  return out.filter(Boolean).join('\n');
}

/** The filter bar: status, section and level menus of what the report holds, a search box, a count. */
function filterBar(report: RunReport, docs: OutlineDoc[]): string {
  const option = (value: string, label: string) => `<option value="${escapeAttr(value)}">${h(label)}</option>`;
  const outcomes = [...new Set(report.cases.map(outcome))].sort((a, b) => OUTCOME_ORDER.indexOf(a) - OUTCOME_ORDER.indexOf(b));
  const sections = docs.flatMap((d) => d.sections.filter((s) => s.requirements.length).map((s) => sectionKey(d.doc, s.section)));
  const levels = [...new Set(report.cases.map((c) => c.level))].sort();
  return [
    '<div class="filter" id="filter" role="search">',
    `<label>Status <select id="f-status">${option('', 'any')}${outcomes.map((o) => option(o, OUTCOME_LABEL[o])).join('')}</select></label>`,
    `<label>Section <select id="f-section">${option('', 'any')}${sections.map((k) => option(k, k)).join('')}</select></label>`,
    `<label>Level <select id="f-level">${option('', 'any')}${levels.map((l) => option(l, l)).join('')}</select></label>`,
    '<label>Search <input type="search" id="f-search" placeholder="case id, title, requirement, message"/></label>',
    `<span class="meta" id="f-count" data-total="${report.cases.length}">${report.cases.length} cases</span>`,
    '</div>',
  ].join('\n');
}

const OUTCOME_ORDER: Outcome[] = ['failed', 'errored', 'unexpected-pass', 'warned', 'flaky', 'known-failure', 'interrupted', 'unstarted', 'skipped', 'passed'];

export function renderHtml(report: RunReport): string {
  const docs = specOutline(report);
  const title = `Conformance report: ${targetLabel(report.target)}`;
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8"/>',
    `<meta http-equiv="Content-Security-Policy" content="${escapeAttr(CSP)}"/>`,
    '<meta name="viewport" content="width=device-width, initial-scale=1"/>',
    `<title>${h(title)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    `<h1>${h(title)}</h1>`,
    verdictLine(report),
    matrix(report, docs),
    summary(report),
    filterBar(report, docs),
    requirementsSection(docs),
    details(report),
    `<script>${SCRIPT}</script>`,
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
