// The controller manager's and the scheduler's authentication and authorization filter, as upstream's
// components build theirs (DelegatingAuthenticationOptions, DelegatingAuthorizationOptions,
// genericapifilters.WithAuthentication/WithAuthorization): every request but health
// (--authorization-always-allow-paths /healthz, /readyz, /livez, and their checks here) is
// authenticated by delegation to the API server the component talks to (a bearer token: TokenReview;
// none: system:anonymous, anonymous authentication being on as upstream's default) and then authorized
// by a SubjectAccessReview of the non-resource request (verb = the method in lower case, path), unless
// the user is in system:masters (upstream's --authorization-always-allow-groups). A bad token is 401,
// a user without the right 403, with the Status bodies upstream's responsewriters write; a review the
// API server could not answer is 500 (authorization) or 401 (authentication), as upstream.
//
// The reviews are asked with the component's own client (its kubeconfig credentials): upstream's
// --authentication-kubeconfig and --authorization-kubeconfig, which this reference takes to be the
// component's kubeconfig. Answers are cached for upstream's component defaults (10 s each).
import type { IncomingMessage } from 'node:http';
import { DelegatingAuthenticator } from '../auth-delegation/authenticator.js';
import { isOpenPath } from '../auth-delegation/paths.js';
import { AccessReviewer, TokenReviewer, type AccessDecision, type ReviewClient } from '../auth-delegation/reviews.js';
import { forbiddenError, unauthorizedError } from '../apiserver/auth/responses.js';
import { SUPERUSER_GROUP } from '../apiserver/auth/user.js';
import type { Attributes } from '../apiserver/auth/request-info.js';

/** Upstream's defaults for components: --authentication-token-webhook-cache-ttl, --authorization-webhook-cache-{authorized,unauthorized}-ttl. */
export const COMPONENT_AUTH_CACHE_TTL_MS = { token: 10_000, allowed: 10_000, denied: 10_000 } as const;

/** Upstream's --authorization-always-allow-groups default: these groups skip the SubjectAccessReview. */
export const ALWAYS_ALLOW_GROUPS: readonly string[] = [SUPERUSER_GROUP];

export interface ComponentRefusal {
  readonly status: 401 | 403 | 500;
  readonly contentType: string;
  readonly body: string;
}

/** Decides whether a request may go on; undefined means it may. */
export interface ComponentRequestAuth {
  check(req: IncomingMessage, pathname: string): Promise<ComponentRefusal | undefined>;
}

const statusRefusal = (e: ReturnType<typeof unauthorizedError>): ComponentRefusal => ({
  status: e.code as 401 | 403,
  contentType: 'application/json',
  body: `${JSON.stringify(e.status)}\n`,
});

/** The filter for a component whose client of the API server is `api`. */
export function componentRequestAuth(o: { api: ReviewClient; log?(msg: string): void; now?: () => number }): ComponentRequestAuth {
  const ttl = COMPONENT_AUTH_CACHE_TTL_MS;
  // No client CA: the reference API server authenticates bearer tokens only, so there is no CA to
  // look up (upstream reads it from the extension-apiserver-authentication ConfigMap).
  const authenticator = new DelegatingAuthenticator({ x509: false, tokens: new TokenReviewer(o.api, ttl.token, o.now), anonymous: true, log: o.log });
  const authorizer = new AccessReviewer(o.api, ttl.allowed, ttl.denied, o.now);
  return {
    async check(req, pathname) {
      if (isOpenPath(pathname)) return undefined;
      const who = await authenticator.authenticate(req);
      if ('failed' in who) return statusRefusal(unauthorizedError());
      const user = who.user;
      if (user.groups.some((g) => ALWAYS_ALLOW_GROUPS.includes(g))) return undefined;
      const verb = (req.method ?? 'GET').toLowerCase();
      let d: AccessDecision;
      try {
        d = await authorizer.authorize({ user, nonResourceAttributes: { path: pathname, verb } });
      } catch (err) {
        o.log?.(`authorization error (user=${user.name}, verb=${verb}, path=${pathname}): ${(err as Error).message}`);
        // Upstream responsewriters.InternalError.
        return { status: 500, contentType: 'text/plain; charset=utf-8', body: `Internal Server Error: ${JSON.stringify(pathname)}: ${(err as Error).message}\n` };
      }
      if (d.allowed) return undefined;
      const attributes: Attributes = {
        user: { name: user.name, groups: [...user.groups] }, verb, resourceRequest: false, path: pathname,
        apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '',
      };
      return statusRefusal(forbiddenError(attributes, d.reason ?? ''));
    },
  };
}
