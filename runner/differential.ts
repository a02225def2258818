// Differential replay: every failed or warned case of a run against a user's target is run again
// against the embedded reference (one reference per gate and fact profile, as an embedded run
// starts them), and the first exchange where the target's answer differs from the reference's in
// a way that matters is recorded as `CaseResult.differential`: an implementer sees what the
// reference answered without reading the spec.
import type { Case } from '../suites/case.js';
import type { LogSink } from '../reference/log.js';
import type { CaseResult, Differential, DifferentialExchange, Exchange, RunReport } from './results.js';
import { newRunId, runGroups } from './run.js';

/** The cases of a run the reference is asked about: those whose verdict went against the target. */
export function differentiable(r: CaseResult): boolean {
  return r.status === 'failed' || r.status === 'warned';
}

export interface ReplayOptions {
  /** The kit's cases, to find each result's case by id. */
  cases: readonly Case[];
  version: string;
  timeoutMs?: number;
  parallel?: number;
  log?: LogSink;
  /** Ctrl-C during the replay: its cases stop and the references are stopped (the report keeps what was compared). */
  interrupt?: AbortSignal;
}

/**
 * Runs the failed and warned cases of `report` against the embedded reference and sets each one's
 * `differential`. Returns how many were replayed. The report's own verdicts are untouched.
 */
export async function replayOnReference(report: RunReport, opts: ReplayOptions): Promise<number> {
  const results = report.cases.filter(differentiable);
  if (results.length === 0) return 0;
  const byId = new Map(opts.cases.map((c) => [c.id, c]));
  const cases: Case[] = [];
  for (const r of results) {
    const c = byId.get(r.id);
    if (c) cases.push(c);
    else r.differential = unavailable(`the case is not in this kit (${opts.version}): the results file was written by another version`);
  }
  if (cases.length === 0) return 0;
  const runId = newRunId();
  // Loaded here: reporters import this module for its rendering, and must not load the reference.
  const { startEmbeddedGroups } = await import('./embedded.js');
  let started;
  try {
    // The gates the operator stated for the target fix the references' gates, as in an embedded run.
    started = await startEmbeddedGroups(cases, { runId, gates: report.selection?.gates, node: true, log: opts.log });
  } catch (err) {
    for (const r of results) r.differential ??= unavailable(`the reference could not be started: ${(err as Error).message}`);
    return 0;
  }
  let reference: RunReport;
  try {
    reference = await runGroups(started.groups, { runId, embedded: true, version: opts.version, keepExchanges: true, strict: report.strict, timeoutMs: opts.timeoutMs, parallel: opts.parallel, interrupt: opts.interrupt });
  } finally {
    await started.close();
  }
  const refById = new Map(reference.cases.map((c) => [c.id, c]));
  for (const r of results) {
    const ref = refById.get(r.id);
    // A case the interrupt stopped on the reference says nothing about it.
    if (ref && (ref.status === 'interrupted' || ref.status === 'unstarted')) r.differential = unavailable('the replay was interrupted');
    else if (ref) r.differential = compareCase(r, ref, [report.runId, runId]);
  }
  return cases.length;
}

function unavailable(why: string): Differential {
  return { referenceStatus: 'skipped', summary: `no comparison: ${why}`, unavailable: why };
}

/** The reference's run of a case beside the target's: the first exchange that differs, and a line saying how. */
export function compareCase(target: CaseResult, reference: CaseResult, runIds: readonly string[]): Differential {
  const base: Pick<Differential, 'referenceStatus' | 'referenceMessage'> = { referenceStatus: reference.status, ...(reference.message ? { referenceMessage: reference.message } : {}) };
  if (reference.status === 'skipped') return { ...base, summary: `the reference skipped this case (${reference.message}): nothing to compare`, unavailable: reference.message };
  // A case the reference does not pass either says more about the case's environment than the target.
  const also = reference.status === 'passed' ? '' : `the reference ${reference.status} this case too (${reference.message}); `;
  const exchange = firstDifference(target.exchanges, reference.exchanges, runIds, target.failedExchange);
  if (!exchange) {
    return { ...base, summary: `${also}no recorded exchange differs in status or body: the difference is in what the case waited for or when` };
  }
  return { ...base, summary: also + describe(exchange), exchange };
}

