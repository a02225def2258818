// The shared verifier (h2spec style): every check names what it looked at and, on failure, reports
// what the spec expects next to what the target did. Cases stay free of reporting code.
import { isDeepStrictEqual } from 'node:util';
import type { ApiResponse } from '../runner/client.js';

export class CaseFailure extends Error {
  constructor(message: string, readonly expected: string, readonly actual: string) {
    super(message);
    this.name = 'CaseFailure';
  }
}

/**
 * Thrown when a case finds that this target does not let it observe its rule (the server ignored
 * `limit`, so no continue token can expire; an optional endpoint is not served). The runner reports
 * the case as skipped with this reason: a rule nobody could check is never passed.
 */
export class CaseSkip extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'CaseSkip';
  }
}

/** Skips the running case with the reason (see CaseSkip). */
export function skip(reason: string): never {
  throw new CaseSkip(reason);
}

export function show(v: unknown): string {
  if (v === undefined) return 'undefined (absent)';
  if (typeof v === 'string') return JSON.stringify(v);
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 500 ? `${s.slice(0, 500)}…` : s;
}

export function fail(what: string, expected: string, actual: string): never {
  throw new CaseFailure(what, expected, actual);
}

export function expectEqual(actual: unknown, expected: unknown, what: string): void {
  if (!isDeepStrictEqual(actual, expected)) fail(what, show(expected), show(actual));
}

export function expectTrue(cond: boolean, what: string, expected: string, actual: unknown): void {
  if (!cond) fail(what, expected, typeof actual === 'string' ? actual : show(actual));
}

function summarise(res: ApiResponse): string {
  const body = res.json;
  if (body && body.kind === 'Status') return `${res.status} Status reason=${show(body.reason)} message=${show(body.message)}`;
  return `${res.status} ${res.text.length > 300 ? `${res.text.slice(0, 300)}…` : res.text}`;
}

/** The response code is one of `codes`. */
export function expectCode(res: ApiResponse, codes: number | readonly number[], what: string): void {
  const list = typeof codes === 'number' ? [codes] : codes;
  if (!list.includes(res.status)) fail(what, `HTTP ${list.join(' or ')}`, summarise(res));
}

/** A successful write or read returned an object of this kind; gives the object back. */
export function expectObject(res: ApiResponse, codes: readonly number[], kind: string, what: string): any {
  expectCode(res, codes, what);
  const o = res.json;
  if (!o || typeof o !== 'object' || Array.isArray(o)) fail(`${what}: response body is a JSON object`, `a ${kind} object`, summarise(res));
  expectEqual(o.kind, kind, `${what}: kind of the returned object`);
  return o;
}

/**
 * The success codes spec 000 §4.2 lists per write: a step that only needs the write to succeed
 * accepts every one of them (a server may answer a replace that creates with 201, a create it
 * finishes later with 202).
 */
export const SUCCESS = {
  create: [200, 201, 202],
  replace: [200, 201],
  patch: [200, 201],
} as const satisfies Record<string, readonly number[]>;

/** The same strings, each as often, in any order (lists promise no order). */
export function expectSameMembers(actual: readonly unknown[], expected: readonly unknown[], what: string): void {
  const key = (xs: readonly unknown[]) => xs.map((x) => JSON.stringify(x) ?? String(x)).sort();
  if (!isDeepStrictEqual(key(actual), key(expected))) fail(`${what} (in any order)`, show(expected), show(actual));
}

/**
 * A label or annotation map holds the entries a case set and none of the keys it removed; keys
 * the server added on its own are allowed (servers may add their own).
 */
export function expectEntries(actual: unknown, set: Readonly<Record<string, string>>, removed: readonly string[], what: string): void {
  const map = actual && typeof actual === 'object' && !Array.isArray(actual) ? (actual as Record<string, unknown>) : {};
  const got = Object.fromEntries(Object.keys(set).map((k) => [k, map[k]]));
  if (!isDeepStrictEqual(got, { ...set })) fail(`${what}: the entries set`, show(set), show(actual));
  const left = removed.filter((k) => k in map);
  if (left.length) fail(`${what}: the removed keys are gone`, `no ${removed.map((k) => show(k)).join(', ')}`, show(actual));
}

export interface ExpectedStatus {
  code: number;
  /** The reason, or the reasons any of which is right (where the spec and upstream word it differently). */
  reason: string | readonly string[];
  /** Field errors that must be among details.causes: path and, when given, the cause reason. */
  causes?: ReadonlyArray<{ field: string; reason?: string }>;
}

/** An error response whose body is a Status with this code and reason (and causes). Gives the Status back. */
export function expectStatus(res: ApiResponse, want: ExpectedStatus, what: string): any {
  const s = res.json;
  const reasons: readonly string[] = typeof want.reason === 'string' ? [want.reason] : want.reason;
  const wantText = `HTTP ${want.code} with a Status body, reason ${reasons.join(' or ')}${want.causes ? `, causes ${want.causes.map((c) => `${c.field}${c.reason ? `(${c.reason})` : ''}`).join(', ')}` : ''}`;
  if (res.status !== want.code || !s || s.kind !== 'Status') fail(what, wantText, summarise(res));
  if (s.status !== 'Failure' || s.code !== want.code || !reasons.includes(s.reason)) {
    fail(`${what}: Status fields`, `status "Failure", code ${want.code}, reason ${reasons.map((r) => show(r)).join(' or ')}`, `status ${show(s.status)}, code ${show(s.code)}, reason ${show(s.reason)}`);
  }
  for (const c of want.causes ?? []) {
    const causes: any[] = Array.isArray(s.details?.causes) ? s.details.causes : [];
    const hit = causes.find((k) => k?.field === c.field && (!c.reason || k?.reason === c.reason));
    if (!hit) fail(`${what}: details.causes names the bad field`, `a cause with field ${show(c.field)}${c.reason ? ` and reason ${c.reason}` : ''}`, show(causes));
  }
  return s;
}

/** Reads a dotted path (`metadata.name`) from an object. */
export function at(obj: any, path: string): any {
  return path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), obj);
}

/**
 * Polls `probe` until it returns true or `timeoutMs` passes, for what a controller does eventually.
 * On timeout it fails with the last value `probe` reported.
 */
export async function eventually(probe: () => Promise<{ ok: boolean; actual: unknown }>, what: string, expected: string, timeoutMs = 10_000, intervalMs = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const r = await probe();
    if (r.ok) return;
    last = r.actual;
    if (Date.now() >= deadline) fail(`${what} (within ${timeoutMs / 1000}s)`, expected, typeof last === 'string' ? last : show(last));
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
