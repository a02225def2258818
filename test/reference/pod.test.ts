// Pod (spec 001 §1 and §2.4; upstream pod validation, defaults and the update rule, simplified).
import t from 'tap';
import { podStrategy, SPEC_UPDATE_FORBIDDEN } from '../../reference/resources/pod.js';
import { call, startTestServer } from './helpers.js';

const PODS = '/api/v1/namespaces/default/pods';
const IMG = 'registry.orch.io/app:1.0';
const pod = (name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'main', image: IMG }], ...spec }, ...extra });

async function server(t: Parameters<typeof startTestServer>[0]) {
  const srv = await startTestServer(t, { strategies: [podStrategy] });
  const bad = async (name: string, spec: Record<string, unknown>) => {
    const r = await call(srv.url, 'POST', PODS, pod(name, spec));
    if (r.status !== 422) throw new Error(`expected 422, got ${r.status} ${r.text}`);
    return r.body;
  };
  return { u: srv.url, bad };
}

t.test('defaults and initial status', async (t) => {
  const { u } = await server(t);
  const r = await call(u, 'POST', PODS, pod('p', {
    containers: [
      { name: 'a', image: 'app', ports: [{ containerPort: 80 }], resources: { limits: { cpu: 1, memory: '1Gi' } } },
      { name: 'b', image: 'app:latest' },
      { name: 'c', image: 'app@sha256:abc' },
    ],
  }, { status: { phase: 'Running' } }));
  t.equal(r.status, 201);
  const s = r.body.spec;
  t.same([s.restartPolicy, s.terminationGracePeriodSeconds, s.dnsPolicy, s.schedulerName, s.enableServiceLinks], ['Always', 30, 'ClusterFirst', 'default-scheduler', true]);
  t.same(s.securityContext, {});
  t.same(s.containers.map((c: any) => c.imagePullPolicy), ['Always', 'Always', 'IfNotPresent']);
  t.equal(s.containers[0].terminationMessagePath, '/dev/termination-log');
  t.equal(s.containers[0].ports[0].protocol, 'TCP');
  t.same(s.containers[0].resources, { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } }, 'requests default to limits');
  t.same(r.body.status, { phase: 'Pending', qosClass: 'Burstable' }, 'status is reset on create');
  const g = await call(u, 'POST', PODS, pod('g', { containers: [{ name: 'a', image: IMG, resources: { limits: { cpu: '500m', memory: '1Gi' } } }] }));
  t.equal(g.body.status.qosClass, 'Guaranteed');
  const be = await call(u, 'POST', PODS, pod('be', {}));
  t.equal(be.body.status.qosClass, 'BestEffort');
  const del = await call(u, 'DELETE', `${PODS}/be`);
  t.equal(del.body.kind, 'Pod', 'delete answers the Pod');
});

t.test('containers', async (t) => {
  const { bad } = await server(t);
  let b = await bad('none', { containers: [] });
  t.equal(b.message, 'Pod "none" is invalid: spec.containers: Required value');
  b = await bad('names', {
    initContainers: [{ name: 'main', image: IMG }],
    containers: [{ name: 'main', image: IMG }, { name: 'Bad_Name', image: IMG }, { image: IMG }, { name: 'noimg' }],
    ephemeralContainers: [{ name: 'main', image: IMG }],
  });
  t.same(b.details.causes.map((c: any) => [c.field, c.reason]), [
    ['spec.containers[0].name', 'FieldValueDuplicate'],
    ['spec.containers[1].name', 'FieldValueInvalid'],
    ['spec.containers[2].name', 'FieldValueRequired'],
    ['spec.containers[3].image', 'FieldValueRequired'],
    ['spec.ephemeralContainers[0].name', 'FieldValueDuplicate'],
    ['spec.ephemeralContainers', 'FieldValueForbidden'],
  ]);
  t.equal(b.details.causes[5].message, 'Forbidden: cannot be set on create');
  b = await bad('ports', { containers: [{ name: 'main', image: IMG, ports: [{ containerPort: 0, protocol: 'HTTP' }], resources: { limits: { cpu: '1' }, requests: { cpu: '2' } }, volumeMounts: [{ name: 'data', mountPath: '/d' }] }] });
  t.same(b.details.causes.map((c: any) => [c.field, c.message]), [
    ['spec.containers[0].ports[0].containerPort', 'Invalid value: 0: must be between 1 and 65535, inclusive'],
    ['spec.containers[0].ports[0].protocol', 'Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"'],
    ['spec.containers[0].volumeMounts[0].name', 'Not found: "data"'],
    ['spec.containers[0].resources.requests', 'Invalid value: "2": must be less than or equal to cpu limit of 1'],
  ]);
});

