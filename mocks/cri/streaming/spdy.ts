// SPDY/3.1 framing, as much as the Kubernetes streaming protocols use (the peer is Go's moby/spdystream,
// which the kubelet, kubectl and the API server use). Hand-written rather than spdy-transport's: that
// library refuses a SYN_STREAM without `:method`/`:path`, and spdystream's streams carry only their own
// headers (streamType, port, requestID).
//
// Frames: SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS, WINDOW_UPDATE, DATA. Header
// blocks are zlib with the SPDY/3 dictionary, one compression context per direction for the connection.
// Flow control is not enforced in either direction, as spdystream does not: it neither sends WINDOW_UPDATE
// nor honours one (its frame handler drops SETTINGS and WINDOW_UPDATE as unhandled). Instead, what this side
// queues for a peer is bounded: a peer that does not read is cut off.
//
// The same class serves both ends: the mock's server, and the tests' client (openStream).
import { createDeflate, createInflate, constants as zc, type Deflate, type Inflate } from 'node:zlib';
import { createRequire } from 'node:module';
import type { Duplex } from 'node:stream';

const require = createRequire(import.meta.url);
/** The SPDY/3 header compression dictionary (spdy-transport ships it; the bytes are the spec's). */
const DICTIONARY: Buffer = require('spdy-transport/lib/spdy-transport/protocol/spdy/dictionary.js')[3];

const VERSION = 3;
const T = { SYN_STREAM: 1, SYN_REPLY: 2, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7, HEADERS: 8, WINDOW_UPDATE: 9 } as const;
const FLAG_FIN = 0x01;
/** RST_STREAM status codes used here. */
export const RST = { PROTOCOL_ERROR: 1, INVALID_STREAM: 2, REFUSED_STREAM: 3, CANCEL: 5, INTERNAL_ERROR: 6, STREAM_ALREADY_CLOSED: 9 } as const;
/** The largest frame accepted (a DATA frame's length field is 24 bits; header blocks are far smaller). */
const MAX_FRAME = 1 << 24;
/** A decompressed header block larger than this is refused (spdystream's limit is of the same order). */
const MAX_HEADER_BLOCK = 1 << 20;

export interface SpdyOptions {
  isServer: boolean;
  /** Bytes queued toward the peer past which the peer counts as not reading: the connection is cut. */
  maxQueuedBytes: number;
  /** No frame either way for this long closes the connection (0: never). */
  idleTimeoutMs: number;
  /** A stream the peer opened; answered with SYN_REPLY at once, as spdystream's server does. */
  onStream?(stream: SpdyStream): void;
  /** The connection is gone (closed by either side, or cut). */
  onClose?(reason: string): void;
}

export class SpdyStream {
  private dataHandler?: (data: Buffer) => void;
  private endHandler?: () => void;
  /** What came before a handler was set (a stream's first bytes can follow its reply at once). */
  private early: Buffer[] = [];
  private endedEarly = false;

  get ondata(): ((data: Buffer) => void) | undefined { return this.dataHandler; }
  set ondata(fn: ((data: Buffer) => void) | undefined) {
    this.dataHandler = fn;
    if (fn) { const early = this.early; this.early = []; for (const d of early) fn(d); }
  }

  /** The peer half-closed (FIN). */
  get onend(): (() => void) | undefined { return this.endHandler; }
  set onend(fn: (() => void) | undefined) {
    this.endHandler = fn;
    if (fn && this.endedEarly) { this.endedEarly = false; fn(); }
  }

  /** Called by the connection: data from the peer. */
  receive(data: Buffer): void {
    if (this.dataHandler) this.dataHandler(data);
    else if (this.early.length < 64) this.early.push(data);
  }

  /** Called by the connection: the peer's FIN. */
  finishRemote(): void {
    this.remoteEnded = true;
    if (this.endHandler) this.endHandler(); else this.endedEarly = true;
  }

  /** The peer reset the stream, or the connection went away. */
  onreset?: () => void;
  private localEnded = false;
  remoteEnded = false;
  reset = false;
  /** For streams this side opened: the reply arrived. */
  replied?: () => void;

  constructor(private readonly conn: SpdyConnection, readonly id: number, readonly headers: Record<string, string>) {}

  write(data: Buffer): void {
    if (this.localEnded || this.reset || data.length === 0) return;
    this.conn.sendData(this.id, data, false);
  }

  /** Half-closes this side (DATA with FIN). */
  end(): void {
    if (this.localEnded || this.reset) return;
    this.localEnded = true;
    this.conn.sendData(this.id, Buffer.alloc(0), true);
    this.conn.maybeForget(this);
  }

