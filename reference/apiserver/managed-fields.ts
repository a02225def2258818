// metadata.managedFields: which manager owns which fields, as upstream's field manager
// (k8s.io/apimachinery/pkg/util/managedfields and sigs.k8s.io/structured-merge-diff) keeps it.
// Field sets are sets of paths; a path is a list of FieldsV1 elements: `f:<field>`, `k:<json key>`
// for an item of a keyed list, `v:<json>` for an item of a set, `i:<n>` for an index. Every write
// records an `Update` entry for its manager (create, replace, and JSON/merge/strategic patches);
// server-side apply (apply.ts) records `Apply` entries.
import { deepEqual } from './field-errors.js';
import { childType, typeOf, type FieldType, type ListFieldType, type StructType } from './patch-schema.js';
import { isPlainObject } from './schema.js';
import { nowRFC3339 } from './now.js';
import type { ApiObject } from './strategy.js';

export type PathElement = string;
export type Path = readonly PathElement[];

/**
 * A path's identity in a FieldSet: each element length-prefixed, so no element's content can make
 * two paths collide (cheaper than JSON.stringify on every lookup).
 */
function pathKey(p: Path): string {
  let k = '';
  for (const e of p) k += `${e.length}:${e}`;
  return k;
}

/** A set of field paths. */
export class FieldSet {
  private readonly paths = new Map<string, Path>();

  static of(paths: Iterable<Path>): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  insert(p: Path): void {
    if (p.length) this.paths.set(pathKey(p), p);
  }

  has(p: Path): boolean {
    return this.paths.has(pathKey(p));
  }

  delete(p: Path): void {
    this.paths.delete(pathKey(p));
  }

  get size(): number {
    return this.paths.size;
  }

  get empty(): boolean {
    return this.paths.size === 0;
  }

  *[Symbol.iterator](): IterableIterator<Path> {
    yield* this.paths.values();
  }

  union(o: FieldSet): FieldSet {
    const s = new FieldSet();
    for (const [k, p] of this.paths) s.paths.set(k, p);
    for (const [k, p] of o.paths) s.paths.set(k, p);
    return s;
  }

  difference(o: FieldSet): FieldSet {
    const s = new FieldSet();
    for (const [k, p] of this.paths) if (!o.paths.has(k)) s.paths.set(k, p);
    return s;
  }

  intersection(o: FieldSet): FieldSet {
    const s = new FieldSet();
    for (const [k, p] of this.paths) if (o.paths.has(k)) s.paths.set(k, p);
    return s;
  }

  filter(keep: (p: Path) => boolean): FieldSet {
    const s = new FieldSet();
    for (const [k, p] of this.paths) if (keep(p)) s.paths.set(k, p);
    return s;
  }

  /** Whether some path of the set starts with `prefix` and is longer. */
  hasDescendant(prefix: Path): boolean {
    for (const p of this) if (p.length > prefix.length && prefix.every((e, i) => p[i] === e)) return true;
    return false;
  }

  /** The FieldsV1 form: nested objects keyed by path element, `.` marking a member that has children. */
  toFieldsV1(): Record<string, unknown> {
    interface Node {
      member: boolean;
      children: Map<string, Node>;
    }
    const root: Node = { member: false, children: new Map() };
    for (const p of this) {
      let n = root;
      for (const e of p) {
        let c = n.children.get(e);
        if (!c) n.children.set(e, (c = { member: false, children: new Map() }));
        n = c;
      }
      n.member = true;
    }
    const emit = (n: Node): Record<string, unknown> => {
      const out: Record<string, unknown> = {};
      if (n.member && n.children.size) out['.'] = {};
      for (const k of [...n.children.keys()].sort(comparePathElements)) defineOwn(out, k, emit(n.children.get(k)!));
      return out;
    };
    return emit(root);
  }

  static fromFieldsV1(v: unknown): FieldSet {
    const s = new FieldSet();
    const walk = (node: unknown, at: PathElement[]): void => {
      if (!isPlainObject(node)) return;
      const keys = Object.keys(node).filter((k) => k !== '.');
      if (at.length && (keys.length === 0 || Object.prototype.hasOwnProperty.call(node, '.'))) s.insert(at);
      for (const k of keys) walk(node[k], [...at, k]);
    };
    walk(v, []);
    return s;
  }
}

