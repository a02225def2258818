import t from 'tap';
import { MemoryStorage } from '../../reference/storage/memory.js';
import { isStorageError, type StorageError, type StorageEvent } from '../../reference/storage/types.js';
import { sleep } from './helpers.js';

/** The StorageError `p` rejects with (fails the test if it resolves). */
async function rejection(p: Promise<unknown>): Promise<StorageError> {
  try {
    await p;
  } catch (err) {
    if (isStorageError(err)) return err;
    throw err;
  }
  throw new Error('expected a StorageError rejection');
}

function collector(): { events: StorageEvent[]; closed: Array<StorageError | undefined>; listener: Parameters<MemoryStorage['watch']>[2] } {
  const events: StorageEvent[] = [];
  const closed: Array<StorageError | undefined> = [];
  return { events, closed, listener: { onEvent: (e) => events.push(e), onClose: (e) => closed.push(e) } };
}

t.test('one global revision across keys; create/get/update/delete', async (t) => {
  const s = new MemoryStorage();
  t.teardown(() => s.close());
  t.equal(await s.currentRevision(), 0);
  const a = await s.create('/a', '{"v":1}');
  const b = await s.create('/b', '{"v":1}');
  t.same([a.createRevision, a.modRevision, b.modRevision], [1, 1, 2]);
  t.equal((await rejection(s.create('/a', '{}'))).code, 'KeyExists');
  t.equal(await s.currentRevision(), 2, 'a failed create does not consume a revision');
  const a2 = await s.update('/a', '{"v":2}');
  t.same([a2.createRevision, a2.modRevision], [1, 3]);
  t.equal((await s.get('/a'))!.value, '{"v":2}');
  t.equal((await rejection(s.update('/a', '{}', 1))).code, 'Conflict');
  const a3 = await s.update('/a', '{"v":3}', 3);
  t.equal(a3.modRevision, 4);
  t.equal((await rejection(s.delete('/a', 3))).code, 'Conflict');
  const del = await s.delete('/a', 4);
  t.same([del.value, del.modRevision], ['{"v":3}', 5], 'delete returns the last value at the delete revision');
  t.equal(await s.get('/a'), undefined);
  t.equal((await rejection(s.update('/a', '{}'))).code, 'KeyNotFound');
  t.equal((await rejection(s.delete('/a'))).code, 'KeyNotFound');
  const again = await s.create('/a', '{"v":9}');
  t.same([again.createRevision, again.modRevision], [6, 6], 're-created key gets a new createRevision');
});

t.test('list: prefix, key order, snapshot at older revisions, limit and start key', async (t) => {
  const s = new MemoryStorage();
  t.teardown(() => s.close());
  await s.create('/r/c', 'c1');
  await s.create('/r/a', 'a1');
  await s.create('/other/x', 'x');
  await s.create('/r/b', 'b1');
  const rev = await s.currentRevision();
  await s.update('/r/a', 'a2');
  await s.delete('/r/b');
  await s.create('/r/d', 'd1');

  const now = await s.list('/r/');
  t.same(now.items.map((i) => [i.key, i.value]), [['/r/a', 'a2'], ['/r/c', 'c1'], ['/r/d', 'd1']]);
  t.equal(now.revision, await s.currentRevision());
  t.equal(now.more, false);

  const then = await s.list('/r/', { revision: rev });
  t.same(then.items.map((i) => [i.key, i.value, i.modRevision]), [['/r/a', 'a1', 2], ['/r/b', 'b1', 4], ['/r/c', 'c1', 1]]);
  t.equal(then.revision, rev);
  t.equal((await s.get('/r/b', { revision: rev }))!.value, 'b1', 'get at an older revision sees deleted keys');

  const page1 = await s.list('/r/', { limit: 2 });
  t.same(page1.items.map((i) => i.key), ['/r/a', '/r/c']);
  t.equal(page1.more, true);
  const page2 = await s.list('/r/', { limit: 2, startKey: '/r/c\0', revision: page1.revision });
  t.same(page2.items.map((i) => i.key), ['/r/d']);
  t.equal(page2.more, false);

  t.equal((await rejection(s.list('/r/', { revision: 1000 }))).code, 'FutureRevision');
});

