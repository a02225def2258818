// The namespace controller (upstream kube-controller-manager's `namespace-controller`), a client of
// the API: a namespace marked for deletion (the API server sets deletionTimestamp and phase
// Terminating, and keeps it while spec.finalizers holds `kubernetes`) is emptied, then released.
// For each such namespace, on a fresh read:
//  1. phase Terminating (status), should the server not have set it;
//  2. every namespaced resource discovery names with the delete verb is deleted in it: a
//     deletecollection (propagationPolicy Background) where served, else each object listed;
//  3. what is left is listed and counted, by resource and by finalizer, and the namespace's deletion
//     conditions are written as upstream's (NamespaceDeletionDiscoveryFailure,
//     NamespaceDeletionGroupVersionParsingFailure, NamespaceDeletionContentFailure,
//     NamespaceContentRemaining, NamespaceFinalizersRemaining: False with the "ok" reasons, or True
//     with what failed or remains), when they change;
//  4. once nothing is left, `kubernetes` is removed from spec.finalizers through
//     PUT namespaces/{name}/finalize (upstream), or a PUT of the namespace on a server without that
//     subresource, guarded by the resourceVersion read; the server then removes the namespace.
// While content remains (finalizers, pods terminating gracefully), the deletes of objects in a
// terminating namespace, seen through shared informers, bring the namespace back at once; a slow
// re-check covers resources that cannot be watched.
import { isConflict, isNotFound, type ApiError } from '../client/api-client.js';
import { DiscoveryCache, collectionPathOf, type ServedResource } from '../client/discovery.js';
import type { Informer, KubeObject } from '../client/informer.js';
import { WorkQueue } from '../client/workqueue.js';
import { isDeepStrictEqual } from 'node:util';
import type { Controller, ControllerContext, ControllerDefinition } from './controller.js';

export const NAMESPACE_CONTROLLER = 'namespace-controller';
/** The spec finalizer this controller owns (upstream's finalizer token). */
export const FINALIZER_KUBERNETES = 'kubernetes';

const NAMESPACES = '/api/v1/namespaces';
/** Upstream's --concurrent-namespace-syncs. */
const WORKERS = 10;
/** While content remains: looked at again this much later if no delete event came first. */
const RECHECK_MS = 5_000;
const DISCOVERY_RESYNC_MS = 30_000;
const SYNC_TIMEOUT_MS = 2_000;
/** Never watched for the re-check (they carry no finalizers and go with the deletecollection). */
const UNWATCHED = new Set(['/events', 'events.orch.io/events']);

/** Upstream's deletion condition types, in its order, with the "ok" reason and message of each. */
const CONDITIONS: ReadonlyArray<{ type: string; okReason: string; okMessage: string }> = [
  { type: 'NamespaceDeletionDiscoveryFailure', okReason: 'ResourcesDiscovered', okMessage: 'All resources successfully discovered' },
  { type: 'NamespaceDeletionGroupVersionParsingFailure', okReason: 'ParsedGroupVersions', okMessage: 'All legacy kube types successfully parsed' },
  { type: 'NamespaceDeletionContentFailure', okReason: 'ContentDeleted', okMessage: 'All content successfully deleted, may be waiting on finalization' },
  { type: 'NamespaceContentRemaining', okReason: 'ContentRemoved', okMessage: 'All content successfully removed' },
  { type: 'NamespaceFinalizersRemaining', okReason: 'ContentHasNoFinalizers', okMessage: 'All content-preserving finalizers finished' },
];

interface Condition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: string; conditions?: Condition[] };
}

interface ContentReport {
  /** `<resource>.<group>` -> objects left (upstream's key, `pods.` for the core group). */
  readonly remaining: Map<string, number>;
  /** Finalizer -> objects left that carry it. */
  readonly byFinalizer: Map<string, number>;
  readonly errors: string[];
}

export const namespaceController: ControllerDefinition = {
  name: NAMESPACE_CONTROLLER,
  make: (ctx) => new NamespaceController(ctx),
};

const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
const specFinalizers = (ns: Namespace): string[] => (Array.isArray(ns.spec?.finalizers) ? ns.spec.finalizers : []);
const nsPath = (name: string) => `${NAMESPACES}/${encodeURIComponent(name)}`;

