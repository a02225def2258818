// Part 2 of 2 of test/workflows' files (the CI workflow tests of run, report and cleanup), run in
// one process (helpers/bundle.ts says why).
import { runBundle } from '../helpers/bundle.js';

await runBundle([new URL('../workflows/', import.meta.url)], 1, 2);
