// A legal variant: a target that differs from the reference only where the spec leaves freedom
// (status codes it lists side by side, the rules it words with "may", whatever it does not fix such
// as key order or wording). It is the proxy of broken-target.ts in front of a reference, with hooks
// that take one such freedom; the whole suite must pass against it (test/legal-variants.test.ts).
// Several variants combine in ONE proxy: their hooks apply in order inside the one hop, as a chain
// of proxies, one per variant, would apply them (a request crossing nine proxies cost most of a
// combined run's CPU).
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { processSelfSigned } from '../../reference/tls.js';
import type { TargetFacts } from '../../runner/facts.js';
import { startBrokenTarget, type Breakage, type ProxiedRequest, type ProxiedResponse } from './broken-target.js';

/** What a variant's hooks may know about the target they stand in front of. */
export interface VariantContext {
  /** The facts the run is told about the target (e.g. its continue-token validity). */
  readonly facts: TargetFacts;
  /**
   * Sends a (non-watch) request to what stands behind the variant: the variants nearer the
   * reference (their hooks applied), then the reference. For hooks that try a request first.
   */
  forward(req: ProxiedRequest): Promise<ProxiedResponse>;
}

export interface LegalVariant {
  /** Short name used in test output, e.g. `create-202`. */
  readonly name: string;
  /** The freedom it takes and where the spec gives it. */
  readonly freedom: string;
  /** The proxy's hooks, made once per target so that state (token maps, streams) stays per target. */
  hooks(ctx: VariantContext): Breakage;
  /** Cases run at once against it (default 16): higher where every request waits (delays). */
  readonly parallel?: number;
}

export interface VariantTarget {
  url: string;
  /** The CA the run must trust for `url` (when it is https). */
  caPem?: string;
  /**
   * How many requests, responses and watch lines each variant (by name) changed (or answered, or
   * added) so far: a variant that changes nothing proves nothing.
   */
  edits(): Record<string, number>;
  close(): Promise<void>;
}

/**
 * Starts a target taking every freedom of `variants` at once (nearest the reference first) in front
 * of `upstream`. It serves HTTPS when the upstream does (or as `serveTls` says), with a certificate
 * from reference/tls.ts, so that the HTTPS rules (spec 002 §1) still hold where the run connects.
 */
export async function startVariantTarget(upstream: string, variants: readonly LegalVariant[], opts: { caPem?: string; facts?: TargetFacts; serveTls?: boolean } = {}): Promise<VariantTarget> {
  const tls = (opts.serveTls ?? upstream.startsWith('https:')) ? processSelfSigned('127.0.0.1') : undefined;
  const agent = upstream.startsWith('https:') ? new HttpsAgent({ keepAlive: true, timeout: 4_000, ...(opts.caPem ? { ca: opts.caPem } : {}) }) : new HttpAgent({ keepAlive: true, timeout: 4_000 });
  const stages: Breakage[] = [];
  const counted: Array<{ name: string; counter: { edits: number } }> = [];
  for (const [i, v] of variants.entries()) {
    // A variant's forward reaches what a chain of proxies would put behind it: the stages before it.
    const ctx: VariantContext = { facts: opts.facts ?? {}, forward: (req) => exchange(stages, i, req, (r) => forward(upstream, r, agent)) };
    const c = counting(v.hooks(ctx));
    stages.push(c.hooks);
    counted.push({ name: v.name, counter: c });
  }
  const proxy = await startBrokenTarget(upstream, composed(stages), { caPem: opts.caPem, tls });
  const close = async () => {
    agent.destroy();
    await proxy.close();
  };
  const edits = () => Object.fromEntries(counted.map((c) => [c.name, c.counter.edits]));
  return { url: proxy.url, caPem: tls?.caPem, edits, close };
}

// Composition. Stage 0 stands nearest the reference. A request passes the stages' request hooks from
// the last stage to stage 0, each on its own copy (a stage's later hooks see the request as it left
// that stage, as a proxy of its own would); an answer a stage gives passes only the stages after it.
// Responses, watch heads and watch lines pass the stages from 0 up, each line a stage writes (several
// lines, or one pushed by watchOpen) reaching the next stage line by line. What is hop-by-hop stays
// with the stage's own hop, as a chain's next proxy would drop or undo it: the connection headers of
// every stage but the last, and the watch writes a stage splits (only the last stage's splits reach
// the client).

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding']);

