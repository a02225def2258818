// The two shared parts of the hollow nodes, in-process: the runtime scopes each node to its own sandboxes
// and containers in every List* (stats included) while one mock holds them all, and the shared pod watch
// gives each node what its own field-selector watch would (its pods listed, bound ones ADDED, changes,
// deletions; other nodes' and unbound pods never; the list again after a relist).
import t from 'tap';
import { HollowRuntime, HOLLOW_NODE_LABEL } from '../../hollow/runtime.js';
import { SharedPodWatch } from '../../hollow/pod-watch.js';
import { Runtime, LABEL_POD_UID } from '../../reference/agent/runtime.js';
import type { ApiClient, WatchEvent, WatchOptions } from '../../reference/client/api-client.js';

const sandboxConfig = (uid: string) => ({
  metadata: { name: `p-${uid}`, uid, namespace: 'default', attempt: 0 },
  labels: { [LABEL_POD_UID]: uid }, annotations: {}, log_directory: '', hostname: '',
});

t.test('hollow runtime: one mock, each node sees only its own records', async (t) => {
  const hollow = await HollowRuntime.start();
  t.teardown(() => hollow.close());
  const a = new Runtime(hollow.transport('a'));
  const b = new Runtime(hollow.transport('b'));
  t.equal((await a.version()).runtime_name, 'orch-mock-cri', 'Version through the codec');
  const sa = await a.runPodSandbox(sandboxConfig('uid-a'));
  await b.runPodSandbox(sandboxConfig('uid-b'));
  await a.pullImage('docker.io/library/busybox:1.36', {});
  const ca = await a.createContainer(sa, { metadata: { name: 'c', attempt: 0 }, image: { image: 'docker.io/library/busybox:1.36' }, command: ['sleep', '60'], labels: { [LABEL_POD_UID]: 'uid-a' } }, sandboxConfig('uid-a'));
  await a.startContainer(ca);
  t.same((await a.listSandboxes()).map((s) => s.metadata.uid), ['uid-a'], 'node a lists its sandbox only');
  t.same((await b.listSandboxes()).map((s) => s.metadata.uid), ['uid-b'], 'node b lists its sandbox only');
  t.same((await a.listContainers()).map((c) => c.id), [ca], 'node a lists its container');
  t.same(await b.listContainers(), [], 'node b lists no container');
  t.same(await b.listSandboxes('uid-a'), [], 'another node\'s pod is not found by its uid either');
  t.equal((await a.listSandboxes())[0]!.labels[HOLLOW_NODE_LABEL], 'a', 'what a node creates carries its name');
  t.same((await a.listPodSandboxStats()).map((s: any) => s.attributes?.metadata?.uid), ['uid-a'], 'stats: its own sandbox');
  t.same((await b.listPodSandboxMetrics()).length, 1, 'metrics: its own sandbox');
  t.same((await a.containerStatus(ca)).state, 'CONTAINER_RUNNING', 'the container runs');
  t.same(hollow.counts(), { sandboxes: 2, containers: 1 }, 'one runtime holds both nodes\' records');
  // A relist's entries are decoded again only when their state changed: the change is seen.
  t.same((await a.listContainers()).map((c) => c.state), ['CONTAINER_RUNNING']);
  await a.stopContainer(ca, 0);
  t.same((await a.listContainers()).map((c) => c.state), ['CONTAINER_EXITED'], 'a relist after a stop sees the container exited');
  await a.stopPodSandbox(sa);
  t.same((await a.listSandboxes()).map((s) => s.state), ['SANDBOX_NOTREADY'], 'and the sandbox stopped');
  await a.removePodSandbox(sa);
  t.same([await a.listSandboxes(), await a.listContainers()], [[], []], 'removed: gone from the relists');
  await t.rejects(a.containerStatus('nope'), { code: 5 }, 'errors keep their gRPC code (NOT_FOUND)');
});

/** An ApiClient whose watch the test drives. */
function fakeApi() {
  let o!: WatchOptions;
  let resolveSynced!: () => void;
  const api = {
    watch(_path: string, opts: WatchOptions) {
      o = opts;
      return { synced: new Promise<void>((r) => (resolveSynced = r)), stop() {} };
    },
  } as unknown as ApiClient;
  return { api, list: (items: any[]) => { o.onList(items); resolveSynced(); }, event: (ev: WatchEvent) => o.onEvent(ev) };
}

const pod = (uid: string, nodeName?: string) => ({ metadata: { uid, name: uid }, spec: nodeName ? { nodeName } : {} });

t.test('shared pod watch: each node gets what its own field-selector watch would', async (t) => {
  const f = fakeApi();
  const shared = new SharedPodWatch(f.api, new Set(['n1', 'n2']), () => {});
  const seen: Record<string, string[]> = { n1: [], n2: [] };
  for (const n of ['n1', 'n2']) {
    shared.subscribe(n, {
      onList: (items) => seen[n]!.push(`list ${items.map((p) => p.metadata.uid).sort().join(',')}`),
      onEvent: (ev) => seen[n]!.push(`${ev.type} ${ev.object.metadata.uid}`),
    });
  }
  f.list([pod('p1', 'n1'), pod('p2', 'n2'), pod('p3', 'elsewhere'), pod('p4')]);
  await shared.synced;
  await new Promise((r) => setImmediate(r));
  f.event({ type: 'ADDED', object: pod('p5') });
  f.event({ type: 'MODIFIED', object: pod('p5', 'n2') });
  f.event({ type: 'MODIFIED', object: pod('p5', 'n2') });
  f.event({ type: 'MODIFIED', object: pod('p6', 'other') });
  f.event({ type: 'DELETED', object: pod('p1', 'n1') });
  f.event({ type: 'DELETED', object: pod('p1', 'n1') });
  f.list([pod('p2', 'n2')]);
  t.same(seen.n1, ['list p1', 'DELETED p1', 'list '], 'n1: its pod listed, deleted once, the relist');
  t.same(seen.n2, ['list p2', 'ADDED p5', 'MODIFIED p5', 'list p2'], 'n2: bound pod ADDED, then MODIFIED, the relist');
  t.throws(() => shared.subscribe('n3', { onList() {}, onEvent() {} }), /not a node/, 'only the names given');
  shared.stop();
});
