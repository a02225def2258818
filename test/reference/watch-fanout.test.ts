// Watch fan-out (issue 27): one storage event is decoded once and becomes one WatchEvent object per
// outcome for every watcher of it (what the handler encodes once for all of them), watchers with a
// selector still get their own outcome; and a watch written straight to its socket leaves a
// kept-alive connection fit for the next request.
import t from 'tap';
import { Agent, request, type IncomingMessage } from 'node:http';
import { watchCollection, type CollectionView } from '../../reference/apiserver/list-watch.js';
import type { WatchEvent } from '../../reference/apiserver/store.js';
import type { ApiObject, ResolvedStrategy } from '../../reference/apiserver/strategy.js';
import { MemoryStorage } from '../../reference/storage/memory.js';
import { SC, call, sc, startTestServer } from './helpers.js';

t.test('one storage event is decoded once and is one WatchEvent per outcome for all its watchers', async (t) => {
  const storage = new MemoryStorage();
  t.teardown(() => storage.close());
  let decodes = 0;
  const view: CollectionView = {
    storage,
    strategy: { kind: 'Thing', apiVersion: 'test.orch.io/v1' } as ResolvedStrategy,
    prefix: '/things/',
    decode: (kv) => {
      decodes++;
      const obj = JSON.parse(kv.value) as ApiObject;
      obj.metadata.resourceVersion = String(kv.modRevision);
      return obj;
    },
  };
  const sinks = [[], [], []] as WatchEvent[][];
  const from = await storage.currentRevision();
  const labelled = (o: ApiObject): boolean => o.metadata.labels?.['a'] === '1';
  await watchCollection(view, from, { sendInitialEvents: false }, { event: (e) => sinks[0]!.push(e), close: () => {} });
  await watchCollection(view, from, { sendInitialEvents: false }, { event: (e) => sinks[1]!.push(e), close: () => {} });
  await watchCollection(view, from, { sendInitialEvents: false, predicate: labelled }, { event: (e) => sinks[2]!.push(e), close: () => {} });
  const thing = (a: string): string => JSON.stringify({ kind: 'Thing', apiVersion: 'test.orch.io/v1', metadata: { name: 'x', labels: { a } } });

  await storage.create('/things/x', thing('1'));
  t.equal(decodes, 1, 'created: decoded once for three watchers');
  t.equal(sinks[0]![0]!.type, 'ADDED');
  t.equal(sinks[0]![0], sinks[1]![0], 'the same WatchEvent object for both plain watchers');
  t.equal(sinks[0]![0], sinks[2]![0], 'and for the selector watcher, whose outcome is the same (ADDED)');

  await storage.update('/things/x', thing('2'));
  t.equal(decodes, 3, 'updated: the new and the previous state decoded once each');
  t.equal(sinks[0]![1]!.type, 'MODIFIED');
  t.equal(sinks[0]![1], sinks[1]![1]);
  t.equal(sinks[2]![1]!.type, 'DELETED', 'the selector watcher sees the object leave its selection');
  t.equal((sinks[2]![1]!.object as ApiObject).metadata.labels?.['a'], '1', 'with its last state inside the selection');

  await storage.update('/things/x', thing('3'));
  t.equal(sinks[2]!.length, 2, 'outside the selection before and after: nothing for the selector watcher');
  await storage.delete('/things/x');
  t.same(sinks[0]!.map((e) => e.type), ['ADDED', 'MODIFIED', 'MODIFIED', 'DELETED']);
  t.equal(sinks[0]![3], sinks[1]![3]);
  t.equal((sinks[0]![3]!.object as ApiObject).metadata.labels?.['a'], '3', 'DELETED carries the last stored state');
});

t.test('a connection that carried a watch to its end serves the next request (keep-alive)', async (t) => {
  const srv = await startTestServer(t);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());
  const get = (path: string): Promise<{ res: IncomingMessage; text: string; reused: boolean }> =>
    new Promise((resolve, reject) => {
      const req = request(`${srv.url}${path}`, { agent }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ res, text, reused: req.reusedSocket }));
      });
      req.on('error', reject);
      req.end();
    });
  const listed = await get(SC);
  const rv = JSON.parse(listed.text).metadata.resourceVersion as string;
  const watched = get(`${SC}?watch=true&resourceVersion=${rv}&timeoutSeconds=1`);
  t.equal((await call(srv.url, 'POST', SC, sc('fanout-a'))).status, 201);
  t.equal((await call(srv.url, 'POST', SC, sc('fanout-b'))).status, 201);
  const w = await watched;
  t.equal(w.res.statusCode, 200);
  t.ok(w.reused, 'the watch went over the kept-alive connection');
  t.same(
    w.text.trim().split('\n').map((l) => [JSON.parse(l).type, JSON.parse(l).object.metadata.name]),
    [['ADDED', 'fanout-a'], ['ADDED', 'fanout-b']],
    'both events, whole, then the end of the stream',
  );
  const after = await get(`${SC}/fanout-a`);
  t.ok(after.reused, 'the next request went over the same connection');
  t.equal(after.res.statusCode, 200);
  t.equal(JSON.parse(after.text).metadata.name, 'fanout-a');
});
