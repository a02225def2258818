// The authentication, impersonation and authorization filter, run ahead of routing for every path
// (API, discovery, metrics and debug endpoints alike), in upstream's order: authenticate (401 on
// failure), impersonate (403 unless allowed), authorize the request as the resulting user (403).
// Also the server's authenticator and authorizer themselves, which the review kinds use too.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { internal, isStatusError, type StatusError } from '../errors.js';
import type { Registry } from '../registry.js';
import { storageFailure } from '../storage-failure.js';
import { TokenAuthenticator } from './authenticator.js';
import { alwaysAllow, RbacAuthorizer, type AuthorizationMode, type Authorizer } from './authorizer.js';
import { impersonate, wantsImpersonation } from './impersonation.js';
import { requestInfo } from './request-info.js';
import { forbiddenError, unauthorizedError } from './responses.js';
import type { StaticToken } from './token-file.js';
import { ANONYMOUS_USER, ALL_UNAUTHENTICATED, type UserInfo } from './user.js';

/** What `startReference({auth})` takes: the static token table and the authorization mode. */
export interface AuthOptions {
  readonly tokens: readonly StaticToken[];
  /** Default AlwaysAllow. */
  readonly authorizationMode?: AuthorizationMode;
  /** Requests without credentials act as system:anonymous (default true, as upstream), else 401. */
  readonly anonymous?: boolean;
}

export const AUTHORIZATION_MODES: readonly AuthorizationMode[] = ['AlwaysAllow', 'RBAC'];

export interface ServerAuth {
  readonly authenticator: TokenAuthenticator;
  readonly authorizer: Authorizer;
}

/**
 * The server's authenticator (the token table plus its companions' tokens) and its authorizer.
 * Without `opts` the table holds only the companions' tokens and everything is allowed. The node
 * proxy's identity towards agents is a client certificate (agent-client-cert.ts), never a token here:
 * a Node's address is whatever its writer put there, and a token sent there could be replayed.
 */
export function serverAuth(opts: AuthOptions | undefined, registry: Registry, systemTokens: readonly StaticToken[] = []): ServerAuth {
  const mode = opts?.authorizationMode ?? 'AlwaysAllow';
  if (!AUTHORIZATION_MODES.includes(mode)) throw new Error(`auth.authorizationMode: unknown mode ${JSON.stringify(mode)}; want one of ${AUTHORIZATION_MODES.join(', ')}`);
  // The server's own entries last: a table row with the same token (vanishingly unlikely) must not shadow them.
  return {
    authenticator: new TokenAuthenticator([...(opts?.tokens ?? []), ...systemTokens], opts?.anonymous ?? true),
    authorizer: mode === 'RBAC' ? new RbacAuthorizer(registry) : alwaysAllow,
  };
}

/** Who each admitted request acts as (after impersonation), for handlers that need it. */
const requestUsers = new WeakMap<IncomingMessage, UserInfo>();

/**
 * The user a request acts as. Without the filter nothing is authenticated: the request is then
 * system:anonymous, as upstream's AlwaysAllow server with anonymous auth would see it.
 */
export function requestUser(req: IncomingMessage): UserInfo {
  return requestUsers.get(req) ?? { name: ANONYMOUS_USER, groups: [ALL_UNAUTHENTICATED] };
}

export function withAuth(auth: ServerAuth, next: RequestListener, log: (message: string, err?: unknown) => void): RequestListener {
  const { authenticator: authn, authorizer: authz } = auth;

  const admit = async (req: IncomingMessage): Promise<UserInfo> => {
    const result = authn.authenticate(req);
    if ('failed' in result) throw unauthorizedError();
    const user = wantsImpersonation(req.headers) ? await impersonate(result.user, req.headers, req.rawHeaders, authz) : result.user;
    const attrs = { ...requestInfo(req.method ?? 'GET', req.url ?? '/'), user };
    const d = await authz.authorize(attrs);
    if (!d.allowed) throw forbiddenError(attrs, d.reason);
    return user;
  };

  return (req: IncomingMessage, res: ServerResponse) => {
    admit(req).then(
      (user) => {
        requestUsers.set(req, user);
        next(req, res);
      },
      (err: unknown) => {
        let se: StatusError;
        if (isStatusError(err)) se = err;
        else if (storageFailure(err)) se = storageFailure(err)!;
        else {
          log(`authorizing ${req.method} ${req.url} failed`, err);
          se = internal(err);
        }
        const text = `${JSON.stringify(se.status)}\n`;
        res.writeHead(se.code, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Content-Length': String(Buffer.byteLength(text)) });
        res.end(text);
        // The body is never read: drop it rather than let it sit in the socket's buffers.
        req.resume();
      },
    );
  };
}
