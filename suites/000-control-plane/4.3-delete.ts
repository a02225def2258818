// Spec 000 §4.2 Delete and §4.3's delete parameters (gracePeriodSeconds,
// ignoreStoreReadErrorWithClusterBreakingPotential, orphanDependents, propagationPolicy), §7's
// "orphanDependents and propagationPolicy both set", and what the ground-truth note adds:
// DeleteOptions in the body or the query, preconditions, the orphan / foregroundDeletion
// finalizers and the garbage collector's Background, Foreground and Orphan propagation.
//
// Every object lives in the run's namespace: owners are ResourceQuotas limiting nothing that exists
// (a DELETE of one answers with the object, spec §4.2), dependents are Roles. Objects a case holds
// with its own finalizer are released by the case (and by the runner's cleanup if the case fails).
//
// The unsafe delete itself (ignoreStoreReadErrorWithClusterBreakingPotential removing a corrupt
// object) is in 4.3-corrupt-objects.ts: it needs an object the operator corrupted (target fact).
// That a finalizer holds a deleted object is upstream's (ObjectMeta is "not shown"): where a MUST
// case uses one to observe its rule, the holding itself is a finding.
import { randomUUID } from 'node:crypto';
import { defineCase, type Case, type CaseContext } from '../case.js';
import type { ApiResponse } from '../../runner/client.js';
import { eventually, expectCode, expectEqual, expectObject, expectStatus, expectTrue, fail, show, SUCCESS, expectRefused } from '../verify.js';
import { collectionPath, itemPath, newObject, postObject, STORAGE_CLASS, type ResourceKind } from './kinds.js';
import { RESOURCE_QUOTA } from './kinds-quota-events.js';
import { ROLE } from './kinds-rbac.js';
import { DELETED, expectCollectionDeleted } from './spec-freedoms.js';
import { upstream } from '../findings.js';

const common = { suite: 'delete', impact: 'namespaced', needs: ['api'] } as const;
const s42 = { doc: '000', section: '4.2' } as const;
const s43 = { doc: '000', section: '4.3' } as const;
const s7 = { doc: '000', section: '7' } as const;

/** A finalizer of the suite's own: the runner's cleanup removes it should a case stop midway. */
const HOLD = 'conformance.orch.io/hold';
const UNSAFE = 'ignoreStoreReadErrorWithClusterBreakingPotential';

interface Created {
  kind: ResourceKind;
  obj: any;
  path: string;
}

/** Creates an object of `k` in the run's namespace with extra metadata (finalizers, ownerReferences). */
async function create(ctx: CaseContext, k: ResourceKind, meta: Record<string, unknown> = {}, hint?: string): Promise<Created> {
  const body = newObject(ctx, k, {}, hint);
  // An owner quota that limits nothing that exists, so it cannot get in the way of other cases.
  if (k === RESOURCE_QUOTA) body.spec = { hard: { 'count/nothing.conformance.orch.io': '1' } };
  Object.assign(body.metadata, meta);
  const what = `creating a ${k.kind}${Object.keys(meta).length ? ` with ${show(meta)}` : ''}`;
  const obj = expectObject(await postObject(ctx, k, body), SUCCESS.create, k.kind, what);
  return { kind: k, obj, path: itemPath(k, ctx.namespace, obj.metadata.name) };
}

const owner = (ctx: CaseContext, meta: Record<string, unknown> = {}) => create(ctx, RESOURCE_QUOTA, meta, 'owner');

/** A Role naming `o` in its ownerReferences. */
function dependent(ctx: CaseContext, o: Created, ref: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): Promise<Created> {
  const ownerRef = { apiVersion: o.obj.apiVersion ?? o.kind.apiVersion, kind: o.kind.kind, name: o.obj.metadata.name, uid: o.obj.metadata.uid, ...ref };
  return create(ctx, ROLE, { ownerReferences: [ownerRef], ...meta }, 'dep');
}

const finalizersOf = (o: any): string[] => (Array.isArray(o?.metadata?.finalizers) ? o.metadata.finalizers : []);

/**
 * The DELETE answered 200 or 202 with the object (§4.2 for ResourceQuota); gives it back. That it
 * is still there, marked for deletion, while a finalizer holds it is upstream's (ObjectMeta is "not
 * shown"): a finding.
 */
