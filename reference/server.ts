// The reference control-plane API server: the generic apiserver core with the reference's
// resources on MVCC storage (in memory, or etcd).
import { startApiServer } from './apiserver/apiserver.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { REFERENCE_ADMISSION, REFERENCE_RESOURCES } from './resources/index.js';
import { startControllerManager } from './controllers/manager.js';
import type { ControllerSettings } from './controllers/controller.js';
import { startScheduler } from './scheduler/scheduler.js';
import { CONTROLLER_MANAGER_GROUP, SCHEDULER_GROUP } from './apiserver/auth/policy.js';
import { MemoryStorage } from './storage/memory.js';
import type { Storage } from './storage/types.js';
import { startCompactor } from './storage/compactor.js';
import { FeatureGates } from './features.js';
import { plantCorrupt } from './debug-plant.js';
import type { HealthFaults } from './observability/health.js';
import { checkPair, processSelfSigned } from './tls.js';
import { componentLog, stderrSink, type Log, type LogSink } from './log.js';
import type { AuthOptions } from './apiserver/auth/filter.js';
import type { AgentClientCert } from './apiserver/agent-client-cert.js';

export interface ReferenceOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Where objects are kept: 'memory' (default, this process only) or 'etcd' (needs `etcd`). */
  storage?: 'memory' | 'etcd';
  /**
   * With storage 'etcd' (`serve --etcd-servers`, `--etcd-prefix`, `--etcd-cafile`, `--etcd-certfile`,
   * `--etcd-keyfile`): the cluster's client URLs, the key prefix in etcd (default `/registry`, where
   * upstream keeps its objects) and TLS PEMs.
   */
  etcd?: {
    servers: readonly string[];
    prefix?: string;
    tls?: { caPem?: string; certPem?: string; keyPem?: string };
    /** Deadline of each storage call (`--etcd-request-timeout`, default 5 s): a hung etcd is answered 504 Timeout once it passes. */
    requestTimeoutMs?: number;
  };
  /** Gates set against their 1.37 defaults; unknown or locked ones throw FeatureGateError. */
  featureGates?: Readonly<Record<string, boolean>>;
  /** How long list continue tokens stay valid, in seconds (default 300; `serve --continue-ttl`). */
  continueTtlSeconds?: number;
  /**
   * Storage history older than this many seconds is compacted (default 300, as upstream compacts
   * etcd every 5 minutes; `serve --compaction-interval`): watches and reads at older
   * resourceVersions get 410 Expired.
   */
  compactionIntervalSeconds?: number;
  /** Period of watch BOOKMARK events, in seconds (default 60; `serve --bookmark-interval`). */
  bookmarkIntervalSeconds?: number;
  /**
   * Bytes of watch events all watches together may hold for clients that read slowly (default
   * 256 MiB; `serve --max-watch-pending-bytes`): past it the slowest watches are closed.
   */
  maxWatchPendingBytes?: number;
  /**
   * The command-line flags the server was started with, defaults included, as /flagz shows them
   * (`serve` passes its own). Default: the `serve` flags equivalent to these options.
   */
  flags?: Readonly<Record<string, string>>;
  /**
   * Test-only: health checks forced to fail, check name to reason; entries may be added and
   * removed while the server runs. Not reachable from the network.
   */
  healthFaults?: HealthFaults;
  /**
   * Test-only, off by default (`serve --debug-plant-corrupt`): item paths at whose storage key
   * undecodable bytes are written at start, to exercise corrupt-object handling.
   */
  debugPlantCorrupt?: readonly string[];
  /**
   * Serve HTTPS (spec 002 §1: components serve on their own HTTPS port): 'self-signed' makes a CA
   * and a serving certificate as upstream does without --tls-cert-file (one per host per process),
   * or the given PEMs (`certPem` may carry the chain; `caPem`, when known, is what clients should
   * trust). Default: plain HTTP.
   */
  tls?: 'self-signed' | { certPem: string; keyPem: string; caPem?: string };
  /**
   * Authentication and authorization (`serve --token-auth-file`, `--authorization-mode`,
   * `--anonymous-auth`): bearer tokens from a static table, impersonation, and AlwaysAllow (default)
   * or RBAC over the stored roles and bindings; requests without a token are system:anonymous unless
   * `anonymous` is false. Without `auth`, nothing is authenticated and everything is allowed.
   */
  auth?: AuthOptions;
  /**
   * Address types tried in order for `/api/v1/nodes/{name}/proxy` (upstream
   * --kubelet-preferred-address-types). Default InternalIP, ExternalIP, Hostname: upstream puts
   * Hostname first, but agents here register --hostname-override names that do not resolve.
   */
  agentPreferredAddressTypes?: readonly string[];
  /**
   * CA of the node agents' serving certificates, for the node proxy (upstream
   * --kubelet-certificate-authority); without it their certificates are not verified, as upstream.
   */
  agentCaPem?: string;
  /**
   * The client certificate the node proxy presents to agents (upstream --kubelet-client-certificate,
   * --kubelet-client-key); default: one generated at start with its own CA, which RunningReference
   * gives as `agentClientCaPem` for the agents' `authentication.x509.clientCAFile`.
   */
  agentClientCert?: AgentClientCert;
  /**
   * Let the node proxy reach agents at loopback (and unspecified) addresses (`serve
   * --node-proxy-allow-loopback`): single-machine set-ups whose agents listen on 127.0.0.1. Default
   * off: loopback and link-local node addresses are refused, and this server's own address always.
   */
  nodeProxyAllowLoopback?: boolean;
  /** Bounds on pods/exec, attach and portforward sessions (idle timeout, open sessions; pod-streaming.ts defaults). */
  agentStreaming?: { idleTimeoutMs?: number; maxSessions?: number };
  /**
   * tolerationSeconds of the `node.orch.io/not-ready:NoExecute` toleration the DefaultTolerationSeconds
   * admission adds to pods without one (`serve --default-not-ready-toleration-seconds`, default 300).
   */
  defaultNotReadyTolerationSeconds?: number;
  /** Likewise for `node.orch.io/unreachable:NoExecute` (`serve --default-unreachable-toleration-seconds`, default 300). */
  defaultUnreachableTolerationSeconds?: number;
  /**
   * The controller manager, run next to the API server as its client (`serve --controllers`,
   * `--controllers ''` for none): default every controller on by default, its endpoints on an
   * ephemeral port; `false`: none. The namespace controller, the garbage collector and the
   * ClusterRole aggregation are controllers too: without them a deleted namespace stays
   * Terminating, dependents are not collected and objects deleted with Foreground or Orphan
   * propagation stay pending with their finalizer (as upstream's API server without them).
   */
  controllerManager?: false | {
    /** Upstream --controllers syntax (`*`, `name`, `-name`). */
    readonly controllers?: readonly string[];
    readonly settings?: Partial<ControllerSettings>;
    readonly port?: number;
    /** Test-only (ControllerContext.breaks). */
    readonly breaks?: ReadonlySet<string>;
  };
  /** The scheduler, likewise (`serve --no-scheduler`): default on; `false`: none. */
  scheduler?: false | { readonly port?: number; readonly breaks?: ReadonlySet<string> };
  /**
   * Where the API server, the controller manager and the scheduler log, one line per event
   * (reference/log.ts); default standard error. The embedded conformance run drops them unless
   * `--verbose`: its cases provoke errors on purpose (a planted corrupt object, failing writes).
   */
  log?: LogSink;
}

