// `run` and `list`: one plan of a run (selection, target, reporters, facts), checked up front, so
// that `list` answers a bad run command line with the same usage errors as `run` itself.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve as resolvePath } from 'node:path';
import { ALL_CASES } from '../../suites/index.js';
import type { Case } from '../../suites/case.js';
import { selectCases } from '../../runner/select.js';
import { planRerun, redactArgs } from '../../runner/rerun.js';
import { agentCommandProblem } from '../../runner/agent-exec.js';
import { parseGates, statedGateNames } from '../../runner/gates.js';
import { FACTS, parseFacts } from '../../runner/facts.js';
import { loadExpectations } from '../../runner/expect.js';
import { buildRunSelection } from '../../runner/selection.js';
import { runCases, exitCodeFor, newRunId, assumedGates, gateSkip, planCase, DEFAULT_COMPONENT, RUN_LABEL, type NodeTargets, type RunBackground } from '../../runner/run.js';
import { countHollowNodes, startBackgroundNodes, type BackgroundNodes } from '../../runner/background-nodes.js';
import { FactAllocator } from '../../runner/facts.js';
import { flagsAskedFor, policyFailures, skipGroups, skipSummaryLines } from '../../reporters/skips.js';
import type { RunReport, VerdictPolicy } from '../../runner/results.js';
import { loadShardTimings, parseShard, shardCases, shardRunId } from '../../runner/shard.js';
import { runEmbedded } from '../../runner/embedded.js';
import { stderrSink } from '../../reference/log.js';
import { checkCredentials, probeComponent, probeTarget } from '../../runner/target.js';
import type { TargetConnection } from '../../runner/client.js';
import type { TargetFingerprint } from '../../runner/bundle.js';
import type { ShardSpec } from '../../runner/results.js';
import { kubeconfigFile, loadKubeconfig, readTokenFile } from '../../runner/kubeconfig.js';
import { BackgroundNodesError, DEFAULT_MAX_RESPONSE_BYTES, UsageError } from '../../runner/errors.js';
import { createReporter, type Reporter } from '../../reporters/index.js';
import { EXIT } from './exit-codes.js';
import { cleanupCommand } from './cleanup.js';

