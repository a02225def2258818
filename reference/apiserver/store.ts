// The generic registry store (upstream k8s.io/apiserver/pkg/registry/generic/registry.Store): one
// implementation of create/get/update/delete/list/watch for every resource, driven by its strategy.
import { randomUUID } from 'node:crypto';
import {
  alreadyExists,
  badRequest,
  conflict,
  expired,
  invalid,
  notFound,
  tooLargeResourceVersion,
  type Status,
  StatusError,
} from './errors.js';
import { deepEqual, fieldErrors, nameIsDNSSubdomain, type FieldError } from './field-errors.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { isPlainObject, normalizeObject, objectMetaSchema, type Properties } from './schema.js';
import { resolveStrategy, type ApiObject, type ResolvedStrategy, type ResourceStrategy } from './strategy.js';
import { isStorageError, StorageError, type KeyValue, type Storage, type WatchHandle } from '../storage/types.js';
import { FeatureGates } from '../features.js';
import { recordWrite, type FieldOwner } from './managed-fields.js';
import { markShared, ServedJsonCache } from './served-json.js';
import { nowRFC3339 } from './now.js';
import { readPage, watchCollection, type CollectionView, type CollectionWatchOptions, type ObjectPredicate } from './list-watch.js';
import { beforeGracefulDelete, checkDeletePreconditions, corruptObject, garbageCollectionFinalizers, markAsDeleting, notCorruptError } from './delete-options.js';
import type { UserInfo } from './auth/user.js';

/** What a validating phase knows of the write besides the object. */
export interface WriteContext {
  readonly dryRun: boolean;
  /** Who asked: the request's user; absent for the server's own writes, which no one asked for. */
  readonly user?: UserInfo;
}

/**
 * An admission plug-in (upstream admission chain). `admitCreate` runs before defaults and validation
 * and may change the object (mutating admission: namespace lifecycle, default tolerations);
 * `validateCreate` and `validateUpdate` run after validation, just before the write, and may only
 * refuse it or record what they admitted (validating admission: RBAC escalation, resource quota).
 * `dryRun` writes must not record anything.
 */
export interface Admission {
  admitCreate?(store: ResourceStore, namespace: string, obj: ApiObject): Promise<void>;
  /** Mutating admission of an update of the object itself (not of a subresource), before defaults and validation. */
  admitUpdate?(store: ResourceStore, namespace: string, obj: ApiObject, old: ApiObject): Promise<void>;
  validateCreate?(store: ResourceStore, namespace: string, obj: ApiObject, ctx: WriteContext): Promise<void>;
  /** Validating admission of an update of the object itself (not of a subresource): `obj` is what would be stored. */
  validateUpdate?(store: ResourceStore, namespace: string, obj: ApiObject, old: ApiObject, ctx: WriteContext): Promise<void>;
}

/** Plug-ins run in order, each phase in turn, as upstream's admission chain. */
export function admissionChain(plugins: readonly Admission[]): Admission {
  return {
    async admitCreate(store, namespace, obj) {
      for (const p of plugins) await p.admitCreate?.(store, namespace, obj);
    },
    async admitUpdate(store, namespace, obj, old) {
      for (const p of plugins) await p.admitUpdate?.(store, namespace, obj, old);
    },
    async validateCreate(store, namespace, obj, ctx) {
      for (const p of plugins) await p.validateCreate?.(store, namespace, obj, ctx);
    },
    async validateUpdate(store, namespace, obj, old, ctx) {
      for (const p of plugins) await p.validateUpdate?.(store, namespace, obj, old, ctx);
    },
  };
}

export interface StoreOptions {
  readonly storage: Storage;
  readonly strategy: ResourceStrategy;
  readonly admission?: Admission;
  /** The server's feature gates; 1.37 defaults when absent. */
  readonly gates?: FeatureGates;
}

