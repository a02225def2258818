// The REST handler: routing, negotiation, body handling and the Status body of every error kind.
import t from 'tap';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { startApiServer } from '../../reference/apiserver/apiserver.js';
import { defineStrategy } from '../../reference/apiserver/strategy.js';
import { storageClassStrategy } from '../../reference/resources/storageclass.js';
import { MemoryStorage } from '../../reference/storage/memory.js';
import { NS, SC, call, sc, startTestServer, widgetStrategy, widgets } from './helpers.js';

/** The identifying fields of a Status body, next to what a failure with `code`/`reason` must show. */
function statusShape(body: any, code: number, reason: string): [unknown, unknown] {
  return [
    { kind: body?.kind, apiVersion: body?.apiVersion, status: body?.status, code: body?.code, reason: body?.reason },
    { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason },
  ];
}

t.test('every error kind is a Status with code, reason and message', async (t) => {
  const srv = await startTestServer(t);
  const u = srv.url;
  await call(u, 'POST', SC, sc('exists'));

  const cases: Array<[string, () => Promise<any>, number, string, string | RegExp]> = [
    ['NotFound item', () => call(u, 'GET', `${SC}/missing`), 404, 'NotFound', 'storageclasses.storage.orch.io "missing" not found'],
    ['NotFound core item', () => call(u, 'GET', `${NS}/missing`), 404, 'NotFound', 'namespaces "missing" not found'],
    ['NotFound path', () => call(u, 'GET', '/apis/nothing.orch.io/v1/things'), 404, 'NotFound', 'the server could not find the requested resource'],
    ['NotFound resource', () => call(u, 'GET', '/apis/storage.orch.io/v1/things'), 404, 'NotFound', 'the server could not find the requested resource'],
    ['NotFound version', () => call(u, 'GET', '/apis/storage.orch.io/v2/storageclasses'), 404, 'NotFound', 'the server could not find the requested resource'],
    ['NotFound cluster resource under a namespace', () => call(u, 'GET', '/apis/storage.orch.io/v1/namespaces/default/storageclasses'), 404, 'NotFound', 'the server could not find the requested resource'],
    ['NotFound namespaced item without namespace', () => call(u, 'GET', '/apis/test.orch.io/v1/widgets/x'), 404, 'NotFound', 'the server could not find the requested resource'],
    ['AlreadyExists', () => call(u, 'POST', SC, sc('exists')), 409, 'AlreadyExists', 'storageclasses.storage.orch.io "exists" already exists'],
    ['Conflict', () => call(u, 'PUT', `${SC}/exists`, sc('exists', { metadata: { name: 'exists', resourceVersion: '1' } })), 409, 'Conflict', /^Operation cannot be fulfilled on storageclasses.storage.orch.io "exists": the object has been modified/],
    ['Invalid', () => call(u, 'POST', SC, { metadata: { name: 'inv' } }), 422, 'Invalid', 'StorageClass.storage.orch.io "inv" is invalid: provisioner: Required value'],
    ['BadRequest (JSON)', () => call(u, 'POST', SC, '{"metadata":'), 400, 'BadRequest', /^couldn't get version\/kind; json parse error: /],
    ['BadRequest (apiVersion)', () => call(u, 'POST', SC, { ...sc('av'), apiVersion: 'storage.orch.io/v9' }), 400, 'BadRequest', 'the API version in the data (storage.orch.io/v9) does not match the expected API version (storage.orch.io/v1)'],
    ['BadRequest (kind)', () => call(u, 'POST', SC, { ...sc('k'), kind: 'Namespace' }), 400, 'BadRequest', 'the kind in the data (Namespace) does not match the expected kind (StorageClass)'],
    ['BadRequest (query)', () => call(u, 'GET', `${SC}?watch=maybe`), 400, 'BadRequest', 'strconv.ParseBool: parsing "maybe": invalid syntax'],
    ['UnsupportedMediaType (patch type)', () => call(u, 'PATCH', `${SC}/exists`, {}, { 'content-type': 'application/x-unknown-patch' }), 415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml'],
    ['MethodNotAllowed (PATCH collection)', () => call(u, 'PATCH', SC, {}, { 'content-type': 'application/merge-patch+json' }), 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'],
    ['MethodNotAllowed (POST item)', () => call(u, 'POST', `${SC}/exists`, sc('exists')), 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'],
    ['MethodNotAllowed (PUT collection)', () => call(u, 'PUT', SC, sc('x')), 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'],
    ['MethodNotAllowed (POST all namespaces)', () => call(u, 'POST', '/apis/test.orch.io/v1/widgets', { metadata: { name: 'x' } }), 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'],
    ['MethodNotAllowed (discovery)', () => call(u, 'POST', '/apis', {}), 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'],
    // Refused by Node's HTTP parser before any handler runs (Go takes any token): request-fuzz.
    ['MethodNotAllowed (a method Node does not know)', () => call(u, 'FOO', `${SC}/exists`), 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'],
    ['MethodNotAllowed (a lower-case method)', () => call(u, 'patch', `${SC}/exists`, {}), 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'],
    ['NotAcceptable', () => call(u, 'GET', SC, undefined, { accept: 'application/vnd.kubernetes.protobuf' }), 406, 'NotAcceptable', 'only the following media types are accepted: application/json, application/yaml'],
    ['NotAcceptable (a Table this server does not make)', () => call(u, 'GET', SC, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.example.io' }), 406, 'NotAcceptable', /^only the following media types are accepted/],
    ['UnsupportedMediaType', () => call(u, 'POST', SC, JSON.stringify(sc('m')), { 'content-type': 'text/plain' }), 415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml'],
    ['RequestEntityTooLarge', () => call(u, 'POST', SC, JSON.stringify(sc('big', { parameters: { x: 'y'.repeat(3 * 1024 * 1024) } }))), 413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728'],
    ['Forbidden', () => call(u, 'DELETE', `${NS}/kube-system`), 403, 'Forbidden', 'namespaces "kube-system" is forbidden: this namespace may not be deleted'],
    ['Timeout (future resourceVersion)', () => call(u, 'GET', `${SC}?resourceVersion=100000`), 504, 'Timeout', /^Timeout: Too large resource version: 100000, current: \d+$/],
    ['Invalid ListOptions', () => call(u, 'GET', `${SC}?resourceVersionMatch=Exact`), 422, 'Invalid', 'ListOptions.meta.orch.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
    // A selector that cannot be parsed deletes nothing.
    ['BadRequest (labelSelector on delete collection)', () => call(u, 'DELETE', `${SC}?labelSelector=app%20in%20(x`), 400, 'BadRequest', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['Invalid DeleteOptions (dryRun)', () => call(u, 'DELETE', `${SC}/exists?dryRun=Bogus`), 422, 'Invalid', 'DeleteOptions.meta.orch.io "" is invalid: dryRun: Unsupported value: []string{"Bogus"}: supported values: "All"'],
    ['Invalid ListOptions (watch)', () => call(u, 'GET', `${SC}?watch=true&sendInitialEvents=true&resourceVersionMatch=Exact`), 422, 'Invalid', /resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan/],
  ];
  for (const [what, fn, code, reason, message] of cases) {
    const r = await fn();
    t.equal(r.status, code, `${what}: HTTP ${code}`);
    t.same(...statusShape(r.body, code, reason), `${what}: Status body`);
    if (typeof message === 'string') t.equal(r.body?.message, message, `${what}: message`);
    else t.match(r.body?.message, message, `${what}: message`);
    t.equal(r.headers.get('content-type'), 'application/json', `${what}: JSON`);
  }

  t.equal((await call(u, 'GET', `${SC}/exists`)).status, 200, 'the refused requests deleted nothing');

  // 410 from a list at a compacted revision.
  const rv = (await call(u, 'GET', SC)).body.metadata.resourceVersion;
  await call(u, 'POST', SC, sc('later'));
  await srv.storage.compact(await srv.storage.currentRevision());
  const gone = await call(u, 'GET', `${SC}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
  t.equal(gone.status, 410);
  t.same(...statusShape(gone.body, 410, 'Expired'));
});

t.test('never a 500 for malformed input', async (t) => {
  const srv = await startTestServer(t);
  const deep = (n: number): string => '['.repeat(n) + ']'.repeat(n);
  const bodies: unknown[] = [
    'null', '[]', '"a string"', '42', 'true', '', ' ', '{', '{"a":1,}', '\u0000', 'not json at all',
    { metadata: null, provisioner: 'a.orch.io/b' },
    { metadata: [], provisioner: 'a.orch.io/b' },
    { metadata: 'x', provisioner: 'a.orch.io/b' },
    { metadata: { name: 5 }, provisioner: 'a.orch.io/b' },
    { metadata: { name: null }, provisioner: 'a.orch.io/b' },
    { metadata: { name: ['x'] }, provisioner: 'a.orch.io/b' },
    { metadata: { name: 'x', labels: [] } , provisioner: 'a.orch.io/b' },
    { metadata: { name: 'x', labels: { a: 1 } }, provisioner: 'a.orch.io/b' },
    { metadata: { name: 'x', labels: { a: null } }, provisioner: 'a.orch.io/b' },
    { metadata: { name: 'x', annotations: 'a' }, provisioner: 'a.orch.io/b' },
    { metadata: { name: 'x', finalizers: 'a' }, provisioner: 'a.orch.io/b' },
    { metadata: { name: 'x', finalizers: [1, null] }, provisioner: 'a.orch.io/b' },
    { metadata: { name: 'x', ownerReferences: [null, 5] }, provisioner: 'a.orch.io/b' },
    { metadata: { name: 'x', generation: 'one' }, provisioner: 'a.orch.io/b' },
    { metadata: { name: 'x', generation: 1.5 }, provisioner: 'a.orch.io/b' },
    { metadata: { name: 'x', generation: 1e300 }, provisioner: 'a.orch.io/b' },
    { metadata: { name: 'x', managedFields: [{ fieldsV1: JSON.parse(deep(2000)) }] }, provisioner: 'a.orch.io/b' },
    { metadata: { name: 'x', labels: { ['__proto__']: 'v' } }, provisioner: 'a.orch.io/b' },
    { metadata: { name: 'x'.repeat(1024 * 1024) }, provisioner: 'a.orch.io/b' },
    { metadata: { name: 'x' }, provisioner: 'p'.repeat(2 * 1024 * 1024) },
    { metadata: { name: 'x' }, provisioner: null },
    { metadata: { name: 'x' }, provisioner: {} },
    { metadata: { name: 'x' }, provisioner: 'a.orch.io/b', parameters: 5 },
    { metadata: { name: 'x' }, provisioner: 'a.orch.io/b', parameters: [] },
    { metadata: { name: 'x' }, provisioner: 'a.orch.io/b', parameters: { a: {} } },
    { metadata: { name: 'x' }, provisioner: 'a.orch.io/b', parameters: { '': 'v' } },
    { metadata: { name: 'x' }, provisioner: 'a.orch.io/b', allowVolumeExpansion: 'yes' },
    { metadata: { name: 'x' }, provisioner: 'a.orch.io/b', reclaimPolicy: 3 },
    { metadata: { name: 'x' }, provisioner: 'a.orch.io/b', mountOptions: 'ro' },
    { metadata: { name: 'x' }, provisioner: 'a.orch.io/b', mountOptions: [{}] },
    { metadata: { name: 'x' }, provisioner: 'a.orch.io/b', allowedTopologies: {} },
    { metadata: { name: 'x' }, provisioner: 'a.orch.io/b', allowedTopologies: [null, 1, []] },
    { metadata: { name: 'x' }, provisioner: 'a.orch.io/b', allowedTopologies: [{ matchLabelExpressions: [{ key: 5, values: 'v' }] }] },
    { apiVersion: 5, metadata: { name: 'x' } },
    { kind: ['StorageClass'], metadata: { name: 'x' } },
    { apiVersion: null, kind: null, metadata: { name: 'nulls' }, provisioner: 'a.orch.io/b' },
    deep(100_000),
    `{"metadata":{"name":"x"},"provisioner":"a.orch.io/b","parameters":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}`,
  ];
  const statuses = new Map<number, number>();
  for (const body of bodies) {
    const raw = typeof body === 'string' ? body : JSON.stringify(body);
    for (const [method, p] of [['POST', SC], ['PUT', `${SC}/x`], ['POST', widgets('default')], ['PUT', `${NS}/default/status`]] as const) {
      const r = await call(srv.url, method, p, raw);
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (r.status >= 500 || r.body?.kind !== (r.status < 300 ? r.body?.kind : 'Status')) {
        t.fail(`${method} ${p} with ${raw.slice(0, 80)} -> ${r.status} ${r.text.slice(0, 200)}`);
      }
    }
  }
  t.notOk(statuses.has(500), `no 500 among ${JSON.stringify([...statuses])}`);

  // YAML bodies get the same treatment.
  for (const yaml of ['- a\n- b', 'a: [', 'metadata: !!binary aGVsbG8=', 'metadata:\n  name: &a x\n  labels: *a\nprovisioner: a.orch.io/b']) {
    const r = await call(srv.url, 'POST', SC, yaml, { 'content-type': 'application/yaml' });
    t.ok(r.status >= 400 && r.status < 500, `YAML ${JSON.stringify(yaml)} -> ${r.status}`);
    t.equal(r.body?.kind, 'Status');
  }
  const type = await call(srv.url, 'POST', SC, { metadata: { name: 'x' }, provisioner: 'a.orch.io/b', allowVolumeExpansion: 'yes', parameters: 5 });
  t.equal(type.status, 422);
  t.same(type.body.details.causes, [
    { reason: 'FieldValueTypeInvalid', message: 'Invalid value: "number": must be of type object', field: 'parameters' },
    { reason: 'FieldValueTypeInvalid', message: 'Invalid value: "string": must be of type boolean', field: 'allowVolumeExpansion' },
  ]);
});

t.test('413 for a streamed (chunked) body without buffering it', async (t) => {
  const srv = await startTestServer(t);
  async function* chunks(): AsyncGenerator<Buffer> {
    for (let i = 0; i < 40; i++) yield Buffer.alloc(128 * 1024, 'a');
  }
  const res = await request(`${srv.url}${SC}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Readable.from(chunks()) });
  t.equal(res.statusCode, 413);
  const body = (await res.body.json()) as any;
  t.equal(body.reason, 'RequestEntityTooLarge');
  t.equal((await call(srv.url, 'GET', '/version')).status, 200, 'server still fine');
});

t.test('CONNECT is a 405 Status, not a dropped connection (request-fuzz)', async (t) => {
  const srv = await startTestServer(t);
  const { port, hostname } = new URL(srv.url);
  const answer = await new Promise<string>((resolve) => {
    let text = '';
    const socket = connect(Number(port), hostname, () => socket.write(`CONNECT ${SC} HTTP/1.1\r\nHost: x\r\n\r\n`));
    socket.on('data', (d: Buffer) => (text += d.toString()));
    socket.on('close', () => resolve(text));
  });
  t.match(answer, /^HTTP\/1\.1 405 /);
  t.same(...statusShape(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), 405, 'MethodNotAllowed'));
});

t.test('a large answer reaches a client still sending a body nothing reads, over a connection it closes (request-fuzz)', async (t) => {
  const srv = await startTestServer(t);
  const annotations = { a: 'x'.repeat(200_000) };
  for (let i = 0; i < 15; i++) t.equal((await call(srv.url, 'POST', SC, sc(`big-${i}`, { metadata: { name: `big-${i}`, annotations } }))).status, 201);
  // A GET's body is never read: the server closed the connection (Connection: close) with it
  // unread, resetting it before the client had read more than the first 128 KiB of the 3 MB list.
  const { status, received, length, error } = await new Promise<{ status?: number; received: number; length: number; error?: string }>((resolve) => {
    const body = Buffer.alloc(300_000, 'x');
    const req = httpRequest(`${srv.url}${SC}`, { method: 'GET', agent: false, headers: { 'content-length': String(body.length) } }, (res) => {
      let received = 0;
      res.on('data', (c: Buffer) => (received += c.length));
      res.on('end', () => resolve({ status: res.statusCode, received, length: Number(res.headers['content-length']) }));
      res.on('error', (err) => resolve({ status: res.statusCode, received, length: Number(res.headers['content-length']), error: err.message }));
    });
    req.on('error', (err) => resolve({ received: 0, length: -1, error: err.message }));
    req.end(body);
  });
  t.equal(status, 200);
  t.ok(length > 3_000_000, `a list of ${length} bytes`);
  t.equal(received, length, `all of it${error ? ` (${error})` : ''}`);
});

t.test('bodies: YAML in, YAML out, pretty, warnings for unknown fields', async (t) => {
  const srv = await startTestServer(t);
  const yaml = 'apiVersion: storage.orch.io/v1\nkind: StorageClass\nmetadata:\n  name: from-yaml\nprovisioner: example.orch.io/y\nbogus: 1\n';
  const created = await call(srv.url, 'POST', SC, yaml, { 'content-type': 'application/yaml' });
  t.equal(created.status, 201);
  t.equal(created.body.metadata.name, 'from-yaml');
  t.equal(created.body.bogus, undefined, 'unknown fields are dropped');
  t.equal(created.headers.get('warning'), '299 - "unknown field \\"bogus\\""');

  const asYaml = await call(srv.url, 'GET', `${SC}/from-yaml`, undefined, { accept: 'application/yaml' });
  t.equal(asYaml.headers.get('content-type'), 'application/yaml');
  t.match(asYaml.text, /^apiVersion: storage.orch.io\/v1\nkind: StorageClass\n/);

  const pretty = await call(srv.url, 'GET', `${SC}/from-yaml?pretty=true`);
  t.match(pretty.text, /^\{\n  "apiVersion": "storage.orch.io\/v1",\n/);
  const compact = await call(srv.url, 'GET', `${SC}/from-yaml`);
  t.match(compact.text, /^\{"apiVersion":/);
  const curl = await call(srv.url, 'GET', `${SC}/from-yaml`, undefined, { 'user-agent': 'curl/8.0' });
  t.match(curl.text, /^\{\n/, 'command-line tools get pretty output by default');

  const kubectlAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
  const list = await call(srv.url, 'GET', SC, undefined, { accept: kubectlAccept });
  t.equal(list.status, 200);
  t.equal(list.body.kind, 'Table', 'a Table answers the Table request (table.test.ts covers Tables)');
  for (const accept of ['*/*', 'application/*', 'application/json, */*', 'text/html;q=0.9, application/json;q=0.1', 'application/json;charset=utf-8']) {
    t.equal((await call(srv.url, 'GET', SC, undefined, { accept })).status, 200, `Accept: ${accept}`);
  }
  t.equal((await call(srv.url, 'GET', SC, undefined, { accept: 'application/json;q=0' })).status, 406, 'q=0 refuses');
  const noType = await call(srv.url, 'POST', SC, JSON.stringify(sc('no-ct')), { 'content-type': '' });
  t.equal(noType.status, 201, 'a missing Content-Type means JSON');
});

t.test('health and root paths', async (t) => {
  const srv = await startTestServer(t);
  for (const p of ['/healthz', '/livez', '/readyz']) {
    const r = await call(srv.url, 'GET', p);
    t.equal(r.status, 200);
    t.equal(r.text, 'ok');
  }
  const root = await call(srv.url, 'GET', '/');
  t.ok(root.body.paths.includes('/apis/storage.orch.io/v1'));
});

t.test('unexpected failures are a logged 500 InternalError Status', async (t) => {
  const logged: string[] = [];
  const storage = new MemoryStorage();
  const throwing = defineStrategy({ ...widgetStrategy, resource: 'gadgets', kind: 'Gadget', singular: 'gadget', validate: () => { throw new Error('strategy bug'); } });
  const api = await startApiServer({ storage, strategies: [storageClassStrategy, throwing], log: (m) => logged.push(m) });
  t.teardown(() => api.close());

  const r = await call(api.url, 'POST', '/apis/test.orch.io/v1/namespaces/default/gadgets', { metadata: { name: 'g' } });
  t.equal(r.status, 500);
  t.same(r.body, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Internal error occurred: strategy bug',
    reason: 'InternalError',
    details: { causes: [{ message: 'strategy bug' }] },
    code: 500,
  });
  // Beside the start-up notice of the node proxy (no agent CA given), the failure and nothing else.
  t.same(logged.filter((m) => !m.startsWith('node proxy:')), ['POST /apis/test.orch.io/v1/namespaces/default/gadgets failed']);

  // An entry that does not decode (planted straight into storage) fails reads of it, not the server.
  await storage.create('/registry/storage.orch.io/storageclasses/corrupt', '{not json');
  const get = await call(api.url, 'GET', `${SC}/corrupt`);
  t.equal(get.status, 500);
  t.match(get.body.message, /^Internal error occurred: StorageError: corrupt object, Code: 7, Key: \/registry\/storage.orch.io\/storageclasses\/corrupt, ResourceVersion: 0, AdditionalErrorMsg: /);
  t.equal((await call(api.url, 'GET', '/version')).status, 200);
});
