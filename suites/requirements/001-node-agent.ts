// Requirements of spec document 001: the node agent interfaces
// (checkpoint, pod info stream, local files, node status, configuration merge, seccomp, watchdog).
// One entry per checkable rule, in spec order. Ground-truth entries fill the spec's "not shown" gaps.
import type { Requirement } from './types.js';

export const NODE_AGENT: readonly Requirement[] = [
  // ---------------------------------------------------------------- 1. What the service does
  {
    id: '001-1-stateless-per-node',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'MUST', source: 'spec',
    text: 'The node agent runs on every node as a stateless process.',
  },
  {
    id: '001-1-sources-of-truth',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'MUST', source: 'spec',
    text: 'The agent treats the control plane as the source of truth for what must run on the node, and the container runtime (through CRI) as the source of truth for the state of containers.',
  },
  {
    id: '001-1-standalone-mode',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'MUST', source: 'spec',
    text: 'When given an API client configuration the agent connects to the control plane; otherwise it runs in standalone mode.',
  },
  {
    id: '001-1-local-interfaces',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'MUST', source: 'spec',
    text: 'The agent creates and watches pods, publishes node status and heartbeats, and offers local interfaces: container checkpointing over HTTP and a pod info gRPC service on a local socket.',
  },
  {
    id: '001-1-sync-loop-assigned-pods',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'MUST', source: 'spec',
    text: 'The sync loop queues work for pods assigned to the node (nodeName matches), aggregated from several sources.',
  },
  {
    id: '001-1-sync-loop-pod-worker',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'MUST', source: 'spec',
    text: 'In each sync pass, a per-pod worker reconciles the desired pod state with the state of running containers by running one pod-sync function (SyncPod, SyncTerminatingPod or SyncTerminatedPod).',
  },
  {
    id: '001-1-cri-client',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'MUST', source: 'spec',
    text: 'To run containers the agent acts as a CRI client: it asks the runtime to create a pod sandbox, then creates and starts each container as defined by the pod spec.',
  },
  {
    id: '001-1-pleg-polling',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'MUST', source: 'spec',
    text: 'A pod lifecycle event generator (PLEG) polls the runtime periodically for container states; its events wake the sync loop to update pod status.',
  },
  {
    id: '001-1-status-lag',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'spec',
    text: 'Because of polling, pod status visible through the API may lag the real node state slightly.',
  },
  {
    id: '001-1-cri-services',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    text: 'CRI is the gRPC package `runtime.v1` with services `RuntimeService` and `ImageService`; timestamps are int64 nanoseconds.',
  },
  {
    id: '001-1-cri-version',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    text: 'CRI VersionResponse fields: version 1, runtime_name 2, runtime_version 3, runtime_api_version 4.',
  },
  {
    id: '001-1-cri-run-pod-sandbox',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    text: 'CRI RunPodSandboxRequest{config 1, runtime_handler 2} returns {pod_sandbox_id 1}; PodSandboxConfig{metadata 1, hostname 2, log_directory 3, dns_config 4, port_mappings 5, labels 6, annotations 7, linux 8}; PodSandboxMetadata{name 1, uid 2, namespace 3, attempt 4}.',
  },
  {
    id: '001-1-cri-create-container',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    text: 'CRI CreateContainerRequest{pod_sandbox_id 1, config 2, sandbox_config 3} returns {container_id 1}; ContainerConfig{metadata 1, image 2, command 3, args 4, working_dir 5, envs 6, mounts 7, devices 8, labels 9, annotations 10, log_path 11, stdin 12, stdin_once 13, tty 14, linux 15}; ContainerMetadata{name 1, attempt 2}; ImageSpec{image 1, annotations 2}.',
  },
  {
    id: '001-1-cri-container-lifecycle',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    text: 'CRI StartContainerRequest and RemoveContainerRequest are {container_id 1}; StopContainerRequest is {container_id 1, timeout 2}.',
  },
  {
    id: '001-1-cri-list-containers',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    text: 'CRI ListContainersRequest{filter 1}; ContainerFilter{id 1, state 2, pod_sandbox_id 3, label_selector 4}; ListContainersResponse{containers 1}; Container{id 1, pod_sandbox_id 2, metadata 3, image 4, image_ref 5, state 6, created_at 7, labels 8, annotations 9}; ContainerState CONTAINER_CREATED 0, CONTAINER_RUNNING 1, CONTAINER_EXITED 2, CONTAINER_UNKNOWN 3.',
  },
  {
    id: '001-1-cri-container-status',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    text: 'CRI ContainerStatusRequest{container_id 1, verbose 2} returns {status 1, info 2}; ContainerStatus{id 1, metadata 2, state 3, created_at 4, started_at 5, finished_at 6, exit_code 7, image 8, image_ref 9, reason 10, message 11, labels 12, annotations 13}.',
  },
  {
    id: '001-1-cri-checkpoint-container',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    text: 'CRI CheckpointContainerRequest{container_id 1, location 2, timeout 3} returns {}; real runtimes that lack CheckpointContainer answer UNIMPLEMENTED.',
  },
  {
    id: '001-1-cri-pod-sandboxes',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    text: 'CRI ListPodSandboxRequest returns {items 1}; PodSandbox{id 1, metadata 2, state 3, created_at 4, labels 5, annotations 6, runtime_handler 7}; SANDBOX_READY 0, SANDBOX_NOTREADY 1.',
  },
  {
    id: '001-1-cri-runtime-status',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    text: 'CRI StatusRequest{verbose 1} returns {status 1, info 2}; RuntimeStatus{conditions 1}; RuntimeCondition{type 1, status 2, reason 3, message 4}; RuntimeReady and NetworkReady are expected true.',
  },
  {
    id: '001-1-cri-stats-metrics',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    text: 'CRI ListPodSandboxStatsRequest{filter 1} returns {stats 1}; ListPodSandboxMetricsRequest{} returns {pod_metrics 1}; PodSandboxMetrics{pod_sandbox_id 1, metrics 2, container_metrics 3}; Metric{name 1, timestamp 2, metric_type 3, label_values 4, value 5 (UInt64Value{value 1})}.',
  },
  {
    id: '001-1-pod-containers-required',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: "The pods the agent runs come from the control plane's Pod resource (core v1, namespaced, status subresource); a Pod's spec.containers needs at least one container (`spec.containers: Required value`).",
  },
  {
    id: '001-1-pod-container-name',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: 'A container name is a DNS-1123 label, unique across containers, initContainers and ephemeralContainers (`Duplicate value`).',
  },
  {
    id: '001-1-pod-container-image-required',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: 'Each container (and init container) needs an image (`spec.containers[i].image: Required value`).',
  },
  {
    id: '001-1-pod-ephemeral-containers-not-on-create',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: 'ephemeralContainers cannot be set when a Pod is created: `spec.ephemeralContainers: Forbidden: cannot be set on create`.',
  },
  {
    id: '001-1-pod-graceful-deletion',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: 'Deleting a pod bound to a node only marks it (upstream pod strategy): metadata.deletionTimestamp is the time of the delete plus the grace period, and deletionGracePeriodSeconds the grace period (gracePeriodSeconds of the delete, else spec.terminationGracePeriodSeconds); the pod stays, terminating, for its agent to run SyncTerminatingPod. A delete with gracePeriodSeconds 0 (the agent\'s final delete, or a forced one) removes it at once; so does any delete of a pod bound to no node.',
  },
  {
    id: '001-1-sync-terminating-final-delete',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    text: 'For a pod marked for deletion the agent runs SyncTerminatingPod and SyncTerminatedPod before the pod leaves the API: it stops the containers through the CRI (StopContainer with the grace period), reports the final status, and then deletes the pod itself with grace period 0 and a precondition on its uid.',
  },
  {
    id: '001-1-terminating-pod-waits-for-agent',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    surface: 'controllers',
    text: 'A terminating pod whose node\'s agent does not finish it stays terminating, past its grace period: neither the API server nor a controller removes it while its node exists and is not out of service (upstream: the pod garbage collector removes terminating pods only on nodes that are NotReady and tainted out-of-service, and pods of nodes that no longer exist).',
  },
  {
    id: '001-1-pod-node-name',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: 'spec.nodeName assigns the pod to a node (the agent syncs the pods whose nodeName matches its node); it is a DNS-1123 subdomain.',
  },
  {
    id: '001-1-pod-spec-immutable',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: "A Pod's spec cannot change after creation except the images of containers and init containers, activeDeadlineSeconds (set or lowered), additions to tolerations, terminationGracePeriodSeconds and removals of schedulingGates: `spec: Forbidden: pod updates may not change fields other than ...`.",
  },
  {
    id: '001-1-pod-initial-status',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: 'A created Pod starts with status.phase Pending (whatever status the client sent), with its qosClass computed.',
  },
  {
    id: '001-1-pod-status-phase',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: 'Pod status.phase is Pending, Running, Succeeded, Failed or Unknown; another value is rejected (Unsupported value).',
  },
  {
    id: '001-1-pod-scheduling-group',
    doc: '001', section: '1', sectionTitle: 'What the service does', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: 'spec.schedulingGroup (`{podGroupName}`) names the PodGroup a pod belongs to: podGroupName is required in it and a DNS-1123 subdomain; stored as given; the field is immutable (`field is immutable`).',
  },

  // ---------------------------------------------------------------- 2.1 Local files and sockets (informational per the spec)
  {
    id: '001-2.1-root-dir-default',
    doc: '001', section: '2.1', sectionTitle: 'Local files and sockets', level: 'MUST', source: 'spec',
    text: 'The agent\'s base directory `<root_dir>` defaults to `/var/lib/agent` and is set with `--root-dir`.',
  },
  {
    id: '001-2.1-windows-paths',
    doc: '001', section: '2.1', sectionTitle: 'Local files and sockets', level: 'SHOULD', source: 'spec',
    text: 'On Windows the listed Linux paths are prefixed with the root drive `C:\\` in place of `/` unless stated.',
  },
  {
    id: '001-2.1-config-file',
    doc: '001', section: '2.1', sectionTitle: 'Local files and sockets', level: 'SHOULD', source: 'spec',
    text: 'The agent configuration file path comes from `--config`, with a drop-in directory from `--config-dir`.',
  },
  {
    id: '001-2.1-cert-dir',
    doc: '001', section: '2.1', sectionTitle: 'Local files and sockets', level: 'SHOULD', source: 'spec',
    text: 'Certificates and private keys live in `<root_dir>/pki` by default, configurable with `--cert-dir`; file names are configurable.',
  },
  {
    id: '001-2.1-static-pod-path',
    doc: '001', section: '2.1', sectionTitle: 'Local files and sockets', level: 'SHOULD', source: 'spec',
    text: 'Static pod manifests are read from `/etc/orch/manifests` by default, configurable with the `staticPodPath` option.',
  },
  {
    id: '001-2.1-resource-manager-state',
    doc: '001', section: '2.1', sectionTitle: 'Local files and sockets', level: 'SHOULD', source: 'spec',
    text: 'Resource manager state is kept in `<root_dir>` files `memory_manager_state`, `cpu_manager_state` and `dra_manager_state`.',
  },
  {
    id: '001-2.1-device-manager-checkpoint',
    doc: '001', section: '2.1', sectionTitle: 'Local files and sockets', level: 'SHOULD', source: 'spec',
    text: 'The device manager checkpoint file is named `agent_internal_checkpoint`; its path is hard-coded, not relative to the root dir.',
  },
  {
    id: '001-2.1-pod-allocation-records',
    doc: '001', section: '2.1', sectionTitle: 'Local files and sockets', level: 'SHOULD', source: 'spec',
    text: 'Pod resource allocation records `allocated_pods_state` (resources allocated to each pod) and `actuated_pods_state` (resources accepted and applied by the runtime) live in `<root_dir>` and are used when in-place pod resize is enabled (GA and locked since 1.35; gate InPlacePodVerticalScaling ignored if set).',
  },
  {
    id: '001-2.1-runtime-sockets',
    doc: '001', section: '2.1', sectionTitle: 'Local files and sockets', level: 'SHOULD', source: 'spec',
    text: 'Runtime sockets are configured by `containerRuntimeEndpoint` (runtime operations) and `imageServiceEndpoint` (image operations).',
  },
  {
    id: '001-2.1-device-plugin-socket',
    doc: '001', section: '2.1', sectionTitle: 'Local files and sockets', level: 'SHOULD', source: 'spec',
    text: 'The device plugin registration socket is `/var/lib/agent/device-plugins/agent.sock`; plugin sockets must be inside `/var/lib/agent/device-plugins/`; the path is hard-coded, not relative to the root dir.',
  },
  {
    id: '001-2.1-pod-resources-socket',
    doc: '001', section: '2.1', sectionTitle: 'Local files and sockets', level: 'SHOULD', source: 'spec',
    text: 'The pod resources API socket is `<root_dir>/pod-resources`.',
  },
  {
    id: '001-2.1-plugins-registry',
    doc: '001', section: '2.1', sectionTitle: 'Local files and sockets', level: 'SHOULD', source: 'spec',
    text: 'The plugin registration directory is `<root_dir>/plugins_registry`; dynamic resource allocation, storage and device plugins place socket files there and the agent discovers and connects to them.',
  },
  {
    id: '001-2.1-graceful-shutdown-state',
    doc: '001', section: '2.1', sectionTitle: 'Local files and sockets', level: 'SHOULD', source: 'spec',
    text: 'Graceful node shutdown state is kept in `/var/lib/agent/graceful_node_shutdown_state` (beta since 1.21, on by default).',
  },
  {
    id: '001-2.1-image-pull-records',
    doc: '001', section: '2.1', sectionTitle: 'Local files and sockets', level: 'SHOULD', source: 'spec',
    text: 'Image pull records (attempts and successes, used to verify an image was pulled with the same credentials) live in directory `image_manager` under the root dir with subdirectories `pulling` and `pulled` (the latter also holds credential metadata); beta since 1.35, on by default.',
  },
  {
    id: '001-2.1-seccomp-profiles-dir',
    doc: '001', section: '2.1', sectionTitle: 'Local files and sockets', level: 'SHOULD', source: 'spec',
    text: 'Seccomp profiles live in `/var/lib/agent/seccomp`.',
  },
  {
    id: '001-2.1-apparmor-profiles',
    doc: '001', section: '2.1', sectionTitle: 'Local files and sockets', level: 'SHOULD', source: 'spec',
    text: 'AppArmor profiles are not loaded by path; they are loaded through the node operating system.',
  },
  {
    id: '001-2.1-lock-file',
    doc: '001', section: '2.1', sectionTitle: 'Local files and sockets', level: 'SHOULD', source: 'spec',
    text: 'The lock file `/var/run/agent.lock` (set with `--lock-file`, alpha since 1.2) prevents two conflicting agents; two agents using different lock paths do not detect the conflict.',
  },
  {
    id: '001-2.1-pod-info-socket',
    doc: '001', section: '2.1', sectionTitle: 'Local files and sockets', level: 'SHOULD', source: 'spec',
    text: 'The pod info socket is `/var/lib/agent/pods/agent.sock`.',
  },
  {
    id: '001-2.1-metrics-sources',
    doc: '001', section: '2.1', sectionTitle: 'Local files and sockets', level: 'SHOULD', source: 'spec',
    text: 'On Linux, metrics are gathered from control groups and system files; on Windows by other mechanisms; both feed the node metrics of document 002.',
  },

  // ---------------------------------------------------------------- 2.2 Node status fields
  {
    id: '001-2.2-addresses',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'MUST', source: 'spec',
    text: 'Node status `addresses` lists `HostName` (reported by the node kernel), `ExternalIP` (usually routable from outside the cluster) and `InternalIP` (usually routable only inside the cluster); usage depends on cloud provider or hardware configuration.',
  },
  {
    id: '001-2.2-hostname-override',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'MUST', source: 'spec',
    text: 'The node `HostName` address can be overridden with `--hostname-override`.',
  },
  {
    id: '001-2.2-conditions',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'MUST', source: 'spec',
    text: 'Node status `conditions` is an array describing all Running nodes.',
  },
  {
    id: '001-2.2-condition-entry',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'MUST', source: 'spec',
    text: 'A node condition entry has `type` (string), `status`, `reason` (string), `message` (string), `lastHeartbeatTime` (timestamp) and `lastTransitionTime` (timestamp).',
  },
  {
    id: '001-2.2-condition-status-values',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'MUST', source: 'spec',
    text: 'A node condition `status` is `True`, `False` or `Unknown`.',
  },
  {
    id: '001-2.2-capacity',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'MUST', source: 'spec',
    text: 'Node status `capacity` gives the total resources of the node: CPU, memory, maximum number of pods.',
  },
  {
    id: '001-2.2-allocatable',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'MUST', source: 'spec',
    text: 'Node status `allocatable` gives the amount available to ordinary pods.',
  },
  {
    id: '001-2.2-info',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'MUST', source: 'spec',
    text: 'Node status `info` gives general information collected and published by the agent: kernel version, service versions (agent and proxy), container runtime details, operating system.',
  },
  {
    id: '001-2.2-declared-features',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'MUST', source: 'spec',
    text: 'Node `.status.declaredFeatures` is a list of strings naming features under active development currently enabled through feature gates on the agent.',
  },
  {
    id: '001-2.2-declared-features-no-baseline',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'MUST', source: 'spec',
    text: 'Completed (baseline) features are not listed in `.status.declaredFeatures`.',
  },
  {
    id: '001-2.2-declared-features-service-enablement',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'MUST', source: 'spec',
    text: '`.status.declaredFeatures` reflects service feature enablement, not the node\'s operating system or kernel.',
  },
  {
    id: '001-2.2-declared-features-ga',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'MUST', source: 'spec',
    text: 'Node declared features are GA since 1.37; the gate NodeDeclaredFeatures is locked and ignored if set.',
  },
  {
    id: '001-2.2-scheduling-disabled-not-condition',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'MUST', source: 'spec',
    text: '`SchedulingDisabled` (shown by command-line listings of a cordoned node) is not a condition in the API.',
  },
  {
    id: '001-2.2-cordoned-unschedulable',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'MUST', source: 'spec',
    text: 'A cordoned node is marked unschedulable in its spec.',
  },
  {
    id: '001-2.2-heartbeats',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'MUST', source: 'spec',
    text: 'Node heartbeats come in two forms: updates of the node\'s `.status`, and a Lease object per node in the namespace `node-lease`.',
  },
  {
    id: '001-2.2-agent-status-and-lease',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'MUST', source: 'spec',
    text: 'The agent creates and updates the node\'s `.status` and updates the node\'s Lease.',
  },
  {
    id: '001-2.2-node-labels',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'SHOULD', source: 'spec',
    text: 'Values of node labels set by the agent are provider-specific and not guaranteed reliable (the hostname label may or may not equal the node name).',
  },
  {
    id: '001-2.2-own-labels',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'MUST', source: 'spec',
    text: 'Own node labels may be set through agent configuration or through the API.',
  },

  {
    id: '001-2.2-address-types',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: "A node address has a type, one of `HostName` (upstream's wire value `Hostname`), `ExternalIP`, `InternalIP` (and upstream's `InternalDNS`, `ExternalDNS`), and an address; another type is rejected (Unsupported value).",
  },
  {
    id: '001-2.2-address-unique',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: "A node's status.addresses has no duplicate entry (`status.addresses[i]: Duplicate value`).",
  },
  {
    id: '001-2.2-resources-non-negative',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: 'Node capacity and allocatable values are quantities that are not negative: `status.capacity.<resource>: Invalid value: ...: must be greater than or equal to 0`.',
  },
  {
    id: '001-2.2-node-status-subresource',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: 'Node (core v1, cluster-scoped) has a status subresource: status written through /status keeps the spec, and the main resource keeps the status; the status sent when the node is created is kept (the agent registers its node with status).',
  },
  {
    id: '001-2.2-lease-object',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'SHOULD', source: 'ground-truth',
    text: 'The heartbeat Lease is `coordination.orch.io/v1` Lease (namespaced) with spec holderIdentity, leaseDurationSeconds, acquireTime and renewTime (MicroTime: microsecond precision), leaseTransitions, strategy and preferredHolder.',
  },
  {
    id: '001-2.2-lease-duration-positive',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: 'Lease spec.leaseDurationSeconds, when set, is greater than 0 (`must be greater than 0`).',
  },
  {
    id: '001-2.2-lease-transitions-non-negative',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: 'Lease spec.leaseTransitions, when set, is not negative (`must be greater than or equal to 0`).',
  },
  {
    id: '001-2.2-lease-strategy',
    doc: '001', section: '2.2', sectionTitle: 'Node status fields', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: 'Lease spec.strategy is `OldestEmulationVersion` or a prefixed qualified name; spec.preferredHolder needs a strategy (`may only be specified if `strategy` is defined`).',
  },

  // ---------------------------------------------------------------- 2.3 Configuration keys named
  {
    id: '001-2.3-config-kind',
    doc: '001', section: '2.3', sectionTitle: 'Configuration keys named', level: 'MUST', source: 'spec',
    text: 'The agent configuration object is typed by `apiVersion` `agent.config.orch.io/v1beta1` and `kind` `AgentConfiguration`.',
  },
  {
    id: '001-2.3-config-keys',
    doc: '001', section: '2.3', sectionTitle: 'Configuration keys named', level: 'MUST', source: 'spec',
    text: 'The agent configuration accepts the keys `port`, `address`, `authorization` (`mode`, `webhook.cacheAuthorizedTTL`, `webhook.cacheUnauthorizedTTL`), `serializeImagePulls`, `clusterDNS`, `featureGates`, `staticPodURLHeader`, `containerRuntimeEndpoint`, `imageServiceEndpoint` and `staticPodPath`.',
  },
  {
    id: '001-2.3-config-key-types',
    doc: '001', section: '2.3', sectionTitle: 'Configuration keys named', level: 'MUST', source: 'spec',
    text: 'Agent configuration `clusterDNS` is a list, `featureGates` a map of name to boolean, and `staticPodURLHeader` a map of string to list of strings.',
  },
  {
    id: '001-2.3-proxy-nftables-skip-kernel-check',
    doc: '001', section: '2.3', sectionTitle: 'Configuration keys named', level: 'MUST', source: 'spec',
    text: 'The proxy configuration has the key `nftables.skipKernelVersionCheck`.',
  },

  // ---------------------------------------------------------------- 2.4 Seccomp fields
  {
    id: '001-2.4-seccomp-profile-placement',
    doc: '001', section: '2.4', sectionTitle: 'Seccomp fields', level: 'MUST', source: 'spec',
    text: '`seccompProfile` may be set in a security context at pod level, and in each container, init container and ephemeral container.',
  },
  {
    id: '001-2.4-seccomp-localhost-profile',
    doc: '001', section: '2.4', sectionTitle: 'Seccomp fields', level: 'MUST', source: 'spec',
    text: '`seccompProfile` has `type` and, for `Localhost`, `localhostProfile`: a file name under `/var/lib/agent/seccomp`.',
  },
  {
    id: '001-2.4-seccomp-type-unconfined',
    doc: '001', section: '2.4', sectionTitle: 'Seccomp fields', level: 'MUST', source: 'spec',
    text: 'seccompProfile type `Unconfined` means no seccomp restriction.',
  },
  {
    id: '001-2.4-seccomp-type-runtime-default',
    doc: '001', section: '2.4', sectionTitle: 'Seccomp fields', level: 'MUST', source: 'spec',
    text: 'seccompProfile type `RuntimeDefault` means the runtime\'s default profile (which differs between runtimes and versions).',
  },
  {
    id: '001-2.4-seccomp-type-localhost',
    doc: '001', section: '2.4', sectionTitle: 'Seccomp fields', level: 'MUST', source: 'spec',
    text: 'seccompProfile type `Localhost` means the profile named by `localhostProfile`, which must exist on the node.',
  },
  {
    id: '001-2.4-seccomp-inherit-pod',
    doc: '001', section: '2.4', sectionTitle: 'Seccomp fields', level: 'MUST', source: 'spec',
    text: 'A container (or init or ephemeral container) without its own seccompProfile inherits the pod\'s.',
  },
  {
    id: '001-2.4-seccomp-container-priority',
    doc: '001', section: '2.4', sectionTitle: 'Seccomp fields', level: 'MUST', source: 'spec',
    text: 'A container\'s own seccompProfile takes priority over the pod\'s.',
  },
  {
    id: '001-2.4-seccomp-privileged-unconfined',
    doc: '001', section: '2.4', sectionTitle: 'Seccomp fields', level: 'MUST', source: 'spec',
    text: 'Privileged pods or containers (`privileged: true`) cannot have a seccomp profile and always run Unconfined.',
  },
  {
    id: '001-2.4-seccomp-localhost-missing',
    doc: '001', section: '2.4', sectionTitle: 'Seccomp fields', level: 'MUST', source: 'spec',
    text: 'The runtime checks seccomp profile availability at container creation; a missing Localhost profile makes creation fail with `CreateContainerError`.',
  },
  {
    id: '001-2.4-localhost-profile-required',
    doc: '001', section: '2.4', sectionTitle: 'Seccomp fields', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: 'An empty localhostProfile with type Localhost is rejected: `localhostProfile must be set if seccompProfile type is Localhost.`',
  },
  {
    id: '001-2.4-localhost-profile-relative',
    doc: '001', section: '2.4', sectionTitle: 'Seccomp fields', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: 'localhostProfile must be a relative path (`must be a relative path`).',
  },
  {
    id: '001-2.4-localhost-profile-no-parent',
    doc: '001', section: '2.4', sectionTitle: 'Seccomp fields', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: "localhostProfile has no `..` element (`must not contain '..'`).",
  },
  {
    id: '001-2.4-seccomp-type-values',
    doc: '001', section: '2.4', sectionTitle: 'Seccomp fields', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: 'A seccompProfile type other than Unconfined, RuntimeDefault or Localhost is rejected (`seccompProfile.type: Unsupported value`).',
  },
  {
    id: '001-2.4-localhost-profile-only-localhost',
    doc: '001', section: '2.4', sectionTitle: 'Seccomp fields', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: 'localhostProfile is allowed only with type Localhost: `seccompProfile.localhostProfile: Invalid value: ...: can only be set when seccomp type is Localhost`.',
  },
  {
    id: '001-2.4-profile-file',
    doc: '001', section: '2.4', sectionTitle: 'Seccomp fields', level: 'MUST', source: 'spec',
    text: 'A seccomp profile file is a JSON file following the OCI runtime specification with `defaultAction` (string), `defaultErrnoRet` (integer) and `syscalls` (array of objects with a `names` array, `action`, optional `errnoRet` and `args`).',
  },
  {
    id: '001-2.4-profile-default-errno-ret',
    doc: '001', section: '2.4', sectionTitle: 'Seccomp fields', level: 'MUST', source: 'spec',
    text: 'Seccomp profile `defaultErrnoRet` is the error code returned when the default action is `SCMP_ACT_ERRNO`.',
  },
  {
    id: '001-2.4-profile-actions',
    doc: '001', section: '2.4', sectionTitle: 'Seccomp fields', level: 'MUST', source: 'spec',
    text: 'Seccomp actions: `SCMP_ACT_ERRNO` (return given error), `SCMP_ACT_ALLOW`, `SCMP_ACT_KILL_PROCESS`, `SCMP_ACT_KILL_THREAD` and `SCMP_ACT_KILL` (kill the thread only), `SCMP_ACT_TRAP` (send SIGSYS), `SCMP_ACT_NOTIFY` and `SECCOMP_RET_USER_NOTIF` (notify user space), `SCMP_ACT_TRACE` (notify tracer with the value), `SCMP_ACT_LOG` (log to syslog or auditd then allow).',
  },
  {
    id: '001-2.4-profile-actions-unsupported',
    doc: '001', section: '2.4', sectionTitle: 'Seccomp fields', level: 'SHOULD', source: 'spec',
    text: 'Some seccomp actions may be unsupported depending on runtime, OCI runtime or kernel; for example SCMP_ACT_NOTIFY cannot be the defaultAction or apply to some calls such as write.',
  },
  {
    id: '001-2.4-profile-default-action-required',
    doc: '001', section: '2.4', sectionTitle: 'Seccomp fields', level: 'SHOULD', source: 'ground-truth',
    text: 'Seccomp profile `defaultAction` is required.',
  },
  {
    id: '001-2.4-profile-syscalls-shape',
    doc: '001', section: '2.4', sectionTitle: 'Seccomp fields', level: 'SHOULD', source: 'ground-truth',
    text: 'Seccomp profile syscalls[] entries are {names (at least 1), action, errnoRet, args[{index, value, valueTwo, op}]}; ops are SCMP_CMP_NE, LT, LE, EQ, GE, GT, MASKED_EQ; architectures are named like SCMP_ARCH_X86_64.',
  },

  // ---------------------------------------------------------------- 2.5 Kernel version requirements
  {
    id: '001-2.5-ip-local-reserved-ports',
    doc: '001', section: '2.5', sectionTitle: 'Kernel version requirements', level: 'MUST', source: 'spec',
    text: 'sysctl net.ipv4.ip_local_reserved_ports requires kernel 3.16+ (since release 1.27).',
  },
  {
    id: '001-2.5-tcp-keepalive',
    doc: '001', section: '2.5', sectionTitle: 'Kernel version requirements', level: 'MUST', source: 'spec',
    text: 'sysctls net.ipv4.tcp_keepalive_time, tcp_keepalive_intvl and tcp_keepalive_probes require kernel 4.5+ (since 1.29).',
  },
  {
    id: '001-2.5-tcp-fin-timeout',
    doc: '001', section: '2.5', sectionTitle: 'Kernel version requirements', level: 'MUST', source: 'spec',
    text: 'sysctl net.ipv4.tcp_fin_timeout requires kernel 4.6+ (since 1.29).',
  },
  {
    id: '001-2.5-tcp-syncookies',
    doc: '001', section: '2.5', sectionTitle: 'Kernel version requirements', level: 'MUST', source: 'spec',
    text: 'sysctl net.ipv4.tcp_syncookies gained namespace scope in kernel 4.6.',
  },
  {
    id: '001-2.5-tcp-rmem-wmem',
    doc: '001', section: '2.5', sectionTitle: 'Kernel version requirements', level: 'MUST', source: 'spec',
    text: 'sysctls net.ipv4.tcp_rmem and tcp_wmem require kernel 4.15+ (since 1.32).',
  },
  {
    id: '001-2.5-tcp-slow-start-after-idle',
    doc: '001', section: '2.5', sectionTitle: 'Kernel version requirements', level: 'MUST', source: 'spec',
    text: 'sysctl net.ipv4.tcp_slow_start_after_idle requires kernel 4.15+ (since 1.37).',
  },
  {
    id: '001-2.5-tcp-notsent-lowat',
    doc: '001', section: '2.5', sectionTitle: 'Kernel version requirements', level: 'MUST', source: 'spec',
    text: 'sysctl net.ipv4.tcp_notsent_lowat requires kernel 4.6+ (since 1.37).',
  },
  {
    id: '001-2.5-pod-sysctls-in-sandbox',
    doc: '001', section: '2.5', sectionTitle: 'Kernel version requirements', level: 'MUST', source: 'spec',
    text: 'The pod sysctls of this table are set for a pod that runs: the agent creates the pod sandbox as the pod spec defines it (section 1, sync loop rule 3), handing spec.securityContext.sysctls to the runtime (CRI LinuxPodSandboxConfig.sysctls, name to value).',
  },
  {
    id: '001-2.5-ipvs-conn-reuse-mode',
    doc: '001', section: '2.5', sectionTitle: 'Kernel version requirements', level: 'MUST', source: 'spec',
    text: 'sysctl net.ipv4.vs.conn_reuse_mode (ipvs proxy mode) requires kernel 4.1+.',
  },
  {
    id: '001-2.5-nftables',
    doc: '001', section: '2.5', sectionTitle: 'Kernel version requirements', level: 'MUST', source: 'spec',
    text: 'nftables proxy mode (release 1.37) requires nft tool v1.0.1+ and kernel 5.13+.',
  },
  {
    id: '001-2.5-nftables-skip-kernel-check',
    doc: '001', section: '2.5', sectionTitle: 'Kernel version requirements', level: 'SHOULD', source: 'spec',
    text: 'For test and development, kernels back to 5.4 work for nftables proxy mode with `nftables.skipKernelVersionCheck`; not recommended in production.',
  },
  {
    id: '001-2.5-cgroup-v1-maintenance',
    doc: '001', section: '2.5', sectionTitle: 'Kernel version requirements', level: 'MUST', source: 'spec',
    text: 'Control group v1 support is in maintenance mode since 1.31.',
  },
  {
    id: '001-2.5-cgroup-v2-recommended',
    doc: '001', section: '2.5', sectionTitle: 'Kernel version requirements', level: 'SHOULD', source: 'spec',
    text: 'Control group v2 is recommended; kernels below 5.2 are not recommended (no freeze feature); kernel 5.8 adds a system-level cpu.stat file to the root group.',
  },
  {
    id: '001-2.5-psi',
    doc: '001', section: '2.5', sectionTitle: 'Kernel version requirements', level: 'MUST', source: 'spec',
    text: 'Pressure stall information requires kernel 4.20+ built with CONFIG_PSI=y; if compiled but disabled, add `psi=1` to the kernel command line.',
  },
  {
    id: '001-2.5-recursive-read-only-mounts',
    doc: '001', section: '2.5', sectionTitle: 'Kernel version requirements', level: 'MUST', source: 'spec',
    text: 'Recursive read-only mounts require mount_setattr with MOUNT_ATTR_RDONLY and AT_RECURSIVE, kernel 5.12+.',
  },
  {
    id: '001-2.5-user-namespaces',
    doc: '001', section: '2.5', sectionTitle: 'Kernel version requirements', level: 'MUST', source: 'spec',
    text: 'Pod user namespaces require kernel 6.5+.',
  },
  {
    id: '001-2.5-swap-tmpfs-noswap',
    doc: '001', section: '2.5', sectionTitle: 'Kernel version requirements', level: 'MUST', source: 'spec',
    text: 'Node swap with tmpfs noswap requires kernel 6.3+.',
  },

  // ---------------------------------------------------------------- 3 States and transitions
  {
    id: '001-3-condition-ready',
    doc: '001', section: '3', sectionTitle: 'States and transitions', level: 'MUST', source: 'spec',
    text: 'Node condition `Ready` True means the node is healthy and ready to accept pods; False means the node is unhealthy and cannot accept pods.',
  },
  {
    id: '001-3-condition-ready-unknown',
    doc: '001', section: '3', sectionTitle: 'States and transitions', level: 'MUST', source: 'spec',
    surface: 'controllers',
    text: 'Node condition `Ready` Unknown means the node controller received nothing from the node within `node-monitor-grace-period` (default 50 seconds).',
  },
  {
    id: '001-3-condition-disk-pressure',
    doc: '001', section: '3', sectionTitle: 'States and transitions', level: 'MUST', source: 'spec',
    text: 'Node condition `DiskPressure` True means low available disk space; False otherwise.',
  },
  {
    id: '001-3-condition-memory-pressure',
    doc: '001', section: '3', sectionTitle: 'States and transitions', level: 'MUST', source: 'spec',
    text: 'Node condition `MemoryPressure` True means low available memory; False otherwise.',
  },
  {
    id: '001-3-condition-pid-pressure',
    doc: '001', section: '3', sectionTitle: 'States and transitions', level: 'MUST', source: 'spec',
    text: 'Node condition `PIDPressure` True means too many processes on the node; False otherwise.',
  },
  {
    id: '001-3-pressure-eviction-thresholds',
    doc: '001', section: '3', sectionTitle: 'States and transitions', level: 'SHOULD', source: 'ground-truth',
    text: 'As upstream\'s eviction manager, a hard eviction threshold of the agent\'s configuration (`evictionHard`) that the node\'s available amount is below makes the agent report the matching pressure condition True: `memory.available` (available memory) MemoryPressure, `nodefs.available` (free space of the root dir\'s filesystem) DiskPressure, `pid.available` (pid_max less the running processes) PIDPressure.',
  },
  {
    id: '001-3-condition-last-transition-time',
    doc: '001', section: '3', sectionTitle: 'States and transitions', level: 'SHOULD', source: 'ground-truth',
    text: 'A node condition\'s `lastTransitionTime` moves when its status changes and stays the same while its status does not (upstream\'s convention for conditions): when Ready goes False, its lastTransitionTime is the time of that change, and the conditions whose status stayed keep theirs.',
  },
  {
    id: '001-3-condition-network-unavailable',
    doc: '001', section: '3', sectionTitle: 'States and transitions', level: 'MUST', source: 'spec',
    text: 'Node condition `NetworkUnavailable` True means the node network is configured incorrectly; False otherwise.',
  },
  {
    id: '001-3-unreachable-taint',
    doc: '001', section: '3', sectionTitle: 'States and transitions', level: 'MUST', source: 'spec',
    surface: 'controllers',
    text: 'When Ready stays Unknown longer than the controller manager\'s NodeMonitorGracePeriod (default 50 s), the taint `node.orch.io/unreachable` is added to the node.',
  },
  {
    id: '001-3-not-ready-taint',
    doc: '001', section: '3', sectionTitle: 'States and transitions', level: 'MUST', source: 'spec',
    surface: 'controllers',
    text: 'When Ready stays False longer than NodeMonitorGracePeriod, the taint `node.orch.io/not-ready` is added to the node.',
  },
  {
    id: '001-3-scheduler-considers-taints',
    doc: '001', section: '3', sectionTitle: 'States and transitions', level: 'MUST', source: 'spec',
    text: 'The scheduler considers node taints when assigning pending pods.',
    surface: 'controllers',
  },
  {
    id: '001-3-scheduler-unschedulable-condition',
    doc: '001', section: '3', sectionTitle: 'States and transitions', level: 'SHOULD', source: 'ground-truth',
    surface: 'controllers',
    text: 'A pending pod the scheduler cannot place gets `PodScheduled=False`, reason `Unschedulable`, message `0/<n> nodes are available: <count> <reason>, ...` (reasons sorted), e.g. `1 node(s) had untolerated taint {<key>: <value>}` for a node kept by a taint.',
  },
  {
    id: '001-3-no-execute-eviction',
    doc: '001', section: '3', sectionTitle: 'States and transitions', level: 'MUST', source: 'spec',
    surface: 'controllers',
    text: 'Pods already scheduled may be evicted because of NoExecute taints unless they carry tolerations.',
  },
  {
    id: '001-3-unknown-conditions',
    doc: '001', section: '3', sectionTitle: 'States and transitions', level: 'SHOULD', source: 'ground-truth',
    surface: 'controllers',
    text: 'When a node has been silent past the grace period, the node controller sets Ready, MemoryPressure, DiskPressure and PIDPressure to Unknown with reason `NodeStatusUnknown` and message `Agent stopped posting node status.` (a missing one is added with reason `NodeStatusNeverUpdated`, message `Agent never posted node status.`); NetworkUnavailable is left alone.',
  },
  {
    id: '001-3-lease-heartbeat',
    doc: '001', section: '3', sectionTitle: 'States and transitions', level: 'SHOULD', source: 'ground-truth',
    surface: 'controllers',
    text: "The node controller counts a renewal of the node's Lease `node-lease/<node>` (a newer spec.renewTime) as a heartbeat, as it does a new lastHeartbeatTime of the Ready condition: a node that keeps renewing its Lease stays Ready without status updates.",
  },
  {
    id: '001-3-taint-effects',
    doc: '001', section: '3', sectionTitle: 'States and transitions', level: 'SHOULD', source: 'ground-truth',
    surface: 'controllers',
    text: 'The `node.orch.io/unreachable` (Ready Unknown) and `node.orch.io/not-ready` (Ready False) taints are added with effect NoSchedule and with effect NoExecute; the NoExecute one as soon as the controller observes Ready not True (rate-limited per zone), the two NoExecute taints excluding each other.',
  },
  {
    id: '001-3-taints-removed',
    doc: '001', section: '3', sectionTitle: 'States and transitions', level: 'SHOULD', source: 'ground-truth',
    surface: 'controllers',
    text: "When the node's Ready condition is True again, the node controller removes its `node.orch.io/not-ready` and `node.orch.io/unreachable` taints (NoSchedule and NoExecute).",
  },
  {
    id: '001-3-pods-not-ready',
    doc: '001', section: '3', sectionTitle: 'States and transitions', level: 'SHOULD', source: 'ground-truth',
    surface: 'controllers',
    text: "When the node controller turns a node's Ready condition from True to Unknown, it sets the Ready condition of the pods bound to that node to False.",
  },
  {
    id: '001-3-toleration-seconds',
    doc: '001', section: '3', sectionTitle: 'States and transitions', level: 'SHOULD', source: 'ground-truth',
    surface: 'controllers',
    text: "A pod that tolerates a node's NoExecute taints, some with tolerationSeconds, is deleted by the taint eviction controller once the smallest tolerationSeconds has passed.",
  },
  {
    id: '001-3-disruption-target',
    doc: '001', section: '3', sectionTitle: 'States and transitions', level: 'SHOULD', source: 'ground-truth',
    surface: 'controllers',
    text: 'Before deleting a pod for a NoExecute taint, the taint eviction controller sets the pod condition `DisruptionTarget` True with reason `DeletionByTaintManager` and message `Taint manager: deleting due to NoExecute taint`.',
  },
  {
    id: '001-3-default-tolerations',
    doc: '001', section: '3', sectionTitle: 'States and transitions', level: 'SHOULD', source: 'ground-truth',
    surface: 'api',
    text: 'The DefaultTolerationSeconds admission gives every created pod that does not already tolerate them (by key and NoExecute effect) the tolerations `{key: node.orch.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}` and the same for `node.orch.io/unreachable`.',
  },

  // ---------------------------------------------------------------- 4.1 Container checkpoint
  {
    id: '001-4.1-checkpoint-endpoint',
    doc: '001', section: '4.1', sectionTitle: 'Container checkpoint', level: 'MUST', source: 'spec',
    text: 'The agent serves `POST /checkpoint/{namespace}/{pod}/{container}`.',
  },
  {
    id: '001-4.1-checkpoint-path-parameters',
    doc: '001', section: '4.1', sectionTitle: 'Container checkpoint', level: 'MUST', source: 'spec',
    text: 'Checkpoint path parameters `namespace`, `pod` and `container` (strings) are required.',
  },
  {
    id: '001-4.1-checkpoint-timeout',
    doc: '001', section: '4.1', sectionTitle: 'Container checkpoint', level: 'MUST', source: 'spec',
    text: 'Checkpoint query parameter `timeout` (integer) is the seconds to wait for checkpoint creation; zero or unset means the default CRI timeout.',
  },
  {
    id: '001-4.1-checkpoint-cri',
    doc: '001', section: '4.1', sectionTitle: 'Container checkpoint', level: 'MUST', source: 'spec',
    text: 'On a checkpoint request the agent asks the CRI implementation to checkpoint the container.',
  },
  {
    id: '001-4.1-checkpoint-archive-name',
    doc: '001', section: '4.1', sectionTitle: 'Container checkpoint', level: 'MUST', source: 'spec',
    text: 'The checkpoint archive is named `checkpoint-<pod_full_name>-<container_name>-<timestamp>.tar`.',
  },
  {
    id: '001-4.1-checkpoint-archive-location',
    doc: '001', section: '4.1', sectionTitle: 'Container checkpoint', level: 'MUST', source: 'spec',
    text: 'The checkpoint archive is stored in the `checkpoints` subdirectory of the root dir (default `/var/lib/agent/checkpoints`).',
  },
  {
    id: '001-4.1-checkpoint-archive-tar',
    doc: '001', section: '4.1', sectionTitle: 'Container checkpoint', level: 'MUST', source: 'spec',
    text: 'The checkpoint archive is a tar archive readable with any tar implementation; its contents depend on the CRI implementation.',
  },
  {
    id: '001-4.1-checkpoint-stateful-copy',
    doc: '001', section: '4.1', sectionTitle: 'Container checkpoint', level: 'MUST', source: 'spec',
    text: 'A checkpoint is a stateful copy of the running container; a restored container continues from the checkpoint time.',
  },
  {
    id: '001-4.1-checkpoint-archive-root-only',
    doc: '001', section: '4.1', sectionTitle: 'Container checkpoint', level: 'SHOULD', source: 'spec',
    text: 'Because the archive normally holds all memory pages of all container processes (including private data and keys), the runtime should make it readable only by root.',
  },
  {
    id: '001-4.1-checkpoint-gate',
    doc: '001', section: '4.1', sectionTitle: 'Container checkpoint', level: 'MUST', source: 'spec',
    text: 'Container checkpointing is beta since 1.30, gate `ContainerCheckpoint`, enabled by default.',
  },
  {
    id: '001-4.1-checkpoint-ok',
    doc: '001', section: '4.1', sectionTitle: 'Container checkpoint', level: 'MUST', source: 'spec',
    text: 'A successful checkpoint returns 200 OK.',
  },
  {
    id: '001-4.1-checkpoint-unauthorized-401',
    doc: '001', section: '4.1', sectionTitle: 'Container checkpoint', level: 'MUST', source: 'spec',
    text: 'An unauthorized checkpoint request gets 401 Unauthorized.',
  },
  {
    id: '001-4.1-checkpoint-gate-disabled-404',
    doc: '001', section: '4.1', sectionTitle: 'Container checkpoint', level: 'MUST', source: 'spec',
    text: 'A checkpoint request when the ContainerCheckpoint gate is disabled gets 404 Not Found.',
  },
  {
    id: '001-4.1-checkpoint-not-found-404',
    doc: '001', section: '4.1', sectionTitle: 'Container checkpoint', level: 'MUST', source: 'spec',
    text: 'A checkpoint request whose namespace, pod or container is not found gets 404 Not Found.',
  },
  {
    id: '001-4.1-checkpoint-cri-error-500',
    doc: '001', section: '4.1', sectionTitle: 'Container checkpoint', level: 'MUST', source: 'spec',
    text: 'A checkpoint request gets 500 Internal Server Error when the CRI implementation errors during checkpointing (details in the message).',
  },
  {
    id: '001-4.1-checkpoint-cri-unsupported-500',
    doc: '001', section: '4.1', sectionTitle: 'Container checkpoint', level: 'MUST', source: 'spec',
    text: 'A checkpoint request gets 500 when the CRI implementation lacks the checkpoint API (details in the message).',
  },
  {
    id: '001-4.1-checkpoint-ok-body',
    doc: '001', section: '4.1', sectionTitle: 'Container checkpoint', level: 'SHOULD', source: 'ground-truth',
    text: 'A successful checkpoint returns 200 `application/json` with body `{"items":["<archive path>"]}`.',
  },
  {
    id: '001-4.1-checkpoint-archive-name-format',
    doc: '001', section: '4.1', sectionTitle: 'Container checkpoint', level: 'SHOULD', source: 'ground-truth',
    text: 'The checkpoint archive is `checkpoint-<podname>_<namespace>-<container>-<RFC3339 time>.tar` under `<root_dir>/checkpoints`.',
  },
  {
    id: '001-4.1-checkpoint-pod-missing-404',
    doc: '001', section: '4.1', sectionTitle: 'Container checkpoint', level: 'SHOULD', source: 'ground-truth',
    text: 'A checkpoint request for a missing pod gets 404 `pod does not exist`.',
  },
  {
    id: '001-4.1-checkpoint-container-missing-404',
    doc: '001', section: '4.1', sectionTitle: 'Container checkpoint', level: 'SHOULD', source: 'ground-truth',
    text: 'A checkpoint request for a container not found among the pod\'s containers, initContainers and ephemeralContainers gets 404 `container <name> does not exist`.',
  },
  {
    id: '001-4.1-checkpoint-timeout-unparsable-404',
    doc: '001', section: '4.1', sectionTitle: 'Container checkpoint', level: 'SHOULD', source: 'ground-truth',
    text: 'A checkpoint request with an unparsable `timeout` gets 404 `cannot parse value of timeout parameter`; when timeout is repeated the last value wins.',
  },
  {
    id: '001-4.1-checkpoint-runtime-error-message',
    doc: '001', section: '4.1', sectionTitle: 'Container checkpoint', level: 'SHOULD', source: 'ground-truth',
    text: 'A runtime error during checkpointing gets 500 `checkpointing of <ns>/<pod>/<container> failed (<err>)`.',
  },

  // ---------------------------------------------------------------- 4.2 Pod info gRPC service
  {
    id: '001-4.2-pod-info-socket',
    doc: '001', section: '4.2', sectionTitle: 'Pod info gRPC service', level: 'MUST', source: 'spec',
    text: 'The pod info gRPC service listens on the UNIX socket `/var/lib/agent/pods/agent.sock`.',
  },
  {
    id: '001-4.2-pod-info-not-windows',
    doc: '001', section: '4.2', sectionTitle: 'Pod info gRPC service', level: 'MUST', source: 'spec',
    text: 'The pod info gRPC service is not supported on Windows nodes.',
  },
  {
    id: '001-4.2-pod-info-default-enabled',
    doc: '001', section: '4.2', sectionTitle: 'Pod info gRPC service', level: 'MUST', source: 'spec',
    text: 'The pod info gRPC service is beta since 1.37 and enabled by default; node-local components use it to query pods on the node without the API server.',
  },
  {
    id: '001-4.2-list-pods',
    doc: '001', section: '4.2', sectionTitle: 'Pod info gRPC service', level: 'MUST', source: 'spec',
    text: 'RPC `ListPods(PodListRequest)` (no request fields) returns PodListResponse with `pods` (repeated pod, field 1): all pods managed by the agent.',
  },
  {
    id: '001-4.2-watch-pods',
    doc: '001', section: '4.2', sectionTitle: 'Pod info gRPC service', level: 'MUST', source: 'spec',
    text: 'RPC `WatchPods(PodWatchRequest)` (no request fields) returns a server stream of PodWatchResponse with `pod` (field 1); an update is sent whenever a pod\'s state changes locally.',
  },
  {
    id: '001-4.2-get-pod',
    doc: '001', section: '4.2', sectionTitle: 'Pod info gRPC service', level: 'MUST', source: 'spec',
    text: 'RPC `GetPod(PodGetRequest{podUID: string, field 1})` returns PodGetResponse with `pod` (field 1).',
  },
  {
    id: '001-4.2-field-mask',
    doc: '001', section: '4.2', sectionTitle: 'Pod info gRPC service', level: 'MUST', source: 'spec',
    text: 'Each pod info request accepts an optional google.protobuf.FieldMask given in gRPC metadata, naming the pod fields to return (for example status.phase, status.podIPs).',
  },
  {
    id: '001-4.2-no-field-mask-full-pod',
    doc: '001', section: '4.2', sectionTitle: 'Pod info gRPC service', level: 'MUST', source: 'spec',
    text: 'Without a field mask the full pod object is returned.',
  },
  {
    id: '001-4.2-latest-known-data',
    doc: '001', section: '4.2', sectionTitle: 'Pod info gRPC service', level: 'MUST', source: 'spec',
    text: 'Pod info data is the latest known to the agent from its internal cache and reconciliation with the runtime.',
  },
  {
    id: '001-4.2-available-without-control-plane',
    doc: '001', section: '4.2', sectionTitle: 'Pod info gRPC service', level: 'MUST', source: 'spec',
    text: 'The pod info service remains available if the node loses connection to the control plane.',
  },
  {
    id: '001-4.2-not-initialized-failed-precondition',
    doc: '001', section: '4.2', sectionTitle: 'Pod info gRPC service', level: 'MUST', source: 'spec',
    text: 'If the agent restarted recently and its internal state is not fully initialized, pod info calls fail with gRPC status `FAILED_PRECONDITION`.',
  },
  {
    id: '001-4.2-service-name',
    doc: '001', section: '4.2', sectionTitle: 'Pod info gRPC service', level: 'SHOULD', source: 'ground-truth',
    text: 'Upstream the pod info service is gRPC package `v1alpha1`, service `Pods`; pods are serialized whole as bytes (the spec\'s message names, e.g. PodListRequest and PodWatchResponse{pod}, win where they differ).',
  },
  {
    id: '001-4.2-list-sorted-by-uid',
    doc: '001', section: '4.2', sectionTitle: 'Pod info gRPC service', level: 'SHOULD', source: 'ground-truth',
    text: 'ListPods returns pods sorted by UID.',
  },
  {
    id: '001-4.2-watch-initial-pods',
    doc: '001', section: '4.2', sectionTitle: 'Pod info gRPC service', level: 'SHOULD', source: 'ground-truth',
    text: 'WatchPods first sends every existing pod (ADDED), then updates.',
  },
  {
    id: '001-4.2-get-pod-not-found',
    doc: '001', section: '4.2', sectionTitle: 'Pod info gRPC service', level: 'SHOULD', source: 'ground-truth',
    text: 'GetPod for an unknown UID fails with gRPC NOT_FOUND `pod with UID <uid> not found`.',
  },
  {
    id: '001-4.2-field-mask-metadata-key',
    doc: '001', section: '4.2', sectionTitle: 'Pod info gRPC service', level: 'SHOULD', source: 'ground-truth',
    text: 'The field mask is carried in gRPC metadata key `x-orch-fieldmask` as comma-joined JSON paths.',
  },
  {
    id: '001-4.2-field-mask-multiple',
    doc: '001', section: '4.2', sectionTitle: 'Pod info gRPC service', level: 'SHOULD', source: 'ground-truth',
    text: 'More than one field mask metadata value fails with INVALID_ARGUMENT `multiple field masks not supported`.',
  },
  {
    id: '001-4.2-field-mask-invalid-path',
    doc: '001', section: '4.2', sectionTitle: 'Pod info gRPC service', level: 'SHOULD', source: 'ground-truth',
    text: 'A field mask with a bad path fails with INVALID_ARGUMENT `invalid field mask: ...`.',
  },

  // ---------------------------------------------------------------- 4.3 Other agent endpoints named
  {
    id: '001-4.3-healthz',
    doc: '001', section: '4.3', sectionTitle: 'Other agent endpoints named', level: 'MUST', source: 'spec',
    text: 'The agent exposes `/healthz`, used for periodic health checks.',
  },
  {
    id: '001-4.3-stats-metrics',
    doc: '001', section: '4.3', sectionTitle: 'Other agent endpoints named', level: 'MUST', source: 'spec',
    text: 'The agent exposes the stats and metrics endpoints of document 002.',
  },
  {
    id: '001-4.3-container-logs',
    doc: '001', section: '4.3', sectionTitle: 'Other agent endpoints named', level: 'SHOULD', source: 'ground-truth',
    text: 'Not shown in the spec; as upstream\'s kubelet: the agent serves `/containerLogs/{namespace}/{pod}/{container}`, the container\'s output as the runtime logged it (the CRI log file), every line of its stdout and stderr, each stream in the order written (the order between the two streams is the runtime\'s).',
  },
  {
    id: '001-4.3-container-logs-tail',
    doc: '001', section: '4.3', sectionTitle: 'Other agent endpoints named', level: 'SHOULD', source: 'ground-truth',
    text: 'Not shown in the spec; as upstream\'s kubelet: `/containerLogs/...?tailLines=N` answers the last N lines of the container\'s log only.',
  },

  // ---------------------------------------------------------------- 5.1 Configuration directory merge
  {
    id: '001-5.1-main-overlaid',
    doc: '001', section: '5.1', sectionTitle: 'Configuration directory merge', level: 'MUST', source: 'spec',
    text: 'With `--config-dir`, the final configuration is the main file overlaid by the files of the directory.',
  },
  {
    id: '001-5.1-scalars-replace',
    doc: '001', section: '5.1', sectionTitle: 'Configuration directory merge', level: 'MUST', source: 'spec',
    text: 'Scalar fields set in a drop-in replace the main value; fields not mentioned keep the main value.',
  },
  {
    id: '001-5.1-nested-merge',
    doc: '001', section: '5.1', sectionTitle: 'Configuration directory merge', level: 'MUST', source: 'spec',
    text: 'Nested structures merge field by field, recursively (e.g. authorization.mode replaced while unmentioned webhook fields stay).',
  },
  {
    id: '001-5.1-lists-replace',
    doc: '001', section: '5.1', sectionTitle: 'Configuration directory merge', level: 'MUST', source: 'spec',
    text: 'A list (e.g. clusterDNS) is replaced as a whole by the drop-in list.',
  },
  {
    id: '001-5.1-maps-merge',
    doc: '001', section: '5.1', sectionTitle: 'Configuration directory merge', level: 'MUST', source: 'spec',
    text: 'A map merges per key (e.g. featureGates entries).',
  },
  {
    id: '001-5.1-map-of-lists',
    doc: '001', section: '5.1', sectionTitle: 'Configuration directory merge', level: 'MUST', source: 'spec',
    text: 'For a map of string to list of strings (staticPodURLHeader) the list of a given key is replaced whole; other keys stay.',
  },
  {
    id: '001-5.1-drop-in-files',
    doc: '001', section: '5.1', sectionTitle: 'Configuration directory merge', level: 'SHOULD', source: 'ground-truth',
    text: 'Drop-ins are the files ending `.conf` under --config-dir, walked recursively in lexical order.',
  },
  {
    id: '001-5.1-drop-in-strict',
    doc: '001', section: '5.1', sectionTitle: 'Configuration directory merge', level: 'SHOULD', source: 'ground-truth',
    text: 'Each drop-in is decoded strictly and carries its own apiVersion/kind.',
  },
  {
    id: '001-5.1-drop-in-merge-patch',
    doc: '001', section: '5.1', sectionTitle: 'Configuration directory merge', level: 'SHOULD', source: 'ground-truth',
    text: 'Each drop-in is applied as a JSON merge patch (RFC 7386) over the main file: maps merge by key, scalars and lists replace, null deletes.',
  },
  {
    id: '001-5.1-flags-win',
    doc: '001', section: '5.1', sectionTitle: 'Configuration directory merge', level: 'SHOULD', source: 'ground-truth',
    text: 'Command-line flags are applied after the drop-ins and win.',
  },

  // ---------------------------------------------------------------- 5.2 Service-manager watchdog
  {
    id: '001-5.2-watchdog-enabled',
    doc: '001', section: '5.2', sectionTitle: 'Service-manager watchdog', level: 'MUST', source: 'spec',
    text: 'The service-manager watchdog is beta since 1.32, on by default, and effective on Linux when the unit sets `WatchdogSec` in its `[Service]` section.',
  },
  {
    id: '001-5.2-watchdog-interval',
    doc: '001', section: '5.2', sectionTitle: 'Service-manager watchdog', level: 'MUST', source: 'spec',
    text: 'The agent calls `sd_notify` with `WATCHDOG=1` every WatchdogSec/2.',
  },
  {
    id: '001-5.2-watchdog-kill-restart',
    doc: '001', section: '5.2', sectionTitle: 'Service-manager watchdog', level: 'MUST', source: 'spec',
    text: 'If the watchdog does not receive the signal within the timeout the service is killed; `Restart` set to `always`, `on-failure`, `on-watchdog` or `on-abnormal` makes it restart.',
  },
  {
    id: '001-5.2-watchdog-disabled',
    doc: '001', section: '5.2', sectionTitle: 'Service-manager watchdog', level: 'MUST', source: 'spec',
    text: '`WatchdogSec` of 0 or omitted disables the watchdog.',
  },
  {
    id: '001-5.2-watchdog-minimum',
    doc: '001', section: '5.2', sectionTitle: 'Service-manager watchdog', level: 'MUST', source: 'spec',
    text: 'The minimum supported watchdog timeout is 1.0 second (fractional seconds allowed; shorter values are not supported).',
  },
  {
    id: '001-5.2-watchdog-recommended',
    doc: '001', section: '5.2', sectionTitle: 'Service-manager watchdog', level: 'SHOULD', source: 'spec',
    text: 'A watchdog timeout of about 15 seconds is recommended; values over 10 minutes work but are explicitly not recommended.',
  },
  {
    id: '001-5.2-watchdog-healthz-alternative',
    doc: '001', section: '5.2', sectionTitle: 'Service-manager watchdog', level: 'SHOULD', source: 'spec',
    text: 'The watchdog is an alternative to periodic requests to `/healthz`.',
  },
  {
    id: '001-5.2-watchdog-notify-socket',
    doc: '001', section: '5.2', sectionTitle: 'Service-manager watchdog', level: 'SHOULD', source: 'ground-truth',
    text: 'Each watchdog ping is one unix datagram `WATCHDOG=1` to $NOTIFY_SOCKET (a leading `@` means an abstract socket), every WATCHDOG_USEC/2.',
  },
  {
    id: '001-5.2-watchdog-ready',
    doc: '001', section: '5.2', sectionTitle: 'Service-manager watchdog', level: 'SHOULD', source: 'ground-truth',
    text: 'The agent sends `READY=1` to the notify socket at start.',
  },
  {
    id: '001-5.2-watchdog-skip-unhealthy',
    doc: '001', section: '5.2', sectionTitle: 'Service-manager watchdog', level: 'SHOULD', source: 'ground-truth',
    text: 'The agent skips the watchdog ping when its /healthz checks (ping, log, syncloop) fail.',
  },
  {
    id: '001-5.2-watchdog-env',
    doc: '001', section: '5.2', sectionTitle: 'Service-manager watchdog', level: 'SHOULD', source: 'ground-truth',
    text: 'WATCHDOG_USEC must be positive; a WATCHDOG_PID other than the agent\'s own disables the watchdog.',
  },

  // ---------------------------------------------------------------- 6 Authentication
  {
    id: '001-6-checkpoint-authn-authz',
    doc: '001', section: '6', sectionTitle: 'Authentication', level: 'MUST', source: 'spec',
    text: 'The checkpoint endpoint is protected by the agent\'s authentication and authorization (401 on failure).',
  },
  {
    id: '001-6-pod-info-socket-permissions',
    doc: '001', section: '6', sectionTitle: 'Authentication', level: 'MUST', source: 'spec',
    text: 'The pod info socket is restricted by file permissions to the local administrator user (typically root).',
  },

  // ---------------------------------------------------------------- 7 Events
  {
    id: '001-7-pleg-events',
    doc: '001', section: '7', sectionTitle: 'Events', level: 'MUST', source: 'spec',
    text: 'The PLEG generates internal events from runtime polling to wake the sync loop.',
  },
  {
    id: '001-7-watch-pods-stream',
    doc: '001', section: '7', sectionTitle: 'Events', level: 'MUST', source: 'spec',
    text: 'WatchPods streams pod updates (section 4.2).',
  },
  {
    id: '001-7-agent-container-events',
    doc: '001', section: '7', sectionTitle: 'Events', level: 'SHOULD', source: 'ground-truth',
    text: 'The agent records events through the API about what it does to a pod\'s containers, with upstream kubelet\'s reasons (Pulling, Pulled, Created, Started, Killing, BackOff, Failed): each regards the Pod (kind, namespace, name, uid) with fieldPath spec.containers{<name>}, type Normal for progress and Warning for failures, reportingController agent and reportingInstance the node name.',
  },
  {
    id: '001-7-agent-node-events',
    doc: '001', section: '7', sectionTitle: 'Events', level: 'SHOULD', source: 'ground-truth',
    text: 'Node events: NodeReady, NodeNotReady, NodeHasSufficientMemory, and the similar ones for the other conditions, recorded by the agent regarding its Node when a condition changes.',
  },

  // ---------------------------------------------------------------- 8 Errors
  {
    id: '001-8-checkpoint-unauthorized',
    doc: '001', section: '8', sectionTitle: 'Errors', level: 'MUST', source: 'spec',
    text: 'Checkpoint: unauthorized gets 401.',
  },
  {
    id: '001-8-checkpoint-not-found',
    doc: '001', section: '8', sectionTitle: 'Errors', level: 'MUST', source: 'spec',
    text: 'Checkpoint: feature gate disabled, or namespace, pod or container missing, gets 404.',
  },
  {
    id: '001-8-checkpoint-cri-failure',
    doc: '001', section: '8', sectionTitle: 'Errors', level: 'MUST', source: 'spec',
    text: 'Checkpoint: CRI failure, or CRI lacking the checkpoint API, gets 500.',
  },
  {
    id: '001-8-pod-info-not-initialized',
    doc: '001', section: '8', sectionTitle: 'Errors', level: 'MUST', source: 'spec',
    text: 'Pod info: agent state not initialized gets gRPC FAILED_PRECONDITION.',
  },
  {
    id: '001-8-seccomp-localhost-missing',
    doc: '001', section: '8', sectionTitle: 'Errors', level: 'MUST', source: 'spec',
    text: 'A missing Localhost seccomp profile makes container creation fail with CreateContainerError.',
  },

  // ---------------------------------------------------------------- 9 Limits
  {
    id: '001-9-node-monitor-grace-period',
    doc: '001', section: '9', sectionTitle: 'Limits', level: 'MUST', source: 'spec',
    surface: 'controllers',
    text: 'node-monitor-grace-period defaults to 50 seconds.',
  },
  {
    id: '001-9-watchdog-minimum',
    doc: '001', section: '9', sectionTitle: 'Limits', level: 'MUST', source: 'spec',
    text: 'The watchdog minimum timeout is 1.0 second.',
  },
  {
    id: '001-9-checkpoint-timeout',
    doc: '001', section: '9', sectionTitle: 'Limits', level: 'MUST', source: 'spec',
    text: 'The checkpoint timeout is the query `timeout` in seconds; the default is the CRI timeout.',
  },

  // ---------------------------------------------------------------- 10 Versioning
  {
    id: '001-10-device-plugin-v1alpha1',
    doc: '001', section: '10', sectionTitle: 'Versioning', level: 'MUST', source: 'spec',
    text: 'Device plugin API v1alpha1 is not supported in releases 1.21 to 1.26.',
  },
  {
    id: '001-10-device-plugin-v1beta1',
    doc: '001', section: '10', sectionTitle: 'Versioning', level: 'MUST', source: 'spec',
    text: 'Device plugin API v1beta1 is supported, with identical features, in releases 1.21 to 1.26.',
  },
  {
    id: '001-10-checkpoint-beta',
    doc: '001', section: '10', sectionTitle: 'Versioning', level: 'MUST', source: 'spec',
    text: 'Container checkpoint is beta since 1.30.',
  },
  {
    id: '001-10-pod-info-beta',
    doc: '001', section: '10', sectionTitle: 'Versioning', level: 'MUST', source: 'spec',
    text: 'The pod info gRPC service is beta since 1.37.',
  },
  {
    id: '001-10-watchdog-beta',
    doc: '001', section: '10', sectionTitle: 'Versioning', level: 'MUST', source: 'spec',
    text: 'The service-manager watchdog is beta since 1.32.',
  },
  {
    id: '001-10-declared-features-ga',
    doc: '001', section: '10', sectionTitle: 'Versioning', level: 'MUST', source: 'spec',
    text: 'Node declared features are GA in 1.37 (first in 1.35).',
  },
  {
    id: '001-10-pod-allocation-records-ga',
    doc: '001', section: '10', sectionTitle: 'Versioning', level: 'MUST', source: 'spec',
    text: 'Pod allocation records are GA in 1.35 (first in 1.27).',
  },
  {
    id: '001-10-graceful-shutdown-beta',
    doc: '001', section: '10', sectionTitle: 'Versioning', level: 'MUST', source: 'spec',
    text: 'Graceful node shutdown is beta since 1.21.',
  },
  {
    id: '001-10-image-pull-records-beta',
    doc: '001', section: '10', sectionTitle: 'Versioning', level: 'MUST', source: 'spec',
    text: 'Image pull records are beta since 1.35.',
  },
  {
    id: '001-10-seccomp-ga',
    doc: '001', section: '10', sectionTitle: 'Versioning', level: 'MUST', source: 'spec',
    text: 'Seccomp fields are GA since 1.19.',
  },
  {
    id: '001-10-lock-file-alpha',
    doc: '001', section: '10', sectionTitle: 'Versioning', level: 'MUST', source: 'spec',
    text: 'The lock file is alpha since 1.2.',
  },
];
