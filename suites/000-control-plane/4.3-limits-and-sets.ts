// Spec 000 rows that are left after the list, watch, delete and write-parameter files: the
// collection-delete query set (§4.3), the permissive limit rules (a server may return fewer items
// or ignore limit: only `continue` says whether more exist), resourceVersion without
// resourceVersionMatch (§4.3, recommended, not required), bookmarks at the server's discretion,
// fieldValidation on server-side apply bodies (§4.3: PATCH bodies), what a delete collection
// answers (§4.2), delete collection of cluster role bindings (§4.2), and Events as ordinary stored
// objects (§6).
import { defineCase, type Case, type CaseContext } from '../case.js';
import type { ApiResponse } from '../../runner/client.js';
import { expectCode, expectEqual, expectObject, expectTrue, fail, show, SUCCESS, expectRefused } from '../verify.js';
import { collectionPath, createObject, itemPath, newObject, postObject } from './kinds.js';
import { EVENT, microNow } from './kinds-quota-events.js';
import { CLUSTER_ROLE_BINDING } from './kinds-rbac.js';
import { scItem } from './fixtures.js';
import { expectNoFieldWarnings, expectWarnings } from './4.3-write-params.js';
import { expectCollectionDeleted, skipUnsupportedPatch } from './spec-freedoms.js';
import { brief, createRoleSet, createSetRole, listAllPages, listRoles, namesOf, openWatch, readEvents, roleItem, roles, skipUnchunked, type RoleSet } from './list-watch-common.js';

const base = { spec: { doc: '000', section: '4.3' }, impact: 'namespaced', needs: ['api'] } as const;
const s42 = { doc: '000', section: '4.2' } as const;

const sorted = (xs: string[]): string[] => [...xs].sort();

/** Every item of a paged list appears exactly once and the pages hold exactly the set. */
function expectEachOnce(items: any[], set: RoleSet, what: string): void {
  const names: string[] = items.map((i) => i?.metadata?.name);
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  if (twice.length) fail(`${what}: no object comes twice`, 'each object once', `repeated: ${show(twice)} (all: ${show(names)})`);
  expectEqual(sorted(names), set.names, `${what}: the objects over all pages`);
}

/**
 * Checks before a delete collection that a list with the same selector selects exactly the set:
 * a server that ignored the selector would otherwise delete other cases' objects.
 */
async function expectSelectsOnly(ctx: CaseContext, path: string, selector: string, want: string[]): Promise<void> {
  const l = await ctx.api.get(path, { query: { labelSelector: selector } });
  expectCode(l, 200, `GET ${path}?labelSelector=${selector} (checking the selection before deleting anything)`);
  expectEqual(sorted(namesOf(l.json)), sorted(want), `objects a list with labelSelector=${selector} selects (nothing is deleted unless it is exactly these)`);
}

async function expectStored(ctx: CaseContext, path: string, kind: string, what: string): Promise<void> {
  expectObject(await ctx.api.get(path), [200], kind, what);
}

async function expectGone(ctx: CaseContext, path: string, what: string): Promise<void> {
  const res = await ctx.api.get(path);
  if (res.status !== 404) fail(what, `HTTP 404 on GET ${path}`, `HTTP ${res.status}`);
}

/** A resourceVersion as a number when it is a decimal integer (etcd-style); undefined otherwise. */
const rvNumber = (rv: unknown): number | undefined => (typeof rv === 'string' && /^\d+$/.test(rv) ? Number(rv) : undefined);

// ---------------------------------------------------------------- apply with fieldValidation
const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const UNKNOWN = 'conformanceUnknownField';

/**
 * An apply configuration of a new StorageClass as YAML with `provisioner` twice (first, then last)
 * and a field no kind has.
 */
