// One worker per pod (spec 001 §1): each pass reconciles the pod's spec with the runtime's containers
// by running SyncPod (sandbox, images, init containers in order, containers, restarts with back-off) or,
// once the pod is being deleted or is gone, SyncTerminatingPod (stop with the grace period, remove the
// containers and sandboxes) and the final delete of the pod object with grace 0, as upstream's status
// manager does. Passes of one pod never overlap: a trigger during a pass runs one more pass after it.
// Before its first pass a pod is admitted (admission.ts), one pod at a time so that each decision counts
// the pods admitted before it; a rejected pod is failed through the status subresource and never
// reaches the runtime, not even when it is deleted.
import { broken } from './breaks.js';
import * as os from 'node:os';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isNotFound, type ApiClient } from '../client/api-client.js';
import {
  ANNOTATION_RESTART_COUNT, LABEL_CONTAINER_NAME, LABEL_POD_NAME, LABEL_POD_NAMESPACE, LABEL_POD_UID,
  runtimeMessage, type CriContainerStatus, type CriSandbox, type Runtime,
} from './runtime.js';
import { computePodStatus, sameStatus, type ContainerView } from './pod-status.js';
import { effectiveSeccomp, SeccompFieldError } from './seccomp.js';
import type { PodResourceRecords } from './root-dir.js';
import { admitPod, localNode, rejectedStatus, SysctlAllowlist, type AdmitResult } from './admission.js';
import { timerDelay } from '../../cri/timers.js';
import { podRef, REASONS, type EventSink } from './events.js';

export interface PodWorkersOptions {
  /** Absent in standalone mode: no status writes, no deletes. */
  api?: ApiClient;
  runtime: Runtime;
  runtimeName(): string;
  nodeName: string;
  rootDir: string;
  /** Where pod log directories go (podLogsDir; default <rootDir>/pods). */
  podLogsDir?: string;
  hostIP?: string;
  /** Restart and image-pull back-off: base (default 10 s) doubling up to max (default 5 min). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** seccompDefault of the configuration: RuntimeDefault for containers without a profile (§2.4). */
  seccompDefault?: boolean;
  /** allocated_pods_state / actuated_pods_state (§2.1): written on admission and once containers start. */
  records?: { allocatedPods: PodResourceRecords; actuatedPods: PodResourceRecords };
  /**
   * The Node pods are admitted against (labels, allocatable). Default: the Node from the API, or, in
   * standalone mode or when it cannot be read, the local machine's (admission.ts localNode).
   */
  node?(): Promise<any>;
  /** The kernel release sysctls are checked against (§2.5; default: the running kernel's). */
  kernelRelease?: string;
  /** allowedUnsafeSysctls of the configuration: names or `prefix*` patterns, namespaced only. */
  allowedUnsafeSysctls?: readonly string[];
  onError?(err: unknown, pod: string): void;
  /** Where the agent's events about pods go (events.ts); absent: none are recorded. */
  events?: EventSink;
}

/** Upstream's flowcontrol.Backoff: per key, base doubling to max, forgotten after 2 × max idle. */
export class Backoff {
  private readonly entries = new Map<string, { delay: number; last: number }>();
  constructor(private readonly base: number, private readonly max: number) {}
  /** True while `since` (ms) is less than the key's current delay ago. */
  inBackoffSince(key: string, since: number, now = Date.now()): boolean {
    const e = this.entries.get(key);
    return !!e && now - since < e.delay;
  }
  delay(key: string): number { return this.entries.get(key)?.delay ?? 0; }
  next(key: string, now = Date.now()): number {
    const e = this.entries.get(key);
    const delay = !e || now - e.last > 2 * this.max ? this.base : Math.min(e.delay * 2, this.max);
    this.entries.set(key, { delay, last: now });
    return delay;
  }
  forgetPrefix(prefix: string): void {
    for (const k of this.entries.keys()) if (k.startsWith(prefix)) this.entries.delete(k);
  }
}

interface Entry {
  uid: string;
  pod?: any;
  /** The pod object is gone from the API (or was never there: an orphan found in the runtime). */
  gone: boolean;
  busy: boolean;
  again: boolean;
  timer?: NodeJS.Timeout;
  waiting: Map<string, { reason: string; message?: string }>;
  lastStatus?: any;
  /** The status this agent computed last, written or not (what the pod info service serves). */
  localStatus?: any;
  done: boolean;
  /** The pod's allocated / actuated records were written (for this spec object). */
  allocated?: boolean;
  actuated?: boolean;
  /** The admission decision, made once before the first pass that would touch the runtime. */
  admission?: AdmitResult;
}

const podKey = (pod: any) => `${pod.metadata.namespace}/${pod.metadata.name}`;
const podFullName = (pod: any) => `${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`;
const podPath = (pod: any) => `/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}`;

