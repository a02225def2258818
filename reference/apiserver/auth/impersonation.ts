// Impersonation (upstream filters.WithImpersonation, the legacy checks): `Impersonate-User`,
// `Impersonate-Group` (repeatable), `Impersonate-Uid` and `Impersonate-Extra-<key>` headers make
// the request act as another user, provided the requester may `impersonate` each of them:
// users (or serviceaccounts, for a service account's user name) and groups in the core group,
// uids and userextras/<key> in authentication.orch.io.
import type { IncomingHttpHeaders } from 'node:http';
import { badRequest } from '../errors.js';
import type { Authorizer } from './authorizer.js';
import { forbiddenError } from './responses.js';
import type { Attributes } from './request-info.js';
import {
  ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS_USER, serviceAccountGroups, serviceAccountUsername, splitServiceAccount, type UserInfo,
} from './user.js';

const AUTHENTICATION_GROUP = 'authentication.orch.io';
const EXTRA_PREFIX = 'impersonate-extra-';

/** Whether the request asks to impersonate anyone (node lower-cases header names). */
export function wantsImpersonation(headers: IncomingHttpHeaders): boolean {
  return Object.keys(headers).some((h) => h === 'impersonate-user' || h === 'impersonate-group' || h === 'impersonate-uid' || h.startsWith(EXTRA_PREFIX));
}

/** The user the request acts as; throws a StatusError (403, or 400 for groups without a user). */
export async function impersonate(requester: UserInfo, headers: IncomingHttpHeaders, rawHeaders: readonly string[], authz: Authorizer): Promise<UserInfo> {
  const userHeader = first(headers['impersonate-user']);
  const groupHeaders = all(rawHeaders, 'impersonate-group');
  const uidHeader = first(headers['impersonate-uid']);
  const extras = Object.keys(headers).filter((h) => h.startsWith(EXTRA_PREFIX));
  // Empty headers ask for nothing (upstream checks lengths, not presence).
  if (!userHeader && groupHeaders.length === 0 && !uidHeader && extras.length === 0) return requester;
  if (!userHeader) {
    // Upstream: a BadRequest; groups, a uid or extras alone would graft onto nobody.
    throw badRequest(`requested impersonation of ${[groupHeaders.length ? 'groups' : '', uidHeader ? 'a uid' : '', extras.length ? 'user extras' : ''].filter(Boolean).join(', ')} without impersonating a user`);
  }
  const groupsSpecified = groupHeaders.length > 0;
  const checks: Array<Partial<Attributes>> = [];
  let groups: string[] = [];
  const sa = splitServiceAccount(userHeader);
  if (sa) {
    checks.push({ resource: 'serviceaccounts', namespace: sa.namespace, name: sa.name });
    if (!groupsSpecified) groups = serviceAccountGroups(sa.namespace);
  } else {
    checks.push({ resource: 'users', name: userHeader });
  }
  for (const g of groupHeaders) {
    checks.push({ resource: 'groups', name: g });
    groups.push(g);
  }
  const extra: Record<string, string[]> = {};
  for (const h of extras) {
    const key = unescapeExtraKey(h.slice(EXTRA_PREFIX.length));
    for (const value of all(rawHeaders, h)) {
      checks.push({ apiGroup: AUTHENTICATION_GROUP, resource: 'userextras', subresource: key, name: value });
      (extra[key] ??= []).push(value);
    }
  }
  if (uidHeader) checks.push({ apiGroup: AUTHENTICATION_GROUP, resource: 'uids', name: uidHeader });

  for (const c of checks) {
    const attrs: Attributes = {
      user: requester, verb: 'impersonate', resourceRequest: true, path: '', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '', ...c,
    };
    const d = await authz.authorize(attrs);
    if (!d.allowed) throw forbiddenError(attrs, d.reason);
  }
  // Upstream: an impersonated user is authenticated unless the groups say otherwise; the anonymous user is not.
  const username = sa ? serviceAccountUsername(sa.namespace, sa.name) : userHeader;
  if (username !== ANONYMOUS_USER) {
    if (!groups.includes(ALL_AUTHENTICATED) && !groups.includes(ALL_UNAUTHENTICATED)) groups.push(ALL_AUTHENTICATED);
  } else if (!groups.includes(ALL_UNAUTHENTICATED)) {
    groups.push(ALL_UNAUTHENTICATED);
  }
  return { name: username, ...(uidHeader ? { uid: uidHeader } : {}), groups, ...(Object.keys(extra).length ? { extra } : {}) };
}

function first(v: string | string[] | undefined): string {
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

/** Every value of a repeatable header, each occurrence separately (node joins them with ', ' in `headers`). */
function all(rawHeaders: readonly string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === name) out.push(rawHeaders[i + 1]!);
  return out;
}

function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}
