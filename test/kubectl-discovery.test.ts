// Aggregated discovery with the real kubectl: against the reference it reads every group, version
// and resource from /api and /apis alone (two requests, not one per group version), and what it
// learns is what the legacy documents say. Also the negotiation itself: the orch.io and k8s.io
// forms, a client preferring the legacy documents, conversions the server does not make.
import t from 'tap';
import { kubectlAgainst } from './helpers/kubectl.js';
import { startServe } from './helpers/serve.js';
import { aggregatedWanted } from '../reference/apiserver/aggregated-discovery.js';

const V2 = (g: string) => `application/json;g=${g};v=v2;as=APIGroupDiscoveryList`;

t.test('the Accept header decides: aggregated in the group asked, else the legacy documents', async (t) => {
  t.equal(aggregatedWanted(`${V2('apidiscovery.k8s.io')},application/json`), 'apidiscovery.k8s.io', 'kubectl\'s form');
  t.equal(aggregatedWanted(`${V2('apidiscovery.orch.io')};q=0.9,application/json;q=0.8`), 'apidiscovery.orch.io');
  t.equal(aggregatedWanted(`application/json,${V2('apidiscovery.k8s.io')}`), undefined, 'plain JSON first: legacy');
  t.equal(aggregatedWanted(`${V2('apidiscovery.k8s.io')};q=0.5,application/json`), undefined, 'plain JSON preferred by q: legacy');
  t.equal(aggregatedWanted('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json'), undefined, 'v2beta1 is not served');
  t.equal(aggregatedWanted('application/json;g=meta.k8s.io;v=v1;as=Table,application/json'), undefined, 'another conversion: passed over');
  t.equal(aggregatedWanted(undefined), undefined);
});

t.test('kubectl api-resources reads /api and /apis only, and lists every served resource', async (t) => {
  const ref = await startServe(t, ['--plain-http', '--controllers', '', '--no-scheduler']);
  const { kubectl } = kubectlAgainst(t, ref.url);
  const r = await kubectl('api-resources', '-v=6');
  t.equal(r.exitCode, 0, r.stderr.slice(-500));
  const gets = [...r.stderr.matchAll(/GET (http\S+) 200/g)].map((m) => new URL(m[1]!).pathname);
  t.same(gets, ['/api', '/apis'], 'two requests: the aggregated documents');
  const listed = new Set(r.stdout.split('\n').slice(1).filter(Boolean).map((l) => l.split(/\s+/)[0]));
  for (const name of ['pods', 'namespaces', 'storageclasses', 'evictionrequests', 'clusterroles', 'storageversionmigrations', 'selfsubjectrulesreviews']) {
    t.ok(listed.has(name), `${name} listed`);
  }

  // The same resources as the legacy documents name, with their scope and kind.
  const agg = await (await fetch(`${ref.url}/apis`, { headers: { accept: `${V2('apidiscovery.k8s.io')},application/json` } })).json() as any;
  t.equal(agg.kind, 'APIGroupDiscoveryList');
  t.equal(agg.apiVersion, 'apidiscovery.k8s.io/v2');
  const storage = agg.items.find((i: any) => i.metadata.name === 'storage.orch.io');
  const legacy = await (await fetch(`${ref.url}/apis/storage.orch.io/v1`)).json() as any;
  t.same(storage.versions[0].resources.map((r: any) => [r.resource, r.scope, r.responseKind.kind, r.verbs]),
    legacy.resources.filter((r: any) => !r.name.includes('/')).map((r: any) => [r.name, r.namespaced ? 'Namespaced' : 'Cluster', r.kind, r.verbs]));
  const core = await (await fetch(`${ref.url}/api`, { headers: { accept: V2('apidiscovery.orch.io') } })).json() as any;
  t.equal(core.apiVersion, 'apidiscovery.orch.io/v2');
  const pods = core.items[0].versions[0].resources.find((r: any) => r.resource === 'pods');
  t.same(pods.subresources.map((s: any) => s.subresource).sort(), ['attach', 'binding', 'eviction', 'exec', 'log', 'portforward', 'status'], 'subresources nested under their resource');
  t.same(pods.subresources.find((s: any) => s.subresource === 'eviction').responseKind, { group: 'policy', version: 'v1', kind: 'Eviction' });
  const plain = await fetch(`${ref.url}/apis`);
  t.equal((await plain.json() as any).kind, 'APIGroupList', 'without asking: the legacy document');
});
