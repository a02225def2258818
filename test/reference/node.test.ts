// Node (spec 001 §2.2 status fields; upstream ValidateNode/ValidateNodeUpdate) and the shared time
// and quantity helpers.
import t from 'tap';
import { nodeStrategy, normalizeMicroTime, normalizeTime, quantityMilli, quantitySign } from '../../reference/resources/node.js';
import { call, startTestServer } from './helpers.js';

const NODES = '/api/v1/nodes';
const node = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, ...extra });
const T = '2025-01-01T00:00:00Z';

t.test('time helpers', async (t) => {
  t.equal(normalizeTime('2025-01-01T02:00:00.999+02:00'), '2025-01-01T00:00:00Z', 'Time: UTC, whole seconds');
  t.equal(normalizeMicroTime('2025-01-01T00:00:00.1234567Z'), '2025-01-01T00:00:00.123456Z', 'MicroTime: six digits');
  t.equal(normalizeMicroTime('2025-01-01T01:30:00-01:00'), '2025-01-01T02:30:00.000000Z');
  t.equal(normalizeTime('yesterday'), 'yesterday', 'unparsable values are left for validation');
  t.equal(normalizeTime('2025-02-30T00:00:00Z'), '2025-02-30T00:00:00Z', 'an impossible date does not parse');
});

t.test('quantity helpers', async (t) => {
  t.equal(quantitySign('-1Gi'), -1);
  t.equal(quantitySign('0'), 0);
  t.equal(quantitySign(4), 1);
  t.equal(quantitySign('1.5e3'), 1);
  t.equal(quantitySign('ten'), undefined);
  t.equal(quantityMilli('500m'), 500n);
  t.equal(quantityMilli('2Ki'), 2048000n);
  t.equal(quantityMilli('1e3'), 1000000n);
});

t.test('status on create, /status and the main resource', async (t) => {
  const srv = await startTestServer(t, { strategies: [nodeStrategy] });
  const u = srv.url;
  const status = {
    capacity: { cpu: 4, memory: '8Gi', pods: '110' },
    conditions: [{ type: 'Ready', status: 'True', reason: 'AgentReady', message: 'ok', lastHeartbeatTime: '2025-01-01T00:00:00.5Z', lastTransitionTime: T }],
    addresses: [{ type: 'Hostname', address: 'n1' }, { type: 'HostName', address: 'n1' }, { type: 'InternalIP', address: '10.0.0.1' }],
    nodeInfo: { kernelVersion: '6.8.0', agentVersion: 'v1.37.0', kubeProxyVersion: 'v1.37.0', operatingSystem: 'linux', architecture: 'arm64' },
    declaredFeatures: ['A', 'B'],
  };
  const r = await call(u, 'POST', NODES, node('n1', { spec: { unschedulable: true }, status }));
  t.equal(r.status, 201);
  t.same(r.body.status.capacity, { cpu: '4', memory: '8Gi', pods: '110' }, 'numbers become quantity strings');
  const canon = await call(u, 'POST', NODES, node('canon', { status: { capacity: { cpu: '1000m', memory: '1048576Ki' } } }));
  t.same(canon.body.status.capacity, { cpu: '1', memory: '1Gi' }, 'quantities are written back in canonical form');
  t.same(r.body.status.allocatable, r.body.status.capacity, 'allocatable defaults to capacity');
  t.equal(r.body.status.conditions[0].lastHeartbeatTime, T, 'times are written back in whole seconds');
  t.same(r.body.status.nodeInfo, status.nodeInfo);
  const del = await call(u, 'DELETE', `${NODES}/n1`);
  t.equal(del.body.kind, 'Status', 'delete answers a Status');

  const created = (await call(u, 'POST', NODES, node('n2'))).body;
  let s = await call(u, 'PUT', `${NODES}/n2/status`, { ...created, spec: { unschedulable: true }, status: { declaredFeatures: ['X'] } });
  t.equal(s.status, 200);
  t.same(s.body.status.declaredFeatures, ['X']);
  t.equal(s.body.spec, undefined, 'spec changes through /status are ignored');
  s = await call(u, 'PUT', `${NODES}/n2`, { ...s.body, spec: { unschedulable: true }, status: { declaredFeatures: ['Y'] } });
  t.equal(s.body.spec.unschedulable, true, 'cordon through the main resource');
  t.same(s.body.status.declaredFeatures, ['X'], 'status changes through the main resource are ignored');
});

