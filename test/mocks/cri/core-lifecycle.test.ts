// Sandbox and container lifecycle of the mock CRI runtime over a real gRPC connection: states and
// timestamps, errors and their codes, idempotent stop/remove, filters, statuses with verbose info,
// resource updates, stop with a grace period, control-driven exits, and seccomp on CreateContainer.
import t, { type Test } from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { CriClient } from '../../../cri/proto.js';
import { NotFoundError } from '../../../mocks/cri/control.js';
import { failure, startCri, waitState } from './helpers.js';

const start = (t: Test) => startCri(t);

const pod = (name: string, extra: object = {}) => ({ metadata: { name, uid: `uid-${name}`, namespace: 'default', attempt: 0 }, hostname: name, ...extra });

async function runPod(c: CriClient, name: string, extra: object = {}): Promise<string> {
  return (await c.call('RunPodSandbox', { config: pod(name, extra) })).pod_sandbox_id;
}

async function createContainer(c: CriClient, sandbox: string, name: string, extra: object = {}): Promise<string> {
  return (await c.call('CreateContainer', { pod_sandbox_id: sandbox, config: { metadata: { name }, image: { image: 'busybox' }, ...extra } })).container_id;
}

t.test('sandbox: run READY, status with timestamps and network, stop NOTREADY, remove; stop and remove idempotent', async (t) => {
  const { c } = await start(t);
  const before = BigInt(Date.now()) * 1_000_000n;
  const id = await runPod(c, 'web', { labels: { app: 'web' }, annotations: { note: 'kept as is' } });
  const st = await c.call('PodSandboxStatus', { pod_sandbox_id: id });
  t.equal(st.status.id, id);
  t.equal(st.status.state, 'SANDBOX_READY');
  t.same(st.status.metadata, { name: 'web', uid: 'uid-web', namespace: 'default', attempt: 0 });
  t.ok(BigInt(st.status.created_at) >= before, 'created_at in nanoseconds');
  t.match(st.status.network.ip, /^10\.88\.\d+\.\d+$/);
  t.same(st.status.annotations, { note: 'kept as is' });
  t.same(st.info, {}, 'no info without verbose');
  t.match(st.timestamp, /^\d{19}$/);
  const verbose = await c.call('PodSandboxStatus', { pod_sandbox_id: id, verbose: true });
  t.match(JSON.parse(verbose.info.info), { processStatus: 'running', name: 'web_default_uid-web_0', hostname: 'web' });

  // Host network: no pod IP.
  const host = await runPod(c, 'host', { linux: { security_context: { namespace_options: { network: 'NODE' } } } });
  t.equal((await c.call('PodSandboxStatus', { pod_sandbox_id: host })).status.network.ip, '');

  t.same(await c.call('StopPodSandbox', { pod_sandbox_id: id }), {});
  t.same(await c.call('StopPodSandbox', { pod_sandbox_id: id }), {}, 'stop twice');
  t.equal((await c.call('PodSandboxStatus', { pod_sandbox_id: id })).status.state, 'SANDBOX_NOTREADY');
  t.same(await c.call('RemovePodSandbox', { pod_sandbox_id: id }), {});
  t.same(await c.call('RemovePodSandbox', { pod_sandbox_id: id }), {}, 'remove twice');
  const gone = await failure(c.call('PodSandboxStatus', { pod_sandbox_id: id }));
  t.equal(gone.code, grpc.status.NOT_FOUND);
  t.equal(gone.details, 'an error occurred when try to find sandbox: not found', 'containerd\'s words');
  const stopGone = await failure(c.call('StopPodSandbox', { pod_sandbox_id: id }));
  t.equal(stopGone.code, grpc.status.NOT_FOUND, 'stopping an unknown sandbox is NOT_FOUND, as containerd');
});

