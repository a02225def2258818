// Spec 001 §3, node conditions brought about on agents the case starts: the pressure conditions under
// eviction thresholds the node cannot meet, and lastTransitionTime across a change of Ready. How
// pressure is judged and when lastTransitionTime moves are upstream's (the spec says what the
// conditions mean, not how they are computed): these cases are SHOULD.
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectTrue, show, skip } from '../verify.js';
import { agentCase } from './agent-kit.js';
import { configArgs, withScratch } from './agent-exec-kit.js';
import { condition, launchedReady, nodeWhen, runtimeNotReady } from './agent-node-kit.js';

/**
 * A hard eviction threshold above what any machine has of the signal: the node is below it as soon
 * as the agent observes the signal. 1Pi of available memory and 1Ei of free root-filesystem space
 * exceed any node; 10M process ids exceed Linux's largest pid_max (4194304).
 */
const PRESSURE_THRESHOLDS = [
  { type: 'MemoryPressure', signal: 'memory.available', value: '1Pi', id: 'memory-pressure-threshold', what: 'more available memory than the machine has' },
  { type: 'DiskPressure', signal: 'nodefs.available', value: '1Ei', id: 'disk-pressure-threshold', what: 'more free space than the root dir\'s filesystem has' },
  { type: 'PIDPressure', signal: 'pid.available', value: '10M', id: 'pid-pressure-threshold', what: 'more free process ids than the node can have' },
] as const;

/** The conditions of a Node as type, status and lastTransitionTime, for failure messages. */
const transitions = (n: any) => (n?.status?.conditions ?? []).map((c: any) => ({ type: c?.type, status: c?.status, lastTransitionTime: c?.lastTransitionTime }));

/**
 * Resolves once the runner's clock is past `t` (bounded by `capMs`). Condition times have a
 * precision of one second: a change within the same second as the previous one could not be told
 * from no change at all.
 */
async function clockPast(t: number, capMs: number, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + capMs;
  while (Date.now() <= t && Date.now() < deadline && !signal.aborted) await new Promise((r) => setTimeout(r, 50));
}

export const agentConditionCases: Case[] = [
  ...PRESSURE_THRESHOLDS.map((p) => defineCase({
    ...agentCase('3', 'SHOULD', 'exec'),
    id: `agent.conditions.${p.id}`,
    title: `An agent configured with evictionHard ${p.signal}: ${p.value} (${p.what}) reports ${p.type} True`,
    requirements: ['001-3-pressure-eviction-thresholds'],
    async run(ctx: CaseContext) {
      await withScratch(async (dir) => {
        const args = await configArgs(dir, { main: { evictionHard: { [p.signal]: p.value } } });
        const launched = await ctx.agents.launch({ args });
        // Upstream's eviction manager observes every 10 s and the status is written every 10 s.
        await nodeWhen(ctx, launched.nodeName, (n) => condition(n, p.type)?.status === 'True',
          `the agent reports ${p.type} once the node is below its ${p.signal} threshold`, `condition ${p.type} with status True`, (n) => condition(n, p.type) ?? transitions(n), 25_000);
      });
    },
  })),
  defineCase({
    ...agentCase('3', 'SHOULD', 'exec'),
    id: 'agent.conditions.last-transition-time',
    title: 'When Ready goes False, its lastTransitionTime moves to that change while conditions whose status stayed keep theirs',
    requirements: ['001-3-condition-last-transition-time'],
    async run(ctx) {
      const launched = await ctx.agents.launch();
      const before = await launchedReady(ctx, launched);
      const readyBefore = condition(before, 'Ready');
      const t0 = Date.parse(readyBefore?.lastTransitionTime);
      expectTrue(!Number.isNaN(t0), 'Ready\'s lastTransitionTime before the change', 'a timestamp', readyBefore);
      await clockPast(t0 + 1000, 3_000, ctx.signal);
      const after = await runtimeNotReady(ctx, launched, 'the agent reports Ready False once its runtime is not ready');
      const readyAfter = condition(after, 'Ready');
      expectTrue(Date.parse(readyAfter?.lastTransitionTime) > t0, 'Ready went from True to False: its lastTransitionTime moves',
        `a lastTransitionTime later than ${readyBefore.lastTransitionTime}`, readyAfter);
      const stayed = transitions(before).filter((c: any) => c.type !== 'Ready' && condition(after, c.type)?.status === c.status);
      if (stayed.length === 0) skip(`no condition but Ready kept its status across the change (before ${show(transitions(before))}, after ${show(transitions(after))}): nothing shows whether unchanged conditions keep their lastTransitionTime`);
      for (const c of stayed) {
        expectTrue(condition(after, c.type).lastTransitionTime === c.lastTransitionTime, `${c.type} stayed ${c.status}: its lastTransitionTime stays`,
          `lastTransitionTime ${show(c.lastTransitionTime)}`, condition(after, c.type));
      }
    },
  }),
];
