// Writes CONFORMANCE.md at the repository root from the catalogue, the cases and a reference run.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { REQUIREMENTS } from '../suites/requirements/index.js';
import { ALL_CASES } from '../suites/index.js';
import { renderConformanceDoc } from './conformance-doc.js';
import { runAgainstReference } from './reference-run.js';

const report = await runAgainstReference();
const target = fileURLToPath(new URL('../../CONFORMANCE.md', import.meta.url));
writeFileSync(target, renderConformanceDoc(REQUIREMENTS, ALL_CASES, report.cases));
const { passed, failed, errored, skipped } = report.summary;
process.stdout.write(`CONFORMANCE.md written: ${passed} passed, ${failed} failed, ${errored} errored, ${skipped} skipped\n`);
if (failed + errored > 0) process.exitCode = 1;
