// The garbage collector (upstream kube-controller-manager's garbagecollector), for every served
// kind: it follows metadata.ownerReferences and carries out the three propagation policies.
// - Background: a dependent whose owners are all gone is deleted.
// - Foreground: an owner marked with the `foregroundDeletion` finalizer has its dependents deleted,
//   and keeps the finalizer until no dependent with blockOwnerDeletion=true is left.
// - Orphan: an owner marked with the `orphan` finalizer is removed from its dependents'
//   ownerReferences, then the finalizer is removed so the owner goes.
// It keeps an index (owner uid -> dependents) from one watch over all of storage, and works a queue
// of object keys; every decision is taken on a fresh read, as upstream double-checks its cache.
import type { Controller } from '../apiserver/apiserver.js';
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN, type PropagationPolicy } from '../apiserver/delete-options.js';
import { StatusError } from '../apiserver/errors.js';
import type { Registry } from '../apiserver/registry.js';
import type { ResourceStore } from '../apiserver/store.js';
import type { ApiObject } from '../apiserver/strategy.js';
import type { Storage, StorageEvent, WatchHandle } from '../storage/types.js';

/** Every key the apiserver stores lives under this prefix (store.ts). */
const REGISTRY_PREFIX = '/registry/';
const RETRY_MS = 200;

interface OwnerRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly blockOwnerDeletion: boolean;
}

type RefState = 'solid' | 'dangling' | 'waiting';

export class GarbageCollector implements Controller {
  private handle: WatchHandle | undefined;
  private stopped = false;
  /** Owner uid -> keys of the objects that name it in ownerReferences. */
  private readonly dependents = new Map<string, Set<string>>();
  /** Dependent key -> the owner uids it names (to undo the index when it changes or goes). */
  private readonly ownersOf = new Map<string, string[]>();
  /** Uid -> key of objects being deleted with a garbage-collector finalizer (owners in Foreground/Orphan). */
  private readonly finalizing = new Map<string, string>();
  private readonly queue = new Set<string>();
  private readonly retries = new Map<string, NodeJS.Timeout>();
  private draining: Promise<void> | undefined;
  private prefixes: Array<[string, ResourceStore]> = [];

  constructor(
    private readonly registry: Registry,
    private readonly storage: Storage,
    private readonly log: (message: string, err?: unknown) => void = () => {},
  ) {}

  async start(): Promise<void> {
    const seen = new Set<string>();
    for (const store of this.registry.stores) {
      const prefix = store.keyPrefix();
      if (seen.has(prefix)) continue;
      seen.add(prefix);
      this.prefixes.push([prefix, store]);
      // Only now may deletes add the orphan / foregroundDeletion finalizers: someone removes them.
      store.garbageCollection = true;
    }
    const listed = await this.storage.list(REGISTRY_PREFIX);
    for (const kv of listed.items) this.observe(kv.key, kv.value, true);
    this.handle = await this.storage.watch(REGISTRY_PREFIX, listed.revision, {
      onEvent: (ev) => this.onEvent(ev),
      onClose: () => {},
    });
  }

  stop(): void {
    this.stopped = true;
    this.handle?.stop();
    for (const [, store] of this.prefixes) store.garbageCollection = false;
    for (const timer of this.retries.values()) clearTimeout(timer);
    this.retries.clear();
    this.queue.clear();
  }

  /** Resolves once the queue is empty and nothing is being worked on (for tests). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private onEvent(ev: StorageEvent): void {
    if (ev.type !== 'DELETED') {
      this.observe(ev.key, ev.value!, ev.type === 'ADDED' || this.refsChanged(ev));
      return;
    }
    // The object is gone: its dependents may now be dangling, and owners waiting on it may go.
    const uid = this.dependents.size > 0 || this.finalizing.size > 0 ? uidOf(ev.prevValue) : undefined;
    if (uid) {
      for (const dep of this.dependents.get(uid) ?? []) this.enqueue(dep);
      if (this.finalizing.get(uid) === ev.key) this.finalizing.delete(uid);
    }
    this.index(ev.key, []);
  }

  /** Indexes one stored value; `fresh` queues it when it has owners (new, or its references changed). */
  private observe(key: string, value: string, fresh: boolean): void {
    // Most writes concern neither ownership nor deletion: skip decoding those.
    const relevant = value.includes('"ownerReferences"') || value.includes('"deletionTimestamp"') || this.ownersOf.has(key);
    if (!relevant) return;
    let obj: ApiObject;
    try {
      obj = JSON.parse(value) as ApiObject;
    } catch {
      return; // Undecodable (a corrupt entry): nothing to follow.
    }
    const meta = obj?.metadata;
    if (!meta || typeof meta !== 'object') return;
    const refs = ownerRefs(obj);
    const before = this.ownersOf.get(key) ?? [];
    this.index(key, refs.map((r) => r.uid));
    if (meta.uid) {
      if (meta.deletionTimestamp && hasGcFinalizer(obj)) {
        this.finalizing.set(meta.uid, key);
        this.enqueue(key);
        // Foreground: the dependents are to be deleted now.
        if (meta.finalizers?.includes(FINALIZER_FOREGROUND)) for (const dep of this.dependents.get(meta.uid) ?? []) this.enqueue(dep);
      } else if (this.finalizing.get(meta.uid) === key) {
        this.finalizing.delete(meta.uid);
      }
    }
    if (refs.length && (fresh || before.length !== refs.length)) this.enqueue(key);
  }

