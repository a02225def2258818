// The resource quota controller and admission (spec 000 §2.4, controllers.md §4), driven through the
// API of a reference that runs only the quota controller: status.hard mirrors spec.hard, status.used
// counts what the scopes and scope selector match (pods and other served kinds), recounts on deletes,
// terminal pods and the full resync, and the admission refuses, charges and retries as upstream.
// The evaluator's arithmetic (pod requests with init containers, overhead, quantity formats) is
// checked directly.
import t from 'tap';
import { startReference } from '../../reference/server.js';
import { ApiClient, ApiError } from '../../reference/client/api-client.js';
import { addLists, podEvaluator, podQOS, prettyPrint, usageOf } from '../../reference/quota/evaluator.js';

async function setup(t: { teardown(fn: () => unknown): void }, o: { breaks?: string[]; resyncMs?: number } = {}) {
  const ref = await startReference({
    scheduler: false,
    controllerManager: { controllers: ['resourcequota-controller'], settings: o.resyncMs ? { resourceQuotaSyncPeriodMs: o.resyncMs } : {}, breaks: new Set(o.breaks ?? []) },
  });
  const c = new ApiClient({ url: ref.url });
  t.teardown(async () => { c.close(); await ref.close(); });
  return { c, url: ref.url };
}

let seq = 0;
async function namespace(c: ApiClient): Promise<string> {
  const ns = `q${seq++}`;
  await c.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  return ns;
}
const pods = (ns: string) => `/api/v1/namespaces/${ns}/pods`;
const quotas = (ns: string) => `/api/v1/namespaces/${ns}/resourcequotas`;
const podBody = (name: string, spec: Record<string, unknown> = {}, resources?: Record<string, unknown>) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { schedulingGates: [{ name: 'test.orch.io/hold' }], containers: [{ name: 'c', image: 'img:1', ...(resources ? { resources } : {}) }], ...spec },
});
const quotaBody = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec });

/** Polls `read` until `ok` holds (10 s), returning the last value. */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const usedOf = (c: ApiClient, ns: string, name: string, want: Record<string, string>) =>
  until(async () => (await c.get(`${quotas(ns)}/${name}`)).status?.used, (u) => same(u, want));
const refusal = async (p: Promise<unknown>) => {
  try {
    await p;
    return undefined;
  } catch (err) {
    return err instanceof ApiError ? { status: err.status, reason: err.reason, message: err.body.message } : err;
  }
};

t.test('the evaluator: pod requests and limits, QoS, usage formats', async (t) => {
  const pod = {
    spec: {
      containers: [{ name: 'a', resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '200m' } } }, { name: 'b', resources: { requests: { cpu: '1', 'example.com/gpu': '2' } } }],
      initContainers: [
        { name: 'big-init', resources: { requests: { cpu: '3', memory: '32Mi' } } },
        { name: 'sidecar', restartPolicy: 'Always', resources: { requests: { memory: '16Mi' } } },
      ],
      overhead: { cpu: '50m' },
    },
  };
  const u = podEvaluator.usage(pod);
  // Containers: cpu 1100m, memory 64Mi, plus the sidecar's 16Mi; the largest init step is 3 cpu.
  t.equal(u['requests.cpu'], '3050m', 'max(containers + sidecars, init) plus overhead');
  t.equal(u['requests.memory'], '80Mi');
  t.equal(u['cpu'], '3050m', 'cpu is requests.cpu');
  t.equal(u['limits.cpu'], '250m', 'overhead added to the limits that exist');
  t.equal(u['limits.memory'], undefined, 'no memory limit, none counted');
  t.equal(u['requests.example.com/gpu'], '2', 'extended resources as requests.<name>');
  t.equal(u['pods'], '1');
  t.equal(u['count/pods'], '1');
  const done = podEvaluator.usage({ ...pod, status: { phase: 'Succeeded' } });
  t.same(done, { 'count/pods': '1' }, 'a terminal pod counts only as an object');
  t.equal(podQOS({ spec: { containers: [{ name: 'a' }] } }), 'BestEffort');
  t.equal(podQOS({ spec: { containers: [{ name: 'a', resources: { requests: { cpu: '1' }, limits: { cpu: '1', memory: '1Gi' } } }] } }), 'Burstable');
  t.equal(podQOS({ spec: { containers: [{ name: 'a', resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } } }] } }), 'Guaranteed');
  t.same(addLists({ memory: '0' }, { memory: '1Gi' }), { memory: '1Gi' }, 'a zero takes the other format');
  t.same(addLists({ cpu: '1' }, { cpu: '500m', pods: '2' }), { cpu: '1500m', pods: '2' });
  t.equal(prettyPrint({ pods: '1', cpu: '2' }), 'cpu=2,pods=1');
  t.equal(podEvaluator.constraints(['requests.cpu', 'limits.memory', 'pods'], { spec: { containers: [{ name: 'b' }, { name: 'a', resources: { requests: { cpu: '1' } } }], initContainers: [{ name: 'i' }] } }),
    'must specify limits.memory for: a,b,i; requests.cpu for: b,i');
  const q = { metadata: { name: 'q' }, spec: { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'NotIn', values: ['x'] }] } } };
  const objs = [{ spec: { priorityClassName: 'x' } }, { spec: { priorityClassName: 'y' } }, { spec: {} }];
  t.same(usageOf(podEvaluator, q, objs, ['pods']), { pods: '2' }, 'NotIn matches other classes and pods without one');
});

