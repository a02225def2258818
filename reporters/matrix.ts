// `report matrix run1.json run2.json ...`: several runs (implementations, or versions of one) side by
// side, wpt.fyi style. Rows are spec sections, each expandable to its requirements; columns are
// runs, headed by their --label and what the report knows of the target; a cell counts the
// section's requirements by their result in that run (pass, fail, warn, skip, not covered) and links
// to the evidence of the run's cases that did not pass. A summary row gives each run's share of
// MUST requirements passed and the interop share: requirements every run passes.
// Runs of different kit versions are allowed, but they are compared only on the cases every run
// ran: a rule the newer kit checks with a case the older lacks would otherwise count against
// (or for) one implementation only because of the kit.
import { createHash } from 'node:crypto';
import type { CaseResult, CaseStatus, RunReport } from '../runner/results.js';
import { UsageError } from '../runner/errors.js';
import { REQUIREMENTS, type Requirement } from '../suites/requirements/index.js';
import { ALL_CASES } from '../suites/index.js';
import type { Case, TargetKind } from '../suites/case.js';
import { byRequirement, requirementResult, type RequirementResult } from './coverage.js';
import { compareDocs, compareSections, docTitle, worstStatus } from './grouping.js';
import { anchor, clip, escapeAttr, escapeText, exchangeSummary, targetLabel } from './format.js';

/** A cell's buckets: what a reader of a matrix compares at a glance. */
export type MatrixBucket = 'pass' | 'fail' | 'warn' | 'skip' | 'notCovered';
export const MATRIX_BUCKETS: readonly MatrixBucket[] = ['pass', 'fail', 'warn', 'skip', 'notCovered'];
const BUCKET_LABEL: Record<MatrixBucket, string> = { pass: 'pass', fail: 'fail', warn: 'warn', skip: 'skip', notCovered: 'not covered' };

/**
 * A requirement's result folded into a bucket. Errored counts as fail (the rule was not shown met),
 * a held retry (flaky) as pass, an interrupted or never-started case as skip (nothing was found
 * about the target), and a requirement no case of the run checked as not covered, whether the kit
 * has no case for it or the run did not select one.
 */
export function bucketOf(result: RequirementResult): MatrixBucket {
  switch (result) {
    case 'passed': case 'flaky': return 'pass';
    case 'failed': case 'errored': return 'fail';
    case 'warned': return 'warn';
    case 'skipped': case 'interrupted': case 'unstarted': return 'skip';
    default: return 'notCovered';
  }
}

export type BucketCounts = Record<MatrixBucket, number>;
const zero = (): BucketCounts => ({ pass: 0, fail: 0, warn: 0, skip: 0, notCovered: 0 });

/** A column: one run, as far as its report identifies it. */
export interface MatrixRun {
  /** The results file it was read from. */
  file: string;
  /** `run --label`, else the file's name. */
  label: string;
  labelGiven: boolean;
  runId: string;
  /** The kit version that ran it. */
  version: string;
  /** The target as the report records it: API URL (or embedded reference), agent and node. */
  target: string;
  startedAt: string;
  /** Cases in the report, and those compared (every case when the runs share a kit version). */
  cases: number;
  comparedCases: number;
  /** MUST requirements of the catalogue this run passed, out of `mustTotal`. */
  mustPassed: number;
  mustTotal: number;
}

/** Why a cell is not a pass: the case whose result the requirement took in that run. */
export interface MatrixEvidence {
  anchor: string;
  run: number;
  caseId: string;
  title: string;
  status: CaseStatus;
  knownFailure: boolean;
  message: string;
  expected?: string;
  actual?: string;
  /** The exchange the failure is about (CaseResult.failedExchange, else the last), summarised. */
  exchange?: string;
}

export interface MatrixRequirement {
  id: string;
  level: Requirement['level'];
  text: string;
  /** Per run: the bucket, and the anchor of its evidence when the run has some. */
  cells: Array<{ bucket: MatrixBucket; result: RequirementResult; evidence?: string }>;
}