  get ended(): boolean { return this.localEnded; }

  /** Resets the stream (RST_STREAM CANCEL). */
  cancel(status: number = RST.CANCEL): void {
    if (this.reset) return;
    this.reset = true;
    this.conn.sendRst(this.id, status);
    this.conn.forget(this.id);
  }
}

export class SpdyConnection {
  private readonly streams = new Map<number, SpdyStream>();
  private nextStreamId: number;
  private inbuf: Buffer = Buffer.alloc(0);
  private readonly deflate: Deflate = createDeflate({ dictionary: DICTIONARY, flush: zc.Z_SYNC_FLUSH });
  private readonly inflate: Inflate = createInflate({ dictionary: DICTIONARY, flush: zc.Z_SYNC_FLUSH });
  /** Frames wait here while a header block is being (de)compressed, so that order is kept both ways. */
  private outChain: Promise<void> = Promise.resolve();
  private outPending = 0;
  private inChain: Promise<void> = Promise.resolve();
  private inPending = 0;
  private queued = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private closedReason: string | undefined;
  private lastPeerStream = 0;

  constructor(private readonly socket: Duplex, private readonly o: SpdyOptions) {
    this.nextStreamId = o.isServer ? 2 : 1;
    socket.on('data', (chunk: Buffer) => this.feed(chunk));
    // The end of the connection comes after the frames before it, some of which may wait for their headers.
    const gone = (why: string) => { void this.inChain.then(() => this.destroy(why)); };
    socket.on('error', () => gone('connection error'));
    socket.on('close', () => gone('connection closed'));
    socket.on('end', () => gone('connection closed by the peer'));
    this.deflate.on('error', () => this.destroy('header compression failed'));
    this.inflate.on('error', () => this.destroy('header decompression failed'));
    this.touch();
  }

  get closed(): boolean { return this.closedReason !== undefined; }

  /** Bytes the socket read before the connection was handed over (the upgrade's head). */
  feed(chunk: Buffer): void {
    if (this.closed) return;
    this.touch();
    this.inbuf = this.inbuf.length ? Buffer.concat([this.inbuf, chunk]) : chunk;
    while (this.inbuf.length >= 8) {
      const length = this.inbuf.readUIntBE(5, 3);
      if (length > MAX_FRAME) { this.destroy('frame too large'); return; }
      if (this.inbuf.length < 8 + length) break;
      const frame = this.inbuf.subarray(0, 8 + length);
      this.inbuf = this.inbuf.subarray(8 + length);
      this.receive(frame);
    }
    // Unread input is bounded like output: stop reading while frames wait for their headers.
    if (this.inPending > 64) this.socket.pause();
  }

  /** Stops reading from the peer (a consumer is full), until resumeInput. */
  pauseInput(): void { this.socket.pause(); }
  resumeInput(): void { if (!this.closed) this.socket.resume(); }

  /** Opens a stream (client side); resolves once the peer replied. */
  openStream(headers: Record<string, string>, fin = false): Promise<SpdyStream> {
    const id = this.nextStreamId;
    this.nextStreamId += 2;
    const s = new SpdyStream(this, id, headers);
    this.streams.set(id, s);
    const replied = new Promise<SpdyStream>((resolve, reject) => {
      s.replied = () => resolve(s);
      s.onreset = () => reject(new Error(`stream ${id} was reset`));
    });
    const body = Buffer.alloc(10);
    body.writeUInt32BE(id & 0x7fffffff, 0);
    body.writeUInt32BE(0, 4);
    this.sendControl(T.SYN_STREAM, fin ? FLAG_FIN : 0, body, headers);
    return replied;
  }

  sendData(id: number, data: Buffer, fin: boolean): void {
    if (this.closed) return;
    // Large writes go out as several frames (the length field is 24 bits; smaller frames interleave better).
    const max = 32 * 1024;
    let off = 0;
    do {
      const part = data.subarray(off, off + max);
      off += part.length;
      const last = off >= data.length;
      const head = Buffer.alloc(8);
      head.writeUInt32BE(id & 0x7fffffff, 0);
      head.writeUInt8(last && fin ? FLAG_FIN : 0, 4);
      head.writeUIntBE(part.length, 5, 3);
      this.enqueue(() => Buffer.concat([head, part]));
    } while (off < data.length);
  }

