// Breakages for the §2.2 / §3 node-status cases (suites/001-node-agent/agent-2.2-node-status.ts).
// Read cases: a proxy between the shared agent and the API server rewrites its own writes (the Node
// status patch, the Lease create and update). Cases that launch their own agent talk to the API
// directly, so theirs are switches of the reference agent (reference/agent/node-status.ts).
import type { AgentBreakage } from '../helpers/agent-node.js';
import { agentEndpointBreakages } from './agent-endpoints.js';
import { answer, editJson, type Breakage, type ProxiedRequest } from '../helpers/broken-target.js';

const NODE_STATUS_WRITE = /^\/api\/v1\/nodes(\/[^/?]+\/status)?(\?|$)/;
const LEASE = /^\/apis\/coordination\.orch\.io\/v1\/namespaces\/node-lease\/leases(\/[^/?]+)?(\?|$)/;

/** Edits the status in every write of the agent's Node (registration and status patches). */
function nodeStatus(edit: (status: any) => void): { api: Breakage } {
  return {
    api: {
      request(req: ProxiedRequest) {
        if (!['POST', 'PUT', 'PATCH'].includes(req.method) || !NODE_STATUS_WRITE.test(req.path)) return;
        editJson(req, (o) => { if (o?.status) edit(o.status); });
      },
    },
  };
}

/** Edits one condition (by type) in the agent's status writes. */
const conditionEdit = (type: string, edit: (c: any) => void) => nodeStatus((s) => { for (const c of s.conditions ?? []) if (c?.type === type) edit(c); });

export const agentNodeStatusBreakages: Record<string, AgentBreakage> = {
  // The agent publishes no IP address.
  'agent.node.addresses': nodeStatus((s) => { s.addresses = (s.addresses ?? []).filter((a: any) => a?.type !== 'InternalIP' && a?.type !== 'ExternalIP'); }),
  'agent.node.hostname-override': { switch: 'hostname-ignores-override' },
  // PIDPressure is never published.
  'agent.node.conditions.types': nodeStatus((s) => { s.conditions = (s.conditions ?? []).filter((c: any) => c?.type !== 'PIDPressure'); }),
  // Conditions without lastHeartbeatTime.
  'agent.node.conditions.entry': nodeStatus((s) => { for (const c of s.conditions ?? []) delete c.lastHeartbeatTime; }),
  // No maximum number of pods in capacity.
  'agent.node.capacity': nodeStatus((s) => { if (s.capacity) delete s.capacity.pods; }),
  // More cpu allocatable than the node has (dropping allocatable would not do: the API server defaults it to capacity).
  'agent.node.allocatable': nodeStatus((s) => { if (s.allocatable?.cpu) s.allocatable.cpu = String(Number(s.capacity?.cpu ?? 1) * 1000); }),
  'agent.node.info': nodeStatus((s) => { if (s.nodeInfo) delete s.nodeInfo.kernelVersion; }),
  'agent.node.info.runtime-version': { switch: 'node-info-static-runtime-version' },
  // A completed (GA) feature declared.
  'agent.node.declared-features.no-baseline': nodeStatus((s) => { s.declaredFeatures = [...(s.declaredFeatures ?? []), 'NodeDeclaredFeatures']; }),
  'agent.node.declared-features.enabled-only': { switch: 'declared-features-ignore-gates' },
  // Nothing declared, whatever gates are on.
  'agent.node.declared-features.enabled-listed': { switch: 'declared-features-none' },
  // Lease updates are answered by the proxy and never stored: renewTime stays where the create left it.
  'agent.lease.renewed': {
    api: {
      request(req) {
        if (req.method === 'PUT' && LEASE.test(req.path)) return answer(200, req.body);
      },
    },
  },
  // The Lease is held under another identity.
  'agent.lease.object': {
    api: {
      request(req) {
        if ((req.method === 'PUT' || req.method === 'POST') && LEASE.test(req.path)) editJson(req, (o) => { if (o?.spec) o.spec.holderIdentity = 'someone-else'; });
      },
    },
  },
  'agent.node.cordon.no-scheduling-disabled-condition': { switch: 'node-status-scheduling-disabled-condition' },
  'agent.node.cordon.stays-unschedulable': { switch: 'node-status-uncordons' },
  'agent.conditions.ready-true': conditionEdit('Ready', (c) => { c.status = 'False'; c.reason = 'AgentNotReady'; }),
  'agent.conditions.ready-false-runtime-not-ready': { switch: 'node-ready-ignores-runtime' },
  'agent.conditions.memory-pressure': conditionEdit('MemoryPressure', (c) => { c.status = 'Unknown'; }),
  'agent.conditions.disk-pressure': conditionEdit('DiskPressure', (c) => { c.status = 'Unknown'; }),
  'agent.conditions.pid-pressure': conditionEdit('PIDPressure', (c) => { c.status = 'Unknown'; }),
  // No pressure ever: the eviction thresholds ignored (agents the cases launch carry the switch).
  'agent.conditions.memory-pressure-threshold': { switch: 'pressure-always-false' },
  'agent.conditions.disk-pressure-threshold': { switch: 'pressure-always-false' },
  'agent.conditions.pid-pressure-threshold': { switch: 'pressure-always-false' },
  // A condition keeps the lastTransitionTime it was first written with.
  'agent.conditions.last-transition-time': { switch: 'node-conditions-keep-transition-time' },
  // A NetworkUnavailable condition published as Unknown.
  'agent.conditions.network-unavailable': nodeStatus((s) => {
    const t = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    s.conditions = [...(s.conditions ?? []), { type: 'NetworkUnavailable', status: 'Unknown', reason: 'NoRouteCreated', message: 'not known', lastHeartbeatTime: t, lastTransitionTime: t }];
  }),
  ...agentEndpointBreakages,
  // The agent refuses a locked gate set against its lock, instead of ignoring it.
  'agent.node.declared-features.locked-gate-ignored': { switch: 'locked-gates-refused' },
};
