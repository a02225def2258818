// runtime.v1 RuntimeService of the mock CRI runtime: the gRPC handlers. Each handler records the call,
// passes the fault injector, then turns the request into a Runtime operation (state.ts) and the result
// into the response message. Errors are CriError, answered with their code and message as they are.
//
// Exec, Attach and PortForward answer the URL of the mock's streaming server (streaming/), after the checks
// containerd's criService makes (container found and running, sandbox found and ready) and the streaming
// server's own validation.
//
// Not implemented, answered UNIMPLEMENTED as a runtime without them answers: the Stream* list RPCs of KEP-5825 (alpha, behind the kubelet's CRIListStreaming gate; a
// kubelet falls back to the List* RPCs, as with containerd), and CheckpointContainer while the control
// API says the runtime lacks it.
import * as grpc from '@grpc/grpc-js';
import { StreamBudget, type StreamBounds } from '../../cri/stream-bound.js';
import type {
  ContainerEventMsg, ContainerStatusMsg, Labels, LinuxContainerResources, PodSandboxStatusMsg,
} from '../../cri/proto.js';
import { nowNs } from './clock.js';
import { CriError, RUNTIME_HANDLERS, seccompView, type ContainerRecord, type Runtime, type RuntimeEvent, type SandboxRecord } from './state.js';
import { PACKAGE_VERSION } from '../../reference/package-version.js';
import type { CallLog, Faults } from './faults.js';
import type { StreamingServer } from './streaming/server.js';
import type { AttachRequestMsg, ExecRequestMsg, PortForwardRequestMsg } from './streaming/types.js';
import { containerStats, metricDescriptors, sandboxMetrics, sandboxStats, type StatsContainer, type StatsSandbox } from './stats.js';

export interface ServiceDeps {
  runtime: Runtime;
  faults: Faults;
  calls: CallLog;
  /** The streaming server Exec, Attach and PortForward hand their requests to; absent: UNIMPLEMENTED. */
  streaming?: StreamingServer;
  /** Bounds on the events GetContainerEvents streams hold for clients that do not read; unset: the defaults. */
  eventStreamBounds?: Partial<StreamBounds>;
}

/**
 * Unsent event bytes a GetContainerEvents stream may hold (each event is a few KB), those of one
 * client connection's streams, and of all: past a bound the stream holding most is cut with
 * RESOURCE_EXHAUSTED (cri/stream-bound.ts).
 */
export const DEFAULT_EVENT_STREAM_BOUNDS: StreamBounds = { perStream: 8 * 1024 * 1024, perConnection: 32 * 1024 * 1024, total: 64 * 1024 * 1024 };

export const RUNTIME_NAME = 'orch-mock-cri';
/** The kubelet-facing API version string runtimes answer in VersionResponse.version. */
export const KUBELET_API_VERSION = '0.1.0';

/** The error a handler answers with: a CriError as it is, anything else INTERNAL. */
export function toServiceError(err: unknown): Partial<grpc.ServiceError> {
  if (err instanceof CriError) return { code: err.code, details: err.message, message: err.message };
  const message = `internal error of the mock CRI runtime: ${(err as Error)?.message ?? String(err)}`;
  return { code: grpc.status.INTERNAL, details: message, message };
}

/** An AbortSignal that fires when the client cancels the call or its deadline passes. */
function callSignal(call: { on(event: 'cancelled', fn: () => void): unknown }): AbortSignal {
  const ac = new AbortController();
  call.on('cancelled', () => ac.abort());
  return ac.signal;
}

/**
 * JSON as a Go runtime writes its verbose info: bytes fields (env values are proto `bytes`) as
 * base64 strings, not Node's `{type: "Buffer", data: [...]}`. The holder's raw value is checked,
 * since Buffer's own toJSON runs before a replacer sees it.
 */
function goJson(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
    const raw = this[key];
    return raw instanceof Uint8Array ? Buffer.from(raw).toString('base64') : v;
  });
}

