// Part 1 of 2 of test/agent's files, run in one process (helpers/bundle.ts says why).
import { runBundle } from '../helpers/bundle.js';

await runBundle([new URL('../agent/', import.meta.url)], 0, 2);
