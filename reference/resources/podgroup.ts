// PodGroup, scheduling.orch.io/v1beta1 (spec §2.6, §3.2, §8). Served only while the GenericWorkload
// gate is on. Rules follow upstream pkg/apis/scheduling (the declarative tags of the PodGroup types,
// ValidatePodGroupStatusUpdate) and pkg/registry/scheduling/podgroup (dropDisabledPodGroupFields);
// the spec adds that PodGroupInitiallyScheduled, once True, never reverts.
import {
  FieldPath,
  deepEqual,
  fieldErrors,
  isDNS1123Label,
  isDNS1123Subdomain,
  path,
  validateConditions,
  validateLabelName,
  type Condition,
  type FieldError,
} from '../apiserver/field-errors.js';
import { conditionSchema, t } from '../apiserver/schema.js';
import { defineStrategy, type ApiObject } from '../apiserver/strategy.js';
import type { FeatureGates } from '../features.js';

export const PREEMPTION_POLICIES = ['Never', 'PreemptLowerPriority'] as const;
export const MAX_POD_GROUP_PRIORITY = 1_000_000_000;
export const MAX_TOPOLOGY_CONSTRAINTS = 1;
export const MAX_RESOURCE_CLAIMS = 4;
export const INITIALLY_SCHEDULED = 'PodGroupInitiallyScheduled';

interface ResourceClaim {
  name?: string;
  resourceClaimName?: string;
  resourceClaimTemplateName?: string;
}

interface PodGroupSpec {
  parentCompositePodGroupName?: string;
  workloadRef?: { workloadName?: string; templateName?: string };
  schedulingPolicy?: { basic?: object; gang?: { minCount?: number } };
  schedulingConstraints?: { topology?: Array<{ key?: string }> };
  resourceClaims?: ResourceClaim[];
  disruptionMode?: { single?: object; all?: object };
  priorityClassName?: string;
  priority?: number;
  preemptionPolicy?: string;
}

interface PodGroup extends ApiObject {
  spec?: PodGroupSpec;
  status?: { conditions?: Condition[]; resourceClaimStatuses?: Array<{ name?: string; resourceClaimName?: string }> };
}

const SPEC = path('spec');
const STATUS = path('status');

/** Declarative `+k8s:immutable` answers Forbidden (upstream validate.Immutable). */
const immutable = (p: FieldPath): FieldError => fieldErrors.forbidden(p, 'field is immutable');

/** Upstream validate.Union over the members that are set. */
function union(at: FieldPath, members: readonly string[], set: readonly string[]): FieldError[] {
  const all = members.map((m) => `\`${m}\``).join(', ');
  if (set.length === 0) return [fieldErrors.invalid(at, '', `must specify one of: ${all}`)];
  if (set.length > 1) return [fieldErrors.invalid(at, `{${set.join(', ')}}`, `must specify exactly one of: ${all}`)];
  return [];
}

const setMembers = (o: Record<string, unknown> | undefined, members: readonly string[]): string[] =>
  members.filter((m) => o?.[m] !== undefined);

const dnsSubdomain = (v: string, at: FieldPath): FieldError[] => isDNS1123Subdomain(v).map((m) => fieldErrors.invalid(at, v, m));
const dnsLabel = (v: string, at: FieldPath): FieldError[] => isDNS1123Label(v).map((m) => fieldErrors.invalid(at, v, m));

