// Informers, as client-go's: one list + watch per resource (bookmarks on, resumed from the last
// resourceVersion, relisted on 410), a cache of the current objects, and handlers told of adds,
// updates and deletes. A relist compares the new list with the cache, so handlers see deletes that
// happened while the watch was down. Controllers read the cache, never the server, to decide what to
// do, and write through the API with the resourceVersion they read (optimistic concurrency).
import type { ApiClient, Watch } from './api-client.js';

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; uid?: string; resourceVersion?: string; [k: string]: any };
  [field: string]: any;
}

export interface EventHandlers<T extends KubeObject = KubeObject> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

/** `namespace/name`, or `name` for cluster-scoped objects (client-go MetaNamespaceKeyFunc). */
export function keyOf(obj: { metadata: { name: string; namespace?: string } }): string {
  return obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj.metadata.name;
}

export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

export class Informer<T extends KubeObject = KubeObject> {
  private readonly cache = new Map<string, T>();
  private readonly handlers: EventHandlers<T>[] = [];
  private watch: Watch | undefined;
  private readonly indexes = new Map<string, { fn: (o: T) => string[]; map: Map<string, Set<string>> }>();

  constructor(
    private readonly client: ApiClient,
    /** The collection path, e.g. `/api/v1/pods` (all namespaces). */
    readonly path: string,
    private readonly log: (message: string, err?: unknown) => void = () => undefined,
  ) {}

  addEventHandler(h: EventHandlers<T>): void {
    this.handlers.push(h);
    // Handlers added after the start see the current objects as adds, as in client-go.
    if (this.watch) for (const o of this.cache.values()) h.onAdd?.(o);
  }

  /** An index: `fn` gives the index values of an object; `byIndex` finds objects by one. */
  addIndex(name: string, fn: (o: T) => string[]): void {
    const map = new Map<string, Set<string>>();
    for (const [k, o] of this.cache) for (const v of fn(o)) addTo(map, v, k);
    this.indexes.set(name, { fn, map });
  }

  byIndex(name: string, value: string): T[] {
    const idx = this.indexes.get(name);
    if (!idx) throw new Error(`no index ${name} on ${this.path}`);
    return [...(idx.map.get(value) ?? [])].map((k) => this.cache.get(k)!).filter(Boolean);
  }

  get(namespace: string, name: string): T | undefined {
    return this.cache.get(namespace ? `${namespace}/${name}` : name);
  }

  getByKey(key: string): T | undefined {
    return this.cache.get(key);
  }

  list(): T[] {
    return [...this.cache.values()];
  }

  /** Starts list + watch; resolves once the first list is in the cache (HasSynced). */
  start(): Promise<void> {
    if (this.watch) return this.watch.synced;
    this.watch = this.client.watch(this.path, {
      onList: (items) => this.replace(items as T[]),
      onEvent: (ev) => {
        const obj = ev.object as T;
        if (ev.type === 'DELETED') this.remove(keyOf(obj), obj);
        else this.upsert(obj);
      },
      onError: (err) => this.log(`watch ${this.path} restarted`, err),
    });
    return this.watch.synced;
  }

  stop(): void {
    this.watch?.stop();
  }

  private replace(items: T[]): void {
    const seen = new Set<string>();
    for (const o of items) {
      seen.add(keyOf(o));
      this.upsert(o);
    }
    for (const [k, o] of [...this.cache]) if (!seen.has(k)) this.remove(k, o);
  }

  private upsert(obj: T): void {
    const k = keyOf(obj);
    const old = this.cache.get(k);
    if (old && old.metadata.resourceVersion === obj.metadata.resourceVersion) return;
    this.cache.set(k, obj);
    for (const idx of this.indexes.values()) {
      if (old) for (const v of idx.fn(old)) idx.map.get(v)?.delete(k);
      for (const v of idx.fn(obj)) addTo(idx.map, v, k);
    }
    for (const h of this.handlers) {
      try {
        if (old) h.onUpdate?.(old, obj);
        else h.onAdd?.(obj);
      } catch (err) {
        this.log(`handler of ${this.path} failed`, err);
      }
    }
  }

  private remove(k: string, last: T): void {
    const old = this.cache.get(k);
    if (!old) return;
    this.cache.delete(k);
    for (const idx of this.indexes.values()) for (const v of idx.fn(old)) idx.map.get(v)?.delete(k);
    for (const h of this.handlers) {
      try {
        h.onDelete?.(last ?? old);
      } catch (err) {
        this.log(`handler of ${this.path} failed`, err);
      }
    }
  }
}

function addTo(map: Map<string, Set<string>>, v: string, k: string): void {
  let s = map.get(v);
  if (!s) map.set(v, (s = new Set()));
  s.add(k);
}

/**
 * One informer per collection path, shared by every controller of a process (client-go
 * SharedInformerFactory). `scope()` gives a controller a view that records which informers it asked
 * for, so that each controller starts once its own informers have synced (upstream's
 * WaitForCacheSync per controller), whatever happens to the others.
 */
export class InformerFactory {
  private readonly requested = new Set<string>();

  constructor(
    private readonly client: ApiClient,
    private readonly log: (message: string, err?: unknown) => void = () => undefined,
    private readonly informers: Map<string, Informer<any>> = new Map(),
  ) {}

  for<T extends KubeObject = KubeObject>(path: string): Informer<T> {
    this.requested.add(path);
    let inf = this.informers.get(path);
    if (!inf) this.informers.set(path, (inf = new Informer<T>(this.client, path, this.log)));
    return inf as Informer<T>;
  }

  /** A view sharing these informers that records what its user asks for. */
  scope(): InformerFactory {
    return new InformerFactory(this.client, this.log, this.informers);
  }

  /** Starts every informer asked for so far (through any scope); resolves once all have synced. */
  async start(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.start()));
  }

  /** Starts the informers this factory (or scope) asked for; resolves once those have synced. */
  async synced(): Promise<void> {
    await Promise.all([...this.requested].map((p) => this.informers.get(p)!.start()));
  }

  /** The collection paths this factory (or scope) asked for. */
  paths(): string[] {
    return [...this.requested];
  }

  stop(): void {
    for (const i of this.informers.values()) i.stop();
  }
}
