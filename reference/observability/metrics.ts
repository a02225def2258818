// Metrics of one component (API server now, node agent later): a prom-client Registry of its
// own, the gauges every component has (feature gates, build info, process), histograms that keep
// native-bucket state next to prom-client's classic buckets, and the /metrics handler that
// negotiates the exposition format. Nothing here knows what the component is: it registers its
// own metrics through `counter`, `gauge` and `histogram`.
import { methodNotAllowed } from '../apiserver/errors.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CounterConfiguration, GaugeConfiguration } from 'prom-client';
import { Counter, Gauge, Registry } from './prom.js';
import { SeriesCounter, SeriesHistogram, type HistogramSeries, type SeriesLabels } from './series.js';
import { expose, negotiateFormat, type NativeLookup } from './exposition.js';
import { MAX_SCHEMA, NativeHistogram, type NativeHistogramOptions, type NativeHistogramSnapshot } from './native-histogram.js';
import { broken } from './breaks.js';
import { GATES_1_37, type FeatureGates } from '../features.js';

export interface ComponentMetricsOptions {
  /** The component's gates: exposed as `orch_feature_enabled`, and NativeHistograms decides native exposition. */
  readonly featureGates: FeatureGates;
  /** Labels of `orch_build_info` (value 1), e.g. major, minor, git_version; none: no such metric. */
  readonly buildInfo?: Readonly<Record<string, string>>;
  /** process_start_time_seconds, process_cpu_seconds_total, process_resident_memory_bytes. Default on. */
  readonly processMetrics?: boolean;
}

export interface DualHistogramConfiguration<T extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly T[];
  /** Classic bucket upper bounds. */
  readonly buckets: readonly number[];
  /** Native bucket settings (client_golang-like); default bucket factor 1.1, 160 buckets. */
  readonly native?: NativeHistogramOptions;
}

function seriesKey(labels: Readonly<Record<string, string | number | undefined>>): string {
  return JSON.stringify(
    Object.entries(labels)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, String(v)])
      .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0)),
  );
}

/** A series' native settings: bucket factor 1.1 and 160 buckets unless the histogram says otherwise. */
function nativeOptions(own: NativeHistogramOptions | undefined): NativeHistogramOptions {
  return {
    bucketFactor: 1.1,
    ...own,
    // Test-only (breaks.ts): the finest resolution, where ordinary load goes past 160 buckets...
    ...(broken('native-schema-8') ? { schema: MAX_SCHEMA } : {}),
    // ...and no limit, so that the proof of the §8 limit sees a component that does not keep it.
    ...(broken('native-no-bucket-limit') ? { maxBuckets: Infinity } : {}),
  };
}

/**
 * A histogram observed into classic buckets and, while native histograms are on, into native-bucket
 * state per label set. `series` binds one label set for callers on a hot path.
 */
export class DualHistogram<T extends string = string> {
  readonly classic: SeriesHistogram<T>;
  private readonly native = new Map<string, NativeHistogram>();

  constructor(
    registry: Registry,
    private readonly cfg: DualHistogramConfiguration<T>,
    private readonly nativeEnabled: boolean,
  ) {
    this.classic = new SeriesHistogram<T>({ name: cfg.name, help: cfg.help, labelNames: cfg.labelNames ?? [], buckets: cfg.buckets, registry });
  }

  get name(): string {
    return this.cfg.name;
  }

  observe(labels: SeriesLabels<T>, value: number): void {
    this.series(labels).observe(value);
  }

  /** One label set, bound: observing through it skips the lookups. */
  series(labels: SeriesLabels<T>): HistogramSeries {
    const classic = this.classic.series(labels);
    if (!this.nativeEnabled) return classic;
    const key = seriesKey(labels);
    let h = this.native.get(key);
    if (!h) this.native.set(key, (h = new NativeHistogram(nativeOptions(this.cfg.native))));
    const native = h;
    return {
      observe(value: number) {
        classic.observe(value);
        native.observe(value);
      },
    };
  }

