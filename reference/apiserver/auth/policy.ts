// PolicyRule matching (upstream rbac/v1 helpers, RuleAllows) and the built-in roles every cluster
// has from its first start (upstream's bootstrap policy). As upstream, the roles are written to
// storage at start (reconcile-bootstrap.ts) and the stored ones are what RBAC reads; the rules here
// stay a fallback for a non-aggregated role that is not stored. The bootstrap bindings are built in.
import { RBAC_GROUP, type PolicyRule } from '../../resources/rbac.js';
import type { RequestInfo } from './request-info.js';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, SUPERUSER_GROUP } from './user.js';
import { AGGREGATED_CLUSTER_ROLES, NODE_ROLE, NODES_GROUP, type BootstrapClusterRole } from './bootstrap-roles.js';

const ALL = '*';

/** Whether `rule` allows the request (who asks does not matter here; the escalation check asks it of rule atoms too). */
export function ruleAllows(a: RequestInfo, rule: PolicyRule): boolean {
  if (!verbMatches(rule, a.verb)) return false;
  if (!a.resourceRequest) return nonResourceUrlMatches(rule, a.path);
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return apiGroupMatches(rule, a.apiGroup) && resourceMatches(rule, combined, a.subresource) && resourceNameMatches(rule, a.name);
}

function verbMatches(rule: PolicyRule, verb: string): boolean {
  return (rule.verbs ?? []).some((v) => v === ALL || v === verb);
}

function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === ALL || g === group);
}

/** `*`, the exact `resource[/subresource]`, or `*\/subresource` for any resource's subresource. */
function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  return (rule.resources ?? []).some((r) => r === ALL || r === combined || (subresource !== '' && r === `*/${subresource}`));
}

/** No resourceNames: any name; otherwise the request must name one of them (a list of everything names none). */
function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || (name !== '' && names.includes(name));
}

/** `*`, the exact path, or a prefix ending in `*`. */
function nonResourceUrlMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some((u) => u === ALL || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))));
}

// ---- Bootstrap policy

/** The group of the API server's own client of node agents (the node proxy's identity), and nothing else. */
export const AGENT_CLIENT_GROUP = 'system:agent-api-clients';
/** The groups of the in-process controller manager and scheduler identities (`serve` with authentication). */
export const CONTROLLER_MANAGER_GROUP = 'system:orch-controller-manager';
export const SCHEDULER_GROUP = 'system:orch-scheduler';

const get = (...nonResourceURLs: string[]): PolicyRule => ({ verbs: ['get'], nonResourceURLs });
const HEALTH_AND_VERSION = ['/livez', '/readyz', '/healthz', '/version', '/version/'];

/**
 * The reviews a component asks to check its own callers (upstream's controller manager and scheduler
 * roles hold them: "Needed to check API access. These creates are non-mutating").
 */
const DELEGATED_REVIEWS: readonly PolicyRule[] = [
  { verbs: ['create'], apiGroups: ['authentication.orch.io'], resources: ['tokenreviews'] },
  { verbs: ['create'], apiGroups: ['authorization.orch.io'], resources: ['subjectaccessreviews'] },
];

