// A client of the control plane, used by the node agent, the controllers and the scheduler: JSON over
// node:http(s) with keep-alive, a bearer token and a CA, the verbs they need (get, create, update, patch,
// server-side apply, status writes, list, delete) and a watch that
// resumes from the last resourceVersion it saw and relists when the server says that version is gone.
// Errors carry the server's Status object, so callers decide on `reason`/`code` (404, 409, 410).
import { createSecureContext } from 'node:tls';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface ApiClientOptions {
  /** Base URL, http(s)://host:port. */
  url: string;
  token?: string;
  /** PEM of the CA that signed the server's certificate. */
  caPem?: string;
  /** Do not verify the server's certificate (kubeconfig insecure-skip-tls-verify). */
  insecureSkipTlsVerify?: boolean;
  /** A client certificate and its key (PEM), presented to the server. */
  certPem?: string;
  keyPem?: string;
  /** Per-request timeout for non-watch calls, ms (default 30 s). */
  timeoutMs?: number;
  /** User-Agent header (default `agent`); servers record it as the field manager of writes without one. */
  userAgent?: string;
}

/** Where a client reports each request (a component's rest_client_* metrics, as client-go does). */
export interface RequestMetrics {
  /** `code`: the HTTP status, or `<error>` when no answer came; `seconds`: until the answer's headers. */
  observe(verb: string, host: string, code: string, seconds: number): void;
}

export interface Status {
  kind?: string;
  apiVersion?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: unknown;
}

/** A non-2xx answer: `status` is the HTTP code, `body` the Status the server sent (or a synthetic one). */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(readonly method: string, readonly path: string, readonly status: number, readonly body: Status) {
    super(`${method} ${path}: ${status} ${body.reason ?? ''}${body.message ? `: ${body.message}` : ''}`.replace(/ +:/, ':'));
  }
  get reason(): string | undefined { return this.body.reason; }
}

export const isNotFound = (e: unknown): boolean => e instanceof ApiError && e.status === 404;
export const isConflict = (e: unknown): boolean => e instanceof ApiError && e.status === 409;
export const isAlreadyExists = (e: unknown): boolean => e instanceof ApiError && e.status === 409 && e.reason === 'AlreadyExists';
export const isGone = (e: unknown): boolean => e instanceof ApiError && e.status === 410;

export type PatchType = 'merge' | 'strategic' | 'json';
const PATCH_CONTENT_TYPE: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  json: 'application/json-patch+json',
};

export interface WatchEvent<T = any> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

export interface WatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Called with each ADDED/MODIFIED/DELETED event, in order. */
  onEvent(ev: WatchEvent): void;
  /** Called with the full list at start and after every relist (after a 410): the current items. */
  onList(items: any[]): void;
  /** Errors that made the watch reconnect (for logs); the watch keeps going. */
  onError?(err: unknown): void;
  /** Delay before reconnecting after a failure, ms (default 1000). */
  retryMs?: number;
}

export interface Watch {
  /** Resolves once the first list was delivered. */
  readonly synced: Promise<void>;
  stop(): void;
}

export class ApiClient {
  private readonly base: URL;
  private readonly agent: HttpAgent | HttpsAgent;
  private readonly https: boolean;
  private readonly timeoutMs: number;
  private readonly userAgent: string;
  private closed = false;
  /** Set by the component serving this client's metrics (reference/components/component-server.ts). */
  metrics: RequestMetrics | undefined;

