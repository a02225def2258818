// Spec 000 §3.1 (EvictionRequest states), the controller rules of §2.5 and §6: what the
// eviction-request controller and the default responder do with EvictionRequests, observed through
// the API. Each case makes its own target pod (a scheduling gate keeps every scheduler and agent away
// from it), its requests, and waits on watches with bounded timeouts.
//
// The Eviction objects the controller makes are "not shown" in the spec: a case finds a target's
// Evictions by listing the namespace's `lifecycle.orch.io/v1alpha1` evictions and keeping those whose
// spec.target.pod.uid is the pod's (upstream's shape); a target that serves no such kind skips the
// cases that need them. Cancellation needs an eviction still under way when the requesters withdraw:
// those cases target a pod that is already being deleted and held by a finalizer of the case's (the
// evictor has nothing to do; upstream waits up to 5 s for the responder before counting it evicted),
// and skip if the target counted it as evicted before it saw the withdrawals: before the case could
// withdraw, or (read from the write that made the Eviction final) before the controller had seen
// them. That race, a grace delay against a slow run, is the target's to win; an Eviction made final
// after every withdrawal was seen is a failure. "No responder managed to evict" is made with a mirror
// pod (upstream's default responder does not evict those) and observed once every responder of its
// Eviction finished with the pod still there. Upstream's reasons, messages, names and status fields
// are SHOULD cases or findings.
import { defineCase, type Case, type CaseContext } from '../case.js';
import type { ControlPlanePart } from '../../runner/controllers.js';
import type { Level } from '../requirements/types.js';
import { expectEqual, expectObject, expectTrue, fail, show, skip, SUCCESS } from '../verify.js';
import { holdsFor, waitFor } from '../wait.js';
import { noteMay, upstream } from '../findings.js';
import type { WatchStream } from '../../runner/client.js';

const GV = 'lifecycle.orch.io/v1alpha1';
const erCollection = (ns: string) => `/apis/${GV}/namespaces/${ns}/evictionrequests`;
const erPath = (er: any) => `${erCollection(er.metadata.namespace)}/${er.metadata.name}`;
const evictionCollection = (ns: string) => `/apis/${GV}/namespaces/${ns}/evictions`;
const podCollection = (ns: string) => `/api/v1/namespaces/${ns}/pods`;
const podPath = (pod: any) => `${podCollection(pod.metadata.namespace)}/${pod.metadata.name}`;

/** The finalizer that keeps a deleted target pod in place (terminating) until the case releases it. */
const HOLD = 'conformance.example.com/hold';
const GATE = 'conformance.example.com/never-schedule';
/** Upstream's `kubernetes.io/config.mirror`, renamed: the annotation that makes a pod a mirror pod. */
const MIRROR = 'orch.io/config.mirror';
const IMAGE = 'registry.example.com/conformance/pause:3.10';
const REQUESTER_A = 'a.conformance.example.com/requester';
const REQUESTER_B = 'b.conformance.example.com/requester';
const MERGE = { 'content-type': 'application/merge-patch+json' };

const ERC: ControlPlanePart = 'evictionrequest-controller';
const EVICTOR: ControlPlanePart = 'imperative-eviction-controller';
const GC: ControlPlanePart = 'garbage-collector-controller';

function head(section: '2.5' | '3.1' | '6', level: Level, requirements: string[], controllers: ControlPlanePart[]) {
  return { suite: 'eviction', spec: { doc: '000' as const, section }, level, requirements, impact: 'namespaced' as const, needs: ['api' as const], controllers };
}

// ------------------------------------------------------------------ objects

/**
 * A target pod in `namespace` (default the run's) that no scheduler binds (a scheduling gate) and no
 * agent runs. `hold`: it carries a finalizer of the case's and is deleted at once, so it stays in
 * place, terminating, until `release`. `mirror`: a mirror pod (upstream's annotation), which the
 * default responder does not evict (KEP-4563: API-initiated eviction of mirror pods is not supported).
 */
async function targetPod(ctx: CaseContext, o: { hold?: boolean; mirror?: boolean; spec?: Record<string, unknown>; namespace?: string; hint?: string } = {}): Promise<any> {
  const ns = o.namespace ?? ctx.namespace;
  const name = ctx.uniqueName(o.hint ?? 'target');
  // A mirror pod names its node (upstream refuses the annotation without spec.nodeName, and gates
  // with it): a node that does not exist, so no agent runs or removes it.
  const placement = o.mirror ? { nodeName: ctx.uniqueName('no-such-node') } : { schedulingGates: [{ name: GATE }] };
  const annotations = o.mirror ? { annotations: { [MIRROR]: 'conformance' } } : {};
  const body = {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, namespace: ns, labels: { ...ctx.labels }, ...annotations, ...(o.hold ? { finalizers: [HOLD] } : {}) },
    spec: { containers: [{ name: 'c', image: IMAGE }], ...placement, ...o.spec },
  };
  const pod = expectObject(await ctx.api.post(podCollection(ns), body), SUCCESS.create, 'Pod', `creating the target pod ${name}`);
  if (!o.hold) return pod;
  const del = await ctx.api.delete(podPath(pod));
  if (del.status !== 200 && del.status !== 202) fail('deleting the held target pod (its finalizer keeps it)', 'HTTP 200 or 202', `HTTP ${del.status} ${del.text.slice(0, 300)}`);
  const held = expectObject(await ctx.api.get(podPath(pod)), [200], 'Pod', 'reading the held target pod');
  expectTrue(!!held.metadata?.deletionTimestamp, 'the held target pod is terminating', 'metadata.deletionTimestamp set', held.metadata);
  return held;
}

/** Removes the case's finalizer from a held pod, so it goes (best effort: also used in `finally`). */
async function release(ctx: CaseContext, pod: any): Promise<void> {
  await ctx.api.request('PATCH', podPath(pod), { body: { metadata: { finalizers: null } }, headers: MERGE }).catch(() => undefined);
}

/** Runs `fn` with a held target pod, released afterwards whatever happens. */
async function withHeldPod(ctx: CaseContext, fn: (pod: any) => Promise<void>): Promise<void> {
  const pod = await targetPod(ctx, { hold: true });
  try {
    await fn(pod);
  } finally {
    await release(ctx, pod);
  }
}