t.test('status.hard mirrors spec.hard; status.used counts the pods the scopes match, only for limited names', async (t) => {
  const { c } = await setup(t);
  const ns = await namespace(c);
  await c.create(pods(ns), podBody('be'));
  await c.create(pods(ns), podBody('burst', {}, { requests: { cpu: '100m', memory: '64Mi' } }));
  await c.create(pods(ns), podBody('term', { activeDeadlineSeconds: 60, priorityClassName: 'high' }, { requests: { cpu: '200m' }, limits: { cpu: '300m' } }));
  await c.create(quotas(ns), quotaBody('all', { hard: { pods: '10', 'requests.cpu': '2', memory: '1Gi' } }));
  await c.create(quotas(ns), quotaBody('be', { hard: { pods: '10' }, scopes: ['BestEffort'] }));
  await c.create(quotas(ns), quotaBody('term-high', { hard: { pods: '10', 'limits.cpu': '1' }, scopes: ['Terminating'], scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } }));
  await c.create(quotas(ns), quotaBody('low', { hard: { pods: '10' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['low'] }] } }));
  t.same(await usedOf(c, ns, 'all', { pods: '3', 'requests.cpu': '300m', memory: '64Mi' }), { pods: '3', 'requests.cpu': '300m', memory: '64Mi' });
  t.same(await usedOf(c, ns, 'be', { pods: '1' }), { pods: '1' });
  t.same(await usedOf(c, ns, 'term-high', { pods: '1', 'limits.cpu': '300m' }), { pods: '1', 'limits.cpu': '300m' });
  t.same(await usedOf(c, ns, 'low', { pods: '0' }), { pods: '0' });
  t.same((await c.get(`${quotas(ns)}/all`)).status.hard, { pods: '10', 'requests.cpu': '2', memory: '1Gi' });
  await c.patch(`${quotas(ns)}/all`, { spec: { hard: { memory: null, 'count/pods': '4' } } });
  const q = await until(() => c.get(`${quotas(ns)}/all`), (o) => same(o.status?.hard, { pods: '10', 'requests.cpu': '2', 'count/pods': '4' }));
  t.same(q.status.hard, { pods: '10', 'requests.cpu': '2', 'count/pods': '4' }, 'status.hard follows spec.hard');
  t.same(q.status.used, { pods: '3', 'requests.cpu': '300m', 'count/pods': '3' }, 'a name no longer limited leaves status.used');
});

