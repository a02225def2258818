// Watches in the reference beyond the basics of watch.test.ts: selectors (entering and leaving the
// selection), sendInitialEvents and its defaults, bookmarks (on request, periodic, the
// initial-events-end one), timeoutSeconds, the /watch/ path form, shardSelector, and a compacted
// resourceVersion (the ERROR event cases cannot produce on an arbitrary server).
import t from 'tap';
import { startApiServer } from '../../reference/apiserver/apiserver.js';
import { storageClassStrategy } from '../../reference/resources/storageclass.js';
import { MemoryStorage } from '../../reference/storage/memory.js';
import { FeatureGates } from '../../reference/features.js';
import { fnv1a64 } from '../../reference/apiserver/shard-selector.js';
import { SC, WatchReader, call, sc, sleep, widgetStrategy, type WatchEventLine } from './helpers.js';

async function start(t: { teardown(fn: () => unknown): void }, opts: { bookmarkIntervalSeconds?: number; gates?: Record<string, boolean> } = {}) {
  const storage = new MemoryStorage();
  const api = await startApiServer({
    storage,
    strategies: [storageClassStrategy, widgetStrategy],
    featureGates: new FeatureGates(opts.gates),
    bookmarkIntervalSeconds: opts.bookmarkIntervalSeconds,
    log: (m, e) => console.error('unexpected server error:', m, e),
  });
  t.teardown(() => api.close());
  return { ...api, storage };
}

const short = (e: WatchEventLine | undefined) => [e?.type, e?.object?.metadata?.name ?? e?.object?.metadata?.resourceVersion];

async function open(t: { teardown(fn: () => unknown): void }, u: string): Promise<WatchReader> {
  const w = await WatchReader.open(u);
  t.teardown(() => w.close());
  return w;
}

async function relabel(u: string, name: string, labels: Record<string, string>) {
  const cur = (await call(u, 'GET', `${SC}/${name}`)).body;
  return (await call(u, 'PUT', `${SC}/${name}`, { ...cur, metadata: { ...cur.metadata, labels } })).body;
}

t.test('selectors on a watch: entering is ADDED, leaving is DELETED (last matching state), staying MODIFIED', async (t) => {
  const srv = await start(t);
  const u = srv.url;
  await call(u, 'POST', SC, sc('a', { metadata: { name: 'a', labels: { tier: 'x' } } }));
  await call(u, 'POST', SC, sc('b'));
  const rv = (await call(u, 'GET', SC)).body.metadata.resourceVersion;
  const w = await open(t, `${u}${SC}?watch=true&resourceVersion=${rv}&labelSelector=tier%3Dx`);
  await relabel(u, 'a', { tier: 'x', more: '1' });
  await relabel(u, 'b', { tier: 'x' });
  const left = await relabel(u, 'a', { tier: 'y' });
  await call(u, 'POST', SC, sc('c'));
  await call(u, 'DELETE', `${SC}/b`);
  await call(u, 'POST', SC, sc('d', { metadata: { name: 'd', labels: { tier: 'x' } } }));
  const evs = [await w.next(), await w.next(), await w.next(), await w.next(), await w.next()];
  t.same(evs.map(short), [['MODIFIED', 'a'], ['ADDED', 'b'], ['DELETED', 'a'], ['DELETED', 'b'], ['ADDED', 'd']]);
  t.same(evs[2]!.object.metadata.labels, { tier: 'x', more: '1' }, 'DELETED carries the last state that matched');
  t.equal(evs[2]!.object.metadata.resourceVersion, left.metadata.resourceVersion, 'at the revision of the change');

  const f = await open(t, `${u}${SC}?watch=true&resourceVersion=${rv}&fieldSelector=metadata.name%3Dc`);
  t.same(short(await f.next()), ['ADDED', 'c'], 'field selectors too');
});

t.test('sendInitialEvents: initial ADDED, the annotated bookmark, then changes; the defaults', async (t) => {
  const srv = await start(t);
  const u = srv.url;
  await call(u, 'POST', SC, sc('a'));
  await call(u, 'POST', SC, sc('b', { metadata: { name: 'b', labels: { skip: 'y' } } }));
  const base = `${u}${SC}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&labelSelector=!skip`;
  const w = await open(t, `${base}&allowWatchBookmarks=true`);
  t.same(short(await w.next()), ['ADDED', 'a']);
  const bm = await w.next();
  t.equal(bm?.type, 'BOOKMARK');
  t.same(bm?.object, {
    kind: 'StorageClass',
    apiVersion: 'storage.orch.io/v1',
    metadata: { resourceVersion: String(await srv.storage.currentRevision()), annotations: { 'orch.io/initial-events-end': 'true' } },
  });
  await call(u, 'POST', SC, sc('c'));
  t.same(short(await w.next()), ['ADDED', 'c']);

  const quiet = await open(t, base);
  t.same([short(await quiet.next()), short(await quiet.next())], [['ADDED', 'a'], ['ADDED', 'c']]);
  await call(u, 'POST', SC, sc('d'));
  t.same(short(await quiet.next()), ['ADDED', 'd'], 'no bookmark without allowWatchBookmarks');

  const rv = (await call(u, 'GET', SC)).body.metadata.resourceVersion;
  const fromRv = await open(t, `${base}&allowWatchBookmarks=true&resourceVersion=${rv}`);
  t.same([short(await fromRv.next()), (await fromRv.next())?.type], [['ADDED', 'a'], 'ADDED'], 'with a resourceVersion: the current state all the same');
  const noInitial = await open(t, `${u}${SC}?watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan`);
  await call(u, 'POST', SC, sc('e'));
  t.same(short(await noInitial.next()), ['ADDED', 'e'], 'sendInitialEvents=false: from now');

  const legacy = await open(t, `${u}${SC}?watch=true&allowWatchBookmarks=true&labelSelector=!skip`);
  const first = [await legacy.next(), await legacy.next(), await legacy.next(), await legacy.next()];
  t.same(first.map(short), [['ADDED', 'a'], ['ADDED', 'c'], ['ADDED', 'd'], ['ADDED', 'e']], 'default without resourceVersion: initial ADDED, no bookmark');
  await call(u, 'POST', SC, sc('f'));
  t.same(short(await legacy.next()), ['ADDED', 'f']);

  const future = await call(u, 'GET', `${SC}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=99999`);
  t.equal(future.status, 504, 'a future resourceVersion cannot be served');

  for (const [q, msg] of [
    ['sendInitialEvents=true', 'ListOptions.meta.orch.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'],
    ['sendInitialEvents=true&resourceVersionMatch=Exact', 'ListOptions.meta.orch.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]'],
    ['resourceVersionMatch=NotOlderThan', 'ListOptions.meta.orch.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'],
  ] as const) {
    const r = await call(u, 'GET', `${SC}?watch=true&${q}`);
    t.equal(r.status, 422, q);
    t.equal(r.body.message, msg, q);
  }
});

