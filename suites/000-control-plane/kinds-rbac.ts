// Descriptors of the role-based access kinds of spec 000 §2.8 (rbac.authorization.orch.io/v1). They live
// apart from kinds.ts (which lists them in KINDS) so that the two files do not import each other.
import type { ResourceKind } from './kinds.js';

export const RBAC_GROUP = 'rbac.authorization.orch.io';
export const RBAC_API_VERSION = `${RBAC_GROUP}/v1`;

/** A rule any valid role may hold. */
export const READ_PODS_RULE = { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] };

const common = {
  apiVersion: RBAC_API_VERSION,
  hasStatus: false,
  // §4.2 shows no delete response for these kinds (ClusterRole: "not shown"); the reference answers
  // a Success Status, as upstream's RBAC registries do.
  deleteResponse: 'unspecified',
  section: '2.8',
} as const;

export const CLUSTER_ROLE: ResourceKind = {
  ...common,
  kind: 'ClusterRole',
  plural: 'clusterroles',
  namespaced: false,
  valid: () => ({ rules: [READ_PODS_RULE] }),
  change: {
    patch: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['watch'] }] },
    changed: (o) => Array.isArray(o?.rules) && o.rules.length === 1 && o.rules[0]?.verbs?.[0] === 'watch',
  },
};

export const CLUSTER_ROLE_BINDING: ResourceKind = {
  ...common,
  kind: 'ClusterRoleBinding',
  plural: 'clusterrolebindings',
  namespaced: false,
  valid: () => ({
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'conformance-reader' },
    subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: 'conformance-user' }],
  }),
  change: {
    patch: { subjects: [{ kind: 'Group', apiGroup: RBAC_GROUP, name: 'conformance-group' }] },
    changed: (o) => o?.subjects?.[0]?.kind === 'Group' && o.subjects[0].name === 'conformance-group',
  },
};

export const ROLE: ResourceKind = {
  ...common,
  kind: 'Role',
  plural: 'roles',
  namespaced: true,
  valid: () => ({ rules: [READ_PODS_RULE] }),
  change: CLUSTER_ROLE.change,
};

export const ROLE_BINDING: ResourceKind = {
  ...common,
  kind: 'RoleBinding',
  plural: 'rolebindings',
  namespaced: true,
  valid: () => ({
    roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: 'conformance-reader' },
    subjects: [{ kind: 'ServiceAccount', name: 'default' }],
  }),
  change: CLUSTER_ROLE_BINDING.change,
};
