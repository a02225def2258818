// The mock CRI runtime as a gRPC server: the project's api.proto against the mock over a real unix-socket
// connection (also byte for byte, encoding requests with protobufjs), runtime info and conditions, the
// socket's permissions and lifecycle, and UNIMPLEMENTED for what the mock does not do.
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync, statSync, existsSync, writeFileSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { startMockCri, type MockCriOptions } from '../../../mocks/cri/server.js';
import { apiProtoPath, criClient, loadCri, unixTarget } from '../../../cri/proto.js';
import { CRI_RPCS, IMAGE_SERVICE_RPCS, RUNTIME_SERVICE_RPCS } from '../../../mocks/cri/faults.js';
import { failure, startCri } from './helpers.js';

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'core-cri-'));
}

const start = (t: Test, opts: Partial<MockCriOptions> = {}) => startCri(t, opts);

t.test('api.proto declares every rpc of both services, the lists the fault injector knows', async (t) => {
  const d = loadCri();
  t.same(Object.keys(d.RuntimeService.service).sort(), [...RUNTIME_SERVICE_RPCS].sort());
  t.same(Object.keys(d.ImageService.service).sort(), [...IMAGE_SERVICE_RPCS].sort());
  t.equal(CRI_RPCS.length, 41);
  t.equal(d.RuntimeService.service.GetContainerEvents.responseStream, true, 'GetContainerEvents streams');
  for (const rpc of ['StreamPodSandboxes', 'StreamContainers', 'StreamContainerStats', 'StreamPodSandboxStats', 'StreamPodSandboxMetrics']) {
    t.equal(d.RuntimeService.service[rpc]?.responseStream, true, `${rpc} streams`);
  }
  t.equal(d.ImageService.service.StreamImages?.responseStream, true, 'StreamImages streams');
  t.equal(d.RuntimeService.service.Version.path, '/runtime.v1.RuntimeService/Version', 'package runtime.v1');
  t.equal(d.ImageService.service.PullImage.path, '/runtime.v1.ImageService/PullImage');
});

t.test('field numbers and types on the wire are the real runtime.v1 ones', async (t) => {
  const root = new protobuf.Root().loadSync(apiProtoPath(), { keepCase: true });
  const field = (msg: string, name: string) => root.lookupType(`runtime.v1.${msg}`).fields[name];
  // A sample of ground-truth numbers (shared notes) and of the newer fields.
  const expect: [string, string, number, string][] = [
    ['VersionResponse', 'runtime_api_version', 4, 'string'],
    ['PodSandboxConfig', 'log_directory', 3, 'string'],
    ['PodSandboxConfig', 'linux', 8, 'LinuxPodSandboxConfig'],
    ['ContainerConfig', 'log_path', 11, 'string'],
    ['ContainerConfig', 'linux', 15, 'LinuxContainerConfig'],
    ['ContainerConfig', 'CDI_devices', 17, 'CDIDevice'],
    ['ContainerStatus', 'exit_code', 7, 'int32'],
    ['ContainerStatus', 'finished_at', 6, 'int64'],
    ['ContainerStatus', 'image_id', 17, 'string'],
    ['LinuxContainerSecurityContext', 'seccomp', 15, 'SecurityProfile'],
    ['LinuxContainerSecurityContext', 'seccomp_profile_path', 10, 'string'],
    ['SecurityProfile', 'localhost_ref', 2, 'string'],
    ['CheckpointContainerRequest', 'timeout', 3, 'int64'],
    ['Metric', 'value', 5, 'UInt64Value'],
    ['ImageSpec', 'user_specified_image', 18, 'string'],
    ['Image', 'size', 4, 'uint64'],
    ['ExecSyncResponse', 'stdout', 1, 'bytes'],
    ['CpuUsage', 'psi', 4, 'PsiStats'],
    ['MemoryUsage', 'psi', 8, 'PsiStats'],
    ['ContainerStats', 'io', 6, 'IoUsage'],
    ['PsiData', 'Avg10', 2, 'double'],
    ['UpdatePodSandboxResourcesRequest', 'resources', 3, 'LinuxContainerResources'],
    ['ContainerConfig', 'stop_signal', 18, 'Signal'],
    ['ContainerStatus', 'stop_signal', 19, 'Signal'],
    ['KeyValue', 'value', 2, 'bytes'],
    ['Mount', 'image_sub_path', 10, 'string'],
    ['Mount', 'mount_options', 11, 'string'],
    ['ImageSpec', 'image_ref', 20, 'string'],
    ['RuntimeFeatures', 'user_namespaces_host_network', 2, 'bool'],
    ['StreamContainersResponse', 'containers', 1, 'Container'],
    ['StreamPodSandboxesResponse', 'pod_sandboxes', 1, 'PodSandbox'],
  ];
  for (const [msg, name, id, type] of expect) {
    const f = field(msg, name);
    t.ok(f, `${msg}.${name} exists`);
    t.equal(f?.id, id, `${msg}.${name} = ${id}`);
    t.equal(f?.type, type, `${msg}.${name} is ${type}`);
  }
  const states = root.lookupEnum('runtime.v1.ContainerState').values;
  t.same(states, { CONTAINER_CREATED: 0, CONTAINER_RUNNING: 1, CONTAINER_EXITED: 2, CONTAINER_UNKNOWN: 3 });
  t.same(root.lookupEnum('runtime.v1.PodSandboxState').values, { SANDBOX_READY: 0, SANDBOX_NOTREADY: 1 });
  t.same(root.lookupEnum('runtime.v1.ContainerEventType').values, { CONTAINER_CREATED_EVENT: 0, CONTAINER_STARTED_EVENT: 1, CONTAINER_STOPPED_EVENT: 2, CONTAINER_DELETED_EVENT: 3 });
  const signals = root.lookupEnum('runtime.v1.Signal').values;
  t.equal(Object.keys(signals).length, 66, 'Signal has 66 values');
  t.same([signals.RUNTIME_DEFAULT, signals.SIGKILL, signals.SIGTERM, signals.SIGRTMIN, signals.SIGRTMAX], [0, 13, 23, 35, 65]);
  // Fields upstream does not define (or no longer defines) are absent.
  t.notOk(field('ContainerStatus', 'image_source'), 'ContainerStatus has no image_source');
  t.notOk(field('Image', 'image_source'), 'Image has no image_source');
  t.notOk(field('UpdatePodSandboxResourcesRequest', 'annotations'), 'UpdatePodSandboxResourcesRequest has no annotations');
});