async function request(ctx: CaseContext, pod: { metadata: { name: string; uid: string } }, requester: string, intent = 'Eviction', namespace = ctx.namespace): Promise<any> {
  const body = {
    apiVersion: GV, kind: 'EvictionRequest',
    metadata: { name: ctx.uniqueName('er'), namespace, labels: { ...ctx.labels } },
    spec: { intent, requester, target: { pod: { name: pod.metadata.name, uid: pod.metadata.uid } } },
  };
  return expectObject(await ctx.api.post(erCollection(namespace), body), SUCCESS.create, 'EvictionRequest', `creating an EvictionRequest of ${requester} with intent ${intent}`);
}

async function setIntent(ctx: CaseContext, er: any, intent: string): Promise<any> {
  const res = await ctx.api.request('PATCH', erPath(er), { body: { spec: { intent } }, headers: MERGE });
  return expectObject(res, SUCCESS.patch, 'EvictionRequest', `setting spec.intent of ${er.spec.requester} to ${intent}`);
}

// ------------------------------------------------------------------ observations

const cond = (o: any, type: string) => (Array.isArray(o?.status?.conditions) ? o.status.conditions : []).find((c: any) => c?.type === type);
const isTrue = (o: any, type: string) => cond(o, type)?.status === 'True';
/** TargetEvicted or Failed is True. */
const settled = (o: any) => isTrue(o, 'TargetEvicted') || isTrue(o, 'Failed');
const conditionsOf = (o: any) => show(o?.status?.conditions ?? 'no conditions');
/** Every responder of an Eviction (upstream's status.targetResponders) has finished, none left to run. */
const respondersFinished = (ev: any) => {
  const rs = ev?.status?.targetResponders;
  return Array.isArray(rs) && rs.length > 0 && rs.every((r: any) => ['Completed', 'Interrupted', 'Canceled'].includes(r?.state));
};

/** Waits until the request's TargetEvicted or Failed is True; gives the request. */
function waitSettled(ctx: CaseContext, er: any, what: string, timeoutMs = 20_000): Promise<any> {
  return waitFor(ctx, erPath(er), (o) => !o.deleted && settled(o), what, 'condition TargetEvicted or Failed with status True', timeoutMs);
}

/** Waits until the controller observed the request's current generation. */
function waitObserved(ctx: CaseContext, er: any, what: string, timeoutMs = 15_000): Promise<any> {
  return waitFor(ctx, erPath(er), (o) => !o.deleted && typeof o.metadata?.generation === 'number' && o.status?.observedGeneration === o.metadata.generation, what, 'status.observedGeneration equal to metadata.generation', timeoutMs);
}

const servedChecks = new Map<string, Promise<boolean>>();

/** Skips unless the target serves `lifecycle.orch.io/v1alpha1` evictions (asked once per run and server). */
async function evictionsServed(ctx: CaseContext): Promise<void> {
  const key = `${ctx.runId} ${ctx.api.conn.baseUrl}`;
  if (!servedChecks.has(key)) {
    servedChecks.set(key, ctx.api.get(`/apis/${GV}`).then((res) => res.status === 200 && Array.isArray(res.json?.resources) && res.json.resources.some((r: any) => r?.name === 'evictions')));
  }
  if (!(await servedChecks.get(key))) {
    skip(`the target serves no Eviction kind (${GV} evictions in discovery): the Evictions its controller makes cannot be read`);
  }
}

/**
 * Waits, on a watch of the namespace's evictions, until `pred` holds for the Evictions whose
 * spec.target.pod.uid is the pod's; gives them (oldest first).
 */
async function waitEvictions(ctx: CaseContext, pod: any, pred: (evs: any[]) => boolean, what: string, expected: string, timeoutMs = 15_000, onTimeout?: (evs: any[]) => never): Promise<any[]> {
  await evictionsServed(ctx);
  const collection = evictionCollection(pod.metadata.namespace);
  const mine = (o: any) => o?.spec?.target?.pod?.uid === pod.metadata.uid;
  const deadline = Date.now() + timeoutMs;
  const current = new Map<string, any>();
  const list = () => [...current.values()].sort((a, b) => String(a.metadata?.creationTimestamp).localeCompare(String(b.metadata?.creationTimestamp)) || String(a.metadata?.name).localeCompare(String(b.metadata?.name)));
  while (Date.now() < deadline) {
    const res = await ctx.api.get(collection);
    if (res.status !== 200) fail(`listing ${collection}`, 'HTTP 200 with an EvictionList', `HTTP ${res.status} ${res.text.slice(0, 300)}`);
    current.clear();
    for (const o of Array.isArray(res.json?.items) ? res.json.items : []) if (mine(o)) current.set(o.metadata.name, o);
    if (pred(list())) return list();
    const w = await ctx.api.watch(collection, { resourceVersion: res.json?.metadata?.resourceVersion, allowWatchBookmarks: false });
    try {
      if (w.status !== 200) continue;
      for (;;) {
        const left = deadline - Date.now();
        if (left <= 0) break;
        const ev = await w.next(left);
        if (!ev || ev.type === 'ERROR') break;
        if (!mine(ev.object)) continue;
        if (ev.type === 'DELETED') current.delete(ev.object.metadata.name);
        else current.set(ev.object.metadata.name, ev.object);
        if (pred(list())) return list();
      }
    } finally {
      w.close();
    }
  }
  if (onTimeout) return onTimeout(list());
  return fail(`${what} (within ${timeoutMs / 1000}s)`, expected, show(list().map((e) => ({ name: e.metadata?.name, labels: e.metadata?.labels, status: e.status }))));
}

/** The target's first Eviction, once there is one. */
async function firstEviction(ctx: CaseContext, pod: any): Promise<any> {
  const [ev] = await waitEvictions(ctx, pod, (l) => l.length > 0, 'the controller makes an Eviction for the target pod', `an Eviction in ${pod.metadata.namespace} whose spec.target.pod.uid is ${pod.metadata.uid}`);
  return ev;
}

/**
 * For cancellation cases (a held pod): waits for the target's Eviction, then makes sure no request
 * counts as settled yet; otherwise the eviction is over before anyone could withdraw, and the case
 * cannot observe its rule on this target.
 */
