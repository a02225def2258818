// Clients of the Kubernetes streaming protocols for the tests: remote command (exec/attach) and port
// forwarding over WebSocket (the `ws` package) and over SPDY/3.1 (the mock's framing, mocks/cri/streaming/
// spdy.ts, run as the client end: the header compression is Node's zlib with the SPDY/3 dictionary).
// Every wait is bounded.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import { WebSocket } from 'ws';
import { SpdyConnection, type SpdyStream } from '../../mocks/cri/streaming/spdy.js';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startReference } from '../../reference/server.js';
import { startMockCri } from '../../mocks/cri/server.js';
import { ApiClient } from '../../reference/client/api-client.js';
import { startAgent } from '../../reference/agent/agent.js';
import { DEFAULT_AUTH_SETTINGS } from '../../reference/agent/auth/settings.js';

export interface Target {
  url: string;
  /** Extra request headers (Authorization for the agent). */
  headers?: Record<string, string>;
  /** TLS options for https targets (ca, cert, key, rejectUnauthorized). */
  tls?: Record<string, unknown>;
}

export interface CommandResult {
  protocol: string;
  stdout: string;
  stderr: string;
  /** What came on the error channel (a JSON Status with v4 and later). */
  error: string;
  /** The channels in the order their first message came (WebSocket only). */
  firstChannel?: number;
}

export type Refusal = { refused: true; status: number; body: string; headers: IncomingHttpHeaders };

const TIMEOUT_MS = 10_000;

function withTimeout<T>(p: Promise<T>, what: string, ms = TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms); })])
    .finally(() => clearTimeout(timer));
}

// --- WebSocket ---

export interface WsSession {
  ws: WebSocket;
  protocol: string;
  /** Messages as they came: channel and payload. */
  messages: { ch: number; data: Buffer }[];
  send(ch: number, data: Buffer | string): void;
  /** Resolves when the server closed the connection. */
  closed: Promise<void>;
  /** Resolves once some message satisfies `pred` (bounded). */
  until(pred: (m: { ch: number; data: Buffer }[]) => boolean, what: string): Promise<void>;
}

