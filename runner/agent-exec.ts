// `run --agent-exec '<command>'`: cases that start agents of the implementation under test themselves
// (configuration merging, lock file, watchdog, root dir layout, start-up). Each launch gets its own
// mock CRI runtime (in-process), its own root dir and port, and is stopped when the case ends.
//
// The flag contract. The command is run by /bin/sh as `exec <command> "$@"`, with these arguments
// appended (all spec flags, spec 001 §2.1-§2.3), then the case's own:
//   --root-dir <fresh dir>                     the agent's <root_dir> (§2.1)
//   --container-runtime-endpoint unix://<sock> a mock CRI runtime of its own (§2.1 runtime sockets)
//   --hostname-override <unique name>          the node name it registers (§2.2)
//   --address 127.0.0.1 --port <free port>     where it serves HTTPS: /healthz, /configz, ... (§2.3, §4.3)
//   --kubeconfig <file>                        the run's control plane (left out for standalone mode)
// and, as cases need them: --config <file>, --config-dir <dir>, --lock-file <file>, --feature-gates,
// and the environment NOTIFY_SOCKET / WATCHDOG_USEC (§5.2). The agent is ready once GET /healthz on
// its port answers 200. It must stop on SIGTERM.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants as fsConstants, readFileSync, statSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile, chmod } from 'node:fs/promises';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient, createDispatcher, type TargetConnection } from './client.js';
import type { Exchange } from './results.js';
import type { MockCri } from '../mocks/cri/server.js';

/**
 * The mock CRI's server and its gRPC client, loaded on first use: grpc-js and the CRI's proto are for
 * runs with agent cases, not for every start of the CLI (`list`, API-only runs).
 */
export const loadMockCri = () => import('../mocks/cri/server.js');
export const loadCriClient = () => import('../cri/proto.js');

export interface LaunchOptions {
  /** Flags after the contract's own (e.g. `--config-dir`, `--lock-file`). */
  args?: readonly string[];
  /** Added to the environment (e.g. NOTIFY_SOCKET, WATCHDOG_USEC). */
  env?: Readonly<Record<string, string>>;
  /** Connect to the run's control plane through a kubeconfig (default true); false: standalone mode. */
  controlPlane?: boolean;
  /**
   * The server of that kubeconfig instead of the run's API URL, with the same credentials and CA: a
   * proxy the case runs in front of the API (to take the control plane away from the agent).
   */
  apiUrl?: string;
  /** Use this root dir instead of a fresh one (a restart on the same state, a second agent). */
  rootDir?: string;
  /** Use this runtime instead of a fresh one. */
  cri?: MockCri;
  /** Node name (default: a name unique to the run and case). */
  nodeName?: string;
  /** Wait until /healthz answers 200 (default true); false: return as soon as it was spawned. */
  waitReady?: boolean;
}

export interface LaunchedAgent {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  /** Its HTTPS endpoints; exchanges are recorded with the case's others. TLS is not verified (the
   *  agent's serving certificate is self-signed by default, as upstream's). */
  readonly client: ApiClient;
  readonly nodeName: string;
  readonly rootDir: string;
  /** A scratch directory of the case's (config files, sockets), removed when the case ends. */
  readonly workDir: string;
  /** Its runtime, driven in-process (faults, call log, runtime conditions). */
  readonly cri: MockCri;
  /** What it printed so far, stdout and stderr interleaved. */
  output(): string;
  /** Settles when the process ends. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL after 10 s; resolves once it is gone. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * The runner's environment without what would tie a launched agent to the runner's own service
 * manager (a runner under systemd must not have its agents ping its watchdog): cases set those.
 */
function inheritedEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of ['NOTIFY_SOCKET', 'WATCHDOG_USEC', 'WATCHDOG_PID', 'LISTEN_FDS', 'LISTEN_PID']) delete env[k];
  return env;
}

/** Shell quoting for one word. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Why `--agent-exec`'s command cannot start anything, or undefined when it can or cannot be told
 * without running it. Checked once before any case: a missing program would otherwise be one error
 * per agent case (and an assertion failure in a case that expects the agent to exit). Its first word,
 * after any VAR=value assignments, must be a command the shell finds (a builtin, a function of the
 * environment, or a program on PATH) or an executable file; a word the shell would expand ($, `, ~
 * other than ~/, globs) is left to the run.
 */
