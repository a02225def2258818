// One stored collection seen through a second resource (upstream: one etcd store, several API
// versions converted on the way in and out). The core v1 Event is served from the events.orch.io/v1
// collection this way: its store reads and writes keys under its own prefix, and this decorator maps
// them onto the stored collection's prefix and converts every value both ways. Revisions, watches,
// compaction and errors are the inner storage's, so both views share one history.
import type { KeyValue, ListOptions, ListResult, Storage, StorageEvent, WatchHandle, WatchListener } from './types.js';

/** How values of the view relate to the stored ones (JSON objects, metadata untouched). */
export interface ValueCodec {
  /** A value written through the view, as it is stored. */
  toStored(view: Record<string, unknown>): Record<string, unknown>;
  /** A stored value, as the view shows it. */
  fromStored(stored: Record<string, unknown>): Record<string, unknown>;
}

export class ConvertedStorage implements Storage {
  private latest: { readonly in: StorageEvent; readonly out: StorageEvent } | undefined;

  constructor(
    private readonly inner: Storage,
    /** The view's key prefix (`/registry/core/events/`). */
    private readonly viewPrefix: string,
    /** Where the values really are (`/registry/events.orch.io/events/`). */
    private readonly storedPrefix: string,
    private readonly codec: ValueCodec,
  ) {}

  get shared(): boolean | undefined {
    return this.inner.shared;
  }
  get deliversInsideWrites(): boolean | undefined {
    return this.inner.deliversInsideWrites;
  }
  get backend(): 'etcd' | undefined {
    return this.inner.backend;
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }
  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }

  async create(key: string, value: string): Promise<KeyValue> {
    return this.out(await this.inner.create(this.inKey(key), this.inValue(value)));
  }
  async get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined> {
    const kv = await this.inner.get(this.inKey(key), opts);
    return kv && this.out(kv);
  }
  async update(key: string, value: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.out(await this.inner.update(this.inKey(key), this.inValue(value), expectedModRevision));
  }
  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.out(await this.inner.delete(this.inKey(key), expectedModRevision));
  }
  async list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    const res = await this.inner.list(this.inKey(prefix), opts?.startKey === undefined ? opts : { ...opts, startKey: this.inKey(opts.startKey) });
    return { ...res, items: res.items.map((kv) => this.out(kv)) };
  }
  watch(prefix: string, fromRevision: number, listener: WatchListener): Promise<WatchHandle> {
    return this.inner.watch(this.inKey(prefix), fromRevision, {
      onEvent: (ev: StorageEvent) => {
        // One converted event per inner event, for every watcher of the view (they are told one after
        // the other): those above decode and encode an event object once for all its watchers
        // (list-watch.ts). Only the latest is kept, so the inner storage's history holds no copies.
        let out = this.latest?.in === ev ? this.latest.out : undefined;
        if (!out) {
          out = {
            ...ev,
            key: this.outKey(ev.key),
            ...(ev.value !== undefined ? { value: this.outValue(ev.value) } : {}),
            ...(ev.prevValue !== undefined ? { prevValue: this.outValue(ev.prevValue) } : {}),
          };
          this.latest = { in: ev, out };
        }
        listener.onEvent(out);
      },
      onClose: (err) => listener.onClose(err),
    });
  }
  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }
  /** The inner storage is shared with the stored collection's own store: closing is its owner's. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  private inKey(key: string): string {
    return key.startsWith(this.viewPrefix) ? this.storedPrefix + key.slice(this.viewPrefix.length) : key;
  }
  private outKey(key: string): string {
    return key.startsWith(this.storedPrefix) ? this.viewPrefix + key.slice(this.storedPrefix.length) : key;
  }
  private out(kv: KeyValue): KeyValue {
    return { ...kv, key: this.outKey(kv.key), value: this.outValue(kv.value) };
  }

  /** A value that does not parse passes unchanged, so the store above reports it as corrupt. */
  private inValue(value: string): string {
    return convert(value, this.codec.toStored);
  }
  private outValue(value: string): string {
    return convert(value, this.codec.fromStored);
  }
}

function convert(value: string, f: (o: Record<string, unknown>) => Record<string, unknown>): string {
  let obj: unknown;
  try {
    obj = JSON.parse(value);
  } catch {
    return value;
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return value;
  return JSON.stringify(f(obj as Record<string, unknown>));
}
