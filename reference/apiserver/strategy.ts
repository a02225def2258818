// What one resource contributes to the generic store and REST handler: identity, shape, defaults,
// validation, and the few behaviours that differ between kinds. Everything else — metadata rules,
// concurrency, finalizers, watch, HTTP — is generic, so a new resource is one short file.
import type { FieldError, NameValidator } from './field-errors.js';
import type { StatusError } from './errors.js';
import type { Properties } from './schema.js';
import type { FeatureGates } from '../features.js';
import type { FieldSelectorTable } from './selectors.js';
import type { Registry } from './registry.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ValueCodec } from '../storage/converted.js';

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: Array<Record<string, unknown>>;
  finalizers?: string[];
  managedFields?: Array<Record<string, unknown>>;
  [field: string]: unknown;
}

/** A resource object as the store handles it: JSON with typed metadata. */
export interface ApiObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/**
 * One field's patch behaviour. Paths are dotted from the object root (`status.conditions`); `[]`
 * steps into list items and `{}` into map values (`spec.scopeSelector.matchExpressions[].values`).
 */
export interface FieldPatchStrategy {
  /** Strategic merge (upstream patchStrategy): `merge` merges list items, by mergeKey for objects. Default for lists: replace. */
  readonly strategy?: 'merge' | 'replace' | 'retainKeys' | 'merge,retainKeys';
  /** Strategic merge key of a list of objects (upstream patchMergeKey). */
  readonly mergeKey?: string;
  /** Server-side apply list type (upstream +listType). Default: `map` on mergeKey when merged by key, `set` when merged without one, else `atomic`. */
  readonly listType?: 'atomic' | 'set' | 'map';
  /** Keys of a `map` list (upstream +listMapKey). Default: [mergeKey]. */
  readonly listMapKeys?: readonly string[];
}

export type PatchStrategies = Readonly<Record<string, FieldPatchStrategy>>;

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export const ALL_VERBS: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** A create that acts rather than stores (a create-only subresource, or a `notStored` kind's own answer). */
export interface ActionRequest {
  readonly registry: Registry;
  readonly namespace: string;
  /** The object's name from the URL; undefined for a collection create (the legacy `bindings`). */
  readonly name?: string;
  /** The decoded body: its apiVersion and kind already checked, nothing else. */
  readonly body: Record<string, unknown>;
  /** dryRun=All on the query. */
  readonly dryRun: boolean;
}

/**
 * A subresource answering POST only, with a body of its own kind (upstream's create-only subresource
 * storages: pods/binding, pods/eviction). The handler checks the body's apiVersion and kind against
 * `body`, applies fieldValidation with its schema, and answers 201 with what `create` returns.
 */
export interface CreateSubresource {
  /** The body's kind: identity and schema (discovery and OpenAPI name it). */
  readonly body: ResourceStrategy;
  /** apiVersions a body may name besides its kind's own (policy/v1beta1 for Evictions). */
  readonly otherVersions?: readonly string[];
  create(req: ActionRequest): Promise<unknown>;
}

/** A GET of a read subresource (pods/log): the handler routes it, the subresource answers it whole. */
export interface ReadRequest {
  readonly registry: Registry;
  readonly namespace: string;
  readonly name: string;
  readonly query: URLSearchParams;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Requests to a node's agent as this server (the node proxy's transport); absent: none configured. */
  readonly agents?: AgentRequester;
}

export interface AgentRequester {
  agentRequest(nodeName: string, method: string, path: string): Promise<{ response: IncomingMessage; abort(): void }>;
}

/**
 * A subresource answering GET only with what it streams (upstream's GetterWithOptions storages that
 * return a stream: pods/log). Authorization is the filter's (`get` on `<resource>/<name>`); the
 * subresource writes the answer itself, or throws a StatusError before writing anything.
 */
export interface ReadSubresource {
  /** The kind discovery names for it (upstream: the storage's New(), Pod for pods/log). */
  readonly kind: string;
  serve(req: ReadRequest): Promise<void>;
}

