// DeleteOptions: read from the body or the query, validated, and the rules the store applies with
// them (upstream k8s.io/apiserver handlers/delete.go, rest.BeforeDelete and the generic registry's
// deletionFinalizersForGarbageCollection / markAsDeleting).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, conflict, internal, invalid, invalidOptions, type Status, type StatusError } from './errors.js';
import { deepEqual, fieldErrors, type FieldError } from './field-errors.js';
import { dryRunErrors, isDryRun } from './dry-run.js';
import { inputFormat, parseObjectBody, readBody } from './negotiation.js';
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN } from './objectmeta.js';
import { parseBool } from './options.js';
import { isPlainObject } from './schema.js';
import type { ApiObject, ResolvedStrategy } from './strategy.js';

export { FINALIZER_FOREGROUND, FINALIZER_ORPHAN };

export const PROPAGATION_POLICIES = ['Foreground', 'Background', 'Orphan'] as const;
export type PropagationPolicy = (typeof PROPAGATION_POLICIES)[number];

export const IGNORE_STORE_READ_ERROR = 'ignoreStoreReadErrorWithClusterBreakingPotential';

/** metav1.DeleteOptions as the request carried it (absent fields stay undefined, like Go's nil). */
export interface RequestDeleteOptions {
  readonly gracePeriodSeconds?: number;
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly orphanDependents?: boolean;
  /** Unvalidated until validateDeleteOptions: any string the client sent. */
  readonly propagationPolicy?: string;
  readonly dryRun?: readonly string[];
  readonly ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
}

/** apiVersions a DeleteOptions body may name (upstream accepts the meta group and the legacy v1). */
const DELETE_OPTIONS_VERSIONS = new Set(['v1', 'meta.orch.io/v1', 'meta.k8s.io/v1']);

/**
 * Upstream DeleteResource/DeleteCollection: a non-empty body is the DeleteOptions (JSON or YAML,
 * kind DeleteOptions when named) and the query is then not consulted; without a body the options
 * come from the query parameters.
 */
export async function readDeleteOptions(
  req: IncomingMessage,
  res: ServerResponse,
  query: URLSearchParams,
  maxBodyBytes: number,
  endpointApiVersion: string,
): Promise<RequestDeleteOptions> {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  const raw = hasBody ? await readBody(req, res, maxBodyBytes) : Buffer.alloc(0);
  if (raw.length === 0) return deleteOptionsFromQuery(query);
  // Typed clients send DeleteOptions in protobuf whatever the resource (protobuf/kinds.ts).
  const format = inputFormat(req.headers['content-type'], true);
  return deleteOptionsFromBody(parseObjectBody(raw, format, { apiVersion: endpointApiVersion, kind: 'DeleteOptions' }), endpointApiVersion);
}