/** Upstream PathElement order: fields, then keys, then values, then indexes. */
function elementRank(e: string): number {
  switch (e.charCodeAt(0)) {
    case 102: // f
      return 0;
    case 107: // k
      return 1;
    case 118: // v
      return 2;
    case 105: // i
      return 3;
    default:
      return 4;
  }
}

function comparePathElements(a: string, b: string): number {
  const d = elementRank(a) - elementRank(b);
  if (d) return d;
  if (a[0] === 'i') return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Path order (upstream Path.Compare): element by element, a prefix first. */
export function comparePaths(a: Path, b: Path): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const d = comparePathElements(a[i]!, b[i]!);
    if (d) return d;
  }
  return a.length - b.length;
}

/** Sets an own property even for `__proto__` (which plain assignment would turn into a prototype). */
function defineOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

export const fieldElement = (name: string): PathElement => `f:${name}`;

/** Go's %q of a JSON scalar, as structured-merge-diff prints values in paths. */
function valueString(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null) return 'null';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** A path as upstream prints it in conflicts: `.spec.x`, `.status.conditions[type="Ready"]`, `.metadata.finalizers[="a"]`. */
export function pathString(p: Path): string {
  return p
    .map((e) => {
      const body = e.slice(2);
      switch (e[0]) {
        case 'f':
          return `.${body}`;
        case 'k': {
          const key = JSON.parse(body) as Record<string, unknown>;
          return `[${Object.keys(key).map((k) => `${k}=${valueString(key[k])}`).join(',')}]`;
        }
        case 'v':
          return `[=${valueString(JSON.parse(body))}]`;
        default:
          return `[${body}]`;
      }
    })
    .join('');
}

export class FieldSetError extends Error {}

/** The path element of a list item: its key (map lists), its value (sets) or, failing that, its index. */
/** A keyed list's key fields in the order `k:` elements spell them, sorted once per type. */
const sortedKeyCache = new WeakMap<ListFieldType, readonly string[]>();
function sortedKeys(t: ListFieldType): readonly string[] {
  let keys = sortedKeyCache.get(t);
  if (!keys) sortedKeyCache.set(t, (keys = [...t.keys].sort()));
  return keys;
}

function itemElement(item: unknown, t: ListFieldType, i: number, strict: boolean, at: Path): PathElement {
  if (t.listType === 'set') return `v:${JSON.stringify(item)}`;
  if (t.listType === 'map' && t.keys.length) {
    const key: Record<string, unknown> = {};
    for (const k of sortedKeys(t)) {
      const v = isPlainObject(item) ? item[k] : undefined;
      if (v === undefined || v === null) {
        if (strict) throw new FieldSetError(`${pathString(at)}: associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`);
        return `i:${i}`;
      }
      key[k] = v;
    }
    return `k:${JSON.stringify(key)}`;
  }
  return `i:${i}`;
}

/** The items of a set or map list by path element, in order; duplicates are refused when `strict`. */
export function indexItems(list: unknown[], t: ListFieldType, at: Path, strict: boolean): Map<PathElement, unknown> {
  const out = new Map<PathElement, unknown>();
  list.forEach((item, i) => {
    const pe = itemElement(item, t, i, strict, at);
    if (out.has(pe)) {
      if (strict) throw new FieldSetError(`${pathString(at)}: duplicate entries for key ${pathString([pe])}`);
      return;
    }
    out.set(pe, item);
  });
  return out;
}

const isEmptyContainer = (v: unknown): boolean =>
  v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0);

/** Whether a value is walked into (false: it is a leaf of this type). */
function granular(t: FieldType, v: unknown): boolean {
  if (t.kind === 'list') return t.listType !== 'atomic' && Array.isArray(v);
  if (t.kind === 'struct' || t.kind === 'map') return isPlainObject(v);
  return false;
}

/**
 * The fields an applied configuration sets (upstream TypedValue.ToFieldSet): leaves, items of sets
 * and keyed lists, map entries, and empty or null objects. A field the type does not declare is
 * an error, as are keyed-list items without their key or twice the same key.
 */
