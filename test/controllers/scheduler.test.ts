// The scheduler (reference/scheduler): its pure parts (toleration and node affinity matching, pod
// requests, upstream's messages, the gang cycle, victim selection) and, through the API of a reference
// that runs only it, binding, unschedulable pods and their requeue, gangs and PodGroup conditions,
// preemption, and its metrics.
import t from 'tap';
import { Agent, fetch } from 'undici';
import { startReference } from '../../reference/server.js';
import { ApiClient, ApiError } from '../../reference/client/api-client.js';
import {
  ConstraintError, fitErrorMessage, matchesNodeAffinity, NodeUsage, podRequests, resourceList, untoleratedTaint,
} from '../../reference/scheduler/filters.js';
import { toleratesTaint } from '../../reference/taints.js';
import { minCountUnsatisfied, planGang } from '../../reference/scheduler/gang.js';
import { victimsOnNode } from '../../reference/scheduler/preemption.js';
import type { PlacedPod } from '../../reference/scheduler/cache.js';

const NS = 'default';
const PODS = `/api/v1/namespaces/${NS}/pods`;
const PGS = `/apis/scheduling.orch.io/v1beta1/namespaces/${NS}/podgroups`;

t.test('tolerations match taints as upstream ToleratesTaint', async (t) => {
  const taint = { key: 'k', value: 'v', effect: 'NoSchedule' };
  t.ok(toleratesTaint({ key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' }, taint));
  t.ok(toleratesTaint({ key: 'k', value: 'v' }, taint), 'operator defaults to Equal, empty effect matches all');
  t.notOk(toleratesTaint({ key: 'k', operator: 'Equal', value: 'w' }, taint));
  t.ok(toleratesTaint({ key: 'k', operator: 'Exists' }, taint));
  t.ok(toleratesTaint({ operator: 'Exists' }, taint), 'empty key with Exists tolerates everything');
  t.notOk(toleratesTaint({ key: 'k', operator: 'Exists', effect: 'NoExecute' }, taint), 'effect must match when set');
  t.notOk(toleratesTaint({ key: 'k', operator: 'Like' as never }, taint));
  const taints = [{ key: 'a', effect: 'PreferNoSchedule' }, { key: 'b', effect: 'NoSchedule' }, { key: 'c', effect: 'NoExecute' }];
  t.same(untoleratedTaint(taints, []), taints[1], 'PreferNoSchedule is not a filter');
  t.same(untoleratedTaint(taints, [{ key: 'b', operator: 'Exists' }]), taints[2]);
  t.equal(untoleratedTaint(taints, [{ operator: 'Exists' }]), undefined);
});

t.test('nodeSelector and required node affinity', async (t) => {
  const node = { metadata: { name: 'n1', labels: { zone: 'a', rank: '5' } } };
  const pod = (nodeSelector?: Record<string, string>, terms?: unknown[]) => ({
    metadata: { name: 'p' },
    spec: { nodeSelector, ...(terms ? { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } } : {}) },
  });
  const expr = (key: string, operator: string, values?: string[]) => ({ matchExpressions: [{ key, operator, values }] });
  t.ok(matchesNodeAffinity(pod({ zone: 'a' }), node));
  t.notOk(matchesNodeAffinity(pod({ zone: 'b' }), node));
  t.ok(matchesNodeAffinity(pod(undefined, [expr('zone', 'In', ['a', 'b'])]), node));
  t.notOk(matchesNodeAffinity(pod(undefined, [expr('zone', 'NotIn', ['a'])]), node));
  t.ok(matchesNodeAffinity(pod(undefined, [expr('gpu', 'DoesNotExist')]), node));
  t.ok(matchesNodeAffinity(pod(undefined, [expr('rank', 'Gt', ['4'])]), node));
  t.notOk(matchesNodeAffinity(pod(undefined, [expr('rank', 'Lt', ['5'])]), node));
  t.ok(matchesNodeAffinity(pod(undefined, [expr('gpu', 'Exists'), expr('zone', 'Exists')]), node), 'terms are ORed');
  t.ok(matchesNodeAffinity(pod(undefined, [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }]), node));
  t.notOk(matchesNodeAffinity(pod(undefined, []), node), 'no terms match nothing');
  t.throws(() => matchesNodeAffinity(pod(undefined, [expr('rank', 'Gt', ['x'])]), node), ConstraintError);
  t.throws(() => matchesNodeAffinity(pod(undefined, [expr('rank', 'Near', ['1'])]), node), ConstraintError);
  t.ok(matchesNodeAffinity(pod(undefined, [expr('rank', 'Gt', ['x']), expr('zone', 'In', ['a'])]), node), 'a parse error counts only if no term matches');
  t.ok(matchesNodeAffinity(pod(undefined, [expr('rank', 'Gt', ['x'])]), node, true), 'errorsMatch (the test-only break)');
});

t.test('pod requests: containers and sidecars summed, the largest init container, overhead', async (t) => {
  const req = (cpu: string, memory?: string) => ({ resources: { requests: { cpu, ...(memory ? { memory } : {}) } } });
  const r = podRequests({
    metadata: { name: 'p' },
    spec: {
      containers: [req('100m', '1Mi'), req('200m')],
      initContainers: [req('1'), { ...req('50m'), restartPolicy: 'Always' }, req('500m')],
      overhead: { cpu: '10m' },
    },
  });
  // max(100m + 200m + 50m sidecar, 1 cpu, 500m + 50m sidecar) + 10m overhead
  t.equal(r.get('cpu'), 1010n);
  t.equal(r.get('memory'), 1048576000n);
  t.same([...resourceList({ pods: '110', 'example.com/gpu': 2 })], [['pods', 110000n], ['example.com/gpu', 2000n]]);
});

t.test("upstream's messages", async (t) => {
  const m = fitErrorMessage(3, new Map([
    ['a', ["node(s) didn't match Pod's node affinity/selector"]],
    ['b', ['node(s) had untolerated taint {node.orch.io/unreachable: }']],
    ['c', ["node(s) didn't match Pod's node affinity/selector"]],
  ]));
  t.equal(m, "0/3 nodes are available: 1 node(s) had untolerated taint {node.orch.io/unreachable: }, 2 node(s) didn't match Pod's node affinity/selector.");
  t.equal(minCountUnsatisfied(3, 1, 0), 'minCount (3) cannot be satisfied: 1 scheduled, 0 remaining');
});

t.test('the gang cycle stops once minCount is out of reach, and binds nothing then', async (t) => {
  const m = (name: string) => ({ pod: { metadata: { name } }, requests: new Map() });
  let room = 2;
  const place = () => (room-- > 0 ? { node: 'n' } : { message: 'full' });
  let plan = planGang(3, 0, [m('a'), m('b'), m('c')], place);
  t.same([plan.ok, plan.placements.length, plan.message], [false, 0, 'minCount (3) cannot be satisfied: 2 scheduled, 0 remaining']);
  room = 0;
  plan = planGang(2, 0, [m('a'), m('b'), m('c')], place);
  t.same([plan.ok, plan.message], [false, 'minCount (2) cannot be satisfied: 0 scheduled, 1 remaining'], 'stops early');
  room = 1;
  plan = planGang(2, 1, [m('a'), m('b')], place);
  t.same([plan.ok, plan.placements.map((p) => p.pod.metadata.name), plan.unplaced.map((p) => p.message)], [true, ['a'], ['full']], 'past minCount, the pods that fit are placed');
});

t.test('victims: the fewest, lowest-priority pods whose removal makes room', async (t) => {
  const placed = (key: string, cpu: bigint, priority: number): PlacedPod => ({ key, node: 'n', requests: new Map([['cpu', cpu]]), pod: { metadata: { name: key }, spec: { priority } }, assumed: false });
  const cands = [placed('p1', 1000n, 1), placed('p2', 1000n, 2), placed('p3', 2000n, 3)];
  const usage = new NodeUsage();
  for (const c of cands) usage.add(c.requests);
  const input = { requests: new Map([['cpu', 1000n]]), allocatable: new Map([['cpu', 4000n]]), usage, priorityOf: (p: any) => p.spec.priority };
  t.same(victimsOnNode({ ...input, candidates: cands })?.map((v) => v.key), ['p1'], 'one cpu frees with the lowest priority pod');
  t.same(victimsOnNode({ ...input, requests: new Map([['cpu', 1500n]]), candidates: cands })?.map((v) => v.key), ['p2', 'p1'], 'the highest-priority pod is reprieved first');
  t.equal(victimsOnNode({ ...input, requests: new Map([['cpu', 5000n]]), candidates: cands }), undefined, 'no room even without them');
});

// ---- against a reference ----

async function setup(t: { teardown(fn: () => unknown): void }, o: { breaks?: string[]; gates?: Record<string, boolean> } = {}) {
  const ref = await startReference({ controllerManager: false, featureGates: o.gates ?? { GenericWorkload: true }, scheduler: { breaks: new Set(o.breaks ?? []) } });
  const c = new ApiClient({ url: ref.url });
  t.teardown(async () => { c.close(); await ref.close(); });
  return { c, ref };
}

const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
async function node(c: ApiClient, name: string, o: { pods?: number; cpu?: string; taints?: unknown[]; labels?: Record<string, string>; ready?: boolean } = {}) {
  return c.create('/api/v1/nodes', {
    apiVersion: 'v1', kind: 'Node', metadata: { name, labels: o.labels ?? {} }, spec: { taints: o.taints ?? [] },
    status: {
      allocatable: { cpu: o.cpu ?? '4', memory: '8Gi', pods: String(o.pods ?? 10) },
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True', reason: 'Test', lastHeartbeatTime: now(), lastTransitionTime: now() }],
    },
  });
}

let seq = 0;
async function pod(c: ApiClient, spec: Record<string, unknown> = {}, name = `p${seq++}`): Promise<any> {
  return c.create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'img' }], ...spec } });
}

