// test/mocks' and test/client's files, run in one process (helpers/bundle.ts says why).
import { runBundle } from '../helpers/bundle.js';

await runBundle([new URL('../mocks/', import.meta.url), new URL('../client/', import.meta.url)], 0, 1);
