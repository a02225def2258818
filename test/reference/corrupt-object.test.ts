// A stored entry that cannot be decoded: reads fail as upstream's corrupt-object error (500), and
// DELETE with ignoreStoreReadErrorWithClusterBreakingPotential=true removes it, skipping
// finalizers and preconditions. The entry is planted with the reference's test-only debug switch.
import t from 'tap';
import { startReference } from '../../reference/server.js';
import { CORRUPT_BYTES, plantCorrupt } from '../../reference/debug-plant.js';
import { SC, call, sc, startTestServer } from './helpers.js';

const UNSAFE = 'ignoreStoreReadErrorWithClusterBreakingPotential';

t.test('a planted corrupt StorageClass: 500 on read, list and normal delete; the unsafe delete removes it', async (t) => {
  const ref = await startReference({ debugPlantCorrupt: [`${SC}/broken`] });
  t.teardown(() => ref.close());
  const get = await call(ref.url, 'GET', `${SC}/broken`);
  t.equal(get.status, 500);
  t.equal(get.body.reason, 'InternalError');
  t.equal(
    get.body.message,
    `Internal error occurred: StorageError: corrupt object, Code: 7, Key: /registry/storage.orch.io/storageclasses/broken, ResourceVersion: 0, AdditionalErrorMsg: ${get.body.message.split('AdditionalErrorMsg: ')[1]}`,
  );
  t.match(get.body.message, /corrupt object/);
  t.equal((await call(ref.url, 'GET', SC)).status, 500, 'a list that meets it fails too, as upstream');
  const normal = await call(ref.url, 'DELETE', `${SC}/broken`);
  t.equal(normal.status, 500, 'a normal delete cannot read it either');
  t.match(normal.body.message, /corrupt object/);
  const off = await call(ref.url, 'DELETE', `${SC}/broken?${UNSAFE}=false`);
  t.equal(off.status, 500, 'false is the default: a normal delete');

  const unsafe = await call(ref.url, 'DELETE', `${SC}/broken?${UNSAFE}=true`);
  t.equal(unsafe.status, 200);
  t.same(unsafe.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'broken', kind: 'StorageClass' }, code: 200 });
  t.equal((await call(ref.url, 'GET', `${SC}/broken`)).status, 404, 'gone from storage');
  t.equal((await call(ref.url, 'GET', SC)).status, 200, 'the collection lists again');
  const again = await call(ref.url, 'DELETE', `${SC}/broken?${UNSAFE}=true`);
  t.equal(again.status, 422, 'an absent object is not corrupt');
});

t.test('the unsafe delete refuses readable objects, and goes through the body too', async (t) => {
  const srv = await startTestServer(t);
  await call(srv.url, 'POST', SC, sc('fine', { metadata: { name: 'fine', finalizers: ['example.orch.io/hold'] } }));
  const r = await call(srv.url, 'DELETE', `${SC}/fine?${UNSAFE}=true`);
  t.equal(r.status, 422);
  t.same(r.body.details, {
    name: 'fine',
    group: 'storage.orch.io',
    kind: 'storageclasses',
    causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option', field: UNSAFE }],
  });
  t.equal(
    r.body.message,
    'storageclasses.storage.orch.io "fine" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option',
  );
  const stored = (await call(srv.url, 'GET', `${SC}/fine`)).body;
  t.notOk(stored.metadata.deletionTimestamp, 'nothing happened to it');

  // A corrupt entry whose (unreadable) finalizers would have held it: the unsafe delete skips them.
  await srv.storage.create('/registry/storage.orch.io/storageclasses/held', '{"metadata":{"name":"held","finalizers":["x/y"]');
  const body = await call(srv.url, 'DELETE', `${SC}/held`, { kind: 'DeleteOptions', apiVersion: 'v1', [UNSAFE]: true });
  t.equal(body.status, 200);
  t.equal(body.body.status, 'Success');
  t.equal(await srv.storage.get('/registry/storage.orch.io/storageclasses/held'), undefined);
});

t.test('plantCorrupt: item paths of served resources only, namespaced ones with their namespace', async (t) => {
  const srv = await startTestServer(t);
  const key = await plantCorrupt(srv.registry, srv.storage, '/apis/test.orch.io/v1/namespaces/default/widgets/w');
  t.equal(key, '/registry/test.orch.io/widgets/default/w');
  t.equal((await srv.storage.get(key))?.value, CORRUPT_BYTES);
  t.equal((await call(srv.url, 'GET', '/apis/test.orch.io/v1/namespaces/default/widgets/w')).status, 500);
  await call(srv.url, 'POST', SC, sc('exists'));
  await plantCorrupt(srv.registry, srv.storage, `${SC}/exists`);
  t.equal((await call(srv.url, 'GET', `${SC}/exists`)).status, 500, 'an existing object is overwritten');
  for (const bad of ['/nope', `${SC}`, '/apis/none.orch.io/v1/things/x', '/apis/test.orch.io/v1/widgets/w', '/apis/storage.orch.io/v1/namespaces/default/storageclasses/x']) {
    await t.rejects(plantCorrupt(srv.registry, srv.storage, bad), `${bad} is refused`);
  }
});
