// metadata.managedFields: field sets (FieldsV1), the fields an applied configuration sets, what
// changed between two objects, and the Update entries every write records.
import t from 'tap';
import {
  FieldSet,
  MAX_UPDATE_MANAGERS,
  compare,
  pathString,
  removePaths,
  toFieldSet,
} from '../../reference/apiserver/managed-fields.js';
import { rootType } from '../../reference/apiserver/patch-schema.js';
import { t as types } from '../../reference/apiserver/schema.js';
import { SC, call, sc, startTestServer, widgets } from './helpers.js';

const TYPE = rootType(
  {
    spec: types.object({
      size: types.integer(),
      tags: types.array(types.string()),
      atomic: types.array(types.string()),
      items: types.array(types.object({ name: types.string(), value: types.string() })),
      empty: types.object({}),
    }),
  },
  { 'spec.tags': { strategy: 'merge' }, 'spec.items': { strategy: 'merge', mergeKey: 'name' } },
);

const paths = (s: FieldSet): string[] => [...s].map(pathString).sort();

t.test('FieldsV1: members, `.` for members with children, upstream element order', async (t) => {
  const s = FieldSet.of([
    ['f:spec', 'f:items', 'k:{"name":"a"}'],
    ['f:spec', 'f:items', 'k:{"name":"a"}', 'f:value'],
    ['f:spec', 'f:tags', 'v:"x"'],
    ['f:metadata', 'f:labels', 'f:app'],
    ['f:spec', 'f:size'],
  ]);
  const v1 = s.toFieldsV1();
  t.same(v1, {
    'f:metadata': { 'f:labels': { 'f:app': {} } },
    'f:spec': { 'f:items': { 'k:{"name":"a"}': { '.': {}, 'f:value': {} } }, 'f:size': {}, 'f:tags': { 'v:"x"': {} } },
  });
  t.same(Object.keys(v1), ['f:metadata', 'f:spec'], 'fields sorted');
  t.same(Object.keys((v1['f:spec'] as Record<string, unknown>)), ['f:items', 'f:size', 'f:tags']);
  t.same(paths(FieldSet.fromFieldsV1(v1)), paths(s), 'round trip');
  t.same(paths(FieldSet.fromFieldsV1({ 'f:a': { '.': {}, 'f:b': {} }, 'f:c': { 'f:d': {} } })), ['.a', '.a.b', '.c.d']);
  t.same(
    Object.keys(FieldSet.of([['f:l', 'i:10'], ['f:l', 'v:"a"'], ['f:l', 'k:{"a":1}'], ['f:l', 'f:z'], ['f:l', 'i:9']]).toFieldsV1()['f:l'] as object),
    ['f:z', 'k:{"a":1}', 'v:"a"', 'i:9', 'i:10'],
    'fields, then keys, then values, then indexes',
  );
});

t.test('paths print as upstream prints them in conflicts', async (t) => {
  t.equal(pathString(['f:spec', 'f:x']), '.spec.x');
  t.equal(pathString(['f:status', 'f:conditions', 'k:{"type":"Ready"}', 'f:status']), '.status.conditions[type="Ready"].status');
  t.equal(pathString(['f:metadata', 'f:finalizers', 'v:"a.orch.io/b"']), '.metadata.finalizers[="a.orch.io/b"]');
  t.equal(pathString(['f:ports', 'k:{"containerPort":80,"protocol":"TCP"}']), '.ports[containerPort=80,protocol="TCP"]');
});

t.test('the fields a configuration sets', async (t) => {
  const set = toFieldSet(
    { apiVersion: 'x/v1', metadata: { name: 'n', labels: { a: '1' } }, spec: { size: 1, tags: ['x'], atomic: ['y'], items: [{ name: 'a', value: 'v' }], empty: {} } },
    TYPE,
  );
  t.same(paths(set), [
    '.apiVersion',
    '.metadata.labels.a',
    '.metadata.name',
    '.spec.atomic',
    '.spec.empty',
    '.spec.items[name="a"]',
    '.spec.items[name="a"].name',
    '.spec.items[name="a"].value',
    '.spec.size',
    '.spec.tags[="x"]',
  ]);
  t.same(paths(toFieldSet({ spec: { size: null } }, TYPE)), ['.spec.size'], 'a null field is set (to nothing)');
  t.same(paths(toFieldSet({ spec: { tags: [] } }, TYPE)), [], 'an empty set names no item');
  t.throws(() => toFieldSet({ spec: { bogus: 1 } }, TYPE), /^\.spec\.bogus: field not declared in schema$/);
  t.throws(() => toFieldSet({ spec: { items: [{ value: 'v' }] } }, TYPE), /omits key field "name"/);
  t.throws(() => toFieldSet({ spec: { items: [{ name: 'a' }, { name: 'a' }] } }, TYPE), /^\.spec\.items: duplicate entries for key \[name="a"\]$/);
});

