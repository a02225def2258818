// How the agent authenticates and authorizes requests to its HTTPS port, from the `authentication`
// and `authorization` keys of its configuration (spec 001 §2.3; upstream KubeletConfiguration's
// KubeletAuthentication and KubeletAuthorization) and upstream's flags --anonymous-auth,
// --authentication-token-webhook, --client-ca-file and --authorization-mode, which win over the file.
import { parseGoDuration } from '../config/go-duration.js';
import type { AgentConfiguration } from '../config/configuration.js';

export type AuthorizationMode = 'AlwaysAllow' | 'Webhook';
export const AUTHORIZATION_MODES: readonly AuthorizationMode[] = ['AlwaysAllow', 'Webhook'];

export interface AgentAuthSettings {
  /** PEM file of the CA that client certificates must chain to; absent: no x509 authentication. */
  clientCaFile?: string;
  /** Bearer tokens checked with TokenReview; answers cached this long (ms). */
  webhook: { enabled: boolean; cacheTtlMs: number };
  /** Requests without credentials act as system:anonymous. */
  anonymous: boolean;
  authorization: { mode: AuthorizationMode; cacheAuthorizedTtlMs: number; cacheUnauthorizedTtlMs: number };
}

/** Upstream's v1beta1 defaults: webhook authentication on (2m cache), anonymous off, mode Webhook (5m / 30s). */
export const DEFAULT_AUTH_SETTINGS: AgentAuthSettings = {
  webhook: { enabled: true, cacheTtlMs: 120_000 },
  anonymous: false,
  authorization: { mode: 'Webhook', cacheAuthorizedTtlMs: 300_000, cacheUnauthorizedTtlMs: 30_000 },
};

/** A setting the agent cannot start with; the message names the key. */
export class AuthSettingsError extends Error {
  override readonly name = 'AuthSettingsError';
}

function ttlMs(value: string | undefined, key: string, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const ns = parseGoDuration(value);
  if (typeof ns !== 'number') throw new AuthSettingsError(`${key}: ${ns.error}`);
  if (ns < 0) throw new AuthSettingsError(`${key} (${value}) must not be negative`);
  return ns / 1e6;
}

/** The settings of a merged configuration (defaults already filled by the loader; filled here too for partial ones). */
export function authSettingsOf(cfg: Pick<AgentConfiguration, 'authentication' | 'authorization'>): AgentAuthSettings {
  const authn = cfg.authentication ?? {};
  const authz = cfg.authorization ?? {};
  const mode = authz.mode ?? DEFAULT_AUTH_SETTINGS.authorization.mode;
  if (!(AUTHORIZATION_MODES as readonly string[]).includes(mode)) {
    // Upstream's validation: "authorization.mode: Unsupported value".
    throw new AuthSettingsError(`authorization.mode: unsupported value ${JSON.stringify(mode)}: supported values: "AlwaysAllow", "Webhook"`);
  }
  const d = DEFAULT_AUTH_SETTINGS;
  return {
    ...(authn.x509?.clientCAFile ? { clientCaFile: authn.x509.clientCAFile } : {}),
    webhook: {
      enabled: authn.webhook?.enabled ?? d.webhook.enabled,
      cacheTtlMs: ttlMs(authn.webhook?.cacheTTL, 'authentication.webhook.cacheTTL', d.webhook.cacheTtlMs),
    },
    anonymous: authn.anonymous?.enabled ?? d.anonymous,
    authorization: {
      mode: mode as AuthorizationMode,
      cacheAuthorizedTtlMs: ttlMs(authz.webhook?.cacheAuthorizedTTL, 'authorization.webhook.cacheAuthorizedTTL', d.authorization.cacheAuthorizedTtlMs),
      cacheUnauthorizedTtlMs: ttlMs(authz.webhook?.cacheUnauthorizedTTL, 'authorization.webhook.cacheUnauthorizedTTL', d.authorization.cacheUnauthorizedTtlMs),
    },
  };
}

/** Upstream's authentication and authorization flags; undefined leaves the configuration's value. */
export interface AuthFlags {
  anonymousAuth?: boolean;
  authenticationTokenWebhook?: boolean;
  clientCaFile?: string;
  authorizationMode?: string;
}

/**
 * The configuration with the flags applied field by field (a flag sets one nested key and leaves its
 * siblings, as upstream's flags bound to KubeletConfiguration fields do), so /configz shows them.
 */
export function withAuthFlags<T extends Pick<AgentConfiguration, 'authentication' | 'authorization'>>(cfg: T, f: AuthFlags): T {
  const authn = structuredClone(cfg.authentication ?? {});
  const authz = structuredClone(cfg.authorization ?? {});
  if (f.anonymousAuth !== undefined) authn.anonymous = { ...authn.anonymous, enabled: f.anonymousAuth };
  if (f.authenticationTokenWebhook !== undefined) authn.webhook = { ...authn.webhook, enabled: f.authenticationTokenWebhook };
  if (f.clientCaFile !== undefined) authn.x509 = { ...authn.x509, clientCAFile: f.clientCaFile };
  if (f.authorizationMode !== undefined) authz.mode = f.authorizationMode;
  return { ...cfg, authentication: authn, authorization: authz };
}
