// The remote command protocols of exec and attach, on both transports, as upstream's streaming server
// speaks them (k8s.io/kubelet/pkg/cri/streaming/remotecommand: httpstream.go, websocket.go):
//
// SPDY/3.1: the client opens one stream per channel, named by its `streamType` header (error, stdin, stdout,
// stderr, resize: resize only with a TTY and protocol v3 or later), within the stream creation timeout. With
// v4.channel.k8s.io the error stream carries a JSON v1 Status at the end (Success included); with the older
// protocols it carries the error's text, and nothing on success. The error stream then ends by a reset, not
// a FIN, as upstream's connection Close resets the streams it has not closed.
//
// WebSocket (v4.channel.k8s.io, v5.channel.k8s.io): one binary message per write, its first byte the channel
// (0 stdin, 1 stdout, 2 stderr, 3 error, 4 resize); v5 adds 255 <channel> = the client closed that channel
// (stdin EOF). The server first writes an empty message on the lowest channel it writes (stdout, else stderr,
// else error) "to notify the client the connection is established", as upstream does.
//
// Resize messages are JSON TerminalSize objects ({"Width":80,"Height":24}).
import type { WebSocket } from 'ws';
import type { SpdyConnection, SpdyStream } from './spdy.js';
import type { V1Status } from './status.js';

export interface StreamOptions { stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean }

/** Where a command writes, as the transport gives it. */
export interface CommandIO {
  write(stream: 'stdout' | 'stderr', data: Buffer): void;
  /** Writes the status on the error channel and closes the connection. */
  finish(status: V1Status): void;
  /** Fires when the client goes away (or the connection is cut). */
  readonly signal: AbortSignal;
}

/** Where the transport delivers what the client sends. */
export interface StdinSink {
  /** False: the sink is full; the transport stops reading until onDrain. */
  write(data: Buffer): boolean;
  end(): void;
  onDrain(fn: () => void): void;
}

export interface CommandHandle {
  stdin?: StdinSink;
  resize?(width: number, height: number): void;
}

export type StartCommand = (io: CommandIO) => CommandHandle;

/** The remote command protocols, newest first (upstream's SupportedStreamingProtocols). */
export const SPDY_REMOTE_COMMAND_PROTOCOLS = ['v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io', 'channel.k8s.io'];
export const WS_REMOTE_COMMAND_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];

const STREAM_CLOSE = 255;
const CH = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4 } as const;

/** Splits a byte stream of concatenated JSON objects (resize events); bounded. */
function resizeDecoder(onSize: (w: number, h: number) => void): (data: Buffer) => void {
  let text = '';
  return (data) => {
    text += data.toString();
    if (text.length > 4096) text = ''; // not resize events: dropped
    for (;;) {
      const end = text.indexOf('}');
      if (end < 0) return;
      const one = text.slice(text.indexOf('{'), end + 1);
      text = text.slice(end + 1);
      try {
        const size = JSON.parse(one) as { Width?: unknown; Height?: unknown };
        if (typeof size.Width === 'number' && typeof size.Height === 'number') onSize(size.Width, size.Height);
      } catch { /* a malformed event is ignored, as upstream logs and goes on */ }
    }
  };
}

/**
 * Exec/attach over an upgraded SPDY connection: waits for the streams the options call for, then runs the
 * command. Streams missing after `creationTimeoutMs` close the connection, as upstream's "timed out
 * waiting for client to create streams".
 */
