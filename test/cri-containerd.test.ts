// The mock CRI runtime against the real thing: one CRI client scenario runs against the mock
// (mocks/cri, in-process) and against a private containerd 1.6 (Debian's `containerd`, started by
// test/helpers/containerd.ts; .ci/run installs it), over every RPC containerd can answer here without
// pulling images or networking. For each call the gRPC status code (or success) and the response
// SHAPE (the fields present with their types, recursively) must be the same. Values naturally differ
// (versions, ids, timestamps, which images a node holds); the few places where the CRI leaves a
// runtime free to answer differently are normalised below, each with the reason. Any other difference
// is a mock bug and fails the test.
//
// Images: containerd must not pull, so the test builds a tiny image archive itself and imports it with
// `ctr` into the CRI namespace (no registry involved); the mock is preloaded with the same name and the
// same config User. The image holds /bin/sleep (with the libraries it links) so that it can also be the
// sandbox (pause) image: CreateContainer's security-context checks need a running sandbox, which the
// test runs with the host network (no CNI).
//
// Streaming: the URLs Exec, Attach and PortForward hand out are used on both with the same clients
// (WebSocket v4.channel.k8s.io through `ws`, SPDY/3.1 through spdy-transport: neither is the mock's own
// framing), and what comes back (the error channel's Status, how each SPDY stream ends, port forwarding's
// data and refusals) is compared.
//
// Without root or containerd the test is skipped with the reason, except in CI (`CI` set), where it
// must run and fails instead.
import t, { type Test } from 'tap';
import * as grpc from '@grpc/grpc-js';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as tar from 'tar';
import { containerdUnavailable, SANDBOX_IMAGE, startContainerd, type RunningContainerd } from './helpers/containerd.js';
import { criClient, type CriClient } from '../cri/proto.js';
import { createServer, type AddressInfo } from 'node:net';
import { wsCommand, wsConnect, type CommandResult, type Refusal } from './helpers/streaming-clients.js';
import { readAll, replied, spdyTransportCommand, spdyTransportConnect, type SpdyCommandResult } from './helpers/spdy-transport-client.js';
import { startMockCri } from '../mocks/cri/server.js';

// ------------------------------------------------------------------------------------------------
// Outcomes and shapes

/** What one call came to: success with the response, or the gRPC status. */
type Outcome = { ok: true; res: any } | { ok: false; code: number; details: string };

async function outcome(client: CriClient, rpc: string, req: object): Promise<Outcome> {
  try {
    return { ok: true, res: await client.call(rpc, req, { deadlineMs: 10_000 }) };
  } catch (e) {
    const err = e as grpc.ServiceError;
    if (typeof err.code !== 'number') throw e;
    return { ok: false, code: err.code, details: err.details };
  }
}

const codeName = (o: Outcome) => (o.ok ? 'OK' : grpc.status[o.code]);

/** map<string,string> fields of the responses compared here: their keys are data, not fields. */
const MAP_FIELDS = new Set(['info', 'labels', 'annotations']);

interface ShapeRules {
  /**
   * Message-typed fields (by path, `[]` for any element) where one runtime may leave the message
   * unset (null) while the other fills it in; when both are set their shapes are still compared.
   */
  optionalMessages?: string[];
}

/**
 * Differences between the shapes of `a` (mock) and `b` (containerd), as readable lines. Both are
 * decoded from the same api.proto with defaults on, so every field is present on both sides; what
 * the wire decides is: null (message unset) against an object, each field's JS type, map values,
 * and the shape of list elements. Lists are runtime state (which containers, images, conditions a
 * node has), so an empty list matches any list; non-empty lists must hold elements of one shape.
 */
function shapeDiff(a: unknown, b: unknown, rules: ShapeRules, path = ''): string[] {
  const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  const ka = kind(a);
  const kb = kind(b);
  const generic = path.replace(/\[\d+\]/g, '[]');
  if (ka !== kb) {
    if ((ka === 'null' || kb === 'null') && (ka === 'object' || kb === 'object') && rules.optionalMessages?.includes(generic)) return [];
    return [`${path || '<response>'}: mock has ${ka}, containerd has ${kb}`];
  }
  if (ka === 'array') {
    const xa = a as unknown[];
    const xb = b as unknown[];
    if (xa.length === 0 || xb.length === 0) return [];
    // Each element against the other side's first: one shape per list.
    return [...new Set([
      ...xa.flatMap((e, i) => shapeDiff(e, xb[0], rules, `${path}[${i}]`)),
      ...xb.flatMap((e, i) => shapeDiff(xa[0], e, rules, `${path}[${i}]`)),
    ])];
  }
  if (ka === 'object') {
    const oa = a as Record<string, unknown>;
    const ob = b as Record<string, unknown>;
    const last = path.split('.').pop() ?? '';
    if (MAP_FIELDS.has(last)) {
      const bad = [...Object.entries(oa).map(([k, v]) => ['mock', k, v] as const), ...Object.entries(ob).map(([k, v]) => ['containerd', k, v] as const)]
        .filter(([, , v]) => typeof v !== 'string');
      return bad.map(([who, k, v]) => `${path}[${JSON.stringify(k)}]: ${who} has a ${kind(v)} value in a map<string,string>`);
    }
    const keys = new Set([...Object.keys(oa), ...Object.keys(ob)]);
    const out: string[] = [];
    for (const k of [...keys].sort()) {
      const p = path ? `${path}.${k}` : k;
      if (!(k in oa)) out.push(`${p}: missing on the mock`);
      else if (!(k in ob)) out.push(`${p}: missing on containerd`);
      else out.push(...shapeDiff(oa[k], ob[k], rules, p));
    }
    return out;
  }
  return [];
}

// ------------------------------------------------------------------------------------------------
// A small image of our own, imported into containerd without a registry

/** The name both runtimes hold; docker.io/library so the short forms (`orch-probe:1.0`) resolve to it. */
const IMAGE = 'docker.io/library/orch-probe:1.0';
const IMAGE_REPO = 'docker.io/library/orch-probe';

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** The image config's User: numeric with a group, so both runtimes resolve it alike without files. */
const IMAGE_USER = '1000:1000';

/**
 * The host's /bin/sleep and the shared libraries it loads (from `ldd`), as paths to copy into the
 * image so that it runs as a sandbox; undefined when they cannot be found here.
 */
