// The service-manager watchdog (spec 001 §5.2) against real unix datagram sockets this test binds,
// as systemd binds its notify socket: READY=1, WATCHDOG=1 every WATCHDOG_USEC/2 while healthy,
// pings skipped while unhealthy, abstract sockets, refusal under 1 s, nothing when WATCHDOG_USEC=0.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startWatchdog, unixAddress, WatchdogConfigError, watchdogTimeoutMs } from '../../reference/agent/watchdog.js';
import { listenNotifySocket } from '../helpers/notify.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-watchdog-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('environment', async (t) => {
  t.equal(await startWatchdog({}, () => true), undefined, 'no NOTIFY_SOCKET: no sd_notify at all');
  t.equal(watchdogTimeoutMs({}), undefined, 'WATCHDOG_USEC absent: no watchdog');
  t.equal(watchdogTimeoutMs({ WATCHDOG_USEC: '0' }), undefined, 'WATCHDOG_USEC=0: no watchdog');
  t.equal(watchdogTimeoutMs({ WATCHDOG_USEC: '1000000' }), 1000, 'exactly 1 s is the minimum, allowed');
  t.equal(watchdogTimeoutMs({ WATCHDOG_USEC: '1500000' }), 1500, 'fractional seconds');
  t.equal(watchdogTimeoutMs({ WATCHDOG_USEC: '15000000', WATCHDOG_PID: String(process.pid) }), 15000, 'our pid');
  t.equal(watchdogTimeoutMs({ WATCHDOG_USEC: '15000000', WATCHDOG_PID: '1' }), undefined, 'another process\'s watchdog');
  t.throws(() => watchdogTimeoutMs({ WATCHDOG_USEC: '999999' }), { name: 'WatchdogConfigError', message: /watchdog timeout too small: WATCHDOG_USEC=999999 \(0\.999999 s\); the minimum supported timeout is 1 s/ });
  t.throws(() => watchdogTimeoutMs({ WATCHDOG_USEC: '-5' }), /not a whole number/);
  t.throws(() => watchdogTimeoutMs({ WATCHDOG_USEC: 'abc' }), /WATCHDOG_USEC="abc" is not a whole number of microseconds/);
  await t.rejects(startWatchdog({ NOTIFY_SOCKET: join(dir, 'x.sock'), WATCHDOG_USEC: '500000' }, () => true), WatchdogConfigError, 'refused at start');
  await t.rejects(startWatchdog({ NOTIFY_SOCKET: `/${'x'.repeat(200)}` }, () => true), /longer than 108 bytes/);
});

t.test('socket addresses are exact', async (t) => {
  const abstract = unixAddress('@abc');
  t.equal(abstract.len, 2 + 4, 'abstract: family, NUL, name; no trailing NUL');
  t.same([...abstract.addr.subarray(2, 6)], [0, 97, 98, 99]);
  const path = unixAddress('/run/x');
  t.equal(path.len, 2 + 6 + 1, 'path: family, path, NUL');
});

t.test('a send with nobody listening is counted, not thrown', async (t) => {
  const wd = (await startWatchdog({ NOTIFY_SOCKET: join(dir, 'nobody.sock') }, () => true))!;
  await wd.ready();
  t.equal(wd.stats.failed, 1);
  wd.stop();
});

t.test('READY=1, the ping period, skipped pings, abstract socket, WATCHDOG_USEC=0', async (t) => {
  // A file system socket for an agent without a watchdog, an abstract one for an agent with one.
  const quietAddr = join(dir, 'notify.sock');
  const quiet = await listenNotifySocket(quietAddr);
  t.teardown(() => quiet.close());
  const abstractAddr = `@orch-agent-test-${randomBytes(6).toString('hex')}`;
  const notify = await listenNotifySocket(abstractAddr);
  t.teardown(() => notify.close());

  const off = (await startWatchdog({ NOTIFY_SOCKET: quietAddr, WATCHDOG_USEC: '0' }, () => true))!;
  t.teardown(() => off.stop());
  t.equal(off.intervalMs, undefined);
  await off.ready();
  await off.ready();
  await quiet.waitFor((m) => m === 'READY=1', 2000);

  let healthy = true;
  const unhealthyChecks: Array<() => void> = [];
  let unhealthySeen = 0;
  const wd = (await startWatchdog({ NOTIFY_SOCKET: abstractAddr, WATCHDOG_USEC: '1000000' }, async () => {
    if (!healthy) {
      unhealthySeen++;
      for (const f of unhealthyChecks.splice(0)) f();
    }
    return healthy;
  }))!;
  t.teardown(() => wd.stop());
  t.equal(wd.intervalMs, 500, 'WATCHDOG_USEC/2');
  await wd.ready();
  const ready = await notify.waitFor((m) => m === 'READY=1', 2000);
  const first = await notify.waitFor((m) => m === 'WATCHDOG=1', 2000, ready.index + 1);
  const second = await notify.waitFor((m) => m === 'WATCHDOG=1', 2000, first.index + 1);
  const gap = second.at - first.at;
  t.ok(gap >= 400 && gap <= 1000, `pings every ~500 ms (saw ${gap} ms)`);

  // Unhealthy: the checks send nothing. The third check starts only after the second one's tick ended.
  healthy = false;
  const since = notify.messages.length;
  await new Promise<void>((resolve) => {
    const check = (): void => (unhealthySeen >= 3 ? resolve() : void unhealthyChecks.push(check));
    check();
  });
  t.same(notify.messages.slice(since).map((m) => m.text), [], 'no WATCHDOG=1 while unhealthy');
  t.ok(wd.stats.skipped >= 2, 'skips counted');

  healthy = true;
  await notify.waitFor((m) => m === 'WATCHDOG=1', 2000, since);
  t.pass('pings resume once healthy again');

  // More than two seconds have passed: the agent without a watchdog sent READY=1 once and nothing else.
  t.same(quiet.messages.map((m) => m.text), ['READY=1']);

  wd.stop();
  const stoppedAt = notify.messages.length;
  await wd.ready(); // after stop: nothing
  t.equal(notify.messages.length, stoppedAt);
});
