// A private containerd (Debian's `containerd` 1.6; .ci/run installs it) for the differential CRI
// test: its own config, root, state and sockets under a fresh temp dir, so it shares nothing with a
// containerd the machine may run, and everything goes when it is closed.
//
// What the config settles, and why:
// - root, state, the gRPC socket and the ttrpc socket live in the temp dir (0700); no debug or metrics
//   listener; the CRI streaming server takes an ephemeral port on 127.0.0.1.
// - CNI binaries and configs are looked for in empty dirs of its own: a host's /etc/cni/net.d never
//   leaks in, so NetworkReady is reliably false ("cni plugin not initialized"), which is expected here.
// - the plugins that need hardware, kernel modules or a special filesystem (aufs, btrfs, devmapper,
//   zfs) are disabled rather than left to fail noisily, and so is `opt`, which would write /opt/containerd.
// - the CRI plugin uses the overlayfs snapshotter when this machine supports it; where it does not (an
//   overlay root in a container), containerd refuses to load the CRI plugin ("failed to find
//   snapshotter"), and it is started again with `native`, which works on any filesystem.
// - the sandbox image is SANDBOX_IMAGE, which a test imports itself (nothing is pulled), and
//   restrict_oom_score_adj keeps a sandbox's oom_score_adj at or above containerd's own: a test host
//   without CAP_SYS_RESOURCE (a container) cannot lower it to the -998 a sandbox asks for, and runc
//   fails the sandbox otherwise ("can't get final child's PID from pipe").
// Sandboxes a test runs use the host network (no CNI); their state stays under the private root and
// state dirs, and `ctr images import` mounts a snapshot only for the moment it applies a layer.
import * as grpc from '@grpc/grpc-js';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const CONTAINERD_BIN = '/usr/bin/containerd';
export const CTR_BIN = '/usr/bin/ctr';
/** The image a sandbox runs (the pause container); a test that runs sandboxes imports it under this name. */
export const SANDBOX_IMAGE = 'registry.k8s.io/pause:3.6';
/** The namespace the CRI plugin keeps its images and containers in. */
export const CRI_NAMESPACE = 'k8s.io';

export type Snapshotter = 'overlayfs' | 'native';

export interface RunningContainerd {
  /** Path of the gRPC unix socket (serves runtime.v1 RuntimeService and ImageService). */
  socket: string;
  /** `unix://<socket>`. */
  criUrl: string;
  /** The snapshotter the CRI plugin ended up with. */
  snapshotter: Snapshotter;
  /** containerd's version as `containerd --version` prints it, e.g. `1.6.20~ds1`. */
  version: string;
  /** containerd's log so far (stdout and stderr). */
  log(): string;
  /** `ctr` against this containerd, in the CRI namespace; throws with ctr's output on failure. */
  ctr(args: readonly string[]): string;
  /** Kills containerd and removes its directory. Safe to call more than once. */
  close(): Promise<void>;
}

/** Why a private containerd cannot be started here, or undefined when it can. */
export function containerdUnavailable(): string | undefined {
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    return 'containerd needs root (run as root, as CI does)';
  }
  for (const bin of [CONTAINERD_BIN, CTR_BIN]) {
    if (!existsSync(bin)) return `${bin} is missing (apt-get install --no-install-recommends containerd; .ci/run installs it)`;
  }
  return undefined;
}