/** Images without a tag or with :latest are pulled Always by default, as the API server defaults them. */
function pullPolicy(c: any): string {
  if (c.imagePullPolicy) return c.imagePullPolicy;
  const ref = String(c.image ?? '');
  const last = ref.split('/').pop() ?? '';
  return ref.includes('@') || (last.includes(':') && !last.endsWith(':latest')) ? 'IfNotPresent' : 'Always';
}

/** $(VAR) references in command and args, as upstream expands them; $$ escapes a dollar. */
export function expand(s: string, env: Map<string, string>): string {
  return s.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (m, name) => (m === '$$' ? '$' : env.has(name) ? env.get(name)! : m));
}

class ConfigError extends Error {}

/** The fields whose change needs a sync pass (upstream's checkAndUpdatePod: spec, labels, annotations, deletion). */
function syncedFields(pod: any): unknown {
  const m = pod.metadata ?? {};
  return { spec: pod.spec, labels: m.labels, annotations: m.annotations, deletionTimestamp: m.deletionTimestamp, deletionGracePeriodSeconds: m.deletionGracePeriodSeconds };
}

export class PodWorkers {
  private readonly entries = new Map<string, Entry>();
  private readonly backoff: Backoff;
  private closed = false;
  /** Set once the first pod list is known: before it, runtime pods without a known pod are not orphans yet. */
  private synced = false;

  private readonly sysctls: SysctlAllowlist;
  /** Admissions run one after another; those queued together share one read of the Node. */
  private admitChain: Promise<unknown> = Promise.resolve();
  private admitting = 0;
  private batchNode: Promise<any> | undefined;
  private readonly listeners = new Set<(uid: string) => void>();

  constructor(private readonly o: PodWorkersOptions) {
    this.backoff = new Backoff(o.backoffBaseMs ?? 10_000, o.backoffMaxMs ?? 300_000);
    // Throws on a non-namespaced allowedUnsafeSysctls entry: a configuration error, refused at start.
    this.sysctls = new SysctlAllowlist(o.kernelRelease ?? os.release(), o.allowedUnsafeSysctls ?? []);
  }

  /** An event about the pod itself. */
  private podEvent(pod: any, type: 'Normal' | 'Warning', reason: string, action: string, note: string): void {
    if (this.o.events && pod && !broken('events-pods-none')) this.o.events.record(podRef(pod), type, reason, action, note);
  }

  /** An event about container `c` of the pod (upstream's container reference); queued, never waited on. */
  private containerEvent(pod: any, c: any, type: 'Normal' | 'Warning', reason: string, action: string, note: string): void {
    // Test-only (breaks.ts): the agent records nothing about its pods.
    if (!this.o.events || !pod || broken('events-pods-none')) return;
    const init = (pod.spec?.initContainers ?? []).some((i: any) => i.name === c.name);
    this.o.events.record(podRef(pod, { name: c.name, init }), type, reason, action, note);
  }

  /** A pod bound to this node was added or changed. */
  update(pod: any): void {
    const uid = pod.metadata.uid;
    const e = this.entry(uid);
    const old = e.pod;
    e.pod = pod;
    this.changed(uid);
    // As upstream's pod config: a change of the status alone (our own write coming back on the watch)
    // reconciles the stored pod without a sync pass; the PLEG and the periodic resync still run them.
    if (old && !e.gone && old.metadata?.uid === uid && e.admission && sameStatus(syncedFields(old), syncedFields(pod))) return;
    this.trigger(uid);
  }

  /** The pod object is gone: its containers are stopped and removed. */
  remove(pod: any): void {
    const e = this.entry(pod.metadata.uid);
    e.pod ??= pod;
    e.gone = true;
    this.changed(e.uid);
    this.trigger(pod.metadata.uid);
  }

  /** The full set of pods is known (first list, or a relist): pods not in it are gone. */
  setAll(pods: any[]): void {
    const uids = new Set(pods.map((p) => p.metadata.uid));
    for (const [uid, e] of this.entries) if (!uids.has(uid) && e.pod) { e.gone = true; this.changed(uid); this.trigger(uid); }
    // Oldest first, as upstream admits them: on a full node the newer pods are the ones rejected.
    const byAge = [...pods].sort((a, b) => String(a.metadata.creationTimestamp ?? '').localeCompare(String(b.metadata.creationTimestamp ?? '')));
    for (const p of byAge) this.update(p);
    this.synced = true;
  }

  /** Something changed in the runtime for this pod (PLEG): run a pass. Unknown uids are orphans. */
  trigger(uid: string): void {
    if (this.closed) return;
    let e = this.entries.get(uid);
    if (!e) {
      if (!this.synced) return;
      e = this.entry(uid);
      e.gone = true;
    }
    if (e.busy) { e.again = true; return; }
    void this.run(e);
  }

