// Namespace, core v1: the strategy, the lifecycle admission that guards namespaced creates, and a
// small in-process namespace controller that empties a deleted namespace and then lets it go —
// the same division of work as upstream (strategy + NamespaceLifecycle + namespace controller).
import { forbidden, notFound, StatusError } from '../apiserver/errors.js';
import { fieldErrors, isQualifiedName, nameIsDNSLabel, path, type FieldError } from '../apiserver/field-errors.js';
import type { Registry } from '../apiserver/registry.js';
import { t } from '../apiserver/schema.js';
import type { Admission, ResourceStore } from '../apiserver/store.js';
import { defineStrategy, type ApiObject } from '../apiserver/strategy.js';
import { fieldAt } from '../apiserver/selectors.js';
import type { Storage, WatchHandle } from '../storage/types.js';

/** The spec finalizer the namespace controller removes once the namespace is empty. */
export const FINALIZER_KUBERNETES = 'kubernetes';
/** Namespaces that exist from the start (`node-lease`: spec 001 §2.2, one Lease per node). */
export const INITIAL_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease', 'node-lease'];
/** Namespaces upstream's NamespaceLifecycle refuses to delete. */
const IMMORTAL = new Set(['default', 'kube-system', 'kube-public']);
const NAMESPACES = { group: '', resource: 'namespaces' };

interface Namespace extends ApiObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: string; conditions?: unknown[] };
}

export const namespaceStrategy = defineStrategy({
  group: '',
  version: 'v1',
  kind: 'Namespace',
  resource: 'namespaces',
  singular: 'namespace',
  shortNames: ['ns'],
  namespaced: false,
  // Upstream: metadata.name and status.phase (not metadata.namespace).
  fieldSelectors: { 'status.phase': fieldAt('status.phase') },
  hasStatus: true,
  deleteResponse: 'object',
  validateName: nameIsDNSLabel,
  // Upstream core/v1: status.conditions merge on type; spec.finalizers has no strategy.
  patchStrategies: { 'status.conditions': { strategy: 'merge', mergeKey: 'type' } },
  schema: {
    spec: t.object({ finalizers: t.array(t.string()) }),
    status: t.object({
      phase: t.string(),
      conditions: t.array(
        t.object({
          type: t.string(),
          status: t.string(),
          lastTransitionTime: t.string(),
          reason: t.string(),
          message: t.string(),
        }),
      ),
    }),
  },

  prepareForCreate(o: ApiObject): void {
    const ns = o as Namespace;
    ns.status = { phase: 'Active' };
    const finalizers = ns.spec?.finalizers ?? [];
    if (!finalizers.includes(FINALIZER_KUBERNETES)) ns.spec = { ...ns.spec, finalizers: [...finalizers, FINALIZER_KUBERNETES] };
  },

  prepareForUpdate(o: ApiObject, oldObj: ApiObject): void {
    // Spec finalizers change only through finalization (the controller), as upstream.
    const ns = o as Namespace;
    const old = oldObj as Namespace;
    if (old.spec === undefined) delete ns.spec;
    else ns.spec = old.spec;
  },

  prepareForDeletion(o: ApiObject): void {
    const ns = o as Namespace;
    ns.status = { ...ns.status, phase: 'Terminating' };
  },

  validate(o: ApiObject): FieldError[] {
    const errs: FieldError[] = [];
    const at = path('spec').child('finalizers');
    for (const f of (o as Namespace).spec?.finalizers ?? []) {
      for (const m of isQualifiedName(f)) errs.push(fieldErrors.invalid(at, f, m));
      if (!f.includes('/') && f !== FINALIZER_KUBERNETES) {
        errs.push(fieldErrors.invalid(at, f, 'name is neither a standard finalizer name nor is it fully qualified'));
      }
    }
    return errs;
  },

  deletionBlocked(o: ApiObject): boolean {
    return ((o as Namespace).spec?.finalizers?.length ?? 0) > 0;
  },

  checkDelete(o: ApiObject): StatusError | undefined {
    const name = o.metadata.name ?? '';
    return IMMORTAL.has(name) ? forbidden(NAMESPACES, name, 'this namespace may not be deleted') : undefined;
  },
});

