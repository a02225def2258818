// Breakages for the role-based access cases (spec 000 §2.8 and its §4.2 shapes) and the node agent's
// control-plane kinds (spec 001: Node status, Lease, Pod, seccomp fields): for each case a target
// broken in exactly the case's rule.
import { answer, editJson, jsonBody, statusBody, type Breakage, type ProxiedRequest, type ProxiedResponse } from '../helpers/broken-target.js';
import { deletePodAtOnce } from '../helpers/pods-at-once.js';

const RBAC = '/apis/rbac.authorization.orch.io/v1';
const pathOnly = (r: ProxiedRequest) => r.path.split('?')[0]!;
/** POST to a collection whose last segment is `plural`. */
const isCreate = (r: ProxiedRequest, plural: string) => r.method === 'POST' && pathOnly(r).endsWith(`/${plural}`);
/** PUT to an item (not a subresource) of `plural`. */
const isPutItem = (r: ProxiedRequest, plural: string) => r.method === 'PUT' && new RegExp(`/${plural}/[^/]+$`).test(pathOnly(r));
const isPutStatus = (r: ProxiedRequest, plural: string) => r.method === 'PUT' && new RegExp(`/${plural}/[^/]+/status$`).test(pathOnly(r));
const onCreate = (plural: string, edit: (b: any) => void) => ({ request: (r: ProxiedRequest) => { if (isCreate(r, plural)) editJson(r, (b) => { edit(b); }); } });
const onPutStatus = (plural: string, edit: (b: any) => void) => ({ request: (r: ProxiedRequest) => { if (isPutStatus(r, plural)) editJson(r, (b) => { edit(b); }); } });

/** Rewrites objects of `kind` in responses (single objects and list items). */
function eachOf(kind: string, edit: (o: any) => void) {
  return (_r: ProxiedRequest, res: ProxiedResponse) => editJson(res, (o) => {
    if (o?.kind === kind) edit(o);
    if (Array.isArray(o?.items)) o.items.forEach((i: any) => { if (i?.kind === kind || o.kind === `${kind}List`) edit(i); });
  });
}

const invalid = (kind: string, field: string, reason: string, message: string) =>
  answer(422, statusBody(422, 'Invalid', `${kind} "x" is invalid: ${field}: ${message}`, [{ field, reason, message }]));
const forbiddenSpec = () => invalid('Pod', 'spec', 'FieldValueForbidden', 'Forbidden: pod updates may not change fields other than `spec.containers[*].image`');

/** Every seccompProfile of a pod body (pod level, containers, init containers). */
function profiles(b: any): any[] {
  const spec = b?.spec ?? {};
  const all = [spec.securityContext, ...(spec.containers ?? []).map((c: any) => c?.securityContext), ...(spec.initContainers ?? []).map((c: any) => c?.securityContext)];
  return all.map((s) => s?.seccompProfile).filter((p) => p && typeof p === 'object');
}
const onProfiles = (edit: (p: any) => void) => onCreate('pods', (b) => profiles(b).forEach(edit));

