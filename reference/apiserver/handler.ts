// The one REST handler for every resource: routing (upstream RequestInfo rules), negotiation,
// body decoding, verbs, watch streaming and error bodies. Resource specifics live in strategies.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { yaml } from '../packages.js';
import {
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  rootPaths,
  versionInfo,
} from './discovery.js';
import {
  badRequest,
  internal,
  isStatusError,
  methodNotAllowed,
  pathNotFound,
  successStatus,
  type StatusError,
} from './errors.js';
import {
  inputFormat,
  MAX_BODY_BYTES,
  negotiateOutput,
  isPlainJson,
  notAcceptableFor,
  parseObjectBody,
  readBody,
  type OutputFormat,
} from './negotiation.js';
import { parseJson } from './body-bounds.js';
import { parseBool, parseListQuery, type ListQuery } from './options.js';
import { ContinueTokens } from './continue-token.js';
import { listResponse } from './list-response.js';
import { DEFAULT_BOOKMARK_INTERVAL_MS } from './list-watch.js';
import { parseListSelectors } from './selectors.js';
import { APPLY_PATCH, applyPatch, applyToStore, fieldOwner, forceParam, patchOptionErrors, patchType, writeFieldManagerErrors } from './patch.js';
import { writeOptions } from './write-options.js';
import { serveOpenApi } from './openapi.js';
import type { FieldValidator } from './field-validation.js';
import { readDeleteOptions, storeDeleteOptions, unsafeDeleteStatus, validateDeleteOptions, type RequestDeleteOptions } from './delete-options.js';
import type { Registry } from './registry.js';
import { isPlainObject } from './schema.js';
import type { ResourceStore, WatchEvent } from './store.js';
import { resolveStrategy, type ApiObject, type CreateSubresource, type ReadSubresource, type ResolvedStrategy, type Verb } from './strategy.js';
import type { WatchHandle } from '../storage/types.js';
import { storageFailure } from './storage-failure.js';
import { timerDelay } from '../../cri/timers.js';
import type { ComponentEndpoints } from '../observability/component-endpoints.js';
import { NodeProxy } from './node-proxy.js';
import { PodStreaming } from './pod-streaming.js';
import { requestUser } from './auth/filter.js';
import { aggregatedContentType, aggregatedDiscovery, aggregatedWanted } from './aggregated-discovery.js';
import { hasMessage, PROTOBUF_STREAM_MEDIA_TYPE, servesProtobuf } from './protobuf/kinds.js';
import { encodeWatchFrame } from './protobuf/codec.js';
import { sendProtobuf } from './protobuf/respond.js';
import { jsonText } from './served-json.js';
import { WatchBudget, type BudgetedWatcher, type WatchBounds } from './watch-budget.js';
import { componentLog } from '../log.js';

