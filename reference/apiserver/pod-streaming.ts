// pods/exec, pods/attach and pods/portforward (upstream pkg/registry/core/pod/rest ExecREST, AttachREST,
// PortForwardREST and the upgrade-aware proxy behind them): the API request's options become the
// agent's query (`stdin=true` -> `input=1`...), the pod's node's agent is reached as the node proxy
// reaches it (NodeProxy.openAgent: its address checks, the server's agent-client CERTIFICATE, never the
// client's credentials), and the client's upgrade is forwarded there: SPDY/3.1 and WebSocket
// (v4/v5.channel.k8s.io) byte for byte once the agent answers 101. A port forward that asks for the
// WebSocket tunnel of SPDY (`SPDY/3.1+portforward.k8s.io`, kubectl 1.30+) is translated as upstream's
// TunnelingHandler does: a SPDY upgrade to the agent, and once it is accepted, the WebSocket handshake
// with the client, SPDY bytes in binary messages both ways. Upstream translates WebSocket exec to SPDY
// for its kubelets too (StreamTranslatorHandler); the agent here speaks WebSocket itself, so exec and
// attach upgrades go through as sent.
//
// Authorization: the filter ahead of routing checks the method's verb (POST: create, GET: get) on the
// subresource; a WebSocket upgrade (a GET) must also be allowed `create`, as upstream 1.35+
// (AuthorizePodWebsocketUpgradeCreatePermission, on by default). Every session is bounded: an idle
// timeout (no bytes either way), a cap on open sessions, a deadline for the agent's answer; either
// side closing closes the other; the server's shutdown closes them all.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { badRequest, isStatusError, methodNotAllowed, StatusError } from './errors.js';
import type { NodeProxy } from './node-proxy.js';
import type { Registry } from './registry.js';
import type { Authorizer } from './auth/authorizer.js';
import { requestUser } from './auth/filter.js';
import { requestInfo } from './auth/request-info.js';
import { forbiddenError } from './auth/responses.js';
import { acceptKey, closeFrame, frame, FrameReader, OP } from './ws-frames.js';

export const STREAMING_SUBRESOURCES = ['exec', 'attach', 'portforward'] as const;
export type StreamingSubresource = (typeof STREAMING_SUBRESOURCES)[number];
/** The agent's path for each (upstream's kubelet paths). */
const AGENT_PATH: Record<StreamingSubresource, string> = { exec: 'exec', attach: 'attach', portforward: 'portForward' };

/** kubectl's WebSocket tunnel of SPDY for port forwarding (upstream constants.WebsocketsSPDYTunnelingPrefix). */
const TUNNEL_PREFIX = 'SPDY/3.1+';
const K8S_SUFFIX = '.k8s.io';

/** No byte either way for this long ends a session (upstream's kubelet streaming-connection-idle-timeout). */
export const DEFAULT_IDLE_TIMEOUT_MS = 4 * 3600 * 1000;
/** Open sessions at most; more are answered 429. */
export const DEFAULT_MAX_SESSIONS = 256;
/** The longest response head accepted from an agent, and the largest WebSocket frame from a client. */
const MAX_HEAD_BYTES = 64 * 1024;
const MAX_FRAME_BYTES = 16 << 20;

/** Upgraded connections the server's 'upgrade' listener hands over, by request (apiserver.ts). */
const upgrades = new WeakMap<IncomingMessage, { socket: Duplex; head: Buffer }>();

export function handOverUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
  upgrades.set(req, { socket, head });
}

const PATH = /^\/+api\/+v1\/+namespaces\/+([^/]+)\/+pods\/+([^/]+)\/+(exec|attach|portforward)\/*$/;

/** Whether a request URL addresses one of these subresources (the server routes their upgrades here). */
export function isStreamingUrl(url: string): boolean {
  const qi = url.indexOf('?');
  return PATH.test(qi < 0 ? url : url.slice(0, qi));
}

export interface PodStreamingOptions {
  readonly registry: Registry;
  /** Reaches agents (NodeProxy.openAgent); its timeout bounds the agent's answer. */
  readonly agents: NodeProxy;
  /** The server's authorizer, for the WebSocket upgrade's `create` check. */
  readonly authorizer: Authorizer;
  readonly idleTimeoutMs?: number;
  readonly maxSessions?: number;
  readonly log?: (message: string, err?: unknown) => void;
}

interface Pod {
  metadata: { name?: string; namespace?: string };
  spec?: { nodeName?: string; containers?: Array<{ name?: string }>; initContainers?: Array<{ name?: string }>; ephemeralContainers?: Array<{ name?: string }> };
}

export class PodStreaming {
  private readonly sessions = new Set<() => void>();

