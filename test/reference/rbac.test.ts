// Role-based access objects (spec 000 §2.8; upstream pkg/apis/rbac/validation where the spec is silent).
import t from 'tap';
import { isDeepStrictEqual } from 'node:util';
import { startControllerManager } from '../../reference/controllers/manager.js';
import { RBAC_STRATEGIES, nameIsPathSegment, selectorMatches } from '../../reference/resources/rbac.js';
import { WatchReader, call, eventually, startTestServer } from './helpers.js';

const G = 'rbac.authorization.orch.io';
const BASE = `/apis/${G}/v1`;
const CR = `${BASE}/clusterroles`;
const CRB = `${BASE}/clusterrolebindings`;
const roles = (ns: string) => `${BASE}/namespaces/${ns}/roles`;
const rbs = (ns: string) => `${BASE}/namespaces/${ns}/rolebindings`;
const RULE = { apiGroups: [''], resources: ['pods'], verbs: ['get'] };
const REF = { apiGroup: G, kind: 'ClusterRole', name: 'view' };

const start = (t: Parameters<typeof startTestServer>[0]) => startTestServer(t, { strategies: [...RBAC_STRATEGIES] });
const obj = (kind: string, name: string, extra: Record<string, unknown>) => ({ apiVersion: `${G}/v1`, kind, metadata: { name }, ...extra });

async function invalid(url: string, path: string, body: unknown): Promise<any> {
  const r = await call(url, 'POST', path, body);
  if (r.status !== 422) throw new Error(`expected 422 for ${JSON.stringify(body)}, got ${r.status} ${r.text}`);
  return r.body;
}

t.test('names are path segments', async (t) => {
  t.same(nameIsPathSegment('system:controller:Foo', false), []);
  t.same(nameIsPathSegment('..', false), ["may not be '..'"]);
  t.same(nameIsPathSegment('.', false), ["may not be '.'"]);
  t.same(nameIsPathSegment('a/b%c', false), ["may not contain '/'", "may not contain '%'"]);
  t.same(nameIsPathSegment('..', true), [], 'a generateName prefix may be ..');
  const srv = await start(t);
  const r = await call(srv.url, 'POST', CR, obj('ClusterRole', 'system:Reader', { rules: [RULE] }));
  t.equal(r.status, 201);
  t.equal((await call(srv.url, 'GET', `${CR}/${encodeURIComponent('system:Reader')}`)).body.metadata.name, 'system:Reader');
  const b = await invalid(srv.url, CR, obj('ClusterRole', 'a/b', {}));
  t.equal(b.message, `ClusterRole.${G} "a/b" is invalid: metadata.name: Invalid value: "a/b": may not contain '/'`);
  const dots = await invalid(srv.url, roles('default'), obj('Role', '..', {}));
  t.equal(dots.details.causes[0].message, `Invalid value: "..": may not be '..'`);
});

t.test('policy rules', async (t) => {
  const srv = await start(t);
  const u = srv.url;
  const rules = [
    { verbs: ['get', 'list'], apiGroups: ['', 'apps'], resources: ['pods', 'deployments/scale'], resourceNames: ['web'] },
    { verbs: ['get'], nonResourceURLs: ['/healthz', '/metrics/*'] },
  ];
  const ok = await call(u, 'POST', CR, obj('ClusterRole', 'ok', { rules }));
  t.equal(ok.status, 201);
  t.same(ok.body.rules, rules);

  let b = await invalid(u, CR, obj('ClusterRole', 'nv', { rules: [{ apiGroups: [''], resources: ['pods'] }] }));
  t.equal(b.message, `ClusterRole.${G} "nv" is invalid: rules[0].verbs: Required value: verbs must contain at least one value`);
  b = await invalid(u, CR, obj('ClusterRole', 'nr', { rules: [{ verbs: ['get'] }] }));
  t.same(b.details.causes, [
    { reason: 'FieldValueRequired', message: 'Required value: resource rules must supply at least one api group', field: 'rules[0].apiGroups' },
    { reason: 'FieldValueRequired', message: 'Required value: resource rules must supply at least one resource', field: 'rules[0].resources' },
  ]);
  b = await invalid(u, CR, obj('ClusterRole', 'both', { rules: [{ verbs: ['get'], resources: ['pods'], nonResourceURLs: ['/x'] }] }));
  t.equal(b.message, `ClusterRole.${G} "both" is invalid: rules[0].nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs`);
  b = await invalid(u, roles('default'), obj('Role', 'nsurl', { rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }] }));
  t.equal(b.message, `Role.${G} "nsurl" is invalid: rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs`);
  t.equal((await call(u, 'POST', roles('default'), obj('Role', 'r', { rules: [RULE] }))).status, 201);
  b = await invalid(u, CR, obj('ClusterRole', 'badtype', { rules: 'all' }));
  t.equal(b.details.causes[0].reason, 'FieldValueTypeInvalid', 'wrong JSON types are 422 causes');
});