export function deleteOptionsFromQuery(q: URLSearchParams): RequestDeleteOptions {
  const int = (name: string): number | undefined => {
    const v = q.get(name);
    if (v === null) return undefined;
    if (!/^[+-]?\d+$/.test(v)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
    const n = Number(v);
    if (!Number.isSafeInteger(n)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
    return n;
  };
  const bool = (name: string): boolean | undefined => {
    const v = q.get(name);
    if (v === null || v === '') return undefined;
    const b = parseBool(v);
    if (b === undefined) throw badRequest(`strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
    return b;
  };
  const out: {
    gracePeriodSeconds?: number;
    orphanDependents?: boolean;
    propagationPolicy?: string;
    dryRun?: string[];
    ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
  } = {};
  const grace = int('gracePeriodSeconds');
  if (grace !== undefined) out.gracePeriodSeconds = grace;
  const orphan = bool('orphanDependents');
  if (orphan !== undefined) out.orphanDependents = orphan;
  const policy = q.get('propagationPolicy');
  if (policy !== null) out.propagationPolicy = policy;
  const dryRun = q.getAll('dryRun');
  if (dryRun.length) out.dryRun = dryRun;
  const unsafe = bool(IGNORE_STORE_READ_ERROR);
  if (unsafe !== undefined) out.ignoreStoreReadErrorWithClusterBreakingPotential = unsafe;
  return out;
}

const goType = (v: unknown): string =>
  Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v === 'number' ? 'number' : 'string';

function unmarshalError(v: unknown, field: string, type: string): Error {
  return badRequest(`json: cannot unmarshal ${goType(v)} into Go struct field DeleteOptions.${field} of type ${type}`);
}

export function deleteOptionsFromBody(body: Record<string, unknown>, endpointApiVersion: string): RequestDeleteOptions {
  const kind = body['kind'];
  if (kind !== undefined && kind !== null && kind !== '' && kind !== 'DeleteOptions') {
    if (typeof kind !== 'string') throw unmarshalError(kind, 'kind', 'string');
    throw badRequest(`the kind in the data (${kind}) does not match the expected kind (DeleteOptions)`);
  }
  const apiVersion = body['apiVersion'];
  if (apiVersion !== undefined && apiVersion !== null && apiVersion !== '') {
    if (typeof apiVersion !== 'string') throw unmarshalError(apiVersion, 'apiVersion', 'string');
    if (!DELETE_OPTIONS_VERSIONS.has(apiVersion) && apiVersion !== endpointApiVersion) {
      throw badRequest(`no kind "DeleteOptions" is registered for version "${apiVersion}"`);
    }
  }
  const present = (k: string): boolean => body[k] !== undefined && body[k] !== null;
  const out: {
    gracePeriodSeconds?: number;
    preconditions?: { uid?: string; resourceVersion?: string };
    orphanDependents?: boolean;
    propagationPolicy?: string;
    dryRun?: string[];
    ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
  } = {};
  if (present('gracePeriodSeconds')) {
    const v = body['gracePeriodSeconds'];
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw unmarshalError(v, 'gracePeriodSeconds', 'int64');
    out.gracePeriodSeconds = v;
  }
  if (present('preconditions')) {
    const pre = body['preconditions'];
    if (!isPlainObject(pre)) throw unmarshalError(pre, 'preconditions', 'v1.Preconditions');
    const str = (k: string): string | undefined => {
      const v = pre[k];
      if (v === undefined || v === null) return undefined;
      if (typeof v !== 'string') throw badRequest(`json: cannot unmarshal ${goType(v)} into Go struct field Preconditions.preconditions.${k} of type string`);
      return v;
    };
    const uid = str('uid');
    const resourceVersion = str('resourceVersion');
    out.preconditions = {
      ...(uid !== undefined ? { uid } : {}),
      ...(resourceVersion !== undefined ? { resourceVersion } : {}),
    };
  }
  if (present('orphanDependents')) {
    const v = body['orphanDependents'];
    if (typeof v !== 'boolean') throw unmarshalError(v, 'orphanDependents', 'bool');
    out.orphanDependents = v;
  }
  if (present('propagationPolicy')) {
    const v = body['propagationPolicy'];
    if (typeof v !== 'string') throw unmarshalError(v, 'propagationPolicy', 'v1.DeletionPropagation');
    out.propagationPolicy = v;
  }
  if (present('dryRun')) {
    const v = body['dryRun'];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw unmarshalError(v, 'dryRun', '[]string');
    out.dryRun = v as string[];
  }
  if (present(IGNORE_STORE_READ_ERROR)) {
    const v = body[IGNORE_STORE_READ_ERROR];
    if (typeof v !== 'boolean') throw unmarshalError(v, IGNORE_STORE_READ_ERROR, 'bool');
    out.ignoreStoreReadErrorWithClusterBreakingPotential = v;
  }
  return out;
}

/** What the store acts on, from validated options (the unsafe delete is the handler's to route). */
export function storeDeleteOptions(o: RequestDeleteOptions): {
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  orphanDependents?: boolean;
  propagationPolicy?: string;
  dryRun: boolean;
} {
  return {
    ...(o.preconditions ? { preconditions: o.preconditions } : {}),
    ...(o.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: o.gracePeriodSeconds } : {}),
    ...(o.orphanDependents !== undefined ? { orphanDependents: o.orphanDependents } : {}),
    ...(o.propagationPolicy !== undefined ? { propagationPolicy: o.propagationPolicy } : {}),
    dryRun: isDryRun(o.dryRun),
  };
}

/**
 * Upstream ValidateDeleteOptions (422 `DeleteOptions.meta.orch.io "" is invalid: ...`), plus the
 * spec's rule that gracePeriodSeconds is non-negative (upstream silently treats a negative value as
 * 1), plus, on a delete collection, the refusal of ignoreStoreReadErrorWithClusterBreakingPotential.
 */
export function validateDeleteOptions(o: RequestDeleteOptions, opts: { collection?: boolean } = {}): void {
  const errs: FieldError[] = [];
  if (o.orphanDependents !== undefined && o.propagationPolicy !== undefined) {
    errs.push(fieldErrors.invalid('propagationPolicy', o.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (o.propagationPolicy !== undefined && !(PROPAGATION_POLICIES as readonly string[]).includes(o.propagationPolicy)) {
    errs.push(fieldErrors.notSupported('propagationPolicy', o.propagationPolicy, [...PROPAGATION_POLICIES, 'nil']));
  }
  if (o.gracePeriodSeconds !== undefined && o.gracePeriodSeconds < 0) {
    errs.push(fieldErrors.invalid('gracePeriodSeconds', o.gracePeriodSeconds, 'must be greater than or equal to 0'));
  }
  errs.push(...dryRunErrors(o.dryRun));
  if (o.ignoreStoreReadErrorWithClusterBreakingPotential) {
    const clash = (what: string): void => {
      errs.push(fieldErrors.invalid(IGNORE_STORE_READ_ERROR, true, `cannot be set together with .${what}`));
    };
    if (o.dryRun?.length) clash('dryRun');
    if (o.propagationPolicy !== undefined) clash('propagationPolicy');
    if (o.orphanDependents !== undefined) clash('orphanDependents');
    if (o.gracePeriodSeconds !== undefined) clash('gracePeriodSeconds');
    if (o.preconditions !== undefined) clash('preconditions');
  }
  if (errs.length) throw invalidOptions('DeleteOptions', errs);
  if (opts.collection && o.ignoreStoreReadErrorWithClusterBreakingPotential) {
    throw invalidOptions('DeleteOptions', [
      fieldErrors.invalid(IGNORE_STORE_READ_ERROR, true, 'is not allowed with DELETECOLLECTION, try again after removing the option'),
    ]);
  }
}

/** Upstream rest.BeforeDelete's precondition check: 409 naming the Kind, before anything is written. */
export function checkDeletePreconditions(obj: ApiObject, pre: RequestDeleteOptions['preconditions'], s: ResolvedStrategy): void {
  if (!pre) return;
  const gr = { group: s.group, resource: s.kind };
  const name = obj.metadata.name ?? '';
  if (pre.uid !== undefined && pre.uid !== obj.metadata.uid) {
    throw conflict(
      gr,
      name,
      `the UID in the precondition (${pre.uid}) does not match the UID in record (${obj.metadata.uid ?? ''}). The object might have been deleted and then recreated`,
    );
  }
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== obj.metadata.resourceVersion) {
    throw conflict(
      gr,
      name,
      `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${obj.metadata.resourceVersion ?? ''}). The object might have been modified`,
    );
  }
}

/**
 * Upstream deletionFinalizersForGarbageCollection: the `orphan` and `foregroundDeletion`
 * finalizers as the options ask (an explicit orphanDependents or propagationPolicy wins, then the
 * finalizers already on the object; every kind here defaults to Background). Undefined when the
 * finalizers stay as they are.
 */
export function garbageCollectionFinalizers(
  finalizers: readonly string[] | undefined,
  o: Pick<RequestDeleteOptions, 'orphanDependents' | 'propagationPolicy'>,
): string[] | undefined {
  const existing = finalizers ?? [];
  let orphan: boolean;
  let foreground: boolean;
  if (o.orphanDependents !== undefined) {
    orphan = o.orphanDependents;
    foreground = false;
  } else if (o.propagationPolicy !== undefined) {
    orphan = o.propagationPolicy === 'Orphan';
    foreground = o.propagationPolicy === 'Foreground';
  } else {
    // The first of the two finalizers present decides, as upstream's loops do.
    const first = existing.find((f) => f === FINALIZER_ORPHAN || f === FINALIZER_FOREGROUND);
    orphan = first === FINALIZER_ORPHAN;
    foreground = first === FINALIZER_FOREGROUND;
  }
  const next = existing.filter((f) => f !== FINALIZER_ORPHAN && f !== FINALIZER_FOREGROUND);
  if (orphan) next.push(FINALIZER_ORPHAN);
  if (foreground) next.push(FINALIZER_FOREGROUND);
  const same = new Set(existing).size === new Set(next).size && next.every((f) => existing.includes(f));
  return same ? undefined : next;
}

/**
 * What a delete of a kind with graceful deletion does (upstream rest.BeforeDelete):
 * - `none`: the kind has no graceful deletion, or the object is already marked with grace 0 (a
 *   delete that failed after the mark: it goes now, or waits for its finalizers);
 * - `pending`: the object is already terminating and the request asks for no shorter grace: nothing
 *   changes;
 * - `graceful`: `obj` now carries deletionTimestamp (now + grace, or moved earlier when an existing
 *   grace period is shortened) and deletionGracePeriodSeconds `grace`.
 */
export type GracefulDelete = { readonly kind: 'none' } | { readonly kind: 'pending' } | { readonly kind: 'graceful'; readonly grace: number };

export function beforeGracefulDelete(obj: ApiObject, s: ResolvedStrategy, requested: number | undefined, now = Date.now()): GracefulDelete {
  if (!s.gracefulDeletePeriod) return { kind: 'none' };
  const meta = obj.metadata;
  if (meta.deletionTimestamp) {
    const current = meta.deletionGracePeriodSeconds;
    if (current === undefined || current <= 0) return { kind: 'none' };
    // Only a shorter grace period may be asked for, and it counts from the first request.
    if (requested === undefined || requested >= current) return { kind: 'pending' };
    const start = Date.parse(meta.deletionTimestamp) - current * 1000;
    meta.deletionTimestamp = rfc3339(start + requested * 1000);
    meta.deletionGracePeriodSeconds = requested;
    return { kind: 'graceful', grace: requested };
  }
  const grace = s.gracefulDeletePeriod(obj, requested);
  meta.deletionTimestamp = rfc3339(now + grace * 1000);
  meta.deletionGracePeriodSeconds = grace;
  // Controllers of an object being deleted stop acting on it: its generation says so (upstream).
  if ((meta.generation ?? 0) > 0) meta.generation! += 1;
  return { kind: 'graceful', grace };
}

/** RFC 3339 in whole seconds, as metav1.Time serializes. */
const rfc3339 = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Upstream markAsDeleting, for kinds without graceful deletion whose delete must wait for
 * finalizers: deletionTimestamp (kept if already set), deletionGracePeriodSeconds 0, and a
 * generation bump the first time. `prepare` is the kind's own change (e.g. Namespace Terminating).
 * Returns whether `obj` now differs from `old`.
 */
export function markAsDeleting(obj: ApiObject, old: ApiObject, now: string, prepare?: (o: ApiObject) => void): boolean {
  const meta = obj.metadata;
  if (!meta.deletionTimestamp) {
    if ((meta.generation ?? 0) > 0) meta.generation! += 1;
    meta.deletionTimestamp = now;
    prepare?.(obj);
  }
  meta.deletionGracePeriodSeconds = 0;
  return !deepEqual(obj, old);
}

/**
 * The 422 upstream's corrupt-object deleter answers when the object reads fine (or is absent):
 * the option is only for objects that cannot be decoded. Kind is the plural resource, as upstream.
 */
export function notCorruptError(s: ResolvedStrategy, name: string) {
  return invalid({ group: s.group, kind: s.resource }, name, [
    fieldErrors.invalid(IGNORE_STORE_READ_ERROR, true, 'is exclusively used to delete corrupt object(s), try again by removing this option'),
  ]);
}

/**
 * A stored value that cannot be decoded: upstream's storage.NewCorruptObjError as the API shows
 * it (500 InternalError). The words `corrupt object` are what marks it for the unsafe delete.
 */
export function corruptObject(key: string, detail: string): StatusError {
  return internal(new Error(`StorageError: corrupt object, Code: 7, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: ${detail}`));
}

/** What an unsafe delete answers: there is no object to return, so a Success Status (upstream). */
export function unsafeDeleteStatus(name: string, kind: string): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, kind }, code: 200 };
}
