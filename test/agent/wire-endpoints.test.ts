// Item 5: the agent's HTTPS endpoints. As a process: a generated certificate in <root>/pki (key 0600),
// `agent:` and `ca:` printed after `node:`, and /healthz, /pods, /configz, /statusz, /flagz, /metrics
// answered over HTTPS verified with the printed CA. In-process: the syncloop check fails once the PLEG
// has not relisted within its threshold.
import t from 'tap';
import { execaNode } from 'execa';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from '../helpers/serve.js';
import { startReference } from '../../reference/server.js';
import { startMockCri } from '../../mocks/cri/server.js';
import { ApiClient } from '../../reference/client/api-client.js';
import { startAgent } from '../../reference/agent/agent.js';

function get(url: string, ca: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; type?: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body, type: res.headers['content-type'] }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function until<T>(what: string, f: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

t.test('agent process: HTTPS endpoints with a generated certificate', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-wire-ep-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const ref = await startReference({ port: 0 });
  t.teardown(() => ref.close());
  const cri = await startMockCri({ socket: join(dir, 'cri.sock') });
  t.teardown(() => cri.close());
  const root = join(dir, 'root');
  // This reference authenticates no one: the endpoints are opened to anonymous requests (auth has its own test).
  const proc = execaNode(BIN, ['agent', '--api', ref.url, '--container-runtime-endpoint', cri.criUrl, '--root-dir', root,
    '--node-name', 'n1', '--address', '127.0.0.1', '--port', '0', '--anonymous-auth', '--authorization-mode', 'AlwaysAllow'], { reject: false });
  t.teardown(() => { proc.kill('SIGKILL'); });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (c: Buffer) => { out += c.toString(); if (/^ca: .*\n/m.test(out)) resolve(); });
    proc.on('exit', (code) => reject(new Error(`agent exited ${code}: ${out}`)));
  });
  const m = /^node: n1\nagent: (https:\/\/127\.0\.0\.1:(\d+))\nca: (\S+)\n$/.exec(out);
  t.ok(m, `prints node, agent URL and CA in order: ${JSON.stringify(out)}`);
  const [, url, port, caFile] = m!;
  t.equal(caFile, join(root, 'pki', 'agent-ca.crt'), 'CA in <root>/pki');
  t.equal(statSync(join(root, 'pki', 'agent.key')).mode & 0o777, 0o600, 'key 0600');
  t.equal(statSync(join(root, 'pki')).mode & 0o777, 0o700, 'pki 0700');
  const ca = readFileSync(caFile!, 'utf8');

  const healthz = await get(`${url}/healthz`, ca);
  t.same([healthz.status, healthz.body], [200, 'ok'], '/healthz ok');
  const verbose = await get(`${url}/healthz?verbose`, ca);
  t.match(verbose.body, /\[\+\]ping ok\n\[\+\]log ok\n\[\+\]syncloop ok\n/, '/healthz?verbose lists ping, log, syncloop');
  t.equal((await get(`${url}/healthz/syncloop`, ca)).status, 200, 'single check');
  t.equal((await get(`${url}/livez`, ca)).status, 200, '/livez');
  t.equal((await get(`${url}/readyz`, ca)).status, 200, '/readyz');

  const configz = JSON.parse((await get(`${url}/configz`, ca)).body);
  t.equal(configz.agentconfig.port, 0, '/configz shows the port flag');
  t.equal(configz.agentconfig.address, '127.0.0.1');
  t.equal(configz.agentconfig.containerRuntimeEndpoint, cri.criUrl);
  t.notOk('rootDir' in configz.agentconfig, 'flag-only rootDir is not served');

  const statusz = await get(`${url}/statusz`, ca, { Accept: 'text/plain' });
  t.equal(statusz.status, 200);
  t.match(statusz.body, /orch-agent/, '/statusz names the agent');
  t.match(statusz.body, /\/pods/, '/statusz lists /pods');
  const flagz = await get(`${url}/flagz`, ca, { Accept: 'text/plain' });
  t.match(flagz.body, /node-name=n1/, '/flagz shows the flags');
  t.notMatch(flagz.body, /token=/, 'no token in /flagz');
  const metrics = await get(`${url}/metrics`, ca, { Accept: 'text/plain' });
  t.equal(metrics.status, 200);
  t.match(metrics.body, /orch_feature_enabled/, '/metrics serves the component metrics');
  t.equal((await get(`${url}/metrics/slis`, ca)).status, 200, '/metrics/slis');
  t.equal((await get(`${url}/nope`, ca)).status, 404);

  // /pods lists the pods the agent runs.
  const api = new ApiClient({ url: ref.url });
  t.teardown(() => api.close());
  await api.create('/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1', namespace: 'default' },
    spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'] }] } });
  const list = await until('the pod in /pods', async () => {
    const l = JSON.parse((await get(`${url}/pods`, ca)).body);
    return l.items.some((p: any) => p.metadata.name === 'p1') ? l : undefined;
  });
  t.equal(list.kind, 'PodList');
  t.equal(list.apiVersion, 'v1');
  const node = await api.get('/api/v1/nodes/n1');
  t.equal(node.status.daemonEndpoints.agentEndpoint.Port, Number(port), 'the Node publishes the bound port');

  proc.kill('SIGTERM');
  const r = await proc;
  t.equal(r.exitCode, 0, 'stops cleanly on SIGTERM');

  // A restart reuses the pair and prints no ca: line.
  const again = execaNode(BIN, ['agent', '--container-runtime-endpoint', cri.criUrl, '--root-dir', root, '--node-name', 'n1', '--address', '127.0.0.1', '--port', '0'], { reject: false });
  t.teardown(() => { again.kill('SIGKILL'); });
  let out2 = '';
  await new Promise<void>((resolve, reject) => {
    again.stdout!.on('data', (c: Buffer) => { out2 += c.toString(); if (/^agent: .*\n/m.test(out2)) resolve(); });
    again.on('exit', (code) => reject(new Error(`agent exited ${code}: ${out2}`)));
  });
  t.notMatch(out2, /^ca: /m, 'no ca: line when the pair is reused');
  const url2 = /^agent: (\S+)$/m.exec(out2)![1]!;
  t.equal((await get(`${url2}/healthz`, ca)).status, 200, 'the reused certificate verifies with the same CA');
  again.kill('SIGTERM');
  t.equal((await again).exitCode, 0);
});

