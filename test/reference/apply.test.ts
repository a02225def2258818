// Server-side apply: merging, ownership, conflicts, force, removal of dropped fields, create, and
// the request rules (fieldManager, force, apiVersion/kind, managedFields, undeclared fields).
import t from 'tap';
import { t as types } from '../../reference/apiserver/schema.js';
import { defineStrategy, type ResourceStrategy } from '../../reference/apiserver/strategy.js';
import { storageClassStrategy } from '../../reference/resources/storageclass.js';
import { SC, call, startTestServer, widgetStrategy } from './helpers.js';

const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const MERGE = { 'content-type': 'application/merge-patch+json' };

/** A namespaced kind with a keyed list, a set and an atomic list, and a status subresource. */
const gadgetStrategy: ResourceStrategy = defineStrategy({
  group: 'test.orch.io',
  version: 'v1',
  kind: 'Gadget',
  resource: 'gadgets',
  singular: 'gadget',
  namespaced: true,
  hasStatus: true,
  deleteResponse: 'status',
  schema: {
    spec: types.object({
      size: types.integer(),
      mode: types.string(),
      tags: types.array(types.string()),
      args: types.array(types.string()),
      ports: types.array(types.object({ name: types.string(), port: types.integer() })),
    }),
    status: types.object({ conditions: types.array(types.object({ type: types.string(), status: types.string() })) }),
  },
  patchStrategies: {
    'spec.tags': { strategy: 'merge' },
    'spec.ports': { strategy: 'merge', mergeKey: 'name' },
    'status.conditions': { strategy: 'merge', mergeKey: 'type' },
  },
  validate: () => [],
});

const G = '/apis/test.orch.io/v1/namespaces/default/gadgets';
const gadget = (name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: 'test.orch.io/v1', kind: 'Gadget', metadata: { name }, spec, ...extra });

async function server(t: { teardown(fn: () => unknown): void }) {
  return startTestServer(t, { strategies: [storageClassStrategy, widgetStrategy, gadgetStrategy] });
}

const entry = (o: any, manager: string, operation = 'Apply') => o.metadata.managedFields?.find((e: any) => e.manager === manager && e.operation === operation);