t.test('aggregation rules', async (t) => {
  const srv = await start(t);
  const u = srv.url;
  const aggregationRule = { clusterRoleSelectors: [{ matchLabels: { 'rbac.orch.io/aggregate-to-view': 'true' } }, { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }] };
  const ok = await call(u, 'POST', CR, obj('ClusterRole', 'agg', { aggregationRule }));
  t.equal(ok.status, 201);
  t.same(ok.body.aggregationRule, aggregationRule);
  let b = await invalid(u, CR, obj('ClusterRole', 'empty', { aggregationRule: {} }));
  t.equal(b.message, `ClusterRole.${G} "empty" is invalid: aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil`);
  b = await invalid(u, CR, obj('ClusterRole', 'sel', {
    aggregationRule: {
      clusterRoleSelectors: [{
        matchLabels: { 'bad key': 'v' },
        matchExpressions: [
          { key: 'a', operator: 'Near', values: ['x'] },
          { key: 'b', operator: 'In' },
          { key: 'c', operator: 'Exists', values: ['y'] },
          { key: 'd', operator: 'NotIn', values: ['not valid!'] },
        ],
      }],
    },
  }));
  const at = 'aggregationRule.clusterRoleSelectors[0]';
  t.same(b.details.causes.map((c: any) => [c.field, c.reason]), [
    [`${at}.matchLabels`, 'FieldValueInvalid'],
    [`${at}.matchExpressions[0].operator`, 'FieldValueInvalid'],
    [`${at}.matchExpressions[1].values`, 'FieldValueRequired'],
    [`${at}.matchExpressions[2].values`, 'FieldValueForbidden'],
    [`${at}.matchExpressions[3].values[0]`, 'FieldValueInvalid'],
  ]);
  t.equal(b.details.causes[1].message, 'Invalid value: "Near": not a valid selector operator');
  t.equal(b.details.causes[2].message, "Required value: must be specified when `operator` is 'In' or 'NotIn'");
  t.equal(b.details.causes[3].message, "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
});

t.test('selector matching', async (t) => {
  const labels = { app: 'web', tier: 'front' };
  t.ok(selectorMatches({ matchLabels: { app: 'web' } }, labels));
  t.notOk(selectorMatches({ matchLabels: { app: 'db' } }, labels));
  t.ok(selectorMatches({ matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'back'] }] }, labels));
  t.notOk(selectorMatches({ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] }, labels));
  t.ok(selectorMatches({ matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }, { key: 'app', operator: 'Exists' }] }, labels));
  t.ok(selectorMatches({}, labels), 'an empty selector matches everything');
});