export interface MatrixSection {
  doc: string;
  section: string;
  title: string;
  /** Per run: the section's requirements counted by bucket, and the first evidence among them. */
  cells: Array<{ counts: BucketCounts; evidence?: string }>;
  requirements: MatrixRequirement[];
}

export interface Matrix {
  runs: MatrixRun[];
  /** True when the runs were made by more than one kit version (then compared on common cases). */
  mixedVersions: boolean;
  /** Case ids every run ran, when the versions differ. */
  commonCases?: number;
  sections: MatrixSection[];
  /** Catalogue requirements every run passed, out of the catalogue's. */
  interop: { passed: number; total: number };
  evidence: MatrixEvidence[];
}

type KitItem = Pick<Case, 'requirements'> & { readonly needs?: readonly TargetKind[] };

/** The order a requirement takes its evidence from: the worst result first. */
function evidenceCase(cases: readonly CaseResult[]): CaseResult | undefined {
  const worst = worstStatus(cases);
  return cases.find((c) => c.status === worst);
}

function exchangeOf(c: CaseResult): string | undefined {
  const ex = c.failedExchange !== undefined ? c.exchanges[c.failedExchange] : c.exchanges[c.exchanges.length - 1];
  return ex ? exchangeSummary(ex) : undefined;
}

const fileName = (file: string): string => file.split(/[\\/]/).pop() || file;

/**
 * The matrix of `runs` over the catalogue `requirements`, with `kit` telling which requirements
 * some case covers. At least two runs; a run may be given once only (the same runId and start).
 */
