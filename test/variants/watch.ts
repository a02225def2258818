// Freedoms of watch streams (§4.3 allowWatchBookmarks, sendInitialEvents, §6): bookmarks at the
// server's discretion, at any moment and any number of times, asked for or not. (The other outcome,
// none at all, is the reference's own within a run: its bookmarks come once a minute, and only when
// asked.) In VARIANT_RUNS bookmarks-unasked runs apart from bookmarks-injected, and nearer the
// reference than resource-versions-opaque, which then rewrites its bookmarks' resourceVersions too.
import type { Breakage, ProxiedRequest } from '../helpers/broken-target.js';
import { editParams, isWatch, params, watchEvent, type LegalVariant } from '../helpers/variant-target.js';

const INITIAL_EVENTS_END = 'orch.io/initial-events-end';
/** How often an idle stream gets a bookmark of its own. */
const BOOKMARK_EVERY_MS = 100;

const wantsBookmarks = (req: ProxiedRequest) => params(req).get('allowWatchBookmarks') === 'true';
const isInitialEventsEnd = (e: { type: string; object: any }) => e.type === 'BOOKMARK' && e.object?.metadata?.annotations?.[INITIAL_EVENTS_END] === 'true';

/** What a stream has shown so far: enough to send a bookmark a client can resume from. */
interface StreamState {
  kind?: string;
  apiVersion?: string;
  /** The resourceVersion of the last event sent. */
  rv?: string;
  /** Past the initial events (if any), where a bookmark cannot break the sendInitialEvents contract. */
  live: boolean;
}

function bookmark(s: StreamState): string | undefined {
  if (!s.live || !s.kind || !s.rv) return undefined;
  return JSON.stringify({ type: 'BOOKMARK', object: { kind: s.kind, apiVersion: s.apiVersion, metadata: { resourceVersion: s.rv } } });
}

/**
 * Bookmarks of the proxy's own on the watches `applies` picks: one after every event and one every
 * 100 ms, once past the initial events (where a bookmark cannot break the sendInitialEvents contract).
 */
function injectedBookmarks(applies: (req: ProxiedRequest) => boolean): Pick<Breakage, 'watchOpen' | 'watchLine'> {
  const streams = new WeakMap<ProxiedRequest, StreamState>();
  return {
    watchOpen(req, push) {
      if (!applies(req)) return;
      const q = params(req);
      const rv = q.get('resourceVersion') ?? '';
      // Initial events (sendInitialEvents, or a watch from "now" that lists what exists first)
      // carry each object's own resourceVersion: no bookmark goes among them.
      const live = q.get('sendInitialEvents') !== 'true' && rv !== '' && rv !== '0';
      const s: StreamState = { live };
      streams.set(req, s);
      const timer = setInterval(() => {
        const b = bookmark(s);
        if (b) push(b);
      }, BOOKMARK_EVERY_MS);
      return () => clearInterval(timer);
    },
    watchLine(req, line) {
      const s = streams.get(req);
      const e = s && watchEvent(line);
      if (!s || !e || e.type === 'ERROR') return line;
      const o = e.object;
      if (typeof o?.kind === 'string') s.kind = o.kind;
      if (typeof o?.apiVersion === 'string') s.apiVersion = o.apiVersion;
      if (typeof o?.metadata?.resourceVersion === 'string') s.rv = o.metadata.resourceVersion;
      if (isInitialEventsEnd(e) || (e.type !== 'ADDED' && e.type !== 'BOOKMARK')) s.live = true;
      const b = bookmark(s);
      return b ? `${line}\n${b}` : line;
    },
  };
}

export const watchVariants: LegalVariant[] = [
  {
    name: 'bookmarks-injected',
    freedom: '§4.3 allowWatchBookmarks: bookmarks at the server\'s discretion, "no interval is guaranteed": one after every event and one every 100 ms',
    hooks: () => injectedBookmarks(wantsBookmarks),
  },
  {
    name: 'bookmarks-unasked',
    freedom: '§4.3 allowWatchBookmarks: "Servers may ignore it and send bookmarks at their discretion": bookmarks on every watch that did not ask for them (the reference\'s own, the initial-events-end one included, and one after every event and every 100 ms once the initial events are over)',
    hooks: () => {
      const unasked = new WeakSet<ProxiedRequest>();
      return {
        request(req) {
          if (!isWatch(req) || wantsBookmarks(req)) return;
          unasked.add(req);
          // The reference then sends its own bookmarks too, the end of the initial events included.
          editParams(req, (q) => q.set('allowWatchBookmarks', 'true'));
        },
        ...injectedBookmarks((req) => unasked.has(req)),
      };
    },
  },
];