export interface RunningReference {
  /** The API base URL: http://host:port, or https://host:port with `tls`. */
  url: string;
  /** With `tls`: the CA PEM clients should trust, when known. */
  caPem?: string;
  /** The CA of the node proxy's client certificate, for agents' `authentication.x509.clientCAFile`, when known. */
  agentClientCaPem?: string;
  /** The controller manager's and the scheduler's endpoints (HTTPS, spec 002), when they run. */
  components: { controllerManager?: ComponentUrl; scheduler?: ComponentUrl };
  /** Ends open watches and connections; resolves once the server has stopped. */
  close(): Promise<void>;
}

export { REFERENCE_RESOURCES };

/** Where a companion component serves its endpoints, and the CA of its certificate. */
export interface ComponentUrl {
  readonly url: string;
  readonly caPem?: string;
}

export async function startReference(opts: ReferenceOptions = {}): Promise<RunningReference> {
  if (opts.storage !== undefined && opts.storage !== 'memory' && opts.storage !== 'etcd') throw new Error(`unsupported storage: ${String(opts.storage)}`);
  const featureGates = new FeatureGates(opts.featureGates);
  const tls = opts.tls === 'self-signed' ? processSelfSigned(opts.host) : opts.tls;
  // A wrong pair would otherwise surface as an OpenSSL error from deep inside listen().
  if (tls && opts.tls !== 'self-signed') checkPair(tls.certPem, tls.keyPem, 'tls.certPem', 'tls.keyPem');
  const sink = opts.log ?? stderrSink;
  const storage = opts.storage === 'etcd' ? await openEtcd(opts.etcd, opts.compactionIntervalSeconds, componentLog('reference', sink)) : new MemoryStorage(opts.compactionIntervalSeconds !== undefined ? { historyMs: opts.compactionIntervalSeconds * 1000 } : {});
  try {
    const identity = {
      flags: opts.flags ?? serveFlagsFor(opts),
      config: { componentconfig: { bindAddress: opts.host ?? '127.0.0.1', port: opts.port ?? 0, storage: opts.storage ?? 'memory', featureGates: featureGates.all() } },
      healthFaults: opts.healthFaults,
    };
    // The companions serve HTTPS with the API server's certificate when it has one (same host, and
    // clients trust one CA), else with the process's self-signed one.
    // With authentication on, the companions authenticate with tokens of their own (RBAC roles
    // system:orch-controller-manager and system:orch-scheduler); without it nothing is checked.
    const companionToken = (group: string) => (opts.auth ? { token: randomBytes(32).toString('base64url'), user: group, uid: randomUUID(), groups: [group] } : undefined);
    const cmToken = opts.controllerManager === false ? undefined : companionToken(CONTROLLER_MANAGER_GROUP);
    const schedToken = opts.scheduler === false ? undefined : companionToken(SCHEDULER_GROUP);
    const systemTokens = [cmToken, schedToken].filter((t) => t !== undefined);
    const api = await startApiServer({ storage, strategies: REFERENCE_RESOURCES, admission: REFERENCE_ADMISSION, admissionSettings: { defaultNotReadyTolerationSeconds: opts.defaultNotReadyTolerationSeconds, defaultUnreachableTolerationSeconds: opts.defaultUnreachableTolerationSeconds }, host: opts.host, port: opts.port, featureGates, identity, continueTtlSeconds: opts.continueTtlSeconds, bookmarkIntervalSeconds: opts.bookmarkIntervalSeconds, watchBounds: { maxTotalPendingBytes: opts.maxWatchPendingBytes }, tls, auth: opts.auth, systemTokens, log: componentLog('reference', sink), agentProxy: { preferredAddressTypes: opts.agentPreferredAddressTypes, caPem: opts.agentCaPem, clientCert: opts.agentClientCert, allowLoopback: opts.nodeProxyAllowLoopback, streaming: opts.agentStreaming } });
    const companions: Array<{ close(): Promise<void> }> = [];
    const closeAll = async () => {
      await Promise.all(companions.map((c) => c.close()));
      await api.close();
    };
    const components: RunningReference['components'] = {};
    try {
      for (const p of opts.debugPlantCorrupt ?? []) await plantCorrupt(api.registry, storage, p);
      const host = opts.host ?? '127.0.0.1';
      // With authentication on, the companions check their callers by delegation to this server
      // (TokenReview, SubjectAccessReview), as upstream's do; without it nothing is checked anywhere.
      const delegatedAuth = opts.auth !== undefined;
      if (opts.controllerManager !== false) {
        const o = opts.controllerManager ?? {};
        const cm = await startControllerManager({ api: { url: api.url, token: cmToken?.token, caPem: tls?.caPem }, controllers: o.controllers, settings: o.settings, featureGates, serve: { host, port: o.port, tls, delegatedAuth }, breaks: o.breaks, log: componentLog('controller-manager', sink) });
        companions.push(cm);
        components.controllerManager = { url: cm.url!, caPem: cm.caPem };
      }
      if (opts.scheduler !== false) {
        const o = opts.scheduler ?? {};
        const sched = await startScheduler({ api: { url: api.url, token: schedToken?.token, caPem: tls?.caPem }, featureGates, serve: { host, port: o.port, tls, delegatedAuth }, breaks: o.breaks, log: componentLog('scheduler', sink) });
        companions.push(sched);
        components.scheduler = { url: sched.url!, caPem: sched.caPem };
      }
    } catch (err) {
      await closeAll();
      throw err;
    }
    return { url: api.url, caPem: tls?.caPem, agentClientCaPem: api.agentClientCaPem, components, close: closeAll };
  } catch (err) {
    await storage.close();
    throw err;
  }
}

