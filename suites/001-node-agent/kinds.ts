// The control-plane kinds the node agent works with: Node (spec 001 §2.2), its heartbeat Lease (§2.2)
// and Pod (§1 sync loop, §2.4 seccomp). Spec 000 does not list them, so they are not in its KINDS
// table (whose generated operation cases carry spec-000 requirements); AGENT_KINDS has them for
// whoever generates agent-side operation cases.
import type { CaseContext } from '../case.js';
import { itemPath, type ResourceKind } from '../000-control-plane/kinds.js';

/** A fixed RFC 3339 time (whole seconds, so it reads back unchanged). */
export const T0 = '2025-01-01T00:00:00Z';
export const T1 = '2025-01-01T00:00:10Z';
/** Keeps a real cluster from scheduling anything onto the nodes the cases register. */
export const HOLD_TAINT = { key: 'conformance.orch.io/not-a-node', effect: 'NoSchedule' };
/** Keeps a real cluster from scheduling (and so running) the pods the cases create. */
export const HOLD_GATE = { name: 'conformance.orch.io/hold' };
export const IMAGE = 'registry.orch.io/conformance/pause:3.10';

export const NODE: ResourceKind = {
  kind: 'Node',
  apiVersion: 'v1',
  plural: 'nodes',
  namespaced: false,
  hasStatus: true,
  deleteResponse: 'unspecified',
  section: '2.2',
  valid: () => ({ spec: { unschedulable: true, taints: [HOLD_TAINT] } }),
  change: {
    patch: { spec: { taints: [{ ...HOLD_TAINT, value: 'changed' }] } },
    changed: (o) => o?.spec?.taints?.[0]?.value === 'changed',
  },
  status: () => ({
    capacity: { cpu: '4', memory: '8Gi', pods: '110' },
    allocatable: { cpu: '3500m', memory: '7Gi', pods: '110' },
    conditions: [{ type: 'Ready', status: 'False', reason: 'ConformanceTest', message: 'not a real node', lastHeartbeatTime: T0, lastTransitionTime: T0 }],
  }),
};

export const POD: ResourceKind = {
  kind: 'Pod',
  apiVersion: 'v1',
  plural: 'pods',
  namespaced: true,
  hasStatus: true,
  deleteResponse: 'unspecified',
  section: '1',
  valid: () => ({ spec: { containers: [{ name: 'main', image: IMAGE }], schedulingGates: [HOLD_GATE] } }),
  change: {
    patch: { spec: { containers: [{ name: 'main', image: `${IMAGE}-changed` }] } },
    changed: (o) => o?.spec?.containers?.[0]?.image === `${IMAGE}-changed`,
  },
  status: () => ({ phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: T0 }] }),
};

export const LEASE: ResourceKind = {
  kind: 'Lease',
  apiVersion: 'coordination.orch.io/v1',
  plural: 'leases',
  namespaced: true,
  hasStatus: false,
  deleteResponse: 'unspecified',
  section: '2.2',
  valid: () => ({ spec: { holderIdentity: 'conformance-node', leaseDurationSeconds: 40 } }),
  change: {
    patch: { spec: { renewTime: '2025-01-01T00:00:10.000000Z' } },
    changed: (o) => o?.spec?.renewTime === '2025-01-01T00:00:10.000000Z',
  },
};

export const AGENT_KINDS: readonly ResourceKind[] = [NODE, POD, LEASE];

/** The case header fields every case of a kind shares, for spec 001. */
export function agentCommon(k: ResourceKind, suite: string, section = k.section) {
  return {
    suite,
    spec: { doc: '001' as const, section },
    impact: k.namespaced ? ('namespaced' as const) : ('cluster-scoped' as const),
    needs: ['api'] as const,
  };
}

/**
 * PUTs `status` through the status subresource of a stored object. A 409 means a controller wrote
 * the object in between (the node lifecycle controller taints a new Node at once, e.g. for
 * spec.unschedulable): the object is read again and the write retried, as any client would.
 */
export async function putStatus(ctx: CaseContext, k: ResourceKind, obj: any, status: unknown) {
  const item = itemPath(k, obj.metadata?.namespace ?? ctx.namespace, obj.metadata.name);
  let res = await ctx.api.put(`${item}/status`, { ...obj, status });
  for (let i = 0; i < 3 && res.status === 409; i++) {
    const cur = await ctx.api.get(item);
    if (cur.status !== 200) break;
    res = await ctx.api.put(`${item}/status`, { ...cur.json, status });
  }
  return res;
}

/**
 * PUTs `edit(object)` to `path` (the object or its /status); on a 409 (a controller wrote it in
 * between) reads the object at `item` again and retries with `edit` of that.
 */
export async function putEdited(ctx: CaseContext, item: string, path: string, obj: any, edit: (o: any) => any) {
  let res = await ctx.api.put(path, edit(obj));
  for (let i = 0; i < 3 && res.status === 409; i++) {
    const cur = await ctx.api.get(item);
    if (cur.status !== 200) break;
    res = await ctx.api.put(path, edit(cur.json));
  }
  return res;
}
