#!/usr/bin/env node
// The orch-conformance command line: run, list, serve, report.
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { ALL_CASES } from '../suites/index.js';
import type { Case } from '../suites/case.js';
import { selectCases } from '../runner/select.js';
import { parseGates } from '../runner/gates.js';
import { FACTS, parseFacts } from '../runner/facts.js';
import { loadExpectations } from '../runner/expect.js';
import { runCases, exitCodeFor, newRunId, DEFAULT_COMPONENT } from '../runner/run.js';
import { runEmbedded } from '../runner/embedded.js';
import { probeComponent, probeTarget, TargetUnreachableError } from '../runner/target.js';
import { UsageError } from '../runner/errors.js';
import { createReporter } from '../reporters/index.js';
import type { RunReport } from '../runner/results.js';
import { startReference } from '../reference/server.js';
import { parseDurationMs } from '../reference/duration.js';
import { FeatureGates, FeatureGateError } from '../reference/features.js';
import { PACKAGE_VERSION } from '../reference/package-version.js';
import { apiServerHealthChecks } from '../reference/apiserver/debug-endpoints.js';

/** The API server's health check names (the checks themselves are never run here). */
const API_SERVER_CHECK_NAMES = [...new Set(Object.values(apiServerHealthChecks({
  storage: undefined as never, registered: () => true, controllersStarted: () => true, shuttingDown: () => false,
})).flat().map((c) => c.name))];
import { serveTls, TlsConfigError } from '../reference/tls.js';
import { authFromFlags, AuthFlagError } from '../reference/apiserver/auth/serve-flags.js';

const EXIT = { ok: 0, failed: 1, usage: 2, unreachable: 3, interrupted: 130 } as const;

// `orch-conformance list | head`: the reader went away; stop quietly, as Unix tools do.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(EXIT.ok);
  throw err;
});

const VERSION = PACKAGE_VERSION;

const selectionOptions = <T>(y: Argv<T>) => y
  .option('focus', { type: 'string', describe: 'Run only cases whose id, title or requirement id matches this regex' })
  .option('skip', { type: 'string', describe: 'Leave out cases whose id, title or requirement id matches this regex' })
  .option('suite', { type: 'string', array: true, describe: 'Run only these suites (repeatable)' })
  .option('level', { choices: ['MUST', 'SHOULD'] as const, describe: 'Run only cases of this level' })
  .option('gates', { type: 'string', describe: 'Feature gates the target has, where they differ from 1.37 defaults: Name=true,Other=false' });

