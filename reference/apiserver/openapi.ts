// OpenAPI v3 documents generated from the served strategies: `/openapi/v3` (the discovery document
// listing one path per group version) and `/openapi/v3/apis/<group>/<version>` (`/api/v1` for the
// core group), as upstream's kube-openapi handler3 serves them. kubectl reads them for
// `--validate=strict` (a PATCH operation that lists the `fieldValidation` parameter, tagged with
// `x-kubernetes-group-version-kind`, means the server validates fields itself) and for `explain`
// (components.schemas tagged with the same extension), with every field's description and the
// required fields from the strategies' schemas. `/openapi/v2` (Swagger 2.0, JSON or protobuf, which
// kubectl still reads for `explain --output=plaintext-openapiv2` and as client-side apply's fallback)
// is these documents translated (openapi-v2.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { cachedDocument, sendCachedDocument, type CachedDocument } from './cached-document.js';
import { methodNotAllowed, notAcceptable, pathNotFound } from './errors.js';
import type { Registry } from './registry.js';
import { deleteOptionsSchema, LIST_METADATA_DESCRIPTION, listMetaSchema, OBJECT_METADATA_DESCRIPTION, statusSchema, typeMetaProperties, watchEventSchema } from './meta-schemas.js';
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
  const named = NAMED.get(s);
  if (named) return allOf(named.name, { default: {}, description: named.field });
  const doc: Json = s.description ? { description: s.description } : {};
  switch (s.type) {
    case 'string':
      return { type: 'string', ...doc };
    case 'boolean':
      return { type: 'boolean', ...doc };
    case 'integer':
      return { type: 'integer', format: 'int64', ...doc };
    case 'number':
      return { type: 'number', format: 'double', ...doc };
    case 'object': {
      const fields = t?.kind === 'struct' ? t.fields : undefined;
      const properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, toOpenApi(v, fields?.[k])]));
      return { type: 'object', ...doc, properties, ...(s.required?.length ? { required: [...s.required] } : {}), ...patchExtensions(t) };
    }
    case 'map':
      return { type: 'object', ...doc, additionalProperties: toOpenApi(s.values, t?.kind === 'map' ? t.values : undefined), ...patchExtensions(t) };
    case 'array':
      return { type: 'array', ...doc, items: toOpenApi(s.items, t?.kind === 'list' ? t.items : undefined), ...patchExtensions(t) };
    case 'any':
      return { ...doc, 'x-kubernetes-preserve-unknown-fields': true };
  }
}

/** Shared meta types, referred to by name (as upstream) wherever a field has them, with the field's description. */
const NAMED = new Map<Schema, { readonly name: string; readonly field: string }>([
  [objectMetaSchema, { name: `${META}.ObjectMeta`, field: OBJECT_METADATA_DESCRIPTION }],
  [listMetaSchema, { name: `${META}.ListMeta`, field: LIST_METADATA_DESCRIPTION }],
]);

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

const TYPE_META: Json = Object.fromEntries(Object.entries(typeMetaProperties).map(([k, v]) => [k, toOpenApi(v)]));

/** The definition of a shared type itself (not a reference to it). */
const definition = (s: Schema, t?: FieldType): Json => toOpenApi({ ...s }, t);

/** The meta.orch.io/v1 types every group version document refers to. */
function metaSchemas(): Json {
  return {
    [`${META}.ObjectMeta`]: definition(objectMetaSchema, rootType({}).fields['metadata']),
    [`${META}.ListMeta`]: definition(listMetaSchema),
    [`${META}.Status`]: { ...toOpenApi(statusSchema), 'x-kubernetes-group-version-kind': [gvk('', 'v1', 'Status')] },
    [`${META}.DeleteOptions`]: {
      ...toOpenApi(deleteOptionsSchema),
      'x-kubernetes-group-version-kind': [gvk('', 'v1', 'DeleteOptions'), gvk('meta.orch.io', 'v1', 'DeleteOptions')],
    },
    [`${META}.Patch`]: {
      description: 'The body of a PATCH: a JSON patch, a JSON merge patch, a strategic merge patch or an apply configuration, as its Content-Type says.',
      type: 'object',
    },
    [`${META}.WatchEvent`]: toOpenApi(watchEventSchema),
  };
}

