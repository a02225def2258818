// An independent SPDY/3.1 client for the Kubernetes streaming protocols: spdy-transport 3.0.0's client
// end (its framer, parser, zlib header contexts and flow control), not the mock's own framing
// (mocks/cri/streaming/spdy.ts), so that a mistake made the same way in both directions there shows here.
//
// spdy-transport is an HTTP-over-SPDY library; the Kubernetes protocols use SPDY framing without HTTP
// semantics, and three of its habits make it fail against kubelet-style servers (1 and 2 were seen
// against the mock, whose replies and closing are upstream's; 3 against containerd 1.6, in
// test/cri-containerd.test.ts). Each is bridged here, narrowly:
//  1. A SYN_REPLY must carry `:status` for it (Stream#_handleResponse): without one it answers the reply
//     with RST_STREAM PROTOCOL_ERROR. Upstream's servers (moby/spdystream under apimachinery's
//     httpstream/spdy) reply with an empty header block. Per stream, a reply without `:status` is taken
//     as the reply it is (the override below); the frame itself is still parsed by spdy-transport.
//  2. It destroys every stream when the socket emits 'close' (Connection#_init), while frames read
//     before it may still wait in its parser behind an asynchronous zlib inflate: a server that writes
//     its last frames and closes (as upstream does after a command ends) loses them. The connection is
//     therefore handed a Duplex over the socket whose end is the socket's end but which closes only
//     when this client closes it, after it has read what it waits for.
//  3. It answers a RST_STREAM with a RST_STREAM of its own (Stream#_handleRST calls abort(), which sends
//     one), which SPDY/3.1 forbids ("the recipient must not send additional frames for that stream").
//     Upstream's servers reset every stream when a command ends; containerd 1.6 was seen to stall then,
//     never resetting the error stream, when the client echoed the resets. Per stream, a reset from the
//     server ends it here without a frame back.
// One more difference is NOT bridged, as it is spdy-transport being right about SPDY/3.1: it honours flow
// control, sending at most the 64 KiB initial window (per stream and per connection) until the peer sends
// WINDOW_UPDATE, and upstream's spdystream never does (its frame handler has no case for WINDOW_UPDATE or
// SETTINGS), nor does the mock, which follows it. Uploads past 64 KiB per connection stall there; tests
// keep them below. (It sends WINDOW_UPDATE for what it receives; servers ignore them.)
// Nothing else is changed: the SYN_STREAMs carry spdy-transport's own `:method`, `:path`, `:version`,
// `:host` and `:scheme` besides the stream's headers, which a server must tolerate (Go clients send none).
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createRequire } from 'node:module';
import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import type { CommandResult, Refusal, Target } from './streaming-clients.js';

const require = createRequire(import.meta.url);
// spdy-transport ships no types: what is used of it is typed here.
const transport = require('spdy-transport') as {
  connection: { create(socket: Duplex, o: { protocol: 'spdy'; isServer: false }): SpdyTransportConnection };
};

export interface SpdyTransportStream extends Duplex {
  id: number;
  _handleResponse(frame: { headers: Record<string, string> }): void;
  _handleRST(frame: { code: string }): void;
  /** The RST_STREAM status the server reset the stream with (set by this helper). */
  resetBy?: string;
  _spdyState: { needResponse: boolean; aborted: boolean };
  abort(): void;
}

interface SpdyTransportConnection {
  start(version: number): void;
  request(uri: { method: string; path: string; host: string; headers: Record<string, string>; readable: boolean; writable: boolean }): SpdyTransportStream;
  on(event: 'error' | 'close', fn: (e?: Error) => void): void;
}

const TIMEOUT_MS = 10_000;

function withTimeout<T>(p: Promise<T>, what: string, ms = TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms); })])
    .finally(() => clearTimeout(timer));
}

/** The socket as spdy-transport sees it: its data and its end, but no 'close' until `close()`. */
class HeldSocket extends Duplex {
  constructor(private readonly socket: Socket) {
    super({ allowHalfOpen: true, autoDestroy: false, emitClose: true });
    socket.on('data', (d: Buffer) => { if (!this.push(d)) socket.pause(); });
    socket.on('end', () => this.push(null));
    socket.on('error', () => this.push(null));
  }
  override _read(): void { this.socket.resume(); }
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    if (this.socket.writable) this.socket.write(chunk, () => cb()); else cb();
  }
  override _final(cb: () => void): void { this.socket.end(); cb(); }
}

export interface SpdyTransportSession {
  protocol: string;
  /** Opens a stream with these headers (spdy-transport adds its `:`-headers). */
  open(headers: Record<string, string>): SpdyTransportStream;
  /** Ends the connection (the socket and spdy-transport's view of it). */
  close(): void;
  /** spdy-transport's connection errors, as they came. */
  errors: string[];
}

