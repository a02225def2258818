// The storage metrics (reference/storage/instrumented.ts) on the API server's /metrics: each
// storage call counted and timed by operation and collection, failed ones counted apart, and the
// stored objects per resource counted when scraped.
import t from 'tap';
import { storageType } from '../../reference/storage/instrumented.js';
import { call, sc, SC, startTestServer } from './helpers.js';

const sample = (text: string, name: string, labels: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
};

t.test('the collection of a key or prefix', async (t) => {
  t.equal(storageType('/registry/core/pods/default/p'), '/registry/core/pods');
  t.equal(storageType('/registry/storage.orch.io/storageclasses/'), '/registry/storage.orch.io/storageclasses');
  t.equal(storageType('/registry/storage.orch.io/storageclasses'), '/registry/storage.orch.io/storageclasses');
});

t.test('storage calls and stored objects on /metrics', async (t) => {
  const srv = await startTestServer(t);
  const type = 'type="/registry/storage.orch.io/storageclasses"';
  const before = await (await fetch(`${srv.url}/metrics`)).text();
  for (const name of ['m1', 'm2', 'm3']) t.equal((await call(srv.url, 'POST', SC, sc(name))).status, 201);
  t.equal((await call(srv.url, 'POST', SC, sc('m1'))).status, 409, 'a create of an existing name fails in storage');
  t.equal((await call(srv.url, 'DELETE', `${SC}/m3`)).status, 200);
  const after = await (await fetch(`${srv.url}/metrics`)).text();
  const creates = (text: string) => sample(text, 'etcd_requests_total', `operation="create",${type}`) ?? 0;
  t.equal(creates(after) - creates(before), 4, 'four creates reached storage');
  t.equal(sample(after, 'etcd_request_errors_total', `operation="create",${type}`), 1, 'one of them failed');
  t.ok((sample(after, 'etcd_request_duration_seconds_count', `operation="create",${type}`) ?? 0) >= 4, 'and each was timed');
  t.ok((sample(after, 'etcd_requests_total', `operation="delete",${type}`) ?? 0) >= 1, 'the delete too');
  t.equal(sample(after, 'apiserver_storage_objects', 'resource="storageclasses.storage.orch.io"'), 2, 'two StorageClasses are stored');
  t.match(after, /# TYPE etcd_request_duration_seconds histogram/);
});
