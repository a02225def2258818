// Breakages for the §4.2 pod info cases (suites/001-node-agent/agent-4.2-pod-info.ts): test-only
// switches of the reference agent's pod info service (reference/agent/pod-info/), each breaking one
// rule; they apply to the proof node's agent and to the agents the exec cases launch.
import type { AgentBreakage } from '../helpers/agent-node.js';

export const agentPodInfoBreakages: Record<string, AgentBreakage> = {
  // The socket is served at <root_dir>/pod-info.sock instead of <root_dir>/pods/agent.sock.
  'agent.podinfo.socket-path': { switch: 'podinfo-socket-elsewhere' },
  'agent.podinfo.socket-in-root-dir': { switch: 'podinfo-socket-elsewhere' },
  // No socket at all unless a gate is given: off by default.
  'agent.podinfo.enabled-by-default': { switch: 'podinfo-off-by-default' },
  // The socket is left 0666.
  'agent.podinfo.socket-owner-only': { switch: 'podinfo-socket-world' },
  // Served under package podinfo.v1: /v1alpha1.Pods/* is UNIMPLEMENTED.
  'agent.podinfo.service-name': { switch: 'podinfo-package-renamed' },
  // ListPods answers an empty list.
  'agent.podinfo.list-pods': { switch: 'podinfo-list-empty' },
  // ListPods answers in descending UID order.
  'agent.podinfo.list-sorted-by-uid': { switch: 'podinfo-list-unsorted' },
  // GetPod finds no pod.
  'agent.podinfo.get-pod': { switch: 'podinfo-get-not-found' },
  // GetPod for an unknown UID answers OK with an empty pod.
  'agent.podinfo.get-pod-not-found': { switch: 'podinfo-get-unknown-empty' },
  // WatchPods sends no initial list.
  'agent.podinfo.watch-initial': { switch: 'podinfo-watch-no-initial' },
  // WatchPods sends the initial list and nothing after it.
  'agent.podinfo.watch-update': { switch: 'podinfo-watch-no-updates' },
  // A mask path keeps its whole top-level field (status.phase gives all of status).
  'agent.podinfo.field-mask': { switch: 'podinfo-mask-top-level' },
  // Without a mask the pod comes without its spec.
  'agent.podinfo.no-mask-full-pod': { switch: 'podinfo-partial-pod' },
  // The mask is read from x-fieldmask: a mask under x-orch-fieldmask is ignored.
  'agent.podinfo.field-mask-metadata-key': { switch: 'podinfo-mask-key-other' },
  // Repeated masks are joined into one.
  'agent.podinfo.field-mask-multiple': { switch: 'podinfo-mask-multiple-joined' },
  // Paths naming no field of Pod are accepted.
  'agent.podinfo.field-mask-invalid-path': { switch: 'podinfo-mask-unchecked' },
  // Calls are answered before the state is initialized.
  'agent.podinfo.not-initialized': { switch: 'podinfo-no-precondition' },
  // Pods are read from the API server, so the service fails once it is unreachable.
  'agent.podinfo.without-control-plane': { switch: 'podinfo-reads-api' },
  // Only the API's copy of the status is served, never what the agent computed from the runtime.
  'agent.podinfo.latest-known-data': { switch: 'podinfo-api-status-only' },
};