  constructor(private readonly o: PodStreamingOptions) {}

  /** Whether the path segments (decoded) address one of these subresources. */
  static matches(segs: readonly string[]): boolean {
    return segs.length === 7 && segs[0] === 'api' && segs[1] === 'v1' && segs[2] === 'namespaces' && segs[4] === 'pods'
      && (STREAMING_SUBRESOURCES as readonly string[]).includes(segs[6]!);
  }

  get openSessions(): number {
    return this.sessions.size;
  }

  /** Ends every open session (server shutdown: upgraded sockets are no longer the HTTP server's). */
  closeAll(): void {
    for (const end of [...this.sessions]) end();
  }

  /** Answers the request; rejects with a StatusError only while nothing has been written. */
  async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = req.url ?? '/';
    const qi = raw.indexOf('?');
    const m = PATH.exec(qi < 0 ? raw : raw.slice(0, qi))!;
    const namespace = decodeURIComponent(m[1]!);
    const name = decodeURIComponent(m[2]!);
    const sub = m[3] as StreamingSubresource;
    if (req.method !== 'GET' && req.method !== 'POST') throw methodNotAllowed();
    const query = new URLSearchParams(qi < 0 ? '' : raw.slice(qi + 1));
    const upgrade = upgrades.get(req);
    const ws = isWebSocket(req);
    if (req.method === 'GET' && ws && upgrade) {
      // Upstream AuthorizePodWebsocketUpgradeCreatePermission: the handshake is a GET, the act a create.
      const attrs = { ...requestInfo('POST', raw), user: requestUser(req) };
      const d = await this.o.authorizer.authorize(attrs);
      if (!d.allowed) throw forbiddenError(attrs, d.reason);
    }
    const { agentQuery, container } = agentOptions(sub, query);
    const pods = this.o.registry.byGroupResource('', 'pods')!;
    const pod = (await pods.get(namespace, name)) as Pod;
    const target = sub === 'portforward' ? '' : chosenContainer(pod, name, container);
    const node = pod.spec?.nodeName;
    if (!node) throw badRequest(`pod ${name} does not have a host assigned`);
    if (!upgrade) throw badRequest('Upgrade request required');
    if (this.sessions.size >= (this.o.maxSessions ?? DEFAULT_MAX_SESSIONS)) throw tooManySessions();
    const tunnel = sub === 'portforward' && ws ? tunnelProtocols(req) : [];
    if (tunnel.length && !req.headers['sec-websocket-key']) throw badRequest('unable to upgrade: missing Sec-WebSocket-Key');

