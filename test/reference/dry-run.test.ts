// dryRun=All on create, replace, patch, delete and delete collection: full processing, the
// would-be result returned, nothing persisted, no watch event, no revision consumed; any other
// value refused before anything happens.
import t from 'tap';
import { SC, WatchReader, call, sc, startTestServer, widgets } from './helpers.js';

const MERGE = { 'content-type': 'application/merge-patch+json' };

t.test('create', async (t) => {
  const srv = await startTestServer(t);
  const u = srv.url;
  const before = await srv.storage.currentRevision();
  const r = await call(u, 'POST', `${SC}?dryRun=All`, sc('dry'));
  t.equal(r.status, 201);
  t.equal(r.body.metadata.name, 'dry');
  t.equal(r.body.reclaimPolicy, 'Delete', 'defaults applied');
  t.match(r.body.metadata.uid, /^[0-9a-f-]{36}$/, 'server-set metadata filled in');
  t.ok(r.body.metadata.creationTimestamp);
  t.equal(r.body.metadata.resourceVersion, undefined, 'no resourceVersion: nothing was written');
  t.equal(await srv.storage.currentRevision(), before, 'no revision consumed');
  t.equal((await call(u, 'GET', `${SC}/dry`)).status, 404, 'not persisted');

  const invalid = await call(u, 'POST', `${SC}?dryRun=All`, sc('dry', { reclaimPolicy: 'Shred' }));
  t.equal(invalid.status, 422, 'validated like a real create');
  t.equal(invalid.body.details.causes[0].field, 'reclaimPolicy');

  const gen = await call(u, 'POST', `${SC}?dryRun=All`, { metadata: { generateName: 'g-' }, provisioner: 'a.orch.io/b' });
  t.equal(gen.status, 201);
  t.match(gen.body.metadata.name, /^g-[a-z0-9]{5}$/, 'a generated name');

  await call(u, 'POST', SC, sc('taken'));
  const taken = await call(u, 'POST', `${SC}?dryRun=All`, sc('taken'));
  t.equal(taken.status, 409, 'an existing name is AlreadyExists, as a real create');
  t.equal(taken.body.reason, 'AlreadyExists');

  const ns = await call(u, 'POST', `${widgets('nowhere')}?dryRun=All`, { metadata: { name: 'w' } });
  t.equal(ns.status, 404, 'admission runs too (the namespace must exist)');

  t.equal((await call(u, 'POST', `${SC}?dryRun=All&dryRun=All`, sc('twice'))).status, 201, 'repeated All is fine');
});

t.test('replace, patch and status', async (t) => {
  const srv = await startTestServer(t);
  const u = srv.url;
  const created = (await call(u, 'POST', widgets('default'), { metadata: { name: 'w' }, spec: { size: 1 } })).body;
  const item = `${widgets('default')}/w`;
  const before = await srv.storage.currentRevision();

  const put = await call(u, 'PUT', `${item}?dryRun=All`, { ...created, spec: { ...created.spec, size: 2 } });
  t.equal(put.status, 200);
  t.equal(put.body.spec.size, 2, 'the would-be object');
  t.equal(put.body.metadata.generation, 2, 'with its generation bumped');
  t.equal(put.body.metadata.resourceVersion, created.metadata.resourceVersion, 'still at the stored resourceVersion');

  const patch = await call(u, 'PATCH', `${item}?dryRun=All`, { spec: { size: 3 } }, MERGE);
  t.equal(patch.status, 200);
  t.equal(patch.body.spec.size, 3);

  const status = await call(u, 'PATCH', `${item}/status?dryRun=All`, { status: { phase: 'Up' } }, MERGE);
  t.equal(status.status, 200);
  t.equal(status.body.status.phase, 'Up');

  const immutable = await call(u, 'PATCH', `${item}?dryRun=All`, { spec: { color: 'red' } }, MERGE);
  t.equal(immutable.status, 422, 'update validation runs');

  const stale = await call(u, 'PUT', `${item}?dryRun=All`, { ...created, metadata: { ...created.metadata, resourceVersion: '1' } });
  t.equal(stale.status, 409, 'so does the resourceVersion precondition');

  t.equal(await srv.storage.currentRevision(), before, 'no revision consumed');
  const got = (await call(u, 'GET', item)).body;
  t.same(got, created, 'nothing persisted');

  const missing = await call(u, 'PUT', `${widgets('default')}/missing?dryRun=All`, { metadata: { name: 'missing' } });
  t.equal(missing.status, 404);
});

