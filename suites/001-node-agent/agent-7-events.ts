// The events an agent records through the API about its pods and its node (events.orch.io/v1, spec
// 000 §2.7). Spec 001 is silent on them (its §7 "Events" is the PLEG's internal events), so every
// case here is SHOULD, upstream kubelet's behaviour with kubelet written agent: an agent that records
// none fails them only as a SHOULD warning. What an event carries beyond the rule checked (messages,
// the event's name, its action) is left free.
import { defineCase, type Case, type CaseContext } from '../case.js';
import { at, expectTrue, show, skip } from '../verify.js';
import { agentCase, createPodOnNode, isRunning, nodePath, podPath, waitFor } from './agent-kit.js';

/** Upstream's event time-to-live (kube-apiserver --event-ttl, 1 h): older events may be gone. */
const EVENT_TTL_MS = 60 * 60_000;

/**
 * Polls (bounded) the events whose fields equal `fields` (dotted paths) until `done` holds of them;
 * returns the last list. The field selector is upstream's; a server that refuses it (400) is free to,
 * and then the whole collection is read and filtered here.
 */
async function eventsUntil(ctx: CaseContext, collection: string, fields: Readonly<Record<string, string>>, done: (items: any[]) => boolean, timeoutMs = 10_000): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  const fieldSelector = Object.entries(fields).map(([k, v]) => `${k}=${v}`).join(',');
  const matches = (e: any) => Object.entries(fields).every(([k, v]) => (at(e, k) ?? '') === v);
  let selectorRefused = false;
  for (;;) {
    let res = selectorRefused ? undefined : await ctx.api.get(collection, { query: { fieldSelector } });
    if (res?.status === 400) selectorRefused = true;
    if (selectorRefused) res = await ctx.api.get(collection);
    const items: any[] = res!.status === 200 ? (res!.json?.items ?? []).filter(matches) : [];
    if (done(items) || Date.now() >= deadline) return items;
    await new Promise((r) => setTimeout(r, 250));
  }
}

const brief = (items: any[]) => show(items.map((e) => ({ reason: e.reason, type: e.type, regarding: e.regarding, reportingController: e.reportingController, reportingInstance: e.reportingInstance })));

export const agentEventCases: Case[] = [
  defineCase({
    ...agentCase('7', 'SHOULD', 'node'),
    id: 'agent.events.container-lifecycle',
    title: 'Running a pod, the agent records upstream\'s container events Created and Started (and Pulled or Pulling for the image) regarding the pod\'s container (fieldPath spec.containers{c}), reported by controller agent from its node',
    requirements: ['001-7-agent-container-events'],
    async run(ctx) {
      const created = await createPodOnNode(ctx, {}, 'ev');
      const pod = await waitFor(ctx, podPath(ctx, created.metadata.name), isRunning, 'the pod on the agent\'s node runs', 'status.phase Running with container c running', 15_000);
      const nodeName = ctx.agent().nodeName;
      // The events regarding this very pod (its uid), wherever the agent is in writing them.
      const mine = (e: any) => e.regarding?.fieldPath === 'spec.containers{c}' && e.reportingController === 'agent';
      const has = (items: any[], reason: string) => items.some((e) => mine(e) && e.reason === reason);
      const items = await eventsUntil(ctx, `/apis/events.orch.io/v1/namespaces/${ctx.namespace}/events`, { 'regarding.uid': pod.metadata.uid },
        (items) => has(items, 'Created') && has(items, 'Started') && (has(items, 'Pulled') || has(items, 'Pulling')));
      for (const reason of ['Created', 'Started']) {
        expectTrue(has(items, reason), `the agent recorded a ${reason} event for container c of the pod it started`,
          `an event reason ${reason}, regarding.fieldPath spec.containers{c}, reportingController agent`, brief(items));
      }
      expectTrue(has(items, 'Pulled') || has(items, 'Pulling'), 'the agent recorded the image step for container c (Pulled, or Pulling then Pulled)',
        'an event reason Pulled or Pulling regarding spec.containers{c}', brief(items));
      // Progress events are Normal; a Warning besides them (a pull retried) is the agent's to record.
      const progress = items.filter((e) => mine(e) && ['Pulling', 'Pulled', 'Created', 'Started'].includes(e.reason));
      const wrong = progress.filter((e) =>
        e.regarding.kind !== 'Pod' || e.regarding.name !== pod.metadata.name || e.regarding.namespace !== pod.metadata.namespace || e.type !== 'Normal' || e.reportingInstance !== nodeName);
      expectTrue(wrong.length === 0, 'each progress event of the container regards the Pod by kind, namespace and name, is Normal, and names the agent\'s node as reportingInstance',
        `regarding {kind: Pod, namespace: ${pod.metadata.namespace}, name: ${pod.metadata.name}}, type Normal, reportingInstance ${nodeName}`, brief(wrong));
    },
  }),

  defineCase({
    ...agentCase('7', 'SHOULD', 'read'),
    id: 'agent.events.node-ready',
    title: 'When its Node becomes Ready the agent records a NodeReady event regarding the Node (kind Node, its name), reported by controller agent',
    requirements: ['001-7-agent-node-events'],
    async run(ctx) {
      const nodeName = ctx.agent().nodeName;
      const node = await ctx.api.get(nodePath(nodeName));
      const ready = (node.json?.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
      if (ready?.status !== 'True') skip(`node ${nodeName} is not Ready (${show(ready)}): there is no transition to Ready to have recorded`);
      const since = Date.parse(ready.lastTransitionTime);
      if (Date.now() - since > EVENT_TTL_MS) skip(`node ${nodeName} became Ready at ${ready.lastTransitionTime}, longer ago than upstream's event time-to-live (1 h): its event may rightly be gone`);
      const items = await eventsUntil(ctx, '/apis/events.orch.io/v1/events', { 'regarding.kind': 'Node', 'regarding.name': nodeName, reason: 'NodeReady' },
        (items) => items.some((e) => e.reportingController === 'agent'));
      expectTrue(items.some((e) => e.reportingController === 'agent'), `the agent recorded NodeReady for node ${nodeName}`,
        `an event reason NodeReady, regarding {kind: Node, name: ${nodeName}}, reportingController agent`, brief(items));
    },
  }),
];
