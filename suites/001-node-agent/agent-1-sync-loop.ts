// Spec 001 §1, observed on an agent: the sync loop runs the pods bound to its node through the CRI
// (sandbox, then containers) and tears them down on deletion; the PLEG turns runtime changes into
// pod status.
import { defineCase, type Case } from '../case.js';
import { expectTrue, show } from '../verify.js';
import { agentCase, containerStatus, createPodOnNode, criCallsFor, isRunning, podPath, waitFor } from './agent-kit.js';

export const agentSyncLoopCases: Case[] = [
  defineCase({
    ...agentCase('1', 'MUST', 'node'),
    id: 'agent.sync.pod-runs-through-cri',
    title: 'A pod bound to the node runs: RunPodSandbox, then CreateContainer and StartContainer in it, and the pod reports Running',
    requirements: ['001-1-sync-loop-assigned-pods', '001-1-cri-client'],
    async run(ctx) {
      const pod = await createPodOnNode(ctx);
      const running = await waitFor(ctx, podPath(ctx, pod.metadata.name), isRunning, 'the pod on the agent\'s node runs', 'status.phase Running with container c running');
      expectTrue(!!containerStatus(running, 'c')?.containerID, 'the running container has a containerID', 'a containerID', show(containerStatus(running, 'c')));
      const calls = (await criCallsFor(ctx, pod)).map((c) => c.rpc);
      const order = ['RunPodSandbox', 'CreateContainer', 'StartContainer'].map((rpc) => calls.indexOf(rpc));
      expectTrue(order.every((i) => i >= 0) && order[0]! < order[1]! && order[1]! < order[2]!, 'the agent asked the runtime for a sandbox, then created and started the container in it',
        'RunPodSandbox before CreateContainer before StartContainer', show(calls));
    },
  }),
];
