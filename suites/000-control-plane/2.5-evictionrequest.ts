// Spec 000 §2.5 EvictionRequest (and its §8 limit): field rules of spec and status. The controller's
// side (§3.1 and the §2.5 rules it carries) is in 3.1-eviction.ts.
//
// A control plane running the eviction-request controller writes the status of every request (these
// requests name pods that do not exist, so it marks them failed soon after they are created): a
// write here that carries the resourceVersion of an earlier read may meet 409 Conflict. Such writes
// are retried on a fresh read, and each case checks the answer to its own write.
import { randomUUID } from 'node:crypto';
import { defineCase, type Case, type CaseContext } from '../case.js';
import type { ApiResponse } from '../../runner/client.js';
import { expectEqual, expectObject, expectStatus, SUCCESS } from '../verify.js';
import { itemPath, kindCommon, postObject } from './kinds.js';
import { EVICTION_REQUEST as ER } from './kinds-workloads.js';
import { clone, condition, createWith, expectInvalidAt, objectWith, putObject } from './workloads-common.js';

const common = { ...kindCommon(ER, 'evictionrequest'), level: 'MUST' } as const;
const should = { ...common, level: 'SHOULD' } as const;

const post = (ctx: Parameters<Case['run']>[0], edit: (spec: any) => void, hint?: string) => postObject(ctx, ER, objectWith(ctx, ER, edit, hint));
const create = (ctx: Parameters<Case['run']>[0], what = 'creating a valid EvictionRequest', edit: (spec: any) => void = () => {}, hint?: string) =>
  createWith(ctx, ER, edit, what, hint);

/**
 * PUTs `edit` of the request (to /status when `status`): first on `o`, then, after a 409 Conflict
 * (a controller wrote in between), on a fresh read, a few times. Gives the last answer.
 */
async function putFresh(ctx: CaseContext, o: any, edit: (fresh: any) => any, status = false): Promise<ApiResponse> {
  let res = await putObject(ctx, ER, edit(clone(o)), status);
  for (let i = 0; i < 5 && res.status === 409; i++) {
    const fresh = await ctx.api.get(itemPath(ER, ctx.namespace, o.metadata.name));
    if (fresh.status !== 200) break;
    res = await putObject(ctx, ER, edit(clone(fresh.json)), status);
  }
  return res;
}

/**
 * PUTs `status` to the request's /status (retrying a conflict on a fresh read). An observedGeneration
 * already stored (by the controller) is kept unless `status` sets one: it may not be unset.
 */
const putStatusOf = (ctx: CaseContext, o: any, status: Record<string, unknown>) => putFresh(ctx, o, (f) => {
  const kept = f.status?.observedGeneration !== undefined ? { observedGeneration: f.status.observedGeneration } : {};
  return { ...f, status: { ...kept, ...status } };
}, true);

/** Writes `status` through /status and expects success; gives back the stored request. */
const putStatus = async (ctx: CaseContext, o: any, status: Record<string, unknown>, what: string) =>
  expectObject(await putStatusOf(ctx, o, status), SUCCESS.replace, ER.kind, what);

