// Spec 002 §4 (/metrics and its content negotiation), §8 (native histogram bucket limit) and §9
// (NativeHistograms gate, dual exposition, orch_feature_enabled): what a component's /metrics
// sends in the text formats and in the delimited protobuf format Prometheus asks for.
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectEqual, expectTrue, fail, show } from '../verify.js';
import { samplesOf, type Exposition } from './exposition.js';
import { debugCase, everyComponent } from './debug-common.js';
import {
  hasNativeData,
  histogramSeries,
  isProtobufResponse,
  labelsOf,
  nativeBuckets,
  parseDelimited,
  parseMediaType,
  PROMETHEUS_ACCEPT,
  PROTOBUF_ACCEPT,
  scrape,
  scrapeProtobuf,
  scrapeText,
  type PbFamily,
  type PbHistogram,
} from './metrics-protobuf.js';

const common = { ...debugCase, suite: 'metrics' } as const;
const s4 = { doc: '002', section: '4' } as const;
const NATIVE_ON = { NativeHistograms: true } as const;
const NATIVE_OFF = { NativeHistograms: false } as const;
const MAX_BUCKETS = 160;

/**
 * Every histogram family of a text exposition has classic series: `_bucket` samples with `le`,
 * ending in +Inf whose count is the series' `_count`, cumulative counts never decreasing.
 * Returns how many series were checked.
 */
function expectClassicHistograms(exp: Exposition, what: string): number {
  const hists = [...exp.families.entries()].filter(([, f]) => f.type === 'histogram').map(([name]) => name);
  let series = 0;
  for (const name of hists) {
    const groups = new Map<string, { le: number; value: number }[]>();
    for (const s of samplesOf(exp, `${name}_bucket`)) {
      const { le, ...rest } = s.labels;
      if (le === undefined) fail(`${what}: ${name}_bucket sample has an le label`, 'le="<upper bound>"', show(s.labels));
      const key = JSON.stringify(Object.entries(rest).sort());
      const bound = le === '+Inf' ? Infinity : Number(le);
      if (Number.isNaN(bound)) fail(`${what}: ${name}_bucket le is a number`, 'a float or +Inf', le);
      (groups.get(key) ?? groups.set(key, []).get(key)!).push({ le: bound, value: s.value });
    }
    const counts = samplesOf(exp, `${name}_count`);
    if (counts.length > 0) expectTrue(groups.size > 0, `${what}: histogram ${name} has classic buckets`, `${name}_bucket{le=...} samples`, `only ${name}_count/${name}_sum`);
    for (const [key, buckets] of groups) {
      series++;
      buckets.sort((a, b) => a.le - b.le);
      const labels = Object.fromEntries(JSON.parse(key) as [string, string][]);
      const where = `${what}: ${name}_bucket${show(labels)}`;
      expectTrue(buckets[buckets.length - 1]!.le === Infinity, `${where} ends with le="+Inf"`, 'a +Inf bucket', buckets.map((b) => b.le).join(', '));
      for (let i = 1; i < buckets.length; i++) {
        expectTrue(buckets[i]!.value >= buckets[i - 1]!.value, `${where}: cumulative counts do not decrease`, `count at le=${buckets[i]!.le} >= count at le=${buckets[i - 1]!.le}`, `${buckets[i]!.value} < ${buckets[i - 1]!.value}`);
      }
      const count = counts.find((c) => JSON.stringify(Object.entries(c.labels).sort()) === key);
      if (count) expectEqual(buckets[buckets.length - 1]!.value, count.value, `${where}: the +Inf bucket equals ${name}_count`);
    }
  }
  expectTrue(series > 0, `${what}: at least one histogram with classic buckets`, 'a histogram family with _bucket series', hists.length ? `histogram families without series: ${hists.join(', ')}` : 'no histogram family');
  return series;
}

/** Histogram series of a protobuf scrape that carry native data; fails when there is none. */
function nativeSeries(families: readonly PbFamily[], what: string) {
  const all = histogramSeries(families);
  const native = all.filter((s) => hasNativeData(s.h));
  expectTrue(native.length > 0, `${what}: a histogram with native buckets (NativeHistograms on)`, 'a Histogram message with spans, a zero threshold or a zero count', all.length ? `${all.length} histogram series, none native` : 'no histogram family');
  return native;
}

