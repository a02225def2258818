// Static pods (spec 001 §1, §2.3 staticPodPath): manifest decoding (uid, name, annotations, bad input),
// a standalone agent running a manifest's containers through the mock CRI and removing them with the
// file, and with the in-process reference the mirror pod: created with its annotations and the Node
// as owner, carrying the static pod's status, recreated when deleted, removed with the file.
import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReference } from '../../reference/server.js';
import { startMockCri } from '../../mocks/cri/server.js';
import { ApiClient } from '../../reference/client/api-client.js';
import { startAgent } from '../../reference/agent/agent.js';
import {
  ANNOTATION_CONFIG_HASH, ANNOTATION_CONFIG_MIRROR, ANNOTATION_CONFIG_SOURCE, decodeManifest, ManifestError, readManifests,
} from '../../reference/agent/static-pods.js';
import { until } from './helpers.js';

const WEB = `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web}
spec:
  containers:
  - name: c
    image: busybox
    command: [sleep, "3600"]
`;

t.test('decoding a manifest', async (t) => {
  const p = decodeManifest(WEB, '/m/web.yaml', 'n1');
  t.equal(p.metadata.name, 'web-n1', 'name is <name>-<nodeName>');
  t.equal(p.metadata.namespace, 'default');
  t.match(p.metadata.uid, /^[0-9a-f]{32}$/, 'uid is a hash');
  t.equal(p.metadata.annotations[ANNOTATION_CONFIG_HASH], p.metadata.uid, 'config.hash is the uid');
  t.equal(p.metadata.annotations[ANNOTATION_CONFIG_SOURCE], 'file');
  t.equal(p.spec.nodeName, 'n1');
  t.same(p.spec.tolerations, [{ operator: 'Exists', effect: 'NoExecute' }], "upstream's toleration");
  t.equal(p.status.phase, 'Pending');
  const json = JSON.stringify({ kind: 'Pod', apiVersion: 'v1', metadata: { labels: { app: 'web' }, name: 'web' }, spec: { containers: [{ image: 'busybox', name: 'c', command: ['sleep', '3600'] }] } });
  t.equal(decodeManifest(json, '/m/web.yaml', 'n1').metadata.uid, p.metadata.uid, 'same object, same node, same file: same uid (layout and key order do not matter)');
  t.not(decodeManifest(WEB, '/m/web.yaml', 'n2').metadata.uid, p.metadata.uid, 'another node: another uid');
  t.not(decodeManifest(WEB.replace('3600', '3601'), '/m/web.yaml', 'n1').metadata.uid, p.metadata.uid, 'other content: another uid');
  for (const [what, text, re] of [
    ['not YAML', 'kind: [', /cannot parse/],
    ['two documents', `${WEB}---\n${WEB}`, /exactly one Pod/],
    ['not a Pod', 'apiVersion: v1\nkind: Service\nmetadata: {name: s}\n', /want apiVersion v1, kind Pod/],
    ['no name', 'apiVersion: v1\nkind: Pod\nspec: {containers: [{name: c, image: i}]}\n', /metadata.name is required/],
    ['no containers', 'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: []}\n', /at least one container/],
    ['no image', 'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: c}]}\n', /image is required/],
    ['bad name', 'apiVersion: v1\nkind: Pod\nmetadata: {name: X_Y}\nspec: {containers: [{name: c, image: i}]}\n', /not a valid DNS subdomain/],
  ] as const) {
    t.throws(() => decodeManifest(text, '/m/f.yaml', 'n1'), { name: 'ManifestError', message: re }, what);
  }
  t.ok(new ManifestError('x') instanceof Error);

  const dir = mkdtempSync(join(tmpdir(), 'agent-static-read-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'web.yaml'), WEB);
  writeFileSync(join(dir, '.hidden.yaml'), WEB.replace('name: web', 'name: hidden'));
  writeFileSync(join(dir, 'bad.yaml'), 'kind: [');
  writeFileSync(join(dir, 'dup.json'), JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'i' }] } }));
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, 'sub', 'deep.yaml'), WEB.replace('name: web', 'name: deep'));
  const r = await readManifests(dir, 'n1');
  t.same(r.pods.map((p) => p.metadata.name), ['web-n1'], 'dotfiles and subdirectories skipped, the duplicate name rejected');
  t.equal(r.errors.length, 2, 'two files reported');
  t.match(r.errors.join('\n'), /bad\.yaml: cannot parse/);
  t.match(r.errors.join('\n'), /web\.yaml: pod default\/web-n1 is already defined by .*dup\.json|dup\.json: pod default\/web-n1 is already defined/);
  t.same(await readManifests(join(dir, 'missing'), 'n1'), { pods: [], errors: [] }, 'a missing path is an empty set');
  t.same((await readManifests(join(dir, 'web.yaml'), 'n1')).pods.map((p) => p.metadata.name), ['web-n1'], 'a single file works');
});

