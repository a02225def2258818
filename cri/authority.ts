// gRPC on a unix socket whatever `:authority` the client sends. grpc-go clients of some releases (crictl,
// the CRI validator) send the socket path as the HTTP/2 `:authority` (`/run/x/cri.sock`); containerd
// takes it, but Node's HTTP/2 server (nghttp2) resets any stream whose authority holds a character
// outside RFC 3986's (a `/`), or is empty, and Node has no option to relax that. So the servers here
// (the mock CRI, the agent's pod info service) do not bind their socket with grpc-js: a net.Server
// listens on it and hands each connection, in process, to the grpc-js server (its connection injector)
// through a stream that rewrites the client's header blocks on the way in:
//
// - client to server, frame by frame: every frame but HEADERS and CONTINUATION passes as it came (only
//   its 9-byte header is read). Each header block is decoded with the connection's HPACK table (hpack.ts);
//   while no block has needed a change the original bytes go on, so a client that sends a valid
//   authority (grpc-js's `localhost`) costs a decode per request and nothing else. The first block whose
//   `:authority` (or `host`) nghttp2 would refuse, or a request with neither (nghttp2 refuses that too),
//   turns the connection to re-encoding: from then on every block is re-encoded without the dynamic
//   table (the server's table can then never disagree with what the client thinks it holds), with such
//   an authority as `localhost` (a missing one added as `localhost`), split at 16 KiB frames.
// - server to client: untouched. Flow control, streaming, deadlines, RST_STREAM and GOAWAY are the
//   server's own.
// - bounds: a frame longer than the server's maximum (16 KiB: neither server raises nghttp2's default)
//   is passed on for the server to refuse; a header block beyond 64 KiB, or one that breaks HPACK or
//   the CONTINUATION rules once blocks are being re-encoded, is replaced by a block the server's decoder
//   must refuse, so the server itself answers GOAWAY (COMPRESSION_ERROR) and closes; the client's further
//   bytes are dropped, and the connection is destroyed if it is still open a moment later.
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import { encodeWithoutIndexing, HpackDecoder, HpackError, type HeaderField } from './hpack.js';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const FRAME_HEADER = 9;
const HEADERS = 0x1;
const CONTINUATION = 0x9;
const END_STREAM = 0x1;
const END_HEADERS = 0x4;
const PADDED = 0x8;
const PRIORITY = 0x20;

/** SETTINGS_MAX_FRAME_SIZE of the servers here (nghttp2's default; RFC 9113's minimum). */
export const MAX_FRAME_SIZE = 16_384;
/** The largest header block (all its frames' fragments) a client may send. */
export const MAX_HEADER_BLOCK = 64 * 1024;
/** How long a connection whose header block was refused may take to be closed by the server. */
const REFUSED_CLOSE_MS = 1000;
/** What replaces an authority nghttp2 refuses. */
export const NORMAL_AUTHORITY = 'localhost';

/** The bytes nghttp2 accepts in `:authority`/`host` (nghttp2_check_authority; checked against Node 20's server). */
const AUTHORITY_OK = new Uint8Array(256);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&\'()*+,;=:@%[]') AUTHORITY_OK[c.charCodeAt(0)] = 1;

/** True when Node's HTTP/2 server takes this `:authority` (it refuses an empty one too). */
export function authorityAccepted(value: string): boolean {
  if (value.length === 0) return false;
  for (let i = 0; i < value.length; i++) if (!AUTHORITY_OK[value.charCodeAt(i)]) return false;
  return true;
}

function frame(type: number, flags: number, streamId: number, payload: Buffer): Buffer {
  const f = Buffer.allocUnsafe(FRAME_HEADER + payload.length);
  f.writeUIntBE(payload.length, 0, 3);
  f[3] = type;
  f[4] = flags;
  f.writeUInt32BE(streamId & 0x7fffffff, 5);
  payload.copy(f, FRAME_HEADER);
  return f;
}

/** A header block waiting for its CONTINUATION frames. */
interface OpenBlock {
  streamId: number;
  /** END_STREAM and PRIORITY of its HEADERS frame, and the priority fields. */
  flags: number;
  priority?: Buffer;
  fragments: Buffer[];
  size: number;
  /** The frames as they came, to pass on unchanged. */
  raw: Buffer[];
}

