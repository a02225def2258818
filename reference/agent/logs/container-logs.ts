// The agent's container logs (upstream kubelet server getContainerLogs, GetKubeletContainerLogs and
// kuberuntime ReadLogs): GET /containerLogs/{namespace}/{pod}/{container} with the PodLogOptions
// query (follow, previous, tailLines, limitBytes, sinceSeconds, sinceTime, timestamps), read from the
// log file the runtime writes for the container (ContainerStatus.log_path, CRI format: cri-log.ts).
// Which instance: the one the pod's status names, as upstream's validateContainerLogStatus picks it
// (the running one, else the last terminated one; `previous` the one before), so the answers match
// upstream's: 404 "pod ... does not exist" / "container ... not found in pod ...", 400 with the
// runtime-side reasons ("is waiting to start: ...", "previous terminated container ... not found"),
// 422 for options upstream's ValidatePodLogOptions refuses, 400 for a query it cannot decode.
//
// Following is bounded: records go out as the file grows (polled), with backpressure from the client;
// the stream ends when the client goes away, when the container is no longer running (after what it
// wrote last), when limitBytes is spent, or when the pod leaves the agent.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { aggregate } from '../../apiserver/field-errors.js';
import type { AgentRoute } from '../endpoints.js';
import { broken } from '../breaks.js';
import type { Runtime } from '../runtime.js';
import { LineReader, LogFormatter, parseCriLine, tailStart } from './cri-log.js';
import { parsePodLogQuery, PodLogQueryError, podLogOptionErrors, type PodLogOptions } from './log-options.js';

export interface ContainerLogsOptions {
  pods(): readonly any[];
  /** The pod's status as the agent computed it last (upstream's status manager), else the pod's own. */
  statusOf(pod: any): any;
  runtime: Runtime;
  /** How often a followed log is read again, ms (default 200). */
  followPollMs?: number;
  /** How often a follow checks that the container still runs, ms (default 1 s). */
  followStateCheckMs?: number;
}

let streams = 0;
/** Log streams the agents of this process are writing now (tests check that a follow ends). */
export function activeLogStreams(): number {
  return streams;
}

class LogsError extends Error {
  constructor(readonly status: number, message: string) { super(message); }
}

/** Upstream validateContainerLogStatus: the runtime id of the instance to read, or why there is none. */
export function containerIdForLogs(podName: string, status: any, container: string, previous: boolean): string {
  const all = [...(status?.containerStatuses ?? []), ...(status?.initContainerStatuses ?? []), ...(status?.ephemeralContainerStatuses ?? [])];
  const s = all.find((c: any) => c?.name === container);
  const where = `container ${JSON.stringify(container)} in pod ${JSON.stringify(podName)}`;
  if (!s) throw new LogsError(400, `${where} is not available`);
  const last = s.lastState?.terminated;
  const { waiting, running, terminated } = s.state ?? {};
  let id: string | undefined;
  if (previous) {
    if (!last?.containerID) throw new LogsError(400, `previous terminated container ${JSON.stringify(container)} in pod ${JSON.stringify(podName)} not found`);
    id = last.containerID;
  } else if (running) {
    id = s.containerID;
  } else if (terminated) {
    id = terminated.containerID || last?.containerID;
    if (!id) throw new LogsError(400, `${where} is terminated`);
  } else if (last) {
    if (!last.containerID) throw new LogsError(400, `${where} is terminated`);
    id = last.containerID;
  } else if (waiting) {
    if (waiting.reason === 'ErrImagePull') throw new LogsError(400, `${where} is waiting to start: image can't be pulled`);
    if (waiting.reason === 'ImagePullBackOff') throw new LogsError(400, `${where} is waiting to start: trying and failing to pull image`);
    throw new LogsError(400, `${where} is waiting to start: ${waiting.reason ?? ''}`);
  } else {
    throw new LogsError(400, `${where} is waiting to start - no logs yet`);
  }
  if (!id) throw new LogsError(400, `${where} is waiting to start - no logs yet`);
  // `<runtime>://<id>`: the runtime knows the id alone.
  return id.replace(/^[^:]*:\/\//, '');
}

function writeText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end(text);
}

