// The mock CRI runtime's state and lifecycle: sandboxes, containers (with their simulated processes and log
// files), the image store, the runtime's conditions, and the container events they produce.
//
// Errors are CriError(code, message); the gRPC layer (runtime-service.ts) answers with them as they are.
// Where a real runtime answers with a code we copy, the message follows containerd's wording (checked
// against containerd 1.6.20): unknown ids are NOT_FOUND "an error occurred when try to find container ...:
// not found", a duplicate container or sandbox name is UNKNOWN "failed to reserve container name ...", a
// Localhost seccomp profile that cannot be loaded is UNKNOWN "failed to generate seccomp spec opts: ...".
// Where containerd answers UNKNOWN for what is plainly bad input or a wrong state, the mock answers
// INVALID_ARGUMENT or FAILED_PRECONDITION instead (the CRI does not fix these codes; clients treat any
// error as a failure of the call).
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { hostname as osHostname } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type {
  ContainerConfig, ContainerEventTypeName, LinuxContainerSecurityContext, ContainerMetadata, ContainerStateName, ImageSpec, LinuxContainerResources,
  PodSandboxConfig, PodSandboxMetadata, PodSandboxStateName, ProfileTypeName, SecurityProfile,
} from '../../cri/proto.js';
import { ImageStore, formatReference, imageView, parseReference, type ImageRecord } from './images.js';
import { resolveUser, userString, UserError } from './users.js';
import { StdinPipe } from './streaming/stdin.js';
import { CriLogWriter, SimProcess, execSync as runExec, isAborted, UnknownProgramError, type ExecResult, type ExitInfo } from './process.js';
import { loadLocalhostProfile, SeccompProfileError } from './seccomp.js';
import { buildView, sandboxFiles, type ContainerView } from './container-view.js';
import { writeCheckpoint, CheckpointError } from './checkpoint.js';
import { nowNs, rfc3339Nano } from './clock.js';
import { timerDelay } from '../../cri/timers.js';

// ---------------------------------------------------------------------------------------------
// Errors, time, ids

export class CriError extends Error {
  constructor(readonly code: grpc.status, message: string) {
    super(message);
    this.name = 'CriError';
  }
}

/** 64 hex digits, as containerd's ids. */
export function newId(): string {
  return randomBytes(32).toString('hex');
}

// ---------------------------------------------------------------------------------------------
// Records

export interface EffectiveSeccomp {
  /** The profile the container runs with. */
  profileType: ProfileTypeName;
  /** For Localhost: the reference as the request gave it. */
  localhostRef?: string;
  /** Which request field decided it: the `seccomp` field, the deprecated `seccomp_profile_path`, or neither. */
  source: 'seccomp' | 'seccomp_profile_path' | 'default' | 'privileged';
  /** For Localhost: the loaded OCI profile. */
  profile?: object;
}

export interface SandboxRecord {
  id: string;
  /** The reserved name: <name>_<namespace>_<uid>_<attempt>. */
  name: string;
  config: PodSandboxConfig;
  metadata: PodSandboxMetadata;
  state: PodSandboxStateName;
  createdAt: bigint;
  /** When it was stopped (0n while ready). */
  stoppedAt: bigint;
  runtimeHandler: string;
  ip: string;
  hostNetwork: boolean;
  hostname: string;
  pid: number;
  seccomp: EffectiveSeccomp;
  overhead: LinuxContainerResources | null;
  resources: LinuxContainerResources | null;
}

export interface ContainerRecord {
  id: string;
  /** The reserved name: <container>_<pod>_<namespace>_<uid>_<attempt>. */
  name: string;
  sandboxId: string;
  config: ContainerConfig;
  metadata: ContainerMetadata;
  /** The image as the request named it. */
  imageSpec: ImageSpec;
  /** The digested reference (containerd's image_ref) and the image id. */
  imageRef: string;
  imageId: string;
  /** The image config's User, as declared. */
  imageUser: string;
  /** Who the container's process runs as: the security context's user, else the image's (users.ts). */
  user: ContainerUser;
  state: ContainerStateName;
  createdAt: bigint;
  startedAt: bigint;
  finishedAt: bigint;
  exitCode: number;
  reason: string;
  message: string;
  /** Absolute path of the log file, or '' when the sandbox or container has no log path. */
  logPath: string;
  resources: LinuxContainerResources | null;
  seccomp: EffectiveSeccomp;
  argv: string[];
  env: Record<string, string>;
  pid: number;
  process?: SimProcess;
  /** Resolves when the started process has ended and the container shows EXITED (log flushed). */
  done?: Promise<void>;
  log?: CriLogWriter;
  /** Files the container wrote (`echo x > /f`), readable by `cat` in the container and its execs. */
  files: Map<string, string>;
  /** What the container sees of its configuration: identity, capabilities, /proc, mounts, read-only root. */
  view: ContainerView;
}

