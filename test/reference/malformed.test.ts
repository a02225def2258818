// Generated malformed bodies for every kind the reference serves: wrong types, nulls, missing fields
// and huge strings, field by field. Bad input gets a Status (422 Invalid with a cause at the bad
// field for wrong types), never a 500 or a crash, and the server keeps serving.
import t from 'tap';
import { startReference } from '../../reference/server.js';
import { REFERENCE_RESOURCES } from '../../reference/resources/index.js';
import { collectionPath } from '../../suites/000-control-plane/kinds.js';
import type { Schema } from '../../reference/apiserver/schema.js';
import { ALL_GATES_ON, fakeContext, sampleOf } from './samples.js';

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

/** The pod the Binding sample binds (the legacy bindings name the pod in metadata.name). */
const BOUND_POD = 'malformed-bound';

t.test('malformed bodies per kind: a Status, never a 500', async (t) => {
  const ref = await startReference({ featureGates: ALL_GATES_ON });
  t.teardown(() => ref.close());
  const ctx = fakeContext('default');
  const problems: string[] = [];
  let sent = 0;
  const pod = await fetch(`${ref.url}/api/v1/namespaces/default/pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: BOUND_POD }, spec: { containers: [{ name: 'c', image: 'i' }] } }) });
  t.equal(pod.status, 201, 'the pod the Binding sample binds');
  for (const strategy of REFERENCE_RESOURCES) {
    const k = sampleOf(strategy);
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
