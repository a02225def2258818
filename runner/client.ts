// The typed HTTP client cases use against a target. It records every exchange so that reports can
// show auditors exactly what was sent and what came back.
import { createSecureContext } from 'node:tls';
import { Agent, request as undiciRequest, type Dispatcher } from 'undici';
import { StringDecoder } from 'node:string_decoder';
import type { Exchange } from './results.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from './errors.js';

/** How to reach and authenticate to a target's control-plane API. */
export interface TargetConnection {
  baseUrl: string;
  token?: string;
  /**
   * PEM of the CA that signed the target's serving certificate, trusted instead of the system's
   * (`run --ca` reads its file once; an embedded reference hands over its own).
   */
  caPem?: string;
  insecureSkipTlsVerify?: boolean;
  /** PEM client certificate (chain) and its key, presented for mutual TLS (kubeconfig `client-certificate`). */
  certPem?: string;
  keyPem?: string;
  /**
   * Largest response body read (`run --max-response-bytes`, default DEFAULT_MAX_RESPONSE_BYTES): a
   * hostile or broken target must not be able to exhaust the runner's memory. Watch streams bound
   * each line (one event) by it.
   */
  maxResponseBytes?: number;
  /** A unix socket to connect to instead of the URL's host (the mock CRI's control API). */
  socketPath?: string;
  /**
   * How long a new connection (TCP and TLS) may take; undici's 10 s by default. The project's own
   * tests raise it where the target shares one thread with the runner and dozens of cases.
   */
  connectTimeoutMs?: number;
}

export { DEFAULT_MAX_RESPONSE_BYTES };

/** A body (or watch line) over the connection's cap. The case that met it errors with this message. */
export class ResponseTooLargeError extends Error {
  override readonly name = 'ResponseTooLargeError';
  constructor(readonly limit: number, readonly status?: number) {
    super(`response body larger than ${formatBytes(limit)} (--max-response-bytes)`);
  }
}

/** 16777216 -> "16 MiB"; sizes that are not whole MiB or KiB stay in bytes. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

/**
 * A body past SMALL_BODY_BYTES goes on only with one of LARGE_BODY_READS permits, process-wide:
 * cases run many requests at once, and without this a target answering each with a huge body
 * would have the runner hold (cap x requests in flight) bytes. Waiting for a permit stops reading,
 * so the socket's back-pressure holds the rest at the target.
 */
const SMALL_BODY_BYTES = 256 * 1024;
const LARGE_BODY_READS = 1;
let freeLargeReads = LARGE_BODY_READS;
const largeReadWaiters: Array<() => void> = [];

async function acquireLargeRead(): Promise<() => void> {
  if (freeLargeReads > 0) freeLargeReads--;
  else await new Promise<void>((resolve) => largeReadWaiters.push(resolve));
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const next = largeReadWaiters.shift();
    if (next) next();
    else freeLargeReads++;
  };
}

/**
 * Reads a body up to `limit` bytes. Over it (by Content-Length up front, or while streaming), the
 * body is destroyed, which aborts the connection: nothing beyond the cap is ever buffered.
 */
async function readCapped(body: Dispatcher.ResponseData['body'], headers: Record<string, string>, limit: number, status: number): Promise<Buffer> {
  // Destroying the body makes it emit an abort error; it is expected here, not a crash.
  body.on('error', () => undefined);
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    body.destroy();
    throw new ResponseTooLargeError(limit, status);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let release: (() => void) | undefined;
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > limit) {
        chunks.length = 0;
        body.destroy();
        throw new ResponseTooLargeError(limit, status);
      }
      chunks.push(chunk as Buffer);
      if (size > SMALL_BODY_BYTES && !release) release = await acquireLargeRead();
    }
  } finally {
    release?.();
  }
  return Buffer.concat(chunks, size);
}

export interface RequestOptions {
  /** Serialised as JSON unless it is already a string or Buffer. */
  body?: unknown;
  /** Added to (or replacing) the defaults; `undefined` leaves a default header out (e.g. `accept`). */
  headers?: Record<string, string | undefined>;
  query?: Record<string, string | number | boolean | undefined>;
  /** Per-request timeout; the case's own signal still applies. */
  timeoutMs?: number;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The body as received (binary formats such as the protobuf metrics exposition). */
  bytes: Buffer;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: any;
  /**
   * The request this answers (path without the query, body as sent): a verifier that judges a
   * refused write reads the object back from it (suites/verify.ts expectRefused).
   */
  request?: { method: string; path: string; body?: string };
}

/** Binary bodies are recorded for reports as their size and base64, not as mangled text. */
function recordedBody(bytes: Buffer, contentType: string | undefined): string {
  if (!/protobuf|octet-stream/i.test(contentType ?? '')) return truncate(bytes.toString('utf8'));
  const shown = bytes.subarray(0, MAX_RECORDED_BODY / 2);
  return `(binary, ${bytes.length} bytes${shown.length < bytes.length ? `, first ${shown.length}` : ''}) base64:${shown.toString('base64')}`;
}

export interface WatchEvent {
  type: string;
  object: any;
}

