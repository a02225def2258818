// The RBAC authorizer's view of the stored ClusterRoleBindings and RoleBindings: indexed by the
// subjects they name, so a decision reads only the bindings of its requester however many others
// there are, and kept current by the stores' own watches.
//
// Why no decision can see a stale index: each collection is listed at a revision R and watched
// from R, the storage replaying what came after R, so no write falls in between; and storage calls
// its watchers inside each write, before the write returns (types.ts WatchListener), the watch
// applying the event to the index right there. So once a request that
// wrote a binding is answered, the index holds the write, and any request that begins after sees
// it. A watch that ends (storage closed, the history compacted before the watch began, an
// undecodable object) has stopped applying writes: the index is dropped, and a decision that was
// waiting on it takes a fresh one, listed after that decision began.
import { RBAC_GROUP } from '../../resources/rbac.js';
import type { Registry } from '../registry.js';
import type { WatchSink } from '../store.js';
import type { WatchHandle } from '../../storage/types.js';
import { serviceAccountUsername, type UserInfo } from './user.js';

export interface Subject { kind?: string; name?: string; namespace?: string }
export interface RoleRef { kind?: string; name?: string }
export interface Binding { metadata: { namespace?: string; name?: string }; subjects?: Subject[]; roleRef?: RoleRef }

const BINDING_RESOURCES = ['clusterrolebindings', 'rolebindings'];

/** One index per registry: the server's authorizer and the escalation check's rule resolver share it. */
const indexes = new WeakMap<Registry, BindingIndex>();

export class BindingIndex {
  private build: IndexBuild | undefined;

  private constructor(private readonly registry: Registry) {}

  static of(registry: Registry): BindingIndex {
    let index = indexes.get(registry);
    if (!index) indexes.set(registry, (index = new BindingIndex(registry)));
    return index;
  }

  /** The bindings as of now: every write answered before this call is in. */
  async current(): Promise<SubjectIndex> {
    const build = this.build ?? this.start();
    const index = await build.ready;
    // Still watched: current. Ended: writes since may be missing; a build started now lists them.
    return build.ended ? (this.build ?? this.start()).ready : index;
  }

  private start(): IndexBuild {
    const build = new IndexBuild(this.registry, () => {
      if (this.build === build) this.build = undefined;
    });
    return (this.build = build);
  }
}

/** One listing of the bindings, and the watches that keep it current until one of them ends. */
class IndexBuild {
  ended = false;
  readonly ready: Promise<SubjectIndex>;
  private readonly handles: WatchHandle[] = [];

  constructor(registry: Registry, private readonly onEnd: () => void) {
    this.ready = this.run(registry);
    this.ready.catch(() => this.end());
  }

  private async run(registry: Registry): Promise<SubjectIndex> {
    const index = new SubjectIndex();
    const sink: WatchSink = {
      event: (ev) => {
        if (ev.type === 'ADDED' || ev.type === 'MODIFIED') index.put(ev.object as Binding);
        else if (ev.type === 'DELETED') index.remove(ev.object as Binding);
        else if (ev.type === 'ERROR') this.end();
      },
      close: () => this.end(),
    };
    for (const resource of BINDING_RESOURCES) {
      const store = registry.byGroupResource(RBAC_GROUP, resource);
      if (!store) continue;
      const listed = await store.list(undefined);
      for (const b of listed.items) index.put(b as Binding);
      this.handles.push(await store.watch(undefined, { resourceVersion: listed.resourceVersion, sendInitialEvents: false }, sink));
    }
    // Ended while later watches were still being started: stop those too.
    if (this.ended) for (const h of this.handles) h.stop();
    return index;
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const h of this.handles) h.stop();
    this.onEnd();
  }
}

/** Bindings by `<binding namespace, '' for ClusterRoleBindings>\0<u:user name | g:group>`. */
export class SubjectIndex {
  /** Each binding by namespace/name: what an update or a delete replaces. */
  private readonly byKey = new Map<string, Binding>();
  private readonly bySubject = new Map<string, Set<Binding>>();

  put(b: Binding): void {
    this.remove(b);
    this.byKey.set(bindingKey(b), b);
    for (const k of subjectKeys(b)) {
      let set = this.bySubject.get(k);
      if (!set) this.bySubject.set(k, (set = new Set()));
      set.add(b);
    }
  }

  remove(b: Binding): void {
    const key = bindingKey(b);
    const old = this.byKey.get(key);
    if (!old) return;
    this.byKey.delete(key);
    for (const k of subjectKeys(old)) {
      const set = this.bySubject.get(k)!;
      set.delete(old);
      if (!set.size) this.bySubject.delete(k);
    }
  }

  /**
   * The bindings of `namespace` ('' for the ClusterRoleBindings) with a subject naming the user,
   * each once, in name order: the order of a list of the collection (storage key order).
   */
  naming(user: UserInfo, namespace: string): Binding[] {
    const found = new Set<Binding>();
    for (const k of [`u:${user.name}`, ...user.groups.map((g) => `g:${g}`)]) {
      for (const b of this.bySubject.get(`${namespace}\0${k}`) ?? []) found.add(b);
    }
    return [...found].sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
  }
}

const bindingKey = (b: Binding): string => `${b.metadata.namespace ?? ''}/${b.metadata.name ?? ''}`;

/**
 * Who a binding's subjects name, as upstream appliesToUser matches them: a User by name, a Group by
 * name, a ServiceAccount by its user name (its namespace defaults to the binding's; with neither, no one).
 */
function subjectKeys(b: Binding): Set<string> {
  const namespace = b.metadata.namespace ?? '';
  const keys = new Set<string>();
  for (const s of b.subjects ?? []) {
    if (s.kind === 'User' && s.name !== undefined) keys.add(`${namespace}\0u:${s.name}`);
    else if (s.kind === 'Group') keys.add(`${namespace}\0g:${s.name ?? ''}`);
    else if (s.kind === 'ServiceAccount') {
      const ns = s.namespace || namespace;
      if (ns && s.name) keys.add(`${namespace}\0u:${serviceAccountUsername(ns, s.name)}`);
    }
  }
  return keys;
}
