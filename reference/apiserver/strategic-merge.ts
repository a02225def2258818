// Strategic merge patch (`application/strategic-merge-patch+json`), ported from upstream
// k8s.io/apimachinery/pkg/util/strategicpatch as the apiserver runs it (MergeParallelList and
// IgnoreUnmatchedNulls on): objects merge key by key and null deletes; a list merges only when its
// field has patch strategy `merge` (objects by their merge key, scalars as a set), otherwise it is
// replaced. Directives: `$patch: replace|delete|merge`, `$retainKeys`, `$deleteFromPrimitiveList/<f>`,
// `$setElementOrder/<f>`. Field strategies come from the kind's type (patch-schema.ts).
//
// Unlike upstream, which answers 500 for the errors it does not classify (an unknown `$patch`, a
// list item without its merge key), every malformed patch here is a 400: it is the client's fault.
import { childType, type FieldType } from './patch-schema.js';
import { isPlainObject } from './schema.js';

type Obj = Record<string, unknown>;

export class StrategicMergeError extends Error {
  constructor(
    message: string,
    /** 400 BadRequest, or 422 for the errors upstream reports as unprocessable. */
    readonly code: 400 | 422 = 400,
  ) {
    super(message);
    this.name = 'StrategicMergeError';
  }
}

const DIRECTIVE = '$patch';
const REPLACE = 'replace';
const DELETE = 'delete';
const MERGE = 'merge';
const RETAIN_KEYS = '$retainKeys';
const RETAIN_KEYS_STRATEGY = 'retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

/** Upstream mergepatch errors, worded as upstream. */
export const SMP_ERRORS = {
  badJSONDoc: 'invalid JSON document',
  noListOfLists: 'lists of lists are not supported',
  badPrimitiveList: 'invalid patch format of primitive list',
  badRetainKeys: 'invalid patch format of retainKeys',
  badSetElementOrder: 'invalid patch format of setElementOrder list',
} as const;

/**
 * Applies a strategic merge patch to a copy of `original`. `type` is the kind's root type; fields it
 * does not declare merge as objects and replace as lists.
 */
export function strategicMergePatch(original: Obj, patch: unknown, type: FieldType | undefined): Obj {
  if (!isPlainObject(patch)) throw new StrategicMergeError(SMP_ERRORS.badJSONDoc);
  return mergeMap(structuredClone(original), structuredClone(patch), type, '');
}

// ---------------------------------------------------------------------------------------- maps

function mergeMap(original: Obj | undefined, patch: Obj, type: FieldType | undefined, at: string): Obj {
  if (has(patch, DIRECTIVE)) return handleDirectiveInMergeMap(patch[DIRECTIVE], patch);
  const out = original ?? {};
  applyRetainKeysDirective(out, patch);
  mergePatchIntoOriginal(out, patch, type, at);

  for (const key of Object.keys(patch)) {
    const patchV = patch[key];
    let k = key;
    let isDeleteList = false;
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      k = extractKey(key, DELETE_FROM_PRIMITIVE_LIST);
      isDeleteList = true;
    }
    // null deletes; a null for a field the original lacks is dropped (IgnoreUnmatchedNulls).
    if (patchV === null) {
      delete out[k];
      continue;
    }
    if (!has(out, k) || goKind(out[k]) !== goKind(patchV)) {
      if (!isDeleteList) setCleaned(out, k, patchV);
      continue;
    }
    const sub = childType(type, k);
    const path = at ? `${at}.${k}` : k;
    const originalV = out[k];
    if (isPlainObject(originalV)) {
      const strategy = patchStrategy(sub, path);
      setOwn(out, k, strategy !== REPLACE ? mergeMap(originalV, patchV as Obj, sub, path) : cleaned(patchV));
    } else if (Array.isArray(originalV)) {
      const strategy = patchStrategy(sub, path);
      const list = sub?.kind === 'list' ? sub : undefined;
      setOwn(out, k, mergeSliceHandler(originalV, patchV as unknown[], list?.items, strategy, list?.mergeKey ?? '', isDeleteList, path));
    } else {
      setCleaned(out, k, patchV);
    }
  }
  return out;
}

