// Role-based access objects, rbac.authorization.orch.io/v1 (spec 000 §2.8): ClusterRole,
// ClusterRoleBinding, Role and RoleBinding. The spec names the kinds and ClusterRole's fields; the
// rest follows upstream pkg/apis/rbac/validation and the v1 defaults (messages byte for byte).
// Names are path segment names (upstream ValidateRBACName): `system:controller:x` is fine, `a/b` is not.
import {
  fieldErrors,
  isDNS1123Subdomain,
  isValidLabelValue,
  path,
  validateLabelName,
  validateLabels,
  type FieldError,
  type FieldPath,
  type NameValidator,
} from '../apiserver/field-errors.js';
import { t, type Schema } from '../apiserver/schema.js';
import { defineStrategy, type ApiObject } from '../apiserver/strategy.js';

export const RBAC_GROUP = 'rbac.authorization.orch.io';
export const SUBJECT_KINDS = ['ServiceAccount', 'User', 'Group'] as const;

// ---- Names (upstream apimachinery/pkg/api/validation/path) ----

const NAME_MAY_NOT_BE = ['.', '..'];
const NAME_MAY_NOT_CONTAIN = ['/', '%'];

/** Upstream path.ValidatePathSegmentName: any string usable as one URL path segment. */
export const nameIsPathSegment: NameValidator = (name, prefix) => {
  if (!prefix) for (const bad of NAME_MAY_NOT_BE) if (name === bad) return [`may not be '${bad}'`];
  return NAME_MAY_NOT_CONTAIN.filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
};

// ---- Shapes ----

const labelSelectorSchema: Schema = t.object(
  {
    matchLabels: t.map(t.string(), 'Labels an object must carry, each with exactly this value.'),
    matchExpressions: t.array(
      t.object(
        {
          key: t.string('The label key the requirement applies to.'),
          operator: t.string('How the label relates to the values: In, NotIn, Exists or DoesNotExist.'),
          values: t.array(t.string(), 'Label values; non-empty for In and NotIn, empty for Exists and DoesNotExist.'),
        },
        'A requirement on one label.',
        ['key', 'operator'],
      ),
      'Requirements on labels; all must hold (ANDed with matchLabels too).',
    ),
  },
  'Selects objects by their labels. An empty selector matches every object.',
);

const policyRuleSchema: Schema = t.object(
  {
    verbs: t.array(t.string(), 'Verbs the rule allows (get, list, create, ..., or * for all). At least one.'),
    apiGroups: t.array(t.string(), 'API groups of the resources (empty string for the core group, * for all). Needed with resources.'),
    resources: t.array(t.string(), 'Resources the rule applies to (plural names, resource/subresource, or * for all).'),
    resourceNames: t.array(t.string(), 'Names of the objects the rule is limited to; empty means every object.'),
    nonResourceURLs: t.array(t.string(), 'URL paths that are not resources (such as /healthz; a trailing * matches a prefix). Only in cluster roles, and not together with resources.'),
  },
  'PolicyRule: what a role allows, on resources or on non-resource URLs.',
  ['verbs'],
);

const subjectSchema: Schema = t.object(
  {
    kind: t.string('User, Group or ServiceAccount.'),
    apiGroup: t.string('API group of the subject kind: rbac.authorization.orch.io for User and Group (the default), empty for ServiceAccount.'),
    name: t.string('Name of the subject.'),
    namespace: t.string('Namespace of a ServiceAccount subject; empty for users and groups.'),
  },
  'Subject: a user, group or service account the binding grants the role to.',
  ['kind', 'name'],
);

const roleRefSchema: Schema = t.object(
  {
    apiGroup: t.string('API group of the role: rbac.authorization.orch.io (the default).'),
    kind: t.string('Role or ClusterRole.'),
    name: t.string('Name of the role.'),
  },
  'The role the binding grants. Cannot be changed once the binding exists.',
  ['apiGroup', 'kind', 'name'],
);

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key?: string; operator?: string; values?: string[] }>;
}

export interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

interface Subject {
  kind?: string;
  apiGroup?: string;
  name?: string;
  namespace?: string;
}

interface RoleRef {
  apiGroup?: string;
  kind?: string;
  name?: string;
}

export interface ClusterRole extends ApiObject {
  rules?: PolicyRule[];
  aggregationRule?: { clusterRoleSelectors?: LabelSelector[] };
}

interface Binding extends ApiObject {
  subjects?: Subject[];
  roleRef?: RoleRef;
}

// ---- Validation ----

