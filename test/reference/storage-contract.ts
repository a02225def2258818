// The Storage contract (reference/storage/types.ts) as checks any backend must pass: the memory
// storage (storage-memory.test.ts) and etcd (storage-etcd.test.ts) run the same ones. Revisions are
// checked relative to the store's revision when the check begins, since etcd starts at 1 and one etcd
// serves several checks; events are waited for, since only the memory storage delivers them inside
// the write.
import { isStorageError, type Storage, type StorageError, type StorageEvent, type WatchListener } from '../../reference/storage/types.js';
import { sleep } from './helpers.js';

/** How long a check waits for watch events to arrive. */
const EVENT_WAIT_MS = 5_000;

/** The StorageError `p` rejects with (fails the test if it resolves). */
export async function rejection(p: Promise<unknown>): Promise<StorageError> {
  try {
    await p;
  } catch (err) {
    if (isStorageError(err)) return err;
    throw err;
  }
  throw new Error('expected a StorageError rejection');
}

export interface Collector {
  events: StorageEvent[];
  closed: Array<StorageError | undefined>;
  listener: WatchListener;
}

export function collector(): Collector {
  const events: StorageEvent[] = [];
  const closed: Array<StorageError | undefined> = [];
  return { events, closed, listener: { onEvent: (e) => events.push(e), onClose: (e) => closed.push(e) } };
}

/** Waits until `ok()` holds (at most `ms`), then returns; the caller's asserts say what was missing. */
export async function until(ok: () => boolean, ms = EVENT_WAIT_MS): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok() && Date.now() < deadline) await sleep(10);
}

type Test = {
  test(name: string, fn: (t: any) => Promise<void>): unknown;
};

