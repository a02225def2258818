// The work queue's client-go semantics: one entry per key, never two workers on one key, a key added
// while processed comes back once, failures retried with growing delays until forgotten.
import t from 'tap';
import { WorkQueue } from '../../reference/client/workqueue.js';

t.test('a key added many times while queued is processed once', async (t) => {
  const q = new WorkQueue({ name: 't' });
  for (let i = 0; i < 5; i++) q.add('a');
  q.add('b');
  t.equal(q.length, 2);
  const seen: string[] = [];
  const done = q.run(2, async (k) => { seen.push(k); if (seen.length === 2) q.shutDown(); }, () => undefined);
  await done;
  t.same(seen.sort(), ['a', 'b']);
});

t.test('a key re-added while processed runs again after, never concurrently', async (t) => {
  const q = new WorkQueue({ name: 't' });
  let running = 0;
  let maxRunning = 0;
  let runs = 0;
  q.add('k');
  const done = q.run(4, async () => {
    running++;
    maxRunning = Math.max(maxRunning, running);
    runs++;
    if (runs === 1) {
      q.add('k');
      q.add('k');
    }
    await new Promise((r) => setTimeout(r, 10));
    running--;
    if (runs === 2) q.shutDown();
  }, () => undefined);
  await done;
  t.equal(runs, 2, 'processed twice: once, then once more for the adds made meanwhile');
  t.equal(maxRunning, 1, 'never two workers on the same key');
});

t.test('a failing key is retried with growing delays; success forgets its failures', async (t) => {
  const q = new WorkQueue({ name: 't', baseDelayMs: 5, maxDelayMs: 1000 });
  const at: number[] = [];
  q.add('k');
  const done = q.run(1, async () => {
    at.push(performance.now());
    if (at.length < 4) throw new Error('not yet');
    q.shutDown();
  }, () => undefined);
  await done;
  t.equal(at.length, 4);
  const gaps = at.slice(1).map((v, i) => v - at[i]!);
  t.ok(gaps[0]! >= 4 && gaps[1]! >= 9 && gaps[2]! >= 19, `delays grow: ${gaps.map((g) => g.toFixed(0)).join(', ')} ms`);
  t.equal(q.retries('k'), 0, 'forgotten after the success');
});

t.test('a reconcile returning a number re-checks the key after that many ms', async (t) => {
  const q = new WorkQueue({ name: 't' });
  let n = 0;
  q.add('k');
  await q.run(1, async () => {
    n++;
    if (n === 3) { q.shutDown(); return; }
    return 5;
  }, () => undefined);
  t.equal(n, 3);
});

t.test('metrics see adds, depth, retries and processing', async (t) => {
  const log: string[] = [];
  const q = new WorkQueue({ name: 'm', baseDelayMs: 1, metrics: {
    added: (name) => log.push(`add ${name}`),
    depth: (name, d) => log.push(`depth ${name} ${d}`),
    retried: (name) => log.push(`retry ${name}`),
    processed: (name) => log.push(`done ${name}`),
  } });
  q.add('k');
  let first = true;
  await q.run(1, async () => {
    if (first) { first = false; throw new Error('once'); }
    q.shutDown();
  }, () => undefined);
  t.ok(log.includes('add m') && log.includes('retry m') && log.includes('done m') && log.includes('depth m 1'), log.join('; '));
});
