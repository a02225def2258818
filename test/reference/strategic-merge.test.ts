// Strategic merge patch against upstream semantics (k8s.io/apimachinery strategicpatch, server
// options MergeParallelList and IgnoreUnmatchedNulls), plus the PATCH endpoint for every kind.
import t from 'tap';
import { rootType } from '../../reference/apiserver/patch-schema.js';
import { t as types } from '../../reference/apiserver/schema.js';
import { StrategicMergeError, goFmt, strategicMergePatch } from '../../reference/apiserver/strategic-merge.js';
import { typeOf } from '../../reference/apiserver/patch-schema.js';
import { resourceQuotaStrategy } from '../../reference/resources/resourcequota.js';
import { podGroupStrategy } from '../../reference/resources/podgroup.js';
import { podStrategy } from '../../reference/resources/pod.js';
import { nodeStrategy } from '../../reference/resources/node.js';
import { SC, call, sc, startTestServer } from './helpers.js';

const cond = types.object({ type: types.string(), status: types.string(), reason: types.string() });
const TYPE = rootType(
  {
    spec: types.object({
      replaced: types.array(types.string()),
      set: types.array(types.string()),
      items: types.array(types.object({ name: types.string(), value: types.string(), extra: types.string(), tags: types.array(types.string()) })),
      retained: types.array(types.object({ name: types.string(), a: types.string(), b: types.string() })),
      whole: types.object({ a: types.string(), b: types.string() }),
      labels: types.map(types.string()),
      nested: types.array(types.array(types.string())),
    }),
    status: types.object({ conditions: types.array(cond) }),
  },
  {
    'spec.set': { strategy: 'merge' },
    'spec.items': { strategy: 'merge', mergeKey: 'name' },
    'spec.items[].tags': { strategy: 'merge' },
    'spec.retained': { strategy: 'merge,retainKeys', mergeKey: 'name' },
    'spec.whole': { strategy: 'replace' },
    'spec.nested': { strategy: 'merge' },
    'status.conditions': { strategy: 'merge', mergeKey: 'type' },
  },
);

const smp = (original: Record<string, unknown>, patch: unknown) => strategicMergePatch(original, patch, TYPE);
interface T {
  fail(m: string): void;
  ok(v: unknown, m: string): void;
  equal(a: unknown, b: unknown, m: string): void;
  match(a: unknown, b: unknown, m: string): void;
}
const fails = (t: T, fn: () => unknown, code: number, message: RegExp | string, what: string) => {
  try {
    fn();
    t.fail(`${what}: no error`);
  } catch (err) {
    t.ok(err instanceof StrategicMergeError, `${what}: a StrategicMergeError`);
    t.equal((err as StrategicMergeError).code, code, `${what}: code ${code}`);
    t.match((err as Error).message, message, `${what}: message`);
  }
};

t.test('objects merge key by key; null deletes; a null for an absent key is dropped', async (t) => {
  const out = smp({ spec: { whole: { a: '1' }, labels: { x: '1', y: '2' } } }, { spec: { labels: { x: null, z: '3' }, missing: null } });
  t.same(out, { spec: { whole: { a: '1' }, labels: { y: '2', z: '3' } } });
  t.same(smp({ a: 1 }, { b: { c: null, d: 1 } }), { a: 1, b: { d: 1 } }, 'nulls inside a new object are dropped too');
  const original = { spec: { labels: { x: '1' } } };
  smp(original, { spec: { labels: { x: '2' } } });
  t.same(original, { spec: { labels: { x: '1' } } }, 'the original is not modified');
});

t.test('a list without a strategy is replaced; a struct with strategy replace is replaced', async (t) => {
  t.same(smp({ spec: { replaced: ['a', 'b'] } }, { spec: { replaced: ['c'] } }), { spec: { replaced: ['c'] } });
  t.same(smp({ spec: { whole: { a: '1', b: '2' } } }, { spec: { whole: { a: '3' } } }), { spec: { whole: { a: '3' } } });
  t.same(smp({ spec: { undeclared: [1, 2] } }, { spec: { undeclared: [3] } }), { spec: { undeclared: [3] } }, 'fields the type does not know: lists replace');
});

t.test('primitive lists with strategy merge are unions (upstream order)', async (t) => {
  t.same(smp({ spec: { set: ['1', '2'] } }, { spec: { set: ['2', '3'] } }), { spec: { set: ['1', '2', '3'] } });
  t.same(smp({ spec: { set: ['a', 'b'] } }, { spec: { set: ['c'] } }), { spec: { set: ['c', 'a', 'b'] } }, 'new items first, as upstream orders them without $setElementOrder');
  t.same(smp({}, { spec: { set: ['a'] } }), { spec: { set: ['a'] } });
});

