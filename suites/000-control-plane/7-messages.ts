// Spec 000 §7 (ground truth): the texts of field errors and of refused query options. Each field
// error form is provoked once, on the simplest kind that has it, and read both in its cause and in
// the Status message (`<Kind>.<group> "<name>" is invalid: <field>: <text>`). Bad query options are
// refused as an invalid object of the options kind with an empty name:
// `ListOptions.meta.orch.io "" is invalid: ...` (likewise DeleteOptions, PatchOptions,
// CreateOptions, UpdateOptions).
import { defineCase, type Case, type CaseContext } from '../case.js';
import type { ApiResponse } from '../../runner/client.js';
import { expectEqual, expectTrue, show, expectRefused } from '../verify.js';
import { createStorageClass, postStorageClass, scItem, SC_PATH, storageClass } from './fixtures.js';
import { createObject, itemPath } from './kinds.js';
import { STORAGE_VERSION_MIGRATION } from './kinds-quota-events.js';

const common = { suite: 'errors', spec: { doc: '000', section: '7' }, level: 'SHOULD', impact: 'cluster-scoped', needs: ['api'] } as const;
const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' };

interface FieldErrorForm {
  /** Short id: api.errors.field-message.<slug>. */
  readonly slug: string;
  readonly title: string;
  /** The cause's field and reason. */
  readonly field: string;
  readonly reason: string;
  /** Makes the request; gives the response and the name the Status message carries. */
  provoke(ctx: CaseContext): Promise<{ res: ApiResponse; kindGroup: string; name: string; what: string }>;
  /** The cause message as the ground truth writes it: exact, or a test with its description. */
  readonly text: string | { readonly test: (m: string) => boolean; readonly shown: string };
}

const SC = 'StorageClass.storage.orch.io';

export const FIELD_ERROR_FORMS: readonly FieldErrorForm[] = [
  {
    slug: 'required',
    title: '`Required value`: a StorageClass without provisioner',
    field: 'provisioner',
    reason: 'FieldValueRequired',
    text: 'Required value',
    async provoke(ctx) {
      const body = storageClass(ctx, {}, 'req');
      delete body.provisioner;
      return { res: await postStorageClass(ctx, body), kindGroup: SC, name: body.metadata.name, what: 'POST of a StorageClass without provisioner' };
    },
  },
  {
    slug: 'forbidden',
    title: '`Forbidden: <detail>`: metadata.namespace on a cluster-scoped kind',
    field: 'metadata.namespace',
    reason: 'FieldValueForbidden',
    text: 'Forbidden: not allowed on this type',
    async provoke(ctx) {
      const body = storageClass(ctx, {}, 'fbd');
      body.metadata.namespace = 'default';
      return { res: await postStorageClass(ctx, body), kindGroup: SC, name: body.metadata.name, what: 'POST of a StorageClass with metadata.namespace' };
    },
  },
  {
    slug: 'invalid',
    title: '`Invalid value: "<value>": <detail>`: a name that is no DNS-1123 subdomain',
    field: 'metadata.name',
    reason: 'FieldValueInvalid',
    text: { test: (m) => m.startsWith('Invalid value: "Bad_Name": ') && m.length > 'Invalid value: "Bad_Name": '.length, shown: 'Invalid value: "Bad_Name": <detail>' },
    async provoke(ctx) {
      const body = storageClass(ctx, {}, 'inv');
      body.metadata.name = 'Bad_Name';
      return { res: await ctx.api.post(SC_PATH, body), kindGroup: SC, name: 'Bad_Name', what: 'POST of a StorageClass named Bad_Name' };
    },
  },
  {
    slug: 'unsupported',
    title: '`Unsupported value: "<value>": supported values: "a", "b"`: an unknown reclaimPolicy',
    field: 'reclaimPolicy',
    reason: 'FieldValueNotSupported',
    text: 'Unsupported value: "Sometimes": supported values: "Delete", "Recycle", "Retain"',
    async provoke(ctx) {
      const body = storageClass(ctx, { reclaimPolicy: 'Sometimes' }, 'uns');
      return { res: await postStorageClass(ctx, body), kindGroup: SC, name: body.metadata.name, what: 'POST of a StorageClass with reclaimPolicy Sometimes' };
    },
  },
  {
    slug: 'too-long',
    title: '`Too long: may not be more than <N> bytes`: annotations over 256 KiB',
    field: 'metadata.annotations',
    reason: 'FieldValueTooLong',
    text: 'Too long: may not be more than 262144 bytes',
    async provoke(ctx) {
      const body = storageClass(ctx, {}, 'long');
      body.metadata.annotations = { 'conformance.orch.io/big': 'x'.repeat(262_144) };
      return { res: await postStorageClass(ctx, body), kindGroup: SC, name: body.metadata.name, what: 'POST of a StorageClass with 256 KiB of annotations' };
    },
  },
  {
    slug: 'immutable',
    title: '`field is immutable`: a changed StorageVersionMigration spec.resource',
    field: 'spec.resource',
    reason: 'FieldValueInvalid',
    text: { test: (m) => m.endsWith('field is immutable'), shown: '... field is immutable' },
    async provoke(ctx) {
      const o = await createObject(ctx, STORAGE_VERSION_MIGRATION, {}, 'imm');
      const res = await ctx.api.request('PATCH', itemPath(STORAGE_VERSION_MIGRATION, '', o.metadata.name), { body: { spec: { resource: { group: 'conformance.orch.io', resource: 'changed' } } }, headers: MERGE_PATCH });
      return { res, kindGroup: 'StorageVersionMigration.storagemigration.orch.io', name: o.metadata.name, what: 'merge patch of spec.resource of a StorageVersionMigration' };
    },
  },
];

