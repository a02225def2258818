// /metrics exposition formats of a prom-client registry: content negotiation by Accept (as
// client_golang's expfmt.NegotiateIncludingOpenMetrics), the text formats rendered by prom-client,
// and the delimited protobuf format built here from prom-client's values plus native histogram
// state kept next to them.
import type { MetricObjectWithValues, MetricValue, MetricValueWithName, OpenMetricsContentType } from 'prom-client';
import { Registry } from './prom.js';
import {
  encodeDelimited,
  PROTOBUF_CONTENT_TYPE,
  type HistogramMsg,
  type LabelPair,
  type MetricFamilyMsg,
  type MetricMsg,
  type MetricTypeName,
} from './metrics-proto.js';
import type { NativeHistogramSnapshot } from './native-histogram.js';
import { parseMediaParams } from '../media-params.js';

export type ExpositionFormat = 'text' | 'openmetrics' | 'protobuf';

export const TEXT_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;
export const OPENMETRICS_CONTENT_TYPE = Registry.OPENMETRICS_CONTENT_TYPE;
export { PROTOBUF_CONTENT_TYPE };

interface AcceptEntry {
  readonly type: string;
  readonly subtype: string;
  readonly params: Readonly<Record<string, string>>;
  readonly q: number;
  readonly order: number;
}

/** Accept entries, best first: by q, then the more specific, then as written (goautoneg). */
export function parseAccept(header: string | undefined): AcceptEntry[] {
  const out: AcceptEntry[] = [];
  (header ?? '').split(',').forEach((part, order) => {
    const [range, ...rest] = part.split(';').map((s) => s.trim());
    if (!range) return;
    const [type = '', subtype = ''] = range.toLowerCase().split('/');
    const { params, q } = parseMediaParams(rest);
    if (q > 0) out.push({ type, subtype: subtype || '*', params, q, order });
  });
  const specificity = (e: AcceptEntry) => (e.type === '*' ? 0 : e.subtype === '*' ? 1 : 2);
  return out.sort((a, b) => b.q - a.q || specificity(b) - specificity(a) || a.order - b.order);
}

/**
 * The format to answer with: the first acceptable entry in preference order; anything unknown
 * (or no Accept at all) gets the classic text format, never 406.
 */
export function negotiateFormat(accept: string | undefined): ExpositionFormat {
  for (const e of parseAccept(accept)) {
    const media = `${e.type}/${e.subtype}`;
    const version = e.params['version'];
    if (media === 'application/vnd.google.protobuf' && e.params['proto'] === 'io.prometheus.client.MetricFamily' && e.params['encoding'] === 'delimited') {
      return 'protobuf';
    }
    if (media === 'text/plain' && (version === undefined || version === '' || version === '0.0.4')) return 'text';
    if (media === 'application/openmetrics-text' && (version === undefined || version === '' || version === '1.0.0' || version === '0.0.1')) return 'openmetrics';
  }
  return 'text';
}

export function contentTypeOf(format: ExpositionFormat): string {
  return format === 'protobuf' ? PROTOBUF_CONTENT_TYPE : format === 'openmetrics' ? OPENMETRICS_CONTENT_TYPE : TEXT_CONTENT_TYPE;
}

/** Prometheus text format 0.0.4: prom-client's own rendering, untouched. */
export function renderText(registry: Registry): Promise<string> {
  return registry.metrics();
}

/** What prom-client's registry holds and renders (its typings leave out `get` and the renderer). */
interface Collectable {
  get(): Promise<MetricObjectWithValues<MetricValue<string>>>;
}
interface Renderer {
  getMetricsAsString(metric: Collectable): Promise<string>;
}

function collectables(registry: Registry): Collectable[] {
  return registry.getMetricsAsArray() as unknown as Collectable[];
}

const openMetricsRenderer = new (Registry as unknown as new (contentType: OpenMetricsContentType) => Renderer)(Registry.OPENMETRICS_CONTENT_TYPE);

/**
 * OpenMetrics 1.0 rendered by prom-client, family by family. (prom-client's own OpenMetrics
 * `metrics()` renames counter objects in place, which would break the text format of a registry
 * that serves both; here each family is rendered from a copy of its values.)
 */
export async function renderOpenMetrics(registry: Registry): Promise<string> {
  const parts: string[] = [];
  for (const metric of collectables(registry)) {
    const data = await metric.get();
    const copy = { ...data, name: String(data.type) === 'counter' ? data.name.replace(/_total$/, '') : data.name };
    parts.push(await openMetricsRenderer.getMetricsAsString({ get: async () => copy }));
  }
  return `${parts.join('\n')}\n# EOF\n`;
}

/** Native state of the histogram series of one family, by label set. */
export type NativeLookup = (family: string, labels: Readonly<Record<string, string>>) => NativeHistogramSnapshot | undefined;

const TYPE_NAMES: Record<string, MetricTypeName> = {
  counter: 'COUNTER',
  gauge: 'GAUGE',
  histogram: 'HISTOGRAM',
  summary: 'SUMMARY',
};

type Labels = Record<string, string | number>;

