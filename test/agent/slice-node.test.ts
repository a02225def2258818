// The agent's API client, Node registration/status and Lease, against the in-process reference and mock CRI.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReference } from '../../reference/server.js';
import { startMockCri } from '../../mocks/cri/server.js';
import { ApiClient, ApiError, isNotFound } from '../../reference/client/api-client.js';
import { Runtime } from '../../reference/agent/runtime.js';
import { NodeStatusManager, readyCondition, withTimes } from '../../reference/agent/node-status.js';
import { LeaseController } from '../../reference/agent/lease.js';

async function setup(t: any) {
  const ref = await startReference({ port: 0 });
  t.teardown(() => ref.close());
  const dir = mkdtempSync(join(tmpdir(), 'agent-slice-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cri = await startMockCri({ socket: join(dir, 'cri.sock') });
  t.teardown(() => cri.close());
  const api = new ApiClient({ url: ref.url });
  t.teardown(() => api.close());
  const runtime = new Runtime(cri.criUrl);
  t.teardown(() => runtime.close());
  return { ref, cri, api, runtime, dir };
}

t.test('api client: verbs, patch types, status subresource, errors carry the Status', async (t) => {
  const { api } = await setup(t);
  const err = await api.get('/api/v1/nodes/missing').catch((e) => e);
  t.type(err, ApiError);
  t.equal(err.status, 404);
  t.equal(err.body.kind, 'Status');
  t.equal(err.reason, 'NotFound');
  t.ok(isNotFound(err));
  const created = await api.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'a1' } });
  t.equal(created.metadata.name, 'a1');
  const merged = await api.patch('/api/v1/nodes/a1', { metadata: { labels: { x: '1' } } }, 'merge');
  t.equal(merged.metadata.labels.x, '1');
  const sm = await api.patch('/api/v1/nodes/a1', { metadata: { labels: { y: '2' } } }, 'strategic');
  t.same(sm.metadata.labels, { x: '1', y: '2' });
  const st = await api.patchStatus('/api/v1/nodes/a1', { status: { capacity: { pods: '3' } } });
  t.equal(st.status.capacity.pods, '3');
  st.status = { capacity: { pods: '4' } };
  const put = await api.updateStatus('/api/v1/nodes/a1', st);
  t.equal(put.status.capacity.pods, '4');
  const list = await api.list('/api/v1/nodes');
  t.equal(list.items.length, 1);
  t.ok(list.metadata.resourceVersion);
  const events: string[] = [];
  let listed: any[] = [];
  let writes: Promise<unknown> = Promise.resolve();
  const seen = new Promise<void>((resolve) => {
    const w = api.watch('/api/v1/nodes', {
      fieldSelector: 'metadata.name=a2',
      onList: (items) => { listed = items; },
      onEvent: (ev) => { events.push(`${ev.type} ${ev.object.metadata.name}`); if (ev.type === 'DELETED') { w.stop(); resolve(); } },
    });
    writes = w.synced.then(async () => {
      await api.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'a2' } });
      await api.delete('/api/v1/nodes/a2');
    });
  });
  await seen;
  await writes;
  t.same(listed, []);
  t.same(events, ['ADDED a2', 'DELETED a2'], 'field-selected watch events in order');
  t.throws(() => new ApiClient({ url: 'not a url' }), /invalid API URL/);
});

