// Spec 000 §2.3 and §3.3 StorageVersionMigration as the control plane acts on it: the migrator
// records the resource's current resourceVersion when it first sees a migration, runs it (Running,
// then Succeeded) and never runs a migration of a resource nobody serves. The migrated resource is
// StorageClass (spec 000 §2.2, cluster-scoped): a migration rewrites every object of its resource
// with a no-op apply, which changes nothing stored, so other cases' storage classes see no write.
//
// Not checked: that the objects' resourceVersion advances. A migration re-encodes objects in the
// current storage version, and upstream stores nothing when the bytes would not change (an object
// already in that version), so the rewrite is not observable through the API; nor is "one
// migration per resource at a time" (a migration of a few objects ends within one request).
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectEqual, expectObject, expectTrue, show, SUCCESS } from '../verify.js';
import { holdsFor, waitFor } from '../wait.js';
import { createStorageClass, SC_PATH } from './fixtures.js';

const SVM_PATH = '/apis/storagemigration.orch.io/v1/storageversionmigrations';
const common = {
  suite: 'storageversionmigration',
  impact: 'cluster-scoped',
  needs: ['api'],
  controllers: ['storage-version-migrator-controller'],
} as const;
const STORAGE_CLASSES = { group: 'storage.orch.io', resource: 'storageclasses' };
/** A resource no server serves. */
export const UNSERVED_RESOURCE = { group: 'nothing.conformance.orch.io', resource: 'nothings' };

async function createMigration(ctx: CaseContext, resource: { group: string; resource: string }, hint: string): Promise<any> {
  const name = ctx.uniqueName(hint);
  ctx.track(`${SVM_PATH}/${name}`);
  const body = { apiVersion: 'storagemigration.orch.io/v1', kind: 'StorageVersionMigration', metadata: { name, labels: { ...ctx.labels } }, spec: { resource } };
  return expectObject(await ctx.api.post(SVM_PATH, body), SUCCESS.create, 'StorageVersionMigration', `creating a migration of ${show(resource)}`);
}

const conditionOf = (o: any, type: string) => (Array.isArray(o?.status?.conditions) ? o.status.conditions : []).find((c: any) => c?.type === type);
const isTrue = (o: any, type: string) => conditionOf(o, type)?.status === 'True';
const isInteger = (v: unknown) => typeof v === 'string' && /^\d+$/.test(v);

export const migrationCases: Case[] = [
  defineCase({
    ...common,
    spec: { doc: '000', section: '2.3' },
    level: 'MUST',
    id: 'api.migration.resource-version',
    title: 'The migrator sets status.resourceVersion to the resource\'s resource version when it first sees the migration',
    requirements: ['000-2.3-status-resource-version'],
    async run(ctx) {
      const sc = await createStorageClass(ctx, {}, 'svm');
      const before = String(sc.metadata?.resourceVersion ?? '');
      const m = await createMigration(ctx, STORAGE_CLASSES, 'svm-rv');
      const path = `${SVM_PATH}/${encodeURIComponent(m.metadata.name)}`;
      const got = await waitFor(ctx, path, (o) => typeof o?.status?.resourceVersion === 'string' && o.status.resourceVersion !== '', 'status.resourceVersion of the migration', 'set by the migrator');
      const saved = got.status.resourceVersion;
      const list = expectObject(await ctx.api.get(SC_PATH, { query: { limit: '1' } }), [200], 'StorageClassList', 'listing storage classes after the migrator set it');
      const after = String(list.metadata?.resourceVersion ?? '');
      // Resource versions compare as integers where the server uses them (upstream requires integers here).
      if (isInteger(saved) && isInteger(before) && isInteger(after)) {
        expectTrue(BigInt(saved) >= BigInt(before), 'status.resourceVersion is not older than a storage class written before the migration', `>= ${before}`, saved);
        expectTrue(BigInt(saved) <= BigInt(after), 'status.resourceVersion is not newer than the storage classes\' current resource version', `<= ${after}`, saved);
      }
      // Set once: a later read still has it.
      const again = expectObject(await ctx.api.get(path), [200], 'StorageVersionMigration', 'reading the migration again');
      expectEqual(again.status?.resourceVersion, saved, 'status.resourceVersion read again');
    },
  }),
  defineCase({
    ...common,
    spec: { doc: '000', section: '3.3' },
    level: 'SHOULD',
    id: 'api.migration.running-then-succeeded',
    title: 'The migrator runs the migration (Running) and finishes it: Succeeded=True, reason StorageVersionMigrationSucceeded, Running=False',
    requirements: ['000-3.3-migration-runs'],
    async run(ctx) {
      await createStorageClass(ctx, {}, 'svm');
      const m = await createMigration(ctx, STORAGE_CLASSES, 'svm-run');
      const path = `${SVM_PATH}/${encodeURIComponent(m.metadata.name)}`;
      const done = await waitFor(ctx, path, (o) => isTrue(o, 'Succeeded') || isTrue(o, 'Failed'), 'the migration of storage classes finishing', 'Succeeded=True');
      const succeeded = conditionOf(done, 'Succeeded');
      expectEqual({ status: succeeded?.status, reason: succeeded?.reason }, { status: 'True', reason: 'StorageVersionMigrationSucceeded' }, 'the Succeeded condition');
      const running = conditionOf(done, 'Running');
      expectTrue(running?.status === 'False', 'the Running condition once finished (set while it ran, flipped to False)', 'Running=False', done.status?.conditions);
      expectTrue(isInteger(done.status?.resourceVersion), 'status.resourceVersion of the finished migration', 'an integer resource version', done.status?.resourceVersion);
    },
  }),
  defineCase({
    ...common,
    spec: { doc: '000', section: '3.3' },
    level: 'SHOULD',
    id: 'api.migration.unknown-resource',
    title: 'A migration of a resource nobody serves is not run: no status.resourceVersion, never Running or Succeeded',
    requirements: ['000-3.3-migration-unknown-resource'],
    async run(ctx) {
      const m = await createMigration(ctx, UNSERVED_RESOURCE, 'svm-none');
      const path = `${SVM_PATH}/${encodeURIComponent(m.metadata.name)}`;
      const last = await holdsFor(ctx, path, (o) => !o?.status?.resourceVersion && !isTrue(o, 'Running') && !isTrue(o, 'Succeeded'), 3_000,
        'a migration of a resource nobody serves', 'no status.resourceVersion, not Running, not Succeeded (Failed is fine)');
      const failed = conditionOf(last, 'Failed');
      if (failed?.status === 'True') expectEqual(failed.message, 'resource does not exist in discovery', 'message of the Failed condition');
    },
  }),
];
