// Admission through the agent (issue 11): rejected pods get phase Failed with upstream's reason and
// "Pod was rejected: <message>" through the status subresource and no CRI call at all, even on delete;
// an admitted pod still runs. And spec.unschedulable: the agent invents no SchedulingDisabled condition.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReference } from '../../reference/server.js';
import { startMockCri } from '../../mocks/cri/server.js';
import { ApiClient, isNotFound } from '../../reference/client/api-client.js';
import { startAgent } from '../../reference/agent/agent.js';
import { PodWorkers } from '../../reference/agent/pod-workers.js';
import { Runtime } from '../../reference/agent/runtime.js';
import { until } from './helpers.js';

async function setup(t: any) {
  const ref = await startReference({ port: 0 });
  t.teardown(() => ref.close());
  const dir = mkdtempSync(join(tmpdir(), 'agent-admit-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cri = await startMockCri({ socket: join(dir, 'cri.sock') });
  t.teardown(() => cri.close());
  const api = new ApiClient({ url: ref.url });
  t.teardown(() => api.close());
  const mk = (name: string, spec: object) => api.create('/api/v1/namespaces/default/pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
    spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'] }], ...spec },
  });
  const get = (name: string) => api.get(`/api/v1/namespaces/default/pods/${name}`);
  /** CRI calls about this pod: every request the agent makes for a pod carries its uid. */
  const callsFor = (p: any) => (cri.control.calls.list() as any[]).filter((c) => JSON.stringify(c.request).includes(p.metadata.uid));
  return { ref, cri, api, dir, mk, get, callsFor };
}

const failed = (get: (n: string) => Promise<any>, name: string) =>
  until(`${name} Failed`, async () => { const p = await get(name); return p.status?.phase === 'Failed' ? p : undefined; });

t.test('the agent rejects with upstream reasons, runs what it admits', async (t) => {
  const { ref, cri, api, dir, mk, get, callsFor } = await setup(t);
  const agent = await startAgent({
    api: { url: ref.url }, criEndpoint: cri.criUrl, rootDir: join(dir, 'root'), nodeName: 'n1',
    relistPeriodMs: 100, backoffBaseMs: 200, backoffMaxMs: 1000, log: () => {},
  });
  t.teardown(() => agent.close());

  const selector = await mk('selector', { nodeSelector: { 'disk': 'ssd' } });
  const cpu = await mk('cpu', { containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'], resources: { requests: { cpu: '100000' } } }] });
  const sysctl = await mk('sysctl', { securityContext: { sysctls: [{ name: 'net.core.somaxconn', value: '1024' }] } });
  const ok = await mk('ok', { securityContext: { sysctls: [{ name: 'net.ipv4.ip_local_port_range', value: '1024 65000' }] },
    containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'], resources: { requests: { cpu: '10m', memory: '1Mi' } } }] });

  const s1 = (await failed(get, 'selector')).status;
  t.equal(s1.reason, 'NodeAffinity');
  t.equal(s1.message, "Pod was rejected: Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector");
  const s2 = (await failed(get, 'cpu')).status;
  t.equal(s2.reason, 'OutOfcpu');
  t.match(s2.message, /^Pod was rejected: Node didn't have enough resource: cpu, requested: 100000000, used: \d+, capacity: \d+$/);
  const s3 = (await failed(get, 'sysctl')).status;
  t.equal(s3.reason, 'SysctlForbidden');
  t.equal(s3.message, 'Pod was rejected: forbidden sysctl: "net.core.somaxconn" not allowlisted');

  await until('ok running', async () => ((await get('ok')).status?.phase === 'Running' ? true : undefined));
  t.ok(callsFor(ok).some((c: any) => c.rpc === 'RunPodSandbox'), 'the admitted pod reached the runtime');
  for (const p of [selector, cpu, sysctl]) t.same(callsFor(p).map((c: any) => c.rpc), [], `${p.metadata.name}: no CRI call`);

  // A rejected pod's deletion completes without the runtime: the agent's final delete removes it.
  await api.delete('/api/v1/namespaces/default/pods/selector', { gracePeriodSeconds: 30 });
  await until('selector gone', async () => (await get('selector').then(() => undefined, (e) => (isNotFound(e) ? true : undefined))));
  t.same(callsFor(selector).map((c: any) => c.rpc), [], 'still no CRI call after the delete');

  // The Node gains the label: a new pod with that selector is admitted (admission reads the Node).
  await api.patch('/api/v1/nodes/n1', { metadata: { labels: { disk: 'ssd' } } });
  await mk('selector2', { nodeSelector: { disk: 'ssd' } });
  await until('selector2 running', async () => ((await get('selector2')).status?.phase === 'Running' ? true : undefined));
  t.equal((await get('selector2')).status.reason, undefined);
});

t.test('pod workers: kernel table and pod count through the status subresource', async (t) => {
  const { cri, api, dir, mk, get, callsFor } = await setup(t);
  await api.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
  await api.patchStatus('/api/v1/nodes/n1', { status: { allocatable: { cpu: '4', memory: '4Gi', pods: '2' }, capacity: { cpu: '4', memory: '4Gi', pods: '2' } } });
  const runtime = new Runtime(cri.criUrl);
  t.teardown(() => runtime.close());
  const workers = new PodWorkers({ api, runtime, runtimeName: () => 'mock', nodeName: 'n1', rootDir: join(dir, 'root'), kernelRelease: '4.4.0-generic' });
  t.teardown(() => workers.close());
  const watch = api.watch('/api/v1/pods', {
    fieldSelector: 'spec.nodeName=n1', onList: (items) => workers.setAll(items),
    onEvent: (ev) => (ev.type === 'DELETED' ? workers.remove(ev.object) : workers.update(ev.object)),
  });
  t.teardown(() => watch.stop());
  await watch.synced;

  const old = await mk('keepalive', { securityContext: { sysctls: [{ name: 'net.ipv4.tcp_keepalive_time', value: '600' }] } });
  const s = (await failed(get, 'keepalive')).status;
  t.equal(s.reason, 'SysctlForbidden');
  t.equal(s.message, 'Pod was rejected: forbidden sysctl: "net.ipv4.tcp_keepalive_time" not allowlisted', 'needs 4.5, kernel is 4.4');
  t.same(callsFor(old), []);

  const a = await mk('a', {});
  await until('a running', async () => ((await get('a')).status?.phase === 'Running' ? true : undefined));
  const b = await mk('b', {});
  await until('b running', async () => ((await get('b')).status?.phase === 'Running' ? true : undefined));
  const c = await mk('c', {});
  const sc = (await failed(get, 'c')).status;
  t.equal(sc.reason, 'OutOfpods');
  t.equal(sc.message, "Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: 2, capacity: 2", 'the rejected pod does not count');
  t.same(callsFor(c), []);
  t.ok(callsFor(a).length > 0 && callsFor(b).length > 0);
});

t.test('spec.unschedulable: no SchedulingDisabled condition, spec kept', async (t) => {
  const { ref, cri, api, dir } = await setup(t);
  const agent = await startAgent({
    api: { url: ref.url }, criEndpoint: cri.criUrl, rootDir: join(dir, 'root'), nodeName: 'n1',
    nodeStatusUpdateFrequencyMs: 50, nodeStatusReportFrequencyMs: 100, log: () => {},
  });
  t.teardown(() => agent.close());
  const cordoned = await api.patch('/api/v1/nodes/n1', { spec: { unschedulable: true } });
  const after = await until('a status write after the cordon', async () => {
    const n = await api.get('/api/v1/nodes/n1');
    return n.metadata.resourceVersion !== cordoned.metadata.resourceVersion ? n : undefined;
  });
  t.equal(after.spec.unschedulable, true, 'the agent leaves spec.unschedulable alone');
  const types = after.status.conditions.map((c: any) => c.type);
  t.same([...types].sort(), ['DiskPressure', 'MemoryPressure', 'PIDPressure', 'Ready']);
  t.notOk(types.includes('SchedulingDisabled'));
  t.equal(after.status.conditions.find((c: any) => c.type === 'Ready').status, 'True', 'a cordoned node stays Ready');
});