/** The identity of a container's process (ContainerStatus.user.linux, the simulated /proc/self/status). */
export interface ContainerUser {
  uid: number;
  gid: number;
  /** The user name when one was given (run_as_username, or a named image User). */
  username?: string;
  /** The primary gid first, then the security context's supplemental_groups, without repeats. */
  supplementalGroups: number[];
}

export interface RuntimeCondition { status: boolean; reason: string; message: string }

export interface RuntimeEvent {
  type: ContainerEventTypeName;
  containerId: string;
  sandbox: SandboxRecord;
  at: bigint;
}

export interface RuntimeOptions {
  root: string;
  seccompDir: string;
  images: ImageStore;
  cgroupDriver?: 'SYSTEMD' | 'CGROUPFS';
  /**
   * A label key whose value partitions the sandboxes and containers (hollow nodes: the node's name):
   * a List* whose label selector names it reads that part alone instead of every record.
   */
  indexLabel?: string;
}

/** Runtime handlers the mock accepts: the default ('') and runc, as a stock containerd has. */
export const RUNTIME_HANDLERS = ['', 'runc'];
export const DEFAULT_CHECKPOINT_TIMEOUT_S = 120;

// ---------------------------------------------------------------------------------------------

export class Runtime {
  readonly sandboxes = new Map<string, SandboxRecord>();
  readonly containers = new Map<string, ContainerRecord>();
  private readonly names = new Map<string, string>(); // reserved name -> id
  readonly events = new EventEmitter();
  readonly images: ImageStore;
  readonly root: string;
  readonly seccompDir: string;
  readonly cgroupDriver: 'SYSTEMD' | 'CGROUPFS';
  runtimeReady: RuntimeCondition = { status: true, reason: '', message: '' };
  networkReady: RuntimeCondition = { status: true, reason: '', message: '' };
  checkpointSupported = true;
  metricsEnabled = true;
  podCidr = '';
  private nextIp = 2;
  private closed = false;
  private readonly indexLabel: string | undefined;
  /** Records by their indexLabel value, and containers by sandbox: lists and containersOf without a full scan. */
  private readonly sandboxIndex = new Map<string, Set<SandboxRecord>>();
  private readonly containerIndex = new Map<string, Set<ContainerRecord>>();
  private readonly bySandbox = new Map<string, Set<ContainerRecord>>();

  constructor(opts: RuntimeOptions) {
    this.indexLabel = opts.indexLabel;
    this.images = opts.images;
    this.root = opts.root;
    this.seccompDir = opts.seccompDir;
    this.cgroupDriver = opts.cgroupDriver ?? 'SYSTEMD';
    this.events.setMaxListeners(0);
  }

  // --- lookups ---------------------------------------------------------------------------------

  /** By full id or a unique prefix of one (containerd accepts truncated ids). */
  private lookup<T>(map: Map<string, T>, id: string): T | undefined {
    const exact = map.get(id);
    if (exact || id === '') return exact;
    let found: T | undefined;
    let count = 0;
    for (const [k, v] of map) {
      if (k.startsWith(id)) { found = v; count++; }
    }
    if (count > 1) throw new CriError(grpc.status.INVALID_ARGUMENT, `multiple IDs found with provided prefix: ${id}`);
    return found;
  }

  findSandbox(id: string): SandboxRecord | undefined {
    return this.lookup(this.sandboxes, id);
  }

  findContainer(id: string): ContainerRecord | undefined {
    return this.lookup(this.containers, id);
  }

  /** The sandbox, or NOT_FOUND; `what` is the message's lead, as containerd words it per RPC. */
  sandbox(id: string, what = 'an error occurred when try to find sandbox'): SandboxRecord {
    if (id === '') throw new CriError(grpc.status.INVALID_ARGUMENT, 'pod_sandbox_id is empty');
    const s = this.findSandbox(id);
    if (!s) throw new CriError(grpc.status.NOT_FOUND, `${what} ${JSON.stringify(id)}: not found`);
    return s;
  }

  container(id: string, what = 'an error occurred when try to find container'): ContainerRecord {
    if (id === '') throw new CriError(grpc.status.INVALID_ARGUMENT, 'container_id is empty');
    const c = this.findContainer(id);
    if (!c) throw new CriError(grpc.status.NOT_FOUND, `${what} ${JSON.stringify(id)}: not found`);
    return c;
  }

  containersOf(sandboxId: string): ContainerRecord[] {
    return [...(this.bySandbox.get(sandboxId) ?? [])];
  }

