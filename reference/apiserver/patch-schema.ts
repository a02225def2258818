// The shape of a kind as strategic merge patch and server-side apply see it: its schema (schema.ts)
// with each field's patch strategy, merge key and list type (strategy.patchStrategies, plus
// ObjectMeta's upstream tags). Built once per strategy.
import { objectMetaSchema, type Properties, type Schema } from './schema.js';
import type { FieldPatchStrategy, PatchStrategies, ResourceStrategy } from './strategy.js';

export type ListType = 'atomic' | 'set' | 'map';

/** A field's type. `scalar` covers strings, numbers, booleans and free-form (`any`) values. */
export type FieldType =
  | { readonly kind: 'scalar' }
  | { readonly kind: 'struct'; readonly fields: Readonly<Record<string, FieldType>>; readonly strategy?: string }
  | { readonly kind: 'map'; readonly values: FieldType; readonly strategy?: string }
  | {
      readonly kind: 'list';
      readonly items: FieldType;
      readonly listType: ListType;
      /** Keys of a `map` list. */
      readonly keys: readonly string[];
      readonly strategy?: string;
      readonly mergeKey?: string;
    };

export type StructType = Extract<FieldType, { kind: 'struct' }>;
export type ListFieldType = Extract<FieldType, { kind: 'list' }>;

/** Upstream ObjectMeta tags: finalizers merge as a set, ownerReferences merge on uid. */
export const OBJECT_META_PATCH_STRATEGIES: PatchStrategies = {
  'metadata.finalizers': { strategy: 'merge', listType: 'set' },
  'metadata.ownerReferences': { strategy: 'merge', mergeKey: 'uid' },
};

const SCALAR: FieldType = { kind: 'scalar' };

/** The list type a strategy implies when it does not name one. */
export function listTypeOf(s: FieldPatchStrategy | undefined): { listType: ListType; keys: string[] } {
  const merges = s?.strategy?.split(',').includes('merge') ?? false;
  const listType = s?.listType ?? (merges ? (s?.mergeKey ? 'map' : 'set') : 'atomic');
  const keys = listType === 'map' ? [...(s?.listMapKeys ?? (s?.mergeKey ? [s.mergeKey] : []))] : [];
  return { listType, keys };
}

function build(schema: Schema, at: string, strategies: PatchStrategies): FieldType {
  const s = strategies[at];
  switch (schema.type) {
    case 'object': {
      const fields: Record<string, FieldType> = {};
      for (const [k, v] of Object.entries(schema.properties)) fields[k] = build(v, at ? `${at}.${k}` : k, strategies);
      return { kind: 'struct', fields, ...(s?.strategy ? { strategy: s.strategy } : {}) };
    }
    case 'map':
      return { kind: 'map', values: build(schema.values, `${at}{}`, strategies), ...(s?.strategy ? { strategy: s.strategy } : {}) };
    case 'array': {
      const { listType, keys } = listTypeOf(s);
      return {
        kind: 'list',
        items: build(schema.items, `${at}[]`, strategies),
        listType,
        keys,
        ...(s?.strategy ? { strategy: s.strategy } : {}),
        ...(s?.mergeKey ? { mergeKey: s.mergeKey } : {}),
      };
    }
    default:
      return SCALAR;
  }
}

/** The root type of a kind with these top-level properties (apiVersion, kind, metadata added). */
export function rootType(properties: Properties, strategies: PatchStrategies = {}): StructType {
  const all = { ...OBJECT_META_PATCH_STRATEGIES, ...strategies };
  const props: Properties = { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: objectMetaSchema, ...properties };
  return build({ type: 'object', properties: props }, '', all) as StructType;
}

const cache = new WeakMap<object, StructType>();

/** The root type of a strategy's kind (cached per strategy object). */
export function typeOf(strategy: Pick<ResourceStrategy, 'schema' | 'patchStrategies'>): StructType {
  let t = cache.get(strategy);
  if (!t) {
    t = rootType(strategy.schema, strategy.patchStrategies);
    cache.set(strategy, t);
  }
  return t;
}

/** The type of a child: a struct field (undefined when undeclared) or a map value. */
export function childType(t: FieldType | undefined, key: string): FieldType | undefined {
  if (!t) return undefined;
  if (t.kind === 'struct') return Object.prototype.hasOwnProperty.call(t.fields, key) ? t.fields[key] : undefined;
  if (t.kind === 'map') return t.values;
  return undefined;
}
