// Request bodies are parsed within bounds (reference/apiserver/body-bounds.ts): the worst bodies
// under the byte limit, sent every way a body is read, are answered 400 with a Status naming the
// limit, never 5xx; the largest bodies within the bounds, and ordinary Pods and StorageClasses in
// JSON and YAML, are served as before. Statuses and messages only: the times and heap are
// bench/body-bounds.ts's.
import t from 'tap';
import { createRequire } from 'node:module';
import { parseYaml } from '../../reference/apiserver/body-bounds.js';
import { podStrategy } from '../../reference/resources/pod.js';
import { storageClassStrategy } from '../../reference/resources/storageclass.js';
import { call, SC, sc, startTestServer } from './helpers.js';
import { BOUNDS, hostileBodies, PODS } from './hostile-bodies.js';

const APPLY = 'application/apply-patch+yaml';

t.test('the worst bodies are refused, every way a body is read', async (t) => {
  const srv = await startTestServer(t, { strategies: [storageClassStrategy, podStrategy] });
  t.equal((await call(srv.url, 'POST', SC, sc('hostile'))).status, 201);
  for (const body of hostileBodies('hostile')) {
    const type = body.format === 'json' ? 'application/json' : 'application/yaml';
    const object = `${body.collection}/${body.name}`;
    const ways: Array<[string, string, string, string]> = [
      ['create', 'POST', body.collection, type],
      ['update', 'PUT', object, type],
      ['apply', 'PATCH', `${object}?fieldManager=bounds`, APPLY],
    ];
    if (body.format === 'json') ways.push(['merge patch', 'PATCH', object, 'application/merge-patch+json']);
    for (const [way, method, path, contentType] of ways) {
      const r = await call(srv.url, method, path, body.text, { 'content-type': contentType });
      const what = `${body.label}, ${way}`;
      if (body.refusal) {
        t.equal(r.status, 400, what);
        t.equal(r.body?.kind, 'Status', `${what}: a Status`);
        t.match(r.body?.message, body.refusal, `${what}: the message names the limit`);
      } else {
        t.ok(r.status < 500, `${what}: ${r.status} ${r.status >= 400 ? r.body?.message : ''}`);
        if (r.status >= 400) t.equal(r.body?.kind, 'Status', `${what}: a Status`);
        t.notMatch(r.body?.message ?? '', BOUNDS, `${what}: within the bounds`);
      }
    }
  }
  t.equal((await call(srv.url, 'GET', '/healthz')).status, 200, 'the server still serves');
  t.equal((await call(srv.url, 'GET', `${SC}/hostile`)).body?.provisioner, 'example.orch.io/fast');
});

