// The Storage contract over etcd v3 (its gRPC API, through the `etcd3` client): resourceVersions are
// etcd revisions, creates and guarded writes are transactions comparing create/mod revisions, lists
// read one revision in pages, and watches are etcd watch streams started at a revision with previous
// values. Several API servers sharing one etcd therefore agree on every revision and continue token.
//
// Differences from the memory storage that callers must know (types.ts WatchListener): events reach
// watchers after the write that made them has returned (another process may have written), and
// history is only what etcd keeps (compaction is etcd's or the API server's, not a window here).
import type { Etcd3, IDuplexStream, IKeyValue, IOptions, IRangeRequest, IResponseHeader, IWatchRequest, IWatchResponse } from 'etcd3';
import { etcd3 } from '../packages.js';
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

export interface EtcdStorageOptions {
  /** Client URLs of the cluster's members (http:// or https://). */
  servers: readonly string[];
  /**
   * Where the keys live in etcd: a key `root + rest` is stored at `prefix + rest`. The API server's
   * keys start with `/registry`, so with root `/registry` and the default prefix `/registry` the
   * keys in etcd are exactly upstream's. Keys outside `root` are refused.
   */
  prefix?: string;
  root?: string;
  /** TLS to etcd (`--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`), PEM contents. */
  tls?: { caPem?: string; certPem?: string; keyPem?: string };
  /**
   * Deadline of each storage call, the client's retries included (`serve --etcd-request-timeout`):
   * a hung etcd fails the call with StorageError 'Unavailable' once it passes. Default 5 s.
   */
  requestTimeoutMs?: number;
}

/**
 * A few seconds: far above what any call of a healthy etcd takes, and short enough that a request
 * to a hung etcd is answered (504) well inside upstream's 60 s request timeout and a client's patience.
 */
export const DEFAULT_ETCD_REQUEST_TIMEOUT_MS = 5_000;

type CallOptions = { deadline: number };

/**
 * Events a shared watch stream keeps after delivering them, so that a watch starting from a
 * revision the stream has already passed can still join it (upstream's watch cache keeps a window
 * the same way).
 */
const SHARED_STREAM_RECENT_EVENTS = 1024;
/** And at most this many bytes of their values, so that a window of large objects stays small. */
const SHARED_STREAM_RECENT_BYTES = 8 * 1024 * 1024;

const eventBytes = (ev: StorageEvent): number => (ev.value?.length ?? 0) + (ev.prevValue?.length ?? 0);

/** etcd's range end that covers every key starting with `prefix` (its `clientv3.GetPrefixRangeEnd`). */
function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]! += 1;
      return end.subarray(0, i + 1);
    }
  }
  // All 0xff (or empty): every key from `prefix` on.
  return Buffer.from([0]);
}

const COMPACTED = 'required revision has been compacted';
const FUTURE = 'required revision is a future revision';

export class EtcdStorage implements Storage {
  /** Other API servers may share the etcd: see Storage.shared. */
  readonly shared = true;
  readonly backend = 'etcd';
  private readonly client: Etcd3;
  private readonly prefix: string;
  private readonly root: string;
  /** The etcd watch streams open, shared and own. */
  readonly watches = new Set<SharedWatchStream>();
  /** The shared stream of each prefix (by its etcd key, latin1), joined by every watch of the prefix that it can serve. */
  private readonly streams = new Map<string, SharedWatchStream>();
  /** A revision known to be at or below etcd's compaction point: the probe starts there. */
  private knownCompacted = 0;
  private closed = false;
  private readonly timeoutMs: number;

