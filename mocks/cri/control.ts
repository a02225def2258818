// The control API of the mock CRI runtime: what a suite uses to make the runtime misbehave and to see
// what the agent asked of it. HTTP/1.1 with JSON bodies over a unix socket (owner-only, like the CRI
// socket itself), so that any language's HTTP client can drive it and nothing listens on the network.
//
// Routes (every response is JSON; errors are {"error": "<message>"}):
//   GET    /calls[?rpc=<Rpc>&since=<seq>]  200 {calls: CallRecord[], dropped}  the call log, oldest first;
//                                                                  dropped: records evicted to stay within
//                                                                  its bounds (10,000 records, 64 MiB)
//   DELETE /calls                           200 {cleared: true}
//   GET    /faults                          200 {faults: ActiveFault[]}
//   POST   /faults  FaultSpec               201 ActiveFault
//   DELETE /faults[?rpc=<Rpc>]              200 {cleared: <count>}
//   DELETE /faults/{id}                     200 {cleared: 1}; 404 when no active fault has that id
//   POST   /runtime {runtimeReady?, networkReady?, reason?, message?, checkpoint?, metrics?}
//                                           200 {applied: {...}}   Status conditions, CheckpointContainer
//                                                                  support, ListPodSandboxMetrics output
//   POST   /containers/{id}/exit {exitCode, reason?}  200 {id, exitCode, reason?}
//   POST   /containers/{id}/oom                       200 {id, exitCode: 137, reason: "OOMKilled"}
//   POST   /images  {tags, digests?, user?, size?}
//                                           201 {id, repoTags, repoDigests, size, user, pinned}
//                                                                  declares an image (present and pullable;
//                                                                  its references are taken from any image
//                                                                  that had them); gone on POST /reset
//   GET    /state                           200 the runtime's JSON snapshot
//   POST   /reset                           200 {reset: true}
// 400: bad JSON, unknown or ill-typed fields or query parameters, a body where none is taken;
// 404: unknown route or container; 405: wrong method (with Allow); 413: a body over 1 MiB.
// Every request is checked in full before anything changes, so bad input never leaves the runtime
// half-changed; a 500 means a bug in the mock, and its state is left as it was.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { chmod, lstat, unlink } from 'node:fs/promises';
import { prepareSocketPath } from '../../cri/unix-socket.js';
import { CRI_RPCS, FaultSpecError, type CallLog, type FaultSpec, type Faults } from './faults.js';
import { ImageDeclarationError } from './image-declarations.js';

/** What the control API drives; CORE's runtime implements it. */
export interface MockCriControl {
  readonly faults: Faults;
  readonly calls: CallLog;
  setRuntimeReady(ready: boolean, reason?: string, message?: string): void;
  setNetworkReady(ready: boolean, reason?: string, message?: string): void;
  /** false: CheckpointContainer answers UNIMPLEMENTED. */
  setCheckpointSupported(supported: boolean): void;
  /** false: ListPodSandboxMetrics returns no metrics (empty pod_metrics). */
  setMetricsEnabled(enabled: boolean): void;
  /** Throws NotFoundError for unknown/not-running ids. */
  exitContainer(id: string, exitCode: number, reason?: string): void;
  /** Exit 137, reason "OOMKilled". */
  oomKill(id: string): void;
  /** Declares an image (image-declarations.ts); throws ImageDeclarationError for a bad declaration. */
  declareImage(decl: unknown): object;
  /** A JSON snapshot for inspection. */
  state(): { sandboxes: unknown[]; containers: unknown[]; images: unknown[] };
  /** Back to start state: no sandboxes/containers, preloaded images, no faults, empty log, ready. */
  reset(): void;
}

/** An object the request names does not exist (or is not in a state the operation applies to). */
export class NotFoundError extends Error {
  override name = 'NotFoundError';
}

/** Bad control input: answered 400 with this message. */
class BadRequest extends Error {}

export const MAX_BODY_BYTES = 1024 * 1024;
/** Past this much of an oversized body, the connection is cut instead of read to the end. */
const MAX_DISCARD_BYTES = 8 * MAX_BODY_BYTES;
const MAX_ID_CHARS = 512;
const MAX_TEXT_CHARS = 4096;

type Json = Record<string, unknown>;
/** `parts`: a body too large for one string, written piece by piece (its JSON text is their concatenation). */
interface Reply { status: number; body: unknown; parts?: Iterable<string> }
interface Ctx { query: URLSearchParams; body: Json | undefined }
type Handler = (ctx: Ctx, params: string[]) => Reply;

interface Route { pattern: RegExp; methods: Record<string, Handler> }

const ok = (body: unknown, status = 200): Reply => ({ status, body });

// ---- input checks ----

