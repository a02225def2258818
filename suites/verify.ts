// The shared verifier (h2spec style): every check names what it looked at and, on failure, reports
// what the spec expects next to what the target did. Cases stay free of reporting code.
import { isDeepStrictEqual } from 'node:util';
import type { ApiClient, ApiResponse } from '../runner/client.js';

export { CaseFailure, CaseSkip, caseExchanges, skip, show, fail } from './failure.js';
import { show, fail } from './failure.js';
import { upstream } from './findings.js';

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
  /** Upstream's code for this error (a SHOULD unless `spec` names it). */
  code: number;
  /** Upstream's reason, or the reasons any of which is right (a SHOULD). */
  reason: string | readonly string[];
  /** Upstream's field errors that should be among details.causes: path and, when given, the cause reason (a SHOULD). */
  causes?: ReadonlyArray<{ field: string; reason?: string }>;
  /**
   * What the spec itself states about the answer, checked as the case's own verdict: the code or
   * codes it names (spec 000 §7: "410 ResourceExpired"; "fail with BadRequest": 400), and the
   * fields the error must name ("the error lists all of them"). Without `code` here the verdict is
   * only that the request was refused with an error of the same class as upstream's code (4xx for a
   * refused write, 5xx for a server fault): the spec states which writes are refused, not how. A 404
   * is HTTP's own "nothing there" and is always the verdict where upstream answers 404.
   */
  spec?: { code?: number | readonly number[]; names?: readonly string[] };
}

/** The class of an HTTP code (4 for 4xx), and its words for messages. */
const codeClass = (code: number) => Math.floor(code / 100);

/**
 * An error response: the verdict rests on what the spec states (`want.spec`: the request was
 * refused with an error of upstream's class, with the code the spec names, naming the fields it
 * says the error names); upstream's shape (its exact code, a Status body with `status: Failure`,
 * the reason, the causes) is checked too, each difference a SHOULD finding (suites/findings.ts).
 * Gives back the Status, or whatever JSON object the target answered (`{}` for none), so that a
 * case can read on.
 */
export function expectStatus(res: ApiResponse, want: ExpectedStatus, what: string): any {
  const specCodes = want.spec?.code === undefined ? undefined : typeof want.spec.code === 'number' ? [want.spec.code] : want.spec.code;
  if (specCodes) {
    if (!specCodes.includes(res.status)) fail(what, `HTTP ${specCodes.join(' or ')} (the code the spec names)`, summarise(res));
  } else if (want.code === 404) {
    // A read that finds nothing is HTTP's 404, whatever the body: "nothing is there" is the check.
    if (res.status !== 404) fail(what, 'HTTP 404 (nothing there)', summarise(res));
  } else if (codeClass(res.status) !== codeClass(want.code)) {
    fail(what, `an error response (HTTP ${codeClass(want.code)}xx; upstream answers ${want.code})`, summarise(res));
  }
  const text = want.spec?.names?.length ? errorText(res) : '';
  for (const name of want.spec?.names ?? []) {
    if (!text.includes(name)) fail(`${what}: the error names ${show(name)}`, `the response body names ${show(name)}`, summarise(res));
  }
  const s = res.json;
  const reasons: readonly string[] = typeof want.reason === 'string' ? [want.reason] : want.reason;
  upstream(() => expectUpstreamStatus(res, want.code, reasons, want.causes ?? [], what));
  return s && typeof s === 'object' && !Array.isArray(s) ? s : {};
}

/**
 * What an error answer says, in whatever shape: every string of a JSON body (a Status's message
 * and causes, or a server's own fields) joined, or the body as sent when it is not JSON. A rule
 * that the error names a field is checked here, not in upstream's message.
 */
export function errorText(res: ApiResponse): string {
  if (res.json === undefined) return res.text;
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(res.json);
  return out.join('\n');
}

