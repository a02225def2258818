// The meta.orch.io/v1 shapes besides ObjectMeta (schema.ts) that every group version's OpenAPI
// document carries — ListMeta, Status, DeleteOptions, WatchEvent — and the type fields every object
// has, with their descriptions. The spec words apiVersion, kind and metadata (§2.1); the rest it
// leaves "not shown", so those descriptions are written here from what the server does.
import { t, type Properties, type Schema } from './schema.js';

/** apiVersion and kind, as every object and list has them (spec §2.1). */
export const typeMetaProperties: Properties = {
  apiVersion: t.string('Versioned schema of the representation. The server converts recognized schemas to the latest internal value and may reject unrecognized values.'),
  kind: t.string('CamelCase name of the resource. The server may infer it from the endpoint. Cannot be updated.'),
};

/** How an object's `metadata` field is described (spec §2.1). */
export const OBJECT_METADATA_DESCRIPTION = 'Standard object metadata (name, namespace, and so on).';
/** How a list's or a Status's `metadata` field is described. */
export const LIST_METADATA_DESCRIPTION = 'Standard list metadata: the resource version the list was read at and, for a chunked list, where to continue.';

export const listMetaSchema: Schema = t.object(
  {
    continue: t.string('Set when the list was cut short by limit: pass it as the continue parameter of the next list call to get the next chunk. Valid for a limited time.'),
    remainingItemCount: t.integer('Estimate of how many items are left after this chunk, when the server can tell.'),
    resourceVersion: t.string('Resource version the list was read at, from which a watch can start.'),
    selfLink: t.string('Deprecated: never set by the server.'),
  },
  'Metadata of lists and other synthetic answers that are not stored objects.',
);

export const statusSchema: Schema = t.object(
  {
    ...typeMetaProperties,
    code: t.integer('HTTP status code of the answer.'),
    details: t.object(
      {
        causes: t.array(
          t.object(
            {
              field: t.string('Path of the field at fault (such as spec.provisioner), when one is.'),
              message: t.string('Human-readable description of the problem.'),
              reason: t.string('Machine-readable kind of problem (such as FieldValueRequired).'),
            },
            'One reason for a failure.',
          ),
          'Every individual problem behind the failure, such as one per invalid field.',
        ),
        group: t.string('API group of the resource concerned.'),
        kind: t.string('Kind (or resource) of the object concerned.'),
        name: t.string('Name of the object concerned, when there is one.'),
        retryAfterSeconds: t.integer('Seconds a client should wait before trying again, when the failure is temporary.'),
        uid: t.string('UID of the object concerned, when known.'),
      },
      'Machine-readable facts about the failure, depending on its reason.',
    ),
    message: t.string('Human-readable description of the outcome.'),
    metadata: listMetaSchema,
    reason: t.string('Machine-readable CamelCase reason for a failure (such as NotFound or Invalid); empty when none applies.'),
    status: t.string('Success or Failure.'),
  },
  'The answer to a request that returns no object: the outcome of a delete, or an error.',
);

/** DeleteOptions, as a delete body (and the `deleteOptions` of a pod eviction). */
export const deleteOptionsSchema: Schema = t.object(
  {
    ...typeMetaProperties,
    gracePeriodSeconds: t.integer('Seconds before the object is deleted; non-negative; 0 deletes at once. Unset: the default of the kind.'),
    preconditions: t.object(
      {
        uid: t.string('The object is deleted only if its UID is this one.'),
        resourceVersion: t.string('The object is deleted only if its resource version is this one.'),
      },
      'Conditions the object must meet for the delete to proceed (409 Conflict otherwise).',
    ),
    orphanDependents: t.boolean('Deprecated, use propagationPolicy: whether dependents are orphaned instead of garbage collected. Only one of the two may be set.'),
    propagationPolicy: t.string('Whether and how dependents are garbage collected: Orphan, Background or Foreground.'),
    dryRun: t.array(t.string(), 'When present, nothing is persisted. The only value is All (every dry-run stage runs).'),
    ignoreStoreReadErrorWithClusterBreakingPotential: t.boolean('If true, an object that cannot be read from storage (corrupt) is removed anyway, ignoring finalizers and preconditions. May break the cluster.'),
  },
  'Options of a delete.',
);

export const watchEventSchema: Schema = t.object(
  {
    type: t.string('ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.'),
    object: t.any('The object as of the event (for BOOKMARK only its resource version counts), or a Status for ERROR.'),
  },
  'One notification of a watch stream.',
  ['type', 'object'],
);