t.test('sandbox: bad input and duplicate names', async (t) => {
  const { c } = await start(t);
  let err = await failure(c.call('RunPodSandbox', {}));
  t.equal(err.code, grpc.status.INVALID_ARGUMENT);
  t.equal(err.details, 'sandbox config must include metadata');
  err = await failure(c.call('RunPodSandbox', { config: { metadata: { name: 'x', uid: '', namespace: 'ns' } } }));
  t.equal(err.code, grpc.status.INVALID_ARGUMENT);
  t.match(err.details, /metadata\.uid/);
  err = await failure(c.call('RunPodSandbox', { config: pod('h'), runtime_handler: 'kata' }));
  t.equal(err.code, grpc.status.INVALID_ARGUMENT);
  t.match(err.details, /no runtime for "kata" is configured/);
  t.ok(await c.call('RunPodSandbox', { config: pod('h2'), runtime_handler: 'runc' }));
  err = await failure(c.call('RunPodSandbox', { config: pod('rel', { log_directory: 'relative/dir' }) }));
  t.equal(err.code, grpc.status.INVALID_ARGUMENT);

  const first = await runPod(c, 'dup');
  err = await failure(c.call('RunPodSandbox', { config: pod('dup') }));
  t.equal(err.code, grpc.status.UNKNOWN, 'containerd answers UNKNOWN for a reserved name');
  t.equal(err.details, `failed to reserve sandbox name "dup_default_uid-dup_0": name "dup_default_uid-dup_0" is reserved for "${first}"`);
  const next = await c.call('RunPodSandbox', { config: { ...pod('dup'), metadata: { ...pod('dup').metadata, attempt: 1 } } });
  t.ok(next.pod_sandbox_id, 'another attempt is another name');
  await c.call('RemovePodSandbox', { pod_sandbox_id: first });
  t.ok(await c.call('RunPodSandbox', { config: pod('dup') }), 'the name is free again after removal');

  for (const rpc of ['PodSandboxStatus', 'StopPodSandbox', 'RemovePodSandbox', 'PodSandboxStats']) {
    t.equal((await failure(c.call(rpc, { pod_sandbox_id: '' }))).code, grpc.status.INVALID_ARGUMENT, `${rpc} with an empty id`);
  }
});

t.test('container: CREATED -> RUNNING -> EXITED with code, reason and int64 timestamps', async (t) => {
  const { c } = await start(t);
  const sb = await runPod(c, 'p');
  const id = await createContainer(c, sb, 'job', { command: ['sh', '-c', 'sleep 0.1; exit 3'], labels: { tier: 'batch' }, annotations: { a: 'b' } });
  t.match(id, /^[0-9a-f]{64}$/);
  let s = (await c.call('ContainerStatus', { container_id: id })).status;
  t.equal(s.state, 'CONTAINER_CREATED');
  t.equal(s.started_at, '0');
  t.equal(s.finished_at, '0');
  t.same(s.metadata, { name: 'job', attempt: 0 });
  t.same(s.labels, { tier: 'batch' });
  t.same(s.annotations, { a: 'b' });
  t.equal(s.image.image, 'docker.io/library/busybox:1.36', 'the image by its first tag');
  t.match(s.image_ref, /^docker\.io\/library\/busybox@sha256:[0-9a-f]{64}$/);
  t.match(s.image_id, /^sha256:[0-9a-f]{64}$/);

  await c.call('StartContainer', { container_id: id });
  s = (await c.call('ContainerStatus', { container_id: id })).status;
  t.equal(s.state, 'CONTAINER_RUNNING');
  t.ok(BigInt(s.started_at) >= BigInt(s.created_at));
  const again = await failure(c.call('StartContainer', { container_id: id }));
  t.equal(again.code, grpc.status.FAILED_PRECONDITION, 'a running container cannot be started again');

  s = await waitState(c, id, 'CONTAINER_EXITED');
  t.equal(s.exit_code, 3);
  t.equal(s.reason, 'Error');
  t.ok(BigInt(s.finished_at) - BigInt(s.started_at) >= 90_000_000n, 'ran about 100 ms');

  const ok = await createContainer(c, sb, 'ok', { command: ['true'] });
  await c.call('StartContainer', { container_id: ok });
  s = await waitState(c, ok, 'CONTAINER_EXITED');
  t.equal(s.exit_code, 0);
  t.equal(s.reason, 'Completed');

  const sleeper = await createContainer(c, sb, 'sleeper', { command: ['sleep'], args: ['0.05'] });
  await c.call('StartContainer', { container_id: sleeper });
  t.equal((await waitState(c, sleeper, 'CONTAINER_EXITED')).exit_code, 0, '["sleep","N"] exits 0 after N seconds');

  // Stop and remove are idempotent; an exited container cannot start again.
  t.same(await c.call('StopContainer', { container_id: id, timeout: 10 }), {});
  t.equal((await failure(c.call('StartContainer', { container_id: id }))).code, grpc.status.FAILED_PRECONDITION);
  t.same(await c.call('RemoveContainer', { container_id: id }), {});
  t.same(await c.call('RemoveContainer', { container_id: id }), {});
  const unknown = await failure(c.call('ContainerStatus', { container_id: id }));
  t.equal(unknown.code, grpc.status.NOT_FOUND);
  t.equal(unknown.details, `an error occurred when try to find container "${id}": not found`);
  t.equal((await failure(c.call('StopContainer', { container_id: id }))).code, grpc.status.NOT_FOUND, 'stopping an unknown container is NOT_FOUND, as containerd');
  t.equal((await failure(c.call('StartContainer', { container_id: id }))).code, grpc.status.NOT_FOUND);
});

