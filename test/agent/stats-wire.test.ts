// The agent's stats and metrics endpoints over HTTPS (reference/agent/stats/), on an in-process agent
// (standalone, anonymous requests allowed) and the mock CRI runtime with pods put straight into it:
// the summary's levels and groups, only_cpu_and_memory, the cadvisor endpoint from the agent's own
// collection and from the runtime with the provider metric and the fallback, the runtime failing,
// volumes, and a fast-check property over paths and queries (never a 500 the runtime did not cause).
import t, { type Test } from 'tap';
import fc from 'fast-check';
import { propertyRuns } from '../helpers/property.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch } from 'undici';
import * as grpc from '@grpc/grpc-js';
import { startMockCri, type MockCri } from '../../mocks/cri/server.js';
import { criClient } from '../../cri/proto.js';
import { startAgent, type RunningAgent } from '../../reference/agent/agent.js';
import { LABEL_POD_NAME, LABEL_POD_NAMESPACE, LABEL_POD_UID, Runtime } from '../../reference/agent/runtime.js';
import { FeatureGates } from '../../reference/features.js';
import { NodeCollector } from '../../reference/agent/stats/node-collector.js';
import { SummaryProvider } from '../../reference/agent/stats/summary.js';
import { parseExposition, samplesOf } from '../../suites/002-metrics-debug/exposition.js';

const IMAGE = 'docker.io/library/busybox:1.36';
const AUTH = { webhook: { enabled: false, cacheTtlMs: 0 }, anonymous: true, authorization: { mode: 'AlwaysAllow' as const, cacheAuthorizedTtlMs: 0, cacheUnauthorizedTtlMs: 0 } };
const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
t.teardown(() => dispatcher.close());

interface Node { dir: string; cri: MockCri; agent: RunningAgent; containers: string[] }

/** A runtime with `pods` pods (ns/p<i>, uid u<i>) of containers c0 and c1, and an agent on it. */
async function node(t: Test, o: { pods?: number; criStats?: boolean } = {}): Promise<Node> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-stats-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cri = await startMockCri({ socket: join(dir, 'cri', 'cri.sock') });
  t.teardown(() => cri.close());
  const c = criClient(cri.criUrl);
  const containers: string[] = [];
  try {
    await c.call('PullImage', { image: { image: IMAGE } });
    for (let i = 0; i < (o.pods ?? 1); i++) {
      const config = {
        metadata: { name: `p${i}`, uid: `u${i}`, namespace: 'ns', attempt: 0 }, log_directory: join(dir, 'root', 'pods', `ns_p${i}_u${i}`),
        labels: { [LABEL_POD_NAME]: `p${i}`, [LABEL_POD_NAMESPACE]: 'ns', [LABEL_POD_UID]: `u${i}` },
      };
      const { pod_sandbox_id } = await c.call('RunPodSandbox', { config });
      for (const name of ['c0', 'c1']) {
        const { container_id } = await c.call('CreateContainer', { pod_sandbox_id, config: { metadata: { name }, image: { image: IMAGE }, command: ['sleep', '3600'], log_path: `${name}/0.log` }, sandbox_config: config });
        await c.call('StartContainer', { container_id });
        containers.push(container_id);
      }
    }
  } finally {
    c.close();
  }
  const agent = await startAgent({
    criEndpoint: cri.criUrl, rootDir: join(dir, 'root'), nodeName: 'n1', auth: AUTH, log: () => undefined,
    featureGates: new FeatureGates({ PodAndContainerStatsFromCRI: o.criStats ?? false }), serve: { address: '127.0.0.1', port: 0 },
  });
  t.teardown(() => agent.close());
  return { dir, cri, agent, containers };
}

async function get(n: Node, path: string, method = 'GET'): Promise<{ status: number; type: string; text: string; json: any }> {
  const res = await fetch(`${n.agent.url}${path}`, { dispatcher, method });
  const text = await res.text();
  let json: any;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, type: res.headers.get('content-type') ?? '', text, json };
}

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

async function provider(n: Node): Promise<Record<string, number>> {
  const exp = parseExposition((await get(n, '/metrics')).text);
  return Object.fromEntries(samplesOf(exp, 'agent_metrics_provider').map((s) => [s.labels['provider'], s.value]));
}

