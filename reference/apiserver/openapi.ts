// OpenAPI v3 documents generated from the served strategies: `/openapi/v3` (the discovery document
// listing one path per group version) and `/openapi/v3/apis/<group>/<version>` (`/api/v1` for the
// core group), as upstream's kube-openapi handler3 serves them. kubectl reads them for
// `--validate=strict` (a PATCH operation that lists the `fieldValidation` parameter, tagged with
// `x-kubernetes-group-version-kind`, means the server validates fields itself) and for `explain`
// (components.schemas tagged with the same extension). /openapi/v2 is not served: kubectl only
// falls back to it (as protobuf) when v3 is missing.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { methodNotAllowed, notAcceptable, pathNotFound } from './errors.js';
import type { Registry } from './registry.js';
import { objectMetaSchema, type Schema } from './schema.js';
import { rootType, typeOf, type FieldType } from './patch-schema.js';
import type { ResourceStore } from './store.js';
import { resolveStrategy, type ResolvedStrategy, type Verb } from './strategy.js';

type Json = Record<string, unknown>;

/** Where a group version's document lives (`api/v1`, `apis/<group>/<version>`). */
export function groupVersionPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

const META = 'io.orch.apimachinery.pkg.apis.meta.v1';
const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const allOf = (name: string, extra: Json = {}): Json => ({ allOf: [ref(name)], ...extra });

/** Upstream-style definition names: `io.orch.api.storage.v1.StorageClass`, `io.orch.api.core.v1.ResourceQuota`. */
export function definitionName(s: ResolvedStrategy, kind: string = s.kind): string {
  const group = s.group ? s.group.replace(/\.orch\.io$/, '') : 'core';
  return `io.orch.api.${group}.${s.version}.${kind}`;
}

const gvk = (group: string, version: string, kind: string): Json => ({ group, kind, version });

/**
 * A reference schema as OpenAPI v3 (objects inline, ObjectMeta by reference as upstream), with the
 * patch metadata of its field type (patch-schema.ts) where it has one: kubectl's client-side apply
 * computes its strategic merge patch from these (x-kubernetes-patch-strategy and -merge-key, list
 * types and keys), so they must say what this server's own strategic merge does.
 */
function toOpenApi(s: Schema, t?: FieldType): Json {
  if (s === objectMetaSchema) return allOf(`${META}.ObjectMeta`, { default: {} });
  switch (s.type) {
    case 'string':
      return { type: 'string' };
    case 'boolean':
      return { type: 'boolean' };
    case 'integer':
      return { type: 'integer', format: 'int64' };
    case 'number':
      return { type: 'number', format: 'double' };
    case 'object': {
      const fields = t?.kind === 'struct' ? t.fields : undefined;
      return { type: 'object', properties: Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, toOpenApi(v, fields?.[k])])), ...patchExtensions(t) };
    }
    case 'map':
      return { type: 'object', additionalProperties: toOpenApi(s.values, t?.kind === 'map' ? t.values : undefined), ...patchExtensions(t) };
    case 'array':
      return { type: 'array', items: toOpenApi(s.items, t?.kind === 'list' ? t.items : undefined), ...patchExtensions(t) };
    case 'any':
      return { 'x-kubernetes-preserve-unknown-fields': true };
  }
}

/** Upstream's OpenAPI extensions for a field's patch strategy, merge key and (non-atomic) list type. */
function patchExtensions(t: FieldType | undefined): Json {
  if (!t || t.kind === 'scalar') return {};
  const out: Json = {};
  if (t.strategy) out['x-kubernetes-patch-strategy'] = t.strategy;
  if (t.kind === 'list') {
    if (t.mergeKey) out['x-kubernetes-patch-merge-key'] = t.mergeKey;
    if (t.listType !== 'atomic') out['x-kubernetes-list-type'] = t.listType;
    if (t.listType === 'map' && t.keys.length) out['x-kubernetes-list-map-keys'] = [...t.keys];
  }
  return out;
}