/** Wraps a unary handler: call log, fault injection, then the operation. */
export function unary<Req, Res>(
  deps: Pick<ServiceDeps, 'faults' | 'calls'>,
  service: 'RuntimeService' | 'ImageService',
  rpc: string,
  fn: (req: Req, signal: AbortSignal) => Promise<Res> | Res,
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const signal = callSignal(call);
    deps.calls.record(service, rpc, call.request);
    const answer = (res: Res) => callback(null, res);
    const refuse = (err: unknown) => callback(toServiceError(err) as grpc.ServiceError);
    // The common case, no fault on this rpc, stays synchronous up to the operation: no promise
    // and no extra turn of the event loop per call (thousands of calls per second).
    if (!deps.faults.has(rpc)) {
      let res: Promise<Res> | Res;
      try {
        res = fn(call.request, signal);
      } catch (err) {
        refuse(err);
        return;
      }
      if (res instanceof Promise) res.then(answer, refuse);
      else answer(res);
      return;
    }
    deps.faults.before(rpc, signal, call.request)
      .then((fault) => {
        if (fault) throw new CriError(fault.code, fault.message);
        return fn(call.request, signal);
      })
      .then(answer, refuse);
  };
}

/** A server-streaming RPC the mock does not implement: call log and faults as for any RPC, then
 *  UNIMPLEMENTED with the reason, before any message. */
export function streamNotImplemented(
  deps: Pick<ServiceDeps, 'faults' | 'calls'>,
  service: 'RuntimeService' | 'ImageService',
  rpc: string,
  why: string,
): grpc.handleServerStreamingCall<unknown, unknown> {
  return (call) => {
    const signal = callSignal(call);
    deps.calls.record(service, rpc, call.request);
    const fail = (code: number, message: string) => call.emit('error', { code, details: message, message });
    deps.faults.before(rpc, signal, call.request).then((fault) => {
      if (signal.aborted) return;
      if (fault) fail(fault.code, fault.message);
      else fail(grpc.status.UNIMPLEMENTED, `method ${rpc} not implemented: ${why}`);
    }, (err) => call.emit('error', toServiceError(err)));
  };
}

/** Why the mock answers the Stream* list RPCs UNIMPLEMENTED. */
export const LIST_STREAMING_WHY = 'the mock CRI runtime does not implement CRI list streaming (KEP-5825); use the List* RPC';

// ---------------------------------------------------------------------------------------------
// Messages from records

function matchLabels(labels: Labels, selector: Labels | undefined): boolean {
  for (const [k, v] of Object.entries(selector ?? {})) if (labels[k] !== v) return false;
  return true;
}

export function sandboxStatusMessage(s: SandboxRecord): PodSandboxStatusMsg {
  const ns = s.config.linux?.security_context?.namespace_options ?? null;
  return {
    id: s.id,
    metadata: s.metadata,
    state: s.state,
    created_at: s.createdAt.toString(),
    network: { ip: s.ip, additional_ips: [] },
    linux: { namespaces: { options: ns } },
    labels: s.config.labels,
    annotations: s.config.annotations,
    runtime_handler: s.runtimeHandler,
  };
}

/** ContainerStatus.user: the identity CreateContainer decided (state.ts, users.ts); int64 as strings. */
function containerUser(c: ContainerRecord) {
  const u = c.user;
  return { linux: { uid: String(u.uid), gid: String(u.gid), supplemental_groups: u.supplementalGroups.map(String) } };
}

