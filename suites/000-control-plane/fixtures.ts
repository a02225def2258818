// Objects the control-plane cases create. Every one carries the run label and a run-unique name, and
// is registered for cleanup before it is sent, so a timeout mid-request still gets it deleted.
import type { CaseContext } from '../case.js';
import type { ApiResponse } from '../../runner/client.js';
import { expectObject, SUCCESS } from '../verify.js';

export const SC_GROUP_VERSION = 'storage.orch.io/v1';
export const SC_PATH = '/apis/storage.orch.io/v1/storageclasses';
export const scItem = (name: string) => `${SC_PATH}/${encodeURIComponent(name)}`;

/** A minimal valid StorageClass with extra top-level fields. */
export function storageClass(ctx: CaseContext, fields: Record<string, unknown> = {}, hint = 'sc'): any {
  return {
    apiVersion: SC_GROUP_VERSION,
    kind: 'StorageClass',
    metadata: { name: ctx.uniqueName(hint), labels: { ...ctx.labels } },
    provisioner: 'conformance.orch.io/test',
    ...fields,
  };
}

/** POSTs a StorageClass body (any shape: cases send invalid ones too). */
export function postStorageClass(ctx: CaseContext, body: any): Promise<ApiResponse> {
  const name = body?.metadata?.name;
  if (typeof name === 'string' && name) ctx.track(scItem(name));
  return ctx.api.post(SC_PATH, body);
}

/** Creates a valid StorageClass and returns the object the server stored. */
export async function createStorageClass(ctx: CaseContext, fields: Record<string, unknown> = {}, hint = 'sc'): Promise<any> {
  const res = await postStorageClass(ctx, storageClass(ctx, fields, hint));
  return expectObject(res, SUCCESS.create, 'StorageClass', `creating a valid StorageClass ${JSON.stringify(fields)}`);
}
