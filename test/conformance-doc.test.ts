// CONFORMANCE.md is generated from the catalogue, the cases and a reference run, and kept fresh.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { REQUIREMENTS } from '../suites/requirements/index.js';
import { ALL_CASES } from '../suites/index.js';
import { renderConformanceDoc } from '../scripts/conformance-doc.js';
import { runAgainstReference } from '../scripts/reference-run.js';

t.test('CONFORMANCE.md matches a fresh reference run', async (t) => {
  const report = await runAgainstReference();
  // Every case passes against the embedded reference (the agent cases' passing side of their proofs
  // too: test/helpers/agent-proof.ts), and the run leaves nothing behind.
  t.same(report.cases.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.status} ${c.message}`), [], 'every case passes against the reference');
  t.same(report.leaks, [], 'nothing left behind');
  const fresh = renderConformanceDoc(REQUIREMENTS, ALL_CASES, report.cases);
  const onDisk = readFileSync(fileURLToPath(new URL('../../CONFORMANCE.md', import.meta.url)), 'utf8');
  t.ok(fresh === onDisk, 'CONFORMANCE.md is stale: run `npm run gen:conformance` and commit it');
  t.same(REQUIREMENTS.filter((r) => !onDisk.includes(`| ${r.id} |`)).map((r) => r.id), [], "requirements missing from CONFORMANCE.md");
});

t.test('the document says "not covered" for requirements without cases, and never claims more', async (t) => {
  const fake = [{ id: '000-2.2-x', doc: '000', section: '2.2', sectionTitle: 'StorageClass', level: 'MUST', source: 'spec', text: 'A rule nobody checks yet.' }] as const;
  const doc = renderConformanceDoc(fake, [], []);
  t.match(doc, /\| 000-2\.2-x \| MUST \| spec \| A rule nobody checks yet\. \| not covered \| — \|/);
  t.match(doc, /\| 000 Control-plane resource API \| 1 \| 0 \| 0 \| 1 \|/);
});