/** Waits `ms`; never keeps the process up on its own. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Writes with backpressure; false when the client is gone. */
function send(res: ServerResponse, chunk: Buffer): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return Promise.resolve(false);
  if (res.write(chunk)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => { res.off('drain', onDrain); res.off('close', onClose); resolve(ok); };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

export function containerLogsRoute(o: ContainerLogsOptions): AgentRoute {
  const pollMs = o.followPollMs ?? 200;
  const stateCheckMs = o.followStateCheckMs ?? 1000;

  const stillRunning = async (id: string): Promise<boolean> => {
    try {
      return (await o.runtime.containerStatus(id)).state === 'CONTAINER_RUNNING';
    } catch {
      return false;
    }
  };

  const stream = async (req: IncomingMessage, res: ServerResponse, path: string, id: string, opts: PodLogOptions, podUid: string): Promise<void> => {
    const sinceNs = opts.sinceTime !== undefined ? BigInt(opts.sinceTime) * 1_000_000_000n
      : opts.sinceSeconds !== undefined ? (BigInt(Date.now()) - BigInt(opts.sinceSeconds) * 1000n) * 1_000_000n : undefined;
    const fmt = new LogFormatter({ sinceNs, timestamps: opts.timestamps, limitBytes: opts.limitBytes });
    // Test-only (breaks.ts): tailLines ignored, the whole log answered.
    const tail = broken('logs-tail-ignored') ? undefined : opts.tailLines;
    const reader = await LineReader.open(path, (fh, size) => (tail === undefined ? Promise.resolve(0) : tailStart(fh, size, tail)));
    streams++;
    let gone = false;
    // The connection closing before the end is the client going away.
    res.on('close', () => { gone = true; });
    // Headers go out at once, so that a follower sees the answer before the first new line.
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache, private', 'X-Content-Type-Options': 'nosniff' });
    res.flushHeaders();
    try {
      let lastCheck = Date.now();
      let ending = false;
      while (!gone && !fmt.done) {
        const lines = await reader.next();
        for (const line of lines) {
          const r = parseCriLine(line);
          // Test-only (breaks.ts): the stderr records left out.
          if (!r || (r.stream === 'stderr' && broken('logs-stdout-only'))) continue;
          const out = fmt.format(r);
          if (out.length && !(await send(res, out))) { gone = true; break; }
          if (fmt.done) break;
        }
        if (lines.length) continue;
        if (!opts.follow || ending) break;
        await pause(pollMs);
        if (await reader.reopenIfReplaced()) continue;
        if (Date.now() - lastCheck >= stateCheckMs) {
          lastCheck = Date.now();
          // The container stopped (or the pod left): one more read for what it wrote last, then the end.
          const podKnown = o.pods().some((p) => p?.metadata?.uid === podUid);
          if (!podKnown || !(await stillRunning(id))) ending = true;
        }
      }
    } finally {
      streams--;
      await reader.close();
      if (!res.destroyed) res.end();
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    let parts: string[];
    try {
      parts = url.pathname.slice('/containerLogs/'.length).split('/').map(decodeURIComponent);
    } catch {
      return writeText(res, 400, 'invalid URL path escape\n');
    }
    // Upstream's route is exactly {podNamespace}/{podID}/{containerName}.
    if (parts.length !== 3) return writeText(res, 404, '404 page not found\n');
    const [namespace, podName, container] = parts as [string, string, string];
    if (!namespace) return writeText(res, 400, '{"message": "Missing podNamespace."}');
    if (!podName) return writeText(res, 400, '{"message": "Missing podID."}');
    if (!container) return writeText(res, 400, '{"message": "Missing container name."}');
    let opts: PodLogOptions;
    try {
      opts = parsePodLogQuery(url.searchParams);
    } catch (err) {
      if (err instanceof PodLogQueryError) return writeText(res, 400, '{"message": "Unable to decode query."}');
      throw err;
    }
    const invalid = podLogOptionErrors(opts);
    if (invalid.length) return writeText(res, 422, aggregate(invalid));
    const pod = o.pods().find((p) => p?.metadata?.namespace === namespace && p?.metadata?.name === podName);
    if (!pod) return writeText(res, 404, `pod ${JSON.stringify(podName)} does not exist\n`);
    const spec = pod.spec ?? {};
    const named = [...(spec.containers ?? []), ...(spec.initContainers ?? []), ...(spec.ephemeralContainers ?? [])].some((c: any) => c?.name === container);
    if (!named) return writeText(res, 404, `container ${JSON.stringify(container)} not found in pod ${JSON.stringify(podName)}\n`);
    let path: string;
    let id: string;
    try {
      id = containerIdForLogs(podName, o.statusOf(pod), container, opts.previous);
      const status = await o.runtime.containerStatus(id).catch((err) => { throw new LogsError(400, `failed to get container status ${JSON.stringify(id)}: ${(err as Error).message}`); });
      path = (status as { log_path?: string }).log_path ?? '';
      if (!path) throw new LogsError(400, `container ${JSON.stringify(container)} in pod ${JSON.stringify(podName)} has no log file`);
    } catch (err) {
      if (err instanceof LogsError) return writeText(res, err.status, err.message);
      throw err;
    }
    try {
      await stream(req, res, path, id, opts, pod.metadata.uid);
    } catch (err) {
      // Before anything was sent: the file could not be opened (upstream: "failed to open log file").
      if (!res.headersSent) return writeText(res, 400, `failed to open log file ${JSON.stringify(path)}: ${(err as Error).message}`);
      res.destroy();
    }
  };

  return { path: '/containerLogs/', methods: ['GET'], handle };
}