/** `containerd --version` prints `containerd <module> <version> <revision>`. */
function containerdVersion(): string {
  const r = spawnSync(CONTAINERD_BIN, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  return /^containerd \S+ v?(\S+)/.exec(r.stdout ?? '')?.[1] ?? 'unknown';
}

function configToml(dir: string, snapshotter: Snapshotter): string {
  // TOML basic strings: the paths come from mkdtemp under the temp dir, but quote them properly anyway.
  const q = (s: string) => JSON.stringify(s);
  return [
    'version = 2',
    `root = ${q(join(dir, 'root'))}`,
    `state = ${q(join(dir, 'state'))}`,
    'imports = []',
    'disabled_plugins = [',
    '  "io.containerd.internal.v1.opt",',
    '  "io.containerd.snapshotter.v1.aufs",',
    '  "io.containerd.snapshotter.v1.btrfs",',
    '  "io.containerd.snapshotter.v1.devmapper",',
    '  "io.containerd.snapshotter.v1.zfs",',
    ']',
    '',
    '[grpc]',
    `  address = ${q(join(dir, 'containerd.sock'))}`,
    '  tcp_address = ""',
    '[ttrpc]',
    `  address = ${q(join(dir, 'containerd.sock.ttrpc'))}`,
    '[debug]',
    '  address = ""',
    '  level = "info"',
    '[metrics]',
    '  address = ""',
    '',
    '[plugins."io.containerd.grpc.v1.cri"]',
    '  disable_tcp_service = true',
    '  restrict_oom_score_adj = true',
    `  sandbox_image = ${q(SANDBOX_IMAGE)}`,
    '  stream_server_address = "127.0.0.1"',
    '  stream_server_port = "0"',
    '  [plugins."io.containerd.grpc.v1.cri".containerd]',
    `    snapshotter = ${q(snapshotter)}`,
    '  [plugins."io.containerd.grpc.v1.cri".cni]',
    `    bin_dir = ${q(join(dir, 'cni', 'bin'))}`,
    `    conf_dir = ${q(join(dir, 'cni', 'net.d'))}`,
    '',
  ].join('\n');
}

type Probe = { ok: true } | { ok: false; code: number; details: string };

/**
 * One CRI Version call without any message definitions: the request is empty and the answer is
 * not decoded, so the helper does not depend on a .proto. Success means the CRI plugin is up.
 */
function versionProbe(socket: string, timeoutMs: number): Promise<Probe> {
  const client = new grpc.Client(`unix://${socket}`, grpc.credentials.createInsecure());
  return new Promise<Probe>((resolve) => {
    client.makeUnaryRequest<Buffer, Buffer>(
      '/runtime.v1.RuntimeService/Version',
      (b) => b,
      (b) => b,
      Buffer.alloc(0),
      { deadline: Date.now() + timeoutMs },
      (err) => {
        client.close();
        resolve(err ? { ok: false, code: err.code, details: err.details } : { ok: true });
      },
    );
  });
}

/** A containerd process and the watchdog that cleans up after it if this process dies first. */
interface Daemon {
  child: ChildProcess;
  watchdog?: ChildProcess;
}

interface Attempt {
  daemon: Daemon;
  outcome: 'ready' | 'no-snapshotter';
}

const READY_MS = 20_000;

/**
 * A test process killed by a signal (a tap timeout) runs no exit hook, and containerd would outlive
 * it: a detached shell polls for this process once a second and, when it is gone, kills containerd
 * and removes its directory. close() ends the watchdog first.
 */
const WATCHDOG = 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; kill -KILL "$2" 2>/dev/null; sleep 1; rm -rf -- "$3"';

function spawnDaemon(configPath: string, logPath: string, dir: string): Daemon {
  const logFd = openSync(logPath, 'a', 0o600);
  const child = spawn(CONTAINERD_BIN, ['--config', configPath], { stdio: ['ignore', logFd, logFd] });
  closeSync(logFd);
  // containerd does not hold the event loop open: a test that never calls close() still ends, and
  // the exit hook or the watchdog stops it.
  child.unref();
  if (child.pid === undefined) return { child };
  const watchdog = spawn('/bin/sh', ['-c', WATCHDOG, 'containerd-watchdog', String(process.pid), String(child.pid), dir], { stdio: 'ignore', detached: true });
  watchdog.unref();
  return { child, watchdog };
}

/** Starts containerd with `snapshotter` and waits (bounded) until the CRI answers or clearly cannot. */
async function attempt(dir: string, snapshotter: Snapshotter, logPath: string, readyMs: number): Promise<Attempt> {
  const configPath = join(dir, `config-${snapshotter}.toml`);
  writeFileSync(configPath, configToml(dir, snapshotter), { mode: 0o600 });
  const daemon = spawnDaemon(configPath, logPath, dir);
  const { child } = daemon;
  let exited: string | undefined;
  child.once('exit', (code, signal) => { exited = `containerd exited (${signal ?? `code ${code}`})`; });
  child.once('error', (e) => { exited = `containerd could not be started: ${e.message}`; });
  const socket = join(dir, 'containerd.sock');
  const deadline = Date.now() + readyMs;
  let last = 'no answer yet';
  try {
    while (Date.now() < deadline) {
      if (exited) throw new Error(exited);
      if (existsSync(socket)) {
        const r = await versionProbe(socket, 2_000);
        if (r.ok) return { daemon, outcome: 'ready' };
        last = `${grpc.status[r.code]}: ${r.details}`;
        // The gRPC server is up but without the CRI service: the CRI plugin failed to load. The one
        // cause handled is an unusable snapshotter; anything else is reported with the log.
        if (r.code === grpc.status.UNIMPLEMENTED) {
          if (/failed to find snapshotter/.test(readFileSync(logPath, 'utf8'))) return { daemon, outcome: 'no-snapshotter' };
          throw new Error(`containerd runs without the CRI service (${last})`);
        }
        // UNAVAILABLE while the socket comes up, or "server is not initialized yet" while the CRI
        // plugin recovers its (empty) state: poll again.
      }
      await sleep(100);
    }
    throw new Error(`the CRI did not answer Version within ${readyMs} ms (last: ${last})`);
  } catch (e) {
    await stop(daemon);
    throw e;
  }
}

/** Ends the watchdog, then containerd: SIGTERM, and SIGKILL if it has not exited within 5 s. */
async function stop({ child, watchdog }: Daemon): Promise<void> {
  watchdog?.kill('SIGKILL');
  // Never spawned (no pid) or already gone: nothing to wait for.
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  // Waiting for the exit must keep the event loop alive.
  child.ref();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts a private containerd and resolves once its CRI answers Version (within `readyMs`, default
 * 20 s). On failure it rejects with the reason and the tail of containerd's log, leaving nothing behind.
 */
export async function startContainerd(opts: { readyMs?: number } = {}): Promise<RunningContainerd> {
  const reason = containerdUnavailable();
  if (reason) throw new Error(reason);
  const dir = mkdtempSync(join(tmpdir(), 'orch-containerd-'));
  for (const sub of ['cni/bin', 'cni/net.d']) mkdirSync(join(dir, sub), { recursive: true, mode: 0o700 });
  const logPath = join(dir, 'containerd.log');
  const log = () => (existsSync(logPath) ? readFileSync(logPath, 'utf8') : '');
  const readyMs = opts.readyMs ?? READY_MS;
  let daemon: Daemon | undefined;
  let snapshotter: Snapshotter = 'overlayfs';
  // A test process that exits without its teardown must not leave containerd running.
  const killOnExit = () => { daemon?.child.kill('SIGKILL'); };
  process.once('exit', killOnExit);
  try {
    let a = await attempt(dir, 'overlayfs', logPath, readyMs);
    daemon = a.daemon;
    if (a.outcome === 'no-snapshotter') {
      await stop(a.daemon);
      // The second start reuses root and state: nothing was created in them but empty stores.
      snapshotter = 'native';
      a = await attempt(dir, 'native', logPath, readyMs);
      daemon = a.daemon;
      if (a.outcome !== 'ready') throw new Error('the CRI plugin loads with neither the overlayfs nor the native snapshotter');
    }
  } catch (e) {
    if (daemon) await stop(daemon);
    process.removeListener('exit', killOnExit);
    const tail = log().split('\n').slice(-40).join('\n');
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${(e as Error).message}\n--- containerd log (tail) ---\n${tail}`);
  }
  const socket = join(dir, 'containerd.sock');
  let closed: Promise<void> | undefined;
  return {
    socket,
    criUrl: `unix://${socket}`,
    snapshotter,
    version: containerdVersion(),
    log,
    ctr(args) {
      const r = spawnSync(CTR_BIN, ['--address', socket, '--namespace', CRI_NAMESPACE, ...args], { encoding: 'utf8', timeout: 30_000 });
      if (r.status !== 0) throw new Error(`ctr ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`}): ${r.stderr}${r.stdout}`);
      return r.stdout;
    },
    close() {
      closed ??= (async () => {
        await stop(daemon!);
        process.removeListener('exit', killOnExit);
        rmSync(dir, { recursive: true, force: true });
      })();
      return closed;
    },
  };
}