function handleDirectiveInMergeMap(directive: unknown, patch: Obj): Obj {
  if (directive === REPLACE) {
    // The map in the patch replaces the original as it is.
    delete patch[DIRECTIVE];
    return cleaned(patch) as Obj;
  }
  if (directive === DELETE) return {};
  throw badPatchType(directive, patch);
}

/** `$retainKeys`: keys of the original not listed are cleared; the patch may only set listed keys. */
function applyRetainKeysDirective(original: Obj, patch: Obj): void {
  if (!has(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw new StrategicMergeError(SMP_ERRORS.badRetainKeys);
  const keep = new Set<unknown>(list);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!keep.has(k)) throw new StrategicMergeError(SMP_ERRORS.badRetainKeys);
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

/**
 * `$setElementOrder/<f>`: merges the list <f> of the patch (if any) into the original and orders
 * the result: the directive's order first, then the live order for items only the server has.
 */
function mergePatchIntoOriginal(original: Obj, patch: Obj, type: FieldType | undefined, at: string): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw new StrategicMergeError(`expected a []interface {}, but received a ${goTypeName(order)}`);
    const originalKey = extractKey(key, SET_ELEMENT_ORDER);
    const path = at ? `${at}.${originalKey}` : originalKey;
    const foundOriginal = has(original, originalKey);
    const foundPatch = has(patch, originalKey);
    let originalList: unknown[] = [];
    let patchList: unknown[] = [];
    if (foundOriginal) {
      if (!Array.isArray(original[originalKey])) throw new StrategicMergeError(`expected a []interface {}, but received a ${goTypeName(original[originalKey])}`);
      originalList = original[originalKey] as unknown[];
    }
    if (foundPatch) {
      if (!Array.isArray(patch[originalKey])) throw new StrategicMergeError(`expected a []interface {}, but received a ${goTypeName(patch[originalKey])}`);
      patchList = patch[originalKey] as unknown[];
    }
    const sub = childType(type, originalKey);
    const list = sub?.kind === 'list' ? sub : undefined;
    const strategy = patchStrategy(sub, path);
    const mergeKey = list?.mergeKey ?? '';
    validatePatchWithSetOrderList(patchList, order, mergeKey);

    let merged: unknown[];
    if (foundOriginal && !foundPatch) merged = originalList;
    else if (!foundOriginal && foundPatch) merged = cleaned(patchList) as unknown[];
    else if (foundOriginal && foundPatch) merged = mergeSliceHandler(originalList, patchList, list?.items, strategy, mergeKey, false, path);
    else continue;

    const [patchItems, serverOnly] = mergeKey ? partitionMapsByPresentInList(merged, order, mergeKey) : partitionPrimitivesByPresentInList(merged, order);
    const kind = sliceElementType(originalList, patchList);
    setOwn(original, originalKey, normalizeElementOrder(patchItems, serverOnly, order, originalList, mergeKey, kind));
    delete patch[originalKey];
  }
}

function validatePatchWithSetOrderList(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const nonDelete = mergeKey ? extractToDeleteItems(patchList)[0] : patchList;
  let p = 0;
  let s = 0;
  while (p < nonDelete.length && s < order.length) {
    if (containsDirectiveMarker(nonDelete[p])) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(nonDelete[p], order[s], mergeKey)) p++;
    s++;
  }
  if (p < nonDelete.length && s >= order.length) {
    throw new StrategicMergeError(`the order in patch list:\n${goFmt(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goFmt(order)}`);
  }
}

// --------------------------------------------------------------------------------------- lists

function mergeSliceHandler(
  original: unknown[],
  patch: unknown[],
  itemType: FieldType | undefined,
  strategy: string,
  mergeKey: string,
  isDeleteList: boolean,
  at: string,
): unknown[] {
  // Delete lists are handled the same way whatever the field's strategy.
  if (strategy === MERGE || isDeleteList) return mergeSlice(original, patch, itemType, mergeKey, isDeleteList, at);
  return cleaned(patch) as unknown[];
}

