// The whole control plane as a user meets it: `serve` (API server, controller manager, scheduler),
// `mock-cri` and `agent` started from the CLI, driven with the machine's real kubectl. A pod created
// without nodeName ends up Running on the agent's node; a gang PodGroup of minCount 3 has nothing bound
// until its third pod exists; an EvictionRequest gets its pod evicted and reports TargetEvicted.
import t from 'tap';
import { execaNode, type ResultPromise } from 'execa';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, startServe } from './helpers/serve.js';
import { kubectlAgainst } from './helpers/kubectl.js';

/** Starts `orch-conformance <args>` and resolves with the first match of each pattern in its output. */
function startCli(t: { teardown(fn: () => void): void }, args: readonly string[], wanted: readonly RegExp[]): Promise<{ proc: ResultPromise; found: string[] }> {
  const proc = execaNode(BIN, args, { reject: false });
  t.teardown(() => { proc.kill('SIGTERM'); });
  return new Promise((resolve, reject) => {
    let out = '';
    const check = () => {
      const found = wanted.map((re) => re.exec(out)?.[1]);
      if (found.every((f) => f !== undefined)) resolve({ proc, found: found as string[] });
    };
    proc.stdout!.on('data', (c: Buffer) => { out += c.toString(); check(); });
    proc.stderr!.on('data', (c: Buffer) => { out += c.toString(); });
    proc.on('exit', () => reject(new Error(`${args[0]} exited: ${out}`)));
  });
}

const yaml = (dir: string, name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

t.test('serve + mock-cri + agent, with kubectl', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-cp-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const serve = await startServe(t, ['--feature-gates', 'GenericWorkload=true']);
  const cri = await startCli(t, ['mock-cri', '--socket', join(dir, 'cri', 'cri.sock'), '--root', join(dir, 'cri-state')], [/^cri: (\S+)$/m]);
  await startCli(t, ['agent', '--api', serve.url, '--ca', serve.ca!, '--container-runtime-endpoint', cri.found[0]!, '--hostname-override', 'kc-node', '--node-ip', '127.0.0.1', '--port', '0', '--root-dir', join(dir, 'root')], [/^agent: (\S+)$/m]);
  const { kubectl } = kubectlAgainst(t, serve.url, { ca: serve.ca });
  const ok = async (args: string[], what: string) => {
    const r = await kubectl(...args);
    t.equal(r.exitCode, 0, `${what}${r.exitCode ? `: ${r.stderr}` : ''}`);
    return String(r.stdout);
  };
  await ok(['wait', '--for=condition=Ready', 'node/kc-node', '--timeout=30s'], 'the agent\'s node is Ready');

  t.test('a pod created without nodeName ends up Running on the agent\'s node', async (t) => {
    await ok(['create', '-f', yaml(dir, 'pod.yaml', 'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: c, image: docker.io/library/busybox:1.36}]\n')], 'kubectl create pod');
    await ok(['wait', '--for=jsonpath={.status.phase}=Running', 'pod/web', '--timeout=30s'], 'the pod is Running');
    t.equal(await ok(['get', 'pod', 'web', '-o', 'jsonpath={.spec.nodeName}'], 'read nodeName'), 'kc-node', 'bound to the agent\'s node by the scheduler');
  });

  t.test('a gang of minCount 3: nothing bound before the third pod exists, then all three', async (t) => {
    await ok(['create', '-f', yaml(dir, 'group.yaml', 'apiVersion: scheduling.orch.io/v1beta1\nkind: PodGroup\nmetadata: {name: gang}\nspec:\n  schedulingPolicy: {gang: {minCount: 3}}\n')], 'kubectl create podgroup');
    const member = (n: number) => yaml(dir, `m${n}.yaml`, `apiVersion: v1\nkind: Pod\nmetadata: {name: member-${n}}\nspec:\n  schedulingGroup: {podGroupName: gang}\n  containers: [{name: c, image: docker.io/library/busybox:1.36}]\n`);
    await ok(['create', '-f', member(1)], 'create member 1');
    await ok(['create', '-f', member(2)], 'create member 2');
    // The scheduler reacts in milliseconds; give it a moment to do the wrong thing, then look.
    const notBound = await kubectl('wait', '--for=jsonpath={.spec.nodeName}=kc-node', 'pod/member-1', 'pod/member-2', '--timeout=3s');
    t.not(notBound.exitCode, 0, 'neither member is bound while only two of three exist');
    await ok(['create', '-f', member(3)], 'create member 3');
    await ok(['wait', '--for=jsonpath={.spec.nodeName}=kc-node', 'pod/member-1', 'pod/member-2', 'pod/member-3', '--timeout=30s'], 'all three bound once the third exists');
    await ok(['wait', '--for=condition=PodGroupInitiallyScheduled', 'podgroup/gang', '--timeout=30s'], 'the PodGroup reports PodGroupInitiallyScheduled');
  });

  t.test('an EvictionRequest gets its pod evicted and reports TargetEvicted', async (t) => {
    await ok(['create', '-f', yaml(dir, 'victim.yaml', 'apiVersion: v1\nkind: Pod\nmetadata: {name: victim}\nspec:\n  containers: [{name: c, image: docker.io/library/busybox:1.36}]\n')], 'create the pod');
    await ok(['wait', '--for=jsonpath={.status.phase}=Running', 'pod/victim', '--timeout=30s'], 'the pod runs');
    const uid = await ok(['get', 'pod', 'victim', '-o', 'jsonpath={.metadata.uid}'], 'read its uid');
    await ok(['create', '-f', yaml(dir, 'er.yaml', `apiVersion: lifecycle.orch.io/v1alpha1\nkind: EvictionRequest\nmetadata: {name: evict-victim}\nspec:\n  requester: example.com/drainer\n  intent: Eviction\n  target: {pod: {name: victim, uid: ${uid}}}\n`)], 'create the EvictionRequest');
    await ok(['wait', '--for=delete', 'pod/victim', '--timeout=30s'], 'the pod is evicted');
    await ok(['wait', '--for=condition=TargetEvicted', 'evictionrequest/evict-victim', '--timeout=30s'], 'TargetEvicted is True');
  });
});
