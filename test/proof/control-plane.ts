// For every spec-000 case: a target broken in exactly the case's rule. The proof test runs the case
// against it and expects a failure; a case missing here fails that test.
import { answer, editJson, jsonBody, statusBody, type Breakage, type ProxiedRequest } from '../helpers/broken-target.js';

const SC = '/apis/storage.orch.io/v1/storageclasses';
const pathOnly = (r: ProxiedRequest) => r.path.split('?')[0];
const isCreateSC = (r: ProxiedRequest) => r.method === 'POST' && pathOnly(r) === SC;
/** Creates whose unrecognized apiVersion a proof rewrote (see api.common.api-version.unrecognized). */
const unrecognizedTaken = new WeakSet<ProxiedRequest>();
const isSCItem = (r: ProxiedRequest) => pathOnly(r).startsWith(`${SC}/`);
const isSCObject = (o: any) => o?.kind === 'StorageClass';

/** Rewrites StorageClass objects in responses (single objects and list items). */
function eachSC(res: { body: string }, edit: (o: any) => void) {
  editJson(res, (o) => {
    if (isSCObject(o)) edit(o);
    if (Array.isArray(o?.items)) o.items.forEach((i: any) => edit(i));
  });
}

const invalid = (field: string, reason: string, message: string) =>
  answer(422, statusBody(422, 'Invalid', `StorageClass.storage.orch.io "x" is invalid: ${field}: ${message}`, [{ field, reason, message }]));

