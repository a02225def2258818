// The runner: runs selected cases against a target in parallel, each with a deadline, then deletes
// every object the run created and checks that nothing labelled with the run is left behind.
import { availableParallelism } from 'node:os';
import { createHash, randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Dispatcher } from 'undici';
import { NAMESPACE_IMPACTS, type Case, type CaseContext } from '../suites/case.js';
import { criControlClient, criControlConnection, type AgentTarget, type CriControlClient } from './agent-target.js';
import { agentLauncher } from './agent-exec.js';
import { CaseFailure, CaseSkip, caseExchanges } from '../suites/verify.js';
import { collectFindings, findingLabel, type Finding } from '../suites/findings.js';
import type { Reporter } from '../reporters/types.js';
import { ApiClient, createDispatcher, describeError, type TargetConnection } from './client.js';
import { permissionDenied, rejectedCredentials, TargetAccessError } from './target.js';
import type { BackgroundLoad, CaseAttempt, CaseResult, CaseStatus, RunReport, RunSelection, RunSummary, ShardSpec, VerdictPolicy } from './results.js';
import type { BackgroundNodes } from './background-nodes.js';
import { computeCoverage, observesAgent } from '../reporters/coverage.js';
import { policyFailures, nothingRan } from '../reporters/skips.js';
import { AGENT_COMPONENT, gateComponents, gateMismatch, PER_COMPONENT_GATES, readReportedGates, resolveGates, type ComponentGates } from './gates.js';
import { controllerMismatch } from './controllers.js';
import { FactAllocator, factMismatch, type CaseFacts, type TargetFacts } from './facts.js';

export const TOOL = 'orch-conformance';
export const RUN_LABEL = 'conformance.orch.io/run';
/** Finalizers cases put on their own objects; cleanup removes them. */
export const OWN_FINALIZER_PREFIX = 'conformance.orch.io/';

export interface RunOptions {
  cases: readonly Case[];
  conn: TargetConnection;
  /**
   * Components' metrics and debug endpoints by name (`run --metrics name=url`); `apiserver`
   * defaults to `conn`.
   */
  components?: Record<string, TargetConnection>;
  /** The agent under test (`--agent`, `--node`), the mock CRI it uses (`--cri-control`), and the
   *  command that starts agents (`--agent-exec`). */
  node?: NodeTargets;
  embedded: boolean;
  runId?: string;
  parallel?: number;
  /** Cases that observe an agent run at most this many at once, beside the others (default 6). */
  agentParallel?: number;
  timeoutMs?: number;
  /** As TargetGroup.gates. */
  gates: Record<string, boolean>;
  /** As TargetGroup.statedGates. */
  statedGates?: readonly string[];
  /** As TargetGroup.readGates. */
  readGates?: boolean;
  /** What the operator said about the target (runner/facts.ts); none by default. */
  facts?: TargetFacts;
  /** Known failures: case id to reason. */
  expectations?: ReadonlyMap<string, string>;
  reporters?: readonly Reporter[];
  /**
   * `--strict`: a failed SHOULD case is a failure. Without it such a case is `warned`: reported
   * with its expected vs actual, counted apart, and the run still passes (h2spec's strict mode).
   */
  strict?: boolean;
  /** Aborted on Ctrl-C: running cases stop, the rest are skipped, cleanup still runs. */
  interrupt?: AbortSignal;
  /** What the operator selected (runner/selection.ts), recorded in the report as is. */
  selection?: RunSelection;
  /** `--fail-on-skip`, `--min-coverage`: recorded in the report, where the verdict applies them. */
  policy?: VerdictPolicy;
  /**
   * `--retries`: a failed or errored case runs again up to this many times (default 0); one that
   * passes on a retry is `flaky`, with every attempt's evidence. Cases in the expect file are not
   * retried: their failure is already accounted for.
   */
  retries?: number;
  /** The run's command line, secrets redacted (RunReport.command). */
  command?: string[];
  version: string;
  /** `run --shard i/n`: the slice of the selection these cases are, recorded in the report. */
  shard?: ShardSpec;
  /** Keep every case's exchanges, passes too (`run --differential` compares the reference's with the target's). */
  keepExchanges?: boolean;
  /** `run --label`: the run's name in `report matrix` (RunReport.label). */
  label?: string;
  /**
   * The load the cases run under (RunReport.backgroundLoad), on the first group's target: hollow
   * nodes the run started (runner/background-nodes.ts; started before, stopped here once that
   * group's cleanup is done), or only the load found on the target.
   */
  background?: RunBackground;
}

/** What runGroups needs of the background load: its record and, for the run's own nodes, their handle. */
export interface RunBackground {
  load: BackgroundLoad;
  /** True for the run's own hollow Nodes: the leak check leaves them to `stop`, which deletes them. */
  owns?: BackgroundNodes['owns'];
  /** Stops them; resolves to those of their Nodes still on the target (leaks). */
  stop?: BackgroundNodes['stop'];
}

/** Run ids are short and DNS-safe: they go into object names. */
export function newRunId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(8)].map((b) => alphabet[b % alphabet.length]).join('');
}

