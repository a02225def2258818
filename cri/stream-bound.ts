// Bounds on what server-streaming gRPC calls hold for clients that stop reading (the agent's pod info
// WatchPods, the mock CRI's GetContainerEvents). A message written to a call waits in the server
// until HTTP/2 flow control lets it out, and a client that never reads never opens its window: so
// each stream's unsent bytes are bounded, and so are those of each connection (its streams share
// one window) and of the server. Past a bound the stream holding the most is cut, slowest first.
//
// Cut how: RST_STREAM with ENHANCE_YOUR_CALM, which grpc-go and grpc-js clients both report as
// RESOURCE_EXHAUSTED. Not a status in trailers: trailers go out after the messages still queued,
// which a client that does not read never takes, so the memory would stay held. The reset drops the
// queue at once; the client learns the code (its library's wording, not ours) and watches again.
import { constants as http2, type ServerHttp2Stream } from 'node:http2';
import * as grpc from '@grpc/grpc-js';

export interface StreamBounds {
  /** Unsent bytes one stream may hold. */
  readonly perStream: number;
  /** Unsent bytes all streams of one client connection may hold. */
  readonly perConnection: number;
  /** Unsent bytes all streams of the server may hold. */
  readonly total: number;
}

type Call = grpc.ServerWritableStream<any, any>;

/**
 * The HTTP/2 stream under a grpc-js server call. grpc-js does not expose it: its server call wraps an
 * intercepting call (`call`), which may wrap others (`nextCall`), the innermost holding `stream`.
 * Undefined if a grpc-js release changes that; the cut then falls back to a status.
 */
export function http2StreamOf(call: Call): ServerHttp2Stream | undefined {
  let c: any = (call as any).call;
  for (let depth = 0; c && depth < 8; depth++, c = c.nextCall) {
    if (c.stream && typeof c.stream.close === 'function' && 'session' in c.stream) return c.stream as ServerHttp2Stream;
  }
  return undefined;
}

/** One bounded stream: write through it, and forget it when the call ends. */
export interface BoundedStream {
  /**
   * Writes `message`, counted at `size` bytes until it is sent. False when the stream is cut (by
   * this write or earlier): write no more.
   */
  write(message: unknown, size: number): boolean;
  /** Lets this stream hold `bytes` more (what the client asked for at once: an initial list). */
  allow(bytes: number): void;
  /** The call ended: it no longer counts. */
  forget(): void;
  readonly cut: boolean;
}

interface Member {
  readonly call: Call;
  readonly conn: Connection;
  pending: number;
  limit: number;
  done: boolean;
}

interface Connection {
  pending: number;
  readonly members: Set<Member>;
}

export class StreamBudget {
  private total = 0;
  private readonly members = new Set<Member>();
  private readonly connections = new WeakMap<object, Connection>();

  /** `onCut(scope)`: told of every stream cut, and which bound it passed. */
  constructor(
    readonly bounds: StreamBounds,
    private readonly onCut?: (scope: 'stream' | 'connection' | 'total') => void,
  ) {
    for (const [k, v] of Object.entries(bounds)) {
      if (!Number.isSafeInteger(v) || v < 1) throw new RangeError(`stream bound ${k} must be a positive whole number, not ${v}`);
    }
  }

  /** Unsent bytes over every stream. */
  get pendingBytes(): number {
    return this.total;
  }

  get openStreams(): number {
    return this.members.size;
  }

  open(call: Call): BoundedStream {
    // Streams of one client connection share its flow-control window: the HTTP/2 session is their key.
    const key: object = http2StreamOf(call)?.session ?? call;
    let conn = this.connections.get(key);
    if (!conn) this.connections.set(key, (conn = { pending: 0, members: new Set() }));
    const m: Member = { call, conn, pending: 0, limit: this.bounds.perStream, done: false };
    this.members.add(m);
    conn.members.add(m);
    return {
      write: (message, size) => this.write(m, message, size),
      allow: (bytes) => { m.limit += bytes; },
      forget: () => this.leave(m),
      get cut() { return m.done; },
    };
  }

  private write(m: Member, message: unknown, size: number): boolean {
    if (m.done) return false;
    m.pending += size;
    m.conn.pending += size;
    this.total += size;
    m.call.write(message, () => {
      if (m.done) return;
      m.pending -= size;
      m.conn.pending -= size;
      this.total -= size;
    });
    if (m.pending > m.limit) this.cutStream(m, 'stream');
    while (m.conn.pending > this.bounds.perConnection && this.cutSlowest(m.conn.members, 'connection'));
    while (this.total > this.bounds.total && this.cutSlowest(this.members, 'total'));
    return !m.done;
  }

  private cutSlowest(among: Set<Member>, scope: 'connection' | 'total'): boolean {
    let slowest: Member | undefined;
    for (const m of among) if (!slowest || m.pending > slowest.pending) slowest = m;
    if (!slowest || slowest.pending === 0) return false;
    this.cutStream(slowest, scope);
    return true;
  }

  private cutStream(m: Member, scope: 'stream' | 'connection' | 'total'): void {
    if (m.done) return;
    this.leave(m);
    this.onCut?.(scope);
    const stream = http2StreamOf(m.call);
    if (stream && !stream.destroyed) {
      stream.close(http2.NGHTTP2_ENHANCE_YOUR_CALM);
      return;
    }
    m.call.emit('error', { code: grpc.status.RESOURCE_EXHAUSTED, details: `stream cut: its client left more than its ${scope} bound of unsent bytes unread` });
  }

  private leave(m: Member): void {
    if (m.done) return;
    m.done = true;
    this.total -= m.pending;
    m.conn.pending -= m.pending;
    m.pending = 0;
    this.members.delete(m);
    m.conn.members.delete(m);
  }
}
