// Proofs of the quota-migration cases: case id to the controller switches that break exactly its rule.
import type { ControllerBreakage } from './controllers.js';

export const quotaMigrationProofs: Readonly<Record<string, ControllerBreakage>> = {
};
