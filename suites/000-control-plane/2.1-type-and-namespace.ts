// Spec 000 §2.1 common shape: apiVersion and kind, and the namespace and generation rules of
// ObjectMeta (ground-truth note), on a namespaced kind with a spec and a status (ResourceQuota).
import { defineCase, type Case, type CaseContext } from '../case.js';
import { noteMay } from '../findings.js';
import { expectCode, expectEqual, expectObject, expectStatus, expectTrue, SUCCESS } from '../verify.js';
import { createStorageClass, postStorageClass, scItem, storageClass } from './fixtures.js';
import { collectionPath, createObject, itemPath, newObject } from './kinds.js';
import { NOTHING_COUNT, RESOURCE_QUOTA } from './kinds-quota-events.js';

const section = { doc: '000', section: '2.1' } as const;
const clusterScoped = { suite: 'metadata', spec: section, impact: 'cluster-scoped', needs: ['api'] } as const;
const namespaced = { ...clusterScoped, impact: 'namespaced' } as const;

/**
 * The two outcomes a "may" rule of §2.1 allows for a create the server need not take: refused (a 4xx
 * error) with nothing stored, or stored as a StorageClass of the endpoint's version, as read back.
 * Which one the target took is noted when it is not upstream's.
 */
async function eitherOutcome(ctx: CaseContext, body: any, what: string, may: string, upstreamChoice: 'refused' | 'taken from the endpoint (stored)'): Promise<void> {
  const res = await postStorageClass(ctx, body);
  const readBack = () => ctx.api.get(scItem(body.metadata.name));
  if (res.status >= 400 && res.status < 500) {
    if (upstreamChoice !== 'refused') noteMay(may, upstreamChoice, `refused: HTTP ${res.status}`);
    expectCode(await readBack(), 404, `${what} was refused (HTTP ${res.status}): nothing was stored`);
    return;
  }
  if (upstreamChoice === 'refused') noteMay(may, upstreamChoice, `taken from the endpoint: HTTP ${res.status}`);
  const created = expectObject(res, SUCCESS.create, 'StorageClass', `${what}: refused with a 4xx error, or created`);
  expectEqual(created.apiVersion, 'storage.orch.io/v1', `apiVersion of the object created by ${what}`);
  const stored = expectObject(await readBack(), [200], 'StorageClass', `read back the object created by ${what}`);
  expectEqual(stored.apiVersion, 'storage.orch.io/v1', `apiVersion of the object created by ${what}, read back`);
}

