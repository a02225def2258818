// Spec 000 §2.4 ResourceQuota as the control plane acts on it: the quota controller publishes the
// enforced limits (status.hard) and the observed usage (status.used) of the objects the quota's
// scopes and scope selector match; the quota admission refuses creates over a limit (upstream's
// messages) and charges the usage of those it admits. Each case works in a namespace of its own, so
// that its small limits never refuse another case's pods, and creates its pods before its quota, so
// that the usage it reads is what the controller counted (a create after the quota is charged by the
// admission instead). Pods carry a scheduling gate: they stay Pending, never bound, never terminal.
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectEqual, expectObject, expectStatus, expectTrue, show, skip, SUCCESS } from '../verify.js';
import { waitFor } from '../wait.js';
import { HOLD_GATE, IMAGE } from '../001-node-agent/kinds.js';

const RQ_CONTROLLER = ['resourcequota-controller'] as const;
const common = {
  suite: 'resourcequota',
  spec: { doc: '000', section: '2.4' },
  // Each case creates a namespace of its own.
  impact: 'cluster-scoped',
  needs: ['api'],
  controllers: RQ_CONTROLLER,
} as const;
const must = { ...common, level: 'MUST' } as const;
const should = { ...common, level: 'SHOULD' } as const;

const podsPath = (ns: string) => `/api/v1/namespaces/${encodeURIComponent(ns)}/pods`;
const quotasPath = (ns: string) => `/api/v1/namespaces/${encodeURIComponent(ns)}/resourcequotas`;
const quotaPath = (ns: string, name: string) => `${quotasPath(ns)}/${encodeURIComponent(name)}`;

/** A namespace of the case's own (labelled with the run, deleted with it). */
async function ownNamespace(ctx: CaseContext, hint = 'quota'): Promise<string> {
  const ns = ctx.uniqueName(hint);
  ctx.track(`/api/v1/namespaces/${ns}`);
  expectObject(await ctx.api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { ...ctx.labels } } }), SUCCESS.create, 'Namespace', 'creating a namespace of the case\'s own');
  return ns;
}

interface PodShape {
  /** Container requests and limits; none: a BestEffort pod. */
  readonly requests?: Record<string, string>;
  readonly limits?: Record<string, string>;
  readonly activeDeadlineSeconds?: number;
  readonly priorityClassName?: string;
  readonly crossNamespaceAffinity?: boolean;
}

/** A held pod (scheduling gate: never bound) of the given shape. */
function podBody(ctx: CaseContext, shape: PodShape, hint: string): any {
  const resources = shape.requests || shape.limits ? { resources: { ...(shape.requests ? { requests: shape.requests } : {}), ...(shape.limits ? { limits: shape.limits } : {}) } } : {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: ctx.uniqueName(hint), labels: { ...ctx.labels } },
    spec: {
      schedulingGates: [HOLD_GATE],
      containers: [{ name: 'main', image: IMAGE, ...resources }],
      ...(shape.activeDeadlineSeconds !== undefined ? { activeDeadlineSeconds: shape.activeDeadlineSeconds } : {}),
      ...(shape.priorityClassName ? { priorityClassName: shape.priorityClassName } : {}),
      ...(shape.crossNamespaceAffinity ? {
        affinity: {
          podAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [{
              labelSelector: { matchLabels: { 'conformance.orch.io/none': 'x' } },
              topologyKey: 'orch.io/hostname',
              namespaces: ['default'],
            }],
          },
        },
      } : {}),
    },
  };
}

async function createPod(ctx: CaseContext, ns: string, shape: PodShape, hint: string): Promise<any> {
  const res = await ctx.api.post(podsPath(ns), podBody(ctx, shape, hint));
  // Spec 000 has no PriorityClass kind; a target that checks pods against stored classes refuses these.
  if (shape.priorityClassName && res.status === 403 && /PriorityClass/.test(String(res.json?.message))) {
    skip(`the target refuses pods naming priority class ${shape.priorityClassName} (${String(res.json?.message)}); the case needs such pods`);
  }
  return expectObject(res, SUCCESS.create, 'Pod', `creating pod "${hint}" ${show(shape)}`);
}

async function createQuota(ctx: CaseContext, ns: string, spec: Record<string, unknown>, hint = 'rq'): Promise<any> {
  const body = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: ctx.uniqueName(hint), labels: { ...ctx.labels } }, spec };
  return expectObject(await ctx.api.post(quotasPath(ns), body), SUCCESS.create, 'ResourceQuota', `creating a quota ${show(spec)}`);
}

