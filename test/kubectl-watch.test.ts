// The real kubectl watching the reference started with `serve --plain-http` (the plain-HTTP option
// for quick local use, as `kubectl --server http://...` takes it): `kubectl get -w
// --output-watch-events` prints the ADDED and DELETED of an object created and deleted while it
// runs. kubectl must be on PATH.
import t from 'tap';
import { execa } from 'execa';
import { join } from 'node:path';
import { kubectlAgainst } from './helpers/kubectl.js';
import { startServe } from './helpers/serve.js';

const SC = '/apis/storage.orch.io/v1/storageclasses';

t.test('kubectl get -w streams the changes', async (t) => {
  const ref = await startServe(t, ['--plain-http']);
  t.match(ref.url, /^http:\/\//, '--plain-http serves plain HTTP');
  t.equal(ref.ca, undefined, 'and prints no ca: line');
  const { dir, kubeconfig } = kubectlAgainst(t, ref.url);

  const before = await fetch(`${ref.url}${SC}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'storage.orch.io/v1', kind: 'StorageClass', metadata: { name: 'kubectl-before' }, provisioner: 'example.orch.io/fast' }),
  });
  t.equal(before.status, 201, 'an object before kubectl starts');

  const proc = execa('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), 'get', 'storageclasses.storage.orch.io', '-w', '--output-watch-events'], {
    env: { HOME: dir, KUBECONFIG: kubeconfig },
    reject: false,
    buffer: false,
  });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  t.teardown(() => {
    proc.kill('SIGKILL');
    return proc.catch(() => {});
  });
  let exited = false;
  void proc.then(() => (exited = true), () => (exited = true));

  /** Waits until stdout has a line matching `re`, or fails with what kubectl printed. */
  const line = async (re: RegExp, what: string): Promise<boolean> => {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && !exited) {
      if (out.split('\n').some((l) => re.test(l))) {
        t.pass(what);
        return true;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const ok = out.split('\n').some((l) => re.test(l));
    t.ok(ok, `${what} (stdout: ${JSON.stringify(out)}, stderr: ${JSON.stringify(err)})`);
    return ok;
  };

  // kubectl lists, then watches from the list's resourceVersion: once it printed the object that
  // was there before it started, its list is done and every later change reaches its watch.
  const post = (name: string) => fetch(`${ref.url}${SC}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'storage.orch.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: 'example.orch.io/fast' }),
  });
  if (!(await line(/^ADDED\s+kubectl-before\s/, 'kubectl printed the object that existed before it started'))) return;
  const name = 'kubectl-watched';
  t.equal((await post(name)).status, 201, 'created');
  if (!(await line(new RegExp(`^ADDED\\s+${name}\\s`), 'kubectl printed ADDED'))) return;
  t.equal((await fetch(`${ref.url}${SC}/${name}`, { method: 'DELETE' })).status, 200, 'deleted');
  await line(new RegExp(`^DELETED\\s+${name}\\s`), 'kubectl printed DELETED');
  t.match(out.split('\n')[0] ?? '', /^EVENT\s+NAME\s+PROVISIONER\s+/, 'the header names the EVENT column, then the Table columns');
  t.notOk(exited, 'kubectl was still watching');
});

