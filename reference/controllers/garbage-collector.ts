// The garbage collector (upstream kube-controller-manager's `garbage-collector-controller`), a client
// of the API for every served kind: it follows metadata.ownerReferences and carries out the three
// propagation policies whose finalizers the API server adds on delete.
// - Background: a dependent whose owners are all gone is deleted.
// - Foreground: an owner marked with the `foregroundDeletion` finalizer has its dependents deleted,
//   and keeps the finalizer until no dependent with blockOwnerDeletion=true is left.
// - Orphan: an owner marked with the `orphan` finalizer is removed from its dependents'
//   ownerReferences, then the finalizer is removed so the owner goes.
// Discovery gives every resource with the list, watch and delete verbs (subresources and kinds that
// are never stored have no list; events are left alone, as upstream's ignored resources), re-read
// every 30 s for kinds served later. One shared informer per resource feeds an index (owner uid ->
// dependents); a work queue of object keys decides on a fresh GET of the object and of its owners, as
// upstream double-checks its graph against the API. Deletes carry a uid precondition and the policy;
// finalizer and ownerReference edits are merge patches that carry the resourceVersion read (409 when
// the object changed: the key is retried on a fresh read), as upstream's.
import { isConflict, isNotFound } from '../client/api-client.js';
import { DiscoveryCache, collectionPathOf, type ServedResource } from '../client/discovery.js';
import { keyOf, splitKey, type KubeObject } from '../client/informer.js';
import { WorkQueue } from '../client/workqueue.js';
import type { Controller, ControllerContext, ControllerDefinition } from './controller.js';

export const GARBAGE_COLLECTOR_CONTROLLER = 'garbage-collector-controller';

export const FINALIZER_ORPHAN = 'orphan';
export const FINALIZER_FOREGROUND = 'foregroundDeletion';
type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

/** Upstream's --concurrent-gc-syncs. */
const WORKERS = 20;
/** Upstream's resource sync period: discovery is read again this often. */
const DISCOVERY_RESYNC_MS = 30_000;
/**
 * How long the first sync waits for the informers before the workers start anyway (upstream waits up
 * to its resync period; shorter here, so that a resource that cannot be listed, one holding a
 * corrupt object say, holds a controller manager's start back 2 s at most).
 */
const SYNC_TIMEOUT_MS = 2_000;
/** A dependent whose owner's kind discovery does not know is looked at again this much later. */
const UNRESOLVED_RECHECK_MS = 30_000;
/** Upstream's ignored resources: never watched, never collected. */
const IGNORED = new Set(['/events', 'events.orch.io/events']);

interface OwnerRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly blockOwnerDeletion: boolean;
}

/** Where an owner reference points: a live owner, nothing (gone or replaced), an owner in Foreground deletion, or a kind not served. */
type RefState = 'solid' | 'dangling' | 'waiting' | 'unresolved';

export const garbageCollectorController: ControllerDefinition = {
  name: GARBAGE_COLLECTOR_CONTROLLER,
  make: (ctx) => new GarbageCollector(ctx),
};

