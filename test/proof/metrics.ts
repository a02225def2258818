// For every /metrics case (spec 002 §4, §8, §9): a target broken in exactly the case's rule,
// rewriting the text or the delimited protobuf exposition on its way out.
import type { Breakage, ProxiedRequest, ProxiedResponse } from '../helpers/broken-target.js';
import { decodeDelimited, encodeDelimited, metricFamilyType, type HistogramMsg, type MetricFamilyMsg } from '../../reference/observability/metrics-proto.js';
import { unlimitedHistograms } from './metrics-native-limit.js';

const isMetrics = (r: ProxiedRequest) => r.path.split('?')[0] === '/metrics';
const contentType = (res: ProxiedResponse) => Object.entries(res.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';

/** Rewrites the text form (text/plain or OpenMetrics, as `type` says) of /metrics responses. */
export function text(type: RegExp, edit: (body: string) => string): Breakage {
  return {
    response: (r, res) => {
      if (isMetrics(r) && type.test(contentType(res))) res.body = edit(res.body);
    },
  };
}

/** Rewrites the decoded families of protobuf /metrics responses (binary bodies travel as latin1). */
export function protobuf(edit: (families: MetricFamilyMsg[]) => Buffer | void): Breakage {
  return {
    response: (r, res) => {
      if (!isMetrics(r) || !/protobuf/.test(contentType(res))) return;
      const families = decodeDelimited(Buffer.from(res.body, 'latin1'));
      const raw = edit(families);
      res.body = (raw ?? encodeDelimited(families)).toString('latin1');
    },
  };
}

export function histograms(families: MetricFamilyMsg[]): HistogramMsg[] {
  return families.filter((f) => f.type === 'HISTOGRAM').flatMap((f) => f.metric.map((m) => m.histogram!).filter(Boolean));
}

const isNative = (h: HistogramMsg) => (h.positive_span?.length ?? 0) + (h.negative_span?.length ?? 0) > 0 || (h.zero_threshold ?? 0) > 0 || (h.zero_count ?? 0) > 0;

export function stripNative(h: HistogramMsg): void {
  for (const k of ['schema', 'zero_threshold', 'zero_count', 'positive_span', 'positive_delta', 'negative_span', 'negative_delta'] as const) delete h[k];
}

/** The sint64 value whose zigzag encoding is `n`'s plain varint: deltas written as if unsigned. */
function unzigzag(n: number): number {
  return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
}

const dropBucketLines = (body: string) => body.split('\n').filter((l) => !/^[a-zA-Z_:][a-zA-Z0-9_:]*_bucket[{ ]/.test(l)).join('\n');

const setNativeGate = (value: string) => (body: string) =>
  body.replace(/^(orch_feature_enabled\{[^}]*name="NativeHistograms"[^}]*\}) \S+$/m, `$1 ${value}`);

export const metricsBreakages: Record<string, Breakage> = {
  // Histograms in text/plain without their _bucket series.
  'metrics.text.classic-buckets': text(/^text\/plain/, dropBucketLines),
  'metrics.openmetrics.classic-buckets': text(/^application\/openmetrics-text/, dropBucketLines),
  // Protobuf histograms reduced to classic buckets.
  'metrics.protobuf.native-and-classic': protobuf((fams) => histograms(fams).forEach(stripNative)),
  // The messages concatenated without their length prefixes.
  'metrics.protobuf.delimited': protobuf((fams) => Buffer.concat(fams.map((f) => Buffer.from(metricFamilyType().encode(metricFamilyType().fromObject(f)).finish())))),
  // Weighted Accept headers not honoured: anything with a list of types gets text.
  'metrics.protobuf.prometheus-accept': {
    request: (r) => {
      if (isMetrics(r) && (r.headers['accept'] ?? '').includes(',')) r.headers['accept'] = 'text/plain;version=0.0.4';
    },
  },
  // Gauge values written into the Counter field (3) instead of Gauge (2).
  'metrics.protobuf.message-fields': protobuf((fams) => {
    for (const f of fams.filter((x) => x.type === 'GAUGE')) for (const m of f.metric) {
      m.counter = m.gauge;
      delete m.gauge;
    }
  }),
  // Native deltas written as unsigned varints instead of sint64 (zigzag).
  'metrics.protobuf.histogram-fields': protobuf((fams) => {
    for (const h of histograms(fams)) if (h.positive_delta?.length) h.positive_delta[0] = unzigzag(h.positive_delta[0]!);
  }),
  // Next to the real series, an empty native histogram with zero threshold 0 and no span: it reads as classic.
  'metrics.native.recognisable-when-empty': protobuf((fams) => {
    const fam = fams.find((f) => f.type === 'HISTOGRAM' && f.metric.some((m) => m.histogram && isNative(m.histogram)));
    const like = fam?.metric.find((m) => m.histogram && isNative(m.histogram));
    if (!fam || !like) return;
    const h = like.histogram!;
    fam.metric.push({
      label: [...(like.label ?? []), { name: 'proof', value: 'empty' }],
      histogram: {
        sample_count: 0, sample_sum: 0, schema: h.schema, zero_threshold: 0, zero_count: 0,
        bucket: (h.bucket ?? []).map((b) => ({ ...b, cumulative_count: 0 })),
      },
    });
  }),
  // A schema past 8.
  'metrics.native.schema-range': protobuf((fams) => {
    for (const h of histograms(fams).filter(isNative)) h.schema = 9;
  }),
  // A reference whose native histograms never lower their resolution (metrics-native-limit.ts): the
  // case's own load takes its request latency histogram past 160 buckets.
  'metrics.native.bucket-limit': unlimitedHistograms,
  // Native bucket keys off by 40 (a factor of 32 at schema 3): not the (base^(i-1), base^i] buckets.
  'metrics.native.exponential-buckets': protobuf((fams) => {
    for (const h of histograms(fams)) if (h.positive_span?.length) h.positive_span[0]!.offset += 40;
  }),
  // Native data without the classic buckets next to it.
  'metrics.native.dual-exposition': protobuf((fams) => {
    for (const h of histograms(fams).filter(isNative)) h.bucket = [];
  }),
  'metrics.feature-enabled.on': text(/^(text\/plain|application\/openmetrics-text)/, setNativeGate('0')),
  'metrics.feature-enabled.off': text(/^(text\/plain|application\/openmetrics-text)/, setNativeGate('1')),
  // Native data exposed although the gate is off.
  'metrics.native.gate-off': protobuf((fams) => {
    for (const h of histograms(fams)) Object.assign(h, { schema: 3, zero_threshold: 2 ** -128, zero_count: 0 });
  }),
};