/** Verbs this handler implements; discovery advertises only these. */
export const SERVED_VERBS: ReadonlySet<Verb> = new Set<Verb>(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection']);

export interface HandlerOptions {
  readonly registry: Registry;
  readonly maxBodyBytes?: number;
  /** Watches without timeoutSeconds end after this long, randomised up to twice (upstream: 1800s). */
  readonly minWatchTimeoutSeconds?: number;
  /** Where unexpected failures (500s) are reported. */
  readonly log?: (message: string, err?: unknown) => void;
  /** How long a list's continue tokens stay valid (default 300). */
  readonly continueTtlSeconds?: number;
  /** The storage is shared with other API servers (Storage.shared): their continue tokens are valid here. */
  readonly sharedStorage?: boolean;
  /** Period of BOOKMARK events on watches with allowWatchBookmarks (default 60; 0: none). */
  readonly bookmarkIntervalSeconds?: number;
  /** The metrics and debug endpoints (/healthz, /readyz, /statusz, ...); without them /healthz, /livez, /readyz answer a bare `ok`. */
  readonly endpoints?: ComponentEndpoints;
  /** Answers creates of kinds that are never stored (the review kinds); without it those answer 405. */
  readonly reviews?: { answer(s: ResolvedStrategy, obj: ApiObject, req: IncomingMessage): Promise<ApiObject> };
  /** Serves `/api/v1/nodes/{name}/proxy/...`; without it that path is not found. */
  readonly nodeProxy?: NodeProxy;
  /** pods/exec, pods/attach and pods/portforward (pod-streaming.ts). */
  readonly podStreaming?: PodStreaming;
  /** Bounds on what watches hold for slow clients (watch-budget.ts); unset fields take the defaults. */
  readonly watchBounds?: Partial<WatchBounds>;
  /** Told of every watch closed for slowness, by its resource (upstream apiserver_terminated_watchers_total). */
  readonly onWatcherTerminated?: (group: string, resource: string) => void;
}


interface ResourceRequest {
  readonly store: ResourceStore;
  /** '' for cluster-scoped resources and all-namespace collections. */
  readonly namespace: string;
  readonly name?: string;
  readonly subresource?: 'status' | 'finalize';
  /** A create-only subresource (`pods/{name}/binding`), served by its strategy. */
  readonly action?: CreateSubresource;
  /** A GET-only streaming subresource (`pods/{name}/log`), served by its strategy. */
  readonly reader?: ReadSubresource;
  /** The `/watch/` path form. */
  readonly watchPath: boolean;
}

interface RequestContext {
  readonly query: URLSearchParams;
  readonly pretty: boolean;
  output?: OutputFormat;
  /** The resource's kind reads and writes protobuf too (protobuf/kinds.ts). */
  protobuf?: boolean;
}

export class ApiHandler {
  private readonly registry: Registry;
  private readonly maxBodyBytes: number;
  private readonly minWatchTimeoutSeconds: number;
  private readonly log: (message: string, err?: unknown) => void;
  private readonly watches = new Set<ActiveWatch>();
  private readonly continueTokens: ContinueTokens;
  private readonly bookmarkIntervalMs: number;
  private readonly endpoints?: ComponentEndpoints;
  private readonly reviews?: HandlerOptions['reviews'];
  private readonly nodeProxy?: NodeProxy;
  private readonly podStreaming?: PodStreaming;
  private readonly watchBudget: WatchBudget;
  private readonly watchFlushes = new WatchFlushes();
  private readonly onWatcherTerminated?: HandlerOptions['onWatcherTerminated'];

  constructor(opts: HandlerOptions) {
    this.watchBudget = new WatchBudget(opts.watchBounds);
    this.onWatcherTerminated = opts.onWatcherTerminated;
    this.registry = opts.registry;
    this.endpoints = opts.endpoints;
    this.reviews = opts.reviews;
    this.nodeProxy = opts.nodeProxy;
    this.podStreaming = opts.podStreaming;
    this.maxBodyBytes = opts.maxBodyBytes ?? MAX_BODY_BYTES;
    this.minWatchTimeoutSeconds = opts.minWatchTimeoutSeconds ?? 1800;
    this.log = opts.log ?? componentLog('reference');
    this.continueTokens = new ContinueTokens(opts.continueTtlSeconds !== undefined ? opts.continueTtlSeconds * 1000 : undefined, undefined, opts.sharedStorage);
    this.bookmarkIntervalMs = opts.bookmarkIntervalSeconds !== undefined ? opts.bookmarkIntervalSeconds * 1000 : DEFAULT_BOOKMARK_INTERVAL_MS;
  }

  /** The node:http request listener. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/';
    const qi = url.indexOf('?');
    const query = new URLSearchParams(qi < 0 ? '' : url.slice(qi + 1));
    const ctx: RequestContext = { query, pretty: isPretty(query, req.headers['user-agent']) };
    this.route(req, res, qi < 0 ? url : url.slice(0, qi), ctx).catch((err) => this.fail(req, res, ctx, err));
  };

  /** Ends every open watch stream (server shutdown). */
  closeWatches(): void {
    for (const w of [...this.watches]) w.end();
  }

  get openWatches(): number {
    return this.watches.size;
  }

  /** Bytes of watch events waiting for their clients, over every open watch. */
  get pendingWatchBytes(): number {
    return this.watchBudget.totalPendingBytes;
  }

  private async route(req: IncomingMessage, res: ServerResponse, rawPath: string, ctx: RequestContext): Promise<void> {
    const segs = splitPath(rawPath);
    const [a, b, c, d] = segs;
    if (segs.length === 0) return this.discovery(req, res, ctx, () => rootPaths(this.registry, this.endpoints?.listedPaths()));
    if (this.endpoints && (await this.endpoints.handle(req, res, `/${segs.join('/')}`, ctx.query))) return;
    if (segs.length === 1 && (a === 'healthz' || a === 'livez' || a === 'readyz')) return this.health(req, res);
    if (segs.length === 1 && a === 'version') return this.discovery(req, res, ctx, () => versionInfo());
    if (a === 'openapi') return serveOpenApi(req, res, this.registry, segs.slice(1), SERVED_VERBS);
    if (this.nodeProxy && NodeProxy.matches(segs)) return this.nodeProxy.serve(req, res);
    if (this.podStreaming && PodStreaming.matches(segs)) return this.podStreaming.serve(req, res);
    if (a === 'api' && this.registry.servesGroupVersion('', 'v1')) {
      if (segs.length === 1) return this.discovery(req, res, ctx, () => apiVersions(serverAddress(req)), true);
      if (b === 'v1') {
        if (segs.length === 2) return this.discovery(req, res, ctx, () => apiResourceList(this.registry, '', 'v1', SERVED_VERBS));
        return this.resource(req, res, ctx, '', 'v1', segs.slice(2));
      }
    }
    if (a === 'apis') {
      if (segs.length === 1) return this.discovery(req, res, ctx, () => apiGroupList(this.registry), false);
      const group = apiGroup(this.registry, b!);
      if (group !== undefined) {
        if (segs.length === 2) return this.discovery(req, res, ctx, () => group);
        if (this.registry.servesGroupVersion(b!, c!)) {
          if (segs.length === 3) return this.discovery(req, res, ctx, () => apiResourceList(this.registry, b!, c!, SERVED_VERBS));
          if (d !== undefined) return this.resource(req, res, ctx, b!, c!, segs.slice(3));
        }
      }
    }
    throw pathNotFound();
  }

  /**
   * A discovery document. `/api` (`aggregate` true: the core group) and `/apis` (false) answer the
   * aggregated document instead when the client prefers it (aggregated-discovery.ts).
   */
  private async discovery(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, body: () => unknown, aggregate?: boolean): Promise<void> {
    if (req.method !== 'GET') throw methodNotAllowed();
    const group = aggregate === undefined ? undefined : aggregatedWanted(req.headers.accept);
    if (group) {
      const text = `${JSON.stringify(aggregatedDiscovery(this.registry, aggregate!, group, SERVED_VERBS))}\n`;
      res.writeHead(200, { 'Content-Type': aggregatedContentType(group), Vary: 'Accept', 'Cache-Control': 'no-cache, private', 'Content-Length': String(Buffer.byteLength(text)) });
      res.end(text);
      return;
    }
    this.negotiate(req, ctx, false);
    this.send(res, ctx, 200, body());
  }

  private async health(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed();
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache, private', 'Content-Length': '2' });
    res.end('ok');
  }

  private async resource(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: RequestContext,
    group: string,
    version: string,
    parts: string[],
  ): Promise<void> {
    const rr = this.parseResourcePath(group, version, parts);
    if (!rr) throw pathNotFound();
    const s = rr.store.strategy;
    ctx.protobuf = servesProtobuf(s);
    const method = req.method ?? 'GET';
    const allows = (v: Verb): boolean => s.verbs.includes(v) && SERVED_VERBS.has(v);
    const require = (v: Verb): void => {
      if (!allows(v)) throw methodNotAllowed();
    };
    // Only list and watch span namespaces; other verbs on a namespaced collection need one.
    const allNamespaces = s.namespaced && !rr.namespace;

    if (rr.reader) {
      if (method !== 'GET') throw methodNotAllowed();
      return rr.reader.serve({ registry: this.registry, namespace: rr.namespace, name: rr.name!, query: ctx.query, req, res, agents: this.nodeProxy });
    }
    if (rr.action) {
      if (method !== 'POST') throw methodNotAllowed();
      return this.createSubresource(req, res, ctx, rr, rr.action);
    }
    if (rr.subresource === 'finalize') {
      // Upstream's finalize storage is an Updater only: PUT, nothing else.
      if (method !== 'PUT') throw methodNotAllowed();
      require('update');
      return this.update(req, res, ctx, rr);
    }
    if (rr.watchPath) {
      if (method !== 'GET') throw methodNotAllowed();
      require('watch');
      return this.list(req, res, ctx, rr);
    }
    if (rr.name === undefined) {
      switch (method) {
        case 'GET':
          return this.list(req, res, ctx, rr);
        case 'POST':
          if (allNamespaces) throw methodNotAllowed();
          require('create');
          return this.create(req, res, ctx, rr);
        case 'DELETE':
          if (allNamespaces) throw methodNotAllowed();
          require('deletecollection');
          return this.deleteCollection(req, res, ctx, rr);
        default:
          throw methodNotAllowed();
      }
    }
    switch (method) {
      case 'GET':
        require('get');
        return this.get(req, res, ctx, rr);
      case 'PUT':
        require('update');
        return this.update(req, res, ctx, rr);
      case 'PATCH':
        require('patch');
        return this.patch(req, res, ctx, rr);
      case 'DELETE':
        // The status subresource is read and written, never deleted on its own.
        if (rr.subresource === 'status') throw methodNotAllowed();
        require('delete');
        return this.delete(req, res, ctx, rr);
      default:
        throw methodNotAllowed();
    }
  }

  /** Upstream RequestInfo path rules: [watch/][namespaces/<ns>/]<resource>[/<name>[/<subresource>]]. */
  private parseResourcePath(group: string, version: string, parts: string[]): ResourceRequest | undefined {
    let watchPath = false;
    if (parts[0] === 'watch') {
      watchPath = true;
      parts = parts.slice(1);
    }
    let namespace = '';
    // `namespaces/<name>[/status|/finalize]` addresses the Namespace itself, anything longer a
    // resource inside it.
    if (parts[0] === 'namespaces' && parts.length >= 3 && parts[2] !== 'status' && parts[2] !== 'finalize') {
      namespace = parts[1]!;
      parts = parts.slice(2);
    }
    if (parts.length === 0 || parts.length > 3) return undefined;
    const store = this.registry.lookup(group, version, parts[0]!);
    if (!store) return undefined;
    const s = store.strategy;
    const name = parts[1];
    const sub = parts[2];
    if (s.namespaced ? !namespace && name !== undefined : namespace !== '') return undefined;
    if (sub === undefined) return { store, namespace, name, watchPath };
    if (watchPath) return undefined;
    if (sub === 'status') return s.hasStatus ? { store, namespace, name, subresource: 'status', watchPath } : undefined;
    if (sub === 'finalize') return s.finalizeSubresource ? { store, namespace, name, subresource: 'finalize', watchPath } : undefined;
    const reader = s.readSubresources && Object.hasOwn(s.readSubresources, sub) ? s.readSubresources[sub] : undefined;
    if (reader) return name === undefined ? undefined : { store, namespace, name, reader, watchPath };
    const action = s.subresources && Object.hasOwn(s.subresources, sub) ? s.subresources[sub] : undefined;
    return action ? { store, namespace, name, action, watchPath } : undefined;
  }

  private async get(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, rr: ResourceRequest): Promise<void> {
    const out = this.negotiate(req, ctx, false, true);
    if (isPlainJson(out) && !ctx.pretty) {
      // The hot path: the stored object's text as it was served last, when it has not changed since.
      const text = `${await rr.store.getJson(rr.namespace, rr.name!)}\n`;
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Content-Length': String(Buffer.byteLength(text)) });
      res.end(text);
      return;
    }
    const obj = await rr.store.get(rr.namespace, rr.name!);
    this.send(res, ctx, 200, out.convert ? (await tableConvert()).convertObject(out.convert, rr.store.strategy, obj, ctx.query) : obj);
  }

  private async list(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, rr: ResourceRequest): Promise<void> {
    const q = parseListQuery(ctx.query, rr.watchPath);
    const out = this.negotiate(req, ctx, q.watch, true);
    if (q.watch) {
      if (!rr.store.strategy.verbs.includes('watch')) throw methodNotAllowed();
      return this.watch(res, ctx, rr, q);
    }
    if (!rr.store.strategy.verbs.includes('list')) throw methodNotAllowed();
    const predicate = parseListSelectors(ctx.query, rr.store.strategy, rr.store.gates);
    const list = await listResponse(rr.store, rr.namespace || undefined, q, predicate, this.continueTokens);
    this.send(res, ctx, 200, out.convert ? (await tableConvert()).convertList(out.convert, rr.store.strategy, list, ctx.query) : list);
  }

  private async create(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, rr: ResourceRequest): Promise<void> {
    const opts = writeOptions(ctx.query, 'CreateOptions', rr.store.strategy, writeFieldManagerErrors(ctx.query));
    this.negotiate(req, ctx, false);
    const body = await this.readObject(req, res, rr.store, opts.fields);
    if (rr.store.strategy.answerCreate) {
      // A kind that acts instead of being stored (the legacy bindings): it honours dryRun itself.
      const answer = await rr.store.strategy.answerCreate({ registry: this.registry, namespace: rr.namespace, body, dryRun: opts.dryRun });
      return this.send(res, ctx, 201, answer, opts.fields.warningHeaders());
    }
    if (rr.store.strategy.notStored) {
      // A review: computed, never written, so dryRun changes nothing (upstream's review storages ignore it too).
      if (!this.reviews) throw methodNotAllowed();
      const answer = await this.reviews.answer(rr.store.strategy, rr.store.unstoredObject(body), req);
      return this.send(res, ctx, 201, answer, opts.fields.warningHeaders());
    }
    const owner = fieldOwner(ctx.query, req.headers['user-agent']);
    const { object } = await rr.store.create(rr.namespace, body, { dryRun: opts.dryRun, owner, user: requestUser(req) });
    this.send(res, ctx, 201, object, opts.fields.warningHeaders());
  }

  /**
   * POST to a create-only subresource: the body is of the subresource's own kind (checked, and
   * fieldValidation applied, against it); the strategy acts and the answer is sent 201.
   */
  private async createSubresource(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, rr: ResourceRequest, action: CreateSubresource): Promise<void> {
    const kind = subresourceKind(action.body);
    const opts = writeOptions(ctx.query, 'CreateOptions', kind, writeFieldManagerErrors(ctx.query));
    this.negotiate(req, ctx, false);
    const format = inputFormat(req.headers['content-type'], hasMessage(kind));
    const raw = await readBody(req, res, this.maxBodyBytes);
    const body = parseObjectBody(raw, format, kind);
    const sent = typeMetaField(body, 'apiVersion');
    checkTypeMeta(body, sent && action.otherVersions?.includes(sent) ? sent : kind.apiVersion, kind.kind);
    opts.fields.checkBody(raw, format);
    const answer = await action.create({ registry: this.registry, namespace: rr.namespace, name: rr.name!, body, dryRun: opts.dryRun });
    this.send(res, ctx, 201, answer, opts.fields.warningHeaders());
  }

  private async update(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, rr: ResourceRequest): Promise<void> {
    const opts = writeOptions(ctx.query, 'UpdateOptions', rr.store.strategy, writeFieldManagerErrors(ctx.query));
    this.negotiate(req, ctx, false);
    const body = await this.readObject(req, res, rr.store, opts.fields);
    const owner = fieldOwner(ctx.query, req.headers['user-agent']);
    const result = await rr.store.update(rr.namespace, rr.name!, body, { subresource: rr.subresource, dryRun: opts.dryRun, owner, user: requestUser(req) });
    this.send(res, ctx, result.created ? 201 : 200, result.object, opts.fields.warningHeaders());
  }

  /**
   * PATCH: the patch is applied to the stored object and the result written like a PUT, guarded by
   * the resourceVersion it was applied to; a concurrent write makes it start over, unless the patch
   * itself named a resourceVersion (then the conflict is the client's to see).
   */
  private async patch(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, rr: ResourceRequest): Promise<void> {
    this.negotiate(req, ctx, false);
    const type = patchType(req.headers['content-type']);
    const opts = writeOptions(ctx.query, 'PatchOptions', rr.store.strategy, patchOptionErrors(ctx.query, type));
    const raw = (await readBody(req, res, this.maxBodyBytes)).toString('utf8');
    const owner = fieldOwner(ctx.query, req.headers['user-agent']);
    if (type === APPLY_PATCH) {
      // Server-side apply (apply.ts): may create the object (201). fieldValidation applies to its
      // body like any other (spec §4.3): checked as sent, unknown fields dropped unless Strict refused.
      opts.fields.checkApplyBody(raw);
      const applied = await applyToStore(rr.store, {
        // (finalize answers PUT only: never here)
        namespace: rr.namespace, name: rr.name!, subresource: rr.subresource === 'status' ? 'status' : undefined, raw, manager: owner.manager, force: forceParam(ctx.query), dryRun: opts.dryRun,
        dropUnknownFields: true, user: requestUser(req),
      });
      return this.send(res, ctx, applied.created ? 201 : 200, applied.object, opts.fields.warningHeaders());
    }
    let doc: unknown;
    try {
      doc = parseJson(raw);
    } catch (err) {
      throw badRequest(`error decoding patch: ${(err as Error).message}`);
    }
    opts.fields.checkPatchDocument(raw, type);
    const s = rr.store.strategy;
    for (let attempt = 1; ; attempt++) {
      const current = await rr.store.get(rr.namespace, rr.name!);
      const patched = applyPatch(type, current as unknown as Record<string, unknown>, doc, s, rr.name!);
      checkTypeMeta(patched, s.apiVersion, s.kind);
      const meta = isPlainObject(patched['metadata']) ? patched['metadata'] : (patched['metadata'] = {});
      // A resourceVersion the patch put there, whatever its type (a merge patch's field, a JSON
      // patch's `replace /metadata/resourceVersion`), is a precondition: the write below conflicts
      // unless it is the stored one, and a conflict is the client's to see. Otherwise the write is
      // guarded by the version the patch was applied to, and a concurrent write makes it start over.
      const rv = meta['resourceVersion'];
      const pinned = typeof rv === 'string' && rv !== '' && rv !== current.metadata.resourceVersion;
      if (!pinned) meta['resourceVersion'] = current.metadata.resourceVersion;
      opts.fields.checkPatched(patched);
      try {
        const result = await rr.store.update(rr.namespace, rr.name!, patched, { subresource: rr.subresource, dryRun: opts.dryRun, owner, user: requestUser(req) });
        return this.send(res, ctx, 200, result.object, opts.fields.warningHeaders());
      } catch (err) {
        if (pinned || attempt >= 8 || !isStatusError(err) || err.status.reason !== 'Conflict') throw err;
      }
    }
  }

  private async delete(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, rr: ResourceRequest): Promise<void> {
    this.negotiate(req, ctx, false);
    const opts = await this.readDeleteOptions(req, res, ctx.query, rr.store, false);
    const s = rr.store.strategy;
    if (opts.ignoreStoreReadErrorWithClusterBreakingPotential) {
      await rr.store.unsafeDelete(rr.namespace, rr.name!);
      return this.send(res, ctx, 200, unsafeDeleteStatus(rr.name!, s.kind));
    }
    const { object, deleted } = await rr.store.delete(rr.namespace, rr.name!, storeDeleteOptions(opts));
    // Kinds that answer with a Status still return the object while finalizers hold it (upstream).
    const body =
      s.deleteResponse === 'object' || !deleted
        ? object
        : successStatus({ name: object.metadata.name, group: s.group, kind: s.resource, uid: object.metadata.uid });
    // Upstream: 202 when the object stays and orphanDependents=false asked for cascading deletion.
    this.send(res, ctx, !deleted && opts.orphanDependents === false ? 202 : 200, body);
  }

  private async deleteCollection(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, rr: ResourceRequest): Promise<void> {
    const q = parseListQuery(ctx.query, false);
    this.negotiate(req, ctx, false);
    const del = storeDeleteOptions(await this.readDeleteOptions(req, res, ctx.query, rr.store, true));
    const s = rr.store.strategy;
    const result = await rr.store.deleteCollection(rr.namespace || undefined, {
      resourceVersion: q.resourceVersion,
      resourceVersionMatch: q.resourceVersionMatch,
      predicate: parseListSelectors(ctx.query, s, rr.store.gates),
    }, del);
    const body =
      s.deleteCollectionResponse === 'list'
        ? this.listBody(rr.store, result.items, result.resourceVersion)
        : successStatus({ group: s.group, kind: s.resource });
    this.send(res, ctx, 200, body);
  }

  private async watch(
    res: ServerResponse,
    ctx: RequestContext,
    rr: ResourceRequest,
    q: ListQuery,
  ): Promise<void> {
    const predicate = parseListSelectors(ctx.query, rr.store.strategy, rr.store.gates);
    // Each event's object as a Table row or its metadata, when the client asked for that.
    const convert = ctx.output?.convert && (await tableConvert()).watchConverter(ctx.output.convert, rr.store.strategy, ctx.query);
    // Protobuf clients get length-prefixed WatchEvent messages instead of JSON lines. Both are made
    // once per event for all the watchers that get the same event object (encodedEvent).
    const strategy = rr.store.strategy;
    const frame = ctx.output?.type === 'protobuf' ? (ev: WatchEvent) => encodedEvent(protobufFrames, ev, () => encodeWatchFrame(ev, strategy)) : undefined;
    const timeoutSeconds = q.timeoutSeconds;
    const seconds = timeoutSeconds && timeoutSeconds > 0 ? timeoutSeconds : this.minWatchTimeoutSeconds * (1 + Math.random());
    // Events that arrive while the watch is being set up wait here, so that a setup failure can
    // still be answered with a plain error status instead of a half-written stream.
    let pending: Buffer[] | undefined = [];
    let endedEarly = false;
    let active: ActiveWatch | undefined;
    const handle: WatchHandle = await rr.store.watch(
      rr.namespace || undefined,
      {
        resourceVersion: q.resourceVersion,
        name: rr.watchPath ? rr.name : undefined,
        predicate,
        sendInitialEvents: q.sendInitialEvents,
        allowWatchBookmarks: q.allowWatchBookmarks,
        bookmarkIntervalMs: this.bookmarkIntervalMs,
      },
      {
        event: (ev: WatchEvent) => {
          const line = frame ? frame(ev) : convert ? Buffer.from(JSON.stringify(convert(ev)) + '\n') : encodedEvent(jsonLines, ev, () => Buffer.from(eventLine(ev)));
          if (pending) pending.push(line);
          else active?.write(line);
        },
        close: () => {
          if (pending) endedEarly = true;
          else active?.end();
        },
      },
    );
    if (res.destroyed) {
      handle.stop();
      return;
    }
    res.writeHead(200, {
      'Content-Type': frame ? PROTOBUF_STREAM_MEDIA_TYPE : 'application/json',
      'Cache-Control': 'no-cache, private',
      'Transfer-Encoding': 'chunked',
    });
    res.flushHeaders();
    const { group, resource } = rr.store.strategy;
    active = new ActiveWatch(res, handle, seconds * 1000, {
      registry: this.watches,
      budget: this.watchBudget,
      flushes: this.watchFlushes,
      terminated: () => this.onWatcherTerminated?.(group, resource),
    });
    const buffered = pending;
    pending = undefined;
    if (buffered.length) active.writeInitial(buffered.length === 1 ? buffered[0]! : Buffer.concat(buffered));
    if (endedEarly) active.end();
  }

  private listBody(store: ResourceStore, items: ApiObject[], resourceVersion: string): unknown {
    const s = store.strategy;
    return { kind: s.listKind, apiVersion: s.apiVersion, metadata: { resourceVersion }, items };
  }

  /** Reads and decodes a create/update body, checking its apiVersion and kind against the endpoint. */
  private async readObject(req: IncomingMessage, res: ServerResponse, store: ResourceStore, fields?: FieldValidator): Promise<Record<string, unknown>> {
    const format = inputFormat(req.headers['content-type'], servesProtobuf(store.strategy));
    const raw = await readBody(req, res, this.maxBodyBytes);
    const body = parseObjectBody(raw, format, store.strategy);
    checkTypeMeta(body, store.strategy.apiVersion, store.strategy.kind);
    fields?.checkBody(raw, format);
    return body;
  }

  /** DeleteOptions from the body, or else the query (as upstream), validated (delete-options.ts). */
  private async readDeleteOptions(
    req: IncomingMessage,
    res: ServerResponse,
    query: URLSearchParams,
    store: ResourceStore,
    collection: boolean,
  ): Promise<RequestDeleteOptions> {
    const opts = await readDeleteOptions(req, res, query, this.maxBodyBytes, store.strategy.apiVersion);
    validateDeleteOptions(opts, { collection });
    return opts;
  }

  /** `conversions`: the request may be answered as a Table or PartialObjectMetadata (reads only). */
  private negotiate(req: IncomingMessage, ctx: RequestContext, stream: boolean, conversions = false): OutputFormat {
    const out = negotiateOutput(req.headers.accept, { stream, conversions, protobuf: ctx.protobuf });
    if (!out) throw notAcceptableFor(stream, ctx.protobuf);
    ctx.output = out;
    return out;
  }

  private send(res: ServerResponse, ctx: RequestContext, code: number, body: unknown, headers?: Record<string, string | string[]>): void {
    const fmt = ctx.output ?? { type: 'json', pretty: false };
    if (fmt.type === 'protobuf' && sendProtobuf(res, code, body, headers)) return;
    const pretty = ctx.pretty || fmt.pretty;
    const text = fmt.type === 'yaml' ? yaml().stringify(body) : (pretty ? JSON.stringify(body, null, 2) : jsonText(body)) + '\n';
    res.writeHead(code, {
      ...headers,
      'Content-Type': fmt.type === 'yaml' ? 'application/yaml' : 'application/json',
      'Cache-Control': 'no-cache, private',
      'Content-Length': String(Buffer.byteLength(text)),
    });
    res.end(text);
  }

  private fail(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, err: unknown): void {
    let se: StatusError;
    if (isStatusError(err)) {
      se = err;
    } else if (storageFailure(err)) {
      se = storageFailure(err)!;
    } else {
      this.log(`${req.method} ${req.url} failed`, err);
      se = internal(err);
    }
    if (res.headersSent) {
      // Mid-stream: all that is left is to cut the response short.
      res.destroy();
      return;
    }
    // Failures before the answer's format was chosen reach protobuf clients in protobuf all the same.
    if (!ctx.output && ctx.protobuf && negotiateOutput(req.headers.accept, { protobuf: true })?.type === 'protobuf') ctx.output = { type: 'protobuf', pretty: false };
    try {
      this.send(res, ctx, se.code, se.status);
    } catch (sendErr) {
      this.log('writing an error response failed', sendErr);
      res.destroy();
    }
  }
}

/** The Table and PartialObjectMetadata conversions, loaded when a client first asks for one. */
const tableConvert = (): Promise<typeof import('./table/convert.js')> => import('./table/convert.js');

/** A watch event as a JSON line: what JSON.stringify(ev) gives, the object's text made once when shared. */
function eventLine(ev: WatchEvent): string {
  return `{"type":${JSON.stringify(ev.type)},"object":${jsonText(ev.object)}}\n`;
}

/**
 * Each event's bytes by encoding, made once and written to every watcher given the same event
 * object: the storage layers hand one StorageEvent to all the watchers of a collection and
 * list-watch.ts turns it into one WatchEvent per outcome, so with a thousand watchers the JSON
 * line (or protobuf frame) is made once, not a thousand times, and no socket write re-encodes it.
 * Events made for one watcher (initial events, bookmarks) are simply made once for it.
 */
const jsonLines = new WeakMap<WatchEvent, Buffer>();
const protobufFrames = new WeakMap<WatchEvent, Buffer>();

function encodedEvent(cache: WeakMap<WatchEvent, Buffer>, ev: WatchEvent, encode: () => Buffer): Buffer {
  let bytes = cache.get(ev);
  if (!bytes) cache.set(ev, (bytes = encode()));
  return bytes;
}

/**
 * The watches with events to hand to their sockets, flushed together once per turn of the event
 * loop: one setImmediate for a write fanned out to a thousand watchers instead of one each.
 */
class WatchFlushes {
  private due = new Set<ActiveWatch>();
  private scheduled = false;

  add(w: ActiveWatch): void {
    this.due.add(w);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const due = this.due;
      this.due = new Set();
      for (const d of due) d.flushDue();
    });
  }
}

