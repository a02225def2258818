// Server-side apply (`application/apply-patch+yaml`), as upstream's structured-merge-diff Updater
// runs it: the applied configuration is merged into the live object (objects key by key, keyed
// lists and sets item by item, everything else replaced); the manager's Apply entry becomes exactly
// the configuration's fields; fields it applied before, no longer sends and nobody else owns are
// removed; changing a field another manager owns is a conflict (409) unless `force`, which moves
// the field to the applier. The result is written like any update (patch.ts).
import { parseYaml } from './body-bounds.js';
import { badRequest, StatusError, type StatusCause } from './errors.js';
import {
  compare,
  comparePaths,
  decodeManagedFields,
  encodeManagedFields,
  FieldSet,
  FieldSetError,
  filterComparison,
  indexItems,
  managerKey,
  objectChanged,
  ownableFilter,
  pathString,
  removePaths,
  setManagedFields,
  toFieldSet,
  withoutManagedFields,
  type ManagedEntry,
  type Path,
} from './managed-fields.js';
import { childType, type FieldType, type ListFieldType, type StructType } from './patch-schema.js';
import { isPlainObject } from './schema.js';
import type { ApiObject } from './strategy.js';

export interface ApplyInput {
  /** The stored object; undefined when the apply creates it. */
  readonly live: ApiObject | undefined;
  readonly config: Record<string, unknown>;
  readonly manager: string;
  readonly force: boolean;
  readonly type: StructType;
  readonly apiVersion: string;
  readonly kind: string;
  readonly hasStatus: boolean;
  readonly subresource?: 'status';
  /** RFC 3339, whole seconds. */
  readonly now: string;
}

/**
 * Decodes an apply body: YAML (JSON is YAML too) holding one object. Upstream: `error decoding
 * YAML: ...` is a 400.
 */
