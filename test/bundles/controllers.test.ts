// test/controllers' files, run in one process (helpers/bundle.ts says why).
import { runBundle } from '../helpers/bundle.js';

await runBundle([new URL('../controllers/', import.meta.url)], 0, 1);