function expectMarked(res: ApiResponse, k: ResourceKind, what: string): any {
  const o = expectObject(res, DELETED, k.kind, what);
  upstream(() => expectTrue(typeof o.metadata?.deletionTimestamp === 'string', `${what}: metadata.deletionTimestamp of the returned object (upstream's)`, 'set', o.metadata?.deletionTimestamp));
  return o;
}

async function expectGone(ctx: CaseContext, c: Created, what: string): Promise<void> {
  const res = await ctx.api.get(c.path);
  if (res.status !== 404) fail(what, `HTTP 404 on GET ${c.path}`, `HTTP ${res.status}${res.json?.metadata?.deletionTimestamp ? ' (marked for deletion, still stored)' : ''}`);
}

async function eventuallyGone(ctx: CaseContext, c: Created, what: string): Promise<void> {
  await eventually(async () => {
    const res = await ctx.api.get(c.path);
    return { ok: res.status === 404, actual: `HTTP ${res.status}${res.json?.metadata?.deletionTimestamp ? ' (marked for deletion)' : ''}` };
  }, what, `HTTP 404 on GET ${c.path}`);
}

/** Still stored and not marked for deletion; gives the object back. */
async function expectUntouched(ctx: CaseContext, c: Created, what: string): Promise<any> {
  const o = expectObject(await ctx.api.get(c.path), [200], c.kind.kind, what);
  expectEqual(o.metadata?.deletionTimestamp, undefined, `${what}: metadata.deletionTimestamp`);
  return o;
}

/** The dependent stays and, eventually, no longer names the owner (Orphan). */
async function expectOrphaned(ctx: CaseContext, dep: Created, ownerUid: string): Promise<void> {
  await eventually(async () => {
    const res = await ctx.api.get(dep.path);
    if (res.status === 404) fail('the dependent of an orphaning delete is kept', `HTTP 200 on GET ${dep.path}`, 'HTTP 404: the dependent was deleted');
    const refs: any[] = res.json?.metadata?.ownerReferences ?? [];
    const still = refs.some((r) => r?.uid === ownerUid);
    return { ok: res.status === 200 && !still && !res.json?.metadata?.deletionTimestamp, actual: `HTTP ${res.status}, ownerReferences ${show(refs)}` };
  }, 'the dependent loses its owner reference and stays', `HTTP 200, ownerReferences without uid ${ownerUid}`);
}

/**
 * An owner with one dependent, deleted with `query` (an orphaning delete): the returned owner carries
 * the orphan finalizer, then goes, and the dependent stays without the owner reference.
 */
async function expectOrphaningDelete(ctx: CaseContext, query: Record<string, string>): Promise<void> {
  const o = await owner(ctx);
  const dep = await dependent(ctx, o);
  const q = Object.entries(query).map(([k, v]) => `${k}=${v}`).join('&');
  const marked = expectMarked(await ctx.api.delete(o.path, { query }), RESOURCE_QUOTA, `DELETE ?${q} of the owner`);
  expectTrue(finalizersOf(marked).includes('orphan'), 'metadata.finalizers of the returned owner', 'to include "orphan"', finalizersOf(marked));
  await eventuallyGone(ctx, o, 'the owner, once its dependents are orphaned');
  await expectOrphaned(ctx, dep, o.obj.metadata.uid);
}

/**
 * Objects of `k` for a selector case: two in group "a", one in group "b", told apart by a label of
 * the case's own (and all with the run label).
 */
async function selectorSet(ctx: CaseContext, k: ResourceKind): Promise<{ a: Created[]; b: Created; label: string; va: string }> {
  const label = 'conformance.orch.io/delete-group';
  const tag = randomUUID().slice(0, 8);
  const va = `a-${tag}`;
  const mk = async (value: string, hint: string): Promise<Created> => {
    const body = newObject(ctx, k, {}, hint);
    body.metadata.labels = { ...ctx.labels, [label]: value };
    const obj = expectObject(await postObject(ctx, k, body), SUCCESS.create, k.kind, `creating a ${k.kind} labelled ${label}=${value}`);
    return { kind: k, obj, path: itemPath(k, ctx.namespace, obj.metadata.name) };
  };
  return { a: [await mk(va, 'a1'), await mk(va, 'a2')], b: await mk(`b-${tag}`, 'b'), label, va };
}

