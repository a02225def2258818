import t from 'tap';
import { NS, SC, WatchReader, call, eventually, sc, startTestServer, widgets } from './helpers.js';

t.test('ADDED, MODIFIED, DELETED over a chunked stream', async (t) => {
  const srv = await startTestServer(t);
  const rv = (await call(srv.url, 'GET', SC)).body.metadata.resourceVersion;
  const w = await WatchReader.open(`${srv.url}${SC}?watch=true&resourceVersion=${rv}`);
  t.teardown(() => w.close());
  t.equal(w.status, 200);
  t.equal(w.headers.get('content-type'), 'application/json');
  t.equal(w.headers.get('transfer-encoding'), 'chunked');

  const created = (await call(srv.url, 'POST', SC, sc('w1'))).body;
  const added = await w.next();
  t.equal(added?.type, 'ADDED');
  t.same(added?.object, created, 'the object as create returned it');

  const updated = (await call(srv.url, 'PUT', `${SC}/w1`, { ...created, allowVolumeExpansion: true })).body;
  const modified = await w.next();
  t.equal(modified?.type, 'MODIFIED');
  t.same(modified?.object, updated);

  const deleted = (await call(srv.url, 'DELETE', `${SC}/w1`)).body;
  const del = await w.next();
  t.equal(del?.type, 'DELETED');
  t.equal(del?.object.metadata.resourceVersion, deleted.metadata.resourceVersion, 'DELETED carries the revision of the delete');
  t.ok(Number(del?.object.metadata.resourceVersion) > Number(updated.metadata.resourceVersion));
  t.equal(del?.object.allowVolumeExpansion, true, 'and the last state');
});

t.test('no resourceVersion or "0": current objects first, as ADDED', async (t) => {
  const srv = await startTestServer(t);
  await call(srv.url, 'POST', SC, sc('a'));
  await call(srv.url, 'POST', SC, sc('b'));
  const names = ['a', 'b'];
  for (const q of ['watch=true', 'watch=1&resourceVersion=0']) {
    const w = await WatchReader.open(`${srv.url}${SC}?${q}`);
    const first = [];
    for (let i = 0; i < names.length; i++) first.push(await w.next());
    t.same(first.map((e) => [e?.type, e?.object.metadata.name]), names.map((n) => ['ADDED', n]), q);
    const next = `z${names.length}`;
    await call(srv.url, 'POST', SC, sc(next));
    names.push(next);
    t.equal((await w.next())?.object.metadata.name, next, 'then changes');
    w.close();
  }
});

t.test('from a resourceVersion: only what came after it, in order', async (t) => {
  const srv = await startTestServer(t);
  await call(srv.url, 'POST', SC, sc('before'));
  const rv = (await call(srv.url, 'GET', SC)).body.metadata.resourceVersion;
  for (const n of ['x1', 'x2', 'x3']) await call(srv.url, 'POST', SC, sc(n));
  await call(srv.url, 'DELETE', `${SC}/x2`);
  const w = await WatchReader.open(`${srv.url}${SC}?watch=true&resourceVersion=${rv}`);
  t.teardown(() => w.close());
  const evs = [await w.next(), await w.next(), await w.next(), await w.next()];
  t.same(evs.map((e) => [e?.type, e?.object.metadata.name]), [['ADDED', 'x1'], ['ADDED', 'x2'], ['ADDED', 'x3'], ['DELETED', 'x2']]);
  const rvs = evs.map((e) => Number(e?.object.metadata.resourceVersion));
  t.same(rvs, [...rvs].sort((a, b) => a - b));
});

t.test('too old resourceVersion: 200, then one ERROR event with a 410 Expired Status', async (t) => {
  const srv = await startTestServer(t);
  await call(srv.url, 'POST', SC, sc('one'));
  await call(srv.url, 'POST', SC, sc('two'));
  const current = await srv.storage.currentRevision();
  await srv.storage.compact(current);
  const w = await WatchReader.open(`${srv.url}${SC}?watch=true&resourceVersion=2`);
  t.equal(w.status, 200);
  const evs = await w.rest();
  t.equal(evs.length, 1);
  t.equal(evs[0]!.type, 'ERROR');
  t.same(evs[0]!.object, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `too old resource version: 2 (${current})`,
    reason: 'Expired',
    code: 410,
  });
  t.ok(w.ended, 'the stream ends after the error');
});

