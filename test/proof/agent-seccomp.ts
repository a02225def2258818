// Breakages for the §2.4 seccomp cases observed on an agent (suites/001-node-agent/agent-2.4-seccomp.ts).
// Each is a test-only switch in reference/agent/seccomp.ts.
import type { AgentBreakage } from '../helpers/agent-node.js';

export const agentSeccompBreakages: Record<string, AgentBreakage> = {
  // Containers without a profile get the agent's default instead of the pod's.
  'agent.seccomp.inherit-pod': { switch: 'seccomp-no-inherit' },
  // The pod's profile overrides the container's own.
  'agent.seccomp.container-priority': { switch: 'seccomp-pod-wins' },
  // A privileged container is sent unprivileged with the pod's profile.
  'agent.seccomp.privileged-unconfined': { switch: 'seccomp-privileged-confined' },
  // RuntimeDefault is passed on as Unconfined.
  'agent.seccomp.type-runtime-default': { switch: 'seccomp-runtime-default-as-unconfined' },
  // Unconfined is passed on as RuntimeDefault.
  'agent.seccomp.type-unconfined': { switch: 'seccomp-unconfined-as-runtime-default' },
  // The profile is looked up under <root_dir>/profiles.
  'agent.seccomp.localhost-path': { switch: 'seccomp-localhost-wrong-dir' },
  // The agent names a file outside <root_dir>/seccomp, so the profile that exists is not found.
  'agent.seccomp.localhost-loaded': { switch: 'seccomp-localhost-wrong-dir' },
  // A Localhost profile is replaced by RuntimeDefault, so its absence goes unnoticed and the container runs.
  'agent.seccomp.localhost-missing': { switch: 'seccomp-localhost-ignored' },
};
