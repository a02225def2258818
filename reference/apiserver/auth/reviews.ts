// The answers of the review kinds (reference/resources/reviews.ts), computed with this server's own
// authenticator and authorizer as upstream's REST storages do: TokenReview authenticates the token
// in the spec (registry/authentication/tokenreview), SelfSubjectReview tells the requester who they
// are, SubjectAccessReview decides for the user in the spec and SelfSubjectAccessReview for the
// requester, SelfSubjectRulesReview lists what the requester may do in a namespace
// (registry/authorization/*). Nothing is stored.
import { badRequest } from '../errors.js';
import type { ApiObject, ResolvedStrategy } from '../strategy.js';
import { nowRFC3339 } from '../store.js';
import { AUTHENTICATION_GROUP, AUTHORIZATION_GROUP } from '../../resources/reviews.js';
import { aggregateMessages, type Authorizer } from './authorizer.js';
import type { PolicyRule } from '../../resources/rbac.js';
import type { Attributes } from './request-info.js';
import type { UserInfo } from './user.js';

/**
 * The audiences this server's own tokens are good for (upstream --api-audiences, which defaults to
 * the service account issuer; kubeadm's issuer, renamed). Static tokens are audience-agnostic and
 * count as valid for exactly these, as upstream's WrapAudienceAgnosticToken makes them.
 */
export const API_AUDIENCES: readonly string[] = ['https://orch.default.svc.cluster.local'];

/** Upstream bearertoken's error for a token no authenticator accepts. */
const INVALID_TOKEN = 'invalid bearer token';

export interface ReviewAuth {
  /** The user a bearer token authenticates as, else undefined. */
  authenticateToken(token: string): UserInfo | undefined;
  readonly authorizer: Authorizer;
  /**
   * The rules a user holds in a namespace (RBAC's rule resolver) and the messages of roles that could
   * not be resolved; absent when the server authorizes everything (AlwaysAllow).
   */
  readonly ruleResolver?: { rulesFor(user: UserInfo, namespace: string): Promise<{ rules: PolicyRule[]; errors: string[] }> };
}

/** What AlwaysAllow holds (upstream's alwaysAllowAuthorizer RulesFor). */
const EVERYTHING = { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] };

type Json = Record<string, unknown>;

export class Reviews {
  constructor(private readonly auth: ReviewAuth) {}

  /** The object to answer a create of `obj` (validated already) with, as `requester`. */
  async answer(s: ResolvedStrategy, obj: ApiObject, requester: UserInfo): Promise<ApiObject> {
    switch (`${s.kind}.${s.group}`) {
      case `TokenReview.${AUTHENTICATION_GROUP}`:
        return { ...obj, status: this.tokenReview((obj['spec'] ?? {}) as Json) };
      case `SelfSubjectReview.${AUTHENTICATION_GROUP}`:
        // Upstream builds a fresh object: nothing of the request but its type comes back.
        return { apiVersion: obj.apiVersion, kind: obj.kind, metadata: { creationTimestamp: nowRFC3339() }, status: { userInfo: userInfo(requester) } };
      case `SubjectAccessReview.${AUTHORIZATION_GROUP}`: {
        const spec = (obj['spec'] ?? {}) as Json;
        const subject: UserInfo = {
          name: str(spec['user']),
          groups: (spec['groups'] as string[] | undefined) ?? [],
          ...(spec['uid'] ? { uid: str(spec['uid']) } : {}),
          ...(spec['extra'] ? { extra: spec['extra'] as Record<string, string[]> } : {}),
        };
        return { ...obj, status: await this.decide(subject, spec) };
      }
      case `SelfSubjectAccessReview.${AUTHORIZATION_GROUP}`:
        return { ...obj, status: await this.decide(requester, (obj['spec'] ?? {}) as Json) };
      case `SelfSubjectRulesReview.${AUTHORIZATION_GROUP}`: {
        const namespace = str(((obj['spec'] ?? {}) as Json)['namespace']);
        if (!namespace) throw badRequest('no namespace on request');
        // Upstream answers with the status alone (the spec is not echoed).
        return { apiVersion: obj.apiVersion, kind: obj.kind, metadata: { creationTimestamp: null }, spec: {}, status: await this.rules(requester, namespace) } as unknown as ApiObject;
      }
      default:
        throw new Error(`no review answers ${s.kind}.${s.group}`);
    }
  }

