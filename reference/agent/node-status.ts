// Node registration and status (spec 001 §2.2, §3): creates the Node when absent, then publishes its
// status through the status subresource: addresses, capacity/allocatable from the real machine, nodeInfo
// with the runtime's name and version, and the Ready / MemoryPressure / DiskPressure / PIDPressure
// conditions with upstream's reasons and messages (kubelet written agent). As upstream, the status is
// computed every nodeStatusUpdateFrequency and written when it changed or when nodeStatusReportFrequency
// has passed since the last write; lastTransitionTime moves only when a condition's status changes.
// The pressure conditions come from the eviction thresholds of the configuration (eviction.ts).
import { readFileSync } from 'node:fs';
import * as os from 'node:os';
import { PACKAGE_VERSION } from '../package-version.js';
import { isAlreadyExists, isNotFound, type ApiClient } from '../client/api-client.js';
import type { Runtime, RuntimeCondition } from './runtime.js';
import { broken } from './breaks.js';
import { GATES_1_37 } from '../features.js';
import { DEFAULT_EVICTION_HARD, observeSignals, parseEvictionHard, PressureTracker, type Observation, type Pressure } from './eviction.js';
import { nodeRef, type EventSink } from './events.js';

/** Where the node's process figures are read (the stats collector reads them too). */
export { pidCounts } from './eviction.js';

export interface NodeStatusOptions {
  api: ApiClient;
  runtime: Runtime;
  nodeName: string;
  /** HostName address; default os.hostname(). */
  hostnameOverride?: string;
  /** The InternalIP to publish (--node-ip); default the first non-internal IPv4 address. */
  nodeIP?: string;
  /** Root dir: its filesystem gives ephemeral-storage. */
  rootDir: string;
  /** How often status is computed, ms (default 10 s). */
  updateFrequencyMs?: number;
  /** Status is written at least this often even without change, ms (default 5 min). */
  reportFrequencyMs?: number;
  /** Max pods (default 110). */
  maxPods?: number;
  /** Labels the Node is registered with besides the agent's own (upstream --node-labels). */
  nodeLabels?: Readonly<Record<string, string>>;
  /** The HTTPS port of the agent's endpoints (daemonEndpoints.agentEndpoint; default 10250). */
  agentPort?: number;
  /** §2.2 declaredFeatures: enabled in-development gates, sorted (none: the field is not published). */
  declaredFeatures?: string[];
  /** evictionHard of the configuration: the thresholds that give the pressure conditions (default upstream's). */
  evictionHard?: Readonly<Record<string, string>>;
  /** evictionPressureTransitionPeriod, ms (default 5 min). */
  pressureTransitionPeriodMs?: number;
  onError?(err: unknown): void;
  /** Where the node's events go (events.ts); absent: none are recorded. */
  events?: EventSink;
  /** Where the machine's facts are read (default: the machine, at every sync). */
  machine?: MachineSource;
}

/** The machine as the node status reads it: its identity, and the eviction signals of a root dir. */
export interface MachineSource {
  ids(): { machineID: string; systemUUID: string; bootID: string; kernelVersion: string; osImage: string };
  signals(rootDir: string): Promise<Record<string, Observation>>;
}

/** The machine read afresh at every call (the agent's default). */
export const LIVE_MACHINE: MachineSource = {
  ids: () => ({
    machineID: readId('/etc/machine-id'),
    systemUUID: readId('/sys/class/dmi/id/product_uuid'),
    bootID: readId('/proc/sys/kernel/random/boot_id'),
    kernelVersion: os.release(),
    osImage: osImage(),
  }),
  signals: observeSignals,
};

/**
 * The machine read once for many agents of one process whose root dirs share a filesystem (hollow
 * nodes): the identity at the first call, the signals at most every `maxAgeMs`.
 */
export function sharedMachine(maxAgeMs = 1000): MachineSource {
  let ids: ReturnType<MachineSource['ids']> | undefined;
  let last: { at: number; obs: Promise<Record<string, Observation>> } | undefined;
  return {
    ids: () => (ids ??= LIVE_MACHINE.ids()),
    signals: (rootDir) => {
      const now = Date.now();
      if (!last || now - last.at > maxAgeMs) last = { at: now, obs: observeSignals(rootDir) };
      return last.obs;
    },
  };
}