type State = 'preface' | 'header' | 'pass' | 'collect' | 'raw' | 'refused';

/**
 * The client-to-server byte stream of one HTTP/2 connection, rewritten (see the top of the file). Pure:
 * `push(chunk)` returns what the server is to read; `refused` turns true when the connection is to end.
 */
export class AuthorityRewriter {
  private state: State = 'preface';
  private prefaceSeen = 0;
  private readonly hdr = Buffer.alloc(FRAME_HEADER);
  private hdrSeen = 0;
  private remaining = 0;
  private collected?: Buffer;
  private collectedSeen = 0;
  private block?: OpenBlock;
  private readonly hpack = new HpackDecoder();
  /** Set once a block has been re-encoded: every later block is. */
  reencoding = false;
  refused = false;

  push(chunk: Buffer): Buffer[] {
    const out: Buffer[] = [];
    const n = chunk.length;
    let i = 0;
    // chunk[from, i) is passed on unchanged when the next thing is emitted or the chunk ends.
    let from = 0;
    const flush = (to: number) => {
      if (to > from) out.push(chunk.subarray(from, to));
      from = to;
    };
    while (i < n) {
      switch (this.state) {
        case 'raw':
          i = n;
          break;
        case 'refused':
          flush(i);
          i = from = n;
          break;
        case 'preface': {
          const take = Math.min(PREFACE.length - this.prefaceSeen, n - i);
          const matches = chunk.compare(PREFACE, this.prefaceSeen, this.prefaceSeen + take, i, i + take) === 0;
          i += take;
          this.prefaceSeen += take;
          // Not HTTP/2 with prior knowledge: the server says so itself.
          if (!matches) this.state = 'raw';
          else if (this.prefaceSeen === PREFACE.length) this.state = 'header';
          break;
        }
        case 'pass': {
          const take = Math.min(this.remaining, n - i);
          i += take;
          this.remaining -= take;
          if (this.remaining === 0) this.state = 'header';
          break;
        }
        case 'header': {
          let header: Buffer;
          let start: number;
          let inChunk: boolean;
          if (this.hdrSeen === 0 && n - i >= FRAME_HEADER) {
            header = chunk;
            start = i;
            inChunk = true;
            i += FRAME_HEADER;
          } else {
            // A frame header split across reads: kept aside until whole, passed on as a copy.
            flush(i);
            const take = Math.min(FRAME_HEADER - this.hdrSeen, n - i);
            chunk.copy(this.hdr, this.hdrSeen, i, i + take);
            this.hdrSeen += take;
            i = from = i + take;
            if (this.hdrSeen < FRAME_HEADER) break;
            this.hdrSeen = 0;
            header = this.hdr;
            start = 0;
            inChunk = false;
          }
          const length = header.readUIntBE(start, 3);
          const type = header[start + 3];
          const flags = header[start + 4];
          const streamId = header.readUInt32BE(start + 5) & 0x7fffffff;
          const headerBytes = () => (inChunk ? chunk.subarray(start, start + FRAME_HEADER) : Buffer.from(this.hdr));

          if (length > MAX_FRAME_SIZE) {
            // The server answers FRAME_SIZE_ERROR to the header alone; nothing more of the frame is kept.
            if (!inChunk) out.push(headerBytes());
            flush(i);
            this.refuseFurther();
            break;
          }
          const headerBlockFrame = type === HEADERS || (type === CONTINUATION && this.block !== undefined);
          if (this.block && type !== CONTINUATION) {
            // RFC 9113 §6.10: nothing may come between a header block's frames.
            if (inChunk) flush(start);
            out.push(...this.refuse(this.block.streamId));
            from = i;
            break;
          }
          if (!headerBlockFrame) {
            if (!inChunk) out.push(headerBytes());
            this.remaining = length;
            this.state = length ? 'pass' : 'header';
            break;
          }
          // A HEADERS or CONTINUATION frame: held back until its block is decided.
          if (inChunk) flush(start);
          if (inChunk && n - i >= length) {
            const raw = chunk.subarray(start, i + length);
            const result = this.headerFrame(type, flags, streamId, chunk.subarray(i, i + length), raw);
            i += length;
            if (result === 'pass') {
              // The frame goes on as it came, part of the unchanged run of this chunk.
              from = start;
            } else {
              out.push(...result);
              from = i;
            }
          } else {
            this.collected = Buffer.allocUnsafe(FRAME_HEADER + length);
            header.copy(this.collected, 0, start, start + FRAME_HEADER);
            this.collectedSeen = FRAME_HEADER;
            this.state = 'collect';
            from = i;
            if (length === 0) this.finishCollected(out);
          }
          break;
        }
        case 'collect': {
          const c = this.collected!;
          const take = Math.min(c.length - this.collectedSeen, n - i);
          chunk.copy(c, this.collectedSeen, i, i + take);
          this.collectedSeen += take;
          i = from = i + take;
          if (this.collectedSeen === c.length) this.finishCollected(out);
          break;
        }
      }
    }
    flush(n);
    return out;
  }

