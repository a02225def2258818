// CONFORMANCE.md is generated from the catalogue, the cases and a reference run, and kept fresh.
import t from 'tap';
import { execaNode } from 'execa';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REQUIREMENTS } from '../suites/requirements/index.js';
import { ALL_CASES } from '../suites/index.js';
import { renderConformanceDoc } from '../scripts/conformance-doc.js';
import type { CaseResult } from '../runner/results.js';
import { BIN } from './helpers/serve.js';
import { readmeDrift } from './helpers/readme-figures.js';

// One full run serves every check: it is the README's main command (every case against the embedded
// reference, every reporter, as users run it through the built CLI), its results are what
// CONFORMANCE.md and README's figures must match, and it must pass quietly. A full run is the
// costliest thing the tests do; it is done once, under the load of 200 hollow nodes
// (--background-nodes, issue 27): verdicts must hold when the control plane is busy and Ready nodes
// other than the agent's exist (a case that assumed one node, or left its pod's node to the
// scheduler when it meant the agent's, fails here).
const BACKGROUND_NODES = 200;
t.test('the main command: every case passes quietly against the embedded reference under 200 background nodes, reports written, CONFORMANCE.md and README current', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'oc-main-'));
  const r = await execaNode(BIN, ['run', '--background-nodes', String(BACKGROUND_NODES), '--reporter', 'console', '--reporter', `json=${dir}/r.json`, '--reporter', `junit=${dir}/junit.xml`, '--reporter', `html=${dir}/report.html`, '--reporter', `markdown=${dir}/report.md`, '--reporter', `tap=${dir}/r.tap`], { reject: false, timeout: 300_000 });
  t.equal(r.exitCode, 0, `exit 0\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`);
  // A passing run writes nothing to standard error: the embedded components log only with --verbose
  // (its cases provoke errors on purpose, a planted corrupt object among them), and the CLI writes
  // there only what goes wrong.
  t.equal(r.stderr, '', 'a passing run writes nothing to standard error');
  const report = JSON.parse(readFileSync(`${dir}/r.json`, 'utf8'));
  t.equal(report.tool, 'orch-conformance');
  t.equal(report.target.embedded, true);
  t.ok(report.summary.total > 0);
  // Every case passes against the embedded reference (the agent cases' passing side of their proofs
  // too: test/helpers/agent-proof.ts), and the run leaves nothing behind.
  t.same((report.cases as CaseResult[]).filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.status} ${c.message}`), [], 'every case passes against the reference');
  t.equal(report.summary.total, ALL_CASES.length, 'every case ran');
  t.same(report.leaks, [], 'nothing left behind (the hollow Nodes neither)');
  // The load is recorded and shown in the run's header, in every report.
  const load = `${BACKGROUND_NODES} hollow nodes, started by the run`;
  t.same(report.backgroundLoad, { hollowNodes: BACKGROUND_NODES, source: 'started by the run' }, 'the report records the load');
  t.match(r.stdout, new RegExp(`^Background load: ${load}$`, 'm'), 'the console header says it');
  t.match(readFileSync(`${dir}/junit.xml`, 'utf8'), `<property name="backgroundLoad" value="${load}"/>`);
  t.match(readFileSync(`${dir}/report.md`, 'utf8'), `| Background load | ${load} |`);
  t.match(readFileSync(`${dir}/report.html`, 'utf8'), load);
  for (const f of ['junit.xml', 'report.html', 'report.md', 'r.tap']) t.ok(existsSync(`${dir}/${f}`), `${f} written`);
  t.match(readFileSync(`${dir}/junit.xml`, 'utf8'), /<testsuites[^>]* failures="0"/);
  const fresh = renderConformanceDoc(REQUIREMENTS, ALL_CASES, report.cases as CaseResult[]);
  const onDisk = readFileSync(fileURLToPath(new URL('../../CONFORMANCE.md', import.meta.url)), 'utf8');
  t.ok(fresh === onDisk, 'CONFORMANCE.md is stale: run `npm run gen:conformance` and commit it');
  t.same(REQUIREMENTS.filter((r) => !onDisk.includes(`| ${r.id} |`)).map((r) => r.id), [], "requirements missing from CONFORMANCE.md");
  // README's coverage figures and its sample of this command's output are this run's.
  const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
  t.same(readmeDrift(readme, report, r.stdout), [], "README's figures are stale: set them from this run (CONFORMANCE.md has the coverage)");
});

t.test('the document says "not covered" for requirements without cases, and never claims more', async (t) => {
  const fake = [{ id: '000-2.2-x', doc: '000', section: '2.2', sectionTitle: 'StorageClass', level: 'MUST', source: 'spec', text: 'A rule nobody checks yet.' }] as const;
  const doc = renderConformanceDoc(fake, [], []);
  t.match(doc, /\| 000-2\.2-x \| MUST \| spec \| A rule nobody checks yet\. \| not covered \| — \|/);
  t.match(doc, /\| 000 Control-plane resource API \| 1 \| 0 \| 0 \| 1 \|/);
});