  /** The native state of one series (labels as exposed), if native histograms are on. */
  nativeSnapshot(labels: Readonly<Record<string, string>>): NativeHistogramSnapshot | undefined {
    return this.native.get(seriesKey(labels))?.snapshot();
  }
}

const STAGE_LABEL: Record<string, string> = { alpha: 'ALPHA', beta: 'BETA', GA: '' };

export class ComponentMetrics {
  readonly registry = new Registry();
  readonly nativeHistograms: boolean;
  private readonly histograms = new Map<string, DualHistogram<string>>();

  constructor(opts: ComponentMetricsOptions) {
    this.nativeHistograms = opts.featureGates.enabled('NativeHistograms');
    const gates = opts.featureGates.all();
    this.gauge({
      name: 'orch_feature_enabled',
      help: '[BETA] This metric records the data about the stage and enablement of a feature.',
      labelNames: ['name', 'stage'],
      collect() {
        for (const [name, on] of Object.entries(gates)) {
          this.set({ name, stage: STAGE_LABEL[GATES_1_37[name]?.stage ?? ''] ?? '' }, on ? 1 : 0);
        }
      },
    });
    if (opts.buildInfo) {
      const labels = opts.buildInfo;
      this.gauge({
        name: 'orch_build_info',
        help: '[ALPHA] A metric with a constant \'1\' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which the component was built, and platform on which it is running.',
        labelNames: Object.keys(labels),
        collect() {
          this.set(labels, 1);
        },
      });
    }
    if (opts.processMetrics ?? true) this.registerProcessMetrics();
  }

  counter<T extends string>(cfg: Omit<CounterConfiguration<T>, 'registers'>): Counter<T> {
    return new Counter<T>({ ...cfg, registers: [this.registry] });
  }

  /** A counter for hot paths: series bound once (series.ts). */
  seriesCounter<T extends string>(cfg: { name: string; help: string; labelNames?: readonly T[] }): SeriesCounter<T> {
    return new SeriesCounter<T>({ ...cfg, registry: this.registry });
  }

  gauge<T extends string>(cfg: Omit<GaugeConfiguration<T>, 'registers'>): Gauge<T> {
    return new Gauge<T>({ ...cfg, registers: [this.registry] });
  }

  histogram<T extends string>(cfg: DualHistogramConfiguration<T>): DualHistogram<T> {
    const h = new DualHistogram<T>(this.registry, cfg, this.nativeHistograms);
    this.histograms.set(cfg.name, h as unknown as DualHistogram<string>);
    return h;
  }

  private readonly nativeLookup: NativeLookup = (family, labels) => this.histograms.get(family)?.nativeSnapshot(labels);

  /** The exposition for an Accept header: body and Content-Type. */
  async scrape(accept: string | undefined): Promise<{ contentType: string; body: Buffer }> {
    return expose(this.registry, negotiateFormat(accept), this.nativeHistograms ? this.nativeLookup : undefined);
  }

  /** The /metrics handler (GET and HEAD). */
  readonly serve = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'application/json' });
      res.end(`${JSON.stringify(methodNotAllowed().status)}\n`);
      return;
    }
    this.scrape(req.headers.accept).then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': String(body.length), 'Cache-Control': 'no-cache, private' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (err: unknown) => {
        if (res.headersSent) return void res.destroy();
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(`error gathering metrics: ${err instanceof Error ? err.message : String(err)}\n`);
      },
    );
  };

  private registerProcessMetrics(): void {
    const start = Math.floor(performance.timeOrigin / 10) / 100;
    this.gauge({
      name: 'process_start_time_seconds',
      help: 'Start time of the process since unix epoch in seconds.',
      collect() {
        this.set(start);
      },
    });
    this.counter({
      name: 'process_cpu_seconds_total',
      help: 'Total user and system CPU time spent in seconds.',
      collect() {
        const { user, system } = process.cpuUsage();
        this.reset();
        this.inc((user + system) / 1e6);
      },
    });
    this.gauge({
      name: 'process_resident_memory_bytes',
      help: 'Resident memory size in bytes.',
      collect() {
        this.set(process.memoryUsage.rss());
      },
    });
  }
}
