// Proofs of the ClusterRole aggregation cases (spec 000 §2.8 aggregationRule): case id to the switches
// that break exactly its rule in the reference's aggregation controller
// (reference/controllers/clusterrole-aggregation.ts, "Test-only (breaks)").
import type { ControllerBreakage } from './controllers.js';

export const rbacAggregationProofs: Readonly<Record<string, ControllerBreakage>> = {
  // No role is ever aggregated.
  'api.clusterrole.aggregation-rule.selectors': { breaks: ['clusterrole-aggregation.never-aggregate'] },
  // Rules written directly survive next to the aggregated ones.
  'api.clusterrole.aggregation-rule.controller-managed': { breaks: ['clusterrole-aggregation.keep-direct-rules'] },
  // "If any selector matches": a controller reading only the first selector misses a role the second matches.
  'api.clusterrole.aggregation-rule.any-selector.later': { breaks: ['clusterrole-aggregation.first-selector-only'] },
  // A controller ANDing the selectors pulls in neither role, each matched by one selector.
  'api.clusterrole.aggregation-rule.any-selector.each': { breaks: ['clusterrole-aggregation.and-selectors'] },
};