export function toFieldSet(obj: Record<string, unknown>, type: StructType): FieldSet {
  const set = new FieldSet();
  const walk = (v: unknown, t: FieldType, at: Path): void => {
    if (!granular(t, v)) {
      set.insert(at);
      return;
    }
    if (t.kind === 'list') {
      for (const [pe, item] of indexItems(v as unknown[], t, at, true)) {
        const p = [...at, pe];
        walk(item, t.items, p);
        set.insert(p);
      }
      return;
    }
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const ct = childType(t, k);
      const p = [...at, fieldElement(k)];
      if (!ct) throw new FieldSetError(`${pathString(p)}: field not declared in schema`);
      const val = o[k];
      walk(val, ct, p);
      if (val === null || (isPlainObject(val) && Object.keys(val).length === 0) || t.kind === 'map') set.insert(p);
    }
  };
  walk(obj, type, []);
  return set;
}

/**
 * The FieldsV1 of every field `obj` has, as a create records them for its manager: what
 * `filterComparison(compare({}, obj, type), keep).added.toFieldsV1()` gives, built in one walk
 * without the path sets (a create is the commonest write). Undefined when no field is kept.
 */
export function addedFieldsV1(obj: Record<string, unknown>, type: StructType, keep: (p: Path) => boolean): Record<string, unknown> | undefined {
  const build = (v: unknown, t: FieldType, at: Path): Record<string, unknown> | undefined => {
    const children: Array<[PathElement, Record<string, unknown>]> = [];
    if (t.kind !== 'scalar' && granular(t, v) && !isEmptyContainer(v)) {
      if (t.kind === 'list') {
        for (const [pe, item] of indexItems(v as unknown[], t, at, false)) {
          const c = build(item, t.items, [...at, pe]);
          if (c) children.push([pe, c]);
        }
      } else {
        const o = v as Record<string, unknown>;
        for (const k of Object.keys(o)) {
          if (o[k] === undefined) continue;
          const pe = fieldElement(k);
          const c = build(o[k], childType(t, k) ?? { kind: 'scalar' }, [...at, pe]);
          if (c) children.push([pe, c]);
        }
      }
    }
    const member = at.length > 0 && keep(at);
    if (!member && children.length === 0) return undefined;
    const out: Record<string, unknown> = {};
    if (member && children.length) out['.'] = {};
    children.sort((a, b) => comparePathElements(a[0], b[0]));
    for (const [pe, c] of children) defineOwn(out, pe, c);
    return out;
  };
  const root = build(obj, type, []);
  return root && Object.keys(root).length ? root : undefined;
}

export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

/**
 * What changed from `lhs` to `rhs` (upstream TypedValue.Compare): leaves added, removed or
 * modified, and the objects, lists and items that appeared or went away as a whole.
 */
export function compare(lhs: unknown, rhs: unknown, type: StructType): Comparison {
  const added = new FieldSet();
  const modified = new FieldSet();
  const removed = new FieldSet();
  const leaf = (l: unknown, r: unknown, at: Path): void => {
    if (l === undefined) added.insert(at);
    else if (r === undefined) removed.insert(at);
    else if (!deepEqual(l, r)) modified.insert(at);
  };
  const walk = (l: unknown, r: unknown, t: FieldType, at: Path): void => {
    if (l === undefined && r === undefined) return;
    const bothEmpty = isEmptyContainer(l) && isEmptyContainer(r);
    const walkable = (l === undefined || granular(t, l)) && (r === undefined || granular(t, r));
    if (t.kind === 'scalar' || !walkable || bothEmpty) {
      leaf(l, r, at);
      return;
    }
    if (t.kind === 'list') {
      const li = indexItems((l ?? []) as unknown[], t, at, false);
      const ri = indexItems((r ?? []) as unknown[], t, at, false);
      for (const pe of new Set([...li.keys(), ...ri.keys()])) walk(li.get(pe), ri.get(pe), t.items, [...at, pe]);
    } else {
      const lo = (l ?? {}) as Record<string, unknown>;
      const ro = (r ?? {}) as Record<string, unknown>;
      for (const k of new Set([...Object.keys(lo), ...Object.keys(ro)])) {
        walk(lo[k], ro[k], childType(t, k) ?? { kind: 'scalar' }, [...at, fieldElement(k)]);
      }
    }
    if (l === undefined) added.insert(at);
    else if (r === undefined) removed.insert(at);
  };
  walk(lhs, rhs, type, []);
  return { added, modified, removed };
}

