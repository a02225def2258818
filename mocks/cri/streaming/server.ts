// The mock CRI runtime's streaming server, as real runtimes have one (containerd's CRI plugin serves
// k8s.io/kubelet/pkg/cri/streaming): Exec, Attach and PortForward validate their request, keep it under a
// single-use token (tokens.ts) and answer `http://127.0.0.1:<port>/{exec,attach,portforward}/<token>`. A
// client upgrades a GET or POST of that URL to SPDY/3.1 (spdy.ts) or to a WebSocket and speaks the remote
// command (remotecommand.ts) or port forwarding (portforward.ts) protocol over it.
//
// Bounds: what is queued toward a client is capped (maxQueuedBytes; a client that does not read is cut
// off), a connection idle for idleTimeoutMs is closed (upstream's default is 4 hours; the mock's 15
// minutes), streams must all be opened within creationTimeoutMs (upstream's 30 s).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import { WebSocketServer, type WebSocket } from 'ws';
import { CriError, type Runtime } from '../state.js';
import { RequestCache, MAX_IN_FLIGHT, TOKEN_TTL_MS } from './tokens.js';
import { SpdyConnection, type SpdyStream } from './spdy.js';
import {
  SPDY_REMOTE_COMMAND_PROTOCOLS, WS_REMOTE_COMMAND_PROTOCOLS, serveSpdyRemoteCommand, serveWsRemoteCommand, type StartCommand, type StreamOptions,
} from './remotecommand.js';
import { startExec } from './exec.js';
import { startAttach } from './attach.js';
import { spdyPortForward, wsPortForward } from './portforward.js';
import type { AttachRequestMsg, ExecRequestMsg, PortForwardRequestMsg } from './types.js';

export interface StreamingOptions {
  /** A connection with no traffic for this long is closed; default 15 minutes. */
  idleTimeoutMs?: number;
  /** The client must open its streams within this; default 30 s (upstream's). */
  creationTimeoutMs?: number;
  /** How long a token stays valid; default 1 minute (upstream's). */
  tokenTtlMs?: number;
  /** Tokens waiting at once; default 1000 (upstream's). */
  maxInFlight?: number;
  /** Bytes queued toward one client before it is cut off as not reading; default 8 MiB. */
  maxQueuedBytes?: number;
}

export const DEFAULT_IDLE_TIMEOUT_MS = 15 * 60_000;
export const DEFAULT_CREATION_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_QUEUED_BYTES = 8 << 20;
export const PORT_FORWARD_PROTOCOL = 'portforward.k8s.io';
const WS_PORT_FORWARD_PROTOCOLS = ['v4.channel.k8s.io'];

type Pending =
  | { kind: 'exec'; req: ExecRequestMsg }
  | { kind: 'attach'; req: AttachRequestMsg }
  | { kind: 'portforward'; req: PortForwardRequestMsg };

const invalid = (msg: string) => new CriError(grpc.status.INVALID_ARGUMENT, msg);

/** Upstream's validateExecRequest (k8s.io/kubelet/pkg/cri/streaming/server.go). */
function validateExec(req: ExecRequestMsg): void {
  if (!req.container_id) throw invalid('missing required container_id');
  // TTY multiplexes nothing: stdout and stderr are one terminal.
  if (req.tty && req.stderr) throw invalid('tty and stderr cannot both be true');
  if (!req.stdin && !req.stdout && !req.stderr) throw invalid('one of stdin, stdout, or stderr must be set');
}

/** Upstream's validateAttachRequest (its words differ from exec's by one "and"). */
function validateAttach(req: AttachRequestMsg): void {
  if (!req.container_id) throw invalid('missing required container_id');
  if (req.tty && req.stderr) throw invalid('tty and stderr cannot both be true');
  if (!req.stdin && !req.stdout && !req.stderr) throw invalid('one of stdin, stdout, and stderr must be set');
}

export class StreamingServer {
  private readonly cache: RequestCache<Pending>;
  /** The subprotocol chosen for each upgrade request, read back by the WebSocket handshake. */
  private readonly chosen = new WeakMap<IncomingMessage, string>();
  private readonly wss = new WebSocketServer({
    noServer: true, maxPayload: 1 << 20, perMessageDeflate: false,
    handleProtocols: (_offered, req) => this.chosen.get(req) || false,
  });
  private readonly sockets = new Set<Duplex>();
  private readonly idleTimeoutMs: number;
  private readonly creationTimeoutMs: number;
  private readonly maxQueuedBytes: number;

