// The reference node agent (spec 001): composes the API client, Node registration and status, the
// Lease heartbeat, the pod watch and the static pods of `staticPodPath` feeding one worker per pod, and
// the PLEG. With a control plane it keeps a mirror pod per static pod (static-pods.ts) and never runs a
// mirror pod itself. Without `api` it runs in standalone mode and makes no API call at all. With `serve` it also serves its HTTPS endpoints
// (endpoints.ts), and with a NOTIFY_SOCKET in `watchdogEnv` it notifies the service manager (§5.2).
// The parts many agents of one process can share are injectable (`shared`): the API client, the pod
// watch (one watch fanned out per node), the CRI connection; hollow/ runs many nodes that way.
import * as os from 'node:os';
import { agentHealthChecks, allPass, startAgentServer } from './endpoints.js';
import { prepareRootDir } from './root-dir.js';
import { agentServingCert } from './serving-cert.js';
import { startWatchdog, unixAddress, watchdogTimeoutMs, type Watchdog } from './watchdog.js';
import { FeatureGates, GATES_1_37 } from '../features.js';
import { ApiClient, type Watch, type WatchOptions } from '../client/api-client.js';
import { LeaseController } from './lease.js';
import { NodeStatusManager, type MachineSource } from './node-status.js';
import { DEFAULT_EVICTION_HARD, parseEvictionHard } from './eviction.js';
import { Pleg } from './pleg.js';
import { PodWorkers } from './pod-workers.js';
import { Runtime, runtimeMessage, type CriTransport } from './runtime.js';
import { isMirrorPod, MirrorPods, mirrorStatusClient, StaticPodSource } from './static-pods.js';
import { PACKAGE_VERSION } from '../package-version.js';
import { broken } from './breaks.js';
import { AgentPodSource, servePodInfo } from './pod-info/agent-source.js';
import { agentRequestAuth } from './auth/request-auth.js';
import { DEFAULT_AUTH_SETTINGS, type AgentAuthSettings } from './auth/settings.js';
import { checkpointRoutes } from './checkpoint.js';
import { streamingRoutes } from './streaming.js';
import { containerLogsRoute } from './logs/container-logs.js';
import { probeMetricsRoute } from './stats/probe-metrics.js';
import { AgentStats } from './stats/agent-stats.js';
import { AgentEventRecorder, nodeRef, REASONS } from './events.js';

/** The pod watch of one node: its pods (spec.nodeName = the node) listed, then their changes. */
export type PodWatchFactory = (nodeName: string, handlers: Pick<WatchOptions, 'onList' | 'onEvent' | 'onError'>) => Watch;

/**
 * What an agent may take from its process instead of making its own (hollow/: many agents, one
 * process). Each is the agent's own code path with the expensive part made once for all.
 */
export interface SharedAgentParts {
  /** The API client (with `api` given, for its URL in messages): the agent never closes it. */
  apiClient?: ApiClient;
  /** The pod watch (default: a watch of /api/v1/pods with fieldSelector spec.nodeName=<node>). */
  podWatch?: PodWatchFactory;
  /** The CRI connection, instead of a gRPC client of `criEndpoint`: the agent closes it with itself. */
  criTransport?: CriTransport;
  /** Serve the pod info socket (§4.2) under the root dir (default true). */
  podInfoSocket?: boolean;
  /** The machine's facts for the node status (default: read afresh at every sync). */
  machine?: MachineSource;
}

