#!/usr/bin/env node
// The orch-conformance command line: run, list, serve, report, controller-manager, scheduler, mock-cri, agent. This file only defines the commands;
// each loads its implementation (bin/commands/) when it runs, so `serve` starts without the suites,
// runner and reporters, and `run` without the reference unless it embeds one.
import type { Argv } from 'yargs';
import { createRequire } from 'node:module';
import { hideBin } from 'yargs/helpers';
import { availableParallelism } from 'node:os';
import { DEFAULT_MAX_RESPONSE_BYTES, TargetAccessError, TargetUnreachableError, UsageError } from '../runner/errors.js';
import { PACKAGE_VERSION } from '../reference/package-version.js';
import { EXIT } from './commands/exit-codes.js';
import { CONTROL_PLANE_PARTS } from '../runner/controllers.js';
import { didYouMean } from '../runner/suggest.js';

// `orch-conformance list | head`: the reader went away; stop quietly, as Unix tools do.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(EXIT.ok);
  throw err;
});

const VERSION = PACKAGE_VERSION;

// yargs' CommonJS build: its ES module build lays out --help with a stand-in for wrap-ansi that cuts
// lines at the column, in the middle of words; the CommonJS one breaks them between words.
const yargs = createRequire(import.meta.url)('yargs') as typeof import('yargs').default;

const selectionOptions = <T>(y: Argv<T>) => y
  .option('id', { type: 'string', array: true, describe: 'Run exactly this case (repeatable; the case id as `list` shows it, not a pattern)' })
  .option('rerun-failed', { type: 'string', describe: 'Run again the failed and errored cases (and, with --strict, the warned ones) of this results file (run --reporter json=FILE), against its target (--api, --metrics, --agent, --node, --cri-control, --agent-exec, --gates, facts, --strict) unless given again; credentials are never in results: give them' })
  .option('focus', { type: 'string', describe: 'Run only cases whose id, title or requirement id matches this regex' })
  .option('skip', { type: 'string', describe: 'Leave out cases whose id, title or requirement id matches this regex' })
  .option('suite', { type: 'string', array: true, describe: 'Run only these suites (repeatable)' })
  // `--level must` as well as MUST: the case of a word is no reason to refuse a run.
  .option('level', { choices: ['MUST', 'SHOULD'] as const, coerce: (v: unknown) => (typeof v === 'string' ? v.toUpperCase() : v) as 'MUST' | 'SHOULD', describe: 'Run only cases of this level (any case)' })
  .option('gates', { type: 'string', describe: 'Feature gates the target has: Name=true,Other=false. Gates not given are read from each component\'s orch_feature_enabled where it reports them, else taken as the 1.37 defaults' });

const TOKEN_NOTE = 'A token given with --token is visible to every user of this machine (ps, /proc); prefer --token-file or --kubeconfig.';
const REPRO_NOTE = 'Each failed, errored or warned case comes with a reproducer: the curl command that sends its failing request again ($TOKEN for the token; the run\'s --ca, --agent-ca or -k; the body in a here-doc; a watch with curl -N and the write it should carry). The console shows the first failure\'s; markdown and html show every one; json stores it as the exchange\'s "reproducer".';
const EXIT_CODES = 'Exit codes: 0 every selected case passed; 1 a case failed or errored, objects were left behind, or --fail-on-skip or --min-coverage was not met; 2 bad usage or configuration (including credentials the target rejects, a certificate not trusted without --ca, and a run in which every selected case was skipped); 3 target unreachable; 130 interrupted (SIGINT); 143 terminated (SIGTERM).';