  constructor(opts: EtcdStorageOptions) {
    if (opts.servers.length === 0) throw new Error('etcd storage needs at least one server URL');
    this.prefix = opts.prefix ?? '';
    this.root = opts.root ?? '';
    const timeout = opts.requestTimeoutMs ?? DEFAULT_ETCD_REQUEST_TIMEOUT_MS;
    this.timeoutMs = timeout;
    const options: IOptions = {
      hosts: [...opts.servers],
      // Streams (watches) live as long as they are wanted; every other call gets a deadline so a
      // stuck etcd turns into an error rather than a hung request.
      defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + timeout }),
      // A list of a large collection is one answer; gRPC's default 4 MiB cap would fail it (upstream's
      // client lifts the cap the same way).
      grpcOptions: { 'grpc.max_receive_message_length': -1, 'grpc.max_send_message_length': -1 },
    };
    if (opts.tls && (opts.tls.caPem || opts.tls.certPem)) {
      options.credentials = {
        // Without a CA file, the system's roots (grpc-js takes null for them).
        rootCertificate: opts.tls.caPem ? Buffer.from(opts.tls.caPem) : (null as unknown as Buffer),
        ...(opts.tls.certPem ? { certChain: Buffer.from(opts.tls.certPem), privateKey: Buffer.from(opts.tls.keyPem ?? '') } : {}),
      };
    }
    const { Etcd3: Client } = etcd3();
    this.client = new Client(options);
  }

  async currentRevision(): Promise<number> {
    return this.header(await this.range({ key: this.toEtcd(this.root), count_only: true, limit: 1 }));
  }

  async compactedRevision(): Promise<number> {
    this.checkOpen();
    // etcd does not tell its compaction point directly (v3.4 Status has no field for it): find the
    // oldest readable revision by bisection, from the lowest revision known to be compacted.
    let hi = await this.currentRevision();
    let lo = Math.min(this.knownCompacted, hi);
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (await this.readable(mid)) hi = mid;
      else lo = mid + 1;
    }
    this.knownCompacted = Math.max(this.knownCompacted, lo);
    return lo;
  }

  async create(key: string, value: string): Promise<KeyValue> {
    const k = this.toEtcd(key);
    const res = await this.call((o) =>
      this.client.kv.txn({
        compare: [{ key: k, target: 'Create', result: 'Equal', create_revision: 0 }],
        success: [{ request_put: { key: k, value: Buffer.from(value) } }],
        failure: [{ request_range: { key: k } }],
      }, o),
    );
    if (!res.succeeded) {
      const live = res.responses[0]?.response_range.kvs[0];
      throw new StorageError('KeyExists', `key exists: ${key}`, { key, actual: live ? Number(live.mod_revision) : undefined });
    }
    const rev = this.header(res);
    return { key, value, createRevision: rev, modRevision: rev };
  }

  async get(key: string, opts: { revision?: number } = {}): Promise<KeyValue | undefined> {
    const res = await this.range({ key: this.toEtcd(key), revision: opts.revision || 0 }, opts.revision);
    const kv = res.kvs[0];
    return kv ? this.keyValue(kv) : undefined;
  }

  async update(key: string, value: string, expectedModRevision?: number): Promise<KeyValue> {
    const k = this.toEtcd(key);
    const res = await this.guarded(key, expectedModRevision, { request_put: { key: k, value: Buffer.from(value), prev_kv: true } });
    const prev = res.responses[0]!.response_put.prev_kv;
    return { key, value, createRevision: Number(prev.create_revision), modRevision: this.header(res) };
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    const k = this.toEtcd(key);
    const res = await this.guarded(key, expectedModRevision, { request_delete_range: { key: k, prev_kv: true } });
    const prev = res.responses[0]!.response_delete_range.prev_kvs[0]!;
    return { key, value: prev.value.toString(), createRevision: Number(prev.create_revision), modRevision: this.header(res) };
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const p = this.toEtcd(prefix);
    const start = opts.startKey !== undefined && opts.startKey > prefix ? this.toEtcd(opts.startKey) : p;
    const res = await this.range(
      { key: start, range_end: prefixEnd(p), revision: opts.revision || 0, limit: opts.limit && opts.limit > 0 ? opts.limit : 0 },
      opts.revision,
    );
    // etcd's header carries its current revision; a read at an older one is a snapshot of that one.
    return { items: res.kvs.map((kv) => this.keyValue(kv)), revision: opts.revision || this.header(res), more: res.more, count: Number(res.count) };
  }

  async watch(prefix: string, fromRevision: number, listener: WatchListener): Promise<WatchHandle> {
    const p = this.toEtcd(prefix);
    // etcd itself would wait for a future revision and reports compaction only after creating the
    // watch; a read at the start revision gives both answers up front, as the contract wants.
    await this.range({ key: p, count_only: true, limit: 1, revision: fromRevision }, fromRevision || undefined);
    const name = p.toString('latin1');
    for (;;) {
      let shared = this.streams.get(name);
      if (!shared || shared.ended) {
        shared = new SharedWatchStream(this, p, fromRevision, () => this.streams.get(name) === shared && this.streams.delete(name));
        this.streams.set(name, shared);
      }
      try {
        await shared.created;
      } catch (err) {
        // Started for this watch: its answer (Compacted, Closed) is this watch's. Started for another
        // one: that watch's start revision failed, not necessarily this one's; try again.
        if (shared.startRevision === fromRevision) throw err;
        continue;
      }
      if (this.closed) {
        listener.onClose();
        return { stop: () => {} };
      }
      const joined = shared.join(fromRevision, listener);
      if (joined) return joined;
      // The shared stream has gone past events this watch still needs: a stream of its own.
      const own = new SharedWatchStream(this, p, fromRevision, () => {});
      await own.created;
      return own.join(fromRevision, listener)!;
    }
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    const current = await this.currentRevision();
    const target = Math.min(revision, current);
    if (target <= this.knownCompacted) return;
    try {
      // physical: return only once the old revisions are gone, so a read right after sees it.
      await this.call((o) => this.client.kv.compact({ revision: target, physical: true }, o));
    } catch (err) {
      // Someone (another API server, etcd's own auto-compaction) compacted further already.
      if (!(err instanceof StorageError && err.code === 'Compacted')) throw err;
    }
    this.knownCompacted = Math.max(this.knownCompacted, target);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const w of [...this.watches]) w.end();
    this.client.close();
  }

  private checkOpen(): void {
    if (this.closed) throw new StorageError('Closed', 'storage is closed');
  }

  /**
   * Runs one etcd call, turning etcd's revision errors into the contract's and a hung or unreachable
   * etcd into 'Unavailable'. Every attempt the client makes (it retries recoverable errors) gets the
   * same absolute deadline, so the whole call ends by then.
   */
  private async call<T>(fn: (options: CallOptions) => Promise<T>, requested?: number): Promise<T> {
    this.checkOpen();
    try {
      return await fn({ deadline: Date.now() + this.timeoutMs });
    } catch (err) {
      const message = (err as Error).message ?? '';
      if (message.includes('DEADLINE_EXCEEDED')) {
        throw new StorageError('Unavailable', `etcd did not answer within ${this.timeoutMs / 1000}s`, { timedOut: true });
      }
      if (etcd3().isRecoverableError(err as Error) || (err as { isBrokenCircuitError?: boolean }).isBrokenCircuitError) {
        // Connection refused or reset, or the client's breaker open after repeated failures: it
        // half-opens again after a few seconds, so service resumes on its own.
        throw new StorageError('Unavailable', `etcd is unreachable: ${message}`);
      }
      if (message.includes(COMPACTED)) {
        const compacted = await this.compactedRevision().catch(() => this.knownCompacted);
        throw new StorageError('Compacted', `required revision ${requested ?? '?'} has been compacted`, { requested, compacted });
      }
      if (message.includes(FUTURE)) {
        const current = await this.currentRevision().catch(() => undefined);
        throw new StorageError('FutureRevision', `revision ${requested ?? '?'} is in the future`, { requested, current });
      }
      throw err;
    }
  }

  private range(req: IRangeRequest, requested?: number) {
    return this.call((o) => this.client.kv.range(req, o), requested);
  }

  /** Whether a read at `revision` is still possible (not compacted away). */
  private async readable(revision: number): Promise<boolean> {
    try {
      await this.client.kv.range({ key: this.toEtcd(this.root), count_only: true, limit: 1, revision });
      return true;
    } catch (err) {
      if (((err as Error).message ?? '').includes(COMPACTED)) return false;
      throw err;
    }
  }

  /**
   * A write of a live key, compared on its mod revision when `expected` is given (a missing key has
   * mod revision 0, never expected, so it fails the compare too) and on its existence otherwise.
   */
  private async guarded(key: string, expected: number | undefined, op: object) {
    const k = this.toEtcd(key);
    const compare = expected !== undefined
      ? { key: k, target: 'Mod' as const, result: 'Equal' as const, mod_revision: expected }
      : { key: k, target: 'Create' as const, result: 'Greater' as const, create_revision: 0 };
    const res = await this.call((o) => this.client.kv.txn({ compare: [compare], success: [op], failure: [{ request_range: { key: k } }] }, o));
    if (res.succeeded) return res;
    const live = res.responses[0]?.response_range.kvs[0];
    if (!live) throw new StorageError('KeyNotFound', `key not found: ${key}`, { key });
    const actual = Number(live.mod_revision);
    throw new StorageError('Conflict', `key ${key} is at revision ${actual}, expected ${expected}`, { key, requested: expected, actual });
  }

  private header(res: { header: IResponseHeader }): number {
    return Number(res.header.revision);
  }

  private keyValue(kv: IKeyValue): KeyValue {
    return { key: this.fromEtcd(kv.key), value: kv.value.toString(), createRevision: Number(kv.create_revision), modRevision: Number(kv.mod_revision) };
  }

  /** A new etcd watch stream (watchClient.watch()), under the call's error handling. */
  openStream(): Promise<IDuplexStream<IWatchRequest, IWatchResponse>> {
    return this.call(() => this.client.watchClient.watch());
  }

  /** Called by a stream when etcd reports compaction: later probes start there. */
  noteCompacted(revision: number): void {
    this.knownCompacted = Math.max(this.knownCompacted, revision);
  }

  event(type: 'Put' | 'Delete', kv: IKeyValue, prev: IKeyValue | null | undefined, revision: number): StorageEvent {
    const key = this.fromEtcd(kv.key);
    const prevValue = prev ? prev.value.toString() : undefined;
    if (type === 'Delete') return { type: 'DELETED', key, revision, prevValue };
    const value = kv.value.toString();
    return kv.create_revision === kv.mod_revision ? { type: 'ADDED', key, revision, value } : { type: 'MODIFIED', key, revision, value, prevValue };
  }

  private toEtcd(key: string): Buffer {
    if (!key.startsWith(this.root)) throw new Error(`storage key ${key} is outside ${this.root}`);
    return Buffer.from(this.prefix + key.slice(this.root.length));
  }

  private fromEtcd(key: Buffer): string {
    return this.root + key.toString().slice(this.prefix.length);
  }
}

