// HTML report for auditors: one self-contained file (inline CSS, no script, no external assets),
// the same content as the markdown report. Every piece of data is escaped.
import type { CaseResult, Exchange, RunReport } from '../runner/results.js';
import {
  FileReporter,
  type FileReporterOptions,
  OUTCOME_LABEL,
  type Outcome,
  anchor,
  detailedCases,
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
  verdictText,
  summaryFacts,
} from './format.js';
import { groupBySpec, requirementLabel } from './grouping.js';

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
.skipped{background:#ebebef;color:#4a4f5c}.known-failure{background:#fdf0cc;color:#6d5200}
.verdict{font-size:1.2rem;padding:.2rem .7rem}.PASS{background:#d9f2dd;color:#175c24}.FAIL{background:#fbdada;color:#8a1414}
.INCOMPLETE{background:#fdf0cc;color:#6d5200}.missing{color:#8a1414;font-style:italic}.meta{color:#4a4f5c}
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

function summary(report: RunReport): string {
  const v = verdict(report);
  const rows: [string, string][] = [
    ['Verdict', `<span class="badge verdict ${v}">${v}</span> ${h(verdictText(report).replace(/^\w+: /, ''))}`],
    ['Run id', `<code>${h(report.runId)}</code>`],
    ...summaryFacts(report).map(([a, b]): [string, string] => [a, h(b)]),
  ];
  const out = ['<table class="summary">', ...rows.map(([a, b]) => `<tr><th>${h(a)}</th><td>${b}</td></tr>`), '</table>'];
  if (report.interrupted) {
    out.push('<p class="missing"><strong>Interrupted:</strong> the run stopped before every case finished; cases that did not run are not listed.</p>');
  }
  if (report.leaks.length) {
    out.push('<p>Objects labelled with this run that were still present after cleanup:</p><ul>');
    for (const l of report.leaks) out.push(`<li><code>${h(l)}</code></li>`);
    out.push('</ul>');
  }
  return out.join('\n');
}

function caseNote(c: CaseResult): string {
  const parts: string[] = [];
  const o = outcome(c);
  if (o === 'known-failure') parts.push(`known failure: ${h(c.knownFailure?.reason ?? '')}`);
  if (o === 'unexpected-pass') parts.push(h(unexpectedPassMessage(c)));
  else if (c.message) parts.push(multiline(c.message));
  if (c.status === 'failed' || c.status === 'errored') parts.push(`<a href="#${escapeAttr(anchor('case', c.id))}">details</a>`);
  return parts.join(' · ');
}

function contents(report: RunReport, docs: ReturnType<typeof groupBySpec>): string {
  const out = ['<nav><h2>Contents</h2><ul>'];
  for (const doc of docs) {
    out.push(`<li><a href="#${escapeAttr(anchor('doc', doc.doc))}">${h(`${doc.doc}: ${doc.title}`)}</a><ul>`);
    for (const sec of doc.sections) {
      out.push(`<li><a href="#${escapeAttr(anchor('sec', `${doc.doc}-${sec.section}`))}">${h(`${sec.section} ${sec.title ?? ''}`.trim())}</a></li>`);
    }
    out.push('</ul></li>');
  }
  if (detailedCases(report).length) out.push('<li><a href="#failures">Failures and errors</a></li>');
  out.push('</ul></nav>');
  return out.join('\n');
}

function requirementsSection(docs: ReturnType<typeof groupBySpec>): string {
  const out: string[] = [];
  for (const doc of docs) {
    out.push(`<section><h2 id="${escapeAttr(anchor('doc', doc.doc))}">${h(`${doc.doc}: ${doc.title}`)}</h2>`);
    for (const sec of doc.sections) {
      out.push(`<h3 id="${escapeAttr(anchor('sec', `${doc.doc}-${sec.section}`))}">${h(`${sec.section} ${sec.title ?? ''}`.trim())}</h3>`);
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
    }
    out.push('</section>');
  }
  return out.join('\n');
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

function details(report: RunReport): string {
  const cases = detailedCases(report);
  if (!cases.length) return '';
  const out = ['<section><h2 id="failures">Failures and errors</h2>'];
  for (const c of cases) {
    out.push(`<div class="req" id="${escapeAttr(anchor('case', c.id))}">`);
    out.push(`<h3><code>${h(c.id)}</code> ${h(c.title)} ${badge(outcome(c))}</h3>`);
    out.push('<table>');
    if (c.knownFailure) out.push(`<tr><th>Known failure</th><td>${h(c.knownFailure.reason)}</td></tr>`);
    out.push(`<tr><th>Suite</th><td>${h(c.suite)}</td></tr>`);
    out.push(`<tr><th>Level</th><td>${h(c.level)}</td></tr>`);
    out.push(`<tr><th>Spec</th><td>${h(`${c.spec.doc} §${c.spec.section}`)}</td></tr>`);
    out.push(
      `<tr><th>Requirements</th><td>${c.requirements.length ? c.requirements.map((r) => `<a href="#${escapeAttr(anchor('req', r))}"><code>${h(r)}</code></a>`).join(', ') : '(none)'}</td></tr>`,
    );
    out.push(`<tr><th>Duration</th><td>${h(formatDuration(c.durationMs))}</td></tr>`);
    out.push('</table>');
    if (c.message) out.push(`<p>Message</p><pre>${h(c.message)}</pre>`);
    if (c.expected !== undefined) out.push(`<p>Expected</p><pre>${h(c.expected)}</pre>`);
    if (c.actual !== undefined) out.push(`<p>Actual</p><pre>${h(c.actual)}</pre>`);
    if (c.exchanges.length) {
      out.push(`<h4>Exchanges (${c.exchanges.length})</h4>`);
      c.exchanges.forEach((ex, i) => out.push(exchange(ex, i + 1)));
    }
    out.push('</div>');
  }
  out.push('</section>');
  return out.join('\n');
}

export function renderHtml(report: RunReport): string {
  const docs = groupBySpec(report);
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
    summary(report),
    contents(report, docs),
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