export const podGroupStrategy = defineStrategy({
  group: 'scheduling.orch.io',
  version: 'v1beta1',
  kind: 'PodGroup',
  resource: 'podgroups',
  singular: 'podgroup',
  namespaced: true,
  hasStatus: true,
  // Upstream's PodGroup store does not return the deleted object, so DELETE answers a Status.
  deleteResponse: 'status',
  gate: 'GenericWorkload',
  specFields: ['spec'],
  // Spec §2.6: conditions merge on `type`; claims and claim statuses merge, retainKeys, on `name`.
  patchStrategies: {
    'spec.resourceClaims': { strategy: 'merge,retainKeys', mergeKey: 'name' },
    'status.conditions': { strategy: 'merge', mergeKey: 'type' },
    'status.resourceClaimStatuses': { strategy: 'merge,retainKeys', mergeKey: 'name' },
  },
  description:
    'A runtime instance of a group of pods, created by workload controllers from workload pod-group templates; carries scheduling policy and status. Enabled by the GenericWorkload feature gate.',
  required: ['spec'],
  schema: {
    spec: t.object(
      {
        parentCompositePodGroupName: t.string(
          'Name of the parent composite pod group in the same namespace; if unset the group is the root of the hierarchy. Used only when the CompositePodGroup feature gate is on. Immutable.',
        ),
        workloadRef: t.object(
          {
            workloadName: t.string('Name of the Workload (a DNS name).'),
            templateName: t.string('Name of the pod-group template within the Workload (a DNS label).'),
          },
          'Template within a Workload object used to create the group. Immutable.',
          ['templateName', 'workloadName'],
        ),
        schedulingPolicy: t.object(
          {
            basic: t.object({}, 'Standard scheduling behavior.'),
            gang: t.object(
              {
                minCount: t.integer(
                  'Positive. Minimum number of pods that must be schedulable or scheduled at once for the group to be admitted. Mutable (supports scaling). Enforced only during scheduling; changes do not affect already-scheduled pods, and may take effect only in a later scheduling cycle.',
                ),
              },
              'All-or-nothing scheduling. Cannot be set or unset after creation.',
              ['minCount'],
            ),
          },
          'Exactly one of `basic` or `gang`. Chosen at creation; the policy cannot change afterwards. Controllers copy it from the PodGroupTemplate.',
        ),
        schedulingConstraints: t.object(
          {
            topology: t.array(
              t.object(
                {
                  key: t.string(
                    'Node label key of the topology domain; all pods of the group must be colocated in one domain instance; different groups from the same template may land in different instances.',
                  ),
                },
                'TopologyConstraint: one topology domain the group is kept in.',
                ['key'],
              ),
              'TopologyConstraints; currently a single constraint may be given.',
            ),
          },
          'Placement constraints of the group. Requires the TopologyAwareWorkloadScheduling feature gate. Immutable.',
        ),
        resourceClaims: t.array(
          t.object(
            {
              name: t.string('DNS_LABEL, unique in the group.'),
              resourceClaimName: t.string('Claim in the same namespace, reserved for the group.'),
              resourceClaimTemplateName: t.string(
                'Template in the same namespace; a claim is generated for the group, named from group name, resource name and a generated part, recorded in status.resourceClaimStatuses, and deleted with the group; the field is immutable.',
              ),
            },
            'PodGroupResourceClaim. Exactly one of resourceClaimName and resourceClaimTemplateName must be set.',
            ['name'],
          ),
          'Patch strategy: merge, retainKeys on key `name`. Claims that may be shared among pods of the group; a pod consumes a claim by declaring an identical claim (same name, same referenced claim or template) in its own spec. Requires the DRAWorkloadResourceClaims feature gate (beta). Immutable.',
        ),
        disruptionMode: t.object(
          {
            single: t.object({}, 'SingleDisruptionMode: children disrupted independently.'),
            all: t.object({}, 'AllDisruptionMode: children only disrupted together.'),
          },
          'Exactly one of `all` (AllDisruptionMode, no fields: children only disrupted together) or `single` (SingleDisruptionMode, no fields: children disrupted independently). Defaults to single if unset. Immutable.',
        ),
        priorityClassName: t.string(
          'Priority class considered when scheduling. Copied from the template by controllers; if none is specified admission may set the global default class, otherwise priority is zero. Immutable.',
        ),
        priority: t.integer(
          'Higher value means higher priority. Users are prevented from setting it when the priority admission controller is enabled; the controller fills it from priorityClassName. Immutable.',
        ),
        preemptionPolicy: t.string(
          '`Never` or `PreemptLowerPriority`. Default `PreemptLowerPriority`. Populated by the priority admission controller from the priority class when enabled. Immutable. Available only when the PodGroupPreemptionPolicy feature gate is on.',
        ),
      },
      'PodGroupSpec. Required.',
      ['schedulingPolicy'],
    ),
    status: t.object(
      {
        conditions: t.array(conditionSchema, 'Patch strategy: merge on key `type`. Known types: PodGroupInitiallyScheduled, DisruptionTarget.'),
        resourceClaimStatuses: t.array(
          t.object(
            {
              name: t.string('Name of the entry of spec.resourceClaims this status is for.'),
              resourceClaimName: t.string('Name of the claim generated for the group from the template; unset when none was generated.'),
            },
            'PodGroupResourceClaimStatus: the claim made for one template-based entry of spec.resourceClaims.',
            ['name'],
          ),
          'Patch strategy: merge, retainKeys on key `name`.',
        ),
      },
      'PodGroupStatus.',
    ),
  },

  dropDisabledFields(o: ApiObject, oldObj: ApiObject | undefined, gates: FeatureGates): void {
    dropDisabledPodGroupFields(o as PodGroup, oldObj as PodGroup | undefined, gates);
  },

  defaults(o: ApiObject, gates: FeatureGates): void {
    const spec = (o as PodGroup).spec;
    if (!spec) return;
    if (spec.disruptionMode === undefined) spec.disruptionMode = { single: {} };
    // A gated field is defaulted only while its gate is on (otherwise it would appear on its own).
    if (spec.preemptionPolicy === undefined && gates.enabled('PodGroupPreemptionPolicy')) spec.preemptionPolicy = 'PreemptLowerPriority';
  },

  validate(o: ApiObject): FieldError[] {
    const pg = o as PodGroup;
    const errs: FieldError[] = [];
    if (pg.spec === undefined) errs.push(fieldErrors.required(SPEC));
    else errs.push(...validateSpec(pg.spec));
    errs.push(...validateStatus(pg.status, pg.spec?.resourceClaims ?? []));
    return errs;
  },

  validateUpdate(o: ApiObject, oldObj: ApiObject): FieldError[] {
    const spec = (o as PodGroup).spec ?? {};
    const old = (oldObj as PodGroup).spec ?? {};
    const errs: FieldError[] = [];
    const policyAt = SPEC.child('schedulingPolicy');
    // basic is immutable; gang can neither be set nor unset (its minCount stays mutable).
    if (!deepEqual(spec.schedulingPolicy?.basic, old.schedulingPolicy?.basic)) errs.push(immutable(policyAt.child('basic')));
    if (old.schedulingPolicy?.gang === undefined && spec.schedulingPolicy?.gang !== undefined) {
      errs.push(fieldErrors.invalid(policyAt.child('gang'), null, 'field cannot be set once created'));
    }
    if (old.schedulingPolicy?.gang !== undefined && spec.schedulingPolicy?.gang === undefined) {
      errs.push(fieldErrors.invalid(policyAt.child('gang'), null, 'field cannot be cleared once set'));
    }
    for (const f of IMMUTABLE_SPEC_FIELDS) {
      if (!deepEqual(spec[f], old[f])) errs.push(immutable(SPEC.child(f)));
    }
    errs.push(...validateInitiallyScheduledTerminal((o as PodGroup).status?.conditions ?? [], (oldObj as PodGroup).status?.conditions ?? []));
    return errs;
  },
});

