// `serve`'s admin kubeconfig (as kind, k3s and envtest hand one out): the API URL, the CA when known,
// and a bearer token generated at start that the server authenticates as an administrator (group
// system:masters) for as long as it runs. Written owner-only (0600): it is a credential.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { StaticToken } from '../../reference/apiserver/auth/token-file.js';
import { SUPERUSER_GROUP } from '../../reference/apiserver/auth/user.js';

/** The user the kubeconfig's token authenticates as (kubeadm calls its admin kubernetes-admin). */
export const ADMIN_USER = 'orch-admin';
/** The kubeconfig's names for its cluster, user and context. */
const NAME = 'orch';

/** A fresh administrator token for the server's token table. */
export function adminToken(): StaticToken {
  return { token: randomBytes(32).toString('base64url'), user: ADMIN_USER, uid: randomUUID(), groups: [SUPERUSER_GROUP] };
}

/**
 * The kubeconfig document kubectl and `run --kubeconfig` read. Written out here rather than by the
 * YAML library, which `serve` would load for this alone (about a tenth of its start): every value is
 * a JSON string, and a JSON string is a YAML double-quoted scalar, so any URL or token is quoted right.
 */
export function kubeconfigYaml(server: string, token: string, caPem: string | undefined): string {
  const q = (s: string) => JSON.stringify(s);
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `  - name: ${q(NAME)}`,
    '    cluster:',
    `      server: ${q(server)}`,
    ...(caPem ? [`      certificate-authority-data: ${q(Buffer.from(caPem).toString('base64'))}`] : []),
    'users:',
    `  - name: ${q(ADMIN_USER)}`,
    '    user:',
    `      token: ${q(token)}`,
    'contexts:',
    `  - name: ${q(NAME)}`,
    '    context:',
    `      cluster: ${q(NAME)}`,
    `      user: ${q(ADMIN_USER)}`,
    `current-context: ${q(NAME)}`,
    '',
  ].join('\n');
}

/**
 * Writes the kubeconfig to `out` (`--kubeconfig-out`, kept after exit) or into `dir` (serve's private
 * directory, removed with it), else into a fresh private directory removed at exit. Returns its path.
 */
export function writeKubeconfig(text: string, where: { out?: string; dir?: string }): string {
  let file: string;
  if (where.out) file = resolve(where.out);
  else if (where.dir) file = join(where.dir, 'kubeconfig');
  else {
    // mkdtemp makes the directory 0700 under a name nobody could have prepared.
    const dir = mkdtempSync(join(tmpdir(), 'orch-conformance-kubeconfig-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    file = join(dir, 'kubeconfig');
  }
  writeFileSync(file, text, { mode: 0o600 });
  // The mode above applies only to a file created now: an existing one is narrowed too.
  chmodSync(file, 0o600);
  return file;
}
