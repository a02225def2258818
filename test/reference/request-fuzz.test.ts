// Property-based fuzz of the reference API server's request handling (issue 14 §1): random and
// malformed requests (every kind, path shape, verb and odd method; content types, Accept headers,
// query parameters with valid, boundary and garbage values; valid, mutated and garbage bodies),
// alone or a few at once, against one in-process reference. For every request: no 5xx (but
// upstream's 504 for a resourceVersion from the future), a whole answer within a bound, a watch
// that stays open until the client hangs up (or says why not), and every error a Status (in the
// negotiated format; the health checks' and zpages' plain-text answers are upstream's). After the
// run, the objects stored before it (seeds, in a namespace and under names no generated URL
// addresses) read back byte-identical: bodies may still name them, and the server must refuse those.
import t from 'tap';
import fc from 'fast-check';
import { request, type IncomingHttpHeaders } from 'node:http';
import { startReference } from '../../reference/server.js';
import { REFERENCE_RESOURCES } from '../../reference/resources/index.js';
import type { ResourceStrategy } from '../../reference/apiserver/strategy.js';
import { yaml } from '../../reference/packages.js';
import { decodeObject, decodeWatchFrames, encodeObject } from '../../reference/apiserver/protobuf/codec.js';
import { propertyRuns } from '../helpers/property.js';
import { ALL_GATES_ON, fakeContext, sampleOf } from './samples.js';

/** Bound on one request, headers and body (a watch: until its headers). */
const REQUEST_TIMEOUT_MS = 5000;
/** How long a watch stream that answered 200 is read before the client hangs up. */
const WATCH_READ_MS = 50;

/** Where the seeds live; no generated URL names it (bodies may). */
const SEED_NS = 'fuzz-seed';
/**
 * Label of what collection DELETEs spare (see `render`): the cluster-scoped seeds, the namespaces,
 * and the objects made to work on (which item DELETEs may still remove).
 */
const PROTECTED = 'fuzz.orch.io/protected';
/** Namespaces the fuzz works in. */
const WORK_NS = ['fuzz-a', 'fuzz-b'];
/** Name of each kind's object made in the work namespaces before the run, so that item verbs find something. */
const EXISTING = 'fz-1';

const seedName = (s: ResourceStrategy): string => (s.resource === 'namespaces' ? SEED_NS : `fuzz-seed-${s.resource}`);
const prefixOf = (s: ResourceStrategy): string => (s.group ? `/apis/${s.group}/${s.version}` : `/api/${s.version}`);
const apiVersionOf = (s: Pick<ResourceStrategy, 'group' | 'version'>): string => (s.group ? `${s.group}/${s.version}` : s.version);

const KINDS = REFERENCE_RESOURCES.map((s) => ({ s, sample: sampleOf(s), prefix: prefixOf(s) }));

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

// ------------------------------------------------------------------------------ request plans

type Verb =
  | 'get' | 'list' | 'watch' | 'watchPath' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection'
  | 'status' | 'statusPatch' | 'finalize' | 'binding' | 'eviction' | 'subresource' | 'odd' | 'nonResource';

/**
 * A value placed in a body. Besides JSON: `$raw` is JSON text put in verbatim (numbers JSON.stringify
 * cannot write), `$deep` that many nested lists or objects, `$long` a string of that many characters
 * (the last two written out only when sent, so that a counterexample stays readable).
 */
type Value = unknown | { readonly $raw: string } | { readonly $deep: number; readonly $object: boolean } | { readonly $long: number };

interface Mutation {
  /** Index (modulo their count) of the node the mutation hits: any node for delete and set, an object for add. */
  readonly at: number;
  /** `meta`: sets metadata[key]. */
  readonly op: 'delete' | 'set' | 'add' | 'meta';
  readonly key: string;
  readonly value: Value;
}

interface PatchOp {
  readonly op: string;
  /** A node of the sample (its index), or a pointer as is. */
  readonly path: number | string;
  readonly from: number | string;
  readonly value: Value;
}

type Body =
  | { readonly t: 'none' }
  /**
   * A body that fits the request: the verb's sample (the kind, a subresource's body kind or
   * DeleteOptions), mutated; for a JSON patch, `ops` over the sample's fields. `name` null: the
   * URL's; `as` auto: YAML when the content type says so.
   */
  | {
    readonly t: 'sample'; readonly name: string | null; readonly namespace: string | null; readonly mutations: readonly Mutation[]; readonly ops: readonly PatchOp[];
    readonly as: 'auto' | 'json' | 'yaml' | 'truncated'; readonly cut: number;
  }
  | { readonly t: 'json'; readonly value: unknown }
  | { readonly t: 'bytes'; readonly bytes: Uint8Array }
  | { readonly t: 'text'; readonly text: string };

