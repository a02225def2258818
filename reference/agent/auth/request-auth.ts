// The agent's authentication and authorization filter (upstream kubelet's InstallAuthFilter): every
// request to its HTTPS port but health is authenticated (401 `Unauthorized` otherwise) and then
// authorized as `nodes/<subresource>` of its node (403 `Forbidden (...)` otherwise; 500 when the
// authorizer could not be asked), with the answers upstream's kubelet writes.
//
// Without a control plane (standalone mode) neither webhook can be asked, and the agent fails closed:
// bearer tokens authenticate no one (a request then counts as one without credentials: 401 unless
// anonymous authentication is on) and authorization mode Webhook denies everything (403). Upstream's
// kubelet refuses to start in that configuration; the spec's standalone mode (§1) must start, so this
// agent starts, warns once and serves only its health paths (or what anonymous AlwaysAllow permits).
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { broken } from '../breaks.js';
import { DelegatingAuthenticator } from '../../auth-delegation/authenticator.js';
import { AccessReviewer, TokenReviewer, type AccessAttributes, type AccessDecision, type ReviewClient } from '../../auth-delegation/reviews.js';
import { isOpenPath, subresourcesOf, verbOf } from './request-attributes.js';
import { AuthSettingsError, type AgentAuthSettings } from './settings.js';

export interface AuthRefusal {
  readonly status: 401 | 403 | 500;
  readonly body: string;
}

/** Decides whether a request may go on; undefined means it may. */
export interface RequestAuth {
  check(req: IncomingMessage, pathname: string): Promise<AuthRefusal | undefined>;
}

interface Authorizer {
  /** Throws when the decision could not be made (the control plane could not be asked). */
  authorize(a: AccessAttributes): Promise<AccessDecision>;
}

const ALWAYS_ALLOW: Authorizer = { authorize: async () => ({ allowed: true }) };
const DENY_ALL: Authorizer = { authorize: async () => ({ allowed: false, reason: 'no control plane to ask (standalone mode)' }) };

export interface AgentRequestAuth extends RequestAuth {
  /** PEM of the client CA, for the TLS server to request and verify client certificates with. */
  readonly clientCaPem?: string;
}

/**
 * The filter for `settings`. `api` asks the reviews (absent: standalone); `nodeName` is the name
 * requests are authorized against. Throws AuthSettingsError when the client CA file cannot be read.
 */
export function agentRequestAuth(o: { settings: AgentAuthSettings; api?: ReviewClient; nodeName: string; log?(msg: string): void; now?: () => number }): AgentRequestAuth {
  const s = o.settings;
  let clientCaPem: string | undefined;
  if (s.clientCaFile) {
    try {
      clientCaPem = readFileSync(s.clientCaFile, 'utf8');
    } catch (err) {
      throw new AuthSettingsError(`authentication.x509.clientCAFile: cannot read ${JSON.stringify(s.clientCaFile)}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
    if (!/-----BEGIN CERTIFICATE-----/.test(clientCaPem)) throw new AuthSettingsError(`authentication.x509.clientCAFile ${JSON.stringify(s.clientCaFile)}: no PEM certificate in it`);
  }
  if (!o.api && (s.webhook.enabled || s.authorization.mode === 'Webhook')) {
    const why = [
      ...(s.webhook.enabled ? ['bearer tokens cannot be checked (authentication.webhook) and authenticate no one'] : []),
      ...(s.authorization.mode === 'Webhook' ? ['authorization mode Webhook denies every request'] : []),
    ];
    o.log?.(`no control plane (standalone mode): ${why.join('; ')}; only /healthz, /livez and /readyz answer unless anonymous authentication and mode AlwaysAllow are configured`);
  }
  const tokens = s.webhook.enabled && o.api ? new TokenReviewer(o.api, s.webhook.cacheTtlMs, o.now) : undefined;
  const authenticator = new DelegatingAuthenticator({ x509: clientCaPem !== undefined, tokens, anonymous: s.anonymous, log: o.log });
  const authorizer: Authorizer = s.authorization.mode === 'AlwaysAllow' ? ALWAYS_ALLOW
    : o.api ? new AccessReviewer(o.api, s.authorization.cacheAuthorizedTtlMs, s.authorization.cacheUnauthorizedTtlMs, o.now) : DENY_ALL;

  return {
    clientCaPem,
    async check(req, pathname) {
      if (isOpenPath(pathname)) return undefined;
      // Test-only (breaks.ts): requests are served without authentication or authorization.
      if (broken('agent-authn-skipped')) return undefined;
      const who = await authenticator.authenticate(req);
      if ('failed' in who) return { status: 401, body: 'Unauthorized' };
      const verb = verbOf(req.method);
      const subresources = subresourcesOf(pathname);
      const what = `user=${who.user.name}, verb=${verb}, resource=nodes, subresource(s)=[${subresources.join(' ')}]`;
      for (const subresource of subresources) {
        let d: AccessDecision;
        try {
          d = await authorizer.authorize({ user: who.user, resourceAttributes: { verb, version: 'v1', resource: 'nodes', subresource, name: o.nodeName } });
        } catch (err) {
          o.log?.(`authorization error (${what}): ${(err as Error).message}`);
          return { status: 500, body: `Authorization error (${what})` };
        }
        if (d.allowed) return undefined;
      }
      return { status: 403, body: `Forbidden (${what})` };
    },
  };
}