t.test('/stats/summary: node, pods and containers in upstream\'s shape, from the runtime\'s stats', async (t) => {
  const n = await node(t, { pods: 2 });
  const res = await get(n, '/stats/summary');
  t.equal(res.status, 200);
  t.equal(res.type, 'application/json');
  const s = res.json;
  t.equal(s.node.nodeName, 'n1');
  t.match(s.node.startTime, RFC3339);
  for (const g of ['cpu', 'memory', 'network', 'fs', 'rlimit']) t.ok(s.node[g], `node.${g}`);
  t.ok(s.node.runtime?.imageFs?.capacityBytes > 0, 'node.runtime.imageFs from ImageFsInfo and statfs');
  t.ok(s.node.cpu.usageNanoCores !== undefined, 'a usage rate on the first answer (the collector sampled at start)');
  t.equal(s.pods.length, 2);
  const p = s.pods.find((x: any) => x.podRef.name === 'p0');
  t.same(p.podRef, { name: 'p0', namespace: 'ns', uid: 'u0' });
  t.match(p.startTime, RFC3339);
  for (const g of ['cpu', 'memory', 'network', 'ephemeral-storage', 'process_stats', 'io']) t.ok(p[g], `pod.${g}`);
  t.ok(p.process_stats.process_count > 0);
  t.same(p.containers.map((c: any) => c.name).sort(), ['c0', 'c1']);
  const c = p.containers[0];
  for (const g of ['cpu', 'memory', 'rootfs', 'logs', 'io']) t.ok(c[g], `container.${g}`);
  for (const g of ['cpu', 'memory']) t.ok(c[g].psi?.some && c[g].psi?.full, `container ${g}.psi`);
  t.ok(p.cpu.usageCoreNanoSeconds >= c.cpu.usageCoreNanoSeconds, 'the pod counts its containers');
  t.equal(p.volume, undefined, 'no volumes known: none listed');

  const only = (await get(n, '/stats/summary?only_cpu_and_memory=true')).json;
  t.same(Object.keys(only.node).sort(), ['cpu', 'memory', 'nodeName', 'startTime']);
  t.same(Object.keys(only.pods[0]).sort(), ['containers', 'cpu', 'memory', 'podRef', 'startTime']);
  t.same(Object.keys(only.pods[0].containers[0]).sort(), ['cpu', 'memory', 'name', 'startTime']);

  t.equal((await get(n, '/stats/summary', 'POST')).status, 405);
  t.equal((await get(n, '/stats/summary', 'DELETE')).status, 405);
});

t.test('/stats/summary lists running containers only', async (t) => {
  const n = await node(t);
  n.cri.control.exitContainer(n.containers[1]!, 0);
  const p = (await get(n, '/stats/summary')).json.pods[0];
  t.same(p.containers.map((c: any) => c.name), ['c0']);
});

t.test('gate off: /metrics/cadvisor from the agent\'s own collection, provider cadvisor, the runtime\'s metrics never asked', async (t) => {
  const n = await node(t);
  const res = await get(n, '/metrics/cadvisor');
  t.equal(res.status, 200);
  t.match(res.type, /^text\/plain; version=0\.0\.4/);
  const exp = parseExposition(res.text);
  t.same(exp.errors, []);
  const cpu = samplesOf(exp, 'container_cpu_usage_seconds_total');
  t.ok(cpu.some((s) => s.labels['namespace'] === 'ns' && s.labels['pod'] === 'p0' && s.labels['container'] === 'c0'), 'container series with namespace, pod, container');
  t.ok(cpu.some((s) => s.labels['id'] === '/'), 'the root cgroup, from the node collector');
  t.ok(samplesOf(exp, 'machine_cpu_cores')[0]!.value > 0);
  t.ok(samplesOf(exp, 'container_pressure_cpu_waiting_seconds_total').some((s) => s.labels['container'] === 'c0'), 'container PSI');
  t.same(await provider(n), { cri: 0, cadvisor: 1 });
  t.equal(n.cri.control.calls.list({ rpc: 'ListPodSandboxMetrics' }).length, 0);
  t.equal((await get(n, '/metrics/cadvisor', 'POST')).status, 405);
});

t.test('gate on: the runtime\'s metrics, names and labels as it gives them; fallback when it stops; back again', async (t) => {
  const n = await node(t, { criStats: true });
  t.same(await provider(n), { cri: 1, cadvisor: 0 }, 'decided on the first /metrics');
  const exp = parseExposition((await get(n, '/metrics/cadvisor')).text);
  t.same(exp.errors, []);
  t.ok(n.cri.control.calls.list({ rpc: 'ListPodSandboxMetrics' }).length > 0, 'ListPodSandboxMetrics asked');
  t.ok(samplesOf(exp, 'container_cpu_user_seconds_total').some((s) => s.labels['pod'] === 'p0' && s.labels['container'] === 'c0'), 'a family only the runtime has');
  t.ok(samplesOf(exp, 'machine_memory_bytes').length === 1 && samplesOf(exp, 'container_memory_usage_bytes').some((s) => s.labels['id'] === '/'), 'node series still the collector\'s');

  const fault = n.cri.control.faults.add({ rpc: 'ListPodSandboxMetrics', code: grpc.status.UNIMPLEMENTED, message: 'not here' });
  const fallback = parseExposition((await get(n, '/metrics/cadvisor')).text);
  t.equal(samplesOf(fallback, 'container_cpu_user_seconds_total').length, 0, 'no longer the runtime\'s');
  t.ok(samplesOf(fallback, 'container_memory_working_set_bytes').some((s) => s.labels['pod'] === 'p0' && s.labels['container'] === 'c1'), 'pod and container metrics still served');
  t.same(await provider(n), { cri: 0, cadvisor: 1 });
  n.cri.control.faults.remove(fault.id);
  await get(n, '/metrics/cadvisor');
  t.same(await provider(n), { cri: 1, cadvisor: 0 }, 'the runtime reports again: back to it');

  n.cri.control.setMetricsEnabled(false);
  const empty = parseExposition((await get(n, '/metrics/cadvisor')).text);
  t.ok(samplesOf(empty, 'container_cpu_usage_seconds_total').some((s) => s.labels['container'] === 'c0'), 'an empty answer while pods run: own collection');
  t.same(await provider(n), { cri: 0, cadvisor: 1 });
});