  /** The sandboxes a label selector can match: one part of the index when it names the index label, else all. */
  sandboxesFor(selector: Record<string, string> | undefined | null): Iterable<SandboxRecord> {
    const v = this.indexLabel !== undefined ? selector?.[this.indexLabel] : undefined;
    return v !== undefined ? this.sandboxIndex.get(v) ?? [] : this.sandboxes.values();
  }

  /** The containers a label selector can match (as sandboxesFor). */
  containersFor(selector: Record<string, string> | undefined | null): Iterable<ContainerRecord> {
    const v = this.indexLabel !== undefined ? selector?.[this.indexLabel] : undefined;
    return v !== undefined ? this.containerIndex.get(v) ?? [] : this.containers.values();
  }

  private indexed<T extends { config: { labels?: Record<string, string> } }>(index: Map<string, Set<T>>, r: T, add: boolean): void {
    const v = this.indexLabel !== undefined ? r.config.labels?.[this.indexLabel] : undefined;
    if (v === undefined) return;
    let set = index.get(v);
    if (add) {
      if (!set) index.set(v, (set = new Set()));
      set.add(r);
    } else if (set) {
      set.delete(r);
      if (set.size === 0) index.delete(v);
    }
  }

  private emit(type: ContainerEventTypeName, containerId: string, sandbox: SandboxRecord): void {
    if (this.closed) return;
    const e: RuntimeEvent = { type, containerId, sandbox, at: nowNs() };
    this.events.emit('event', e);
  }

  private reserve(name: string, id: string, kind: 'container' | 'sandbox'): void {
    const holder = this.names.get(name);
    if (holder !== undefined) {
      throw new CriError(grpc.status.UNKNOWN, `failed to reserve ${kind} name ${JSON.stringify(name)}: name ${JSON.stringify(name)} is reserved for ${JSON.stringify(holder)}`);
    }
    this.names.set(name, id);
  }

  // --- sandboxes -------------------------------------------------------------------------------

  async runPodSandbox(config: PodSandboxConfig | null, runtimeHandler: string): Promise<SandboxRecord> {
    if (!config || !config.metadata) throw new CriError(grpc.status.INVALID_ARGUMENT, 'sandbox config must include metadata');
    const md = config.metadata;
    for (const [field, value] of [['name', md.name], ['uid', md.uid], ['namespace', md.namespace]] as const) {
      if (!value) throw new CriError(grpc.status.INVALID_ARGUMENT, `sandbox config metadata.${field} must not be empty`);
    }
    if (!RUNTIME_HANDLERS.includes(runtimeHandler)) {
      throw new CriError(grpc.status.INVALID_ARGUMENT, `failed to get sandbox runtime: no runtime for ${JSON.stringify(runtimeHandler)} is configured`);
    }
    if (config.log_directory && !isAbsolute(config.log_directory)) {
      throw new CriError(grpc.status.INVALID_ARGUMENT, `log_directory ${JSON.stringify(config.log_directory)} must be an absolute path`);
    }
    const sc = config.linux?.security_context ?? null;
    const seccomp = await this.seccompFor(sc ? { privileged: sc.privileged, seccomp: sc.seccomp, seccomp_profile_path: sc.seccomp_profile_path } : null);
    const id = newId();
    const name = [md.name, md.namespace, md.uid, md.attempt].join('_');
    this.reserve(name, id, 'sandbox');
    const hostNetwork = sc?.namespace_options?.network === 'NODE';
    const s: SandboxRecord = {
      id, name, config, metadata: md, state: 'SANDBOX_READY', createdAt: nowNs(), stoppedAt: 0n, runtimeHandler,
      ip: hostNetwork ? '' : this.allocateIp(), hostNetwork,
      hostname: config.hostname || (hostNetwork ? osHostname() : md.name),
      pid: 0, seccomp, overhead: config.linux?.overhead ?? null, resources: config.linux?.resources ?? null,
    };
    this.sandboxes.set(id, s);
    this.indexed(this.sandboxIndex, s, true);
    // containerd reports the sandbox's own (pause) container in the event stream too.
    this.emit('CONTAINER_CREATED_EVENT', id, s);
    this.emit('CONTAINER_STARTED_EVENT', id, s);
    return s;
  }

  /** Pod IPs from containerd's default bridge range, 10.88.0.0/16. */
  private allocateIp(): string {
    const n = this.nextIp++;
    return `10.88.${(n >> 8) & 255}.${n & 255}`;
  }