export const controlPlaneBreakages: Record<string, Breakage> = {
  // §2.2 StorageClass
  'api.storageclass.provisioner.required': {
    request: (r) => { if (isCreateSC(r)) editJson(r, (b) => { b.provisioner ??= 'filled-in.orch.io/by-proxy'; }); },
  },
  'api.storageclass.parameters.round-trip': {
    response: (_r, res) => eachSC(res, (o) => { if (o.parameters) delete o.parameters[Object.keys(o.parameters)[0]]; }),
  },
  'api.storageclass.reclaim-policy.default': {
    request: (r) => { if (isCreateSC(r)) editJson(r, (b) => { b.reclaimPolicy ??= 'Retain'; }); },
  },
  'api.storageclass.reclaim-policy.allowed': {
    // Upstream's own validation lacks Recycle for StorageClass; the spec allows it.
    request: (r) => isCreateSC(r) && jsonBody(r)?.reclaimPolicy === 'Recycle'
      ? invalid('reclaimPolicy', 'FieldValueNotSupported', 'Unsupported value: "Recycle": supported values: "Delete", "Retain"') : undefined,
  },
  'api.storageclass.reclaim-policy.unsupported': {
    request: (r) => { if (isCreateSC(r)) editJson(r, (b) => { if (!['Delete', 'Recycle', 'Retain', undefined].includes(b.reclaimPolicy)) b.reclaimPolicy = 'Delete'; }); },
  },
  'api.storageclass.volume-binding-mode.default': {
    request: (r) => { if (isCreateSC(r)) editJson(r, (b) => { b.volumeBindingMode ??= 'WaitForFirstConsumer'; }); },
  },
  'api.storageclass.volume-binding-mode.allowed': {
    request: (r) => isCreateSC(r) && jsonBody(r)?.volumeBindingMode === 'WaitForFirstConsumer'
      ? invalid('volumeBindingMode', 'FieldValueNotSupported', 'Unsupported value: "WaitForFirstConsumer": supported values: "Immediate"') : undefined,
  },
  'api.storageclass.volume-binding-mode.unsupported': {
    request: (r) => { if (isCreateSC(r)) editJson(r, (b) => { if (!['Immediate', 'WaitForFirstConsumer', undefined].includes(b.volumeBindingMode)) b.volumeBindingMode = 'Immediate'; }); },
  },
  'api.storageclass.allow-volume-expansion.round-trip': {
    // A server that drops false booleans on output.
    response: (_r, res) => eachSC(res, (o) => { if (o.allowVolumeExpansion === false) delete o.allowVolumeExpansion; }),
  },
  'api.storageclass.allowed-topologies.empty': {
    request: (r) => isCreateSC(r) && Array.isArray(jsonBody(r)?.allowedTopologies) && jsonBody(r).allowedTopologies.length === 0
      ? invalid('allowedTopologies', 'FieldValueRequired', 'Required value') : undefined,
  },
  'api.storageclass.allowed-topologies.values-required': {
    request: (r) => { if (isCreateSC(r)) editJson(r, (b) => b.allowedTopologies?.forEach((t: any) => t.matchLabelExpressions?.forEach((e: any) => { if (!e.values?.length) e.values = ['any']; }))); },
  },
  'api.storageclass.allowed-topologies.key-required': {
    request: (r) => { if (isCreateSC(r)) editJson(r, (b) => b.allowedTopologies?.forEach((t: any) => t.matchLabelExpressions?.forEach((e: any) => { e.key ??= 'topology.orch.io/zone'; }))); },
  },
  'api.storageclass.allowed-topologies.round-trip': {
    response: (_r, res) => eachSC(res, (o) => { if (Array.isArray(o.allowedTopologies)) o.allowedTopologies = o.allowedTopologies.slice(0, 1); }),
  },
  'api.storageclass.mount-options.not-validated': {
    request: (r) => isCreateSC(r) && (jsonBody(r)?.mountOptions ?? []).some((m: string) => m.includes(' '))
      ? invalid('mountOptions[2]', 'FieldValueInvalid', 'Invalid value: "not a real option!": unknown mount option') : undefined,
  },
  'api.storageclass.scope.cluster': {
    // Serves the object under a namespaced path too.
    request: (r) => { r.path = r.path.replace('/apis/storage.orch.io/v1/namespaces/default/storageclasses', SC); },
  },

  // §2.1 common shape and metadata
  'api.common.list.shape': {
    response: (r, res) => { if (r.method === 'GET' && pathOnly(r) === SC) editJson(res, (o) => { delete o.apiVersion; }); },
  },
  'api.metadata.name.required': {
    request: (r) => { if (isCreateSC(r)) editJson(r, (b) => { if (!b.metadata?.name && !b.metadata?.generateName) b.metadata.generateName = 'auto-'; }); },
  },
  'api.metadata.name.format': {
    request: (r) => { if (isCreateSC(r)) editJson(r, (b) => { if (b.metadata?.name) b.metadata.name = b.metadata.name.toLowerCase().replace(/_/g, '-').slice(0, 253); }); },
  },
  'api.metadata.generate-name': {
    response: (r, res) => { if (isCreateSC(r) && jsonBody(r)?.metadata?.generateName) editJson(res, (o) => { if (o.metadata) o.metadata.name = 'fixed-name'; }); },
  },
  'api.metadata.system-fields': {
    response: (_r, res) => eachSC(res, (o) => { delete o.metadata?.uid; }),
  },
  'api.metadata.system-fields.not-from-client': {
    response: (r, res) => { const uid = isCreateSC(r) ? jsonBody(r)?.metadata?.uid : undefined; if (uid) editJson(res, (o) => { o.metadata.uid = uid; }); },
  },
  'api.metadata.resource-version.changes': {
    // Echoes the resourceVersion the client sent instead of the new one.
    response: (r, res) => { const rv = r.method === 'PUT' ? jsonBody(r)?.metadata?.resourceVersion : undefined; if (rv && res.status < 300) editJson(res, (o) => { o.metadata.resourceVersion = rv; }); },
  },
  'api.metadata.optimistic-concurrency': {
    // Ignores the resourceVersion precondition: last write wins.
    request: (r) => { if (r.method === 'PUT' && isSCItem(r)) editJson(r, (b) => { delete b.metadata?.resourceVersion; }); },
  },
  'api.metadata.creation-timestamp.immutable': (() => {
    const written = new Map<string, string>();
    return {
      request: (r: ProxiedRequest) => { const ts = r.method === 'PUT' ? jsonBody(r)?.metadata?.creationTimestamp : undefined; if (ts) written.set(pathOnly(r), ts); },
      response: (r: ProxiedRequest, res: { body: string }) => { const ts = written.get(pathOnly(r)); if (r.method === 'GET' && ts) editJson(res, (o) => { o.metadata.creationTimestamp = ts; }); },
    };
  })(),
  'api.metadata.labels.value-too-long': {
    request: (r) => { if (isCreateSC(r)) editJson(r, (b) => { for (const k of Object.keys(b.metadata?.labels ?? {})) b.metadata.labels[k] = String(b.metadata.labels[k]).slice(0, 63); }); },
  },
  'api.metadata.labels.key-format': {
    request: (r) => { if (isCreateSC(r)) editJson(r, (b) => { for (const k of Object.keys(b.metadata?.labels ?? {})) if (k.includes(' ')) delete b.metadata.labels[k]; }); },
  },
  'api.metadata.annotations.size': {
    // Counts only values, not keys, toward the limit: so trims what it thinks is over by nothing.
    request: (r) => { if (isCreateSC(r)) editJson(r, (b) => { for (const k of Object.keys(b.metadata?.annotations ?? {})) b.metadata.annotations[k] = String(b.metadata.annotations[k]).slice(0, 262144 - 64); }); },
  },
  'api.metadata.namespace.forbidden-on-cluster-scoped': {
    request: (r) => { if (isCreateSC(r)) editJson(r, (b) => { delete b.metadata?.namespace; }); },
  },
  'api.metadata.finalizers.hold-deletion': {
    request: (r) => { if (isCreateSC(r)) editJson(r, (b) => { delete b.metadata?.finalizers; }); },
  },

  // §2.1 apiVersion, kind, namespace and generation
  // Refuses an object without kind, yet stores it.
  'api.common.kind.inferred': {
    response: (r, res) => {
      if (isCreateSC(r) && jsonBody(r) && !jsonBody(r).kind && res.status < 300) Object.assign(res, answer(400, statusBody(400, 'BadRequest', "Object 'Kind' is missing")));
    },
  },
  'api.common.kind.immutable': {
    // Acknowledges a PUT that changes kind as if it had been stored.
    request: (r) => (r.method === 'PUT' && isSCItem(r) && jsonBody(r)?.kind !== 'StorageClass' ? answer(200, r.body) : undefined),
  },
  // Takes an unrecognized apiVersion and stores the object, yet answers that it refused it.
  'api.common.api-version.unrecognized': {
    request: (r) => { if (isCreateSC(r)) editJson(r, (b) => { if (b.apiVersion === 'storage.orch.io/v9') { b.apiVersion = 'storage.orch.io/v1'; unrecognizedTaken.add(r); } }); },
    response: (r, res) => { if (unrecognizedTaken.has(r) && res.status < 300) Object.assign(res, answer(400, statusBody(400, 'BadRequest', 'the API version in the data (storage.orch.io/v9) does not match the expected API version (storage.orch.io/v1)'))); },
  },
  'api.metadata.generation.spec-only': {
    // Bumps generation on every write.
    response: (r, res) => { if ((r.method === 'PUT' || r.method === 'PATCH') && res.status < 300) editJson(res, (o) => { if (o.metadata) o.metadata.generation = (o.metadata.generation ?? 1) + 1; }); },
  },
  'api.metadata.namespace.from-path': {
    request: (r) => { if (r.method === 'POST' && /\/resourcequotas$/.test(pathOnly(r))) editJson(r, (b) => { delete b.metadata?.namespace; }); },
  },
  'api.metadata.namespace.must-exist': {
    // Creates into a missing namespace as if it were there (here: into default).
    request: (r) => { if (r.method === 'POST') r.path = r.path.replace(/\/namespaces\/[^/]*-nons-[^/]*\//, '/namespaces/default/'); },
  },

  // §4 discovery
  'api.discovery.core-versions': {
    response: (r, res) => { if (pathOnly(r) === '/api') editJson(res, (o) => { o.versions = []; }); },
  },
  'api.discovery.groups': {
    response: (r, res) => { if (pathOnly(r) === '/apis') editJson(res, (o) => { o.groups = (o.groups ?? []).filter((g: any) => g.name !== 'storage.orch.io'); }); },
  },
  'api.discovery.group-version-resources': {
    response: (r, res) => { if (pathOnly(r) === '/apis/storage.orch.io/v1') editJson(res, (o) => o.resources?.forEach((x: any) => { x.namespaced = true; })); },
  },
  'api.discovery.pod-streaming-subresources': {
    // A server that lists only the SPDY verb (a POST) for pods/exec.
    response: (r, res) => { if (pathOnly(r) === '/api/v1') editJson(res, (o) => o.resources?.forEach((x: any) => { if (x.name === 'pods/exec') x.verbs = ['create']; })); },
  },
  'api.pod.exec.container-required': {
    // A server that picks the first container when none is named (the pod is then refused for having no node).
    request: (r) => { if (r.method === 'POST' && /\/pods\/[^/]+\/exec$/.test(pathOnly(r)) && !/[?&]container=/.test(r.path)) r.path += '&container=first'; },
  },
  'api.discovery.version': {
    response: (r, res) => { if (pathOnly(r) === '/version') editJson(res, (o) => { delete o.gitVersion; }); },
  },

  // §4.1, §4.2 operations
  'api.storageclass.collection-path': {
    request: (r) => r.method === 'GET' && pathOnly(r) === SC ? answer(404, statusBody(404, 'NotFound', 'the server could not find the requested resource')) : undefined,
  },

  // §6 watch
  'api.storageclass.watch.added-modified-deleted': {
    watchLine: (_r, line) => (line.includes('"MODIFIED"') ? undefined : line),
  },

  // §7 errors
  'api.errors.not-found': {
    response: (_r, res) => { if (res.status === 404) { res.headers['content-type'] = 'text/plain'; res.body = '404 page not found'; } },
  },
  'api.errors.already-exists': {
    response: (_r, res) => { if (res.status === 409) editJson(res, (o) => { o.reason = 'Conflict'; }); },
  },
  'api.errors.invalid.one-cause-per-field': {
    response: (_r, res) => { if (res.status === 422) editJson(res, (o) => { if (o.details?.causes) o.details.causes = o.details.causes.slice(0, 1); }); },
  },
  'api.errors.bad-request.malformed-json': {
    request: (r) => isCreateSC(r) && jsonBody(r) === undefined ? answer(500, statusBody(500, 'InternalError', 'unexpected end of JSON input')) : undefined,
  },
  'api.errors.method-not-allowed': {
    request: (r) => r.method === 'PUT' && pathOnly(r) === SC ? answer(404, statusBody(404, 'NotFound', 'the server could not find the requested resource')) : undefined,
  },
  'api.errors.unsupported-media-type': {
    request: (r) => { if (r.headers['content-type'] === 'text/plain') r.headers['content-type'] = 'application/json'; },
  },
  'api.errors.not-acceptable': {
    request: (r) => { if (r.headers.accept === 'application/xml') r.headers.accept = 'application/json'; },
  },
  'api.errors.request-entity-too-large': {
    request: (r) => { if (r.body.length > 3 * 1024 * 1024) editJson(r, (b) => { if (b.parameters) b.parameters.filler = 'small'; }); },
  },
};
