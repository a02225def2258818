// The storage metrics upstream's API server records around its etcd store, for any backend:
// etcd_request_duration_seconds and etcd_requests_total by operation and type (the collection's key
// prefix, `/registry/<group>/<resource>`), etcd_request_errors_total, and apiserver_storage_objects
// per resource (counted when scraped, as upstream counts on a timer). A decorator, so that memory and
// etcd are measured alike and neither knows about metrics.
import type { ComponentMetrics, DualHistogram } from '../observability/metrics.js';
import type { CounterSeries, HistogramSeries, SeriesCounter } from '../observability/series.js';
import type { KeyValue, ListOptions, ListResult, Storage, WatchHandle, WatchListener } from './types.js';

/** Upstream's buckets of etcd_request_duration_seconds. */
const BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/** The collection a key or prefix belongs to: `/registry/<group>/<resource>`, the metric's `type`. */
export function storageType(key: string): string {
  const parts = key.split('/');
  // ['', 'registry', group, resource, ...]
  return parts.length >= 4 && parts[1] === 'registry' ? `/registry/${parts[2]}/${parts[3]}` : key;
}

type Operation = 'get' | 'create' | 'update' | 'delete' | 'list' | 'watch' | 'compact';

interface Bound {
  readonly duration: HistogramSeries;
  readonly total: CounterSeries;
  readonly errors: CounterSeries;
}

/** The metric families, registered once on a component's metrics. */
export class StorageMetrics {
  private readonly duration: DualHistogram<'operation' | 'type'>;
  private readonly total: SeriesCounter<'operation' | 'type'>;
  private readonly errors: SeriesCounter<'operation' | 'type'>;
  private readonly bound = new Map<string, Bound>();

  /**
   * `resources`: the collections whose objects apiserver_storage_objects counts, by the resource
   * label upstream gives them (`pods`, `storageclasses.storage.orch.io`) and their key prefix.
   */
  constructor(m: ComponentMetrics, storage: () => Storage, resources: () => ReadonlyArray<{ resource: string; prefix: string }>) {
    this.duration = m.histogram({
      name: 'etcd_request_duration_seconds',
      help: '[ALPHA] Etcd request latency in seconds for each operation and object type.',
      labelNames: ['operation', 'type'],
      buckets: BUCKETS,
    });
    this.total = m.seriesCounter({ name: 'etcd_requests_total', help: '[ALPHA] Etcd request counts for each operation and object type.', labelNames: ['operation', 'type'] });
    this.errors = m.seriesCounter({ name: 'etcd_request_errors_total', help: '[ALPHA] Etcd failed request counts for each operation and object type.', labelNames: ['operation', 'type'] });
    m.gauge({
      name: 'apiserver_storage_objects',
      help: '[STABLE] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
      labelNames: ['resource'],
      async collect() {
        for (const { resource, prefix } of resources()) {
          try {
            this.set({ resource }, await countKeys(storage(), prefix));
          } catch {
            this.set({ resource }, -1);
          }
        }
      },
    });
  }

  series(operation: Operation, type: string): Bound {
    const key = `${operation} ${type}`;
    let b = this.bound.get(key);
    if (!b) {
      const labels = { operation, type };
      b = { duration: this.duration.series(labels), total: this.total.series(labels), errors: this.errors.series(labels) };
      this.bound.set(key, b);
    }
    return b;
  }
}

/** Live keys under a prefix, paged so that a large collection is not read in one piece. */
async function countKeys(storage: Storage, prefix: string): Promise<number> {
  const first = await storage.list(prefix, { limit: 1 });
  if (first.count !== undefined) return first.count;
  let n = 0;
  let startKey: string | undefined;
  let revision: number | undefined;
  for (;;) {
    const page = await storage.list(prefix, { limit: 1000, startKey, revision });
    n += page.items.length;
    if (!page.more || page.items.length === 0) return n;
    revision = page.revision;
    startKey = `${page.items[page.items.length - 1]!.key}\0`;
  }
}

export class InstrumentedStorage implements Storage {
  /** Recorded into from when the component's metrics exist (the store is built before them). */
  metrics: StorageMetrics | undefined;

  constructor(private readonly inner: Storage) {}

  get shared(): boolean | undefined {
    return this.inner.shared;
  }

  get deliversInsideWrites(): boolean | undefined {
    return this.inner.deliversInsideWrites;
  }

  private async measure<T>(operation: Operation, key: string, call: () => Promise<T>): Promise<T> {
    if (!this.metrics) return call();
    const s = this.metrics.series(operation, storageType(key));
    const started = performance.now();
    s.total.inc();
    try {
      return await call();
    } catch (err) {
      s.errors.inc();
      throw err;
    } finally {
      s.duration.observe((performance.now() - started) / 1000);
    }
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }

  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }

  create(key: string, value: string): Promise<KeyValue> {
    return this.measure('create', key, () => this.inner.create(key, value));
  }

  get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined> {
    return this.measure('get', key, () => this.inner.get(key, opts));
  }

  update(key: string, value: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.measure('update', key, () => this.inner.update(key, value, expectedModRevision));
  }

  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.measure('delete', key, () => this.inner.delete(key, expectedModRevision));
  }

  list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    return this.measure('list', prefix, () => this.inner.list(prefix, opts));
  }

  watch(prefix: string, fromRevision: number, listener: WatchListener): Promise<WatchHandle> {
    return this.measure('watch', prefix, () => this.inner.watch(prefix, fromRevision, listener));
  }

  compact(revision: number): Promise<void> {
    return this.measure('compact', '', () => this.inner.compact(revision));
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
