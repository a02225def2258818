// Spec 001 §5.2 and §9: the service-manager watchdog, observed on agents the case starts with
// NOTIFY_SOCKET pointing at a notify socket the case listens on (agent-exec-notify.ts) and
// WATCHDOG_USEC as systemd sets it for `WatchdogSec`.
import { join } from 'node:path';
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectTrue, fail, show } from '../verify.js';
import { agentCase } from './agent-kit.js';
import { expectStarts, healthyWithin, withScratch } from './agent-exec-kit.js';
import { listenNotify, says, type NotifySocket } from './agent-exec-notify.js';
import type { LaunchedAgent } from '../../runner/agent-exec.js';

/** Starts a standalone agent whose notify socket the case holds; `address` defaults to a path in a scratch dir. */
async function withNotify(ctx: CaseContext, watchdogUsec: string, fn: (sock: NotifySocket, a: LaunchedAgent) => Promise<void>, address?: string): Promise<void> {
  await withScratch(async (dir) => {
    const at = address ?? join(dir, 'notify.sock');
    const sock = await listenNotify(at);
    try {
      const a = await ctx.agents.launch({ controlPlane: false, env: { NOTIFY_SOCKET: at, WATCHDOG_USEC: watchdogUsec } });
      await fn(sock, a);
    } finally {
      await sock.close();
    }
  });
}

const seen = (sock: NotifySocket) => show(sock.messages.map((m) => m.text));

