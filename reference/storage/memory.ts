// In-memory MVCC storage modelled on etcd: every write gets the next global revision, each key
// keeps its versions for as long as they are inside the history window, and an event log lets
// watches resume from any revision inside the window. Reads and watches from before the window
// fail with `Compacted`, which the API server turns into 410 Expired.
import {
  StorageError,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Storage,
  type StorageEvent,
  type WatchHandle,
  type WatchListener,
} from './types.js';

export interface MemoryStorageOptions {
  /** Keep at most this many revisions of history (etcd's revision-based auto-compaction). */
  historyRevisions?: number;
  /** Drop history older than this (the apiserver's periodic compaction); 0 disables. */
  historyMs?: number;
}

const DEFAULT_HISTORY_REVISIONS = 100_000;
// Upstream compacts etcd every 5 minutes; continue tokens are documented to last 5-15 minutes.
const DEFAULT_HISTORY_MS = 5 * 60_000;

interface Version {
  readonly rev: number;
  readonly createRev: number;
  /** null marks a deletion (tombstone). */
  readonly value: string | null;
}

interface LoggedEvent extends StorageEvent {
  readonly time: number;
}

interface Watcher {
  readonly prefix: string;
  readonly listener: WatchListener;
  /** Highest revision delivered: guards against double delivery when a watch starts mid-write. */
  lastRevision: number;
  active: boolean;
}

export class MemoryStorage implements Storage {
  readonly deliversInsideWrites = true;
  private revision = 0;
  private compacted = 0;
  private readonly keys = new Map<string, Version[]>();
  /** Every key that has a version in the window, sorted, for prefix scans in key order. */
  private sortedKeys: string[] = [];
  /**
   * Keys created since the last read of sortedKeys, unsorted: a create appends here (O(1)) and the
   * next scan merges them in (O(n + k log k)), where inserting each into the sorted array would move
   * the whole array on every create.
   */
  private newKeys: string[] = [];
  /** Keys with more than one version or a tombstone: the only ones compaction has work on. */
  private readonly historied = new Set<string>();
  /** Events with revision > compacted; log[i] has revision compacted + 1 + (i - logHead). */
  private log: LoggedEvent[] = [];
  private logHead = 0;
  private readonly watchers = new Set<Watcher>();
  private readonly maxRevisions: number;
  private readonly maxAgeMs: number;
  private readonly timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(opts: MemoryStorageOptions = {}) {
    this.maxRevisions = Math.max(1, opts.historyRevisions ?? DEFAULT_HISTORY_REVISIONS);
    this.maxAgeMs = opts.historyMs ?? DEFAULT_HISTORY_MS;
    if (this.maxAgeMs > 0) {
      // Time-based compaction only needs to be roughly on time; a timer keeps it off the write path.
      this.timer = setInterval(() => this.compactByAge(), Math.max(10, Math.floor(this.maxAgeMs / 10)));
      this.timer.unref();
    }
  }

  async currentRevision(): Promise<number> {
    this.checkOpen();
    return this.revision;
  }

  async compactedRevision(): Promise<number> {
    this.checkOpen();
    return this.compacted;
  }

  async create(key: string, value: string): Promise<KeyValue> {
    this.checkOpen();
    let versions = this.keys.get(key);
    const last = versions?.[versions.length - 1];
    if (last && last.value !== null) {
      throw new StorageError('KeyExists', `key exists: ${key}`, { key, actual: last.rev });
    }
    const rev = ++this.revision;
    if (!versions) {
      versions = [];
      this.keys.set(key, versions);
      this.insertSortedKey(key);
    } else {
      this.historied.add(key);
    }
    versions.push({ rev, createRev: rev, value });
    this.emit({ type: 'ADDED', key, revision: rev, value, time: Date.now() });
    return { key, value, createRevision: rev, modRevision: rev };
  }

  async get(key: string, opts: { revision?: number } = {}): Promise<KeyValue | undefined> {
    this.checkOpen();
    const rev = this.readRevision(opts.revision);
    const v = this.visibleAt(key, rev);
    return v && v.value !== null ? { key, value: v.value, createRevision: v.createRev, modRevision: v.rev } : undefined;
  }

