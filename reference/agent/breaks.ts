// Test-only: named ways to break the reference agent in exactly one rule. The project's proofs
// (test/proof/agent-*.ts) start the agent process with ORCH_CONFORMANCE_AGENT_BREAK=<name>[,<name>...]
// to show that each agent case fails against an agent broken in its rule and passes against the real
// one. Nothing else sets it. A name no code checks breaks nothing, and the proof that uses it then
// fails (its case passes against the "broken" agent), so a typo cannot make a proof vacuous.
import { switchesFrom } from '../test-switches.js';

/** True when the test-only breakage `name` is on in this process (ORCH_CONFORMANCE_AGENT_BREAK). */
export const broken = switchesFrom('ORCH_CONFORMANCE_AGENT_BREAK');