t.test('field rules', async (t) => {
  const srv = await startTestServer(t, { strategies: [nodeStrategy] });
  const u = srv.url;
  const bad = async (name: string, extra: Record<string, unknown>) => {
    const r = await call(u, 'POST', NODES, node(name, extra));
    if (r.status !== 422) throw new Error(`expected 422, got ${r.status} ${r.text}`);
    return r.body;
  };
  let b = await bad('q', { status: { capacity: { cpu: '-1', memory: 'lots' }, allocatable: { pods: '-5' } } });
  t.same(b.details.causes.map((c: any) => [c.field, c.message]), [
    ['status.capacity.cpu', 'Invalid value: "-1": must be greater than or equal to 0'],
    ['status.capacity.memory', `Invalid value: "lots": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`],
    ['status.allocatable.pods', 'Invalid value: "-5": must be greater than or equal to 0'],
  ]);
  b = await bad('a', { status: { addresses: [{ type: 'PublicIP', address: '1.2.3.4' }, { type: 'InternalIP' }] } });
  t.same(b.details.causes.map((c: any) => [c.field, c.message]), [
    ['status.addresses[0].type', 'Unsupported value: "PublicIP": supported values: "Hostname", "HostName", "ExternalIP", "InternalIP", "InternalDNS", "ExternalDNS"'],
    ['status.addresses[1].address', 'Required value'],
  ]);
  b = await bad('c', { status: { conditions: [{ type: 'Ready', status: 'Maybe' }, { status: 'True', lastTransitionTime: 'now' }] } });
  t.same(b.details.causes.map((c: any) => [c.field, c.reason]), [
    ['status.conditions[0].status', 'FieldValueNotSupported'],
    ['status.conditions[1].type', 'FieldValueRequired'],
    ['status.conditions[1].lastTransitionTime', 'FieldValueInvalid'],
  ]);
  t.equal(b.details.causes[0].message, 'Unsupported value: "Maybe": supported values: "True", "False", "Unknown"');
  b = await bad('f', { status: { declaredFeatures: ['A', 'A', ''] } });
  t.same(b.details.causes.map((c: any) => [c.field, c.reason]), [['status.declaredFeatures[1]', 'FieldValueDuplicate'], ['status.declaredFeatures[2]', 'FieldValueRequired']]);
  b = await bad('t', { spec: { taints: [{ key: 'k', effect: 'Sometimes' }, { key: 'k', effect: 'NoSchedule' }, { key: 'k', effect: 'NoSchedule' }, { key: 'bad key!' }] } });
  t.same(b.details.causes.map((c: any) => [c.field, c.reason]), [
    ['spec.taints[0].effect', 'FieldValueNotSupported'],
    ['spec.taints[2]', 'FieldValueDuplicate'],
    ['spec.taints[3].key', 'FieldValueInvalid'],
    ['spec.taints[3].effect', 'FieldValueRequired'],
  ]);
  t.equal((await call(u, 'POST', NODES, node('Bad_Name'))).status, 422, 'node names are DNS subdomains');
});

t.test('update rules', async (t) => {
  const srv = await startTestServer(t, { strategies: [nodeStrategy] });
  const u = srv.url;
  const n = (await call(u, 'POST', NODES, node('n', { spec: { providerID: 'cloud://1', podCIDRs: ['10.1.0.0/24'] } }))).body;
  const addr = { type: 'InternalIP', address: '10.0.0.1' };
  let r = await call(u, 'PUT', `${NODES}/n/status`, { ...n, status: { addresses: [addr, addr] } });
  t.equal(r.body.message, 'Node "n" is invalid: status.addresses[1]: Duplicate value: {"type":"InternalIP","address":"10.0.0.1"}');
  r = await call(u, 'PUT', `${NODES}/n`, { ...n, spec: { providerID: 'cloud://2', podCIDRs: ['10.2.0.0/24'] } });
  t.same(r.body.details.causes.map((c: any) => c.message), [
    'Forbidden: node updates may not change podCIDR except from "" to valid',
    'Forbidden: node updates may not change providerID except from "" to valid',
  ]);
});