  /** The pods the workers know (for /pods later). */
  pods(): any[] { return [...this.entries.values()].filter((e) => e.pod && !e.gone).map((e) => e.pod); }

  /**
   * Listens for changes of what the workers know of a pod: added, its object or the status computed
   * for it changed, or forgotten. Called synchronously with the pod's UID; returns the unsubscribe.
   */
  onChange(fn: (uid: string) => void): () => void {
    this.listeners.add(fn);
    return () => { this.listeners.delete(fn); };
  }

  /** A known pod (not gone) with the status computed for it last, written or not. */
  podState(uid: string): { pod: any; localStatus?: any } | undefined {
    const e = this.entries.get(uid);
    return e?.pod && !e.gone ? { pod: e.pod, localStatus: e.localStatus } : undefined;
  }

  private changed(uid: string): void {
    for (const fn of this.listeners) {
      try {
        fn(uid);
      } catch (err) {
        this.o.onError?.(err, uid);
      }
    }
  }

  private entry(uid: string): Entry {
    let e = this.entries.get(uid);
    if (!e) {
      e = { uid, gone: false, busy: false, again: false, waiting: new Map(), done: false };
      this.entries.set(uid, e);
    }
    return e;
  }

  private async run(e: Entry): Promise<void> {
    e.busy = true;
    try {
      do {
        e.again = false;
        try {
          if (e.gone || e.pod?.metadata?.deletionTimestamp) await this.syncTerminating(e);
          else if ((e.admission ??= await this.admit(e)).admit) await this.syncPod(e);
          else await this.writeStatus(e, rejectedStatus(e.pod, e.admission, new Date().toISOString().replace(/\.\d+Z$/, 'Z')));
        } catch (err) {
          this.o.onError?.(err, e.pod ? podKey(e.pod) : e.uid);
          this.retryLater(e, 1000);
        }
      } while (e.again && !this.closed && !e.done);
    } finally {
      e.busy = false;
    }
  }

  /** Pods counted against the node: admitted, not finished, not gone. */
  private admittedPods(except: Entry): any[] {
    return [...this.entries.values()]
      .filter((x) => x !== except && x.admission?.admit && !x.done && !x.gone && x.pod && x.pod.status?.phase !== 'Succeeded' && x.pod.status?.phase !== 'Failed')
      .map((x) => x.pod);
  }

  private async readNode(): Promise<any> {
    if (this.o.node) return this.o.node();
    if (this.o.api) {
      try {
        return await this.o.api.get(`/api/v1/nodes/${this.o.nodeName}`);
      } catch (err) {
        // Upstream's getNodeAnyWay: without the Node object, the initial node built from the machine.
        this.o.onError?.(err, `node ${this.o.nodeName}`);
      }
    }
    return localNode(this.o.nodeName);
  }

  /**
   * Admission (admission.ts), serialized: the decision for one pod sees every pod admitted before it.
   * A pod that is already finished is not admitted again (upstream skips terminal pods) but is let through
   * to the pass that reports it.
   */
  private admit(e: Entry): Promise<AdmitResult> {
    const phase = e.pod?.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return Promise.resolve({ admit: true });
    this.admitting++;
    const run = this.admitChain.then(async () => {
      this.batchNode ??= this.readNode();
      const node = await this.batchNode;
      return admitPod(e.pod, node, this.admittedPods(e), this.sysctls);
    }).finally(() => { if (--this.admitting === 0) this.batchNode = undefined; });
    this.admitChain = run.catch(() => {});
    return run;
  }

  private retryLater(e: Entry, ms: number): void {
    if (this.closed || e.done) return;
    if (e.timer) clearTimeout(e.timer);
    // timerDelay: the runtime's timestamps set some delays; a far-off one must not come round at once.
    e.timer = setTimeout(() => { e.timer = undefined; this.trigger(e.uid); }, Math.max(timerDelay(ms), 10));
  }

  private logDir(pod: any): string {
    return join(this.o.podLogsDir ?? join(this.o.rootDir, 'pods'), `${pod.metadata.namespace}_${pod.metadata.name}_${pod.metadata.uid}`);
  }

