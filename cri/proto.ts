// The CRI (runtime.v1) wire definitions, shared by every side of the CRI here: the mock runtime (a
// server), the reference agent (a client) and the suites and tests (clients): loads the project's own
// api.proto (cri/grpc-services.ts: protobufjs, the services only), and offers a small promisified client (criClient) that the tests and
// suites use to talk to any CRI endpoint (the mock, containerd) over a unix socket.
//
// Loading options are part of the contract with every module here: names keep their proto spelling
// (keepCase), enums travel as their names, int64/uint64 as decimal strings (nanosecond timestamps exceed
// 2^53), absent scalars read as their defaults and absent messages as null.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { loadServices, type ProtoOptions } from './grpc-services.js';
import { grpcDeadlineMs } from './timers.js';

export const LOADER_OPTIONS: ProtoOptions = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };

/** CRI messages may be large (ListContainers of a busy node, ExecSync output): 16 MiB as the kubelet allows. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/**
 * Where api.proto is. The compiled module runs from dist/mocks/cri/, and tsc does not copy .proto files,
 * so look beside the module first (a packaging step may copy it there), then in the source tree.
 */
export function apiProtoPath(): string {
  const candidates = [new URL('./api.proto', import.meta.url), new URL('../../cri/api.proto', import.meta.url)];
  for (const c of candidates) {
    const p = fileURLToPath(c);
    if (existsSync(p)) return p;
  }
  throw new Error(`cri/api.proto not found (looked at ${candidates.map((c) => fileURLToPath(c)).join(', ')})`);
}

export interface CriDefinitions {
  /** Client constructors; each has `.service`, the service definition a grpc Server registers. */
  RuntimeService: grpc.ServiceClientConstructor;
  ImageService: grpc.ServiceClientConstructor;
}

let loaded: CriDefinitions | undefined;

export function loadCri(): CriDefinitions {
  if (loaded) return loaded;
  const s = loadServices(apiProtoPath(), ['runtime.v1.RuntimeService', 'runtime.v1.ImageService'], LOADER_OPTIONS);
  loaded = { RuntimeService: s['runtime.v1.RuntimeService'], ImageService: s['runtime.v1.ImageService'] };
  return loaded;
}

export type CriServiceName = 'RuntimeService' | 'ImageService';

/** The service an rpc belongs to, by its name in api.proto; undefined for a name neither defines. */
export function serviceOf(rpc: string): CriServiceName | undefined {
  const d = loadCri();
  if (Object.prototype.hasOwnProperty.call(d.RuntimeService.service, rpc)) return 'RuntimeService';
  if (Object.prototype.hasOwnProperty.call(d.ImageService.service, rpc)) return 'ImageService';
  return undefined;
}

/** `unix:///abs/path` or a bare path; grpc-js wants `unix:` followed by the absolute path. */
export function unixTarget(target: string): string {
  if (target.startsWith('unix://')) return `unix:${target.slice('unix://'.length)}`;
  if (target.startsWith('unix:')) return target;
  return `unix:${target}`;
}

export interface CriClient {
  /** Unary call by rpc name as in api.proto; rejects with the grpc ServiceError (err.code is the status number). */
  call<T = any>(rpc: string, request?: object, opts?: { deadlineMs?: number }): Promise<T>;
  /** Server-streaming call (GetContainerEvents): the grpc ClientReadableStream. */
  stream(rpc: string, request?: object): grpc.ClientReadableStream<any>;
  close(): void;
}

