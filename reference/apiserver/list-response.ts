// A list request end to end: continue token (decode, expiry, the fresh token of a 410), selectors,
// the page read from the store, and the list body with its ListMeta (resourceVersion, continue,
// remainingItemCount, shardInfo).
import { badRequest, isStatusError } from './errors.js';
import { continueExpired, decodeContinue, type ContinueTokens } from './continue-token.js';
import type { ListQuery } from './options.js';
import type { ListPredicate } from './selectors.js';
import type { ResourceStore } from './store.js';

export interface ListMeta {
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
  shardInfo?: { readonly selector: string };
}

export interface ListBody {
  kind: string;
  apiVersion: string;
  metadata: ListMeta;
  items: unknown[];
}

export async function listResponse(
  store: ResourceStore,
  namespace: string | undefined,
  q: ListQuery,
  predicate: ListPredicate,
  tokens: ContinueTokens,
): Promise<ListBody> {
  let continueFrom: { revision: number; startKey: string } | undefined;
  if (q.continue) {
    const token = decodeContinue(q.continue);
    if (q.resourceVersion && q.resourceVersion !== '0') throw badRequest('specifying resource version is not allowed when using continue');
    if (!tokens.valid(token)) throw continueExpired(token.start);
    // A negative rv (the token of a 410) continues at the latest revision.
    continueFrom = { revision: token.rv > 0 ? token.rv : 0, startKey: token.start };
  }
  let page;
  try {
    page = await store.list(namespace, {
      resourceVersion: continueFrom ? undefined : q.resourceVersion,
      resourceVersionMatch: q.resourceVersionMatch,
      predicate,
      limit: q.limit,
      continueFrom,
    });
  } catch (err) {
    // The snapshot of the token was compacted away: same answer as an expired token.
    if (continueFrom && isStatusError(err) && err.code === 410) throw continueExpired(continueFrom.startKey);
    throw err;
  }
  const metadata: ListMeta = { resourceVersion: page.resourceVersion };
  if (page.nextKey !== undefined) metadata.continue = tokens.issue(Number(page.resourceVersion), page.nextKey);
  if (page.remainingItemCount !== undefined) metadata.remainingItemCount = page.remainingItemCount;
  if (predicate.shardInfo) metadata.shardInfo = predicate.shardInfo;
  const s = store.strategy;
  return { kind: s.listKind, apiVersion: s.apiVersion, metadata, items: page.items };
}