t.test('standalone: a manifest runs through the pod workers, its removal stops it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-static-alone-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const manifests = join(dir, 'manifests');
  mkdirSync(manifests);
  writeFileSync(join(manifests, 'web.yaml'), WEB);
  writeFileSync(join(manifests, 'broken.yaml'), 'apiVersion: v1\nkind: Pod\n');
  const cri = await startMockCri({ socket: join(dir, 'cri.sock') });
  t.teardown(() => cri.close());
  const logs: string[] = [];
  // A long re-read period: the change below must be seen through the directory watch.
  const agent = await startAgent({
    criEndpoint: cri.criUrl, rootDir: join(dir, 'root'), nodeName: 'n1', staticPodPath: manifests, fileCheckFrequencyMs: 60_000,
    relistPeriodMs: 100, log: (m) => logs.push(m),
  });
  t.teardown(() => agent.close());
  const uid = decodeManifest(WEB, join(manifests, 'web.yaml'), 'n1').metadata.uid;
  const running = await until('the static pod\'s container running', () => {
    const st = cri.control.state() as { sandboxes: any[]; containers: any[] };
    const sb = st.sandboxes.find((s) => s.metadata.uid === uid);
    const c = st.containers.find((c) => sb && c.sandboxId === sb.id);
    return c?.state === 'CONTAINER_RUNNING' ? c : undefined;
  });
  t.same(running.argv, ['sleep', '3600'], "the manifest's command");
  const sandbox = (cri.control.state().sandboxes as any[]).find((s) => s.metadata.uid === uid);
  t.equal(sandbox?.metadata.name, 'web-n1', 'sandbox named <name>-<nodeName>');
  t.equal(sandbox?.metadata.namespace, 'default');
  t.same(agent.pods().map((p) => p.metadata.name), ['web-n1'], '/pods lists the static pod');
  t.match(logs.join('\n'), /static pods: .*broken\.yaml: metadata\.name is required/, 'the bad manifest is reported, the agent runs');

  unlinkSync(join(manifests, 'web.yaml'));
  await until('sandbox removed', () => ((cri.control.state().sandboxes as any[]).some((s) => s.metadata.uid === uid) ? undefined : true));
  t.equal((cri.control.state().containers as any[]).length, 0, 'containers removed');
  t.ok(cri.control.calls.list({ rpc: 'StopContainer' }).length >= 1, 'StopContainer called');
  t.same(agent.pods(), [], 'no pods left');
});

t.test('with a control plane: the mirror pod', async (t) => {
  const ref = await startReference({ port: 0 });
  t.teardown(() => ref.close());
  const dir = mkdtempSync(join(tmpdir(), 'agent-static-mirror-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const manifests = join(dir, 'manifests');
  mkdirSync(manifests);
  writeFileSync(join(manifests, 'web.yaml'), WEB);
  const cri = await startMockCri({ socket: join(dir, 'cri.sock') });
  t.teardown(() => cri.close());
  const api = new ApiClient({ url: ref.url });
  t.teardown(() => api.close());
  const logs: string[] = [];
  const agent = await startAgent({
    api: { url: ref.url }, criEndpoint: cri.criUrl, rootDir: join(dir, 'root'), nodeName: 'n1', staticPodPath: manifests,
    fileCheckFrequencyMs: 60_000, relistPeriodMs: 100, log: (m) => logs.push(m),
  });
  t.teardown(() => agent.close());
  const uid = decodeManifest(WEB, join(manifests, 'web.yaml'), 'n1').metadata.uid;
  const get = () => api.get('/api/v1/namespaces/default/pods/web-n1').catch(() => undefined);

  const mirror = await until('mirror pod Running', async () => {
    const m = await get();
    return m?.status?.phase === 'Running' ? m : undefined;
  });
  const node = await api.get('/api/v1/nodes/n1');
  t.equal(mirror.metadata.annotations[ANNOTATION_CONFIG_SOURCE], 'file', 'config.source');
  t.equal(mirror.metadata.annotations[ANNOTATION_CONFIG_HASH], uid, 'config.hash');
  t.equal(mirror.metadata.annotations[ANNOTATION_CONFIG_MIRROR], uid, 'config.mirror is the hash');
  t.same(mirror.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: node.metadata.uid, controller: true }], 'owned by the Node');
  t.not(mirror.metadata.uid, uid, 'the mirror is another object');
  t.equal(mirror.spec.nodeName, 'n1');
  t.equal(mirror.status.containerStatuses?.[0]?.state?.running !== undefined, true, "the static pod's status is on the mirror");
  const sandboxes = cri.control.state().sandboxes as any[];
  t.same(sandboxes.map((s) => s.metadata.uid), [uid], 'the workers run the static pod, not the mirror');

  await api.delete('/api/v1/namespaces/default/pods/web-n1', { gracePeriodSeconds: 0 });
  const again = await until('mirror recreated', async () => {
    const m = await get();
    return m && m.metadata.uid !== mirror.metadata.uid && !m.metadata.deletionTimestamp ? m : undefined;
  });
  t.equal(again.metadata.annotations[ANNOTATION_CONFIG_MIRROR], uid, 'recreated with its annotations');
  await until('recreated mirror carries the status', async () => ((await get())?.status?.phase === 'Running' ? true : undefined));
  t.same((cri.control.state().sandboxes as any[]).map((s) => s.metadata.uid), [uid], 'the static pod kept running');

  unlinkSync(join(manifests, 'web.yaml'));
  await until('mirror deleted', async () => ((await get()) ? undefined : true));
  await until('sandbox removed', () => ((cri.control.state().sandboxes as any[]).length === 0 ? true : undefined));
  t.equal((cri.control.state().containers as any[]).length, 0, 'containers removed');
  t.notMatch(logs.join('\n'), /status|pod default\/web-n1/, `no errors from the workers' status writes: ${logs.join('; ')}`);
});
