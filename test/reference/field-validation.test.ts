// fieldValidation: the raw JSON/YAML scanner that keeps duplicate keys, the strict-decoding walk
// over a schema, and Ignore / Warn / Strict on POST, PUT and PATCH through the handler.
import t from 'tap';
import { parseRawJson, parseRawYaml, RawJsonError, type RawNode } from '../../reference/apiserver/raw-json.js';
import {
  goQuote,
  objectProblems,
  patchDocumentProblems,
  rawBodyProblems,
  warningHeaderValues,
} from '../../reference/apiserver/field-validation.js';
import { t as types, type Properties } from '../../reference/apiserver/schema.js';
import { SC, call, sc, startTestServer, widgets } from './helpers.js';

/** The RawNode as plain data: objects as [key, value] lists, scalars as 's' / null. */
function show(n: RawNode): unknown {
  if (n.kind === 'object') return n.entries.map(([k, v]) => [k, show(v)]);
  if (n.kind === 'array') return n.items.map(show);
  return n.null ? null : 's';
}

t.test('raw JSON keeps duplicate keys in document order', async (t) => {
  t.same(show(parseRawJson('{"a":1,"b":{"x":true,"x":null},"a":[1,"two",{"c":-1.5e3}]}')), [
    ['a', 's'],
    ['b', [['x', 's'], ['x', null]]],
    ['a', ['s', 's', [['c', 's']]]],
  ]);
  t.same(show(parseRawJson(' \n[ ]\t')), []);
  t.same(show(parseRawJson('{}')), []);
  t.same(show(parseRawJson('"just a string"')), 's');
  // Escaped keys are decoded, so "\u0061" and "a" are the same key.
  t.same(show(parseRawJson('{"\\u0061":1,"a":2,"q\\"uote":3}')), [['a', 's'], ['a', 's'], ['q"uote', 's']]);
  // Deep nesting does not overflow the stack (the parser is iterative).
  const deep = '['.repeat(200_000) + ']'.repeat(200_000);
  t.equal(parseRawJson(deep).kind, 'array');
  for (const bad of ['', '{', '{"a"}', '{"a":1,}', '[1,]', '{"a":1}x', 'tru', '{"a":"\\x"}', '"\u0001"', '01']) {
    t.throws(() => parseRawJson(bad), RawJsonError, `refuses ${JSON.stringify(bad)}`);
  }
});

t.test('raw YAML keeps duplicate keys', async (t) => {
  t.same(show(parseRawYaml('a: 1\nb:\n  x: 1\n  x: ~\nc: [1, {d: 2, d: 3}]\n')), [
    ['a', 's'],
    ['b', [['x', 's'], ['x', null]]],
    ['c', ['s', [['d', 's'], ['d', 's']]]],
  ]);
  t.same(show(parseRawYaml('base: &b {k: 1}\nuse: *b\n')), [['base', [['k', 's']]], ['use', [['k', 's']]]], 'aliases are followed');
  t.throws(() => parseRawYaml('a: [1'), RawJsonError);
});

const props: Properties = {
  apiVersion: types.string(),
  kind: types.string(),
  metadata: types.object({ name: types.string(), labels: types.map(types.string()) }),
  spec: types.object({
    x: types.integer(),
    items: types.array(types.object({ name: types.string() })),
    free: types.any(),
  }),
};

t.test('strict problems: unknown and duplicate fields, with upstream paths, in document order', async (t) => {
  const body = `{
    "apiVersion": "v1",
    "metadata": {"name": "n", "labels": {"a": "1", "a": "2"}, "bogus": 1},
    "spec": {"foo": 1, "x": 1, "x": 2, "items": [{"name": "a", "extra": {"deep": 1}}, {"name": "b", "name": "c"}],
             "free": {"k": 1, "k": 2, "n": [{"z": 1, "z": 2}]}},
    "top": true,
    "top": false
  }`;
  t.same(rawBodyProblems(parseRawJson(body), props), [
    'duplicate field "metadata.labels.a"',
    'unknown field "metadata.bogus"',
    'unknown field "spec.foo"',
    'duplicate field "spec.x"',
    'unknown field "spec.items[0].extra"',
    'duplicate field "spec.items[1].name"',
    'duplicate field "spec.free.k"',
    'duplicate field "spec.free.n[0].z"',
    'unknown field "top"',
  ], 'unknown keys are reported once (deduplicated) and not looked into');
  t.same(rawBodyProblems(parseRawJson('{"spec": null, "metadata": {"labels": "not a map"}, "spec": {"x": "wrong type"}}'), props), ['duplicate field "spec"'], 'type mismatches are left to the schema walk');
  t.same(rawBodyProblems(parseRawJson(JSON.stringify({ metadata: { name: 'clean' }, spec: { x: 1 } })), props), [], 'a clean body has none');
  const many = `{${Array.from({ length: 150 }, (_, i) => `"u${i}": 1`).join(',')}}`;
  t.equal(rawBodyProblems(parseRawJson(many), props).length, 100, 'at most 100 problems, as upstream');
  t.same(objectProblems({ metadata: { name: 'x', extra: 1 }, spec: { items: [{ no: 1 }] } }, props), ['unknown field "metadata.extra"', 'unknown field "spec.items[0].no"'], 'in-memory objects: unknown fields only');
  t.same(rawBodyProblems(parseRawYaml('spec:\n  x: 1\n  x: 2\n  y: 3\n'), props), ['duplicate field "spec.x"', 'unknown field "spec.y"'], 'YAML bodies too');
});

