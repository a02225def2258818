// The 401 and 403 answers, byte for byte as upstream's responsewriters write them (with its
// forbiddenMessage wording).
import { StatusError, type Status } from '../errors.js';
import type { Attributes } from './request-info.js';

/** Upstream authentication failure body; no details. */
export function unauthorizedError(): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
}

/**
 * Upstream responsewriters.Forbidden: apierrors.NewForbidden(group/resource, name, message). Non-resource
 * requests have no group/resource, so their message starts with just `forbidden:`.
 */
export function forbiddenError(a: Attributes, reason: string): StatusError {
  const why = reason ? `${forbiddenMessage(a)}: ${reason}` : forbiddenMessage(a);
  const qualified = a.resourceRequest && a.resource ? (a.apiGroup ? `${a.resource}.${a.apiGroup}` : a.resource) : '';
  const message = !qualified ? `forbidden: ${why}` : a.name ? `${qualified} "${a.name}" is forbidden: ${why}` : `${qualified} is forbidden: ${why}`;
  const details: NonNullable<Status['details']> = {};
  if (a.name) details.name = a.name;
  if (a.resourceRequest && a.apiGroup) details.group = a.apiGroup;
  if (a.resourceRequest && a.resource) details.kind = a.resource;
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 });
}

function forbiddenMessage(a: Attributes): string {
  const user = a.user.name;
  if (!a.resourceRequest) return `User "${user}" cannot ${a.verb} path "${a.path}"`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  return `User "${user}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup}" ${scope}`;
}
