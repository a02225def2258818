// `/openapi/v2`: the Swagger 2.0 document upstream serves beside the v3 ones, which kubectl still
// reads (client-side apply falls back to it when v3 fails, `kubectl explain
// --output=plaintext-openapiv2`, --validate's fallback). It is not generated separately: it is the
// v3 group version documents (openapi.ts) translated, so the two cannot disagree — same definition
// names, descriptions, required fields, group-version-kind tags and patch metadata, same paths and
// operations. Served as JSON or as the gnostic protobuf kubectl asks for (openapi-v2-proto.ts),
// each with its ETag and 304 on If-None-Match, memoised per registry like v3.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { methodNotAllowed, notAcceptable } from './errors.js';
import { cachedDocument, sendCachedDocument, type CachedDocument } from './cached-document.js';
import { encodeSwagger } from './openapi-v2-proto.js';
import type { Registry } from './registry.js';
import { parseMediaParams } from '../media-params.js';

type Json = Record<string, unknown>;

const V3_REF = '#/components/schemas/';
const V2_REF = '#/definitions/';

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A v3 schema as Swagger 2.0 has it: references point into `definitions`, and a reference with
 * siblings (v3 wraps it in a one-element allOf to carry a description and default) becomes a `$ref`
 * beside them, as upstream writes its v2 document.
 */
export function schemaV2(s: unknown): Json {
  if (!isObject(s)) throw new Error(`not a schema: ${JSON.stringify(s)}`);
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'allOf' && Array.isArray(v) && v.length === 1 && isObject(v[0]) && Object.keys(v[0]).length === 1 && typeof v[0]['$ref'] === 'string') {
      out['$ref'] = refV2(v[0]['$ref']);
    } else if (k === '$ref') {
      out['$ref'] = refV2(v as string);
    } else if (k === 'properties') {
      out[k] = Object.fromEntries(Object.entries(v as Json).map(([name, p]) => [name, schemaV2(p)]));
    } else if (k === 'items' || (k === 'additionalProperties' && isObject(v))) {
      out[k] = schemaV2(v);
    } else if (k === 'allOf') {
      out[k] = (v as unknown[]).map(schemaV2);
    } else {
      out[k] = v;
    }
  }
  return out;
}

function refV2(ref: string): string {
  if (!ref.startsWith(V3_REF)) throw new Error(`unexpected reference ${ref}`);
  return V2_REF + ref.slice(V3_REF.length);
}

/** A v3 query or path parameter: v2 has the type inline instead of a schema. */
function parameterV2(p: Json): Json {
  const { schema, ...rest } = p as Json & { schema?: Json };
  return { ...rest, ...(schema ?? {}) };
}

const contentSchema = (content: unknown): Json | undefined => {
  const first = isObject(content) ? Object.values(content)[0] : undefined;
  return isObject(first) && isObject(first['schema']) ? schemaV2(first['schema']) : undefined;
};

/** A v3 operation as v2: the request body becomes a `body` parameter, media types `consumes`/`produces`. */
function operationV2(op: Json): Json {
  const { requestBody, responses, parameters, ...rest } = op as Json & { requestBody?: Json; responses?: Json; parameters?: Json[] };
  const params = (parameters ?? []).map(parameterV2);
  let consumes = ['*/*'];
  if (requestBody) {
    const content = requestBody['content'] as Json;
    consumes = Object.keys(content);
    params.unshift({ name: 'body', in: 'body', required: requestBody['required'] === true, schema: contentSchema(content) });
  }
  const produces = new Set<string>();
  const responsesV2: Json = {};
  for (const [code, r] of Object.entries(responses ?? {})) {
    const { content, ...resp } = r as Json;
    if (isObject(content)) for (const mt of Object.keys(content)) produces.add(mt);
    const schema = contentSchema(content);
    responsesV2[code] = { ...resp, ...(schema ? { schema } : {}) };
  }
  return { ...rest, consumes, produces: [...produces], ...(params.length ? { parameters: params } : {}), responses: responsesV2 };
}