interface Plan {
  /** Index into KINDS; ignored for `nonResource`. */
  readonly kind: number;
  readonly verb: Verb;
  /** URL segments as sent (already escaped); namespace '' is all namespaces. */
  readonly namespace: string;
  readonly name: string;
  /** The wrong scope: a cluster-scoped kind under a namespace, a namespaced item without one. */
  readonly swapScope: boolean;
  /** The method of `odd` and `nonResource`. */
  readonly method: string;
  /** The subresource segment of `subresource`. */
  readonly segment: string;
  /** The path of `nonResource`. */
  readonly nonResourcePath: string;
  readonly patchType: string;
  readonly query: ReadonlyArray<readonly [string, string]>;
  readonly contentType: string | null;
  readonly accept: string | null;
  readonly userAgent: string | null;
  readonly body: Body;
}

/** Percent-encodes everything but unreserved characters (a string fit for a URL path, whatever it holds). */
const escape = (s: string): string => [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');

/** URL names: existing and missing ones, and garbage; never a seed's (`fz` prefixes the random ones). */
const urlName = fc.oneof(
  { weight: 8, arbitrary: fc.constant(EXISTING) },
  { weight: 2, arbitrary: fc.constantFrom('fz-2', 'fz-new') },
  { weight: 1, arbitrary: fc.constantFrom('', 'FZ', 'fz.a', '..', '.', '%2e%2e', 'fz%2Fx', '%zz', '%', '%00', 'fz%C3%A9', 'fz%20', ':', '-fz', `fz${'x'.repeat(300)}`, 'fz@1', '%E2%80%8B') },
  { weight: 1, arbitrary: fc.string({ maxLength: 12, unit: 'binary' }).map((s) => `fz${escape(s)}`) },
);
/** URL namespaces: the work ones, a missing one, all ('') and garbage; never the seeds'. */
const urlNamespace = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...WORK_NS, WORK_NS[0]!) },
  { weight: 1, arbitrary: fc.constantFrom('', 'fuzz-missing', 'default', 'FUZZ-A', '%zz', `fz${'n'.repeat(70)}`, 'fz%2Fa') },
);

/** Body names: the URL's, others, and the seeds' (which the server must not let a request reach). */
const bodyName = fc.oneof(
  { weight: 6, arbitrary: fc.constant(null) },
  { weight: 3, arbitrary: fc.constantFrom(EXISTING, 'fz-2', 'fz-new', '', 'UPPER', 'a/b', 'x'.repeat(300), '\u00e9', SEED_NS, ...REFERENCE_RESOURCES.map(seedName)) },
);
const bodyNamespace = fc.option(fc.constantFrom(...WORK_NS, SEED_NS, 'fuzz-missing', '', 'UPPER'), { freq: 3 });

/** Body values: wrong types, nulls, huge and odd numbers, unicode, long strings, deep nesting, random JSON. */
const value: fc.Arbitrary<Value> = fc.oneof(
  fc.constantFrom<Value>(null, '', 0, -1, 1.5, true, false, [], {}, [null], { '': null }, 'x', '0', 'null', '\u00e9\u2603\ud834\udd1e', '\u0000', '\ud800', '\u202e', 'a\nb', '$patch', 'delete', 'replace'),
  fc.constantFrom('1e400', '-1e400', '123456789012345678901234567890', '9007199254740993', '-0', '1E2', '0.0000001', '-9223372036854775809', '2147483648').map(($raw) => ({ $raw })),
  fc.record({ $deep: fc.integer({ min: 100, max: 600 }), $object: fc.boolean() }),
  fc.constantFrom(70_000, 300_000).map(($long) => ({ $long })),
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ maxLength: 20, unit: 'binary' }),
);

/** metadata fields the server owns or checks, with values that make it work (finalizers pending, owners, managedFields). */
const META: Readonly<Record<string, readonly unknown[]>> = {
  finalizers: [['fuzz.orch.io/hold'], ['orphan'], ['foregroundDeletion'], ['fuzz.orch.io/a', 'fuzz.orch.io/a'], ['BAD KEY']],
  ownerReferences: [
    [{ apiVersion: 'v1', kind: 'Namespace', name: 'fuzz-a', uid: '00000000-0000-0000-0000-000000000001', controller: true, blockOwnerDeletion: true }],
    [{}],
    [{ apiVersion: 'v1', kind: 'Pod', name: 'x', uid: 'u', controller: true }, { apiVersion: 'v1', kind: 'Pod', name: 'y', uid: 'v', controller: true }],
  ],
  managedFields: [
    [{ manager: 'm', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:a': {} } } } }],
    [{ manager: 'm', operation: 'Bogus', fieldsType: 'FieldsV2' }],
    [{}],
  ],
  resourceVersion: ['1', 'abc', '', '99999999'],
  generateName: ['fz-', 'FZ-', ''],
  deletionTimestamp: ['2025-01-01T00:00:00Z', 'yesterday'],
  deletionGracePeriodSeconds: [0, -1, 30],
  uid: ['x', ''],
  generation: [5, -1],
  creationTimestamp: ['2025-01-01T00:00:00Z', 'x'],
  labels: [{ a: 'b' }, { [PROTECTED]: 'true' }, { '': '' }, { 'a/b/c': 'd' }, { a: 'x'.repeat(64) }],
  annotations: [{ a: 'b' }, { 'kubectl.kubernetes.io/last-applied-configuration': '{}' }, { a: 'x'.repeat(300_000) }],
};

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      at: fc.nat(),
      op: fc.constantFrom('delete', 'set', 'set', 'add'),
      // Unknown fields, and the strategic merge patch directives.
      key: fc.constantFrom('unknownField', '', 'status', 'metadata', '$patch', '$retainKeys', '$setElementOrder/containers', '$deleteFromPrimitiveList/finalizers', 'apiVersion', 'kind', 'spec'),
      value,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...Object.keys(META)).chain((key) => fc.record({ at: fc.constant(0), op: fc.constant('meta' as const), key: fc.constant(key), value: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...META[key]!) }, { weight: 1, arbitrary: value }) })),
  },
);

