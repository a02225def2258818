// The root dir layout (spec 001 §2.1): directories 0700, state files 0600 in upstream's JSON shape,
// pod resource records written on admission and kept across restarts.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parsePodResourcesState, podResourcesState, prepareRootDir, RootDirError } from '../../reference/agent/root-dir.js';

function tempRoot(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-root-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'var-lib-agent');
}

const mode = (p: string): number => statSync(p).mode & 0o777;

const POD = {
  metadata: { name: 'web', namespace: 'default', uid: 'a1b2c3d4-0000-4000-8000-000000000001' },
  spec: {
    initContainers: [{ name: 'init', resources: { requests: { cpu: '100m' } } }],
    containers: [{ name: 'app', resources: { limits: { memory: '128Mi' }, requests: { cpu: '250m', memory: '64Mi' } } }, { name: 'side' }],
  },
};

t.test('layout and modes', async (t) => {
  const root = tempRoot(t);
  const layout = await prepareRootDir(root);
  for (const d of ['', 'checkpoints', 'pods', 'plugins', 'plugins_registry', 'pod-resources', 'seccomp', 'pki', 'image_manager', 'image_manager/pulling', 'image_manager/pulled']) {
    const p = join(root, d);
    t.ok(statSync(p).isDirectory(), `${d || '<root>'} is a directory`);
    t.equal(mode(p), 0o700, `${d || '<root>'} is 0700`);
  }
  t.equal(layout.podInfoSocket, join(root, 'pods', 'agent.sock'));
  t.equal(layout.pkiDir, join(root, 'pki'));
  t.equal(layout.seccompDir, join(root, 'seccomp'));
  for (const f of ['cpu_manager_state', 'memory_manager_state', 'dra_manager_state', 'allocated_pods_state', 'actuated_pods_state']) {
    t.ok(statSync(join(root, f)).isFile(), `${f} is a file`);
    t.equal(mode(join(root, f)), 0o600, `${f} is 0600`);
  }
  t.equal(readFileSync(join(root, 'cpu_manager_state'), 'utf8'), '{"policyName":"none","defaultCpuSet":"","checksum":1353318690}', 'byte for byte upstream\'s');
  t.equal(readFileSync(join(root, 'memory_manager_state'), 'utf8'), '{"policyName":"None","machineState":{},"checksum":4236770233}', 'byte for byte upstream\'s');
  const dra = JSON.parse(readFileSync(join(root, 'dra_manager_state'), 'utf8'));
  t.same(JSON.parse(dra.Data), { kind: 'DRACheckpoint', apiVersion: 'checkpoint.dra.kubelet.k8s.io/v1', Entries: null });
  t.type(dra.Checksum, 'number');
  t.same(parsePodResourcesState(readFileSync(join(root, 'allocated_pods_state'), 'utf8')), {}, 'no pods yet');
});

t.test('existing directories are made private; a file in the way is an error', async (t) => {
  const root = tempRoot(t);
  mkdirSync(join(root, 'pki'), { recursive: true, mode: 0o755 });
  chmodSync(join(root, 'pki'), 0o755);
  await prepareRootDir(root);
  t.equal(mode(join(root, 'pki')), 0o700);
  const other = tempRoot(t);
  mkdirSync(other, { recursive: true });
  writeFileSync(join(other, 'checkpoints'), 'x');
  await t.rejects(prepareRootDir(other), RootDirError);
});

t.test('a cpu manager state of another policy is refused, as upstream refuses it', async (t) => {
  const root = tempRoot(t);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'cpu_manager_state'), '{"policyName":"static","defaultCpuSet":"0-3","checksum":1}');
  await t.rejects(prepareRootDir(root), /configured policy "none" differs from state checkpoint policy "static"/);
});

t.test('allocated and actuated pod records', async (t) => {
  const root = tempRoot(t);
  const layout = await prepareRootDir(root);
  await layout.allocatedPods.record(POD);
  const text = readFileSync(join(root, 'allocated_pods_state'), 'utf8');
  const cp = JSON.parse(text);
  t.same(Object.keys(cp), ['data', 'checksum'], 'upstream\'s checkpoint shape');
  t.same(JSON.parse(cp.data), {
    entries: {
      [POD.metadata.uid]: {
        ContainerResources: { init: { requests: { cpu: '100m' } }, app: { limits: { memory: '128Mi' }, requests: { cpu: '250m', memory: '64Mi' } }, side: {} },
        PodLevelResources: null,
      },
    },
  });
  t.equal(mode(join(root, 'allocated_pods_state')), 0o600);
  t.same(parsePodResourcesState(readFileSync(join(root, 'actuated_pods_state'), 'utf8')), {}, 'actuated only when the runtime applied it');
  await layout.actuatedPods.record(POD);
  t.ok(parsePodResourcesState(readFileSync(join(root, 'actuated_pods_state'), 'utf8'))![POD.metadata.uid]);

  // A restart keeps the records.
  const again = await prepareRootDir(root);
  t.same(Object.keys(again.allocatedPods.entries()), [POD.metadata.uid]);
  await again.allocatedPods.remove(POD.metadata.uid);
  t.same(parsePodResourcesState(readFileSync(join(root, 'allocated_pods_state'), 'utf8')), {});

  await t.rejects(layout.allocatedPods.record({ metadata: {} }), /without metadata\.uid/);
});

t.test('checksums detect tampering', async (t) => {
  const text = podResourcesState({ u: { ContainerResources: { c: {} }, PodLevelResources: null } });
  t.ok(parsePodResourcesState(text));
  const cp = JSON.parse(text);
  cp.data = cp.data.replace('"c"', '"d"');
  t.equal(parsePodResourcesState(JSON.stringify(cp)), undefined);
});

t.test('pod directories', async (t) => {
  const root = tempRoot(t);
  const layout = await prepareRootDir(root);
  const dir = await layout.podDir(POD.metadata.uid);
  t.equal(dir, join(root, 'pods', POD.metadata.uid));
  for (const d of [dir, join(dir, 'volumes'), join(dir, 'plugins')]) t.equal(mode(d), 0o700);
  await layout.removePodDir(POD.metadata.uid);
  t.notOk(existsSync(dir));
  await t.rejects(layout.podDir('../escape'), /invalid pod uid/);
});