function mergeSlice(original: unknown[], patch: unknown[], itemType: FieldType | undefined, mergeKey: string, isDeleteList: boolean, at: string): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementType(original, patch);
  let merged: unknown[];
  let serverOrder = original;
  let patchOrder = patch;
  if (kind !== 'map') {
    if (isDeleteList) return deleteFromSlice(original, patch);
    merged = deduplicateScalars([...original, ...patch]);
  } else {
    if (!mergeKey) throw new StrategicMergeError(`cannot merge lists without merge key for ${at}`);
    [serverOrder, patchOrder] = mergeSliceWithSpecialElements(original, patch, mergeKey);
    merged = mergeSliceWithoutSpecialElements([...serverOrder], patchOrder, mergeKey, itemType, at);
  }
  const [patchItems, serverOnly] = mergeKey ? partitionMapsByPresentInList(merged, patchOrder, mergeKey) : partitionPrimitivesByPresentInList(merged, patchOrder);
  return normalizeElementOrder(patchItems, serverOnly, patchOrder, serverOrder, mergeKey, kind);
}

/** `{$patch: replace}` makes the list the patch's; `{$patch: delete, <key>: v}` removes an item. */
function mergeSliceWithSpecialElements(original: unknown[], patch: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const plain: unknown[] = [];
  let replace = false;
  for (const v of patch) {
    const m = v as Obj;
    if (!has(m, DIRECTIVE)) {
      plain.push(v);
      continue;
    }
    const directive = m[DIRECTIVE];
    if (directive === DELETE) {
      if (!has(m, mergeKey)) throw noMergeKey(m, mergeKey);
      original = deleteMatchingEntries(original, mergeKey, m[mergeKey]);
    } else if (directive === REPLACE) {
      // Keep going: the other directive items are dropped either way.
      replace = true;
    } else if (directive === MERGE) {
      throw new StrategicMergeError('merging lists cannot yet be specified in the patch');
    } else {
      throw badPatchType(directive, m);
    }
  }
  return replace ? [plain, []] : [original, plain];
}

function mergeSliceWithoutSpecialElements(original: unknown[], patch: unknown[], mergeKey: string, itemType: FieldType | undefined, at: string): unknown[] {
  for (const v of patch) {
    const m = v as Obj;
    if (!has(m, mergeKey)) throw noMergeKey(m, mergeKey);
    const i = findMapInSlice(original, mergeKey, m[mergeKey]);
    if (i >= 0) original[i] = mergeMap(original[i] as Obj, m, itemType, `${at}[]`);
    else original.push(mergeMap({}, m, itemType, `${at}[]`));
  }
  return original;
}

function deleteMatchingEntries(original: unknown[], mergeKey: string, value: unknown): unknown[] {
  const out = [...original];
  for (let i = findMapInSlice(out, mergeKey, value); i >= 0; i = findMapInSlice(out, mergeKey, value)) out.splice(i, 1);
  return out;
}

function deleteFromSlice(current: unknown[], toDelete: unknown[]): unknown[] {
  return current.filter((v) => !toDelete.some((d) => d === v));
}

function findMapInSlice(list: unknown[], key: string, value: unknown): number {
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (!isPlainObject(v)) throw new StrategicMergeError(`value for key ${i} is not a map`);
    if (has(v, key) && v[key] === value) return i;
  }
  return -1;
}

/** Upstream's in-place deduplication (it reorders; the order is normalized afterwards). */
function deduplicateScalars(s: unknown[]): unknown[] {
  let length = s.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (s[i] === s[j]) {
        s[j] = s[length];
        s.length = length;
        length--;
        j--;
      }
    }
  }
  return s;
}

type GoKind = 'map' | 'slice' | 'string' | 'number' | 'bool' | 'nil';

function goKind(v: unknown): GoKind {
  if (v === null || v === undefined) return 'nil';
  if (Array.isArray(v)) return 'slice';
  if (typeof v === 'object') return 'map';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  return 'number';
}

function goTypeName(v: unknown): string {
  switch (goKind(v)) {
    case 'map':
      return 'map[string]interface {}';
    case 'slice':
      return '[]interface {}';
    case 'number':
      return 'float64';
    case 'nil':
      return '%!s(<nil>)';
    default:
      return goKind(v);
  }
}

