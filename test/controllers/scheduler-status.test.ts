// The scheduler's status writer remembers the conditions it wrote (the informer may not show them
// yet) so that an attempt with the same outcome does not write again. A write that failed was not
// written: the next attempt must write it, or a pod whose first PodScheduled write hit a storage
// timeout stays without its condition for good (seen once on etcd under CI load).
import t from 'tap';
import { StatusWriter } from '../../reference/scheduler/status.js';
import type { ApiClient } from '../../reference/client/api-client.js';
import type { Informer } from '../../reference/client/informer.js';

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'ns', name: 'p', uid: 'u1' }, status: {} };

function writer(failures: number) {
  const calls: unknown[] = [];
  let left = failures;
  const client = {
    async patchStatus(path: string, body: unknown) {
      calls.push({ path, body });
      if (left-- > 0) throw Object.assign(new Error('storage timeout'), { status: 504 });
      return {};
    },
  } as unknown as ApiClient;
  // The informer never shows the write: only the writer's memory can say it was made.
  const pods = { getByKey: () => pod } as unknown as Informer;
  const logs: string[] = [];
  return { w: new StatusWriter(client, pods, () => undefined, (m) => logs.push(m)), calls, logs };
}

t.test('PodScheduled: a failed write is written again by the next attempt; a successful one is not', async (t) => {
  const { w, calls, logs } = writer(1);
  await w.podUnschedulable(pod, 'Unschedulable', '0/1 nodes are available: 1 node(s) had untolerated taint {a: b}.');
  t.equal(calls.length, 1, 'the first attempt writes');
  t.match(logs[0], /failed/, 'its failure is logged');
  await w.podUnschedulable(pod, 'Unschedulable', '0/1 nodes are available: 1 node(s) had untolerated taint {a: b}.');
  t.equal(calls.length, 2, 'the write that failed is made again');
  await w.podUnschedulable(pod, 'Unschedulable', '0/1 nodes are available: 1 node(s) had untolerated taint {a: b}.');
  t.equal(calls.length, 2, 'once it succeeded, the same outcome is not written again');
});
