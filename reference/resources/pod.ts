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
import { POD_CONNECT_SUBRESOURCES, POD_READ_SUBRESOURCES, POD_SUBRESOURCES } from './pod-subresources.js';

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

const seccompSchema: Schema = t.object(
  {
    type: t.string(
      '`Unconfined` (no seccomp restriction), `RuntimeDefault` (the runtime\'s default profile, which differs between runtimes and versions) or `Localhost` (the profile named by localhostProfile, which must exist on the node).',
    ),
    localhostProfile: t.string(
      'For type Localhost: file name of the profile under /var/lib/agent/seccomp, a relative path without `..`. Must be set for Localhost and only then.',
    ),
  },
  'Seccomp profile. A container without its own inherits the pod\'s; privileged containers always run Unconfined. A missing Localhost profile makes container creation fail with CreateContainerError.',
  ['type'],
);
const appArmorSchema: Schema = t.object(
  {
    type: t.string('Unconfined, RuntimeDefault or Localhost.'),
    localhostProfile: t.string('For type Localhost: name of a profile loaded on the node.'),
  },
  'AppArmor profile; profiles are loaded through the node operating system, not by path.',
);
const seLinuxOptions = (scope: string): Schema => t.any(`SELinux context (user, role, type, level) applied to ${scope}.`);
const windowsOptions = (scope: string): Schema => t.any(`Windows-specific settings of ${scope}.`);

const containerSecurityContextSchema: Schema = t.object(
  {
    capabilities: t.object(
      {
        add: t.array(t.string(), 'Capabilities added to the runtime default set.'),
        drop: t.array(t.string(), 'Capabilities removed from the runtime default set.'),
      },
      'Linux capabilities added to or dropped from the container.',
    ),
    privileged: t.boolean('Runs the container privileged: like root on the host. Privileged containers cannot have a seccomp profile and always run Unconfined.'),
    seLinuxOptions: seLinuxOptions('the container'),
    windowsOptions: windowsOptions('the container'),
    runAsUser: t.integer('UID the container process runs as; overrides the pod setting.'),
    runAsGroup: t.integer('Primary GID of the container process; overrides the pod setting.'),
    runAsNonRoot: t.boolean('If true, the container is refused when it would run as UID 0.'),
    readOnlyRootFilesystem: t.boolean('Mounts the root filesystem of the container read-only.'),
    allowPrivilegeEscalation: t.boolean('Whether a process may gain more privileges than its parent (no_new_privs unset).'),
    procMount: t.string('Default or Unmasked: how /proc is masked in the container.'),
    seccompProfile: t.describe(seccompSchema, 'Seccomp profile of the container; takes priority over the pod\'s, which it inherits when unset.'),
    appArmorProfile: t.describe(appArmorSchema, 'AppArmor profile of the container; overrides the pod\'s.'),
  },
  'Security settings of one container, overriding the pod\'s where both are set.',
);

const podSecurityContextSchema: Schema = t.object(
  {
    seLinuxOptions: seLinuxOptions('every container of the pod'),
    windowsOptions: windowsOptions('every container of the pod'),
    runAsUser: t.integer('UID the container processes run as, unless a container sets its own.'),
    runAsGroup: t.integer('Primary GID of the container processes, unless a container sets its own.'),
    runAsNonRoot: t.boolean('If true, containers are refused when they would run as UID 0.'),
    supplementalGroups: t.array(t.integer(), 'Groups added to the first process of every container.'),
    supplementalGroupsPolicy: t.string('Merge (add the groups of the image\'s /etc/group) or Strict (only the groups given here).'),
    fsGroup: t.integer('Group that owns the pod\'s volumes and is added to every container process.'),
    sysctls: t.array(
      t.object({ name: t.string('Name of the sysctl.'), value: t.string('Value to set.') }, 'One namespaced sysctl.'),
      'Namespaced sysctls set for the pod.',
    ),
    fsGroupChangePolicy: t.string('OnRootMismatch or Always: when volume ownership is changed to fsGroup.'),
    seccompProfile: t.describe(seccompSchema, 'Seccomp profile of the pod, inherited by every container (init and ephemeral too) without its own.'),
    appArmorProfile: t.describe(appArmorSchema, 'AppArmor profile of the containers that set none.'),
    seLinuxChangePolicy: t.string('MountOption or Recursive: how the SELinux label of volumes is applied.'),
  },
  'Security settings of every container of the pod.',
);

const probe = (what: string): Schema => t.any(`Periodic check of the container (exec, httpGet, tcpSocket or grpc, with timing and thresholds): ${what}`);

