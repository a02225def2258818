// Spec 001 §1: the pods the agent syncs come from the control plane's Pod resource. These cases check
// the Pod fields the agent acts on (containers, nodeName, schedulingGroup, status phase) and the
// update rule that freezes most of the spec (upstream pod validation, ground truth).
// Every pod is held back from scheduling (a scheduling gate, or a nodeName of no real node), so a
// real cluster never runs it.
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectEqual, expectObject, expectTrue, fail, show, SUCCESS, expectRefused } from '../verify.js';
import { createObject, itemPath, newObject, postObject } from '../000-control-plane/kinds.js';
import { HOLD_GATE, IMAGE, POD, T0, agentCommon, putStatus } from './kinds.js';

const podCase = (level: 'MUST' | 'SHOULD') => ({ ...agentCommon(POD, 'pods'), level });

/** A pod spec with these containers (and the hold gate). */
const spec = (extra: Record<string, unknown>) => ({ spec: { schedulingGates: [HOLD_GATE], containers: [{ name: 'main', image: IMAGE }], ...extra } });

async function expectInvalidPod(ctx: CaseContext, extra: Record<string, unknown>, causes: Array<{ field: string; reason?: string }>, what: string) {
  await expectRefused(ctx.api, await postObject(ctx, POD, newObject(ctx, POD, spec(extra))), { code: 422, reason: 'Invalid', causes }, what);
}

/** Creates a pod, applies `edit` to it and PUTs it back; gives the response. */
async function update(ctx: CaseContext, extra: Record<string, unknown>, edit: (pod: any) => void) {
  const pod = await createObject(ctx, POD, spec(extra));
  const next = structuredClone(pod);
  edit(next);
  return { pod, res: await ctx.api.put(itemPath(POD, ctx.namespace, pod.metadata.name), next) };
}

