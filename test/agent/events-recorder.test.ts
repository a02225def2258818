// The agent's event recorder (reference/agent/events.ts) against a fake API client: repeats become one
// event with a series, writes are rate-limited per event, the queue is capped with drops counted, and
// `record` never waits on the API (the sync loop's side). Plus the core v1 view of the events it
// writes, against a real reference: the same object under upstream's core field names.
import t from 'tap';
import { AgentEventRecorder, nodeRef, podRef } from '../../reference/agent/events.js';
import { ApiClient } from '../../reference/client/api-client.js';
import { startReference } from '../../reference/server.js';
import { until } from './helpers.js';

interface Call { method: string; path: string; body: any }

/** An ApiClient stand-in: records calls; each answers when `release` is called (or at once when `auto`). */
function fakeApi(auto = true) {
  const calls: Call[] = [];
  const pending: Array<() => void> = [];
  const answer = (c: Call) => { calls.push(c); return auto ? Promise.resolve({}) : new Promise((r) => pending.push(() => r({}))); };
  const api = {
    isClosed: false,
    create: (path: string, body: any) => answer({ method: 'POST', path, body }),
    patch: (path: string, body: any) => answer({ method: 'PATCH', path, body }),
  } as unknown as ApiClient;
  return { api, calls, release: () => { for (const r of pending.splice(0)) r(); } };
}

const pod = { metadata: { namespace: 'ns1', name: 'p', uid: 'u1' }, spec: { containers: [{ name: 'c' }] } };

