// The JSON shape of a resource, standing in for the Go structs a real apiserver decodes into.
// Walking a body against it does what decoding does upstream — drops unknown fields, turns JSON
// null into "unset", rejects wrong types — but reports every wrong type as a field error (422) at
// its path instead of failing the whole decode, and rebuilds objects in declaration order so
// output is stable.
import { FieldPath, fieldErrors, type FieldError } from './field-errors.js';

/**
 * What a field means, for readers (OpenAPI `description`, `kubectl explain`) and for shape checks
 * (`required`: the spec's `*` fields). Validation here ignores both: required fields are checked by
 * each strategy's validate, with upstream's messages.
 */
interface FieldDoc {
  readonly description?: string;
}

export type Schema = FieldDoc &
  (
    | { readonly type: 'string' | 'boolean' | 'integer' | 'number' }
    | { readonly type: 'object'; readonly properties: Readonly<Record<string, Schema>>; readonly required?: readonly string[] }
    | { readonly type: 'map'; readonly values: Schema }
    | { readonly type: 'array'; readonly items: Schema }
    /** Kept as sent (free-form JSON such as managedFields.fieldsV1). */
    | { readonly type: 'any' }
  );

export type Properties = Readonly<Record<string, Schema>>;

/** A description when given (no key at all otherwise, so undocumented schemas stay as they were). */
const doc = (description: string | undefined): FieldDoc => (description ? { description } : {});

/**
 * Schema constructors. The last argument documents the field (its `description`); objects also
 * name their required properties. Shared sub-schemas are described where they are used, with
 * `t.describe`.
 */
export const t = {
  string: (description?: string): Schema => (description ? { type: 'string', description } : STRING),
  boolean: (description?: string): Schema => (description ? { type: 'boolean', description } : BOOLEAN),
  integer: (description?: string): Schema => (description ? { type: 'integer', description } : INTEGER),
  number: (description?: string): Schema => (description ? { type: 'number', description } : NUMBER),
  any: (description?: string): Schema => (description ? { type: 'any', description } : ANY),
  object: (properties: Properties, description?: string, required?: readonly string[]): Schema => ({
    type: 'object',
    properties,
    ...doc(description),
    ...(required?.length ? { required } : {}),
  }),
  map: (values: Schema, description?: string): Schema => ({ type: 'map', values, ...doc(description) }),
  array: (items: Schema, description?: string): Schema => ({ type: 'array', items, ...doc(description) }),
  /** The same shape with the description of the field it is used for. */
  describe: (s: Schema, description: string): Schema => ({ ...s, description }),
};
const STRING: Schema = { type: 'string' };
const BOOLEAN: Schema = { type: 'boolean' };
const INTEGER: Schema = { type: 'integer' };
const NUMBER: Schema = { type: 'number' };
const ANY: Schema = { type: 'any' };

/** ObjectMeta, in upstream's field order. */
export const objectMetaSchema = t.object(
  {
    name: t.string('Name of the object, unique per kind within its namespace (or the cluster, for cluster-scoped kinds). Required on create unless generateName is set. Cannot be updated.'),
    generateName: t.string('Prefix from which the server makes a unique name when name is not set on create.'),
    namespace: t.string('Namespace the object lives in; empty for cluster-scoped kinds. Cannot be updated.'),
    selfLink: t.string('Deprecated: never set by the server.'),
    uid: t.string('Identifier the server gives the object on create, unique in time and space. Read-only.'),
    resourceVersion: t.string('Opaque version of the object, changed by every write. Sent back on update as a precondition and used to start watches. Read-only.'),
    generation: t.integer('Version of the desired state, starting at 1 and incremented by the server when the spec changes. Read-only.'),
    creationTimestamp: t.string('When the server created the object (RFC 3339, UTC). Read-only.'),
    deletionTimestamp: t.string('When deletion was requested, set by the server while finalizers hold the object back. Read-only.'),
    deletionGracePeriodSeconds: t.integer('Seconds the object has left to terminate gracefully, set together with deletionTimestamp. Read-only.'),
    labels: t.map(t.string(), 'Key and value pairs that label selectors match on.'),
    annotations: t.map(t.string(), 'Free-form key and value pairs for tools and controllers; not used for selection.'),
    ownerReferences: t.array(
      t.object(
        {
          apiVersion: t.string('API version of the owner.'),
          kind: t.string('Kind of the owner.'),
          name: t.string('Name of the owner.'),
          uid: t.string('UID of the owner.'),
          controller: t.boolean('Whether this owner is the controller that manages the object; at most one owner may be.'),
          blockOwnerDeletion: t.boolean('Whether a foreground deletion of the owner waits for this object to be removed first.'),
        },
        'An object this one depends on, in the same namespace or cluster-scoped.',
        ['apiVersion', 'kind', 'name', 'uid'],
      ),
      'Objects this one depends on. Once every owner is gone the garbage collector deletes the object.',
    ),
    finalizers: t.array(t.string(), 'Names of pending cleanup steps. While any remain, a delete only sets deletionTimestamp; the object goes when the list is empty.'),
    managedFields: t.array(
      t.object(
        {
          manager: t.string('Name of the field manager.'),
          operation: t.string('The write that made the entry: Apply or Update.'),
          apiVersion: t.string('API version the owned field set is expressed in.'),
          time: t.string('When the manager last changed one of its fields (RFC 3339).'),
          fieldsType: t.string('Format of fieldsV1; always FieldsV1.'),
          fieldsV1: t.any('The fields the manager owns, as a FieldsV1 tree.'),
          subresource: t.string('Subresource the write went through (such as status); empty for the object itself.'),
        },
        'Fields one manager owns through one kind of write.',
      ),
      'Which manager owns which fields, kept by the server for server-side apply.',
    ),
  },
  'Metadata every stored object carries: identity, version, labels, ownership and deletion state.',
);

