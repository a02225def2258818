// Spec 000 §2.6 and §3.2 as the scheduler carries them out: gang PodGroups bind minCount pods or none,
// minCount changes take effect in a later cycle, basic groups schedule pod by pod, higher priority
// first, and the PodGroup conditions (PodGroupInitiallyScheduled True once and never back, False with
// Unschedulable/SchedulerError; DisruptionTarget/PreemptionByScheduler on preemption). Every case
// registers Nodes of its own and confines its pods to them (scheduling-kit.ts); upstream's messages are
// SHOULD cases.
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectEqual, expectTrue, fail, show, skip } from '../verify.js';
import { holdsFor, waitFor } from '../wait.js';
import {
  boundTo, conditionOf, expectUnbound, groupPath, podPath, recordEvents, scheduling, schedulingCase, staysUnbound, unbound, type SchedulingEnv,
} from './scheduling-kit.js';

const gated = { gates: { GenericWorkload: true } } as const;
const s26 = { spec: { doc: '000', section: '2.6' } } as const;
const s32 = { spec: { doc: '000', section: '3.2' } } as const;
const MUST = { ...schedulingCase, level: 'MUST' } as const;
const SHOULD = { ...schedulingCase, level: 'SHOULD' } as const;

const INITIALLY = 'PodGroupInitiallyScheduled';

/**
 * A gang of one whose pod may go to either of two Nodes of the case and prefers (weight 1) a node
 * affinity upstream cannot parse: `Gt` with a value that is not an integer. API validation admits it
 * (it checks only that Gt has one value); a target that refuses it makes the case skip. Upstream parses
 * preferred terms only when scoring, that is with more than one feasible node, hence two Nodes, each
 * known to the scheduler before the pod exists.
 */
async function unparsablePreference(ctx: CaseContext, env: SchedulingEnv): Promise<{ pg: any; pod: any }> {
  const nodes = [await env.node({ pods: 10 }), await env.node({ pods: 10 })];
  // A pod bound to each Node first: then the scheduler knows both, and the pod in question has a choice
  // (bound at once to the only node it knows, it would show nothing about errors).
  const canaries = await Promise.all(nodes.map((n) => env.pod(n, { hint: 'canary' })));
  await Promise.all(canaries.map((c, i) => env.bound(c.metadata.name, nodes[i]!, `a plain pod is bound to Node ${nodes[i]!.name} before the case's pod is created`)));
  const pg = await env.group({ gang: 1 });
  const preferred = [{ weight: 1, preference: { matchExpressions: [{ key: 'scheduling.conformance.orch.io/rank', operator: 'Gt', values: ['not-a-number'] }] } }];
  const body = env.podBodyFor(nodes, { group: pg.metadata.name, preferred });
  const res = await ctx.api.post(`/api/v1/namespaces/${encodeURIComponent(ctx.namespace)}/pods`, body);
  // Whatever error a target refuses the pod with (upstream's validation would answer 422), its
  // scheduler never meets the affinity.
  if (res.status >= 400 && res.status < 500) skip(`the target refuses a preferred Gt node affinity with a non-integer value at admission (HTTP ${res.status}), so its scheduler never meets one`);
  expectTrue(res.status === 200 || res.status === 201 || res.status === 202, 'creating the pod with the unparsable preferred affinity', 'HTTP 201 (or a refusal)', `HTTP ${res.status} ${res.text.slice(0, 200)}`);
  return { pg, pod: res.json };
}
const hasCondition = (type: string) => (o: any) => !!conditionOf(o, type);

/**
 * The gang's PodGroupInitiallyScheduled once the scheduler met the error of its unparsable preferred
 * affinity. The first report may come from a cycle that has not met it yet (a node not yet in the
 * scheduler's cache leaves one node to choose, and nothing to score): wait for the error's. A target
 * that places the pod cannot be provoked this way: the case skips.
 */
