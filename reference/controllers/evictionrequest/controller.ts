// The eviction-request controller (upstream pkg/controller/evictionrequest, controllers.md §1): one
// Eviction per target pod made from every EvictionRequest naming it, labelled with each requester and
// owned by every live request; the Eviction's status (requesters, responders, conditions) kept up to
// date; each request's status copied back from the most relevant Eviction. Work is keyed by target
// (`namespace/podName/podUid`): any event on a request, an Eviction or the pod re-syncs that target.
// Writes: Eviction creation (POST), its metadata by a merge patch carrying the resourceVersion read
// (409 retries with a fresh cache), both statuses by server-side apply with force as this controller
// (field manager `evictionrequest-controller`), as upstream does.
import { ApiError, isNotFound } from '../../client/api-client.js';
import type { Informer } from '../../client/informer.js';
import { WorkQueue } from '../../client/workqueue.js';
import type { Controller, ControllerContext, ControllerDefinition } from '../controller.js';
import { isLive, syncEviction, type EvictionStatus, type PodState } from './eviction-sync.js';
import { invalidStatus, invalidTarget, requestStatus, type RequestStatus } from './request-sync.js';
import {
  CONTROLLER_NAME,
  DEFAULT_RESPONDER,
  ER_PATH,
  EVICTIONS_PATH,
  LIFECYCLE_GV,
  PODS_PATH,
  byAge,
  counterOf,
  erItem,
  evictionFinal,
  evictionItem,
  evictionName,
  evictionsIn,
  isTrue,
  podItem,
  requestFinished,
  sameConditions,
  splitTarget,
  targetKey,
  TARGET_EVICTED,
  type EvictionObject,
  type EvictionRequest,
} from './model.js';

const WORKERS = 5;
/** How long a created Eviction may take to show in the cache before the target may get another. */
const EXPECTATION_MS = 30_000;

export const evictionRequestController: ControllerDefinition = {
  name: CONTROLLER_NAME,
  requires: [{ group: 'lifecycle.orch.io', resource: 'evictionrequests' }, { group: 'lifecycle.orch.io', resource: 'evictions' }, { group: '', resource: 'pods' }],
  make: (ctx) => new EvictionRequestController(ctx),
};

export class EvictionRequestController implements Controller {
  readonly name = CONTROLLER_NAME;
  private readonly queue: WorkQueue;
  private stopped = false;
  private readonly requests: Informer<EvictionRequest>;
  private readonly evictions: Informer<EvictionObject>;
  private readonly pods: Informer;
  /** Target -> the Eviction just created and not yet seen in the cache (upstream's expectations). */
  private readonly expected = new Map<string, { name: string; until: number }>();
  /** Eviction uid -> when it first saw its pod terminating (GracefulCompletionDelay). */
  private readonly terminatingSeen = new Map<string, number>();
  /** Test-only (breaks `eviction-per-request`): requests an Eviction was made for. */
  private readonly madeFor = new Set<string>();

  constructor(private readonly ctx: ControllerContext) {
    this.queue = new WorkQueue({ name: 'evictionrequest', metrics: ctx.queueMetrics, maxDelayMs: 10_000 });
    this.requests = ctx.informers.for<EvictionRequest>(ER_PATH);
    this.evictions = ctx.informers.for<EvictionObject>(EVICTIONS_PATH);
    this.pods = ctx.informers.for(PODS_PATH);
    const byTarget = (o: EvictionRequest | EvictionObject) => { const k = targetKey(o); return k ? [k] : []; };
    const byPodName = (o: EvictionRequest | EvictionObject) => { const p = o.spec?.target?.pod?.name; return p ? [`${o.metadata.namespace}/${p}`] : []; };
    this.requests.addIndex('target', byTarget);
    this.requests.addIndex('podName', byPodName);
    this.evictions.addIndex('target', byTarget);
    this.evictions.addIndex('podName', byPodName);
    const enqueue = (o: EvictionRequest | EvictionObject) => { const k = targetKey(o); if (k) this.queue.add(k); };
    const handlers = { onAdd: enqueue, onUpdate: (_: any, o: any) => enqueue(o), onDelete: enqueue };
    this.requests.addEventHandler(handlers);
    this.evictions.addEventHandler({
      ...handlers,
      onDelete: (o) => { if (o.metadata.uid) this.terminatingSeen.delete(o.metadata.uid); enqueue(o); },
    });
    const podChanged = (pod: any) => {
      const at = `${pod.metadata.namespace}/${pod.metadata.name}`;
      const keys = new Set<string>();
      for (const o of [...this.requests.byIndex('podName', at), ...this.evictions.byIndex('podName', at)]) {
        const k = targetKey(o);
        if (k) keys.add(k);
      }
      for (const k of keys) this.queue.add(k);
    };
    this.pods.addEventHandler({ onAdd: podChanged, onUpdate: (_, p) => podChanged(p), onDelete: podChanged });
  }