  async update(key: string, value: string, expectedModRevision?: number): Promise<KeyValue> {
    this.checkOpen();
    const { versions, last } = this.live(key, expectedModRevision);
    const rev = ++this.revision;
    versions.push({ rev, createRev: last.createRev, value });
    this.historied.add(key);
    this.emit({ type: 'MODIFIED', key, revision: rev, value, prevValue: last.value as string, time: Date.now() });
    return { key, value, createRevision: last.createRev, modRevision: rev };
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    this.checkOpen();
    const { versions, last } = this.live(key, expectedModRevision);
    const rev = ++this.revision;
    versions.push({ rev, createRev: last.createRev, value: null });
    this.historied.add(key);
    const prev = last.value as string;
    this.emit({ type: 'DELETED', key, revision: rev, prevValue: prev, time: Date.now() });
    return { key, value: prev, createRevision: last.createRev, modRevision: rev };
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    this.checkOpen();
    const rev = this.readRevision(opts.revision);
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
    const from = opts.startKey !== undefined && opts.startKey > prefix ? opts.startKey : prefix;
    const items: KeyValue[] = [];
    let more = false;
    const sorted = this.sorted();
    for (let i = lowerBound(sorted, from); i < sorted.length; i++) {
      const key = sorted[i]!;
      if (!key.startsWith(prefix)) break;
      const v = this.visibleAt(key, rev);
      if (!v || v.value === null) continue;
      if (items.length === limit) {
        more = true;
        break;
      }
      items.push({ key, value: v.value, createRevision: v.createRev, modRevision: v.rev });
    }
    return { items, revision: rev, more };
  }

  async watch(prefix: string, fromRevision: number, listener: WatchListener): Promise<WatchHandle> {
    this.checkOpen();
    if (fromRevision < this.compacted) {
      throw new StorageError('Compacted', `required revision ${fromRevision} has been compacted`, {
        requested: fromRevision,
        compacted: this.compacted,
        current: this.revision,
      });
    }
    if (fromRevision > this.revision) {
      throw new StorageError('FutureRevision', `revision ${fromRevision} is in the future`, {
        requested: fromRevision,
        current: this.revision,
      });
    }
    const w: Watcher = { prefix, listener, lastRevision: fromRevision, active: true };
    // Replay and registration happen in one synchronous step, so no write can fall in between.
    for (let i = this.logHead + (fromRevision - this.compacted); i < this.log.length; i++) {
      const ev = this.log[i]!;
      if (ev.key.startsWith(prefix)) this.deliver(w, ev);
      if (!w.active) break;
    }
    w.lastRevision = this.revision;
    if (w.active) this.watchers.add(w);
    return {
      stop: () => {
        w.active = false;
        this.watchers.delete(w);
      },
    };
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    this.compactTo(revision);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    for (const w of this.watchers) {
      w.active = false;
      try {
        w.listener.onClose();
      } catch {
        // A listener failing while being told to go away changes nothing.
      }
    }
    this.watchers.clear();
  }

  private checkOpen(): void {
    if (this.closed) throw new StorageError('Closed', 'storage is closed');
  }

  private readRevision(requested: number | undefined): number {
    if (requested === undefined || requested === 0) return this.revision;
    if (requested < this.compacted) {
      throw new StorageError('Compacted', `required revision ${requested} has been compacted`, {
        requested,
        compacted: this.compacted,
        current: this.revision,
      });
    }
    if (requested > this.revision) {
      throw new StorageError('FutureRevision', `revision ${requested} is in the future`, {
        requested,
        current: this.revision,
      });
    }
    return requested;
  }

