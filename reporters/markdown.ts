// Markdown report for auditors: summary, then each covered requirement in spec order with the
// cases that check it, then the evidence (expected/actual, HTTP exchanges) for failures.
import type { CaseResult, Exchange, RunReport } from '../runner/results.js';
import {
  FileReporter,
  type FileReporterOptions,
  OUTCOME_LABEL,
  anchor,
  detailedCases,
  displayBody,
  formatDuration,
  headerLines,
  outcome,
  splitCodeSpans,
  stripInvalidXmlChars,
  targetLabel,
  unexpectedPassMessage,
  verdict,
  verdictText,
  summaryFacts,
} from './format.js';
import { groupBySpec, requirementLabel } from './grouping.js';

/** Inline text: markdown and HTML metacharacters escaped, line breaks kept as `<br>`. */
function md(s: string): string {
  return stripInvalidXmlChars(s)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]|#~!])/g, '\\$1')
    .replace(/\r?\n/g, '<br>');
}

/** An inline code span that survives backticks in the content. */
function code(s: string): string {
  const clean = stripInvalidXmlChars(s).replace(/\r?\n/g, ' ');
  const longest = Math.max(0, ...(clean.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = clean.startsWith('`') || clean.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${clean}${pad}${fence}`;
}

/** A fenced block that survives backtick fences in the content. */
function block(s: string, lang = ''): string {
  const clean = stripInvalidXmlChars(s);
  const longest = Math.max(0, ...(clean.match(/`{3,}/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${clean}\n${fence}`;
}

/** Spec prose: code spans kept as code, the rest escaped. */
function prose(s: string): string {
  return splitCodeSpans(s)
    .map((p) => (p.code ? code(p.text) : md(p.text)))
    .join('');
}

function quote(s: string): string {
  return stripInvalidXmlChars(s)
    .split(/\r?\n/)
    .map((l) => `> ${prose(l)}`)
    .join('\n');
}

function summary(report: RunReport): string[] {
  const rows: [string, string][] = [
    ['Verdict', `**${verdict(report)}**: ${md(verdictText(report).replace(/^\w+: /, ''))}`],
    ['Run id', code(report.runId)],
    ...summaryFacts(report).map(([a, b]): [string, string] => [a, md(b)]),
  ];
  const out = ['| | |', '|---|---|', ...rows.map(([a, b]) => `| ${a} | ${b} |`)];
  if (report.interrupted) out.push('', '> **Interrupted:** the run stopped before every case finished; cases that did not run are not listed.');
  if (report.leaks.length) {
    out.push('', 'Objects labelled with this run that were still present after cleanup:', '');
    for (const l of report.leaks) out.push(`- ${code(l)}`);
  }
  return out;
}

function caseNote(c: CaseResult): string {
  const parts: string[] = [];
  const o = outcome(c);
  if (o === 'known-failure') parts.push(`known failure: ${md(c.knownFailure?.reason ?? '')}`);
  if (o === 'unexpected-pass') parts.push(md(unexpectedPassMessage(c)));
  else if (c.message) parts.push(md(c.message));
  if (c.status === 'failed' || c.status === 'errored') parts.push(`[details](#${anchor('case', c.id)})`);
  return parts.join(' · ');
}

function requirementsSection(report: RunReport): string[] {
  const out: string[] = [];
  for (const doc of groupBySpec(report)) {
    out.push('', `## ${doc.doc}: ${md(doc.title)}`);
    for (const sec of doc.sections) {
      out.push('', `### ${md(sec.section)}${sec.title ? ` ${md(sec.title)}` : ''}`);
      for (const g of sec.requirements) {
        out.push('', `#### ${g.id ? code(g.id) : requirementLabel(g)}: ${OUTCOME_LABEL[g.status]}`, '');
        if (g.requirement) {
          out.push(`**${g.requirement.level}** · source: ${g.requirement.source}`, '', quote(g.requirement.text));
        } else if (g.id) {
          out.push('_not in catalogue_');
        }
        out.push('', '| Status | Case | Duration | Notes |', '|---|---|---|---|');
        for (const c of g.cases) {
          out.push(`| ${OUTCOME_LABEL[outcome(c)]} | ${code(c.id)} ${md(c.title)} | ${formatDuration(c.durationMs)} | ${caseNote(c)} |`);
        }
      }
    }
  }
  return out;
}

function exchange(ex: Exchange, n: number): string[] {
  const status = ex.status !== undefined ? String(ex.status) : 'no response';
  const out = ['', `**${n}.** ${code(`${ex.method} ${ex.url}`)} → **${status}** (${formatDuration(ex.durationMs)})`];
  if (ex.error) out.push('', `Error: ${md(ex.error)}`);
  const req = headerLines(ex.requestHeaders);
  if (req.length || ex.requestBody) {
    out.push('', 'Request:', '', block([...req, ...(ex.requestBody ? ['', displayBody(ex.requestBody)] : [])].join('\n'), 'http'));
  }
  if (ex.status !== undefined || ex.responseBody) {
    const res = headerLines(ex.responseHeaders);
    out.push('', 'Response:', '', block([...res, ...(ex.responseBody ? ['', displayBody(ex.responseBody)] : [])].join('\n'), 'http'));
  }
  return out;
}

function details(report: RunReport): string[] {
  const cases = detailedCases(report);
  if (!cases.length) return [];
  const out = ['', '## Failures and errors'];
  for (const c of cases) {
    out.push('', `### <a id="${anchor('case', c.id)}"></a>${code(c.id)}: ${md(c.title)}`, '');
    out.push(`- Status: ${OUTCOME_LABEL[outcome(c)]}${c.knownFailure ? ` (${md(c.knownFailure.reason)})` : ''}`);
    out.push(`- Suite: ${md(c.suite)}; level ${c.level}; spec ${c.spec.doc} §${md(c.spec.section)}`);
    out.push(`- Requirements: ${c.requirements.length ? c.requirements.map(code).join(', ') : '(none)'}`);
    out.push(`- Duration: ${formatDuration(c.durationMs)}`);
    if (c.message) out.push('', 'Message:', '', block(c.message));
    if (c.expected !== undefined) out.push('', 'Expected:', '', block(c.expected));
    if (c.actual !== undefined) out.push('', 'Actual:', '', block(c.actual));
    if (c.exchanges.length) {
      out.push('', `#### Exchanges (${c.exchanges.length})`);
      c.exchanges.forEach((ex, i) => out.push(...exchange(ex, i + 1)));
    }
  }
  return out;
}

export function renderMarkdown(report: RunReport): string {
  return [
    `# Conformance report: ${md(targetLabel(report.target))}`,
    '',
    ...summary(report),
    ...requirementsSection(report),
    ...details(report),
    '',
  ].join('\n');
}

export class MarkdownReporter extends FileReporter {
  constructor(opts: FileReporterOptions = {}) {
    super('markdown', renderMarkdown, opts);
  }
}
