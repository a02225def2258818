// Spec 001 §3, the control plane's side: "any taint added - scheduler - pods are pending - scheduler
// considers taints when assigning pods". Each case registers its own Nodes and confines its pods to
// them (suites/000-control-plane/scheduling-kit.ts); a pod that tolerates every NoSchedule/NoExecute
// taint of its node is bound there, one that does not stays pending. Upstream's PodScheduled condition
// and message are a SHOULD case.
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectEqual, fail, show } from '../verify.js';
import { holdsFor, waitFor } from '../wait.js';
import { conditionOf, podPath, scheduling, schedulingCase, unbound, type Taint } from '../000-control-plane/scheduling-kit.js';

const s3 = { spec: { doc: '001', section: '3' } } as const;

/**
 * A node with the case's confining taint and `extra`; a pod that does not tolerate `extra` and one
 * that does: the second is bound, the first stays unbound (checked once the second is bound).
 */
async function taintCase(ctx: CaseContext, extra: Taint): Promise<void> {
  await scheduling(ctx, async (env) => {
    const node = await env.node({ taints: [extra] });
    const blocked = await env.pod(node, { hint: 'blocked' });
    const allowed = await env.pod(node, { hint: 'allowed', tolerations: [{ key: extra.key, operator: 'Exists', effect: extra.effect }] });
    await env.bound(allowed.metadata.name, node, `the pod tolerating the node's ${extra.effect} taint is bound to it`);
    await holdsFor(ctx, podPath(ctx, blocked.metadata.name), unbound, 2_000, `the pod not tolerating the node's ${extra.effect} taint ${extra.key} stays pending`, 'no spec.nodeName');
  });
}

export const schedulerTaintCases: Case[] = [
  defineCase({
    ...schedulingCase, ...s3, level: 'MUST',
    id: 'api.scheduler.taints.tolerated-binds',
    title: 'A pending pod (no nodeName) whose only fitting node is tainted NoSchedule, and which tolerates the taint, is bound to that node',
    requirements: ['001-3-scheduler-considers-taints'],
    async run(ctx) {
      await scheduling(ctx, async (env) => {
        const node = await env.node();
        const pod = await env.pod(node);
        await env.bound(pod.metadata.name, node, 'the pending pod is bound to the one node it fits and tolerates');
      });
    },
  }),
  defineCase({
    ...schedulingCase, ...s3, level: 'MUST',
    id: 'api.scheduler.taints.no-schedule',
    title: 'A pod that does not tolerate a NoSchedule taint of the node stays pending; one that tolerates it is bound',
    requirements: ['001-3-scheduler-considers-taints'],
    async run(ctx) {
      await taintCase(ctx, { key: 'scheduling.conformance.orch.io/dedicated', value: 'batch', effect: 'NoSchedule' });
    },
  }),
  defineCase({
    ...schedulingCase, ...s3, level: 'MUST',
    id: 'api.scheduler.taints.no-execute',
    title: 'A pod that does not tolerate a NoExecute taint of the node stays pending; one that tolerates it is bound',
    requirements: ['001-3-scheduler-considers-taints'],
    async run(ctx) {
      await taintCase(ctx, { key: 'scheduling.conformance.orch.io/draining', value: 'yes', effect: 'NoExecute' });
    },
  }),
  defineCase({
    ...schedulingCase, ...s3, level: 'SHOULD',
    id: 'api.scheduler.taints.unschedulable-condition',
    title: 'A pod kept off a node by a taint gets PodScheduled=False, reason Unschedulable, message `0/<n> nodes are available: ... 1 node(s) had untolerated taint {<key>: <value>}...`',
    requirements: ['001-3-scheduler-unschedulable-condition'],
    async run(ctx) {
      await scheduling(ctx, async (env) => {
        // Other nodes (other cases') fail on their own confining taint, listed first: only this node counts here.
        const taint: Taint = { key: 'scheduling.conformance.orch.io/blocked', value: 'blue', effect: 'NoSchedule' };
        const node = await env.node({ taints: [taint] });
        const pod = await env.pod(node, { hint: 'blocked' });
        const want = new RegExp(`^0/\\d+ nodes are available: (.*, )?1 node\\(s\\) had untolerated taint \\{${taint.key.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: blue\\}[,.]`);
        // The first PodScheduled=False may come from an attempt made before the scheduler's cache held
        // the case's node (then no node names the taint): wait for the report about this node, bounded.
        const got = await waitFor(ctx, podPath(ctx, pod.metadata.name), (p) => !!p?.spec?.nodeName || (conditionOf(p, 'PodScheduled')?.status === 'False' && want.test(conditionOf(p, 'PodScheduled')?.message ?? '')),
          'PodScheduled message names the untolerated taint as upstream words it', `PodScheduled False, reason Unschedulable, a message matching ${want}`);
        if (got.spec?.nodeName) fail('the pod not tolerating the taint is not bound', 'no spec.nodeName', `spec.nodeName ${show(got.spec.nodeName)}`);
        expectEqual(conditionOf(got, 'PodScheduled').reason, 'Unschedulable', 'PodScheduled reason');
      });
    },
  }),
];