t.test('bindings: roleRef and subjects', async (t) => {
  const srv = await start(t);
  const u = srv.url;
  const created = await call(u, 'POST', CRB, obj('ClusterRoleBinding', 'b1', {
    roleRef: { kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'User', name: 'alice' }, { kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'sa', namespace: 'default' }],
  }));
  t.equal(created.status, 201);
  t.same(created.body.roleRef, REF, 'roleRef.apiGroup defaulted');
  t.same(created.body.subjects.map((s: any) => s.apiGroup ?? ''), [G, G, ''], 'User and Group subjects defaulted to the RBAC group');

  let b = await invalid(u, CRB, obj('ClusterRoleBinding', 'noref', {}));
  t.equal(b.message, `ClusterRoleBinding.${G} "noref" is invalid: [roleRef.kind: Unsupported value: "": supported values: "ClusterRole", roleRef.name: Required value]`);
  b = await invalid(u, CRB, obj('ClusterRoleBinding', 'role', { roleRef: { ...REF, kind: 'Role' } }));
  t.equal(b.message, `ClusterRoleBinding.${G} "role" is invalid: roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"`);
  b = await invalid(u, CRB, obj('ClusterRoleBinding', 'grp', { roleRef: { ...REF, apiGroup: 'example.com' } }));
  t.equal(b.message, `ClusterRoleBinding.${G} "grp" is invalid: roleRef.apiGroup: Unsupported value: "example.com": supported values: "${G}"`);
  b = await invalid(u, CRB, obj('ClusterRoleBinding', 'refname', { roleRef: { ...REF, name: 'a/b' } }));
  t.equal(b.details.causes[0].message, `Invalid value: "a/b": may not contain '/'`);
  for (const kind of ['Role', 'ClusterRole']) {
    t.equal((await call(u, 'POST', rbs('default'), obj('RoleBinding', `to-${kind.toLowerCase()}`, { roleRef: { ...REF, kind } }))).status, 201, `RoleBinding to a ${kind}`);
  }
  b = await invalid(u, rbs('default'), obj('RoleBinding', 'x', { roleRef: { ...REF, kind: 'Thing' } }));
  t.equal(b.details.causes[0].message, 'Unsupported value: "Thing": supported values: "Role", "ClusterRole"');

  b = await invalid(u, CRB, obj('ClusterRoleBinding', 'subj', {
    roleRef: REF,
    subjects: [
      { kind: 'Robot', name: 'r2' },
      { kind: 'User', apiGroup: 'example.com', name: 'bob' },
      { kind: 'Group' },
      { kind: 'ServiceAccount', name: 'Bad_Name', apiGroup: G },
    ],
  }));
  t.same(b.details.causes.map((c: any) => [c.field, c.message]), [
    ['subjects[0].kind', 'Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"'],
    ['subjects[1].apiGroup', `Unsupported value: "example.com": supported values: "${G}"`],
    ['subjects[2].name', 'Required value'],
    ['subjects[3].name', b.details.causes[3].message],
    ['subjects[3].apiGroup', `Unsupported value: "${G}": supported values: ""`],
    ['subjects[3].namespace', 'Required value'],
  ]);
  t.match(b.details.causes[3].message, /^Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
  const sa = await call(u, 'POST', rbs('default'), obj('RoleBinding', 'sa', { roleRef: REF, subjects: [{ kind: 'ServiceAccount', name: 'default' }] }));
  t.equal(sa.status, 201, 'a RoleBinding ServiceAccount subject needs no namespace');
});

t.test('roleRef is immutable; subjects are not', async (t) => {
  const srv = await start(t);
  const created = (await call(srv.url, 'POST', CRB, obj('ClusterRoleBinding', 'imm', { roleRef: REF }))).body;
  let r = await call(srv.url, 'PUT', `${CRB}/imm`, { ...created, roleRef: { ...REF, name: 'edit' } });
  t.equal(r.status, 422);
  t.equal(r.body.message, `ClusterRoleBinding.${G} "imm" is invalid: roleRef: Invalid value: {"apiGroup":"${G}","kind":"ClusterRole","name":"edit"}: cannot change roleRef`);
  r = await call(srv.url, 'PUT', `${CRB}/imm`, { ...created, subjects: [{ kind: 'User', name: 'carol' }] });
  t.equal(r.status, 200);
  t.equal(r.body.subjects[0].apiGroup, G);
  const rb = (await call(srv.url, 'POST', rbs('default'), obj('RoleBinding', 'imm', { roleRef: REF }))).body;
  r = await call(srv.url, 'PUT', `${rbs('default')}/imm`, { ...rb, roleRef: { ...REF, kind: 'Role' } });
  t.equal(r.body.details.causes[0].field, 'roleRef');
  const { roleRef: _ref, ...noRef } = (await call(srv.url, 'GET', `${CRB}/imm`)).body;
  r = await call(srv.url, 'PUT', `${CRB}/imm`, noRef);
  t.equal(r.status, 422, 'dropping roleRef is a change too');
});