t.test('pod fields', async (t) => {
  const { u, bad } = await server(t);
  let b = await bad('f', { restartPolicy: 'Sometimes', activeDeadlineSeconds: 0, nodeName: 'Not A Node', schedulingGroup: { podGroupName: 'Bad Group' }, tolerations: [{ operator: 'Like' }] });
  t.same(b.details.causes.map((c: any) => c.field), ['spec.restartPolicy', 'spec.activeDeadlineSeconds', 'spec.nodeName', 'spec.schedulingGroup.podGroupName', 'spec.tolerations[0].operator']);
  t.equal(b.details.causes[1].message, 'Invalid value: 0: must be between 1 and 2147483647, inclusive');
  b = await bad('gates', { nodeName: 'n1', schedulingGates: [{ name: 'a.io/x' }, { name: 'a.io/x' }] });
  t.same(b.details.causes.map((c: any) => [c.field, c.reason]), [['spec.schedulingGates[1].name', 'FieldValueDuplicate'], ['spec.nodeName', 'FieldValueForbidden']]);
  b = await bad('sg', { schedulingGroup: {} });
  t.equal(b.message, 'Pod "sg" is invalid: spec.schedulingGroup.podGroupName: Required value');
  const ok = await call(u, 'POST', PODS, pod('ok', { nodeName: 'node-1', schedulingGroup: { podGroupName: 'group-a' } }));
  t.equal(ok.status, 201);
  t.same([ok.body.spec.nodeName, ok.body.spec.schedulingGroup], ['node-1', { podGroupName: 'group-a' }]);
});

t.test('seccomp profiles', async (t) => {
  const { u, bad } = await server(t);
  const sc = (seccompProfile: unknown) => ({ containers: [{ name: 'main', image: IMG, securityContext: { seccompProfile } }] });
  const at = 'spec.containers[0].securityContext.seccompProfile';
  let b = await bad('t', sc({ type: 'Strict' }));
  t.equal(b.message, `Pod "t" is invalid: ${at}.type: Unsupported value: "Strict": supported values: "Localhost", "RuntimeDefault", "Unconfined"`);
  b = await bad('e', sc({}));
  t.equal(b.message, `Pod "e" is invalid: ${at}.type: Required value: type is required when seccompProfile is set`);
  b = await bad('l', sc({ type: 'Localhost' }));
  t.equal(b.message, `Pod "l" is invalid: ${at}.localhostProfile: Required value: localhostProfile must be set if seccompProfile type is Localhost.`);
  b = await bad('l2', sc({ type: 'Localhost', localhostProfile: '' }));
  t.equal(b.details.causes[0].reason, 'FieldValueRequired', 'an empty profile counts as missing');
  b = await bad('abs', sc({ type: 'Localhost', localhostProfile: '/x/../y.json' }));
  t.same(b.details.causes.map((c: any) => c.message), ['Invalid value: "/x/../y.json": must be a relative path', `Invalid value: "/x/../y.json": must not contain '..'`]);
  b = await bad('only', { securityContext: { seccompProfile: { type: 'Unconfined', localhostProfile: 'a.json' } } });
  t.equal(b.message, 'Pod "only" is invalid: spec.securityContext.seccompProfile.localhostProfile: Invalid value: {"type":"Unconfined","localhostProfile":"a.json"}: can only be set when seccomp type is Localhost');
  const ok = await call(u, 'POST', PODS, pod('ok', { securityContext: { seccompProfile: { type: 'RuntimeDefault' } }, ...sc({ type: 'Localhost', localhostProfile: 'profiles/a..b.json' }) }));
  t.equal(ok.status, 201, '".." only counts as a whole path element');
});