export interface AgentOptions {
  api?: { url: string; token?: string; caPem?: string };
  /** The CRI endpoint, unix:///path; without `shared.criTransport` it is required. */
  criEndpoint?: string;
  imageEndpoint?: string;
  /** Default: hostnameOverride, else the lowercased host name (upstream's default). */
  nodeName?: string;
  hostnameOverride?: string;
  /**
   * The InternalIP the Node publishes (upstream --node-ip), where the API server's node proxy reaches
   * the endpoints. Unlike upstream, a loopback address is accepted: test nodes bind 127.0.0.1.
   */
  nodeIP?: string;
  rootDir: string;
  /** podLogsDir of the configuration: the pods' log directories (default <rootDir>/pods). */
  podLogsDir?: string;
  /** Node status computed this often, ms (default 10 s). */
  nodeStatusUpdateFrequencyMs?: number;
  /** Node status written at least this often, ms (default 5 min). */
  nodeStatusReportFrequencyMs?: number;
  leaseDurationSeconds?: number;
  /** Lease renewal, ms (default a quarter of the duration). */
  leaseRenewIntervalMs?: number;
  /** PLEG relist period, ms (default 1 s). */
  relistPeriodMs?: number;
  /** Restart/pull back-off base and cap, ms (default 10 s and 5 min). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Every pod's worker runs a pass this often, ms (syncFrequency; default 1 min). */
  syncFrequencyMs?: number;
  /** allowedUnsafeSysctls of the configuration: names or `prefix*` patterns (admission, §2.5). */
  allowedUnsafeSysctls?: readonly string[];
  /** Static pod manifests (§2.3 staticPodPath): a directory or one file; absent: no static pods. */
  staticPodPath?: string;
  /** staticPodPath re-read period, ms (fileCheckFrequency; default 20 s); changes are also watched. */
  fileCheckFrequencyMs?: number;
  /** seccompDefault of the configuration (§2.4). */
  seccompDefault?: boolean;
  /** The gates the agent runs with (default: 1.37 defaults). */
  featureGates?: FeatureGates;
  /** evictionHard of the configuration: signal to threshold (default upstream's); gives the pressure conditions. */
  evictionHard?: Readonly<Record<string, string>>;
  /** evictionPressureTransitionPeriod, ms (default 5 min). */
  evictionPressureTransitionPeriodMs?: number;
  /** Authentication and authorization of its HTTPS port (default: upstream's, webhook authn and authz, no anonymous). */
  auth?: AgentAuthSettings;
  /** Serve the HTTPS endpoints; absent: no server (in-process tests of other parts). */
  serve?: {
    address: string;
    /** 0 picks a free port. */
    port: number;
    /** Default <rootDir>/pki. */
    certDir?: string;
    /** /flagz: the flags in effect. */
    flags?: Readonly<Record<string, string>>;
    /** /configz body. */
    configz?: Readonly<Record<string, unknown>>;
  };
  /** The environment the watchdog reads (NOTIFY_SOCKET, WATCHDOG_USEC); absent: no watchdog. */
  watchdogEnv?: NodeJS.ProcessEnv;
  /** The syncloop check's PLEG threshold, ms (default upstream's 3 min; tests shorten it). */
  plegThresholdMs?: number;
  /**
   * Seconds a checkpoint asks the runtime to wait when the request gives no timeout or 0 (spec 001
   * §4.1 "the default CRI timeout"): 0 or absent passes 0, the runtime's own default, as upstream
   * does; a positive value is the agent's own default, which the spec allows as well.
   */
  checkpointDefaultTimeoutSeconds?: number;
  /** maxPods: the Node's pods capacity (default 110). */
  maxPods?: number;
  /** Labels the Node is registered with besides the agent's own (upstream --node-labels). */
  nodeLabels?: Readonly<Record<string, string>>;
  /** Parts shared with other agents of the process (absent: the agent makes its own). */
  shared?: SharedAgentParts;
  /** Where errors of background loops go (default: stderr). */
  log?(msg: string): void;
}

export interface RunningAgent {
  nodeName: string;
  /** `https://<address>:<port>` when serving. */
  url?: string;
  /** The CA file clients trust, and whether the pair was generated at this start. */
  caFile?: string;
  certGenerated?: boolean;
  watchdog?: Watchdog;
  /** The pods the agent runs (what /pods serves). */
  pods(): any[];
  /** True when every /healthz check passes. */
  healthy(): Promise<boolean>;
  close(): Promise<void>;
}