t.test('the runtime failing: 500 on the summary with its error, the node still on the metrics endpoints', async (t) => {
  const n = await node(t);
  n.cri.control.faults.add({ rpc: 'ListPodSandboxStats', code: grpc.status.UNAVAILABLE, message: 'runtime down' });
  const s = await get(n, '/stats/summary');
  t.equal(s.status, 500);
  t.match(s.text, /^Internal Error: failed to list pod stats: runtime down/);
  const r = parseExposition((await get(n, '/metrics/resource')).text);
  t.equal(samplesOf(r, 'resource_scrape_error')[0]?.value, 1);
  t.equal(samplesOf(r, 'node_cpu_usage_seconds_total').length, 1);
  t.equal(samplesOf(r, 'container_cpu_usage_seconds_total').length, 0);
  const c = await get(n, '/metrics/cadvisor');
  t.equal(c.status, 200);
  t.equal(samplesOf(parseExposition(c.text), 'machine_cpu_cores').length, 1);
  t.ok(n.agent.url, 'the agent still serves');
});

t.test('volumes of the pod spec: usage of their directories; emptyDir counts towards ephemeral storage', async (t) => {
  const n = await node(t);
  const root = join(n.dir, 'root');
  const data = join(root, 'pods', 'u0', 'volumes', 'kubernetes.io~empty-dir', 'scratch');
  mkdirSync(data, { recursive: true });
  writeFileSync(join(data, 'f'), 'x'.repeat(50_000));
  const runtime = new Runtime(n.cri.criUrl);
  t.teardown(() => runtime.close());
  const pods = [{ metadata: { uid: 'u0' }, spec: { volumes: [{ name: 'scratch', emptyDir: {} }, { name: 'cfg', configMap: { name: 'x' } }, { name: 'remote', nfs: { server: 's', path: '/' } }] } }];
  const provider = new SummaryProvider({ runtime, nodeName: 'n1', rootDir: root, node: new NodeCollector(), pods: () => pods, psi: () => true });
  const p = (await provider.summary()).pods[0]!;
  t.same(p.volume!.map((v) => v.name), ['scratch', 'cfg'], 'node-local volumes only');
  const scratch = p.volume![0]!;
  t.ok(scratch.usedBytes! >= 50_000 && scratch.capacityBytes! > 0 && scratch.inodesUsed === 2, `emptyDir usage ${scratch.usedBytes}`);
  t.same({ used: p.volume![1]!.usedBytes, inodes: p.volume![1]!.inodesUsed }, { used: 0, inodes: 0 }, 'nothing written: nothing used');
  t.ok(p['ephemeral-storage']!.usedBytes! >= 50_000, 'the emptyDir counts towards ephemeral storage');
});

t.test('any path under /stats and /metrics, any query: 200, 404 or 405, never a 500 the runtime did not cause', async (t) => {
  const n = await node(t);
  const segment = fc.stringMatching(/^[A-Za-z0-9._~%-]{0,12}$/);
  const query = fc.array(fc.tuple(fc.constantFrom('only_cpu_and_memory', 'x', ''), fc.string({ maxLength: 8 })), { maxLength: 3 })
    .map((kv) => (kv.length ? `?${kv.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}` : ''));
  await fc.assert(fc.asyncProperty(fc.constantFrom('/stats', '/metrics', '/stats/summary', '/metrics/cadvisor', '/metrics/resource'), fc.array(segment, { maxLength: 2 }), query,
    fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE'), async (base, extra, q, method) => {
      const path = `${[base, ...extra].join('/')}${q}`;
      const res = await get(n, path, method);
      if (![200, 404, 405].includes(res.status)) throw new Error(`${method} ${path}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
    }), propertyRuns(150));
  t.equal((await get(n, '/healthz')).status, 200, 'still healthy');
});