/**
 * The socket a watch response may write its chunks to itself: node:http's res.write frames each
 * write (size line, CRLF) and corks the socket until the next tick, work done again for every
 * watcher of every event; written straight to the socket, one event's chunk is framed once and
 * the same bytes go to every watcher. Only for a chunked HTTP/1.1 response that owns its socket
 * and has sent its headers (so that nothing of the response can be queued in front of them);
 * res.end() still writes the last chunk after them. Undefined otherwise: res.write is used.
 */
function rawSocket(res: ServerResponse): Socket | undefined {
  const socket = res.socket;
  const internals = res as unknown as { chunkedEncoding?: boolean };
  const owner = socket as unknown as { _httpMessage?: unknown } | null;
  return socket && owner?._httpMessage === res && internals.chunkedEncoding === true && res.headersSent && res.writableLength === socket.writableLength ? socket : undefined;
}

const CRLF = Buffer.from('\r\n');

/** Bytes as one HTTP/1.1 chunk. */
function frameChunk(parts: Buffer[], bytes: number): Buffer {
  return Buffer.concat([Buffer.from(`${bytes.toString(16)}\r\n`, 'latin1'), ...parts, CRLF]);
}

/** One event's bytes as a chunk, framed once for every watcher written the same bytes. */
const framedChunks = new WeakMap<Buffer, Buffer>();
function framedChunk(bytes: Buffer): Buffer {
  let framed = framedChunks.get(bytes);
  if (!framed) framedChunks.set(bytes, (framed = frameChunk([bytes], bytes.length)));
  return framed;
}