interface StreamMember {
  readonly listener: WatchListener;
  /** Highest revision delivered to it: a member joined mid-stream skips what it already had. */
  lastRevision: number;
  active: boolean;
}

/**
 * One etcd watch stream of a prefix, shared by every watch of that prefix it can serve: each event
 * is received and turned into a StorageEvent once, and the same StorageEvent object is handed to
 * every member (so layers above may decode and encode it once for all of them). A watch from
 * revision `from` can join when the stream still holds, or has yet to deliver, every event after
 * `from`: it started at or before `from`, and the events it dropped from its recent window are at
 * or below `from`. A member whose listener throws is dropped alone; when etcd ends the stream every
 * member is told, as each was when it had a stream of its own. The stream is cancelled when its
 * last member stops.
 */
class SharedWatchStream {
  readonly created: Promise<void>;
  ended = false;
  private readonly members = new Set<StreamMember>();
  /** The latest events delivered, oldest first. */
  private readonly recent: StorageEvent[] = [];
  private recentBytes = 0;
  /** Every event after this revision was delivered, or is in `recent`, or is still to come. */
  private droppedUpTo: number;
  private lastRevision: number;
  private cancel: () => void = () => {};

  constructor(
    private readonly storage: EtcdStorage,
    prefix: Buffer,
    readonly startRevision: number,
    private readonly forget: () => void,
  ) {
    this.droppedUpTo = startRevision;
    this.lastRevision = startRevision;
    this.created = this.open(prefix);
    // A stream nobody waits on any more (all its would-be members failed) must not leave an unhandled rejection.
    this.created.catch(() => {});
  }

