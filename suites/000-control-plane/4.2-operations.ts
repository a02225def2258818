// Spec 000 §4.1 and §4.2: the operations every resource supports, generated for each kind of the
// KINDS table (kinds.ts): create, read, replace, patch, delete, delete collection, list, watch, and
// the status subresource where §4.1 lists one. The kind-specific rules live in the kinds' own files.
import { defineCase, type Case, type CaseContext } from '../case.js';
import type { ApiResponse } from '../../runner/client.js';
import { eventsFor } from '../watch.js';
import { expectCode, expectEqual, expectObject, expectStatus, expectTrue, fail, SUCCESS, expectEntries } from '../verify.js';
import { collectionPath, createObject, itemPath, kindCommon, newObject, postObject, STORAGE_CLASS, type ResourceKind, withChange } from './kinds.js';
import { createStorageClass, scItem, SC_PATH } from './fixtures.js';
import { expectCollectionDeleted } from './spec-freedoms.js';

const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' };
/** Selects the objects the run created (its label on every object). */
const RUN_LABEL_SELECTOR = (ctx: CaseContext) => Object.entries(ctx.labels).map(([key, v]) => `${key}=${v}`).join(',');

/**
 * PUTs `edit` of the object at `path` as read afresh (to `path` + `suffix`, e.g. `/status`), again on a
 * conflict: a controller of the target may write the object too (a quota controller fills in a new
 * quota's status).
 */
async function putFresh(ctx: CaseContext, path: string, edit: (cur: any) => any, suffix = ''): Promise<ApiResponse> {
  for (let attempt = 1; ; attempt++) {
    const cur = await ctx.api.get(path);
    if (cur.status !== 200) return cur;
    const res = await ctx.api.put(`${path}${suffix}`, edit(cur.json));
    if (res.status !== 409 || attempt >= 5) return res;
  }
}

/** Case header fields for an operation case of kind `k`. */
function op(k: ResourceKind, id: string, requirement: string, level: 'MUST' | 'SHOULD', title: string) {
  const section = requirement.split('-')[1]!;
  return { ...kindCommon(k, 'operations'), spec: { doc: '000' as const, section }, id: `api.${k.kind.toLowerCase()}.${id}`, title: `${k.kind}: ${title}`, requirements: [requirement], level };
}


