// /openapi/v3: the discovery document and one document per group version, generated from the
// strategies, carrying what kubectl looks for (--validate=strict, explain).
import t from 'tap';
import { startReference } from '../../reference/server.js';
import { REFERENCE_RESOURCES } from '../../reference/resources/index.js';
import { call } from './helpers.js';

t.test('discovery and group version documents', async (t) => {
  const ref = await startReference({ host: '127.0.0.1', port: 0 });
  t.teardown(() => ref.close());
  const u = ref.url;

  const disc = await call(u, 'GET', '/openapi/v3');
  t.equal(disc.status, 200);
  t.equal(disc.headers.get('content-type'), 'application/json');
  const paths = disc.body.paths as Record<string, { serverRelativeURL: string }>;
  t.ok(paths['api/v1'], 'the core group');
  t.ok(paths['apis/storage.orch.io/v1'], 'a named group');
  t.notOk(paths['apis/scheduling.orch.io/v1beta1'], 'a gated-off API is absent (GenericWorkload is off by default)');
  for (const [p, entry] of Object.entries(paths)) t.match(entry.serverRelativeURL, new RegExp(`^/openapi/v3/${p.replace(/\./g, '\\.')}\\?hash=[0-9A-F]{128}$`), `${p}: URL with hash`);

  // Every served strategy (gate on or not gated) has its schema and a PATCH with fieldValidation.
  const served = REFERENCE_RESOURCES.filter((s) => !s.gate);
  for (const s of served) {
    const gvPath = s.group ? `apis/${s.group}/${s.version}` : `api/${s.version}`;
    const doc = await call(u, 'GET', paths[gvPath]!.serverRelativeURL);
    t.equal(doc.status, 200, `${gvPath} document`);
    t.equal(doc.body.openapi, '3.0.0');
    const gvk = { group: s.group, kind: s.kind, version: s.version };
    const schemas = Object.values(doc.body.components.schemas) as any[];
    const schema = schemas.find((x) => (x['x-kubernetes-group-version-kind'] ?? []).some((g: any) => g.group === gvk.group && g.kind === gvk.kind && g.version === gvk.version));
    t.ok(schema, `${s.kind}: a component schema tagged with its GVK`);
    t.same(Object.keys(schema?.properties ?? {}).sort(), ['apiVersion', 'kind', 'metadata', ...Object.keys(s.schema)].sort(), `${s.kind}: the strategy's fields`);
    const patchOps = Object.values(doc.body.paths as Record<string, any>)
      .map((p) => p.patch)
      .filter((op) => op && JSON.stringify(op['x-kubernetes-group-version-kind']) === JSON.stringify(gvk));
    if ((s.verbs ?? ['patch']).includes('patch')) {
      t.ok(patchOps.length >= 1, `${s.kind}: a PATCH operation tagged with its GVK`);
      for (const op of patchOps) {
        t.ok(op.parameters.some((p: any) => p.name === 'fieldValidation' && p.in === 'query'), `${s.kind}: PATCH lists fieldValidation`);
        t.ok(op.parameters.some((p: any) => p.name === 'dryRun' && p.in === 'query'), `${s.kind}: PATCH lists dryRun`);
      }
    }
  }

  const sc = await call(u, 'GET', paths['apis/storage.orch.io/v1']!.serverRelativeURL);
  t.equal(sc.headers.get('cache-control'), 'public, immutable', 'the hashed URL is immutable');
  t.match(sc.headers.get('etag'), /^"[0-9A-F]{128}"$/);
  t.equal((await call(u, 'GET', '/openapi/v3/apis/storage.orch.io/v1')).headers.get('cache-control'), 'no-cache, private', 'without the hash it is not');
  const item = sc.body.paths['/apis/storage.orch.io/v1/storageclasses/{name}'];
  t.same(Object.keys(item).sort(), ['delete', 'get', 'parameters', 'patch', 'put']);
  t.same(Object.keys(item.patch.requestBody.content).sort(), ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']);
  t.equal(item.patch.operationId, 'patchStorageV1StorageClass');

  const core = await call(u, 'GET', '/openapi/v3/api/v1');
  t.ok(core.body.paths['/api/v1/namespaces/{namespace}/resourcequotas/{name}/status'], 'status subresource paths');
  t.ok(core.body.paths['/api/v1/resourcequotas'].get, 'namespaced kinds are listed across namespaces too (kubectl explain looks there)');
  t.equal(core.body.paths['/api/v1/namespaces/{namespace}/resourcequotas'].post.operationId, 'createCoreV1NamespacedResourceQuota');

  t.equal((await call(u, 'GET', '/openapi/v3/apis/nothing.orch.io/v1')).status, 404);
  t.equal((await call(u, 'GET', '/openapi/v2')).status, 200, 'v2 is served too (openapi-docs.test.ts)');
  t.equal((await call(u, 'POST', '/openapi/v3', {})).status, 405);
  t.equal((await call(u, 'GET', '/openapi/v3', undefined, { accept: 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf' })).status, 406);
  t.equal((await call(u, 'GET', '/openapi/v3', undefined, { accept: 'application/json, */*' })).status, 200);
});

t.test('gated APIs appear with their gate', async (t) => {
  const ref = await startReference({ host: '127.0.0.1', port: 0, featureGates: { GenericWorkload: true } });
  t.teardown(() => ref.close());
  const disc = await call(ref.url, 'GET', '/openapi/v3');
  const url = disc.body.paths['apis/scheduling.orch.io/v1beta1']?.serverRelativeURL;
  t.ok(url, 'PodGroup with GenericWorkload on');
  const doc = await call(ref.url, 'GET', url);
  t.ok(doc.body.components.schemas['io.orch.api.scheduling.v1beta1.PodGroup']);
});