t.test('one event per occurrence at first, then a series for repeats', async (t) => {
  let now = 1_000_000;
  const { api, calls } = fakeApi();
  const r = new AgentEventRecorder({ api, nodeName: 'n1', now: () => now });
  r.record(podRef(pod, { name: 'c' }), 'Normal', 'Pulled', 'PullImage', 'already present');
  await r.flushed();
  t.equal(calls.length, 1);
  const ev = calls[0]!;
  t.equal(ev.path, '/apis/events.orch.io/v1/namespaces/ns1/events');
  t.match(ev.body, { reason: 'Pulled', type: 'Normal', action: 'PullImage', reportingController: 'agent', reportingInstance: 'n1',
    regarding: { kind: 'Pod', apiVersion: 'v1', namespace: 'ns1', name: 'p', uid: 'u1', fieldPath: 'spec.containers{c}' } });
  t.match(ev.body.eventTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  for (let i = 0; i < 3; i++) { now += 1000; r.record(podRef(pod, { name: 'c' }), 'Normal', 'Pulled', 'PullImage', 'already present'); }
  await r.flushed();
  const patches = calls.filter((c) => c.method === 'PATCH');
  t.ok(patches.length >= 1 && patches.length <= 3, 'repeats are written as series patches, not new events');
  t.equal(calls.filter((c) => c.method === 'POST').length, 1, 'no second event');
  t.equal(patches.at(-1)!.path, `/apis/events.orch.io/v1/namespaces/ns1/events/${ev.body.metadata.name}`);
  t.same(patches.at(-1)!.body.series.count, 4, 'the last series write carries every repeat');
  // Past the series window the same event starts a new one.
  now += 7 * 60_000;
  r.record(podRef(pod, { name: 'c' }), 'Normal', 'Pulled', 'PullImage', 'already present');
  await r.flushed();
  t.equal(calls.filter((c) => c.method === 'POST').length, 2);
});

t.test('node events: the node name as uid, in the default namespace', async (t) => {
  const { api, calls } = fakeApi();
  const r = new AgentEventRecorder({ api, nodeName: 'n1' });
  r.record(nodeRef('n1'), 'Normal', 'NodeReady', 'NodeStatus', 'Node n1 status is now: NodeReady');
  await r.flushed();
  t.equal(calls[0]!.path, '/apis/events.orch.io/v1/namespaces/default/events');
  t.same(calls[0]!.body.regarding, { kind: 'Node', name: 'n1', uid: 'n1' });
});

t.test('bounded: a full queue drops and counts, record never waits, a rate per event', async (t) => {
  const { api, calls, release } = fakeApi(false);
  const r = new AgentEventRecorder({ api, nodeName: 'n1', queueCap: 5 });
  const started = Date.now();
  // Distinct events (another pod each): the first is in flight, five wait, the rest are dropped.
  for (let i = 0; i < 20; i++) r.record(podRef({ metadata: { namespace: 'ns1', name: `p${i}`, uid: `u${i}` } }), 'Warning', 'Failed', 'StartContainer', 'x');
  t.ok(Date.now() - started < 100, 'recording returns at once while the API does not answer');
  t.equal(r.dropped, 14, 'what the queue cannot hold is counted');
  for (let i = 0; i < 10 && calls.length < 6; i++) { release(); await new Promise((res) => setImmediate(res)); }
  release();
  await r.flushed();
  t.equal(calls.length, 6);

  // One event key: burst 25 writes, then nothing until tokens come back.
  let now = 0;
  const b = fakeApi();
  const limited = new AgentEventRecorder({ api: b.api, nodeName: 'n1', now: () => now, seriesWindowMs: 0 });
  for (let i = 0; i < 40; i++) { now += 1; limited.record(podRef(pod), 'Warning', 'BackOff', 'StartContainer', 'again'); }
  await limited.flushed();
  t.equal(b.calls.length, 25, 'the spam filter allows a burst of 25 per event');
  t.equal(limited.dropped, 15);
  now += 300_000;
  limited.record(podRef(pod), 'Warning', 'BackOff', 'StartContainer', 'again');
  await limited.flushed();
  t.equal(b.calls.length, 26, 'one more after five minutes');
});

t.test('the events the agent writes read back through core v1 with upstream\'s field names', async (t) => {
  const ref = await startReference({ port: 0 });
  t.teardown(() => ref.close());
  const api = new ApiClient({ url: ref.url });
  t.teardown(() => api.close());
  // A core v1 watch (kubectl events -w) sees what is written through events.orch.io/v1, in core's terms.
  const seen: any[] = [];
  const watch = api.watch('/api/v1/namespaces/default/events', { fieldSelector: 'involvedObject.uid=u1', onList: () => {}, onEvent: (ev) => seen.push(ev) });
  t.teardown(() => watch.stop());
  await watch.synced;
  const r = new AgentEventRecorder({ api, nodeName: 'n1' });
  r.record(podRef({ metadata: { namespace: 'default', name: 'p', uid: 'u1' } }, { name: 'c' }), 'Normal', 'Started', 'StartContainer', 'Started container c');
  r.record(podRef({ metadata: { namespace: 'default', name: 'p', uid: 'u1' } }, { name: 'c' }), 'Normal', 'Started', 'StartContainer', 'Started container c');
  await r.flushed();
  const list = await api.request('GET', '/api/v1/namespaces/default/events?fieldSelector=involvedObject.uid%3Du1,involvedObject.fieldPath%3Dspec.containers%7Bc%7D');
  t.equal(list.items.length, 1);
  t.match(list.items[0], {
    apiVersion: 'v1', kind: 'Event', reason: 'Started', message: 'Started container c', type: 'Normal', action: 'StartContainer',
    reportingComponent: 'agent', reportingInstance: 'n1', involvedObject: { kind: 'Pod', name: 'p', uid: 'u1', fieldPath: 'spec.containers{c}' },
    series: { count: 2 },
  });
  t.notOk('regarding' in list.items[0] || 'note' in list.items[0], 'no events.orch.io/v1 field names in the core view');
  await until('the watch to see the event and its series', () => (seen.some((e) => e.type === 'MODIFIED') ? true : undefined));
  t.match(seen[0], { type: 'ADDED', object: { apiVersion: 'v1', kind: 'Event', involvedObject: { uid: 'u1' }, message: 'Started container c' } });
  t.match(seen.at(-1), { type: 'MODIFIED', object: { series: { count: 2 } } });
  // Written through core v1 (as client-go's record package does), read through events.orch.io/v1.
  await api.create('/api/v1/namespaces/default/events', {
    metadata: { name: 'old-style' }, involvedObject: { kind: 'Node', name: 'n1', uid: 'n1' }, reason: 'NodeReady', message: 'm',
    source: { component: 'agent', host: 'n1' }, firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: '2026-01-01T00:00:00Z', count: 1, type: 'Normal',
  });
  const ev = await api.request('GET', '/apis/events.orch.io/v1/namespaces/default/events/old-style');
  t.match(ev, { regarding: { kind: 'Node', name: 'n1' }, note: 'm', deprecatedSource: { component: 'agent' }, deprecatedCount: 1, deprecatedFirstTimestamp: '2026-01-01T00:00:00Z' });
  const bySource = await api.request('GET', '/api/v1/events?fieldSelector=source%3Dagent');
  t.same(bySource.items.map((e: any) => e.metadata.name).sort(), [list.items[0].metadata.name, 'old-style'].sort(), 'source selects by source.component or reportingComponent');
});