const CLEANUP_TIMEOUT_MS = 10_000;
/** Agent cases mostly wait on the agent's loops, so more of them run at once than there are cores. */
export const DEFAULT_AGENT_PARALLEL = 6;
/** Cases that wait on controllers or the scheduler: as many at once, beside the others. */
export const DEFAULT_CONTROLLER_PARALLEL = 6;

/** What a run created, so it can be deleted afterwards. Shared by every case of the run. */
class Tracker {
  readonly paths = new Set<string>();
  add(path: string) { this.paths.add(path); }
}

/** The node-agent targets of a group (spec 001); each is optional, and cases needing an absent one are skipped. */
export interface NodeTargets {
  agent?: AgentTarget;
  /** Path of the mock CRI's control socket. */
  criControl?: string;
  /** Shell command that starts an agent (runner/agent-exec.ts has the flag contract). */
  agentExec?: string;
  /** Path of the agent under test's pod info socket (spec 001 §4.2), on the runner's machine. */
  agentPodSocket?: string;
}

export async function runCases(opts: RunOptions): Promise<RunReport> {
  return runGroups([{ conn: opts.conn, components: opts.components, node: opts.node, gates: opts.gates, statedGates: opts.statedGates, readGates: opts.readGates, facts: opts.facts, cases: opts.cases }], opts);
}

/** Cases that run against one target, which has these feature gates. */
export interface TargetGroup {
  conn: TargetConnection;
  /** As RunOptions.components. */
  components?: Record<string, TargetConnection>;
  node?: NodeTargets;
  /** The gates the run takes every component to have (1.37 defaults included) where nothing better is known. */
  gates: Record<string, boolean>;
  /**
   * Gates whose state in `gates` the run states (`--gates`, or how the embedded run started its
   * reference): they hold whatever a component reports. A state differing from the 1.37 default
   * counts as stated too; the others are assumed defaults.
   */
  statedGates?: readonly string[];
  /**
   * Read each component's gates (the agent's too) from its `orch_feature_enabled` series (spec 002
   * §9) before the cases run; what one reports wins over an assumed default, never over a stated gate.
   */
  readGates?: boolean;
  facts?: TargetFacts;
  cases: readonly Case[];
}

/**
 * One run over several targets (the embedded reference started once per feature-gate set), with
 * one run id, one set of reporters and one report, results in the order the groups list the cases.
 */