t.test('other served kinds are counted as count/<resource>[.<group>]; unknown kinds are left alone', async (t) => {
  const { c } = await setup(t);
  const ns = await namespace(c);
  for (const n of ['a', 'b']) {
    await c.create(`/apis/events.orch.io/v1/namespaces/${ns}/events`, {
      apiVersion: 'events.orch.io/v1', kind: 'Event', metadata: { name: n },
      eventTime: new Date().toISOString().replace(/Z$/, '000Z'), action: 'Check', reason: 'Test', note: 'a test event', type: 'Normal',
      reportingController: 'test.orch.io/quota', reportingInstance: 'test-1', regarding: { apiVersion: 'v1', kind: 'Pod', namespace: ns, name: 'p' },
    });
  }
  const events = 2;
  await c.create(quotas(ns), quotaBody('objects', { hard: { 'count/events.events.orch.io': '10', 'count/resourcequotas': '10', resourcequotas: '10', 'count/widgets.example.com': '1' } }));
  const used = await usedOf(c, ns, 'objects', { 'count/events.events.orch.io': String(events), 'count/resourcequotas': '1', resourcequotas: '1' });
  t.same(used, { 'count/events.events.orch.io': String(events), 'count/resourcequotas': '1', resourcequotas: '1' }, 'a kind nobody serves gets no usage');
  await c.create(quotas(ns), quotaBody('second', { hard: { pods: '1' } }));
  t.same(await usedOf(c, ns, 'objects', { 'count/events.events.orch.io': String(events), 'count/resourcequotas': '2', resourcequotas: '2' }),
    { 'count/events.events.orch.io': String(events), 'count/resourcequotas': '2', resourcequotas: '2' }, 'the admission charges a new quota');
  await c.delete(`${quotas(ns)}/second`);
  t.same(await usedOf(c, ns, 'objects', { 'count/events.events.orch.io': String(events), 'count/resourcequotas': '1', resourcequotas: '1' }),
    { 'count/events.events.orch.io': String(events), 'count/resourcequotas': '1', resourcequotas: '1' }, 'a deleted object is replenished');
});

t.test('recounts: a deleted pod, a pod turning terminal, and the full resync', async (t) => {
  const { c } = await setup(t, { resyncMs: 300 });
  const ns = await namespace(c);
  await c.create(pods(ns), podBody('a'));
  await c.create(pods(ns), podBody('b'));
  await c.create(quotas(ns), quotaBody('q', { hard: { pods: '5', 'count/pods': '5' } }));
  await usedOf(c, ns, 'q', { pods: '2', 'count/pods': '2' });
  await c.delete(`${pods(ns)}/a`);
  t.same(await usedOf(c, ns, 'q', { pods: '1', 'count/pods': '1' }), { pods: '1', 'count/pods': '1' }, 'after a delete');
  const b = await c.get(`${pods(ns)}/b`);
  await c.updateStatus(`${pods(ns)}/b`, { ...b, status: { ...b.status, phase: 'Failed' } });
  t.same(await usedOf(c, ns, 'q', { pods: '0', 'count/pods': '1' }), { pods: '0', 'count/pods': '1' }, 'a terminal pod stops counting in pods');
  // A status written by someone else is not a reason to recount; the resync corrects it.
  const q = await c.get(`${quotas(ns)}/q`);
  await c.updateStatus(`${quotas(ns)}/q`, { ...q, status: { hard: q.status.hard, used: { pods: '4', 'count/pods': '4' } } });
  t.same(await usedOf(c, ns, 'q', { pods: '0', 'count/pods': '1' }), { pods: '0', 'count/pods': '1' }, 'the resync restores the observed usage');
});

