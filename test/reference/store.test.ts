// The generic store through its HTTP face (metadata rules, concurrency, finalizers, namespaces),
// using the reference's StorageClass and a test-only namespaced Widget with a status subresource.
import t from 'tap';
import { generateName } from '../../reference/apiserver/store.js';
import { NS, SC, call, eventually, sc, startTestServer, widgets } from './helpers.js';
import { startControllerManager } from '../../reference/controllers/manager.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const RFC3339_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

t.test('create: server-set metadata', async (t) => {
  const srv = await startTestServer(t);
  const before = await srv.storage.currentRevision();
  const r = await call(srv.url, 'POST', SC, sc('meta', {
    metadata: {
      name: 'meta',
      uid: 'client-uid',
      resourceVersion: '999',
      generation: 7,
      creationTimestamp: '2001-01-01T00:00:00Z',
      deletionTimestamp: '2001-01-01T00:00:00Z',
      labels: { app: 'x' },
    },
  }));
  t.equal(r.status, 201);
  const m = r.body.metadata;
  t.match(m.uid, UUID_V4);
  t.match(m.creationTimestamp, RFC3339_SECONDS);
  t.not(m.creationTimestamp, '2001-01-01T00:00:00Z');
  t.ok(Math.abs(Date.parse(m.creationTimestamp) - Date.now()) < 5000, 'creationTimestamp is now');
  t.equal(m.generation, 1);
  t.equal(m.resourceVersion, String(before + 1), 'resourceVersion is the storage revision, as a decimal string');
  t.equal(m.deletionTimestamp, undefined);
  t.same(m.labels, { app: 'x' });
  t.equal(r.body.apiVersion, 'storage.orch.io/v1');
  t.equal(r.body.kind, 'StorageClass');
  const got = await call(srv.url, 'GET', `${SC}/meta`);
  t.same(got.body, r.body, 'GET returns what create returned');
});

t.test('create: kind and apiVersion are inferred when omitted', async (t) => {
  const srv = await startTestServer(t);
  const r = await call(srv.url, 'POST', SC, { metadata: { name: 'bare' }, provisioner: 'a.orch.io/b' });
  t.equal(r.status, 201);
  t.equal(r.body.kind, 'StorageClass');
  t.equal(r.body.apiVersion, 'storage.orch.io/v1');
});

t.test('generateName', async (t) => {
  const srv = await startTestServer(t);
  const r = await call(srv.url, 'POST', SC, { metadata: { generateName: 'gen-' }, provisioner: 'a.orch.io/b' });
  t.equal(r.status, 201);
  t.match(r.body.metadata.name, /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  t.equal(r.body.metadata.generateName, 'gen-');

  const long = 'x'.repeat(70);
  t.equal(generateName(long).length, 63, 'a long prefix is cut to leave room for the suffix');

  const bad = await call(srv.url, 'POST', SC, { metadata: { generateName: 'Bad_' }, provisioner: 'a.orch.io/b' });
  t.equal(bad.status, 422);
  t.equal(bad.body.details.causes[0].field, 'metadata.generateName');

  const named = await call(srv.url, 'POST', SC, { metadata: { name: 'explicit', generateName: 'gen-' }, provisioner: 'a.orch.io/b' });
  t.equal(named.body.metadata.name, 'explicit', 'name wins over generateName');

  const missing = await call(srv.url, 'POST', SC, { metadata: {}, provisioner: 'a.orch.io/b' });
  t.equal(missing.status, 422);
  t.equal(missing.body.message, 'StorageClass.storage.orch.io "" is invalid: metadata.name: Required value: name or generateName is required');
});

t.test('generateName retries on a collision, then gives up with AlreadyExists', async (t) => {
  const srv = await startTestServer(t);
  const realRandom = Math.random;
  t.teardown(() => {
    Math.random = realRandom;
  });
  Math.random = () => 0; // always suffix "bbbbb"
  t.equal((await call(srv.url, 'POST', SC, { metadata: { generateName: 'c-' }, provisioner: 'a.orch.io/b' })).body.metadata.name, 'c-bbbbb');
  let calls = 0;
  Math.random = () => (calls++ < 5 ? 0 : 0.5); // first attempt collides, the retry does not
  const retried = await call(srv.url, 'POST', SC, { metadata: { generateName: 'c-' }, provisioner: 'a.orch.io/b' });
  t.equal(retried.status, 201);
  t.not(retried.body.metadata.name, 'c-bbbbb');
  Math.random = () => 0;
  const exhausted = await call(srv.url, 'POST', SC, { metadata: { generateName: 'c-' }, provisioner: 'a.orch.io/b' });
  t.equal(exhausted.status, 409);
  t.equal(exhausted.body.reason, 'AlreadyExists');
  t.equal(exhausted.body.message, 'storageclasses.storage.orch.io "c-bbbbb" already exists');
});

t.test('labels, annotations, finalizers and owner references are validated', async (t) => {
  const srv = await startTestServer(t);
  const r = await call(srv.url, 'POST', SC, sc('labels', {
    metadata: {
      name: 'labels',
      labels: { 'bad key!': 'v', ok: 'x'.repeat(64) },
      annotations: { big: 'y'.repeat(256 * 1024) },
      finalizers: ['a/b/c'],
      ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: '', uid: 'u' }],
    },
  }));
  t.equal(r.status, 422);
  const fields = r.body.details.causes.map((c: any) => `${c.field} ${c.reason}`);
  t.same(fields, [
    'metadata.labels FieldValueInvalid',
    'metadata.labels FieldValueInvalid',
    'metadata.annotations FieldValueTooLong',
    'metadata.ownerReferences.name FieldValueInvalid',
    'metadata.finalizers FieldValueInvalid',
  ]);
  t.match(r.body.message, 'metadata.labels: Invalid value: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx": must be no more than 63 characters');
  t.match(r.body.message, 'metadata.annotations: Too long: may not be more than 262144 bytes');
});