const TYPE_META: Json = {
  apiVersion: {
    type: 'string',
    description: 'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.',
  },
  kind: {
    type: 'string',
    description: 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase.',
  },
};

/** The meta.orch.io/v1 types every group version document refers to. */
function metaSchemas(): Json {
  return {
    [`${META}.ObjectMeta`]: {
      description: 'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
      ...toOpenApi(objectMetaSchema.type === 'object' ? { type: 'object', properties: objectMetaSchema.properties } : objectMetaSchema, rootType({}).fields['metadata']),
    },
    [`${META}.ListMeta`]: {
      description: 'ListMeta describes metadata that synthetic resources must have, including lists and various status objects.',
      type: 'object',
      properties: { continue: { type: 'string' }, remainingItemCount: { type: 'integer', format: 'int64' }, resourceVersion: { type: 'string' }, selfLink: { type: 'string' } },
    },
    [`${META}.Status`]: {
      description: 'Status is a return value for calls that do not return other objects.',
      type: 'object',
      properties: {
        ...TYPE_META,
        code: { type: 'integer', format: 'int32' },
        details: {
          type: 'object',
          properties: {
            causes: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' }, reason: { type: 'string' } } } },
            group: { type: 'string' },
            kind: { type: 'string' },
            name: { type: 'string' },
            retryAfterSeconds: { type: 'integer', format: 'int32' },
            uid: { type: 'string' },
          },
        },
        message: { type: 'string' },
        metadata: allOf(`${META}.ListMeta`, { default: {} }),
        reason: { type: 'string' },
        status: { type: 'string' },
      },
      'x-kubernetes-group-version-kind': [gvk('', 'v1', 'Status')],
    },
    [`${META}.DeleteOptions`]: {
      description: 'DeleteOptions may be provided when deleting an API object.',
      type: 'object',
      properties: {
        ...TYPE_META,
        dryRun: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' },
        gracePeriodSeconds: { type: 'integer', format: 'int64' },
        ignoreStoreReadErrorWithClusterBreakingPotential: { type: 'boolean' },
        orphanDependents: { type: 'boolean' },
        preconditions: { type: 'object', properties: { resourceVersion: { type: 'string' }, uid: { type: 'string' } } },
        propagationPolicy: { type: 'string' },
      },
      'x-kubernetes-group-version-kind': [gvk('', 'v1', 'DeleteOptions'), gvk('meta.orch.io', 'v1', 'DeleteOptions')],
    },
    [`${META}.Patch`]: {
      description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.',
      type: 'object',
    },
    [`${META}.WatchEvent`]: {
      description: 'Event represents a single event to a watched resource.',
      type: 'object',
      required: ['type', 'object'],
      properties: { object: { type: 'object', description: 'Object is: the object of the event, or an error Status' }, type: { type: 'string' } },
    },
  };
}

// ---- Parameters (spec §4.3), inline on every operation: kubectl looks for them there.

const query = (name: string, description: string, type: 'string' | 'boolean' | 'integer' = 'string'): Json => ({
  name,
  in: 'query',
  description,
  schema: type === 'integer' ? { type, format: 'int64' } : { type, uniqueItems: true },
});