/** Registers the contract's checks on `t`; each gets a fresh storage from `makeStorage`, closed at its end. */
export function storageContract(t: Test, makeStorage: () => Promise<Storage>): void {
  const fresh = async (t: any): Promise<Storage> => {
    const s = await makeStorage();
    t.teardown(() => s.close());
    return s;
  };

  t.test('one global revision across keys; create/get/update/delete', async (t) => {
    const s = await fresh(t);
    const base = await s.currentRevision();
    const a = await s.create('/a', '{"v":1}');
    const b = await s.create('/b', '{"v":1}');
    t.same([a.createRevision, a.modRevision, b.modRevision], [base + 1, base + 1, base + 2]);
    const exists = await rejection(s.create('/a', '{}'));
    t.equal(exists.code, 'KeyExists');
    t.equal(exists.details.actual, base + 1, 'KeyExists names the live modRevision');
    t.equal(await s.currentRevision(), base + 2, 'a failed create does not consume a revision');
    const a2 = await s.update('/a', '{"v":2}');
    t.same([a2.createRevision, a2.modRevision], [base + 1, base + 3]);
    t.equal((await s.get('/a'))!.value, '{"v":2}');
    const conflict = await rejection(s.update('/a', '{}', base + 1));
    t.equal(conflict.code, 'Conflict');
    t.equal(conflict.details.actual, base + 3, 'Conflict names the actual modRevision');
    const a3 = await s.update('/a', '{"v":3}', base + 3);
    t.equal(a3.modRevision, base + 4);
    t.equal((await rejection(s.delete('/a', base + 3))).code, 'Conflict');
    const del = await s.delete('/a', base + 4);
    t.same([del.value, del.createRevision, del.modRevision], ['{"v":3}', base + 1, base + 5], 'delete returns the last value at the delete revision');
    t.equal(await s.get('/a'), undefined);
    t.equal((await rejection(s.update('/a', '{}'))).code, 'KeyNotFound');
    t.equal((await rejection(s.update('/a', '{}', base + 4))).code, 'KeyNotFound', 'a guarded write of an absent key is KeyNotFound');
    t.equal((await rejection(s.delete('/a'))).code, 'KeyNotFound');
    const again = await s.create('/a', '{"v":9}');
    t.same([again.createRevision, again.modRevision], [base + 6, base + 6], 're-created key gets a new createRevision');
  });

  t.test('list: prefix, key order, snapshot at older revisions, limit and start key', async (t) => {
    const s = await fresh(t);
    const base = await s.currentRevision();
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
    t.same(then.items.map((i) => [i.key, i.value, i.modRevision]), [['/r/a', 'a1', base + 2], ['/r/b', 'b1', base + 4], ['/r/c', 'c1', base + 1]]);
    t.equal(then.revision, rev);
    t.equal((await s.get('/r/b', { revision: rev }))!.value, 'b1', 'get at an older revision sees deleted keys');

    const page1 = await s.list('/r/', { limit: 2 });
    t.same(page1.items.map((i) => i.key), ['/r/a', '/r/c']);
    t.equal(page1.more, true);
    // A write between pages does not show in the next page read at the first page's revision.
    await s.create('/r/e', 'e1');
    const page2 = await s.list('/r/', { limit: 2, startKey: '/r/c\0', revision: page1.revision });
    t.same(page2.items.map((i) => i.key), ['/r/d']);
    t.equal(page2.more, false);

    t.equal((await rejection(s.list('/r/', { revision: base + 1000 }))).code, 'FutureRevision');
    t.equal((await rejection(s.get('/r/a', { revision: base + 1000 }))).code, 'FutureRevision');
  });

  t.test('explicit compaction: old revisions go, the visible ones stay, it never goes backwards', async (t) => {
    const s = await fresh(t);
    await s.create('/a', 'a1');
    await s.create('/b', 'b1');
    await s.update('/a', 'a2');
    await s.delete('/b');
    const rev = await s.currentRevision();
    await s.compact(rev);
    t.equal(await s.compactedRevision(), rev);
    t.same((await s.list('/', { revision: rev })).items.map((i) => i.value), ['a2']);
    const err = await rejection(s.get('/a', { revision: rev - 1 }));
    t.equal(err.code, 'Compacted');
    t.equal(err.details.compacted, rev, 'Compacted names the oldest readable revision');
    t.equal((await rejection(s.list('/', { revision: rev - 1 }))).code, 'Compacted');
    const c = collector();
    const werr = await rejection(s.watch('/', rev - 1, c.listener));
    t.equal(werr.code, 'Compacted');
    t.equal(werr.details.compacted, rev);
    const b = await s.create('/b', 'b2');
    t.equal(b.createRevision, rev + 1);
    const h = await s.watch('/', rev, c.listener);
    await until(() => c.events.length >= 1);
    t.same(c.events.map((e) => [e.type, e.key, e.revision]), [['ADDED', '/b', rev + 1]], 'a watch from the compacted revision gets what came after');
    h.stop();
    await s.compact(rev - 3);
    t.equal(await s.compactedRevision(), rev, 'compaction never goes backwards');
  });

  t.test('watch: history then live, revision order, prefix filter, prev/new values, no duplicates', async (t) => {
    const s = await fresh(t);
    await s.create('/w/a', 'a1');
    const from = await s.currentRevision();
    await s.create('/x/ignored', 'x');
    await s.update('/w/a', 'a2');
    const c = collector();
    const h = await s.watch('/w/', from, c.listener);
    await until(() => c.events.length >= 1);
    t.same(c.events.map((e) => [e.type, e.key, e.value, e.prevValue]), [['MODIFIED', '/w/a', 'a2', 'a1']]);
    await s.create('/w/b', 'b1');
    await s.delete('/w/a');
    await s.create('/x/y', 'x');
    await until(() => c.events.length >= 3);
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
    await until(() => nested.events.length >= 2);
    await sleep(50);
    t.same(nested.events.map((e) => e.value), ['first', 'second']);
    outer.stop();

    h.stop();
    await s.create('/w/c', 'c1');
    await sleep(200);
    t.equal(c.events.length, 3, 'no events after stop');
    t.equal((await rejection(s.watch('/w/', (await s.currentRevision()) + 10_000, c.listener))).code, 'FutureRevision');
  });

  t.test('a throwing listener is dropped without disturbing writes or other watchers', async (t) => {
    const s = await fresh(t);
    const good = collector();
    const closed: unknown[] = [];
    const from = await s.currentRevision();
    await s.watch('/', from, { onEvent: () => { throw new Error('boom'); }, onClose: (e) => closed.push(e) });
    await s.watch('/', from, good.listener);
    await s.create('/a', '1');
    await s.create('/b', '2');
    await until(() => good.events.length >= 2 && closed.length >= 1);
    t.equal(good.events.length, 2);
    t.equal(closed.length, 1);
  });

  t.test('close ends watches and refuses further use', async (t) => {
    const s = await makeStorage();
    const c = collector();
    await s.watch('/', await s.currentRevision(), c.listener);
    await s.close();
    t.same(c.closed, [undefined]);
    t.equal((await rejection(s.get('/a'))).code, 'Closed');
    t.equal((await rejection(s.create('/a', '1'))).code, 'Closed');
    t.equal((await rejection(s.watch('/', 0, c.listener))).code, 'Closed');
  });
}