t.test('apply creates a missing object (201), then updates it (200)', async (t) => {
  const { url: u } = await server(t);
  const yaml = 'apiVersion: test.orch.io/v1\nkind: Gadget\nmetadata:\n  name: g1\n  labels:\n    app: web\nspec:\n  size: 1\n  tags: [a]\n';
  const created = await call(u, 'PATCH', `${G}/g1?fieldManager=alice`, yaml, APPLY);
  t.equal(created.status, 201);
  t.match(created.body, { kind: 'Gadget', metadata: { name: 'g1', namespace: 'default', labels: { app: 'web' } }, spec: { size: 1, tags: ['a'] } });
  const e = entry(created.body, 'alice');
  t.match(e, { manager: 'alice', operation: 'Apply', apiVersion: 'test.orch.io/v1', fieldsType: 'FieldsV1' });
  t.match(e.time, /Z$/);
  t.same(e.fieldsV1, { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:size': {}, 'f:tags': { 'v:"a"': {} } } });

  const again = await call(u, 'PATCH', `${G}/g1?fieldManager=alice`, yaml, APPLY);
  t.equal(again.status, 200);
  t.equal(again.body.metadata.resourceVersion, created.body.metadata.resourceVersion, 'the same configuration again changes nothing');

  const changed = await call(u, 'PATCH', `${G}/g1?fieldManager=alice`, gadget('g1', { size: 2, tags: ['a'] }, { metadata: { name: 'g1', labels: { app: 'web' } } }), APPLY);
  t.equal(changed.status, 200, 'JSON is YAML too');
  t.equal(changed.body.spec.size, 2);
  t.equal((await call(u, 'PATCH', `${G}/missing/status?fieldManager=alice`, gadget('missing', {}), APPLY)).status, 404, 'apply to /status does not create');
});

t.test('conflicts with another manager: 409 with FieldManagerConflict causes; force takes over', async (t) => {
  const { url: u } = await server(t);
  t.equal((await call(u, 'PATCH', `${G}/g?fieldManager=alice`, gadget('g', { size: 1, mode: 'fast' }), APPLY)).status, 201);
  const conflict = await call(u, 'PATCH', `${G}/g?fieldManager=bob`, gadget('g', { size: 2 }), APPLY);
  t.equal(conflict.status, 409);
  t.same(conflict.body, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Apply failed with 1 conflict: conflict with "alice": .spec.size',
    reason: 'Conflict',
    details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.size' }] },
    code: 409,
  });
  t.equal((await call(u, 'GET', `${G}/g`)).body.spec.size, 1, 'nothing written');

  const two = await call(u, 'PATCH', `${G}/g?fieldManager=bob`, gadget('g', { size: 2, mode: 'slow' }), APPLY);
  t.equal(two.body.message, 'Apply failed with 2 conflicts: conflicts with "alice":\n- .spec.mode\n- .spec.size');
  t.equal(two.body.details.causes.length, 2);

  const same = await call(u, 'PATCH', `${G}/g?fieldManager=bob`, gadget('g', { size: 1 }), APPLY);
  t.equal(same.status, 200, 'the same value is no conflict: bob co-owns size');
  t.ok(entry(same.body, 'alice').fieldsV1['f:spec']['f:size'] && entry(same.body, 'bob').fieldsV1['f:spec']['f:size'], 'both own spec.size');

  const forced = await call(u, 'PATCH', `${G}/g?fieldManager=bob&force=true`, gadget('g', { size: 3 }), APPLY);
  t.equal(forced.status, 200);
  t.equal(forced.body.spec.size, 3);
  t.same(entry(forced.body, 'bob').fieldsV1, { 'f:spec': { 'f:size': {} } });
  t.same(entry(forced.body, 'alice').fieldsV1, { 'f:spec': { 'f:mode': {} } }, 'alice lost spec.size');

  // A field changed by an Update manager conflicts too, named with its apiVersion.
  t.equal((await call(u, 'PATCH', `${G}/g?fieldManager=editor`, { spec: { mode: 'medium' } }, MERGE)).status, 200);
  const withUpdater = await call(u, 'PATCH', `${G}/g?fieldManager=alice`, gadget('g', { mode: 'fast' }), APPLY);
  t.equal(withUpdater.status, 409);
  t.equal(withUpdater.body.message, 'Apply failed with 1 conflict: conflict with "editor" using test.orch.io/v1: .spec.mode');
  t.equal(withUpdater.body.details.causes[0].message, 'conflict with "editor" using test.orch.io/v1');
  t.equal((await call(u, 'PATCH', `${G}/g?fieldManager=alice&force=1`, gadget('g', { mode: 'fast' }), APPLY)).status, 200, 'force=1 is true');
});

t.test('fields the applier no longer sends and owns alone are removed; shared ones stay', async (t) => {
  const { url: u } = await server(t);
  const full = gadget('g', { size: 1, mode: 'fast', tags: ['a', 'b'], ports: [{ name: 'http', port: 80 }, { name: 'dns', port: 53 }] }, { metadata: { name: 'g', labels: { x: '1', y: '2' } } });
  t.equal((await call(u, 'PATCH', `${G}/g?fieldManager=alice`, full, APPLY)).status, 201);
  t.equal((await call(u, 'PATCH', `${G}/g?fieldManager=bob`, gadget('g', { mode: 'fast', tags: ['b'] }), APPLY)).status, 200);
  const dropped = await call(u, 'PATCH', `${G}/g?fieldManager=alice`, gadget('g', { size: 1, ports: [{ name: 'http', port: 80 }] }, { metadata: { name: 'g', labels: { x: '1' } } }), APPLY);
  t.equal(dropped.status, 200);
  t.same(dropped.body.metadata.labels, { x: '1' }, 'the dropped label is gone');
  t.equal(dropped.body.spec.mode, 'fast', 'a field bob also applied stays');
  t.same(dropped.body.spec.tags, ['b'], 'the set keeps the item bob owns, loses the other');
  t.same(dropped.body.spec.ports, [{ name: 'http', port: 80 }], 'the dropped keyed item is gone');
  const last = await call(u, 'PATCH', `${G}/g?fieldManager=alice`, gadget('g', { size: 1 }), APPLY);
  t.equal(last.body.metadata.labels, undefined, 'a map emptied by the removal goes');
  t.equal(last.body.spec.ports, undefined, 'a list emptied by the removal goes');
  // Fields set by an Update stay: nobody applied them.
  t.equal((await call(u, 'PATCH', `${G}/g?fieldManager=editor`, { spec: { args: ['--v'] } }, MERGE)).status, 200);
  const kept = await call(u, 'PATCH', `${G}/g?fieldManager=alice`, gadget('g', { size: 1 }), APPLY);
  t.same(kept.body.spec.args, ['--v']);
});

t.test('keyed lists and sets merge item by item; atomic lists are replaced', async (t) => {
  const { url: u } = await server(t);
  t.equal((await call(u, 'PATCH', `${G}/g?fieldManager=alice`, gadget('g', { tags: ['a'], args: ['x', 'y'], ports: [{ name: 'http', port: 80 }] }), APPLY)).status, 201);
  const r = await call(u, 'PATCH', `${G}/g?fieldManager=bob`, gadget('g', { tags: ['b'], ports: [{ name: 'dns', port: 53 }] }), APPLY);
  t.equal(r.status, 200);
  t.same(r.body.spec.tags, ['a', 'b']);
  t.same(r.body.spec.ports, [{ name: 'http', port: 80 }, { name: 'dns', port: 53 }]);
  t.same(entry(r.body, 'bob').fieldsV1, { 'f:spec': { 'f:ports': { 'k:{"name":"dns"}': { '.': {}, 'f:name': {}, 'f:port': {} } }, 'f:tags': { 'v:"b"': {} } } });
  const atomic = await call(u, 'PATCH', `${G}/g?fieldManager=alice`, gadget('g', { tags: ['a'], args: ['z'], ports: [{ name: 'http', port: 80 }] }), APPLY);
  t.same(atomic.body.spec.args, ['z']);
  const dup = await call(u, 'PATCH', `${G}/g?fieldManager=alice`, gadget('g', { ports: [{ name: 'a' }, { name: 'a' }] }), APPLY);
  t.equal(dup.status, 400);
  t.match(dup.body.message, /^failed to create typed patch object \(\/g; test\.orch\.io\/v1, Kind=Gadget\): \.spec\.ports: duplicate entries for key \[name="a"\]$/);
});

t.test('apply to /status owns status only, recorded with subresource status', async (t) => {
  const { url: u } = await server(t);
  t.equal((await call(u, 'PATCH', `${G}/g?fieldManager=alice`, gadget('g', { size: 1 }, { status: { conditions: [{ type: 'Ready', status: 'True' }] } }), APPLY)).status, 201);
  const created = await call(u, 'GET', `${G}/g`);
  t.equal(created.body.status, undefined, 'status through the main resource is dropped');
  t.equal(entry(created.body, 'alice').fieldsV1['f:status'], undefined, 'and not owned');
  const st = await call(u, 'PATCH', `${G}/g/status?fieldManager=ctl`, gadget('g', { size: 5 }, { status: { conditions: [{ type: 'Ready', status: 'True' }] } }), APPLY);
  t.equal(st.status, 200);
  t.same(st.body.status, { conditions: [{ type: 'Ready', status: 'True' }] });
  t.equal(st.body.spec.size, 1, 'spec through /status is ignored');
  const e = entry(st.body, 'ctl');
  t.equal(e.subresource, 'status');
  t.same(e.fieldsV1, { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} } } } });
  const other = await call(u, 'PATCH', `${G}/g/status?fieldManager=ctl2`, gadget('g', {}, { status: { conditions: [{ type: 'Ready', status: 'False' }] } }), APPLY);
  t.equal(other.status, 409);
  t.equal(other.body.message, 'Apply failed with 1 conflict: conflict with "ctl" with subresource "status": .status.conditions[type="Ready"].status');
});