export interface ListOptions {
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  /** Only the objects it selects (label, field and shard selectors: selectors.ts). */
  readonly predicate?: ObjectPredicate;
  /** Page size (list-watch.ts); with more left the result carries `nextKey`. */
  readonly limit?: number;
  /** Continues a paged list at a snapshot revision (0: the current one) from a key relative to the collection. */
  readonly continueFrom?: { readonly revision: number; readonly startKey: string };
}

export interface ListResult {
  readonly items: ApiObject[];
  readonly resourceVersion: string;
  /** Keys remain: where the next page starts, relative to the collection prefix. */
  readonly nextKey?: string;
  /** Objects after this page (only when no selector filters). */
  readonly remainingItemCount?: number;
}

export interface DeleteOptions {
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  /** dryRun=All: everything up to the storage write, which is skipped (dry-run.ts). */
  readonly dryRun?: boolean;
  /** Validated (see delete-options.ts); no kind here deletes gracefully, so it only passes through. */
  readonly gracePeriodSeconds?: number;
  readonly orphanDependents?: boolean;
  readonly propagationPolicy?: string;
}

export interface WriteResult {
  readonly object: ApiObject;
  /** Unknown fields that were dropped (for Warning headers). */
  readonly unknownFields: readonly string[];
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  readonly type: WatchEventType;
  readonly object: ApiObject | Status;
}

export interface WatchSink {
  event(ev: WatchEvent): void;
  /** No more events will come (storage closed, or an ERROR event was the last one). */
  close(): void;
}

export interface WatchOptions extends Omit<CollectionWatchOptions, 'onlyKey'> {
  readonly resourceVersion?: string;
  /** Only this object (the `/watch/.../<name>` form). */
  readonly name?: string;
}

// Upstream retries a generated name this many times before reporting AlreadyExists.
const GENERATE_NAME_ATTEMPTS = 8;
const GENERATED_SUFFIX_LENGTH = 5;
const MAX_GENERATED_NAME_LENGTH = 63 - GENERATED_SUFFIX_LENGTH;
// Upstream's utilrand alphabet: no vowels (no accidental words) and no easily confused digits.
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const MAX_UPDATE_ATTEMPTS = 16;

export function generateName(base: string): string {
  let out = base.length > MAX_GENERATED_NAME_LENGTH ? base.slice(0, MAX_GENERATED_NAME_LENGTH) : base;
  for (let i = 0; i < GENERATED_SUFFIX_LENGTH; i++) out += NAME_ALPHABET[Math.floor(Math.random() * NAME_ALPHABET.length)];
  return out;
}

/** RFC 3339 in UTC with whole seconds, as metav1.Time serializes. */
export { nowRFC3339 } from './now.js';

/** Parses a resourceVersion the way upstream's APIObjectVersioner does ("" and "0" mean 0). */
export function parseResourceVersion(rv: string | undefined): number {
  if (rv === undefined || rv === '' || rv === '0') return 0;
  if (/^\d+$/.test(rv)) {
    const n = Number(rv);
    if (Number.isSafeInteger(n)) return n;
    throw rvError(rv, `strconv.ParseUint: parsing ${JSON.stringify(rv)}: value out of range`);
  }
  throw rvError(rv, `strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`);
}

function rvError(rv: string, detail: string): RvParseError {
  return new RvParseError(fieldErrors.invalid('resourceVersion', rv, detail));
}

class RvParseError extends Error {
  constructor(readonly fieldError: FieldError) {
    super(fieldError.detail);
  }
}

export class ResourceStore {
  readonly strategy: ResolvedStrategy;
  private readonly storage: Storage;
  private readonly admission: Admission | undefined;
  private readonly prefix: string;
  private readonly properties: Properties;
  readonly gates: FeatureGates;
  /**
   * Upstream's EnableGarbageCollection (kube-apiserver --enable-garbage-collector, default true): a
   * delete adds the `orphan` / `foregroundDeletion` finalizers the options ask for, for a garbage
   * collector (a controller manager's, an API client) to act on. Off: deletes ignore propagation.
   */
  garbageCollection = true;
  private readonly servedJson = new ServedJsonCache();
  private writing: { readonly key: string; readonly text: string; readonly object: ApiObject } | undefined;