/** Upstream metav1validation.ValidateLabelSelector (label values in selectors must be valid). */
export function validateLabelSelector(sel: LabelSelector, at: FieldPath): FieldError[] {
  const errs = validateLabels(sel.matchLabels, at.child('matchLabels'));
  (sel.matchExpressions ?? []).forEach((req, i) => {
    const rAt = at.child('matchExpressions').index(i);
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(fieldErrors.required(rAt.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(fieldErrors.forbidden(rAt.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(fieldErrors.invalid(rAt.child('operator'), req.operator ?? '', 'not a valid selector operator'));
    }
    errs.push(...validateLabelName(req.key ?? '', rAt.child('key')));
    values.forEach((v, j) => {
      for (const m of isValidLabelValue(v)) errs.push(fieldErrors.invalid(rAt.child('values').index(j), v, m));
    });
  });
  return errs;
}

/** Whether a label set matches a (valid) selector: matchLabels and every expression ANDed. */
export function selectorMatches(sel: LabelSelector, labels: Readonly<Record<string, string>> = {}): boolean {
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const req of sel.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, req.key ?? '');
    const value = labels[req.key ?? ''];
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
        if (!has || !values.includes(value!)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(value!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** Upstream ValidatePolicyRule. */
export function validatePolicyRule(rule: PolicyRule, namespaced: boolean, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const len = (xs: unknown[] | undefined): number => xs?.length ?? 0;
  if (len(rule.verbs) === 0) errs.push(fieldErrors.required(at.child('verbs'), 'verbs must contain at least one value'));
  if (len(rule.nonResourceURLs) > 0) {
    if (namespaced) {
      errs.push(fieldErrors.invalid(at.child('nonResourceURLs'), rule.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
    }
    if (len(rule.apiGroups) > 0 || len(rule.resources) > 0 || len(rule.resourceNames) > 0) {
      errs.push(
        fieldErrors.invalid(at.child('nonResourceURLs'), rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'),
      );
    }
    return errs;
  }
  if (len(rule.apiGroups) === 0) errs.push(fieldErrors.required(at.child('apiGroups'), 'resource rules must supply at least one api group'));
  if (len(rule.resources) === 0) errs.push(fieldErrors.required(at.child('resources'), 'resource rules must supply at least one resource'));
  return errs;
}

function validateRules(rules: PolicyRule[] | undefined, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  (rules ?? []).forEach((r, i) => errs.push(...validatePolicyRule(r, namespaced, path('rules').index(i))));
  return errs;
}

/** Upstream ValidateRoleBindingSubject; `namespaced` is true for RoleBinding subjects. */
export function validateSubject(s: Subject, namespaced: boolean, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = s.name ?? '';
  if (!name) errs.push(fieldErrors.required(at.child('name')));
  switch (s.kind) {
    case 'ServiceAccount':
      if (name) for (const m of isDNS1123Subdomain(name)) errs.push(fieldErrors.invalid(at.child('name'), name, m));
      if (s.apiGroup) errs.push(fieldErrors.notSupported(at.child('apiGroup'), s.apiGroup, ['']));
      if (!namespaced && !s.namespace) errs.push(fieldErrors.required(at.child('namespace')));
      break;
    case 'User':
    case 'Group':
      if (s.apiGroup !== RBAC_GROUP) errs.push(fieldErrors.notSupported(at.child('apiGroup'), s.apiGroup ?? '', [RBAC_GROUP]));
      break;
    default:
      errs.push(fieldErrors.notSupported(at.child('kind'), s.kind ?? '', SUBJECT_KINDS));
  }
  return errs;
}

function validateBinding(b: Binding, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = b.roleRef ?? {};
  const refAt = path('roleRef');
  if (ref.apiGroup !== RBAC_GROUP) errs.push(fieldErrors.notSupported(refAt.child('apiGroup'), ref.apiGroup ?? '', [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(ref.kind ?? '')) errs.push(fieldErrors.notSupported(refAt.child('kind'), ref.kind ?? '', kinds));
  if (!ref.name) errs.push(fieldErrors.required(refAt.child('name')));
  else for (const m of nameIsPathSegment(ref.name, false)) errs.push(fieldErrors.invalid(refAt.child('name'), ref.name, m));
  (b.subjects ?? []).forEach((s, i) => errs.push(...validateSubject(s, namespaced, path('subjects').index(i))));
  return errs;
}

function validateBindingUpdate(b: Binding, old: Binding): FieldError[] {
  const ref = (r: RoleRef | undefined) => ({ apiGroup: r?.apiGroup ?? '', kind: r?.kind ?? '', name: r?.name ?? '' });
  const a = ref(b.roleRef);
  const o = ref(old.roleRef);
  if (a.apiGroup === o.apiGroup && a.kind === o.kind && a.name === o.name) return [];
  return [fieldErrors.invalid('roleRef', a, 'cannot change roleRef')];
}

/** Upstream v1 SetDefaults_RoleBinding/ClusterRoleBinding and SetDefaults_Subject. */
function defaultBinding(b: Binding): void {
  // roleRef is a struct, not a pointer, upstream: an absent one still gets its apiGroup.
  const ref = (b.roleRef ??= {});
  if (!ref.apiGroup) ref.apiGroup = RBAC_GROUP;
  for (const s of b.subjects ?? []) {
    if (!s.apiGroup && (s.kind === 'User' || s.kind === 'Group')) s.apiGroup = RBAC_GROUP;
  }
}

/** ClusterRoleBinding and RoleBinding have the same fields. */
const BINDING_SCHEMA = {
  subjects: t.array(subjectSchema, 'Who the role is granted to.'),
  roleRef: roleRefSchema,
};

const common = {
  group: RBAC_GROUP,
  version: 'v1',
  hasStatus: false,
  // Upstream's RBAC registries do not set ReturnDeletedObject: a delete answers with a Status.
  deleteResponse: 'status',
  validateName: nameIsPathSegment,
} as const;

export const clusterRoleStrategy = defineStrategy({
  ...common,
  kind: 'ClusterRole',
  resource: 'clusterroles',
  singular: 'clusterrole',
  namespaced: false,
  description: 'Cluster-level grouping of PolicyRules referenced as a unit by a RoleBinding or ClusterRoleBinding.',
  schema: {
    rules: t.array(policyRuleSchema, 'All policy rules.'),
    aggregationRule: t.object(
      { clusterRoleSelectors: t.array(labelSelectorSchema, 'If any selector matches a cluster role, its permissions are added.') },
      'Optional. If set, rules are controller-managed and direct changes to rules are overwritten.',
    ),
  },
  validate(o: ApiObject): FieldError[] {
    const cr = o as ClusterRole;
    const errs = validateRules(cr.rules, false);
    if (cr.aggregationRule) {
      const at = path('aggregationRule').child('clusterRoleSelectors');
      const sels = cr.aggregationRule.clusterRoleSelectors ?? [];
      if (sels.length === 0) errs.push(fieldErrors.required(at, 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
      sels.forEach((s, i) => errs.push(...validateLabelSelector(s, at.index(i))));
    }
    return errs;
  },
});

export const clusterRoleBindingStrategy = defineStrategy({
  ...common,
  kind: 'ClusterRoleBinding',
  resource: 'clusterrolebindings',
  singular: 'clusterrolebinding',
  namespaced: false,
  // Spec §4.2: deleting the collection of cluster role bindings answers with a Status.
  deleteCollectionResponse: 'status',
  description: 'Grants the permissions of a ClusterRole to subjects, in every namespace and on cluster-scoped objects.',
  required: ['roleRef'],
  schema: BINDING_SCHEMA,
  defaults: (o: ApiObject) => defaultBinding(o as Binding),
  validate: (o: ApiObject) => validateBinding(o as Binding, false),
  validateUpdate: (o: ApiObject, old: ApiObject) => validateBindingUpdate(o as Binding, old as Binding),
});

export const roleStrategy = defineStrategy({
  ...common,
  kind: 'Role',
  resource: 'roles',
  singular: 'role',
  namespaced: true,
  description: 'Namespaced grouping of PolicyRules, referenced as a unit by a RoleBinding in the same namespace.',
  schema: { rules: t.array(policyRuleSchema, 'All policy rules.') },
  validate: (o: ApiObject) => validateRules((o as ClusterRole).rules, true),
});

export const roleBindingStrategy = defineStrategy({
  ...common,
  kind: 'RoleBinding',
  resource: 'rolebindings',
  singular: 'rolebinding',
  namespaced: true,
  description: "Grants the permissions of a Role (in the binding's namespace) or a ClusterRole (limited to that namespace) to subjects.",
  required: ['roleRef'],
  schema: BINDING_SCHEMA,
  defaults: (o: ApiObject) => defaultBinding(o as Binding),
  validate: (o: ApiObject) => validateBinding(o as Binding, true),
  validateUpdate: (o: ApiObject, old: ApiObject) => validateBindingUpdate(o as Binding, old as Binding),
});

export const RBAC_STRATEGIES = [clusterRoleStrategy, clusterRoleBindingStrategy, roleStrategy, roleBindingStrategy] as const;
