// GetContainerEvents holds a bounded amount for a client that stops reading: a raw HTTP/2 client that
// never reads (so it never opens its flow-control window again) is cut with RST_STREAM
// ENHANCE_YOUR_CALM (RESOURCE_EXHAUSTED to grpc clients) once its unsent events pass the per-stream
// bound, while a client that reads keeps every event and the runtime keeps answering.
import t from 'tap';
import http2 from 'node:http2';
import { setTimeout as sleep } from 'node:timers/promises';
import { startCri } from './helpers.js';
import { grpcFrame, rawSession } from '../../helpers/raw-grpc.js';

const PER_STREAM = 64 * 1024;

t.test('a GetContainerEvents stream that is not read is cut past its bound; a reading one is not', async (t) => {
  const { m, c } = await startCri(t, { eventStreamBounds: { perStream: PER_STREAM, perConnection: 16 * PER_STREAM, total: 64 * PER_STREAM } });

  // The stalled client: its stream is never read (no 'data' listener, so Node stops consuming, and the
  // server's window closes after the first 64 KiB).
  const session = rawSession(m.socket);
  t.teardown(() => session.destroy());
  const stalled = session.request({
    ':method': 'POST', ':scheme': 'http', ':path': '/runtime.v1.RuntimeService/GetContainerEvents', ':authority': 'localhost',
    'content-type': 'application/grpc', te: 'trailers',
  });
  stalled.on('error', () => {});
  stalled.end(grpcFrame(Buffer.alloc(0)));
  const closed = new Promise<number>((resolve) => stalled.on('close', () => resolve(stalled.rstCode ?? 0)));

  // The reading client.
  let read = 0;
  const reader = c.stream('GetContainerEvents', {});
  reader.on('data', () => { read++; });
  reader.on('error', () => {});
  t.teardown(() => reader.cancel());
  // Both subscribed before the first event (the call log records each call as it arrives).
  for (let i = 0; i < 100 && m.control.calls.list({ rpc: 'GetContainerEvents' }).length < 2; i++) await sleep(20);

  // Events grow with the sandbox's containers (each carries every container's status): 30 containers
  // created and started make 60 events of up to ~15 KB, several times the bound plus one window.
  const sandbox = await c.call<{ pod_sandbox_id: string }>('RunPodSandbox', { config: { metadata: { name: 'ev', uid: 'ev-uid', namespace: 'bound', attempt: 0 } } });
  let sent = 0;
  for (let i = 0; i < 30; i++) {
    const made = await c.call<{ container_id: string }>('CreateContainer', {
      pod_sandbox_id: sandbox.pod_sandbox_id,
      config: { metadata: { name: `c${i}`, attempt: 0 }, image: { image: 'busybox' }, command: ['sleep', '3600'], labels: { filler: 'x'.repeat(200) } },
      sandbox_config: { metadata: { name: 'ev', uid: 'ev-uid', namespace: 'bound', attempt: 0 } },
    });
    await c.call('StartContainer', { container_id: made.container_id });
    sent += 2;
  }

  const rst = await Promise.race([closed, sleep(10_000, -1, { ref: false })]);
  t.equal(rst, http2.constants.NGHTTP2_ENHANCE_YOUR_CALM, 'the stalled stream is reset with ENHANCE_YOUR_CALM (RESOURCE_EXHAUSTED)');
  for (let i = 0; i < 250 && read < sent; i++) await sleep(20);
  t.ok(read >= sent, `the reading stream got every event (${read} of at least ${sent})`);
  t.ok(await c.call('Version', { version: 'v1' }), 'the runtime keeps answering');
});