  /** Kills the sandbox's running containers and makes it NOTREADY; unknown ids are NOT_FOUND (as containerd). */
  async stopPodSandbox(id: string): Promise<void> {
    const s = this.sandbox(id);
    await Promise.all(this.containersOf(s.id).map((c) => this.killContainer(c)));
    if (s.state === 'SANDBOX_READY') {
      s.state = 'SANDBOX_NOTREADY';
      s.stoppedAt = nowNs();
      this.emit('CONTAINER_STOPPED_EVENT', s.id, s);
    }
  }

  /** Stops the sandbox if needed, removes its containers and itself; unknown ids succeed (idempotent). */
  async removePodSandbox(id: string): Promise<void> {
    if (id === '') throw new CriError(grpc.status.INVALID_ARGUMENT, 'pod_sandbox_id is empty');
    const s = this.findSandbox(id);
    if (!s) return;
    await this.stopPodSandbox(s.id);
    for (const c of this.containersOf(s.id)) await this.removeContainer(c.id);
    if (!this.sandboxes.has(s.id)) return; // a concurrent remove got there first
    this.sandboxes.delete(s.id);
    this.indexed(this.sandboxIndex, s, false);
    this.bySandbox.delete(s.id);
    this.names.delete(s.name);
    this.emit('CONTAINER_DELETED_EVENT', s.id, s);
  }

  async updatePodSandboxResources(id: string, overhead: LinuxContainerResources | null, resources: LinuxContainerResources | null): Promise<void> {
    const s = this.sandbox(id);
    if (overhead) s.overhead = overhead;
    if (resources) s.resources = resources;
  }

  // --- containers ------------------------------------------------------------------------------

