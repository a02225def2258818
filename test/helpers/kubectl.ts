// The real kubectl pointed at a server under test: a kubeconfig and a discovery cache in a temp
// directory of the test's own, so nothing is shared between runs. kubectl must be on PATH (CI
// installs it); without it the tests fail rather than skip.
import { execa } from 'execa';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';


/** `dir` is kubectl's HOME too; `kubectl(...)` never rejects and times out after a minute. */
export function kubectlAgainst(t: { teardown(fn: () => unknown): void }, serverUrl: string) {
  const dir = mkdtempSync(join(tmpdir(), 'orch-kubectl-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: reference',
    '  cluster:',
    `    server: ${serverUrl}`,
    'contexts:',
    '- name: reference',
    '  context:',
    '    cluster: reference',
    '    user: anonymous',
    'users:',
    '- name: anonymous',
    '  user: {}',
    'current-context: reference',
    '',
  ].join('\n'));
  const kubectl = (...args: string[]) =>
    execa('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), '--request-timeout', '20s', ...args], {
      reject: false,
      env: { HOME: dir, KUBECONFIG: kubeconfig },
      timeout: 60_000,
    });
  return { dir, kubeconfig, kubectl };
}