export function operationCasesFor(k: ResourceKind): Case[] {
  const cases: Case[] = [
    defineCase({
      ...op(k, 'create', '000-4.2-create', 'MUST', 'create returns 200, 201 or 202 with the stored object'),
      async run(ctx) {
        const body = newObject(ctx, k);
        const o = expectObject(await postObject(ctx, k, body), SUCCESS.create, k.kind, `POST ${collectionPath(k, ctx.namespace)}`);
        expectEqual(o.apiVersion, k.apiVersion, 'apiVersion of the created object');
        expectEqual(o.metadata?.name, body.metadata.name, 'name of the created object');
        expectEntries(o.metadata?.labels, body.metadata.labels, [], 'labels of the created object (the server may add its own)');
      },
    }),
    defineCase({
      ...op(k, 'read', '000-4.2-read', 'SHOULD', 'read by name returns the object; a missing name is 404 NotFound'),
      async run(ctx) {
        const o = await createObject(ctx, k);
        const got = expectObject(await ctx.api.get(itemPath(k, ctx.namespace, o.metadata.name)), [200], k.kind, 'GET by name');
        expectEqual(got.metadata?.uid, o.metadata.uid, 'uid of the object read back');
        expectStatus(await ctx.api.get(itemPath(k, ctx.namespace, ctx.uniqueName('missing'))), { code: 404, reason: 'NotFound' }, 'GET of a name nobody created');
      },
    }),
    defineCase({
      ...op(k, 'replace', '000-4.2-replace', 'MUST', 'replace (PUT) returns the updated object and stores it'),
      async run(ctx) {
        const o = await createObject(ctx, k);
        const put = expectObject(await putFresh(ctx, itemPath(k, ctx.namespace, o.metadata.name), (cur) => withChange(k, cur)), SUCCESS.replace, k.kind, 'PUT with a changed field');
        expectTrue(k.change.changed(put), 'the PUT response shows the change', JSON.stringify(k.change.patch), put);
        const got = expectObject(await ctx.api.get(itemPath(k, ctx.namespace, o.metadata.name)), [200], k.kind, 'read back');
        expectTrue(k.change.changed(got), 'the stored object shows the change', JSON.stringify(k.change.patch), got);
      },
    }),
    defineCase({
      ...op(k, 'patch.merge', '000-4.2-patch', 'MUST', 'a JSON merge patch returns the patched object and stores it'),
      async run(ctx) {
        const o = await createObject(ctx, k);
        const res = await ctx.api.request('PATCH', itemPath(k, ctx.namespace, o.metadata.name), { body: k.change.patch, headers: MERGE_PATCH });
        const patched = expectObject(res, SUCCESS.patch, k.kind, `PATCH (merge) ${JSON.stringify(k.change.patch)}`);
        expectTrue(k.change.changed(patched), 'the PATCH response shows the change', JSON.stringify(k.change.patch), patched);
        const got = expectObject(await ctx.api.get(itemPath(k, ctx.namespace, o.metadata.name)), [200], k.kind, 'read back');
        expectTrue(k.change.changed(got), 'the stored object shows the change', JSON.stringify(k.change.patch), got);
      },
    }),
    deleteCase(k),
    defineCase({
      ...op(k, 'list', '000-4.2-list', 'MUST', `list returns a ${k.kind}List holding the objects`),
      async run(ctx) {
        const a = await createObject(ctx, k, {}, 'a');
        const b = await createObject(ctx, k, {}, 'b');
        const list = expectObject(await ctx.api.get(collectionPath(k, ctx.namespace)), [200], `${k.kind}List`, 'GET the collection');
        const names = (Array.isArray(list.items) ? list.items : []).map((i: any) => i?.metadata?.name);
        expectTrue(names.includes(a.metadata.name) && names.includes(b.metadata.name), 'the list holds both objects just created', `${a.metadata.name} and ${b.metadata.name}`, names);
        // ListMeta's fields (resourceVersion, ...) are upstream's: the SHOULD case api.common.list.meta-fields.
      },
    }),
    defineCase({
      ...op(k, 'list.shape', '000-2.1-list-shape', 'MUST', `a list is a ${k.kind}List with apiVersion, metadata and items (an array, also when nothing matches)`),
      async run(ctx) {
        const o = await createObject(ctx, k);
        const path = collectionPath(k, ctx.namespace);
        const expectShape = (list: any, what: string) => {
          expectEqual(list.apiVersion, k.apiVersion, `${what}: apiVersion`);
          expectTrue(!!list.metadata && typeof list.metadata === 'object' && !Array.isArray(list.metadata), `${what}: metadata`, 'a ListMeta object', list.metadata);
          expectTrue(Array.isArray(list.items), `${what}: items`, 'an array', list.items);
        };
        const some = expectObject(await ctx.api.get(path, { query: { labelSelector: RUN_LABEL_SELECTOR(ctx) } }), [200], `${k.kind}List`, 'GET the collection (the run\'s objects)');
        expectShape(some, 'the list of the run\'s objects');
        expectTrue(some.items.some((i: any) => i?.metadata?.name === o.metadata.name), 'the list holds the object just created', o.metadata.name, some.items.map((i: any) => i?.metadata?.name));
        const selector = `${RUN_LABEL_SELECTOR(ctx)},conformance.orch.io/list-shape=${ctx.uniqueName('none')}`;
        const none = expectObject(await ctx.api.get(path, { query: { labelSelector: selector } }), [200], `${k.kind}List`, `GET the collection with labelSelector ${selector} (matches nothing)`);
        expectShape(none, 'the empty list');
        expectEqual(none.items.length, 0, 'number of items of a list whose selector matches nothing');
      },
    }),
    defineCase({
      ...op(k, 'watch', '000-4.2-watch', 'MUST', 'a watch streams ADDED, MODIFIED and DELETED for an object, in order'),
      async run(ctx) {
        const list = expectObject(await ctx.api.get(collectionPath(k, ctx.namespace)), [200], `${k.kind}List`, 'list before watching');
        const w = await ctx.api.watch(collectionPath(k, ctx.namespace), { resourceVersion: list.metadata?.resourceVersion });
        expectEqual(w.status, 200, 'HTTP status of the watch');
        const o = await createObject(ctx, k);
        const path = itemPath(k, ctx.namespace, o.metadata.name);
        expectObject(await putFresh(ctx, path, (cur) => withChange(k, cur)), SUCCESS.replace, k.kind, 'update');
        expectCode(await ctx.api.delete(path), [200, 202], 'delete');
        // A controller of the target may write the object too (a quota's status): its MODIFIED events
        // come between, so a run of MODIFIED events counts as one.
        const events: string[] = [];
        while (events.at(-1) !== 'DELETED' && events.length < 20) {
          const next = await eventsFor(w, o.metadata.name, 1);
          if (next.length === 0) break;
          events.push(next[0]!.type);
        }
        w.close();
        const types = events.filter((t, i) => !(t === 'MODIFIED' && events[i - 1] === 'MODIFIED'));
        expectEqual(types, ['ADDED', 'MODIFIED', 'DELETED'], `watch event types for ${o.metadata.name} (consecutive MODIFIED as one)`);
      },
    }),
  ];
  // Deleting a whole collection is only safe where the collection is the run's own namespace.
  if (k.namespaced) cases.push(deleteCollectionCase(k));
  if (k.hasStatus) cases.push(...statusCases(k));
  return cases;
}

