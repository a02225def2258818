// Issue 24 part 4 as a user meets it: the real kubectl against a reference, the mock CRI and an agent
// (one process). kubectl reads core v1 events; the agent and the controllers write events.orch.io/v1
// ones; one store serves both. `describe pod` and `describe node` list the agent's events, and
// `kubectl events` (with --for) shows them.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReference } from '../reference/server.js';
import { startMockCri } from '../mocks/cri/server.js';
import { ApiClient } from '../reference/client/api-client.js';
import { startAgent } from '../reference/agent/agent.js';
import { kubectlAgainst } from './helpers/kubectl.js';
import { until } from './agent/helpers.js';

t.test('kubectl describe and kubectl events show the agent\'s events', async (t) => {
  const ref = await startReference({ port: 0 });
  t.teardown(() => ref.close());
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-events-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cri = await startMockCri({ socket: join(dir, 'cri.sock') });
  t.teardown(() => cri.close());
  const api = new ApiClient({ url: ref.url });
  t.teardown(() => api.close());
  const agent = await startAgent({ api: { url: ref.url }, criEndpoint: cri.criUrl, rootDir: join(dir, 'root'), nodeName: 'n1', relistPeriodMs: 100, log: () => {} });
  t.teardown(() => agent.close());

  await api.create('/api/v1/namespaces/default/pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' },
    spec: { nodeName: 'n1', containers: [{ name: 'main', image: 'busybox:1.36', command: ['sleep', '3600'] }] },
  });
  // Started is the last event of a pod coming up: once it is stored, the others are too.
  await until('the Started event', async () => {
    const l = await api.request('GET', '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dweb,reason%3DStarted');
    return l.items.length ? l : undefined;
  });
  const { kubectl } = kubectlAgainst(t, ref.url);

  const pod = await kubectl('describe', 'pod', 'web');
  t.equal(pod.exitCode, 0, pod.stderr);
  const podEvents = pod.stdout.slice(pod.stdout.indexOf('Events:'));
  for (const row of [/Normal\s+Pulled\s+.*\s+agent\s+Container image "busybox:1\.36" already present on machine/, /Normal\s+Created\s+.*\s+agent\s+Created container: main/, /Normal\s+Started\s+.*\s+agent\s+Started container main/]) {
    t.match(podEvents, row, `describe pod lists ${row.source.split('\\s+')[1]}`);
  }

  const node = await kubectl('describe', 'node', 'n1');
  t.equal(node.exitCode, 0, node.stderr);
  const nodeEvents = node.stdout.slice(node.stdout.indexOf('Events:'));
  t.match(nodeEvents, /Normal\s+Starting\s+.*\s+agent\s+Starting agent\./, 'describe node lists Starting (the node name as uid, as kubectl looks for it)');
  t.match(nodeEvents, /Normal\s+NodeReady\s+.*\s+agent\s+Node n1 status is now: NodeReady/, 'describe node lists NodeReady');

  const all = await kubectl('events');
  t.equal(all.exitCode, 0, all.stderr);
  t.match(all.stdout, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE/, 'kubectl events prints its table');
  t.match(all.stdout, /Normal\s+Started\s+Pod\/web\s+Started container main/);
  // kubectl get events: upstream's Event columns from the server's Table, for the core v1 view too.
  const got = await kubectl('get', 'events');
  t.equal(got.exitCode, 0, got.stderr);
  t.match(got.stdout, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE/, 'kubectl get events prints upstream\'s columns');
  t.match(got.stdout, /Normal\s+Started\s+pod\/web\s+Started container main/);
  const forPod = await kubectl('events', '--for', 'pod/web');
  t.equal(forPod.exitCode, 0, forPod.stderr);
  t.notMatch(forPod.stdout, /Node\/n1/, '--for selects the pod\'s events only');
  t.match(forPod.stdout, /Created\s+Pod\/web\s+Created container: main/);
});