/** The options of `run`; `list` takes them all too, so a run's command line can be copied to it. */
const runOptions = <T>(y: Argv<T>) => selectionOptions(y)
  .option('api', { type: 'string', describe: 'Control-plane base URL with its scheme, e.g. https://127.0.0.1:6443 (wins over --kubeconfig\'s server)' })
  .option('kubeconfig', { type: 'string', describe: 'Target and credentials from this kubeconfig (server, CA, token or tokenFile, client certificate and key, insecure-skip-tls-verify); empty: the first file of $KUBECONFIG. Explicit flags win' })
  .option('context', { type: 'string', describe: 'The kubeconfig context to use (default: its current-context); alone, reads $KUBECONFIG (first file) or ~/.kube/config' })
  .option('token', { type: 'string', describe: 'Bearer token for the target (visible in ps: prefer --token-file or --kubeconfig)' })
  .option('token-file', { type: 'string', describe: 'File holding the bearer token for the target' })
  .option('ca', { type: 'string', describe: 'PEM file of the CA that signed the target\'s certificate' })
  .option('insecure-skip-tls-verify', { type: 'boolean', describe: 'Do not verify the target\'s certificate' })
  .option('max-response-bytes', { type: 'number', describe: `Largest response body (and watch event) read from the target; larger fails the case (default ${DEFAULT_MAX_RESPONSE_BYTES}, 16 MiB)` })
  .option('metrics', { type: 'string', array: true, describe: 'A component\'s metrics and debug endpoints, name=url (repeatable), e.g. --metrics controller-manager=https://cm:10257 --metrics scheduler=https://sched:10259; apiserver defaults to --api. Requests carry the --api credentials (token or client certificate): under RBAC they need get on the components\' paths (/metrics, /metrics/slis, /configz, /statusz, /flagz). Spec 002\'s rules for every component are checked on each one given (the agent\'s by the --agent cases)' })
  .option('agent', { type: 'string', describe: 'Spec 001: the HTTPS URL of a node agent under test (e.g. https://node-1:10250); needs --node. Agent cases are skipped without it' })
  .option('node', { type: 'string', describe: 'Spec 001: the name of the Node the agent under test registered' })
  .option('agent-ca', { type: 'string', describe: 'PEM file of the CA that signed the agent\'s serving certificate; without it the agent\'s certificate is not verified (as upstream\'s API server does without --kubelet-certificate-authority)' })
  .option('cri-control', { type: 'string', describe: 'Spec 001: the control socket of the `orch-conformance mock-cri` runtime the agent under test uses (fault injection and call log)' })
  .option('agent-exec', { type: 'string', describe: 'Spec 001: shell command that starts an agent of the implementation under test; the run appends spec flags (--root-dir, --container-runtime-endpoint, --hostname-override, --address, --port, --kubeconfig, ...; see README)' })
  .option('agent-pod-socket', { type: 'string', describe: 'Spec 001 §4.2: the pod info gRPC socket of the agent under test, on this machine (e.g. /var/lib/agent/pods/agent.sock; owner-only, so run as its owner); needs --agent. Pod info cases are skipped without it' })
  .option('expect', { type: 'string', describe: 'YAML or JSON file of known failures: case id to reason' })
  .option('parallel', { type: 'number', default: availableParallelism(), describe: 'Cases run at once against a target (the embedded run may start several targets)' })
  .option('timeout', { type: 'number', default: 30, describe: 'Seconds a case may take' })
  // No default: --rerun-failed takes its file's --strict unless the flag is given (false or true).
  .option('strict', { type: 'boolean', describe: 'A failed SHOULD case (upstream behaviour, a recommendation) fails the run, without it a warning; so does a case that passed only on a retry (default false)' })
  .option('retries', { type: 'number', describe: 'Run a failed or errored case again up to this many times; one that then passes is reported flaky (it passes the run unless --strict), with every attempt\'s evidence (default 0)' })
  .option('fail-on-skip', { type: 'boolean', default: false, describe: 'Any skipped selected case fails the run (exit 1), listed by reason' })
  .option('min-coverage', { type: 'number', describe: 'Least share (percent, 0-100) of the selected requirements the run must check; below it the run fails (exit 1)' })
  .option('progress-interval', { type: 'number', default: 30, describe: 'Off a terminal (CI logs), print a progress line every this many seconds: counts and the slowest running cases; 0: none' })
  .option('run-id', { type: 'string', describe: 'Id of this run (lowercase letters and digits); objects are labelled conformance.orch.io/run=<id>' })
  .option('label', { type: 'string', describe: 'A name for this run, kept in its results (e.g. "acme-orch 2.3"): its column heading in `report matrix`' })
  .option('reporter', { type: 'string', array: true, describe: 'name[=path], repeatable: console, json, junit, markdown, html, tap' })
  .option('differential', { type: 'boolean', describe: 'With --api: run every failed or warned case again against the embedded reference (same gates and facts) and show, per case, the first exchange whose answer differs: status, reason and causes, and the fields added, missing or changed (resourceVersion, uid, times, generated names and list order ignored). Verdicts stay the target\'s' })
  .option('bundle', { type: 'string', describe: 'Also write an evidence bundle, an owner-only .tgz: the JSON results (every recorded exchange), Markdown, HTML and JUnit reports, the selection, the kit version and a digest of its suites, the target\'s fingerprint (/version, serving certificate SHA-256, discovery digest, agent /healthz and version), start and end times, host name, the command line (secrets redacted) and a manifest of SHA-256 digests; sign it with `bundle sign`' })
  .option('shard', { type: 'string', describe: 'Run only slice i of n of the selection, e.g. 2/4: the same slices on every machine; merge their JSON results with `report merge`' })
  .option('shard-timings', { type: 'string', describe: 'With --shard: balance the slices by the durations the cases took in this JSON results file (else by a stable hash of the case ids)' })
  .option('continue-ttl', { type: 'string', describe: 'Target fact: how long the target keeps list continue tokens valid (e.g. 5m); cases that outwait it run only when given' })
  .option('compaction-interval', { type: 'string', describe: 'Target fact: the interval at which the target compacts storage history (e.g. 5m); cases that outwait it run only when given' })
  .option('corrupt-object', { type: 'string', array: true, describe: 'Target fact: path of an object whose stored data the target cannot decode (repeatable, one per case that needs one); those cases REMOVE it with the unsafe delete' })
  .option('failing-health-check', { type: 'string', describe: 'Target fact: a health check that fails on the target, endpoint/check, e.g. readyz/etcd' })
  .option('node-monitor-grace-period', { type: 'string', describe: 'Target fact: the controller manager\'s node-monitor-grace-period (e.g. 40s); node lifecycle cases that outwait it run only when given' })
  .option('verbose', { type: 'boolean', default: false, describe: 'Embedded reference only: its components\' log (one line per event) on standard error; without it they log nothing' })
  .option('controllers', { type: 'string', describe: `The controllers and scheduler the target's control plane runs, comma-separated (${CONTROL_PLANE_PARTS.join(', ')}), or all (default) or none; cases needing others are skipped` });


