// Proofs of the agent cases of one area (helpers/agent-proof.ts).
import t from 'tap';
import { proveAgentCases } from '../helpers/agent-proof.js';
import { NODE } from './areas.js';

t.test('each case passes against the reference agent and fails against one broken in its rule', (t) => proveAgentCases(t, NODE));