function deleteCase(k: ResourceKind): Case {
  const [id, requirement, level, title] =
    k.deleteResponse === 'object' ? ['delete.returns-object', '000-4.2-delete-returns-resource', 'MUST', `delete returns the ${k.kind}, and it is gone`] as const
    : k.deleteResponse === 'status' ? ['delete.returns-status', '000-4.2-delete-returns-status', 'MUST', 'delete returns a Success Status, and the object is gone'] as const
    : ['delete', '000-1-operations-every-resource', 'MUST', 'delete succeeds, and the object is gone'] as const;
  return defineCase({
    ...op(k, id, requirement, level, title),
    upstreamShape: true,
    async run(ctx) {
      const o = await createObject(ctx, k);
      const path = itemPath(k, ctx.namespace, o.metadata.name);
      const res = await ctx.api.delete(path);
      if (k.deleteResponse === 'object') {
        const gone = expectObject(res, [200, 202], k.kind, 'DELETE');
        expectEqual(gone.metadata?.name, o.metadata.name, 'name of the object in the delete response');
      } else if (k.deleteResponse === 'status') {
        expectCode(res, [200, 202], 'DELETE');
        expectEqual({ kind: res.json?.kind, status: res.json?.status }, { kind: 'Status', status: 'Success' }, 'the delete response is a Success Status');
      } else {
        expectCode(res, [200, 202], 'DELETE');
      }
      expectStatus(await ctx.api.get(path), { code: 404, reason: 'NotFound' }, 'read after delete');
    },
  });
}

function deleteCollectionCase(k: ResourceKind): Case {
  return defineCase({
    ...op(k, 'delete-collection', '000-4.2-delete-collection', 'MUST', 'delete collection (in a namespace of the case\'s own) succeeds and removes every object'),
    upstreamShape: true,
    // It creates a namespace, so that the delete cannot reach anyone else's objects, nor other cases'.
    impact: 'cluster-scoped',
    async run(ctx) {
      const ns = ctx.uniqueName('dc');
      ctx.track(`/api/v1/namespaces/${ns}`);
      expectObject(await ctx.api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { ...ctx.labels } } }), SUCCESS.create, 'Namespace', 'creating a namespace of the case\'s own');
      const own = { ...ctx, namespace: ns };
      const a = await createObject(own, k, {}, 'a');
      const b = await createObject(own, k, {}, 'b');
      expectCollectionDeleted(await ctx.api.delete(collectionPath(k, ns)), `DELETE ${collectionPath(k, ns)}`);
      for (const o of [a, b]) expectStatus(await ctx.api.get(itemPath(k, ns, o.metadata.name)), { code: 404, reason: 'NotFound' }, `read ${o.metadata.name} after delete collection`);
    },
  });
}

