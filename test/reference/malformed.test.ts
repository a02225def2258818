// Generated malformed bodies for every kind the reference serves: wrong types, nulls, missing fields
// and huge strings, field by field. Bad input gets a Status (422 Invalid with a cause at the bad
// field for wrong types), never a 500 or a crash, and the server keeps serving.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { startReference } from '../../reference/server.js';
import { REFERENCE_RESOURCES } from '../../reference/resources/index.js';
import { KINDS, collectionPath, type ResourceKind } from '../../suites/000-control-plane/kinds.js';
import { AGENT_KINDS } from '../../suites/001-node-agent/kinds.js';
import type { Schema } from '../../reference/apiserver/schema.js';
import type { CaseContext } from '../../suites/case.js';

const ALL_GATES_ON = { GenericWorkload: true, CompositePodGroup: true, PodGroupPreemptionPolicy: true, TopologyAwareWorkloadScheduling: true };

/** Every field path of a schema down to `depth`, with its schema. */
function fieldPaths(props: Readonly<Record<string, Schema>>, prefix = '', depth = 3): Array<[string, Schema]> {
  const out: Array<[string, Schema]> = [];
  for (const [k, s] of Object.entries(props)) {
    const p = prefix ? `${prefix}.${k}` : k;
    out.push([p, s]);
    if (s.type === 'object' && depth > 1) out.push(...fieldPaths(s.properties, p, depth - 1));
  }
  return out;
}

/** A value of the wrong JSON type for a schema. */
function wrongType(s: Schema): unknown {
  switch (s.type) {
    case 'string': return 12345;
    case 'boolean': return 'yes';
    case 'integer': case 'number': return 'many';
    case 'object': case 'map': return ['not', 'an', 'object'];
    case 'array': return { not: 'a list' };
    default: return undefined;
  }
}

function setPath(obj: any, path: string, value: unknown): void {
  const keys = path.split('.');
  let o = obj;
  for (const k of keys.slice(0, -1)) {
    if (o[k] === null || typeof o[k] !== 'object' || Array.isArray(o[k])) o[k] = {};
    o = o[k];
  }
  if (value === undefined) delete o[keys.at(-1)!];
  else o[keys.at(-1)!] = value;
}

const NAMESPACE: ResourceKind = {
  kind: 'Namespace', apiVersion: 'v1', plural: 'namespaces', namespaced: false, hasStatus: true, deleteResponse: 'object', section: '2.1',
  valid: () => ({}), change: { patch: {}, changed: () => true },
};

