// Markdown report for auditors: summary, then each covered requirement in spec order with the
// cases that check it, then the evidence (expected/actual, HTTP exchanges) for failures. It stays
// under MARKDOWN_LIMIT bytes whatever the run (a GitHub job summary takes 1 MiB): evidence that
// does not fit is cut, case by case, and the report says the JSON report has it whole.
import type { CaseAttempt, CaseResult, CoverageCounts, Exchange, RunReport } from '../runner/results.js';
import { differentialLines } from '../runner/differential.js';
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
  flakyCases,
  truncate,
  findingLines,
  FULL_TEXT_HINT,
  attemptLine,
  evidencePlan,
  type EvidencePlan,
  clip,
  detailedCases,
  isDetailed,
  omittedExchangesText,
  plural,
  shownExchanges,
} from './format.js';
import { requirementLabel } from './grouping.js';
import { caseReproducer, fitsBodyLimit, reproducerLeftOutText, reproducerTarget, type ReproducerTarget } from './reproducer.js';
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

/** Paths listed in the summary at most; a run that leaked thousands would fill the size budget. */
const PATHS_LISTED = 200;

function pathList(paths: readonly string[]): string[] {
  const out = paths.slice(0, PATHS_LISTED).map((l) => `- ${code(l)}`);
  if (paths.length > PATHS_LISTED) out.push(`- … ${paths.length - PATHS_LISTED} more: the JSON report lists them all`);
  return out;
}

function summary(report: RunReport): string[] {
  const rows: [string, string][] = [
    ['Run id', code(report.runId)],
    ...summaryFacts(report).map(([a, b]): [string, string] => [a, md(b)]),
  ];
  const out = ['', '## Run', '', '| | |', '|---|---|', ...rows.map(([a, b]) => `| ${a} | ${b} |`)];
  if (report.interrupted) out.push('', '> **Interrupted:** the run stopped before every case finished; cases it never started are listed as _not started_ and checked nothing.');
  if (report.leaks.length) {
    out.push('', 'Objects labelled with this run that were still present after cleanup:', '', ...pathList(report.leaks));
  }
  if (report.cleanupUnverified?.length) {
    out.push('', 'Collections whose cleanup could not be verified (nothing is known to be left behind; check by hand):', '', ...pathList(report.cleanupUnverified));
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
    flakyCases(report).length ? '[Flaky cases (passed on a retry)](#flaky)' : '',
  ].filter(Boolean);
  if (links.length) out.push('', `Details: ${links.join(' · ')}`);
  return out;
}

function requirementList(reqs: readonly Requirement[], caption: string): string[] {
  if (!reqs.length) return [];
  return ['', `**${caption}** (${reqs.length}):`, '', '| Requirement | Level | Rule |', '|---|---|---|', ...reqs.map((r) => `| ${code(r.id)} | ${r.level} | ${prose(r.text)} |`)];
}

/** A message in a table cell is cut to this many characters; the case's details have it whole. */
const NOTE_LIMIT = 300;

