// Spec 000 §2.6 PodGroup (with §3.2 conditions, the §8 minCount limit and the all-namespaces watch of
// §4.2). The API needs the GenericWorkload gate; fields behind further gates are checked both ways:
// dropped while their gate is off, kept and validated while it is on.
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectCode, expectEqual, expectObject, expectStatus, expectTrue, fail, SUCCESS } from '../verify.js';
import { collectionPath, itemPath, kindCommon, postObject } from './kinds.js';
import { POD_GROUP as PG } from './kinds-workloads.js';
import { clone, condition, createWith, expectInvalidAt, objectWith, putObject, putStatus } from './workloads-common.js';

const common = { ...kindCommon(PG, 'podgroup'), level: 'MUST' } as const;
const should = { ...common, level: 'SHOULD' } as const;
const withGates = (gates: Record<string, boolean>) => ({ gates: { GenericWorkload: true, ...gates } });
const s32 = { spec: { doc: '000', section: '3.2' } } as const;

const post = (ctx: CaseContext, edit: (spec: any) => void, hint?: string) => postObject(ctx, PG, objectWith(ctx, PG, edit, hint));
const create = (ctx: CaseContext, what = 'creating a valid PodGroup', edit: (spec: any) => void = () => {}, hint?: string) => createWith(ctx, PG, edit, what, hint);

/** Creates a PodGroup, changes its spec with `edit` and expects the PUT to be rejected at `field`. */
async function expectImmutable(ctx: CaseContext, field: string, initial: (spec: any) => void, edit: (spec: any) => void, what: string) {
  const o = await create(ctx, 'creating the PodGroup to change', initial);
  const next = clone(o);
  edit(next.spec);
  await expectInvalidAt(ctx, await putObject(ctx, PG, next), field, what);
}

/** Creates a PodGroup with `edit` and expects it stored without `field` (its gate is off). */
async function expectDropped(ctx: CaseContext, field: string, edit: (spec: any) => void) {
  const o = await create(ctx, `creating a PodGroup with spec.${field}`, edit);
  expectEqual(o.spec?.[field], undefined, `spec.${field} of the created PodGroup`);
  const got = expectObject(await ctx.api.get(itemPath(PG, ctx.namespace, o.metadata.name)), [200], 'PodGroup', 'read back');
  expectEqual(got.spec?.[field], undefined, `spec.${field} read back`);
}

/**
 * Sends a PodGroup with `edit` while the gate of `field` is off and expects the field not to take
 * effect. The spec says only that the field needs its gate, so refusing the create and storing the
 * object without the field are both conformant (upstream drops it: the SHOULD dropped-gate-off cases).
 */
async function expectNotStored(ctx: CaseContext, field: string, edit: (spec: any) => void) {
  const res = await post(ctx, edit);
  if (res.status >= 400 && res.status < 500) return;
  const o = expectObject(res, SUCCESS.create, 'PodGroup', `creating a PodGroup with spec.${field} (gate off): refused, or stored without the field`);
  expectEqual(o.spec?.[field], undefined, `spec.${field} of the created PodGroup`);
  const got = expectObject(await ctx.api.get(itemPath(PG, ctx.namespace, o.metadata.name)), [200], 'PodGroup', 'read back');
  expectEqual(got.spec?.[field], undefined, `spec.${field} read back`);
}

/** Creates a PodGroup with `edit` and expects `field` stored as sent (its gate is on). */
async function expectKept(ctx: CaseContext, field: string, value: unknown, edit: (spec: any) => void) {
  const o = await create(ctx, `creating a PodGroup with spec.${field}`, (s) => { s[field] = clone(value); edit(s); });
  expectEqual(o.spec?.[field], value, `spec.${field} of the created PodGroup`);
  const got = expectObject(await ctx.api.get(itemPath(PG, ctx.namespace, o.metadata.name)), [200], 'PodGroup', 'read back');
  expectEqual(got.spec?.[field], value, `spec.${field} read back`);
}

const workloadRef = { workloadName: 'conformance-workload', templateName: 'workers' };
const claim = (name: string, template = 'gpu-template') => ({ name, resourceClaimTemplateName: template });
const topology = [{ key: 'topology.example.com/rack' }];

