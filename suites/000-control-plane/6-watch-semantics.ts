// Spec 000 §4.3 and §6: watch semantics — resuming from a resourceVersion, the /watch/ path form,
// initial events and bookmarks, the sendInitialEvents defaults and errors, timeoutSeconds,
// selectors on a watch (objects entering and leaving the selection), and the shard selector. Each
// case watches Roles of its own in the run's namespace, isolated by a label.
import { defineCase, type Case, type CaseContext } from '../case.js';
import type { WatchEvent } from '../../runner/client.js';
import { expectEqual, expectTrue, fail, show, expectRefused } from '../verify.js';
import { noteMay, upstream } from '../findings.js';
import { ROLE } from './kinds-rbac.js';
import {
  brief,
  createRoleSet,
  createSetRole,
  listRoles,
  newSetId,
  openWatch,
  readEvents,
  relabel,
  roleItem,
  roles,
  SET_LABEL,
} from './list-watch-common.js';
import { fnv1a64 } from './4.3-list.js';

const common = { suite: 'watch', spec: { doc: '000', section: '6' }, impact: 'namespaced', needs: ['api'] } as const;
const at43 = { ...common, spec: { doc: '000', section: '4.3' } } as const;

const INITIAL_END = 'orch.io/initial-events-end';
const isBookmark = (e: WatchEvent): boolean => e.type === 'BOOKMARK';
const isEndBookmark = (e: WatchEvent): boolean => isBookmark(e) && e.object?.metadata?.annotations?.[INITIAL_END] === 'true';
const nameOf = (e: WatchEvent): string | undefined => e.object?.metadata?.name;
const about = (name: string) => (e: WatchEvent): boolean => nameOf(e) === name;
/**
 * The events of a stream without its bookmarks: a server may send BOOKMARKs at any moment (with
 * allowWatchBookmarks, and at its discretion), so cases not about bookmarks do not count them.
 */
const changes = (evs: WatchEvent[]): WatchEvent[] => evs.filter((e) => !isBookmark(e));

/** resourceVersion of a fresh list of the namespace's Roles: "now". */
async function now(ctx: CaseContext): Promise<string> {
  return (await listRoles(ctx, { labelSelector: `${SET_LABEL}=none` }, 'list for the current resourceVersion')).metadata?.resourceVersion;
}

/** The query of a watch list (sendInitialEvents) for a set. */
const initialEventsQuery = (selector: string, extra: Record<string, string> = {}) => ({
  labelSelector: selector,
  sendInitialEvents: 'true',
  resourceVersionMatch: 'NotOlderThan',
  allowWatchBookmarks: 'true',
  ...extra,
});

/** A watch with sendInitialEvents=true and resourceVersionMatch=Exact: expects 422 Invalid, gives the Status. */
async function exactRefused(ctx: CaseContext): Promise<any> {
  const res = await ctx.api.get(roles(ctx), { query: { watch: 'true', sendInitialEvents: 'true', resourceVersionMatch: 'Exact', resourceVersion: '1', timeoutSeconds: 2 } });
  return await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'resourceVersionMatch' }] }, 'watch with sendInitialEvents=true, resourceVersionMatch=Exact');
}

/**
 * Watches a Role with timeoutSeconds=1 while changing it, and expects the stream to end by itself
 * within 8s; gives back the events read.
 */
async function watchUntilTimeout(ctx: CaseContext): Promise<WatchEvent[]> {
  const set = await createRoleSet(ctx, 1);
  let obj = set.objects[0];
  const started = Date.now();
  const w = await openWatch(ctx, { labelSelector: set.selector, resourceVersion: obj.metadata.resourceVersion, timeoutSeconds: 1 }, 'watch with timeoutSeconds=1');
  const seen: WatchEvent[] = [];
  for (let i = 0; !w.done && Date.now() - started < 8000; i++) {
    obj = await relabel(ctx, obj, { tick: String(i) });
    for (let ev = await w.next(200); ev; ev = await w.next(1)) seen.push(ev);
  }
  const elapsed = Date.now() - started;
  w.close();
  expectTrue(w.done, 'the watch ended by itself', 'the stream ends within 8s of a 1s timeout', `still open after ${elapsed}ms, ${seen.length} events read`);
  return seen;
}

