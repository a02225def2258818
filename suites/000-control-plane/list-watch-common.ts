// Shared by the list (§4.3) and watch (§4.3, §6) semantics cases: a set of Roles in the run's
// namespace that carries its own label (so a selector isolates the case's objects from everything
// else on the target), paged listing, and reading watch streams.
import type { CaseContext } from '../case.js';
import type { ApiResponse, WatchEvent, WatchStream } from '../../runner/client.js';
import { expectCode, expectObject, expectSameMembers, fail, show, skip, SUCCESS } from '../verify.js';
import { ROLE } from './kinds-rbac.js';
import { collectionPath, itemPath, newObject, postObject } from './kinds.js';

/** The label that ties a case's objects together; its value is unique to the case. */
export const SET_LABEL = 'list.conformance.orch.io/set';

export const roles = (ctx: CaseContext): string => collectionPath(ROLE, ctx.namespace);
export const roleItem = (ctx: CaseContext, name: string): string => itemPath(ROLE, ctx.namespace, name);

export interface RoleSet {
  /** The value of SET_LABEL. */
  readonly id: string;
  /** `list.conformance.orch.io/set=<id>`. */
  readonly selector: string;
  /** The created objects, in name (= storage key) order. */
  readonly objects: any[];
  readonly names: string[];
}

/** A new set id (a valid label value). */
export function newSetId(ctx: CaseContext): string {
  return ctx.uniqueName('set');
}

/**
 * Creates `n` Roles labelled with a fresh set id, plus `labels(i)` on the i-th one. Names sort in
 * creation order (fewer than 10 per case).
 */
export async function createRoleSet(ctx: CaseContext, n: number, labels: (i: number) => Record<string, string> = () => ({})): Promise<RoleSet> {
  const id = newSetId(ctx);
  const objects: any[] = [];
  for (let i = 0; i < n; i++) objects.push(await createSetRole(ctx, id, labels(i)));
  objects.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  return { id, selector: `${SET_LABEL}=${id}`, objects, names: objects.map((o) => o.metadata.name) };
}

/** One more Role of a set. */
export async function createSetRole(ctx: CaseContext, setId: string, labels: Record<string, string> = {}, name = ctx.uniqueName('r')): Promise<any> {
  const body = { apiVersion: ROLE.apiVersion, kind: ROLE.kind, metadata: { name, labels: { ...ctx.labels, [SET_LABEL]: setId, ...labels } }, ...ROLE.valid(ctx) };
  return expectObject(await postObject(ctx, ROLE, body), SUCCESS.create, ROLE.kind, `creating Role ${name}`);
}

/** PUT of a Role with its labels replaced by `labels` (run and set labels kept). */
export async function relabel(ctx: CaseContext, obj: any, labels: Record<string, string | undefined>): Promise<any> {
  const next = { ...obj, metadata: { ...obj.metadata, labels: { ...obj.metadata.labels } } };
  for (const [k, v] of Object.entries(labels)) {
    if (v === undefined) delete next.metadata.labels[k];
    else next.metadata.labels[k] = v;
  }
  return expectObject(await ctx.api.put(roleItem(ctx, obj.metadata.name), next), SUCCESS.replace, 'Role', `updating the labels of ${obj.metadata.name}`);
}

/** A Role with the set label, POSTed without checking the answer (for cases that send odd ones). */
export function postSetRole(ctx: CaseContext, setId: string): Promise<ApiResponse> {
  const o = newObject(ctx, ROLE, {}, 'r');
  o.metadata.labels[SET_LABEL] = setId;
  return postObject(ctx, ROLE, o);
}

export const namesOf = (list: any): string[] => (Array.isArray(list?.items) ? list.items.map((i: any) => i?.metadata?.name) : []);

/** A successful RoleList; fails the case otherwise. */
export async function listRoles(ctx: CaseContext, query: Record<string, string | number | undefined>, what: string, path = roles(ctx)): Promise<any> {
  return expectObject(await ctx.api.get(path, { query }), [200], 'RoleList', what);
}

export interface Paged {
  readonly pages: any[];
  /** Every item of every page, in order. */
  readonly items: any[];
}

/** The continue token of a list (or of a 410 Status), or undefined when it has none. */
export const continueOf = (o: any): string | undefined => (typeof o?.metadata?.continue === 'string' && o.metadata.continue ? o.metadata.continue : undefined);