t.test('container: create errors (unknown or stopped sandbox, absent image, duplicate name, bad input)', async (t) => {
  const { c } = await start(t);
  let err = await failure(createContainer(c, 'f'.repeat(64), 'x'));
  t.equal(err.code, grpc.status.NOT_FOUND);
  t.equal(err.details, `failed to find sandbox id "${'f'.repeat(64)}": not found`);

  const sb = await runPod(c, 'p');
  err = await failure(c.call('CreateContainer', { pod_sandbox_id: sb, config: { metadata: { name: 'x' }, image: { image: 'busybox:0.0.0-absent' } } }));
  t.equal(err.code, grpc.status.NOT_FOUND);
  t.match(err.details, /image "docker\.io\/library\/busybox:0\.0\.0-absent" is not present/);

  err = await failure(c.call('CreateContainer', { pod_sandbox_id: sb, config: { image: { image: 'busybox' } } }));
  t.equal(err.code, grpc.status.INVALID_ARGUMENT);
  t.equal(err.details, 'container config must include metadata');
  err = await failure(c.call('CreateContainer', { pod_sandbox_id: sb, config: { metadata: { name: 'x' } } }));
  t.equal(err.code, grpc.status.INVALID_ARGUMENT);
  t.equal((await failure(c.call('CreateContainer', { pod_sandbox_id: '', config: {} }))).code, grpc.status.INVALID_ARGUMENT);

  const first = await createContainer(c, sb, 'app');
  err = await failure(createContainer(c, sb, 'app'));
  t.equal(err.code, grpc.status.UNKNOWN, 'containerd reserves the name and answers UNKNOWN');
  t.equal(err.details, `failed to reserve container name "app_p_default_uid-p_0": name "app_p_default_uid-p_0" is reserved for "${first}"`);
  t.ok(await c.call('CreateContainer', { pod_sandbox_id: sb, config: { metadata: { name: 'app', attempt: 1 }, image: { image: 'busybox' } } }), 'the next attempt is another name');

  await c.call('StopPodSandbox', { pod_sandbox_id: sb });
  err = await failure(createContainer(c, sb, 'late'));
  t.equal(err.code, grpc.status.FAILED_PRECONDITION);
  t.match(err.details, /is not ready \(SANDBOX_NOTREADY\)/);
  err = await failure(c.call('StartContainer', { container_id: first }));
  t.equal(err.code, grpc.status.FAILED_PRECONDITION, 'nothing starts in a stopped sandbox');
  t.match(err.details, /sandbox container ".*" is not running/);
});

