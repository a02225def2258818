// The checkpoint endpoint (spec 001 §4.1, §8, §9; upstream's answers from the ground-truth note) on a
// real agent: the reference API server with token authentication (the agent asks it TokenReview and
// SubjectAccessReview), the mock CRI runtime, a pod running on the node. Then a fast-check property
// drives random requests at every path of the agent's port: never a 5xx but the checkpoint's own
// 500s, never a crash, and no file written anywhere but <root>/checkpoints.
import { chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import t from 'tap';
import fc from 'fast-check';
import { propertyRuns } from '../helpers/property.js';
import { list as tarList } from 'tar';
import { startReference } from '../../reference/server.js';
import { startMockCri } from '../../mocks/cri/server.js';
import { ApiClient } from '../../reference/client/api-client.js';
import { startAgent } from '../../reference/agent/agent.js';
import { checkpointRoutes, parseInt64 } from '../../reference/agent/checkpoint.js';
import { FeatureGates } from '../../reference/features.js';
import { DEFAULT_AUTH_SETTINGS } from '../../reference/agent/auth/settings.js';
import type { Runtime } from '../../reference/agent/runtime.js';
import { httpsRequest } from './auth-fixtures.js';
import { until } from './helpers.js';

const TOKEN = 'checkpoint-test-admin-token';
const ARCHIVE = /^checkpoint-(?<pod>[a-z0-9.-]+)_(?<ns>[a-z0-9-]+)-(?<container>[a-z0-9-]+)-(?<time>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)\.tar$/;

async function tarEntries(file: string): Promise<string[]> {
  const out: string[] = [];
  await tarList({ file, strict: true, onReadEntry: (e) => void out.push(e.path) });
  return out;
}

/** Every path under `dir` (directories with a trailing /), relative to it. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) { out.push(`${relative(dir, p)}/`); walk(p); } else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

t.test('checkpoint on a real agent', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-ckpt-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const ref = await startReference({ port: 0, auth: { tokens: [{ token: TOKEN, user: 'admin', groups: ['system:masters'] }], authorizationMode: 'RBAC' } });
  t.teardown(() => ref.close());
  const cri = await startMockCri({ socket: join(dir, 'cri', 'cri.sock'), root: join(dir, 'cri-state') });
  t.teardown(() => cri.close());
  const root = join(dir, 'root');
  const agent = await startAgent({
    api: { url: ref.url, token: TOKEN }, criEndpoint: cri.criUrl, nodeName: 'n1', rootDir: root, relistPeriodMs: 200,
    serve: { address: '127.0.0.1', port: 0 }, log: () => undefined,
  });
  t.teardown(() => agent.close());
  const api = new ApiClient({ url: ref.url, token: TOKEN });
  t.teardown(() => api.close());
  const ca = readFileSync(agent.caFile!, 'utf8');
  const post = (path: string, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }, method = 'POST') => httpsRequest(`${agent.url}${path}`, { ca, method, headers });

  await api.create('/api/v1/namespaces/default/pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' },
    spec: {
      nodeName: 'n1', terminationGracePeriodSeconds: 1,
      initContainers: [{ name: 'init', image: 'busybox:1.36', command: ['true'] }],
      containers: [{ name: 'c', image: 'busybox:1.36', command: ['sleep', '3600'] }, { name: 'side', image: 'busybox:1.36', command: ['sleep', '3600'] }],
    },
  });
  const running = await until('pod web running', async () => {
    const p = await api.get('/api/v1/namespaces/default/pods/web');
    return p.status?.phase === 'Running' && p.status.containerStatuses?.every((s: any) => s.state?.running) ? p : undefined;
  }, 20_000);
  const cId = running.status.containerStatuses.find((s: any) => s.name === 'c').containerID.replace(/^[^:]+:\/\//, '');
  const calls = () => cri.control.calls.list({ rpc: 'CheckpointContainer' });

  t.test('200 with the archive: under <root>/checkpoints (0700), upstream\'s name, 0600, a tar archive', async (t) => {
    const res = await post('/checkpoint/default/web/c');
    t.equal(res.status, 200, res.body);
    t.equal(res.headers['content-type'], 'application/json');
    const body = JSON.parse(res.body);
    t.same(Object.keys(body), ['items']);
    t.equal(body.items.length, 1);
    const path = body.items[0] as string;
    t.equal(dirname(path), join(root, 'checkpoints'));
    const m = ARCHIVE.exec(basename(path));
    t.ok(m, `name ${basename(path)}`);
    t.same([m?.groups?.pod, m?.groups?.ns, m?.groups?.container], ['web', 'default', 'c']);
    t.ok(Math.abs(Date.parse(m!.groups!.time!) - Date.now()) < 60_000, 'the time is now, RFC 3339');
    t.equal(statSync(path).mode & 0o777, 0o600, 'archive 0600');
    t.equal(statSync(join(root, 'checkpoints')).mode & 0o777, 0o700, 'directory 0700');
    t.same(await tarEntries(path), ['manifest.json', 'config.dump', 'pages-1.img', 'checkpoint/'], 'any tar lists it');
    const call = calls().at(-1)!;
    t.same(call.request, { container_id: cId, location: path, timeout: '0' }, 'CheckpointContainerRequest: the running container, the archive path, no timeout');
  });

  t.test('timeout: passed as seconds; the last value counts; a huge one waits; unparsable is 404; negative is refused before the runtime', async (t) => {
    t.equal((await post('/checkpoint/default/web/c?timeout=7')).status, 200);
    t.equal((calls().at(-1)!.request as any).timeout, '7');
    t.equal((await post('/checkpoint/default/web/c?timeout=0')).status, 200);
    t.equal((calls().at(-1)!.request as any).timeout, '0', 'zero: the runtime\'s default');
    t.equal((await post('/checkpoint/default/web/c?timeout=abc&timeout=3')).status, 200, 'the last value counts');
    t.equal((calls().at(-1)!.request as any).timeout, '3');
    // Upstream waits as long as asked. Past about 24.8 days a Node timer or a grpc-js deadline would
    // expire at once: the agent's gRPC deadline and the mock's timer stop there instead
    // (reference/timers.ts), so a long wait stays one (the mock finishes at once here).
    for (const long of ['2147364', '2147484', '3000000', '9223372036854775807']) {
      const r = await post(`/checkpoint/default/web/c?timeout=${long}`);
      t.equal(r.status, 200, `timeout=${long}: not an instant failure: ${r.body}`);
      t.equal((calls().at(-1)!.request as any).timeout, long, 'passed to the runtime as asked');
    }
    const n = calls().length;
    for (const q of ['timeout=abc', 'timeout=3&timeout=x', 'timeout=', 'timeout=1.5', 'timeout=%201', 'timeout=99999999999999999999']) {
      const r = await post(`/checkpoint/default/web/c?${q}`);
      t.same([r.status, r.body], [404, 'cannot parse value of timeout parameter'], q);
    }
    const neg = await post('/checkpoint/default/web/c?timeout=-1');
    t.same([neg.status, neg.body], [500, 'checkpointing of default/web/c failed (CheckpointContainer requires the timeout value to be > 0)'], 'negative: upstream\'s CRI client refuses it');
    t.equal(calls().length, n, 'none of these reached the runtime');
  });

  t.test('404: pod, namespace, container; init containers are searched; names that are no names', async (t) => {
    const cases: Array<[string, string]> = [
      ['/checkpoint/default/nope/c', 'pod does not exist'],
      ['/checkpoint/elsewhere/web/c', 'pod does not exist'],
      ['/checkpoint/default/web/nope', 'container nope does not exist'],
      ['/checkpoint/default/web/a%2Fb', 'container a/b does not exist'],
      ['/checkpoint/default/..%2F..%2Fetc/c', 'pod does not exist'],
      ['/checkpoint/Default/web/c', 'pod does not exist'],
      ['/checkpoint/default/web/c%00', 'container c\u0000 does not exist'],
    ];
    for (const [path, body] of cases) {
      const r = await post(path);
      t.same([r.status, r.body], [404, body], path);
    }
    // Dot segments, encoded or not, are resolved by URL parsing before routing: they never reach a name.
    for (const path of ['/checkpoint/default/web/..', '/checkpoint/default/web/%2e%2e', '/checkpoint/default/web', '/checkpoint/default/web/c/x', '/checkpoint/default//c', '/checkpoint/%E0%A4%A/web/c']) {
      t.same([(await post(path)).status], [404], `${path}: no route`);
    }
    const init = await post('/checkpoint/default/web/init');
    t.same([init.status, init.body], [500, 'checkpointing of default/web/init failed (container init not found)'], 'an init container is found in the spec; it no longer runs');
    t.equal((await post('/checkpoint/default/web/side')).status, 200, 'the second container');
  });

  t.test('500: the runtime\'s error, in upstream\'s words; UNIMPLEMENTED says the runtime lacks it', async (t) => {
    const f = cri.control.faults.add({ rpc: 'CheckpointContainer', code: 13, message: 'disk on fire', pod: 'default/web', times: 1 });
    const r = await post('/checkpoint/default/web/c');
    t.same([r.status, r.body], [500, 'checkpointing of default/web/c failed (rpc error: code = Internal desc = disk on fire)']);
    t.ok(f.id);
    cri.control.setCheckpointSupported(false);
    const u = await post('/checkpoint/default/web/c');
    cri.control.setCheckpointSupported(true);
    t.equal(u.status, 500);
    t.match(u.body, /^checkpointing of default\/web\/c failed \(the container runtime does not support checkpointing: rpc error: code = Unimplemented desc = method CheckpointContainer not implemented\)$/);
  });

  t.test('methods, authentication', async (t) => {
    const g = await post('/checkpoint/default/web/c', undefined, 'GET');
    t.same([g.status, g.headers.allow], [405, 'POST']);
    t.equal((await post('/checkpoint/default/web/c', {})).status, 401, 'no credentials');
    t.equal((await post('/checkpoint/default/web/c', { authorization: 'Bearer wrong' })).status, 401, 'a bad token');
  });

  t.test('property: random requests at every path never 5xx (but the checkpoint\'s), never crash, never write outside <root>/checkpoints', async (t) => {
    const before = tree(dir).filter((p) => !p.startsWith('root/checkpoints/') && !p.startsWith('cri-state/'));
    const siblingsBefore = new Set(readdirSync(dirname(dir)).filter((n) => n.startsWith('checkpoint-')));
    const bases = ['/checkpoint', '/checkpoint/default/web', '/healthz', '/livez', '/readyz', '/metrics', '/metrics/slis', '/metrics/cadvisor', '/metrics/resource',
      '/stats/summary', '/pods', '/configz', '/statusz', '/flagz', '', '/runningpods', '/logs'];
    const hostile = ['..', '%2e%2e', '%2E%2E', '.', '%2F', '..%2F..%2F..%2Ftmp', '%00', 'default', 'web', 'c', 'init', 'a'.repeat(300), '%', '%zz', '%252F', '\\', '%5C..%5C', '~', 'etc', 'passwd'];
    const segment = fc.oneof(fc.constantFrom(...hostile), fc.string({ maxLength: 20 }).map(encodeURIComponent));
    const query = fc.oneof(fc.constant(''), fc.constantFrom('?timeout=1', '?timeout=-5', '?timeout=abc', '?timeout=0&timeout=2', '?timeout=9223372036854775807', '?verbose', '?timeout=%00'),
      fc.string({ maxLength: 30 }).map((s) => `?${encodeURIComponent(s)}=${encodeURIComponent(s)}`));
    const auth = fc.constantFrom<Record<string, string>>({ authorization: `Bearer ${TOKEN}` }, {}, { authorization: 'Bearer bad' }, { authorization: 'Bearer ' }, { authorization: 'Basic eDp5' },
      { authorization: `Bearer ${'x'.repeat(4000)}` }, { authorization: `bearer ${TOKEN}` });
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS');
    const accept = fc.constantFrom<Record<string, string>>({}, { accept: 'application/json' }, { accept: 'text/plain' }, { accept: 'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited' }, { accept: '*/*;q=x' });
    let fiveHundreds = 0;
    await fc.assert(fc.asyncProperty(method, fc.constantFrom(...bases), fc.array(segment, { maxLength: 4 }), query, auth, accept, async (m, base, segs, q, a, acc) => {
      const path = `${base}${segs.map((s) => `/${s}`).join('')}${q}` || '/';
      const r = await httpsRequest(`${agent.url}${path.startsWith('/') ? path : `/${path}`}`, { ca, method: m, headers: { ...a, ...acc } });
      if (r.status >= 500) {
        fiveHundreds++;
        const specified = m === 'POST' && r.status === 500 && /^checkpointing of [^/]+\/[^/]+\/[^ ]+ failed \(/.test(r.body);
        if (!specified) throw new Error(`${m} ${path}: ${r.status} ${r.body.slice(0, 200)}`);
      }
    }), propertyRuns(200, { interruptAfterTimeLimit: 20_000 }));
    t.pass(`no unspecified 5xx (${fiveHundreds} checkpoint 500s)`);
    t.equal((await httpsRequest(`${agent.url}/healthz`, { ca })).status, 200, 'the agent still serves');
    t.equal((await post('/checkpoint/default/web/c')).status, 200, 'and still checkpoints');
    const after = tree(dir).filter((p) => !p.startsWith('root/checkpoints/') && !p.startsWith('cri-state/'));
    t.same(after.filter((p) => !before.includes(p)), [], 'no file or directory appeared outside <root>/checkpoints');
    t.same(readdirSync(dirname(dir)).filter((n) => n.startsWith('checkpoint-') && !siblingsBefore.has(n)), [], 'nothing next to the test directory either');
    for (const f of readdirSync(join(root, 'checkpoints'))) t.ok(ARCHIVE.test(f) && lstatSync(join(root, 'checkpoints', f)).isFile(), `${f}: only archives in checkpoints/`);
  });
});

