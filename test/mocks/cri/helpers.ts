// What the mock CRI tests share: a mock on a private socket with a client, both gone at teardown,
// and the error of a call expected to fail.
import type { Test } from 'tap';
import type * as grpc from '@grpc/grpc-js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { criClient, type CriClient } from '../../../cri/proto.js';
import { startMockCri, type MockCriOptions } from '../../../mocks/cri/server.js';

/** A mock (pulls take 5 ms) in a fresh directory, and a client over its socket. */
export async function startCri(t: Test, opts: Partial<MockCriOptions> = {}, starter: typeof startMockCri = startMockCri) {
  const dir = mkdtempSync(join(tmpdir(), 'core-cri-'));
  const m = await starter({ socket: join(dir, 'run', 'cri.sock'), root: join(dir, 'root'), pullDelayMs: 5, ...opts });
  const c = criClient(m.criUrl);
  t.teardown(async () => { c.close(); await m.close(); rmSync(dir, { recursive: true, force: true }); });
  return { m, c, dir };
}

/** The gRPC error of a call that must fail; a call that succeeds fails the test. */
export async function failure(p: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await p;
  } catch (err) {
    return err as grpc.ServiceError;
  }
  throw new Error('the call succeeded; an error was expected');
}

/**
 * Polls ContainerStatus until the container is in `state`, within `ms` (processes of the mock exit
 * on timers; the events stream is tested on its own, so state waits here read status directly).
 */
export async function waitState(c: CriClient, id: string, state: string, ms = 3000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const s = (await c.call('ContainerStatus', { container_id: id })).status;
    if (s.state === state) return s;
    if (Date.now() > deadline) throw new Error(`container ${id} is ${s.state}, not ${state}, after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