  constructor(opts: StoreOptions) {
    this.strategy = resolveStrategy(opts.strategy);
    this.gates = opts.gates ?? new FeatureGates();
    this.storage = opts.storage;
    this.admission = opts.admission;
    const s = this.strategy;
    this.prefix = `/registry/${s.group || 'core'}/${s.resource}/`;
    this.properties = { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: objectMetaSchema, ...s.schema };
  }

  /** Storage prefix of the collection: everything, or one namespace. */
  keyPrefix(namespace?: string): string {
    return this.strategy.namespaced && namespace ? `${this.prefix}${namespace}/` : this.prefix;
  }

  private key(namespace: string, name: string): string {
    return this.strategy.namespaced ? `${this.prefix}${namespace}/${name}` : `${this.prefix}${name}`;
  }

  /**
   * `dryRun`: everything but the storage write; the would-be object comes back without resourceVersion.
   * `user`: who asks (for validating admission); the server's own writes have none.
   */
  async create(namespace: string, body: Record<string, unknown>, opts: { dryRun?: boolean; owner?: FieldOwner; user?: UserInfo } = {}): Promise<WriteResult> {
    const s = this.strategy;
    const { obj, unknownFields } = this.normalizeBody(body);
    const meta = obj.metadata;
    if (s.namespaced) {
      if (meta.namespace && meta.namespace !== namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      meta.namespace = namespace;
    }
    await this.admission?.admitCreate?.(this, namespace, obj);
    s.dropDisabledFields?.(obj, undefined, this.gates);
    s.defaults?.(obj, this.gates);

    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.resourceVersion;
    delete meta.selfLink;
    if (s.prepareForCreate) s.prepareForCreate(obj);
    else if (s.hasStatus) delete obj['status'];
    meta.uid = randomUUID();
    meta.creationTimestamp = nowRFC3339();
    meta.generation = 1;
    const generated = !meta.name && !!meta.generateName;
    if (generated) meta.name = generateName(meta.generateName!);
    s.canonicalize?.(obj);
    recordWrite(s, undefined, obj, opts.owner);

    const errs = this.validate(obj);
    if (errs.length) throw invalid(s.groupKind, meta.name ?? '', errs);
    await this.admission?.validateCreate?.(this, namespace, obj, { dryRun: !!opts.dryRun, user: opts.user });

    for (let attempt = 1; ; attempt++) {
      try {
        if (opts.dryRun) return { object: await this.wouldCreate(this.key(namespace, meta.name!), obj), unknownFields };
        const stored = this.encodeObject(obj);
        const key = this.key(namespace, meta.name!);
        const kv = await this.whileWriting(key, stored, () => this.storage.create(key, stored.text));
        return { object: served(stored.ordered, kv), unknownFields };
      } catch (err) {
        if (!isStorageError(err, 'KeyExists')) throw err;
        if (!generated || attempt >= GENERATE_NAME_ATTEMPTS) throw alreadyExists(s.groupResource, meta.name!);
        meta.name = generateName(meta.generateName!);
        s.canonicalize?.(obj);
      }
    }
  }

  /**
   * The body of a create of a kind that is never stored (`notStored`), shaped by the schema and
   * checked by the strategy's defaults and validation only: such objects have no name, so the
   * object metadata rules do not apply.
   */
  unstoredObject(body: Record<string, unknown>): ApiObject {
    const s = this.strategy;
    const { obj } = this.normalizeBody(body);
    s.defaults?.(obj, this.gates);
    const errs = s.validate(obj);
    if (errs.length) throw invalid(s.groupKind, '', errs);
    return obj;
  }

  async get(namespace: string, name: string): Promise<ApiObject> {
    const kv = await this.storage.get(this.key(namespace, name));
    if (!kv) throw notFound(this.strategy.groupResource, name);
    return this.decode(kv);
  }

  /** `get`, as compact JSON text: what a plain JSON GET answers, without re-encoding an unchanged object. */
  async getJson(namespace: string, name: string): Promise<string> {
    const kv = await this.storage.get(this.key(namespace, name));
    if (!kv) throw notFound(this.strategy.groupResource, name);
    return this.servedJson.textOf(kv, (v) => JSON.stringify(this.decode(v)));
  }

  /**
   * PUT. With metadata.resourceVersion the write is conditional on it (409 otherwise); without it
   * (when the strategy allows) it overwrites whatever is stored. `status` and `finalize` select
   * those subresources (`finalize`: strategies with finalizeSubresource).
   */
  async update(
    namespace: string,
    name: string,
    body: Record<string, unknown>,
    opts: { subresource?: 'status' | 'finalize'; dryRun?: boolean; owner?: FieldOwner; user?: UserInfo } = {},
  ): Promise<WriteResult & { created: boolean }> {
    const s = this.strategy;
    const { obj, unknownFields } = this.normalizeBody(body);
    const meta = obj.metadata;
    if ((meta.name ?? '') !== name) {
      throw badRequest(`the name of the object (${meta.name ?? ''}) does not match the name on the URL (${name})`);
    }
    if (s.namespaced) {
      if (meta.namespace && meta.namespace !== namespace) {
        throw badRequest(`the namespace of the object (${meta.namespace}) does not match the namespace on the request (${namespace})`);
      }
      meta.namespace = namespace;
    }
    let requestedRV: number;
    try {
      requestedRV = parseResourceVersion(meta.resourceVersion);
    } catch (err) {
      if (err instanceof RvParseError) throw invalid({ group: s.group, kind: s.resource }, name, [err.fieldError]);
      throw err;
    }
    if (requestedRV === 0 && !s.allowUnconditionalUpdate) {
      throw invalid({ group: s.group, kind: s.resource }, name, [
        fieldErrors.invalid('metadata.resourceVersion', meta.resourceVersion ?? '', 'must be specified for an update'),
      ]);
    }
    const key = this.key(namespace, name);

    for (let attempt = 1; ; attempt++) {
      const current = await this.storage.get(key);
      if (!current) {
        if (!s.allowCreateOnUpdate || opts.subresource || requestedRV !== 0) throw notFound(s.groupResource, name);
        const created = await this.create(namespace, body, { dryRun: opts.dryRun, owner: opts.owner, user: opts.user });
        return { ...created, created: true };
      }
      if (requestedRV !== 0 && requestedRV !== current.modRevision) throw conflict(s.groupResource, name);
      const old = this.decode(current);
      if (!opts.subresource) await this.admission?.admitUpdate?.(this, namespace, obj, old);
      // Gated fields go before defaulting, and stay when the stored object already uses them.
      s.dropDisabledFields?.(obj, old, this.gates);
      s.defaults?.(obj, this.gates);
      const statusOnly = opts.subresource === 'status';
      const next = statusOnly ? this.statusUpdate(obj, old) : obj;
      this.prepareUpdate(next, old, statusOnly, opts.subresource === 'finalize');
      // managedFields: kept across writes, this write recorded for its manager (managed-fields.ts).
      recordWrite(s, old, next, opts.owner, opts.subresource);

      const errs = [...this.validate(next), ...validateObjectMetaUpdate(next.metadata, old.metadata)];
      if (s.validateUpdate) errs.push(...s.validateUpdate(next, old));
      if (errs.length) throw invalid(s.groupKind, name, errs);
      if (!opts.subresource) await this.admission?.validateUpdate?.(this, namespace, next, old, { dryRun: !!opts.dryRun, user: opts.user });

      if (s.specFields.some((f) => !deepEqual(next[f], old[f]))) next.metadata.generation = (old.metadata.generation ?? 0) + 1;
      // Nothing changed: like upstream, skip the write so neither resourceVersion nor watchers see one.
      next.metadata.resourceVersion = old.metadata.resourceVersion;
      if (deepEqual(next, old)) return { object: old, unknownFields, created: false };

      try {
        if (opts.dryRun) return { object: this.wouldUpdate(next, old), unknownFields, created: false };
        if (this.deletesOnWrite(old, next)) {
          // The last finalizer is gone: the object goes away instead of being written.
          const kv = await this.storage.delete(key, current.modRevision);
          return { object: this.decode(kv), unknownFields, created: false };
        }
        const stored = this.encodeObject(next);
        const kv = await this.whileWriting(key, stored, () => this.storage.update(key, stored.text, current.modRevision));
        return { object: served(stored.ordered, kv), unknownFields, created: false };
      } catch (err) {
        if (!isStorageError(err, 'Conflict') && !isStorageError(err, 'KeyNotFound')) throw err;
        if (requestedRV !== 0) throw conflict(s.groupResource, name);
        if (attempt >= MAX_UPDATE_ATTEMPTS) throw conflict(s.groupResource, name);
      }
    }
  }

  /**
   * DELETE. An object with finalizers is only marked (deletionTimestamp) and returned with
   * `deleted: false`; it goes away once an update empties its finalizers.
   */
  async delete(namespace: string, name: string, opts: DeleteOptions = {}): Promise<{ object: ApiObject; deleted: boolean }> {
    const s = this.strategy;
    const key = this.key(namespace, name);
    for (let attempt = 1; ; attempt++) {
      const current = await this.storage.get(key);
      if (!current) throw notFound(s.groupResource, name);
      const old = this.decode(current);
      checkDeletePreconditions(old, opts.preconditions, s);
      const refused = s.checkDelete?.(old);
      if (refused) throw refused;
      try {
        const marked = this.decode(current);
        // Kinds deleted gracefully (pods): marked first, finished by whoever runs them (delete-options.ts).
        const graceful = beforeGracefulDelete(marked, s, opts.gracePeriodSeconds);
        if (graceful.kind === 'pending') return { object: old, deleted: false };
        // Orphan / Foreground are finalizers the garbage collector acts on (delete-options.ts).
        const gcFinalizers = this.garbageCollection ? garbageCollectionFinalizers(marked.metadata.finalizers, opts) : undefined;
        if (gcFinalizers) {
          if (gcFinalizers.length) marked.metadata.finalizers = gcFinalizers;
          else delete marked.metadata.finalizers;
        }
        if (graceful.kind === 'graceful' && (graceful.grace > 0 || this.deletionPending(marked))) {
          if (opts.dryRun) return { object: marked, deleted: false };
          const kv = await this.storage.update(key, this.encode(marked), current.modRevision);
          return { object: this.decode(kv), deleted: false };
        }
        if (graceful.kind === 'none' && this.deletionPending(marked)) {
          if (!markAsDeleting(marked, old, nowRFC3339(), s.prepareForDeletion)) return { object: old, deleted: false };
          if (opts.dryRun) return { object: marked, deleted: false };
          const kv = await this.storage.update(key, this.encode(marked), current.modRevision);
          return { object: this.decode(kv), deleted: false };
        }
        if (opts.dryRun) return { object: old, deleted: true };
        const kv = await this.storage.delete(key, current.modRevision);
        return { object: this.decode(kv), deleted: true };
      } catch (err) {
        if (isStorageError(err, 'KeyNotFound')) throw notFound(s.groupResource, name);
        if (!isStorageError(err, 'Conflict')) throw err;
        if (attempt >= MAX_UPDATE_ATTEMPTS) throw conflict(s.groupResource, name);
      }
    }
  }

  /**
   * DELETE with ignoreStoreReadErrorWithClusterBreakingPotential (upstream's corrupt-object deleter):
   * removes an entry that cannot be decoded, skipping finalizers and preconditions. A readable or
   * absent object is refused with 422: the option is only for corrupt ones.
   */
  async unsafeDelete(namespace: string, name: string): Promise<void> {
    const key = this.key(namespace, name);
    const current = await this.storage.get(key);
    if (!current || this.decodes(current)) throw notCorruptError(this.strategy, name);
    try {
      await this.storage.delete(key);
    } catch (err) {
      // Removed in the meantime: what was asked is done.
      if (!isStorageError(err, 'KeyNotFound')) throw err;
    }
  }

  private decodes(kv: KeyValue): boolean {
    try {
      this.decode(kv);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Read-modify-write for in-process controllers (upstream GuaranteedUpdate): no validation and no
   * strategy hooks, retried on concurrent writes. Completes a pending deletion when `mutate` removes
   * what held it back. Undefined when the object does not exist.
   */
  async guaranteedUpdate(namespace: string, name: string, mutate: (obj: ApiObject) => void): Promise<ApiObject | undefined> {
    const key = this.key(namespace, name);
    for (let attempt = 1; ; attempt++) {
      const current = await this.storage.get(key);
      if (!current) return undefined;
      const obj = this.decode(current);
      mutate(obj);
      try {
        if (this.deletesOnWrite(obj, obj)) return this.decode(await this.storage.delete(key, current.modRevision));
        return this.decode(await this.storage.update(key, this.encode(obj), current.modRevision));
      } catch (err) {
        if (!isStorageError(err, 'Conflict') && !isStorageError(err, 'KeyNotFound')) throw err;
        if (attempt >= MAX_UPDATE_ATTEMPTS) throw conflict(this.strategy.groupResource, name);
      }
    }
  }

  /** Deletes every object of the collection (in one namespace, when given) listed at one revision. */
  async deleteCollection(namespace: string | undefined, opts: ListOptions = {}, del: DeleteOptions = {}): Promise<ListResult> {
    const listed = await this.list(namespace, opts);
    const items: ApiObject[] = [];
    for (const item of listed.items) {
      try {
        const { object } = await this.delete(item.metadata.namespace ?? '', item.metadata.name!, {
          ...del,
          preconditions: { uid: item.metadata.uid },
        });
        items.push(object);
      } catch (err) {
        // Gone or replaced in the meantime: someone else deleted it, which is what was asked.
        if (err instanceof StatusError && (err.code === 404 || err.code === 409)) continue;
        throw err;
      }
    }
    return { items, resourceVersion: listed.resourceVersion };
  }

  async list(namespace: string | undefined, opts: ListOptions = {}): Promise<ListResult> {
    const revision = opts.continueFrom ? opts.continueFrom.revision : await this.listRevision(opts);
    try {
      return await readPage(this.collection(namespace), { revision, startKey: opts.continueFrom?.startKey, limit: opts.limit, predicate: opts.predicate });
    } catch (err) {
      if (isStorageError(err, 'Compacted')) throw expired('The resourceVersion for the provided list is too old.');
      throw this.revisionError(err);
    }
  }

  /**
   * Streams changes after `resourceVersion`; with none (or "0"), first the current objects as
   * ADDED, as upstream does. A resourceVersion older than the history yields one ERROR event
   * (410 Expired) rather than a failed request, again as upstream.
   */
  async watch(namespace: string | undefined, opts: WatchOptions, sink: WatchSink): Promise<WatchHandle> {
    const onlyKey = opts.name !== undefined ? this.key(namespace ?? '', opts.name) : undefined;
    let from: number;
    try {
      from = parseResourceVersion(opts.resourceVersion);
    } catch (err) {
      if (err instanceof RvParseError) throw invalid({ group: this.strategy.group, kind: this.strategy.resource }, '', [err.fieldError]);
      throw err;
    }
    try {
      // Selectors, initial events and bookmarks: list-watch.ts.
      return await watchCollection(this.collection(namespace), from, { ...opts, onlyKey }, sink);
    } catch (err) {
      throw this.revisionError(err);
    }
  }

  /** The collection (all namespaces, or one) as list-watch.ts reads it. */
  private collection(namespace: string | undefined): CollectionView {
    return {
      storage: this.storage,
      strategy: this.strategy,
      prefix: this.keyPrefix(namespace),
      decode: (kv) => this.decode(kv),
      decodeEvent: (kv) => this.written(kv) ?? this.decode(kv),
    };
  }

  /**
   * Starts a storage write of `stored`. A storage that tells its watchers inside the write (the
   * memory storage) has them read the object just encoded instead of parsing the value back, once
   * per watcher; a storage that tells them later has them decode as usual.
   */
  private whileWriting(key: string, stored: { ordered: ApiObject; text: string }, write: () => Promise<KeyValue>): Promise<KeyValue> {
    this.writing = { key, text: stored.text, object: stored.ordered };
    try {
      return write();
    } finally {
      this.writing = undefined;
    }
  }

  /** The object being written, if `kv` is its value: shared by every watcher (sinks must not change it). */
  private written(kv: KeyValue): ApiObject | undefined {
    const w = this.writing;
    if (!w || w.key !== kv.key || w.text !== kv.value) return undefined;
    w.object.metadata.resourceVersion = String(kv.modRevision);
    markShared(w.object);
    return w.object;
  }

  /** A dry-run create: the object as it would be stored (no resourceVersion: nothing was written). */
  private async wouldCreate(key: string, obj: ApiObject): Promise<ApiObject> {
    if (await this.storage.get(key)) throw new StorageError('KeyExists', `key exists: ${key}`, { key });
    return JSON.parse(this.encode(obj)) as ApiObject;
  }

  /** A dry-run update: the object as it would be stored, still at the stored resourceVersion. */
  private wouldUpdate(next: ApiObject, old: ApiObject): ApiObject {
    const out = JSON.parse(this.encode(next)) as ApiObject;
    out.metadata.resourceVersion = old.metadata.resourceVersion;
    return out;
  }

  /** A stored value as the API shows it: resourceVersion comes from storage, never from the bytes. */
  decode(kv: KeyValue): ApiObject {
    let obj: unknown;
    try {
      obj = JSON.parse(kv.value);
    } catch (err) {
      throw corruptObject(kv.key, (err as Error).message);
    }
    if (!isPlainObject(obj) || !isPlainObject(obj['metadata'])) throw corruptObject(kv.key, 'not an object');
    (obj['metadata'] as Record<string, unknown>)['resourceVersion'] = String(kv.modRevision);
    return obj as ApiObject;
  }

  private encode(obj: ApiObject): string {
    return this.encodeObject(obj).text;
  }

  /** The value to store, and the object it encodes (a copy of `obj`, fields in declaration order). */
  private encodeObject(obj: ApiObject): { ordered: ApiObject; text: string } {
    // Re-walk so server-set fields land in declaration order too, and drop resourceVersion: it is
    // the storage revision, not part of the value (as upstream's versioner does).
    const ordered = normalizeObject(obj, this.properties).value as ApiObject;
    delete ordered.metadata.resourceVersion;
    return { ordered, text: JSON.stringify(ordered) };
  }

  /** Turns a request body into a schema-shaped object, or fails with 422 listing every bad field. */
  private normalizeBody(body: Record<string, unknown>): { obj: ApiObject; unknownFields: string[] } {
    const s = this.strategy;
    const { value, errors, unknown } = normalizeObject(body, this.properties);
    const obj = value as ApiObject;
    if (!obj.metadata) obj.metadata = {};
    if (errors.length) {
      const name = typeof obj.metadata.name === 'string' ? obj.metadata.name : '';
      throw invalid(s.groupKind, name, errors);
    }
    obj.apiVersion = s.apiVersion;
    obj.kind = s.kind;
    return { obj, unknownFields: unknown };
  }

  private validate(obj: ApiObject): FieldError[] {
    const s = this.strategy;
    return [...validateObjectMeta(obj.metadata, s.namespaced, s.validateName ?? nameIsDNSSubdomain), ...s.validate(obj)];
  }

  /** Upstream rest.BeforeUpdate: server-owned metadata is carried over from the stored object. */
  private prepareUpdate(next: ApiObject, old: ApiObject, statusOnly: boolean, finalize = false): void {
    const s = this.strategy;
    const meta = next.metadata;
    const o = old.metadata;
    meta.generation = o.generation;
    if (!meta.uid) meta.uid = o.uid;
    meta.creationTimestamp = o.creationTimestamp;
    if (o.deletionTimestamp) meta.deletionTimestamp = o.deletionTimestamp;
    else delete meta.deletionTimestamp;
    if (o.deletionGracePeriodSeconds !== undefined && meta.deletionGracePeriodSeconds === undefined) {
      meta.deletionGracePeriodSeconds = o.deletionGracePeriodSeconds;
    }
    if (!meta.resourceVersion) meta.resourceVersion = o.resourceVersion;
    delete meta.selfLink;
    if (statusOnly) return;
    if (s.hasStatus) {
      // Only the status endpoint may change status.
      if (old['status'] === undefined) delete next['status'];
      else next['status'] = old['status'];
    }
    // Upstream's finalize strategy keeps only status: what prepareForUpdate protects may change.
    if (!finalize) s.prepareForUpdate?.(next, old);
    s.canonicalize?.(next);
  }

  /** PUT .../status: everything but status comes from the stored object. */
  private statusUpdate(body: ApiObject, old: ApiObject): ApiObject {
    const next: ApiObject = { ...old, metadata: { ...old.metadata, resourceVersion: body.metadata.resourceVersion } };
    if (body['status'] === undefined) delete next['status'];
    else next['status'] = body['status'];
    return next;
  }

  /**
   * A write that completes a deletion (upstream shouldDeleteDuringUpdate): the object was marked
   * with no grace left (0) and nothing holds it any more. A pod still in its grace period stays
   * however it is written: the agent that runs it finishes its deletion.
   */
  private deletesOnWrite(old: ApiObject, next: ApiObject): boolean {
    return !!old.metadata.deletionTimestamp && (old.metadata.deletionGracePeriodSeconds ?? 0) <= 0 && !this.deletionPending(next);
  }

  private deletionPending(obj: ApiObject): boolean {
    return (obj.metadata.finalizers?.length ?? 0) > 0 || (this.strategy.deletionBlocked?.(obj) ?? false);
  }

  private async listRevision(opts: ListOptions): Promise<number> {
    let rv: number;
    try {
      rv = parseResourceVersion(opts.resourceVersion);
    } catch (err) {
      if (err instanceof RvParseError) throw invalid({ group: this.strategy.group, kind: this.strategy.resource }, '', [err.fieldError]);
      throw err;
    }
    if (rv === 0) return 0;
    // Legacy paging: a resourceVersion with a limit and no match is served exactly (upstream etcd3 store).
    if (opts.resourceVersionMatch === 'Exact' || (!opts.resourceVersionMatch && (opts.limit ?? 0) > 0)) return rv;
    // NotOlderThan (and the legacy unset match): anything at least as new; current qualifies.
    const current = await this.storage.currentRevision();
    if (rv > current) throw tooLargeResourceVersion(rv, current);
    return 0;
  }

  private revisionError(err: unknown): unknown {
    if (isStorageError(err, 'FutureRevision')) return tooLargeResourceVersion(err.details.requested ?? 0, err.details.current ?? 0);
    return err;
  }
}

/**
 * What a write answers: the object just encoded for storage, at the revision storage gave it. The
 * same as decoding the stored value (the encoding is JSON of this very object), without parsing it.
 */
function served(ordered: ApiObject, kv: KeyValue): ApiObject {
  ordered.metadata.resourceVersion = String(kv.modRevision);
  return ordered;
}
