// Seccomp (spec 001 §2.4): the profile each container runs with, for containers, init and ephemeral
// containers; own wins over the pod's; privileged is Unconfined; seccompDefault; Localhost paths.
import t from 'tap';
import { effectiveSeccomp, SeccompFieldError } from '../../reference/agent/seccomp.js';

const ROOT = '/var/lib/agent';
const opts = { rootDir: ROOT, seccompDefault: false };
const RD = { profile_type: 'RuntimeDefault', localhost_ref: '' };
const UN = { profile_type: 'Unconfined', localhost_ref: '' };
const local = (name: string) => ({ profile_type: 'Localhost', localhost_ref: `${ROOT}/seccomp/${name}` });

function pod(podProfile: unknown, kinds: { containers?: any[]; initContainers?: any[]; ephemeralContainers?: any[] }): any {
  return { spec: { securityContext: podProfile ? { seccompProfile: podProfile } : {}, ...kinds } };
}

t.test('inheritance table', async (t) => {
  const own = (p: unknown, extra: object = {}) => ({ name: 'c', securityContext: { ...(p ? { seccompProfile: p } : {}), ...extra } });
  const rows: Array<[string, unknown, any, boolean, object]> = [
    // name, pod profile, container, seccompDefault, expected
    ['nothing set, seccompDefault off', undefined, { name: 'c' }, false, UN],
    ['nothing set, seccompDefault on', undefined, { name: 'c' }, true, RD],
    ['pod RuntimeDefault inherited', { type: 'RuntimeDefault' }, { name: 'c' }, false, RD],
    ['pod Unconfined inherited even with seccompDefault on', { type: 'Unconfined' }, { name: 'c' }, true, UN],
    ['pod Localhost inherited', { type: 'Localhost', localhostProfile: 'audit.json' }, { name: 'c' }, false, local('audit.json')],
    ['container own wins over pod', { type: 'RuntimeDefault' }, own({ type: 'Unconfined' }), false, UN],
    ['container Localhost wins over pod Unconfined', { type: 'Unconfined' }, own({ type: 'Localhost', localhostProfile: 'p/deny.json' }), false, local('p/deny.json')],
    ['container own with no pod profile', undefined, own({ type: 'RuntimeDefault' }), false, RD],
    ['privileged container: Unconfined despite pod profile', { type: 'RuntimeDefault' }, own(undefined, { privileged: true }), true, UN],
    ['privileged container: Unconfined despite own profile', undefined, own({ type: 'Localhost', localhostProfile: 'x.json' }, { privileged: true }), false, UN],
    ['privileged: false changes nothing', { type: 'RuntimeDefault' }, own(undefined, { privileged: false }), false, RD],
  ];
  for (const [name, podProfile, container, seccompDefault, want] of rows) {
    t.same(effectiveSeccomp(pod(podProfile, { containers: [container] }), container, { rootDir: ROOT, seccompDefault }), want, name);
  }
});

t.test('init and ephemeral containers inherit alike', async (t) => {
  const init = { name: 'init' };
  const eph = { name: 'debug', securityContext: { seccompProfile: { type: 'Unconfined' } } };
  const p = pod({ type: 'Localhost', localhostProfile: 'pod.json' }, { containers: [{ name: 'c' }], initContainers: [init], ephemeralContainers: [eph, { name: 'debug2' }] });
  t.same(effectiveSeccomp(p, init, opts), local('pod.json'));
  t.same(effectiveSeccomp(p, eph, opts), UN);
  t.same(effectiveSeccomp(p, p.spec.ephemeralContainers[1], opts), local('pod.json'));
});

t.test('Localhost validation names the field', async (t) => {
  const bad: Array<[unknown, RegExp]> = [
    [{ type: 'Localhost' }, /localhostProfile: Required value: localhostProfile must be set if seccompProfile type is Localhost\.$/],
    [{ type: 'Localhost', localhostProfile: '' }, /must be set if seccompProfile type is Localhost/],
    [{ type: 'Localhost', localhostProfile: '/etc/x.json' }, /Invalid value: "\/etc\/x\.json": must be a relative path$/],
    [{ type: 'Localhost', localhostProfile: '../x.json' }, /Invalid value: "\.\.\/x\.json": must not contain '\.\.'$/],
    [{ type: 'Localhost', localhostProfile: 'a/../../x.json' }, /must not contain '\.\.'/],
    [{ type: 'Localhost', localhostProfile: 'a\\..\\x.json' }, /must not contain '\.\.'/],
    [{ type: 'Bogus' }, /type: Unsupported value: "Bogus": supported values: "Localhost", "RuntimeDefault", "Unconfined"$/],
    [{}, /type: Required value/],
    [{ type: 'RuntimeDefault', localhostProfile: 'x.json' }, /localhostProfile: Invalid value: "x\.json": can only be set when seccomp type is Localhost/],
  ];
  for (const [profile, want] of bad) {
    const c = { name: 'c', securityContext: { seccompProfile: profile } };
    const p = pod(undefined, { containers: [{ name: 'first' }, c] });
    try {
      effectiveSeccomp(p, c, opts);
      t.fail(`accepted ${JSON.stringify(profile)}`);
    } catch (err) {
      t.ok(err instanceof SeccompFieldError, 'SeccompFieldError');
      t.match((err as Error).message, /^spec\.containers\[1\]\.securityContext\.seccompProfile\./, 'field path of the container');
      t.match((err as Error).message, want);
    }
  }
  t.throws(() => effectiveSeccomp(pod({ type: 'Localhost', localhostProfile: '../up' }, { initContainers: [{ name: 'i' }] }), { name: 'i' }, opts),
    { message: /^spec\.securityContext\.seccompProfile\.localhostProfile: Invalid value: "\.\.\/up": must not contain '\.\.'/ }, 'the pod\'s field when inherited');
  t.same(effectiveSeccomp(pod(undefined, { containers: [] }), { securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'a..b.json' } } }, opts), local('a..b.json'), '".." only as a path element');
});