const IMMUTABLE_SPEC_FIELDS = [
  'parentCompositePodGroupName',
  'workloadRef',
  'schedulingConstraints',
  'resourceClaims',
  'disruptionMode',
  'priorityClassName',
  'priority',
  'preemptionPolicy',
] as const satisfies ReadonlyArray<keyof PodGroupSpec>;

/**
 * Upstream dropDisabledPodGroupFields: a gated field is dropped while its gate is off, unless the
 * stored object (`old`, on update) already uses it.
 */
export function dropDisabledPodGroupFields(pg: PodGroup, old: PodGroup | undefined, gates: FeatureGates): void {
  const spec = pg.spec;
  const oldSpec = old?.spec;
  if (spec) {
    if (!gates.enabled('CompositePodGroup') && oldSpec?.parentCompositePodGroupName === undefined) delete spec.parentCompositePodGroupName;
    if (!gates.enabled('PodGroupPreemptionPolicy') && oldSpec?.preemptionPolicy === undefined) delete spec.preemptionPolicy;
    if (!gates.enabled('TopologyAwareWorkloadScheduling') && oldSpec?.schedulingConstraints === undefined) delete spec.schedulingConstraints;
  }
  if (!gates.enabled('DRAWorkloadResourceClaims') && !(oldSpec?.resourceClaims?.length)) {
    if (spec) delete spec.resourceClaims;
    if (pg.status) delete pg.status.resourceClaimStatuses;
  }
}

