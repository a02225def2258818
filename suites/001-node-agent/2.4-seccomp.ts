// Spec 001 §2.4 seccomp fields, as the control plane accepts them on a Pod: seccompProfile at pod level
// and in each container, its type, and localhostProfile (rules of upstream pod validation and the
// ground-truth note). What the agent and runtime do with a profile is checked on the agent side.
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectEqual, expectObject, expectRefused } from '../verify.js';
import { createObject, itemPath, newObject, postObject } from '../000-control-plane/kinds.js';
import { HOLD_GATE, IMAGE, POD, agentCommon } from './kinds.js';

const seccompCase = (level: 'MUST' | 'SHOULD') => ({ ...agentCommon(POD, 'seccomp', '2.4'), level });
const SC_AT = 'spec.containers[0].securityContext.seccompProfile';

/** A held pod whose one container has this seccompProfile. */
const withProfile = (seccompProfile: unknown) => ({
  spec: { schedulingGates: [HOLD_GATE], containers: [{ name: 'main', image: IMAGE, securityContext: { seccompProfile } }] },
});

async function expectInvalidProfile(ctx: CaseContext, profile: unknown, causes: Array<{ field: string; reason?: string }>, what: string) {
  await expectRefused(ctx.api, await postObject(ctx, POD, newObject(ctx, POD, withProfile(profile))), { code: 422, reason: 'Invalid', causes }, what);
}

export const seccompCases: Case[] = [
  defineCase({
    ...seccompCase('MUST'),
    id: 'api.pod.seccomp.placement-and-types',
    title: 'seccompProfile is accepted at pod level and in containers and init containers, with types Unconfined, RuntimeDefault, Localhost',
    requirements: ['001-2.4-seccomp-profile-placement', '001-2.4-seccomp-localhost-profile'],
    async run(ctx) {
      const podProfile = { type: 'RuntimeDefault' };
      const initProfile = { type: 'Localhost', localhostProfile: 'profiles/audit.json' };
      const mainProfile = { type: 'Unconfined' };
      const pod = await createObject(ctx, POD, {
        spec: {
          schedulingGates: [HOLD_GATE],
          securityContext: { seccompProfile: podProfile },
          initContainers: [{ name: 'init', image: IMAGE, securityContext: { seccompProfile: initProfile } }],
          containers: [{ name: 'main', image: IMAGE, securityContext: { seccompProfile: mainProfile } }],
        },
      });
      const got = expectObject(await ctx.api.get(itemPath(POD, ctx.namespace, pod.metadata.name)), [200], 'Pod', 'read back');
      expectEqual(got.spec?.securityContext?.seccompProfile, podProfile, 'pod-level seccompProfile read back');
      expectEqual(got.spec?.initContainers?.[0]?.securityContext?.seccompProfile, initProfile, 'init container seccompProfile read back');
      expectEqual(got.spec?.containers?.[0]?.securityContext?.seccompProfile, mainProfile, 'container seccompProfile read back');
    },
  }),
  defineCase({
    ...seccompCase('SHOULD'),
    id: 'api.pod.seccomp.type-unsupported',
    title: 'A seccompProfile type other than Unconfined, RuntimeDefault, Localhost is rejected',
    requirements: ['001-2.4-seccomp-type-values'],
    async run(ctx) {
      await expectInvalidProfile(ctx, { type: 'Strict' }, [{ field: `${SC_AT}.type`, reason: 'FieldValueNotSupported' }], 'create with seccompProfile type "Strict"');
    },
  }),
  defineCase({
    ...seccompCase('SHOULD'),
    id: 'api.pod.seccomp.localhost-profile-required',
    title: 'Type Localhost without localhostProfile is rejected',
    requirements: ['001-2.4-localhost-profile-required'],
    async run(ctx) {
      await expectInvalidProfile(ctx, { type: 'Localhost' }, [{ field: `${SC_AT}.localhostProfile`, reason: 'FieldValueRequired' }], 'create with type Localhost and no localhostProfile');
    },
  }),
  defineCase({
    ...seccompCase('SHOULD'),
    id: 'api.pod.seccomp.localhost-profile-only-localhost',
    title: 'localhostProfile with a type other than Localhost is rejected',
    requirements: ['001-2.4-localhost-profile-only-localhost'],
    async run(ctx) {
      await expectInvalidProfile(ctx, { type: 'RuntimeDefault', localhostProfile: 'profiles/audit.json' }, [{ field: `${SC_AT}.localhostProfile`, reason: 'FieldValueInvalid' }], 'create with type RuntimeDefault and a localhostProfile');
    },
  }),
  defineCase({
    ...seccompCase('SHOULD'),
    id: 'api.pod.seccomp.localhost-profile-relative',
    title: 'An absolute localhostProfile is rejected',
    requirements: ['001-2.4-localhost-profile-relative'],
    async run(ctx) {
      await expectInvalidProfile(ctx, { type: 'Localhost', localhostProfile: '/etc/seccomp/audit.json' }, [{ field: `${SC_AT}.localhostProfile`, reason: 'FieldValueInvalid' }], 'create with localhostProfile "/etc/seccomp/audit.json"');
    },
  }),
  defineCase({
    ...seccompCase('SHOULD'),
    id: 'api.pod.seccomp.localhost-profile-no-parent',
    title: 'A localhostProfile with a .. element is rejected',
    requirements: ['001-2.4-localhost-profile-no-parent'],
    async run(ctx) {
      await expectInvalidProfile(ctx, { type: 'Localhost', localhostProfile: 'profiles/../../audit.json' }, [{ field: `${SC_AT}.localhostProfile`, reason: 'FieldValueInvalid' }], 'create with localhostProfile "profiles/../../audit.json"');
    },
  }),
];