t.test('stop: SIGTERM exits 143 at once; a process ignoring TERM is killed (137) after the timeout; 0 kills at once', async (t) => {
  const { c } = await start(t);
  const sb = await runPod(c, 'p');
  const polite = await createContainer(c, sb, 'polite', { command: ['sleep', 'infinity'] });
  await c.call('StartContainer', { container_id: polite });
  let t0 = Date.now();
  await c.call('StopContainer', { container_id: polite, timeout: 30 });
  t.ok(Date.now() - t0 < 2000, 'did not wait for the grace period');
  let s = (await c.call('ContainerStatus', { container_id: polite })).status;
  t.equal(s.state, 'CONTAINER_EXITED', 'EXITED when StopContainer returns');
  t.equal(s.exit_code, 143);
  t.equal(s.reason, 'Error');

  const stubborn = await createContainer(c, sb, 'stubborn', { command: ['sh', '-c', "trap '' TERM; while true; do sleep 1; done"] });
  await c.call('StartContainer', { container_id: stubborn });
  t0 = Date.now();
  await c.call('StopContainer', { container_id: stubborn, timeout: 1 });
  const waited = Date.now() - t0;
  t.ok(waited >= 950 && waited < 3000, `killed after the 1 s grace period (${waited} ms)`);
  s = (await c.call('ContainerStatus', { container_id: stubborn })).status;
  t.equal(s.exit_code, 137);

  const forever = await createContainer(c, sb, 'forever', { command: ['/usr/sbin/nginx', '-g', 'daemon off;'] });
  await c.call('StartContainer', { container_id: forever });
  t0 = Date.now();
  await c.call('StopContainer', { container_id: forever, timeout: 0 });
  t.ok(Date.now() - t0 < 1000);
  t.equal((await c.call('ContainerStatus', { container_id: forever })).status.exit_code, 137, 'timeout 0 kills');

  // Remove of a running container kills it; stopping the sandbox kills its containers.
  const a = await createContainer(c, sb, 'a');
  await c.call('StartContainer', { container_id: a });
  await c.call('RemoveContainer', { container_id: a });
  t.equal((await failure(c.call('ContainerStatus', { container_id: a }))).code, grpc.status.NOT_FOUND);
  const b = await createContainer(c, sb, 'b');
  await c.call('StartContainer', { container_id: b });
  const created = await createContainer(c, sb, 'never-started');
  await c.call('StopPodSandbox', { pod_sandbox_id: sb });
  t.equal((await c.call('ContainerStatus', { container_id: b })).status.exit_code, 137);
  t.equal((await c.call('ContainerStatus', { container_id: created })).status.state, 'CONTAINER_CREATED', 'a created container stays created');
  await c.call('RemovePodSandbox', { pod_sandbox_id: sb });
  t.same((await c.call('ListContainers', {})).containers, [], 'RemovePodSandbox removed its containers');
});

t.test('RemovePodSandbox of a ready sandbox stops and removes everything in it', async (t) => {
  const { c } = await start(t);
  const sb = await runPod(c, 'p');
  const other = await runPod(c, 'q');
  const ids = [await createContainer(c, sb, 'a'), await createContainer(c, sb, 'b')];
  await c.call('StartContainer', { container_id: ids[0] });
  const keep = await createContainer(c, other, 'a');
  await c.call('RemovePodSandbox', { pod_sandbox_id: sb });
  const left = (await c.call('ListContainers', {})).containers.map((x: { id: string }) => x.id);
  t.same(left, [keep]);
  t.same((await c.call('ListPodSandbox', {})).items.map((x: { id: string }) => x.id), [other]);
});

