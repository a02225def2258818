// The namespace controller (upstream `namespace-controller`), driven through the API of a reference
// that runs only it: a deleted namespace is emptied through the API, its deletion conditions say
// what remains (upstream's types, reasons and messages), and once empty the `kubernetes` finalizer
// goes through namespaces/{name}/finalize and the namespace with it. Without the controller a deleted
// namespace stays Terminating. The finalize subresource itself (PUT only; the only way spec.finalizers
// changes) is checked against the API server.
import t from 'tap';
import { startReference } from '../../reference/server.js';
import { ApiClient, ApiError } from '../../reference/client/api-client.js';

const NS = '/api/v1/namespaces';
const HOLD = 'example.orch.io/hold';

async function setup(t: { teardown(fn: () => unknown): void }, o: { controllers?: string[] | false } = {}) {
  const ref = await startReference({ scheduler: false, controllerManager: o.controllers === false ? false : { controllers: o.controllers ?? ['namespace-controller'] } });
  const c = new ApiClient({ url: ref.url });
  t.teardown(async () => { c.close(); await ref.close(); });
  return c;
}

let seq = 0;
async function namespace(c: ApiClient): Promise<string> {
  const name = `n${seq++}`;
  await c.create(NS, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}
const quotas = (ns: string) => `${NS}/${ns}/resourcequotas`;
const quota = (name: string, finalizers?: string[]) => ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name, ...(finalizers ? { finalizers } : {}) }, spec: { hard: { pods: '1' } } });
const cond = (ns: any, type: string) => (ns?.status?.conditions ?? []).find((c: any) => c.type === type);
const status = (p: Promise<unknown>) => p.then(() => 200, (e) => (e instanceof ApiError ? e.status : -1));

/** Polls `read` until `ok` holds (10 s), returning the last value. */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}

