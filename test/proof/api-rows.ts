// Breakages for suites/000-control-plane/4.3-limits-and-sets.ts and 7-messages.ts: each a target
// that gets exactly that case's rule wrong.
import { answer, editJson, statusBody, type Breakage, type ProxiedRequest, type ProxiedResponse } from '../helpers/broken-target.js';

const url = (r: ProxiedRequest) => new URL(r.path, 'http://proxy.invalid');
const param = (r: ProxiedRequest, name: string): string | null => url(r).searchParams.get(name);
const has = (r: ProxiedRequest, name: string): boolean => url(r).searchParams.has(name);
const isRoles = (r: ProxiedRequest) => /\/roles$/.test(url(r).pathname);
const isRoleList = (r: ProxiedRequest) => r.method === 'GET' && isRoles(r) && param(r, 'watch') !== 'true';
const isApply = (r: ProxiedRequest) => r.method === 'PATCH' && (r.headers['content-type'] ?? '').startsWith('application/apply-patch');

function editQuery(r: ProxiedRequest, edit: (q: URLSearchParams) => void): void {
  const u = url(r);
  edit(u.searchParams);
  r.path = u.pathname + u.search;
}

/** Rewrites the texts of a 422 response (a server with other words for the same error). */
const reword = (from: RegExp, to: string): Breakage => ({
  response: (_r, res) => {
    if (res.status === 422) res.body = res.body.replace(from, to);
  },
});

/** Answers bad options of `kind` as an invalid object named after the request path. */
const namedOptions = (kind: string): Breakage => ({
  response: (r, res) => {
    if (res.status === 422) res.body = res.body.split(`${kind}.meta.orch.io \\"\\" is invalid`).join(`${kind}.meta.orch.io \\"${url(r).pathname.split('/').pop()}\\" is invalid`);
  },
});

const fakeToken = (rv: string, after: string) => Buffer.from(JSON.stringify({ v: 'meta.orch.io/v1', rv: Number(rv), start: `${after}\u0000` })).toString('base64url');

/** First (continue-less) pages of a list with limit=1, whose answer the breakage completes. */
const ignoredLimit = new WeakSet<ProxiedRequest>();

export const apiRowsBreakages: Record<string, Breakage> = {
  // Refuses list-only members of the collection-delete set.
  'api.delete.collection.query-set': {
    request: (r) => (r.method === 'DELETE' && isRoles(r) && (has(r, 'timeoutSeconds') || has(r, 'limit')) ? answer(400, statusBody(400, 'BadRequest', 'limit and timeoutSeconds are not supported on delete collection')) : undefined),
  },
  // A short chunk that claims to be the last: drops an item and the continue token.
  'api.list.limit.fewer-items': {
    response: (r, res) => {
      if (isRoleList(r) && has(r, 'limit')) editJson(res, (o) => { if (o.metadata?.continue && Array.isArray(o.items)) { o.items.pop(); delete o.metadata.continue; } });
    },
  },
  // Ignores limit yet hands out a continue token, so the next chunk repeats objects.
  'api.list.limit.ignored': {
    request: (r) => {
      if (isRoleList(r) && param(r, 'limit') === '1' && !has(r, 'continue')) {
        editQuery(r, (q) => q.delete('limit'));
        ignoredLimit.add(r);
      }
    },
    response: (r, res) => {
      if (ignoredLimit.has(r)) editJson(res, (o) => { if (o.items?.length) o.metadata = { ...o.metadata, continue: fakeToken(o.metadata.resourceVersion, o.items[0].metadata.name) }; });
    },
  },
  // Requires resourceVersionMatch whenever resourceVersion is set.
  'api.list.resource-version.without-match': {
    request: (r) =>
      isRoleList(r) && has(r, 'resourceVersion') && !has(r, 'resourceVersionMatch')
        ? answer(422, statusBody(422, 'Invalid', 'ListOptions.meta.orch.io "" is invalid: resourceVersionMatch: Required value', [{ field: 'resourceVersionMatch', reason: 'FieldValueRequired' }]))
        : undefined,
  },
  // A bookmark that goes back to resourceVersion 1 after the first change.
  'api.watch.bookmarks.discretion': {
    watchLine: (r, line) => {
      if (param(r, 'allowWatchBookmarks') !== 'true' || !line.includes('"type":"ADDED"')) return line;
      return `${line}\n${JSON.stringify({ type: 'BOOKMARK', object: { kind: 'Role', apiVersion: 'rbac.authorization.orch.io/v1', metadata: { resourceVersion: '1' } } })}`;
    },
  },
  // Strict is not applied to apply bodies (the default, Warn, is).
  'api.write-params.field-validation.apply.strict': { request: (r) => { if (isApply(r)) editQuery(r, (q) => q.delete('fieldValidation')); } },
  // Apply never warns.
  'api.write-params.field-validation.apply.warn': { response: (r, res) => { if (isApply(r)) for (const k of Object.keys(res.headers)) if (k.toLowerCase() === 'warning') delete res.headers[k]; } },
  // Ignore read as Warn on apply.
  'api.write-params.field-validation.apply.ignore': { request: (r) => { if (isApply(r) && param(r, 'fieldValidation') === 'Ignore') editQuery(r, (q) => q.set('fieldValidation', 'Warn')); } },
  // Answers a delete collection with an empty list.
  'api.delete.collection.response': {
    response: (r, res) => {
      if (r.method === 'DELETE' && isRoles(r)) editJson(res, (o) => (o.kind === 'Status' ? { ...o, status: 'Failure' } : { ...o, items: [] }));
    },
  },
  // No delete collection of cluster role bindings.
  'api.rbac.clusterrolebindings.delete-collection': {
    request: (r) => (r.method === 'DELETE' && /\/clusterrolebindings$/.test(url(r).pathname) ? answer(405, statusBody(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource')) : undefined),
  },
  // Events are not readable by name.
  'api.event.ordinary-object': {
    request: (r): ProxiedResponse | undefined => {
      const m = /\/events\/([^/]+)$/.exec(url(r).pathname);
      return r.method === 'GET' && m ? answer(404, statusBody(404, 'NotFound', `events.events.orch.io "${m[1]}" not found`)) : undefined;
    },
  },

  // ---------------------------------------------------------------- §7 texts
  'api.errors.field-message.required': reword(/Required value/g, 'required field is missing'),
  'api.errors.field-message.forbidden': reword(/Forbidden: /g, 'forbidden: '),
  'api.errors.field-message.invalid': reword(/Invalid value: \\"Bad_Name\\": /g, 'Invalid value: Bad_Name: '),
  'api.errors.field-message.unsupported': reword(/supported values: /g, 'expected one of: '),
  'api.errors.field-message.too-long': reword(/Too long: may not be more than 262144 bytes/g, 'Too long: must have at most 262144 bytes'),
  'api.errors.field-message.immutable': reword(/field is immutable/g, 'may not be changed'),
  'api.errors.invalid-options.listoptions': namedOptions('ListOptions'),
  'api.errors.invalid-options.deleteoptions': namedOptions('DeleteOptions'),
  'api.errors.invalid-options.patchoptions': namedOptions('PatchOptions'),
  'api.errors.invalid-options.createoptions': namedOptions('CreateOptions'),
  'api.errors.invalid-options.updateoptions': namedOptions('UpdateOptions'),
};
