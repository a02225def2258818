// Coverage of the spec, per section: what the catalogue asks (requirements), what the kit checks
// (covered: a case in ALL_CASES names the requirement) and what one run found (the worst result of
// the run's cases naming it). The one place this is computed: the runner records it in the report,
// the auditor reports draw their matrix from it, and CONFORMANCE.md uses the same per-requirement
// result.
import { AGENT_KINDS, type Case, type TargetKind } from '../suites/case.js';
import { ALL_CASES } from '../suites/index.js';
import { REQUIREMENTS, requirementById, type Requirement } from '../suites/requirements/index.js';
import type { CaseResult, CaseStatus, CoverageCounts, RunCoverage, RunReport, SectionCoverage } from '../runner/results.js';
import { compareDocs, compareSections, docTitle, groupBySpec, worstStatus, type RequirementGroup } from './grouping.js';
import { anchor } from './format.js';

/** A requirement's result in a run: its cases' worst status, or why no case of the run speaks for it. */
export type RequirementResult = CaseStatus | 'not-run' | 'not-covered';

/** True for a case (or result) that observes a node agent: it needs an agent, the mock CRI or agent-exec. */
export function observesAgent(item: { readonly needs?: readonly TargetKind[] }): boolean {
  return (item.needs ?? []).some((k) => AGENT_KINDS.has(k));
}

/**
 * Whether a case (or result) counts for a requirement it names: a spec 001 rule about the agent
 * (not marked `surface: 'api'`) counts only cases that observe an agent. Cases that store Node, Pod or
 * Lease objects through the API check the control plane, not an agent.
 */
export function countsFor(item: { readonly needs?: readonly TargetKind[]; readonly controllers?: readonly string[] }, id: string): boolean {
  const r = requirementById(id);
  if (r?.surface === 'controllers') return (item.controllers?.length ?? 0) > 0;
  if (!r || r.doc !== '001' || r.surface === 'api') return true;
  return observesAgent(item);
}

/** The items (cases or results) that name each requirement id, and count for it (countsFor). */
export function byRequirement<T extends { readonly requirements: readonly string[]; readonly needs?: readonly TargetKind[]; readonly controllers?: readonly string[] }>(items: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    for (const id of new Set(item.requirements)) {
      if (!countsFor(item, id)) continue;
      const list = out.get(id);
      if (list) list.push(item);
      else out.set(id, [item]);
    }
  }
  return out;
}

/** `results`: the run's results of cases naming the requirement; `covered`: some case of the kit names it. */
export function requirementResult(results: readonly Pick<CaseResult, 'status'>[], covered: boolean): RequirementResult {
  if (results.length) return worstStatus(results);
  return covered ? 'not-run' : 'not-covered';
}

const BUCKET: Record<RequirementResult, Exclude<keyof CoverageCounts, 'requirements' | 'covered' | 'knownFailures'>> = {
  passed: 'passed',
  failed: 'failed',
  errored: 'errored',
  warned: 'warned',
  interrupted: 'interrupted',
  // Held on a retry: the rule was met, so it counts as passed; the case's report says it was flaky.
  flaky: 'passed',
  // Never started (interrupted run): not a result about the target.
  unstarted: 'interrupted',
  skipped: 'skipped',
  'not-run': 'notRun',
  'not-covered': 'notCovered',
};

function zero(): CoverageCounts {
  return { requirements: 0, covered: 0, passed: 0, failed: 0, errored: 0, warned: 0, interrupted: 0, skipped: 0, notRun: 0, notCovered: 0, knownFailures: 0 };
}

/** A result listed in the --expect file that did not pass: expected, so not counted as failed. */
const isKnownFailure = (r: CaseResult): boolean => !!r.knownFailure && (r.status === 'failed' || r.status === 'errored' || r.status === 'warned');

/**
 * Coverage of `requirements` (the catalogue) by `kit` (every case there is) and by `results` (one
 * run's), one entry per spec section in spec order. Requirement ids the catalogue lacks are not
 * counted (the auditor reports list them as "not in catalogue").
 */
