// Running a run's failures again: `run --rerun-failed <results.json>` (its failed set, with its
// target options unless given again) and the command line each failure's console block ends with
// (`--id <id>` in place of the run's selection flags).
import { readFileSync } from 'node:fs';
import type { Case } from '../suites/case.js';
import type { CaseResult, RunReport } from './results.js';
import { UsageError } from './errors.js';
import { TOOL } from './run.js';
import { checkCaseIds } from './select.js';
import { shellQuote } from './agent-exec.js';

/** Flags whose value is a secret: a report keeps that they were given, never the value. */
const SECRET_FLAGS = new Set(['--token']);
export const REDACTED = '<redacted>';

/** The run's arguments with secret values replaced (`--token x` and `--token=x` alike). */
export function redactArgs(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const eq = a.indexOf('=');
    if (a.startsWith('--') && eq > 0 && SECRET_FLAGS.has(a.slice(0, eq))) out.push(`${a.slice(0, eq)}=${REDACTED}`);
    else if (SECRET_FLAGS.has(a) && i + 1 < args.length) out.push(a, REDACTED), i++;
    else out.push(a);
  }
  return out;
}

/**
 * Flags a rerun of one case replaces or must not repeat: the selection (it becomes `--id`), the
 * reports (a rerun must not overwrite the run's own files) and the run id (a fresh one, so that its
 * objects never meet the first run's). `array` flags take every value up to the next flag.
 */
const DROPPED: Record<string, 'one' | 'array'> = {
  '--focus': 'one', '--skip': 'one', '--suite': 'array', '--level': 'one', '--id': 'array',
  '--rerun-failed': 'one', '--reporter': 'array', '--run-id': 'one', '--shard': 'one', '--shard-timings': 'one',
};

function dropSelection(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const name = a.includes('=') ? a.slice(0, a.indexOf('=')) : a;
    const kind = DROPPED[name];
    if (!kind) { out.push(a); continue; }
    if (a.includes('=')) continue;
    if (kind === 'one') i++;
    else while (i + 1 < args.length && !args[i + 1]!.startsWith('-')) i++;
  }
  return out;
}

/**
 * The target options of a report, as `run` flags: what its command line gave, or, for a report
 * without one, what its target and selection record.
 */
export function targetArgs(report: RunReport): string[] {
  const out: string[] = [];
  const t = report.target;
  // The embedded run records the agent, runtime and command it started itself: not options of a run.
  if (!t.embedded) {
    if (t.api) out.push('--api', t.api);
    for (const [name, url] of Object.entries(t.metrics ?? {})) out.push('--metrics', `${name}=${url}`);
    if (t.agent) out.push('--agent', t.agent.url, '--node', t.agent.node);
    if (t.criControl) out.push('--cri-control', t.criControl);
    if (t.agentExec) out.push('--agent-exec', t.agentExec);
  }
  const gates = Object.entries(report.selection?.gates ?? {});
  if (gates.length) out.push('--gates', gates.map(([k, v]) => `${k}=${v}`).join(','));
  // The authentication fact is the token: a credential, given again by the operator.
  for (const f of report.selection?.facts ?? []) if (f.value !== undefined) out.push(f.flag, f.value);
  if (report.strict) out.push('--strict');
  return out;
}

/** The command that reruns one case of a run: the run's own command line, `--id <id>` as its selection. */
export function rerunCommand(report: RunReport, id: string): string {
  const base = report.command?.length ? dropSelection(report.command) : ['run', ...targetArgs(report)];
  return [TOOL, ...base, '--id', id].map(shellQuote).join(' ');
}

/** The cases of a run to run again: those that failed the run, and its warnings when the rerun is strict. */
export function rerunnable(c: CaseResult, strict: boolean): boolean {
  if (c.knownFailure) return false;
  return c.status === 'failed' || c.status === 'errored' || (strict && c.status === 'warned');
}

/** A results file, read for a rerun: refused when it is not one. */
export function readResults(file: string, flag = '--rerun-failed'): RunReport {
  let doc: any;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`${flag} ${file}: cannot read it as JSON: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (doc?.tool !== TOOL || !Array.isArray(doc.cases) || typeof doc.target !== 'object') {
    throw new UsageError(`${flag} ${file}: not a results file of ${TOOL} (write one with run --reporter json=FILE)`);
  }
  return doc as RunReport;
}

/** What `run --rerun-failed` adds to a command line: the case ids, and target options not given again. */
export interface RerunPlan {
  ids: string[];
  /** yargs-style argv entries (camelCase and kebab-case) for the target options taken from the file. */
  defaults: Record<string, unknown>;
  /** The options taken from the file as command-line arguments, for the report's command. */
  args: string[];
}

/**
 * The failed set of a results file and its target options. `argv` is the rerun's own: an option it
 * gives wins over the file's (per option); `--kubeconfig` or `--context` gives the API server.
 */
export function planRerun(file: string, argv: Record<string, any>, all: readonly Case[]): RerunPlan {
  const report = readResults(file);
  const defaults: Record<string, unknown> = {};
  const args: string[] = [];
  const given = (key: string) => argv[key] !== undefined;
  const take = (flag: string, value: string | string[] | true) => {
    const kebab = flag.slice(2);
    const camel = kebab.replace(/-([a-z])/g, (_, ch: string) => ch.toUpperCase());
    if (given(camel)) return;
    defaults[kebab] = defaults[camel] = value;
    if (value === true) args.push(flag);
    else for (const v of [value].flat()) args.push(flag, v);
  };
  const t = report.target;
  // The embedded run records the agent, runtime and command it started itself: not options to take.
  if (!t.embedded) {
    if (t.api && !given('kubeconfig') && !given('context')) take('--api', t.api);
    if (t.metrics && Object.keys(t.metrics).length) take('--metrics', Object.entries(t.metrics).map(([n, u]) => `${n}=${u}`));
    if (t.agent) { take('--agent', t.agent.url); take('--node', t.agent.node); }
    if (t.criControl) take('--cri-control', t.criControl);
    if (t.agentExec) take('--agent-exec', t.agentExec);
  }
  const gates = Object.entries(report.selection?.gates ?? {});
  if (gates.length) take('--gates', gates.map(([k, v]) => `${k}=${v}`).join(','));
  const corrupt = (report.selection?.facts ?? []).filter((f) => f.fact === 'corruptObject' && f.value).map((f) => f.value!);
  if (corrupt.length) take('--corrupt-object', corrupt);
  for (const f of report.selection?.facts ?? []) if (f.fact !== 'corruptObject' && f.fact !== 'authentication' && f.value !== undefined) take(f.flag, f.value);
  if (report.strict) take('--strict', true);
  const strict = !!(argv.strict ?? report.strict);
  const ids = report.cases.filter((c) => rerunnable(c, strict)).map((c) => c.id);
  if (ids.length === 0) {
    throw new UsageError(`--rerun-failed ${file}: no case failed or errored in that run${strict ? ' (nor warned)' : ''}: nothing to rerun`);
  }
  // A results file of another kit version may name cases this one no longer has.
  checkCaseIds(`--rerun-failed ${file}`, ids, all);
  return { ids, defaults, args };
}