t.test('keyed lists merge by their merge key', async (t) => {
  const out = smp(
    { status: { conditions: [{ type: 'A', status: 'True' }, { type: 'B', status: 'True', reason: 'Old' }] } },
    { status: { conditions: [{ type: 'B', status: 'False' }, { type: 'C', status: 'True' }] } },
  );
  t.same(out, { status: { conditions: [{ type: 'A', status: 'True' }, { type: 'B', status: 'False', reason: 'Old' }, { type: 'C', status: 'True' }] } });
  t.same(
    smp({ spec: { items: [{ name: 'a', tags: ['x'] }] } }, { spec: { items: [{ name: 'a', tags: ['y'] }] } }),
    { spec: { items: [{ name: 'a', tags: ['y', 'x'] }] } },
    'strategies apply inside list items',
  );
  t.same(
    smp({ spec: { items: [{ name: 'a', value: '1' }] } }, { spec: { items: [{ name: 'a', value: null }] } }),
    { spec: { items: [{ name: 'a' }] } },
    'null deletes inside a merged item',
  );
  fails(t, () => smp({ spec: { items: [{ name: 'a' }] } }, { spec: { items: [{ value: '1' }] } }), 400, 'map: map[value:1] does not contain declared merge key: name', 'an item without its merge key');
});

t.test('$patch directives', async (t) => {
  const conds = { status: { conditions: [{ type: 'A' }, { type: 'B' }, { type: 'C' }] } };
  t.same(smp(conds, { status: { conditions: [{ type: 'B', $patch: 'delete' }] } }), { status: { conditions: [{ type: 'A' }, { type: 'C' }] } }, 'delete removes the keyed item');
  t.same(smp(conds, { status: { conditions: [{ $patch: 'replace' }, { type: 'X' }] } }), { status: { conditions: [{ type: 'X' }] } }, 'replace in a list');
  t.same(smp({ spec: { labels: { a: '1', b: '2' } } }, { spec: { labels: { $patch: 'replace', c: '3' } } }), { spec: { labels: { c: '3' } } }, 'replace on a map');
  t.same(smp({ spec: { labels: { a: '1' } } }, { spec: { labels: { $patch: 'delete' } } }), { spec: { labels: {} } }, 'delete on a map empties it');
  t.same(smp({ spec: { labels: { a: '1' } } }, { spec: { $patch: 'replace', labels: { b: '2' } } }), { spec: { labels: { b: '2' } } }, 'replace one level up');
  fails(t, () => smp({ spec: { labels: { a: '1' } } }, { spec: { labels: { $patch: 'frob' } } }), 400, 'unknown patch type: frob in map: map[$patch:frob]', 'an unknown $patch on a map');
  fails(t, () => smp(conds, { status: { conditions: [{ type: 'A', $patch: 'frob' }] } }), 400, /^unknown patch type: frob in map:/, 'an unknown $patch in a list');
  fails(t, () => smp(conds, { status: { conditions: [{ $patch: 'merge' }] } }), 400, 'merging lists cannot yet be specified in the patch', '$patch merge in a list');
  fails(t, () => smp(conds, { status: { conditions: [{ $patch: 'delete' }] } }), 400, /does not contain declared merge key: type/, 'delete without the merge key');
  t.same(smp({}, { spec: { labels: { $patch: 'delete' } } }), { spec: {} }, 'a directive-only value under an absent key is dropped (upstream removeDirectives)');
});

t.test('$retainKeys', async (t) => {
  t.same(
    smp({ spec: { retained: [{ name: 'x', a: '1', b: '2' }] } }, { spec: { retained: [{ name: 'x', a: '3', $retainKeys: ['name', 'a'] }] } }),
    { spec: { retained: [{ name: 'x', a: '3' }] } },
    'keys not retained are cleared',
  );
  t.same(smp({ spec: { whole: { a: '1', b: '2' }, labels: { q: 'r' } } }, { spec: { $retainKeys: ['labels'] } }), { spec: { labels: { q: 'r' } } });
  fails(t, () => smp({ spec: { labels: {} } }, { spec: { $retainKeys: ['labels'], whole: { a: '1' } } }), 400, 'invalid patch format of retainKeys', 'a patched key outside $retainKeys');
  fails(t, () => smp({ spec: {} }, { spec: { $retainKeys: 'labels' } }), 400, 'invalid patch format of retainKeys', '$retainKeys not a list');
});