  /** Whether a MODIFIED event changed what the collector cares about of the object. */
  private refsChanged(ev: StorageEvent): boolean {
    const pick = (v: string | undefined): string => {
      if (!v || !v.includes('"ownerReferences"')) return '';
      try {
        const m = (JSON.parse(v) as ApiObject).metadata;
        return JSON.stringify([m.ownerReferences, m.deletionTimestamp, m.finalizers]);
      } catch {
        return '';
      }
    };
    return pick(ev.value) !== pick(ev.prevValue);
  }

  /** Records which owners `key` names; an owner in Foreground deletion that lost a dependent is looked at again. */
  private index(key: string, ownerUids: string[]): void {
    for (const uid of this.ownersOf.get(key) ?? []) {
      const set = this.dependents.get(uid);
      set?.delete(key);
      if (set && set.size === 0) this.dependents.delete(uid);
      const waiting = ownerUids.includes(uid) ? undefined : this.finalizing.get(uid);
      if (waiting) this.enqueue(waiting);
    }
    if (ownerUids.length === 0) {
      this.ownersOf.delete(key);
      return;
    }
    this.ownersOf.set(key, ownerUids);
    for (const uid of ownerUids) {
      let set = this.dependents.get(uid);
      if (!set) this.dependents.set(uid, (set = new Set()));
      set.add(key);
    }
  }

