// Breakages for the cases of suites/001-node-agent/agent-exec-more.ts: each a test-only switch of the
// reference agent (reference/agent/breaks.ts), which applies to the agents those cases launch.
import type { AgentBreakage } from '../helpers/agent-node.js';

export const agentExecMoreBreakages: Record<string, AgentBreakage> = {
  'agent.files.static-pod-path': { switch: 'static-pod-path-ignored' },
  // The profile looked up outside <root_dir>/seccomp (the switch agent.seccomp.localhost-loaded's proof uses too).
  'agent.files.seccomp-dir': { switch: 'seccomp-localhost-wrong-dir' },
  'agent.config.file': { switch: 'config-file-ignored' },
  'agent.config.drop-in-null': { switch: 'config-null-ignored' },
  'agent.watchdog.env': { switch: 'watchdog-pid-ignored' },
  'agent.cri.version': { switch: 'cri-version-fields-swapped' },
  'agent.cri.runtime-status': { switch: 'cri-status-fields-misread' },
  'agent.cri.list-containers': { switch: 'cri-list-containers-uid-as-id' },
  'agent.cri.pod-sandboxes': { switch: 'cri-sandbox-state-misread' },
  // Image operations go to the runtime socket, imageServiceEndpoint ignored.
  'agent.files.runtime-sockets': { switch: 'cri-image-endpoint-ignored' },
};