t.test('a client encoding with protobufjs from the project .proto talks to the mock byte for byte', async (t) => {
  const { m } = await start(t);
  const root = new protobuf.Root().loadSync(apiProtoPath(), { keepCase: true });
  const client = new grpc.Client(unixTarget(m.criUrl), grpc.credentials.createInsecure());
  t.teardown(() => client.close());
  const raw = <T>(path: string, reqType: string, resType: string, req: object) => new Promise<T>((resolve, reject) => {
    const Req = root.lookupType(`runtime.v1.${reqType}`);
    const Res = root.lookupType(`runtime.v1.${resType}`);
    client.makeUnaryRequest(path, (x: object) => Buffer.from(Req.encode(Req.fromObject(x)).finish()), (b: Buffer) => Res.toObject(Res.decode(b), { longs: String, enums: String, defaults: true }) as T,
      req, (err, res) => (err ? reject(err) : resolve(res as T)));
  });
  const v = await raw<{ runtime_api_version: string; runtime_name: string }>('/runtime.v1.RuntimeService/Version', 'VersionRequest', 'VersionResponse', { version: 'v1' });
  t.equal(v.runtime_api_version, 'v1');
  t.equal(v.runtime_name, 'orch-mock-cri');
  const run = await raw<{ pod_sandbox_id: string }>('/runtime.v1.RuntimeService/RunPodSandbox', 'RunPodSandboxRequest', 'RunPodSandboxResponse',
    { config: { metadata: { name: 'wire', uid: 'u-wire', namespace: 'ns', attempt: 2 }, labels: { app: 'wire' } } });
  t.match(run.pod_sandbox_id, /^[0-9a-f]{64}$/);
  const st = await raw<{ status: { state: string; created_at: string; metadata: { attempt: number }; labels: Record<string, string> } }>(
    '/runtime.v1.RuntimeService/PodSandboxStatus', 'PodSandboxStatusRequest', 'PodSandboxStatusResponse', { pod_sandbox_id: run.pod_sandbox_id });
  t.equal(st.status.state, 'SANDBOX_READY');
  t.equal(st.status.metadata.attempt, 2);
  t.same(st.status.labels, { app: 'wire' });
  // int64 nanoseconds: beyond 2^53, carried exactly.
  t.match(st.status.created_at, /^\d{19}$/);
  t.ok(BigInt(st.status.created_at) > BigInt(Date.now() - 60_000) * 1_000_000n);
  const images = await raw<{ images: { repo_tags: string[]; size: string }[] }>('/runtime.v1.ImageService/ListImages', 'ListImagesRequest', 'ListImagesResponse', {});
  t.ok(images.images.some((i) => i.repo_tags.includes('docker.io/library/busybox:latest')));
  t.ok(images.images.every((i) => Number(i.size) > 0), 'sizes are > 0');
});