function caseNote(c: CaseResult): string {
  const parts: string[] = [];
  const o = outcome(c);
  if (o === 'known-failure') parts.push(`known failure: ${md(c.knownFailure?.reason ?? '')}`);
  if (o === 'unexpected-pass') parts.push(md(unexpectedPassMessage(c)));
  else if (c.message) parts.push(md(clip(c.message, NOTE_LIMIT)));
  if (isDetailed(c)) parts.push(`[details](#${anchor('case', c.id)})`);
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

function exchange(ex: Exchange, n: number, bodyLimit: number): string[] {
  const status = ex.status !== undefined ? String(ex.status) : 'no response';
  const out = ['', `**${n}.** ${code(`${ex.method} ${ex.url}`)} → **${status}** (${formatDuration(ex.durationMs)})`];
  if (ex.error) out.push('', `Error: ${md(ex.error)}`);
  const req = headerLines(ex.requestHeaders);
  if (req.length || ex.requestBody) {
    out.push('', 'Request:', '', block([...req, ...(ex.requestBody ? ['', displayBody(ex.requestBody, bodyLimit)] : [])].join('\n'), 'http'));
  }
  if (ex.status !== undefined || ex.responseBody) {
    const res = headerLines(ex.responseHeaders);
    out.push('', 'Response:', '', block([...res, ...(ex.responseBody ? ['', displayBody(ex.responseBody, bodyLimit)] : [])].join('\n'), 'http'));
  }
  return out;
}

/** How much of a case's evidence to render: `full` with exchanges, `compact` without them. */
type Depth = ({ kind: 'full'; repro?: ReproducerTarget } & EvidencePlan) | { kind: 'compact' };

/** Text blocks (message, expected, actual) in a compact detail are cut to this many characters. */
const COMPACT_TEXT_LIMIT = 2000;

function exchanges(list: readonly Exchange[], heading: string, depth: Depth): string[] {
  if (!list.length) return [];
  if (depth.kind === 'compact') return ['', `${heading} (${list.length}): left out to keep this report under its size; ${FULL_TEXT_HINT}.`];
  const { shown, omitted, omittedBefore } = shownExchanges(list, depth.exchangesShown);
  const out = ['', `#### ${heading} (${list.length})`];
  shown.forEach(({ ex, n }, i) => {
    if (i === omittedBefore) out.push('', `_${md(omittedExchangesText(omitted))}_`);
    out.push(...exchange(ex, n, depth.bodyLimit));
  });
  return out;
}

/** Message, expected and actual of a case or an attempt. */
function evidence(e: Pick<CaseAttempt, 'message' | 'expected' | 'actual'>, depth: Depth): string[] {
  const cut = (s: string) => (depth.kind === 'compact' ? truncate(s, COMPACT_TEXT_LIMIT) : s);
  const out: string[] = [];
  if (e.message) out.push('', 'Message:', '', block(cut(e.message)));
  if (e.expected !== undefined) out.push('', 'Expected:', '', block(cut(e.expected)));
  if (e.actual !== undefined) out.push('', 'Actual:', '', block(cut(e.actual)));
  return out;
}

/** The attempts before the last (`run --retries`): each with what it ended with and its evidence. */
function earlierAttempts(c: CaseResult, depth: Depth): string[] {
  const attempts = c.attempts ?? [];
  if (attempts.length < 2) return [];
  const out = ['', `#### Attempts (${attempts.length})`, ''];
  attempts.forEach((a, i) => out.push(`- ${md(attemptLine(a, i, attempts.length))}`));
  attempts.slice(0, -1).forEach((a, i) => {
    out.push('', `##### Attempt ${i + 1}: ${OUTCOME_LABEL[a.status as keyof typeof OUTCOME_LABEL] ?? md(a.status)}`);
    out.push(...evidence(a, depth), ...exchanges(a.exchanges, `Exchanges of attempt ${i + 1}`, depth));
  });
  return out;
}

function caseHeading(c: CaseResult): string {
  return `### <a id="${anchor('case', c.id)}"></a>${code(c.id)}: ${md(c.title)}`;
}

function caseDetail(c: CaseResult, depth: Depth): string[] {
  const out = ['', caseHeading(c), ''];
  out.push(`- Status: ${OUTCOME_LABEL[outcome(c)]}${c.knownFailure ? ` (${md(c.knownFailure.reason)})` : ''}`);
  out.push(`- Suite: ${md(c.suite)}; level ${c.level}; spec [${c.spec.doc} §${md(c.spec.section)}](#${sectionAnchor(c.spec.doc, c.spec.section)})`);
  out.push(`- Requirements: ${c.requirements.length ? c.requirements.map(code).join(', ') : '(none)'}`);
  out.push(`- Duration: ${formatDuration(c.durationMs)}`);
  out.push(...evidence(c, depth));
  const findings = findingLines(c);
  if (findings.length) out.push('', 'Findings (SHOULD: upstream\'s shape or the spec\'s recommendation, apart from the verdict; MAY: a permitted outcome, noted):', '', ...findings.map((f) => `- ${md(depth.kind === 'compact' ? clip(f, NOTE_LIMIT) : f)}`));
  // `--differential`: what the reference answered where the target's answer differs.
  if (c.differential) out.push('', ...differentialLines(c.differential).map((l) => `- ${md(depth.kind === 'compact' ? clip(l.trim(), NOTE_LIMIT) : l.trim())}`));
  out.push(...earlierAttempts(c, depth));
  out.push(...exchanges(c.exchanges, (c.attempts?.length ?? 0) > 1 ? 'Exchanges of the last attempt' : 'Exchanges', depth));
  const repro = depth.kind === 'full' && depth.repro ? caseReproducer(c, depth.repro) : undefined;
  if (repro && depth.kind === 'full') {
    out.push('', ...(fitsBodyLimit(repro.text, depth.bodyLimit) ? [`#### Reproducer (exchange ${repro.n})`, '', block(repro.text, 'sh')] : [`_${md(reproducerLeftOutText(repro.n))}_`]));
  }
  return out;
}

/** The least a detailed case gets: its anchor (rows link to it), status and message, one paragraph. */
function caseLine(c: CaseResult): string[] {
  const msg = c.message ? `: ${md(clip(c.message, NOTE_LIMIT))}` : '';
  return ['', caseHeading(c), '', `${OUTCOME_LABEL[outcome(c)]}${msg} (details left out to keep this report under its size; ${md(FULL_TEXT_HINT)})`];
}

/** The report's size limit in bytes: under the 1 MiB a GitHub job summary takes, with room to spare. */
export const MARKDOWN_LIMIT = 1024 * 1024 - 16 * 1024;

/** Room kept for the details' evidence beyond their one-paragraph forms when deciding on the tables. */
const DETAILS_RESERVE = 128 * 1024;

/** Characters of bodies the details may take in all, before bodies are cut shorter than BODY_LIMIT. */
const BODY_BUDGET = 384 * 1024;

const bytes = (lines: readonly string[]): number => Buffer.byteLength(lines.join('\n'), 'utf8') + lines.length;

const DETAIL_SECTIONS: Array<{ status: ReadonlySet<string>; head: string[] }> = [
  { status: new Set(['failed', 'errored']), head: ['', '<a id="failures"></a>', '', '## Failures and errors'] },
  {
    status: new Set(['warned']),
    head: ['', '<a id="warnings"></a>', '', '## Warnings (SHOULD rules not met)', '', 'These cases check rules of level SHOULD (recommendations and upstream behaviour). They do not fail the run; `run --strict` makes them failures.'],
  },
  {
    status: new Set(['flaky']),
    head: ['', '<a id="flaky"></a>', '', '## Flaky cases (passed on a retry)', '', 'These cases failed or errored, then passed when `run --retries` ran them again: each failed attempt\'s evidence is below. They do not fail the run without `--strict`.'],
  },
];

/**
 * The evidence of failures, warnings and flaky cases within `budget` bytes. Every case first gets
 * its one-paragraph form (so that every row's link has its target); then, in report order, each is
 * given its full detail when that fits what is left, else its detail without exchanges. Cases
 * beyond even the one-paragraph forms are counted in a closing line.
 */
function details(report: RunReport, budget: number): string[] {
  const cases = detailedCases(report);
  const depth: Depth = { kind: 'full', ...evidencePlan(cases, BODY_BUDGET), repro: reproducerTarget(report) };
  const heads = DETAIL_SECTIONS.filter((d) => cases.some((c) => d.status.has(c.status)));
  let left = budget - heads.reduce((n, d) => n + bytes(d.head), 0);
  const rendered = new Map<CaseResult, string[]>();
  let dropped = 0;
  for (const c of cases) {
    const line = caseLine(c);
    if (bytes(line) > left) dropped++;
    else {
      rendered.set(c, line);
      left -= bytes(line);
    }
  }
  // Upgraded in turns across failures, warnings and flaky cases, so that a thousand failures do
  // not leave the warnings and flaky cases without evidence.
  const queues = heads.map((d) => [...rendered.keys()].filter((c) => d.status.has(c.status)));
  const turns: CaseResult[] = [];
  for (let i = 0; queues.some((q) => i < q.length); i++) for (const q of queues) if (i < q.length) turns.push(q[i]!);
  for (const c of turns) {
    const line = rendered.get(c)!;
    for (const d of [depth, { kind: 'compact' } as Depth]) {
      const more = caseDetail(c, d);
      const extra = bytes(more) - bytes(line);
      if (extra <= left) {
        rendered.set(c, more);
        left -= extra;
        break;
      }
    }
  }
  const out: string[] = [];
  for (const d of heads) {
    out.push(...d.head);
    for (const c of cases) if (d.status.has(c.status) && rendered.has(c)) out.push(...rendered.get(c)!);
  }
  if (dropped) out.push('', `**${plural(dropped, 'more case')} failed, warned or were flaky and are not detailed here, to keep this report under its size: the JSON report (\`--reporter json=<path>\`) has their evidence.**`);
  return out;
}

export function renderMarkdown(report: RunReport): string {
  const docs = specOutline(report);
  const head = [`# Conformance report: ${md(targetLabel(report.target))}`, '', ...verdictLine(report), ...matrix(report, docs), ...summary(report)];
  let perRequirement = requirementsSection(docs);
  // The per-requirement tables give way (the matrix and the details stay, and the report says
  // where the tables are) when they would leave no room for every detailed case's paragraph and
  // some evidence: a run with a thousand failures.
  const least = detailedCases(report).reduce((n, c) => n + bytes(caseLine(c)), DETAILS_RESERVE);
  if (bytes(head) + bytes(perRequirement) + least > MARKDOWN_LIMIT) {
    perRequirement = ['', `_The per-requirement tables (${plural(report.cases.length, 'case')}) are left out to keep this report under its size: the HTML report (\`--reporter html=<path>\`) and the JSON report have them._`];
  }
  const tail = ['', ''];
  const budget = MARKDOWN_LIMIT - bytes(head) - bytes(perRequirement) - bytes(tail);
  return [...head, ...perRequirement, ...details(report, budget), ''].join('\n');
}

export class MarkdownReporter extends FileReporter {
  constructor(opts: FileReporterOptions = {}) {
    super('markdown', renderMarkdown, opts);
  }
}
