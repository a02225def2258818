// Field documentation in the OpenAPI the reference serves, and /openapi/v2: every field of every
// served schema has a description, the spec's `*` fields are `required`, and /openapi/v2 is the v3
// documents as Swagger 2.0, in JSON and in gnostic protobuf (decoded here with the module's own
// descriptor and compared with the JSON), with ETag, 304 and 406 as upstream's handlers answer.
import t from 'tap';
import { parse } from 'yaml';
import { startReference } from '../../reference/server.js';
import { REFERENCE_RESOURCES } from '../../reference/resources/index.js';
import { objectMetaSchema, type Schema } from '../../reference/apiserver/schema.js';
import { resolveStrategy, type ResourceStrategy } from '../../reference/apiserver/strategy.js';
import { swaggerDocument } from '../../reference/apiserver/openapi-v2-proto.js';
import { OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_ANSWER } from '../../reference/apiserver/openapi-v2.js';
import { call } from './helpers.js';

type Json = Record<string, any>;

/** Every gate that serves a kind or a field on, so that every schema the reference can serve is checked. */
const ALL_GATES = { GenericWorkload: true };

/** Every kind the reference serves, with the bodies of its create-only subresources. */
const allStrategies = (): ResourceStrategy[] => REFERENCE_RESOURCES.flatMap((s) => [s, ...Object.values(s.subresources ?? {}).map((sub) => sub.body)]);

/** Problems of a `Schema` tree: an undescribed field, a `required` naming no field. */
function schemaProblems(s: Schema, at: string, out: string[]): void {
  switch (s.type) {
    case 'object':
      for (const r of s.required ?? []) if (!(r in s.properties)) out.push(`${at}: required "${r}" is not a field`);
      for (const [k, v] of Object.entries(s.properties)) {
        const p = at ? `${at}.${k}` : k;
        if (!v.description?.trim()) out.push(`${p}: no description`);
        schemaProblems(v, p, out);
      }
      return;
    case 'array':
      return schemaProblems(s.items, `${at}[]`, out);
    case 'map':
      return schemaProblems(s.values, `${at}{}`, out);
  }
}

t.test('the schemas in the source: every field described, every required field declared, every kind described', async (t) => {
  const problems: string[] = [];
  schemaProblems(objectMetaSchema, 'metadata', problems);
  for (const s of allStrategies()) {
    if (!s.description?.trim()) problems.push(`${s.kind}: no description`);
    for (const r of s.required ?? []) if (!(r in s.schema)) problems.push(`${s.kind}: required "${r}" is not a field`);
    schemaProblems({ type: 'object', properties: s.schema }, `${s.group || 'core'}/${s.kind}`, problems);
  }
  t.same(problems, [], 'no undocumented field');
});

/** All group version documents of /openapi/v3, by their discovery path. */
async function v3Documents(url: string): Promise<Map<string, Json>> {
  const disc = await call(url, 'GET', '/openapi/v3');
  const docs = new Map<string, Json>();
  for (const [p, { serverRelativeURL }] of Object.entries(disc.body.paths as Record<string, { serverRelativeURL: string }>)) {
    docs.set(p, (await call(url, 'GET', serverRelativeURL)).body);
  }
  return docs;
}

/** Problems of a served (v3 or v2) schema: properties without a description, required naming nothing. */
function servedProblems(s: Json, at: string, out: string[]): void {
  for (const r of s['required'] ?? []) if (!(r in (s['properties'] ?? {}))) out.push(`${at}: required "${r}" is not a property`);
  for (const [k, v] of Object.entries((s['properties'] ?? {}) as Json)) {
    if (typeof v.description !== 'string' || !v.description.trim()) out.push(`${at}.${k}: no description`);
    servedProblems(v, `${at}.${k}`, out);
  }
  if (s['items']) servedProblems(s['items'], `${at}[]`, out);
  if (typeof s['additionalProperties'] === 'object') servedProblems(s['additionalProperties'], `${at}{}`, out);
}

/** The served schema at a dotted path (`[]` for list items) below a definition, following references. */
function schemaAt(defs: Json, root: Json, path: string): Json {
  const resolve = (s: Json): Json => {
    const ref: string | undefined = s['$ref'] ?? s['allOf']?.[0]?.['$ref'];
    return ref ? defs[ref.split('/').pop()!] : s;
  };
  let s = resolve(root);
  for (const step of path ? path.split('.') : []) {
    const name = step.replace(/\[\]$/, '');
    s = resolve(s['properties'][name]);
    if (step.endsWith('[]')) s = resolve(s['items']);
  }
  return s;
}