/** A quantity in thousandths (the forms these cases use: plain, `m`, `Ki`/`Mi`/`Gi`), or NaN. */
function milli(v: unknown): number {
  const m = /^(\d+(?:\.\d+)?)(m|k|M|G|Ki|Mi|Gi)?$/.exec(String(v ?? ''));
  if (!m) return Number.NaN;
  const factor: Record<string, number> = { m: 1, '': 1000, k: 1e6, M: 1e9, G: 1e12, Ki: 1024e3, Mi: 1024 ** 2 * 1e3, Gi: 1024 ** 3 * 1e3 };
  return Math.round(Number(m[1]) * factor[m[2] ?? '']!);
}

/** `used` has exactly these values for these names (quantities compared by value). */
const usedIs = (used: any, want: Record<string, string>) => !!used && Object.entries(want).every(([k, v]) => k in used && milli(used[k]) === milli(v));

/** Waits until the quota's status.used shows `want` (the controller's count); gives the quota. */
function waitUsed(ctx: CaseContext, ns: string, name: string, want: Record<string, string>, what: string): Promise<any> {
  return waitFor(ctx, quotaPath(ns, name), (q) => usedIs(q?.status?.used, want), what, `status.used with ${show(want)}`);
}

/**
 * Waits until the controller has counted, into the quota's status.used, objects created before the
 * quota. A controller counts from its caches, which may not have seen the newest pods when it first
 * counts (creates are charged by the admission, so none recounts on them): if its first count is not
 * `want`, a change of spec.hard (on which every quota controller recounts) asks once more.
 */
async function waitCounted(ctx: CaseContext, ns: string, q: any, want: Record<string, string>, what: string): Promise<any> {
  const path = quotaPath(ns, q.metadata.name);
  const first = await waitFor(ctx, path, (o) => Object.keys(want).every((k) => k in (o?.status?.used ?? {})), what, `status.used with ${show(want)}`);
  if (usedIs(first.status.used, want)) return first;
  const hard = first.spec?.hard ?? {};
  const key = Object.keys(hard).find((k) => /^\d+$/.test(String(hard[k])))!;
  const res = await ctx.api.request('PATCH', path, { body: { spec: { hard: { [key]: String(Number(hard[key]) + 1) } } }, headers: { 'content-type': 'application/merge-patch+json' } });
  expectObject(res, SUCCESS.patch, 'ResourceQuota', `PATCH spec.hard[${key}] (a recount) after a first count of ${show(first.status.used)}`);
  return waitUsed(ctx, ns, q.metadata.name, want, `${what} (after a recount)`);
}

/** Pods in and out of a scope, then a quota with `spec`: only the ones in scope are counted. */
async function expectCounted(ctx: CaseContext, spec: Record<string, unknown>, inScope: PodShape[], outOfScope: PodShape[], what: string): Promise<void> {
  const ns = await ownNamespace(ctx);
  for (const [i, shape] of inScope.entries()) await createPod(ctx, ns, shape, `in-${i}`);
  for (const [i, shape] of outOfScope.entries()) await createPod(ctx, ns, shape, `out-${i}`);
  const q = await createQuota(ctx, ns, { hard: { pods: '10' }, ...spec });
  await waitCounted(ctx, ns, q, { pods: String(inScope.length) }, `${what}: status.used.pods counts the ${inScope.length} pod(s) in scope, not the ${outOfScope.length} out of it`);
}

const BEST_EFFORT: PodShape = {};
const BURSTABLE: PodShape = { requests: { cpu: '10m' } };
const scopeSelector = (...matchExpressions: Array<Record<string, unknown>>) => ({ scopeSelector: { matchExpressions } });
const priority = (operator: string, values?: string[]) => ({ scopeName: 'PriorityClass', operator, ...(values ? { values } : {}) });

