// Pod, core v1, namespaced, with a status subresource: the part of the pod the node agent acts on
// (spec 001 §1 sync loop: pods whose nodeName matches, their containers; §2.4 seccomp fields).
// Rules follow upstream pkg/apis/core/validation (ValidatePodCreate, ValidatePodSpec,
// ValidatePodUpdate in a simplified form) and the v1 defaults. Fields the agent does not act on are
// kept free-form (no validation) so that nothing a client sends is lost.
import {
  deepEqual,
  fieldErrors,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  path,
  type FieldError,
  type FieldPath,
} from '../apiserver/field-errors.js';
import { t, type Schema } from '../apiserver/schema.js';
import { defineStrategy, type ApiObject, type PatchStrategies } from '../apiserver/strategy.js';
import { fieldAt } from '../apiserver/selectors.js';
import { normalizeResourceList, normalizeTime, quantityMilli, resourceListSchema, validateQuantityValue, validateTime } from './node.js';
import { POD_SUBRESOURCES } from './pod-subresources.js';

export const POD_PHASES = ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'] as const;
export const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'] as const;
export const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'] as const;
export const SECCOMP_TYPES = ['Localhost', 'RuntimeDefault', 'Unconfined'] as const;
export const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'] as const;
export const PROTOCOLS = ['SCTP', 'TCP', 'UDP'] as const;
export const TOLERATION_OPERATORS = ['Equal', 'Exists'] as const;
export const TAINT_EFFECTS = ['NoExecute', 'NoSchedule', 'PreferNoSchedule'] as const;
/** The Required detail for a Localhost profile without localhostProfile (ground-truth note). */
export const LOCALHOST_PROFILE_REQUIRED = 'localhostProfile must be set if seccompProfile type is Localhost.';
export const SPEC_UPDATE_FORBIDDEN =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds`,`spec.schedulingGates` (only removals)';
const MAX_INT32 = 2147483647;

// ---- Shapes ----

const seccompSchema: Schema = t.object({ type: t.string(), localhostProfile: t.string() });
const appArmorSchema: Schema = t.object({ type: t.string(), localhostProfile: t.string() });

const containerSecurityContextSchema: Schema = t.object({
  capabilities: t.object({ add: t.array(t.string()), drop: t.array(t.string()) }),
  privileged: t.boolean(),
  seLinuxOptions: t.any(),
  windowsOptions: t.any(),
  runAsUser: t.integer(),
  runAsGroup: t.integer(),
  runAsNonRoot: t.boolean(),
  readOnlyRootFilesystem: t.boolean(),
  allowPrivilegeEscalation: t.boolean(),
  procMount: t.string(),
  seccompProfile: seccompSchema,
  appArmorProfile: appArmorSchema,
});

const podSecurityContextSchema: Schema = t.object({
  seLinuxOptions: t.any(),
  windowsOptions: t.any(),
  runAsUser: t.integer(),
  runAsGroup: t.integer(),
  runAsNonRoot: t.boolean(),
  supplementalGroups: t.array(t.integer()),
  supplementalGroupsPolicy: t.string(),
  fsGroup: t.integer(),
  sysctls: t.array(t.object({ name: t.string(), value: t.string() })),
  fsGroupChangePolicy: t.string(),
  seccompProfile: seccompSchema,
  appArmorProfile: appArmorSchema,
  seLinuxChangePolicy: t.string(),
});

const containerFields = {
  name: t.string(),
  image: t.string(),
  command: t.array(t.string()),
  args: t.array(t.string()),
  workingDir: t.string(),
  ports: t.array(t.object({ name: t.string(), hostPort: t.integer(), containerPort: t.integer(), protocol: t.string(), hostIP: t.string() })),
  envFrom: t.array(t.any()),
  env: t.array(t.object({ name: t.string(), value: t.string(), valueFrom: t.any() })),
  resources: t.object({ limits: resourceListSchema, requests: resourceListSchema, claims: t.array(t.any()) }),
  resizePolicy: t.array(t.any()),
  restartPolicy: t.string(),
  restartPolicyRules: t.array(t.any()),
  volumeMounts: t.array(
    t.object({
      name: t.string(),
      readOnly: t.boolean(),
      recursiveReadOnly: t.string(),
      mountPath: t.string(),
      subPath: t.string(),
      mountPropagation: t.string(),
      subPathExpr: t.string(),
    }),
  ),
  volumeDevices: t.array(t.any()),
  livenessProbe: t.any(),
  readinessProbe: t.any(),
  startupProbe: t.any(),
  lifecycle: t.any(),
  terminationMessagePath: t.string(),
  terminationMessagePolicy: t.string(),
  imagePullPolicy: t.string(),
  securityContext: containerSecurityContextSchema,
  stdin: t.boolean(),
  stdinOnce: t.boolean(),
  tty: t.boolean(),
};
const containerSchema: Schema = t.object(containerFields);
const ephemeralContainerSchema: Schema = t.object({ ...containerFields, targetContainerName: t.string() });

/** Upstream core/v1 patch tags of the pod fields this schema has (strategic merge and apply). */
const containerListStrategies = (list: string) => ({
  [list]: { strategy: 'merge', mergeKey: 'name' },
  [`${list}[].ports`]: { strategy: 'merge', mergeKey: 'containerPort', listMapKeys: ['containerPort', 'protocol'] },
  [`${list}[].env`]: { strategy: 'merge', mergeKey: 'name' },
  [`${list}[].volumeMounts`]: { strategy: 'merge', mergeKey: 'mountPath' },
  [`${list}[].volumeDevices`]: { strategy: 'merge', mergeKey: 'devicePath' },
  [`${list}[].resources.claims`]: { listType: 'map', listMapKeys: ['name'] },
}) as const;
export const POD_PATCH_STRATEGIES: PatchStrategies = {
  ...containerListStrategies('spec.initContainers'),
  ...containerListStrategies('spec.containers'),
  ...containerListStrategies('spec.ephemeralContainers'),
  'spec.volumes': { strategy: 'merge,retainKeys', mergeKey: 'name' },
  'spec.imagePullSecrets': { strategy: 'merge', mergeKey: 'name' },
  'spec.hostAliases': { strategy: 'merge', mergeKey: 'ip' },
  'spec.schedulingGates': { strategy: 'merge', mergeKey: 'name' },
  'spec.resourceClaims': { strategy: 'merge,retainKeys', mergeKey: 'name' },
  'spec.topologySpreadConstraints': { strategy: 'merge', mergeKey: 'topologyKey', listMapKeys: ['topologyKey', 'whenUnsatisfiable'] },
  'status.conditions': { strategy: 'merge', mergeKey: 'type' },
  'status.podIPs': { strategy: 'merge', mergeKey: 'ip', listType: 'atomic' },
  'status.hostIPs': { strategy: 'merge', mergeKey: 'ip', listType: 'atomic' },
  'status.resourceClaimStatuses': { strategy: 'merge,retainKeys', mergeKey: 'name' },
};

const podSpecSchema: Schema = t.object({
  volumes: t.array(t.any()),
  initContainers: t.array(containerSchema),
  containers: t.array(containerSchema),
  ephemeralContainers: t.array(ephemeralContainerSchema),
  restartPolicy: t.string(),
  terminationGracePeriodSeconds: t.integer(),
  activeDeadlineSeconds: t.integer(),
  dnsPolicy: t.string(),
  nodeSelector: t.map(t.string()),
  serviceAccountName: t.string(),
  serviceAccount: t.string(),
  automountServiceAccountToken: t.boolean(),
  nodeName: t.string(),
  hostNetwork: t.boolean(),
  hostPID: t.boolean(),
  hostIPC: t.boolean(),
  shareProcessNamespace: t.boolean(),
  securityContext: podSecurityContextSchema,
  imagePullSecrets: t.array(t.object({ name: t.string() })),
  hostname: t.string(),
  subdomain: t.string(),
  affinity: t.any(),
  schedulerName: t.string(),
  tolerations: t.array(t.object({ key: t.string(), operator: t.string(), value: t.string(), effect: t.string(), tolerationSeconds: t.integer() })),
  hostAliases: t.array(t.any()),
  priorityClassName: t.string(),
  priority: t.integer(),
  dnsConfig: t.any(),
  readinessGates: t.array(t.any()),
  runtimeClassName: t.string(),
  enableServiceLinks: t.boolean(),
  preemptionPolicy: t.string(),
  overhead: resourceListSchema,
  topologySpreadConstraints: t.array(t.any()),
  setHostnameAsFQDN: t.boolean(),
  os: t.object({ name: t.string() }),
  hostUsers: t.boolean(),
  schedulingGates: t.array(t.object({ name: t.string() })),
  resourceClaims: t.array(t.any()),
  resources: t.any(),
  hostnameOverride: t.string(),
  /**
   * The PodGroup the pod belongs to (spec 000 §2.5: pods with spec.schedulingGroup set; upstream 1.37
   * PodSchedulingGroup `{podGroupName}`, immutable).
   */
  schedulingGroup: t.object({ podGroupName: t.string() }),
});

const podStatusSchema: Schema = t.object({
  observedGeneration: t.integer(),
  phase: t.string(),
  conditions: t.array(
    t.object({
      type: t.string(),
      observedGeneration: t.integer(),
      status: t.string(),
      lastProbeTime: t.string(),
      lastTransitionTime: t.string(),
      reason: t.string(),
      message: t.string(),
    }),
  ),
  message: t.string(),
  reason: t.string(),
  nominatedNodeName: t.string(),
  hostIP: t.string(),
  hostIPs: t.array(t.object({ ip: t.string() })),
  podIP: t.string(),
  podIPs: t.array(t.object({ ip: t.string() })),
  startTime: t.string(),
  initContainerStatuses: t.array(t.any()),
  containerStatuses: t.array(t.any()),
  qosClass: t.string(),
  ephemeralContainerStatuses: t.array(t.any()),
  resize: t.string(),
  resourceClaimStatuses: t.array(t.any()),
  extendedResourceClaimStatus: t.any(),
});

// ---- Types ----

interface SeccompProfile {
  type?: string;
  localhostProfile?: string;
}

interface Container {
  name?: string;
  image?: string;
  ports?: Array<{ containerPort?: number; hostPort?: number; protocol?: string }>;
  resources?: { limits?: Record<string, unknown>; requests?: Record<string, unknown> };
  volumeMounts?: Array<{ name?: string; mountPath?: string }>;
  terminationMessagePath?: string;
  terminationMessagePolicy?: string;
  imagePullPolicy?: string;
  securityContext?: { seccompProfile?: SeccompProfile };
}

interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

interface PodSpec {
  volumes?: Array<Record<string, unknown>>;
  initContainers?: Container[];
  containers?: Container[];
  ephemeralContainers?: Container[];
  restartPolicy?: string;
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  dnsPolicy?: string;
  nodeName?: string;
  securityContext?: { seccompProfile?: SeccompProfile };
  schedulerName?: string;
  enableServiceLinks?: boolean;
  tolerations?: Toleration[];
  schedulingGates?: Array<{ name?: string }>;
  schedulingGroup?: { podGroupName?: string };
}

interface Pod extends ApiObject {
  spec?: PodSpec;
  status?: { phase?: string; qosClass?: string; startTime?: string; conditions?: Array<{ lastProbeTime?: string; lastTransitionTime?: string }> };
}

// ---- Defaults ----

/** Upstream SetDefaults_Container's pull policy: Always for `:latest` or no tag, else IfNotPresent. */
function defaultPullPolicy(image: string): string {
  if (image.includes('@')) return 'IfNotPresent';
  const last = image.slice(image.lastIndexOf('/') + 1);
  const colon = last.lastIndexOf(':');
  const tag = colon >= 0 ? last.slice(colon + 1) : '';
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainer(c: Container): void {
  c.terminationMessagePath ??= '/dev/termination-log';
  c.terminationMessagePolicy ??= 'File';
  if (c.imagePullPolicy === undefined && c.image) c.imagePullPolicy = defaultPullPolicy(c.image);
  for (const p of c.ports ?? []) p.protocol ??= 'TCP';
  const res = c.resources;
  if (res) {
    normalizeResourceList(res.limits);
    normalizeResourceList(res.requests);
    // Upstream SetDefaults_Pod: a limit without a request makes the request equal to the limit.
    for (const [k, v] of Object.entries(res.limits ?? {})) {
      if (!res.requests || !(k in res.requests)) (res.requests ??= {})[k] = v;
    }
  }
}

/** Upstream qos.ComputePodQOS, for cpu and memory. */
function qosClass(spec: PodSpec): string {
  const all = [...(spec.containers ?? []), ...(spec.initContainers ?? [])];
  let any = false;
  let guaranteed = true;
  for (const c of all) {
    const req = c.resources?.requests ?? {};
    const lim = c.resources?.limits ?? {};
    for (const r of ['cpu', 'memory']) {
      const rq = quantityMilli(req[r]);
      const lm = quantityMilli(lim[r]);
      if ((rq ?? 0n) > 0n || (lm ?? 0n) > 0n) any = true;
      if (lm === undefined || rq !== lm) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

// ---- Validation ----

/** Upstream validateSeccompProfileField, with the ground-truth note's text for a missing profile. */
export function validateSeccompProfile(sp: SeccompProfile | undefined, at: FieldPath): FieldError[] {
  if (!sp) return [];
  const errs: FieldError[] = [];
  const type = sp.type ?? '';
  if (type === '') errs.push(fieldErrors.required(at.child('type'), 'type is required when seccompProfile is set'));
  else if (!(SECCOMP_TYPES as readonly string[]).includes(type)) errs.push(fieldErrors.notSupported(at.child('type'), type, SECCOMP_TYPES));
  const profileAt = at.child('localhostProfile');
  if (type === 'Localhost') {
    if (!sp.localhostProfile) errs.push(fieldErrors.required(profileAt, LOCALHOST_PROFILE_REQUIRED));
    else {
      if (sp.localhostProfile.startsWith('/')) errs.push(fieldErrors.invalid(profileAt, sp.localhostProfile, 'must be a relative path'));
      if (sp.localhostProfile.split('/').includes('..')) errs.push(fieldErrors.invalid(profileAt, sp.localhostProfile, "must not contain '..'"));
    }
  } else if (sp.localhostProfile !== undefined) {
    errs.push(fieldErrors.invalid(profileAt, sp, 'can only be set when seccomp type is Localhost'));
  }
  return errs;
}

function oneOf(errs: FieldError[], v: string | undefined, allowed: readonly string[], at: FieldPath): void {
  if (v === undefined) return;
  if (v === '') errs.push(fieldErrors.required(at));
  else if (!allowed.includes(v)) errs.push(fieldErrors.notSupported(at, v, allowed));
}

function validateContainer(c: Container, at: FieldPath, names: Set<string>, volumes: Set<string>, errs: FieldError[]): void {
  const nameAt = at.child('name');
  if (!c.name) errs.push(fieldErrors.required(nameAt));
  else {
    for (const m of isDNS1123Label(c.name)) errs.push(fieldErrors.invalid(nameAt, c.name, m));
    if (names.has(c.name)) errs.push(fieldErrors.duplicate(nameAt, c.name));
    names.add(c.name);
  }
  if (!c.image) errs.push(fieldErrors.required(at.child('image')));
  oneOf(errs, c.imagePullPolicy, PULL_POLICIES, at.child('imagePullPolicy'));
  oneOf(errs, c.terminationMessagePolicy, ['File', 'FallbackToLogsOnError'], at.child('terminationMessagePolicy'));
  (c.ports ?? []).forEach((p, i) => {
    const pAt = at.child('ports').index(i);
    const port = p.containerPort ?? 0;
    if (port < 1 || port > 65535) errs.push(fieldErrors.invalid(pAt.child('containerPort'), port, 'must be between 1 and 65535, inclusive'));
    if (p.hostPort !== undefined && p.hostPort !== 0 && (p.hostPort < 1 || p.hostPort > 65535)) {
      errs.push(fieldErrors.invalid(pAt.child('hostPort'), p.hostPort, 'must be between 1 and 65535, inclusive'));
    }
    oneOf(errs, p.protocol, PROTOCOLS, pAt.child('protocol'));
  });
  (c.volumeMounts ?? []).forEach((vm, i) => {
    const vAt = at.child('volumeMounts').index(i);
    if (!vm.name) errs.push(fieldErrors.required(vAt.child('name')));
    else if (!volumes.has(vm.name)) errs.push(fieldErrors.notFound(vAt.child('name'), vm.name));
    if (!vm.mountPath) errs.push(fieldErrors.required(vAt.child('mountPath')));
  });
  const res = c.resources ?? {};
  const resAt = at.child('resources');
  for (const kind of ['limits', 'requests'] as const) {
    for (const [k, v] of Object.entries(res[kind] ?? {})) errs.push(...validateQuantityValue(v, resAt.child(kind).key(k)));
  }
  for (const [k, lim] of Object.entries(res.limits ?? {})) {
    const req = res.requests?.[k];
    const l = quantityMilli(lim);
    const r = quantityMilli(req);
    if (l !== undefined && r !== undefined && r > l) {
      errs.push(fieldErrors.invalid(resAt.child('requests'), String(req), `must be less than or equal to ${k} limit of ${String(lim)}`));
    }
  }
  errs.push(...validateSeccompProfile(c.securityContext?.seccompProfile, at.child('securityContext').child('seccompProfile')));
}

function validatePodSpec(spec: PodSpec, errs: FieldError[]): void {
  const at = path('spec');
  const volumes = new Set<string>();
  (spec.volumes ?? []).forEach((v, i) => {
    const vAt = at.child('volumes').index(i);
    const name = v !== null && typeof v === 'object' && typeof v['name'] === 'string' ? v['name'] : '';
    if (!name) errs.push(fieldErrors.required(vAt.child('name')));
    else {
      for (const m of isDNS1123Label(name)) errs.push(fieldErrors.invalid(vAt.child('name'), name, m));
      if (volumes.has(name)) errs.push(fieldErrors.duplicate(vAt.child('name'), name));
    }
    volumes.add(name);
  });
  const names = new Set<string>();
  // Upstream validates init containers first, so a clash is reported on the regular container.
  (spec.initContainers ?? []).forEach((c, i) => validateContainer(c, at.child('initContainers').index(i), names, volumes, errs));
  if ((spec.containers ?? []).length === 0) errs.push(fieldErrors.required(at.child('containers')));
  (spec.containers ?? []).forEach((c, i) => validateContainer(c, at.child('containers').index(i), names, volumes, errs));
  (spec.ephemeralContainers ?? []).forEach((c, i) => validateContainer(c, at.child('ephemeralContainers').index(i), names, volumes, errs));

  oneOf(errs, spec.restartPolicy, RESTART_POLICIES, at.child('restartPolicy'));
  oneOf(errs, spec.dnsPolicy, DNS_POLICIES, at.child('dnsPolicy'));
  const ads = spec.activeDeadlineSeconds;
  if (ads !== undefined && (ads < 1 || ads > MAX_INT32)) {
    errs.push(fieldErrors.invalid(at.child('activeDeadlineSeconds'), ads, `must be between 1 and ${MAX_INT32}, inclusive`));
  }
  if (spec.nodeName) for (const m of isDNS1123Subdomain(spec.nodeName)) errs.push(fieldErrors.invalid(at.child('nodeName'), spec.nodeName, m));
  if (spec.schedulingGroup) {
    const gAt = at.child('schedulingGroup').child('podGroupName');
    const name = spec.schedulingGroup.podGroupName ?? '';
    if (!name) errs.push(fieldErrors.required(gAt));
    else for (const m of isDNS1123Subdomain(name)) errs.push(fieldErrors.invalid(gAt, name, m));
  }
  (spec.tolerations ?? []).forEach((tol, i) => {
    const tAt = at.child('tolerations').index(i);
    if (tol.key) for (const m of isQualifiedName(tol.key)) errs.push(fieldErrors.invalid(tAt.child('key'), tol.key, m));
    if (tol.operator !== undefined && tol.operator !== '' && !(TOLERATION_OPERATORS as readonly string[]).includes(tol.operator)) {
      errs.push(fieldErrors.notSupported(tAt.child('operator'), tol.operator, TOLERATION_OPERATORS));
    }
    if (tol.operator === 'Exists' && tol.value) errs.push(fieldErrors.invalid(tAt.child('operator'), tol.value, 'value must be empty when `operator` is \'Exists\''));
    if (tol.effect && !(TAINT_EFFECTS as readonly string[]).includes(tol.effect)) errs.push(fieldErrors.notSupported(tAt.child('effect'), tol.effect, TAINT_EFFECTS));
  });
  const gates = new Set<string>();
  (spec.schedulingGates ?? []).forEach((g, i) => {
    const gAt = at.child('schedulingGates').index(i).child('name');
    const name = g.name ?? '';
    for (const m of isQualifiedName(name)) errs.push(fieldErrors.invalid(gAt, name, m));
    if (gates.has(name)) errs.push(fieldErrors.duplicate(gAt, name));
    gates.add(name);
  });
  if (gates.size > 0 && spec.nodeName) errs.push(fieldErrors.forbidden(at.child('nodeName'), 'cannot be set until all schedulingGates have been cleared'));
  errs.push(...validateSeccompProfile(spec.securityContext?.seccompProfile, at.child('securityContext').child('seccompProfile')));
}

/** Objects between prepareForCreate and validate: the create-only rules apply to them. */
const creating = new WeakSet<object>();

const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

export const podStrategy = defineStrategy({
  group: '',
  version: 'v1',
  kind: 'Pod',
  resource: 'pods',
  singular: 'pod',
  shortNames: ['po'],
  categories: ['all'],
  namespaced: true,
  // Upstream pod field label conversion and PodToSelectableFields (status.podIPs is accepted but
  // never set there, so it only matches ""; spec.host is the legacy name of spec.nodeName).
  fieldSelectors: {
    'spec.nodeName': fieldAt('spec.nodeName'),
    'spec.host': fieldAt('spec.nodeName'),
    'spec.restartPolicy': fieldAt('spec.restartPolicy'),
    'spec.schedulerName': fieldAt('spec.schedulerName'),
    'spec.serviceAccountName': fieldAt('spec.serviceAccountName'),
    'spec.hostNetwork': fieldAt('spec.hostNetwork', 'false'),
    'status.phase': fieldAt('status.phase'),
    'status.podIP': fieldAt('status.podIP'),
    'status.podIPs': () => '',
    'status.nominatedNodeName': fieldAt('status.nominatedNodeName'),
  },
  hasStatus: true,
  // pods/binding and pods/eviction (pod-subresources.ts).
  subresources: POD_SUBRESOURCES,
  // Upstream's pod registry sets ReturnDeletedObject. (No graceful deletion here: a delete is immediate.)
  deleteResponse: 'object',
  schema: { spec: podSpecSchema, status: podStatusSchema },
  patchStrategies: POD_PATCH_STRATEGIES,

  defaults(o: ApiObject): void {
    const pod = o as Pod;
    const spec = pod.spec;
    if (spec) {
      spec.restartPolicy ??= 'Always';
      spec.terminationGracePeriodSeconds ??= 30;
      spec.dnsPolicy ??= 'ClusterFirst';
      spec.securityContext ??= {};
      spec.schedulerName ??= 'default-scheduler';
      spec.enableServiceLinks ??= true;
      for (const c of spec.initContainers ?? []) defaultContainer(c);
      for (const c of spec.containers ?? []) defaultContainer(c);
    }
    const st = pod.status;
    if (st) {
      if (st.startTime !== undefined) st.startTime = normalizeTime(st.startTime) as string;
      for (const c of st.conditions ?? []) {
        if (c.lastProbeTime !== undefined) c.lastProbeTime = normalizeTime(c.lastProbeTime) as string;
        if (c.lastTransitionTime !== undefined) c.lastTransitionTime = normalizeTime(c.lastTransitionTime) as string;
      }
    }
  },

  prepareForCreate(o: ApiObject): void {
    const pod = o as Pod;
    creating.add(pod);
    pod.status = { phase: 'Pending', qosClass: qosClass(pod.spec ?? {}) };
  },

  validate(o: ApiObject): FieldError[] {
    const pod = o as Pod;
    const errs: FieldError[] = [];
    validatePodSpec(pod.spec ?? {}, errs);
    // Upstream ValidatePodCreate: ephemeral containers come only through their own subresource.
    if (creating.delete(pod) && (pod.spec?.ephemeralContainers ?? []).length > 0) {
      errs.push(fieldErrors.forbidden(path('spec').child('ephemeralContainers'), 'cannot be set on create'));
    }
    const st = pod.status ?? {};
    if (st.phase !== undefined && !(POD_PHASES as readonly string[]).includes(st.phase)) {
      errs.push(fieldErrors.notSupported(path('status').child('phase'), st.phase, POD_PHASES));
    }
    errs.push(...validateTime(st.startTime, path('status').child('startTime')));
    (st.conditions ?? []).forEach((c, i) => {
      const at = path('status').child('conditions').index(i);
      errs.push(...validateTime(c.lastProbeTime, at.child('lastProbeTime')));
      errs.push(...validateTime(c.lastTransitionTime, at.child('lastTransitionTime')));
    });
    return errs;
  },

  validateUpdate(o: ApiObject, oldObj: ApiObject): FieldError[] {
    const spec = (o as Pod).spec ?? {};
    const old = (oldObj as Pod).spec ?? {};
    const at = path('spec');
    const errs: FieldError[] = [];
    // Upstream: activeDeadlineSeconds may be set, or lowered, but not raised or removed.
    if (spec.activeDeadlineSeconds !== undefined) {
      if (old.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds > old.activeDeadlineSeconds) {
        errs.push(fieldErrors.invalid(at.child('activeDeadlineSeconds'), spec.activeDeadlineSeconds, 'must be less than or equal to previous value'));
      }
    } else if (old.activeDeadlineSeconds !== undefined) {
      errs.push(fieldErrors.invalid(at.child('activeDeadlineSeconds'), null, 'must not update from a positive integer to nil value'));
    }
    // Upstream ValidateImmutableField on spec.schedulingGroup, reported on its own (not as a spec change).
    if (!deepEqual(spec.schedulingGroup, old.schedulingGroup)) {
      errs.push(fieldErrors.invalid(at.child('schedulingGroup'), spec.schedulingGroup ?? null, 'field is immutable'));
    }
    // Everything else of the spec is frozen: compare with the mutable fields taken from the old spec.
    const munged = clone(spec);
    const sameImages = (cur: Container[] | undefined, was: Container[] | undefined): void => {
      if (!cur || !was || cur.length !== was.length) return;
      cur.forEach((c, i) => {
        if (was[i]!.image === undefined) delete c.image;
        else c.image = was[i]!.image;
      });
    };
    sameImages(munged.containers, old.containers);
    sameImages(munged.initContainers, old.initContainers);
    const take = <K extends keyof PodSpec>(k: K): void => {
      if (old[k] === undefined) delete munged[k];
      else munged[k] = old[k];
    };
    take('activeDeadlineSeconds');
    take('terminationGracePeriodSeconds');
    take('schedulingGroup');
    const oldTolerations = old.tolerations ?? [];
    if (oldTolerations.every((ot) => (munged.tolerations ?? []).some((nt) => deepEqual(nt, ot)))) take('tolerations');
    const oldGates = old.schedulingGates ?? [];
    if ((munged.schedulingGates ?? []).every((g) => oldGates.some((og) => deepEqual(g, og)))) take('schedulingGates');
    if (!deepEqual(munged, old)) errs.push(fieldErrors.forbidden(at, SPEC_UPDATE_FORBIDDEN));
    return errs;
  },
});
