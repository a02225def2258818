// A new user's first steps with the real kubectl and RBAC on, through the kubeconfig `serve` prints:
// two serve processes with explicit --api-ports side by side (their companions find free ports),
// the kubeconfig owner-only and accepted by kubectl and by `run --kubeconfig`, the bootstrap roles,
// a `kubectl create rolebinding --clusterrole=view` binding giving a user read access and no more,
// and the review that answers "can I". `kubectl create rolebinding` and `kubectl auth can-i` post to
// rbac.authorization.k8s.io and authorization.k8s.io, which an orch.io server does not serve: the
// test shows those answers, creates the binding from kubectl's own manifest (--dry-run=client) in
// rbac.authorization.orch.io, and asks the review in authorization.orch.io with `kubectl create`.
import t from 'tap';
import { execa, execaNode } from 'execa';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, startServe } from './helpers/serve.js';
import { loadKubeconfig } from '../runner/kubeconfig.js';

const dir = mkdtempSync(join(tmpdir(), 'oc-kubectl-kubeconfig-'));

/** A port nothing listens on now. */
const freePort = () => new Promise<number>((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address() as AddressInfo;
    s.close(() => resolve(port));
  });
});

const kubectlWith = (kubeconfig: string) => (...args: string[]) => execa('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), '--request-timeout', '20s', ...args], {
  reject: false, stdin: 'ignore', timeout: 60_000, env: { HOME: dir },
});