export function containerStatusMessage(rt: Runtime, c: ContainerRecord): ContainerStatusMsg {
  const image = rt.images.list().find((i) => i.id === c.imageId);
  return {
    id: c.id,
    metadata: c.metadata,
    state: c.state,
    created_at: c.createdAt.toString(),
    started_at: c.startedAt.toString(),
    finished_at: c.finishedAt.toString(),
    exit_code: c.exitCode,
    // As containerd: the image by its first tag (while the image is present), the digested reference.
    image: { ...c.imageSpec, image: image?.repoTags[0] ?? c.imageSpec.image },
    image_ref: c.imageRef,
    reason: c.reason,
    message: c.message,
    labels: c.config.labels,
    annotations: c.config.annotations,
    mounts: c.config.mounts,
    log_path: c.logPath,
    resources: c.resources ? { linux: c.resources } : null,
    image_id: c.imageId,
    user: containerUser(c),
    // The signal the container asked for; RUNTIME_DEFAULT when it did not (the mock has no image STOPSIGNAL).
    stop_signal: c.config.stop_signal ?? 'RUNTIME_DEFAULT',
  };
}

function containerMessage(c: ContainerRecord) {
  return {
    id: c.id,
    pod_sandbox_id: c.sandboxId,
    metadata: c.metadata,
    image: c.imageSpec,
    image_ref: c.imageId,
    state: c.state,
    created_at: c.createdAt.toString(),
    labels: c.config.labels,
    annotations: c.config.annotations,
    image_id: c.imageId,
  };
}

function sandboxMessage(s: SandboxRecord) {
  return {
    id: s.id,
    metadata: s.metadata,
    state: s.state,
    created_at: s.createdAt.toString(),
    labels: s.config.labels,
    annotations: s.config.annotations,
    runtime_handler: s.runtimeHandler,
  };
}

export function eventMessage(rt: Runtime, e: RuntimeEvent): ContainerEventMsg {
  return {
    container_id: e.containerId,
    container_event_type: e.type,
    created_at: e.at.toString(),
    pod_sandbox_status: sandboxStatusMessage(e.sandbox),
    containers_statuses: rt.containersOf(e.sandbox.id).map((c) => containerStatusMessage(rt, c)),
  };
}

function statsContainer(c: ContainerRecord, s: SandboxRecord): StatsContainer {
  return {
    id: c.id, name: c.metadata.name, sandboxId: s.id,
    podName: s.metadata.name, podNamespace: s.metadata.namespace, podUid: s.metadata.uid,
    startedAtNs: c.startedAt, running: c.state === 'CONTAINER_RUNNING',
    finishedAtNs: c.finishedAt > 0n ? c.finishedAt : undefined,
    image: c.imageSpec.image, attempt: c.metadata.attempt, labels: c.config.labels, annotations: c.config.annotations,
    memoryLimitBytes: c.resources ? BigInt(c.resources.memory_limit_in_bytes || '0') : undefined,
  };
}

function statsSandbox(rt: Runtime, s: SandboxRecord): StatsSandbox {
  return {
    id: s.id, podName: s.metadata.name, podNamespace: s.metadata.namespace, podUid: s.metadata.uid, attempt: s.metadata.attempt,
    createdAtNs: s.createdAt, ready: s.state === 'SANDBOX_READY', stoppedAtNs: s.stoppedAt > 0n ? s.stoppedAt : undefined,
    labels: s.config.labels, annotations: s.config.annotations,
    containers: rt.containersOf(s.id).map((c) => statsContainer(c, s)),
  };
}

/** A filter id names a record by full id or unique prefix (as containerd normalises it); no match: none. */
function filterId<T>(find: (id: string) => T | undefined, id: string): T | undefined | null {
  if (!id) return null; // no id filter
  try { return find(id); } catch { return undefined; }
}

const n = (v: string | number | undefined): number => Number(v ?? 0);

// ---------------------------------------------------------------------------------------------

export interface RuntimeServiceImpl {
  handlers: grpc.UntypedServiceImplementation;
  /** Ends every open GetContainerEvents stream with OK (the runtime is going away). */
  endEventStreams(): void;
}

