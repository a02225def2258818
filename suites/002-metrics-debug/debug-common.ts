// What the health, SLI and z-page cases share: the loop that checks a rule on every component,
// the Accept forms of the structured pages, fetching them, and reading the text pages' headers.
import type { Case, CaseContext } from '../case.js';
import { describeError, type ApiResponse } from '../../runner/client.js';
import { CaseFailure, CaseSkip, expectCode, expectEqual, expectTrue, fail, show, skip } from '../verify.js';
import { parseExposition, type Exposition } from './exposition.js';
import { upstream } from '../findings.js';

/** Header fields every debug case shares; `needs` 'metrics' reaches the component's own URL. */
export const debugCase = { impact: 'read-only', needs: ['metrics'] } as const;

/**
 * Components whose metrics and debug endpoints the rules for every component are not checked on:
 * the node agent's are the agent cases' (agent-stats.ts, 001 agent-endpoints.ts), which know what
 * an agent serves (no /readyz or /livez upstream, /stats/summary, /metrics/resource...).
 */
const CHECKED_APART: ReadonlySet<string> = new Set(['agent']);

/** The components a rule for every component is checked on: apiserver first, then each `--metrics`. */
export function everyComponentName(ctx: CaseContext): string[] {
  return ctx.componentNames().filter((n) => !CHECKED_APART.has(n));
}

/**
 * Runs `check` once per component (everyComponentName), one after the other, each with a context
 * whose `component()` is that component. Every component is checked even after one fails, so a
 * report names all that break the rule: `[controller-manager] GET /readyz?verbose: ...`. Outcome:
 * failed if any component failed (the others' errors mentioned); else errored if one could not be
 * checked; else skipped if none could be observed; else passed.
 */
export async function onEveryComponent(ctx: CaseContext, check: (ctx: CaseContext, component: string) => Promise<void>): Promise<void> {
  const failures: Array<{ name: string; err: CaseFailure }> = [];
  const skips: Array<{ name: string; err: CaseSkip }> = [];
  const errors: Array<{ name: string; err: unknown }> = [];
  const names = everyComponentName(ctx);
  for (const name of names) {
    const one: CaseContext = { ...ctx, component: (n?: string) => ctx.component(n ?? name), componentNames: () => [name] };
    try {
      await check(one, name);
    } catch (err) {
      // The case's deadline or the run's interrupt: nothing more to check.
      if (ctx.signal.aborted) throw err;
      if (err instanceof CaseFailure) failures.push({ name, err });
      else if (err instanceof CaseSkip) skips.push({ name, err });
      else errors.push({ name, err });
    }
  }
  const errorText = (e: { name: string; err: unknown }) => `[${e.name}] ${describeError(e.err)}`;
  if (failures.length) {
    const tagged = (pick: (f: CaseFailure) => string) => failures.map((f) => (failures.length === 1 ? pick(f.err) : `[${f.name}] ${pick(f.err)}`)).join('\n');
    const message = failures.map((f) => `[${f.name}] ${f.err.message}`).join('; ');
    const also = errors.length ? ` (and could not check ${errors.map(errorText).join('; ')})` : '';
    throw new CaseFailure(`${message}${also}`, tagged((f) => f.expected), tagged((f) => f.actual));
  }
  if (errors.length) throw new Error(errors.map(errorText).join('; '));
  if (skips.length === names.length) throw new CaseSkip(skips.map((s) => `[${s.name}] ${s.err.message}`).join('; '));
}

/**
 * Cases of a rule for every component: each runs its checks on every component (onEveryComponent)
 * and says so in its header (`everyComponent`). A case that needs the component's name (a part of
 * its rule for one component only) calls onEveryComponent itself and is left as it is.
 */
export function everyComponent(cases: readonly Case[]): Case[] {
  return cases.map((c) => (c.everyComponent ? c : { ...c, everyComponent: true, run: (ctx: CaseContext) => onEveryComponent(ctx, (one) => c.run(one)) }));
}

export const STATUSZ_ACCEPT = 'application/json;v=v1beta1;g=config.orch.io;as=Statusz';
export const FLAGZ_ACCEPT = 'application/json;v=v1alpha1;g=config.orch.io;as=Flagz';
export const ZPAGE_WARNING = 'Warning: This endpoint is not meant to be machine parseable, has no formatting compatibility guarantees and is for debugging purposes only.';
/** Upstream separates a text page's labels from their values by one of these, chosen at random. */
export const DELIMITERS = [': ', ':', '=', ' '] as const;

/** GET with exactly this Accept header (`undefined`: no Accept header at all). */
export function getWithAccept(ctx: CaseContext, path: string, accept: string | undefined): Promise<ApiResponse> {
  return ctx.component().get(path, { headers: { accept } });
}

