// The storage version migrator (spec 000 §2.3, controllers.md §5), driven through the API of a
// reference that runs only it: status.resourceVersion once, Running then Succeeded, a no-op apply of
// every object (seen in the API server's request metrics), one migration per resource at a time, an
// unknown resource failed after the grace period, and a resourceVersion someone else set kept.
import t from 'tap';
import { startReference } from '../../reference/server.js';
import { startControllerManager } from '../../reference/controllers/manager.js';
import { storageVersionMigratorController } from '../../reference/controllers/storage-version-migrator.js';
import { ApiClient } from '../../reference/client/api-client.js';

const SVMS = '/apis/storagemigration.orch.io/v1/storageversionmigrations';
const SCS = '/apis/storage.orch.io/v1/storageclasses';
const STORAGE_CLASSES = { group: 'storage.orch.io', resource: 'storageclasses' };

async function setup(t: { teardown(fn: () => unknown): void }, o: { graceMs?: number; breaks?: string[] } = {}) {
  // The migrator of the controller manager, or (for a short grace period) one started here.
  const ref = await startReference({ scheduler: false, controllerManager: o.graceMs === undefined ? { controllers: ['storage-version-migrator-controller'], breaks: new Set(o.breaks ?? []) } : false });
  const cm = o.graceMs === undefined ? undefined : await startControllerManager({
    api: { url: ref.url }, controllers: [], serve: false,
    extra: [storageVersionMigratorController({ unknownResourceGraceMs: o.graceMs })], log: () => undefined,
  });
  const c = new ApiClient({ url: ref.url });
  t.teardown(async () => { c.close(); await cm?.close(); await ref.close(); });
  return { c, url: ref.url };
}

let seq = 0;
const migrate = (c: ApiClient, resource: { group: string; resource: string }, status?: Record<string, unknown>) =>
  c.create(SVMS, { apiVersion: 'storagemigration.orch.io/v1', kind: 'StorageVersionMigration', metadata: { name: `m${seq++}` }, spec: { resource }, ...(status ? { status } : {}) });