function sleepAndLibraries(): string[] | undefined {
  const ldd = spawnSync('ldd', ['/bin/sleep'], { encoding: 'utf8', timeout: 10_000 });
  if (ldd.status !== 0) return undefined;
  const libs = [...ldd.stdout.matchAll(/(\/\S+) \(0x[0-9a-f]+\)/g)].map((m) => m[1]!);
  const files = ['/bin/sleep', ...libs];
  return files.every((f) => existsSync(f)) ? files : undefined;
}

/**
 * Writes a Docker image archive (the `docker save` layout `ctr images import` reads): one layer
 * holding /etc/passwd and, when the host has them, /bin/sleep with its libraries; a config whose User
 * is numeric (so the image reports a uid) and whose entrypoint sleeps; a manifest.json naming IMAGE.
 * Returns the archive's path and whether the image can run.
 */
async function writeImageArchive(dir: string): Promise<{ archive: string; runnable: boolean }> {
  const root = join(dir, 'rootfs');
  await mkdir(join(root, 'etc'), { recursive: true });
  await writeFile(join(root, 'etc', 'passwd'), 'root:x:0:0:root:/root:/bin/sh\nprobe:x:1000:1000::/:/bin/sh\n');
  const binaries = sleepAndLibraries();
  for (const f of binaries ?? []) {
    await mkdir(join(root, dirname(f)), { recursive: true });
    await copyFile(f, join(root, f));
  }
  const top = ['etc', ...new Set((binaries ?? []).map((f) => f.split('/')[1]!))];
  const layerTmp = join(dir, 'layer.tar');
  await tar.c({ cwd: root, file: layerTmp, portable: true, noMtime: true }, top);
  const layerDigest = sha256(await readFile(layerTmp));
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const config = JSON.stringify({
    architecture: arch,
    os: 'linux',
    config: { User: IMAGE_USER, Entrypoint: ['/bin/sleep'], Cmd: ['infinity'] },
    rootfs: { type: 'layers', diff_ids: [`sha256:${layerDigest}`] },
  });
  const configName = `${sha256(config)}.json`;
  const staging = join(dir, 'archive');
  await mkdir(join(staging, layerDigest), { recursive: true });
  await rename(layerTmp, join(staging, layerDigest, 'layer.tar'));
  await writeFile(join(staging, configName), config);
  await writeFile(join(staging, 'manifest.json'), JSON.stringify([{ Config: configName, RepoTags: [IMAGE], Layers: [`${layerDigest}/layer.tar`] }]));
  const archive = join(dir, 'orch-probe.tar');
  await tar.c({ cwd: staging, file: archive, portable: true }, ['manifest.json', configName, layerDigest]);
  return { archive, runnable: binaries !== undefined };
}

/**
 * Imports the archive into containerd's CRI namespace and gives it a repo digest, as a pull would:
 * a pulled image is known by its tag and by `<repo>@<manifest digest>`; an import only makes the tag.
 */
function importImage(ctd: RunningContainerd, archive: string): void {
  ctd.ctr(['images', 'import', '--snapshotter', ctd.snapshotter, archive]);
  const listed = ctd.ctr(['images', 'ls', `name==${IMAGE}`]);
  const digest = /\bsha256:[0-9a-f]{64}\b/.exec(listed.split('\n').find((l) => l.startsWith(IMAGE)) ?? '')?.[0];
  if (!digest) throw new Error(`ctr images ls shows no digest for ${IMAGE}:\n${listed}`);
  ctd.ctr(['images', 'tag', IMAGE, `${IMAGE_REPO}@${digest}`]);
  // The same image is the sandbox image (a second name; the images subtest removes it with the image).
  ctd.ctr(['images', 'tag', '--force', IMAGE, SANDBOX_IMAGE]);
}

// ------------------------------------------------------------------------------------------------

const unavailable = containerdUnavailable();
const inCi = Boolean(process.env.CI);