/** Upstream's node event reasons by condition: [when True, otherwise]. */
const NODE_EVENT_REASONS: Readonly<Record<string, readonly [string, string]>> = {
  Ready: ['NodeReady', 'NodeNotReady'],
  MemoryPressure: ['NodeHasInsufficientMemory', 'NodeHasSufficientMemory'],
  DiskPressure: ['NodeHasDiskPressure', 'NodeHasNoDiskPressure'],
  PIDPressure: ['NodeHasInsufficientPID', 'NodeHasSufficientPID'],
};

export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastHeartbeatTime: string;
  lastTransitionTime: string;
}

export function osImage(): string {
  try {
    const m = /^PRETTY_NAME=(.*)$/m.exec(readFileSync('/etc/os-release', 'utf8'));
    if (m) return m[1].trim().replace(/^["']|["']$/g, '');
  } catch { /* not every system has it */ }
  return `${os.type()} ${os.release()}`;
}

/** The first non-internal IPv4 address, as upstream's default when no --node-ip is given. */
export function internalIPv4(): string | undefined {
  for (const addrs of Object.values(os.networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}

/** GOARCH naming, as nodeInfo.architecture shows it. */
export function goArch(): string {
  const map: Record<string, string> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x', riscv64: 'riscv64' };
  return map[process.arch] ?? process.arch;
}

/** Conditions without times: what is compared to decide whether the status changed. */
interface ConditionCore { type: string; status: 'True' | 'False'; reason: string; message: string }

export function readyCondition(runtimeConds: RuntimeCondition[] | Error): ConditionCore {
  const errors: string[] = [];
  // Test-only: Ready no longer follows the runtime's conditions.
  if (broken('node-ready-ignores-runtime')) runtimeConds = [];
  if (runtimeConds instanceof Error) {
    errors.push(`container runtime status check may not have completed yet: ${runtimeConds.message}`);
  } else {
    const show = (c: RuntimeCondition | undefined, type: string) =>
      c ? `${c.type}=${c.status} reason:${c.reason} message:${c.message}` : `<nil> (${type} not reported)`;
    const rt = runtimeConds.find((c) => c.type === 'RuntimeReady');
    const net = runtimeConds.find((c) => c.type === 'NetworkReady');
    if (!rt?.status && !broken('node-ready-ignores-runtime')) errors.push(`container runtime not ready: ${show(rt, 'RuntimeReady')}`);
    if (!net?.status && !broken('node-ready-ignores-runtime')) errors.push(`container runtime network not ready: ${show(net, 'NetworkReady')}`);
  }
  if (errors.length === 0) return { type: 'Ready', status: 'True', reason: 'AgentReady', message: 'agent is posting ready status' };
  return { type: 'Ready', status: 'False', reason: 'AgentNotReady', message: errors.length === 1 ? errors[0] : `[${errors.join(', ')}]` };
}

export function pressureConditions(p: Readonly<Record<Pressure, boolean>>): ConditionCore[] {
  return [
    p.memory
      ? { type: 'MemoryPressure', status: 'True', reason: 'AgentHasInsufficientMemory', message: 'agent has insufficient memory available' }
      : { type: 'MemoryPressure', status: 'False', reason: 'AgentHasSufficientMemory', message: 'agent has sufficient memory available' },
    p.disk
      ? { type: 'DiskPressure', status: 'True', reason: 'AgentHasDiskPressure', message: 'agent has disk pressure' }
      : { type: 'DiskPressure', status: 'False', reason: 'AgentHasNoDiskPressure', message: 'agent has no disk pressure' },
    p.pid
      ? { type: 'PIDPressure', status: 'True', reason: 'AgentHasInsufficientPID', message: 'agent has insufficient PID available' }
      : { type: 'PIDPressure', status: 'False', reason: 'AgentHasSufficientPID', message: 'agent has sufficient PID available' },
  ];
}

/**
 * Merges freshly computed conditions with the previous ones: lastHeartbeatTime = now, and
 * lastTransitionTime kept unless the status changed. Ready is kept last, as upstream does.
 */
export function withTimes(core: ConditionCore[], previous: NodeCondition[] | undefined, now: string): NodeCondition[] {
  const out = core.map((c) => {
    const old = previous?.find((p) => p.type === c.type);
    // Test-only: a condition keeps the lastTransitionTime it was first written with, whatever its status.
    const keep = old && (old.status === c.status || broken('node-conditions-keep-transition-time'));
    return { ...c, lastHeartbeatTime: now, lastTransitionTime: keep ? old.lastTransitionTime : now };
  });
  return [...out.filter((c) => c.type !== 'Ready'), ...out.filter((c) => c.type === 'Ready')];
}

export class NodeStatusManager {
  readonly nodeName: string;
  private readonly api: ApiClient;
  private timer: NodeJS.Timeout | undefined;
  private lastReportMs = 0;
  private lastCore = '';
  private conditions: NodeCondition[] | undefined;
  private runtimeVersion = '';
  private running: Promise<void> | undefined;
  private closed = false;
  /** The Node's uid once registered (the Lease's owner reference needs it). */
  nodeUid: string | undefined;
  /** The InternalIP published, used as the pods' hostIP. */
  readonly internalIP: string | undefined;
  /** The eviction thresholds' view of the node: its pressure conditions. */
  private readonly pressure: PressureTracker;

  constructor(private readonly o: NodeStatusOptions) {
    this.api = o.api;
    this.nodeName = o.nodeName;
    this.internalIP = o.nodeIP ?? internalIPv4();
    this.pressure = new PressureTracker(parseEvictionHard(o.evictionHard ?? DEFAULT_EVICTION_HARD), o.pressureTransitionPeriodMs ?? 5 * 60_000, o.rootDir);
  }

  /** Creates the Node if absent (409 AlreadyExists means another start registered it: fine). */
  async register(): Promise<void> {
    const path = `/api/v1/nodes/${this.nodeName}`;
    try {
      const created = await this.api.create('/api/v1/nodes', {
        apiVersion: 'v1', kind: 'Node',
        metadata: {
          name: this.nodeName,
          // Upstream's well-known labels (renamed): hostname, os, arch; then --node-labels.
          labels: { ...this.o.nodeLabels, ...this.ownLabels() },
        },
        spec: {},
      });
      this.nodeUid = created.metadata.uid;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      this.nodeUid = (await this.api.get(path)).metadata.uid;
    }
    await this.sync(true);
  }

  /** The labels the agent sets on its Node: upstream's well-known ones (renamed): hostname, os, arch. */
  private ownLabels(): Record<string, string> {
    return { 'orch.io/hostname': this.o.hostnameOverride ?? this.nodeName, 'orch.io/os': process.platform, 'orch.io/arch': goArch() };
  }

  /** Starts the periodic update loop. */
  start(): void {
    const every = this.o.updateFrequencyMs ?? 10_000;
    const tick = () => {
      if (this.closed) return;
      this.running = this.sync(false).then(() => {}, (err) => this.o.onError?.(err)).finally(() => {
        if (!this.closed) this.timer = setTimeout(tick, every);
      });
    };
    this.timer = setTimeout(tick, every);
  }

  /** Computes the status and writes it when it changed, when `force`, or when the report period passed. */
  async sync(force: boolean): Promise<boolean> {
    if (!this.runtimeVersion) {
      const v = await this.o.runtime.version();
      this.runtimeVersion = `${v.runtime_name}://${v.runtime_version}`;
      // Test-only: a runtime version made up instead of the one the runtime answers.
      if (broken('node-info-static-runtime-version')) this.runtimeVersion = 'containerd://1.7.0';
    }
    const runtimeConds = await this.o.runtime.status().catch((e: Error) => e);
    const machine = await this.machine();
    const machineIds = (this.o.machine ?? LIVE_MACHINE).ids();
    const core = [...pressureConditions(machine.pressure), readyCondition(runtimeConds)];
    const status = {
      addresses: [
        ...(this.internalIP ? [{ type: 'InternalIP', address: this.internalIP }] : []),
        // Test-only: --hostname-override ignored for the address.
        { type: 'Hostname', address: broken('hostname-ignores-override') ? os.hostname() : this.o.hostnameOverride ?? os.hostname() },
      ],
      capacity: machine.capacity,
      allocatable: machine.capacity,
      daemonEndpoints: { agentEndpoint: { Port: this.o.agentPort ?? 10250 } },
      // Test-only (declared-features-none): nothing declared, whatever the gates.
      ...(this.o.declaredFeatures?.length && !broken('declared-features-none') ? { declaredFeatures: this.o.declaredFeatures } : {}),
      // Test-only: every feature still in development declared, enabled or not.
      ...(broken('declared-features-ignore-gates') ? { declaredFeatures: Object.keys(GATES_1_37).filter((g) => GATES_1_37[g]!.stage !== 'GA').sort() } : {}),
      nodeInfo: {
        ...machineIds,
        containerRuntimeVersion: this.runtimeVersion,
        agentVersion: `v${PACKAGE_VERSION}`,
        operatingSystem: process.platform,
        architecture: goArch(),
      },
    };
    const key = JSON.stringify({ core, status });
    const reportEvery = this.o.reportFrequencyMs ?? 5 * 60_000;
    const due = Date.now() - this.lastReportMs >= reportEvery;
    if (!force && !due && key === this.lastCore) return false;
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const conditions = withTimes(core, this.conditions, now);
    await this.write({ ...status, conditions });
    this.recordTransitions(this.conditions, conditions);
    this.conditions = conditions;
    this.lastCore = key;
    this.lastReportMs = Date.now();
    return true;
  }

  /**
   * Upstream's recordNodeStatusEvent: an event on the node for each condition whose status is new or
   * changed (`NodeReady`, `NodeNotReady`, `NodeHasSufficientMemory`, ...).
   */
  private recordTransitions(before: NodeCondition[] | undefined, after: NodeCondition[]): void {
    // Test-only (breaks.ts): the agent records nothing about its node.
    if (!this.o.events || broken('events-node-none')) return;
    for (const c of after) {
      if (before?.find((b) => b.type === c.type)?.status === c.status) continue;
      const reason = NODE_EVENT_REASONS[c.type]?.[c.status === 'True' ? 0 : 1];
      if (reason) this.o.events.record(nodeRef(this.nodeName), 'Normal', reason, 'NodeStatus', `Node ${this.nodeName} status is now: ${reason}`);
    }
  }

  /** The conditions last written. */
  get lastConditions(): NodeCondition[] | undefined { return this.conditions; }

  private async write(status: object): Promise<void> {
    const path = `/api/v1/nodes/${this.nodeName}`;
    if (broken('node-status-scheduling-disabled-condition') || broken('node-status-uncordons')) status = await this.cordonBreakage(path, status);
    if (broken('node-status-strips-labels')) await this.stripLabels(path);
    try {
      // A merge patch replaces lists whole: addresses and conditions are always sent complete.
      await this.api.patchStatus(path, { status });
    } catch (err) {
      // The Node was deleted under us: register it again, as upstream does on its next sync.
      if (!isNotFound(err)) throw err;
      await this.register();
    }
  }

  /** Test-only: labels the agent did not set (set through the API) are removed from its Node. */
  private async stripLabels(path: string): Promise<void> {
    const node = await this.api.get(path).catch(() => undefined);
    const own = this.ownLabels();
    const others = Object.keys(node?.metadata?.labels ?? {}).filter((k) => !(k in own));
    if (others.length) await this.api.patch(path, { metadata: { labels: Object.fromEntries(others.map((k) => [k, null])) } });
  }

  /** Test-only: a cordoned node gets a SchedulingDisabled condition, or is uncordoned. */
  private async cordonBreakage(path: string, status: any): Promise<object> {
    const node = await this.api.get(path).catch(() => undefined);
    if (!node?.spec?.unschedulable) return status;
    if (broken('node-status-uncordons')) await this.api.patch(path, { spec: { unschedulable: null } });
    if (!broken('node-status-scheduling-disabled-condition')) return status;
    const c = { type: 'SchedulingDisabled', status: 'True', reason: 'Cordoned', message: 'node is cordoned', lastHeartbeatTime: status.conditions?.[0]?.lastHeartbeatTime, lastTransitionTime: status.conditions?.[0]?.lastTransitionTime };
    return { ...status, conditions: [...(status.conditions ?? []), c] };
  }

  private async machine(): Promise<{ capacity: Record<string, string>; pressure: Record<Pressure, boolean> }> {
    // One read of the node's signals serves both: the root dir's filesystem is the node's ephemeral
    // storage (0 while the root dir is not there yet) and nodefs.available's base.
    const signals = await (this.o.machine ?? LIVE_MACHINE).signals(this.o.rootDir);
    const storage = signals['nodefs.available']?.capacity ?? 0;
    const pressure = this.pressure.assess(signals);
    return {
      capacity: {
        cpu: String(os.availableParallelism()),
        memory: `${Math.floor(os.totalmem() / 1024)}Ki`,
        pods: String(this.o.maxPods ?? 110),
        'ephemeral-storage': `${Math.floor(storage / 1024)}Ki`,
      },
      // Test-only: no pressure ever, whatever the thresholds and the machine say.
      pressure: broken('pressure-always-false') ? { memory: false, disk: false, pid: false } : pressure,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}

function readId(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}