/** Creates in a namespace that is missing (404) or terminating (403) are refused. */
export class NamespaceLifecycle implements Admission {
  constructor(private readonly namespaces: () => ResourceStore | undefined) {}

  async admitCreate(store: ResourceStore, namespace: string, obj: ApiObject): Promise<void> {
    const nsStore = this.namespaces();
    if (!store.strategy.namespaced || !nsStore) return;
    let ns: ApiObject;
    try {
      ns = await nsStore.get('', namespace);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) throw notFound(NAMESPACES, namespace);
      throw err;
    }
    if (ns.metadata.deletionTimestamp) {
      throw forbidden(
        store.strategy.groupResource,
        obj.metadata.name ?? '',
        `unable to create new content in namespace ${namespace} because it is being terminated`,
        [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
      );
    }
  }
}

/**
 * Watches namespaces; once one is marked for deletion it deletes everything stored in it, and when
 * nothing is left removes the `kubernetes` spec finalizer so the namespace itself goes away.
 */
export class NamespaceController {
  private handle: WatchHandle | undefined;
  private readonly running = new Set<string>();
  private readonly again = new Set<string>();
  private readonly retries = new Map<string, NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly registry: Registry,
    private readonly storage: Storage,
    private readonly retryMs = 200,
    private readonly log: (msg: string, err?: unknown) => void = () => {},
  ) {}

  async start(): Promise<void> {
    const nsStore = this.registry.byGroupResource('', 'namespaces');
    if (!nsStore) return;
    const listed = await this.storage.list(nsStore.keyPrefix());
    for (const kv of listed.items) this.consider(nsStore.decode(kv));
    this.handle = await this.storage.watch(nsStore.keyPrefix(), listed.revision, {
      onEvent: (ev) => {
        if (ev.type !== 'DELETED' && ev.value) this.consider(nsStore.decode({ ...ev, value: ev.value, createRevision: 0, modRevision: ev.revision }));
      },
      onClose: () => {},
    });
  }

  stop(): void {
    this.stopped = true;
    this.handle?.stop();
    for (const timer of this.retries.values()) clearTimeout(timer);
    this.retries.clear();
  }

  private consider(ns: ApiObject): void {
    if (ns.metadata.deletionTimestamp && ns.metadata.name) this.enqueue(ns.metadata.name);
  }

  private enqueue(name: string): void {
    if (this.stopped) return;
    if (this.running.has(name)) {
      this.again.add(name);
      return;
    }
    this.running.add(name);
    // Off the caller's stack: the triggering write (and its HTTP response) finishes first.
    setImmediate(() => {
      this.sync(name)
        .catch((err) => {
          if (!this.stopped) this.log(`namespace controller: syncing ${name} failed`, err);
          return false;
        })
        .then((done) => {
          this.running.delete(name);
          if (this.again.delete(name)) this.enqueue(name);
          else if (!done) this.retryLater(name);
        });
    });
  }

  private retryLater(name: string): void {
    if (this.stopped || this.retries.has(name)) return;
    const timer = setTimeout(() => {
      this.retries.delete(name);
      this.enqueue(name);
    }, this.retryMs);
    timer.unref();
    this.retries.set(name, timer);
  }

  /** True when the namespace is finished with (gone, or not terminating). */
  private async sync(name: string): Promise<boolean> {
    if (this.stopped) return true;
    const nsStore = this.registry.byGroupResource('', 'namespaces')!;
    let ns: ApiObject;
    try {
      ns = await nsStore.get('', name);
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return true;
      throw err;
    }
    if (!ns.metadata.deletionTimestamp) return true;
    let remaining = 0;
    for (const store of this.registry.stores) {
      if (!store.strategy.namespaced) continue;
      await store.deleteCollection(name);
      // Objects held by finalizers stay until someone removes them; look again later.
      remaining += (await store.list(name)).items.length;
    }
    if (remaining > 0) return false;
    await nsStore.guaranteedUpdate('', name, (o) => {
      const spec = (o as Namespace).spec;
      if (spec?.finalizers) spec.finalizers = spec.finalizers.filter((f) => f !== FINALIZER_KUBERNETES);
    });
    return true;
  }
}