/** Every flag `serve` defines (read from its yargs builder), for /flagz. */
let serveFlagNames: string[] = [];
function recordServeFlags<T>(y: Argv<T>): Argv<T> {
  // yargs 17 has getOptions() at run time; its type declarations leave it out.
  const defined = (y as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key;
  serveFlagNames = Object.keys(defined).filter((k) => k !== 'help' && k !== 'version');
  return recordBuilt(y);
}

/** The serve flags and their values, defaults included (unset ones empty), as /flagz shows them. */
function serveFlags(argv: any): Record<string, string> {
  return flagValues(argv, serveFlagNames);
}

function flagValues(argv: any, names: readonly string[]): Record<string, string> {
  const value = (v: unknown) => (v === undefined ? '' : Array.isArray(v) ? v.join(',') : String(v));
  return Object.fromEntries(names.map((f) => [f, value(argv[f])]));
}

/** The flags a component's own command defines (read from its yargs builder), for its /flagz. */
const componentFlagNames = new Map<string, string[]>();
function recordFlags<T>(command: string, y: Argv<T>): Argv<T> {
  const defined = (y as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key;
  // The token is a secret: /flagz shows that it was given, never its value (flagz redacts by name too).
  componentFlagNames.set(command, Object.keys(defined).filter((k) => k !== 'help' && k !== 'version' && /^[a-z]/.test(k) && !k.includes('_') && !/[A-Z]/.test(k)));
  return recordBuilt(y);
}

/** Options shared by the components that are clients of an API server. */
function apiClientOptions<T>(y: Argv<T>) {
  return y
    .option('kubeconfig', { type: 'string', describe: 'API server and credentials from this kubeconfig' })
    .option('api', { type: 'string', describe: 'API server base URL, e.g. https://127.0.0.1:6443 (wins over --kubeconfig\'s server)' })
    .option('token', { type: 'string', describe: 'Bearer token (visible in ps: prefer --token-file)' })
    .option('token-file', { type: 'string', describe: 'File holding the bearer token' })
    .option('ca', { type: 'string', describe: 'PEM file of the CA that signed the API server\'s certificate' })
    .option('bind-address', { type: 'string', default: '127.0.0.1', describe: 'Address the HTTPS endpoints listen on' })
    .option('feature-gates', { type: 'string', describe: 'Gates set against their 1.37 defaults: Name=true,Other=false' });
}


/** The flags of the command being parsed: yargs runs only that command's builder, which records them. */
let builtFlags: string[] = [];
function recordBuilt<T>(y: Argv<T>): Argv<T> {
  const defined = (y as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key;
  builtFlags = Object.keys(defined).filter((k) => /^[a-z][a-z0-9-]*$/.test(k));
  return y;
}

/** "Did you mean" for yargs' "Unknown argument(s): a, b": the nearest flags of the command given. */
function unknownFlagHints(msg: string): string {
  const m = /^Unknown arguments?: (.+)$/.exec(msg);
  if (!m) return '';
  return m[1]!.split(', ').map((arg) => {
    const hint = didYouMean(arg.replace(/^-+/, '').replace(/=.*$/, ''), builtFlags, (k) => `--${k}`);
    return hint ? `\n  ${arg}:${hint.replace(/^ \((.*)\)$/, ' $1')}` : '';
  }).join('');
}

function exitWith(p: Promise<number> | number): Promise<void> {
  return Promise.resolve(p).then(
    (code) => { process.exitCode = code; },
    (err) => {
      if (err instanceof UsageError || err instanceof TargetAccessError) {
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
  // --help fills the terminal's width (yargs would stop at 80 columns, cutting words); piped or
  // redirected, lines are not wrapped at all, for the reader's own tools to wrap.
  .wrap(process.stdout.isTTY ? process.stdout.columns || 80 : null)
  .strict()
  .demandCommand(1, 'name a command: run, list, serve, report, bundle, cleanup, controller-manager, scheduler, mock-cri, agent or nodes')
  .command('run', 'Run conformance cases against a target (the embedded reference without --api or --kubeconfig)', (y) => recordBuilt(runOptions(y))
    .epilog(`${TOKEN_NOTE}\n\n${REPRO_NOTE}\n\n${EXIT_CODES}`),
  (argv) => exitWith(import('./commands/run.js').then((m) => m.cmdRun(argv, VERSION))))
  .command('list', 'Show the cases a run would include (dry run); takes every option of run', (y) => recordBuilt(runOptions(y)
    .option('json', { type: 'boolean', default: false, describe: 'Print JSON' })),
  (argv) => exitWith(import('./commands/run.js').then((m) => m.cmdList(argv))))
  .command('serve', 'Start the reference implementation and print its endpoints', (y) => recordServeFlags(y
    .option('host', { type: 'string', default: '127.0.0.1', describe: 'Address to listen on' })
    .option('api-port', { type: 'number', default: 8080, describe: 'Port of the control-plane API (0 picks a free one)' })
    .option('storage', { type: 'string', default: 'memory', describe: 'Storage backend: memory (this process only) or etcd (--etcd-servers)' })
    .option('etcd-servers', { type: 'string', describe: 'With --storage etcd: client URLs of the etcd cluster, comma-separated, e.g. http://127.0.0.1:2379' })
    .option('etcd-prefix', { type: 'string', default: '/registry', describe: 'With --storage etcd: the prefix of every key in etcd' })
    .option('etcd-cafile', { type: 'string', describe: 'With --storage etcd: PEM CA that signed the etcd servers\' certificates' })
    .option('etcd-certfile', { type: 'string', describe: 'With --storage etcd: PEM client certificate for etcd (with --etcd-keyfile)' })
    .option('etcd-keyfile', { type: 'string', describe: 'With --storage etcd: PEM private key of --etcd-certfile' })
    .option('etcd-request-timeout', { type: 'string', describe: 'With --storage etcd: deadline of each storage call (default 5s); a request to a hung etcd is answered 504 Timeout once it passes' })
    .option('feature-gates', { type: 'string', describe: 'Gates set against their 1.37 defaults: Name=true,Other=false' })
    .option('continue-ttl', { type: 'string', describe: 'How long list continue tokens stay valid (default 5m), e.g. 2s for tests' })
    .option('compaction-interval', { type: 'string', describe: 'Storage history older than this is compacted (default 5m), e.g. 1s for tests' })
    .option('debug-fail-health-check', { type: 'string', array: true, describe: 'Test only: make this health check fail, e.g. informer-sync (repeatable)' })
    .option('bookmark-interval', { type: 'string', describe: 'Period of watch BOOKMARK events (default 1m), e.g. 1s for tests' })
    .option('max-watch-pending-bytes', { type: 'string', describe: 'Bytes of events all watches together may hold for clients that read slowly (default 256Mi); past it the slowest watches are closed' })
    .option('debug-plant-corrupt', { type: 'string', array: true, describe: 'Test only: write undecodable bytes at this object\'s path at start (repeatable), e.g. /apis/storage.orch.io/v1/storageclasses/broken' })
    .option('tls-cert-file', { type: 'string', describe: 'Serve HTTPS with this PEM certificate (chain); needs --tls-private-key-file' })
    .option('tls-private-key-file', { type: 'string', describe: 'PEM private key of --tls-cert-file' })
    .option('token-auth-file', { type: 'string', describe: 'Authenticate bearer tokens from this CSV file: token,user,uid,"group1,group2" per line' })
    .option('authorization-mode', { type: 'string', describe: 'AlwaysAllow (default) or RBAC (stored roles and bindings; group system:masters may do anything)' })
    .option('anonymous-auth', { type: 'boolean', default: true, describe: 'Requests without a token act as system:anonymous; --no-anonymous-auth answers them 401' })
    .option('default-not-ready-toleration-seconds', { type: 'number', default: 300, describe: 'tolerationSeconds of the node.orch.io/not-ready:NoExecute toleration added to every pod that has none (DefaultTolerationSeconds admission)' })
    .option('default-unreachable-toleration-seconds', { type: 'number', default: 300, describe: 'tolerationSeconds of the node.orch.io/unreachable:NoExecute toleration added to every pod that has none (DefaultTolerationSeconds admission)' })
    .option('cert-dir', { type: 'string', describe: 'Serve HTTPS with apiserver.crt/apiserver.key from this directory, generating a self-signed pair (and apiserver-ca.crt, printed as "ca:") when absent; kept after exit' })
    .option('plain-http', { type: 'boolean', default: false, describe: 'Serve plain HTTP instead, for quick local use (not with the TLS flags)' })
    .option('agent-client-certificate', { type: 'string', describe: 'Node proxy: PEM client certificate presented to agents (upstream --kubelet-client-certificate; needs --agent-client-key). Default: one generated with its own CA, written next to the serving pair and printed as "agent-client-ca:" for agent --client-ca-file' })
    .option('agent-client-key', { type: 'string', describe: 'Node proxy: PEM private key of --agent-client-certificate (upstream --kubelet-client-key)' })
    .option('agent-certificate-authority', { type: 'string', describe: 'Node proxy: PEM CA the agents\' serving certificates must chain to (upstream --kubelet-certificate-authority); without it they are not verified' })
    .option('node-proxy-allow-loopback', { type: 'boolean', default: false, describe: 'Node proxy: reach nodes whose address is loopback (127.0.0.0/8, ::1) or unspecified (0.0.0.0, ::), for single-machine set-ups; link-local addresses and the API server\'s own address stay refused' })
    .option('controllers', { type: 'string', default: '*', describe: 'Controllers the in-process controller manager runs, upstream syntax: * (the default set), name, -name; comma-separated; "" for no controller manager' })
    .option('scheduler', { type: 'boolean', default: true, describe: 'Run the scheduler in-process; --no-scheduler leaves pods for another scheduler' })
    .option('controller-manager-port', { type: 'number', describe: 'HTTPS port of the controller manager\'s endpoints (default 10257; a free one when --api-port is 0 or 10257 is taken)' })
    .option('scheduler-port', { type: 'number', describe: 'HTTPS port of the scheduler\'s endpoints (default 10259; a free one when --api-port is 0 or 10259 is taken)' })
    .option('kubeconfig-out', { type: 'string', describe: 'Write the admin kubeconfig (API URL, CA, an administrator token valid while serve runs) to this file, mode 0600, kept after exit; default: serve\'s private directory, removed at exit. Printed as "kubeconfig: <file>"' })
    .option('node-monitor-grace-period', { type: 'string', default: '50s', describe: 'Controller manager: silence after which a node\'s Ready condition becomes Unknown' })
    .option('node-monitor-period', { type: 'string', default: '5s', describe: 'Controller manager: how often node health is checked' })
    .epilog('Serves HTTPS, as spec 002 §1 wants: without --tls-cert-file/--tls-private-key-file or --cert-dir, a self-signed CA and serving certificate are generated into a fresh private directory, removed when serve exits; it prints "ca: <file>", "kubeconfig: <file>" (an admin kubeconfig for kubectl --kubeconfig and run --kubeconfig) and last "api: https://...". --plain-http serves plain HTTP. Exit codes: 0 stopped by SIGINT or SIGTERM; 2 bad usage or cannot start (port in use).')),
  (argv) => exitWith(import('./commands/serve.js').then((m) => m.cmdServe(argv, serveFlags(argv)))))
  .command('controller-manager', 'Start the reference controller manager as a client of an API server (any implementation\'s)', (y) => recordFlags('controller-manager', apiClientOptions(y)
    .option('secure-port', { type: 'number', default: 10257, describe: 'HTTPS port of its spec 002 endpoints (0 picks a free one)' })
    .option('controllers', { type: 'string', default: '*', describe: 'Controllers to run, upstream syntax: * (the default set), name, -name; comma-separated' })
    .option('node-monitor-grace-period', { type: 'string', default: '50s', describe: 'Silence after which a node\'s Ready condition becomes Unknown' })
    .option('node-monitor-period', { type: 'string', default: '5s', describe: 'How often node health is checked' })
    .epilog('Prints "controller-manager: https://..." once its informers have synced; runs until SIGINT or SIGTERM. Callers of its endpoints but /healthz, /livez and /readyz are authenticated (TokenReview) and authorized (SubjectAccessReview, verb and path) by the API server, with its own credentials, which need create on tokenreviews and subjectaccessreviews. Exit codes: 0 stopped by a signal; 2 bad usage or cannot start.')),
  (argv) => exitWith(import('./commands/components.js').then((m) => m.cmdControllerManager(argv, flagValues(argv, componentFlagNames.get('controller-manager') ?? [])))))
  .command('scheduler', 'Start the reference scheduler as a client of an API server (any implementation\'s)', (y) => recordFlags('scheduler', apiClientOptions(y)
    .option('secure-port', { type: 'number', default: 10259, describe: 'HTTPS port of its spec 002 endpoints (0 picks a free one)' })
    .epilog('Prints "scheduler: https://..." once its informers have synced; binds pending pods of schedulerName default-scheduler until SIGINT or SIGTERM. Callers of its endpoints but /healthz, /livez and /readyz are authenticated (TokenReview) and authorized (SubjectAccessReview, verb and path) by the API server, with its own credentials, which need create on tokenreviews and subjectaccessreviews. Exit codes: 0 stopped by a signal; 2 bad usage or cannot start.')),
  (argv) => exitWith(import('./commands/components.js').then((m) => m.cmdScheduler(argv, flagValues(argv, componentFlagNames.get('scheduler') ?? [])))))
  .command('mock-cri', 'Start the mock CRI runtime (runtime.v1 over gRPC on a unix socket) that suites control', (y) => y
    .option('socket', { type: 'string', demandOption: true, describe: 'Unix socket for the CRI RuntimeService and ImageService (created 0600 in a 0700 directory)' })
    .option('control', { type: 'string', describe: 'Unix socket for the control API (HTTP+JSON: faults, container events, call log, reset)' })
    .option('root', { type: 'string', describe: 'State directory (default: a fresh private temporary directory)' })
    .option('seccomp-dir', { type: 'string', describe: 'Where Localhost seccomp profiles must be (default <root>/seccomp)' })
    .option('images', { type: 'string', array: true, describe: 'Images present at start and pullable, besides the default set: ref[,tag=ref2][,digest=sha256:...][,user=1002][,size=bytes],ref3,... (repeatable)' })
    .option('images-file', { type: 'string', describe: 'YAML or JSON file: a list of image declarations {tags, digests, user, size}, declared as with --images' })
    .epilog('Prints "cri: unix://<socket>" and, with --control, "control: <path>" once ready; runs until SIGINT or SIGTERM and removes its sockets. Exit codes: 0 stopped by a signal; 2 bad usage or cannot start.'),
  (argv) => exitWith(import('./commands/mock-cri.js').then((m) => m.cmdMockCri(argv as any))))
  .command('agent', 'Start the reference node agent: registers its Node and runs the pods bound to it through a CRI runtime', (y) => y
    .option('kubeconfig', { type: 'string', describe: 'Control plane and credentials from this kubeconfig (without it and --api: standalone mode, no API calls)' })
    .option('api', { type: 'string', describe: 'Control-plane base URL, e.g. https://127.0.0.1:6443 (wins over --kubeconfig\'s server)' })
    .option('token', { type: 'string', describe: 'Bearer token for the control plane (visible in ps: prefer --token-file)' })
    .option('token-file', { type: 'string', describe: 'File holding the bearer token' })
    .option('ca', { type: 'string', describe: 'PEM file of the CA that signed the control plane\'s certificate' })
    .option('container-runtime-endpoint', { type: 'string', describe: 'CRI runtime socket, unix:///path (here or as containerRuntimeEndpoint in --config)' })
    .option('image-service-endpoint', { type: 'string', describe: 'CRI image service socket (default: the runtime endpoint)' })
    .option('root-dir', { type: 'string', default: '/var/lib/agent', describe: 'Directory for the agent\'s files (pod logs under <root>/pods)' })
    .option('hostname-override', { type: 'string', describe: 'The HostName address and default node name, instead of the kernel\'s host name' })
    .option('node-name', { type: 'string', describe: 'Name of the Node to register (default: the host name, lowercased)' })
    .option('node-ip', { type: 'string', describe: 'The InternalIP the Node publishes, where the API server\'s node proxy reaches the agent (default: the first non-internal IPv4 address; loopback allowed)' })
    .option('checkpoint-default-timeout', { type: 'number', describe: 'Seconds a checkpoint asks the runtime to wait when the request gives no timeout or 0 (default 0: the runtime\'s own default, as upstream)' })
    .option('port', { type: 'number', describe: 'HTTPS port of the agent\'s endpoints: /healthz, /pods, /configz and the spec 002 debug endpoints (default 10250, or port in --config; 0 picks a free one)' })
    .option('address', { type: 'string', describe: 'Address the endpoints listen on (default 0.0.0.0, or address in --config)' })
    .option('feature-gates', { type: 'string', describe: 'Gates set against their 1.37 defaults: Name=true,Other=false (over featureGates in --config)' })
    .option('config', { type: 'string', describe: 'AgentConfiguration file (agent.config.orch.io/v1beta1, YAML or JSON, decoded strictly); flags win over it' })
    .option('config-dir', { type: 'string', describe: 'Drop-in directory: its *.conf files, in lexical order, merged over --config (spec 001 §5.1)' })
    .option('cert-dir', { type: 'string', describe: 'Serving certificate and key of the endpoints, generated when absent (default <root-dir>/pki)' })
    .option('lock-file', { type: 'string', describe: 'Take an exclusive OS lock on this file first; another agent holding it is a usage error' })
    .option('anonymous-auth', { type: 'boolean', describe: 'Requests without credentials act as system:anonymous (authentication.anonymous.enabled; default false)' })
    .option('authentication-token-webhook', { type: 'boolean', describe: 'Check bearer tokens with a TokenReview on the control plane (authentication.webhook.enabled; default true)' })
    .option('client-ca-file', { type: 'string', describe: 'PEM CA bundle client certificates are verified against; user = CN, groups = O (authentication.x509.clientCAFile)' })
    .option('authorization-mode', { type: 'string', describe: 'AlwaysAllow, or Webhook: each request authorized with a SubjectAccessReview on the control plane (authorization.mode; default Webhook)' })
    .epilog('Prints "node: <name>" once its Node is registered (standalone: at once), then "agent: https://..." and, when it generated the certificate, "ca: <file>"; runs until SIGINT or SIGTERM, stopping its workers and leaving containers running, as upstream does across restarts. Exit codes: 0 stopped by a signal; 2 bad usage or cannot start.'),
  (argv) => exitWith(import('./commands/agent.js').then((m) => m.cmdAgent(argv as any))))
  .command('nodes', 'Start n hollow nodes in one process: the reference agent\'s own code per node (Node status, Lease, pod workers, PLEG, status manager, events) on one in-process mock runtime, against any API server', (y) => recordBuilt(y
    .option('count', { type: 'number', demandOption: true, describe: 'How many nodes' })
    .option('api', { type: 'string', describe: 'API server base URL, e.g. https://127.0.0.1:6443 (wins over --kubeconfig\'s server)' })
    .option('kubeconfig', { type: 'string', describe: 'API server and credentials from this kubeconfig; explicit flags win' })
    .option('token', { type: 'string', describe: 'Bearer token (visible in ps: prefer --kubeconfig)' })
    .option('ca', { type: 'string', describe: 'PEM file of the CA that signed the API server\'s certificate' })
    .option('insecure-skip-tls-verify', { type: 'boolean', describe: 'Do not verify the API server\'s certificate' })
    .option('name-prefix', { type: 'string', default: 'hollow-', describe: 'Nodes are named <prefix><i>, i = 0..count-1' })
    .option('pods-per-node', { type: 'number', default: 110, describe: 'Each Node\'s pods capacity (maxPods)' })
    .option('heartbeat', { type: 'string', default: '10s', describe: 'Lease renewal interval (Go duration); the lease duration is 40s or four intervals if longer' })
    .option('node-status-interval', { type: 'string', default: '10s', describe: 'How often each node computes its status (written when it changed, else every 5m)' })
    .option('label', { type: 'string', array: true, describe: 'k=v: a label on every Node (repeatable), besides orch-conformance.io/hollow=true' })
    .option('keep', { type: 'boolean', default: false, describe: 'At stop, leave the Nodes and Leases in place (default: delete them, only the ones this process registered)' })
    .example('$0 nodes --count 100 --kubeconfig admin.kubeconfig --heartbeat 10s', '')
    .epilog('Prints "ready: <n> nodes" on stdout once every Node is registered, Ready and has its Lease; progress and errors go to stderr. On SIGINT or SIGTERM it stops every agent, deletes its Nodes and Leases (unless --keep) and prints "stopped: <n> nodes deleted" (or "kept"). Per node there is no HTTPS port, pod info socket or watchdog: agent cases that need those need a full `agent`. Exit codes: 0 stopped by a signal; 2 bad usage or cannot start.')),
  (argv) => exitWith(import('./commands/nodes.js').then((m) => m.cmdNodes(argv as any))))
  .command('cleanup', 'Remove from a target every object a run labelled (conformance.orch.io/run=<id>) and left behind, e.g. after a second Ctrl-C', (y) => y
    .option('run-id', { type: 'string', describe: 'The run whose objects to remove (the id its report and its interrupted message name)' })
    .option('all-runs', { type: 'boolean', describe: 'Remove the objects of every conformance run (any value of the label)' })
    .option('api', { type: 'string', describe: 'Control-plane base URL with its scheme (wins over --kubeconfig\'s server)' })
    .option('kubeconfig', { type: 'string', describe: 'Target and credentials from this kubeconfig; explicit flags win' })
    .option('context', { type: 'string', describe: 'The kubeconfig context to use' })
    .option('token', { type: 'string', describe: 'Bearer token for the target (visible in ps: prefer --token-file or --kubeconfig)' })
    .option('token-file', { type: 'string', describe: 'File holding the bearer token for the target' })
    .option('ca', { type: 'string', describe: 'PEM file of the CA that signed the target\'s certificate' })
    .option('insecure-skip-tls-verify', { type: 'boolean', describe: 'Do not verify the target\'s certificate' })
    .option('max-response-bytes', { type: 'number', describe: `Largest response body read from the target (default ${DEFAULT_MAX_RESPONSE_BYTES})` })
    .option('wait', { type: 'number', default: 60, describe: 'Seconds to wait for deleted objects to be gone (finalizers, namespaces emptying)' })
    .epilog('Searches every resource the target\'s discovery lists (namespaced and cluster-scoped) for the label, deletes what carries it (namespaces last), releases the run\'s own finalizers (conformance.orch.io/...), then checks that nothing labelled is left. Objects without the label are never touched. Exit codes: 0 nothing labelled is left; 1 objects are still there after --wait; 2 bad usage or credentials the target rejects; 3 target unreachable.'),
  (argv) => exitWith(import('./commands/cleanup.js').then((m) => m.cmdCleanup(argv))))
  .command('bundle', 'Sign or verify an evidence bundle written by run --bundle <file>.tgz', (y) => y
    .command('sign <file>', 'Add a detached Ed25519 signature over the bundle\'s manifest of SHA-256 digests (signature.json, inside the archive)', (b) => b
      .positional('file', { type: 'string', demandOption: true, describe: 'Bundle written by run --bundle' })
      .option('key', { type: 'string', demandOption: true, describe: 'PEM file of the Ed25519 private key (openssl genpkey -algorithm ed25519 -out key.pem)' })
      .epilog('A bundle whose files no longer match its manifest is not signed. Exit codes: 0 signed; 1 the bundle does not match its manifest or is not a bundle; 2 bad usage or an unreadable or non-Ed25519 key.'),
    (argv) => exitWith(import('./commands/bundle.js').then((m) => m.cmdBundleSign(argv as any))))
    .command('verify <file>', 'Check every file of a bundle against its manifest and, with --key, the signature; offline. Prints the verdict, the selection and the coverage of its run', (b) => b
      .positional('file', { type: 'string', demandOption: true, describe: 'Bundle written by run --bundle (signed or not)' })
      .option('key', { type: 'string', describe: 'PEM file of the signer\'s Ed25519 public key (openssl pkey -in key.pem -pubout -out key.pub); with it an unsigned bundle or a signature by another key fails' })
      .epilog('Exit codes: 0 verified; 1 a file changed, is missing or was added (named), the signature does not verify, or the archive is unreadable; 2 bad usage or an unreadable or non-Ed25519 key.'),
    (argv) => exitWith(import('./commands/bundle.js').then((m) => m.cmdBundleVerify(argv as any))))
    .demandCommand(1, 'name a bundle command: sign or verify'))
  .command('report', 'Render a saved JSON results file again (report <results>), merge shards (report merge), compare two runs (report diff) or lay several side by side (report matrix)', (y) => y
    .command('merge <files..>', 'Merge the JSON results of a sharded run (run --shard i/n) into one report: every shard once, same kit version and selection', (m) => m
      .positional('files', { type: 'string', array: true, demandOption: true, describe: 'Results files of the shards, written by run --shard i/n --reporter json=FILE' })
      .option('reporter', { type: 'string', array: true, describe: 'name[=path], repeatable: console, json, junit, markdown, html, tap' })
      .epilog('Exit codes: as the merged run\'s (0 passed, 1 a case failed or errored, or objects were left behind); 2 the files cannot be merged (different versions or selections, a shard missing or given twice, overlapping shards).'),
    (argv) => exitWith(import('./commands/report.js').then((m) => m.cmdReportMerge(argv))))
    .command('diff <base> <head>', 'Compare two runs\' JSON results: regressions (passed -> failed or errored), fixes, other changes, new and removed cases, requirements whose result changed', (d) => d
      .positional('base', { type: 'string', demandOption: true, describe: 'Results of the run compared against (e.g. the main branch)' })
      .positional('head', { type: 'string', demandOption: true, describe: 'Results of the run under review' })
      .option('reporter', { type: 'string', array: true, describe: 'name[=path], repeatable: console, markdown (fits a pull-request comment), json' })
      .epilog('Exit codes: 0 no regression; 1 a case that passed in base failed or errored in head; 2 bad usage or unreadable files.'),
    (argv) => exitWith(import('./commands/report.js').then((m) => m.cmdReportDiff(argv))))
    .command('matrix <files..>', 'Several runs side by side (implementations, or versions of one), wpt.fyi style: spec sections expandable to requirements, a column per run, pass/fail/warn/skip/not-covered counts linking to the evidence, each run\'s share of MUST requirements passed and the interop share (requirements every run passes)', (x) => x
      .positional('files', { type: 'string', array: true, demandOption: true, describe: 'Results files of the runs (run --label <name> --reporter json=FILE), two or more; a column each, in this order' })
      .option('reporter', { type: 'string', array: true, describe: 'name[=path], repeatable: console, html (no script; sections open with <details>), markdown, json' })
      .example('$0 report matrix ref.json acme.json --reporter html=matrix.html --reporter markdown=matrix.md', '')
      .epilog('A column is headed by the run\'s --label (else its file name), its target (API URL, agent and node) and kit version. Runs made by different kit versions are compared only on the cases every run ran, and marked. Exit codes: 0 written; 2 bad usage or unreadable files.'),
    (argv) => exitWith(import('./commands/report.js').then((m) => m.cmdReportMatrix(argv))))
    .command('$0 <results>', 'Render a saved JSON results file again', (r) => r
      .positional('results', { type: 'string', demandOption: true, describe: 'File written by run --reporter json=FILE' })
      .option('reporter', { type: 'string', array: true, describe: 'name[=path], repeatable' })
      .option('differential', { type: 'boolean', describe: 'Run the file\'s failed and warned cases against the embedded reference (started here) and show where each answer differs from the target\'s recorded one (as run --differential)' }),
    (argv) => exitWith(import('./commands/report.js').then((m) => m.cmdReport(argv, VERSION)))))
  .recommendCommands()
  .fail((msg, err) => {
    if (err) throw err;
    process.stderr.write(`orch-conformance: ${msg}${unknownFlagHints(msg)}\nRun 'orch-conformance --help' for usage.\n`);
    process.exit(EXIT.usage);
  })
  .parseAsync();
