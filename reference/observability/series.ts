// Counters and classic histograms for hot paths. prom-client's own Counter and Histogram validate
// and hash the label object on every call, which cost the API server about 5 µs a request; here a
// series is found once by a string key and then updated in place through a bound handle. Both
// register into the component's prom-client Registry and hand it exactly the shapes its Counter and
// Histogram do (`get`, and `getForPromString` for histograms), so every exposition format (text,
// OpenMetrics, protobuf) renders them as before.
import type { Registry } from 'prom-client';

export type SeriesLabels<T extends string> = Partial<Record<T, string | number>>;

/** prom-client's rendering of one sample. */
interface SampleValue {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string | number>;
  value: number;
  metricName?: string;
  exemplar?: null;
}

interface MetricData {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: SampleValue[];
  aggregator: 'sum';
}

interface FamilyOptions<T extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly T[];
  readonly registry: Registry;
}

/** The label values of a series in label-name order, joined: its identity within the family. */
function keyOf<T extends string>(labelNames: readonly T[], labels: SeriesLabels<T>): string {
  let key = '';
  for (const n of labelNames) key += `${labels[n] ?? ''}\u0001`;
  return key;
}

/** The labels as exposed: every declared name that has a value, in declaration order. */
function exposedLabels<T extends string>(labelNames: readonly T[], labels: SeriesLabels<T>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const n of labelNames) if (labels[n] !== undefined) out[n] = labels[n]!;
  return out;
}

abstract class Family<T extends string, S> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly T[];
  readonly aggregator = 'sum' as const;
  protected readonly all = new Map<string, { labels: Record<string, string | number>; state: S }>();

  constructor(opts: FamilyOptions<T>) {
    this.name = opts.name;
    this.help = opts.help;
    this.labelNames = opts.labelNames ?? [];
    (opts.registry as unknown as { registerMetric(m: unknown): void }).registerMetric(this);
  }

  protected state(labels: SeriesLabels<T>): S {
    const key = keyOf(this.labelNames, labels);
    let s = this.all.get(key);
    if (!s) {
      for (const n of Object.keys(labels)) {
        if (!this.labelNames.includes(n as T)) throw new Error(`Added label "${n}" is not included in initial labelset: ${JSON.stringify(this.labelNames)}`);
      }
      s = { labels: exposedLabels(this.labelNames, labels), state: this.fresh() };
      this.all.set(key, s);
    }
    return s.state;
  }

  protected abstract fresh(): S;

  /** prom-client's Registry.resetMetrics. */
  reset(): void {
    this.all.clear();
  }
}

interface CounterState {
  value: number;
}

export interface CounterSeries {
  inc(by?: number): void;
}

export class SeriesCounter<T extends string = string> extends Family<T, CounterState> {
  readonly type = 'counter' as const;

  /** A handle on one series; keep it where the same labels recur. */
  series(labels: SeriesLabels<T>): CounterSeries {
    const s = this.state(labels);
    return {
      inc(by = 1) {
        if (!(by >= 0) || !Number.isFinite(by)) throw new Error('It is not possible to decrease a counter');
        s.value += by;
      },
    };
  }

  inc(labels: SeriesLabels<T>, by = 1): void {
    this.series(labels).inc(by);
  }

  protected fresh(): CounterState {
    return { value: 0 };
  }

  async get(): Promise<MetricData> {
    const values = [...this.all.values()].map(({ labels, state }) => ({ labels: { ...labels }, value: state.value }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

interface HistogramState {
  /** Per bucket (not cumulative); the last slot counts what is above every bound. */
  readonly counts: number[];
  sum: number;
  count: number;
}

export interface HistogramSeries {
  observe(value: number): void;
}

export class SeriesHistogram<T extends string = string> extends Family<T, HistogramState> {
  readonly type = 'histogram' as const;
  private readonly bounds: readonly number[];

  constructor(opts: FamilyOptions<T> & { readonly buckets: readonly number[] }) {
    super(opts);
    this.bounds = [...opts.buckets].sort((a, b) => a - b);
  }

  series(labels: SeriesLabels<T>): HistogramSeries {
    const s = this.state(labels);
    const bounds = this.bounds;
    return {
      observe(value: number) {
        if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
        let i = 0;
        while (i < bounds.length && value > bounds[i]!) i++;
        s.counts[i]!++;
        s.sum += value;
        s.count++;
      },
    };
  }

  observe(labels: SeriesLabels<T>, value: number): void {
    this.series(labels).observe(value);
  }

  protected fresh(): HistogramState {
    return { counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 };
  }

  /** As prom-client's Histogram: bucket samples carry `le`, the series labels ride as sharedLabels. */
  async getForPromString(): Promise<MetricData> {
    const values: SampleValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, state } of this.all.values()) {
      let acc = 0;
      this.bounds.forEach((le, i) => {
        acc += state.counts[i]!;
        values.push({ labels: { le }, sharedLabels: labels, value: acc, metricName: bucket, exemplar: null });
      });
      values.push(
        { labels: { le: '+Inf' }, sharedLabels: labels, value: state.count, metricName: bucket, exemplar: null },
        { labels: {}, sharedLabels: labels, value: state.sum, metricName: `${this.name}_sum` },
        { labels: {}, sharedLabels: labels, value: state.count, metricName: `${this.name}_count` },
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** As prom-client's Histogram.get: the series labels merged into each sample's, after `le`. */
  async get(): Promise<MetricData> {
    const data = await this.getForPromString();
    data.values = data.values.map(({ sharedLabels, labels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } }));
    return data;
  }
}
