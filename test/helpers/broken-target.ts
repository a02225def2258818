// A target broken in exactly one rule: an HTTP proxy in front of the reference that rewrites
// requests or responses (or answers by itself) as a breakage says. Proof tests run each case
// against one of these and expect it to fail.
import { Agent as HttpAgent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  /** Path with query string, e.g. `/apis/storage.orch.io/v1/storageclasses?watch=true`. */
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface ProxiedResponse {
  status: number;
  headers: Record<string, string>;
  /** Text; a binary body (protobuf) is a latin1 string: `Buffer.from(body, 'latin1')` gives its bytes. */
  body: string;
}

/** Binary bodies travel as latin1 strings, one char per byte, so a breakage can rewrite them. */
function bodyEncoding(headers: Record<string, string>): BufferEncoding {
  const type = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
  return /protobuf|octet-stream/i.test(type) ? 'latin1' : 'utf8';
}

export interface Breakage {
  /** Rewrites the request in place, or answers it without asking the reference. */
  request?(req: ProxiedRequest): ProxiedResponse | void | Promise<ProxiedResponse | void>;
  /** Rewrites a (non-watch) response in place. */
  response?(req: ProxiedRequest, res: ProxiedResponse): void;
  /** Rewrites one line of a watch stream; returning undefined drops it (several lines: join them with \n). */
  watchLine?(req: ProxiedRequest, line: string): string | undefined;
  /** Rewrites the status and headers of a watch response before they are sent. */
  watchHead?(req: ProxiedRequest, head: { status: number; headers: Record<string, string> }): void;
  /**
   * Called when a watch stream opens: `push` writes a line of its own into the stream (e.g. an
   * event at any moment). The returned function is called once the stream ends.
   */
  watchOpen?(req: ProxiedRequest, push: (line: string) => void): (() => void) | void;
  /** Splits text about to be written to a watch stream into pieces, each written and flushed on its own. */
  watchSplit?(req: ProxiedRequest, text: string): string[];
}

export interface BrokenTarget {
  url: string;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function flat(h: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/**
 * The upstream response's headers without the hop-by-hop ones: the proxy's own connection has its
 * own keep-alive (a client told the upstream's longer idle timeout would reuse a closed socket).
 */
function endToEnd(h: IncomingMessage['headers']): Record<string, string> {
  const out = flat(h);
  for (const k of ['connection', 'keep-alive', 'transfer-encoding']) delete out[k];
  return out;
}

export interface BrokenTargetOptions {
  /** The CA to trust when `upstream` is https (a reference started with TLS gives its `caPem`). */
  caPem?: string;
  /**
   * Serve HTTPS with this certificate (the legal variants, which must keep the HTTPS rules);
   * without it the proxy serves plain HTTP.
   */
  tls?: { certPem: string; keyPem: string };
}

/** A short pause between the pieces of a split watch write, so that they travel apart. */
const PIECE_PAUSE_MS = 2;

/**
 * The proxy serves plain HTTP unless given `tls`: plain HTTP is the breakage for the HTTPS rules,
 * and every other rule's breakage is the same against an http or an https upstream.
 */
export async function startBrokenTarget(upstream: string, breakage: Breakage, opts: BrokenTargetOptions = {}): Promise<BrokenTarget> {
  const up = new URL(upstream);
  const tlsUpstream = up.protocol === 'https:';
  const forward = tlsUpstream ? httpsRequest : httpRequest;
  // One pool of kept-alive connections to the upstream: a TLS handshake (and a secure context
  // built from the CA) per request would cost more than the requests themselves.
  // Idle connections close before the upstream's 5 s keep-alive ends, so none is reused as it closes.
  const pool = { keepAlive: true, timeout: 4_000, scheduling: 'lifo' } as const;
  const agent = tlsUpstream ? new HttpsAgent({ ...pool, ...(opts.caPem ? { ca: opts.caPem } : {}) }) : new HttpAgent(pool);
  const handler = async (inReq: IncomingMessage, outRes: ServerResponse) => {
    try {
      const req: ProxiedRequest = { method: inReq.method ?? 'GET', path: inReq.url ?? '/', headers: flat(inReq.headers), body: await readBody(inReq) };
      const early = await breakage.request?.(req);
      if (early) {
        const headers = { 'content-type': 'application/json', ...early.headers };
        outRes.writeHead(early.status, headers);
        outRes.end(Buffer.from(early.body, bodyEncoding(headers)));
        return;
      }
      const headers: Record<string, string> = { ...req.headers, host: up.host };
      delete headers['content-length'];
      delete headers['transfer-encoding'];
      if (req.body) headers['content-length'] = String(Buffer.byteLength(req.body));
      // URL.hostname keeps an IPv6 address's brackets, which a socket address must not have.
      const target = { host: up.hostname.replace(/^\[(.*)\]$/, '$1'), port: up.port, method: req.method, path: req.path, headers, agent };
      const onResponse = (upRes: IncomingMessage) => {
        const isWatch = /[?&]watch=(true|1)\b/.test(req.path) || req.path.includes('/watch/');
        if (isWatch) {
          // Stream line by line so the case sees events as they happen.
          const head = { status: upRes.statusCode ?? 502, headers: endToEnd(upRes.headers) };
          delete head.headers['content-length'];
          breakage.watchHead?.(req, head);
          outRes.writeHead(head.status, head.headers);
          // The client waits for headers before it writes what it wants to see on the watch.
          outRes.flushHeaders();
          // Writes go through one queue, so that pieces split apart keep their order.
          let queue = Promise.resolve();
          let ended = false;
          const send = (text: string) => {
            const pieces = breakage.watchSplit ? breakage.watchSplit(req, text) : [text];
            queue = queue.then(async () => {
              for (const [i, piece] of pieces.entries()) {
                if (i > 0) await new Promise((resolve) => setTimeout(resolve, PIECE_PAUSE_MS));
                if (!outRes.destroyed && !outRes.writableEnded) outRes.write(piece);
              }
            });
          };
          const emit = (line: string, end = '\n') => {
            const out = breakage.watchLine ? breakage.watchLine(req, line) : line;
            if (out !== undefined) send(`${out}${end}`);
          };
          const stop = breakage.watchOpen?.(req, (line) => { if (!ended) send(`${line}\n`); });
          const finish = () => {
            if (ended) return;
            ended = true;
            stop?.();
          };
          let buf = '';
          upRes.on('data', (c: Buffer) => {
            buf += c.toString('utf8');
            let nl: number;
            while ((nl = buf.indexOf('\n')) >= 0) {
              const line = buf.slice(0, nl);
              buf = buf.slice(nl + 1);
              emit(line);
            }
          });
          upRes.on('end', () => {
            // A body without a final newline (a Status refusing the watch) still gets through.
            if (buf) emit(buf, '');
            finish();
            void queue.then(() => outRes.end());
          });
          outRes.on('close', () => {
            finish();
            upRes.destroy();
          });
          return;
        }
        const chunks: Buffer[] = [];
        upRes.on('data', (c: Buffer) => chunks.push(c));
        upRes.on('end', () => {
          const headers = endToEnd(upRes.headers);
          const res: ProxiedResponse = { status: upRes.statusCode ?? 502, headers, body: Buffer.concat(chunks).toString(bodyEncoding(headers)) };
          breakage.response?.(req, res);
          delete res.headers['content-length'];
          delete res.headers['transfer-encoding'];
          outRes.writeHead(res.status, res.headers);
          outRes.end(Buffer.from(res.body, bodyEncoding(res.headers)));
        });
      };
      const send = (mayRetry: boolean) => {
        const upReq = forward(target, onResponse);
        upReq.on('error', (err: NodeJS.ErrnoException) => {
          // A kept-alive connection the upstream closed just as it was reused: nothing reached
          // the upstream, so the request goes again on a new one (Node's documented remedy).
          if (mayRetry && upReq.reusedSocket && err.code === 'ECONNRESET' && !outRes.headersSent) return send(false);
          if (!outRes.headersSent) outRes.writeHead(502);
          outRes.end(String(err));
        });
        outRes.on('close', () => upReq.destroy());
        upReq.end(req.body || undefined);
      };
      send(true);
    } catch (err) {
      if (!outRes.headersSent) outRes.writeHead(500);
      outRes.end(String(err));
    }
  };
  // Idle client connections are kept far longer than a client keeps them (undici: the hint less
  // 2 s): a busy runner must never send on a socket the proxy is closing (ECONNRESET).
  const keepAliveTimeout = 60_000;
  const server: Server = opts.tls ? createHttpsServer({ keepAliveTimeout, cert: opts.tls.certPem, key: opts.tls.keyPem }, handler) : createServer({ keepAliveTimeout }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      agent.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

// Helpers that keep breakage tables short.

/** Parses a JSON body, lets `edit` change it, and writes it back (non-JSON bodies are left alone). */
export function editJson(holder: { body: string }, edit: (o: any) => any): void {
  let o: any;
  try {
    o = JSON.parse(holder.body);
  } catch {
    return;
  }
  const r = edit(o);
  holder.body = JSON.stringify(r === undefined ? o : r);
}

export function jsonBody(holder: { body: string }): any {
  try {
    return JSON.parse(holder.body);
  } catch {
    return undefined;
  }
}

export function answer(status: number, body: unknown): ProxiedResponse {
  return { status, headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) };
}

/** A plausible Status error body, as a broken server would send it. */
export function statusBody(code: number, reason: string, message: string, causes?: Array<{ field: string; reason: string; message?: string }>) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code, details: causes ? { causes } : undefined };
}