  private sandboxConfig(pod: any, attempt: number): any {
    const m = pod.metadata;
    const portMappings = (pod.spec?.containers ?? []).flatMap((c: any) => (c.ports ?? [])
      .filter((p: any) => p.hostPort)
      .map((p: any) => ({ protocol: p.protocol ?? 'TCP', container_port: p.containerPort, host_port: p.hostPort, host_ip: p.hostIP ?? '' })));
    // Test-only (breaks.ts): the sandbox metadata names the pod by namespace and namespace by pod.
    const swapped = broken('cri-sandbox-metadata-swapped');
    // The pod's sysctls (admitted by admission.ts) are set in the sandbox's namespaces by the runtime:
    // LinuxPodSandboxConfig.sysctls, a map of name to value, as upstream's generatePodSandboxLinuxConfig.
    // Test-only (breaks.ts): the sandbox goes without them.
    const sysctls: Record<string, string> = {};
    if (!broken('sandbox-drop-sysctls')) {
      for (const s of pod.spec?.securityContext?.sysctls ?? []) sysctls[s.name] = String(s.value ?? '');
    }
    return {
      metadata: { name: swapped ? m.namespace : m.name, uid: m.uid, namespace: swapped ? m.name : m.namespace, attempt },
      hostname: pod.spec?.hostname ?? m.name,
      log_directory: this.logDir(pod),
      port_mappings: portMappings,
      labels: { ...(m.labels ?? {}), [LABEL_POD_NAME]: m.name, [LABEL_POD_NAMESPACE]: m.namespace, [LABEL_POD_UID]: m.uid },
      annotations: { ...(m.annotations ?? {}) },
      // As upstream's generatePodSandboxLinuxConfig: a pod with a privileged container gets a
      // privileged sandbox, without which a runtime refuses the container (containerd: "no privileged
      // container allowed in sandbox").
      linux: { sysctls, ...(hasPrivilegedContainer(pod) ? { security_context: { privileged: true } } : {}) },
    };
  }

  private envOf(pod: any, c: any, podIP: string | undefined): Map<string, string> {
    const env = new Map<string, string>();
    for (const v of c.env ?? []) {
      if (v.valueFrom) {
        const f = v.valueFrom.fieldRef?.fieldPath;
        const fields: Record<string, string | undefined> = {
          'metadata.name': pod.metadata.name, 'metadata.namespace': pod.metadata.namespace, 'metadata.uid': pod.metadata.uid,
          'spec.nodeName': pod.spec?.nodeName, 'spec.serviceAccountName': pod.spec?.serviceAccountName,
          'status.podIP': podIP, 'status.hostIP': this.o.hostIP,
        };
        if (!f || !(f in fields)) throw new ConfigError(`env ${v.name}: only valueFrom.fieldRef (${Object.keys(fields).join(', ')}) is supported by the reference agent`);
        env.set(v.name, fields[f] ?? '');
      } else {
        env.set(v.name, expand(String(v.value ?? ''), env));
      }
    }
    return env;
  }

