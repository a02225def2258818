// The controller manager (upstream kube-controller-manager): the reference's controllers, each a
// client of the API server it is pointed at (any API server: `orch-conformance controller-manager
// --kubeconfig`), sharing informers, with its own HTTPS port for spec 002's endpoints
// (`orch-controller-manager`). `serve` runs one next to its API server.
import { ApiClient, isConflict, waitForApiServer } from '../client/api-client.js';
import { InformerFactory } from '../client/informer.js';
import { DiscoveryCache } from '../client/discovery.js';
import type { QueueMetrics } from '../client/workqueue.js';
import { FeatureGates } from '../features.js';
import { namedCheck } from '../observability/health.js';
import type { HealthFaults } from '../observability/health.js';
import type { ComponentMetrics } from '../observability/metrics.js';
import { startComponentServer, type ComponentServe } from '../components/component-server.js';
import { componentRequestAuth } from '../components/request-auth.js';
import { DEFAULT_CONTROLLER_SETTINGS, type Controller, type ControllerDefinition, type ControllerSettings } from './controller.js';
import { eventRecorder } from './events.js';
import { CONTROLLERS } from './index.js';
import { componentLog } from '../log.js';

export const CONTROLLER_MANAGER_COMPONENT = 'orch-controller-manager';

export interface ApiConnection {
  readonly url: string;
  readonly token?: string;
  readonly caPem?: string;
}

export interface ControllerManagerOptions {
  readonly api: ApiConnection;
  /**
   * Upstream's --controllers syntax: `*` (every controller on by default), `name` (on), `-name`
   * (off). Default ['*'].
   */
  readonly controllers?: readonly string[];
  readonly settings?: Partial<ControllerSettings>;
  readonly featureGates?: FeatureGates;
  /** Where the HTTPS endpoints listen; `false`: none (in-process tests). Default 127.0.0.1, ephemeral port. */
  readonly serve?: ComponentServe;
  /** As /flagz shows them. */
  readonly flags?: Readonly<Record<string, string>>;
  readonly healthFaults?: HealthFaults;
  /** Test-only: see ControllerContext.breaks. */
  readonly breaks?: ReadonlySet<string>;
  readonly log?: (message: string, err?: unknown) => void;
  /** Extra controllers (tests); run as if named in `controllers`. */
  readonly extra?: readonly ControllerDefinition[];
}

export interface RunningControllerManager {
  /** https://host:port of the endpoints, unless `serve: false`. */
  readonly url?: string;
  readonly caPem?: string;
  /** The controllers running, by name. */
  readonly controllers: readonly string[];
  close(): Promise<void>;
}

/** The controllers `spec` selects, upstream's rules: `*` = the default set; `-x` wins over `*`. */
export function selectControllers(spec: readonly string[], all: readonly ControllerDefinition[]): ControllerDefinition[] {
  const known = new Set(all.map((d) => d.name));
  for (const s of spec) {
    const name = s.replace(/^-/, '');
    if (s !== '*' && !known.has(name)) throw new Error(`"${name}" is not in the list of known controllers: ${[...known].sort().join(', ')}`);
  }
  return all.filter((d) => {
    if (spec.includes(`-${d.name}`)) return false;
    if (spec.includes(d.name)) return true;
    return spec.includes('*') && !d.disabledByDefault;
  });
}

export async function startControllerManager(o: ControllerManagerOptions): Promise<RunningControllerManager> {
  const log = o.log ?? componentLog('controller-manager');
  const gates = o.featureGates ?? new FeatureGates();
  const settings: ControllerSettings = { ...DEFAULT_CONTROLLER_SETTINGS, ...o.settings };
  const selected = [...selectControllers(o.controllers ?? ['*'], CONTROLLERS), ...(o.extra ?? [])];
  const client = new ApiClient({ url: o.api.url, token: o.api.token, caPem: o.api.caPem, userAgent: 'orch-controller-manager' });
  const informers = new InformerFactory(client, log);
  let synced = false;
  const server = o.serve === false ? undefined : await startComponentServer({
    name: CONTROLLER_MANAGER_COMPONENT,
    host: o.serve?.host,
    port: o.serve?.port,
    tls: o.serve?.tls,
    featureGates: gates,
    flags: o.flags ?? { controllers: (o.controllers ?? ['*']).join(','), 'node-monitor-grace-period': `${settings.nodeMonitorGracePeriodMs / 1000}s` },
    config: { componentconfig: { controllers: selected.map((d) => d.name), ...settingsConfig(settings), featureGates: gates.all() } },
    apiClient: client,
    // Callers are checked by delegation to the API server, with this component's own client.
    auth: o.serve?.delegatedAuth === false ? undefined : componentRequestAuth({ api: client, log }),
    readyChecks: [namedCheck('informer-sync', () => { if (!synced) throw new Error('informers have not synced yet'); })],
    healthFaults: o.healthFaults,
  });
  const queueMetrics = server ? workqueueMetrics(server.metrics) : undefined;
  const controllers: Controller[] = [];
  const started: Array<Promise<void>> = [];
  let stopped = false;
  try {
    await waitForApiServer(client, log);
    const served = await servedApis(client, selected, log);
    for (const d of selected.filter(served)) {
      const scope = informers.scope();
      const c = d.make({
        client, informers: scope, settings, gates, queueMetrics, breaks: o.breaks ?? new Set(),
        events: eventRecorder(client, d.name, `${CONTROLLER_MANAGER_COMPONENT}-${process.pid}`, log),
        // A conflict is optimistic concurrency at work: the key is retried on a fresh read.
        log: (m, e) => { if (!isConflict(e)) log(`${d.name}: ${m}`, e); },
      });
      controllers.push(c);
      // Each controller starts once its own informers have synced, so one resource that cannot be
      // listed (a corrupt object, say) holds back only the controllers that need it. Some start
      // further informers from discovery once running (Controller.synced).
      started.push(scope.synced().then(() => {
        if (stopped) return;
        c.run();
        return c.synced?.();
      }));
    }
  } catch (err) {
    informers.stop();
    client.close();
    await server?.close();
    throw err;
  }
  const all = Promise.all(started).then(() => { synced = true; });
  all.catch((err) => log('a controller failed to start', err));
  // Callers (serve, tests) get a working manager when it returns; a slow informer only delays
  // readiness (readyz informer-sync), as upstream's WaitForCacheSync does per controller.
  await syncedWithin(all, CONTROLLER_SYNC_TIMEOUT_MS, log);
  let closing: Promise<void> | undefined;
  return {
    url: server?.url,
    caPem: server?.caPem,
    controllers: controllers.map((c) => c.name),
    close: () => (closing ??= (async () => {
      stopped = true;
      for (const c of controllers) c.stop();
      informers.stop();
      client.close();
      await server?.close();
    })()),
  };
}