t.test('periodic bookmarks: only with allowWatchBookmarks, at the configured interval, never behind an event', async (t) => {
  const srv = await start(t, { bookmarkIntervalSeconds: 0.2 });
  const u = srv.url;
  const rv = (await call(u, 'GET', SC)).body.metadata.resourceVersion;
  const w = await open(t, `${u}${SC}?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`);
  const plain = await open(t, `${u}${SC}?watch=true&resourceVersion=${rv}`);
  const created = (await call(u, 'POST', SC, sc('a'))).body;
  t.same(short(await w.next()), ['ADDED', 'a']);
  const bm = await w.next(1000);
  t.equal(bm?.type, 'BOOKMARK');
  t.equal(bm?.object.kind, 'StorageClass');
  t.ok(Number(bm?.object.metadata.resourceVersion) >= Number(created.metadata.resourceVersion), 'at least as new as the last event');
  // Changes elsewhere move the bookmark on.
  await call(u, 'POST', '/api/v1/namespaces', { metadata: { name: 'elsewhere' } });
  let later: WatchEventLine | undefined;
  for (let i = 0; i < 10 && !(later && Number(later.object.metadata.resourceVersion) > Number(bm!.object.metadata.resourceVersion)); i++) later = await w.next(1000);
  t.ok(Number(later?.object.metadata.resourceVersion) > Number(bm?.object.metadata.resourceVersion), 'a later bookmark carries the newer revision');
  t.same(short(await plain.next()), ['ADDED', 'a']);
  await sleep(500);
  await call(u, 'POST', SC, sc('b'));
  t.same(short(await plain.next()), ['ADDED', 'b'], 'no bookmarks in between without allowWatchBookmarks');
});

t.test('timeoutSeconds ends the stream; the /watch/ path form; shardSelector on watches', async (t) => {
  const srv = await start(t, { gates: { ShardedListAndWatch: true } });
  const u = srv.url;
  const started = Date.now();
  const w = await open(t, `${u}${SC}?watch=true&timeoutSeconds=1`);
  t.same(await w.rest(5000), [], 'nothing but the end');
  t.ok(Date.now() - started >= 900 && Date.now() - started < 4000, 'after about a second');

  const rv = (await call(u, 'GET', SC)).body.metadata.resourceVersion;
  const path = await open(t, `${u}/apis/storage.orch.io/v1/watch/storageclasses?resourceVersion=${rv}`);
  const one = await open(t, `${u}/apis/storage.orch.io/v1/watch/storageclasses/n1?resourceVersion=${rv}`);
  const lower = "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')";
  const shard = await open(t, `${u}${SC}?watch=true&resourceVersion=${rv}&shardSelector=${encodeURIComponent(lower)}`);
  const made: Array<{ name: string; low: boolean }> = [];
  for (let i = 0; i < 8; i++) {
    const o = (await call(u, 'POST', SC, sc(`n${i}`))).body;
    made.push({ name: o.metadata.name, low: fnv1a64(o.metadata.uid) < 1n << 63n });
  }
  t.same(short(await path.next()), ['ADDED', 'n0'], 'the path form needs no watch=true');
  t.same(short(await one.next()), ['ADDED', 'n1'], 'the path form of one object');
  const lows = made.filter((m) => m.low).map((m) => m.name);
  const got: string[] = [];
  for (let i = 0; i < lows.length; i++) got.push((await shard.next())!.object.metadata.name);
  t.same(got, lows, 'the shard watch reports only objects in its range');
});

t.test('a compacted resourceVersion: 200, then one ERROR event with a 410 Expired Status', async (t) => {
  const srv = await start(t);
  const u = srv.url;
  await call(u, 'POST', SC, sc('a'));
  const old = (await call(u, 'GET', SC)).body.metadata.resourceVersion;
  await call(u, 'POST', SC, sc('b'));
  const now = await srv.storage.currentRevision();
  await srv.storage.compact(now);
  const w = await open(t, `${u}${SC}?watch=true&resourceVersion=${old}&labelSelector=x`);
  t.equal(w.status, 200);
  const evs = await w.rest();
  t.equal(evs.length, 1);
  t.equal(evs[0]!.type, 'ERROR');
  t.match(evs[0]!.object, { kind: 'Status', status: 'Failure', code: 410, reason: 'Expired', message: `too old resource version: ${old} (${now})` });
});
