// Spec 000 §4.3 (and §7): the list parameters — label and field selectors, limit and continue
// (chunks from one consistent snapshot), resourceVersion and resourceVersionMatch, pretty, the
// shard selector — each case on Roles of its own in the run's namespace, isolated by a label.
import { noteMay, upstream } from '../findings.js';
import { defineCase, type Case } from '../case.js';
import { expectCode, expectEqual, expectSameMembers, expectStatus, expectTrue, fail, show, skip, expectRefused } from '../verify.js';
import { EVENT } from './kinds-quota-events.js';
import { collectionPath, createObject } from './kinds.js';
import {
  continueFrom,
  continueOf,
  createRoleSet,
  createSetRole,
  isRefusal,
  listAllPages,
  listRoles,
  namesOf,
  relabel,
  roleItem,
  roles,
  SET_LABEL,
  tryWatch,
  readEvents,
  brief,
  skipUnchunked,
} from './list-watch-common.js';

const common = { suite: 'list', spec: { doc: '000', section: '4.3' }, impact: 'namespaced', needs: ['api'] } as const;
const MUST = { ...common, level: 'MUST' } as const;
const SHOULD = { ...common, level: 'SHOULD' } as const;

const sorted = (xs: string[]): string[] => [...xs].sort();

/** A three-Role set: tier=a, tier=b, and one without the label (in name order). */
async function tiers(ctx: Parameters<Case['run']>[0]) {
  const set = await createRoleSet(ctx, 3, (i): Record<string, string> => (i === 0 ? { tier: 'a' } : i === 1 ? { tier: 'b' } : {}));
  const [a, b, none] = set.names as [string, string, string];
  return { set, a, b, none };
}

/** Lists the set with an extra label requirement and checks which of its objects come back. */
async function expectSelected(ctx: Parameters<Case['run']>[0], setSelector: string, extra: string, want: string[]): Promise<void> {
  const l = await listRoles(ctx, { labelSelector: `${setSelector},${extra}` }, `list with labelSelector ${JSON.stringify(extra)}`);
  expectEqual(sorted(namesOf(l)), sorted(want), `objects selected by ${JSON.stringify(extra)}`);
}

/** A syntactically valid continue token of the upstream form, for parameters that must not act on it. */
const SYNTHETIC_CONTINUE = Buffer.from(JSON.stringify({ v: 'meta.orch.io/v1', rv: 1, start: 'x\u0000' })).toString('base64url');

const LOWER_HALF = (path: string) => `shardRange(${path}, '0x0000000000000000', '0x8000000000000000')`;
const UPPER_HALF = (path: string) => `shardRange(${path}, '0x8000000000000000', '0x10000000000000000')`;

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
/** FNV-1a 64 over the UTF-8 bytes of `s`: what shardRange hashes. */
export function fnv1a64(s: string): bigint {
  let h = FNV_OFFSET;
  for (const b of Buffer.from(s, 'utf8')) h = ((h ^ BigInt(b)) * FNV_PRIME) & 0xffffffffffffffffn;
  return h;
}
const HALF = 0x8000000000000000n;
const SHARD_GATE = { ShardedListAndWatch: true } as const;