/**
 * Removes these paths from a copy of `obj` (fields, map entries, list items). A map or list left
 * empty by the removal goes too, as upstream's output omits it; an object stays, empty.
 */
export function removePaths(obj: Record<string, unknown>, paths: FieldSet, type: StructType): Record<string, unknown> {
  const walk = (v: unknown, t: FieldType, at: Path): unknown => {
    if (!granular(t, v)) return v;
    if (t.kind === 'list') {
      const list = v as unknown[];
      const out: unknown[] = [];
      list.forEach((item, i) => {
        const p = [...at, itemElement(item, t, i, false, at)];
        if (paths.has(p)) return;
        out.push(paths.hasDescendant(p) ? walk(item, t.items, p) : item);
      });
      return out;
    }
    const o = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(o)) {
      const p = [...at, fieldElement(k)];
      if (paths.has(p)) continue;
      const ct = childType(t, k);
      if (!ct || !paths.hasDescendant(p)) {
        defineOwn(out, k, o[k]);
        continue;
      }
      const v = walk(o[k], ct, p);
      // A map or list emptied by the removal goes (upstream's omitempty output); a struct stays.
      if (ct.kind !== 'struct' && isEmptyContainer(v) && !isEmptyContainer(o[k])) continue;
      defineOwn(out, k, v);
    }
    return out;
  };
  return walk(obj, type, []) as Record<string, unknown>;
}

// ------------------------------------------------------------------------------ managed entries

export type Operation = 'Apply' | 'Update';

export interface ManagedEntry {
  readonly manager: string;
  readonly operation: Operation;
  readonly apiVersion: string;
  readonly subresource?: string;
  time?: string;
  set: FieldSet;
}

/** Managers by identity: name, operation, subresource and, for Update, apiVersion (upstream BuildManagerIdentifier). */
export type Managers = Map<string, ManagedEntry>;

export function managerKey(e: { manager: string; operation: Operation; apiVersion: string; subresource?: string }): string {
  return JSON.stringify([e.manager, e.operation, e.operation === 'Apply' ? '' : e.apiVersion, e.subresource ?? '']);
}

/** Upstream's fields stripped from every set: type meta and server-set metadata. */
const STRIPPED: Path[] = [
  ['f:apiVersion'],
  ['f:kind'],
  ['f:metadata'],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((f) => ['f:metadata', `f:${f}`]),
];
const STRIPPED_SET = FieldSet.of(STRIPPED);

/**
 * The fields a write through this endpoint may own: never the stripped ones; on a kind with a
 * status subresource, the main resource never owns status and /status owns nothing else
 * (upstream's reset fields).
 */
export function ownableFilter(hasStatus: boolean, subresource: string | undefined): (p: Path) => boolean {
  return (p) => {
    if (STRIPPED_SET.has(p)) return false;
    if (subresource === 'status') return p[0] === 'f:status';
    if (hasStatus) return p[0] !== 'f:status';
    return true;
  };
}

export function filterComparison(c: Comparison, keep: (p: Path) => boolean): Comparison {
  return { added: c.added.filter(keep), modified: c.modified.filter(keep), removed: c.removed.filter(keep) };
}

/** Decodes metadata.managedFields; undefined when it is not a valid list of entries (upstream then ignores it). */
export function decodeManagedFields(entries: unknown): Managers | undefined {
  const out: Managers = new Map();
  if (entries === undefined || entries === null) return out;
  if (!Array.isArray(entries)) return undefined;
  for (const e of entries) {
    if (!isPlainObject(e)) return undefined;
    const operation = e['operation'];
    if (operation !== 'Apply' && operation !== 'Update') return undefined;
    if (typeof e['apiVersion'] !== 'string' || !e['apiVersion']) return undefined;
    if (e['fieldsType'] !== 'FieldsV1') return undefined;
    const entry: ManagedEntry = {
      manager: typeof e['manager'] === 'string' ? e['manager'] : '',
      operation,
      apiVersion: e['apiVersion'],
      ...(typeof e['subresource'] === 'string' && e['subresource'] ? { subresource: e['subresource'] } : {}),
      ...(typeof e['time'] === 'string' ? { time: e['time'] } : {}),
      set: FieldSet.fromFieldsV1(e['fieldsV1']),
    };
    const key = managerKey(entry);
    if (out.has(key)) return undefined;
    out.set(key, entry);
  }
  return out;
}

