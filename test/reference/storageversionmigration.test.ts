// StorageVersionMigration rules (spec §2.3; upstream pkg/apis/storagemigration/validation). Spec §4.1
// gives the kind no status subresource, so status goes through the main resource.
import t from 'tap';
import { storageVersionMigrationStrategy } from '../../reference/resources/storageversionmigration.js';
import { call, startTestServer } from './helpers.js';

const SVM = '/apis/storagemigration.orch.io/v1/storageversionmigrations';
const svm = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'storagemigration.orch.io/v1',
  kind: 'StorageVersionMigration',
  metadata: { name },
  spec: { resource: { group: 'apps', resource: 'deployments' } },
  ...extra,
});
const cond = (type: string, status: string, extra: Record<string, unknown> = {}) => ({
  type, status, reason: 'Testing', message: '', lastTransitionTime: '2025-01-01T00:00:00Z', ...extra,
});

const server = (t: Parameters<typeof startTestServer>[0]) => startTestServer(t, { strategies: [storageVersionMigrationStrategy] });

async function put(url: string, obj: any, status: Record<string, unknown>) {
  return call(url, 'PUT', `${SVM}/${obj.metadata.name}`, { ...obj, status });
}

t.test('create, shape and scope', async (t) => {
  const srv = await server(t);
  const r = await call(srv.url, 'POST', SVM, svm('m1'));
  t.equal(r.status, 201, r.text);
  t.same(r.body.spec, { resource: { group: 'apps', resource: 'deployments' } });
  t.equal(r.body.metadata.namespace, undefined);
  t.equal((await call(srv.url, 'GET', `/apis/storagemigration.orch.io/v1/namespaces/default/storageversionmigrations/m1`)).status, 404);
  const core = await call(srv.url, 'POST', SVM, svm('core', { spec: { resource: { resource: 'configmaps' } } }));
  t.equal(core.status, 201, 'an empty group is the core group');
  const withStatus = await call(srv.url, 'POST', SVM, svm('with-status', { status: { resourceVersion: '7', conditions: [cond('Running', 'True')] } }));
  t.equal(withStatus.status, 201);
  t.equal(withStatus.body.status.resourceVersion, '7', 'no status subresource: status is kept on create');
});

t.test('spec.resource.resource is required', async (t) => {
  const srv = await server(t);
  for (const [name, spec] of [['no-spec', undefined], ['empty', {}], ['group-only', { resource: { group: 'apps' } }]] as const) {
    const r = await call(srv.url, 'POST', SVM, svm(name, { spec }));
    t.equal(r.status, 422, name);
    t.equal(r.body.message, `StorageVersionMigration.storagemigration.orch.io "${name}" is invalid: spec.resource.resource: Required value: resource is required`);
    t.same(r.body.details.causes, [{ reason: 'FieldValueRequired', message: 'Required value: resource is required', field: 'spec.resource.resource' }]);
  }
});

t.test('spec.resource is immutable', async (t) => {
  const srv = await server(t);
  const o = (await call(srv.url, 'POST', SVM, svm('imm'))).body;
  const r = await call(srv.url, 'PUT', `${SVM}/imm`, { ...o, spec: { resource: { group: 'apps', resource: 'statefulsets' } } });
  t.equal(r.status, 422);
  t.equal(r.body.message, 'StorageVersionMigration.storagemigration.orch.io "imm" is invalid: spec.resource: Invalid value: {"group":"apps","resource":"statefulsets"}: field is immutable');
  const g = await call(srv.url, 'PUT', `${SVM}/imm`, { ...o, spec: { resource: { resource: 'deployments' } } });
  t.equal(g.status, 422, 'dropping the group is a change too');
  const same = await call(srv.url, 'PUT', `${SVM}/imm`, { ...o, metadata: { ...o.metadata, labels: { a: 'b' } } });
  t.equal(same.status, 200, 'other changes are fine');
  t.equal(same.body.metadata.generation, 1, 'no spec change, no new generation');
});