t.test('namespace rules', async (t) => {
  const srv = await startTestServer(t);
  const missing = await call(srv.url, 'POST', widgets('nope'), { metadata: { name: 'w' } });
  t.equal(missing.status, 404);
  t.equal(missing.body.message, 'namespaces "nope" not found');
  t.same(missing.body.details, { name: 'nope', kind: 'namespaces' });

  const mismatch = await call(srv.url, 'POST', widgets('default'), { metadata: { name: 'w', namespace: 'other' } });
  t.equal(mismatch.status, 400);
  t.equal(mismatch.body.reason, 'BadRequest');
  t.equal(mismatch.body.message, 'the namespace of the provided object does not match the namespace sent on the request');

  const fromPath = await call(srv.url, 'POST', widgets('default'), { metadata: { name: 'w' } });
  t.equal(fromPath.status, 201);
  t.equal(fromPath.body.metadata.namespace, 'default', 'the namespace comes from the path');
  const same = await call(srv.url, 'POST', widgets('default'), { metadata: { name: 'w2', namespace: 'default' } });
  t.equal(same.status, 201);

  const clusterScoped = await call(srv.url, 'POST', SC, sc('nsd', { metadata: { name: 'nsd', namespace: 'default' } }));
  t.equal(clusterScoped.status, 422);
  t.equal(clusterScoped.body.message, 'StorageClass.storage.orch.io "nsd" is invalid: metadata.namespace: Forbidden: not allowed on this type');
  t.same(clusterScoped.body.details.causes, [{ reason: 'FieldValueForbidden', message: 'Forbidden: not allowed on this type', field: 'metadata.namespace' }]);

  const putMismatch = await call(srv.url, 'PUT', `${widgets('default')}/w`, { metadata: { name: 'w', namespace: 'other' } });
  t.equal(putMismatch.status, 400);
  t.equal(putMismatch.body.message, 'the namespace of the object (other) does not match the namespace on the request (default)');

  // Same name in two namespaces: different objects.
  t.equal((await call(srv.url, 'POST', NS, { metadata: { name: 'second' } })).status, 201);
  t.equal((await call(srv.url, 'POST', widgets('second'), { metadata: { name: 'w' } })).status, 201);
  const all = await call(srv.url, 'GET', '/apis/test.orch.io/v1/widgets');
  t.same(all.body.items.map((w: any) => `${w.metadata.namespace}/${w.metadata.name}`).sort(), ['default/w', 'default/w2', 'second/w']);
  const one = await call(srv.url, 'GET', widgets('second'));
  t.same(one.body.items.map((w: any) => w.metadata.name), ['w']);
});