/** POSTs the URL with `Upgrade: SPDY/3.1` offering `protocols`; the spdy-transport session, or the refusal. */
export function spdyTransportConnect(t: Target, protocols: string[]): Promise<SpdyTransportSession | Refusal> {
  const u = new URL(t.url);
  const headers: Record<string, string | string[]> = { ...(t.headers ?? {}), Connection: 'Upgrade', Upgrade: 'SPDY/3.1' };
  if (protocols.length) headers['X-Stream-Protocol-Version'] = protocols;
  const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(u, { method: 'POST', headers, ...(t.tls ?? {}) });
  return withTimeout(new Promise((resolve, reject) => {
    req.on('upgrade', (res, socket: Socket, head: Buffer) => {
      if (head.length) socket.unshift(head);
      const held = new HeldSocket(socket);
      const conn = transport.connection.create(held, { protocol: 'spdy', isServer: false });
      conn.start(3.1);
      const errors: string[] = [];
      conn.on('error', (e) => errors.push(String(e?.message ?? e)));
      resolve({
        protocol: String(res.headers['x-stream-protocol-version'] ?? ''),
        errors,
        open(streamHeaders) {
          const s = conn.request({ method: 'POST', path: u.pathname, host: u.host, headers: streamHeaders, readable: true, writable: true });
          // (1) above: an empty SYN_REPLY is the reply.
          const own = s._handleResponse.bind(s);
          s._handleResponse = (frame) => {
            if (frame.headers[':status'] !== undefined) { own(frame); return; }
            s._spdyState.needResponse = false;
            s.emit('response', 0, frame.headers);
          };
          // (3) above: a stream the server reset is closed here without a RST_STREAM back.
          s._handleRST = (frame) => {
            if (s._spdyState.aborted) return;
            s._spdyState.aborted = true;
            s.resetBy = frame.code;
            s.push(null);
            process.nextTick(() => s.emit('close', new Error(`reset by the server: ${frame.code}`)));
          };
          s.on('error', () => undefined); // a reset stream: what it carried is what counts
          return s;
        },
        close() { socket.destroy(); held.destroy(); },
      });
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => { body += c; });
      res.on('end', () => resolve({ refused: true, status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  }), `SPDY upgrade of ${t.url}`);
}

/** How the server ended a stream: FIN, RST_STREAM, or neither before the connection went. */
export type StreamEnd = 'fin' | 'reset' | 'closed';

/** A stream's bytes until its end (FIN), a reset, or its close. */
export function readAll(s: Duplex): Promise<string> {
  return readEnd(s).then((r) => r.text);
}

/** A stream's bytes and how it ended. */
export function readEnd(s: Duplex): Promise<{ text: string; end: StreamEnd }> {
  const chunks: Buffer[] = [];
  return new Promise((resolve) => {
    const done = (end: StreamEnd) => resolve({ text: Buffer.concat(chunks).toString(), end });
    s.on('data', (d: Buffer) => chunks.push(d));
    // A reset pushes the end too (see open()), after it has marked the stream.
    s.once('end', () => done((s as SpdyTransportStream).resetBy ? 'reset' : 'fin'));
    s.once('close', () => done((s as SpdyTransportStream).resetBy ? 'reset' : 'closed'));
  });
}

/** Whether the server replied to the stream (SYN_REPLY), within the timeout. */
export function replied(s: SpdyTransportStream): Promise<void> {
  return withTimeout(new Promise<void>((resolve) => s.once('response', () => resolve())), `the reply to stream ${s.id}`);
}

export interface SpdyCommandResult extends CommandResult {
  /** How the server ended each stream the client read. */
  ends: Record<string, StreamEnd>;
}

/**
 * Exec/attach through spdy-transport, streams opened as kubectl opens them (error, stdin, stdout, stderr,
 * resize); waits for the error stream's end (the server's last word), then for stdout and stderr.
 */
export async function spdyTransportCommand(t: Target, protocols: string[],
  o: { stdin?: string[]; closeStdin?: boolean; stdout?: boolean; stderr?: boolean; tty?: boolean } = {}): Promise<SpdyCommandResult | Refusal> {
  const c = await spdyTransportConnect(t, protocols);
  if ('refused' in c) return c;
  try {
    const ends: Record<string, StreamEnd> = {};
    const read = (name: string, s: Duplex) => readEnd(s).then((r) => { ends[name] = r.end; return r.text; });
    const error = c.open({ streamType: 'error' });
    const errorText = read('error', error);
    const stdin = o.stdin ? c.open({ streamType: 'stdin' }) : undefined;
    const stdout = o.stdout !== false ? read('stdout', c.open({ streamType: 'stdout' })) : Promise.resolve('');
    const stderr = o.stderr ? read('stderr', c.open({ streamType: 'stderr' })) : Promise.resolve('');
    if (o.tty) c.open({ streamType: 'resize' });
    await replied(error);
    for (const line of o.stdin ?? []) stdin!.write(Buffer.from(line));
    if (o.closeStdin) stdin?.end();
    const ended: string[] = [];
    const note = (name: string, p: Promise<string>) => p.then((x) => { ended.push(name); return x; });
    const [out, err, status] = await withTimeout(Promise.all([note('stdout', stdout), note('stderr', stderr), note('error', errorText)]), `the command at ${t.url} to end`)
      .catch((e: Error) => { throw new Error(`${e.message} (streams ended: ${ended.join(', ') || 'none'}; connection errors: ${c.errors.join('; ') || 'none'})`); });
    return { protocol: c.protocol, stdout: out, stderr: err, error: status, ends };
  } finally {
    c.close();
  }
}