const MAX_RECORDED_BODY = 64 * 1024;

function truncate(s: string): string {
  return s.length <= MAX_RECORDED_BODY ? s : `${s.slice(0, MAX_RECORDED_BODY)}… (${s.length - MAX_RECORDED_BODY} more characters)`;
}

function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** The connection-level error codes that mean "nothing answered there". */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNRESET',
  'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'ERR_TLS_CERT_ALTNAME_INVALID',
]);

export function errorCode(err: unknown): string | undefined {
  let e: any = err;
  for (let i = 0; e && i < 4; i++, e = e.cause) if (typeof e.code === 'string' && UNREACHABLE_CODES.has(e.code)) return e.code;
  return undefined;
}

/**
 * One connection pool per target, shared by every case's client. Its connections share one TLS
 * context: given CA and certificate options instead, Node builds a fresh context (parsing them again)
 * for every connection, which was a tenth of a suite run's CPU.
 */
export function createDispatcher(conn: TargetConnection): Dispatcher {
  return new Agent({
    connect: {
      secureContext: createSecureContext({ ca: conn.caPem, cert: conn.certPem, key: conn.keyPem }),
      rejectUnauthorized: !conn.insecureSkipTlsVerify,
      ...(conn.socketPath ? { socketPath: conn.socketPath } : {}),
      ...(conn.connectTimeoutMs ? { timeout: conn.connectTimeoutMs } : {}),
    },
    connections: 64,
    keepAliveTimeout: 4_000,
  });
}

export class ApiClient {
  private readonly openWatches = new Set<WatchStream>();

  constructor(
    readonly conn: TargetConnection,
    private readonly dispatcher: Dispatcher,
    private readonly signal?: AbortSignal,
    /** Every exchange this client made, in order; clients of one case share one log. */
    readonly exchanges: Exchange[] = [],
  ) {}

  get maxResponseBytes(): number {
    return this.conn.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  }

