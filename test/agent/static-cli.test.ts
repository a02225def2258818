// Static pods through the command line, in standalone mode (no control plane, no API call): the
// config file's staticPodPath reaches the agent, a manifest dropped there runs in the runtime, and
// removing the file stops and removes it.
import t from 'tap';
import { execaNode } from 'execa';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from '../helpers/serve.js';
import { startMockCri } from '../../mocks/cri/server.js';

/** Polls `check` every 50 ms until it holds or `ms` pass. */
async function until(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('standalone agent: --config staticPodPath runs a manifest and removes it with its file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-static-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cri = await startMockCri({ socket: join(dir, 'cri.sock') });
  t.teardown(() => cri.close());
  const manifests = join(dir, 'manifests');
  mkdirSync(manifests);
  const cfgFile = join(dir, 'agent.yaml');
  writeFileSync(cfgFile, [
    'apiVersion: agent.config.orch.io/v1beta1', 'kind: AgentConfiguration',
    `containerRuntimeEndpoint: ${cri.criUrl}`, `staticPodPath: ${manifests}`, 'fileCheckFrequency: 1s', '',
  ].join('\n'));
  const proc = execaNode(BIN, ['agent', '--config', cfgFile, '--root-dir', join(dir, 'root'), '--node-name', 'n1', '--address', '127.0.0.1', '--port', '0'], { reject: false });
  t.teardown(() => { proc.kill('SIGKILL'); });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (c: Buffer) => { out += c.toString(); if (/^agent: /m.test(out)) resolve(); });
    proc.on('exit', (code) => reject(new Error(`agent exited ${code}: ${out}`)));
  });

  const manifest = join(manifests, 'web.yaml');
  writeFileSync(manifest, [
    'apiVersion: v1', 'kind: Pod', 'metadata: {name: web}',
    'spec: {containers: [{name: app, image: busybox, command: ["sleep", "3600"]}]}', '',
  ].join('\n'));
  const running = () => (cri.control.state().containers as any[]).filter((c) => c.state === 'CONTAINER_RUNNING');
  await until('the static pod\'s container runs', () => running().length === 1);
  const sandbox = (cri.control.state().sandboxes as any[])[0];
  t.equal(sandbox?.metadata?.name, 'web-n1', 'static pod name is <name>-<node>');
  t.equal(cri.control.calls.list({}).filter((c) => c.rpc === 'RunPodSandbox').length, 1, 'one sandbox');

  unlinkSync(manifest);
  await until('containers and sandbox removed', () => cri.control.state().containers.length === 0 && cri.control.state().sandboxes.length === 0);
  t.pass('removing the manifest removed the pod from the runtime');
  proc.kill('SIGTERM');
  t.equal((await proc).exitCode, 0);
});
