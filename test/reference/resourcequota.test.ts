// ResourceQuota rules (spec §2.4; upstream pkg/apis/core/validation where the spec is silent).
import t from 'tap';
import { resourceQuotaStrategy } from '../../reference/resources/resourcequota.js';
import { NS, call, startTestServer } from './helpers.js';

const RQ = '/api/v1/namespaces/team/resourcequotas';
const rq = (name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: { name },
  spec,
  ...extra,
});

async function server(t: Parameters<typeof startTestServer>[0]) {
  const srv = await startTestServer(t, { strategies: [resourceQuotaStrategy] });
  await call(srv.url, 'POST', NS, { metadata: { name: 'team' } });
  return srv;
}

async function invalid(url: string, name: string, spec: Record<string, unknown>): Promise<any> {
  const r = await call(url, 'POST', RQ, rq(name, spec));
  if (r.status !== 422) throw new Error(`expected 422 for ${JSON.stringify(spec)}, got ${r.status} ${r.text}`);
  return r.body;
}

t.test('quantities are stored as upstream serializes them', async (t) => {
  const srv = await server(t);
  const r = await call(srv.url, 'POST', RQ, rq('canon', { hard: { 'requests.cpu': '1.5', 'requests.memory': '0.5Gi', cpu: '1000m', pods: 10, memory: ' 1Gi ', 'limits.cpu': '+1', services: null } }));
  t.equal(r.status, 201, r.text);
  t.same(r.body.spec.hard, { 'requests.cpu': '1500m', 'requests.memory': '512Mi', cpu: '1', pods: '10', memory: '1Gi', 'limits.cpu': '+1', services: '0' });
  t.same((await call(srv.url, 'GET', `${RQ}/canon`)).body.spec.hard, r.body.spec.hard, 'read back the same');
  t.equal(r.body.status, undefined, 'status is dropped on create');
});