/** Upstream: a single empty entry `[{}]` resets managedFields. */
export function isResetManagedFields(entries: unknown): boolean {
  return Array.isArray(entries) && entries.length === 1 && isPlainObject(entries[0]) && Object.keys(entries[0]).length === 0;
}

const seconds = (t: string | undefined): number => (t ? Math.floor(Date.parse(t) / 1000) || 0 : 0);

/** Upstream caps Update entries at 10; older ones merge into `ancient-changes` (one per apiVersion). */
export const MAX_UPDATE_MANAGERS = 10;
export const ANCIENT_CHANGES = 'ancient-changes';

function capUpdateManagers(managers: Managers): void {
  const updaters = [...managers.entries()].filter(([, e]) => e.operation === 'Update');
  if (updaters.length <= MAX_UPDATE_MANAGERS) return;
  updaters.sort(([ka, a], [kb, b]) => seconds(a.time) - seconds(b.time) || (ka < kb ? -1 : ka > kb ? 1 : 0));
  const firstByVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > MAX_UPDATE_MANAGERS; i++) {
    const [key, e] = updaters[i]!;
    const bucketKey = managerKey({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: e.apiVersion });
    const first = firstByVersion.get(e.apiVersion);
    if (first === undefined) {
      firstByVersion.set(e.apiVersion, key);
      continue;
    }
    if (!managers.has(bucketKey)) {
      const firstEntry = managers.get(first)!;
      managers.delete(first);
      managers.set(bucketKey, { manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: e.apiVersion, time: firstEntry.time, set: firstEntry.set });
    }
    const bucket = managers.get(bucketKey)!;
    managers.set(bucketKey, { ...bucket, set: e.set.union(bucket.set), time: e.time });
    managers.delete(key);
    length--;
  }
}

