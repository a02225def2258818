// The user-facing bootstrap ClusterRoles (upstream bootstrappolicy): cluster-admin's companions
// admin, edit and view, built by aggregation from system:aggregate-to-admin/-edit/-view, and the
// system:node role. Data only; reconcile-bootstrap.ts writes them (with policy.ts's) to storage.
import { RBAC_GROUP, type LabelSelector, type PolicyRule } from '../../resources/rbac.js';

/** Upstream rbacv1.AutoUpdateAnnotationKey, in the orch.io spelling. */
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.orch.io/autoupdate';
/** Upstream's label on every bootstrap object (`kubernetes.io/bootstrapping: rbac-defaults`). */
export const BOOTSTRAPPING_LABEL = 'orch.io/bootstrapping';
export const AGGREGATE_TO_ADMIN = 'rbac.authorization.orch.io/aggregate-to-admin';
export const AGGREGATE_TO_EDIT = 'rbac.authorization.orch.io/aggregate-to-edit';
export const AGGREGATE_TO_VIEW = 'rbac.authorization.orch.io/aggregate-to-view';

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const READ_WRITE = [...READ, ...WRITE];

const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({ verbs, apiGroups, resources });
const selecting = (label: string) => ({ clusterRoleSelectors: [{ matchLabels: { [label]: 'true' } }] as LabelSelector[] });

export interface BootstrapClusterRole {
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly aggregationRule?: { clusterRoleSelectors: LabelSelector[] };
  /** Absent for aggregated roles: the aggregation controller fills them in. */
  readonly rules?: readonly PolicyRule[];
}

/**
 * Upstream's aggregated roles and their sources, with the resources this server serves named in
 * upstream's groups and rules, plus the orch groups that carry upstream kinds here (events.orch.io for
 * events, lifecycle.orch.io for evictions, scheduling.orch.io pod groups, coordination.orch.io leases).
 * The chain is upstream's: view is part of edit (label aggregate-to-edit), edit part of admin.
 */
export const AGGREGATED_CLUSTER_ROLES: readonly BootstrapClusterRole[] = [
  { name: 'admin', aggregationRule: selecting(AGGREGATE_TO_ADMIN) },
  { name: 'edit', labels: { [AGGREGATE_TO_ADMIN]: 'true' }, aggregationRule: selecting(AGGREGATE_TO_EDIT) },
  { name: 'view', labels: { [AGGREGATE_TO_EDIT]: 'true' }, aggregationRule: selecting(AGGREGATE_TO_VIEW) },
  {
    name: 'system:aggregate-to-admin', labels: { [AGGREGATE_TO_ADMIN]: 'true' },
    rules: [
      rule(['create'], ['authorization.orch.io'], ['localsubjectaccessreviews']),
      rule(READ_WRITE, [RBAC_GROUP], ['roles', 'rolebindings']),
    ],
  },
  {
    name: 'system:aggregate-to-edit', labels: { [AGGREGATE_TO_EDIT]: 'true' },
    rules: [
      rule(WRITE, [''], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
      rule(['create'], [''], ['pods/eviction']),
      rule(['create'], ['lifecycle.orch.io'], ['evictions', 'evictionrequests']),
      rule(WRITE, [''], ['serviceaccounts', 'services', 'services/proxy', 'persistentvolumeclaims', 'configmaps', 'secrets']),
      rule(['create'], [''], ['serviceaccounts/token']),
      rule(WRITE, ['scheduling.orch.io'], ['podgroups']),
      rule(WRITE, ['coordination.orch.io'], ['leases']),
      rule(['impersonate'], [''], ['serviceaccounts']),
      rule(READ, [''], ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
    ],
  },
  {
    name: 'system:aggregate-to-view', labels: { [AGGREGATE_TO_VIEW]: 'true' },
    rules: [
      rule(READ, [''], ['pods', 'serviceaccounts', 'services', 'services/status', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps']),
      rule(READ, [''], ['limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status', 'pods/log']),
      // Read access to namespaces at the namespace scope means reading *this* namespace (upstream's note).
      rule(READ, [''], ['namespaces']),
      rule(READ, ['events.orch.io'], ['events']),
      rule(READ, ['scheduling.orch.io'], ['podgroups', 'podgroups/status']),
      rule(READ, ['coordination.orch.io'], ['leases']),
      rule(READ, ['lifecycle.orch.io'], ['evictionrequests', 'evictionrequests/status']),
    ],
  },
];

/**
 * Upstream's system:node (NodeRules), for node agents with a token of group system:nodes: there is
 * no Node authorizer here, so the reference binds it to the group (upstream's binding before 1.8).
 */
export const NODE_ROLE: BootstrapClusterRole = {
  name: 'system:node',
  rules: [
    rule(['create'], ['authentication.orch.io'], ['tokenreviews']),
    rule(['create'], ['authorization.orch.io'], ['subjectaccessreviews', 'localsubjectaccessreviews']),
    rule(READ, [''], ['services']),
    rule(['create', 'get', 'list', 'watch'], [''], ['nodes']),
    rule(['update', 'patch'], [''], ['nodes/status']),
    rule(['update', 'patch'], [''], ['nodes']),
    rule(['create', 'update', 'patch'], [''], ['events']),
    rule(['create', 'update', 'patch'], ['events.orch.io'], ['events']),
    rule(READ, [''], ['pods']),
    rule(['create', 'delete'], [''], ['pods']),
    rule(['update', 'patch'], [''], ['pods/status']),
    rule(['create'], [''], ['pods/eviction']),
    rule(READ, [''], ['secrets', 'configmaps']),
    rule(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
    rule(['get', 'create', 'update', 'patch', 'delete'], ['coordination.orch.io'], ['leases']),
    rule(['create'], [''], ['serviceaccounts/token']),
  ],
};

export const NODES_GROUP = 'system:nodes';
