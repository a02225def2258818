// Who a request acts as (upstream k8s.io/apiserver/pkg/authentication/user): a name, a uid, groups
// and extra attributes, plus the well-known names the authenticators and authorizers agree on.

export interface UserInfo {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export const ANONYMOUS_USER = 'system:anonymous';
export const ALL_AUTHENTICATED = 'system:authenticated';
export const ALL_UNAUTHENTICATED = 'system:unauthenticated';
/** Members are allowed everything (upstream's privileged group authorizer, ahead of RBAC). */
export const SUPERUSER_GROUP = 'system:masters';

const SA_PREFIX = 'system:serviceaccount:';

/** `system:serviceaccount:<ns>:<name>` split, or undefined for any other user name (upstream serviceaccount.SplitUsername). */
export function splitServiceAccount(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SA_PREFIX)) return undefined;
  const parts = username.slice(SA_PREFIX.length).split(':');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { namespace: parts[0], name: parts[1] };
}

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SA_PREFIX}${namespace}:${name}`;
}

/** The groups every service account of a namespace is in (upstream serviceaccount.MakeGroupNames). */
export function serviceAccountGroups(namespace: string): string[] {
  return ['system:serviceaccounts', `system:serviceaccounts:${namespace}`];
}

/** `groups` with `group` appended unless already there. */
export function withGroup(groups: readonly string[], group: string): string[] {
  return groups.includes(group) ? [...groups] : [...groups, group];
}