t.test('bad watch requests fail before streaming', async (t) => {
  const srv = await startTestServer(t);
  const future = await call(srv.url, 'GET', `${SC}?watch=true&resourceVersion=99999`);
  t.equal(future.status, 504);
  t.equal(future.body.reason, 'Timeout');
  const bad = await call(srv.url, 'GET', `${SC}?watch=true&resourceVersion=abc`);
  t.equal(bad.status, 422);
  const yaml = await call(srv.url, 'GET', `${SC}?watch=true`, undefined, { accept: 'application/yaml' });
  t.equal(yaml.status, 406);
  t.equal(yaml.body.message, 'only the following media types are accepted: application/json, application/json;stream=watch');
  const stream = await call(srv.url, 'GET', `${SC}?watch=true&timeoutSeconds=1`, undefined, { accept: 'application/json;stream=watch' });
  t.equal(stream.status, 200, 'stream=watch is accepted for watches');
  const timeout = await call(srv.url, 'GET', `${SC}?watch=true&timeoutSeconds=soon`);
  t.equal(timeout.status, 400);
});

t.test('timeoutSeconds ends the stream', async (t) => {
  const srv = await startTestServer(t);
  const started = Date.now();
  const w = await WatchReader.open(`${srv.url}${SC}?watch=true&timeoutSeconds=1`);
  const evs = await w.rest(5000);
  const took = Date.now() - started;
  t.same(evs, []);
  t.ok(took >= 900 && took < 3000, `ended after about a second (${took} ms)`);
  await eventually(async () => srv.handler.openWatches === 0);
});

t.test('a timeoutSeconds beyond what a timer takes (2^31 ms) keeps the stream open (request-fuzz)', async (t) => {
  const srv = await startTestServer(t);
  const w = await WatchReader.open(`${srv.url}${SC}?watch=true&timeoutSeconds=2147483648`);
  t.teardown(() => w.close());
  t.equal(w.status, 200);
  await call(srv.url, 'POST', SC, sc('late'));
  t.equal((await w.next())?.object.metadata.name, 'late', 'still open: the event arrives');
  t.equal(srv.handler.openWatches, 1);
});

t.test('/watch/ paths, single objects and namespaces', async (t) => {
  const srv = await startTestServer(t);
  await call(srv.url, 'POST', NS, { metadata: { name: 'other' } });
  const rv = (await call(srv.url, 'GET', SC)).body.metadata.resourceVersion;
  const one = await WatchReader.open(`${srv.url}/apis/storage.orch.io/v1/watch/storageclasses/target?resourceVersion=${rv}`);
  const ns = await WatchReader.open(`${srv.url}/apis/test.orch.io/v1/watch/namespaces/other/widgets?resourceVersion=${rv}`);
  const all = await WatchReader.open(`${srv.url}/apis/test.orch.io/v1/widgets?watch=true&resourceVersion=${rv}`);
  t.teardown(() => [one, ns, all].forEach((w) => w.close()));
  await call(srv.url, 'POST', SC, sc('targetless'));
  await call(srv.url, 'POST', SC, sc('target'));
  await call(srv.url, 'POST', widgets('default'), { metadata: { name: 'in-default' } });
  await call(srv.url, 'POST', widgets('other'), { metadata: { name: 'in-other' } });
  t.equal((await one.next())?.object.metadata.name, 'target');
  t.equal((await ns.next())?.object.metadata.name, 'in-other');
  t.same([(await all.next())?.object.metadata.name, (await all.next())?.object.metadata.name], ['in-default', 'in-other']);
  const post = await call(srv.url, 'POST', '/apis/storage.orch.io/v1/watch/storageclasses', sc('x'));
  t.equal(post.status, 405);
});

t.test('a client that goes away leaves no watcher behind', async (t) => {
  const srv = await startTestServer(t);
  const ws = await Promise.all([1, 2, 3].map(() => WatchReader.open(`${srv.url}${SC}?watch=true`)));
  await eventually(async () => srv.handler.openWatches === 3);
  ws.forEach((w) => w.close());
  await eventually(async () => srv.handler.openWatches === 0);
  t.pass('all cleaned up');
  t.equal((await call(srv.url, 'POST', SC, sc('after'))).status, 201, 'writes unaffected');
});

t.test('close() while watches are open ends them promptly', async (t) => {
  const srv = await startTestServer(t, { minWatchTimeoutSeconds: 3600 });
  const w1 = await WatchReader.open(`${srv.url}${SC}?watch=true`);
  const w2 = await WatchReader.open(`${srv.url}/apis/test.orch.io/v1/widgets?watch=true`);
  // A keep-alive connection with nothing in flight must not hold close() either.
  await call(srv.url, 'GET', '/version');
  const started = Date.now();
  await srv.close();
  const took = Date.now() - started;
  t.ok(took < 1000, `close() took ${took} ms`);
  t.same(await w1.rest(2000), []);
  t.same(await w2.rest(2000), []);
  t.ok(w1.ended && w2.ended);
});
