// /metrics: protobuf messages on the wire, content negotiation, text exposition as prom-client
// renders it, native histograms only with the gate on, and the API server's request metrics.
import t from 'tap';
import protobuf from 'protobufjs';
import { FeatureGates } from '../../reference/features.js';
import { ComponentMetrics } from '../../reference/observability/metrics.js';
import { decodeDelimited, encodeDelimited, metricFamilyType, PROTOBUF_CONTENT_TYPE, type MetricFamilyMsg } from '../../reference/observability/metrics-proto.js';
import { negotiateFormat, parseAccept, renderOpenMetrics, renderText, toMetricFamilies } from '../../reference/observability/exposition.js';
import { decodeBuckets } from '../../reference/observability/native-histogram.js';
import { requestLabels } from '../../reference/apiserver/metrics.js';
import { startReference } from '../../reference/server.js';

const PROMETHEUS_ACCEPT =
  'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.5,application/openmetrics-text;version=1.0.0;q=0.4,application/openmetrics-text;version=0.0.1;q=0.3,text/plain;version=0.0.4;q=0.2,*/*;q=0.1';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

t.test('metrics.proto field numbers and wire types', async (t) => {
  const root = metricFamilyType().root;
  const Histogram = root.lookupType('io.prometheus.client.Histogram');
  const BucketSpan = root.lookupType('io.prometheus.client.BucketSpan');
  const enc = (type: protobuf.Type, obj: object) => hex(type.encode(type.fromObject(obj)).finish());
  // schema 5 sint32: tag 0x28, zigzag(-1) = 1.
  t.equal(enc(Histogram, { schema: -1 }), '2801');
  // positive_delta 13 sint64, not packed: tag 0x68 per element; zigzag(1)=2, zigzag(-1)=1.
  t.equal(enc(Histogram, { positive_delta: [1, -1] }), '68026801');
  // negative_delta 10: tag 0x50.
  t.equal(enc(Histogram, { negative_delta: [3] }), '5006');
  // zero_threshold 6 double: tag 0x31; zero_count 7 uint64: tag 0x38.
  t.equal(enc(Histogram, { zero_threshold: 0, zero_count: 2 }), '3100000000000000003802');
  // sample_count 1, sample_sum 2.
  t.equal(enc(Histogram, { sample_count: 3, sample_sum: 0.5 }), '0803' + '11000000000000e03f');
  // BucketSpan{offset 1 sint32, length 2 uint32}: zigzag(-79) = 157 = 0x9d 0x01.
  t.equal(enc(BucketSpan, { offset: -79, length: 1 }), '089d011001');
  // positive_span 12 (tag 0x62), negative_span 9 (tag 0x4a): length-delimited.
  t.equal(enc(Histogram, { positive_span: [{ offset: 0, length: 0 }] }), '6204' + '08001000');
  t.equal(enc(Histogram, { negative_span: [{ offset: 1, length: 1 }] }), '4a04' + '08021001');
  // Bucket{cumulative_count 1, upper_bound 2}, Histogram.bucket 3.
  t.equal(enc(Histogram, { bucket: [{ cumulative_count: 1, upper_bound: 1 }] }), '1a0b' + '0801' + '11000000000000f03f');
  // MetricFamily{name 1, help 2, type 3, metric 4}; Metric{label 1, gauge 2, counter 3, histogram 7}.
  t.equal(enc(metricFamilyType(), { name: 'a', help: 'h', type: 'HISTOGRAM', metric: [{ label: [{ name: 'k', value: 'v' }], gauge: { value: 1 } }] }),
    '0a0161' + '120168' + '1804' + '2213' + '0a06' + '0a016b120176' + '1209' + '09000000000000f03f');
  const Metric = root.lookupType('io.prometheus.client.Metric');
  t.equal(enc(Metric, { counter: { value: 0 } }), '1a09' + '090000000000000000', 'counter 3');
  t.equal(enc(Metric, { histogram: {} }), '3a00', 'histogram 7');
  t.equal(enc(Metric, { timestamp_ms: 5 }), '3005', 'timestamp_ms 6');
  t.equal(enc(Metric, { untyped: {} }), '2a00', 'untyped 5');
  t.equal(enc(Metric, { summary: {} }), '2200', 'summary 4');
  t.equal(enc(metricFamilyType(), { unit: 's' }), '2a0173', 'unit 5');
  t.same(root.lookupEnum('io.prometheus.client.MetricType').values, { COUNTER: 0, GAUGE: 1, SUMMARY: 2, UNTYPED: 3, HISTOGRAM: 4, GAUGE_HISTOGRAM: 5 });
});

