// Preemption (upstream DefaultPreemption, simplified): for a pod that fits nowhere, on each node where
// only resources stand in the way, take away every placed pod of lower priority; if the pod then fits,
// give back as many of them as still lets it fit, highest priority first; the rest are the victims.
// The node chosen has the lowest highest-victim priority, then the fewest victims, then the smallest
// sum of victim priorities, then the name.
import type { KubeObject } from '../client/informer.js';
import type { PlacedPod } from './cache.js';
import { NodeUsage, resourceReasons, resolvableByPreemption, type Resources } from './filters.js';

export const preemptionMessage = (schedulerName: string, what: 'pod' | 'podgroup'): string =>
  `${schedulerName}: preempting to accommodate a higher priority ${what}`;

export interface VictimsInput {
  readonly requests: Resources;
  readonly allocatable: Resources;
  /** What is placed on the node now (possibly a what-if view). */
  readonly usage: NodeUsage | undefined;
  /** The pods placed there that may be taken away (lower priority, not terminating, not excluded). */
  readonly candidates: readonly PlacedPod[];
  readonly priorityOf: (pod: KubeObject) => number;
  readonly nominated?: Resources;
  readonly nominatedPods?: number;
}

/** The fewest lower-priority pods whose removal lets the pod fit on the node, or undefined. */
export function victimsOnNode(i: VictimsInput): PlacedPod[] | undefined {
  const usage = i.usage?.clone() ?? new NodeUsage();
  for (const c of i.candidates) usage.add(c.requests, -1);
  const fits = () => resourceReasons({ requests: i.requests, allocatable: i.allocatable, usage, nominated: i.nominated, nominatedPods: i.nominatedPods }).length === 0;
  if (!fits()) return undefined;
  const victims: PlacedPod[] = [];
  const byPriority = [...i.candidates].sort((a, b) => i.priorityOf(b.pod) - i.priorityOf(a.pod) || a.key.localeCompare(b.key));
  for (const c of byPriority) {
    usage.add(c.requests);
    if (!fits()) {
      usage.add(c.requests, -1);
      victims.push(c);
    }
  }
  return victims;
}

export interface Candidate {
  readonly node: string;
  readonly victims: readonly PlacedPod[];
}

/** Upstream pickOneNodeForPreemption, reduced to the criteria that apply here. */
export function pickCandidate(candidates: readonly Candidate[], priorityOf: (pod: KubeObject) => number): Candidate | undefined {
  const highest = (c: Candidate) => Math.max(...c.victims.map((v) => priorityOf(v.pod)), Number.MIN_SAFE_INTEGER);
  const sum = (c: Candidate) => c.victims.reduce((n, v) => n + priorityOf(v.pod), 0);
  return [...candidates].sort((a, b) => highest(a) - highest(b) || a.victims.length - b.victims.length || sum(a) - sum(b) || a.node.localeCompare(b.node))[0];
}

/**
 * Upstream's PostFilter message when preemption finds nothing: per node, `Preemption is not helpful
 * for scheduling` (a taint, affinity... removing pods cannot cure) or `No preemption victims found for
 * incoming pod`.
 */
export function noCandidateMessage(total: number, reasonsByNode: ReadonlyMap<string, readonly string[]>): string {
  const counts = new Map<string, number>();
  for (const reasons of reasonsByNode.values()) {
    const r = resolvableByPreemption(reasons) ? 'No preemption victims found for incoming pod' : 'Preemption is not helpful for scheduling';
    counts.set(r, (counts.get(r) ?? 0) + 1);
  }
  return `preemption: 0/${total} nodes are available: ${[...counts].map(([r, n]) => `${n} ${r}`).sort().join(', ')}.`;
}
