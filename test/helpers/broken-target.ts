// A target broken in exactly one rule: an HTTP proxy in front of the reference that rewrites
// requests or responses (or answers by itself) as a breakage says. Proof tests run each case
// against one of these and expect it to fail.
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
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
  /** Rewrites one line of a watch stream; returning undefined drops it. */
  watchLine?(req: ProxiedRequest, line: string): string | undefined;
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

export interface BrokenTargetOptions {
  /** The CA to trust when `upstream` is https (a reference started with TLS gives its `caPem`). */
  caPem?: string;
}

/**
 * The proxy itself always serves plain HTTP: that is the breakage for the HTTPS rules, and every
 * other rule's breakage is the same against an http or an https upstream.
 */
export async function startBrokenTarget(upstream: string, breakage: Breakage, opts: BrokenTargetOptions = {}): Promise<BrokenTarget> {
  const up = new URL(upstream);
  const tlsUpstream = up.protocol === 'https:';
  const forward = tlsUpstream ? httpsRequest : httpRequest;
  const server: Server = createServer(async (inReq, outRes) => {
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
      const target = { host: up.hostname.replace(/^\[(.*)\]$/, '$1'), port: up.port, method: req.method, path: req.path, headers, ...(tlsUpstream && opts.caPem ? { ca: opts.caPem } : {}) };
      const upReq = forward(target, (upRes) => {
        const isWatch = /[?&]watch=(true|1)\b/.test(req.path) || req.path.includes('/watch/');
        if (isWatch) {
          // Stream line by line so the case sees events as they happen.
          const h = flat(upRes.headers);
          delete h['content-length'];
          outRes.writeHead(upRes.statusCode ?? 502, h);
          // The client waits for headers before it writes what it wants to see on the watch.
          outRes.flushHeaders();
          let buf = '';
          upRes.on('data', (c: Buffer) => {
            buf += c.toString('utf8');
            let nl: number;
            while ((nl = buf.indexOf('\n')) >= 0) {
              const line = buf.slice(0, nl);
              buf = buf.slice(nl + 1);
              const out = breakage.watchLine ? breakage.watchLine(req, line) : line;
              if (out !== undefined) outRes.write(`${out}\n`);
            }
          });
          upRes.on('end', () => outRes.end());
          outRes.on('close', () => upRes.destroy());
          return;
        }
        const chunks: Buffer[] = [];
        upRes.on('data', (c: Buffer) => chunks.push(c));
        upRes.on('end', () => {
          const headers = flat(upRes.headers);
          const res: ProxiedResponse = { status: upRes.statusCode ?? 502, headers, body: Buffer.concat(chunks).toString(bodyEncoding(headers)) };
          breakage.response?.(req, res);
          delete res.headers['content-length'];
          delete res.headers['transfer-encoding'];
          outRes.writeHead(res.status, res.headers);
          outRes.end(Buffer.from(res.body, bodyEncoding(res.headers)));
        });
      });
      upReq.on('error', (err) => {
        if (!outRes.headersSent) outRes.writeHead(502);
        outRes.end(String(err));
      });
      outRes.on('close', () => upReq.destroy());
      upReq.end(req.body || undefined);
    } catch (err) {
      if (!outRes.headersSent) outRes.writeHead(500);
      outRes.end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
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