/** Events are handed to the socket in writes of about this size, so that little sits in it when a watch is closed. */
const WATCH_WRITE_BATCH_BYTES = 64 * 1024;

/**
 * How long a watch closed for slowness may take to hand its end of stream to its client: until then
 * the connection holds at most what was written before the close (a socket buffer's worth and one
 * batch); after it, the connection is dropped.
 */
const CLOSED_WATCH_LINGER_MS = 30_000;

/** The size a pending chunk is counted at: its bytes. */
const sizeOf = (chunk: Buffer): number => chunk.length;

/** What an ActiveWatch needs of its handler. */
interface WatchHome {
  readonly registry: Set<ActiveWatch>;
  readonly budget: WatchBudget;
  /** Where it waits for its turn to write (WatchFlushes). */
  readonly flushes: WatchFlushes;
  /** Counts a watch closed for slowness (upstream apiserver_terminated_watchers_total). */
  readonly terminated: () => void;
}

/**
 * One open watch stream: its timeout, client-disconnect cleanup and slow-reader protection. Events
 * wait in the watch's own queue and go to the socket only while it takes them (backpressure), so
 * what a slow client leaves unread is counted here: past the watcher's bounds, or the server's
 * total, the queue is dropped and the stream ended cleanly (the terminating chunk after what the
 * socket already holds), as upstream ends a watcher it forces closed.
 */