function fieldMessageCase(f: FieldErrorForm): Case {
  return defineCase({
    ...common,
    id: `api.errors.field-message.${f.slug}`,
    title: `Field error text ${f.title}`,
    requirements: ['000-7-status-field-error-messages'],
    async run(ctx) {
      const { res, kindGroup, name, what } = await f.provoke(ctx);
      const s = await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: f.field, reason: f.reason }] }, what);
      const cause = (Array.isArray(s.details?.causes) ? (s.details.causes as any[]) : []).find((c) => c?.field === f.field && c?.reason === f.reason);
      const m = String(cause?.message ?? '');
      if (typeof f.text === 'string') expectEqual(cause?.message, f.text, `message of the ${f.field} cause`);
      else expectTrue(f.text.test(m), `message of the ${f.field} cause`, f.text.shown, show(cause?.message));
      // The Status message carries the same text after `<Kind>.<group> "<name>" is invalid: <field>: `.
      const head = `${kindGroup} "${name}" is invalid: `;
      const msg = String(s.message ?? '');
      expectTrue(msg.startsWith(head) && msg.includes(`${f.field}: ${m}`), 'message of the Status', `${head}...${f.field}: ${m}...`, show(s.message));
    },
  });
}

interface OptionsForm {
  readonly kind: 'ListOptions' | 'DeleteOptions' | 'PatchOptions' | 'CreateOptions' | 'UpdateOptions';
  readonly field: string;
  readonly title: string;
  provoke(ctx: CaseContext): Promise<{ res: ApiResponse; what: string }>;
}

export const OPTIONS_FORMS: readonly OptionsForm[] = [
  {
    kind: 'ListOptions',
    field: 'resourceVersionMatch',
    title: 'a list with resourceVersionMatch=Newest',
    async provoke(ctx) {
      return { res: await ctx.api.get(SC_PATH, { query: { resourceVersion: '1', resourceVersionMatch: 'Newest' } }), what: 'list of StorageClasses with resourceVersionMatch=Newest' };
    },
  },
  {
    kind: 'DeleteOptions',
    field: 'propagationPolicy',
    title: 'a delete with propagationPolicy=Sometimes',
    async provoke(ctx) {
      const o = await createStorageClass(ctx, {}, 'dopt');
      return { res: await ctx.api.delete(scItem(o.metadata.name), { query: { propagationPolicy: 'Sometimes' } }), what: 'DELETE with propagationPolicy=Sometimes' };
    },
  },
  {
    kind: 'PatchOptions',
    field: 'force',
    title: 'a merge patch with force=true',
    async provoke(ctx) {
      const o = await createStorageClass(ctx, {}, 'popt');
      return { res: await ctx.api.request('PATCH', scItem(o.metadata.name), { body: { allowVolumeExpansion: true }, headers: MERGE_PATCH, query: { force: 'true' } }), what: 'merge patch with force=true' };
    },
  },
  {
    kind: 'CreateOptions',
    field: 'dryRun',
    title: 'a create with dryRun=Bad',
    async provoke(ctx) {
      const body = storageClass(ctx, {}, 'copt');
      ctx.track(scItem(body.metadata.name));
      return { res: await ctx.api.post(SC_PATH, body, { query: { dryRun: 'Bad' } }), what: 'POST with dryRun=Bad' };
    },
  },
  {
    kind: 'UpdateOptions',
    field: 'dryRun',
    title: 'a replace with dryRun=Bad',
    async provoke(ctx) {
      const o = await createStorageClass(ctx, {}, 'uopt');
      return { res: await ctx.api.put(scItem(o.metadata.name), o, { query: { dryRun: 'Bad' } }), what: 'PUT with dryRun=Bad' };
    },
  },
];

function optionsCase(f: OptionsForm): Case {
  return defineCase({
    ...common,
    impact: f.kind === 'ListOptions' ? 'read-only' : 'cluster-scoped',
    id: `api.errors.invalid-options.${f.kind.toLowerCase()}`,
    title: `Bad query options are 422 Invalid of ${f.kind}.meta.orch.io with an empty name: ${f.title}`,
    requirements: ['000-7-status-invalid-options'],
    async run(ctx) {
      const { res, what } = await f.provoke(ctx);
      const s = await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: f.field }] }, what);
      const head = `${f.kind}.meta.orch.io "" is invalid: ${f.field}: `;
      expectTrue(typeof s.message === 'string' && s.message.startsWith(head), 'message of the Status', `${head}...`, show(s.message));
      expectEqual({ group: s.details?.group, kind: s.details?.kind, name: s.details?.name ?? '' }, { group: 'meta.orch.io', kind: f.kind, name: '' }, 'details of the Status (group, kind, empty name)');
    },
  });
}

export const messageCases: Case[] = [...FIELD_ERROR_FORMS.map(fieldMessageCase), ...OPTIONS_FORMS.map(optionsCase)];
