// The reference's per-kind field types (reference/apiserver/schema.ts `Schema`, the strategies'
// `schema` and `required`) as JSON Schema, so that a case can check what any target returns with ajv.
// The types are written once, in the reference, from the spec's tables; this module only translates.
//
// A kind's types come in two parts, each checked at its own level:
// - `spec`: what spec 000 §2 states (MUST). Where the spec names a type but does not show its fields
//   or JSON form (ObjectMeta, Condition, GroupResource, MicroTime, quantities, ...), only the outer
//   JSON type the spec gives is checked.
// - `upstream`: exactly those not-shown parts, with the types upstream serves (SHOULD, from the
//   ground-truth note). Everything else is left to the `spec` part, so a violation shows once.
//
// Freedoms a target keeps in both: extra fields anywhere (no additionalProperties: false), fields
// left out unless required, any key order, and JSON null for an optional field (Go encodes a nil
// pointer, slice or map without `omitempty`, and a zero time, as null: a ClusterRole's `rules`, an
// Event's `deprecatedFirstTimestamp`; a client decodes null as unset). A required field must be
// present and not null.
import { objectMetaSchema, t, type Properties, type Schema } from '../../reference/apiserver/schema.js';
import { listMetaSchema, typeMetaProperties } from '../../reference/apiserver/meta-schemas.js';

export type JsonSchema = Record<string, unknown>;

/** What the spec says of a type whose fields or JSON form it does not show: its outer JSON type. */
export type SpecOuterType = 'object' | 'array' | 'any';

export interface NotShown {
  /** The JSON type the spec gives the value (`object` for a named struct type, `any` for MicroTime). */
  readonly spec: SpecOuterType;
  /**
   * The type upstream serves there when it is narrower than what the reference accepts (its schema
   * is the decoder's): a quantity is read from a string or a number but always written as a string.
   */
  readonly served?: Schema;
  /**
   * The reference's `required` on this field is upstream's, not the spec's (the own fields of a kind
   * whose fields the spec does not show): the upstream part checks its presence, the spec part not.
   */
  readonly upstreamRequired?: boolean;
}

/**
 * The not-shown places of a kind, by path: dotted from the object root, `[]` steps into list items and
 * `{}` into map values (as in the strategies' patchStrategies): `status.conditions[]`, `spec.hard{}`.
 */
export type NotShownPaths = Readonly<Record<string, NotShown>>;

/** The fields of one kind as the reference declares them. */
export interface KindTypes {
  /** Top-level fields besides apiVersion, kind and metadata (a strategy's `schema`). */
  readonly properties: Properties;
  /** Top-level fields the spec marks required (a strategy's `required`). */
  readonly required?: readonly string[];
}

export type Part = 'spec' | 'upstream';

/** §2.1: every object has apiVersion and kind (strings) and metadata (ObjectMeta, fields not shown). */
const COMMON_NOT_SHOWN: NotShownPaths = { metadata: { spec: 'object' } };

/** The whole object of a kind: §2.1's common fields, then the kind's own. */
export function objectSchema(k: KindTypes): Schema {
  return {
    type: 'object',
    properties: { ...typeMetaProperties, metadata: objectMetaSchema, ...k.properties },
    ...(k.required?.length ? { required: k.required } : {}),
  };
}

/** §2.1: a `<Kind>List` has apiVersion, `items*` (array of the kind), kind and metadata (ListMeta). */
export function listSchema(k: KindTypes): Schema {
  return {
    type: 'object',
    properties: { ...typeMetaProperties, metadata: listMetaSchema, items: t.array(objectSchema(k)) },
    required: ['items'],
  };
}

/** The not-shown paths of a kind's objects: ObjectMeta and the kind's own. */
export function objectNotShown(own: NotShownPaths): NotShownPaths {
  return { ...COMMON_NOT_SHOWN, ...own };
}