function labelPairs(labels: Labels, drop?: string): LabelPair[] {
  return Object.entries(labels)
    .filter(([k]) => k !== drop)
    .map(([name, value]) => ({ name, value: String(value) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function seriesKey(pairs: readonly LabelPair[]): string {
  return JSON.stringify(pairs.map((p) => [p.name, p.value]));
}

function stringLabels(pairs: readonly LabelPair[]): Record<string, string> {
  return Object.fromEntries(pairs.map((p) => [p.name, p.value]));
}

function parseBound(le: string | number | undefined): number {
  if (le === '+Inf') return Infinity;
  if (le === '-Inf') return -Infinity;
  return Number(le);
}

/** Classic histogram (or summary) series grouped from prom-client's flat `_bucket`/`_sum`/`_count` values. */
function groupSeries(
  family: MetricObjectWithValues<MetricValue<string>>,
  by: 'le' | 'quantile',
): Map<string, { labels: LabelPair[]; items: MetricValueWithName<string>[] }> {
  const groups = new Map<string, { labels: LabelPair[]; items: MetricValueWithName<string>[] }>();
  for (const v of family.values as MetricValueWithName<string>[]) {
    const labels = labelPairs(v.labels as Labels, by);
    const key = seriesKey(labels);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { labels, items: [] }));
    g.items.push(v);
  }
  return groups;
}

function histogramMetric(name: string, labels: LabelPair[], items: MetricValueWithName<string>[], native: NativeHistogramSnapshot | undefined): MetricMsg {
  const h: HistogramMsg = { sample_count: 0, sample_sum: 0, bucket: [] };
  for (const it of items) {
    const metricName = it.metricName ?? name;
    if (metricName === `${name}_count`) h.sample_count = it.value;
    else if (metricName === `${name}_sum`) h.sample_sum = it.value;
    else if (metricName === `${name}_bucket`) {
      const upper = parseBound((it.labels as Labels)['le']);
      // The +Inf bucket is implied by sample_count (client_golang leaves it out too).
      if (upper !== Infinity) h.bucket!.push({ cumulative_count: it.value, upper_bound: upper });
    }
  }
  h.bucket!.sort((a, b) => a.upper_bound - b.upper_bound);
  if (native) {
    h.schema = native.schema;
    h.zero_threshold = native.zeroThreshold;
    h.zero_count = native.zeroCount;
    if (native.negativeSpans.length) {
      h.negative_span = native.negativeSpans.map((s) => ({ ...s }));
      h.negative_delta = [...native.negativeDeltas];
    }
    if (native.positiveSpans.length) {
      h.positive_span = native.positiveSpans.map((s) => ({ ...s }));
      h.positive_delta = [...native.positiveDeltas];
    }
  }
  return { label: labels, histogram: h };
}

function summaryMetric(name: string, labels: LabelPair[], items: MetricValueWithName<string>[]): MetricMsg {
  const quantile: { quantile: number; value: number }[] = [];
  let count = 0;
  let sum = 0;
  for (const it of items) {
    const metricName = it.metricName ?? name;
    if (metricName === `${name}_count`) count = it.value;
    else if (metricName === `${name}_sum`) sum = it.value;
    else quantile.push({ quantile: Number((it.labels as Labels)['quantile']), value: it.value });
  }
  return { label: labels, summary: { sample_count: count, sample_sum: sum, quantile } };
}

function compareMetrics(a: MetricMsg, b: MetricMsg): number {
  const ka = seriesKey(a.label ?? []);
  const kb = seriesKey(b.label ?? []);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** The registry's families as MetricFamily messages, sorted by name (client_golang's Gather order). */
export async function toMetricFamilies(registry: Registry, native?: NativeLookup): Promise<MetricFamilyMsg[]> {
  const out: MetricFamilyMsg[] = [];
  for (const metric of collectables(registry)) {
    const data = await metric.get();
    const type = TYPE_NAMES[String(data.type)] ?? 'UNTYPED';
    const fam: MetricFamilyMsg = { name: data.name, help: data.help, type, metric: [] };
    if (type === 'HISTOGRAM') {
      for (const { labels, items } of groupSeries(data, 'le').values()) {
        fam.metric.push(histogramMetric(data.name, labels, items, native?.(data.name, stringLabels(labels))));
      }
    } else if (type === 'SUMMARY') {
      for (const { labels, items } of groupSeries(data, 'quantile').values()) fam.metric.push(summaryMetric(data.name, labels, items));
    } else {
      for (const v of data.values) {
        const m: MetricMsg = { label: labelPairs(v.labels as Labels) };
        if (type === 'COUNTER') m.counter = { value: v.value };
        else if (type === 'GAUGE') m.gauge = { value: v.value };
        else m.untyped = { value: v.value };
        fam.metric.push(m);
      }
    }
    fam.metric.sort(compareMetrics);
    // client_golang leaves out families without any series.
    if (fam.metric.length > 0) out.push(fam);
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The whole exposition in one format. */
export async function expose(registry: Registry, format: ExpositionFormat, native?: NativeLookup): Promise<{ contentType: string; body: Buffer }> {
  let body: Buffer;
  if (format === 'protobuf') body = encodeDelimited(await toMetricFamilies(registry, native));
  else if (format === 'openmetrics') body = Buffer.from(await renderOpenMetrics(registry), 'utf8');
  else body = Buffer.from(await renderText(registry), 'utf8');
  return { contentType: contentTypeOf(format), body };
}