export function parseApplyBody(raw: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = parseYaml(raw);
  } catch (err) {
    throw badRequest(`error decoding YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isPlainObject(doc)) throw badRequest('error decoding YAML: the applied configuration must be an object');
  return doc;
}

/**
 * Checks what upstream checks before merging: the configuration names the endpoint's apiVersion
 * and kind, and carries no managedFields.
 */
export function checkApplyConfig(config: Record<string, unknown>, apiVersion: string, kind: string): void {
  const av = typeof config['apiVersion'] === 'string' ? config['apiVersion'] : '';
  const k = typeof config['kind'] === 'string' ? config['kind'] : '';
  if (av !== apiVersion || k !== kind) {
    const [group, version] = av.includes('/') ? [av.slice(0, av.lastIndexOf('/')), av.slice(av.lastIndexOf('/') + 1)] : ['', av];
    throw badRequest(`invalid object type: ${group}/${version}, Kind=${k}`);
  }
  const meta = config['metadata'];
  if (isPlainObject(meta) && meta['managedFields'] !== undefined && meta['managedFields'] !== null) {
    throw badRequest('metadata.managedFields must be nil');
  }
}

/** The merged object, with metadata.managedFields as the apply leaves them. */
export function applyConfig(input: ApplyInput): ApiObject {
  const { type, config } = input;
  const live = (withoutManagedFields(input.live) ?? { metadata: {} }) as ApiObject;
  const managers = decodeManagedFields(input.live?.metadata.managedFields) ?? new Map<string, ManagedEntry>();
  const keep = ownableFilter(input.hasStatus, input.subresource);

  let configSet: FieldSet;
  let merged: Record<string, unknown>;
  try {
    configSet = toFieldSet(config, type).filter(keep);
    // No copies: the merge builds new objects and arrays wherever it changes one and never writes
    // into its inputs, so the result may share the untouched parts of both (neither is written later).
    merged = mergeValue(live, config, type, []) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof FieldSetError) throw typedPatchError(input, err.message);
    throw err;
  }

  const applier = { manager: input.manager, operation: 'Apply' as const, apiVersion: input.apiVersion, ...(input.subresource ? { subresource: input.subresource } : {}) };
  const key = managerKey(applier);
  const previous = managers.get(key);
  managers.set(key, { ...applier, ...(previous?.time ? { time: previous.time } : {}), set: configSet });

  // Fields the applier set before and dropped now go away, unless someone still owns them.
  const last = previous?.set;
  if (last && !last.empty) {
    // Asked of each manager's set in turn: cheaper than building their union, which is large.
    const sets = [...managers.values()].map((e) => e.set);
    const dropped = last.filter((p) => !sets.some((s) => s.has(p)) && !sets.some((s) => s.hasDescendant(p)));
    if (!dropped.empty) merged = removePaths(merged, dropped, type);
  }

  const c = filterComparison(compare(live, merged, type), keep);
  const changed = c.modified.union(c.added);
  const conflicts: Array<{ entry: ManagedEntry; paths: FieldSet }> = [];
  for (const [k, e] of managers) {
    if (k === key) continue;
    const paths = e.set.intersection(changed);
    if (!paths.empty) conflicts.push({ entry: e, paths });
  }
  if (conflicts.length && !input.force) throw conflictError(conflicts);
  for (const { entry, paths } of conflicts) entry.set = entry.set.difference(paths);
  for (const [k, e] of managers) if (k !== key) e.set = e.set.difference(c.removed);
  for (const [k, e] of managers) if (e.set.empty) managers.delete(k);

  const object = merged as ApiObject;
  if (!isPlainObject(object.metadata)) object.metadata = {};
  const mine = managers.get(key);
  if (mine && objectChanged(live, object)) mine.time = input.now;
  setManagedFields(object, encodeManagedFields(managers));
  return object;
}

/** Upstream's 500 for a configuration the schema cannot type is a 400 here (upstream PR 139255). */
function typedPatchError(input: ApplyInput, detail: string): StatusError {
  const meta = isPlainObject(input.config['metadata']) ? input.config['metadata'] : {};
  const ns = typeof meta['namespace'] === 'string' ? meta['namespace'] : '';
  const name = typeof meta['name'] === 'string' ? meta['name'] : '';
  const av = input.apiVersion.includes('/') ? input.apiVersion : `/${input.apiVersion}`;
  return badRequest(`failed to create typed patch object (${ns}/${name}; ${av}, Kind=${input.kind}): ${detail}`);
}

/** How upstream names a manager in conflicts: `"m"`, `"m" with subresource "status"`, `"m" using v1`. */
export function printManager(e: { manager: string; operation: string; apiVersion: string; subresource?: string }): string {
  let s = JSON.stringify(e.manager);
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') s += ` using ${e.apiVersion}`;
  return s;
}

/** 409 Conflict with one FieldManagerConflict cause per field (upstream NewConflictError). */
function conflictError(conflicts: Array<{ entry: ManagedEntry; paths: FieldSet }>): StatusError {
  conflicts.sort((a, b) => cmp(a.entry.manager, b.entry.manager) || cmp(a.entry.operation, b.entry.operation) || cmp(a.entry.subresource ?? '', b.entry.subresource ?? ''));
  const all: Array<{ who: string; path: Path }> = [];
  for (const { entry, paths } of conflicts) {
    for (const p of [...paths].sort(comparePaths)) all.push({ who: printManager(entry), path: p });
  }
  const causes: StatusCause[] = all.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${c.who}`, field: pathString(c.path) }));
  let message: string;
  if (all.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${all[0]!.who}: ${pathString(all[0]!.path)}`;
  } else {
    const lines: string[] = [];
    for (const { entry, paths } of conflicts) {
      lines.push(`conflicts with ${printManager(entry)}:`);
      for (const p of [...paths].sort(comparePaths)) lines.push(`- ${pathString(p)}`);
    }
    message = `Apply failed with ${all.length} conflicts: ${lines.join('\n')}`;
  }
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Conflict', details: { causes }, code: 409 });
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

// -------------------------------------------------------------------------------------- merging

/**
 * structured-merge-diff's merge of a configuration (`rhs`) into the live value (`lhs`): the
 * configuration wins for leaves, atomic lists and anything whose shape does not match the type.
 */
function mergeValue(lhs: unknown, rhs: unknown, t: FieldType, at: Path): unknown {
  if (rhs === undefined) return lhs;
  if (lhs === undefined || lhs === null || rhs === null) return rhs;
  switch (t.kind) {
    case 'scalar':
      return rhs;
    case 'list':
      if (t.listType === 'atomic' || !Array.isArray(lhs) || !Array.isArray(rhs)) return rhs;
      return mergeList(lhs, rhs, t, at);
    default: {
      if (!isPlainObject(lhs) || !isPlainObject(rhs)) return rhs;
      const out: Record<string, unknown> = { ...lhs };
      for (const k of Object.keys(rhs)) {
        const v = mergeValue(lhs[k], rhs[k], childType(t, k) ?? { kind: 'scalar' }, [...at, `f:${k}`]);
        Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
  }
}

/**
 * Merges the items of a set or keyed list (upstream mergingWalker.visitListItems): items keep
 * the live order, items only in the configuration come in the configuration's order, and items
 * in both are placed in the configuration's relative order.
 */
function mergeList(lhs: unknown[], rhs: unknown[], t: ListFieldType, at: Path): unknown[] {
  const observedRHS = indexItems(rhs, t, at, true);
  const observedLHS = indexItems(lhs, t, at, false);
  const rhsOrder = [...observedRHS.keys()];
  const lhsOrder = [...observedLHS.keys()];
  const sharedOrder = rhsOrder.filter((pe) => observedLHS.has(pe));
  let nextShared = sharedOrder.shift();
  const out: unknown[] = [];
  const item = (pe: string, l: unknown, r: unknown): void => {
    const v = mergeValue(l, r, t.items, [...at, pe]);
    if (v !== undefined && v !== null) out.push(v);
  };
  const advance = (pe: string): void => {
    if (nextShared !== undefined && nextShared === pe) nextShared = sharedOrder.shift();
  };
  for (let lI = 0, rI = 0; lI < lhsOrder.length || rI < rhsOrder.length; ) {
    const before = lI + rI;
    if (lI < lhsOrder.length && rI < rhsOrder.length) {
      const pe = lhsOrder[lI]!;
      if (pe === rhsOrder[rI]) {
        item(pe, observedLHS.get(pe), observedRHS.get(pe));
        lI++;
        rI++;
        nextShared = sharedOrder.shift();
        continue;
      }
      if (observedRHS.has(pe) && nextShared !== undefined && nextShared !== pe) {
        // A shared item, but not the one due in this round.
        lI++;
        continue;
      }
    }
    if (lI < lhsOrder.length) {
      const pe = lhsOrder[lI]!;
      if (!observedRHS.has(pe)) {
        item(pe, observedLHS.get(pe), undefined);
        lI++;
        continue;
      }
    }
    if (rI < rhsOrder.length) {
      const pe = rhsOrder[rI]!;
      item(pe, observedLHS.get(pe), observedRHS.get(pe));
      rI++;
      advance(pe);
    }
    // A shared live item already merged from the configuration's side: skip it.
    if (lI + rI === before) lI++;
  }
  return out;
}
