// DeleteOptions from the body or the query: parsing, validation (upstream messages), preconditions,
// gracePeriodSeconds, orphanDependents/propagationPolicy finalizers, and the 202 of upstream.
import t from 'tap';
import { garbageCollectionFinalizers } from '../../reference/apiserver/delete-options.js';
import { SC, call, sc, startTestServer, widgets } from './helpers.js';
import { startApiServer } from '../../reference/apiserver/apiserver.js';
import { startControllerManager } from '../../reference/controllers/manager.js';
import { storageClassStrategy } from '../../reference/resources/storageclass.js';
import { MemoryStorage } from '../../reference/storage/memory.js';
import { widgetStrategy } from './helpers.js';

const W = widgets('default');
const HOLD = 'example.orch.io/hold';

/** An API server with a controller manager running the garbage collector as its client. */
async function startWithCollector(t: { teardown(fn: () => unknown): void }) {
  const api = await startApiServer({
    storage: new MemoryStorage(),
    strategies: [storageClassStrategy, widgetStrategy],
    log: (m, e) => console.error('unexpected server error:', m, e),
  });
  const cm = await startControllerManager({ api: { url: api.url }, controllers: ['garbage-collector-controller'], serve: false, log: () => undefined });
  t.teardown(async () => { await cm.close(); await api.close(); });
  return api;
}

t.test('garbageCollectionFinalizers: options first, then the finalizers present', async (t) => {
  t.same(garbageCollectionFinalizers(undefined, {}), undefined, 'nothing asked, nothing present');
  t.same(garbageCollectionFinalizers(['a'], { propagationPolicy: 'Background' }), undefined);
  t.same(garbageCollectionFinalizers(['a'], { propagationPolicy: 'Orphan' }), ['a', 'orphan']);
  t.same(garbageCollectionFinalizers(['a'], { propagationPolicy: 'Foreground' }), ['a', 'foregroundDeletion']);
  t.same(garbageCollectionFinalizers(['orphan'], { propagationPolicy: 'Foreground' }), ['foregroundDeletion'], 'the other one goes');
  t.same(garbageCollectionFinalizers(['orphan', 'a'], { propagationPolicy: 'Background' }), ['a']);
  t.same(garbageCollectionFinalizers(['a'], { orphanDependents: true }), ['a', 'orphan']);
  t.same(garbageCollectionFinalizers(['orphan', 'a'], { orphanDependents: false }), ['a']);
  t.same(garbageCollectionFinalizers(['foregroundDeletion'], { orphanDependents: false }), [], 'orphanDependents=false clears both');
  t.same(garbageCollectionFinalizers(['orphan'], {}), undefined, 'an existing finalizer is kept when nothing is asked');
});

