// Spec 000 §4.2 server-side apply (`application/apply-patch+yaml`) and metadata.managedFields: apply
// creating objects, fieldManager required (§4.3, §7), conflicts and force (§4.3), removal of fields an
// applier drops, and the Apply and Update entries every write leaves (upstream field manager).
import { defineCase, type Case, type CaseContext } from '../case.js';
import type { ApiResponse } from '../../runner/client.js';
import { upstream } from '../findings.js';
import { expectCode, expectEqual, expectObject, expectStatus, expectTrue, show, SUCCESS, expectEntries, expectRefused } from '../verify.js';
import { skipUnsupportedPatch } from './spec-freedoms.js';
import { itemPath, kindCommon, newObject } from './kinds.js';
import { createStorageClass, scItem, storageClass, SC_PATH } from './fixtures.js';
import { FIXED_TIME, STORAGE_VERSION_MIGRATION as SVM } from './kinds-quota-events.js';
import { APPLY, MERGE_PATCH, patch } from './4.2-patch.js';

const common = { suite: 'apply', needs: ['api'] as const, impact: 'cluster-scoped' as const };
const at = (section: string) => ({ spec: { doc: '000' as const, section } });

/** Applies `config` (an object, sent as JSON, which is YAML too) as `manager` (none when undefined). */
function apply(ctx: CaseContext, path: string, config: unknown, manager: string | undefined, extra: Record<string, string> = {}): Promise<ApiResponse> {
  return patch(ctx, path, config, APPLY, { ...(manager === undefined ? {} : { fieldManager: manager }), ...extra });
}

/** A StorageClass configuration with a run-unique name (tracked for cleanup) and these fields. */
function scConfig(ctx: CaseContext, fields: Record<string, unknown> = {}): { config: any; path: string } {
  const config = storageClass(ctx, fields, 'apply');
  const path = scItem(config.metadata.name);
  ctx.track(path);
  return { config, path };
}

const entries = (o: any): any[] => (Array.isArray(o?.metadata?.managedFields) ? o.metadata.managedFields : []);
const entryOf = (o: any, manager: string, operation: string): any => entries(o).find((e) => e?.manager === manager && e?.operation === operation);

function expectEntry(o: any, manager: string, operation: 'Apply' | 'Update', what: string): any {
  const e = entryOf(o, manager, operation);
  if (!e) expectTrue(false, `${what}: a managedFields entry for ${manager} (${operation})`, `an entry {manager: ${show(manager)}, operation: ${operation}}`, entries(o).map((x) => ({ manager: x?.manager, operation: x?.operation })));
  return e;
}

/** The fieldsV1 path (`f:metadata`, `f:labels`, ...) exists in the entry. */
function expectOwns(e: any, path: readonly string[], what: string): void {
  let node = e?.fieldsV1;
  for (const p of path) node = node && typeof node === 'object' ? node[p] : undefined;
  expectTrue(node !== undefined && node !== null && typeof node === 'object', what, `fieldsV1 holding ${path.join(' → ')}`, e?.fieldsV1);
}

function expectNotOwns(e: any, path: readonly string[], what: string): void {
  let node = e?.fieldsV1;
  for (const p of path) node = node && typeof node === 'object' ? node[p] : undefined;
  expectTrue(node === undefined, what, `fieldsV1 without ${path.join(' → ')}`, e?.fieldsV1);
}

