// The Eviction's conditions as syncEviction decides them, without a server: which of "evicted" and
// "canceled" wins when the pod is only terminating (held by a finalizer) and the grace delay is over.
import t from 'tap';
import { syncEviction, type EvictionSyncInput, type PodState } from '../../reference/controllers/evictionrequest/eviction-sync.js';
import { GRACEFUL_COMPLETION_DELAY_MS } from '../../reference/controllers/evictionrequest/model.js';

const NOW = Date.parse('2026-11-24T00:00:00Z');
const TARGET = { name: 'p', uid: 'u-1' };

function request(requester: string, intent: 'Eviction' | 'Withdrawn'): any {
  return { metadata: { name: requester.split('.')[0], namespace: 'ns', uid: `er-${requester}`, generation: 1 }, spec: { requester, intent, target: { pod: TARGET } } };
}

function input(requests: any[], pod: PodState): EvictionSyncInput {
  return {
    eviction: { apiVersion: 'lifecycle.orch.io/v1alpha1', kind: 'Eviction', metadata: { name: 'pod-1-p', namespace: 'ns', uid: 'ev-1', generation: 1 }, spec: { target: { pod: TARGET } } } as any,
    requests,
    pod: async () => pod,
    duplicate: false,
    // Terminating since well before the grace delay: were anyone still asking, it would count as evicted.
    terminatingSince: () => NOW - 2 * GRACEFUL_COMPLETION_DELAY_MS,
    nowMs: NOW,
    breaks: new Set(),
  };
}

const conditions = (r: Awaited<ReturnType<typeof syncEviction>>) => Object.fromEntries(r.status.conditions.map((c) => [c.type, [c.status, c.reason]]));
const terminating: PodState = { kind: 'terminating', pod: { metadata: { name: 'p', uid: 'u-1', deletionTimestamp: new Date(NOW).toISOString() } } };

t.test('a terminating pod past the grace delay: evicted while someone asks, canceled once every requester withdrew', async (t) => {
  const wanted = await syncEviction(input([request('a.example.com/one', 'Eviction'), request('b.example.com/two', 'Withdrawn')], terminating));
  t.same(conditions(wanted), { TargetEvicted: ['True', 'PodDeleted'], Failed: ['False', 'Succeeded'] });
  const withdrawn = await syncEviction(input([request('a.example.com/one', 'Withdrawn'), request('b.example.com/two', 'Withdrawn')], terminating));
  t.same(conditions(withdrawn), { TargetEvicted: ['False', 'EvictionFailed'], Failed: ['True', 'CanceledDueToNoRequesters'] });
  t.same(withdrawn.status.requesters, [{ name: 'a.example.com/one', intent: 'Withdrawn' }, { name: 'b.example.com/two', intent: 'Withdrawn' }]);
});

t.test('a pod that is gone counts as evicted even when every requester withdrew', async (t) => {
  const r = await syncEviction(input([request('a.example.com/one', 'Withdrawn')], { kind: 'gone' }));
  t.same(conditions(r), { TargetEvicted: ['True', 'PodDeleted'], Failed: ['False', 'Succeeded'] });
});
