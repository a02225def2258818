// StorageVersionMigration, storagemigration.orch.io/v1, cluster-scoped (spec §2.3). Rules follow
// upstream pkg/apis/storagemigration/validation. Unlike upstream, spec §4.1 gives this kind no status
// subresource, so status is written through the main resource: create and update check the status
// rules upstream applies to status updates (resourceVersion a non-negative integer, set once;
// conditions valid, unique by type, Running/Succeeded/Failed consistent) next to the spec rules.
import { deepEqual, fieldErrors, path, validateConditions, type Condition, type FieldError } from '../apiserver/field-errors.js';
import { conditionSchema, t } from '../apiserver/schema.js';
import { defineStrategy, type ApiObject } from '../apiserver/strategy.js';

export const MIGRATION_RUNNING = 'Running';
export const MIGRATION_SUCCEEDED = 'Succeeded';
export const MIGRATION_FAILED = 'Failed';

/** Patch strategies of this kind for strategic merge patch (spec §2.3). */
export const STORAGE_VERSION_MIGRATION_PATCH_STRATEGIES = {
  'status.conditions': { strategy: 'merge', mergeKey: 'type' },
} as const;

// Upstream messages.
export const MSG_RESOURCE_REQUIRED = 'resource is required';
export const MSG_BOTH_TERMINAL = 'Both success and failed conditions cannot be true at the same time';
export const MSG_RUNNING_WITH_SUCCESS = 'Running condition cannot be true when success condition is true';
export const MSG_RUNNING_WITH_FAILED = 'Running condition cannot be true when failed condition is true';
export const MSG_SUCCESS_FINAL = 'Success condition cannot be set to false once it is true';
export const MSG_FAILED_FINAL = 'Failed condition cannot be set to false once it is true';

interface StorageVersionMigration extends ApiObject {
  spec?: { resource?: { group?: string; resource?: string } };
  status?: { conditions?: Condition[]; resourceVersion?: string };
}


const SPEC = path('spec');
const STATUS = path('status');
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

export const storageVersionMigrationStrategy = defineStrategy({
  group: 'storagemigration.orch.io',
  version: 'v1',
  kind: 'StorageVersionMigration',
  resource: 'storageversionmigrations',
  singular: 'storageversionmigration',
  namespaced: false,
  // Spec §4.1: no status subresource; status goes through the main resource.
  hasStatus: false,
  deleteResponse: 'status',
  // Only spec changes bump metadata.generation.
  specFields: ['spec'],
  patchStrategies: STORAGE_VERSION_MIGRATION_PATCH_STRATEGIES,
  description: 'A request to migrate stored data of one resource to the latest storage version. Cluster-scoped.',
  schema: {
    spec: t.object(
      {
        resource: t.object(
          {
            group: t.string('API group of the resource; empty for the core group.'),
            resource: t.string('Plural name of the resource (such as storageclasses).'),
          },
          'Resource being migrated; the migrator sends requests to the endpoint serving it. Immutable.',
          ['resource'],
        ),
      },
      'What to migrate.',
      ['resource'],
    ),
    status: t.object(
      {
        conditions: t.array(conditionSchema, 'Latest observations of the migration state. Patch strategy: merge on key `type`.'),
        resourceVersion: t.string(
          'Resource version compared with the garbage-collection cache when performing the migration; it is the current resource version of the group, version and resource when the controller manager first observes the migration.',
        ),
      },
      'Progress of the migration, written by the migration controller.',
    ),
  },

  validate(o: ApiObject): FieldError[] {
    const svm = o as StorageVersionMigration;
    const errs: FieldError[] = [];
    if (!svm.spec?.resource?.resource) errs.push(fieldErrors.required(SPEC.child('resource').child('resource'), MSG_RESOURCE_REQUIRED));
    errs.push(...validateStatus(svm));
    return errs;
  },

  validateUpdate(o: ApiObject, oldObj: ApiObject): FieldError[] {
    const svm = o as StorageVersionMigration;
    const old = oldObj as StorageVersionMigration;
    const errs: FieldError[] = [];
    const resource = (x: StorageVersionMigration) => ({ group: x.spec?.resource?.group ?? '', resource: x.spec?.resource?.resource ?? '' });
    if (!deepEqual(resource(svm), resource(old))) errs.push(fieldErrors.immutable(SPEC.child('resource'), resource(svm)));
    errs.push(...validateStatusTransition(svm, old));
    return errs;
  },
});

/** strconv.ParseInt(rv, 10, 64) as upstream's convertResourceVersionToInt reports it. */
function parseResourceVersion(rv: string): { value: bigint } | { error: string } {
  const syntax = `failed to parse resource version ${JSON.stringify(rv)}: strconv.ParseInt: parsing ${JSON.stringify(rv)}: `;
  if (!/^[+-]?[0-9]+$/.test(rv)) return { error: `${syntax}invalid syntax` };
  const value = BigInt(rv);
  if (value > INT64_MAX || value < INT64_MIN) return { error: `${syntax}value out of range` };
  return { value };
}

const isTrue = (svm: StorageVersionMigration | undefined, type: string): boolean =>
  (svm?.status?.conditions ?? []).find((c) => c.type === type)?.status === 'True';

/** The status rules that need no previous state (upstream runs them on status updates). */
function validateStatus(svm: StorageVersionMigration): FieldError[] {
  const errs: FieldError[] = [];
  const rv = svm.status?.resourceVersion ?? '';
  if (rv !== '') {
    const parsed = parseResourceVersion(rv);
    if ('error' in parsed) errs.push(fieldErrors.invalid(STATUS.child('resourceVersion'), rv, parsed.error));
    else if (parsed.value < 0n) errs.push(fieldErrors.invalid(STATUS.child('resourceVersion'), Number(parsed.value), 'must be greater than or equal to 0'));
  }
  const conditionsAt = STATUS.child('conditions');
  const conditions = svm.status?.conditions ?? [];
  errs.push(...validateConditions(conditions, conditionsAt));
  const succeeded = isTrue(svm, MIGRATION_SUCCEEDED);
  const failed = isTrue(svm, MIGRATION_FAILED);
  const running = isTrue(svm, MIGRATION_RUNNING);
  if (succeeded && failed) errs.push(fieldErrors.invalid(conditionsAt, conditions, MSG_BOTH_TERMINAL));
  if (succeeded && running) errs.push(fieldErrors.invalid(conditionsAt, conditions, MSG_RUNNING_WITH_SUCCESS));
  if (failed && running) errs.push(fieldErrors.invalid(conditionsAt, conditions, MSG_RUNNING_WITH_FAILED));
  return errs;
}

/** The status rules that compare with the stored object. */
function validateStatusTransition(svm: StorageVersionMigration, old: StorageVersionMigration): FieldError[] {
  const errs: FieldError[] = [];
  const rv = svm.status?.resourceVersion ?? '';
  const oldRv = old.status?.resourceVersion ?? '';
  if (oldRv !== '' && rv !== oldRv) errs.push(fieldErrors.immutable(STATUS.child('resourceVersion'), rv));
  const conditions = svm.status?.conditions ?? [];
  const at = STATUS.child('conditions');
  if (isTrue(old, MIGRATION_SUCCEEDED) && !isTrue(svm, MIGRATION_SUCCEEDED)) errs.push(fieldErrors.invalid(at, conditions, MSG_SUCCESS_FINAL));
  if (isTrue(old, MIGRATION_FAILED) && !isTrue(svm, MIGRATION_FAILED)) errs.push(fieldErrors.invalid(at, conditions, MSG_FAILED_FINAL));
  return errs;
}