class ActiveWatch implements BudgetedWatcher {
  private done = false;
  /** Events not yet handed to the socket. */
  private queued: Buffer[] = [];
  private queuedBytes = 0;
  /** Bytes handed to the socket that it has not written out yet, as of its last write or drain. */
  private inSocket = 0;
  /** The socket refused more (write returned false): wait for 'drain'. */
  private blocked = false;
  private flushScheduled = false;
  /** The per-watcher byte bound, raised by the size of the initial events the client asked for. */
  private byteLimit: number;
  private readonly timer: NodeJS.Timeout;
  /** The connection's socket, when the watch writes its chunks there itself (rawSocket). */
  private readonly socket?: Socket;
  private readonly drained = (): void => {
    this.blocked = false;
    this.setInSocket(this.written());
    this.flush();
  };

  constructor(
    private readonly res: ServerResponse,
    private readonly handle: WatchHandle,
    timeoutMs: number,
    private readonly home: WatchHome,
  ) {
    home.registry.add(this);
    home.budget.add(this);
    this.byteLimit = home.budget.bounds.maxPendingBytes;
    // Node's timers take at most 2^31-1 ms (24.8 days) and fire at once for more (a timeoutSeconds
    // of 2147484 ended the watch at once): longer watches end after that, and clients watch again.
    this.timer = setTimeout(() => this.end(), timerDelay(timeoutMs));
    this.timer.unref();
    res.on('close', () => this.cleanup());
    this.socket = rawSocket(res);
    if (this.socket) this.socket.on('drain', this.drained);
    else res.on('drain', this.drained);
  }

