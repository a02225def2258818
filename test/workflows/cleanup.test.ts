// `cleanup --run-id`: finds a run's objects by discovery and its label alone (namespaced and
// cluster-scoped, in and outside the run's namespace), releases its own finalizers, leaves nothing of
// the run, and touches nothing without the label. One reference, in process; one CLI call for the
// command line and its exit code.
import t, { type Test } from 'tap';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startReference } from '../../reference/server.js';
import { cleanupRun } from '../../runner/cleanup.js';
import { cleanupCommand, cmdCleanup } from '../../bin/commands/cleanup.js';

const SC = '/apis/storage.orch.io/v1/storageclasses';
const RUN = 'conformance.orch.io/run';
const CLI = fileURLToPath(new URL('../../bin/orch-conformance.js', import.meta.url));

/** The CLI, asynchronously: the reference it talks to answers from this process's event loop. */
function cli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ status: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
    });
  });
}

async function call(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, json: await res.json().catch(() => undefined) };
}

/** Everything labelled with run `id` (or any run) in the collections the test writes to. */
async function labelled(url: string, id?: string): Promise<string[]> {
  const out: string[] = [];
  for (const col of [SC, '/api/v1/namespaces', '/api/v1/resourcequotas']) {
    const { json } = await call(url, 'GET', col);
    for (const o of json.items) if (o.metadata.labels?.[RUN] !== undefined && (id === undefined || o.metadata.labels[RUN] === id)) out.push(`${col}/${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`);
  }
  return out.sort();
}