function onlyQuery(q: URLSearchParams, allowed: string[]): void {
  const seen = new Set<string>();
  for (const k of q.keys()) {
    if (!allowed.includes(k)) {
      throw new BadRequest(allowed.length ? `unknown query parameter "${k}" (known: ${allowed.join(', ')})` : `unknown query parameter "${k}": this route takes none`);
    }
    if (seen.has(k)) throw new BadRequest(`query parameter "${k}" given more than once`);
    seen.add(k);
  }
}

function rpcParam(q: URLSearchParams): string | undefined {
  const rpc = q.get('rpc');
  if (rpc === null) return undefined;
  if (!CRI_RPCS.includes(rpc)) throw new BadRequest(`query parameter "rpc": "${rpc}" is not an RPC of runtime.v1 RuntimeService or ImageService`);
  return rpc;
}

function onlyFields(body: Json, allowed: string[]): void {
  for (const k of Object.keys(body)) {
    if (!allowed.includes(k)) throw new BadRequest(`unknown field "${k}" (known: ${allowed.join(', ')})`);
  }
}

function needBody(ctx: Ctx): Json {
  if (!ctx.body) throw new BadRequest('this route needs a JSON object body');
  return ctx.body;
}

/** Routes that act without input accept no body, or an empty object. */
function noFields(ctx: Ctx): void {
  if (ctx.body && Object.keys(ctx.body).length > 0) throw new BadRequest(`unknown field "${Object.keys(ctx.body)[0]}": this route takes no fields`);
}

function optBool(body: Json, k: string): boolean | undefined {
  const v = body[k];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw new BadRequest(`field "${k}" must be a boolean`);
  return v;
}

function optText(body: Json, k: string): string | undefined {
  const v = body[k];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new BadRequest(`field "${k}" must be a string`);
  if (v.length > MAX_TEXT_CHARS) throw new BadRequest(`field "${k}" is longer than ${MAX_TEXT_CHARS} characters`);
  return v;
}

function containerId(raw: string): string {
  let id: string;
  try {
    id = decodeURIComponent(raw);
  } catch {
    throw new BadRequest('container id in the path is not valid percent-encoding');
  }
  if (id === '' || id.length > MAX_ID_CHARS || /[\0/]/.test(id)) throw new BadRequest(`"${id.slice(0, 80)}" is not a container id`);
  return id;
}

// ---- routes ----