t.test('quantity syntax errors name the entry, with upstream\'s message', async (t) => {
  const srv = await server(t);
  const b = await invalid(srv.url, 'bad-q', { hard: { memory: '1Gb' } });
  t.equal(b.message, 'ResourceQuota "bad-q" is invalid: spec.hard[memory]: Invalid value: "1Gb": quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'');
  t.same(b.details.causes, [{
    reason: 'FieldValueInvalid',
    message: 'Invalid value: "1Gb": quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'',
    field: 'spec.hard[memory]',
  }]);
  const s = await invalid(srv.url, 'bad-s', { hard: { memory: '1Mii' } });
  t.match(s.message, 'spec.hard[memory]: Invalid value: "1Mii": unable to parse quantity\'s suffix');
  const w = await invalid(srv.url, 'bad-w', { hard: { memory: true } });
  t.equal(w.details.causes[0].field, 'spec.hard[memory]', 'a JSON boolean is no quantity');
  for (const q of ['1.5.Gi', '', 'abc']) t.equal((await invalid(srv.url, 'bad', { hard: { cpu: q } })).details.causes[0].field, 'spec.hard[cpu]', `"${q}" is refused`);
});

t.test('negative and fractional counts', async (t) => {
  const srv = await server(t);
  let b = await invalid(srv.url, 'neg', { hard: { pods: '-1' } });
  t.equal(b.message, 'ResourceQuota "neg" is invalid: spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0');
  b = await invalid(srv.url, 'frac', { hard: { pods: '1500m' } });
  t.equal(b.message, 'ResourceQuota "frac" is invalid: spec.hard[pods]: Invalid value: "1500m": must be an integer');
  b = await invalid(srv.url, 'frac2', { hard: { 'count/deployments.apps': '2.5', 'example.com/gpu': '0.5' } });
  t.same(b.details.causes.map((c: any) => c.field).sort(), ['spec.hard[count/deployments.apps]', 'spec.hard[example.com/gpu]']);
  const ok = await call(srv.url, 'POST', RQ, rq('frac-ok', { hard: { cpu: '1500m', 'requests.example.com/gpu': '0.5', 'hugepages-2Mi': '1Gi' } }));
  t.equal(ok.status, 201, 'cpu, requests.<extended> and hugepages take fractions');
});

t.test('resource names', async (t) => {
  const srv = await server(t);
  let b = await invalid(srv.url, 'n1', { hard: { widgets: '1' } });
  t.equal(b.message, 'ResourceQuota "n1" is invalid: [spec.hard[widgets]: Invalid value: "widgets": must be a standard resource type or fully qualified, spec.hard[widgets]: Invalid value: "widgets": must be a standard resource for quota]');
  b = await invalid(srv.url, 'n2', { hard: { storage: '1Gi' } });
  t.equal(b.message, 'ResourceQuota "n2" is invalid: spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota');
  b = await invalid(srv.url, 'n3', { hard: { 'not a name!': '1' } });
  t.equal(b.details.causes[0].field, 'spec.hard[not a name!]');
  t.match(b.details.causes[0].message, /name part must consist of alphanumeric characters/);
  const ok = await call(srv.url, 'POST', RQ, rq('n-ok', { hard: { 'example.com/gpu': '4', 'count/deployments.apps': '3', 'services.loadbalancers': '2', 'requests.storage': '10Gi' } }));
  t.equal(ok.status, 201, ok.text);
});

t.test('scopes', async (t) => {
  const srv = await server(t);
  for (const [scope, hard] of [
    ['BestEffort', { pods: '1' }], ['NotBestEffort', { pods: '1', 'requests.cpu': '1' }], ['Terminating', { 'limits.memory': '1Gi' }],
    ['NotTerminating', { cpu: '1' }], ['PriorityClass', { pods: '1' }], ['CrossNamespacePodAffinity', { pods: '1' }],
    ['VolumeAttributesClass', { persistentvolumeclaims: '1', 'requests.storage': '1Gi' }],
  ] as const) {
    const r = await call(srv.url, 'POST', RQ, rq(`s-${scope.toLowerCase()}`, { hard, scopes: [scope] }));
    t.equal(r.status, 201, `scope ${scope}: ${r.text}`);
  }
  let b = await invalid(srv.url, 's1', { hard: { pods: '1' }, scopes: ['Everything'] });
  t.equal(b.message, 'ResourceQuota "s1" is invalid: spec.scopes: Invalid value: ["Everything"]: unsupported scope');
  b = await invalid(srv.url, 's2', { hard: { pods: '1' }, scopes: ['BestEffort', 'NotBestEffort'] });
  t.equal(b.message, 'ResourceQuota "s2" is invalid: spec.scopes: Invalid value: ["BestEffort","NotBestEffort"]: conflicting scopes');
  b = await invalid(srv.url, 's3', { hard: { cpu: '1' }, scopes: ['BestEffort'] });
  t.equal(b.message, 'ResourceQuota "s3" is invalid: spec.scopes: Invalid value: ["BestEffort"]: unsupported scope applied to resource');
  b = await invalid(srv.url, 's4', { hard: { pods: '1' }, scopes: ['VolumeAttributesClass'] });
  t.match(b.message, 'unsupported scope applied to resource');
  const extended = await call(srv.url, 'POST', RQ, rq('s-ext', { hard: { 'example.com/gpu': '1' }, scopes: ['BestEffort'] }));
  t.equal(extended.status, 201, 'only standard quota resources are checked against scopes');
});

t.test('scopes are immutable, as a set', async (t) => {
  const srv = await server(t);
  const r = await call(srv.url, 'POST', RQ, rq('imm', { hard: { pods: '5' }, scopes: ['NotTerminating', 'NotBestEffort'] }));
  t.equal(r.status, 201);
  const reordered = { ...r.body, spec: { ...r.body.spec, scopes: ['NotBestEffort', 'NotTerminating'], hard: { pods: '6' } } };
  const ok = await call(srv.url, 'PUT', `${RQ}/imm`, reordered);
  t.equal(ok.status, 200, 'reordering is no change; hard may change');
  const changed = { ...ok.body, spec: { ...ok.body.spec, scopes: ['NotTerminating'] } };
  const bad = await call(srv.url, 'PUT', `${RQ}/imm`, changed);
  t.equal(bad.status, 422);
  t.equal(bad.body.message, 'ResourceQuota "imm" is invalid: spec.scopes: Invalid value: ["NotTerminating"]: field is immutable');
});

t.test('scope selector requirements, with upstream paths (no index)', async (t) => {
  const srv = await server(t);
  const sel = (...matchExpressions: unknown[]) => ({ hard: { pods: '5' }, scopeSelector: { matchExpressions } });
  const ok = await call(srv.url, 'POST', RQ, rq('sel-ok', sel(
    { scopeName: 'PriorityClass', operator: 'In', values: ['high'] },
    { scopeName: 'PriorityClass', operator: 'NotIn', values: ['low'] },
    { scopeName: 'PriorityClass', operator: 'DoesNotExist' },
    { scopeName: 'NotTerminating', operator: 'Exists' },
  )));
  t.equal(ok.status, 201, ok.text);
  const m = 'spec.scopeSelector.matchExpressions';
  let b = await invalid(srv.url, 'op', sel({ scopeName: 'PriorityClass', values: ['x'] }));
  t.equal(b.message, `ResourceQuota "op" is invalid: ${m}.operator: Invalid value: "": not a valid selector operator`);
  b = await invalid(srv.url, 'op2', sel({ scopeName: 'PriorityClass', operator: 'Equals', values: ['x'] }));
  t.equal(b.message, `ResourceQuota "op2" is invalid: ${m}.operator: Invalid value: "Equals": not a valid selector operator`);
  b = await invalid(srv.url, 'sn', sel({ operator: 'Exists' }));
  t.equal(b.message, `ResourceQuota "sn" is invalid: ${m}.scopeName: Invalid value: "": unsupported scope`);
  b = await invalid(srv.url, 'v1', sel({ scopeName: 'PriorityClass', operator: 'In' }));
  t.equal(b.message, `ResourceQuota "v1" is invalid: ${m}.values: Required value: must be at least one value when \`operator\` is 'In' or 'NotIn' for scope selector`);
  t.equal(b.details.causes[0].reason, 'FieldValueRequired');
  b = await invalid(srv.url, 'v2', sel({ scopeName: 'PriorityClass', operator: 'Exists', values: ['x'] }));
  t.equal(b.message, `ResourceQuota "v2" is invalid: ${m}.values: Invalid value: ["x"]: must be no value when \`operator\` is 'Exist' or 'DoesNotExist' for scope selector`);
  b = await invalid(srv.url, 'ex', sel({ scopeName: 'BestEffort', operator: 'DoesNotExist' }));
  t.equal(b.message, `ResourceQuota "ex" is invalid: ${m}.operator: Invalid value: "DoesNotExist": must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity`);
  b = await invalid(srv.url, 'cf', sel({ scopeName: 'Terminating', operator: 'Exists' }, { scopeName: 'NotTerminating', operator: 'Exists' }));
  t.match(b.message, `${m}: Invalid value: `);
  t.match(b.message, 'conflicting scopes');
  b = await invalid(srv.url, 'res', { hard: { cpu: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'BestEffort', operator: 'Exists' }] } });
  t.match(b.message, 'unsupported scope applied to resource');
  b = await invalid(srv.url, 'two', sel({ operator: 'Equals' }, { scopeName: 'PriorityClass', operator: 'In' }));
  t.equal(b.details.causes.length, 3, 'every bad requirement is reported');
});

