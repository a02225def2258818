// Breakages for the §1 sync-loop and PLEG cases (suites/001-node-agent/agent-1-sync-loop.ts).
import type { AgentBreakage } from '../helpers/agent-node.js';
import { editJson } from '../helpers/broken-target.js';

export const agentSyncLoopBreakages: Record<string, AgentBreakage> = {
  // The agent creates the container but never starts it.
  'agent.sync.pod-runs-through-cri': { switch: 'sync-skip-start-container' },
  // A deleted pod's containers and sandbox are left running (the pod object is still removed).
  'agent.sync.deletion-stops-through-cri': { switch: 'sync-no-teardown' },
  // The PLEG relists but wakes no worker (an exit-only switch would race with the pass its start event runs).
  'agent.pleg.container-exit-in-status': { switch: 'pleg-no-events' },
  'agent.pleg.exit-wakes-sync-loop': { switch: 'pleg-no-events' },
  // The agent's pod list and watch lose their spec.nodeName selector: it sees, and runs, every pod.
  'agent.sync.only-assigned-pods': {
    api: {
      request(req) {
        const u = new URL(req.path, 'http://x');
        if (u.pathname !== '/api/v1/pods' || !u.searchParams.get('fieldSelector')?.startsWith('spec.nodeName=')) return;
        u.searchParams.delete('fieldSelector');
        req.path = `${u.pathname}${u.search}`;
      },
    },
  },
  // The sandbox metadata swaps the pod's name and namespace.
  'agent.sync.cri-run-pod-sandbox-metadata': { switch: 'cri-sandbox-metadata-swapped' },
  // CreateContainer is sent without sandbox_config.
  'agent.sync.cri-create-container-request': { switch: 'cri-create-no-sandbox-config' },
  // StopContainer is sent with timeout 0 whatever the grace period.
  'agent.sync.cri-stop-container-request': { switch: 'cri-stop-no-timeout' },
  // The agent's pod status writes report every waiting container as running and ready.
  'agent.sync.runtime-refusal-not-running': {
    api: {
      request(req) {
        if (!/^\/api\/v1\/namespaces\/[^/]+\/pods\/[^/]+\/status/.test(req.path) || (req.method !== 'PATCH' && req.method !== 'PUT')) return;
        editJson(req, (o) => {
          for (const c of o?.status?.containerStatuses ?? []) {
            if (c?.state?.waiting) { c.state = { running: { startedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z') } }; c.ready = true; c.started = true; }
          }
        });
      },
    },
  },
  // The agent deletes the pod (grace 0) first, then stops its containers, with no final status.
  'agent.sync.terminating-final-delete': { switch: 'sync-delete-before-stop' },
  // Init containers run last to first.
  'agent.sync.init-containers-in-order': { switch: 'sync-init-reversed' },
};