function validateSpec(spec: PodGroupSpec): FieldError[] {
  const errs: FieldError[] = [];

  if (spec.parentCompositePodGroupName !== undefined) {
    errs.push(...dnsSubdomain(spec.parentCompositePodGroupName, SPEC.child('parentCompositePodGroupName')));
    if (spec.workloadRef === undefined) {
      errs.push(fieldErrors.required(SPEC.child('workloadRef'), 'must be set when parentCompositePodGroupName is set'));
    }
  }

  if (spec.workloadRef !== undefined) {
    const at = SPEC.child('workloadRef');
    const workloadName = spec.workloadRef.workloadName ?? '';
    if (!workloadName) errs.push(fieldErrors.required(at.child('workloadName')));
    else errs.push(...dnsSubdomain(workloadName, at.child('workloadName')));
    const templateName = spec.workloadRef.templateName ?? '';
    if (!templateName) errs.push(fieldErrors.required(at.child('templateName')));
    else errs.push(...dnsLabel(templateName, at.child('templateName')));
  }

  const policyAt = SPEC.child('schedulingPolicy');
  const policy = spec.schedulingPolicy;
  errs.push(...union(policyAt, ['basic', 'gang'], setMembers(policy, ['basic', 'gang'])));
  if (policy?.gang !== undefined) {
    const minAt = policyAt.child('gang').child('minCount');
    const min = policy.gang.minCount ?? 0;
    if (min === 0) errs.push(fieldErrors.required(minAt));
    else if (min < 1) errs.push(fieldErrors.invalid(minAt, min, 'must be greater than or equal to 1'));
  }

  if (spec.schedulingConstraints?.topology !== undefined) {
    const at = SPEC.child('schedulingConstraints').child('topology');
    const topology = spec.schedulingConstraints.topology;
    if (topology.length > MAX_TOPOLOGY_CONSTRAINTS) errs.push(fieldErrors.tooMany(at, topology.length, MAX_TOPOLOGY_CONSTRAINTS));
    else {
      topology.forEach((c, i) => {
        const key = c.key ?? '';
        if (!key) errs.push(fieldErrors.required(at.index(i).child('key')));
        else errs.push(...validateLabelName(key, at.index(i).child('key')));
      });
    }
  }

  if (spec.resourceClaims !== undefined) {
    const at = SPEC.child('resourceClaims');
    const claims = spec.resourceClaims;
    if (claims.length > MAX_RESOURCE_CLAIMS) errs.push(fieldErrors.tooMany(at, claims.length, MAX_RESOURCE_CLAIMS));
    else {
      const seen = new Set<string>();
      claims.forEach((c, i) => {
        const cAt = at.index(i);
        const name = c.name ?? '';
        if (seen.has(name)) errs.push(fieldErrors.duplicate(cAt, c));
        seen.add(name);
        errs.push(...union(cAt, ['resourceClaimName', 'resourceClaimTemplateName'], setMembers(c as Record<string, unknown>, ['resourceClaimName', 'resourceClaimTemplateName'])));
        if (!name) errs.push(fieldErrors.required(cAt.child('name')));
        else errs.push(...dnsLabel(name, cAt.child('name')));
        if (c.resourceClaimName !== undefined) errs.push(...dnsSubdomain(c.resourceClaimName, cAt.child('resourceClaimName')));
        if (c.resourceClaimTemplateName !== undefined) errs.push(...dnsSubdomain(c.resourceClaimTemplateName, cAt.child('resourceClaimTemplateName')));
      });
    }
  }

  const modeAt = SPEC.child('disruptionMode');
  if (spec.disruptionMode === undefined) errs.push(fieldErrors.required(modeAt));
  else errs.push(...union(modeAt, ['single', 'all'], setMembers(spec.disruptionMode, ['single', 'all'])));

  if (spec.priorityClassName) errs.push(...dnsSubdomain(spec.priorityClassName, SPEC.child('priorityClassName')));
  if (spec.priority !== undefined && spec.priority > MAX_POD_GROUP_PRIORITY) {
    errs.push(fieldErrors.invalid(SPEC.child('priority'), spec.priority, `must be less than or equal to ${MAX_POD_GROUP_PRIORITY}`));
  }
  if (spec.preemptionPolicy !== undefined && !(PREEMPTION_POLICIES as readonly string[]).includes(spec.preemptionPolicy)) {
    errs.push(fieldErrors.notSupported(SPEC.child('preemptionPolicy'), spec.preemptionPolicy, PREEMPTION_POLICIES));
  }
  return errs;
}