/**
 * Deletes a collection only after a list with the same selectors showed that the server honours
 * them and selects exactly `expected`: a server that ignored them would otherwise delete objects
 * that are not the case's.
 */
async function deleteSelected(ctx: CaseContext, k: ResourceKind, query: Record<string, string>, expected: Created[]): Promise<void> {
  const col = collectionPath(k, ctx.namespace);
  const shown = Object.entries(query).map(([q, v]) => `${q}=${v}`).join('&');
  const list = await ctx.api.get(col, { query });
  expectCode(list, 200, `GET ${col}?${shown} (checking the selection before deleting anything)`);
  const names = ((list.json?.items ?? []) as any[]).map((o) => o?.metadata?.name).sort();
  const want = expected.map((c) => c.obj.metadata.name).sort();
  expectEqual(names, want, `the objects a list with ${shown} selects (nothing is deleted unless it is exactly these)`);
  expectCollectionDeleted(await ctx.api.delete(col, { query }), `DELETE ${col}?${shown}`);
}

/**
 * Removes the suite's finalizer so the held object can go. Controllers may write the object between
 * the read and the write (a garbage collector removing its finalizer, a quota controller its
 * status): a 409 is read again, a few times.
 */
async function release(ctx: CaseContext, c: Created): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const read = await ctx.api.get(c.path);
    // Gone already: the target did not hold it for its finalizer (upstream's behaviour, a finding
    // of the case where it matters), so there is nothing to release.
    if (read.status === 404) return;
    const cur = expectObject(read, [200], c.kind.kind, `reading ${c.kind.kind} ${c.obj.metadata.name} to release it`);
    const finalizers = finalizersOf(cur).filter((f) => f !== HOLD);
    const res = await ctx.api.put(c.path, { ...cur, metadata: { ...cur.metadata, finalizers } });
    if (res.status === 409 && attempt < 5) continue;
    expectCode(res, SUCCESS.replace, `removing ${HOLD} from ${c.kind.kind} ${c.obj.metadata.name}`);
    return;
  }
}