/** Upstream's shape of an error: its code, a Status body, its reason and causes (each a SHOULD). */
function expectUpstreamStatus(res: ApiResponse, code: number, reasons: readonly string[], causes: ReadonlyArray<{ field: string; reason?: string }>, what: string): void {
  const s = res.json;
  if (res.status !== code) fail(`${what}: HTTP code (upstream's)`, `HTTP ${code}`, summarise(res));
  if (!s || s.kind !== 'Status') fail(`${what}: a Status body (upstream's)`, `a Status with reason ${reasons.join(' or ')}`, summarise(res));
  if (s.status !== 'Failure' || s.code !== res.status || !reasons.includes(s.reason)) {
    fail(`${what}: Status fields (upstream's)`, `status "Failure", code ${res.status}, reason ${reasons.map((r) => show(r)).join(' or ')}`, `status ${show(s.status)}, code ${show(s.code)}, reason ${show(s.reason)}`);
  }
  for (const c of causes) {
    const got: any[] = Array.isArray(s.details?.causes) ? s.details.causes : [];
    const hit = got.find((k) => k?.field === c.field && (!c.reason || k?.reason === c.reason));
    if (!hit) fail(`${what}: details.causes names the bad field (upstream's)`, `a cause with field ${show(c.field)}${c.reason ? ` and reason ${c.reason}` : ''}`, show(got));
  }
}

/**
 * A refused write: the verdict of expectStatus (an error of upstream's class, or the code the spec
 * names), and, for a create, that nothing was stored: the object the refused POST named is not there
 * (a 404 when read back). Upstream's code, Status reason and causes are SHOULD findings. Replaces
 * and patches are not read back here: what they would have changed is the case's to check.
 */
export async function expectRefused(api: ApiClient, res: ApiResponse, want: ExpectedStatus, what: string): Promise<any> {
  const s = expectStatus(res, want, what);
  await expectNothingCreated(api, res, what);
  return s;
}

/** Subresources a POST goes to that are not collections of readable objects. */
const NOT_A_COLLECTION = /\/(binding|bindings|eviction)$/;

/** After a refused POST: the object it named was not stored. */
async function expectNothingCreated(api: ApiClient, res: ApiResponse, what: string): Promise<void> {
  const req = res.request;
  if (!req || req.method !== 'POST' || NOT_A_COLLECTION.test(req.path)) return;
  let name: unknown;
  try {
    name = JSON.parse(req.body ?? '')?.metadata?.name;
  } catch {
    return;
  }
  if (typeof name !== 'string' || name === '' || name.includes('/')) return;
  const item = `${req.path}/${encodeURIComponent(name)}`;
  const got = await api.get(item);
  // Only a 200 says the object exists; another answer (403, a 5xx) tells nothing about storage.
  if (got.status === 200) fail(`${what}: nothing was stored`, `GET ${item} finds nothing (HTTP 404): the create was refused`, `HTTP 200: the refused create stored ${show(got.json?.metadata?.name ?? name)}`);
}

/**
 * A validation error on a write: refused (expectRefused), and upstream's shape, a 422 Invalid with
 * a cause at one of `fields` or below it (`spec.target` covers `spec.target.pod.name`), as SHOULD
 * findings. Several names are allowed where servers name a field differently. `reason` narrows the
 * cause reason when given.
 */
export async function expectInvalidWrite(api: ApiClient, res: ApiResponse, fields: string | readonly string[], what: string, reason?: string): Promise<any> {
  const list = typeof fields === 'string' ? [fields] : fields;
  const s = await expectRefused(api, res, { code: 422, reason: 'Invalid' }, what);
  const causes: any[] = Array.isArray(s.details?.causes) ? s.details.causes : [];
  const under = (f: unknown) => typeof f === 'string' && list.some((field) => f === field || f.startsWith(`${field}.`) || f.startsWith(`${field}[`));
  upstream(() => {
    if (!causes.some((c) => under(c?.field) && (!reason || c?.reason === reason))) {
      fail(`${what}: details.causes names the bad field (upstream's)`, `a cause with field ${list.map((f) => show(f)).join(' or ')} (or below it)${reason ? ` and reason ${reason}` : ''}`, show(causes));
    }
  });
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