export async function runGroups(groups: readonly TargetGroup[], opts: Omit<RunOptions, 'conn' | 'gates' | 'statedGates' | 'readGates' | 'facts' | 'cases' | 'components' | 'node'>): Promise<RunReport> {
  const runId = opts.runId ?? newRunId();
  const startedAt = new Date();
  const t0 = performance.now();
  const labels = { [RUN_LABEL]: runId };
  const namespace = `oc-${runId}`;
  const reporters = opts.reporters ?? [];
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const explicit = groups[0]?.components;
  const target: RunReport['target'] = { api: groups[0]?.conn.baseUrl, embedded: opts.embedded };
  if (explicit && Object.keys(explicit).length) target.metrics = Object.fromEntries(Object.entries(explicit).map(([k, c]) => [k, c.baseUrl]));
  const node = groups.find((g) => g.node)?.node;
  if (node?.agent) target.agent = { url: node.agent.conn.baseUrl, node: node.agent.nodeName };
  if (node?.criControl) target.criControl = node.criControl;
  if (node?.agentExec) target.agentExec = node.agentExec;
  const total = groups.reduce((n, g) => n + g.cases.length, 0);

  // Each running case listens for the interrupt, and groups run at once: more than the default 10.
  if (opts.interrupt) setMaxListeners(1024, opts.interrupt);
  const results: CaseResult[] = new Array(total);
  const leaks: string[] = [];
  const cleanupUnverified: string[] = [];
  // Set-up first, for every group: a target that refuses the run its namespace (403) is a
  // set-up problem reported before any case runs, not a verdict on each namespaced case.
  const setups = await Promise.all(groups.map(async (group) => {
    const dispatcher = createDispatcher(group.conn);
    const components = componentTargets(group, dispatcher);
    const tracker = new Tracker();
    const gatesOf = await targetGates(group, components);
    let setupError: string | TargetAccessError | undefined;
    if (group.cases.some((c) => NAMESPACE_IMPACTS.has(c.impact) && !caseGates(c, gatesOf, [...components.keys()]).skip && !missingNodeTarget(c, group.node))) {
      setupError = await createRunNamespace(group.conn, dispatcher, namespace, labels, tracker);
    }
    return { group, dispatcher, components, tracker, setupError, gatesOf };
  }));
  const closeAll = () => Promise.all([
    ...groups.map(closeAgentPools),
    ...setups.flatMap((s) => [...new Set([s.dispatcher, ...[...s.components.values()].map((t) => t.dispatcher)])]).map((d) => d.close().catch(() => undefined)),
  ]);
  const denied = setups.find((s) => s.setupError instanceof TargetAccessError)?.setupError;
  if (denied instanceof TargetAccessError) {
    await Promise.all(setups.map((s) => cleanUp(s.group.conn, s.dispatcher, s.tracker, runId)));
    await closeAll();
    throw denied;
  }
  for (const r of reporters) r.start?.({ runId, target, total, ...(opts.background ? { backgroundLoad: opts.background.load } : {}) });
  // Groups are separate targets (embedded references with other gates or facts): they run at the
  // same time, so a group whose cases outwait a fact does not hold up the others.
  const offsets = groups.map((_, i) => groups.slice(0, i).reduce((n, g) => n + g.cases.length, 0));
  await Promise.all(setups.map(async ({ group, dispatcher, components, tracker, setupError, gatesOf }, gi) => {
    const offset = offsets[gi]!;
    const facts = group.facts ?? {};
    const allocator = new FactAllocator(facts);
    const finish = (i: number, r: CaseResult) => {
      results[offset + i] = applyExpectation(r, opts.expectations);
      for (const rep of reporters) rep.caseEnd?.(results[offset + i]);
    };
    // Cases that observe an agent spend their time waiting for its loops (status every 10 s, lease
    // renewals, restarts): they get workers of their own, so they neither hold up the API cases nor
    // wait behind them, and start at once.
    // Cases that wait for a controller or the scheduler (grace periods, a window in which nothing may
    // happen) likewise get workers of their own.
    const indices = group.cases.map((_, i) => i);
    const waitsOnControllers = (c: Case) => !observesAgent(c) && (c.controllers?.length ?? 0) > 0;
    const agentQueue = indices.filter((i) => observesAgent(group.cases[i]!));
    const controllerQueue = indices.filter((i) => waitsOnControllers(group.cases[i]!));
    const apiQueue = indices.filter((i) => !observesAgent(group.cases[i]!) && !waitsOnControllers(group.cases[i]!));
    const worker = (queue: number[]) => async () => {
      for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
        const c = group.cases[i]!;
        if (opts.interrupt?.aborted) { finish(i, resultOf(c, 'unstarted', 0, 'not started: the run was interrupted first')); continue; }
        const plan = planCase(c, { gatesOf, components: [...components.keys()], node: group.node, facts, allocator }, !!setupError);
        if (plan.skip) { finish(i, resultOf(c, 'skipped', 0, plan.skip)); continue; }
        if (plan.setupError) { finish(i, resultOf(c, 'errored', 0, String(setupError))); continue; }
        for (const rep of reporters) rep.caseStart?.(c);
        const env: CaseEnv = { conn: group.conn, dispatcher, components, only: plan.only, notChecked: plan.notChecked, node: group.node, agentDispatcher: agentDispatcherOf(group), runId, labels, namespace, tracker, timeoutMs, interrupt: opts.interrupt, facts: plan.facts!, strict: !!opts.strict, keepExchanges: !!opts.keepExchanges };
        finish(i, await runWithRetries(c, env, opts.expectations?.has(c.id) ? 0 : opts.retries ?? 0));
      }
    };
    const parallel = Math.max(1, Math.min(opts.parallel ?? availableParallelism(), apiQueue.length || 1));
    const agentParallel = Math.max(1, Math.min(opts.agentParallel ?? DEFAULT_AGENT_PARALLEL, agentQueue.length || 1));
    const controllerParallel = Math.min(DEFAULT_CONTROLLER_PARALLEL, controllerQueue.length);
    await Promise.all([
      ...Array.from({ length: parallel }, worker(apiQueue)),
      ...Array.from({ length: agentQueue.length ? agentParallel : 0 }, worker(agentQueue)),
      ...Array.from({ length: controllerParallel }, worker(controllerQueue)),
    ]);
    // The background load is on the first group's target (the one the report names).
    const background = gi === 0 ? opts.background : undefined;
    const cleanup = await cleanUp(group.conn, dispatcher, tracker, runId, background?.owns);
    leaks.push(...cleanup.leaks);
    cleanupUnverified.push(...cleanup.unverified);
    // The background nodes stop once the cases' objects are gone (their pods ended by the nodes'
    // own agents), while other groups may still run; Nodes of theirs left after it are leaks.
    if (background?.stop) leaks.push(...await background.stop());
  }));
  await closeAll();

  const report: RunReport = {
    tool: TOOL,
    version: opts.version,
    target,
    runId,
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(performance.now() - t0),
    summary: summarise(results),
    cases: results,
    leaks: leaks.sort(),
    cleanupUnverified: cleanupUnverified.sort(),
    interrupted: !!opts.interrupt?.aborted,
    strict: !!opts.strict,
    ...(opts.selection ? { selection: opts.selection } : {}),
    coverage: computeCoverage(results),
    ...(opts.policy && (opts.policy.failOnSkip || opts.policy.minCoverage !== undefined) ? { policy: opts.policy } : {}),
    ...(opts.command ? { command: opts.command } : {}),
    ...(opts.retries ? { retries: opts.retries } : {}),
    ...(opts.shard ? { shard: { ...opts.shard } } : {}),
    ...(opts.label ? { label: opts.label } : {}),
    ...(opts.background ? { backgroundLoad: { ...opts.background.load } } : {}),
  };
  for (const r of reporters) await r.end(report);
  return report;
}

/** What the runner knows about a group's target before its cases run, for planCase. */
export interface CasePlanTarget {
  gatesOf: (component: string) => ComponentGates;
  /** Components whose endpoints the run has (`apiserver` always). */
  components: readonly string[];
  node?: NodeTargets;
  facts: TargetFacts;
  allocator: FactAllocator;
}

