// The resource kinds of spec 000 as the cases see them: where they live, what a minimal valid object
// looks like, and what the spec says of their operations. Generic operation cases (4.2) are
// generated from this table; each kind's own field-rule cases live in its section file.
import type { CaseContext } from '../case.js';
import type { ApiResponse } from '../../runner/client.js';
import { expectObject, SUCCESS } from '../verify.js';
import { EVICTION_REQUEST, POD_GROUP } from './kinds-workloads.js';
import { CLUSTER_ROLE, CLUSTER_ROLE_BINDING, ROLE, ROLE_BINDING } from './kinds-rbac.js';
import { EVENT, RESOURCE_QUOTA, STORAGE_VERSION_MIGRATION } from './kinds-quota-events.js';

export interface ResourceKind {
  readonly kind: string;
  /** `group/version`, or `v1` for the core group. */
  readonly apiVersion: string;
  /** Plural resource name in URLs. */
  readonly plural: string;
  readonly namespaced: boolean;
  /** Spec §4.1: the kind has a status subresource. */
  readonly hasStatus: boolean;
  /** Spec §4.2: a single DELETE answers with the object, a Status, or the spec does not say. */
  readonly deleteResponse: 'object' | 'status' | 'unspecified';
  /** Feature gates the whole API needs on the target. */
  readonly gates?: Readonly<Record<string, boolean>>;
  /** Spec section of the kind's fields (e.g. '2.4'). */
  readonly section: string;
  /**
   * A minimal valid object of the kind, without apiVersion, kind and metadata (the fixture adds
   * them). Called once per object so it may return fresh values (e.g. a new UUID).
   */
  valid(ctx: CaseContext): Record<string, unknown>;
  /**
   * A change to a mutable field, as a JSON merge patch over the valid object (e.g. a new label-free
   * field value); `changed` tells whether an object shows it.
   */
  readonly change: { readonly patch: Record<string, unknown>; changed(obj: any): boolean };
  /** A valid status for the status-subresource cases (kinds with hasStatus). */
  status?(ctx: CaseContext): Record<string, unknown>;
}

export function collectionPath(k: ResourceKind, namespace: string): string {
  const prefix = k.apiVersion.includes('/') ? `/apis/${k.apiVersion}` : `/api/${k.apiVersion}`;
  return k.namespaced ? `${prefix}/namespaces/${encodeURIComponent(namespace)}/${k.plural}` : `${prefix}/${k.plural}`;
}

export function itemPath(k: ResourceKind, namespace: string, name: string): string {
  return `${collectionPath(k, namespace)}/${encodeURIComponent(name)}`;
}

/** The object with `k.change` applied (JSON merge patch semantics), as a client would PUT it. */
export function withChange(k: ResourceKind, obj: any): any {
  const merge = (a: any, b: any): any => {
    if (b === null || typeof b !== 'object' || Array.isArray(b)) return b;
    const out = { ...(a && typeof a === 'object' && !Array.isArray(a) ? a : {}) };
    for (const [key, v] of Object.entries(b)) {
      if (v === null) delete out[key];
      else out[key] = merge(out[key], v);
    }
    return out;
  };
  return merge(obj, k.change.patch);
}

/** A full valid object of kind `k` with a run-unique name and the run label, plus `extra` fields. */
export function newObject(ctx: CaseContext, k: ResourceKind, extra: Record<string, unknown> = {}, hint = k.plural.slice(0, 6)): any {
  return {
    apiVersion: k.apiVersion,
    kind: k.kind,
    metadata: { name: ctx.uniqueName(hint), labels: { ...ctx.labels } },
    ...k.valid(ctx),
    ...extra,
  };
}

/** POSTs any body of kind `k` (cases send invalid ones too); registers it for cleanup first. */
export function postObject(ctx: CaseContext, k: ResourceKind, body: any): Promise<ApiResponse> {
  const name = body?.metadata?.name;
  if (typeof name === 'string' && name) ctx.track(itemPath(k, ctx.namespace, name));
  return ctx.api.post(collectionPath(k, ctx.namespace), body);
}

/** Creates a valid object of kind `k` (with `extra` fields) and returns what the server stored. */
export async function createObject(ctx: CaseContext, k: ResourceKind, extra: Record<string, unknown> = {}, hint?: string): Promise<any> {
  const res = await postObject(ctx, k, newObject(ctx, k, extra, hint));
  return expectObject(res, SUCCESS.create, k.kind, `creating a valid ${k.kind}${Object.keys(extra).length ? ` with ${JSON.stringify(extra).slice(0, 200)}` : ''}`);
}

/** The case header fields every case of a kind shares. */
export function kindCommon(k: ResourceKind, suite: string) {
  return {
    suite,
    spec: { doc: '000' as const, section: k.section },
    impact: k.namespaced ? ('namespaced' as const) : ('cluster-scoped' as const),
    needs: ['api'] as const,
    ...(k.gates ? { gates: k.gates } : {}),
  };
}

export const STORAGE_CLASS: ResourceKind = {
  kind: 'StorageClass',
  apiVersion: 'storage.orch.io/v1',
  plural: 'storageclasses',
  namespaced: false,
  hasStatus: false,
  deleteResponse: 'object',
  section: '2.2',
  valid: () => ({ provisioner: 'conformance.orch.io/test' }),
  change: { patch: { allowVolumeExpansion: true }, changed: (o) => o?.allowVolumeExpansion === true },
};

/**
 * Every kind of spec 000 that the generic operation cases cover. Resource files add theirs here
 * (one line each, in spec order).
 */
export const KINDS: ResourceKind[] = [
  STORAGE_CLASS,
  STORAGE_VERSION_MIGRATION,
  RESOURCE_QUOTA,
  EVICTION_REQUEST,
  POD_GROUP,
  EVENT,
  CLUSTER_ROLE,
  CLUSTER_ROLE_BINDING,
  ROLE,
  ROLE_BINDING,
  // <<kinds>>
];
