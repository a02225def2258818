// EvictionRequest rules (spec §2.5 and §8; upstream pkg/apis/lifecycle where the spec is silent).
import t from 'tap';
import { startApiServer } from '../../reference/apiserver/apiserver.js';
import { evictionRequestStrategy, isReservedRequesterDomain } from '../../reference/resources/evictionrequest.js';
import { MemoryStorage } from '../../reference/storage/memory.js';
import { call } from './helpers.js';

const UID = '0f8e2b2a-8c1d-4a8e-9d3c-6b9e1f2a3c4d';
const ERS = '/apis/lifecycle.orch.io/v1alpha1/namespaces/default/evictionrequests';
const T = '2025-01-01T00:00:00Z';

async function server(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const api = await startApiServer({ storage: new MemoryStorage(), strategies: [evictionRequestStrategy], log: (m, e) => console.error('unexpected server error:', m, e) });
  t.teardown(() => api.close());
  return api.url;
}

const er = (name: string, spec: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'lifecycle.orch.io/v1alpha1',
  kind: 'EvictionRequest',
  metadata: { name },
  spec: { intent: 'Eviction', requester: 'acme.example.com/drainer', target: { pod: { name: 'web-0', uid: UID } }, ...spec },
  ...extra,
});

async function invalid(url: string, body: unknown): Promise<any> {
  const r = await call(url, 'POST', ERS, body);
  if (r.status !== 422) throw new Error(`expected 422 for ${JSON.stringify(body)}, got ${r.status} ${r.text}`);
  return r.body;
}

t.test('reserved requester domains', async (t) => {
  for (const d of ['orch.io', 'a.orch.io', 'ORCH.IO', 'kubernetes.io', 'node.kubernetes.io', 'k8s.io', 'x.k8s.io']) t.ok(isReservedRequesterDomain(d), d);
  for (const d of ['notorch.io', 'orch.io.example.com', 'example.com', 'mykubernetes.io']) t.notOk(isReservedRequesterDomain(d), d);
});

t.test('create: valid object, status dropped, generation 1', async (t) => {
  const url = await server(t);
  const r = await call(url, 'POST', ERS, er('ok', {}, { status: { observedGeneration: 5 } }));
  t.equal(r.status, 201, r.text);
  t.equal(r.body.status, undefined, 'status is not taken from a create');
  t.equal(r.body.metadata.generation, 1);
  t.equal(r.body.metadata.namespace, 'default');
  t.equal((await call(url, 'POST', ERS, er('withdrawn', { intent: 'Withdrawn' }))).status, 201);
});