function select(argv: { id?: string[]; focus?: string; skip?: string; suite?: string[]; level?: 'MUST' | 'SHOULD' }): Case[] {
  const suites = (argv.suite ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  const ids = argv.id?.flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  return selectCases(ALL_CASES, { ids, focus: argv.focus, skip: argv.skip, suites, level: argv.level });
}

/**
 * `--rerun-failed <file>`: the run's failed set becomes the `--id` selection, and its target
 * options stand where the command line does not give them again (credentials always must be).
 */
function applyRerun(argv: any): { argv: any; rerunArgs: string[] } {
  if (argv.rerunFailed === undefined) return { argv, rerunArgs: [] };
  if (argv.id !== undefined) throw new UsageError('--id and --rerun-failed: give one of them (--rerun-failed selects the failed cases of its run)');
  const rerun = planRerun(String(argv.rerunFailed), argv, ALL_CASES);
  return { argv: { ...argv, ...rerun.defaults, id: rerun.ids }, rerunArgs: rerun.args };
}

/**
 * Everything `run` would do, checked without touching the target or writing anything: `list`
 * answers a bad run command line with the same usage errors as `run` itself.
 */
function planRun(given: any) {
  const { argv, rerunArgs } = applyRerun(given);
  const gates = parseGates(argv.gates);
  const statedGates = statedGateNames(argv.gates);
  const selected = select(argv);
  const expectations = argv.expect ? loadExpectations(argv.expect, ALL_CASES) : undefined;
  if (!Number.isInteger(argv.parallel) || argv.parallel < 1) throw new UsageError('--parallel must be a whole number of at least 1');
  if (!(argv.timeout > 0)) throw new UsageError('--timeout must be a positive number of seconds');
  if (argv.retries !== undefined && (!Number.isInteger(argv.retries) || argv.retries < 0)) throw new UsageError('--retries must be a whole number of at least 0');
  if (argv.runId !== undefined && !/^[a-z0-9]{1,16}$/.test(argv.runId)) throw new UsageError('--run-id must be 1 to 16 lowercase letters or digits (it becomes part of object names)');
  const policy = verdictPolicy(argv);
  const progress = argv.progressInterval ?? 30;
  if (!(progress >= 0)) throw new UsageError('--progress-interval must be a number of seconds, 0 or more (0: no progress lines)');
  const reporterSpecs: string[] = argv.reporter?.length ? argv.reporter : ['console'];
  const reporters = reporterSpecs.map((r) => createReporter(r, { progressIntervalMs: progress * 1000 }));
  if (selected.length === 0) throw new UsageError('no case matches the selection (see `orch-conformance list` with the same options)');
  const { shard, cases } = planShard(argv, selected);

  const conn = resolveTarget(argv);
  const embedded = conn === undefined;
  const metrics = parseMetricsTargets(argv.metrics);
  if (embedded && metrics.length) throw new UsageError('--metrics needs --api: without --api the embedded reference is the target, and its own URL serves its metrics and debug endpoints');
  // A token from --token-file or the kubeconfig states the authentication fact as --token does.
  const facts = parseFacts({ ...argv, token: conn?.token });
  const factFlags = Object.values(FACTS).map((f) => f.flag).filter((flag) => argv[flag.slice(2).replace(/-([a-z])/g, (_: string, c: string) => c.toUpperCase())] !== undefined);
  if (embedded && factFlags.length) throw new UsageError(`${factFlags.join(', ')} ${factFlags.length > 1 ? 'describe' : 'describes'} a target given with --api: the embedded run configures its references so that every such fact holds`);
  if (embedded && argv.differential) throw new UsageError('--differential compares a target given with --api against the embedded reference: without --api the reference is the target');
  if (embedded && argv.controllers !== undefined) throw new UsageError('--controllers describes a target given with --api: the embedded run starts every controller and the scheduler');
  const node = resolveNodeTargets(argv, conn);
  const bg = argv.backgroundNodes;
  if (bg !== undefined && !(Number.isInteger(bg) && bg >= 0)) throw new UsageError('--background-nodes must be a whole number of hollow nodes, 0 or more');
  return { argv, rerunArgs, gates, statedGates, selected, shard, cases, expectations, reporterSpecs, reporters, conn, embedded, metrics, facts, node, policy };
}

/** `--fail-on-skip` and `--min-coverage`, checked. */
function verdictPolicy(argv: any): VerdictPolicy {
  const min = argv.minCoverage;
  if (min !== undefined && !(typeof min === 'number' && min >= 0 && min <= 100)) throw new UsageError('--min-coverage must be a percentage from 0 to 100');
  return { ...(argv.failOnSkip ? { failOnSkip: true } : {}), ...(min !== undefined ? { minCoverage: min } : {}) };
}

/** `--shard i/n` (and `--shard-timings`): this run's slice of the selection; the whole selection without it. */
function planShard(argv: any, selected: Case[]): { shard?: ShardSpec; cases: Case[] } {
  if (argv.shard === undefined) {
    if (argv.shardTimings !== undefined) throw new UsageError('--shard-timings needs --shard: it balances the slices of a sharded run');
    return { cases: selected };
  }
  const shard = parseShard(argv.shard);
  const timings = argv.shardTimings !== undefined ? loadShardTimings(argv.shardTimings) : undefined;
  const cases = shardCases(selected, shard, timings);
  // An empty slice would be a run that checks nothing: a mistake in the CI matrix, said up front.
  if (cases.length === 0) throw new UsageError(`--shard ${argv.shard}: this slice has no case: the selection has ${selected.length} case(s), so use at most ${selected.length} shard(s)`);
  return { shard, cases };
}

/** --agent/--node/--agent-ca, --cri-control and --agent-exec: the spec 001 targets of a run against --api. */
function resolveNodeTargets(argv: any, conn: TargetConnection | undefined): NodeTargets | undefined {
  const given = ['agent', 'node', 'agent-ca', 'cri-control', 'agent-exec', 'agent-pod-socket'].filter((f) => argv[f] !== undefined);
  if (given.length === 0) return undefined;
  if (!conn) throw new UsageError(`${given.map((f) => `--${f}`).join(', ')} need${given.length > 1 ? '' : 's'} --api: without it the embedded run starts its own control plane, mock CRI runtime and reference agent`);
  const node: NodeTargets = {};
  if (argv.agent !== undefined || argv.node !== undefined) {
    if (!argv.agent || !argv.node) throw new UsageError('--agent and --node go together: the agent\'s HTTPS URL and the name of the Node it registered');
    checkApiUrl(argv.agent, '--agent');
    let caPem: string | undefined;
    if (argv.agentCa !== undefined) {
      try {
        caPem = readFileSync(argv.agentCa, 'utf8');
      } catch (err) {
        throw new UsageError(`--agent-ca ${argv.agentCa}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      }
    }
    // The run's credentials go to the agent too: an agent authenticates them as the API server does.
    node.agent = { conn: { ...conn, baseUrl: argv.agent, caPem, insecureSkipTlsVerify: caPem === undefined }, nodeName: argv.node };
  } else if (argv.agentCa !== undefined) {
    throw new UsageError('--agent-ca needs --agent');
  }
  if (argv.criControl !== undefined) {
    let st;
    try {
      st = statSync(argv.criControl);
    } catch {
      throw new UsageError(`--cri-control ${argv.criControl}: no such socket (start \`orch-conformance mock-cri --socket <path> --control <path>\` and point the agent under test at its socket)`);
    }
    if (!st.isSocket()) throw new UsageError(`--cri-control ${argv.criControl}: not a unix socket`);
    node.criControl = resolvePath(argv.criControl);
  }
  if (argv.agentExec !== undefined) {
    if (String(argv.agentExec).trim() === '') throw new UsageError('--agent-exec needs a command');
    const problem = agentCommandProblem(String(argv.agentExec));
    if (problem) throw new UsageError(`--agent-exec ${argv.agentExec}: cannot start agents: ${problem}`);
    node.agentExec = String(argv.agentExec);
  }
  if (argv.agentPodSocket !== undefined) {
    const flag = `--agent-pod-socket ${argv.agentPodSocket}`;
    if (!node.agent) throw new UsageError('--agent-pod-socket needs --agent and --node: it is the pod info socket of that agent');
    let st;
    try {
      st = statSync(String(argv.agentPodSocket));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new UsageError(code === 'EACCES'
        ? `${flag}: permission denied: the socket is for its owner only (spec 001 §6); run as that user (typically root)`
        : `${flag}: no such socket (the agent serves it at <root_dir>/pods/agent.sock, e.g. /var/lib/agent/pods/agent.sock)`);
    }
    if (!st.isSocket()) throw new UsageError(`${flag}: not a unix socket`);
    node.agentPodSocket = resolvePath(String(argv.agentPodSocket));
  }
  return node;
}

/** The exit code of a run stopped by a signal: 128 + its number, as shells report it. */
const SIGNAL_EXIT: Record<string, number> = { SIGINT: EXIT.interrupted, SIGTERM: EXIT.terminated };

export async function cmdRun(given: any, version: string): Promise<number> {
  // `argv` is the command line with what --rerun-failed takes from its results file.
  const { argv, rerunArgs, gates, statedGates, selected, shard, cases, expectations, reporterSpecs, reporters, conn, embedded, metrics, facts, node, policy } = planRun(given);
  // Before any case: a report that cannot be written is a usage error now, not after the run.
  checkReportPaths(reporterSpecs);
  // The bundle's path is checked as a report's is, and may not be one of theirs.
  if (argv.bundle !== undefined) {
    try {
      checkReportPaths([...reporterSpecs, `bundle=${argv.bundle}`]);
    } catch (err) {
      throw err instanceof UsageError ? new UsageError(err.message.replaceAll(`--reporter bundle=${argv.bundle}`, `--bundle ${argv.bundle}`)) : err;
    }
  }
  // A shard's run id is its own even when the operator named the run: shards may share a target.
  const runId = argv.runId === undefined ? newRunId() : shard ? shardRunId(argv.runId, shard) : argv.runId;
  // The selection is the whole one (every shard records the same, which `report merge` checks); a
  // shard is a partial run all the same.
  const selection = buildRunSelection({ ...argv, ids: argv.id, rerunFailed: argv.rerunFailed, gates: argv.gates ? gates : undefined, facts: embedded ? undefined : facts, expectFile: argv.expect, expectations, selected, all: ALL_CASES });
  if (shard && shard.count > 1) selection.partial = true;
  const interrupt = new AbortController();
  let stoppedBy = EXIT.interrupted as number;
  // What an interrupted run against a target may leave there is removed by this command.
  const leftoverHint = () => { if (!embedded) process.stderr.write(`orch-conformance: to remove what run ${runId} left on the target: ${cleanupCommand(argv, runId)}\n`); };
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupt.signal.aborted) {
      // Quitting at once skips the cleanup: whatever the cases created stays.
      leftoverHint();
      process.exit(stoppedBy);
    }
    stoppedBy = SIGNAL_EXIT[signal] ?? EXIT.interrupted;
    process.stderr.write(`\ninterrupted (${signal}): stopping running cases and cleaning up (${signal === 'SIGINT' ? 'Ctrl-C' : signal} again to quit at once)\n`);
    interrupt.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const common = {
      expectations, reporters: argv.differential ? reporters.map(deferEnd) : reporters, interrupt: interrupt.signal, version, policy,
      runId, parallel: argv.parallel, timeoutMs: argv.timeout * 1000, strict: !!argv.strict,
      // With --rerun-failed, the target options it took from its file are appended: a failure's
      // rerun command (--id in place of --rerun-failed) must reach the same target.
      retries: argv.retries ?? 0, command: [...redactArgs(process.argv.slice(2)), ...rerunArgs],
      selection, ...(shard ? { shard } : {}), ...(argv.label !== undefined ? { label: String(argv.label) } : {}),
    };
    let report: RunReport;
    // The target's fingerprint is read before the cases run: what the run was about, not what it left.
    const fingerprint = argv.bundle === undefined ? undefined : conn === undefined ? { embedded: true } : await fingerprintAfterProbe(conn, node);
    if (conn === undefined) {
      // Without --gates every case runs: a reference is started per gate set the cases need.
      // Its components log only with --verbose: the cases provoke errors on purpose (a planted
      // corrupt object, writes refused), and a passing run writes nothing to standard error.
      report = await runEmbedded(cases, { ...common, gates: argv.gates ? gates : undefined, statedGates, log: argv.verbose ? stderrSink : undefined, backgroundNodes: argv.backgroundNodes });
    } else {
      // Preflight: reachable (exit 3), then credentials the target accepts (exit 2).
      await probeTarget(conn);
      if (cases.some((c) => c.needs.includes('api'))) await checkCredentials(conn);
      // Components share the API's credentials and TLS options.
      const components = Object.fromEntries(metrics.map(([name, url]) => [name, { ...conn, baseUrl: url }]));
      for (const [name, c] of Object.entries(components)) await probeComponent(name, c);
      if (node?.agent) await probeComponent('agent', node.agent.conn, '--agent <url>');
      // The load the cases run under: hollow Nodes already on the target (a `nodes` process the
      // operator runs), and the run's own with --background-nodes.
      const found = cases.some((c) => c.needs.includes('api')) ? await countHollowNodes(conn) : undefined;
      let background: RunBackground | undefined = found ? { load: { hollowNodes: found, source: 'already running' } } : undefined;
      let own: BackgroundNodes | undefined;
      try {
        if (argv.backgroundNodes) {
          background = own = await startBackgroundNodes(conn, { count: argv.backgroundNodes, runId, runLabel: `${RUN_LABEL}=${runId}`, interrupt: interrupt.signal });
          if (found) own.load.alreadyRunning = found;
        }
        // Each component's gates are read from its orch_feature_enabled, save those --gates states.
        report = await runCases({ ...common, cases, conn, components, node, embedded, gates, statedGates, readGates: true, facts, background });
      } finally {
        await own?.stop();
      }
    }
    if (argv.differential) {
      // The reporters render once the reference's answers are beside the target's.
      if (!report.interrupted) await differential(report, argv, version, interrupt.signal);
      for (const r of reporters) await r.end(report);
    }
    if (argv.bundle !== undefined) {
      const { writeBundle } = await import('../../runner/bundle.js');
      await writeBundle(argv.bundle, report, fingerprint!, { endedAt: new Date().toISOString() });
      process.stderr.write(`orch-conformance: evidence bundle written to ${argv.bundle} (sign it: orch-conformance bundle sign ${argv.bundle} --key <ed25519 private key PEM>)\n`);
    }
    if (report.interrupted) {
      if (report.leaks.length) leftoverHint();
      return stoppedBy;
    }
    const code = exitCodeFor(report);
    const unverified = report.cleanupUnverified?.length ?? 0;
    if (code === EXIT.usage) process.stderr.write(nothingRanMessage(report));
    else if (code !== 0) {
      const bad = report.cases.filter((c) => (c.status === 'failed' || c.status === 'errored') && !c.knownFailure).length;
      const surprises = report.cases.filter((c) => c.unexpectedPass).length;
      const policyMissed = policyFailures(report);
      const flaky = report.strict ? report.cases.filter((c) => c.status === 'flaky').length : 0;
      const parts = [bad && `${bad} case(s) failed or errored`, flaky && `${flaky} case(s) passed only on a retry (flaky; --strict)`, surprises && `${surprises} known failure(s) passed (update the --expect file)`, report.leaks.length && `${report.leaks.length} object(s) left behind after cleanup`, ...policyMissed].filter(Boolean);
      const see = bad || surprises || flaky ? ' See the report for expected vs actual and the recorded exchanges.' : '';
      process.stderr.write(`orch-conformance: ${parts.join('; ')}.${see}\n`);
      // --fail-on-skip: the skipped cases, by reason, whatever reporters the run wrote.
      if (policy.failOnSkip && report.summary.skipped) process.stderr.write(`Skipped cases, by reason:\n${skipSummaryLines(report, { ids: true }).join('\n')}\n`);
    }
    if (unverified) process.stderr.write(`orch-conformance: cleanup could not be verified for ${unverified} collection(s) (not counted as left behind; check them by hand): ${report.cleanupUnverified.join('; ')}\n`);
    return code;
  } catch (err) {
    // Ctrl-C while the background nodes were getting ready: an interrupted run, not a set-up error.
    if (err instanceof BackgroundNodesError && interrupt.signal.aborted) return stoppedBy;
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** A reporter whose `end` waits: `--differential` adds to the report after the run, then renders it. */
function deferEnd(r: Reporter): Reporter {
  return { name: r.name, start: r.start?.bind(r), caseStart: r.caseStart?.bind(r), caseEnd: r.caseEnd?.bind(r), end: () => undefined };
}

/** `--differential`: the failed and warned cases run again against the embedded reference (runner/differential.ts). */
async function differential(report: RunReport, argv: any, version: string, interrupt: AbortSignal): Promise<void> {
  const { replayOnReference, differentiable } = await import('../../runner/differential.js');
  const n = report.cases.filter(differentiable).length;
  if (n === 0) return;
  process.stderr.write(`orch-conformance: --differential: running ${n} failed or warned case(s) against the embedded reference\n`);
  await replayOnReference(report, { cases: ALL_CASES, version, timeoutMs: argv.timeout * 1000, parallel: argv.parallel, interrupt, log: argv.verbose ? stderrSink : undefined });
}

/**
 * `run --bundle`: the target's fingerprint, read once the target answered (probeTarget); the run's
 * own preflight still reports an unreachable target first.
 */
async function fingerprintAfterProbe(conn: TargetConnection, node: NodeTargets | undefined): Promise<TargetFingerprint> {
  await probeTarget(conn);
  const { fingerprintTarget } = await import('../../runner/bundle.js');
  return fingerprintTarget(conn, node?.agent);
}

/** Exit 2's message: no selected case ran; what the skip reasons ask for. */
function nothingRanMessage(report: RunReport): string {
  const flags = flagsAskedFor(skipGroups(report));
  const ask = flags.length ? ` The skip reasons ask for ${flags.join(', ')}.` : '';
  return `orch-conformance: no selected case ran: all ${report.summary.skipped} were skipped, so this run checked nothing and is no pass.${ask}\n${skipSummaryLines(report).join('\n')}\n`;
}

/** `--api` (or the kubeconfig's server) must say http:// or https://: `127.0.0.1:6443` is no URL. */
function checkApiUrl(url: string, from: string): void {
  if (!/^https?:\/\/[^/]/i.test(url)) {
    const hint = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? 'the scheme must be http or https' : `give the scheme, e.g. https://${url} (or http://${url} for a plain-HTTP server)`;
    throw new UsageError(`${from} ${url}: not an http(s) URL; ${hint}`);
  }
  try {
    new URL(url);
  } catch {
    throw new UsageError(`${from} ${url}: not a valid URL`);
  }
}

/**
 * The target connection from --api and friends, over a kubeconfig's context when one is named
 * (explicit flags win, field by field); undefined for the embedded reference.
 */
export function resolveTarget(argv: any): TargetConnection | undefined {
  const file = kubeconfigFile(argv.kubeconfig, argv.context);
  const kc = file === undefined ? undefined : loadKubeconfig(file, argv.context);
  if (argv.token !== undefined && argv.tokenFile !== undefined) throw new UsageError('--token and --token-file: give one of them');
  const api: string | undefined = argv.api ?? kc?.server;
  if (api === undefined) {
    const stray = ['token', 'token-file', 'ca', 'insecure-skip-tls-verify', 'max-response-bytes'].filter((f) => argv[f] !== undefined);
    if (stray.length) throw new UsageError(`${stray.map((f) => `--${f}`).join(', ')} describe${stray.length > 1 ? '' : 's'} a target: give it with --api or --kubeconfig (without them the embedded reference is the target)`);
    return undefined;
  }
  checkApiUrl(api, argv.api !== undefined ? '--api' : `--kubeconfig ${file} (context "${kc!.context}") server`);
  const max = argv.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  if (!Number.isInteger(max) || max < 1024) throw new UsageError('--max-response-bytes must be a whole number of bytes, at least 1024');
  const token = argv.token ?? (argv.tokenFile !== undefined ? readTokenFile(argv.tokenFile, '--token-file') : kc?.token);
  return {
    baseUrl: api,
    token: token || undefined,
    caPem: readCa(argv.ca) ?? kc?.caPem,
    insecureSkipTlsVerify: argv.insecureSkipTlsVerify ?? kc?.insecureSkipTlsVerify,
    certPem: kc?.certPem,
    keyPem: kc?.keyPem,
    maxResponseBytes: max,
  };
}

/**
 * mkdir -p, one level at a time: Node's recursive mkdirSync never returns under /proc and
 * similar file systems, where a missing directory can never be created.
 */
function makeDirs(dir: string): void {
  if (existsSync(dir)) return;
  makeDirs(dirname(dir));
  mkdirSync(dir);
}

/**
 * Every report path (`--reporter name=path`) can be created and written, checked before the first
 * case runs: a typo in a path must not cost a whole run. Directories are created as the reporter
 * would; a file that did not exist is removed again.
 */
function checkReportPaths(specs: readonly string[]): void {
  const seen = new Map<string, string>();
  for (const spec of specs) {
    const eq = spec.indexOf('=');
    if (eq === -1) continue;
    const path = spec.slice(eq + 1);
    if (path === '-') continue;
    const abs = resolvePath(path);
    if (seen.has(abs)) throw new UsageError(`--reporter ${spec}: ${path} is also the path of --reporter ${seen.get(abs)}`);
    seen.set(abs, spec);
    const fail = (err: unknown): never => {
      throw new UsageError(`--reporter ${spec}: cannot write ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    };
    if (existsSync(abs) && statSync(abs).isDirectory()) throw new UsageError(`--reporter ${spec}: ${path} is a directory; give a file name`);
    try {
      makeDirs(dirname(abs));
    } catch (err) {
      fail(err);
    }
    const existed = existsSync(abs);
    try {
      closeSync(openSync(abs, 'a'));
    } catch (err) {
      fail(err);
    }
    if (!existed) rmSync(abs, { force: true });
  }
}

/** The `--ca` file's PEM text, read once up front so that a bad path is a usage error. */
function readCa(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`--ca ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new UsageError(`--ca ${path}: not a PEM certificate file`);
  return pem;
}

/** `--metrics name=url` values: component names are unique lowercase words, URLs http(s). */
function parseMetricsTargets(values: string[] | undefined): Array<[string, string]> {
  const out = new Map<string, string>();
  for (const v of values ?? []) {
    const m = /^([a-z0-9][a-z0-9-]*)=(.+)$/.exec(v);
    if (!m) throw new UsageError(`--metrics ${v}: want name=url, e.g. apiserver=https://10.0.0.1:6443 (name: lowercase letters, digits and '-')`);
    const [, name, url] = m as unknown as [string, string, string];
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new UsageError(`--metrics ${v}: "${url}" is not a URL`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`--metrics ${v}: the URL must be http or https`);
    if (out.has(name)) throw new UsageError(`--metrics: component "${name}" given twice`);
    out.set(name, url);
  }
  return [...out];
}

/**
 * The cases a run with these options would skip, and why, asked of the runner's own checks
 * (runner/run.ts planCase) without reaching the target: gates not stated are taken as the 1.37
 * defaults (a run reads what each component reports). The embedded run starts what its cases need,
 * so only stated gates can keep its cases from running.
 */
function plannedSkips(plan: ReturnType<typeof planRun>, argv: any): Map<string, string> {
  const out = new Map<string, string>();
  const gatesOf = assumedGates(plan.gates, plan.statedGates);
  if (plan.embedded) {
    if (!argv.gates) return out;
    for (const c of plan.cases) {
      const why = gateSkip(c, gatesOf, [DEFAULT_COMPONENT, ...(c.components ?? [])]);
      if (why) out.set(c.id, why);
    }
    return out;
  }
  const target = { gatesOf, components: [DEFAULT_COMPONENT, ...plan.metrics.map(([name]) => name)], node: plan.node, facts: plan.facts, allocator: new FactAllocator(plan.facts) };
  for (const c of plan.cases) {
    const why = planCase(c, target).skip;
    if (why) out.set(c.id, why);
  }
  return out;
}

export function cmdList(argv: any): number {
  // The same checks as `run`, so a run's command line can be copied here as it is.
  const plan = planRun(argv);
  const { cases, shard, selected } = plan;
  const skips = plannedSkips(plan, argv);
  const rows = cases.map((c) => ({
    id: c.id, title: c.title, suite: c.suite, requirements: c.requirements, spec: c.spec, level: c.level,
    gates: c.gates ?? {}, impact: c.impact, needs: c.needs, facts: c.facts ?? [],
    ...(c.needs.includes('metrics') ? { components: c.components ?? [DEFAULT_COMPONENT] } : {}),
    ...(c.everyComponent ? { everyComponent: true } : {}),
    ...(c.controllers?.length ? { controllers: [...c.controllers] } : {}),
    ...(skips.has(c.id) ? { wouldSkip: skips.get(c.id)! } : {}),
  }));
  if (argv.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return EXIT.ok;
  }
  for (const r of rows) {
    const gates = Object.entries(r.gates).map(([k, v]) => `${k}=${v}`).join(',');
    const nodeFlags: Record<string, string> = { agent: '--agent --node', cri: '--cri-control', 'agent-exec': '--agent-exec', 'agent-socket': '--agent-pod-socket' };
    const facts = [...r.needs.filter((k) => nodeFlags[k]).map((k) => nodeFlags[k]), ...r.facts.map((f) => FACTS[f].flag)].join(' ');
    process.stdout.write(`${r.id}\n    ${r.level} ${r.spec.doc} §${r.spec.section}  ${r.impact}  ${r.requirements.join(', ')}${gates ? `  gates: ${gates}` : ''}${facts ? `  needs: ${facts}` : ''}${r.controllers ? `  controllers: ${r.controllers.join(',')}` : ''}\n    ${r.title}\n${r.wouldSkip ? `    would be skipped: ${r.wouldSkip}\n` : ''}`);
  }
  process.stdout.write(`${rows.length} case(s)${shard ? `: shard ${shard.index}/${shard.count} of ${selected.length} selected` : ''}${skips.size ? `; a run with these options would skip ${skips.size}` : ''}\n`);
  if (skips.size) {
    const listed = cases.filter((c) => skips.has(c.id)).map((c) => ({ id: c.id, status: 'skipped' as const, message: skips.get(c.id)! }));
    process.stdout.write(`Would be skipped, by reason${plan.embedded ? '' : ' (gates not given with --gates taken as the 1.37 defaults; a run reads each component\'s own)'}:\n${skipSummaryLines({ cases: listed }).join('\n')}\n`);
  }
  return EXIT.ok;
}