/**
 * Whether a case runs on a target and with what, in the order the runner checks: gates, missing
 * components and node targets, then the run's set-up error (for cases in its namespace), stated
 * facts and controllers, and the facts a case takes for its own. `skip` says why it cannot run;
 * `list` asks the same to say which cases a run would skip.
 */
export function planCase(c: Case, t: CasePlanTarget, setupFailed = false): { skip?: string; setupError?: true; only?: string[]; notChecked?: string; facts?: CaseFacts } {
  const gated = caseGates(c, t.gatesOf, t.components);
  if (gated.skip) return { skip: gated.skip };
  const missing = missingComponent(c, new Set(t.components)) ?? missingNodeTarget(c, t.node);
  if (missing) return { skip: missing };
  if (setupFailed && NAMESPACE_IMPACTS.has(c.impact)) return { setupError: true };
  const factWhy = factMismatch(c.facts, t.facts) ?? controllerMismatch(c.controllers, t.facts.controllers);
  if (factWhy) return { skip: factWhy };
  const facts = t.allocator.forCase(c.facts);
  if (typeof facts === 'string') return { skip: facts };
  return { only: gated.only, notChecked: gated.notChecked, facts };
}

/** Why the gates keep a case from running on these components, or undefined (as planCase's first check). */
export function gateSkip(c: Case, gatesOf: (component: string) => ComponentGates, components: readonly string[]): string | undefined {
  return caseGates(c, gatesOf, components).skip;
}

/**
 * The gates a run would take a group's components to have before reading any (`list` does not
 * reach the target): the stated ones and the 1.37 defaults.
 */
export function assumedGates(gates: Record<string, boolean>, statedGates?: readonly string[]): (component: string) => ComponentGates {
  const resolved = resolveGates(gates, statedGates, undefined);
  return () => resolved;
}

interface CaseEnv {
  conn: TargetConnection;
  dispatcher: Dispatcher;
  components: ReadonlyMap<string, ComponentTarget>;
  /** For a case checked on every component: the components whose gates it may run with (all when absent). */
  only?: readonly string[];
  /** Which components it is not checked on for their gates, and why: said in its result. */
  notChecked?: string;
  node?: NodeTargets;
  /** Connection pools of the agent and the CRI control socket, shared by the group's cases. */
  agentDispatcher: () => { agent?: Dispatcher; cri?: Dispatcher };
  runId: string;
  labels: Record<string, string>;
  namespace: string;
  tracker: Tracker;
  timeoutMs: number;
  interrupt?: AbortSignal;
  facts: CaseFacts;
  strict: boolean;
  /** 0 for the first attempt, n for the n-th retry: keeps object names of attempts apart. */
  attempt?: number;
  /** RunOptions.keepExchanges. */
  keepExchanges?: boolean;
}

/** A result that a retry may turn around: a failure or an error (a timeout is one), not a warning. */
const retriable = (r: CaseResult) => r.status === 'failed' || r.status === 'errored';

/**
 * Runs a case, and again up to `retries` times while it fails or errors (and the run was not
 * interrupted). A pass on a retry is `flaky`; either way a case run more than once keeps every
 * attempt, each with its own evidence, and the last attempt is the result.
 */
async function runWithRetries(c: Case, env: CaseEnv, retries: number): Promise<CaseResult> {
  let r = await runOne(c, env);
  if (!retriable(r) || retries <= 0) return r;
  const attempts: CaseAttempt[] = [attemptOf(r)];
  for (let n = 1; n <= retries && retriable(r) && !env.interrupt?.aborted; n++) {
    r = await runOne(c, { ...env, attempt: n });
    attempts.push(attemptOf(r));
  }
  const durationMs = attempts.reduce((sum, a) => sum + a.durationMs, 0);
  if (r.status === 'passed') {
    const first = attempts[0]!;
    return {
      ...r, status: 'flaky', durationMs, attempts,
      message: `passed on attempt ${attempts.length} of ${retries + 1}; attempt 1 ${first.status}: ${first.message}`,
    };
  }
  return { ...r, durationMs, attempts };
}

function attemptOf(r: CaseResult): CaseAttempt {
  return {
    status: r.status, durationMs: r.durationMs, message: r.message,
    ...(r.expected !== undefined ? { expected: r.expected } : {}),
    ...(r.actual !== undefined ? { actual: r.actual } : {}),
    exchanges: r.exchanges,
  };
}