t.test('gate ContainerCheckpoint off: the route does not exist', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-ckpt-gate-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cri = await startMockCri({ socket: join(dir, 'cri.sock') });
  t.teardown(() => cri.close());
  const agent = await startAgent({
    criEndpoint: cri.criUrl, nodeName: 'n2', rootDir: join(dir, 'root'), featureGates: new FeatureGates({ ContainerCheckpoint: false }),
    auth: { ...DEFAULT_AUTH_SETTINGS, anonymous: true, webhook: { enabled: false, cacheTtlMs: 0 }, authorization: { ...DEFAULT_AUTH_SETTINGS.authorization, mode: 'AlwaysAllow' } },
    serve: { address: '127.0.0.1', port: 0 }, log: () => undefined,
  });
  t.teardown(() => agent.close());
  const r = await httpsRequest(`${agent.url}/checkpoint/default/web/c`, { method: 'POST' });
  t.same([r.status, r.body], [404, '404 page not found\n']);
});

t.test('the archive and its directory are narrowed to the owner whatever the runtime left', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-ckpt-mode-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const checkpointsDir = join(dir, 'checkpoints');
  const asked: any[] = [];
  const runtime = {
    listContainers: async () => [{ id: 'cid', labels: { 'io.orch.container.name': 'c' }, metadata: { name: 'c', attempt: 0 }, state: 'CONTAINER_RUNNING', created_at: '1' }],
    checkpointContainer: async (id: string, location: string, timeout: bigint) => {
      asked.push({ id, location, timeout });
      writeFileSync(location, 'not really a tar', { mode: 0o644 });
      chmodSync(location, 0o644);
    },
  } as unknown as Runtime;
  const pod = { metadata: { name: 'p', namespace: 'ns', uid: 'u1' }, spec: { containers: [{ name: 'c' }] } };
  const [route] = checkpointRoutes({ featureGates: new FeatureGates(), pods: () => [pod], runtime, checkpointsDir });
  let status = 0;
  let body = '';
  const res: any = { writeHead: (s: number) => { status = s; }, end: (b: string) => { body = b; } };
  await route!.handle({} as any, res, new URL('https://agent/checkpoint/ns/p/c?timeout=12'));
  t.equal(status, 200, body);
  const path = JSON.parse(body).items[0];
  t.equal(statSync(path).mode & 0o777, 0o600, 'archive narrowed to 0600');
  t.same(asked, [{ id: 'cid', location: path, timeout: 12n }]);
  chmodSync(checkpointsDir, 0o755);
  await route!.handle({} as any, res, new URL('https://agent/checkpoint/ns/p/c'));
  t.equal(statSync(checkpointsDir).mode & 0o777, 0o700, 'a widened directory is narrowed to 0700 before the next archive');
  rmSync(checkpointsDir, { recursive: true });
  await route!.handle({} as any, res, new URL('https://agent/checkpoint/ns/p/c'));
  t.equal(statSync(checkpointsDir).mode & 0o777, 0o700, 'a missing directory is made 0700');
  t.equal(checkpointRoutes({ featureGates: new FeatureGates({ ContainerCheckpoint: false }), pods: () => [], runtime, checkpointsDir }).length, 0, 'no route with the gate off');
  (pod.spec as any).ephemeralContainers = [{ name: 'debugger' }];
  await route!.handle({} as any, res, new URL('https://agent/checkpoint/ns/p/debugger'));
  t.same([status, body], [500, 'checkpointing of ns/p/debugger failed (container debugger not found)'], 'ephemeral containers are searched (this one does not run)');
});

t.test('timeout parsing is Go\'s ParseInt(s, 10, 64)', async (t) => {
  t.same(['0', '7', '+7', '-7', '007', '9223372036854775807', '-9223372036854775808'].map(parseInt64), [0n, 7n, 7n, -7n, 7n, 2n ** 63n - 1n, -(2n ** 63n)]);
  t.same(['', ' 1', '1 ', '1.0', '1e3', '0x10', '9223372036854775808', '--1', '١'].map(parseInt64), Array(9).fill(undefined));
});