  constructor(private readonly opts: ApiClientOptions) {
    let base: URL;
    try {
      base = new URL(opts.url);
    } catch {
      throw new Error(`invalid API URL ${JSON.stringify(opts.url)}: want http(s)://host:port`);
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error(`invalid API URL ${opts.url}: scheme must be http or https`);
    this.base = base;
    this.https = base.protocol === 'https:';
    // One TLS context for every connection: given `ca` instead, Node parses it into a fresh context
    // per connection.
    this.agent = this.https
      ? new HttpsAgent({ keepAlive: true, rejectUnauthorized: !opts.insecureSkipTlsVerify, secureContext: createSecureContext({ ca: opts.caPem, cert: opts.certPem, key: opts.keyPem }) })
      : new HttpAgent({ keepAlive: true });
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.userAgent = opts.userAgent ?? 'agent';
  }

  /** One request; resolves with the parsed JSON body of a 2xx answer, rejects with ApiError otherwise. */
  async request<T = any>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    const res = await this.send(method, path, body, contentType, this.timeoutMs);
    const text = await readBody(res);
    const status = res.statusCode ?? 0;
    let parsed: any;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (status < 200 || status >= 300) {
      const st: Status = parsed && typeof parsed === 'object' && parsed.kind === 'Status'
        ? parsed
        : { kind: 'Status', status: 'Failure', code: status, message: text.slice(0, 500) };
      throw new ApiError(method, path, status, st);
    }
    return parsed as T;
  }

  get<T = any>(path: string): Promise<T> { return this.request('GET', path); }
  create<T = any>(collectionPath: string, obj: unknown): Promise<T> { return this.request('POST', collectionPath, obj); }
  update<T = any>(path: string, obj: unknown): Promise<T> { return this.request('PUT', path, obj); }
  patch<T = any>(path: string, patch: unknown, type: PatchType = 'merge'): Promise<T> {
    return this.request('PATCH', path, patch, PATCH_CONTENT_TYPE[type]);
  }
  /**
   * Server-side apply (`application/apply-patch+yaml`, JSON being YAML) as `fieldManager`, forcing
   * conflicts when `force`; `subresource` 'status' applies to `<path>/status`.
   */
  apply<T = any>(path: string, obj: unknown, o: { fieldManager: string; force?: boolean; subresource?: 'status' }): Promise<T> {
    const target = withQuery(o.subresource ? `${path}/${o.subresource}` : path, { fieldManager: o.fieldManager, force: o.force ? 'true' : undefined });
    return this.request('PATCH', target, obj, 'application/apply-patch+yaml');
  }
  /** PUT of the status subresource (`<path>/status`). */
  updateStatus<T = any>(path: string, obj: unknown): Promise<T> { return this.request('PUT', `${path}/status`, obj); }
  /** PATCH of the status subresource (`<path>/status`). */
  patchStatus<T = any>(path: string, patch: unknown, type: PatchType = 'merge'): Promise<T> {
    return this.request('PATCH', `${path}/status`, patch, PATCH_CONTENT_TYPE[type]);
  }
  /** DELETE of an object, or of a collection (then `path` is the collection's). */
  delete<T = any>(path: string, options?: { gracePeriodSeconds?: number; preconditions?: { uid?: string; resourceVersion?: string }; propagationPolicy?: 'Orphan' | 'Background' | 'Foreground' }): Promise<T> {
    return this.request('DELETE', path, options ? { kind: 'DeleteOptions', apiVersion: 'v1', ...options } : undefined);
  }
  list<T = any>(collectionPath: string, q: { labelSelector?: string; fieldSelector?: string } = {}): Promise<{ metadata: { resourceVersion: string }; items: T[] }> {
    return this.request('GET', withQuery(collectionPath, q));
  }

