// ResourceQuota, core v1, namespaced, with a status subresource (spec §2.4, §4.1). Rules follow
// upstream pkg/apis/core/validation (ValidateResourceQuota*, validateResourceQuotaScopes,
// validateScopedResourceSelectorRequirement) and pkg/apis/core/helper, including upstream's field
// paths (scope selector errors name `matchExpressions` without an index). Quantities are parsed and
// written back as upstream does (reference/apiserver/quantity.ts). The quota controller
// (controllers/resourcequota.ts) fills status, and the quota admission (admission/resource-quota.ts)
// enforces it.
import { FieldPath, fieldErrors, isQualifiedName, path, type FieldError } from '../apiserver/field-errors.js';
import { parseQuantityJSON } from '../apiserver/quantity.js';
import { t } from '../apiserver/schema.js';
import { defineStrategy, type ApiObject } from '../apiserver/strategy.js';

/** Scope names of spec §2.4 (upstream ResourceQuotaScope values). */
export const QUOTA_SCOPES = [
  'BestEffort',
  'CrossNamespacePodAffinity',
  'NotBestEffort',
  'NotTerminating',
  'PriorityClass',
  'Terminating',
  'VolumeAttributesClass',
] as const;
export const SCOPE_SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;
/** Scopes whose selector requirement only takes the Exists operator (upstream). */
export const EXISTS_ONLY_SCOPES = ['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating', 'CrossNamespacePodAffinity'] as const;

/**
 * Patch strategies of this kind for strategic merge patch (spec §2.4): ScopedResourceSelectorRequirement
 * `values` carries no strategy, so a patch replaces the list instead of merging it.
 */
export const RESOURCE_QUOTA_PATCH_STRATEGIES = {
  'spec.scopeSelector.matchExpressions': { strategy: 'replace' },
  'spec.scopeSelector.matchExpressions[].values': { strategy: 'replace' },
} as const;

// Upstream messages.
export const MSG_NEGATIVE = 'must be greater than or equal to 0';
export const MSG_NOT_INTEGER = 'must be an integer';
export const MSG_NOT_QUOTA_RESOURCE = 'must be a standard resource for quota';
export const MSG_NOT_STANDARD_RESOURCE = 'must be a standard resource type or fully qualified';
export const MSG_UNSUPPORTED_SCOPE = 'unsupported scope';
export const MSG_SCOPE_FOR_RESOURCE = 'unsupported scope applied to resource';
export const MSG_CONFLICTING_SCOPES = 'conflicting scopes';
export const MSG_EXISTS_ONLY =
  "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity";
export const MSG_VALUES_REQUIRED = "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector";
export const MSG_VALUES_FORBIDDEN = "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector";
export const MSG_BAD_OPERATOR = 'not a valid selector operator';

const STANDARD_QUOTA_RESOURCES = new Set([
  'cpu', 'memory', 'ephemeral-storage',
  'requests.cpu', 'requests.memory', 'requests.storage', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage',
  'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'persistentvolumeclaims', 'configmaps',
  'services.nodeports', 'services.loadbalancers',
]);
/** Standard resource names (a superset of the quota ones: `storage` is a resource, not a quota one). */
const STANDARD_RESOURCES = new Set([...STANDARD_QUOTA_RESOURCES, 'storage']);
const INTEGER_RESOURCES = new Set([
  'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims',
  'services.nodeports', 'services.loadbalancers',
]);
const POD_COUNT = new Set(['pods']);
const POD_COMPUTE = new Set(['cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory']);
const PVC_RESOURCES = new Set(['persistentvolumeclaims', 'requests.storage']);
/** Upstream's native-resource namespace `kubernetes.io/`, which this platform writes `orch.io/`. */
const NATIVE_PREFIXES = ['orch.io/', 'kubernetes.io/'];

const isQuotaHugePages = (name: string) => name.startsWith('hugepages-') || name.startsWith('requests.hugepages-');
export const isStandardQuotaResourceName = (name: string): boolean => STANDARD_QUOTA_RESOURCES.has(name) || isQuotaHugePages(name);
const isStandardResourceName = (name: string) => STANDARD_RESOURCES.has(name) || isQuotaHugePages(name);
const isNativeResource = (name: string) => !name.includes('/') || NATIVE_PREFIXES.some((p) => name.includes(p));
const isExtendedResourceName = (name: string) =>
  !isNativeResource(name) && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;
/** Resources counted in whole units (upstream IsIntegerResourceName). */
export const isIntegerResourceName = (name: string): boolean => INTEGER_RESOURCES.has(name) || isExtendedResourceName(name);

