// Item 6: the watchdog as a process. With NOTIFY_SOCKET (a path, and an abstract socket) and
// WATCHDOG_USEC=1 s, the agent sends READY=1 once its endpoints serve and WATCHDOG=1 every 0.5 s;
// WATCHDOG_USEC under 1 s refuses the start with exit 2.
import t from 'tap';
import { execaNode } from 'execa';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from '../helpers/serve.js';
import { startMockCri } from '../../mocks/cri/server.js';
import { listenNotifySocket } from '../helpers/notify.js';

async function setup(t: any) {
  const dir = mkdtempSync(join(tmpdir(), 'agent-wire-wd-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cri = await startMockCri({ socket: join(dir, 'cri.sock') });
  t.teardown(() => cri.close());
  return { dir, cri };
}

for (const kind of ['path', 'abstract'] as const) {
  t.test(`READY=1 then WATCHDOG=1 pings (${kind} socket)`, async (t) => {
    const { dir, cri } = await setup(t);
    const address = kind === 'path' ? join(dir, 'notify.sock') : `@orch-agent-wire-${process.pid}-${Date.now()}`;
    const listener = await listenNotifySocket(address);
    t.teardown(() => listener.close());
    const proc = execaNode(BIN, ['agent', '--container-runtime-endpoint', cri.criUrl, '--root-dir', join(dir, 'root'), '--node-name', 'n1', '--address', '127.0.0.1', '--port', '0'],
      { reject: false, env: { NOTIFY_SOCKET: address, WATCHDOG_USEC: '1000000' } });
    t.teardown(() => { proc.kill('SIGKILL'); });
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    const ready = await listener.waitFor((m) => m === 'READY=1', 10_000);
    // READY=1 is sent once the endpoints serve; the lines on stdout follow it.
    const deadline = Date.now() + 5000;
    while (!/^agent: /m.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    t.match(out, /^node: n1\nagent: https:\/\/127\.0\.0\.1:\d+\n/, 'the agent is up and serving');
    t.equal(listener.messages.filter((m) => m.text === 'READY=1').length, 1, 'READY=1 once');
    const first = await listener.waitFor((m) => m === 'WATCHDOG=1', 3000, ready.index);
    const second = await listener.waitFor((m) => m === 'WATCHDOG=1', 3000, first.index + 1);
    const gap = second.at - first.at;
    t.ok(gap >= 300 && gap <= 1200, `pings every WATCHDOG_USEC/2 (gap ${gap} ms)`);
    proc.kill('SIGTERM');
    t.equal((await proc).exitCode, 0);
  });
}

t.test('WATCHDOG_USEC under 1 s refuses to start with exit 2', async (t) => {
  const { dir, cri } = await setup(t);
  const r = await execaNode(BIN, ['agent', '--container-runtime-endpoint', cri.criUrl, '--root-dir', join(dir, 'root'), '--address', '127.0.0.1', '--port', '0'],
    { reject: false, env: { NOTIFY_SOCKET: join(dir, 'nobody.sock'), WATCHDOG_USEC: '500000' } });
  t.equal(r.exitCode, 2);
  t.match(r.stderr, /watchdog timeout too small: WATCHDOG_USEC=500000/);
  t.equal(r.stdout, '');
});
