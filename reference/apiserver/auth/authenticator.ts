// Authentication as kube-apiserver configures it for a token file: a bearer-token authenticator
// over the static table, the `system:authenticated` group added to whoever it authenticates, and,
// when anonymous auth is on, the anonymous user for requests that carry no credentials at all. A
// token that was presented and not accepted is a failure even then (upstream union.NewFailOnError:
// a bad token is never treated as anonymous).
import type { IncomingMessage } from 'node:http';
import type { StaticToken } from './token-file.js';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS_USER, withGroup, type UserInfo } from './user.js';

export type AuthenticationResult = { readonly user: UserInfo } | { readonly failed: true };

export class TokenAuthenticator {
  private readonly byToken = new Map<string, UserInfo>();

  constructor(tokens: readonly StaticToken[], private readonly anonymous: boolean) {
    for (const t of tokens) {
      if (!t.token) throw new Error('auth.tokens: a token may not be empty');
      if (!t.user) throw new Error(`auth.tokens: the token of user ${JSON.stringify(t.user)} needs a user name`);
      this.byToken.set(t.token, { name: t.user, ...(t.uid ? { uid: t.uid } : {}), groups: withGroup(t.groups ?? [], ALL_AUTHENTICATED) });
    }
  }

  /** The user of a bearer token, as TokenReview asks; undefined for an unknown or empty one. */
  authenticateToken(token: string): UserInfo | undefined {
    return token ? this.byToken.get(token) : undefined;
  }

  authenticate(req: IncomingMessage): AuthenticationResult {
    const token = bearerToken(req.headers.authorization);
    if (token === undefined) {
      return this.anonymous ? { user: { name: ANONYMOUS_USER, groups: [ALL_UNAUTHENTICATED] } } : { failed: true };
    }
    const user = token ? this.byToken.get(token) : undefined;
    return user ? { user } : { failed: true };
  }
}

/**
 * The token of an `Authorization: Bearer <token>` header, split as upstream bearertoken does (on
 * single spaces): '' for `Bearer` followed by an empty token (invalid, not absent); undefined when
 * there is no bearer credential (no header, a bare `Bearer`, or another scheme, which this server
 * does not authenticate and so ignores).
 */
function bearerToken(header: string | undefined): string | undefined {
  const auth = (header ?? '').trim();
  if (!auth) return undefined;
  const parts = auth.split(' ');
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  return parts[1]!;
}
