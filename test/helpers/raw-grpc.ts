// gRPC by hand over HTTP/2, for clients grpc-js cannot imitate: Node's http2 client sending whatever
// `:authority` a test asks for (grpc-go of some releases sends the unix socket path), and a raw-frame
// connection for what no client library sends (no `:authority` at all, oversized header blocks).
import http2 from 'node:http2';
import { connect, type Socket } from 'node:net';
import { encodeWithoutIndexing, HpackDecoder, type HeaderField } from '../../cri/hpack.js';

export interface RawAnswer {
  /** grpc-status (from the trailers, or the headers of a trailers-only answer); undefined if none came. */
  code?: number;
  details: string;
  /** The messages, without their 5-byte prefix. */
  messages: Buffer[];
  /** RST_STREAM code when the stream was reset (0 when it ended normally). */
  rstCode: number;
}

/** An HTTP/2 session over the unix socket; the URL only names the default authority Node would send. */
export function rawSession(socketPath: string): http2.ClientHttp2Session {
  const session = http2.connect('http://localhost', { createConnection: () => connect(socketPath) });
  session.on('error', () => {});
  return session;
}

/** One message with gRPC's prefix: uncompressed flag and 32-bit big-endian length. */
export function grpcFrame(message: Buffer): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(message.length, 1);
  return Buffer.concat([prefix, message]);
}

/** Splits a response body into messages (each one whole: the bodies here are read to their end). */
export function grpcMessages(body: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at + 5 <= body.length;) {
    const len = body.readUInt32BE(at + 1);
    out.push(body.subarray(at + 5, at + 5 + len));
    at += 5 + len;
  }
  return out;
}

export interface RawCallOptions {
  /** `/package.Service/Method` */
  path: string;
  authority: string;
  request: Buffer;
  /** grpc-timeout header value, e.g. `200m`. */
  timeout?: string;
  metadata?: Record<string, string>;
  /** Resolve once this many messages came, cancelling the call (for streams that do not end). */
  take?: number;
}

export function rawCall(session: http2.ClientHttp2Session, o: RawCallOptions): Promise<RawAnswer> {
  const headers: http2.OutgoingHttpHeaders = {
    ':method': 'POST', ':scheme': 'http', ':path': o.path, ':authority': o.authority,
    'content-type': 'application/grpc', te: 'trailers', ...o.metadata,
  };
  if (o.timeout) headers['grpc-timeout'] = o.timeout;
  return new Promise((resolve) => {
    const req = session.request(headers);
    let status: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      const raw = status['grpc-status'];
      const message = status['grpc-message'];
      resolve({
        code: raw === undefined ? undefined : Number(raw),
        details: typeof message === 'string' ? decodeURIComponent(message) : '',
        messages: grpcMessages(Buffer.concat(chunks)),
        rstCode: req.rstCode ?? 0,
      });
    };
    req.on('response', (h) => { status = h; });
    req.on('trailers', (h) => { status = h; });
    req.on('data', (c: Buffer) => {
      chunks.push(c);
      if (o.take !== undefined && grpcMessages(Buffer.concat(chunks)).length >= o.take) {
        finish();
        req.close(http2.constants.NGHTTP2_CANCEL);
      }
    });
    req.on('error', () => {});
    req.on('close', finish);
    req.end(grpcFrame(o.request));
  });
}

// ---------------------------------------------------------------------------------------------
// Raw frames

export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

export function h2frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const f = Buffer.alloc(9 + payload.length);
  f.writeUIntBE(payload.length, 0, 3);
  f[3] = type;
  f[4] = flags;
  f.writeUInt32BE(streamId, 5);
  payload.copy(f, 9);
  return f;
}

export interface ServerFrame { type: number; flags: number; streamId: number; payload: Buffer }

/** A connection speaking frames: what the server sent, decoded header blocks, and how it ended. */
export interface RawConnection {
  socket: Socket;
  frames: ServerFrame[];
  /** Header blocks the server sent, by stream, decoded. */
  headers: { streamId: number; fields: HeaderField[] }[];
  /** Resolves when the server closed the connection (or reset it). */
  closed: Promise<void>;
  /** Resolves once a frame of `type` came (or the connection closed: then undefined). */
  waitFor(type: number, streamId?: number): Promise<ServerFrame | undefined>;
}

export function rawConnection(socketPath: string): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    const frames: ServerFrame[] = [];
    const headers: RawConnection['headers'] = [];
    const hpack = new HpackDecoder();
    const waiters = new Set<() => void>();
    let buf = Buffer.alloc(0);
    let open = true;
    const closed = new Promise<void>((done) => socket.once('close', () => {
      open = false;
      waiters.forEach((w) => w());
      done();
    }));
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 9 && buf.length >= 9 + buf.readUIntBE(0, 3)) {
        const len = buf.readUIntBE(0, 3);
        const f = { type: buf[3], flags: buf[4], streamId: buf.readUInt32BE(5) & 0x7fffffff, payload: buf.subarray(9, 9 + len) };
        buf = buf.subarray(9 + len);
        frames.push(f);
        // The servers here send no padding, priority or CONTINUATION for these small answers.
        if (f.type === 1) headers.push({ streamId: f.streamId, fields: hpack.decode(f.payload) });
        // SETTINGS: acknowledged, as a client must.
        if (f.type === 4 && !(f.flags & 1)) socket.write(h2frame(4, 1, 0));
      }
      waiters.forEach((w) => w());
    });
    socket.once('connect', () => {
      socket.write(Buffer.concat([PREFACE, h2frame(4, 0, 0)]));
      resolve({
        socket, frames, headers, closed,
        waitFor(type, streamId) {
          return new Promise((done) => {
            const check = () => {
              const f = frames.find((x) => x.type === type && (streamId === undefined || x.streamId === streamId));
              if (f || !open) {
                waiters.delete(check);
                done(f);
              }
            };
            waiters.add(check);
            check();
          });
        },
      });
    });
    socket.once('error', reject);
  });
}

/** A gRPC request's header block, as literals (no dynamic table), with the fields given. */
export function requestBlock(path: string, extra: [string, string][] = [], authority?: string): Buffer {
  const fields: [string, string][] = [[':method', 'POST'], [':scheme', 'http'], [':path', path]];
  if (authority !== undefined) fields.push([':authority', authority]);
  fields.push(['content-type', 'application/grpc'], ['te', 'trailers'], ...extra);
  return encodeWithoutIndexing(fields.map(([name, value]) => ({ name, value, neverIndex: false })));
}
