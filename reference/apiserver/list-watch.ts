// The storage side of list and watch for the generic store: pages read from one snapshot revision
// (limit, continue key, remainingItemCount), selectors applied while reading, and watch streams with
// selectors (an object leaving the selection arrives as DELETED, one entering as ADDED, as
// upstream's cacheWatcher), initial events, and BOOKMARK events.
import { internal, StatusError, tooOldResourceVersion } from './errors.js';
import type { ApiObject, ResolvedStrategy } from './strategy.js';
import type { ListResult, WatchEvent, WatchSink } from './store.js';
import { markShared } from './served-json.js';
import { isStorageError, StorageError, type KeyValue, type Storage, type StorageEvent, type WatchHandle } from '../storage/types.js';

/** Selects objects; `empty` marks one that selects everything (remainingItemCount is then known). */
export type ObjectPredicate = ((obj: ApiObject) => boolean) & { readonly empty?: boolean };

/** The annotation of the BOOKMARK that ends the initial events of a sendInitialEvents watch. */
export const INITIAL_EVENTS_END_ANNOTATION = 'orch.io/initial-events-end';

/** Upstream's watch cache sends bookmarks about once a minute. */
export const DEFAULT_BOOKMARK_INTERVAL_MS = 60_000;

/** What list and watch need of one collection of a store. */
export interface CollectionView {
  readonly storage: Storage;
  readonly strategy: ResolvedStrategy;
  /** Storage prefix of the collection (all namespaces, or one). */
  readonly prefix: string;
  decode(kv: KeyValue): ApiObject;
  /**
   * decode, for a watch event's value: may answer an object shared with the write and the other
   * watchers of the event, so a watch sink must not change the objects it is given.
   */
  decodeEvent?(kv: KeyValue): ApiObject;
}

export interface PageOptions {
  /** Snapshot revision; 0 reads the current one (and pins it for the rest of the page). */
  readonly revision: number;
  /** Where to start, relative to the prefix (a continue token's key). */
  readonly startKey?: string;
  /** Page size; 0 or absent reads everything. */
  readonly limit?: number;
  readonly predicate?: ObjectPredicate;
}

/**
 * One page of a list as upstream's etcd3 store reads it: keys in order from `startKey` at one
 * revision, filtered, until `limit` objects are collected. When keys remain after the last one
 * examined, `nextKey` says where the next page starts (the page may then hold fewer than `limit`
 * objects, even none); remainingItemCount is given only when nothing filters.
 */
export async function readPage(view: CollectionView, opts: PageOptions): Promise<ListResult> {
  const { storage, prefix } = view;
  const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
  const pred = opts.predicate && !opts.predicate.empty ? opts.predicate : undefined;
  let rev = opts.revision;
  let start = opts.startKey !== undefined ? prefix + opts.startKey : prefix;
  const items: ApiObject[] = [];
  let lastKey: string | undefined;
  let hasMore = false;
  // Without a predicate a page is one storage read: its count tells what remains after it.
  let pageCount: number | undefined;
  let pageItems = 0;
  for (;;) {
    const res = await storage.list(prefix, { revision: rev || undefined, startKey: start, limit: limit || undefined });
    rev = res.revision;
    pageCount = res.count;
    pageItems = res.items.length;
    for (const kv of res.items) {
      if (limit && items.length >= limit) {
        hasMore = true;
        break;
      }
      lastKey = kv.key;
      const obj = view.decode(kv);
      if (!pred || pred(obj)) items.push(obj);
    }
    if (hasMore || !limit || !res.more) break;
    if (items.length >= limit) {
      hasMore = true;
      break;
    }
    start = `${lastKey}\u0000`;
  }
  if (!hasMore || lastKey === undefined) return { items, resourceVersion: String(rev) };
  const next = `${lastKey}\u0000`;
  const out: { items: ApiObject[]; resourceVersion: string; nextKey: string; remainingItemCount?: number } = {
    items,
    resourceVersion: String(rev),
    nextKey: next.slice(prefix.length),
  };
  if (!pred) {
    // From the count a storage reports for the page's own range (etcd's), else by reading the rest.
    out.remainingItemCount = pageCount !== undefined ? pageCount - pageItems : (await storage.list(prefix, { revision: rev, startKey: next })).items.length;
  }
  return out;
}