export const quotaUsageCases: Case[] = [
  defineCase({
    ...must,
    id: 'api.quota-usage.status-hard',
    title: 'The quota controller publishes spec.hard as status.hard, the enforced limits, and follows a change of spec.hard',
    requirements: ['000-2.4-status-hard'],
    async run(ctx) {
      const ns = await ownNamespace(ctx);
      const q = await createQuota(ctx, ns, { hard: { pods: '10', 'requests.cpu': '2' } });
      const path = quotaPath(ns, q.metadata.name);
      const synced = await waitFor(ctx, path, (o) => usedIs(o?.status?.hard, { pods: '10', 'requests.cpu': '2' }), 'status.hard after the quota is created', 'status.hard {pods: 10, requests.cpu: 2}');
      expectEqual(Object.keys(synced.status.hard).sort(), ['pods', 'requests.cpu'], 'the names in status.hard');
      const res = await ctx.api.request('PATCH', path, { body: { spec: { hard: { pods: '5', 'requests.cpu': null, 'count/pods': '7' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
      expectObject(res, SUCCESS.patch, 'ResourceQuota', 'PATCH spec.hard to {pods: 5, count/pods: 7}');
      const changed = await waitFor(ctx, path, (o) => usedIs(o?.status?.hard, { pods: '5', 'count/pods': '7' }) && !('requests.cpu' in (o?.status?.hard ?? {})), 'status.hard after spec.hard changed', 'status.hard {pods: 5, count/pods: 7}');
      expectEqual(Object.keys(changed.status.hard).sort(), ['count/pods', 'pods'], 'the names in status.hard after the change');
    },
  }),
  defineCase({
    ...must,
    id: 'api.quota-usage.unscoped-counts-all',
    title: 'A quota without scopes counts every pod of its namespace in status.used: pods, count/pods, requests and limits',
    requirements: ['000-2.4-spec-scopes-unset-matches-all', '000-2.4-status-used'],
    async run(ctx) {
      const ns = await ownNamespace(ctx);
      await createPod(ctx, ns, BEST_EFFORT, 'best-effort');
      await createPod(ctx, ns, { requests: { cpu: '100m', memory: '64Mi' } }, 'burstable');
      await createPod(ctx, ns, { requests: { cpu: '200m', memory: '64Mi' }, limits: { cpu: '300m', memory: '128Mi' }, activeDeadlineSeconds: 600 }, 'terminating');
      const hard = { pods: '10', 'count/pods': '10', 'requests.cpu': '4', 'requests.memory': '4Gi', 'limits.cpu': '4', 'limits.memory': '4Gi' };
      const q = await createQuota(ctx, ns, { hard });
      const want = { pods: '3', 'count/pods': '3', 'requests.cpu': '300m', 'requests.memory': '128Mi', 'limits.cpu': '300m', 'limits.memory': '128Mi' };
      const got = await waitCounted(ctx, ns, q, want, 'status.used of a quota without scopes over three pods');
      expectEqual(Object.keys(got.status.used).sort(), Object.keys(hard).sort(), 'status.used names the limited resources (and only them)');
    },
  }),
  ...([
    ['best-effort', 'BestEffort', [BEST_EFFORT], [BURSTABLE]],
    ['not-best-effort', 'NotBestEffort', [BURSTABLE], [BEST_EFFORT]],
    ['terminating', 'Terminating', [{ activeDeadlineSeconds: 600 }], [BEST_EFFORT]],
    ['not-terminating', 'NotTerminating', [BEST_EFFORT], [{ activeDeadlineSeconds: 600 }]],
    ['priority-class', 'PriorityClass', [{ priorityClassName: 'oc-high' }], [BEST_EFFORT]],
    ['cross-namespace-pod-affinity', 'CrossNamespacePodAffinity', [{ crossNamespaceAffinity: true }], [BEST_EFFORT]],
  ] as const).map(([slug, scope, inScope, outOfScope]) => defineCase({
    ...must,
    id: `api.quota-usage.scope.${slug}`,
    title: `A quota scoped ${scope} counts the pods in that scope, not the others`,
    requirements: ['000-2.4-spec-scopes-match'],
    async run(ctx) {
      await expectCounted(ctx, { scopes: [scope] }, [...inScope], [...outOfScope], `quota scoped ${scope}`);
    },
  })),
  defineCase({
    ...must,
    id: 'api.quota-usage.scope-selector.in',
    title: 'A scope selector PriorityClass In [x] counts the pods of priority class x only',
    requirements: ['000-2.4-spec-scope-selector-and-scopes'],
    async run(ctx) {
      await expectCounted(ctx, scopeSelector(priority('In', ['oc-high'])), [{ priorityClassName: 'oc-high' }], [{ priorityClassName: 'oc-low' }, BEST_EFFORT], 'PriorityClass In [oc-high]');
    },
  }),
  defineCase({
    ...must,
    id: 'api.quota-usage.scope-selector.exists',
    title: 'A scope selector PriorityClass Exists counts the pods that name a priority class',
    requirements: ['000-2.4-spec-scope-selector-and-scopes'],
    async run(ctx) {
      await expectCounted(ctx, scopeSelector(priority('Exists')), [{ priorityClassName: 'oc-high' }, { priorityClassName: 'oc-low' }], [BEST_EFFORT], 'PriorityClass Exists');
    },
  }),
  defineCase({
    ...should,
    id: 'api.quota-usage.scope-selector.not-in',
    title: 'A scope selector PriorityClass NotIn [x] counts the pods of other classes and those without one',
    requirements: ['000-2.4-scope-selector-priority-class-absent'],
    async run(ctx) {
      await expectCounted(ctx, scopeSelector(priority('NotIn', ['oc-high'])), [{ priorityClassName: 'oc-low' }, BEST_EFFORT], [{ priorityClassName: 'oc-high' }], 'PriorityClass NotIn [oc-high]');
    },
  }),
  defineCase({
    ...should,
    id: 'api.quota-usage.scope-selector.does-not-exist',
    title: 'A scope selector PriorityClass DoesNotExist counts the pods without a priority class',
    requirements: ['000-2.4-scope-selector-priority-class-absent'],
    async run(ctx) {
      await expectCounted(ctx, scopeSelector(priority('DoesNotExist')), [BEST_EFFORT], [{ priorityClassName: 'oc-high' }], 'PriorityClass DoesNotExist');
    },
  }),
  defineCase({
    ...must,
    id: 'api.quota-usage.scopes-and-selector',
    title: 'A pod is counted only when it matches both spec.scopes and spec.scopeSelector',
    requirements: ['000-2.4-spec-scope-selector-and-scopes', '000-2.4-spec-scopes-match'],
    async run(ctx) {
      await expectCounted(ctx, { scopes: ['NotBestEffort'], ...scopeSelector(priority('In', ['oc-high'])) },
        [{ ...BURSTABLE, priorityClassName: 'oc-high' }],
        [{ priorityClassName: 'oc-high' }, { ...BURSTABLE, priorityClassName: 'oc-low' }],
        'scopes [NotBestEffort] and PriorityClass In [oc-high]');
    },
  }),
  defineCase({
    ...must,
    id: 'api.quota-usage.scope-selector.anded',
    title: 'The requirements of a scope selector are ANDed: a pod is counted only when it matches each',
    requirements: ['000-2.4-scope-selector-match-expressions', '000-2.4-spec-scope-selector-and-scopes'],
    async run(ctx) {
      await expectCounted(ctx, scopeSelector(priority('In', ['oc-high']), { scopeName: 'Terminating', operator: 'Exists' }),
        [{ priorityClassName: 'oc-high', activeDeadlineSeconds: 600 }],
        [{ priorityClassName: 'oc-high' }, { priorityClassName: 'oc-low', activeDeadlineSeconds: 600 }],
        'PriorityClass In [oc-high] and Terminating');
    },
  }),
  defineCase({
    ...should,
    id: 'api.quota-usage.admission.exceeded',
    title: 'A create that would go over a quota is refused with 403 Forbidden and upstream\'s "exceeded quota" message',
    requirements: ['000-2.4-admission-exceeded'],
    async run(ctx) {
      const ns = await ownNamespace(ctx);
      const q = await createQuota(ctx, ns, { hard: { pods: '1' } }, 'one');
      await waitFor(ctx, quotaPath(ns, q.metadata.name), (o) => usedIs(o?.status?.hard, { pods: '1' }) && usedIs(o?.status?.used, { pods: '0' }), 'the quota\'s status once the controller has synced it', 'status.hard {pods: 1}, status.used {pods: 0}');
      await createPod(ctx, ns, BEST_EFFORT, 'first');
      const second = podBody(ctx, BEST_EFFORT, 'second');
      const s = expectStatus(await ctx.api.post(podsPath(ns), second), { code: 403, reason: 'Forbidden' }, 'creating a second pod under a quota of one pod');
      const want = `pods "${second.metadata.name}" is forbidden: exceeded quota: ${q.metadata.name}, requested: pods=1, used: pods=1, limited: pods=1`;
      expectEqual(s.message, want, 'message of the refusal');
    },
  }),
  defineCase({
    ...should,
    id: 'api.quota-usage.admission.charges-usage',
    title: 'An admitted create is charged to the quota before it is stored: status.used shows it as soon as the create returns',
    requirements: ['000-2.4-admission-charges-usage'],
    async run(ctx) {
      const ns = await ownNamespace(ctx);
      const q = await createQuota(ctx, ns, { hard: { pods: '5', 'requests.cpu': '1' } });
      const path = quotaPath(ns, q.metadata.name);
      await waitUsed(ctx, ns, q.metadata.name, { pods: '0', 'requests.cpu': '0' }, 'the quota\'s status once the controller has synced it');
      await createPod(ctx, ns, { requests: { cpu: '250m' } }, 'charged');
      const got = expectObject(await ctx.api.get(path), [200], 'ResourceQuota', 'reading the quota right after the create');
      expectTrue(usedIs(got.status?.used, { pods: '1', 'requests.cpu': '250m' }), 'status.used right after the create', show({ pods: '1', 'requests.cpu': '250m' }), got.status?.used);
    },
  }),
  defineCase({
    ...should,
    id: 'api.quota-usage.admission.must-specify',
    title: 'A quota on cpu or memory refuses pods whose containers do not state them: 403 "failed quota: ... must specify"',
    requirements: ['000-2.4-admission-must-specify'],
    async run(ctx) {
      const ns = await ownNamespace(ctx);
      const q = await createQuota(ctx, ns, { hard: { 'requests.cpu': '1', 'limits.memory': '1Gi' } });
      await waitUsed(ctx, ns, q.metadata.name, { 'requests.cpu': '0', 'limits.memory': '0' }, 'the quota\'s status once the controller has synced it');
      const pod = podBody(ctx, BEST_EFFORT, 'unstated');
      const s = expectStatus(await ctx.api.post(podsPath(ns), pod), { code: 403, reason: 'Forbidden' }, 'creating a pod that states no cpu request and no memory limit');
      const want = `pods "${pod.metadata.name}" is forbidden: failed quota: ${q.metadata.name}: must specify limits.memory for: main; requests.cpu for: main`;
      expectEqual(s.message, want, 'message of the refusal');
    },
  }),
  defineCase({
    ...should,
    id: 'api.quota-usage.replenish.deleted',
    title: 'status.used goes down soon after a counted pod is deleted',
    requirements: ['000-2.4-used-replenished'],
    async run(ctx) {
      const ns = await ownNamespace(ctx);
      const a = await createPod(ctx, ns, BEST_EFFORT, 'a');
      await createPod(ctx, ns, BEST_EFFORT, 'b');
      const q = await createQuota(ctx, ns, { hard: { pods: '5', 'count/pods': '5' } });
      await waitCounted(ctx, ns, q, { pods: '2', 'count/pods': '2' }, 'status.used over two pods');
      const del = await ctx.api.delete(`${podsPath(ns)}/${encodeURIComponent(a.metadata.name)}`, { query: { gracePeriodSeconds: '0' } });
      expectTrue([200, 202].includes(del.status), 'deleting one pod', 'HTTP 200 or 202', del.status);
      await waitUsed(ctx, ns, q.metadata.name, { pods: '1', 'count/pods': '1' }, 'status.used after one pod was deleted');
    },
  }),
  defineCase({
    ...should,
    id: 'api.quota-usage.replenish.terminal',
    title: 'A pod that turns terminal (Succeeded) stops counting in pods but still counts in count/pods',
    requirements: ['000-2.4-used-replenished'],
    async run(ctx) {
      const ns = await ownNamespace(ctx);
      const pod = await createPod(ctx, ns, BEST_EFFORT, 'done');
      const q = await createQuota(ctx, ns, { hard: { pods: '5', 'count/pods': '5' } });
      await waitCounted(ctx, ns, q, { pods: '1', 'count/pods': '1' }, 'status.used over one pod');
      const statusPath = `${podsPath(ns)}/${encodeURIComponent(pod.metadata.name)}/status`;
      // Others (a scheduler noting the gate) may write the pod's status too: re-read on a conflict.
      for (let attempt = 1; ; attempt++) {
        const cur = expectObject(await ctx.api.get(statusPath), [200], 'Pod', 'reading the pod');
        const put = await ctx.api.put(statusPath, { ...cur, status: { ...cur.status, phase: 'Succeeded' } });
        if (put.status === 409 && attempt < 5) continue;
        expectObject(put, SUCCESS.replace, 'Pod', 'PUT .../status with phase Succeeded');
        break;
      }
      await waitUsed(ctx, ns, q.metadata.name, { pods: '0', 'count/pods': '1' }, 'status.used after the pod succeeded');
    },
  }),
];