  sendRst(id: number, status: number): void {
    const body = Buffer.alloc(8);
    body.writeUInt32BE(id & 0x7fffffff, 0);
    body.writeUInt32BE(status, 4);
    this.sendControl(T.RST_STREAM, 0, body);
  }

  forget(id: number): void { this.streams.delete(id); }

  /** A stream closed both ways is done. */
  maybeForget(s: SpdyStream): void {
    if (s.ended && s.remoteEnded) this.streams.delete(s.id);
  }

  /** GOAWAY, then the socket ends once everything queued is written. */
  close(reason = 'closed'): void {
    if (this.closed) return;
    const body = Buffer.alloc(8);
    body.writeUInt32BE(this.lastPeerStream & 0x7fffffff, 0);
    body.writeUInt32BE(0, 4);
    this.sendControl(T.GOAWAY, 0, body);
    const chain = this.outChain;
    this.closedReason = reason;
    // The header contexts stay open until the frames queued before the GOAWAY are out.
    void chain.then(() => { this.socket.end(); this.closeZlib(); });
    this.finish(reason);
  }

  private closeZlib(): void {
    this.deflate.close();
    this.inflate.close();
  }

  /** Cuts the connection now. */
  destroy(reason: string): void {
    if (!this.closed) this.closedReason = reason;
    this.socket.destroy();
    this.closeZlib();
    this.finish(reason);
  }

  private finished = false;
  private finish(reason: string): void {
    if (this.finished) return;
    this.finished = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const streams = [...this.streams.values()];
    this.streams.clear();
    for (const s of streams) { if (!s.reset) { s.reset = true; s.onreset?.(); } }
    this.o.onClose?.(reason);
  }

  private touch(): void {
    if (!this.o.idleTimeoutMs || this.closed) return;
    if (this.idleTimer) this.idleTimer.refresh();
    else {
      this.idleTimer = setTimeout(() => this.close(`idle for ${this.o.idleTimeoutMs} ms`), this.o.idleTimeoutMs);
      this.idleTimer.unref?.();
    }
  }

  // --- output ---

  private sendControl(type: number, flags: number, body: Buffer, headers?: Record<string, string>): void {
    if (this.closed) return;
    if (!headers) { this.enqueue(() => controlFrame(type, flags, body)); return; }
    const block = encodeHeaders(headers);
    const compressed = this.zlib(this.deflate, block);
    this.enqueue(async () => controlFrame(type, flags, Buffer.concat([body, await compressed])));
  }

  private enqueue(frame: () => Buffer | Promise<Buffer>): void {
    if (this.closed) return;
    this.touch();
    const write = (b: Buffer) => {
      if (this.socket.destroyed) return;
      this.queued += b.length;
      if (this.queued > this.o.maxQueuedBytes) { this.destroy('the peer does not read what is sent to it'); return; }
      this.socket.write(b, () => { this.queued -= b.length; });
    };
    const now = this.outPending === 0 ? frame() : undefined;
    if (now instanceof Buffer) { write(now); return; }
    this.outPending++;
    const next = now ?? frame();
    this.outChain = this.outChain.then(async () => {
      try { write(await next); } catch { /* the connection is going away */ } finally { this.outPending--; }
    });
  }

