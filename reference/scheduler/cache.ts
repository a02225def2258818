// The scheduler's cache (upstream internal/cache, simplified): what is placed on each node - the pods
// the informer shows bound there and not terminal, plus the pods the scheduler has assumed there
// while their binding is in flight - kept as per-node sums so a fit check costs one lookup. An assumed
// pod stays until the informer shows it bound (then it is an ordinary placed pod) or the binding fails
// (forget).
import { keyOf, type KubeObject } from '../client/informer.js';
import { NodeUsage, podRequests, type Resources } from './filters.js';

export interface PlacedPod {
  readonly key: string;
  readonly node: string;
  readonly requests: Resources;
  readonly pod: KubeObject;
  readonly assumed: boolean;
}

export const isTerminal = (pod: KubeObject): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

export class SchedulerCache {
  private readonly placed = new Map<string, PlacedPod>();
  private readonly usage = new Map<string, NodeUsage>();
  private readonly byNode = new Map<string, Set<string>>();

  usageOf(node: string): NodeUsage | undefined {
    return this.usage.get(node);
  }

  /** The pods placed on `node` (bound or assumed). */
  podsOn(node: string): PlacedPod[] {
    return [...(this.byNode.get(node) ?? [])].map((k) => this.placed.get(k)!).filter(Boolean);
  }

  get(key: string): PlacedPod | undefined {
    return this.placed.get(key);
  }

  isAssumed(key: string): boolean {
    return this.placed.get(key)?.assumed === true;
  }

  /** The informer's view of a pod (added or updated). */
  observe(pod: KubeObject): void {
    const key = keyOf(pod);
    const cur = this.placed.get(key);
    const node: string | undefined = pod.spec?.nodeName || undefined;
    if (node && !isTerminal(pod)) {
      this.put({ key, node, requests: cur && cur.node === node && cur.pod.metadata.resourceVersion === pod.metadata.resourceVersion ? cur.requests : podRequests(pod), pod, assumed: false });
      return;
    }
    // Not bound (yet): an assumed pod waits for its binding to show; a terminal pod frees its node.
    if (cur && (!cur.assumed || isTerminal(pod))) this.remove(key);
  }

  /** The pod is gone. */
  remove(key: string): void {
    const cur = this.placed.get(key);
    if (!cur) return;
    this.placed.delete(key);
    this.usage.get(cur.node)?.add(cur.requests, -1);
    this.byNode.get(cur.node)?.delete(key);
  }

  /** Places the pod on `node` before its binding returns. */
  assume(pod: KubeObject, node: string, requests: Resources): void {
    this.put({ key: keyOf(pod), node, requests, pod, assumed: true });
  }

  /** The binding failed: the assumed pod leaves its node. */
  forget(key: string): void {
    if (this.placed.get(key)?.assumed) this.remove(key);
  }

  private put(p: PlacedPod): void {
    this.remove(p.key);
    this.placed.set(p.key, p);
    let u = this.usage.get(p.node);
    if (!u) this.usage.set(p.node, (u = new NodeUsage()));
    u.add(p.requests);
    let s = this.byNode.get(p.node);
    if (!s) this.byNode.set(p.node, (s = new Set()));
    s.add(p.key);
  }
}

/**
 * A what-if view over the cache for one scheduling cycle (a gang placed pod by pod, victims taken
 * away): per-node usage copied on first change, the cache itself untouched.
 */
export class Simulation {
  private readonly overlay = new Map<string, NodeUsage>();

  constructor(private readonly cache: SchedulerCache) {}

  usageOf(node: string): NodeUsage | undefined {
    return this.overlay.get(node) ?? this.cache.usageOf(node);
  }

  add(node: string, requests: Resources, sign: 1 | -1 = 1): void {
    let u = this.overlay.get(node);
    if (!u) this.overlay.set(node, (u = this.cache.usageOf(node)?.clone() ?? new NodeUsage()));
    u.add(requests, sign);
  }
}
