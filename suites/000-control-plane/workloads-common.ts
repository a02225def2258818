// Helpers shared by the EvictionRequest (§2.5) and PodGroup (§2.6) cases.
import type { CaseContext } from '../case.js';
import type { ApiResponse } from '../../runner/client.js';
import { expectInvalidWrite, expectObject, SUCCESS } from '../verify.js';
import { itemPath, newObject, postObject, type ResourceKind } from './kinds.js';

/** A deep copy of JSON. */
export const clone = <T>(v: T): T => structuredClone(v);

/** A valid object of kind `k` whose spec is changed by `edit` (which may delete fields). */
export function objectWith(ctx: CaseContext, k: ResourceKind, edit: (spec: any) => void, hint?: string): any {
  const o = newObject(ctx, k, {}, hint);
  o.spec = clone(o.spec);
  edit(o.spec);
  return o;
}

/** POSTs a valid object changed by `edit` and expects it to be created; gives back what was stored. */
export async function createWith(ctx: CaseContext, k: ResourceKind, edit: (spec: any) => void, what: string, hint?: string): Promise<any> {
  return expectObject(await postObject(ctx, k, objectWith(ctx, k, edit, hint)), SUCCESS.create, k.kind, what);
}

/**
 * A write refused as invalid (suites/verify.ts expectInvalidWrite): an error, nothing created;
 * upstream's 422 Invalid with a cause at `field` or under it is a SHOULD finding.
 */
export function expectInvalidAt(ctx: CaseContext, res: ApiResponse, field: string, what: string, reason?: string): Promise<any> {
  return expectInvalidWrite(ctx.api, res, field, what, reason);
}

/** PUTs `obj` to its item path (or its /status). */
export function putObject(ctx: CaseContext, k: ResourceKind, obj: any, status = false): Promise<ApiResponse> {
  return ctx.api.put(`${itemPath(k, ctx.namespace, obj.metadata.name)}${status ? '/status' : ''}`, obj);
}

/** Writes `status` through /status and expects success; gives back the stored object. */
export async function putStatus(ctx: CaseContext, k: ResourceKind, obj: any, status: unknown, what: string): Promise<any> {
  return expectObject(await putObject(ctx, k, { ...obj, status }, true), SUCCESS.replace, k.kind, what);
}

/** A metav1.Condition with a fixed transition time. */
export function condition(type: string, status: string, reason: string, message = ''): Record<string, unknown> {
  return { type, status, reason, message, lastTransitionTime: '2025-01-01T00:00:00Z' };
}