const OPERATIONS = ['get', 'put', 'post', 'delete', 'patch'];

function pathItemV2(item: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(item)) {
    if (k === 'parameters') out[k] = (v as Json[]).map(parameterV2);
    else if (OPERATIONS.includes(k)) out[k] = operationV2(v as Json);
    else throw new Error(`unexpected path item key ${k}`);
  }
  return out;
}

const sortedEntries = (o: Json): Array<[string, unknown]> => Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** The Swagger 2.0 document of all the v3 group version documents given. */
export function swaggerDocument(v3: readonly Json[]): Json {
  const paths: Json = {};
  const definitions: Json = {};
  const securityDefinitions: Json = {};
  for (const doc of v3) {
    for (const [p, item] of Object.entries(doc['paths'] as Json)) paths[p] = pathItemV2(item as Json);
    const components = doc['components'] as { schemas: Json; securitySchemes?: Json };
    for (const [name, s] of Object.entries(components.schemas)) definitions[name] = schemaV2(s);
    Object.assign(securityDefinitions, components.securitySchemes ?? {});
  }
  return {
    swagger: '2.0',
    info: (v3[0]?.['info'] as Json | undefined) ?? { title: 'Orch', version: 'v1.37.0' },
    paths: Object.fromEntries(sortedEntries(paths)),
    definitions: Object.fromEntries(sortedEntries(definitions)),
    securityDefinitions,
    security: Object.keys(securityDefinitions).map((name) => ({ [name]: [] })),
  };
}

/** Upstream's media types: kubectl asks with `@v1.0`, the answer says `.v1.0`. */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
export const OPENAPI_V2_PROTOBUF_ANSWER = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const PROTOBUF_SUBTYPES = new Set(['com.github.proto-openapi.spec.v2@v1.0+protobuf', 'com.github.proto-openapi.spec.v2.v1.0+protobuf']);

type Format = 'json' | 'protobuf';

/** The first acceptable format in the client's order of preference; JSON without an Accept header. */
export function negotiateV2(accept: string | undefined): Format | undefined {
  if (!accept || !accept.trim()) return 'json';
  const ranges = accept
    .split(',')
    .map((text, index) => {
      const [range = '', ...params] = text.split(';');
      const [type = '', subtype = ''] = range.trim().toLowerCase().split('/');
      return { type, subtype, q: parseMediaParams(params).q, index };
    })
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { type, subtype } of ranges) {
    if (type !== 'application' && type !== '*') continue;
    if (subtype === 'json' || subtype === '*') return 'json';
    if (PROTOBUF_SUBTYPES.has(subtype)) return 'protobuf';
  }
  return undefined;
}

interface Rendered {
  readonly json: CachedDocument;
  protobuf?: CachedDocument;
  readonly doc: Json;
}

/** Built on first use per registry (its strategies and gates do not change); protobuf on first ask. */
const cache = new WeakMap<Registry, Rendered>();

function rendered(registry: Registry, v3: () => readonly Json[]): Rendered {
  let r = cache.get(registry);
  if (!r) {
    const doc = swaggerDocument(v3());
    r = { doc, json: cachedDocument(JSON.stringify(doc)) };
    cache.set(registry, r);
  }
  return r;
}

/** Answers `GET /openapi/v2`; `v3` gives the group version documents it is translated from. */
export function serveOpenApiV2(req: IncomingMessage, res: ServerResponse, registry: Registry, v3: () => readonly Json[]): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed();
  const format = negotiateV2(req.headers.accept);
  if (!format) throw notAcceptable(['application/json', OPENAPI_V2_PROTOBUF]);
  const r = rendered(registry, v3);
  if (format === 'json') {
    sendCachedDocument(req, res, r.json, { 'Content-Type': 'application/json' });
    return;
  }
  r.protobuf ??= cachedDocument(encodeSwagger(r.doc));
  sendCachedDocument(req, res, r.protobuf, { 'Content-Type': OPENAPI_V2_PROTOBUF_ANSWER });
}
