// A create records its fields in one walk (managed-fields.ts addedFieldsV1) instead of through the
// path sets every other write uses: the two must agree on every object. Checked on every kind's
// sample, and on random objects of every kind's type (fast-check), against the general route.
import t from 'tap';
import fc from 'fast-check';
import { addedFieldsV1, compare, filterComparison, ownableFilter } from '../../reference/apiserver/managed-fields.js';
import { typeOf } from '../../reference/apiserver/patch-schema.js';
import { REFERENCE_RESOURCES } from '../../reference/resources/index.js';
import { fakeContext, sampleOf } from './samples.js';

function general(obj: Record<string, unknown>, type: ReturnType<typeof typeOf>, keep: ReturnType<typeof ownableFilter>): Record<string, unknown> | undefined {
  const added = filterComparison(compare({}, obj, type), keep).added;
  return added.empty ? undefined : added.toFieldsV1();
}

const kinds = REFERENCE_RESOURCES.map((s) => ({ s, sample: sampleOf(s) })).filter((k) => k.sample);

t.test('every kind: the sample object records the same fields both ways', async (t) => {
  for (const { s, sample } of kinds) {
    const body = { apiVersion: sample!.apiVersion, kind: s.kind, metadata: { name: 'x', labels: { a: 'b' }, finalizers: ['f.orch.io/x'] }, ...sample!.valid(fakeContext('default')) };
    for (const hasStatus of [false, true]) {
      const keep = ownableFilter(hasStatus, undefined);
      t.same(addedFieldsV1(body, typeOf(s), keep), general(body, typeOf(s), keep), `${s.kind} (hasStatus ${hasStatus})`);
    }
  }
});

t.test('random objects of every kind record the same fields both ways', async () => {
  // JSON values where the schema has fields, and stray fields it does not declare.
  const value = fc.jsonValue({ maxDepth: 3 });
  const keyed = fc.array(fc.record({ name: fc.constantFrom('a', 'b', 'c'), value }, { requiredKeys: [] }), { maxLength: 4 });
  await fc.assert(
    fc.property(fc.constantFrom(...kinds), value, keyed, fc.dictionary(fc.string({ maxLength: 4 }), value, { maxKeys: 3 }), fc.boolean(), ({ s, sample }, anything, list, extra, hasStatus) => {
      const base = { apiVersion: sample!.apiVersion, kind: s.kind, metadata: { name: 'x', uid: 'u', labels: extra }, ...sample!.valid(fakeContext('default')) } as Record<string, unknown>;
      const spec = typeof base['spec'] === 'object' && base['spec'] ? (base['spec'] as Record<string, unknown>) : {};
      const body = { ...base, ...extra, spec: { ...spec, containers: list, finalizers: list.map((i) => i.name), odd: anything }, status: anything };
      const keep = ownableFilter(hasStatus, undefined);
      const a = JSON.stringify(addedFieldsV1(body, typeOf(s), keep));
      const b = JSON.stringify(general(body, typeOf(s), keep));
      if (a !== b) throw new Error(`${s.kind}: ${a} != ${b}`);
    }),
    { numRuns: 400, seed: 1414 },
  );
});
