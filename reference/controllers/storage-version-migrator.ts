// The storage version migrator (upstream pkg/controller/storageversionmigrator: the resource-version
// controller, the migration runner and the migrator, as one `storage-version-migrator-controller`),
// spec 000 §2.3 with the ground-truth note §5. For each StorageVersionMigration that has not finished:
//  1. status.resourceVersion, once: the resourceVersion of a list (limit 1) of the resource when the
//     migration is first seen; a resource discovery does not know fails the migration with
//     `resource does not exist in discovery` once it has been unknown for a grace period (upstream's
//     newer migrator gives discovery a minute to catch up with a new kind; so does this one);
//  2. one migration per GroupResource at a time, the oldest first (creation time, then name): it is
//     marked Running=True, reason `MigrationRunning`, message `The migration is running` (upstream's
//     migration runner; its older migrator said `StorageVersionMigrationInProgress`);
//  3. every object of the resource whose resourceVersion is not newer than the saved one gets a no-op
//     server-side apply carrying only apiVersion, kind, uid and resourceVersion (a conflict means the
//     object was rewritten or deleted since: skipped); retryable errors requeue the migration, others
//     fail it with `migration encountered unhandled error: <err>`;
//  4. Succeeded=True, reason `StorageVersionMigrationSucceeded`, message "", and Running=False in the
//     same write (upstream flips Running when a terminal condition is set; its runner then gives it
//     reason `MigrationCompleted`, message `Migration completed`, used here at once).
// The API enforces the §2.3 rules (set-once resourceVersion, terminal conditions final, Running never
// true with them); spec §4.1 gives the kind no status subresource, so status goes through PUT of the
// object, guarded by the resourceVersion read.
import { ApiError, isConflict, isNotFound } from '../client/api-client.js';
import { DiscoveryCache, apiVersionOf, collectionPathOf, type ServedResource } from '../client/discovery.js';
import { keyOf, type Informer, type KubeObject } from '../client/informer.js';
import { WorkQueue } from '../client/workqueue.js';
import type { Controller, ControllerContext, ControllerDefinition } from './controller.js';

export const STORAGE_VERSION_MIGRATOR_CONTROLLER = 'storage-version-migrator-controller';

const SVMS = '/apis/storagemigration.orch.io/v1/storageversionmigrations';
export const RUNNING = 'Running';
export const SUCCEEDED = 'Succeeded';
export const FAILED = 'Failed';
export const REASON_RUNNING = 'MigrationRunning';
export const MESSAGE_RUNNING = 'The migration is running';
export const REASON_COMPLETED = 'MigrationCompleted';
export const MESSAGE_COMPLETED = 'Migration completed';
export const REASON_SUCCEEDED = 'StorageVersionMigrationSucceeded';
export const REASON_FAILED = 'StorageVersionMigrationFailed';
export const MESSAGE_UNKNOWN_RESOURCE = 'resource does not exist in discovery';
/** Upstream's grace for a resource discovery does not know yet (a kind just added). */
export const UNKNOWN_RESOURCE_GRACE_MS = 60_000;
const PAGE = 500;

interface Condition {
  type: string;
  status: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
  observedGeneration?: number;
}

interface Migration extends KubeObject {
  spec?: { resource?: { group?: string; resource?: string } };
  status?: { resourceVersion?: string; conditions?: Condition[] };
}

