// Proofs of the scheduler cases: case id to the controller switches that break exactly its rule.
import type { ControllerBreakage } from './controllers.js';

export const schedulerProofs: Readonly<Record<string, ControllerBreakage>> = {
};
