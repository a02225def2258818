// Spec 000 §2: the field types of every kind, checked generically on every object a target returns
// for it (the create's answer, a read, each list item, a watch event's object) with the JSON Schema of
// the kind (suites/shapes/). Per kind, two cases: the types §2 states (MUST), and the types it leaves
// "not shown" as upstream serves them (SHOULD: ObjectMeta, ListMeta, Condition, quantities, ...).
import { defineCase, type Case, type CaseContext } from '../case.js';
import { eventsFor } from '../watch.js';
import { expectObject, expectTrue, fail, show, SUCCESS } from '../verify.js';
import type { Part } from '../shapes/json-schema.js';
import { kindShape, validatorsOf } from '../shapes/kinds.js';
import { expectShape } from '../shapes/validate.js';
import { collectionPath, itemPath, KINDS, kindCommon, newObject, postObject, type ResourceKind } from './kinds.js';

/** The requirement of the types a kind's own §2 table states (kinds whose fields the spec shows). */
const OWN_TYPES_REQUIREMENT: Readonly<Record<string, string>> = {
  StorageClass: '000-2.2-field-types',
  StorageVersionMigration: '000-2.3-field-types',
  ResourceQuota: '000-2.4-field-types',
  EvictionRequest: '000-2.5-field-types',
  PodGroup: '000-2.6-field-types',
  Event: '000-2.7-field-types',
  ClusterRole: '000-2.8-cluster-role-field-types',
};

/** Fields beyond a kind's minimal valid object, so that more of its types are on show. */
const EXTRA_FIELDS: Readonly<Record<string, Record<string, unknown>>> = {
  StorageClass: {
    parameters: { type: 'ssd' },
    reclaimPolicy: 'Retain',
    allowVolumeExpansion: true,
    mountOptions: ['ro'],
    allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.conformance.orch.io/zone', values: ['a', 'b'] }] }],
  },
};

/** How long the watch event of the new object may take (it is normally there at once). */
const WATCH_WAIT_MS = 10_000;

const runSelector = (ctx: CaseContext) => Object.entries(ctx.labels).map(([k, v]) => `${k}=${v}`).join(',');

/**
 * Creates an object of kind `k` while watching the run's objects of the kind, and checks the `part`
 * types on everything the target returns for it: the create's answer, a read, the run's list
 * (before and after) and the watch event.
 */
async function checkShapes(ctx: CaseContext, k: ResourceKind, part: Part): Promise<void> {
  const v = validatorsOf(kindShape(k.kind), part);
  const collection = collectionPath(k, ctx.namespace);
  const labelSelector = runSelector(ctx);
  const listWhat = `the ${k.kind}List of the run's objects (GET ${collection}?labelSelector=${labelSelector})`;

  const before = expectObject(await ctx.api.get(collection, { query: { labelSelector } }), [200], `${k.kind}List`, `listing the run's ${k.plural}`);
  expectShape(v.list, before, `${listWhat}, before the create`);
  const rv = typeof before.metadata?.resourceVersion === 'string' ? before.metadata.resourceVersion : undefined;
  const w = await ctx.api.watch(collection, { labelSelector, resourceVersion: rv });
  try {
    if (w.status !== 200) fail(`watching the run's ${k.plural} from the list's resourceVersion`, 'HTTP 200 and a stream of events', `HTTP ${w.status}`);
    const body = newObject(ctx, k, EXTRA_FIELDS[k.kind] ?? {}, 'shape');
    const name: string = body.metadata.name;
    const created = expectObject(await postObject(ctx, k, body), SUCCESS.create, k.kind, `creating a valid ${k.kind}`);
    expectShape(v.object, created, `the created ${k.kind} (answer to POST ${collection})`);

    const item = itemPath(k, ctx.namespace, name);
    expectShape(v.object, expectObject(await ctx.api.get(item), [200], k.kind, `reading ${k.kind} ${name}`), `the ${k.kind} read back (GET ${item})`);

    const after = expectObject(await ctx.api.get(collection, { query: { labelSelector } }), [200], `${k.kind}List`, `listing the run's ${k.plural}`);
    expectShape(v.list, after, listWhat);
    const names = Array.isArray(after.items) ? after.items.map((i: any) => i?.metadata?.name) : [];
    expectTrue(names.includes(name), `the list of the run's ${k.plural} holds ${name}`, name, names);

    const [event] = await eventsFor(w, name, 1, WATCH_WAIT_MS);
    if (!event) {
      fail(`a watch event for the new ${k.kind} ${name} (within ${WATCH_WAIT_MS / 1000}s)`, 'an ADDED event carrying the object',
        w.badLines.length ? `a line that is not a watch event: ${show(w.badLines[0])}` : 'no event for it');
    }
    expectShape(v.object, event.object, `the object of the ${event.type} watch event (GET ${collection}?watch=true)`);
  } finally {
    w.close();
  }
}

function shapeCases(k: ResourceKind): Case[] {
  const shape = kindShape(k.kind);
  const own = OWN_TYPES_REQUIREMENT[k.kind];
  const lower = k.kind.toLowerCase();
  const common = { ...kindCommon(k, 'shapes') };
  return [
    defineCase({
      ...common,
      // A kind whose fields §2 does not show has only §2.1's common types from the spec.
      spec: { doc: '000', section: own ? k.section : '2.1' },
      level: 'MUST',
      id: `api.shape.${lower}`,
      title: `${k.kind}: every object and list returned has the field types spec §2 states`,
      requirements: ['000-2.1-field-types', ...(own ? [own] : [])],
      run: (ctx) => checkShapes(ctx, k, 'spec'),
    }),
    defineCase({
      ...common,
      spec: { doc: '000', section: shape.fieldsNotShown ? k.section : '2.1' },
      level: 'SHOULD',
      id: `api.shape.${lower}.upstream`,
      title: `${k.kind}: the field types spec §2 leaves "not shown" are upstream's in every object and list returned`,
      requirements: ['000-2.1-not-shown-field-types', ...(shape.fieldsNotShown ? ['000-2.8-not-shown-field-types'] : [])],
      run: (ctx) => checkShapes(ctx, k, 'upstream'),
    }),
  ];
}

export const fieldShapeCases: Case[] = KINDS.flatMap(shapeCases);
