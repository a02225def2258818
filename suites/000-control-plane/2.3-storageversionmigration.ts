// Spec 000 §2.3 StorageVersionMigration: spec.resource and the status fields. §4.1 gives the kind no
// status subresource, so status is written through the main resource (PUT); the status rules come
// from upstream validation (ground truth). The patch strategy of status.conditions (merge on `type`)
// is checked with strategic merge patch, which comes later. What the migrator does is in
// 2.3-migration.ts.
//
// The status cases write status themselves, so a migrator of the target must leave their migrations
// alone: they migrate a resource nobody serves (a migrator never records a resourceVersion for it nor
// runs it), read the object afresh before each write and write again on a conflict, and are skipped
// if a migrator fails the migration before they are done (older upstream releases do so at once).
import { defineCase, type Case, type CaseContext } from '../case.js';
import type { ApiResponse } from '../../runner/client.js';
import { expectCode, expectEqual, expectObject, expectTrue, show, skip, SUCCESS, expectRefused } from '../verify.js';
import { itemPath, kindCommon, postObject } from './kinds.js';
import { FIXED_TIME, STORAGE_VERSION_MIGRATION as SVM, UNSERVED_RESOURCE } from './kinds-quota-events.js';
import { clone, createWith, expectInvalid, objectWith, pathInNamespace, putObject, readBack } from './quota-events-common.js';

const must = { ...kindCommon(SVM, 'storageversionmigration'), level: 'MUST' } as const;
const endpoints = { ...must, spec: { doc: '000', section: '4.1' } } as const;
const should = { ...must, level: 'SHOULD' } as const;

const create = (ctx: CaseContext, hint?: string) => createWith(ctx, SVM, (o) => { o.spec.resource = { ...UNSERVED_RESOURCE }; }, 'creating a valid StorageVersionMigration', hint);

/** A migration condition with a fixed transition time. */
const condition = (type: string, status: string, reason = type === 'Running' ? 'Migrating' : `Migration${type}`) => ({
  type, status, reason, message: '', lastTransitionTime: FIXED_TIME,
});

/** PUTs the object as read afresh with `edit` applied, again on a conflict (a migrator may write it too). */
async function putFresh(ctx: CaseContext, obj: any, edit: (o: any) => void): Promise<ApiResponse> {
  for (let attempt = 1; ; attempt++) {
    const next = clone(await readBack(ctx, SVM, obj, 'reading the migration before the PUT'));
    edit(next);
    const res = await putObject(ctx, SVM, next);
    if (res.status !== 409 || attempt >= 5) return res;
  }
}

/** The reasons of the conditions these cases write (a migrator's Failed has another). */
const OWN_REASONS = new Set(['Migrating', 'MigrationRunning', 'MigrationSucceeded', 'MigrationFailed']);

/**
 * PUTs the object with `status` (through the main resource), read afresh first and written again on a
 * conflict: a migrator may write the object too. Skips the case when a migrator failed the migration.
 */
async function putWithStatus(ctx: CaseContext, obj: any, status: Record<string, unknown>): Promise<ApiResponse> {
  for (let attempt = 1; ; attempt++) {
    const cur = await readBack(ctx, SVM, obj, 'reading the migration before writing its status');
    const failed = (Array.isArray(cur.status?.conditions) ? cur.status.conditions : []).find((c: any) => c?.type === 'Failed' && c?.status === 'True');
    if (failed && !OWN_REASONS.has(failed.reason)) skip(`a storage version migrator failed the migration first (${show(failed)}), so the case cannot write the status it checks`);
    const res = await putObject(ctx, SVM, { ...clone(cur), status });
    if (res.status !== 409 || attempt >= 5) return res;
  }
}

/** Writes `status` and expects success; gives back the stored object. */
async function setStatus(ctx: CaseContext, obj: any, status: Record<string, unknown>, what: string): Promise<any> {
  return expectObject(await putWithStatus(ctx, obj, status), SUCCESS.replace, SVM.kind, what);
}