export interface NormalizeResult {
  readonly value: unknown;
  readonly errors: FieldError[];
  /** Paths of dropped unknown fields, as upstream prints them in warnings (`spec.foo`). */
  readonly unknown: string[];
}

const typeName = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v);

const zeroValue = (s: Schema): unknown => {
  switch (s.type) {
    case 'string':
      return '';
    case 'boolean':
      return false;
    case 'integer':
    case 'number':
      return 0;
    case 'object':
    case 'map':
      return {};
    case 'array':
      return [];
    default:
      return null;
  }
};

/**
 * Checks and rebuilds `value` against `schema`. Object properties that are null or unknown are
 * dropped (Go decodes null to the zero value and omits it); null list items and map values become
 * the zero value of their type, as Go would decode them.
 */
export function normalize(value: unknown, schema: Schema, at: FieldPath): NormalizeResult {
  const errors: FieldError[] = [];
  const unknown: string[] = [];
  const out = walk(value, schema, at, errors, unknown);
  return { value: out, errors, unknown };
}

function walk(v: unknown, s: Schema, at: FieldPath, errors: FieldError[], unknown: string[]): unknown {
  switch (s.type) {
    case 'any':
      if (tooDeep(v, MAX_FREE_FORM_DEPTH)) {
        errors.push(fieldErrors.invalid(at, typeName(v), `must not nest deeper than ${MAX_FREE_FORM_DEPTH} levels`));
        return undefined;
      }
      return v;
    case 'string':
      if (typeof v === 'string') return v;
      errors.push(fieldErrors.typeInvalid(at, typeName(v), 'must be of type string'));
      return undefined;
    case 'boolean':
      if (typeof v === 'boolean') return v;
      errors.push(fieldErrors.typeInvalid(at, typeName(v), 'must be of type boolean'));
      return undefined;
    case 'integer':
      if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
      errors.push(fieldErrors.typeInvalid(at, typeName(v), 'must be of type integer'));
      return undefined;
    case 'number':
      if (typeof v === 'number' && Number.isFinite(v)) return v;
      errors.push(fieldErrors.typeInvalid(at, typeName(v), 'must be of type number'));
      return undefined;
    case 'array': {
      if (!Array.isArray(v)) {
        errors.push(fieldErrors.typeInvalid(at, typeName(v), 'must be of type array'));
        return undefined;
      }
      const out = new Array<unknown>(v.length);
      for (let i = 0; i < v.length; i++) {
        const item = v[i];
        out[i] = item === null ? zeroValue(s.items) : walk(item, s.items, at.index(i), errors, unknown);
      }
      return out;
    }
    case 'map': {
      if (!isPlainObject(v)) {
        errors.push(fieldErrors.typeInvalid(at, typeName(v), 'must be of type object'));
        return undefined;
      }
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v)) {
        const item = v[k];
        const w = item === null ? zeroValue(s.values) : walk(item, s.values, at.key(k), errors, unknown);
        // A plain assignment to "__proto__" would set the prototype and lose the entry.
        if (k === '__proto__') Object.defineProperty(out, k, { value: w, enumerable: true, writable: true, configurable: true });
        else out[k] = w;
      }
      return out;
    }
    case 'object':
      if (!isPlainObject(v)) {
        errors.push(fieldErrors.typeInvalid(at, typeName(v), 'must be of type object'));
        return undefined;
      }
      return walkProperties(v, s.properties, (k) => at.child(k), errors, unknown);
  }
}

function walkProperties(
  v: Record<string, unknown>,
  properties: Properties,
  child: (k: string) => FieldPath,
  errors: FieldError[],
  unknown: string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(properties)) {
    const item = v[k];
    if (item === undefined || item === null) continue;
    const w = walk(item, properties[k]!, child(k), errors, unknown);
    if (w !== undefined) out[k] = w;
  }
  for (const k of Object.keys(v)) {
    if (!Object.prototype.hasOwnProperty.call(properties, k)) unknown.push(child(k).toString());
  }
  return out;
}

/** Like normalize for a whole object, whose fields are roots of their paths (`provisioner`, `metadata.name`). */
export function normalizeObject(value: Record<string, unknown>, properties: Properties): NormalizeResult {
  const errors: FieldError[] = [];
  const unknown: string[] = [];
  const out = walkProperties(value, properties, (k) => FieldPath.root(k), errors, unknown);
  return { value: out, errors, unknown };
}

/**
 * Free-form values are stored and serialized recursively; bounding their depth keeps a hostile
 * body from exhausting the stack (typed fields are bounded by the schema itself).
 */
const MAX_FREE_FORM_DEPTH = 500;

function tooDeep(root: unknown, max: number): boolean {
  if (typeof root !== 'object' || root === null) return false;
  const stack: Array<[unknown, number]> = [[root, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (depth > max) return true;
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const c of children) if (typeof c === 'object' && c !== null) stack.push([c, depth + 1]);
  }
  return false;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** metav1.Condition, the shape of `status.conditions` entries of most kinds. */
export const conditionSchema = t.object(
  {
    type: t.string('Type of the condition: a CamelCase name or a domain-prefixed key.'),
    status: t.string('One of True, False or Unknown.'),
    observedGeneration: t.integer('The metadata.generation the condition was computed from.'),
    lastTransitionTime: t.string('When the status last changed (RFC 3339).'),
    reason: t.string('Machine-readable CamelCase reason for the last transition.'),
    message: t.string('Human-readable details about the last transition.'),
  },
  'One aspect of the current state of an object.',
  ['type', 'status', 'lastTransitionTime', 'reason'],
);
