// Event rules (spec §2.7, §8; upstream pkg/apis/core/validation/events.go, events/v1 strict validation,
// which names core fields: message, involvedObject, count, firstTimestamp, lastTimestamp, source).
import t from 'tap';
import { eventStrategy, microTime, parseRFC3339, wholeSecondTime } from '../../reference/resources/event.js';
import { NS, call, startTestServer } from './helpers.js';

const EV = '/apis/events.orch.io/v1/namespaces/team/events';
const ev = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'events.orch.io/v1',
  kind: 'Event',
  metadata: { name },
  eventTime: '2025-01-01T10:00:00.123456Z',
  action: 'Scheduled',
  reason: 'Scheduled',
  note: 'pod scheduled',
  type: 'Normal',
  reportingController: 'example.com/scheduler',
  reportingInstance: 'scheduler-1',
  regarding: { apiVersion: 'v1', kind: 'Pod', namespace: 'team', name: 'p' },
  ...extra,
});

async function server(t: Parameters<typeof startTestServer>[0]) {
  const srv = await startTestServer(t, { strategies: [eventStrategy] });
  await call(srv.url, 'POST', NS, { metadata: { name: 'team' } });
  return srv;
}

async function invalid(url: string, name: string, extra: Record<string, unknown>, drop: string[] = []): Promise<any> {
  const body: Record<string, unknown> = ev(name, extra);
  for (const f of drop) delete body[f];
  const r = await call(url, 'POST', EV, body);
  if (r.status !== 422) throw new Error(`expected 422 for ${JSON.stringify(extra)} without ${drop}, got ${r.status} ${r.text}`);
  return r.body;
}
const fields = (b: any) => b.details.causes.map((c: any) => c.field);

t.test('times', async (t) => {
  t.equal(microTime('2025-01-01T10:00:00Z'), '2025-01-01T10:00:00.000000Z');
  t.equal(microTime('2025-01-01T10:00:00.1234567+02:00'), '2025-01-01T08:00:00.123456Z');
  t.equal(wholeSecondTime('2025-01-01T10:00:00.9-01:30'), '2025-01-01T11:30:00Z');
  t.equal(microTime('yesterday'), 'yesterday', 'unparsable values stay for validation to report');
  for (const bad of ['2025-13-01T00:00:00Z', '2025-02-30T00:00:00Z', '2025-01-01 00:00:00Z', '2025-01-01T24:00:00Z']) t.equal(parseRFC3339(bad), undefined, bad);
  t.ok(parseRFC3339('0001-01-01T00:00:00Z'));
});

t.test('a valid event, stored with times as upstream writes them', async (t) => {
  const srv = await server(t);
  const r = await call(srv.url, 'POST', EV, ev('ok', {
    eventTime: '2025-01-01T10:00:00Z',
    series: { count: 2, lastObservedTime: '2025-01-01T10:05:00+01:00' },
    related: { kind: 'Node', name: 'n1' },
  }));
  t.equal(r.status, 201, r.text);
  t.equal(r.body.eventTime, '2025-01-01T10:00:00.000000Z');
  t.same(r.body.series, { count: 2, lastObservedTime: '2025-01-01T09:05:00.000000Z' });
  t.same(r.body.related, { kind: 'Node', name: 'n1' });
  const d = await call(srv.url, 'DELETE', `${EV}/ok`);
  t.equal(d.body.kind, 'Status', 'delete returns a Status');
});

t.test('required fields of new events', async (t) => {
  const srv = await server(t);
  let b = await invalid(srv.url, 'no-time', {}, ['eventTime']);
  t.equal(b.message, 'Event.events.orch.io "no-time" is invalid: eventTime: Required value');
  t.same(fields(b), ['eventTime'], 'without eventTime upstream skips the new-event checks');
  b = await invalid(srv.url, 'zero-time', { eventTime: '0001-01-01T00:00:00Z' });
  t.same(fields(b), ['eventTime'], 'the zero time is unset');
  b = await invalid(srv.url, 'bad-time', { eventTime: 'yesterday' });
  t.same(fields(b), ['eventTime']);
  t.equal(b.details.causes[0].reason, 'FieldValueInvalid');

  b = await invalid(srv.url, 'empty', {}, ['action', 'reason', 'reportingController', 'reportingInstance', 'type']);
  // An empty reportingController is also no qualified name (two more messages, as upstream).
  t.same(fields(b), ['reportingController', 'reportingController', 'reportingController', 'reportingInstance', 'action', 'reason', 'type']);
  t.equal(b.details.causes[0].message, 'Required value');
  t.equal(b.details.causes[6].message, 'Invalid value: "": has invalid value: ');
  b = await invalid(srv.url, 'empty-strings', { action: '', reason: '', reportingInstance: '' });
  t.same(fields(b), ['reportingInstance', 'action', 'reason']);
});

t.test('lengths: at most 128 for action, reason, reportingInstance; 1024 for note', async (t) => {
  const srv = await server(t);
  const ok = await call(srv.url, 'POST', EV, ev('max', { action: 'a'.repeat(128), reason: 'r'.repeat(128), reportingInstance: 'i'.repeat(128), note: 'n'.repeat(1024) }));
  t.equal(ok.status, 201, 'at the limits');
  const b = await invalid(srv.url, 'over', { action: 'a'.repeat(129), reason: 'r'.repeat(129), reportingInstance: 'i'.repeat(129), note: 'n'.repeat(1025) });
  t.equal(b.message, 'Event.events.orch.io "over" is invalid: [reportingInstance: Invalid value: "": can have at most 128 characters, action: Invalid value: "": can have at most 128 characters, reason: Invalid value: "": can have at most 128 characters, message: Invalid value: "": can have at most 1024 characters]');
  const bytes = await invalid(srv.url, 'bytes', { note: 'é'.repeat(513) });
  t.same(fields(bytes), ['message'], 'lengths count bytes, as upstream');
});