export function serveSpdyRemoteCommand(conn: SpdyConnection, protocol: string, opts: StreamOptions, creationTimeoutMs: number, start: StartCommand,
  streams: { on(fn: (s: SpdyStream) => void): void }, closed: AbortSignal): void {
  const v4 = protocol === 'v4.channel.k8s.io';
  const expected = new Set<string>(['error']);
  if (opts.stdin) expected.add('stdin');
  if (opts.stdout) expected.add('stdout');
  if (opts.stderr) expected.add('stderr');
  if (opts.tty && (v4 || protocol === 'v3.channel.k8s.io')) expected.add('resize');
  const got = new Map<string, SpdyStream>();
  // Stdin and resize may flow before every stream is there: held until the command has a sink.
  const held = new Map<string, Buffer[]>();
  const heldEnd = new Set<string>();
  const timer = setTimeout(() => conn.close('timed out waiting for client to create streams'), creationTimeoutMs);
  let started = false;
  streams.on((s) => {
    const type = s.headers.streamtype ?? '';
    if (started || got.has(type) || !['error', 'stdin', 'stdout', 'stderr', 'resize'].includes(type)) { s.cancel(); return; }
    got.set(type, s);
    if (type === 'stdin' || type === 'resize') {
      const chunks: Buffer[] = [];
      held.set(type, chunks);
      s.ondata = (d) => chunks.push(d);
      s.onend = () => heldEnd.add(type);
    }
    if ([...expected].every((t) => got.has(t))) { started = true; clearTimeout(timer); run(); }
  });
  closed.addEventListener('abort', () => clearTimeout(timer), { once: true });

  function run(): void {
    const error = got.get('error')!;
    const io: CommandIO = {
      write(stream, data) { got.get(stream)?.write(data); },
      finish(status) {
        // As containerd (the differential test shows it): a process that ran closed its output, which ends
        // stdout and stderr (FIN); one that never started leaves them open. Then the status, and upstream's
        // connection Close: every stream this side has not closed is reset (RST_STREAM CANCEL; the error
        // stream always), then GOAWAY.
        if (status.status === 'Success' || status.reason === 'NonZeroExitCode') {
          got.get('stdout')?.end();
          got.get('stderr')?.end();
        }
        if (v4) error.write(Buffer.from(JSON.stringify(status)));
        else if (status.status !== 'Success') error.write(Buffer.from(status.message ?? 'error'));
        for (const s of got.values()) if (!s.ended) s.cancel();
        conn.close('the command ended');
      },
      signal: closed,
    };
    const handle = start(io);
    const stdin = got.get('stdin');
    if (stdin) {
      const sink = handle.stdin;
      const deliver = (d: Buffer) => {
        if (sink && !sink.write(d)) { conn.pauseInput(); sink.onDrain(() => conn.resumeInput()); }
      };
      for (const d of held.get('stdin') ?? []) deliver(d);
      if (heldEnd.has('stdin')) sink?.end();
      stdin.ondata = deliver;
      stdin.onend = () => sink?.end();
      stdin.onreset = () => sink?.end();
    }
    const resize = got.get('resize');
    if (resize) {
      const decode = resizeDecoder((w, h) => handle.resize?.(w, h));
      for (const d of held.get('resize') ?? []) decode(d);
      resize.ondata = decode;
    }
  }
}

/** Exec/attach over an accepted WebSocket with a v4 or v5 channel protocol. */
export function serveWsRemoteCommand(ws: WebSocket, protocol: string, opts: StreamOptions, start: StartCommand, send: (data: Buffer) => void, closed: AbortSignal): void {
  const v5 = protocol === 'v5.channel.k8s.io';
  const frame = (ch: number, data: Buffer) => send(Buffer.concat([Buffer.from([ch]), data]));
  // Upstream: an empty message on the lowest writable channel announces the connection.
  frame(opts.stdout ? CH.stdout : opts.stderr ? CH.stderr : CH.error, Buffer.alloc(0));
  let finished = false;
  const io: CommandIO = {
    write(stream, data) { if (!finished && opts[stream]) frame(CH[stream], data); },
    finish(status) {
      if (finished) return;
      finished = true;
      frame(CH.error, Buffer.from(JSON.stringify(status)));
      ws.close(1000);
    },
    signal: closed,
  };
  const handle = start(io);
  const decodeResize = resizeDecoder((w, h) => handle.resize?.(w, h));
  let stdinClosed = false;
  ws.on('message', (raw: Buffer, isBinary: boolean) => {
    const data = isBinary ? raw : Buffer.from(raw);
    if (data.length === 0) return;
    if (v5 && data[0] === STREAM_CLOSE) {
      // 255 <channel>: the client closed that channel; only stdin is the client's to close.
      if (data.length === 2 && data[1] === CH.stdin && !stdinClosed) { stdinClosed = true; handle.stdin?.end(); }
      return;
    }
    const ch = data[0];
    const body = data.subarray(1);
    if (ch === CH.stdin && opts.stdin && !stdinClosed) {
      const sink = handle.stdin;
      if (sink && !sink.write(body)) {
        (ws as any)._socket?.pause();
        sink.onDrain(() => (ws as any)._socket?.resume());
      }
    } else if (ch === CH.resize && opts.tty) {
      decodeResize(body);
    }
  });
  closed.addEventListener('abort', () => { if (!stdinClosed) { stdinClosed = true; handle.stdin?.end(); } }, { once: true });
}
