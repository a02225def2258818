// CreateContainer's security-context checks and the user a container runs as, as containerd decides
// them (mocks/cri/state.ts, users.ts; containerd pkg/cri/server/container_create_linux.go): a group
// without a user refused, username over uid, the image's User when the request names none, names
// resolved against the image's passwd/group files, a privileged container only in a privileged
// sandbox, a profile reference only with Localhost (seccomp and AppArmor). The differential test
// (cri-containerd.test.ts) holds the same cases against a real containerd.
import t from 'tap';
import * as grpc from '@grpc/grpc-js';
import { resolveUser, userString } from '../../../mocks/cri/users.js';
import { failure, startCri } from './helpers.js';

const pod = (name: string, linux: object = {}) => ({ metadata: { name, uid: `uid-${name}`, namespace: 'default', attempt: 0 }, linux });

t.test('user strings and their resolution, as containerd\'s generateUserString and oci.WithUser', async (t) => {
  t.equal(userString(null), '');
  t.equal(userString({ run_as_user: { value: '1000' } }), '1000');
  t.equal(userString({ run_as_user: { value: '1000' }, run_as_group: { value: '2000' } }), '1000:2000');
  t.equal(userString({ run_as_username: 'www-data', run_as_user: { value: '5' } }), 'www-data', 'the name wins');
  t.equal(userString({ run_as_username: 'www-data', run_as_group: { value: '7' } }), 'www-data:7');
  t.throws(() => userString({ run_as_group: { value: '1000' } }), /user group "1000" is specified without user/);
  t.same(resolveUser(''), { uid: 0, gid: 0 });
  t.same(resolveUser('1002'), { uid: 1002, gid: 0 }, 'a uid the passwd file lacks: gid 0');
  t.same(resolveUser('65534'), { uid: 65534, gid: 65534 }, 'a listed uid: its gid');
  t.same(resolveUser('1003:users'), { uid: 1003, gid: 100 });
  t.same(resolveUser('www-data'), { uid: 33, gid: 33, username: 'www-data' });
  t.same(resolveUser('nobody:5'), { uid: 65534, gid: 5, username: 'nobody' });
  t.throws(() => resolveUser('ghost'), /unable to find user ghost/);
  t.throws(() => resolveUser('1:ghosts'), /unable to find group ghosts/);
});

t.test('CreateContainer: the user the container runs as, and the refusals', async (t) => {
  const { c } = await startCri(t, { images: ['example.com/uid:1,user=1002', 'example.com/named:1,user=www-data:users', 'example.com/ghost:1,user=ghost'] });
  const sb = (await c.call('RunPodSandbox', { config: pod('p') })).pod_sandbox_id;
  const create = (name: string, image: string, sc: object = {}) => c.call('CreateContainer', {
    pod_sandbox_id: sb, config: { metadata: { name }, image: { image }, linux: { security_context: sc } },
  });
  const userOf = async (name: string, image: string, sc: object = {}) => {
    const id = (await create(name, image, sc)).container_id;
    return (await c.call('ContainerStatus', { container_id: id })).status.user.linux;
  };
  t.same(await userOf('a', 'example.com/uid:1'), { uid: '1002', gid: '0', supplemental_groups: ['0'] }, 'the image\'s numeric User');
  t.same(await userOf('b', 'example.com/named:1'), { uid: '33', gid: '100', supplemental_groups: ['100'] }, 'the image\'s named User and group');
  t.same(await userOf('c', 'example.com/uid:1', { run_as_user: { value: 5 }, run_as_group: { value: 6 }, supplemental_groups: [7, 6] }),
    { uid: '5', gid: '6', supplemental_groups: ['6', '7'] }, 'the security context wins over the image');
  t.same(await userOf('d', 'busybox', { run_as_username: 'nobody', run_as_user: { value: 5 } }), { uid: '65534', gid: '65534', supplemental_groups: ['65534'] }, 'run_as_username wins over run_as_user');
  t.same(await userOf('e', 'busybox'), { uid: '0', gid: '0', supplemental_groups: ['0'] }, 'no User anywhere: root');

  const refused = async (name: string, image: string, sc: object, why: RegExp) => {
    const err = await failure(create(name, image, sc));
    t.equal(err.code, grpc.status.UNKNOWN, `${name}: UNKNOWN, as containerd`);
    t.match(err.details, why, name);
  };
  await refused('g', 'busybox', { run_as_group: { value: 1000 } }, /^failed to get container spec opts: failed to generate user string: user group "1000" is specified without user$/);
  await refused('g2', 'example.com/uid:1', { run_as_group: { value: 1000 } }, /is specified without user/);
  await refused('h', 'example.com/ghost:1', {}, /unable to find user ghost/);
  await refused('i', 'busybox', { run_as_username: 'ghost' }, /unable to find user ghost/);
  await refused('j', 'busybox', { privileged: true }, /^failed to generate container "[0-9a-f]{64}" spec: no privileged container allowed in sandbox$/);
  await refused('k', 'busybox', { seccomp: { profile_type: 'RuntimeDefault', localhost_ref: '/x.json' } }, /seccomp config invalid LocalhostRef must only be set if ProfileType is Localhost/);
  await refused('l', 'busybox', { apparmor: { profile_type: 'RuntimeDefault', localhost_ref: 'x' } }, /apparmor config invalid LocalhostRef must only be set if ProfileType is Localhost/);
  t.ok(await create('g', 'busybox', { run_as_user: { value: 1 }, run_as_group: { value: 1000 } }), 'a refused name is not kept reserved');

  const privSb = (await c.call('RunPodSandbox', { config: pod('priv', { security_context: { privileged: true } }) })).pod_sandbox_id;
  t.ok(await c.call('CreateContainer', { pod_sandbox_id: privSb, config: { metadata: { name: 'p' }, image: { image: 'busybox' }, linux: { security_context: { privileged: true } } } }),
    'a privileged container in a privileged sandbox');
  const sbBad = await failure(c.call('RunPodSandbox', { config: pod('bad', { security_context: { seccomp: { profile_type: 'Unconfined', localhost_ref: '/x' } } }) }));
  t.match(sbBad.details, /LocalhostRef must only be set/, 'the sandbox\'s profile is checked the same way');
});
