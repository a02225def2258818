// Spec 000 §2.8 role-based access objects (ClusterRole, ClusterRoleBinding, Role, RoleBinding) and the
// extra §4.2 shapes of cluster role bindings and roles. The spec names ClusterRole's fields; the field
// rules of rules, subjects and roleRef are upstream's (ground truth, SHOULD).
import { isDeepStrictEqual } from 'node:util';
import { defineCase, type Case, type CaseContext } from '../case.js';
import type { WatchEvent } from '../../runner/client.js';
import { eventually, expectCode, expectEqual, expectObject, expectRefused, expectStatus, expectTrue, fail, SUCCESS } from '../verify.js';
import { collectionPath, createObject, itemPath, kindCommon, newObject, postObject, type ResourceKind } from './kinds.js';
import { CLUSTER_ROLE, CLUSTER_ROLE_BINDING, RBAC_API_VERSION, RBAC_GROUP, READ_PODS_RULE, ROLE, ROLE_BINDING } from './kinds-rbac.js';

const CR = CLUSTER_ROLE;
const CRB = CLUSTER_ROLE_BINDING;
const RBAC_BASE = `/apis/${RBAC_API_VERSION}`;

/** Header of a case about kind `k`: §2.8, MUST when `spec` is true (the spec's words), else SHOULD. */
function head(k: ResourceKind, id: string, title: string, requirements: string[], level: 'MUST' | 'SHOULD' = 'SHOULD') {
  return { ...kindCommon(k, 'rbac'), id, title, requirements, level };
}

/** Header of a §2.8 case that observes the ClusterRole aggregation controller (MUST: the spec's words). */
function aggregation(k: ResourceKind, id: string, title: string, requirements: string[], level: 'MUST' | 'SHOULD' = 'MUST') {
  return { ...head(k, id, title, requirements, level), controllers: ['clusterrole-aggregation-controller' as const] };
}

/** Whether two rule lists hold the same rules, in any order (the spec gives no order). */
const sameRules = (a: unknown, b: readonly unknown[]) =>
  Array.isArray(a) && a.length === b.length && b.every((r) => a.some((x) => isDeepStrictEqual(x, r)));

/** Header of a §4.2 shape case. */
function shape(k: ResourceKind, id: string, title: string, requirements: string[]) {
  return { ...kindCommon(k, 'rbac'), spec: { doc: '000' as const, section: '4.2' }, id, title, requirements, level: 'MUST' as const };
}

async function expectInvalid(ctx: CaseContext, k: ResourceKind, extra: Record<string, unknown>, causes: Array<{ field: string; reason?: string }>, what: string) {
  const res = await postObject(ctx, k, newObject(ctx, k, extra));
  await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes }, what);
}

const labelled = (o: any, key: string, value: string) => ({ ...o, metadata: { ...o.metadata, labels: { ...o.metadata.labels, [key]: value } } });

/** Reads a watch until an event for `name` of type `until` arrives; fails on any event about another object. */
async function onlyEventsFor(w: { next(ms: number): Promise<WatchEvent | undefined> }, name: string, until: string): Promise<WatchEvent[]> {
  const seen: WatchEvent[] = [];
  for (;;) {
    const ev = await w.next(10_000);
    if (!ev) fail(`a ${until} event for ${name} on the watch of one name`, `${until} for ${name}`, `the stream gave ${JSON.stringify(seen.map((e) => [e.type, e.object?.metadata?.name]))} and then nothing`);
    // A BOOKMARK names no object (a server may send them at its discretion): not an event about another one.
    if (ev.type === 'BOOKMARK') continue;
    const got = ev.object?.metadata?.name;
    if (got !== name) fail('every event of a watch of one name is about that name', `events for ${name} only`, `${ev.type} for ${JSON.stringify(got)}`);
    seen.push(ev);
    if (ev.type === until) return seen;
  }
}