t.test('validation: both orphanDependents and propagationPolicy, unknown policies, negative grace periods', async (t) => {
  const srv = await startTestServer(t);
  await call(srv.url, 'POST', SC, sc('x'));
  const both = await call(srv.url, 'DELETE', `${SC}/x?orphanDependents=true&propagationPolicy=Background`);
  t.equal(both.status, 422);
  t.same(both.body, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'DeleteOptions.meta.orch.io "" is invalid: propagationPolicy: Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set',
    reason: 'Invalid',
    details: {
      group: 'meta.orch.io',
      kind: 'DeleteOptions',
      causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set', field: 'propagationPolicy' }],
    },
    code: 422,
  });
  const bodyBoth = await call(srv.url, 'DELETE', `${SC}/x`, { kind: 'DeleteOptions', apiVersion: 'v1', orphanDependents: false, propagationPolicy: 'Orphan' });
  t.equal(bodyBoth.status, 422, 'the same in the body');

  const policy = await call(srv.url, 'DELETE', `${SC}/x?propagationPolicy=Sideways`);
  t.equal(policy.status, 422);
  t.equal(policy.body.message, 'DeleteOptions.meta.orch.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"');
  t.equal(policy.body.details.causes[0].reason, 'FieldValueNotSupported');

  const negative = await call(srv.url, 'DELETE', `${SC}/x?gracePeriodSeconds=-1`);
  t.equal(negative.status, 422);
  t.equal(negative.body.message, 'DeleteOptions.meta.orch.io "" is invalid: gracePeriodSeconds: Invalid value: -1: must be greater than or equal to 0');
  const garbled = await call(srv.url, 'DELETE', `${SC}/x?gracePeriodSeconds=soon`);
  t.equal(garbled.status, 400);
  t.equal(garbled.body.message, 'strconv.ParseInt: parsing "soon": invalid syntax');
  const badBool = await call(srv.url, 'DELETE', `${SC}/x?orphanDependents=maybe`);
  t.equal(badBool.status, 400);

  const several = await call(srv.url, 'DELETE', `${SC}/x?ignoreStoreReadErrorWithClusterBreakingPotential=true&gracePeriodSeconds=0&propagationPolicy=Orphan`);
  t.equal(several.status, 422);
  t.equal(
    several.body.message,
    'DeleteOptions.meta.orch.io "" is invalid: [ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: cannot be set together with .propagationPolicy, ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: cannot be set together with .gracePeriodSeconds]',
  );
  const withPre = await call(srv.url, 'DELETE', `${SC}/x`, { ignoreStoreReadErrorWithClusterBreakingPotential: true, preconditions: { uid: 'u' } });
  t.match(withPre.body.message, 'cannot be set together with .preconditions');
  t.equal((await call(srv.url, 'GET', `${SC}/x`)).status, 200, 'nothing refused was deleted');

  const ok = await call(srv.url, 'DELETE', `${SC}/x?gracePeriodSeconds=0&propagationPolicy=Background&ignoreStoreReadErrorWithClusterBreakingPotential=false&pretty=true`);
  t.equal(ok.status, 200, 'every member of the delete set is accepted');
  t.equal((await call(srv.url, 'GET', `${SC}/x`)).status, 404, 'gracePeriodSeconds=0: gone at once');
});

t.test('the body: DeleteOptions of apiVersion v1 or meta.orch.io/v1, types checked, and then the query is not read', async (t) => {
  const srv = await startTestServer(t);
  const created = (await call(srv.url, 'POST', SC, sc('b'))).body;
  for (const apiVersion of ['v1', 'meta.orch.io/v1', 'storage.orch.io/v1']) {
    const r = await call(srv.url, 'DELETE', `${SC}/b`, { kind: 'DeleteOptions', apiVersion, preconditions: { uid: 'wrong' } });
    t.equal(r.status, 409, `apiVersion ${apiVersion} is decoded (its precondition applies)`);
  }
  const noKind = await call(srv.url, 'DELETE', `${SC}/b`, { preconditions: { uid: 'wrong' } });
  t.equal(noKind.status, 409, 'kind and apiVersion may be left out');
  const wrongKind = await call(srv.url, 'DELETE', `${SC}/b`, { kind: 'ListOptions', apiVersion: 'v1' });
  t.equal(wrongKind.status, 400);
  t.equal(wrongKind.body.message, 'the kind in the data (ListOptions) does not match the expected kind (DeleteOptions)');
  const wrongVersion = await call(srv.url, 'DELETE', `${SC}/b`, { kind: 'DeleteOptions', apiVersion: 'nope.orch.io/v9' });
  t.equal(wrongVersion.status, 400);
  for (const [field, value, type] of [
    ['gracePeriodSeconds', '5', 'int64'],
    ['orphanDependents', 'yes', 'bool'],
    ['propagationPolicy', 3, 'v1.DeletionPropagation'],
    ['preconditions', 'x', 'v1.Preconditions'],
    ['dryRun', 'All', '[]string'],
  ] as const) {
    const r = await call(srv.url, 'DELETE', `${SC}/b`, { [field]: value });
    t.equal(r.status, 400, `${field} of the wrong type`);
    t.match(r.body.message, `Go struct field DeleteOptions.${field} of type ${type}`);
  }
  const badPreUid = await call(srv.url, 'DELETE', `${SC}/b`, { preconditions: { uid: 7 } });
  t.equal(badPreUid.status, 400);
  // A body wins over the query (upstream reads the query only without a body).
  const r = await call(srv.url, 'DELETE', `${SC}/b?propagationPolicy=Sideways`, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: created.metadata.uid } });
  t.equal(r.status, 200);
  t.equal((await call(srv.url, 'GET', `${SC}/b`)).status, 404);
  // YAML bodies too.
  await call(srv.url, 'POST', SC, sc('y'));
  const yaml = await call(srv.url, 'DELETE', `${SC}/y`, 'kind: DeleteOptions\napiVersion: v1\npreconditions:\n  uid: wrong\n', { 'content-type': 'application/yaml' });
  t.equal(yaml.status, 409);
});

