// Localhost seccomp profiles (mocks/cri/seccomp.ts): where the file may be, and what it must hold.
import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SeccompProfileError, checkSeccompProfile, loadLocalhostProfile } from '../../../mocks/cri/seccomp.js';

const root = mkdtempSync(join(tmpdir(), 'extras-seccomp-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const dir = join(root, 'seccomp');
mkdirSync(join(dir, 'profiles'), { recursive: true });

const VALID = {
  defaultAction: 'SCMP_ACT_ERRNO',
  defaultErrnoRet: 1,
  architectures: ['SCMP_ARCH_X86_64', 'SCMP_ARCH_AARCH64'],
  syscalls: [
    { names: ['read', 'write', 'exit_group'], action: 'SCMP_ACT_ALLOW' },
    { names: ['personality'], action: 'SCMP_ACT_ALLOW', args: [{ index: 0, value: 0, op: 'SCMP_CMP_EQ' }] },
    { names: ['mkdir'], action: 'SCMP_ACT_LOG' },
    { names: ['ptrace'], action: 'SCMP_ACT_ERRNO', errnoRet: 1 },
  ],
};
const put = (rel: string, content: unknown) => writeFileSync(join(dir, rel), typeof content === 'string' ? content : JSON.stringify(content));
put('audit.json', VALID);
put('profiles/nested.json', { defaultAction: 'SCMP_ACT_ALLOW' });
// A file outside the directory that escapes would reach.
writeFileSync(join(root, 'outside.json'), JSON.stringify(VALID));
symlinkSync(join(root, 'outside.json'), join(dir, 'escape.json'));
symlinkSync('audit.json', join(dir, 'alias.json'));
symlinkSync(root, join(dir, 'up'));

const loadErr = async (path: string): Promise<SeccompProfileError> => {
  try {
    await loadLocalhostProfile(dir, path);
  } catch (err) {
    if (err instanceof SeccompProfileError) return err;
    throw err;
  }
  throw new Error(`${path} was accepted`);
};

t.test('a valid profile loads in every accepted path form', async (t) => {
  const forms = ['audit.json', 'localhost/audit.json', join(dir, 'audit.json'), `localhost/${join(dir, 'audit.json')}`, 'alias.json'];
  for (const form of forms) t.same(await loadLocalhostProfile(dir, form), VALID, form);
  t.same(await loadLocalhostProfile(dir, 'profiles/nested.json'), { defaultAction: 'SCMP_ACT_ALLOW' }, 'subdirectory');
  t.same(await loadLocalhostProfile(`${dir}/`, 'localhost/profiles/nested.json'), { defaultAction: 'SCMP_ACT_ALLOW' });
});

t.test('a missing profile fails naming the path', async (t) => {
  const e = await loadErr('localhost/missing.json');
  t.match(e.message, `${join(dir, 'missing.json')} not found`);
  t.match((await loadErr(join(dir, 'nope', 'x.json'))).message, /not found/);
  const noDir = await loadLocalhostProfile(join(root, 'absent'), 'audit.json').catch((err: Error) => err);
  t.match(noDir, { name: 'SeccompProfileError', message: /seccomp directory .*absent does not exist/ });
  t.match((await loadErr('')).message, /empty/);
  t.match((await loadErr('localhost/')).message, /no file named/);
  t.match((await loadErr('profiles')).message, /not a regular file/);
});

t.test('relative paths cannot escape the seccomp directory; absolute ones are taken as they are (as containerd)', async (t) => {
  t.match((await loadErr('../outside.json')).message, /must not contain '\.\.'/);
  t.match((await loadErr('localhost/../outside.json')).message, /must not contain '\.\.'/);
  t.match((await loadErr('profiles/../../outside.json')).message, /must not contain '\.\.'/);
  // containerd reads any absolute path it is given (seccomp.WithProfile): a profile that exists loads.
  t.same(await loadLocalhostProfile(dir, join(root, 'outside.json')), VALID, 'an absolute path outside the directory');
  t.same(await loadLocalhostProfile(dir, `localhost/${join(root, 'outside.json')}`), VALID, 'the same in localhost/ form');
  t.same(await loadLocalhostProfile(join(root, 'absent'), join(root, 'outside.json')), VALID, 'an absolute path needs no seccomp directory');
  t.match((await loadErr('/etc/passwd')).message, /is not valid JSON/, 'an absolute path is still checked as a profile');
  t.match((await loadErr(join(root, 'nowhere.json'))).message, /not found/);
  t.match((await loadErr(dir)).message, /not a regular file/, 'the directory itself is not a profile');
  t.match((await loadErr('escape.json')).message, /resolves to .*outside\.json, outside the seccomp directory/, 'symlink to a file outside');
  t.match((await loadErr('up/outside.json')).message, /outside the seccomp directory/, 'symlinked directory leading out');
  t.match((await loadErr('a\0b')).message, /NUL/);
});

t.test('the file must be JSON', async (t) => {
  put('broken.json', '{"defaultAction": "SCMP_ACT_ALLOW",');
  t.match((await loadErr('broken.json')).message, new RegExp(`${join(dir, 'broken.json')} is not valid JSON`));
  put('empty.json', '');
  t.match((await loadErr('empty.json')).message, /is not valid JSON/);
});

t.test('the JSON must be an OCI seccomp profile', async (t) => {
  const cases: [unknown, RegExp][] = [
    [[], /must be a JSON object/],
    [{}, /"defaultAction" is required/],
    [{ defaultAction: 'SCMP_ACT_BOGUS' }, /defaultAction: "SCMP_ACT_BOGUS" is not a seccomp action/],
    [{ defaultAction: 'allow' }, /defaultAction/],
    [{ defaultAction: 'SCMP_ACT_NOTIFY' }, /SCMP_ACT_NOTIFY cannot be the default action/],
    [{ defaultAction: 'SCMP_ACT_ERRNO', defaultErrnoRet: -1 }, /defaultErrnoRet/],
    [{ defaultAction: 'SCMP_ACT_ALLOW', architectures: 'SCMP_ARCH_X86_64' }, /architectures must be an array/],
    [{ defaultAction: 'SCMP_ACT_ALLOW', architectures: ['SCMP_ARCH_X86_64', 'x86_64'] }, /architectures\[1\]: "x86_64" is not a seccomp architecture/],
    [{ defaultAction: 'SCMP_ACT_ALLOW', flags: ['SECCOMP_FILTER_FLAG_NOPE'] }, /flags\[0\]/],
    [{ defaultAction: 'SCMP_ACT_ALLOW', syscalls: {} }, /syscalls must be an array/],
    [{ defaultAction: 'SCMP_ACT_ALLOW', syscalls: [null] }, /syscalls\[0\]: each syscall rule must be an object/],
    [{ defaultAction: 'SCMP_ACT_ALLOW', syscalls: [{ names: [], action: 'SCMP_ACT_ERRNO' }] }, /syscalls\[0\]\.names must be a non-empty array/],
    [{ defaultAction: 'SCMP_ACT_ALLOW', syscalls: [{ name: 'read', action: 'SCMP_ACT_ERRNO' }] }, /syscalls\[0\]\.names/],
    [{ defaultAction: 'SCMP_ACT_ALLOW', syscalls: [{ names: ['read', 42], action: 'SCMP_ACT_ERRNO' }] }, /syscalls\[0\]\.names\[1\]: 42 is not a syscall name/],
    [{ defaultAction: 'SCMP_ACT_ALLOW', syscalls: [{ names: ['read'] }] }, /syscalls\[0\]\.action is required/],
    [
      { defaultAction: 'SCMP_ACT_ERRNO', syscalls: [{ names: ['read'], action: 'SCMP_ACT_ALLOW' }, { names: ['write'], action: 'SCMP_ACT_DENY' }] },
      /syscalls\[1\]\.action: "SCMP_ACT_DENY" is not a seccomp action/,
    ],
    [{ defaultAction: 'SCMP_ACT_ALLOW', syscalls: [{ names: ['write'], action: 'SCMP_ACT_NOTIFY' }] }, /SCMP_ACT_NOTIFY cannot apply to "write"/],
    [{ defaultAction: 'SCMP_ACT_ALLOW', syscalls: [{ names: ['read'], action: 'SCMP_ACT_ERRNO', errnoRet: 'EPERM' }] }, /errnoRet/],
    [{ defaultAction: 'SCMP_ACT_ALLOW', syscalls: [{ names: ['read'], action: 'SCMP_ACT_ERRNO', args: {} }] }, /\.args must be an array/],
    [
      { defaultAction: 'SCMP_ACT_ALLOW', syscalls: [{ names: ['read'], action: 'SCMP_ACT_ERRNO', args: [{ index: 6, value: 0, op: 'SCMP_CMP_EQ' }] }] },
      /args\[0\]\.index: 6 must be an integer 0\.\.5/,
    ],
    [
      { defaultAction: 'SCMP_ACT_ALLOW', syscalls: [{ names: ['read'], action: 'SCMP_ACT_ERRNO', args: [{ index: 0, value: -1, op: 'SCMP_CMP_EQ' }] }] },
      /args\[0\]\.value/,
    ],
    [
      { defaultAction: 'SCMP_ACT_ALLOW', syscalls: [{ names: ['read'], action: 'SCMP_ACT_ERRNO', args: [{ index: 0, value: 1, op: 'EQ' }] }] },
      /args\[0\]\.op: "EQ" is not a seccomp comparison/,
    ],
  ];
  for (const [i, [profile, msg]] of cases.entries()) {
    put(`bad-${i}.json`, profile);
    const e = await loadErr(`bad-${i}.json`);
    t.match(e.message, /is not a valid OCI seccomp profile: /, `case ${i} says what the file is`);
    t.match(e.message, msg, `case ${i}: ${JSON.stringify(profile).slice(0, 70)}`);
  }
});

t.test('checkSeccompProfile accepts the OCI forms', async (t) => {
  t.equal(checkSeccompProfile(VALID), undefined);
  for (const action of ['SCMP_ACT_KILL', 'SCMP_ACT_KILL_PROCESS', 'SCMP_ACT_KILL_THREAD', 'SCMP_ACT_TRAP', 'SCMP_ACT_ERRNO', 'SCMP_ACT_TRACE', 'SCMP_ACT_ALLOW', 'SCMP_ACT_LOG']) {
    t.equal(checkSeccompProfile({ defaultAction: action, syscalls: [{ names: ['openat'], action: 'SCMP_ACT_NOTIFY' }], listenerPath: '/run/l.sock' }), undefined, action);
  }
  t.equal(
    checkSeccompProfile({
      defaultAction: 'SCMP_ACT_ERRNO',
      architectures: null,
      flags: ['SECCOMP_FILTER_FLAG_LOG'],
      archMap: [{ architecture: 'SCMP_ARCH_X86_64', subArchitectures: ['SCMP_ARCH_X86'] }],
      syscalls: [{ names: ['clone'], action: 'SCMP_ACT_ALLOW', comment: 'docker fields are ignored', args: [{ index: 0, value: 2114060288, valueTwo: 0, op: 'SCMP_CMP_MASKED_EQ' }] }],
    }),
    undefined,
  );
});
