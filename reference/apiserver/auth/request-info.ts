// What a request asks to do, in the terms authorizers decide on (upstream RequestInfoFactory and
// authorizer.Attributes): a resource request (verb, API group and version, namespace, resource,
// subresource, name) under /api and /apis, or a non-resource request (verb and path) anywhere else.
import type { UserInfo } from './user.js';

export interface Attributes {
  readonly user: UserInfo;
  readonly verb: string;
  readonly resourceRequest: boolean;
  /** The request path (non-resource requests are authorized on it). */
  readonly path: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
}

/** `namespaces/<ns>/<x>` addresses the Namespace itself (not a resource inside it) when x is one of these. */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/** Attributes of a request, before any user is known. */
export type RequestInfo = Omit<Attributes, 'user'>;

export function requestInfo(method: string, rawUrl: string): RequestInfo {
  const qi = rawUrl.indexOf('?');
  const rawPath = qi < 0 ? rawUrl : rawUrl.slice(0, qi);
  const query = new URLSearchParams(qi < 0 ? '' : rawUrl.slice(qi + 1));
  const path = decodePath(rawPath);
  const nonResource: RequestInfo = {
    verb: method.toLowerCase(), resourceRequest: false, path,
    apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '',
  };
  // Segments decoded one by one, as the router does, so that the attributes name what is served.
  let parts = rawPath.split('/').filter(Boolean).map(decodePath);
  // /api/v1 and /apis/<g>/<v> themselves are discovery documents: non-resource requests.
  if (parts.length < 3 || (parts[0] !== 'api' && parts[0] !== 'apis')) return nonResource;
  let apiGroup = '';
  if (parts[0] === 'apis') {
    if (parts.length < 4) return nonResource;
    apiGroup = parts[1]!;
    parts = parts.slice(2);
  } else {
    parts = parts.slice(1);
  }
  const apiVersion = parts[0]!;
  parts = parts.slice(1);

  let verb: string;
  let viaMethod = false;
  if (parts[0] === 'watch' || parts[0] === 'proxy') {
    // Upstream: a special verb with nothing after it is an error; asking to do nothing is harmless
    // to deny, so it stays a request for resource '' which no rule but `*` grants.
    verb = parts[0];
    parts = parts.slice(1);
  } else {
    viaMethod = true;
    verb = VERB_OF_METHOD[method] ?? '';
  }
  let namespace = '';
  if (parts[0] === 'namespaces' && parts.length > 1) {
    namespace = parts[1]!;
    if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2]!)) parts = parts.slice(2);
  }
  const resource = parts[0] ?? '';
  let name = parts[1] ?? '';
  const subresource = parts.length >= 3 && verb !== 'proxy' ? parts[2]! : '';

  if (viaMethod && !name && verb === 'get') {
    verb = isWatch(query) ? 'watch' : 'list';
    // A list or watch of one object by field selector is authorized as on that name (resourceNames).
    name = nameFromFieldSelector(query.get('fieldSelector')) ?? '';
  }
  if (viaMethod && !name && verb === 'delete') verb = 'deletecollection';
  return { verb, resourceRequest: true, path, apiGroup, apiVersion, namespace, resource, subresource, name };
}

const VERB_OF_METHOD: Record<string, string> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

function isWatch(query: URLSearchParams): boolean {
  const w = query.get('watch');
  if (w === null) return false;
  // Upstream: a value that is no boolean still counts as a watch.
  return !['false', '0', 'f'].includes(w.toLowerCase());
}

/** `metadata.name=x` (or `==`) among a field selector's terms, when x is usable as a path segment. */
function nameFromFieldSelector(selector: string | null): string | undefined {
  for (const term of (selector ?? '').split(',')) {
    const m = /^\s*metadata\.name\s*==?\s*(.*?)\s*$/.exec(term);
    if (m && m[1] && m[1] !== '.' && m[1] !== '..' && !/[/%]/.test(m[1])) return m[1];
  }
  return undefined;
}

/** A path (or segment) with %-escapes decoded, as Go's URL.Path; an undecodable one is kept as sent (the router answers 400). */
function decodePath(rawPath: string): string {
  try {
    return decodeURIComponent(rawPath);
  } catch {
    return rawPath;
  }
}