t.test('compare: leaves added, modified and removed; whole objects and items', async (t) => {
  const c = compare(
    { spec: { size: 1, tags: ['x', 'y'], items: [{ name: 'a', value: '1' }] } },
    { spec: { size: 2, tags: ['x', 'z'], items: [{ name: 'a', value: '1' }, { name: 'b' }] }, metadata: { labels: { l: 'v' } } },
    TYPE,
  );
  t.same(paths(c.modified), ['.spec.size']);
  t.same(paths(c.added), ['.metadata', '.metadata.labels', '.metadata.labels.l', '.spec.items[name="b"]', '.spec.items[name="b"].name', '.spec.tags[="z"]']);
  t.same(paths(c.removed), ['.spec.tags[="y"]']);
  const none = compare({ spec: { size: 1 } }, { spec: { size: 1 } }, TYPE);
  t.ok(none.added.empty && none.modified.empty && none.removed.empty, 'no change, nothing');
});

t.test('removing paths: items and entries go, an emptied map or list with them', async (t) => {
  const obj = { metadata: { labels: { a: '1' } }, spec: { size: 1, tags: ['x', 'y'], items: [{ name: 'a', value: '1' }] } };
  const out = removePaths(obj, FieldSet.of([['f:metadata', 'f:labels', 'f:a'], ['f:spec', 'f:tags', 'v:"x"'], ['f:spec', 'f:items', 'k:{"name":"a"}', 'f:value'], ['f:spec', 'f:size']]), TYPE);
  t.same(out, { metadata: {}, spec: { tags: ['y'], items: [{ name: 'a' }] } });
});

t.test('every write records an Update entry for its manager', async (t) => {
  const srv = await startTestServer(t);
  const u = srv.url;
  const created = await call(u, 'POST', `${SC}?fieldManager=alice`, sc('m1', { metadata: { name: 'm1', labels: { a: '1' } } }));
  t.equal(created.status, 201);
  const [entry] = created.body.metadata.managedFields;
  t.match(entry, { manager: 'alice', operation: 'Update', apiVersion: 'storage.orch.io/v1', fieldsType: 'FieldsV1' });
  t.match(entry.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  t.same(entry.fieldsV1, {
    'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } },
    'f:provisioner': {},
    'f:reclaimPolicy': {},
    'f:volumeBindingMode': {},
  }, 'what the create set, defaults included; server-set metadata stripped');
  t.equal(entry.subresource, undefined);

  // A PUT without managedFields keeps them; the change goes to the PUT's manager.
  const put = await call(u, 'PUT', `${SC}/m1?fieldManager=bob`, { ...sc('m1', { metadata: { name: 'm1', labels: { a: '2' } } }), allowVolumeExpansion: true });
  t.equal(put.status, 200);
  const mf = put.body.metadata.managedFields;
  t.same(mf.map((e: any) => e.manager), ['alice', 'bob']);
  t.same(mf[1].fieldsV1, { 'f:allowVolumeExpansion': {}, 'f:metadata': { 'f:labels': { 'f:a': {} } } });
  t.same(mf[0].fieldsV1['f:metadata'], { 'f:labels': {} }, 'the changed label left alice (she keeps the map itself)');

  // Default manager: the user agent's program name.
  const ua = await call(u, 'PATCH', `${SC}/m1`, { metadata: { labels: { b: '1' } } }, { 'content-type': 'application/merge-patch+json', 'user-agent': 'kubectl/v1.32.0 (linux/amd64) kubernetes/abc' });
  t.ok(ua.body.metadata.managedFields.some((e: any) => e.manager === 'kubectl' && e.operation === 'Update'), 'kubectl/... is recorded as kubectl');
  const none = await call(u, 'PATCH', `${SC}/m1`, { metadata: { labels: { c: '1' } } }, { 'content-type': 'application/merge-patch+json', 'user-agent': '' });
  t.ok(none.body.metadata.managedFields.some((e: any) => e.manager === 'unknown'), 'no user agent: unknown');

  // A no-op write changes nothing, managedFields included.
  const same = await call(u, 'PATCH', `${SC}/m1?fieldManager=carol`, { metadata: { labels: { c: '1' } } }, { 'content-type': 'application/merge-patch+json' });
  t.equal(same.body.metadata.resourceVersion, none.body.metadata.resourceVersion, 'no new resourceVersion');
  t.notOk(same.body.metadata.managedFields.some((e: any) => e.manager === 'carol'), 'no entry for a manager that changed nothing');

  // Sent managedFields replace the stored ones; [{}] clears them; [] keeps them.
  const kept = await call(u, 'PATCH', `${SC}/m1?fieldManager=dave`, { metadata: { managedFields: [] }, mountOptions: ['ro'] }, { 'content-type': 'application/merge-patch+json' });
  t.ok(kept.body.metadata.managedFields.length >= 4, 'an empty list keeps them');
  const reset = await call(u, 'PATCH', `${SC}/m1?fieldManager=erin`, { metadata: { managedFields: [{}] } }, { 'content-type': 'application/merge-patch+json' });
  t.equal(reset.status, 200);
  t.equal(reset.body.metadata.managedFields, undefined, '[{}] clears them');
  const own = [{ manager: 'zed', operation: 'Apply', apiVersion: 'storage.orch.io/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:provisioner': {} } }];
  const set = await call(u, 'PATCH', `${SC}/m1?fieldManager=erin`, { metadata: { managedFields: own } }, { 'content-type': 'application/merge-patch+json' });
  t.same(set.body.metadata.managedFields, own, 'a valid list replaces them');
  const bad = await call(u, 'PATCH', `${SC}/m1?fieldManager=erin`, { metadata: { managedFields: [{ manager: 'x', operation: 'Frob', apiVersion: 'v1', fieldsType: 'FieldsV1' }] } }, { 'content-type': 'application/merge-patch+json' });
  t.same(bad.body.metadata.managedFields, own, 'an invalid list is ignored');
});

