// Spec 000 §7: error responses. The spec leaves the body shape to upstream: a Status object with
// code, reason and details (ground-truth note).
import { defineCase, type Case } from '../case.js';
import { expectEqual, expectStatus, expectTrue, expectRefused } from '../verify.js';
import { createStorageClass, postStorageClass, storageClass, scItem, SC_PATH } from './fixtures.js';

const common = { suite: 'errors', spec: { doc: '000', section: '7' }, level: 'SHOULD', impact: 'cluster-scoped', needs: ['api'] } as const;

export const errorCases: Case[] = [
  defineCase({
    ...common,
    impact: 'read-only',
    id: 'api.errors.not-found',
    title: 'A missing object is 404 NotFound with a Status body naming it',
    requirements: ['000-7-status-not-found', '000-7-status-body'],
    async run(ctx) {
      const name = ctx.uniqueName('missing');
      const s = expectStatus(await ctx.api.get(scItem(name)), { code: 404, reason: 'NotFound' }, 'GET of a StorageClass nobody created');
      expectEqual(s.apiVersion, 'v1', 'apiVersion of the Status');
      expectEqual(s.message, `storageclasses.storage.orch.io "${name}" not found`, 'message of the Status');
      expectEqual({ name: s.details?.name, group: s.details?.group, kind: s.details?.kind }, { name, group: 'storage.orch.io', kind: 'storageclasses' }, 'details of the Status');
    },
  }),
  defineCase({
    ...common,
    id: 'api.errors.already-exists',
    title: 'Creating a name that exists is 409 AlreadyExists',
    requirements: ['000-7-status-already-exists'],
    async run(ctx) {
      const sc = await createStorageClass(ctx);
      const again = storageClass(ctx, { metadata: { name: sc.metadata.name, labels: { ...ctx.labels } } });
      const s = expectStatus(await postStorageClass(ctx, again), { code: 409, reason: 'AlreadyExists' }, 'second create with the same name');
      expectEqual(s.message, `storageclasses.storage.orch.io "${sc.metadata.name}" already exists`, 'message of the Status');
    },
  }),
  defineCase({
    ...common,
    id: 'api.errors.invalid.one-cause-per-field',
    title: 'An object with several bad fields is 422 Invalid with one cause per field',
    requirements: ['000-7-status-invalid'],
    async run(ctx) {
      const body = storageClass(ctx, { reclaimPolicy: 'Shred', volumeBindingMode: 'Later' });
      delete body.provisioner;
      const s = await expectRefused(ctx.api, await postStorageClass(ctx, body), {
        code: 422, reason: 'Invalid',
        causes: [{ field: 'provisioner', reason: 'FieldValueRequired' }, { field: 'reclaimPolicy', reason: 'FieldValueNotSupported' }, { field: 'volumeBindingMode', reason: 'FieldValueNotSupported' }],
      }, 'create with three bad fields');
      expectEqual(s.details?.kind, 'StorageClass', 'details.kind of an Invalid Status');
      expectTrue(typeof s.message === 'string' && s.message.startsWith(`StorageClass.storage.orch.io "${body.metadata.name}" is invalid: [`), 'message of the Status', `StorageClass.storage.orch.io "${body.metadata.name}" is invalid: [...]`, s.message);
    },
  }),
  defineCase({
    ...common,
    id: 'api.errors.bad-request.malformed-json',
    title: 'A body that is not JSON is 400 BadRequest',
    requirements: ['000-7-status-bad-request'],
    async run(ctx) {
      const res = await ctx.api.post(SC_PATH, '{"apiVersion": "storage.orch.io/v1", "kind": "StorageClass", "metadata": {', { headers: { 'content-type': 'application/json' } });
      expectStatus(res, { code: 400, reason: 'BadRequest' }, 'POST of truncated JSON');
    },
  }),
  defineCase({
    ...common,
    impact: 'read-only',
    id: 'api.errors.method-not-allowed',
    title: 'PUT on a collection is 405 MethodNotAllowed',
    requirements: ['000-7-status-method-not-allowed'],
    async run(ctx) {
      // The body is invalid anyway, so even a server that wrongly accepted the verb changes nothing.
      expectStatus(await ctx.api.put(SC_PATH, { kind: 'StorageClassList', apiVersion: 'storage.orch.io/v1', items: [] }), { code: 405, reason: 'MethodNotAllowed' }, 'PUT on the StorageClass collection');
    },
  }),
  defineCase({
    ...common,
    id: 'api.errors.unsupported-media-type',
    title: 'A body in an unknown format is 415 UnsupportedMediaType',
    requirements: ['000-7-status-unsupported-media-type'],
    async run(ctx) {
      const body = storageClass(ctx);
      ctx.track(scItem(body.metadata.name));
      const res = await ctx.api.post(SC_PATH, JSON.stringify(body), { headers: { 'content-type': 'text/plain' } });
      expectStatus(res, { code: 415, reason: 'UnsupportedMediaType' }, 'POST with Content-Type text/plain');
    },
  }),
  defineCase({
    ...common,
    impact: 'read-only',
    id: 'api.errors.not-acceptable',
    title: 'Asking for a media type the server cannot produce is 406 NotAcceptable',
    requirements: ['000-7-status-not-acceptable'],
    async run(ctx) {
      expectStatus(await ctx.api.get(SC_PATH, { headers: { accept: 'application/xml' } }), { code: 406, reason: 'NotAcceptable' }, 'GET with Accept: application/xml');
    },
  }),
  defineCase({
    ...common,
    id: 'api.errors.request-entity-too-large',
    title: 'A request body over 3 MiB is 413 RequestEntityTooLarge',
    requirements: ['000-7-status-entity-too-large'],
    async run(ctx) {
      const body = storageClass(ctx, { parameters: { filler: 'x'.repeat(3 * 1024 * 1024 + 1024) } });
      const res = await postStorageClass(ctx, body);
      expectStatus(res, { code: 413, reason: 'RequestEntityTooLarge' }, 'POST of a 3 MiB + 1 KiB body');
    },
  }),
];