t.test('Version, Status conditions, RuntimeConfig and UpdateRuntimeConfig', async (t) => {
  const { m, c } = await start(t, { cgroupDriver: 'CGROUPFS' });
  const v = await c.call('Version', { version: '0.1.0' });
  t.same(Object.keys(v).sort(), ['runtime_api_version', 'runtime_name', 'runtime_version', 'version']);
  t.equal(v.version, '0.1.0');
  t.match(v.runtime_version, /^\d+\.\d+\.\d+/);

  let s = await c.call('Status', {});
  t.same(s.status.conditions, [
    { type: 'RuntimeReady', status: true, reason: '', message: '' },
    { type: 'NetworkReady', status: true, reason: '', message: '' },
  ]);
  t.same(s.info, {}, 'info only when verbose');
  t.same(s.runtime_handlers.map((h: { name: string }) => h.name), ['', 'runc']);
  s = await c.call('Status', { verbose: true });
  t.match(JSON.parse(s.info.config), { cgroupDriver: 'CGROUPFS', runtimeHandlers: ['', 'runc'] });

  m.control.setRuntimeReady(false, 'Broken', 'disk gone');
  m.control.setNetworkReady(false);
  s = await c.call('Status', {});
  t.same(s.status.conditions, [
    { type: 'RuntimeReady', status: false, reason: 'Broken', message: 'disk gone' },
    { type: 'NetworkReady', status: false, reason: 'NetworkPluginNotReady', message: 'Network plugin returns error: cni plugin not initialized' },
  ]);
  m.control.reset();
  s = await c.call('Status', {});
  t.ok(s.status.conditions.every((x: { status: boolean }) => x.status), 'reset makes the runtime ready again');

  t.same(await c.call('RuntimeConfig', {}), { linux: { cgroup_driver: 'CGROUPFS' } });
  t.same(await c.call('UpdateRuntimeConfig', { runtime_config: { network_config: { pod_cidr: '10.244.0.0/24' } } }), {});
  t.match(JSON.parse((await c.call('Status', { verbose: true })).info.config), { podCidr: '10.244.0.0/24' });
});

t.test('Exec, Attach and PortForward of unknown ids answer NOT_FOUND, never a URL (streaming.test.ts has the rest)', async (t) => {
  const { c } = await start(t);
  for (const [rpc, req] of [['Exec', { container_id: 'x', cmd: ['sh'], stdout: true }], ['Attach', { container_id: 'x', stdout: true }], ['PortForward', { pod_sandbox_id: 'x', port: [80] }]] as const) {
    const err = await failure(c.call(rpc, req));
    t.equal(err.code, grpc.status.NOT_FOUND, rpc);
  }
  // A method the service does not define at all: gRPC's own UNIMPLEMENTED.
  const { m } = await start(t);
  const client = new grpc.Client(unixTarget(m.criUrl), grpc.credentials.createInsecure());
  t.teardown(() => client.close());
  const err = await new Promise<grpc.ServiceError>((resolve) => client.makeUnaryRequest('/runtime.v1.RuntimeService/NoSuchMethod', (x: Buffer) => x, (b: Buffer) => b, Buffer.alloc(0), (e) => resolve(e!)));
  t.equal(err.code, grpc.status.UNIMPLEMENTED);
});

t.test('the Stream* list RPCs (KEP-5825) answer UNIMPLEMENTED with no message, after the call log and faults', async (t) => {
  const { m, c } = await start(t);
  const streamFailure = (rpc: string) => new Promise<{ err: grpc.ServiceError; messages: number }>((resolve) => {
    let messages = 0;
    const s = c.stream(rpc, {});
    s.on('data', () => { messages++; });
    s.on('error', (err: grpc.ServiceError) => resolve({ err, messages }));
  });
  for (const rpc of ['StreamPodSandboxes', 'StreamContainers', 'StreamContainerStats', 'StreamPodSandboxStats', 'StreamPodSandboxMetrics', 'StreamImages']) {
    const { err, messages } = await streamFailure(rpc);
    t.equal(err.code, grpc.status.UNIMPLEMENTED, rpc);
    t.match(err.details, new RegExp(`^method ${rpc} not implemented: .*List\\* RPC`));
    t.equal(messages, 0);
  }
  t.same(m.control.calls.list().map((r) => r.rpc).slice(-2), ['StreamPodSandboxMetrics', 'StreamImages'], 'recorded in the call log');
  m.control.faults.add({ rpc: 'StreamContainers', code: grpc.status.UNAVAILABLE, message: 'busy', times: 1 });
  t.equal((await streamFailure('StreamContainers')).err.code, grpc.status.UNAVAILABLE, 'a fault fires first');
  t.equal((await streamFailure('StreamContainers')).err.code, grpc.status.UNIMPLEMENTED);
});