/** Native bucket counts of one histogram; fails on a bad span/delta encoding. */
function decodedNative(h: PbHistogram, where: string) {
  const pos = nativeBuckets(h.positive_span, h.positive_delta);
  if (pos.error) fail(`${where}: positive spans and deltas decode`, 'one delta per bucket the spans cover, counts >= 0', pos.error);
  const neg = nativeBuckets(h.negative_span, h.negative_delta);
  if (neg.error) fail(`${where}: negative spans and deltas decode`, 'one delta per bucket the spans cover, counts >= 0', neg.error);
  return { positive: pos.buckets, negative: neg.buckets };
}

function sum(m: Map<number, number>): number {
  let n = 0;
  for (const v of m.values()) n += v;
  return n;
}

/** Batch sizes of driveLatencies, 8 to 64 requests at once, and the requests of each size. */
const DRIVE_WIDTHS = [8, 16, 32, 64];
const DRIVE_PER_WIDTH = 128;
/** The drive stops after this long on a slow target: it is load, and the check comes after it. */
const DRIVE_BUDGET_MS = 8_000;

/**
 * Load that goes past 160 native buckets unless the component limits them (spec 002 §8): GETs of
 * one object that does not exist (404, or 403 where reading is refused; nothing is created), 512
 * in 30 rounds of 8 to 64 at once, so that their latencies spread over several doublings within
 * one series of the component's request latency histogram. At the finest resolution the spec
 * allows (schema 8, 256 buckets per doubling) they populate some 400 buckets; a component keeps to
 * 160 by lowering the resolution (or widening its zero bucket). A component that does not time
 * the requests it serves (only those it makes) is left as it was, and its histograms are still
 * checked.
 */
async function driveLatencies(ctx: CaseContext): Promise<void> {
  const path = `/api/v1/namespaces/${ctx.namespace}/configmaps/${ctx.uniqueName('absent')}`;
  const first = ctx.api.exchanges.length;
  const deadline = performance.now() + DRIVE_BUDGET_MS;
  for (const width of DRIVE_WIDTHS) {
    for (let i = 0; i < DRIVE_PER_WIDTH / width && performance.now() < deadline; i++) {
      await Promise.all(Array.from({ length: width }, () => ctx.component().get(path)));
    }
  }
  // The same GET hundreds of times says no more in a report than its first two.
  ctx.api.exchanges.splice(first + 2);
}

async function featureEnabled(ctx: CaseContext, want: 0 | 1): Promise<void> {
  const { exp } = await scrapeText(ctx);
  expectEqual(exp.families.get('orch_feature_enabled')?.type, 'gauge', '# TYPE of orch_feature_enabled');
  const s = samplesOf(exp, 'orch_feature_enabled').filter((x) => x.labels['name'] === 'NativeHistograms');
  expectTrue(s.length === 1, 'orch_feature_enabled{name="NativeHistograms"}', 'exactly one series', `${s.length} series`);
  expectEqual(s[0]!.value, want, `orch_feature_enabled{name="NativeHistograms"} with the gate ${want ? 'on' : 'off'}`);
}

