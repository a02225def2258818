// The real kubectl (1.32) through the reference API server's pods/exec, pods/attach and
// pods/portforward, to the reference agent and the mock CRI (one in-process node, startStreamingNode):
// `exec -- echo hi`, `exec -i` with stdin, `exec -it` through a pseudo-terminal (`script`), `attach`,
// `port-forward` to the port the simulated container listens on, `run` then `logs`, and `delete pod`
// (Terminating, then gone). kubectl tries WebSocket first
// (v5.channel.k8s.io for exec and attach, the SPDY tunnel for port-forward); the server's log of
// requests is not needed: the sessions work or the commands fail.
import { execa } from 'execa';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { kubectlAgainst } from './helpers/kubectl.js';
import { until } from './agent/helpers.js';
import { startStreamingNode } from './helpers/streaming-clients.js';

const ADMIN = 'kubectl-exec-admin';

t.test('kubectl exec, attach and port-forward', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-exec-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { ref, api, cri } = await startStreamingNode(t, join(dir, 'node'), [{ token: ADMIN, user: 'admin', groups: ['system:masters'] }], { throughApi: true, https: true });
  const { kubeconfig, dir: home } = kubectlAgainst(t, ref.url, { caPem: ref.caPem });
  const args = ['--kubeconfig', kubeconfig, '--cache-dir', join(home, 'cache'), '--token', ADMIN];
  const env = { HOME: home, KUBECONFIG: kubeconfig };
  const kubectl = (input: string | undefined, ...rest: string[]) =>
    execa('kubectl', [...args, ...rest], { reject: false, env, timeout: 30_000, ...(input === undefined ? { stdin: 'ignore' as const } : { input }) });

  await api.create('/api/v1/namespaces/default/pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' },
    spec: {
      nodeName: 'n1', terminationGracePeriodSeconds: 1,
      containers: [
        { name: 'c', image: 'busybox:1.36', command: ['nc', '-l', '-p', '8080'] },
        { name: 'shell', image: 'busybox:1.36', command: ['sh'], stdin: true, tty: false },
      ],
    },
  });
  await until('pod web running', async () => {
    const p = await api.get('/api/v1/namespaces/default/pods/web');
    return p.status?.phase === 'Running' && p.status.containerStatuses?.every((s: any) => s.state?.running) ? p : undefined;
  }, 20_000);

  t.test('exec -- echo hi; exec -i with stdin; the exit code', async (t) => {
    const hi = await kubectl(undefined, 'exec', 'web', '-c', 'c', '--', 'echo', 'hi');
    t.same([hi.exitCode, hi.stdout, hi.stderr], [0, 'hi', ''], hi.stderr);
    const cat = await kubectl('through kubectl\n', 'exec', '-i', 'web', '-c', 'c', '--', 'cat');
    t.same([cat.exitCode, cat.stdout], [0, 'through kubectl'], cat.stderr);
    const code = await kubectl(undefined, 'exec', 'web', '-c', 'c', '--', 'sh', '-c', 'exit 3');
    t.equal(code.exitCode, 3, `the command's exit code: ${code.stderr}`);
  });

  t.test('exec -it through a pseudo-terminal', async (t) => {
    const line = ['kubectl', ...args, 'exec', '-it', 'web', '-c', 'c', '--', 'sh'].map((a) => `'${a}'`).join(' ');
    const r = await execa('script', ['-qec', line, '/dev/null'], { reject: false, env, timeout: 30_000, input: 'echo tty-$((6*7))\nexit\n' });
    t.equal(r.exitCode, 0, r.stderr);
    // The terminal echoes the typed line back with "\r\n"; the shell's answer follows (execa strips the last line end).
    t.match(cri.control.calls.list({ rpc: 'Exec' }).at(-1)!.request, { cmd: ['sh'], tty: true, stdin: true }, 'the runtime was asked for a terminal');
    t.match(r.stdout, /echo tty-\$\(\(6\*7\)\)\r\n[\s\S]*tty-42/, 'the shell ran the line on a terminal');
  });

  t.test('attach', async (t) => {
    const proc = execa('kubectl', [...args, 'attach', 'web', '-c', 'shell', '-i'], { reject: false, env, timeout: 30_000, stdin: 'pipe' });
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => { out += c.toString(); });
    proc.stdin!.write('echo attached-$((2+3))\n');
    await until('the attached shell\'s answer', async () => (out.includes('attached-5') ? true : undefined), 20_000);
    t.pass('the container\'s shell answered through kubectl attach');
    proc.kill('SIGINT');
    await proc;
  });

  t.test('port-forward to the port the container listens on', async (t) => {
    const proc = execa('kubectl', [...args, 'port-forward', 'pod/web', ':8080'], { reject: false, env, timeout: 30_000, stdin: 'ignore' });
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => { out += c.toString(); });
    proc.stderr!.on('data', (c: Buffer) => { out += c.toString(); });
    const port = await until('kubectl to listen', async () => /Forwarding from 127\.0\.0\.1:(\d+) -> 8080/.exec(out)?.[1], 20_000);
    const echoed = await new Promise<string>((resolve, reject) => {
      const s = connect(Number(port), '127.0.0.1', () => s.write('ping through kubectl'));
      let got = '';
      s.on('data', (d) => { got += d.toString(); if (got.length >= 'ping through kubectl'.length) { s.end(); resolve(got); } });
      s.on('error', reject);
      setTimeout(() => reject(new Error(`no echo; kubectl said: ${out}`)), 10_000).unref();
    });
    t.equal(echoed, 'ping through kubectl');
    t.notMatch(out, /error|fall/i, `no error or fallback on kubectl's side: ${out}`);
    proc.kill('SIGINT');
    await proc;
  });

  t.test('kubectl run, then logs', async (t) => {
    const run = await kubectl(undefined, 'run', 'hello', '--image', 'busybox:1.36', '--restart', 'Never',
      '--overrides', '{"apiVersion":"v1","spec":{"nodeName":"n1"}}', '--', 'echo', 'hello from kubectl run');
    t.same([run.exitCode, run.stdout], [0, 'pod/hello created'], run.stderr);
    await until('pod hello to finish', async () => {
      const p = await api.get('/api/v1/namespaces/default/pods/hello');
      return p.status?.phase === 'Succeeded' ? p : undefined;
    }, 20_000);
    const logs = await kubectl(undefined, 'logs', 'hello');
    t.same([logs.exitCode, logs.stdout], [0, 'hello from kubectl run'], logs.stderr);
  });

  // Last, as it removes the pod: kubectl's delete waits until the pod is gone, and a watch begun
  // before it shows the pod Terminating first (marked with its grace period while the agent stops it).
  t.test('delete pod: Terminating, then gone', async (t) => {
    const watch = execa('kubectl', [...args, 'get', 'pod', 'web', '--watch', '--output-watch-events'], { reject: false, env, timeout: 30_000, stdin: 'ignore' });
    let seen = '';
    watch.stdout!.on('data', (c: Buffer) => { seen += c.toString(); });
    await until('the watch\'s first row', async () => (/\bweb\b/.test(seen) ? true : undefined), 20_000);
    const del = await kubectl(undefined, 'delete', 'pod', 'web', '--timeout', '20s');
    t.same([del.exitCode, del.stdout], [0, 'pod "web" deleted'], del.stderr);
    await until('the watch to show the deletion', async () => (/DELETED/.test(seen) ? true : undefined), 10_000);
    watch.kill('SIGINT');
    await watch;
    t.match(seen, /MODIFIED\s+web\s+\S+\s+Terminating/, `the pod was Terminating before it went: ${seen}`);
    const gone = await kubectl(undefined, 'get', 'pod', 'web');
    t.match(gone.stderr, /NotFound|not found/, 'and then gone');
  });
});
