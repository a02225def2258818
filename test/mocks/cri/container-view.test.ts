// The simulated container reports what CreateContainer and RunPodSandbox configured (user, groups,
// capabilities, no_new_privs, seccomp, hostname, DNS, mounts, read-only root), through ExecSync as a CRI
// client sees it; the shell's arithmetic, pipes and pgrep; a read-only-root container that exits, exits.
import t from 'tap';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CriClient } from '../../../cri/proto.js';
import { capabilitySets, hex16 } from '../../../mocks/cri/container-view.js';
import type { ContainerConfig } from '../../../cri/proto.js';
import { startCri, waitState } from './helpers.js';

const SANDBOX = {
  metadata: { name: 'p', uid: 'uid-1', namespace: 'ns' }, hostname: 'web-0',
  dns_config: { servers: ['10.96.0.10', '10.96.0.11'], searches: ['ns.svc.cluster.local', 'svc.cluster.local'], options: ['ndots:5'] },
};

async function exec(c: CriClient, id: string, cmd: string[]) {
  const r = await c.call('ExecSync', { container_id: id, cmd, timeout: 5 });
  return { out: r.stdout.toString(), err: r.stderr.toString(), code: r.exit_code };
}

const sh = (c: CriClient, id: string, script: string) => exec(c, id, ['sh', '-c', script]);