t.test('updates', async (t) => {
  const { u } = await server(t);
  const created = (await call(u, 'POST', PODS, pod('u', { tolerations: [{ key: 'a', operator: 'Exists' }], schedulingGates: [{ name: 'a.io/x' }, { name: 'a.io/y' }] }))).body;
  const put = async (edit: (p: any) => void) => {
    const cur = (await call(u, 'GET', `${PODS}/u`)).body;
    edit(cur);
    return call(u, 'PUT', `${PODS}/u`, cur);
  };
  let r = await put((p) => { p.spec.containers[0].image = 'registry.orch.io/app:2.0'; p.spec.terminationGracePeriodSeconds = 5; });
  t.equal(r.status, 200, 'image and terminationGracePeriodSeconds may change');
  r = await put((p) => { p.spec.tolerations.push({ key: 'b', operator: 'Exists' }); p.spec.schedulingGates.pop(); });
  t.equal(r.status, 200, 'tolerations may be added, gates removed');
  r = await put((p) => { p.spec.tolerations = []; });
  t.equal(r.body.message, `Pod "u" is invalid: spec: Forbidden: ${SPEC_UPDATE_FORBIDDEN}`, 'tolerations may not be removed');
  r = await put((p) => { p.spec.schedulingGates.push({ name: 'a.io/z' }); });
  t.equal(r.status, 422, 'gates may not be added');
  r = await put((p) => { p.spec.containers[0].command = ['sh']; });
  t.equal(r.body.details.causes[0].field, 'spec');
  r = await put((p) => { p.spec.activeDeadlineSeconds = 60; });
  t.equal(r.status, 200);
  r = await put((p) => { p.spec.activeDeadlineSeconds = 30; });
  t.equal(r.status, 200);
  r = await put((p) => { p.spec.activeDeadlineSeconds = 90; });
  t.equal(r.body.message, 'Pod "u" is invalid: spec.activeDeadlineSeconds: Invalid value: 90: must be less than or equal to previous value');
  r = await put((p) => { delete p.spec.activeDeadlineSeconds; });
  t.equal(r.body.message, 'Pod "u" is invalid: spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value');
  r = await put((p) => { p.spec.ephemeralContainers = [{ name: 'dbg', image: IMG }]; });
  t.equal(r.status, 422, 'ephemeral containers do not come through the main resource');
  r = await put((p) => { p.spec.schedulingGroup = { podGroupName: 'late' }; });
  t.equal(r.body.message, 'Pod "u" is invalid: spec.schedulingGroup: Invalid value: {"podGroupName":"late"}: field is immutable', 'schedulingGroup is immutable');

  const st = await call(u, 'PUT', `${PODS}/u/status`, { ...created, metadata: { ...created.metadata, resourceVersion: undefined }, spec: { containers: [] }, status: { phase: 'Running', startTime: '2025-01-01T00:00:00.5Z' } });
  t.equal(st.status, 200);
  t.same([st.body.status.phase, st.body.status.startTime, st.body.spec.containers.length], ['Running', '2025-01-01T00:00:00Z', 1], 'status written, spec kept');
  const badPhase = await call(u, 'PUT', `${PODS}/u/status`, { ...st.body, status: { phase: 'Exploded' } });
  t.equal(badPhase.body.message, 'Pod "u" is invalid: status.phase: Unsupported value: "Exploded": supported values: "Pending", "Running", "Succeeded", "Failed", "Unknown"');
});

t.test('odd shapes are 422, never 500', async (t) => {
  const { bad } = await server(t);
  const b = await bad('odd', { volumes: [null, 'x', { name: 'v' }], containers: [null], overhead: { cpu: { a: 1 } } });
  t.same(b.details.causes.map((c: any) => c.field), ['spec.volumes[0].name', 'spec.volumes[1].name', 'spec.containers[0].name', 'spec.containers[0].image']);
  const types = await bad('types', { containers: 'main', nodeName: 7 });
  t.same(types.details.causes.map((c: any) => c.reason), ['FieldValueTypeInvalid', 'FieldValueTypeInvalid']);
});
