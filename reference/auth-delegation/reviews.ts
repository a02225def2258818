// A component's delegated checks (the node agent's, the controller manager's, the scheduler's), asked
// of the control plane through the component's own API client (its kubeconfig credentials), as
// upstream's delegating authenticator and authorizer do: a TokenReview
// for a bearer token, a SubjectAccessReview for a request's attributes. Answers are cached (keyed by a
// hash of the token, never the token itself; by the review's spec for access); failures to ask are
// not cached, so the next request asks again.
import { createHash } from 'node:crypto';
import { TtlCache } from './ttl-cache.js';

export const TOKEN_REVIEWS_PATH = '/apis/authentication.orch.io/v1/tokenreviews';
export const SUBJECT_ACCESS_REVIEWS_PATH = '/apis/authorization.orch.io/v1/subjectaccessreviews';

/** What the reviews need of an API client (the components' ApiClient has it). */
export interface ReviewClient {
  create<T = any>(collectionPath: string, obj: unknown): Promise<T>;
}

export interface DelegatedUser {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export type TokenAnswer = { readonly user: DelegatedUser } | { readonly rejected: string };

/** TokenReview webhook: a token's user, or why it was rejected; throws when the control plane cannot be asked. */
export class TokenReviewer {
  private readonly cache: TtlCache<TokenAnswer>;

  constructor(private readonly api: ReviewClient, private readonly ttlMs: number, now?: () => number) {
    this.cache = new TtlCache<TokenAnswer>(4096, now);
  }

  async review(token: string): Promise<TokenAnswer> {
    const key = createHash('sha256').update(token).digest('hex');
    const hit = this.cache.get(key);
    if (hit) return hit;
    const res = await this.api.create<any>(TOKEN_REVIEWS_PATH, {
      apiVersion: 'authentication.orch.io/v1', kind: 'TokenReview', metadata: {}, spec: { token },
    });
    const st = res?.status ?? {};
    let answer: TokenAnswer;
    if (st.authenticated === true && typeof st.user?.username === 'string' && st.user.username !== '') {
      answer = { user: { name: st.user.username, ...(st.user.uid ? { uid: String(st.user.uid) } : {}), groups: Array.isArray(st.user.groups) ? st.user.groups.map(String) : [], ...(st.user.extra ? { extra: st.user.extra } : {}) } };
    } else {
      answer = { rejected: typeof st.error === 'string' && st.error ? st.error : 'token rejected' };
    }
    // Upstream caches successes and failures alike for cacheTTL.
    this.cache.set(key, answer, this.ttlMs);
    return answer;
  }
}

/**
 * What a request is authorized as (a SubjectAccessReview's spec without the user): a resource (the
 * agent's `nodes/<subresource>` of its node) or a non-resource path and verb (the companions').
 */
export interface AccessAttributes {
  readonly user: DelegatedUser;
  readonly resourceAttributes?: { readonly verb: string; readonly group?: string; readonly version?: string; readonly resource: string; readonly subresource?: string; readonly name?: string; readonly namespace?: string };
  readonly nonResourceAttributes?: { readonly path: string; readonly verb: string };
}

export type AccessDecision = { readonly allowed: boolean; readonly reason?: string };

/** SubjectAccessReview webhook: allowed answers cached for one TTL, the others for another. */
export class AccessReviewer {
  private readonly cache: TtlCache<AccessDecision>;

  constructor(private readonly api: ReviewClient, private readonly allowTtlMs: number, private readonly denyTtlMs: number, now?: () => number) {
    this.cache = new TtlCache<AccessDecision>(4096, now);
  }

  async authorize(a: AccessAttributes): Promise<AccessDecision> {
    const spec = {
      user: a.user.name,
      ...(a.user.uid ? { uid: a.user.uid } : {}),
      groups: [...a.user.groups],
      ...(a.user.extra ? { extra: a.user.extra } : {}),
      ...(a.resourceAttributes ? { resourceAttributes: a.resourceAttributes } : {}),
      ...(a.nonResourceAttributes ? { nonResourceAttributes: a.nonResourceAttributes } : {}),
    };
    const key = JSON.stringify(spec);
    const hit = this.cache.get(key);
    if (hit) return hit;
    const res = await this.api.create<any>(SUBJECT_ACCESS_REVIEWS_PATH, {
      apiVersion: 'authorization.orch.io/v1', kind: 'SubjectAccessReview', metadata: {}, spec,
    });
    const st = res?.status ?? {};
    const decision: AccessDecision = { allowed: st.allowed === true, ...(typeof st.reason === 'string' && st.reason ? { reason: st.reason } : {}) };
    this.cache.set(key, decision, decision.allowed ? this.allowTtlMs : this.denyTtlMs);
    return decision;
  }
}
