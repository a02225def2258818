// The etcd storage against a real etcd (Debian's etcd-server): the shared Storage contract
// (storage-contract.ts), each check on a fresh key prefix of one etcd started for this file, and
// what only a networked backend has: key mapping under the prefix, and errors of an unreachable etcd.
import t from 'tap';
import { EtcdStorage } from '../../reference/storage/etcd.js';
import { startCompactor } from '../../reference/storage/compactor.js';
import { isStorageError } from '../../reference/storage/types.js';
import { etcdUnavailable, startEtcd } from '../helpers/etcd.js';
import { freePort } from '../../runner/agent-exec.js';
import { sleep } from './helpers.js';
import { collector, rejection, storageContract, until } from './storage-contract.js';

const unavailable = etcdUnavailable();
// No root plan or timeout: this file runs inside a bundle's process (helpers/bundle.ts).
if (unavailable) {
  t.test('the etcd storage', { skip: unavailable }, () => {});
} else {
  const etcd = await startEtcd(t);
  let n = 0;
  storageContract(t, async () => new EtcdStorage({ servers: etcd.clientUrls, prefix: `/contract-${++n}` }));

  t.test('keys live under the prefix: with root /registry and prefix /registry they are upstream\'s', async (t) => {
    const api = new EtcdStorage({ servers: etcd.clientUrls, prefix: '/registry', root: '/registry' });
    const moved = new EtcdStorage({ servers: etcd.clientUrls, prefix: '/elsewhere', root: '/registry' });
    const raw = new EtcdStorage({ servers: etcd.clientUrls });
    t.teardown(async () => { await api.close(); await moved.close(); await raw.close(); });
    await api.create('/registry/core/pods/default/p1', '{"kind":"Pod"}');
    await moved.create('/registry/core/pods/default/p1', '{"kind":"Pod","moved":true}');
    t.same((await raw.list('/registry/')).items.map((i) => i.key), ['/registry/core/pods/default/p1']);
    t.same((await raw.list('/elsewhere/')).items.map((i) => [i.key, i.value]), [['/elsewhere/core/pods/default/p1', '{"kind":"Pod","moved":true}']]);
    t.same((await moved.list('/registry/core/')).items.map((i) => i.key), ['/registry/core/pods/default/p1'], 'keys come back in the caller\'s terms');
    await t.rejects(api.get('/other/x'), /outside \/registry/, 'keys outside the root are refused');
  });

  t.test('two clients on one etcd: writes of one are read and watched by the other', async (t) => {
    const a = new EtcdStorage({ servers: etcd.clientUrls, prefix: '/shared' });
    const b = new EtcdStorage({ servers: etcd.clientUrls, prefix: '/shared' });
    t.teardown(async () => { await a.close(); await b.close(); });
    const from = await a.currentRevision();
    const c = collector();
    await b.watch('/', from, c.listener);
    const kv = await a.create('/x', '1');
    t.equal((await b.get('/x'))!.modRevision, kv.modRevision);
    t.equal((await rejection(b.create('/x', '2'))).code, 'KeyExists');
    await until(() => c.events.length >= 1);
    t.same(c.events.map((e) => [e.type, e.key, e.revision]), [['ADDED', '/x', kv.modRevision]]);
  });

  t.test('the compactor compacts to the revision of its previous tick', async (t) => {
    const s = new EtcdStorage({ servers: etcd.clientUrls, prefix: '/compactor' });
    t.teardown(() => s.close());
    const before = await s.compactedRevision();
    await s.create('/a', '1');
    const written = await s.currentRevision();
    const compactor = startCompactor(s, 200);
    t.teardown(() => compactor.stop());
    await sleep(1_500);
    const after = await s.compactedRevision();
    t.ok(after >= written && after > before, `compacted to ${after}, at or past the write at ${written}`);
    t.equal((await s.get('/a'))!.value, '1', 'the live value stays');
    t.equal((await rejection(s.get('/a', { revision: after - 1 }))).code, 'Compacted');
  });

  t.test('three members: with one killed, reads, writes and watches go on', async (t) => {
    const cluster = await startEtcd(t, 3);
    // The first request after the kill may wait out the client's failover to a live member: on a loaded
    // machine that took more than 5 s.
    const s = new EtcdStorage({ servers: cluster.clientUrls, prefix: '/three', requestTimeoutMs: 15_000 });
    t.teardown(() => s.close());
    const c = collector();
    await s.watch('/', await s.currentRevision(), c.listener);
    await s.create('/before', '1');
    await cluster.members[0]!.kill();
    // The client may first try the dead member; its retries move on to the live ones.
    const after = [];
    for (let i = 0; i < 20; i++) after.push(await s.create(`/after-${i}`, String(i)));
    t.equal(after.length, 20, 'every write went through');
    t.same((await s.list('/')).items.map((i) => i.key).length, 21, 'and is listed');
    await until(() => c.events.length >= 21 || c.closed.length > 0);
    // A watch served by the killed member ends (the API server's client re-watches); one served by a
    // live member sees everything.
    if (c.closed.length > 0) t.equal(c.closed[0]?.code, 'Closed', 'a watch on the killed member ends with an error');
    else t.equal(c.events.length, 21, 'the watch saw every write');
  });

  t.test('watches of one prefix share one etcd stream and each event object, joining it inside its window', async (t) => {
    const s = new EtcdStorage({ servers: etcd.clientUrls, prefix: '/fanout' });
    t.teardown(() => s.close());
    const from = await s.currentRevision();
    const a = collector();
    const ha = await s.watch('/f/', from, a.listener);
    const first = await s.create('/f/1', 'one');
    await until(() => a.events.length >= 1);
    // From a revision the stream has already passed: the event after it is replayed from the window.
    const b = collector();
    const hb = await s.watch('/f/', from, b.listener);
    const other = collector();
    const ho = await s.watch('/g/', from, other.listener);
    t.equal(s.watches.size, 2, 'one stream for /f/ (two watches), one for /g/');
    await s.create('/f/2', 'two');
    await until(() => a.events.length >= 2 && b.events.length >= 2);
    t.same(b.events.map((e) => [e.key, e.revision]), [['/f/1', first.modRevision], ['/f/2', first.modRevision + 1]], 'the joiner missed nothing');
    t.equal(a.events[1], b.events[1], 'the same event object for both watches');
    // From after the first event: it is not repeated.
    const c = collector();
    const hc = await s.watch('/f/', first.modRevision, c.listener);
    await until(() => c.events.length >= 1);
    t.same(c.events.map((e) => e.key), ['/f/2']);
    ha.stop();
    hb.stop();
    t.equal(s.watches.size, 2, 'the stream stays while a watch of it remains');
    hc.stop();
    t.equal(s.watches.size, 1, 'and is cancelled when the last one stops');
    ho.stop();
    t.equal(s.watches.size, 0);
    t.same([a.closed, b.closed, c.closed, other.closed], [[], [], [], []], 'stopped watches are not told of a close');
  });

  t.test('an unreachable etcd fails calls with Unavailable within the deadline', async (t) => {
    const s = new EtcdStorage({ servers: [`http://127.0.0.1:${await freePort()}`], requestTimeoutMs: 1_000 });
    t.teardown(() => s.close());
    const started = Date.now();
    const err = await s.get('/a').then(() => undefined, (e: unknown) => e);
    t.ok(isStorageError(err, 'Unavailable'), `Unavailable: ${(err as Error)?.message}`);
    t.ok(Date.now() - started < 5_000, `within the deadline and a margin (${Date.now() - started} ms)`);
  });
}