  private async open(prefix: Buffer): Promise<void> {
    let stream: IDuplexStream<IWatchRequest, IWatchResponse>;
    try {
      stream = await this.storage.openStream();
    } catch (err) {
      this.ended = true;
      this.forget();
      throw err;
    }
    this.storage.watches.add(this);
    this.cancel = () => {
      // Half-close first: the client counts errors of a still-writable watch stream against the
      // member (its circuit breaker opens after three and resets the connection), and the
      // CANCELLED of our own cancel is no failure of etcd's.
      stream.end();
      stream.cancel();
    };
    await new Promise<void>((resolve, reject) => {
      stream.on('data', (res: IWatchResponse) => {
        if (res.created && !res.canceled) {
          resolve();
          return;
        }
        if (res.canceled) {
          const compacted = Number(res.compact_revision);
          const err = compacted > 0
            ? new StorageError('Compacted', `required revision ${this.startRevision} has been compacted`, { requested: this.startRevision, compacted })
            : new StorageError('Closed', `etcd cancelled the watch: ${res.cancel_reason || 'no reason given'}`);
          if (compacted > 0) this.storage.noteCompacted(compacted);
          reject(err);
          this.end(err);
          return;
        }
        for (const ev of res.events) {
          if (this.ended) return;
          const revision = Number(ev.kv.mod_revision);
          if (revision <= this.lastRevision) continue;
          this.lastRevision = revision;
          this.deliver(this.storage.event(ev.type, ev.kv, ev.prev_kv, revision));
        }
      });
      stream.on('error', (err: Error) => {
        // Cancelling our own stream surfaces here too; only a live watch has something to report.
        const e = new StorageError('Closed', `etcd watch failed: ${err.message}`);
        reject(e);
        this.end(e);
      });
      stream.on('end', () => {
        const e = new StorageError('Closed', 'etcd ended the watch stream');
        reject(e);
        this.end(e);
      });
      stream.write({ create_request: { key: prefix, range_end: prefixEnd(prefix), start_revision: this.startRevision + 1, prev_kv: true } });
    });
  }

