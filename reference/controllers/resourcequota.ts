// The resource quota controller (upstream pkg/controller/resourcequota, `resourcequota-controller`):
// for every ResourceQuota, status.hard = spec.hard and status.used = the usage of the objects its
// scopes and scope selector match (spec 000 §2.4), worked out by the evaluators of
// reference/quota/evaluator.ts over informer caches: pods, and any other served kind a quota counts
// (`count/<resource>[.<group>]`, legacy names), whose informers start when a quota first names it.
//
// As upstream, a quota is recounted when it is added or its spec changes (status writes are the
// controller's own or the admission's, and are not a reason), when an object it tracks is deleted or a
// pod turns terminal (replenishment), and on the full resync (--resource-quota-sync-period). Creates
// are charged by the quota admission at once, so they are no reason either. The status is written
// (guarded by the resourceVersion read) only when it would change.
import { isNotFound } from '../client/api-client.js';
import { DiscoveryCache, collectionPathOf } from '../client/discovery.js';
import { splitKey, keyOf, type Informer, type KubeObject } from '../client/informer.js';
import { WorkQueue } from '../client/workqueue.js';
import {
  evaluatorFor, listsEqual, mask, podCounts, resourcesNamedBy, toList, usageOf, addLists,
  type GroupResource, type QuotaLike, type ResourceList,
} from '../quota/evaluator.js';
import type { Controller, ControllerContext, ControllerDefinition } from './controller.js';

export const RESOURCE_QUOTA_CONTROLLER = 'resourcequota-controller';

const QUOTAS = '/api/v1/resourcequotas';
const PODS = '/api/v1/pods';
const BY_NAMESPACE = 'resourcequota-controller/namespace';
/** How long a sync waits for the first list of a kind a quota counts. */
const INFORMER_SYNC_TIMEOUT_MS = 10_000;

type Quota = KubeObject & QuotaLike;

const byNamespace = (o: KubeObject) => [o.metadata.namespace ?? ''];
const grKey = (gr: GroupResource) => `${gr.resource}.${gr.group}`;

export const resourceQuotaController: ControllerDefinition = {
  name: RESOURCE_QUOTA_CONTROLLER,
  requires: [{ group: '', resource: 'resourcequotas' }, { group: '', resource: 'pods' }],
  make: (ctx) => new ResourceQuotaController(ctx),
};