t.test('preconditions: 409 naming the Kind, upstream wording; matching ones let the delete through', async (t) => {
  const srv = await startTestServer(t);
  const w = (await call(srv.url, 'POST', W, { metadata: { name: 'p' } })).body;
  const uid = await call(srv.url, 'DELETE', `${W}/p`, { preconditions: { uid: 'other' } });
  t.equal(uid.status, 409);
  t.equal(uid.body.reason, 'Conflict');
  t.equal(
    uid.body.message,
    `Operation cannot be fulfilled on Widget.test.orch.io "p": the UID in the precondition (other) does not match the UID in record (${w.metadata.uid}). The object might have been deleted and then recreated`,
  );
  t.same(uid.body.details, { name: 'p', group: 'test.orch.io', kind: 'Widget' });
  const rv = await call(srv.url, 'DELETE', `${W}/p`, { preconditions: { resourceVersion: '1' } });
  t.equal(rv.status, 409);
  t.equal(
    rv.body.message,
    `Operation cannot be fulfilled on Widget.test.orch.io "p": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${w.metadata.resourceVersion}). The object might have been modified`,
  );
  const good = await call(srv.url, 'DELETE', `${W}/p`, { preconditions: { uid: w.metadata.uid, resourceVersion: w.metadata.resourceVersion } });
  t.equal(good.status, 200);
  t.equal(good.body.status, 'Success');
});

t.test('with a collector: finalizers from the options, 202 for orphanDependents=false while held', async (t) => {
  const api = await startWithCollector(t);
  await call(api.url, 'POST', W, { metadata: { name: 'h', finalizers: ['orphan', HOLD] } });
  const r = await call(api.url, 'DELETE', `${W}/h?orphanDependents=false`);
  t.equal(r.status, 202, 'upstream answers 202 when orphanDependents=false and the object stays');
  t.same(r.body.metadata.finalizers, [HOLD], 'orphanDependents=false removes the orphan finalizer');
  t.ok(r.body.metadata.deletionTimestamp);
  t.equal(r.body.metadata.deletionGracePeriodSeconds, 0);

  await call(api.url, 'POST', W, { metadata: { name: 'only-orphan', finalizers: ['orphan'] } });
  const gone = await call(api.url, 'DELETE', `${W}/only-orphan?orphanDependents=false`);
  t.equal(gone.status, 200, 'with no finalizer left the object goes at once');
  t.equal(gone.body.kind, 'Status');

  await call(api.url, 'POST', SC, sc('fg', { metadata: { name: 'fg', finalizers: [HOLD] } }));
  const fg = await call(api.url, 'DELETE', `${SC}/fg?propagationPolicy=Foreground&gracePeriodSeconds=30`);
  t.equal(fg.status, 200);
  t.same(fg.body.metadata.finalizers, [HOLD, 'foregroundDeletion']);
  t.equal(fg.body.metadata.deletionGracePeriodSeconds, 0, 'a kind without graceful deletion is marked with 0 whatever was asked');
});

t.test('delete collection: DeleteOptions apply to every item; the unsafe delete is refused', async (t) => {
  const api = await startWithCollector(t);
  for (const n of ['c1', 'c2']) await call(api.url, 'POST', W, { metadata: { name: n, finalizers: [HOLD] } });
  const refused = await call(api.url, 'DELETE', `${W}?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
  t.equal(refused.status, 422);
  t.equal(
    refused.body.message,
    'DeleteOptions.meta.orch.io "" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is not allowed with DELETECOLLECTION, try again after removing the option',
  );
  const bad = await call(api.url, 'DELETE', `${W}?propagationPolicy=Sideways`);
  t.equal(bad.status, 422);
  const dc = await call(api.url, 'DELETE', W, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' });
  t.equal(dc.status, 200);
  t.same(dc.body.items.map((i: any) => i.metadata.finalizers), [[HOLD, 'orphan'], [HOLD, 'orphan']]);
});
