// Informers against the reference: the cache follows the server through list, watch and a relist
// after the watch's history was compacted, and handlers see adds, updates and deletes.
import t from 'tap';
import { startReference } from '../../reference/server.js';
import { ApiClient } from '../../reference/client/api-client.js';
import { Informer, InformerFactory } from '../../reference/client/informer.js';

const SC = '/apis/storage.orch.io/v1/storageclasses';
const sc = (name: string) => ({ apiVersion: 'storage.orch.io/v1', kind: 'StorageClass', metadata: { name, labels: { app: 'x' } }, provisioner: 'p' });

async function until(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

t.test('cache and handlers follow creates, updates and deletes', async (t) => {
  const ref = await startReference({ controllerManager: false, scheduler: false });
  const client = new ApiClient({ url: ref.url });
  t.teardown(async () => { client.close(); await ref.close(); });
  await client.create(SC, sc('before'));
  const inf = new Informer(client, SC);
  const events: string[] = [];
  inf.addEventHandler({
    onAdd: (o) => events.push(`add ${o.metadata.name}`),
    onUpdate: (_o, n) => events.push(`update ${n.metadata.name}`),
    onDelete: (o) => events.push(`delete ${o.metadata.name}`),
  });
  inf.addIndex('provisioner', (o) => [o['provisioner']]);
  await inf.start();
  t.ok(inf.get('', 'before'), 'the first list is in the cache once synced');
  await client.create(SC, sc('after'));
  await client.patch(`${SC}/after`, { metadata: { labels: { app: 'y' } } });
  await client.delete(`${SC}/before`);
  await until(() => events.includes('delete before') && events.includes('update after'), 'the events');
  t.same(events, ['add before', 'add after', 'update after', 'delete before']);
  t.same(inf.list().map((o) => o.metadata.name), ['after']);
  t.same(inf.byIndex('provisioner', 'p').map((o) => o.metadata.name), ['after']);
  inf.stop();
});

t.test('after history is compacted past the watch, a relist reports what was missed', async (t) => {
  const ref = await startReference({ controllerManager: false, scheduler: false, compactionIntervalSeconds: 0.2 });
  const client = new ApiClient({ url: ref.url });
  t.teardown(async () => { client.close(); await ref.close(); });
  const factory = new InformerFactory(client);
  const inf = factory.for(SC);
  t.equal(factory.for(SC), inf, 'one informer per path');
  const deleted: string[] = [];
  inf.addEventHandler({ onDelete: (o) => deleted.push(o.metadata.name) });
  await client.create(SC, sc('a'));
  await factory.start();
  await client.delete(`${SC}/a`);
  await client.create(SC, sc('b'));
  await until(() => deleted.includes('a') && !!inf.get('', 'b'), 'the delete and the create');
  t.pass('the informer kept up');
  factory.stop();
});