t.test('node: registered, status published with addresses, capacity, nodeInfo and conditions', async (t) => {
  const { api, runtime, dir, cri } = await setup(t);
  const ns = new NodeStatusManager({ api, runtime, nodeName: 'n1', rootDir: dir, hostnameOverride: 'host-a', updateFrequencyMs: 50, reportFrequencyMs: 60_000 });
  t.teardown(() => ns.close());
  await ns.register();
  const node = await api.get('/api/v1/nodes/n1');
  const st = node.status;
  t.same(st.addresses.find((a: any) => a.type === 'Hostname'), { type: 'Hostname', address: 'host-a' });
  t.match(st.capacity, { cpu: /^\d+$/, memory: /^\d+Ki$/, pods: '110', 'ephemeral-storage': /^[1-9]\d*Ki$/ });
  t.same(st.allocatable, st.capacity);
  t.match(st.nodeInfo, { kernelVersion: /\S/, osImage: /\S/, architecture: /\S/, operatingSystem: 'linux', containerRuntimeVersion: /^\S+:\/\/\S+$/, agentVersion: /^v\d/ });
  t.same(st.conditions.map((c: any) => c.type), ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'], 'Ready last');
  const ready = st.conditions.at(-1);
  t.match(ready, { status: 'True', reason: 'AgentReady', message: 'agent is posting ready status' });
  t.ok(ready.lastHeartbeatTime && ready.lastTransitionTime);

  // The runtime reports RuntimeReady false: Ready goes False with the runtime's reason in the message.
  cri.control.setRuntimeReady(false, 'Broken', 'engine off');
  ns.start();
  const deadline = Date.now() + 5000;
  let r: any;
  while (Date.now() < deadline) {
    r = (await api.get('/api/v1/nodes/n1')).status.conditions.find((c: any) => c.type === 'Ready');
    if (r.status === 'False') break;
    await new Promise((res) => setTimeout(res, 20));
  }
  t.match(r, { status: 'False', reason: 'AgentNotReady', message: 'container runtime not ready: RuntimeReady=false reason:Broken message:engine off' });
});

t.test('node: conditions keep lastTransitionTime while unchanged; unchanged status is not rewritten', async (t) => {
  const a = withTimes([readyCondition([{ type: 'RuntimeReady', status: true, reason: '', message: '' }, { type: 'NetworkReady', status: true, reason: '', message: '' }])], undefined, 'T1');
  const b = withTimes([readyCondition([{ type: 'RuntimeReady', status: true, reason: '', message: '' }, { type: 'NetworkReady', status: true, reason: '', message: '' }])], a, 'T2');
  t.match(b[0], { lastHeartbeatTime: 'T2', lastTransitionTime: 'T1' });
  const c = withTimes([readyCondition([])], b, 'T3');
  t.match(c[0], { status: 'False', lastTransitionTime: 'T3' });
  t.match(c[0].message, /^\[container runtime not ready: .*, container runtime network not ready: .*\]$/, 'several errors shown as [e1, e2]');

  const { api, runtime, dir } = await setup(t);
  const ns = new NodeStatusManager({ api, runtime, nodeName: 'n2', rootDir: dir, reportFrequencyMs: 60_000 });
  await ns.register();
  t.equal(await ns.sync(false), false, 'nothing changed: no write');
  const ns2 = new NodeStatusManager({ api, runtime, nodeName: 'n2', rootDir: dir, reportFrequencyMs: 0 });
  await ns2.register();
  t.equal(await ns2.sync(false), true, 'report frequency passed: written again');
});

t.test('lease: created with its namespace, owner reference, renewed', async (t) => {
  const { api } = await setup(t);
  const node = await api.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
  const lc = new LeaseController({ api, nodeName: 'n1', nodeUid: () => node.metadata.uid, renewIntervalMs: 50 });
  t.teardown(() => lc.close());
  await lc.start();
  const path = '/apis/coordination.orch.io/v1/namespaces/node-lease/leases/n1';
  const lease = await api.get(path);
  t.match(lease.spec, { holderIdentity: 'n1', leaseDurationSeconds: 40, renewTime: /^\d{4}-.*\.\d{6}Z$/ });
  t.same(lease.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: node.metadata.uid }]);
  const deadline = Date.now() + 5000;
  let renewed = lease;
  while (Date.now() < deadline && renewed.spec.renewTime === lease.spec.renewTime) {
    await new Promise((res) => setTimeout(res, 20));
    renewed = await api.get(path);
  }
  t.not(renewed.spec.renewTime, lease.spec.renewTime, 'renewTime moves');
});
