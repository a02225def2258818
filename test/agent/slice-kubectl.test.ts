// Acceptance of the agent slice as users run it: `serve`, `mock-cri` and `agent` as processes; a pod
// created with kubectl on the agent's node reaches Running with its containers in the mock's call log,
// and deleting it with kubectl removes the runtime's containers and sandbox and the pod.
import t from 'tap';
import { execaNode } from 'execa';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, startServe } from '../helpers/serve.js';
import { kubectlAgainst } from '../helpers/kubectl.js';

function controlGet(socketPath: string, path: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, method: 'GET' }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Starts a bin command and resolves with its stdout once `line` matched. */
function startBin(t: any, args: string[], line: RegExp): Promise<{ proc: ReturnType<typeof execaNode>; out: string }> {
  const proc = execaNode(BIN, args, { reject: false });
  t.teardown(() => { proc.kill('SIGKILL'); });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (line.test(out)) resolve({ proc, out });
    });
    proc.on('exit', () => reject(new Error(`${args[0]} exited: ${out} ${proc.stderr ? '' : ''}`)));
  });
}

async function until<T>(what: string, f: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

t.test('serve + mock-cri + agent: a kubectl pod runs on the node and is removed on delete', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-accept-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const serve = await startServe(t, ['--plain-http']);
  const socket = join(dir, 'run', 'cri.sock');
  const control = join(dir, 'run', 'control.sock');
  await startBin(t, ['mock-cri', '--socket', socket, '--control', control], /^control: /m);
  const agent = await startBin(t, ['agent', '--api', serve.url, '--container-runtime-endpoint', `unix://${socket}`, '--root-dir', join(dir, 'root'), '--node-name', 'n1', '--address', '127.0.0.1', '--port', '0'], /^ca: .*\n/m);
  t.match(agent.out, /^node: n1\nagent: https:\/\/127\.0\.0\.1:\d+\nca: \S+\n$/, 'prints the node once registered, then its endpoints');

  const { kubectl } = kubectlAgainst(t, serve.url);
  const node = await kubectl('get', 'node', 'n1', '-o', 'json');
  t.equal(node.exitCode, 0, node.stderr);
  t.equal(JSON.parse(node.stdout).status.conditions.find((c: any) => c.type === 'Ready')?.status, 'True', 'node Ready');

  const manifest = join(dir, 'pod.yaml');
  writeFileSync(manifest, [
    'apiVersion: v1', 'kind: Pod', 'metadata: {name: web, namespace: default}',
    'spec:', '  nodeName: n1', '  containers:', '  - {name: main, image: busybox, command: ["sleep", "3600"]}', '',
  ].join('\n'));
  const created = await kubectl('create', '-f', manifest);
  t.equal(created.exitCode, 0, created.stderr);

  const pod = await until('the pod Running with ready containers', async () => {
    const r = await kubectl('get', 'pod', 'web', '-o', 'json');
    const p = r.exitCode === 0 ? JSON.parse(r.stdout) : undefined;
    return p?.status?.phase === 'Running' && p.status.containerStatuses?.every((c: any) => c.ready) ? p : undefined;
  });
  const uid = pod.metadata.uid;
  const calls = (await controlGet(control, '/calls')).calls as any[];
  const sandbox = calls.find((c) => c.rpc === 'RunPodSandbox' && c.request.config.metadata.uid === uid);
  t.ok(sandbox, 'RunPodSandbox for the pod');
  t.ok(calls.find((c) => c.rpc === 'CreateContainer' && c.request.config.labels['io.orch.pod.uid'] === uid && c.request.config.metadata.name === 'main'), 'CreateContainer for its container');
  t.ok(calls.some((c) => c.rpc === 'StartContainer'), 'StartContainer');
  const state = await controlGet(control, '/state');
  t.equal(state.containers.length, 1, 'one container in the runtime');

  const deleted = await kubectl('delete', 'pod', 'web', '--wait=true');
  t.equal(deleted.exitCode, 0, deleted.stderr);
  await until('the runtime emptied', async () => {
    const s = await controlGet(control, '/state');
    return s.containers.length === 0 && s.sandboxes.length === 0 ? true : undefined;
  });
  const after = (await controlGet(control, '/calls')).calls.map((c: any) => c.rpc);
  for (const rpc of ['StopContainer', 'RemoveContainer', 'StopPodSandbox', 'RemovePodSandbox']) t.ok(after.includes(rpc), rpc);
  const gone = await kubectl('get', 'pod', 'web');
  t.not(gone.exitCode, 0, 'pod gone');
  t.match(gone.stderr, /NotFound|not found/);

  agent.proc.kill('SIGTERM');
  const r = await agent.proc;
  t.equal(r.exitCode, 0, `agent stops cleanly on SIGTERM: ${r.stderr}`);
});

t.test('agent: usage errors are one line, exit 2; --help lists the flags', async (t) => {
  const missing = await execaNode(BIN, ['agent'], { reject: false });
  t.equal(missing.exitCode, 2);
  t.match(missing.stderr, /^orch-conformance: --container-runtime-endpoint is required/);
  const dir = mkdtempSync(join(tmpdir(), 'agent-usage-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const noRuntime = await execaNode(BIN, ['agent', '--container-runtime-endpoint', `unix://${join(dir, 'none.sock')}`, '--root-dir', join(dir, 'root')], { reject: false, timeout: 60_000 });
  t.equal(noRuntime.exitCode, 2, noRuntime.stderr);
  t.match(noRuntime.stderr, /^orch-conformance: cannot start the agent: cannot reach the container runtime at [^\n]+$/);
  const help = await execaNode(BIN, ['agent', '--help'], { reject: false });
  for (const f of ['--kubeconfig', '--api', '--token-file', '--ca', '--container-runtime-endpoint', '--image-service-endpoint', '--root-dir', '--hostname-override', '--node-name', '--port', '--address', '--feature-gates', '--config', '--config-dir', '--cert-dir', '--lock-file']) {
    t.match(help.stdout, f, f);
  }
});