function select(argv: { focus?: string; skip?: string; suite?: string[]; level?: 'MUST' | 'SHOULD' }): Case[] {
  const suites = (argv.suite ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  return selectCases(ALL_CASES, { focus: argv.focus, skip: argv.skip, suites, level: argv.level });
}

async function cmdRun(argv: any): Promise<number> {
  const gates = parseGates(argv.gates);
  const cases = select(argv);
  const expectations = argv.expect ? loadExpectations(argv.expect, ALL_CASES) : undefined;
  if (!Number.isInteger(argv.parallel) || argv.parallel < 1) throw new UsageError('--parallel must be a whole number of at least 1');
  if (!(argv.timeout > 0)) throw new UsageError('--timeout must be a positive number of seconds');
  if (argv.runId !== undefined && !/^[a-z0-9]{1,16}$/.test(argv.runId)) throw new UsageError('--run-id must be 1 to 16 lowercase letters or digits (it becomes part of object names)');
  const reporters = (argv.reporter?.length ? argv.reporter : ['console']).map((r: string) => createReporter(r));
  if (cases.length === 0) throw new UsageError('no case matches the selection (see `orch-conformance list` with the same options)');

  const embedded = argv.api === undefined;
  const metrics = parseMetricsTargets(argv.metrics);
  if (embedded && metrics.length) throw new UsageError('--metrics needs --api: without --api the embedded reference is the target, and its own URL serves its metrics and debug endpoints');
  const facts = parseFacts(argv);
  const factFlags = Object.values(FACTS).map((f) => f.flag).filter((flag) => argv[flag.slice(2).replace(/-([a-z])/g, (_: string, c: string) => c.toUpperCase())] !== undefined);
  if (embedded && factFlags.length) throw new UsageError(`${factFlags.join(', ')} ${factFlags.length > 1 ? 'describe' : 'describes'} a target given with --api: the embedded run configures its references so that every such fact holds`);
  const interrupt = new AbortController();
  const onSignal = () => {
    if (interrupt.signal.aborted) process.exit(EXIT.interrupted);
    process.stderr.write('\ninterrupted: stopping running cases and cleaning up (Ctrl-C again to quit at once)\n');
    interrupt.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const common = {
      expectations, reporters, interrupt: interrupt.signal, version: VERSION,
      runId: argv.runId ?? newRunId(), parallel: argv.parallel, timeoutMs: argv.timeout * 1000,
    };
    let report;
    if (embedded) {
      // Without --gates every case runs: a reference is started per gate set the cases need.
      report = await runEmbedded(cases, { ...common, gates: argv.gates ? gates : undefined });
    } else {
      const conn = { baseUrl: argv.api, token: argv.token, caPem: readCa(argv.ca), insecureSkipTlsVerify: argv.insecureSkipTlsVerify };
      await probeTarget(conn);
      // Components share the API's credentials and TLS options.
      const components = Object.fromEntries(metrics.map(([name, url]) => [name, { ...conn, baseUrl: url }]));
      for (const [name, c] of Object.entries(components)) await probeComponent(name, c);
      report = await runCases({ ...common, cases, conn, components, embedded, gates, facts });
    }
    if (report.interrupted) return EXIT.interrupted;
    const code = exitCodeFor(report);
    if (code !== 0) {
      const bad = report.cases.filter((c) => (c.status === 'failed' || c.status === 'errored') && !c.knownFailure).length;
      const surprises = report.cases.filter((c) => c.unexpectedPass).length;
      const parts = [bad && `${bad} case(s) failed or errored`, surprises && `${surprises} known failure(s) passed (update the --expect file)`, report.leaks.length && `${report.leaks.length} cleanup problem(s): objects left behind or not verifiable`].filter(Boolean);
      process.stderr.write(`orch-conformance: ${parts.join('; ')}. See the report for expected vs actual and the recorded exchanges.\n`);
    }
    return code;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
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

function cmdList(argv: any): number {
  parseGates(argv.gates);
  const cases = select(argv);
  const rows = cases.map((c) => ({
    id: c.id, title: c.title, suite: c.suite, requirements: c.requirements, spec: c.spec, level: c.level,
    gates: c.gates ?? {}, impact: c.impact, needs: c.needs, facts: c.facts ?? [],
    ...(c.needs.includes('metrics') ? { components: c.components ?? [DEFAULT_COMPONENT] } : {}),
  }));
  if (argv.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return EXIT.ok;
  }
  for (const r of rows) {
    const gates = Object.entries(r.gates).map(([k, v]) => `${k}=${v}`).join(',');
    const facts = r.facts.map((f) => FACTS[f].flag).join(' ');
    process.stdout.write(`${r.id}\n    ${r.level} ${r.spec.doc} §${r.spec.section}  ${r.impact}  ${r.requirements.join(', ')}${gates ? `  gates: ${gates}` : ''}${facts ? `  needs: ${facts}` : ''}\n    ${r.title}\n`);
  }
  process.stdout.write(`${rows.length} case(s)\n`);
  return EXIT.ok;
}

/** Every flag `serve` defines (read from its yargs builder), for /flagz. */
let serveFlagNames: string[] = [];
function recordServeFlags<T>(y: Argv<T>): Argv<T> {
  // yargs 17 has getOptions() at run time; its type declarations leave it out.
  const defined = (y as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key;
  serveFlagNames = Object.keys(defined).filter((k) => k !== 'help' && k !== 'version');
  return y;
}

/** The serve flags and their values, defaults included (unset ones empty), as /flagz shows them. */
function serveFlags(argv: any): Record<string, string> {
  const value = (v: unknown) => (v === undefined ? '' : Array.isArray(v) ? v.join(',') : String(v));
  return Object.fromEntries(serveFlagNames.map((f) => [f, value(argv[f])]));
}

/** A `serve` duration option (`30s`, `5m`, `1h`) in seconds; undefined when not given. */
function durationSeconds(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDurationMs(String(value));
  if (ms === undefined || ms <= 0) throw new UsageError(`${flag} ${String(value)}: want a positive duration such as 500ms, 30s, 5m or 1h`);
  return ms / 1000;
}

async function cmdServe(argv: any): Promise<number> {
  if (argv.storage !== 'memory') throw new UsageError(`--storage ${argv.storage}: only "memory" is available`);
  const port = Number(argv.apiPort);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--api-port must be a port number (0 picks a free one)');
  let featureGates;
  try {
    featureGates = FeatureGates.parse(argv.featureGates).all();
  } catch (err) {
    if (err instanceof FeatureGateError) throw new UsageError(`--feature-gates: ${err.message}`);
    throw err;
  }
  const continueTtl = durationSeconds(argv.continueTtl, '--continue-ttl');
  const compactionInterval = durationSeconds(argv.compactionInterval, '--compaction-interval');
  const healthFaults = argv.debugFailHealthCheck?.length ? new Map<string, string>(argv.debugFailHealthCheck.map((c: string) => [c, 'failed on purpose (serve --debug-fail-health-check)'])) : undefined;
  for (const name of healthFaults?.keys() ?? []) {
    if (!API_SERVER_CHECK_NAMES.includes(name)) throw new UsageError(`--debug-fail-health-check ${name}: no such check; checks: ${API_SERVER_CHECK_NAMES.join(', ')}`);
  }
  const bookmarkInterval = durationSeconds(argv.bookmarkInterval, '--bookmark-interval');
  let tls;
  try {
    tls = serveTls({ tlsCertFile: argv.tlsCertFile, tlsPrivateKeyFile: argv.tlsPrivateKeyFile, certDir: argv.certDir, host: argv.host });
  } catch (err) {
    if (err instanceof TlsConfigError) throw new UsageError(err.message);
    throw err;
  }
  let auth;
  try {
    auth = authFromFlags(argv);
  } catch (err) {
    if (err instanceof AuthFlagError) throw new UsageError(err.message);
    throw err;
  }
  let ref;
  try {
    ref = await startReference({ host: argv.host, port, featureGates, flags: serveFlags(argv), continueTtlSeconds: continueTtl, compactionIntervalSeconds: compactionInterval, healthFaults, bookmarkIntervalSeconds: bookmarkInterval, debugPlantCorrupt: argv.debugPlantCorrupt, tls: tls.cert, auth });
  } catch (err) {
    throw new UsageError(`cannot start the reference on ${argv.host}:${port}: ${(err as Error).message}`);
  }
  // The CA first: "api:" is the line callers wait for, and everything is known once it is out.
  if (tls.caFile) process.stdout.write(`ca: ${tls.caFile}\n`);
  process.stdout.write(`api: ${ref.url}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await ref.close();
  return EXIT.ok;
}

async function cmdReport(argv: any): Promise<number> {
  let report: RunReport;
  try {
    report = JSON.parse(readFileSync(argv.results, 'utf8'));
  } catch (err) {
    throw new UsageError(`cannot read ${argv.results}: ${(err as Error).message}`);
  }
  if (!report || !Array.isArray(report.cases) || !report.summary) throw new UsageError(`${argv.results} is not a results file written by 'run --reporter json=FILE'`);
  report.leaks ??= [];
  for (const spec of argv.reporter?.length ? argv.reporter : ['console']) await createReporter(spec).end(report);
  return exitCodeFor(report);
}

function exitWith(p: Promise<number> | number): Promise<void> {
  return Promise.resolve(p).then(
    (code) => { process.exitCode = code; },
    (err) => {
      if (err instanceof UsageError) {
        process.stderr.write(`orch-conformance: ${err.message}\n`);
        process.exitCode = EXIT.usage;
      } else if (err instanceof TargetUnreachableError) {
        process.stderr.write(`orch-conformance: ${err.message}\n`);
        process.exitCode = EXIT.unreachable;
      } else {
        process.stderr.write(`orch-conformance: internal error: ${err?.stack ?? err}\n`);
        process.exitCode = 1;
      }
    },
  );
}

await yargs(hideBin(process.argv))
  .scriptName('orch-conformance')
  .version(VERSION)
  .strict()
  .demandCommand(1, 'name a command: run, list, serve or report')
  .command('run', 'Run conformance cases against a target (the embedded reference without --api)', (y) => selectionOptions(y)
    .option('api', { type: 'string', describe: 'Control-plane base URL, e.g. https://127.0.0.1:6443' })
    .option('token', { type: 'string', describe: 'Bearer token for the target' })
    .option('ca', { type: 'string', describe: 'PEM file of the CA that signed the target\'s certificate' })
    .option('insecure-skip-tls-verify', { type: 'boolean', default: false, describe: 'Do not verify the target\'s certificate' })
    .option('metrics', { type: 'string', array: true, describe: 'A component\'s metrics and debug endpoints, name=url (repeatable), e.g. agent=https://node-1:10250; apiserver defaults to --api' })
    .option('expect', { type: 'string', describe: 'YAML or JSON file of known failures: case id to reason' })
    .option('parallel', { type: 'number', default: availableParallelism(), describe: 'Cases run at once against a target (the embedded run may start several targets)' })
    .option('timeout', { type: 'number', default: 30, describe: 'Seconds a case may take' })
    .option('run-id', { type: 'string', describe: 'Id of this run (lowercase letters and digits); objects are labelled conformance.orch.io/run=<id>' })
    .option('reporter', { type: 'string', array: true, describe: 'name[=path], repeatable: console, json, junit, markdown, html, tap' })
    .option('continue-ttl', { type: 'string', describe: 'Target fact: how long the target keeps list continue tokens valid (e.g. 5m); cases that outwait it run only when given' })
    .option('compaction-interval', { type: 'string', describe: 'Target fact: the interval at which the target compacts storage history (e.g. 5m); cases that outwait it run only when given' })
    .option('corrupt-object', { type: 'string', array: true, describe: 'Target fact: path of an object whose stored data the target cannot decode (repeatable, one per case that needs one); those cases REMOVE it with the unsafe delete' })
    .option('failing-health-check', { type: 'string', describe: 'Target fact: a health check that fails on the target, endpoint/check, e.g. readyz/etcd' })
    .epilog('Exit codes: 0 every selected case passed; 1 a case failed or errored; 2 bad usage; 3 target unreachable; 130 interrupted.'),
  (argv) => exitWith(cmdRun(argv)))
  .command('list', 'Show the cases a run would include (dry run)', (y) => selectionOptions(y)
    .option('json', { type: 'boolean', default: false, describe: 'Print JSON' }),
  (argv) => exitWith(cmdList(argv)))
  .command('serve', 'Start the reference implementation and print its endpoints', (y) => recordServeFlags(y
    .option('host', { type: 'string', default: '127.0.0.1', describe: 'Address to listen on' })
    .option('api-port', { type: 'number', default: 8080, describe: 'Port of the control-plane API (0 picks a free one)' })
    .option('storage', { type: 'string', default: 'memory', describe: 'Storage backend: memory' })
    .option('feature-gates', { type: 'string', describe: 'Gates set against their 1.37 defaults: Name=true,Other=false' })
    .option('continue-ttl', { type: 'string', describe: 'How long list continue tokens stay valid (default 5m), e.g. 2s for tests' })
    .option('compaction-interval', { type: 'string', describe: 'Storage history older than this is compacted (default 5m), e.g. 1s for tests' })
    .option('debug-fail-health-check', { type: 'string', array: true, describe: 'Test only: make this health check fail, e.g. informer-sync (repeatable)' })
    .option('bookmark-interval', { type: 'string', describe: 'Period of watch BOOKMARK events (default 1m), e.g. 1s for tests' })
    .option('debug-plant-corrupt', { type: 'string', array: true, describe: 'Test only: write undecodable bytes at this object\'s path at start (repeatable), e.g. /apis/storage.orch.io/v1/storageclasses/broken' })
    .option('tls-cert-file', { type: 'string', describe: 'Serve HTTPS with this PEM certificate (chain); needs --tls-private-key-file' })
    .option('tls-private-key-file', { type: 'string', describe: 'PEM private key of --tls-cert-file' })
    .option('token-auth-file', { type: 'string', describe: 'Authenticate bearer tokens from this CSV file: token,user,uid,"group1,group2" per line' })
    .option('authorization-mode', { type: 'string', describe: 'AlwaysAllow (default) or RBAC (stored roles and bindings; group system:masters may do anything)' })
    .option('anonymous-auth', { type: 'boolean', default: true, describe: 'Requests without a token act as system:anonymous; --no-anonymous-auth answers them 401' })
    .option('cert-dir', { type: 'string', describe: 'Serve HTTPS with apiserver.crt/apiserver.key from this directory, generating a self-signed pair (and apiserver-ca.crt, printed as "ca:") when absent' })
    .epilog('Without --tls-cert-file/--tls-private-key-file or --cert-dir the reference serves plain HTTP (as kubectl --server http://... expects).')),
  (argv) => exitWith(cmdServe(argv)))
  .command('report <results>', 'Render a saved JSON results file again', (y) => y
    .positional('results', { type: 'string', demandOption: true, describe: 'File written by run --reporter json=FILE' })
    .option('reporter', { type: 'string', array: true, describe: 'name[=path], repeatable' }),
  (argv) => exitWith(cmdReport(argv)))
  .fail((msg, err) => {
    if (err) throw err;
    process.stderr.write(`orch-conformance: ${msg}\nRun 'orch-conformance --help' for usage.\n`);
    process.exit(EXIT.usage);
  })
  .parseAsync();