class ResourceQuotaController implements Controller {
  readonly name = RESOURCE_QUOTA_CONTROLLER;
  private readonly queue: WorkQueue;
  private readonly quotas: Informer<Quota>;
  private readonly pods: Informer;
  private readonly discovery: DiscoveryCache;
  /** Informers of the other kinds quotas count, by group-resource, once asked for. */
  private readonly counted = new Map<string, { informer: Informer; ready: Promise<void> }>();
  private resync: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = new WorkQueue({ name: 'resourcequota_primary', metrics: ctx.queueMetrics });
    this.discovery = new DiscoveryCache(ctx.client);
    this.quotas = ctx.informers.for<Quota>(QUOTAS);
    this.quotas.addIndex(BY_NAMESPACE, byNamespace);
    this.quotas.addEventHandler({
      onAdd: (q) => this.queue.add(keyOf(q)),
      // Status changes are this controller's or the admission's own: only a new spec is a reason.
      onUpdate: (old, cur) => { if (JSON.stringify(old.spec ?? {}) !== JSON.stringify(cur.spec ?? {})) this.queue.add(keyOf(cur)); },
    });
    this.pods = ctx.informers.for(PODS);
    this.pods.addIndex(BY_NAMESPACE, byNamespace);
    this.pods.addEventHandler({
      onUpdate: (old, cur) => { if (podCounts(old) && !podCounts(cur)) this.replenish(cur, { group: '', resource: 'pods' }); },
      onDelete: (pod) => this.replenish(pod, { group: '', resource: 'pods' }),
    });
  }

  run(): void {
    void this.queue.run(Math.max(1, this.ctx.settings.concurrentResourceQuotaSyncs), (key) => this.sync(key), (key, err) => { if (!this.stopped) this.ctx.log(`syncing ${key} failed`, err); });
    this.resync = setInterval(() => { for (const q of this.quotas.list()) this.queue.add(keyOf(q)); }, this.ctx.settings.resourceQuotaSyncPeriodMs);
    this.resync.unref?.();
  }

  stop(): void {
    this.stopped = true;
    if (this.resync) clearInterval(this.resync);
    this.queue.shutDown();
  }

  /** An object of `gr` went away (or stopped counting): recount the quotas of its namespace that track it. */
  private replenish(obj: KubeObject, gr: GroupResource): void {
    // Test-only (breaks): no recount when tracked objects go away.
    if (this.ctx.breaks.has('resourcequota.no-replenish')) return;
    const ev = evaluatorFor(gr);
    for (const q of this.quotas.byIndex(BY_NAMESPACE, obj.metadata.namespace ?? '')) {
      const names = [...new Set([...Object.keys(q.spec?.hard ?? {}), ...Object.keys(q.status?.hard ?? {})])];
      if (ev.matchingResources(names).length > 0) this.queue.add(keyOf(q));
    }
  }

  /** The objects of `gr` in `namespace` from an informer cache, or undefined when the kind is not served. */
  private async objectsOf(gr: GroupResource, namespace: string): Promise<KubeObject[] | undefined> {
    if (!gr.group && gr.resource === 'pods') return this.pods.byIndex(BY_NAMESPACE, namespace);
    let entry = this.counted.get(grKey(gr));
    if (!entry) {
      const served = await this.discovery.lookup(gr.group, gr.resource);
      if (!served || !served.namespaced || !served.verbs.includes('list') || !served.verbs.includes('watch')) return undefined;
      if (this.counted.has(grKey(gr))) return this.objectsOf(gr, namespace);
      const informer = this.ctx.informers.for(collectionPathOf(served));
      informer.addIndex(BY_NAMESPACE, byNamespace);
      informer.addEventHandler({ onDelete: (o) => this.replenish(o, gr) });
      entry = { informer, ready: informer.start() };
      this.counted.set(grKey(gr), entry);
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([entry.ready, new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`the informer of ${grKey(gr)} has not synced`)), INFORMER_SYNC_TIMEOUT_MS); })]);
    } finally {
      clearTimeout(timer);
    }
    return entry.informer.byIndex(BY_NAMESPACE, namespace);
  }

  /** Upstream syncResourceQuota. */
  private async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const quota = this.quotas.get(namespace, name);
    if (!quota) return;
    const hard = toList(quota.spec?.hard);
    const hardNames = Object.keys(hard);
    let observed: ResourceList = {};
    for (const gr of resourcesNamedBy(hardNames)) {
      const ev = evaluatorFor(gr);
      const names = ev.matchingResources(hardNames);
      if (names.length === 0) continue;
      const objects = await this.objectsOf(gr, namespace);
      // A kind nobody serves: nothing to count, and the last observation (if any) is kept.
      if (!objects) continue;
      observed = addLists(observed, usageOf(ev, quota, objects, names, {
        // Test-only (breaks): count objects whatever the quota's scopes, or its scope selector, say.
        ignoreScopes: this.ctx.breaks.has('resourcequota.ignore-scopes'),
        ignoreSelector: this.ctx.breaks.has('resourcequota.ignore-scope-selector'),
        // Test-only (breaks): a quota without scopes or selector matches nothing instead of everything.
        matchNothing: this.ctx.breaks.has('resourcequota.unscoped-matches-none') && !quota.spec?.scopes?.length && !quota.spec?.scopeSelector?.matchExpressions?.length,
      }));
    }
    // The past observation is kept for what could not be counted; only limited names are reported.
    const used = mask({ ...toList(quota.status?.used), ...observed }, hardNames);
    // Test-only (breaks): status.hard is left as it is instead of mirroring spec.hard.
    const statusHard = this.ctx.breaks.has('resourcequota.no-status-hard') ? quota.status?.hard : hard;
    const dirty = !quota.status?.used || (statusHard !== undefined && (!quota.status?.hard || !listsEqual(statusHard, quota.status.hard))) || !listsEqual(used, quota.status?.used);
    if (!dirty) return;
    const status: Record<string, unknown> = { used };
    if (statusHard !== undefined) status['hard'] = statusHard;
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/resourcequotas/${encodeURIComponent(name)}`;
    try {
      // Guarded by the resourceVersion read: a 409 retries the key with what the cache has then.
      await this.ctx.client.updateStatus(path, { ...quota, status });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }
}