export class GarbageCollector implements Controller {
  readonly name = GARBAGE_COLLECTOR_CONTROLLER;
  private readonly queue: WorkQueue;
  private readonly discovery: DiscoveryCache;
  /** Collection path (all namespaces) -> the resource, for every resource watched. */
  private readonly monitored = new Map<string, ServedResource>();
  /** Owner uid -> keys of the objects that name it in ownerReferences. */
  private readonly dependents = new Map<string, Set<string>>();
  /** Dependent key -> the owner uids it names (to undo the index when it changes or goes). */
  private readonly ownersOf = new Map<string, string[]>();
  /** Uid -> key of objects being deleted with a garbage-collector finalizer (owners in Foreground/Orphan). */
  private readonly finalizing = new Map<string, string>();
  /** Uid -> key of every object the informers hold (upstream's graph nodes). */
  private readonly known = new Map<string, string>();
  private firstSync: Promise<void> | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;
  private inFlight = 0;
  private stopped = false;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = new WorkQueue({ name: 'garbage_collector_attempt_to_delete', metrics: ctx.queueMetrics });
    this.discovery = new DiscoveryCache(ctx.client, { maxAgeMs: DISCOVERY_RESYNC_MS });
  }

  run(): void {
    this.firstSync = this.resync(SYNC_TIMEOUT_MS).catch((err) => {
      if (!this.stopped) this.ctx.log('discovery failed; retrying with the next resync', err);
    });
    this.resyncTimer = setInterval(() => {
      this.resync().catch((err) => { if (!this.stopped) this.ctx.log('discovery failed', err); });
    }, DISCOVERY_RESYNC_MS);
    this.resyncTimer.unref();
    // As upstream, the workers start once the graph is built from the first lists.
    void this.firstSync.then(() => this.queue.run(WORKERS, (key) => this.work(key), (key, err) => {
      if (this.stopped || this.ctx.client.isClosed) return;
      // A write that lost a race is retried on a fresh read: nothing to report.
      if (!isConflict(err)) this.ctx.log(`processing ${key} failed`, err);
    }));
  }

  synced(): Promise<void> {
    return this.firstSync ?? Promise.resolve();
  }

  stop(): void {
    this.stopped = true;
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    this.queue.shutDown();
  }

  /** Resolves once nothing is queued or being worked on, twice in a row (for tests). */
  async idle(): Promise<void> {
    await this.synced();
    for (let quiet = 0; quiet < 2;) {
      await new Promise((r) => setTimeout(r, 25));
      quiet = this.queue.length === 0 && this.inFlight === 0 ? quiet + 1 : 0;
    }
  }

  /** Watches every collectable resource discovery names that is not watched yet. */
  private async resync(timeoutMs?: number): Promise<void> {
    const resources = (await this.discovery.refresh()).filter(collectable);
    const started: Promise<void>[] = [];
    for (const r of resources) {
      const path = collectionPathOf(r);
      if (this.stopped || this.monitored.has(path)) continue;
      this.monitored.set(path, r);
      const inf = this.ctx.informers.for(path);
      inf.addEventHandler({
        onAdd: (o) => this.observe(path, o, true),
        onUpdate: (old, o) => this.observe(path, o, refsChanged(old, o)),
        onDelete: (o) => this.gone(path, o),
      });
      started.push(inf.start());
    }
    if (timeoutMs === undefined) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((r) => { timer = setTimeout(() => r(false), timeoutMs); });
    // A resource that cannot be listed (a corrupt object, say) does not hold back the others.
    if (!(await Promise.race([Promise.all(started).then(() => true), late]))) this.ctx.log(`not every resource listed within ${timeoutMs / 1000}s; collecting with what is known`);
    clearTimeout(timer);
  }

  // ---- The index, from informer events

  /** Indexes one object; `fresh` queues it when it has owners (new, or its references changed). */
  private observe(path: string, obj: KubeObject, fresh: boolean): void {
    const key = itemKey(path, obj);
    const meta = obj.metadata;
    if (meta.uid) this.known.set(meta.uid, key);
    const refs = ownerRefs(obj);
    // Most objects concern neither ownership nor deletion.
    if (refs.length === 0 && !this.ownersOf.has(key) && !meta.deletionTimestamp) return;
    const before = this.ownersOf.get(key) ?? [];
    this.index(key, refs.map((r) => r.uid));
    const uid = meta.uid;
    if (uid) {
      if (meta.deletionTimestamp && hasGcFinalizer(obj)) {
        this.finalizing.set(uid, key);
        this.queue.add(key);
        // Foreground: the dependents are to be deleted now.
        if (finalizersOf(obj).includes(FINALIZER_FOREGROUND)) for (const dep of this.dependents.get(uid) ?? []) this.queue.add(dep);
      } else if (this.finalizing.get(uid) === key) {
        this.finalizing.delete(uid);
      }
    }
    // As upstream's graph builder: a dependent is looked at when one of its owners is not a known
    // object (absent, replaced, or of a kind not watched); owners that are known and go later bring
    // their dependents back themselves.
    if (refs.length && (fresh || before.length !== refs.length) && refs.some((r) => !this.knownOwner(r, meta.namespace ?? ''))) this.queue.add(key);
  }

  /** Whether `ref` names an object the informers hold: its uid, its name, and (if namespaced) the dependent's namespace. */
  private knownOwner(ref: OwnerRef, namespace: string): boolean {
    const key = this.known.get(ref.uid);
    if (!key) return false;
    const owner = splitKey(key.slice(key.indexOf('|') + 1));
    return owner.name === ref.name && (owner.namespace === '' || owner.namespace === namespace);
  }

  /** The object is gone: its dependents may now be dangling, and owners waiting on it may go. */
  private gone(path: string, obj: KubeObject): void {
    const key = itemKey(path, obj);
    const uid = obj.metadata.uid;
    if (uid) {
      if (this.known.get(uid) === key) this.known.delete(uid);
      for (const dep of this.dependents.get(uid) ?? []) this.queue.add(dep);
      if (this.finalizing.get(uid) === key) this.finalizing.delete(uid);
    }
    this.index(key, []);
  }

  /** Records which owners `key` names; an owner in Foreground deletion that lost a dependent is looked at again. */
  private index(key: string, ownerUids: string[]): void {
    for (const uid of this.ownersOf.get(key) ?? []) {
      const set = this.dependents.get(uid);
      set?.delete(key);
      if (set && set.size === 0) this.dependents.delete(uid);
      const waiting = ownerUids.includes(uid) ? undefined : this.finalizing.get(uid);
      if (waiting) this.queue.add(waiting);
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

  // ---- Decisions, on fresh reads

  private async work(key: string): Promise<number | void> {
    this.inFlight++;
    try {
      return await this.sync(key);
    } finally {
      this.inFlight--;
    }
  }

  /** One object: an owner finishing a Foreground or Orphan deletion, or a dependent to check. */
  private async sync(key: string): Promise<number | void> {
    const obj = await this.read(key);
    if (!obj) return;
    const meta = obj.metadata;
    if (meta.deletionTimestamp) {
      const finalizers = finalizersOf(obj);
      if (finalizers.includes(FINALIZER_ORPHAN)) return this.orphanDependents(key, obj);
      if (finalizers.includes(FINALIZER_FOREGROUND)) return this.deleteDependents(key, obj);
      // Being deleted for other reasons: upstream leaves it alone.
      return;
    }
    const refs = ownerRefs(obj);
    if (refs.length === 0) return;
    const states = await Promise.all(refs.map((r) => this.ownerState(r, meta.namespace ?? '')));
    // A kind discovery does not know cannot be judged absent: the owner counts as live, and the
    // dependent is looked at again later (upstream retries until the kind resolves).
    const recheck = states.includes('unresolved') ? UNRESOLVED_RECHECK_MS : undefined;
    const solid = refs.filter((_, i) => states[i] === 'solid' || states[i] === 'unresolved');
    const gone = refs.filter((_, i) => states[i] === 'dangling' || states[i] === 'waiting');
    if (solid.length) {
      // A live owner keeps it; references to owners that are gone (or waiting on their dependents)
      // are removed so that those owners are not held.
      if (gone.length) await this.removeRefs(key, obj, new Set(gone.map((r) => r.uid)));
      return recheck;
    }
    let policy: PropagationPolicy;
    const finalizers = finalizersOf(obj);
    if (states.includes('waiting') && this.dependents.has(meta.uid ?? '')) {
      // An owner waits on it, and it has dependents of its own: those go first.
      policy = 'Foreground';
    } else if (finalizers.includes(FINALIZER_ORPHAN)) {
      policy = 'Orphan';
    } else if (finalizers.includes(FINALIZER_FOREGROUND)) {
      policy = 'Foreground';
    } else {
      policy = 'Background';
    }
    await this.deleteObject(key, obj, policy);
  }

  private async orphanDependents(key: string, owner: KubeObject): Promise<void> {
    const uid = owner.metadata.uid!;
    for (const depKey of [...(this.dependents.get(uid) ?? [])]) {
      const dep = await this.read(depKey);
      if (!dep || !ownerRefs(dep).some((r) => r.uid === uid)) continue;
      await this.removeRefs(depKey, dep, new Set([uid]));
    }
    await this.removeFinalizer(key, owner, FINALIZER_ORPHAN);
  }

  private async deleteDependents(key: string, owner: KubeObject): Promise<void> {
    const uid = owner.metadata.uid!;
    let blocking = 0;
    for (const depKey of [...(this.dependents.get(uid) ?? [])]) {
      const dep = await this.read(depKey);
      if (!dep) continue;
      const ref = ownerRefs(dep).find((r) => r.uid === uid);
      if (!ref) continue;
      if (ref.blockOwnerDeletion) blocking++;
      // Dependents not yet on their way out are looked at (and deleted) in their own turn.
      if (!dep.metadata.deletionTimestamp) this.queue.add(depKey);
    }
    if (blocking === 0) await this.removeFinalizer(key, owner, FINALIZER_FOREGROUND);
  }

  private async ownerState(ref: OwnerRef, namespace: string): Promise<RefState> {
    const slash = ref.apiVersion.indexOf('/');
    const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
    const res = await this.discovery.lookupKind(group, ref.kind);
    if (!res) return 'unresolved';
    // A namespaced owner lives in the dependent's namespace; a cluster-scoped dependent cannot have one.
    if (res.namespaced && !namespace) return 'dangling';
    let owner: KubeObject;
    try {
      owner = await this.ctx.client.get(itemPath(res, namespace, ref.name));
    } catch (err) {
      if (isNotFound(err)) return 'dangling';
      throw err;
    }
    if (owner.metadata.uid !== ref.uid) return 'dangling';
    if (owner.metadata.deletionTimestamp && finalizersOf(owner).includes(FINALIZER_FOREGROUND)) return 'waiting';
    return 'solid';
  }

  // ---- Writes

  private async deleteObject(key: string, obj: KubeObject, policy: PropagationPolicy): Promise<void> {
    try {
      await this.ctx.client.delete(this.pathOf(key)!, { preconditions: { uid: obj.metadata.uid }, propagationPolicy: policy });
    } catch (err) {
      // Gone already, or replaced by a new object of the same name (which is not this dependent).
      if (isNotFound(err) || isConflict(err)) return;
      throw err;
    }
  }

  /** Drops the references to `uids`, guarded by the resourceVersion read (upstream's deleteOwnerRefJSONMergePatch). */
  private async removeRefs(key: string, obj: KubeObject, uids: ReadonlySet<string>): Promise<void> {
    const refs: Array<Record<string, unknown>> = Array.isArray(obj.metadata.ownerReferences) ? obj.metadata.ownerReferences : [];
    const rest = refs.filter((r) => !uids.has(String(r?.['uid'] ?? '')));
    await this.patchMeta(key, { resourceVersion: obj.metadata.resourceVersion, ownerReferences: rest.length ? rest : null });
  }

  /** Removes one finalizer, guarded by the resourceVersion read (upstream's removeFinalizer). */
  private async removeFinalizer(key: string, obj: KubeObject, finalizer: string): Promise<void> {
    const finalizers = finalizersOf(obj);
    if (!finalizers.includes(finalizer)) return;
    const rest = finalizers.filter((f) => f !== finalizer);
    await this.patchMeta(key, { resourceVersion: obj.metadata.resourceVersion, finalizers: rest.length ? rest : null });
  }

  private async patchMeta(key: string, metadata: Record<string, unknown>): Promise<void> {
    try {
      await this.ctx.client.patch(this.pathOf(key)!, { metadata }, 'merge');
    } catch (err) {
      // Gone meanwhile: nothing left to edit.
      if (isNotFound(err)) return;
      throw err;
    }
  }

  /** A fresh read; undefined when the object is gone. */
  private async read(key: string): Promise<KubeObject | undefined> {
    const path = this.pathOf(key);
    if (!path) return undefined;
    try {
      return await this.ctx.client.get<KubeObject>(path);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private pathOf(key: string): string | undefined {
    const bar = key.indexOf('|');
    const res = this.monitored.get(key.slice(0, bar));
    if (!res) return undefined;
    const { namespace, name } = splitKey(key.slice(bar + 1));
    return itemPath(res, namespace, name);
  }
}

/** Collected and watched: listable, watchable and deletable, and not ignored. */
function collectable(r: ServedResource): boolean {
  return ['list', 'watch', 'delete'].every((v) => r.verbs.includes(v)) && !IGNORED.has(`${r.group}/${r.resource}`);
}

/** `<collection path>|<namespace>/<name>`: the queue's and the index's key of an object. */
const itemKey = (path: string, obj: KubeObject): string => `${path}|${keyOf(obj)}`;

function itemPath(r: ServedResource, namespace: string, name: string): string {
  return `${collectionPathOf(r, r.namespaced ? namespace : undefined)}/${encodeURIComponent(name)}`;
}

const finalizersOf = (o: KubeObject): string[] => (Array.isArray(o.metadata.finalizers) ? o.metadata.finalizers : []);

function hasGcFinalizer(o: KubeObject): boolean {
  const f = finalizersOf(o);
  return f.includes(FINALIZER_ORPHAN) || f.includes(FINALIZER_FOREGROUND);
}

function ownerRefs(obj: KubeObject): OwnerRef[] {
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

/** Whether an update changed what the collector cares about: owner references, deletion, finalizers. */
function refsChanged(old: KubeObject, obj: KubeObject): boolean {
  const pick = (o: KubeObject) => JSON.stringify([o.metadata.ownerReferences, o.metadata.deletionTimestamp, o.metadata.finalizers]);
  return pick(old) !== pick(obj);
}