t.test('patch documents: duplicates anywhere, JSON patch operation fields', async (t) => {
  t.same(patchDocumentProblems('{"spec":{"x":1,"x":2},"a":{"b":[{"c":1,"c":2}]}}', 'application/merge-patch+json'), ['duplicate field "spec.x"', 'duplicate field "a.b[0].c"']);
  t.same(patchDocumentProblems('{"spec":{"x":1,"x":2}}', 'application/strategic-merge-patch+json; charset=utf-8'), ['duplicate field "spec.x"']);
  t.same(
    patchDocumentProblems('[{"op":"add","path":"/spec/x","value":{"k":1,"k":2},"bogus":1},{"op":"remove","op":"remove","path":"/a"}]', 'application/json-patch+json'),
    ['json patch duplicate field "[0].value.k"', 'json patch unknown field "[0].bogus"', 'json patch duplicate field "[1].op"'],
  );
  t.same(patchDocumentProblems('{"a":1,"a":2}', 'application/apply-patch+yaml'), [], 'apply patches are not looked at here');
});

t.test('quoting as Go prints it', async (t) => {
  t.equal(goQuote('spec.foo'), '"spec.foo"');
  t.equal(goQuote('a"b\\c\nd\x01\x7f'), '"a\\"b\\\\c\\nd\\x01\\x7f"');
  t.equal(goQuote('ünïcode'), '"ünïcode"');
  t.same(warningHeaderValues(['unknown field "spec.foo"', 'unknown field "spec.foo"', 'duplicate field "x"']), [
    '299 - "unknown field \\"spec.foo\\""',
    '299 - "duplicate field \\"x\\""',
  ], 'one header per distinct problem, quotes escaped');
  t.equal(Buffer.from(warningHeaderValues(['unknown field "ü"'])[0]!, 'latin1').toString('utf8'), '299 - "unknown field \\"ü\\""', 'non-ASCII text goes out as UTF-8 bytes');
});

