// The scheduler (upstream kube-scheduler): a client of the API server it is pointed at. Its own
// HTTPS port serves spec 002's endpoints as `orch-scheduler`.
// (Scheduling itself lands with the scheduler's work: see issue 13.)
import { ApiClient } from '../client/api-client.js';
import { InformerFactory } from '../client/informer.js';
import { FeatureGates } from '../features.js';
import { namedCheck, type HealthFaults } from '../observability/health.js';
import { startComponentServer } from '../components/component-server.js';
import type { ApiConnection } from '../controllers/manager.js';

export const SCHEDULER_COMPONENT = 'orch-scheduler';
export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

export interface SchedulerOptions {
  readonly api: ApiConnection;
  readonly featureGates?: FeatureGates;
  /** Where the HTTPS endpoints listen; `false`: none. Default 127.0.0.1, ephemeral port. */
  readonly serve?: { readonly host?: string; readonly port?: number } | false;
  readonly flags?: Readonly<Record<string, string>>;
  readonly healthFaults?: HealthFaults;
  /** Test-only: named ways to break the scheduler in exactly one rule (test/proof/controllers.ts). */
  readonly breaks?: ReadonlySet<string>;
  readonly log?: (message: string, err?: unknown) => void;
}

export interface RunningScheduler {
  readonly url?: string;
  readonly caPem?: string;
  close(): Promise<void>;
}

export async function startScheduler(o: SchedulerOptions): Promise<RunningScheduler> {
  const log = o.log ?? ((m: string, e?: unknown) => console.error(`[scheduler] ${m}`, e ?? ''));
  const gates = o.featureGates ?? new FeatureGates();
  const client = new ApiClient({ url: o.api.url, token: o.api.token, caPem: o.api.caPem, userAgent: 'orch-scheduler' });
  const informers = new InformerFactory(client, log);
  let synced = false;
  const server = o.serve === false ? undefined : await startComponentServer({
    name: SCHEDULER_COMPONENT,
    host: o.serve?.host,
    port: o.serve?.port,
    featureGates: gates,
    flags: o.flags ?? {},
    config: { componentconfig: { profiles: [{ schedulerName: DEFAULT_SCHEDULER_NAME }], featureGates: gates.all() } },
    readyChecks: [namedCheck('sched-handler-sync', () => { if (!synced) throw new Error('scheduler informers have not synced yet'); })],
    healthFaults: o.healthFaults,
  });
  await informers.start();
  synced = true;
  return {
    url: server?.url,
    caPem: server?.caPem,
    close: async () => {
      informers.stop();
      client.close();
      await server?.close();
    },
  };
}
