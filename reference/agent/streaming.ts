// Exec, attach and port forwarding on the agent's HTTPS port, as upstream's kubelet serves them
// (pkg/kubelet/server/server.go getExec/getAttach/getPortForward):
//   /exec/{namespace}/{pod}/{container}, /exec/{namespace}/{pod}/{uid}/{container}    (GET, POST)
//   /attach/... (the same shapes), /portForward/{namespace}/{pod}, /portForward/{namespace}/{pod}/{uid}
// Query: command=... (repeated), input=1, output=1, error=1, tty=1 (tty drops error, as upstream's
// NewOptions does); port=N (repeated or comma-separated; required for a WebSocket port forward).
// Authorization is the port's (auth/): these paths are nodes/proxy, like every path without a finer
// subresource. The agent resolves the pod and container to CRI ids, asks the runtime for a streaming URL
// (Exec/Attach/PortForward) and proxies the client's upgrade to that URL, as the kubelet's upgrade-aware
// proxy does: the client's request line and headers go to the runtime, the runtime's answer comes back,
// and after a 101 the bytes flow both ways with backpressure (pipes). The URL is the runtime's, never
// taken from the request. Answers as upstream's:
//   400 bad parameters ("you must specify at least 1 of stdin, stdout, stderr", port errors), and
//       "Upgrade request required" for a request that does not upgrade;
//   404 "pod does not exist" (and "pod not found" for a uid that is not the pod's);
//   the runtime's error by its gRPC code as upstream's streaming.WriteError: NotFound 404,
//       ResourceExhausted 429, anything else 500; "container not found (\"<name>\")" for a container
//       that is not running is upstream's 500 too.
import { connect as netConnect, type Socket } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AgentRoute } from './endpoints.js';
import { LABEL_CONTAINER_NAME, type Runtime } from './runtime.js';

export interface StreamingRoutesOptions {
  pods(): readonly any[];
  runtime: Runtime;
  log?(msg: string): void;
}

const GO_CODE_NAMES = ['OK', 'Canceled', 'Unknown', 'InvalidArgument', 'DeadlineExceeded', 'NotFound', 'AlreadyExists', 'PermissionDenied',
  'ResourceExhausted', 'FailedPrecondition', 'Aborted', 'OutOfRange', 'Unimplemented', 'Internal', 'Unavailable', 'DataLoss', 'Unauthenticated'];
/** The longest response head accepted from the runtime's streaming server. */
const MAX_HEAD_BYTES = 64 * 1024;

class HttpError extends Error {
  constructor(readonly status: number, message: string, readonly headers: Record<string, string> = {}) { super(message); }
}

/** A runtime error as upstream's streaming.WriteError answers it. */
function runtimeError(err: unknown): HttpError {
  const e = err as { code?: unknown; details?: unknown; message?: unknown };
  if (typeof e?.code === 'number' && GO_CODE_NAMES[e.code]) {
    const desc = typeof e.details === 'string' ? e.details : String(e.message ?? '');
    const status = e.code === 5 ? 404 : e.code === 8 ? 429 : 500;
    // ResourceExhausted: upstream asks the client to wait the token TTL.
    return new HttpError(status, `rpc error: code = ${GO_CODE_NAMES[e.code]} desc = ${desc}`, e.code === 8 ? { 'Retry-After': '60' } : {});
  }
  return new HttpError(500, typeof e?.message === 'string' ? e.message : String(err));
}

interface Target { namespace: string; pod: string; uid: string; container: string }

/** The names in an exec/attach (container) or portForward (no container) path; undefined: no route. */
function parsePath(pathname: string, prefix: string, withContainer: boolean): Target | undefined {
  let parts: string[];
  try { parts = pathname.slice(prefix.length).split('/').map(decodeURIComponent); } catch { return undefined; }
  if (parts.some((p) => p === '')) return undefined;
  if (withContainer) {
    if (parts.length === 3) return { namespace: parts[0], pod: parts[1], uid: '', container: parts[2] };
    if (parts.length === 4) return { namespace: parts[0], pod: parts[1], uid: parts[2], container: parts[3] };
    return undefined;
  }
  if (parts.length === 2) return { namespace: parts[0], pod: parts[1], uid: '', container: '' };
  if (parts.length === 3) return { namespace: parts[0], pod: parts[1], uid: parts[2], container: '' };
  return undefined;
}

