// Spec 001 cases that start agents themselves (needs agent-exec: configuration, lock file, root dir,
// watchdog, standalone mode), and /healthz (§4.3) of the agent under test.
import { defineCase, type Case } from '../case.js';
import { expectCode } from '../verify.js';
import { expectStarts } from './agent-exec-kit.js';
import { agentCase, nodePath } from './agent-kit.js';
import { agentExecConfigCases } from './agent-exec-config.js';
import { agentExecFilesCases } from './agent-exec-files.js';
import { agentExecWatchdogCases } from './agent-exec-watchdog.js';
import { agentExecMoreCases } from './agent-exec-more.js';

const healthzCases: Case[] = [
  defineCase({
    id: 'agent.healthz.ok', title: 'the agent serves /healthz for periodic health checks: a healthy agent answers 200',
    requirements: ['001-4.3-healthz'], ...agentCase('4.3', 'MUST', 'read'),
    async run(ctx) {
      const res = await ctx.agent().client.get('/healthz');
      expectCode(res, 200, 'GET /healthz of the agent under test');
    },
  }),
];

const standaloneCases: Case[] = [
  defineCase({
    id: 'agent.standalone.no-api', title: 'without an API client configuration the agent runs standalone: it serves /healthz and registers no Node',
    requirements: ['001-1-standalone-mode'], ...agentCase('1', 'MUST', 'exec'),
    async run(ctx) {
      const a = await expectStarts(ctx, { controlPlane: false }, 'an agent started without --kubeconfig (standalone mode)');
      const node = await ctx.api.get(nodePath(a.nodeName));
      expectCode(node, 404, `GET the Node ${a.nodeName}: a standalone agent registers none`);
    },
  }),
];

export const agentExecCases: Case[] = [...agentExecConfigCases, ...agentExecFilesCases, ...agentExecWatchdogCases, ...healthzCases, ...standaloneCases, ...agentExecMoreCases];