export function agentCommandProblem(command: string): string | undefined {
  const words = command.trim().split(/\s+/);
  let i = 0;
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=[^'"`$]*$/.test(words[i]!)) i++;
  let word = words[i];
  if (!word) return undefined;
  const quoted = /^'([^']*)'$/.exec(word) ?? /^"([^"$`\\]*)"$/.exec(word);
  if (quoted) word = quoted[1]!;
  else if (/[$`"'\\*?[{(;|&<>]/.test(word) || (word.startsWith('~') && !word.startsWith('~/'))) return undefined;
  if (word.startsWith('~/')) word = join(homedir(), word.slice(2));
  if (word.includes('/')) {
    try {
      if (!statSync(word).isFile()) return `${word} is not a file`;
      accessSync(word, fsConstants.X_OK);
      return undefined;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return code === 'EACCES' ? `${word} is not executable` : `${word}: no such file`;
    }
  }
  const found = spawnSync('/bin/sh', ['-c', 'command -v -- "$1" >/dev/null 2>&1', 'agent-exec', word], { stdio: 'ignore', timeout: 10_000 });
  return found.status === 0 ? undefined : `"${word}" is not a command this machine's shell finds (no builtin, and not on PATH)`;
}

/**
 * A free TCP port on the loopback, for a process started next to bind (taken again by whoever binds
 * it first). Chosen below the kernel's ephemeral range where that is known (Linux): a port the kernel
 * hands out for `listen(0)` is also what it gives outgoing connections as their local port, so on a
 * busy machine a connection to any loopback server could take it before the agent binds it (CI saw
 * "address already in use"); below the range only an explicit bind can.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  if (low !== undefined && low > FIXED_PORTS_FROM + 1000) {
    for (let i = 0; i < 20; i++) {
      const port = FIXED_PORTS_FROM + Math.floor(Math.random() * (low - FIXED_PORTS_FROM));
      if (await bindable(port)) return port;
    }
  }
  return listenOnce(0);
}

/** Where freePort looks below the ephemeral range: above the registered ports most services use. */
const FIXED_PORTS_FROM = 20_000;

/** The first port of the kernel's ephemeral range, or undefined where it cannot be read. */
function ephemeralLow(): number | undefined {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : undefined;
  } catch {
    return undefined;
  }
}

function bindable(port: number): Promise<boolean> {
  return listenOnce(port).then(() => true, () => false);
}

/** Listens on the loopback port (0: any) and closes again; resolves with the port. */
function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => {
      const bound = (srv.address() as { port: number }).port;
      srv.close(() => resolve(bound));
    });
  });
}

/** A kubeconfig for the run's connection, owner-only (it may hold a token); JSON, which is YAML too. */
export function kubeconfigYaml(api: TargetConnection): string {
  const cluster: Record<string, string | boolean> = { server: api.baseUrl };
  if (api.caPem) cluster['certificate-authority-data'] = Buffer.from(api.caPem).toString('base64');
  if (api.insecureSkipTlsVerify) cluster['insecure-skip-tls-verify'] = true;
  const user: Record<string, string> = {};
  if (api.token) user.token = api.token;
  if (api.certPem) user['client-certificate-data'] = Buffer.from(api.certPem).toString('base64');
  if (api.keyPem) user['client-key-data'] = Buffer.from(api.keyPem).toString('base64');
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'run',
    clusters: [{ name: 'run', cluster }], users: [{ name: 'run', user }],
    contexts: [{ name: 'run', context: { cluster: 'run', user: 'run' } }],
  }, null, 2);
}

export interface LauncherDeps {
  command: string;
  api: TargetConnection;
  signal: AbortSignal;
  exchanges: Exchange[];
  uniqueName(hint?: string): string;
  /** Registers the Node an agent registers, for deletion at the end of the run. */
  track(path: string): void;
  readyTimeoutMs?: number;
}

