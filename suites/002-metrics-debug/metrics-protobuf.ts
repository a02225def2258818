// A reader of the delimited protobuf metrics exposition (what Prometheus asks for), for cases that
// check what any component sends. Its messages come from the metrics.proto text below, parsed with
// protobufjs: independent of how the reference encodes. Also: native bucket decoding, and the
// checks Prometheus itself makes to tell a native histogram from a classic one.
import protobuf from 'protobufjs';
import type { ApiResponse } from '../../runner/client.js';
import type { CaseContext } from '../case.js';
import { expectCode, expectTrue, fail } from '../verify.js';
import { parseExposition, type Exposition } from './exposition.js';

const METRICS_PROTO = `
syntax = "proto2";
package io.prometheus.client;

message Timestamp { optional int64 seconds = 1; optional int32 nanos = 2; }
message LabelPair { optional string name = 1; optional string value = 2; }
enum MetricType { COUNTER = 0; GAUGE = 1; SUMMARY = 2; UNTYPED = 3; HISTOGRAM = 4; GAUGE_HISTOGRAM = 5; }
message Gauge { optional double value = 1; }
message Counter { optional double value = 1; optional Exemplar exemplar = 2; optional Timestamp created_timestamp = 3; }
message Quantile { optional double quantile = 1; optional double value = 2; }
message Summary { optional uint64 sample_count = 1; optional double sample_sum = 2; repeated Quantile quantile = 3; optional Timestamp created_timestamp = 4; }
message Untyped { optional double value = 1; }
message Histogram {
  optional uint64 sample_count = 1;
  optional double sample_count_float = 4;
  optional double sample_sum = 2;
  repeated Bucket bucket = 3;
  optional Timestamp created_timestamp = 15;
  optional sint32 schema = 5;
  optional double zero_threshold = 6;
  optional uint64 zero_count = 7;
  optional double zero_count_float = 8;
  repeated BucketSpan negative_span = 9;
  repeated sint64 negative_delta = 10;
  repeated double negative_count = 11;
  repeated BucketSpan positive_span = 12;
  repeated sint64 positive_delta = 13;
  repeated double positive_count = 14;
  repeated Exemplar exemplars = 16;
}
message Bucket { optional uint64 cumulative_count = 1; optional double cumulative_count_float = 4; optional double upper_bound = 2; optional Exemplar exemplar = 3; }
message BucketSpan { optional sint32 offset = 1; optional uint32 length = 2; }
message Exemplar { repeated LabelPair label = 1; optional double value = 2; optional Timestamp timestamp = 3; }
message Metric {
  repeated LabelPair label = 1;
  optional Gauge gauge = 2;
  optional Counter counter = 3;
  optional Summary summary = 4;
  optional Untyped untyped = 5;
  optional Histogram histogram = 7;
  optional int64 timestamp_ms = 6;
}
message MetricFamily { optional string name = 1; optional string help = 2; optional MetricType type = 3; repeated Metric metric = 4; optional string unit = 5; }
`;

const MetricFamily = protobuf.parse(METRICS_PROTO, { keepCase: true }).root.lookupType('io.prometheus.client.MetricFamily');

/** The media type and parameters Prometheus asks for. */
export const PROTOBUF_ACCEPT = 'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited';
/** Prometheus 2.x's Accept header with native histograms on (protobuf preferred by q-value). */
export const PROMETHEUS_ACCEPT = `${PROTOBUF_ACCEPT};q=0.5,application/openmetrics-text;version=1.0.0;q=0.4,application/openmetrics-text;version=0.0.1;q=0.3,text/plain;version=0.0.4;q=0.2,*/*;q=0.1`;

export interface Span { offset: number; length: number }
export interface PbHistogram {
  sample_count?: number;
  sample_count_float?: number;
  sample_sum?: number;
  bucket: { cumulative_count?: number; cumulative_count_float?: number; upper_bound?: number }[];
  schema?: number;
  zero_threshold?: number;
  zero_count?: number;
  zero_count_float?: number;
  negative_span: Span[];
  negative_delta: number[];
  negative_count: number[];
  positive_span: Span[];
  positive_delta: number[];
  positive_count: number[];
}
export interface PbMetric {
  label: { name?: string; value?: string }[];
  gauge?: { value?: number };
  counter?: { value?: number };
  summary?: { sample_count?: number; sample_sum?: number; quantile: { quantile?: number; value?: number }[] };
  untyped?: { value?: number };
  histogram?: PbHistogram;
  timestamp_ms?: number;
}
export interface PbFamily {
  name?: string;
  help?: string;
  type?: string;
  metric: PbMetric[];
  unit?: string;
}

/** Reads a uvarint at `pos`; undefined when the bytes end inside it or it is over 2^53. */
function uvarint(buf: Uint8Array, pos: number): { value: number; next: number } | undefined {
  let value = 0;
  let mul = 1;
  for (let i = pos; i < buf.length && i < pos + 8; i++) {
    const b = buf[i]!;
    value += (b & 0x7f) * mul;
    if ((b & 0x80) === 0) return { value, next: i + 1 };
    mul *= 128;
  }
  return undefined;
}

/**
 * Splits a delimited stream (each message preceded by its uvarint length) and decodes every
 * message as a MetricFamily. `error` says where the framing or a message went wrong.
 */