export const watchSemanticsCases: Case[] = [
  defineCase({
    ...at43,
    level: 'MUST',
    id: 'api.watch.resume-from-resource-version',
    title: 'A watch from a resourceVersion replays every change made after it, in order',
    requirements: ['000-4.3-watch', '000-4.3-resource-version'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 1);
      const a = set.objects[0];
      const rv = (await listRoles(ctx, { labelSelector: set.selector }, 'list for a resourceVersion')).metadata?.resourceVersion;
      const b = await createSetRole(ctx, set.id);
      await relabel(ctx, a, { touched: 'yes' });
      await ctx.api.delete(roleItem(ctx, b.metadata.name));
      const w = await openWatch(ctx, { resourceVersion: rv, labelSelector: set.selector }, `watch from resourceVersion ${rv}`);
      const evs = await readEvents(w, (e) => e.type === 'DELETED');
      w.close();
      expectEqual(
        changes(evs).map((e) => [e.type, nameOf(e)]),
        [['ADDED', b.metadata.name], ['MODIFIED', a.metadata.name], ['DELETED', b.metadata.name]],
        `events after resourceVersion ${rv}`,
      );
    },
  }),
  defineCase({
    ...common,
    level: 'MUST',
    id: 'api.watch.path-form',
    title: 'The /watch/ path form of a collection streams its changes without watch=true',
    requirements: ['000-6-watch-stream'],
    async run(ctx) {
      const setId = newSetId(ctx);
      const path = `/apis/rbac.authorization.orch.io/v1/watch/namespaces/${encodeURIComponent(ctx.namespace)}/roles`;
      const w = await openWatch(ctx, { watch: undefined, resourceVersion: await now(ctx), labelSelector: `${SET_LABEL}=${setId}` }, `GET ${path}`, path);
      const r = await createSetRole(ctx, setId);
      const evs = await readEvents(w, about(r.metadata.name));
      w.close();
      expectEqual(changes(evs).map((e) => [e.type, nameOf(e)]), [['ADDED', r.metadata.name]], 'events of the /watch/ path');
    },
  }),
  defineCase({
    ...common,
    level: 'SHOULD',
    id: 'api.watch.chunked-json',
    title: 'A watch response is 200, chunked, with Content-Type application/json',
    requirements: ['000-6-watch-chunked-json'],
    async run(ctx) {
      const w = await openWatch(ctx, { resourceVersion: await now(ctx), labelSelector: `${SET_LABEL}=${newSetId(ctx)}` }, 'watch');
      w.close();
      expectTrue((w.headers['content-type'] ?? '').split(';')[0]!.trim() === 'application/json', 'Content-Type of the watch', 'application/json', w.headers['content-type'] ?? '(none)');
      expectTrue((w.headers['transfer-encoding'] ?? '').includes('chunked'), 'Transfer-Encoding of the watch', 'chunked', w.headers['transfer-encoding'] ?? '(none)');
    },
  }),

  // ------------------------------------------------------------------ initial events and bookmarks
  defineCase({
    ...at43,
    level: 'MUST',
    id: 'api.watch.initial-events',
    title: 'sendInitialEvents: ADDED for every current object, then a BOOKMARK marked initial-events-end, then changes',
    // allowWatchBookmarks=true is part of the query: the BOOKMARK asked for comes.
    requirements: ['000-4.3-send-initial-events-stream', '000-6-watch-bookmark', '000-4.3-allow-watch-bookmarks'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 2);
      const w = await openWatch(ctx, initialEventsQuery(set.selector), 'watch with sendInitialEvents=true');
      const initial = await readEvents(w, isEndBookmark);
      const later = await createSetRole(ctx, set.id);
      const after = await readEvents(w, about(later.metadata.name));
      w.close();
      const end = initial.findIndex(isEndBookmark);
      if (end < 0) fail('a BOOKMARK annotated orch.io/initial-events-end: "true" ends the initial events', 'such a BOOKMARK', brief(initial));
      // Other bookmarks may come at any moment (allowWatchBookmarks=true): only the end one counts.
      const before = changes(initial.slice(0, end));
      expectEqual(before.map((e) => e.type), ['ADDED', 'ADDED'], 'events before the bookmark');
      expectEqual(before.map(nameOf).sort(), set.names, 'objects of the initial events');
      expectEqual(changes(after).map((e) => [e.type, nameOf(e)]), [['ADDED', later.metadata.name]], 'events after the bookmark');
    },
  }),
  defineCase({
    ...common,
    level: 'SHOULD',
    id: 'api.watch.bookmark-object',
    title: 'With allowWatchBookmarks and sendInitialEvents, ADDED events then a BOOKMARK whose object is of the resource\'s kind with a resourceVersion',
    // The bookmark object's shape and the event type names are upstream's (spec §6: envelope not shown).
    requirements: ['000-6-watch-bookmark-object', '000-6-watch-initial-events'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 1);
      const w = await openWatch(ctx, initialEventsQuery(set.selector), 'watch with allowWatchBookmarks=true and sendInitialEvents=true');
      // Up to the bookmark that ends the initial events; other bookmarks may come before it, and each is checked.
      const evs = await readEvents(w, isEndBookmark);
      w.close();
      const end = evs.find(isEndBookmark);
      if (!end) fail('a BOOKMARK event on a watch with allowWatchBookmarks=true (sendInitialEvents ends with one)', 'a BOOKMARK', brief(evs));
      expectEqual(changes(evs.slice(0, evs.indexOf(end))).map((e) => [e.type, nameOf(e)]), [['ADDED', set.names[0]]], 'events before the BOOKMARK');
      for (const bm of evs.filter(isBookmark)) {
        expectEqual(bm.object?.kind, ROLE.kind, 'kind of the BOOKMARK object');
        expectEqual(bm.object?.apiVersion, ROLE.apiVersion, 'apiVersion of the BOOKMARK object');
        const rv = bm.object?.metadata?.resourceVersion;
        expectTrue(typeof rv === 'string' && rv.length > 0, 'metadata.resourceVersion of the BOOKMARK object', 'a non-empty string', show(rv));
      }
    },
  }),
  defineCase({
    ...common,
    level: 'SHOULD',
    id: 'api.watch.bookmarks.unasked',
    title: 'Without allowWatchBookmarks, a sendInitialEvents watch sends the current objects, then changes; bookmarks (which servers may send at their discretion) come only after the current objects, each with a resourceVersion',
    // §4.3: "Servers may ignore it and send bookmarks at their discretion": a bookmark nobody asked
    // for is allowed (noted when sent: upstream sends none), not one before the current objects. It
    // reads the events in upstream's envelope ({type: ADDED, object}) too.
    requirements: ['000-4.3-allow-watch-bookmarks-discretion', '000-6-watch-bookmark-object', '000-6-watch-event-envelope'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 1);
      const w = await openWatch(ctx, initialEventsQuery(set.selector, { allowWatchBookmarks: 'false' }), 'watch with sendInitialEvents=true, allowWatchBookmarks=false');
      const first = await readEvents(w, about(set.names[0]!));
      const later = await createSetRole(ctx, set.id);
      const evs = [...first, ...(await readEvents(w, about(later.metadata.name)))];
      w.close();
      expectEqual(changes(evs).map((e) => [e.type, nameOf(e)]), [['ADDED', set.names[0]], ['ADDED', later.metadata.name]], `events of the watch besides bookmarks (stream: ${brief(evs)})`);
      const marks = evs.filter(isBookmark);
      expectEqual(evs.slice(0, evs.findIndex(about(set.names[0]!))).filter(isBookmark).length, 0, `BOOKMARK events before the current object's ADDED (the stream begins with the current objects; stream: ${brief(evs)})`);
      for (const bm of marks) {
        const rv = bm.object?.metadata?.resourceVersion;
        expectTrue(typeof rv === 'string' && rv.length > 0, 'metadata.resourceVersion of a BOOKMARK object', 'a non-empty string', show(rv));
        upstream(() => {
          expectEqual(bm.object?.kind, ROLE.kind, 'kind of the BOOKMARK object');
          expectEqual(bm.object?.apiVersion, ROLE.apiVersion, 'apiVersion of the BOOKMARK object');
        });
      }
      if (marks.length) noteMay('BOOKMARK events on a watch without allowWatchBookmarks', 'none (upstream sends bookmarks only when asked)', `${marks.length} (stream: ${brief(evs)})`);
    },
  }),
  defineCase({
    ...at43,
    level: 'MUST',
    id: 'api.watch.send-initial-events.default-without-resource-version',
    title: 'sendInitialEvents defaults to true without resourceVersion: the watch starts with ADDED for current objects',
    requirements: ['000-4.3-send-initial-events-default'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 1);
      const w = await openWatch(ctx, { labelSelector: set.selector }, 'watch without resourceVersion');
      const evs = await readEvents(w, about(set.names[0]!), 5000);
      w.close();
      expectEqual(changes(evs).map((e) => [e.type, nameOf(e)]), [['ADDED', set.names[0]]], 'first events of the watch');
    },
  }),
  defineCase({
    ...at43,
    level: 'MUST',
    id: 'api.watch.send-initial-events.default-with-resource-version',
    title: 'sendInitialEvents defaults to false with a resourceVersion: no synthetic ADDED, only changes after it',
    requirements: ['000-4.3-send-initial-events-default'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 1);
      const a = set.objects[0];
      const rv = (await listRoles(ctx, { labelSelector: set.selector }, 'list for a resourceVersion')).metadata?.resourceVersion;
      const w = await openWatch(ctx, { labelSelector: set.selector, resourceVersion: rv }, `watch from resourceVersion ${rv}`);
      await relabel(ctx, a, { touched: 'yes' });
      const evs = await readEvents(w, about(a.metadata.name));
      w.close();
      expectEqual(changes(evs).map((e) => [e.type, nameOf(e)]), [['MODIFIED', a.metadata.name]], 'first events of the watch');
    },
  }),
  defineCase({
    ...at43,
    level: 'MUST',
    id: 'api.watch.send-initial-events.not-older-than',
    title: 'sendInitialEvents with resourceVersion and NotOlderThan sends the current state, then the bookmark',
    requirements: ['000-4.3-send-initial-events-not-older-than'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 1);
      const rv = (await listRoles(ctx, { labelSelector: set.selector }, 'list for a resourceVersion')).metadata?.resourceVersion;
      const w = await openWatch(ctx, initialEventsQuery(set.selector, { resourceVersion: rv }), `watch with sendInitialEvents=true from resourceVersion ${rv}`);
      const evs = await readEvents(w, isEndBookmark);
      w.close();
      // Bookmarks other than the end one may come at any moment (allowWatchBookmarks=true).
      const counted = evs.filter((e) => !isBookmark(e) || isEndBookmark(e));
      expectEqual(counted.map((e) => [e.type, isBookmark(e) ? INITIAL_END : nameOf(e)]), [['ADDED', set.names[0]], ['BOOKMARK', INITIAL_END]], 'events up to the initial-events-end bookmark');
    },
  }),
  defineCase({
    ...at43,
    level: 'MUST',
    id: 'api.watch.send-initial-events.requires-match',
    upstreamShape: true,
    title: 'sendInitialEvents without resourceVersionMatch is refused (an Invalid error; upstream 422 with a cause at resourceVersionMatch)',
    requirements: ['000-4.3-send-initial-events-requires-match', '000-7-send-initial-events-invalid'],
    async run(ctx) {
      const res = await ctx.api.get(roles(ctx), { query: { watch: 'true', sendInitialEvents: 'true', timeoutSeconds: 2 } });
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'resourceVersionMatch', reason: 'FieldValueForbidden' }] }, 'watch with sendInitialEvents=true and no resourceVersionMatch');
    },
  }),
  defineCase({
    ...common,
    spec: { doc: '000', section: '7' },
    level: 'MUST',
    id: 'api.watch.send-initial-events.exact-refused',
    upstreamShape: true,
    title: 'sendInitialEvents with resourceVersionMatch=Exact is refused (an Invalid error; upstream 422)',
    requirements: ['000-7-send-initial-events-invalid'],
    async run(ctx) {
      await exactRefused(ctx);
    },
  }),
  defineCase({
    ...common,
    spec: { doc: '000', section: '7' },
    level: 'SHOULD',
    id: 'api.watch.send-initial-events.exact-refused-messages',
    title: 'sendInitialEvents with resourceVersionMatch=Exact: the causes carry upstream\'s messages',
    requirements: ['000-7-send-initial-events-messages'],
    async run(ctx) {
      const s = await exactRefused(ctx);
      const messages = (s.details?.causes ?? []).map((c: any) => c?.message);
      for (const m of ['Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan', 'Unsupported value: "Exact": supported values: "NotOlderThan"']) {
        expectTrue(messages.includes(m), 'messages of the causes', `a cause "${m}"`, show(messages));
      }
    },
  }),

  // ------------------------------------------------------------------ timeoutSeconds
  defineCase({
    ...at43,
    level: 'MUST',
    id: 'api.watch.timeout-seconds',
    title: 'A watch with timeoutSeconds=1 ends after about a second even while changes keep coming',
    requirements: ['000-4.3-timeout-seconds'],
    async run(ctx) {
      await watchUntilTimeout(ctx);
    },
  }),
  defineCase({
    ...at43,
    spec: { doc: '000', section: '6' },
    level: 'SHOULD',
    id: 'api.watch.timeout-seconds.ends-quietly',
    title: 'A watch whose timeoutSeconds elapses simply ends: no ERROR event before the end',
    requirements: ['000-6-watch-timeout-ends'],
    async run(ctx) {
      const seen = await watchUntilTimeout(ctx);
      expectEqual(seen.filter((e) => e.type === 'ERROR').length, 0, `ERROR events before the end (stream: ${brief(seen)})`);
    },
  }),

  // ------------------------------------------------------------------ selectors on a watch
  defineCase({
    ...at43,
    level: 'MUST',
    id: 'api.watch.label-selector.filters',
    title: 'A watch with a labelSelector reports only objects that match it',
    requirements: ['000-4.3-label-selector'],
    async run(ctx) {
      const setId = newSetId(ctx);
      const w = await openWatch(ctx, { labelSelector: `${SET_LABEL}=${setId},tier=a`, resourceVersion: await now(ctx) }, 'watch with labelSelector tier=a');
      await createSetRole(ctx, setId, { tier: 'b' });
      const wanted = await createSetRole(ctx, setId, { tier: 'a' });
      const evs = await readEvents(w, about(wanted.metadata.name));
      w.close();
      expectEqual(changes(evs).map((e) => [e.type, nameOf(e)]), [['ADDED', wanted.metadata.name]], 'events of the watch');
    },
  }),
  defineCase({
    ...at43,
    level: 'MUST',
    id: 'api.watch.field-selector.filters',
    title: 'A watch with a fieldSelector on metadata.name reports only that object',
    requirements: ['000-4.3-field-selector'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 2);
      const [a, b] = set.objects;
      const w = await openWatch(ctx, { labelSelector: set.selector, fieldSelector: `metadata.name=${a.metadata.name}`, resourceVersion: await now(ctx) }, 'watch with a fieldSelector on metadata.name');
      await relabel(ctx, b, { touched: 'yes' });
      await relabel(ctx, a, { touched: 'yes' });
      const evs = await readEvents(w, about(a.metadata.name));
      w.close();
      expectEqual(changes(evs).map((e) => [e.type, nameOf(e)]), [['MODIFIED', a.metadata.name]], 'events of the watch');
    },
  }),
  defineCase({
    ...common,
    level: 'SHOULD',
    id: 'api.watch.selector.leaving-is-deleted',
    title: 'On a watch with a labelSelector, an object that stops matching arrives as DELETED',
    requirements: ['000-6-watch-selector-transitions'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 1, () => ({ tier: 'a' }));
      const a = set.objects[0];
      const w = await openWatch(ctx, { labelSelector: `${set.selector},tier=a`, resourceVersion: await now(ctx) }, 'watch with labelSelector tier=a');
      await relabel(ctx, a, { tier: 'b' });
      const evs = await readEvents(w, about(a.metadata.name));
      w.close();
      expectEqual(changes(evs).map((e) => [e.type, nameOf(e)]), [['DELETED', a.metadata.name]], 'events when the object leaves the selection');
    },
  }),
  defineCase({
    ...common,
    level: 'SHOULD',
    id: 'api.watch.selector.entering-is-added',
    title: 'On a watch with a labelSelector, an object that starts matching arrives as ADDED',
    requirements: ['000-6-watch-selector-transitions'],
    async run(ctx) {
      const set = await createRoleSet(ctx, 1, () => ({ tier: 'b' }));
      const a = set.objects[0];
      const w = await openWatch(ctx, { labelSelector: `${set.selector},tier=a`, resourceVersion: await now(ctx) }, 'watch with labelSelector tier=a');
      await relabel(ctx, a, { tier: 'a' });
      const evs = await readEvents(w, about(a.metadata.name));
      w.close();
      expectEqual(changes(evs).map((e) => [e.type, nameOf(e)]), [['ADDED', a.metadata.name]], 'events when the object enters the selection');
    },
  }),
  defineCase({
    ...at43,
    level: 'SHOULD',
    gates: { ShardedListAndWatch: true },
    id: 'api.watch.shard-selector',
    title: 'A watch with a shardSelector reports only objects whose uid hashes into its range',
    requirements: ['000-4.3-shard-selector-hash'],
    async run(ctx) {
      const setId = newSetId(ctx);
      const half = 0x8000000000000000n;
      const selector = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";
      const w = await openWatch(ctx, { labelSelector: `${SET_LABEL}=${setId}`, shardSelector: selector, resourceVersion: await now(ctx) }, 'watch with a shardSelector');
      // Create until one outside the range came and the last one is inside it (uids are random).
      const created: Array<{ name: string; inside: boolean }> = [];
      while (created.length < 12 && !(created.some((c) => !c.inside) && created[created.length - 1]?.inside)) {
        const r = await createSetRole(ctx, setId);
        created.push({ name: r.metadata.name, inside: fnv1a64(r.metadata.uid) < half });
      }
      const inside = created.filter((c) => c.inside).map((c) => c.name);
      const outside = created.filter((c) => !c.inside).map((c) => c.name);
      const last = created[created.length - 1]!;
      if (!last.inside || outside.length === 0) fail('objects on both sides of the range', 'at least one each side within 12 creates', show(created));
      const evs = await readEvents(w, about(last.name));
      w.close();
      expectEqual(changes(evs).map(nameOf), inside, `objects reported by the watch (outside the range: ${show(outside)})`);
    },
  }),
];

