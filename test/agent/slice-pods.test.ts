// Pod sync through the CRI, PLEG and pod status, in-process: the reference control plane, the mock CRI
// and the agent with fast intervals.
import t from 'tap';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReference } from '../../reference/server.js';
import { startMockCri } from '../../mocks/cri/server.js';
import { ApiClient } from '../../reference/client/api-client.js';
import { startAgent } from '../../reference/agent/agent.js';
import { expand, Backoff } from '../../reference/agent/pod-workers.js';
import { podPhase } from '../../reference/agent/pod-status.js';

async function setup(t: any, extra: object = {}) {
  const ref = await startReference({ port: 0 });
  t.teardown(() => ref.close());
  const dir = mkdtempSync(join(tmpdir(), 'agent-pods-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cri = await startMockCri({ socket: join(dir, 'cri.sock') });
  t.teardown(() => cri.close());
  const api = new ApiClient({ url: ref.url });
  t.teardown(() => api.close());
  const logs: string[] = [];
  const agent = await startAgent({
    api: { url: ref.url }, criEndpoint: cri.criUrl, rootDir: join(dir, 'root'), nodeName: 'n1',
    relistPeriodMs: 100, backoffBaseMs: 200, backoffMaxMs: 1000, log: (m) => logs.push(m), ...extra,
  });
  t.teardown(() => agent.close());
  return { ref, cri, api, dir, agent, logs };
}

/** Polls the pod until `pred` holds or the deadline passes; returns the last pod seen. */
async function waitPod(api: ApiClient, name: string, pred: (p: any) => boolean, ms = 10_000): Promise<any> {
  const deadline = Date.now() + ms;
  let pod: any;
  while (Date.now() < deadline) {
    pod = await api.get(`/api/v1/namespaces/default/pods/${name}`).catch(() => undefined);
    if (pod && pred(pod)) return pod;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`pod ${name} never matched; last: ${JSON.stringify(pod?.status)}`);
}

const mkPod = (name: string, spec: object) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName: 'n1', ...spec } });

t.test('a pod runs: sandbox, pull, create, start; status Running with ready containers; deletion removes everything', async (t) => {
  const { api, cri, dir } = await setup(t);
  const created = await api.create('/api/v1/namespaces/default/pods', mkPod('p1', {
    containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'], env: [{ name: 'A', value: 'x' }, { name: 'B', value: '$(A)y' }, { name: 'N', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }],
  }));
  const uid = created.metadata.uid;
  const pod = await waitPod(api, 'p1', (p) => p.status?.phase === 'Running' && p.status.containerStatuses?.[0]?.ready);
  const st = pod.status;
  t.match(st.containerStatuses[0], { name: 'c', ready: true, started: true, restartCount: 0, state: { running: { startedAt: /Z$/ } }, containerID: /^\S+:\/\/\S+/, imageID: /\S/ });
  t.ok(st.podIP, 'podIP from the sandbox');
  t.ok(st.startTime);
  for (const type of ['PodReadyToStartContainers', 'Initialized', 'ContainersReady', 'Ready', 'PodScheduled']) {
    t.equal(st.conditions.find((c: any) => c.type === type)?.status, 'True', type);
  }
  const calls = cri.control.calls.list({});
  const rpcs = calls.map((c: any) => c.rpc);
  for (const r of ['RunPodSandbox', 'PullImage', 'CreateContainer', 'StartContainer']) t.ok(rpcs.includes(r), r);
  const sandboxReq: any = calls.find((c: any) => c.rpc === 'RunPodSandbox')!.request;
  t.match(sandboxReq.config.metadata, { name: 'p1', namespace: 'default', uid, attempt: 0 });
  t.equal(sandboxReq.config.log_directory, join(dir, 'root', 'pods', `default_p1_${uid}`));
  t.match(sandboxReq.config.labels, { 'io.orch.pod.uid': uid, 'io.orch.pod.name': 'p1', 'io.orch.pod.namespace': 'default' });
  const createReq: any = calls.find((c: any) => c.rpc === 'CreateContainer')!.request;
  t.equal(createReq.config.log_path, 'c/0.log');
  t.match(createReq.config.labels, { 'io.orch.container.name': 'c', 'io.orch.pod.uid': uid });
  const env = Object.fromEntries(createReq.config.envs.map((e: any) => [e.key, Buffer.from(e.value).toString()]));
  t.same(env, { A: 'x', B: 'xy', N: 'p1' }, 'env values as bytes, $(VAR) expanded, fieldRef resolved');

  await api.delete('/api/v1/namespaces/default/pods/p1');
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && (cri.control.state().sandboxes.length > 0 || cri.control.state().containers.length > 0)) await new Promise((r) => setTimeout(r, 25));
  t.same(cri.control.state().containers, [], 'containers removed');
  t.same(cri.control.state().sandboxes, [], 'sandbox removed');
  const after = cri.control.calls.list({}).map((c: any) => c.rpc);
  for (const r of ['StopContainer', 'RemoveContainer', 'StopPodSandbox', 'RemovePodSandbox']) t.ok(after.includes(r), r);
  // The log directory goes right after RemovePodSandbox, in the same pass: wait for that pass to end.
  const logDeadline = Date.now() + 5000;
  while (Date.now() < logDeadline && existsSync(sandboxReq.config.log_directory)) await new Promise((r) => setTimeout(r, 25));
  t.notOk(existsSync(sandboxReq.config.log_directory), 'log directory removed');
});

