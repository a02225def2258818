// A pod's status as the agent computes it from what the runtime reports (upstream kubelet's
// generateAPIPodStatus / getPhase / the status manager's condition generators, simplified to what the
// reference runs: no probes, so a running container is started and ready). Pure: the caller passes the
// runtime's view and the worker's waiting reasons, and compares the result with what it wrote last.
import type { CriContainerStatus } from './runtime.js';

export interface ContainerView {
  /** The latest instance's status, absent while none was created. */
  latest?: CriContainerStatus;
  /** The instance before it, for lastState. */
  previous?: CriContainerStatus;
  /** Why the container is not running, as the worker recorded it (ErrImagePull, CrashLoopBackOff, ...). */
  waiting?: { reason: string; message?: string };
}

export interface PodView {
  pod: any;
  /** The runtime's name, for containerID `<runtime>://<id>`. */
  runtimeName: string;
  hostIP?: string;
  podIP?: string;
  podIPs?: string[];
  sandboxReady: boolean;
  containers: Map<string, ContainerView>;
  now: string;
}

/** Nanoseconds since the epoch (decimal string) to RFC 3339, whole seconds as the API shows them. */
export function nsToTime(ns: string | undefined): string | undefined {
  if (!ns || ns === '0') return undefined;
  const ms = Number(BigInt(ns) / 1_000_000n);
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

function stateOf(s: CriContainerStatus, runtimeName: string): any {
  switch (s.state) {
    case 'CONTAINER_RUNNING':
      return { running: { startedAt: nsToTime(s.started_at) } };
    case 'CONTAINER_EXITED': {
      const exitCode = Number(s.exit_code);
      return {
        terminated: {
          exitCode,
          reason: s.reason || (exitCode === 0 ? 'Completed' : 'Error'),
          ...(s.message ? { message: s.message } : {}),
          startedAt: nsToTime(s.started_at),
          finishedAt: nsToTime(s.finished_at),
          containerID: `${runtimeName}://${s.id}`,
        },
      };
    }
    case 'CONTAINER_CREATED':
      return { waiting: { reason: 'ContainerCreating' } };
    default:
      return { waiting: { reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated' } };
  }
}

function containerStatus(c: any, v: ContainerView | undefined, view: PodView, defaultWaiting: string): any {
  const latest = v?.latest;
  const out: any = {
    name: c.name,
    state: { waiting: { reason: defaultWaiting } },
    lastState: {},
    ready: false,
    restartCount: 0,
    image: c.image,
    imageID: '',
    started: false,
  };
  if (latest) {
    out.state = stateOf(latest, view.runtimeName);
    out.restartCount = Number(latest.metadata?.attempt ?? 0);
    out.image = latest.image?.image || c.image;
    out.imageID = latest.image_ref ?? '';
    out.containerID = `${view.runtimeName}://${latest.id}`;
    const running = latest.state === 'CONTAINER_RUNNING';
    out.ready = running;
    out.started = running;
  }
  // A container waiting to restart shows the worker's reason (CrashLoopBackOff, ErrImagePull, ...)
  // with the instance that ended as lastState, as upstream does.
  if (v?.waiting && latest?.state !== 'CONTAINER_RUNNING') {
    if (latest?.state === 'CONTAINER_EXITED') out.lastState = stateOf(latest, view.runtimeName);
    out.state = { waiting: { reason: v.waiting.reason, ...(v.waiting.message ? { message: v.waiting.message } : {}) } };
  } else if (v?.previous?.state === 'CONTAINER_EXITED') {
    out.lastState = stateOf(v.previous, view.runtimeName);
  }
  return out;
}

/** Upstream getPhase for the containers' statuses and the restart policy. */
export function podPhase(spec: any, init: any[], regular: any[]): string {
  const policy = spec.restartPolicy ?? 'Always';
  for (const s of init) {
    const t = s.state.terminated;
    if (t && t.exitCode === 0) continue;
    if (policy === 'Never' && t) return 'Failed';
    if (policy === 'Never' && s.lastState?.terminated && s.lastState.terminated.exitCode !== 0) return 'Failed';
    return 'Pending'; // still initializing
  }
  let waiting = 0, running = 0, stopped = 0, succeeded = 0;
  for (const s of regular) {
    if (s.state.running) running++;
    else if (s.state.terminated) {
      stopped++;
      if (s.state.terminated.exitCode === 0) succeeded++;
    } else if (s.state.waiting) {
      if (s.lastState?.terminated) {
        stopped++;
        if (s.lastState.terminated.exitCode === 0) succeeded++;
      } else waiting++;
    }
  }
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped > 0) {
    if (policy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    if (policy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}

function condition(type: string, ok: boolean, old: any[] | undefined, now: string, reason?: string, message?: string): any {
  const status = ok ? 'True' : 'False';
  const prev = old?.find((c) => c.type === type);
  return {
    type, status,
    lastProbeTime: null,
    lastTransitionTime: prev && prev.status === status && prev.lastTransitionTime ? prev.lastTransitionTime : now,
    ...(!ok && reason ? { reason } : {}),
    ...(!ok && message ? { message } : {}),
  };
}

/** The pod's status (the fields the agent owns; others, such as nominatedNodeName, are left alone). */
export function computePodStatus(view: PodView): any {
  const pod = view.pod;
  const spec = pod.spec ?? {};
  const old = pod.status ?? {};
  const initSpecs: any[] = spec.initContainers ?? [];
  const regularSpecs: any[] = spec.containers ?? [];

  const init = initSpecs.map((c) => containerStatus(c, view.containers.get(c.name), view, 'PodInitializing'));
  const initialized = init.every((s) => s.state.terminated?.exitCode === 0);
  const regular = regularSpecs.map((c) => containerStatus(c, view.containers.get(c.name), view, initialized ? 'ContainerCreating' : 'PodInitializing'));

  const phase = podPhase(spec, init, regular);
  const unready = regular.filter((s) => !s.ready).map((s) => s.name);
  const incomplete = init.filter((s) => s.state.terminated?.exitCode !== 0).map((s) => s.name);
  const terminal = phase === 'Succeeded' || phase === 'Failed';
  const oldConds: any[] = old.conditions ?? [];
  const ours = new Set(['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled']);

  const conditions = [
    condition('PodReadyToStartContainers', view.sandboxReady && !!view.podIP, oldConds, view.now),
    terminal && initialized
      ? condition('Initialized', true, oldConds, view.now)
      : condition('Initialized', incomplete.length === 0, oldConds, view.now, 'ContainersNotInitialized', `containers with incomplete status: [${incomplete.join(' ')}]`),
    terminal
      ? condition('Ready', false, oldConds, view.now, 'PodCompleted')
      : condition('Ready', unready.length === 0, oldConds, view.now, 'ContainersNotReady', `containers with unready status: [${unready.join(' ')}]`),
    terminal
      ? condition('ContainersReady', false, oldConds, view.now, 'PodCompleted')
      : condition('ContainersReady', unready.length === 0, oldConds, view.now, 'ContainersNotReady', `containers with unready status: [${unready.join(' ')}]`),
    oldConds.find((c) => c.type === 'PodScheduled') ?? condition('PodScheduled', true, oldConds, view.now),
    // Conditions others own (DisruptionTarget, readiness gates) are kept as they are.
    ...oldConds.filter((c) => !ours.has(c.type)),
  ];

  const status: any = {
    phase,
    conditions,
    startTime: old.startTime ?? view.now,
    initContainerStatuses: init.length ? init : undefined,
    containerStatuses: regular,
  };
  if (view.hostIP) {
    status.hostIP = view.hostIP;
    status.hostIPs = [{ ip: view.hostIP }];
  }
  const ips = view.podIPs?.length ? view.podIPs : view.podIP ? [view.podIP] : [];
  if (ips.length) {
    status.podIP = ips[0];
    status.podIPs = ips.map((ip) => ({ ip }));
  }
  if (old.qosClass) status.qosClass = old.qosClass;
  return status;
}

/** Compares two statuses ignoring key order; used to skip writes that would change nothing. */
export function sameStatus(a: unknown, b: unknown): boolean {
  return stableJson(a) === stableJson(b);
}

function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).filter((k) => (v as any)[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${stableJson((v as any)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}