export const rbacCases: Case[] = [
  // ---- ClusterRole
  defineCase({
    ...head(CR, 'api.clusterrole.rules.round-trip', 'ClusterRole rules (resource and non-resource rules) are stored and returned as given', ['000-2.8-cluster-role-rules'], 'MUST'),
    async run(ctx) {
      const rules = [
        { verbs: ['get', 'watch', 'list'], apiGroups: ['', 'apps'], resources: ['pods', 'deployments/status'], resourceNames: ['web'] },
        { verbs: ['get'], nonResourceURLs: ['/healthz', '/metrics/*'] },
      ];
      const cr = await createObject(ctx, CR, { rules });
      expectEqual(cr.rules, rules, 'rules of the created ClusterRole');
      const got = expectObject(await ctx.api.get(itemPath(CR, '', cr.metadata.name)), [200], 'ClusterRole', 'read back');
      expectEqual(got.rules, rules, 'rules read back');
    },
  }),
  defineCase({
    ...head(CR, 'api.clusterrole.scope.cluster', 'ClusterRole is cluster-level: no namespace, not served under a namespace', ['000-2.8-cluster-role-cluster-level'], 'MUST'),
    async run(ctx) {
      const cr = await createObject(ctx, CR);
      expectEqual(cr.metadata?.namespace ?? '', '', 'metadata.namespace of the created ClusterRole');
      const res = await ctx.api.get(`${RBAC_BASE}/namespaces/${encodeURIComponent(ctx.namespace)}/clusterroles/${encodeURIComponent(cr.metadata.name)}`);
      expectCode(res, 404, 'reading the ClusterRole through a namespaced path');
    },
  }),
  defineCase({
    ...head(CR, 'api.clusterrole.collection-path', 'ClusterRoles are served at /apis/rbac.authorization.orch.io/v1/clusterroles', ['000-4.1-clusterrole-path'], 'MUST'),
    spec: { doc: '000', section: '4.1' },
    async run(ctx) {
      const cr = await createObject(ctx, CR);
      const path = `${RBAC_BASE}/clusterroles`;
      const list = expectObject(await ctx.api.get(path), [200], 'ClusterRoleList', `GET ${path}`);
      const names = (Array.isArray(list.items) ? list.items : []).map((i: any) => i?.metadata?.name);
      expectTrue(names.includes(cr.metadata.name), 'the collection lists the ClusterRole just created', cr.metadata.name, names);
      const got = expectObject(await ctx.api.get(`${path}/${encodeURIComponent(cr.metadata.name)}`), [200], 'ClusterRole', `GET ${path}/{name}`);
      expectEqual(got.metadata?.name, cr.metadata.name, 'name of the object read at the item path');
    },
  }),
  defineCase({
    ...head(CR, 'api.clusterrole.no-status-subresource', 'ClusterRole has no status subresource: .../clusterroles/{name}/status is not found', ['000-4.1-no-status-subresource'], 'MUST'),
    spec: { doc: '000', section: '4.1' },
    async run(ctx) {
      const cr = await createObject(ctx, CR);
      expectCode(await ctx.api.get(`${itemPath(CR, '', cr.metadata.name)}/status`), 404, 'GET .../clusterroles/{name}/status');
    },
  }),
  defineCase({
    ...head(CR, 'api.clusterrole.aggregation-rule.optional', 'aggregationRule is optional; when given, its clusterRoleSelectors are stored', ['000-2.8-aggregation-rule-optional'], 'MUST'),
    async run(ctx) {
      const plain = await createObject(ctx, CR, {}, 'plain');
      expectEqual(plain.aggregationRule, undefined, 'aggregationRule of a ClusterRole created without one');
      const aggregationRule = {
        clusterRoleSelectors: [
          { matchLabels: { 'conformance.orch.io/aggregate-to': ctx.runId } },
          { matchExpressions: [{ key: 'conformance.orch.io/tier', operator: 'In', values: ['a', 'b'] }] },
        ],
      };
      const agg = await createObject(ctx, CR, { aggregationRule }, 'agg');
      const got = expectObject(await ctx.api.get(itemPath(CR, '', agg.metadata.name)), [200], 'ClusterRole', 'read back');
      expectEqual(got.aggregationRule, aggregationRule, 'aggregationRule read back');
    },
  }),
  defineCase({
    ...head(CR, 'api.clusterrole.aggregation-rule.selectors-required', 'An aggregationRule without clusterRoleSelectors is rejected', ['000-2.8-aggregation-rule-selectors-required']),
    async run(ctx) {
      await expectInvalid(ctx, CR, { aggregationRule: { clusterRoleSelectors: [] } }, [{ field: 'aggregationRule.clusterRoleSelectors', reason: 'FieldValueRequired' }], 'create with an empty clusterRoleSelectors');
    },
  }),
  defineCase({
    ...head(CR, 'api.clusterrole.aggregation-rule.selector-validated', 'A clusterRoleSelector with an unknown operator is rejected', ['000-2.8-aggregation-rule-selectors-valid']),
    async run(ctx) {
      const aggregationRule = { clusterRoleSelectors: [{ matchExpressions: [{ key: 'tier', operator: 'Near', values: ['a'] }] }] };
      await expectInvalid(ctx, CR, { aggregationRule }, [{ field: 'aggregationRule.clusterRoleSelectors[0].matchExpressions[0].operator', reason: 'FieldValueInvalid' }], 'create with selector operator "Near"');
    },
  }),
  defineCase({
    ...head(CR, 'api.clusterrole.rules.verbs-required', 'A rule without verbs is rejected', ['000-2.8-policy-rule-verbs-required']),
    async run(ctx) {
      await expectInvalid(ctx, CR, { rules: [{ apiGroups: [''], resources: ['pods'], verbs: [] }] }, [{ field: 'rules[0].verbs', reason: 'FieldValueRequired' }], 'create with a rule whose verbs are empty');
    },
  }),
  defineCase({
    ...head(CR, 'api.clusterrole.rules.resource-rule-needs-groups-and-resources', 'A resource rule needs apiGroups and resources', ['000-2.8-policy-rule-resource-rule']),
    async run(ctx) {
      await expectInvalid(ctx, CR, { rules: [{ verbs: ['get'] }] }, [
        { field: 'rules[0].apiGroups', reason: 'FieldValueRequired' },
        { field: 'rules[0].resources', reason: 'FieldValueRequired' },
      ], 'create with a rule that has only verbs');
    },
  }),
  defineCase({
    ...head(CR, 'api.clusterrole.rules.non-resource-urls-exclusive', 'A rule cannot name both resources and nonResourceURLs', ['000-2.8-policy-rule-non-resource-urls-exclusive']),
    async run(ctx) {
      const rules = [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], nonResourceURLs: ['/healthz'] }];
      await expectInvalid(ctx, CR, { rules }, [{ field: 'rules[0].nonResourceURLs', reason: 'FieldValueInvalid' }], 'create with a rule naming pods and /healthz');
    },
  }),
  defineCase({
    ...head(CR, 'api.rbac.name.path-segment', 'RBAC names are path segments: a name with a colon and capitals is accepted and readable', ['000-2.8-rbac-name-path-segment']),
    async run(ctx) {
      const name = `system:${ctx.uniqueName('seg')}:Reader`;
      const body = { ...newObject(ctx, CR), metadata: { name, labels: { ...ctx.labels } } };
      const cr = expectObject(await postObject(ctx, CR, body), SUCCESS.create, 'ClusterRole', `create ClusterRole ${JSON.stringify(name)}`);
      expectEqual(cr.metadata?.name, name, 'name of the created ClusterRole');
      const got = expectObject(await ctx.api.get(itemPath(CR, '', name)), [200], 'ClusterRole', 'read back by the escaped name');
      expectEqual(got.metadata?.name, name, 'name read back');
    },
  }),
  defineCase({
    ...head(CR, 'api.rbac.name.no-slash', 'An RBAC name with a slash is rejected', ['000-2.8-rbac-name-path-segment']),
    async run(ctx) {
      const body = { ...newObject(ctx, CR), metadata: { name: `${ctx.uniqueName('slash')}/x`, labels: { ...ctx.labels } } };
      await expectRefused(ctx.api, await postObject(ctx, CR, body), { code: 422, reason: 'Invalid', causes: [{ field: 'metadata.name', reason: 'FieldValueInvalid' }] }, 'create a ClusterRole named "<name>/x"');
    },
  }),
  defineCase({
    ...head(CR, 'api.rbac.delete.returns-status', 'Deleting a ClusterRole answers with a Success Status', ['000-2.8-delete-returns-status']),
    async run(ctx) {
      const cr = await createObject(ctx, CR);
      const res = await ctx.api.delete(itemPath(CR, '', cr.metadata.name));
      expectCode(res, [200, 202], 'DELETE the ClusterRole');
      expectEqual({ kind: res.json?.kind, status: res.json?.status }, { kind: 'Status', status: 'Success' }, 'the delete response is a Success Status');
      expectStatus(await ctx.api.get(itemPath(CR, '', cr.metadata.name)), { code: 404, reason: 'NotFound' }, 'read after delete');
    },
  }),

  // ---- Role
  defineCase({
    ...head(ROLE, 'api.role.scope.namespaced', 'Role is namespaced: it lives in the namespace of its path', ['000-2.8-role-namespaced'], 'MUST'),
    upstreamShape: true,
    async run(ctx) {
      const r = await createObject(ctx, ROLE);
      expectEqual(r.metadata?.namespace, ctx.namespace, 'metadata.namespace of the created Role');
      const got = expectObject(await ctx.api.get(itemPath(ROLE, ctx.namespace, r.metadata.name)), [200], 'Role', 'read back in its namespace');
      expectEqual(got.rules, [READ_PODS_RULE], 'rules read back');
      expectStatus(await ctx.api.get(itemPath(ROLE, 'default', r.metadata.name)), { code: 404, reason: 'NotFound' }, 'read through another namespace');
    },
  }),
  defineCase({
    ...head(ROLE, 'api.role.rules.non-resource-urls-forbidden', 'A Role rule cannot name nonResourceURLs', ['000-2.8-policy-rule-non-resource-urls-cluster-only']),
    async run(ctx) {
      await expectInvalid(ctx, ROLE, { rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }] }, [{ field: 'rules[0].nonResourceURLs', reason: 'FieldValueInvalid' }], 'create a Role with nonResourceURLs');
    },
  }),

  // ---- Bindings
  defineCase({
    ...head(CRB, 'api.clusterrolebinding.cluster-level', 'ClusterRoleBinding is served by rbac.authorization.orch.io/v1, cluster-scoped', ['000-2.8-cluster-role-binding-exists'], 'MUST'),
    async run(ctx) {
      const b = await createObject(ctx, CRB);
      expectEqual(b.apiVersion, RBAC_API_VERSION, 'apiVersion of the created ClusterRoleBinding');
      expectEqual(b.metadata?.namespace ?? '', '', 'metadata.namespace of the created ClusterRoleBinding');
      expectEqual(b.roleRef, CRB.valid(ctx).roleRef, 'roleRef of the created ClusterRoleBinding');
    },
  }),
  defineCase({
    ...head(CRB, 'api.clusterrolebinding.role-ref.required', 'A binding without roleRef is rejected (kind and name missing)', ['000-2.8-role-ref-required']),
    async run(ctx) {
      const body = newObject(ctx, CRB);
      delete body.roleRef;
      await expectRefused(ctx.api, await postObject(ctx, CRB, body), { code: 422, reason: 'Invalid', causes: [{ field: 'roleRef.kind' }, { field: 'roleRef.name', reason: 'FieldValueRequired' }] }, 'create without roleRef');
    },
  }),
  defineCase({
    ...head(CRB, 'api.clusterrolebinding.role-ref.api-group-defaulted', 'An empty roleRef.apiGroup is defaulted to rbac.authorization.orch.io', ['000-2.8-role-ref-required']),
    async run(ctx) {
      const b = await createObject(ctx, CRB, { roleRef: { kind: 'ClusterRole', name: 'conformance-reader' } });
      expectEqual(b.roleRef?.apiGroup, RBAC_GROUP, 'roleRef.apiGroup of a binding created without one');
    },
  }),
  defineCase({
    ...head(CRB, 'api.clusterrolebinding.role-ref.kind-cluster-role-only', 'A ClusterRoleBinding can only refer to a ClusterRole', ['000-2.8-role-ref-kind']),
    async run(ctx) {
      await expectInvalid(ctx, CRB, { roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: 'conformance-reader' } }, [{ field: 'roleRef.kind', reason: 'FieldValueNotSupported' }], 'create with roleRef.kind Role');
    },
  }),
  defineCase({
    ...head(ROLE_BINDING, 'api.rolebinding.role-ref.kinds', 'A RoleBinding may refer to a Role or a ClusterRole, nothing else', ['000-2.8-role-ref-kind']),
    async run(ctx) {
      for (const kind of ['Role', 'ClusterRole']) {
        const b = await createObject(ctx, ROLE_BINDING, { roleRef: { apiGroup: RBAC_GROUP, kind, name: 'conformance-reader' } }, kind.toLowerCase());
        expectEqual(b.roleRef?.kind, kind, `roleRef.kind of a RoleBinding referring to a ${kind}`);
      }
      await expectInvalid(ctx, ROLE_BINDING, { roleRef: { apiGroup: RBAC_GROUP, kind: 'Binding', name: 'x' } }, [{ field: 'roleRef.kind', reason: 'FieldValueNotSupported' }], 'create with roleRef.kind Binding');
    },
  }),
  defineCase({
    ...head(CRB, 'api.clusterrolebinding.role-ref.immutable', 'roleRef cannot change once the binding exists', ['000-2.8-role-ref-immutable']),
    async run(ctx) {
      const b = await createObject(ctx, CRB);
      const next = { ...b, roleRef: { ...b.roleRef, name: 'conformance-other' } };
      await expectRefused(ctx.api, await ctx.api.put(itemPath(CRB, '', b.metadata.name), next), { code: 422, reason: 'Invalid', causes: [{ field: 'roleRef', reason: 'FieldValueInvalid' }] }, 'PUT with another roleRef.name');
      const got = expectObject(await ctx.api.get(itemPath(CRB, '', b.metadata.name)), [200], 'ClusterRoleBinding', 'read back');
      expectEqual(got.roleRef?.name, b.roleRef.name, 'roleRef.name read back');
    },
  }),
  defineCase({
    ...head(CRB, 'api.clusterrolebinding.subjects.kind', 'A subject kind other than ServiceAccount, User, Group is rejected', ['000-2.8-subject-kind']),
    async run(ctx) {
      await expectInvalid(ctx, CRB, { subjects: [{ kind: 'Robot', apiGroup: RBAC_GROUP, name: 'r2' }] }, [{ field: 'subjects[0].kind', reason: 'FieldValueNotSupported' }], 'create with subject kind Robot');
    },
  }),
  defineCase({
    ...head(CRB, 'api.clusterrolebinding.subjects.name-required', 'A subject without name is rejected', ['000-2.8-subject-name-required']),
    async run(ctx) {
      await expectInvalid(ctx, CRB, { subjects: [{ kind: 'User', apiGroup: RBAC_GROUP }] }, [{ field: 'subjects[0].name', reason: 'FieldValueRequired' }], 'create with a nameless User subject');
    },
  }),
  defineCase({
    ...head(CRB, 'api.clusterrolebinding.subjects.api-group-defaulted', 'User and Group subjects get apiGroup rbac.authorization.orch.io; ServiceAccount keeps ""', ['000-2.8-subject-api-group']),
    async run(ctx) {
      const subjects = [{ kind: 'User', name: 'alice' }, { kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'builder', namespace: ctx.namespace }];
      const b = await createObject(ctx, CRB, { subjects });
      expectEqual((b.subjects ?? []).map((s: any) => s?.apiGroup ?? ''), [RBAC_GROUP, RBAC_GROUP, ''], 'apiGroup of the User, Group and ServiceAccount subjects');
    },
  }),
  defineCase({
    ...head(CRB, 'api.clusterrolebinding.subjects.api-group-unsupported', 'A User subject of another apiGroup is rejected', ['000-2.8-subject-api-group']),
    async run(ctx) {
      await expectInvalid(ctx, CRB, { subjects: [{ kind: 'User', apiGroup: 'example.com', name: 'alice' }] }, [{ field: 'subjects[0].apiGroup', reason: 'FieldValueNotSupported' }], 'create with a User subject of apiGroup example.com');
    },
  }),
  defineCase({
    ...head(CRB, 'api.clusterrolebinding.subjects.service-account-namespace', 'A ServiceAccount subject of a ClusterRoleBinding needs a namespace', ['000-2.8-subject-service-account-namespace']),
    async run(ctx) {
      await expectInvalid(ctx, CRB, { subjects: [{ kind: 'ServiceAccount', name: 'builder' }] }, [{ field: 'subjects[0].namespace', reason: 'FieldValueRequired' }], 'create with a ServiceAccount subject without namespace');
    },
  }),

  // ---- §4.2 shapes of cluster role bindings and roles
  defineCase({
    ...shape(CRB, 'api.rbac.clusterrolebindings.read-pretty', 'GET .../clusterrolebindings/{name}?pretty=true returns the binding pretty-printed', ['000-4.2-clusterrolebindings-read']),
    async run(ctx) {
      const b = await createObject(ctx, CRB);
      const res = await ctx.api.get(itemPath(CRB, '', b.metadata.name), { query: { pretty: 'true' } });
      const got = expectObject(res, [200], 'ClusterRoleBinding', 'GET by name with pretty=true');
      expectEqual(got.metadata?.name, b.metadata.name, 'name of the binding read');
      const lines = res.text.trim().split('\n');
      expectTrue(lines.length > 3 && /^\s+"/.test(lines[1] ?? ''), 'the body is pretty-printed (one field per line, indented)', 'indented multi-line JSON', res.text.slice(0, 200));
    },
  }),
  defineCase({
    ...shape(CRB, 'api.rbac.clusterrolebindings.list-kind', 'GET .../clusterrolebindings lists bindings as a ClusterRoleBindingList', ['000-4.2-clusterrolebindings-list']),
    async run(ctx) {
      const b = await createObject(ctx, CRB);
      const list = expectObject(await ctx.api.get(collectionPath(CRB, '')), [200], 'ClusterRoleBindingList', 'GET the collection');
      const item = (Array.isArray(list.items) ? list.items : []).find((i: any) => i?.metadata?.name === b.metadata.name);
      if (!item) fail('the list holds the binding just created', b.metadata.name, 'absent');
      expectEqual(item.roleRef, b.roleRef, 'roleRef of the listed binding');
    },
  }),
  defineCase({
    ...shape(CRB, 'api.rbac.clusterrolebindings.watch-by-name', 'GET .../watch/clusterrolebindings/{name} streams events of that binding only', ['000-4.2-clusterrolebindings-watch-name']),
    async run(ctx) {
      const a = await createObject(ctx, CRB, {}, 'a');
      const b = await createObject(ctx, CRB, {}, 'b');
      const w = await ctx.api.watch(`${RBAC_BASE}/watch/clusterrolebindings/${encodeURIComponent(a.metadata.name)}`);
      expectEqual(w.status, 200, 'HTTP status of the watch');
      // The other binding changes first: a stream that is not filtered shows it before a's change.
      expectObject(await ctx.api.put(itemPath(CRB, '', b.metadata.name), labelled(b, 'touched', 'b')), SUCCESS.replace, 'ClusterRoleBinding', 'update the other binding');
      expectObject(await ctx.api.put(itemPath(CRB, '', a.metadata.name), labelled(a, 'touched', 'a')), SUCCESS.replace, 'ClusterRoleBinding', 'update the watched binding');
      const seen = await onlyEventsFor(w, a.metadata.name, 'MODIFIED');
      w.close();
      expectEqual(seen.at(-1)?.object?.metadata?.labels?.touched, 'a', 'the MODIFIED event carries the updated binding');
    },
  }),
  defineCase({
    ...shape(ROLE, 'api.rbac.roles.list-namespaced', 'GET .../namespaces/{namespace}/roles returns a RoleList of the namespace', ['000-4.2-roles-list-namespaced', '000-2.8-role-list']),
    async run(ctx) {
      const r = await createObject(ctx, ROLE);
      const list = expectObject(await ctx.api.get(collectionPath(ROLE, ctx.namespace)), [200], 'RoleList', 'GET the namespaced collection');
      const items = Array.isArray(list.items) ? list.items : [];
      expectTrue(items.some((i: any) => i?.metadata?.name === r.metadata.name), 'the RoleList holds the Role just created', r.metadata.name, items.map((i: any) => i?.metadata?.name));
      expectTrue(items.every((i: any) => i?.metadata?.namespace === ctx.namespace), 'every listed Role is of the namespace', ctx.namespace, items.map((i: any) => i?.metadata?.namespace));
    },
  }),
  defineCase({
    ...shape(ROLE, 'api.rbac.roles.list-all-namespaces', 'GET /apis/rbac.authorization.orch.io/v1/roles returns a RoleList across namespaces', ['000-4.2-roles-list-all-namespaces', '000-2.8-role-list']),
    async run(ctx) {
      const r = await createObject(ctx, ROLE);
      const list = expectObject(await ctx.api.get(`${RBAC_BASE}/roles`), [200], 'RoleList', `GET ${RBAC_BASE}/roles`);
      const item = (Array.isArray(list.items) ? list.items : []).find((i: any) => i?.metadata?.name === r.metadata.name && i?.metadata?.namespace === ctx.namespace);
      if (!item) fail('the all-namespaces list holds the Role just created in the run\'s namespace', `${ctx.namespace}/${r.metadata.name}`, 'absent');
    },
  }),
  defineCase({
    ...shape(ROLE, 'api.rbac.roles.watch-by-name', 'GET .../watch/namespaces/{namespace}/roles/{name} streams events of that Role only', ['000-4.2-roles-watch-name']),
    async run(ctx) {
      const a = await createObject(ctx, ROLE, {}, 'a');
      const b = await createObject(ctx, ROLE, {}, 'b');
      const w = await ctx.api.watch(`${RBAC_BASE}/watch/namespaces/${encodeURIComponent(ctx.namespace)}/roles/${encodeURIComponent(a.metadata.name)}`);
      expectEqual(w.status, 200, 'HTTP status of the watch');
      expectObject(await ctx.api.put(itemPath(ROLE, ctx.namespace, b.metadata.name), labelled(b, 'touched', 'b')), SUCCESS.replace, 'Role', 'update the other Role');
      expectObject(await ctx.api.put(itemPath(ROLE, ctx.namespace, a.metadata.name), labelled(a, 'touched', 'a')), SUCCESS.replace, 'Role', 'update the watched Role');
      const seen = await onlyEventsFor(w, a.metadata.name, 'MODIFIED');
      w.close();
      expectEqual(seen.at(-1)?.object?.metadata?.labels?.touched, 'a', 'the MODIFIED event carries the updated Role');
    },
  }),
  // ---- aggregation (a controller's work: the cases wait for it)
  defineCase({
    ...aggregation(CR, 'api.clusterrole.aggregation-rule.selectors', 'an aggregated ClusterRole gets the rules of every ClusterRole its selectors match', ['000-2.8-aggregation-rule-selectors'], 'MUST'),
    async run(ctx) {
      // A label key unique to the case, so that no other cluster role on the target is pulled in.
      const key = `agg.conformance.orch.io/${ctx.uniqueName('k')}`;
      const watchRule = { apiGroups: [''], resources: ['pods'], verbs: ['watch'] };
      await createObject(ctx, CR, { metadata: { name: ctx.uniqueName('src1'), labels: { ...ctx.labels, [key]: 'true' } }, rules: [READ_PODS_RULE] });
      const agg = await createObject(ctx, CR, { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [key]: 'true' } }] }, rules: [] }, 'agg');
      const path = itemPath(CR, ctx.namespace, agg.metadata.name);
      const rulesOf = async () => (await ctx.api.get(path)).json?.rules ?? [];
      await eventually(async () => { const r = await rulesOf(); return { ok: isDeepStrictEqual(r, [READ_PODS_RULE]), actual: r }; },
        'rules of the aggregated ClusterRole after one matching role exists', JSON.stringify([READ_PODS_RULE]));
      await createObject(ctx, CR, { metadata: { name: ctx.uniqueName('src2'), labels: { ...ctx.labels, [key]: 'true' } }, rules: [watchRule] });
      await eventually(async () => { const r = await rulesOf(); return { ok: r.length === 2 && r.some((x: any) => x?.verbs?.[0] === 'watch'), actual: r }; },
        'rules of the aggregated ClusterRole after a second matching role appears', 'both roles\' rules');
    },
  }),
  defineCase({
    ...aggregation(CR, 'api.clusterrole.aggregation-rule.controller-managed', 'direct changes to an aggregated ClusterRole\'s rules are overwritten', ['000-2.8-aggregation-rule-controller-managed'], 'MUST'),
    async run(ctx) {
      const key = `agg.conformance.orch.io/${ctx.uniqueName('k')}`;
      await createObject(ctx, CR, { metadata: { name: ctx.uniqueName('src'), labels: { ...ctx.labels, [key]: 'true' } }, rules: [READ_PODS_RULE] });
      const agg = await createObject(ctx, CR, { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [key]: 'true' } }] }, rules: [] }, 'agg');
      const path = itemPath(CR, ctx.namespace, agg.metadata.name);
      const get = async () => (await ctx.api.get(path)).json;
      await eventually(async () => { const o = await get(); return { ok: o?.rules?.length === 1, actual: o?.rules }; }, 'the aggregated rules arrive', JSON.stringify([READ_PODS_RULE]));
      const direct = { apiGroups: [''], resources: ['secrets'], verbs: ['delete'] };
      const cur = await get();
      const res = await ctx.api.put(path, { ...cur, rules: [direct] });
      expectCode(res, SUCCESS.replace, 'PUT of the aggregated ClusterRole with rules of its own');
      await eventually(async () => { const o = await get(); return { ok: isDeepStrictEqual(o?.rules, [READ_PODS_RULE]), actual: o?.rules }; },
        'the direct change to rules is overwritten by the aggregation', JSON.stringify([READ_PODS_RULE]));
    },
  }),
  defineCase({
    ...aggregation(CR, 'api.clusterrole.aggregation-rule.any-selector.later', 'an aggregated ClusterRole with two selectors gets the rules of a role only its second selector matches', ['000-2.8-aggregation-rule-selectors']),
    async run(ctx) {
      // Keys unique to the case, so that no other cluster role on the target is pulled in.
      const first = `agg.conformance.orch.io/${ctx.uniqueName('a')}`;
      const second = `agg.conformance.orch.io/${ctx.uniqueName('b')}`;
      await createObject(ctx, CR, { metadata: { name: ctx.uniqueName('src'), labels: { ...ctx.labels, [second]: 'true' } }, rules: [READ_PODS_RULE] });
      const selectors = [{ matchLabels: { [first]: 'true' } }, { matchLabels: { [second]: 'true' } }];
      const agg = await createObject(ctx, CR, { aggregationRule: { clusterRoleSelectors: selectors }, rules: [] }, 'agg');
      const path = itemPath(CR, '', agg.metadata.name);
      // Waits for the aggregated rules, not the first state seen: a controller fills them in its own time.
      await eventually(async () => { const r = (await ctx.api.get(path)).json?.rules; return { ok: sameRules(r, [READ_PODS_RULE]), actual: r ?? [] }; },
        'rules of an aggregated ClusterRole whose second selector (of two) matches a role', JSON.stringify([READ_PODS_RULE]));
    },
  }),
  defineCase({
    ...aggregation(CR, 'api.clusterrole.aggregation-rule.any-selector.each', 'an aggregated ClusterRole with two selectors, each matching a different role, gets the rules of both', ['000-2.8-aggregation-rule-selectors']),
    async run(ctx) {
      const first = `agg.conformance.orch.io/${ctx.uniqueName('a')}`;
      const second = `agg.conformance.orch.io/${ctx.uniqueName('b')}`;
      const watchRule = { apiGroups: [''], resources: ['pods'], verbs: ['watch'] };
      await createObject(ctx, CR, { metadata: { name: ctx.uniqueName('src1'), labels: { ...ctx.labels, [first]: 'true' } }, rules: [READ_PODS_RULE] });
      await createObject(ctx, CR, { metadata: { name: ctx.uniqueName('src2'), labels: { ...ctx.labels, [second]: 'true' } }, rules: [watchRule] });
      const selectors = [{ matchLabels: { [first]: 'true' } }, { matchLabels: { [second]: 'true' } }];
      const agg = await createObject(ctx, CR, { aggregationRule: { clusterRoleSelectors: selectors }, rules: [] }, 'agg');
      const path = itemPath(CR, '', agg.metadata.name);
      const want = [READ_PODS_RULE, watchRule];
      await eventually(async () => { const r = (await ctx.api.get(path)).json?.rules; return { ok: sameRules(r, want), actual: r ?? [] }; },
        'rules of an aggregated ClusterRole whose two selectors each match one role', `${JSON.stringify(want)} (any order)`);
    },
  }),
];
