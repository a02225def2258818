// The Swagger 2.0 document as the protobuf kubectl asks /openapi/v2 for: gnostic's `openapi.v2.Document`
// message (field numbers from google/gnostic openapiv2/OpenAPIv2.proto), declared here for just the
// parts the reference emits. Vendor extensions (`x-...`) are NamedAny{name, Any{yaml}}, the way kubectl
// reads them back (it parses the YAML). The translation is strict: a key it does not know is an error,
// so the protobuf can never silently say less than the JSON document.
import type { Type } from 'protobufjs';
import { onFirstUse, protobuf, yaml } from '../packages.js';

type Json = Record<string, unknown>;
type Fields = Record<string, { type: string; id: number; rule?: 'repeated' }>;

const f = (type: string, id: number): { type: string; id: number } => ({ type, id });
const many = (type: string, id: number): { type: string; id: number; rule: 'repeated' } => ({ type, id, rule: 'repeated' });
const named = (value: string): { fields: Fields } => ({ fields: { name: f('string', 1), value: f(value, 2) } });

/** The messages of gnostic's OpenAPIv2.proto this document needs (proto3; names camelCased). */
const MESSAGES: Record<string, { fields: Fields }> = {
  Document: {
    fields: {
      swagger: f('string', 1),
      info: f('Info', 2),
      paths: f('Paths', 8),
      definitions: f('Definitions', 9),
      security: many('SecurityRequirement', 12),
      securityDefinitions: f('SecurityDefinitions', 13),
      vendorExtension: many('NamedAny', 16),
    },
  },
  Info: { fields: { title: f('string', 1), version: f('string', 2), description: f('string', 3) } },
  Paths: { fields: { vendorExtension: many('NamedAny', 1), path: many('NamedPathItem', 2) } },
  NamedPathItem: named('PathItem'),
  PathItem: {
    fields: {
      get: f('Operation', 2),
      put: f('Operation', 3),
      post: f('Operation', 4),
      delete: f('Operation', 5),
      patch: f('Operation', 8),
      parameters: many('ParametersItem', 9),
      vendorExtension: many('NamedAny', 10),
    },
  },
  Operation: {
    fields: {
      tags: many('string', 1),
      summary: f('string', 2),
      description: f('string', 3),
      operationId: f('string', 5),
      produces: many('string', 6),
      consumes: many('string', 7),
      parameters: many('ParametersItem', 8),
      responses: f('Responses', 9),
      schemes: many('string', 10),
      deprecated: f('bool', 11),
      vendorExtension: many('NamedAny', 13),
    },
  },
  ParametersItem: { fields: { parameter: f('Parameter', 1) } },
  Parameter: { fields: { bodyParameter: f('BodyParameter', 1), nonBodyParameter: f('NonBodyParameter', 2) } },
  BodyParameter: {
    fields: { description: f('string', 1), name: f('string', 2), in: f('string', 3), required: f('bool', 4), schema: f('Schema', 5), vendorExtension: many('NamedAny', 6) },
  },
  NonBodyParameter: { fields: { queryParameterSubSchema: f('QueryParameterSubSchema', 3), pathParameterSubSchema: f('PathParameterSubSchema', 4) } },
  QueryParameterSubSchema: {
    fields: {
      required: f('bool', 1),
      in: f('string', 2),
      description: f('string', 3),
      name: f('string', 4),
      type: f('string', 6),
      format: f('string', 7),
      uniqueItems: f('bool', 20),
      vendorExtension: many('NamedAny', 23),
    },
  },
  PathParameterSubSchema: {
    fields: {
      required: f('bool', 1),
      in: f('string', 2),
      description: f('string', 3),
      name: f('string', 4),
      type: f('string', 5),
      format: f('string', 6),
      uniqueItems: f('bool', 19),
      vendorExtension: many('NamedAny', 22),
    },
  },
  Responses: { fields: { responseCode: many('NamedResponseValue', 1), vendorExtension: many('NamedAny', 2) } },
  NamedResponseValue: named('ResponseValue'),
  ResponseValue: { fields: { response: f('Response', 1) } },
  Response: { fields: { description: f('string', 1), schema: f('SchemaItem', 2), vendorExtension: many('NamedAny', 5) } },
  SchemaItem: { fields: { schema: f('Schema', 1) } },
  Schema: {
    fields: {
      ref: f('string', 1),
      format: f('string', 2),
      title: f('string', 3),
      description: f('string', 4),
      default: f('Any', 5),
      multipleOf: f('double', 6),
      maximum: f('double', 7),
      exclusiveMaximum: f('bool', 8),
      minimum: f('double', 9),
      exclusiveMinimum: f('bool', 10),
      maxLength: f('int64', 11),
      minLength: f('int64', 12),
      pattern: f('string', 13),
      maxItems: f('int64', 14),
      minItems: f('int64', 15),
      uniqueItems: f('bool', 16),
      maxProperties: f('int64', 17),
      minProperties: f('int64', 18),
      required: many('string', 19),
      enum: many('Any', 20),
      additionalProperties: f('AdditionalPropertiesItem', 21),
      type: f('TypeItem', 22),
      items: f('ItemsItem', 23),
      allOf: many('Schema', 24),
      properties: f('Properties', 25),
      readOnly: f('bool', 27),
      example: f('Any', 30),
      vendorExtension: many('NamedAny', 31),
    },
  },
  AdditionalPropertiesItem: { fields: { schema: f('Schema', 1), boolean: f('bool', 2) } },
  TypeItem: { fields: { value: many('string', 1) } },
  ItemsItem: { fields: { schema: many('Schema', 1) } },
  Properties: { fields: { additionalProperties: many('NamedSchema', 1) } },
  NamedSchema: named('Schema'),
  Definitions: { fields: { additionalProperties: many('NamedSchema', 1) } },
  Any: { fields: { yaml: f('string', 2) } },
  NamedAny: named('Any'),
  SecurityDefinitions: { fields: { additionalProperties: many('NamedSecurityDefinitionsItem', 1) } },
  NamedSecurityDefinitionsItem: named('SecurityDefinitionsItem'),
  SecurityDefinitionsItem: { fields: { apiKeySecurity: f('ApiKeySecurity', 2) } },
  ApiKeySecurity: { fields: { type: f('string', 1), name: f('string', 2), in: f('string', 3), description: f('string', 4), vendorExtension: many('NamedAny', 5) } },
  SecurityRequirement: { fields: { additionalProperties: many('NamedStringArray', 1) } },
  NamedStringArray: named('StringArray'),
  StringArray: { fields: { value: many('string', 1) } },
};

