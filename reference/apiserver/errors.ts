// Status bodies for every failure, shaped and worded as upstream k8s.io/apimachinery/pkg/api/errors.
import { aggregate, errorBody, type FieldError } from './field-errors.js';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  /** The plural resource for most errors, the Kind for Invalid (as upstream). */
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/** A resource named the way errors name it: `storageclasses.storage.orch.io`, or `namespaces`. */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

export interface GroupKind {
  readonly group: string;
  readonly kind: string;
}

export class StatusError extends Error {
  constructor(readonly status: Status) {
    super(status.message ?? status.reason ?? 'error');
    this.name = 'StatusError';
  }

  get code(): number {
    return this.status.code ?? 500;
  }
}

export function isStatusError(err: unknown): err is StatusError {
  return err instanceof StatusError;
}

export const qualifiedResource = (gr: GroupResource): string => (gr.group ? `${gr.resource}.${gr.group}` : gr.resource);
export const qualifiedKind = (gk: GroupKind): string => (gk.group ? `${gk.kind}.${gk.group}` : gk.kind);

function failure(code: number, reason: string, message: string, details?: StatusDetails): StatusError {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason };
  if (details) status.details = details;
  status.code = code;
  return new StatusError(status);
}

// Go's omitempty drops empty strings; keep bodies identical by leaving them out too.
function details(d: StatusDetails): StatusDetails {
  const out: StatusDetails = {};
  if (d.name) out.name = d.name;
  if (d.group) out.group = d.group;
  if (d.kind) out.kind = d.kind;
  if (d.uid) out.uid = d.uid;
  if (d.causes?.length) out.causes = d.causes;
  if (d.retryAfterSeconds) out.retryAfterSeconds = d.retryAfterSeconds;
  return out;
}

export function notFound(gr: GroupResource, name: string): StatusError {
  return failure(404, 'NotFound', `${qualifiedResource(gr)} "${name}" not found`, details({
    name,
    group: gr.group,
    kind: gr.resource,
  }));
}

/** The router's answer for paths that name no resource. */
export function pathNotFound(): StatusError {
  return failure(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return failure(409, 'AlreadyExists', `${qualifiedResource(gr)} "${name}" already exists`, details({
    name,
    group: gr.group,
    kind: gr.resource,
  }));
}

export const OBJECT_MODIFIED = 'the object has been modified; please apply your changes to the latest version and try again';

export function conflict(gr: GroupResource, name: string, why: string = OBJECT_MODIFIED): StatusError {
  return failure(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${why}`, details({
    name,
    group: gr.group,
    kind: gr.resource,
  }));
}

export function invalid(gk: GroupKind, name: string, errs: readonly FieldError[]): StatusError {
  const causes = errs.map((e) => ({ reason: e.type, message: errorBody(e), field: e.field }));
  const message = errs.length
    ? `${qualifiedKind(gk)} "${name}" is invalid: ${aggregate(errs)}`
    : `${qualifiedKind(gk)} "${name}" is invalid`;
  return failure(422, 'Invalid', message, details({ name, group: gk.group, kind: gk.kind, causes }));
}

export function forbidden(gr: GroupResource, name: string, why: string, causes?: StatusCause[]): StatusError {
  return failure(403, 'Forbidden', `${qualifiedResource(gr)} "${name}" is forbidden: ${why}`, details({
    name,
    group: gr.group,
    kind: gr.resource,
    causes,
  }));
}

export function badRequest(message: string): StatusError {
  return failure(400, 'BadRequest', message);
}

/** For an HTTP method the path does not serve (go-restful's answer upstream). */
export function methodNotAllowed(): StatusError {
  return failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

/** For a verb a known resource does not support. */
export function methodNotSupported(gr: GroupResource, action: string): StatusError {
  return failure(405, 'MethodNotAllowed', `${action} is not supported on resources of kind "${qualifiedResource(gr)}"`, details({
    group: gr.group,
    kind: gr.resource,
  }));
}

export function unsupportedMediaType(accepted: readonly string[]): StatusError {
  return failure(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}

export function notAcceptable(accepted: readonly string[]): StatusError {
  return failure(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
}

/** A 406 for a conversion that does not fit the answer (PartialObjectMetadata asked of a list). */
export function notAcceptableConversion(message: string): StatusError {
  return failure(406, 'NotAcceptable', message);
}

export function requestEntityTooLarge(limit: number): StatusError {
  return failure(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
}

export function expired(message: string): StatusError {
  return failure(410, 'Expired', message);
}

export function gone(message: string): StatusError {
  return failure(410, 'Gone', message);
}

export function tooOldResourceVersion(requested: number | string, oldest: number): StatusError {
  return expired(`too old resource version: ${requested} (${oldest})`);
}

export function timeout(message: string, retryAfterSeconds: number): StatusError {
  return failure(504, 'Timeout', `Timeout: ${message}`, details({ retryAfterSeconds }));
}

/** Upstream storage.NewTooLargeResourceVersionError. */
export function tooLargeResourceVersion(requested: number, current: number): StatusError {
  const err = timeout(`Too large resource version: ${requested}, current: ${current}`, 1);
  err.status.details!.causes = [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }];
  return err;
}

export function serviceUnavailable(message: string): StatusError {
  return failure(503, 'ServiceUnavailable', message);
}

export function internal(err: unknown): StatusError {
  const msg = err instanceof Error ? err.message : String(err);
  return failure(500, 'InternalError', `Internal error occurred: ${msg}`, { causes: [{ message: msg }] });
}

/** Query options that fail validation: `ListOptions.meta.orch.io "" is invalid: ...`. */
export function invalidOptions(kind: string, errs: readonly FieldError[]): StatusError {
  return invalid({ group: 'meta.orch.io', kind }, '', errs);
}

/** The body of a successful delete for kinds that answer with a Status rather than the object. */
export function successStatus(d: StatusDetails): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: details(d) };
}
