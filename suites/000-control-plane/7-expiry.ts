// Spec 000 §7 and §8 (and §6 for watches): what expires. A continue token outlives its validity and
// gets 410 with a fresh token; a resourceVersion older than the compacted history gets 410 Expired.
// A case cannot make an arbitrary server expire anything, so these cases need the operator to say
// how long the target keeps tokens and history (target facts `continueTtl`, `compaction`:
// `run --continue-ttl`, `--compaction-interval`); they wait that long, and a little more.
import { setTimeout as sleep } from 'node:timers/promises';
import { defineCase, type Case, type CaseContext } from '../case.js';
import { fact } from '../../runner/facts.js';
import { expectCode, expectEqual, expectStatus, expectTrue, fail, show } from '../verify.js';
import { createRoleSet, createSetRole, listRoles, namesOf, openWatch, readEvents, relabel, roleItem, roles, brief } from './list-watch-common.js';

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

/** A three-Role set and its first chunk (limit=1), or undefined when the server ignored limit. */
async function firstChunk(ctx: CaseContext) {
  const set = await createRoleSet(ctx, 3);
  const first = await listRoles(ctx, { labelSelector: set.selector, limit: 1 }, 'first chunk (limit=1)');
  const token = typeof first.metadata?.continue === 'string' && first.metadata.continue ? first.metadata.continue as string : undefined;
  if (!token) expectEqual(namesOf(first), set.names, 'a list without continue (limit ignored, which is allowed) holds everything');
  return { set, first, token };
}

/** Waits until a token issued now has expired, then continues with it: the 410 Status. */
async function continueAfterExpiry(ctx: CaseContext, selector: string, token: string): Promise<any> {
  await sleep(ttlMs(ctx) + SLACK_MS, undefined, { signal: ctx.signal });
  const res = await ctx.api.get(roles(ctx), { query: { labelSelector: selector, limit: 1, continue: token } });
  return expectStatus(res, { code: 410, reason: 'Expired' }, `continuing with a token ${ttlMs(ctx) / 1000 + SLACK_MS / 1000}s old (the target keeps them ${ttlMs(ctx) / 1000}s)`);
}

export const expiryCases: Case[] = [
  defineCase({
    ...tokenExpiry,
    level: 'MUST',
    id: 'api.list.continue.expired',
    title: 'A continue token past its validity gets 410 Expired, with a fresh continue token in the Status',
    requirements: ['000-7-continue-expired', '000-7-status-gone'],
    async run(ctx) {
      const { set, token } = await firstChunk(ctx);
      if (!token) return;
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
      const { set, first, token } = await firstChunk(ctx);
      if (!token) return;
      const [n0, n1, n2] = set.names as [string, string, string];
      expectEqual(namesOf(first), [n0], 'first chunk');
      // Changes after the first chunk, which the old snapshot would not show.
      const late = await createSetRole(ctx, set.id, {}, n2.length < 63 ? `${n2}z` : undefined);
      await relabel(ctx, set.objects[2], { touched: 'yes' });
      expectCode(await ctx.api.delete(roleItem(ctx, n1)), [200, 202], `deleting ${n1} after the first chunk`);
      const status = await continueAfterExpiry(ctx, set.selector, token);
      const rest: any[] = [];
      let next: string | undefined = typeof status.metadata?.continue === 'string' && status.metadata.continue ? status.metadata.continue : undefined;
      if (!next) fail('metadata.continue of the 410 Status', 'a fresh continue token', show(status.metadata));
      for (let i = 0; next && i < 10; i++) {
        const page = await listRoles(ctx, { labelSelector: set.selector, limit: 1, continue: next }, `chunk ${i + 2} (from the fresh token)`);
        rest.push(...(page.items ?? []));
        next = page.metadata?.continue || undefined;
      }
      expectEqual(rest.map((o) => o?.metadata?.name), [n2, late.metadata.name], `chunks after ${n0} from the latest data (${n1} deleted, ${late.metadata.name} created since)`);
      expectEqual(rest[0]?.metadata?.labels?.touched, 'yes', `${n2} as it is now (updated after the first chunk)`);
    },
  }),
  defineCase({
    ...tokenExpiry,
    level: 'SHOULD',
    id: 'api.list.continue.expired-message',
    title: 'The 410 for an expired continue token explains the choices: restart the list, or continue inconsistently',
    requirements: ['000-7-continue-expired-body'],
    async run(ctx) {
      const { set, token } = await firstChunk(ctx);
      if (!token) return;
      const status = await continueAfterExpiry(ctx, set.selector, token);
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
      const { set, token } = await firstChunk(ctx);
      if (!token) return;
      await sleep(ttlMs(ctx) / 2, undefined, { signal: ctx.signal });
      const page = await listRoles(ctx, { labelSelector: set.selector, limit: 1, continue: token }, `continuing with a token ${ttlMs(ctx) / 2000}s old (the target keeps them ${ttlMs(ctx) / 1000}s)`);
      expectEqual(namesOf(page), [set.names[1]], 'second chunk');
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
