// Container logs on the agent's HTTPS port (not shown in spec 001; upstream's kubelet serves them at
// /containerLogs/{namespace}/{pod}/{container}, read from the CRI log file the runtime writes, and the
// API server's pods/log reaches them there). SHOULD cases: what a container printed comes back, and
// tailLines keeps the last lines only.
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectTrue, fail, show, skip } from '../verify.js';
import { agentCase, isRunning, podPath, createPodOnNode, waitFor, RUN_IMAGE } from './agent-kit.js';

/** A pod on the agent's node whose container `c` prints `script`'s lines and then sleeps; waits until it runs. */
async function printingPod(ctx: CaseContext, script: string, hint: string): Promise<any> {
  const created = await createPodOnNode(ctx, { containers: [{ name: 'c', image: RUN_IMAGE, command: ['sh', '-c', `${script}; sleep 3600`] }] }, hint);
  return waitFor(ctx, podPath(ctx, created.metadata.name), isRunning, 'the pod on the agent\'s node runs', 'status.phase Running with container c running', 15_000);
}

/**
 * GETs /containerLogs for container c of `pod` (query `query`) until `done` holds for the text or the
 * time is up (the runtime writes the file as the container prints: bounded polling, the agent has no
 * watch for it); returns the last text read.
 */
async function readLogs(ctx: CaseContext, pod: any, query: string, done: (text: string) => boolean, timeoutMs = 10_000): Promise<string> {
  const path = `/containerLogs/${encodeURIComponent(pod.metadata.namespace)}/${encodeURIComponent(pod.metadata.name)}/c${query}`;
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    const res = await ctx.agent().client.get(path);
    if (res.status === 401 || res.status === 403) skip(`the agent refuses GET ${path} to the run's credentials (HTTP ${res.status}): its logs cannot be read here`);
    if (res.status === 404 && !res.text.includes('does not exist')) fail(`GET ${path} of the agent`, 'HTTP 200 with the container\'s log (upstream\'s kubelet serves /containerLogs)', `HTTP 404 ${res.text.slice(0, 200)}`);
    if (res.status === 200) {
      last = res.text;
      if (done(last)) return last;
    }
    if (Date.now() >= deadline) {
      if (res.status !== 200) fail(`GET ${path} of the agent`, 'HTTP 200 with the container\'s log', `HTTP ${res.status} ${res.text.slice(0, 200)}`);
      return last;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

const linesOf = (text: string) => text.split('\n').filter((l) => l !== '');

export const agentLogsCases: Case[] = [
  defineCase({
    ...agentCase('4.3', 'SHOULD', 'node'),
    id: 'agent.node.logs.container-output',
    title: 'GET /containerLogs/{namespace}/{pod}/{container} on the agent answers what the container printed: every stdout and stderr line, each stream in order',
    requirements: ['001-4.3-container-logs'],
    async run(ctx) {
      const pod = await printingPod(ctx, 'echo out-1; echo err-1 >&2; echo out-2; echo err-2 >&2', 'logs');
      const text = await readLogs(ctx, pod, '', (t) => linesOf(t).length >= 4);
      const lines = linesOf(text);
      const out = lines.filter((l) => l.startsWith('out-'));
      const err = lines.filter((l) => l.startsWith('err-'));
      // The runtime may interleave the two streams either way (containerd reads them separately).
      expectTrue(lines.length === 4 && show(out) === show(['out-1', 'out-2']) && show(err) === show(['err-1', 'err-2']),
        'the log of a container that printed out-1, out-2 on stdout and err-1, err-2 on stderr', 'those four lines, out-1 before out-2 and err-1 before err-2', show(text));
    },
  }),
  defineCase({
    ...agentCase('4.3', 'SHOULD', 'node'),
    id: 'agent.node.logs.tail-lines',
    title: 'GET /containerLogs/...?tailLines=2 on the agent answers the last two lines of the container\'s log only',
    requirements: ['001-4.3-container-logs-tail'],
    async run(ctx) {
      const pod = await printingPod(ctx, 'echo one; echo two; echo three; echo four', 'logs-tail');
      // The whole log first, so that the tail is asked of a complete one.
      await readLogs(ctx, pod, '', (t) => linesOf(t).includes('four'));
      const tail = await readLogs(ctx, pod, '?tailLines=2', () => true);
      expectTrue(show(linesOf(tail)) === show(['three', 'four']), 'tailLines=2 of a log of the four lines one, two, three, four', 'three and four only', show(tail));
    },
  }),
];