t.test('a container with a security context, mounts and a sandbox with DNS reports them from inside', async (t) => {
  const { c, dir } = await startCri(t);
  const ro = join(dir, 'config');
  const rw = join(dir, 'data');
  mkdirSync(ro);
  mkdirSync(rw);
  writeFileSync(join(ro, 'app.conf'), 'level=debug\n');
  writeFileSync(join(dir, 'secret'), 'outside\n');
  symlinkSync(join(dir, 'secret'), join(ro, 'escape'));
  writeFileSync(join(dir, 'hosts'), '10.0.0.1\tdb\n');
  const sb = (await c.call('RunPodSandbox', { config: { ...SANDBOX, log_directory: join(dir, 'logs') } })).pod_sandbox_id;
  const id = (await c.call('CreateContainer', {
    pod_sandbox_id: sb,
    config: {
      metadata: { name: 'app' }, image: { image: 'busybox' }, command: ['sh', '-c', 'sleep infinity'],
      mounts: [
        { container_path: '/config', host_path: ro, readonly: true },
        { container_path: '/data', host_path: rw },
        { container_path: '/etc/hosts', host_path: join(dir, 'hosts'), readonly: true },
      ],
      linux: {
        security_context: {
          run_as_user: { value: 1000 }, run_as_group: { value: 3000 }, supplemental_groups: [4000],
          capabilities: { add_capabilities: ['NET_ADMIN'], drop_capabilities: ['ALL'] },
          no_new_privs: true, readonly_rootfs: true, seccomp: { profile_type: 'RuntimeDefault' },
        },
      },
    },
  })).container_id;
  await c.call('StartContainer', { container_id: id });

  const status = (await exec(c, id, ['cat', '/proc/self/status'])).out;
  const field = (name: string) => new RegExp(`^${name}:\\t(.*)$`, 'm').exec(status)?.[1];
  t.equal(field('Name'), 'cat', '/proc/self is the reading process');
  t.equal(field('Uid'), '1000\t1000\t1000\t1000');
  t.equal(field('Gid'), '3000\t3000\t3000\t3000');
  t.equal(field('Groups'), '3000 4000');
  t.equal(field('CapBnd'), '0000000000001000', 'drop ALL, add NET_ADMIN: the bounding set is NET_ADMIN (bit 12) alone');
  t.equal(field('CapEff'), '0000000000000000', 'a non-root process keeps no effective capabilities after execve');
  t.equal(field('CapPrm'), '0000000000000000');
  t.equal(field('CapInh'), '0000000000000000');
  t.equal(field('NoNewPrivs'), '1');
  t.equal(field('Seccomp'), '2');
  t.equal(field('Seccomp_filters'), '1');
  t.match((await exec(c, id, ['cat', '/proc/1/status'])).out, /^Name:\tsh$/m, 'PID 1 is the container command');
  t.equal((await exec(c, id, ['cat', '/proc/1/cmdline'])).out, 'sh\0-c\0sleep infinity\0');

  t.same(await exec(c, id, ['id']), { out: 'uid=1000 gid=3000 groups=3000,4000\n', err: '', code: 0 });
  t.equal((await exec(c, id, ['id', '-u'])).out, '1000\n');
  t.equal((await exec(c, id, ['id', '-G'])).out, '3000 4000\n');
  t.equal((await sh(c, id, 'echo $(id -u):$(id -g)')).out, '1000:3000\n');
  t.equal((await exec(c, id, ['hostname'])).out, 'web-0\n');
  t.equal((await exec(c, id, ['cat', '/etc/hostname'])).out, 'web-0\n');
  t.equal((await exec(c, id, ['cat', '/etc/resolv.conf'])).out,
    'search ns.svc.cluster.local svc.cluster.local\nnameserver 10.96.0.10\nnameserver 10.96.0.11\noptions ndots:5\n');
  t.equal((await exec(c, id, ['cat', '/etc/hosts'])).out, '10.0.0.1\tdb\n', 'a mount on /etc/hosts wins');

  // Mounts: the host directories' content, read-only refused, writable written through to the host.
  t.equal((await exec(c, id, ['ls', '/config'])).out, 'app.conf\nescape\n');
  t.equal((await exec(c, id, ['cat', '/config/app.conf'])).out, 'level=debug\n');
  t.match((await exec(c, id, ['ls', '/'])).out, /^config\ndata\ndev\netc\n/m, 'mount points show in their parent');
  t.same(await exec(c, id, ['cat', '/config/escape']), { out: '', err: "cat: can't open '/config/escape': No such file or directory\n", code: 1 },
    'a symlink out of the mounted directory is not followed');
  t.same(await exec(c, id, ['cat', '/config/../../secret']), { out: '', err: "cat: can't open '/config/../../secret': No such file or directory\n", code: 1 });
  t.same(await sh(c, id, 'echo x > /config/new'), { out: '', err: "sh: can't create /config/new: Read-only file system\n", code: 1 });
  t.same(await exec(c, id, ['touch', '/config/app.conf']), { out: '', err: 'touch: /config/app.conf: Read-only file system\n', code: 1 });
  t.same(await sh(c, id, 'echo saved > /data/out && cat /data/out'), { out: 'saved\n', err: '', code: 0 });
  t.equal(readFileSync(join(rw, 'out'), 'utf8'), 'saved\n', 'the write reached the host directory');
  t.same(await sh(c, id, 'touch /tmp/x'), { out: '', err: 'touch: /tmp/x: Read-only file system\n', code: 1 }, 'the read-only root');
  t.same(await sh(c, id, 'test -w /data && echo data; test -w /config || echo config-ro; [ -d /config ] && [ -f /config/app.conf ] && echo ok'),
    { out: 'data\nconfig-ro\nok\n', err: '', code: 0 });

  // The shell: arithmetic, command substitution, pipes, pgrep.
  t.equal((await sh(c, id, 'echo $((2+3*4)) $(( (7 - 1) / 4 % 2 ))')).out, '14 1\n');
  t.equal((await sh(c, id, 'false; echo $?')).out, '1\n');
  t.equal((await sh(c, id, 'cat /etc/resolv.conf | grep nameserver | wc -l')).out, '2\n');
  t.equal((await sh(c, id, 'cat /etc/resolv.conf | head -n 1')).out, 'search ns.svc.cluster.local svc.cluster.local\n');
  t.same(await exec(c, id, ['pgrep', 'sh']), { out: '1\n', err: '', code: 0 });
  t.same(await exec(c, id, ['pgrep', 'nginx']), { out: '', err: '', code: 1 });
  t.match((await sh(c, id, 'pgrep -f "sleep infinity"')).out, /^1\n/, '-f matches the command line');
  t.equal((await exec(c, id, ['env'])).code, 0);
});

t.test('a container without a security context: root with containerd default capabilities, unconfined', async (t) => {
  const { c } = await startCri(t);
  const sb = (await c.call('RunPodSandbox', { config: { metadata: { name: 'p', uid: 'u', namespace: 'ns' } } })).pod_sandbox_id;
  const id = (await c.call('CreateContainer', { pod_sandbox_id: sb, config: { metadata: { name: 'a' }, image: { image: 'busybox' }, command: ['sleep', '3600'] } })).container_id;
  await c.call('StartContainer', { container_id: id });
  const status = (await exec(c, id, ['cat', '/proc/1/status'])).out;
  t.match(status, /^Name:\tsleep$/m);
  t.match(status, /^CapEff:\t00000000a80425fb$/m, 'containerd defaultUnixCaps');
  t.match(status, /^CapPrm:\t00000000a80425fb$/m);
  t.match(status, /^NoNewPrivs:\t0$/m);
  t.match(status, /^Seccomp:\t0$/m);
  t.equal((await exec(c, id, ['id'])).out, 'uid=0(root) gid=0(root) groups=0(root)\n');
  t.same(await exec(c, id, ['sh', '-c', 'echo hi > /tmp/f; mkdir -p /var/x/y; ls /var/x; cat /tmp/f']), { out: 'y\nhi\n', err: '', code: 0 }, 'a writable root');
  t.equal((await exec(c, id, ['cat', '/etc/resolv.conf'])).out, (() => { try { return readFileSync('/etc/resolv.conf', 'utf8'); } catch { return ''; } })(),
    'no DNS settings: a copy of the host resolv.conf, as containerd');
});

