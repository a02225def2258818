// The cases' metadata is consistent with itself and with the catalogue. Problems are collected and
// compared with an empty list, so a failure names every offender at once.
import t from 'tap';
import { ALL_CASES } from '../suites/index.js';
import { REQUIREMENTS, requirementById } from '../suites/requirements/index.js';
import { GATES_1_37 } from '../runner/gates.js';

function duplicates(ids: string[]): string[] {
  const seen = new Set<string>();
  return ids.filter((id) => (seen.has(id) ? true : (seen.add(id), false)));
}

t.test('case ids are unique and dotted', async (t) => {
  t.same(duplicates(ALL_CASES.map((c) => c.id)), [], 'duplicate case ids');
  t.same(ALL_CASES.map((c) => c.id).filter((id) => !/^[a-z0-9]+(\.[a-z0-9-]+)+$/.test(id)), [], 'ids that are not dotted lowercase');
});

t.test('every case points at catalogue requirements of its own document, each of the case\'s level', async (t) => {
  const problems: string[] = [];
  for (const c of ALL_CASES) {
    if (c.requirements.length === 0) problems.push(`${c.id}: names no requirement`);
    const reqs = c.requirements.map((id) => requirementById(id));
    c.requirements.forEach((id, i) => { if (!reqs[i]) problems.push(`${c.id}: ${id} is not in the catalogue`); });
    for (const r of reqs) if (r && r.doc !== c.spec.doc) problems.push(`${c.id}: ${r.id} is not in spec ${c.spec.doc}`);
    // Every requirement a case names has the case's level: a MUST case checks only rules the spec
    // states, so that a failure of an upstream-only detail never fails a run as MUST.
    for (const r of reqs) if (r && r.level !== c.level) problems.push(`${c.id}: level ${c.level}, but it names ${r.level} requirement ${r.id} (${r.source})`);
    if (!reqs.some((r) => r?.section === c.spec.section)) problems.push(`${c.id}: section ${c.spec.section} is none of its requirements' sections`);
    for (const g of Object.keys(c.gates ?? {})) if (!(g in GATES_1_37)) problems.push(`${c.id}: unknown gate ${g}`);
  }
  t.same(problems, []);
});

t.test('the catalogue: unique ids that encode document and section, the rule\'s words, honest levels', async (t) => {
  t.same(duplicates(REQUIREMENTS.map((r) => r.id)), [], 'duplicate requirement ids');
  const problems: string[] = [];
  for (const r of REQUIREMENTS) {
    if (!r.id.startsWith(`${r.doc}-${r.section}-`) || !/^[0-9]{3}-[0-9.]+-[a-z0-9-]+$/.test(r.id)) problems.push(`${r.id}: id does not encode ${r.doc} §${r.section}`);
    if (r.text.trim().length < 10) problems.push(`${r.id}: no rule text`);
    if (r.source === 'ground-truth' && r.level !== 'SHOULD') problems.push(`${r.id}: a rule from the ground-truth note must be SHOULD`);
  }
  t.same(problems, []);
  for (const doc of ['000', '001', '002'] as const) t.ok(REQUIREMENTS.some((r) => r.doc === doc), `spec ${doc} has requirements`);
});