t.test('the mock CRI runtime answers as containerd does', { skip: unavailable && !inCi ? `${unavailable}; CI runs this test` : false }, async (t) => {
  if (unavailable) {
    t.fail(`${unavailable}, and CI must run this test`);
    return;
  }
  const work = await mkdtemp(join(tmpdir(), 'orch-cri-diff-'));
  t.teardown(() => rm(work, { recursive: true, force: true }));

  const { archive, runnable } = await writeImageArchive(join(work, 'image'));
  // Both start at once; whichever starts is closed at teardown even when the other fails.
  const [ctdStarted, mockStarted] = await Promise.allSettled([
    startContainerd(),
    startMockCri({ socket: join(work, 'mock', 'cri.sock'), root: join(work, 'mock-root'), images: [`${IMAGE},tag=${SANDBOX_IMAGE},user=${IMAGE_USER}`] }),
  ]);
  if (ctdStarted.status === 'fulfilled') t.teardown(() => ctdStarted.value.close());
  if (mockStarted.status === 'fulfilled') t.teardown(() => mockStarted.value.close());
  if (ctdStarted.status === 'rejected') throw ctdStarted.reason;
  if (mockStarted.status === 'rejected') throw mockStarted.reason;
  const ctd = ctdStarted.value;
  const mock = mockStarted.value;
  importImage(ctd, archive);
  t.comment(`containerd ${ctd.version}: ${ctd.criUrl} (snapshotter ${ctd.snapshotter}); mock: ${mock.criUrl}`);

  const clients = { mock: criClient(mock.criUrl), containerd: criClient(ctd.criUrl) };
  t.teardown(() => { clients.mock.close(); clients.containerd.close(); });

  /** Runs `req` (or a per-runtime request) on both; returns both outcomes. */
  async function both(rpc: string, req: object | ((who: 'mock' | 'containerd') => object)): Promise<{ mock: Outcome; containerd: Outcome }> {
    const reqOf = (who: 'mock' | 'containerd') => (typeof req === 'function' ? req(who) : req);
    const [m, c] = await Promise.all([outcome(clients.mock, rpc, reqOf('mock')), outcome(clients.containerd, rpc, reqOf('containerd'))]);
    return { mock: m, containerd: c };
  }

  const describe = (o: Outcome) => (o.ok ? 'OK' : `${grpc.status[o.code]} (${o.details})`);

  /**
   * The core comparison: same status; on success, same shape. `codes` widens the accepted codes
   * where the CRI leaves the choice open (the caller says why); each side must then answer one of them.
   */
  async function same(tt: Test, name: string, rpc: string, req: object | ((who: 'mock' | 'containerd') => object), opts: ShapeRules & { codes?: string[] } = {}) {
    const r = await both(rpc, req);
    if (opts.codes) {
      tt.ok(opts.codes.includes(codeName(r.containerd)), `${name}: containerd answers one of ${opts.codes.join('/')}`, { containerd: describe(r.containerd) });
      tt.ok(opts.codes.includes(codeName(r.mock)), `${name}: the mock answers one of ${opts.codes.join('/')} (containerd: ${describe(r.containerd)})`, { mock: describe(r.mock) });
    } else {
      tt.equal(codeName(r.mock), codeName(r.containerd), `${name}: same status (${codeName(r.containerd)})`, { mock: describe(r.mock), containerd: describe(r.containerd) });
    }
    if (r.mock.ok && r.containerd.ok) {
      const diff = shapeDiff(r.mock.res, r.containerd.res, opts);
      tt.same(diff, [], `${name}: same response shape`, { mock: r.mock.res, containerd: r.containerd.res });
    }
    return r;
  }

  const UNKNOWN_ID = 'f0e1d2c3b4a5968778695a4b3c2d1e0f00112233445566778899aabbccddeeff';

  await t.test('runtime: Version, Status, UpdateRuntimeConfig', async (tt) => {
    const v = await same(tt, 'Version', 'Version', { version: 'v1' });
    if (v.mock.ok && v.containerd.ok) {
      // runtime_name and runtime_version are each runtime's own; the API version is the protocol's.
      tt.equal(v.mock.res.runtime_api_version, v.containerd.res.runtime_api_version, 'Version: same runtime_api_version (v1)');
      tt.equal(v.mock.res.version, v.containerd.res.version, 'Version: same kubelet API version string');
    }

    // StatusResponse.features (runtime-wide features) is newer than containerd 1.6's CRI API, which
    // leaves it unset; a runtime that knows it fills it in. runtime_handlers likewise is empty there.
    const rules = { optionalMessages: ['features'] };
    for (const verbose of [false, true]) {
      const s = await same(tt, `Status verbose=${verbose}`, 'Status', { verbose }, rules);
      if (!s.mock.ok || !s.containerd.ok) continue;
      for (const [who, res] of [['mock', s.mock.res], ['containerd', s.containerd.res]] as const) {
        const types = (res.status?.conditions ?? []).map((c: any) => c.type);
        // The kubelet requires these two conditions by name; their values differ legitimately here:
        // containerd without CNI config reports NetworkReady false, the mock simulates a ready network.
        tt.ok(types.includes('RuntimeReady') && types.includes('NetworkReady'), `Status verbose=${verbose}: ${who} reports RuntimeReady and NetworkReady`, { types });
        const runtimeReady = (res.status?.conditions ?? []).find((c: any) => c.type === 'RuntimeReady');
        tt.equal(runtimeReady?.status, true, `Status verbose=${verbose}: ${who} is RuntimeReady`);
        // info "should only be returned non-empty when Verbose is true"; its keys are each runtime's own.
        if (!verbose) tt.same(res.info, {}, `Status verbose=false: ${who} returns no info`);
        else tt.ok(Object.keys(res.info).length > 0, `Status verbose=true: ${who} returns info`);
      }
    }
    // The kubelet sends the pod CIDR; a runtime without CNI-managed ranges accepts and ignores it.
    await same(tt, 'UpdateRuntimeConfig', 'UpdateRuntimeConfig', { runtime_config: { network_config: { pod_cidr: '10.88.0.0/16' } } });
  });

  await t.test('sandboxes and containers: lists and unknown ids', async (tt) => {
    await same(tt, 'ListPodSandbox', 'ListPodSandbox', {});
    await same(tt, 'ListPodSandbox filtered', 'ListPodSandbox', { filter: { id: UNKNOWN_ID, state: { state: 'SANDBOX_READY' }, label_selector: { app: 'x' } } });
    await same(tt, 'ListContainers', 'ListContainers', {});
    await same(tt, 'ListContainers filtered', 'ListContainers', { filter: { id: UNKNOWN_ID, pod_sandbox_id: UNKNOWN_ID, state: { state: 'CONTAINER_RUNNING' }, label_selector: { app: 'x' } } });
    await same(tt, 'ListContainerStats', 'ListContainerStats', {});
    await same(tt, 'ListContainerStats filtered', 'ListContainerStats', { filter: { id: UNKNOWN_ID } });
    await same(tt, 'ListPodSandboxStats', 'ListPodSandboxStats', {});
    await same(tt, 'ListPodSandboxStats filtered', 'ListPodSandboxStats', { filter: { id: UNKNOWN_ID } });

    // Unknown ids: NOT_FOUND where the CRI says the call fails for a missing object.
    await same(tt, 'ContainerStatus of an unknown id', 'ContainerStatus', { container_id: UNKNOWN_ID });
    await same(tt, 'ContainerStatus verbose of an unknown id', 'ContainerStatus', { container_id: UNKNOWN_ID, verbose: true });
    await same(tt, 'PodSandboxStatus of an unknown id', 'PodSandboxStatus', { pod_sandbox_id: UNKNOWN_ID });
    await same(tt, 'PodSandboxStatus verbose of an unknown id', 'PodSandboxStatus', { pod_sandbox_id: UNKNOWN_ID, verbose: true });
    await same(tt, 'StartContainer of an unknown id', 'StartContainer', { container_id: UNKNOWN_ID });
    await same(tt, 'StopContainer of an unknown id', 'StopContainer', { container_id: UNKNOWN_ID, timeout: 1 });
    await same(tt, 'ContainerStats of an unknown id', 'ContainerStats', { container_id: UNKNOWN_ID });
    await same(tt, 'PodSandboxStats of an unknown id', 'PodSandboxStats', { pod_sandbox_id: UNKNOWN_ID });
    await same(tt, 'UpdateContainerResources of an unknown id', 'UpdateContainerResources', { container_id: UNKNOWN_ID, linux: { cpu_shares: 512 } });
    await same(tt, 'ReopenContainerLog of an unknown id', 'ReopenContainerLog', { container_id: UNKNOWN_ID });
    await same(tt, 'ExecSync in an unknown container', 'ExecSync', { container_id: UNKNOWN_ID, cmd: ['true'], timeout: 5 });
    // Exec, Attach and PortForward hand out a URL of the runtime's streaming server; both have one, and
    // both look the container (sandbox) up before anything else. The URLs are used in 'streaming' below.
    await same(tt, 'Exec in an unknown container', 'Exec', { container_id: UNKNOWN_ID, cmd: ['sh'], stdout: true });
    await same(tt, 'Attach to an unknown container', 'Attach', { container_id: UNKNOWN_ID, stdout: true });
    await same(tt, 'PortForward to an unknown sandbox', 'PortForward', { pod_sandbox_id: UNKNOWN_ID, port: [80] });
    await same(tt, 'CreateContainer in an unknown sandbox', 'CreateContainer', {
      pod_sandbox_id: UNKNOWN_ID,
      config: { metadata: { name: 'c' }, image: { image: IMAGE } },
      sandbox_config: { metadata: { name: 'p', uid: 'u', namespace: 'n' } },
    });

    // Removal is idempotent: removing what does not exist succeeds.
    await same(tt, 'RemoveContainer of an unknown id', 'RemoveContainer', { container_id: UNKNOWN_ID });
    await same(tt, 'RemovePodSandbox of an unknown id', 'RemovePodSandbox', { pod_sandbox_id: UNKNOWN_ID });
    // StopPodSandbox "must not return an error if all relevant resources have already been
    // reclaimed": for an id never seen, containerd answers NOT_FOUND (the kubelet takes that as
    // stopped) while CRI-O answers OK; both follow the CRI.
    await same(tt, 'StopPodSandbox of an unknown id', 'StopPodSandbox', { pod_sandbox_id: UNKNOWN_ID }, { codes: ['OK', 'NOT_FOUND'] });

    // An empty id names nothing: both refuse it. The CRI fixes no code for a malformed request;
    // containerd says UNKNOWN ("Prefix can't be empty" from its id index), INVALID_ARGUMENT or
    // NOT_FOUND say the same more precisely.
    const refused = { codes: ['UNKNOWN', 'INVALID_ARGUMENT', 'NOT_FOUND'] };
    await same(tt, 'ContainerStatus of an empty id', 'ContainerStatus', { container_id: '' }, refused);
    await same(tt, 'PodSandboxStatus of an empty id', 'PodSandboxStatus', { pod_sandbox_id: '' }, refused);
    await same(tt, 'StopContainer of an empty id', 'StopContainer', { container_id: '' }, refused);
    await same(tt, 'RemoveContainer of an empty id', 'RemoveContainer', { container_id: '' }, refused);
    await same(tt, 'StopPodSandbox of an empty id', 'StopPodSandbox', { pod_sandbox_id: '' }, refused);
    await same(tt, 'RemovePodSandbox of an empty id', 'RemovePodSandbox', { pod_sandbox_id: '' }, refused);
    await same(tt, 'ExecSync with an empty id', 'ExecSync', { container_id: '', cmd: [] }, refused);
    await same(tt, 'CreateContainer with an empty sandbox id', 'CreateContainer', { pod_sandbox_id: '', config: { metadata: { name: 'c' }, image: { image: IMAGE } } }, refused);
    // A sandbox config without metadata cannot name a pod: refused before anything is created.
    await same(tt, 'RunPodSandbox without metadata', 'RunPodSandbox', {}, refused);
  });

  // What containerd 1.6 lacks is version-specific: a later containerd implements some of it, and the
  // comparison below would no longer describe a runtime without the API.
  const is16 = ctd.version.startsWith('1.6.');
  await t.test('calls containerd 1.6 does not have', { skip: is16 ? false : `containerd ${ctd.version} is not 1.6` }, async (tt) => {
    // containerd 1.6 has no CheckpointContainer: it answers UNIMPLEMENTED. The mock offers the call
    // by default; switched off (a runtime lacking the API, as suites drive it) it must answer the same.
    mock.control.setCheckpointSupported(false);
    await same(tt, 'CheckpointContainer on a runtime without it', 'CheckpointContainer', { container_id: UNKNOWN_ID, location: join(work, 'x.tar') });
    await same(tt, 'CheckpointContainer (empty request) on a runtime without it', 'CheckpointContainer', {});
    mock.control.setCheckpointSupported(true);

    // RPCs added to runtime.v1 after containerd 1.6: containerd answers UNIMPLEMENTED, which is what
    // the kubelet expects from a runtime that predates them (it falls back). The mock implements
    // them, so only containerd's answer is recorded here; the mock's are tested in its own suites.
    for (const rpc of ['ListMetricDescriptors', 'ListPodSandboxMetrics', 'RuntimeConfig']) {
      const c = await outcome(clients.containerd, rpc, {});
      tt.equal(codeName(c), 'UNIMPLEMENTED', `${rpc}: containerd 1.6 predates it`, { containerd: describe(c) });
    }
  });

  // CreateContainer's checks of the security context need a running sandbox on containerd: one with
  // the host network (no CNI), run from our image. Everything it runs is removed at the end.
  await t.test('security context at CreateContainer', { skip: runnable ? false : 'no /bin/sleep with its libraries (ldd) to make a runnable sandbox image' }, async (tt) => {
    const sandboxConfig = { metadata: { name: 'sc', uid: 'sc-uid', namespace: 'diff' }, linux: { security_context: { namespace_options: { network: 'NODE', pid: 'POD', ipc: 'POD' } } } };
    const sb = await both('RunPodSandbox', { config: sandboxConfig });
    tt.ok(sb.mock.ok && sb.containerd.ok, 'RunPodSandbox with the host network on both', { mock: describe(sb.mock), containerd: describe(sb.containerd), log: sb.containerd.ok ? '' : ctd.log().split('\n').slice(-10).join('\n') });
    if (!sb.mock.ok || !sb.containerd.ok) return;
    const ids = { mock: sb.mock.res.pod_sandbox_id as string, containerd: sb.containerd.res.pod_sandbox_id as string };
    try {
      // A profile file outside the mock's seccomp directory: containerd reads any absolute path.
      const profileDir = join(work, 'profiles');
      await mkdir(profileDir, { recursive: true });
      const profilePath = join(profileDir, 'allow.json');
      await writeFile(profilePath, JSON.stringify({ defaultAction: 'SCMP_ACT_ALLOW' }));
      let n = 0;
      const create = (what: string, sc: object, opts: { codes?: string[] } = {}) => same(tt, `CreateContainer ${what}`, 'CreateContainer', (who) => ({
        pod_sandbox_id: ids[who], sandbox_config: sandboxConfig,
        config: { metadata: { name: `c${n++}` }, image: { image: IMAGE }, linux: { security_context: sc } },
      }), opts);

      const group = await create('with run_as_group and no user', { run_as_group: { value: 1000 } });
      for (const [who, o] of Object.entries(group)) {
        tt.match(o.ok ? 'OK' : o.details, /user group "1000" is specified without user/, `run_as_group without a user: ${who} names the problem`);
      }
      await create('with an absolute Localhost seccomp profile outside <root>/seccomp', { seccomp: { profile_type: 'Localhost', localhost_ref: profilePath } });
      await create('with the same profile as seccomp_profile_path localhost/<path>', { seccomp_profile_path: `localhost/${profilePath}` });
      await create('with a missing absolute Localhost profile', { seccomp: { profile_type: 'Localhost', localhost_ref: join(profileDir, 'missing.json') } });
      await create('with a localhost_ref on a RuntimeDefault seccomp profile', { seccomp: { profile_type: 'RuntimeDefault', localhost_ref: profilePath } });
      await create('with an unknown seccomp_profile_path', { seccomp_profile_path: 'bogus' });
      await create('privileged in an unprivileged sandbox', { privileged: true });
      await create('with a run_as_username the image lacks', { run_as_username: 'ghost' });

      // The user a container runs as: the image's User without one in the request, else the request's.
      // containerd 1.6 predates ContainerStatus.user; both show the process user in the verbose info.
      const processUser = async (what: string, sc: object, want: { uid: number; gid: number }) => {
        const made = await create(what, sc);
        if (!made.mock.ok || !made.containerd.ok) return;
        const idOf = { mock: made.mock.res.container_id as string, containerd: made.containerd.res.container_id as string };
        const st = await both('ContainerStatus', (who) => ({ container_id: idOf[who], verbose: true }));
        for (const [who, o] of Object.entries(st)) {
          const user = o.ok ? JSON.parse(o.res.info.info ?? '{}').runtimeSpec?.process?.user : undefined;
          tt.same(user && { uid: Number(user.uid), gid: Number(user.gid) }, want, `${what}: ${who} runs it as ${want.uid}:${want.gid}`, { user });
        }
      };
      await processUser('without a user (the image\'s User)', {}, { uid: 1000, gid: 1000 });
      await processUser('with run_as_user and run_as_group', { run_as_user: { value: 1234 }, run_as_group: { value: 55 } }, { uid: 1234, gid: 55 });
      await processUser('with run_as_username root', { run_as_username: 'root' }, { uid: 0, gid: 0 });
    } finally {
      await both('StopPodSandbox', (who) => ({ pod_sandbox_id: ids[who] }));
      const removed = await both('RemovePodSandbox', (who) => ({ pod_sandbox_id: ids[who] }));
      tt.ok(removed.mock.ok && removed.containerd.ok, 'the sandboxes and their containers are removed', { mock: describe(removed.mock), containerd: describe(removed.containerd) });
    }
  });

  // The streaming servers themselves: the URLs Exec, Attach and PortForward hand out, what each refuses,
  // and the URLs used with the same clients on both (WebSocket v4.channel.k8s.io, and SPDY/3.1 through
  // spdy-transport, an implementation independent of the mock's). A host-network sandbox runs
  // `/bin/sleep 3600` from our image; port forwarding in a host-network sandbox reaches the host's
  // loopback on containerd, where a small echo server listens; the mock's sandbox declares that port
  // (its port convention: a declared container port answers as an echo responder).
  await t.test('streaming', { skip: runnable ? false : 'no /bin/sleep with its libraries (ldd) to make a runnable image' }, async (tt) => {
    const echo = createServer((sock) => sock.pipe(sock));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', () => resolve()));
    tt.teardown(() => echo.close());
    const echoPort = (echo.address() as AddressInfo).port;
    // A port nothing listens on: one the system just handed out and took back.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const sandboxConfig = {
      metadata: { name: 'st', uid: 'st-uid', namespace: 'diff' },
      port_mappings: [{ protocol: 'TCP', container_port: echoPort, host_port: 0, host_ip: '' }],
      linux: { security_context: { namespace_options: { network: 'NODE', pid: 'POD', ipc: 'POD' } } },
    };
    const sb = await both('RunPodSandbox', { config: sandboxConfig });
    tt.ok(sb.mock.ok && sb.containerd.ok, 'RunPodSandbox with the host network on both', { mock: describe(sb.mock), containerd: describe(sb.containerd) });
    if (!sb.mock.ok || !sb.containerd.ok) return;
    const sbIds = { mock: sb.mock.res.pod_sandbox_id as string, containerd: sb.containerd.res.pod_sandbox_id as string };
    try {
      const made = await both('CreateContainer', (who) => ({
        pod_sandbox_id: sbIds[who], sandbox_config: sandboxConfig,
        config: { metadata: { name: 'sleeper' }, image: { image: IMAGE }, command: ['/bin/sleep'], args: ['3600'] },
      }));
      tt.ok(made.mock.ok && made.containerd.ok, 'CreateContainer /bin/sleep 3600 on both', { mock: describe(made.mock), containerd: describe(made.containerd) });
      if (!made.mock.ok || !made.containerd.ok) return;
      const ids = { mock: made.mock.res.container_id as string, containerd: made.containerd.res.container_id as string };
      const started = await same(tt, 'StartContainer', 'StartContainer', (who) => ({ container_id: ids[who] }));
      if (!started.mock.ok || !started.containerd.ok) return;

      const execReq = (cmd: string[], o: object = {}) => (who: 'mock' | 'containerd') => ({ container_id: ids[who], cmd, stdin: false, stdout: true, stderr: true, tty: false, ...o });
      const urls = async (what: string, rpc: string, req: (who: 'mock' | 'containerd') => object, kind: string) => {
        const r = await same(tt, what, rpc, req);
        const out = {} as Record<'mock' | 'containerd', string>;
        for (const who of ['mock', 'containerd'] as const) {
          const o = r[who];
          if (!o.ok) continue;
          out[who] = o.res.url;
          const m = /^http:\/\/127\.0\.0\.1:\d+\/([a-z]+)\/([^/]+)$/.exec(o.res.url);
          tt.ok(m && m[1] === kind, `${what}: ${who} answers http://127.0.0.1:<port>/${kind}/<token>`, { url: o.res.url });
          tt.comment(`${what}: ${who}'s token ${JSON.stringify(m?.[2])}`);
        }
        return out;
      };
      await urls('Exec URL', 'Exec', execReq(['/bin/sleep', '0']), 'exec');
      await urls('Attach URL', 'Attach', (who) => ({ container_id: ids[who], stdin: false, stdout: true, stderr: true, tty: false }), 'attach');
      await urls('PortForward URL', 'PortForward', (who) => ({ pod_sandbox_id: sbIds[who], port: [echoPort] }), 'portforward');

      // Invalid requests: the streaming server's checks (INVALID_ARGUMENT on both).
      await same(tt, 'Exec with tty and stderr', 'Exec', execReq(['/bin/sleep', '0'], { tty: true }));
      await same(tt, 'Exec with no stream at all', 'Exec', execReq(['/bin/sleep', '0'], { stdout: false, stderr: false }));
      await same(tt, 'Attach with tty and stderr', 'Attach', (who) => ({ container_id: ids[who], stdout: true, stderr: true, tty: true }));
      await same(tt, 'Attach with no stream at all', 'Attach', (who) => ({ container_id: ids[who] }));
      await same(tt, 'PortForward with an empty sandbox id', 'PortForward', { pod_sandbox_id: '', port: [echoPort] });

      await same(tt, 'Exec with an empty container id', 'Exec', { container_id: '', cmd: ['/bin/sleep', '0'], stdout: true });
      await same(tt, 'Attach with an empty container id', 'Attach', { container_id: '', stdout: true });

      // The URLs used, with the same client on both: the error channel's v1 Status is compared.
      type Who = 'mock' | 'containerd';
      const status = (r: CommandResult | Refusal | undefined) => {
        if (!r || 'refused' in r) return { refused: r };
        try { return JSON.parse(r.error); } catch { return { unparsed: r.error }; }
      };
      /** A Status without its words, which are each runtime's (the exec id is random, the program's path differs). */
      const shape = (st: any) => ({ ...st, message: typeof st.message, details: st.details && { causes: st.details.causes.map((c: any) => ({ ...c, message: c.reason === 'ExitCode' ? c.message : typeof c.message })) } });
      /** With SPDY: how each runtime ended each stream (FIN or RST_STREAM), which a client may rely on. */
      const sameEnds = (what: string, r: Record<Who, CommandResult | Refusal | undefined>) => {
        const ends = (x: CommandResult | Refusal | undefined) => (x && 'ends' in x ? (x as SpdyCommandResult).ends : undefined);
        if (ends(r.containerd)) tt.same(ends(r.mock), ends(r.containerd), `${what}: the streams end as containerd ends them`, { mock: ends(r.mock), containerd: ends(r.containerd) });
      };
      const execOn = async (cmd: string[], client: (url: string) => Promise<CommandResult | Refusal>) => {
        const r = await both('Exec', execReq(cmd));
        const res = {} as Record<Who, CommandResult | Refusal | undefined>;
        for (const who of ['mock', 'containerd'] as const) {
          const o = r[who];
          res[who] = o.ok ? await client(o.res.url) : undefined;
        }
        sameEnds(`exec ${cmd.join(' ')}`, res);
        return res;
      };
      const clients = [
        ['WebSocket v4.channel.k8s.io', (url: string) => wsCommand({ url }, 'v4.channel.k8s.io')],
        ['SPDY/3.1 v4.channel.k8s.io (spdy-transport)', (url: string) => spdyTransportCommand({ url }, ['v4.channel.k8s.io'], { stderr: true })],
      ] as const;
      for (const [via, client] of clients) {
        const ok = await execOn(['/bin/sleep', '0'], client);
        tt.same(status(ok.mock), status(ok.containerd), `exec /bin/sleep 0 over ${via}: the same Status`, { mock: ok.mock, containerd: ok.containerd });
        tt.same(status(ok.containerd), { metadata: {}, status: 'Success' }, `exec /bin/sleep 0 over ${via}: Success`);
        if (via.startsWith('WebSocket')) {
          tt.equal((ok.mock as CommandResult).firstChannel, (ok.containerd as CommandResult).firstChannel, `exec over ${via}: the same channel announces the connection`);
        }

        // A bad argument: sleep exits 1. The Status is NonZeroExitCode with the code as its cause; the
        // message wraps each runtime's exit error (both: "... error executing command [argv], exit code 1").
        const bad = await execOn(['/bin/sleep', 'x'], client);
        const [m, c] = [status(bad.mock), status(bad.containerd)];
        tt.same(shape(m), shape(c), `exec /bin/sleep x over ${via}: the same NonZeroExitCode Status (words aside)`, { mock: m, containerd: c });
        tt.match(c, { status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '1' }] } }, `exec /bin/sleep x over ${via}: exit code 1 on containerd`);
        tt.comment(`exec /bin/sleep x over ${via}: messages: mock ${JSON.stringify(m.message)}, containerd ${JSON.stringify(c.message)}`);
        // What sleep writes is the program's own (the mock's simulated sleep, the host's coreutils here).
        for (const who of ['mock', 'containerd'] as const) tt.ok((bad[who] as CommandResult | undefined)?.stderr, `exec /bin/sleep x over ${via}: ${who}'s sleep says why on stderr`, { stderr: (bad[who] as CommandResult | undefined)?.stderr });

        // A program that does not exist: the exec cannot start; an InternalError in runc's words.
        const none = await execOn(['/bin/nonexistent'], client);
        const [mn, cn] = [status(none.mock), status(none.containerd)];
        tt.same(shape(mn), shape(cn), `exec /bin/nonexistent over ${via}: the same InternalError Status (words aside)`, { mock: mn, containerd: cn });
        const words = (st: any) => String(st.message).replace(/failed to start exec "[0-9a-f]+"/, 'failed to start exec "<id>"');
        tt.equal(words(mn), words(cn), `exec /bin/nonexistent over ${via}: the same words but for the exec id`);
        for (const who of ['mock', 'containerd'] as const) {
          const r = none[who] as CommandResult | undefined;
          tt.same([r?.stdout, r?.stderr], ['', ''], `exec /bin/nonexistent over ${via}: ${who} writes nothing on stdout and stderr`);
        }
      }

      // ExecSync says the same of a program that does not exist (runc's words for a path: stat fails).
      const sync = await same(tt, 'ExecSync /bin/nonexistent', 'ExecSync', (who) => ({ container_id: ids[who], cmd: ['/bin/nonexistent'], timeout: 5 }));
      const syncWords = (o: Outcome) => (o.ok ? 'OK' : o.details.replace(/failed to start exec "[0-9a-f]+"/, 'failed to start exec "<id>"'));
      tt.equal(syncWords(sync.mock), syncWords(sync.containerd), 'ExecSync /bin/nonexistent: the same words but for the exec id');

      // Port forwarding: the mock's echo responder and the host's echo server answer alike; a port nothing
      // listens on is refused on the error stream in the same words (but for the sandbox id).
      const pf = await both('PortForward', (who) => ({ pod_sandbox_id: sbIds[who], port: [] }));
      const refusals = {} as Record<Who, string>;
      for (const who of ['mock', 'containerd'] as const) {
        const o = pf[who];
        if (!o.ok) continue;
        const s = await spdyTransportConnect({ url: o.res.url }, ['portforward.k8s.io']);
        if ('refused' in s) { tt.fail(`port forwarding on ${who}: refused ${s.status} ${s.body}`); continue; }
        try {
          tt.equal(s.protocol, 'portforward.k8s.io', `port forwarding on ${who}: portforward.k8s.io`);
          s.open({ streamType: 'error', port: String(echoPort), requestID: '0' });
          const data = s.open({ streamType: 'data', port: String(echoPort), requestID: '0' });
          await replied(data);
          const echoed = new Promise<string>((resolve) => { let got = ''; data.on('data', (d: Buffer) => { got += d; if (got.length >= 4) resolve(got); }); });
          data.write('ping');
          tt.equal(await echoed, 'ping', `port forwarding on ${who}: data flows both ways`);
          const err = s.open({ streamType: 'error', port: String(closedPort), requestID: '1' });
          const text = readAll(err);
          s.open({ streamType: 'data', port: String(closedPort), requestID: '1' });
          // The IPv6 half is the host's: where localhost has no ::1 (this container), Go finds no address.
          refusals[who] = (await text).split(sbIds[who]).join('<sandbox>')
            .replace(/IPv6 dial tcp6.*$/, 'IPv6 <the host\'s answer> ');
        } finally {
          s.close();
        }
      }
      tt.equal(refusals.mock, refusals.containerd, 'port forwarding to a port nothing listens on: the same error', refusals);

      // WebSocket port forwarding (ports from the request): each channel starts with its port, little-endian;
      // data comes back through the echo on both.
      const wsPf = await both('PortForward', (who) => ({ pod_sandbox_id: sbIds[who], port: [echoPort] }));
      for (const who of ['mock', 'containerd'] as const) {
        const o = wsPf[who];
        if (!o.ok) continue;
        const s = await wsConnect({ url: o.res.url }, ['v4.channel.k8s.io']);
        if ('refused' in s) { tt.fail(`WebSocket port forwarding on ${who}: refused ${s.status} ${s.body}`); continue; }
        try {
          await s.until((m) => m.length >= 2, 'the port prefixes');
          tt.same(s.messages.slice(0, 2).map((m) => [m.ch, m.data.readUInt16LE(0)]), [[0, echoPort], [1, echoPort]], `WebSocket port forwarding on ${who}: each channel starts with the port`);
          s.send(0, 'over websocket');
          const echoed = () => Buffer.concat(s.messages.slice(2).filter((m) => m.ch === 0).map((m) => m.data)).toString();
          await s.until(() => echoed() === 'over websocket', 'the echo');
          tt.pass(`WebSocket port forwarding on ${who}: data flows both ways`);
        } finally {
          s.ws.close();
        }
      }

      // Attach until the container ends: the attach ends with the same Status on both.
      const att = await both('Attach', (who) => ({ container_id: ids[who], stdout: true, stderr: true }));
      const sessions = {} as Record<Who, Awaited<ReturnType<typeof wsConnect>>>;
      for (const who of ['mock', 'containerd'] as const) {
        const o = att[who];
        if (o.ok) sessions[who] = await wsConnect({ url: o.res.url }, ['v4.channel.k8s.io']);
      }

      // A stopped container: Exec and Attach refuse it alike.
      await same(tt, 'StopContainer', 'StopContainer', (who) => ({ container_id: ids[who], timeout: 0 }));
      const attachEnd = {} as Record<Who, unknown>;
      for (const who of ['mock', 'containerd'] as const) {
        const s = sessions[who];
        if (!s || 'refused' in s) { attachEnd[who] = s; continue; }
        await Promise.race([s.closed, new Promise((r) => setTimeout(r, 10_000))]);
        const text = Buffer.concat(s.messages.filter((m) => m.ch === 3).map((m) => m.data)).toString();
        attachEnd[who] = text ? JSON.parse(text) : { closed: s.ws.readyState === s.ws.CLOSED };
        s.ws.terminate();
      }
      tt.comment(`attach ends: ${JSON.stringify(attachEnd)}`);
      tt.same(attachEnd.mock, attachEnd.containerd, 'attach over WebSocket: ends with the same Status when the container stops', attachEnd);
      await same(tt, 'Exec in a stopped container', 'Exec', execReq(['/bin/sleep', '0']));
      await same(tt, 'Attach to a stopped container', 'Attach', (who) => ({ container_id: ids[who], stdout: true }));
      await same(tt, 'StopPodSandbox', 'StopPodSandbox', (who) => ({ pod_sandbox_id: sbIds[who] }));
      await same(tt, 'PortForward to a stopped sandbox', 'PortForward', (who) => ({ pod_sandbox_id: sbIds[who], port: [echoPort] }));
    } finally {
      await both('StopPodSandbox', (who) => ({ pod_sandbox_id: sbIds[who] }));
      const removed = await both('RemovePodSandbox', (who) => ({ pod_sandbox_id: sbIds[who] }));
      tt.ok(removed.mock.ok && removed.containerd.ok, 'the sandboxes and their containers are removed', { mock: describe(removed.mock), containerd: describe(removed.containerd) });
    }
  });

  await t.test('images', async (tt) => {
    await same(tt, 'ImageFsInfo', 'ImageFsInfo', {});
    const fs = await both('ImageFsInfo', {});
    for (const [who, o] of Object.entries(fs)) {
      // The kubelet's image GC reads the first image filesystem: there must be one.
      if (o.ok) tt.ok(o.res.image_filesystems.length >= 1, `ImageFsInfo: ${who} reports an image filesystem`);
    }

    // Image.spec is optional (containerd 1.6 leaves it unset). Image.uid is set only when the image
    // config's User is numeric: each image's own (the node's other images differ); for our image both
    // sides know the User, and it is compared below.
    const rules = { optionalMessages: ['images[].spec', 'image.spec', 'images[].uid', 'image.uid'] };
    const list = await same(tt, 'ListImages', 'ListImages', {}, rules);
    const find = (o: Outcome) => (o.ok ? (o.res.images as any[]).find((i) => i.repo_tags.includes(IMAGE)) : undefined);
    const mine = { mock: find(list.mock), containerd: find(list.containerd) };
    tt.ok(mine.mock, `ListImages: the mock lists ${IMAGE}`);
    tt.ok(mine.containerd, `ListImages: containerd lists ${IMAGE}`);
    if (!mine.mock || !mine.containerd) return;
    tt.same(shapeDiff(mine.mock, mine.containerd, { optionalMessages: ['spec', 'uid'] }), [], `ListImages: ${IMAGE} has the same shape`, { mock: mine.mock, containerd: mine.containerd });
    // Repo tags are fully qualified on both (docker.io/library/...), whatever form the name was given in.
    tt.same(mine.mock.repo_tags, mine.containerd.repo_tags, 'ListImages: same repo_tags');
    for (const [who, img] of Object.entries(mine)) {
      tt.match(img.id, /^sha256:[0-9a-f]{64}$/, `ListImages: ${who} gives the image id as sha256:<hex>`);
      tt.ok(img.repo_digests.some((d: string) => d.startsWith(`${IMAGE_REPO}@sha256:`)), `ListImages: ${who} gives a repo digest ${IMAGE_REPO}@sha256:...`, { repo_digests: img.repo_digests });
      tt.ok(Number(img.size) > 0, `ListImages: ${who} gives a size > 0`);
      // "UID and the following user name are mutually exclusive."
      tt.ok(img.uid === null || img.username === '', `ListImages: ${who} reports a uid or a username, not both`, { uid: img.uid, username: img.username });
    }
    // Our image's config says User "1000": a numeric user is reported as uid, never as username.
    tt.same([mine.containerd.uid, mine.containerd.username], [{ value: '1000' }, ''], 'ListImages: containerd reports uid 1000 from the image config');
    tt.same([mine.mock.uid, mine.mock.username], [mine.containerd.uid, mine.containerd.username], 'ListImages: the mock reports the declared User as containerd does');

    // Every reference form a runtime accepts for the image; ids and digests are each runtime's own.
    const digestOf = (img: any) => (img.repo_digests as string[]).find((d) => d.startsWith(`${IMAGE_REPO}@`))!.split('@')[1];
    const forms: [string, (who: 'mock' | 'containerd') => string][] = [
      ['name:tag', () => 'orch-probe:1.0'],
      ['library/name:tag', () => 'library/orch-probe:1.0'],
      ['registry-qualified name:tag', () => IMAGE],
      ['image id', (who) => mine[who].id],
      ['name@digest', (who) => `orch-probe@${digestOf(mine[who])}`],
      ['registry-qualified name@digest', (who) => `${IMAGE_REPO}@${digestOf(mine[who])}`],
    ];
    for (const [form, ref] of forms) {
      const s = await same(tt, `ImageStatus by ${form}`, 'ImageStatus', (who) => ({ image: { image: ref(who) } }), rules);
      for (const [who, o] of Object.entries(s)) {
        if (o.ok) tt.equal(o.res.image?.id, mine[who as 'mock' | 'containerd'].id, `ImageStatus by ${form}: ${who} finds the image`);
      }
    }
    const verbose = await same(tt, 'ImageStatus verbose', 'ImageStatus', { image: { image: IMAGE }, verbose: true }, rules);
    for (const [who, o] of Object.entries(verbose)) {
      // The info keys and their JSON are each runtime's own; there must be some when verbose.
      if (o.ok) tt.ok(Object.keys(o.res.info).length > 0, `ImageStatus verbose: ${who} returns info`);
    }

    // Absent images: not an error, an empty answer ("returns a response with Image set to nil").
    for (const [what, ref] of [
      ['a name without tag (means :latest, which is absent)', 'orch-probe'],
      ['another tag', 'orch-probe:2.0'],
      ['an unknown image', 'example.com/nothing/here:1'],
      ['an unknown id', `sha256:${'ab'.repeat(32)}`],
    ]) {
      const s = await same(tt, `ImageStatus of ${what}`, 'ImageStatus', { image: { image: ref } }, rules);
      for (const [who, o] of Object.entries(s)) if (o.ok) tt.equal(o.res.image, null, `ImageStatus of ${what}: ${who} has no image`);
    }

    // Pulls that fail before any network: the reference does not parse. No code is fixed by the CRI;
    // containerd says UNKNOWN, INVALID_ARGUMENT says it more precisely.
    const refused = { codes: ['UNKNOWN', 'INVALID_ARGUMENT'] };
    await same(tt, 'PullImage of an empty reference', 'PullImage', { image: { image: '' } }, refused);
    await same(tt, 'PullImage of an invalid reference', 'PullImage', { image: { image: 'Bad//Ref' } }, refused);

    // Removing an image by one of its names removes the image (all its names), not just that name;
    // removing again is fine (idempotent).
    const gone = async (how: string) => {
      const st = await both('ImageStatus', (who) => ({ image: { image: mine[who].id } }));
      const ls = await both('ListImages', {});
      for (const who of ['mock', 'containerd'] as const) {
        const s = st[who];
        const l = ls[who];
        tt.ok(s.ok && s.res.image === null, `ImageStatus by id after RemoveImage by ${how}: ${who} no longer has it`, { answer: s.ok ? s.res : describe(s) });
        tt.ok(l.ok && !(l.res.images as any[]).some((i) => i.id === mine[who].id), `ListImages after RemoveImage by ${how}: ${who} no longer lists it`);
      }
    };
    await same(tt, 'RemoveImage by name:tag', 'RemoveImage', { image: { image: 'orch-probe:1.0' } });
    await same(tt, 'ImageStatus by name after RemoveImage', 'ImageStatus', { image: { image: IMAGE } }, rules);
    await gone('name:tag');
    await same(tt, 'RemoveImage again', 'RemoveImage', { image: { image: IMAGE } });
    await same(tt, 'RemoveImage of an unknown id', 'RemoveImage', { image: { image: `sha256:${'ab'.repeat(32)}` } });

    // Back again (containerd: imported anew; the mock: pulled from its catalogue), then removed by
    // id, as the kubelet's image garbage collection removes images.
    importImage(ctd, archive);
    const pulled = await outcome(clients.mock, 'PullImage', { image: { image: IMAGE } });
    tt.ok(pulled.ok, `PullImage ${IMAGE} on the mock (it is in its catalogue)`, { answer: pulled.ok ? pulled.res : describe(pulled) });
    const back = await same(tt, 'ImageStatus by id once the image is back', 'ImageStatus', (who) => ({ image: { image: mine[who].id } }), rules);
    for (const [who, o] of Object.entries(back)) if (o.ok) tt.ok(o.res.image !== null, `ImageStatus by id once the image is back: ${who} has it`);
    await same(tt, 'RemoveImage by id', 'RemoveImage', (who) => ({ image: { image: mine[who].id } }));
    await gone('id');
  });
});
