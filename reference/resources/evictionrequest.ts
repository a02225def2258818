// EvictionRequest, lifecycle.orch.io/v1alpha1 (spec §2.5, §8). Rules follow upstream
// pkg/apis/lifecycle (validation.go and the declarative tags of the v1alpha1 types), with the spec's
// field name `requester` (upstream: requesterName). The eviction-request controller that turns
// requests into Evictions (eviction.ts) is reference/controllers/evictionrequest/.
import {
  FieldPath,
  deepEqual,
  fieldErrors,
  isDNS1123Subdomain,
  isUUID,
  path,
  validateConditions,
  validateDomainPrefixedKey,
  type Condition,
  type FieldError,
} from '../apiserver/field-errors.js';
import { conditionSchema, t } from '../apiserver/schema.js';
import { defineStrategy, type ApiObject } from '../apiserver/strategy.js';

export const EVICTION_REQUEST_INTENTS = ['Eviction', 'Withdrawn'] as const;
export const MAX_EVICTION_REQUEST_CONDITIONS = 100;

/**
 * Requester domains reserved for the service itself. Upstream reserves `k8s.io` and `kubernetes.io`
 * (and their subdomains); here `k8s.io` is written `orch.io`. A server built from upstream keeps
 * rejecting the upstream names too, so all three (and every subdomain of them) are refused.
 */
export const RESERVED_REQUESTER_DOMAINS = ['orch.io', 'kubernetes.io', 'k8s.io'] as const;


interface EvictionRequest extends ApiObject {
  spec?: {
    target?: { pod?: { name?: string; uid?: string } };
    requester?: string;
    intent?: string;
  };
  status?: { conditions?: Condition[]; observedGeneration?: number };
}

/** EvictionRequestTarget (spec §2.5), also the target of the Evictions made from requests. */
export const EVICTION_TARGET_SCHEMA = t.object(
  {
    pod: t.object(
      {
        name: t.string('Name of the target pod.'),
        uid: t.string("Lowercase UUID, 8-4-4-4-12 format, equal to the pod's metadata.uid."),
      },
      'Pod subject to eviction or termination, in the same namespace. Pods that are part of a PodGroup (spec.schedulingGroup set) are unsupported.',
      ['name', 'uid'],
    ),
  },
  'EvictionRequestTarget: the object to evict. Exactly one member is set (only `pod` exists).',
);

const SPEC = path('spec');
const STATUS = path('status');

/** Declarative `+k8s:immutable` answers Forbidden (upstream validate.Immutable), not Invalid. */
const immutable = (p: FieldPath): FieldError => fieldErrors.forbidden(p, 'field is immutable');

export function isReservedRequesterDomain(domain: string): boolean {
  const d = domain.toLowerCase();
  return RESERVED_REQUESTER_DOMAINS.some((r) => d === r || d.endsWith(`.${r}`));
}

