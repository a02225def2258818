// Groups a run's cases by spec document, section and requirement, for the auditor reports
// (markdown, html). Requirements come from the catalogue; an id the catalogue lacks is kept,
// placed by the doc and section its id names.
import type { CaseResult, CaseStatus, RunReport } from '../runner/results.js';
import { REQUIREMENTS, SPEC_DOC_TITLES, requirementById, type Requirement } from '../suites/requirements/index.js';

export interface RequirementGroup {
  /** Requirement id; empty for the cases that name no requirement. */
  id: string;
  /** Undefined when the id is not in the catalogue (or empty). */
  requirement?: Requirement;
  cases: CaseResult[];
  /** Worst raw status of the cases (worstStatus). */
  status: CaseStatus;
}

export interface SectionGroup {
  section: string;
  /** Section heading from the catalogue, when known. */
  title?: string;
  requirements: RequirementGroup[];
}

export interface DocGroup {
  doc: string;
  title: string;
  sections: SectionGroup[];
}

/** Compares section numbers part by part, numerically: 2 < 2.1 < 2.2 < 2.10 < 4. */
export function compareSections(a: string, b: string): number {
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    if (i >= pa.length) return -1;
    if (i >= pb.length) return 1;
    const na = Number(pa[i]);
    const nb = Number(pb[i]);
    const d =
      pa[i] !== '' && pb[i] !== '' && Number.isFinite(na) && Number.isFinite(nb)
        ? na - nb
        : pa[i]!.localeCompare(pb[i]!);
    if (d !== 0) return d;
  }
  return 0;
}

const DOC_ORDER = Object.keys(SPEC_DOC_TITLES);

export function compareDocs(a: string, b: string): number {
  const ia = DOC_ORDER.indexOf(a);
  const ib = DOC_ORDER.indexOf(b);
  if (ia !== -1 && ib !== -1) return ia - ib;
  if (ia !== -1) return -1;
  if (ib !== -1) return 1;
  return a.localeCompare(b);
}

export function docTitle(doc: string): string {
  return (SPEC_DOC_TITLES as Record<string, string>)[doc] ?? `Document ${doc}`;
}

/** Where a requirement id belongs: the catalogue's doc and section, or those its id names. */
function placeOf(id: string, req: Requirement | undefined, c: CaseResult): { doc: string; section: string } {
  if (req) return { doc: req.doc, section: req.section };
  const m = /^(\d{3})-(\d+(?:\.\d+)*)-/.exec(id);
  if (m) return { doc: m[1]!, section: m[2]! };
  return { doc: c.spec.doc, section: c.spec.section };
}

const STATUS_RANK: Record<CaseStatus, number> = { failed: 5, errored: 4, warned: 3, interrupted: 2, unstarted: 2, flaky: 1.5, passed: 1, skipped: 0 };

/**
 * A requirement's result: the worst status of the cases naming it (raw status: a known failure
 * still means the rule is not met). Skipped ranks lowest because a skipped case checked nothing:
 * a requirement is `skipped` only when none of its cases ran.
 */
export function worstStatus(cases: readonly Pick<CaseResult, 'status'>[]): CaseStatus {
  let worst: CaseStatus = 'skipped';
  for (const c of cases) if (STATUS_RANK[c.status] > STATUS_RANK[worst]) worst = c.status;
  return worst;
}

const catalogueIndex = new Map(REQUIREMENTS.map((r, i) => [r.id, i]));

function compareRequirements(a: RequirementGroup, b: RequirementGroup): number {
  const ia = catalogueIndex.get(a.id);
  const ib = catalogueIndex.get(b.id);
  if (ia !== undefined && ib !== undefined) return ia - ib;
  if (ia !== undefined) return -1;
  if (ib !== undefined) return 1;
  if (a.id === '') return 1;
  if (b.id === '') return -1;
  return a.id.localeCompare(b.id);
}

function sectionTitle(doc: string, section: string, groups: RequirementGroup[]): string | undefined {
  for (const g of groups) if (g.requirement) return g.requirement.sectionTitle;
  return REQUIREMENTS.find((r) => r.doc === doc && r.section === section)?.sectionTitle;
}

/** The run's cases under doc → section → requirement, each level in spec order. */
export function groupBySpec(report: RunReport): DocGroup[] {
  // doc -> section -> requirement id -> group
  const tree = new Map<string, Map<string, Map<string, RequirementGroup>>>();
  const add = (doc: string, section: string, id: string, req: Requirement | undefined, c: CaseResult): void => {
    let sections = tree.get(doc);
    if (!sections) tree.set(doc, (sections = new Map()));
    let reqs = sections.get(section);
    if (!reqs) sections.set(section, (reqs = new Map()));
    let g = reqs.get(id);
    if (!g) reqs.set(id, (g = { id, requirement: req, cases: [], status: 'skipped' }));
    if (!g.cases.includes(c)) g.cases.push(c);
  };

  for (const c of report.cases) {
    if (c.requirements.length === 0) add(c.spec.doc, c.spec.section, '', undefined, c);
    for (const id of c.requirements) {
      const req = requirementById(id);
      const { doc, section } = placeOf(id, req, c);
      add(doc, section, id, req, c);
    }
  }

  return [...tree.entries()]
    .sort(([a], [b]) => compareDocs(a, b))
    .map(([doc, sections]) => ({
      doc,
      title: docTitle(doc),
      sections: [...sections.entries()]
        .sort(([a], [b]) => compareSections(a, b))
        .map(([section, reqs]) => {
          const requirements = [...reqs.values()].sort(compareRequirements);
          for (const g of requirements) g.status = worstStatus(g.cases);
          return { section, title: sectionTitle(doc, section, requirements), requirements };
        }),
    }));
}

/** Label for a requirement group's heading. */
export function requirementLabel(g: RequirementGroup): string {
  return g.id === '' ? 'Cases that name no requirement' : g.id;
}
