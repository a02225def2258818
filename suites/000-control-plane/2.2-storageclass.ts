// Spec 000 §2.2 StorageClass: field rules, defaults and scope.
import { defineCase, type Case } from '../case.js';
import { expectEqual, expectObject, expectCode, expectRefused } from '../verify.js';
import { createStorageClass, postStorageClass, storageClass, scItem } from './fixtures.js';

const section = { doc: '000', section: '2.2' } as const;
const common = { suite: 'storageclass', spec: section, level: 'MUST', impact: 'cluster-scoped', needs: ['api'] } as const;

export const storageClassCases: Case[] = [
  defineCase({
    ...common,
    id: 'api.storageclass.provisioner.required',
    upstreamShape: true,
    title: 'A StorageClass without provisioner is rejected as Invalid',
    requirements: ['000-2.2-provisioner-required'],
    async run(ctx) {
      const body = storageClass(ctx);
      delete body.provisioner;
      const res = await postStorageClass(ctx, body);
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'provisioner', reason: 'FieldValueRequired' }] }, 'create without provisioner');
    },
  }),
  defineCase({
    ...common,
    id: 'api.storageclass.parameters.round-trip',
    title: 'parameters is stored and returned as a string map',
    requirements: ['000-2.2-parameters'],
    async run(ctx) {
      const parameters = { type: 'ssd', 'iops-per-gb': '10', 'conformance.orch.io/zone': 'a b c' };
      const sc = await createStorageClass(ctx, { parameters });
      expectEqual(sc.parameters, parameters, 'parameters of the created StorageClass');
      const got = expectObject(await ctx.api.get(scItem(sc.metadata.name)), [200], 'StorageClass', 'read back');
      expectEqual(got.parameters, parameters, 'parameters read back');
    },
  }),
  defineCase({
    ...common,
    id: 'api.storageclass.reclaim-policy.default',
    title: 'reclaimPolicy defaults to Delete',
    requirements: ['000-2.2-reclaim-policy-default'],
    async run(ctx) {
      const sc = await createStorageClass(ctx);
      expectEqual(sc.reclaimPolicy, 'Delete', 'reclaimPolicy of a StorageClass created without one');
    },
  }),
  defineCase({
    ...common,
    id: 'api.storageclass.reclaim-policy.allowed',
    title: 'reclaimPolicy accepts Delete, Recycle and Retain',
    requirements: ['000-2.2-reclaim-policy-values'],
    async run(ctx) {
      for (const reclaimPolicy of ['Delete', 'Recycle', 'Retain']) {
        const sc = await createStorageClass(ctx, { reclaimPolicy }, reclaimPolicy.toLowerCase());
        expectEqual(sc.reclaimPolicy, reclaimPolicy, `stored reclaimPolicy ${reclaimPolicy}`);
      }
    },
  }),
  defineCase({
    ...common,
    id: 'api.storageclass.reclaim-policy.unsupported',
    upstreamShape: true,
    title: 'A reclaimPolicy outside Delete, Recycle, Retain is rejected',
    requirements: ['000-2.2-reclaim-policy-values'],
    async run(ctx) {
      const res = await postStorageClass(ctx, storageClass(ctx, { reclaimPolicy: 'Shred' }));
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'reclaimPolicy', reason: 'FieldValueNotSupported' }] }, 'create with reclaimPolicy "Shred"');
    },
  }),
  defineCase({
    ...common,
    id: 'api.storageclass.volume-binding-mode.default',
    title: 'volumeBindingMode defaults to Immediate',
    requirements: ['000-2.2-volume-binding-mode-default'],
    async run(ctx) {
      const sc = await createStorageClass(ctx);
      expectEqual(sc.volumeBindingMode, 'Immediate', 'volumeBindingMode of a StorageClass created without one');
    },
  }),
  defineCase({
    ...common,
    id: 'api.storageclass.volume-binding-mode.allowed',
    title: 'volumeBindingMode accepts Immediate and WaitForFirstConsumer',
    requirements: ['000-2.2-volume-binding-mode-values'],
    async run(ctx) {
      for (const volumeBindingMode of ['Immediate', 'WaitForFirstConsumer']) {
        const sc = await createStorageClass(ctx, { volumeBindingMode }, volumeBindingMode.toLowerCase());
        expectEqual(sc.volumeBindingMode, volumeBindingMode, `stored volumeBindingMode ${volumeBindingMode}`);
      }
    },
  }),
  defineCase({
    ...common,
    id: 'api.storageclass.volume-binding-mode.unsupported',
    upstreamShape: true,
    title: 'A volumeBindingMode outside Immediate, WaitForFirstConsumer is rejected',
    requirements: ['000-2.2-volume-binding-mode-values'],
    async run(ctx) {
      const res = await postStorageClass(ctx, storageClass(ctx, { volumeBindingMode: 'Eventually' }));
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'volumeBindingMode', reason: 'FieldValueNotSupported' }] }, 'create with volumeBindingMode "Eventually"');
    },
  }),
  defineCase({
    ...common,
    id: 'api.storageclass.allow-volume-expansion.round-trip',
    title: 'allowVolumeExpansion is stored as a boolean',
    requirements: ['000-2.2-allow-volume-expansion'],
    async run(ctx) {
      for (const allowVolumeExpansion of [true, false]) {
        const sc = await createStorageClass(ctx, { allowVolumeExpansion }, String(allowVolumeExpansion));
        const got = expectObject(await ctx.api.get(scItem(sc.metadata.name)), [200], 'StorageClass', 'read back');
        expectEqual(got.allowVolumeExpansion, allowVolumeExpansion, 'allowVolumeExpansion read back');
      }
    },
  }),
  defineCase({
    ...common,
    id: 'api.storageclass.allowed-topologies.empty',
    title: 'An empty allowedTopologies list is accepted (no restriction)',
    requirements: ['000-2.2-allowed-topologies-empty-no-restriction'],
    async run(ctx) {
      const sc = await createStorageClass(ctx, { allowedTopologies: [] });
      expectEqual(sc.allowedTopologies ?? [], [], 'allowedTopologies of the created StorageClass');
    },
  }),
  defineCase({
    ...common,
    id: 'api.storageclass.allowed-topologies.values-required',
    upstreamShape: true,
    title: 'A topology label requirement without values is rejected',
    requirements: ['000-2.2-allowed-topologies-requirement-values-required'],
    async run(ctx) {
      const res = await postStorageClass(ctx, storageClass(ctx, {
        allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.orch.io/zone', values: [] }] }],
      }));
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'allowedTopologies[0].matchLabelExpressions[0].values', reason: 'FieldValueRequired' }] }, 'create with a requirement whose values are empty');
    },
  }),
  defineCase({
    ...common,
    id: 'api.storageclass.allowed-topologies.key-required',
    upstreamShape: true,
    title: 'A topology label requirement without key is rejected',
    requirements: ['000-2.2-allowed-topologies-requirement-key-required'],
    async run(ctx) {
      const res = await postStorageClass(ctx, storageClass(ctx, {
        allowedTopologies: [{ matchLabelExpressions: [{ values: ['zone-a'] }] }],
      }));
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'allowedTopologies[0].matchLabelExpressions[0].key' }] }, 'create with a requirement without key');
    },
  }),
  defineCase({
    ...common,
    id: 'api.storageclass.allowed-topologies.round-trip',
    title: 'allowedTopologies terms and their requirements are stored as given',
    requirements: ['000-2.2-topology-term-match-label-expressions'],
    async run(ctx) {
      const allowedTopologies = [
        { matchLabelExpressions: [{ key: 'topology.orch.io/zone', values: ['zone-a', 'zone-b'] }, { key: 'topology.orch.io/region', values: ['r1'] }] },
        { matchLabelExpressions: [{ key: 'topology.orch.io/zone', values: ['zone-c'] }] },
      ];
      const sc = await createStorageClass(ctx, { allowedTopologies });
      const got = expectObject(await ctx.api.get(scItem(sc.metadata.name)), [200], 'StorageClass', 'read back');
      expectEqual(got.allowedTopologies, allowedTopologies, 'allowedTopologies read back');
    },
  }),
  defineCase({
    ...common,
    id: 'api.storageclass.mount-options.not-validated',
    title: 'mountOptions are stored verbatim, without validation',
    requirements: ['000-2.2-mount-options-not-validated'],
    async run(ctx) {
      const mountOptions = ['debug', 'nfsvers=4.1', 'not a real option!', '--weird=yes,really'];
      const sc = await createStorageClass(ctx, { mountOptions });
      expectEqual(sc.mountOptions, mountOptions, 'mountOptions of the created StorageClass');
    },
  }),
  defineCase({
    ...common,
    id: 'api.storageclass.scope.cluster',
    title: 'StorageClass is cluster-scoped: no namespace, no namespaced path',
    requirements: ['000-2.2-cluster-scoped'],
    async run(ctx) {
      const sc = await createStorageClass(ctx);
      expectEqual(sc.metadata.namespace ?? '', '', 'metadata.namespace of the created StorageClass');
      const res = await ctx.api.get(`/apis/storage.orch.io/v1/namespaces/default/storageclasses/${encodeURIComponent(sc.metadata.name)}`);
      expectCode(res, 404, 'reading the StorageClass through a namespaced path');
    },
  }),
];