async function plant(t: Test, url: string): Promise<void> {
  const sc = (name: string, labels: Record<string, string>, finalizers?: string[]) => call(url, 'POST', SC, { apiVersion: 'storage.orch.io/v1', kind: 'StorageClass', metadata: { name, labels, ...(finalizers ? { finalizers } : {}) }, provisioner: 'x.orch.io/p' });
  const quota = (ns: string, name: string, labels: Record<string, string>, finalizers?: string[]) => call(url, 'POST', `/api/v1/namespaces/${ns}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name, labels, ...(finalizers ? { finalizers } : {}) }, spec: { hard: { pods: '5' } } });
  const created = await Promise.all([
    call(url, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'oc-aaa1', labels: { [RUN]: 'aaa1' } } }),
    call(url, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'keep-ns' } }),
    sc('aaa1-plain', { [RUN]: 'aaa1' }),
    // Held by a case's own finalizer: cleanup releases it, as the run's cleanup does.
    sc('aaa1-held', { [RUN]: 'aaa1' }, ['conformance.orch.io/hold']),
    sc('bbb2-other-run', { [RUN]: 'bbb2' }),
    sc('unlabelled', {}),
    // Someone else's finalizer on an unlabelled object: never touched.
    sc('unlabelled-held', { app: 'x' }, ['conformance.orch.io/hold']),
  ]);
  t.same(created.map((c) => c.status), [201, 201, 201, 201, 201, 201, 201], 'planted');
  const inNs = await Promise.all([
    quota('oc-aaa1', 'in-run-ns', { [RUN]: 'aaa1' }, ['conformance.orch.io/hold']),
    quota('oc-aaa1', 'in-run-ns-unlabelled', {}),
    quota('keep-ns', 'labelled-elsewhere', { [RUN]: 'aaa1' }),
    quota('keep-ns', 'unlabelled-elsewhere', {}),
  ]);
  t.same(inNs.map((c) => c.status), [201, 201, 201, 201], 'planted namespaced objects');
}

t.test('cleanup --run-id leaves nothing of the run and touches nothing else; --all-runs the rest', async (t) => {
  const ref = await startReference();
  t.teardown(() => ref.close());
  await plant(t, ref.url);
  t.same(await labelled(ref.url, 'aaa1'), [
    '/api/v1/namespaces/oc-aaa1', '/api/v1/resourcequotas/keep-ns/labelled-elsewhere', '/api/v1/resourcequotas/oc-aaa1/in-run-ns',
    `${SC}/aaa1-held`, `${SC}/aaa1-plain`,
  ].sort(), 'the run left these');

  const result = await cleanupRun({ conn: { baseUrl: ref.url }, runId: 'aaa1', waitMs: 20_000 });
  t.same(result.left, [], 'nothing said to be left');
  t.same(result.unverified, [], 'every resource searched');
  t.ok(result.deleted.includes(`${SC}/aaa1-held`) && result.deleted.includes('/api/v1/namespaces/oc-aaa1') && result.deleted.includes('/api/v1/namespaces/keep-ns/resourcequotas/labelled-elsewhere'), 'deleted cluster-scoped, namespace, and namespaced objects outside the run namespace');
  t.same(await labelled(ref.url, 'aaa1'), [], 'nothing labelled with the run is left');
  t.equal((await call(ref.url, 'GET', `${SC}/bbb2-other-run`)).status, 200, 'another run\'s object stays');
  t.equal((await call(ref.url, 'GET', `${SC}/unlabelled`)).status, 200, 'an unlabelled object stays');
  const held = await call(ref.url, 'GET', `${SC}/unlabelled-held`);
  t.same([held.status, held.json.metadata.finalizers, held.json.metadata.deletionTimestamp], [200, ['conformance.orch.io/hold'], undefined], 'an unlabelled object with the same finalizer is not touched');
  t.equal((await call(ref.url, 'GET', '/api/v1/namespaces/keep-ns/resourcequotas/unlabelled-elsewhere')).status, 200, 'an unlabelled namespaced object stays');

  // The command line: exit 0 and what it did; the other run's object goes with --all-runs.
  const all = await cli(['cleanup', '--all-runs', '--api', ref.url, '--wait', '20']);
  t.equal(all.status, 0, `cleanup --all-runs exits 0 (${all.stderr})`);
  t.match(all.stdout, `deleted ${SC}/bbb2-other-run`, 'says what it deleted');
  t.match(all.stdout, /nothing labelled conformance\.orch\.io\/run \(any run\) is left/);
  t.same(await labelled(ref.url), [], 'nothing of any run is left');
  t.equal((await call(ref.url, 'GET', `${SC}/unlabelled`)).status, 200, 'the unlabelled object still stays');

  // What cannot go (another controller's finalizer, which cleanup must not remove) is said to be left.
  await call(ref.url, 'POST', SC, { apiVersion: 'storage.orch.io/v1', kind: 'StorageClass', metadata: { name: 'ccc3-kept', labels: { [RUN]: 'ccc3' }, finalizers: ['example.orch.io/keep'] }, provisioner: 'x.orch.io/p' });
  const kept = await cleanupRun({ conn: { baseUrl: ref.url }, runId: 'ccc3', waitMs: 300 });
  t.same(kept.left, [`${SC}/ccc3-kept: still being deleted (finalizers: example.orch.io/keep)`], 'an object held by a finalizer not the run\'s is reported left');
  const held2 = await call(ref.url, 'GET', `${SC}/ccc3-kept`);
  t.same(held2.json.metadata.finalizers, ['example.orch.io/keep'], 'and its finalizer is not removed');
});

t.test('cleanup needs a run id or --all-runs, and a target', async (t) => {
  // In process: the usage checks come before any request (the command line's exit 2 is exitWith's).
  await t.rejects(cmdCleanup({ api: 'http://127.0.0.1:9', wait: 60 }), { name: 'UsageError', message: /--run-id <id>.*or --all-runs/ });
  await t.rejects(cmdCleanup({ runId: 'abc', allRuns: true, wait: 60 }), { name: 'UsageError', message: /--run-id <id>.*or --all-runs/ });
  await t.rejects(cmdCleanup({ runId: 'ABC!', wait: 60 }), { name: 'UsageError', message: /not a run id/ });
  await t.rejects(cmdCleanup({ runId: 'abc', wait: 60 }), { name: 'UsageError', message: /needs the target: --api/ });
});

t.test('the command an interrupted run prints carries its target flags, never a token', async (t) => {
  t.equal(cleanupCommand({ api: 'https://10.0.0.1:6443', ca: '/etc/ca dir/ca.pem', tokenFile: '/run/tok' }, 'abc123'),
    "orch-conformance cleanup --run-id abc123 --api https://10.0.0.1:6443 --ca '/etc/ca dir/ca.pem' --token-file /run/tok");
  const withToken = cleanupCommand({ api: 'https://h:6443', token: 's3cret', insecureSkipTlsVerify: true }, 'x1');
  t.equal(withToken, 'orch-conformance cleanup --run-id x1 --api https://h:6443 --insecure-skip-tls-verify --token <token>');
  t.notMatch(withToken, /s3cret/);
});