/** The headers as the next proxy of a chain receives them: without the hop-by-hop ones. */
function dropHopByHop(headers: Record<string, string>): void {
  for (const k of Object.keys(headers)) if (HOP_BY_HOP.has(k.toLowerCase())) delete headers[k];
}

const copyOf = (r: ProxiedRequest): ProxiedRequest => ({ method: r.method, path: r.path, headers: { ...r.headers }, body: r.body });

/**
 * An answer as the next proxy of a chain would read it: lower-case headers, no hop-by-hop ones; a
 * stage's own answer is JSON unless it says otherwise (broken-target.ts writes it so).
 */
function asReceived(res: ProxiedResponse, own = false): ProxiedResponse {
  const headers: Record<string, string> = own ? { 'content-type': 'application/json' } : {};
  for (const [k, v] of Object.entries(res.headers)) headers[k.toLowerCase()] = v;
  dropHopByHop(headers);
  delete headers['content-length'];
  return { status: res.status, headers, body: res.body };
}

const isWatchPath = (path: string) => /[?&]watch=(true|1)\b/.test(path) || path.includes('/watch/');

/**
 * The request hooks of stages `below - 1` down to 0 on copies of `req` (the copies, by stage, in
 * `views`); an early answer, with the response hooks of the stages between, or undefined when the
 * request goes on (as `views[0]`, or `req` itself when there is no stage below).
 */
async function requestDown(stages: readonly Breakage[], below: number, req: ProxiedRequest, views: ProxiedRequest[]): Promise<ProxiedResponse | undefined> {
  let cur = req;
  for (let i = below - 1; i >= 0; i--) {
    const view = copyOf(cur);
    views[i] = view;
    const early = await stages[i]!.request?.(view);
    if (early) return answerUp(stages, i + 1, below, views, asReceived(early, true));
    cur = view;
  }
  return undefined;
}

/** An answer given by the stage before `from`, through the stages from `from` to `to - 1`. */
function answerUp(stages: readonly Breakage[], from: number, to: number, views: readonly ProxiedRequest[], res: ProxiedResponse): ProxiedResponse {
  // A watch answered before its stream began reaches the later stages as a (short) stream.
  if (to > from && isWatchPath(views[from]!.path)) {
    const head = { status: res.status, headers: res.headers };
    for (let i = from; i < to; i++) {
      stages[i]!.watchHead?.(views[i]!, head);
      if (i < stages.length - 1) dropHopByHop(head.headers);
    }
    // Line by line as the proxy reads a stream: a last piece without a newline is a line too.
    const parts = res.body.split('\n');
    const last = parts.pop()!;
    let body = '';
    for (const line of parts) {
      const up = linesUp(stages, from, to, views, line);
      if (up !== undefined) body += `${up}\n`;
    }
    if (last) body += linesUp(stages, from, to, views, last) ?? '';
    return { status: head.status, headers: head.headers, body };
  }
  for (let i = from; i < to; i++) {
    stages[i]!.response?.(views[i]!, res);
    if (i < stages.length - 1) dropHopByHop(res.headers);
  }
  return res;
}

/** A watch line through the watchLine hooks of stages `from` to `to - 1`; undefined when dropped. */
function linesUp(stages: readonly Breakage[], from: number, to: number, views: readonly ProxiedRequest[], line: string): string | undefined {
  let lines = [line];
  for (let i = from; i < to && lines.length; i++) {
    const hook = stages[i]!.watchLine;
    if (!hook) continue;
    const view = views[i]!;
    lines = lines.flatMap((l) => {
      const out = hook(view, l);
      return out === undefined ? [] : out.split('\n');
    });
  }
  return lines.length ? lines.join('\n') : undefined;
}

