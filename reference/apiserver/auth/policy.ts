// PolicyRule matching (upstream rbac/v1 helpers, RuleAllows) and the built-in roles every cluster
// has from its first start (upstream's bootstrap policy). Upstream writes the bootstrap roles to
// storage; here they are built in, and a stored ClusterRole of the same name takes precedence.
import type { PolicyRule } from '../../resources/rbac.js';
import type { Attributes } from './request-info.js';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, SUPERUSER_GROUP } from './user.js';

const ALL = '*';

export function ruleAllows(a: Attributes, rule: PolicyRule): boolean {
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

const get = (...nonResourceURLs: string[]): PolicyRule => ({ verbs: ['get'], nonResourceURLs });
const HEALTH_AND_VERSION = ['/livez', '/readyz', '/healthz', '/version', '/version/'];

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
  ['system:auth-delegator', [
    { verbs: ['create'], apiGroups: ['authentication.orch.io'], resources: ['tokenreviews'] },
    { verbs: ['create'], apiGroups: ['authorization.orch.io'], resources: ['subjectaccessreviews'] },
  ]],
  // What the API server's own client of node agents may do there (upstream's system:kubelet-api-admin,
  // with the agent's checkpoint, pods and configz subresources): the node proxy presents this identity.
  ['system:agent-api-admin', [
    { verbs: ['get', 'list', 'watch', 'proxy'], apiGroups: [''], resources: ['nodes'] },
    { verbs: [ALL], apiGroups: [''], resources: ['nodes/proxy', 'nodes/stats', 'nodes/metrics', 'nodes/log', 'nodes/spec', 'nodes/checkpoint', 'nodes/pods', 'nodes/configz'] },
  ]],
  // Metrics and the debug pages: for monitoring agents, not for every user.
  ['system:monitoring', [get('/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*', '/statusz', '/flagz')]],
]);

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
];