t.test('syncloop fails when the PLEG has not relisted within the threshold', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-wire-pleg-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cri = await startMockCri({ socket: join(dir, 'cri.sock') });
  let criClosed = false;
  t.teardown(() => { if (!criClosed) return cri.close(); });
  const agent = await startAgent({
    criEndpoint: cri.criUrl, rootDir: join(dir, 'root'), nodeName: 'n1', relistPeriodMs: 50, plegThresholdMs: 400,
    serve: { address: '127.0.0.1', port: 0 }, log: () => {},
  });
  t.teardown(() => agent.close());
  const ca = readFileSync(agent.caFile!, 'utf8');
  t.equal((await get(`${agent.url}/healthz`, ca)).status, 200, 'healthy while the PLEG relists');
  t.equal(await agent.healthy(), true);
  await cri.close();
  criClosed = true;
  const failed = await until('/healthz to fail', async () => {
    const r = await get(`${agent.url}/healthz?verbose`, ca);
    return r.status === 500 ? r : undefined;
  });
  t.match(failed.body, /\[-\]syncloop failed/, 'syncloop is the failing check');
  t.match((await get(`${agent.url}/healthz/syncloop`, ca)).body, /PLEG is not healthy: pleg was last seen active .* ago; threshold is 0\.4s/);
  t.equal(await agent.healthy(), false);
});