/** Upstream's remotecommand NewOptions: "1" turns a stream on; tty drops stderr; one stream at least. */
function commandOptions(q: URLSearchParams) {
  const on = (k: string) => q.get(k) === '1';
  const tty = on('tty');
  const o = { stdin: on('input'), stdout: on('output'), stderr: on('error') && !tty, tty };
  if (!o.stdin && !o.stdout && !o.stderr) throw new HttpError(400, 'you must specify at least 1 of stdin, stdout, stderr');
  return o;
}

const isWebSocket = (req: IncomingMessage) => String(req.headers.upgrade ?? '').toLowerCase() === 'websocket'
  && String(req.headers.connection ?? '').toLowerCase().split(',').some((v) => v.trim() === 'upgrade');

/** Upstream's portforward NewV4Options: ports matter only for a WebSocket (SPDY names them per stream). */
function portOptions(req: IncomingMessage, q: URLSearchParams): number[] {
  if (!isWebSocket(req)) return [];
  const given = q.getAll('port');
  if (given.length === 0) throw new HttpError(400, 'query parameter "port" is required');
  const ports: number[] = [];
  for (const s of given.flatMap((v) => v.split(','))) {
    if (!/^\d+$/.test(s) || Number(s) > 65535) throw new HttpError(400, `unable to parse "${s}" as a port: strconv.ParseUint: parsing "${s}": invalid syntax`);
    if (Number(s) < 1) throw new HttpError(400, `port "${s}" must be > 0`);
    ports.push(Number(s));
  }
  return ports;
}

export function streamingRoutes(o: StreamingRoutesOptions): AgentRoute[] {
  const findPod = (t: Target) => {
    const pod = o.pods().find((p) => p?.metadata?.namespace === t.namespace && p?.metadata?.name === t.pod);
    if (!pod) throw new HttpError(404, 'pod does not exist');
    if (t.uid && pod.metadata.uid !== t.uid) throw new HttpError(404, 'pod not found');
    return pod;
  };
  /** The running container of that name, as upstream's findContainer looks among the running pods. */
  const runningContainer = async (pod: any, name: string): Promise<string> => {
    const found = (await o.runtime.listContainers(pod.metadata.uid))
      .filter((c) => (c.labels?.[LABEL_CONTAINER_NAME] ?? c.metadata?.name) === name && c.state === 'CONTAINER_RUNNING')
      .sort((a, b) => (b.metadata?.attempt ?? 0) - (a.metadata?.attempt ?? 0))[0];
    if (!found) throw new HttpError(500, `container not found (${JSON.stringify(name)})`);
    return found.id;
  };

  /** The runtime's streaming URL for the request; the errors above as HttpError. */
  const streamUrl = async (kind: 'exec' | 'attach' | 'portForward', req: IncomingMessage, url: URL): Promise<string> => {
    const t = parsePath(url.pathname, `/${kind}/`, kind !== 'portForward');
    if (!t) throw new HttpError(404, '404 page not found\n');
    const q = url.searchParams;
    let answer: { url: string };
    if (kind === 'portForward') {
      const ports = portOptions(req, q);
      const pod = findPod(t);
      const sandbox = (await o.runtime.listSandboxes(pod.metadata.uid)).filter((s) => s.state === 'SANDBOX_READY')[0];
      if (!sandbox) throw new HttpError(500, `failed to find sandboxID for pod ${t.pod}_${t.namespace}(${pod.metadata.uid})`);
      answer = await o.runtime.portForward({ pod_sandbox_id: sandbox.id, port: ports }).catch((err) => { throw runtimeError(err); });
    } else {
      const opts = commandOptions(q);
      const pod = findPod(t);
      if (kind === 'exec') {
        const id = await runningContainer(pod, t.container);
        answer = await o.runtime.exec({ container_id: id, cmd: q.getAll('command'), ...opts }).catch((err) => { throw runtimeError(err); });
      } else {
        // Attach's TTY is the container's own (a process's terminal cannot change once it started).
        const spec = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? []), ...(pod.spec?.ephemeralContainers ?? [])].find((c: any) => c?.name === t.container);
        if (!spec) throw new HttpError(500, `container ${t.container} not found in pod ${t.pod}_${t.namespace}`);
        const id = await runningContainer(pod, t.container);
        answer = await o.runtime.attach({ container_id: id, ...opts, tty: spec.tty === true }).catch((err) => { throw runtimeError(err); });
      }
    }
    if (!/^https?:\/\//.test(answer.url)) throw new HttpError(500, `the container runtime answered an unusable streaming URL ${JSON.stringify(answer.url)}`);
    return answer.url;
  };

  const route = (kind: 'exec' | 'attach' | 'portForward'): AgentRoute => ({
    path: `/${kind}/`,
    methods: ['GET', 'POST'],
    // Upstream's proxy requires an upgrade: a plain request gets its 400 after the same checks.
    async handle(req: IncomingMessage, res: ServerResponse, url: URL) {
      try {
        await streamUrl(kind, req, url);
        throw new HttpError(400, 'Upgrade request required');
      } catch (err) {
        const e = err instanceof HttpError ? err : new HttpError(500, (err as Error).message);
        res.writeHead(e.status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', ...e.headers });
        res.end(e.message);
      }
    },
    async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL) {
      let target: string;
      try {
        target = await streamUrl(kind, req, url);
      } catch (err) {
        const e = err instanceof HttpError ? err : new HttpError(500, (err as Error).message);
        return writeRaw(socket, e.status, e.message, e.headers);
      }
      proxyUpgrade(req, socket, head, new URL(target), o.log);
    },
  });
  return [route('exec'), route('attach'), route('portForward')];
}

