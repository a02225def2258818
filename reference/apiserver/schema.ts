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

export const t = {
  string: (): Schema => STRING,
  boolean: (): Schema => BOOLEAN,
  integer: (): Schema => INTEGER,
  number: (): Schema => NUMBER,
  any: (): Schema => ANY,
  object: (properties: Properties): Schema => ({ type: 'object', properties }),
  map: (values: Schema): Schema => ({ type: 'map', values }),
  array: (items: Schema): Schema => ({ type: 'array', items }),
};
const STRING: Schema = { type: 'string' };
const BOOLEAN: Schema = { type: 'boolean' };
const INTEGER: Schema = { type: 'integer' };
const NUMBER: Schema = { type: 'number' };
const ANY: Schema = { type: 'any' };

/** ObjectMeta, in upstream's field order. */
export const objectMetaSchema = t.object({
  name: t.string(),
  generateName: t.string(),
  namespace: t.string(),
  selfLink: t.string(),
  uid: t.string(),
  resourceVersion: t.string(),
  generation: t.integer(),
  creationTimestamp: t.string(),
  deletionTimestamp: t.string(),
  deletionGracePeriodSeconds: t.integer(),
  labels: t.map(t.string()),
  annotations: t.map(t.string()),
  ownerReferences: t.array(
    t.object({
      apiVersion: t.string(),
      kind: t.string(),
      name: t.string(),
      uid: t.string(),
      controller: t.boolean(),
      blockOwnerDeletion: t.boolean(),
    }),
  ),
  finalizers: t.array(t.string()),
  managedFields: t.array(
    t.object({
      manager: t.string(),
      operation: t.string(),
      apiVersion: t.string(),
      time: t.string(),
      fieldsType: t.string(),
      fieldsV1: t.any(),
      subresource: t.string(),
    }),
  ),
});

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
export const conditionSchema = t.object({
  type: t.string(),
  status: t.string(),
  observedGeneration: t.integer(),
  lastTransitionTime: t.string(),
  reason: t.string(),
  message: t.string(),
});
