// A second Ctrl-C quits a run at once, without its cleanup: the run says which command removes what it
// left, and that command (cleanup --run-id) leaves nothing of the run on the target.
import t from 'tap';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startReference } from '../../reference/server.js';
import { startBrokenTarget } from '../helpers/broken-target.js';
import { cleanupRun } from '../../runner/cleanup.js';

const CLI = fileURLToPath(new URL('../../bin/orch-conformance.js', import.meta.url));
const SC = '/apis/storage.orch.io/v1/storageclasses';

t.test('a second Ctrl-C prints the cleanup command, which removes what the run left', async (t) => {
  const ref = await startReference();
  t.teardown(() => ref.close());
  // Reads of the run's own StorageClasses hang: a case is under way when the signals come (the run's
  // namespace created);
  // deletes hang too, so the run's own cleanup is still under way at the second Ctrl-C.
  let hanging!: () => void;
  const hung = new Promise<void>((resolve) => (hanging = resolve));
  const broken = await startBrokenTarget(ref.url, {
    request: (r) => {
      if (r.method === 'DELETE') return new Promise<void>(() => undefined);
      if (r.method !== 'GET' || !r.path.includes('/storageclasses/oc-left1-')) return undefined;
      hanging();
      return new Promise<void>(() => undefined);
    },
  });
  t.teardown(() => broken.close());
  const child = spawn(process.execPath, [CLI, 'run', '--api', broken.url, '--suite', 'storageclass', '--parallel', '1', '--run-id', 'left1', '--reporter', 'json=-'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await hung;
  child.kill('SIGINT');
  // The second once the first was seen: the run is stopping, and quits at once.
  for (let i = 0; i < 200 && !stderr.includes('interrupted (SIGINT)'); i++) await new Promise((r) => setTimeout(r, 25));
  child.kill('SIGINT');
  t.equal(await exited, 130, stderr);
  t.match(stderr, `to remove what run left1 left on the target: orch-conformance cleanup --run-id left1 --api ${broken.url}\n`, 'names the exact command');

  const labelled = async () => (await Promise.all([SC, '/api/v1/namespaces'].map(async (col) => ((await (await fetch(`${ref.url}${col}?labelSelector=conformance.orch.io/run%3Dleft1`)).json()) as any).items.map((o: any) => `${col}/${o.metadata.name}`)))).flat();
  t.ok((await labelled()).includes('/api/v1/namespaces/oc-left1'), 'the run left its namespace behind');
  const result = await cleanupRun({ conn: { baseUrl: ref.url }, runId: 'left1', waitMs: 10_000 });
  t.same(result.left, []);
  t.same(await labelled(), [], 'nothing of the run is left');
});