  /** Pull (per policy), create and start one container; records why it is waiting when that fails. */
  private async startContainer(e: Entry, c: any, attempt: number, sandboxId: string, sandboxConfig: any, podIP: string | undefined): Promise<boolean> {
    const pod = e.pod;
    const imageKey = `${e.uid}/${c.name}/image`;
    const policy = pullPolicy(c);
    let present: string | undefined;
    if (policy !== 'Always') present = await this.o.runtime.imagePresent(c.image);
    if (!present) {
      if (policy === 'Never') {
        e.waiting.set(c.name, { reason: 'ErrImageNeverPull', message: `Container image "${c.image}" is not present with pull policy of Never` });
        this.containerEvent(pod, c, 'Warning', REASONS.ErrImageNeverPull, 'PullImage', `Container image "${c.image}" is not present with pull policy of Never`);
        return false;
      }
      if (this.backoff.inBackoffSince(imageKey, this.lastPullFailure.get(imageKey) ?? 0)) {
        e.waiting.set(c.name, { reason: 'ImagePullBackOff', message: `Back-off pulling image "${c.image}"` });
        this.containerEvent(pod, c, 'Normal', REASONS.BackOff, 'PullImage', `Back-off pulling image "${c.image}"`);
        this.retryLater(e, this.backoff.delay(imageKey) - (Date.now() - (this.lastPullFailure.get(imageKey) ?? 0)));
        return false;
      }
      this.containerEvent(pod, c, 'Normal', REASONS.Pulling, 'PullImage', `Pulling image "${c.image}"`);
      const pullStart = Date.now();
      try {
        await this.o.runtime.pullImage(c.image, sandboxConfig);
        this.containerEvent(pod, c, 'Normal', REASONS.Pulled, 'PullImage', `Successfully pulled image "${c.image}" in ${Date.now() - pullStart}ms`);
      } catch (err) {
        this.containerEvent(pod, c, 'Warning', REASONS.Failed, 'PullImage', `Failed to pull image "${c.image}": ${runtimeMessage(err)}`);
        const now = Date.now();
        this.lastPullFailure.set(imageKey, now);
        const delay = this.backoff.next(imageKey, now);
        e.waiting.set(c.name, { reason: 'ErrImagePull', message: runtimeMessage(err) });
        // The next pass comes within the back-off, so the pod shows ImagePullBackOff (as upstream's
        // worker requeue does) whatever else triggers a pass; that pass waits out the rest.
        this.retryLater(e, delay / 2);
        return false;
      }
    } else {
      this.containerEvent(pod, c, 'Normal', REASONS.Pulled, 'PullImage', `Container image "${c.image}" already present on machine`);
    }
    let env: Map<string, string>;
    try {
      env = this.envOf(pod, c, podIP);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      e.waiting.set(c.name, { reason: 'CreateContainerConfigError', message: err.message });
      this.containerEvent(pod, c, 'Warning', REASONS.Failed, 'CreateContainer', `Error: ${err.message}`);
      return false;
    }
    let seccomp;
    try {
      seccomp = effectiveSeccomp(pod, c, { rootDir: this.o.rootDir, seccompDefault: this.o.seccompDefault ?? false });
    } catch (err) {
      if (!(err instanceof SeccompFieldError)) throw err;
      // Upstream reports a profile it cannot resolve as a container config error, before any runtime call.
      e.waiting.set(c.name, { reason: 'CreateContainerConfigError', message: err.message });
      this.containerEvent(pod, c, 'Warning', REASONS.Failed, 'CreateContainer', `Error: ${err.message}`);
      return false;
    }
    const m = pod.metadata;
    const config = {
      metadata: { name: c.name, attempt },
      image: { image: c.image },
      command: (c.command ?? []).map((s: string) => expand(s, env)),
      args: (c.args ?? []).map((s: string) => expand(s, env)),
      working_dir: c.workingDir ?? '',
      envs: [...env].map(([key, value]) => ({ key, value: Buffer.from(value) })),
      labels: { [LABEL_POD_NAME]: m.name, [LABEL_POD_NAMESPACE]: m.namespace, [LABEL_POD_UID]: m.uid, [LABEL_CONTAINER_NAME]: c.name },
      annotations: { [ANNOTATION_RESTART_COUNT]: String(attempt) },
      log_path: `${c.name}/${attempt}.log`,
      stdin: !!c.stdin, stdin_once: !!c.stdinOnce, tty: !!c.tty,
      linux: { security_context: { privileged: c.securityContext?.privileged === true && !broken('seccomp-privileged-confined'), seccomp } },
    };
    let id: string;
    try {
      // Test-only (breaks.ts): CreateContainer goes without the sandbox's config.
      id = await this.o.runtime.createContainer(sandboxId, config, broken('cri-create-no-sandbox-config') ? undefined as any : sandboxConfig);
    } catch (err) {
      e.waiting.set(c.name, { reason: 'CreateContainerError', message: runtimeMessage(err) });
      this.containerEvent(pod, c, 'Warning', REASONS.Failed, 'CreateContainer', `Error: ${runtimeMessage(err)}`);
      this.retryLater(e, this.backoff.next(`${e.uid}/${c.name}/create`));
      return false;
    }
    this.containerEvent(pod, c, 'Normal', REASONS.Created, 'CreateContainer', `Created container: ${c.name}`);
    try {
      // Test-only (breaks.ts): a created container is never started.
      if (!broken('sync-skip-start-container')) await this.o.runtime.startContainer(id);
    } catch (err) {
      e.waiting.set(c.name, { reason: 'RunContainerError', message: runtimeMessage(err) });
      this.containerEvent(pod, c, 'Warning', REASONS.Failed, 'StartContainer', `Error: ${runtimeMessage(err)}`);
      this.retryLater(e, this.backoff.next(`${e.uid}/${c.name}/create`));
      return false;
    }
    e.waiting.delete(c.name);
    this.containerEvent(pod, c, 'Normal', REASONS.Started, 'StartContainer', `Started container ${c.name}`);
    if (this.o.records && !e.actuated) {
      // The runtime accepted and started a container with the pod's resources: they are actuated.
      await this.o.records.actuatedPods.record(pod);
      e.actuated = true;
    }
    return true;
  }

  private readonly lastPullFailure = new Map<string, number>();

  /**
   * Whether an exited container should run again now; when it should but its back-off has not passed,
   * records CrashLoopBackOff and schedules the next pass for when it ends.
   */
  private mayRestart(e: Entry, c: any, s: CriContainerStatus, policy: string): 'no' | 'wait' | 'yes' {
    const code = Number(s.exit_code);
    if (policy === 'Never' || (policy === 'OnFailure' && code === 0)) return 'no';
    const key = `${e.uid}/${c.name}`;
    const finished = Number(BigInt(s.finished_at || '0') / 1_000_000n);
    if (this.backoff.inBackoffSince(key, finished)) {
      const delay = this.backoff.delay(key);
      e.waiting.set(c.name, { reason: 'CrashLoopBackOff', message: `back-off ${Math.round(delay / 1000)}s restarting failed container=${c.name} pod=${podFullName(e.pod)}` });
      this.retryLater(e, finished + delay - Date.now());
      this.containerEvent(e.pod, c, 'Warning', REASONS.BackOff, 'StartContainer', `Back-off restarting failed container ${c.name} in pod ${podFullName(e.pod)}`);
      return 'wait';
    }
    this.backoff.next(key);
    return 'yes';
  }

