// Spec 000 §1, §2.1, §4 and §4.1: the API surface every resource shares. How objects are addressed
// (group, version, namespace, name), the common shape of what comes back (CamelCase kind, ObjectMeta,
// ListMeta), the EvictionRequest and PodGroup paths and status subresources of the §4.1 table, the
// required path parameters, and what kubectl needs beside the resources (ground-truth note): status
// subresources in discovery, OpenAPI, aggregated discovery, Table output and the upstream media-type
// groups. Where the note allows a fallback (plain list for a Table, legacy discovery for aggregated
// discovery), the cases accept either answer but check that the answer is the one it claims to be.
import { defineCase, type Case, type CaseContext } from '../case.js';
import type { ApiResponse } from '../../runner/client.js';
import { expectCode, expectEntries, expectEqual, expectObject, expectStatus, expectTrue, fail, show, skip, SUCCESS } from '../verify.js';
import { collectionPath, createObject, itemPath, kindCommon, KINDS, newObject, postObject, STORAGE_CLASS, type ResourceKind } from './kinds.js';
import { EVICTION_REQUEST, POD_GROUP } from './kinds-workloads.js';
import { NOTHING_COUNT, RESOURCE_QUOTA } from './kinds-quota-events.js';
import { createStorageClass, SC_PATH } from './fixtures.js';

/** A case header for kind `k` in a section of spec 000. */
function head(k: ResourceKind, section: string, id: string, title: string, requirements: string[], level: 'MUST' | 'SHOULD') {
  return { ...kindCommon(k, 'surface'), spec: { doc: '000' as const, section }, id, title, requirements, level };
}

const readOnly = (section: string, level: 'MUST' | 'SHOULD') =>
  ({ suite: 'surface', spec: { doc: '000', section }, level, impact: 'read-only', needs: ['api'] }) as const;

/** The discovery path of a kind's group version: `/api/v1` or `/apis/<group>/<version>`. */
export function groupVersionPath(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

/** Creates a namespace of the case's own (cleaned up with the run). */
async function ownNamespace(ctx: CaseContext, hint: string): Promise<string> {
  const ns = ctx.uniqueName(hint);
  ctx.track(`/api/v1/namespaces/${ns}`);
  expectObject(await ctx.api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { ...ctx.labels } } }), SUCCESS.create, 'Namespace', `creating namespace ${ns}`);
  return ns;
}

const contentType = (res: ApiResponse) => (res.headers['content-type'] ?? '').toLowerCase().replace(/\s+/g, '');

// ------------------------------------------------------------------ per kind (KINDS)

/** §2.1 kind and metadata of every kind, generated like the operation cases. */
export function surfaceCasesFor(k: ResourceKind): Case[] {
  const id = (s: string) => `api.${k.kind.toLowerCase()}.${s}`;
  return [
    defineCase({
      ...head(k, '2.1', id('kind-camel-case'), `${k.kind}: objects the server returns name the kind in CamelCase, "${k.kind}"`, ['000-2.1-kind-camel-case'], 'MUST'),
      async run(ctx) {
        // The objects themselves carry the rule; discovery is upstream's, not the spec's (not checked here).
        const o = await createObject(ctx, k);
        const res = await ctx.api.get(itemPath(k, ctx.namespace, o.metadata.name));
        expectCode(res, 200, 'GET by name');
        const kind = res.json?.kind;
        expectTrue(kind === k.kind && /^[A-Z][A-Za-z0-9]*$/.test(kind), 'kind of the object read back', show(k.kind), kind);
      },
    }),
    defineCase({
      ...head(k, '2.1', id('object-meta'), `${k.kind}: every object carries ObjectMeta (name, ${k.namespaced ? 'namespace, ' : ''}uid, resourceVersion, creationTimestamp, labels)`, ['000-2.1-metadata-object-meta'], 'MUST'),
      async run(ctx) {
        const body = newObject(ctx, k);
        expectObject(await postObject(ctx, k, body), SUCCESS.create, k.kind, 'create');
        const got = expectObject(await ctx.api.get(itemPath(k, ctx.namespace, body.metadata.name)), [200], k.kind, 'GET by name');
        const m = got.metadata;
        expectTrue(!!m && typeof m === 'object' && !Array.isArray(m), 'metadata of the object read back', 'an ObjectMeta object', m);
        expectEqual(m.name, body.metadata.name, 'metadata.name');
        if (k.namespaced) expectEqual(m.namespace, ctx.namespace, 'metadata.namespace');
        else expectEqual(m.namespace ?? '', '', 'metadata.namespace of a cluster-scoped object');
        for (const f of ['uid', 'resourceVersion', 'creationTimestamp']) {
          expectTrue(typeof m[f] === 'string' && m[f] !== '', `metadata.${f}`, 'a non-empty string', m[f]);
        }
        expectEntries(m.labels, body.metadata.labels, [], 'metadata.labels (the server may add labels of its own)');
      },
    }),
  ];
}