  /** Adds a watch from revision `from` (the recent events after it first), or undefined when this stream cannot serve it. */
  join(from: number, listener: WatchListener): WatchHandle | undefined {
    if (this.ended || from < this.droppedUpTo) return undefined;
    const m: StreamMember = { listener, lastRevision: from, active: true };
    this.members.add(m);
    for (const ev of this.recent) {
      if (!m.active) break;
      if (ev.revision > from) this.tell(m, ev);
    }
    return { stop: () => this.leave(m) };
  }

  private deliver(ev: StorageEvent): void {
    this.recent.push(ev);
    this.recentBytes += eventBytes(ev);
    while (this.recent.length > SHARED_STREAM_RECENT_EVENTS || (this.recentBytes > SHARED_STREAM_RECENT_BYTES && this.recent.length > 1)) {
      const dropped = this.recent.shift()!;
      this.recentBytes -= eventBytes(dropped);
      this.droppedUpTo = dropped.revision;
    }
    for (const m of this.members) this.tell(m, ev);
  }

  private tell(m: StreamMember, ev: StorageEvent): void {
    if (!m.active || ev.revision <= m.lastRevision) return;
    m.lastRevision = ev.revision;
    try {
      m.listener.onEvent(ev);
    } catch (err) {
      // One broken consumer must not take the stream's other deliveries with it.
      this.leave(m);
      try {
        m.listener.onClose(new StorageError('Closed', `watch listener failed: ${(err as Error).message}`));
      } catch {
        // A listener failing while being told to go away changes nothing.
      }
    }
  }

  private leave(m: StreamMember): void {
    if (!m.active) return;
    m.active = false;
    this.members.delete(m);
    if (this.members.size === 0) this.stop();
  }

  /** Cancels the stream without telling anyone (its last member left). */
  private stop(): void {
    if (this.ended) return;
    this.ended = true;
    this.forget();
    this.storage.watches.delete(this);
    this.cancel();
  }

  /** Ends the stream and tells every member (etcd ended it, or the storage is closing). */
  end(error?: StorageError): void {
    if (this.ended) return;
    const members = [...this.members];
    this.members.clear();
    this.stop();
    for (const m of members) {
      m.active = false;
      try {
        m.listener.onClose(error);
      } catch {
        // A listener failing while being told to go away changes nothing.
      }
    }
  }
}