  url(path: string, query?: RequestOptions['query']): string {
    const u = new URL(path.replace(/^\//, ''), this.conn.baseUrl.endsWith('/') ? this.conn.baseUrl : `${this.conn.baseUrl}/`);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  private headersFor(opts: RequestOptions, hasBody: boolean): Record<string, string> {
    const h: Record<string, string> = { accept: 'application/json', 'user-agent': 'orch-conformance' };
    if (hasBody) h['content-type'] = 'application/json';
    if (this.conn.token) h.authorization = `Bearer ${this.conn.token}`;
    for (const [k, v] of Object.entries(opts.headers ?? {})) {
      if (v === undefined) delete h[k.toLowerCase()];
      else h[k.toLowerCase()] = v;
    }
    return h;
  }

  private signalFor(timeoutMs?: number): AbortSignal | undefined {
    const signals = [this.signal, timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined].filter((s): s is AbortSignal => !!s);
    return signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
  }

  async request(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse> {
    const url = this.url(path, opts.query);
    const body = opts.body === undefined ? undefined : typeof opts.body === 'string' || Buffer.isBuffer(opts.body) ? opts.body : JSON.stringify(opts.body);
    const headers = this.headersFor(opts, body !== undefined);
    const ex: Exchange = {
      method, url, requestHeaders: redact(headers), durationMs: 0,
      requestBody: body === undefined ? undefined : truncate(body.toString()),
    };
    this.exchanges.push(ex);
    const started = performance.now();
    try {
      const res = await undiciRequest(url, { method: method as Dispatcher.HttpMethod, headers, body, dispatcher: this.dispatcher, signal: this.signalFor(opts.timeoutMs) });
      ex.status = res.statusCode;
      ex.responseHeaders = flattenHeaders(res.headers);
      const bytes = await readCapped(res.body, ex.responseHeaders, this.maxResponseBytes, res.statusCode);
      const text = bytes.toString('utf8');
      ex.responseBody = recordedBody(bytes, ex.responseHeaders['content-type']);
      const request = { method, path: path.split('?')[0]!, body: typeof body === 'string' ? body : undefined };
      return { status: res.statusCode, headers: ex.responseHeaders, text, bytes, json: parseJson(text), request };
    } catch (err) {
      ex.error = describeError(err);
      throw err;
    } finally {
      ex.durationMs = Math.round(performance.now() - started);
    }
  }

  get(path: string, opts?: RequestOptions) { return this.request('GET', path, opts); }
  post(path: string, body: unknown, opts?: RequestOptions) { return this.request('POST', path, { ...opts, body }); }
  put(path: string, body: unknown, opts?: RequestOptions) { return this.request('PUT', path, { ...opts, body }); }
  delete(path: string, opts?: RequestOptions) { return this.request('DELETE', path, opts); }

  /**
   * Opens a watch (GET with watch=true). Resolves once the response headers arrived; events are
   * read with `next`. The exchange records the status and every line read so far.
   */
  async watch(path: string, query: RequestOptions['query'] = {}): Promise<WatchStream> {
    // `watch: undefined` in `query` leaves the parameter out (the `/watch/` path form needs none).
    const url = this.url(path, { watch: 'true', ...query });
    const headers = this.headersFor({}, false);
    const ex: Exchange = { method: 'GET', url, requestHeaders: redact(headers), durationMs: 0, responseBody: '' };
    this.exchanges.push(ex);
    const started = performance.now();
    const ctrl = new AbortController();
    const signal = this.signal ? AbortSignal.any([this.signal, ctrl.signal]) : ctrl.signal;
    try {
      const res = await undiciRequest(url, { method: 'GET', headers, dispatcher: this.dispatcher, signal });
      ex.status = res.statusCode;
      ex.responseHeaders = flattenHeaders(res.headers);
      const w = new WatchStream(res.statusCode, ex.responseHeaders, res.body, ctrl, ex, started, this.maxResponseBytes);
      this.openWatches.add(w);
      return w;
    } catch (err) {
      ex.error = describeError(err);
      ex.durationMs = Math.round(performance.now() - started);
      throw err;
    }
  }

  /** Closes watches a case left open. */
  closeAll(): void {
    for (const w of this.openWatches) w.close();
    this.openWatches.clear();
  }
}

/** A watch response read line by line; each line is one WatchEvent. */
export class WatchStream {
  /** The pieces of the line being received, and their length in characters. */
  private pending: string[] = [];
  private pendingLength = 0;
  private readonly queue: WatchEvent[] = [];
  private waiters: Array<() => void> = [];
  private ended = false;
  /** Lines that were not JSON: a broken stream is something a case reports, not a crash. */
  readonly badLines: string[] = [];

  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    body: NodeJS.ReadableStream & AsyncIterable<Buffer>,
    private readonly ctrl: AbortController,
    private readonly exchange: Exchange,
    private readonly started: number,
    private readonly maxLineBytes: number = DEFAULT_MAX_RESPONSE_BYTES,
  ) {
    void this.pump(body);
  }

  /** Set when the target sent a line (event) over the cap: the stream was cut, and `next` throws it. */
  private overflow?: ResponseTooLargeError;
  /** Keeps a character split across two chunks whole. */
  private readonly decoder = new StringDecoder('utf8');

  private async pump(body: AsyncIterable<Buffer>) {
    try {
      for await (const chunk of body) {
        const s = this.decoder.write(chunk);
        if (this.exchange.responseBody!.length < MAX_RECORDED_BODY) this.exchange.responseBody += s;
        // Lines are cut from each chunk as it comes; only an unfinished line's pieces are kept,
        // and joined once its newline arrives (no rescanning or flattening of a growing string).
        let from = 0;
        let nl: number;
        while ((nl = s.indexOf('\n', from)) >= 0) {
          this.pending.push(s.slice(from, nl));
          const line = this.pending.join('').trim();
          this.pending = [];
          this.pendingLength = 0;
          from = nl + 1;
          if (line) this.accept(line);
        }
        if (from < s.length) {
          this.pending.push(s.slice(from));
          this.pendingLength += s.length - from;
        }
        // Past the cap an unfinished line is never going to be an event we keep. (Counted in
        // characters, which never exceed the bytes they came from.)
        if (this.pendingLength > this.maxLineBytes) {
          this.pending = [];
          this.pendingLength = 0;
          this.overflow = new ResponseTooLargeError(this.maxLineBytes, this.status);
          this.exchange.error = `${this.overflow.message}: a watch event line over the cap; the stream was closed`;
          this.ctrl.abort();
          break;
        }
      }
      const last = (this.pending.join('') + this.decoder.end()).trim();
      if (last) this.accept(last);
    } catch {
      // Aborted or reset: the stream simply ends for the reader.
    } finally {
      this.ended = true;
      this.exchange.durationMs = Math.round(performance.now() - this.started);
      this.wake();
    }
  }

  private accept(line: string) {
    const ev = parseJson(line);
    if (ev && typeof ev === 'object' && typeof ev.type === 'string') this.queue.push(ev);
    else this.badLines.push(line);
    this.wake();
  }

  private wake() {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /**
   * The next event, or undefined when the stream ended or nothing came within timeoutMs. Throws
   * ResponseTooLargeError, once the events before it are read, when the target sent a line over the cap.
   */
  async next(timeoutMs = 5_000): Promise<WatchEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length === 0 && !this.ended) {
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => { clearTimeout(timer); resolve(); });
      });
    }
    if (this.queue.length === 0 && this.overflow) throw this.overflow;
    return this.queue.shift();
  }

  get done(): boolean {
    return this.ended && this.queue.length === 0;
  }

  close(): void {
    if (!this.ended) this.ctrl.abort();
  }
}

function redact(h: Record<string, string>): Record<string, string> {
  return h.authorization ? { ...h, authorization: 'Bearer <redacted>' } : h;
}

export function describeError(err: unknown): string {
  if (err instanceof Error) {
    if (err.name === 'AbortError' || err.name === 'TimeoutError') return 'aborted: no response before the deadline';
    const code = errorCode(err);
    const cause = (err as any).cause?.message;
    return `${err.message}${code ? ` (${code})` : ''}${cause && !err.message.includes(cause) ? `: ${cause}` : ''}`;
  }
  return String(err);
}