/** Upstream compacts etcd every 5 minutes (--etcd-compaction-interval). */
const DEFAULT_COMPACTION_INTERVAL_SECONDS = 300;

/**
 * The etcd storage, loaded only when asked for (the etcd client brings gRPC with it), once etcd has
 * answered: an unreachable etcd is a failed start, as upstream's API server refuses to start without it.
 */
async function openEtcd(etcd: ReferenceOptions['etcd'], compactionIntervalSeconds = DEFAULT_COMPACTION_INTERVAL_SECONDS, log: Log = componentLog('reference')): Promise<Storage> {
  if (!etcd || etcd.servers.length === 0) throw new Error('storage etcd needs etcd.servers');
  const { EtcdStorage } = await import('./storage/etcd.js');
  // The API server's keys start with /registry; in etcd they start with the prefix instead.
  const storage = new EtcdStorage({ servers: etcd.servers, prefix: etcd.prefix ?? '/registry', root: '/registry', tls: etcd.tls, requestTimeoutMs: etcd.requestTimeoutMs });
  try {
    await storage.currentRevision();
  } catch (err) {
    await storage.close();
    throw new Error(`etcd at ${etcd.servers.join(',')} does not answer: ${(err as Error).message}`);
  }
  // etcd keeps every revision until compacted: the API server compacts it, as upstream's does.
  startCompactor(storage, compactionIntervalSeconds * 1000, log);
  return storage;
}

/** The `serve` command line that starts a reference with these options. */
function serveFlagsFor(opts: ReferenceOptions): Record<string, string> {
  const gates = Object.entries(opts.featureGates ?? {}).map(([k, v]) => `${k}=${v}`).join(',');
  return { 'api-port': String(opts.port ?? 0), 'feature-gates': gates, host: opts.host ?? '127.0.0.1', storage: opts.storage ?? 'memory' };
}