// ---- Parameters (spec §4.3), inline on every operation: kubectl looks for them there.

const query = (name: string, description: string, type: 'string' | 'boolean' | 'integer' = 'string'): Json => ({
  name,
  in: 'query',
  description,
  schema: type === 'integer' ? { type, format: 'int64' } : { type, uniqueItems: true },
});

// Descriptions are the spec's (§4.3 parameter definitions).
const P = {
  pretty: query('pretty', 'If `true`, output is pretty printed. Default `false` unless the user agent indicates a browser or command-line HTTP tool.'),
  dryRun: query('dryRun', 'When present, changes are not persisted. Valid value: `All` (all dry-run stages processed). An invalid or unrecognized value yields an error response and no further processing.'),
  fieldManager: query('fieldManager', 'Name of the actor making the change; fewer than 128 characters, printable characters only. Required for apply patches (`application/apply-patch`), optional for JsonPatch, MergePatch, StrategicMergePatch.'),
  fieldValidation: query('fieldValidation', 'Handling of unknown or duplicate fields in POST/PUT/PATCH bodies. `Ignore`: silently drop unknown fields and keep only the last duplicate (default before v1.23). `Warn`: send a warning via the standard warning response header for each dropped unknown field and each duplicate; request still succeeds; only the last duplicate persists (default from v1.23). `Strict`: fail with BadRequest if any unknown or duplicate field exists; the error lists all of them.'),
  force: query('force', 'Forces apply requests: the user re-acquires conflicting fields owned by others. Must be unset for non-apply patches.', 'boolean'),
  gracePeriodSeconds: query('gracePeriodSeconds', 'Seconds before deletion; non-negative; 0 means delete immediately; if nil the per-type default is used.', 'integer'),
  ignoreStoreReadError: query('ignoreStoreReadErrorWithClusterBreakingPotential', 'Default `false`. If true, triggers an unsafe deletion when normal deletion fails with a corrupt-object error (data cannot be transformed, for example decryption failure, or cannot be decoded). Unsafe deletion ignores finalizers, skips precondition checks and removes the object from storage; it may break the cluster.', 'boolean'),
  orphanDependents: query('orphanDependents', 'Deprecated; use propagationPolicy. If true or false, the `orphan` finalizer is added or removed. Only one of this and propagationPolicy may be set.', 'boolean'),
  propagationPolicy: query('propagationPolicy', "`Orphan`, `Background`, `Foreground`. Default decided by the object's finalizers and the resource-specific default."),
  allowWatchBookmarks: query('allowWatchBookmarks', 'Requests watch events of type `BOOKMARK`. Servers may ignore it and send bookmarks at their discretion; no interval is guaranteed. Ignored when not a watch.', 'boolean'),
  continue: query('continue', 'Server-defined token from a previous list with identical other parameters; the server may reject an unrecognized token. Not supported when watch is true.'),
  fieldSelector: query('fieldSelector', 'Restricts by fields. Default everything.'),
  labelSelector: query('labelSelector', 'Restricts by labels. Default everything.'),
  limit: query('limit', 'Maximum items per list call. If more exist, the list metadata carries a `continue` value for the next chunk. May return fewer items (even zero); only the presence of `continue` says whether more exist. Servers may ignore limit and return everything. Continued results come from a consistent snapshot of the first call. Not supported when watch is true.', 'integer'),
  resourceVersion: query('resourceVersion', 'Constraint on which resource versions may serve the request. Default unset.'),
  resourceVersionMatch: query('resourceVersionMatch', 'How resourceVersion is applied to list calls; recommended whenever resourceVersion is set. Default unset.'),
  sendInitialEvents: query('sendInitialEvents', 'With `watch=true`, the stream begins with synthetic events for the current objects, then a synthetic `Bookmark` event carrying the resource version of that set and the annotation `orch.io/initial-events-end` set to `true`, then normal change events. Requires resourceVersionMatch `NotOlderThan`. Defaults to true if resourceVersion is empty or `0`, false otherwise.', 'boolean'),
  shardSelector: query('shardSelector', "Alpha; requires the ShardedListAndWatch feature gate. CEL expression built from `shardRange(<path>, '<hexStart>', '<hexEnd>')` terms joined by `||`, over object.metadata.uid or object.metadata.namespace."),
  timeoutSeconds: query('timeoutSeconds', 'Timeout of the list or watch call regardless of activity.', 'integer'),
  watch: query('watch', 'Returns changes as a stream of add, update and remove notifications; specify resourceVersion.', 'boolean'),
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
  const nsParam = ns ? [pathParam('namespace', 'Name and authorization scope of the namespace.')] : [];
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
      description: s.description ?? `${s.kind} (${s.apiVersion}).`,
      type: 'object',
      ...(s.required?.length ? { required: [...s.required] } : {}),
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
        items: { type: 'array', description: `The ${s.kind} objects.`, items: allOf(kind, { default: {} }) },
        metadata: toOpenApi(listMetaSchema),
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

/** Documents are built once per registry (its strategies and gates do not change). */
const cache = new WeakMap<Registry, Map<string, CachedDocument>>();

/** The group versions with a document: the core group first, then every served group's versions. */
function servedGroupVersions(registry: Registry): Array<[string, string]> {
  const gvs: Array<[string, string]> = registry.servesGroupVersion('', 'v1') ? [['', 'v1']] : [];
  for (const g of registry.groups()) for (const v of g.versions) gvs.push([g.group, v]);
  return gvs;
}

function documents(registry: Registry, served: ReadonlySet<Verb>): Map<string, CachedDocument> {
  let docs = cache.get(registry);
  if (!docs) {
    docs = new Map();
    for (const [g, v] of servedGroupVersions(registry)) docs.set(groupVersionPath(g, v), cachedDocument(JSON.stringify(groupVersionDocument(registry, g, v, served))));
    cache.set(registry, docs);
  }
  return docs;
}

/** The `/openapi/v3` discovery document: every group version with the URL of its document. */
export function openApiDiscovery(registry: Registry, served: ReadonlySet<Verb>): Json {
  const paths: Record<string, Json> = {};
  for (const [path, doc] of documents(registry, served)) paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${doc.etag}` };
  return { paths };
}

/**
 * Answers `/openapi/...` (`segs` are the path segments after `openapi`): v3 as JSON only (a client
 * that accepts nothing JSON, such as the protobuf forms, gets 406), v2 by openapi-v2.ts from the
 * same v3 documents.
 */
export async function serveOpenApi(req: IncomingMessage, res: ServerResponse, registry: Registry, segs: readonly string[], served: ReadonlySet<Verb>): Promise<void> {
  if (segs[0] === 'v2' && segs.length === 1) {
    // Loaded on first use: few clients ask for v2, and the server starts without it.
    const { serveOpenApiV2 } = await import('./openapi-v2.js');
    return serveOpenApiV2(req, res, registry, () => servedGroupVersions(registry).map(([g, v]) => groupVersionDocument(registry, g, v, served)));
  }
  if (segs[0] !== 'v3') throw pathNotFound();
  if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed();
  const accept = req.headers.accept;
  if (accept && !/(^|,)\s*(\*\/\*|application\/\*|application\/json)\s*(;|,|$)/i.test(accept)) throw notAcceptable(['application/json']);
  if (segs.length === 1) {
    const text = JSON.stringify(openApiDiscovery(registry, served));
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Content-Length': String(Buffer.byteLength(text)) });
    res.end(req.method === 'HEAD' ? undefined : text);
    return;
  }
  const doc = documents(registry, served).get(segs.slice(1).join('/'));
  if (!doc) throw pathNotFound();
  const pinned = new URL(req.url ?? '/', 'http://x').searchParams.get('hash') === doc.etag;
  sendCachedDocument(req, res, doc, { 'Content-Type': 'application/json', 'Cache-Control': pinned ? 'public, immutable' : 'no-cache, private' });
}