t.test('delete responses, collections, list and watch shapes', async (t) => {
  const srv = await start(t);
  const u = srv.url;
  await call(u, 'POST', CR, obj('ClusterRole', 'gone', { rules: [RULE] }));
  const del = await call(u, 'DELETE', `${CR}/gone`);
  t.same({ kind: del.body.kind, status: del.body.status, details: del.body.details.kind }, { kind: 'Status', status: 'Success', details: 'clusterroles' }, 'single deletes answer a Status');

  for (const n of ['x', 'y']) await call(u, 'POST', CRB, obj('ClusterRoleBinding', n, { roleRef: REF }));
  const pretty = await call(u, 'GET', `${CRB}/x?pretty=true`);
  t.ok(pretty.text.split('\n').length > 5, 'pretty=true indents the body');
  t.equal((await call(u, 'GET', CRB)).body.kind, 'ClusterRoleBindingList');

  const w = await WatchReader.open(`${u}${BASE}/watch/clusterrolebindings/x`);
  t.teardown(() => w.close());
  const first = await w.next();
  t.same([first?.type, first?.object.metadata.name], ['ADDED', 'x']);
  const y = (await call(u, 'GET', `${CRB}/y`)).body;
  await call(u, 'PUT', `${CRB}/y`, { ...y, subjects: [{ kind: 'User', name: 'u' }] });
  const x = (await call(u, 'GET', `${CRB}/x`)).body;
  await call(u, 'PUT', `${CRB}/x`, { ...x, subjects: [{ kind: 'User', name: 'u' }] });
  const next = await w.next();
  t.same([next?.type, next?.object.metadata.name], ['MODIFIED', 'x'], 'the watch of one name skips the other binding');

  const dc = await call(u, 'DELETE', CRB);
  t.same({ kind: dc.body.kind, status: dc.body.status }, { kind: 'Status', status: 'Success' }, 'delete collection of cluster role bindings answers a Status');
  t.same((await call(u, 'GET', CRB)).body.items, []);

  await call(u, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } });
  await call(u, 'POST', roles('default'), obj('Role', 'a', { rules: [RULE] }));
  await call(u, 'POST', roles('other'), obj('Role', 'b', { rules: [RULE] }));
  const inNs = await call(u, 'GET', roles('other'));
  t.equal(inNs.body.kind, 'RoleList');
  t.same(inNs.body.items.map((i: any) => i.metadata.name), ['b']);
  const all = await call(u, 'GET', `${BASE}/roles`);
  t.equal(all.body.kind, 'RoleList');
  t.same(all.body.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`), ['default/a', 'other/b']);
  const rdc = await call(u, 'DELETE', roles('default'));
  t.equal(rdc.body.kind, 'RoleList', 'other kinds answer delete collection with the deleted items');
});

t.test('aggregation controller (clusterrole-aggregation-controller, a client of the API in the controller manager)', async (t) => {
  const srv = await start(t);
  const u = srv.url;
  const cm = await startControllerManager({ api: { url: u }, controllers: ['clusterrole-aggregation-controller'], serve: false, log: () => undefined });
  t.teardown(() => cm.close());
  // Not named view: the bootstrap view role (aggregated from its own label) exists from the start.
  const sel = { clusterRoleSelectors: [{ matchLabels: { 'agg.orch.io/view': 'true' } }] };
  await call(u, 'POST', CR, obj('ClusterRole', 'agg-view', { aggregationRule: sel, rules: [{ verbs: ['delete'], apiGroups: [''], resources: ['secrets'] }] }));
  const r1 = { verbs: ['get'], apiGroups: [''], resources: ['pods'] };
  const r2 = { verbs: ['list'], apiGroups: ['apps'], resources: ['deployments'] };
  await call(u, 'POST', CR, { ...obj('ClusterRole', 'b-part', { rules: [r2, r1] }), metadata: { name: 'b-part', labels: { 'agg.orch.io/view': 'true' } } });
  await call(u, 'POST', CR, { ...obj('ClusterRole', 'a-part', { rules: [r1] }), metadata: { name: 'a-part', labels: { 'agg.orch.io/view': 'true' } } });
  await call(u, 'POST', CR, obj('ClusterRole', 'unrelated', { rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] }));
  const rulesBecome = (want: unknown[]) => eventually(async () => isDeepStrictEqual((await call(u, 'GET', `${CR}/agg-view`)).body.rules, want));
  await rulesBecome([r1, r2]);
  t.pass('union of the matched roles, in name order, without repeats; direct rules overwritten');
  const view = (await call(u, 'GET', `${CR}/agg-view`)).body;
  t.equal((await call(u, 'PUT', `${CR}/agg-view`, { ...view, rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] })).status, 200);
  await rulesBecome([r1, r2]);
  t.pass('a direct change is overwritten');
  await call(u, 'DELETE', `${CR}/b-part`);
  await rulesBecome([r1]);
  t.pass('a removed source role takes its rules along');
});