  /** Bytes handed on that the socket has not sent yet. */
  private written(): number {
    return this.socket ? this.socket.writableLength : this.res.writableLength;
  }

  /**
   * Hands bytes on. Straight to the socket as one chunk (one framed once per event when it is one
   * event: the same bytes for every watcher) when the watch owns it, else through res.write.
   */
  private out(batch: Buffer[], bytes: number): boolean {
    if (!this.socket) return this.res.write(batch.length === 1 ? batch[0]! : Buffer.concat(batch, bytes));
    return this.socket.write(batch.length === 1 ? framedChunk(batch[0]!) : frameChunk(batch, bytes));
  }

  get pendingBytes(): number {
    return this.queuedBytes + this.inSocket;
  }

  /** The events that were ready when the watch started (initial events): allowed on top of the bound. */
  writeInitial(chunk: Buffer): void {
    this.byteLimit += sizeOf(chunk);
    this.write(chunk);
  }

  /**
   * Events written in one turn of the event loop go out together, after the turn's I/O: under a
   * burst of writes a watcher gets few large writes instead of one per event, and no event waits
   * longer than the turn unless its client is not reading.
   */
  write(chunk: Buffer): void {
    if (this.done) return;
    const size = sizeOf(chunk);
    this.queued.push(chunk);
    this.queuedBytes += size;
    const { budget } = this.home;
    budget.change(size);
    if (this.queued.length > budget.bounds.maxPendingEvents || this.pendingBytes > this.byteLimit) {
      this.terminate();
      return;
    }
    budget.enforce();
    if (this.done || this.blocked || this.flushScheduled) return;
    this.flushScheduled = true;
    this.home.flushes.add(this);
  }