t.test('$deleteFromPrimitiveList', async (t) => {
  t.same(smp({ spec: { set: ['a', 'b', 'c'] } }, { spec: { '$deleteFromPrimitiveList/set': ['b', 'z'] } }), { spec: { set: ['a', 'c'] } });
  t.same(
    smp({ spec: { set: ['a', 'b'] } }, { spec: { '$deleteFromPrimitiveList/set': ['a'], set: ['c'] } }),
    { spec: { set: ['c', 'b'] } },
    'with additions in the same patch',
  );
  t.same(smp({ spec: { replaced: ['a', 'b'] } }, { spec: { '$deleteFromPrimitiveList/replaced': ['a'] } }), { spec: { replaced: ['b'] } }, 'whatever the field strategy');
  t.same(smp({ spec: {} }, { spec: { '$deleteFromPrimitiveList/set': ['a'] } }), { spec: {} }, 'on an absent list: nothing');
  fails(t, () => smp({ spec: {} }, { spec: { $deleteFromPrimitiveList: ['a'] } }), 400, 'invalid patch format of primitive list', 'without /<field>');
});

t.test('$setElementOrder', async (t) => {
  t.same(smp({ spec: { set: ['a', 'b', 'c'] } }, { spec: { '$setElementOrder/set': ['c', 'a', 'b'] } }), { spec: { set: ['c', 'a', 'b'] } }, 'reorders a primitive list');
  t.same(
    smp({ status: { conditions: [{ type: 'A' }, { type: 'B' }] } }, { status: { '$setElementOrder/conditions': [{ type: 'C' }, { type: 'B' }, { type: 'A' }], conditions: [{ type: 'C', status: 'True' }] } }),
    { status: { conditions: [{ type: 'C', status: 'True' }, { type: 'B' }, { type: 'A' }] } },
    'orders a keyed list with a patch list',
  );
  t.same(
    smp({ status: { conditions: [{ type: 'A' }, { type: 'B' }, { type: 'S' }] } }, { status: { '$setElementOrder/conditions': [{ type: 'B' }, { type: 'A' }] } }),
    { status: { conditions: [{ type: 'B' }, { type: 'A' }, { type: 'S' }] } },
    'items only the server has keep their place after the ordered ones',
  );
  fails(
    t,
    () => smp({ spec: { set: ['a'] } }, { spec: { '$setElementOrder/set': ['x'], set: ['y'] } }),
    400,
    /^the order in patch list:/,
    'a patch list item missing from the order',
  );
  fails(t, () => smp({ spec: {} }, { spec: { $setElementOrderX: [] } }), 400, 'invalid patch format of setElementOrder list', 'a malformed directive key');
});

t.test('type changes replace; lists of lists are refused with 422; not an object is 400', async (t) => {
  t.same(smp({ spec: { labels: { a: '1' } } }, { spec: { labels: 'x' } }), { spec: { labels: 'x' } });
  fails(t, () => smp({ spec: { nested: [['a']] } }, { spec: { nested: [['b']] } }), 422, 'lists of lists are not supported', 'a list of lists');
  fails(t, () => strategicMergePatch({}, [1], TYPE), 400, 'invalid JSON document', 'a patch that is not an object');
  fails(t, () => smp({ spec: { set: ['a'] } }, { spec: { set: [1] } }), 400, /^list element types are not identical/, 'mixed element types');
});

t.test('the kinds\' strategies from the spec', async (t) => {
  const rq = typeOf(resourceQuotaStrategy);
  const quota = { spec: { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high', 'low'] }] } } };
  t.same(
    strategicMergePatch(quota, { spec: { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['mid'] }] } } }, rq),
    { spec: { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['mid'] }] } } },
    'ResourceQuota scope selector values are replaced (§2.4)',
  );
  const pg = typeOf(podGroupStrategy);
  t.same(
    strategicMergePatch({ status: { resourceClaimStatuses: [{ name: 'a', resourceClaimName: 'x' }] } }, { status: { resourceClaimStatuses: [{ name: 'b', resourceClaimName: 'y' }] } }, pg),
    { status: { resourceClaimStatuses: [{ name: 'b', resourceClaimName: 'y' }, { name: 'a', resourceClaimName: 'x' }] } },
    'PodGroup claim statuses merge on name (§2.6); new items first, as upstream',
  );
  t.same(
    strategicMergePatch({ status: { resourceClaimStatuses: [{ name: 'a', resourceClaimName: 'x' }] } }, { status: { resourceClaimStatuses: [{ name: 'a', $retainKeys: ['name'] }] } }, pg),
    { status: { resourceClaimStatuses: [{ name: 'a' }] } },
    '$retainKeys inside a claim status',
  );
  t.same(
    strategicMergePatch({ metadata: { finalizers: ['a'], ownerReferences: [{ uid: '1', name: 'x' }] } }, { metadata: { finalizers: ['b'], ownerReferences: [{ uid: '2', name: 'y' }] } }, pg),
    { metadata: { finalizers: ['b', 'a'], ownerReferences: [{ uid: '2', name: 'y' }, { uid: '1', name: 'x' }] } },
    'ObjectMeta: finalizers merge, ownerReferences merge on uid',
  );
});