/** The gnostic Document message type (also what tests decode with), built on first use: `serve` starts without protobufjs. */
export const swaggerDocument = onFirstUse((): Type =>
  protobuf().Root.fromJSON({ nested: { openapi: { nested: { v2: { nested: MESSAGES } } } } }).lookupType('openapi.v2.Document'),
);

/** Any{yaml}: strings double-quoted so that YAML 1.1 readers (Go's yaml.v2) take them as strings. */
export const anyYaml = (value: unknown): Json => ({ yaml: yaml().stringify(value, { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' }) });

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Copies the plain keys a message takes (same name, same value) and collects `x-` keys as vendor extensions. */
function plain(o: Json, keys: readonly string[], where: string, special: Readonly<Record<string, (v: unknown) => [string, unknown]>> = {}): Json {
  const out: Json = {};
  const extensions: Json[] = [];
  for (const [k, v] of Object.entries(o)) {
    if (k.startsWith('x-')) extensions.push({ name: k, value: anyYaml(v) });
    else if (special[k]) {
      const [name, value] = special[k](v);
      out[name] = value;
    } else if (keys.includes(k)) out[k] = v;
    else throw new Error(`${where}: no protobuf field for ${JSON.stringify(k)}`);
  }
  if (extensions.length) out['vendorExtension'] = extensions;
  return out;
}

/** Schema keywords whose protobuf field has the same name and value. */
const SCHEMA_PLAIN = [
  'format', 'title', 'description', 'required', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum',
  'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'maxProperties', 'minProperties', 'readOnly',
];

function schema(s: unknown): Json {
  if (!isObject(s)) throw new Error(`schema: not an object: ${JSON.stringify(s)}`);
  return plain(s, SCHEMA_PLAIN, 'schema', {
    $ref: (v) => ['ref', v],
    type: (v) => ['type', { value: [v] }],
    default: (v) => ['default', anyYaml(v)],
    example: (v) => ['example', anyYaml(v)],
    enum: (v) => ['enum', (v as unknown[]).map(anyYaml)],
    items: (v) => ['items', { schema: [schema(v)] }],
    allOf: (v) => ['allOf', (v as unknown[]).map(schema)],
    additionalProperties: (v) => ['additionalProperties', typeof v === 'boolean' ? { boolean: v } : { schema: schema(v) }],
    properties: (v) => ['properties', { additionalProperties: Object.entries(v as Json).map(([name, p]) => ({ name, value: schema(p) })) }],
  });
}

const NON_BODY = ['required', 'in', 'description', 'name', 'type', 'format', 'uniqueItems'];

function parameter(p: unknown): Json {
  if (!isObject(p)) throw new Error('parameter: not an object');
  switch (p['in']) {
    case 'body':
      return { parameter: { bodyParameter: plain(p, ['description', 'name', 'in', 'required'], 'body parameter', { schema: (v) => ['schema', schema(v)] }) } };
    case 'query':
      return { parameter: { nonBodyParameter: { queryParameterSubSchema: plain(p, NON_BODY, 'query parameter') } } };
    case 'path':
      return { parameter: { nonBodyParameter: { pathParameterSubSchema: plain(p, NON_BODY, 'path parameter') } } };
    default:
      throw new Error(`parameter in ${String(p['in'])}: not emitted`);
  }
}

const parameters = (v: unknown): [string, unknown] => ['parameters', (v as unknown[]).map(parameter)];

function operation(op: unknown): Json {
  return plain(op as Json, ['tags', 'summary', 'description', 'operationId', 'produces', 'consumes', 'schemes', 'deprecated'], 'operation', {
    parameters,
    responses: (v) => [
      'responses',
      {
        responseCode: Object.entries(v as Json).map(([name, r]) => ({
          name,
          value: { response: plain(r as Json, ['description'], 'response', { schema: (sv) => ['schema', { schema: schema(sv) }] }) },
        })),
      },
    ],
  });
}

function pathItem(item: unknown): Json {
  const ops = Object.fromEntries(['get', 'put', 'post', 'delete', 'patch'].map((m) => [m, (v: unknown): [string, unknown] => [m, operation(v)]]));
  return plain(item as Json, [], 'path item', { ...ops, parameters });
}

/** The plain object of a `openapi.v2.Document` message for a Swagger 2.0 JSON document. */
export function swaggerMessage(doc: Json): Json {
  return plain(doc, ['swagger'], 'document', {
    info: (v) => ['info', plain(v as Json, ['title', 'version', 'description'], 'info')],
    paths: (v) => ['paths', { path: Object.entries(v as Json).map(([name, item]) => ({ name, value: pathItem(item) })) }],
    definitions: (v) => ['definitions', { additionalProperties: Object.entries(v as Json).map(([name, s]) => ({ name, value: schema(s) })) }],
    securityDefinitions: (v) => [
      'securityDefinitions',
      {
        additionalProperties: Object.entries(v as Json).map(([name, d]) => {
          if ((d as Json)['type'] !== 'apiKey') throw new Error(`security definition ${name}: only apiKey is emitted`);
          return { name, value: { apiKeySecurity: plain(d as Json, ['type', 'name', 'in', 'description'], 'security definition') } };
        }),
      },
    ],
    security: (v) => [
      'security',
      (v as Json[]).map((req) => ({ additionalProperties: Object.entries(req).map(([name, scopes]) => ({ name, value: { value: scopes } })) })),
    ],
  });
}

/** The Swagger 2.0 document as gnostic protobuf bytes. */
export function encodeSwagger(doc: Json): Uint8Array {
  const message = swaggerMessage(doc);
  const err = swaggerDocument().verify(message);
  if (err) throw new Error(`openapi v2 protobuf: ${err}`);
  return swaggerDocument().encode(message).finish();
}
