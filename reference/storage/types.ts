// The storage contract the API server is written against. It is shaped after etcd v3's MVCC model
// (one global revision, per-key create/mod revisions, compaction, watch from a revision) so that an
// etcd-backed implementation can be dropped in next to the in-memory one without touching the
// generic store above it.

/** A value as stored: opaque serialized bytes (a string here) so a corrupt entry can be planted. */
export interface KeyValue {
  readonly key: string;
  readonly value: string;
  /** Revision at which the key was (last) created. */
  readonly createRevision: number;
  /** Revision of the last write to the key; this is what becomes `metadata.resourceVersion`. */
  readonly modRevision: number;
}

export type StorageEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StorageEvent {
  readonly type: StorageEventType;
  readonly key: string;
  /** Revision of this write. */
  readonly revision: number;
  /** Value after the write; absent for DELETED. */
  readonly value?: string;
  /** Value before the write; absent for ADDED. */
  readonly prevValue?: string;
}

export interface ListOptions {
  /** Read at this revision instead of the current one (must be inside the history window). */
  readonly revision?: number;
  /** Start at this key (inclusive) instead of the prefix start: the basis for `continue`. */
  readonly startKey?: string;
  /** Return at most this many items; `more` tells whether the prefix holds further keys. */
  readonly limit?: number;
}

export interface ListResult {
  readonly items: KeyValue[];
  /** The revision the snapshot was read at. */
  readonly revision: number;
  /** True when `limit` cut the result short. */
  readonly more: boolean;
  /** Keys in the range from the start key, `limit` aside (etcd's count), when the storage knows it cheaply. */
  readonly count?: number;
}

/**
 * Where the watch goes: called in revision order, never concurrently, each event once.
 *
 * When, differs by backend. The memory storage calls it inside the write that made the event,
 * before that write returns. etcd (etcd.ts) cannot: another process may have made the write, so
 * events arrive after the write has returned, and a read of currentRevision() may be ahead of the
 * last event delivered. Callers relying on delivery inside the write are only exact on the memory
 * storage: auth/binding-index.ts (the RBAC index current for the very next request) and
 * list-watch.ts (BOOKMARKs at currentRevision() as if every event up to it had been delivered).
 * store.ts whileWriting only uses it as a shortcut and decodes otherwise.
 */
export interface WatchListener {
  onEvent(event: StorageEvent): void;
  /** The storage ended the watch (it was closed, or the watcher fell too far behind). */
  onClose(error?: StorageError): void;
}

export interface WatchHandle {
  /** Stops delivery; idempotent. */
  stop(): void;
}

export type StorageErrorCode =
  | 'KeyExists'
  | 'KeyNotFound'
  /** A guarded write found a different modRevision on the key. */
  | 'Conflict'
  /** The requested revision is older than the kept history. */
  | 'Compacted'
  /** The requested revision has not been written yet. */
  | 'FutureRevision'
  | 'Closed'
  /**
   * The backend did not answer (a hung or unreachable etcd): `timedOut` when the call's deadline
   * passed, else it failed at once (connection refused, the client's circuit breaker open).
   */
  | 'Unavailable';

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    message: string,
    readonly details: {
      key?: string;
      /** The revision the caller asked for. */
      requested?: number;
      current?: number;
      /** Oldest revision one may still read at or watch from. */
      compacted?: number;
      /** For Conflict: the key's actual modRevision. */
      actual?: number;
      /** For Unavailable: the call's deadline passed. */
      timedOut?: boolean;
    } = {},
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

export function isStorageError(err: unknown, code?: StorageErrorCode): err is StorageError {
  return err instanceof StorageError && (code === undefined || err.code === code);
}

/**
 * Key/value storage with MVCC semantics. All methods are async because a networked backend
 * (etcd) needs them to be; the memory implementation resolves immediately.
 */
export interface Storage {
  /**
   * True when other processes (other API servers) write the same store: revisions this process
   * never handed out are still valid, so their continue tokens are honoured until compacted.
   */
  readonly shared?: boolean;
  /**
   * True when watchers are told inside the write (the memory storage): then every event up to
   * currentRevision() has been delivered. Otherwise (etcd) a watch may still be behind it.
   */
  readonly deliversInsideWrites?: boolean;
  /** The backend, when it is a dependency upstream names in its health checks (`etcd`). */
  readonly backend?: 'etcd';
  /** The revision of the latest write (0 before any write). */
  currentRevision(): Promise<number>;
  /** Oldest revision still readable/watchable; reads or watches from before it fail with Compacted. */
  compactedRevision(): Promise<number>;

  /** Fails with KeyExists if the key is live. */
  create(key: string, value: string): Promise<KeyValue>;
  /** Undefined when the key does not exist (at `revision`, when given). */
  get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined>;
  /**
   * Replaces a live key. With `expectedModRevision`, fails with Conflict if the key was written
   * since; fails with KeyNotFound if the key is absent.
   */
  update(key: string, value: string, expectedModRevision?: number): Promise<KeyValue>;
  /**
   * Deletes a live key, optionally guarded like update. Returns the deleted value with
   * `modRevision` set to the revision of the delete itself.
   */
  delete(key: string, expectedModRevision?: number): Promise<KeyValue>;
  /** Keys starting with `prefix`, in key order, as of one revision. */
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /**
   * Delivers every event on keys under `prefix` with revision > `fromRevision`, history first,
   * then live. Rejects with Compacted when events after `fromRevision` are no longer kept, and
   * with FutureRevision when `fromRevision` is ahead of the store.
   */
  watch(prefix: string, fromRevision: number, listener: WatchListener): Promise<WatchHandle>;
  /** Drops history at or below `revision` (keeping what is visible at it). */
  compact(revision: number): Promise<void>;
  /** Ends all watches; later calls fail with Closed. */
  close(): Promise<void>;
}