export function buildMatrix(
  runs: ReadonlyArray<{ file: string; report: RunReport }>,
  requirements: readonly Requirement[] = REQUIREMENTS,
  kit: readonly KitItem[] = ALL_CASES,
): Matrix {
  if (runs.length < 2) throw new UsageError('report matrix: give at least two results files (one column each)');
  const seen = new Map<string, string>();
  for (const { file, report } of runs) {
    const key = `${report.runId} ${report.startedAt}`;
    const other = seen.get(key);
    if (other !== undefined) throw new UsageError(`report matrix: ${file} and ${other} are the same run (${report.runId}); give each run once`);
    seen.set(key, file);
  }
  const mixedVersions = new Set(runs.map((r) => r.report.version)).size > 1;
  let common: Set<string> | undefined;
  if (mixedVersions) {
    for (const { report } of runs) {
      const ids = new Set(report.cases.map((c) => c.id));
      common = common ? new Set([...common].filter((id) => ids.has(id))) : ids;
    }
  }
  const compared = runs.map(({ report }) => (common ? report.cases.filter((c) => common!.has(c.id)) : report.cases));
  const byReq = compared.map((cases) => byRequirement(cases));
  const covered = byRequirement(kit);

  const evidence: MatrixEvidence[] = [];
  const evidenceAnchors = new Map<string, string>();
  const evidenceFor = (run: number, c: CaseResult): string => {
    const key = `${run} ${c.id}`;
    let a = evidenceAnchors.get(key);
    if (a === undefined) {
      a = anchor('ev', `${run}-${c.id}`);
      evidenceAnchors.set(key, a);
      evidence.push({
        anchor: a, run, caseId: c.id, title: c.title, status: c.status, knownFailure: !!c.knownFailure, message: c.message,
        ...(c.expected !== undefined ? { expected: c.expected } : {}), ...(c.actual !== undefined ? { actual: c.actual } : {}),
        ...(exchangeOf(c) ? { exchange: exchangeOf(c) } : {}),
      });
    }
    return a;
  };

  const sections = new Map<string, MatrixSection>();
  const mustPassed = runs.map(() => 0);
  let mustTotal = 0;
  let interop = 0;
  for (const r of requirements) {
    const key = `${r.doc} ${r.section}`;
    let sec = sections.get(key);
    if (!sec) sections.set(key, (sec = { doc: r.doc, section: r.section, title: r.sectionTitle, cells: runs.map(() => ({ counts: zero() })), requirements: [] }));
    const cells = runs.map((_, i) => {
      const ran = byReq[i]!.get(r.id) ?? [];
      const result = requirementResult(ran, covered.has(r.id));
      const bucket = bucketOf(result);
      // A pass needs no evidence; anything else points at the case whose result it took.
      const worst = bucket === 'pass' || bucket === 'notCovered' ? undefined : evidenceCase(ran);
      return { bucket, result, ...(worst ? { evidence: evidenceFor(i, worst) } : {}) };
    });
    cells.forEach((cell, i) => {
      const sc = sec!.cells[i]!;
      sc.counts[cell.bucket]++;
      if (r.level === 'MUST' && cell.bucket === 'pass') mustPassed[i]!++;
    });
    if (r.level === 'MUST') mustTotal++;
    if (cells.every((c) => c.bucket === 'pass')) interop++;
    sec.requirements.push({ id: r.id, level: r.level, text: r.text, cells });
  }
  const ordered = [...sections.values()].sort((a, b) => compareDocs(a.doc, b.doc) || compareSections(a.section, b.section));
  // A section's link goes to its most telling evidence: a failure before a warning before a skip.
  for (const sec of ordered) sec.cells.forEach((c, i) => {
    const a = firstEvidence(sec, i, 'fail') ?? firstEvidence(sec, i, 'warn') ?? firstEvidence(sec, i, 'skip');
    if (a) c.evidence = a;
  });
  return {
    runs: runs.map(({ file, report }, i) => ({
      file, label: report.label ?? fileName(file), labelGiven: report.label !== undefined, runId: report.runId, version: report.version,
      target: targetLabel(report.target), startedAt: report.startedAt, cases: report.cases.length, comparedCases: compared[i]!.length,
      mustPassed: mustPassed[i]!, mustTotal,
    })),
    mixedVersions,
    ...(common ? { commonCases: common.size } : {}),
    sections: ordered,
    interop: { passed: interop, total: requirements.length },
    evidence,
  };
}

const percent = (n: number, of: number): string => (of === 0 ? '-' : `${((100 * n) / of).toFixed(1)}%`);

/** The summary figures as words, shared by every rendering. */
export function mustText(run: MatrixRun): string {
  return `${run.mustPassed} of ${run.mustTotal} MUST requirements passed (${percent(run.mustPassed, run.mustTotal)})`;
}
export function interopText(m: Matrix): string {
  return `${m.interop.passed} of ${m.interop.total} requirements passed by every run (${percent(m.interop.passed, m.interop.total)})`;
}

/** "kit 1.2.0": marked when the runs' versions differ, with how many cases the comparison kept. */
function versionText(m: Matrix, run: MatrixRun): string {
  return m.mixedVersions ? `kit ${run.version} (versions differ: compared on ${run.comparedCases} of its ${run.cases} cases)` : `kit ${run.version}`;
}

const countsText = (c: BucketCounts): string => MATRIX_BUCKETS.filter((b) => c[b] > 0).map((b) => `${c[b]} ${BUCKET_LABEL[b]}`).join(', ') || '-';

export function renderMatrixConsole(m: Matrix): string {
  const lines: string[] = [];
  m.runs.forEach((r, i) => lines.push(`[${i + 1}] ${r.label}: ${r.target}, ${versionText(m, r)}, run ${r.runId} at ${r.startedAt}`));
  if (m.mixedVersions) lines.push(`Kit versions differ: runs compared on the ${m.commonCases} cases every run ran.`);
  let doc = '';
  for (const s of m.sections) {
    if (s.doc !== doc) lines.push('', `${s.doc} ${docTitle(s.doc)}`), (doc = s.doc);
    lines.push(`  §${s.section} ${s.title}`);
    s.cells.forEach((c, i) => lines.push(`    [${i + 1}] ${countsText(c.counts)}`));
  }
  lines.push('', 'Summary:');
  m.runs.forEach((r, i) => lines.push(`  [${i + 1}] ${r.label}: ${mustText(r)}`));
  lines.push(`  Interop: ${interopText(m)}`);
  return `${lines.join('\n')}\n`;
}