export const typeAndNamespaceCases: Case[] = [
  defineCase({
    ...clusterScoped,
    level: 'MUST',
    id: 'api.common.kind.inferred',
    title: 'An object sent without apiVersion and kind is stored as the endpoint\'s kind, or refused and not stored (the server may infer them)',
    requirements: ['000-2.1-kind-inferred'],
    async run(ctx) {
      const body = storageClass(ctx);
      delete body.apiVersion;
      delete body.kind;
      await eitherOutcome(ctx, body, 'POST without apiVersion and kind', 'an object sent without apiVersion and kind', 'taken from the endpoint (stored)');
    },
  }),
  defineCase({
    ...clusterScoped,
    level: 'MUST',
    id: 'api.common.kind.immutable',
    title: 'An update cannot change kind',
    requirements: ['000-2.1-kind-immutable'],
    async run(ctx) {
      const sc = await createStorageClass(ctx);
      const res = await ctx.api.put(scItem(sc.metadata.name), { ...sc, kind: 'VolumeClass' });
      expectTrue(res.status >= 400 && res.status < 500, 'PUT with kind "VolumeClass"', 'a 4xx error', `HTTP ${res.status}`);
      expectObject(await ctx.api.get(scItem(sc.metadata.name)), [200], 'StorageClass', 'read back: still a StorageClass');
    },
  }),
  defineCase({
    ...clusterScoped,
    level: 'MUST',
    id: 'api.common.api-version.unrecognized',
    title: 'An object sent with an unrecognized apiVersion is refused and not stored, or stored as the endpoint\'s version (the server may reject it)',
    requirements: ['000-2.1-api-version-unrecognized'],
    async run(ctx) {
      const body = storageClass(ctx);
      body.apiVersion = 'storage.orch.io/v9';
      await eitherOutcome(ctx, body, 'POST with apiVersion storage.orch.io/v9', 'an object sent with an unrecognized apiVersion', 'refused');
    },
  }),
  defineCase({
    ...namespaced,
    level: 'SHOULD',
    id: 'api.metadata.generation.spec-only',
    title: 'metadata.generation starts at 1 and bumps on spec changes only, not on metadata or status changes',
    requirements: ['000-2.1-metadata-generation'],
    async run(ctx) {
      const k = RESOURCE_QUOTA;
      const q = await createObject(ctx, k);
      expectEqual(q.metadata.generation, 1, 'generation of a new object');
      const path = itemPath(k, ctx.namespace, q.metadata.name);
      // A quota controller writes the quota's status too: each write is made to the object as read
      // afresh, and again on a conflict.
      const putFresh = async (suffix: string, edit: (cur: any) => any) => {
        for (let attempt = 1; ; attempt++) {
          const cur = expectObject(await ctx.api.get(path), [200], k.kind, 'reading the object before the PUT');
          const res = await ctx.api.put(`${path}${suffix}`, edit(cur));
          if (res.status !== 409 || attempt >= 5) return res;
        }
      };
      const labelled = expectObject(await putFresh('', (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata.labels, touched: 'yes' } } })), SUCCESS.replace, k.kind, 'a label change');
      expectEqual(labelled.metadata.generation, 1, 'generation after a metadata-only change');
      const st = expectObject(await putFresh('/status', (cur) => ({ ...cur, status: k.status!(ctx) })), SUCCESS.replace, k.kind, 'a status change');
      expectEqual(st.metadata.generation, 1, 'generation after a status change');
      const spec = expectObject(await putFresh('', (cur) => ({ ...cur, spec: { hard: { [NOTHING_COUNT]: '7' } } })), SUCCESS.replace, k.kind, 'a spec change');
      expectEqual(spec.metadata.generation, 2, 'generation after a spec change');
    },
  }),
  defineCase({
    ...namespaced,
    level: 'SHOULD',
    id: 'api.metadata.namespace.from-path',
    title: 'A namespaced object takes its namespace from the path; a different body namespace is 400',
    requirements: ['000-2.1-metadata-namespace-from-path'],
    async run(ctx) {
      const k = RESOURCE_QUOTA;
      const q = await createObject(ctx, k);
      expectEqual(q.metadata.namespace, ctx.namespace, 'metadata.namespace of an object created without one');
      const other = newObject(ctx, k);
      other.metadata.namespace = 'default';
      ctx.track(itemPath(k, 'default', other.metadata.name));
      expectStatus(await ctx.api.post(collectionPath(k, ctx.namespace), other), { code: 400, reason: 'BadRequest' }, `POST to namespace ${ctx.namespace} with metadata.namespace "default"`);
    },
  }),
  defineCase({
    ...namespaced,
    level: 'SHOULD',
    id: 'api.metadata.namespace.must-exist',
    title: 'A namespaced object cannot be created in a namespace that does not exist; default exists',
    requirements: ['000-2.1-metadata-namespace-must-exist'],
    async run(ctx) {
      const k = RESOURCE_QUOTA;
      const missing = ctx.uniqueName('nons');
      const body = newObject(ctx, k);
      ctx.track(itemPath(k, missing, body.metadata.name));
      expectStatus(await ctx.api.post(collectionPath(k, missing), body), { code: 404, reason: 'NotFound' }, `POST into namespace ${missing}, which nobody created`);
      expectObject(await ctx.api.get('/api/v1/namespaces/default'), [200], 'Namespace', 'GET the default namespace');
    },
  }),
];

