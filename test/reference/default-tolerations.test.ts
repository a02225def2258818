// The DefaultTolerationSeconds admission plug-in (upstream plugin/pkg/admission/defaulttolerationseconds):
// what counts as already tolerating, the configured seconds, creates and updates, other kinds untouched.
import t from 'tap';
import { startReference } from '../../reference/server.js';
import { addDefaultTolerations } from '../../reference/admission/default-tolerations.js';
import { call } from './helpers.js';

const PODS = '/api/v1/namespaces/default/pods';
const NOT_READY = { key: 'node.orch.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };
const UNREACHABLE = { key: 'node.orch.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };
const pod = (name: string, tolerations?: unknown[]) =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'main', image: 'registry.orch.io/app:1.0' }], ...(tolerations ? { tolerations } : {}) } });

t.test('which tolerations count as tolerating the taints (upstream: key and effect only)', async (t) => {
  const after = (tolerations?: unknown[]) => {
    const p: any = pod('x', tolerations);
    addDefaultTolerations(p);
    return p.spec.tolerations;
  };
  t.same(after(), [NOT_READY, UNREACHABLE], 'none: both, not-ready first');
  const mine = { key: 'node.orch.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 };
  t.same(after([mine]), [mine, UNREACHABLE], 'its own not-ready toleration is kept as it is');
  t.same(after([{ operator: 'Exists' }]), [{ operator: 'Exists' }], 'an empty key with no effect tolerates everything');
  t.same(after([{ operator: 'Exists', effect: 'NoExecute' }]), [{ operator: 'Exists', effect: 'NoExecute' }], 'empty key, NoExecute');
  t.same(after([{ operator: 'Exists', effect: 'NoSchedule' }]), [{ operator: 'Exists', effect: 'NoSchedule' }, NOT_READY, UNREACHABLE], 'empty key, NoSchedule: not these taints');
  t.same(after([{ key: 'node.orch.io/unreachable', operator: 'Exists' }]), [{ key: 'node.orch.io/unreachable', operator: 'Exists' }, NOT_READY], 'a key with every effect');
  t.same(after([{ key: 'node.orch.io/unreachable', operator: 'Exists', effect: 'NoSchedule' }]).length, 3, 'the key for NoSchedule only: still added');
  const equal = { key: 'node.orch.io/not-ready', operator: 'Equal', value: 'x', effect: 'NoExecute' };
  t.same(after([equal]), [equal, UNREACHABLE], 'upstream does not look at operator or value');
  const p: any = { metadata: { name: 'x' }, spec: 'nonsense' };
  addDefaultTolerations(p);
  t.equal(p.spec, 'nonsense', 'a spec that is no object is left to validation');
  const q: any = pod('x');
  addDefaultTolerations(q, { defaultNotReadyTolerationSeconds: 5, defaultUnreachableTolerationSeconds: -1 });
  t.same(q.spec.tolerations.map((x: any) => x.tolerationSeconds), [5, -1], 'the configured seconds');
});

t.test('pods created and updated through the API', async (t) => {
  const ref = await startReference({ controllerManager: false, scheduler: false });
  t.teardown(() => ref.close());
  const u = ref.url;
  const created = await call(u, 'POST', PODS, pod('plain'));
  t.equal(created.status, 201);
  t.same(created.body.spec.tolerations, [NOT_READY, UNREACHABLE]);
  t.same((await call(u, 'GET', `${PODS}/plain`)).body.spec.tolerations, [NOT_READY, UNREACHABLE], 'stored');
  const dry = await call(u, 'POST', `${PODS}?dryRun=All`, pod('dry'));
  t.same(dry.body.spec.tolerations, [NOT_READY, UNREACHABLE], 'a dry-run create is admitted the same way');
  const own = { key: 'node.orch.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 6000 };
  t.same((await call(u, 'POST', PODS, pod('own', [own]))).body.spec.tolerations, [own, NOT_READY]);

  // An update that drops them (a PUT of the original manifest, a merge patch replacing the list, an
  // apply) gets them back, as upstream's plug-in also admits updates; otherwise the pod update rule
  // (tolerations may only be added) would refuse it.
  const cur = created.body;
  const put = await call(u, 'PUT', `${PODS}/plain`, { ...pod('plain'), metadata: { name: 'plain', resourceVersion: cur.metadata.resourceVersion } });
  t.equal(put.status, 200, put.text);
  t.same(put.body.spec.tolerations, [NOT_READY, UNREACHABLE]);
  const extra = { key: 'example.orch.io/x', operator: 'Exists', effect: 'NoSchedule' };
  const patched = await call(u, 'PATCH', `${PODS}/plain`, { spec: { tolerations: [extra] } }, { 'content-type': 'application/merge-patch+json' });
  t.equal(patched.status, 200, patched.text);
  t.same(patched.body.spec.tolerations, [extra, NOT_READY, UNREACHABLE], 'the defaults come back after the client\'s list');
  const applied = await call(u, 'PATCH', `${PODS}/applied?fieldManager=test`, JSON.stringify(pod('applied', [extra])), { 'content-type': 'application/apply-patch+yaml' });
  t.equal(applied.status, 201, applied.text);
  t.same(applied.body.spec.tolerations, [extra, NOT_READY, UNREACHABLE], 'an apply that creates');
  const reapplied = await call(u, 'PATCH', `${PODS}/applied?fieldManager=test`, JSON.stringify(pod('applied', [extra])), { 'content-type': 'application/apply-patch+yaml' });
  t.equal(reapplied.status, 200, reapplied.text);
  t.same(reapplied.body.spec.tolerations, [extra, NOT_READY, UNREACHABLE], 'the same apply again');

  // Status writes are not admitted by it (a subresource).
  const st = (await call(u, 'GET', `${PODS}/plain`)).body;
  const status = await call(u, 'PUT', `${PODS}/plain/status`, { ...st, spec: { ...st.spec, tolerations: [] }, status: { ...st.status, phase: 'Running' } });
  t.equal(status.status, 200);
  t.same(status.body.spec.tolerations, [extra, NOT_READY, UNREACHABLE]);

  // Other kinds are left alone.
  const node = await call(u, 'POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
  t.equal(node.status, 201);
  t.notOk(JSON.stringify(node.body).includes('node.orch.io/not-ready'));
});

t.test('the seconds are configurable', async (t) => {
  const ref = await startReference({ controllerManager: false, scheduler: false, defaultNotReadyTolerationSeconds: 30, defaultUnreachableTolerationSeconds: 60 });
  t.teardown(() => ref.close());
  const r = await call(ref.url, 'POST', PODS, pod('p'));
  t.same(r.body.spec.tolerations, [{ ...NOT_READY, tolerationSeconds: 30 }, { ...UNREACHABLE, tolerationSeconds: 60 }]);
});
