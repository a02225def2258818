// Proofs of the agent cases of one area (helpers/agent-proof.ts).
import t from 'tap';
import { proveAgentCases } from '../helpers/agent-proof.js';
import { PODINFO } from './areas.js';

t.test('each case fails against an agent broken in its rule (the passing side: conformance-doc.test.ts)', (t) => proveAgentCases(t, PODINFO));
