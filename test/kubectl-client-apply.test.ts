// Client-side `kubectl apply` (the machine's kubectl) against the reference: kubectl computes its
// strategic merge patch from the patch metadata in /openapi/v3 (x-kubernetes-patch-strategy and
// -merge-key, list types), so applying the same file twice changes nothing ("unchanged") and an item
// removed from the file is removed from the object (a finalizer, through $deleteFromPrimitiveList).
// Removing a container or an env var from a Pod is refused here as upstream refuses it (a Pod's
// containers are immutable), so the merge-keyed lists are checked through the OpenAPI document.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubectlAgainst } from './helpers/kubectl.js';
import { startServe } from './helpers/serve.js';

const pod = (finalizers: string[]) => [
  'apiVersion: v1', 'kind: Pod',
  'metadata:', '  name: applied', '  namespace: default', `  finalizers: [${finalizers.join(', ')}]`,
  'spec:', '  schedulingGates: [{name: example.com/hold}]', '  containers:',
  '  - name: a', '    image: registry.example.com/a:1', '    env: [{name: XA, value: "1"}, {name: XB, value: "2"}]',
  '  - name: b', '    image: registry.example.com/b:1', '',
].join('\n');

t.test('kubectl apply: the same file twice is unchanged; a finalizer removed from the file goes', async (t) => {
  const ref = await startServe(t, ['--plain-http', '--controllers', '', '--no-scheduler']);
  const { dir, kubectl } = kubectlAgainst(t, ref.url);
  const file = join(dir, 'pod.yaml');
  writeFileSync(file, pod(['example.com/a', 'example.com/b']));
  const created = await kubectl('apply', '-f', file);
  t.equal(created.exitCode, 0, created.stderr);
  t.match(created.stdout, /pod\/applied created/);
  const again = await kubectl('apply', '-f', file);
  t.equal(again.exitCode, 0, again.stderr);
  t.match(again.stdout, /pod\/applied unchanged/, 'nothing to patch the second time');

  writeFileSync(file, pod(['example.com/a']));
  const fewer = await kubectl('apply', '-f', file);
  t.equal(fewer.exitCode, 0, fewer.stderr);
  t.match(fewer.stdout, /pod\/applied configured/);
  const live = await (await fetch(`${ref.url}/api/v1/namespaces/default/pods/applied`)).json() as any;
  t.same(live.metadata.finalizers, ['example.com/a'], 'the finalizer removed from the file is gone');
  t.same(live.spec.containers.map((c: any) => c.name), ['a', 'b'], 'the containers as applied');
  t.same(live.spec.containers[0].env, [{ name: 'XA', value: '1' }, { name: 'XB', value: '2' }]);
  t.match((await kubectl('apply', '-f', file)).stdout, /unchanged/, 'and unchanged again');

  // The patch metadata kubectl read.
  const doc = await (await fetch(`${ref.url}/openapi/v3/api/v1`)).json() as any;
  const spec = doc.components.schemas[Object.keys(doc.components.schemas).find((k) => k.endsWith('.Pod'))!].properties.spec.properties;
  t.match(spec.containers, { 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] });
  t.match(spec.containers.items.properties.env, { 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' });
  const meta = doc.components.schemas[Object.keys(doc.components.schemas).find((k) => k.endsWith('.ObjectMeta'))!].properties;
  t.match(meta.finalizers, { 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-list-type': 'set' });

  // Cleanup: the finalizer would hold the pod.
  await fetch(`${ref.url}/api/v1/namespaces/default/pods/applied`, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: '{"metadata":{"finalizers":null}}' });
});