t.test('status: written through /status only, and validated', async (t) => {
  const srv = await server(t);
  const created = (await call(srv.url, 'POST', RQ, rq('st', { hard: { pods: '10' } }, { status: { used: { pods: '1' } } }))).body;
  t.equal(created.status, undefined, 'status sent on create is dropped');
  const status = { hard: { pods: '10' }, used: { pods: 3, cpu: '0.5' } };
  const put = await call(srv.url, 'PUT', `${RQ}/st/status`, { ...created, spec: { hard: { pods: '99' } }, status });
  t.equal(put.status, 200, put.text);
  t.same(put.body.status, { hard: { pods: '10' }, used: { pods: '3', cpu: '500m' } }, 'status set, quantities canonical');
  t.same(put.body.spec.hard, { pods: '10' }, 'spec changes through /status are ignored');
  const main = await call(srv.url, 'PUT', `${RQ}/st`, { ...put.body, status: { used: { pods: '7' } } });
  t.equal(main.status, 200);
  t.same(main.body.status.used, { pods: '3', cpu: '500m' }, 'status changes through the main resource are ignored');
  const bad = await call(srv.url, 'PUT', `${RQ}/st/status`, { ...main.body, status: { hard: { cpu: 'abc' }, used: { pods: '-1', 'not a name!': '1' } } });
  t.equal(bad.status, 422);
  t.same(bad.body.details.causes.map((c: any) => c.field), ['status.hard[cpu]', 'status.used[pods]', 'status.used[not a name!]', 'status.used[not a name!]']);
});

t.test('delete returns the object', async (t) => {
  const srv = await server(t);
  await call(srv.url, 'POST', RQ, rq('del', { hard: { pods: '1' } }));
  const r = await call(srv.url, 'DELETE', `${RQ}/del`);
  t.equal(r.status, 200);
  t.equal(r.body.kind, 'ResourceQuota');
  t.equal(r.body.metadata.name, 'del');
});