export const rbacNodeBreakages: Record<string, Breakage> = {
  // ---- §2.8 ClusterRole
  'api.clusterrole.rules.round-trip': {
    // A server that loses non-resource rules.
    response: eachOf('ClusterRole', (o) => { if (Array.isArray(o.rules)) o.rules = o.rules.filter((x: any) => !x?.nonResourceURLs); }),
  },
  'api.clusterrole.scope.cluster': {
    request: (r) => { r.path = r.path.replace(/\/namespaces\/[^/]+\/clusterroles\//, '/clusterroles/'); },
  },
  'api.clusterrole.collection-path': {
    request: (r) => (r.method === 'GET' && pathOnly(r) === `${RBAC}/clusterroles` ? answer(404, statusBody(404, 'NotFound', 'the server could not find the requested resource')) : undefined),
  },
  'api.clusterrole.no-status-subresource': {
    // Serves the object under /status too.
    request: (r) => { if (r.method === 'GET' && /\/clusterroles\/[^/]+\/status$/.test(pathOnly(r))) r.path = r.path.replace(/\/status(\?|$)/, '$1'); },
  },
  'api.clusterrole.aggregation-rule.optional': {
    response: eachOf('ClusterRole', (o) => { delete o.aggregationRule; }),
  },
  'api.clusterrole.aggregation-rule.selectors-required': onCreate('clusterroles', (b) => {
    if (b.aggregationRule && !b.aggregationRule.clusterRoleSelectors?.length) b.aggregationRule.clusterRoleSelectors = [{ matchLabels: { filled: 'in' } }];
  }),
  'api.clusterrole.aggregation-rule.selector-validated': onCreate('clusterroles', (b) => {
    for (const s of b.aggregationRule?.clusterRoleSelectors ?? []) for (const e of s.matchExpressions ?? []) if (e.operator === 'Near') e.operator = 'In';
  }),
  'api.clusterrole.rules.verbs-required': onCreate('clusterroles', (b) => {
    for (const rule of b.rules ?? []) if (!rule.verbs?.length) rule.verbs = ['get'];
  }),
  'api.clusterrole.rules.resource-rule-needs-groups-and-resources': onCreate('clusterroles', (b) => {
    // Only apiGroups gets filled in: the server still requires resources, so one of the two causes is missing.
    for (const rule of b.rules ?? []) if (!rule.nonResourceURLs && !rule.apiGroups?.length) rule.apiGroups = [''];
  }),
  'api.clusterrole.rules.non-resource-urls-exclusive': onCreate('clusterroles', (b) => {
    for (const rule of b.rules ?? []) if (rule.nonResourceURLs?.length) { delete rule.apiGroups; delete rule.resources; delete rule.resourceNames; }
  }),
  'api.rbac.name.path-segment': {
    // A server that holds RBAC names to DNS subdomains.
    request: (r) => (isCreate(r, 'clusterroles') && /[:A-Z]/.test(jsonBody(r)?.metadata?.name ?? '')
      ? invalid('ClusterRole.rbac.authorization.orch.io', 'metadata.name', 'FieldValueInvalid', 'Invalid value: "x": a lowercase RFC 1123 subdomain must consist of ...') : undefined),
  },
  'api.rbac.name.no-slash': onCreate('clusterroles', (b) => { if (typeof b.metadata?.name === 'string') b.metadata.name = b.metadata.name.replace(/\//g, '-'); }),
  'api.rbac.delete.returns-status': {
    response: (r, res) => {
      if (r.method === 'DELETE' && /\/clusterroles\/[^/]+$/.test(pathOnly(r)) && res.status < 300) {
        res.body = JSON.stringify({ kind: 'ClusterRole', apiVersion: 'rbac.authorization.orch.io/v1', metadata: { name: decodeURIComponent(pathOnly(r).split('/').pop()!) } });
      }
    },
  },

  // ---- §2.8 Role
  'api.role.scope.namespaced': {
    response: (r, res) => { if (isCreate(r, 'roles')) editJson(res, (o) => { delete o.metadata?.namespace; }); },
  },
  'api.role.rules.non-resource-urls-forbidden': onCreate('roles', (b) => {
    // Accepts them by reading the rule as a resource rule.
    for (const rule of b.rules ?? []) if (rule.nonResourceURLs) { delete rule.nonResourceURLs; rule.apiGroups = ['']; rule.resources = ['pods']; }
  }),

  // ---- §2.8 bindings
  'api.clusterrolebinding.cluster-level': {
    response: (r, res) => { if (isCreate(r, 'clusterrolebindings')) editJson(res, (o) => { o.apiVersion = 'rbac.authorization.orch.io/v1beta1'; }); },
  },
  'api.clusterrolebinding.role-ref.required': onCreate('clusterrolebindings', (b) => { b.roleRef ??= { kind: 'ClusterRole', name: 'filled-in' }; }),
  'api.clusterrolebinding.role-ref.api-group-defaulted': {
    response: (r, res) => { if (isCreate(r, 'clusterrolebindings') && !jsonBody(r)?.roleRef?.apiGroup) editJson(res, (o) => { if (o.roleRef) o.roleRef.apiGroup = ''; }); },
  },
  'api.clusterrolebinding.role-ref.kind-cluster-role-only': onCreate('clusterrolebindings', (b) => { if (b.roleRef?.kind === 'Role') b.roleRef.kind = 'ClusterRole'; }),
  'api.rolebinding.role-ref.kinds': {
    // A server whose RoleBindings may refer to Roles only.
    request: (r) => (isCreate(r, 'rolebindings') && jsonBody(r)?.roleRef?.kind === 'ClusterRole'
      ? invalid('RoleBinding.rbac.authorization.orch.io', 'roleRef.kind', 'FieldValueNotSupported', 'Unsupported value: "ClusterRole": supported values: "Role"') : undefined),
  },
  'api.clusterrolebinding.role-ref.immutable': {
    // Acknowledges a PUT without checking (or storing) it.
    request: (r) => (isPutItem(r, 'clusterrolebindings') ? answer(200, r.body) : undefined),
  },
  'api.clusterrolebinding.subjects.kind': onCreate('clusterrolebindings', (b) => { for (const s of b.subjects ?? []) if (s.kind === 'Robot') s.kind = 'User'; }),
  'api.clusterrolebinding.subjects.name-required': onCreate('clusterrolebindings', (b) => { for (const s of b.subjects ?? []) s.name ??= 'filled-in'; }),
  'api.clusterrolebinding.subjects.api-group-defaulted': {
    response: (r, res) => { if (isCreate(r, 'clusterrolebindings')) editJson(res, (o) => o.subjects?.forEach((s: any) => { if (!jsonBody(r)?.subjects?.some((x: any) => x.name === s.name && x.apiGroup)) delete s.apiGroup; })); },
  },
  'api.clusterrolebinding.subjects.api-group-unsupported': onCreate('clusterrolebindings', (b) => {
    for (const s of b.subjects ?? []) if (s.kind === 'User' || s.kind === 'Group') s.apiGroup = 'rbac.authorization.orch.io';
  }),
  'api.clusterrolebinding.subjects.service-account-namespace': onCreate('clusterrolebindings', (b) => {
    for (const s of b.subjects ?? []) if (s.kind === 'ServiceAccount') s.namespace ??= 'default';
  }),

  // ---- §4.2 shapes
  'api.rbac.clusterrolebindings.read-pretty': {
    request: (r) => { r.path = r.path.replace(/([?&])pretty=true&?/, '$1').replace(/[?&]$/, ''); },
  },
  'api.rbac.clusterrolebindings.list-kind': {
    response: (r, res) => { if (r.method === 'GET' && pathOnly(r) === `${RBAC}/clusterrolebindings`) editJson(res, (o) => { o.kind = 'List'; }); },
  },
  'api.rbac.clusterrolebindings.watch-by-name': {
    // Ignores the name: streams the whole collection.
    request: (r) => { r.path = r.path.replace(/\/watch\/clusterrolebindings\/[^/?]+/, '/watch/clusterrolebindings'); },
  },
  'api.rbac.roles.list-namespaced': {
    response: (r, res) => { if (r.method === 'GET' && /\/namespaces\/[^/]+\/roles$/.test(pathOnly(r))) editJson(res, (o) => { o.kind = 'List'; }); },
  },
  'api.rbac.roles.list-all-namespaces': {
    request: (r) => (r.method === 'GET' && pathOnly(r) === `${RBAC}/roles` ? answer(404, statusBody(404, 'NotFound', 'the server could not find the requested resource')) : undefined),
  },
  'api.rbac.roles.watch-by-name': {
    request: (r) => { r.path = r.path.replace(/(\/watch\/namespaces\/[^/]+\/roles)\/[^/?]+/, '$1'); },
  },

  // ---- spec 001 §2.2 Node status
  'api.node.status.addresses.round-trip': {
    // A server that knows only upstream's `Hostname` spelling.
    request: (r) => (isPutStatus(r, 'nodes') && (jsonBody(r)?.status?.addresses ?? []).some((a: any) => a.type === 'HostName')
      ? invalid('Node', 'status.addresses[2].type', 'FieldValueNotSupported', 'Unsupported value: "HostName"') : undefined),
  },
  'api.node.status.addresses.type-unsupported': onPutStatus('nodes', (b) => {
    for (const a of b.status?.addresses ?? []) if (!['Hostname', 'HostName', 'ExternalIP', 'InternalIP', 'InternalDNS', 'ExternalDNS'].includes(a.type)) a.type = 'InternalIP';
  }),
  'api.node.status.addresses.duplicate': onPutStatus('nodes', (b) => {
    if (Array.isArray(b.status?.addresses)) b.status.addresses = b.status.addresses.filter((a: any, i: number, all: any[]) => all.findIndex((x) => x.type === a.type && x.address === a.address) === i);
  }),
  'api.node.status.conditions.round-trip': {
    response: eachOf('Node', (o) => o.status?.conditions?.forEach((c: any) => { delete c.lastHeartbeatTime; })),
  },
  'api.node.status.conditions.status-values': {
    request: (r) => (isPutStatus(r, 'nodes') && (jsonBody(r)?.status?.conditions ?? []).some((c: any) => c.status === 'Unknown')
      ? invalid('Node', 'status.conditions[0].status', 'FieldValueNotSupported', 'Unsupported value: "Unknown": supported values: "True", "False"') : undefined),
  },
  'api.node.status.conditions.status-unsupported': onPutStatus('nodes', (b) => {
    for (const c of b.status?.conditions ?? []) if (!['True', 'False', 'Unknown'].includes(c.status)) c.status = 'Unknown';
  }),
  'api.node.status.capacity-allocatable.round-trip': {
    response: eachOf('Node', (o) => { if (o.status?.capacity) delete o.status.capacity.pods; }),
  },
  'api.node.status.capacity.negative': onPutStatus('nodes', (b) => {
    for (const k of Object.keys(b.status?.capacity ?? {})) b.status.capacity[k] = String(b.status.capacity[k]).replace(/^-/, '');
  }),
  'api.node.status.allocatable.negative': onPutStatus('nodes', (b) => {
    for (const k of Object.keys(b.status?.allocatable ?? {})) b.status.allocatable[k] = String(b.status.allocatable[k]).replace(/^-/, '');
  }),
  'api.node.status.node-info.round-trip': {
    response: eachOf('Node', (o) => { delete o.status?.nodeInfo?.agentVersion; }),
  },
  'api.node.status.declared-features.round-trip': {
    response: eachOf('Node', (o) => { delete o.status?.declaredFeatures; }),
  },
  'api.node.spec.unschedulable.cordon': {
    request: (r) => { if (isPutItem(r, 'nodes')) editJson(r, (b) => { delete b.spec?.unschedulable; }); },
  },
  'api.node.status.subresource': {
    // No status subresource: a PUT to /status lands on the main resource.
    request: (r) => { if (isPutStatus(r, 'nodes')) r.path = r.path.replace(/\/status(\?|$)/, '$1'); },
  },

  // ---- spec 001 §2.2 Lease
  'api.lease.node-lease.heartbeat': {
    request: (r) => (pathOnly(r) === '/api/v1/namespaces/node-lease' ? answer(404, statusBody(404, 'NotFound', 'namespaces "node-lease" not found')) : undefined),
  },
  'api.lease.spec.round-trip': {
    // Keeps milliseconds only, as a server storing metav1.Time-like values would.
    response: eachOf('Lease', (o) => { for (const f of ['acquireTime', 'renewTime']) if (typeof o.spec?.[f] === 'string') o.spec[f] = o.spec[f].replace(/(\.\d{3})\d+Z$/, '$1000Z'); }),
  },
  'api.lease.lease-duration.positive': onCreate('leases', (b) => { if (b.spec?.leaseDurationSeconds === 0) b.spec.leaseDurationSeconds = 15; }),
  'api.lease.lease-transitions.non-negative': onCreate('leases', (b) => { if (b.spec?.leaseTransitions < 0) b.spec.leaseTransitions = 0; }),
  'api.lease.strategy.unsupported': onCreate('leases', (b) => { if (b.spec?.strategy && !b.spec.strategy.includes('/')) b.spec.strategy = 'OldestEmulationVersion'; }),
  'api.lease.preferred-holder.needs-strategy': onCreate('leases', (b) => { if (b.spec?.preferredHolder) b.spec.strategy ??= 'OldestEmulationVersion'; }),

  // ---- spec 001 §1 Pod
  'api.pod.containers.required': onCreate('pods', (b) => { if (b.spec && !b.spec.containers?.length) b.spec.containers = [{ name: 'filled-in', image: 'filled-in' }]; }),
  'api.pod.containers.name-dns-label': onCreate('pods', (b) => { for (const c of b.spec?.containers ?? []) c.name = String(c.name ?? '').toLowerCase().replace(/_/g, '-'); }),
  'api.pod.containers.name-unique': onCreate('pods', (b) => { (b.spec?.containers ?? []).forEach((c: any, i: number) => { if (i > 0) c.name = `${c.name}-${i}`; }); }),
  'api.pod.containers.name-unique-with-init': onCreate('pods', (b) => { for (const c of b.spec?.initContainers ?? []) c.name = `init-${c.name}`; }),
  'api.pod.containers.image-required': onCreate('pods', (b) => { for (const c of b.spec?.containers ?? []) c.image ??= 'filled-in'; }),
  'api.pod.ephemeral-containers.not-on-create': onCreate('pods', (b) => { delete b.spec?.ephemeralContainers; }),
  // A server without graceful pod deletion: the bound pod is removed by the first delete.
  'api.pod.delete.graceful': { request: (r) => { deletePodAtOnce(r); } },
  'api.pod.node-name.round-trip': {
    response: eachOf('Pod', (o) => { delete o.spec?.nodeName; }),
  },
  'api.pod.node-name.invalid': onCreate('pods', (b) => { if (b.spec?.nodeName) b.spec.nodeName = String(b.spec.nodeName).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, ''); }),
  'api.pod.scheduling-group.round-trip': {
    response: eachOf('Pod', (o) => { delete o.spec?.schedulingGroup; }),
  },
  'api.pod.status.initial-pending': {
    // Keeps the status the client sent.
    response: (r, res) => { const phase = isCreate(r, 'pods') ? jsonBody(r)?.status?.phase : undefined; if (phase) editJson(res, (o) => { if (o.status) o.status.phase = phase; }); },
  },
  'api.pod.status.phase-values': {
    request: (r) => (isPutStatus(r, 'pods') && jsonBody(r)?.status?.phase === 'Unknown'
      ? invalid('Pod', 'status.phase', 'FieldValueNotSupported', 'Unsupported value: "Unknown"') : undefined),
  },
  'api.pod.status.phase-unsupported': onPutStatus('pods', (b) => {
    if (b.status && !['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'].includes(b.status.phase)) b.status.phase = 'Running';
  }),
  'api.pod.spec.immutable': {
    request: (r) => (isPutItem(r, 'pods') ? answer(200, r.body) : undefined),
  },
  'api.pod.spec.image-mutable': {
    // Freezes the whole spec, images included.
    request: (r) => (isPutItem(r, 'pods') ? forbiddenSpec() : undefined),
  },
  'api.pod.spec.active-deadline-lowered-only': {
    // Lets activeDeadlineSeconds go up too.
    request: (r) => (isPutItem(r, 'pods') && jsonBody(r)?.spec?.activeDeadlineSeconds === 900 ? answer(200, r.body) : undefined),
  },
  'api.pod.spec.tolerations-added': {
    request: (r) => (isPutItem(r, 'pods') && (jsonBody(r)?.spec?.tolerations?.length ?? 0) > 1 ? forbiddenSpec() : undefined),
  },
  'api.pod.spec.termination-grace-mutable': {
    request: (r) => (isPutItem(r, 'pods') && jsonBody(r)?.spec?.terminationGracePeriodSeconds === 5 ? forbiddenSpec() : undefined),
  },

  // ---- spec 001 §2.4 seccomp
  'api.pod.seccomp.placement-and-types': {
    // Loses the init containers' security context.
    response: eachOf('Pod', (o) => o.spec?.initContainers?.forEach((c: any) => { delete c.securityContext; })),
  },
  'api.pod.seccomp.type-unsupported': onProfiles((p) => { if (!['Unconfined', 'RuntimeDefault', 'Localhost'].includes(p.type)) p.type = 'RuntimeDefault'; }),
  'api.pod.seccomp.localhost-profile-required': onProfiles((p) => { if (p.type === 'Localhost') p.localhostProfile ||= 'filled-in.json'; }),
  'api.pod.seccomp.localhost-profile-only-localhost': onProfiles((p) => { if (p.type !== 'Localhost') delete p.localhostProfile; }),
  'api.pod.seccomp.localhost-profile-relative': onProfiles((p) => { if (typeof p.localhostProfile === 'string') p.localhostProfile = p.localhostProfile.replace(/^\/+/, ''); }),
  'api.pod.seccomp.localhost-profile-no-parent': onProfiles((p) => { if (typeof p.localhostProfile === 'string') p.localhostProfile = p.localhostProfile.split('/').filter((s: string) => s !== '..').join('/'); }),

  // §2.8 aggregation cases observe the aggregation controller: proven in controllers-rbac.ts.
};