function statusCases(k: ResourceKind): Case[] {
  const status = (ctx: any) => k.status!(ctx);
  // Read, replace and patch of status are also §1's "resources with a status subresource support them".
  const alsoSection1 = (h: ReturnType<typeof op>) => ({ ...h, requirements: [...h.requirements, '000-1-status-subresource-operations'] });
  /** PUTs a new status, with a spec change, to .../status; expects the status stored, gives the response. */
  const replaceStatus = async (ctx: CaseContext) => {
    const o = await createObject(ctx, k);
    const want = status(ctx);
    const res = await putFresh(ctx, itemPath(k, ctx.namespace, o.metadata.name), (cur) => ({ ...withChange(k, cur), status: want }), '/status');
    const put = expectObject(res, SUCCESS.replace, k.kind, 'PUT .../status with a new status and a spec change');
    for (const [key, v] of Object.entries(want)) expectEqual(put.status?.[key], v, `status.${key} after PUT .../status`);
    return put;
  };
  /** PATCHes (merge) a new status, with a spec change, to .../status; expects the status stored, gives the response. */
  const patchStatus = async (ctx: CaseContext) => {
    const o = await createObject(ctx, k);
    const want = status(ctx);
    const res = await ctx.api.request('PATCH', `${itemPath(k, ctx.namespace, o.metadata.name)}/status`, { body: { ...k.change.patch, status: want }, headers: MERGE_PATCH });
    const patched = expectObject(res, SUCCESS.patch, k.kind, 'PATCH (merge) .../status');
    for (const [key, v] of Object.entries(want)) expectEqual(patched.status?.[key], v, `status.${key} after PATCH .../status`);
    return patched;
  };
  return [
    defineCase({
      ...alsoSection1(op(k, 'status.read', '000-4.2-read-status', 'MUST', 'GET .../status returns the object')),
      async run(ctx) {
        const o = await createObject(ctx, k);
        const got = expectObject(await ctx.api.get(`${itemPath(k, ctx.namespace, o.metadata.name)}/status`), [200], k.kind, 'GET .../status');
        expectEqual(got.metadata?.name, o.metadata.name, 'name of the object read through /status');
      },
    }),
    defineCase({
      ...alsoSection1(op(k, 'status.replace', '000-4.2-replace-status', 'MUST', 'PUT .../status changes status')),
      async run(ctx) {
        await replaceStatus(ctx);
      },
    }),
    defineCase({
      ...op(k, 'status.replace.spec-ignored', '000-4.2-status-write-ignores-spec', 'SHOULD', 'PUT .../status ignores the spec changes in its body'),
      async run(ctx) {
        const put = await replaceStatus(ctx);
        expectTrue(!k.change.changed(put), 'the spec change sent through /status is ignored', 'the object without the change', put);
      },
    }),
    defineCase({
      ...alsoSection1(op(k, 'status.patch', '000-4.2-patch-status', 'MUST', 'PATCH .../status changes status')),
      async run(ctx) {
        await patchStatus(ctx);
      },
    }),
    defineCase({
      ...op(k, 'status.patch.spec-ignored', '000-4.2-status-write-ignores-spec', 'SHOULD', 'PATCH .../status ignores the spec changes in its body'),
      async run(ctx) {
        const patched = await patchStatus(ctx);
        expectTrue(!k.change.changed(patched), 'the spec change sent through /status is ignored', 'the object without the change', patched);
      },
    }),
    defineCase({
      // The spec says status is written through /status; that the main resource ignores it is upstream's.
      ...op(k, 'status.ignored-on-main', '000-4.2-status-ignored-on-main', 'SHOULD', 'status sent to the main resource is ignored (status is written through /status)'),
      async run(ctx) {
        const o = await createObject(ctx, k);
        let before = o;
        const res = await putFresh(ctx, itemPath(k, ctx.namespace, o.metadata.name), (cur) => { before = cur; return { ...cur, status: status(ctx) }; });
        const put = expectObject(res, SUCCESS.replace, k.kind, 'PUT of the main resource with a new status');
        expectEqual(put.status ?? {}, before.status ?? {}, 'status after a PUT of the main resource');
      },
    }),
  ];
}

/**
 * StorageClass served at its §4.1 collection path (the other kinds' paths are exercised by their
 * operation cases), and without a status subresource (the other kinds §4.1 lists without one have
 * theirs in their section files).
 */
export const collectionPathCases: Case[] = [
  defineCase({
    ...kindCommon(STORAGE_CLASS, 'operations'),
    spec: { doc: '000', section: '4.1' },
    level: 'MUST',
    id: 'api.storageclass.no-status-subresource',
    title: 'StorageClass has no status subresource: .../storageclasses/{name}/status is not found',
    requirements: ['000-4.1-no-status-subresource'],
    async run(ctx) {
      const sc = await createStorageClass(ctx);
      expectCode(await ctx.api.get(`${scItem(sc.metadata.name)}/status`), 404, 'GET .../storageclasses/{name}/status');
    },
  }),
  defineCase({
    ...kindCommon(STORAGE_CLASS, 'operations'),
    spec: { doc: '000', section: '4.1' },
    level: 'MUST',
    id: 'api.storageclass.collection-path',
    title: 'StorageClasses are served at /apis/storage.orch.io/v1/storageclasses',
    requirements: ['000-4.1-storageclass-path'],
    async run(ctx) {
      const sc = await createStorageClass(ctx);
      expectObject(await ctx.api.get(SC_PATH), [200], 'StorageClassList', `GET ${SC_PATH}`);
      const got = expectObject(await ctx.api.get(scItem(sc.metadata.name)), [200], 'StorageClass', `GET ${SC_PATH}/{name}`);
      if (got.metadata?.name !== sc.metadata.name) fail('name of the object read at the item path', sc.metadata.name, got.metadata?.name);
    },
  }),
];
