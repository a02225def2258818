// Faults kept to one pod (FaultSpec.pod): cases that share one runtime fault only their own pod's
// calls; and removing one fault by id through the control API.
import t from 'tap';
import type { CriClient } from '../../../cri/proto.js';
import { failure, startCri } from './helpers.js';

const pod = (name: string, namespace = 'ns1') => ({ metadata: { name, uid: `uid-${name}`, namespace, attempt: 0 }, hostname: name });

async function sandbox(c: CriClient, name: string, namespace = 'ns1'): Promise<string> {
  return (await c.call('RunPodSandbox', { config: pod(name, namespace) })).pod_sandbox_id;
}

t.test('a fault with `pod` fires only for calls about that pod, by sandbox config or by the ids a call names', async (t) => {
  const { m, c } = await startCri(t);
  const a = await sandbox(c, 'a');
  const b = await sandbox(c, 'b');
  m.control.faults.add({ rpc: 'CreateContainer', code: 2, message: 'no for a', pod: 'ns1/a' });
  m.control.faults.add({ rpc: 'PodSandboxStatus', code: 5, message: 'gone a', pod: 'ns1/a' });
  const create = (id: string, name: string) => c.call('CreateContainer', { pod_sandbox_id: id, config: { metadata: { name: 'c' }, image: { image: 'busybox' } }, sandbox_config: pod(name) });
  const err = await failure(create(a, 'a'));
  t.equal(err.code, 2);
  t.match(err.details, /no for a/);
  t.ok((await create(b, 'b')).container_id, 'the other pod is not faulted');
  t.equal((await failure(c.call('PodSandboxStatus', { pod_sandbox_id: a }))).code, 5, 'by the sandbox id the call names');
  t.equal((await c.call('PodSandboxStatus', { pod_sandbox_id: b })).status.id, b);
  t.equal((await c.call('RunPodSandbox', { config: pod('a', 'ns2') })).pod_sandbox_id.length > 0, true, 'the same name in another namespace is another pod');
});

t.test('pod-scoped faults with `times` count only their pod; other faults on the RPC still apply in order', async (t) => {
  const { m, c } = await startCri(t);
  m.control.faults.add({ rpc: 'RunPodSandbox', code: 14, times: 1, pod: 'ns1/x' });
  t.ok(await sandbox(c, 'y'), 'another pod does not use up the fault');
  t.equal((await failure(sandbox(c, 'x'))).code, 14);
  t.ok(await sandbox(c, 'x'), 'used up after one call of its pod');
  t.same(m.control.faults.list(), []);
});

t.test('a bad `pod` is refused', async (t) => {
  const { m } = await startCri(t);
  for (const pod of ['', 'x', 'a/b/c', 'a b/c', 7]) t.throws(() => m.control.faults.add({ rpc: 'Version', code: 2, pod } as never), /"pod" must be "<namespace>\/<name>"/, JSON.stringify(pod));
});
