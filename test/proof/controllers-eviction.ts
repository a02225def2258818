// Proofs of the eviction cases: case id to the controller switches that break exactly its rule.
import type { ControllerBreakage } from './controllers.js';

export const evictionProofs: Readonly<Record<string, ControllerBreakage>> = {
};
