// Spec 000 §2.1 common shape: list shape and the ObjectMeta rules the spec leaves to upstream
// behaviour (ground-truth note), exercised on StorageClass as the one resource every target serves.
import { defineCase, type Case } from '../case.js';
import { expectCode, expectEqual, expectObject, expectStatus, expectTrue, fail, SUCCESS, expectRefused } from '../verify.js';
import { createStorageClass, postStorageClass, storageClass, scItem, SC_PATH, SC_GROUP_VERSION } from './fixtures.js';

const section = { doc: '000', section: '2.1' } as const;
const common = { suite: 'metadata', spec: section, level: 'SHOULD', impact: 'cluster-scoped', needs: ['api'] } as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export const commonShapeCases: Case[] = [
  defineCase({
    ...common,
    level: 'MUST',
    id: 'api.common.list.shape',
    title: 'A list is a <Kind>List with apiVersion, items, kind and metadata',
    requirements: ['000-2.1-list-shape'],
    async run(ctx) {
      const sc = await createStorageClass(ctx);
      const list = expectObject(await ctx.api.get(SC_PATH), [200], 'StorageClassList', 'listing StorageClasses');
      expectEqual(list.apiVersion, SC_GROUP_VERSION, 'apiVersion of the list');
      expectTrue(Array.isArray(list.items), 'items of the list', 'an array', list.items);
      expectTrue(!!list.metadata && typeof list.metadata === 'object', 'metadata of the list', 'a ListMeta object', list.metadata);
      expectTrue(list.items.some((i: any) => i?.metadata?.name === sc.metadata.name), 'the list holds the StorageClass just created', sc.metadata.name, list.items.map((i: any) => i?.metadata?.name));
    },
  }),
  defineCase({
    ...common,
    id: 'api.metadata.name.required',
    title: 'An object without name or generateName is rejected',
    requirements: ['000-2.1-metadata-name-required'],
    async run(ctx) {
      const body = storageClass(ctx);
      delete body.metadata.name;
      const res = await postStorageClass(ctx, body);
      if (res.status < 300 && res.json?.metadata?.name) ctx.track(scItem(res.json.metadata.name));
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'metadata.name', reason: 'FieldValueRequired' }] }, 'create without metadata.name');
    },
  }),
  defineCase({
    ...common,
    id: 'api.metadata.name.format',
    title: 'A name that is not a DNS-1123 subdomain is rejected',
    requirements: ['000-2.1-metadata-name-format'],
    async run(ctx) {
      for (const name of [`${ctx.uniqueName('upper')}-UPPER`, `${ctx.uniqueName('u')}_underscore`, `${ctx.uniqueName('long')}-${'a'.repeat(250)}`]) {
        const res = await postStorageClass(ctx, storageClass(ctx, { metadata: { name, labels: { ...ctx.labels } } }));
        await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'metadata.name', reason: 'FieldValueInvalid' }] }, `create with name ${JSON.stringify(name.slice(0, 40))}${name.length > 40 ? '…' : ''}`);
      }
    },
  }),
  defineCase({
    ...common,
    id: 'api.metadata.generate-name',
    title: 'generateName yields a unique name that starts with the prefix',
    requirements: ['000-2.1-metadata-generate-name'],
    async run(ctx) {
      const prefix = `${ctx.uniqueName('gen')}-`;
      const names: string[] = [];
      for (let i = 0; i < 2; i++) {
        const res = await ctx.api.post(SC_PATH, storageClass(ctx, { metadata: { generateName: prefix, labels: { ...ctx.labels } } }));
        if (res.json?.metadata?.name) ctx.track(scItem(res.json.metadata.name));
        const sc = expectObject(res, SUCCESS.create, 'StorageClass', 'create with generateName');
        expectTrue(typeof sc.metadata.name === 'string' && sc.metadata.name.startsWith(prefix) && sc.metadata.name.length > prefix.length,
          'generated name', `a name starting with ${JSON.stringify(prefix)} followed by generated characters`, sc.metadata.name);
        names.push(sc.metadata.name);
      }
      expectTrue(names[0] !== names[1], 'two objects created from one generateName get different names', 'two distinct names', names);
    },
  }),
  defineCase({
    ...common,
    id: 'api.metadata.system-fields',
    title: 'The server sets uid, resourceVersion, generation and creationTimestamp',
    requirements: ['000-2.1-metadata-system-fields'],
    async run(ctx) {
      const sc = await createStorageClass(ctx);
      const m = sc.metadata;
      expectTrue(typeof m.uid === 'string' && UUID.test(m.uid), 'metadata.uid', 'a UUID', m.uid);
      expectTrue(typeof m.resourceVersion === 'string' && m.resourceVersion.length > 0, 'metadata.resourceVersion', 'a non-empty string', m.resourceVersion);
      expectTrue(typeof m.creationTimestamp === 'string' && RFC3339.test(m.creationTimestamp), 'metadata.creationTimestamp', 'an RFC 3339 time', m.creationTimestamp);
      expectTrue(m.generation === undefined || m.generation === 1, 'metadata.generation of a new object', '1 (or unset)', m.generation);
    },
  }),
  defineCase({
    ...common,
    id: 'api.metadata.system-fields.not-from-client',
    title: 'uid and creationTimestamp sent by the client on create are replaced by the server',
    requirements: ['000-2.1-metadata-system-fields'],
    async run(ctx) {
      const uid = '00000000-0000-4000-8000-000000000000';
      const creationTimestamp = '2001-01-01T00:00:00Z';
      const body = storageClass(ctx);
      body.metadata.uid = uid;
      body.metadata.creationTimestamp = creationTimestamp;
      const sc = expectObject(await postStorageClass(ctx, body), SUCCESS.create, 'StorageClass', 'create with client-chosen uid and creationTimestamp');
      expectTrue(sc.metadata.uid !== uid, 'metadata.uid', 'a server-generated uid', sc.metadata.uid);
      expectTrue(sc.metadata.creationTimestamp !== creationTimestamp, 'metadata.creationTimestamp', 'the server time of creation', sc.metadata.creationTimestamp);
    },
  }),
  defineCase({
    ...common,
    id: 'api.metadata.resource-version.changes',
    title: 'resourceVersion changes on every write',
    requirements: ['000-2.1-metadata-resource-version-changes'],
    async run(ctx) {
      const sc = await createStorageClass(ctx);
      const seen = [sc.metadata.resourceVersion];
      let cur = sc;
      for (let i = 0; i < 2; i++) {
        cur = { ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata.labels, step: String(i) } } };
        cur = expectObject(await ctx.api.put(scItem(sc.metadata.name), cur), SUCCESS.replace, 'StorageClass', `update ${i + 1}`);
        seen.push(cur.metadata.resourceVersion);
      }
      expectTrue(new Set(seen).size === seen.length, 'resourceVersion after each write', 'three different values', seen);
    },
  }),
  defineCase({
    ...common,
    id: 'api.metadata.optimistic-concurrency',
    title: 'An update carrying a stale resourceVersion is refused with 409 Conflict',
    requirements: ['000-2.1-metadata-optimistic-concurrency', '000-7-status-conflict'],
    async run(ctx) {
      const sc = await createStorageClass(ctx);
      const first = { ...sc, metadata: { ...sc.metadata, labels: { ...sc.metadata.labels, writer: 'first' } } };
      expectObject(await ctx.api.put(scItem(sc.metadata.name), first), SUCCESS.replace, 'StorageClass', 'first update with the current resourceVersion');
      const stale = { ...sc, metadata: { ...sc.metadata, labels: { ...sc.metadata.labels, writer: 'second' } } };
      const res = await ctx.api.put(scItem(sc.metadata.name), stale);
      const s = expectStatus(res, { code: 409, reason: 'Conflict' }, 'second update with the old resourceVersion');
      expectTrue(typeof s.message === 'string' && s.message.includes('the object has been modified'), 'Conflict message', 'mentions "the object has been modified"', s.message);
      const got = expectObject(await ctx.api.get(scItem(sc.metadata.name)), [200], 'StorageClass', 'read back');
      expectEqual(got.metadata.labels?.writer, 'first', 'the stored object keeps the first writer\'s change');
    },
  }),
  defineCase({
    ...common,
    id: 'api.metadata.creation-timestamp.immutable',
    title: 'An update cannot change creationTimestamp',
    requirements: ['000-2.1-metadata-immutable-fields'],
    async run(ctx) {
      const sc = await createStorageClass(ctx);
      const changed = { ...sc, metadata: { ...sc.metadata, creationTimestamp: '2001-01-01T00:00:00Z' } };
      await ctx.api.put(scItem(sc.metadata.name), changed);
      // Upstream either refuses the change or ignores it; either way the stored value stays.
      const got = expectObject(await ctx.api.get(scItem(sc.metadata.name)), [200], 'StorageClass', 'read back');
      expectEqual(got.metadata.creationTimestamp, sc.metadata.creationTimestamp, 'creationTimestamp after an update that tried to change it');
    },
  }),
  defineCase({
    ...common,
    id: 'api.metadata.labels.value-too-long',
    title: 'A label value over 63 characters is rejected',
    requirements: ['000-2.1-metadata-labels'],
    async run(ctx) {
      const body = storageClass(ctx);
      body.metadata.labels['conformance.orch.io/long'] = 'v'.repeat(64);
      const res = await postStorageClass(ctx, body);
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'metadata.labels' }] }, 'create with a 64-character label value');
    },
  }),
  defineCase({
    ...common,
    id: 'api.metadata.labels.key-format',
    title: 'A label key that is not a qualified name is rejected',
    requirements: ['000-2.1-metadata-labels'],
    async run(ctx) {
      const body = storageClass(ctx);
      body.metadata.labels['not a/valid/key'] = 'x';
      const res = await postStorageClass(ctx, body);
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'metadata.labels' }] }, 'create with label key "not a/valid/key"');
    },
  }),
  defineCase({
    ...common,
    id: 'api.metadata.annotations.size',
    title: 'Annotations over 262144 bytes in total are rejected, at the limit accepted',
    requirements: ['000-2.1-metadata-annotations-size'],
    async run(ctx) {
      const key = 'conformance.orch.io/blob';
      const over = storageClass(ctx, {}, 'over');
      over.metadata.annotations = { [key]: 'x'.repeat(262144 - key.length + 1) };
      await expectRefused(ctx.api, await postStorageClass(ctx, over), { code: 422, reason: 'Invalid', causes: [{ field: 'metadata.annotations', reason: 'FieldValueTooLong' }] }, 'create with 262145 bytes of annotations');
      const atLimit = storageClass(ctx, {}, 'limit');
      atLimit.metadata.annotations = { [key]: 'x'.repeat(262144 - key.length) };
      expectObject(await postStorageClass(ctx, atLimit), SUCCESS.create, 'StorageClass', 'create with exactly 262144 bytes of annotations');
    },
  }),
  defineCase({
    ...common,
    id: 'api.metadata.namespace.forbidden-on-cluster-scoped',
    title: 'metadata.namespace on a cluster-scoped object is forbidden',
    requirements: ['000-2.1-metadata-cluster-scoped-namespace'],
    async run(ctx) {
      const body = storageClass(ctx);
      body.metadata.namespace = 'default';
      const res = await postStorageClass(ctx, body);
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'metadata.namespace', reason: 'FieldValueForbidden' }] }, 'create a StorageClass with metadata.namespace "default"');
    },
  }),
  defineCase({
    ...common,
    id: 'api.metadata.finalizers.hold-deletion',
    title: 'Deleting an object with finalizers marks it and keeps it until they are removed',
    requirements: ['000-2.1-metadata-finalizers'],
    async run(ctx) {
      const body = storageClass(ctx);
      body.metadata.finalizers = ['conformance.orch.io/hold'];
      const sc = expectObject(await postStorageClass(ctx, body), SUCCESS.create, 'StorageClass', 'create with a finalizer');
      const del = await ctx.api.delete(scItem(sc.metadata.name));
      expectCode(del, [200, 202], 'delete of an object with a finalizer');
      const held = expectObject(await ctx.api.get(scItem(sc.metadata.name)), [200], 'StorageClass', 'read after delete: the object is still there');
      expectTrue(typeof held.metadata.deletionTimestamp === 'string', 'metadata.deletionTimestamp after delete', 'set', held.metadata.deletionTimestamp);
      const released = { ...held, metadata: { ...held.metadata, finalizers: [] } };
      expectCode(await ctx.api.put(scItem(sc.metadata.name), released), SUCCESS.replace, 'update removing the finalizer');
      const gone = await ctx.api.get(scItem(sc.metadata.name));
      if (gone.status !== 404) fail('the object is removed once its finalizers are empty', 'HTTP 404 on read', `HTTP ${gone.status}`);
    },
  }),
];