  private constructor(private readonly rt: Runtime, private readonly server: Server, readonly baseUrl: string, o: StreamingOptions) {
    this.cache = new RequestCache(o.tokenTtlMs ?? TOKEN_TTL_MS, o.maxInFlight ?? MAX_IN_FLIGHT);
    this.idleTimeoutMs = o.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.creationTimeoutMs = o.creationTimeoutMs ?? DEFAULT_CREATION_TIMEOUT_MS;
    this.maxQueuedBytes = o.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
  }

  /** Listens on 127.0.0.1, a port of the system's choosing. */
  static async start(rt: Runtime, o: StreamingOptions = {}): Promise<StreamingServer> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => { server.off('error', reject); resolve(); });
    });
    const { port } = server.address() as AddressInfo;
    const s = new StreamingServer(rt, server, `http://127.0.0.1:${port}`, o);
    server.on('connection', (sock: Socket) => { s.sockets.add(sock); sock.on('close', () => s.sockets.delete(sock)); });
    server.on('request', (req, res) => {
      // A plain request uses up its token too (upstream consumes it before trying the upgrade).
      const pending = s.take(req);
      const [status, body] = pending ? [400, 'unable to upgrade: missing upgrade headers in request'] : [404, '404 page not found\n'];
      res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
      res.end(body);
    });
    server.on('upgrade', (req, socket, head) => s.upgrade(req, socket, head));
    return s;
  }

  // --- the RPCs' side ---

  getExec(req: ExecRequestMsg): { url: string } {
    validateExec(req);
    return { url: `${this.baseUrl}/exec/${this.cache.insert({ kind: 'exec', req })}` };
  }

  getAttach(req: AttachRequestMsg): { url: string } {
    validateAttach(req);
    return { url: `${this.baseUrl}/attach/${this.cache.insert({ kind: 'attach', req })}` };
  }

  getPortForward(req: PortForwardRequestMsg): { url: string } {
    if (!req.pod_sandbox_id) throw invalid('missing required pod_sandbox_id');
    return { url: `${this.baseUrl}/portforward/${this.cache.insert({ kind: 'portforward', req })}` };
  }

  /** Closes the listener and every connection. */
  async close(): Promise<void> {
    for (const ws of this.wss.clients) ws.terminate();
    for (const sock of this.sockets) sock.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.wss.close();
  }

  // --- the connections' side ---

  /** The pending request the URL's token names (consumed), if the path is one of the three. */
  private take(req: IncomingMessage): Pending | undefined {
    if (req.method !== 'GET' && req.method !== 'POST') return undefined;
    const m = /^\/(exec|attach|portforward)\/([A-Za-z0-9_-]+)$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
    if (!m) return undefined;
    const pending = this.cache.consume(m[2]);
    return pending?.kind === m[1] ? pending : undefined;
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const pending = this.take(req);
    if (!pending) { refuse(socket, 404, '404 page not found\n'); return; }
    const upgrade = String(req.headers.upgrade ?? '').toLowerCase();
    if (upgrade === 'websocket') { this.websocket(req, socket, head, pending); return; }
    if (upgrade !== 'spdy/3.1') { refuse(socket, 400, 'unable to upgrade: missing upgrade headers in request'); return; }
    const offered = headerList(req.headers['x-stream-protocol-version']);
    const supported = pending.kind === 'portforward' ? [PORT_FORWARD_PROTOCOL] : SPDY_REMOTE_COMMAND_PROTOCOLS;
    // Upstream's httpstream.Handshake: the client's first protocol the server knows; none offered is the
    // oldest (v1); offered but none known is 403 with the accepted versions.
    const protocol = offered.length === 0 ? (pending.kind === 'portforward' ? PORT_FORWARD_PROTOCOL : 'channel.k8s.io') : offered.find((p) => supported.includes(p));
    if (!protocol) {
      refuse(socket, 403, `unable to upgrade: unable to negotiate protocol: client supports ${goList(offered)}, server accepts ${goList(supported)}`,
        supported.map((p) => `X-Accepted-Stream-Protocol-Versions: ${p}`));
      return;
    }
    socket.write(['HTTP/1.1 101 Switching Protocols', 'Connection: Upgrade', 'Upgrade: SPDY/3.1', `X-Stream-Protocol-Version: ${protocol}`, '', ''].join('\r\n'));
    const closed = new AbortController();
    let onStream: (s: SpdyStream) => void = (s) => s.cancel();
    const conn = new SpdyConnection(socket, {
      isServer: true, maxQueuedBytes: this.maxQueuedBytes, idleTimeoutMs: this.idleTimeoutMs,
      onStream: (s) => onStream(s), onClose: () => closed.abort(),
    });
    if (pending.kind === 'portforward') {
      onStream = spdyPortForward(this.rt, pending.req.pod_sandbox_id, this.creationTimeoutMs);
    } else {
      const { opts, start } = this.command(pending);
      serveSpdyRemoteCommand(conn, protocol, opts, this.creationTimeoutMs, start, { on: (fn) => { onStream = fn; } }, closed.signal);
    }
    if (head.length) conn.feed(head);
  }

  private websocket(req: IncomingMessage, socket: Duplex, head: Buffer, pending: Pending): void {
    const offered = headerList(req.headers['sec-websocket-protocol']);
    const supported = pending.kind === 'portforward' ? WS_PORT_FORWARD_PROTOCOLS : WS_REMOTE_COMMAND_PROTOCOLS;
    // Port forwarding also takes a client that names no subprotocol (upstream's "" entry); exec and attach need one.
    const protocol = offered.find((p) => supported.includes(p)) ?? (pending.kind === 'portforward' && offered.length === 0 ? '' : undefined);
    if (protocol === undefined) {
      refuse(socket, 400, `unable to upgrade: requested protocol(s) are not supported: ${goList(offered)}; supports ${goList(supported)}`);
      return;
    }
    if (pending.kind === 'portforward' && pending.req.port.length === 0) {
      refuse(socket, 400, 'unable to upgrade: at least one port is required to forward over a WebSocket');
      return;
    }
    this.chosen.set(req, protocol);
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const closed = new AbortController();
      const idle = setTimeout(() => ws.close(1000, 'idle'), this.idleTimeoutMs);
      idle.unref?.();
      ws.on('message', () => idle.refresh());
      ws.on('close', () => { clearTimeout(idle); closed.abort(); });
      ws.on('error', () => ws.terminate());
      const send = (data: Buffer) => {
        if (ws.readyState !== ws.OPEN) return;
        idle.refresh();
        // A client that does not read is cut off rather than buffered without end.
        if (ws.bufferedAmount + data.length > this.maxQueuedBytes) { ws.terminate(); return; }
        ws.send(data, { binary: true });
      };
      if (pending.kind === 'portforward') { wsPortForward(this.rt, pending.req.pod_sandbox_id, pending.req.port, ws as WebSocket, send); return; }
      const { opts, start } = this.command(pending);
      serveWsRemoteCommand(ws as WebSocket, protocol, opts, start, send, closed.signal);
    });
  }

  private command(p: Exclude<Pending, { kind: 'portforward' }>): { opts: StreamOptions; start: StartCommand } {
    const opts = { stdin: p.req.stdin, stdout: p.req.stdout, stderr: p.req.stderr, tty: p.req.tty };
    return { opts, start: p.kind === 'exec' ? startExec(this.rt, p.req) : startAttach(this.rt, p.req) };
  }
}

/** A header given several times or comma-separated, as one list. */
function headerList(v: string | string[] | undefined): string[] {
  return (Array.isArray(v) ? v : v ? [v] : []).flatMap((x) => x.split(',')).map((x) => x.trim()).filter(Boolean);
}

/** A string slice as Go's %v prints it. */
const goList = (l: readonly string[]) => `[${l.join(' ')}]`;

/** An HTTP answer on a socket that was never handed to the HTTP layer's response. */
function refuse(socket: Duplex, status: number, body: string, extra: string[] = []): void {
  const reason = { 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found' }[status] ?? 'Error';
  const text = Buffer.from(body);
  socket.end([`HTTP/1.1 ${status} ${reason}`, 'Content-Type: text/plain; charset=utf-8', 'X-Content-Type-Options: nosniff',
    `Content-Length: ${text.length}`, 'Connection: close', ...extra, '', body].join('\r\n'));
}