// ------------------------------------------------------------------ §4.1 table rows

/** A §4.1 collection path, written out as the spec's table gives it (not derived from KINDS). */
function collectionPathCase(k: ResourceKind, specPath: (ns: string) => string, requirement: string): Case {
  return defineCase({
    ...head(k, '4.1', `api.${k.kind.toLowerCase()}.collection-path`, `${k.kind}s are served at ${specPath('{namespace}')}`, [requirement], 'MUST'),
    async run(ctx) {
      const o = await createObject(ctx, k);
      const path = specPath(encodeURIComponent(ctx.namespace));
      const list = expectObject(await ctx.api.get(path), [200], `${k.kind}List`, `GET ${path}`);
      const names = (Array.isArray(list.items) ? list.items : []).map((i: any) => i?.metadata?.name);
      expectTrue(names.includes(o.metadata.name), `the collection lists the ${k.kind} just created`, o.metadata.name, names);
      const got = expectObject(await ctx.api.get(`${path}/${encodeURIComponent(o.metadata.name)}`), [200], k.kind, `GET ${path}/{name}`);
      expectEqual(got.metadata?.uid, o.metadata.uid, 'uid of the object read at the item path');
    },
  });
}

/** A §4.1 "Status subresource: yes" row: `<item>/status` reads the object and replaces its status. */
function statusSubresourceCase(k: ResourceKind, requirement: string): Case {
  return defineCase({
    ...head(k, '4.1', `api.${k.kind.toLowerCase()}.status-subresource`, `${k.kind} has a status subresource: .../{name}/status reads and replaces status`, [requirement], 'MUST'),
    async run(ctx) {
      const o = await createObject(ctx, k);
      const path = `${itemPath(k, ctx.namespace, o.metadata.name)}/status`;
      const got = expectObject(await ctx.api.get(path), [200], k.kind, 'GET .../status');
      expectEqual(got.metadata?.uid, o.metadata.uid, 'uid of the object read through /status');
      const status = k.status!(ctx);
      // A controller may write the status between the read and the PUT (409): read again and retry.
      let res = await ctx.api.put(path, { ...got, status });
      for (let i = 0; i < 5 && res.status === 409; i++) {
        const fresh = await ctx.api.get(path);
        if (fresh.status !== 200) break;
        res = await ctx.api.put(path, { ...fresh.json, status });
      }
      const put = expectObject(res, SUCCESS.replace, k.kind, 'PUT .../status');
      for (const [key, v] of Object.entries(status)) expectEqual(put.status?.[key], v, `status.${key} after PUT .../status`);
    },
  });
}

// ------------------------------------------------------------------ shared cases