/** The spec's `*` fields (000 §2), as [definition, object path, required fields]. */
const SPEC_REQUIRED: ReadonlyArray<readonly [string, string, readonly string[]]> = [
  ['io.orch.api.storage.v1.StorageClass', '', ['provisioner']],
  ['io.orch.api.storage.v1.StorageClass', 'allowedTopologies[].matchLabelExpressions[]', ['key', 'values']],
  ['io.orch.api.storage.v1.StorageClassList', '', ['items']],
  ['io.orch.api.storagemigration.v1.StorageVersionMigration', 'spec', ['resource']],
  ['io.orch.api.core.v1.ResourceQuota', 'spec.scopeSelector.matchExpressions[]', ['operator', 'scopeName']],
  ['io.orch.api.lifecycle.v1alpha1.EvictionRequest', '', ['spec']],
  ['io.orch.api.lifecycle.v1alpha1.EvictionRequest', 'spec', ['intent', 'requester', 'target']],
  ['io.orch.api.lifecycle.v1alpha1.EvictionRequest', 'spec.target.pod', ['name', 'uid']],
  ['io.orch.api.scheduling.v1beta1.PodGroup', '', ['spec']],
  ['io.orch.api.scheduling.v1beta1.PodGroup', 'spec', ['schedulingPolicy']],
  ['io.orch.api.scheduling.v1beta1.PodGroup', 'spec.schedulingPolicy.gang', ['minCount']],
  ['io.orch.api.scheduling.v1beta1.PodGroup', 'spec.resourceClaims[]', ['name']],
  ['io.orch.api.scheduling.v1beta1.PodGroup', 'spec.schedulingConstraints.topology[]', ['key']],
  ['io.orch.api.scheduling.v1beta1.PodGroup', 'spec.workloadRef', ['templateName', 'workloadName']],
  ['io.orch.api.events.v1.Event', '', ['eventTime']],
  ['io.orch.api.events.v1.Event', 'series', ['count', 'lastObservedTime']],
  // Not shown in the spec: upstream's required fields, where the reference's validation insists too.
  ['io.orch.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'ownerReferences[]', ['apiVersion', 'kind', 'name', 'uid']],
  ['io.orch.api.core.v1.Pod', 'spec', ['containers']],
  ['io.orch.api.core.v1.Pod', 'spec.containers[]', ['name']],
  ['io.orch.api.rbac.authorization.v1.ClusterRole', 'rules[]', ['verbs']],
  ['io.orch.api.rbac.authorization.v1.ClusterRoleBinding', '', ['roleRef']],
  ['io.orch.api.rbac.authorization.v1.RoleBinding', 'subjects[]', ['kind', 'name']],
  ['io.orch.api.rbac.authorization.v1.RoleBinding', 'roleRef', ['apiGroup', 'kind', 'name']],
];

/** The spec's descriptions, word for word, of a few fields and kinds (the Rule column, §1). */
const SPEC_WORDS: ReadonlyArray<readonly [string, string, string]> = [
  ['io.orch.api.storage.v1.StorageClass', 'provisioner', 'Type of the provisioner.'],
  ['io.orch.api.storage.v1.StorageClass', 'mountOptions', 'Mount options of provisioned volumes. Not validated; mounting simply fails if an option is invalid.'],
  ['io.orch.api.lifecycle.v1alpha1.EvictionRequest', 'spec.target.pod.uid', "Lowercase UUID, 8-4-4-4-12 format, equal to the pod's metadata.uid."],
  ['io.orch.api.core.v1.ResourceQuota', 'spec.hard', 'Desired hard limits per named resource.'],
  ['io.orch.api.rbac.authorization.v1.ClusterRole', 'aggregationRule.clusterRoleSelectors', 'If any selector matches a cluster role, its permissions are added.'],
];

t.test('/openapi/v3: descriptions, required fields, kind descriptions', async (t) => {
  const ref = await startReference({ host: '127.0.0.1', port: 0, featureGates: ALL_GATES });
  t.teardown(() => ref.close());
  const docs = await v3Documents(ref.url);
  const defs: Json = Object.assign({}, ...[...docs.values()].map((d) => d['components']['schemas']));

  const problems: string[] = [];
  for (const [name, s] of Object.entries(defs)) {
    if (typeof s.description !== 'string' || !s.description.trim()) problems.push(`${name}: no description`);
    servedProblems(s, name, problems);
  }
  t.same(problems, [], 'every property of every schema of every group version has a description');

  for (const s of allStrategies().map(resolveStrategy)) {
    const def = Object.values(defs).find((d: Json) => (d['x-kubernetes-group-version-kind'] ?? []).some((g: Json) => g.kind === s.kind && g.group === s.group));
    t.equal(def?.description, s.description, `${s.kind}: the kind's own description`);
  }
  for (const [def, path, required] of SPEC_REQUIRED) {
    const s = schemaAt(defs, defs[def], path);
    t.ok(required.every((r) => (s['required'] ?? []).includes(r)), `${def} ${path || '(top)'}: ${required.join(', ')} required (has ${JSON.stringify(s['required'])})`);
  }
  for (const [def, path, words] of SPEC_WORDS) {
    const parent = path.split('.').slice(0, -1).join('.');
    t.equal(schemaAt(defs, defs[def], parent)['properties'][path.split('.').pop()!].description, words, `${def} ${path}: the spec's words`);
  }
  t.equal(defs['io.orch.api.core.v1.Pod'].properties.metadata.description, 'Standard object metadata (name, namespace, and so on).', 'a metadata reference carries the field description beside allOf');
  t.same(defs['io.orch.api.core.v1.Pod'].properties.metadata.allOf, [{ $ref: '#/components/schemas/io.orch.apimachinery.pkg.apis.meta.v1.ObjectMeta' }]);
});

/** A decoded openapi.v2.Document message back as Swagger JSON: the inverse of the module's translation. */
function fromMessage(m: Json): Json {
  const ext = (o: Json, x: Json[] | undefined): Json => {
    for (const { name, value } of x ?? []) o[name] = parse(value.yaml);
    return o;
  };
  const named = <T>(list: Json[] | undefined, f: (v: Json) => T): Record<string, T> => Object.fromEntries((list ?? []).map(({ name, value }) => [name, f(value)]));
  const schema = (s: Json): Json => {
    const { ref, type, default: def, items, allOf, additionalProperties, properties, vendorExtension, ...rest } = s;
    const out: Json = { ...rest };
    if (ref !== undefined) out['$ref'] = ref;
    if (type) out['type'] = type.value[0];
    if (def) out['default'] = parse(def.yaml);
    if (items) out['items'] = schema(items.schema[0]);
    if (allOf) out['allOf'] = allOf.map(schema);
    if (additionalProperties) out['additionalProperties'] = additionalProperties.schema ? schema(additionalProperties.schema) : additionalProperties.boolean;
    if (properties) out['properties'] = named(properties.additionalProperties, schema);
    return ext(out, vendorExtension);
  };
  const parameter = ({ parameter: p }: Json): Json => {
    if (p.bodyParameter) {
      const { schema: s, vendorExtension, ...rest } = p.bodyParameter;
      return ext({ ...rest, schema: schema(s) }, vendorExtension);
    }
    const { vendorExtension, ...rest } = p.nonBodyParameter.queryParameterSubSchema ?? p.nonBodyParameter.pathParameterSubSchema;
    return ext(rest, vendorExtension);
  };
  const operation = (op: Json): Json => {
    const { parameters, responses, vendorExtension, ...rest } = op;
    const out: Json = { ...rest, responses: named(responses.responseCode, ({ response }) => ({ description: response.description, ...(response.schema ? { schema: schema(response.schema.schema) } : {}) })) };
    if (parameters) out['parameters'] = parameters.map(parameter);
    return ext(out, vendorExtension);
  };
  const pathItem = ({ vendorExtension, ...item }: Json): Json =>
    ext(Object.fromEntries(Object.entries(item).map(([k, v]) => [k, k === 'parameters' ? (v as Json[]).map(parameter) : operation(v as Json)])), vendorExtension);
  return {
    swagger: m['swagger'],
    info: m['info'],
    paths: named(m['paths'].path, pathItem),
    definitions: named(m['definitions'].additionalProperties, schema),
    securityDefinitions: named(m['securityDefinitions'].additionalProperties, (v) => v['apiKeySecurity']),
    security: m['security'].map((r: Json) => named(r['additionalProperties'], (v) => v['value'] ?? [])),
  };
}

t.test('/openapi/v2: the v3 documents as Swagger 2.0, JSON and protobuf', async (t) => {
  const ref = await startReference({ host: '127.0.0.1', port: 0, featureGates: ALL_GATES });
  t.teardown(() => ref.close());
  const docs = await v3Documents(ref.url);
  const v3Defs: Json = Object.assign({}, ...[...docs.values()].map((d) => d['components']['schemas']));
  const v3Paths: Json = Object.assign({}, ...[...docs.values()].map((d) => d['paths']));

  const res = await call(ref.url, 'GET', '/openapi/v2', undefined, { accept: 'application/json' });
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'application/json');
  const v2 = res.body as Json;
  t.equal(v2['swagger'], '2.0');
  t.same(Object.keys(v2['definitions']).sort(), Object.keys(v3Defs).sort(), 'the same definition names as v3\'s components.schemas');
  t.same(Object.keys(v2['paths']).sort(), Object.keys(v3Paths).sort(), 'the same paths as v3');
  t.notMatch(res.text, '#/components/', 'every reference points into definitions');
  const refs = [...res.text.matchAll(/"\$ref":"#\/definitions\/([^"]+)"/g)].map((m) => m[1]!);
  t.same(refs.filter((r) => !(r in v2['definitions'])), [], 'and every one resolves');

  const problems: string[] = [];
  for (const [name, s] of Object.entries(v2['definitions'] as Json)) servedProblems(s, name, problems);
  t.same(problems, [], 'every property described in v2 too');
  for (const [name, s] of Object.entries(v3Defs)) {
    const d = v2['definitions'][name];
    t.equal(d.description, s.description, `${name}: description`);
    t.same(d.required, s.required, `${name}: required`);
    t.same(d['x-kubernetes-group-version-kind'], s['x-kubernetes-group-version-kind'], `${name}: group version kind`);
  }
  const pod = v2['definitions']['io.orch.api.core.v1.Pod'];
  t.same(pod.properties.metadata, { $ref: '#/definitions/io.orch.apimachinery.pkg.apis.meta.v1.ObjectMeta', default: {}, description: 'Standard object metadata (name, namespace, and so on).' }, 'a reference with its field description beside it, as upstream v2');
  const containers = pod.properties.spec.properties.containers;
  t.equal(containers['x-kubernetes-patch-strategy'], 'merge', 'patch metadata: strategy');
  t.equal(containers['x-kubernetes-patch-merge-key'], 'name', 'merge key');
  t.equal(containers['x-kubernetes-list-type'], 'map', 'list type');
  t.same(containers['x-kubernetes-list-map-keys'], ['name'], 'list map keys');
  t.same(containers.items.required, ['name']);

  const item = v2['paths']['/apis/storage.orch.io/v1/storageclasses/{name}'];
  t.same(Object.keys(item).sort(), ['delete', 'get', 'parameters', 'patch', 'put']);
  t.equal(item.patch.operationId, 'patchStorageV1StorageClass');
  t.same(item.patch.consumes.sort(), ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']);
  t.same(item.patch.parameters[0], { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/io.orch.apimachinery.pkg.apis.meta.v1.Patch' } }, 'the body is a parameter');
  t.ok(item.patch.parameters.some((p: Json) => p.name === 'fieldValidation' && p.in === 'query' && p.type === 'string'), 'PATCH lists fieldValidation (what kubectl --validate looks for in v2)');
  t.same(item.patch['x-kubernetes-group-version-kind'], { group: 'storage.orch.io', kind: 'StorageClass', version: 'v1' });
  t.same(item.parameters.find((p: Json) => p.name === 'name'), { name: 'name', in: 'path', description: 'name of the StorageClass', required: true, type: 'string', uniqueItems: true });
  t.same(item.get.responses['200'], { description: 'OK', schema: { $ref: '#/definitions/io.orch.api.storage.v1.StorageClass' } });
  t.same(item.get.produces, ['application/json', 'application/yaml']);
  t.same(v2['securityDefinitions'], { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } });
  t.same(v2['security'], [{ BearerToken: [] }]);

  const pb = await fetch(`${ref.url}/openapi/v2`, { headers: { accept: OPENAPI_V2_PROTOBUF } });
  t.equal(pb.status, 200);
  t.equal(pb.headers.get('content-type'), OPENAPI_V2_PROTOBUF_ANSWER, "upstream's answer media type");
  const bytes = new Uint8Array(await pb.arrayBuffer());
  const message = swaggerDocument().toObject(swaggerDocument().decode(bytes)) as Json;
  t.same(fromMessage(message), v2, 'the protobuf decodes to the JSON document');
  t.equal(message['definitions'].additionalProperties.find((d: Json) => d.name === 'io.orch.api.storage.v1.StorageClass').value.vendorExtension[0].name, 'x-kubernetes-group-version-kind', 'vendor extensions are NamedAny');

  const preferred = await fetch(`${ref.url}/openapi/v2`, { headers: { accept: `application/json;q=0.5, ${OPENAPI_V2_PROTOBUF}` } });
  t.equal(preferred.headers.get('content-type'), OPENAPI_V2_PROTOBUF_ANSWER, 'the client\'s preference (q) decides');
  await preferred.arrayBuffer();
  t.equal((await call(ref.url, 'GET', '/openapi/v2')).headers.get('content-type'), 'application/json', 'no Accept: JSON');
  t.equal((await call(ref.url, 'GET', '/openapi/v2', undefined, { accept: '*/*' })).headers.get('content-type'), 'application/json');
});

t.test('/openapi/v2 and v3: ETag, 304, 406, 405', async (t) => {
  const ref = await startReference({ host: '127.0.0.1', port: 0 });
  t.teardown(() => ref.close());
  const u = ref.url;
  const json = await call(u, 'GET', '/openapi/v2', undefined, { accept: 'application/json' });
  const pb = await fetch(`${u}/openapi/v2`, { headers: { accept: OPENAPI_V2_PROTOBUF } });
  await pb.arrayBuffer();
  const jsonTag = json.headers.get('etag')!;
  const pbTag = pb.headers.get('etag')!;
  t.match(jsonTag, /^"[0-9A-F]{128}"$/, 'JSON: a quoted SHA-512 ETag');
  t.match(pbTag, /^"[0-9A-F]{128}"$/, 'protobuf: its own');
  t.not(jsonTag, pbTag);

  const notModified = await call(u, 'GET', '/openapi/v2', undefined, { accept: 'application/json', 'if-none-match': jsonTag });
  t.equal(notModified.status, 304, 'If-None-Match with the current ETag: 304');
  t.equal(notModified.text, '', 'without a body');
  t.equal(notModified.headers.get('etag'), jsonTag);
  t.equal((await call(u, 'GET', '/openapi/v2', undefined, { accept: OPENAPI_V2_PROTOBUF, 'if-none-match': `W/${pbTag}, "other"` })).status, 304, 'weak and listed tags match too');
  t.equal((await call(u, 'GET', '/openapi/v2', undefined, { accept: OPENAPI_V2_PROTOBUF, 'if-none-match': jsonTag })).status, 200, "the JSON document's tag is not the protobuf's");
  t.equal((await call(u, 'GET', '/openapi/v2', undefined, { 'if-none-match': '"stale"' })).status, 200);

  const head = await fetch(`${u}/openapi/v2`, { method: 'HEAD', headers: { accept: 'application/json' } });
  t.equal(head.status, 200);
  t.equal(head.headers.get('etag'), jsonTag);
  t.equal(head.headers.get('content-length'), String(Buffer.byteLength(json.text)));

  const disc = await call(u, 'GET', '/openapi/v3');
  const gv = disc.body.paths['apis/storage.orch.io/v1'].serverRelativeURL as string;
  const v3 = await call(u, 'GET', gv);
  const v3NotModified = await call(u, 'GET', gv, undefined, { 'if-none-match': v3.headers.get('etag')! });
  t.equal(v3NotModified.status, 304, 'v3 group version documents answer 304 too');
  t.equal(v3NotModified.headers.get('cache-control'), 'public, immutable');

  const refused = await call(u, 'GET', '/openapi/v2', undefined, { accept: 'application/xml' });
  t.equal(refused.status, 406, 'an Accept with nothing servable: 406');
  t.equal(refused.body?.kind, 'Status');
  t.equal(refused.body?.reason, 'NotAcceptable');
  t.match(refused.body?.message, OPENAPI_V2_PROTOBUF);
  t.equal((await call(u, 'GET', '/openapi/v2', undefined, { accept: 'application/json;q=0' })).status, 406, 'q=0 refuses');
  const post = await call(u, 'POST', '/openapi/v2', {});
  t.equal(post.status, 405);
  t.equal(post.body?.kind, 'Status');
  t.equal((await call(u, 'GET', '/openapi/v2/extra')).status, 404);
});