/** A request sent from stage `at`: through the stages below it, then `send` to the reference. */
async function exchange(stages: readonly Breakage[], at: number, req: ProxiedRequest, send: (r: ProxiedRequest) => Promise<ProxiedResponse>): Promise<ProxiedResponse> {
  const views: ProxiedRequest[] = [];
  const early = await requestDown(stages, at, req, views);
  if (early) return early;
  return answerUp(stages, 0, at, views, asReceived(await send(at > 0 ? views[0]! : req)));
}

/** One Breakage doing what the stages do, for the proxy of broken-target.ts. */
function composed(stages: readonly Breakage[]): Breakage {
  const n = stages.length;
  // Each request's copies, by stage: the proxy passes its own request object to every hook.
  const viewsOf = new WeakMap<ProxiedRequest, ProxiedRequest[]>();
  const views = (req: ProxiedRequest) => viewsOf.get(req) ?? stages.map(() => req);
  const out: Breakage = {
    async request(req) {
      const vs: ProxiedRequest[] = [];
      const early = await requestDown(stages, n, req, vs);
      if (early) return early;
      // The proxy sends what left stage 0.
      if (n > 0) Object.assign(req, copyOf(vs[0]!));
      viewsOf.set(req, vs);
    },
  };
  if (stages.some((s) => s.response)) {
    out.response = (req, res) => {
      const vs = views(req);
      for (let i = 0; i < n; i++) {
        stages[i]!.response?.(vs[i]!, res);
        if (i < n - 1) dropHopByHop(res.headers);
      }
    };
  }
  if (stages.some((s) => s.watchHead)) {
    out.watchHead = (req, head) => {
      const vs = views(req);
      for (let i = 0; i < n; i++) {
        stages[i]!.watchHead?.(vs[i]!, head);
        if (i < n - 1) dropHopByHop(head.headers);
      }
    };
  }
  if (stages.some((s) => s.watchLine)) out.watchLine = (req, line) => linesUp(stages, 0, n, views(req), line);
  if (stages.some((s) => s.watchOpen)) {
    out.watchOpen = (req, push) => {
      const vs = views(req);
      // What a stage pushes passes the watchLine hooks of the stages after it.
      const stops = stages.map((s, i) => s.watchOpen?.(vs[i]!, (line) => {
        const up = linesUp(stages, i + 1, n, vs, line);
        if (up !== undefined) push(up);
      }));
      return () => { for (const stop of stops) stop?.(); };
    };
  }
  const split = stages[n - 1]?.watchSplit;
  if (split) out.watchSplit = (req, text) => split(views(req)[n - 1]!, text);
  return out;
}

/** The hooks, counting every call that changed what passes through. */
function counting(h: Breakage): { hooks: Breakage; edits: number } {
  const c = { hooks: {} as Breakage, edits: 0 };
  const seen = (changed: boolean) => { if (changed) c.edits++; };
  // Bodies compared as strings (cheap), headers (small) as JSON.
  const snap = (x: { path?: string; status?: number; headers: Record<string, string>; body: string }) => ({ head: JSON.stringify([x.path, x.status, x.headers]), body: x.body });
  const same = (a: ReturnType<typeof snap>, b: ReturnType<typeof snap>) => a.head === b.head && a.body === b.body;
  if (h.request) {
    const request = h.request.bind(h);
    c.hooks.request = async (req) => {
      const before = snap(req);
      const early = await request(req);
      seen(!!early || !same(snap(req), before));
      return early;
    };
  }
  if (h.response) {
    const response = h.response.bind(h);
    c.hooks.response = (req, res) => {
      const before = snap(res);
      response(req, res);
      seen(!same(snap(res), before));
    };
  }
  if (h.watchLine) {
    const watchLine = h.watchLine.bind(h);
    c.hooks.watchLine = (req, line) => {
      const out = watchLine(req, line);
      seen(out !== line);
      return out;
    };
  }
  if (h.watchHead) {
    const watchHead = h.watchHead.bind(h);
    c.hooks.watchHead = (req, head) => {
      const before = JSON.stringify(head);
      watchHead(req, head);
      seen(JSON.stringify(head) !== before);
    };
  }
  if (h.watchOpen) {
    const watchOpen = h.watchOpen.bind(h);
    c.hooks.watchOpen = (req, push) => watchOpen(req, (line) => { c.edits++; push(line); });
  }
  if (h.watchSplit) {
    const watchSplit = h.watchSplit.bind(h);
    c.hooks.watchSplit = (req, text) => {
      const pieces = watchSplit(req, text);
      seen(pieces.length > 1);
      return pieces;
    };
  }
  return c;
}