/** metadata.managedFields in upstream's order: Apply entries first, then by time, manager, apiVersion, subresource. */
export function encodeManagedFields(managers: Managers): Array<Record<string, unknown>> {
  capUpdateManagers(managers);
  const entries = [...managers.values()].filter((e) => !e.set.empty);
  entries.sort(
    (p, q) =>
      (p.operation === q.operation ? 0 : p.operation < q.operation ? -1 : 1) ||
      seconds(p.time) - seconds(q.time) ||
      cmp(p.manager, q.manager) ||
      cmp(p.apiVersion, q.apiVersion) ||
      cmp(p.subresource ?? '', q.subresource ?? ''),
  );
  return entries.map((e) => ({
    manager: e.manager,
    operation: e.operation,
    apiVersion: e.apiVersion,
    ...(e.time ? { time: e.time } : {}),
    fieldsType: 'FieldsV1',
    fieldsV1: e.set.toFieldsV1(),
    ...(e.subresource ? { subresource: e.subresource } : {}),
  }));
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function setManagedFields(obj: ApiObject, entries: Array<Record<string, unknown>>): void {
  if (entries.length) obj.metadata.managedFields = entries;
  else delete obj.metadata.managedFields;
}

/** Who writes, for the managedFields of a write. */
export interface FieldOwner {
  /** The manager name: fieldManager, else the user agent's program name. */
  readonly manager: string;
  /**
   * Server-side apply computed the object's managedFields already (apply.ts): the store writes
   * these instead of recording an Update.
   */
  readonly applied?: ReadonlyArray<Record<string, unknown>>;
}

export interface RecordContext {
  readonly type: StructType;
  readonly apiVersion: string;
  readonly hasStatus: boolean;
  readonly subresource?: 'status' | 'finalize';
  /** RFC 3339, whole seconds. */
  readonly now: string;
}

/**
 * Sets `next.metadata.managedFields` for a create (old undefined) or an update by `owner`
 * (upstream FieldManager.Update): the fields this write added or changed become the manager's
 * Update entry (merged with its earlier one) and leave every other manager; removed fields leave
 * everyone. managedFields sent in the body replace the stored ones (`[{}]` clears them), except
 * through /status; an absent or invalid list keeps the stored ones. Without an owner (in-process
 * writers) the stored entries are kept as they are.
 */
export function recordUpdate(old: ApiObject | undefined, next: ApiObject, owner: FieldOwner | undefined, ctx: RecordContext): void {
  if (owner?.applied) {
    setManagedFields(next, [...owner.applied]);
    return;
  }
  const stored = decodeManagedFields(old?.metadata.managedFields) ?? new Map();
  const sent = next.metadata.managedFields;
  if (!owner) {
    if (old && (sent === undefined || (Array.isArray(sent) && sent.length === 0))) {
      if (old.metadata.managedFields) next.metadata.managedFields = old.metadata.managedFields;
      else delete next.metadata.managedFields;
    }
    return;
  }
  if (!old && sent === undefined && !ctx.subresource) {
    // A create: every field of the object is new and this manager's alone.
    const fieldsV1 = addedFieldsV1(withoutManagedFields(next), ctx.type, ownableFilter(ctx.hasStatus, undefined));
    setManagedFields(next, fieldsV1 ? [{ manager: owner.manager, operation: 'Update', apiVersion: ctx.apiVersion, time: ctx.now, fieldsType: 'FieldsV1', fieldsV1 }] : []);
    return;
  }
  let managers: Managers;
  if (ctx.subresource) managers = stored;
  else if (isResetManagedFields(sent)) managers = new Map();
  else {
    const decoded = decodeManagedFields(sent);
    managers = decoded && decoded.size > 0 ? decoded : stored;
  }
  const keep = ownableFilter(ctx.hasStatus, ctx.subresource);
  const c = filterComparison(compare(withoutManagedFields(old) ?? {}, withoutManagedFields(next), ctx.type), keep);
  const changed = c.modified.union(c.added);
  for (const [k, e] of managers) {
    const rest = e.set.difference(changed).difference(c.removed);
    if (rest.empty) managers.delete(k);
    else e.set = rest;
  }
  if (!changed.empty) {
    const entry = { manager: owner.manager, operation: 'Update' as const, apiVersion: ctx.apiVersion, ...(ctx.subresource ? { subresource: ctx.subresource } : {}) };
    const key = managerKey(entry);
    const before = managers.get(key);
    managers.set(key, { ...entry, time: ctx.now, set: before ? before.set.union(changed) : changed });
  }
  setManagedFields(next, encodeManagedFields(managers));
}

/** RFC 3339 in UTC with whole seconds, as metav1.Time serializes. */
export const nowSeconds = nowRFC3339;

/** What the store needs of its strategy to record a write. */
export interface RecordingStrategy {
  readonly schema: Parameters<typeof typeOf>[0]['schema'];
  readonly patchStrategies?: Parameters<typeof typeOf>[0]['patchStrategies'];
  readonly apiVersion: string;
  readonly hasStatus: boolean;
}

/** The store's hook: records a create (old undefined) or an update through `subresource`. */
export function recordWrite(s: RecordingStrategy, old: ApiObject | undefined, next: ApiObject, owner: FieldOwner | undefined, subresource?: 'status' | 'finalize'): void {
  recordUpdate(old, next, owner, { type: typeOf(s), apiVersion: s.apiVersion, hasStatus: s.hasStatus, subresource, now: nowSeconds() });
}

export function withoutManagedFields<T extends ApiObject | undefined>(o: T): T {
  if (!o) return o;
  const { managedFields: _drop, ...meta } = o.metadata;
  return { ...o, metadata: meta } as T;
}

/** Whether two objects differ outside metadata.managedFields (and resourceVersion). */
export function objectChanged(a: ApiObject, b: ApiObject): boolean {
  const strip = (o: ApiObject) => {
    const { managedFields: _m, resourceVersion: _r, ...meta } = o.metadata;
    return { ...o, metadata: meta };
  };
  return !deepEqual(strip(a), strip(b));
}

export { setManagedFields };