/** How long startControllerManager waits for controllers' own informers (Controller.synced). */
const CONTROLLER_SYNC_TIMEOUT_MS = 10_000;

async function syncedWithin(all: Promise<void>, ms: number, log: (message: string, err?: unknown) => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => { timer = setTimeout(() => r('late'), ms); });
  const done = all.then(() => 'synced' as const, () => 'synced' as const);
  if ((await Promise.race([done, late])) === 'late') log(`controllers' informers did not sync within ${ms / 1000}s; the others run, and readyz reports informer-sync until they do`);
  clearTimeout(timer);
}

/** A filter of the definitions whose required APIs the server serves; the others are logged and left out. */
async function servedApis(client: ApiClient, defs: readonly ControllerDefinition[], log: (message: string, err?: unknown) => void): Promise<(d: ControllerDefinition) => boolean> {
  if (!defs.some((d) => d.requires?.length)) return () => true;
  const discovery = new DiscoveryCache(client);
  const served = await discovery.all().catch((err) => {
    log('discovery failed; starting every controller', err);
    return undefined;
  });
  if (!served) return () => true;
  return (d) => {
    const missing = (d.requires ?? []).filter((r) => !served.some((s) => s.group === r.group && s.resource === r.resource));
    if (missing.length) log(`${d.name} not started: the API server does not serve ${missing.map((r) => `${r.group || 'core'}/${r.resource}`).join(', ')}`);
    return missing.length === 0;
  };
}

function settingsConfig(s: ControllerSettings): Record<string, unknown> {
  const d = (ms: number) => `${ms / 1000}s`;
  return {
    nodeMonitorPeriod: d(s.nodeMonitorPeriodMs),
    nodeMonitorGracePeriod: d(s.nodeMonitorGracePeriodMs),
    nodeStartupGracePeriod: d(s.nodeStartupGracePeriodMs),
    nodeEvictionRate: s.nodeEvictionRate,
    secondaryNodeEvictionRate: s.secondaryNodeEvictionRate,
    largeClusterSizeThreshold: s.largeClusterSizeThreshold,
    unhealthyZoneThreshold: s.unhealthyZoneThreshold,
    resourceQuotaSyncPeriod: d(s.resourceQuotaSyncPeriodMs),
    concurrentResourceQuotaSyncs: s.concurrentResourceQuotaSyncs,
  };
}

/** Upstream's workqueue_* series (client-go workqueue metrics provider), by queue name. */
export function workqueueMetrics(m: ComponentMetrics): QueueMetrics {
  const adds = m.counter({ name: 'workqueue_adds_total', help: '[ALPHA] Total number of adds handled by workqueue', labelNames: ['name'] });
  const depth = m.gauge({ name: 'workqueue_depth', help: '[ALPHA] Current depth of workqueue', labelNames: ['name'] });
  const retries = m.counter({ name: 'workqueue_retries_total', help: '[ALPHA] Total number of retries handled by workqueue', labelNames: ['name'] });
  const buckets = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10];
  const waited = m.histogram({ name: 'workqueue_queue_duration_seconds', help: '[ALPHA] How long in seconds an item stays in workqueue before being requested.', labelNames: ['name'], buckets });
  const work = m.histogram({ name: 'workqueue_work_duration_seconds', help: '[ALPHA] How long in seconds processing an item from workqueue takes.', labelNames: ['name'], buckets });
  return {
    added: (name) => adds.inc({ name }),
    depth: (name, n) => depth.set({ name }, n),
    retried: (name) => retries.inc({ name }),
    processed: (name, w, s) => {
      waited.observe({ name }, w);
      work.observe({ name }, s);
    },
  };
}
