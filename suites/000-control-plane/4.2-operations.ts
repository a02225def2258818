// Spec 000 §4.1 and §4.2: the collection path and the create, read, replace, delete and list
// operations, on StorageClass.
import { defineCase, type Case } from '../case.js';
import { expectEqual, expectObject, expectStatus, expectTrue } from '../verify.js';
import { createStorageClass, postStorageClass, storageClass, scItem, SC_PATH } from './fixtures.js';

const common = { suite: 'operations', spec: { doc: '000', section: '4.2' }, level: 'MUST', impact: 'cluster-scoped', needs: ['api'] } as const;

export const operationCases: Case[] = [
  defineCase({
    ...common,
    spec: { doc: '000', section: '4.1' },
    id: 'api.storageclass.collection-path',
    title: 'StorageClasses are served at /apis/storage.orch.io/v1/storageclasses',
    requirements: ['000-4.1-storageclass-path'],
    async run(ctx) {
      const sc = await createStorageClass(ctx);
      expectObject(await ctx.api.get(SC_PATH), [200], 'StorageClassList', `GET ${SC_PATH}`);
      const got = expectObject(await ctx.api.get(scItem(sc.metadata.name)), [200], 'StorageClass', `GET ${SC_PATH}/{name}`);
      expectEqual(got.metadata.name, sc.metadata.name, 'name of the object read at the item path');
    },
  }),
  defineCase({
    ...common,
    id: 'api.storageclass.create',
    title: 'Create returns 200, 201 or 202 with the stored object',
    requirements: ['000-4.2-create'],
    async run(ctx) {
      const body = storageClass(ctx, { parameters: { a: 'b' } });
      const sc = expectObject(await postStorageClass(ctx, body), [200, 201, 202], 'StorageClass', 'POST a StorageClass');
      expectEqual(sc.apiVersion, 'storage.orch.io/v1', 'apiVersion of the created object');
      expectEqual(sc.metadata.name, body.metadata.name, 'name of the created object');
      expectEqual(sc.provisioner, body.provisioner, 'provisioner of the created object');
      expectEqual(sc.metadata.labels, body.metadata.labels, 'labels of the created object');
      const got = expectObject(await ctx.api.get(scItem(sc.metadata.name)), [200], 'StorageClass', 'read back');
      expectEqual(got.metadata.uid, sc.metadata.uid, 'uid read back');
    },
  }),
  defineCase({
    ...common,
    id: 'api.storageclass.replace',
    title: 'Replace (PUT) returns the updated object and stores it',
    requirements: ['000-4.2-replace'],
    async run(ctx) {
      const sc = await createStorageClass(ctx, { allowVolumeExpansion: false, mountOptions: ['ro'] });
      const next = { ...sc, allowVolumeExpansion: true, mountOptions: ['rw', 'noatime'], metadata: { ...sc.metadata, labels: { ...sc.metadata.labels, replaced: 'yes' } } };
      const put = expectObject(await ctx.api.put(scItem(sc.metadata.name), next), [200, 201], 'StorageClass', 'PUT the StorageClass');
      expectEqual(put.allowVolumeExpansion, true, 'allowVolumeExpansion in the PUT response');
      const got = expectObject(await ctx.api.get(scItem(sc.metadata.name)), [200], 'StorageClass', 'read back');
      expectEqual(got.allowVolumeExpansion, true, 'allowVolumeExpansion read back');
      expectEqual(got.mountOptions, ['rw', 'noatime'], 'mountOptions read back');
      expectEqual(got.metadata.labels?.replaced, 'yes', 'label added by the replace');
    },
  }),
  defineCase({
    ...common,
    id: 'api.storageclass.delete.returns-object',
    title: 'Delete of a StorageClass returns the StorageClass, and it is gone',
    requirements: ['000-4.2-delete-returns-resource'],
    async run(ctx) {
      const sc = await createStorageClass(ctx);
      const gone = expectObject(await ctx.api.delete(scItem(sc.metadata.name)), [200, 202], 'StorageClass', 'DELETE the StorageClass');
      expectEqual(gone.metadata?.name, sc.metadata.name, 'name of the object in the delete response');
      expectStatus(await ctx.api.get(scItem(sc.metadata.name)), { code: 404, reason: 'NotFound' }, 'read after delete');
    },
  }),
  defineCase({
    ...common,
    id: 'api.storageclass.list',
    title: 'List returns every StorageClass, with a resourceVersion',
    requirements: ['000-4.2-list'],
    async run(ctx) {
      const a = await createStorageClass(ctx, {}, 'a');
      const b = await createStorageClass(ctx, {}, 'b');
      const list = expectObject(await ctx.api.get(SC_PATH), [200], 'StorageClassList', 'GET the collection');
      const names = (list.items ?? []).map((i: any) => i?.metadata?.name);
      expectTrue(names.includes(a.metadata.name) && names.includes(b.metadata.name), 'the list holds both StorageClasses just created', `${a.metadata.name} and ${b.metadata.name}`, names);
      expectTrue(typeof list.metadata?.resourceVersion === 'string' && list.metadata.resourceVersion !== '', 'metadata.resourceVersion of the list', 'a non-empty string', list.metadata?.resourceVersion);
      const item = list.items.find((i: any) => i?.metadata?.name === a.metadata.name);
      expectEqual(item.provisioner, a.provisioner, 'provisioner of a listed item');
    },
  }),
];