t.test('delimited protobuf round trip', async (t) => {
  const families: MetricFamilyMsg[] = [
    { name: 'c_total', help: 'a counter', type: 'COUNTER', metric: [{ label: [{ name: 'x', value: '1' }], counter: { value: 3 } }] },
    { name: 'g', help: 'a gauge', type: 'GAUGE', metric: [{ gauge: { value: -2.5 } }] },
    {
      name: 'h_seconds',
      help: 'a histogram',
      type: 'HISTOGRAM',
      metric: [{
        histogram: {
          sample_count: 7, sample_sum: 12.5,
          bucket: [{ cumulative_count: 2, upper_bound: 0.5 }, { cumulative_count: 6, upper_bound: 5 }],
          schema: -2, zero_threshold: 1e-9, zero_count: 1,
          negative_span: [{ offset: -3, length: 2 }], negative_delta: [1, -1],
          positive_span: [{ offset: 1, length: 1 }, { offset: 4, length: 2 }], positive_delta: [2, -1, 0],
        },
      }],
    },
  ];
  const buf = encodeDelimited(families);
  // Framing: a uvarint length, then exactly that many bytes of the first family.
  const first = metricFamilyType().encode(metricFamilyType().fromObject(families[0]!)).finish();
  t.equal(buf[0], first.length, 'first byte is the first message length');
  t.equal(hex(buf.subarray(1, 1 + first.length)), hex(first));
  const back = decodeDelimited(buf);
  t.equal(back.length, 3);
  t.same(back.map((f) => [f.name, f.help, f.type]), [['c_total', 'a counter', 'COUNTER'], ['g', 'a gauge', 'GAUGE'], ['h_seconds', 'a histogram', 'HISTOGRAM']]);
  t.equal(back[0]!.metric[0]!.counter!.value, 3);
  t.same(back[0]!.metric[0]!.label, [{ name: 'x', value: '1' }]);
  t.equal(back[1]!.metric[0]!.gauge!.value, -2.5);
  const h = back[2]!.metric[0]!.histogram!;
  t.match(h, {
    sample_count: 7, sample_sum: 12.5, schema: -2, zero_threshold: 1e-9, zero_count: 1,
    bucket: [{ cumulative_count: 2, upper_bound: 0.5 }, { cumulative_count: 6, upper_bound: 5 }],
    negative_span: [{ offset: -3, length: 2 }], negative_delta: [1, -1],
    positive_span: [{ offset: 1, length: 1 }, { offset: 4, length: 2 }], positive_delta: [2, -1, 0],
  });
  t.same(decodeBuckets(h.positive_span!, h.positive_delta!), new Map([[1, 2], [6, 1], [7, 1]]));
  // A long message: its length prefix takes two bytes.
  const big = encodeDelimited([{ name: 'x'.repeat(200), type: 'GAUGE', metric: [] }]);
  t.same([big[0], big[1]], [0xcd, 0x01], 'uvarint 205: name (1 + 2 + 200 bytes) and type (2)');
  t.equal(decodeDelimited(big)[0]!.name.length, 200);
});

