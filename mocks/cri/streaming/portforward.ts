// Port forwarding into a simulated sandbox. The mock has no network namespace, so a port "listens" by
// convention, and whatever listens is an in-process echo responder (the bytes a client sends come back),
// so that a test sees data flow both ways. THE PORT CONVENTION: a sandbox listens on
//   - every TCP container_port of its port_mappings (the kubelet passes every declared container port there), and
//   - every port a running container of the sandbox names in its command as `nc -l -p N` (also `nc -lp N`,
//     `netcat -l -p N`) or `listen N` (the simulated shell treats both as long-running programs).
// A port nobody listens on answers on the error stream as containerd and the kubelet word it:
// "error forwarding port N to pod <sandbox id>, uid : failed to execute portforward in network namespace <path>:
// failed to connect to localhost:N inside namespace ...".
//
// Protocols, as upstream's streaming server (k8s.io/kubelet/pkg/cri/streaming/portforward):
// SPDY (portforward.k8s.io): the client opens an error stream and a data stream per connection, paired by
//   their `requestID` header, the port in the `port` header; a pair not complete within the stream creation
//   timeout gets "timed out waiting for streams" on whichever stream came.
// WebSocket (v4.channel.k8s.io, or no subprotocol): the ports come from the PortForward request; channel 2i
//   is port i's data (both ways), 2i+1 its error channel; the server's first message on each carries the
//   port as 2 little-endian bytes.
import { posix } from 'node:path';
import type { WebSocket } from 'ws';
import type { Runtime, SandboxRecord } from '../state.js';
import type { SpdyStream } from './spdy.js';

/** The ports a sandbox listens on by the convention above. */
export function listeningPorts(rt: Runtime, s: SandboxRecord): Set<number> {
  const ports = new Set<number>();
  for (const m of (s.config.port_mappings ?? []) as { protocol?: string | number; container_port?: number }[]) {
    const tcp = m.protocol === undefined || m.protocol === 'TCP' || m.protocol === 0;
    if (tcp && m.container_port && m.container_port > 0) ports.add(m.container_port);
  }
  for (const c of rt.containersOf(s.id)) {
    if (c.state !== 'CONTAINER_RUNNING') continue;
    for (const p of commandPorts(c.argv)) ports.add(p);
  }
  return ports;
}

