// `serve`: the reference implementation, HTTPS by default, until SIGINT or SIGTERM.
import { startReference } from '../../reference/server.js';
import { parseDurationMs } from '../../reference/duration.js';
import { FeatureGates, FeatureGateError } from '../../reference/features.js';
import { apiServerHealthChecks } from '../../reference/apiserver/debug-endpoints.js';
import { serveTls, TlsConfigError } from '../../reference/tls.js';
import { agentClientFromFlags } from './agent-client-flags.js';
import { authFromFlags, AuthFlagError } from '../../reference/apiserver/auth/serve-flags.js';
import { UsageError } from '../../runner/errors.js';
import { EXIT } from './exit-codes.js';
import { controllerList, controllerSettings, portOf } from './components.js';
import { storageFromFlags } from './storage-flags.js';
import { adminToken, kubeconfigYaml, writeKubeconfig } from './serve-kubeconfig.js';
import { createServer } from 'node:net';

/** The API server's health check names on either storage (the checks themselves are never run here). */
const API_SERVER_CHECK_NAMES = [...new Set([{}, { backend: 'etcd' }].flatMap((storage) => Object.values(apiServerHealthChecks({
  storage: storage as never, registered: () => true, controllersStarted: () => true, shuttingDown: () => false,
})).flat().map((c) => c.name)))];

/** A `serve` duration option (`30s`, `5m`, `1h`) in seconds; undefined when not given. */
function durationSeconds(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDurationMs(String(value));
  if (ms === undefined || ms <= 0) throw new UsageError(`${flag} ${String(value)}: want a positive duration such as 500ms, 30s, 5m or 1h`);
  return ms / 1000;
}

/** A whole-number flag (upstream int64: negative values are allowed); undefined when not given. */
function int64Flag(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  // yargs has already turned a non-number into NaN: name the flag, not the value.
  if (!Number.isSafeInteger(n)) throw new UsageError(`${flag} must be a whole number of seconds`);
  return n;
}

/** A positive byte count, plain or with a binary suffix (`512Ki`, `256Mi`, `1Gi`); undefined when not given. */
function byteSize(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const m = /^([0-9]+)(Ki|Mi|Gi)?$/.exec(String(value));
  const n = m ? Number(m[1]) * (m[2] ? 1024 ** (['Ki', 'Mi', 'Gi'].indexOf(m[2]) + 1) : 1) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`${flag} ${String(value)}: want a positive number of bytes such as 1048576, 512Ki, 256Mi or 1Gi`);
  return n;
}

/** Whether nothing listens on host:port now (a companion's upstream port, before it is taken). */
function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

/** A port the reference listens on, the flag that sets it, and whether the user left it to serve. */
interface Listener { port: number; readonly flag: string; readonly defaulted: boolean }

/**
 * Why the reference could not listen, in words rather than the system's error code, naming the port
 * the system refused (the error's own) and the flag that sets it.
 */
function startFailure(err: NodeJS.ErrnoException & { port?: number; address?: string }, host: string, listeners: readonly Listener[]): string {
  const at = listeners.find((l) => l.port !== 0 && l.port === err.port);
  // A port refused: that port and its flag; anything else: the address the API server was to listen on.
  const where = at ? `${err.address ?? host}:${at.port} (${at.flag})` : `${host}:${listeners[0]!.port}`;
  const flag = at?.flag ?? '--api-port';
  switch (err.code) {
    case 'EADDRINUSE': return `${where}: port in use: another process listens there; stop it or pick another ${flag} (0 picks a free one)`;
    case 'EACCES': return `${where}: permission denied: ports below 1024 need privileges; pick another ${flag}`;
    case 'EADDRNOTAVAIL': return `${where}: this machine has no such address: check --host`;
    case 'ENOTFOUND': return `${where}: no such host name: check --host`;
    default: return `${where}: ${err.message}`;
  }
}