/** The one element kind of the lists; lists of lists and mixed lists are refused. */
function sliceElementType(...lists: unknown[][]): GoKind {
  let prev: GoKind | undefined;
  for (const l of lists) {
    for (const v of l) {
      const k = goKind(v);
      if (prev === undefined) {
        prev = k;
        if (k === 'slice') throw new StrategicMergeError(SMP_ERRORS.noListOfLists, 422);
      } else if (prev !== k) {
        throw new StrategicMergeError(`list element types are not identical: ${goFmt(lists)}`);
      }
    }
  }
  if (prev === undefined) throw new StrategicMergeError('no elements in any of the given slices');
  return prev;
}

// --------------------------------------------------------------------------------------- order

function partitionPrimitivesByPresentInList(list: unknown[], by: unknown[]): [unknown[], unknown[]] {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of list) (by.some((b) => b === v) ? inPatch : serverOnly).push(v);
  return [inPatch, serverOnly];
}

function partitionMapsByPresentInList(list: unknown[], by: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of list) {
    if (!isPlainObject(v)) throw new StrategicMergeError(`expected a map[string]interface {}, but received a ${goTypeName(v)}`);
    if (!has(v, mergeKey)) throw noMergeKey(v, mergeKey);
    (findMapInSlice(by, mergeKey, v[mergeKey]) >= 0 ? inPatch : serverOnly).push(v);
  }
  return [inPatch, serverOnly];
}

/**
 * Sorts the patch items by `patchOrder` and the server-only items by `serverOrder`, then
 * interleaves them keeping both relative orders (upstream normalizeElementOrder).
 */
function normalizeElementOrder(patch: unknown[], serverOnly: unknown[], patchOrder: unknown[], serverOrder: unknown[], mergeKey: string, kind: GoKind): unknown[] {
  const p = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(s, p, serverOrder, mergeKey, kind);
}

function normalizeSliceOrder(toSort: unknown[], order: unknown[], mergeKey: string, kind: GoKind): unknown[] {
  let toDelete: unknown[] = [];
  if (kind === 'map') {
    validateMergeKeyInLists(mergeKey, toSort, order);
    [toSort, toDelete] = extractToDeleteItems(toSort);
  }
  const indexed = toSort.map((v, i) => ({ v, i, at: index(order, v, mergeKey, kind) }));
  indexed.sort((a, b) => (a.at >= 0 && b.at >= 0 ? a.at - b.at : 0) || a.i - b.i);
  return [...indexed.map((x) => x.v), ...toDelete];
}

function mergeSortedSlice(left: unknown[], right: unknown[], serverOrder: unknown[], mergeKey: string, kind: GoKind): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    const li = index(serverOrder, left[i], mergeKey, kind);
    const ri = index(serverOrder, right[j], mergeKey, kind);
    if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
    else out.push(right[j++]);
  }
  return [...out, ...left.slice(i), ...right.slice(j)];
}

function index(list: unknown[], v: unknown, mergeKey: string, kind: GoKind): number {
  const val = (x: unknown): unknown => (kind === 'map' ? (isPlainObject(x) ? x[mergeKey] : undefined) : x);
  const want = val(v);
  return list.findIndex((x) => val(x) === want);
}

function validateMergeKeyInLists(mergeKey: string, ...lists: unknown[][]): void {
  for (const l of lists) {
    for (const item of l) {
      if (!isPlainObject(item)) throw new StrategicMergeError(`expected a map[string]interface {}, but received a ${goTypeName(item)}`);
      if (!has(item, mergeKey)) throw noMergeKey(item, mergeKey);
    }
  }
}

function extractToDeleteItems(l: unknown[]): [unknown[], unknown[]] {
  const keep: unknown[] = [];
  const del: unknown[] = [];
  for (const v of l) {
    if (!isPlainObject(v)) throw new StrategicMergeError(`expected a map[string]interface {}, but received a ${goTypeName(v)}`);
    (v[DIRECTIVE] === DELETE ? del : keep).push(v);
  }
  return [keep, del];
}

function containsDirectiveMarker(item: unknown): boolean {
  return isPlainObject(item) && has(item, DIRECTIVE);
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (!mergeKey) return left === right;
  if (!isPlainObject(left)) throw new StrategicMergeError(`expected a map[string]interface {}, but received a ${goTypeName(left)}`);
  if (!isPlainObject(right)) throw new StrategicMergeError(`expected a map[string]interface {}, but received a ${goTypeName(right)}`);
  if (!has(left, mergeKey)) throw noMergeKey(left, mergeKey);
  if (!has(right, mergeKey)) throw noMergeKey(right, mergeKey);
  return left[mergeKey] === right[mergeKey];
}