  run(): void {
    // Requests cut short by the stop (the client closing) are not worth a log line.
    void this.queue.run(WORKERS, (key) => this.sync(key), (key, err) => this.stopped || this.ctx.log(`syncing target ${key} failed`, err));
  }

  stop(): void {
    this.stopped = true;
    this.queue.shutDown();
  }

  /** One target: early checks, Eviction creation, Eviction status and metadata, request statuses. */
  private async sync(key: string): Promise<number | void> {
    const { namespace, name, uid } = splitTarget(key);
    const requests = this.requests.byIndex('target', key);
    let evictions = this.evictions.byIndex('target', key);
    if (requests.length === 0 && evictions.length === 0) {
      this.expected.delete(key);
      return;
    }
    const pod = this.podLookup(namespace, name, uid);
    const breaks = this.ctx.breaks;

    // 1. Early checks, for requests not finished yet.
    const open = requests.filter((er) => !requestFinished(er));
    let invalid: string | undefined;
    if (open.length > 0) {
      invalid = invalidTarget(open[0]!, await pod(), evictions.length > 0, breaks);
      if (invalid) {
        for (const er of open) await this.applyRequestStatus(er, invalidStatus(er, invalid, Date.now(), breaks));
        return;
      }
    }

    // 2. A new Eviction when some live request wants one and none is active or succeeded.
    const pending = this.expected.get(key);
    if (pending) {
      if (evictions.some((ev) => ev.metadata.name === pending.name) || pending.until < Date.now()) this.expected.delete(key);
    }
    if (!this.expected.has(key) || breaks.has('evictionrequest.eviction-per-request')) await this.maybeCreate(key, requests, evictions, pod);

    // 3. Each Eviction's status and metadata.
    const active = evictions.filter((ev) => !evictionFinal(ev) && !ev.metadata.deletionTimestamp).sort(byAge);
    let recheck: number | undefined;
    const updated: EvictionObject[] = [];
    for (const ev of evictions) {
      if (ev.metadata.deletionTimestamp) { updated.push(ev); continue; }
      if (evictionFinal(ev)) this.terminatingSeen.delete(ev.metadata.uid ?? ev.metadata.name);
      const res = await syncEviction({
        eviction: ev,
        requests,
        pod,
        duplicate: active.length > 1 && active[0] !== ev && active.includes(ev),
        terminatingSince: (now) => this.seenTerminating(ev, now),
        nowMs: Date.now(),
        breaks,
      });
      if (res.recheckMs !== undefined) recheck = Math.min(recheck ?? res.recheckMs, res.recheckMs);
      const written = await this.applyEvictionStatus(ev, res.status);
      updated.push(written);
      // The status write moved the resourceVersion: the metadata patch goes on what it answered.
      await this.refreshMetadata(written, requests);
    }
    evictions = updated;

    // 4. Each request's status from the most relevant Eviction.
    for (const er of requests) {
      if (requestFinished(er)) continue;
      await this.applyRequestStatus(er, requestStatus(er, evictions, Date.now(), breaks));
    }
    return recheck;
  }

  /** The target pod, read once per sync: the cache, confirmed against the API when it says missing or replaced. */
  private podLookup(namespace: string, name: string, uid: string): (fresh?: boolean) => Promise<PodState> {
    let cached: Promise<PodState> | undefined;
    let live: Promise<PodState> | undefined;
    const fromApi = () => (live ??= this.client(namespace, name, uid));
    return (fresh) => {
      if (fresh) return fromApi();
      return (cached ??= (async () => {
        // Test-only (breaks): the target is looked for by uid in every namespace.
        if (this.ctx.breaks.has('evictionrequest.target-any-namespace')) {
          const anywhere = this.pods.list().find((p) => p.metadata.uid === uid);
          if (anywhere) return classify(anywhere);
        }
        const pod = this.pods.get(namespace, name);
        if (pod && pod.metadata.uid === uid) return classify(pod);
        // The pods informer may lag behind the requests' one: ask the API before calling it gone.
        return fromApi();
      })());
    };
  }