function routes(control: MockCriControl): Route[] {
  return [
    {
      pattern: /^\/calls$/,
      methods: {
        GET: ({ query }) => {
          onlyQuery(query, ['rpc', 'since']);
          const rpc = rpcParam(query);
          const sinceText = query.get('since');
          let since: number | undefined;
          if (sinceText !== null) {
            if (!/^\d{1,15}$/.test(sinceText)) throw new BadRequest(`query parameter "since": "${sinceText}" is not a call sequence number`);
            since = Number(sinceText);
          }
          const calls = control.calls.list({ rpc, since });
          const dropped = control.calls.dropped;
          // Streamed record by record: the log may hold more JSON than one string can (64 MiB of
          // requests, their bytes fields at up to 4 characters a byte).
          return { status: 200, body: undefined, parts: callsJson(calls, dropped) };
        },
        DELETE: (ctx) => {
          onlyQuery(ctx.query, []);
          noFields(ctx);
          control.calls.clear();
          return ok({ cleared: true });
        },
      },
    },
    {
      pattern: /^\/faults$/,
      methods: {
        GET: ({ query }) => {
          onlyQuery(query, []);
          return ok({ faults: control.faults.list() });
        },
        POST: (ctx) => {
          onlyQuery(ctx.query, []);
          // Faults.add validates the whole spec (FaultSpecError -> 400) before it activates anything.
          return ok(control.faults.add(needBody(ctx) as unknown as FaultSpec), 201);
        },
        DELETE: (ctx) => {
          onlyQuery(ctx.query, ['rpc']);
          noFields(ctx);
          const rpc = rpcParam(ctx.query);
          const before = control.faults.list().filter((f) => rpc === undefined || f.rpc === rpc).length;
          control.faults.clear(rpc);
          return ok({ cleared: before });
        },
      },
    },
    {
      pattern: /^\/faults\/([^/]+)$/,
      methods: {
        DELETE: (ctx, [id]) => {
          onlyQuery(ctx.query, []);
          noFields(ctx);
          if (!control.faults.remove(decodeURIComponent(id!))) throw new NotFoundError(`no active fault "${id}"`);
          return ok({ cleared: 1 });
        },
      },
    },
    {
      pattern: /^\/runtime$/,
      methods: {
        POST: (ctx) => {
          onlyQuery(ctx.query, []);
          const body = needBody(ctx);
          onlyFields(body, ['runtimeReady', 'networkReady', 'reason', 'message', 'checkpoint', 'metrics']);
          const runtimeReady = optBool(body, 'runtimeReady');
          const networkReady = optBool(body, 'networkReady');
          const checkpoint = optBool(body, 'checkpoint');
          const metrics = optBool(body, 'metrics');
          const reason = optText(body, 'reason');
          const message = optText(body, 'message');
          if ((reason !== undefined || message !== undefined) && runtimeReady === undefined && networkReady === undefined) {
            throw new BadRequest('"reason" and "message" describe a condition: give "runtimeReady" or "networkReady" with them');
          }
          if (reason !== undefined && reason !== '' && !/^[A-Za-z][A-Za-z0-9]*$/.test(reason)) {
            throw new BadRequest(`field "reason": "${reason.slice(0, 80)}" is not a CamelCase word, as condition reasons are`);
          }
          if (runtimeReady === undefined && networkReady === undefined && checkpoint === undefined && metrics === undefined) {
            throw new BadRequest('nothing to change: give runtimeReady, networkReady, checkpoint or metrics');
          }
          if (runtimeReady !== undefined) control.setRuntimeReady(runtimeReady, reason, message);
          if (networkReady !== undefined) control.setNetworkReady(networkReady, reason, message);
          if (checkpoint !== undefined) control.setCheckpointSupported(checkpoint);
          if (metrics !== undefined) control.setMetricsEnabled(metrics);
          return ok({ applied: { runtimeReady, networkReady, reason, message, checkpoint, metrics } });
        },
      },
    },
    {
      pattern: /^\/containers\/([^/]+)\/exit$/,
      methods: {
        POST: (ctx, [rawId]) => {
          onlyQuery(ctx.query, []);
          const id = containerId(rawId!);
          const body = needBody(ctx);
          onlyFields(body, ['exitCode', 'reason']);
          const code = body.exitCode;
          if (code === undefined) throw new BadRequest('field "exitCode" is required');
          if (typeof code !== 'number' || !Number.isInteger(code) || code < 0 || code > 255) {
            throw new BadRequest(`field "exitCode" must be an integer 0..255 (got ${JSON.stringify(code)})`);
          }
          const reason = optText(body, 'reason');
          if (reason === '') throw new BadRequest('field "reason" is empty: leave it out for the runtime default');
          control.exitContainer(id, code, reason);
          return ok({ id, exitCode: code, ...(reason !== undefined ? { reason } : {}) });
        },
      },
    },
    {
      pattern: /^\/containers\/([^/]+)\/oom$/,
      methods: {
        POST: (ctx, [rawId]) => {
          onlyQuery(ctx.query, []);
          const id = containerId(rawId!);
          noFields(ctx);
          control.oomKill(id);
          return ok({ id, exitCode: 137, reason: 'OOMKilled' });
        },
      },
    },
    {
      pattern: /^\/images$/,
      methods: {
        POST: (ctx) => {
          onlyQuery(ctx.query, []);
          // The whole declaration is checked (ImageDeclarationError -> 400) before the catalogue changes.
          return ok(control.declareImage(needBody(ctx)), 201);
        },
      },
    },
    {
      pattern: /^\/state$/,
      methods: {
        GET: ({ query }) => {
          onlyQuery(query, []);
          return ok(control.state());
        },
      },
    },
    {
      pattern: /^\/reset$/,
      methods: {
        POST: (ctx) => {
          onlyQuery(ctx.query, []);
          noFields(ctx);
          control.reset();
          return ok({ reset: true });
        },
      },
    },
  ];
}

// ---- HTTP plumbing ----

/** JSON that tolerates BigInt (as a decimal string); throws only on cycles. */
function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  let text: string;
  try {
    text = toJson(body);
  } catch (err) {
    status = 500;
    text = toJson({ error: `internal error: the response cannot be encoded as JSON: ${(err as Error).message}` });
  }
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), 'cache-control': 'no-store', ...headers });
  res.end(text);
}

const sendError = (res: ServerResponse, status: number, message: string, headers?: Record<string, string>) => send(res, status, { error: message }, headers);

type BodyResult = { kind: 'ok'; data: Buffer } | { kind: 'tooLarge' } | { kind: 'aborted' };

/** Reads the body up to MAX_BODY_BYTES. A bigger one is read to its end and dropped (so the client,
 *  still sending, gets the 413 rather than a reset), unless it goes past MAX_DISCARD_BYTES. */