  private enqueue(key: string): void {
    if (this.stopped) return;
    this.queue.add(key);
    if (this.draining) return;
    // Off the caller's stack: the write that triggered this finishes (and answers) first.
    this.draining = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.drain())
      .finally(() => {
        this.draining = undefined;
        if (this.queue.size && !this.stopped) this.enqueue([...this.queue][0]!);
      });
  }

  private async drain(): Promise<void> {
    while (this.queue.size && !this.stopped) {
      const key = this.queue.values().next().value as string;
      this.queue.delete(key);
      try {
        await this.sync(key);
      } catch (err) {
        if (this.stopped) return;
        this.log(`garbage collector: processing ${key} failed`, err);
        this.retryLater(key);
      }
    }
  }

  private retryLater(key: string): void {
    if (this.stopped || this.retries.has(key)) return;
    const timer = setTimeout(() => {
      this.retries.delete(key);
      this.enqueue(key);
    }, RETRY_MS);
    timer.unref();
    this.retries.set(key, timer);
  }

  private storeFor(key: string): ResourceStore | undefined {
    return this.prefixes.find(([prefix]) => key.startsWith(prefix))?.[1];
  }

  /** One object: an owner finishing a Foreground or Orphan deletion, or a dependent to check. */
  private async sync(key: string): Promise<void> {
    const store = this.storeFor(key);
    if (!store) return;
    const obj = await this.read(key, store);
    if (!obj) return;
    const meta = obj.metadata;
    if (meta.deletionTimestamp) {
      if (meta.finalizers?.includes(FINALIZER_ORPHAN)) return this.orphanDependents(store, obj);
      if (meta.finalizers?.includes(FINALIZER_FOREGROUND)) return this.deleteDependents(store, obj);
      // Being deleted for other reasons: upstream leaves it alone.
      return;
    }
    const refs = ownerRefs(obj);
    if (refs.length === 0) return;
    const states = await Promise.all(refs.map((r) => this.ownerState(r, meta.namespace ?? '')));
    const solid = refs.filter((_, i) => states[i] === 'solid');
    const gone = refs.filter((_, i) => states[i] !== 'solid');
    if (solid.length) {
      // A live owner keeps it; references to owners that are gone (or waiting on their dependents)
      // are removed so that those owners are not held.
      if (gone.length === 0) return;
      const uids = new Set(gone.map((r) => r.uid));
      await store.guaranteedUpdate(meta.namespace ?? '', meta.name!, (o) => removeRefs(o, uids, meta.uid));
      return;
    }
    let policy: PropagationPolicy;
    if (states.includes('waiting') && this.dependents.has(meta.uid ?? '')) {
      // An owner waits on it, and it has dependents of its own: those go first.
      policy = 'Foreground';
    } else if (meta.finalizers?.includes(FINALIZER_ORPHAN)) {
      policy = 'Orphan';
    } else if (meta.finalizers?.includes(FINALIZER_FOREGROUND)) {
      policy = 'Foreground';
    } else {
      policy = 'Background';
    }
    await this.deleteObject(store, obj, policy);
  }

  private async orphanDependents(store: ResourceStore, owner: ApiObject): Promise<void> {
    const uid = owner.metadata.uid!;
    for (const depKey of [...(this.dependents.get(uid) ?? [])]) {
      const depStore = this.storeFor(depKey);
      const dep = depStore && (await this.read(depKey, depStore));
      if (!depStore || !dep) continue;
      await depStore.guaranteedUpdate(dep.metadata.namespace ?? '', dep.metadata.name!, (o) => removeRefs(o, new Set([uid]), dep.metadata.uid));
    }
    await this.removeFinalizer(store, owner, FINALIZER_ORPHAN);
  }

  private async deleteDependents(store: ResourceStore, owner: ApiObject): Promise<void> {
    const uid = owner.metadata.uid!;
    let blocking = 0;
    for (const depKey of [...(this.dependents.get(uid) ?? [])]) {
      const depStore = this.storeFor(depKey);
      const dep = depStore && (await this.read(depKey, depStore));
      if (!dep) continue;
      const ref = ownerRefs(dep).find((r) => r.uid === uid);
      if (!ref) continue;
      if (ref.blockOwnerDeletion) blocking++;
      // Dependents not yet on their way out are looked at (and deleted) in their own turn.
      if (!dep.metadata.deletionTimestamp) this.enqueue(depKey);
    }
    if (blocking === 0) await this.removeFinalizer(store, owner, FINALIZER_FOREGROUND);
  }

  /** Where an owner reference points: a live owner, nothing (gone or replaced), or an owner in Foreground deletion. */
  private async ownerState(ref: OwnerRef, namespace: string): Promise<RefState> {
    const slash = ref.apiVersion.indexOf('/');
    const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
    const store = this.registry.stores.find((s) => s.strategy.group === group && s.strategy.kind === ref.kind);
    // A kind this server does not serve cannot be judged absent: keep the dependent, as upstream
    // does while it cannot resolve the owner's kind.
    if (!store) return 'solid';
    // A namespaced owner lives in the dependent's namespace; a cluster-scoped dependent cannot have one.
    if (store.strategy.namespaced && !namespace) return 'dangling';
    let owner: ApiObject;
    try {
      owner = await store.get(store.strategy.namespaced ? namespace : '', ref.name);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return 'dangling';
      // Unreadable (corrupt) owner: it exists; do not act on its dependents.
      return 'solid';
    }
    if (owner.metadata.uid !== ref.uid) return 'dangling';
    if (owner.metadata.deletionTimestamp && owner.metadata.finalizers?.includes(FINALIZER_FOREGROUND)) return 'waiting';
    return 'solid';
  }

  private async deleteObject(store: ResourceStore, obj: ApiObject, policy: PropagationPolicy): Promise<void> {
    try {
      await store.delete(obj.metadata.namespace ?? '', obj.metadata.name!, { preconditions: { uid: obj.metadata.uid }, propagationPolicy: policy });
    } catch (err) {
      // Gone already, or replaced by a new object of the same name (which is not this dependent).
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }

  private async removeFinalizer(store: ResourceStore, obj: ApiObject, finalizer: string): Promise<void> {
    const uid = obj.metadata.uid;
    await store.guaranteedUpdate(obj.metadata.namespace ?? '', obj.metadata.name!, (o) => {
      if (o.metadata.uid !== uid || !o.metadata.finalizers) return;
      const rest = o.metadata.finalizers.filter((f) => f !== finalizer);
      if (rest.length) o.metadata.finalizers = rest;
      else delete o.metadata.finalizers;
    });
  }

  /** A fresh read; undefined when the object is gone or cannot be decoded. */
  private async read(key: string, store: ResourceStore): Promise<ApiObject | undefined> {
    const kv = await this.storage.get(key);
    if (!kv) return undefined;
    try {
      return store.decode(kv);
    } catch {
      return undefined;
    }
  }
}

function ownerRefs(obj: ApiObject): OwnerRef[] {
  const refs = obj.metadata?.ownerReferences;
  if (!Array.isArray(refs)) return [];
  const out: OwnerRef[] = [];
  for (const r of refs) {
    if (!r || typeof r !== 'object' || typeof r['uid'] !== 'string' || !r['uid']) continue;
    out.push({
      apiVersion: String(r['apiVersion'] ?? ''),
      kind: String(r['kind'] ?? ''),
      name: String(r['name'] ?? ''),
      uid: r['uid'],
      blockOwnerDeletion: r['blockOwnerDeletion'] === true,
    });
  }
  return out;
}

/** Drops the references to `uids` (only from the same object: a recreated name is left alone). */
function removeRefs(o: ApiObject, uids: ReadonlySet<string>, uid: string | undefined): void {
  if (o.metadata.uid !== uid || !o.metadata.ownerReferences) return;
  const rest = o.metadata.ownerReferences.filter((r) => !uids.has(String(r['uid'] ?? '')));
  if (rest.length) o.metadata.ownerReferences = rest;
  else delete o.metadata.ownerReferences;
}

function hasGcFinalizer(obj: ApiObject): boolean {
  const f = obj.metadata.finalizers;
  return Array.isArray(f) && (f.includes(FINALIZER_ORPHAN) || f.includes(FINALIZER_FOREGROUND));
}

function uidOf(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const uid = (JSON.parse(value) as ApiObject).metadata?.uid;
    return typeof uid === 'string' ? uid : undefined;
  } catch {
    return undefined;
  }
}
