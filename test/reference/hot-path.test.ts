// The request hot path's shortcuts must never show a stale or misordered object: the remembered
// GET text (served-json.ts) follows every write; watchers, who share the object a write just
// encoded, see exactly what the write answered, and a burst of writes (flushed once per turn of the
// event loop) reaches them whole and in order; the memory storage's lazily merged key index lists in
// key order whatever the mix of creates, deletes and compaction.
import t from 'tap';
import fc from 'fast-check';
import { ServedJsonCache } from '../../reference/apiserver/served-json.js';
import { MemoryStorage } from '../../reference/storage/memory.js';
import { call, sc, startTestServer, WatchReader } from './helpers.js';

const SC = '/apis/storage.orch.io/v1/storageclasses';

t.test('the remembered text is per key and revision, and bounded', async (t) => {
  const cache = new ServedJsonCache(2);
  let renders = 0;
  const render = (kv: { value: string }): string => {
    renders++;
    return kv.value;
  };
  const kv = (key: string, rev: number) => ({ key, value: `${key}@${rev}`, createRevision: 1, modRevision: rev });
  t.equal(cache.textOf(kv('/a', 1), render), '/a@1');
  t.equal(cache.textOf(kv('/a', 1), render), '/a@1');
  t.equal(renders, 1, 'the same revision is rendered once');
  t.equal(cache.textOf(kv('/a', 2), render), '/a@2', 'a new revision is rendered anew');
  cache.textOf(kv('/b', 3), render);
  cache.textOf(kv('/c', 4), render);
  renders = 0;
  cache.textOf(kv('/a', 2), render);
  t.equal(renders, 1, 'the least recently written entry was evicted at capacity');
});

t.test('a plain JSON GET follows every write of the object', async (t) => {
  const srv = await startTestServer(t);
  const created = await call(srv.url, 'POST', SC, { apiVersion: 'storage.orch.io/v1', kind: 'StorageClass', metadata: { name: 'hot' }, provisioner: 'p.orch.io/a' });
  t.equal(created.status, 201);
  for (let i = 0; i < 3; i++) {
    const got = await call(srv.url, 'GET', `${SC}/hot`);
    t.equal(got.body.metadata.resourceVersion, created.body.metadata.resourceVersion, 'unchanged: the same resourceVersion');
  }
  const patched = await call(srv.url, 'PATCH', `${SC}/hot`, { metadata: { labels: { x: 'y' } } }, { 'content-type': 'application/merge-patch+json' });
  t.equal(patched.status, 200);
  const got = await call(srv.url, 'GET', `${SC}/hot`);
  t.equal(got.body.metadata.resourceVersion, patched.body.metadata.resourceVersion, 'the GET after a patch shows the patch');
  t.same(got.body.metadata.labels, { x: 'y' });
  t.same(got.body, patched.body, 'the same object as the write answered');
  t.equal((await call(srv.url, 'DELETE', `${SC}/hot`)).status, 200);
  t.equal((await call(srv.url, 'GET', `${SC}/hot`)).status, 404, 'gone after delete');
});

t.test('watchers see what each write answered, a burst whole and in order', async (t) => {
  const srv = await startTestServer(t);
  const watchers = await Promise.all([0, 1, 2].map(() => WatchReader.open(`${srv.url}${SC}?watch=true`)));
  t.teardown(() => watchers.forEach((w) => w.close()));
  // Selectors see the shared object too: one that matches, one that never does.
  const selected = await WatchReader.open(`${srv.url}${SC}?watch=true&labelSelector=burst%3Dyes`);
  const unselected = await WatchReader.open(`${srv.url}${SC}?watch=true&labelSelector=burst%3Dno`);
  t.teardown(() => [selected, unselected].forEach((w) => w.close()));
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(srv.url, 'POST', SC, sc(`burst-${i}`, { metadata: { name: `burst-${i}`, labels: { burst: 'yes' } } }))));
  t.ok(answers.every((a) => a.status === 201), 'all created');
  const updated = await call(srv.url, 'PUT', `${SC}/burst-0`, { ...answers[0]!.body, metadata: { ...answers[0]!.body.metadata, annotations: { changed: 'yes' } } });
  t.equal(updated.status, 200);
  const written = [...answers.map((a) => a.body), updated.body].sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion));
  for (const w of [...watchers, selected]) {
    const seen = [];
    for (let i = 0; i < written.length; i++) seen.push((await w.next(5000))!);
    t.same(seen.map((e) => e.type), [...written.slice(0, -1).map(() => 'ADDED'), 'MODIFIED'], 'ADDED for each create, MODIFIED for the update');
    t.same(seen.map((e) => e.object), written, 'each event carries exactly what its write answered, in revision order');
  }
  await t.rejects(unselected.next(300), /timed out/, 'a selector that matches none gets nothing');
});

t.test('memory storage lists in key order across creates, deletes and compaction', async () => {
  const op = fc.oneof(
    fc.record({ kind: fc.constant('create' as const), key: fc.stringMatching(/^[a-e]{1,3}$/) }),
    fc.record({ kind: fc.constant('delete' as const), key: fc.stringMatching(/^[a-e]{1,3}$/) }),
    fc.record({ kind: fc.constant('list' as const), prefix: fc.stringMatching(/^[a-e]{0,2}$/) }),
    fc.record({ kind: fc.constant('compact' as const) }),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
      const s = new MemoryStorage({ historyRevisions: 3, historyMs: 0 });
      const live = new Set<string>();
      try {
        for (const o of ops) {
          if (o.kind === 'create' && !live.has(`/${o.key}`)) {
            await s.create(`/${o.key}`, '{}');
            live.add(`/${o.key}`);
          } else if (o.kind === 'delete' && live.has(`/${o.key}`)) {
            await s.delete(`/${o.key}`);
            live.delete(`/${o.key}`);
          } else if (o.kind === 'compact') {
            // Writes past the history window make the storage compact on its own.
            await s.create('/zz-filler', '{}');
            await s.delete('/zz-filler');
          } else if (o.kind === 'list') {
            const got = (await s.list(`/${o.prefix}`)).items.map((i) => i.key);
            const want = [...live].filter((k) => k.startsWith(`/${o.prefix}`)).sort();
            if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`listed ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
          }
        }
      } finally {
        await s.close();
      }
    }),
    { numRuns: 200, seed: 14 },
  );
});