t.test('/status writes record entries with subresource status and status fields only', async (t) => {
  const srv = await startTestServer(t);
  const u = srv.url;
  const w = { apiVersion: 'test.orch.io/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 1 } };
  const created = await call(u, 'POST', `${widgets('default')}?fieldManager=maker`, { ...w, status: { phase: 'Ignored' } });
  t.equal(created.status, 201);
  t.same(created.body.metadata.managedFields[0].fieldsV1, { 'f:spec': { '.': {}, 'f:color': {}, 'f:size': {} } }, 'status dropped on create is not owned');
  const st = await call(u, 'PUT', `${widgets('default')}/w1/status?fieldManager=statuser`, { ...created.body, spec: { size: 9 }, status: { phase: 'Ready' } });
  t.equal(st.status, 200);
  const entry = st.body.metadata.managedFields.find((e: any) => e.manager === 'statuser');
  t.match(entry, { operation: 'Update', subresource: 'status', fieldsV1: { 'f:status': { '.': {}, 'f:phase': {} } } });
  t.equal(entry.fieldsV1['f:spec'], undefined);
});

t.test('more than 10 Update managers: the oldest merge into ancient-changes', async (t) => {
  const srv = await startTestServer(t);
  const u = srv.url;
  t.equal((await call(u, 'POST', `${SC}?fieldManager=m0`, sc('cap'))).status, 201);
  let last: any;
  for (let i = 1; i <= MAX_UPDATE_MANAGERS + 2; i++) {
    last = await call(u, 'PATCH', `${SC}/cap?fieldManager=m${i}`, { metadata: { labels: { [`l${i}`]: 'v' } } }, { 'content-type': 'application/merge-patch+json' });
    t.equal(last.status, 200);
  }
  const mf = last.body.metadata.managedFields;
  t.equal(mf.length, MAX_UPDATE_MANAGERS, 'at most 10 Update entries');
  t.ok(mf.some((e: any) => e.manager === 'ancient-changes'), 'an ancient-changes entry');
  t.ok(mf.some((e: any) => e.manager === `m${MAX_UPDATE_MANAGERS + 2}`), 'the newest manager is kept');
});

t.test('fieldManager: fewer than 128 bytes, printable; on POST, PUT and PATCH', async (t) => {
  const srv = await startTestServer(t);
  const u = srv.url;
  const long = 'm'.repeat(128);
  const post = await call(u, 'POST', `${SC}?fieldManager=${long}`, sc('fm1'));
  t.equal(post.status, 422);
  t.equal(post.body.message, 'CreateOptions.meta.orch.io "" is invalid: fieldManager: Too long: may not be more than 127 bytes');
  t.same(post.body.details.causes, [{ reason: 'FieldValueTooLong', message: 'Too long: may not be more than 127 bytes', field: 'fieldManager' }]);
  t.equal((await call(u, 'GET', `${SC}/fm1`)).status, 404, 'nothing created');
  const ok = await call(u, 'POST', `${SC}?fieldManager=${'m'.repeat(127)}`, sc('fm1'));
  t.equal(ok.status, 201, '127 is fine');
  t.equal(ok.body.metadata.managedFields[0].manager, 'm'.repeat(127));
  const put = await call(u, 'PUT', `${SC}/fm1?fieldManager=a%09b`, ok.body);
  t.equal(put.status, 422);
  t.equal(put.body.message, 'UpdateOptions.meta.orch.io "" is invalid: fieldManager: Invalid value: "a\\tb": invalid character U+0009 (at position 1)');
  const patch = await call(u, 'PATCH', `${SC}/fm1?fieldManager=${encodeURIComponent('é\u0000')}`, {}, { 'content-type': 'application/merge-patch+json' });
  t.equal(patch.status, 422);
  t.match(patch.body.message, /^PatchOptions\.meta\.orch\.io "" is invalid: fieldManager: Invalid value: .*invalid character U\+0000 \(at position 2\)$/, 'positions count bytes');
  const unicode = await call(u, 'PATCH', `${SC}/fm1?fieldManager=${encodeURIComponent('gestionnaire-é')}`, {}, { 'content-type': 'application/merge-patch+json' });
  t.equal(unicode.status, 200, 'printable non-ASCII is fine');
});