export function parseDelimited(buf: Uint8Array): { families: PbFamily[]; error?: string } {
  const families: PbFamily[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const len = uvarint(buf, pos);
    if (!len) return { families, error: `byte ${pos}: a uvarint length prefix does not end` };
    if (len.next + len.value > buf.length) {
      return { families, error: `byte ${pos}: message ${families.length + 1} claims ${len.value} bytes but only ${buf.length - len.next} follow` };
    }
    try {
      const msg = MetricFamily.decode(buf.subarray(len.next, len.next + len.value));
      families.push(MetricFamily.toObject(msg, { longs: Number, enums: String, arrays: true }) as PbFamily);
    } catch (err) {
      return { families, error: `message ${families.length + 1} (bytes ${len.next}..${len.next + len.value}): not a MetricFamily: ${(err as Error).message}` };
    }
    pos = len.next + len.value;
  }
  return { families };
}

/** The media type and its parameters, lower-cased names, quotes removed. */
export function parseMediaType(header: string | undefined): { type: string; params: Record<string, string> } {
  const [type = '', ...rest] = (header ?? '').split(';').map((s) => s.trim());
  const params: Record<string, string> = {};
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
  }
  return { type: type.toLowerCase(), params };
}

export function isProtobufResponse(res: ApiResponse): boolean {
  const { type, params } = parseMediaType(res.headers['content-type']);
  return type === 'application/vnd.google.protobuf' && params['proto'] === 'io.prometheus.client.MetricFamily' && params['encoding'] === 'delimited';
}

/** Absolute counts of the native buckets of one side, key to count (spans and deltas decoded). */
export function nativeBuckets(spans: readonly Span[], deltas: readonly number[]): { buckets: Map<number, number>; error?: string } {
  const buckets = new Map<number, number>();
  let key = 0;
  let count = 0;
  let i = 0;
  for (const s of spans) {
    key += s.offset ?? 0;
    for (let j = 0; j < (s.length ?? 0); j++) {
      if (i >= deltas.length) return { buckets, error: `spans cover more buckets than the ${deltas.length} deltas` };
      count += deltas[i++]!;
      if (count < 0) return { buckets, error: `bucket ${key} decodes to a negative count (${count})` };
      if (count > 0) buckets.set(key, count);
      key++;
    }
  }
  if (i !== deltas.length) return { buckets, error: `spans cover ${i} buckets but there are ${deltas.length} deltas` };
  return { buckets };
}

/** Prometheus's test: a histogram message carries native data (else it is read as classic). */
export function hasNativeData(h: PbHistogram): boolean {
  return h.positive_span.length + h.negative_span.length > 0 || (h.zero_threshold ?? 0) > 0 || (h.zero_count ?? 0) > 0 || (h.zero_count_float ?? 0) > 0;
}

export function labelsOf(m: PbMetric): Record<string, string> {
  return Object.fromEntries(m.label.map((l) => [l.name ?? '', l.value ?? '']));
}

/** `name{a="x",...}` for messages. */
export function seriesName(family: PbFamily, m: PbMetric): string {
  const l = m.label.map((p) => `${p.name}=${JSON.stringify(p.value ?? '')}`).join(',');
  return `${family.name}${l ? `{${l}}` : ''}`;
}

/** Every histogram series of the families. */
export function histogramSeries(families: readonly PbFamily[]): { family: PbFamily; metric: PbMetric; h: PbHistogram; series: string }[] {
  const out: { family: PbFamily; metric: PbMetric; h: PbHistogram; series: string }[] = [];
  for (const f of families) {
    if (f.type !== 'HISTOGRAM' && f.type !== 'GAUGE_HISTOGRAM') continue;
    for (const m of f.metric) if (m.histogram) out.push({ family: f, metric: m, h: m.histogram, series: seriesName(f, m) });
  }
  return out;
}

/**
 * GET /metrics once first, so that request metrics (and their histograms) have series, then
 * scrape with `accept`.
 */
export async function scrape(ctx: CaseContext, accept: string | undefined, warm = true): Promise<ApiResponse> {
  if (warm) await ctx.component().get('/metrics', { headers: { accept: 'text/plain' } });
  const res = await ctx.component().get('/metrics', { headers: { accept } });
  expectCode(res, 200, `GET /metrics with Accept: ${accept ?? '(none)'}`);
  return res;
}

/** A protobuf scrape, decoded; fails the case when the answer is not the delimited protobuf format. */
export async function scrapeProtobuf(ctx: CaseContext, accept = PROTOBUF_ACCEPT): Promise<PbFamily[]> {
  const res = await scrape(ctx, accept);
  expectTrue(isProtobufResponse(res), `GET /metrics with Accept: ${accept}: Content-Type`, PROTOBUF_ACCEPT, res.headers['content-type'] ?? '(none)');
  const { families, error } = parseDelimited(res.bytes);
  if (error) fail('GET /metrics (protobuf): the body is delimited MetricFamily messages', 'uvarint-length-prefixed MetricFamily messages', error);
  return families;
}

/** A text scrape, read with the strict text-format reader; fails the case on unreadable lines. */
export async function scrapeText(ctx: CaseContext, accept: string | undefined = 'text/plain;version=0.0.4'): Promise<{ res: ApiResponse; exp: Exposition }> {
  const res = await scrape(ctx, accept);
  // OpenMetrics: exemplars (` # {...} v`) are not part of the 0.0.4 reader's grammar.
  const text = parseMediaType(res.headers['content-type']).type === 'application/openmetrics-text' ? res.text.replace(/ # \{.*$/gm, '') : res.text;
  const exp = parseExposition(text);
  expectTrue(exp.errors.length === 0, `GET /metrics with Accept: ${accept ?? '(none)'}: readable text exposition`, 'no unreadable lines', exp.errors.slice(0, 5).join('; '));
  return { res, exp };
}