export interface CollectionWatchOptions {
  /** Only this key (the `/watch/.../<name>` form). */
  readonly onlyKey?: string;
  readonly predicate?: ObjectPredicate;
  /**
   * sendInitialEvents as given; undefined applies the default (spec §4.3): initial events when the
   * watch starts from resourceVersion "" or "0".
   */
  readonly sendInitialEvents?: boolean;
  readonly allowWatchBookmarks?: boolean;
  /** Period of BOOKMARK events when allowWatchBookmarks is set; 0 sends none. */
  readonly bookmarkIntervalMs?: number;
}

/** A BOOKMARK object: the resource's kind with only metadata.resourceVersion meaningful. */
export function bookmarkObject(s: ResolvedStrategy, revision: number, initialEventsEnd = false): ApiObject {
  const metadata: ApiObject['metadata'] = { resourceVersion: String(revision) };
  if (initialEventsEnd) metadata.annotations = { [INITIAL_EVENTS_END_ANNOTATION]: 'true' };
  return { kind: s.kind, apiVersion: s.apiVersion, metadata };
}

/**
 * Streams a collection's changes after revision `from` (0: from now, after the initial events when
 * they are asked for). A compacted `from` yields one ERROR event (410 Expired), an undecodable
 * value an ERROR event that ends the stream, as upstream. FutureRevision is thrown for the caller.
 */
export async function watchCollection(view: CollectionView, from: number, opts: CollectionWatchOptions, sink: WatchSink): Promise<WatchHandle> {
  const { storage, prefix, strategy } = view;
  const pred = opts.predicate && !opts.predicate.empty ? opts.predicate : undefined;
  const selected = (o: ApiObject): boolean => !pred || pred(o);
  const wanted = (key: string): boolean => opts.onlyKey === undefined || key === opts.onlyKey;
  let failed = false;
  let handle: WatchHandle | undefined;
  let timer: NodeJS.Timeout | undefined;
  const fail = (err: unknown): void => {
    failed = true;
    if (timer) clearInterval(timer);
    handle?.stop();
    sink.event({ type: 'ERROR', object: statusOf(err) });
    sink.close();
  };
  const noop: WatchHandle = { stop: () => {} };

  const initial = opts.sendInitialEvents ?? from === 0;
  if (initial) {
    const current = await storage.currentRevision();
    // NotOlderThan: a future resourceVersion cannot be served yet.
    if (from > current) throw new StorageError('FutureRevision', `revision ${from} is in the future`, { requested: from, current });
    const snapshot = await storage.list(prefix);
    try {
      for (const kv of snapshot.items) {
        if (!wanted(kv.key)) continue;
        const obj = view.decode(kv);
        if (selected(obj)) sink.event({ type: 'ADDED', object: obj });
      }
    } catch (err) {
      fail(err);
      return noop;
    }
    from = snapshot.revision;
    if (opts.sendInitialEvents === true && opts.allowWatchBookmarks) {
      sink.event({ type: 'BOOKMARK', object: bookmarkObject(strategy, from, true) });
    }
  } else if (from === 0) {
    from = await storage.currentRevision();
  }

  let lastRevision = from;
  try {
    handle = await storage.watch(prefix, from, {
      onEvent: (ev) => {
        if (failed) return;
        lastRevision = ev.revision;
        if (!wanted(ev.key)) return;
        let out: WatchEvent | undefined;
        try {
          out = translate(view, ev, pred ? selected : undefined);
        } catch (err) {
          fail(err);
          return;
        }
        if (out) sink.event(out);
      },
      onClose: () => {
        if (timer) clearInterval(timer);
        sink.close();
      },
    });
  } catch (err) {
    if (isStorageError(err, 'Compacted')) {
      sink.event({ type: 'ERROR', object: tooOldResourceVersion(from, err.details.compacted ?? 0).status });
      sink.close();
      return noop;
    }
    throw err;
  }
  if (failed) {
    handle.stop();
    return noop;
  }
  const interval = opts.bookmarkIntervalMs ?? DEFAULT_BOOKMARK_INTERVAL_MS;
  if (opts.allowWatchBookmarks && interval > 0) {
    timer = setInterval(() => {
      // A storage that tells watchers inside its writes has delivered every event up to its current
      // revision; one that tells them later (etcd) may not have, so its bookmarks stay at the last
      // event delivered: a client resuming from a bookmark must miss nothing.
      const upTo = storage.deliversInsideWrites ? storage.currentRevision() : Promise.resolve(lastRevision);
      upTo.then(
        (rev) => {
          if (!failed && timer) sink.event({ type: 'BOOKMARK', object: bookmarkObject(strategy, Math.max(rev, lastRevision)) });
        },
        () => {},
      );
    }, interval);
    timer.unref();
  }
  const h = handle;
  return {
    stop: () => {
      if (timer) clearInterval(timer);
      timer = undefined;
      h.stop();
    },
  };
}

