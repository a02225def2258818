// The service-manager watchdog (spec 001 §5.2) and sd_notify: with NOTIFY_SOCKET set the agent sends
// `READY=1` once it is ready and, when WATCHDOG_USEC is set, `WATCHDOG=1` every WATCHDOG_USEC/2 while
// its health checks pass (upstream: the /healthz checks ping, log and syncloop), skipping a ping
// when they fail so that the service manager restarts a stuck agent.
//
// sd_notify messages are unix datagrams, which Node cannot send. They go through libc via koffi (a
// maintained FFI package with prebuilt binaries). Not unix-dgram: it copies the address with
// strncpy and passes sizeof(sockaddr_un) as its length, so an abstract socket (`@name`, which the
// issue asks for) can be neither named nor reached with the exact length systemd and Go use.
import { createRequire } from 'node:module';
import { onFirstUse } from '../packages.js';
import { broken } from './breaks.js';

const require = createRequire(import.meta.url);

const AF_UNIX = 1;
const SOCK_DGRAM = 2;
const SOCK_CLOEXEC = 0o2000000;
const EINTR = 4;

type Call = (...args: unknown[]) => number;

interface Libc {
  socket: Call;
  sendto: Call;
  close: Call;
  errno(): number;
}

const libc = onFirstUse((): Libc => {
  if (process.platform !== 'linux') throw new Error(`sd_notify over unix datagrams is implemented for Linux, not ${process.platform}`);
  const koffi = require('koffi') as typeof import('koffi');
  const lib = koffi.load('libc.so.6');
  const num = (f: (...a: unknown[]) => unknown): Call => (...a) => Number(f(...a));
  return {
    socket: num(lib.func('int socket(int domain, int type, int protocol)')),
    sendto: num(lib.func('long sendto(int fd, const uint8_t *buf, size_t len, int flags, const uint8_t *addr, uint32_t addrlen)')),
    close: num(lib.func('int close(int fd)')),
    errno: () => koffi.errno(),
  };
});

/** A bad WATCHDOG_USEC or NOTIFY_SOCKET: the agent refuses to start with this message. */
export class WatchdogConfigError extends Error {
  override readonly name = 'WatchdogConfigError';
}

/**
 * A sockaddr_un for `address` and its exact length. A leading `@` names an abstract socket: the
 * name is a NUL then the rest, without a trailing NUL, as systemd and Go address it. Anything else
 * is a file system path.
 */
export function unixAddress(address: string): { addr: Buffer; len: number } {
  // Test-only (breaks.ts): `@name` taken for a file path.
  const abstract = address.startsWith('@') && !broken('watchdog-no-abstract');
  const name = abstract ? Buffer.concat([Buffer.from([0]), Buffer.from(address.slice(1), 'utf8')]) : Buffer.from(address, 'utf8');
  if (address === '' || address === '@') throw new WatchdogConfigError(`invalid unix socket address ${JSON.stringify(address)}`);
  // sun_path holds 108 bytes; a path also needs its terminating NUL.
  if (name.length > (abstract ? 108 : 107)) throw new WatchdogConfigError(`unix socket address ${JSON.stringify(address)} is longer than 108 bytes`);
  if (!abstract && name.includes(0)) throw new WatchdogConfigError(`unix socket path ${JSON.stringify(address)} contains a NUL byte`);
  const addr = Buffer.alloc(110);
  addr.writeUInt16LE(AF_UNIX, 0);
  name.copy(addr, 2);
  return { addr, len: 2 + name.length + (abstract ? 0 : 1) };
}

function newDatagramSocket(): number {
  const fd = libc().socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw new Error(`cannot create a unix datagram socket: errno ${libc().errno()}`);
  return fd;
}

/** Sends one datagram; returns 0 or the errno (a missing listener is ECONNREFUSED or ENOENT). */
function sendDatagram(fd: number, target: { addr: Buffer; len: number }, text: string): number {
  const msg = Buffer.from(text, 'utf8');
  for (;;) {
    if (libc().sendto(fd, msg, msg.length, 0, target.addr, target.len) >= 0) return 0;
    const errno = libc().errno();
    if (errno !== EINTR) return errno;
  }
}

/**
 * The watchdog interval from the environment, as go-systemd's SdWatchdogEnabled reads it:
 * undefined when WATCHDOG_USEC is absent or 0 (no watchdog) or when WATCHDOG_PID names another
 * process; a WatchdogConfigError when it is not a number, negative, or under the 1 s minimum.
 */