async function group(c: ApiClient, name: string, spec: Record<string, unknown>): Promise<any> {
  return c.create(PGS, { apiVersion: 'scheduling.orch.io/v1beta1', kind: 'PodGroup', metadata: { name }, spec });
}

async function until<T>(get: () => Promise<T>, pred: (v: T) => boolean, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  for (;;) {
    try { last = await get(); if (pred(last)) return last; } catch (err) { if (!(err instanceof ApiError && err.status === 404)) throw err; }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const getPod = (c: ApiClient, name: string) => c.get(`${PODS}/${name}`);
const cond = (o: any, type: string) => (o?.status?.conditions ?? []).find((x: any) => x.type === type);
const boundPod = (c: ApiClient, name: string) => until(() => getPod(c, name), (p) => !!p.spec.nodeName, `${name} bound`);
/** Lets the scheduler go through its queue (it answers within milliseconds here). */
const settle = () => new Promise((r) => setTimeout(r, 300));

t.test('binds pending pods through pods/binding, least allocated first; leaves others alone', async (t) => {
  const { c } = await setup(t);
  await node(c, 'n-a');
  await node(c, 'n-b');
  const names = [];
  for (let i = 0; i < 4; i++) names.push((await pod(c, { containers: [{ name: 'c', image: 'img', resources: { requests: { cpu: '1' } } }] })).metadata.name);
  const bound = await Promise.all(names.map((n) => boundPod(c, n)));
  t.same(bound.map((p) => p.spec.nodeName).sort(), ['n-a', 'n-a', 'n-b', 'n-b'], 'spread by least allocated');
  t.equal(cond(bound[0], 'PodScheduled').status, 'True', 'the binding set PodScheduled');
  const gated = await pod(c, { schedulingGates: [{ name: 'example.com/hold' }] });
  const other = await pod(c, { schedulerName: 'my-scheduler' });
  await settle();
  for (const p of [gated, other]) {
    const got = await getPod(c, p.metadata.name);
    t.notOk(got.spec.nodeName, `${p.metadata.name} (gated, or another scheduler's) is not bound`);
    t.notOk(cond(got, 'PodScheduled'), 'and not written to');
  }
});

t.test('an unschedulable pod: PodScheduled=False with upstream message, retried when a node changes', async (t) => {
  const { c } = await setup(t);
  await node(c, 'tainted', { taints: [{ key: 'node.orch.io/unreachable', effect: 'NoSchedule' }] });
  await node(c, 'full', { pods: 1 });
  await node(c, 'elsewhere', { labels: { zone: 'b' } });
  await node(c, 'down', { ready: false });
  await pod(c, { nodeName: 'full' });
  const p = await pod(c, { nodeSelector: { zone: 'a' } });
  const got = await until(() => getPod(c, p.metadata.name), (x) => cond(x, 'PodScheduled')?.status === 'False', 'PodScheduled False');
  t.match(cond(got, 'PodScheduled'), { reason: 'Unschedulable', lastTransitionTime: /Z$/ });
  t.equal(cond(got, 'PodScheduled').message,
    "0/4 nodes are available: 1 node(s) had untolerated taint {node.orch.io/unreachable: }, 1 node(s) were not ready, 2 node(s) didn't match Pod's node affinity/selector. "
    + 'preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.');
  await c.patch('/api/v1/nodes/elsewhere', { metadata: { labels: { zone: 'a' } } });
  t.equal((await boundPod(c, p.metadata.name)).spec.nodeName, 'elsewhere', 'bound once a node update lets it fit');

  const never = await pod(c, { nodeSelector: { zone: 'c' }, preemptionPolicy: 'Never' });
  const n = await until(() => getPod(c, never.metadata.name), (x) => cond(x, 'PodScheduled')?.status === 'False', 'PodScheduled False');
  t.match(cond(n, 'PodScheduled').message, / preemption: not eligible due to preemptionPolicy=Never\.$/);
  const bad = await pod(c, { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'rank', operator: 'Gt', values: ['x'] }] }] } } } });
  const b = await until(() => getPod(c, bad.metadata.name), (x) => cond(x, 'PodScheduled')?.status === 'False', 'PodScheduled False');
  t.equal(cond(b, 'PodScheduled').reason, 'SchedulerError', 'an affinity it cannot parse is a scheduler error');
});

