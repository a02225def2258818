import t from 'tap';
import { call, startTestServer } from './helpers.js';

t.test('legacy discovery documents', async (t) => {
  const srv = await startTestServer(t);
  const port = new URL(srv.url).port;

  const api = await call(srv.url, 'GET', '/api');
  t.same(api.body, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${port}` }] });

  const core = await call(srv.url, 'GET', '/api/v1');
  t.same(core.body, {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: 'v1',
    resources: [
      { name: 'namespaces', singularName: 'namespace', namespaced: false, kind: 'Namespace', verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['ns'] },
      { name: 'namespaces/finalize', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['update'] },
      { name: 'namespaces/status', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['get', 'patch', 'update'] },
    ],
  });

  const groups = await call(srv.url, 'GET', '/apis');
  t.same(groups.body, {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [
      { name: 'storage.orch.io', versions: [{ groupVersion: 'storage.orch.io/v1', version: 'v1' }], preferredVersion: { groupVersion: 'storage.orch.io/v1', version: 'v1' } },
      { name: 'test.orch.io', versions: [{ groupVersion: 'test.orch.io/v1', version: 'v1' }], preferredVersion: { groupVersion: 'test.orch.io/v1', version: 'v1' } },
    ],
  });

  const group = await call(srv.url, 'GET', '/apis/storage.orch.io');
  t.same(group.body, {
    kind: 'APIGroup',
    apiVersion: 'v1',
    name: 'storage.orch.io',
    versions: [{ groupVersion: 'storage.orch.io/v1', version: 'v1' }],
    preferredVersion: { groupVersion: 'storage.orch.io/v1', version: 'v1' },
  });

  const storage = await call(srv.url, 'GET', '/apis/storage.orch.io/v1');
  t.same(storage.body, {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: 'storage.orch.io/v1',
    resources: [
      { name: 'storageclasses', singularName: 'storageclass', namespaced: false, kind: 'StorageClass', verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['sc'] },
    ],
  });

  const test = await call(srv.url, 'GET', '/apis/test.orch.io/v1');
  t.same(test.body.resources.map((r: any) => [r.name, r.namespaced, r.kind]), [['widgets', true, 'Widget'], ['widgets/status', true, 'Widget']]);

  t.equal((await call(srv.url, 'GET', '/apis/nope.orch.io')).status, 404);
  t.equal((await call(srv.url, 'GET', '/apis/storage.orch.io/v2')).status, 404);

  const version = await call(srv.url, 'GET', '/version');
  t.match(version.body, { major: '1', minor: '37', gitVersion: 'v1.37.0' });
});

t.test('what kubectl sends: the aggregated document; a conversion it cannot make falls back to the legacy one', async (t) => {
  const srv = await startTestServer(t);
  const aggregated =
    'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
  const r = await call(srv.url, 'GET', '/apis', undefined, { accept: aggregated });
  t.equal(r.status, 200);
  t.equal(r.headers.get('content-type'), 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
  t.equal(r.body.kind, 'APIGroupDiscoveryList');
  const beta = await call(srv.url, 'GET', '/apis', undefined, { accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json' });
  t.equal(beta.headers.get('content-type'), 'application/json', 'v2beta1 (no longer served upstream either): plain JSON tells the client to fall back');
  t.equal(beta.body.kind, 'APIGroupList');
  const only = await call(srv.url, 'GET', '/apis', undefined, { accept: 'application/json;g=apidiscovery.orch.io;v=v2beta1;as=APIGroupDiscoveryList' });
  t.equal(only.status, 406, 'a conversion the server does not make, alone: 406');
});