export function watchdogTimeoutMs(env: NodeJS.ProcessEnv): number | undefined {
  const usecText = env.WATCHDOG_USEC;
  if (usecText === undefined || usecText.trim() === '') return undefined;
  if (!/^\d+$/.test(usecText.trim())) {
    throw new WatchdogConfigError(`WATCHDOG_USEC=${JSON.stringify(usecText)} is not a whole number of microseconds`);
  }
  const usec = Number(usecText.trim());
  // Test-only (breaks.ts): 0 taken for a 2 s timeout instead of "off".
  if (usec === 0) return broken('watchdog-zero-pings') ? 2_000 : undefined;
  const pidText = env.WATCHDOG_PID;
  // Test-only (breaks.ts): WATCHDOG_PID not looked at, so another process's watchdog is pinged.
  if (pidText !== undefined && pidText.trim() !== '' && Number(pidText) !== process.pid && !broken('watchdog-pid-ignored')) return undefined;
  if (usec < 1_000_000 && !broken('watchdog-no-minimum')) {
    throw new WatchdogConfigError(
      `watchdog timeout too small: WATCHDOG_USEC=${usec} (${usec / 1e6} s); the minimum supported timeout is 1 s (WatchdogSec=1)`,
    );
  }
  return usec / 1000;
}

export interface Watchdog {
  /** Sends READY=1 (once; later calls do nothing). */
  ready(): Promise<void>;
  /** Stops the pings and closes the socket. */
  stop(): void;
  /** The ping period in ms (WATCHDOG_USEC/2), undefined when the watchdog is off. */
  readonly intervalMs: number | undefined;
  /** Pings sent and skipped so far (for /healthz debugging and tests). */
  readonly stats: { sent: number; skipped: number; failed: number };
}

/**
 * Spec 001 §5.2. Undefined without NOTIFY_SOCKET. Otherwise READY=1 on ready(), and when
 * WATCHDOG_USEC is set (and positive, and at least 1 s: less is refused with WatchdogConfigError)
 * WATCHDOG=1 every WATCHDOG_USEC/2 while `healthy()` is true; a false or failing check skips that
 * ping. A send that fails (no listener) is counted, never thrown: the agent keeps running.
 */
export async function startWatchdog(
  env: NodeJS.ProcessEnv,
  healthy: () => boolean | Promise<boolean>,
): Promise<Watchdog | undefined> {
  const address = env.NOTIFY_SOCKET;
  if (address === undefined || address === '') return undefined;
  const target = unixAddress(address);
  const timeoutMs = watchdogTimeoutMs(env);
  // Test-only (breaks.ts): a ping every timeout instead of every half.
  const intervalMs = timeoutMs === undefined ? undefined : broken('watchdog-wrong-interval') ? timeoutMs : timeoutMs / 2;
  const fd = newDatagramSocket();
  const stats = { sent: 0, skipped: 0, failed: 0 };
  let stopped = false;
  let readySent = false;
  let timer: NodeJS.Timeout | undefined;

  const send = (text: string): boolean => {
    if (stopped) return false;
    const errno = sendDatagram(fd, target, text);
    if (errno !== 0) stats.failed++;
    return errno === 0;
  };

  // One tick at a time: the next is scheduled after the check settles, so a slow check cannot pile up.
  const tick = async (): Promise<void> => {
    let ok: boolean;
    try {
      ok = (await healthy()) === true;
    } catch {
      ok = false;
    }
    if (stopped) return;
    if (ok) {
      if (send('WATCHDOG=1')) stats.sent++;
    } else {
      stats.skipped++;
    }
    schedule();
  };
  const schedule = (): void => {
    if (stopped || intervalMs === undefined) return;
    timer = setTimeout(() => void tick(), intervalMs);
    // The watchdog alone never keeps the process alive.
    timer.unref();
  };
  schedule();

  return {
    intervalMs,
    stats,
    async ready() {
      if (readySent || stopped) return;
      readySent = true;
      // Test-only (breaks.ts): READY=1 never sent.
      if (!broken('watchdog-no-ready')) send('READY=1');
    },
    stop() {
      if (stopped) return;
      stopped = true;
      if (timer) clearTimeout(timer);
      libc().close(fd);
    },
  };
}
