// Breakages for the API-surface cases (suites/000-control-plane/4-surface.ts) and the versioning cases
// (9-versioning.ts): for each, a target wrong in exactly that case's rule.
import { KINDS, type ResourceKind } from '../../suites/000-control-plane/kinds.js';
import { answer, editJson, jsonBody, statusBody, type Breakage, type ProxiedRequest } from '../helpers/broken-target.js';

const pathOnly = (r: ProxiedRequest) => r.path.split('?')[0]!;
const accept = (r: ProxiedRequest) => (r.headers['accept'] ?? '').toLowerCase();
const notFound = () => answer(404, statusBody(404, 'NotFound', 'the server could not find the requested resource'));
const notAcceptable = () => answer(406, statusBody(406, 'NotAcceptable', 'only the following media types are accepted: application/json'));

/** Edits every single object of kind `k` in a response (not lists). */
function eachObject(res: { body: string }, k: ResourceKind, edit: (o: any) => void) {
  editJson(res, (o) => { if (o?.kind === k.kind && o.metadata) edit(o); });
}

function kindBreakages(k: ResourceKind): Record<string, Breakage> {
  const id = (s: string) => `api.${k.kind.toLowerCase()}.${s}`;
  return {
    // Reads answer the kind in lower case.
    [id('kind-camel-case')]: { response: (r, res) => { if (r.method === 'GET') eachObject(res, k, (o) => { o.kind = k.kind.toLowerCase(); }); } },
    // Reads answer ObjectMeta without uid.
    [id('object-meta')]: { response: (r, res) => { if (r.method === 'GET') eachObject(res, k, (o) => { delete o.metadata.uid; }); } },
    // Objects come back in another version than §9's.
    [id('served-version')]: { response: (_r, res) => eachObject(res, k, (o) => { o.apiVersion = k.apiVersion.includes('/') ? k.apiVersion.replace(/\/[^/]+$/, '/v9') : 'v9'; }) },
  };
}

/** Requests to `<collection>` (`item: false`) or `<collection>/{name}/status` (`item: true`) of a namespaced kind. */
function atPath(group: string, plural: string, status: boolean) {
  const re = new RegExp(`^/apis/${group.replace(/\./g, '\\.')}/namespaces/[^/]+/${plural}${status ? '/[^/]+/status' : ''}$`);
  return (r: ProxiedRequest) => re.test(pathOnly(r));
}

const RQ_COLLECTION = /^\/api\/v1\/namespaces\/[^/]+\/resourcequotas$/;

/** Drops fieldValidation from every operation's parameters in an OpenAPI document. */
function dropFieldValidation(doc: any) {
  const keep = (p: any) => p?.name !== 'fieldValidation' && !String(p?.$ref ?? '').includes('fieldValidation');
  for (const item of Object.values<any>(doc?.paths ?? {})) {
    if (Array.isArray(item?.parameters)) item.parameters = item.parameters.filter(keep);
    for (const op of Object.values<any>(item ?? {})) if (Array.isArray(op?.parameters)) op.parameters = op.parameters.filter(keep);
  }
}

export const surfaceBreakages: Record<string, Breakage> = {
  ...Object.assign({}, ...KINDS.map(kindBreakages)),

  // §4.1 rows: the collection is not served at the spec's path; no status subresource.
  'api.evictionrequest.collection-path': { request: (r) => (r.method === 'GET' && atPath('lifecycle.orch.io/v1alpha1', 'evictionrequests', false)(r) ? notFound() : undefined) },
  'api.podgroup.collection-path': { request: (r) => (r.method === 'GET' && atPath('scheduling.orch.io/v1beta1', 'podgroups', false)(r) ? notFound() : undefined) },
  'api.evictionrequest.status-subresource': { request: (r) => (atPath('lifecycle.orch.io/v1alpha1', 'evictionrequests', true)(r) ? notFound() : undefined) },
  'api.podgroup.status-subresource': { request: (r) => (atPath('scheduling.orch.io/v1beta1', 'podgroups', true)(r) ? notFound() : undefined) },

  // §1: quotas ignore the namespace of the path (everything lands in default).
  'api.addressing.group-version-namespace-name': {
    request: (r) => { r.path = r.path.replace(/^\/api\/v1\/namespaces\/[^/]+\/resourcequotas/, '/api/v1/namespaces/default/resourcequotas'); },
  },
  // §4.1 path parameters: a create without a namespace in the path takes the body's.
  'api.path-parameters.namespace-required': {
    request: (r) => {
      const ns = jsonBody(r)?.metadata?.namespace;
      if (r.method === 'POST' && pathOnly(r) === '/api/v1/resourcequotas' && ns) r.path = `/api/v1/namespaces/${ns}/resourcequotas`;
    },
  },
  // ... and a PUT without a name in the path takes the body's.
  'api.path-parameters.name-required': {
    request: (r) => {
      const name = jsonBody(r)?.metadata?.name;
      if (r.method === 'PUT' && RQ_COLLECTION.test(pathOnly(r)) && name) r.path = `${pathOnly(r)}/${name}`;
    },
  },

  // §2.1 ListMeta: chunks without remainingItemCount.
  'api.common.list.meta-fields': {
    response: (r, res) => { if (r.method === 'GET' && RQ_COLLECTION.test(pathOnly(r))) editJson(res, (o) => { delete o.metadata?.remainingItemCount; }); },
  },

  // §4 discovery and what kubectl needs.
  'api.discovery.status-subresources': {
    response: (_r, res) => editJson(res, (o) => { if (o?.kind === 'APIResourceList' && Array.isArray(o.resources)) o.resources = o.resources.filter((x: any) => !String(x?.name).endsWith('/status')); }),
  },
  // Labels the answer as aggregated discovery of a group the client did not ask for (a legacy
  // document so labelled would be misread too).
  'api.discovery.aggregated': {
    response: (r, res) => { if (pathOnly(r) === '/apis' && accept(r).includes('as=apigroupdiscoverylist')) res.headers['content-type'] = 'application/json;g=apidiscovery.example.com;v=v2;as=APIGroupDiscoveryList'; },
  },
  'api.openapi.field-validation': {
    response: (r, res) => { if (pathOnly(r).startsWith('/openapi/')) editJson(res, dropFieldValidation); },
  },
  // Refuses Table requests instead of falling back to the plain list.
  'api.table.list': { request: (r) => (accept(r).includes('as=table') ? notAcceptable() : undefined) },
  'api.media-groups.meta-k8s-io': { request: (r) => (accept(r).includes('g=meta.k8s.io') ? notAcceptable() : undefined) },
  'api.media-groups.apidiscovery-k8s-io': { request: (r) => (accept(r).includes('g=apidiscovery.k8s.io') ? notAcceptable() : undefined) },

  // §9.
  'api.versioning.release': {
    response: (r, res) => { if (pathOnly(r) === '/version') editJson(res, (o) => { o.minor = '36'; o.gitVersion = 'v1.36.0'; }); },
  },
  // Honours the alpha selector although its gate is off.
  'api.versioning.shard-selector-alpha': {
    response: (r, res) => {
      const q = new URLSearchParams(r.path.split('?')[1] ?? '');
      if (r.method === 'GET' && q.has('shardSelector')) editJson(res, (o) => { if (Array.isArray(o.items)) { o.items = []; o.metadata = { ...o.metadata, shardInfo: { selector: q.get('shardSelector') } }; } });
    },
  },
};