function validateStatus(status: PodGroup['status'], claims: readonly ResourceClaim[]): FieldError[] {
  if (!status) return [];
  const errs = validateConditions(status.conditions, STATUS.child('conditions'));
  const statuses = status.resourceClaimStatuses ?? [];
  const at = STATUS.child('resourceClaimStatuses');
  if (statuses.length > MAX_RESOURCE_CLAIMS) return [...errs, fieldErrors.tooMany(at, statuses.length, MAX_RESOURCE_CLAIMS)];
  const seen = new Set<string>();
  statuses.forEach((s, i) => {
    const name = s.name ?? '';
    if (seen.has(name)) errs.push(fieldErrors.duplicate(at.index(i), s));
    seen.add(name);
    if (!claims.some((c) => c.name === name)) {
      errs.push(fieldErrors.invalid(at.index(i).child('name'), name, 'must match the name of an entry in `spec.resourceClaims`'));
    }
    if (s.resourceClaimName !== undefined) errs.push(...dnsSubdomain(s.resourceClaimName, at.index(i).child('resourceClaimName')));
  });
  return errs;
}

/** Spec §3.2: once PodGroupInitiallyScheduled is True it is terminal. */
function validateInitiallyScheduledTerminal(conditions: readonly Condition[], old: readonly Condition[]): FieldError[] {
  if (!old.some((c) => c.type === INITIALLY_SCHEDULED && c.status === 'True')) return [];
  const at = STATUS.child('conditions');
  const i = conditions.findIndex((c) => c.type === INITIALLY_SCHEDULED);
  if (i < 0) return [fieldErrors.forbidden(at, `the ${INITIALLY_SCHEDULED} condition may not be removed once True`)];
  const status = conditions[i]!.status;
  if (status !== 'True') {
    return [fieldErrors.invalid(at.index(i).child('status'), status ?? '', `${INITIALLY_SCHEDULED} is terminal once True and may not revert`)];
  }
  return [];
}
