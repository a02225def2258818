// Proofs of the node-lifecycle cases: case id to the controller switches that break exactly its rule.
import type { ControllerBreakage } from './controllers.js';

export const nodeLifecycleProofs: Readonly<Record<string, ControllerBreakage>> = {
};