function applyProblemBody(ctx: CaseContext, hint: string): { name: string; yaml: string } {
  const name = ctx.uniqueName(hint);
  ctx.track(scItem(name));
  const labels = Object.entries(ctx.labels).map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)}\n`).join('');
  const yaml =
    'apiVersion: storage.orch.io/v1\nkind: StorageClass\n' +
    `metadata:\n  name: ${name}\n  labels:\n${labels}` +
    'provisioner: first.orch.io/x\nprovisioner: last.orch.io/x\n' +
    `${UNKNOWN}: dropped\n`;
  return { name, yaml };
}

function applyWith(ctx: CaseContext, name: string, yaml: string, fieldValidation: string): Promise<ApiResponse> {
  return ctx.api.request('PATCH', scItem(name), { body: yaml, headers: APPLY, query: { fieldManager: 'conformance-suite', fieldValidation } });
}

const APPLY_PROBLEMS = ['duplicate field "provisioner"', `unknown field "${UNKNOWN}"`];
/** Why an apply case skips on a target without apply: fieldValidation itself is checked on merge patches too. */
const APPLY_ONLY = 'fieldValidation on apply bodies (checked on merge patches by api.write-params.field-validation.*.patch)';

export const limitsAndSetsCases: Case[] = [
  // ---------------------------------------------------------------- collection-delete set
  defineCase({
    ...base,
    suite: 'delete',
    level: 'MUST',
    id: 'api.delete.collection.query-set',
    upstreamShape: true,
    title: 'Delete collection accepts the collection-delete query set (pretty, continue, dryRun, selectors, limit, resourceVersion(Match), timeoutSeconds, ...)',
    requirements: ['000-4.3-collection-delete-set'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 3);
      await expectSelectsOnly(ctx, roles(ctx), set.selector, set.names);
      const fullRange = "shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')";
      // Members that cannot go together (§7, ground truth) are sent in separate dry runs:
      // continue excludes resourceVersion, orphanDependents excludes propagationPolicy.
      const dryRuns: Array<Record<string, string | number>> = [
        {
          pretty: 'true', dryRun: 'All', labelSelector: set.selector, fieldSelector: `metadata.namespace=${ctx.namespace}`, gracePeriodSeconds: 0,
          ignoreStoreReadErrorWithClusterBreakingPotential: 'false', limit: 10, orphanDependents: 'false', resourceVersion: '0',
          resourceVersionMatch: 'NotOlderThan', shardSelector: fullRange, timeoutSeconds: 30,
        },
      ];
      // continue needs a token of a list with the same parameters (a server that ignores limit has none).
      const page = await listRoles(ctx, { labelSelector: set.selector, limit: 1 }, 'list with limit=1 for a continue token');
      const token: string | undefined = page.metadata?.continue || undefined;
      dryRuns.push({ dryRun: 'All', labelSelector: set.selector, limit: 1, ...(token ? { continue: token } : {}), propagationPolicy: 'Background' });
      for (const query of dryRuns) {
        const res = await ctx.api.delete(roles(ctx), { query });
        expectCollectionDeleted(res, `DELETE ${roles(ctx)}?${new URLSearchParams(query as Record<string, string>)}`);
      }
      for (const n of set.names) await expectStored(ctx, roleItem(ctx, n), 'Role', `${n} after the dry-run deletes`);
      // sendInitialEvents is a member too, but it only has a meaning on a watch: a server may take
      // it, or refuse it as ListOptions validation does for lists (422 naming the field).
      const sie = await ctx.api.delete(roles(ctx), { query: { dryRun: 'All', labelSelector: set.selector, sendInitialEvents: 'false' } });
      if (sie.status < 200 || sie.status >= 300) await expectRefused(ctx.api, sie, { code: 422, reason: 'Invalid', causes: [{ field: 'sendInitialEvents' }] }, 'DELETE of the collection with sendInitialEvents=false (taken, or refused as for a list)');
      const res = await ctx.api.delete(roles(ctx), { query: { labelSelector: set.selector, gracePeriodSeconds: 0, propagationPolicy: 'Background' } });
      expectCollectionDeleted(res, `DELETE ${roles(ctx)}?labelSelector=...&gracePeriodSeconds=0&propagationPolicy=Background`);
      for (const n of set.names) await expectGone(ctx, roleItem(ctx, n), `${n} after the delete collection`);
    },
  }),

  // ---------------------------------------------------------------- limit: fewer items, ignored
  defineCase({
    ...base,
    suite: 'list',
    level: 'SHOULD',
    id: 'api.list.limit.fewer-items',
    title: 'A chunk may hold fewer items than limit; following continue until it is absent still yields every object exactly once',
    requirements: ['000-4.3-limit-fewer-items'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 5);
      const { pages, items } = await listAllPages(ctx, { labelSelector: set.selector, limit: 2 }, 'paged list with limit=2');
      if (pages.length === 1) skipUnchunked(pages[0], set, 'chunks of fewer items than limit', 2);
      pages.forEach((p, i) => expectTrue((p.items ?? []).length <= 2, `items in chunk ${i + 1} (limit=2)`, 'at most 2', `${(p.items ?? []).length}`));
      expectEachOnce(items, set, 'paged list with limit=2');
    },
  }),
  defineCase({
    ...base,
    suite: 'list',
    level: 'SHOULD',
    id: 'api.list.limit.ignored',
    title: 'A server may ignore limit: a first page without continue is the whole list, and one with continue pages on without repeats',
    requirements: ['000-4.3-limit-may-ignore'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 3);
      const first = await listRoles(ctx, { labelSelector: set.selector, limit: 1 }, 'list with limit=1');
      if (!first.metadata?.continue) return expectEachOnce(first.items ?? [], set, 'a first page without continue (limit ignored)');
      const { items } = await listAllPages(ctx, { labelSelector: set.selector, limit: 1 }, 'paged list with limit=1');
      expectEachOnce(items, set, 'paged list with limit=1');
    },
  }),

  // ---------------------------------------------------------------- resourceVersion without match
  defineCase({
    ...base,
    suite: 'list',
    level: 'SHOULD',
    id: 'api.list.resource-version.without-match',
    title: 'resourceVersion without resourceVersionMatch (recommended, not required) is served: 0 and a current version both answer the list',
    requirements: ['000-4.3-resource-version-match-recommended'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 2);
      const any = await listRoles(ctx, { labelSelector: set.selector, resourceVersion: '0' }, 'list with resourceVersion=0 and no resourceVersionMatch');
      expectTrue(namesOf(any).every((n) => set.names.includes(n)), 'objects of the list with resourceVersion=0', `some of ${show(set.names)}`, show(namesOf(any)));
      expectCode(await ctx.api.delete(roleItem(ctx, set.names[1]!)), [200, 202], `deleting ${set.names[1]}`);
      const rv = (await listRoles(ctx, { labelSelector: set.selector }, 'list for a current resourceVersion')).metadata?.resourceVersion;
      const l = await listRoles(ctx, { labelSelector: set.selector, resourceVersion: rv }, `list with resourceVersion=${rv} and no resourceVersionMatch`);
      expectEqual(namesOf(l), [set.names[0]], `objects at least as new as ${rv} (${set.names[1]} was deleted before it)`);
    },
  }),

  // ---------------------------------------------------------------- bookmarks at discretion
  defineCase({
    ...base,
    suite: 'watch',
    level: 'SHOULD',
    id: 'api.watch.bookmarks.discretion',
    title: 'With allowWatchBookmarks, bookmarks (if any) carry a resourceVersion that never goes back, and every change still arrives',
    requirements: ['000-4.3-allow-watch-bookmarks-discretion'],
    async run(ctx) {
      const setId = ctx.uniqueName('set');
      const selector = `list.conformance.orch.io/set=${setId}`;
      const rv = (await listRoles(ctx, { labelSelector: selector }, 'list for a resourceVersion')).metadata?.resourceVersion;
      const w = await openWatch(ctx, { labelSelector: selector, resourceVersion: rv, allowWatchBookmarks: 'true' }, 'watch with allowWatchBookmarks=true');
      const created: string[] = [];
      try {
        for (let i = 0; i < 3; i++) created.push((await createSetRole(ctx, setId)).metadata.name);
        const evs = await readEvents(w, (_e, seen) => seen.filter((e) => e.type === 'ADDED').length >= 3);
        // A little longer, for bookmarks a server sends on its own schedule.
        evs.push(...(await readEvents(w, () => false, 1500)));
        expectEqual(evs.filter((e) => e.type === 'ADDED').map((e) => e.object?.metadata?.name), created, `ADDED events (stream: ${brief(evs)})`);
        let last = rvNumber(rv);
        for (const e of evs) {
          const erv = e.object?.metadata?.resourceVersion;
          if (e.type === 'BOOKMARK') expectTrue(typeof erv === 'string' && erv !== '', 'metadata.resourceVersion of a BOOKMARK', 'a non-empty string', erv);
          const n = rvNumber(erv);
          // Versions are opaque; an order is only checked when they are decimal integers, as etcd's are.
          if (n === undefined || last === undefined) continue;
          if (e.type === 'BOOKMARK') expectTrue(n >= last, 'resourceVersion of a BOOKMARK', `at least ${last} (the newest seen before it)`, `${n} (stream: ${brief(evs)})`);
          last = Math.max(last, n);
        }
      } finally {
        w.close();
      }
    },
  }),

  // ---------------------------------------------------------------- fieldValidation on apply
  defineCase({
    ...base,
    impact: 'cluster-scoped',
    suite: 'write-params',
    level: 'MUST',
    id: 'api.write-params.field-validation.apply.strict',
    upstreamShape: true,
    title: 'server-side apply with fieldValidation=Strict and unknown or duplicate fields is refused naming them; nothing is created',
    requirements: ['000-4.3-field-validation-strict', '000-7-field-validation-strict'],
    async run(ctx) {
      const b = applyProblemBody(ctx, 'fas');
      const res = await applyWith(ctx, b.name, b.yaml, 'Strict');
      skipUnsupportedPatch(res, APPLY['content-type'], APPLY_ONLY);
      // BadRequest per the spec; upstream answers some patches with 422 Invalid: either refuses. "The
      // error lists all of them" (§7): named anywhere in the error's body, not only in a Status message.
      const want = res.status === 422 ? { code: 422, reason: 'Invalid' } : { code: 400, reason: 'BadRequest' };
      await expectRefused(ctx.api, res, { ...want, spec: { names: ['provisioner', UNKNOWN] } }, 'apply with fieldValidation=Strict, an unknown field and provisioner twice');
      await expectGone(ctx, scItem(b.name), 'the StorageClass after the refused apply');
    },
  }),
  defineCase({
    ...base,
    impact: 'cluster-scoped',
    suite: 'write-params',
    level: 'MUST',
    id: 'api.write-params.field-validation.apply.warn',
    title: 'server-side apply with fieldValidation=Warn succeeds with a warning per unknown and duplicate field, the last duplicate kept',
    requirements: ['000-4.3-field-validation-warn', '000-7-field-validation-warn'],
    async run(ctx) {
      const b = applyProblemBody(ctx, 'faw');
      const res = await applyWith(ctx, b.name, b.yaml, 'Warn');
      skipUnsupportedPatch(res, APPLY['content-type'], APPLY_ONLY);
      const o = expectObject(res, SUCCESS.patch, 'StorageClass', 'apply with fieldValidation=Warn, an unknown field and provisioner twice');
      expectWarnings(res, APPLY_PROBLEMS, 'Warning headers of the response');
      expectEqual(o.provisioner, 'last.orch.io/x', 'provisioner (sent first.orch.io/x, then last.orch.io/x)');
      expectEqual(o[UNKNOWN], undefined, 'the unknown field in the applied object');
    },
  }),
  defineCase({
    ...base,
    impact: 'cluster-scoped',
    suite: 'write-params',
    level: 'MUST',
    id: 'api.write-params.field-validation.apply.ignore',
    title: 'server-side apply with fieldValidation=Ignore drops unknown fields and keeps the last duplicate, silently',
    requirements: ['000-4.3-field-validation-ignore'],
    async run(ctx) {
      const b = applyProblemBody(ctx, 'fai');
      const res = await applyWith(ctx, b.name, b.yaml, 'Ignore');
      skipUnsupportedPatch(res, APPLY['content-type'], APPLY_ONLY);
      const o = expectObject(res, SUCCESS.patch, 'StorageClass', 'apply with fieldValidation=Ignore, an unknown field and provisioner twice');
      expectNoFieldWarnings(res, ['provisioner', UNKNOWN], 'Warning headers of the response');
      expectEqual(o.provisioner, 'last.orch.io/x', 'provisioner (sent first.orch.io/x, then last.orch.io/x)');
      expectEqual(o[UNKNOWN], undefined, 'the unknown field in the applied object');
    },
  }),

  // ---------------------------------------------------------------- delete collection (§4.2)
  defineCase({
    ...base,
    spec: s42,
    suite: 'delete',
    level: 'SHOULD',
    id: 'api.delete.collection.response',
    title: 'Delete collection answers 200 with the list of deleted items or a Success Status',
    requirements: ['000-4.2-delete-collection-response'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 2);
      await expectSelectsOnly(ctx, roles(ctx), set.selector, set.names);
      const res = await ctx.api.delete(roles(ctx), { query: { labelSelector: set.selector } });
      expectCode(res, 200, `DELETE ${roles(ctx)}?labelSelector=${set.selector}`);
      const body = res.json;
      if (body?.kind === 'Status') expectEqual(body.status, 'Success', 'status of the Status answering the delete collection');
      else {
        expectEqual(body?.kind, 'RoleList', 'kind of the body (a list of the deleted items, or a Status)');
        expectEqual(sorted(namesOf(body)), set.names, 'items of the returned list (the deleted objects)');
      }
    },
  }),
  defineCase({
    ...base,
    spec: s42,
    impact: 'cluster-scoped',
    suite: 'rbac',
    level: 'MUST',
    id: 'api.rbac.clusterrolebindings.delete-collection',
    title: 'DELETE of the clusterrolebindings collection deletes the selected bindings (200 Status) and leaves the others',
    requirements: ['000-4.2-clusterrolebindings-delete-collection'],
    async run(ctx) {
      const label = 'conformance.orch.io/delete-group';
      const group = ctx.uniqueName('g');
      const mk = async (value: string): Promise<string> => {
        const body = newObject(ctx, CLUSTER_ROLE_BINDING, {}, 'crb');
        body.metadata.labels[label] = value;
        return expectObject(await postObject(ctx, CLUSTER_ROLE_BINDING, body), SUCCESS.create, 'ClusterRoleBinding', `creating a ClusterRoleBinding labelled ${label}=${value}`).metadata.name;
      };
      const selected = [await mk(group), await mk(group)];
      const other = await mk(`${group}-other`);
      const col = collectionPath(CLUSTER_ROLE_BINDING, '');
      const selector = `${label}=${group}`;
      await expectSelectsOnly(ctx, col, selector, selected);
      const res = await ctx.api.delete(col, { query: { labelSelector: selector } });
      expectCode(res, 200, `DELETE ${col}?labelSelector=${selector}`);
      expectEqual(res.json?.kind, 'Status', 'kind of the body (spec §4.2: a Status)');
      for (const n of selected) await expectGone(ctx, itemPath(CLUSTER_ROLE_BINDING, '', n), `${n} (selected) after the delete collection`);
      await expectStored(ctx, itemPath(CLUSTER_ROLE_BINDING, '', other), 'ClusterRoleBinding', `${other} (not selected) after the delete collection`);
    },
  }),

  // ---------------------------------------------------------------- Events are ordinary (§6)
  defineCase({
    ...base,
    spec: { doc: '000', section: '6' },
    suite: 'event',
    level: 'MUST',
    id: 'api.event.ordinary-object',
    title: 'An Event is an ordinary stored object: create, read, list, watch (ADDED, MODIFIED, DELETED), update and delete',
    requirements: ['000-6-event-resources-ordinary'],
    async run(ctx) {
      const tag = ctx.uniqueName('ev');
      const selector = `conformance.orch.io/event-set=${tag}`;
      const col = collectionPath(EVENT, ctx.namespace);
      const rv = expectObject(await ctx.api.get(col, { query: { labelSelector: selector } }), [200], 'EventList', 'list of Events for a resourceVersion').metadata?.resourceVersion;
      const w = await openWatch(ctx, { labelSelector: selector, resourceVersion: rv }, 'watch of Events', col);
      try {
        const created = await createObject(ctx, EVENT, { metadata: { name: ctx.uniqueName('ev'), labels: { ...ctx.labels, 'conformance.orch.io/event-set': tag } } });
        const path = itemPath(EVENT, ctx.namespace, created.metadata.name);
        const read = expectObject(await ctx.api.get(path), [200], 'Event', 'reading the Event back');
        expectEqual(read.metadata?.uid, created.metadata.uid, 'uid of the Event read back');
        const listed = expectObject(await ctx.api.get(col, { query: { labelSelector: selector } }), [200], 'EventList', 'list of the Events');
        expectEqual(namesOf(listed), [created.metadata.name], 'Events listed');
        // After creation only series may change (events/v1 update validation).
        const series = { count: 2, lastObservedTime: microNow() };
        const patched = expectObject(await ctx.api.request('PATCH', path, { body: { series }, headers: { 'content-type': 'application/merge-patch+json' } }), SUCCESS.patch, 'Event', 'merge patch of series');
        expectEqual(patched.series?.count, 2, 'series.count after the patch');
        expectCode(await ctx.api.delete(path), [200, 202], 'deleting the Event');
        await expectGone(ctx, path, 'the Event after its delete');
        const evs = await readEvents(w, (e) => e.type === 'DELETED');
        // BOOKMARKs (a server may send them at its discretion) are not changes: not counted.
        expectEqual(evs.filter((e) => e.type !== 'BOOKMARK').map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED'], `watch events of the Event (stream: ${brief(evs)})`);
      } finally {
        w.close();
      }
    },
  }),
];