export const evictionRequestStrategy = defineStrategy({
  group: 'lifecycle.orch.io',
  version: 'v1alpha1',
  kind: 'EvictionRequest',
  resource: 'evictionrequests',
  singular: 'evictionrequest',
  namespaced: true,
  hasStatus: true,
  deleteResponse: 'status',
  // Upstream: updates must name the resourceVersion they apply to.
  allowUnconditionalUpdate: false,
  specFields: ['spec'],
  // Spec §2.5: conditions merge on `type` (upstream listType=map).
  patchStrategies: { 'status.conditions': { strategy: 'merge', mergeKey: 'type' } },
  description:
    "A requester's intent to have a target (a pod) gracefully evicted or the intent withdrawn. An eviction-request controller turns these into Eviction objects, which responders observe and work on.",
  required: ['spec'],
  schema: {
    spec: t.object(
      {
        target: t.describe(EVICTION_TARGET_SCHEMA, 'Reference to the object to evict. Required, immutable.'),
        requester: t.string(
          'Identifies the requesting entity. Must be a valid domain-prefixed key (form `<domain>/<name>`). The two domain suffixes reserved for the service itself are not allowed. Required, immutable.',
        ),
        intent: t.string('`Eviction` (requester wants the target evicted) or `Withdrawn` (requester no longer wants it).'),
      },
      'EvictionRequestSpec. Required.',
      ['intent', 'requester', 'target'],
    ),
    status: t.object(
      {
        conditions: t.array(conditionSchema, 'Patch strategy: merge on key `type`. Maximum length 100. Condition types managed by the controller: `TargetEvicted`, `Failed`.'),
        observedGeneration: t.integer(
          "The request's metadata.generation as observed by the controller. Minimum 1, never negative, can only be incremented. Managed by the controller.",
        ),
      },
      'EvictionRequestStatus, managed by the eviction-request controller.',
    ),
  },

  validate(o: ApiObject): FieldError[] {
    const er = o as EvictionRequest;
    const errs: FieldError[] = [];
    if (er.spec === undefined) errs.push(fieldErrors.required(SPEC));
    else errs.push(...validateSpec(er.spec));
    errs.push(...validateStatus(er.status));
    return errs;
  },

  validateUpdate(o: ApiObject, oldObj: ApiObject): FieldError[] {
    const er = o as EvictionRequest;
    const old = oldObj as EvictionRequest;
    const errs: FieldError[] = [];
    if ((er.spec?.requester ?? '') !== (old.spec?.requester ?? '')) errs.push(immutable(SPEC.child('requester')));
    if (!deepEqual(er.spec?.target ?? {}, old.spec?.target ?? {})) errs.push(immutable(SPEC.child('target')));
    // observedGeneration can only go up; unsetting it counts as going down.
    const gen = er.status?.observedGeneration;
    const oldGen = old.status?.observedGeneration;
    if (((gen ?? 0) >= 1 || (gen === undefined && oldGen !== undefined)) && (gen ?? 0) < (oldGen ?? 0)) {
      errs.push(
        fieldErrors.invalid(STATUS.child('observedGeneration'), gen ?? null, `cannot decrement, must be greater than or equal to ${oldGen ?? 1}`),
      );
    }
    return errs;
  },
});

function validateSpec(spec: NonNullable<EvictionRequest['spec']>): FieldError[] {
  const errs: FieldError[] = [];
  const targetAt = SPEC.child('target');
  if (spec.target === undefined) errs.push(fieldErrors.required(targetAt));
  else if (spec.target.pod === undefined) errs.push(fieldErrors.invalid(targetAt, '', 'must specify one of: `pod`'));
  else {
    const podAt = targetAt.child('pod');
    const name = spec.target.pod.name ?? '';
    if (!name) errs.push(fieldErrors.required(podAt.child('name')));
    else for (const m of isDNS1123Subdomain(name)) errs.push(fieldErrors.invalid(podAt.child('name'), name, m));
    const uid = spec.target.pod.uid ?? '';
    if (!uid) errs.push(fieldErrors.required(podAt.child('uid')));
    else if (!isUUID(uid)) errs.push(fieldErrors.invalid(podAt.child('uid'), uid, 'must be a lowercase UUID in 8-4-4-4-12 format'));
  }

  const requesterAt = SPEC.child('requester');
  const requester = spec.requester ?? '';
  const keyErrs = validateDomainPrefixedKey(requester, requesterAt);
  errs.push(...keyErrs);
  if (!keyErrs.length) {
    const domain = requester.split('/')[0]!;
    if (isReservedRequesterDomain(domain)) {
      errs.push(
        fieldErrors.invalid(
          requesterAt,
          requester,
          `domain ${JSON.stringify(domain)} is reserved: ${RESERVED_REQUESTER_DOMAINS.map((d) => `${d} and *.${d}`).join(', ')} may not be used`,
        ),
      );
    }
  }

  const intentAt = SPEC.child('intent');
  if (spec.intent === undefined || spec.intent === '') errs.push(fieldErrors.required(intentAt));
  else if (!(EVICTION_REQUEST_INTENTS as readonly string[]).includes(spec.intent)) {
    errs.push(fieldErrors.notSupported(intentAt, spec.intent, EVICTION_REQUEST_INTENTS));
  }
  return errs;
}

function validateStatus(status: EvictionRequest['status']): FieldError[] {
  if (!status) return [];
  const errs: FieldError[] = [];
  const gen = status.observedGeneration;
  if (gen !== undefined && gen < 1) errs.push(fieldErrors.invalid(STATUS.child('observedGeneration'), gen, 'must be greater than or equal to 1'));
  const conditionsAt = STATUS.child('conditions');
  const conditions = status.conditions ?? [];
  if (conditions.length > MAX_EVICTION_REQUEST_CONDITIONS) {
    errs.push(fieldErrors.tooMany(conditionsAt, conditions.length, MAX_EVICTION_REQUEST_CONDITIONS));
  } else {
    errs.push(...validateConditions(conditions, conditionsAt));
  }
  return errs;
}