/** Markdown cell text: no pipes or line breaks, bounded. */
function mdCell(s: string, max = 200): string {
  return clip(s.replace(/\s+/g, ' ').replace(/\|/g, '\\|').replace(/</g, '&lt;'), max);
}

export function renderMatrixMarkdown(m: Matrix): string {
  const out: string[] = ['# Conformance matrix', ''];
  if (m.mixedVersions) out.push(`**Kit versions differ:** runs are compared on the ${m.commonCases} cases every run ran.`, '');
  out.push('| | run | target | kit | started |', '|---|---|---|---|---|');
  m.runs.forEach((r, i) => out.push(`| ${i + 1} | ${mdCell(r.label)} | ${mdCell(r.target)} | ${mdCell(versionText(m, r))} | ${r.startedAt} |`));
  const header = `| Section | ${m.runs.map((r, i) => `[${i + 1}] ${mdCell(r.label, 60)}`).join(' | ')} |`;
  out.push('', header, `|---|${m.runs.map(() => '---').join('|')}|`);
  const link = (text: string, a?: string) => (a ? `[${text}](#${a})` : text);
  for (const s of m.sections) {
    out.push(`| ${s.doc} §${s.section} ${mdCell(s.title, 80)} | ${s.cells.map((c) => link(countsText(c.counts), c.evidence)).join(' | ')} |`);
  }
  out.push(`| **MUST passed** | ${m.runs.map((r) => `${r.mustPassed}/${r.mustTotal} (${percent(r.mustPassed, r.mustTotal)})`).join(' | ')} |`);
  out.push('', `**Interop:** ${interopText(m)}.`);
  // Markdown has no expandable table rows: the requirements whose result is not a pass everywhere
  // follow in one table, each cell linking to its evidence.
  const differing = m.sections.flatMap((s) => s.requirements).filter((q) => q.cells.some((c) => c.bucket !== 'pass') && q.cells.some((c) => c.bucket !== 'notCovered'));
  if (differing.length) {
    out.push('', `## Requirements not passed by every run (${differing.length})`, '', `| requirement | level | ${m.runs.map((_, i) => `[${i + 1}]`).join(' | ')} |`, `|---|---|${m.runs.map(() => '---').join('|')}|`);
    for (const q of differing) out.push(`| \`${q.id}\` | ${q.level} | ${q.cells.map((c) => link(BUCKET_LABEL[c.bucket], c.evidence)).join(' | ')} |`);
  }
  if (m.evidence.length) {
    out.push('', '## Evidence');
    for (const e of m.evidence) {
      out.push('', `<a id="${e.anchor}"></a>`, `### [${e.run + 1}] ${m.runs[e.run]!.label}: \`${e.caseId}\` ${e.status}${e.knownFailure ? ' (known failure)' : ''}`, '');
      if (e.message) out.push(`- message: ${mdCell(e.message, 400)}`);
      if (e.expected !== undefined) out.push(`- expected: ${mdCell(e.expected, 400)}`);
      if (e.actual !== undefined) out.push(`- actual: ${mdCell(e.actual, 400)}`);
      if (e.exchange) out.push(`- exchange: \`${mdCell(e.exchange, 400).replace(/`/g, "'")}\``);
    }
  }
  return `${out.join('\n')}\n`;
}

/**
 * The page's only style. It has no script: a section's requirements are shown when its <details>
 * is opened, by `:has()` (without it, a browser shows them all).
 */