export const evictionRequestCases: Case[] = [
  defineCase({
    ...common,
    id: 'api.evictionrequest.spec.required',
    upstreamShape: true,
    title: 'An EvictionRequest without spec is rejected as Invalid',
    requirements: ['000-2.5-spec-required'],
    async run(ctx) {
      const body = objectWith(ctx, ER, () => {});
      delete body.spec;
      await expectInvalidAt(ctx, await postObject(ctx, ER, body), 'spec', 'create without spec');
    },
  }),
  defineCase({
    ...common,
    id: 'api.evictionrequest.intent.required',
    upstreamShape: true,
    title: 'spec.intent is required',
    requirements: ['000-2.5-intent-required'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { delete s.intent; }), 'spec.intent', 'create without spec.intent', 'FieldValueRequired');
    },
  }),
  defineCase({
    ...common,
    id: 'api.evictionrequest.intent.allowed',
    title: 'spec.intent accepts Eviction and Withdrawn',
    requirements: ['000-2.5-intent-values'],
    async run(ctx) {
      for (const intent of ['Eviction', 'Withdrawn']) {
        const o = await create(ctx, `creating with intent ${intent}`, (s) => { s.intent = intent; }, intent.toLowerCase());
        expectEqual(o.spec?.intent, intent, `stored spec.intent ${intent}`);
      }
    },
  }),
  defineCase({
    ...common,
    id: 'api.evictionrequest.intent.unsupported',
    upstreamShape: true,
    title: 'A spec.intent other than Eviction or Withdrawn is rejected',
    requirements: ['000-2.5-intent-values'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.intent = 'Evict'; }), 'spec.intent', 'create with intent "Evict"', 'FieldValueNotSupported');
    },
  }),
  defineCase({
    ...common,
    id: 'api.evictionrequest.intent.withdraw',
    title: 'A requester withdraws by changing spec.intent from Eviction to Withdrawn',
    requirements: ['000-2.5-intent-withdrawable'],
    async run(ctx) {
      const o = await create(ctx);
      const put = expectObject(await putFresh(ctx, o, (n) => { n.spec.intent = 'Withdrawn'; return n; }), SUCCESS.replace, 'EvictionRequest', 'PUT with intent Withdrawn');
      expectEqual(put.spec?.intent, 'Withdrawn', 'spec.intent after the PUT');
    },
  }),
  defineCase({
    ...common,
    id: 'api.evictionrequest.requester.required',
    upstreamShape: true,
    title: 'spec.requester is required',
    requirements: ['000-2.5-requester-required'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { delete s.requester; }), 'spec.requester', 'create without spec.requester', 'FieldValueRequired');
    },
  }),
  defineCase({
    ...common,
    id: 'api.evictionrequest.requester.domain-prefixed',
    upstreamShape: true,
    title: 'spec.requester must be a domain-prefixed key <domain>/<name>',
    requirements: ['000-2.5-requester-domain-prefixed'],
    async run(ctx) {
      for (const requester of ['requester-without-domain', 'Not_A_Domain/requester', 'example.com/', 'example.com/a/b', 'example.com/-bad-name-']) {
        await expectInvalidAt(ctx, await post(ctx, (s) => { s.requester = requester; }), 'spec.requester', `create with requester ${JSON.stringify(requester)}`);
      }
    },
  }),
  defineCase({
    ...common,
    id: 'api.evictionrequest.requester.reserved-domains',
    upstreamShape: true,
    title: 'spec.requester may not use the reserved domain orch.io (nor its subdomains)',
    requirements: ['000-2.5-requester-reserved-domains'],
    async run(ctx) {
      for (const requester of ['orch.io/requester', 'scheduler.orch.io/requester']) {
        await expectInvalidAt(ctx, await post(ctx, (s) => { s.requester = requester; }), 'spec.requester', `create with requester ${JSON.stringify(requester)}`);
      }
    },
  }),
  defineCase({
    ...should,
    id: 'api.evictionrequest.requester.reserved-upstream-domains',
    title: 'spec.requester may not use upstream\'s reserved domain kubernetes.io (nor its subdomains) either',
    requirements: ['000-2.5-requester-reserved-upstream-domains'],
    async run(ctx) {
      for (const requester of ['kubernetes.io/requester', 'node.kubernetes.io/requester']) {
        await expectInvalidAt(ctx, await post(ctx, (s) => { s.requester = requester; }), 'spec.requester', `create with requester ${JSON.stringify(requester)}`);
      }
    },
  }),
  defineCase({
    ...common,
    id: 'api.evictionrequest.requester.immutable',
    upstreamShape: true,
    title: 'spec.requester cannot be changed',
    requirements: ['000-2.5-requester-immutable'],
    async run(ctx) {
      const o = await create(ctx);
      await expectInvalidAt(ctx, await putFresh(ctx, o, (n) => { n.spec.requester = 'other.example.com/requester'; return n; }), 'spec.requester', 'PUT with another spec.requester');
    },
  }),
  defineCase({
    ...common,
    id: 'api.evictionrequest.target.required',
    upstreamShape: true,
    title: 'spec.target is required',
    requirements: ['000-2.5-target-required'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { delete s.target; }), 'spec.target', 'create without spec.target');
    },
  }),
  defineCase({
    ...common,
    id: 'api.evictionrequest.target.immutable',
    upstreamShape: true,
    title: 'spec.target cannot be changed',
    requirements: ['000-2.5-target-immutable'],
    async run(ctx) {
      const o = await create(ctx);
      const other = { name: 'another-pod', uid: randomUUID() };
      await expectInvalidAt(ctx, await putFresh(ctx, o, (n) => { n.spec.target.pod = other; return n; }), 'spec.target', 'PUT with another spec.target.pod');
    },
  }),
  defineCase({
    ...common,
    id: 'api.evictionrequest.target.pod-name.required',
    upstreamShape: true,
    title: 'spec.target.pod.name is required',
    requirements: ['000-2.5-target-pod-name-required'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { delete s.target.pod.name; }), 'spec.target.pod.name', 'create without spec.target.pod.name', 'FieldValueRequired');
    },
  }),
  defineCase({
    ...should,
    id: 'api.evictionrequest.target.pod-name.format',
    title: 'spec.target.pod.name must be a valid pod name (DNS-1123 subdomain)',
    requirements: ['000-2.5-target-pod-name-format'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { s.target.pod.name = 'Not_A_Pod_Name'; }), 'spec.target.pod.name', 'create with pod name "Not_A_Pod_Name"', 'FieldValueInvalid');
    },
  }),
  defineCase({
    ...common,
    id: 'api.evictionrequest.target.pod-uid.required',
    upstreamShape: true,
    title: 'spec.target.pod.uid is required',
    requirements: ['000-2.5-target-pod-uid-required'],
    async run(ctx) {
      await expectInvalidAt(ctx, await post(ctx, (s) => { delete s.target.pod.uid; }), 'spec.target.pod.uid', 'create without spec.target.pod.uid', 'FieldValueRequired');
    },
  }),
  defineCase({
    ...common,
    id: 'api.evictionrequest.target.pod-uid.format',
    upstreamShape: true,
    title: 'spec.target.pod.uid must be a lowercase 8-4-4-4-12 UUID (uppercase is rejected)',
    requirements: ['000-2.5-target-pod-uid-format'],
    async run(ctx) {
      const uid = randomUUID();
      const o = await create(ctx, 'creating with a lowercase UUID', (s) => { s.target.pod.uid = uid; }, 'lower');
      expectEqual(o.spec?.target?.pod?.uid, uid, 'stored spec.target.pod.uid');
      for (const bad of [uid.toUpperCase(), uid.replace(/-/g, ''), 'not-a-uuid']) {
        await expectInvalidAt(ctx, await post(ctx, (s) => { s.target.pod.uid = bad; }), 'spec.target.pod.uid', `create with uid ${JSON.stringify(bad)}`, 'FieldValueInvalid');
      }
    },
  }),
  defineCase({
    ...common,
    id: 'api.evictionrequest.status.conditions.max-100',
    upstreamShape: true,
    title: 'status.conditions holds at most 100 conditions',
    requirements: ['000-2.5-status-conditions-max-100', '000-8-eviction-request-conditions'],
    async run(ctx) {
      const o = await create(ctx);
      const conditions = (n: number) => Array.from({ length: n }, (_, i) => condition(`example.com/Condition${i}`, 'False', 'Testing'));
      const hundred = await putStatus(ctx, o, { conditions: conditions(100) }, 'PUT .../status with 100 conditions');
      expectEqual(hundred.status?.conditions?.length, 100, 'number of stored conditions');
      await expectInvalidAt(ctx, await putStatusOf(ctx, hundred, { conditions: conditions(101) }), 'status.conditions', 'PUT .../status with 101 conditions', 'FieldValueTooMany');
    },
  }),
  defineCase({
    ...should,
    id: 'api.evictionrequest.status.conditions.unique-type',
    title: 'Two status conditions of the same type are rejected',
    requirements: ['000-2.5-status-conditions-unique-type'],
    async run(ctx) {
      const o = await create(ctx);
      const status = { conditions: [condition('Failed', 'False', 'Processing'), condition('Failed', 'True', 'Canceled')] };
      await expectInvalidAt(ctx, await putStatusOf(ctx, o, status), 'status.conditions[1]', 'PUT .../status with two Failed conditions', 'FieldValueDuplicate');
    },
  }),
  defineCase({
    ...should,
    id: 'api.evictionrequest.status.condition.shape',
    title: 'A status condition must have a valid status, a reason and a lastTransitionTime',
    requirements: ['000-2.5-status-condition-shape'],
    async run(ctx) {
      const o = await create(ctx);
      const bad = [
        ['status "Maybe"', { ...condition('Failed', 'Maybe', 'Processing') }, 'status.conditions[0].status'],
        ['no reason', { type: 'Failed', status: 'False', lastTransitionTime: '2025-01-01T00:00:00Z' }, 'status.conditions[0].reason'],
        ['no lastTransitionTime', { type: 'Failed', status: 'False', reason: 'Processing' }, 'status.conditions[0].lastTransitionTime'],
        ['a type that is not a qualified name', condition('not a type!', 'False', 'Processing'), 'status.conditions[0].type'],
      ] as const;
      for (const [what, c, field] of bad) {
        await expectInvalidAt(ctx, await putStatusOf(ctx, o, { conditions: [c] }), field, `PUT .../status with a condition with ${what}`);
      }
    },
  }),
  defineCase({
    ...common,
    id: 'api.evictionrequest.status.observed-generation.minimum',
    upstreamShape: true,
    title: 'status.observedGeneration is at least 1',
    requirements: ['000-2.5-observed-generation-minimum'],
    async run(ctx) {
      const o = await create(ctx);
      for (const observedGeneration of [0, -1]) {
        await expectInvalidAt(ctx, await putStatusOf(ctx, o, { observedGeneration }), 'status.observedGeneration', `PUT .../status with observedGeneration ${observedGeneration}`);
      }
      const ok = await putStatus(ctx, o, { observedGeneration: 1 }, 'PUT .../status with observedGeneration 1');
      expectEqual(ok.status?.observedGeneration, 1, 'stored status.observedGeneration');
    },
  }),
  defineCase({
    ...common,
    id: 'api.evictionrequest.status.observed-generation.increment-only',
    upstreamShape: true,
    title: 'status.observedGeneration can only be incremented',
    requirements: ['000-2.5-observed-generation-increment-only'],
    async run(ctx) {
      const o = await create(ctx);
      const two = await putStatus(ctx, o, { observedGeneration: 2 }, 'PUT .../status with observedGeneration 2');
      const three = await putStatus(ctx, two, { observedGeneration: 3 }, 'PUT .../status raising observedGeneration to 3');
      expectEqual(three.status?.observedGeneration, 3, 'status.observedGeneration after raising it');
      await expectInvalidAt(ctx, await putStatusOf(ctx, three, { observedGeneration: 2 }), 'status.observedGeneration', 'PUT .../status lowering observedGeneration from 3 to 2');
    },
  }),
  defineCase({
    ...common,
    id: 'api.evictionrequest.scope.namespaced',
    upstreamShape: true,
    title: 'EvictionRequest is namespaced: it lives in the namespace of its path',
    requirements: ['000-2.5-namespaced'],
    async run(ctx) {
      const o = await create(ctx);
      expectEqual(o.metadata?.namespace, ctx.namespace, 'metadata.namespace of the created EvictionRequest');
      const res = await ctx.api.get(`/apis/lifecycle.orch.io/v1alpha1/evictionrequests/${encodeURIComponent(o.metadata.name)}`);
      expectStatus(res, { code: 404, reason: 'NotFound' }, 'reading the EvictionRequest by name without a namespace');
    },
  }),
];
