// Items 1 and 7 as processes: --config and --config-dir drop-ins decide what /configz shows and what
// the agent does (the runtime endpoint from the file, seccompDefault from a drop-in reaching
// CreateContainer, feature gates reaching the Node's declaredFeatures); flags win; a bad file or a
// missing runtime endpoint is a one-line exit 2.
import t from 'tap';
import { execaNode } from 'execa';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from '../helpers/serve.js';
import { startReference } from '../../reference/server.js';
import { startMockCri } from '../../mocks/cri/server.js';
import { ApiClient } from '../../reference/client/api-client.js';

function get(url: string, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('config file and drop-ins drive the agent; flags win', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-wire-cfg-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const ref = await startReference({ port: 0 });
  t.teardown(() => ref.close());
  const cri = await startMockCri({ socket: join(dir, 'cri.sock') });
  t.teardown(() => cri.close());
  const cfgFile = join(dir, 'agent.yaml');
  writeFileSync(cfgFile, [
    'apiVersion: agent.config.orch.io/v1beta1', 'kind: AgentConfiguration',
    `containerRuntimeEndpoint: ${cri.criUrl}`, 'address: 127.0.0.1', 'port: 1', 'syncFrequency: 30s', 'seccompDefault: false',
    'featureGates: {ContainerCheckpoint: false}', '',
  ].join('\n'));
  const dropDir = join(dir, 'conf.d');
  mkdirSync(dropDir);
  writeFileSync(join(dropDir, '10-seccomp.conf'), 'apiVersion: agent.config.orch.io/v1beta1\nkind: AgentConfiguration\nseccompDefault: true\nsyncFrequency: 20s\n');
  writeFileSync(join(dropDir, '20-gates.conf'), 'apiVersion: agent.config.orch.io/v1beta1\nkind: AgentConfiguration\nfeatureGates: {PodAndContainerStatsFromCRI: true}\n');
  writeFileSync(join(dropDir, 'ignored.yaml'), 'not: [valid');

  // This reference authenticates no one: /configz is opened to anonymous requests (auth has its own test).
  const proc = execaNode(BIN, ['agent', '--api', ref.url, '--config', cfgFile, '--config-dir', dropDir, '--root-dir', join(dir, 'root'), '--node-name', 'n1', '--port', '0',
    '--anonymous-auth', '--authorization-mode', 'AlwaysAllow'], { reject: false });
  t.teardown(() => { proc.kill('SIGKILL'); });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (c: Buffer) => { out += c.toString(); if (/^ca: .*\n/m.test(out)) resolve(); });
    proc.on('exit', (code) => reject(new Error(`agent exited ${code}: ${out} ${proc.stderr}`)));
  });
  const url = /^agent: (\S+)$/m.exec(out)![1]!;
  t.match(url, /^https:\/\/127\.0\.0\.1:\d+$/, 'address from the file; the --port flag wins over port: 1');
  const ca = readFileSync(/^ca: (\S+)$/m.exec(out)![1]!, 'utf8');
  const cz = JSON.parse(await get(`${url}/configz`, ca)).agentconfig;
  t.equal(cz.seccompDefault, true, 'drop-in replaces a scalar');
  t.equal(cz.syncFrequency, '20s', 'the later file wins');
  t.same(cz.featureGates, { ContainerCheckpoint: false, PodAndContainerStatsFromCRI: true }, 'maps merge per key');
  t.equal(cz.port, 0, 'flag wins');
  t.equal(cz.containerRuntimeEndpoint, cri.criUrl, 'runtime endpoint from the file');

  const api = new ApiClient({ url: ref.url });
  t.teardown(() => api.close());
  const node = await api.get('/api/v1/nodes/n1');
  t.same(node.status.declaredFeatures, ['ComponentFlagz', 'ComponentStatusz', 'DRAWorkloadResourceClaims', 'NativeHistograms', 'PodAndContainerStatsFromCRI'],
    'declaredFeatures: enabled non-GA gates, sorted (ContainerCheckpoint off, GA gates absent)');

  await api.create('/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1', namespace: 'default' },
    spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'] }] } });
  const deadline = Date.now() + 10_000;
  let create: any;
  while (!create && Date.now() < deadline) {
    create = cri.control.calls.list({ rpc: 'CreateContainer' })[0];
    if (!create) await new Promise((r) => setTimeout(r, 50));
  }
  t.equal(create?.request.config.linux.security_context.seccomp.profile_type, 'RuntimeDefault', 'seccompDefault from the drop-in reaches CreateContainer');
  proc.kill('SIGTERM');
  t.equal((await proc).exitCode, 0);
});

t.test('configuration errors are one line, exit 2', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-wire-cfgerr-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const bad = join(dir, 'bad.yaml');
  writeFileSync(bad, 'apiVersion: agent.config.orch.io/v1beta1\nkind: AgentConfiguration\ncontainerRuntimeEndpoint: unix:///x\nsyncFrequncy: 1s\n');
  const r1 = await execaNode(BIN, ['agent', '--config', bad, '--root-dir', join(dir, 'root')], { reject: false });
  t.equal(r1.exitCode, 2);
  t.match(r1.stderr, bad, 'names the file');
  t.match(r1.stderr, /syncFrequncy/, 'names the field');
  t.equal(r1.stderr.trim().split('\n').length, 1, 'one line');

  const noRuntime = join(dir, 'empty.yaml');
  writeFileSync(noRuntime, 'apiVersion: agent.config.orch.io/v1beta1\nkind: AgentConfiguration\nport: 0\n');
  const r2 = await execaNode(BIN, ['agent', '--config', noRuntime, '--root-dir', join(dir, 'root')], { reject: false });
  t.equal(r2.exitCode, 2);
  t.match(r2.stderr, /--container-runtime-endpoint is required/);

  const r3 = await execaNode(BIN, ['agent', '--container-runtime-endpoint', 'unix:///x', '--feature-gates', 'NodeDeclaredFeatures=false', '--root-dir', join(dir, 'root')], { reject: false });
  t.equal(r3.exitCode, 2);
  t.match(r3.stderr, /NodeDeclaredFeatures/, 'a locked gate is refused');
});