  /** Its turn to write, from WatchFlushes. */
  flushDue(): void {
    this.flushScheduled = false;
    this.flush();
  }

  /** Hands queued events to the socket in batches until it refuses more. */
  private flush(): void {
    while (!this.done && !this.blocked && this.queued.length) {
      let n = 0;
      let bytes = 0;
      while (n < this.queued.length && (n === 0 || bytes + sizeOf(this.queued[n]!) <= WATCH_WRITE_BATCH_BYTES)) bytes += sizeOf(this.queued[n++]!);
      const batch = this.queued.splice(0, n);
      this.queuedBytes -= bytes;
      this.home.budget.change(-bytes);
      if (!this.out(batch, bytes)) this.blocked = true;
      this.setInSocket(this.written());
    }
  }

  private setInSocket(bytes: number): void {
    if (this.done) return;
    this.home.budget.change(bytes - this.inSocket);
    this.inSocket = bytes;
  }

  /** Closed for slowness: pending events are dropped, the stream ends cleanly, and it is counted. */
  terminate(): void {
    if (this.done) return;
    this.cleanup();
    this.home.terminated();
    this.res.end();
    // A client that never reads would keep the connection, and what its socket holds, forever.
    const linger = setTimeout(() => this.res.destroy(), CLOSED_WATCH_LINGER_MS);
    linger.unref();
    this.res.once('close', () => clearTimeout(linger));
  }