const patchOp: fc.Arbitrary<PatchOp> = fc.record({
  op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus', ''),
  path: fc.oneof(fc.nat(), fc.constantFrom('', '/', '/-', '/metadata/labels/a~1b', '/metadata/labels/x', '/spec/containers/-', '/metadata/finalizers/0', '/a/b/c', '/metadata/resourceVersion', '/metadata/name', '~2', 'metadata')),
  from: fc.oneof(fc.nat(), fc.constantFrom('', '/metadata', '/nope')),
  value,
});

// The fitting body first: fc.oneof favours its first choice in nested structures.
const body: fc.Arbitrary<Body> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      t: fc.constant('sample' as const),
      name: bodyName,
      namespace: bodyNamespace,
      mutations: fc.oneof(fc.constant([]), fc.array(mutation, { minLength: 1, maxLength: 3 })),
      ops: fc.array(patchOp, { minLength: 1, maxLength: 3 }),
      as: fc.constantFrom('auto', 'auto', 'auto', 'auto', 'auto', 'json', 'yaml', 'truncated'),
      cut: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ t: 'none' as const }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('json' as const), value: fc.jsonValue({ maxDepth: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('bytes' as const), bytes: fc.uint8Array({ maxLength: 64 }) }) },
  // Past protobuf's magic: the envelope and what it holds.
  { weight: 1, arbitrary: fc.record({ t: fc.constant('bytes' as const), bytes: fc.uint8Array({ maxLength: 64 }).map((b) => Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...b])) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('text' as const),
      text: fc.oneof(
        fc.constantFrom('', ' ', 'null', '{', '}', '[]', '"x"', '{"a":1,"a":2}', '\ufeff{}', '---\n---\n', 'a: &a [*a]', 'a: !!binary AAAA', '? [a]\n: b', 'kind: [', '{"kind":"Status"}', 'apiVersion: v1\nkind: Pod\nmetadata: {name: fz-1}', '- a\n- b', '%YAML 1.1\n---\na: b'),
        fc.string({ maxLength: 40, unit: 'binary' }),
      ),
    }),
  },
);

/**
 * Query parameters by name: valid, boundary and garbage values. `$rv` (a recent resourceVersion),
 * `$future` (one beyond it) and `$continue` (a recent continue token) are filled in when sent.
 */
const QUERY_VALUES: Readonly<Record<string, readonly string[]>> = {
  resourceVersion: ['', '0', '1', '$rv', '$rv', '$future', '18446744073709551615', '18446744073709551616', '-1', 'abc', ' 1'],
  resourceVersionMatch: ['Exact', 'NotOlderThan', '', 'exact', 'bogus'],
  limit: ['0', '1', '2', '-1', '500', '9007199254740993', '1e3', 'x'],
  continue: ['$continue', 'garbage', Buffer.from('{"v":"meta.k8s.io/v1","rv":1,"start":"x"}').toString('base64'), ''],
  labelSelector: ['a=b', 'a in (b,c)', '!a', 'a!=b', 'a', '=', 'a==b', '(', 'a in ()', `${'x'.repeat(70)}=b`, `a=${'b'.repeat(70)}`, PROTECTED, 'a notin (b),c'],
  fieldSelector: [`metadata.name=${EXISTING}`, 'metadata.namespace!=x', 'spec.nodeName=', 'status.phase=Running', 'bogus=1', '=', 'metadata.name', 'metadata.name=a,metadata.name=b', 'metadata.name==a'],
  watch: ['true', '1', 'false', 'yes', ''],
  allowWatchBookmarks: ['true', 'false', 'x'],
  sendInitialEvents: ['true', 'false', 'x'],
  timeoutSeconds: ['1', '0', '-1', '2147483648', '9007199254740993', 'x'],
  dryRun: ['All', '', 'all', 'Some'],
  fieldManager: ['fuzz', '', 'x'.repeat(128), '\u0000', '\u00e9', '\t'],
  fieldValidation: ['Strict', 'Warn', 'Ignore', '', 'strict', 'bogus'],
  force: ['true', 'false', 'x'],
  gracePeriodSeconds: ['0', '1', '-1', '30', 'x', '9223372036854775808'],
  propagationPolicy: ['Foreground', 'Background', 'Orphan', '', 'bogus'],
  orphanDependents: ['true', 'false', 'x'],
  pretty: ['true', '1', 'x'],
  unknown: ['1'],
  '': [''],
};
const queryParam: fc.Arbitrary<readonly [string, string]> = fc
  .constantFrom(...Object.keys(QUERY_VALUES))
  .chain((name) => fc.tuple(fc.constant(name), fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...QUERY_VALUES[name]!) }, { weight: 1, arbitrary: fc.string({ maxLength: 12, unit: 'binary' }) })));