/** Run ids made alike, so that the two runs' object names and paths compare equal. */
function normalizer(runIds: readonly string[]): (s: string) => string {
  const ids = runIds.filter(Boolean).map((id) => id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const re = ids.length ? new RegExp(ids.join('|'), 'g') : undefined;
  return (s) => (re ? s.replace(re, '<run>') : s);
}

function requestKey(e: Exchange, norm: (s: string) => string): string {
  let path = e.url;
  try {
    const u = new URL(e.url);
    path = u.pathname + u.search;
  } catch { /* a recorded URL that is not absolute (gRPC control calls) is kept as is */ }
  return `${e.method} ${norm(path)}`;
}

/**
 * The first exchange that matters. Each exchange of the target is paired with the reference's next
 * one making the same request (a case that polls may poll a different number of times). A different
 * status (or a connection error on one side) comes first: that is what most rules are about; then a
 * structural body difference; then a request the reference's run never made (the target's answers
 * led the case elsewhere). Exchanges after the one the failure is about are clean-up: not looked at.
 */
export function firstDifference(target: readonly Exchange[], reference: readonly Exchange[], runIds: readonly string[], failedExchange?: number): DifferentialExchange | undefined {
  const norm = normalizer(runIds);
  const last = failedExchange ?? target.length - 1;
  const pairs: Array<{ t: number; r?: number }> = [];
  let next = 0;
  for (let t = 0; t <= last && t < target.length; t++) {
    const key = requestKey(target[t]!, norm);
    let r = next;
    while (r < reference.length && requestKey(reference[r]!, norm) !== key) r++;
    if (r < reference.length) { pairs.push({ t, r }); next = r + 1; } else pairs.push({ t });
  }
  const build = (t: number, r: number, fields: DifferentialExchange['fields']): DifferentialExchange => ({
    targetIndex: t, referenceIndex: r, request: requestKey(target[t]!, norm),
    target: answerOf(target[t]!, norm), reference: answerOf(reference[r]!, norm), fields,
  });
  for (const { t, r } of pairs) {
    if (r === undefined) continue;
    const te = target[t]!, re = reference[r]!;
    if (te.status !== re.status || !!te.error !== !!re.error) return build(t, r, bodyDiff(re.responseBody, te.responseBody, norm));
  }
  for (const { t, r } of pairs) {
    if (r === undefined) continue;
    const fields = bodyDiff(reference[r]!.responseBody, target[t]!.responseBody, norm);
    if (fields.length) return build(t, r, fields);
  }
  const stray = pairs.find((p) => p.r === undefined);
  if (stray) {
    const r = Math.min(next, reference.length - 1);
    if (r < 0) return undefined;
    return { ...build(stray.t, r, []), referenceRequest: requestKey(reference[r]!, norm) };
  }
  return undefined;
}

const BODY_SHOWN = 2_000;

function answerOf(e: Exchange, norm: (s: string) => string): DifferentialExchange['target'] {
  return {
    ...(e.status !== undefined ? { status: e.status } : {}),
    ...(e.error ? { error: e.error } : {}),
    ...(e.responseBody ? { body: norm(e.responseBody).slice(0, BODY_SHOWN) } : {}),
  };
}

/**
 * Fields each implementation fills in as it likes, which no case compares across servers: versions,
 * identities, times (any `...Time` or `...Timestamp`), field managers and list continuation tokens.
 */
const FREE_KEYS = new Set(['resourceVersion', 'uid', 'creationTimestamp', 'deletionTimestamp', 'managedFields', 'selfLink', 'continue', 'generateName']);
const isFree = (key: string) => FREE_KEYS.has(key) || /(Time|Timestamp)$/.test(key);

const MAX_FIELDS = 20;

/** Bodies as JSON (a watch stream: its lines as an array), or undefined when either is not JSON. */
function parse(body: string | undefined): unknown {
  if (body === undefined || body === '') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    const lines = body.split('\n').filter((l) => l.trim());
    try {
      return lines.map((l) => JSON.parse(l));
    } catch {
      return undefined;
    }
  }
}

/** The structural difference of two response bodies, reference first, fields the case treats as free left out. */
export function bodyDiff(reference: string | undefined, target: string | undefined, norm: (s: string) => string = (s) => s): DifferentialExchange['fields'] {
  const r = reference === undefined ? undefined : norm(reference);
  const t = target === undefined ? undefined : norm(target);
  if (r === t) return [];
  const rj = parse(r), tj = parse(t);
  if (rj === undefined || tj === undefined) {
    if ((r ?? '') === (t ?? '')) return [];
    return [{ path: '(body)', change: 'changed', reference: short(r ?? ''), target: short(t ?? '') }];
  }
  const out: DifferentialExchange['fields'] = [];
  walk(rj, tj, '', out);
  return out.slice(0, MAX_FIELDS);
}

