// The eviction-request controller and the imperative evictor (controllers.md §1), driven through the
// API of a reference that runs only them: Evictions made from requests, their metadata and status,
// the copies back to the requests, withdrawal, cancellation and its reset, deletion, invalid targets.
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startReference } from '../../reference/server.js';
import { startControllerManager } from '../../reference/controllers/manager.js';
import { ApiClient, ApiError } from '../../reference/client/api-client.js';

const NS = 'default';
const ERS = `/apis/lifecycle.orch.io/v1alpha1/namespaces/${NS}/evictionrequests`;
const EVS = `/apis/lifecycle.orch.io/v1alpha1/namespaces/${NS}/evictions`;
const PODS = `/api/v1/namespaces/${NS}/pods`;
const RESPONDER = 'imperative-eviction.orch.io/evictor';
const HOLD = 'test.example.com/hold';

async function setup(t: { teardown(fn: () => unknown): void }, o: { breaks?: string[]; gates?: Record<string, boolean> } = {}) {
  const ref = await startReference({
    scheduler: false,
    featureGates: o.gates,
    // The garbage collector collects the Evictions of requests that are gone.
    controllerManager: { controllers: ['evictionrequest-controller', 'imperative-eviction-controller', 'garbage-collector-controller'], breaks: new Set(o.breaks ?? []) },
  });
  const c = new ApiClient({ url: ref.url });
  t.teardown(async () => { c.close(); await ref.close(); });
  return c;
}

let seq = 0;
/** A pod no scheduler or agent touches (a scheduling gate); `hold`: it has a finalizer and is deleted (terminating). */
async function pod(c: ApiClient, o: { hold?: boolean; spec?: Record<string, unknown>; meta?: Record<string, unknown> } = {}): Promise<any> {
  const name = `p${seq++}`;
  const p = await c.create(PODS, {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, ...o.meta, ...(o.hold ? { finalizers: [HOLD] } : {}) },
    spec: { containers: [{ name: 'c', image: 'img' }], schedulingGates: [{ name: 'test.example.com/never' }], ...o.spec },
  });
  if (o.hold) await c.delete(`${PODS}/${name}`);
  return p;
}

async function release(c: ApiClient, p: any): Promise<void> {
  await c.patch(`${PODS}/${p.metadata.name}`, { metadata: { finalizers: null } }).catch(() => undefined);
}

async function er(c: ApiClient, p: any, requester: string, intent = 'Eviction', uid = p.metadata.uid): Promise<any> {
  return c.create(ERS, {
    apiVersion: 'lifecycle.orch.io/v1alpha1', kind: 'EvictionRequest',
    metadata: { name: `er${seq++}` },
    spec: { requester, intent, target: { pod: { name: p.metadata.name, uid } } },
  });
}

const setIntent = (c: ApiClient, r: any, intent: string) => c.patch(`${ERS}/${r.metadata.name}`, { spec: { intent } });

