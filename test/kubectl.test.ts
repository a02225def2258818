// The real kubectl against `serve` as users start it (no flags: HTTPS with a generated CA, passed to
// kubectl as certificate-authority): discovery, create, get, delete. kubectl must be on PATH (CI
// installs it); without it this test fails rather than skipping.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubectlAgainst } from './helpers/kubectl.js';
import { startServe } from './helpers/serve.js';

t.test('kubectl drives the reference', async (t) => {
  const { url, ca } = await startServe(t);
  t.match(url, /^https:\/\//, 'serve serves HTTPS by default');
  t.ok(ca, 'and prints its CA');
  const { dir, kubectl } = kubectlAgainst(t, url, { ca });
  const name = 'kubectl-fast';
  const manifest = join(dir, 'sc.yaml');
  writeFileSync(
    manifest,
    ['apiVersion: storage.orch.io/v1', 'kind: StorageClass', 'metadata:', `  name: ${name}`, 'provisioner: example.orch.io/fast', ''].join('\n'),
  );

  // A fresh cache dir per run, so discovery is really fetched from this server.

  const version = await kubectl('version', '--client');
  if (version.exitCode !== 0) {
    t.fail(`kubectl is not runnable (${version.failed ? version.shortMessage : version.stderr}); CI must install it on PATH`);
    return;
  }

  const empty = await kubectl('get', 'storageclasses.storage.orch.io');
  t.equal(empty.exitCode, 0, `get on an empty collection: ${empty.stderr}`);
  t.match(empty.stderr, /No resources found/);

  const create = await kubectl('create', '-f', manifest, '--validate=false');
  t.equal(create.exitCode, 0, `create: ${create.stderr}`);
  t.equal(create.stdout.trim(), `storageclass.storage.orch.io/${name} created`);

  const table = await kubectl('get', 'storageclasses.storage.orch.io');
  t.equal(table.exitCode, 0, `get: ${table.stderr}`);
  // The server's Table (reference/apiserver/table): upstream's StorageClass columns.
  t.match(table.stdout, /^NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE\n/);
  t.match(table.stdout, new RegExp(`^${name}\\s+\\S+\\s+Delete\\s+Immediate\\s+false\\s+\\d+s$`, 'm'));

  const short = await kubectl('get', 'sc', name, '-o', 'name');
  t.equal(short.exitCode, 0, `short name from discovery: ${short.stderr}`);
  t.equal(short.stdout.trim(), `storageclass.storage.orch.io/${name}`);

  const json = await kubectl('get', 'storageclass.storage.orch.io', name, '-o', 'json');
  t.equal(json.exitCode, 0, `get -o json: ${json.stderr}`);
  const obj = JSON.parse(json.stdout);
  t.match(obj, {
    apiVersion: 'storage.orch.io/v1',
    kind: 'StorageClass',
    metadata: { name, generation: 1 },
    provisioner: 'example.orch.io/fast',
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'Immediate',
  });
  t.match(obj.metadata.uid, /^[0-9a-f-]{36}$/);
  t.match(obj.metadata.resourceVersion, /^\d+$/);

  const again = await kubectl('create', '-f', manifest, '--validate=false');
  t.equal(again.exitCode, 1);
  t.match(again.stderr, `Error from server (AlreadyExists): error when creating "${manifest}": storageclasses.storage.orch.io "${name}" already exists`);

  const del = await kubectl('delete', 'storageclass.storage.orch.io', name);
  t.equal(del.exitCode, 0, `delete: ${del.stderr}`);
  t.equal(del.stdout.trim(), `storageclass.storage.orch.io "${name}" deleted`);

  const gone = await kubectl('get', 'storageclass.storage.orch.io', name);
  t.equal(gone.exitCode, 1);
  t.match(gone.stderr, `Error from server (NotFound): storageclasses.storage.orch.io "${name}" not found`);

  const namespaces = await kubectl('get', 'namespaces', '-o', 'name');
  t.equal(namespaces.exitCode, 0, `core group: ${namespaces.stderr}`);
  t.match(namespaces.stdout, /^namespace\/default$/m);
});