const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];
/** Header values: mostly none or acceptable ones, some not. */
const header = (good: readonly string[], bad: readonly string[]): fc.Arbitrary<string | null> =>
  fc.oneof({ weight: 5, arbitrary: fc.constant(null) }, { weight: 4, arbitrary: fc.constantFrom(...good) }, { weight: 1, arbitrary: fc.constantFrom(...bad) });
const contentType = header(
  ['application/json', 'application/yaml', 'application/json; charset=utf-8', 'application/yaml;charset=utf-8', PROTOBUF],
  ['text/plain', '', 'application/json;;', 'garbage', 'application/', ...PATCH_TYPES],
);
const accept = header(
  ['application/json', 'application/yaml', '*/*', '', 'application/json;as=Table;v=v1;g=meta.k8s.io, application/json', 'application/vnd.kubernetes.protobuf, application/json', 'application/json;pretty=1', 'application/yaml;q=0.5, application/json;q=0.4', 'application/*'],
  ['application/json;as=Table;v=v1;g=meta.k8s.io', 'application/vnd.kubernetes.protobuf', 'text/html', 'application/json;stream=watch', 'application/*;q=0', 'application/json;q=abc', ';;;', 'garbage', 'application/json;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io'],
);
/**
 * Methods outside the REST verbs: some Node's parser takes, some it refuses (FOO). (CONNECT, which
 * Node's client cannot send as a plain request, is handler.test.ts's.)
 */
const ODD_METHODS = ['OPTIONS', 'TRACE', 'HEAD', 'PROPFIND', 'PURGE', 'LINK', 'M-SEARCH', 'FOO'];
/** Paths outside the resources: discovery, OpenAPI, health and debug endpoints, near misses. */
const NON_RESOURCE = ['/', '/api', '/apis', '/api/v1', '/apis/storage.orch.io', '/apis/storage.orch.io/v1', '/version', '/healthz', '/livez', '/readyz', '/readyz/ping', '/healthz/bogus', '/metrics', '/openapi/v2', '/openapi/v3', '/openapi/v3/api/v1', '/openapi/v3/apis/nope/v1', '/statusz', '/flagz', '/apis/nope/v1', '/api/v2', '/%zz', '/api/v1/watch', '/apis/storage.orch.io/v1/watch', '//', '/api/v1/namespaces/fuzz-a/pods/fz-1/log', '/api/v1/namespaces/fuzz-a/pods/fz-1/exec'];

const VERBS: readonly Verb[] = ['get', 'list', 'watch', 'watchPath', 'create', 'create', 'update', 'patch', 'patch', 'patch', 'delete', 'deletecollection', 'status', 'statusPatch', 'finalize', 'binding', 'eviction', 'subresource', 'odd', 'nonResource'];

const plan: fc.Arbitrary<Plan> = fc.record({
  kind: fc.nat({ max: KINDS.length - 1 }),
  verb: fc.constantFrom(...VERBS),
  namespace: urlNamespace,
  name: urlName,
  swapScope: fc.nat({ max: 19 }).map((n) => n === 0),
  method: fc.constantFrom(...ODD_METHODS, 'GET', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
  segment: fc.constantFrom('bogus', 'status', 'scale', 'log', '', '%zz'),
  nonResourcePath: fc.constantFrom(...NON_RESOURCE),
  patchType: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...PATCH_TYPES) }, { weight: 1, arbitrary: fc.constantFrom('application/json', 'application/json-patch+json; charset=utf-8', '', 'text/plain') }),
  query: fc.oneof(fc.constant([]), fc.array(queryParam, { minLength: 1, maxLength: 3 })),
  contentType,
  accept,
  userAgent: fc.option(fc.constantFrom('curl/8.5.0', 'kubectl/v1.37.0', ''), { freq: 3 }),
  body,
});

/** Mostly one request; some batches of a few sent at once. */
const batch: fc.Arbitrary<Plan[]> = fc.oneof({ weight: 3, arbitrary: plan.map((p) => [p]) }, { weight: 1, arbitrary: fc.array(plan, { minLength: 2, maxLength: 4 }) });

// ------------------------------------------------------------------------------ rendering

type Step = string | number;

/** Every node of a JSON value below the root, by path (special values are leaves). */
function nodes(v: unknown, at: Step[] = []): Step[][] {
  if (special(v) !== undefined) return [];
  if (Array.isArray(v)) return v.flatMap((x, i) => [[...at, i], ...nodes(x, [...at, i])]);
  if (v !== null && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => [[...at, k], ...nodes(x, [...at, k])]);
  return [];
}