const storageClass = (c: ApiClient, name: string) => c.create(SCS, { apiVersion: 'storage.orch.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: 'test.orch.io/p' });
const cond = (o: any, type: string) => (o?.status?.conditions ?? []).find((x: any) => x.type === type);
const done = (o: any) => cond(o, 'Succeeded')?.status === 'True' || cond(o, 'Failed')?.status === 'True';

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** PATCH requests the API server answered for storage classes (its request metrics). */
async function patches(url: string): Promise<number> {
  const text = await fetch(`${url}/metrics`).then((r) => r.text());
  return text.split('\n')
    .filter((l) => l.startsWith('apiserver_request_total{') && l.includes('verb="PATCH"') && l.includes('resource="storageclasses"') && l.includes('subresource=""'))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

t.test('a migration: resourceVersion once, Running then Succeeded, every object rewritten by a no-op apply', async (t) => {
  const { c, url } = await setup(t);
  const a = await storageClass(c, 'a');
  const b = await storageClass(c, 'b');
  const before = await patches(url);
  const m = await migrate(c, STORAGE_CLASSES);
  const seen: any[] = [];
  const w = c.watch(`${SVMS}`, { fieldSelector: `metadata.name=${m.metadata.name}`, onList: (items) => seen.push(...items), onEvent: (e) => seen.push(e.object) });
  t.teardown(() => w.stop());
  const got = await until(() => c.get(`${SVMS}/${m.metadata.name}`), done);
  t.match(cond(got, 'Succeeded'), { status: 'True', reason: 'StorageVersionMigrationSucceeded', message: '' });
  t.match(cond(got, 'Running'), { status: 'False', reason: 'MigrationCompleted', message: 'Migration completed' });
  t.match(got.status.resourceVersion, /^\d+$/);
  t.ok(BigInt(got.status.resourceVersion) >= BigInt(b.metadata.resourceVersion), 'the saved resourceVersion is the resource\'s current one');
  await until(async () => seen.length, () => seen.some((o) => cond(o, 'Succeeded')));
  t.ok(seen.some((o) => cond(o, 'Running')?.status === 'True' && cond(o, 'Running')?.reason === 'MigrationRunning'), 'Running=True (MigrationRunning) was observed on the way');
  const rvs = seen.map((o) => o.status?.resourceVersion).filter(Boolean);
  t.ok(rvs.every((rv) => rv === got.status.resourceVersion), 'status.resourceVersion never changed once set');
  t.equal(await patches(url) - before, 2, 'one apply per storage class');
  for (const sc of [a, b]) {
    const now = await c.get(`${SCS}/${sc.metadata.name}`);
    t.equal(now.metadata.resourceVersion, sc.metadata.resourceVersion, `${sc.metadata.name}: a no-op apply stores nothing`);
  }
});

t.test('one migration per resource at a time, the oldest first; a resourceVersion set by someone else is kept', async (t) => {
  const { c, url } = await setup(t);
  await storageClass(c, 'x');
  const current = (await c.list(SCS)).metadata.resourceVersion;
  const running = new Set<string>();
  let overlap = false;
  const w = c.watch(SVMS, {
    onList: () => undefined,
    onEvent: (e) => {
      if (cond(e.object, 'Running')?.status === 'True') running.add(e.object.metadata.name);
      else running.delete(e.object.metadata.name);
      if (running.size > 1) overlap = true;
    },
  });
  t.teardown(() => w.stop());
  await w.synced;
  const before = await patches(url);
  const ms: any[] = [];
  for (let i = 0; i < 4; i++) ms.push(await migrate(c, STORAGE_CLASSES));
  const preset = await migrate(c, STORAGE_CLASSES, { resourceVersion: current });
  const all = await until(() => Promise.all([...ms, preset].map((m) => c.get(`${SVMS}/${m.metadata.name}`))), (l) => l.every(done));
  t.ok(all.every((o) => cond(o, 'Succeeded')?.status === 'True'), 'all succeed');
  t.notOk(overlap, 'never two Running at once');
  t.equal(all.at(-1).status.resourceVersion, current, 'the preset resourceVersion is kept (set once)');
  t.equal(await patches(url) - before, 5, 'each migration rewrote the storage class once');
});

t.test('an unknown resource: nothing during the grace period, then Failed "resource does not exist in discovery"', async (t) => {
  const { c } = await setup(t, { graceMs: 2_500 }); // creationTimestamp has whole seconds: up to 1 s of it has passed at once
  const m = await migrate(c, { group: 'nothing.test.orch.io', resource: 'widgets' });
  await new Promise((r) => setTimeout(r, 300));
  const early = await c.get(`${SVMS}/${m.metadata.name}`);
  t.same(early.status ?? {}, {}, 'untouched while discovery may still catch up');
  const got = await until(() => c.get(`${SVMS}/${m.metadata.name}`), done);
  t.match(cond(got, 'Failed'), { status: 'True', reason: 'StorageVersionMigrationFailed', message: 'resource does not exist in discovery' });
  t.equal(got.status.resourceVersion, undefined, 'no resourceVersion for an unknown resource');
  t.equal(cond(got, 'Running'), undefined, 'never Running');
});

t.test('test-only breaks do what they say', async (t) => {
  const { c } = await setup(t, { breaks: ['storage-version-migrator.no-resource-version', 'storage-version-migrator.no-running', 'storage-version-migrator.unknown-succeeds'] });
  const m = await migrate(c, STORAGE_CLASSES);
  const got = await until(() => c.get(`${SVMS}/${m.metadata.name}`), done);
  t.equal(cond(got, 'Succeeded')?.status, 'True');
  t.equal(got.status.resourceVersion, undefined, 'no-resource-version: never recorded');
  t.equal(cond(got, 'Running'), undefined, 'no-running: never Running');
  const u = await migrate(c, { group: 'nothing.test.orch.io', resource: 'widgets' });
  t.equal(cond(await until(() => c.get(`${SVMS}/${u.metadata.name}`), done), 'Succeeded')?.status, 'True', 'unknown-succeeds');
});