/** Polls `get` until `pred` holds (10 s at most); gives the last value. */
async function until<T>(get: () => Promise<T>, pred: (v: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  let last: T | undefined;
  for (;;) {
    try { last = await get(); if (pred(last)) return last; } catch (err) { if (!(err instanceof ApiError && err.status === 404)) throw err; }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const cond = (o: any, type: string) => o?.status?.conditions?.find((x: any) => x.type === type);
const brief = (o: any, type: string) => { const x = cond(o, type); return x && [x.status, x.reason, x.message]; };
const evictionsOf = async (c: ApiClient, p: any) => (await c.list(EVS)).items.filter((e: any) => e.spec?.target?.pod?.uid === p.metadata.uid);
const getER = (c: ApiClient, r: any) => () => c.get(`${ERS}/${r.metadata.name}`);

t.test('a request makes one Eviction, the evictor evicts the pod, the request reports it', async (t) => {
  const c = await setup(t);
  const p = await pod(c);
  const r = await er(c, p, 'example.com/drainer');
  const done = await until(getER(c, r), (o) => cond(o, 'TargetEvicted')?.status === 'True', 'TargetEvicted');
  t.same(brief(done, 'TargetEvicted'), ['True', 'PodDeleted', 'Target pod has been deleted']);
  t.same(brief(done, 'Failed'), ['False', 'Succeeded', '']);
  t.equal(done.status.observedGeneration, 1);
  t.equal((await c.get(`${PODS}/${p.metadata.name}`).catch((e) => e)).status, 404, 'the pod is gone');
  await until(() => evictionsOf(c, p), (l) => l[0]?.status?.targetResponders?.[0]?.state === 'Completed', 'the responder Completed');
  const [ev, ...more] = await evictionsOf(c, p);
  t.equal(more.length, 0, 'one Eviction');
  t.equal(ev.metadata.name, `pod-1-${p.metadata.name}`);
  t.same(ev.spec.target.pod, { name: p.metadata.name, uid: p.metadata.uid });
  t.equal(ev.metadata.labels['example.com/drainer'], 'requester');
  t.equal(ev.metadata.labels[RESPONDER], 'responder');
  t.same(ev.metadata.ownerReferences, [{ apiVersion: 'lifecycle.orch.io/v1alpha1', kind: 'EvictionRequest', name: r.metadata.name, uid: r.metadata.uid }]);
  t.same(ev.status.requesters, [{ name: 'example.com/drainer', intent: 'Eviction' }]);
  t.same(ev.status.targetResponders, [{ name: RESPONDER, priority: 100, state: 'Completed' }]);
  const entry = ev.status.responders.find((x: any) => x.name === RESPONDER);
  t.ok(entry.startTime && entry.completionTime, 'the responder started and reported completion');
  t.same(brief(ev, 'TargetEvicted'), ['True', 'PodDeleted', 'Target pod has been deleted']);
  t.equal(ev.status.observedGeneration, 1);
});

t.test('two requests of one pod share one Eviction, labelled and owned by both', async (t) => {
  const c = await setup(t);
  const p = await pod(c, { hold: true });
  t.teardown(() => release(c, p));
  const a = await er(c, p, 'a.example.com/one');
  const b = await er(c, p, 'b.example.com/two');
  const ev = await until(async () => (await evictionsOf(c, p))[0], (e) => (e?.metadata?.ownerReferences?.length ?? 0) === 2 && e?.status?.requesters?.length === 2, 'both requesters');
  t.equal((await evictionsOf(c, p)).length, 1);
  t.same(Object.keys(ev.metadata.labels).sort(), ['a.example.com/one', 'b.example.com/two', RESPONDER]);
  t.same(ev.metadata.ownerReferences.map((o: any) => o.uid).sort(), [a.metadata.uid, b.metadata.uid].sort());
  t.same(ev.status.targetResponders, [{ name: RESPONDER, priority: 100, state: 'Active' }], 'a terminating pod: the evictor leaves it alone');
});

t.test('withdrawal: one requester withdrawing changes nothing; all withdrawing cancels; a new intent resets', async (t) => {
  const c = await setup(t);
  const p = await pod(c, { hold: true });
  t.teardown(() => release(c, p));
  const a = await er(c, p, 'a.example.com/one');
  const b = await er(c, p, 'b.example.com/two');
  await until(async () => (await evictionsOf(c, p))[0], (e) => e?.status?.requesters?.length === 2, 'the Eviction');
  await setIntent(c, a, 'Withdrawn');
  const ev = await until(async () => (await evictionsOf(c, p))[0], (e) => e?.status?.requesters?.[0]?.intent === 'Withdrawn', 'a withdrawn');
  t.same(ev.status.requesters, [{ name: 'a.example.com/one', intent: 'Withdrawn' }, { name: 'b.example.com/two', intent: 'Eviction' }]);
  t.same(brief(ev, 'Failed'), ['False', 'AwaitingEviction', '']);
  await setIntent(c, b, 'Withdrawn');
  for (const r of [a, b]) {
    const got = await until(getER(c, r), (o) => cond(o, 'Failed')?.status === 'True', 'Failed');
    t.same(brief(got, 'Failed'), ['True', 'CanceledDueToNoRequesters', 'No active requesters with eviction intent']);
    t.same(brief(got, 'TargetEvicted'), ['False', 'EvictionFailed', '']);
    t.equal(got.status.observedGeneration, 2);
  }
  const canceled = (await evictionsOf(c, p))[0];
  t.same(canceled.status.targetResponders, [{ name: RESPONDER, priority: 100, state: 'Canceled' }]);
  await setIntent(c, b, 'Eviction');
  const reset = await until(getER(c, b), (o) => cond(o, 'Failed')?.status === 'False', 'the reset');
  t.same(brief(reset, 'Failed'), ['False', 'AwaitingEviction', '']);
  const names = (await evictionsOf(c, p)).map((e: any) => e.metadata.name).sort();
  t.same(names, [`pod-1-${p.metadata.name}`, `pod-2-${p.metadata.name}`]);
  await release(c, p);
  const evicted = await until(getER(c, b), (o) => cond(o, 'TargetEvicted')?.status === 'True', 'evicted once the pod went');
  t.same(brief(evicted, 'TargetEvicted'), ['True', 'PodDeleted', 'Target pod has been deleted']);
});

t.test('a terminating pod counts as evicted after the graceful completion delay', async (t) => {
  const c = await setup(t);
  const p = await pod(c, { hold: true });
  t.teardown(() => release(c, p));
  const r = await er(c, p, 'a.example.com/one');
  const started = Date.now();
  const got = await until(getER(c, r), (o) => cond(o, 'TargetEvicted')?.status === 'True', 'TargetEvicted');
  t.ok(Date.now() - started >= 4_000, 'not before about 5 s');
  t.same(brief(got, 'TargetEvicted'), ['True', 'PodDeleted', 'Target pod has been deleted']);
});

t.test('a deleted request counts as withdrawn; once all are gone the Eviction is collected', async (t) => {
  const c = await setup(t);
  const p = await pod(c, { hold: true });
  t.teardown(() => release(c, p));
  const a = await er(c, p, 'a.example.com/one');
  const b = await er(c, p, 'b.example.com/two', 'Withdrawn');
  await until(async () => (await evictionsOf(c, p))[0], (e) => e?.status?.requesters?.length === 2, 'the Eviction');
  await c.delete(`${ERS}/${a.metadata.name}`);
  const got = await until(getER(c, b), (o) => cond(o, 'Failed')?.status === 'True', 'canceled');
  t.equal(cond(got, 'Failed').reason, 'CanceledDueToNoRequesters');
  const ev = (await evictionsOf(c, p))[0];
  t.same(ev.status.requesters, [{ name: 'a.example.com/one', intent: 'Withdrawn' }, { name: 'b.example.com/two', intent: 'Withdrawn' }]);
  await c.delete(`${ERS}/${b.metadata.name}`);
  await until(() => evictionsOf(c, p), (l) => l.length === 0, 'the Eviction collected');
  t.pass('collected');
});

t.test('a request being deleted (held by a finalizer) counts as withdrawn', async (t) => {
  const c = await setup(t);
  const p = await pod(c, { hold: true });
  t.teardown(() => release(c, p));
  const a = await c.create(ERS, {
    apiVersion: 'lifecycle.orch.io/v1alpha1', kind: 'EvictionRequest',
    metadata: { name: `er${seq++}`, finalizers: [HOLD] },
    spec: { requester: 'a.example.com/one', intent: 'Eviction', target: { pod: { name: p.metadata.name, uid: p.metadata.uid } } },
  });
  t.teardown(() => c.patch(`${ERS}/${a.metadata.name}`, { metadata: { finalizers: null } }).catch(() => undefined));
  await until(async () => (await evictionsOf(c, p))[0], (e) => e?.status?.requesters?.length === 1, 'the Eviction');
  await c.delete(`${ERS}/${a.metadata.name}`);
  const got = await until(getER(c, a), (o) => cond(o, 'Failed')?.status === 'True', 'canceled');
  t.ok(got.metadata.deletionTimestamp, 'the request is still there, being deleted');
  t.equal(cond(got, 'Failed').reason, 'CanceledDueToNoRequesters');
  const ev = (await evictionsOf(c, p))[0];
  t.same(ev.status.requesters, [{ name: 'a.example.com/one', intent: 'Withdrawn' }]);
});

t.test('invalid targets: not found, another uid, a pod of a PodGroup', async (t) => {
  const c = await setup(t, { gates: { GenericWorkload: true } });
  const p = await pod(c);
  const missing = await er(c, { metadata: { name: 'no-such-pod', uid: p.metadata.uid } }, 'a.example.com/one');
  const other = '00000000-0000-4000-8000-000000000000';
  const mismatch = await er(c, p, 'a.example.com/one', 'Eviction', other);
  const g = await pod(c, { spec: { schedulingGroup: { podGroupName: 'group' } } });
  const grouped = await er(c, g, 'a.example.com/one');
  const expect = [
    [missing, 'Target pod not found.'],
    [mismatch, `Target pod UID mismatch: expected ${other}, got ${p.metadata.uid}.`],
    [grouped, 'Target pod references a SchedulingGroup. Eviction is currently not supported.'],
  ] as const;
  for (const [r, message] of expect) {
    const got = await until(getER(c, r), (o) => cond(o, 'Failed')?.status === 'True', 'Failed');
    t.same(brief(got, 'Failed'), ['True', 'EvictionInvalid', message]);
    t.same(brief(got, 'TargetEvicted'), ['False', 'EvictionFailed', '']);
  }
  t.equal((await c.get(`${PODS}/${g.metadata.name}`)).metadata.uid, g.metadata.uid, 'the grouped pod stays');
  t.same((await c.list(EVS)).items.map((e: any) => [e.metadata.name, e.spec]), [], 'no Eviction made');
});

t.test('a terminal pod is evicted as it is (PodTerminal), a withdrawn-only request waits', async (t) => {
  const c = await setup(t);
  const p = await pod(c);
  await c.patchStatus(`${PODS}/${p.metadata.name}`, { status: { phase: 'Succeeded' } });
  const r = await er(c, p, 'a.example.com/one');
  const got = await until(getER(c, r), (o) => cond(o, 'TargetEvicted')?.status === 'True', 'TargetEvicted');
  t.same(brief(got, 'TargetEvicted'), ['True', 'PodTerminal', 'Pod has reached terminal state']);
  t.equal((await c.get(`${PODS}/${p.metadata.name}`)).metadata.uid, p.metadata.uid, 'the terminal pod is not deleted');
  const q = await pod(c);
  const w = await er(c, q, 'a.example.com/one', 'Withdrawn');
  const waiting = await until(getER(c, w), (o) => o?.status?.observedGeneration === 1, 'a status');
  t.same(brief(waiting, 'Failed'), ['False', 'AwaitingEviction', 'waiting for an Eviction to report on progress']);
  t.same(brief(waiting, 'TargetEvicted'), ['False', 'AwaitingEviction', 'waiting for an Eviction to report on progress']);
  t.same(await evictionsOf(c, q), [], 'no Eviction without an Eviction intent');
});

t.test('Eviction validation: TargetEvicted and Failed cannot go back once True', async (t) => {
  const c = await setup(t);
  const p = await pod(c);
  const r = await er(c, p, 'a.example.com/one');
  await until(getER(c, r), (o) => cond(o, 'TargetEvicted')?.status === 'True', 'TargetEvicted');
  // Settled: the responder reported and the controller marked it Completed (no write races the PUTs).
  const ev = await until(async () => (await evictionsOf(c, p))[0], (e) => e?.status?.targetResponders?.[0]?.state === 'Completed', 'the responder Completed');
  const back = { ...ev, status: { ...ev.status, conditions: ev.status.conditions.map((x: any) => (x.type === 'TargetEvicted' ? { ...x, status: 'False' } : x)) } };
  const err = await c.updateStatus(`${EVS}/${ev.metadata.name}`, back).catch((e) => e);
  t.equal(err.status, 422);
  t.match(err.body.message, /TargetEvicted condition status cannot be reverted/);
  const target = await c.update(`${EVS}/${ev.metadata.name}`, { ...ev, spec: { target: { pod: { name: 'other', uid: p.metadata.uid } } } }).catch((e) => e);
  t.equal(target.status, 422, 'spec.target is immutable');
});

t.test('the evictor declines mirror and DaemonSet pods: it completes without evicting, and with no responder left the request fails', async (t) => {
  const c = await setup(t);
  const mirror = await pod(c, { meta: { annotations: { 'orch.io/config.mirror': 'hash' } }, spec: { nodeName: 'no-such-node', schedulingGates: undefined } });
  const owned = await pod(c, { meta: { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: '00000000-0000-4000-8000-00000000d5d5', controller: true }] } });
  for (const [p, message] of [[mirror, 'API-initiated eviction of mirror pods is not supported'], [owned, 'API-initiated eviction of DaemonSet pods is not supported']] as const) {
    const r = await er(c, p, 'example.com/drainer');
    const done = await until(getER(c, r), (o) => cond(o, 'Failed')?.status === 'True', 'Failed');
    t.same(brief(done, 'Failed'), ['True', 'NoFurtherResponder', 'All responders have completed without evicting the target']);
    t.equal(cond(done, 'TargetEvicted')?.status, 'False');
    const [ev] = await evictionsOf(c, p);
    t.same(ev.status.targetResponders, [{ name: RESPONDER, priority: 100, state: 'Completed' }]);
    t.equal(ev.status.responders.find((x: any) => x.name === RESPONDER)?.message, message, 'the responder says why it stepped back');
    const still = await c.get(`${PODS}/${p.metadata.name}`);
    t.ok(still.metadata.uid === p.metadata.uid && !still.metadata.deletionTimestamp, 'the pod is not evicted');
  }
});

t.test('the evictor retries a failing eviction with backoff, reporting each failure, until it goes through', async (t) => {
  const ref = await startReference({ scheduler: false, controllerManager: false });
  // In front of the API: the first two evictions answer 429, as a disruption budget would.
  let refused = 0;
  const target = new URL(ref.url);
  const proxy = createServer((req, res) => {
    if (req.method === 'POST' && req.url?.endsWith('/eviction') && refused < 2) {
      refused++;
      req.resume();
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'TooManyRequests', code: 429, message: 'Cannot evict pod as it would violate the pod\'s disruption budget.' }));
      return;
    }
    const up = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const cm = await startControllerManager({
    api: { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` },
    controllers: ['evictionrequest-controller', 'imperative-eviction-controller'], serve: false, log: () => undefined,
  });
  const c = new ApiClient({ url: ref.url });
  t.teardown(async () => {
    c.close();
    await cm.close();
    proxy.closeAllConnections();
    await new Promise((r) => proxy.close(r));
    await ref.close();
  });
  const p = await pod(c);
  const r = await er(c, p, 'a.example.com/one');
  const messages = new Set<string>();
  const done = await until(async () => {
    const ev = (await evictionsOf(c, p))[0];
    const m = ev?.status?.responders?.find((x: any) => x.name === RESPONDER)?.message;
    if (m) messages.add(m);
    return c.get(`${ERS}/${r.metadata.name}`);
  }, (o) => cond(o, 'TargetEvicted')?.status === 'True', 'evicted after the refusals');
  t.equal(refused, 2, 'two evictions were refused');
  t.same(brief(done, 'TargetEvicted'), ['True', 'PodDeleted', 'Target pod has been deleted']);
  t.ok([...messages].some((m) => /^Could not evict a pod due to failing eviction requests, number of retries: [12]$/.test(m)), `a failure reported as the responder's message (${[...messages].join('; ')})`);
});