/** The built-in ClusterRoles by name (upstream bootstrappolicy.ClusterRoles, the ones this server has use for). */
export const BOOTSTRAP_CLUSTER_ROLES: ReadonlyMap<string, readonly PolicyRule[]> = new Map([
  ['cluster-admin', [{ verbs: [ALL], apiGroups: [ALL], resources: [ALL] }, { verbs: [ALL], nonResourceURLs: [ALL] }]],
  // Discovery documents and the OpenAPI, which every client reads before anything else.
  ['system:discovery', [get(...HEALTH_AND_VERSION, '/openapi', '/openapi/*', '/api', '/api/*', '/apis', '/apis/*')]],
  ['system:public-info-viewer', [get(...HEALTH_AND_VERSION)]],
  ['system:basic-user', [
    { verbs: ['create'], apiGroups: ['authorization.orch.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
    { verbs: ['create'], apiGroups: ['authentication.orch.io'], resources: ['selfsubjectreviews'] },
  ]],
  // Delegated authentication and authorization (a node agent checking its callers): bound to no one by default.
  ['system:auth-delegator', DELEGATED_REVIEWS],
  // What the API server's own client of node agents may do there (upstream's system:kubelet-api-admin,
  // with the agent's checkpoint, pods and configz subresources): the node proxy presents this identity.
  ['system:agent-api-admin', [
    { verbs: ['get', 'list', 'watch', 'proxy'], apiGroups: [''], resources: ['nodes'] },
    { verbs: [ALL], apiGroups: [''], resources: ['nodes/proxy', 'nodes/stats', 'nodes/metrics', 'nodes/log', 'nodes/spec', 'nodes/checkpoint', 'nodes/pods', 'nodes/configz'] },
  ]],
  // The controller manager (upstream system:kube-controller-manager together with its controllers'
  // roles): it reads everything (quota counts any kind), rewrites any object (storage version
  // migration, namespaces/finalize), deletes any object (the garbage collector, the namespace
  // controller), and creates what its controllers own. `escalate` on ClusterRoles is the aggregation
  // controller's (upstream clusterrole-aggregation-controller): it writes rules it need not hold.
  ['system:orch-controller-manager', [
    { verbs: ['get', 'list', 'watch', 'patch', 'update'], apiGroups: [ALL], resources: [ALL] },
    { verbs: ['delete', 'deletecollection'], apiGroups: [ALL], resources: [ALL] },
    { verbs: ['create'], apiGroups: ['lifecycle.orch.io'], resources: ['evictions'] },
    { verbs: ['create'], apiGroups: [''], resources: ['pods/eviction'] },
    { verbs: ['create'], apiGroups: ['events.orch.io'], resources: ['events'] },
    { verbs: ['escalate'], apiGroups: [RBAC_GROUP], resources: ['clusterroles'] },
    ...DELEGATED_REVIEWS,
  ]],
  // The scheduler (upstream system:kube-scheduler): reads pods, nodes and pod groups, binds pods,
  // writes pod and pod group status, and deletes the pods it preempts.
  ['system:orch-scheduler', [
    { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods', 'nodes', 'namespaces'] },
    { verbs: ['get', 'list', 'watch'], apiGroups: ['scheduling.orch.io'], resources: ['podgroups'] },
    { verbs: ['create'], apiGroups: [''], resources: ['pods/binding'] },
    { verbs: ['patch', 'update'], apiGroups: [''], resources: ['pods/status'] },
    { verbs: ['patch', 'update'], apiGroups: ['scheduling.orch.io'], resources: ['podgroups/status'] },
    { verbs: ['delete'], apiGroups: [''], resources: ['pods'] },
    { verbs: ['create'], apiGroups: ['events.orch.io'], resources: ['events'] },
    ...DELEGATED_REVIEWS,
  ]],
  // Metrics and the debug pages: for monitoring agents, not for every user.
  ['system:monitoring', [get('/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*', '/statusz', '/flagz')]],
  // The sources of the aggregated admin, edit and view, and the node agents' role (bootstrap-roles.ts).
  ...[...AGGREGATED_CLUSTER_ROLES, NODE_ROLE].filter((r) => r.rules).map((r): [string, readonly PolicyRule[]] => [r.name, r.rules!]),
]);

/**
 * Every bootstrap ClusterRole as reconcile-bootstrap.ts writes it: the roles above, then admin, edit
 * and view (aggregated: their rules are the ClusterRole aggregation controller's to fill in).
 */
export const ALL_BOOTSTRAP_CLUSTER_ROLES: readonly BootstrapClusterRole[] = [
  ...[...BOOTSTRAP_CLUSTER_ROLES].filter(([name]) => !AGGREGATED_CLUSTER_ROLES.some((r) => r.name === name) && name !== NODE_ROLE.name).map(([name, rules]) => ({ name, rules })),
  NODE_ROLE,
  ...AGGREGATED_CLUSTER_ROLES,
];

export interface BootstrapBinding {
  readonly name: string;
  readonly role: string;
  readonly groups: readonly string[];
}

/** The built-in ClusterRoleBindings (upstream bootstrappolicy.ClusterRoleBindings), all to groups. */
export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: readonly BootstrapBinding[] = [
  { name: 'cluster-admin', role: 'cluster-admin', groups: [SUPERUSER_GROUP] },
  { name: 'system:discovery', role: 'system:discovery', groups: [ALL_AUTHENTICATED] },
  { name: 'system:basic-user', role: 'system:basic-user', groups: [ALL_AUTHENTICATED] },
  { name: 'system:public-info-viewer', role: 'system:public-info-viewer', groups: [ALL_AUTHENTICATED, ALL_UNAUTHENTICATED] },
  { name: 'system:monitoring', role: 'system:monitoring', groups: ['system:monitoring'] },
  { name: 'system:agent-api-admin', role: 'system:agent-api-admin', groups: [AGENT_CLIENT_GROUP] },
  { name: 'system:orch-controller-manager', role: 'system:orch-controller-manager', groups: [CONTROLLER_MANAGER_GROUP] },
  { name: 'system:orch-scheduler', role: 'system:orch-scheduler', groups: [SCHEDULER_GROUP] },
  // No Node authorizer here: agents authenticated in group system:nodes hold system:node by binding.
  { name: 'system:node', role: 'system:node', groups: [NODES_GROUP] },
];
