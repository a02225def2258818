// The typed HTTP client cases use against a target. It records every exchange so that reports can
// show auditors exactly what was sent and what came back.
import { Agent, request as undiciRequest, type Dispatcher } from 'undici';
import type { Exchange } from './results.js';

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

/** One connection pool per target, shared by every case's client. */
export function createDispatcher(conn: TargetConnection): Dispatcher {
  return new Agent({
    connect: {
      ca: conn.caPem,
      rejectUnauthorized: !conn.insecureSkipTlsVerify,
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
      const bytes = Buffer.from(await res.body.arrayBuffer());
      const text = bytes.toString('utf8');
      ex.status = res.statusCode;
      ex.responseHeaders = flattenHeaders(res.headers);
      ex.responseBody = recordedBody(bytes, ex.responseHeaders['content-type']);
      return { status: res.statusCode, headers: ex.responseHeaders, text, bytes, json: parseJson(text) };
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
      const w = new WatchStream(res.statusCode, ex.responseHeaders, res.body, ctrl, ex, started);
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
  private buffer = '';
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
  ) {
    void this.pump(body);
  }

  private async pump(body: AsyncIterable<Buffer>) {
    try {
      for await (const chunk of body) {
        const s = chunk.toString('utf8');
        if (this.exchange.responseBody!.length < MAX_RECORDED_BODY) this.exchange.responseBody += s;
        this.buffer += s;
        let nl: number;
        while ((nl = this.buffer.indexOf('\n')) >= 0) {
          const line = this.buffer.slice(0, nl).trim();
          this.buffer = this.buffer.slice(nl + 1);
          if (line) this.accept(line);
        }
      }
      if (this.buffer.trim()) this.accept(this.buffer.trim());
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

  /** The next event, or undefined when the stream ended or nothing came within timeoutMs. */
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
