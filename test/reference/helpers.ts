// Shared by the reference tests: a test-only namespaced resource with status, a server starter,
// a small HTTP client and a line reader for watch streams.
import { startApiServer, type RunningApiServer } from '../../reference/apiserver/apiserver.js';
import { fieldErrors, path, validateImmutable, type FieldError } from '../../reference/apiserver/field-errors.js';
import { t as types } from '../../reference/apiserver/schema.js';
import { defineStrategy, type ApiObject, type ResourceStrategy } from '../../reference/apiserver/strategy.js';
import { storageClassStrategy } from '../../reference/resources/storageclass.js';
import { MemoryStorage, type MemoryStorageOptions } from '../../reference/storage/memory.js';

export const SC = '/apis/storage.orch.io/v1/storageclasses';
export const NS = '/api/v1/namespaces';
export const widgets = (ns: string): string => `/apis/test.orch.io/v1/namespaces/${ns}/widgets`;

/**
 * A namespaced kind with a status subresource, answering DELETE with a Status: the shape of the
 * later resources (ResourceQuota, EvictionRequest, PodGroup), defined only for tests.
 */
export const widgetStrategy: ResourceStrategy = defineStrategy({
  group: 'test.orch.io',
  version: 'v1',
  kind: 'Widget',
  resource: 'widgets',
  singular: 'widget',
  shortNames: ['wd'],
  namespaced: true,
  hasStatus: true,
  deleteResponse: 'status',
  schema: {
    spec: types.object({ size: types.integer(), color: types.string(), tags: types.array(types.string()) }),
    status: types.object({ phase: types.string(), observed: types.integer() }),
  },
  defaults(o: ApiObject): void {
    const spec = (o['spec'] ??= {}) as Record<string, unknown>;
    if (spec['color'] === undefined) spec['color'] = 'blue';
  },
  validate(o: ApiObject): FieldError[] {
    const size = (o['spec'] as { size?: number } | undefined)?.size;
    return size !== undefined && size < 0 ? [fieldErrors.invalid(path('spec').child('size'), size, 'must be greater than or equal to 0')] : [];
  },
  validateUpdate(o: ApiObject, old: ApiObject): FieldError[] {
    const color = (x: ApiObject): unknown => (x['spec'] as { color?: string } | undefined)?.color;
    return validateImmutable(color(o), color(old), path('spec').child('color'));
  },
});

export interface TestServer extends RunningApiServer {
  readonly storage: MemoryStorage;
}

interface Teardown {
  teardown(fn: () => unknown): void;
}

export async function startTestServer(
  t: Teardown,
  opts: { storage?: MemoryStorageOptions; minWatchTimeoutSeconds?: number; strategies?: ResourceStrategy[] } = {},
): Promise<TestServer> {
  const storage = new MemoryStorage(opts.storage);
  const logged: unknown[] = [];
  const api = await startApiServer({
    storage,
    strategies: opts.strategies ?? [storageClassStrategy, widgetStrategy],
    minWatchTimeoutSeconds: opts.minWatchTimeoutSeconds,
    // A 500 in these tests is a bug: make it loud.
    log: (m, e) => {
      logged.push(e);
      console.error('unexpected server error:', m, e);
    },
  });
  t.teardown(() => api.close());
  return { ...api, storage };
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

export async function call(
  base: string,
  method: string,
  p: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' || body instanceof Uint8Array ? (body as string) : JSON.stringify(body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
  }
  const res = await fetch(base + p, init);
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

export const sc = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'storage.orch.io/v1',
  kind: 'StorageClass',
  metadata: { name },
  provisioner: 'example.orch.io/fast',
  ...extra,
});

export interface WatchEventLine {
  type: string;
  object: any;
}

/** Reads a watch stream line by line; `next` waits for the following event. */
export class WatchReader {
  readonly status: number;
  readonly headers: Headers;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private readonly queue: WatchEventLine[] = [];
  ended = false;

  private constructor(res: Response, private readonly abort: AbortController) {
    this.status = res.status;
    this.headers = res.headers;
    this.reader = res.body!.getReader();
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<WatchReader> {
    const abort = new AbortController();
    const res = await fetch(url, { headers, signal: abort.signal });
    return new WatchReader(res, abort);
  }

  /** The next event, or undefined once the stream has ended. */
  async next(timeoutMs = 2000): Promise<WatchEventLine | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length === 0 && !this.ended) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for a watch event');
      let timer: NodeJS.Timeout | undefined;
      const chunk = await Promise.race([
        this.reader.read(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timed out waiting for a watch event')), left);
        }),
      ]).finally(() => clearTimeout(timer));
      if (chunk.done) {
        this.ended = true;
        break;
      }
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        if (line.trim()) this.queue.push(JSON.parse(line));
      }
    }
    return this.queue.shift();
  }

  /** Reads events until the stream ends. */
  async rest(timeoutMs = 5000): Promise<WatchEventLine[]> {
    const out: WatchEventLine[] = [];
    for (;;) {
      const ev = await this.next(timeoutMs);
      if (!ev) return out;
      out.push(ev);
    }
  }

  close(): void {
    this.abort.abort();
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls until `fn` returns a truthy value. */
export async function eventually<T>(fn: () => Promise<T>, timeoutMs = 3000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(20);
  }
}
