// Markdown report for auditors: summary, then each covered requirement in spec order with the
// cases that check it, then the evidence (expected/actual, HTTP exchanges) for failures.
import type { CaseResult, CoverageCounts, Exchange, RunReport } from '../runner/results.js';
import {
  FileReporter,
  type FileReporterOptions,
  OUTCOME_LABEL,
  anchor,
  displayBody,
  formatDuration,
  headerLines,
  outcome,
  splitCodeSpans,
  stripInvalidXmlChars,
  targetLabel,
  unexpectedPassMessage,
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

/** The verdict line the report opens with. */
function verdictLine(report: RunReport): string[] {
  return [`**Verdict: ${md(verdictHeadline(report))}**: ${md(verdictReason(report))}`];
}

function summary(report: RunReport): string[] {
  const rows: [string, string][] = [
    ['Run id', code(report.runId)],
    ...summaryFacts(report).map(([a, b]): [string, string] => [a, md(b)]),
  ];
  const out = ['', '## Run', '', '| | |', '|---|---|', ...rows.map(([a, b]) => `| ${a} | ${b} |`)];
  if (report.interrupted) out.push('', '> **Interrupted:** the run stopped before every case finished; cases that did not run are not listed.');
  if (report.leaks.length) {
    out.push('', 'Objects labelled with this run that were still present after cleanup:', '');
    for (const l of report.leaks) out.push(`- ${code(l)}`);
  }
  if (report.cleanupUnverified?.length) {
    out.push('', 'Collections whose cleanup could not be verified (nothing is known to be left behind; check by hand):', '');
    for (const l of report.cleanupUnverified) out.push(`- ${code(l)}`);
  }
  out.push(...skipSummary(report));
  return out;
}

/** Skipped cases grouped by reason, each with the flags that would let them run (reporters/skips.ts). */
function skipSummary(report: RunReport): string[] {
  const groups = skipGroups(report);
  if (!groups.length) return [];
  const shown = groups.slice(0, SKIP_GROUPS_SHOWN);
  const out = ['', '<a id="skips"></a>', '', '## Skipped cases by reason', '', '| Cases | Reason | Flags that would run them |', '|---:|---|---|'];
  for (const g of shown) out.push(`| ${g.count} | ${prose(g.reason)} | ${g.flags.map(code).join(' ') || '(none: the target itself)'} |`);
  if (groups.length > shown.length) out.push('', `… and ${groups.length - shown.length} more reasons (every skipped case and its reason is in the JSON report).`);
  return out;
}

/** The per-section matrix: one row per spec section, each linking to its detail below. */
function matrix(report: RunReport, docs: OutlineDoc[]): string[] {
  const coverage = coverageOf(report);
  const cols = matrixColumns(coverage);
  // Counts that need the auditor's eye are bold: failures, errors, warnings, rules nothing checks.
  const loud = new Set(['failed', 'errored', 'warned', 'notCovered']);
  const cells = (counts: CoverageCounts): string =>
    cols.map(({ key }) => (counts[key] && loud.has(key) ? `**${counts[key]}**` : String(counts[key]))).join(' | ');
  const out = [
    '',
    '<a id="coverage"></a>',
    '',
    '## Coverage by spec section',
    '',
    'Each catalogue requirement counts once, under the worst result of the cases of this run that name it. _Covered_: some case of the kit names it; _Not run_: covered, but no selected case names it; _Not covered_: no case checks it.',
    '',
    `| Section | ${cols.map((c) => c.label).join(' | ')} |`,
    `|---|${cols.map(() => '---:').join('|')}|`,
  ];
  for (const doc of docs) {
    for (const sec of doc.sections) {
      if (!sec.coverage) continue;
      out.push(`| [${md(`${doc.doc} §${sec.section} ${sec.title ?? ''}`.trim())}](#${sectionAnchor(doc.doc, sec.section)}) | ${cells(sec.coverage)} |`);
    }
  }
  out.push(`| **All sections** | ${cells(coverage.total)} |`);
  const links = [
    failedCases(report).length ? '[Failures and errors](#failures)' : '',
    warnedCases(report).length ? '[Warnings (SHOULD rules not met)](#warnings)' : '',
  ].filter(Boolean);
  if (links.length) out.push('', `Details: ${links.join(' · ')}`);
  return out;
}

function requirementList(reqs: readonly Requirement[], caption: string): string[] {
  if (!reqs.length) return [];
  return ['', `**${caption}** (${reqs.length}):`, '', '| Requirement | Level | Rule |', '|---|---|---|', ...reqs.map((r) => `| ${code(r.id)} | ${r.level} | ${prose(r.text)} |`)];
}

function caseNote(c: CaseResult): string {
  const parts: string[] = [];
  const o = outcome(c);
  if (o === 'known-failure') parts.push(`known failure: ${md(c.knownFailure?.reason ?? '')}`);
  if (o === 'unexpected-pass') parts.push(md(unexpectedPassMessage(c)));
  else if (c.message) parts.push(md(c.message));
  if (c.status === 'failed' || c.status === 'errored' || c.status === 'warned') parts.push(`[details](#${anchor('case', c.id)})`);
  return parts.join(' · ');
}

function requirementsSection(docs: OutlineDoc[]): string[] {
  const out: string[] = [];
  for (const doc of docs) {
    out.push('', `<a id="${anchor('doc', doc.doc)}"></a>`, '', `## ${doc.doc}: ${md(doc.title)}`);
    for (const sec of doc.sections) {
      out.push('', `<a id="${sectionAnchor(doc.doc, sec.section)}"></a>`, '', `### ${md(sec.section)}${sec.title ? ` ${md(sec.title)}` : ''}`);
      if (sec.coverage) {
        const c = sec.coverage;
        out.push('', `${c.requirements} requirements, ${c.covered} covered: ${c.passed} passed, ${c.failed} failed, ${c.errored} errored, ${c.warned} warned, ${c.skipped} skipped, ${c.notRun} not run, ${c.notCovered} not covered · [back to the matrix](#coverage)`);
      }
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
      out.push(...requirementList(sec.notRun, 'Not run (no selected case names them)'));
      out.push(...requirementList(sec.notCovered, 'Not covered (no case of the kit checks them)'));
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

function caseDetail(c: CaseResult): string[] {
  const out = ['', `### <a id="${anchor('case', c.id)}"></a>${code(c.id)}: ${md(c.title)}`, ''];
  out.push(`- Status: ${OUTCOME_LABEL[outcome(c)]}${c.knownFailure ? ` (${md(c.knownFailure.reason)})` : ''}`);
  out.push(`- Suite: ${md(c.suite)}; level ${c.level}; spec [${c.spec.doc} §${md(c.spec.section)}](#${sectionAnchor(c.spec.doc, c.spec.section)})`);
  out.push(`- Requirements: ${c.requirements.length ? c.requirements.map(code).join(', ') : '(none)'}`);
  out.push(`- Duration: ${formatDuration(c.durationMs)}`);
  if (c.message) out.push('', 'Message:', '', block(c.message));
  if (c.expected !== undefined) out.push('', 'Expected:', '', block(c.expected));
  if (c.actual !== undefined) out.push('', 'Actual:', '', block(c.actual));
  const findings = findingLines(c);
  if (findings.length) out.push('', 'Findings (SHOULD: upstream\'s shape or the spec\'s recommendation, apart from the verdict; MAY: a permitted outcome, noted):', '', ...findings.map((f) => `- ${md(f)}`));
  if (c.exchanges.length) {
    out.push('', `#### Exchanges (${c.exchanges.length})`);
    c.exchanges.forEach((ex, i) => out.push(...exchange(ex, i + 1)));
  }
  return out;
}

function details(report: RunReport): string[] {
  const out: string[] = [];
  const failures = failedCases(report);
  if (failures.length) out.push('', '<a id="failures"></a>', '', '## Failures and errors', ...failures.flatMap(caseDetail));
  const warnings = warnedCases(report);
  if (warnings.length) {
    out.push('', '<a id="warnings"></a>', '', '## Warnings (SHOULD rules not met)', '');
    out.push('These cases check rules of level SHOULD (recommendations and upstream behaviour). They do not fail the run; `run --strict` makes them failures.');
    out.push(...warnings.flatMap(caseDetail));
  }
  return out;
}

export function renderMarkdown(report: RunReport): string {
  const docs = specOutline(report);
  return [
    `# Conformance report: ${md(targetLabel(report.target))}`,
    '',
    ...verdictLine(report),
    ...matrix(report, docs),
    ...summary(report),
    ...requirementsSection(docs),
    ...details(report),
    '',
  ].join('\n');
}

export class MarkdownReporter extends FileReporter {
  constructor(opts: FileReporterOptions = {}) {
    super('markdown', renderMarkdown, opts);
  }
}