async function runOne(c: Case, env: CaseEnv): Promise<CaseResult> {
  const ctrl = new AbortController();
  const signal = env.interrupt ? AbortSignal.any([ctrl.signal, env.interrupt]) : ctrl.signal;
  // Every request in flight listens on the case's signal; a case may have many at once (bursts).
  setMaxListeners(256, signal);
  const api = new ApiClient(env.conn, env.dispatcher, signal);
  const componentClients = new Map<string, ApiClient>();
  let seq = 0;
  // A retry's objects get names of their own: the first attempt's may still be there (cleanup runs at the end).
  const retry = env.attempt ? `r${env.attempt}-` : '';
  const uniqueName = (hint = 'x') => dnsName(`oc-${env.runId}-${c.id.split('.').slice(-2).join('-')}-${hint}-${retry}${seq++}`);
  let agentClient: ApiClient | undefined;
  let cri: CriControlClient | undefined;
  const launcher = agentLauncher({
    command: env.node?.agentExec ?? '',
    api: env.conn, signal, exchanges: api.exchanges, uniqueName,
    track: (path) => env.tracker.add(path),
  });
  const ctx: CaseContext = {
    api,
    runId: env.runId,
    labels: env.labels,
    namespace: env.namespace,
    signal,
    uniqueName,
    track: (path) => env.tracker.add(path),
    facts: env.facts,
    component: (name = DEFAULT_COMPONENT) => {
      let client = componentClients.get(name);
      if (!client) {
        const t = env.components.get(name);
        if (!t) throw new Error(`the run has no component "${name}": pass --metrics ${name}=<url> (and list it in the case's components)`);
        client = new ApiClient(t.conn, t.dispatcher, signal, api.exchanges);
        componentClients.set(name, client);
      }
      return client;
    },
    componentNames: () => [...(env.only ?? env.components.keys())],
    agent: () => {
      const t = env.node?.agent;
      if (!t) throw new Error('the run has no agent: pass --agent <url> and --node <name> (and list "agent" in the case\'s needs)');
      agentClient ??= new ApiClient(t.conn, env.agentDispatcher().agent!, signal, api.exchanges);
      return { client: agentClient, nodeName: t.nodeName };
    },
    cri: () => {
      const path = env.node?.criControl;
      if (!path) throw new Error('the run has no mock CRI control: pass --cri-control <path> (and list "cri" in the case\'s needs)');
      cri ??= criControlClient(criControlConnection(path), env.agentDispatcher().cri!, signal, api.exchanges);
      return cri;
    },
    podInfoSocket: () => {
      const path = env.node?.agentPodSocket;
      if (!path) throw new Error('the run has no pod info socket: pass --agent-pod-socket <path> (and list "agent-socket" in the case\'s needs)');
      return path;
    },
    agents: {
      launch: (o) => {
        if (!env.node?.agentExec) throw new Error('the run has no --agent-exec command (and list "agent-exec" in the case\'s needs)');
        return launcher.launch(o);
      },
    },
  };
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  // The deadline wins even over a case that ignores its signal: the run must always finish.
  const deadline = new Promise<'timeout' | 'interrupted'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), env.timeoutMs);
    // Removed once the case ends (ctrl aborts), so listeners do not pile up on the run's signal.
    env.interrupt?.addEventListener('abort', () => resolve('interrupted'), { once: true, signal: ctrl.signal });
  });
  let status: CaseStatus = 'passed';
  let message = '';
  let expected: string | undefined;
  let actual: string | undefined;
  let failedExchange: number | undefined;
  const findings: Finding[] = [];
  try {
    // The case runs with its exchange log at hand, so a CaseFailure records which exchange it follows.
    const outcome = await Promise.race([caseExchanges.run(api.exchanges, () => collectFindings(findings, () => c.run(ctx))).then(() => 'done' as const), deadline]);
    if (outcome === 'timeout') {
      status = 'errored';
      message = `timed out after ${env.timeoutMs / 1000}s (the target did not answer in time)`;
    } else if (outcome === 'interrupted') {
      status = 'interrupted';
      message = 'the run was interrupted while this case ran';
    }
  } catch (err) {
    if (env.interrupt?.aborted) {
      // Whatever the case saw after the interrupt is the run stopping, not the target.
      status = 'interrupted';
      message = 'the run was interrupted while this case ran';
    } else if (err instanceof CaseSkip) {
      status = 'skipped';
      message = `cannot be observed on this target: ${err.message}`;
    } else if (err instanceof CaseFailure) {
      // A SHOULD rule (upstream behaviour, a recommendation) warns unless the run is strict.
      status = c.level === 'SHOULD' && !env.strict ? 'warned' : 'failed';
      message = err.message;
      expected = err.expected;
      actual = err.actual;
      failedExchange = err.exchangeIndex;
    } else {
      status = 'errored';
      message = signal.aborted ? 'aborted' : describeError(err);
    }
  } finally {
    clearTimeout(timer);
    // Faults and agents of the case go before its signal aborts: their clean-up needs the connections.
    await cri?.removeOwnFaults().catch(() => undefined);
    await launcher.close();
    ctrl.abort();
    api.closeAll();
    agentClient?.closeAll();
    for (const client of componentClients.values()) client.closeAll();
  }
  // A case whose own checks held but which found upstream's shape (or a recommendation) not kept:
  // a warning, or a failure in a strict run. Its message says which finding it is.
  const should = findings.filter((f) => f.level === 'SHOULD');
  if (status === 'passed' && should.length) {
    status = env.strict ? 'failed' : 'warned';
    const f = should[0]!;
    message = `${findingLabel(f)}: ${f.message}${should.length > 1 ? ` (and ${should.length - 1} more finding${should.length > 2 ? 's' : ''})` : ''}`;
    expected = f.expected;
    actual = f.actual;
  }
  if (env.notChecked && status !== 'interrupted') message = message ? `${message} (${env.notChecked})` : env.notChecked;
  const r = resultOf(c, status, Math.round(performance.now() - started), message);
  r.expected = expected;
  r.actual = actual;
  if (findings.length) r.findings = findings;
  // Exchanges are what an auditor needs to see a failure; passes keep reports small. A retry keeps
  // them whatever it ended with: set beside the failed attempt's, they show what changed.
  if (status === 'failed' || status === 'warned' || status === 'errored' || env.attempt || env.keepExchanges) {
    r.exchanges = api.exchanges;
    if (failedExchange !== undefined && failedExchange < r.exchanges.length) r.failedExchange = failedExchange;
  }
  return r;
}