function parentOf(root: any, path: Step[]): any {
  return path.slice(0, -1).reduce((o, k) => o[k], root);
}

function mutate(obj: Record<string, unknown>, m: Mutation): void {
  // Copies of values: generated ones are shared between runs (constantFrom), and later mutations may reach into them.
  if (m.op === 'meta') {
    const meta = obj['metadata'] !== null && typeof obj['metadata'] === 'object' && !Array.isArray(obj['metadata']) ? obj['metadata'] : (obj['metadata'] = {});
    (meta as Record<string, unknown>)[m.key] = structuredClone(m.value);
    return;
  }
  if (m.op === 'add') {
    const objects = [[], ...nodes(obj)].filter((p) => {
      const v = p.reduce((o: any, k) => o[k], obj);
      return v !== null && typeof v === 'object' && !Array.isArray(v);
    });
    const target = objects[m.at % objects.length]!.reduce((o: any, k) => o[k], obj);
    target[m.key] = structuredClone(m.value);
    return;
  }
  const all = nodes(obj);
  if (!all.length) return;
  const path = all[m.at % all.length]!;
  const parent = parentOf(obj, path);
  const key = path.at(-1)!;
  if (m.op === 'set') parent[key] = structuredClone(m.value);
  else if (Array.isArray(parent)) parent.splice(key as number, 1);
  else delete parent[key];
}

/** The JSON text of a special value (see Value), or undefined for plain JSON. */
function special(v: unknown): string | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const keys = Object.keys(v).sort().join();
  const x = v as { $raw?: unknown; $deep?: unknown; $object?: unknown; $long?: unknown };
  if (keys === '$raw' && typeof x.$raw === 'string') return x.$raw;
  if (keys === '$deep,$object' && typeof x.$deep === 'number') return x.$object ? `${'{"a":'.repeat(x.$deep)}1${'}'.repeat(x.$deep)}` : `${'['.repeat(x.$deep)}${']'.repeat(x.$deep)}`;
  if (keys === '$long' && typeof x.$long === 'number') return JSON.stringify('x'.repeat(x.$long));
  return undefined;
}

/** JSON text with special values written out. */
function toJson(v: unknown): string {
  const texts: string[] = [];
  const text = JSON.stringify(v, (_k, x) => {
    const t = special(x);
    return t === undefined ? x : `\u0001SPECIAL${texts.push(t) - 1}`;
  }) ?? 'null';
  return text.replace(/"\\u0001SPECIAL(\d+)"/g, (_m, i: string) => texts[Number(i)]!);
}

/** YAML text, special values read as JSON (JSON.parse: 1e400 is Infinity, YAML's .inf). */
function toYaml(v: unknown): string {
  return yaml().stringify(JSON.parse(toJson(v)));
}

