// The garbage collector: Background, Foreground and Orphan propagation over metadata.ownerReferences,
// across kinds (a namespaced Widget, the cluster-scoped StorageClass), with the collector running in a
// controller manager as a client of the API server (as upstream's kube-controller-manager).
import t from 'tap';
import { startApiServer, type RunningApiServer } from '../../reference/apiserver/apiserver.js';
import { startControllerManager, type RunningControllerManager } from '../../reference/controllers/manager.js';
import { GarbageCollector, GARBAGE_COLLECTOR_CONTROLLER } from '../../reference/controllers/garbage-collector.js';
import { storageClassStrategy } from '../../reference/resources/storageclass.js';
import { MemoryStorage } from '../../reference/storage/memory.js';
import { NS, SC, call, eventually, sc, sleep, widgetStrategy, widgets } from './helpers.js';

interface GcServer extends RunningApiServer {
  gc: GarbageCollector;
  cm: RunningControllerManager;
}

const quiet = () => undefined;

/** A controller manager running only the garbage collector against `url`; the collector itself for idle(). */
async function startCollector(url: string): Promise<{ gc: GarbageCollector; cm: RunningControllerManager }> {
  let gc: GarbageCollector | undefined;
  const cm = await startControllerManager({
    api: { url }, controllers: [], serve: false, log: quiet,
    extra: [{ name: GARBAGE_COLLECTOR_CONTROLLER, make: (ctx) => (gc = new GarbageCollector(ctx)) }],
  });
  return { gc: gc!, cm };
}

async function startGcServer(t: { teardown(fn: () => unknown): void }, opts: { garbageCollection?: boolean } = {}): Promise<GcServer> {
  const api = await startApiServer({
    storage: new MemoryStorage(),
    strategies: [storageClassStrategy, widgetStrategy],
    garbageCollection: opts.garbageCollection,
    log: (m, e) => console.error('unexpected server error:', m, e),
  });
  const { gc, cm } = await startCollector(api.url);
  t.teardown(async () => { await cm.close(); await api.close(); });
  return { ...api, gc, cm };
}

const W = widgets('default');
const ref = (o: any, extra: Record<string, unknown> = {}) => ({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, uid: o.metadata.uid, ...extra });
const widget = (name: string, meta: Record<string, unknown> = {}) => ({ metadata: { name, ...meta } });
const status = async (url: string, p: string) => (await call(url, 'GET', p)).status;
const HOLD = 'example.orch.io/hold';

t.test('Background: the owner goes at once, its dependents after it (across kinds and scopes)', async (t) => {
  const srv = await startGcServer(t);
  const owner = (await call(srv.url, 'POST', SC, sc('owner'))).body;
  const a = await call(srv.url, 'POST', W, widget('a', { ownerReferences: [ref(owner)] }));
  t.equal(a.status, 201);
  const b = await call(srv.url, 'POST', W, widget('b', { ownerReferences: [ref(owner)] }));
  const keep = await call(srv.url, 'POST', W, widget('keep'));
  t.ok(b.body && keep.body);
  const del = await call(srv.url, 'DELETE', `${SC}/owner?propagationPolicy=Background`);
  t.equal(del.status, 200);
  t.equal(await status(srv.url, `${SC}/owner`), 404, 'the owner is removed by the delete itself');
  await eventually(async () => (await status(srv.url, `${W}/a`)) === 404 && (await status(srv.url, `${W}/b`)) === 404);
  await srv.gc.idle();
  t.equal(await status(srv.url, `${W}/keep`), 200, 'objects without owners are left alone');
});

t.test('Background is the default; a dependent of a dependent goes too', async (t) => {
  const srv = await startGcServer(t);
  const top = (await call(srv.url, 'POST', W, widget('top'))).body;
  const mid = (await call(srv.url, 'POST', W, widget('mid', { ownerReferences: [ref(top)] }))).body;
  await call(srv.url, 'POST', W, widget('leaf', { ownerReferences: [ref(mid)] }));
  t.equal((await call(srv.url, 'DELETE', `${W}/top`)).status, 200);
  await eventually(async () => (await status(srv.url, `${W}/leaf`)) === 404 && (await status(srv.url, `${W}/mid`)) === 404);
  t.pass('the whole chain is collected');
});