  private async syncPod(e: Entry): Promise<void> {
    const pod = e.pod;
    const spec = pod.spec ?? {};
    const policy = spec.restartPolicy ?? 'Always';
    const rt = this.o.runtime;
    const sandboxes = (await rt.listSandboxes(e.uid)).sort((a, b) => b.metadata.attempt - a.metadata.attempt);
    let sandbox = sandboxes[0];
    let containers = await rt.listContainers(e.uid);
    let sbStatus: Awaited<ReturnType<Runtime['sandboxStatus']>> | undefined;
    /** The pass changed the runtime (sandbox run, container stopped or started): re-read before the status. */
    let changed = false;
    const terminal = pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
    if (this.o.records && !e.allocated) {
      // Admission: the pod's resources are allocated before anything runs (upstream's allocation manager).
      await this.o.records.allocatedPods.record(pod);
      e.allocated = true;
    }

    if (!terminal && (!sandbox || sandbox.state !== 'SANDBOX_READY')) {
      // A dead sandbox takes its containers with it; with restartPolicy Never and containers that ran, the pod is done.
      const ran = containers.length > 0;
      if (!(sandbox && policy === 'Never' && ran)) {
        for (const c of containers) if (c.state === 'CONTAINER_RUNNING') { changed = true; await rt.stopContainer(c.id, 0); }
        const attempt = sandbox ? sandbox.metadata.attempt + 1 : 0;
        const config = this.sandboxConfig(pod, attempt);
        await mkdir(config.log_directory, { recursive: true, mode: 0o755 });
        if (sandbox) this.podEvent(pod, 'Normal', REASONS.SandboxChanged, 'RunPodSandbox', 'Pod sandbox changed, it will be killed and re-created.');
        let id: string;
        try {
          id = await rt.runPodSandbox(config);
        } catch (err) {
          this.podEvent(pod, 'Warning', REASONS.FailedCreatePodSandBox, 'RunPodSandbox', `Failed to create pod sandbox: ${runtimeMessage(err)}`);
          throw err;
        }
        changed = true;
        sbStatus = await rt.sandboxStatus(id);
        sandbox = {
          id, metadata: config.metadata, state: sbStatus.state as CriSandbox['state'], created_at: sbStatus.created_at,
          labels: config.labels, annotations: config.annotations,
        };
        containers = [];
      }
    }
    const sandboxReady = sandbox?.state === 'SANDBOX_READY';
    if (sandbox && !sbStatus) sbStatus = await rt.sandboxStatus(sandbox.id).catch(() => undefined);
    const podIP = sbStatus?.network?.ip || undefined;
    const sandboxConfig = sandbox ? this.sandboxConfig(pod, sandbox.metadata.attempt) : undefined;

    // The latest instance of each container in this sandbox, by attempt.
    const inSandbox = containers.filter((c) => c.pod_sandbox_id === sandbox?.id);
    const byName = new Map<string, typeof inSandbox>();
    for (const c of inSandbox) {
      const name = c.labels?.[LABEL_CONTAINER_NAME] ?? c.metadata.name;
      byName.set(name, [...(byName.get(name) ?? []), c].sort((a, b) => b.metadata.attempt - a.metadata.attempt));
    }
    const read = new Map<string, Promise<CriContainerStatus | undefined>>();
    const containerStatus = (id: string): Promise<CriContainerStatus | undefined> => {
      let p = read.get(id);
      if (!p) { p = rt.containerStatus(id).catch(() => undefined); read.set(id, p); }
      return p;
    };
    const statusOf = async (name: string): Promise<ContainerView> => {
      const list = byName.get(name) ?? [];
      const [latest, previous] = await Promise.all(list.slice(0, 2).map((c) => containerStatus(c.id)));
      return { latest, previous, waiting: e.waiting.get(name) };
    };

    const start = (c: any, attempt: number): Promise<boolean> => {
      changed = true;
      return this.startContainer(e, c, attempt, sandbox!.id, sandboxConfig, podIP);
    };
    if (sandboxReady && !terminal) {
      let initDone = true;
      // Test-only (breaks.ts): init containers run last to first.
      const inits: any[] = broken('sync-init-reversed') ? [...(spec.initContainers ?? [])].reverse() : spec.initContainers ?? [];
      for (const c of inits) {
        const v = await statusOf(c.name);
        const s = v.latest;
        if (!s) {
          await start(c, 0);
          initDone = false;
          break;
        }
        if (s.state === 'CONTAINER_EXITED' && Number(s.exit_code) === 0) continue;
        initDone = false;
        if (s.state === 'CONTAINER_EXITED') {
          // A failed init container is restarted unless the policy is Never (then the pod fails).
          const initPolicy = policy === 'Never' ? 'Never' : 'OnFailure';
          if (this.mayRestart(e, c, s, initPolicy) === 'yes') await start(c, s.metadata.attempt + 1);
        }
        break;
      }
      if (initDone) {
        await Promise.all((spec.containers ?? []).map(async (c: any) => {
          const s = (await statusOf(c.name)).latest;
          if (!s) await start(c, 0);
          else if (s.state === 'CONTAINER_EXITED' && this.mayRestart(e, c, s, policy) === 'yes') {
            await start(c, s.metadata.attempt + 1);
          }
        }));
      }
    }

    // Status from what the runtime has now.
    // A pass that changed nothing reuses what it read at its start (the PLEG reports later changes).
    const [after, sb] = changed
      ? await Promise.all([rt.listContainers(e.uid), sandbox ? rt.listSandboxes(e.uid) : Promise.resolve([])])
      : [containers, sandbox ? [sandbox] : []];
    if (changed) read.clear();
    byName.clear();
    for (const c of after.filter((c) => c.pod_sandbox_id === sandbox?.id)) {
      const name = c.labels?.[LABEL_CONTAINER_NAME] ?? c.metadata.name;
      byName.set(name, [...(byName.get(name) ?? []), c].sort((a, b) => b.metadata.attempt - a.metadata.attempt));
    }
    const views = new Map<string, ContainerView>();
    for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
      const v = await statusOf(c.name);
      // A waiting reason outlives the instance it was about only while that instance is not running.
      if (v.latest?.state === 'CONTAINER_RUNNING') { e.waiting.delete(c.name); v.waiting = undefined; }
      views.set(c.name, v);
    }
    const status = computePodStatus({
      // What the API holds, with gaps (no write yet, standalone mode) filled from the status computed
      // last: a start time and transition times stay put from one pass to the next.
      pod: e.localStatus ? { ...pod, status: { ...e.localStatus, ...(pod.status ?? {}) } } : pod, runtimeName: this.o.runtimeName(), hostIP: this.o.hostIP, podIP,
      sandboxReady: sb.find((s) => s.id === sandbox?.id)?.state === 'SANDBOX_READY',
      containers: views, now: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    });
    if (status.phase === 'Succeeded' || status.phase === 'Failed') {
      // A pod that finished keeps no sandbox running (upstream kills it; removal waits for deletion).
      if (sandbox && sandboxReady) await rt.stopPodSandbox(sandbox.id);
    }
    await this.writeStatus(e, status);
  }

  private async writeStatus(e: Entry, status: any): Promise<void> {
    if (!e.localStatus || !sameStatus(e.localStatus, status)) {
      e.localStatus = status;
      this.changed(e.uid);
    }
    const api = this.o.api;
    if (!api) return;
    const pod = e.pod;
    const current = pod.status ?? {};
    const comparable = { ...current, ...status };
    if (e.lastStatus && sameStatus(e.lastStatus, status)) return;
    if (!e.lastStatus && sameStatus(current, comparable)) { e.lastStatus = status; return; }
    // A merge patch replaces lists whole; fields this agent no longer reports are cleared with null.
    const patch: any = { ...status };
    for (const k of ['initContainerStatuses', 'podIP', 'podIPs', 'hostIP', 'hostIPs']) if (patch[k] === undefined && current[k] !== undefined) patch[k] = null;
    try {
      const updated = await api.patchStatus(podPath(pod), { metadata: { uid: pod.metadata.uid }, status: patch });
      e.lastStatus = status;
      if (!e.gone && e.pod?.metadata?.uid === updated.metadata.uid) {
        e.pod = { ...e.pod, status: updated.status };
        this.changed(e.uid);
      }
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /** Stop every container with the grace period, remove them, stop and remove the sandboxes. */
  private async syncTerminating(e: Entry): Promise<void> {
    const rt = this.o.runtime;
    const pod = e.pod;
    if (e.admission && !e.admission.admit) {
      // Rejected: nothing ever reached the runtime, so nothing is asked of it now.
      if (pod && !e.gone && pod.metadata.deletionTimestamp && this.o.api) {
        await this.o.api.delete(podPath(pod), { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } })
          .catch((err) => { if (!isNotFound(err) && !(err?.status === 409)) throw err; });
      }
      this.finish(e);
      return;
    }
    const grace = pod?.metadata?.deletionGracePeriodSeconds ?? pod?.spec?.terminationGracePeriodSeconds ?? 30;
    // Test-only (breaks.ts): the final delete comes first, before anything is stopped, and no final status is written.
    const deleteFirst = broken('sync-delete-before-stop');
    if (deleteFirst && pod && !e.gone && pod.metadata.deletionTimestamp && this.o.api) {
      await this.o.api.delete(podPath(pod), { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } })
        .catch((err) => { if (!isNotFound(err) && !(err?.status === 409)) throw err; });
    }
    const containers = await rt.listContainers(e.uid);
    // Test-only (breaks.ts): the pod's containers and sandboxes are left running when it is deleted.
    const teardown = !broken('sync-no-teardown');
    if (teardown) {
      await Promise.all(containers.map(async (c) => {
        // Test-only (breaks.ts): StopContainer without the grace period (timeout 0).
        if (c.state !== 'CONTAINER_RUNNING' && c.state !== 'CONTAINER_CREATED') return;
        if (pod) this.containerEvent(pod, { name: c.metadata.name }, 'Normal', REASONS.Killing, 'StopContainer', `Stopping container ${c.metadata.name}`);
        await rt.stopContainer(c.id, broken('cri-stop-no-timeout') ? 0 : grace);
      }));
    }
    // SyncTerminatingPod ends with the pod's final status: its containers stopped, the pod terminal.
    if (teardown && !deleteFirst && pod && !e.gone && pod.metadata.deletionTimestamp) await this.writeFinalStatus(e, pod);
    if (teardown) for (const c of containers) await rt.removeContainer(c.id);
    const sandboxes = teardown ? await rt.listSandboxes(e.uid) : [];
    for (const s of sandboxes) await rt.stopPodSandbox(s.id);
    for (const s of sandboxes) await rt.removePodSandbox(s.id);
    const m = pod?.metadata ?? { uid: e.uid, name: sandboxes[0]?.metadata.name, namespace: sandboxes[0]?.metadata.namespace };
    if (m.name && m.namespace) await rm(this.logDir({ metadata: m }), { recursive: true, force: true });
    if (!deleteFirst && pod && !e.gone && pod.metadata.deletionTimestamp && this.o.api) {
      // The final delete, once nothing runs: grace 0, and only this pod (not a new one with the same name).
      await this.o.api.delete(podPath(pod), { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } })
        .catch((err) => { if (!isNotFound(err) && !(err?.status === 409)) throw err; });
    }
    if (this.o.records) {
      await this.o.records.allocatedPods.remove(e.uid);
      await this.o.records.actuatedPods.remove(e.uid);
    }
    this.finish(e);
  }

  /**
   * The status of a pod whose containers were all stopped for its deletion (upstream
   * generateAPIPodStatus with podIsTerminal): a pod being deleted is terminal whatever its restart
   * policy, so its phase is computed as restartPolicy Never would have it (Succeeded when every
   * container exited 0, Failed otherwise).
   */
  private async writeFinalStatus(e: Entry, pod: any): Promise<void> {
    const rt = this.o.runtime;
    const byName = new Map<string, any[]>();
    for (const c of await rt.listContainers(e.uid)) {
      const name = c.labels?.[LABEL_CONTAINER_NAME] ?? c.metadata.name;
      byName.set(name, [...(byName.get(name) ?? []), c].sort((a, b) => b.metadata.attempt - a.metadata.attempt));
    }
    const views = new Map<string, ContainerView>();
    for (const [name, list] of byName) {
      const [latest, previous] = await Promise.all(list.slice(0, 2).map((c) => rt.containerStatus(c.id).catch(() => undefined)));
      views.set(name, { latest, previous });
    }
    const status = computePodStatus({
      pod: { ...pod, spec: { ...pod.spec, restartPolicy: 'Never' }, status: { ...(e.localStatus ?? {}), ...(pod.status ?? {}) } },
      runtimeName: this.o.runtimeName(), hostIP: this.o.hostIP, podIP: pod.status?.podIP,
      sandboxReady: false, containers: views, now: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    });
    try {
      await this.writeStatus(e, status);
    } catch (err) {
      // The status is information: the deletion goes on without it (the pod may be gone already).
      this.o.onError?.(err, podKey(pod));
    }
  }

  private finish(e: Entry): void {
    e.done = true;
    if (e.timer) clearTimeout(e.timer);
    this.backoff.forgetPrefix(`${e.uid}/`);
    this.entries.delete(e.uid);
    this.changed(e.uid);
  }

  /** Stops the workers; containers keep running, as upstream leaves them across agent restarts. */
  async close(): Promise<void> {
    this.closed = true;
    for (const e of this.entries.values()) if (e.timer) clearTimeout(e.timer);
    const deadline = Date.now() + 5000;
    while ([...this.entries.values()].some((e) => e.busy) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  }
}

/** Any init, app or ephemeral container of the pod asks for privileged (upstream HasPrivilegedContainer). */
function hasPrivilegedContainer(pod: any): boolean {
  const spec = pod.spec ?? {};
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])]
    .some((c: any) => c?.securityContext?.privileged === true);
}
