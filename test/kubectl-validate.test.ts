// The real kubectl against the reference's write parameters: `create --validate=strict` (kubectl
// finds server-side field validation in /openapi/v3 and leaves the check to the server),
// `--validate=warn`, `--dry-run=server` for create and delete, and `explain` from /openapi/v3.
// kubectl must be on PATH (CI installs it); without it this test fails rather than skipping.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startReference } from '../reference/server.js';
import { kubectlAgainst } from './helpers/kubectl.js';

t.test('kubectl: server-side field validation, server dry run, explain', async (t) => {
  const ref = await startReference({ host: '127.0.0.1', port: 0, tls: 'self-signed' });
  t.teardown(() => ref.close());
  const { dir, kubectl } = kubectlAgainst(t, ref.url, { caPem: ref.caPem });
  const manifest = (name: string, extra: string[] = []): string => {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, ['apiVersion: storage.orch.io/v1', 'kind: StorageClass', 'metadata:', `  name: ${name}`, 'provisioner: example.orch.io/fast', ...extra, ''].join('\n'));
    return file;
  };

  const version = await kubectl('version', '--client');
  if (version.exitCode !== 0) {
    t.fail(`kubectl is not runnable (${version.failed ? version.shortMessage : version.stderr}); CI must install it on PATH`);
    return;
  }

  const unknown = manifest('strict-unknown', ['foo: bar', 'parameters:', '  a: "1"']);
  const strict = await kubectl('create', '--validate=strict', '-f', unknown);
  t.equal(strict.exitCode, 1, 'an unknown field is refused');
  t.equal(
    strict.stderr.trim(),
    `Error from server (BadRequest): error when creating "${unknown}": StorageClass in version "v1" cannot be handled as a StorageClass: strict decoding error: unknown field "foo"`,
    "by the server's strict decoding, not a client-side check: kubectl found fieldValidation in /openapi/v3",
  );
  t.equal((await kubectl('get', 'storageclass.storage.orch.io', 'strict-unknown')).exitCode, 1, 'nothing was created');

  const byDefault = await kubectl('create', '-f', unknown);
  t.equal(byDefault.exitCode, 1, 'strict is kubectl\'s default');
  t.match(byDefault.stderr, 'strict decoding error: unknown field "foo"');

  const good = manifest('strict-good');
  const created = await kubectl('create', '--validate=strict', '-f', good);
  t.equal(created.exitCode, 0, `a clean manifest is created: ${created.stderr}`);
  t.equal(created.stdout.trim(), 'storageclass.storage.orch.io/strict-good created');

  const warn = await kubectl('create', '--validate=warn', '-f', unknown);
  t.equal(warn.exitCode, 0, `--validate=warn creates: ${warn.stderr}`);
  t.match(warn.stderr, 'Warning: unknown field "foo"', 'and shows the server\'s warning');

  const dryCreate = await kubectl('create', '--dry-run=server', '-f', manifest('dry-created'));
  t.equal(dryCreate.exitCode, 0, `create --dry-run=server: ${dryCreate.stderr}`);
  t.equal(dryCreate.stdout.trim(), 'storageclass.storage.orch.io/dry-created created (server dry run)');
  t.equal((await kubectl('get', 'storageclass.storage.orch.io', 'dry-created')).exitCode, 1, 'not persisted');

  const dryDelete = await kubectl('delete', 'storageclass.storage.orch.io', 'strict-good', '--dry-run=server');
  t.equal(dryDelete.exitCode, 0, `delete --dry-run=server: ${dryDelete.stderr}`);
  t.equal(dryDelete.stdout.trim(), 'storageclass.storage.orch.io "strict-good" deleted (server dry run)');
  const still = await kubectl('get', 'storageclass.storage.orch.io', 'strict-good', '-o', 'name');
  t.equal(still.exitCode, 0, 'the object stays');
  t.equal(still.stdout.trim(), 'storageclass.storage.orch.io/strict-good');

  const explain = await kubectl('explain', 'storageclasses.storage.orch.io');
  t.equal(explain.exitCode, 0, `explain: ${explain.stderr}`);
  t.match(explain.stdout, /^GROUP:\s+storage\.orch\.io\nKIND:\s+StorageClass\nVERSION:\s+v1\n/);
  t.match(explain.stdout, /^ {2}provisioner\t<string> -required-$/m);
  const field = await kubectl('explain', 'resourcequotas.spec.scopeSelector');
  t.equal(field.exitCode, 0, `explain of a nested field of a namespaced kind: ${field.stderr}`);
  t.match(field.stdout, /FIELD: scopeSelector <Object>/);
});
