// The review kinds (upstream authentication.k8s.io/v1 and authorization.k8s.io/v1, renamed): TokenReview,
// SelfSubjectReview, SubjectAccessReview, SelfSubjectAccessReview and SelfSubjectRulesReview. Cluster-scoped, create only,
// never stored: a POST is answered with the object it sent plus a computed status (the evaluation
// is reference/apiserver/auth/reviews.ts). Shapes and validation follow upstream's types and
// pkg/apis/authorization/validation.
import { fieldErrors, path, type FieldError } from '../apiserver/field-errors.js';
import { isPlainObject, t } from '../apiserver/schema.js';
import { defineStrategy, type ApiObject } from '../apiserver/strategy.js';

export const AUTHENTICATION_GROUP = 'authentication.orch.io';
export const AUTHORIZATION_GROUP = 'authorization.orch.io';

const userInfoSchema = t.object({
  username: t.string(),
  uid: t.string(),
  groups: t.array(t.string()),
  extra: t.map(t.array(t.string())),
});

const resourceAttributesSchema = t.object({
  namespace: t.string(),
  verb: t.string(),
  group: t.string(),
  version: t.string(),
  resource: t.string(),
  subresource: t.string(),
  name: t.string(),
});

const nonResourceAttributesSchema = t.object({ path: t.string(), verb: t.string() });

const accessReviewStatusSchema = t.object({
  allowed: t.boolean(),
  denied: t.boolean(),
  reason: t.string(),
  evaluationError: t.string(),
});

/** What every review kind shares: cluster-scoped, create only, not stored. */
const REVIEW = {
  version: 'v1',
  namespaced: false,
  hasStatus: false,
  verbs: ['create'],
  notStored: true,
  deleteResponse: 'status',
} as const;

export const tokenReviewStrategy = defineStrategy({
  ...REVIEW,
  group: AUTHENTICATION_GROUP,
  kind: 'TokenReview',
  resource: 'tokenreviews',
  singular: 'tokenreview',
  schema: {
    spec: t.object({ token: t.string(), audiences: t.array(t.string()) }),
    status: t.object({ authenticated: t.boolean(), user: userInfoSchema, audiences: t.array(t.string()), error: t.string() }),
  },
  // Upstream validates nothing but the token's presence, which its REST storage answers with 400.
  validate: (): FieldError[] => [],
});

export const selfSubjectReviewStrategy = defineStrategy({
  ...REVIEW,
  group: AUTHENTICATION_GROUP,
  kind: 'SelfSubjectReview',
  resource: 'selfsubjectreviews',
  singular: 'selfsubjectreview',
  schema: { status: t.object({ userInfo: userInfoSchema }) },
  validate: (): FieldError[] => [],
});

interface AccessReviewSpec {
  resourceAttributes?: Record<string, string>;
  nonResourceAttributes?: Record<string, string>;
  user?: string;
  groups?: string[];
}

/** Upstream: exactly one of resourceAttributes and nonResourceAttributes. */
function attributesErrors(spec: AccessReviewSpec): FieldError[] {
  const at = path('spec');
  if (spec.resourceAttributes && spec.nonResourceAttributes) {
    return [fieldErrors.invalid(at.child('nonResourceAttributes'), spec.nonResourceAttributes, 'cannot be specified in combination with resourceAttributes')];
  }
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) {
    return [fieldErrors.invalid(at.child('resourceAttributes'), spec.nonResourceAttributes, 'exactly one of nonResourceAttributes or resourceAttributes must be specified')];
  }
  return [];
}

/** Upstream: a review's metadata must be empty (managedFields aside); empty maps and lists count as empty. */
function metadataErrors(o: ApiObject): FieldError[] {
  const set = Object.entries(o.metadata ?? {}).filter(([k, v]) => k !== 'managedFields' && !isEmpty(v));
  return set.length ? [fieldErrors.invalid('metadata', o.metadata, 'must be empty')] : [];
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isPlainObject(v) && Object.keys(v).length === 0;
}

const specOf = (o: ApiObject): AccessReviewSpec => (o['spec'] ?? {}) as AccessReviewSpec;

export const subjectAccessReviewStrategy = defineStrategy({
  ...REVIEW,
  group: AUTHORIZATION_GROUP,
  kind: 'SubjectAccessReview',
  resource: 'subjectaccessreviews',
  singular: 'subjectaccessreview',
  schema: {
    spec: t.object({
      resourceAttributes: resourceAttributesSchema,
      nonResourceAttributes: nonResourceAttributesSchema,
      user: t.string(),
      groups: t.array(t.string()),
      extra: t.map(t.array(t.string())),
      uid: t.string(),
    }),
    status: accessReviewStatusSchema,
  },
  validate(o: ApiObject): FieldError[] {
    const spec = specOf(o);
    const errs = attributesErrors(spec);
    if (!spec.user && !spec.groups?.length) errs.push(fieldErrors.invalid(path('spec').child('user'), spec.user ?? '', 'at least one of user or group must be specified'));
    return [...errs, ...metadataErrors(o)];
  },
});

export const selfSubjectAccessReviewStrategy = defineStrategy({
  ...REVIEW,
  group: AUTHORIZATION_GROUP,
  kind: 'SelfSubjectAccessReview',
  resource: 'selfsubjectaccessreviews',
  singular: 'selfsubjectaccessreview',
  schema: {
    spec: t.object({ resourceAttributes: resourceAttributesSchema, nonResourceAttributes: nonResourceAttributesSchema }),
    status: accessReviewStatusSchema,
  },
  validate: (o: ApiObject): FieldError[] => [...attributesErrors(specOf(o)), ...metadataErrors(o)],
});

export const selfSubjectRulesReviewStrategy = defineStrategy({
  ...REVIEW,
  group: AUTHORIZATION_GROUP,
  kind: 'SelfSubjectRulesReview',
  resource: 'selfsubjectrulesreviews',
  singular: 'selfsubjectrulesreview',
  schema: {
    spec: t.object({ namespace: t.string() }),
    status: t.object({
      resourceRules: t.array(t.object({ verbs: t.array(t.string()), apiGroups: t.array(t.string()), resources: t.array(t.string()), resourceNames: t.array(t.string()) })),
      nonResourceRules: t.array(t.object({ verbs: t.array(t.string()), nonResourceURLs: t.array(t.string()) })),
      incomplete: t.boolean(),
      evaluationError: t.string(),
    }),
  },
  // Upstream's REST storage answers a missing namespace with 400 (reviews.ts); nothing else is checked.
  validate: (): FieldError[] => [],
});

export const REVIEW_STRATEGIES = [tokenReviewStrategy, selfSubjectReviewStrategy, subjectAccessReviewStrategy, selfSubjectAccessReviewStrategy, selfSubjectRulesReviewStrategy];