export interface ResourceStrategy {
  /** API group; '' for the core group served under /api/v1. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** Defaults to `${kind}List`. */
  readonly listKind?: string;
  /** Plural resource name used in URLs. */
  readonly resource: string;
  readonly singular: string;
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  readonly namespaced: boolean;
  /** Serves `<name>/status`; the main endpoint then ignores status and the status one ignores the rest. */
  readonly hasStatus: boolean;
  /** Verbs the resource allows (before intersecting with what the handler implements). Default: all. */
  readonly verbs?: readonly Verb[];
  /**
   * Never stored (upstream's review kinds, whose REST storage only implements Create): a POST is
   * validated here and answered by the handler's `reviews` with a computed object; nothing is
   * written. Such a kind should allow `create` only.
   */
  readonly notStored?: boolean;
  /**
   * A `notStored` kind that answers its creates itself (upstream's legacy `bindings`), rather than
   * through the handler's reviews. Gets the body as sent (type meta checked); the answer is sent 201.
   */
  readonly answerCreate?: (req: ActionRequest) => Promise<unknown>;
  /** Create-only subresources beside `status`, by name (`binding` serves `pods/{name}/binding`). */
  readonly subresources?: Readonly<Record<string, CreateSubresource>>;
  /** GET-only subresources that stream their answer, by name (`log` serves `pods/{name}/log`). */
  readonly readSubresources?: Readonly<Record<string, ReadSubresource>>;
  /**
   * Subresources served outside the REST handler (upstream's rest.Connecter: `nodes/proxy`, `pods/exec`,
   * `pods/attach`, `pods/portforward`), by name: listed in discovery only, with upstream's options kind
   * and the verbs their methods map to.
   */
  readonly connectSubresources?: Readonly<Record<string, { readonly kind: string; readonly verbs: readonly string[] }>>;
  /**
   * Serves `<name>/finalize`, PUT only (upstream's namespaces/finalize): an update of the object in
   * which `prepareForUpdate` is not applied (so spec.finalizers may change) and status stays.
   */
  readonly finalizeSubresource?: boolean;
  /**
   * Served from another resource's stored collection (upstream: one store, several versions): keys
   * live under that resource's prefix and values are converted both ways by `codec`. The view and
   * the stored resource share revisions, watches and history (storage/converted.ts).
   */
  readonly storedAs?: { readonly group: string; readonly resource: string; readonly codec: ValueCodec };
  /** Top-level fields besides apiVersion, kind and metadata. */
  readonly schema: Properties;
  /** Top-level fields the spec marks required (`spec*`): OpenAPI `required`, shape checks. */
  readonly required?: readonly string[];
  /** What the kind is, in the spec's words (OpenAPI description, `kubectl explain <kind>`). */
  readonly description?: string;
  /**
   * Top-level fields whose change bumps metadata.generation. Default: every schema field but
   * `status` (StorageClass-like kinds have no spec, so all their fields count).
   */
  readonly specFields?: readonly string[];
  /** What a single DELETE answers with (spec §4.2): the object, or a Success Status. */
  readonly deleteResponse: 'object' | 'status';
  /** What DELETE on the collection answers with. Default: the list of deleted objects. */
  readonly deleteCollectionResponse?: 'list' | 'status';
  /** PUT to a missing name creates it. Default false. */
  readonly allowCreateOnUpdate?: boolean;
  /** PUT without metadata.resourceVersion overwrites whatever is stored. Default true. */
  readonly allowUnconditionalUpdate?: boolean;
  /** Validates metadata.name (and generateName with prefix=true). Default: DNS-1123 subdomain. */
  readonly validateName?: NameValidator;
  /**
   * Feature gate that enables the whole API. While it is off the resource is not served: 404 on
   * its paths and absent from discovery (upstream: the API group version is not installed).
   */
  readonly gate?: string;
  /**
   * Field selectors the kind supports beyond metadata.name and metadata.namespace (upstream: its
   * field label conversion and ToSelectableFields). Absent: exactly those two. See selectors.ts.
   */
  readonly fieldSelectors?: FieldSelectorTable;
  /**
   * How strategic merge patch and server-side apply treat the kind's fields, by path (upstream
   * patchStrategy/patchMergeKey and listType tags). Fields not listed: objects merge, lists are
   * replaced (apply: atomic). metadata's strategies are built in. See patch-schema.ts.
   */
  readonly patchStrategies?: PatchStrategies;

