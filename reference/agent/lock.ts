// The lock file (spec 001 §2.1, `--lock-file`): an OS-level exclusive lock with flock(2) semantics,
// as upstream's kubelet takes it, so the kernel releases it when the holder dies however it dies,
// and any flock(1) user sees the same lock. Two agents given different paths do not see each other,
// as the spec says. Upstream blocks until the lock is free; issue 11 asks the second agent to refuse
// to start with a clear message, so the lock is tried without waiting (LOCK_NB).
//
// Node has no flock. koffi (a maintained FFI package with prebuilt binaries, nothing compiled at
// install) calls libc's flock directly; fs-ext would do for flock too, but the watchdog needs
// koffi anyway (see watchdog.ts), so one package serves both. Loaded on first use.
import { closeSync, constants, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { onFirstUse } from '../packages.js';

const require = createRequire(import.meta.url);

const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;
const EWOULDBLOCK = 11;
const EINTR = 4;

const flock = onFirstUse(() => {
  if (process.platform !== 'linux') throw new Error(`the lock file is implemented with Linux flock(2), not on ${process.platform}`);
  const koffi = require('koffi') as typeof import('koffi');
  const call = koffi.load('libc.so.6').func('int flock(int fd, int op)') as (fd: number, op: number) => number;
  return (fd: number, op: number): number => {
    // flock can be interrupted by a signal; it is then simply retried.
    for (;;) {
      if (call(fd, op) === 0) return 0;
      const errno = koffi.errno();
      if (errno !== EINTR) return errno;
    }
  };
});

/** Another process holds the lock: the message names the file, and the holder's pid when it wrote one. */
export class LockHeldError extends Error {
  override readonly name = 'LockHeldError';
  constructor(readonly path: string, readonly holderPid?: number) {
    super(
      `another agent holds the lock file ${path}${holderPid ? ` (process ${holderPid})` : ''}: ` +
        'stop it first, or give this agent a different --lock-file',
    );
  }
}

function holderPid(path: string): number | undefined {
  try {
    const n = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isSafeInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes an exclusive flock on `path` (created 0600 if missing; its directory must exist) and writes
 * this process's pid into it, for the message another agent gets. Throws LockHeldError when another
 * process holds it, or an Error naming the path when the file cannot be opened or locked.
 * release() unlocks and closes; the kernel does the same if the process dies.
 */
export async function acquireLock(path: string): Promise<{ release(): Promise<void> }> {
  let fd: number;
  try {
    // Node opens with O_CLOEXEC, so processes the agent starts do not inherit (and keep) the lock.
    fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
  } catch (err) {
    throw new Error(`cannot open lock file ${path}: ${(err as Error).message}`);
  }
  const errno = flock()(fd, LOCK_EX | LOCK_NB);
  if (errno !== 0) {
    closeSync(fd);
    if (errno === EWOULDBLOCK) throw new LockHeldError(path, holderPid(path));
    throw new Error(`cannot lock ${path}: flock failed with errno ${errno}`);
  }
  ftruncateSync(fd, 0);
  writeSync(fd, `${process.pid}\n`, 0);
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      // The file stays (as upstream leaves it); only the lock goes.
      flock()(fd, LOCK_UN);
      closeSync(fd);
    },
  };
}
