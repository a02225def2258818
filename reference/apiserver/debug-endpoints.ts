// The API server's metrics and debug endpoints: the shared ComponentEndpoints with the API server's
// identity (name, flags, configuration, versions) and its health checks.
//
// Checks, named as upstream names them where the dependency is the same: livez and healthz run
// ping, log, the storage check and autoregister-completion; readyz adds the storage readiness check,
// informer-sync and shutdown. On etcd the storage checks are upstream's `etcd` and `etcd-readiness`;
// on the in-memory store they are named for the backend's role, `storage` and `storage-readiness`,
// since upstream's names would claim a dependency that is not there.
import { ComponentEndpoints, type MetricsEndpoint } from '../observability/component-endpoints.js';
import { namedCheck, within, type HealthChecks, type HealthFaults } from '../observability/health.js';
import { PACKAGE_VERSION } from '../package-version.js';
import type { FeatureGates } from '../features.js';
import type { Storage } from '../storage/types.js';
import { SERVER_VERSION } from './discovery.js';

export const API_SERVER_COMPONENT = 'orch-apiserver';

/** What the process that starts the API server tells its debug endpoints. */
export interface ApiServerIdentity {
  /** The command-line flags it was started with, defaults included (/flagz). */
  readonly flags?: Readonly<Record<string, string>>;
  /** The merged configuration (/configz): section name to value. */
  readonly config?: Readonly<Record<string, unknown>>;
  /** Test-only: checks forced to fail, by name, with the reason. */
  readonly healthFaults?: HealthFaults;
}

export interface ApiServerHealthState {
  readonly storage: Storage;
  /** Every served resource is registered and the initial namespaces exist. */
  registered(): boolean;
  /** Every controller has started (the reference's informers are its controllers' watches). */
  controllersStarted(): boolean;
  /** close() has begun. */
  shuttingDown(): boolean;
}

export function apiServerHealthChecks(s: ApiServerHealthState): HealthChecks {
  const ping = namedCheck('ping', () => undefined);
  const log = namedCheck('log', () => {
    if (!process.stderr.writable) throw new Error('the log (standard error) is not writable');
  });
  // A read through the storage interface, bounded like upstream's etcd probes.
  const storageRead = (timeoutMs: number) => async () => {
    await within(timeoutMs, `storage did not answer within ${timeoutMs}ms`, s.storage.currentRevision());
  };
  const name = s.storage.backend ?? 'storage';
  const storage = namedCheck(name, storageRead(2000));
  const storageReadiness = namedCheck(`${name}-readiness`, storageRead(1000));
  const autoregister = namedCheck('autoregister-completion', () => {
    if (!s.registered()) throw new Error('resources are still being registered');
  });
  const informerSync = namedCheck('informer-sync', () => {
    if (!s.controllersStarted()) throw new Error('controllers have not started yet');
  });
  const shutdown = namedCheck('shutdown', () => {
    if (s.shuttingDown()) throw new Error('process is shutting down');
  });
  return {
    healthz: [ping, log, storage, autoregister],
    livez: [ping, log, storage, autoregister],
    readyz: [ping, log, storage, storageReadiness, informerSync, autoregister, shutdown],
  };
}

export interface ApiServerEndpointsOptions extends ApiServerIdentity {
  readonly state: ApiServerHealthState;
  readonly featureGates: FeatureGates;
  readonly metrics?: MetricsEndpoint;
}

export function apiServerEndpoints(o: ApiServerEndpointsOptions): ComponentEndpoints {
  const minor = Number(SERVER_VERSION.minor);
  return new ComponentEndpoints({
    name: API_SERVER_COMPONENT,
    checks: apiServerHealthChecks(o.state),
    flags: o.flags ?? {},
    config: o.config ?? {},
    featureGates: o.featureGates,
    binaryVersion: PACKAGE_VERSION,
    emulationVersion: `${SERVER_VERSION.major}.${minor}`,
    minimumCompatibilityVersion: `${SERVER_VERSION.major}.${minor - 1}`,
    otherPaths: ['/version'],
    metrics: o.metrics,
    healthFaults: o.healthFaults,
  });
}
