// The bootstrap ClusterRoles: written to storage at start with upstream's labels and annotation,
// admin ⊇ edit ⊇ view filled in by the aggregation controller, and reconciled as upstream's
// post-start hook does (missing rules, labels and selectors come back; the owner's additions stay;
// autoupdate "false" is left alone).
import t from 'tap';
import { startControllerManager } from '../../reference/controllers/manager.js';
import { RBAC_STRATEGIES, type ClusterRole, type PolicyRule } from '../../reference/resources/rbac.js';
import { AUTOUPDATE_ANNOTATION, AGGREGATE_TO_EDIT, AGGREGATE_TO_VIEW, BOOTSTRAPPING_LABEL } from '../../reference/apiserver/auth/bootstrap-roles.js';
import { reconcileBootstrapRoles } from '../../reference/apiserver/auth/reconcile-bootstrap.js';
import { ALL_BOOTSTRAP_CLUSTER_ROLES } from '../../reference/apiserver/auth/policy.js';
import { uncovered } from '../../reference/apiserver/auth/escalation.js';
import { call, eventually, startTestServer } from './helpers.js';

const CR = '/apis/rbac.authorization.orch.io/v1/clusterroles';
const start = (t: Parameters<typeof startTestServer>[0]) => startTestServer(t, { strategies: [...RBAC_STRATEGIES] });
const rulesOf = async (u: string, name: string): Promise<PolicyRule[]> => (await call(u, 'GET', `${CR}/${encodeURIComponent(name)}`)).body.rules ?? [];

t.test('every bootstrap ClusterRole is stored at start, labelled and annotated as upstream', async (t) => {
  const srv = await start(t);
  const list = (await call(srv.url, 'GET', CR)).body.items as ClusterRole[];
  const names = list.map((r) => r.metadata.name);
  for (const want of ['cluster-admin', 'admin', 'edit', 'view', 'system:aggregate-to-view', 'system:discovery', 'system:node']) t.ok(names.includes(want), `${want} is stored`);
  t.equal(list.length, ALL_BOOTSTRAP_CLUSTER_ROLES.length, 'nothing else');
  for (const r of list) {
    t.equal(r.metadata.labels?.[BOOTSTRAPPING_LABEL], 'rbac-defaults', `${r.metadata.name}: bootstrapping label`);
    t.equal(r.metadata.annotations?.[AUTOUPDATE_ANNOTATION], 'true', `${r.metadata.name}: autoupdate annotation`);
  }
  const view = list.find((r) => r.metadata.name === 'view')!;
  t.same(view.aggregationRule, { clusterRoleSelectors: [{ matchLabels: { [AGGREGATE_TO_VIEW]: 'true' } }] });
  t.equal(view.metadata.labels?.[AGGREGATE_TO_EDIT], 'true', 'view is part of edit');
});

t.test('the aggregation controller fills admin ⊇ edit ⊇ view from the aggregate-to labels', async (t) => {
  const srv = await start(t);
  const cm = await startControllerManager({ api: { url: srv.url }, controllers: ['clusterrole-aggregation-controller'], serve: false, log: () => undefined });
  t.teardown(() => cm.close());
  const source = await rulesOf(srv.url, 'system:aggregate-to-view');
  await eventually(async () => uncovered(await rulesOf(srv.url, 'admin'), [...source, ...await rulesOf(srv.url, 'system:aggregate-to-edit')]).length === 0);
  const [view, edit, admin] = [await rulesOf(srv.url, 'view'), await rulesOf(srv.url, 'edit'), await rulesOf(srv.url, 'admin')];
  t.same(uncovered(view, source), [], 'view holds system:aggregate-to-view');
  t.same(uncovered(edit, view), [], 'edit holds view');
  t.same(uncovered(admin, edit), [], 'admin holds edit');
  t.ok(uncovered(view, [{ verbs: ['create'], apiGroups: [''], resources: ['pods'] }]).length > 0, 'view does not write pods');
  t.same(uncovered(edit, [{ verbs: ['create'], apiGroups: [''], resources: ['pods'] }]), [], 'edit does');
  t.ok(uncovered(edit, [{ verbs: ['create'], apiGroups: ['rbac.authorization.orch.io'], resources: ['rolebindings'] }]).length > 0, 'edit does not bind roles');
  t.same(uncovered(admin, [{ verbs: ['create'], apiGroups: ['rbac.authorization.orch.io'], resources: ['rolebindings'] }]), [], 'admin does');
});

t.test('reconciling at start: lost rules and labels come back, additions stay, autoupdate "false" is left alone', async (t) => {
  const srv = await start(t);
  const store = srv.registry.byGroupResource('rbac.authorization.orch.io', 'clusterroles')!;
  const extra: PolicyRule = { verbs: ['get'], apiGroups: ['example.com'], resources: ['widgets'] };
  const basic = (await store.get('', 'system:basic-user')) as ClusterRole;
  const lostRule = basic.rules![0]!;
  await store.update('', 'system:basic-user', { ...basic, metadata: { ...basic.metadata, labels: { mine: 'yes' } }, rules: [...basic.rules!.slice(1), extra] } as never);
  const disco = (await store.get('', 'system:discovery')) as ClusterRole;
  await store.update('', 'system:discovery', { ...disco, metadata: { ...disco.metadata, annotations: { [AUTOUPDATE_ANNOTATION]: 'false' } }, rules: [extra] } as never);
  await store.delete('', 'system:node');

  await reconcileBootstrapRoles(srv.registry);
  const after = (await store.get('', 'system:basic-user')) as ClusterRole;
  t.same(uncovered(after.rules!, [lostRule]), [], 'the lost rule is back');
  t.ok(after.rules!.some((r) => r.apiGroups?.[0] === 'example.com'), 'the added rule stays');
  t.same(after.metadata.labels, { mine: 'yes', [BOOTSTRAPPING_LABEL]: 'rbac-defaults' }, 'labels: the owner\'s and the bootstrapping one');
  t.same(((await store.get('', 'system:discovery')) as ClusterRole).rules, [extra], 'autoupdate "false": untouched');
  t.ok(await store.get('', 'system:node'), 'a deleted role is created again');
  const rv = ((await store.get('', 'system:basic-user')) as ClusterRole).metadata.resourceVersion;
  await reconcileBootstrapRoles(srv.registry);
  t.equal(((await store.get('', 'system:basic-user')) as ClusterRole).metadata.resourceVersion, rv, 'nothing missing: no write');
});