/** The component a case reads when it names none: the control-plane API server. */
export const DEFAULT_COMPONENT = 'apiserver';

interface ComponentTarget {
  conn: TargetConnection;
  dispatcher: Dispatcher;
}

/** A group's components: `apiserver` on the API connection unless given, each with a connection pool. */
function componentTargets(group: TargetGroup, apiDispatcher: Dispatcher): Map<string, ComponentTarget> {
  const out = new Map<string, ComponentTarget>([[DEFAULT_COMPONENT, { conn: group.conn, dispatcher: apiDispatcher }]]);
  for (const [name, conn] of Object.entries(group.components ?? {})) {
    out.set(name, { conn, dispatcher: conn.baseUrl === group.conn.baseUrl ? apiDispatcher : createDispatcher(conn) });
  }
  return out;
}

/**
 * Each component's gates (the agent's as `agent`): resolveGates over the group's gates, with what
 * each component reports in orch_feature_enabled when the group says to read it.
 */
async function targetGates(group: TargetGroup, components: ReadonlyMap<string, ComponentTarget>): Promise<(component: string) => ComponentGates> {
  const reported = new Map<string, Record<string, boolean>>();
  if (group.readGates) {
    const reads: Array<[string, TargetConnection, () => Dispatcher]> = [...components].map(([name, t]) => [name, t.conn, () => t.dispatcher]);
    if (group.node?.agent && !components.has(AGENT_COMPONENT)) reads.push([AGENT_COMPONENT, group.node.agent.conn, () => agentDispatcherOf(group)().agent!]);
    await Promise.all(reads.map(async ([name, conn, dispatcher]) => {
      const gates = await readReportedGates(conn, dispatcher());
      if (gates) reported.set(name, gates);
    }));
  }
  const resolved = new Map<string, ComponentGates>();
  return (component) => {
    let gates = resolved.get(component);
    if (!gates) resolved.set(component, (gates = resolveGates(group.gates, group.statedGates, reported.get(component))));
    return gates;
  };
}

/**
 * Whether a case may run with the target's gates: `skip` says why not. A case checked on every
 * component needs the gates each component has on its own (PER_COMPONENT_GATES) per component: it
 * runs on those that have them (`only`) and says which it left out (`notChecked`); only when none
 * has them is it skipped. The agent's endpoints are not among them (the agent cases check those).
 */
function caseGates(c: Case, gatesOf: (component: string) => ComponentGates, components: readonly string[]): { skip?: string; only?: string[]; notChecked?: string } {
  const needs = Object.entries(c.gates ?? {});
  const perComponent = c.everyComponent ? needs.filter(([g]) => PER_COMPONENT_GATES.has(g)) : [];
  for (const [gate, want] of needs.filter((n) => !perComponent.includes(n))) {
    for (const component of gateComponents(c, gate)) {
      const why = gateMismatch({ [gate]: want }, gatesOf(component), component === DEFAULT_COMPONENT ? undefined : component);
      if (why) return { skip: why };
    }
  }
  if (perComponent.length === 0) return {};
  const wants = Object.fromEntries(perComponent);
  const checked = components.filter((n) => n !== AGENT_COMPONENT);
  const off = checked.map((n) => ({ n, why: gateMismatch(wants, gatesOf(n)) })).filter((x) => x.why);
  if (off.length === 0) return {};
  // One reason for all (the usual case: --gates, or components reporting alike) is said once.
  const same = off.every((x) => x.why === off[0]!.why);
  const reasons = same ? gateMismatch(wants, gatesOf(off[0]!.n), off.map((x) => x.n))! : off.map((x) => gateMismatch(wants, gatesOf(x.n), x.n)).join('; ');
  if (off.length === checked.length) return { skip: reasons };
  return { only: checked.filter((n) => !off.some((x) => x.n === n)), notChecked: `not checked on ${off.map((x) => x.n).join(', ')}: ${reasons}` };
}

/** Why a case cannot run for want of a component's endpoints, or undefined when it can. */
function missingComponent(c: Case, components: { has(name: string): boolean }): string | undefined {
  if (!c.needs.includes('metrics')) return undefined;
  const absent = (c.components ?? [DEFAULT_COMPONENT]).filter((n) => !components.has(n));
  if (absent.length === 0) return undefined;
  return `needs the metrics and debug endpoints of ${absent.map((n) => `component "${n}"`).join(' and ')}: pass ${absent.map((n) => `--metrics ${n}=<url>`).join(' ')}`;
}