function readBody(req: IncomingMessage): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (r: BodyResult) => {
      if (!settled) {
        settled = true;
        resolve(r);
      }
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else if (size > MAX_DISCARD_BYTES) {
        settle({ kind: 'tooLarge' });
        req.pause();
      } else chunks.length = 0;
    });
    req.on('end', () => settle(size > MAX_BODY_BYTES ? { kind: 'tooLarge' } : { kind: 'ok', data: Buffer.concat(chunks) }));
    req.on('error', () => settle({ kind: 'aborted' }));
    req.on('close', () => settle({ kind: 'aborted' }));
  });
}

async function handle(req: IncomingMessage, res: ServerResponse, table: Route[]): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://control.invalid');
  let match: { route: Route; params: string[] } | undefined;
  for (const route of table) {
    const m = route.pattern.exec(url.pathname);
    if (m) {
      match = { route, params: m.slice(1) };
      break;
    }
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (!match || !Object.prototype.hasOwnProperty.call(match.route.methods, req.method ?? '')) {
    // Answered without reading the body; a small one is drained so the connection stays usable.
    if (declared > MAX_BODY_BYTES) res.setHeader('connection', 'close');
    req.resume();
    if (!match) return sendError(res, 404, `no route ${req.method} ${url.pathname}`);
    const allow = Object.keys(match.route.methods).join(', ');
    return sendError(res, 405, `method ${req.method} not allowed on ${url.pathname} (allowed: ${allow})`, { allow });
  }
  if (declared > MAX_DISCARD_BYTES) {
    res.setHeader('connection', 'close');
    return sendError(res, 413, `request body over ${MAX_BODY_BYTES} bytes`);
  }
  const got = await readBody(req);
  if (got.kind === 'aborted') return;
  if (got.kind === 'tooLarge') {
    res.setHeader('connection', 'close');
    return sendError(res, 413, `request body over ${MAX_BODY_BYTES} bytes`);
  }
  let body: Json | undefined;
  const text = got.data.toString('utf8');
  if (text.trim() !== '') {
    if (req.method === 'GET') return sendError(res, 400, `GET ${url.pathname} takes no body`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      return sendError(res, 400, `request body is not valid JSON: ${(err as Error).message}`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return sendError(res, 400, 'request body must be a JSON object');
    }
    body = parsed as Json;
  }
  let reply: Reply;
  try {
    reply = match.route.methods[req.method!]!({ query: url.searchParams, body }, match.params);
  } catch (err) {
    if (err instanceof BadRequest || err instanceof FaultSpecError || err instanceof ImageDeclarationError) return sendError(res, 400, err.message);
    if (err instanceof NotFoundError) return sendError(res, 404, err.message);
    return sendError(res, 500, `internal error: ${(err as Error)?.message ?? String(err)}`);
  }
  if (reply.parts) return sendParts(res, reply.status, reply.parts);
  send(res, reply.status, reply.body);
}

function* callsJson(calls: readonly unknown[], dropped: number): Iterable<string> {
  yield '{"calls":[';
  for (let i = 0; i < calls.length; i++) yield (i ? ',' : '') + toJson(calls[i]);
  yield `],"dropped":${dropped}}`;
}

/** A chunked answer written as the client takes it: at most a socket buffer's worth is held at once. */
function sendParts(res: ServerResponse, status: number, parts: Iterable<string>): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  const it = parts[Symbol.iterator]();
  const pump = (): void => {
    try {
      for (;;) {
        const next = it.next();
        if (next.done) return void res.end();
        if (!res.write(next.value)) return void res.once('drain', pump);
      }
    } catch {
      // Headers are out: all that is left is to cut the answer short.
      res.destroy();
    }
  };
  res.once('close', () => it.return?.());
  pump();
}

/** HTTP/1.1 JSON over a unix socket (0600 in a 0700 dir), serving the routes listed at the top. */
export async function startControlServer(socketPath: string, control: MockCriControl): Promise<{ close(): Promise<void> }> {
  const abs = await prepareSocketPath(socketPath);
  const table = routes(control);
  const server: Server = createServer((req, res) => {
    handle(req, res, table).catch((err: unknown) => {
      try {
        sendError(res, 500, `internal error: ${(err as Error)?.message ?? String(err)}`);
      } catch {
        res.destroy();
      }
    });
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(abs, () => {
      server.off('error', reject);
      resolveListen();
    });
  });
  // Created with the process umask; narrowed before anything is served. A directory this module
  // created is 0700, which keeps others out in between.
  await chmod(abs, 0o600);
  const ino = (await lstat(abs)).ino;
  let closing: Promise<void> | undefined;
  return {
    close() {
      closing ??= (async () => {
        await new Promise<void>((done) => {
          server.close(() => done());
          server.closeAllConnections();
        });
        // Remove the socket only if it is still the one this server made.
        try {
          if ((await lstat(abs)).ino === ino) await unlink(abs);
        } catch {
          /* already gone */
        }
      })();
      return closing;
    },
  };
}
