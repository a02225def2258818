// Breakages for the list and watch semantics cases (suites/000-control-plane/4.3-list.ts and
// 6-watch-semantics.ts): each a target that gets exactly that case's rule wrong.
import { answer, editJson, statusBody, type Breakage, type ProxiedRequest } from '../helpers/broken-target.js';

const url = (r: ProxiedRequest) => new URL(r.path, 'http://proxy.invalid');
const param = (r: ProxiedRequest, name: string): string | null => url(r).searchParams.get(name);
const has = (r: ProxiedRequest, name: string): boolean => url(r).searchParams.has(name);
const isRoles = (r: ProxiedRequest) => r.method === 'GET' && /\/roles$/.test(url(r).pathname);
const isWatch = (r: ProxiedRequest) => param(r, 'watch') === 'true' || url(r).pathname.includes('/watch/');
const isList = (r: ProxiedRequest) => isRoles(r) && !isWatch(r);

/** Rewrites the query of a request. */
function editQuery(r: ProxiedRequest, edit: (q: URLSearchParams) => void): void {
  const u = url(r);
  edit(u.searchParams);
  r.path = u.pathname + u.search;
}

/** Rewrites the labelSelector of a Role list or watch. */
function editLabels(r: ProxiedRequest, edit: (sel: string) => string): void {
  if (!isRoles(r) || !has(r, 'labelSelector')) return;
  editQuery(r, (q) => q.set('labelSelector', edit(q.get('labelSelector')!)));
}

const dropParams = (...names: string[]) => (r: ProxiedRequest) => {
  if (isRoles(r) || r.method === 'GET') editQuery(r, (q) => names.forEach((n) => q.delete(n)));
};

const parseLine = (line: string): any => {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
};

const fakeBookmark = (annotations?: Record<string, string>) =>
  JSON.stringify({ type: 'BOOKMARK', object: { kind: 'Role', apiVersion: 'rbac.authorization.orch.io/v1', metadata: { resourceVersion: '1', ...(annotations ? { annotations } : {}) } } });

const compact = (res: { body: string }) => editJson(res, (o) => o);
const indent = (res: { body: string }) => {
  try {
    res.body = JSON.stringify(JSON.parse(res.body), null, 2);
  } catch {
    // not JSON: leave it
  }
};

/** Events of a watch stream seen so far, per request. */
const linesSeen = new WeakMap<ProxiedRequest, number>();