  private async client(namespace: string, name: string, uid: string): Promise<PodState> {
    try {
      const pod = await this.ctx.client.get(podItem(namespace, name));
      return pod?.metadata?.uid === uid ? classify(pod) : { kind: 'replaced', uid: pod?.metadata?.uid ?? '' };
    } catch (err) {
      if (isNotFound(err)) return { kind: 'gone' };
      throw err;
    }
  }

  private seenTerminating(ev: EvictionObject, now: number): number {
    const uid = ev.metadata.uid ?? ev.metadata.name;
    let at = this.terminatingSeen.get(uid);
    if (at === undefined) this.terminatingSeen.set(uid, (at = now));
    return at;
  }

  private async maybeCreate(key: string, requests: readonly EvictionRequest[], evictions: readonly EvictionObject[], podState: () => Promise<PodState>): Promise<void> {
    const breaks = this.ctx.breaks;
    // Test-only (breaks): no Eviction is ever made.
    if (breaks.has('evictionrequest.no-eviction')) return;
    const live = requests.filter(isLive);
    // Test-only (breaks): a single withdrawn request keeps any Eviction from being made.
    const wanting = breaks.has('evictionrequest.withdraw-cancels-early') && live.some((er) => er.spec?.intent !== 'Eviction')
      ? []
      : live.filter((er) => er.spec?.intent === 'Eviction' && !requestFinished(er));
    if (wanting.length === 0) return;
    const pod = await podState();
    if (pod.kind === 'gone' || pod.kind === 'replaced' || invalidTarget(wanting[0]!, pod, false, breaks)) return;
    // Test-only (breaks): one Eviction per request rather than one per target.
    if (breaks.has('evictionrequest.eviction-per-request')) {
      for (const er of wanting) {
        if (this.madeFor.has(er.metadata.uid!) || evictions.some((ev) => (ev.metadata.ownerReferences ?? []).some((r: any) => r.uid === er.metadata.uid))) continue;
        this.madeFor.add(er.metadata.uid!);
        await this.create(key, [er], requests, `pod-${er.metadata.name}`);
      }
      return;
    }
    const usable = evictions.filter((ev) => !ev.metadata.deletionTimestamp && (!evictionFinal(ev) || isTrue(ev, TARGET_EVICTED)));
    // Test-only (breaks): a canceled Eviction blocks new ones too (conditions are never reset).
    if (breaks.has('evictionrequest.no-reset') && evictions.length > 0) return;
    if (usable.length > 0) return;
    await this.create(key, live, requests);
  }

  private async create(key: string, owners: readonly EvictionRequest[], requests: readonly EvictionRequest[], named?: string): Promise<void> {
    const { namespace, name: podName, uid } = splitTarget(key);
    const breaks = this.ctx.breaks;
    let n = 0;
    for (const ev of this.evictions.byIndex('podName', `${namespace}/${podName}`)) n = Math.max(n, counterOf(ev.metadata.name, podName) ?? 0);
    // Test-only (breaks): Evictions get names of their own rather than pod-<n>-<podName>.
    const name = named ?? (breaks.has('evictionrequest.random-name') ? `ev-${Math.random().toString(36).slice(2, 10)}` : evictionName(n + 1, podName));
    const body = {
      apiVersion: LIFECYCLE_GV,
      kind: 'Eviction',
      metadata: {
        name,
        namespace,
        labels: labelsFor(requests, breaks),
        // Test-only (breaks): the Eviction is owned by nobody, so nothing collects it.
        ...(breaks.has('evictionrequest.no-owner-references') ? {} : { ownerReferences: owners.map(ownerRef) }),
      },
      spec: { target: { pod: { name: podName, uid } } },
    };
    await this.ctx.client.create(`${evictionsIn(namespace)}?fieldManager=${CONTROLLER_NAME}`, body);
    if (!named) this.expected.set(key, { name, until: Date.now() + EXPECTATION_MS });
  }