const P = {
  pretty: query('pretty', "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget)."),
  dryRun: query('dryRun', 'When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed'),
  fieldManager: query('fieldManager', 'fieldManager is a name associated with the actor or entity that is making these changes. The value must be less than or 128 characters long, and only contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint. This field is required for apply requests (application/apply-patch) but optional for non-apply patch types (JsonPatch, MergePatch, StrategicMergePatch).'),
  fieldValidation: query('fieldValidation', 'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore: This will ignore any unknown fields that are silently dropped from the object, and will ignore all but the last duplicate field that the decoder encounters. This is the default behavior prior to v1.23. - Warn: This will send a warning via the standard warning response header for each unknown field that is dropped from the object, and for each duplicate field that is encountered. The request will still succeed if there are no other errors, and will only persist the last of any duplicate fields. This is the default in v1.23+ - Strict: This will fail the request with a BadRequest error if any unknown fields would be dropped from the object, or if any duplicate fields are present. The error returned from the server will contain all unknown and duplicate fields encountered.'),
  force: query('force', 'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.', 'boolean'),
  gracePeriodSeconds: query('gracePeriodSeconds', 'The duration in seconds before the object should be deleted. Value must be non-negative integer. The value zero indicates delete immediately. If this value is nil, the default grace period for the specified type will be used.', 'integer'),
  ignoreStoreReadError: query('ignoreStoreReadErrorWithClusterBreakingPotential', 'if set to true, it will trigger an unsafe deletion of the resource in case the normal deletion flow fails with a corrupt object error.', 'boolean'),
  orphanDependents: query('orphanDependents', 'Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7. Should the dependent objects be orphaned.', 'boolean'),
  propagationPolicy: query('propagationPolicy', "Whether and how garbage collection will be performed. Either this field or OrphanDependents may be set, but not both. Acceptable values are: 'Orphan', 'Background', 'Foreground'."),
  allowWatchBookmarks: query('allowWatchBookmarks', 'allowWatchBookmarks requests watch events with type "BOOKMARK". Servers that do not implement bookmarks may ignore this flag.', 'boolean'),
  continue: query('continue', 'The continue option should be set when retrieving more results from the server.'),
  fieldSelector: query('fieldSelector', 'A selector to restrict the list of returned objects by their fields. Defaults to everything.'),
  labelSelector: query('labelSelector', 'A selector to restrict the list of returned objects by their labels. Defaults to everything.'),
  limit: query('limit', 'limit is a maximum number of responses to return for a list call.', 'integer'),
  resourceVersion: query('resourceVersion', 'resourceVersion sets a constraint on what resource versions a request may be served from. Defaults to unset'),
  resourceVersionMatch: query('resourceVersionMatch', 'resourceVersionMatch determines how resourceVersion is applied to list calls. Defaults to unset'),
  sendInitialEvents: query('sendInitialEvents', '`sendInitialEvents=true` may be set together with `watch=true`.', 'boolean'),
  shardSelector: query('shardSelector', 'shardSelector restricts the list of returned objects by shard (alpha, ShardedListAndWatch).'),
  timeoutSeconds: query('timeoutSeconds', 'Timeout for the list/watch call.', 'integer'),
  watch: query('watch', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.', 'boolean'),
};

const WRITE = [P.dryRun, P.fieldManager, P.fieldValidation];
const DELETE = [P.dryRun, P.gracePeriodSeconds, P.ignoreStoreReadError, P.orphanDependents, P.propagationPolicy];
const LIST = [P.allowWatchBookmarks, P.continue, P.fieldSelector, P.labelSelector, P.limit, P.resourceVersion, P.resourceVersionMatch, P.sendInitialEvents, P.shardSelector, P.timeoutSeconds, P.watch];
const COLLECTION_DELETE = [
  P.continue, P.dryRun, P.fieldSelector, P.gracePeriodSeconds, P.ignoreStoreReadError, P.labelSelector, P.limit, P.orphanDependents,
  P.propagationPolicy, P.resourceVersion, P.resourceVersionMatch, P.sendInitialEvents, P.shardSelector, P.timeoutSeconds,
];

const pathParam = (name: string, description: string): Json => ({ name, in: 'path', description, required: true, schema: { type: 'string', uniqueItems: true } });

const MEDIA = ['application/json', 'application/yaml'];
const content = (schema: Json, types: readonly string[] = MEDIA): Json => ({ content: Object.fromEntries(types.map((t) => [t, { schema }])) });
const PATCH_TYPES = ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'];

/** Operation ids as upstream forms them: createStorageV1StorageClass, listCoreV1NamespacedResourceQuota. */
function operationId(verb: string, s: ResolvedStrategy, namespaced: boolean, suffix = ''): string {
  const camel = (x: string): string => x.charAt(0).toUpperCase() + x.slice(1);
  const group = s.group ? s.group.replace(/\.orch\.io$/, '').split('.').map(camel).join('') : 'Core';
  return `${verb}${group}${camel(s.version)}${namespaced ? 'Namespaced' : ''}${s.kind}${suffix}`;
}

/** The paths of one resource, with only the operations its strategy allows and the handler serves. */
function resourcePaths(store: ResourceStore, served: ReadonlySet<Verb>): Record<string, Json> {
  const s = store.strategy;
  const can = (v: Verb): boolean => s.verbs.includes(v) && served.has(v);
  const base = `/${groupVersionPath(s.group, s.version)}`;
  const ns = s.namespaced;
  const collection = ns ? `${base}/namespaces/{namespace}/${s.resource}` : `${base}/${s.resource}`;
  const item = `${collection}/{name}`;
  const kind = definitionName(s);
  const list = definitionName(s, s.listKind);
  const tag = `${(s.group || 'core').replace(/\.orch\.io$/, '')}_${s.version}`;
  const ext = (action: string): Json => ({ 'x-kubernetes-action': action, 'x-kubernetes-group-version-kind': gvk(s.group, s.version, s.kind) });
  const ok = (schema: Json, codes: readonly string[] = ['200']): Json =>
    Object.fromEntries([...codes.map((c) => [c, { description: c === '201' ? 'Created' : c === '202' ? 'Accepted' : 'OK', ...content(schema) }]), ['401', { description: 'Unauthorized' }]]);
  const body = (schema: Json, types?: readonly string[]): Json => ({ requestBody: { required: true, ...content(schema, types) } });
  const nsParam = ns ? [pathParam('namespace', 'object name and auth scope, such as for teams and projects')] : [];
  const what = s.kind;

  const paths: Record<string, Json> = {};
  const coll: Json = {};
  if (can('list')) {
    coll['get'] = {
      tags: [tag], description: `list or watch objects of kind ${what}`, operationId: operationId('list', s, ns), parameters: LIST,
      responses: ok(ref(list)), ...ext('list'),
    };
  }
  if (can('create')) {
    coll['post'] = {
      tags: [tag], description: `create a ${what}`, operationId: operationId('create', s, ns), parameters: WRITE,
      ...body(ref(kind)), responses: ok(ref(kind), ['200', '201', '202']), ...ext('post'),
    };
  }
  if (can('deletecollection')) {
    coll['delete'] = {
      tags: [tag], description: `delete collection of ${what}`, operationId: operationId('deletecollection', s, ns), parameters: COLLECTION_DELETE,
      requestBody: content(ref(`${META}.DeleteOptions`)), responses: ok(ref(`${META}.Status`)), ...ext('deletecollection'),
    };
  }
  if (Object.keys(coll).length) paths[collection] = { ...coll, parameters: [...nsParam, P.pretty] };

  const one: Json = {};
  if (can('get')) {
    one['get'] = { tags: [tag], description: `read the specified ${what}`, operationId: operationId('read', s, ns), responses: ok(ref(kind)), ...ext('get') };
  }
  if (can('update')) {
    one['put'] = {
      tags: [tag], description: `replace the specified ${what}`, operationId: operationId('replace', s, ns), parameters: WRITE,
      ...body(ref(kind)), responses: ok(ref(kind), ['200', '201']), ...ext('put'),
    };
  }
  if (can('patch')) {
    one['patch'] = {
      tags: [tag], description: `partially update the specified ${what}`, operationId: operationId('patch', s, ns), parameters: [...WRITE, P.force],
      ...body(ref(`${META}.Patch`), PATCH_TYPES), responses: ok(ref(kind), ['200', '201']), ...ext('patch'),
    };
  }
  if (can('delete')) {
    one['delete'] = {
      tags: [tag], description: `delete a ${what}`, operationId: operationId('delete', s, ns), parameters: DELETE,
      requestBody: content(ref(`${META}.DeleteOptions`)),
      responses: ok(s.deleteResponse === 'object' ? ref(kind) : ref(`${META}.Status`), ['200', '202']), ...ext('delete'),
    };
  }
  const itemParams = [pathParam('name', `name of the ${what}`), ...nsParam, P.pretty];
  if (Object.keys(one).length) paths[item] = { ...one, parameters: itemParams };

  if (s.hasStatus) {
    const st: Json = {};
    if (can('get')) st['get'] = { tags: [tag], description: `read status of the specified ${what}`, operationId: operationId('read', s, ns, 'Status'), responses: ok(ref(kind)), ...ext('get') };
    if (can('update')) {
      st['put'] = {
        tags: [tag], description: `replace status of the specified ${what}`, operationId: operationId('replace', s, ns, 'Status'), parameters: WRITE,
        ...body(ref(kind)), responses: ok(ref(kind), ['200', '201']), ...ext('put'),
      };
    }
    if (can('patch')) {
      st['patch'] = {
        tags: [tag], description: `partially update status of the specified ${what}`, operationId: operationId('patch', s, ns, 'Status'), parameters: [...WRITE, P.force],
        ...body(ref(`${META}.Patch`), PATCH_TYPES), responses: ok(ref(kind), ['200', '201']), ...ext('patch'),
      };
    }
    if (Object.keys(st).length) paths[`${item}/status`] = { ...st, parameters: itemParams };
  }

  // namespaces/finalize, as upstream: a PUT of the object (replaceNamespaceFinalize).
  if (s.finalizeSubresource && can('update')) {
    paths[`${item}/finalize`] = {
      put: {
        tags: [tag], description: `replace finalize of the specified ${what}`, operationId: operationId('replace', s, ns, 'Finalize'), parameters: WRITE,
        ...body(ref(kind)), responses: ok(ref(kind), ['200', '201']), ...ext('put'),
      },
      parameters: itemParams,
    };
  }

  // Create-only subresources (pods/binding, pods/eviction), as upstream: a POST of the body's kind.
  for (const [sub, { body: b }] of Object.entries(s.subresources ?? {})) {
    if (!served.has('create')) continue;
    const bodyKind = definitionName(resolveStrategy(b));
    paths[`${item}/${sub}`] = {
      post: {
        tags: [tag], description: `create ${sub} of a ${what}`, operationId: operationId('create', s, ns, sub.charAt(0).toUpperCase() + sub.slice(1)), parameters: WRITE,
        ...body(ref(bodyKind)), responses: ok(ref(bodyKind), ['200', '201', '202']),
        'x-kubernetes-action': 'post', 'x-kubernetes-group-version-kind': gvk(b.group, b.version, b.kind),
      },
      parameters: [pathParam('name', `name of the ${b.kind}`), ...nsParam, P.pretty],
    };
  }

  // Namespaced kinds are also listed across namespaces (kubectl explain looks the kind up there).
  if (ns && can('list')) {
    paths[`${base}/${s.resource}`] = {
      get: {
        tags: [tag], description: `list or watch objects of kind ${what}`, operationId: `${operationId('list', s, false)}ForAllNamespaces`, parameters: LIST,
        responses: ok(ref(list)), ...ext('list'),
      },
      parameters: [P.pretty],
    };
  }
  return paths;
}

function kindSchemas(s: ResolvedStrategy): Json {
  const kind = definitionName(s);
  const own: Json = {
    [kind]: {
      description: `${s.kind} (${s.apiVersion}).`,
      type: 'object',
      properties: { ...TYPE_META, metadata: toOpenApi(objectMetaSchema), ...Object.fromEntries(Object.entries(s.schema).map(([k, v]) => [k, toOpenApi(v, typeOf(s).fields[k])])) },
      'x-kubernetes-group-version-kind': [gvk(s.group, s.version, s.kind)],
    },
  };
  // Kinds that cannot be listed (the reviews) have no list type upstream.
  if (!s.verbs.includes('list')) return own;
  return {
    ...own,
    [definitionName(s, s.listKind)]: {
      description: `${s.listKind} is a list of ${s.kind} objects.`,
      type: 'object',
      required: ['items'],
      properties: {
        ...TYPE_META,
        items: { type: 'array', items: allOf(kind, { default: {} }) },
        metadata: allOf(`${META}.ListMeta`, { default: {} }),
      },
      'x-kubernetes-group-version-kind': [gvk(s.group, s.version, s.listKind)],
    },
  };
}

/** The OpenAPI v3 document of one group version. */
export function groupVersionDocument(registry: Registry, group: string, version: string, served: ReadonlySet<Verb>): Json {
  const stores = registry.storesIn(group, version);
  const paths: Record<string, Json> = {};
  const schemas: Json = { ...metaSchemas() };
  for (const store of stores) {
    Object.assign(paths, resourcePaths(store, served));
    Object.assign(schemas, kindSchemas(store.strategy));
    for (const { body } of Object.values(store.strategy.subresources ?? {})) Object.assign(schemas, kindSchemas(resolveStrategy(body)));
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Orch', version: 'v1.37.0' },
    paths,
    components: { schemas, securitySchemes: { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } } },
  };
}