export function wsConnect(t: Target, protocols: string[]): Promise<WsSession | Refusal> {
  const url = t.url.replace(/^http/, 'ws');
  const ws = new WebSocket(url, protocols, { headers: t.headers ?? {}, ...(t.tls ?? {}) });
  const messages: { ch: number; data: Buffer }[] = [];
  let wake: (() => void) | undefined;
  ws.on('message', (data: Buffer) => { messages.push({ ch: data[0], data: data.subarray(1) }); wake?.(); });
  const closed = new Promise<void>((resolve) => ws.on('close', () => { resolve(); wake?.(); }));
  return withTimeout(new Promise<WsSession | Refusal>((resolve, reject) => {
    ws.on('open', () => resolve({
      ws, protocol: ws.protocol, messages, closed,
      send: (ch, data) => ws.send(Buffer.concat([Buffer.from([ch]), Buffer.from(data)])),
      async until(pred, what) {
        await withTimeout((async () => {
          while (!pred(messages)) {
            if (ws.readyState === ws.CLOSED) throw new Error(`${what}: the connection closed first`);
            await new Promise<void>((r) => { wake = r; });
          }
        })(), what);
      },
    }));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => { body += c; });
      res.on('end', () => resolve({ refused: true, status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    ws.on('error', reject);
  }), `WebSocket to ${url}`);
}

/** Exec/attach over WebSocket: sends stdin (then, with v5, closes it), collects until the server closes. */
export async function wsCommand(t: Target, protocol: string, o: { stdin?: string[]; closeStdin?: boolean; resize?: { Width: number; Height: number } } = {}): Promise<CommandResult | Refusal> {
  const s = await wsConnect(t, [protocol]);
  if ('refused' in s) return s;
  if (o.resize) s.send(4, JSON.stringify(o.resize));
  for (const line of o.stdin ?? []) s.send(0, line);
  if (o.closeStdin) s.ws.send(Buffer.from([255, 0]));
  await withTimeout(s.closed, 'the command to end');
  const text = (ch: number) => Buffer.concat(s.messages.filter((m) => m.ch === ch).map((m) => m.data)).toString();
  return { protocol: s.protocol, stdout: text(1), stderr: text(2), error: text(3), firstChannel: s.messages[0]?.ch };
}

// --- SPDY ---

/** Upgrades a POST of the URL to SPDY/3.1 offering `protocols`; the connection, or the refusal. */
export function spdyConnect(t: Target, protocols: string[]): Promise<{ conn: SpdyConnection; protocol: string; socket: Duplex } | Refusal> {
  const u = new URL(t.url);
  const headers: Record<string, string | string[]> = { ...(t.headers ?? {}), Connection: 'Upgrade', Upgrade: 'SPDY/3.1' };
  if (protocols.length) headers['X-Stream-Protocol-Version'] = protocols;
  const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(u, { method: 'POST', headers, ...(t.tls ?? {}) });
  return withTimeout(new Promise((resolve, reject) => {
    req.on('upgrade', (res, socket, head) => {
      const conn = new SpdyConnection(socket, { isServer: false, maxQueuedBytes: 64 << 20, idleTimeoutMs: 0 });
      if (head.length) conn.feed(head);
      resolve({ conn, protocol: String(res.headers['x-stream-protocol-version'] ?? ''), socket });
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

/** Collects a stream's bytes; resolves at its end (FIN, reset or the connection's end). */
export function collect(s: SpdyStream): Promise<string> {
  const chunks: Buffer[] = [];
  return new Promise((resolve) => {
    s.ondata = (d) => chunks.push(d);
    s.onend = () => resolve(Buffer.concat(chunks).toString());
    s.onreset = () => resolve(Buffer.concat(chunks).toString());
  });
}

/** Exec/attach over SPDY, as kubectl opens the streams: error, stdin, stdout, stderr, resize. */
export async function spdyCommand(t: Target, protocols: string[], o: { stdin?: string[]; closeStdin?: boolean; stdout?: boolean; stderr?: boolean; tty?: boolean } = {}): Promise<CommandResult | Refusal> {
  const c = await spdyConnect(t, protocols);
  if ('refused' in c) return c;
  const { conn } = c;
  const open = (type: string) => withTimeout(conn.openStream({ streamType: type }), `the ${type} stream`);
  const error = await open('error');
  const errorText = collect(error);
  const stdin = o.stdin ? await open('stdin') : undefined;
  const stdout = o.stdout !== false ? collect(await open('stdout')) : Promise.resolve('');
  const stderr = o.stderr ? collect(await open('stderr')) : Promise.resolve('');
  if (o.tty) await open('resize');
  for (const line of o.stdin ?? []) stdin!.write(Buffer.from(line));
  if (o.closeStdin) stdin?.end();
  const [out, err, status] = await withTimeout(Promise.all([stdout, stderr, errorText]), 'the command to end');
  conn.destroy('done');
  return { protocol: c.protocol, stdout: out, stderr: err, error: status };
}

/**
 * A reference API server (token authentication, RBAC), the mock CRI and a reference agent serving on
 * 127.0.0.1 in `dir`, all closed at teardown: the agent's /exec, /attach and /portForward to call, with
 * `as(token, path)` giving the request options for one caller.
 */
export async function startStreamingNode(t: { teardown(fn: () => unknown): void }, dir: string, tokens: { token: string; user: string; groups: string[] }[], o: { throughApi?: boolean; https?: boolean; streaming?: { idleTimeoutMs?: number; maxSessions?: number } } = {}) {
  const admin = tokens[0]!.token;
  // throughApi: the API server reaches the agent (at 127.0.0.1, with its agent-client certificate,
  // which the agent accepts through its client CA): pods/exec, attach and portforward.
  // https: kubectl sends no token over plain HTTP.
  const ref = await startReference({ port: 0, auth: { tokens, authorizationMode: 'RBAC' }, ...(o.https ? { tls: 'self-signed' as const } : {}), ...(o.throughApi ? { nodeProxyAllowLoopback: true, agentStreaming: o.streaming } : {}) });
  t.teardown(() => ref.close());
  const cri = await startMockCri({ socket: join(dir, 'cri', 'cri.sock'), root: join(dir, 'cri-state') });
  t.teardown(() => cri.close());
  let clientCaFile: string | undefined;
  if (o.throughApi) {
    clientCaFile = join(dir, 'agent-client-ca.crt');
    mkdirSync(dir, { recursive: true });
    writeFileSync(clientCaFile, ref.agentClientCaPem!);
  }
  const agent = await startAgent({
    api: { url: ref.url, token: admin, caPem: ref.caPem }, criEndpoint: cri.criUrl, nodeName: 'n1', rootDir: join(dir, 'root'), relistPeriodMs: 200,
    serve: { address: '127.0.0.1', port: 0 }, log: () => undefined,
    ...(clientCaFile ? { nodeIP: '127.0.0.1', auth: { ...DEFAULT_AUTH_SETTINGS, clientCaFile } } : {}),
  });
  t.teardown(() => agent.close());
  const api = new ApiClient({ url: ref.url, token: admin, caPem: ref.caPem });
  t.teardown(() => api.close());
  const ca = readFileSync(agent.caFile!, 'utf8');
  const as = (token: string, path: string) => ({ url: `${agent.url}${path}`, headers: { Authorization: `Bearer ${token}` }, tls: { ca } });
  return { ref, cri, agent, api, ca, as };
}