const pointer = (path: Step[]): string => path.map((k) => `/${String(k).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

interface Sent {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: Buffer;
  /** The request may open a watch stream. */
  readonly watch: boolean;
}

/** Values learnt from earlier answers, for the `$rv` and `$continue` placeholders. */
const learnt = { rv: '1', continue: 'none' };

/**
 * The kinds serving a verb, where not all do: its plans go to one of them (`odd` and `subresource`
 * send any method and subresource to any kind).
 */
const STORED = KINDS.filter((k) => !k.s.notStored);
const SERVING: Partial<Record<Verb, ReadonlyArray<(typeof KINDS)[number]>>> = {
  get: STORED, list: STORED, watch: STORED, watchPath: STORED, update: STORED, patch: STORED, delete: STORED, deletecollection: STORED,
  status: KINDS.filter((k) => k.s.hasStatus),
  statusPatch: KINDS.filter((k) => k.s.hasStatus),
  finalize: KINDS.filter((k) => k.s.finalizeSubresource),
  binding: KINDS.filter((k) => k.s.subresources?.['binding']),
  eviction: KINDS.filter((k) => k.s.subresources?.['eviction']),
};

function render(p: Plan): Sent {
  const serving = SERVING[p.verb];
  const { s, prefix } = serving ? serving[p.kind % serving.length]! : KINDS[p.kind]!;
  const namespaced = s.namespaced !== p.swapScope;
  const ns = namespaced && p.namespace !== '' ? `/namespaces/${p.namespace}` : '';
  const collection = `${prefix}${ns}/${s.resource}`;
  const item = `${collection}/${p.name}`;
  let method: string;
  let path: string;
  let sampleKind = s as Pick<ResourceStrategy, 'group' | 'version' | 'kind'>;
  let contentType = p.contentType;
  const learntValues: Record<string, string> = { $rv: learnt.rv, $future: String(Number(learnt.rv) + 1000), $continue: learnt.continue };
  const query = p.query.map(([k, v]) => [k, learntValues[v] ?? v] as [string, string]);
  switch (p.verb) {
    case 'get': [method, path] = ['GET', item]; break;
    case 'list': [method, path] = ['GET', collection]; break;
    case 'watch': [method, path] = ['GET', collection]; query.unshift(['watch', 'true'], ['timeoutSeconds', '1']); break;
    case 'watchPath': [method, path] = ['GET', `${prefix}/watch${ns}/${s.resource}${p.name ? `/${p.name}` : ''}`]; break;
    case 'create': [method, path] = ['POST', collection]; break;
    case 'update': [method, path] = ['PUT', item]; break;
    case 'status': [method, path] = ['PUT', `${item}/status`]; break;
    case 'finalize': [method, path] = ['PUT', `${item}/finalize`]; break;
    case 'patch': case 'statusPatch':
      [method, path] = ['PATCH', p.verb === 'patch' ? item : `${item}/status`];
      contentType = p.patchType;
      // Apply needs a field manager: one after the generated parameters (the first of a name counts).
      query.push(['fieldManager', 'fuzz']);
      break;
    case 'delete': [method, path] = ['DELETE', item]; break;
    case 'deletecollection': [method, path] = ['DELETE', collection]; break;
    case 'binding': case 'eviction': {
      [method, path] = ['POST', `${item}/${p.verb}`];
      const sub = s.subresources?.[p.verb];
      if (sub) sampleKind = sub.body;
      break;
    }
    case 'subresource': [method, path] = ['POST', `${item}/${p.segment}`]; break;
    case 'odd': [method, path] = [p.method, item]; break;
    case 'nonResource': [method, path] = [p.method, p.nonResourcePath]; break;
  }
  // A collection DELETE (an item DELETE with an empty name is one too, as upstream trims the
  // path's slashes) spares the protected objects, whatever else the request selects: of a
  // cluster-scoped kind, namespaces included, it would reach the seeds, and in the work namespaces
  // it would leave nothing to work on.
  if (method === 'DELETE' && (path === collection || path === `${collection}/`)) {
    const selectors = query.filter(([k]) => k === 'labelSelector').map(([, v]) => v);
    query.splice(0, query.length, ...query.filter(([k]) => k !== 'labelSelector'), ['labelSelector', [`!${PROTECTED}`, ...selectors.filter((x) => x)].join(',')]);
  }
  const headers: Record<string, string> = {};
  if (contentType !== null) headers['content-type'] = contentType;
  if (p.accept !== null) headers['accept'] = p.accept;
  if (p.userAgent !== null) headers['user-agent'] = p.userAgent;
  const qs = new URLSearchParams(query).toString();
  const watch = p.verb === 'watch' || p.verb === 'watchPath' || query.some(([k]) => k === 'watch');
  const text = renderBody(p, method, sampleKind, contentType);
  return { method, path: qs ? `${path}?${qs}` : path, headers, body: text === undefined ? undefined : Buffer.isBuffer(text) ? text : Buffer.from(text), watch };
}

function renderBody(p: Plan, method: string, kind: Pick<ResourceStrategy, 'group' | 'version' | 'kind'>, contentType: string | null): string | Buffer | undefined {
  const b = p.body;
  switch (b.t) {
    case 'none': return undefined;
    case 'json': return JSON.stringify(b.value);
    case 'bytes': return Buffer.from(b.bytes);
    case 'text': return b.text;
    case 'sample': {
      let value: unknown;
      if (method === 'PATCH' && contentType === PATCH_TYPES[0]) {
        const all = nodes(sampleObject(p, kind, null));
        const at = (x: number | string): string => (typeof x === 'string' ? x : all.length ? pointer(all[x % all.length]!) : '');
        value = b.ops.map((o) => ({ op: o.op, path: at(o.path), from: at(o.from), value: o.value }));
      } else {
        const obj = method === 'DELETE' ? { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, propagationPolicy: 'Background' } : sampleObject(p, kind, b.name, b.namespace);
        for (const m of b.mutations) mutate(obj, m);
        value = obj;
      }
      const format = b.as === 'auto' ? (contentType?.includes('yaml') ? 'yaml' : 'json') : b.as;
      // In protobuf where the body's kind has a message (the sample's own markers are left to the encoder).
      const pb = contentType === PROTOBUF && format !== 'yaml' ? encodeObject(value) : undefined;
      if (pb) return format === 'truncated' ? pb.subarray(0, Math.floor(pb.length * b.cut)) : pb;
      if (format === 'yaml') return toYaml(value);
      const json = toJson(value);
      return format === 'truncated' ? json.slice(0, Math.floor(json.length * b.cut)) : json;
    }
  }
}

function sampleObject(p: Plan, kind: Pick<ResourceStrategy, 'group' | 'version' | 'kind'>, name: string | null, namespace: string | null = null): Record<string, unknown> {
  const k = sampleOf(kind);
  let urlName: string;
  try {
    urlName = decodeURIComponent(p.name);
  } catch {
    urlName = p.name;
  }
  const metadata: Record<string, unknown> = { name: name ?? urlName, labels: { fuzz: 'yes' } };
  if (namespace !== null) metadata['namespace'] = namespace;
  const status = p.verb === 'status' || p.verb === 'statusPatch' ? k?.status?.(fakeContext(WORK_NS[0]!)) : undefined;
  // A copy: samples may share constants (the suites' HOLD_TAINT), which mutations must not reach.
  return structuredClone({ apiVersion: apiVersionOf(kind), kind: kind.kind, metadata, ...k?.valid(fakeContext(WORK_NS[0]!)), ...(status ? { status } : {}) });
}

// ------------------------------------------------------------------------------ sending and checking

interface Reply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** The server ended the answer (a stream: before the client hung up). */
  readonly ended: boolean;
}

/** A watch stream: a request that may watch, answered 200 without a length. */
const isStream = (r: Sent, status: number, headers: IncomingHttpHeaders): boolean => r.watch && status === 200 && headers['content-length'] === undefined;

/** Sends one request over a connection of its own; rejects when no answer comes within the bound. */
function send(base: URL, r: Sent): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: base.hostname, port: base.port, method: r.method, path: r.path, headers: { ...r.headers, ...(r.body ? { 'content-length': String(r.body.length) } : {}) }, agent: false });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no complete answer within ${REQUEST_TIMEOUT_MS} ms`));
    }, REQUEST_TIMEOUT_MS);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      const done = (ended: boolean) => {
        clearTimeout(timer);
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks), ended });
      };
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(true));
      // (After a stream's hang-up this comes too late to count.)
      res.on('error', (err) => {
        clearTimeout(timer);
        reject(new Error(`the answer was cut off after ${chunks.reduce((n, c) => n + c.length, 0)} bytes: ${err.message}`));
      });
      if (isStream(r, res.statusCode!, res.headers)) {
        // Read briefly, then hang up (as a client that lost interest).
        clearTimeout(timer);
        setTimeout(() => {
          req.destroy();
          done(false);
        }, WATCH_READ_MS);
      }
    });
    req.end(r.body);
  });
}

