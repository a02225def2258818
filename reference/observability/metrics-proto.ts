// The Prometheus exposition messages (metrics.proto: proto2, package io.prometheus.client),
// defined with protobufjs reflection, and the delimited framing: each MetricFamily preceded by
// its length as a uvarint. Field numbers as in upstream metrics.proto.
import type { Type } from 'protobufjs';
import { onFirstUse, protobuf } from '../packages.js';

const unpacked = { packed: false };

/**
 * The MetricFamily message type, built on first use (protobufjs loads only when a scraper asks for
 * protobuf). Repeated scalars are not packed (proto2 default), as client_golang writes them.
 */
export const metricFamilyType = onFirstUse((): Type => protobuf().Root.fromJSON({
  nested: {
    google: {
      nested: {
        protobuf: {
          nested: {
            Timestamp: { fields: { seconds: { type: 'int64', id: 1 }, nanos: { type: 'int32', id: 2 } } },
          },
        },
      },
    },
    io: {
      nested: {
        prometheus: {
          nested: {
            client: {
              nested: {
                MetricType: { values: { COUNTER: 0, GAUGE: 1, SUMMARY: 2, UNTYPED: 3, HISTOGRAM: 4, GAUGE_HISTOGRAM: 5 } },
                LabelPair: { fields: { name: { type: 'string', id: 1 }, value: { type: 'string', id: 2 } } },
                Gauge: { fields: { value: { type: 'double', id: 1 } } },
                Counter: {
                  fields: {
                    value: { type: 'double', id: 1 },
                    exemplar: { type: 'Exemplar', id: 2 },
                    created_timestamp: { type: 'google.protobuf.Timestamp', id: 3 },
                  },
                },
                Quantile: { fields: { quantile: { type: 'double', id: 1 }, value: { type: 'double', id: 2 } } },
                Summary: {
                  fields: {
                    sample_count: { type: 'uint64', id: 1 },
                    sample_sum: { type: 'double', id: 2 },
                    quantile: { rule: 'repeated', type: 'Quantile', id: 3 },
                    created_timestamp: { type: 'google.protobuf.Timestamp', id: 4 },
                  },
                },
                Untyped: { fields: { value: { type: 'double', id: 1 } } },
                Histogram: {
                  fields: {
                    sample_count: { type: 'uint64', id: 1 },
                    sample_sum: { type: 'double', id: 2 },
                    bucket: { rule: 'repeated', type: 'Bucket', id: 3 },
                    sample_count_float: { type: 'double', id: 4 },
                    schema: { type: 'sint32', id: 5 },
                    zero_threshold: { type: 'double', id: 6 },
                    zero_count: { type: 'uint64', id: 7 },
                    zero_count_float: { type: 'double', id: 8 },
                    negative_span: { rule: 'repeated', type: 'BucketSpan', id: 9 },
                    negative_delta: { rule: 'repeated', type: 'sint64', id: 10, options: unpacked },
                    negative_count: { rule: 'repeated', type: 'double', id: 11, options: unpacked },
                    positive_span: { rule: 'repeated', type: 'BucketSpan', id: 12 },
                    positive_delta: { rule: 'repeated', type: 'sint64', id: 13, options: unpacked },
                    positive_count: { rule: 'repeated', type: 'double', id: 14, options: unpacked },
                    created_timestamp: { type: 'google.protobuf.Timestamp', id: 15 },
                    exemplars: { rule: 'repeated', type: 'Exemplar', id: 16 },
                  },
                },
                Bucket: {
                  fields: {
                    cumulative_count: { type: 'uint64', id: 1 },
                    upper_bound: { type: 'double', id: 2 },
                    exemplar: { type: 'Exemplar', id: 3 },
                    cumulative_count_float: { type: 'double', id: 4 },
                  },
                },
                BucketSpan: { fields: { offset: { type: 'sint32', id: 1 }, length: { type: 'uint32', id: 2 } } },
                Exemplar: {
                  fields: {
                    label: { rule: 'repeated', type: 'LabelPair', id: 1 },
                    value: { type: 'double', id: 2 },
                    timestamp: { type: 'google.protobuf.Timestamp', id: 3 },
                  },
                },
                Metric: {
                  fields: {
                    label: { rule: 'repeated', type: 'LabelPair', id: 1 },
                    gauge: { type: 'Gauge', id: 2 },
                    counter: { type: 'Counter', id: 3 },
                    summary: { type: 'Summary', id: 4 },
                    untyped: { type: 'Untyped', id: 5 },
                    histogram: { type: 'Histogram', id: 7 },
                    timestamp_ms: { type: 'int64', id: 6 },
                  },
                },
                MetricFamily: {
                  fields: {
                    name: { type: 'string', id: 1 },
                    help: { type: 'string', id: 2 },
                    type: { type: 'MetricType', id: 3 },
                    metric: { rule: 'repeated', type: 'Metric', id: 4 },
                    unit: { type: 'string', id: 5 },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
}).lookupType('io.prometheus.client.MetricFamily'));

/** Content-Type of the delimited protobuf exposition. */
export const PROTOBUF_CONTENT_TYPE = 'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited';

export type MetricTypeName = 'COUNTER' | 'GAUGE' | 'SUMMARY' | 'UNTYPED' | 'HISTOGRAM' | 'GAUGE_HISTOGRAM';

// Plain-object shapes of the messages (field names as in metrics.proto; absent = not set).
export interface LabelPair { name: string; value: string }
export interface BucketSpanMsg { offset: number; length: number }
export interface BucketMsg { cumulative_count: number; upper_bound: number }
export interface HistogramMsg {
  sample_count?: number;
  sample_sum?: number;
  bucket?: BucketMsg[];
  schema?: number;
  zero_threshold?: number;
  zero_count?: number;
  negative_span?: BucketSpanMsg[];
  negative_delta?: number[];
  positive_span?: BucketSpanMsg[];
  positive_delta?: number[];
}
export interface SummaryMsg {
  sample_count?: number;
  sample_sum?: number;
  quantile?: { quantile: number; value: number }[];
}
export interface MetricMsg {
  label?: LabelPair[];
  gauge?: { value?: number };
  counter?: { value?: number };
  summary?: SummaryMsg;
  untyped?: { value?: number };
  histogram?: HistogramMsg;
  timestamp_ms?: number;
}
export interface MetricFamilyMsg {
  name: string;
  help?: string;
  type: MetricTypeName;
  metric: MetricMsg[];
  unit?: string;
}

/** The delimited stream: each family's encoding preceded by its uvarint length. */
export function encodeDelimited(families: readonly MetricFamilyMsg[]): Buffer {
  const type = metricFamilyType();
  const w = protobuf().Writer.create();
  for (const f of families) type.encodeDelimited(type.fromObject(f), w);
  return Buffer.from(w.finish());
}

/** Reads a delimited stream back into plain objects (int64 as numbers, enums as names). */
export function decodeDelimited(buf: Uint8Array): MetricFamilyMsg[] {
  const type = metricFamilyType();
  const r = protobuf().Reader.create(buf);
  const out: MetricFamilyMsg[] = [];
  while (r.pos < r.len) {
    const msg = type.decodeDelimited(r);
    out.push(type.toObject(msg, { longs: Number, enums: String, arrays: true }) as MetricFamilyMsg);
  }
  return out;
}