    const path = `/${AGENT_PATH[sub]}/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}${target ? `/${encodeURIComponent(target)}` : ''}`;
    const search = agentQuery.toString();
    const { socket: backend, where } = await this.o.agents.openAgent(node);
    const requestHead = tunnel.length ? spdyRequestHead(req, `${path}${search ? `?${search}` : ''}`, where, tunnel) : forwardedRequestHead(req, `${path}${search ? `?${search}` : ''}`, where);
    let answer: { head: Buffer; rest: Buffer; status: number; headers: Map<string, string> };
    try {
      answer = await exchangeHead(backend, requestHead, tunnel.length ? Buffer.alloc(0) : upgrade.head, this.o.agents.timeout);
    } catch (err) {
      backend.destroy();
      throw dialError(err);
    }
    // From here on the client's socket is this module's: nothing is answered through `res`.
    const client = upgrade.socket as Socket;
    res.detachSocket(client);
    res.statusCode = answer.status;
    // The client left while the agent was answering: nothing to forward, nothing may stay open.
    if (client.destroyed || !client.writable) {
      backend.destroy();
      client.destroy();
      return finished(res);
    }
    if (tunnel.length && answer.status === 101) {
      if (!/\bupgrade\b/i.test(answer.headers.get('connection') ?? '') || !/spdy\/3\.1/i.test(answer.headers.get('upgrade') ?? '')) {
        client.end(rawAnswer(500, 'unable to upgrade: missing upgrade headers in response'));
        backend.destroy();
        return finished(res);
      }
      const chosen = answer.headers.get('x-stream-protocol-version')?.trim();
      client.write(['HTTP/1.1 101 Switching Protocols', 'Upgrade: websocket', 'Connection: Upgrade',
        `Sec-WebSocket-Accept: ${acceptKey(String(req.headers['sec-websocket-key']))}`,
        ...(chosen ? [`Sec-WebSocket-Protocol: ${TUNNEL_PREFIX}${chosen}`] : []), '', ''].join('\r\n'));
      this.tunnel(client, backend, upgrade.head, answer.rest, res);
      return;
    }
    client.write(answer.head);
    if (answer.rest.length) client.write(answer.rest);
    if (answer.status === 101) {
      this.splice(client, backend, res);
      return;
    }
    // A refusal (the agent's 4xx/5xx, which ends its connection): passed on as written, then closed.
    this.splice(client, backend, res, true);
  }

  /** Bytes both ways with backpressure until either side goes or the session idles. */
  private splice(client: Socket, backend: Socket, res: ServerResponse, answerOnly = false): void {
    const end = this.session(client, backend, res);
    backend.on('data', (d: Buffer) => { if (!client.write(d)) backend.pause(); });
    client.on('drain', () => backend.resume());
    if (!answerOnly) {
      client.on('data', (d: Buffer) => { if (!backend.write(d)) client.pause(); });
      backend.on('drain', () => client.resume());
      client.resume();
    }
    backend.on('end', () => client.end());
    client.on('end', () => backend.end());
    backend.on('close', end);
    client.on('close', end);
    backend.resume();
  }

  /** The WebSocket tunnel of SPDY: binary messages from the client to the agent's SPDY connection, and back. */
  private tunnel(client: Socket, backend: Socket, head: Buffer, early: Buffer, res: ServerResponse): void {
    const end = this.session(client, backend, res);
    const reader = new FrameReader({
      data: (p) => { if (!backend.write(p)) client.pause(); },
      reply: (f) => { if (client.writable) client.write(f); },
      end: () => { backend.destroy(); client.end(); },
    }, MAX_FRAME_BYTES);
    if (early.length) client.write(frame(OP.binary, early));
    backend.on('data', (d: Buffer) => { if (!client.write(frame(OP.binary, d))) backend.pause(); });
    client.on('drain', () => backend.resume());
    backend.on('drain', () => client.resume());
    client.on('data', (d: Buffer) => reader.feed(d));
    if (head.length) reader.feed(head);
    client.resume();
    backend.on('end', () => { if (client.writable) client.end(closeFrame(1000)); });
    client.on('end', () => backend.destroy());
    backend.on('close', end);
    client.on('close', end);
    backend.resume();
  }

  /**
   * Registers a session: ended (both sockets destroyed) when either closes, on the idle timeout, or at
   * the server's shutdown; the request's metrics are recorded then (`close` on the response).
   */
  private session(client: Socket, backend: Socket, res: ServerResponse): () => void {
    let ended = false;
    const idle = setTimeout(() => {
      this.o.log?.(`pod streaming: closing a session idle for ${Math.round((this.o.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS) / 1000)} s`);
      end();
    }, this.o.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS);
    idle.unref();
    const touch = () => idle.refresh();
    const end = () => {
      if (ended) return;
      ended = true;
      clearTimeout(idle);
      this.sessions.delete(end);
      client.destroy();
      backend.destroy();
      finished(res);
    };
    this.sessions.add(end);
    client.on('data', touch);
    backend.on('data', touch);
    client.on('error', end);
    backend.on('error', end);
    return end;
  }
}

/** The response is over (the metrics wrapper records it on `close`). */
function finished(res: ServerResponse): void {
  res.emit('close');
}

function tooManySessions(): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too many open exec, attach and port-forward sessions, please try again later', reason: 'TooManyRequests', details: { retryAfterSeconds: 1 }, code: 429 });
}

function dialError(err: unknown): StatusError {
  if (isStatusError(err)) return err;
  const msg = `error dialing backend: ${(err as Error).message}`;
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: msg, reason: 'InternalError', details: { causes: [{ message: msg }] }, code: 500 });
}

