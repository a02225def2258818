// Item 2: --lock-file as processes. The first agent holds the lock; a second one with the same lock
// file exits 2 with the holder's pid and touches nothing (no root dir); a third with another lock
// file starts; once the first stops, the lock is free again.
import t from 'tap';
import { execaNode } from 'execa';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from '../helpers/serve.js';
import { startMockCri } from '../../mocks/cri/server.js';

function startAgent(t: any, args: string[]): Promise<{ proc: ReturnType<typeof execaNode>; out: string }> {
  const proc = execaNode(BIN, ['agent', '--address', '127.0.0.1', '--port', '0', ...args], { reject: false });
  t.teardown(() => { proc.kill('SIGKILL'); });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => { out += c.toString(); if (/^agent: /m.test(out)) resolve({ proc, out }); });
    proc.on('exit', (code) => reject(new Error(`agent exited ${code}: ${out}`)));
  });
}

t.test('two agents on one lock file: the second exits 2', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-wire-lock-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cri = await startMockCri({ socket: join(dir, 'cri.sock') });
  t.teardown(() => cri.close());
  const lock = join(dir, 'agent.lock');
  const first = await startAgent(t, ['--container-runtime-endpoint', cri.criUrl, '--root-dir', join(dir, 'r1'), '--node-name', 'n1', '--lock-file', lock]);

  const second = await execaNode(BIN, ['agent', '--container-runtime-endpoint', cri.criUrl, '--root-dir', join(dir, 'r2'), '--node-name', 'n2',
    '--lock-file', lock, '--address', '127.0.0.1', '--port', '0'], { reject: false });
  t.equal(second.exitCode, 2, 'second agent exits 2');
  t.equal(second.stdout, '', 'prints nothing on stdout');
  t.match(second.stderr, new RegExp(`another agent holds the lock file ${lock.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(process ${first.proc.pid}\\)`), 'names the file and the holder');
  t.equal(second.stderr.trim().split('\n').length, 1, 'one line');
  t.notOk(existsSync(join(dir, 'r2')), 'the refused agent created nothing');

  const other = await startAgent(t, ['--container-runtime-endpoint', cri.criUrl, '--root-dir', join(dir, 'r3'), '--node-name', 'n3', '--lock-file', join(dir, 'other.lock')]);
  t.pass('an agent with another lock file starts');
  other.proc.kill('SIGTERM');
  t.equal((await other.proc).exitCode, 0);

  first.proc.kill('SIGTERM');
  t.equal((await first.proc).exitCode, 0, 'first agent stops cleanly');
  const next = await startAgent(t, ['--container-runtime-endpoint', cri.criUrl, '--root-dir', join(dir, 'r4'), '--node-name', 'n4', '--lock-file', lock]);
  t.pass('the lock is free once the holder stopped');
  next.proc.kill('SIGTERM');
  t.equal((await next.proc).exitCode, 0);
});