  async createContainer(sandboxId: string, config: ContainerConfig | null): Promise<ContainerRecord> {
    if (sandboxId === '') throw new CriError(grpc.status.INVALID_ARGUMENT, 'pod_sandbox_id is empty');
    const s = this.findSandbox(sandboxId);
    if (!s) throw new CriError(grpc.status.NOT_FOUND, `failed to find sandbox id ${JSON.stringify(sandboxId)}: not found`);
    if (s.state !== 'SANDBOX_READY') {
      throw new CriError(grpc.status.FAILED_PRECONDITION, `sandbox ${JSON.stringify(s.id)} is not ready (${s.state}): cannot create a container in a stopped sandbox`);
    }
    if (!config || !config.metadata) throw new CriError(grpc.status.INVALID_ARGUMENT, 'container config must include metadata');
    if (!config.metadata.name) throw new CriError(grpc.status.INVALID_ARGUMENT, 'container config metadata.name must not be empty');
    const ref = config.image?.image ?? '';
    if (ref === '') throw new CriError(grpc.status.INVALID_ARGUMENT, 'container config must include an image');
    const image = this.images.resolve(ref);
    if (!image) {
      let normalised = ref;
      try { normalised = formatReference(parseReference(ref)); } catch { /* shown as given */ }
      throw new CriError(grpc.status.NOT_FOUND, `failed to resolve image ${JSON.stringify(ref)}: image ${JSON.stringify(normalised)} is not present: not found`);
    }
    const logPath = this.logPathFor(s, config);
    const sc = config.linux?.security_context ?? null;
    const id = newId();
    // containerd (pkg/cri/server/container_create_linux.go, containerSpec): a privileged container
    // needs a privileged sandbox, as the kubelet makes for a pod with any privileged container.
    if (sc?.privileged && !s.config.linux?.security_context?.privileged) {
      throw new CriError(grpc.status.UNKNOWN, `failed to generate container ${JSON.stringify(id)} spec: no privileged container allowed in sandbox`);
    }
    const user = this.containerUser(sc, image);
    // containerd (containerSpecOpts, generateApparmorSpecOpts): a profile reference belongs to Localhost only.
    const apparmor = sc?.apparmor as SecurityProfile | null | undefined;
    if (apparmor && apparmor.profile_type !== 'Localhost' && apparmor.localhost_ref) {
      throw new CriError(grpc.status.UNKNOWN, 'failed to get container spec opts: failed to generate apparmor spec opts: apparmor config invalid LocalhostRef must only be set if ProfileType is Localhost');
    }
    const seccomp = await this.seccompFor(sc ? { privileged: sc.privileged, seccomp: sc.seccomp, seccomp_profile_path: sc.seccomp_profile_path } : null);
    if (s.state !== 'SANDBOX_READY' || !this.sandboxes.has(s.id)) {
      throw new CriError(grpc.status.FAILED_PRECONDITION, `sandbox ${JSON.stringify(s.id)} was stopped while the container was being created`);
    }
    const name = [config.metadata.name, s.metadata.name, s.metadata.namespace, s.metadata.uid, config.metadata.attempt].join('_');
    this.reserve(name, id, 'container');
    const env: Record<string, string> = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOSTNAME: s.hostname };
    // KeyValue.value is proto bytes (a Buffer); the simulated processes see it as UTF-8 text.
    for (const kv of config.envs ?? []) env[kv.key] = typeof kv.value === 'string' ? kv.value : Buffer.from(kv.value ?? []).toString('utf8');
    const argv = config.command.length || config.args.length
      ? [...(config.command.length ? config.command : image.entrypoint), ...(config.args.length ? config.args : config.command.length ? [] : image.cmd)]
      : [];
    const view = buildView(config, { user, argv, seccompFilter: seccomp.profileType === 'RuntimeDefault' || seccomp.profileType === 'Localhost' });
    const c: ContainerRecord = {
      id, name, sandboxId: s.id, config, metadata: config.metadata, imageSpec: config.image!,
      imageRef: image.repoDigests[0] ?? image.id, imageId: image.id, imageUser: image.user, user,
      state: 'CONTAINER_CREATED', createdAt: nowNs(), startedAt: 0n, finishedAt: 0n, exitCode: 0, reason: '', message: '',
      logPath, resources: config.linux?.resources ?? null, seccomp, argv, env, pid: 0,
      files: new Map(sandboxFiles(s.config, s.hostname)), view,
    };
    this.containers.set(id, c);
    this.indexed(this.containerIndex, c, true);
    let siblings = this.bySandbox.get(s.id);
    if (!siblings) this.bySandbox.set(s.id, (siblings = new Set()));
    siblings.add(c);
    this.emit('CONTAINER_CREATED_EVENT', id, s);
    return c;
  }

  /**
   * The user a container runs as, decided as containerd does (users.ts): the security context's
   * run_as_username or run_as_user (with run_as_group), else the image config's User; a group without
   * a user, or a name the image's passwd/group files lack, fails the creation (UNKNOWN, as containerd).
   */
  private containerUser(sc: LinuxContainerSecurityContext | null, image: ImageRecord): ContainerUser {
    let requested: string;
    try {
      requested = userString(sc);
    } catch (err) {
      if (err instanceof UserError) throw new CriError(grpc.status.UNKNOWN, `failed to get container spec opts: failed to generate user string: ${err.message}`);
      throw err;
    }
    let resolved;
    try {
      resolved = resolveUser(requested !== '' ? requested : image.user);
    } catch (err) {
      if (err instanceof UserError) throw new CriError(grpc.status.UNKNOWN, `failed to create containerd container: ${err.message}`);
      throw err;
    }
    const groups = [resolved.gid];
    for (const g of sc?.supplemental_groups ?? []) {
      const n = Number(g);
      if (!groups.includes(n)) groups.push(n);
    }
    return { ...resolved, supplementalGroups: groups };
  }

  /** <log_directory>/<log_path>, refusing a log_path that leaves the sandbox's log directory. */
  private logPathFor(s: SandboxRecord, config: ContainerConfig): string {
    const dir = s.config.log_directory;
    if (!dir || !config.log_path) return '';
    const full = resolve(dir, config.log_path);
    const rel = relative(resolve(dir), full);
    if (isAbsolute(config.log_path) || rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
      throw new CriError(grpc.status.INVALID_ARGUMENT, `log_path ${JSON.stringify(config.log_path)} must be a relative path inside the sandbox log directory ${JSON.stringify(dir)}`);
    }
    return join(resolve(dir), rel);
  }

  /**
   * The effective seccomp profile of a security context, as containerd decides it: privileged runs
   * unconfined; the `seccomp` field wins over the deprecated path; neither means unconfined. A Localhost
   * profile is loaded (and checked) now, so a missing or invalid one fails the creation.
   */
  async seccompFor(sc: { privileged: boolean; seccomp: SecurityProfile | null; seccomp_profile_path: string } | null): Promise<EffectiveSeccomp> {
    if (!sc) return { profileType: 'Unconfined', source: 'default' };
    if (sc.privileged) return { profileType: 'Unconfined', source: 'privileged' };
    let eff: EffectiveSeccomp;
    if (sc.seccomp) {
      // containerd (generateSeccompSpecOpts): a profile reference belongs to Localhost only.
      if (sc.seccomp.profile_type !== 'Localhost' && sc.seccomp.localhost_ref) {
        throw new CriError(grpc.status.UNKNOWN, 'failed to generate seccomp spec opts: seccomp config invalid LocalhostRef must only be set if ProfileType is Localhost');
      }
      eff = sc.seccomp.profile_type === 'Localhost'
        ? { profileType: 'Localhost', localhostRef: sc.seccomp.localhost_ref, source: 'seccomp' }
        : { profileType: sc.seccomp.profile_type, source: 'seccomp' };
    } else {
      const p = sc.seccomp_profile_path;
      if (p === '' || p === 'unconfined') eff = { profileType: 'Unconfined', source: p === '' ? 'default' : 'seccomp_profile_path' };
      else if (p === 'runtime/default' || p === 'docker/default') eff = { profileType: 'RuntimeDefault', source: 'seccomp_profile_path' };
      else if (p.startsWith('localhost/')) eff = { profileType: 'Localhost', localhostRef: p, source: 'seccomp_profile_path' };
      // containerd (generateSecurityProfile): anything else must be `localhost/<path>`.
      else throw new CriError(grpc.status.UNKNOWN, `failed to generate seccomp spec opts: invalid profile ${JSON.stringify(p)}`);
    }
    if (eff.profileType === 'Localhost') {
      try {
        eff.profile = await loadLocalhostProfile(this.seccompDir, eff.localhostRef ?? '');
      } catch (err) {
        if (err instanceof SeccompProfileError) {
          throw new CriError(grpc.status.UNKNOWN, `failed to generate seccomp spec opts: cannot load seccomp profile ${JSON.stringify(eff.localhostRef ?? '')}: ${err.message}`);
        }
        throw err;
      }
    }
    return eff;
  }

  async startContainer(id: string): Promise<void> {
    const c = this.container(id);
    if (c.state !== 'CONTAINER_CREATED') {
      throw new CriError(grpc.status.FAILED_PRECONDITION, `container ${JSON.stringify(c.id)} is in ${c.state} state: only a CONTAINER_CREATED container can be started`);
    }
    const s = this.sandboxes.get(c.sandboxId)!;
    if (s.state !== 'SANDBOX_READY') {
      throw new CriError(grpc.status.FAILED_PRECONDITION, `sandbox container ${JSON.stringify(s.id)} is not running`);
    }
    c.state = 'CONTAINER_RUNNING'; // claimed now, so a concurrent start fails
    if (c.logPath) {
      const log = new CriLogWriter(c.logPath);
      try {
        await log.open();
      } catch (err) {
        // As containerd: a container that could not start is EXITED with 128 and reason StartError.
        this.exitRecord(c, { exitCode: 128, reason: 'StartError', message: `failed to create container loggers: ${(err as Error).message}` });
        throw new CriError(grpc.status.UNKNOWN, `failed to start container ${JSON.stringify(c.id)}: failed to create container loggers: ${(err as Error).message}`);
      }
      c.log = log;
    }
    const p = new SimProcess(c.argv, {
      hostname: s.hostname, env: c.env, workingDir: c.config.working_dir || '/', files: c.files, view: c.view,
      out: (stream, text) => c.log?.write(stream, text),
      // A container created with stdin keeps it open for attach (streaming/attach.ts) to write to.
      stdin: c.config.stdin ? new StdinPipe() : undefined,
    });
    c.process = p;
    c.pid = p.pid;
    c.startedAt = nowNs();
    this.emit('CONTAINER_STARTED_EVENT', c.id, s);
    c.done = p.exited.then(async (e) => {
      // The log gets everything the process wrote before the container shows as exited.
      await c.log?.close();
      if (c.state === 'CONTAINER_RUNNING' && c.process === p) this.exitRecord(c, e);
    });
    p.start();
  }

  private exitRecord(c: ContainerRecord, e: ExitInfo): void {
    c.state = 'CONTAINER_EXITED';
    c.finishedAt = nowNs();
    c.exitCode = e.exitCode;
    c.reason = e.reason;
    c.message = e.message;
    const s = this.sandboxes.get(c.sandboxId);
    if (s) this.emit('CONTAINER_STOPPED_EVENT', c.id, s);
  }

  /** Resolves once the container is EXITED (its log flushed). */
  private async waitExited(c: ContainerRecord): Promise<void> {
    await c.done;
  }

  private async killContainer(c: ContainerRecord): Promise<void> {
    c.process?.kill(137);
    await this.waitExited(c);
  }

  /** SIGTERM with a grace period (see process.ts); idempotent for a container that is not running. */
  async stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    const c = this.container(id);
    if (c.state !== 'CONTAINER_RUNNING' || !c.process) return;
    await c.process.terminate(timeoutSeconds);
    await this.waitExited(c);
  }

  /** Kills a running container and removes it; unknown ids succeed (idempotent). */
  async removeContainer(id: string): Promise<void> {
    if (id === '') throw new CriError(grpc.status.INVALID_ARGUMENT, 'container_id is empty');
    const c = this.findContainer(id);
    if (!c) return;
    await this.killContainer(c);
    if (!this.containers.has(c.id)) return;
    this.containers.delete(c.id);
    this.indexed(this.containerIndex, c, false);
    this.bySandbox.get(c.sandboxId)?.delete(c);
    this.names.delete(c.name);
    const s = this.sandboxes.get(c.sandboxId);
    if (s) this.emit('CONTAINER_DELETED_EVENT', c.id, s);
  }

  async updateContainerResources(id: string, linux: LinuxContainerResources | null): Promise<void> {
    const c = this.container(id, 'failed to find container');
    if (c.state !== 'CONTAINER_CREATED' && c.state !== 'CONTAINER_RUNNING') {
      throw new CriError(grpc.status.FAILED_PRECONDITION, `container ${JSON.stringify(c.id)} is in ${c.state} state: resources can only be updated while it is created or running`);
    }
    if (linux) c.resources = linux;
  }

  async reopenContainerLog(id: string): Promise<void> {
    const c = this.container(id);
    if (c.state !== 'CONTAINER_RUNNING') {
      throw new CriError(grpc.status.FAILED_PRECONDITION, `container ${JSON.stringify(c.id)} is in ${c.state} state: cannot reopen the log of a container that is not running`);
    }
    if (!c.log) return; // no log path: nothing to reopen
    try {
      await c.log.reopen();
    } catch (err) {
      throw new CriError(grpc.status.UNKNOWN, `failed to reopen container log ${JSON.stringify(c.logPath)}: ${(err as Error).message}`);
    }
  }

  /**
   * Runs an ExecSync command. `timeoutSeconds` 0 means no limit; `cancelled` is the call's signal.
   * DEADLINE_EXCEEDED when the timeout passes first, as containerd answers.
   */
  async execSync(id: string, cmd: string[], timeoutSeconds: number, cancelled: AbortSignal): Promise<ExecResult> {
    const c = this.container(id, 'failed to exec in container: failed to find container');
    if (c.state !== 'CONTAINER_RUNNING' || !c.process) {
      throw new CriError(grpc.status.FAILED_PRECONDITION, `failed to exec in container: container is in ${c.state} state`);
    }
    if (cmd.length === 0) throw new CriError(grpc.status.INVALID_ARGUMENT, 'failed to exec in container: cmd must not be empty');
    const s = this.sandboxes.get(c.sandboxId)!;
    const ac = new AbortController();
    let why: 'timeout' | 'cancelled' | 'exited' | undefined;
    const stop = (w: typeof why) => { if (!why) { why = w; ac.abort(); } };
    const timer = timeoutSeconds > 0 ? setTimeout(() => stop('timeout'), timerDelay(timeoutSeconds * 1000)) : undefined;
    const onCancel = () => stop('cancelled');
    cancelled.addEventListener('abort', onCancel, { once: true });
    if (cancelled.aborted) stop('cancelled');
    c.process.exited.then(() => stop('exited'));
    try {
      return await runExec(cmd, { hostname: s.hostname, env: c.env, workingDir: c.config.working_dir || '/', files: c.files, view: c.view }, ac.signal);
    } catch (err) {
      if (isAborted(err)) {
        if (why === 'timeout') throw new CriError(grpc.status.DEADLINE_EXCEEDED, `failed to exec in container: timeout ${timeoutSeconds}s exceeded: context deadline exceeded`);
        if (why === 'exited') return { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exitCode: 137 };
        throw new CriError(grpc.status.CANCELLED, 'failed to exec in container: context canceled');
      }
      if (err instanceof UnknownProgramError) {
        throw new CriError(grpc.status.UNKNOWN, `failed to exec in container: failed to start exec ${JSON.stringify(newId())}: OCI runtime exec failed: exec failed: unable to start container process: ${err.message}: unknown`);
      }
      throw err;
    } finally {
      if (timer) clearTimeout(timer);
      cancelled.removeEventListener('abort', onCancel);
    }
  }

  /** Writes a checkpoint archive of a running container within the timeout (0: the default, 120 s). */
  async checkpointContainer(id: string, location: string, timeoutSeconds: number, cancelled: AbortSignal): Promise<void> {
    if (!this.checkpointSupported) throw new CriError(grpc.status.UNIMPLEMENTED, 'method CheckpointContainer not implemented');
    const c = this.container(id);
    if (c.state !== 'CONTAINER_RUNNING') {
      throw new CriError(grpc.status.FAILED_PRECONDITION, `container ${JSON.stringify(c.id)} is in ${c.state} state: only a running container can be checkpointed`);
    }
    if (!location) throw new CriError(grpc.status.INVALID_ARGUMENT, 'location of the checkpoint archive must be given');
    const s = this.sandboxes.get(c.sandboxId)!;
    const seconds = timeoutSeconds > 0 ? timeoutSeconds : DEFAULT_CHECKPOINT_TIMEOUT_S;
    let timer: NodeJS.Timeout | undefined;
    let onCancel: (() => void) | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new CriError(grpc.status.DEADLINE_EXCEEDED, `checkpointing container ${JSON.stringify(c.id)} did not finish within ${seconds}s`)), timerDelay(seconds * 1000));
      onCancel = () => reject(new CriError(grpc.status.CANCELLED, 'checkpoint cancelled'));
      cancelled.addEventListener('abort', onCancel, { once: true });
    });
    try {
      await Promise.race([
        writeCheckpoint(location, {
          id: c.id, name: c.metadata.name, sandboxId: s.id, image: c.imageSpec.image, config: c.config,
          createdAt: rfc3339Nano(c.createdAt), startedAt: rfc3339Nano(c.startedAt),
        }),
        limit,
      ]);
    } catch (err) {
      if (err instanceof CheckpointError) throw new CriError(grpc.status.INVALID_ARGUMENT, `failed to checkpoint container ${JSON.stringify(c.id)}: ${err.message}`);
      throw err;
    } finally {
      clearTimeout(timer);
      if (onCancel) cancelled.removeEventListener('abort', onCancel);
    }
  }

  // --- control ---------------------------------------------------------------------------------

  /** Ends a running container now with this code (the control API's "exit"); NOT_FOUND otherwise. */
  exitContainer(id: string, exitCode: number, reason?: string, message = ''): void {
    const c = this.findContainer(id);
    if (!c) throw new CriError(grpc.status.NOT_FOUND, `container ${JSON.stringify(id)} not found`);
    if (c.state !== 'CONTAINER_RUNNING' || !c.process) throw new CriError(grpc.status.NOT_FOUND, `container ${JSON.stringify(c.id)} is not running (${c.state})`);
    c.process.kill(exitCode, reason, message);
    // The state flips at once, so the control caller sees the exit; the log closes after.
    this.exitRecord(c, { exitCode, reason: reason ?? (exitCode === 0 ? 'Completed' : 'Error'), message });
  }

  /** Stops every process, clears sandboxes and containers (no events), resets images and conditions. */
  reset(): void {
    for (const c of this.containers.values()) { c.process?.kill(137); void c.log?.close(); }
    this.containers.clear();
    this.sandboxes.clear();
    this.sandboxIndex.clear();
    this.containerIndex.clear();
    this.bySandbox.clear();
    this.names.clear();
    this.images.reset();
    this.runtimeReady = { status: true, reason: '', message: '' };
    this.networkReady = { status: true, reason: '', message: '' };
    this.checkpointSupported = true;
    this.metricsEnabled = true;
    this.podCidr = '';
    this.nextIp = 2;
  }

  /** Ends every process and closes logs; events stop. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.containers.values()].map(async (c) => { c.process?.kill(137); await c.log?.close(); }));
  }

  snapshot(): { sandboxes: unknown[]; containers: unknown[]; images: unknown[] } {
    return {
      sandboxes: [...this.sandboxes.values()].map((s) => ({
        id: s.id, name: s.name, metadata: s.metadata, state: s.state, createdAt: s.createdAt.toString(), runtimeHandler: s.runtimeHandler,
        ip: s.ip, hostname: s.hostname, logDirectory: s.config.log_directory, labels: s.config.labels, annotations: s.config.annotations,
        seccomp: seccompView(s.seccomp),
        // LinuxPodSandboxConfig.sysctls as the runtime received them: what it sets in the sandbox's namespaces.
        sysctls: { ...(s.config.linux?.sysctls ?? {}) },
      })),
      containers: [...this.containers.values()].map((c) => ({
        id: c.id, name: c.name, sandboxId: c.sandboxId, metadata: c.metadata, image: c.imageSpec.image, imageId: c.imageId,
        state: c.state, createdAt: c.createdAt.toString(), startedAt: c.startedAt.toString(), finishedAt: c.finishedAt.toString(),
        exitCode: c.exitCode, reason: c.reason, message: c.message, logPath: c.logPath, argv: c.argv, pid: c.pid,
        labels: c.config.labels, annotations: c.config.annotations, mounts: c.config.mounts, resources: c.resources,
        seccomp: seccompView(c.seccomp),
      })),
      images: this.images.list().map(imageView),
    };
  }
}

/** The effective seccomp profile as it is shown (verbose info, control state): the loaded profile included. */
export function seccompView(e: EffectiveSeccomp): Record<string, unknown> {
  return { profileType: e.profileType, ...(e.localhostRef !== undefined ? { localhostRef: e.localhostRef } : {}), source: e.source, ...(e.profile ? { profile: e.profile } : {}) };
}

export type { ImageRecord };