  private tokenReview(spec: Json): Json {
    const token = str(spec['token']);
    if (!token) throw badRequest('token is required for TokenReview in authentication');
    const asked = (spec['audiences'] as string[] | undefined) ?? [];
    const audiences = asked.length ? API_AUDIENCES.filter((a) => asked.includes(a)) : [...API_AUDIENCES];
    const user = audiences.length ? this.auth.authenticateToken(token) : undefined;
    // Upstream omits a false `authenticated`; it is written here so that readers need not know that.
    if (!user) return { authenticated: false, user: {}, error: INVALID_TOKEN };
    return { authenticated: true, user: userInfo(user), audiences };
  }

  /**
   * Upstream's union of RulesFor, which has only the mode's rule resolvers: AlwaysAllow holds
   * everything; under RBAC, the RBAC rules in the namespace. The privileged-group authorizer that
   * lets system:masters do anything is no rule resolver upstream: a member's rules are those of the
   * bindings naming the group (the built-in cluster-admin binding), listed once. Roles that could not
   * be resolved make the list incomplete and are named in evaluationError.
   */
  private async rules(user: UserInfo, namespace: string): Promise<Json> {
    const resolver = this.auth.ruleResolver;
    if (!resolver) return { ...EVERYTHING, incomplete: false };
    const { rules, errors } = await resolver.rulesFor(user, namespace);
    const resourceRules = rules.filter((r) => !r.nonResourceURLs?.length).map((r) => ({
      verbs: r.verbs ?? [], apiGroups: r.apiGroups ?? [], resources: r.resources ?? [], ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}),
    }));
    const nonResourceRules = rules.filter((r) => r.nonResourceURLs?.length).map((r) => ({ verbs: r.verbs ?? [], nonResourceURLs: r.nonResourceURLs! }));
    return { resourceRules, nonResourceRules, incomplete: errors.length > 0, ...(errors.length ? { evaluationError: aggregateMessages(errors) } : {}) };
  }

  private async decide(user: UserInfo, spec: Json): Promise<Json> {
    const d = await this.auth.authorizer.authorize(attributesFor(user, spec));
    // This server's authorizers allow or have no opinion; neither denies outright (`denied`) or fails to evaluate.
    return { allowed: d.allowed, ...(d.reason ? { reason: d.reason } : {}) };
  }
}

/** Upstream authorizationutil.ResourceAttributesFrom / NonResourceAttributesFrom (an empty version matches all). */
function attributesFor(user: UserInfo, spec: Json): Attributes {
  const ra = spec['resourceAttributes'] as Record<string, string> | undefined;
  if (ra) {
    return {
      user, verb: ra['verb'] ?? '', resourceRequest: true, path: '', apiGroup: ra['group'] ?? '', apiVersion: ra['version'] || '*',
      namespace: ra['namespace'] ?? '', resource: ra['resource'] ?? '', subresource: ra['subresource'] ?? '', name: ra['name'] ?? '',
    };
  }
  const nra = (spec['nonResourceAttributes'] ?? {}) as Record<string, string>;
  return { user, verb: nra['verb'] ?? '', resourceRequest: false, path: nra['path'] ?? '', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' };
}

/** authentication/v1 UserInfo, with Go's omitempty. */
function userInfo(u: UserInfo): Json {
  return {
    username: u.name,
    ...(u.uid ? { uid: u.uid } : {}),
    ...(u.groups.length ? { groups: [...u.groups] } : {}),
    ...(u.extra && Object.keys(u.extra).length ? { extra: u.extra } : {}),
  };
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