/** The not-shown paths of a kind's list: its ListMeta, and each item's. */
export function listNotShown(own: NotShownPaths): NotShownPaths {
  const out: Record<string, NotShown> = { ...COMMON_NOT_SHOWN };
  for (const [p, n] of Object.entries(objectNotShown(own))) out[`items[].${p}`] = n;
  return out;
}

const child = (path: string, key: string) => (path ? `${path}.${key}` : key);

const OUTER: Record<SpecOuterType, JsonSchema> = { object: { type: 'object' }, array: { type: 'array' }, any: {} };

/**
 * `schema` as the JSON Schema of one part. `notShown` says where the spec stops showing types; below
 * such a place the `upstream` part checks everything and the `spec` part nothing.
 */
export function toJsonSchema(schema: Schema, notShown: NotShownPaths, part: Part): JsonSchema {
  /** Whether the reference's `required` on the field at `path` is upstream's rather than the spec's. */
  const upstreamRequires = (path: string) => notShown[path]?.upstreamRequired === true;

  const convert = (s: Schema, path: string, below: boolean): JsonSchema => {
    const here = notShown[path];
    if (part === 'spec') {
      if (here) return { ...OUTER[here.spec] };
      return typed(s, path, (k) => !upstreamRequires(k), (sub, p) => convert(sub, p, false));
    }
    if (here || below) return typed(here?.served ?? s, path, () => true, (sub, p) => convert(sub, p, true));
    return navigation(s, path, upstreamRequires, (sub, p) => convert(sub, p, false));
  };
  return convert(schema, '', false);
}

type Kid = (s: Schema, path: string) => JsonSchema;

/** An optional property's schema also takes null (see the head of this file). */
const optional = (p: JsonSchema, isOptional: boolean): JsonSchema => (isOptional && 'type' in p ? { ...p, nullable: true } : p);

/**
 * The full type of `s`. `kid` converts a child schema at its path; `requires` picks, by the child's
 * path, which of the object's required properties this part checks.
 */
function typed(s: Schema, path: string, requires: (childPath: string) => boolean, kid: Kid): JsonSchema {
  switch (s.type) {
    case 'string':
    case 'boolean':
    case 'integer':
    case 'number':
      return { type: s.type };
    case 'any':
      return {};
    case 'map':
      return { type: 'object', additionalProperties: kid(s.values, `${path}{}`) };
    case 'array':
      return { type: 'array', items: kid(s.items, `${path}[]`) };
    case 'object': {
      const required = (s.required ?? []).filter((k) => requires(child(path, k)));
      const properties: Record<string, JsonSchema> = {};
      for (const [k, v] of Object.entries(s.properties)) {
        properties[k] = optional(kid(v, child(path, k)), !required.includes(k));
      }
      return { type: 'object', properties, ...(required.length ? { required } : {}) };
    }
  }
}

/**
 * Only the way to the not-shown places below `s`: no type of its own (JSON Schema's `properties`,
 * `items` and `additionalProperties` apply only to values of their type, so a wrong type here is left
 * to the spec part), and only the required properties whose requiredness is upstream's. Returns {}
 * when nothing below is checked.
 */
function navigation(s: Schema, path: string, requires: (childPath: string) => boolean, kid: Kid): JsonSchema {
  const empty = (j: JsonSchema) => Object.keys(j).length === 0;
  switch (s.type) {
    case 'map': {
      const v = kid(s.values, `${path}{}`);
      return empty(v) ? {} : { additionalProperties: v };
    }
    case 'array': {
      const v = kid(s.items, `${path}[]`);
      return empty(v) ? {} : { items: v };
    }
    case 'object': {
      const required = (s.required ?? []).filter((k) => requires(child(path, k)));
      const properties: Record<string, JsonSchema> = {};
      for (const [k, v] of Object.entries(s.properties)) {
        const p = kid(v, child(path, k));
        if (!empty(p)) properties[k] = optional(p, !required.includes(k));
      }
      const out: JsonSchema = {};
      if (Object.keys(properties).length) out['properties'] = properties;
      if (required.length) out['required'] = required;
      return out;
    }
    default:
      return {};
  }
}