export const storageVersionMigrationCases: Case[] = [
  defineCase({
    ...must,
    id: 'api.storageversionmigration.scope.cluster',
    title: 'StorageVersionMigration is cluster-scoped: no namespace, no namespaced path',
    requirements: ['000-2.3-cluster-scoped'],
    async run(ctx) {
      const o = await create(ctx);
      expectEqual(o.metadata?.namespace ?? '', '', 'metadata.namespace of the created StorageVersionMigration');
      expectCode(await ctx.api.get(pathInNamespace(SVM, 'default', o.metadata.name)), 404, 'reading it through a namespaced path');
    },
  }),
  defineCase({
    ...endpoints,
    id: 'api.storageversionmigration.collection-path',
    title: 'StorageVersionMigrations are served at /apis/storagemigration.orch.io/v1/storageversionmigrations',
    requirements: ['000-4.1-storageversionmigration-path'],
    async run(ctx) {
      const o = await create(ctx);
      const path = '/apis/storagemigration.orch.io/v1/storageversionmigrations';
      const list = expectObject(await ctx.api.get(path), [200], 'StorageVersionMigrationList', `GET ${path}`);
      const names = (Array.isArray(list.items) ? list.items : []).map((i: any) => i?.metadata?.name);
      expectTrue(names.includes(o.metadata.name), 'the collection lists the migration just created', o.metadata.name, names);
      const got = expectObject(await ctx.api.get(`${path}/${encodeURIComponent(o.metadata.name)}`), [200], SVM.kind, `GET ${path}/{name}`);
      expectEqual(got.metadata?.name, o.metadata.name, 'name of the object read at the item path');
    },
  }),
  defineCase({
    ...endpoints,
    id: 'api.storageversionmigration.no-status-subresource',
    title: 'StorageVersionMigration has no status subresource: .../{name}/status is not found',
    requirements: ['000-4.1-no-status-subresource'],
    async run(ctx) {
      const o = await create(ctx);
      expectCode(await ctx.api.get(`${itemPath(SVM, ctx.namespace, o.metadata.name)}/status`), 404, 'GET .../storageversionmigrations/{name}/status');
    },
  }),
  defineCase({
    ...must,
    id: 'api.storageversionmigration.resource.required',
    upstreamShape: true,
    title: 'A StorageVersionMigration without spec.resource is rejected as Invalid',
    requirements: ['000-2.3-resource-required'],
    async run(ctx) {
      const body = objectWith(ctx, SVM, (o) => { o.spec = {}; });
      await expectInvalid(ctx, await postObject(ctx, SVM, body), 'spec.resource', 'create without spec.resource');
    },
  }),
  defineCase({
    ...should,
    id: 'api.storageversionmigration.resource.resource-required',
    title: 'spec.resource.resource is required; an empty group (the core group) is fine',
    requirements: ['000-2.3-resource-resource-required'],
    async run(ctx) {
      const body = objectWith(ctx, SVM, (o) => { o.spec.resource = { group: 'apps' }; });
      await expectInvalid(ctx, await postObject(ctx, SVM, body), 'spec.resource.resource', 'create with spec.resource.group only', 'FieldValueRequired');
      const core = await createWith(ctx, SVM, (o) => { o.spec.resource = { resource: 'configmaps' }; }, 'creating one for the core group (no group)', 'core');
      expectEqual(core.spec?.resource?.resource, 'configmaps', 'spec.resource.resource of the core-group migration');
    },
  }),
  defineCase({
    ...should,
    id: 'api.storageversionmigration.resource.round-trip',
    title: 'spec.resource {group, resource} is stored as given',
    requirements: ['000-2.3-resource-fields'],
    async run(ctx) {
      const o = await createWith(ctx, SVM, (b) => { b.spec.resource = { group: 'apps', resource: 'statefulsets' }; }, 'creating a migration of apps/statefulsets');
      const got = await readBack(ctx, SVM, o);
      expectEqual(got.spec?.resource, { group: 'apps', resource: 'statefulsets' }, 'spec.resource read back');
    },
  }),
  defineCase({
    ...must,
    id: 'api.storageversionmigration.resource.immutable',
    upstreamShape: true,
    title: 'spec.resource cannot change after creation',
    requirements: ['000-2.3-resource-immutable'],
    async run(ctx) {
      const o = await create(ctx);
      for (const resource of [{ group: 'apps', resource: 'statefulsets' }, { group: 'batch', resource: 'deployments' }]) {
        const res = await putFresh(ctx, o, (next) => { next.spec.resource = resource; });
        await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid' }, `PUT changing spec.resource to ${show(resource)}`);
      }
      const got = await readBack(ctx, SVM, o);
      expectEqual(got.spec?.resource, o.spec?.resource, 'spec.resource after the refused changes');
    },
  }),
  defineCase({
    ...should,
    id: 'api.storageversionmigration.resource.immutable-message',
    title: 'A change to spec.resource is refused with "field is immutable"',
    requirements: ['000-2.3-resource-immutable-message'],
    async run(ctx) {
      const o = await create(ctx);
      const res = await putFresh(ctx, o, (next) => { next.spec.resource.resource = 'replicasets'; });
      const s = await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid' }, 'PUT changing spec.resource.resource');
      const causes: any[] = Array.isArray(s.details?.causes) ? s.details.causes : [];
      expectTrue(causes.some((c) => String(c?.message ?? '').includes('field is immutable')), 'a cause says "field is immutable"', 'a cause message containing "field is immutable"', causes);
    },
  }),
  defineCase({
    ...must,
    id: 'api.storageversionmigration.status.conditions.round-trip',
    title: 'status.conditions holds the latest observations: Running, then Succeeded',
    requirements: ['000-2.3-status-conditions'],
    async run(ctx) {
      const o = await create(ctx);
      const running = [condition('Running', 'True')];
      const a = await setStatus(ctx, o, { conditions: running }, 'PUT with condition Running=True');
      expectEqual(a.status?.conditions, running, 'status.conditions after the first PUT');
      const done = [condition('Running', 'False'), condition('Succeeded', 'True')];
      await setStatus(ctx, a, { conditions: done }, 'PUT with Running=False, Succeeded=True');
      const got = await readBack(ctx, SVM, o);
      expectEqual(got.status?.conditions, done, 'status.conditions read back');
    },
  }),
  defineCase({
    ...should,
    id: 'api.storageversionmigration.status.conditions.unique-type',
    title: 'Two conditions of the same type are rejected',
    requirements: ['000-2.3-status-conditions-unique-type', '000-3.3-condition-types'],
    async run(ctx) {
      const o = await create(ctx);
      const res = await putWithStatus(ctx, o, { conditions: [condition('Running', 'True'), condition('Running', 'False')] });
      await expectInvalid(ctx, res, 'status.conditions', 'PUT with two Running conditions');
    },
  }),
  defineCase({
    ...should,
    id: 'api.storageversionmigration.status.conditions.succeeded-failed-exclusive',
    title: 'Succeeded and Failed are not both true',
    requirements: ['000-2.3-status-conditions-succeeded-failed-exclusive', '000-3.3-not-succeeded-and-failed'],
    async run(ctx) {
      const o = await create(ctx);
      const res = await putWithStatus(ctx, o, { conditions: [condition('Succeeded', 'True'), condition('Failed', 'True')] });
      await expectInvalid(ctx, res, 'status.conditions', 'PUT with Succeeded=True and Failed=True');
    },
  }),
  defineCase({
    ...should,
    id: 'api.storageversionmigration.status.conditions.running-not-with-terminal',
    title: 'Running is not true while Succeeded or Failed is true',
    requirements: ['000-2.3-status-conditions-running-not-with-terminal', '000-3.3-running-not-true-when-finished'],
    async run(ctx) {
      const o = await create(ctx);
      for (const terminal of ['Succeeded', 'Failed']) {
        const res = await putWithStatus(ctx, o, { conditions: [condition('Running', 'True'), condition(terminal, 'True')] });
        await expectInvalid(ctx, res, 'status.conditions', `PUT with Running=True and ${terminal}=True`);
      }
    },
  }),
  defineCase({
    ...should,
    id: 'api.storageversionmigration.status.conditions.terminal-final',
    title: 'Succeeded and Failed cannot go back to false once true',
    requirements: ['000-2.3-status-conditions-terminal-final', '000-3.3-finished-not-back-to-false'],
    async run(ctx) {
      for (const terminal of ['Succeeded', 'Failed']) {
        const o = await create(ctx, terminal.toLowerCase());
        const done = await setStatus(ctx, o, { conditions: [condition(terminal, 'True')] }, `PUT with ${terminal}=True`);
        const res = await putWithStatus(ctx, done, { conditions: [condition(terminal, 'False')] });
        await expectInvalid(ctx, res, 'status.conditions', `PUT setting ${terminal} back to False`);
      }
    },
  }),
  defineCase({
    ...must,
    id: 'api.storageversionmigration.status.resource-version.round-trip',
    title: 'status.resourceVersion is stored and returned as written',
    requirements: ['000-2.3-status-resource-version'],
    async run(ctx) {
      const o = await create(ctx);
      await setStatus(ctx, o, { resourceVersion: '12345' }, 'PUT with status.resourceVersion "12345"');
      const got = await readBack(ctx, SVM, o);
      expectEqual(got.status?.resourceVersion, '12345', 'status.resourceVersion read back');
    },
  }),
  defineCase({
    ...should,
    id: 'api.storageversionmigration.status.resource-version.integer',
    title: 'status.resourceVersion must parse as a non-negative integer',
    requirements: ['000-2.3-status-resource-version-integer'],
    async run(ctx) {
      const o = await create(ctx);
      for (const resourceVersion of ['abc', '-1']) {
        await expectInvalid(ctx, await putWithStatus(ctx, o, { resourceVersion }), 'status.resourceVersion', `PUT with status.resourceVersion ${show(resourceVersion)}`);
      }
    },
  }),
  defineCase({
    ...should,
    id: 'api.storageversionmigration.status.resource-version.set-once',
    title: 'status.resourceVersion cannot change once set',
    requirements: ['000-2.3-status-resource-version-set-once'],
    async run(ctx) {
      const o = await create(ctx);
      const set = await setStatus(ctx, o, { resourceVersion: '100' }, 'PUT setting status.resourceVersion to "100"');
      await expectInvalid(ctx, await putWithStatus(ctx, set, { resourceVersion: '200' }), 'status.resourceVersion', 'PUT changing status.resourceVersion to "200"');
      const got = await readBack(ctx, SVM, o);
      expectEqual(got.status?.resourceVersion, '100', 'status.resourceVersion after the refused change');
    },
  }),
];