// ------------------------------------------------------------------------------------- helpers

/** The field's strategy without `retainKeys` (which only says `$retainKeys` may appear). */
function patchStrategy(t: FieldType | undefined, at: string): string {
  const all = (t && t.kind !== 'scalar' ? t.strategy : undefined)?.split(',').filter((s) => s) ?? [];
  const rest = all.filter((s) => s !== RETAIN_KEYS_STRATEGY);
  if (all.length > 2 || rest.length > 1) throw new StrategicMergeError(`unexpected patch strategy for ${at}: ${goFmt(all)}`);
  return rest[0] ?? '';
}

function extractKey(s: string, prefix: string): string {
  const slash = s.indexOf('/');
  if (slash < 0 || s.slice(0, slash) !== prefix) {
    throw new StrategicMergeError(prefix === DELETE_FROM_PRIMITIVE_LIST ? SMP_ERRORS.badPrimitiveList : SMP_ERRORS.badSetElementOrder);
  }
  return s.slice(slash + 1);
}

/** A value taken from the patch as it is: nulls of absent fields and directives dropped. */
function cleaned(v: unknown): unknown {
  discardNullValues(v);
  const [out, keep] = removeDirectives(v);
  return keep ? out : undefined;
}

function setCleaned(o: Obj, k: string, v: unknown): void {
  const c = cleaned(v);
  if (c === undefined) delete o[k];
  else setOwn(o, k, c);
}

function discardNullValues(v: unknown): void {
  if (Array.isArray(v)) v.forEach(discardNullValues);
  else if (isPlainObject(v)) {
    for (const k of Object.keys(v)) {
      if (v[k] === null) delete v[k];
      else discardNullValues(v[k]);
    }
  }
}

/** Removes directives; a map that is itself a directive is not kept. */
function removeDirectives(v: unknown): [unknown, boolean] {
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const x of v) {
      const [y, keep] = removeDirectives(x);
      if (keep) out.push(y);
    }
    return [out, true];
  }
  if (isPlainObject(v)) {
    if (has(v, DIRECTIVE)) return [undefined, false];
    for (const k of Object.keys(v)) {
      const [y, keep] = removeDirectives(v[k]);
      if (keep) setOwn(v, k, y);
      else delete v[k];
    }
    return [v, true];
  }
  return [v, true];
}

function has(o: Obj, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/** Assignment that also works for a key named `__proto__`. */
function setOwn(o: Obj, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

function noMergeKey(m: Obj, key: string): StrategicMergeError {
  return new StrategicMergeError(`map: ${goFmt(m)} does not contain declared merge key: ${key}`);
}

function badPatchType(t: unknown, m: Obj): StrategicMergeError {
  return new StrategicMergeError(`unknown patch type: ${goFmt(t)} in map: ${goFmt(m)}`);
}

/** Go's `%v` of a decoded JSON value, for messages worded as upstream's. */
export function goFmt(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goFmt).join(' ')}]`;
  if (typeof v === 'object') {
    const o = v as Obj;
    return `map[${Object.keys(o).sort().map((k) => `${k}:${goFmt(o[k])}`).join(' ')}]`;
  }
  if (typeof v === 'number') return goFloat(v);
  return String(v);
}

/** strconv.FormatFloat(f, 'g', -1, 64), as `%v` prints a float64. */
function goFloat(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN';
  if (n === 0) return '0';
  const [mantissa, e] = n.toExponential().split('e') as [string, string];
  const exp = Number(e);
  const digits = mantissa.replace('-', '').replace('.', '').length;
  let eprec = 6;
  if (eprec > digits && digits >= exp + 1) eprec = digits;
  if (exp < -4 || exp >= eprec) {
    const abs = Math.abs(exp);
    return `${mantissa}e${exp < 0 ? '-' : '+'}${abs < 10 ? `0${abs}` : abs}`;
  }
  return String(n);
}
