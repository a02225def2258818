// One pod watch for every hollow node of the process, fanned out by spec.nodeName: what each node's
// agent would get from its own watch with fieldSelector spec.nodeName=<node>, at the cost of one list
// and one watch of the API instead of n. Pods bound to other nodes, and pods not yet bound, are dropped
// here (one decode each, no per-node work).
//
// The per-node view follows a field-selector watch's semantics: a pod enters a node's view when it is
// bound there (ADDED), changes (MODIFIED), and leaves when deleted (DELETED); after a relist (410 Gone)
// every node gets its list again (onList), as a relisting watch of its own would.
import type { ApiClient, Watch, WatchEvent, WatchOptions } from '../reference/client/api-client.js';

type Handlers = Pick<WatchOptions, 'onList' | 'onEvent' | 'onError'>;

export class SharedPodWatch {
  /** The pods of each hollow node by uid, kept from before the node subscribes (its list then). */
  private readonly pods = new Map<string, Map<string, any>>();
  private readonly subscribers = new Map<string, Handlers>();
  private readonly watch: Watch;

  /** `nodes`: the names whose pods are kept (the process's hollow nodes). */
  constructor(api: ApiClient, private readonly nodes: ReadonlySet<string>, onError: (err: unknown) => void) {
    for (const n of nodes) this.pods.set(n, new Map());
    this.watch = api.watch('/api/v1/pods', {
      onList: (items) => this.onList(items),
      onEvent: (ev) => this.onEvent(ev),
      // Reported once for all nodes (not once per node): the watch reconnects by itself.
      onError,
    });
  }

  get synced(): Promise<void> {
    return this.watch.synced;
  }

  private onList(items: any[]): void {
    for (const m of this.pods.values()) m.clear();
    for (const p of items) this.pods.get(p.spec?.nodeName)?.set(p.metadata.uid, p);
    for (const [node, h] of this.subscribers) h.onList([...this.pods.get(node)!.values()]);
  }

  private onEvent(ev: WatchEvent): void {
    const node = ev.object?.spec?.nodeName;
    const mine = node ? this.pods.get(node) : undefined;
    if (!mine) return;
    const uid = ev.object.metadata.uid;
    const known = mine.has(uid);
    if (ev.type === 'DELETED') {
      if (!known) return;
      mine.delete(uid);
    } else {
      mine.set(uid, ev.object);
    }
    // First seen on this node (bound by the event): ADDED, as the node's own field-selector watch says.
    const type = ev.type === 'MODIFIED' && !known ? 'ADDED' : ev.type;
    this.subscribers.get(node)?.onEvent({ type, object: ev.object });
  }

  /** The node's watch: its current pods once the shared list is in, then their changes. */
  subscribe(nodeName: string, handlers: Handlers): Watch {
    if (!this.nodes.has(nodeName)) throw new Error(`${nodeName} is not a node of this shared pod watch`);
    let stopped = false;
    const synced = this.watch.synced.then(() => {
      if (stopped) return;
      this.subscribers.set(nodeName, handlers);
      handlers.onList([...this.pods.get(nodeName)!.values()]);
    });
    return {
      synced,
      stop: () => {
        stopped = true;
        if (this.subscribers.get(nodeName) === handlers) this.subscribers.delete(nodeName);
      },
    };
  }

  stop(): void {
    this.watch.stop();
    this.subscribers.clear();
  }
}
