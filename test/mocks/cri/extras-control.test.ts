// The control API of the mock CRI runtime (mocks/cri/control.ts) over its unix socket, against a fake
// MockCriControl that records what it was asked to do: every route, the socket's permissions, stale
// and live sockets, and bad input (400/404/405/413) that must leave the state untouched.
import t from 'tap';
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CallLog, Faults } from '../../../mocks/cri/faults.js';
import { MAX_BODY_BYTES, NotFoundError, startControlServer, type MockCriControl } from '../../../mocks/cri/control.js';
import { checkDeclaration } from '../../../mocks/cri/image-declarations.js';

const root = mkdtempSync(join(tmpdir(), 'extras-ctl-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));

/** A runtime stand-in: real Faults and CallLog, containers as id -> running, and a log of actions. */
class FakeControl implements MockCriControl {
  faults = new Faults();
  calls = new CallLog();
  actions: unknown[][] = [];
  containers = new Map<string, { running: boolean; exitCode?: number; reason?: string }>();
  failState = false;
  constructor() {
    this.reset();
    this.actions = [];
  }
  setRuntimeReady(ready: boolean, reason?: string, message?: string) {
    this.actions.push(['runtimeReady', ready, reason, message]);
  }
  setNetworkReady(ready: boolean, reason?: string, message?: string) {
    this.actions.push(['networkReady', ready, reason, message]);
  }
  setCheckpointSupported(supported: boolean) {
    this.actions.push(['checkpoint', supported]);
  }
  setMetricsEnabled(enabled: boolean) {
    this.actions.push(['metrics', enabled]);
  }
  exitContainer(id: string, exitCode: number, reason?: string) {
    const c = this.containers.get(id);
    if (!c || !c.running) throw new NotFoundError(`container ${id} not found or not running`);
    Object.assign(c, { running: false, exitCode, reason: reason ?? (exitCode === 0 ? 'Completed' : 'Error') });
    this.actions.push(['exit', id, exitCode, reason]);
  }
  oomKill(id: string) {
    this.exitContainer(id, 137, 'OOMKilled');
  }
  declareImage(decl: unknown) {
    const d = checkDeclaration(decl);
    this.actions.push(['declareImage', d]);
    return { id: 'sha256:declared', repoTags: d.tags, repoDigests: d.digests, size: d.size ?? 1, user: d.user ?? '', pinned: false };
  }
  state() {
    if (this.failState) throw new TypeError('snapshot bug');
    return { sandboxes: [{ id: 'sb-1' }], containers: [...this.containers].map(([id, c]) => ({ id, ...c })), images: [{ id: 'sha256:1', size: 10n }] };
  }
  reset() {
    this.faults.clear();
    this.calls.clear();
    this.containers = new Map([
      ['c1', { running: true }],
      ['c2', { running: true }],
      ['c/3', { running: true }],
    ]);
    this.actions.push(['reset']);
  }
}

interface Res { status: number; headers: Record<string, string | string[] | undefined>; body: any; text: string }

function call(socketPath: string, method: string, path: string, body?: string | Buffer | object, headers: Record<string, string> = {}): Promise<Res> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    const req = request({ socketPath, method, path, headers: { ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed, text });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

const sockDir = join(root, 'run', 'mock-cri');
const sock = join(sockDir, 'control.sock');
const fake = new FakeControl();
// Started at the top level, not in a root t.before: this file runs inside a bundle's process, where
// a root hook would reach other files' tests (helpers/bundle.ts).
const server: { close(): Promise<void> } = await startControlServer(sock, fake);
t.teardown(async () => {
  await server.close();
});

const api = (method: string, path: string, body?: string | Buffer | object, headers?: Record<string, string>) => call(sock, method, path, body, headers);

t.test('the socket is owner-only in an owner-only directory', async (t) => {
  t.ok(lstatSync(sock).isSocket());
  t.equal(statSync(sock).mode & 0o777, 0o600, 'socket 0600');
  t.equal(statSync(sockDir).mode & 0o777, 0o700, 'directory created 0700');
  t.equal(statSync(join(root, 'run')).mode & 0o777, 0o700, 'missing parents too');
});

t.test('GET/DELETE /calls', async (t) => {
  fake.calls.record('RuntimeService', 'Version', { version: 'v1' });
  fake.calls.record('RuntimeService', 'CreateContainer', { pod_sandbox_id: 'sb-1', config: { metadata: { name: 'app' } } });
  fake.calls.record('ImageService', 'PullImage', { image: { image: 'busybox' } });
  let r = await api('GET', '/calls');
  t.equal(r.status, 200);
  t.match(r.headers['content-type'], /application\/json/);
  t.same(r.body.calls.map((c: { rpc: string }) => c.rpc), ['Version', 'CreateContainer', 'PullImage']);
  t.same(r.body.calls[1].request, { pod_sandbox_id: 'sb-1', config: { metadata: { name: 'app' } } }, 'requests as received');
  const firstSeq = r.body.calls[0].seq;
  r = await api('GET', '/calls?rpc=PullImage');
  t.same(r.body.calls.map((c: { service: string }) => c.service), ['ImageService']);
  r = await api('GET', `/calls?since=${firstSeq}`);
  t.equal(r.body.calls.length, 2);
  r = await api('GET', `/calls?since=${firstSeq}&rpc=Version`);
  t.same(r.body.calls, []);
  for (const [q, msg] of [
    ['rpc=NoSuchRpc', /"NoSuchRpc" is not an RPC/],
    ['since=abc', /"since": "abc" is not a call sequence number/],
    ['since=-1', /"since"/],
    ['limit=3', /unknown query parameter "limit"/],
    ['rpc=Version&rpc=Status', /more than once/],
  ] as const) {
    r = await api('GET', `/calls?${q}`);
    t.equal(r.status, 400, q);
    t.match(r.body, { error: msg }, q);
  }
  r = await api('GET', '/calls', { x: 1 });
  t.equal(r.status, 400, 'GET with a body');
  r = await api('DELETE', '/calls');
  t.same([r.status, r.body], [200, { cleared: true }]);
  t.same((await api('GET', '/calls')).body.calls, []);
});

t.test('GET /calls: a log bounded in bytes says how many records it dropped; big requests are kept cut', async (t) => {
  const saved = fake.calls;
  t.teardown(() => { fake.calls = saved; });
  // 2 MiB in all, 256 KiB a record: 30 requests of 200 KB cannot all stay.
  fake.calls = new CallLog(10_000, 2 * 1024 * 1024, 256 * 1024);
  const medium = 'm'.repeat(200_000);
  for (let i = 0; i < 30; i++) fake.calls.record('RuntimeService', 'CreateContainer', { pod_sandbox_id: `sb-${i}`, config: { annotations: { blob: medium } } });
  fake.calls.record('RuntimeService', 'ExecSync', { container_id: 'c-1', cmd: ['sh', '-c', 'x'.repeat(1_000_000)] });
  const r = await api('GET', '/calls');
  t.equal(r.status, 200);
  t.equal(r.headers['content-length'], undefined, 'streamed, not one string');
  t.ok(r.body.dropped > 0, `dropped ${r.body.dropped}`);
  t.equal(r.body.dropped + r.body.calls.length, 31, 'every record is either kept or counted as dropped');
  t.ok(fake.calls.keptBytes <= 2 * 1024 * 1024, `kept ${fake.calls.keptBytes} bytes`);
  const seqs = r.body.calls.map((c: { seq: number }) => c.seq);
  t.same(seqs, [...seqs].sort((a: number, b: number) => a - b), 'the newest are kept, in order');
  const exec = r.body.calls.at(-1);
  t.equal(exec.rpc, 'ExecSync');
  t.ok(exec.truncatedFrom > 1_000_000, `the cut record says its full size (${exec.truncatedFrom})`);
  t.match(exec.request.cmd[2], /^x{4096}…\[995904 more characters cut\]$/, 'the long argument is cut, saying so');
  t.same(exec.request.cmd.slice(0, 2), ['sh', '-c'], 'short fields as received');
  t.equal(r.body.calls[0].truncatedFrom, undefined, 'records under the cap carry no marker');
});

t.test('DELETE /faults/{id} removes that fault only; an id no fault has is 404', async (t) => {
  const a = (await api('POST', '/faults', { rpc: 'Version', code: 2, pod: 'ns/a' })).body;
  const b = (await api('POST', '/faults', { rpc: 'Version', code: 3 })).body;
  t.equal(a.pod, 'ns/a', 'pod is kept');
  let r = await api('DELETE', `/faults/${a.id}`);
  t.same([r.status, r.body], [200, { cleared: 1 }]);
  r = await api('DELETE', `/faults/${a.id}`);
  t.equal(r.status, 404);
  t.match(r.body.error, /no active fault/);
  t.same(fake.faults.list().map((f) => f.id), [b.id], 'the other fault stays');
  await api('DELETE', '/faults');
});

t.test('POST/GET/DELETE /faults drive the runtime\'s faults', async (t) => {
  let r = await api('POST', '/faults', { rpc: 'CheckpointContainer', code: 12, message: 'not supported', times: 2 });
  t.equal(r.status, 201);
  t.match(r.body, { id: /^fault-/, rpc: 'CheckpointContainer', code: 12, remaining: 2 });
  t.same(await fake.faults.before('CheckpointContainer', new AbortController().signal), { code: 12, message: 'not supported' }, 'active in the runtime');
  await api('POST', '/faults', { rpc: 'Status', delayMs: 10 });
  r = await api('GET', '/faults');
  t.same(r.body.faults.map((f: { rpc: string; remaining?: number }) => [f.rpc, f.remaining]), [['CheckpointContainer', 1], ['Status', undefined]]);

  const before = fake.faults.list();
  for (const [body, msg] of [
    [{ rpc: 'Nope', code: 2 }, /"Nope" is not an RPC/],
    [{ rpc: 'Version', code: 99 }, /"code" must be a gRPC status code/],
    [{ rpc: 'Version', hang: true, code: 2 }, /"hang" excludes "code"/],
    [{ rpc: 'Version', code: 2, extra: true }, /unknown fault field "extra"/],
    [{ rpc: 'Version' }, /needs "code", "delayMs" or "hang"/],
    ['{"rpc": "Version", ', /not valid JSON/],
    ['[1,2]', /must be a JSON object/],
    ['"text"', /must be a JSON object/],
    ['null', /must be a JSON object/],
  ] as const) {
    r = await api('POST', '/faults', body as object);
    t.equal(r.status, 400, JSON.stringify(body));
    t.match(r.body, { error: msg });
  }
  r = await api('POST', '/faults');
  t.match([r.status, r.body.error], [400, /needs a JSON object body/], 'no body');
  t.same(fake.faults.list(), before, 'refused faults changed nothing');

  r = await api('DELETE', '/faults?rpc=NotAnRpc');
  t.equal(r.status, 400);
  r = await api('DELETE', '/faults?rpc=Status');
  t.same([r.status, r.body], [200, { cleared: 1 }]);
  t.same(fake.faults.list().map((f) => f.rpc), ['CheckpointContainer']);
  r = await api('DELETE', '/faults');
  t.same([r.status, r.body], [200, { cleared: 1 }]);
  t.same(fake.faults.list(), []);
});

t.test('POST /runtime sets conditions, checkpoint support and metrics', async (t) => {
  fake.actions = [];
  let r = await api('POST', '/runtime', { runtimeReady: false, reason: 'MaintenanceWindow', message: 'runtime paused by the test' });
  t.equal(r.status, 200);
  t.match(r.body, { applied: { runtimeReady: false, reason: 'MaintenanceWindow' } });
  r = await api('POST', '/runtime', { networkReady: false, runtimeReady: true });
  r = await api('POST', '/runtime', { checkpoint: false, metrics: false });
  t.equal(r.status, 200);
  t.same(fake.actions, [
    ['runtimeReady', false, 'MaintenanceWindow', 'runtime paused by the test'],
    ['runtimeReady', true, undefined, undefined],
    ['networkReady', false, undefined, undefined],
    ['checkpoint', false],
    ['metrics', false],
  ]);
  fake.actions = [];
  for (const [body, msg] of [
    [{}, /nothing to change/],
    [{ runtimeReady: 'no' }, /"runtimeReady" must be a boolean/],
    [{ metrics: 0 }, /"metrics" must be a boolean/],
    [{ reason: 'Down' }, /give "runtimeReady" or "networkReady"/],
    [{ runtimeReady: false, reason: 'not camel' }, /CamelCase/],
    [{ runtimeReady: false, message: 5 }, /"message" must be a string/],
    [{ runtimeReady: false, ready: true }, /unknown field "ready"/],
    // A valid field with a bad one: nothing at all is applied.
    [{ checkpoint: false, networkReady: 'x' }, /"networkReady" must be a boolean/],
  ] as const) {
    r = await api('POST', '/runtime', body);
    t.equal(r.status, 400, JSON.stringify(body));
    t.match(r.body, { error: msg });
  }
  t.same(fake.actions, [], 'refused requests changed nothing');
});

t.test('POST /containers/{id}/exit and /oom', async (t) => {
  fake.reset();
  let r = await api('POST', '/containers/c1/exit', { exitCode: 3, reason: 'Error' });
  t.same([r.status, r.body], [200, { id: 'c1', exitCode: 3, reason: 'Error' }]);
  t.match(fake.containers.get('c1'), { running: false, exitCode: 3 });
  r = await api('POST', '/containers/c1/exit', { exitCode: 0 });
  t.equal(r.status, 404, 'no longer running');
  t.match(r.body.error, /c1 not found or not running/);
  r = await api('POST', '/containers/nope/exit', { exitCode: 1 });
  t.equal(r.status, 404);
  r = await api('POST', '/containers/c2/oom');
  t.same([r.status, r.body], [200, { id: 'c2', exitCode: 137, reason: 'OOMKilled' }]);
  t.match(fake.containers.get('c2'), { running: false, exitCode: 137, reason: 'OOMKilled' });
  r = await api('POST', '/containers/c%2F3/oom', {});
  t.equal(r.status, 400, 'a "/" in a container id is refused even encoded');
  r = await api('POST', '/containers/ghost/oom');
  t.equal(r.status, 404);
  fake.reset();
  const snapshot = JSON.stringify([...fake.containers]);
  for (const [path, body, msg] of [
    ['/containers/c1/exit', {}, /"exitCode" is required/],
    ['/containers/c1/exit', { exitCode: 256 }, /integer 0\.\.255/],
    ['/containers/c1/exit', { exitCode: -1 }, /integer 0\.\.255/],
    ['/containers/c1/exit', { exitCode: '1' }, /integer 0\.\.255/],
    ['/containers/c1/exit', { exitCode: 1, reason: '' }, /"reason" is empty/],
    ['/containers/c1/exit', { exitCode: 1, signal: 9 }, /unknown field "signal"/],
    ['/containers/c1/oom', { force: true }, /takes no fields/],
    ['/containers/%E0%A4%A/exit', { exitCode: 1 }, /percent-encoding/],
  ] as const) {
    r = await api('POST', path, body);
    t.equal(r.status, 400, `${path} ${JSON.stringify(body)}`);
    t.match(r.body, { error: msg });
  }
  t.equal(JSON.stringify([...fake.containers]), snapshot, 'refused requests changed no container');
});

t.test('POST /images declares an image; a bad declaration is 400 and declares nothing', async (t) => {
  fake.actions = [];
  let r = await api('POST', '/images', { tags: ['gcr.io/x/tags:1', 'gcr.io/x/tags:2'], user: '1002', size: 1234 });
  t.equal(r.status, 201);
  t.same(r.body.repoTags, ['gcr.io/x/tags:1', 'gcr.io/x/tags:2']);
  t.same(fake.actions, [['declareImage', { tags: ['gcr.io/x/tags:1', 'gcr.io/x/tags:2'], digests: [], user: '1002', size: 1234 }]]);
  fake.actions = [];
  for (const [body, why] of [
    [{}, /at least one reference/],
    [{ tags: 'busybox' }, /list of strings/],
    [{ tags: ['Bad//Ref'] }, /not an image reference/],
    [{ tags: ['busybox'], user: 'a b' }, /not an image user/],
    [{ tags: ['busybox'], size: -1 }, /positive whole number/],
    [{ tags: ['busybox'], size: 1.5 }, /positive whole number/],
    [{ tags: ['busybox'], digests: ['sha256:abc'] }, /neither sha256/],
    [{ tags: ['busybox'], owner: 'me' }, /unknown field "owner"/],
  ] as const) {
    r = await api('POST', '/images', body);
    t.equal(r.status, 400, JSON.stringify(body));
    t.match(r.body.error, why, JSON.stringify(body));
  }
  r = await api('POST', '/images');
  t.equal(r.status, 400, 'no body');
  r = await api('POST', '/images?now=1', { tags: ['busybox'] });
  t.equal(r.status, 400, 'no query parameters');
  t.same(fake.actions, [], 'nothing declared by a refused request');
});

t.test('GET /state and POST /reset', async (t) => {
  let r = await api('GET', '/state');
  t.equal(r.status, 200);
  t.same(r.body.sandboxes, [{ id: 'sb-1' }]);
  t.same(r.body.images, [{ id: 'sha256:1', size: '10' }], 'BigInt values travel as decimal strings');
  fake.calls.record('RuntimeService', 'Version', {});
  await api('POST', '/faults', { rpc: 'Version', code: 2 });
  fake.actions = [];
  r = await api('POST', '/reset');
  t.same([r.status, r.body], [200, { reset: true }]);
  t.same(fake.actions, [['reset']]);
  t.same(fake.faults.list(), []);
  t.same(fake.calls.list(), []);
  r = await api('POST', '/reset', { now: true });
  t.equal(r.status, 400);
  r = await api('GET', '/state?verbose=1');
  t.equal(r.status, 400);
});

t.test('unknown routes are 404, wrong methods 405 with Allow', async (t) => {
  for (const path of ['/', '/nope', '/calls/', '/containers/c1', '/containers/c1/kill', '/containers//exit', '/faults/1/x']) {
    const r = await api('GET', path);
    t.equal(r.status, 404, path);
    t.match(r.body.error, /no route/);
  }
  for (const [method, path, allow] of [
    ['POST', '/calls', 'GET, DELETE'],
    ['PUT', '/faults', 'GET, POST, DELETE'],
    ['GET', '/faults/fault-1', 'DELETE'],
    ['GET', '/runtime', 'POST'],
    ['GET', '/containers/c1/exit', 'POST'],
    ['DELETE', '/state', 'GET'],
    ['GET', '/reset', 'POST'],
    ['PATCH', '/containers/c1/oom', 'POST'],
  ] as const) {
    const r = await api(method, path, method === 'GET' ? undefined : {});
    t.equal(r.status, 405, `${method} ${path}`);
    t.equal(r.headers.allow, allow);
    t.match(r.body.error, /not allowed/);
  }
  const head = await api('HEAD', '/state');
  t.equal(head.status, 405);
});

t.test('a body over 1 MiB is 413 and changes nothing', async (t) => {
  const big = JSON.stringify({ rpc: 'Version', code: 2, message: 'x'.repeat(MAX_BODY_BYTES) });
  let r = await api('POST', '/faults', big);
  t.equal(r.status, 413);
  t.match(r.body.error, /over 1048576 bytes/);
  t.same(fake.faults.list(), []);
  r = await api('POST', '/faults', Buffer.alloc(MAX_BODY_BYTES + 1, 0x20));
  t.equal(r.status, 413, 'one byte over');
  r = await api('POST', '/faults', JSON.stringify({ rpc: 'Version', code: 2 }).padEnd(MAX_BODY_BYTES, ' '));
  t.equal(r.status, 201, 'exactly 1 MiB is accepted');
  r = await api('GET', '/state');
  t.equal(r.status, 200, 'the server still answers');
  fake.faults.clear();
});

t.test('a bug in the runtime is a 500 and the server carries on', async (t) => {
  fake.failState = true;
  let r = await api('GET', '/state');
  t.equal(r.status, 500);
  t.match(r.body.error, /internal error: snapshot bug/);
  fake.failState = false;
  r = await api('GET', '/state');
  t.equal(r.status, 200);
  t.equal(r.body.containers.length, 3, 'state intact');
});

/** Polls until `check` holds or the deadline passes. */
async function waitFor(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

t.test('a stale socket is replaced; a live one or a plain file is not', async (t) => {
  const dir = join(root, 'stale');
  mkdirSync(dir, { mode: 0o700 });
  // A process killed outright leaves its socket file behind.
  const stale = join(dir, 'stale.sock');
  const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(stale)})`], { stdio: 'ignore' });
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  await waitFor(() => existsSync(stale), 'the child to listen');
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
  t.ok(lstatSync(stale).isSocket(), 'the dead process left its socket');
  const s = await startControlServer(stale, new FakeControl());
  const r = await call(stale, 'GET', '/faults');
  t.same([r.status, r.body], [200, { faults: [] }], 'serving on the reclaimed path');
  t.equal(statSync(stale).mode & 0o777, 0o600);

  await t.rejects(startControlServer(stale, new FakeControl()), { message: /in use: another server listens/ }, 'a live socket is left alone');
  t.same((await call(stale, 'GET', '/faults')).status, 200, 'the first server still serves');
  await s.close();
  t.notOk(existsSync(stale), 'close() removes the socket');
  await s.close();

  const plain = join(dir, 'plain');
  writeFileSync(plain, 'data');
  await t.rejects(startControlServer(plain, new FakeControl()), { message: /exists and is not a socket/ });
  t.ok(existsSync(plain), 'a plain file is not removed');

  const other = createServer();
  const live = join(dir, 'live.sock');
  await new Promise<void>((r) => other.listen(live, r));
  await t.rejects(startControlServer(live, new FakeControl()), { message: /in use/ });
  await new Promise<void>((r) => other.close(() => r()));

  await t.rejects(startControlServer(join(dir, 'x'.repeat(120)), new FakeControl()), { message: /longer than the 107 bytes/ });
});