  end(): void {
    if (this.done) return;
    this.flush();
    if (this.done) return;
    // Events the socket has not taken yet still go out before the end of the stream.
    const rest = this.queued;
    this.cleanup();
    for (const c of rest) this.out([c], c.length);
    this.res.end();
  }

  private cleanup(): void {
    if (this.done) return;
    const { budget, registry } = this.home;
    budget.change(-this.pendingBytes);
    this.queued = [];
    this.queuedBytes = 0;
    this.inSocket = 0;
    this.done = true;
    clearTimeout(this.timer);
    // A kept-alive socket serves later requests: its drain is no longer this watch's business.
    this.socket?.off('drain', this.drained);
    this.handle.stop();
    registry.delete(this);
    budget.delete(this);
  }
}

/** Body kinds of subresources, resolved once. */
const subresourceKinds = new WeakMap<object, ResolvedStrategy>();
function subresourceKind(s: CreateSubresource['body']): ResolvedStrategy {
  let r = subresourceKinds.get(s);
  if (!r) subresourceKinds.set(s, (r = resolveStrategy(s)));
  return r;
}

function splitPath(rawPath: string): string[] {
  const out: string[] = [];
  for (const seg of rawPath.split('/')) {
    if (!seg) continue;
    try {
      out.push(decodeURIComponent(seg));
    } catch {
      throw badRequest(`invalid URL path escape in ${JSON.stringify(seg)}`);
    }
  }
  return out;
}

/**
 * Upstream isPrettyPrint: the `pretty` parameter, else the User-Agent prefixes upstream treats as
 * human clients: `curl`, `Wget` and `Mozilla/5.0` (browsers). Nothing else (not HTTPie either).
 */
function isPretty(query: URLSearchParams, userAgent: string | undefined): boolean {
  const p = query.get('pretty');
  if (p) return parseBool(p) ?? false;
  const ua = userAgent ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

function typeMetaField(body: Record<string, unknown>, field: 'apiVersion' | 'kind'): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') {
    const goType = Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v;
    throw badRequest(`couldn't get version/kind; json parse error: json: cannot unmarshal ${goType} into Go struct field .${field} of type string`);
  }
  return v;
}

function serverAddress(req: IncomingMessage): string {
  const { localAddress, localPort } = req.socket;
  const host = localAddress && localAddress.includes(':') && !localAddress.startsWith('::ffff:') ? `[${localAddress}]` : (localAddress ?? '').replace(/^::ffff:/, '');
  return `${host}:${localPort}`;
}

/** apiVersion and kind, when a body names them, must be the endpoint's. */
function checkTypeMeta(body: Record<string, unknown>, apiVersion: string, kind: string): void {
  const av = typeMetaField(body, 'apiVersion');
  const k = typeMetaField(body, 'kind');
  if (av && av !== apiVersion) throw badRequest(`the API version in the data (${av}) does not match the expected API version (${apiVersion})`);
  if (k && k !== kind) throw badRequest(`the kind in the data (${k}) does not match the expected kind (${kind})`);
}