/** Why a case cannot run for want of a node-agent target (spec 001), or undefined when it can. */
export function missingNodeTarget(c: Case, node?: NodeTargets): string | undefined {
  const absent: string[] = [];
  if (c.needs.includes('agent') && !node?.agent) absent.push('an agent under test: pass --agent <url> and --node <name>');
  if (c.needs.includes('cri') && !node?.criControl) absent.push('the control socket of the mock CRI runtime the agent uses: start `orch-conformance mock-cri --control <path>`, point the agent at its socket and pass --cri-control <path>');
  if (c.needs.includes('agent-exec') && !node?.agentExec) absent.push("a command that starts agents: pass --agent-exec '<command>'");
  if (c.needs.includes('agent-socket') && !node?.agentPodSocket) absent.push("the agent's pod info socket (gRPC, on this machine): pass --agent-pod-socket <path>, e.g. /var/lib/agent/pods/agent.sock");
  return absent.length ? `needs ${absent.join('; and ')}` : undefined;
}

/** One pool per group for the agent's endpoints and one for the CRI control socket, made on first use. */
const agentPools = new WeakMap<TargetGroup, { agent?: Dispatcher; cri?: Dispatcher }>();
function agentDispatcherOf(group: TargetGroup): () => { agent?: Dispatcher; cri?: Dispatcher } {
  return () => {
    let pools = agentPools.get(group);
    if (!pools) {
      pools = {
        agent: group.node?.agent ? createDispatcher(group.node.agent.conn) : undefined,
        cri: group.node?.criControl ? createDispatcher(criControlConnection(group.node.criControl)) : undefined,
      };
      agentPools.set(group, pools);
    }
    return pools;
  };
}

/** Closes the pools agentDispatcherOf made for a group. */
async function closeAgentPools(group: TargetGroup): Promise<void> {
  const pools = agentPools.get(group);
  agentPools.delete(group);
  await Promise.all([pools?.agent?.close(), pools?.cri?.close()].map((p) => p?.catch(() => undefined)));
}

function resultOf(c: Case, status: CaseStatus, durationMs: number, message: string): CaseResult {
  return {
    id: c.id, title: c.title, suite: c.suite, requirements: [...c.requirements], spec: { ...c.spec },
    level: c.level, impact: c.impact, needs: [...c.needs], ...(c.controllers?.length ? { controllers: [...c.controllers] } : {}), status, durationMs, message, exchanges: [],
  };
}

function applyExpectation(r: CaseResult, expectations?: ReadonlyMap<string, string>): CaseResult {
  const reason = expectations?.get(r.id);
  if (reason === undefined) return r;
  if (r.status === 'failed' || r.status === 'warned' || r.status === 'errored') return { ...r, knownFailure: { reason } };
  if (r.status === 'passed') {
    return { ...r, unexpectedPass: true, message: `unexpected pass: listed as a known failure ("${reason}"); remove it from the expect file` };
  }
  return r;
}

export function summarise(results: readonly CaseResult[]): RunSummary {
  const s: RunSummary = { total: results.length, passed: 0, failed: 0, warned: 0, skipped: 0, errored: 0, interrupted: 0, flaky: 0, unstarted: 0, knownFailures: 0, unexpectedPasses: 0 };
  for (const r of results) {
    if (r.unexpectedPass) s.unexpectedPasses++;
    else if (r.knownFailure) s.knownFailures++;
    else s[r.status]++;
  }
  return s;
}

/** DNS-1123 label: lowercase alphanumerics and '-', at most 63 characters, alphanumeric at both ends. */
function dnsName(s: string): string {
  const clean = s.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/-+/g, '-');
  if (clean.length <= 63) return clean.replace(/^-|-$/g, '');
  // Shortened: the head (run id prefix) and tail (hint and sequence) stay readable, and a hash of
  // the whole keeps names of different cases apart even when their heads and tails agree.
  const hash = createHash('sha256').update(clean).digest('hex').slice(0, 8);
  return `${clean.slice(0, 36)}-${hash}-${clean.slice(-17)}`.replace(/-+/g, '-').replace(/^-|-$/g, '');
}

/**
 * Creates the namespace the run's namespaced cases share. A refusal for want of rights (401, 403)
 * is a TargetAccessError, which stops the run before any case; any other failure is a message the
 * namespaced cases error with.
 */
async function createRunNamespace(conn: TargetConnection, dispatcher: Dispatcher, name: string, labels: Record<string, string>, tracker: Tracker): Promise<string | TargetAccessError | undefined> {
  const api = new ApiClient(conn, dispatcher);
  try {
    const res = await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } }, { timeoutMs: CLEANUP_TIMEOUT_MS });
    if (res.status === 401) return rejectedCredentials(conn, 'POST /api/v1/namespaces');
    if (res.status === 403) return permissionDenied(conn, 'create namespaces', `creating the run's namespace ${name}`, res);
    if (res.status !== 200 && res.status !== 201 && res.status !== 202) return `could not create the run's namespace ${name}: HTTP ${res.status} ${res.text.slice(0, 200)}`;
    tracker.add(`/api/v1/namespaces/${name}`);
    return undefined;
  } catch (err) {
    return `could not create the run's namespace ${name}: ${describeError(err)}`;
  }
}

const isNamespacePath = (p: string) => /^\/api\/v1\/namespaces\/[^/]+$/.test(p);

/**
 * Deletes what the run created (pass or fail), then lists each collection it wrote to and reports
 * any object still labelled with this run. Objects of other runs or other users are never touched.
 */