export const listWatchBreakages: Record<string, Breakage> = {
  // ---------------------------------------------------------------- labelSelector
  // Ignores `tier=a` / `tier==a`.
  'api.list.label-selector.equals': { request: (r) => editLabels(r, (s) => s.split(',').filter((t) => !/^tier==?a$/.test(t)).join(',')) },
  // `!=` needs the key to exist.
  'api.list.label-selector.not-equals': { request: (r) => editLabels(r, (s) => s.replace('tier!=a', 'tier,tier!=a')) },
  // `in` read as `notin`.
  'api.list.label-selector.in': { request: (r) => editLabels(r, (s) => s.replace(' in (', ' notin (')) },
  // `notin` needs the key to exist.
  'api.list.label-selector.notin': { request: (r) => editLabels(r, (s) => s.replace('tier notin (a)', 'tier,tier notin (a)')) },
  // Ignores a bare key.
  'api.list.label-selector.exists': { request: (r) => editLabels(r, (s) => s.split(',').filter((t) => t !== 'tier').join(',')) },
  // Reads `!key` as `key`.
  'api.list.label-selector.does-not-exist': { request: (r) => editLabels(r, (s) => s.replace('!tier', 'tier')) },
  // Only the first requirements count.
  'api.list.label-selector.and': { request: (r) => editLabels(r, (s) => s.replace(',tier!=b', '')) },
  // Ignores selectors it cannot parse.
  'api.list.label-selector.malformed': { request: (r) => { if (isList(r) && !(param(r, 'labelSelector') ?? '').includes('conformance')) editQuery(r, (q) => q.delete('labelSelector')); } },

  // ---------------------------------------------------------------- fieldSelector
  'api.list.field-selector.name': { request: dropParams('fieldSelector') },
  'api.list.field-selector.namespace': { request: dropParams('fieldSelector') },
  'api.list.field-selector.event-fields': { request: dropParams('fieldSelector') },
  // Ignores fields it does not know.
  'api.list.field-selector.unsupported': { request: dropParams('fieldSelector') },

  // ---------------------------------------------------------------- limit, continue
  // One more item per chunk than asked.
  'api.list.limit.max-items': { request: (r) => { if (isList(r) && param(r, 'limit') === '1') editQuery(r, (q) => q.set('limit', '2')); } },
  // Continued chunks never say more follow.
  'api.list.limit.continue-chain': { response: (r, res) => { if (isList(r) && has(r, 'continue')) editJson(res, (o) => { if (o.metadata) delete o.metadata.continue; }); } },
  // Continues from the latest state instead of the first chunk's snapshot (rv -1 in the token).
  'api.list.limit.consistent-snapshot': {
    request: (r) => {
      const token = isList(r) ? param(r, 'continue') : null;
      if (!token) return;
      const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
      editQuery(r, (q) => q.set('continue', Buffer.from(JSON.stringify({ ...t, rv: -1 })).toString('base64url')));
    },
  },
  // Miscounts what is left.
  'api.list.limit.remaining-item-count': { response: (r, res) => { if (isList(r)) editJson(res, (o) => { if (typeof o.metadata?.remainingItemCount === 'number') o.metadata.remainingItemCount += 1; }); } },
  // Serves limit on a watch, as a cap on events.
  'api.list.limit.not-with-watch': {
    request: (r) => {
      if (isRoles(r) && isWatch(r) && param(r, 'limit') === '1') {
        editQuery(r, (q) => q.delete('limit'));
        linesSeen.set(r, 0);
      }
    },
    watchLine: (r, line) => {
      const n = linesSeen.get(r);
      if (n === undefined) return line;
      linesSeen.set(r, n + 1);
      return n === 0 ? line : undefined;
    },
  },
  // Answers a watch with continue by continuing a list.
  'api.list.continue.not-with-watch': {
    request: (r) => (isRoles(r) && isWatch(r) && has(r, 'continue') ? answer(200, { kind: 'RoleList', apiVersion: 'rbac.authorization.orch.io/v1', metadata: {}, items: [] }) : undefined),
  },
  // Takes any continue token (ignoring it).
  // Neither refused nor answered with a list: a 200 whose body is no list.
  'api.list.continue.invalid-token': { request: (r) => (isList(r) && param(r, 'continue') === 'not a token!' ? answer(200, statusBody(400, 'BadRequest', 'invalid continue token')) : undefined) },
  // Tokens in another form (not base64url: a version prefix and a colon).
  'api.list.continue.token-format': {
    response: (r, res) => {
      if (isList(r)) editJson(res, (o) => { if (o.metadata?.continue) o.metadata.continue = `v1:${o.metadata.continue}`; });
    },
  },
  // Lets resourceVersion pass with continue (ignoring it).
  'api.list.continue.with-resource-version': { request: (r) => { if (isList(r) && has(r, 'continue')) editQuery(r, (q) => q.delete('resourceVersion')); } },

  // ---------------------------------------------------------------- resourceVersion
  // Cannot serve NotOlderThan.
  'api.list.resource-version.not-older-than': {
    request: (r) => (isList(r) && param(r, 'resourceVersionMatch') === 'NotOlderThan' ? answer(410, statusBody(410, 'Expired', 'too old resource version')) : undefined),
  },
  // Serves Exact from the latest state.
  'api.list.resource-version.exact': { request: (r) => { if (isList(r) && param(r, 'resourceVersionMatch') === 'Exact') editQuery(r, (q) => { q.delete('resourceVersionMatch'); q.delete('resourceVersion'); }); } },
  'api.list.resource-version-match.unknown-value': { request: (r) => { if (isList(r) && param(r, 'resourceVersionMatch') === 'Newest') editQuery(r, (q) => q.delete('resourceVersionMatch')); } },
  'api.list.resource-version-match.without-resource-version': { request: (r) => { if (isList(r) && !has(r, 'resourceVersion')) editQuery(r, (q) => q.delete('resourceVersionMatch')); } },
  'api.list.resource-version-match.exact-zero': { request: (r) => { if (isList(r) && param(r, 'resourceVersion') === '0') editQuery(r, (q) => q.delete('resourceVersionMatch')); } },

  // ---------------------------------------------------------------- other list parameters
  'api.list.allow-watch-bookmarks.ignored-for-list': {
    request: (r) => (isList(r) && has(r, 'allowWatchBookmarks') ? answer(400, statusBody(400, 'BadRequest', 'allowWatchBookmarks is only for watches')) : undefined),
  },
  'api.list.send-initial-events.forbidden-for-list': { request: (r) => { if (isList(r)) editQuery(r, (q) => q.delete('sendInitialEvents')); } },
  'api.list.list-set': {
    request: (r) => (isList(r) && has(r, 'timeoutSeconds') ? answer(400, statusBody(400, 'BadRequest', 'timeoutSeconds is only for watches')) : undefined),
  },

  // ---------------------------------------------------------------- pretty
  'api.list.pretty.true': { response: (r, res) => { if (isList(r)) compact(res); } },
  'api.list.pretty.default-compact': { response: (r, res) => { if (isList(r) && !has(r, 'pretty')) indent(res); } },
  // Knows curl but not Wget.
  'api.list.pretty.default-cli-tools': { response: (r, res) => { if (isList(r) && !has(r, 'pretty') && (r.headers['user-agent'] ?? '').startsWith('Wget')) compact(res); } },
  'api.list.pretty.default-browser': { response: (r, res) => { if (isList(r)) compact(res); } },

  // ---------------------------------------------------------------- shardSelector
  // Ignores the selector but claims to honour it.
  'api.list.shard-selector.uid-halves': { request: dropParams('shardSelector') },
  // Hashes namespaces into the other half.
  'api.list.shard-selector.namespace-path': {
    request: (r) => {
      const sel = isList(r) ? param(r, 'shardSelector') : null;
      if (!sel?.includes('object.metadata.namespace')) return;
      const swapped = sel.includes("'0x0000000000000000'")
        ? "shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')"
        : "shardRange(object.metadata.namespace, '0x0000000000000000', '0x8000000000000000')";
      editQuery(r, (q) => q.set('shardSelector', swapped));
    },
  },
  'api.list.shard-selector.shard-info': { response: (r, res) => { if (isList(r)) editJson(res, (o) => { if (o.metadata) delete o.metadata.shardInfo; }); } },
  // Falls back to the whole range on what it cannot parse.
  'api.list.shard-selector.malformed': { request: (r) => { if (isList(r) && has(r, 'shardSelector')) editQuery(r, (q) => q.set('shardSelector', "shardRange(object.metadata.uid, '0x0', '0x10000000000000000')")); } },
  // Claims to honour it with the gate off.
  'api.list.shard-selector.gate-off': { response: (r, res) => { if (isList(r) && has(r, 'shardSelector')) editJson(res, (o) => { o.metadata = { ...o.metadata, shardInfo: { selector: param(r, 'shardSelector') } }; }); } },

  // ---------------------------------------------------------------- watch
  // Ignores the resourceVersion of a watch: starts from now, with the current objects.
  'api.watch.resume-from-resource-version': { request: (r) => { if (isRoles(r) && isWatch(r)) editQuery(r, (q) => q.delete('resourceVersion')); } },
  // No /watch/ path form.
  'api.watch.path-form': { request: (r) => (url(r).pathname.includes('/watch/') ? answer(404, statusBody(404, 'NotFound', 'the server could not find the requested resource')) : undefined) },
  'api.watch.chunked-json': { request: (r) => (isRoles(r) && isWatch(r) ? { status: 200, headers: { 'content-type': 'text/plain' }, body: '' } : undefined) },
  // The initial-events bookmark comes first, before the objects.
  'api.watch.initial-events': {
    watchLine: (r, line) => {
      if (param(r, 'sendInitialEvents') !== 'true') return line;
      const first = !linesSeen.has(r);
      linesSeen.set(r, 1);
      return first ? `${fakeBookmark({ 'orch.io/initial-events-end': 'true' })}\n${line}` : line;
    },
  },
  // Bookmarks without a resourceVersion.
  'api.watch.bookmark-object': {
    watchLine: (_r, line) => {
      const ev = parseLine(line);
      if (ev?.type !== 'BOOKMARK') return line;
      delete ev.object.metadata.resourceVersion;
      return JSON.stringify(ev);
    },
  },
  // Bookmarks to clients that did not ask, before the current objects (the stream must begin with them).
  'api.watch.bookmarks.unasked': {
    watchLine: (r, line) => (param(r, 'allowWatchBookmarks') === 'false' && parseLine(line)?.type === 'ADDED' ? `${fakeBookmark()}\n${line}` : line),
  },
  // No initial events without a resourceVersion.
  'api.watch.send-initial-events.default-without-resource-version': {
    request: (r) => { if (isRoles(r) && isWatch(r) && !has(r, 'resourceVersion') && !has(r, 'sendInitialEvents')) editQuery(r, (q) => { q.set('sendInitialEvents', 'false'); q.set('resourceVersionMatch', 'NotOlderThan'); }); },
  },
  // Initial events even from a resourceVersion.
  'api.watch.send-initial-events.default-with-resource-version': {
    request: (r) => { if (isRoles(r) && isWatch(r) && has(r, 'resourceVersion') && !has(r, 'sendInitialEvents')) editQuery(r, (q) => { q.set('sendInitialEvents', 'true'); q.set('resourceVersionMatch', 'NotOlderThan'); }); },
  },
  // Treats sendInitialEvents with a resourceVersion as "changes after it".
  'api.watch.send-initial-events.not-older-than': {
    watchLine: (r, line) => (param(r, 'sendInitialEvents') === 'true' && has(r, 'resourceVersion') && parseLine(line)?.type === 'ADDED' ? undefined : line),
  },
  // Defaults resourceVersionMatch instead of refusing.
  'api.watch.send-initial-events.requires-match': { request: (r) => { if (isRoles(r) && isWatch(r) && has(r, 'sendInitialEvents')) editQuery(r, (q) => q.set('resourceVersionMatch', 'NotOlderThan')); } },
  // Refuses Exact with causes worded its own way.
  'api.watch.send-initial-events.exact-refused-messages': {
    // A refused watch's Status comes through the watch path of the proxy, as its only "line".
    watchLine: (r, line) => {
      const o = param(r, 'resourceVersionMatch') === 'Exact' ? parseLine(line) : undefined;
      if (o?.kind !== 'Status') return line;
      for (const c of o.details?.causes ?? []) c.message = 'not allowed';
      return JSON.stringify(o);
    },
  },
  // Takes Exact (as if NotOlderThan).
  'api.watch.send-initial-events.exact-refused': {
    request: (r) => { if (isRoles(r) && isWatch(r) && param(r, 'resourceVersionMatch') === 'Exact') editQuery(r, (q) => { q.set('resourceVersionMatch', 'NotOlderThan'); q.delete('resourceVersion'); }); },
  },
  // Ignores timeoutSeconds.
  'api.watch.timeout-seconds': { request: (r) => { if (isRoles(r) && isWatch(r)) editQuery(r, (q) => q.delete('timeoutSeconds')); } },
  // Says goodbye with an ERROR event before a timed-out watch ends.
  'api.watch.timeout-seconds.ends-quietly': {
    watchLine: (r, line) => {
      if (!isRoles(r) || !has(r, 'timeoutSeconds')) return line;
      const first = !linesSeen.has(r);
      linesSeen.set(r, 1);
      const error = { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'watch closing', reason: 'InternalError', code: 500 } };
      return first ? `${JSON.stringify(error)}\n${line}` : line;
    },
  },
  // Watches ignore part of the label selector.
  'api.watch.label-selector.filters': { request: (r) => { if (isWatch(r)) editLabels(r, (s) => s.replace(',tier=a', '')); } },
  'api.watch.field-selector.filters': { request: (r) => { if (isRoles(r) && isWatch(r)) editQuery(r, (q) => q.delete('fieldSelector')); } },
  // An object leaving the selection is reported as modified.
  'api.watch.selector.leaving-is-deleted': { watchLine: (_r, line) => line.replace('"type":"DELETED"', '"type":"MODIFIED"') },
  // An object entering the selection is reported as modified.
  'api.watch.selector.entering-is-added': { watchLine: (_r, line) => line.replace('"type":"ADDED"', '"type":"MODIFIED"') },
  // Watches ignore the shard selector.
  'api.watch.shard-selector': { request: (r) => { if (isRoles(r) && isWatch(r)) editQuery(r, (q) => q.delete('shardSelector')); } },
};