t.test('status.resourceVersion: a non-negative integer, set once', async (t) => {
  const srv = await server(t);
  let o = (await call(srv.url, 'POST', SVM, svm('rv'))).body;
  let r = await put(srv.url, o, { resourceVersion: 'abc' });
  t.equal(r.status, 422);
  t.equal(r.body.message, 'StorageVersionMigration.storagemigration.orch.io "rv" is invalid: status.resourceVersion: Invalid value: "abc": failed to parse resource version "abc": strconv.ParseInt: parsing "abc": invalid syntax');
  r = await put(srv.url, o, { resourceVersion: '-1' });
  t.equal(r.body.message, 'StorageVersionMigration.storagemigration.orch.io "rv" is invalid: status.resourceVersion: Invalid value: -1: must be greater than or equal to 0');
  r = await put(srv.url, o, { resourceVersion: '99999999999999999999' });
  t.match(r.body.message, 'value out of range');
  r = await put(srv.url, o, { resourceVersion: '100' });
  t.equal(r.status, 200);
  t.equal(r.body.metadata.generation, 1, 'status changes do not bump the generation');
  o = r.body;
  r = await put(srv.url, o, { resourceVersion: '200' });
  t.equal(r.status, 422);
  t.equal(r.body.message, 'StorageVersionMigration.storagemigration.orch.io "rv" is invalid: status.resourceVersion: Invalid value: "200": field is immutable');
  r = await put(srv.url, o, {});
  t.equal(r.status, 422, 'unsetting it is a change too');
  t.equal((await put(srv.url, o, { resourceVersion: '100' })).status, 200, 'the same value again is fine');
});

t.test('conditions', async (t) => {
  const srv = await server(t);
  let o = (await call(srv.url, 'POST', SVM, svm('c'))).body;
  const conditionsError = (r: any, msg: string) => {
    t.equal(r.status, 422);
    t.equal(r.body.details.causes.find((c: any) => c.message.endsWith(msg))?.field, 'status.conditions', msg);
  };
  let r = await put(srv.url, o, { conditions: [cond('Running', 'True'), cond('Running', 'False')] });
  t.equal(r.status, 422);
  t.same(r.body.details.causes, [{ reason: 'FieldValueDuplicate', message: 'Duplicate value: "Running"', field: 'status.conditions[1].type' }]);
  conditionsError(await put(srv.url, o, { conditions: [cond('Succeeded', 'True'), cond('Failed', 'True')] }), 'Both success and failed conditions cannot be true at the same time');
  conditionsError(await put(srv.url, o, { conditions: [cond('Running', 'True'), cond('Succeeded', 'True')] }), 'Running condition cannot be true when success condition is true');
  conditionsError(await put(srv.url, o, { conditions: [cond('Running', 'True'), cond('Failed', 'True')] }), 'Running condition cannot be true when failed condition is true');
  r = await call(srv.url, 'POST', SVM, svm('c-bad-create', { status: { conditions: [cond('Succeeded', 'True'), cond('Failed', 'True')] } }));
  t.equal(r.status, 422, 'the combination rules hold on create too');

  r = await put(srv.url, o, { conditions: [cond('Running', 'True')] });
  t.equal(r.status, 200, r.text);
  o = r.body;
  r = await put(srv.url, o, { conditions: [cond('Running', 'False'), cond('Succeeded', 'True')] });
  t.equal(r.status, 200, 'Running to Succeeded');
  o = r.body;
  conditionsError(await put(srv.url, o, { conditions: [cond('Running', 'False'), cond('Succeeded', 'False')] }), 'Success condition cannot be set to false once it is true');
  conditionsError(await put(srv.url, o, { conditions: [cond('Running', 'False')] }), 'Success condition cannot be set to false once it is true');

  let f = (await call(srv.url, 'POST', SVM, svm('f', { status: { conditions: [cond('Failed', 'True')] } }))).body;
  conditionsError(await put(srv.url, f, { conditions: [cond('Failed', 'Unknown')] }), 'Failed condition cannot be set to false once it is true');
  f = (await put(srv.url, f, { conditions: [cond('Failed', 'True', { message: 'still failed' })] })).body;
  t.equal(f.status.conditions[0].message, 'still failed', 'a terminal condition may be updated while it stays true');
});

t.test('condition fields (metav1 ValidateConditions)', async (t) => {
  const srv = await server(t);
  const o = (await call(srv.url, 'POST', SVM, svm('cf'))).body;
  const r = await put(srv.url, o, { conditions: [{ type: 'Running', status: 'Yes', lastTransitionTime: '', reason: '' }] });
  t.equal(r.status, 422);
  t.same(r.body.details.causes.map((c: any) => [c.field, c.reason]), [
    ['status.conditions[0].status', 'FieldValueNotSupported'],
    ['status.conditions[0].lastTransitionTime', 'FieldValueRequired'],
    ['status.conditions[0].reason', 'FieldValueRequired'],
  ]);
  t.equal(r.body.details.causes[0].message, 'Unsupported value: "Yes": supported values: "False", "True", "Unknown"');
});

t.test('delete returns a Status', async (t) => {
  const srv = await server(t);
  await call(srv.url, 'POST', SVM, svm('del'));
  const r = await call(srv.url, 'DELETE', `${SVM}/del`);
  t.equal(r.status, 200);
  t.equal(r.body.kind, 'Status');
  t.equal(r.body.status, 'Success');
});