t.test('a dependent with another live owner keeps living; the reference to the gone owner is dropped', async (t) => {
  const srv = await startGcServer(t);
  const o1 = (await call(srv.url, 'POST', W, widget('o1'))).body;
  const o2 = (await call(srv.url, 'POST', W, widget('o2'))).body;
  await call(srv.url, 'POST', W, widget('dep', { ownerReferences: [ref(o1), ref(o2)] }));
  await call(srv.url, 'DELETE', `${W}/o1`);
  await eventually(async () => (await call(srv.url, 'GET', `${W}/dep`)).body?.metadata?.ownerReferences?.length === 1);
  const dep = (await call(srv.url, 'GET', `${W}/dep`)).body;
  t.same(dep.metadata.ownerReferences.map((r: any) => r.uid), [o2.metadata.uid]);
});

t.test('an owner reference naming a recreated object (other uid) is dangling; an unserved kind is not', async (t) => {
  const srv = await startGcServer(t);
  const first = (await call(srv.url, 'POST', W, widget('owner'))).body;
  await call(srv.url, 'DELETE', `${W}/owner`);
  await call(srv.url, 'POST', W, widget('owner'));
  await call(srv.url, 'POST', W, widget('stale', { ownerReferences: [ref(first)] }));
  await call(srv.url, 'POST', W, widget('foreign', { ownerReferences: [{ apiVersion: 'other.orch.io/v1', kind: 'Thing', name: 'x', uid: 'aaaa' }] }));
  await eventually(async () => (await status(srv.url, `${W}/stale`)) === 404);
  await srv.gc.idle();
  t.equal(await status(srv.url, `${W}/foreign`), 200, 'an owner of a kind the server does not serve cannot be judged absent');
  t.equal(await status(srv.url, `${W}/owner`), 200, 'the new object of the same name is untouched');
});

t.test('a namespaced owner is looked for in the dependent\'s namespace only; a cluster-scoped dependent cannot have one', async (t) => {
  const srv = await startGcServer(t);
  await call(srv.url, 'POST', NS, { metadata: { name: 'other' } });
  const owner = (await call(srv.url, 'POST', W, widget('owner'))).body;
  const elsewhere = await call(srv.url, 'POST', widgets('other'), widget('elsewhere', { ownerReferences: [ref(owner)] }));
  t.equal(elsewhere.status, 201);
  const cluster = await call(srv.url, 'POST', SC, { ...sc('cluster-dep'), metadata: { name: 'cluster-dep', ownerReferences: [ref(owner)] } });
  t.equal(cluster.status, 201);
  const local = await call(srv.url, 'POST', W, widget('local', { ownerReferences: [ref(owner)] }));
  t.equal(local.status, 201);
  await eventually(async () => (await status(srv.url, `${widgets('other')}/elsewhere`)) === 404 && (await status(srv.url, `${SC}/cluster-dep`)) === 404);
  await srv.gc.idle();
  t.equal(await status(srv.url, `${W}/local`), 200, 'the dependent in the owner\'s namespace stays');
});