async function evictionUnderWay(ctx: CaseContext, pod: any, requests: readonly any[]): Promise<any> {
  const ev = await firstEviction(ctx, pod);
  for (const er of requests) {
    const now = expectObject(await ctx.api.get(erPath(er)), [200], 'EvictionRequest', 'reading the request before withdrawing');
    if (settled(now)) {
      skip(`the target counted the eviction of a pod that is being deleted (held by a finalizer) as finished before its requesters could withdraw (${conditionsOf(now)}): cancellation cannot be observed on this target`);
    }
  }
  return ev;
}

/**
 * Opens a watch of the target namespace's Evictions before a cancellation case withdraws: the events
 * queue up unread, so that if the target ends as evicted the case can read what the controller had
 * seen when it made the Eviction final (`judgeEvicted`).
 */
async function recordEvictions(ctx: CaseContext, pod: any): Promise<WatchStream | undefined> {
  const collection = evictionCollection(pod.metadata.namespace);
  const res = await ctx.api.get(collection);
  if (res.status !== 200) return undefined;
  const done = (Array.isArray(res.json?.items) ? res.json.items : []).find((o: any) => o?.spec?.target?.pod?.uid === pod.metadata.uid && settled(o));
  if (done) {
    skip(`the target counted the eviction of a pod that is being deleted (held by a finalizer) as finished before its requesters could withdraw (Eviction ${done.metadata?.name}: ${conditionsOf(done)}): cancellation cannot be observed on this target`);
  }
  const w = await ctx.api.watch(collection, { resourceVersion: res.json?.metadata?.resourceVersion, allowWatchBookmarks: false });
  if (w.status === 200) return w;
  w.close();
  return undefined;
}

/**
 * The target reports TargetEvicted after withdrawals that should have canceled the eviction of a pod
 * that is only terminating. A failure if the write that made the target's Eviction final shows that
 * the controller had already seen `last`'s withdrawal (status.requesters, upstream's field; `last` is
 * the case's last withdrawal, and a controller that saw it saw the earlier ones in the same watch
 * stream). A skip, with the reason, if the Eviction went final before, or if the target does not say
 * what it had seen: the race between a grace delay and the withdrawal is the target's to decide.
 */
async function judgeEvicted(w: WatchStream | undefined, pod: any, last: string, got: any): Promise<never> {
  let finalWrite: any;
  try {
    const deadline = Date.now() + 5_000;
    while (w && !finalWrite && Date.now() < deadline) {
      const ev = await w.next(deadline - Date.now());
      if (!ev || ev.type === 'ERROR') break;
      if (ev.object?.spec?.target?.pod?.uid === pod.metadata.uid && isTrue(ev.object, 'TargetEvicted')) finalWrite = ev.object;
    }
  } finally {
    w?.close();
  }
  const requesters = finalWrite?.status?.requesters;
  if (!Array.isArray(requesters)) {
    skip(`the target counted the held (terminating) pod as evicted (${conditionsOf(got)}), and ${finalWrite ? 'its Eviction does not report which intents it had seen (status.requesters)' : 'the write that made its Eviction final could not be read'}: whether it saw the withdrawals before cannot be told`);
  }
  if (!requesters.some((r: any) => r?.name === last && r?.intent === 'Withdrawn')) {
    skip(`the target counted the held (terminating) pod as evicted before it saw the withdrawals (the write that made its Eviction final lists requesters ${show(requesters)}): cancellation cannot be observed on this target`);
  }
  return fail('the eviction was canceled: every requester had withdrawn and the pod was only terminating (neither deleted nor terminated)',
    'Failed True and TargetEvicted not True', `${conditionsOf(got)}; the Eviction was made final with requesters ${show(requesters)}`);
}

/**
 * Withdraws `requests` in turn (after deleting those in `del`: a deletion counts as a withdrawal)
 * while recording the target's Eviction writes, then waits until each of `requests` settles; gives
 * them. A request that ends TargetEvicted instead of canceled is judged by `judgeEvicted`.
 */
async function withdrawAll(ctx: CaseContext, pod: any, requests: readonly any[], del: readonly any[] = []): Promise<any[]> {
  const writes = await recordEvictions(ctx, pod);
  try {
    for (const er of del) {
      const res = await ctx.api.delete(erPath(er));
      if (res.status !== 200 && res.status !== 202) fail(`deleting ${er.spec.requester}'s request`, 'HTTP 200 or 202', `HTTP ${res.status} ${res.text.slice(0, 300)}`);
    }
    for (const er of requests) await setIntent(ctx, er, 'Withdrawn');
    const last = requests[requests.length - 1].spec.requester;
    const settledAll: any[] = [];
    for (const er of requests) {
      const got = await waitSettled(ctx, er, `${er.spec.requester}'s request settles after every requester withdrew`);
      if (isTrue(got, 'TargetEvicted')) await judgeEvicted(writes, pod, last, got);
      settledAll.push(got);
    }
    return settledAll;
  } finally {
    writes?.close();
  }
}

/** Sets the pod's status.phase (a pod no agent runs: the case plays its agent). */
async function setPhase(ctx: CaseContext, pod: any, phase: string): Promise<void> {
  const res = await ctx.api.request('PATCH', `${podPath(pod)}/status`, { body: { status: { phase } }, headers: MERGE });
  expectObject(res, SUCCESS.patch, 'Pod', `setting the target pod's status.phase to ${phase}`);
}

/** Creates a namespace of the case's own (tracked for deletion). */
async function ownNamespace(ctx: CaseContext, hint: string): Promise<string> {
  const ns = ctx.uniqueName(hint);
  ctx.track(`/api/v1/namespaces/${ns}`);
  expectObject(await ctx.api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { ...ctx.labels } } }), SUCCESS.create, 'Namespace', `creating namespace ${ns}`);
  return ns;
}

function expectCondition(o: any, type: string, want: { status: string; reason?: string; message?: string }, what: string): void {
  const c = cond(o, type);
  const got = c && { status: c.status, ...(want.reason !== undefined ? { reason: c.reason } : {}), ...(want.message !== undefined ? { message: c.message ?? '' } : {}) };
  expectEqual(got, want, `${what}: condition ${type}`);
}

// ------------------------------------------------------------------ cases