export const deleteCases: Case[] = [
  // ------------------------------------------------------------------ DeleteOptions
  defineCase({
    ...common,
    spec: s42,
    level: 'SHOULD',
    id: 'api.delete.options.body',
    title: 'DeleteOptions sent as the request body are honoured',
    requirements: ['000-4.2-delete-options', '000-4.2-delete-propagation-finalizers'],
    async run(ctx) {
      const o = await owner(ctx);
      const res = await ctx.api.delete(o.path, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' } });
      const marked = expectMarked(res, RESOURCE_QUOTA, 'DELETE with body {"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Orphan"}');
      expectTrue(finalizersOf(marked).includes('orphan'), 'metadata.finalizers of the returned object (propagationPolicy Orphan from the body)', 'to include "orphan"', finalizersOf(marked));
    },
  }),
  defineCase({
    ...common,
    spec: s43,
    level: 'MUST',
    id: 'api.delete.query-set',
    title: 'DELETE accepts the delete query set: pretty, gracePeriodSeconds, propagationPolicy, ignoreStoreReadErrorWithClusterBreakingPotential',
    requirements: ['000-4.3-delete-set'],
    async run(ctx) {
      // dryRun and orphanDependents are members too: dryRun has its own cases, and orphanDependents
      // may not be combined with propagationPolicy (§7).
      const r = await create(ctx, ROLE);
      const res = await ctx.api.delete(r.path, { query: { pretty: 'true', gracePeriodSeconds: 0, propagationPolicy: 'Background', [UNSAFE]: 'false' } });
      expectCode(res, [200, 202], 'DELETE ?pretty=true&gracePeriodSeconds=0&propagationPolicy=Background&ignoreStoreReadErrorWithClusterBreakingPotential=false');
      await expectGone(ctx, r, 'the object is deleted');
    },
  }),

  // ------------------------------------------------------------------ preconditions
  defineCase({
    ...common,
    spec: s42,
    level: 'SHOULD',
    id: 'api.delete.preconditions.uid',
    title: 'A delete whose preconditions.uid does not match is 409 Conflict; a matching one deletes',
    requirements: ['000-4.2-delete-preconditions', '000-4.2-delete-options'],
    async run(ctx) {
      const r = await create(ctx, ROLE);
      const wrong = randomUUID();
      const res = await ctx.api.delete(r.path, { body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: wrong } } });
      expectStatus(res, { code: 409, reason: 'Conflict' }, `DELETE with preconditions.uid ${wrong} (the object's is ${r.obj.metadata.uid})`);
      await expectUntouched(ctx, r, 'the object after the refused delete');
      const ok = await ctx.api.delete(r.path, { body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: r.obj.metadata.uid } } });
      expectCode(ok, [200, 202], 'DELETE with the matching preconditions.uid');
      await expectGone(ctx, r, 'the object after the delete with the matching uid');
    },
  }),
  defineCase({
    ...common,
    spec: s42,
    level: 'SHOULD',
    id: 'api.delete.preconditions.resource-version',
    title: 'A delete whose preconditions.resourceVersion is stale is 409 Conflict; the current one deletes',
    requirements: ['000-4.2-delete-preconditions'],
    async run(ctx) {
      const r = await create(ctx, ROLE);
      const stale = r.obj.metadata.resourceVersion;
      const updated = expectObject(
        await ctx.api.put(r.path, { ...r.obj, metadata: { ...r.obj.metadata, annotations: { 'conformance.orch.io/touched': 'yes' } } }),
        SUCCESS.replace, 'Role', 'update to move the resourceVersion on',
      );
      expectTrue(updated.metadata?.resourceVersion !== stale, 'resourceVersion after the update', `other than ${stale}`, updated.metadata?.resourceVersion);
      const res = await ctx.api.delete(r.path, { body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: stale } } });
      expectStatus(res, { code: 409, reason: 'Conflict' }, `DELETE with preconditions.resourceVersion ${stale} (now ${updated.metadata.resourceVersion})`);
      await expectUntouched(ctx, r, 'the object after the refused delete');
      const ok = await ctx.api.delete(r.path, { body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: updated.metadata.resourceVersion } } });
      expectCode(ok, [200, 202], 'DELETE with the current preconditions.resourceVersion');
      await expectGone(ctx, r, 'the object after the delete with the current resourceVersion');
    },
  }),

  // ------------------------------------------------------------------ gracePeriodSeconds
  defineCase({
    ...common,
    spec: s43,
    level: 'MUST',
    id: 'api.delete.grace-period.negative',
    upstreamShape: true,
    title: 'A negative gracePeriodSeconds is refused (422 Invalid) and nothing is deleted',
    requirements: ['000-4.3-grace-period-non-negative'],
    async run(ctx) {
      const r = await create(ctx, ROLE);
      const res = await ctx.api.delete(r.path, { query: { gracePeriodSeconds: -1 } });
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'gracePeriodSeconds' }] }, 'DELETE ?gracePeriodSeconds=-1');
      await expectUntouched(ctx, r, 'the object after the refused delete');
    },
  }),
  defineCase({
    ...common,
    spec: s43,
    level: 'MUST',
    id: 'api.delete.grace-period.zero',
    title: 'gracePeriodSeconds=0 deletes immediately',
    requirements: ['000-4.3-grace-period-zero-immediate'],
    async run(ctx) {
      const r = await create(ctx, ROLE);
      expectCode(await ctx.api.delete(r.path, { query: { gracePeriodSeconds: 0 } }), [200, 202], 'DELETE ?gracePeriodSeconds=0');
      await expectGone(ctx, r, 'the object right after the delete');
    },
  }),
  defineCase({
    ...common,
    spec: s43,
    level: 'MUST',
    id: 'api.delete.grace-period.default',
    title: 'Without gracePeriodSeconds the kind\'s default applies: immediate for a kind without graceful deletion',
    requirements: ['000-4.3-grace-period-nil-default'],
    async run(ctx) {
      // No kind of this spec deletes gracefully (upstream: only Pods do), so its default is 0.
      const r = await create(ctx, ROLE);
      expectCode(await ctx.api.delete(r.path), [200, 202], 'DELETE without gracePeriodSeconds');
      await expectGone(ctx, r, 'the object right after the delete');
    },
  }),

  // ------------------------------------------------------------------ ignoreStoreReadErrorWithClusterBreakingPotential
  defineCase({
    ...common,
    spec: s43,
    level: 'MUST',
    id: 'api.delete.ignore-store-read-error.false',
    title: 'ignoreStoreReadErrorWithClusterBreakingPotential=false (the default) is a normal delete (upstream: finalizers are honoured)',
    requirements: ['000-4.3-ignore-store-read-error-default'],
    async run(ctx) {
      const r = await create(ctx, ROLE, { finalizers: [HOLD] });
      const res = await ctx.api.delete(r.path, { query: { [UNSAFE]: 'false' } });
      expectCode(res, DELETED, `DELETE ?${UNSAFE}=false of an object with a finalizer`);
      const after = await ctx.api.get(r.path);
      const marked = after.status === 200 && typeof after.json?.metadata?.deletionTimestamp === 'string';
      expectTrue(after.status === 404 || marked, 'the object after the delete', 'gone (404), or marked for deletion (metadata.deletionTimestamp)', `HTTP ${after.status}, deletionTimestamp ${show(after.json?.metadata?.deletionTimestamp)}`);
      // A normal delete waiting for finalizers is upstream's (ObjectMeta is "not shown").
      upstream(() => expectTrue(marked, 'the object after the delete: kept, marked, while its finalizer is there (upstream\'s)', 'HTTP 200 with metadata.deletionTimestamp set', `HTTP ${after.status}`));
      await release(ctx, r);
      await eventuallyGone(ctx, r, 'the object once its finalizer is removed');
    },
  }),
  defineCase({
    ...common,
    spec: s43,
    level: 'SHOULD',
    id: 'api.delete.ignore-store-read-error.readable-object',
    title: 'ignoreStoreReadErrorWithClusterBreakingPotential=true on an object that reads fine is 422 Invalid, and nothing is deleted',
    requirements: ['000-4.3-ignore-store-read-error-readable-object'],
    async run(ctx) {
      const r = await create(ctx, ROLE);
      const res = await ctx.api.delete(r.path, { query: { [UNSAFE]: 'true' } });
      const s = await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: UNSAFE, reason: 'FieldValueInvalid' }] }, `DELETE ?${UNSAFE}=true of a readable object`);
      expectTrue(
        typeof s.message === 'string' && s.message.includes('is exclusively used to delete corrupt object(s)'),
        'message of the Status', 'to say the option is exclusively used to delete corrupt object(s)', s.message,
      );
      await expectUntouched(ctx, r, 'the object after the refused delete');
    },
  }),

  // ------------------------------------------------------------------ orphanDependents
  defineCase({
    ...common,
    spec: s43,
    level: 'MUST',
    id: 'api.delete.orphan-dependents.true',
    title: 'orphanDependents=true adds the orphan finalizer',
    requirements: ['000-4.3-orphan-dependents-finalizer', '000-9-orphan-dependents-deprecated'],
    async run(ctx) {
      // The case's own finalizer holds the object, so the returned and stored states are observable.
      const o = await owner(ctx, { finalizers: [HOLD] });
      const marked = expectMarked(await ctx.api.delete(o.path, { query: { orphanDependents: 'true' } }), RESOURCE_QUOTA, `DELETE ?orphanDependents=true of an object with finalizer "${HOLD}"`);
      expectTrue(finalizersOf(marked).includes('orphan'), 'metadata.finalizers of the returned object', 'to include "orphan"', finalizersOf(marked));
      await release(ctx, o);
      await eventuallyGone(ctx, o, 'the object once the case\'s finalizer is removed');
    },
  }),
  defineCase({
    ...common,
    spec: s42,
    level: 'SHOULD',
    id: 'api.delete.orphan-dependents.true-orphans-dependents',
    title: 'orphanDependents=true: the owner goes and its dependents are kept, without the owner reference (garbage collector)',
    requirements: ['000-4.2-delete-gc-orphan'],
    async run(ctx) {
      await expectOrphaningDelete(ctx, { orphanDependents: 'true' });
    },
  }),
  defineCase({
    ...common,
    spec: s43,
    level: 'MUST',
    id: 'api.delete.orphan-dependents.false',
    title: 'orphanDependents=false removes the orphan finalizer an object carries',
    requirements: ['000-4.3-orphan-dependents-finalizer'],
    async run(ctx) {
      const o = await owner(ctx, { finalizers: ['orphan', HOLD] });
      const marked = expectMarked(await ctx.api.delete(o.path, { query: { orphanDependents: 'false' } }), RESOURCE_QUOTA, 'DELETE ?orphanDependents=false of an object with finalizers ["orphan", "conformance.orch.io/hold"]');
      expectTrue(!finalizersOf(marked).includes('orphan'), 'metadata.finalizers of the returned object', 'without "orphan"', finalizersOf(marked));
      // The other finalizer stays and holds the object: upstream's (ObjectMeta is "not shown").
      upstream(() => expectTrue(finalizersOf(marked).includes(HOLD), 'metadata.finalizers of the returned object (upstream\'s)', `still with "${HOLD}"`, finalizersOf(marked)));
      await release(ctx, o);
      await eventuallyGone(ctx, o, 'the object once its last finalizer is removed');
    },
  }),
  defineCase({
    ...common,
    spec: s43,
    level: 'MUST',
    id: 'api.delete.orphan-and-propagation.refused',
    title: 'orphanDependents and propagationPolicy together are refused, and nothing is deleted',
    requirements: ['000-4.3-orphan-dependents-exclusive', '000-7-orphan-and-propagation'],
    async run(ctx) {
      const r = await create(ctx, ROLE);
      const res = await ctx.api.delete(r.path, { query: { orphanDependents: 'true', propagationPolicy: 'Orphan' } });
      if (res.status < 400 || res.status >= 500) fail('DELETE ?orphanDependents=true&propagationPolicy=Orphan', 'an error response (4xx)', `HTTP ${res.status}`);
      await expectUntouched(ctx, r, 'the object after the refused delete');
    },
  }),
  defineCase({
    ...common,
    spec: s7,
    level: 'SHOULD',
    id: 'api.delete.orphan-and-propagation.message',
    title: 'orphanDependents and propagationPolicy together: 422 Invalid DeleteOptions, "cannot be both set"',
    requirements: ['000-7-orphan-and-propagation-message'],
    async run(ctx) {
      const r = await create(ctx, ROLE);
      const res = await ctx.api.delete(r.path, { body: { kind: 'DeleteOptions', apiVersion: 'v1', orphanDependents: false, propagationPolicy: 'Background' } });
      const s = await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'propagationPolicy', reason: 'FieldValueInvalid' }] }, 'DELETE with body {"orphanDependents":false,"propagationPolicy":"Background"}');
      expectTrue(
        typeof s.message === 'string' && s.message.includes('orphanDependents and deletionPropagation cannot be both set'),
        'message of the Status', '...orphanDependents and deletionPropagation cannot be both set', s.message,
      );
      expectEqual(s.details?.kind, 'DeleteOptions', 'details.kind of the Status');
      await expectUntouched(ctx, r, 'the object after the refused delete');
    },
  }),

  // ------------------------------------------------------------------ propagationPolicy and the garbage collector
  defineCase({
    ...common,
    spec: s43,
    level: 'MUST',
    id: 'api.delete.propagation-policy.unsupported',
    upstreamShape: true,
    title: 'A propagationPolicy other than Orphan, Background or Foreground is refused, and nothing is deleted',
    requirements: ['000-4.3-propagation-policy-values'],
    async run(ctx) {
      const r = await create(ctx, ROLE);
      const res = await ctx.api.delete(r.path, { query: { propagationPolicy: 'Sideways' } });
      await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'propagationPolicy', reason: 'FieldValueNotSupported' }] }, 'DELETE ?propagationPolicy=Sideways');
      await expectUntouched(ctx, r, 'the object after the refused delete');
    },
  }),
  defineCase({
    ...common,
    spec: s43,
    level: 'MUST',
    id: 'api.delete.propagation-policy.values',
    title: 'propagationPolicy Orphan, Background and Foreground are each accepted: the object is deleted or being deleted',
    requirements: ['000-4.3-propagation-policy-values'],
    async run(ctx) {
      // Objects without dependents: what each policy does with dependents and when the object goes
      // (a garbage collector's work) is upstream's, the SHOULD gc cases; the spec only lists the values.
      for (const policy of ['Orphan', 'Background', 'Foreground']) {
        const r = await create(ctx, ROLE, {}, policy.toLowerCase());
        expectCode(await ctx.api.delete(r.path, { query: { propagationPolicy: policy } }), [200, 202], `DELETE ?propagationPolicy=${policy}`);
        const after = await ctx.api.get(r.path);
        const deleting = after.status === 404 || (after.status === 200 && typeof after.json?.metadata?.deletionTimestamp === 'string');
        expectTrue(deleting, `the object after DELETE ?propagationPolicy=${policy}`, 'gone (404), or marked for deletion (metadata.deletionTimestamp)', `HTTP ${after.status}, deletionTimestamp ${show(after.json?.metadata?.deletionTimestamp)}`);
      }
    },
  }),
  defineCase({
    ...common,
    spec: s42,
    level: 'SHOULD',
    id: 'api.delete.gc.background',
    title: 'propagationPolicy=Background: the owner goes at once, its dependents after it',
    requirements: ['000-4.2-delete-gc-background'],
    async run(ctx) {
      const o = await owner(ctx);
      const dep = await dependent(ctx, o);
      expectCode(await ctx.api.delete(o.path, { query: { propagationPolicy: 'Background' } }), [200, 202], 'DELETE ?propagationPolicy=Background of the owner');
      await expectGone(ctx, o, 'the owner right after the delete');
      await eventuallyGone(ctx, dep, 'the dependent (garbage collected)');
    },
  }),
  defineCase({
    ...common,
    spec: s42,
    level: 'SHOULD',
    id: 'api.delete.gc.foreground',
    title: 'propagationPolicy=Foreground: the owner waits, marked with foregroundDeletion, until blocking dependents are gone',
    requirements: ['000-4.2-delete-gc-foreground', '000-4.2-delete-propagation-finalizers'],
    async run(ctx) {
      const o = await owner(ctx);
      const dep = await dependent(ctx, o, { blockOwnerDeletion: true }, { finalizers: [HOLD] });
      const marked = expectMarked(await ctx.api.delete(o.path, { query: { propagationPolicy: 'Foreground' } }), RESOURCE_QUOTA, 'DELETE ?propagationPolicy=Foreground of the owner');
      expectTrue(finalizersOf(marked).includes('foregroundDeletion'), 'metadata.finalizers of the returned owner', 'to include "foregroundDeletion"', finalizersOf(marked));
      // The collector deletes the dependent; the case's finalizer keeps it (marked) for now.
      await eventually(async () => {
        const res = await ctx.api.get(dep.path);
        return { ok: res.status === 200 && typeof res.json?.metadata?.deletionTimestamp === 'string', actual: `HTTP ${res.status}, deletionTimestamp ${show(res.json?.metadata?.deletionTimestamp)}` };
      }, 'the dependent is deleted by the garbage collector (held by its finalizer)', 'HTTP 200 with metadata.deletionTimestamp set');
      const waiting = expectObject(await ctx.api.get(o.path), [200], 'ResourceQuota', 'the owner while a dependent with blockOwnerDeletion exists');
      expectTrue(finalizersOf(waiting).includes('foregroundDeletion'), 'metadata.finalizers of the waiting owner', 'to include "foregroundDeletion"', finalizersOf(waiting));
      await release(ctx, dep);
      await eventuallyGone(ctx, dep, 'the dependent once its finalizer is removed');
      await eventuallyGone(ctx, o, 'the owner once its blocking dependent is gone');
    },
  }),
  defineCase({
    ...common,
    spec: s42,
    level: 'SHOULD',
    id: 'api.delete.gc.orphan',
    title: 'propagationPolicy=Orphan: the owner goes and its dependents stay, without the owner reference',
    requirements: ['000-4.2-delete-gc-orphan', '000-4.2-delete-propagation-finalizers'],
    async run(ctx) {
      await expectOrphaningDelete(ctx, { propagationPolicy: 'Orphan' });
    },
  }),
  defineCase({
    ...common,
    spec: s42,
    level: 'SHOULD',
    id: 'api.delete.propagation-policy.default-background',
    title: 'Without a policy or finalizers the resource default applies: Background, the dependents are collected',
    requirements: ['000-4.2-delete-gc-background'],
    async run(ctx) {
      const o = await owner(ctx);
      const dep = await dependent(ctx, o);
      expectCode(await ctx.api.delete(o.path), [200, 202], 'DELETE of the owner without propagationPolicy');
      await expectGone(ctx, o, 'the owner right after the delete');
      await eventuallyGone(ctx, dep, 'the dependent (garbage collected)');
    },
  }),
  defineCase({
    ...common,
    spec: s43,
    level: 'MUST',
    id: 'api.delete.propagation-policy.default-from-finalizer',
    title: 'Without a policy the object\'s finalizers decide: an object with the orphan finalizer orphans its dependents',
    requirements: ['000-4.3-propagation-policy-default'],
    async run(ctx) {
      const o = await owner(ctx, { finalizers: ['orphan'] });
      const dep = await dependent(ctx, o);
      expectCode(await ctx.api.delete(o.path), [200, 202], 'DELETE without propagationPolicy of an owner with the orphan finalizer');
      await eventuallyGone(ctx, o, 'the owner, once its dependents are orphaned');
      await expectOrphaned(ctx, dep, o.obj.metadata.uid);
    },
  }),

  // ------------------------------------------------------------------ delete collection with selectors
  defineCase({
    ...common,
    spec: s43,
    level: 'MUST',
    id: 'api.delete.collection.label-selector',
    upstreamShape: true,
    title: 'Delete collection with labelSelector deletes the selected objects only',
    requirements: ['000-4.3-collection-delete-label-selector', '000-4.3-label-selector'],
    async run(ctx) {
      const set = await selectorSet(ctx, ROLE);
      await deleteSelected(ctx, ROLE, { labelSelector: `conformance.orch.io/run=${ctx.runId},${set.label}=${set.va}` }, set.a);
      for (const c of set.a) await expectGone(ctx, c, `${c.obj.metadata.name} (selected) after the delete collection`);
      await expectUntouched(ctx, set.b, `${set.b.obj.metadata.name} (not selected) after the delete collection`);
    },
  }),
  defineCase({
    ...common,
    impact: 'cluster-scoped',
    spec: s43,
    level: 'MUST',
    id: 'api.delete.collection.label-selector-cluster-scoped',
    upstreamShape: true,
    title: 'Delete collection of a cluster-scoped kind with labelSelector deletes the selected objects only',
    requirements: ['000-4.3-collection-delete-label-selector', '000-4.3-label-selector'],
    async run(ctx) {
      const set = await selectorSet(ctx, STORAGE_CLASS);
      await deleteSelected(ctx, STORAGE_CLASS, { labelSelector: `conformance.orch.io/run=${ctx.runId},${set.label}=${set.va}` }, set.a);
      for (const c of set.a) await expectGone(ctx, c, `${c.obj.metadata.name} (selected) after the delete collection`);
      await expectUntouched(ctx, set.b, `${set.b.obj.metadata.name} (not selected) after the delete collection`);
    },
  }),
  defineCase({
    ...common,
    spec: s43,
    level: 'MUST',
    id: 'api.delete.collection.field-selector',
    upstreamShape: true,
    title: 'Delete collection with fieldSelector deletes the selected objects only',
    requirements: ['000-4.3-collection-delete-field-selector', '000-4.3-field-selector'],
    async run(ctx) {
      const set = await selectorSet(ctx, ROLE);
      const [target, other] = set.a as [Created, Created];
      await deleteSelected(ctx, ROLE, { fieldSelector: `metadata.name=${target.obj.metadata.name}` }, [target]);
      await expectGone(ctx, target, `${target.obj.metadata.name} (selected) after the delete collection`);
      for (const c of [other, set.b]) await expectUntouched(ctx, c, `${c.obj.metadata.name} (not selected) after the delete collection`);
    },
  }),
];