function walk(r: unknown, t: unknown, path: string, out: DifferentialExchange['fields']): void {
  if (out.length >= MAX_FIELDS) return;
  if (Array.isArray(r) && Array.isArray(t)) {
    const [rs, ts] = [ordered(r), ordered(t)];
    for (let i = 0; i < Math.max(rs.length, ts.length); i++) {
      const p = `${path}[${i}]`;
      if (i >= ts.length) out.push({ path: p, change: 'missing', reference: short(JSON.stringify(rs[i])) });
      else if (i >= rs.length) out.push({ path: p, change: 'added', target: short(JSON.stringify(ts[i])) });
      else walk(rs[i], ts[i], p, out);
    }
    return;
  }
  if (isObject(r) && isObject(t)) {
    // A name the server generated (from generateName) is free too.
    const generated = typeof r.generateName === 'string' || typeof t.generateName === 'string';
    for (const key of [...new Set([...Object.keys(r), ...Object.keys(t)])].sort()) {
      if (isFree(key) || (generated && key === 'name')) continue;
      const p = path ? `${path}.${key}` : key;
      if (!(key in t)) out.push({ path: p, change: 'missing', reference: short(JSON.stringify(r[key])) });
      else if (!(key in r)) out.push({ path: p, change: 'added', target: short(JSON.stringify(t[key])) });
      else walk(r[key], t[key], p, out);
    }
    return;
  }
  if (JSON.stringify(r) !== JSON.stringify(t)) out.push({ path: path || '(body)', change: 'changed', reference: short(JSON.stringify(r)), target: short(JSON.stringify(t)) });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Lists of named objects compare by name: their order is free unless a rule says otherwise. */
function ordered(a: unknown[]): unknown[] {
  const name = (v: unknown) => (isObject(v) && isObject(v.metadata) && typeof v.metadata.name === 'string' ? v.metadata.name : undefined);
  if (a.length < 2 || !a.every((v) => name(v) !== undefined)) return a;
  return [...a].sort((x, y) => name(x)!.localeCompare(name(y)!));
}

function short(s: string, max = 120): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** "422 Invalid with cause `provisioner`": a status, and for a Status body its reason and causes. */
export function describeAnswer(a: DifferentialExchange['target']): string {
  if (a.status === undefined) return `no answer (${a.error ?? 'no response'})`;
  let text = String(a.status);
  const body = parse(a.body);
  if (isObject(body) && body.kind === 'Status') {
    if (typeof body.reason === 'string' && body.reason) text += ` ${body.reason}`;
    const causes = isObject(body.details) && Array.isArray(body.details.causes) ? body.details.causes : [];
    const fields = causes.map((c) => (isObject(c) && typeof c.field === 'string' ? c.field : undefined)).filter((f): f is string => !!f);
    if (fields.length) text += ` with cause${fields.length > 1 ? 's' : ''} ${fields.map((f) => `\`${f}\``).join(', ')}`;
  }
  return text;
}

/** One line for an implementer: what the reference answered, what the target did. */
export function describe(x: DifferentialExchange): string {
  if (x.referenceRequest) return `at ${x.request} the target's answers led the case to a request the reference's run never made (the reference's run went on with ${x.referenceRequest})`;
  const ref = describeAnswer(x.reference), tgt = describeAnswer(x.target);
  if (ref !== tgt || x.reference.status !== x.target.status) return `at ${x.request} the reference answered ${ref}; the target answered ${tgt}`;
  const f = x.fields[0];
  const more = x.fields.length > 1 ? ` (and ${x.fields.length - 1} more field${x.fields.length > 2 ? 's' : ''})` : '';
  if (!f) return `at ${x.request} both answered ${ref}`;
  const what = f.change === 'missing' ? `the target's answer lacks \`${f.path}\` (reference: ${f.reference})`
    : f.change === 'added' ? `the target's answer adds \`${f.path}\` (${f.target})`
    : `\`${f.path}\` is ${f.target} in the target's answer, ${f.reference} in the reference's`;
  return `at ${x.request} both answered ${ref}, but ${what}${more}`;
}

/** The differential as plain text lines, for the reporters (console, Markdown and HTML each wrap them). */
export function differentialLines(d: Differential): string[] {
  const lines = [`Differential (reference: ${d.referenceStatus}): ${d.summary}`];
  for (const f of d.exchange?.fields ?? []) {
    lines.push(`  ${f.change} ${f.path}${f.reference !== undefined ? ` reference=${f.reference}` : ''}${f.target !== undefined ? ` target=${f.target}` : ''}`);
  }
  return lines;
}