interface Rendered {
  readonly text: string;
  readonly hash: string;
}

const render = (doc: unknown): Rendered => {
  const text = JSON.stringify(doc);
  return { text, hash: createHash('sha512').update(text).digest('hex').toUpperCase() };
};

/** Documents are built once per registry (its strategies and gates do not change). */
const cache = new WeakMap<Registry, Map<string, Rendered>>();

function documents(registry: Registry, served: ReadonlySet<Verb>): Map<string, Rendered> {
  let docs = cache.get(registry);
  if (!docs) {
    docs = new Map();
    const gvs: Array<[string, string]> = registry.servesGroupVersion('', 'v1') ? [['', 'v1']] : [];
    for (const g of registry.groups()) for (const v of g.versions) gvs.push([g.group, v]);
    for (const [g, v] of gvs) docs.set(groupVersionPath(g, v), render(groupVersionDocument(registry, g, v, served)));
    cache.set(registry, docs);
  }
  return docs;
}

/** The `/openapi/v3` discovery document: every group version with the URL of its document. */
export function openApiDiscovery(registry: Registry, served: ReadonlySet<Verb>): Json {
  const paths: Record<string, Json> = {};
  for (const [path, doc] of documents(registry, served)) paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${doc.hash}` };
  return { paths };
}

/**
 * Answers `/openapi/...` (`segs` are the path segments after `openapi`). JSON only: a client that
 * accepts nothing JSON (the protobuf forms) gets 406.
 */
export async function serveOpenApi(req: IncomingMessage, res: ServerResponse, registry: Registry, segs: readonly string[], served: ReadonlySet<Verb>): Promise<void> {
  if (segs[0] !== 'v3') throw pathNotFound();
  if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed();
  const accept = req.headers.accept;
  if (accept && !/(^|,)\s*(\*\/\*|application\/\*|application\/json)\s*(;|,|$)/i.test(accept)) throw notAcceptable(['application/json']);
  let text: string;
  let hash: string | undefined;
  if (segs.length === 1) {
    text = JSON.stringify(openApiDiscovery(registry, served));
  } else {
    const doc = documents(registry, served).get(segs.slice(1).join('/'));
    if (!doc) throw pathNotFound();
    text = doc.text;
    hash = doc.hash;
  }
  const url = new URL(req.url ?? '/', 'http://x');
  const pinned = hash !== undefined && url.searchParams.get('hash') === hash;
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'Cache-Control': pinned ? 'public, immutable' : 'no-cache, private',
    'Content-Length': String(Buffer.byteLength(text)),
  };
  if (hash) headers['ETag'] = `"${hash}"`;
  res.writeHead(200, headers);
  res.end(req.method === 'HEAD' ? undefined : text);
}