  private finishCollected(out: Buffer[]): void {
    const c = this.collected!;
    this.collected = undefined;
    this.state = 'header';
    const result = this.headerFrame(c[3], c[4], c.readUInt32BE(5) & 0x7fffffff, c.subarray(FRAME_HEADER), c);
    out.push(...(result === 'pass' ? [c] : result));
  }

  /** One HEADERS or CONTINUATION frame: what to send for it ('pass': the frame as it came). */
  private headerFrame(type: number, flags: number, streamId: number, payload: Buffer, raw: Buffer): 'pass' | Buffer[] {
    if (type === HEADERS) {
      let start = 0;
      let end = payload.length;
      if (flags & PADDED) {
        if (payload.length < 1) return this.refuse(streamId);
        end -= payload[0];
        start = 1;
      }
      let priority: Buffer | undefined;
      if (flags & PRIORITY) {
        priority = payload.subarray(start, start + 5);
        start += 5;
      }
      // Padding or priority longer than the frame: the server would refuse it (PROTOCOL_ERROR).
      if (end < start) return this.refuse(streamId);
      this.block = { streamId, flags: flags & (END_STREAM | PRIORITY), priority, fragments: [payload.subarray(start, end)], size: end - start, raw: [raw] };
    } else {
      const b = this.block!;
      if (streamId !== b.streamId) return this.refuse(b.streamId);
      b.fragments.push(payload);
      b.size += payload.length;
      b.raw.push(raw);
    }
    const b = this.block!;
    if (b.size > MAX_HEADER_BLOCK) return this.refuse(b.streamId);
    if (!(flags & END_HEADERS)) return [];
    this.block = undefined;
    return this.decide(b, raw);
  }

  /** A complete block: passed on as it came, or re-encoded. */
  private decide(b: OpenBlock, lastRaw: Buffer): 'pass' | Buffer[] {
    let fields: HeaderField[];
    try {
      fields = this.hpack.decode(b.fragments.length === 1 ? b.fragments[0] : Buffer.concat(b.fragments, b.size));
    } catch (err) {
      if (!(err instanceof HpackError)) throw err;
      if (this.reencoding) return this.refuse(b.streamId);
      // The server's table is the client's: it fails on the same bytes and says so (COMPRESSION_ERROR).
      this.state = 'raw';
      return b.raw.length === 1 && b.raw[0] === lastRaw ? 'pass' : b.raw;
    }
    let changed = false;
    let authority = false;
    let request = false;
    for (const f of fields) {
      if (f.name === ':method') request = true;
      if (f.name === ':authority' || f.name === 'host') {
        authority = true;
        if (!authorityAccepted(f.value)) {
          f.value = NORMAL_AUTHORITY;
          f.neverIndex = false;
          changed = true;
        }
      }
    }
    // nghttp2 also refuses a request with neither `:authority` nor `host` (HTTP/2 allows it): one is
    // added, among the pseudo-header fields, which come first. Trailers (no `:method`) have none.
    if (request && !authority) {
      const at = fields.findIndex((f) => !f.name.startsWith(':'));
      fields.splice(at < 0 ? fields.length : at, 0, { name: ':authority', value: NORMAL_AUTHORITY, neverIndex: false });
      changed = true;
    }
    if (!changed && !this.reencoding) return b.raw.length === 1 && b.raw[0] === lastRaw ? 'pass' : b.raw;
    this.reencoding = true;
    return this.frames(b.streamId, b.flags, b.priority, encodeWithoutIndexing(fields));
  }