  private visibleAt(key: string, rev: number): Version | undefined {
    const versions = this.keys.get(key);
    if (!versions) return undefined;
    const last = versions[versions.length - 1]!;
    if (last.rev <= rev) return last;
    // Older read: the last version at or before `rev`.
    let lo = 0;
    let hi = versions.length - 1;
    let found: Version | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = versions[mid]!;
      if (v.rev <= rev) {
        found = v;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  private live(key: string, expected: number | undefined): { versions: Version[]; last: Version } {
    const versions = this.keys.get(key);
    const last = versions?.[versions.length - 1];
    if (!versions || !last || last.value === null) {
      throw new StorageError('KeyNotFound', `key not found: ${key}`, { key });
    }
    if (expected !== undefined && last.rev !== expected) {
      throw new StorageError('Conflict', `key ${key} is at revision ${last.rev}, expected ${expected}`, {
        key,
        requested: expected,
        actual: last.rev,
      });
    }
    return { versions, last };
  }

  private emit(ev: LoggedEvent): void {
    this.log.push(ev);
    for (const w of this.watchers) {
      if (ev.key.startsWith(w.prefix)) this.deliver(w, ev);
    }
    const excess = this.revision - this.compacted - this.maxRevisions;
    // Compact in batches so the per-write cost stays amortised O(1).
    if (excess > Math.max(1, this.maxRevisions >> 3)) this.compactTo(this.revision - this.maxRevisions);
  }

  private deliver(w: Watcher, ev: StorageEvent): void {
    if (!w.active || ev.revision <= w.lastRevision) return;
    w.lastRevision = ev.revision;
    try {
      w.listener.onEvent(ev);
    } catch (err) {
      // One broken consumer must not break the write that triggered it or other watchers.
      w.active = false;
      this.watchers.delete(w);
      try {
        w.listener.onClose(new StorageError('Closed', `watch listener failed: ${(err as Error).message}`));
      } catch {
        // ignore
      }
    }
  }

  private compactByAge(): void {
    if (this.closed || this.maxAgeMs <= 0) return;
    const cutoff = Date.now() - this.maxAgeMs;
    // The log is in time order, so binary-search the last event older than the cutoff.
    let lo = this.logHead;
    let hi = this.log.length - 1;
    let target = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.log[mid]!.time < cutoff) {
        target = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (target >= 0) this.compactTo(this.log[target]!.revision);
  }

  private compactTo(revision: number): void {
    const target = Math.min(revision, this.revision);
    if (target <= this.compacted) return;
    let removedKeys = false;
    for (const key of this.historied) {
      const versions = this.keys.get(key)!;
      // Keep the version visible at `target` and everything after it.
      let keepFrom = 0;
      for (let i = versions.length - 1; i >= 0; i--) {
        if (versions[i]!.rev <= target) {
          keepFrom = i;
          break;
        }
      }
      if (keepFrom > 0) versions.splice(0, keepFrom);
      if (versions[0]!.value === null && versions[0]!.rev <= target) versions.shift();
      if (versions.length === 0) {
        this.keys.delete(key);
        this.historied.delete(key);
        removedKeys = true;
      } else if (versions.length === 1 && versions[0]!.value !== null) {
        this.historied.delete(key);
      }
    }
    if (removedKeys) this.sortedKeys = this.sorted().filter((k) => this.keys.has(k));
    this.logHead += target - this.compacted;
    this.compacted = target;
    // Reclaim the dropped log prefix once it dominates the array.
    if (this.logHead > 1024 && this.logHead * 2 > this.log.length) {
      this.log = this.log.slice(this.logHead);
      this.logHead = 0;
    }
  }

  /** Only for keys not in the map: each key is in sortedKeys or newKeys at most once. */
  private insertSortedKey(key: string): void {
    this.newKeys.push(key);
  }

  /** Every key, sorted, with the new ones merged in. */
  private sorted(): string[] {
    if (this.newKeys.length === 0) return this.sortedKeys;
    const add = this.newKeys.sort();
    const old = this.sortedKeys;
    const out = new Array<string>(old.length + add.length);
    let i = 0;
    let j = 0;
    let n = 0;
    while (i < old.length && j < add.length) out[n++] = old[i]! < add[j]! ? old[i++]! : add[j++]!;
    while (i < old.length) out[n++] = old[i++]!;
    while (j < add.length) out[n++] = add[j++]!;
    this.sortedKeys = out;
    this.newKeys = [];
    return out;
  }
}

/** Index of the first element >= value. */
function lowerBound(arr: readonly string[], value: string): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (arr[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