async function cleanUp(conn: TargetConnection, dispatcher: Dispatcher, tracker: Tracker, runId: string, background?: RunBackground['owns']): Promise<{ leaks: string[]; unverified: string[] }> {
  const api = new ApiClient(conn, dispatcher);
  /** True once the target answered the delete (whatever it said); false when it did not answer. */
  const del = async (p: string): Promise<boolean> => {
    try {
      const res = await api.delete(p, { timeoutMs: CLEANUP_TIMEOUT_MS });
      // A case may have left one of its own finalizers on an object: release it so it can go.
      const held = res.json?.metadata?.finalizers;
      if (res.status < 300 && Array.isArray(held) && held.some((f: unknown) => typeof f === 'string' && f.startsWith(OWN_FINALIZER_PREFIX))) {
        const cur = await api.get(p, { timeoutMs: CLEANUP_TIMEOUT_MS });
        if (cur.status === 200 && cur.json?.metadata?.labels?.[RUN_LABEL] === runId) {
          const finalizers = (cur.json.metadata.finalizers ?? []).filter((f: string) => !f.startsWith(OWN_FINALIZER_PREFIX));
          await api.put(p, { ...cur.json, metadata: { ...cur.json.metadata, finalizers } }, { timeoutMs: CLEANUP_TIMEOUT_MS });
        }
      }
      return true;
    } catch {
      // Unreachable or slow: tried once more below; the leak check reports what stayed.
      return false;
    }
  };
  /**
   * Deletes `list` all at once; then, when the target answered some but not all (a busy target, not a
   * dead one), those without an answer once more, eight at a time.
   */
  const delAll = async (list: string[]) => {
    const answered = await Promise.all(list.map(del));
    const retry = list.filter((_, i) => !answered[i]);
    if (retry.length === list.length) return;
    for (let i = 0; i < retry.length; i += 8) await Promise.all(retry.slice(i, i + 8).map(del));
  };
  const paths = [...tracker.paths];
  // Namespaces last: deleting one may take its contents with it, and the objects go first.
  await delAll(paths.filter((p) => !isNamespacePath(p)));
  await delAll(paths.filter(isNamespacePath));
  // What is in a namespace being deleted goes with it: the target's namespace controller empties it
  // after the delete answered (upstream's does so asynchronously, in seconds), so its objects are on
  // their way out, not left behind.
  const terminating = new Set<string>();
  await Promise.all(paths.filter(isNamespacePath).map(async (p) => {
    try {
      const res = await api.get(p, { timeoutMs: CLEANUP_TIMEOUT_MS });
      if (res.status === 404 || (res.status === 200 && res.json?.metadata?.deletionTimestamp)) terminating.add(decodeURIComponent(p.slice(p.lastIndexOf('/') + 1)));
    } catch {
      // Not known to be going: its objects are checked like any others.
    }
  }));

  // A collection that cannot be listed (403, an error) is not evidence of objects left behind:
  // it is reported apart, as unverified.
  const leaks: string[] = [];
  const unverified: string[] = [];
  const collections = new Set(paths.map((p) => p.slice(0, p.lastIndexOf('/'))));
  await Promise.all([...collections].map(async (col) => {
    try {
      const res = await api.get(col, { timeoutMs: CLEANUP_TIMEOUT_MS });
      if (res.status !== 200 || !Array.isArray(res.json?.items)) {
        const why = res.status === 403 ? 'HTTP 403: these credentials may not list it' : res.status === 200 ? 'the answer is not a list' : `HTTP ${res.status}`;
        unverified.push(`${col}: could not verify cleanup (${why})`);
        return;
      }
      for (const o of res.json.items) {
        // An object already marked for deletion (finalizers pending), or in a namespace being
        // deleted, is on its way out.
        // The run's background nodes carry its label too; they are still running, and their own stop deletes them.
        if (o?.metadata?.labels?.[RUN_LABEL] === runId && !o.metadata.deletionTimestamp && !terminating.has(o.metadata.namespace) && !background?.(col, o)) leaks.push(`${col}/${o.metadata.name}`);
      }
    } catch (err) {
      unverified.push(`${col}: could not verify cleanup (${describeError(err)})`);
    }
  }));
  return { leaks: leaks.sort(), unverified: unverified.sort() };
}

/**
 * True when this result makes the run fail: a failure or error not listed as known, an unexpected
 * pass, or (`--strict`) a case that passed only on a retry.
 */
export function failsRun(r: CaseResult, strict = false): boolean {
  return ((r.status === 'failed' || r.status === 'errored') && !r.knownFailure) || !!r.unexpectedPass || (strict && r.status === 'flaky');
}

/**
 * 0 every selected case passed (skips, warnings, known failures and, without `--strict`, flaky cases
 * allowed) and the run met its policy (`--fail-on-skip`, `--min-coverage`), 1 otherwise; 2 when no
 * selected case ran (every one skipped): a run that checked nothing is a set-up to fix, not a pass. A
 * cleanup that could not be verified (`cleanupUnverified`) is reported but is no leak, and does not
 * count. The CLI maps an interrupted run to 130/143 before asking this.
 */
export function exitCodeFor(report: RunReport): 0 | 1 | 2 {
  if (report.cases.some((c) => failsRun(c, report.strict)) || report.leaks.length > 0 || report.interrupted) return 1;
  if (nothingRan(report)) return 2;
  return policyFailures(report).length ? 1 : 0;
}
