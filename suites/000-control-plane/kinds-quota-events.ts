// Descriptors of StorageVersionMigration (§2.3), ResourceQuota (§2.4) and Event (§2.7). They live apart
// from kinds.ts (which lists them in KINDS) so that the two files do not import each other.
import type { CaseContext } from '../case.js';
import type { ResourceKind } from './kinds.js';

/** A fixed RFC 3339 time for conditions the cases write. */
export const FIXED_TIME = '2025-01-01T00:00:00Z';
/** The same instant as a MicroTime, as upstream writes it back. */
export const FIXED_MICRO_TIME = '2025-01-01T00:00:00.000000Z';

/** Now as a MicroTime (six fractional digits, UTC), as events/v1 clients send it. */
export function microNow(): string {
  return new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * A resource no server serves: a storage version migrator never records a resourceVersion for a
 * migration of it nor runs it (it may fail it), so the cases' own status writes do not race with one.
 */
export const UNSERVED_RESOURCE = { group: 'nothing.conformance.orch.io', resource: 'nothings' } as const;

/**
 * A quota limit on a kind no server serves: such a quota is never exceeded and constrains no create,
 * so the quotas the generic cases make in the run's namespace cannot refuse another case's pods.
 */
export const NOTHING_COUNT = 'count/nothings.nothing.conformance.orch.io';

export const STORAGE_VERSION_MIGRATION: ResourceKind = {
  kind: 'StorageVersionMigration',
  apiVersion: 'storagemigration.orch.io/v1',
  plural: 'storageversionmigrations',
  namespaced: false,
  // Spec §4.1: no status subresource (status is written through the main resource).
  hasStatus: false,
  deleteResponse: 'status',
  section: '2.3',
  valid: () => ({ spec: { resource: { ...UNSERVED_RESOURCE } } }),
  // spec.resource is immutable; status.resourceVersion may be set once.
  change: { patch: { status: { resourceVersion: '42' } }, changed: (o) => o?.status?.resourceVersion === '42' },
};

export const RESOURCE_QUOTA: ResourceKind = {
  kind: 'ResourceQuota',
  apiVersion: 'v1',
  plural: 'resourcequotas',
  namespaced: true,
  hasStatus: true,
  deleteResponse: 'object',
  section: '2.4',
  valid: () => ({ spec: { hard: { [NOTHING_COUNT]: '10' } } }),
  change: { patch: { spec: { hard: { [NOTHING_COUNT]: '20' } } }, changed: (o) => o?.spec?.hard?.[NOTHING_COUNT] === '20' },
  status: () => ({ hard: { [NOTHING_COUNT]: '10' }, used: { [NOTHING_COUNT]: '0' } }),
};

export const EVENT: ResourceKind = {
  kind: 'Event',
  apiVersion: 'events.orch.io/v1',
  plural: 'events',
  namespaced: true,
  hasStatus: false,
  deleteResponse: 'status',
  section: '2.7',
  valid: (ctx: CaseContext) => ({
    eventTime: microNow(),
    action: 'Check',
    reason: 'ConformanceCheck',
    note: 'An event written by the conformance suite.',
    type: 'Normal',
    reportingController: 'conformance.orch.io/suite',
    reportingInstance: 'conformance-suite-1',
    regarding: { apiVersion: 'v1', kind: 'ConfigMap', namespace: ctx.namespace, name: 'conformance-subject' },
  }),
  // After creation only series may change.
  change: {
    patch: { series: { count: 2, lastObservedTime: FIXED_MICRO_TIME } },
    changed: (o) => o?.series?.count === 2,
  },
};
