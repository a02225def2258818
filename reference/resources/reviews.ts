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

const userInfoSchema = t.object(
  {
    username: t.string('Name of the user.'),
    uid: t.string('Unique identifier of the user, stable across name changes.'),
    groups: t.array(t.string(), 'Groups the user belongs to.'),
    extra: t.map(t.array(t.string()), 'Further information the authenticator provided, by key.'),
  },
  'Who a user is, as an authenticator sees them.',
);

const resourceAttributesSchema = t.object(
  {
    namespace: t.string('Namespace of the request; empty for cluster-scoped resources or all namespaces.'),
    verb: t.string('Verb of the request (get, list, create, ...; * for all).'),
    group: t.string('API group of the resource (* for all).'),
    version: t.string('API version of the resource (* for all).'),
    resource: t.string('Resource (plural name; * for all).'),
    subresource: t.string('Subresource, such as status; empty for the resource itself.'),
    name: t.string('Name of the object; empty for all.'),
  },
  'The resource request whose authorization is asked about.',
);

const nonResourceAttributesSchema = t.object(
  { path: t.string('URL path of the request.'), verb: t.string('HTTP verb of the request, lowercase.') },
  'The non-resource request whose authorization is asked about.',
);

const accessReviewStatusSchema = t.object(
  {
    allowed: t.boolean('Whether the request is allowed.'),
    denied: t.boolean('Whether the request is explicitly denied (a request neither allowed nor denied is not allowed either).'),
    reason: t.string('Why the request is allowed or denied, when the authorizer says.'),
    evaluationError: t.string('An error met while evaluating the request; the answer may still be right.'),
  },
  'The answer of the authorizer.',
  ['allowed'],
);

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
  description: 'Asks the server to authenticate a bearer token; the answer is the user it stands for.',
  required: ['spec'],
  schema: {
    spec: t.object(
      {
        token: t.string('The bearer token to authenticate.'),
        audiences: t.array(t.string(), 'Audiences the token must be valid for; empty means the server\'s own.'),
      },
      'The token to review.',
    ),
    status: t.object(
      {
        authenticated: t.boolean('Whether the token is valid.'),
        user: t.describe(userInfoSchema, 'The user the token stands for.'),
        audiences: t.array(t.string(), 'Audiences, of those asked for, the token is valid for.'),
        error: t.string('Why the token could not be authenticated.'),
      },
      'The result, computed by the server.',
    ),
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
  description: 'Asks the server who the requester is: the answer carries the user the request was authenticated as.',
  schema: {
    status: t.object({ userInfo: t.describe(userInfoSchema, 'The requesting user.') }, 'The result, computed by the server.'),
  },
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
  description: 'Asks whether a given user may perform a request.',
  required: ['spec'],
  schema: {
    spec: t.object(
      {
        resourceAttributes: resourceAttributesSchema,
        nonResourceAttributes: nonResourceAttributesSchema,
        user: t.string('The user asked about. At least one of user and groups.'),
        groups: t.array(t.string(), 'Groups of the user asked about.'),
        extra: t.map(t.array(t.string()), 'Further information about the user, by key.'),
        uid: t.string('UID of the user asked about.'),
      },
      'The request and the user asked about; exactly one of resourceAttributes and nonResourceAttributes.',
    ),
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
  description: 'Asks whether the requester may perform a request.',
  required: ['spec'],
  schema: {
    spec: t.object(
      { resourceAttributes: resourceAttributesSchema, nonResourceAttributes: nonResourceAttributesSchema },
      'The request asked about; exactly one of resourceAttributes and nonResourceAttributes.',
    ),
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
  description: 'Asks which actions the requester may perform in a namespace.',
  required: ['spec'],
  schema: {
    spec: t.object({ namespace: t.string('Namespace to list the rules of.') }, 'The namespace asked about.'),
    status: t.object(
      {
        resourceRules: t.array(
          t.object(
            {
              verbs: t.array(t.string(), 'Verbs allowed (* for all).'),
              apiGroups: t.array(t.string(), 'API groups of the resources (* for all).'),
              resources: t.array(t.string(), 'Resources (* for all).'),
              resourceNames: t.array(t.string(), 'Names the rule is limited to; empty for all.'),
            },
            'Actions allowed on resources.',
            ['verbs'],
          ),
          'What the requester may do with resources in the namespace.',
        ),
        nonResourceRules: t.array(
          t.object(
            {
              verbs: t.array(t.string(), 'Verbs allowed (* for all).'),
              nonResourceURLs: t.array(t.string(), 'URL paths; a trailing * matches a prefix.'),
            },
            'Actions allowed on non-resource URLs.',
            ['verbs'],
          ),
          'What the requester may do with non-resource URLs.',
        ),
        incomplete: t.boolean('True when the list is incomplete, for instance because an authorizer cannot enumerate its rules.'),
        evaluationError: t.string('An error met while listing the rules.'),
      },
      'The rules, computed by the server.',
      ['resourceRules', 'nonResourceRules', 'incomplete'],
    ),
  },
  // Upstream's REST storage answers a missing namespace with 400 (reviews.ts); nothing else is checked.
  validate: (): FieldError[] => [],
});

export const REVIEW_STRATEGIES = [tokenReviewStrategy, selfSubjectReviewStrategy, subjectAccessReviewStrategy, selfSubjectAccessReviewStrategy, selfSubjectRulesReviewStrategy];