/** Follows `continue` from a first list with `query` until a page has none (at most `maxPages`). */
export async function listAllPages(ctx: CaseContext, query: Record<string, string | number | undefined>, what: string, maxPages = 50): Promise<Paged> {
  const first = await listRoles(ctx, query, `${what} (page 1)`);
  const rest = await continueFrom(ctx, query, continueOf(first), what, maxPages, 2);
  return { pages: [first, ...rest.pages], items: [...(first.items ?? []), ...rest.items] };
}

/**
 * Follows `continue` from `token` with the same `query` until a page has none (at most `maxPages`).
 * Chunks may hold fewer items than `limit`, even none: only a missing continue ends the list.
 */
export async function continueFrom(ctx: CaseContext, query: Record<string, string | number | undefined>, token: string | undefined, what: string, maxPages = 50, firstPageNo = 1, followExpired = false): Promise<Paged> {
  const pages: any[] = [];
  let attempts = 0;
  for (let cont = token; cont; ) {
    if (attempts++ >= maxPages) fail(`${what}: paging ends`, `at most ${maxPages} pages`, `still a continue token after ${pages.length} pages`);
    const pageWhat = `${what} (page ${firstPageNo + pages.length})`;
    const res = await ctx.api.get(roles(ctx), { query: { ...query, continue: cont } });
    // A chain continued from a fresh token may itself outlive the validity on a slow run: its 410
    // carries the next fresh token, which continues from the next key against the latest data, the
    // very behaviour `followExpired` callers check, so the chain goes on with it.
    const fresh = followExpired && res.status === 410 ? continueOf(res.json) : undefined;
    if (fresh) {
      cont = fresh;
      continue;
    }
    pages.push(expectObject(res, [200], 'RoleList', pageWhat));
    cont = continueOf(pages[pages.length - 1]);
  }
  return { pages, items: pages.flatMap((p) => p.items ?? []) };
}

/**
 * For a first chunk that came back without continue although limit asked for fewer items than the
 * set has: servers may ignore limit, so the list must hold the whole set, and the case cannot observe
 * its chunking rule on this target.
 */
export function skipUnchunked(list: any, set: RoleSet, rule: string, limit = 1): never {
  expectSameMembers(namesOf(list), set.names, 'a list without continue (the server ignored limit, which it may) holds every object');
  skip(`the server ignored limit (no continue token for limit=${limit} over ${set.names.length} objects), so ${rule} cannot be observed`);
}

/** Events of a watch until `until` says stop (that event included), or the stream ends or times out. */
export async function readEvents(w: WatchStream, until: (ev: WatchEvent, seen: WatchEvent[]) => boolean, timeoutMs = 10_000): Promise<WatchEvent[]> {
  const deadline = Date.now() + timeoutMs;
  const seen: WatchEvent[] = [];
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return seen;
    const ev = await w.next(left);
    if (!ev) return seen;
    seen.push(ev);
    if (until(ev, seen)) return seen;
  }
}

/** [type, name] pairs, for messages. */
export const brief = (evs: WatchEvent[]): string => show(evs.map((e) => [e.type, e.object?.metadata?.name ?? e.object?.metadata?.resourceVersion]));

/** A watch that must open with 200. */
export async function openWatch(ctx: CaseContext, query: Record<string, string | number | boolean | undefined>, what: string, path = roles(ctx)): Promise<WatchStream> {
  const w = await ctx.api.watch(path, query);
  if (w.status !== 200) {
    const first = await w.next(2000);
    w.close();
    fail(what, 'HTTP 200 and a stream of watch events', `HTTP ${w.status} ${show(first ?? '')}`);
  }
  return w;
}

export type WatchAttempt = { readonly refused: false; readonly stream: WatchStream } | { readonly refused: true; readonly status: number; readonly body: any };

/** Opens a watch that the target may refuse: a non-200 answer is read to its end and parsed. */
export async function tryWatch(ctx: CaseContext, query: Record<string, string | number | boolean | undefined>, path = roles(ctx)): Promise<WatchAttempt> {
  const w = await ctx.api.watch(path, query);
  if (w.status === 200) return { refused: false, stream: w };
  while (await w.next(5000));
  let body: any;
  try {
    body = JSON.parse(w.badLines.join('\n'));
  } catch {
    body = undefined;
  }
  return { refused: true, status: w.status, body };
}

/** 4xx with a Status body: a parameter was refused. */
export function isRefusal(res: ApiResponse): boolean {
  // A client error is the refusal; whether its body is a Status is upstream's shape, not the rule.
  return res.status >= 400 && res.status < 500;
}

export { expectCode };
