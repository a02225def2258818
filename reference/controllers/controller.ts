// What a controller of the controller manager (and the scheduler) is: a client of the API like any
// other. It registers informers and handlers when made, reconciles keys from a work queue once the
// informers have synced, and writes only through the API (optimistic concurrency: every update
// carries the resourceVersion it read; a 409 retries the key with a fresh read).
import type { ApiClient } from '../client/api-client.js';
import type { InformerFactory } from '../client/informer.js';
import type { QueueMetrics } from '../client/workqueue.js';
import type { FeatureGates } from '../features.js';
import type { EventRecorder } from './events.js';

/** Settings of the controller manager (upstream kube-controller-manager flags), durations in ms. */
export interface ControllerSettings {
  /** --node-monitor-period: how often node health is checked (5 s). */
  readonly nodeMonitorPeriodMs: number;
  /** --node-monitor-grace-period: silence after which Ready becomes Unknown (50 s). */
  readonly nodeMonitorGracePeriodMs: number;
  /** --node-startup-grace-period: the same for a node that never reported (60 s). */
  readonly nodeStartupGracePeriodMs: number;
  /**
   * --node-eviction-rate: NoExecute `not-ready`/`unreachable` taints added per second in a zone that is
   * healthy (0.1; a token bucket of one, so the first comes at once). Tests and the embedded run
   * raise it so that cases do not wait minutes.
   */
  readonly nodeEvictionRate: number;
  /** --secondary-node-eviction-rate: the same in an unhealthy zone larger than largeClusterSizeThreshold (0.01). */
  readonly secondaryNodeEvictionRate: number;
  /** --large-cluster-size-threshold: an unhealthy zone of at most this many nodes gets no NoExecute taints (50). */
  readonly largeClusterSizeThreshold: number;
  /** --unhealthy-zone-threshold: share of not-Ready nodes (more than 2) that makes a zone unhealthy (0.55). */
  readonly unhealthyZoneThreshold: number;
  /** --resource-quota-sync-period: full recount of every quota (5 min). */
  readonly resourceQuotaSyncPeriodMs: number;
  /** --concurrent-resource-quota-syncs (5). */
  readonly concurrentResourceQuotaSyncs: number;
}

export const DEFAULT_CONTROLLER_SETTINGS: ControllerSettings = {
  nodeMonitorPeriodMs: 5_000,
  nodeMonitorGracePeriodMs: 50_000,
  nodeStartupGracePeriodMs: 60_000,
  nodeEvictionRate: 0.1,
  secondaryNodeEvictionRate: 0.01,
  largeClusterSizeThreshold: 50,
  unhealthyZoneThreshold: 0.55,
  resourceQuotaSyncPeriodMs: 300_000,
  concurrentResourceQuotaSyncs: 5,
};

export interface ControllerContext {
  readonly client: ApiClient;
  /** Shared informers: ask for them when made; the manager starts them all and waits for sync. */
  readonly informers: InformerFactory;
  readonly settings: ControllerSettings;
  readonly gates: FeatureGates;
  /** Records events.orch.io/v1 Events as this controller. */
  readonly events: EventRecorder;
  /** Work queue metrics (workqueue_* series on the component's /metrics). */
  readonly queueMetrics?: QueueMetrics;
  readonly log: (message: string, err?: unknown) => void;
  /**
   * Test-only: named ways to break a controller in exactly one rule, for the project's proofs
   * (test/proof/controllers.ts). Set only through the in-process options, never from the network or
   * the command line. Each use is commented "Test-only (breaks)".
   */
  readonly breaks: ReadonlySet<string>;
}

export interface Controller {
  /** Upstream's controller name, as `--controllers` takes it. */
  readonly name: string;
  /** Starts the workers; called once the informers have synced. */
  run(): void;
  /** Stops the workers (the manager stops the informers). */
  stop(): void;
  /**
   * For controllers that ask for informers once running (from discovery: the garbage collector,
   * the namespace controller): resolves once those have synced. The manager waits for it (bounded)
   * before it reports ready.
   */
  synced?(): Promise<void>;
}

export interface ControllerDefinition {
  readonly name: string;
  /**
   * APIs the controller works on (group '' for core). A controller whose APIs the server does not
   * serve is not started, as upstream skips controllers of disabled APIs, instead of waiting forever
   * for an informer of a resource that does not exist.
   */
  readonly requires?: readonly { readonly group: string; readonly resource: string }[];
  /** Off unless named in --controllers (upstream's disabled-by-default controllers). */
  readonly disabledByDefault?: boolean;
  make(ctx: ControllerContext): Controller;
}