  /**
   * Drops fields whose feature gate is off, as upstream's dropDisabledFields does: on create always,
   * on update only when the stored object (`old`) does not use the field already. Runs before
   * defaults and validation.
   */
  dropDisabledFields?(obj: ApiObject, old: ApiObject | undefined, gates: FeatureGates): void;
  /** Fills defaults, as upstream does on decode (so before create and update validation). */
  defaults?(obj: ApiObject, gates: FeatureGates): void;
  /** Server-owned changes on create, e.g. initial status. Default with status: status dropped. */
  prepareForCreate?(obj: ApiObject): void;
  /** Server-owned changes on update, after the generic ones. */
  prepareForUpdate?(obj: ApiObject, old: ApiObject): void;
  /** Changes when a delete only marks the object (finalizers pending), e.g. a Terminating phase. */
  prepareForDeletion?(obj: ApiObject): void;
  /**
   * Server-owned fields that follow from the final object, its name included (upstream Canonicalize):
   * run on create once the name is generated, and on every update of the object itself.
   */
  canonicalize?(obj: ApiObject): void;
  /** Field errors of the kind's own fields (metadata is validated generically). */
  validate(obj: ApiObject): FieldError[];
  /** Extra rules for updates, e.g. immutable fields. */
  validateUpdate?(obj: ApiObject, old: ApiObject): FieldError[];
  /** Besides metadata.finalizers, something else that holds deletion back (Namespace spec.finalizers). */
  deletionBlocked?(obj: ApiObject): boolean;
  /** Refuses a delete outright, e.g. of a built-in namespace. */
  checkDelete?(obj: ApiObject): StatusError | undefined;
  /**
   * Kinds deleted gracefully (upstream RESTGracefulDeleteStrategy.CheckGracefulDelete): the grace
   * period, in seconds, of a first delete of `obj` that asked for `requested` (undefined: none asked).
   * Above 0 the object is only marked (deletionTimestamp now + grace, deletionGracePeriodSeconds)
   * and someone else (the node agent) finishes the deletion; 0 deletes at once.
   */
  gracefulDeletePeriod?(obj: ApiObject, requested: number | undefined): number;
}

/** A strategy with every default resolved, plus the names errors and URLs need. */
export interface ResolvedStrategy extends ResourceStrategy {
  readonly listKind: string;
  readonly apiVersion: string;
  readonly verbs: readonly Verb[];
  readonly specFields: readonly string[];
  readonly allowUnconditionalUpdate: boolean;
  readonly allowCreateOnUpdate: boolean;
  readonly deleteCollectionResponse: 'list' | 'status';
  /** For NotFound, AlreadyExists, Conflict. */
  readonly groupResource: { readonly group: string; readonly resource: string };
  /** For Invalid. */
  readonly groupKind: { readonly group: string; readonly kind: string };
}

export function resolveStrategy(s: ResourceStrategy): ResolvedStrategy {
  return {
    ...s,
    // Keep the methods bound to the original (a spread copies own properties only).
    dropDisabledFields: s.dropDisabledFields?.bind(s),
    defaults: s.defaults?.bind(s),
    prepareForCreate: s.prepareForCreate?.bind(s),
    prepareForUpdate: s.prepareForUpdate?.bind(s),
    prepareForDeletion: s.prepareForDeletion?.bind(s),
    canonicalize: s.canonicalize?.bind(s),
    validate: s.validate.bind(s),
    validateUpdate: s.validateUpdate?.bind(s),
    deletionBlocked: s.deletionBlocked?.bind(s),
    checkDelete: s.checkDelete?.bind(s),
    gracefulDeletePeriod: s.gracefulDeletePeriod?.bind(s),
    listKind: s.listKind ?? `${s.kind}List`,
    apiVersion: s.group ? `${s.group}/${s.version}` : s.version,
    verbs: s.verbs ?? ALL_VERBS,
    specFields: s.specFields ?? Object.keys(s.schema).filter((k) => k !== 'status'),
    allowUnconditionalUpdate: s.allowUnconditionalUpdate ?? true,
    allowCreateOnUpdate: s.allowCreateOnUpdate ?? false,
    deleteCollectionResponse: s.deleteCollectionResponse ?? 'list',
    groupResource: { group: s.group, resource: s.resource },
    groupKind: { group: s.group, kind: s.kind },
  };
}

/** Identity helper so a resource file gets its object literal type-checked as a strategy. */
export function defineStrategy<S extends ResourceStrategy>(s: S): S {
  return s;
}