/**
 * What one storage event becomes, shared by every watcher it is delivered to: storages hand the
 * same StorageEvent object to all the watchers of a prefix, one after the other (memory.ts, etcd.ts'
 * shared streams), so its value is decoded once and each outcome (ADDED, MODIFIED, DELETED) is one
 * WatchEvent object for all of them, which the handler then encodes once per encoding. Only the
 * latest event is remembered: that is the one being delivered, and the storage's own history (the
 * memory storage keeps minutes of events) must not keep decoded objects and their encodings alive.
 * The strategy guards against two collections seeing one event object differently.
 */
interface SharedEvent {
  readonly ev: StorageEvent;
  readonly strategy: ResolvedStrategy;
  cur?: ApiObject;
  prev?: ApiObject;
  readonly out: Partial<Record<'ADDED' | 'MODIFIED' | 'DELETED', WatchEvent>>;
}

let latest: SharedEvent | undefined;

function sharedOf(view: CollectionView, ev: StorageEvent): SharedEvent {
  if (latest?.ev !== ev || latest.strategy !== view.strategy) latest = { ev, strategy: view.strategy, out: {} };
  return latest;
}

/**
 * A storage event as the watcher sees it. With a selector, the old and new states are both
 * matched: entering the selection is ADDED, leaving it DELETED (the previous state at the event's
 * revision), staying MODIFIED, neither nothing. Only watchers with a selector run it; the objects
 * and events are the shared ones.
 */
function translate(view: CollectionView, ev: StorageEvent, selected: ((o: ApiObject) => boolean) | undefined): WatchEvent | undefined {
  const shared = sharedOf(view, ev);
  const at = (value: string): ApiObject => {
    const kv = { key: ev.key, value, createRevision: 0, modRevision: ev.revision };
    const obj = view.decodeEvent ? view.decodeEvent(kv) : view.decode(kv);
    // Handed to every watcher of the event from now on: final, and its JSON text made once.
    markShared(obj);
    return obj;
  };
  const cur = (): ApiObject | undefined => (ev.type !== 'DELETED' && ev.value !== undefined ? (shared.cur ??= at(ev.value)) : undefined);
  const prev = (): ApiObject | undefined => (ev.prevValue !== undefined ? (shared.prev ??= at(ev.prevValue)) : undefined);
  const event = (type: 'ADDED' | 'MODIFIED' | 'DELETED', object: () => ApiObject | undefined): WatchEvent =>
    (shared.out[type] ??= { type, object: object()! });
  if (!selected) {
    // DELETED carries the last stored state at the revision of the delete, as upstream.
    return ev.type === 'DELETED' ? event('DELETED', prev) : event(ev.type, cur);
  }
  const c = cur();
  const p = prev();
  const curIn = c !== undefined && selected(c);
  const prevIn = p !== undefined && selected(p);
  if (curIn && !prevIn) return event('ADDED', cur);
  if (curIn && prevIn) return event('MODIFIED', cur);
  if (!curIn && prevIn) return event('DELETED', prev);
  return undefined;
}

function statusOf(err: unknown): WatchEvent['object'] {
  return (err instanceof StatusError ? err : internal(err)).status;
}
