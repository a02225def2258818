// A TCP relay on the loopback in front of the run's API server, for cases that take the control plane
// away from an agent they launch (spec 001 §4.2: pod info stays available without it). TLS passes
// through untouched, so the agent verifies the API's own certificate and presents its own
// credentials; the relay's address must therefore be one that certificate is valid for (the host of a
// loopback API URL is kept; other hosts are relayed from 127.0.0.1).
import { connect, createServer, type Socket } from 'node:net';

export interface ApiRelay {
  /** The API URL through the relay (same scheme). */
  readonly url: string;
  /**
   * Cuts the agent off: every open connection is closed and every new one is reset at once. From then
   * on `attempts` counts the connections the agent tried (its evidence that it noticed).
   */
  cut(): void;
  readonly attempts: number;
  /** Waits (bounded) until the agent tried at least `n` connections since the cut; false when it did not. */
  attempted(n: number, timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|::1)$/;

export async function startApiRelay(apiUrl: string): Promise<ApiRelay> {
  const u = new URL(apiUrl);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  const sockets = new Set<Socket>();
  let cutOff = false;
  let attempts = 0;
  const server = createServer((client) => {
    if (cutOff) {
      attempts++;
      client.resetAndDestroy();
      return;
    }
    const upstream = connect({ host, port });
    const pair = [client, upstream];
    for (const s of pair) sockets.add(s);
    const drop = () => { for (const s of pair) { s.destroy(); sockets.delete(s); } };
    for (const s of pair) { s.on('error', drop); s.on('close', drop); }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const listenHost = LOOPBACK.test(host) ? host : '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, listenHost, () => { server.off('error', reject); resolve(); });
  });
  const bound = (server.address() as { port: number }).port;
  const shown = listenHost.includes(':') ? `[${listenHost}]` : listenHost;
  return {
    url: `${u.protocol}//${shown}:${bound}`,
    cut() {
      cutOff = true;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    get attempts() { return attempts; },
    async attempted(n, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (attempts < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      return attempts >= n;
    },
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      sockets.clear();
      server.close(() => resolve());
    }),
  };
}