t.test('capability sets: add and drop in containerd order, privileged is all, uid 0 keeps them effective', async (t) => {
  const cfg = (sc: object) => ({ linux: { security_context: sc } }) as unknown as ContainerConfig;
  t.equal(hex16(capabilitySets(cfg({}), 0).eff), '00000000a80425fb');
  t.equal(hex16(capabilitySets(cfg({ capabilities: { add_capabilities: ['SYS_ADMIN'], drop_capabilities: ['NET_RAW', 'CAP_KILL'] } }), 0).bnd), '00000000a82405db');
  t.equal(capabilitySets(cfg({ capabilities: { add_capabilities: ['ALL'], drop_capabilities: ['CHOWN'] } }), 0).eff & 1n, 0n, 'ALL then a drop');
  const priv = capabilitySets(cfg({ privileged: true, capabilities: { drop_capabilities: ['ALL'] } }), 0);
  t.ok(priv.eff > 0xa80425fbn && (priv.eff & (priv.eff + 1n)) === 0n, 'privileged: every capability, whatever add/drop say');
  const amb = capabilitySets(cfg({ capabilities: { add_capabilities: ['NET_BIND_SERVICE'], add_ambient_capabilities: ['NET_BIND_SERVICE'] } }), 1000);
  t.same([hex16(amb.eff), hex16(amb.amb), hex16(amb.inh)], ['0000000000000400', '0000000000000400', '0000000000000400'], 'ambient capabilities survive execve for a non-root user');
});

t.test('a read-only-root container whose command ends, ends with its code; touch fails as busybox says', async (t) => {
  const { c, dir } = await startCri(t);
  const logs = join(dir, 'logs');
  const sb = (await c.call('RunPodSandbox', { config: { metadata: { name: 'p', uid: 'u', namespace: 'ns' }, log_directory: logs } })).pod_sandbox_id;
  const create = async (name: string, command: string[], readonly: boolean) => (await c.call('CreateContainer', {
    pod_sandbox_id: sb,
    config: { metadata: { name }, image: { image: 'busybox' }, command, log_path: `${name}.log`, linux: { security_context: { readonly_rootfs: readonly } } },
  })).container_id;
  const exit3 = await create('exit3', ['sh', '-c', 'exit 3'], true);
  const touchRo = await create('touch-ro', ['sh', '-c', "touch test.go && [ -f test.go ] && echo 'Found'"], true);
  const touchRw = await create('touch-rw', ['sh', '-c', "touch test.go && [ -f test.go ] && echo 'Found'"], false);
  for (const id of [exit3, touchRo, touchRw]) await c.call('StartContainer', { container_id: id });
  t.equal((await waitState(c, exit3, 'CONTAINER_EXITED')).exit_code, 3);
  t.equal((await waitState(c, touchRo, 'CONTAINER_EXITED')).exit_code, 1);
  t.equal((await waitState(c, touchRw, 'CONTAINER_EXITED')).exit_code, 0);
  t.match(readFileSync(join(logs, 'touch-ro.log'), 'utf8'), / stderr F touch: test.go: Read-only file system\n$/);
  t.match(readFileSync(join(logs, 'touch-rw.log'), 'utf8'), / stdout F Found\n$/);
});

t.test('an image user name the simulated /etc/passwd does not know fails CreateContainer, as containerd', async (t) => {
  const { c } = await startCri(t);
  const sb = (await c.call('RunPodSandbox', { config: { metadata: { name: 'p', uid: 'u', namespace: 'ns' } } })).pod_sandbox_id;
  const ok = (await c.call('CreateContainer', { pod_sandbox_id: sb, config: { metadata: { name: 'n' }, image: { image: 'busybox' }, command: ['sleep', '9'], linux: { security_context: { run_as_username: 'nobody' } } } })).container_id;
  await c.call('StartContainer', { container_id: ok });
  t.equal((await exec(c, ok, ['id', '-nu'])).out, 'nobody\n');
  t.equal((await exec(c, ok, ['id', '-g'])).out, '65534\n', 'the passwd entry gives the primary group');
  await t.rejects(c.call('CreateContainer', { pod_sandbox_id: sb, config: { metadata: { name: 'x' }, image: { image: 'busybox' }, linux: { security_context: { run_as_username: 'ghost' } } } }),
    /unable to find user ghost/);
});