t.test('ListPodSandbox and ListContainers filters: id (and prefix), state, sandbox, labels, ANDed', async (t) => {
  const { c } = await start(t);
  const a = await runPod(c, 'a', { labels: { app: 'x', tier: 'web' } });
  const b = await runPod(c, 'b', { labels: { app: 'x', tier: 'db' } });
  await c.call('StopPodSandbox', { pod_sandbox_id: b });
  const ids = (r: { items?: { id: string }[]; containers?: { id: string }[] }) => (r.items ?? r.containers ?? []).map((x) => x.id).sort();

  t.same(ids(await c.call('ListPodSandbox', {})), [a, b].sort());
  t.same(ids(await c.call('ListPodSandbox', { filter: { id: a } })), [a]);
  t.same(ids(await c.call('ListPodSandbox', { filter: { id: a.slice(0, 12) } })), [a], 'a unique id prefix, as containerd');
  t.same(ids(await c.call('ListPodSandbox', { filter: { id: 'nope' } })), []);
  t.same(ids(await c.call('ListPodSandbox', { filter: { state: { state: 'SANDBOX_READY' } } })), [a]);
  t.same(ids(await c.call('ListPodSandbox', { filter: { state: { state: 'SANDBOX_NOTREADY' } } })), [b]);
  t.same(ids(await c.call('ListPodSandbox', { filter: { label_selector: { app: 'x' } } })), [a, b].sort());
  t.same(ids(await c.call('ListPodSandbox', { filter: { label_selector: { app: 'x', tier: 'db' } } })), [b]);
  t.same(ids(await c.call('ListPodSandbox', { filter: { label_selector: { app: 'x' }, state: { state: 'SANDBOX_READY' } } })), [a]);

  const list = await c.call('ListPodSandbox', { filter: { id: a } });
  t.match(list.items[0], { id: a, state: 'SANDBOX_READY', metadata: { name: 'a' }, labels: { app: 'x', tier: 'web' }, runtime_handler: '' });
  t.match(list.items[0].created_at, /^\d{19}$/);

  const c1 = await createContainer(c, a, 'one', { labels: { role: 'main' } });
  const c2 = await createContainer(c, a, 'two', { labels: { role: 'side' } });
  await c.call('StartContainer', { container_id: c2 });
  const c3 = await createContainer(c, await runPod(c, 'c'), 'three', { labels: { role: 'main' } });
  t.same(ids(await c.call('ListContainers', {})), [c1, c2, c3].sort());
  t.same(ids(await c.call('ListContainers', { filter: { pod_sandbox_id: a } })), [c1, c2].sort());
  t.same(ids(await c.call('ListContainers', { filter: { pod_sandbox_id: a.slice(0, 10) } })), [c1, c2].sort());
  t.same(ids(await c.call('ListContainers', { filter: { state: { state: 'CONTAINER_RUNNING' } } })), [c2]);
  t.same(ids(await c.call('ListContainers', { filter: { state: { state: 'CONTAINER_CREATED' } } })), [c1, c3].sort());
  t.same(ids(await c.call('ListContainers', { filter: { label_selector: { role: 'main' } } })), [c1, c3].sort());
  t.same(ids(await c.call('ListContainers', { filter: { label_selector: { role: 'main' }, pod_sandbox_id: a } })), [c1]);
  t.same(ids(await c.call('ListContainers', { filter: { id: c3 } })), [c3]);
  t.same(ids(await c.call('ListContainers', { filter: { id: c3, pod_sandbox_id: a } })), [], 'ANDed');
  const item = (await c.call('ListContainers', { filter: { id: c1 } })).containers[0];
  t.match(item, { id: c1, pod_sandbox_id: a, metadata: { name: 'one' }, image: { image: 'busybox' }, state: 'CONTAINER_CREATED', labels: { role: 'main' } });
  t.match(item.image_ref, /^sha256:/);
  t.equal((await c.call('ContainerStatus', { container_id: c1.slice(0, 8) })).status.id, c1, 'statuses take a unique prefix too');
});

t.test('ContainerStatus verbose info, UpdateContainerResources and UpdatePodSandboxResources', async (t) => {
  const { c } = await start(t);
  const sb = await runPod(c, 'p');
  const res = { cpu_shares: 512, memory_limit_in_bytes: 268435456 };
  const id = await createContainer(c, sb, 'app', {
    command: ['sleep', '30'], envs: [{ key: 'MODE', value: Buffer.from('test') }], working_dir: '/srv', stop_signal: 'SIGINT',
    linux: { resources: res, security_context: { run_as_user: { value: 1000 }, run_as_group: { value: 3000 }, supplemental_groups: [4000] } },
    mounts: [{ container_path: '/data', host_path: '/tmp', readonly: true }],
  });
  let r = await c.call('ContainerStatus', { container_id: id, verbose: true });
  const info = JSON.parse(r.info.info);
  t.match(info, { sandboxID: sb, name: 'app_p_default_uid-p_0', seccomp: { profileType: 'Unconfined' }, runtimeSpec: { process: { args: ['sleep', '30'], cwd: '/srv' } } });
  t.ok(info.runtimeSpec.process.env.includes('MODE=test'));
  t.equal(r.status.stop_signal, 'SIGINT', 'the stop signal the container asked for (KEP-4960)');
  t.match(r.status.resources.linux, { cpu_shares: '512', memory_limit_in_bytes: '268435456' });
  t.same(r.status.user.linux, { uid: '1000', gid: '3000', supplemental_groups: ['3000', '4000'] });
  t.match(r.status.mounts, [{ container_path: '/data', host_path: '/tmp', readonly: true }]);
  t.same((await c.call('ContainerStatus', { container_id: id })).info, {}, 'info only with verbose');

  await c.call('UpdateContainerResources', { container_id: id, linux: { cpu_shares: 1024, memory_limit_in_bytes: 536870912 } });
  r = await c.call('ContainerStatus', { container_id: id });
  t.match(r.status.resources.linux, { cpu_shares: '1024', memory_limit_in_bytes: '536870912' });
  await c.call('StartContainer', { container_id: id });
  await c.call('UpdateContainerResources', { container_id: id, linux: { cpu_quota: 50000, cpu_period: 100000 } });
  t.match((await c.call('ContainerStatus', { container_id: id })).status.resources.linux, { cpu_quota: '50000', cpu_period: '100000' });
  await c.call('StopContainer', { container_id: id, timeout: 0 });
  const err = await failure(c.call('UpdateContainerResources', { container_id: id, linux: { cpu_shares: 2 } }));
  t.equal(err.code, grpc.status.FAILED_PRECONDITION, 'not for an exited container');
  t.equal((await failure(c.call('UpdateContainerResources', { container_id: 'nope', linux: {} }))).code, grpc.status.NOT_FOUND);

  t.same(await c.call('UpdatePodSandboxResources', { pod_sandbox_id: sb, resources: { cpu_shares: 2048 } }), {});
  t.equal((await failure(c.call('UpdatePodSandboxResources', { pod_sandbox_id: 'nope' }))).code, grpc.status.NOT_FOUND);
});