const warnings = (r: { headers: Headers }): string[] => {
  const all = r.headers.get('warning');
  return all ? [...all.matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1')) : [];
};

const DUP_BODY = (name: string): string =>
  `{"apiVersion":"storage.orch.io/v1","kind":"StorageClass","metadata":{"name":"${name}","labels":{"a":"first","a":"last"}},"provisioner":"a.orch.io/b","bogus":1}`;

t.test('POST: Warn (default), Ignore, Strict, and invalid values', async (t) => {
  const srv = await startTestServer(t);
  const u = srv.url;

  const warn = await call(u, 'POST', SC, DUP_BODY('warn'));
  t.equal(warn.status, 201, 'Warn (default): the request succeeds');
  t.same(warnings(warn), ['duplicate field "metadata.labels.a"', 'unknown field "bogus"'], 'one Warning per problem');
  t.same(warn.body.metadata.labels, { a: 'last' }, 'the last duplicate persists');
  t.equal(warn.body.bogus, undefined, 'unknown fields are dropped');

  const explicit = await call(u, 'POST', `${SC}?fieldValidation=Warn`, DUP_BODY('warn2'));
  t.equal(explicit.status, 201);
  t.equal(warnings(explicit).length, 2);

  const ignore = await call(u, 'POST', `${SC}?fieldValidation=Ignore`, DUP_BODY('ignore'));
  t.equal(ignore.status, 201, 'Ignore: the request succeeds');
  t.equal(ignore.headers.get('warning'), null, 'silently');
  t.same(ignore.body.metadata.labels, { a: 'last' });

  const before = await srv.storage.currentRevision();
  const strict = await call(u, 'POST', `${SC}?fieldValidation=Strict`, DUP_BODY('strict'));
  t.equal(strict.status, 400, 'Strict: BadRequest');
  t.equal(strict.body.reason, 'BadRequest');
  t.equal(strict.body.message, 'StorageClass in version "v1" cannot be handled as a StorageClass: strict decoding error: duplicate field "metadata.labels.a", unknown field "bogus"');
  t.equal(await srv.storage.currentRevision(), before, 'nothing was written');
  t.equal((await call(u, 'GET', `${SC}/strict`)).status, 404);

  const clean = await call(u, 'POST', `${SC}?fieldValidation=Strict`, sc('clean'));
  t.equal(clean.status, 201, 'Strict with a clean body succeeds');
  t.equal(clean.headers.get('warning'), null);

  const yaml = 'apiVersion: storage.orch.io/v1\nkind: StorageClass\nmetadata:\n  name: yaml\nprovisioner: a.orch.io/first\nprovisioner: a.orch.io/last\n';
  const y = await call(u, 'POST', SC, yaml, { 'content-type': 'application/yaml' });
  t.equal(y.status, 201, 'a YAML body with a duplicate key is decoded (last wins)');
  t.equal(y.body.provisioner, 'a.orch.io/last');
  t.same(warnings(y), ['duplicate field "provisioner"']);
  const ys = await call(u, 'POST', `${SC}?fieldValidation=Strict`, yaml.replace('name: yaml', 'name: yaml2'), { 'content-type': 'application/yaml' });
  t.equal(ys.status, 400);

  for (const bad of ['strict', 'Bogus', 'IGNORE']) {
    const r = await call(u, 'POST', `${SC}?fieldValidation=${bad}`, sc(`v-${bad.toLowerCase()}`));
    t.equal(r.status, 422, `fieldValidation=${bad} is refused`);
    t.equal(r.body.message, `CreateOptions.meta.orch.io "" is invalid: fieldValidation: Unsupported value: "${bad}": supported values: "", "Ignore", "Strict", "Warn"`);
    t.same(r.body.details.causes, [{ reason: 'FieldValueNotSupported', message: `Unsupported value: "${bad}": supported values: "", "Ignore", "Strict", "Warn"`, field: 'fieldValidation' }]);
  }
  t.equal((await call(u, 'POST', `${SC}?fieldValidation=`, sc('empty'))).status, 201, 'an empty value means the default');
});

t.test('PUT: the same three directives, UpdateOptions for bad values', async (t) => {
  const srv = await startTestServer(t);
  const u = srv.url;
  await call(u, 'POST', SC, sc('put', { provisioner: 'a.orch.io/b' }));
  const body = DUP_BODY('put').replace('"provisioner"', '"allowVolumeExpansion":true,"allowVolumeExpansion":false,"provisioner"');
  const strict = await call(u, 'PUT', `${SC}/put?fieldValidation=Strict`, body);
  t.equal(strict.status, 400);
  t.match(strict.body.message, /strict decoding error: duplicate field "metadata.labels.a", duplicate field "allowVolumeExpansion", unknown field "bogus"$/);
  t.equal((await call(u, 'GET', `${SC}/put`)).body.metadata.labels, undefined, 'unchanged');
  const warn = await call(u, 'PUT', `${SC}/put`, body);
  t.equal(warn.status, 200);
  t.equal(warnings(warn).length, 3);
  t.equal(warn.body.allowVolumeExpansion, false, 'the last duplicate persists');
  const bad = await call(u, 'PUT', `${SC}/put?fieldValidation=x`, body);
  t.equal(bad.status, 422);
  t.match(bad.body.message, /^UpdateOptions\.meta\.orch\.io "" is invalid: fieldValidation: Unsupported value: "x"/);
});

t.test('PATCH: duplicates in the patch, unknown fields in the result; Strict is 422', async (t) => {
  const srv = await startTestServer(t);
  const u = srv.url;
  await call(u, 'POST', widgets('default'), { metadata: { name: 'w' }, spec: { size: 1 } });
  const item = `${widgets('default')}/w`;
  const merge = { 'content-type': 'application/merge-patch+json' };
  const patch = '{"spec":{"size":2,"size":3,"shape":"round"}}';

  const strict = await call(u, 'PATCH', `${item}?fieldValidation=Strict`, patch, merge);
  t.equal(strict.status, 422, 'Strict on a patch: 422, as upstream');
  t.equal(strict.body.reason, 'Invalid');
  t.match(strict.body.message, /^ "" is invalid: patch: Invalid value: ".*": strict decoding error: duplicate field "spec.size", unknown field "spec.shape"$/);
  t.equal(strict.body.details.causes[0].field, 'patch');
  t.equal((await call(u, 'GET', item)).body.spec.size, 1, 'unchanged');

  const warn = await call(u, 'PATCH', item, patch, merge);
  t.equal(warn.status, 200);
  t.same(warnings(warn), ['duplicate field "spec.size"', 'unknown field "spec.shape"']);
  t.equal(warn.body.spec.size, 3, 'the last duplicate persists');

  const ignore = await call(u, 'PATCH', `${item}?fieldValidation=Ignore`, '{"spec":{"size":4,"size":5,"shape":"x"}}', merge);
  t.equal(ignore.status, 200);
  t.equal(ignore.headers.get('warning'), null);

  const jp = await call(u, 'PATCH', `${item}?fieldValidation=Strict`, '[{"op":"replace","path":"/spec/size","value":9,"extra":1}]', { 'content-type': 'application/json-patch+json' });
  t.equal(jp.status, 422);
  t.match(jp.body.message, /strict decoding error: json patch unknown field "\[0\]\.extra"$/);

  const status = await call(u, 'PATCH', `${item}/status?fieldValidation=Strict`, '{"status":{"phase":"Up","nope":1}}', merge);
  t.equal(status.status, 422, 'the status subresource too');
  t.match(status.body.message, /unknown field "status.nope"$/);

  const bad = await call(u, 'PATCH', `${item}?fieldValidation=x`, '{}', merge);
  t.equal(bad.status, 422);
  t.match(bad.body.message, /^PatchOptions\.meta\.orch\.io "" is invalid: fieldValidation: Unsupported value: "x"/);
});