t.test('request rules', async (t) => {
  const { url: u } = await server(t);
  const body = gadget('g', { size: 1 });
  const noManager = await call(u, 'PATCH', `${G}/g`, body, APPLY);
  t.equal(noManager.status, 422);
  t.equal(noManager.body.message, 'PatchOptions.meta.orch.io "" is invalid: fieldManager: Required value: is required for apply patch');
  t.same(noManager.body.details.causes, [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }]);
  t.equal((await call(u, 'GET', `${G}/g`)).status, 404, 'nothing created');
  const force = await call(u, 'PATCH', `${SC}/x?force=false`, {}, MERGE);
  t.equal(force.status, 422, 'force, even false, on a merge patch');
  t.equal(force.body.message, 'PatchOptions.meta.orch.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  const both = await call(u, 'PATCH', `${SC}/x?force=true&fieldManager=${'x'.repeat(200)}`, {}, { 'content-type': 'application/json-patch+json' });
  t.equal(both.body.message, 'PatchOptions.meta.orch.io "" is invalid: [force: Forbidden: may not be specified for non-apply patch, fieldManager: Too long: may not be more than 127 bytes]', 'one 422 lists every bad option');
  t.equal((await call(u, 'PATCH', `${G}/g?fieldManager=a&force=maybe`, body, APPLY)).status, 400, 'force must be a boolean');
  const wrongVersion = await call(u, 'PATCH', `${G}/g?fieldManager=a`, JSON.stringify({ apiVersion: 'test.orch.io/v2', kind: 'Gadget', metadata: { name: 'g' } }), APPLY);
  t.equal(wrongVersion.status, 400);
  t.equal(wrongVersion.body.message, 'invalid object type: test.orch.io/v2, Kind=Gadget');
  t.equal((await call(u, 'PATCH', `${G}/g?fieldManager=a`, JSON.stringify({ metadata: { name: 'g' } }), APPLY)).body.message, 'invalid object type: /, Kind=');
  const mf = await call(u, 'PATCH', `${G}/g?fieldManager=a`, gadget('g', {}, { metadata: { name: 'g', managedFields: [] } }), APPLY);
  t.equal(mf.status, 400);
  t.equal(mf.body.message, 'metadata.managedFields must be nil');
  // fieldValidation covers apply bodies (spec §4.3): Strict refuses an undeclared field, naming it.
  const undeclared = await call(u, 'PATCH', `${G}/g?fieldManager=a&fieldValidation=Strict`, gadget('g', { bogus: 1 }), APPLY);
  t.equal(undeclared.status, 400);
  t.equal(undeclared.body.message, 'error strict decoding YAML: strict decoding error: unknown field "spec.bogus"');
  const badYaml = await call(u, 'PATCH', `${G}/g?fieldManager=a`, 'a: [', APPLY);
  t.equal(badYaml.status, 400);
  t.match(badYaml.body.message, /^error decoding YAML: /);
  const nameless = await call(u, 'PATCH', `${G}/g?fieldManager=a`, JSON.stringify({ apiVersion: 'test.orch.io/v1', kind: 'Gadget', spec: { size: 1 } }), APPLY);
  t.equal(nameless.status, 400);
  t.equal(nameless.body.message, 'the name of the object () does not match the name on the URL (g)');
  const pinned = await call(u, 'PATCH', `${G}/g?fieldManager=a`, body, APPLY);
  t.equal(pinned.status, 201);
  const stale = await call(u, 'PATCH', `${G}/g?fieldManager=a`, gadget('g', { size: 2 }, { metadata: { name: 'g', resourceVersion: '1' } }), APPLY);
  t.equal(stale.status, 409, 'a resourceVersion in the configuration is a precondition');
  const dry = await call(u, 'PATCH', `${G}/dry?fieldManager=a&dryRun=All`, gadget('dry', { size: 1 }), APPLY);
  t.equal(dry.status, 201, 'a dry-run apply answers as a create');
  t.equal((await call(u, 'GET', `${G}/dry`)).status, 404, 'and persists nothing');
});