/** Ports named by `nc -l -p N`, `nc -lp N`, `netcat -l -p N` or `listen N` anywhere in a command. */
export function commandPorts(argv: readonly string[]): number[] {
  const words = argv.join(' ').split(/[\s;&|'"()]+/).filter(Boolean);
  const out: number[] = [];
  const port = (w: string | undefined) => (w !== undefined && /^\d{1,5}$/.test(w) && Number(w) >= 1 && Number(w) <= 65535 ? Number(w) : undefined);
  for (let i = 0; i < words.length; i++) {
    const name = posix.basename(words[i]);
    if (name === 'listen') { const p = port(words[i + 1]); if (p) out.push(p); continue; }
    if (name !== 'nc' && name !== 'netcat') continue;
    let listen = false;
    let found: number | undefined;
    for (let j = i + 1; j < words.length && words[j].startsWith('-'); j++) {
      const flags = words[j].slice(1);
      if (flags.includes('l')) listen = true;
      const m = /p(\d*)$/.exec(flags);
      if (m) found = port(m[1] || words[++j]);
    }
    if (listen && found) out.push(found);
  }
  return out;
}

/**
 * The network namespace containerd names when forwarding fails: "host" for a sandbox on the node's network,
 * else the sandbox's netns path (the mock has none; this is the shape of the path the CNI setup gives,
 * /var/run/netns/cni-<uuid>, the uuid made from the sandbox id).
 */
export function netnsPath(s: SandboxRecord): string {
  const network = (s.config.linux as { security_context?: { namespace_options?: { network?: string | number } } } | undefined)?.security_context?.namespace_options?.network;
  if (network === 'NODE' || network === 2) return 'host';
  const h = s.id.padEnd(32, '0');
  return `/var/run/netns/cni-${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/**
 * containerd 1.6's words for a port nothing listens on (sandbox_portforward_linux.go; the CRI server passes
 * no pod uid): the dial error wrapped by "failed to execute portforward in network namespace <path>", as the
 * differential test (test/cri-containerd.test.ts) shows it. The IPv6 part is a host with ::1 as localhost.
 */
export function refusedMessage(sandboxId: string, port: number, netns: string): string {
  const inner = `failed to connect to localhost:${port} inside namespace ${JSON.stringify(sandboxId)}, IPv4: dial tcp4 127.0.0.1:${port}: connect: connection refused IPv6 dial tcp6 [::1]:${port}: connect: connection refused `;
  return `error forwarding port ${port} to pod ${sandboxId}, uid : failed to execute portforward in network namespace ${JSON.stringify(netns)}: ${inner}`;
}

/** Why forwarding cannot start at all (the sandbox went away), or undefined. */
function sandboxProblem(rt: Runtime, sandboxId: string): string | undefined {
  const s = rt.findSandbox(sandboxId);
  if (!s) return `failed to find sandbox ${JSON.stringify(sandboxId)} in store: not found`;
  if (s.state !== 'SANDBOX_READY') return 'sandbox container is not running';
  return undefined;
}

/** Whether `port` of the sandbox answers now; else the error text to send. */
function connect(rt: Runtime, sandboxId: string, port: number): string | undefined {
  const problem = sandboxProblem(rt, sandboxId);
  if (problem) return `error forwarding port ${port} to pod ${sandboxId}, uid : ${problem}`;
  const s = rt.findSandbox(sandboxId)!;
  return listeningPorts(rt, s).has(port) ? undefined : refusedMessage(sandboxId, port, netnsPath(s));
}

/** SPDY port forwarding: pairs streams by requestID and serves each pair. */
export function spdyPortForward(rt: Runtime, sandboxId: string, creationTimeoutMs: number): (s: SpdyStream) => void {
  const pairs = new Map<string, { data?: SpdyStream; error?: SpdyStream; timer: NodeJS.Timeout }>();
  return (s) => {
    const type = s.headers.streamtype;
    const id = s.headers.requestid ?? '';
    if (type !== 'data' && type !== 'error') {
      s.write(Buffer.from(`invalid stream type ${JSON.stringify(type ?? '')}`));
      s.end();
      return;
    }
    let pair = pairs.get(id);
    if (!pair) {
      const timer = setTimeout(() => {
        pairs.delete(id);
        const p = pair!;
        // Upstream writes the timeout on the error stream when it has one.
        (p.error ?? p.data)?.write(Buffer.from('timed out waiting for streams'));
        p.error?.end();
        p.data?.end();
      }, creationTimeoutMs);
      pair = { timer };
      pairs.set(id, pair);
    }
    if (pair[type]) { s.cancel(); return; }
    pair[type] = s;
    if (!pair.data || !pair.error) return;
    clearTimeout(pair.timer);
    pairs.delete(id);
    const { data, error } = pair;
    const port = Number(data.headers.port);
    const refused = Number.isInteger(port) && port > 0 && port <= 65535
      ? connect(rt, sandboxId, port)
      : `error forwarding port ${data.headers.port ?? ''} to pod ${sandboxId}, uid : invalid port`;
    if (refused) {
      error.write(Buffer.from(refused));
      error.end();
      data.end();
      return;
    }
    // The echo responder: what comes in goes back out; the client's end ends it.
    data.ondata = (d) => data.write(d);
    data.onend = () => { data.end(); error.end(); };
  };
}

/** WebSocket port forwarding over the request's ports. */
export function wsPortForward(rt: Runtime, sandboxId: string, ports: readonly number[], ws: WebSocket, send: (data: Buffer) => void): void {
  const frame = (ch: number, data: Buffer) => send(Buffer.concat([Buffer.from([ch]), data]));
  const open: boolean[] = [];
  ports.forEach((port, i) => {
    const le = Buffer.alloc(2);
    le.writeUInt16LE(port, 0);
    frame(2 * i, le);
    frame(2 * i + 1, le);
    const refused = connect(rt, sandboxId, port);
    if (refused) frame(2 * i + 1, Buffer.from(refused));
    open[i] = !refused;
  });
  ws.on('message', (raw: Buffer) => {
    if (raw.length === 0) return;
    const ch = raw[0];
    if (ch % 2 !== 0) return; // error channels are the server's
    const i = ch / 2;
    if (open[i]) frame(ch, raw.subarray(1));
  });
  // Upstream closes the connection once every pair is done: with nothing listening anywhere, that is now.
  if (!open.some(Boolean)) ws.close(1000);
}
