// The memory storage: the shared Storage contract (storage-contract.ts), and what only the memory
// storage does: its history window (by revisions and by time) and delivery inside the write.
import t from 'tap';
import { MemoryStorage } from '../../reference/storage/memory.js';
import { sleep } from './helpers.js';
import { collector, rejection, storageContract } from './storage-contract.js';

storageContract(t, async () => new MemoryStorage());

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

t.test('watchers are told inside the write, before it returns', async (t) => {
  const s = new MemoryStorage();
  t.teardown(() => s.close());
  const c = collector();
  await s.watch('/', 0, c.listener);
  await s.create('/a', '1');
  t.same(c.events.map((e) => e.key), ['/a'], 'the event is there as soon as create resolves');
  await s.update('/a', '2');
  await s.delete('/a');
  t.same(c.events.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
});