const MATRIX_CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:90rem;padding:0 1rem;color:#1d2330}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #ccd;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f2f3f7}code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
summary{cursor:pointer}details{display:inline}
tbody:has(details:not([open])) tr.req{display:none}
tr.req td:first-child{padding-left:2rem}tr.doc th{background:#e4e6ee}
.b{display:inline-block;padding:0 .35rem;margin:0 .1rem;border-radius:3px;font-size:12px;font-weight:600;white-space:nowrap;text-decoration:none}
.b-pass{background:#d9f2dd;color:#175c24}.b-fail{background:#fbdada;color:#8a1414}.b-warn{background:#fdf0cc;color:#6d5200}
.b-skip{background:#ebebef;color:#4a4f5c}.b-notCovered{background:#f3e8fb;color:#5b2a86}
.differs{background:#fdf0cc}.meta{color:#4a4f5c;font-weight:400;font-size:12px}
tfoot th,tfoot td{font-weight:700;border-top:2px solid #99a}
.ev{border:1px solid #dde;border-radius:6px;padding:.5rem 1rem;margin:1rem 0}.ev h3{margin:.2rem 0;font-size:1rem}
.ev:target{outline:3px solid #4a78c2}
`;

const cssHash = (): string => `'sha256-${createHash('sha256').update(MATRIX_CSS, 'utf8').digest('base64')}'`;
/** Nothing loads and nothing runs: the page is read offline, and a target's text in it stays text. */
export const MATRIX_CSP = `default-src 'none'; style-src ${cssHash()}; base-uri 'none'; form-action 'none'`;

function badge(bucket: MatrixBucket, n: number, evidence?: string): string {
  const text = `${n} ${BUCKET_LABEL[bucket]}`;
  return evidence ? `<a class="b b-${bucket}" href="#${escapeAttr(evidence)}">${escapeText(text)}</a>` : `<span class="b b-${bucket}">${escapeText(text)}</span>`;
}

/** data-* of a cell: its counts, for tools (and the tests) to read without parsing the text. */
const countAttrs = (c: BucketCounts): string => MATRIX_BUCKETS.map((b) => ` data-${b === 'notCovered' ? 'not-covered' : b}="${c[b]}"`).join('');

export function renderMatrixHtml(m: Matrix): string {
  const e = escapeText;
  const head = m.runs.map((r, i) => `<th data-run="${i}"${m.mixedVersions ? ' class="differs"' : ''}><span class="label">${e(r.label)}</span><br/><span class="meta">${e(r.target)}<br/>${e(versionText(m, r))}<br/>run ${e(r.runId)}, ${e(r.startedAt)}</span></th>`).join('');
  const bodies: string[] = [];
  let doc = '';
  for (const s of m.sections) {
    if (s.doc !== doc) {
      doc = s.doc;
      bodies.push(`<tbody><tr class="doc"><th colspan="${m.runs.length + 1}">${e(`${s.doc} ${docTitle(s.doc)}`)}</th></tr></tbody>`);
    }
    const cells = s.cells.map((c, i) => {
      const badges = MATRIX_BUCKETS.filter((b) => c.counts[b] > 0).map((b) => badge(b, c.counts[b], b === 'pass' || b === 'notCovered' ? undefined : firstEvidence(s, i, b)));
      return `<td class="cell" data-run="${i}"${countAttrs(c.counts)}>${badges.join(' ')}</td>`;
    }).join('');
    const reqs = s.requirements.map((q) => `<tr class="req" data-req="${escapeAttr(q.id)}"><td><code>${e(q.id)}</code> <span class="meta">${q.level}</span></td>${q.cells.map((c, i) => `<td class="rcell" data-run="${i}" data-bucket="${c.bucket}">${c.evidence ? `<a class="b b-${c.bucket}" href="#${escapeAttr(c.evidence)}">${e(BUCKET_LABEL[c.bucket])}</a>` : `<span class="b b-${c.bucket}">${e(BUCKET_LABEL[c.bucket])}</span>`}</td>`).join('')}</tr>`);
    bodies.push(`<tbody class="section" data-doc="${s.doc}" data-section="${escapeAttr(s.section)}"><tr class="sec"><th><details><summary>§${e(s.section)} ${e(s.title)} <span class="meta">(${s.requirements.length})</span></summary></details></th>${cells}</tr>${reqs.join('')}</tbody>`);
  }
  const foot = `<tfoot><tr class="must"><th>MUST requirements passed</th>${m.runs.map((r, i) => `<td data-run="${i}" data-must-passed="${r.mustPassed}" data-must-total="${r.mustTotal}">${r.mustPassed} of ${r.mustTotal} (${percent(r.mustPassed, r.mustTotal)})</td>`).join('')}</tr>`
    + `<tr class="interop"><th>Interop</th><td colspan="${m.runs.length}" data-interop-passed="${m.interop.passed}" data-interop-total="${m.interop.total}">${e(interopText(m))}</td></tr></tfoot>`;
  const ev = m.evidence.map((x) => `<div class="ev" id="${escapeAttr(x.anchor)}"><h3>[${x.run + 1}] ${e(m.runs[x.run]!.label)}: <code>${e(x.caseId)}</code> <span class="b b-${bucketOf(x.status)}">${e(x.status)}${x.knownFailure ? ' (known failure)' : ''}</span></h3><div>${e(x.title)}</div>`
    + (x.message ? `<div>message: ${e(clip(x.message, 2000))}</div>` : '')
    + (x.expected !== undefined ? `<div>expected: ${e(clip(x.expected, 2000))}</div>` : '')
    + (x.actual !== undefined ? `<div>actual: ${e(clip(x.actual, 2000))}</div>` : '')
    + (x.exchange ? `<div>exchange: <code>${e(clip(x.exchange, 2000))}</code></div>` : '')
    + '</div>').join('\n');
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8"/>',
    `<meta http-equiv="Content-Security-Policy" content="${escapeAttr(MATRIX_CSP)}"/>`,
    '<title>Conformance matrix</title>',
    `<style>${MATRIX_CSS}</style></head><body>`,
    '<h1>Conformance matrix</h1>',
    m.mixedVersions ? `<p class="differs" id="versions">Kit versions differ: the runs are compared on the ${m.commonCases} cases every run ran.</p>` : '',
    '<p class="meta">Each cell counts the section\'s requirements by their result in the run (the worst of the cases naming it); open a section for its requirements; a count that is not a pass links to its evidence.</p>',
    `<table class="matrix-runs"><thead><tr><th>Section</th>${head}</tr></thead>${bodies.join('\n')}${foot}</table>`,
    m.evidence.length ? `<h2>Evidence</h2>\n${ev}` : '',
    '</body></html>',
    '',
  ].join('\n');
}

/** The first requirement of the section whose cell in run `i` is in `bucket`, by its evidence. */
function firstEvidence(s: MatrixSection, i: number, bucket: MatrixBucket): string | undefined {
  return s.requirements.find((q) => q.cells[i]!.bucket === bucket && q.cells[i]!.evidence)?.cells[i]!.evidence;
}

export const MATRIX_REPORTERS = ['console', 'markdown', 'html', 'json'] as const;

/** The matrix rendered by reporter name. */
export function renderMatrix(name: string, m: Matrix): string {
  if (name === 'console') return renderMatrixConsole(m);
  if (name === 'markdown') return renderMatrixMarkdown(m);
  if (name === 'html') return renderMatrixHtml(m);
  if (name === 'json') return `${JSON.stringify(m, null, 2)}\n`;
  throw new UsageError(`report matrix: reporter "${name}" is not one for matrices; use ${MATRIX_REPORTERS.join(', ')}`);
}