export const podCases: Case[] = [
  defineCase({
    ...podCase('SHOULD'),
    id: 'api.pod.containers.required',
    title: 'A Pod without containers is rejected',
    requirements: ['001-1-pod-containers-required'],
    async run(ctx) {
      await expectInvalidPod(ctx, { containers: [] }, [{ field: 'spec.containers', reason: 'FieldValueRequired' }], 'create a Pod with no containers');
    },
  }),
  defineCase({
    ...podCase('SHOULD'),
    id: 'api.pod.containers.name-dns-label',
    title: 'A container name that is not a DNS label is rejected',
    requirements: ['001-1-pod-container-name'],
    async run(ctx) {
      await expectInvalidPod(ctx, { containers: [{ name: 'Main_1', image: IMAGE }] }, [{ field: 'spec.containers[0].name', reason: 'FieldValueInvalid' }], 'create with container name "Main_1"');
    },
  }),
  defineCase({
    ...podCase('SHOULD'),
    id: 'api.pod.containers.name-unique',
    title: 'Two containers of one name are rejected',
    requirements: ['001-1-pod-container-name'],
    async run(ctx) {
      const c = { name: 'main', image: IMAGE };
      await expectInvalidPod(ctx, { containers: [c, { ...c }] }, [{ field: 'spec.containers[1].name', reason: 'FieldValueDuplicate' }], 'create with two containers named "main"');
    },
  }),
  defineCase({
    ...podCase('SHOULD'),
    id: 'api.pod.containers.name-unique-with-init',
    title: 'A container named like an init container is rejected',
    requirements: ['001-1-pod-container-name'],
    async run(ctx) {
      await expectInvalidPod(ctx, { initContainers: [{ name: 'main', image: IMAGE }] }, [{ field: 'spec.containers[0].name', reason: 'FieldValueDuplicate' }], 'create with an init container and a container both named "main"');
    },
  }),
  defineCase({
    ...podCase('SHOULD'),
    id: 'api.pod.containers.image-required',
    title: 'A container without image is rejected',
    requirements: ['001-1-pod-container-image-required'],
    async run(ctx) {
      await expectInvalidPod(ctx, { containers: [{ name: 'main' }] }, [{ field: 'spec.containers[0].image', reason: 'FieldValueRequired' }], 'create with a container without image');
    },
  }),
  defineCase({
    ...podCase('SHOULD'),
    id: 'api.pod.ephemeral-containers.not-on-create',
    title: 'ephemeralContainers cannot be set when the Pod is created',
    requirements: ['001-1-pod-ephemeral-containers-not-on-create'],
    async run(ctx) {
      const ephemeralContainers = [{ name: 'debug', image: IMAGE, targetContainerName: 'main' }];
      await expectInvalidPod(ctx, { ephemeralContainers }, [{ field: 'spec.ephemeralContainers', reason: 'FieldValueForbidden' }], 'create with an ephemeral container');
    },
  }),
  defineCase({
    ...podCase('SHOULD'),
    id: 'api.pod.node-name.round-trip',
    title: 'spec.nodeName assigns the pod to a node and is stored',
    requirements: ['001-1-pod-node-name'],
    async run(ctx) {
      const nodeName = ctx.uniqueName('no-such-node');
      const pod = await createObject(ctx, POD, { spec: { nodeName, containers: [{ name: 'main', image: IMAGE }] } });
      expectEqual(pod.spec?.nodeName, nodeName, 'spec.nodeName of the created Pod');
      const got = expectObject(await ctx.api.get(itemPath(POD, ctx.namespace, pod.metadata.name)), [200], 'Pod', 'read back');
      expectEqual(got.spec?.nodeName, nodeName, 'spec.nodeName read back');
    },
  }),
  defineCase({
    ...podCase('SHOULD'),
    id: 'api.pod.node-name.invalid',
    title: 'A nodeName that is not a DNS subdomain is rejected',
    requirements: ['001-1-pod-node-name'],
    async run(ctx) {
      const res = await postObject(ctx, POD, newObject(ctx, POD, { spec: { nodeName: 'Not A Node!', containers: [{ name: 'main', image: IMAGE }] } }));
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'spec.nodeName', reason: 'FieldValueInvalid' }] }, 'create with nodeName "Not A Node!"');
    },
  }),
  defineCase({
    ...podCase('SHOULD'),
    id: 'api.pod.scheduling-group.round-trip',
    title: 'spec.schedulingGroup.podGroupName (the PodGroup of the pod) is stored as given and cannot change',
    requirements: ['001-1-pod-scheduling-group'],
    async run(ctx) {
      const group = { podGroupName: 'conformance-group' };
      const pod = await createObject(ctx, POD, spec({ schedulingGroup: group }));
      const path = itemPath(POD, ctx.namespace, pod.metadata.name);
      const got = expectObject(await ctx.api.get(path), [200], 'Pod', 'read back');
      expectEqual(got.spec?.schedulingGroup, group, 'spec.schedulingGroup read back');
      const next = structuredClone(got);
      next.spec.schedulingGroup = { podGroupName: 'another-group' };
      await expectRefused(ctx.api, await ctx.api.put(path, next), { code: 422, reason: 'Invalid', causes: [{ field: 'spec.schedulingGroup' }] }, 'PUT changing spec.schedulingGroup.podGroupName');
    },
  }),
  defineCase({
    ...podCase('SHOULD'),
    id: 'api.pod.status.initial-pending',
    title: 'A created Pod starts in phase Pending, whatever status was sent',
    requirements: ['001-1-pod-initial-status'],
    async run(ctx) {
      const pod = await createObject(ctx, POD, { ...spec({}), status: { phase: 'Running' } });
      expectEqual(pod.status?.phase, 'Pending', 'status.phase of the created Pod');
    },
  }),
  defineCase({
    ...podCase('SHOULD'),
    id: 'api.pod.status.phase-values',
    title: 'status.phase accepts Pending, Running, Succeeded, Failed and Unknown through /status',
    requirements: ['001-1-pod-status-phase'],
    async run(ctx) {
      // Terminal phases last, one pod each: a pod does not leave Succeeded or Failed.
      for (const phases of [['Running', 'Unknown', 'Pending', 'Succeeded'], ['Failed']]) {
        let pod = await createObject(ctx, POD, spec({}));
        for (const phase of phases) {
          pod = expectObject(await putStatus(ctx, POD, pod, { ...pod.status, phase, startTime: T0 }), SUCCESS.replace, 'Pod', `PUT status with phase ${phase}`);
          expectEqual(pod.status?.phase, phase, `status.phase after writing ${phase}`);
        }
      }
    },
  }),
  defineCase({
    ...podCase('SHOULD'),
    id: 'api.pod.status.phase-unsupported',
    title: 'A status.phase outside the five phases is rejected',
    requirements: ['001-1-pod-status-phase'],
    async run(ctx) {
      const pod = await createObject(ctx, POD, spec({}));
      const res = await putStatus(ctx, POD, pod, { ...pod.status, phase: 'Exploded' });
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'status.phase', reason: 'FieldValueNotSupported' }] }, 'PUT status with phase "Exploded"');
    },
  }),
  defineCase({
    ...podCase('SHOULD'),
    id: 'api.pod.spec.immutable',
    title: 'A Pod update changing a frozen spec field (a container\'s command) is rejected',
    requirements: ['001-1-pod-spec-immutable'],
    async run(ctx) {
      const { res } = await update(ctx, {}, (p) => { p.spec.containers[0].command = ['/bin/true']; });
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'spec', reason: 'FieldValueForbidden' }] }, 'PUT with a new container command');
    },
  }),
  defineCase({
    ...podCase('SHOULD'),
    id: 'api.pod.spec.image-mutable',
    title: 'A container image may change after creation',
    requirements: ['001-1-pod-spec-immutable'],
    async run(ctx) {
      const image = `${IMAGE}-next`;
      const { pod, res } = await update(ctx, {}, (p) => { p.spec.containers[0].image = image; });
      expectObject(res, SUCCESS.replace, 'Pod', 'PUT with a new image');
      const got = expectObject(await ctx.api.get(itemPath(POD, ctx.namespace, pod.metadata.name)), [200], 'Pod', 'read back');
      expectEqual(got.spec?.containers?.[0]?.image, image, 'image read back');
    },
  }),
  defineCase({
    ...podCase('SHOULD'),
    id: 'api.pod.spec.active-deadline-lowered-only',
    title: 'activeDeadlineSeconds may be set and lowered, not raised',
    requirements: ['001-1-pod-spec-immutable'],
    async run(ctx) {
      const { pod, res } = await update(ctx, {}, (p) => { p.spec.activeDeadlineSeconds = 600; });
      const set = expectObject(res, SUCCESS.replace, 'Pod', 'PUT setting activeDeadlineSeconds 600');
      expectEqual(set.spec?.activeDeadlineSeconds, 600, 'activeDeadlineSeconds after setting it');
      const lower = structuredClone(set);
      lower.spec.activeDeadlineSeconds = 300;
      const lowered = expectObject(await ctx.api.put(itemPath(POD, ctx.namespace, pod.metadata.name), lower), SUCCESS.replace, 'Pod', 'PUT lowering it to 300');
      expectEqual(lowered.spec?.activeDeadlineSeconds, 300, 'activeDeadlineSeconds after lowering it');
      const raise = structuredClone(lowered);
      raise.spec.activeDeadlineSeconds = 900;
      await expectRefused(ctx.api, await ctx.api.put(itemPath(POD, ctx.namespace, pod.metadata.name), raise), { code: 422, reason: 'Invalid', causes: [{ field: 'spec.activeDeadlineSeconds', reason: 'FieldValueInvalid' }] }, 'PUT raising it to 900');
    },
  }),
  defineCase({
    ...podCase('SHOULD'),
    id: 'api.pod.spec.tolerations-added',
    title: 'Tolerations may be added after creation',
    requirements: ['001-1-pod-spec-immutable'],
    async run(ctx) {
      const first = { key: 'conformance.orch.io/a', operator: 'Exists', effect: 'NoSchedule' };
      const second = { key: 'conformance.orch.io/b', operator: 'Equal', value: 'x', effect: 'NoExecute', tolerationSeconds: 30 };
      const { res } = await update(ctx, { tolerations: [first] }, (p) => { p.spec.tolerations.push(second); });
      const got = expectObject(res, SUCCESS.replace, 'Pod', 'PUT adding a toleration');
      // A server may add tolerations of its own (upstream's DefaultTolerationSeconds admission adds
      // node.orch.io/not-ready and /unreachable ones): the two sent must be there, in their order.
      const sent = (got.spec?.tolerations ?? []).filter((x: any) => typeof x?.key === 'string' && x.key.startsWith('conformance.orch.io/'));
      expectEqual(sent, [first, second], 'the tolerations sent, after the update');
    },
  }),
  defineCase({
    ...podCase('SHOULD'),
    id: 'api.pod.spec.termination-grace-mutable',
    title: 'terminationGracePeriodSeconds may change after creation',
    requirements: ['001-1-pod-spec-immutable'],
    async run(ctx) {
      const { res } = await update(ctx, { terminationGracePeriodSeconds: 30 }, (p) => { p.spec.terminationGracePeriodSeconds = 5; });
      const got = expectObject(res, SUCCESS.replace, 'Pod', 'PUT with terminationGracePeriodSeconds 5');
      expectEqual(got.spec?.terminationGracePeriodSeconds, 5, 'terminationGracePeriodSeconds after the update');
    },
  }),
  defineCase({
    ...podCase('SHOULD'),
    id: 'api.pod.delete.graceful',
    title: 'Deleting a pod bound to a node marks it (deletionTimestamp = delete + grace, deletionGracePeriodSeconds = terminationGracePeriodSeconds) and keeps it; gracePeriodSeconds=0 with the pod\'s uid removes it; an unbound pod goes at once',
    requirements: ['001-1-pod-graceful-deletion'],
    async run(ctx) {
      // A node that does not exist: no agent finishes the deletion, so the marked pod stays put.
      const grace = 120;
      const before = Date.now();
      const pod = await createObject(ctx, POD, { spec: { nodeName: ctx.uniqueName('no-such-node'), terminationGracePeriodSeconds: grace, containers: [{ name: 'main', image: IMAGE }] } });
      const path = itemPath(POD, ctx.namespace, pod.metadata.name);
      const del = await ctx.api.delete(path);
      const answered = Date.now();
      if (del.status !== 200 && del.status !== 202) fail('DELETE of the bound pod without gracePeriodSeconds', 'HTTP 200 or 202', `HTTP ${del.status} ${del.text.slice(0, 200)}`);
      const res = await ctx.api.get(path);
      if (res.status === 404) fail('the deleted pod, bound to a node, stays for its agent to stop it', 'HTTP 200 with metadata.deletionTimestamp', 'HTTP 404: removed at once');
      const marked = expectObject(res, [200], 'Pod', 'read the deleted pod back');
      const m = marked.metadata ?? {};
      expectEqual(m.deletionGracePeriodSeconds, grace, 'metadata.deletionGracePeriodSeconds (the pod\'s terminationGracePeriodSeconds)');
      // Both timestamps are the server's (the runner's clock only bounds the time between create and
      // delete), in whole seconds.
      const lead = (Date.parse(m.deletionTimestamp) - Date.parse(m.creationTimestamp)) / 1000;
      expectTrue(Number.isFinite(lead) && lead >= grace - 1 && lead <= grace + Math.ceil((answered - before) / 1000) + 1,
        'metadata.deletionTimestamp is the time of the delete plus the grace period', `creationTimestamp + ${grace}s (plus the seconds between create and delete)`, show({ creationTimestamp: m.creationTimestamp, deletionTimestamp: m.deletionTimestamp }));
      const forced = await ctx.api.delete(path, { body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0, preconditions: { uid: m.uid } } });
      if (forced.status !== 200 && forced.status !== 202) fail('DELETE with gracePeriodSeconds 0 and the pod\'s uid', 'HTTP 200 or 202', `HTTP ${forced.status} ${forced.text.slice(0, 200)}`);
      const after = await ctx.api.get(path);
      expectEqual(after.status, 404, 'GET of the pod right after the delete with gracePeriodSeconds 0 (HTTP code)');
      // Bound to no node: nothing would ever finish it, so the delete is immediate.
      const unbound = await createObject(ctx, POD, spec({ terminationGracePeriodSeconds: grace }));
      const unboundPath = itemPath(POD, ctx.namespace, unbound.metadata.name);
      expectTrue([200, 202].includes((await ctx.api.delete(unboundPath)).status), 'DELETE of an unbound pod', 'HTTP 200 or 202', 'another code');
      expectEqual((await ctx.api.get(unboundPath)).status, 404, 'GET of the unbound pod right after its delete (HTTP code)');
    },
  }),
];