export const agentExecWatchdogCases: Case[] = [
  defineCase({
    id: 'agent.watchdog.interval', title: 'with WatchdogSec=2 (WATCHDOG_USEC=2000000) and no gate set, the agent sends WATCHDOG=1 about every second (WatchdogSec/2): the watchdog is on by default and effective',
    requirements: ['001-5.2-watchdog-interval', '001-5.2-watchdog-enabled'], ...agentCase('5.2', 'MUST', 'exec'),
    async run(ctx) {
      await withNotify(ctx, '2000000', async (sock) => {
        const pings: number[] = [];
        let from = 0;
        // Four pings give three intervals; 1 s each, so 10 s is generous.
        const deadline = Date.now() + 10_000;
        while (pings.length < 4 && Date.now() < deadline) {
          const m = await sock.waitFor((t) => says(t, 'WATCHDOG=1'), deadline - Date.now(), from);
          if (!m) break;
          pings.push(m.at);
          from = m.index + 1;
        }
        if (pings.length < 4) fail('four WATCHDOG=1 pings within 10s of the agent being ready', 'a ping about every second', `${pings.length} pings; received ${seen(sock)}`);
        const mean = (pings[3]! - pings[0]!) / 3;
        // WatchdogSec/2 is 1 s; the bounds allow for timer slack on a loaded machine, not for another period.
        expectTrue(mean >= 600 && mean <= 1_500, 'the mean interval between WATCHDOG=1 pings', 'about 1000 ms (between 600 and 1500)', `${Math.round(mean)} ms`);
      });
    },
  }),
  defineCase({
    id: 'agent.watchdog.ready', title: 'the agent sends READY=1 to $NOTIFY_SOCKET at start',
    requirements: ['001-5.2-watchdog-ready'], ...agentCase('5.2', 'SHOULD', 'exec'),
    async run(ctx) {
      await withNotify(ctx, '0', async (sock) => {
        const m = await sock.waitFor((t) => says(t, 'READY=1'), 10_000);
        if (!m) fail('READY=1 on the notify socket (within 10s of the agent answering /healthz)', 'a datagram READY=1', `received ${seen(sock)}`);
      });
    },
  }),
  defineCase({
    id: 'agent.watchdog.notify-socket', title: 'each ping is one datagram WATCHDOG=1 to $NOTIFY_SOCKET, an abstract socket when it starts with @',
    requirements: ['001-5.2-watchdog-notify-socket'], ...agentCase('5.2', 'SHOULD', 'exec'),
    async run(ctx) {
      const abstract = `@${ctx.uniqueName('notify')}-${process.pid}`;
      await withNotify(ctx, '2000000', async (sock) => {
        const m = await sock.waitFor((t) => says(t, 'WATCHDOG=1'), 6_000);
        if (!m) fail(`WATCHDOG=1 on the abstract socket ${abstract} (within 6s; the period is 1s)`, 'a datagram WATCHDOG=1', `received ${seen(sock)}`);
        const pings = sock.messages.filter((x) => says(x.text, 'WATCHDOG=1'));
        expectTrue(pings.every((x) => x.text.trim() === 'WATCHDOG=1'), 'each ping is a datagram of its own', 'datagrams "WATCHDOG=1"', seen(sock));
      }, abstract);
    },
  }),
  defineCase({
    id: 'agent.watchdog.disabled', title: 'WATCHDOG_USEC=0 (WatchdogSec=0) disables the watchdog: no WATCHDOG=1 pings',
    requirements: ['001-5.2-watchdog-disabled'], ...agentCase('5.2', 'MUST', 'exec'),
    async run(ctx) {
      await withNotify(ctx, '0', async (sock) => {
        // Absence needs a window: 3 s after the agent is ready is six periods of the shortest
        // supported timeout (1 s), so a watchdog left on would have pinged several times.
        const m = await sock.waitFor((t) => says(t, 'WATCHDOG=1'), 3_000);
        if (m) fail('no WATCHDOG=1 with WATCHDOG_USEC=0', 'no ping', `received ${seen(sock)}`);
      });
    },
  }),
  defineCase({
    id: 'agent.watchdog.minimum', title: 'the minimum watchdog timeout is 1 s: WATCHDOG_USEC=500000 is refused, 1000000 pings',
    requirements: ['001-5.2-watchdog-minimum', '001-9-watchdog-minimum'], ...agentCase('5.2', 'MUST', 'exec'),
    async run(ctx) {
      await withScratch(async (dir) => {
        const at = join(dir, 'notify.sock');
        const sock = await listenNotify(at);
        try {
          // Under the minimum the value is not supported: the agent refuses to start (as upstream
          // does) or runs without the watchdog; pinging at 0.25 s would be supporting it.
          const short = await ctx.agents.launch({ controlPlane: false, env: { NOTIFY_SOCKET: at, WATCHDOG_USEC: '500000' }, waitReady: false });
          let exit: { code: number | null } | undefined;
          void short.exited.then((e) => { exit = e; });
          if (await healthyWithin(short, 15_000, () => exit !== undefined)) {
            const m = await sock.waitFor((t) => says(t, 'WATCHDOG=1'), 2_000);
            if (m) fail('WATCHDOG_USEC=500000, under the 1 s minimum, is not supported', 'the agent refuses to start, or runs without watchdog pings', `it runs and pings: received ${seen(sock)}`);
          } else if (!exit) {
            fail('WATCHDOG_USEC=500000: the agent refuses to start or runs (within 15s)', 'an exit with a non-zero status, or /healthz 200', `neither; it printed: ${show(short.output().slice(-400))}`);
          } else if (exit.code === 0) {
            fail('WATCHDOG_USEC=500000: the agent refuses to start', 'a non-zero exit status', 'exit status 0');
          }
          await short.stop();
          const before = sock.messages.length;
          await expectStarts(ctx, { env: { NOTIFY_SOCKET: at, WATCHDOG_USEC: '1000000' } }, 'WATCHDOG_USEC=1000000, the minimum');
          const m = await sock.waitFor((t) => says(t, 'WATCHDOG=1'), 5_000, before);
          if (!m) fail('WATCHDOG=1 with the minimum timeout of 1 s (WATCHDOG_USEC=1000000), within 5s', 'pings every 0.5 s', `received ${seen(sock)}`);
        } finally {
          await sock.close();
        }
      });
    },
  }),
];
