// Part 1 of 3 of test/reference's files, run in one process (helpers/bundle.ts says why).
import { runBundle } from '../helpers/bundle.js';

await runBundle([new URL('../reference/', import.meta.url)], 0, 3);
