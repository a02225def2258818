// The real kubectl against `serve --token-auth-file ... --authorization-mode RBAC`: the admin token
// (group system:masters) may do anything, a user token only what RBAC grants, an unknown token is
// Unauthorized, and `--as` impersonation works. kubectl must be on PATH (CI installs it).
// `kubectl auth can-i` and `whoami` are not used: they post to authorization.k8s.io / authentication.k8s.io,
// and the reference serves its reviews as authorization.orch.io / authentication.orch.io.
// HTTPS with serve's generated certificate, because kubectl sends bearer tokens only over TLS.
import t from 'tap';
import { execaNode } from 'execa';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubectlAgainst } from './helpers/kubectl.js';
import { BIN, startServe } from './helpers/serve.js';

const G = 'rbac.authorization.orch.io';

t.test('kubectl with tokens against serve --authorization-mode RBAC', async (t) => {
  const { dir, kubectl } = kubectlAgainst(t, 'http://127.0.0.1:1');
  const tokens = join(dir, 'tokens.csv');
  // The padded group is read as upstream reads it: " system:masters " is not the privileged group.
  // An empty token and a repeated one are what upstream only warns about: serve says so at start.
  writeFileSync(tokens, 'admin-secret,admin,1,"system:masters"\nreader-secret,reader,2,"readers,other"\npadded-secret,padded,3," system:masters "\n'
    + ',nobody,4\ndup-secret,first,5,"system:masters"\ndup-secret,second,6\n');
  // serve's own self-signed certificate (--cert-dir), which kubectl (Go's x509) must accept.
  const { proc: serve, url, ca } = await startServe(t, ['--cert-dir', join(dir, 'certs'), '--token-auth-file', tokens, '--authorization-mode', 'RBAC']);
  if (!ca) throw new Error('serve --cert-dir printed no ca: line');
  const k = (token: string, ...args: string[]) => kubectl('--server', url, '--certificate-authority', ca, '--token', token, ...args);

  const admin = await k('admin-secret', 'get', 'storageclasses.storage.orch.io');
  t.equal(admin.exitCode, 0, `admin get: ${admin.stderr}`);
  t.match(admin.stderr, /No resources found/);

  const denied = await k('reader-secret', 'get', 'storageclasses.storage.orch.io');
  t.not(denied.exitCode, 0);
  t.match(denied.stderr, /Error from server \(Forbidden\): storageclasses\.storage\.orch\.io is forbidden: User "reader" cannot list resource "storageclasses" in API group "storage\.orch\.io" at the cluster scope/);

  const padded = await k('padded-secret', 'get', 'storageclasses.storage.orch.io');
  t.not(padded.exitCode, 0, 'a padded " system:masters " group grants nothing');
  t.match(padded.stderr, /Forbidden.*User "padded" cannot list resource "storageclasses"/);

  const dup = await k('dup-secret', 'get', 'storageclasses.storage.orch.io');
  t.match(dup.stderr, /Forbidden.*User "second" cannot list/, 'a repeated token is its later row\'s user, not the first row\'s superuser');

  const unknown = await k('wrong-secret', 'get', 'storageclasses.storage.orch.io');
  t.not(unknown.exitCode, 0);
  // kubectl's words for a 401.
  t.match(unknown.stderr, /You must be logged in to the server/);

  // The admin grants the readers group list and get on storage classes.
  const grant = join(dir, 'grant.yaml');
  writeFileSync(grant, [
    `apiVersion: ${G}/v1`, 'kind: ClusterRole', 'metadata:', '  name: sc-reader', 'rules:',
    '- apiGroups: ["storage.orch.io"]', '  resources: ["storageclasses"]', '  verbs: ["get", "list"]',
    '---',
    `apiVersion: ${G}/v1`, 'kind: ClusterRoleBinding', 'metadata:', '  name: readers-sc', 'roleRef:', `  apiGroup: ${G}`, '  kind: ClusterRole', '  name: sc-reader',
    'subjects:', '- kind: Group', `  apiGroup: ${G}`, '  name: readers', '',
  ].join('\n'));
  const created = await k('admin-secret', 'create', '-f', grant, '--validate=false');
  t.equal(created.exitCode, 0, `create the grant: ${created.stderr}`);
  const allowed = await k('reader-secret', 'get', 'storageclasses.storage.orch.io');
  t.equal(allowed.exitCode, 0, `reader get after the grant: ${allowed.stderr}`);
  const del = await k('reader-secret', 'delete', 'storageclasses.storage.orch.io', 'nothing');
  t.match(del.stderr, /Forbidden.*User "reader" cannot delete resource "storageclasses"/, 'delete is still not granted');

  const as = await k('admin-secret', '--as', 'someone', 'get', 'storageclasses.storage.orch.io');
  t.match(as.stderr, /User "someone" cannot list/, 'kubectl --as impersonates');
  const asGroup = await k('admin-secret', '--as', 'someone', '--as-group', 'readers', 'get', 'storageclasses.storage.orch.io');
  t.equal(asGroup.exitCode, 0, `--as-group: ${asGroup.stderr}`);
  const notAllowed = await k('reader-secret', '--as', 'admin', 'get', 'storageclasses.storage.orch.io');
  // Discovery is the first request refused, and kubectl prints a refused discovery as
  // "(Forbidden): unknown", against a real kube-apiserver too (the message is checked in test/reference/auth.test.ts).
  t.not(notAllowed.exitCode, 0);
  t.match(notAllowed.stderr, /Error from server \(Forbidden\)/, 'a user without the impersonate verb may not --as');

  serve.kill('SIGTERM');
  const ended = await serve;
  t.equal(ended.exitCode, 0);
  // What serve said at start: the token file's rows upstream would only log, and (no
  // --agent-certificate-authority given) that the node proxy does not verify agents, once.
  t.match(ended.stderr, /^serve: warning: --token-auth-file: empty token has been found in token file '.*tokens\.csv', record 4 \(line 4\): row skipped$/m);
  t.match(ended.stderr, /^serve: warning: --token-auth-file: duplicate token has been found in token file '.*tokens\.csv', record 6 \(line 6\): this later row wins$/m);
  t.equal(String(ended.stderr).match(/node proxy: agents' serving certificates are not verified \(no agent CA given: serve --agent-certificate-authority\)/g)?.length, 1, 'the unverified agent certificates are mentioned once');
});

t.test('serve refuses a bad token file or authorization mode', async (t) => {
  const { dir } = kubectlAgainst(t, 'http://127.0.0.1:1');
  const bad = join(dir, 'bad.csv');
  writeFileSync(bad, 'only-two,columns\n');
  const short = await execaNode(BIN, ['serve', '--api-port', '0', '--token-auth-file', bad], { reject: false, timeout: 20_000 });
  t.equal(short.exitCode, 2);
  t.match(short.stderr, /--token-auth-file: token file .* must have at least 3 columns/);
  const missing = await execaNode(BIN, ['serve', '--api-port', '0', '--token-auth-file', join(dir, 'none.csv')], { reject: false, timeout: 20_000 });
  t.equal(missing.exitCode, 2);
  t.match(missing.stderr, /cannot read token file/);
  const mode = await execaNode(BIN, ['serve', '--api-port', '0', '--authorization-mode', 'Node'], { reject: false, timeout: 20_000 });
  t.equal(mode.exitCode, 2);
  t.match(mode.stderr, /--authorization-mode Node: want one of AlwaysAllow, RBAC/);
});