t.test('update: optimistic concurrency, unconditional updates, immutable metadata', async (t) => {
  const srv = await startTestServer(t);
  const created = (await call(srv.url, 'POST', SC, sc('upd'))).body;
  const rv = created.metadata.resourceVersion;

  const ok = await call(srv.url, 'PUT', `${SC}/upd`, { ...created, allowVolumeExpansion: true });
  t.equal(ok.status, 200);
  t.ok(Number(ok.body.metadata.resourceVersion) > Number(rv));

  const stale = await call(srv.url, 'PUT', `${SC}/upd`, { ...created, allowVolumeExpansion: false });
  t.equal(stale.status, 409);
  t.equal(stale.body.reason, 'Conflict');
  t.equal(
    stale.body.message,
    'Operation cannot be fulfilled on storageclasses.storage.orch.io "upd": the object has been modified; please apply your changes to the latest version and try again',
  );
  t.same(stale.body.details, { name: 'upd', group: 'storage.orch.io', kind: 'storageclasses' });

  const { resourceVersion: _drop, ...metaNoRV } = created.metadata;
  const unconditional = await call(srv.url, 'PUT', `${SC}/upd`, { ...created, metadata: metaNoRV, allowVolumeExpansion: false });
  t.equal(unconditional.status, 200, 'no resourceVersion: unconditional update');
  t.equal(unconditional.body.allowVolumeExpansion, false);

  const wrongName = await call(srv.url, 'PUT', `${SC}/upd`, { ...created, metadata: { name: 'other' } });
  t.equal(wrongName.status, 400);
  t.equal(wrongName.body.message, 'the name of the object (other) does not match the name on the URL (upd)');

  const uid = await call(srv.url, 'PUT', `${SC}/upd`, { ...created, metadata: { name: 'upd', uid: 'ffffffff-0000-4000-8000-000000000000' } });
  t.equal(uid.status, 422);
  t.equal(uid.body.message, 'StorageClass.storage.orch.io "upd" is invalid: metadata.uid: Invalid value: "ffffffff-0000-4000-8000-000000000000": field is immutable');

  const ts = await call(srv.url, 'PUT', `${SC}/upd`, { ...created, metadata: { name: 'upd', creationTimestamp: '2001-01-01T00:00:00Z' } });
  t.equal(ts.status, 200);
  t.equal(ts.body.metadata.creationTimestamp, created.metadata.creationTimestamp, 'creationTimestamp keeps its value');
  t.equal(ts.body.metadata.uid, created.metadata.uid, 'uid carried over when omitted');

  const badRV = await call(srv.url, 'PUT', `${SC}/upd`, { ...created, metadata: { name: 'upd', resourceVersion: 'abc' } });
  t.equal(badRV.status, 422);

  const missing = await call(srv.url, 'PUT', `${SC}/nothere`, sc('nothere'));
  t.equal(missing.status, 404, 'StorageClass does not allow create on update');
});

t.test('generation: bumped by spec changes only; a no-op update writes nothing', async (t) => {
  const srv = await startTestServer(t);
  const w = (await call(srv.url, 'POST', widgets('default'), { metadata: { name: 'g' }, spec: { size: 1 } })).body;
  t.equal(w.metadata.generation, 1);
  t.equal(w.spec.color, 'blue', 'defaulted');

  const labelled = (await call(srv.url, 'PUT', `${widgets('default')}/g`, { ...w, metadata: { ...w.metadata, labels: { a: 'b' } } })).body;
  t.equal(labelled.metadata.generation, 1, 'metadata change: no bump');
  t.not(labelled.metadata.resourceVersion, w.metadata.resourceVersion);

  const resized = (await call(srv.url, 'PUT', `${widgets('default')}/g`, { ...labelled, spec: { ...labelled.spec, size: 2 } })).body;
  t.equal(resized.metadata.generation, 2, 'spec change: bump');

  const revBefore = await srv.storage.currentRevision();
  const noop = await call(srv.url, 'PUT', `${widgets('default')}/g`, resized);
  t.equal(noop.status, 200);
  t.equal(noop.body.metadata.resourceVersion, resized.metadata.resourceVersion, 'same resourceVersion');
  t.equal(await srv.storage.currentRevision(), revBefore, 'no write');

  const recolor = await call(srv.url, 'PUT', `${widgets('default')}/g`, { ...resized, spec: { ...resized.spec, color: 'red' } });
  t.equal(recolor.status, 422);
  t.equal(recolor.body.message, 'Widget.test.orch.io "g" is invalid: spec.color: Invalid value: "red": field is immutable');

  const generation = await call(srv.url, 'PUT', `${widgets('default')}/g`, { ...resized, metadata: { ...resized.metadata, generation: 99 } });
  t.equal(generation.body.metadata.generation, 2, 'clients cannot set generation');
});