t.test('init containers run in order, each to completion; restartPolicy Never ends Succeeded / Failed', async (t) => {
  const { api, cri } = await setup(t);
  await api.create('/api/v1/namespaces/default/pods', mkPod('p2', {
    restartPolicy: 'Never',
    initContainers: [{ name: 'i1', image: 'busybox:1.36', command: ['sh', '-c', 'exit 0'] }, { name: 'i2', image: 'busybox:1.36', command: ['sh', '-c', 'exit 0'] }],
    containers: [{ name: 'c', image: 'busybox:1.36', command: ['sh', '-c', 'exit 0'] }],
  }));
  const pod = await waitPod(api, 'p2', (p) => p.status?.phase === 'Succeeded');
  t.match(pod.status.initContainerStatuses.map((s: any) => s.state.terminated?.reason), ['Completed', 'Completed']);
  t.match(pod.status.containerStatuses[0].state.terminated, { exitCode: 0, reason: 'Completed' });
  t.match(pod.status.conditions.find((c: any) => c.type === 'Ready'), { status: 'False', reason: 'PodCompleted' });
  const starts = cri.control.calls.list({ rpc: 'CreateContainer' }).map((c: any) => (c.request as any).config.metadata.name);
  t.same(starts, ['i1', 'i2', 'c'], 'in order');

  await api.create('/api/v1/namespaces/default/pods', mkPod('p3', { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1.36', command: ['sh', '-c', 'exit 3'] }] }));
  const failed = await waitPod(api, 'p3', (p) => p.status?.phase === 'Failed');
  t.match(failed.status.containerStatuses[0].state.terminated, { exitCode: 3, reason: 'Error' });
});

t.test('restartPolicy Always restarts with back-off: restartCount, lastState, CrashLoopBackOff', async (t) => {
  const { api } = await setup(t);
  await api.create('/api/v1/namespaces/default/pods', mkPod('p4', { containers: [{ name: 'c', image: 'busybox:1.36', command: ['sh', '-c', 'exit 2'] }] }));
  const pod = await waitPod(api, 'p4', (p) => p.status?.containerStatuses?.[0]?.restartCount >= 2 && p.status.containerStatuses[0].state.waiting?.reason === 'CrashLoopBackOff');
  const cs = pod.status.containerStatuses[0];
  t.match(cs.lastState.terminated, { exitCode: 2, reason: 'Error' });
  t.match(cs.state.waiting.message, /^back-off \d+s restarting failed container=c pod=p4_default\(/);
  t.equal(pod.status.phase, 'Running', 'Always: a restarting pod is Running');
});

t.test('image and runtime errors: ErrImageNeverPull, ErrImagePull then ImagePullBackOff, CreateContainerError with the runtime message', async (t) => {
  const { api, cri } = await setup(t);
  await api.create('/api/v1/namespaces/default/pods', mkPod('p5', { containers: [{ name: 'c', image: 'example.org/none:1', imagePullPolicy: 'Never' }] }));
  const never = await waitPod(api, 'p5', (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ErrImageNeverPull');
  t.equal(never.status.containerStatuses[0].state.waiting.message, 'Container image "example.org/none:1" is not present with pull policy of Never');
  t.equal(never.status.phase, 'Pending');

  await api.create('/api/v1/namespaces/default/pods', mkPod('p6', { containers: [{ name: 'c', image: 'example.org/none:1' }] }));
  await waitPod(api, 'p6', (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ErrImagePull');
  await waitPod(api, 'p6', (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff');

  cri.control.faults.add({ rpc: 'CreateContainer', code: 2, message: 'seccomp profile missing' });
  await api.create('/api/v1/namespaces/default/pods', mkPod('p7', { containers: [{ name: 'c', image: 'busybox:1.36', command: ['sleep', '60'] }] }));
  const ce = await waitPod(api, 'p7', (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerError');
  t.match(ce.status.containerStatuses[0].state.waiting.message, /seccomp profile missing/);
});

t.test('units: $(VAR) expansion, back-off doubling to its cap, phase rules', async (t) => {
  const env = new Map([['A', '1']]);
  t.equal(expand('$(A)-$(B)-$$(A)', env), '1-$(B)-$(A)');
  const b = new Backoff(10, 40);
  t.equal(b.next('k', 0), 10);
  t.equal(b.next('k', 1), 20);
  t.equal(b.next('k', 2), 40);
  t.equal(b.next('k', 3), 40);
  t.ok(b.inBackoffSince('k', 3, 10));
  t.notOk(b.inBackoffSince('k', 3, 100));
  t.equal(b.next('k', 1000), 10, 'forgotten after 2 × max idle');
  const run = { state: { running: {} } };
  const ok = { state: { terminated: { exitCode: 0 } } };
  const bad = { state: { terminated: { exitCode: 1 } } };
  t.equal(podPhase({}, [], [run]), 'Running');
  t.equal(podPhase({ restartPolicy: 'Never' }, [], [ok, bad]), 'Failed');
  t.equal(podPhase({ restartPolicy: 'OnFailure' }, [], [ok]), 'Succeeded');
  t.equal(podPhase({ restartPolicy: 'OnFailure' }, [], [bad]), 'Running');
  t.equal(podPhase({}, [{ state: { waiting: { reason: 'PodInitializing' } } }], [run]), 'Pending');
});