export function criClient(target: string): CriClient {
  const d = loadCri();
  const address = unixTarget(target);
  const options = { 'grpc.max_receive_message_length': MAX_MESSAGE_BYTES, 'grpc.max_send_message_length': MAX_MESSAGE_BYTES };
  const clients = {
    RuntimeService: new d.RuntimeService(address, grpc.credentials.createInsecure(), options),
    ImageService: new d.ImageService(address, grpc.credentials.createInsecure(), options),
  };
  const method = (rpc: string): ((...args: any[]) => any) => {
    const service = serviceOf(rpc);
    if (!service) throw new Error(`${rpc} is not an rpc of runtime.v1 RuntimeService or ImageService`);
    const client = clients[service] as unknown as Record<string, (...args: any[]) => any>;
    return client[rpc].bind(client);
  };
  return {
    call<T>(rpc: string, request: object = {}, opts: { deadlineMs?: number } = {}): Promise<T> {
      const fn = method(rpc);
      // Clamped: a longer deadline would expire at once on a grpc-js server (the mock CRI).
      const callOptions: grpc.CallOptions = opts.deadlineMs !== undefined ? { deadline: Date.now() + grpcDeadlineMs(opts.deadlineMs) } : {};
      return new Promise<T>((resolve, reject) => {
        fn(request, new grpc.Metadata(), callOptions, (err: grpc.ServiceError | null, res: T) => (err ? reject(err) : resolve(res)));
      });
    },
    stream(rpc: string, request: object = {}) {
      return method(rpc)(request) as grpc.ClientReadableStream<any>;
    },
    close() {
      clients.RuntimeService.close();
      clients.ImageService.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Message shapes the mock reads and writes (keepCase names; int64 as decimal strings; enums by name).
// Only the fields the mock uses are typed; requests carry every field with its default.

export type Labels = Record<string, string>;
export type PodSandboxStateName = 'SANDBOX_READY' | 'SANDBOX_NOTREADY';
export type ContainerStateName = 'CONTAINER_CREATED' | 'CONTAINER_RUNNING' | 'CONTAINER_EXITED' | 'CONTAINER_UNKNOWN';
export type ContainerEventTypeName = 'CONTAINER_CREATED_EVENT' | 'CONTAINER_STARTED_EVENT' | 'CONTAINER_STOPPED_EVENT' | 'CONTAINER_DELETED_EVENT';
export type ProfileTypeName = 'RuntimeDefault' | 'Unconfined' | 'Localhost';
export type NamespaceModeName = 'POD' | 'CONTAINER' | 'NODE' | 'TARGET';

export interface PodSandboxMetadata { name: string; uid: string; namespace: string; attempt: number }
export interface ContainerMetadata { name: string; attempt: number }
export interface ImageSpec { image: string; annotations: Labels; user_specified_image?: string; runtime_handler?: string }
/** An environment variable; the value is proto `bytes` (a Buffer; send Buffer.from(text), a string would be read as base64). */
export interface KeyValue { key: string; value: Buffer | Uint8Array }
export interface SecurityProfile { profile_type: ProfileTypeName; localhost_ref: string }
export interface NamespaceOption { network: NamespaceModeName; pid: NamespaceModeName; ipc: NamespaceModeName; target_id: string; userns_options: unknown }

export interface LinuxContainerResources {
  cpu_period: string; cpu_quota: string; cpu_shares: string; memory_limit_in_bytes: string; oom_score_adj: string;
  cpuset_cpus: string; cpuset_mems: string; hugepage_limits: { page_size: string; limit: string }[];
  unified: Labels; memory_swap_limit_in_bytes: string;
}

export interface LinuxSandboxSecurityContext {
  namespace_options: NamespaceOption | null; privileged: boolean; seccomp: SecurityProfile | null; seccomp_profile_path: string;
  [k: string]: unknown;
}

export interface PodSandboxConfig {
  metadata: PodSandboxMetadata | null;
  hostname: string;
  log_directory: string;
  dns_config: unknown;
  port_mappings: unknown[];
  labels: Labels;
  annotations: Labels;
  linux: { cgroup_parent: string; security_context: LinuxSandboxSecurityContext | null; sysctls: Labels; overhead: LinuxContainerResources | null; resources: LinuxContainerResources | null } | null;
  windows: unknown;
}

export interface LinuxContainerSecurityContext {
  privileged: boolean;
  seccomp: SecurityProfile | null;
  seccomp_profile_path: string;
  run_as_user: { value: string } | null;
  run_as_group: { value: string } | null;
  run_as_username: string;
  supplemental_groups: string[];
  [k: string]: unknown;
}

export interface ContainerConfig {
  metadata: ContainerMetadata | null;
  image: ImageSpec | null;
  command: string[];
  args: string[];
  working_dir: string;
  envs: KeyValue[];
  mounts: unknown[];
  devices: unknown[];
  labels: Labels;
  annotations: Labels;
  log_path: string;
  stdin: boolean;
  stdin_once: boolean;
  tty: boolean;
  linux: { resources: LinuxContainerResources | null; security_context: LinuxContainerSecurityContext | null } | null;
  windows: unknown;
  CDI_devices: unknown[];
  /** Signal enum name; RUNTIME_DEFAULT when unset. */
  stop_signal?: string;
}

export interface PodSandboxStatusMsg {
  id: string; metadata: PodSandboxMetadata | null; state: PodSandboxStateName; created_at: string;
  network: { ip: string; additional_ips: { ip: string }[] } | null;
  linux: { namespaces: { options: NamespaceOption | null } | null } | null;
  labels: Labels; annotations: Labels; runtime_handler: string;
}

export interface ContainerStatusMsg {
  id: string; metadata: ContainerMetadata | null; state: ContainerStateName;
  created_at: string; started_at: string; finished_at: string; exit_code: number;
  image: ImageSpec | null; image_ref: string; reason: string; message: string;
  labels: Labels; annotations: Labels; mounts: unknown[]; log_path: string;
  resources: { linux: LinuxContainerResources | null } | null; image_id: string;
  user: { linux: { uid: string; gid: string; supplemental_groups: string[] } | null } | null;
  stop_signal: string;
}

export interface ImageMsg {
  id: string; repo_tags: string[]; repo_digests: string[]; size: string;
  uid: { value: string } | null; username: string; spec: ImageSpec | null; pinned: boolean;
}

export interface ContainerEventMsg {
  container_id: string; container_event_type: ContainerEventTypeName; created_at: string;
  pod_sandbox_status: PodSandboxStatusMsg | null; containers_statuses: ContainerStatusMsg[];
}
