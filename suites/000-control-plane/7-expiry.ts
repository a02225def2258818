// Spec 000 §7 and §8 (and §6 for watches): what expires. A continue token outlives its validity and
// gets 410 with a fresh token; a resourceVersion older than the compacted history gets 410 Expired.
// A case cannot make an arbitrary server expire anything, so these cases need the operator to say
// how long the target keeps tokens and history (target facts `continueTtl`, `compaction`:
// `run --continue-ttl`, `--compaction-interval`); they wait that long, and a little more.
import { setTimeout as sleep } from 'node:timers/promises';
import { defineCase, type Case, type CaseContext } from '../case.js';
import { fact } from '../../runner/facts.js';
import { expectCode, expectEqual, expectSameMembers, expectStatus, expectTrue, fail, show } from '../verify.js';
import { continueFrom, continueOf, createRoleSet, createSetRole, listRoles, namesOf, openWatch, readEvents, relabel, roleItem, roles, brief, skipUnchunked } from './list-watch-common.js';

const common = { impact: 'namespaced', needs: ['api'] } as const;
/** Continue-token expiry: list cases of §7 on a target that says how long tokens last. */
const tokenExpiry = { ...common, suite: 'list', spec: { doc: '000', section: '7' }, facts: ['continueTtl'] } as const;

/** Slack on top of a stated validity: timers and clocks are only roughly on time. */
const SLACK_MS = 1_000;

/** The message upstream gives with an expired continue token (ground truth). */
export const CONTINUE_EXPIRED_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list ' +
  'without the continue parameter, or use the continue token in this response to retrieve the remainder of the ' +
  'results. Continuing with the provided token results in an inconsistent list - objects that were created, ' +
  'modified, or deleted between the time the first chunk was returned and now may show up in the list.';

const ttlMs = (ctx: CaseContext): number => fact(ctx.facts, 'continueTtlSeconds') * 1000;

/**
 * A three-Role set, the query of its chunked list (limit=1) and the first chunk with its continue
 * token. A target that ignored limit (it may) issues no token, so nothing can expire: the case is
 * skipped, saying which rule could not be observed.
 */
async function firstChunk(ctx: CaseContext, rule: string) {
  const set = await createRoleSet(ctx, 3);
  const query = { labelSelector: set.selector, limit: 1 };
  const first = await listRoles(ctx, query, 'first chunk (limit=1)');
  const token = continueOf(first);
  if (!token) skipUnchunked(first, set, rule);
  return { set, query, first, token };
}

/**
 * The reasons of the 410 for an expired continue token: the spec's word (§7 `ResourceExpired`) and
 * upstream's (`Expired`, the reason of StatusReasonExpired); the spec's MUST takes either.
 */
const EXPIRED_REASONS = ['ResourceExpired', 'Expired'] as const;

/** Waits until a token issued now has expired, then continues with it: the 410 Status with one of `reasons`. */
async function continueAfterExpiry(ctx: CaseContext, selector: string, token: string, reasons: readonly string[] = EXPIRED_REASONS): Promise<any> {
  await sleep(ttlMs(ctx) + SLACK_MS, undefined, { signal: ctx.signal });
  const res = await ctx.api.get(roles(ctx), { query: { labelSelector: selector, limit: 1, continue: token } });
  return expectStatus(res, { code: 410, reason: reasons, spec: { code: 410 } }, `continuing with a token ${ttlMs(ctx) / 1000 + SLACK_MS / 1000}s old (the target keeps them ${ttlMs(ctx) / 1000}s)`);
}

