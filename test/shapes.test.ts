// The per-kind JSON Schemas the shape cases (suites/000-control-plane/2-field-shapes.ts) check with:
// translated from the reference's field types, split into what the spec states and what it leaves
// "not shown", lenient where the spec gives targets freedom, and worded as path, expected, actual.
import t from 'tap';
import { CaseFailure } from '../suites/verify.js';
import { KINDS } from '../suites/000-control-plane/kinds.js';
import { KIND_SHAPES, kindShape, validatorsOf } from '../suites/shapes/kinds.js';
import { objectSchema, toJsonSchema } from '../suites/shapes/json-schema.js';
import { expectShape, readablePath, violations } from '../suites/shapes/validate.js';
import { t as types, type Schema } from '../reference/apiserver/schema.js';

const storageClass = () => ({
  apiVersion: 'storage.orch.io/v1',
  kind: 'StorageClass',
  metadata: { name: 'fast', uid: 'u', resourceVersion: '7', generation: 1, labels: { 'conformance.orch.io/run': 'r1' } },
  provisioner: 'example.com/p',
  parameters: { type: 'ssd' },
  reclaimPolicy: 'Delete',
  allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: ['a'] }] }],
});
const list = (...items: unknown[]) => ({ apiVersion: 'storage.orch.io/v1', kind: 'StorageClassList', metadata: { resourceVersion: '9' }, items });

const SC = kindShape('StorageClass');
const spec = validatorsOf(SC, 'spec');
const upstream = validatorsOf(SC, 'upstream');

/** The schema node at a not-shown path (`a.b[]`, `c{}`), or undefined when the path leads nowhere. */
function at(s: Schema | undefined, path: string): Schema | undefined {
  for (const step of path.match(/[^.[\]{}]+|\[\]|\{\}/g) ?? []) {
    if (!s) return undefined;
    if (step === '[]') s = s.type === 'array' ? s.items : undefined;
    else if (step === '{}') s = s.type === 'map' ? s.values : undefined;
    else s = s.type === 'object' ? s.properties[step] : undefined;
  }
  return s;
}

t.test('every kind the suites create has its field types, and every not-shown path names a field the reference declares', async (t) => {
  t.same(KINDS.filter((k) => !KIND_SHAPES.some((s) => s.kind === k.kind)).map((k) => k.kind), [], 'kinds without field types');
  const dangling = KIND_SHAPES.flatMap((k) => Object.keys(k.notShown).filter((p) => !at(objectSchema(k.types), p)).map((p) => `${k.kind} ${p}`));
  t.same(dangling, [], 'a mistyped path would silently check a not-shown type at MUST level');
});

t.test('what a legal target may do passes both parts', async (t) => {
  const legal: Array<[string, unknown]> = [
    ['the object as is', storageClass()],
    ['extra fields anywhere', { ...storageClass(), serverExtra: { a: 1 }, metadata: { ...storageClass().metadata, extra: true }, allowedTopologies: [{ matchLabelExpressions: [{ key: 'z', values: ['a'], more: 1 }] }] }],
    ['optional fields left out', { kind: 'StorageClass', provisioner: 'p' }],
    ['null for optional fields, as Go writes a nil pointer, slice or map', { ...storageClass(), parameters: null, mountOptions: null, metadata: { name: 'x', labels: null, deletionTimestamp: null } }],
    ['an opaque resourceVersion', { ...storageClass(), metadata: { resourceVersion: 'opaque/Zm9v==' } }],
    ['an integer written with a zero fraction (JSON cannot tell 1.0 from 1)', JSON.parse('{"provisioner":"p","metadata":{"generation":1.0}}')],
  ];
  for (const [what, o] of legal) {
    t.same(violations(spec.object, o), [], `spec part: ${what}`);
    t.same(violations(upstream.object, o), [], `upstream part: ${what}`);
  }
  t.same(violations(spec.list, list(storageClass(), storageClass())), [], 'a list (spec part)');
  t.same(violations(upstream.list, list()), [], 'an empty list (upstream part)');
});

t.test('the spec part: each type the spec states, and its required fields', async (t) => {
  t.same(violations(spec.object, { ...storageClass(), provisioner: 42 }), [{ path: 'provisioner', expected: 'string', actual: 'integer 42' }]);
  t.same(violations(spec.object, { ...storageClass(), provisioner: undefined }), [{ path: 'provisioner', expected: 'present (required)', actual: 'absent' }]);
  t.same(violations(spec.object, { ...storageClass(), provisioner: null }), [{ path: 'provisioner', expected: 'string', actual: 'null' }], 'null is no value for a required field');
  t.same(violations(spec.list, { ...list(), items: undefined }), [{ path: 'items', expected: 'present (required)', actual: 'absent' }], '§2.1: items*');
  t.same(violations(spec.list, list(storageClass(), { ...storageClass(), allowVolumeExpansion: 'yes' })),
    [{ path: 'items[1].allowVolumeExpansion', expected: 'boolean', actual: 'string "yes"' }]);
  const pg = validatorsOf(kindShape('PodGroup'), 'spec');
  t.same(violations(pg.object, { spec: { schedulingPolicy: { gang: { minCount: 2.5 } } } }),
    [{ path: 'spec.schedulingPolicy.gang.minCount', expected: 'integer', actual: 'number 2.5' }], 'an integer has no fraction');
  // Not shown: the spec part checks only the outer type it names.
  t.same(violations(spec.object, { ...storageClass(), metadata: { generation: '1' }, parameters: { n: 1 } }), [], 'ObjectMeta fields and parameter values are not the spec\'s');
  t.same(violations(spec.object, { ...storageClass(), metadata: 'x' }), [{ path: 'metadata', expected: 'object', actual: 'string "x"' }]);
});

