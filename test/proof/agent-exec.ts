// Breakages for the agent-exec cases (agents the case starts: configuration, lock file, root dir,
// watchdog, standalone mode) and /healthz. The switches apply to the agents a case launches (the
// launch command carries ORCH_CONFORMANCE_AGENT_BREAK); /healthz is broken by a proxy in front of
// the agent under test.
import type { AgentBreakage } from '../helpers/agent-node.js';
import { agentExecMoreBreakages } from './agent-exec-more.js';

export const agentExecBreakages: Record<string, AgentBreakage> = {
  'agent.config.main-overlaid': { switch: 'config-first-drop-in-only' },
  'agent.config.scalars-replace': { switch: 'config-scalars-keep' },
  'agent.config.nested-merge': { switch: 'config-nested-replace' },
  'agent.config.lists-replace': { switch: 'config-lists-append' },
  'agent.config.maps-merge': { switch: 'config-maps-replace' },
  'agent.config.map-of-lists': { switch: 'config-map-lists-append' },
  'agent.config.drop-in-files': { switch: 'config-drop-ins-unsorted' },
  'agent.config.flags-win': { switch: 'config-flags-lose' },
  'agent.config.drop-in-strict': { switch: 'config-drop-in-lenient' },
  'agent.config.kind': { switch: 'config-kind-ignored' },
  'agent.config.keys': { switch: 'config-key-refused' },
  'agent.config.key-types': { switch: 'config-types-loose' },
  'agent.files.pod-allocation-records': { switch: 'rootdir-no-allocation-records' },
  'agent.files.cert-dir': { switch: 'certdir-ignored' },
  'agent.files.plugins-registry': { switch: 'rootdir-no-plugins-registry' },
  'agent.files.pod-resources': { switch: 'rootdir-no-pod-resources' },
  'agent.files.resource-manager-state': { switch: 'rootdir-no-dra-state' },
  'agent.files.image-pull-records': { switch: 'rootdir-no-image-manager' },
  'agent.lock.exclusive': { switch: 'lock-ignored' },
  'agent.watchdog.interval': { switch: 'watchdog-wrong-interval' },
  'agent.watchdog.ready': { switch: 'watchdog-no-ready' },
  'agent.watchdog.notify-socket': { switch: 'watchdog-no-abstract' },
  'agent.watchdog.disabled': { switch: 'watchdog-zero-pings' },
  'agent.watchdog.minimum': { switch: 'watchdog-no-minimum' },
  // The agent's /healthz answers 500 as an unhealthy agent would.
  'agent.healthz.ok': {
    endpoints: {
      request(req) {
        if (req.path.split('?')[0] === '/healthz') return { status: 500, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: '[-]syncloop failed: reason withheld\nhealthz check failed\n' };
      },
    },
  },
  'agent.standalone.no-api': { switch: 'standalone-refused' },
  ...agentExecMoreBreakages,
};