/** Bounded polling: the aggregation controller fills `view` in its own time after start. */
async function eventually(what: string, fn: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`not in time: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// Started at once, beside the first test (it only waits for serve to refuse): a port held here, asked for by --scheduler-port.
const companionPortTaken = (async () => {
  const port = await freePort();
  const busy = createServer().listen(port, '127.0.0.1');
  await new Promise((r) => busy.once('listening', r));
  try {
    return { port, r: await execaNode(BIN, ['serve', '--api-port', '0', '--scheduler-port', String(port), '--controllers', ''], { reject: false, timeout: 60_000 }) };
  } finally {
    busy.close();
  }
})();

t.test('serve\'s kubeconfig with RBAC on: kubectl, the bootstrap roles, a view binding, two serve side by side', async (t) => {
  writeFileSync(join(dir, 'tokens.csv'), 'alice-token,alice,100\n');
  const out = join(dir, 'admin.kubeconfig');
  const [portA, portB] = [await freePort(), await freePort()];
  const rbac = ['--authorization-mode', 'RBAC', '--token-auth-file', join(dir, 'tokens.csv')];
  // Started together: both find the companions' upstream ports free, one of them then takes free ones.
  const [a, b] = await Promise.all([
    startServe(t, ['--api-port', String(portA), ...rbac, '--kubeconfig-out', out]),
    startServe(t, ['--api-port', String(portB), ...rbac]),
  ]);
  t.equal(a.url, `https://127.0.0.1:${portA}`);
  t.equal(b.url, `https://127.0.0.1:${portB}`);
  t.not(a.components!['controller-manager'], b.components!['controller-manager'], 'the controller managers listen apart');
  t.not(a.components!['scheduler'], b.components!['scheduler'], 'the schedulers listen apart');
  t.equal(a.kubeconfig, out, 'kubeconfig: the --kubeconfig-out path');
  t.ok(b.kubeconfig, 'kubeconfig: a path of serve\'s own without --kubeconfig-out');
  for (const file of [a.kubeconfig!, b.kubeconfig!]) t.equal(statSync(file).mode & 0o777, 0o600, `${file} is owner-only`);

  const admin = kubectlWith(a.kubeconfig!);
  const other = kubectlWith(b.kubeconfig!);
  const nodes = await admin('get', 'nodes');
  t.equal(nodes.exitCode, 0, `kubectl get nodes with the kubeconfig: ${nodes.stderr}`);
  t.equal((await other('get', 'nodes')).exitCode, 0, 'the other server\'s kubeconfig works against it');
  t.not((await kubectlWith(b.kubeconfig!)('--server', a.url, '--insecure-skip-tls-verify', 'get', 'nodes')).exitCode, 0, 'one server\'s token is nothing to the other');

  // The bootstrap roles, with upstream's aggregation labels.
  const roles = await admin('get', 'clusterroles', 'cluster-admin', 'admin', 'edit', 'view', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.metadata.labels}{"\\n"}{end}');
  t.equal(roles.exitCode, 0, roles.stderr);
  t.match(roles.stdout, /^view=.*"rbac\.authorization\.orch\.io\/aggregate-to-edit":"true"/m, 'view aggregates into edit');
  t.match(roles.stdout, /^edit=.*"rbac\.authorization\.orch\.io\/aggregate-to-admin":"true"/m, 'edit aggregates into admin');

  // A user with no binding reads nothing; a view binding in one namespace lets them read there only.
  const alice = (...args: string[]) => admin('--token', 'alice-token', ...args);
  t.equal((await admin('create', 'namespace', 'demo')).exitCode, 0);
  const before = await alice('get', 'pods', '-n', 'demo');
  t.not(before.exitCode, 0);
  t.match(before.stderr, /Forbidden/, 'no binding: forbidden');
  // kubectl create rolebinding posts to rbac.authorization.k8s.io (hard-coded): not served here. Its
  // client-side manifest, in the orch.io group, is the same binding.
  const direct = await admin('create', 'rolebinding', 'alice-view', '--clusterrole=view', '--user=alice', '-n', 'demo');
  t.match(direct.stderr, /could not find the requested resource/, 'kubectl create rolebinding: rbac.authorization.k8s.io is not served');
  const manifest = await admin('create', 'rolebinding', 'alice-view', '--clusterrole=view', '--user=alice', '-n', 'demo', '--dry-run=client', '-o', 'yaml');
  t.equal(manifest.exitCode, 0, manifest.stderr);
  writeFileSync(join(dir, 'binding.yaml'), manifest.stdout.replaceAll('rbac.authorization.k8s.io', 'rbac.authorization.orch.io'));
  const bind = await admin('create', '-f', join(dir, 'binding.yaml'));
  t.equal(bind.exitCode, 0, bind.stderr);
  await eventually('alice reads pods in demo', async () => (await alice('get', 'pods', '-n', 'demo')).exitCode === 0);
  t.pass('view bound in demo: alice lists pods there');
  t.equal((await alice('get', 'resourcequotas,events.events.orch.io', '-n', 'demo')).exitCode, 0, 'and what else view reads');
  const write = await alice('create', 'quota', 'x', '--hard=pods=1', '-n', 'demo');
  t.match(write.stderr, /forbidden: User "alice" cannot create resource "resourcequotas"/, 'view does not write');
  t.match((await alice('get', 'pods', '-n', 'default')).stderr, /Forbidden/, 'nor read in another namespace');
  t.match((await alice('get', 'roles.rbac.authorization.orch.io', '-n', 'demo')).stderr, /Forbidden/, 'nor read roles (admin\'s)');

  // kubectl auth can-i: a hard-coded authorization.k8s.io, not served here.
  const canI = await alice('auth', 'can-i', 'list', 'pods', '-n', 'demo');
  t.not(canI.exitCode, 0, 'kubectl auth can-i cannot reach authorization.k8s.io on an orch.io server');
  // The same question in authorization.orch.io.
  const ask = async (verb: string, resource: string) => {
    const file = join(dir, `ssar-${verb}-${resource}.yaml`);
    writeFileSync(file, `apiVersion: authorization.orch.io/v1\nkind: SelfSubjectAccessReview\nspec:\n  resourceAttributes: {namespace: demo, verb: ${verb}, resource: ${resource}}\n`);
    // --validate=false: kubectl's validation lists apiextensions.k8s.io CRDs first, which alice may not.
    const r = await alice('create', '--validate=false', '-f', file, '-o', 'jsonpath={.status.allowed}');
    t.equal(r.exitCode, 0, r.stderr);
    return r.stdout;
  };
  t.equal(await ask('list', 'pods'), 'true', 'can alice list pods in demo: yes');
  t.equal(await ask('create', 'pods'), 'false', 'can alice create pods in demo: no');

  // nodes/proxy is in discovery.
  const core = JSON.parse((await admin('get', '--raw', '/api/v1')).stdout) as { resources: Array<{ name: string; kind: string; verbs: string[] }> };
  t.match(core.resources.find((r) => r.name === 'nodes/proxy'), { kind: 'NodeProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] }, 'nodes/proxy listed');

  // run --kubeconfig reads the same file (what it does with a target read so: cli-kubeconfig.test.ts).
  const target = loadKubeconfig(a.kubeconfig!);
  t.equal(target.server, a.url, 'run --kubeconfig: the server');
  t.match(target.caPem, /BEGIN CERTIFICATE/, 'the CA');
  t.ok(target.token, 'the admin token');
});

t.test('a companion port taken: the error names the port and its flag', async (t) => {
  const { port, r } = await companionPortTaken;
  t.equal(r.exitCode, 2);
  t.match(r.stderr, `127.0.0.1:${port} (--scheduler-port): port in use`);
  t.match(r.stderr, 'pick another --scheduler-port');
});