t.test('spec field rules and their messages', async (t) => {
  const url = await server(t);
  let b = await invalid(url, { ...er('nospec'), spec: undefined });
  t.equal(b.message, 'EvictionRequest.lifecycle.orch.io "nospec" is invalid: spec: Required value');

  b = await invalid(url, er('nointent', { intent: undefined }));
  t.same(b.details.causes, [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.intent' }]);
  b = await invalid(url, er('badintent', { intent: 'Evict' }));
  t.equal(b.message, 'EvictionRequest.lifecycle.orch.io "badintent" is invalid: spec.intent: Unsupported value: "Evict": supported values: "Eviction", "Withdrawn"');

  b = await invalid(url, er('noreq', { requester: undefined }));
  t.same(b.details.causes, [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.requester' }]);
  b = await invalid(url, er('bare', { requester: 'drainer' }));
  t.equal(b.message, 'EvictionRequest.lifecycle.orch.io "bare" is invalid: spec.requester: Invalid value: "drainer": must be a domain-prefixed key (such as "acme.io/foo")');
  b = await invalid(url, er('badprefix', { requester: 'Not_A_Domain/x' }));
  t.match(b.details.causes[0].message, /^Invalid value: "Not_A_Domain\/x": prefix part a lowercase RFC 1123 subdomain/);
  b = await invalid(url, er('emptyname', { requester: 'example.com/' }));
  t.match(b.details.causes[0].message, /name part must be non-empty/);
  b = await invalid(url, er('reserved', { requester: 'sched.orch.io/x' }));
  t.equal(b.details.causes[0].field, 'spec.requester');
  t.match(b.details.causes[0].message, /^Invalid value: "sched.orch.io\/x": domain "sched.orch.io" is reserved: orch.io and \*.orch.io, kubernetes.io and \*.kubernetes.io, k8s.io and \*.k8s.io may not be used$/);
  for (const requester of ['kubernetes.io/x', 'k8s.io/x', 'orch.io/x']) await invalid(url, er(`r-${requester.split('/')[0]!.replace(/\./g, '-')}`, { requester }));
  t.equal((await call(url, 'POST', ERS, er('notreserved', { requester: 'notorch.io/x' }))).status, 201, 'a domain merely ending in "orch.io" is fine');

  b = await invalid(url, er('notarget', { target: undefined }));
  t.same(b.details.causes, [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.target' }]);
  b = await invalid(url, er('emptytarget', { target: {} }));
  t.equal(b.message, 'EvictionRequest.lifecycle.orch.io "emptytarget" is invalid: spec.target: Invalid value: "": must specify one of: `pod`');
  b = await invalid(url, er('nopod', { target: { pod: {} } }));
  t.same(b.details.causes.map((c: any) => c.field), ['spec.target.pod.name', 'spec.target.pod.uid']);
  b = await invalid(url, er('badpodname', { target: { pod: { name: 'Web_0', uid: UID } } }));
  t.equal(b.details.causes[0].field, 'spec.target.pod.name');
  b = await invalid(url, er('upper', { target: { pod: { name: 'web-0', uid: UID.toUpperCase() } } }));
  t.equal(b.message, `EvictionRequest.lifecycle.orch.io "upper" is invalid: spec.target.pod.uid: Invalid value: "${UID.toUpperCase()}": must be a lowercase UUID in 8-4-4-4-12 format`);
});

t.test('updates: resourceVersion required, intent mutable, requester and target immutable', async (t) => {
  const url = await server(t);
  const o = (await call(url, 'POST', ERS, er('u'))).body;
  const noRV = await call(url, 'PUT', `${ERS}/u`, { ...o, metadata: { ...o.metadata, resourceVersion: undefined } });
  t.equal(noRV.status, 422, 'an update without resourceVersion is refused (upstream AllowUnconditionalUpdate false)');
  t.match(noRV.body.message, /metadata.resourceVersion: Invalid value: "": must be specified for an update/);

  const withdrawn = await call(url, 'PUT', `${ERS}/u`, { ...o, spec: { ...o.spec, intent: 'Withdrawn' } });
  t.equal(withdrawn.status, 200, withdrawn.text);
  t.equal(withdrawn.body.spec.intent, 'Withdrawn');
  t.equal(withdrawn.body.metadata.generation, 2, 'a spec change bumps generation');

  const cur = withdrawn.body;
  let r = await call(url, 'PUT', `${ERS}/u`, { ...cur, spec: { ...cur.spec, requester: 'other.example.com/x' } });
  t.equal(r.status, 422);
  t.same(r.body.details.causes, [{ reason: 'FieldValueForbidden', message: 'Forbidden: field is immutable', field: 'spec.requester' }]);
  r = await call(url, 'PUT', `${ERS}/u`, { ...cur, spec: { ...cur.spec, target: { pod: { name: 'web-1', uid: UID } } } });
  t.equal(r.status, 422);
  t.same(r.body.details.causes, [{ reason: 'FieldValueForbidden', message: 'Forbidden: field is immutable', field: 'spec.target' }]);
});

t.test('status rules: conditions and observedGeneration', async (t) => {
  const url = await server(t);
  let cur = (await call(url, 'POST', ERS, er('s'))).body;
  const put = async (status: unknown) => call(url, 'PUT', `${ERS}/s/status`, { ...cur, status });
  const cond = (type: string, status = 'False', reason = 'Processing') => ({ type, status, reason, message: '', lastTransitionTime: T });

  let r = await put({ observedGeneration: 1, conditions: [cond('Failed'), cond('TargetEvicted')] });
  t.equal(r.status, 200, r.text);
  t.same(r.body.status.conditions.map((c: any) => c.type), ['Failed', 'TargetEvicted']);
  cur = r.body;

  const many = (n: number) => Array.from({ length: n }, (_, i) => cond(`example.com/C${i}`));
  r = await put({ conditions: many(101), observedGeneration: 1 });
  t.equal(r.status, 422);
  t.equal(r.body.message, 'EvictionRequest.lifecycle.orch.io "s" is invalid: status.conditions: Too many: 101: must have at most 100 items');
  r = await put({ conditions: many(100), observedGeneration: 1 });
  t.equal(r.status, 200, '100 conditions are fine');
  cur = r.body;

  r = await put({ observedGeneration: 1, conditions: [cond('Failed'), cond('Failed', 'True', 'Canceled')] });
  t.same(r.body.details.causes, [{ reason: 'FieldValueDuplicate', message: 'Duplicate value: "Failed"', field: 'status.conditions[1].type' }]);

  r = await put({ observedGeneration: 1, conditions: [{ type: 'Failed', status: 'Maybe' }] });
  t.same(r.body.details.causes, [
    { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Maybe": supported values: "False", "True", "Unknown"', field: 'status.conditions[0].status' },
    { reason: 'FieldValueRequired', message: 'Required value: must be set', field: 'status.conditions[0].lastTransitionTime' },
    { reason: 'FieldValueRequired', message: 'Required value: must be set', field: 'status.conditions[0].reason' },
  ]);
  r = await put({ observedGeneration: 1, conditions: [cond('Failed', 'False', 'not a reason')] });
  t.match(r.body.details.causes[0].message, /a condition reason must start with alphabetic character/);

  r = await put({ observedGeneration: 0 });
  t.same(r.body.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than or equal to 1', field: 'status.observedGeneration' }]);
  r = await put({ observedGeneration: 3 });
  t.equal(r.status, 200);
  cur = r.body;
  r = await put({ observedGeneration: 2 });
  t.same(r.body.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: 2: cannot decrement, must be greater than or equal to 3', field: 'status.observedGeneration' }]);
  r = await put({});
  t.equal(r.status, 422, 'unsetting observedGeneration counts as decrementing it');
  t.equal((await put({ observedGeneration: 3 })).status, 200, 'keeping it is fine');
});

t.test('delete returns a Status', async (t) => {
  const url = await server(t);
  await call(url, 'POST', ERS, er('d'));
  const r = await call(url, 'DELETE', `${ERS}/d`);
  t.equal(r.status, 200);
  t.equal(r.body.kind, 'Status');
  t.equal(r.body.status, 'Success');
  t.equal(r.body.details.kind, 'evictionrequests');
});