t.test('content negotiation', async (t) => {
  t.equal(negotiateFormat(undefined), 'text');
  t.equal(negotiateFormat(''), 'text');
  t.equal(negotiateFormat('*/*'), 'text');
  t.equal(negotiateFormat('text/plain'), 'text');
  t.equal(negotiateFormat('text/plain;version=0.0.4'), 'text');
  t.equal(negotiateFormat('application/json'), 'text', 'unknown types get text, not 406');
  t.equal(negotiateFormat('application/openmetrics-text'), 'openmetrics');
  t.equal(negotiateFormat('application/openmetrics-text; version=1.0.0'), 'openmetrics');
  t.equal(negotiateFormat('application/openmetrics-text;version=2.0.0'), 'text');
  t.equal(negotiateFormat(PROTOBUF_CONTENT_TYPE), 'protobuf');
  t.equal(negotiateFormat('application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited'), 'protobuf');
  t.equal(negotiateFormat('application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=text'), 'text', 'only the delimited encoding');
  t.equal(negotiateFormat('application/vnd.google.protobuf'), 'text', 'proto and encoding are required');
  t.equal(negotiateFormat(PROMETHEUS_ACCEPT), 'protobuf', 'Prometheus with native histograms');
  t.equal(negotiateFormat('application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.25'), 'openmetrics', 'Prometheus without');
  t.equal(negotiateFormat(`text/plain;q=0.9,${PROTOBUF_CONTENT_TYPE};q=0.5`), 'text', 'the highest q wins');
  t.equal(negotiateFormat(`text/plain;q=0.5,${PROTOBUF_CONTENT_TYPE};q=0.9`), 'protobuf');
  t.equal(negotiateFormat(`${PROTOBUF_CONTENT_TYPE};q=0,text/plain;q=0.1`), 'text', 'q=0 is refused');
  t.same(parseAccept('*/*;q=0.5, text/*;q=0.5, text/plain;q=0.5').map((e) => `${e.type}/${e.subtype}`), ['text/plain', 'text/*', '*/*'], 'more specific first at equal q');
});

function metricsWith(gates: Record<string, boolean>) {
  const m = new ComponentMetrics({ featureGates: new FeatureGates(gates), processMetrics: false });
  const requests = m.counter({ name: 'demo_requests_total', help: 'Demo requests.', labelNames: ['code'] });
  const latency = m.histogram({ name: 'demo_duration_seconds', help: 'Demo latency.', labelNames: ['code'], buckets: [0.1, 1, 10] });
  for (const v of [0.05, 0.2, 0.2, 3, 30]) {
    requests.inc({ code: '200' });
    latency.observe({ code: '200' }, v);
  }
  latency.observe({ code: '500' }, 0.001);
  return m;
}

t.test('text exposition: prom-client renders it, classic buckets only', async (t) => {
  const m = metricsWith({});
  const text = await renderText(m.registry);
  t.equal(text, await m.registry.metrics(), 'exactly what prom-client renders');
  const { contentType, body } = await m.scrape('text/plain');
  t.equal(contentType, 'text/plain; version=0.0.4; charset=utf-8');
  t.equal(body.toString(), text);
  t.match(text, /^demo_duration_seconds_bucket\{le="0.1",code="200"\} 1$/m);
  t.match(text, /^demo_duration_seconds_bucket\{le="\+Inf",code="200"\} 5$/m);
  t.match(text, /^demo_duration_seconds_count\{code="200"\} 5$/m);
  t.match(text, /^orch_feature_enabled\{name="NativeHistograms",stage="BETA"\} 1$/m);
  t.match(text, /^orch_feature_enabled\{name="GenericWorkload",stage="ALPHA"\} 0$/m);
  t.notMatch(text, /schema|zero_threshold|span/, 'no native data in text');
  const { body: scrapedAgain } = await m.scrape(undefined);
  t.equal(scrapedAgain.toString(), text, 'no Accept: the same text');
});

