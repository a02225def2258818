// Spec 000 §4: the discovery documents and /version that clients such as kubectl need to find the
// resources (ground-truth note; the spec does not show them).
import { defineCase, type Case } from '../case.js';
import { expectObject, expectTrue, expectEqual, expectCode } from '../verify.js';

const common = { suite: 'discovery', spec: { doc: '000', section: '4' }, level: 'SHOULD', impact: 'read-only', needs: ['api'] } as const;

export const discoveryCases: Case[] = [
  defineCase({
    ...common,
    id: 'api.discovery.core-versions',
    title: '/api lists the core API versions, v1 among them',
    requirements: ['000-4-discovery-api'],
    async run(ctx) {
      const v = expectObject(await ctx.api.get('/api'), [200], 'APIVersions', 'GET /api');
      expectTrue(Array.isArray(v.versions) && v.versions.includes('v1'), 'versions of /api', 'a list containing "v1"', v.versions);
    },
  }),
  defineCase({
    ...common,
    id: 'api.discovery.groups',
    title: '/apis lists the storage.orch.io group with version v1',
    requirements: ['000-4-discovery-apis'],
    async run(ctx) {
      const list = expectObject(await ctx.api.get('/apis'), [200], 'APIGroupList', 'GET /apis');
      const g = (list.groups ?? []).find((x: any) => x?.name === 'storage.orch.io');
      expectTrue(!!g, 'the storage.orch.io group in /apis', 'present', (list.groups ?? []).map((x: any) => x?.name));
      expectTrue((g.versions ?? []).some((v: any) => v?.groupVersion === 'storage.orch.io/v1' && v?.version === 'v1'), 'versions of storage.orch.io', 'contains {groupVersion: "storage.orch.io/v1", version: "v1"}', g.versions);
      expectTrue(typeof g.preferredVersion?.groupVersion === 'string', 'preferredVersion of storage.orch.io', 'set', g.preferredVersion);
    },
  }),
  defineCase({
    ...common,
    id: 'api.discovery.group-version-resources',
    title: '/apis/storage.orch.io/v1 describes storageclasses: cluster-scoped, kind and verbs',
    requirements: ['000-4-discovery-group-version'],
    async run(ctx) {
      const list = expectObject(await ctx.api.get('/apis/storage.orch.io/v1'), [200], 'APIResourceList', 'GET /apis/storage.orch.io/v1');
      expectEqual(list.groupVersion, 'storage.orch.io/v1', 'groupVersion');
      const r = (list.resources ?? []).find((x: any) => x?.name === 'storageclasses');
      expectTrue(!!r, 'the storageclasses resource', 'present', (list.resources ?? []).map((x: any) => x?.name));
      expectEqual(r.kind, 'StorageClass', 'kind of storageclasses');
      expectEqual(r.namespaced, false, 'namespaced of storageclasses');
      expectEqual(r.singularName, 'storageclass', 'singularName of storageclasses');
      const need = ['create', 'delete', 'get', 'list', 'update', 'watch'];
      expectTrue(Array.isArray(r.verbs) && need.every((v) => r.verbs.includes(v)), 'verbs of storageclasses', `at least ${need.join(', ')}`, r.verbs);
    },
  }),
  defineCase({
    ...common,
    id: 'api.discovery.version',
    title: '/version reports the server version',
    requirements: ['000-4-version'],
    async run(ctx) {
      const res = await ctx.api.get('/version');
      expectCode(res, 200, 'GET /version');
      const v = res.json;
      expectTrue(!!v && typeof v.major === 'string' && typeof v.minor === 'string' && typeof v.gitVersion === 'string', 'the version document', 'an object with string major, minor and gitVersion', res.text);
    },
  }),
];
