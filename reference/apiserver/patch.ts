// PATCH: the patch types (JSON patch RFC 6902, JSON merge patch RFC 7386, strategic merge patch,
// server-side apply), the PatchOptions rules that depend on them (force, fieldManager), and the
// field manager a write is recorded under.
import type { JsonPatchError, Operation } from 'fast-json-patch';
import { jsonPatch } from '../packages.js';
import { applyConfig, checkApplyConfig, parseApplyBody } from './apply.js';
import { badRequest, invalid, isStatusError, StatusError, unsupportedMediaType } from './errors.js';
import { fieldErrors, type FieldError } from './field-errors.js';
import { bodyProperties, dropUnknownFields } from './field-validation.js';
import type { FieldOwner } from './managed-fields.js';
import { nowSeconds } from './managed-fields.js';
import { typeOf } from './patch-schema.js';
import { isPlainObject } from './schema.js';
import { StrategicMergeError, strategicMergePatch } from './strategic-merge.js';
import type { ResourceStore } from './store.js';
import type { ApiObject, ResolvedStrategy } from './strategy.js';
import type { UserInfo } from './auth/user.js';

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH = 'application/apply-patch+yaml';

/** Upstream's order in its 415 message. */
export const PATCH_MEDIA_TYPES = [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH] as const;
export type PatchType = (typeof PATCH_MEDIA_TYPES)[number];

export function patchType(contentType: string | undefined): PatchType {
  const mt = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if ((PATCH_MEDIA_TYPES as readonly string[]).includes(mt)) return mt as PatchType;
  throw unsupportedMediaType(PATCH_MEDIA_TYPES);
}

// ------------------------------------------------------------------------------ fieldManager

/**
 * The spec (§4.3, §8): fewer than 128 characters. Upstream allows 128 bytes; the spec wins, so
 * 128 is refused and the message names 127.
 */
export const FIELD_MANAGER_MAX_BYTES = 127;

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Upstream ValidateFieldManager, at the spec's limit. */
export function fieldManagerErrors(fieldManager: string): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(fieldManager) > FIELD_MANAGER_MAX_BYTES) errs.push(fieldErrors.tooLong('fieldManager', fieldManager, FIELD_MANAGER_MAX_BYTES));
  let offset = 0;
  for (const ch of fieldManager) {
    if (!PRINTABLE.test(ch)) {
      const cp = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      errs.push(fieldErrors.invalid('fieldManager', fieldManager, `invalid character U+${cp} (at position ${offset})`));
    }
    offset += Buffer.byteLength(ch);
  }
  return errs;
}

/** The fieldManager errors of CreateOptions and UpdateOptions (for writeOptions' `before`). */
export function writeFieldManagerErrors(q: URLSearchParams): FieldError[] {
  return fieldManagerErrors(q.get('fieldManager') ?? '');
}

/**
 * PatchOptions rules upstream checks first (ValidatePatchOptions): `force` only with apply, a
 * fieldManager required with apply, and the fieldManager rules.
 */
export function patchOptionErrors(q: URLSearchParams, type: PatchType): FieldError[] {
  const errs: FieldError[] = [];
  const manager = q.get('fieldManager') ?? '';
  if (type !== APPLY_PATCH) {
    if (q.get('force') !== null) errs.push(fieldErrors.forbidden('force', 'may not be specified for non-apply patch'));
  } else if (!manager) {
    errs.push(fieldErrors.required('fieldManager', 'is required for apply patch'));
  }
  return [...errs, ...fieldManagerErrors(manager)];
}

/**
 * Upstream prefixFromUserAgent: the user agent up to its first `/`, printable characters only,
 * cut at the length limit (`kubectl/v1.32.0 (linux/amd64) ...` gives `kubectl`).
 */
export function managerFromUserAgent(userAgent: string | undefined): string {
  let out = '';
  for (const ch of (userAgent ?? '').split('/')[0]!) {
    if (!PRINTABLE.test(ch)) continue;
    if (Buffer.byteLength(out + ch) > FIELD_MANAGER_MAX_BYTES) break;
    out += ch;
  }
  return out;
}

/** Who a write is recorded under: fieldManager, else the user agent's program name, else `unknown`. */
export function fieldOwner(q: URLSearchParams, userAgent: string | undefined): FieldOwner {
  return { manager: q.get('fieldManager') || managerFromUserAgent(userAgent) || 'unknown' };
}

// -------------------------------------------------------------------- JSON, merge, strategic