t.test('the agent kinds carry upstream core/v1 strategies', async (t) => {
  const pod = typeOf(podStrategy);
  t.same(
    strategicMergePatch(
      { spec: { containers: [{ name: 'a', image: 'x', env: [{ name: 'E1', value: '1' }] }, { name: 'b', image: 'y' }] } },
      { spec: { containers: [{ name: 'a', env: [{ name: 'E2', value: '2' }] }] } },
      pod,
    ),
    { spec: { containers: [{ name: 'a', image: 'x', env: [{ name: 'E2', value: '2' }, { name: 'E1', value: '1' }] }, { name: 'b', image: 'y' }] } },
    'pod containers merge on name, env on name',
  );
  t.same(
    strategicMergePatch({ spec: { tolerations: [{ key: 'a' }] } }, { spec: { tolerations: [{ key: 'b' }] } }, pod),
    { spec: { tolerations: [{ key: 'b' }] } },
    'tolerations have no strategy: replaced',
  );
  t.same(
    strategicMergePatch({ status: { conditions: [{ type: 'Ready', status: 'False' }] } }, { status: { conditions: [{ type: 'MemoryPressure', status: 'False' }] } }, typeOf(nodeStrategy)),
    { status: { conditions: [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: 'False' }] } },
    'node conditions merge on type',
  );
});

t.test('goFmt prints values as Go %v', async (t) => {
  t.equal(goFmt({ b: [1, 'x'], a: null, c: { d: true } }), 'map[a:<nil> b:[1 x] c:map[d:true]]');
  t.equal(goFmt(1000000), '1e+06');
  t.equal(goFmt(123456), '123456');
  t.equal(goFmt(0.5), '0.5');
});

t.test('PATCH with application/strategic-merge-patch+json', async (t) => {
  const srv = await startTestServer(t);
  const u = srv.url;
  const SMP = { 'content-type': 'application/strategic-merge-patch+json' };
  t.equal((await call(u, 'POST', SC, sc('s1', { metadata: { name: 's1', labels: { a: '1' }, finalizers: ['x.orch.io/a'] }, mountOptions: ['ro'] }))).status, 201);
  const r = await call(u, 'PATCH', `${SC}/s1`, { metadata: { labels: { b: '2' }, finalizers: ['x.orch.io/b'] }, mountOptions: ['rw'] }, SMP);
  t.equal(r.status, 200);
  t.same(r.body.metadata.labels, { a: '1', b: '2' });
  t.same(r.body.metadata.finalizers, ['x.orch.io/b', 'x.orch.io/a'], 'finalizers merge');
  t.same(r.body.mountOptions, ['rw'], 'a list without a strategy is replaced');
  const bad = await call(u, 'PATCH', `${SC}/s1`, { metadata: { labels: { $patch: 'frob' } } }, SMP);
  t.equal(bad.status, 400);
  t.equal(bad.body.reason, 'BadRequest');
  const lol = await call(u, 'PATCH', `${SC}/s1`, { mountOptions: [['a']] }, SMP);
  t.equal(lol.status, 422, 'a list of lists where the object has none: replaced, then refused by the schema');
  const notObject = await call(u, 'PATCH', `${SC}/s1`, '[1]', SMP);
  t.equal(notObject.status, 400);
  t.equal((await call(u, 'PATCH', `${SC}/missing`, {}, SMP)).status, 404, 'strategic merge does not create');
  const cleanup = await call(u, 'PATCH', `${SC}/s1`, { metadata: { '$deleteFromPrimitiveList/finalizers': ['x.orch.io/a', 'x.orch.io/b'] } }, SMP);
  t.equal(cleanup.status, 200);
  t.equal((cleanup.body.metadata.finalizers ?? []).length, 0, 'emptied finalizers');
});