t.test('Foreground: the owner waits, marked, until dependents with blockOwnerDeletion are gone', async (t) => {
  const srv = await startGcServer(t);
  const owner = (await call(srv.url, 'POST', W, widget('owner'))).body;
  await call(srv.url, 'POST', W, widget('blocker', { ownerReferences: [ref(owner, { blockOwnerDeletion: true })], finalizers: [HOLD] }));
  await call(srv.url, 'POST', W, widget('free', { ownerReferences: [ref(owner)] }));
  const del = await call(srv.url, 'DELETE', `${W}/owner?propagationPolicy=Foreground`);
  t.equal(del.status, 200);
  t.equal(del.body.kind, 'Widget', 'a kind answering with Status returns the object while it is held');
  t.same(del.body.metadata.finalizers, ['foregroundDeletion']);
  t.ok(del.body.metadata.deletionTimestamp);
  await eventually(async () => (await status(srv.url, `${W}/free`)) === 404);
  await eventually(async () => !!(await call(srv.url, 'GET', `${W}/blocker`)).body?.metadata?.deletionTimestamp);
  await srv.gc.idle();
  const held = await call(srv.url, 'GET', `${W}/owner`);
  t.equal(held.status, 200, 'the owner stays while a blocking dependent exists');
  t.same(held.body.metadata.finalizers, ['foregroundDeletion']);
  const blocker = (await call(srv.url, 'GET', `${W}/blocker`)).body;
  t.equal((await call(srv.url, 'PUT', `${W}/blocker`, { ...blocker, metadata: { ...blocker.metadata, finalizers: [] } })).status, 200);
  await eventually(async () => (await status(srv.url, `${W}/owner`)) === 404);
  t.pass('the owner goes once the blocking dependent is gone');
});

t.test('Foreground without blocking dependents, and through a chain', async (t) => {
  const srv = await startGcServer(t);
  await call(srv.url, 'POST', W, widget('alone'));
  const d = await call(srv.url, 'DELETE', `${W}/alone?propagationPolicy=Foreground`);
  t.same(d.body.metadata.finalizers, ['foregroundDeletion']);
  await eventually(async () => (await status(srv.url, `${W}/alone`)) === 404);

  const a = (await call(srv.url, 'POST', W, widget('a'))).body;
  const b = (await call(srv.url, 'POST', W, widget('b', { ownerReferences: [ref(a, { blockOwnerDeletion: true })] }))).body;
  await call(srv.url, 'POST', W, widget('c', { ownerReferences: [ref(b, { blockOwnerDeletion: true })], finalizers: [HOLD] }));
  await call(srv.url, 'DELETE', `${W}/a?propagationPolicy=Foreground`);
  await eventually(async () => !!(await call(srv.url, 'GET', `${W}/c`)).body?.metadata?.deletionTimestamp);
  await srv.gc.idle();
  const bNow = (await call(srv.url, 'GET', `${W}/b`)).body;
  t.same(bNow.metadata.finalizers, ['foregroundDeletion'], 'a dependent with dependents of its own is deleted in the foreground too');
  t.equal(await status(srv.url, `${W}/a`), 200);
  const c = (await call(srv.url, 'GET', `${W}/c`)).body;
  await call(srv.url, 'PUT', `${W}/c`, { ...c, metadata: { ...c.metadata, finalizers: [] } });
  await eventually(async () => (await status(srv.url, `${W}/a`)) === 404 && (await status(srv.url, `${W}/b`)) === 404);
  t.pass('the chain unwinds from the leaves');
});