async function schedulerErrorOf(ctx: CaseContext, pg: any): Promise<any> {
  const got = await waitFor(ctx, groupPath(ctx, pg.metadata.name), (o) => conditionOf(o, INITIALLY)?.reason === 'SchedulerError' || conditionOf(o, INITIALLY)?.status === 'True',
    'the scheduler reports the error it meets in the gang\'s preferred node affinity', `${INITIALLY} False, reason SchedulerError`);
  const c = conditionOf(got, INITIALLY);
  if (c.status === 'True') skip(`the target's scheduler placed a pod whose preferred node affinity cannot be parsed (${INITIALLY} True): no scheduling error can be provoked on it this way`);
  return c;
}

export const schedulingCases: Case[] = [
  defineCase({
    ...MUST, ...s26, ...gated,
    id: 'api.scheduler.gang.min-count-or-none',
    title: 'A gang PodGroup binds none of its pods while fewer than minCount exist, then all of them once the minCount-th pod is created',
    requirements: ['000-2.6-gang-policy', '000-2.6-gang-min-count-positive'],
    async run(ctx) {
      await scheduling(ctx, async (env) => {
        const node = await env.node({ pods: 10 });
        const pg = await env.group({ gang: 3 });
        const first = [await env.pod(node, { group: pg.metadata.name, hint: 'm1' }), await env.pod(node, { group: pg.metadata.name, hint: 'm2' })];
        await Promise.all(first.map((p) => holdsFor(ctx, podPath(ctx, p.metadata.name), unbound, 2_500, `pod ${p.metadata.name} of a gang with 2 of its minCount 3 pods stays unbound`, 'no spec.nodeName')));
        const last = await env.pod(node, { group: pg.metadata.name, hint: 'm3' });
        for (const p of [...first, last]) await env.bound(p.metadata.name, node, `pod ${p.metadata.name} is bound once the gang has minCount (3) pods`);
      });
    },
  }),
  defineCase({
    ...MUST, ...s26, ...gated,
    id: 'api.scheduler.gang.min-count-change',
    title: 'Lowering a waiting gang\'s minCount to the pods it has lets them bind in a later cycle; raising it afterwards leaves the bound pods alone',
    requirements: ['000-2.6-gang-min-count-scheduling-only'],
    async run(ctx) {
      await scheduling(ctx, async (env) => {
        const node = await env.node({ pods: 10 });
        const pg = await env.group({ gang: 3 });
        const pods = [await env.pod(node, { group: pg.metadata.name, hint: 'm1' }), await env.pod(node, { group: pg.metadata.name, hint: 'm2' })];
        await Promise.all(pods.map((p) => holdsFor(ctx, podPath(ctx, p.metadata.name), unbound, 1_500, `pod ${p.metadata.name} of a gang with 2 of its minCount 3 pods stays unbound`, 'no spec.nodeName')));
        const lower = await ctx.api.request('PATCH', groupPath(ctx, pg.metadata.name), { body: { spec: { schedulingPolicy: { gang: { minCount: 2 } } } }, headers: { 'content-type': 'application/merge-patch+json' } });
        expectTrue(lower.status === 200 || lower.status === 201, 'lowering gang.minCount to 2 (it is mutable)', 'HTTP 200', `HTTP ${lower.status} ${lower.text.slice(0, 200)}`);
        for (const p of pods) await env.bound(p.metadata.name, node, `pod ${p.metadata.name} is bound after minCount was lowered to the 2 pods the gang has`);
        const raise = await ctx.api.request('PATCH', groupPath(ctx, pg.metadata.name), { body: { spec: { schedulingPolicy: { gang: { minCount: 5 } } } }, headers: { 'content-type': 'application/merge-patch+json' } });
        expectTrue(raise.status === 200 || raise.status === 201, 'raising gang.minCount to 5', 'HTTP 200', `HTTP ${raise.status} ${raise.text.slice(0, 200)}`);
        await Promise.all(pods.map((p) => holdsFor(ctx, podPath(ctx, p.metadata.name), boundTo(node.name), 1_500, `already scheduled pod ${p.metadata.name} stays bound after minCount was raised`, `spec.nodeName ${show(node.name)}`)));
      });
    },
  }),
  defineCase({
    ...MUST, ...s32, ...gated,
    id: 'api.scheduler.gang.unschedulable',
    title: 'A gang whose minCount pods cannot fit at once binds none and gets PodGroupInitiallyScheduled=False with reason Unschedulable',
    requirements: ['000-3.2-initially-scheduled', '000-3.2-initially-scheduled-reasons', '000-2.6-gang-policy'],
    async run(ctx) {
      await scheduling(ctx, async (env) => {
        const node = await env.node({ pods: 2 });
        const pg = await env.group({ gang: 3 });
        const pods = [];
        for (let i = 1; i <= 3; i++) pods.push(await env.pod(node, { group: pg.metadata.name, hint: `m${i}` }));
        await Promise.all(pods.map((p) => holdsFor(ctx, podPath(ctx, p.metadata.name), unbound, 2_000, `pod ${p.metadata.name} of a gang of 3 whose node holds 2 stays unbound`, 'no spec.nodeName')));
        // Waits for the report the rule is about: an earlier cycle (before the scheduler's cache held the
        // node, say) may have reported otherwise; True, which never reverts, ends the wait at once.
        const got = await waitFor(ctx, groupPath(ctx, pg.metadata.name), (o) => conditionOf(o, INITIALLY)?.reason === 'Unschedulable' || conditionOf(o, INITIALLY)?.status === 'True',
          'the scheduler reports on a gang of 3 whose node holds 2 pods', `${INITIALLY} False, reason Unschedulable`);
        const c = conditionOf(got, INITIALLY);
        expectEqual([c.status, c.reason], ['False', 'Unschedulable'], `${INITIALLY} status and reason of a gang that cannot fit`);
      });
    },
  }),
  defineCase({
    ...SHOULD, ...s32, ...gated,
    id: 'api.scheduler.gang.unschedulable-message',
    title: 'A gang that cannot reach minCount reports upstream\'s message: `minCount (N) cannot be satisfied: S scheduled, R remaining`',
    requirements: ['000-3.2-gang-unschedulable-message'],
    async run(ctx) {
      await scheduling(ctx, async (env) => {
        const node = await env.node({ pods: 2 });
        const pg = await env.group({ gang: 3 });
        const pods = [];
        for (let i = 1; i <= 3; i++) pods.push(await env.pod(node, { group: pg.metadata.name, hint: `m${i}` }));
        const want = /^minCount \(3\) cannot be satisfied: \d+ scheduled, \d+ remaining$/;
        const got = await waitFor(ctx, groupPath(ctx, pg.metadata.name), (o) => want.test(conditionOf(o, INITIALLY)?.message ?? ''), 'the gang that cannot fit reports why',
          `${INITIALLY} False, reason Unschedulable, message matching ${want}`);
        expectEqual([conditionOf(got, INITIALLY).status, conditionOf(got, INITIALLY).reason], ['False', 'Unschedulable'], `${INITIALLY} status and reason`);
        const pod = await waitFor(ctx, podPath(ctx, pods[0].metadata.name), (p) => conditionOf(p, 'PodScheduled')?.status === 'False', 'a pod of the gang reports that it is not scheduled', 'PodScheduled False');
        expectEqual(conditionOf(pod, 'PodScheduled').reason, 'Unschedulable', 'PodScheduled reason of a pod of the gang');
      });
    },
  }),
  defineCase({
    ...MUST, ...s32, ...gated,
    id: 'api.scheduler.podgroup.initially-scheduled-terminal',
    title: 'PodGroupInitiallyScheduled turns True once the gang is scheduled and stays True after a pod is deleted and a new one cannot fit',
    requirements: ['000-3.2-initially-scheduled', '000-3.2-initially-scheduled-terminal'],
    async run(ctx) {
      await scheduling(ctx, async (env) => {
        const node = await env.node({ pods: 2 });
        const pg = await env.group({ gang: 2 });
        const pods = [await env.pod(node, { group: pg.metadata.name, hint: 'm1' }), await env.pod(node, { group: pg.metadata.name, hint: 'm2' })];
        for (const p of pods) await env.bound(p.metadata.name, node);
        const path = groupPath(ctx, pg.metadata.name);
        const isTrue = (o: any) => conditionOf(o, INITIALLY)?.status === 'True';
        await waitFor(ctx, path, isTrue, 'the scheduled gang reports its requirement satisfied', `${INITIALLY} True`);
        // The gang loses a pod and its replacement cannot fit: the requirement is no longer met.
        await env.setUnschedulable(node, true);
        const del = await ctx.api.delete(podPath(ctx, pods[0].metadata.name));
        expectTrue(del.status === 200 || del.status === 202, 'deleting a pod of the scheduled gang', 'HTTP 200 or 202', `HTTP ${del.status}`);
        await env.pod(node, { group: pg.metadata.name, hint: 'm3' });
        await holdsFor(ctx, path, isTrue, 3_000, `${INITIALLY} of a gang that lost a pod and cannot place its replacement`, `${INITIALLY} still True (terminal)`);
      });
    },
  }),
  defineCase({
    ...SHOULD, ...s26, ...gated,
    id: 'api.scheduler.podgroup.missing-group-waits',
    title: 'A pod naming a PodGroup that does not exist waits (`waiting for pod\'s pod group "<name>" to appear in scheduling queue`), and is bound once the group is created',
    requirements: ['000-2.6-pod-group-missing-waits'],
    async run(ctx) {
      await scheduling(ctx, async (env) => {
        const node = await env.node({ pods: 10 });
        const group = ctx.uniqueName('later');
        const pod = await env.pod(node, { group });
        const message = `waiting for pod's pod group "${group}" to appear in scheduling queue`;
        // Waits for this report, not the first PodScheduled=False (a scheduler may report another reason
        // first, its nodes not yet known, say), bounded; binding ends the wait.
        const got = await waitFor(ctx, podPath(ctx, pod.metadata.name), (p) => conditionOf(p, 'PodScheduled')?.message === message || !!p?.spec?.nodeName,
          'the scheduler reports on a pod whose PodGroup does not exist', `PodScheduled False, reason Unschedulable, message ${show(message)}`);
        if (got.spec?.nodeName) fail('a pod whose PodGroup does not exist is not bound', 'no spec.nodeName', `spec.nodeName ${show(got.spec.nodeName)}`);
        const c = conditionOf(got, 'PodScheduled');
        expectEqual([c.reason, c.message], ['Unschedulable', message], 'PodScheduled reason and message');
        await env.group({ name: group });
        await env.bound(pod.metadata.name, node, 'the pod is bound once its PodGroup exists');
      });
    },
  }),
  defineCase({
    ...MUST, ...s26, ...gated,
    id: 'api.scheduler.basic-policy.pod-by-pod',
    title: 'A basic PodGroup is scheduled pod by pod: with room for one pod, one of its two pods is bound',
    requirements: ['000-2.6-basic-policy'],
    async run(ctx) {
      await scheduling(ctx, async (env) => {
        const node = await env.node({ pods: 1 });
        const pg = await env.group();
        const pods = [await env.pod(node, { group: pg.metadata.name, hint: 'm1' }), await env.pod(node, { group: pg.metadata.name, hint: 'm2' })];
        const first = await env.anyBound(node, 'one pod of a basic PodGroup is bound to the node with room for one');
        const other = pods.find((p) => p.metadata.name !== first.metadata.name)!;
        await holdsFor(ctx, podPath(ctx, other.metadata.name), unbound, 1_000, 'the second pod, with no room left, stays unbound', 'no spec.nodeName');
      });
    },
  }),
  defineCase({
    ...MUST, ...s26, ...gated,
    id: 'api.scheduler.priority.higher-first',
    title: 'With room for one pod, the pod of the PodGroup with the higher spec.priority gets it',
    requirements: ['000-2.6-priority'],
    async run(ctx) {
      await scheduling(ctx, async (env) => {
        // Both wait on an unschedulable node, then compete for its one place.
        const node = await env.node({ pods: 1, unschedulable: true });
        const low = await env.group({ priority: 10, hint: 'low' });
        const high = await env.group({ priority: 1000, hint: 'high' });
        const lowPod = await env.pod(node, { group: low.metadata.name, hint: 'low' });
        const highPod = await env.pod(node, { group: high.metadata.name, hint: 'high' });
        await env.setUnschedulable(node, false);
        await env.bound(highPod.metadata.name, node, 'the pod of the higher-priority PodGroup gets the one place');
        await staysUnbound(ctx, lowPod.metadata.name, 1_000, 'the pod of the lower-priority PodGroup does not get the place');
      });
    },
  }),
  defineCase({
    ...MUST, ...s32, ...gated,
    id: 'api.scheduler.preemption.podgroup-disruption-target',
    title: 'A gang preempted for a higher-priority PodGroup gets DisruptionTarget=True with reason PreemptionByScheduler',
    requirements: ['000-3.2-disruption-target'],
    async run(ctx) {
      await scheduling(ctx, async (env) => {
        const node = await env.node({ pods: 1 });
        const low = await env.group({ gang: 1, priority: 10, hint: 'low' });
        const lowPod = await env.pod(node, { group: low.metadata.name, hint: 'low' });
        await env.bound(lowPod.metadata.name, node);
        const high = await env.group({ priority: 1000, hint: 'high' });
        const highPod = await env.pod(node, { group: high.metadata.name, hint: 'high' });
        const got = await waitFor(ctx, groupPath(ctx, low.metadata.name), hasCondition('DisruptionTarget'), 'the preempted gang is marked as about to be disrupted',
          'DisruptionTarget True, reason PreemptionByScheduler');
        const c = conditionOf(got, 'DisruptionTarget');
        expectEqual([c.status, c.reason], ['True', 'PreemptionByScheduler'], 'DisruptionTarget status and reason of the preempted PodGroup');
        await env.bound(highPod.metadata.name, node, 'the higher-priority pod is bound once room was made');
      });
    },
  }),
  defineCase({
    ...SHOULD, ...s32, ...gated,
    id: 'api.scheduler.preemption.pod-disruption-target',
    title: 'A pod preempted for a higher-priority pod gets DisruptionTarget=True, reason PreemptionByScheduler, `default-scheduler: preempting to accommodate a higher priority pod`, and is deleted',
    requirements: ['000-3.2-preemption-pod-disruption-target'],
    async run(ctx) {
      await scheduling(ctx, async (env) => {
        const node = await env.node({ pods: 1 });
        const lowPod = await env.pod(node, { priority: 10, hint: 'low' });
        const bound = await env.bound(lowPod.metadata.name, node);
        const events = await recordEvents(ctx, podPath(ctx, lowPod.metadata.name), bound.metadata.resourceVersion);
        try {
          const highPod = await env.pod(node, { priority: 1000, hint: 'high' });
          const marked = await events.until((ev) => !!conditionOf(ev.object, 'DisruptionTarget'), 15_000);
          if (!marked) fail('the preempted pod is marked before it goes (within 15s)', 'a DisruptionTarget condition', show(events.events.map((e) => `${e.type} ${show(e.object?.status?.conditions)}`)));
          const c = conditionOf(marked.object, 'DisruptionTarget');
          expectEqual([c.status, c.reason, c.message], ['True', 'PreemptionByScheduler', 'default-scheduler: preempting to accommodate a higher priority pod'], 'DisruptionTarget of the preempted pod');
          const gone = await events.until((ev) => ev.type === 'DELETED', 15_000);
          if (!gone) fail('the preempted pod is deleted (within 15s)', 'a DELETED event', show(events.events.map((e) => e.type)));
          await env.bound(highPod.metadata.name, node, 'the preemptor is bound once room was made');
        } finally {
          events.close();
        }
      });
    },
  }),
  defineCase({
    ...MUST, ...s32, ...gated,
    // A required term that cannot be parsed fits both of the spec's reasons: "affinity rules" (upstream
    // ignores the parse error, so the term matches no node: Unschedulable) and "affinity parsing
    // errors" (SchedulerError). Either passes here; the case that holds SchedulerError apart is
    // podgroup.scheduler-error, with a preferred term, which upstream reports as an error.
    id: 'api.scheduler.podgroup.affinity-error',
    title: 'A gang whose pods carry a node affinity the scheduler cannot evaluate (Gt with a non-integer) is not bound and gets PodGroupInitiallyScheduled=False (SchedulerError, or Unschedulable)',
    requirements: ['000-3.2-initially-scheduled-reasons'],
    async run(ctx) {
      await scheduling(ctx, async (env) => {
        const node = await env.node({ pods: 10 });
        const pg = await env.group({ gang: 1 });
        const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'scheduling.conformance.orch.io/rank', operator: 'Gt', values: ['not-a-number'] }] }] } } };
        const body = env.podBody(node, { group: pg.metadata.name, affinity });
        const res = await ctx.api.post(`/api/v1/namespaces/${encodeURIComponent(ctx.namespace)}/pods`, body);
        if (res.status >= 400 && res.status < 500) skip(`the target refuses a Gt node affinity with a non-integer value at admission (HTTP ${res.status}), so its scheduler never meets one`);
        expectTrue(res.status === 200 || res.status === 201 || res.status === 202, 'creating the pod with the unparsable affinity', 'HTTP 201 (or a refusal)', `HTTP ${res.status} ${res.text.slice(0, 200)}`);
        const got = await waitFor(ctx, groupPath(ctx, pg.metadata.name), hasCondition(INITIALLY), 'the scheduler reports on a gang it cannot evaluate', `a ${INITIALLY} condition`);
        const c = conditionOf(got, INITIALLY);
        expectTrue(c.status === 'False' && (c.reason === 'SchedulerError' || c.reason === 'Unschedulable'), `${INITIALLY} of the gang with an unparsable affinity`,
          'status False, reason SchedulerError (or Unschedulable)', show(c));
        await expectUnbound(ctx, body.metadata.name, 'the pod with the unparsable affinity is not bound');
      });
    },
  }),
  defineCase({
    ...MUST, ...s32, ...gated,
    id: 'api.scheduler.podgroup.scheduler-error',
    title: 'A gang whose pod carries a preferred node affinity the scheduler cannot parse (Gt with a non-integer), with two nodes to choose from, gets PodGroupInitiallyScheduled=False with reason SchedulerError, not Unschedulable',
    requirements: ['000-3.2-initially-scheduled-reasons'],
    async run(ctx) {
      await scheduling(ctx, async (env) => {
        const { pg, pod } = await unparsablePreference(ctx, env);
        const c = await schedulerErrorOf(ctx, pg);
        expectEqual([c.status, c.reason], ['False', 'SchedulerError'], `${INITIALLY} of the gang whose preferred node affinity cannot be parsed`);
        await expectUnbound(ctx, pod.metadata.name, 'the pod whose preferred node affinity cannot be parsed is not bound');
      });
    },
  }),
  defineCase({
    ...SHOULD, ...s32, ...gated,
    id: 'api.scheduler.podgroup.scheduler-error.upstream',
    title: 'An unparsable preferred node affinity fails the gang\'s cycle as upstream reports it: PodGroup message `failed to schedule other pod from a pod group: <error>`, pod PodScheduled=False with reason SchedulerError',
    requirements: ['000-3.2-scheduler-error-preferred-affinity'],
    async run(ctx) {
      await scheduling(ctx, async (env) => {
        const { pg, pod } = await unparsablePreference(ctx, env);
        const c = await schedulerErrorOf(ctx, pg);
        const prefix = 'failed to schedule other pod from a pod group: ';
        expectTrue(typeof c.message === 'string' && c.message.startsWith(prefix) && c.message.length > prefix.length, `${INITIALLY} message of the gang in error`, `${show(prefix)} and the error`, show(c.message));
        const p = await waitFor(ctx, podPath(ctx, pod.metadata.name), (o) => conditionOf(o, 'PodScheduled')?.reason === 'SchedulerError' || !!o?.spec?.nodeName,
          'the pod whose preferred node affinity cannot be parsed reports the error', 'PodScheduled False, reason SchedulerError');
        expectEqual([conditionOf(p, 'PodScheduled')?.status, p.spec?.nodeName], ['False', undefined], 'PodScheduled status and spec.nodeName of the pod in error');
      });
    },
  }),
];
