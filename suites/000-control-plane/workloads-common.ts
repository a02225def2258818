// Helpers shared by the EvictionRequest (§2.5) and PodGroup (§2.6) cases.
import type { CaseContext } from '../case.js';
import type { ApiResponse } from '../../runner/client.js';
import { expectObject, expectStatus, fail, show, SUCCESS } from '../verify.js';
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
 * A 422 Invalid Status with a cause at `field` or under it (`spec.target` matches
 * `spec.target.pod.name`); `reason` narrows the cause reason when given.
 */
export function expectInvalidAt(res: ApiResponse, field: string, what: string, reason?: string): any {
  const s = expectStatus(res, { code: 422, reason: 'Invalid' }, what);
  const causes: any[] = Array.isArray(s.details?.causes) ? s.details.causes : [];
  const under = (f: unknown) => typeof f === 'string' && (f === field || f.startsWith(`${field}.`) || f.startsWith(`${field}[`));
  if (!causes.some((c) => under(c?.field) && (!reason || c?.reason === reason))) {
    fail(`${what}: details.causes names the bad field`, `a cause with field ${show(field)} (or below it)${reason ? ` and reason ${reason}` : ''}`, show(causes));
  }
  return s;
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