/** An HTTP answer written on a socket taken over for an upgrade. */
export function writeRaw(socket: Duplex, status: number, body: string, headers: Record<string, string> = {}): void {
  const reason: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 429: 'Too Many Requests', 500: 'Internal Server Error', 502: 'Bad Gateway' };
  const text = Buffer.from(body);
  const lines = [`HTTP/1.1 ${status} ${reason[status] ?? 'Error'}`, 'Content-Type: text/plain; charset=utf-8', 'X-Content-Type-Options: nosniff',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), `Content-Length: ${text.length}`, 'Connection: close', '', ''];
  socket.end(Buffer.concat([Buffer.from(lines.join('\r\n')), text]));
}

/**
 * The upgrade-aware proxy: the client's request (method, the runtime URL's path and query, the client's
 * headers but its credentials) to the runtime, the runtime's answer back; after 101, both ways.
 */
function proxyUpgrade(req: IncomingMessage, client: Duplex, head: Buffer, target: URL, log?: (msg: string) => void): void {
  const backend: Socket = netConnect(Number(target.port || 80), target.hostname);
  const fail = (why: string) => {
    log?.(`streaming proxy to ${target.origin}: ${why}`);
    if (!client.destroyed) writeRaw(client, 502, `error dialing backend: ${why}`);
    backend.destroy();
  };
  client.on('error', () => backend.destroy());
  backend.once('error', (err) => fail(err.message));
  backend.once('connect', () => {
    const lines = [`${req.method} ${target.pathname}${target.search} HTTP/1.1`, `Host: ${target.host}`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i];
      // The agent's credentials stay with the agent: the runtime's URL carries its own token.
      if (/^(host|authorization|cookie|proxy-authorization)$/i.test(name)) continue;
      lines.push(`${name}: ${req.rawHeaders[i + 1]}`);
    }
    backend.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length) backend.write(head);
    let buf = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        if (buf.length > MAX_HEAD_BYTES) fail('the runtime\'s answer has no end of headers');
        return;
      }
      backend.off('data', onData);
      backend.removeAllListeners('error');
      backend.on('error', () => client.destroy());
      // The answer as the runtime wrote it (101 or a refusal), then the bytes both ways, with backpressure.
      client.write(buf);
      const upgraded = /^HTTP\/1\.[01] 101 /.test(buf.subarray(0, end).toString('latin1'));
      backend.pipe(client);
      if (upgraded) client.pipe(backend);
      client.on('close', () => backend.destroy());
      backend.on('close', () => client.destroy());
    };
    backend.on('data', onData);
  });
}
