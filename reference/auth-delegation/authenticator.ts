// Who a request to a component's HTTPS port comes from, as upstream's delegating authenticator
// (DelegatingAuthenticatorConfig) decides it for the kubelet, the controller manager and the
// scheduler: a client certificate verified against the client CA (user = CN, groups = O) or a bearer
// token checked with a TokenReview, whichever succeeds; every user they
// authenticate is also in `system:authenticated`. With anonymous authentication on, a request that
// presents no credentials is `system:anonymous` in `system:unauthenticated`; credentials that were
// presented and failed are a failure even then (upstream union.NewFailOnError).
import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { DelegatedUser, TokenReviewer } from './reviews.js';

export const ANONYMOUS_USER = 'system:anonymous';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';
export const AUTHENTICATED_GROUP = 'system:authenticated';

const CLIENT_AUTH_EKU = '1.3.6.1.5.5.7.3.2';
const ANY_EKU = '2.5.29.37.0';

export type Authentication = { readonly user: DelegatedUser } | { readonly failed: string };

export interface AuthenticatorOptions {
  /** Client certificates are verified by the TLS server against the client CA; this only reads the verdict. */
  x509: boolean;
  /** Absent: bearer tokens are not authenticated (webhook off, or no control plane to ask). */
  tokens?: TokenReviewer;
  anonymous: boolean;
  /** Where failures to ask the control plane are reported. */
  log?(msg: string): void;
}

/**
 * The token of an `Authorization: Bearer <token>` header, split as upstream's bearertoken does:
 * undefined when there is no bearer credential (no header, another scheme, an empty token).
 */
export function bearerToken(header: string | undefined): string | undefined {
  const auth = (header ?? '').trim();
  if (!auth) return undefined;
  const parts = auth.split(' ');
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  return parts[1] || undefined;
}

const asList = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The user of a verified client certificate, an error for a presented certificate that is not good, undefined when none was presented. */
function certificateUser(req: IncomingMessage): { user: DelegatedUser } | { error: string } | undefined {
  const socket = req.socket as TLSSocket;
  if (typeof socket.getPeerCertificate !== 'function') return undefined;
  const cert = socket.getPeerCertificate();
  if (!cert || Object.keys(cert).length === 0) return undefined;
  if (!socket.authorized) return { error: `verifying certificate failed: ${String(socket.authorizationError ?? 'not signed by the client CA')}` };
  // Go's x509 verification with ExtKeyUsageClientAuth: a certificate without the extension is good for any use.
  const eku = new X509Certificate(cert.raw).keyUsage;
  if (eku && !eku.includes(CLIENT_AUTH_EKU) && !eku.includes(ANY_EKU)) return { error: 'verifying certificate failed: not valid for client authentication' };
  const cn = cert.subject?.CN;
  const name = Array.isArray(cn) ? cn[0] : cn;
  // Upstream's CommonNameUserConversion: no common name, no user (and no error).
  if (!name) return undefined;
  return { user: { name, groups: asList(cert.subject?.O) } };
}

export class DelegatingAuthenticator {
  constructor(private readonly o: AuthenticatorOptions) {}

  async authenticate(req: IncomingMessage): Promise<Authentication> {
    const errors: string[] = [];
    const authenticated = (u: DelegatedUser): Authentication => ({ user: u.groups.includes(AUTHENTICATED_GROUP) ? u : { ...u, groups: [...u.groups, AUTHENTICATED_GROUP] } });
    if (this.o.x509) {
      const c = certificateUser(req);
      if (c && 'user' in c) return authenticated(c.user);
      if (c) errors.push(c.error);
    }
    const token = this.o.tokens ? bearerToken(req.headers.authorization) : undefined;
    if (token !== undefined) {
      try {
        const answer = await this.o.tokens!.review(token);
        if ('user' in answer) return authenticated(answer.user);
        errors.push('invalid bearer token');
      } catch (err) {
        this.o.log?.(`cannot authenticate a request: TokenReview failed: ${(err as Error).message}`);
        errors.push(`TokenReview failed: ${(err as Error).message}`);
      }
    }
    if (errors.length) return { failed: errors.join('; ') };
    if (this.o.anonymous) return { user: { name: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] } };
    return { failed: 'no credentials' };
  }
}