t.test('OpenMetrics exposition, and text stays intact after it', async (t) => {
  const m = metricsWith({});
  const before = await renderText(m.registry);
  const { contentType, body } = await m.scrape('application/openmetrics-text;version=1.0.0');
  t.equal(contentType, 'application/openmetrics-text; version=1.0.0; charset=utf-8');
  const om = body.toString();
  t.match(om, /^# TYPE demo_requests counter$/m, 'counter family without _total');
  t.match(om, /^demo_requests_total\{code="200"\} 5$/m);
  t.match(om, /^demo_duration_seconds_bucket\{le="\+Inf",code="200"\} 5$/m);
  t.ok(om.endsWith('# EOF\n'));
  t.equal(om, await renderOpenMetrics(m.registry));
  t.equal(await renderText(m.registry), before, 'counter names unchanged for the text format');
});

t.test('protobuf exposition: classic and native buckets with the gate on', async (t) => {
  const m = metricsWith({});
  const { contentType, body } = await m.scrape(PROMETHEUS_ACCEPT);
  t.equal(contentType, PROTOBUF_CONTENT_TYPE);
  const fams = decodeDelimited(body);
  t.same(fams.map((f) => f.name), [...fams.map((f) => f.name)].sort(), 'families sorted by name');
  const counter = fams.find((f) => f.name === 'demo_requests_total')!;
  t.equal(counter.type, 'COUNTER');
  t.same(counter.metric[0]!.label, [{ name: 'code', value: '200' }]);
  t.equal(counter.metric[0]!.counter!.value, 5);
  const gate = fams.find((f) => f.name === 'orch_feature_enabled')!;
  t.equal(gate.type, 'GAUGE');
  const nh = gate.metric.find((x) => x.label!.some((l) => l.name === 'name' && l.value === 'NativeHistograms'))!;
  t.equal(nh.gauge!.value, 1);
  const hist = fams.find((f) => f.name === 'demo_duration_seconds')!;
  t.equal(hist.type, 'HISTOGRAM');
  t.equal(hist.metric.length, 2);
  const ok = hist.metric.find((x) => x.label![0]!.value === '200')!.histogram!;
  t.equal(ok.sample_count, 5);
  t.equal(ok.sample_sum, 0.05 + 0.2 + 0.2 + 3 + 30);
  t.same(ok.bucket, [{ cumulative_count: 1, upper_bound: 0.1 }, { cumulative_count: 3, upper_bound: 1 }, { cumulative_count: 4, upper_bound: 10 }], 'classic buckets, +Inf implied');
  t.equal(ok.schema, 3);
  t.ok(ok.zero_threshold! > 0);
  t.equal(ok.zero_count, 0);
  const buckets = decodeBuckets(ok.positive_span!, ok.positive_delta!);
  t.equal([...buckets.values()].reduce((a, b) => a + b, 0), 5, 'native buckets hold every observation');
  t.equal(buckets.get(Math.ceil(Math.log2(0.2) * 8)), 2, 'both 0.2 in one bucket');
});

t.test('protobuf exposition: no native data with NativeHistograms off', async (t) => {
  const m = metricsWith({ NativeHistograms: false });
  const fams = decodeDelimited((await m.scrape(PROMETHEUS_ACCEPT)).body);
  const hist = fams.find((f) => f.name === 'demo_duration_seconds')!;
  for (const x of hist.metric) {
    const h = x.histogram!;
    t.equal(h.schema, undefined);
    t.equal(h.zero_threshold, undefined);
    t.same(h.positive_span, []);
    t.same(h.negative_span, []);
    t.ok(h.bucket!.length > 0, 'classic buckets still there');
  }
  const gate = fams.find((f) => f.name === 'orch_feature_enabled')!;
  t.equal(gate.metric.find((x) => x.label!.some((l) => l.value === 'NativeHistograms'))!.gauge!.value, 0);
});

t.test('protobuf exposition: at most 160 native buckets', async (t) => {
  const m = new ComponentMetrics({ featureGates: new FeatureGates(), processMetrics: false });
  const h = m.histogram({ name: 'wide_seconds', help: 'Wide.', buckets: [1] });
  for (let i = 0; i < 3000; i++) h.observe({}, 1e-9 * 1.01 ** i);
  const fam = (await toMetricFamilies(m.registry, (f, l) => h.nativeSnapshot(l))).find((f) => f.name === 'wide_seconds')!;
  const hist = fam.metric[0]!.histogram!;
  const n = hist.positive_span!.reduce((a, s) => a + s.length, 0);
  t.ok(n <= 160 && n > 80, `${n} buckets`);
  t.ok(hist.schema! < 3, `schema ${hist.schema}`);
});

t.test('request labels: verb, resource, scope', async (t) => {
  t.match(requestLabels('GET', '/api/v1/namespaces'), { verb: 'LIST', group: '', version: 'v1', resource: 'namespaces', scope: 'cluster' });
  t.match(requestLabels('GET', '/api/v1/namespaces/default'), { verb: 'GET', resource: 'namespaces', scope: 'resource' });
  t.match(requestLabels('GET', '/api/v1/namespaces/default/status'), { verb: 'GET', resource: 'namespaces', subresource: 'status' });
  t.match(requestLabels('GET', '/apis/storage.orch.io/v1/storageclasses?watch=true'), { verb: 'WATCH', group: 'storage.orch.io', resource: 'storageclasses' });
  t.match(requestLabels('GET', '/apis/x.orch.io/v1/watch/namespaces/ns/things'), { verb: 'WATCH', resource: 'things', scope: 'namespace' });
  t.match(requestLabels('POST', '/apis/x.orch.io/v1/namespaces/ns/things'), { verb: 'POST', resource: 'things', scope: 'namespace' });
  t.match(requestLabels('GET', '/healthz'), { verb: 'GET', resource: '', scope: '' });
  t.match(requestLabels('GET', '/apis/x.orch.io/v1'), { resource: '' }, 'discovery is not a resource');
});

t.test('the reference serves /metrics with request metrics', async (t) => {
  // Without companions: their informers' lists (namespaces: the namespace controller) would count too.
  const ref = await startReference({ controllerManager: false, scheduler: false });
  t.teardown(() => ref.close());
  for (let i = 0; i < 3; i++) await (await fetch(`${ref.url}/api/v1/namespaces`)).text();
  await (await fetch(`${ref.url}/apis/storage.orch.io/v1/storageclasses/missing`)).text();
  await (await fetch(`${ref.url}/apis/nothing.orch.io/v1/whatever`)).text();
  const text = await (await fetch(`${ref.url}/metrics`)).text();
  t.match(text, /^apiserver_request_total\{verb="LIST",group="",version="v1",resource="namespaces",subresource="",scope="cluster",component="apiserver",code="200"\} 3$/m);
  t.match(text, /^apiserver_request_total\{verb="GET",group="storage.orch.io",version="v1",resource="storageclasses",subresource="",scope="resource",component="apiserver",code="404"\} 1$/m);
  t.notMatch(text, /whatever/, 'unknown resources do not become label values');
  t.match(text, /^apiserver_request_duration_seconds_bucket\{le="0.005",verb="LIST",.*code="200"\} \d+$/m);
  t.match(text, /^orch_build_info\{major="1",minor="37",git_version="v1.37.0",/m);
  t.match(text, /^process_start_time_seconds \d/m);

  const pb = await fetch(`${ref.url}/metrics`, { headers: { accept: PROMETHEUS_ACCEPT } });
  t.equal(pb.headers.get('content-type'), PROTOBUF_CONTENT_TYPE);
  const fams = decodeDelimited(new Uint8Array(await pb.arrayBuffer()));
  const lat = fams.find((f) => f.name === 'apiserver_request_duration_seconds')!;
  const list = lat.metric.find((x) => x.label!.some((l) => l.name === 'verb' && l.value === 'LIST'))!.histogram!;
  t.equal(list.schema, 3, 'schema 3 (bucket factor 1.1)');
  t.equal(decodeBuckets(list.positive_span!, list.positive_delta!).size > 0 || list.zero_count! > 0, true);

  const post = await fetch(`${ref.url}/metrics`, { method: 'POST' });
  t.equal(post.status, 405);
  t.match(await post.json(), { kind: 'Status', reason: 'MethodNotAllowed', code: 405 }, 'a Status, as every error');
  const head = await fetch(`${ref.url}/metrics`, { method: 'HEAD' });
  t.equal(head.status, 200);
});

t.test('the reference with NativeHistograms=false exposes no native data and says so', async (t) => {
  const ref = await startReference({ featureGates: { NativeHistograms: false } });
  t.teardown(() => ref.close());
  await (await fetch(`${ref.url}/api/v1/namespaces`)).text();
  const fams = decodeDelimited(new Uint8Array(await (await fetch(`${ref.url}/metrics`, { headers: { accept: PROTOBUF_CONTENT_TYPE } })).arrayBuffer()));
  for (const f of fams.filter((x) => x.type === 'HISTOGRAM')) for (const x of f.metric) t.equal(x.histogram!.schema, undefined, `${f.name}: no schema`);
  const text = await (await fetch(`${ref.url}/metrics`)).text();
  t.match(text, /^orch_feature_enabled\{name="NativeHistograms",stage="BETA"\} 0$/m);
});