export const podGroupCases: Case[] = [
  defineCase({
    ...common,
    id: 'api.podgroup.spec.required',
    upstreamShape: true,
    title: 'A PodGroup without spec is rejected as Invalid',
    requirements: ['000-2.6-spec-required'],
    async run(ctx) {
      const body = objectWith(ctx, PG, () => {});
      delete body.spec;
      await expectInvalidAt(ctx, await postObject(ctx, PG, body), 'spec', 'create without spec');
    },
  }),
  defineCase({
    ...common,
    id: 'api.podgroup.scheduling-policy.required',
    upstreamShape: true,
    title: 'spec.schedulingPolicy is required',
    requirements: ['000-2.6-scheduling-policy-required'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { delete s.schedulingPolicy; }), 'spec.schedulingPolicy', 'create without spec.schedulingPolicy');
    },
  }),
  defineCase({
    ...common,
    id: 'api.podgroup.scheduling-policy.exactly-one',
    upstreamShape: true,
    title: 'spec.schedulingPolicy sets exactly one of basic and gang',
    requirements: ['000-2.6-scheduling-policy-exactly-one'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.schedulingPolicy = { basic: {}, gang: { minCount: 2 } }; }), 'spec.schedulingPolicy', 'create with both basic and gang');
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.schedulingPolicy = {}; }), 'spec.schedulingPolicy', 'create with neither basic nor gang');
    },
  }),
  defineCase({
    ...common,
    id: 'api.podgroup.scheduling-policy.basic',
    title: 'A basic scheduling policy (no fields) is accepted and stored',
    requirements: ['000-2.6-basic-policy'],
    async run(ctx) {
      const o = await create(ctx, 'creating with schedulingPolicy basic', (s) => { s.schedulingPolicy = { basic: {} }; });
      expectEqual(o.spec?.schedulingPolicy, { basic: {} }, 'stored spec.schedulingPolicy');
    },
  }),
  defineCase({
    ...common,
    id: 'api.podgroup.scheduling-policy.gang',
    title: 'A gang scheduling policy is accepted and stored with its minCount',
    requirements: ['000-2.6-gang-policy'],
    async run(ctx) {
      const o = await create(ctx, 'creating with schedulingPolicy gang', (s) => { s.schedulingPolicy = { gang: { minCount: 4 } }; });
      expectEqual(o.spec?.schedulingPolicy, { gang: { minCount: 4 } }, 'stored spec.schedulingPolicy');
    },
  }),
  defineCase({
    ...common,
    id: 'api.podgroup.gang.cannot-set',
    upstreamShape: true,
    title: 'gang cannot be set after creation (basic stays basic)',
    requirements: ['000-2.6-scheduling-policy-immutable', '000-2.6-gang-set-unset-immutable'],
    async run(ctx) {
      await expectImmutable(ctx, 'spec.schedulingPolicy', (s) => { s.schedulingPolicy = { basic: {} }; }, (s) => { s.schedulingPolicy = { gang: { minCount: 2 } }; }, 'PUT switching basic to gang');
    },
  }),
  defineCase({
    ...common,
    id: 'api.podgroup.gang.cannot-unset',
    upstreamShape: true,
    title: 'gang cannot be unset after creation (gang stays gang)',
    requirements: ['000-2.6-scheduling-policy-immutable', '000-2.6-gang-set-unset-immutable'],
    async run(ctx) {
      await expectImmutable(ctx, 'spec.schedulingPolicy', () => {}, (s) => { s.schedulingPolicy = { basic: {} }; }, 'PUT switching gang to basic');
    },
  }),
  defineCase({
    ...common,
    id: 'api.podgroup.gang.min-count.required',
    upstreamShape: true,
    title: 'gang.minCount is required',
    requirements: ['000-2.6-gang-min-count-required'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.schedulingPolicy = { gang: {} }; }), 'spec.schedulingPolicy.gang.minCount', 'create with gang without minCount', 'FieldValueRequired');
    },
  }),
  defineCase({
    ...common,
    id: 'api.podgroup.gang.min-count.positive',
    upstreamShape: true,
    title: 'gang.minCount is a positive integer',
    requirements: ['000-2.6-gang-min-count-positive', '000-8-pod-group-min-count'],
    async run(ctx) {
      const o = await create(ctx, 'creating with minCount 1', (s) => { s.schedulingPolicy = { gang: { minCount: 1 } }; });
      expectEqual(o.spec?.schedulingPolicy?.gang?.minCount, 1, 'stored minCount');
      for (const minCount of [0, -1]) {
        await expectInvalidAt(ctx, await post(ctx, (s) => { s.schedulingPolicy = { gang: { minCount } }; }), 'spec.schedulingPolicy.gang.minCount', `create with minCount ${minCount}`);
      }
    },
  }),
  defineCase({
    ...common,
    id: 'api.podgroup.gang.min-count.mutable',
    title: 'gang.minCount can change after creation (scaling)',
    requirements: ['000-2.6-gang-min-count-mutable'],
    async run(ctx) {
      const o = await create(ctx, 'creating with minCount 2', (s) => { s.schedulingPolicy = { gang: { minCount: 2 } }; });
      const next = clone(o);
      next.spec.schedulingPolicy.gang.minCount = 5;
      const put = expectObject(await putObject(ctx, PG, next), SUCCESS.replace, 'PodGroup', 'PUT with minCount 5');
      expectEqual(put.spec?.schedulingPolicy?.gang?.minCount, 5, 'minCount after the PUT');
      const got = expectObject(await ctx.api.get(itemPath(PG, ctx.namespace, o.metadata.name)), [200], 'PodGroup', 'read back');
      expectEqual(got.spec?.schedulingPolicy?.gang?.minCount, 5, 'minCount read back');
    },
  }),
  defineCase({
    ...common,
    id: 'api.podgroup.disruption-mode.default',
    title: 'spec.disruptionMode defaults to single',
    requirements: ['000-2.6-disruption-mode-default-single'],
    async run(ctx) {
      const o = await create(ctx, 'creating without disruptionMode', (s) => { delete s.disruptionMode; });
      expectEqual(o.spec?.disruptionMode, { single: {} }, 'spec.disruptionMode of a PodGroup created without one');
    },
  }),
  defineCase({
    ...common,
    id: 'api.podgroup.disruption-mode.allowed',
    title: 'spec.disruptionMode accepts all and single',
    requirements: ['000-2.6-disruption-mode-exactly-one'],
    async run(ctx) {
      for (const mode of ['all', 'single']) {
        const o = await create(ctx, `creating with disruptionMode ${mode}`, (s) => { s.disruptionMode = { [mode]: {} }; }, mode);
        expectEqual(o.spec?.disruptionMode, { [mode]: {} }, `stored spec.disruptionMode ${mode}`);
      }
    },
  }),
  defineCase({
    ...common,
    id: 'api.podgroup.disruption-mode.exactly-one',
    upstreamShape: true,
    title: 'spec.disruptionMode sets exactly one of all and single',
    requirements: ['000-2.6-disruption-mode-exactly-one'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.disruptionMode = { all: {}, single: {} }; }), 'spec.disruptionMode', 'create with both all and single');
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.disruptionMode = {}; }), 'spec.disruptionMode', 'create with an empty disruptionMode');
    },
  }),
  defineCase({
    ...common,
    id: 'api.podgroup.disruption-mode.immutable',
    upstreamShape: true,
    title: 'spec.disruptionMode cannot be changed',
    requirements: ['000-2.6-disruption-mode-immutable'],
    async run(ctx) {
      await expectImmutable(ctx, 'spec.disruptionMode', (s) => { s.disruptionMode = { single: {} }; }, (s) => { s.disruptionMode = { all: {} }; }, 'PUT changing disruptionMode single to all');
    },
  }),

  // parentCompositePodGroupName (CompositePodGroup gate)
  defineCase({
    ...should,
    ...withGates({ CompositePodGroup: false }),
    id: 'api.podgroup.parent-composite.dropped-gate-off',
    title: 'With CompositePodGroup off, spec.parentCompositePodGroupName is dropped on write',
    requirements: ['000-2.6-gated-fields-dropped'],
    async run(ctx) {
      await expectDropped(ctx, 'parentCompositePodGroupName', (s) => { s.parentCompositePodGroupName = 'root-group'; s.workloadRef = clone(workloadRef); });
    },
  }),
  defineCase({
    ...common,
    ...withGates({ CompositePodGroup: true }),
    id: 'api.podgroup.parent-composite.kept-gate-on',
    title: 'With CompositePodGroup on, spec.parentCompositePodGroupName is stored',
    requirements: ['000-2.6-parent-composite-pod-group-name', '000-2.6-parent-composite-pod-group-name-gate'],
    async run(ctx) {
      await expectKept(ctx, 'parentCompositePodGroupName', 'root-group', (s) => { s.workloadRef = clone(workloadRef); });
    },
  }),
  defineCase({
    ...should,
    ...withGates({ CompositePodGroup: true }),
    id: 'api.podgroup.parent-composite.format',
    title: 'spec.parentCompositePodGroupName must be a DNS-1123 subdomain',
    requirements: ['000-2.6-parent-composite-pod-group-name-format'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.parentCompositePodGroupName = 'Root_Group'; s.workloadRef = clone(workloadRef); }), 'spec.parentCompositePodGroupName', 'create with parentCompositePodGroupName "Root_Group"');
    },
  }),
  defineCase({
    ...should,
    ...withGates({ CompositePodGroup: true }),
    id: 'api.podgroup.parent-composite.requires-workload-ref',
    title: 'spec.workloadRef must be set when spec.parentCompositePodGroupName is',
    requirements: ['000-2.6-parent-composite-requires-workload-ref'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.parentCompositePodGroupName = 'root-group'; delete s.workloadRef; }), 'spec.workloadRef', 'create with parentCompositePodGroupName and no workloadRef', 'FieldValueRequired');
    },
  }),
  defineCase({
    ...common,
    ...withGates({ CompositePodGroup: true }),
    id: 'api.podgroup.parent-composite.immutable',
    upstreamShape: true,
    title: 'spec.parentCompositePodGroupName cannot be changed',
    requirements: ['000-2.6-parent-composite-pod-group-name-immutable'],
    async run(ctx) {
      await expectImmutable(
        ctx,
        'spec.parentCompositePodGroupName',
        (s) => { s.parentCompositePodGroupName = 'root-group'; s.workloadRef = clone(workloadRef); },
        (s) => { s.parentCompositePodGroupName = 'another-root'; },
        'PUT changing parentCompositePodGroupName',
      );
    },
  }),

  // preemptionPolicy (PodGroupPreemptionPolicy gate)
  defineCase({
    ...should,
    ...withGates({ PodGroupPreemptionPolicy: false }),
    id: 'api.podgroup.preemption-policy.dropped-gate-off',
    title: 'With PodGroupPreemptionPolicy off, spec.preemptionPolicy is dropped on write (and not defaulted)',
    requirements: ['000-2.6-gated-fields-dropped'],
    async run(ctx) {
      await expectDropped(ctx, 'preemptionPolicy', (s) => { s.preemptionPolicy = 'Never'; });
    },
  }),
  defineCase({
    ...common,
    ...withGates({ PodGroupPreemptionPolicy: false }),
    id: 'api.podgroup.preemption-policy.not-stored-gate-off',
    title: 'With PodGroupPreemptionPolicy off, spec.preemptionPolicy is not available: refused, or not stored',
    requirements: ['000-2.6-preemption-policy-gate', '000-9-podgroup-field-gates'],
    async run(ctx) {
      await expectNotStored(ctx, 'preemptionPolicy', (s) => { s.preemptionPolicy = 'Never'; });
    },
  }),
  defineCase({
    ...common,
    ...withGates({ PodGroupPreemptionPolicy: true }),
    id: 'api.podgroup.preemption-policy.default',
    title: 'spec.preemptionPolicy defaults to PreemptLowerPriority',
    requirements: ['000-2.6-preemption-policy-default'],
    async run(ctx) {
      const o = await create(ctx, 'creating without preemptionPolicy', (s) => { delete s.preemptionPolicy; });
      expectEqual(o.spec?.preemptionPolicy, 'PreemptLowerPriority', 'spec.preemptionPolicy of a PodGroup created without one');
    },
  }),
  defineCase({
    ...common,
    ...withGates({ PodGroupPreemptionPolicy: true }),
    id: 'api.podgroup.preemption-policy.allowed',
    title: 'spec.preemptionPolicy accepts Never and PreemptLowerPriority',
    requirements: ['000-2.6-preemption-policy-values', '000-2.6-preemption-policy-gate'],
    async run(ctx) {
      for (const policy of ['Never', 'PreemptLowerPriority']) {
        const o = await create(ctx, `creating with preemptionPolicy ${policy}`, (s) => { s.preemptionPolicy = policy; }, policy.toLowerCase());
        expectEqual(o.spec?.preemptionPolicy, policy, `stored spec.preemptionPolicy ${policy}`);
      }
    },
  }),
  defineCase({
    ...common,
    ...withGates({ PodGroupPreemptionPolicy: true }),
    id: 'api.podgroup.preemption-policy.unsupported',
    upstreamShape: true,
    title: 'A spec.preemptionPolicy other than Never or PreemptLowerPriority is rejected',
    requirements: ['000-2.6-preemption-policy-values'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.preemptionPolicy = 'Sometimes'; }), 'spec.preemptionPolicy', 'create with preemptionPolicy "Sometimes"', 'FieldValueNotSupported');
    },
  }),
  defineCase({
    ...common,
    ...withGates({ PodGroupPreemptionPolicy: true }),
    id: 'api.podgroup.preemption-policy.immutable',
    upstreamShape: true,
    title: 'spec.preemptionPolicy cannot be changed',
    requirements: ['000-2.6-preemption-policy-immutable'],
    async run(ctx) {
      await expectImmutable(ctx, 'spec.preemptionPolicy', (s) => { s.preemptionPolicy = 'Never'; }, (s) => { s.preemptionPolicy = 'PreemptLowerPriority'; }, 'PUT changing preemptionPolicy');
    },
  }),

  // priority and priorityClassName
  defineCase({
    ...should,
    id: 'api.podgroup.priority.maximum',
    title: 'spec.priority is at most 1000000000',
    requirements: ['000-2.6-priority-maximum'],
    async run(ctx) {
      const o = await create(ctx, 'creating with priority 1000000000', (s) => { s.priority = 1_000_000_000; });
      expectEqual(o.spec?.priority, 1_000_000_000, 'stored spec.priority');
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.priority = 1_000_000_001; }), 'spec.priority', 'create with priority 1000000001');
    },
  }),
  defineCase({
    ...common,
    id: 'api.podgroup.priority.immutable',
    upstreamShape: true,
    title: 'spec.priority cannot be changed',
    requirements: ['000-2.6-priority-immutable'],
    async run(ctx) {
      await expectImmutable(ctx, 'spec.priority', (s) => { s.priority = 100; }, (s) => { s.priority = 200; }, 'PUT changing priority 100 to 200');
    },
  }),
  defineCase({
    ...should,
    id: 'api.podgroup.priority-class-name.format',
    title: 'spec.priorityClassName must be a DNS-1123 subdomain',
    requirements: ['000-2.6-priority-class-name-format'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.priorityClassName = 'High_Priority'; }), 'spec.priorityClassName', 'create with priorityClassName "High_Priority"');
    },
  }),
  defineCase({
    ...common,
    id: 'api.podgroup.priority-class-name.immutable',
    upstreamShape: true,
    title: 'spec.priorityClassName cannot be changed',
    requirements: ['000-2.6-priority-class-name-immutable'],
    async run(ctx) {
      await expectImmutable(ctx, 'spec.priorityClassName', (s) => { s.priorityClassName = 'high'; }, (s) => { s.priorityClassName = 'low'; }, 'PUT changing priorityClassName');
    },
  }),

  // resourceClaims (DRAWorkloadResourceClaims gate, beta, on by default)
  defineCase({
    ...common,
    ...withGates({ DRAWorkloadResourceClaims: true }),
    id: 'api.podgroup.resource-claims.kept-gate-on',
    title: 'With DRAWorkloadResourceClaims on, spec.resourceClaims is stored',
    requirements: ['000-2.6-resource-claims-gate'],
    async run(ctx) {
      await expectKept(ctx, 'resourceClaims', [claim('gpus'), { name: 'shared', resourceClaimName: 'shared-claim' }], () => {});
    },
  }),
  defineCase({
    ...should,
    ...withGates({ DRAWorkloadResourceClaims: false }),
    id: 'api.podgroup.resource-claims.dropped-gate-off',
    title: 'With DRAWorkloadResourceClaims off, spec.resourceClaims is dropped on write',
    requirements: ['000-2.6-gated-fields-dropped'],
    async run(ctx) {
      await expectDropped(ctx, 'resourceClaims', (s) => { s.resourceClaims = [claim('gpus')]; });
    },
  }),
  defineCase({
    ...common,
    ...withGates({ DRAWorkloadResourceClaims: false }),
    id: 'api.podgroup.resource-claims.not-stored-gate-off',
    title: 'With DRAWorkloadResourceClaims off, spec.resourceClaims is not available: refused, or not stored',
    requirements: ['000-2.6-resource-claims-gate', '000-9-podgroup-field-gates'],
    async run(ctx) {
      await expectNotStored(ctx, 'resourceClaims', (s) => { s.resourceClaims = [claim('gpus')]; });
    },
  }),
  defineCase({
    ...common,
    ...withGates({ DRAWorkloadResourceClaims: true }),
    id: 'api.podgroup.resource-claims.name-required',
    upstreamShape: true,
    title: 'A resource claim without name is rejected',
    requirements: ['000-2.6-resource-claim-name-required'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.resourceClaims = [{ resourceClaimTemplateName: 'gpu-template' }]; }), 'spec.resourceClaims[0].name', 'create with a claim without name', 'FieldValueRequired');
    },
  }),
  defineCase({
    ...common,
    ...withGates({ DRAWorkloadResourceClaims: true }),
    id: 'api.podgroup.resource-claims.name-dns-label',
    upstreamShape: true,
    title: 'A resource claim name must be a DNS label',
    requirements: ['000-2.6-resource-claim-name-dns-label'],
    async run(ctx) {
      for (const name of ['GPUs', 'gpus.a']) {
        await expectInvalidAt(ctx, await post(ctx, (s) => { s.resourceClaims = [claim(name)]; }), 'spec.resourceClaims[0].name', `create with claim name ${JSON.stringify(name)}`, 'FieldValueInvalid');
      }
    },
  }),
  defineCase({
    ...common,
    ...withGates({ DRAWorkloadResourceClaims: true }),
    id: 'api.podgroup.resource-claims.name-unique',
    upstreamShape: true,
    title: 'Resource claim names are unique in the group',
    requirements: ['000-2.6-resource-claim-name-unique'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.resourceClaims = [claim('gpus', 'a'), claim('gpus', 'b')]; }), 'spec.resourceClaims[1]', 'create with two claims named "gpus"', 'FieldValueDuplicate');
    },
  }),
  defineCase({
    ...common,
    ...withGates({ DRAWorkloadResourceClaims: true }),
    id: 'api.podgroup.resource-claims.exactly-one-source',
    upstreamShape: true,
    title: 'A resource claim sets exactly one of resourceClaimName and resourceClaimTemplateName',
    requirements: ['000-2.6-resource-claim-exactly-one-source'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.resourceClaims = [{ name: 'gpus' }]; }), 'spec.resourceClaims[0]', 'create with a claim naming neither a claim nor a template');
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.resourceClaims = [{ name: 'gpus', resourceClaimName: 'c', resourceClaimTemplateName: 't' }]; }), 'spec.resourceClaims[0]', 'create with a claim naming both a claim and a template');
    },
  }),
  defineCase({
    ...should,
    ...withGates({ DRAWorkloadResourceClaims: true }),
    id: 'api.podgroup.resource-claims.reference-names-format',
    title: 'resourceClaimName and resourceClaimTemplateName must be DNS-1123 subdomains',
    requirements: ['000-2.6-resource-claim-reference-names-format'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.resourceClaims = [{ name: 'gpus', resourceClaimName: 'Bad_Claim' }]; }), 'spec.resourceClaims[0].resourceClaimName', 'create with resourceClaimName "Bad_Claim"');
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.resourceClaims = [{ name: 'gpus', resourceClaimTemplateName: 'Bad_Template' }]; }), 'spec.resourceClaims[0].resourceClaimTemplateName', 'create with resourceClaimTemplateName "Bad_Template"');
    },
  }),
  defineCase({
    ...common,
    ...withGates({ DRAWorkloadResourceClaims: true }),
    id: 'api.podgroup.resource-claims.immutable',
    upstreamShape: true,
    title: 'spec.resourceClaims cannot be changed (no claim added)',
    requirements: ['000-2.6-resource-claims-immutable'],
    async run(ctx) {
      await expectImmutable(ctx, 'spec.resourceClaims', (s) => { s.resourceClaims = [claim('gpus')]; }, (s) => { s.resourceClaims.push(claim('more')); }, 'PUT adding a resource claim');
    },
  }),
  defineCase({
    ...common,
    ...withGates({ DRAWorkloadResourceClaims: true }),
    id: 'api.podgroup.resource-claims.template-name-immutable',
    upstreamShape: true,
    title: 'A resource claim\'s resourceClaimTemplateName cannot be changed',
    requirements: ['000-2.6-resource-claim-template-name-immutable'],
    async run(ctx) {
      await expectImmutable(ctx, 'spec.resourceClaims', (s) => { s.resourceClaims = [claim('gpus', 'template-a')]; }, (s) => { s.resourceClaims[0].resourceClaimTemplateName = 'template-b'; }, 'PUT changing resourceClaimTemplateName');
    },
  }),
  defineCase({
    ...should,
    ...withGates({ DRAWorkloadResourceClaims: true }),
    id: 'api.podgroup.resource-claims.max-4',
    title: 'spec.resourceClaims holds at most 4 claims',
    requirements: ['000-2.6-resource-claims-max-4'],
    async run(ctx) {
      const claims = (n: number) => Array.from({ length: n }, (_, i) => claim(`claim-${i}`));
      const o = await create(ctx, 'creating with 4 resource claims', (s) => { s.resourceClaims = claims(4); });
      expectEqual(o.spec?.resourceClaims?.length, 4, 'number of stored resource claims');
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.resourceClaims = claims(5); }), 'spec.resourceClaims', 'create with 5 resource claims', 'FieldValueTooMany');
    },
  }),

  // schedulingConstraints (TopologyAwareWorkloadScheduling gate)
  defineCase({
    ...should,
    ...withGates({ TopologyAwareWorkloadScheduling: false }),
    id: 'api.podgroup.scheduling-constraints.dropped-gate-off',
    title: 'With TopologyAwareWorkloadScheduling off, spec.schedulingConstraints is dropped on write',
    requirements: ['000-2.6-gated-fields-dropped'],
    async run(ctx) {
      await expectDropped(ctx, 'schedulingConstraints', (s) => { s.schedulingConstraints = { topology: clone(topology) }; });
    },
  }),
  defineCase({
    ...common,
    ...withGates({ TopologyAwareWorkloadScheduling: false }),
    id: 'api.podgroup.scheduling-constraints.not-stored-gate-off',
    title: 'With TopologyAwareWorkloadScheduling off, spec.schedulingConstraints is not available: refused, or not stored',
    requirements: ['000-2.6-scheduling-constraints-gate', '000-9-podgroup-field-gates'],
    async run(ctx) {
      await expectNotStored(ctx, 'schedulingConstraints', (s) => { s.schedulingConstraints = { topology: clone(topology) }; });
    },
  }),
  defineCase({
    ...common,
    ...withGates({ TopologyAwareWorkloadScheduling: true }),
    id: 'api.podgroup.scheduling-constraints.kept-gate-on',
    title: 'With TopologyAwareWorkloadScheduling on, spec.schedulingConstraints is stored',
    requirements: ['000-2.6-scheduling-constraints-gate'],
    async run(ctx) {
      await expectKept(ctx, 'schedulingConstraints', { topology }, () => {});
    },
  }),
  defineCase({
    ...common,
    ...withGates({ TopologyAwareWorkloadScheduling: true }),
    id: 'api.podgroup.scheduling-constraints.single-topology',
    upstreamShape: true,
    title: 'spec.schedulingConstraints.topology holds at most one constraint',
    requirements: ['000-2.6-scheduling-constraints-single-topology'],
    async run(ctx) {
      const two = [{ key: 'topology.example.com/rack' }, { key: 'topology.example.com/zone' }];
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.schedulingConstraints = { topology: two }; }), 'spec.schedulingConstraints.topology', 'create with two topology constraints', 'FieldValueTooMany');
    },
  }),
  defineCase({
    ...common,
    ...withGates({ TopologyAwareWorkloadScheduling: true }),
    id: 'api.podgroup.scheduling-constraints.key-required',
    upstreamShape: true,
    title: 'A topology constraint without key is rejected',
    requirements: ['000-2.6-topology-constraint-key-required'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.schedulingConstraints = { topology: [{}] }; }), 'spec.schedulingConstraints.topology[0].key', 'create with a topology constraint without key', 'FieldValueRequired');
    },
  }),
  defineCase({
    ...common,
    ...withGates({ TopologyAwareWorkloadScheduling: true }),
    id: 'api.podgroup.scheduling-constraints.key-label-key',
    upstreamShape: true,
    title: 'A topology constraint key must be a label key',
    requirements: ['000-2.6-topology-constraint-key-label-key'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.schedulingConstraints = { topology: [{ key: 'not a label key!' }] }; }), 'spec.schedulingConstraints.topology[0].key', 'create with topology key "not a label key!"', 'FieldValueInvalid');
    },
  }),
  defineCase({
    ...common,
    ...withGates({ TopologyAwareWorkloadScheduling: true }),
    id: 'api.podgroup.scheduling-constraints.immutable',
    upstreamShape: true,
    title: 'spec.schedulingConstraints cannot be changed',
    requirements: ['000-2.6-scheduling-constraints-immutable'],
    async run(ctx) {
      await expectImmutable(ctx, 'spec.schedulingConstraints', (s) => { s.schedulingConstraints = { topology: clone(topology) }; }, (s) => { s.schedulingConstraints.topology[0].key = 'topology.example.com/zone'; }, 'PUT changing the topology key');
    },
  }),

  // workloadRef
  defineCase({
    ...common,
    id: 'api.podgroup.workload-ref.template-name-required',
    upstreamShape: true,
    title: 'workloadRef.templateName is required',
    requirements: ['000-2.6-workload-ref-template-name-required'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.workloadRef = { workloadName: 'conformance-workload' }; }), 'spec.workloadRef.templateName', 'create with workloadRef without templateName', 'FieldValueRequired');
    },
  }),
  defineCase({
    ...common,
    id: 'api.podgroup.workload-ref.workload-name-required',
    upstreamShape: true,
    title: 'workloadRef.workloadName is required',
    requirements: ['000-2.6-workload-ref-workload-name-required'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.workloadRef = { templateName: 'workers' }; }), 'spec.workloadRef.workloadName', 'create with workloadRef without workloadName', 'FieldValueRequired');
    },
  }),
  defineCase({
    ...common,
    id: 'api.podgroup.workload-ref.template-name-dns-label',
    upstreamShape: true,
    title: 'workloadRef.templateName must be a DNS label',
    requirements: ['000-2.6-workload-ref-template-name-dns-label'],
    async run(ctx) {
      for (const templateName of ['Workers', 'workers.a']) {
        await expectInvalidAt(ctx, await post(ctx, (s) => { s.workloadRef = { ...workloadRef, templateName }; }), 'spec.workloadRef.templateName', `create with templateName ${JSON.stringify(templateName)}`, 'FieldValueInvalid');
      }
    },
  }),
  defineCase({
    ...common,
    id: 'api.podgroup.workload-ref.workload-name-dns-name',
    upstreamShape: true,
    title: 'workloadRef.workloadName must be a DNS name (dots allowed, no uppercase)',
    requirements: ['000-2.6-workload-ref-workload-name-dns-name'],
    async run(ctx) {
      const o = await create(ctx, 'creating with workloadName "my.workload"', (s) => { s.workloadRef = { ...workloadRef, workloadName: 'my.workload' }; });
      expectEqual(o.spec?.workloadRef?.workloadName, 'my.workload', 'stored workloadRef.workloadName');
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.workloadRef = { ...workloadRef, workloadName: 'My_Workload' }; }), 'spec.workloadRef.workloadName', 'create with workloadName "My_Workload"', 'FieldValueInvalid');
    },
  }),
  defineCase({
    ...common,
    id: 'api.podgroup.workload-ref.immutable',
    upstreamShape: true,
    title: 'spec.workloadRef cannot be changed',
    requirements: ['000-2.6-workload-ref-immutable'],
    async run(ctx) {
      await expectImmutable(ctx, 'spec.workloadRef', (s) => { s.workloadRef = clone(workloadRef); }, (s) => { s.workloadRef.templateName = 'drivers'; }, 'PUT changing workloadRef.templateName');
    },
  }),

  // status. §3.2 "once True, PodGroupInitiallyScheduled never reverts to False" binds the scheduler
  // that writes the condition; the API server need not refuse such a status write (upstream does
  // not), so no request-level case can observe it: the rule stays uncovered until a scheduler exists.
  defineCase({
    ...common,
    ...s32,
    id: 'api.podgroup.status.initially-scheduled.reasons',
    title: 'PodGroupInitiallyScheduled takes the reasons Unschedulable and SchedulerError',
    requirements: ['000-3.2-initially-scheduled', '000-3.2-initially-scheduled-reasons'],
    async run(ctx) {
      let o = await create(ctx);
      for (const reason of ['Unschedulable', 'SchedulerError']) {
        o = await putStatus(ctx, PG, o, { conditions: [condition('PodGroupInitiallyScheduled', 'False', reason)] }, `PUT .../status with reason ${reason}`);
        expectEqual(o.status?.conditions?.[0]?.reason, reason, `stored reason ${reason}`);
      }
      o = await putStatus(ctx, PG, o, { conditions: [condition('PodGroupInitiallyScheduled', 'True', 'Scheduled')] }, 'PUT .../status with PodGroupInitiallyScheduled True');
      expectEqual(o.status?.conditions?.[0]?.status, 'True', 'stored status of PodGroupInitiallyScheduled');
    },
  }),
  defineCase({
    ...common,
    ...s32,
    id: 'api.podgroup.status.disruption-target',
    title: 'The DisruptionTarget condition with reason PreemptionByScheduler is accepted',
    requirements: ['000-3.2-disruption-target'],
    async run(ctx) {
      const o = await create(ctx);
      const want = condition('DisruptionTarget', 'True', 'PreemptionByScheduler', 'preempted for a higher-priority group');
      const got = await putStatus(ctx, PG, o, { conditions: [want] }, 'PUT .../status with DisruptionTarget');
      expectEqual(got.status?.conditions, [want], 'stored status.conditions');
    },
  }),
  defineCase({
    ...should,
    id: 'api.podgroup.status.conditions.unique-type',
    title: 'Two status conditions of the same type are rejected',
    requirements: ['000-2.6-status-conditions-unique-type'],
    async run(ctx) {
      const o = await create(ctx);
      const status = { conditions: [condition('DisruptionTarget', 'False', 'NotPreempted'), condition('DisruptionTarget', 'True', 'PreemptionByScheduler')] };
      await expectInvalidAt(ctx, await putObject(ctx, PG, { ...o, status }, true), 'status.conditions[1]', 'PUT .../status with two DisruptionTarget conditions', 'FieldValueDuplicate');
    },
  }),
  defineCase({
    ...should,
    id: 'api.podgroup.status.condition.shape',
    title: 'A status condition must have a valid status, a reason and a lastTransitionTime',
    requirements: ['000-2.6-status-condition-shape'],
    async run(ctx) {
      const o = await create(ctx);
      const bad = [
        ['status "Maybe"', condition('DisruptionTarget', 'Maybe', 'PreemptionByScheduler'), 'status.conditions[0].status'],
        ['no reason', { type: 'DisruptionTarget', status: 'False', lastTransitionTime: '2025-01-01T00:00:00Z' }, 'status.conditions[0].reason'],
        ['no lastTransitionTime', { type: 'DisruptionTarget', status: 'False', reason: 'NotPreempted' }, 'status.conditions[0].lastTransitionTime'],
      ] as const;
      for (const [what, c, field] of bad) {
        await expectInvalidAt(ctx, await putObject(ctx, PG, { ...o, status: { conditions: [c] } }, true), field, `PUT .../status with a condition with ${what}`);
      }
    },
  }),
  defineCase({
    ...should,
    ...withGates({ DRAWorkloadResourceClaims: true }),
    id: 'api.podgroup.status.resource-claim-statuses.name',
    title: 'status.resourceClaimStatuses entries name a claim of spec.resourceClaims',
    requirements: ['000-2.6-status-resource-claim-statuses-name'],
    async run(ctx) {
      const o = await create(ctx, 'creating with a templated resource claim', (s) => { s.resourceClaims = [claim('gpus')]; });
      const entry = { name: 'gpus', resourceClaimName: `${o.metadata.name}-gpus-x7k2p` };
      const got = await putStatus(ctx, PG, o, { resourceClaimStatuses: [entry] }, 'PUT .../status with a status for claim "gpus"');
      expectEqual(got.status?.resourceClaimStatuses, [entry], 'stored status.resourceClaimStatuses');
      const stray = { resourceClaimStatuses: [entry, { name: 'unknown', resourceClaimName: 'whatever' }] };
      await expectInvalidAt(ctx, await putObject(ctx, PG, { ...got, status: stray }, true), 'status.resourceClaimStatuses[1].name', 'PUT .../status with a status for a claim the spec does not have');
    },
  }),

  // the API itself
  defineCase({
    ...common,
    gates: { GenericWorkload: false },
    impact: 'read-only',
    id: 'api.podgroup.api.gated',
    upstreamShape: true,
    title: 'With GenericWorkload off, the PodGroup API is not served (404, absent from discovery)',
    requirements: ['000-2.6-generic-workload-gate', '000-9-podgroup-version'],
    async run(ctx) {
      expectStatus(await ctx.api.get(collectionPath(PG, ctx.namespace)), { code: 404, reason: 'NotFound' }, 'GET of the PodGroup collection');
      const groups = expectObject(await ctx.api.get('/apis'), [200], 'APIGroupList', 'GET /apis');
      const versions = (groups.groups ?? []).filter((g: any) => g?.name === 'scheduling.orch.io').flatMap((g: any) => (g.versions ?? []).map((v: any) => v?.groupVersion));
      expectTrue(!versions.includes('scheduling.orch.io/v1beta1'), 'scheduling.orch.io/v1beta1 is not advertised in /apis', 'no scheduling.orch.io/v1beta1', versions);
      expectCode(await ctx.api.get('/apis/scheduling.orch.io/v1beta1'), 404, 'GET /apis/scheduling.orch.io/v1beta1');
    },
  }),
  defineCase({
    ...common,
    id: 'api.podgroup.scope.namespaced',
    upstreamShape: true,
    title: 'PodGroup is namespaced: it lives in the namespace of its path',
    requirements: ['000-2.6-namespaced'],
    async run(ctx) {
      const o = await create(ctx);
      expectEqual(o.metadata?.namespace, ctx.namespace, 'metadata.namespace of the created PodGroup');
      const res = await ctx.api.get(`/apis/scheduling.orch.io/v1beta1/podgroups/${encodeURIComponent(o.metadata.name)}`);
      expectStatus(res, { code: 404, reason: 'NotFound' }, 'reading the PodGroup by name without a namespace');
    },
  }),
  defineCase({
    ...common,
    spec: { doc: '000', section: '4.2' },
    impact: 'cluster-scoped',
    id: 'api.podgroup.watch.all-namespaces',
    title: 'GET /apis/scheduling.orch.io/v1beta1/watch/podgroups streams pod groups of every namespace',
    requirements: ['000-4.2-podgroups-watch-all-namespaces'],
    async run(ctx) {
      // Two namespaces of the case's own, so that "every namespace" means more than one.
      const namespaces = [ctx.uniqueName('ns-a'), ctx.uniqueName('ns-b')];
      for (const ns of namespaces) {
        ctx.track(`/api/v1/namespaces/${ns}`);
        expectObject(await ctx.api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { ...ctx.labels } } }), SUCCESS.create, 'Namespace', `creating namespace ${ns}`);
      }

      const w = await ctx.api.watch('/apis/scheduling.orch.io/v1beta1/watch/podgroups');
      expectEqual(w.status, 200, 'HTTP status of the all-namespaces watch');
      const want = new Set<string>();
      for (const ns of namespaces) {
        const body = objectWith(ctx, PG, () => {});
        ctx.track(itemPath(PG, ns, body.metadata.name));
        expectObject(await ctx.api.post(collectionPath(PG, ns), body), SUCCESS.create, 'PodGroup', `creating a PodGroup in namespace ${ns}`);
        want.add(`${ns}/${body.metadata.name}`);
      }

      const seen = new Set<string>();
      const deadline = Date.now() + 10_000;
      while ([...want].some((k) => !seen.has(k)) && Date.now() < deadline) {
        const ev = await w.next(Math.max(1, deadline - Date.now()));
        if (!ev) break;
        if (ev.type === 'ADDED' && ev.object?.kind === 'PodGroup') seen.add(`${ev.object.metadata?.namespace}/${ev.object.metadata?.name}`);
      }
      w.close();
      const missing = [...want].filter((k) => !seen.has(k));
      if (missing.length) fail('ADDED events for the pod groups of both namespaces', [...want].join(', '), `no ADDED event for ${missing.join(', ')}`);
    },
  }),
];