t.test('Orphan: dependents lose the reference and stay; the owner then goes', async (t) => {
  const srv = await startGcServer(t);
  const owner = (await call(srv.url, 'POST', W, widget('owner'))).body;
  const other = (await call(srv.url, 'POST', W, widget('other'))).body;
  await call(srv.url, 'POST', W, widget('d1', { ownerReferences: [ref(owner)] }));
  await call(srv.url, 'POST', W, widget('d2', { ownerReferences: [ref(owner), ref(other)] }));
  const del = await call(srv.url, 'DELETE', `${W}/owner`, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' });
  t.equal(del.status, 200);
  t.same(del.body.metadata.finalizers, ['orphan']);
  await eventually(async () => (await status(srv.url, `${W}/owner`)) === 404);
  const d1 = (await call(srv.url, 'GET', `${W}/d1`)).body;
  t.equal(d1.metadata.ownerReferences, undefined, 'the only reference is removed');
  const d2 = (await call(srv.url, 'GET', `${W}/d2`)).body;
  t.same(d2.metadata.ownerReferences.map((r: any) => r.uid), [other.metadata.uid], 'other references stay');
});

t.test('the orphan finalizer already on an object decides when no policy is given; orphanDependents too', async (t) => {
  const srv = await startGcServer(t);
  const owner = (await call(srv.url, 'POST', W, widget('owner', { finalizers: ['orphan'] }))).body;
  await call(srv.url, 'POST', W, widget('dep', { ownerReferences: [ref(owner)] }));
  await call(srv.url, 'DELETE', `${W}/owner`);
  await eventually(async () => (await status(srv.url, `${W}/owner`)) === 404);
  await srv.gc.idle();
  t.equal((await call(srv.url, 'GET', `${W}/dep`)).body.metadata.ownerReferences, undefined);

  const o2 = (await call(srv.url, 'POST', W, widget('o2'))).body;
  await call(srv.url, 'POST', W, widget('dep2', { ownerReferences: [ref(o2)] }));
  const d = await call(srv.url, 'DELETE', `${W}/o2?orphanDependents=true`);
  t.same(d.body.metadata.finalizers, ['orphan']);
  await eventually(async () => (await status(srv.url, `${W}/o2`)) === 404);
  await srv.gc.idle();
  t.equal(await status(srv.url, `${W}/dep2`), 200);
});

t.test('Foreground and Orphan change finalizers on an object already being deleted', async (t) => {
  const srv = await startGcServer(t);
  await call(srv.url, 'POST', W, widget('held', { finalizers: [HOLD] }));
  const first = await call(srv.url, 'DELETE', `${W}/held`);
  t.same(first.body.metadata.finalizers, [HOLD]);
  const again = await call(srv.url, 'DELETE', `${W}/held?propagationPolicy=Orphan`);
  t.same(again.body.metadata.finalizers, [HOLD, 'orphan'], 'a later delete may still ask for orphaning');
  t.equal(again.body.metadata.deletionTimestamp, first.body.metadata.deletionTimestamp);
  await eventually(async () => JSON.stringify((await call(srv.url, 'GET', `${W}/held`)).body.metadata.finalizers) === JSON.stringify([HOLD]));
  t.pass('the collector removes the orphan finalizer (no dependents)');
});

t.test('the API server adds the finalizers whether a collector runs or not (upstream), unless garbage collection is off', async (t) => {
  const storage = new MemoryStorage();
  const api = await startApiServer({ storage, strategies: [storageClassStrategy, widgetStrategy], log: quiet });
  t.teardown(() => api.close());
  await call(api.url, 'POST', W, widget('plain'));
  const fg = await call(api.url, 'DELETE', `${W}/plain?propagationPolicy=Foreground`);
  t.same(fg.body.metadata.finalizers, ['foregroundDeletion'], 'marked for a collector');
  await sleep(50);
  t.equal(await status(api.url, `${W}/plain`), 200, 'no collector: it stays pending, as upstream');
  const { cm } = await startCollector(api.url);
  t.teardown(() => cm.close());
  await eventually(async () => (await status(api.url, `${W}/plain`)) === 404);
  t.pass('a collector started later finishes it');

  const off = await startGcServer(t, { garbageCollection: false });
  await call(off.url, 'POST', W, widget('plain'));
  const immediate = await call(off.url, 'DELETE', `${W}/plain?propagationPolicy=Foreground`);
  t.equal(immediate.body.kind, 'Status', 'garbage collection off (--enable-garbage-collector=false): the delete is immediate');
  t.equal(await status(off.url, `${W}/plain`), 404);
});

t.test('objects that exist when the collector starts are looked at', async (t) => {
  const api = await startApiServer({ storage: new MemoryStorage(), strategies: [storageClassStrategy, widgetStrategy], log: quiet });
  t.teardown(() => api.close());
  await call(api.url, 'POST', W, widget('dep', { ownerReferences: [{ apiVersion: 'test.orch.io/v1', kind: 'Widget', name: 'nobody', uid: 'gone-uid' }] }));
  await sleep(50);
  t.equal(await status(api.url, `${W}/dep`), 200, 'no collector: the dangling dependent stays');
  const { cm } = await startCollector(api.url);
  t.teardown(() => cm.close());
  await eventually(async () => (await status(api.url, `${W}/dep`)) === 404);
  t.pass('collected at start');
});
