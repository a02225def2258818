// Client-side `kubectl apply` (the machine's kubectl) against the reference: kubectl computes its
// strategic merge patch from the patch metadata in /openapi/v3 (x-kubernetes-patch-strategy and
// -merge-key, list types), so applying the same file twice changes nothing ("unchanged") and an item
// removed from the file is removed from the object (a finalizer, through $deleteFromPrimitiveList).
// Removing a container or an env var: kubectl's patch deletes exactly them by merge key (checked in
// the patch it sends), and the Pod refuses it as upstream does (a Pod's containers are immutable);
// a scheduling gate, merge-keyed too and removable, goes.
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

/** The bodies of the PATCH requests kubectl logged at -v=8. */
function patchBodies(log: string): any[] {
  const out: any[] = [];
  for (const m of log.matchAll(/"Request Body" body="((?:[^"\\]|\\.)*)"/g)) {
    if (!m[1]) continue;
    const body = JSON.parse(`"${m[1]}"`) as string;
    if (body.includes('$setElementOrder')) out.push(JSON.parse(body));
  }
  return out;
}

const gatedPod = (gates: string[], containers: Array<{ name: string; env: string[] }>) => [
  'apiVersion: v1', 'kind: Pod', 'metadata: {name: gated, namespace: default}', 'spec:',
  `  schedulingGates: [${gates.map((g) => `{name: ${g}}`).join(', ')}]`, '  containers:',
  ...containers.flatMap((c) => [`  - name: ${c.name}`, `    image: registry.example.com/${c.name}:1`, `    env: [${c.env.map((e) => `{name: ${e}, value: "1"}`).join(', ')}]`]),
  '',
].join('\n');

t.test('kubectl apply: a container, an env var and a scheduling gate removed from the file are deleted by merge key', async (t) => {
  const ref = await startServe(t, ['--plain-http', '--controllers', '', '--no-scheduler']);
  const { dir, kubectl } = kubectlAgainst(t, ref.url);
  const file = join(dir, 'gated.yaml');
  writeFileSync(file, gatedPod(['example.com/g1', 'example.com/g2'], [{ name: 'a', env: ['XA', 'XB'] }, { name: 'b', env: [] }]));
  t.equal((await kubectl('apply', '-f', file)).exitCode, 0);

  writeFileSync(file, gatedPod(['example.com/g1', 'example.com/g2'], [{ name: 'a', env: ['XA'] }]));
  const refused = await kubectl('apply', '-f', file, '-v=8');
  t.not(refused.exitCode, 0, 'the Pod refuses a change of its containers');
  t.match(refused.stderr, /Pod "gated" is invalid: spec: Forbidden: pod updates may not change fields/);
  const [patch] = patchBodies(refused.stderr);
  t.ok(patch, 'kubectl sent a strategic merge patch');
  t.same(patch?.spec?.['$setElementOrder/containers'], [{ name: 'a' }], 'the containers left, in order');
  t.same(patch?.spec?.containers, [{ '$setElementOrder/env': [{ name: 'XA' }], env: [{ $patch: 'delete', name: 'XB' }], name: 'a' }, { $patch: 'delete', name: 'b' }], 'container b and env XB deleted by name, nothing else');
  const live = await (await fetch(`${ref.url}/api/v1/namespaces/default/pods/gated`)).json() as any;
  t.same(live.spec.containers.map((c: any) => c.name), ['a', 'b'], 'nothing changed on refusal');

  writeFileSync(file, gatedPod(['example.com/g1'], [{ name: 'a', env: ['XA', 'XB'] }, { name: 'b', env: [] }]));
  const ungated = await kubectl('apply', '-f', file);
  t.equal(ungated.exitCode, 0, ungated.stderr);
  t.match(ungated.stdout, /pod\/gated configured/);
  const after = await (await fetch(`${ref.url}/api/v1/namespaces/default/pods/gated`)).json() as any;
  t.same(after.spec.schedulingGates, [{ name: 'example.com/g1' }], 'the gate removed from the file is gone');
  t.same(after.spec.containers[0].env.map((e: any) => e.name), ['XA', 'XB'], 'the rest as applied');
  t.match((await kubectl('apply', '-f', file)).stdout, /unchanged/, 'and unchanged again');
});
