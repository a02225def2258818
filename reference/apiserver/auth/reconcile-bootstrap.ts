// Reconciliation of the bootstrap ClusterRoles at start (upstream's RBAC post-start hook
// "rbac/bootstrap-roles", reconciliation.ReconcileClusterRole with confirm and without removing
// extra permissions): every bootstrap ClusterRole is written to storage; an existing one keeps what
// its owner added (rules, labels, annotations, selectors) and gets back whatever it lost, unless it
// carries `rbac.authorization.orch.io/autoupdate: "false"`.
import { isDeepStrictEqual } from 'node:util';
import { isStatusError } from '../errors.js';
import type { Registry } from '../registry.js';
import { RBAC_GROUP, type ClusterRole, type PolicyRule } from '../../resources/rbac.js';
import { uncovered } from './escalation.js';
import { AUTOUPDATE_ANNOTATION, BOOTSTRAPPING_LABEL, type BootstrapClusterRole } from './bootstrap-roles.js';
import { ALL_BOOTSTRAP_CLUSTER_ROLES } from './policy.js';

/** A bootstrap ClusterRole as stored: upstream's label and autoupdate annotation on each. */
export function bootstrapObject(role: BootstrapClusterRole): ClusterRole {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRole',
    metadata: { name: role.name, labels: { ...role.labels, [BOOTSTRAPPING_LABEL]: 'rbac-defaults' }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
    ...(role.aggregationRule ? { aggregationRule: structuredClone(role.aggregationRule) } : {}),
    ...(role.rules ? { rules: structuredClone(role.rules) as PolicyRule[] } : {}),
  } as ClusterRole;
}

/**
 * Upstream computeReconciledRole (without removing extra permissions): the existing role with the
 * expected labels and annotations it lacks (its own values win), the expected selectors it lacks,
 * and, unless both are aggregated (the controller owns their rules), the expected rules it does not
 * cover. Undefined when nothing is missing.
 */
export function reconciledRole(existing: ClusterRole, expected: ClusterRole): ClusterRole | undefined {
  const out = structuredClone(existing);
  out.metadata.labels = { ...expected.metadata.labels, ...existing.metadata.labels };
  out.metadata.annotations = { ...expected.metadata.annotations, ...existing.metadata.annotations };
  const want = expected.aggregationRule?.clusterRoleSelectors;
  if (want) {
    const have = existing.aggregationRule?.clusterRoleSelectors ?? [];
    const missing = want.filter((s) => !have.some((h) => isDeepStrictEqual(h, s)));
    if (missing.length) out.aggregationRule = { clusterRoleSelectors: [...have, ...missing] };
  }
  if (!expected.aggregationRule || !existing.aggregationRule) {
    const missing = uncovered(existing.rules ?? [], expected.rules ?? []);
    if (missing.length) out.rules = [...(existing.rules ?? []), ...missing];
  }
  return isDeepStrictEqual(out, existing) ? undefined : out;
}

/**
 * Writes every bootstrap ClusterRole as upstream's post-start hook does, before the server listens:
 * created when absent, reconciled when present (a restart on etcd finds last run's roles, perhaps
 * edited), left alone with autoupdate "false". Servers built without the RBAC kinds have nothing to do.
 */
export async function reconcileBootstrapRoles(registry: Registry, roles: readonly BootstrapClusterRole[] = ALL_BOOTSTRAP_CLUSTER_ROLES): Promise<void> {
  const store = registry.byGroupResource(RBAC_GROUP, 'clusterroles');
  if (!store) return;
  for (const role of roles) await reconcileOne(store, role);
}

/**
 * One role, as upstream's reconciler retries on conflict: several API servers starting at once on one
 * etcd race to create or update the same role, and the loser reads the winner's and reconciles that.
 */
async function reconcileOne(store: NonNullable<ReturnType<Registry['byGroupResource']>>, role: BootstrapClusterRole): Promise<void> {
  const expected = bootstrapObject(role);
  for (let attempt = 1; ; attempt++) {
    try {
      let existing: ClusterRole | undefined;
      try {
        existing = (await store.get('', role.name)) as ClusterRole;
      } catch (err) {
        if (!(isStatusError(err) && err.code === 404)) throw err;
      }
      if (!existing) {
        await store.create('', expected as never);
        return;
      }
      if (existing.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false') return;
      const next = reconciledRole(existing, expected);
      if (next) await store.update('', role.name, next as never);
      return;
    } catch (err) {
      // AlreadyExists (created meanwhile) and Conflict (updated meanwhile) are both 409: read again.
      if (!(isStatusError(err) && err.code === 409) || attempt >= 5) throw err;
    }
  }
}
