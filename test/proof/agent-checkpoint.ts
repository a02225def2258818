// Breakages for the checkpoint cases (suites/001-node-agent/agent-4.1-checkpoint.ts): each a
// test-only switch of the reference agent (reference/agent/breaks.ts), which applies to the proof
// node's agent and to the agents the exec cases launch.
import type { AgentBreakage } from '../helpers/agent-node.js';

export const agentCheckpointBreakages: Record<string, AgentBreakage> = {
  // A successful checkpoint answered 201 Created.
  'agent.checkpoint.ok': { switch: 'checkpoint-answers-201' },
  // The archive named under `archive`, not in `items`.
  'agent.checkpoint.ok-body': { switch: 'checkpoint-body-unlisted' },
  // The archive cut short after the runtime wrote it: no longer a whole tar archive.
  'agent.checkpoint.archive-tar': { switch: 'checkpoint-archive-truncated' },
  // The archive put in the root dir itself instead of its checkpoints/ subdirectory.
  'agent.checkpoint.archive-location': { switch: 'checkpoint-archive-misplaced' },
  // The time in the archive's name as Unix seconds, not RFC 3339.
  'agent.checkpoint.archive-name-format': { switch: 'checkpoint-archive-name-unix-time' },
  // The archive left readable by everyone (0644).
  'agent.checkpoint.archive-mode': { switch: 'checkpoint-archive-world-readable' },
  // 200 with an archive path, the runtime never asked.
  'agent.checkpoint.cri': { switch: 'checkpoint-cri-skipped' },
  // CheckpointContainerRequest.location is the bare file name, not the absolute path.
  'agent.checkpoint.cri-request': { switch: 'checkpoint-location-relative' },
  // Requests are served without authentication or authorization.
  'agent.checkpoint.unauthorized': { switch: 'agent-authn-skipped' },
  // The route served with ContainerCheckpoint off.
  'agent.checkpoint.gate-disabled': { switch: 'checkpoint-gate-ignored' },
  // The pod looked up by name in any namespace.
  'agent.checkpoint.namespace-missing': { switch: 'checkpoint-namespace-ignored' },
  // A missing pod answered 500.
  'agent.checkpoint.pod-missing': { switch: 'checkpoint-pod-missing-500' },
  // The container name not checked against the pod's spec: the runtime lookup fails, 500.
  'agent.checkpoint.container-missing': { switch: 'checkpoint-container-unchecked' },
  // `pod <ns>/<name> not found` instead of upstream's `pod does not exist`.
  'agent.checkpoint.pod-missing-message': { switch: 'checkpoint-pod-missing-wording' },
  // Init containers not searched: one is answered `container prep does not exist`.
  'agent.checkpoint.container-missing-message': { switch: 'checkpoint-init-containers-unsearched' },
  // An unparsable timeout taken for none (200).
  'agent.checkpoint.timeout-unparsable': { switch: 'checkpoint-timeout-lenient' },
  // The runtime's error left out of the 500's message.
  'agent.checkpoint.runtime-error': { switch: 'checkpoint-runtime-error-details-dropped' },
  // The failure worded otherwise than upstream's `checkpointing of ... failed (...)`.
  'agent.checkpoint.runtime-error-message': { switch: 'checkpoint-runtime-error-wording' },
  // A runtime without the API answered 501, not 500.
  'agent.checkpoint.unimplemented': { switch: 'checkpoint-unimplemented-501' },
  // The timeout never passed to the runtime (always 0).
  'agent.checkpoint.timeout': { switch: 'checkpoint-timeout-ignored' },
  // A path without the container checkpoints the pod's first container.
  'agent.checkpoint.path-parameters': { switch: 'checkpoint-container-defaulted' },
  // The gate off unless set to true explicitly.
  'agent.checkpoint.on-by-default': { switch: 'checkpoint-off-by-default' },
};