export const surfaceCases: Case[] = [
  ...KINDS.flatMap(surfaceCasesFor),
  collectionPathCase(EVICTION_REQUEST, (ns) => `/apis/lifecycle.orch.io/v1alpha1/namespaces/${ns}/evictionrequests`, '000-4.1-evictionrequest-path'),
  collectionPathCase(POD_GROUP, (ns) => `/apis/scheduling.orch.io/v1beta1/namespaces/${ns}/podgroups`, '000-4.1-podgroup-path'),
  statusSubresourceCase(EVICTION_REQUEST, '000-4.1-evictionrequest-status-subresource'),
  statusSubresourceCase(POD_GROUP, '000-4.1-podgroup-status-subresource'),

  defineCase({
    ...head(RESOURCE_QUOTA, '1', 'api.addressing.group-version-namespace-name', 'Objects are addressed by group, version, namespace and name: one name in two namespaces, or in two groups, is three objects', ['000-1-addressing'], 'MUST'),
    // It creates namespaces.
    impact: 'cluster-scoped',
    async run(ctx) {
      // Namespaces of the case's own (a cluster-scoped case has no run namespace to lean on).
      const first = await ownNamespace(ctx, 'addr-a');
      const second = await ownNamespace(ctx, 'addr-b');
      const name = ctx.uniqueName('same');
      const at = [
        { k: RESOURCE_QUOTA, ns: first },
        { k: RESOURCE_QUOTA, ns: second },
        { k: EVICTION_REQUEST, ns: first },
      ];
      const uids: string[] = [];
      for (const { k, ns } of at) {
        const body = newObject(ctx, k);
        body.metadata.name = name;
        const o = expectObject(await postObject({ ...ctx, namespace: ns }, k, body), SUCCESS.create, k.kind, `creating ${k.kind} ${show(name)} in namespace ${ns}`);
        uids.push(o.metadata?.uid);
      }
      expectEqual(new Set(uids).size, 3, 'distinct uids of the three objects named alike');
      for (const [i, { k, ns }] of at.entries()) {
        const got = expectObject(await ctx.api.get(itemPath(k, ns, name)), [200], k.kind, `GET ${itemPath(k, ns, name)}`);
        expectEqual(got.metadata?.uid, uids[i], `uid of the object read at ${itemPath(k, ns, name)}`);
        if (k.namespaced) expectEqual(got.metadata?.namespace, ns, `metadata.namespace of the object read at ${itemPath(k, ns, name)}`);
      }
    },
  }),

  defineCase({
    ...head(RESOURCE_QUOTA, '4.1', 'api.path-parameters.namespace-required', 'The namespace path parameter is required: no create without a namespace, none with an empty one', ['000-4.1-path-parameters'], 'MUST'),
    upstreamShape: true,
    async run(ctx) {
      // A body that names a namespace, so that a server falling back to it would create the object.
      const body = newObject(ctx, RESOURCE_QUOTA);
      body.metadata.namespace = ctx.namespace;
      ctx.track(itemPath(RESOURCE_QUOTA, ctx.namespace, body.metadata.name));
      for (const path of ['/api/v1/resourcequotas', '/api/v1/namespaces//resourcequotas']) {
        const res = await ctx.api.post(path, body);
        expectTrue(res.status >= 400 && res.status < 500, `POST ${path} (no namespace in the path)`, 'a 4xx refusal', `${res.status} ${res.text.slice(0, 300)}`);
      }
      expectStatus(await ctx.api.get(itemPath(RESOURCE_QUOTA, ctx.namespace, body.metadata.name)), { code: 404, reason: 'NotFound' }, 'the quota was not created in the namespace its body names');
    },
  }),
  defineCase({
    ...head(RESOURCE_QUOTA, '4.1', 'api.path-parameters.name-required', 'The name path parameter is required: PUT and PATCH without a name are refused', ['000-4.1-path-parameters'], 'MUST'),
    async run(ctx) {
      const o = await createObject(ctx, RESOURCE_QUOTA);
      const col = collectionPath(RESOURCE_QUOTA, ctx.namespace);
      // Without resourceVersion (quotas take unconditional updates), so that nothing but the missing
      // name refuses it: a quota controller may have written the quota's status meanwhile.
      const changed = { ...o, metadata: { ...o.metadata, resourceVersion: undefined }, spec: { hard: { [NOTHING_COUNT]: '99' } } };
      const put = await ctx.api.put(col, changed);
      expectTrue(put.status >= 400 && put.status < 500, `PUT ${col} (no name in the path) with a body naming ${o.metadata.name}`, 'a 4xx refusal', `${put.status} ${put.text.slice(0, 300)}`);
      const patch = await ctx.api.request('PATCH', col, { body: { metadata: { name: o.metadata.name }, spec: { hard: { [NOTHING_COUNT]: '99' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
      expectTrue(patch.status >= 400 && patch.status < 500, `PATCH ${col} (no name in the path)`, 'a 4xx refusal', `${patch.status} ${patch.text.slice(0, 300)}`);
      const got = expectObject(await ctx.api.get(itemPath(RESOURCE_QUOTA, ctx.namespace, o.metadata.name)), [200], RESOURCE_QUOTA.kind, 'read back');
      expectEqual(got.spec?.hard?.[NOTHING_COUNT], '10', `spec.hard[${NOTHING_COUNT}], untouched by the refused writes`);
    },
  }),

  defineCase({
    ...head(RESOURCE_QUOTA, '2.1', 'api.common.list.meta-fields', 'ListMeta carries resourceVersion, continue and remainingItemCount (a chunked list)', ['000-2.1-list-meta-fields'], 'SHOULD'),
    async run(ctx) {
      for (const hint of ['a', 'b', 'c']) await createObject(ctx, RESOURCE_QUOTA, {}, hint);
      const path = collectionPath(RESOURCE_QUOTA, ctx.namespace);
      const list = expectObject(await ctx.api.get(path, { query: { limit: 1 } }), [200], 'ResourceQuotaList', `GET ${path}?limit=1`);
      const m = list.metadata ?? {};
      expectTrue(typeof m.resourceVersion === 'string' && m.resourceVersion !== '', 'metadata.resourceVersion of the list', 'a non-empty string', m.resourceVersion);
      // Servers may ignore limit: then no chunk carries continue or remainingItemCount.
      if (m.continue === undefined || m.continue === '') skip('the server ignored limit (no continue token for limit=1 over three quotas), so continue and remainingItemCount cannot be observed');
      expectTrue(typeof m.continue === 'string', 'metadata.continue of the first chunk', 'a non-empty string', m.continue);
      expectTrue(Number.isInteger(m.remainingItemCount) && m.remainingItemCount >= 2, 'metadata.remainingItemCount of the first chunk', 'an integer, at least 2 (three quotas, one returned)', m.remainingItemCount);
    },
  }),

  defineCase({
    ...readOnly('4', 'SHOULD'),
    id: 'api.discovery.status-subresources',
    title: 'Discovery lists <resource>/status for the kinds with a status subresource, and only for them',
    requirements: ['000-4-discovery-subresources'],
    async run(ctx) {
      const lists = new Map<string, any>();
      // Gated kinds are left out: the case runs with any gates.
      for (const k of KINDS.filter((x) => !x.gates)) {
        const gv = groupVersionPath(k.apiVersion);
        if (!lists.has(gv)) lists.set(gv, expectObject(await ctx.api.get(gv), [200], 'APIResourceList', `GET ${gv}`));
        const entry = (lists.get(gv).resources ?? []).find((r: any) => r?.name === `${k.plural}/status`);
        if (!k.hasStatus) {
          expectTrue(!entry, `${k.plural}/status in ${gv}`, 'absent (no status subresource)', entry);
          continue;
        }
        expectTrue(!!entry, `${k.plural}/status in ${gv}`, 'present', (lists.get(gv).resources ?? []).map((r: any) => r?.name));
        expectEqual(entry.kind, k.kind, `kind of ${k.plural}/status`);
        expectEqual(entry.namespaced, k.namespaced, `namespaced of ${k.plural}/status`);
        const verbs: unknown = entry.verbs;
        expectTrue(Array.isArray(verbs) && ['get', 'patch', 'update'].every((v) => verbs.includes(v)), `verbs of ${k.plural}/status`, 'get, patch and update', verbs);
      }
    },
  }),

  defineCase({
    ...readOnly('4', 'SHOULD'),
    id: 'api.discovery.aggregated',
    title: 'Asked for aggregated discovery (with kubectl\'s fallback), /apis answers it with a Content-Type that says so, or the legacy APIGroupList as plain JSON',
    requirements: ['000-4-discovery-aggregated'],
    async run(ctx) {
      await expectDiscoveryAnswer(ctx, 'apidiscovery.orch.io', 'application/json;g=apidiscovery.orch.io;v=v2;as=APIGroupDiscoveryList,application/json;q=0.9');
    },
  }),

  defineCase({
    ...readOnly('4', 'SHOULD'),
    id: 'api.openapi.field-validation',
    title: 'The OpenAPI document (/openapi/v3, else /openapi/v2) describes PATCH of storageclasses with a fieldValidation parameter',
    requirements: ['000-4-openapi'],
    async run(ctx) {
      const item = '/apis/storage.orch.io/v1/storageclasses/{name}';
      const root = await ctx.api.get('/openapi/v3');
      let doc: any;
      if (root.status === 200) {
        const url = root.json?.paths?.['apis/storage.orch.io/v1']?.serverRelativeURL;
        expectTrue(typeof url === 'string' && url.startsWith('/openapi/v3/'), 'paths["apis/storage.orch.io/v1"].serverRelativeURL of /openapi/v3', 'a URL under /openapi/v3/', root.json?.paths?.['apis/storage.orch.io/v1']);
        const gv = await ctx.api.get(url);
        expectCode(gv, 200, `GET ${url}`);
        doc = gv.json;
      } else {
        const v2 = await ctx.api.get('/openapi/v2');
        if (v2.status !== 200) fail('an OpenAPI document for kubectl', '200 from GET /openapi/v3 or GET /openapi/v2', `/openapi/v3: ${root.status}, /openapi/v2: ${v2.status}`);
        doc = v2.json;
      }
      const pathItem = doc?.paths?.[item];
      expectTrue(!!pathItem?.patch, `the PATCH operation of ${item}`, 'present', Object.keys(doc?.paths ?? {}));
      const params = [...(pathItem.parameters ?? []), ...(pathItem.patch.parameters ?? [])].map((p: any) => p?.name ?? p?.$ref);
      expectTrue(params.some((p: unknown) => typeof p === 'string' && /fieldValidation/.test(p)), `parameters of PATCH ${item}`, 'one named fieldValidation', params);
    },
  }),

  defineCase({
    ...head(STORAGE_CLASS, '4', 'api.table.list', 'A list asked for as a Table (with kubectl\'s fallback) is a meta.orch.io/v1 Table with a row per object, or the plain list', ['000-4-table-output'], 'SHOULD'),
    async run(ctx) {
      await expectTableOrList(ctx, 'meta.orch.io', 'application/json;as=Table;v=v1;g=meta.orch.io,application/json');
    },
  }),

  defineCase({
    ...head(STORAGE_CLASS, '4', 'api.media-groups.meta-k8s-io', 'kubectl\'s own Table request (g=meta.k8s.io, with its fallback) gets a meta.k8s.io Table or the plain list, not an error', ['000-4-upstream-media-groups'], 'SHOULD'),
    async run(ctx) {
      await expectTableOrList(ctx, 'meta.k8s.io', 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json');
    },
  }),
  defineCase({
    ...readOnly('4', 'SHOULD'),
    id: 'api.media-groups.apidiscovery-k8s-io',
    title: 'kubectl\'s own discovery request (g=apidiscovery.k8s.io, with its fallback) gets aggregated discovery of that group or the legacy APIGroupList, not an error',
    requirements: ['000-4-upstream-media-groups'],
    async run(ctx) {
      await expectDiscoveryAnswer(ctx, 'apidiscovery.k8s.io', 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json;q=0.9');
    },
  }),
];

/**
 * GET /apis with `accept`: either aggregated discovery of `group` (Content-Type echoing g, v and as,
 * an APIGroupDiscoveryList naming storage.orch.io) or the legacy APIGroupList as plain JSON.
 */
async function expectDiscoveryAnswer(ctx: CaseContext, group: string, accept: string): Promise<void> {
  const res = await ctx.api.get('/apis', { headers: { accept } });
  expectCode(res, 200, `GET /apis with Accept: ${accept}`);
  const type = contentType(res);
  const body = res.json;
  if (type.includes('as=apigroupdiscoverylist')) {
    expectTrue(type.startsWith('application/json') && type.includes(`g=${group}`) && /;v=v2(beta1)?(;|$)/.test(type), 'Content-Type of the aggregated answer', `application/json;g=${group};v=v2;as=APIGroupDiscoveryList`, type);
    expectEqual(body?.kind, 'APIGroupDiscoveryList', 'kind of a body served as APIGroupDiscoveryList');
    const names = (Array.isArray(body?.items) ? body.items : []).map((i: any) => i?.metadata?.name);
    expectTrue(names.includes('storage.orch.io'), 'groups of the aggregated discovery', 'storage.orch.io among them', names);
    const sc = body.items.find((i: any) => i?.metadata?.name === 'storage.orch.io');
    const resources = (sc.versions ?? []).flatMap((v: any) => v?.resources ?? []).map((r: any) => r?.resource);
    expectTrue(resources.includes('storageclasses'), 'resources of storage.orch.io in the aggregated discovery', 'storageclasses among them', resources);
    return;
  }
  // The fallback: the legacy document, labelled as plain JSON so that clients read it as such.
  expectTrue(/^application\/json(;charset=utf-8)?$/.test(type), 'Content-Type of the fallback answer', 'application/json (no as= parameter)', type);
  expectEqual(body?.kind, 'APIGroupList', 'kind of the fallback answer');
}

/** Lists storage classes with `accept`: a Table of `group` with a row for a new class, or the plain list holding it. */
async function expectTableOrList(ctx: CaseContext, group: string, accept: string): Promise<void> {
  const sc = await createStorageClass(ctx);
  const res = await ctx.api.get(SC_PATH, { headers: { accept } });
  expectCode(res, 200, `GET ${SC_PATH} with Accept: ${accept}`);
  const body = res.json;
  if (body?.kind === 'Table') {
    expectTrue(/^meta\.(orch|k8s)\.io\/v1(beta1)?$/.test(body.apiVersion) && body.apiVersion.startsWith(group), 'apiVersion of the Table', `${group}/v1`, body.apiVersion);
    const cols: unknown = body.columnDefinitions;
    expectTrue(Array.isArray(cols) && cols.length > 0 && cols.every((c: any) => typeof c?.name === 'string' && typeof c?.type === 'string'), 'columnDefinitions of the Table', 'a non-empty list of {name, type, ...}', cols);
    const rows: any[] = Array.isArray(body.rows) ? body.rows : [];
    const row = rows.find((r) => r?.object?.metadata?.name === sc.metadata.name || (Array.isArray(r?.cells) && r.cells.includes(sc.metadata.name)));
    expectTrue(!!row, 'a row for the StorageClass just created', sc.metadata.name, rows.slice(0, 5));
    expectTrue(Array.isArray(row.cells) && row.cells.length === (cols as unknown[]).length, 'cells of that row', `${(cols as unknown[]).length} cells, one per column`, row.cells);
    return;
  }
  const list = expectObject(res, [200], 'StorageClassList', 'the fallback answer (not a Table)');
  const names = (Array.isArray(list.items) ? list.items : []).map((i: any) => i?.metadata?.name);
  expectTrue(names.includes(sc.metadata.name), 'the plain list holds the StorageClass just created', sc.metadata.name, names);
}