t.test('delete and delete collection', async (t) => {
  const srv = await startTestServer(t);
  const u = srv.url;
  await call(u, 'POST', SC, sc('keep'));
  await call(u, 'POST', widgets('default'), { metadata: { name: 'a' } });
  await call(u, 'POST', widgets('default'), { metadata: { name: 'b', finalizers: ['x.orch.io/hold'] } });
  const before = await srv.storage.currentRevision();

  const del = await call(u, 'DELETE', `${SC}/keep?dryRun=All`);
  t.equal(del.status, 200);
  t.equal(del.body.metadata.name, 'keep', 'the object it would delete');
  t.equal((await call(u, 'GET', `${SC}/keep`)).status, 200, 'still there');

  const body = await call(u, 'DELETE', `${SC}/keep`, { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] });
  t.equal(body.status, 200, 'dryRun in a DeleteOptions body (kubectl --dry-run=server)');
  t.equal((await call(u, 'GET', `${SC}/keep`)).status, 200, 'still there');

  const status = await call(u, 'DELETE', `${widgets('default')}/a?dryRun=All`);
  t.equal(status.status, 200);
  t.equal(status.body.status, 'Success', 'a kind that answers with a Status still does');

  const held = await call(u, 'DELETE', `${widgets('default')}/b?dryRun=All`);
  t.equal(held.status, 200);
  t.ok(held.body.metadata.deletionTimestamp, 'with finalizers: the object as it would be marked');
  t.equal((await call(u, 'GET', `${widgets('default')}/b`)).body.metadata.deletionTimestamp, undefined, 'but it is not marked');

  const coll = await call(u, 'DELETE', `${widgets('default')}?dryRun=All`);
  t.equal(coll.status, 200);
  t.same(coll.body.items.map((i: any) => i.metadata.name).sort(), ['a', 'b'], 'the objects it would delete');
  t.equal((await call(u, 'GET', widgets('default'))).body.items.length, 2, 'all still there');

  t.equal((await call(u, 'DELETE', `${SC}/missing?dryRun=All`)).status, 404);
  t.equal(await srv.storage.currentRevision(), before, 'no revision consumed');
});

t.test('no watch event', async (t) => {
  const srv = await startTestServer(t);
  const u = srv.url;
  const created = (await call(u, 'POST', SC, sc('watched'))).body;
  const w = await WatchReader.open(`${u}${SC}?watch=true&resourceVersion=${created.metadata.resourceVersion}`);
  t.teardown(() => w.close());
  await call(u, 'POST', `${SC}?dryRun=All`, sc('ghost'));
  await call(u, 'PATCH', `${SC}/watched?dryRun=All`, { allowVolumeExpansion: true }, MERGE);
  await call(u, 'DELETE', `${SC}/watched?dryRun=All`);
  await call(u, 'POST', SC, sc('marker'));
  const ev = await w.next();
  t.equal(ev?.type, 'ADDED');
  t.equal(ev?.object.metadata.name, 'marker', 'the first event after the dry runs is the real write');
});

t.test('values other than All are refused before anything happens', async (t) => {
  const srv = await startTestServer(t);
  const u = srv.url;
  await call(u, 'POST', SC, sc('x'));
  const before = await srv.storage.currentRevision();
  const cases: Array<[string, string, string, unknown, string]> = [
    ['POST', `${SC}?dryRun=Bogus`, 'CreateOptions', sc('y'), '[]string{"Bogus"}'],
    ['PUT', `${SC}/x?dryRun=all`, 'UpdateOptions', sc('x'), '[]string{"all"}'],
    ['PATCH', `${SC}/x?dryRun=`, 'PatchOptions', { allowVolumeExpansion: true }, '[]string{""}'],
    ['DELETE', `${SC}/x?dryRun=All&dryRun=None`, 'DeleteOptions', undefined, '[]string{"All", "None"}'],
    ['DELETE', `${SC}?dryRun=true`, 'DeleteOptions', undefined, '[]string{"true"}'],
  ];
  for (const [method, path, kind, body, shown] of cases) {
    const r = await call(u, method, path, body, method === 'PATCH' ? MERGE : {});
    t.equal(r.status, 422, `${method} ${path}`);
    t.equal(r.body.message, `${kind}.meta.orch.io "" is invalid: dryRun: Unsupported value: ${shown}: supported values: "All"`);
    t.same(r.body.details.causes, [{ reason: 'FieldValueNotSupported', message: `Unsupported value: ${shown}: supported values: "All"`, field: 'dryRun' }]);
  }
  t.equal(await srv.storage.currentRevision(), before, 'nothing written');
  t.equal((await call(u, 'GET', `${SC}/x`)).status, 200);
  t.equal((await call(u, 'GET', `${SC}/y`)).status, 404);
});
