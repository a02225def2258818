// Feature gates: parsing and locks, a gated API absent while its gate is off, and fields dropped on
// write while their gate is off (kept when the stored object already uses them).
import t from 'tap';
import { startApiServer } from '../../reference/apiserver/apiserver.js';
import { defineStrategy, type ApiObject } from '../../reference/apiserver/strategy.js';
import { t as types } from '../../reference/apiserver/schema.js';
import { FeatureGates, FeatureGateError, GATES_1_37 } from '../../reference/features.js';
import { MemoryStorage } from '../../reference/storage/memory.js';
import { call } from './helpers.js';

t.test('FeatureGates: 1.37 defaults, overrides, unknown and locked gates', async (t) => {
  const g = new FeatureGates();
  for (const [name, info] of Object.entries(GATES_1_37)) t.equal(g.enabled(name), info.default, `${name} defaults to ${info.default}`);
  t.equal(FeatureGates.parse('GenericWorkload=true, NativeHistograms=false').enabled('GenericWorkload'), true);
  t.equal(FeatureGates.parse('GenericWorkload=true,NativeHistograms=false').enabled('NativeHistograms'), false);
  t.throws(() => FeatureGates.parse('Nope=true'), FeatureGateError);
  t.throws(() => FeatureGates.parse('GenericWorkload'), FeatureGateError);
  t.throws(() => new FeatureGates({ KubeletPSI: false }), /locked to true/);
  t.equal(new FeatureGates({ KubeletPSI: true }).enabled('KubeletPSI'), true, 'setting a locked gate to its value is fine');
});

/** A gated API whose `extra` field has a gate of its own. */
const gadgets = defineStrategy({
  group: 'gated.orch.io', version: 'v1', kind: 'Gadget', resource: 'gadgets', singular: 'gadget',
  namespaced: false, hasStatus: false, deleteResponse: 'object', gate: 'GenericWorkload',
  schema: { size: types.integer(), extra: types.string() },
  dropDisabledFields(o: ApiObject, old: ApiObject | undefined, gates: FeatureGates) {
    if (!gates.enabled('CompositePodGroup') && old?.['extra'] === undefined) delete o['extra'];
  },
  validate: () => [],
});

async function serve(t: { teardown(fn: () => unknown): void }, overrides: Record<string, boolean>) {
  const srv = await startApiServer({ storage: new MemoryStorage(), strategies: [gadgets], featureGates: new FeatureGates(overrides) });
  t.teardown(() => srv.close());
  return srv.url;
}

t.test('a gated API is absent (404, not in discovery) while its gate is off', async (t) => {
  const off = await serve(t, {});
  t.equal((await call(off, 'GET', '/apis/gated.orch.io/v1/gadgets')).status, 404);
  const groups = (await call(off, 'GET', '/apis')).body.groups.map((g: any) => g.name);
  t.notOk(groups.includes('gated.orch.io'), 'not in /apis');
  const on = await serve(t, { GenericWorkload: true });
  t.equal((await call(on, 'GET', '/apis/gated.orch.io/v1/gadgets')).status, 200);
  t.ok((await call(on, 'GET', '/apis')).body.groups.some((g: any) => g.name === 'gated.orch.io'));
});

t.test('gated fields are dropped on write while the gate is off, kept once stored', async (t) => {
  const off = await serve(t, { GenericWorkload: true });
  const created = await call(off, 'POST', '/apis/gated.orch.io/v1/gadgets', { metadata: { name: 'a' }, size: 1, extra: 'x' });
  t.equal(created.status, 201);
  t.equal(created.body.extra, undefined, 'dropped on create');
  const on = await serve(t, { GenericWorkload: true, CompositePodGroup: true });
  const kept = await call(on, 'POST', '/apis/gated.orch.io/v1/gadgets', { metadata: { name: 'b' }, size: 1, extra: 'x' });
  t.equal(kept.body.extra, 'x', 'kept with the gate on');
});
