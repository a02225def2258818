// The lock file (spec 001 §2.1, --lock-file): an exclusive flock; a second holder is refused with a
// clear message while the first lives, and the kernel frees it when the holder dies, even by SIGKILL.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { acquireLock, LockHeldError } from '../../reference/agent/lock.js';

const lockModule = fileURLToPath(new URL('../../reference/agent/lock.js', import.meta.url));

/** A child process that takes the lock, says "locked" and waits to be killed. */
async function holder(path: string): Promise<ChildProcess> {
  const script = `import { acquireLock } from ${JSON.stringify(lockModule)};
await acquireLock(${JSON.stringify(path)});
process.stdout.write('locked\\n');
setInterval(() => {}, 1 << 30);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('locked')) resolve();
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => reject(new Error(`lock holder exited ${code}: ${err}`)));
  });
  return child;
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

t.test('lock file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-lock-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));

  t.test('taken and released in one process; the file is 0600', async (t) => {
    const path = join(dir, 'one.lock');
    const lock = await acquireLock(path);
    t.equal(statSync(path).mode & 0o777, 0o600);
    await lock.release();
    const again = await acquireLock(path);
    await again.release();
    await again.release(); // twice is harmless
  });

  t.test('a second process is refused with a clear message until the holder is SIGKILLed', async (t) => {
    const path = join(dir, 'agent.lock');
    const child = await holder(path);
    t.teardown(() => killed(child));
    const err = await acquireLock(path).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(err instanceof LockHeldError, 'LockHeldError');
    t.equal((err as LockHeldError).holderPid, child.pid, 'names the holder');
    t.match((err as Error).message, new RegExp(`another agent holds the lock file ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(process ${child.pid}\\)`));
    t.match((err as Error).message, /different --lock-file/);

    // flock(1) sees the same lock: it is a real flock, not a private convention.
    const probe = spawnSync('flock', ['-n', path, 'true']);
    if (probe.error === undefined) t.not(probe.status, 0, 'flock(1) cannot take it either');

    await killed(child);
    const lock = await acquireLock(path);
    t.pass('taken once the holder died');
    await lock.release();
  });

  t.test('different paths do not conflict', async (t) => {
    const child = await holder(join(dir, 'a.lock'));
    t.teardown(() => killed(child));
    const lock = await acquireLock(join(dir, 'b.lock'));
    t.pass('b taken while a is held');
    await lock.release();
  });

  t.test('an unusable path is a clear error', async (t) => {
    await t.rejects(acquireLock(join(dir, 'missing', 'x.lock')), /cannot open lock file .*missing\/x\.lock: ENOENT/);
  });
});