function isWebSocket(req: IncomingMessage): boolean {
  return String(req.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

/** The SPDY protocols a tunneling client offers (upstream spdyProtocolsFromWebsocketProtocols). */
function tunnelProtocols(req: IncomingMessage): string[] {
  return String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim())
    .filter((p) => p.startsWith(TUNNEL_PREFIX) && p.endsWith(K8S_SUFFIX)).map((p) => p.slice(TUNNEL_PREFIX.length));
}

/** Go's strconv.ParseBool, which upstream's query conversion uses. */
function parseBool(name: string, v: string | null): boolean {
  if (v === null) return false;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False', ''].includes(v)) return false;
  throw badRequest(`${name}: invalid value ${JSON.stringify(v)}: strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
}

/**
 * The API options (PodExecOptions, PodAttachOptions, PodPortForwardOptions, from the query) as the
 * agent's query (upstream streamParams): input/output/error/tty as `1`, command and port repeated.
 */
function agentOptions(sub: StreamingSubresource, q: URLSearchParams): { agentQuery: URLSearchParams; container: string } {
  const out = new URLSearchParams();
  if (sub === 'portforward') {
    for (const p of q.getAll('ports')) {
      if (!/^-?\d+$/.test(p) || Number(p) < -2147483648 || Number(p) > 2147483647) throw badRequest(`ports: invalid value ${JSON.stringify(p)}: strconv.ParseInt: parsing ${JSON.stringify(p)}: invalid syntax`);
      out.append('port', String(Number(p)));
    }
    return { agentQuery: out, container: '' };
  }
  const flags: Array<[string, string]> = [['stdin', 'input'], ['stdout', 'output'], ['stderr', 'error'], ['tty', 'tty']];
  for (const [api, agent] of flags) if (parseBool(api, q.get(api))) out.append(agent, '1');
  if (sub === 'exec') for (const c of q.getAll('command')) out.append('command', c);
  return { agentQuery: out, container: q.get('container') ?? '' };
}

/** Upstream streamLocation's container choice: the named one (any kind), or the only one. */
function chosenContainer(pod: Pod, name: string, container: string): string {
  const names = (list?: Array<{ name?: string }>) => (list ?? []).map((c) => c.name ?? '');
  const containers = names(pod.spec?.containers);
  if (container) {
    if (![...containers, ...names(pod.spec?.initContainers), ...names(pod.spec?.ephemeralContainers)].includes(container)) {
      throw badRequest(`container ${container} is not valid for pod ${name}`);
    }
    return container;
  }
  if (containers.length === 1) return containers[0]!;
  if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
  const init = names(pod.spec?.initContainers);
  throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]${init.length ? ` or one of the init containers: [${init.join(' ')}]` : ''}`);
}

/** Headers that never go to the agent: the client's credentials and impersonation, and the host. */
const NOT_FORWARDED = /^(host|authorization|cookie|proxy-authorization|impersonate-.*|content-length|transfer-encoding)$/i;

/** The client's upgrade request, for the agent's path, its headers but its credentials. */
function forwardedRequestHead(req: IncomingMessage, path: string, where: string): string {
  const lines = [`${req.method} ${path} HTTP/1.1`, `Host: ${where}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (!NOT_FORWARDED.test(req.rawHeaders[i]!)) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Upstream createSPDYRequest: the WebSocket handshake turned into a SPDY upgrade POST offering `protocols`. */
function spdyRequestHead(req: IncomingMessage, path: string, where: string, protocols: string[]): string {
  const lines = [`POST ${path} HTTP/1.1`, `Host: ${where}`, 'Connection: Upgrade', 'Upgrade: SPDY/3.1', ...protocols.map((p) => `X-Stream-Protocol-Version: ${p}`), 'Content-Length: 0'];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const k = req.rawHeaders[i]!;
    if (NOT_FORWARDED.test(k) || /^(connection|upgrade|sec-websocket-.*|x-stream-protocol-version)$/i.test(k)) continue;
    lines.push(`${k}: ${req.rawHeaders[i + 1]}`);
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Sends the request head (and the client's first bytes) and reads the agent's response head, within `timeoutMs`. */
function exchangeHead(backend: Socket, head: string, early: Buffer, timeoutMs: number): Promise<{ head: Buffer; rest: Buffer; status: number; headers: Map<string, string> }> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => done(new Error(`no response within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    const done = (err?: Error, value?: { head: Buffer; rest: Buffer; status: number; headers: Map<string, string> }) => {
      clearTimeout(timer);
      backend.off('data', onData);
      backend.off('error', onError);
      backend.off('close', onClose);
      if (err) reject(err);
      else {
        backend.pause();
        resolve(value!);
      }
    };
    const onError = (err: Error) => done(err);
    const onClose = () => done(new Error('the agent closed the connection'));
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        if (buf.length > MAX_HEAD_BYTES) done(new Error('the agent\'s answer has no end of headers'));
        return;
      }
      const text = buf.subarray(0, end).toString('latin1');
      const [statusLine, ...headerLines] = text.split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? NaN);
      if (!Number.isFinite(status)) return done(new Error(`malformed answer ${JSON.stringify(statusLine)}`));
      const headers = new Map<string, string>();
      for (const line of headerLines) {
        const c = line.indexOf(':');
        if (c > 0) headers.set(line.slice(0, c).trim().toLowerCase(), line.slice(c + 1).trim());
      }
      done(undefined, { head: buf.subarray(0, end + 4), rest: buf.subarray(end + 4), status, headers });
    };
    backend.on('data', onData);
    backend.on('error', onError);
    backend.on('close', onClose);
    backend.write(head);
    if (early.length) backend.write(early);
  });
}

/** A plain answer written on the taken-over socket. */
function rawAnswer(status: number, body: string): string {
  return `HTTP/1.1 ${status} ${status === 500 ? 'Internal Server Error' : 'Error'}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}