t.test('control: exit a container now with a code, OOM-kill it; unknown or stopped ids are NotFoundError', async (t) => {
  const { m, c } = await start(t);
  const sb = await runPod(c, 'p');
  const a = await createContainer(c, sb, 'a');
  await c.call('StartContainer', { container_id: a });
  m.control.exitContainer(a, 42, 'Crashed');
  let s = (await c.call('ContainerStatus', { container_id: a })).status;
  t.equal(s.state, 'CONTAINER_EXITED', 'at once');
  t.equal(s.exit_code, 42);
  t.equal(s.reason, 'Crashed');
  t.throws(() => m.control.exitContainer(a, 1), NotFoundError, 'not running any more');
  t.throws(() => m.control.exitContainer('nope', 1), NotFoundError);
  t.throws(() => m.control.exitContainer(a, 300), RangeError);

  const b = await createContainer(c, sb, 'b');
  await c.call('StartContainer', { container_id: b });
  m.control.oomKill(b);
  s = (await c.call('ContainerStatus', { container_id: b })).status;
  t.equal(s.exit_code, 137);
  t.equal(s.reason, 'OOMKilled');

  const d = await createContainer(c, sb, 'd');
  await c.call('StartContainer', { container_id: d });
  m.control.exitContainer(d, 0);
  t.equal((await c.call('ContainerStatus', { container_id: d })).status.reason, 'Completed');

  const st = m.control.state() as { sandboxes: { id: string }[]; containers: { id: string; state: string; exitCode: number }[]; images: unknown[] };
  t.same(st.sandboxes.map((x) => x.id), [sb]);
  t.match(st.containers.find((x) => x.id === b), { state: 'CONTAINER_EXITED', exitCode: 137 });
  t.ok(st.images.length >= 7);
  m.control.reset();
  t.same((await c.call('ListPodSandbox', {})).items, []);
  t.same((await c.call('ListContainers', {})).containers, []);
});

async function seccompSetup(t: Test) {
  const env = await start(t);
  const profile = { defaultAction: 'SCMP_ACT_ERRNO', architectures: ['SCMP_ARCH_X86_64'], syscalls: [{ names: ['read', 'write', 'exit_group'], action: 'SCMP_ACT_ALLOW' }] };
  writeFileSync(join(env.m.seccompDir, 'good.json'), JSON.stringify(profile));
  writeFileSync(join(env.m.seccompDir, 'bad.json'), '{"defaultAction": "SCMP_ACT_EXPLODE"}');
  writeFileSync(join(env.m.seccompDir, 'notjson.json'), 'not json');
  return { ...env, profile };
}