t.test('history window by revisions: compaction and too-old reads/watches', async (t) => {
  const s = new MemoryStorage({ historyRevisions: 8, historyMs: 0 });
  t.teardown(() => s.close());
  await s.create('/k', '0');
  for (let i = 1; i <= 40; i++) await s.update('/k', String(i));
  const current = await s.currentRevision();
  const compacted = await s.compactedRevision();
  t.equal(current, 41);
  t.ok(compacted >= current - 8 - 1 - 1 && compacted <= current - 8, `compacted (${compacted}) keeps about the last 8 revisions`);
  const err = await rejection(s.list('/', { revision: compacted - 1 }));
  t.equal(err.code, 'Compacted');
  t.equal(err.details.compacted, compacted);
  t.equal((await s.get('/k', { revision: compacted }))!.value, String(compacted - 1), 'the value visible at the compacted revision is kept');
  const c = collector();
  const werr = await rejection(s.watch('/', compacted - 1, c.listener));
  t.equal(werr.code, 'Compacted');
  t.equal(werr.details.compacted, compacted);
  const h = await s.watch('/', compacted, c.listener);
  t.same(c.events.map((e) => e.revision), Array.from({ length: current - compacted }, (_, i) => compacted + 1 + i), 'every event after the compacted revision');
  h.stop();
});

t.test('explicit compaction drops deleted keys and old versions', async (t) => {
  const s = new MemoryStorage({ historyMs: 0 });
  t.teardown(() => s.close());
  await s.create('/a', 'a1');
  await s.create('/b', 'b1');
  await s.update('/a', 'a2');
  await s.delete('/b');
  const rev = await s.currentRevision();
  await s.compact(rev);
  t.equal(await s.compactedRevision(), rev);
  t.same((await s.list('/', { revision: rev })).items.map((i) => i.value), ['a2']);
  t.equal((await rejection(s.get('/a', { revision: rev - 1 }))).code, 'Compacted');
  const b = await s.create('/b', 'b2');
  t.equal(b.createRevision, rev + 1);
  await s.compact(rev - 3);
  t.equal(await s.compactedRevision(), rev, 'compaction never goes backwards');
});

t.test('history window by time', async (t) => {
  const s = new MemoryStorage({ historyMs: 50 });
  t.teardown(() => s.close());
  await s.create('/a', '1');
  await s.update('/a', '2');
  await s.update('/a', '3');
  t.equal(await s.compactedRevision(), 0);
  await sleep(200);
  t.equal(await s.compactedRevision(), 3, 'everything older than the window is compacted');
  const c = collector();
  t.equal((await rejection(s.watch('/', 1, c.listener))).code, 'Compacted');
  (await s.watch('/', 3, c.listener)).stop();
});

t.test('watch: history then live, revision order, prefix filter, prev/new values, no duplicates', async (t) => {
  const s = new MemoryStorage();
  t.teardown(() => s.close());
  await s.create('/w/a', 'a1');
  const from = await s.currentRevision();
  await s.create('/x/ignored', 'x');
  await s.update('/w/a', 'a2');
  const c = collector();
  const h = await s.watch('/w/', from, c.listener);
  t.same(c.events.map((e) => [e.type, e.key, e.value, e.prevValue]), [['MODIFIED', '/w/a', 'a2', 'a1']]);
  await s.create('/w/b', 'b1');
  await s.delete('/w/a');
  await s.create('/x/y', 'x');
  t.same(
    c.events.map((e) => [e.type, e.key, e.value, e.prevValue]),
    [
      ['MODIFIED', '/w/a', 'a2', 'a1'],
      ['ADDED', '/w/b', 'b1', undefined],
      ['DELETED', '/w/a', undefined, 'a2'],
    ],
  );
  const revs = c.events.map((e) => e.revision);
  t.same(revs, [...revs].sort((x, y) => x - y), 'increasing revisions');

  // A watch opened from inside another watcher's callback sees each event exactly once.
  const nested = collector();
  const outer = await s.watch('/n/', await s.currentRevision(), {
    onEvent: (e) => {
      if (e.value === 'first') void s.watch('/n/', e.revision - 1, nested.listener);
    },
    onClose: () => {},
  });
  await s.create('/n/1', 'first');
  await s.create('/n/2', 'second');
  t.same(nested.events.map((e) => e.value), ['first', 'second']);
  outer.stop();

  h.stop();
  await s.create('/w/c', 'c1');
  t.equal(c.events.length, 3, 'no events after stop');
  t.equal((await rejection(s.watch('/w/', 10_000, c.listener))).code, 'FutureRevision');
});

t.test('a throwing listener is dropped without disturbing writes or other watchers', async (t) => {
  const s = new MemoryStorage();
  t.teardown(() => s.close());
  const good = collector();
  const closed: unknown[] = [];
  await s.watch('/', 0, { onEvent: () => { throw new Error('boom'); }, onClose: (e) => closed.push(e) });
  await s.watch('/', 0, good.listener);
  await s.create('/a', '1');
  await s.create('/b', '2');
  t.equal(good.events.length, 2);
  t.equal(closed.length, 1);
});

t.test('close ends watches and refuses further use', async (t) => {
  const s = new MemoryStorage();
  const c = collector();
  await s.watch('/', 0, c.listener);
  await s.close();
  t.same(c.closed, [undefined]);
  t.equal((await rejection(s.get('/a'))).code, 'Closed');
  t.equal((await rejection(s.create('/a', '1'))).code, 'Closed');
});