t.test('the admission: refuses over the limits with upstream messages, charges before storing, dry runs charge nothing', async (t) => {
  const { c } = await setup(t);
  const ns = await namespace(c);
  await c.create(quotas(ns), quotaBody('q', { hard: { pods: '2', 'requests.cpu': '1' } }));
  await usedOf(c, ns, 'q', { pods: '0', 'requests.cpu': '0' });
  t.match(await refusal(c.create(pods(ns), podBody('bare'))), { status: 403, reason: 'Forbidden', message: 'pods "bare" is forbidden: failed quota: q: must specify requests.cpu for: c' });
  const dry = await c.create(`${pods(ns)}?dryRun=All`, podBody('dry', {}, { requests: { cpu: '600m' } }));
  t.equal(dry.metadata.name, 'dry');
  t.same((await c.get(`${quotas(ns)}/q`)).status.used, { pods: '0', 'requests.cpu': '0' }, 'a dry run charges nothing');
  await c.create(pods(ns), podBody('one', {}, { requests: { cpu: '600m' } }));
  t.same((await c.get(`${quotas(ns)}/q`)).status.used, { pods: '1', 'requests.cpu': '600m' }, 'charged when the create returns');
  t.match(await refusal(c.create(pods(ns), podBody('two', {}, { requests: { cpu: '600m' } }))), {
    status: 403,
    message: 'pods "two" is forbidden: exceeded quota: q, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1',
  }, 'only the overflowing resource is listed');
  t.match(await refusal(c.create(pods(ns), { ...podBody('', {}, { requests: { cpu: '600m' } }), metadata: { generateName: 'gen-' } })), {
    status: 403, message: /^pods "gen-[a-z0-9]{5}" is forbidden: exceeded quota: q,/,
  });
  // A quota whose status.hard names a resource without usage yet: status unknown.
  await c.create(quotas(ns), quotaBody('fresh', { hard: { pods: '9' } }));
  await usedOf(c, ns, 'fresh', { pods: '1' });
  const fresh = await c.get(`${quotas(ns)}/fresh`);
  await c.updateStatus(`${quotas(ns)}/fresh`, { ...fresh, status: { hard: { pods: '9', 'count/pods': '9' }, used: { pods: '1' } } });
  t.match(await refusal(c.create(pods(ns), podBody('three', {}, { requests: { cpu: '100m' } }))), {
    status: 403, message: 'pods "three" is forbidden: status unknown for quota: fresh, resources: count/pods,pods',
  });
});

t.test('the admission under concurrent creates never lets usage past a limit', async (t) => {
  const { c } = await setup(t);
  const ns = await namespace(c);
  await c.create(quotas(ns), quotaBody('q', { hard: { pods: '5' } }));
  await usedOf(c, ns, 'q', { pods: '0' });
  const results = await Promise.all(Array.from({ length: 12 }, (_, i) => refusal(c.create(pods(ns), podBody(`p${i}`)))));
  t.equal(results.filter((r) => r === undefined).length, 5, 'five creates admitted');
  t.ok(results.filter((r) => r !== undefined).every((r: any) => r.status === 403 && /exceeded quota: q, requested: pods=1, used: pods=5, limited: pods=5/.test(r.message)), 'the others refused as exceeding');
  t.same((await c.get(`${quotas(ns)}/q`)).status.used, { pods: '5' });
  t.equal((await c.list(pods(ns))).items.length, 5);
});

t.test('test-only breaks do what they say', async (t) => {
  const { c } = await setup(t, { breaks: ['resourcequota.ignore-scopes', 'resourcequota.no-status-hard'] });
  const ns = await namespace(c);
  await c.create(pods(ns), podBody('be'));
  await c.create(pods(ns), podBody('burst', {}, { requests: { cpu: '10m' } }));
  await c.create(quotas(ns), quotaBody('be', { hard: { pods: '1' }, scopes: ['BestEffort'] }));
  t.same(await usedOf(c, ns, 'be', { pods: '2' }), { pods: '2' }, 'ignore-scopes counts the Burstable pod too');
  t.equal((await c.get(`${quotas(ns)}/be`)).status.hard, undefined, 'no-status-hard leaves status.hard unset');
  t.equal((await refusal(c.create(pods(ns), podBody('more')))), undefined, 'so the admission enforces nothing');
});