/**
 * The plain-text error answers that are upstream's too: a failing health check, and /statusz or
 * /flagz refusing an Accept (component-base zpages answer with http.Error; statusz-flagz.test.ts).
 */
const plainTextError = (path: string, status: number): boolean => /^\/(healthz|livez|readyz)([/?]|$)/.test(path) || (status === 406 && /^\/(statusz|flagz)([/?]|$)/.test(path));

/** The body of a non-streamed answer, in its format (errors are written in the negotiated one, as upstream's); undefined if unreadable. */
function parsed(reply: Reply): any {
  if (String(reply.headers['content-type'] ?? '').startsWith(PROTOBUF)) {
    try {
      return decodeObject(reply.body, { apiVersion: 'v1', kind: 'Status' });
    } catch {
      return undefined;
    }
  }
  const text = reply.body.toString('utf8');
  try {
    return String(reply.headers['content-type'] ?? '').startsWith('application/yaml') ? yaml().parse(text) : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The whole frames at the start of a protobuf watch stream (4-byte big-endian length, then the message). */
function wholeFrames(body: Buffer): Buffer {
  let pos = 0;
  while (pos + 4 <= body.length && pos + 4 + body.readUInt32BE(pos) <= body.length) pos += 4 + body.readUInt32BE(pos);
  return body.subarray(0, pos);
}

/**
 * Upstream's one deliberate 5xx: a list or watch from a resourceVersion newer than the store's is a
 * 504 Timeout "Too large resource version" (ResourceVersionTooLarge), which clients retry.
 */
function tooLargeResourceVersion(reply: Reply): boolean {
  const status = parsed(reply);
  const m = /^Timeout: Too large resource version: (\d+), current: (\d+)$/.exec(String(status?.message));
  return reply.status === 504 && status?.reason === 'Timeout' && status.details?.causes?.[0]?.reason === 'ResourceVersionTooLarge' && m !== null && Number(m[1]) > Number(m[2]);
}

/** What is wrong with an answer, if anything. */
function problem(r: Sent, reply: Reply): string | undefined {
  if (reply.status >= 500 && !tooLargeResourceVersion(reply)) return `HTTP ${reply.status}`;
  if (isStream(r, reply.status, reply.headers)) {
    // Complete lines (or protobuf frames) only: the client hung up mid-stream.
    const events: any[] = String(reply.headers['content-type'] ?? '').startsWith(PROTOBUF)
      ? decodeWatchFrames(wholeFrames(reply.body), { apiVersion: 'v1', kind: 'Status' })
      : reply.body.toString('utf8').split('\n').slice(0, -1).map((line) => JSON.parse(line));
    const error = events.find((ev) => ev.type === 'ERROR');
    if (error && !(error.object?.code < 500)) return `watch ERROR event ${JSON.stringify(error).slice(0, 300)}`;
    // Every watch here lasts a second at least (timeoutSeconds 1, or more, or the default); only
    // an ERROR event ends it sooner.
    if (reply.ended && !error) return `the watch ended within ${WATCH_READ_MS} ms, without an ERROR event`;
    return undefined;
  }
  if (reply.status < 400 || r.method === 'HEAD') return undefined;
  const type = String(reply.headers['content-type'] ?? '');
  if (plainTextError(r.path, reply.status) && type.startsWith('text/plain')) return undefined;
  const status = parsed(reply);
  if (status?.kind !== 'Status' || status.apiVersion !== 'v1' || status.status !== 'Failure' || status.code !== reply.status) {
    return `HTTP ${reply.status} without a Failure Status of that code (${type}): ${JSON.stringify(status ?? reply.body.toString('utf8')).slice(0, 300)}`;
  }
  return undefined;
}

/** Keeps `$rv` and `$continue` current from what the server answers. */
function learn(reply: Reply): void {
  if (reply.status !== 200 || !String(reply.headers['content-type'] ?? '').startsWith('application/json')) return;
  try {
    const meta = JSON.parse(reply.body.toString('utf8'))?.metadata;
    if (typeof meta?.resourceVersion === 'string' && meta.resourceVersion) learnt.rv = meta.resourceVersion;
    if (typeof meta?.continue === 'string' && meta.continue) learnt.continue = meta.continue;
  } catch {
    // A stream or not JSON: nothing to learn.
  }
}

// ------------------------------------------------------------------------------ the test

t.test('random and malformed requests: never a 5xx, a hang or a non-Status error, and the seeds stay', async (t) => {
  t.same(KINDS.filter((k) => !k.sample).map((k) => k.s.kind), [], 'every served kind has a sample (test/reference/samples.ts)');
  const ref = await startReference({ featureGates: ALL_GATES_ON, controllerManager: false, scheduler: false });
  t.teardown(() => ref.close());
  const base = new URL(ref.url);
  const json = async (method: string, path: string, bodyValue?: unknown): Promise<{ status: number; text: string }> => {
    const res = await fetch(`${ref.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: bodyValue === undefined ? undefined : JSON.stringify(bodyValue) });
    return { status: res.status, text: await res.text() };
  };

  // The namespaces: the seeds' and the work ones, protected from collection DELETEs.
  for (const ns of [SEED_NS, ...WORK_NS]) t.equal((await json('POST', '/api/v1/namespaces', { metadata: { name: ns, labels: { [PROTECTED]: 'true' } } })).status, 201, `namespace ${ns}`);
  // A seed of every stored kind, and an object of each to work on in the work namespaces.
  const seeds: string[] = [`/api/v1/namespaces/${SEED_NS}`];
  for (const { s, sample, prefix } of KINDS) {
    // A view stored as another resource (core v1 Events are events.orch.io's) shares that one's
    // objects: its seeds and work objects are already there, under the same names.
    if (s.notStored || s.storedAs || !sample) continue;
    const collection = (ns: string) => `${prefix}${s.namespaced ? `/namespaces/${ns}` : ''}/${s.resource}`;
    const make = async (ns: string, name: string, labels: Record<string, string>) => {
      const r = await json('POST', collection(ns), { apiVersion: apiVersionOf(s), kind: s.kind, metadata: { name, labels }, ...sample.valid(fakeContext(ns)) });
      t.equal(r.status, 201, `${s.kind} ${ns}/${name}`, { body: r.text.slice(0, 300) });
    };
    if (s.resource !== 'namespaces') {
      await make(SEED_NS, seedName(s), { [PROTECTED]: 'true' });
      seeds.push(`${collection(SEED_NS)}/${seedName(s)}`);
      if (s.namespaced) seeds.push(collection(SEED_NS));
    }
    for (const ns of s.namespaced ? WORK_NS : WORK_NS.slice(0, 1)) await make(ns, EXISTING, { [PROTECTED]: 'true' });
  }
  const before = await readSeeds(ref.url, seeds);

  const statuses = new Map<number, number>();
  let sent = 0;
  const started = Date.now();
  await fc.assert(
    fc.asyncProperty(batch, async (plans) => {
      // A batch's requests go together, so that they race one another.
      await Promise.all(plans.map(async (p) => {
        const r = render(p);
        let reply: Reply;
        try {
          reply = await send(base, r);
        } catch (err) {
          throw new Error(`${r.method} ${r.path}: ${(err as Error).message}`);
        }
        sent++;
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        learn(reply);
        const what = problem(r, reply);
        if (what) throw new Error(`${r.method} ${r.path.slice(0, 300)} ${JSON.stringify(r.headers)} body ${JSON.stringify(r.body?.toString('utf8').slice(0, 300))}: ${what}`);
      }));
    }),
    propertyRuns(2500, { interruptAfterTimeLimit: 40_000 }),
  );
  t.comment(`${sent} requests in ${Date.now() - started} ms; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`);
  t.equal((await json('GET', '/version')).status, 200, 'the server still serves');
  const after = await readSeeds(ref.url, seeds);
  for (let i = 0; i < seeds.length; i++) t.equal(after[i], before[i], `seed ${seeds[i]} unchanged`);
});

/** The seeds as read: an object's GET text, byte for byte; a collection's items (its own resourceVersion moves with any write). */
async function readSeeds(url: string, paths: readonly string[]): Promise<string[]> {
  return Promise.all(paths.map(async (p) => {
    const text = await (await fetch(`${url}${p}`)).text();
    const parsed = JSON.parse(text);
    return parsed.items ? JSON.stringify(parsed.items) : text;
  }));
}