const isTrue = (m: Migration, type: string) => (m.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
const finished = (m: Migration) => isTrue(m, SUCCEEDED) || isTrue(m, FAILED);
const resourceOf = (m: Migration) => ({ group: m.spec?.resource?.group ?? '', resource: m.spec?.resource?.resource ?? '' });
const sameResource = (a: Migration, b: Migration) => resourceOf(a).group === resourceOf(b).group && resourceOf(a).resource === resourceOf(b).resource;
const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
const olderFirst = (a: Migration, b: Migration) =>
  (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') || a.metadata.name.localeCompare(b.metadata.name);

/** Sets a condition; the transition time moves only when its status does. */
function setCondition(conditions: Condition[], c: Omit<Condition, 'lastTransitionTime'>): Condition[] {
  const old = conditions.find((x) => x.type === c.type);
  const next: Condition = { ...c, lastTransitionTime: old && old.status === c.status ? old.lastTransitionTime : now() };
  return old ? conditions.map((x) => (x.type === c.type ? next : x)) : [...conditions, next];
}

/** A terminal condition, with Running (if there) flipped to False. */
function finish(conditions: Condition[], type: string, reason: string, message: string): Condition[] {
  let out = conditions;
  if (out.some((c) => c.type === RUNNING && c.status === 'True')) {
    out = setCondition(out, { type: RUNNING, status: 'False', reason: REASON_COMPLETED, message: MESSAGE_COMPLETED });
  }
  return setCondition(out, { type, status: 'True', reason, message });
}

export interface StorageVersionMigratorOptions {
  /** How long a resource discovery does not know may stay unknown before its migration fails (60 s). */
  readonly unknownResourceGraceMs?: number;
}

export function storageVersionMigratorController(opts: StorageVersionMigratorOptions = {}): ControllerDefinition {
  return { name: STORAGE_VERSION_MIGRATOR_CONTROLLER, requires: [{ group: 'storagemigration.orch.io', resource: 'storageversionmigrations' }], make: (ctx) => new StorageVersionMigrator(ctx, opts.unknownResourceGraceMs ?? UNKNOWN_RESOURCE_GRACE_MS) };
}

export const storageVersionMigrator: ControllerDefinition = storageVersionMigratorController();

class StorageVersionMigrator implements Controller {
  readonly name = STORAGE_VERSION_MIGRATOR_CONTROLLER;
  private readonly queue: WorkQueue;
  private readonly migrations: Informer<Migration>;
  private readonly discovery: DiscoveryCache;
  /** Test-only (breaks): the resourceVersion a migration works from when it is not written to status. */
  private readonly unsaved = new Map<string, string>();
  private stopped = false;

  constructor(private readonly ctx: ControllerContext, private readonly graceMs: number) {
    this.queue = new WorkQueue({ name: 'storage_version_migrator', metrics: ctx.queueMetrics });
    this.discovery = new DiscoveryCache(ctx.client);
    this.migrations = ctx.informers.for<Migration>(SVMS);
    this.migrations.addEventHandler({
      onAdd: (m) => this.queue.add(keyOf(m)),
      onUpdate: (_, m) => this.queue.add(keyOf(m)),
      // The next migration of the same resource may start.
      onDelete: (m) => this.enqueueSiblings(m),
    });
  }

  run(): void {
    void this.queue.run(5, (key) => this.sync(key), (key, err) => { if (!this.stopped) this.ctx.log(`migrating ${key} failed`, err); });
  }

  stop(): void {
    this.stopped = true;
    this.queue.shutDown();
  }

  private enqueueSiblings(m: Migration): void {
    for (const o of this.migrations.list()) if (o.metadata.name !== m.metadata.name && sameResource(o, m) && !finished(o)) this.queue.add(keyOf(o));
  }

  private async sync(name: string): Promise<number | void> {
    const m = this.migrations.getByKey(name);
    if (!m) return;
    if (finished(m)) {
      this.unsaved.delete(name);
      // Someone else finished it with Running still true: the runner's clean-up.
      if (isTrue(m, RUNNING)) await this.write(m, { conditions: setCondition(m.status?.conditions ?? [], { type: RUNNING, status: 'False', reason: REASON_COMPLETED, message: MESSAGE_COMPLETED }) });
      this.enqueueSiblings(m);
      return;
    }
    const gr = resourceOf(m);
    const served = await this.discovery.lookup(gr.group, gr.resource);
    if (!served) {
      // Test-only (breaks): a resource nobody serves is "migrated" at once, as if it had no objects.
      if (this.ctx.breaks.has('storage-version-migrator.unknown-succeeds')) {
        await this.write(m, { conditions: finish(m.status?.conditions ?? [], SUCCEEDED, REASON_SUCCEEDED, '') });
        return;
      }
      const left = Date.parse(m.metadata.creationTimestamp ?? '') + this.graceMs - Date.now();
      if (left > 0) return left;
      await this.write(m, { conditions: finish(m.status?.conditions ?? [], FAILED, REASON_FAILED, MESSAGE_UNKNOWN_RESOURCE) });
      return;
    }
    if (!served.verbs.includes('list') || !served.verbs.includes('patch')) {
      await this.write(m, { conditions: finish(m.status?.conditions ?? [], FAILED, REASON_FAILED, `resource ${gr.resource}.${gr.group} cannot be migrated: it is not listable and patchable`) });
      return;
    }

    let saved = m.status?.resourceVersion || this.unsaved.get(name) || '';
    if (!saved) {
      // The resource's current resourceVersion: a cheap list (one item) at the current revision.
      const list = await this.ctx.client.get(`${collectionPathOf(served)}?limit=1`);
      saved = String(list?.metadata?.resourceVersion ?? '');
      if (!/^\d+$/.test(saved)) {
        await this.write(m, { conditions: finish(m.status?.conditions ?? [], FAILED, REASON_FAILED, `migration encountered unhandled error: invalid resource version ${JSON.stringify(saved)}`) });
        return;
      }
      // Test-only (breaks): the migration goes on without recording status.resourceVersion.
      if (this.ctx.breaks.has('storage-version-migrator.no-resource-version')) {
        this.unsaved.set(name, saved);
      } else {
        // Set once; the update event brings the migration back.
        await this.write(m, { resourceVersion: saved });
        return;
      }
    }

    // One migration per resource at a time: the one running, else the oldest waiting.
    const siblings = this.migrations.list().filter((o) => sameResource(o, m) && !finished(o));
    if (!isTrue(m, RUNNING)) {
      if (siblings.some((o) => o.metadata.name !== name && isTrue(o, RUNNING))) return;
      const first = siblings.sort(olderFirst)[0];
      if (first && first.metadata.name !== name) return;
      // Test-only (breaks): the migration runs without ever saying so.
      if (!this.ctx.breaks.has('storage-version-migrator.no-running')) {
        await this.write(m, { conditions: setCondition(m.status?.conditions ?? [], { type: RUNNING, status: 'True', reason: REASON_RUNNING, message: MESSAGE_RUNNING }) });
        return;
      }
    }

    const error = await this.migrate(served, BigInt(saved));
    if (error === 'not-yet') return 1_000;
    const current = this.migrations.getByKey(name) ?? m;
    if (error) await this.write(current, { conditions: finish(current.status?.conditions ?? [], FAILED, REASON_FAILED, `migration encountered unhandled error: ${error}`) });
    else await this.write(current, { conditions: finish(current.status?.conditions ?? [], SUCCEEDED, REASON_SUCCEEDED, '') });
    this.unsaved.delete(name);
  }

  /**
   * Rewrites every object not newer than `saved`. Undefined when done, the unhandled error's text,
   * or 'not-yet' while the server has not reached `saved`. Retryable errors throw (requeue).
   */
  private async migrate(served: ServedResource, saved: bigint): Promise<string | 'not-yet' | undefined> {
    const base = collectionPathOf(served);
    let cont = '';
    for (;;) {
      const page = await this.ctx.client.get(`${base}?limit=${PAGE}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
      if (!cont && /^\d+$/.test(String(page?.metadata?.resourceVersion ?? '')) && BigInt(page.metadata.resourceVersion) < saved) return 'not-yet';
      for (const obj of Array.isArray(page?.items) ? page.items : []) {
        const rv = String(obj?.metadata?.resourceVersion ?? '');
        if (!/^\d+$/.test(rv) || BigInt(rv) > saved) continue;
        const error = await this.rewrite(served, obj);
        if (error) return error;
      }
      cont = page?.metadata?.continue ?? '';
      if (!cont) return undefined;
    }
  }

  /** The no-op apply of one object; undefined when done or skipped, else the unhandled error. */
  private async rewrite(served: ServedResource, obj: KubeObject): Promise<string | undefined> {
    const path = `${collectionPathOf(served, obj.metadata.namespace)}/${encodeURIComponent(obj.metadata.name)}`;
    const body = { apiVersion: apiVersionOf(served), kind: served.kind, metadata: { uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion } };
    try {
      await this.ctx.client.apply(path, body, { fieldManager: STORAGE_VERSION_MIGRATOR_CONTROLLER });
      return undefined;
    } catch (err) {
      // Changed or deleted since the list: already in the current storage version, or gone.
      if (isConflict(err) || isNotFound(err)) return undefined;
      if (!(err instanceof ApiError) || err.status === 429 || err.status >= 500) throw err;
      // Some servers answer a patch of a deleted object otherwise: gone (or replaced) is skipped.
      const now = await this.ctx.client.get(path).catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
      if (!now || now.metadata?.uid !== obj.metadata.uid) return undefined;
      return err.body.message ?? err.message;
    }
  }

  /** PUT of the migration with `status` merged in (no status subresource, spec §4.1), guarded by its resourceVersion. */
  private async write(m: Migration, status: Partial<NonNullable<Migration['status']>>): Promise<void> {
    const path = `${SVMS}/${encodeURIComponent(m.metadata.name)}`;
    try {
      await this.ctx.client.update(path, { ...m, status: { ...m.status, ...status } });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }
}