t.test('gangs: nothing before minCount pods fit at once; then all together; PodGroup conditions', async (t) => {
  const { c } = await setup(t);
  await node(c, 'n1', { pods: 3 });
  await group(c, 'g', { schedulingPolicy: { gang: { minCount: 3 } } });
  const pg = () => c.get(`${PGS}/g`);
  const sg = { schedulingGroup: { podGroupName: 'g' } };
  const a = await pod(c, sg);
  const b = await pod(c, sg);
  let got = await until(pg, (o) => !!cond(o, 'PodGroupInitiallyScheduled'), 'a condition');
  t.match(cond(got, 'PodGroupInitiallyScheduled'), { status: 'False', reason: 'Unschedulable', message: 'waiting for minCount pods from a gang to appear in scheduling queue', observedGeneration: 1 });
  t.equal(cond(await getPod(c, a.metadata.name), 'PodScheduled')?.message, 'waiting for minCount pods from a gang to appear in scheduling queue');
  const last = await pod(c, sg);
  for (const p of [a, b, last]) await boundPod(c, p.metadata.name);
  got = await until(pg, (o) => cond(o, 'PodGroupInitiallyScheduled')?.status === 'True', 'True');
  t.match(cond(got, 'PodGroupInitiallyScheduled'), { reason: 'Scheduled', observedGeneration: 1 });

  // Lose a pod, and a replacement that cannot fit (the node is full): the condition stays True.
  await c.patch('/api/v1/nodes/n1', { spec: { unschedulable: true } });
  await c.delete(`${PODS}/${a.metadata.name}`);
  const extra = await pod(c, sg);
  await until(() => getPod(c, extra.metadata.name), (x) => cond(x, 'PodScheduled')?.status === 'False', 'the replacement is unschedulable');
  await settle();
  t.equal(cond(await pg(), 'PodGroupInitiallyScheduled').status, 'True', 'never back to False');

  // A gang that cannot fit: upstream's message; nothing bound.
  await node(c, 'n2', { pods: 2, labels: { pool: 'small' }, taints: [{ key: 'pool', value: 'small', effect: 'NoSchedule' }] });
  await group(c, 'big', { schedulingPolicy: { gang: { minCount: 3 } } });
  const members: any[] = [];
  for (let i = 0; i < 3; i++) members.push(await pod(c, { schedulingGroup: { podGroupName: 'big' }, nodeSelector: { pool: 'small' }, tolerations: [{ key: 'pool', operator: 'Exists' }] }));
  got = await until(() => c.get(`${PGS}/big`), (o) => /cannot be satisfied/.test(cond(o, 'PodGroupInitiallyScheduled')?.message ?? ''), 'the gang message');
  t.equal(cond(got, 'PodGroupInitiallyScheduled').message, 'minCount (3) cannot be satisfied: 2 scheduled, 0 remaining');
  for (const m of members) t.notOk((await getPod(c, m.metadata.name)).spec.nodeName, `${m.metadata.name} not bound`);
  // minCount lowered: a later cycle binds.
  await c.patch(`${PGS}/big`, { spec: { schedulingPolicy: { gang: { minCount: 2 } } } });
  await until(async () => (await Promise.all(members.map((m) => getPod(c, m.metadata.name)))).filter((p) => p.spec.nodeName).length, (n) => n === 2, 'two of three bound');
  got = await until(() => c.get(`${PGS}/big`), (o) => cond(o, 'PodGroupInitiallyScheduled')?.status === 'True', 'True');
  t.equal(cond(got, 'PodGroupInitiallyScheduled').observedGeneration, 2, 'observedGeneration follows the spec change');

  // A pod naming a group that does not exist waits for it.
  const orphan = await pod(c, { schedulingGroup: { podGroupName: 'later' } });
  const o2 = await until(() => getPod(c, orphan.metadata.name), (x) => cond(x, 'PodScheduled')?.status === 'False', 'waiting');
  t.equal(cond(o2, 'PodScheduled').message, 'waiting for pod\'s pod group "later" to appear in scheduling queue');
});

