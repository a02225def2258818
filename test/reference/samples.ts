// A valid sample object for every kind the reference serves, for the tests that drive all of them
// (malformed.test.ts, request-fuzz.test.ts): the suites' kind tables, plus the kinds no suite
// describes (Namespace, the reviews, the legacy bindings, the lifecycle Eviction) defined here.
import { randomUUID } from 'node:crypto';
import { KINDS, type ResourceKind } from '../../suites/000-control-plane/kinds.js';
import { AGENT_KINDS } from '../../suites/001-node-agent/kinds.js';
import type { ResourceStrategy } from '../../reference/apiserver/strategy.js';
import type { CaseContext } from '../../suites/case.js';

/** Every gated kind on, so that every kind is served. */
export const ALL_GATES_ON = { GenericWorkload: true, CompositePodGroup: true, PodGroupPreemptionPolicy: true, TopologyAwareWorkloadScheduling: true };

const NAMESPACE: ResourceKind = {
  kind: 'Namespace', apiVersion: 'v1', plural: 'namespaces', namespaced: false, hasStatus: true, deleteResponse: 'object', section: '2.1',
  valid: () => ({}), change: { patch: {}, changed: () => true },
};

/** The review kinds: no suite describes them (they are not spec 000 kinds), so their samples are here. */
const review = (kind: string, apiVersion: string, valid: () => Record<string, unknown>): ResourceKind => ({
  kind, apiVersion, plural: `${kind.toLowerCase()}s`, namespaced: false, hasStatus: false, deleteResponse: 'unspecified', section: '',
  valid, change: { patch: {}, changed: () => false },
});
const REVIEWS: ResourceKind[] = [
  review('TokenReview', 'authentication.orch.io/v1', () => ({ spec: { token: 'no-such-token', audiences: ['x'] } })),
  review('SelfSubjectReview', 'authentication.orch.io/v1', () => ({})),
  review('SubjectAccessReview', 'authorization.orch.io/v1', () => ({ spec: { user: 'alice', groups: ['devs'], resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' } } })),
  review('SelfSubjectAccessReview', 'authorization.orch.io/v1', () => ({ spec: { nonResourceAttributes: { verb: 'get', path: '/healthz' } } })),
  review('SelfSubjectRulesReview', 'authorization.orch.io/v1', () => ({ spec: { namespace: 'default' } })),
];

/**
 * The legacy bindings collection (never stored) and the body of pods/{name}/binding: the object's
 * name is the pod's, the target a node (which need not exist).
 */
export const BINDING: ResourceKind = {
  kind: 'Binding', apiVersion: 'v1', plural: 'bindings', namespaced: true, hasStatus: false, deleteResponse: 'unspecified', section: '',
  valid: () => ({ target: { kind: 'Node', name: 'sample-node' } }), change: { patch: {}, changed: () => false },
};

/** The body of pods/{name}/eviction (policy/v1, whose group is not served otherwise). */
const POD_EVICTION: ResourceKind = {
  kind: 'Eviction', apiVersion: 'policy/v1', plural: 'evictions', namespaced: true, hasStatus: false, deleteResponse: 'unspecified', section: '',
  valid: () => ({ deleteOptions: { gracePeriodSeconds: 0 } }), change: { patch: {}, changed: () => false },
};

/** The Eviction kind the eviction-request controller writes (lifecycle.orch.io/v1alpha1). */
const EVICTION: ResourceKind = {
  kind: 'Eviction', apiVersion: 'lifecycle.orch.io/v1alpha1', plural: 'evictions', namespaced: true, hasStatus: true, deleteResponse: 'status', section: '',
  valid: () => ({ spec: { target: { pod: { name: 'sample-target', uid: randomUUID() } } } }), change: { patch: { metadata: { labels: { changed: 'yes' } } }, changed: () => true },
};

/** The core v1 view of events.orch.io Events (core-event.ts): an old-style event about a pod of its namespace. */
const CORE_EVENT: ResourceKind = {
  kind: 'Event', apiVersion: 'v1', plural: 'events', namespaced: true, hasStatus: false, deleteResponse: 'status', section: '',
  valid: (ctx) => ({ involvedObject: { kind: 'Pod', name: 'sample-pod', namespace: ctx.namespace }, reason: 'Sample', message: 'a sample', type: 'Normal', source: { component: 'sample' } }),
  change: { patch: { message: 'changed' }, changed: (o) => o?.message === 'changed' },
};

const SAMPLES: readonly ResourceKind[] = [...KINDS, ...AGENT_KINDS, NAMESPACE, ...REVIEWS, BINDING, POD_EVICTION, EVICTION, CORE_EVENT];

/** The sample of a served kind (or of a subresource's body kind), if there is one. */
export function sampleOf(s: Pick<ResourceStrategy, 'group' | 'version' | 'kind'>): ResourceKind | undefined {
  const apiVersion = s.group ? `${s.group}/${s.version}` : s.version;
  return SAMPLES.find((x) => x.kind === s.kind && x.apiVersion === apiVersion);
}

/** What the samples' `valid` needs of a case context; nothing else of it is there. */
export function fakeContext(namespace: string): CaseContext {
  let n = 0;
  return {
    namespace, labels: {}, runId: 'sample', signal: new AbortController().signal,
    uniqueName: (hint = 'x') => `m-${hint}-${n++}-${randomUUID().slice(0, 8)}`,
    track: () => undefined, api: undefined as never, component: () => undefined as never, componentNames: () => ['apiserver'], facts: {},
    agent: () => undefined as never, cri: () => undefined as never, podInfoSocket: () => undefined as never, agents: undefined as never,
  };
}