class NamespaceController implements Controller {
  readonly name = NAMESPACE_CONTROLLER;
  private readonly queue: WorkQueue;
  private readonly namespaces: Informer<Namespace>;
  private readonly discovery: DiscoveryCache;
  private readonly watched = new Set<string>();
  private firstSync: Promise<void> | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = new WorkQueue({ name: 'namespace', metrics: ctx.queueMetrics });
    this.discovery = new DiscoveryCache(ctx.client, { maxAgeMs: DISCOVERY_RESYNC_MS });
    this.namespaces = ctx.informers.for<Namespace>(NAMESPACES);
    this.namespaces.addEventHandler({
      onAdd: (ns) => this.consider(ns),
      onUpdate: (_, ns) => this.consider(ns),
    });
  }

  run(): void {
    this.firstSync = this.watchContent(SYNC_TIMEOUT_MS).catch((err) => { if (!this.stopped) this.ctx.log('discovery failed', err); });
    this.resyncTimer = setInterval(() => {
      this.watchContent().catch((err) => { if (!this.stopped) this.ctx.log('discovery failed', err); });
    }, DISCOVERY_RESYNC_MS);
    this.resyncTimer.unref();
    void this.queue.run(WORKERS, (name) => this.sync(name), (name, err) => {
      if (this.stopped || this.ctx.client.isClosed || isConflict(err)) return;
      this.ctx.log(`deleting the content of namespace ${name} failed`, err);
    });
  }

  synced(): Promise<void> {
    return this.firstSync ?? Promise.resolve();
  }

  stop(): void {
    this.stopped = true;
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    this.queue.shutDown();
  }

  private consider(ns: Namespace): void {
    if (ns.metadata.deletionTimestamp) this.queue.add(ns.metadata.name);
  }

  /** Deletes of namespaced objects bring their namespace back while it terminates. */
  private async watchContent(timeoutMs?: number): Promise<void> {
    const resources = (await this.discovery.refresh()).filter((r) => r.namespaced && r.verbs.includes('list') && r.verbs.includes('watch') && !UNWATCHED.has(`${r.group}/${r.resource}`));
    const started: Promise<void>[] = [];
    for (const r of resources) {
      const path = collectionPathOf(r);
      if (this.stopped || this.watched.has(path)) continue;
      this.watched.add(path);
      const inf = this.ctx.informers.for(path);
      inf.addEventHandler({
        onDelete: (o) => {
          const ns = o.metadata.namespace;
          if (ns && this.namespaces.get('', ns)?.metadata.deletionTimestamp) this.queue.add(ns);
        },
      });
      started.push(inf.start());
    }
    if (timeoutMs === undefined) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(started), new Promise((r) => { timer = setTimeout(r, timeoutMs); })]);
    clearTimeout(timer);
  }

  private async sync(name: string): Promise<number | void> {
    const path = nsPath(name);
    let ns: Namespace;
    try {
      ns = await this.ctx.client.get<Namespace>(path);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (!ns.metadata.deletionTimestamp) return;
    if (ns.status?.phase !== 'Terminating') ns = await this.ctx.client.updateStatus<Namespace>(path, { ...ns, status: { ...ns.status, phase: 'Terminating' } });
    if (!specFinalizers(ns).includes(FINALIZER_KUBERNETES)) {
      // Finalized already: if nothing holds it, delete it (upstream does, for a namespace finalized
      // by another controller sharing the token).
      if (specFinalizers(ns).length === 0) {
        await this.ctx.client.delete(path, { preconditions: { uid: ns.metadata.uid } }).catch((err) => {
          if (!isNotFound(err) && !isConflict(err)) throw err;
        });
      }
      return;
    }
    const content = await this.deleteAllContent(name);
    ns = await this.writeConditions(path, ns, content);
    if (content.errors.length) throw new Error(`Failed to delete all resource types, ${content.errors.length} remaining: ${aggregate(content.errors)}`);
    if (content.remaining.size > 0) return RECHECK_MS;
    await this.finalize(path, ns);
  }

  /** Deletes every namespaced resource in `namespace`, then counts what is left. */
  private async deleteAllContent(namespace: string): Promise<ContentReport> {
    const report: ContentReport = { remaining: new Map(), byFinalizer: new Map(), errors: [] };
    const resources = (await this.discovery.all()).filter((r) => r.namespaced && r.verbs.includes('delete'));
    await Promise.all(resources.map(async (r) => {
      try {
        await this.deleteResource(r, namespace, report);
      } catch (err) {
        // A resource that went away meanwhile has nothing left to delete.
        if (!isNotFound(err)) report.errors.push((err as ApiError).message ?? String(err));
      }
    }));
    return report;
  }

  private async deleteResource(r: ServedResource, namespace: string, report: ContentReport): Promise<void> {
    const client = this.ctx.client;
    const col = collectionPathOf(r, namespace);
    if (r.verbs.includes('deletecollection')) {
      await client.delete(col, { propagationPolicy: 'Background' });
    } else if (r.verbs.includes('list')) {
      for (const o of (await client.list<KubeObject>(col)).items) {
        await client.delete(`${col}/${encodeURIComponent(o.metadata.name)}`, { propagationPolicy: 'Background' }).catch((err) => { if (!isNotFound(err)) throw err; });
      }
    }
    if (!r.verbs.includes('list')) return;
    const left = (await client.list<KubeObject>(col)).items;
    if (left.length) report.remaining.set(`${r.resource}.${r.group}`, left.length);
    for (const o of left) {
      for (const f of Array.isArray(o.metadata.finalizers) ? o.metadata.finalizers : []) report.byFinalizer.set(f, (report.byFinalizer.get(f) ?? 0) + 1);
    }
  }

  /** Upstream's namespaceConditionUpdater: the five conditions, written when they change. */
  private async writeConditions(path: string, ns: Namespace, content: ContentReport): Promise<Namespace> {
    const failing = new Map<string, Omit<Condition, 'type'>>();
    if (content.errors.length) {
      failing.set('NamespaceDeletionContentFailure', { status: 'True', reason: 'ContentDeletionFailed', message: `Failed to delete all resource types, ${content.errors.length} remaining: ${aggregate(content.errors)}` });
    }
    if (content.remaining.size) {
      const what = [...content.remaining].map(([gr, n]) => `${gr} has ${n} resource instances`).sort();
      failing.set('NamespaceContentRemaining', { status: 'True', reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${what.join(', ')}` });
    }
    if (content.byFinalizer.size) {
      const what = [...content.byFinalizer].map(([f, n]) => `${f} in ${n} resource instances`).sort();
      failing.set('NamespaceFinalizersRemaining', { status: 'True', reason: 'SomeFinalizersRemain', message: `Some content in the namespace has finalizers remaining: ${what.join(', ')}` });
    }
    const old = ns.status?.conditions ?? [];
    const next: Condition[] = CONDITIONS.map(({ type, okReason, okMessage }) => {
      const want = failing.get(type) ?? { status: 'False', reason: okReason, message: okMessage };
      const before = old.find((c) => c.type === type);
      if (!before) return { type, status: want.status, lastTransitionTime: now(), reason: want.reason, message: want.message };
      if (before.status === want.status && before.reason === want.reason && before.message === want.message) return before;
      return { type, status: want.status, lastTransitionTime: before.status !== want.status ? now() : before.lastTransitionTime, reason: want.reason, message: want.message };
    });
    if (isDeepStrictEqual(next, old)) return ns;
    try {
      return await this.ctx.client.updateStatus<Namespace>(path, { ...ns, status: { ...ns.status, conditions: next } });
    } catch (err) {
      // As upstream: reported, and the deletion goes on (the next pass writes them again).
      if (!isConflict(err) && !this.stopped && !this.ctx.client.isClosed) this.ctx.log(`could not update the status conditions of namespace ${ns.metadata.name}`, err);
      return ns;
    }
  }

  /** Removes `kubernetes` from spec.finalizers: PUT .../finalize, or a PUT of the namespace where the server has no such subresource. */
  private async finalize(path: string, ns: Namespace): Promise<void> {
    const body = { ...ns, spec: { ...ns.spec, finalizers: specFinalizers(ns).filter((f) => f !== FINALIZER_KUBERNETES) } };
    try {
      await this.ctx.client.update(`${path}/finalize`, body);
      return;
    } catch (err) {
      if (!isNotFound(err) && (err as ApiError).status !== 405) throw err;
    }
    try {
      await this.ctx.client.update(path, body);
    } catch (err) {
      // Gone meanwhile (another controller finished it).
      if (!isNotFound(err)) throw err;
    }
  }
}

/** utilerrors.NewAggregate(...).Error(): one message as is, several as `[a, b]`. */
function aggregate(messages: readonly string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}
