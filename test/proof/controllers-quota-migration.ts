// Proofs of the resource quota cases (spec 000 §2.4) and the storage version migration cases
// (§2.3, §3.3): case id to the controller switches that break exactly its rule
// (reference/controllers/resourcequota.ts, storage-version-migrator.ts). The quota admission runs in
// the API server, where no switch reaches: its cases are broken through the controller, whose
// status.hard is what the admission enforces (`resourcequota.no-status-hard`: limits never published,
// so nothing is refused and nothing charged).
import type { ControllerBreakage } from './controllers.js';

const ignoreScopes = { breaks: ['resourcequota.ignore-scopes'] };
const ignoreSelector = { breaks: ['resourcequota.ignore-scope-selector'] };
const noStatusHard = { breaks: ['resourcequota.no-status-hard'] };
const noReplenish = { breaks: ['resourcequota.no-replenish'] };

export const quotaMigrationProofs: Readonly<Record<string, ControllerBreakage>> = {
  'api.quota-usage.status-hard': noStatusHard,
  'api.quota-usage.unscoped-counts-all': { breaks: ['resourcequota.unscoped-matches-none'] },
  'api.quota-usage.scope.best-effort': ignoreScopes,
  'api.quota-usage.scope.not-best-effort': ignoreScopes,
  'api.quota-usage.scope.terminating': ignoreScopes,
  'api.quota-usage.scope.not-terminating': ignoreScopes,
  'api.quota-usage.scope.priority-class': ignoreScopes,
  'api.quota-usage.scope.cross-namespace-pod-affinity': ignoreScopes,
  'api.quota-usage.scope-selector.in': ignoreSelector,
  'api.quota-usage.scope-selector.exists': ignoreSelector,
  'api.quota-usage.scope-selector.not-in': ignoreSelector,
  'api.quota-usage.scope-selector.does-not-exist': ignoreSelector,
  'api.quota-usage.scopes-and-selector': ignoreSelector,
  'api.quota-usage.scope-selector.anded': ignoreSelector,
  'api.quota-usage.admission.exceeded': noStatusHard,
  'api.quota-usage.admission.charges-usage': noStatusHard,
  'api.quota-usage.admission.must-specify': noStatusHard,
  'api.quota-usage.replenish.deleted': noReplenish,
  'api.quota-usage.replenish.terminal': noReplenish,
  'api.migration.resource-version': { breaks: ['storage-version-migrator.no-resource-version'] },
  'api.migration.running-then-succeeded': { breaks: ['storage-version-migrator.no-running'] },
  'api.migration.unknown-resource': { breaks: ['storage-version-migrator.unknown-succeeds'] },
};