t.test('sockets: 0600 in a 0700 directory, a live one refused, removed on close', async (t) => {
  const dir = tmp();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const socket = join(dir, 'run', 'cri.sock');
  const control = join(dir, 'run', 'control.sock');
  const m = await startMockCri({ socket, control, root: join(dir, 'root') });
  t.equal(m.criUrl, `unix://${socket}`);
  t.equal(statSync(socket).mode & 0o777, 0o600, 'CRI socket 0600');
  t.ok(lstatSync(socket).isSocket());
  t.equal(statSync(control).mode & 0o777, 0o600, 'control socket 0600');
  t.equal(statSync(join(dir, 'run')).mode & 0o777, 0o700, 'socket directory 0700');
  t.equal(statSync(join(dir, 'root')).mode & 0o777, 0o700, 'root 0700');
  t.equal(statSync(m.seccompDir).mode & 0o777, 0o700, 'seccomp dir 0700');

  // A second runtime on the same live socket is refused, and the first keeps working.
  await t.rejects(startMockCri({ socket, root: join(dir, 'root2') }), /in use/);
  const c = criClient(socket);
  t.equal((await c.call('Version')).runtime_api_version, 'v1');
  c.close();

  await m.close();
  t.notOk(existsSync(socket), 'CRI socket removed');
  t.notOk(existsSync(control), 'control socket removed');
  await m.close(); // twice is harmless

  // A path that is not a socket is never replaced.
  writeFileSync(socket, 'precious');
  await t.rejects(startMockCri({ socket, root: join(dir, 'root3') }), /not a socket/);
});

t.test('a stale socket left by a dead runtime is replaced at start', async (t) => {
  const dir = tmp();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const socket = join(dir, 'cri.sock');
  const first = await startMockCri({ socket, root: join(dir, 'root') });
  await first.close();
  t.notOk(existsSync(socket));
  // A process that bound the path and died without unlinking it (process.exit skips the cleanup).
  const { execFileSync } = await import('node:child_process');
  execFileSync(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(socket)}, () => process.exit(0))`]);
  t.ok(lstatSync(socket).isSocket(), 'a dead socket file is there');
  const second = await startMockCri({ socket, root: join(dir, 'root') });
  t.teardown(() => second.close());
  const c = criClient(second.criUrl);
  t.equal((await c.call('Version')).runtime_api_version, 'v1');
  c.close();
});

t.test('the call log records every rpc in order with its request', async (t) => {
  const { m, c } = await start(t);
  await c.call('Version', { version: 'v1' });
  await c.call('ListImages', {});
  await failure(c.call('ContainerStatus', { container_id: 'nope' }));
  const log = m.control.calls.list();
  t.same(log.map((r) => [r.service, r.rpc]), [['RuntimeService', 'Version'], ['ImageService', 'ListImages'], ['RuntimeService', 'ContainerStatus']]);
  t.match(log[0].request, { version: 'v1' });
  t.match(log[2].request, { container_id: 'nope' });
});

t.test('faults apply to every rpc before it runs: a code, a delay, and hang until the deadline', async (t) => {
  const { m, c } = await start(t);
  m.control.faults.add({ rpc: 'ListContainers', code: grpc.status.UNAVAILABLE, message: 'runtime busy', times: 1 });
  const err = await failure(c.call('ListContainers', {}));
  t.equal(err.code, grpc.status.UNAVAILABLE);
  t.equal(err.details, 'runtime busy');
  t.same(await c.call('ListContainers', {}), { containers: [] }, 'only the next call');

  m.control.faults.add({ rpc: 'PullImage', code: grpc.status.RESOURCE_EXHAUSTED });
  t.equal((await failure(c.call('PullImage', { image: { image: 'busybox' } }))).code, grpc.status.RESOURCE_EXHAUSTED, 'ImageService too');
  m.control.faults.clear();

  m.control.faults.add({ rpc: 'Version', hang: true });
  const started = Date.now();
  t.equal((await failure(c.call('Version', {}, { deadlineMs: 200 }))).code, grpc.status.DEADLINE_EXCEEDED);
  t.ok(Date.now() - started < 3000);
  m.control.faults.clear('Version');

  m.control.faults.add({ rpc: 'Status', delayMs: 150 });
  const t0 = Date.now();
  await c.call('Status', {});
  t.ok(Date.now() - t0 >= 140, 'delayed, then answered normally');

  m.control.faults.add({ rpc: 'GetContainerEvents', code: grpc.status.PERMISSION_DENIED, message: 'no events for you' });
  const stream = c.stream('GetContainerEvents', {});
  const streamErr = await new Promise<grpc.ServiceError>((resolve) => stream.on('error', resolve));
  t.equal(streamErr.code, grpc.status.PERMISSION_DENIED);
  t.equal(streamErr.details, 'no events for you');
});