t.test('a deleted namespace is emptied, reports what remains, and goes once empty', async (t) => {
  const c = await setup(t);
  const ns = await namespace(c);
  await c.create(quotas(ns), quota('plain'));
  await c.create(quotas(ns), quota('held', [HOLD]));
  const marked = await c.delete(`${NS}/${ns}`);
  t.equal(marked.status.phase, 'Terminating');

  const waiting = await until(() => c.get(`${NS}/${ns}`), (o) => cond(o, 'NamespaceFinalizersRemaining')?.status === 'True');
  t.equal(await status(c.get(`${quotas(ns)}/plain`)), 404, 'content without finalizers is deleted');
  const held = await c.get(`${quotas(ns)}/held`);
  t.ok(held.metadata.deletionTimestamp, 'content with a finalizer is marked and kept');
  t.same(waiting.spec.finalizers, ['kubernetes'], 'the namespace keeps its finalizer while content remains');
  t.same(waiting.status.conditions.map((x: any) => x.type), [
    'NamespaceDeletionDiscoveryFailure', 'NamespaceDeletionGroupVersionParsingFailure', 'NamespaceDeletionContentFailure', 'NamespaceContentRemaining', 'NamespaceFinalizersRemaining',
  ], "upstream's five conditions, in its order");
  t.match(cond(waiting, 'NamespaceDeletionDiscoveryFailure'), { status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' });
  t.match(cond(waiting, 'NamespaceDeletionContentFailure'), { status: 'False', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' });
  t.match(cond(waiting, 'NamespaceContentRemaining'), { status: 'True', reason: 'SomeResourcesRemain', message: 'Some resources are remaining: resourcequotas. has 1 resource instances' });
  t.match(cond(waiting, 'NamespaceFinalizersRemaining'), { status: 'True', reason: 'SomeFinalizersRemain', message: `Some content in the namespace has finalizers remaining: ${HOLD} in 1 resource instances` });
  t.ok(cond(waiting, 'NamespaceContentRemaining').lastTransitionTime);

  await c.update(`${quotas(ns)}/held`, { ...held, metadata: { ...held.metadata, finalizers: [] } });
  const gone = await until(() => status(c.get(`${NS}/${ns}`)), (s) => s === 404);
  t.equal(gone, 404, 'the namespace goes once the last object went (a delete event, not a poll, brings it back)');
});

t.test('other spec finalizers and metadata finalizers hold the namespace after the controller is done', async (t) => {
  const c = await setup(t);
  const name = `x${seq++}`;
  await c.create(NS, { apiVersion: 'v1', kind: 'Namespace', metadata: { name, finalizers: [HOLD] }, spec: { finalizers: ['example.orch.io/other'] } });
  await c.delete(`${NS}/${name}`);
  const after = await until(() => c.get(`${NS}/${name}`), (o) => !(o.spec?.finalizers ?? []).includes('kubernetes'));
  t.same(after.spec.finalizers, ['example.orch.io/other'], 'only `kubernetes` is removed');
  t.match(cond(after, 'NamespaceContentRemaining'), { status: 'False', reason: 'ContentRemoved', message: 'All content successfully removed' });
  await c.update(`${NS}/${name}/finalize`, { ...after, spec: { finalizers: [] } });
  const meta = await c.get(`${NS}/${name}`);
  t.same(meta.metadata.finalizers, [HOLD], 'still held by its metadata finalizer');
  await c.update(`${NS}/${name}`, { ...meta, metadata: { ...meta.metadata, finalizers: [] } });
  t.equal(await status(c.get(`${NS}/${name}`)), 404);
});

t.test('without the namespace controller a deleted namespace stays Terminating', async (t) => {
  const c = await setup(t, { controllers: ['-namespace-controller', '*'] });
  const ns = await namespace(c);
  await c.create(quotas(ns), quota('plain'));
  await c.delete(`${NS}/${ns}`);
  await new Promise((r) => setTimeout(r, 300));
  const still = await c.get(`${NS}/${ns}`);
  t.equal(still.status.phase, 'Terminating');
  t.equal(await status(c.get(`${quotas(ns)}/plain`)), 200, 'nothing deleted its content');
});

t.test('namespaces/{name}/finalize: PUT only, the one way spec.finalizers changes; status kept', async (t) => {
  const c = await setup(t, { controllers: false });
  const ns = await namespace(c);
  const cur = await c.get(`${NS}/${ns}`);
  const put = await c.update(`${NS}/${ns}`, { ...cur, spec: { finalizers: [] } });
  t.same(put.spec.finalizers, ['kubernetes'], 'a PUT of the namespace keeps spec.finalizers');
  for (const method of ['GET', 'PATCH', 'DELETE', 'POST']) {
    t.equal(await status(c.request(method, `${NS}/${ns}/finalize`, method === 'GET' || method === 'DELETE' ? undefined : {}, method === 'PATCH' ? 'application/merge-patch+json' : 'application/json')), 405, `${method} .../finalize`);
  }
  const fin = await c.update(`${NS}/${ns}/finalize`, { ...put, spec: { finalizers: ['example.orch.io/mine'] }, status: { phase: 'Terminating' } });
  t.same(fin.spec.finalizers, ['example.orch.io/mine'], 'finalize replaces spec.finalizers');
  t.equal(fin.status.phase, 'Active', 'and leaves status alone');
  const bad = await c.update(`${NS}/${ns}/finalize`, { ...fin, spec: { finalizers: ['no-domain'] } }).catch((e) => e);
  t.equal(bad.status, 422, 'finalizer names are validated');
  const stale = await c.update(`${NS}/${ns}/finalize`, { ...put, spec: { finalizers: [] } }).catch((e) => e);
  t.equal(stale.status, 409, 'guarded by the resourceVersion');
  const disc = await c.get('/api/v1');
  t.same(disc.resources.find((r: any) => r.name === 'namespaces/finalize'), { name: 'namespaces/finalize', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['update'] });
  t.equal(await status(c.get('/api/v1/nodes/x/finalize')), 404, 'only namespaces have it');
});