function forward(upstream: string, req: ProxiedRequest, agent: HttpAgent | HttpsAgent, retried = false): Promise<ProxiedResponse> {
  const up = new URL(upstream);
  const headers: Record<string, string> = { ...req.headers, host: up.host };
  delete headers['content-length'];
  delete headers['transfer-encoding'];
  if (req.body) headers['content-length'] = String(Buffer.byteLength(req.body));
  const send = up.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const r = send({ host: up.hostname.replace(/^\[(.*)\]$/, '$1'), port: up.port, method: req.method, path: req.path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const h: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h[k] = Array.isArray(v) ? v.join(', ') : v;
        delete h['content-length'];
        delete h['transfer-encoding'];
        resolve({ status: res.statusCode ?? 502, headers: h, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    r.on('error', (err: NodeJS.ErrnoException) => {
      // As the proxy does: a reused connection the upstream had just closed is tried once more.
      if (r.reusedSocket && err.code === 'ECONNRESET' && !retried) resolve(forward(upstream, req, agent, true));
      else reject(err);
    });
    r.end(req.body || undefined);
  });
}

// Helpers that keep variants short.

/** A request to the resource API (not the metrics and debug endpoints). */
export function isApiPath(req: ProxiedRequest): boolean {
  return /^\/apis?(\/|$|\?)/.test(req.path);
}

export function params(req: ProxiedRequest): URLSearchParams {
  const q = req.path.indexOf('?');
  return new URLSearchParams(q < 0 ? '' : req.path.slice(q + 1));
}

/** Rewrites the query string of a request. */
export function editParams(req: ProxiedRequest, edit: (q: URLSearchParams) => void): void {
  const q = params(req);
  edit(q);
  const base = req.path.split('?')[0]!;
  const s = q.toString();
  req.path = s ? `${base}?${s}` : base;
}

export function isWatch(req: ProxiedRequest): boolean {
  const w = params(req).get('watch');
  return w === 'true' || w === '1' || /\/watch\//.test(req.path.split('?')[0]!);
}

/** A GET of a collection or object of the resource API that is not a watch. */
export function isApiRead(req: ProxiedRequest): boolean {
  return req.method === 'GET' && isApiPath(req) && !isWatch(req);
}

function parse(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Parses a JSON body, lets `edit` change it, and writes it back in the layout it came in
 * (indented stays indented, as `pretty` asked). Non-JSON bodies are left alone.
 */
export function editBody(holder: { body: string }, edit: (o: any) => any): void {
  const o = parse(holder.body);
  if (o === undefined || o === null || typeof o !== 'object') return;
  const r = edit(o);
  holder.body = layoutLike(holder.body, r === undefined ? o : r);
}

/** `value` serialised as `original` was: indented (two spaces) or on one line, same final newline. */
export function layoutLike(original: string, value: unknown): string {
  const indented = /^[[{]\s*\n/.test(original);
  return JSON.stringify(value, null, indented ? 2 : undefined) + (original.endsWith('\n') ? '\n' : '');
}

/** Calls `visit` on every object in a JSON value, parents before children. */
export function walkObjects(v: unknown, visit: (o: Record<string, any>) => void): void {
  if (Array.isArray(v)) {
    for (const x of v) walkObjects(x, visit);
  } else if (v && typeof v === 'object') {
    visit(v as Record<string, any>);
    for (const x of Object.values(v)) walkObjects(x, visit);
  }
}

/** A watch stream line's event, or undefined when the line is not one. */
export function watchEvent(line: string): { type: string; object: any } | undefined {
  const e = parse(line);
  return e && typeof e === 'object' && typeof e.type === 'string' ? e : undefined;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