/** `flags`: every serve flag and its value, for /flagz. */
export async function cmdServe(argv: any, flags: Record<string, string>): Promise<number> {
  const storage = storageFromFlags(argv);
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
  const maxWatchPendingBytes = byteSize(argv.maxWatchPendingBytes, '--max-watch-pending-bytes');
  const defaultNotReadyTolerationSeconds = int64Flag(argv.defaultNotReadyTolerationSeconds, '--default-not-ready-toleration-seconds');
  const defaultUnreachableTolerationSeconds = int64Flag(argv.defaultUnreachableTolerationSeconds, '--default-unreachable-toleration-seconds');
  let auth;
  try {
    auth = authFromFlags(argv);
  } catch (err) {
    if (err instanceof AuthFlagError) throw new UsageError(err.message);
    throw err;
  }
  // From here on a signal stops serve through its own exit path, so the exit hook below runs.
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  // Last of the checks: by default this generates a certificate into a private directory.
  let tls;
  try {
    tls = serveTls({ tlsCertFile: argv.tlsCertFile, tlsPrivateKeyFile: argv.tlsPrivateKeyFile, certDir: argv.certDir, plainHttp: argv.plainHttp, host: argv.host });
  } catch (err) {
    if (err instanceof TlsConfigError) throw new UsageError(err.message);
    throw err;
  }
  // Whichever way the process ends (signal, refused start, internal error), the key goes with it.
  if (tls.cleanup) process.once('exit', tls.cleanup);
  // The node proxy's client certificate and the agents' CA (after the serving pair: it may go next to it).
  let agentClient;
  try {
    agentClient = agentClientFromFlags(argv, tls.tempDir);
  } catch (err) {
    if (err instanceof TlsConfigError) throw new UsageError(err.message);
    throw err;
  }
  if (agentClient.cleanup) process.once('exit', agentClient.cleanup);
  // The companions: the port asked for; else upstream's, or a free one when the API port is picked
  // freely or upstream's is taken (another serve on this machine): several serve processes run side by side.
  const companion = async (v: unknown, flag: string, upstream: number): Promise<Listener> => (v !== undefined
    ? { port: portOf(v, flag), flag, defaulted: false }
    : { port: port !== 0 && await portFree(argv.host, upstream) ? upstream : 0, flag, defaulted: true });
  const controllers = controllerList(argv.controllers);
  const cmListener = controllers?.length === 0 ? undefined : await companion(argv.controllerManagerPort, '--controller-manager-port', 10257);
  const schedListener = argv.scheduler === false ? undefined : await companion(argv.schedulerPort, '--scheduler-port', 10259);
  const listeners = [{ port, flag: '--api-port', defaulted: false }, cmListener, schedListener].filter((l) => l !== undefined);
  // The kubeconfig's credential: an administrator token the server knows (with authentication off
  // everything is allowed, and the token is simply not looked at).
  const admin = adminToken();
  if (auth) auth = { ...auth, tokens: [...auth.tokens, admin] };
  let ref;
  for (;;) {
    const controllerManager = cmListener ? { controllers, settings: controllerSettings(argv), port: cmListener.port } : false as const;
    const scheduler = schedListener ? { port: schedListener.port } : false as const;
    try {
      ref = await startReference({ ...storage, host: argv.host, port, featureGates, flags, continueTtlSeconds: continueTtl, compactionIntervalSeconds: compactionInterval, healthFaults, bookmarkIntervalSeconds: bookmarkInterval, maxWatchPendingBytes, debugPlantCorrupt: argv.debugPlantCorrupt, tls: tls.cert, auth, controllerManager, scheduler, defaultNotReadyTolerationSeconds, defaultUnreachableTolerationSeconds, agentClientCert: agentClient.cert, agentCaPem: agentClient.agentCaPem, nodeProxyAllowLoopback: argv.nodeProxyAllowLoopback === true });
      break;
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { port?: number };
      const taken = e.code === 'EADDRINUSE' ? listeners.find((l) => l.defaulted && l.port !== 0 && l.port === e.port) : undefined;
      // Another process took a companion's upstream port between the probe and the start (two serve
      // started at once): that companion takes a free port, as it would have after the probe.
      if (taken) {
        taken.port = 0;
        continue;
      }
      throw new UsageError(`cannot start the reference on ${startFailure(e, argv.host, listeners)}`);
    }
  }
  let kubeconfig;
  try {
    kubeconfig = writeKubeconfig(kubeconfigYaml(ref.url, admin.token, ref.caPem), { out: argv.kubeconfigOut, dir: tls.tempDir });
  } catch (err) {
    await ref.close();
    throw new UsageError(`--kubeconfig-out ${String(argv.kubeconfigOut)}: cannot write it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  // The CA first: "api:" is the line callers wait for, and everything is known once it is out.
  if (tls.caFile) process.stdout.write(`ca: ${tls.caFile}\n`);
  // For agents' --client-ca-file (authentication.x509.clientCAFile): they accept the node proxy with it.
  if (agentClient.caFile) process.stdout.write(`agent-client-ca: ${agentClient.caFile}\n`);
  // The companions first: "api:" stays the last line, the one callers wait for.
  if (ref.components.controllerManager) process.stdout.write(`controller-manager: ${ref.components.controllerManager.url}\n`);
  if (ref.components.scheduler) process.stdout.write(`scheduler: ${ref.components.scheduler.url}\n`);
  // For kubectl --kubeconfig and run --kubeconfig: the URL, the CA and an administrator's token.
  process.stdout.write(`kubeconfig: ${kubeconfig}\n`);
  process.stdout.write(`api: ${ref.url}\n`);
  await stopped;
  await ref.close();
  return EXIT.ok;
}