/** The review kinds: no suite describes them (they are not spec 000 kinds), so their samples are here. */
const review = (kind: string, apiVersion: string, valid: () => Record<string, unknown>): ResourceKind => ({
  kind, apiVersion, plural: `${kind.toLowerCase()}s`, namespaced: false, hasStatus: false, deleteResponse: 'unspecified', section: '',
  valid, change: { patch: {}, changed: () => false },
});
const REVIEWS: ResourceKind[] = [
  review('TokenReview', 'authentication.orch.io/v1', () => ({ spec: { token: 'no-such-token', audiences: ['x'] } })),
  review('SelfSubjectReview', 'authentication.orch.io/v1', () => ({})),
  review('SubjectAccessReview', 'authorization.orch.io/v1', () => ({ spec: { user: 'alice', groups: ['devs'], resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' } } })),
  review('SelfSubjectAccessReview', 'authorization.orch.io/v1', () => ({ spec: { nonResourceAttributes: { verb: 'get', path: '/healthz' } } })),
];

/** The legacy bindings collection (never stored): its valid sample binds a pod made for it below. */
const BINDING: ResourceKind = {
  kind: 'Binding', apiVersion: 'v1', plural: 'bindings', namespaced: true, hasStatus: false, deleteResponse: 'unspecified', section: '',
  valid: () => ({ target: { kind: 'Node', name: 'malformed-node' } }), change: { patch: {}, changed: () => false },
};
const BOUND_POD = 'malformed-bound';

/** The Eviction kind the eviction-request controller writes (lifecycle.orch.io/v1alpha1). */
const EVICTION: ResourceKind = {
  kind: 'Eviction', apiVersion: 'lifecycle.orch.io/v1alpha1', plural: 'evictions', namespaced: true, hasStatus: true, deleteResponse: 'status', section: '',
  valid: () => ({ spec: { target: { pod: { name: 'malformed-target', uid: randomUUID() } } } }), change: { patch: { metadata: { labels: { changed: 'yes' } } }, changed: () => true },
};

function fakeContext(namespace: string): CaseContext {
  let n = 0;
  return {
    namespace, labels: {}, runId: 'malformed', signal: new AbortController().signal,
    uniqueName: (hint = 'x') => `m-${hint}-${n++}-${randomUUID().slice(0, 8)}`,
    track: () => undefined, api: undefined as never, component: () => undefined as never, componentNames: () => ['apiserver'], facts: {},
    agent: () => undefined as never, cri: () => undefined as never, podInfoSocket: () => undefined as never, agents: undefined as never,
  };
}

t.test('malformed bodies per kind: a Status, never a 500', async (t) => {
  const ref = await startReference({ featureGates: ALL_GATES_ON });
  t.teardown(() => ref.close());
  const ctx = fakeContext('default');
  const problems: string[] = [];
  let sent = 0;
  // Every served resource, with a valid sample from the kinds the suites describe.
  const samples: ResourceKind[] = [...KINDS, ...AGENT_KINDS, NAMESPACE, ...REVIEWS, BINDING, EVICTION];
  const pod = await fetch(`${ref.url}/api/v1/namespaces/default/pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: BOUND_POD }, spec: { containers: [{ name: 'c', image: 'i' }] } }) });
  t.equal(pod.status, 201, 'the pod the Binding sample binds');
  for (const strategy of REFERENCE_RESOURCES) {
    const apiVersion = strategy.group ? `${strategy.group}/${strategy.version}` : strategy.version;
    const k = samples.find((x) => x.kind === strategy.kind && x.apiVersion === apiVersion);
    if (!k) { problems.push(`${strategy.kind}: no valid sample (add a ResourceKind for it)`); continue; }
    const url = `${ref.url}${collectionPath(k, 'default')}`;
    const post = async (what: string, body: unknown) => {
      sent++;
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const text = await res.text();
      let json: any;
      try { json = JSON.parse(text); } catch { /* reported below */ }
      if (res.status >= 500) problems.push(`${k.kind} ${what}: HTTP ${res.status} ${text.slice(0, 200)}`);
      else if (res.status >= 400 && json?.kind !== 'Status') problems.push(`${k.kind} ${what}: HTTP ${res.status} without a Status body`);
      else if (res.status === 422 && !(json.details?.causes ?? []).every((c: any) => typeof c.field === 'string' && typeof c.reason === 'string')) problems.push(`${k.kind} ${what}: 422 with a cause lacking field or reason`);
      return { status: res.status, json };
    };
    // Reviews are never stored and want empty metadata.
    const valid = () => ({ apiVersion: k.apiVersion, kind: k.kind, metadata: strategy.notStored ? (strategy.answerCreate ? { name: BOUND_POD } : {}) : { name: ctx.uniqueName(k.plural.slice(0, 5)) }, ...k.valid(ctx) });
    const ok = await post('valid sample', valid());
    if (ok.status !== 201) problems.push(`${k.kind}: the valid sample was refused: ${JSON.stringify(ok.json).slice(0, 300)}`);

    for (const [path, schema] of fieldPaths(strategy.schema)) {
      const bad = wrongType(schema);
      if (bad !== undefined) {
        const body = valid();
        setPath(body, path, bad);
        const r = await post(`wrong type at ${path}`, body);
        if (r.status !== 422) problems.push(`${k.kind} wrong type at ${path}: HTTP ${r.status}, want 422`);
        else if (!(r.json.details?.causes ?? []).some((c: any) => c.field === path)) problems.push(`${k.kind} wrong type at ${path}: no cause names ${path}: ${JSON.stringify(r.json.details?.causes)}`);
      }
      for (const [what, value] of [['null', null], ['missing', undefined], ['huge string', 'x'.repeat(1024 * 1024)], ['empty object', {}], ['deep nesting', JSON.parse('['.repeat(200) + ']'.repeat(200))]] as const) {
        const body = valid();
        setPath(body, path, value);
        await post(`${what} at ${path}`, body);
      }
    }
    for (const [what, body] of [['metadata null', { ...valid(), metadata: null }], ['array body', [valid()]], ['string body', 'text'], ['number body', 42]] as const) {
      await post(what, body);
    }
  }
  t.same(problems, [], `${sent} malformed bodies`);
  t.equal((await fetch(`${ref.url}/version`)).status, 200, 'the server still serves');
});
