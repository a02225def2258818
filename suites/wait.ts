// Waiting for what a controller, the scheduler or an agent does: watches of one object with a
// bounded deadline, never fixed sleeps. Other runs and cases write to the same collections, so each
// helper follows its own object by name.
import type { CaseContext } from './case.js';
import { fail, show } from './verify.js';

/**
 * Waits, on a watch of the one object at `path` (a pod or node), until `pred` holds; returns the
 * object. Fails with the last state seen when `timeoutMs` passes. The watch is reopened if the server
 * ends it early.
 */
/** How long waitFor follows a watch that brings nothing before it reads the object again. */
const RESYNC_MS = 5_000;

export async function waitFor(ctx: CaseContext, path: string, pred: (o: any) => boolean, what: string, expected: string, timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  const slash = path.lastIndexOf('/');
  const collection = path.slice(0, slash);
  const name = path.slice(slash + 1);
  let last: any;
  while (Date.now() < deadline) {
    const res = await ctx.api.get(path);
    if (res.status === 200) {
      last = res.json;
      if (pred(last)) return last;
    } else if (res.status === 404) {
      // Gone before the first look (deleted faster than the case could ask): as a DELETED event.
      last = { deleted: true, metadata: { name } };
      if (pred(last)) return last;
    }
    const w = await ctx.api.watch(collection, { fieldSelector: `metadata.name=${name}`, resourceVersion: res.json?.metadata?.resourceVersion, allowWatchBookmarks: false });
    try {
      if (w.status !== 200) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      for (;;) {
        const left = deadline - Date.now();
        if (left <= 0) break;
        // A quiet watch is read again from a fresh GET every few seconds, as informers resync: a
        // server (or a proxy) may end a watch's events without ending the stream.
        const ev = await w.next(Math.min(left, RESYNC_MS));
        if (!ev) break;
        if (ev.type === 'ERROR') break;
        if (ev.object?.metadata?.name !== name) continue;
        if (ev.type === 'DELETED') { last = { deleted: true, ...ev.object }; if (pred(last)) return last; continue; }
        last = ev.object;
        if (pred(last)) return last;
      }
    } finally {
      w.close();
    }
  }
  return fail(`${what} (within ${timeoutMs / 1000}s)`, expected, show(last?.status ?? last ?? 'nothing read'));
}

/** Waits until the object at `path` is gone (404). */
export async function waitGone(ctx: CaseContext, path: string, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 0;
  while (Date.now() < deadline) {
    const res = await ctx.api.get(path);
    last = res.status;
    if (res.status === 404) return;
    const left = deadline - Date.now();
    if (left <= 0) break;
    await waitFor(ctx, path, (o) => !!o?.deleted, what, 'the object deleted', Math.min(left, 5_000)).catch(() => undefined);
  }
  fail(`${what} (within ${timeoutMs / 1000}s)`, 'the object gone (404)', `HTTP ${last}`);
}


/**
 * Watches the object at `path` for `windowMs` and fails as soon as `pred` stops holding (or it is
 * deleted, unless `pred` accepts `{deleted: true}`): for rules that say something must NOT happen
 * yet (no pod of a gang bound before minCount pods exist), observed for a bounded window.
 */
export async function holdsFor(ctx: CaseContext, path: string, pred: (o: any) => boolean, windowMs: number, what: string, expected: string): Promise<any> {
  const slash = path.lastIndexOf('/');
  const collection = path.slice(0, slash);
  const name = path.slice(slash + 1);
  const until = Date.now() + windowMs;
  /** Reads the object and checks it: the first look, and again whenever the watch has to restart. */
  const look = async (): Promise<any> => {
    const res = await ctx.api.get(path);
    if (res.status !== 200) fail(what, expected, `GET ${path}: HTTP ${res.status}`);
    if (!pred(res.json)) fail(what, expected, show(res.json?.status ?? res.json));
    return res.json;
  };
  let last = await look();
  for (;;) {
    const w = await ctx.api.watch(collection, { fieldSelector: `metadata.name=${name}`, resourceVersion: last?.metadata?.resourceVersion, allowWatchBookmarks: false });
    try {
      // A server may compact history at any time: a resourceVersion that expired between the read and
      // the watch (410, as a status or an ERROR event) is no answer about the object, so read it again
      // and watch from there, as informers relist.
      if (w.status === 410) { last = await look(); continue; }
      if (w.status !== 200) fail(what, expected, `watch ${collection}: HTTP ${w.status}`);
      let expired = false;
      while (!expired) {
        const left = until - Date.now();
        if (left <= 0) return last;
        const ev = await w.next(left);
        if (!ev) return last;
        if (ev.type === 'ERROR') {
          if (ev.object?.code === 410) { expired = true; continue; }
          fail(what, expected, `watch error: ${show(ev.object)}`);
        }
        if (ev.object?.metadata?.name !== name) continue;
        last = ev.type === 'DELETED' ? { deleted: true, ...ev.object } : ev.object;
        if (!pred(last)) fail(`${what} (within ${windowMs / 1000}s)`, expected, show(last?.status ?? last));
      }
    } finally {
      w.close();
    }
    if (Date.now() >= until) return last;
    last = await look();
  }
}