  /**
   * List then watch `collectionPath`, resuming from the last resourceVersion seen after a dropped
   * connection, and relisting (onList) when the server answers 410 Gone.
   */
  watch(collectionPath: string, o: WatchOptions): Watch {
    let stopped = false;
    let current: { destroy(): void } | undefined;
    let timer: NodeJS.Timeout | undefined;
    let rv: string | undefined;
    let resolveSynced!: () => void;
    const synced = new Promise<void>((r) => (resolveSynced = r));
    const retryMs = o.retryMs ?? 1000;

    const relist = async (): Promise<void> => {
      const list = await this.list(collectionPath, { labelSelector: o.labelSelector, fieldSelector: o.fieldSelector });
      rv = list.metadata.resourceVersion;
      if (!stopped) o.onList(list.items);
      resolveSynced();
    };

    const watchOnce = (): Promise<void> => new Promise<void>((resolve, reject) => {
      const path = withQuery(collectionPath, {
        watch: 'true', resourceVersion: rv, allowWatchBookmarks: 'true',
        labelSelector: o.labelSelector, fieldSelector: o.fieldSelector,
      });
      this.send('GET', path, undefined, 'application/json', 0).then((res) => {
        if (stopped) { res.destroy(); resolve(); return; }
        current = res;
        if ((res.statusCode ?? 0) !== 200) {
          readBody(res).then((text) => {
            let st: Status;
            try { st = JSON.parse(text); } catch { st = { message: text }; }
            reject(new ApiError('GET', path, res.statusCode ?? 0, st));
          }, reject);
          return;
        }
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buf += chunk;
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl).trim();
            buf = buf.slice(nl + 1);
            if (!line) continue;
            let ev: WatchEvent;
            try { ev = JSON.parse(line); } catch (e) { res.destroy(); reject(e); return; }
            if (ev.type === 'ERROR') {
              const st = ev.object as Status;
              res.destroy();
              reject(new ApiError('GET', path, st.code ?? 500, st));
              return;
            }
            const v = ev.object?.metadata?.resourceVersion;
            if (v) rv = v;
            if (ev.type !== 'BOOKMARK' && !stopped) o.onEvent(ev);
          }
        });
        res.on('end', () => resolve());
        res.on('error', reject);
        res.on('close', () => resolve());
      }, reject);
    });

    const loop = async (): Promise<void> => {
      while (!stopped && !this.closed) {
        try {
          if (rv === undefined) await relist();
          await watchOnce();
        } catch (err) {
          if (stopped) return;
          if (isGone(err)) rv = undefined; // history compacted past our version: list again
          o.onError?.(err);
          await new Promise<void>((r) => (timer = setTimeout(r, retryMs)));
        }
      }
    };
    void loop();
    return {
      synced,
      stop: () => {
        stopped = true;
        if (timer) clearTimeout(timer);
        current?.destroy();
      },
    };
  }

  /** True once close() was called: requests still in flight then fail, and callers need not report it. */
  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    this.closed = true;
    this.agent.destroy();
  }

  /**
   * One request. A keep-alive connection the server closed while idle, just as this request went out on
   * it, resets before any answer (the server never read the request): the request is sent again once on a
   * new connection, as Go's HTTP transport does for a reused connection that fails this way.
   */
  private send(method: string, path: string, body: unknown, contentType: string, timeoutMs: number, retried = false): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const url = new URL(path, this.base);
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.userAgent };
      if (this.opts.token) headers.authorization = `Bearer ${this.opts.token}`;
      if (payload) {
        headers['content-type'] = contentType;
        headers['content-length'] = String(payload.length);
      }
      const started = performance.now();
      const observe = (code: string) => this.metrics?.observe(method, this.base.host, code, (performance.now() - started) / 1000);
      const req = (this.https ? httpsRequest : httpRequest)(url, { method, headers, agent: this.agent }, (res) => {
        observe(String(res.statusCode ?? 0));
        resolve(res);
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (!retried && req.reusedSocket && err.code === 'ECONNRESET') {
          this.send(method, path, body, contentType, timeoutMs, true).then(resolve, reject);
          return;
        }
        observe('<error>');
        reject(err);
      });
      if (timeoutMs > 0) req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${path}: no answer within ${timeoutMs} ms`)));
      req.end(payload);
    });
  }
}

/**
 * Waits until the API server's /healthz answers 200, as kube-controller-manager does before it
 * starts its controllers (WaitForAPIServer, 10 s): components started next to their API server do
 * not begin with a burst of failed lists. Unlike upstream it does not fail after `timeoutMs`: the
 * informers keep retrying anyway, so it only logs.
 */
export async function waitForApiServer(client: ApiClient, log: (message: string, err?: unknown) => void, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      await client.request('GET', '/healthz');
      return;
    } catch (err) {
      last = err;
    }
    if (performance.now() >= deadline) {
      log(`the API server did not report healthy within ${timeoutMs / 1000}s; starting anyway`, last);
      return;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

function withQuery(path: string, q: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== '') params.set(k, v);
  const s = params.toString();
  return s ? `${path}${path.includes('?') ? '&' : '?'}${s}` : path;
}

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}