t.test('seccomp: a Localhost profile is checked at CreateContainer and recorded; bad ones fail UNKNOWN', async (t) => {
  const { m, c, profile } = await seccompSetup(t);
  const sb = await runPod(c, 'p');
  const withProfile = (name: string, sc: object) => c.call('CreateContainer', { pod_sandbox_id: sb, config: { metadata: { name }, image: { image: 'busybox' }, linux: { security_context: sc } } });

  const ok = (await withProfile('ok', { seccomp: { profile_type: 'Localhost', localhost_ref: join(m.seccompDir, 'good.json') } })).container_id;
  const info = JSON.parse((await c.call('ContainerStatus', { container_id: ok, verbose: true })).info.info);
  t.same(info.seccomp, { profileType: 'Localhost', localhostRef: join(m.seccompDir, 'good.json'), source: 'seccomp', profile });
  t.same(info.runtimeSpec.linux.seccomp, profile, 'the loaded profile is in the runtime spec');
  t.match((m.control.state().containers as { id: string; seccomp: unknown }[]).find((x) => x.id === ok)?.seccomp, { profileType: 'Localhost' });

  for (const [name, ref, why] of [
    ['missing', join(m.seccompDir, 'missing.json'), /./],
    ['invalid', join(m.seccompDir, 'bad.json'), /SCMP_ACT_EXPLODE|defaultAction/],
    ['notjson', join(m.seccompDir, 'notjson.json'), /JSON|json/],
    ['not-a-profile', '/etc/passwd', /not valid JSON/],
    ['dotdot', 'localhost/../etc/passwd', /\.\./],
    ['empty', '', /empty/],
  ] as const) {
    const err = await failure(withProfile(name, { seccomp: { profile_type: 'Localhost', localhost_ref: ref } }));
    t.equal(err.code, grpc.status.UNKNOWN, `${name}: UNKNOWN, as containerd`);
    t.match(err.details, /^failed to generate seccomp spec opts: cannot load seccomp profile /, name);
    t.match(err.details, why, name);
  }
  t.ok(await withProfile('missing', { seccomp: { profile_type: 'RuntimeDefault' } }), 'a failed create does not keep the name reserved');

  // The deprecated path field, the other profile types, and privileged containers.
  const dep = (await withProfile('dep', { seccomp_profile_path: `localhost/${join(m.seccompDir, 'good.json')}` })).container_id;
  t.match(JSON.parse((await c.call('ContainerStatus', { container_id: dep, verbose: true })).info.info).seccomp, { profileType: 'Localhost', source: 'seccomp_profile_path' });
  const depBad = await failure(withProfile('depbad', { seccomp_profile_path: `localhost/${join(m.seccompDir, 'bad.json')}` }));
  t.equal(depBad.code, grpc.status.UNKNOWN);
  const rd = (await withProfile('rd', { seccomp_profile_path: 'runtime/default' })).container_id;
  t.match(JSON.parse((await c.call('ContainerStatus', { container_id: rd, verbose: true })).info.info).seccomp, { profileType: 'RuntimeDefault' });
  const un = (await withProfile('un', { seccomp: { profile_type: 'Unconfined' } })).container_id;
  t.match(JSON.parse((await c.call('ContainerStatus', { container_id: un, verbose: true })).info.info).seccomp, { profileType: 'Unconfined', source: 'seccomp' });
  // A privileged container needs a privileged sandbox (containerd refuses it otherwise; see security-context.test.ts).
  const privSb = await runPod(c, 'p-priv', { linux: { security_context: { privileged: true } } });
  const priv = (await c.call('CreateContainer', { pod_sandbox_id: privSb, config: { metadata: { name: 'priv' }, image: { image: 'busybox' }, linux: { security_context: { privileged: true, seccomp: { profile_type: 'Localhost', localhost_ref: '/nowhere.json' } } } } })).container_id;
  t.match(JSON.parse((await c.call('ContainerStatus', { container_id: priv, verbose: true })).info.info).seccomp, { profileType: 'Unconfined', source: 'privileged' },
    'privileged containers get no seccomp profile (containerd skips it)');
  const weird = await failure(withProfile('weird', { seccomp_profile_path: 'something/else' }));
  t.equal(weird.code, grpc.status.UNKNOWN);
  t.match(weird.details, /^failed to generate seccomp spec opts: invalid profile "something\/else"/, 'containerd\'s words');

  // The sandbox's own profile is checked at RunPodSandbox.
  const sbErr = await failure(c.call('RunPodSandbox', { config: pod('sec', { linux: { security_context: { seccomp: { profile_type: 'Localhost', localhost_ref: join(m.seccompDir, 'missing.json') } } } }) }));
  t.equal(sbErr.code, grpc.status.UNKNOWN);
  const calls = m.control.calls.list({ rpc: 'CreateContainer' });
  t.match(calls[0].request, { config: { linux: { security_context: { seccomp: { profile_type: 'Localhost' } } } } }, 'the call log shows the profile asked for');
});