  /** Labels for every current request and the responders; owner references for every live request. Never removes either. */
  private async refreshMetadata(ev: EvictionObject, requests: readonly EvictionRequest[]): Promise<void> {
    const breaks = this.ctx.breaks;
    const labels: Record<string, string> = ev.metadata.labels ?? {};
    const want = labelsFor(requests, breaks);
    const added = Object.fromEntries(Object.entries(want).filter(([k]) => !(k in labels)));
    const refs: any[] = ev.metadata.ownerReferences ?? [];
    const missing = breaks.has('evictionrequest.no-owner-references')
      ? []
      : requests.filter((er) => isLive(er) && !refs.some((r) => r?.uid === er.metadata.uid)).map(ownerRef);
    if (Object.keys(added).length === 0 && missing.length === 0) return;
    const patch: any = { metadata: { resourceVersion: ev.metadata.resourceVersion } };
    if (Object.keys(added).length) patch.metadata.labels = added;
    if (missing.length) patch.metadata.ownerReferences = [...refs, ...missing];
    try {
      await this.ctx.client.patch(`${evictionItem(ev.metadata.namespace!, ev.metadata.name)}?fieldManager=${CONTROLLER_NAME}`, patch, 'merge');
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }

  private async applyEvictionStatus(ev: EvictionObject, status: EvictionStatus): Promise<EvictionObject> {
    if (sameEvictionStatus(ev, status)) return ev;
    try {
      return await this.ctx.client.apply(evictionItem(ev.metadata.namespace!, ev.metadata.name), {
        apiVersion: LIFECYCLE_GV, kind: 'Eviction', metadata: { name: ev.metadata.name, namespace: ev.metadata.namespace }, status,
      }, { fieldManager: CONTROLLER_NAME, force: true, subresource: 'status' });
    } catch (err) {
      if (isNotFound(err)) return ev;
      throw err;
    }
  }

  private async applyRequestStatus(er: EvictionRequest, status: RequestStatus): Promise<void> {
    if (er.status?.observedGeneration === status.observedGeneration && sameConditions(er.status?.conditions, status.conditions)) return;
    // Someone wrote a later observedGeneration than the request has: it cannot go down, leave it be.
    if ((er.status?.observedGeneration ?? 0) > status.observedGeneration) return;
    try {
      await this.ctx.client.apply(erItem(er.metadata.namespace!, er.metadata.name), {
        apiVersion: LIFECYCLE_GV, kind: 'EvictionRequest', metadata: { name: er.metadata.name, namespace: er.metadata.namespace }, status,
      }, { fieldManager: CONTROLLER_NAME, force: true, subresource: 'status' });
    } catch (err) {
      if (isNotFound(err)) return;
      // Someone else wrote a status this one cannot follow (e.g. a higher observedGeneration, or too
      // many conditions): retrying would fail the same way; the next change of the request re-syncs it.
      if (err instanceof ApiError && err.status === 422) {
        this.ctx.log(`status of EvictionRequest ${er.metadata.namespace}/${er.metadata.name} not written`, err);
        return;
      }
      throw err;
    }
  }
}

function classify(pod: any): PodState {
  if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return { kind: 'terminal', pod };
  if (pod.metadata?.deletionTimestamp) return { kind: 'terminating', pod };
  return { kind: 'present', pod };
}

function ownerRef(er: EvictionRequest): Record<string, unknown> {
  return { apiVersion: LIFECYCLE_GV, kind: 'EvictionRequest', name: er.metadata.name, uid: er.metadata.uid };
}

/** `<requester>: requester` for every current request, `<responder>: responder` (or `requester-responder`). */
function labelsFor(requests: readonly EvictionRequest[], breaks: ReadonlySet<string>): Record<string, string> {
  const labels: Record<string, string> = { [DEFAULT_RESPONDER]: 'responder' };
  // Test-only (breaks): requesters are not labelled on the Eviction.
  if (breaks.has('evictionrequest.no-requester-label')) return labels;
  for (const er of requests) {
    const r = er.spec?.requester;
    // Test-only (breaks): the label's value is not upstream's.
    if (r) labels[r] = r === DEFAULT_RESPONDER ? 'requester-responder' : breaks.has('evictionrequest.requester-label-value') ? 'true' : 'requester';
  }
  return labels;
}

function sameEvictionStatus(ev: EvictionObject, want: EvictionStatus): boolean {
  const s = ev.status ?? {};
  const eq = (a: unknown, b: unknown) => JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
  return s.observedGeneration === want.observedGeneration
    && eq(s.requesters, want.requesters)
    && eq((s.targetResponders ?? []).map((r) => ({ name: r.name, priority: r.priority, state: r.state })), want.targetResponders)
    && eq((s.responders ?? []).map((r) => (r.startTime ? { name: r.name, startTime: r.startTime } : { name: r.name })), want.responders)
    && sameConditions(s.conditions, want.conditions)
    && (s.conditions ?? []).length >= want.conditions.length;
}