/** RFC 7386: objects merge key by key, null deletes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const out: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

type PatchTarget = Pick<ResolvedStrategy, 'groupKind' | 'schema' | 'patchStrategies'>;

/**
 * Applies a parsed JSON, merge or strategic merge patch document to a copy of `current`. A
 * malformed document is 400; a JSON patch whose operations do not apply (a failed `test`, a
 * missing path) is 422, as upstream answers.
 */
export function applyPatch(type: Exclude<PatchType, typeof APPLY_PATCH>, current: Record<string, unknown>, doc: unknown, s: PatchTarget, name: string): Record<string, unknown> {
  if (type === MERGE_PATCH) {
    if (!isPlainObject(doc)) throw badRequest('the merge patch must be a JSON object');
    try {
      return mergePatch(current, doc) as Record<string, unknown>;
    } catch (err) {
      throw tooDeep(err, s.groupKind, name);
    }
  }
  if (type === STRATEGIC_MERGE_PATCH) {
    if (!isPlainObject(doc)) throw badRequest(`json: cannot unmarshal ${Array.isArray(doc) ? 'array' : typeof doc} into Go value of type map[string]interface {}`);
    try {
      return strategicMergePatch(current, doc, typeOf(s));
    } catch (err) {
      if (err instanceof StrategicMergeError) throw strategicMergeFailed(err);
      throw tooDeep(err, s.groupKind, name);
    }
  }
  if (!Array.isArray(doc)) throw badRequest('the JSON patch must be an array of operations');
  const jsonpatch = jsonPatch();
  const invalidOp = jsonpatch.validate(doc as Operation[]);
  if (invalidOp) throw badRequest(`invalid JSON patch: ${invalidOp.message.split('\n')[0]}`);
  // Paths through `__proto__` or `constructor/prototype` are refused as fast-json-patch refuses them,
  // but as the client's error (422) rather than the plain error it throws.
  const banned = (p: string) => { const segs = p.split('/'); return segs.some((seg, i) => seg === '__proto__' || (seg === 'constructor' && segs[i + 1] === 'prototype')); };
  for (const op of doc as Array<{ op?: string; path?: string; from?: string; value?: unknown }>) {
    const refuse = (message: string) => invalid(s.groupKind, name, [fieldErrors.invalid(`jsonpatch ${op.op ?? ''} ${op.path ?? ''}`.trim(), '', message)]);
    for (const p of [op.path, op.from]) {
      if (typeof p === 'string' && banned(p)) throw refuse(`path ${JSON.stringify(p)} names no field of the object`);
    }
    const missing = doesNotApply(op);
    if (missing) throw refuse(missing);
  }
  try {
    return jsonpatch.applyPatch(structuredClone(current), doc as Operation[], true, false).newDocument;
  } catch (err) {
    if (err instanceof jsonpatch.JsonPatchError) throw jsonPatchFailed(err, s.groupKind, name);
    throw err;
  }
}

/**
 * Operations upstream's JSON patch (evanphx/json-patch) finds no place for, and fast-json-patch
 * would apply: the root holds no field to add, remove, move or copy (only `test` and a `replace`
 * with an object apply there), and a move into its own source is gone once the source is removed
 * (RFC 6902 §4.4). fast-json-patch would go on with a document that is no object (a TypeError on
 * the next operation), or hold itself (a move from the root).
 */
function doesNotApply(op: { op?: string; path?: string; from?: string; value?: unknown }): string | undefined {
  const fromOp = op.op === 'move' || op.op === 'copy';
  if (op.path === '' && op.op === 'replace' && !isPlainObject(op.value)) return 'replace operation value must be an object';
  if (op.path === '' && op.op !== 'test' && op.op !== 'replace') return `${op.op} operation does not apply: doc is missing path: ""`;
  if (fromOp && op.from === '') return `${op.op} operation does not apply: doc is missing from path: ""`;
  if (op.op === 'move' && typeof op.path === 'string' && op.path.startsWith(`${op.from}/`)) return `move operation does not apply: doc is missing destination path: ${op.path}`;
  return undefined;
}

/**
 * The merges recurse along the document: one nested deeper than the stack allows (thousands of
 * levels, far below the body limit, and far deeper than any field of any kind) is the client's
 * error, 422 as validation would answer it, not a server fault. Other errors pass through.
 */