t.test('status subresource: main endpoint ignores status, status endpoint ignores the rest', async (t) => {
  const srv = await startTestServer(t);
  const w = (await call(srv.url, 'POST', widgets('default'), { metadata: { name: 's' }, spec: { size: 1 }, status: { phase: 'Set' } })).body;
  t.equal(w.status, undefined, 'status is dropped on create');
  const main = (await call(srv.url, 'PUT', `${widgets('default')}/s`, { ...w, status: { phase: 'Nope' } })).body;
  t.equal(main.status, undefined);
  const st = await call(srv.url, 'PUT', `${widgets('default')}/s/status`, { ...main, spec: { size: 50, color: 'blue' }, status: { phase: 'Ready', observed: 1 } });
  t.equal(st.status, 200);
  t.same(st.body.status, { phase: 'Ready', observed: 1 });
  t.equal(st.body.spec.size, 1, 'spec unchanged through /status');
  t.equal(st.body.metadata.generation, 1, 'status changes do not bump generation');
  const got = await call(srv.url, 'GET', `${widgets('default')}/s/status`);
  t.same(got.body, st.body);
  const stale = await call(srv.url, 'PUT', `${widgets('default')}/s/status`, { ...main, status: { phase: 'Old' } });
  t.equal(stale.status, 409, 'status updates are guarded by resourceVersion too');
  t.equal((await call(srv.url, 'GET', `${SC}/x/status`)).status, 404, 'no status subresource on StorageClass');
});

t.test('delete: object or Status response, preconditions, finalizers', async (t) => {
  const srv = await startTestServer(t);
  const created = (await call(srv.url, 'POST', SC, sc('del'))).body;
  const del = await call(srv.url, 'DELETE', `${SC}/del`);
  t.equal(del.status, 200);
  t.equal(del.body.kind, 'StorageClass', 'StorageClass answers with the deleted object');
  t.equal(del.body.metadata.uid, created.metadata.uid);
  t.equal((await call(srv.url, 'GET', `${SC}/del`)).status, 404);

  const w = (await call(srv.url, 'POST', widgets('default'), { metadata: { name: 'd' } })).body;
  const wdel = await call(srv.url, 'DELETE', `${widgets('default')}/d`);
  t.same(wdel.body, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: 'd', group: 'test.orch.io', kind: 'widgets', uid: w.metadata.uid },
  });

  await call(srv.url, 'POST', SC, sc('pre'));
  const pre = await call(srv.url, 'DELETE', `${SC}/pre`, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'nope' } });
  t.equal(pre.status, 409);
  t.match(pre.body.message, 'Operation cannot be fulfilled on StorageClass.storage.orch.io "pre": the UID in the precondition (nope) does not match the UID in record (');

  const fin = (await call(srv.url, 'POST', SC, sc('fin', { metadata: { name: 'fin', finalizers: ['example.orch.io/hold'] } }))).body;
  const marked = await call(srv.url, 'DELETE', `${SC}/fin`);
  t.equal(marked.status, 200);
  t.match(marked.body.metadata.deletionTimestamp, RFC3339_SECONDS);
  t.equal(marked.body.metadata.deletionGracePeriodSeconds, 0);
  t.equal(marked.body.metadata.generation, 2, 'marking for deletion bumps generation');
  const still = await call(srv.url, 'GET', `${SC}/fin`);
  t.equal(still.status, 200, 'kept while finalizers remain');
  const again = await call(srv.url, 'DELETE', `${SC}/fin`);
  t.equal(again.body.metadata.deletionTimestamp, marked.body.metadata.deletionTimestamp, 'deleting again changes nothing');

  const wdFin = await call(srv.url, 'POST', widgets('default'), { metadata: { name: 'wf', finalizers: ['example.orch.io/hold'] } });
  const wdMarked = await call(srv.url, 'DELETE', `${widgets('default')}/wf`);
  t.equal(wdMarked.body.kind, 'Widget', 'a kind answering with Status still returns the object while finalizers hold it');
  t.ok(wdFin.body.metadata.uid);

  const more = await call(srv.url, 'PUT', `${SC}/fin`, { ...still.body, metadata: { ...still.body.metadata, finalizers: ['example.orch.io/hold', 'example.orch.io/more'] } });
  t.equal(more.status, 422);
  t.match(more.body.message, 'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.orch.io/more"}');

  const released = await call(srv.url, 'PUT', `${SC}/fin`, { ...still.body, metadata: { ...still.body.metadata, finalizers: [] } });
  t.equal(released.status, 200);
  t.equal((await call(srv.url, 'GET', `${SC}/fin`)).status, 404, 'gone once the last finalizer is removed');
  t.ok(fin.metadata.uid);
});