t.test('the upstream part: exactly what the spec leaves not shown', async (t) => {
  t.same(violations(upstream.object, { ...storageClass(), provisioner: 42, allowVolumeExpansion: 'x' }), [], 'spec-stated types are the spec part\'s alone');
  t.same(violations(upstream.object, { ...storageClass(), metadata: { generation: '1', labels: { 'conformance.orch.io/run': 1 } } }), [
    { path: 'metadata.generation', expected: 'integer', actual: 'string "1"' },
    { path: 'metadata.labels["conformance.orch.io/run"]', expected: 'string', actual: 'integer 1' },
  ]);
  t.same(violations(upstream.list, { ...list(storageClass()), metadata: { remainingItemCount: '3' } }), [{ path: 'metadata.remainingItemCount', expected: 'integer', actual: 'string "3"' }], 'ListMeta');
  const rq = kindShape('ResourceQuota');
  const quota = { spec: { hard: { pods: 3 } }, status: { used: { pods: '1' } } };
  t.same(violations(validatorsOf(rq, 'spec').object, quota), [], 'the spec says "quantity", not its JSON form');
  t.same(violations(validatorsOf(rq, 'upstream').object, quota), [{ path: 'spec.hard.pods', expected: 'string', actual: 'integer 3' }], 'upstream writes quantities as strings');
  const ev = kindShape('Event');
  t.same(violations(validatorsOf(ev, 'upstream').object, { eventTime: 1735689600, deprecatedFirstTimestamp: null }), [{ path: 'eventTime', expected: 'string', actual: 'integer 1735689600' }], 'MicroTime is a string; a zero Time is null');
  t.same(violations(validatorsOf(ev, 'spec').object, { series: { count: 2 } }), [
    { path: 'eventTime', expected: 'present (required)', actual: 'absent' },
    { path: 'series.lastObservedTime', expected: 'present (required)', actual: 'absent' },
  ], 'the spec\'s * fields, MicroTime or not');
});

t.test('a kind whose fields the spec does not show: their types and requiredness are upstream\'s', async (t) => {
  const rb = kindShape('RoleBinding');
  const noRoleRef = { kind: 'RoleBinding', metadata: { name: 'b' }, subjects: [{ kind: 'User', name: 7 }] };
  t.same(violations(validatorsOf(rb, 'spec').object, noRoleRef), [], 'nothing of RoleBinding\'s own is the spec\'s');
  t.same(violations(validatorsOf(rb, 'upstream').object, noRoleRef), [
    { path: 'roleRef', expected: 'present (required)', actual: 'absent' },
    { path: 'subjects[0].name', expected: 'string', actual: 'integer 7' },
  ]);
  t.same(violations(validatorsOf(rb, 'spec').object, { kind: 5 }), [{ path: 'kind', expected: 'string', actual: 'integer 5' }], '§2.1 still holds');
});

t.test('one failure names every violation: path, expected type, actual type and value', async (t) => {
  try {
    expectShape(spec.object, { ...storageClass(), provisioner: 42, mountOptions: 'ro' }, 'the StorageClass read back');
    t.fail('no failure');
  } catch (e) {
    t.type(e, CaseFailure);
    const f = e as CaseFailure;
    t.match(f.message, 'the StorageClass read back: 2 fields of the wrong type or missing: provisioner, mountOptions');
    t.equal(f.expected, 'provisioner: string; mountOptions: array');
    t.equal(f.actual, 'provisioner: integer 42; mountOptions: string "ro"');
  }
  try {
    expectShape(spec.object, { ...storageClass(), reclaimPolicy: false }, 'the created StorageClass');
  } catch (e) {
    const f = e as CaseFailure;
    t.same([f.message, f.expected, f.actual], ['the created StorageClass: reclaimPolicy', 'string', 'boolean false']);
  }
  t.doesNotThrow(() => expectShape(spec.object, storageClass(), 'a good one'));
});

t.test('paths read as in the spec: dots, list indexes, odd keys quoted', async (t) => {
  const o = { items: [{ metadata: { labels: { 'a.b/c': 'x' } } }], spec: { hard: { '0': 'x' } } };
  t.equal(readablePath(o, '/items/0/metadata/labels/a.b~1c'), 'items[0].metadata.labels["a.b/c"]');
  t.equal(readablePath(o, '/spec/hard/0'), 'spec.hard["0"]', 'a map key that looks like an index stays a key');
  t.equal(readablePath(o, ''), '(the whole object)');
});

t.test('the translation: maps, arrays, any, nullable and required', async (t) => {
  const s = types.object({ a: types.map(types.integer()), b: types.array(types.string()), c: types.any(), d: types.object({ e: types.boolean() }, undefined, ['e']) }, undefined, ['d']);
  t.same(toJsonSchema(s, {}, 'spec'), {
    type: 'object',
    properties: {
      a: { type: 'object', additionalProperties: { type: 'integer' }, nullable: true },
      b: { type: 'array', items: { type: 'string' }, nullable: true },
      c: {},
      d: { type: 'object', properties: { e: { type: 'boolean' } }, required: ['e'] },
    },
    required: ['d'],
  });
  // d's presence is the spec part's to check (so null there is too): the upstream part lets it be.
  t.same(toJsonSchema(s, { d: { spec: 'object' } }, 'upstream'), { properties: { d: { type: 'object', properties: { e: { type: 'boolean' } }, required: ['e'], nullable: true } } }, 'the upstream part reaches its places untyped');
  t.same(toJsonSchema(s, { d: { spec: 'object' } }, 'spec').properties, { ...(toJsonSchema(s, {}, 'spec').properties as object), d: { type: 'object' } }, 'the spec part stops at them');
});