/** Whether a scope can track a (standard quota) resource (upstream IsResourceQuotaScopeValidForResource). */
export function scopeTracksResource(scope: string, resource: string): boolean {
  switch (scope) {
    case 'Terminating':
    case 'NotTerminating':
    case 'NotBestEffort':
    case 'PriorityClass':
    case 'CrossNamespacePodAffinity':
      return POD_COUNT.has(resource) || POD_COMPUTE.has(resource);
    case 'BestEffort':
      return POD_COUNT.has(resource);
    case 'VolumeAttributesClass':
      return PVC_RESOURCES.has(resource);
    default:
      return true;
  }
}

const isScope = (s: string) => (QUOTA_SCOPES as readonly string[]).includes(s);

interface ScopeRequirement {
  scopeName?: string;
  operator?: string;
  values?: string[];
}

interface ResourceQuota extends ApiObject {
  spec?: {
    hard?: Record<string, unknown>;
    scopes?: string[];
    scopeSelector?: { matchExpressions?: ScopeRequirement[] };
  };
  status?: { hard?: Record<string, unknown>; used?: Record<string, unknown> };
}

const SPEC = path('spec');

export const resourceQuotaStrategy = defineStrategy({
  group: '',
  version: 'v1',
  kind: 'ResourceQuota',
  resource: 'resourcequotas',
  singular: 'resourcequota',
  shortNames: ['quota'],
  namespaced: true,
  hasStatus: true,
  deleteResponse: 'object',
  patchStrategies: RESOURCE_QUOTA_PATCH_STRATEGIES,
  description: 'Aggregate quota limits enforced per namespace, with observed usage.',
  schema: {
    spec: t.object(
      {
        // Quantities: strings or JSON numbers, checked (and written back canonically) below.
        hard: t.map(t.any('A quantity.'), 'Desired hard limits per named resource.'),
        scopes: t.array(t.string(), 'Filters that must match each object tracked by the quota. If unset, the quota matches all objects.'),
        scopeSelector: t.object(
          {
            matchExpressions: t.array(
              t.object(
                {
                  scopeName: t.string(
                    '`BestEffort` (pods with best-effort quality of service), `CrossNamespacePodAffinity` (pods with cross-namespace pod affinity or anti-affinity), `NotBestEffort`, `NotTerminating` (pods whose spec.activeDeadlineSeconds is nil), `PriorityClass` (pods with a priority class mentioned), `Terminating` (pods with spec.activeDeadlineSeconds >= 0), `VolumeAttributesClass` (claims with a volume attributes class mentioned).',
                  ),
                  operator: t.string('`In`, `NotIn`, `Exists`, `DoesNotExist`.'),
                  values: t.array(t.string(), 'Must be non-empty for `In` and `NotIn`; must be empty for `Exists` and `DoesNotExist`. Replaced (not merged) during a strategic merge patch.'),
                },
                'ScopedResourceSelectorRequirement: a scope name, an operator and the values it applies to.',
                ['operator', 'scopeName'],
              ),
              'ScopedResourceSelectorRequirements; the requirements are ANDed.',
            ),
          },
          'Filters expressed with operators. For an object to match, both scopes and scopeSelector (if set) must match.',
        ),
      },
      'Desired quota.',
    ),
    status: t.object(
      {
        hard: t.map(t.any('A quantity.'), 'Enforced hard limits per named resource.'),
        used: t.map(t.any('A quantity.'), 'Observed total usage in the namespace.'),
      },
      'Enforced limits and observed usage, written by the quota controller.',
    ),
  },

  /** Quantities are stored as upstream serializes them: strings, canonical where upstream would be. */
  defaults(o: ApiObject): void {
    const rq = o as ResourceQuota;
    normalizeResourceList(rq.spec?.hard);
    normalizeResourceList(rq.status?.hard);
    normalizeResourceList(rq.status?.used);
  },

  validate(o: ApiObject): FieldError[] {
    const rq = o as ResourceQuota;
    return [...validateSpec(rq.spec ?? {}), ...validateStatus(rq.status ?? {})];
  },

  validateUpdate(o: ApiObject, oldObj: ApiObject): FieldError[] {
    // Scopes are compared as sets: reordering them is no change (upstream).
    const next = new Set((o as ResourceQuota).spec?.scopes ?? []);
    const old = new Set((oldObj as ResourceQuota).spec?.scopes ?? []);
    const same = next.size === old.size && [...next].every((s) => old.has(s));
    return same ? [] : [fieldErrors.immutable(SPEC.child('scopes'), (o as ResourceQuota).spec?.scopes ?? null)];
  },
});

function normalizeResourceList(list: Record<string, unknown> | undefined): void {
  if (!list) return;
  for (const k of Object.keys(list)) {
    const r = parseQuantityJSON(list[k]);
    if (r.ok) list[k] = r.quantity.toString();
  }
}