t.test('delete collection and list snapshots', async (t) => {
  const srv = await startTestServer(t);
  for (const n of ['a', 'b', 'c']) await call(srv.url, 'POST', widgets('default'), { metadata: { name: n } });
  await call(srv.url, 'POST', NS, { metadata: { name: 'keep' } });
  await call(srv.url, 'POST', widgets('keep'), { metadata: { name: 'k' } });

  const list = await call(srv.url, 'GET', widgets('default'));
  t.equal(list.body.kind, 'WidgetList');
  t.equal(list.body.metadata.resourceVersion, String(await srv.storage.currentRevision()));
  const rv = list.body.metadata.resourceVersion;

  const dc = await call(srv.url, 'DELETE', widgets('default'));
  t.equal(dc.status, 200);
  t.equal(dc.body.kind, 'WidgetList');
  t.same(dc.body.items.map((w: any) => w.metadata.name), ['a', 'b', 'c']);
  t.same((await call(srv.url, 'GET', widgets('default'))).body.items, []);
  t.equal((await call(srv.url, 'GET', widgets('keep'))).body.items.length, 1, 'other namespaces untouched');

  const exact = await call(srv.url, 'GET', `${widgets('default')}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
  t.same(exact.body.items.map((w: any) => w.metadata.name), ['a', 'b', 'c'], 'Exact reads the older snapshot');
  t.equal(exact.body.metadata.resourceVersion, rv);
  const notOlder = await call(srv.url, 'GET', `${widgets('default')}?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`);
  t.same(notOlder.body.items, []);
  const future = await call(srv.url, 'GET', `${widgets('default')}?resourceVersion=99999`);
  t.equal(future.status, 504);
  t.equal(future.body.reason, 'Timeout');
  t.match(future.body.message, 'Too large resource version: 99999, current: ');

  await srv.storage.compact(await srv.storage.currentRevision());
  const old = await call(srv.url, 'GET', `${widgets('default')}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
  t.equal(old.status, 410);
  t.equal(old.body.reason, 'Expired');
  t.equal(old.body.message, 'The resourceVersion for the provided list is too old.');
});

t.test('namespace lifecycle: deleting a namespace deletes what is in it (the namespace controller of a controller manager)', async (t) => {
  const srv = await startTestServer(t);
  const cm = await startControllerManager({ api: { url: srv.url }, controllers: ['namespace-controller'], serve: false, log: () => undefined });
  t.teardown(() => cm.close());
  const ns = await call(srv.url, 'POST', NS, { metadata: { name: 'doomed' } });
  t.equal(ns.status, 201);
  t.same(ns.body.status, { phase: 'Active' });
  t.same(ns.body.spec, { finalizers: ['kubernetes'] });
  await call(srv.url, 'POST', widgets('doomed'), { metadata: { name: 'plain' } });
  await call(srv.url, 'POST', widgets('doomed'), { metadata: { name: 'held', finalizers: ['example.orch.io/hold'] } });

  const del = await call(srv.url, 'DELETE', `${NS}/doomed`);
  t.equal(del.status, 200);
  t.equal(del.body.status.phase, 'Terminating');
  t.ok(del.body.metadata.deletionTimestamp);

  const terminating = await call(srv.url, 'POST', widgets('doomed'), { metadata: { name: 'late' } });
  t.equal(terminating.status, 403);
  t.equal(terminating.body.message, 'widgets.test.orch.io "late" is forbidden: unable to create new content in namespace doomed because it is being terminated');

  await eventually(async () => (await call(srv.url, 'GET', `${widgets('doomed')}/plain`)).status === 404);
  const held = await call(srv.url, 'GET', `${widgets('doomed')}/held`);
  t.equal(held.status, 200, 'a finalizer holds its object');
  t.ok(held.body.metadata.deletionTimestamp);
  t.equal((await call(srv.url, 'GET', `${NS}/doomed`)).status, 200, 'and so the namespace');

  await call(srv.url, 'PUT', `${widgets('doomed')}/held`, { ...held.body, metadata: { ...held.body.metadata, finalizers: [] } });
  await eventually(async () => (await call(srv.url, 'GET', `${NS}/doomed`)).status === 404);
  t.pass('namespace gone once empty');

  const immortal = await call(srv.url, 'DELETE', `${NS}/default`);
  t.equal(immortal.status, 403);
  t.equal(immortal.body.message, 'namespaces "default" is forbidden: this namespace may not be deleted');
});