export const applyCases: Case[] = [
  defineCase({
    ...common,
    ...at('4.2'),
    level: 'SHOULD',
    id: 'api.apply.creates',
    title: 'An apply patch (YAML) to a missing object creates it (upstream: 201)',
    requirements: ['000-4.2-apply-creates'],
    async run(ctx) {
      const { config, path } = scConfig(ctx);
      const label = Object.entries(ctx.labels).map(([k, v]) => `    ${k}: ${JSON.stringify(v)}`).join('\n');
      const yaml = `apiVersion: storage.orch.io/v1\nkind: StorageClass\nmetadata:\n  name: ${config.metadata.name}\n  labels:\n${label}\nprovisioner: conformance.orch.io/test\nmountOptions:\n- ro\n`;
      const res = await patch(ctx, path, yaml, APPLY, { fieldManager: 'conformance-apply' });
      // §4.2 lists 200 and 201 for a patch: upstream's 201 for the create is a finding.
      const created = expectObject(res, SUCCESS.patch, 'StorageClass', 'apply of a StorageClass that does not exist');
      upstream(() => expectCode(res, 201, 'apply that created the object: HTTP code (upstream\'s)'));
      expectEqual(created.metadata?.name, config.metadata.name, 'name of the created object');
      const got = expectObject(await ctx.api.get(path), [200], 'StorageClass', 'read back');
      expectEqual({ provisioner: got.provisioner, mountOptions: got.mountOptions }, { provisioner: 'conformance.orch.io/test', mountOptions: ['ro'] }, 'the created object');
      expectEntries(got.metadata?.labels, ctx.labels, [], 'labels of the created object (the server may add its own)');
    },
  }),
  defineCase({
    ...common,
    ...at('4.3'),
    level: 'MUST',
    id: 'api.apply.field-manager-required',
    title: 'An apply patch without fieldManager is refused and creates nothing',
    requirements: ['000-4.3-field-manager-required-for-apply'],
    async run(ctx) {
      const { config, path } = scConfig(ctx);
      let unsupported = false;
      for (const [what, manager] of [['without fieldManager', undefined], ['with an empty fieldManager', '']] as const) {
        const res = await apply(ctx, path, config, manager);
        expectTrue(res.status >= 400 && res.status < 500, `apply ${what} is refused`, 'HTTP 4xx', `${res.status} ${res.text.slice(0, 200)}`);
        unsupported ||= res.status === 415;
      }
      const got = await ctx.api.get(path);
      expectEqual(got.status, 404, 'GET of the object the refused applies named (nothing created)');
      // A 415 refuses the media type, not the missing manager: when an apply with a manager is
      // refused the same way, the target serves no apply patches and the rule cannot be observed.
      if (unsupported) skipUnsupportedPatch(await apply(ctx, path, config, 'conformance-apply'), APPLY['content-type'], 'the fieldManager apply patches require');
    },
  }),
  defineCase({
    ...common,
    ...at('7'),
    level: 'SHOULD',
    id: 'api.apply.field-manager-required-status',
    title: 'An apply patch without fieldManager is 422 `fieldManager: Required value: is required for apply patch`',
    requirements: ['000-7-apply-field-manager-required'],
    async run(ctx) {
      const { config, path } = scConfig(ctx);
      const s = await expectRefused(ctx.api, await apply(ctx, path, config, undefined), { code: 422, reason: 'Invalid', causes: [{ field: 'fieldManager', reason: 'FieldValueRequired' }] }, 'apply without fieldManager');
      expectEqual(s.message, 'PatchOptions.meta.orch.io "" is invalid: fieldManager: Required value: is required for apply patch', 'message of the Status');
    },
  }),
  defineCase({
    ...common,
    ...at('4.2'),
    level: 'SHOULD',
    id: 'api.apply.conflict',
    title: 'An apply changing a field another manager applied is 409 Conflict with a FieldManagerConflict cause',
    requirements: ['000-4.2-apply-conflict'],
    async run(ctx) {
      const { config, path } = scConfig(ctx, { allowVolumeExpansion: true });
      expectObject(await apply(ctx, path, config, 'conformance-a'), SUCCESS.patch, 'StorageClass', 'apply by conformance-a');
      const s = expectStatus(await apply(ctx, path, { ...config, allowVolumeExpansion: false }, 'conformance-b'), { code: 409, reason: 'Conflict' }, 'apply by conformance-b changing allowVolumeExpansion');
      expectEqual(s.message, 'Apply failed with 1 conflict: conflict with "conformance-a": .allowVolumeExpansion', 'message of the Status');
      expectEqual(s.details?.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "conformance-a"', field: '.allowVolumeExpansion' }], 'details.causes');
      expectEqual((await ctx.api.get(path)).json?.allowVolumeExpansion, true, 'allowVolumeExpansion after the conflict (unchanged)');
    },
  }),
  defineCase({
    ...common,
    ...at('4.2'),
    level: 'SHOULD',
    id: 'api.apply.conflict-with-update',
    title: 'An apply changing a field another manager set by an update (merge patch) is a conflict too',
    requirements: ['000-4.2-apply-conflict'],
    async run(ctx) {
      const { config, path } = scConfig(ctx);
      expectObject(await apply(ctx, path, config, 'conformance-a'), SUCCESS.patch, 'StorageClass', 'apply by conformance-a');
      expectObject(await patch(ctx, path, { allowVolumeExpansion: true }, MERGE_PATCH, { fieldManager: 'conformance-editor' }), SUCCESS.patch, 'StorageClass', 'merge patch by conformance-editor');
      expectStatus(await apply(ctx, path, { ...config, allowVolumeExpansion: false }, 'conformance-a'), {
        code: 409,
        reason: 'Conflict',
        causes: [{ field: '.allowVolumeExpansion', reason: 'FieldManagerConflict' }],
      }, 'apply by conformance-a changing what conformance-editor set');
    },
  }),
  defineCase({
    ...common,
    ...at('4.3'),
    level: 'MUST',
    id: 'api.apply.force',
    title: 'force=true makes an apply take the conflicting fields: the value changes, and the other manager\'s apply of its old value is then refused',
    requirements: ['000-4.3-force-apply'],
    async run(ctx) {
      const { config, path } = scConfig(ctx, { allowVolumeExpansion: true });
      const first = await apply(ctx, path, config, 'conformance-a');
      skipUnsupportedPatch(first, APPLY['content-type'], 'force, which is about apply requests only,');
      expectObject(first, SUCCESS.patch, 'StorageClass', 'apply by conformance-a');
      const forced = expectObject(await apply(ctx, path, { ...config, allowVolumeExpansion: false }, 'conformance-b', { force: 'true' }), SUCCESS.patch, 'StorageClass', 'apply by conformance-b with force=true');
      expectEqual(forced.allowVolumeExpansion, false, 'allowVolumeExpansion after the forced apply');
      // conformance-b re-acquired the field: conformance-a's apply of its old value is now refused (a
      // conflict) and changes nothing. Upstream's 409 Conflict and its causes are api.apply.conflict's
      // (SHOULD): the spec does not show how a conflict is answered.
      const back = await apply(ctx, path, config, 'conformance-a');
      expectTrue(back.status >= 400 && back.status < 500, 'conformance-a applying its old value afterwards (conformance-b owns the field now)', 'refused: an error response (upstream: 409 Conflict)', `HTTP ${back.status} ${back.text.slice(0, 200)}`);
      expectEqual(expectObject(await ctx.api.get(path), [200], 'StorageClass', 'read back').allowVolumeExpansion, false, 'allowVolumeExpansion after the refused apply (conformance-b\'s value kept)');
    },
  }),
  defineCase({
    ...common,
    ...at('4.2'),
    level: 'SHOULD',
    id: 'api.apply.force.over-update',
    title: 'force=true also takes a field another manager set by an update (merge patch), instead of the conflict',
    requirements: ['000-4.2-apply-force'],
    async run(ctx) {
      const { config, path } = scConfig(ctx);
      expectObject(await apply(ctx, path, config, 'conformance-a'), SUCCESS.patch, 'StorageClass', 'apply by conformance-a');
      expectObject(await patch(ctx, path, { allowVolumeExpansion: true }, MERGE_PATCH, { fieldManager: 'conformance-editor' }), SUCCESS.patch, 'StorageClass', 'merge patch by conformance-editor');
      const forced = expectObject(await apply(ctx, path, { ...config, allowVolumeExpansion: false }, 'conformance-a', { force: 'true' }), SUCCESS.patch, 'StorageClass', 'apply by conformance-a with force=true changing what conformance-editor set');
      expectEqual(forced.allowVolumeExpansion, false, 'allowVolumeExpansion after the forced apply');
    },
  }),
  defineCase({
    ...common,
    ...at('4.2'),
    level: 'SHOULD',
    id: 'api.apply.removes-dropped-fields',
    title: 'Fields an applier stops sending are removed, unless another manager also owns them',
    requirements: ['000-4.2-apply-removes-dropped-fields'],
    async run(ctx) {
      const { config, path } = scConfig(ctx, { allowVolumeExpansion: true, mountOptions: ['ro'] });
      config.metadata.annotations = { shared: 'yes', mine: 'yes' };
      expectObject(await apply(ctx, path, config, 'conformance-a'), SUCCESS.patch, 'StorageClass', 'apply by conformance-a');
      const shared = { ...config, allowVolumeExpansion: undefined, mountOptions: undefined, metadata: { ...config.metadata, annotations: { shared: 'yes' } } };
      expectObject(await apply(ctx, path, shared, 'conformance-b'), SUCCESS.patch, 'StorageClass', 'apply by conformance-b of annotation "shared"');
      const { allowVolumeExpansion: _a, mountOptions: _m, ...rest } = config;
      const { annotations: _n, ...meta } = config.metadata;
      const o = expectObject(await apply(ctx, path, { ...rest, metadata: meta }, 'conformance-a'), SUCCESS.patch, 'StorageClass', 'apply by conformance-a without allowVolumeExpansion, mountOptions and annotations');
      expectEqual({ allowVolumeExpansion: o.allowVolumeExpansion, mountOptions: o.mountOptions }, { allowVolumeExpansion: undefined, mountOptions: undefined }, 'the fields conformance-a dropped');
      // Annotations the server adds on its own are allowed: only the two the appliers sent are looked at.
      expectEntries(o.metadata?.annotations, { shared: 'yes' }, ['mine'], 'annotations conformance-a dropped ("shared" stays: conformance-b owns it)');
      expectEqual(o.provisioner, 'conformance.orch.io/test', 'provisioner, still applied');
    },
  }),
  defineCase({
    ...common,
    ...at('2.1'),
    level: 'SHOULD',
    id: 'api.apply.managed-fields.apply-entry',
    title: 'An apply leaves a managedFields entry {manager, operation: Apply, apiVersion, time, fieldsType: FieldsV1, fieldsV1}',
    requirements: ['000-2.1-metadata-managed-fields'],
    async run(ctx) {
      const { config, path } = scConfig(ctx, { allowVolumeExpansion: true });
      const o = expectObject(await apply(ctx, path, config, 'conformance-applier'), SUCCESS.patch, 'StorageClass', 'apply');
      const e = expectEntry(o, 'conformance-applier', 'Apply', 'after the apply');
      expectEqual({ apiVersion: e.apiVersion, fieldsType: e.fieldsType }, { apiVersion: 'storage.orch.io/v1', fieldsType: 'FieldsV1' }, 'apiVersion and fieldsType of the entry');
      expectTrue(typeof e.time === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(e.time), 'time of the entry', 'an RFC 3339 UTC time', e.time);
      expectOwns(e, ['f:provisioner'], 'the entry owns provisioner (f:provisioner)');
      expectOwns(e, ['f:allowVolumeExpansion'], 'the entry owns allowVolumeExpansion');
      expectOwns(e, ['f:metadata', 'f:labels', `f:${Object.keys(ctx.labels)[0]}`], 'the entry owns the applied label');
      expectNotOwns(e, ['f:reclaimPolicy'], 'the entry does not own a defaulted field it did not apply');
    },
  }),
  defineCase({
    ...kindCommon(SVM, 'apply'),
    ...at('2.1'),
    level: 'SHOULD',
    id: 'api.apply.managed-fields.list-items',
    title: 'managedFields name keyed list items `k:{"type":...}` (with `.`) and set items `v:"..."`',
    requirements: ['000-2.1-metadata-managed-fields'],
    async run(ctx) {
      const config = newObject(ctx, SVM, { status: { conditions: [{ type: 'Running', status: 'True', reason: 'Migrating', message: '', lastTransitionTime: FIXED_TIME }] } });
      config.metadata.finalizers = ['conformance.orch.io/held'];
      const path = itemPath(SVM, ctx.namespace, config.metadata.name);
      ctx.track(path);
      try {
        const o = expectObject(await apply(ctx, path, config, 'conformance-applier'), SUCCESS.patch, SVM.kind, 'apply of a migration with a condition and a finalizer');
        const e = expectEntry(o, 'conformance-applier', 'Apply', 'after the apply');
        expectOwns(e, ['f:status', 'f:conditions', 'k:{"type":"Running"}', '.'], 'the condition item is owned as itself: k:{"type":"Running"} → .');
        expectOwns(e, ['f:status', 'f:conditions', 'k:{"type":"Running"}', 'f:status'], 'and its fields: k:{"type":"Running"} → f:status');
        expectOwns(e, ['f:metadata', 'f:finalizers', 'v:"conformance.orch.io/held"'], 'the finalizer is owned as a set item: v:"conformance.orch.io/held"');
      } finally {
        await patch(ctx, path, { metadata: { finalizers: null } }, MERGE_PATCH);
      }
    },
  }),
  defineCase({
    ...common,
    ...at('4.2'),
    level: 'SHOULD',
    id: 'api.apply.managed-fields.update-entries',
    title: 'POST, PUT and merge PATCH each leave an Update entry for their fieldManager; a PUT without managedFields keeps them',
    requirements: ['000-4.2-managed-fields-update-entries'],
    async run(ctx) {
      const body = storageClass(ctx, {}, 'mf');
      ctx.track(scItem(body.metadata.name));
      const created = expectObject(await ctx.api.post(SC_PATH, body, { query: { fieldManager: 'conformance-creator' } }), SUCCESS.create, 'StorageClass', 'POST with fieldManager=conformance-creator');
      expectOwns(expectEntry(created, 'conformance-creator', 'Update', 'after the POST'), ['f:provisioner'], 'conformance-creator owns provisioner');
      const { managedFields: _drop, ...meta } = created.metadata;
      const put = expectObject(await ctx.api.put(scItem(body.metadata.name), { ...created, metadata: meta, allowVolumeExpansion: true }, { query: { fieldManager: 'conformance-replacer' } }), SUCCESS.replace, 'StorageClass', 'PUT without managedFields, fieldManager=conformance-replacer');
      expectOwns(expectEntry(put, 'conformance-replacer', 'Update', 'after the PUT'), ['f:allowVolumeExpansion'], 'conformance-replacer owns allowVolumeExpansion');
      expectOwns(expectEntry(put, 'conformance-creator', 'Update', 'after the PUT (kept although the body had none)'), ['f:provisioner'], 'conformance-creator still owns provisioner');
      const patched = expectObject(await patch(ctx, scItem(body.metadata.name), { mountOptions: ['ro'] }, MERGE_PATCH, { fieldManager: 'conformance-patcher' }), SUCCESS.patch, 'StorageClass', 'merge PATCH with fieldManager=conformance-patcher');
      expectOwns(expectEntry(patched, 'conformance-patcher', 'Update', 'after the PATCH'), ['f:mountOptions'], 'conformance-patcher owns mountOptions');
    },
  }),
  defineCase({
    ...common,
    ...at('4.2'),
    level: 'SHOULD',
    id: 'api.apply.managed-fields.default-manager',
    title: 'A write without fieldManager is recorded under the User-Agent\'s program name',
    requirements: ['000-4.2-managed-fields-default-manager'],
    async run(ctx) {
      const sc = await createStorageClass(ctx);
      const res = await ctx.api.request('PATCH', scItem(sc.metadata.name), { body: { allowVolumeExpansion: true }, headers: { ...MERGE_PATCH, 'user-agent': 'conformance-probe/1.2.3 (linux/amd64) orch/test' } });
      const o = expectObject(res, SUCCESS.patch, 'StorageClass', 'merge PATCH with User-Agent conformance-probe/1.2.3 (...)');
      expectOwns(expectEntry(o, 'conformance-probe', 'Update', 'after the PATCH'), ['f:allowVolumeExpansion'], 'conformance-probe owns allowVolumeExpansion');
    },
  }),
];
