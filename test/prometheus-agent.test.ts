// Real Prometheus against the reference agent (spec 002 §4): the agent's /metrics, /metrics/cadvisor,
// /metrics/resource and /metrics/slis scraped over HTTPS with the run's bearer token and the agent's
// CA, as an operator configures a scrape of a node; every target up, the pod's series ingested.
// `promtool check metrics` lints each exposition. The agent authenticates the token with TokenReview
// and authorizes `nodes/metrics` with SubjectAccessReview against the reference control plane, as
// the embedded run starts them. Without Prometheus these tests fail rather than skip (CI installs it).
import t, { type Test } from 'tap';
import { execa } from 'execa';
import { startEmbeddedNode, startEmbeddedTarget } from '../runner/embedded.js';
import { ApiClient, createDispatcher, type TargetConnection } from '../runner/client.js';
import { hasBinary, startPrometheus } from './helpers/prometheus.js';

const PATHS = { agent: '/metrics', cadvisor: '/metrics/cadvisor', resource: '/metrics/resource', slis: '/metrics/slis' } as const;
const RUN = `pm${process.pid % 10000}`;
const POD = 'prom-stats';
const NAMESPACE = 'default';

/** Control plane, mock runtime and the reference agent, with one pod running on the agent's node. */
async function node(t: Test): Promise<{ agent: TargetConnection; nodeName: string }> {
  const target = await startEmbeddedTarget({ overrides: {}, facts: [] }, { runId: RUN, auth: true });
  t.teardown(() => target.close());
  const started = await startEmbeddedNode(target.group, RUN);
  t.teardown(() => started.close());
  const { agent } = started.node;
  if (!agent) throw new Error('the embedded node has no agent');
  const dispatcher = createDispatcher(target.group.conn);
  t.teardown(() => dispatcher.close());
  const api = new ApiClient(target.group.conn, dispatcher);
  const created = await api.post(`/api/v1/namespaces/${NAMESPACE}/pods`, {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: POD, namespace: NAMESPACE },
    spec: { nodeName: agent.nodeName, terminationGracePeriodSeconds: 1, containers: [{ name: 'c', image: 'docker.io/library/busybox:1.36', command: ['sleep', '3600'] }] },
  });
  if (created.status >= 300) throw new Error(`create pod: HTTP ${created.status} ${created.text}`);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const p = await api.get(`/api/v1/namespaces/${NAMESPACE}/pods/${POD}`);
    if (p.json?.status?.phase === 'Running') break;
    if (Date.now() > deadline) throw new Error(`the pod did not run within 20 s: ${JSON.stringify(p.json?.status)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  // The SLIs record health checks as they are run: one /healthz gives them samples.
  const agentDispatcher = createDispatcher(agent.conn);
  t.teardown(() => agentDispatcher.close());
  const healthz = await new ApiClient(agent.conn, agentDispatcher).get('/healthz');
  if (healthz.status !== 200) throw new Error(`the agent's /healthz: HTTP ${healthz.status}`);
  return { agent: agent.conn, nodeName: agent.nodeName };
}

t.test('promtool check metrics finds each of the agent\'s expositions clean', async (t) => {
  if (!(await hasBinary('promtool'))) return void t.fail('promtool is not on PATH: install the Debian package `prometheus` (CI does)');
  const { agent } = await node(t);
  const dispatcher = createDispatcher(agent);
  t.teardown(() => dispatcher.close());
  const client = new ApiClient(agent, dispatcher);
  for (const path of Object.values(PATHS)) {
    const res = await client.get(path, { headers: { accept: 'text/plain;version=0.0.4' } });
    t.equal(res.status, 200, `GET ${path} with the run's token`);
    const r = await execa('promtool', ['check', 'metrics'], { input: res.text, reject: false, timeout: 30_000 });
    t.equal(r.exitCode, 0, `promtool exit code for ${path}`);
    t.equal(`${r.stdout}${r.stderr}`.trim(), '', `promtool reports nothing for ${path}`);
  }
});

t.test('Prometheus scrapes the agent\'s four metrics endpoints over HTTPS with a bearer token', async (t) => {
  if (!(await hasBinary('prometheus'))) return void t.fail('prometheus is not on PATH: install the Debian package `prometheus` (CI does)');
  const { agent } = await node(t);
  const targets = Object.fromEntries(Object.entries(PATHS).map(([job, path]) => [`agent-${job}`, { url: agent.baseUrl, caPem: agent.caPem, bearerToken: agent.token, metricsPath: path }]));
  const prom = await startPrometheus(t, targets, true);

  const provider = await prom.until('agent_metrics_provider{job="agent-agent"} == 1', (r) => r.length === 1, 'the provider in use');
  t.equal(provider[0].metric.provider, 'cadvisor', 'gate off: the agent\'s own collection');
  const cpu = await prom.until(`container_cpu_usage_seconds_total{job="agent-cadvisor",pod="${POD}",container="c"}`, (r) => r.length === 1, 'the pod\'s container on /metrics/cadvisor');
  t.equal(cpu[0].metric.namespace, NAMESPACE);
  await prom.until('machine_memory_bytes{job="agent-cadvisor"} > 0', (r) => r.length === 1, 'machine memory');
  await prom.until(`container_memory_working_set_bytes{job="agent-resource",pod="${POD}",container="c"} > 0`, (r) => r.length === 1, 'the container on /metrics/resource');
  await prom.until('node_cpu_usage_seconds_total{job="agent-resource"} > 0', (r) => r.length === 1, 'the node on /metrics/resource');
  await prom.until('resource_scrape_error{job="agent-resource"} == 0', (r) => r.length === 1, 'no scrape error');
  await prom.until('orch_healthcheck{job="agent-slis",name="ping"} == 1', (r) => r.length === 1, 'the SLIs');

  const targetsNow = (await (await fetch(`${prom.url}/api/v1/targets`)).json()) as { data: { activeTargets: { health: string; lastError: string; labels: { job: string } }[] } };
  t.equal(targetsNow.data.activeTargets.length, 4, 'four targets');
  for (const tg of targetsNow.data.activeTargets) t.same({ job: tg.labels.job, health: tg.health, lastError: tg.lastError }, { job: tg.labels.job, health: 'up', lastError: '' }, `${tg.labels.job} scrapes cleanly`);
});
