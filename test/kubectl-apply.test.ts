// The real kubectl against the reference: server-side apply (create, change, a conflict with another
// field manager, --force-conflicts) and kubectl patch with --type json, merge and strategic. kubectl
// must be on PATH (CI installs it); without it this test fails rather than skipping.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startReference } from '../reference/server.js';
import { kubectlAgainst } from './helpers/kubectl.js';

t.test('kubectl apply --server-side and kubectl patch against the reference', async (t) => {
  const ref = await startReference({ host: '127.0.0.1', port: 0, tls: 'self-signed' });
  t.teardown(() => ref.close());
  const { dir, kubectl } = kubectlAgainst(t, ref.url, { caPem: ref.caPem });
  const version = await kubectl('version', '--client');
  if (version.exitCode !== 0) {
    t.fail(`kubectl is not runnable (${version.failed ? version.shortMessage : version.stderr}); CI must install it on PATH`);
    return;
  }

  const name = 'kubectl-ssa';
  const manifest = (expansion: boolean) => {
    const file = join(dir, `sc-${expansion}.yaml`);
    writeFileSync(file, ['apiVersion: storage.orch.io/v1', 'kind: StorageClass', 'metadata:', `  name: ${name}`, '  labels:', '    tier: gold', 'provisioner: example.orch.io/fast', `allowVolumeExpansion: ${expansion}`, ''].join('\n'));
    return file;
  };
  const get = async () => {
    const r = await kubectl('get', 'storageclass.storage.orch.io', name, '-o', 'json', '--show-managed-fields');
    t.equal(r.exitCode, 0, `get: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };
  const entry = (o: any, manager: string, operation: string) => (o.metadata.managedFields ?? []).find((e: any) => e.manager === manager && e.operation === operation);

  // Create, then change, with the default field manager (kubectl).
  const created = await kubectl('apply', '--server-side', '-f', manifest(true));
  t.equal(created.exitCode, 0, `apply --server-side (create): ${created.stderr}`);
  t.equal(created.stdout.trim(), `storageclass.storage.orch.io/${name} serverside-applied`);
  let o = await get();
  t.match(o, { provisioner: 'example.orch.io/fast', allowVolumeExpansion: true, metadata: { labels: { tier: 'gold' } } });
  t.same(entry(o, 'kubectl', 'Apply')?.fieldsV1, { 'f:allowVolumeExpansion': {}, 'f:metadata': { 'f:labels': { 'f:tier': {} } }, 'f:provisioner': {} }, 'kubectl owns what it applied');

  const changed = await kubectl('apply', '--server-side', '-f', manifest(false));
  t.equal(changed.exitCode, 0, `apply --server-side (change): ${changed.stderr}`);
  t.equal((await get()).allowVolumeExpansion, false);

  // Another field manager changing kubectl's field conflicts, until it forces.
  const conflict = await kubectl('apply', '--server-side', '--field-manager', 'other', '-f', manifest(true));
  t.equal(conflict.exitCode, 1, 'a conflicting apply fails');
  t.match(conflict.stderr, 'Apply failed with 1 conflict: conflict with "kubectl": .allowVolumeExpansion');
  t.match(conflict.stderr, '--force-conflicts', 'kubectl explains how to force');
  const forced = await kubectl('apply', '--server-side', '--field-manager', 'other', '--force-conflicts', '-f', manifest(true));
  t.equal(forced.exitCode, 0, `apply --force-conflicts: ${forced.stderr}`);
  o = await get();
  t.equal(o.allowVolumeExpansion, true);
  t.ok(entry(o, 'other', 'Apply')?.fieldsV1?.['f:allowVolumeExpansion'], 'other owns allowVolumeExpansion');
  t.notOk(entry(o, 'kubectl', 'Apply')?.fieldsV1?.['f:allowVolumeExpansion'], 'kubectl no longer does');

  // kubectl patch, each type.
  const merge = await kubectl('patch', 'storageclass.storage.orch.io', name, '--type', 'merge', '-p', '{"metadata":{"annotations":{"note":"merged"}}}');
  t.equal(merge.exitCode, 0, `patch --type merge: ${merge.stderr}`);
  t.equal(merge.stdout.trim(), `storageclass.storage.orch.io/${name} patched`);
  const json = await kubectl('patch', 'storageclass.storage.orch.io', name, '--type', 'json', '-p', '[{"op":"add","path":"/mountOptions","value":["ro"]}]');
  t.equal(json.exitCode, 0, `patch --type json: ${json.stderr}`);
  const strategic = await kubectl('patch', 'storageclass.storage.orch.io', name, '--type', 'strategic', '-p', '{"metadata":{"finalizers":["example.orch.io/hold"],"labels":{"extra":"yes"}}}');
  t.equal(strategic.exitCode, 0, `patch --type strategic: ${strategic.stderr}`);
  o = await get();
  t.match(o.metadata, { annotations: { note: 'merged' }, labels: { tier: 'gold', extra: 'yes' }, finalizers: ['example.orch.io/hold'] });
  t.same(o.mountOptions, ['ro']);
  t.ok(entry(o, 'kubectl-patch', 'Update'), 'kubectl patch is recorded under its field manager, kubectl-patch');
  const failedTest = await kubectl('patch', 'storageclass.storage.orch.io', name, '--type', 'json', '-p', '[{"op":"test","path":"/mountOptions/0","value":"rw"}]');
  t.equal(failedTest.exitCode, 1, 'a failed JSON patch test op is an error');
  t.match(failedTest.stderr, /Invalid/);
  const release = await kubectl('patch', 'storageclass.storage.orch.io', name, '--type', 'json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]');
  t.equal(release.exitCode, 0, `removing the finalizer: ${release.stderr}`);

  // A namespaced kind of the core group.
  const quota = join(dir, 'quota.yaml');
  writeFileSync(quota, ['apiVersion: v1', 'kind: ResourceQuota', 'metadata:', '  name: kubectl-quota', 'spec:', '  hard:', '    pods: "10"', ''].join('\n'));
  const q = await kubectl('apply', '--server-side', '-n', 'default', '-f', quota);
  t.equal(q.exitCode, 0, `apply --server-side of a ResourceQuota: ${q.stderr}`);
  t.equal(q.stdout.trim(), 'resourcequota/kubectl-quota serverside-applied');

  const del = await kubectl('delete', 'storageclass.storage.orch.io', name);
  t.equal(del.exitCode, 0, `delete: ${del.stderr}`);
});
