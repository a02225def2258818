// Helpers shared by the StorageVersionMigration (§2.3), ResourceQuota (§2.4) and Event (§2.7) cases.
import type { CaseContext } from '../case.js';
import type { ApiResponse } from '../../runner/client.js';
import { expectInvalidWrite, expectObject, expectRefused, SUCCESS } from '../verify.js';
import { itemPath, newObject, postObject, type ResourceKind } from './kinds.js';

/** A deep copy of JSON. */
export const clone = <T>(v: T): T => structuredClone(v);

/**
 * A write refused as invalid (suites/verify.ts expectInvalidWrite): an error, nothing created;
 * upstream's 422 Invalid with a cause at one of `fields` (or below it) is a SHOULD finding. Several
 * names are allowed where servers name a field differently (upstream reports some events/v1 fields
 * by their core names, and scope-selector entries without their index).
 */
export function expectInvalid(ctx: CaseContext, res: ApiResponse, fields: string | readonly string[], what: string, reason?: string): Promise<any> {
  return expectInvalidWrite(ctx.api, res, fields, what, reason);
}

/**
 * The write is refused for a malformed value. Upstream answers 422 Invalid naming the field, or 400
 * BadRequest where it rejects the value while decoding the body (a quantity that does not parse):
 * either shape is upstream's.
 */
export async function expectRejected(ctx: CaseContext, res: ApiResponse, fields: string | readonly string[], what: string): Promise<void> {
  if (res.status === 400 && res.json?.kind === 'Status') await expectRefused(ctx.api, res, { code: 400, reason: 'BadRequest' }, what);
  else await expectInvalid(ctx, res, fields, what);
}

/** A valid object of kind `k` with `edit` applied to a copy of it (which may delete fields). */
export function objectWith(ctx: CaseContext, k: ResourceKind, edit: (o: any) => void = () => {}, hint?: string): any {
  const o = clone(newObject(ctx, k, {}, hint));
  edit(o);
  return o;
}

/** POSTs a valid object changed by `edit` and expects it to be created; gives back what was stored. */
export async function createWith(ctx: CaseContext, k: ResourceKind, edit: (o: any) => void, what: string, hint?: string): Promise<any> {
  return expectObject(await postObject(ctx, k, objectWith(ctx, k, edit, hint)), SUCCESS.create, k.kind, what);
}

/** PUTs `obj` to its item path (or its /status). */
export function putObject(ctx: CaseContext, k: ResourceKind, obj: any, status = false): Promise<ApiResponse> {
  return ctx.api.put(`${itemPath(k, ctx.namespace, obj.metadata.name)}${status ? '/status' : ''}`, obj);
}

/** Reads the object back. */
export async function readBack(ctx: CaseContext, k: ResourceKind, obj: any, what = 'read back'): Promise<any> {
  return expectObject(await ctx.api.get(itemPath(k, ctx.namespace, obj.metadata.name)), [200], k.kind, what);
}

/** The same object as a namespaced path in another namespace (404 expected there). */
export function pathInNamespace(k: ResourceKind, namespace: string, name: string): string {
  const prefix = k.apiVersion.includes('/') ? `/apis/${k.apiVersion}` : `/api/${k.apiVersion}`;
  return `${prefix}/namespaces/${encodeURIComponent(namespace)}/${k.plural}/${encodeURIComponent(name)}`;
}
