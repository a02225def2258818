// PATCH bodies: JSON patch (RFC 6902) and JSON merge patch (RFC 7386). Strategic merge patch and
// server-side apply need per-field merge strategies and come with the API-semantics work.
import jsonpatch from 'fast-json-patch';
import { badRequest, invalid, unsupportedMediaType, type StatusError } from './errors.js';
import { fieldErrors } from './field-errors.js';
import { isPlainObject } from './schema.js';

export const PATCH_MEDIA_TYPES = ['application/json-patch+json', 'application/merge-patch+json'] as const;
export type PatchType = (typeof PATCH_MEDIA_TYPES)[number];

export function patchType(contentType: string | undefined): PatchType {
  const mt = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if ((PATCH_MEDIA_TYPES as readonly string[]).includes(mt)) return mt as PatchType;
  throw unsupportedMediaType(PATCH_MEDIA_TYPES);
}

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

/**
 * Applies a parsed patch document to a copy of `current`. A malformed document is 400; a JSON patch
 * whose operations do not apply (a failed `test`, a missing path) is 422, as upstream answers.
 */
export function applyPatch(type: PatchType, current: Record<string, unknown>, doc: unknown, groupKind: { group: string; kind: string }, name: string): Record<string, unknown> {
  if (type === 'application/merge-patch+json') {
    if (!isPlainObject(doc)) throw badRequest('the merge patch must be a JSON object');
    return mergePatch(current, doc) as Record<string, unknown>;
  }
  if (!Array.isArray(doc)) throw badRequest('the JSON patch must be an array of operations');
  const invalidOp = jsonpatch.validate(doc as jsonpatch.Operation[]);
  if (invalidOp) throw badRequest(`invalid JSON patch: ${invalidOp.message.split('\n')[0]}`);
  try {
    const result = jsonpatch.applyPatch(structuredClone(current), doc as jsonpatch.Operation[], true, false).newDocument;
    if (!isPlainObject(result)) throw badRequest('the JSON patch replaced the whole object with a non-object');
    return result;
  } catch (err) {
    if (err instanceof jsonpatch.JsonPatchError) throw jsonPatchFailed(err, groupKind, name);
    throw err;
  }
}

function jsonPatchFailed(err: jsonpatch.JsonPatchError, groupKind: { group: string; kind: string }, name: string): StatusError {
  const op = err.operation as { op?: string; path?: string } | undefined;
  const what = err.name === 'TEST_OPERATION_FAILED' ? 'test operation failed' : err.message.split('\n')[0]!;
  return invalid(groupKind, name, [fieldErrors.invalid(`jsonpatch ${op?.op ?? ''} ${op?.path ?? ''}`.trim(), '', what)]);
}
