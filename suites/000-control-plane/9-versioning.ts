// Spec 000 §9 Versioning: each resource is served at the group version of the §9 table, and the server
// is release 1.37. The table's group versions are written out here as the spec gives them, so that a
// wrong entry in KINDS cannot hide a wrong server. The other §9 statements are checked where their
// behaviour lives: the fieldValidation default (Warn) by api.write-params.field-validation.default-warn,
// orphanDependents still honoured as deprecated by api.delete.orphan-dependents.true, the PodGroup field
// gates by the api.podgroup.*.not-stored-gate-off cases and the GenericWorkload gate by api.podgroup.api.gated;
// the shardSelector's alpha stage here (its gate is off by default).
import { defineCase, type Case } from '../case.js';
import { expectCode, expectEqual, expectObject, expectTrue } from '../verify.js';
import { collectionPath, createObject, itemPath, kindCommon, KINDS, type ResourceKind } from './kinds.js';
import { groupVersionPath } from './4-surface.js';

/** §9: the apiVersion each kind is served as, and the requirement that says so. */
const SERVED_AS: Readonly<Record<string, { apiVersion: string; requirement: string }>> = {
  StorageClass: { apiVersion: 'storage.orch.io/v1', requirement: '000-9-storageclass-version' },
  StorageVersionMigration: { apiVersion: 'storagemigration.orch.io/v1', requirement: '000-9-storageversionmigration-version' },
  ResourceQuota: { apiVersion: 'v1', requirement: '000-9-resourcequota-version' },
  EvictionRequest: { apiVersion: 'lifecycle.orch.io/v1alpha1', requirement: '000-9-evictionrequest-version' },
  PodGroup: { apiVersion: 'scheduling.orch.io/v1beta1', requirement: '000-9-podgroup-version' },
  Event: { apiVersion: 'events.orch.io/v1', requirement: '000-9-event-version' },
  ClusterRole: { apiVersion: 'rbac.authorization.orch.io/v1', requirement: '000-9-rbac-version' },
  ClusterRoleBinding: { apiVersion: 'rbac.authorization.orch.io/v1', requirement: '000-9-rbac-version' },
  Role: { apiVersion: 'rbac.authorization.orch.io/v1', requirement: '000-9-rbac-version' },
  RoleBinding: { apiVersion: 'rbac.authorization.orch.io/v1', requirement: '000-9-rbac-version' },
};

/** One case per kind: discovery advertises the group version and the kind in it, and objects carry it. */
export function versionCaseFor(k: ResourceKind): Case[] {
  const want = SERVED_AS[k.kind];
  if (!want) return [];
  const [group, version] = want.apiVersion.includes('/') ? want.apiVersion.split('/') as [string, string] : ['', want.apiVersion];
  return [defineCase({
    ...kindCommon(k, 'versioning'),
    spec: { doc: '000', section: '9' },
    level: 'MUST',
    id: `api.${k.kind.toLowerCase()}.served-version`,
    title: `${k.kind} is served as ${want.apiVersion}: discovery advertises it and objects carry that apiVersion`,
    requirements: [want.requirement],
    async run(ctx) {
      if (group) {
        const groups = expectObject(await ctx.api.get('/apis'), [200], 'APIGroupList', 'GET /apis');
        const versions = (groups.groups ?? []).filter((g: any) => g?.name === group).flatMap((g: any) => (g.versions ?? []).map((v: any) => v?.groupVersion));
        expectTrue(versions.includes(want.apiVersion), `versions of group ${group} in /apis`, `${want.apiVersion} among them`, versions);
      } else {
        const core = expectObject(await ctx.api.get('/api'), [200], 'APIVersions', 'GET /api');
        expectTrue(Array.isArray(core.versions) && core.versions.includes(version), 'versions of /api', `${version} among them`, core.versions);
      }
      const gv = groupVersionPath(want.apiVersion);
      const list = expectObject(await ctx.api.get(gv), [200], 'APIResourceList', `GET ${gv}`);
      expectEqual(list.groupVersion, want.apiVersion, `groupVersion of ${gv}`);
      const entry = (list.resources ?? []).find((r: any) => r?.name === k.plural);
      expectEqual(entry?.kind, k.kind, `the ${k.plural} resource in ${gv}`);
      const o = await createObject(ctx, k);
      expectEqual(o.apiVersion, want.apiVersion, `apiVersion of the created ${k.kind}`);
      const got = expectObject(await ctx.api.get(itemPath(k, ctx.namespace, o.metadata.name)), [200], k.kind, `GET ${itemPath(k, ctx.namespace, o.metadata.name)}`);
      expectEqual(got.apiVersion, want.apiVersion, `apiVersion of the ${k.kind} read back`);
    },
  })];
}

const STORAGE_CLASS = KINDS.find((k) => k.kind === 'StorageClass')!;

export const versioningCases: Case[] = [
  ...KINDS.flatMap(versionCaseFor),
  defineCase({
    suite: 'versioning',
    spec: { doc: '000', section: '9' },
    level: 'SHOULD',
    impact: 'read-only',
    needs: ['api'],
    id: 'api.versioning.release',
    title: '/version reports release 1.37 (major "1", minor "37", gitVersion v1.37.x)',
    requirements: ['000-9-release'],
    async run(ctx) {
      const res = await ctx.api.get('/version');
      expectCode(res, 200, 'GET /version');
      const v = res.json ?? {};
      // Upstream appends "+" to minor for builds past the tag.
      expectEqual({ major: v.major, minor: String(v.minor ?? '').replace(/\+$/, '') }, { major: '1', minor: '37' }, 'major and minor of /version');
      expectTrue(typeof v.gitVersion === 'string' && /^v1\.37\.\d+/.test(v.gitVersion), 'gitVersion of /version', 'v1.37.<patch>', v.gitVersion);
    },
  }),
  defineCase({
    ...kindCommon(STORAGE_CLASS, 'versioning'),
    spec: { doc: '000', section: '9' },
    level: 'MUST',
    // Alpha: off unless turned on, so the case wants the gate in its default state.
    gates: { ShardedListAndWatch: false },
    id: 'api.versioning.shard-selector-alpha',
    title: 'shardSelector is alpha: with ShardedListAndWatch off (its default) a list ignores it and reports no shardInfo',
    requirements: ['000-9-shard-selector-alpha'],
    async run(ctx) {
      const o = await createObject(ctx, STORAGE_CLASS);
      // An empty shard range: honoured, it would select nothing.
      const shardSelector = "shardRange(object.metadata.uid, '0x0000000000000000', '0x0000000000000000')";
      const path = collectionPath(STORAGE_CLASS, ctx.namespace);
      const list = expectObject(await ctx.api.get(path, { query: { shardSelector } }), [200], 'StorageClassList', `GET ${path}?shardSelector=${shardSelector}`);
      const names = (Array.isArray(list.items) ? list.items : []).map((i: any) => i?.metadata?.name);
      expectTrue(names.includes(o.metadata.name), 'the list, with the shard selector ignored', `${o.metadata.name} among the items`, names);
      expectEqual(list.metadata?.shardInfo, undefined, 'metadata.shardInfo of the list');
    },
  }),
];