export const evictionCases: Case[] = [
  // ---------------------------------------------------------------- §6
  defineCase({
    ...head('6', 'MUST', ['000-6-eviction-controller'], [ERC]),
    id: 'api.eviction.controller-creates-evictions',
    title: 'The eviction-request controller observes an EvictionRequest and creates an Eviction for its target',
    async run(ctx) {
      await withHeldPod(ctx, async (pod) => {
        await request(ctx, pod, REQUESTER_A);
        const ev = await firstEviction(ctx, pod);
        expectEqual(ev.kind ?? 'Eviction', 'Eviction', 'kind of the object made');
        expectEqual(ev.metadata?.namespace, pod.metadata.namespace, 'namespace of the Eviction (the target\'s)');
        expectEqual(ev.spec?.target?.pod?.name, pod.metadata.name, 'spec.target.pod.name of the Eviction');
      });
    },
  }),
  defineCase({
    ...head('6', 'SHOULD', ['000-6-eviction-responders'], [ERC, EVICTOR]),
    id: 'api.eviction.responders-report-progress',
    title: 'The default responder watches the Eviction, evicts the pod and reports its progress (start and completion) in the Eviction\'s status',
    async run(ctx) {
      const pod = await targetPod(ctx);
      const er = await request(ctx, pod, REQUESTER_A);
      await waitSettled(ctx, er, 'the request settles once the responder evicted the pod');
      await waitEvictions(ctx, pod, (l) => l.some((e) => (e.status?.responders ?? []).some((r: any) => r?.startTime && r?.completionTime)),
        'a responder reports its progress in the Eviction\'s status', 'status.responders with an entry that has startTime and completionTime', 5_000);
    },
  }),

  // ---------------------------------------------------------------- §3.1 rows
  defineCase({
    ...head('3.1', 'MUST', ['000-3.1-withdraw-other-requester-continues'], [ERC]),
    id: 'api.eviction.withdraw-other-requester-continues',
    title: 'One requester withdrawing while another still asks for the eviction: the eviction continues',
    async run(ctx) {
      await withHeldPod(ctx, async (pod) => {
        const a = await request(ctx, pod, REQUESTER_A);
        const b = await request(ctx, pod, REQUESTER_B);
        await evictionUnderWay(ctx, pod, [a, b]);
        const withdrawn = await setIntent(ctx, a, 'Withdrawn');
        // A request is final once settled: a controller that counted the (terminating) pod as evicted
        // before it saw the withdrawal never observes it, and the rule cannot be observed.
        const seen = await waitFor(ctx, erPath(a), (o) => !o.deleted && (o.status?.observedGeneration === withdrawn.metadata?.generation || settled(o)),
          'the controller observes the withdrawal', `status.observedGeneration ${withdrawn.metadata?.generation}`, 15_000);
        if (seen.status?.observedGeneration !== withdrawn.metadata?.generation && isTrue(seen, 'TargetEvicted')) {
          skip(`the target counted the held (terminating) pod as evicted before it observed the withdrawal (${conditionsOf(seen)}): whether the eviction continues cannot be observed`);
        }
        // The pod goes: the eviction B still asks for must end as evicted, not canceled.
        await release(ctx, pod);
        const got = await waitSettled(ctx, b, 'the remaining requester\'s request settles once the pod is gone');
        expectTrue(isTrue(got, 'TargetEvicted') && !isTrue(got, 'Failed'), 'the eviction continued: the remaining request reports TargetEvicted', 'TargetEvicted True and Failed not True', conditionsOf(got));
      });
    },
  }),
  defineCase({
    ...head('3.1', 'MUST', ['000-3.1-all-withdrawn-cancels'], [ERC]),
    id: 'api.eviction.all-withdrawn-cancels',
    title: 'Every requester of a target withdrawing cancels the eviction: every request reports Failed',
    async run(ctx) {
      await withHeldPod(ctx, async (pod) => {
        const a = await request(ctx, pod, REQUESTER_A);
        const b = await request(ctx, pod, REQUESTER_B);
        await evictionUnderWay(ctx, pod, [a, b]);
        for (const got of await withdrawAll(ctx, pod, [a, b])) {
          expectTrue(isTrue(got, 'Failed'), 'the eviction was canceled', 'Failed True and TargetEvicted not True', conditionsOf(got));
        }
      });
    },
  }),
  defineCase({
    ...head('3.1', 'MUST', ['000-3.1-delete-counts-as-withdrawal'], [ERC]),
    id: 'api.eviction.delete-counts-as-withdrawal',
    title: 'Deleting an EvictionRequest counts as its requester withdrawing: with the other one withdrawn the eviction is canceled',
    async run(ctx) {
      await withHeldPod(ctx, async (pod) => {
        const a = await request(ctx, pod, REQUESTER_A);
        const b = await request(ctx, pod, REQUESTER_B);
        await evictionUnderWay(ctx, pod, [a, b]);
        // Both requests must be part of the eviction before one is deleted (§3.1: the requester is set
        // as a label on the Eviction); an Eviction that knew only the deleted request would be that
        // request's alone, and collected with it.
        await waitEvictions(ctx, pod, (l) => l.some((ev) => ev.metadata?.labels?.[REQUESTER_A] !== undefined && ev.metadata?.labels?.[REQUESTER_B] !== undefined),
          'the Eviction carries both requesters', `an Eviction labelled ${REQUESTER_A} and ${REQUESTER_B}`);
        const [got] = await withdrawAll(ctx, pod, [b], [a]);
        expectTrue(isTrue(got, 'Failed'), 'the deleted request counted as withdrawn, so the eviction was canceled', 'Failed True and TargetEvicted not True', conditionsOf(got));
      });
    },
  }),
  defineCase({
    ...head('3.1', 'MUST', ['000-3.1-all-removed-evictions-collected'], [ERC, GC]),
    id: 'api.eviction.all-removed-evictions-collected',
    title: 'Once every EvictionRequest of a target is removed, the target\'s Evictions are garbage collected',
    async run(ctx) {
      await withHeldPod(ctx, async (pod) => {
        const a = await request(ctx, pod, REQUESTER_A);
        const b = await request(ctx, pod, REQUESTER_B);
        await firstEviction(ctx, pod);
        await waitObserved(ctx, b, 'the controller observes the second request');
        for (const er of [a, b]) {
          const del = await ctx.api.delete(erPath(er));
          if (del.status !== 200 && del.status !== 202) fail(`deleting ${er.spec.requester}'s request`, 'HTTP 200 or 202', `HTTP ${del.status}`);
        }
        await waitEvictions(ctx, pod, (l) => l.length === 0, 'the target\'s Evictions are garbage collected', 'no Eviction left for the target', 20_000);
      });
    },
  }),
  defineCase({
    ...head('3.1', 'MUST', ['000-3.1-failed-condition'], [ERC]),
    id: 'api.eviction.failed-condition',
    title: 'A request nobody processes any more (canceled) gets condition Failed True from the controller',
    async run(ctx) {
      await withHeldPod(ctx, async (pod) => {
        const er = await request(ctx, pod, REQUESTER_A);
        await evictionUnderWay(ctx, pod, [er]);
        const [got] = await withdrawAll(ctx, pod, [er]);
        expectTrue(isTrue(got, 'Failed'), 'condition Failed of the canceled request', 'status True', conditionsOf(got));
      });
    },
  }),
  defineCase({
    ...head('3.1', 'MUST', ['000-3.1-failed-condition'], [ERC, EVICTOR]),
    id: 'api.eviction.failed-no-responder-evicted',
    title: 'A request whose responders all finished without evicting the target gets condition Failed True from the controller',
    async run(ctx) {
      // A mirror pod, which upstream's default responder does not evict. Which responders a target
      // has, and what they do with a mirror pod, the spec does not say: a target whose responders
      // evict it, or are still at work when the wait ends, cannot show the rule here, and the case
      // skips. Responder states are read where upstream keeps them (the Eviction's
      // status.targetResponders); the verdict is the request's condition Failed.
      const pod = await targetPod(ctx, { mirror: true, hint: 'mirror' });
      const er = await request(ctx, pod, REQUESTER_A);
      const evs = await waitEvictions(ctx, pod, (l) => l.some((e) => respondersFinished(e) || settled(e)),
        'every responder of the target\'s Eviction finishes', 'an Eviction whose status.targetResponders are all Completed, Interrupted or Canceled', 15_000,
        (l) => skip(`no Eviction of the mirror pod had every responder finished within 15 s (responders: ${show(l.map((e) => e.status?.targetResponders ?? 'none reported'))}): whether a request nobody managed to evict fails cannot be observed in the case's time`));
      const ev = evs.find((e) => respondersFinished(e) || settled(e));
      const now = await ctx.api.get(podPath(pod));
      if (now.status !== 200 || now.json?.metadata?.uid !== pod.metadata.uid || now.json?.metadata?.deletionTimestamp) {
        skip(`the target evicted the mirror pod (${now.status === 200 ? 'it is being deleted' : `HTTP ${now.status}`}; Eviction ${ev?.metadata?.name}: ${conditionsOf(ev)}): a request no responder managed to evict cannot be made on this target`);
      }
      // Every responder is done (or the Eviction is final) and the pod is still there, not being
      // deleted: no responder is processing the request and none managed to evict.
      const got = await waitFor(ctx, erPath(er), (o) => !o.deleted && isTrue(o, 'Failed'),
        `the request fails once its responders finished without evicting (Eviction ${ev?.metadata?.name}: responders ${show(ev?.status?.targetResponders)}, ${conditionsOf(ev)})`,
        'condition Failed with status True', 10_000);
      upstream(() => expectCondition(got, 'Failed', { status: 'True', reason: 'NoFurtherResponder', message: 'All responders have completed without evicting the target' }, 'the request no responder managed to evict'));
    },
  }),
  defineCase({
    ...head('3.1', 'MUST', ['000-3.1-target-evicted-condition'], [ERC, EVICTOR]),
    id: 'api.eviction.target-evicted-condition',
    title: 'Once the target pod is evicted (deleted), the controller sets condition TargetEvicted True',
    async run(ctx) {
      const pod = await targetPod(ctx);
      const er = await request(ctx, pod, REQUESTER_A);
      const got = await waitSettled(ctx, er, 'the request settles');
      expectTrue(isTrue(got, 'TargetEvicted'), 'condition TargetEvicted once the pod was evicted', 'status True', conditionsOf(got));
      const now = await ctx.api.get(podPath(pod));
      expectTrue(now.status === 404 || now.json?.metadata?.uid !== pod.metadata.uid || !!now.json?.metadata?.deletionTimestamp, 'the target pod', 'deleted (404) or being deleted', now.status === 200 ? show(now.json?.metadata) : `HTTP ${now.status}`);
    },
  }),
  defineCase({
    ...head('3.1', 'MUST', ['000-3.1-target-evicted-condition'], [ERC, EVICTOR]),
    id: 'api.eviction.target-terminated-condition',
    title: 'A target pod that terminated (phase Succeeded) counts as evicted: TargetEvicted True',
    async run(ctx) {
      const pod = await targetPod(ctx);
      await setPhase(ctx, pod, 'Succeeded');
      const er = await request(ctx, pod, REQUESTER_A);
      const got = await waitSettled(ctx, er, 'the request settles');
      expectTrue(isTrue(got, 'TargetEvicted'), 'condition TargetEvicted for a terminated target', 'status True', conditionsOf(got));
    },
  }),
  defineCase({
    ...head('3.1', 'MUST', ['000-3.1-new-eviction-resets-conditions'], [ERC]),
    id: 'api.eviction.new-eviction-resets-conditions',
    title: 'After a canceled eviction, the controller observes a new Eviction intent; the conditions may be reset (Failed no longer True) or kept, and the target still there is not TargetEvicted',
    async run(ctx) {
      await withHeldPod(ctx, async (pod) => {
        const er = await request(ctx, pod, REQUESTER_A);
        await evictionUnderWay(ctx, pod, [er]);
        const [canceled] = await withdrawAll(ctx, pod, [er]);
        expectTrue(isTrue(canceled, 'Failed'), 'the canceled request', 'condition Failed True', conditionsOf(canceled));
        await setIntent(ctx, er, 'Eviction');
        // "Conditions may be reset": both outcomes pass once the controller has observed the intent
        // (upstream resets them, which is noted when not taken).
        const got = await waitFor(ctx, erPath(er), (o) => !o.deleted && o.status?.observedGeneration === o.metadata?.generation,
          'the controller observes the new intent', 'status.observedGeneration equal to metadata.generation');
        if (isTrue(got, 'Failed')) noteMay('the conditions of a canceled request after a new Eviction intent', 'reset (Failed no longer True)', `kept: ${conditionsOf(got)}`);
        // The pod is held, not evicted: whatever happened to the conditions, it is no TargetEvicted.
        expectTrue(!isTrue(got, 'TargetEvicted'), 'condition TargetEvicted after the new intent, the target pod still there', 'not True', conditionsOf(got));
      });
    },
  }),
  defineCase({
    ...head('3.1', 'SHOULD', ['000-3.1-cancel-responders'], [ERC]),
    id: 'api.eviction.cancel-responders',
    title: 'On cancel, the Active responder is canceled (state Canceled) and no responder stays Active',
    async run(ctx) {
      await withHeldPod(ctx, async (pod) => {
        const er = await request(ctx, pod, REQUESTER_A);
        await evictionUnderWay(ctx, pod, [er]);
        const [ev] = await waitEvictions(ctx, pod, (l) => (l[0]?.status?.targetResponders ?? []).some((r: any) => r?.state === 'Active'),
          'a responder of the Eviction is Active', 'status.targetResponders with a responder in state Active');
        const active = ev.status.targetResponders.find((r: any) => r?.state === 'Active').name;
        await withdrawAll(ctx, pod, [er]);
        const [after] = await waitEvictions(ctx, pod, (l) => isTrue(l[0], 'Failed'), 'the Eviction is canceled', 'condition Failed True on the Eviction');
        const states = Object.fromEntries((after.status?.targetResponders ?? []).map((r: any) => [r?.name, r?.state]));
        expectEqual(states[active], 'Canceled', `state of the responder that was Active (${active})`);
        expectTrue(!Object.values(states).includes('Active'), 'no responder stays Active after the cancel', 'no state Active', states);
      });
    },
  }),
  defineCase({
    ...head('3.1', 'MUST', ['000-3.1-relationship'], [ERC]),
    id: 'api.eviction.relationship',
    title: 'Many-to-one for a pod: two EvictionRequests of one pod share one Eviction',
    async run(ctx) {
      await withHeldPod(ctx, async (pod) => {
        const a = await request(ctx, pod, REQUESTER_A);
        const b = await request(ctx, pod, REQUESTER_B);
        await firstEviction(ctx, pod);
        await waitObserved(ctx, a, 'the controller observes the first request');
        await waitObserved(ctx, b, 'the controller observes the second request');
        const evs = await waitEvictions(ctx, pod, () => true, 'listing the target\'s Evictions', 'a list');
        expectEqual(evs.map((e) => e.metadata?.name).length, 1, `number of Evictions for the pod (${show(evs.map((e) => e.metadata?.name))})`);
      });
    },
  }),
  defineCase({
    ...head('3.1', 'MUST', ['000-3.1-requester-label'], [ERC]),
    id: 'api.eviction.requester-label',
    title: 'Each requester is set as a label (its key) on the target\'s Eviction',
    async run(ctx) {
      await withHeldPod(ctx, async (pod) => {
        await request(ctx, pod, REQUESTER_A);
        await request(ctx, pod, REQUESTER_B);
        await waitEvictions(ctx, pod, (l) => l.length > 0 && [REQUESTER_A, REQUESTER_B].every((r) => r in (l[0].metadata?.labels ?? {})),
          'the Eviction carries both requesters as labels', `metadata.labels with keys ${REQUESTER_A} and ${REQUESTER_B}`, 10_000);
      });
    },
  }),

  // ---------------------------------------------------------------- §2.5 controller rules
  defineCase({
    ...head('2.5', 'MUST', ['000-2.5-target-pod-group-unsupported'], [ERC, EVICTOR]),
    gates: { GenericWorkload: true },
    id: 'api.eviction.target-pod-group-unsupported',
    title: 'A pod of a PodGroup (spec.schedulingGroup set) is an unsupported target: the request fails and the pod stays',
    async run(ctx) {
      const pod = await targetPod(ctx, { spec: { schedulingGroup: { podGroupName: ctx.uniqueName('group') } }, hint: 'grouped' });
      expectTrue(!!pod.spec?.schedulingGroup, 'the target pod as stored', 'spec.schedulingGroup kept', pod.spec);
      const er = await request(ctx, pod, REQUESTER_A);
      const got = await waitSettled(ctx, er, 'the request settles');
      expectTrue(isTrue(got, 'Failed') && !isTrue(got, 'TargetEvicted'), 'the request for a pod of a PodGroup', 'Failed True and TargetEvicted not True', conditionsOf(got));
      const now = await ctx.api.get(podPath(pod));
      expectTrue(now.status === 200 && now.json?.metadata?.uid === pod.metadata.uid && !now.json?.metadata?.deletionTimestamp, 'the pod of the PodGroup', 'still there, not being deleted', now.status === 200 ? show(now.json?.metadata) : `HTTP ${now.status}`);
    },
  }),
  defineCase({
    ...head('2.5', 'MUST', ['000-2.5-target-pod-same-namespace'], [ERC, EVICTOR]),
    // It makes namespaces of its own: the target pod must be elsewhere than the request.
    impact: 'cluster-scoped',
    id: 'api.eviction.target-pod-same-namespace',
    title: 'The target pod is looked for in the request\'s namespace: a pod of that name and uid in another namespace is not evicted',
    async run(ctx) {
      const here = await ownNamespace(ctx, 'evict-req');
      const there = await ownNamespace(ctx, 'evict-pod');
      const pod = await targetPod(ctx, { namespace: there, hint: 'elsewhere' });
      const er = await request(ctx, pod, REQUESTER_A, 'Eviction', here);
      const seen = await waitObserved(ctx, er, 'the controller observes the request');
      expectTrue(!isTrue(seen, 'TargetEvicted'), 'the request naming a pod of another namespace', 'TargetEvicted not True', conditionsOf(seen));
      await holdsFor(ctx, podPath(pod), (o) => !o.deleted && !o.metadata?.deletionTimestamp, 2_000,
        'the pod in the other namespace is not evicted', 'the pod stays, not being deleted');
    },
  }),
  defineCase({
    ...head('2.5', 'MUST', ['000-2.5-status-condition-types'], [ERC, EVICTOR]),
    id: 'api.eviction.status-condition-types',
    title: 'The conditions the controller manages on a request are of types TargetEvicted and Failed',
    async run(ctx) {
      const pod = await targetPod(ctx);
      const er = await request(ctx, pod, REQUESTER_A);
      const got = await waitFor(ctx, erPath(er), (o) => !o.deleted && (o.status?.conditions ?? []).some((c: any) => c?.status === 'True'),
        'the controller reports on the evicted pod', 'a condition with status True');
      const types = (got.status.conditions as any[]).map((c) => c?.type);
      expectTrue(types.every((t) => t === 'TargetEvicted' || t === 'Failed'), 'types of the conditions the controller wrote', 'only TargetEvicted and Failed', types);
      expectTrue(types.includes('TargetEvicted'), 'types of the conditions the controller wrote', 'TargetEvicted among them', types);
    },
  }),
  defineCase({
    ...head('2.5', 'MUST', ['000-2.5-observed-generation'], [ERC]),
    id: 'api.eviction.observed-generation',
    title: 'The controller sets status.observedGeneration to the request\'s metadata.generation it observed, also after a change of intent',
    async run(ctx) {
      await withHeldPod(ctx, async (pod) => {
        const er = await request(ctx, pod, REQUESTER_A, 'Withdrawn');
        const first = await waitObserved(ctx, er, 'the controller observes the new request');
        const changed = await setIntent(ctx, first, 'Eviction');
        expectTrue(changed.metadata?.generation > first.metadata.generation, 'metadata.generation after changing spec.intent', `more than ${first.metadata.generation}`, changed.metadata?.generation);
        await waitObserved(ctx, changed, 'the controller observes the change of intent');
      });
    },
  }),

  // ---------------------------------------------------------------- upstream specifics (SHOULD)
  defineCase({
    ...head('3.1', 'SHOULD', ['000-3.1-eviction-name'], [ERC]),
    id: 'api.eviction.eviction-name',
    title: 'Evictions are named pod-<n>-<pod name>; after a cancel, a new intent makes pod-<n+1>-<pod name>',
    async run(ctx) {
      await withHeldPod(ctx, async (pod) => {
        const er = await request(ctx, pod, REQUESTER_A);
        const first = await evictionUnderWay(ctx, pod, [er]);
        const m = /^pod-(\d+)-(.+)$/.exec(first.metadata?.name ?? '');
        expectTrue(!!m && m[2] === pod.metadata.name, 'name of the first Eviction', `pod-<n>-${pod.metadata.name}`, first.metadata?.name);
        const [canceled] = await withdrawAll(ctx, pod, [er]);
        expectTrue(isTrue(canceled, 'Failed'), 'the canceled request', 'condition Failed True', conditionsOf(canceled));
        await setIntent(ctx, er, 'Eviction');
        const next = `pod-${Number(m![1]) + 1}-${pod.metadata.name}`;
        await waitEvictions(ctx, pod, (l) => l.some((e) => e.metadata?.name === next), 'a new Eviction for the new intent', `an Eviction named ${next}`);
      });
    },
  }),
  defineCase({
    ...head('3.1', 'SHOULD', ['000-3.1-eviction-labels-owners'], [ERC]),
    id: 'api.eviction.eviction-labels-owners',
    title: 'The Eviction is labelled <requester>: requester for each request and owned by every request (no controller or blockOwnerDeletion)',
    async run(ctx) {
      await withHeldPod(ctx, async (pod) => {
        const a = await request(ctx, pod, REQUESTER_A);
        const b = await request(ctx, pod, REQUESTER_B);
        const [ev] = await waitEvictions(ctx, pod, (l) => l.length > 0 && (l[0].metadata?.ownerReferences ?? []).length >= 2 && [REQUESTER_A, REQUESTER_B].every((r) => r in (l[0].metadata?.labels ?? {})),
          'the Eviction names both requests', 'both requesters labelled and both requests owners');
        expectEqual({ a: ev.metadata.labels[REQUESTER_A], b: ev.metadata.labels[REQUESTER_B] }, { a: 'requester', b: 'requester' }, 'values of the requester labels');
        const refs = (ev.metadata.ownerReferences as any[]).map((r) => ({ apiVersion: r.apiVersion, kind: r.kind, name: r.name, uid: r.uid, controller: r.controller ?? false, blockOwnerDeletion: r.blockOwnerDeletion ?? false }));
        const want = [a, b].map((er) => ({ apiVersion: GV, kind: 'EvictionRequest', name: er.metadata.name, uid: er.metadata.uid, controller: false, blockOwnerDeletion: false }));
        expectEqual(refs.filter((r) => want.some((w) => w.uid === r.uid)).sort((x, y) => x.uid.localeCompare(y.uid)), want.sort((x, y) => x.uid.localeCompare(y.uid)), 'metadata.ownerReferences naming the requests');
      });
    },
  }),
  defineCase({
    ...head('3.1', 'SHOULD', ['000-3.1-eviction-requesters'], [ERC]),
    id: 'api.eviction.eviction-requesters',
    title: 'The Eviction\'s status.requesters lists each requester with its intent; a deleted request stays listed as Withdrawn',
    async run(ctx) {
      await withHeldPod(ctx, async (pod) => {
        const a = await request(ctx, pod, REQUESTER_A);
        await request(ctx, pod, REQUESTER_B);
        await evictionUnderWay(ctx, pod, [a]);
        const intents = (e: any) => Object.fromEntries((e?.status?.requesters ?? []).map((r: any) => [r?.name, r?.intent]));
        await waitEvictions(ctx, pod, (l) => intents(l[0])[REQUESTER_A] === 'Eviction' && intents(l[0])[REQUESTER_B] === 'Eviction',
          'both requesters listed', `status.requesters with ${REQUESTER_A} and ${REQUESTER_B}, intent Eviction`);
        const del = await ctx.api.delete(erPath(a));
        if (del.status !== 200 && del.status !== 202) fail(`deleting ${REQUESTER_A}'s request`, 'HTTP 200 or 202', `HTTP ${del.status}`);
        await waitEvictions(ctx, pod, (l) => intents(l[0])[REQUESTER_A] === 'Withdrawn' && intents(l[0])[REQUESTER_B] === 'Eviction',
          'the deleted request stays listed as Withdrawn', `status.requesters: ${REQUESTER_A} Withdrawn, ${REQUESTER_B} Eviction`);
      });
    },
  }),
  defineCase({
    ...head('3.1', 'SHOULD', ['000-3.1-awaiting-eviction'], [ERC]),
    id: 'api.eviction.awaiting-eviction',
    title: 'A request with no Eviction to report on has both conditions False, reason AwaitingEviction',
    async run(ctx) {
      const pod = await targetPod(ctx);
      const er = await request(ctx, pod, REQUESTER_A, 'Withdrawn');
      const got = await waitObserved(ctx, er, 'the controller observes the request');
      for (const type of ['TargetEvicted', 'Failed']) {
        expectCondition(got, type, { status: 'False', reason: 'AwaitingEviction', message: 'waiting for an Eviction to report on progress' }, 'a withdrawn request with no Eviction');
      }
    },
  }),
  defineCase({
    ...head('3.1', 'SHOULD', ['000-3.1-target-evicted-reasons'], [ERC, EVICTOR]),
    id: 'api.eviction.pod-deleted-reason',
    title: 'An evicted (deleted) pod: TargetEvicted True with reason PodDeleted, Failed False with reason Succeeded',
    async run(ctx) {
      const pod = await targetPod(ctx);
      const er = await request(ctx, pod, REQUESTER_A);
      const got = await waitSettled(ctx, er, 'the request settles');
      expectCondition(got, 'TargetEvicted', { status: 'True', reason: 'PodDeleted', message: 'Target pod has been deleted' }, 'the evicted pod\'s request');
      expectCondition(got, 'Failed', { status: 'False', reason: 'Succeeded' }, 'the evicted pod\'s request');
    },
  }),
  defineCase({
    ...head('3.1', 'SHOULD', ['000-3.1-target-evicted-reasons'], [ERC, EVICTOR]),
    id: 'api.eviction.pod-terminal-reason',
    title: 'A terminated pod counts as evicted as it is: TargetEvicted True with reason PodTerminal, and it is not deleted',
    async run(ctx) {
      const pod = await targetPod(ctx);
      await setPhase(ctx, pod, 'Failed');
      const er = await request(ctx, pod, REQUESTER_A);
      const got = await waitSettled(ctx, er, 'the request settles');
      expectCondition(got, 'TargetEvicted', { status: 'True', reason: 'PodTerminal', message: 'Pod has reached terminal state' }, 'the terminated pod\'s request');
      const now = await ctx.api.get(podPath(pod));
      expectTrue(now.status === 200 && !now.json?.metadata?.deletionTimestamp, 'the terminated pod', 'still there (nothing to evict)', now.status === 200 ? show(now.json?.metadata) : `HTTP ${now.status}`);
    },
  }),
  defineCase({
    ...head('3.1', 'SHOULD', ['000-3.1-canceled-reason'], [ERC]),
    id: 'api.eviction.canceled-reason',
    title: 'A canceled eviction: Failed True with reason CanceledDueToNoRequesters, TargetEvicted False with reason EvictionFailed',
    async run(ctx) {
      await withHeldPod(ctx, async (pod) => {
        const er = await request(ctx, pod, REQUESTER_A);
        await evictionUnderWay(ctx, pod, [er]);
        const [got] = await withdrawAll(ctx, pod, [er]);
        expectCondition(got, 'Failed', { status: 'True', reason: 'CanceledDueToNoRequesters', message: 'No active requesters with eviction intent' }, 'the canceled request');
        expectCondition(got, 'TargetEvicted', { status: 'False', reason: 'EvictionFailed' }, 'the canceled request');
      });
    },
  }),
  defineCase({
    ...head('2.5', 'SHOULD', ['000-2.5-invalid-target-reason'], [ERC]),
    id: 'api.eviction.invalid-target.not-found',
    title: 'A request for a pod that does not exist: Failed True, reason EvictionInvalid, message "Target pod not found."',
    async run(ctx) {
      const pod = await targetPod(ctx);
      const er = await request(ctx, { metadata: { name: ctx.uniqueName('absent'), uid: pod.metadata.uid } }, REQUESTER_A);
      const got = await waitSettled(ctx, er, 'the request settles');
      expectCondition(got, 'Failed', { status: 'True', reason: 'EvictionInvalid', message: 'Target pod not found.' }, 'the request for a missing pod');
      expectCondition(got, 'TargetEvicted', { status: 'False', reason: 'EvictionFailed' }, 'the request for a missing pod');
    },
  }),
  defineCase({
    ...head('2.5', 'SHOULD', ['000-2.5-invalid-target-reason'], [ERC]),
    id: 'api.eviction.invalid-target.uid-mismatch',
    title: 'A request whose uid is not the pod\'s: Failed True, reason EvictionInvalid, message "Target pod UID mismatch: ..."',
    async run(ctx) {
      const pod = await targetPod(ctx);
      const other = '00000000-0000-4000-8000-000000000001';
      const er = await request(ctx, { metadata: { name: pod.metadata.name, uid: other } }, REQUESTER_A);
      const got = await waitSettled(ctx, er, 'the request settles');
      expectCondition(got, 'Failed', { status: 'True', reason: 'EvictionInvalid', message: `Target pod UID mismatch: expected ${other}, got ${pod.metadata.uid}.` }, 'the request with another uid');
    },
  }),
  defineCase({
    ...head('2.5', 'SHOULD', ['000-2.5-invalid-target-reason'], [ERC]),
    gates: { GenericWorkload: true },
    id: 'api.eviction.invalid-target.pod-group',
    title: 'A request for a pod of a PodGroup: Failed True, reason EvictionInvalid, upstream\'s message',
    async run(ctx) {
      const pod = await targetPod(ctx, { spec: { schedulingGroup: { podGroupName: ctx.uniqueName('group') } }, hint: 'grouped' });
      const er = await request(ctx, pod, REQUESTER_A);
      const got = await waitSettled(ctx, er, 'the request settles');
      expectCondition(got, 'Failed', { status: 'True', reason: 'EvictionInvalid', message: 'Target pod references a SchedulingGroup. Eviction is currently not supported.' }, 'the request for a pod of a PodGroup');
    },
  }),
];