function tooDeep(err: unknown, groupKind: { group: string; kind: string }, name: string): unknown {
  if (!(err instanceof RangeError) || !/call stack/i.test(err.message)) return err;
  return invalid(groupKind, name, [fieldErrors.invalid('<patch>', '', 'the patch nests deeper than any field of the object')]);
}

function jsonPatchFailed(err: JsonPatchError, groupKind: { group: string; kind: string }, name: string): StatusError {
  const op = err.operation as { op?: string; path?: string } | undefined;
  const what = err.name === 'TEST_OPERATION_FAILED' ? 'test operation failed' : err.message.split('\n')[0]!;
  return invalid(groupKind, name, [fieldErrors.invalid(`jsonpatch ${op?.op ?? ''} ${op?.path ?? ''}`.trim(), '', what)]);
}

/** Upstream interpretStrategicMergePatchError: 400, or a generic 422 for the unprocessable ones. */
function strategicMergeFailed(err: StrategicMergeError): StatusError {
  if (err.code === 400) return badRequest(err.message);
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'the server rejected our request due to an error in our request',
    reason: 'Invalid',
    details: { causes: [{ reason: 'UnexpectedServerResponse', message: err.message }] },
    code: 422,
  });
}

// ------------------------------------------------------------------------ server-side apply

export interface ApplyRequest {
  readonly namespace: string;
  readonly name: string;
  readonly subresource?: 'status';
  /** The body as sent (YAML or JSON). */
  readonly raw: string;
  readonly manager: string;
  readonly force: boolean;
  readonly dryRun?: boolean;
  /**
   * Drop fields the kind does not declare before merging (fieldValidation Warn or Ignore; the
   * handler has already refused them under Strict). Without it they fail typing with 400.
   */
  readonly dropUnknownFields?: boolean;
  /** Who asks (for validating admission). */
  readonly user?: UserInfo;
}

const MAX_APPLY_ATTEMPTS = 8;

/** `force` of an apply: Go's ParseBool, else 400 like any bad query parameter. */
export function forceParam(q: URLSearchParams): boolean {
  const v = q.get('force');
  if (v === null || v === '') return false;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  throw badRequest(`strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
}

/**
 * Server-side apply through the store: merges the configuration into the stored object (or, when
 * there is none, creates it: 201) and writes it with the managedFields the apply computed. The
 * write is conditional on the resourceVersion merged into; a concurrent write makes it start over,
 * unless the configuration named a resourceVersion itself.
 */
export async function applyToStore(store: ResourceStore, req: ApplyRequest): Promise<{ object: ApiObject; created: boolean }> {
  const s = store.strategy;
  const parsed = parseApplyBody(req.raw);
  checkApplyConfig(parsed, s.apiVersion, s.kind);
  const config = req.dropUnknownFields ? dropUnknownFields(parsed, bodyProperties(s)) : parsed;
  const meta = isPlainObject(config['metadata']) ? config['metadata'] : undefined;
  const pinned = typeof meta?.['resourceVersion'] === 'string' && meta['resourceVersion'] !== '';
  const input = { config, manager: req.manager, force: req.force, type: typeOf(s), apiVersion: s.apiVersion, kind: s.kind, hasStatus: s.hasStatus, subresource: req.subresource };
  for (let attempt = 1; ; attempt++) {
    let live: ApiObject | undefined;
    try {
      live = await store.get(req.namespace, req.name);
    } catch (err) {
      if (!isStatusError(err) || err.code !== 404 || req.subresource) throw err;
    }
    const merged = applyConfig({ ...input, live, now: nowSeconds() });
    const owner: FieldOwner = { manager: req.manager, applied: merged.metadata.managedFields ?? [] };
    const name = typeof merged.metadata.name === 'string' ? merged.metadata.name : '';
    if (name !== req.name) throw badRequest(`the name of the object (${name}) does not match the name on the URL (${req.name})`);
    try {
      if (!live) {
        const created = await store.create(req.namespace, merged, { dryRun: req.dryRun, owner, user: req.user });
        return { object: created.object, created: true };
      }
      if (!pinned) merged.metadata.resourceVersion = live.metadata.resourceVersion;
      const result = await store.update(req.namespace, req.name, merged, { subresource: req.subresource, dryRun: req.dryRun, owner, user: req.user });
      return { object: result.object, created: false };
    } catch (err) {
      const raced = isStatusError(err) && (err.status.reason === 'Conflict' || err.status.reason === 'AlreadyExists' || (err.code === 404 && !!live));
      if (pinned || attempt >= MAX_APPLY_ATTEMPTS || !raced) throw err;
    }
  }
}
