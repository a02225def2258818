// Lease (spec 001 §2.2 heartbeats; upstream ValidateLeaseSpec) and the node-lease namespace.
import t from 'tap';
import { leaseStrategy } from '../../reference/resources/lease.js';
import { call, startTestServer } from './helpers.js';

const LEASES = (ns: string) => `/apis/coordination.orch.io/v1/namespaces/${ns}/leases`;
const lease = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'coordination.orch.io/v1', kind: 'Lease', metadata: { name }, spec });

t.test('heartbeat lease in node-lease', async (t) => {
  const srv = await startTestServer(t, { strategies: [leaseStrategy] });
  t.equal((await call(srv.url, 'GET', '/api/v1/namespaces/node-lease')).status, 200, 'node-lease exists from the start');
  const r = await call(srv.url, 'POST', LEASES('node-lease'), lease('n1', {
    holderIdentity: 'n1', leaseDurationSeconds: 40, acquireTime: '2025-01-01T00:00:00.1234567Z', renewTime: '2025-01-01T01:00:00+01:00',
    leaseTransitions: 0, strategy: 'OldestEmulationVersion', preferredHolder: 'n2',
  }));
  t.equal(r.status, 201);
  t.equal(r.body.spec.acquireTime, '2025-01-01T00:00:00.123456Z', 'MicroTime keeps six digits');
  t.equal(r.body.spec.renewTime, '2025-01-01T00:00:00.000000Z', 'and is written back in UTC');
  const renewed = await call(srv.url, 'PUT', `${LEASES('node-lease')}/n1`, { ...r.body, spec: { ...r.body.spec, renewTime: '2025-01-01T00:00:10.000001Z' } });
  t.equal(renewed.body.spec.renewTime, '2025-01-01T00:00:10.000001Z');
  const del = await call(srv.url, 'DELETE', `${LEASES('node-lease')}/n1`);
  t.equal(del.body.kind, 'Status', 'delete answers a Status');
});

t.test('field rules', async (t) => {
  const srv = await startTestServer(t, { strategies: [leaseStrategy] });
  const bad = async (name: string, spec: Record<string, unknown>) => {
    const r = await call(srv.url, 'POST', LEASES('default'), lease(name, spec));
    if (r.status !== 422) throw new Error(`expected 422, got ${r.status} ${r.text}`);
    return r.body;
  };
  let b = await bad('d', { leaseDurationSeconds: 0, leaseTransitions: -1 });
  t.equal(b.message, 'Lease.coordination.orch.io "d" is invalid: [spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0]');
  b = await bad('s', { strategy: 'Newest' });
  t.equal(b.message, 'Lease.coordination.orch.io "s" is invalid: spec.strategy: Unsupported value: "Newest": supported values: "OldestEmulationVersion"');
  t.equal((await call(srv.url, 'POST', LEASES('default'), lease('custom', { strategy: 'example.com/mine' }))).status, 201, 'a prefixed strategy is any qualified name');
  b = await bad('s2', { strategy: 'example.com/not valid!' });
  t.equal(b.details.causes[0].field, 'spec.strategy');
  b = await bad('p', { preferredHolder: 'n2' });
  t.equal(b.message, 'Lease.coordination.orch.io "p" is invalid: spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined');
  b = await bad('tm', { renewTime: 'soon' });
  t.same(b.details.causes.map((c: any) => [c.field, c.reason]), [['spec.renewTime', 'FieldValueInvalid']]);
});