export const expiryCases: Case[] = [
  defineCase({
    ...tokenExpiry,
    level: 'MUST',
    id: 'api.list.continue.expired',
    title: 'A continue token past its validity gets 410 (reason ResourceExpired or Expired), with a fresh continue token in the Status',
    requirements: ['000-7-continue-expired'],
    async run(ctx) {
      const { set, token } = await firstChunk(ctx, 'the expiry of a continue token');
      const status = await continueAfterExpiry(ctx, set.selector, token);
      const fresh = status.metadata?.continue;
      expectTrue(typeof fresh === 'string' && fresh.length > 0 && fresh !== token, 'metadata.continue of the 410 Status', 'a fresh continue token (not the expired one)', show(status.metadata));
    },
  }),
  defineCase({
    ...tokenExpiry,
    level: 'MUST',
    id: 'api.list.continue.expired-fresh-token',
    title: 'The fresh token of an expired one continues from the next key against the latest data (inconsistent with the first chunk)',
    requirements: ['000-7-continue-expired'],
    async run(ctx) {
      const { set, query, first, token } = await firstChunk(ctx, 'continuing with the fresh token of an expired one');
      // Changes after the first chunk to objects it did not hold (with limit=1 and a continue, at
      // least two), which the old snapshot would not show. The order of a list is the server's, so
      // the new object may land before or after the point the list continues from: not checked.
      const shown = namesOf(first);
      const [deleted, updated] = set.objects.filter((o) => !shown.includes(o.metadata.name)) as [any, any];
      await createSetRole(ctx, set.id);
      await relabel(ctx, updated, { touched: 'yes' });
      expectCode(await ctx.api.delete(roleItem(ctx, deleted.metadata.name)), [200, 202], `deleting ${deleted.metadata.name} after the first chunk`);
      const status = await continueAfterExpiry(ctx, set.selector, token);
      const fresh = continueOf(status);
      if (!fresh) fail('metadata.continue of the 410 Status', 'a fresh continue token', show(status.metadata));
      const rest = (await continueFrom(ctx, query, fresh, 'chunks from the fresh token', 50, 2, true)).items;
      const restNames = rest.map((o) => o?.metadata?.name);
      expectEqual(restNames.filter((n) => shown.includes(n)), [], `objects of the first chunk (${show(shown)}, unchanged since) in the chunks from the fresh token: it continues from the next key, not from the start`);
      expectSameMembers(restNames.filter((n) => n === deleted.metadata.name || n === updated.metadata.name), [updated.metadata.name], `the set's objects after the first chunk, from the latest data (${deleted.metadata.name} deleted since)`);
      expectEqual(rest.find((o) => o?.metadata?.name === updated.metadata.name)?.metadata?.labels?.touched, 'yes', `${updated.metadata.name} as it is now (updated after the first chunk)`);
    },
  }),
  defineCase({
    ...tokenExpiry,
    level: 'SHOULD',
    id: 'api.list.continue.expired-message',
    title: 'The 410 for an expired continue token explains the choices: restart the list, or continue inconsistently',
    requirements: ['000-7-continue-expired-body'],
    async run(ctx) {
      const { set, token } = await firstChunk(ctx, 'the Status of an expired continue token');
      // Upstream's exact reason and wording (ground truth); the MUST case takes the spec's word too.
      const status = await continueAfterExpiry(ctx, set.selector, token, ['Expired']);
      expectEqual(status.message, CONTINUE_EXPIRED_MESSAGE, 'message of the 410 Status');
    },
  }),
  defineCase({
    ...common,
    suite: 'list',
    spec: { doc: '000', section: '8' },
    level: 'SHOULD',
    facts: ['continueTtl'],
    id: 'api.list.continue.valid-within-ttl',
    title: 'A continue token still continues its snapshot after half of the validity the target states',
    requirements: ['000-8-continue-token-validity'],
    async run(ctx) {
      const { set, query, first, token } = await firstChunk(ctx, 'the validity of a continue token');
      await sleep(ttlMs(ctx) / 2, undefined, { signal: ctx.signal });
      const rest = await continueFrom(ctx, query, token, `continuing with a token ${ttlMs(ctx) / 2000}s old (the target keeps them ${ttlMs(ctx) / 1000}s)`, 50, 2);
      expectSameMembers([...namesOf(first), ...namesOf({ items: rest.items })], set.names, 'objects over all chunks, each once');
    },
  }),
  defineCase({
    ...common,
    suite: 'watch',
    spec: { doc: '000', section: '6' },
    level: 'SHOULD',
    facts: ['compaction'],
    id: 'api.watch.expired-resource-version',
    title: 'A watch from a compacted resourceVersion answers 200, then one ERROR event: a Status 410 Expired',
    requirements: ['000-6-watch-expired-resource-version', '000-7-status-gone'],
    async run(ctx) {
      const old = await compactedResourceVersion(ctx);
      const w = await openWatch(ctx, { watch: 'true', resourceVersion: old.rv, labelSelector: old.selector }, `watch from resourceVersion ${old.rv}`);
      try {
        const events = await readEvents(w, (ev) => ev.type === 'ERROR', 10_000);
        const err = events.find((e) => e.type === 'ERROR');
        if (!err) fail(`watch from compacted resourceVersion ${old.rv}`, 'an ERROR event', `events ${brief(events)} and no ERROR`);
        expectEqual(events.filter((e) => e.type !== 'ERROR' && e.type !== 'BOOKMARK').map((e) => e.type), [], `events before the ERROR (history from ${old.rv} is gone)`);
        const s = err.object;
        expectTrue(s?.kind === 'Status' && s.code === 410 && s.reason === 'Expired', 'object of the ERROR event', 'a Status with code 410, reason Expired', show(s));
        expectTrue(typeof s.message === 'string' && s.message.startsWith('too old resource version'), 'message of the ERROR Status', '"too old resource version: ..."', s.message);
      } finally {
        w.close();
      }
    },
  }),
  defineCase({
    ...common,
    suite: 'list',
    spec: { doc: '000', section: '7' },
    level: 'SHOULD',
    facts: ['compaction'],
    id: 'api.list.expired-resource-version',
    title: 'A list at an exact resourceVersion older than the compacted history gets 410 Expired',
    requirements: ['000-7-status-gone'],
    async run(ctx) {
      const old = await compactedResourceVersion(ctx);
      const res = await ctx.api.get(roles(ctx), { query: { labelSelector: old.selector, resourceVersion: old.rv, resourceVersionMatch: 'Exact' } });
      expectStatus(res, { code: 410, reason: 'Expired' }, `list at resourceVersion ${old.rv} (Exact), compacted since`);
    },
  }),
];

/**
 * A resourceVersion the target has compacted away: one of a Role written, then written again (so
 * history moves past it), then outwaited. Upstream compacts at every interval to the revision it
 * saw at the previous one, so history is gone after two intervals.
 */
async function compactedResourceVersion(ctx: CaseContext): Promise<{ rv: string; selector: string }> {
  const s = fact(ctx.facts, 'compactionIntervalSeconds');
  const set = await createRoleSet(ctx, 1);
  const rv = set.objects[0].metadata.resourceVersion as string;
  await relabel(ctx, set.objects[0], { touched: 'yes' });
  await sleep(2 * s * 1000 + SLACK_MS, undefined, { signal: ctx.signal });
  return { rv, selector: set.selector };
}
