// Part 2 of 2 of the short top-level test files package.json's tap.exclude lists, run in one process
// (helpers/bundle.ts says why).
import { runListedBundle } from '../helpers/bundle.js';

await runListedBundle(1, 2);