export const metricsCases: Case[] = everyComponent([
  // ---------------------------------------------------------------- §4 /metrics, text types
  defineCase({
    ...common,
    id: 'metrics.text.classic-buckets',
    title: '/metrics with Accept: text/plain answers the text format, histograms as classic buckets',
    requirements: ['002-4-metrics-text-classic'],
    spec: s4,
    level: 'MUST',
    async run(ctx) {
      const { res, exp } = await scrapeText(ctx, 'text/plain;version=0.0.4');
      expectEqual(parseMediaType(res.headers['content-type']).type, 'text/plain', 'Content-Type of /metrics for Accept: text/plain');
      expectClassicHistograms(exp, 'text/plain /metrics');
    },
  }),
  defineCase({
    ...common,
    id: 'metrics.openmetrics.classic-buckets',
    title: '/metrics with Accept: application/openmetrics-text (1.0) answers a text format, histograms as classic buckets',
    requirements: ['002-4-metrics-text-classic'],
    spec: s4,
    level: 'MUST',
    async run(ctx) {
      const accept = 'application/openmetrics-text;version=1.0.0';
      const { res, exp } = await scrapeText(ctx, accept);
      const type = parseMediaType(res.headers['content-type']).type;
      expectTrue(type === 'application/openmetrics-text' || type === 'text/plain', `Content-Type of /metrics for Accept: ${accept}`, 'application/openmetrics-text (or text/plain)', res.headers['content-type'] ?? '(none)');
      if (type === 'application/openmetrics-text') expectTrue(/^# EOF$/m.test(res.text.trimEnd().split('\n').pop() ?? ''), 'OpenMetrics ends with # EOF', '# EOF as the last line', res.text.slice(-100));
      expectClassicHistograms(exp, `${type} /metrics`);
    },
  }),

  // ---------------------------------------------------------------- §4 /metrics, protobuf
  defineCase({
    ...common,
    id: 'metrics.protobuf.native-and-classic',
    title: '/metrics with Accept: application/vnd.google.protobuf (MetricFamily, delimited) answers classic buckets and native histogram data',
    requirements: ['002-4-metrics-protobuf-native'],
    spec: s4,
    level: 'MUST',
    gates: NATIVE_ON,
    async run(ctx) {
      const families = await scrapeProtobuf(ctx);
      const both = nativeSeries(families, 'protobuf /metrics').filter((s) => s.h.bucket.length > 0);
      expectTrue(both.length > 0, 'protobuf /metrics: a histogram with classic buckets and native data', 'a Histogram message with both bucket[] and spans', 'native histograms without classic buckets');
    },
  }),
  defineCase({
    ...common,
    id: 'metrics.protobuf.delimited',
    title: 'the protobuf exposition is Content-Type application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited, each message preceded by its uvarint length',
    requirements: ['002-4-metrics-protobuf-content-type'],
    spec: s4,
    level: 'SHOULD',
    async run(ctx) {
      const res = await scrape(ctx, PROTOBUF_ACCEPT);
      const { type, params } = parseMediaType(res.headers['content-type']);
      expectEqual({ type, proto: params['proto'], encoding: params['encoding'] }, { type: 'application/vnd.google.protobuf', proto: 'io.prometheus.client.MetricFamily', encoding: 'delimited' }, 'Content-Type of the protobuf exposition');
      const { families, error } = parseDelimited(res.bytes);
      if (error) fail('the body is a sequence of uvarint-length-prefixed MetricFamily messages', 'every length prefix followed by exactly one message, nothing left over', error);
      expectTrue(families.length > 0, 'the protobuf exposition has metric families', 'at least one MetricFamily', `${res.bytes.length} bytes, no family`);
      const unnamed = families.filter((f) => !f.name);
      expectTrue(unnamed.length === 0, 'every MetricFamily has a name (field 1)', 'a name', `${unnamed.length} of ${families.length} without`);
    },
  }),
  defineCase({
    ...common,
    id: 'metrics.protobuf.prometheus-accept',
    title: '/metrics honours weighted Accept: protobuf for Prometheus\'s header (protobuf q=0.5 first), text when text has the higher q',
    requirements: ['002-4-metrics-prometheus-accept'],
    spec: s4,
    level: 'SHOULD',
    async run(ctx) {
      const res = await scrape(ctx, PROMETHEUS_ACCEPT);
      expectTrue(isProtobufResponse(res), 'Content-Type for Prometheus\'s Accept header', PROTOBUF_ACCEPT, res.headers['content-type'] ?? '(none)');
      const { error } = parseDelimited(res.bytes);
      if (error) fail('the answer to Prometheus\'s Accept header is delimited protobuf', 'delimited MetricFamily messages', error);
      const textFirst = `text/plain;version=0.0.4;q=0.5,${PROTOBUF_ACCEPT};q=0.2,*/*;q=0.1`;
      const res2 = await scrape(ctx, textFirst, false);
      expectEqual(parseMediaType(res2.headers['content-type']).type, 'text/plain', `Content-Type for Accept: ${textFirst}`);
    },
  }),
  defineCase({
    ...common,
    id: 'metrics.protobuf.message-fields',
    title: 'protobuf MetricFamily messages use metrics.proto\'s fields: name, help, type, and per metric the value field of its type, matching the text exposition',
    requirements: ['002-4-metrics-proto-messages'],
    spec: s4,
    level: 'SHOULD',
    async run(ctx) {
      const { exp } = await scrapeText(ctx);
      const families = await scrapeProtobuf(ctx);
      const field: Record<string, keyof PbFamily['metric'][number]> = {
        COUNTER: 'counter', GAUGE: 'gauge', SUMMARY: 'summary', UNTYPED: 'untyped', HISTOGRAM: 'histogram', GAUGE_HISTOGRAM: 'histogram',
      };
      const valueFields = ['counter', 'gauge', 'summary', 'untyped', 'histogram'] as const;
      for (const f of families) {
        expectTrue(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(f.name ?? ''), 'MetricFamily.name (field 1) is a metric name', 'a metric name', show(f.name));
        const want = field[f.type ?? ''];
        if (!want) fail(`${f.name}: MetricFamily.type (field 3) is a MetricType`, 'COUNTER 0, GAUGE 1, SUMMARY 2, UNTYPED 3, HISTOGRAM 4 or GAUGE_HISTOGRAM 5', show(f.type));
        for (const m of f.metric) {
          const set = valueFields.filter((k) => m[k] !== undefined);
          expectEqual(set, [want], `${f.name}${show(labelsOf(m))}: the value fields of a ${f.type} Metric`);
          for (const l of m.label) expectTrue(typeof l.name === 'string' && l.name !== '' && typeof l.value === 'string', `${f.name}: LabelPair{name 1, value 2}`, 'a name and a value', show(l));
        }
      }
      // The same families as the text format says, of the same types.
      const byName = new Map(families.map((f) => [f.name, f]));
      const textType: Record<string, string> = { counter: 'COUNTER', gauge: 'GAUGE', histogram: 'HISTOGRAM', summary: 'SUMMARY' };
      let compared = 0;
      for (const [name, fam] of exp.families) {
        const want = textType[fam.type ?? ''];
        if (!want) continue;
        const own = exp.samples.some((s) => s.name === name || s.name.startsWith(`${name}_`));
        if (!own) continue;
        const pb = byName.get(name);
        if (!pb) fail(`text family ${name} in the protobuf exposition`, `a MetricFamily named ${name}`, `families: ${[...byName.keys()].slice(0, 30).join(', ')}`);
        expectEqual(pb.type, want, `MetricFamily ${name}: type as in the text format`);
        compared++;
      }
      expectTrue(compared > 0, 'text and protobuf expositions have families in common', 'at least one family', 'none');
    },
  }),
  defineCase({
    ...common,
    id: 'metrics.protobuf.histogram-fields',
    title: 'protobuf Histogram messages: classic buckets by cumulative count and upper bound, native spans (sint32 offset, uint32 length) and sint64 deltas that add up to sample_count',
    requirements: ['002-4-metrics-proto-histogram'],
    spec: s4,
    level: 'SHOULD',
    gates: NATIVE_ON,
    async run(ctx) {
      const families = await scrapeProtobuf(ctx);
      nativeSeries(families, 'protobuf /metrics');
      for (const { h, series } of histogramSeries(families)) {
        const count = h.sample_count ?? h.sample_count_float;
        expectTrue(count !== undefined, `${series}: sample_count (field 1)`, 'set', 'absent');
        let prev = -Infinity;
        let prevCount = 0;
        for (const b of h.bucket) {
          const c = b.cumulative_count ?? b.cumulative_count_float ?? 0;
          expectTrue((b.upper_bound ?? NaN) > prev, `${series}: classic buckets by increasing upper_bound (field 2)`, `> ${prev}`, show(b.upper_bound));
          expectTrue(c >= prevCount && c <= count!, `${series}: cumulative_count (field 1) of le=${b.upper_bound}`, `between ${prevCount} and sample_count ${count}`, String(c));
          prev = b.upper_bound!;
          prevCount = c;
        }
        if (!hasNativeData(h)) continue;
        const { positive, negative } = decodedNative(h, series);
        const total = sum(positive) + sum(negative) + (h.zero_count ?? h.zero_count_float ?? 0);
        expectEqual(total, count, `${series}: native bucket counts (decoded from spans and deltas) plus zero_count add up to sample_count`);
        expectTrue((h.zero_threshold ?? 0) >= 0, `${series}: zero_threshold (field 6)`, '>= 0', show(h.zero_threshold));
      }
    },
  }),
  defineCase({
    ...common,
    id: 'metrics.native.recognisable-when-empty',
    title: 'a native histogram is recognisable as native even when empty: with zero_threshold 0 and nothing observed it carries one span {offset 0, length 0}',
    requirements: ['002-4-native-histogram-empty-span'],
    spec: s4,
    level: 'SHOULD',
    gates: NATIVE_ON,
    async run(ctx) {
      const families = await scrapeProtobuf(ctx);
      nativeSeries(families, 'protobuf /metrics');
      for (const { h, series } of histogramSeries(families)) {
        if (h.schema === undefined) continue;
        expectTrue(hasNativeData(h), `${series}: a histogram with a schema (field 5) reads as native`, 'zero_threshold > 0, a zero count, or a span (an empty one with zero_threshold 0: positive_span [{offset 0, length 0}])', `zero_threshold ${show(h.zero_threshold)}, zero_count ${show(h.zero_count)}, no spans`);
      }
    },
  }),
  defineCase({
    ...common,
    id: 'metrics.native.schema-range',
    title: 'native histogram schemas are within -4..8',
    requirements: ['002-4-native-histogram-buckets'],
    spec: s4,
    level: 'SHOULD',
    gates: NATIVE_ON,
    async run(ctx) {
      for (const { h, series } of nativeSeries(await scrapeProtobuf(ctx), 'protobuf /metrics')) {
        expectTrue(Number.isInteger(h.schema) && h.schema! >= -4 && h.schema! <= 8, `${series}: schema (field 5)`, 'an integer in -4..8', show(h.schema));
      }
    },
  }),

  // ---------------------------------------------------------------- §8 limits
  defineCase({
    ...common,
    id: 'metrics.native.bucket-limit',
    title: 'a native histogram has at most 160 buckets',
    requirements: ['002-8-native-histogram-buckets'],
    spec: { doc: '002', section: '8' },
    level: 'MUST',
    gates: NATIVE_ON,
    async run(ctx) {
      await driveLatencies(ctx);
      for (const { h, series } of nativeSeries(await scrapeProtobuf(ctx), 'protobuf /metrics')) {
        const { positive, negative } = decodedNative(h, series);
        const n = positive.size + negative.size;
        expectTrue(n <= MAX_BUCKETS, `${series}: populated native buckets (positive plus negative)`, `at most ${MAX_BUCKETS}`, String(n));
      }
    },
  }),

  // ---------------------------------------------------------------- §9 versioning and native histograms
  defineCase({
    ...common,
    id: 'metrics.native.exponential-buckets',
    title: 'native buckets have exponential boundaries: bucket i covers (base^(i-1), base^i] with base 2^(2^-schema), consistent with the classic buckets of the same histogram',
    requirements: ['002-9-native-histograms-exponential'],
    spec: { doc: '002', section: '9' },
    level: 'MUST',
    gates: NATIVE_ON,
    async run(ctx) {
      let checked = 0;
      for (const { h, series } of nativeSeries(await scrapeProtobuf(ctx), 'protobuf /metrics')) {
        expectTrue(Number.isInteger(h.schema), `${series}: schema (field 5) names the exponential base`, 'an integer schema', show(h.schema));
        const base = 2 ** (2 ** -h.schema!);
        const { positive, negative } = decodedNative(h, series);
        const zero = h.zero_count ?? h.zero_count_float ?? 0;
        const thr = h.zero_threshold ?? 0;
        // Rounding at the boundaries only ever widens the accepted range.
        const tol = (x: number, le: number) => 1e-9 * Math.max(Math.abs(x), Math.abs(le));
        const surelyBelow = (x: number, le: number) => x <= le - tol(x, le);
        const maybeBelow = (x: number, le: number) => x < le + tol(x, le) || x <= le;
        // Observations at most le: certainly those of buckets entirely below it, possibly those of
        // a bucket that straddles it. The classic cumulative count must lie in between.
        for (const b of h.bucket) {
          const le = b.upper_bound!;
          const cum = b.cumulative_count ?? b.cumulative_count_float ?? 0;
          // The zero bucket holds [-threshold, threshold].
          let surely = surelyBelow(thr, le) ? zero : 0;
          let maybe = maybeBelow(-thr, le) ? zero : 0;
          for (const [k, c] of positive) {
            if (surelyBelow(base ** k, le)) surely += c;
            if (maybeBelow(base ** (k - 1), le)) maybe += c;
          }
          for (const [k, c] of negative) {
            if (surelyBelow(-(base ** (k - 1)), le)) surely += c;
            if (maybeBelow(-(base ** k), le)) maybe += c;
          }
          expectTrue(cum >= surely && cum <= maybe, `${series}: classic count at le=${le} against native buckets of schema ${h.schema} (base ${base})`, `between ${surely} and ${maybe}`, String(cum));
          checked++;
        }
      }
      expectTrue(checked > 0, 'native histograms with classic buckets to compare', 'at least one classic bucket next to native data', 'none');
    },
  }),
  defineCase({
    ...common,
    id: 'metrics.native.dual-exposition',
    title: 'with NativeHistograms on, histograms are exposed in both formats: native data next to classic buckets in protobuf, classic buckets in text',
    requirements: ['002-9-dual-exposition'],
    spec: { doc: '002', section: '9' },
    level: 'MUST',
    gates: NATIVE_ON,
    async run(ctx) {
      const families = await scrapeProtobuf(ctx);
      const native = nativeSeries(families, 'protobuf /metrics');
      for (const { h, series } of native) {
        expectTrue(h.bucket.length > 0, `${series}: classic buckets next to the native data`, 'bucket[] (field 3) entries', 'native data only');
      }
      const { exp } = await scrapeText(ctx);
      for (const name of new Set(native.map((s) => s.family.name!))) {
        expectEqual(exp.families.get(name)?.type, 'histogram', `text /metrics: # TYPE of ${name}`);
        expectTrue(samplesOf(exp, `${name}_bucket`).length > 0, `text /metrics: classic buckets of ${name}`, `${name}_bucket samples`, 'none');
      }
    },
  }),
  defineCase({
    ...common,
    id: 'metrics.feature-enabled.on',
    title: 'orch_feature_enabled{name="NativeHistograms"} is a gauge with value 1 while the gate is on',
    requirements: ['002-9-feature-enabled-metric'],
    spec: { doc: '002', section: '9' },
    level: 'MUST',
    gates: NATIVE_ON,
    async run(ctx) {
      await featureEnabled(ctx, 1);
    },
  }),
  defineCase({
    ...common,
    id: 'metrics.feature-enabled.off',
    title: 'orch_feature_enabled{name="NativeHistograms"} is 0 while the gate is off',
    requirements: ['002-9-feature-enabled-metric'],
    spec: { doc: '002', section: '9' },
    level: 'MUST',
    gates: NATIVE_OFF,
    async run(ctx) {
      await featureEnabled(ctx, 0);
    },
  }),
  defineCase({
    ...common,
    id: 'metrics.native.gate-off',
    title: 'with NativeHistograms off, the protobuf exposition carries classic buckets only, no native data',
    requirements: ['002-9-native-histograms-disable', '002-9-native-histograms-gate'],
    spec: { doc: '002', section: '9' },
    level: 'MUST',
    gates: NATIVE_OFF,
    async run(ctx) {
      const all = histogramSeries(await scrapeProtobuf(ctx));
      expectTrue(all.some((s) => s.h.bucket.length > 0), 'protobuf /metrics: histograms still exposed, as classic buckets', 'a Histogram with bucket[] entries', all.length ? 'histograms without classic buckets' : 'no histogram family');
      for (const { h, series } of all) {
        expectTrue(!hasNativeData(h) && h.schema === undefined, `${series}: no native data with NativeHistograms off`, 'no schema, zero threshold, zero count or spans', `schema ${show(h.schema)}, zero_threshold ${show(h.zero_threshold)}, ${h.positive_span.length + h.negative_span.length} spans`);
      }
    },
  }),
]);