const containerFields = {
  name: t.string('Name of the container, a DNS label unique within the pod. Cannot be updated.'),
  image: t.string('Container image reference. Must be set.'),
  command: t.array(t.string(), 'Entrypoint, replacing the image\'s ENTRYPOINT; $(VAR) references are expanded from the environment.'),
  args: t.array(t.string(), 'Arguments of the entrypoint, replacing the image\'s CMD.'),
  workingDir: t.string('Working directory of the container; the image default when unset.'),
  ports: t.array(
    t.object(
      {
        name: t.string('Name of the port (an IANA service name), unique within the pod.'),
        hostPort: t.integer('Port on the node the container port is exposed on; rarely needed.'),
        containerPort: t.integer('Port the container listens on, 1 to 65535.'),
        protocol: t.string('TCP (the default), UDP or SCTP.'),
        hostIP: t.string('Node IP the host port binds to.'),
      },
      'A network port of the container.',
      ['containerPort'],
    ),
    'Ports the container exposes (informational). Merged on containerPort and protocol.',
  ),
  envFrom: t.array(t.any('A ConfigMap or Secret whose keys become environment variables, with an optional prefix.'), 'Sources of environment variables, applied before env.'),
  env: t.array(
    t.object(
      {
        name: t.string('Name of the variable.'),
        value: t.string('Value; $(VAR) references to earlier variables are expanded.'),
        valueFrom: t.any('Source of the value: a field of the pod, a resource of the container, or a key of a ConfigMap or Secret.'),
      },
      'One environment variable.',
    ),
    'Environment variables of the container. Merged on name.',
  ),
  resources: t.object(
    {
      limits: t.describe(resourceListSchema, 'Most of each resource the container may use.'),
      requests: t.describe(resourceListSchema, 'Least of each resource the container needs, used for scheduling; defaults to the limits.'),
      claims: t.array(t.any('The name of one entry of the pod\'s spec.resourceClaims.'), 'Dynamically allocated resources (of spec.resourceClaims) the container uses.'),
    },
    'Compute resources of the container.',
  ),
  resizePolicy: t.array(t.any('Whether resizing one resource needs a container restart.'), 'How the container is resized in place, per resource.'),
  restartPolicy: t.string('For init containers only: Always makes it a sidecar that runs alongside the regular containers.'),
  restartPolicyRules: t.array(t.any('An exit-code rule and its action.'), 'Rules deciding on a restart by exit code, before restartPolicy.'),
  volumeMounts: t.array(
    t.object(
      {
        name: t.string('Name of a volume of the pod.'),
        readOnly: t.boolean('Mounts the volume read-only.'),
        recursiveReadOnly: t.string('Disabled, IfPossible or Enabled: whether read-only applies to submounts too.'),
        mountPath: t.string('Path in the container where the volume is mounted; must not contain \':\'.'),
        subPath: t.string('Path within the volume to mount instead of its root.'),
        mountPropagation: t.string('None, HostToContainer or Bidirectional: how mounts propagate between host and container.'),
        subPathExpr: t.string('Like subPath, with $(VAR) references expanded from the environment.'),
      },
      'A volume mounted into the container.',
      ['name', 'mountPath'],
    ),
    'Volumes mounted into the container. Merged on mountPath.',
  ),
  volumeDevices: t.array(t.any('A raw block volume and the device path it appears at.'), 'Block devices the container uses. Merged on devicePath.'),
  livenessProbe: probe('the container is restarted when it fails.'),
  readinessProbe: probe('the container receives no service traffic while it fails.'),
  startupProbe: probe('the other probes wait until it succeeds; failing it restarts the container.'),
  lifecycle: t.any('Actions run after the container starts (postStart) and before it stops (preStop).'),
  terminationMessagePath: t.string('File whose content becomes the termination message. Default /dev/termination-log.'),
  terminationMessagePolicy: t.string('File (the default) or FallbackToLogsOnError (the log tail when the file is empty and the container failed).'),
  imagePullPolicy: t.string('Always, Never or IfNotPresent. Default Always for :latest or untagged images, IfNotPresent otherwise.'),
  securityContext: containerSecurityContextSchema,
  stdin: t.boolean('Keeps a buffer for stdin in the container runtime.'),
  stdinOnce: t.boolean('Closes stdin after the first client detaches.'),
  tty: t.boolean('Allocates a TTY; needs stdin.'),
};
const containerSchema: Schema = t.object(containerFields, 'A container of the pod.', ['name']);
const ephemeralContainerSchema: Schema = t.object(
  { ...containerFields, targetContainerName: t.string('Container whose namespaces (such as the process namespace) the ephemeral container joins.') },
  'A temporary container added to a running pod for debugging.',
  ['name'],
);

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

