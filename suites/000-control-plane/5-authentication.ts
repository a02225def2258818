// Spec 000 §5 (the namespace path parameter is the authorization scope) and the 401/403 rows of the
// ground truth's Status errors. Authentication itself is "not shown" by the spec, so these cases
// need to be told the target authenticates (`run --token` of a user allowed everything,
// impersonation included): they act as other users by impersonating them, which is how any
// Kubernetes-style server lets one client test another user's permissions.
import { randomBytes } from 'node:crypto';
import { upstream } from '../findings.js';
import { defineCase, type Case, type CaseContext } from '../case.js';
import type { ApiResponse } from '../../runner/client.js';
import { eventually, expectCode, expectEqual, expectObject, expectStatus, expectTrue, show, SUCCESS } from '../verify.js';
import { RBAC_API_VERSION, RBAC_GROUP } from './kinds-rbac.js';

const common = { suite: 'auth', needs: ['api'], facts: ['authentication'] } as const;
const SC_PATH = '/apis/storage.orch.io/v1/storageclasses';
const RBAC_BASE = `/apis/${RBAC_API_VERSION}`;
const quotas = (ns: string) => `/api/v1/namespaces/${encodeURIComponent(ns)}/resourcequotas`;

/** GET as `user` (impersonated by the run's user, who may impersonate anyone). */
const getAs = (ctx: CaseContext, user: string, path: string): Promise<ApiResponse> => ctx.api.get(path, { headers: { 'impersonate-user': user } });

/** Creates an object of the case's own at `collection` (tracked for cleanup, run-labelled). */
async function create(ctx: CaseContext, collection: string, body: any, kind: string): Promise<any> {
  ctx.track(`${collection}/${encodeURIComponent(body.metadata.name)}`);
  return expectObject(await ctx.api.post(collection, body), SUCCESS.create, kind, `creating ${kind} ${body.metadata.name}`);
}

const namespace = (ctx: CaseContext, name: string) =>
  create(ctx, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { ...ctx.labels } } }, 'Namespace');

export const authenticationCases: Case[] = [
  defineCase({
    ...common,
    id: 'api.auth.unauthorized',
    title: 'A request with a bearer token the server does not know is 401 Unauthorized',
    requirements: ['000-7-status-unauthorized', '000-7-status-body'],
    spec: { doc: '000', section: '7' },
    level: 'SHOULD',
    impact: 'read-only',
    async run(ctx) {
      // Control: the run's own token is accepted here.
      expectCode(await ctx.api.get(SC_PATH), 200, `GET ${SC_PATH} with the run's token`);
      const token = `oc-${randomBytes(24).toString('base64url')}`;
      const res = await ctx.api.get(SC_PATH, { headers: { authorization: `Bearer ${token}` } });
      expectStatus(res, { code: 401, reason: 'Unauthorized' }, `GET ${SC_PATH} with a random bearer token`);
    },
  }),
  defineCase({
    ...common,
    id: 'api.auth.forbidden',
    title: 'A user without any role binding listing a collection is 403 Forbidden, with a Status naming the resource',
    requirements: ['000-7-status-forbidden', '000-7-status-body'],
    spec: { doc: '000', section: '7' },
    level: 'SHOULD',
    impact: 'read-only',
    async run(ctx) {
      expectCode(await ctx.api.get(SC_PATH), 200, `GET ${SC_PATH} as the run's user`);
      const user = ctx.uniqueName('nobody');
      const s = expectStatus(await getAs(ctx, user, SC_PATH), { code: 403, reason: 'Forbidden' }, `GET ${SC_PATH} as user ${user}, who has no bindings`);
      expectEqual({ group: s.details?.group, kind: s.details?.kind }, { group: 'storage.orch.io', kind: 'storageclasses' }, 'details of the Status (group and plural resource)');
      expectTrue(typeof s.message === 'string' && s.message.includes(`"${user}"`), 'message of the Status names the user', `a message containing "${user}"`, s.message);
    },
  }),
  defineCase({
    ...common,
    id: 'api.auth.namespace-scope',
    upstreamShape: true,
    title: 'A RoleBinding grants only in its own namespace: the namespace in the path is the authorization scope',
    requirements: ['000-5-namespace-authorization-scope'],
    spec: { doc: '000', section: '5' },
    level: 'MUST',
    impact: 'cluster-scoped',
    async run(ctx) {
      const granted = ctx.uniqueName('granted');
      const other = ctx.uniqueName('other');
      await namespace(ctx, granted);
      await namespace(ctx, other);
      const user = ctx.uniqueName('reader');
      const role = ctx.uniqueName('quota-reader');
      const meta = (name: string) => ({ name, namespace: granted, labels: { ...ctx.labels } });
      await create(ctx, `${RBAC_BASE}/namespaces/${granted}/roles`, {
        apiVersion: RBAC_API_VERSION, kind: 'Role', metadata: meta(role),
        rules: [{ apiGroups: [''], resources: ['resourcequotas'], verbs: ['list'] }],
      }, 'Role');
      await create(ctx, `${RBAC_BASE}/namespaces/${granted}/rolebindings`, {
        apiVersion: RBAC_API_VERSION, kind: 'RoleBinding', metadata: meta(ctx.uniqueName('binding')),
        roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: role },
        subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: user }],
      }, 'RoleBinding');
      // Authorizers may see new bindings a moment late (upstream reads them from an informer cache).
      await eventually(async () => {
        const res = await getAs(ctx, user, quotas(granted));
        return { ok: res.status === 200, actual: `HTTP ${res.status} ${show(res.json?.message ?? res.text.slice(0, 200))}` };
      }, `listing resourcequotas in namespace ${granted} as ${user}, whom a RoleBinding there allows it`, 'HTTP 200');
      const list = expectObject(await getAs(ctx, user, quotas(granted)), [200], 'ResourceQuotaList', `GET ${quotas(granted)} as ${user}`);
      expectTrue(Array.isArray(list.items), 'the granted list has items', 'an items array', list.items);
      const s = expectStatus(await getAs(ctx, user, quotas(other)), { code: 403, reason: 'Forbidden' }, `GET ${quotas(other)} as ${user}: the RoleBinding is in ${granted}, not here`);
      upstream(() => expectEqual(s.details?.kind, 'resourcequotas', "details.kind of the Status (upstream's)"));
    },
  }),
];
