// Breakages for the generated operation cases (suites/000-control-plane/4.2-operations.ts): for each
// kind, a target that gets exactly one operation wrong.
import { KINDS, collectionPath, type ResourceKind } from '../../suites/000-control-plane/kinds.js';
import { answer, editJson, jsonBody, statusBody, type Breakage, type ProxiedRequest } from '../helpers/broken-target.js';

const pathOnly = (r: ProxiedRequest) => r.path.split('?')[0]!;

/** The collection path of `k` with any namespace, as a pattern. */
function collectionPattern(k: ResourceKind): RegExp {
  // A placeholder that URL encoding leaves alone, swapped for "any namespace" after escaping.
  const escaped = collectionPath(k, 'NAMESPACE-PLACEHOLDER').replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('NAMESPACE-PLACEHOLDER', '[^/]+');
  return new RegExp(`^${escaped}`);
}

/** `patch` merged into `base` the JSON merge patch way (objects by key, the rest replaced). */
function mergeInto(base: any, patch: any): any {
  if (!patch || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out = { ...(base && typeof base === 'object' && !Array.isArray(base) ? base : {}) };
  for (const [key, v] of Object.entries(patch)) out[key] = mergeInto(out[key], v);
  return out;
}

export function operationBreakagesFor(k: ResourceKind): Record<string, Breakage> {
  const col = collectionPattern(k);
  const isCollection = (r: ProxiedRequest) => col.test(pathOnly(r)) && pathOnly(r).replace(col, '') === '';
  const isItem = (r: ProxiedRequest) => col.test(pathOnly(r)) && /^\/[^/]+$/.test(pathOnly(r).replace(col, ''));
  const isStatus = (r: ProxiedRequest) => col.test(pathOnly(r)) && /^\/[^/]+\/status$/.test(pathOnly(r).replace(col, ''));
  const id = (s: string) => `api.${k.kind.toLowerCase()}.${s}`;
  const notFound = () => answer(404, statusBody(404, 'NotFound', 'not found'));
  const out: Record<string, Breakage> = {
    // Answers creates without the labels that were sent.
    [id('create')]: { response: (r, res) => { if (r.method === 'POST' && isCollection(r)) editJson(res, (o) => { delete o.metadata?.labels; }); } },
    // Cannot read single objects.
    [id('read')]: { request: (r) => (r.method === 'GET' && isItem(r) ? notFound() : undefined) },
    // Acknowledges a PUT without storing it.
    [id('replace')]: { request: (r) => (r.method === 'PUT' && isItem(r) ? answer(200, r.body) : undefined) },
    // Accepts a merge patch but applies nothing.
    [id('patch.merge')]: { request: (r) => { if (r.method === 'PATCH' && isItem(r)) r.body = '{}'; } },
    // Empty lists carry items: null.
    [id('list.shape')]: { response: (r, res) => { if (r.method === 'GET' && isCollection(r)) editJson(res, (o) => { if (Array.isArray(o.items) && o.items.length === 0) o.items = null; }); } },
    // Pages without saying so: only the first item.
    [id('list')]: { response: (r, res) => { if (r.method === 'GET' && isCollection(r)) editJson(res, (o) => { if (Array.isArray(o.items)) o.items = o.items.slice(0, 1); }); } },
    // Loses updates on watches.
    [id('watch')]: { watchLine: (_r, line) => (line.includes('"MODIFIED"') ? undefined : line) },
  };
  if (k.deleteResponse === 'object') {
    out[id('delete.returns-object')] = { response: (r, res) => { if (r.method === 'DELETE' && isItem(r) && res.status < 300) res.body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' }); } };
  } else if (k.deleteResponse === 'status') {
    out[id('delete.returns-status')] = { response: (r, res) => { if (r.method === 'DELETE' && isItem(r) && res.status < 300) res.body = JSON.stringify({ kind: k.kind, apiVersion: k.apiVersion, metadata: { name: pathOnly(r).split('/').pop() } }); } };
  } else {
    // Says it deleted, keeps the object.
    out[id('delete')] = { request: (r) => (r.method === 'DELETE' && isItem(r) ? answer(200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' }) : undefined) };
  }
  if (k.namespaced) {
    out[id('delete-collection')] = { request: (r) => (r.method === 'DELETE' && isCollection(r) ? answer(200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' }) : undefined) };
  }
  if (k.hasStatus) {
    const toMain = (r: ProxiedRequest) => { r.path = r.path.replace(/\/status(\?|$)/, '$1'); };
    out[id('status.read')] = { request: (r) => (r.method === 'GET' && isStatus(r) ? notFound() : undefined) };
    // Writes through /status land on the main resource: spec changes apply, status ones do not.
    out[id('status.replace')] = { request: (r) => { if (r.method === 'PUT' && isStatus(r)) toMain(r); } };
    out[id('status.patch')] = { request: (r) => { if (r.method === 'PATCH' && isStatus(r)) toMain(r); } };
    // Writes through /status also apply the spec they carry.
    const appliesSpec = (method: string): Breakage => ({
      response: (r, res) => {
        const spec = r.method === method && isStatus(r) && res.status < 300 ? jsonBody(r)?.spec : undefined;
        if (spec) editJson(res, (o) => { o.spec = mergeInto(o.spec, spec); });
      },
    });
    out[id('status.replace.spec-ignored')] = appliesSpec('PUT');
    out[id('status.patch.spec-ignored')] = appliesSpec('PATCH');
    // A main-resource PUT also writes the status it carries.
    out[id('status.ignored-on-main')] = {
      request: (r) => { if (r.method === 'PUT' && isItem(r) && jsonBody(r)?.status) r.path = r.path.replace(/(\?|$)/, '/status$1'); },
    };
  }
  return out;
}

/** StorageClass cases of 4.2-operations.ts that are not generated per kind. */
const storageClassBreakages: Record<string, Breakage> = {
  // Serves the object under /status too.
  'api.storageclass.no-status-subresource': {
    request: (r) => { if (r.method === 'GET' && /\/storageclasses\/[^/]+\/status$/.test(pathOnly(r))) r.path = r.path.replace(/\/status(\?|$)/, '$1'); },
  },
};

export const operationBreakages: Record<string, Breakage> = Object.assign({}, ...KINDS.map(operationBreakagesFor), storageClassBreakages);
