// pods/exec, pods/attach and pods/portforward (upstream's connect subresources): how discovery lists
// them, and how the API server picks the container before it contacts any node. The spec does not
// show them; upstream's shape is checked at SHOULD. Nothing here runs a command: the pod is held back
// from scheduling, so no agent is ever asked.
import { defineCase, type Case } from '../case.js';
import { expectObject, expectStatus, expectTrue } from '../verify.js';
import { createObject, itemPath } from './kinds.js';
import { HOLD_GATE, IMAGE, POD } from '../001-node-agent/kinds.js';

const common = { suite: 'discovery', spec: { doc: '000', section: '4' }, level: 'SHOULD' } as const;
const STREAMING = ['attach', 'exec', 'portforward'] as const;

export const podStreamingCases: Case[] = [
  defineCase({
    ...common,
    impact: 'read-only',
    needs: ['api'],
    id: 'api.discovery.pod-streaming-subresources',
    title: '/api/v1 lists pods/exec, pods/attach and pods/portforward with verbs create and get',
    requirements: ['000-4-pod-streaming-discovery'],
    async run(ctx) {
      const list = expectObject(await ctx.api.get('/api/v1'), [200], 'APIResourceList', 'GET /api/v1');
      const names = (list.resources ?? []).map((r: any) => r?.name);
      for (const sub of STREAMING) {
        const r = (list.resources ?? []).find((x: any) => x?.name === `pods/${sub}`);
        expectTrue(!!r, `the pods/${sub} entry of /api/v1`, 'present', names);
        const verbs = Array.isArray(r.verbs) ? [...r.verbs].sort() : r.verbs;
        expectTrue(Array.isArray(verbs) && verbs.length === 2 && verbs[0] === 'create' && verbs[1] === 'get', `verbs of pods/${sub}`, '["create", "get"] (a SPDY upgrade is a POST, a WebSocket one a GET)', r.verbs);
      }
    },
  }),
  defineCase({
    ...common,
    impact: 'namespaced',
    needs: ['api'],
    id: 'api.pod.exec.container-required',
    title: 'pods/exec without a container, on a pod of two, is refused naming the containers',
    requirements: ['000-4-pod-exec-container-choice'],
    async run(ctx) {
      const pod = await createObject(ctx, POD, { spec: { schedulingGates: [HOLD_GATE], containers: [{ name: 'first', image: IMAGE }, { name: 'second', image: IMAGE }] } });
      const path = `${itemPath(POD, ctx.namespace, pod.metadata.name)}/exec?command=true&stdout=true`;
      const res = await ctx.api.post(path, undefined);
      const s = expectStatus(res, { code: 400, reason: 'BadRequest' }, `POST ${path} (no container named)`);
      const message = String(s?.message ?? '');
      expectTrue(/a container name must be specified/.test(message) && message.includes('first') && message.includes('second'),
        'the refusal\'s message', 'says a container name must be given and names both containers (upstream: "a container name must be specified for pod <name>, choose one of: [first second]")', message);
    },
  }),
];