  /** One write through a (de)compression context, as one sync-flushed block. Calls are serialised by zlib's own write queue. */
  private zlib(z: Deflate | Inflate, input: Buffer, limit = Infinity): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const out: Buffer[] = [];
      let size = 0;
      const onData = (c: Buffer) => { out.push(c); size += c.length; if (size > limit) reject(new Error('header block too large')); };
      // zlib emits a write's output before its callback; listeners are swapped per write in order.
      this.zq = this.zq.then(() => new Promise<void>((done) => {
        z.on('data', onData);
        z.write(input, (err) => {
          z.removeListener('data', onData);
          done();
          if (err) reject(err); else resolve(Buffer.concat(out));
        });
      }));
    });
  }
  private zq: Promise<void> = Promise.resolve();

  // --- input ---

  private receive(frame: Buffer): void {
    const needsHeaders = (frame[0] & 0x80) !== 0 && [T.SYN_STREAM, T.SYN_REPLY, T.HEADERS].includes(frame.readUInt16BE(2) as 1);
    if (this.inPending === 0 && !needsHeaders) { this.handle(frame, undefined); return; }
    this.inPending++;
    let headers: Promise<Record<string, string>> | undefined;
    if (needsHeaders) {
      const type = frame.readUInt16BE(2);
      const skip = type === T.SYN_STREAM ? 10 : 4;
      headers = this.zlib(this.inflate, frame.subarray(8 + skip), MAX_HEADER_BLOCK).then(decodeHeaders);
    }
    this.inChain = this.inChain.then(async () => {
      try {
        this.handle(frame, headers ? await headers : undefined);
      } catch {
        this.destroy('unreadable header block');
      } finally {
        this.inPending--;
        if (this.inPending <= 16 && !this.closed) this.socket.resume();
      }
    });
  }

  private handle(frame: Buffer, headers: Record<string, string> | undefined): void {
    if (this.closed) return;
    const flags = frame[4];
    const body = frame.subarray(8);
    if ((frame[0] & 0x80) === 0) {
      const id = frame.readUInt32BE(0) & 0x7fffffff;
      const s = this.streams.get(id);
      if (!s) { this.sendRst(id, RST.INVALID_STREAM); return; }
      if (body.length) s.receive(body);
      if (flags & FLAG_FIN) { s.finishRemote(); this.maybeForget(s); }
      return;
    }
    const version = frame.readUInt16BE(0) & 0x7fff;
    if (version !== VERSION) { this.destroy(`unsupported SPDY version ${version}`); return; }
    const type = frame.readUInt16BE(2);
    switch (type) {
      case T.SYN_STREAM: {
        const id = body.readUInt32BE(0) & 0x7fffffff;
        if (id <= this.lastPeerStream || (id % 2 === 1) !== this.o.isServer) { this.sendRst(id, RST.PROTOCOL_ERROR); return; }
        this.lastPeerStream = id;
        const s = new SpdyStream(this, id, headers ?? {});
        this.streams.set(id, s);
        // The reply first, so that anything written by the handler follows it.
        const reply = Buffer.alloc(4);
        reply.writeUInt32BE(id, 0);
        this.sendControl(T.SYN_REPLY, 0, reply, {});
        if (this.o.onStream) this.o.onStream(s);
        else s.cancel(RST.REFUSED_STREAM);
        if (flags & FLAG_FIN) s.finishRemote();
        return;
      }
      case T.SYN_REPLY: {
        const s = this.streams.get(body.readUInt32BE(0) & 0x7fffffff);
        s?.replied?.();
        if (s && flags & FLAG_FIN) s.finishRemote();
        return;
      }
      case T.RST_STREAM: {
        const id = body.readUInt32BE(0) & 0x7fffffff;
        const s = this.streams.get(id);
        if (s) { s.reset = true; this.streams.delete(id); s.onreset?.(); }
        return;
      }
      case T.PING: {
        // A ping the peer started (its parity, not ours) is echoed back.
        const id = body.readUInt32BE(0);
        if ((id % 2 === 1) === this.o.isServer) this.sendControl(T.PING, 0, Buffer.from(body.subarray(0, 4)));
        return;
      }
      case T.GOAWAY:
        this.close('the peer went away');
        return;
      case T.HEADERS: case T.SETTINGS: case T.WINDOW_UPDATE:
        return; // nothing here depends on them (see the header)
      default:
        return; // unknown control frames are ignored, as SPDY/3 says
    }
  }
}

function controlFrame(type: number, flags: number, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | VERSION, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt8(flags, 4);
  head.writeUIntBE(body.length, 5, 3);
  return Buffer.concat([head, body]);
}

/** A SPDY/3 name/value block: count, then length-prefixed lower-case names and values. */
export function encodeHeaders(headers: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  const n = Buffer.alloc(4);
  const entries = Object.entries(headers);
  n.writeUInt32BE(entries.length, 0);
  parts.push(n);
  for (const [k, v] of entries) {
    for (const s of [k.toLowerCase(), v]) {
      const b = Buffer.from(s);
      const len = Buffer.alloc(4);
      len.writeUInt32BE(b.length, 0);
      parts.push(len, b);
    }
  }
  return Buffer.concat(parts);
}

/** Names lower-cased; several values (NUL-separated) kept as the first, which is all these protocols use. */
export function decodeHeaders(block: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let off = 0;
  const read = () => {
    const len = block.readUInt32BE(off);
    off += 4;
    if (off + len > block.length) throw new RangeError('header block overrun');
    const s = block.subarray(off, off + len).toString();
    off += len;
    return s;
  };
  const count = block.readUInt32BE(0);
  off = 4;
  if (count > 1024) throw new RangeError('too many headers');
  for (let i = 0; i < count; i++) {
    const name = read().toLowerCase();
    out[name] = read().split('\0')[0];
  }
  return out;
}