t.test('type, reportingController, regarding namespace', async (t) => {
  const srv = await server(t);
  t.equal((await call(srv.url, 'POST', EV, ev('warn', { type: 'Warning' }))).status, 201);
  let b = await invalid(srv.url, 'info', { type: 'Info' });
  t.equal(b.message, 'Event.events.orch.io "info" is invalid: type: Invalid value: "": has invalid value: Info');
  b = await invalid(srv.url, 'ctl', { reportingController: 'not a controller!' });
  t.same(fields(b), ['reportingController']);
  t.match(b.details.causes[0].message, 'name part must consist of alphanumeric characters');
  b = await invalid(srv.url, 'reg', { regarding: { kind: 'Pod', name: 'p' } });
  t.equal(b.message, 'Event.events.orch.io "reg" is invalid: involvedObject.namespace: Invalid value: "": does not match event.namespace');
  b = await invalid(srv.url, 'no-reg', {}, ['regarding']);
  t.same(fields(b), ['involvedObject.namespace']);
  const other = await call(srv.url, 'POST', EV, ev('other-ns', { regarding: { kind: 'Pod', namespace: 'elsewhere', name: 'p' } }));
  t.equal(other.status, 201, 'upstream only insists on some namespace');
  const dflt = await call(srv.url, 'POST', '/apis/events.orch.io/v1/namespaces/default/events', ev('in-default', { regarding: { kind: 'Node', name: 'n1' } }));
  t.equal(dflt.status, 201, 'in default a cluster-scoped object needs no namespace');
});

t.test('series', async (t) => {
  const srv = await server(t);
  let b = await invalid(srv.url, 's1', { series: { lastObservedTime: '2025-01-01T10:00:00Z' } });
  t.equal(b.message, 'Event.events.orch.io "s1" is invalid: series.count: Invalid value: "": should be at least 2');
  b = await invalid(srv.url, 's2', { series: { count: 1, lastObservedTime: '2025-01-01T10:00:00Z' } });
  t.same(fields(b), ['series.count']);
  b = await invalid(srv.url, 's3', { series: { count: 2 } });
  t.equal(b.message, 'Event.events.orch.io "s3" is invalid: series.lastObservedTime: Required value');
});

t.test('deprecated fields must be unset on create', async (t) => {
  const srv = await server(t);
  const b = await invalid(srv.url, 'dep', {
    deprecatedCount: 2,
    deprecatedFirstTimestamp: '2025-01-01T00:00:00Z',
    deprecatedLastTimestamp: '2025-01-01T00:00:00Z',
    deprecatedSource: { component: 'kubelet' },
  });
  t.equal(b.message, 'Event.events.orch.io "dep" is invalid: [firstTimestamp: Invalid value: "": needs to be unset, lastTimestamp: Invalid value: "": needs to be unset, count: Invalid value: "": needs to be unset, source: Invalid value: "": needs to be unset]');
  const zero = await call(srv.url, 'POST', EV, ev('dep-zero', { deprecatedCount: 0, deprecatedSource: {} }));
  t.equal(zero.status, 201, 'zero values are unset');
});

t.test('updates: only series may change', async (t) => {
  const srv = await server(t);
  const o = (await call(srv.url, 'POST', EV, ev('u'))).body;
  const change = async (extra: Record<string, unknown>) => call(srv.url, 'PUT', `${EV}/u`, { ...o, ...extra });
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ reason: 'Other' }, 'reason'],
    [{ note: 'other' }, 'message'],
    [{ action: 'Other' }, 'action'],
    [{ type: 'Warning' }, 'type'],
    [{ eventTime: '2025-01-01T10:00:01.000000Z' }, 'eventTime'],
    [{ regarding: { kind: 'Pod', namespace: 'team', name: 'q' } }, 'involvedObject'],
    [{ related: { kind: 'Node', name: 'n' } }, 'related'],
    [{ reportingController: 'example.com/other' }, 'reportingController'],
    [{ reportingInstance: 'other' }, 'reportingInstance'],
  ];
  for (const [extra, field] of cases) {
    const r = await change(extra);
    t.equal(r.status, 422, `${Object.keys(extra)[0]} is immutable`);
    t.same(fields(r.body), [field]);
    t.match(r.body.details.causes[0].message, /field is immutable$/);
  }
  const same = await change({ eventTime: '2025-01-01T11:00:00.123456+01:00' });
  t.equal(same.status, 200, 'the same instant written differently is no change');
  const s = await change({ series: { count: 3, lastObservedTime: '2025-01-01T10:01:00Z' } });
  t.equal(s.status, 200, s.text);
  t.equal(s.body.series.count, 3);
  const bad = await call(srv.url, 'PUT', `${EV}/u`, { ...s.body, series: { count: 1, lastObservedTime: '2025-01-01T10:01:00Z' } });
  t.same(fields(bad.body), ['series.count'], 'a changed series is validated');
});
