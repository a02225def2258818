// The real kubectl pointed at a server under test: a kubeconfig and a discovery cache in a temp
// directory of the test's own, so nothing is shared between runs. kubectl must be on PATH (CI
// installs it); without it the tests fail rather than skip.
import { execa } from 'execa';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';


/**
 * `dir` is kubectl's HOME too; `kubectl(...)` never rejects and times out after a minute. An https
 * server's CA (`ca`: a file, or `caPem`) goes into the kubeconfig as certificate-authority. kubectl
 * prompts for a user name on stdin when it has no credential for an https server, so the user then
 * carries a token (ignored by a reference without --token-auth-file; `--token` on a command
 * line overrides it).
 */
export function kubectlAgainst(t: { teardown(fn: () => unknown): void }, serverUrl: string, tls: { ca?: string; caPem?: string } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'orch-kubectl-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = join(dir, 'kubeconfig');
  let ca = tls.ca;
  if (tls.caPem !== undefined) writeFileSync((ca = join(dir, 'ca.crt')), tls.caPem);
  const https = serverUrl.startsWith('https:');
  writeFileSync(kubeconfig, [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: reference',
    '  cluster:',
    `    server: ${serverUrl}`,
    ...(ca ? [`    certificate-authority: ${ca}`] : []),
    'contexts:',
    '- name: reference',
    '  context:',
    '    cluster: reference',
    '    user: anonymous',
    'users:',
    '- name: anonymous',
    https ? '  user: {token: kubectl-test}' : '  user: {}',
    'current-context: reference',
    '',
  ].join('\n'));
  const kubectl = (...args: string[]) =>
    execa('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), '--request-timeout', '20s', ...args], {
      reject: false,
      env: { HOME: dir, KUBECONFIG: kubeconfig },
      // A prompt then fails at once instead of waiting for the minute.
      stdin: 'ignore',
      timeout: 60_000,
    });
  return { dir, kubeconfig, kubectl };
}