/** The launcher of one case; `close` stops its agents and runtimes and removes their directories. */
export function agentLauncher(deps: LauncherDeps): { launch(o?: LaunchOptions): Promise<LaunchedAgent>; close(): Promise<void> } {
  const cleanups: Array<() => Promise<void>> = [];
  /** One kubeconfig per API URL, written on first use in the first launch's work directory. */
  const kubeconfigs = new Map<string, string>();

  const launch = async (o: LaunchOptions = {}): Promise<LaunchedAgent> => {
    const workDir = await mkdtemp(join(tmpdir(), 'oc-agent-'));
    await chmod(workDir, 0o700);
    cleanups.push(() => rm(workDir, { recursive: true, force: true }));
    const rootDir = o.rootDir ?? join(workDir, 'root');
    // The runtime reads Localhost seccomp profiles where the agent keeps them (§2.1), as on a real node.
    const cri = o.cri ?? await (await loadMockCri()).startMockCri({ socket: join(workDir, 'cri', 'cri.sock'), root: join(workDir, 'cri-state'), seccompDir: join(rootDir, 'seccomp') });
    if (!o.cri) cleanups.push(() => cri.close());
    const nodeName = o.nodeName ?? deps.uniqueName('node');
    const port = await freePort();
    const args = ['--root-dir', rootDir, '--container-runtime-endpoint', cri.criUrl, '--hostname-override', nodeName, '--address', '127.0.0.1', '--port', String(port)];
    if (o.controlPlane !== false) {
      const server = o.apiUrl ?? deps.api.baseUrl;
      let kubeconfig = kubeconfigs.get(server);
      if (!kubeconfig) {
        kubeconfig = join(workDir, `kubeconfig-${kubeconfigs.size}`);
        await writeFile(kubeconfig, kubeconfigYaml({ ...deps.api, baseUrl: server }), { mode: 0o600 });
        kubeconfigs.set(server, kubeconfig);
      }
      args.push('--kubeconfig', kubeconfig);
      deps.track(`/api/v1/nodes/${nodeName}`);
    }
    args.push(...(o.args ?? []));
    const child: ChildProcess = spawn('/bin/sh', ['-c', `exec ${deps.command} "$@"`, 'agent-exec', ...args], {
      env: { ...inheritedEnv(), ...o.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const keep = (b: Buffer) => { out = (out + b.toString('utf8')).slice(-64 * 1024); };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
      child.once('error', (err) => { out += `\nspawn failed: ${err.message}`; resolve({ code: -1, signal: null }); });
    });
    let gone = false;
    void exited.then(() => { gone = true; });
    const stop = async () => {
      if (!gone) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        try { return await exited; } finally { clearTimeout(timer); }
      }
      return exited;
    };
    cleanups.push(async () => { await stop(); });
    const url = `https://127.0.0.1:${port}`;
    const dispatcher = createDispatcher({ baseUrl: url, insecureSkipTlsVerify: true });
    cleanups.push(() => dispatcher.close().catch(() => undefined));
    const client = new ApiClient({ baseUrl: url, insecureSkipTlsVerify: true, token: deps.api.token }, dispatcher, deps.signal, deps.exchanges);
    const agent: LaunchedAgent = { url, client, nodeName, rootDir, workDir, cri, output: () => out, exited, stop };
    if (o.waitReady === false) return agent;
    await waitHealthy(agent, () => gone, deps.readyTimeoutMs ?? 20_000, deps.signal);
    return agent;
  };

  const close = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    cleanups.length = 0;
  };
  return { launch, close };
}

/** Thrown when a launched agent does not come up: the case errors with what it printed. */
export class AgentStartError extends Error {
  override name = 'AgentStartError';
}

/** Polls /healthz (outside the recorded exchanges) until 200, the process exits or time runs out. */
async function waitHealthy(agent: LaunchedAgent, gone: () => boolean, timeoutMs: number, signal: AbortSignal): Promise<void> {
  const dispatcher = createDispatcher({ baseUrl: agent.url, insecureSkipTlsVerify: true });
  const probe = new ApiClient({ baseUrl: agent.url, insecureSkipTlsVerify: true }, dispatcher, signal);
  const deadline = Date.now() + timeoutMs;
  try {
    while (Date.now() < deadline && !signal.aborted) {
      if (gone()) throw new AgentStartError(`the agent exited before it was ready (${JSON.stringify(await agent.exited)}); it printed: ${agent.output().slice(-2000) || '(nothing)'}`);
      try {
        if ((await probe.get('/healthz', { timeoutMs: 2_000 })).status === 200) return;
      } catch { /* not listening yet */ }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new AgentStartError(`the agent did not answer 200 on /healthz within ${timeoutMs / 1000}s; it printed: ${agent.output().slice(-2000) || '(nothing)'}`);
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
}

/** The command that starts the reference agent: this package's own CLI (the embedded run uses it). */
export function referenceAgentCommand(): string {
  const bin = new URL('../bin/orch-conformance.js', import.meta.url).pathname;
  return `${shellQuote(process.execPath)} ${shellQuote(bin)} agent`;
}

/** Writes `files` (relative name to text) under `dir`, creating it 0700; returns `dir`. */
export async function writeFiles(dir: string, files: Readonly<Record<string, string>>): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const [name, text] of Object.entries(files)) {
    const path = join(dir, name);
    await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
    await writeFile(path, text, { mode: 0o600 });
  }
  return dir;
}