export function computeCoverage(
  results: readonly CaseResult[],
  requirements: readonly Requirement[] = REQUIREMENTS,
  kit: readonly (Pick<Case, 'requirements'> & { readonly needs?: readonly TargetKind[] })[] = ALL_CASES,
): RunCoverage {
  const kitByReq = byRequirement(kit);
  const resultsByReq = byRequirement(results);
  const sections = new Map<string, SectionCoverage>();
  const total = zero();
  for (const r of requirements) {
    const key = `${r.doc} ${r.section}`;
    let sec = sections.get(key);
    if (!sec) {
      sec = { doc: r.doc, section: r.section, title: r.sectionTitle, ...zero(), notCoveredIds: [], notRunIds: [] };
      sections.set(key, sec);
    }
    const covered = kitByReq.has(r.id);
    const ran = resultsByReq.get(r.id) ?? [];
    const result = requirementResult(ran, covered);
    // A requirement whose worst result comes only from listed (known) failures is one: the
    // operator expects it unmet, and the requirements line must not call it failed.
    const known = ran.some(isKnownFailure) && worstStatus(ran.filter((x) => !isKnownFailure(x))) !== result;
    for (const counts of [sec, total]) {
      counts.requirements++;
      if (covered) counts.covered++;
      if (known) counts.knownFailures = (counts.knownFailures ?? 0) + 1;
      else counts[BUCKET[result]]++;
    }
    if (result === 'not-covered') sec.notCoveredIds.push(r.id);
    if (result === 'not-run') sec.notRunIds.push(r.id);
  }
  const ordered = [...sections.values()].sort((a, b) => compareDocs(a.doc, b.doc) || compareSections(a.section, b.section));
  return { sections: ordered, total };
}

/** The report's recorded coverage (a saved JSON is re-rendered as it was), else computed now. */
export function coverageOf(report: RunReport): RunCoverage {
  return report.coverage ?? computeCoverage(report.cases);
}

/** True when the run's selection left cases of the kit out (recorded by `run`; unknown means no). */
export function isPartial(report: RunReport): boolean {
  return report.selection?.partial === true;
}

/** One spec section as the auditor reports show it: its coverage row and its requirements. */
export interface OutlineSection {
  doc: string;
  section: string;
  title?: string;
  /** Absent for a section no catalogue requirement is in (cases naming unknown ids). */
  coverage?: SectionCoverage;
  /** Requirements with cases in this run, with those cases. */
  requirements: RequirementGroup[];
  /** Catalogue requirements that no selected case names, and that no case of the kit names. */
  notRun: Requirement[];
  notCovered: Requirement[];
}

export interface OutlineDoc {
  doc: string;
  title: string;
  sections: OutlineSection[];
}

/**
 * Every spec section, in spec order: those of the catalogue (each with its coverage row) and any
 * other a case of the run names, with the run's cases by requirement and the rules not checked.
 */
export function specOutline(report: RunReport): OutlineDoc[] {
  const coverage = coverageOf(report);
  const grouped = groupBySpec(report);
  const sections = new Map<string, OutlineSection>();
  const key = (doc: string, section: string): string => `${doc} ${section}`;
  for (const c of coverage.sections) {
    sections.set(key(c.doc, c.section), {
      doc: c.doc, section: c.section, title: c.title, coverage: c, requirements: [],
      notRun: c.notRunIds.map(requirementById).filter((r): r is Requirement => !!r),
      notCovered: c.notCoveredIds.map(requirementById).filter((r): r is Requirement => !!r),
    });
  }
  for (const d of grouped) {
    for (const s of d.sections) {
      const existing = sections.get(key(d.doc, s.section));
      if (existing) existing.requirements = s.requirements;
      else sections.set(key(d.doc, s.section), { doc: d.doc, section: s.section, title: s.title, requirements: s.requirements, notRun: [], notCovered: [] });
    }
  }
  const docs = new Map<string, OutlineDoc>();
  const ordered = [...sections.values()].sort((a, b) => compareDocs(a.doc, b.doc) || compareSections(a.section, b.section));
  for (const s of ordered) {
    let d = docs.get(s.doc);
    if (!d) docs.set(s.doc, (d = { doc: s.doc, title: docTitle(s.doc), sections: [] }));
    d.sections.push(s);
  }
  return [...docs.values()];
}

/** The matrix's columns: label and count; `interrupted` only when some requirement was. */
export function matrixColumns(coverage: RunCoverage): Array<{ key: keyof CoverageCounts; label: string }> {
  const cols: Array<{ key: keyof CoverageCounts; label: string }> = [
    { key: 'requirements', label: 'Requirements' },
    { key: 'covered', label: 'Covered' },
    { key: 'passed', label: 'Passed' },
    { key: 'failed', label: 'Failed' },
    { key: 'errored', label: 'Errored' },
    { key: 'warned', label: 'Warned' },
    { key: 'skipped', label: 'Skipped' },
    { key: 'notRun', label: 'Not run' },
    { key: 'notCovered', label: 'Not covered' },
  ];
  if (coverage.total.interrupted) cols.splice(7, 0, { key: 'interrupted', label: 'Interrupted' });
  if (coverage.total.knownFailures) cols.splice(cols.findIndex((c) => c.key === 'skipped'), 0, { key: 'knownFailures', label: 'Known failures' });
  return cols;
}

/** The anchor of a section's detail, shared by the matrix links and the headings. */
export function sectionAnchor(doc: string, section: string): string {
  return anchor('sec', `${doc}-${section}`);
}