t.test('without the PodGroup API, schedulingGroup is ignored; without nodes, a scheduler error', async (t) => {
  const { c } = await setup(t, { gates: { GenericWorkload: false } });
  const early = await pod(c);
  const e = await until(() => getPod(c, early.metadata.name), (x) => cond(x, 'PodScheduled')?.status === 'False', 'PodScheduled False');
  t.match(cond(e, 'PodScheduled'), { reason: 'SchedulerError', message: 'no nodes available to schedule pods' }, "upstream's ErrNoNodesAvailable");
  await node(c, 'n1');
  await boundPod(c, early.metadata.name);
  const p = await pod(c, { schedulingGroup: { podGroupName: 'nowhere' } });
  await boundPod(c, p.metadata.name);
  t.pass('bound as a pod of its own');
});

t.test('preemption: lower-priority victims marked and deleted, preemptor nominated and bound; the victim gang marked', async (t) => {
  const { c } = await setup(t);
  await node(c, 'n1', { pods: 2 });
  await group(c, 'low', { schedulingPolicy: { gang: { minCount: 1 } }, priority: 5 });
  const victim = await pod(c, { schedulingGroup: { podGroupName: 'low' } });
  const keeper = await pod(c, { priority: 500 });
  await boundPod(c, victim.metadata.name);
  await boundPod(c, keeper.metadata.name);
  const seen: any[] = [];
  const watch = c.watch(PODS, { fieldSelector: `metadata.name=${victim.metadata.name}`, onList: () => undefined, onEvent: (ev) => seen.push(ev) });
  await watch.synced;
  t.teardown(() => watch.stop());
  const high = await pod(c, { priority: 100 });
  // The victim is deleted gracefully: the node's agent (none here, so the test stands in for it)
  // finishes the deletion with grace 0 once it has stopped the pod; until then the preemptor waits.
  const terminating = await until(() => getPod(c, victim.metadata.name), (p) => !!p.metadata.deletionTimestamp, 'the victim marked for deletion');
  t.equal(terminating.metadata.deletionGracePeriodSeconds, terminating.spec.terminationGracePeriodSeconds, 'the victim gets its own grace period');
  await c.delete(`${PODS}/${victim.metadata.name}`, { gracePeriodSeconds: 0, preconditions: { uid: victim.metadata.uid } });
  const bound = await boundPod(c, high.metadata.name);
  t.equal(bound.status.nominatedNodeName, 'n1', 'nominated to the node it preempted on');
  await until(async () => seen, (s) => s.some((e) => e.type === 'DELETED'), 'the victim deleted');
  const marked = seen.find((e) => cond(e.object, 'DisruptionTarget'));
  t.match(cond(marked?.object, 'DisruptionTarget'), { status: 'True', reason: 'PreemptionByScheduler', message: 'default-scheduler: preempting to accommodate a higher priority pod' });
  t.ok((await getPod(c, keeper.metadata.name)).spec.nodeName, 'the higher-priority pod stays');
  const pg = await until(() => c.get(`${PGS}/low`), (o) => !!cond(o, 'DisruptionTarget'), 'the group marked');
  t.match(cond(pg, 'DisruptionTarget'), { status: 'True', reason: 'PreemptionByScheduler' });

  // Nothing of lower priority left: no victims, upstream's message.
  const again = await pod(c, { priority: 100 });
  const a = await until(() => getPod(c, again.metadata.name), (x) => cond(x, 'PodScheduled')?.status === 'False', 'unschedulable');
  t.equal(cond(a, 'PodScheduled').message, '0/1 nodes are available: 1 Too many pods. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.');
});

t.test('metrics on the scheduler endpoint', async (t) => {
  const { c, ref } = await setup(t);
  await node(c, 'n1');
  await boundPod(c, (await pod(c)).metadata.name);
  await pod(c, { nodeSelector: { nope: 'x' } });
  await settle();
  const s = ref.components.scheduler!;
  const dispatcher = new Agent({ connect: { ca: s.caPem } });
  t.teardown(() => dispatcher.close());
  const text = await (await fetch(`${s.url}/metrics`, { dispatcher })).text();
  t.match(text, /scheduler_schedule_attempts_total\{result="scheduled",profile="default-scheduler"\} 1\b/);
  t.match(text, /scheduler_schedule_attempts_total\{result="unschedulable",profile="default-scheduler"\} [1-9]/);
  t.match(text, /scheduler_pending_pods\{queue="unschedulable"\} 1\b/);
  t.match(text, /scheduler_pending_pods\{queue="active"\} 0\b/);
  t.match(text, /scheduler_scheduling_attempt_duration_seconds_bucket\{le="0.001",result="scheduled",profile="default-scheduler"\}/);
  t.match(text, /scheduler_preemption_attempts_total [1-9]/);
});