export const listCases: Case[] = [
  // ------------------------------------------------------------------ labelSelector
  defineCase({
    ...MUST,
    id: 'api.list.label-selector.equals',
    title: 'labelSelector `key=value` and `key==value` select exactly the objects with that label value',
    requirements: ['000-4.3-label-selector'],
    async run(ctx) {
      const { set, a } = await tiers(ctx);
      await expectSelected(ctx, set.selector, 'tier=a', [a]);
      await expectSelected(ctx, set.selector, 'tier==a', [a]);
    },
  }),
  defineCase({
    ...SHOULD,
    id: 'api.list.label-selector.not-equals',
    title: 'labelSelector `key!=value` selects objects with another value and objects without the label',
    // "Also true without the key" is upstream's selector semantics; the spec only says labelSelector restricts.
    requirements: ['000-4.3-label-selector-syntax'],
    async run(ctx) {
      const { set, b, none } = await tiers(ctx);
      await expectSelected(ctx, set.selector, 'tier!=a', [b, none]);
    },
  }),
  defineCase({
    ...MUST,
    id: 'api.list.label-selector.in',
    title: 'labelSelector `key in (v1,v2)` selects the objects whose label has one of the values',
    requirements: ['000-4.3-label-selector'],
    async run(ctx) {
      const { set, a, b } = await tiers(ctx);
      await expectSelected(ctx, set.selector, 'tier in (a,b)', [a, b]);
      await expectSelected(ctx, set.selector, 'tier in (b)', [b]);
    },
  }),
  defineCase({
    ...SHOULD,
    id: 'api.list.label-selector.notin',
    title: 'labelSelector `key notin (v)` selects objects with other values and objects without the label',
    // "Also true without the key" is upstream's selector semantics; the spec only says labelSelector restricts.
    requirements: ['000-4.3-label-selector-syntax'],
    async run(ctx) {
      const { set, b, none } = await tiers(ctx);
      await expectSelected(ctx, set.selector, 'tier notin (a)', [b, none]);
    },
  }),
  defineCase({
    ...MUST,
    id: 'api.list.label-selector.exists',
    title: 'labelSelector `key` selects the objects that have the label, whatever its value',
    requirements: ['000-4.3-label-selector'],
    async run(ctx) {
      const { set, a, b } = await tiers(ctx);
      await expectSelected(ctx, set.selector, 'tier', [a, b]);
    },
  }),
  defineCase({
    ...MUST,
    id: 'api.list.label-selector.does-not-exist',
    title: 'labelSelector `!key` selects the objects without the label',
    requirements: ['000-4.3-label-selector'],
    async run(ctx) {
      const { set, none } = await tiers(ctx);
      await expectSelected(ctx, set.selector, '!tier', [none]);
    },
  }),
  defineCase({
    ...MUST,
    id: 'api.list.label-selector.and',
    title: 'labelSelector requirements joined by `,` must all hold',
    requirements: ['000-4.3-label-selector'],
    async run(ctx) {
      const { set, a } = await tiers(ctx);
      await expectSelected(ctx, set.selector, 'tier in (a,b),tier!=b', [a]);
    },
  }),
  defineCase({
    ...SHOULD,
    id: 'api.list.label-selector.malformed',
    title: 'A malformed labelSelector is refused with 400 BadRequest',
    requirements: ['000-4.3-label-selector-invalid'],
    async run(ctx) {
      for (const bad of ['tier in (a', 'tier=a b', 'a$b=c']) {
        expectStatus(await ctx.api.get(roles(ctx), { query: { labelSelector: bad } }), { code: 400, reason: 'BadRequest' }, `list with labelSelector ${JSON.stringify(bad)}`);
      }
    },
  }),

  // ------------------------------------------------------------------ fieldSelector
  defineCase({
    ...MUST,
    id: 'api.list.field-selector.name',
    title: 'fieldSelector on metadata.name (`=`, `==`, `!=`) selects by name',
    requirements: ['000-4.3-field-selector'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 2);
      const [n0, n1] = set.names as [string, string];
      for (const [sel, want] of [[`metadata.name=${n0}`, [n0]], [`metadata.name==${n1}`, [n1]], [`metadata.name!=${n0}`, [n1]]] as const) {
        const l = await listRoles(ctx, { labelSelector: set.selector, fieldSelector: sel }, `list with fieldSelector ${sel}`);
        expectEqual(sorted(namesOf(l)), [...want], `objects selected by fieldSelector ${sel}`);
      }
    },
  }),
  defineCase({
    ...SHOULD,
    id: 'api.list.field-selector.namespace',
    title: 'fieldSelector on metadata.namespace restricts a list across all namespaces',
    // Which fields a kind supports is upstream's (metadata.namespace on every namespaced kind).
    requirements: ['000-4.3-field-selector-syntax'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 2);
      const all = '/apis/rbac.authorization.orch.io/v1/roles';
      const inNs = await listRoles(ctx, { labelSelector: set.selector, fieldSelector: `metadata.namespace=${ctx.namespace}` }, 'list of all namespaces with metadata.namespace=<run namespace>', all);
      expectEqual(sorted(namesOf(inNs)), set.names, 'objects in the run namespace');
      const elsewhere = await listRoles(ctx, { labelSelector: set.selector, fieldSelector: `metadata.namespace!=${ctx.namespace}` }, 'list of all namespaces with metadata.namespace!=<run namespace>', all);
      expectEqual(namesOf(elsewhere), [], 'objects outside the run namespace');
    },
  }),
  defineCase({
    ...SHOULD,
    id: 'api.list.field-selector.event-fields',
    title: 'fieldSelector supports a kind\'s own fields: Events by reason',
    requirements: ['000-4.3-field-selector-kind-fields'],
    async run(ctx) {
      const setId = ctx.uniqueName('set');
      const mk = (reason: string) => createObject(ctx, EVENT, { metadata: { name: ctx.uniqueName('ev'), labels: { ...ctx.labels, [SET_LABEL]: setId } }, reason });
      const first = await mk('ConformanceFirst');
      await mk('ConformanceSecond');
      const res = await ctx.api.get(collectionPath(EVENT, ctx.namespace), { query: { labelSelector: `${SET_LABEL}=${setId}`, fieldSelector: 'reason=ConformanceFirst' } });
      expectCode(res, 200, 'list of Events with fieldSelector reason=ConformanceFirst');
      expectEqual(namesOf(res.json), [first.metadata.name], 'Events selected by reason');
    },
  }),
  defineCase({
    ...SHOULD,
    id: 'api.list.field-selector.unsupported',
    title: 'A fieldSelector on a field the kind does not support is refused with 400 BadRequest',
    requirements: ['000-4.3-field-selector-unsupported'],
    async run(ctx) {
      expectStatus(await ctx.api.get(roles(ctx), { query: { fieldSelector: 'spec.nothing=x' } }), { code: 400, reason: 'BadRequest' }, 'list with fieldSelector spec.nothing=x');
    },
  }),

  // ------------------------------------------------------------------ limit and continue
  defineCase({
    ...MUST,
    id: 'api.list.limit.max-items',
    title: 'A list with limit=1 returns at most one item per call (or, ignoring limit, everything at once)',
    requirements: ['000-4.3-limit-max-items'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 3);
      const page = await listRoles(ctx, { labelSelector: set.selector, limit: 1 }, 'list with limit=1');
      if (!continueOf(page)) skipUnchunked(page, set, 'the item limit of a chunk');
      const n = namesOf(page).length;
      expectTrue(n <= 1, 'items in a chunk of a list with limit=1', 'at most 1', `${n} items`);
    },
  }),
  defineCase({
    ...MUST,
    id: 'api.list.limit.continue-chain',
    title: 'Following continue from a list with limit=1 yields every object once, and the last chunk has no continue',
    requirements: ['000-4.3-limit-continue-present', '000-4.3-continue-token'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 3);
      const { pages, items } = await listAllPages(ctx, { labelSelector: set.selector, limit: 1 }, 'paged list with limit=1');
      if (pages.length === 1) skipUnchunked(pages[0], set, 'continuing a chunked list');
      // Chunks may hold fewer items than limit (even none) and come in any order: the whole walk
      // must give every object exactly once.
      expectSameMembers(items.map((i) => i?.metadata?.name), set.names, 'objects over all chunks, each once');
      expectEqual(pages[pages.length - 1]?.metadata?.continue ?? '', '', 'continue of the last chunk');
    },
  }),
  defineCase({
    ...MUST,
    id: 'api.list.limit.consistent-snapshot',
    title: 'Chunks after the first come from its snapshot: later creates, updates and deletes do not show',
    requirements: ['000-4.3-limit-consistent-snapshot'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 3);
      const query = { labelSelector: set.selector, limit: 1 };
      const first = await listRoles(ctx, query, 'first chunk (limit=1)');
      if (!continueOf(first)) skipUnchunked(first, set, 'the snapshot of later chunks');
      // Changes to objects the first chunk did not hold (it may hold any, or none), and a new one
      // whose name sorts after the set's (not yet listed in name order).
      const unseen = set.objects.filter((o) => !namesOf(first).includes(o.metadata.name));
      const [deleted, updated] = unseen as Array<any | undefined>;
      const last = set.names[set.names.length - 1]!;
      const late = await createSetRole(ctx, set.id, {}, last.length < 63 ? `${last}z` : undefined);
      if (updated) await relabel(ctx, updated, { touched: 'yes' });
      if (deleted) expectCode(await ctx.api.delete(roleItem(ctx, deleted.metadata.name)), [200, 202], `deleting ${deleted.metadata.name} between chunks`);
      const rest = await continueFrom(ctx, query, continueOf(first), 'later chunks', 50, 2);
      const all = [...(first.items ?? []), ...rest.items];
      const since = `${late.metadata.name} created${deleted ? ` and ${deleted.metadata.name} deleted` : ''} after it`;
      expectSameMembers(all.map((o) => o?.metadata?.name), set.names, `objects over all chunks: the set as at the first chunk (${since})`);
      if (updated) {
        const seen = rest.items.find((o) => o?.metadata?.name === updated.metadata.name);
        expectEqual(seen?.metadata?.labels?.touched, undefined, `${updated.metadata.name} as it was at the first chunk (updated since)`);
      }
    },
  }),
  defineCase({
    ...SHOULD,
    id: 'api.list.limit.remaining-item-count',
    title: 'Chunks of a list without selectors carry remainingItemCount: the objects after them in the snapshot',
    requirements: ['000-4.3-limit-remaining-item-count'],
    async run(ctx) {
      await createRoleSet(ctx, 3);
      // Chunks of about a third of the namespace's Roles (other cases of the run add theirs): a
      // few pages, however many Roles there are, keep the case quick on a slow target.
      const all = await listRoles(ctx, {}, 'list of the namespace\'s Roles, to size the chunks');
      const limit = Math.max(2, Math.ceil((all.items?.length ?? 0) / 3));
      const { pages } = await listAllPages(ctx, { limit }, `paged list of the namespace's Roles with limit=${limit}`, 200);
      if (pages.length === 1) skip('the server ignored limit (one list without continue), so no chunk carries remainingItemCount');
      const sizes = pages.map((p) => (p.items ?? []).length);
      pages.forEach((p, i) => {
        if (!p.metadata?.continue) return;
        const after = sizes.slice(i + 1).reduce((a, b) => a + b, 0);
        expectEqual(p.metadata.remainingItemCount, after, `remainingItemCount of chunk ${i + 1} (items in the chunks after it)`);
      });
    },
  }),
  defineCase({
    ...MUST,
    id: 'api.list.limit.not-with-watch',
    title: 'limit on a watch is refused or has no effect: the stream is not cut after `limit` events',
    requirements: ['000-4.3-limit-not-with-watch'],
    async run(ctx) {
      const setId = ctx.uniqueName('set');
      const rv = (await listRoles(ctx, {}, 'list for a resourceVersion')).metadata?.resourceVersion;
      const attempt = await tryWatch(ctx, { limit: 1, resourceVersion: rv, labelSelector: `${SET_LABEL}=${setId}` });
      if (attempt.refused) {
        expectTrue(attempt.status >= 400 && attempt.status < 500, 'a watch with limit=1 that is not served', 'refused with a 4xx Status', `HTTP ${attempt.status}`);
        return;
      }
      const w = attempt.stream;
      const a = await createSetRole(ctx, setId);
      const b = await createSetRole(ctx, setId);
      const evs = await readEvents(w, (_e, seen) => seen.filter((e) => e.type === 'ADDED').length >= 2);
      w.close();
      expectEqual(evs.filter((e) => e.type === 'ADDED').map((e) => e.object?.metadata?.name), [a.metadata.name, b.metadata.name], `ADDED events on a watch with limit=1 (stream: ${brief(evs)})`);
    },
  }),
  defineCase({
    ...MUST,
    id: 'api.list.continue.not-with-watch',
    title: 'continue on a watch is refused or has no effect: the stream still reports changes',
    requirements: ['000-4.3-continue-not-with-watch'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 2);
      const page = await listRoles(ctx, { labelSelector: set.selector, limit: 1 }, 'list with limit=1 for a continue token');
      const token = page.metadata?.continue || SYNTHETIC_CONTINUE;
      const rv = page.metadata?.resourceVersion;
      const attempt = await tryWatch(ctx, { continue: token, resourceVersion: rv, labelSelector: set.selector });
      if (attempt.refused) {
        expectTrue(attempt.status >= 400 && attempt.status < 500, 'a watch with continue that is not served', 'refused with a 4xx Status', `HTTP ${attempt.status}`);
        return;
      }
      const w = attempt.stream;
      const added = await createSetRole(ctx, set.id);
      const evs = await readEvents(w, (e) => e.type === 'ADDED' && e.object?.metadata?.name === added.metadata.name);
      w.close();
      if (w.badLines.length) fail('the response to a watch with continue is a stream of watch events', 'one WatchEvent per line', w.badLines[0]!.slice(0, 300));
      expectTrue(evs.some((e) => e.type === 'ADDED' && e.object?.metadata?.name === added.metadata.name), 'a change on a watch with continue', `ADDED ${added.metadata.name}`, brief(evs));
    },
  }),
  defineCase({
    ...SHOULD,
    id: 'api.list.continue.invalid-token',
    title: 'An unrecognized continue token is refused with an error (upstream: 400 `invalid continue token`), or taken and answered with a list (the server may reject it)',
    requirements: ['000-4.3-continue-unrecognized', '000-7-continue-invalid-token'],
    async run(ctx) {
      const res = await ctx.api.get(roles(ctx), { query: { continue: 'not a token!' } });
      // "The server may reject an unrecognized token": one it takes still answers the list call.
      if (res.status >= 200 && res.status < 300) {
        noteMay('a list with an unrecognized continue token', 'refused (400 invalid continue token)', `answered: HTTP ${res.status}`);
        const l = res.json;
        expectTrue(!!l && l.kind === 'RoleList' && Array.isArray(l.items), 'the answer to a list with an unrecognized continue token it took', 'a RoleList with items', show(l?.kind ?? res.text.slice(0, 200)));
        return;
      }
      const s = expectStatus(res, { code: 400, reason: 'BadRequest' }, 'list with continue=not a token!');
      upstream(() => expectTrue(String(s.message ?? '').startsWith('invalid continue token'), 'message of the refusal', 'starts with "invalid continue token"', show(s.message)));
    },
  }),
  defineCase({
    ...SHOULD,
    id: 'api.list.continue.token-format',
    title: 'A continue token is an opaque string in the unpadded base64url alphabet, as upstream\'s, safe in a query unescaped',
    requirements: ['000-4.3-continue-token-format'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 2);
      const page = await listRoles(ctx, { labelSelector: set.selector, limit: 1 }, 'list with limit=1');
      const token = continueOf(page);
      if (!token) skipUnchunked(page, set, 'the form of a continue token');
      // The spec calls the token server-defined: only its outward form is checked, never its content.
      expectTrue(/^[A-Za-z0-9_-]+$/.test(token), 'alphabet of the continue token', 'base64url without padding', token);
    },
  }),
  defineCase({
    ...SHOULD,
    id: 'api.list.continue.with-resource-version',
    title: 'A list with both continue and resourceVersion is refused: `specifying resource version is not allowed when using continue`',
    requirements: ['000-4.3-resource-version-with-continue'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 2);
      const page = await listRoles(ctx, { labelSelector: set.selector, limit: 1 }, 'list with limit=1 for a continue token');
      const token = page.metadata?.continue || SYNTHETIC_CONTINUE;
      const res = await ctx.api.get(roles(ctx), { query: { labelSelector: set.selector, limit: 1, continue: token, resourceVersion: page.metadata?.resourceVersion } });
      const s = expectStatus(res, { code: 400, reason: 'BadRequest' }, 'list with continue and resourceVersion');
      expectEqual(s.message, 'specifying resource version is not allowed when using continue', 'message of the refusal');
    },
  }),

  // ------------------------------------------------------------------ resourceVersion, resourceVersionMatch
  defineCase({
    ...MUST,
    id: 'api.list.resource-version.not-older-than',
    title: 'resourceVersion with resourceVersionMatch=NotOlderThan is served with data at least that new',
    requirements: ['000-4.3-resource-version', '000-4.3-resource-version-match'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 2);
      expectCode(await ctx.api.delete(roleItem(ctx, set.names[1]!)), [200, 202], `deleting ${set.names[1]}`);
      const rv = (await listRoles(ctx, { labelSelector: set.selector }, 'list for a resourceVersion')).metadata?.resourceVersion;
      const l = await listRoles(ctx, { labelSelector: set.selector, resourceVersion: rv, resourceVersionMatch: 'NotOlderThan' }, `list with resourceVersion=${rv}, NotOlderThan`);
      expectEqual(namesOf(l), [set.names[0]], `objects at least as new as ${rv} (${set.names[1]} was deleted before it)`);
    },
  }),
  defineCase({
    // Exact is upstream's: the spec names resourceVersionMatch and its NotOlderThan only.
    ...SHOULD,
    id: 'api.list.resource-version.exact',
    title: 'resourceVersion with resourceVersionMatch=Exact is served at exactly that version',
    requirements: ['000-4.3-resource-version-match-exact'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 1);
      const rv = (await listRoles(ctx, { labelSelector: set.selector }, 'list for a resourceVersion')).metadata?.resourceVersion;
      await relabel(ctx, set.objects[0], { touched: 'yes' });
      const l = await listRoles(ctx, { labelSelector: set.selector, resourceVersion: rv, resourceVersionMatch: 'Exact' }, `list with resourceVersion=${rv}, Exact`);
      expectEqual(l.metadata?.resourceVersion, rv, 'resourceVersion of the list');
      expectEqual(namesOf(l), set.names, 'objects at that version');
      expectEqual(l.items?.[0]?.metadata?.labels?.touched, undefined, `${set.names[0]} as it was at ${rv} (updated since)`);
    },
  }),
  defineCase({
    ...SHOULD,
    id: 'api.list.resource-version-match.unknown-value',
    title: 'An unknown resourceVersionMatch is refused with 422 Invalid (Exact and NotOlderThan are supported)',
    requirements: ['000-4.3-resource-version-match-values'],
    async run(ctx) {
      const rv = (await listRoles(ctx, {}, 'list for a resourceVersion')).metadata?.resourceVersion;
      await expectRefused(ctx.api, await ctx.api.get(roles(ctx), { query: { resourceVersion: rv, resourceVersionMatch: 'Newest' } }), { code: 422, reason: 'Invalid', causes: [{ field: 'resourceVersionMatch', reason: 'FieldValueNotSupported' }] }, 'list with resourceVersionMatch=Newest');
    },
  }),
  defineCase({
    ...SHOULD,
    id: 'api.list.resource-version-match.without-resource-version',
    title: 'resourceVersionMatch without resourceVersion is refused with 422 Invalid',
    requirements: ['000-4.3-resource-version-match-values'],
    async run(ctx) {
      await expectRefused(ctx.api, await ctx.api.get(roles(ctx), { query: { resourceVersionMatch: 'NotOlderThan' } }), { code: 422, reason: 'Invalid', causes: [{ field: 'resourceVersionMatch', reason: 'FieldValueForbidden' }] }, 'list with resourceVersionMatch and no resourceVersion');
    },
  }),
  defineCase({
    ...SHOULD,
    id: 'api.list.resource-version-match.exact-zero',
    title: 'resourceVersionMatch=Exact with resourceVersion=0 is refused with 422 Invalid',
    requirements: ['000-4.3-resource-version-match-values'],
    async run(ctx) {
      await expectRefused(ctx.api, await ctx.api.get(roles(ctx), { query: { resourceVersion: '0', resourceVersionMatch: 'Exact' } }), { code: 422, reason: 'Invalid', causes: [{ field: 'resourceVersionMatch', reason: 'FieldValueForbidden' }] }, 'list with resourceVersion=0, Exact');
    },
  }),

  // ------------------------------------------------------------------ other list parameters
  defineCase({
    ...MUST,
    id: 'api.list.allow-watch-bookmarks.ignored-for-list',
    title: 'allowWatchBookmarks on a plain list is ignored: the list is served as without it',
    requirements: ['000-4.3-allow-watch-bookmarks-ignored-non-watch'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 2);
      const l = await listRoles(ctx, { labelSelector: set.selector, allowWatchBookmarks: 'true' }, 'list with allowWatchBookmarks=true');
      expectEqual(sorted(namesOf(l)), set.names, 'objects of the list');
    },
  }),
  defineCase({
    ...SHOULD,
    spec: { doc: '000', section: '7' },
    id: 'api.list.send-initial-events.forbidden-for-list',
    title: 'sendInitialEvents on a plain list is refused: 422 `sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list`',
    requirements: ['000-7-send-initial-events-forbidden-for-list'],
    async run(ctx) {
      await expectRefused(ctx.api, await ctx.api.get(roles(ctx), { query: { sendInitialEvents: 'true' } }), { code: 422, reason: 'Invalid', causes: [{ field: 'sendInitialEvents', reason: 'FieldValueForbidden' }] }, 'list with sendInitialEvents=true');
    },
  }),
  defineCase({
    ...MUST,
    id: 'api.list.list-set',
    title: 'A list takes the list parameters together: pretty, allowWatchBookmarks, fieldSelector, labelSelector, limit, resourceVersion(Match), timeoutSeconds',
    requirements: ['000-4.3-list-set'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 2);
      const l = await listRoles(ctx, {
        pretty: 'false',
        allowWatchBookmarks: 'false',
        fieldSelector: `metadata.namespace=${ctx.namespace}`,
        labelSelector: set.selector,
        limit: 10,
        resourceVersion: '0',
        resourceVersionMatch: 'NotOlderThan',
        timeoutSeconds: 30,
      }, 'list with the list parameters');
      // limit=10 may still give fewer items (even none) with a continue token: then the chunk holds
      // some of the set, else all of it.
      if (continueOf(l)) expectTrue(namesOf(l).every((n) => set.names.includes(n)), 'objects of the first chunk', `some of ${show(set.names)}`, namesOf(l));
      else expectSameMembers(namesOf(l), set.names, 'objects of the list');
    },
  }),

  // ------------------------------------------------------------------ pretty
  defineCase({
    ...MUST,
    id: 'api.list.pretty.true',
    title: 'pretty=true pretty-prints the response (indented, one field per line)',
    requirements: ['000-4.3-pretty'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 1);
      const res = await ctx.api.get(roles(ctx), { query: { labelSelector: set.selector, pretty: 'true' } });
      expectCode(res, 200, 'list with pretty=true');
      expectTrue(/\n\s+"/.test(res.text.trim()), 'layout of the body', 'indented JSON over several lines', res.text.slice(0, 200));
    },
  }),
  defineCase({
    ...MUST,
    id: 'api.list.pretty.default-compact',
    title: 'Without pretty, a client that is no browser or command-line tool gets compact JSON',
    requirements: ['000-4.3-pretty-default'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 1);
      const res = await ctx.api.get(roles(ctx), { query: { labelSelector: set.selector }, headers: { 'user-agent': 'orch-conformance/1.0 (client library)' } });
      expectCode(res, 200, 'list');
      expectTrue(!res.text.trim().includes('\n'), 'layout of the body', 'JSON on one line', res.text.slice(0, 200));
    },
  }),
  defineCase({
    ...MUST,
    id: 'api.list.pretty.default-cli-tools',
    title: 'Without pretty, command-line HTTP tools (curl, Wget) get pretty-printed JSON',
    requirements: ['000-4.3-pretty-default'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 1);
      // The tools upstream recognises by User-Agent (prefixes `curl`, `Wget`); a server need not
      // know others (HTTPie and the like), so they are not checked.
      for (const ua of ['curl/8.5.0', 'Wget/1.21.4']) {
        const res = await ctx.api.get(roles(ctx), { query: { labelSelector: set.selector }, headers: { 'user-agent': ua } });
        expectCode(res, 200, `list with User-Agent ${ua}`);
        expectTrue(/\n\s+"/.test(res.text.trim()), `layout of the body for User-Agent ${ua}`, 'indented JSON over several lines', res.text.slice(0, 200));
      }
    },
  }),
  defineCase({
    ...MUST,
    id: 'api.list.pretty.default-browser',
    title: 'Without pretty, a browser gets pretty-printed JSON',
    requirements: ['000-4.3-pretty-default'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 1);
      const ua = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
      const res = await ctx.api.get(roles(ctx), { query: { labelSelector: set.selector }, headers: { 'user-agent': ua, accept: 'application/json' } });
      expectCode(res, 200, 'list with a browser User-Agent');
      expectTrue(/\n\s+"/.test(res.text.trim()), 'layout of the body', 'indented JSON over several lines', res.text.slice(0, 200));
    },
  }),

  // ------------------------------------------------------------------ shardSelector (alpha)
  defineCase({
    ...MUST,
    gates: SHARD_GATE,
    id: 'api.list.shard-selector.uid-halves',
    title: 'shardSelector halves on object.metadata.uid split a list by the FNV-1a 64 hash of the uid, [start, end)',
    requirements: ['000-4.3-shard-selector-syntax', '000-4.3-shard-selector-paths', '000-4.3-shard-selector-bounds'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 6);
      const lower = await listRoles(ctx, { labelSelector: set.selector, shardSelector: LOWER_HALF('object.metadata.uid') }, 'list of the lower half');
      const upper = await listRoles(ctx, { labelSelector: set.selector, shardSelector: UPPER_HALF('object.metadata.uid') }, 'list of the upper half');
      const wantLower = set.objects.filter((o) => fnv1a64(o.metadata.uid) < HALF).map((o) => o.metadata.name);
      const wantUpper = set.objects.filter((o) => fnv1a64(o.metadata.uid) >= HALF).map((o) => o.metadata.name);
      expectEqual(sorted(namesOf(lower)), wantLower, 'objects whose uid hashes below 0x8000000000000000');
      expectEqual(sorted(namesOf(upper)), wantUpper, 'objects whose uid hashes at or above 0x8000000000000000');
    },
  }),
  defineCase({
    ...MUST,
    gates: SHARD_GATE,
    id: 'api.list.shard-selector.namespace-path',
    title: 'shardSelector on object.metadata.namespace keeps a namespace\'s objects together, in the half its name hashes to',
    requirements: ['000-4.3-shard-selector-paths'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 2);
      const inLower = fnv1a64(ctx.namespace) < HALF;
      const lower = await listRoles(ctx, { labelSelector: set.selector, shardSelector: LOWER_HALF('object.metadata.namespace') }, 'list of the lower half by namespace');
      const upper = await listRoles(ctx, { labelSelector: set.selector, shardSelector: UPPER_HALF('object.metadata.namespace') }, 'list of the upper half by namespace');
      expectEqual(sorted(namesOf(lower)), inLower ? set.names : [], `lower half (namespace ${ctx.namespace} hashes ${inLower ? 'below' : 'at or above'} 0x8000000000000000)`);
      expectEqual(sorted(namesOf(upper)), inLower ? [] : set.names, 'upper half');
    },
  }),
  defineCase({
    ...SHOULD,
    gates: SHARD_GATE,
    id: 'api.list.shard-selector.shard-info',
    title: 'A list that honours shardSelector says so in metadata.shardInfo.selector',
    requirements: ['000-4.3-shard-selector-shard-info'],
    async run(ctx) {
      const sel = `${LOWER_HALF('object.metadata.uid')} || ${UPPER_HALF('object.metadata.uid')}`;
      const l = await listRoles(ctx, { labelSelector: `${SET_LABEL}=none`, shardSelector: sel }, 'list with a shardSelector');
      expectEqual(l.metadata?.shardInfo, { selector: sel }, 'metadata.shardInfo');
    },
  }),
  defineCase({
    ...MUST,
    gates: SHARD_GATE,
    id: 'api.list.shard-selector.malformed',
    upstreamShape: true,
    title: 'A shardSelector that is not shardRange(<uid|namespace path>, \'0x..\', \'0x..\') terms is refused (upstream: 422 Invalid)',
    requirements: ['000-4.3-shard-selector-syntax', '000-4.3-shard-selector-paths', '000-4.3-shard-selector-bounds'],
    async run(ctx) {
      for (const bad of [
        "shardRange(object.metadata.name, '0x0', '0x8000000000000000')",
        "shardRange(object.metadata.uid, '0', '0x8000000000000000')",
        "shardRange(object.metadata.uid, '0x0', '0x20000000000000000')",
        "shardRange(object.metadata.uid, '0x0', '0x8') && shardRange(object.metadata.uid, '0x8', '0x9')",
      ]) {
        const res = await ctx.api.get(roles(ctx), { query: { shardSelector: bad } });
        // The spec gives the syntax, not the answer to a breach of it: an error is the verdict;
        // upstream's 422 Invalid naming shardSelector is a finding.
        expectStatus(res, { code: 422, reason: 'Invalid', causes: [{ field: 'shardSelector' }] }, `list with shardSelector ${bad}`);
      }
    },
  }),
  defineCase({
    ...MUST,
    gates: { ShardedListAndWatch: false },
    id: 'api.list.shard-selector.gate-off',
    title: 'Without the ShardedListAndWatch gate, shardSelector is not honoured: full list, no shardInfo',
    requirements: ['000-4.3-shard-selector-gate'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 4);
      const sel = "shardRange(object.metadata.uid, '0x0000000000000000', '0x0000000000000001')";
      const res = await ctx.api.get(roles(ctx), { query: { labelSelector: set.selector, shardSelector: sel } });
      if (isRefusal(res)) return;
      expectCode(res, 200, 'list with a shardSelector');
      expectEqual(sorted(namesOf(res.json)), set.names, 'objects of the list (selector not honoured)');
      expectEqual(res.json?.metadata?.shardInfo, undefined, 'metadata.shardInfo');
    },
  }),
];