  /** HEADERS then CONTINUATION frames of at most MAX_FRAME_SIZE each. */
  private frames(streamId: number, flags: number, priority: Buffer | undefined, block: Buffer): Buffer[] {
    const out: Buffer[] = [];
    const first = priority ? MAX_FRAME_SIZE - priority.length : MAX_FRAME_SIZE;
    const head = block.subarray(0, first);
    const last = head.length === block.length;
    out.push(frame(HEADERS, flags | (last ? END_HEADERS : 0), streamId, priority ? Buffer.concat([priority, head]) : head));
    for (let at = first; at < block.length; at += MAX_FRAME_SIZE) {
      const end = Math.min(at + MAX_FRAME_SIZE, block.length);
      out.push(frame(CONTINUATION, end === block.length ? END_HEADERS : 0, streamId, block.subarray(at, end)));
    }
    return out;
  }

  /**
   * A block the server must not see: in its place one whose only field is index 0, which every HPACK
   * decoder refuses (RFC 7541 §6.1), so the server ends the connection with its own GOAWAY. Nothing
   * more from the client is passed on.
   */
  private refuse(streamId: number): Buffer[] {
    this.block = undefined;
    this.collected = undefined;
    this.refuseFurther();
    return [frame(HEADERS, END_HEADERS | END_STREAM, streamId || 1, Buffer.from([0x80]))];
  }

  private refuseFurther(): void {
    this.state = 'refused';
    this.refused = true;
  }
}

/**
 * One accepted connection as the grpc-js server reads it: the client's bytes through an
 * AuthorityRewriter, the server's bytes straight to the socket. Ends and errors of either side end both.
 */
class AuthorityStream extends Duplex {
  private readonly rewriter = new AuthorityRewriter();
  private refusedTimer?: NodeJS.Timeout;

  constructor(private readonly socket: Socket) {
    super({ allowHalfOpen: true });
    socket.on('data', (chunk: Buffer) => this.fromClient(chunk));
    socket.on('end', () => this.push(null));
    // A reset by the client is its way of leaving: the session goes, without an error to report.
    socket.on('error', () => this.destroy());
    socket.on('close', () => this.destroy());
  }

  private fromClient(chunk: Buffer): void {
    let out: Buffer[];
    try {
      out = this.rewriter.push(chunk);
    } catch {
      this.destroy();
      return;
    }
    let more = true;
    for (const b of out) more = this.push(b) && more;
    if (!more) this.socket.pause();
    if (this.rewriter.refused && !this.refusedTimer) {
      // The server closes on the refused block; if it has not, the connection goes anyway.
      this.refusedTimer = setTimeout(() => this.destroy(), REFUSED_CLOSE_MS);
      this.refusedTimer.unref();
    }
  }

  override _read(): void {
    this.socket.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.socket.write(chunk, cb);
  }

  override _writev(chunks: { chunk: Buffer }[], cb: (err?: Error | null) => void): void {
    this.socket.cork();
    for (let k = 0; k < chunks.length - 1; k++) this.socket.write(chunks[k].chunk);
    this.socket.write(chunks[chunks.length - 1].chunk, cb);
    this.socket.uncork();
  }

  override _final(cb: (err?: Error | null) => void): void {
    this.socket.end(cb);
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    clearTimeout(this.refusedTimer);
    this.socket.destroy();
    cb(err);
  }
}

export interface AnyAuthorityListener {
  /**
   * Stops accepting connections. Connections already handed over end with the grpc server's
   * sessions (its tryShutdown/forceShutdown); call `destroyConnections()` after that for any left.
   */
  stop(): void;
  /** Destroys every connection still open, and resolves once the listener is closed. */
  destroyConnections(): Promise<void>;
}

/**
 * Serves `server` on the unix socket `path` (its directory prepared by the caller: prepareSocketPath)
 * for clients that send any `:authority`. Resolves once the socket listens.
 */
export async function listenAnyAuthority(server: grpc.Server, path: string): Promise<AnyAuthorityListener> {
  const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
  const sockets = new Set<Socket>();
  const listener: NetServer = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    injector.injectConnection(new AuthorityStream(socket));
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(path, () => {
      listener.off('error', reject);
      resolve();
    });
  });
  const closed = new Promise<void>((resolve) => listener.once('close', () => resolve()));
  return {
    stop() {
      if (listener.listening) listener.close();
    },
    async destroyConnections() {
      if (listener.listening) listener.close();
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