t.test('valid Pods and StorageClasses, JSON and YAML, created and applied as before', async (t) => {
  const srv = await startTestServer(t, { strategies: [storageClassStrategy, podStrategy] });
  const u = srv.url;
  const podYaml = (name: string) => `# a pod as people write them
apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  labels: &labels
    app: web
    tier: "front"
  annotations:
    note: >-
      folded
      text
spec:
  containers:
  - name: main
    image: 'registry.orch.io/app:1.0'
    command: ["sh", "-c"]
    args:
    - |
      echo "[a, b]" # not a comment
      exec server
    env:
    - {name: A, value: "1"}
    - name: B
      value: two words
  nodeSelector: *labels
`;
  const created = await call(u, 'POST', PODS, podYaml('yaml-pod'), { 'content-type': 'application/yaml' });
  t.equal(created.status, 201, created.text.slice(0, 300));
  const spec = created.body.spec;
  t.same(spec.containers[0].args, ['echo "[a, b]" # not a comment\nexec server\n']);
  t.same(spec.containers[0].env, [{ name: 'A', value: '1' }, { name: 'B', value: 'two words' }]);
  t.same(spec.nodeSelector, { app: 'web', tier: 'front' }, 'an alias is its anchor');
  t.equal(created.body.metadata.annotations.note, 'folded text');

  const applied = await call(u, 'PATCH', `${PODS}/applied-pod?fieldManager=kubectl`, podYaml('applied-pod'), { 'content-type': APPLY });
  t.equal(applied.status, 201, applied.text.slice(0, 300));
  t.same(applied.body.spec.containers[0].args, spec.containers[0].args);

  const podJson = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'json-pod' }, spec: { containers: [{ name: 'main', image: 'registry.orch.io/app:1.0' }] } };
  t.equal((await call(u, 'POST', PODS, podJson)).status, 201);
  // kubectl apply --server-side sends JSON as application/apply-patch+yaml.
  const kubectl = await call(u, 'PATCH', `${PODS}/kubectl-pod?fieldManager=kubectl`, JSON.stringify({ ...podJson, metadata: { name: 'kubectl-pod' } }), { 'content-type': APPLY });
  t.equal(kubectl.status, 201, kubectl.text.slice(0, 300));

  t.equal((await call(u, 'POST', SC, sc('json-sc'))).status, 201);
  const scYaml = 'apiVersion: storage.orch.io/v1\nkind: StorageClass\nmetadata:\n  name: yaml-sc\nprovisioner: example.orch.io/fast\nparameters:\n  type: ssd\nmountOptions: [ro, noatime]\n';
  const yamlSc = await call(u, 'POST', SC, scYaml, { 'content-type': 'application/yaml' });
  t.equal(yamlSc.status, 201, yamlSc.text.slice(0, 300));
  t.same([yamlSc.body.parameters, yamlSc.body.mountOptions], [{ type: 'ssd' }, ['ro', 'noatime']]);
  const scApplied = await call(u, 'PATCH', `${SC}/applied-sc?fieldManager=m`, scYaml.replace('yaml-sc', 'applied-sc'), { 'content-type': APPLY });
  t.equal(scApplied.status, 201, scApplied.text.slice(0, 300));

  // fieldValidation still reads YAML bodies as written: duplicates and unknown fields.
  const dup = await call(u, 'POST', SC, scYaml.replace('yaml-sc', 'dup-sc') + 'parameters:\n  type: hdd\nextra: 1\n', { 'content-type': 'application/yaml' });
  t.equal(dup.status, 201);
  t.match(dup.headers.get('warning'), /duplicate field \\"parameters\\".*unknown field \\"extra\\"/);
  t.same(dup.body.parameters, { type: 'hdd' }, 'the last of duplicate keys wins');
  const strict = await call(u, 'POST', `${SC}?fieldValidation=Strict`, scYaml.replace('yaml-sc', 'strict-sc') + 'extra: 1\n', { 'content-type': 'application/yaml' });
  t.equal(strict.status, 400);
  t.match(strict.body.message, /strict decoding error: unknown field "extra"/);
});

t.test('YAML is read as the yaml library reads it, JSON text included', async (t) => {
  const yaml = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const docs = [
    'a: 1\nb:\n  x: 1\n  x: ~\nc: [1, {d: 2, d: 3}]\n',
    'base: &b {k: [1, 2]}\nuse: *b\nother: *b\n',
    'key:\n- a\n- b\nother: c\n',
    '? complex\n: key\n',
    '- - - a\n',
    'plain: x\n  continued\nquoted: "q\n  r"\nsingle: \'it\'\'s\'\n',
    'n: [0x10, 1e3, .5, -0, null, ~, true, "true", 2001-12-14]\n',
    '--- \nafter: marker\n',
    '{"json": [1, 2.5, "x", null, true, {"k": "v", "k": "w"}], "\\u0041": "\\ud83d\\ude00"}',
    '[{"a": 1}, {"b": [[]]}]',
    '{unquoted: flow, "mixed": [a, \'b\']}',
    '',
    '# only a comment\n',
  ];
  for (const doc of docs) t.same(parseYaml(doc), yaml.parse(doc, { uniqueKeys: false }), JSON.stringify(doc));
});

t.test('YAML mapping keys JSON cannot hold are refused with a 400, as upstream converts YAML to JSON', async (t) => {
  for (const doc of ['? [x, y]\n: 2\n', '{a: 1, {b: c}: 2}', '? - a\n: v\n', 'null: z\n', '~: z\n']) {
    t.throws(() => parseYaml(doc), /invalid map key/, JSON.stringify(doc));
  }
  t.same(parseYaml('1: x\ntrue: y\n0.5: z\n'), { '1': 'x', true: 'y', '0.5': 'z' }, 'numbers and booleans become strings');
  const srv = await startTestServer(t, { strategies: [storageClassStrategy] });
  const body = 'apiVersion: storage.orch.io/v1\nkind: StorageClass\nmetadata:\n  name: keys\n  labels:\n    ? [a, b]\n    : c\nprovisioner: p.orch.io/x\n';
  for (const [method, path, type] of [
    ['POST', SC, 'application/yaml'],
    ['PATCH', `${SC}/keys?fieldManager=t`, APPLY],
  ] as const) {
    const r = await call(srv.url, method, path, body, { 'content-type': type });
    t.equal(r.status, 400, `${method} ${type}`);
    t.equal(r.body?.kind, 'Status');
    t.match(r.body?.message, /invalid map key/);
  }
  t.equal((await call(srv.url, 'GET', `${SC}/keys`)).status, 404, 'nothing was stored');
});