const podSpecSchema: Schema = t.object(
  {
    volumes: t.array(t.any('A named volume and its source (emptyDir, hostPath, configMap, secret, persistentVolumeClaim, ...).'), 'Volumes the containers can mount. Merged on name.'),
    initContainers: t.array(containerSchema, 'Containers run one after another, each to completion, before the regular containers start (sidecars with restartPolicy Always keep running). Merged on name.'),
    containers: t.array(containerSchema, 'The containers of the pod; at least one. Merged on name.'),
    ephemeralContainers: t.array(ephemeralContainerSchema, 'Debugging containers added to the running pod through its ephemeralcontainers subresource; not on create. Merged on name.'),
    restartPolicy: t.string('Always (the default), OnFailure or Never: whether the agent restarts exited containers.'),
    terminationGracePeriodSeconds: t.integer('Seconds the containers get to stop after the termination signal before they are killed. Default 30.'),
    activeDeadlineSeconds: t.integer('Seconds the pod may be active, counted from its start, before the agent fails it. May be lowered, not raised or removed.'),
    dnsPolicy: t.string('ClusterFirst (the default), ClusterFirstWithHostNet, Default or None: how the DNS resolver of the pod is set up.'),
    nodeSelector: t.map(t.string(), 'Labels a node must carry for the pod to be scheduled there.'),
    serviceAccountName: t.string('Service account the pod runs as.'),
    serviceAccount: t.string('Deprecated alias of serviceAccountName.'),
    automountServiceAccountToken: t.boolean('Whether a service account token is mounted into the containers.'),
    nodeName: t.string(
      'Node the pod is bound to. The agent of that node runs it (its sync loop takes the pods whose nodeName matches); set by the scheduler through the binding subresource, or directly to skip scheduling.',
    ),
    hostNetwork: t.boolean('Uses the network namespace of the node.'),
    hostPID: t.boolean('Uses the process namespace of the node.'),
    hostIPC: t.boolean('Uses the IPC namespace of the node.'),
    shareProcessNamespace: t.boolean('Puts all containers of the pod in one process namespace.'),
    securityContext: podSecurityContextSchema,
    imagePullSecrets: t.array(t.object({ name: t.string('Name of the Secret.') }, 'A Secret in the pod\'s namespace.'), 'Secrets with registry credentials used to pull the images. Merged on name.'),
    hostname: t.string('Host name of the pod; defaults to the pod name.'),
    subdomain: t.string('With hostname, gives the pod the name <hostname>.<subdomain>.<namespace>.svc.<cluster domain>.'),
    affinity: t.any('Node affinity and pod (anti-)affinity scheduling rules.'),
    schedulerName: t.string('Scheduler that schedules the pod. Default default-scheduler.'),
    tolerations: t.array(
      t.object(
        {
          key: t.string('Taint key matched; empty with operator Exists matches every taint.'),
          operator: t.string('Equal (the default: the value must match) or Exists (any value).'),
          value: t.string('Taint value matched with operator Equal.'),
          effect: t.string('Taint effect matched (NoSchedule, PreferNoSchedule, NoExecute); empty matches all.'),
          tolerationSeconds: t.integer('For NoExecute: how long the pod stays bound after the taint appears; unset means forever.'),
        },
        'Tolerates the taints it matches.',
      ),
      'Taints the pod tolerates. Only additions are allowed on update.',
    ),
    hostAliases: t.array(t.any('An IP address and the host names that resolve to it.'), 'Entries added to the /etc/hosts of the containers. Merged on ip.'),
    priorityClassName: t.string('Priority class of the pod; sets priority.'),
    priority: t.integer('Priority of the pod, taken from its priority class by admission.'),
    dnsConfig: t.any('DNS resolver parameters (nameservers, searches, options) added to those of dnsPolicy.'),
    readinessGates: t.array(t.any('A pod condition type.'), 'Extra conditions that must be True for the pod to be ready.'),
    runtimeClassName: t.string('RuntimeClass (container runtime handler) the pod runs with.'),
    enableServiceLinks: t.boolean('Whether service information is injected as environment variables. Default true.'),
    preemptionPolicy: t.string('PreemptLowerPriority (the default) or Never: whether the pod may preempt pods of lower priority.'),
    overhead: t.describe(resourceListSchema, 'Resources the pod sandbox itself takes, on top of the containers\' requests; set by admission from the RuntimeClass.'),
    topologySpreadConstraints: t.array(t.any('How evenly pods are spread over one topology key.'), 'How the pod is spread over topology domains with similar pods. Merged on topologyKey and whenUnsatisfiable.'),
    setHostnameAsFQDN: t.boolean('Makes the host name of the containers the fully qualified domain name.'),
    os: t.object({ name: t.string('linux or windows.') }, 'Operating system the pod needs.'),
    hostUsers: t.boolean('Whether the pod uses the user namespace of the host (false: a user namespace of its own).'),
    schedulingGates: t.array(
      t.object({ name: t.string('Name of the gate (a qualified name), unique in the pod.') }, 'One scheduling gate.', ['name']),
      'Gates that keep the pod from being scheduled while any remain; only removals are allowed. Merged on name.',
    ),
    resourceClaims: t.array(t.any('A named reference to a ResourceClaim or ResourceClaimTemplate.'), 'Dynamically allocated resources the pod uses. Merged on name.'),
    resources: t.any('Compute resources of the pod as a whole (requests and limits shared by its containers).'),
    hostnameOverride: t.string('Host name for the pod, in place of the one derived from hostname and subdomain.'),
    // The PodGroup the pod belongs to (spec 000 §2.5: pods with spec.schedulingGroup set; upstream
    // 1.37 PodSchedulingGroup `{podGroupName}`, immutable).
    schedulingGroup: t.object(
      { podGroupName: t.string('Name of the PodGroup in the pod\'s namespace.') },
      'The PodGroup the pod belongs to, scheduled with its group. Immutable. Pods with it set cannot be the target of an EvictionRequest.',
      ['podGroupName'],
    ),
  },
  'Desired state of the pod.',
  ['containers'],
);