export function runtimeService(deps: ServiceDeps): RuntimeServiceImpl {
  const rt = deps.runtime;
  /** Open event streams, so that closing the server can end them. */
  const streams = new Set<grpc.ServerWritableStream<unknown, ContainerEventMsg>>();
  const eventBudget = new StreamBudget({ ...DEFAULT_EVENT_STREAM_BOUNDS, ...Object.fromEntries(Object.entries(deps.eventStreamBounds ?? {}).filter(([, v]) => v !== undefined)) });
  const u = <Req, Res>(rpc: string, fn: (req: Req, signal: AbortSignal) => Promise<Res> | Res) => unary<Req, Res>(deps, 'RuntimeService', rpc, fn);
  const notImplemented = (rpc: string, why: string) => u(rpc, () => {
    throw new CriError(grpc.status.UNIMPLEMENTED, `method ${rpc} not implemented: ${why}`);
  });
  const streamNotImplementedHere = (rpc: string) => streamNotImplemented(deps, 'RuntimeService', rpc, LIST_STREAMING_WHY);
  /** containerd's checks before a streaming request: the container is known, and running. */
  const runningContainer = (id: string, notFound = `failed to find container ${JSON.stringify(id)} in store`) => {
    // An empty id: containerd's id index refuses the prefix, before the streaming server's own checks.
    if (!id) throw new CriError(grpc.status.UNKNOWN, `${notFound}: Prefix can't be empty`);
    const c = rt.findContainer(id);
    if (!c) throw new CriError(grpc.status.NOT_FOUND, `${notFound}: not found`);
    if (c.state !== 'CONTAINER_RUNNING') throw new CriError(grpc.status.UNKNOWN, `container is in ${c.state} state`);
  };

  const handlers: grpc.UntypedServiceImplementation = {
    Version: u('Version', () => ({
      version: KUBELET_API_VERSION, runtime_name: RUNTIME_NAME, runtime_version: PACKAGE_VERSION, runtime_api_version: 'v1',
    })),

    Status: u('Status', (req: { verbose: boolean }) => {
      const cond = (type: string, c: { status: boolean; reason: string; message: string }) => ({ type, status: c.status, reason: c.reason, message: c.message });
      return {
        status: { conditions: [cond('RuntimeReady', rt.runtimeReady), cond('NetworkReady', rt.networkReady)] },
        info: req.verbose ? {
          config: JSON.stringify({
            runtime: RUNTIME_NAME, version: PACKAGE_VERSION, root: rt.root, seccompDir: rt.seccompDir, cgroupDriver: rt.cgroupDriver,
            runtimeHandlers: RUNTIME_HANDLERS, podCidr: rt.podCidr, checkpointSupported: rt.checkpointSupported, metricsEnabled: rt.metricsEnabled,
            pullDelayMs: rt.images.pullDelayMs,
          }),
        } : {},
        runtime_handlers: RUNTIME_HANDLERS.map((name) => ({ name, features: { recursive_read_only_mounts: false, user_namespaces: false } })),
        features: { supplemental_groups_policy: false },
      };
    }),

    RuntimeConfig: u('RuntimeConfig', () => ({ linux: { cgroup_driver: rt.cgroupDriver } })),

    UpdateRuntimeConfig: u('UpdateRuntimeConfig', (req: { runtime_config: { network_config: { pod_cidr: string } | null } | null }) => {
      const cidr = req.runtime_config?.network_config?.pod_cidr;
      if (cidr) rt.podCidr = cidr;
      return {};
    }),

    // --- sandboxes ---
    RunPodSandbox: u('RunPodSandbox', async (req: { config: any; runtime_handler: string }) => {
      const s = await rt.runPodSandbox(req.config, req.runtime_handler);
      return { pod_sandbox_id: s.id };
    }),
    StopPodSandbox: u('StopPodSandbox', async (req: { pod_sandbox_id: string }) => {
      await rt.stopPodSandbox(req.pod_sandbox_id);
      return {};
    }),
    RemovePodSandbox: u('RemovePodSandbox', async (req: { pod_sandbox_id: string }) => {
      await rt.removePodSandbox(req.pod_sandbox_id);
      return {};
    }),
    PodSandboxStatus: u('PodSandboxStatus', (req: { pod_sandbox_id: string; verbose: boolean }) => {
      if (req.pod_sandbox_id === '') throw new CriError(grpc.status.INVALID_ARGUMENT, 'pod_sandbox_id is empty');
      const s = rt.findSandbox(req.pod_sandbox_id);
      if (!s) throw new CriError(grpc.status.NOT_FOUND, 'an error occurred when try to find sandbox: not found');
      return {
        status: sandboxStatusMessage(s),
        info: req.verbose ? {
          info: goJson({
            pid: s.pid, processStatus: s.state === 'SANDBOX_READY' ? 'running' : 'stopped', runtimeHandler: s.runtimeHandler,
            runtimeType: 'io.containerd.runc.v2', name: s.name, hostname: s.hostname, hostNetwork: s.hostNetwork,
            seccomp: seccompView(s.seccomp), config: s.config,
          }),
        } : {},
        containers_statuses: rt.containersOf(s.id).map((c) => containerStatusMessage(rt, c)),
        timestamp: nowNs().toString(),
      };
    }),
    ListPodSandbox: u('ListPodSandbox', (req: { filter: { id: string; state: { state: string } | null; label_selector: Labels } | null }) => {
      const f = req.filter;
      const byId = filterId((id) => rt.findSandbox(id), f?.id ?? '');
      if (byId === undefined) return { items: [] };
      const items = [...rt.sandboxesFor(f?.label_selector)].filter((s) => (byId === null || s === byId)
        && (!f?.state || s.state === f.state.state)
        && matchLabels(s.config.labels, f?.label_selector));
      return { items: items.map(sandboxMessage) };
    }),
    StreamPodSandboxes: streamNotImplementedHere('StreamPodSandboxes'),
    UpdatePodSandboxResources: u('UpdatePodSandboxResources', async (req: { pod_sandbox_id: string; overhead: LinuxContainerResources | null; resources: LinuxContainerResources | null }) => {
      await rt.updatePodSandboxResources(req.pod_sandbox_id, req.overhead, req.resources);
      return {};
    }),

    // --- containers ---
    CreateContainer: u('CreateContainer', async (req: { pod_sandbox_id: string; config: any }) => {
      const c = await rt.createContainer(req.pod_sandbox_id, req.config);
      return { container_id: c.id };
    }),
    StartContainer: u('StartContainer', async (req: { container_id: string }) => {
      await rt.startContainer(req.container_id);
      return {};
    }),
    StopContainer: u('StopContainer', async (req: { container_id: string; timeout: string }) => {
      await rt.stopContainer(req.container_id, n(req.timeout));
      return {};
    }),
    RemoveContainer: u('RemoveContainer', async (req: { container_id: string }) => {
      await rt.removeContainer(req.container_id);
      return {};
    }),
    ListContainers: u('ListContainers', (req: { filter: { id: string; state: { state: string } | null; pod_sandbox_id: string; label_selector: Labels } | null }) => {
      const f = req.filter;
      const byId = filterId((id) => rt.findContainer(id), f?.id ?? '');
      const bySandbox = filterId((id) => rt.findSandbox(id), f?.pod_sandbox_id ?? '');
      if (byId === undefined || bySandbox === undefined) return { containers: [] };
      const list = [...rt.containersFor(f?.label_selector)].filter((c) => (byId === null || c === byId)
        && (bySandbox === null || c.sandboxId === bySandbox.id)
        && (!f?.state || c.state === f.state.state)
        && matchLabels(c.config.labels, f?.label_selector));
      return { containers: list.map(containerMessage) };
    }),
    StreamContainers: streamNotImplementedHere('StreamContainers'),
    ContainerStatus: u('ContainerStatus', (req: { container_id: string; verbose: boolean }) => {
      const c = rt.container(req.container_id);
      const s = rt.sandboxes.get(c.sandboxId);
      return {
        status: containerStatusMessage(rt, c),
        info: req.verbose ? {
          info: goJson({
            sandboxID: c.sandboxId, pid: c.pid, removing: false, runtimeType: 'io.containerd.runc.v2', name: c.name,
            seccomp: seccompView(c.seccomp),
            config: c.config,
            runtimeSpec: {
              hostname: s?.hostname,
              process: { args: c.argv, env: Object.entries(c.env).map(([k, v]) => `${k}=${v}`), cwd: c.config.working_dir || '/', user: containerUser(c).linux },
              linux: { resources: c.resources, seccomp: c.seccomp.profile ?? null },
            },
          }),
        } : {},
      };
    }),
    UpdateContainerResources: u('UpdateContainerResources', async (req: { container_id: string; linux: LinuxContainerResources | null }) => {
      await rt.updateContainerResources(req.container_id, req.linux);
      return {};
    }),
    ReopenContainerLog: u('ReopenContainerLog', async (req: { container_id: string }) => {
      await rt.reopenContainerLog(req.container_id);
      return {};
    }),

    // --- exec ---
    ExecSync: u('ExecSync', async (req: { container_id: string; cmd: string[]; timeout: string }, signal) => {
      const r = await rt.execSync(req.container_id, req.cmd, n(req.timeout), signal);
      return { stdout: r.stdout, stderr: r.stderr, exit_code: r.exitCode };
    }),
    // As containerd's criService.Exec/Attach/PortForward: the container (sandbox) must exist (NOT_FOUND) and
    // run (be ready), else a plain error (UNKNOWN); then the streaming server validates and answers the URL.
    Exec: deps.streaming
      ? u('Exec', (req: ExecRequestMsg) => {
        runningContainer(req.container_id);
        return deps.streaming!.getExec({ ...req, cmd: req.cmd ?? [] });
      })
      : notImplemented('Exec', 'the mock CRI runtime was started without its streaming server (use ExecSync)'),
    Attach: deps.streaming
      ? u('Attach', (req: AttachRequestMsg) => {
        runningContainer(req.container_id, 'failed to find container in store');
        return deps.streaming!.getAttach(req);
      })
      : notImplemented('Attach', 'the mock CRI runtime was started without its streaming server'),
    PortForward: deps.streaming
      ? u('PortForward', (req: PortForwardRequestMsg) => {
        // An empty id is refused by containerd's id index before the streaming server sees the request.
        if (!req.pod_sandbox_id) throw new CriError(grpc.status.UNKNOWN, 'failed to find sandbox "": Prefix can\'t be empty');
        const s = rt.findSandbox(req.pod_sandbox_id);
        if (!s) throw new CriError(grpc.status.NOT_FOUND, `failed to find sandbox ${JSON.stringify(req.pod_sandbox_id)}: not found`);
        if (s && s.state !== 'SANDBOX_READY') throw new CriError(grpc.status.UNKNOWN, 'sandbox container is not running');
        return deps.streaming!.getPortForward({ ...req, port: req.port ?? [] });
      })
      : notImplemented('PortForward', 'the mock CRI runtime was started without its streaming server'),

    CheckpointContainer: u('CheckpointContainer', async (req: { container_id: string; location: string; timeout: string }, signal) => {
      await rt.checkpointContainer(req.container_id, req.location, n(req.timeout), signal);
      return {};
    }),

    // --- stats and metrics ---
    ContainerStats: u('ContainerStats', (req: { container_id: string }) => {
      const c = rt.container(req.container_id, 'failed to find container');
      return { stats: containerStats(statsContainer(c, rt.sandboxes.get(c.sandboxId)!), nowNs()) };
    }),
    ListContainerStats: u('ListContainerStats', (req: { filter: { id: string; pod_sandbox_id: string; label_selector: Labels } | null }) => {
      const f = req.filter;
      const byId = filterId((id) => rt.findContainer(id), f?.id ?? '');
      const bySandbox = filterId((id) => rt.findSandbox(id), f?.pod_sandbox_id ?? '');
      if (byId === undefined || bySandbox === undefined) return { stats: [] };
      const now = nowNs();
      const list = [...rt.containersFor(f?.label_selector)].filter((c) => c.state === 'CONTAINER_RUNNING'
        && (byId === null || c === byId) && (bySandbox === null || c.sandboxId === bySandbox.id)
        && matchLabels(c.config.labels, f?.label_selector));
      return { stats: list.map((c) => containerStats(statsContainer(c, rt.sandboxes.get(c.sandboxId)!), now)) };
    }),
    StreamContainerStats: streamNotImplementedHere('StreamContainerStats'),
    PodSandboxStats: u('PodSandboxStats', (req: { pod_sandbox_id: string }) => {
      const s = rt.sandbox(req.pod_sandbox_id, 'an error occurred when trying to find sandbox');
      return { stats: sandboxStats(statsSandbox(rt, s), nowNs()) };
    }),
    ListPodSandboxStats: u('ListPodSandboxStats', (req: { filter: { id: string; label_selector: Labels } | null }) => {
      const f = req.filter;
      const byId = filterId((id) => rt.findSandbox(id), f?.id ?? '');
      if (byId === undefined) return { stats: [] };
      const now = nowNs();
      const list = [...rt.sandboxesFor(f?.label_selector)].filter((s) => s.state === 'SANDBOX_READY'
        && (byId === null || s === byId) && matchLabels(s.config.labels, f?.label_selector));
      return { stats: list.map((s) => sandboxStats(statsSandbox(rt, s), now)) };
    }),
    StreamPodSandboxStats: streamNotImplementedHere('StreamPodSandboxStats'),
    ListMetricDescriptors: u('ListMetricDescriptors', () => ({ descriptors: metricDescriptors() })),
    ListPodSandboxMetrics: u('ListPodSandboxMetrics', () => {
      if (!rt.metricsEnabled) return { pod_metrics: [] };
      const now = nowNs();
      const ready = [...rt.sandboxes.values()].filter((s) => s.state === 'SANDBOX_READY');
      return { pod_metrics: ready.map((s) => sandboxMetrics(statsSandbox(rt, s), now)) };
    }),
    StreamPodSandboxMetrics: streamNotImplementedHere('StreamPodSandboxMetrics'),

    // --- events ---
    GetContainerEvents: (call: grpc.ServerWritableStream<unknown, ContainerEventMsg>) => {
      const signal = callSignal(call);
      deps.calls.record('RuntimeService', 'GetContainerEvents', call.request);
      const bounded = eventBudget.open(call);
      const listener = (e: RuntimeEvent) => {
        if (signal.aborted) return;
        const msg = eventMessage(rt, e);
        // Cut (its client left too much unread): the reset ended the call.
        if (!bounded.write(msg, JSON.stringify(msg).length)) unsubscribe();
      };
      const unsubscribe = () => { rt.events.off('event', listener); bounded.forget(); };
      signal.addEventListener('abort', unsubscribe, { once: true });
      call.on('close', unsubscribe);
      call.on('finish', unsubscribe);
      // Subscribe only once the fault check lets the call through: a faulted call gets no events.
      deps.faults.before('GetContainerEvents', signal).then((fault) => {
        if (signal.aborted) return;
        if (fault) { call.emit('error', { code: fault.code, details: fault.message, message: fault.message }); return; }
        rt.events.on('event', listener);
        // Headers now: the client's 'metadata' event tells it that it is subscribed.
        call.sendMetadata(new grpc.Metadata());
        streams.add(call);
        const done = () => streams.delete(call);
        signal.addEventListener('abort', done, { once: true });
        call.on('close', done);
      }, (err) => call.emit('error', toServiceError(err)));
    },
  };

  return {
    handlers,
    endEventStreams() {
      for (const s of streams) { try { s.end(); } catch { /* already gone */ } }
      streams.clear();
    },
  };
}