/** ValidateResourceQuotaResourceName plus ValidateResourceQuantityValue, for every entry of a resource list. */
export function validateResourceList(list: Record<string, unknown> | undefined, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const [name, value] of Object.entries(list ?? {})) {
    const p = at.key(name);
    errs.push(...validateQuotaResourceName(name, p));
    const parsed = parseQuantityJSON(value);
    if (!parsed.ok) {
      errs.push(fieldErrors.invalid(p, value, parsed.error));
      continue;
    }
    const q = parsed.quantity;
    if (q.sign() < 0) errs.push(fieldErrors.invalid(p, q.toString(), MSG_NEGATIVE));
    if (isIntegerResourceName(name) && q.milliValue() % 1000n !== 0n) errs.push(fieldErrors.invalid(p, q.toString(), MSG_NOT_INTEGER));
  }
  return errs;
}

/** Upstream ValidateResourceQuotaResourceName. */
export function validateQuotaResourceName(name: string, at: FieldPath): FieldError[] {
  const errs = isQualifiedName(name).map((m) => fieldErrors.invalid(at, name, m));
  const bare = !name.includes('/');
  if (errs.length === 0 && bare && !isStandardResourceName(name)) errs.push(fieldErrors.invalid(at, name, MSG_NOT_STANDARD_RESOURCE));
  if (bare && !isStandardQuotaResourceName(name)) errs.push(fieldErrors.invalid(at, name, MSG_NOT_QUOTA_RESOURCE));
  return errs;
}

function validateSpec(spec: NonNullable<ResourceQuota['spec']>): FieldError[] {
  const errs = validateResourceList(spec.hard, SPEC.child('hard'));
  const hard = Object.keys(spec.hard ?? {}).sort();
  if (spec.scopes?.length) {
    const at = SPEC.child('scopes');
    for (const scope of spec.scopes) {
      if (!isScope(scope)) errs.push(fieldErrors.invalid(at, spec.scopes, MSG_UNSUPPORTED_SCOPE));
      for (const k of hard) {
        if (isStandardQuotaResourceName(k) && !scopeTracksResource(scope, k)) errs.push(fieldErrors.invalid(at, spec.scopes, MSG_SCOPE_FOR_RESOURCE));
      }
    }
    if (conflicting(new Set(spec.scopes))) errs.push(fieldErrors.invalid(at, spec.scopes, MSG_CONFLICTING_SCOPES));
  }
  if (spec.scopeSelector) errs.push(...validateScopeSelector(spec.scopeSelector, hard));
  return errs;
}

function conflicting(scopes: Set<string>): boolean {
  return (scopes.has('BestEffort') && scopes.has('NotBestEffort')) || (scopes.has('Terminating') && scopes.has('NotTerminating'));
}

function validateScopeSelector(selector: NonNullable<NonNullable<ResourceQuota['spec']>['scopeSelector']>, hard: string[]): FieldError[] {
  const errs: FieldError[] = [];
  // Upstream names the list, not the entry, in these errors.
  const at = SPEC.child('scopeSelector').child('matchExpressions');
  const seen = new Set<string>();
  for (const req of selector.matchExpressions ?? []) {
    const scope = req.scopeName ?? '';
    const operator = req.operator ?? '';
    const values = req.values ?? [];
    if (!isScope(scope)) errs.push(fieldErrors.invalid(at.child('scopeName'), scope, MSG_UNSUPPORTED_SCOPE));
    for (const k of hard) {
      if (isStandardQuotaResourceName(k) && !scopeTracksResource(scope, k)) errs.push(fieldErrors.invalid(at, selector, MSG_SCOPE_FOR_RESOURCE));
    }
    if ((EXISTS_ONLY_SCOPES as readonly string[]).includes(scope) && operator !== 'Exists') {
      errs.push(fieldErrors.invalid(at.child('operator'), operator, MSG_EXISTS_ONLY));
    }
    switch (operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(fieldErrors.required(at.child('values'), MSG_VALUES_REQUIRED));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length !== 0) errs.push(fieldErrors.invalid(at.child('values'), values, MSG_VALUES_FORBIDDEN));
        break;
      default:
        errs.push(fieldErrors.invalid(at.child('operator'), operator, MSG_BAD_OPERATOR));
    }
    seen.add(scope);
  }
  if (conflicting(seen)) errs.push(fieldErrors.invalid(at, selector, MSG_CONFLICTING_SCOPES));
  return errs;
}

function validateStatus(status: NonNullable<ResourceQuota['status']>): FieldError[] {
  const at = path('status');
  return [...validateResourceList(status.hard, at.child('hard')), ...validateResourceList(status.used, at.child('used'))];
}