const podStatusSchema: Schema = t.object(
  {
    observedGeneration: t.integer('The metadata.generation the status was computed from.'),
    phase: t.string('Pending, Running, Succeeded, Failed or Unknown: where the pod is in its lifecycle.'),
    conditions: t.array(
      t.object(
        {
          type: t.string('PodScheduled, Initialized, ContainersReady, Ready, DisruptionTarget, or a readiness gate.'),
          observedGeneration: t.integer('The metadata.generation the condition was computed from.'),
          status: t.string('True, False or Unknown.'),
          lastProbeTime: t.string('Last time the condition was probed.'),
          lastTransitionTime: t.string('Last time the status changed.'),
          reason: t.string('Machine-readable CamelCase reason for the last transition.'),
          message: t.string('Human-readable details about the last transition.'),
        },
        'One condition of the pod.',
      ),
      'Current conditions of the pod. Merged on type.',
    ),
    message: t.string('Human-readable reason the pod is in its phase.'),
    reason: t.string('Machine-readable reason the pod is in its phase (such as Evicted).'),
    nominatedNodeName: t.string('Node the scheduler preempted pods on for this pod; it may still land elsewhere.'),
    hostIP: t.string('Primary IP of the node the pod runs on.'),
    hostIPs: t.array(t.object({ ip: t.string('An IP address.') }, 'One IP of the node.'), 'IPs of the node, at most one per family; the first is hostIP. Merged on ip.'),
    podIP: t.string('Primary IP of the pod.'),
    podIPs: t.array(t.object({ ip: t.string('An IP address.') }, 'One IP of the pod.'), 'IPs of the pod, at most one per family; the first is podIP. Merged on ip.'),
    startTime: t.string('When the agent acknowledged the pod, before pulling images.'),
    initContainerStatuses: t.array(t.any('State, restarts and image of one container.'), 'Status of the init containers, as the agent observes them.'),
    containerStatuses: t.array(t.any('State, restarts and image of one container.'), 'Status of the containers, as the agent observes them.'),
    qosClass: t.string('Guaranteed, Burstable or BestEffort, from the containers\' requests and limits.'),
    ephemeralContainerStatuses: t.array(t.any('State, restarts and image of one container.'), 'Status of the ephemeral containers.'),
    resize: t.string('Deprecated: progress of an in-place resize.'),
    resourceClaimStatuses: t.array(t.any('The ResourceClaim made for one entry of spec.resourceClaims.'), 'Claims generated for the pod. Merged on name.'),
    extendedResourceClaimStatus: t.any('The claim made for the pod\'s extended resources, when dynamic resource allocation backs them.'),
  },
  'Observed state of the pod, written by the scheduler and the node agent.',
);

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
  // pods/exec, pods/attach, pods/portforward (reference/apiserver/pod-streaming.ts).
  connectSubresources: POD_CONNECT_SUBRESOURCES,
  // pods/log (pod-log.ts).
  readSubresources: POD_READ_SUBRESOURCES,
  // Upstream's pod registry sets ReturnDeletedObject.
  deleteResponse: 'object',
  description: 'One or more containers run together on a node, sharing network and storage; the node agent runs the pods bound to its node.',
  schema: { spec: podSpecSchema, status: podStatusSchema },
  patchStrategies: POD_PATCH_STRATEGIES,

  /**
   * Upstream podStrategy.CheckGracefulDelete: the requested grace period, else the pod's
   * terminationGracePeriodSeconds; 0 (deleted at once) for a pod no node runs (unbound) or one that
   * has finished (Succeeded, Failed). A bound pod stays, terminating, until its agent has stopped it
   * and deletes it with grace 0.
   */
  gracefulDeletePeriod(o: ApiObject, requested: number | undefined): number {
    const pod = o as Pod;
    if (!pod.spec?.nodeName) return 0;
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return 0;
    return requested ?? pod.spec.terminationGracePeriodSeconds ?? 0;
  },

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