/** §2.2 declaredFeatures: the enabled gates of features still in development (not GA), sorted. */
export function declaredFeatures(gates: FeatureGates): string[] {
  return Object.entries(gates.all()).filter(([name, on]) => on && GATES_1_37[name] && GATES_1_37[name].stage !== 'GA').map(([name]) => name).sort();
}

export function defaultNodeName(hostnameOverride?: string): string {
  return (hostnameOverride ?? os.hostname()).trim().toLowerCase();
}

export async function startAgent(o: AgentOptions): Promise<RunningAgent> {
  const log = o.log ?? ((m: string) => process.stderr.write(`agent: ${m}\n`));
  const nodeName = o.nodeName ?? defaultNodeName(o.hostnameOverride);
  const gates = o.featureGates ?? new FeatureGates();
  // Thresholds that cannot be parsed refuse the start, as upstream's (an unsupported signal, a bad value).
  parseEvictionHard(o.evictionHard ?? DEFAULT_EVICTION_HARD);
  // §2.1 layout, 0700 directories; pods/ also holds pod logs unless podLogsDir names another place.
  const layout = await prepareRootDir(o.rootDir);
  // Before any network or runtime call: a bad watchdog environment or certificate refuses the start.
  if (o.watchdogEnv) {
    watchdogTimeoutMs(o.watchdogEnv);
    if (o.watchdogEnv.NOTIFY_SOCKET) unixAddress(o.watchdogEnv.NOTIFY_SOCKET);
  }
  const servingCert = o.serve ? agentServingCert(o.serve.certDir ?? layout.pkiDir, o.serve.address) : undefined;

  const shared = o.shared ?? {};
  if (!shared.criTransport && !o.criEndpoint) throw new Error('no container runtime endpoint given');
  const runtime = shared.criTransport ? new Runtime(shared.criTransport) : new Runtime(o.criEndpoint!, o.imageEndpoint);
  let runtimeName = 'unknown';
  try {
    runtimeName = (await runtime.version()).runtime_name;
  } catch (err) {
    runtime.close();
    // grpc-js appends a multi-line resolution note; the first sentence says what failed.
    const why = runtimeMessage(err).replace(/\s*Resolution note:[\s\S]*$/, '').split('\n')[0];
    throw new Error(`cannot reach the container runtime at ${o.criEndpoint ?? 'the in-process transport'}: ${why}`);
  }

  // A shared client belongs to whoever gave it: closed by them, not here.
  const ownApi = o.api && !shared.apiClient;
  const api = o.api ? shared.apiClient ?? new ApiClient({ url: o.api.url, token: o.api.token, caPem: o.api.caPem, userAgent: `agent/v${PACKAGE_VERSION}` }) : undefined;
  const closers: Array<() => Promise<void> | void> = [];
  const closeAll = async () => {
    for (const c of closers.reverse()) await c();
    if (ownApi) api?.close();
    runtime.close();
  };

  const started = Date.now();
  // Events about pods and the node: queued and written in the background, never in the sync loop's way.
  const events = api ? new AgentEventRecorder({ api, nodeName, log }) : undefined;
  if (events) closers.push(() => events.close());
  let workers: PodWorkers | undefined;
  let health!: ReturnType<typeof agentHealthChecks>;
  let url: string | undefined;
  let port: number | undefined;
  let pleg: Pleg | undefined;
  let watchdog: Watchdog | undefined;
  try {
    // The pod info socket (§4.2) comes up even before the endpoints: until the pod sources are known and the
    // PLEG has relisted once (it starts only after them), its calls answer FAILED_PRECONDITION.
    const podSource = new AgentPodSource({ initialized: () => (pleg?.lastRelist ?? 0) > 0, api, nodeName });
    const podInfo = shared.podInfoSocket === false ? undefined : await servePodInfo(layout.podInfoSocket, podSource);
    if (podInfo) closers.push(() => podInfo.close());
    // The endpoints come up first so that the Node publishes the port they were bound to; what they
    // report about pods and the PLEG is read lazily, once those parts exist.
    health = agentHealthChecks({ lastRelist: () => Math.max(pleg?.lastRelist ?? 0, started), thresholdMs: o.plegThresholdMs });
    if (o.serve && servingCert) {
      // Stats and metrics of spec 002 (stats/): the node's figures from the machine, the pods' from the runtime.
      const stats = new AgentStats({ runtime, nodeName, rootDir: o.rootDir, featureGates: gates, pods: () => workers?.pods() ?? [], log });
      await stats.start();
      const server = await startAgentServer({
        address: o.serve.address, port: o.serve.port, cert: servingCert.cert, checks: health.checks, featureGates: gates,
        flags: o.serve.flags ?? {}, configz: o.serve.configz ?? {}, pods: () => workers?.pods() ?? [],
        // The reviews are asked with the agent's own API client (its kubeconfig credentials).
        auth: agentRequestAuth({ settings: o.auth ?? DEFAULT_AUTH_SETTINGS, api, nodeName, log }),
        routes: [
          ...checkpointRoutes({ featureGates: gates, pods: () => workers?.pods() ?? [], runtime, checkpointsDir: layout.checkpointsDir, defaultTimeoutSeconds: o.checkpointDefaultTimeoutSeconds, log }),
          ...stats.routes,
          ...streamingRoutes({ pods: () => workers?.pods() ?? [], runtime, log }),
          probeMetricsRoute(),
          containerLogsRoute({ pods: () => workers?.pods() ?? [], statusOf: (pod) => workers?.podState(pod.metadata.uid)?.localStatus ?? pod.status, runtime }),
        ],
        onMetrics: stats.onMetrics,
      });
      closers.push(() => server.close());
      url = server.url;
      port = server.port;
    }
    let hostIP: string | undefined;
    let nodeStatus: NodeStatusManager | undefined;
    if (api) {
      nodeStatus = new NodeStatusManager({
        api, runtime, nodeName, hostnameOverride: o.hostnameOverride, nodeIP: o.nodeIP, rootDir: o.rootDir,
        updateFrequencyMs: o.nodeStatusUpdateFrequencyMs, reportFrequencyMs: o.nodeStatusReportFrequencyMs,
        agentPort: port, declaredFeatures: declaredFeatures(gates), maxPods: o.maxPods, nodeLabels: o.nodeLabels, machine: shared.machine,
        evictionHard: o.evictionHard, pressureTransitionPeriodMs: o.evictionPressureTransitionPeriodMs,
        onError: (err) => log(`node status: ${(err as Error).message}`), events,
      });
      await nodeStatus.register();
      // Upstream's "Starting kubelet." once the Node exists.
      if (!broken('events-node-none')) events?.record(nodeRef(nodeName), 'Normal', REASONS.Starting, 'StartAgent', 'Starting agent.');
      nodeStatus.start();
      closers.push(() => nodeStatus!.close());
      hostIP = nodeStatus.internalIP;
      const lease = new LeaseController({
        api, nodeName, nodeUid: () => nodeStatus!.nodeUid,
        leaseDurationSeconds: o.leaseDurationSeconds, renewIntervalMs: o.leaseRenewIntervalMs,
        onError: (err) => log(`lease: ${(err as Error).message}`),
      });
      await lease.start();
      closers.push(() => lease.close());
    }

    // Mirror pods are handled, never run, whether or not this agent has static pods: without any, the
    // mirrors left on its node are orphans and are deleted, as upstream does.
    let mirrors: MirrorPods | undefined;
    if (api) {
      const ns = nodeStatus!;
      mirrors = new MirrorPods({
        api, nodeName, nodeUid: () => ns.nodeUid, periodMs: o.fileCheckFrequencyMs,
        onError: (err) => log(`mirror pods: ${(err as Error).message}`),
      });
      const m = mirrors;
      closers.push(() => m.close());
    }

    workers = new PodWorkers({
      api: api && mirrors ? mirrorStatusClient(api, mirrors) : api, runtime, runtimeName: () => runtimeName, nodeName, rootDir: o.rootDir, podLogsDir: o.podLogsDir, hostIP,
      backoffBaseMs: o.backoffBaseMs, backoffMaxMs: o.backoffMaxMs,
      seccompDefault: o.seccompDefault, allowedUnsafeSysctls: o.allowedUnsafeSysctls, records: { allocatedPods: layout.allocatedPods, actuatedPods: layout.actuatedPods },
      onError: (err, pod) => log(`pod ${pod}: ${(err as Error).message}`), events,
    });
    const w = workers;
    closers.push(() => w.close());
    podSource.attach(w);

    // The sources are merged here (upstream's config mux): the workers get the full set once every
    // source is known, then the changes of each.
    let staticPods = new Map<string, any>();
    let declared = false;
    const applyStatic = (pods: any[]) => {
      const next = new Map(pods.map((p) => [p.metadata.uid as string, p]));
      // The mirror side first: a status write for a new static pod must already be routed to its mirror.
      mirrors?.setStatic(pods);
      if (declared) {
        for (const [uid, p] of staticPods) if (!next.has(uid)) w.remove(p);
        for (const [uid, p] of next) if (!staticPods.has(uid)) w.update(p);
      }
      staticPods = next;
    };
    if (o.staticPodPath) {
      const source = new StaticPodSource({
        path: o.staticPodPath, nodeName, periodMs: o.fileCheckFrequencyMs, onSet: applyStatic,
        onError: (msg) => log(`static pods: ${msg}`),
      });
      closers.push(() => source.close());
      await source.start();
    } else {
      mirrors?.setStatic([]);
    }

    if (api) {
      const m = mirrors!;
      const handlers: Pick<WatchOptions, 'onList' | 'onEvent' | 'onError'> = {
        onList: (items) => {
          m.observeList(items.filter(isMirrorPod));
          w.setAll([...items.filter((p) => !isMirrorPod(p)), ...staticPods.values()]);
          declared = true;
        },
        onEvent: (ev) => {
          if (isMirrorPod(ev.object)) m.observe(ev.type, ev.object);
          else if (ev.type === 'DELETED') w.remove(ev.object);
          else w.update(ev.object);
        },
        onError: (err) => log(`pod watch: ${(err as Error).message}`),
      };
      const watch = shared.podWatch ? shared.podWatch(nodeName, handlers) : api.watch('/api/v1/pods', { fieldSelector: `spec.nodeName=${nodeName}`, ...handlers });
      closers.push(() => watch.stop());
      await watch.synced;
    } else if (o.staticPodPath) {
      // Standalone with static pods: they are the whole pod set, and anything else the runtime runs for
      // this agent is an orphan. Without a staticPodPath there is no source, so the set is never declared
      // complete and what runs in the runtime is left alone.
      w.setAll([...staticPods.values()]);
      declared = true;
    }

    pleg = new Pleg({
      runtime, periodMs: o.relistPeriodMs,
      onPodChange: (uid) => w.trigger(uid),
      onError: (err) => log(`pleg: ${(err as Error).message}`),
    });
    const p = pleg;
    p.start();
    closers.push(() => p.close());

    // Upstream's periodic resync: every pod's worker runs a pass each syncFrequency.
    const resync = setInterval(() => { for (const pod of w.pods()) w.trigger(pod.metadata.uid); }, o.syncFrequencyMs ?? 60_000);
    resync.unref();
    closers.push(() => clearInterval(resync));

    const checks = health.all;
    if (o.watchdogEnv) {
      watchdog = await startWatchdog(o.watchdogEnv, () => allPass(checks));
      if (watchdog) {
        const wd = watchdog;
        closers.push(() => wd.stop());
        // Ready: the node is registered and the endpoints serve.
        await wd.ready();
      }
    }
  } catch (err) {
    await closeAll();
    throw err;
  }

  const checks = health.all;
  const w = workers!;
  return {
    nodeName, url, caFile: servingCert?.caFile, certGenerated: servingCert?.generated, watchdog,
    pods: () => w.pods(), healthy: () => allPass(checks), close: closeAll,
  };
}