export function mediaType(res: ApiResponse): string {
  return (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

export function expectMediaType(res: ApiResponse, want: string, what: string): void {
  expectTrue(mediaType(res) === want, `${what}: Content-Type`, want, res.headers['content-type'] ?? '(none)');
}

/** A JSON object from a 200 answer. */
export function expectJsonObject(res: ApiResponse, what: string): Record<string, any> {
  expectCode(res, 200, what);
  expectMediaType(res, 'application/json', what);
  const o = res.json;
  if (!o || typeof o !== 'object' || Array.isArray(o)) fail(`${what}: the body is a JSON object`, 'a JSON object', res.text.slice(0, 300));
  return o;
}

export async function statuszObject(ctx: CaseContext): Promise<{ res: ApiResponse; obj: Record<string, any> }> {
  const res = await getWithAccept(ctx, '/statusz', STATUSZ_ACCEPT);
  return { res, obj: expectJsonObject(res, `GET /statusz with Accept: ${STATUSZ_ACCEPT}`) };
}

export async function flagzObject(ctx: CaseContext): Promise<Record<string, any>> {
  return expectJsonObject(await getWithAccept(ctx, '/flagz', FLAGZ_ACCEPT), `GET /flagz with Accept: ${FLAGZ_ACCEPT}`);
}

/** The plain text form of a z-page, asked for without an Accept header. */
export async function zpageText(ctx: CaseContext, path: '/statusz' | '/flagz'): Promise<string> {
  const res = await getWithAccept(ctx, path, undefined);
  expectCode(res, 200, `GET ${path} without Accept`);
  expectMediaType(res, 'text/plain', `GET ${path} without Accept`);
  return res.text;
}

/**
 * The upstream text header `\n<component> <title>\n<warning>\n`; gives the component name and the
 * lines after the header.
 */
export function expectTextHeader(text: string, title: 'statusz' | 'flags', what: string): { component: string; rest: string[] } {
  const lines = text.split('\n');
  const m = new RegExp(`^(\\S+) ${title}$`).exec(lines[1] ?? '');
  if (lines[0] !== '' || !m || lines[2] !== ZPAGE_WARNING) {
    fail(`${what}: the header`, show(`\n<component> ${title}\n${ZPAGE_WARNING}\n`), show(lines.slice(0, 3).join('\n')));
  }
  return { component: m[1]!, rest: lines.slice(3) };
}

/**
 * A line that warns the page is not for machines: the spec asks for "a warning line that it is not
 * machine parseable", in no set words (upstream's are ZPAGE_WARNING).
 */
const WARNING_LINE = /warn|pars(e|ing|able|eable)|machine[- ]read/i;

/** The lines after a text page's warning line (failing when there is none). */
export function linesAfterWarning(text: string, what: string): string[] {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => WARNING_LINE.test(l));
  expectTrue(at >= 0, `the warning line of ${what}`, 'a line warning that the page is not meant to be machine parseable', lines.slice(0, 5).join('\n'));
  return lines.slice(at + 1);
}

/** Upstream's words for a text page's warning line (ZPAGE_WARNING): a SHOULD finding where they differ. */
export function upstreamWarningWords(text: string, what: string): void {
  upstream(() => expectTrue(text.split('\n').includes(ZPAGE_WARNING), `the warning line of ${what} (upstream's words)`, ZPAGE_WARNING, text.split('\n').find((l) => WARNING_LINE.test(l)) ?? '(none)'));
}

/**
 * A structured page's metadata, when present, names the component its text page names: upstream's
 * text pages name it in a line `<component> <title>` before the warning (the spec sets no words for
 * the text page, so without such a line the name cannot be checked).
 */
export async function expectMetadataNamesComponent(ctx: CaseContext, obj: Record<string, any>, path: '/statusz' | '/flagz'): Promise<void> {
  if (obj['metadata'] === undefined) skip(`the structured ${path} object has no metadata (optional): the component name in it cannot be checked`);
  const title = path === '/statusz' ? 'statusz' : 'flags';
  const text = await zpageText(ctx, path);
  const before = text.split('\n').slice(0, Math.max(0, text.split('\n').length - linesAfterWarning(text, `${path} text`).length));
  const named = before.map((l) => new RegExp(`^(\\S+) ${title}$`).exec(l)?.[1]).find((n) => n !== undefined);
  if (named === undefined) skip(`the ${path} text page does not name the component in a line "<component> ${title}" (upstream's header; the spec sets no words): the name cannot be compared`);
  expectEqual(obj['metadata']?.name, named, `metadata.name of the ${path} object (the component named by the text page)`);
}

/** GET /healthz and /readyz (so that SLIs have results), then /metrics/slis, read. */
export async function slis(ctx: CaseContext, evaluate = true): Promise<{ res: ApiResponse; exp: Exposition }> {
  if (evaluate) for (const p of ['/healthz', '/readyz']) await ctx.component().get(p, { headers: { accept: undefined } });
  const res = await ctx.component().get('/metrics/slis', { headers: { accept: 'text/plain' } });
  expectCode(res, 200, 'GET /metrics/slis');
  const exp = parseExposition(res.text);
  expectTrue(exp.errors.length === 0, 'GET /metrics/slis: text exposition format', 'no unreadable lines', exp.errors.slice(0, 5).join('; '));
  return { res, exp };
}

/** The checks a verbose health listing names: `[+]name ok`, `[+]name excluded: ok`, `[-]name failed: ...`. */
export function listedChecks(body: string): Array<{ name: string; ok: boolean; excluded: boolean }> {
  const out: Array<{ name: string; ok: boolean; excluded: boolean }> = [];
  for (const line of body.split('\n')) {
    const m = /^\[([+-])\](.+?) (ok|excluded: ok|failed: .*)$/.exec(line);
    if (m) out.push({ name: m[2]!, ok: m[1] === '+', excluded: m[3] === 'excluded: ok' });
  }
  return out;
}
