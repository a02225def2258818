// Container checkpoint (spec 001 §4.1, §8, §9): `POST /checkpoint/{namespace}/{pod}/{container}` on
// the agent's HTTPS port, behind gate ContainerCheckpoint (off: the route does not exist, so the
// port's generic 404 answers). Answers as upstream's kubelet writes them (ground truth):
//   404 `pod does not exist` / `container <name> does not exist` (containers, initContainers and
//       ephemeralContainers are searched) / `cannot parse value of timeout parameter` (the last
//       `timeout` counts; upstream parses it as a base-10 int64);
//   500 `checkpointing of <ns>/<pod>/<container> failed (<error>)`, the error in Go's gRPC form
//       (`rpc error: code = ... desc = ...`), saying so when the runtime lacks the API (UNIMPLEMENTED);
//   200 application/json `{"items":["<archive path>"]}`.
// The archive is `<root_dir>/checkpoints/checkpoint-<pod>_<namespace>-<container>-<RFC 3339>.tar`. It
// holds the container's memory, so the directory is kept 0700 and the archive 0600 (narrowed if the
// runtime left it wider). The names in the path are checked before anything touches the filesystem
// (DNS labels and subdomains, as the API requires of pods that exist), so `..`, `/` and their encoded
// forms can never make the location leave that directory.
import { chmod, lstat, mkdir, stat, truncate } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, dirname, join, resolve } from 'node:path';
import { isDNS1123Label, isDNS1123Subdomain } from '../apiserver/field-errors.js';
import type { FeatureGates } from '../features.js';
import { broken } from './breaks.js';
import type { AgentRoute } from './endpoints.js';
import { LABEL_CONTAINER_NAME, type Runtime } from './runtime.js';

export const CHECKPOINT_PREFIX = '/checkpoint/';

/** Go's names of the gRPC status codes (codes.Code.String()), for upstream's `rpc error: code = <name> desc = <message>`. */
const GO_CODE_NAMES = ['OK', 'Canceled', 'Unknown', 'InvalidArgument', 'DeadlineExceeded', 'NotFound', 'AlreadyExists', 'PermissionDenied',
  'ResourceExhausted', 'FailedPrecondition', 'Aborted', 'OutOfRange', 'Unimplemented', 'Internal', 'Unavailable', 'DataLoss', 'Unauthenticated'];
const UNIMPLEMENTED = 12;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Upstream's strconv.ParseInt(s, 10, 64): optional sign, decimal digits, within int64; undefined otherwise. */
export function parseInt64(text: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const v = BigInt(text);
  return v < INT64_MIN || v > INT64_MAX ? undefined : v;
}

/** An error as upstream's kubelet prints it: a gRPC status in Go's form, anything else by its message. */
function goError(err: unknown): string {
  const e = err as { code?: unknown; details?: unknown; message?: unknown };
  if (typeof e?.code === 'number' && GO_CODE_NAMES[e.code]) {
    const desc = typeof e.details === 'string' ? e.details : String(e.message ?? '');
    const text = `rpc error: code = ${GO_CODE_NAMES[e.code]} desc = ${desc}`;
    return e.code === UNIMPLEMENTED ? `the container runtime does not support checkpointing: ${text}` : text;
  }
  return typeof e?.message === 'string' ? e.message : String(err);
}

/** The archive's file name: upstream's `checkpoint-<podFullName>-<container>-<time.RFC3339>.tar`, in UTC. */
export function archiveName(pod: { name: string; namespace: string }, container: string, at: Date = new Date()): string {
  const time = broken('checkpoint-archive-name-unix-time')
    // Test-only (breaks.ts): the time as Unix seconds, not RFC 3339.
    ? String(Math.floor(at.getTime() / 1000))
    : at.toISOString().replace(/\.\d+Z$/, 'Z');
  return `checkpoint-${pod.name}_${pod.namespace}-${container}-${time}.tar`;
}

function text(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(body);
}

/** The path's three names, decoded, or undefined when the path does not have exactly three (upstream's route does not match). */
function pathNames(pathname: string): [string, string, string] | undefined {
  const parts = pathname.slice(CHECKPOINT_PREFIX.length).split('/');
  try {
    const names = parts.map((p) => decodeURIComponent(p));
    // Test-only (breaks.ts): a path without the container checkpoints the pod's first container.
    if (names.length === 2 && names.every(Boolean) && broken('checkpoint-container-defaulted')) return [names[0]!, names[1]!, ''];
    return names.length === 3 && names.every(Boolean) ? (names as [string, string, string]) : undefined;
  } catch {
    return undefined;
  }
}

const containerNames = (pod: any, kinds: readonly string[]): string[] =>
  kinds.flatMap((k) => (Array.isArray(pod?.spec?.[k]) ? pod.spec[k] : [])).map((c: any) => c?.name).filter((n: unknown): n is string => typeof n === 'string');

export interface CheckpointOptions {
  featureGates: FeatureGates;
  /** The pods the agent manages (its pod workers), read at each request. */
  pods(): readonly any[];
  runtime: Runtime;
  /** `<root_dir>/checkpoints`. */
  checkpointsDir: string;
  /** The timeout passed to the runtime for a request without one (or with 0); absent or 0: 0, the runtime's default. */
  defaultTimeoutSeconds?: number;
  log?(msg: string): void;
}

/** The checkpoint route, or none when the gate is off (upstream does not register it then). */
export function checkpointRoutes(o: CheckpointOptions): AgentRoute[] {
  // Test-only (breaks.ts): the route served with ContainerCheckpoint off.
  if (!o.featureGates.enabled('ContainerCheckpoint') && !broken('checkpoint-gate-ignored')) return [];
  // Test-only (breaks.ts): the gate off by default (on only where it was set to true explicitly).
  if (broken('checkpoint-off-by-default') && !process.argv.some((a) => /ContainerCheckpoint=true/i.test(a))) return [];
  return [{ path: CHECKPOINT_PREFIX, methods: ['POST'], handle: (req, res, url) => handleCheckpoint(o, req, res, url) }];
}

async function handleCheckpoint(o: CheckpointOptions, _req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const names = pathNames(url.pathname);
  if (!names) return text(res, 404, '404 page not found\n');
  const [namespace, podName, asked] = names;

  // Pods that exist have DNS names, so a name that is not one names no pod (and never reaches a path).
  const validPod = isDNS1123Label(namespace).length === 0 && isDNS1123Subdomain(podName).length === 0;
  const pod = validPod
    // Test-only (breaks.ts): the pod looked up by name in any namespace.
    ? o.pods().find((p) => p?.metadata?.name === podName && (p?.metadata?.namespace === namespace || broken('checkpoint-namespace-ignored')))
    : undefined;
  if (!pod) {
    // Test-only (breaks.ts): a missing pod answered 500, or in other words than upstream's.
    if (broken('checkpoint-pod-missing-500')) return text(res, 500, 'pod does not exist');
    return text(res, 404, broken('checkpoint-pod-missing-wording') ? `pod ${namespace}/${podName} not found` : 'pod does not exist');
  }
  // Test-only (breaks.ts): init containers not searched.
  const kinds = broken('checkpoint-init-containers-unsearched') ? ['containers', 'ephemeralContainers'] : ['containers', 'initContainers', 'ephemeralContainers'];
  const container = asked === '' ? containerNames(pod, ['containers'])[0] ?? '' : asked;
  // Test-only (breaks.ts): the container name not checked against the pod's spec.
  const known = broken('checkpoint-container-unchecked') || containerNames(pod, kinds).includes(container);
  if (!known || isDNS1123Label(container).length !== 0) return text(res, 404, `container ${container} does not exist`);

  const timeouts = url.searchParams.getAll('timeout');
  let timeout = 0n;
  if (timeouts.length > 0) {
    const parsed = parseInt64(timeouts[timeouts.length - 1]!);
    // Test-only (breaks.ts): an unparsable timeout taken for none.
    if (parsed === undefined && !broken('checkpoint-timeout-lenient')) return text(res, 404, 'cannot parse value of timeout parameter');
    // Test-only (breaks.ts): the timeout not passed to the runtime.
    timeout = broken('checkpoint-timeout-ignored') ? 0n : parsed ?? 0n;
  }
  // "Zero or unset means the default CRI timeout": the runtime's (0), or the agent's own when set.
  if (timeout === 0n && o.defaultTimeoutSeconds) timeout = BigInt(o.defaultTimeoutSeconds);

  const p = { name: String(pod.metadata.name), namespace: String(pod.metadata.namespace) };
  // Test-only (breaks.ts): the archive put in the root dir itself, not in checkpoints/.
  const dir = broken('checkpoint-archive-misplaced') ? dirname(o.checkpointsDir) : o.checkpointsDir;
  const file = archiveName(p, container);
  const location = join(dir, file);
  // Defence in depth: whatever the names, the archive stays a direct child of its directory.
  if (file.includes('/') || file.includes('\0') || dirname(resolve(location)) !== resolve(dir)) return text(res, 404, `container ${container} does not exist`);
  const failed = (why: string) => text(res, 500, broken('checkpoint-runtime-error-wording')
    // Test-only (breaks.ts): the failure in other words than upstream's.
    ? `checkpoint of container ${container} in pod ${namespace}/${podName} failed: ${why}`
    : `checkpointing of ${namespace}/${podName}/${container} failed (${why})`);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // stat, not lstat: an operator may have linked checkpoints/ to another disk, as upstream allows.
    const st = await stat(dir);
    if (!st.isDirectory()) return failed(`${dir} is not a directory`);
    if ((st.mode & 0o077) !== 0) await chmod(dir, 0o700);

    // The newest running instance of the container, as upstream finds it among the running pods.
    const candidates = (await o.runtime.listContainers(pod.metadata.uid))
      .filter((c) => (c.labels?.[LABEL_CONTAINER_NAME] ?? c.metadata?.name) === container && c.state === 'CONTAINER_RUNNING')
      .sort((a, b) => (b.metadata?.attempt ?? 0) - (a.metadata?.attempt ?? 0) || Number(b.created_at) - Number(a.created_at));
    const found = candidates[0];
    if (!found) return failed(`container ${container} not found`);
    // Test-only (breaks.ts): no CheckpointContainer call at all.
    if (!broken('checkpoint-cri-skipped')) {
      // Test-only (breaks.ts): only the file name as the location, not the absolute path.
      await o.runtime.checkpointContainer(found.id, broken('checkpoint-location-relative') ? basename(location) : location, timeout);
    }
  } catch (err) {
    if ((err as { code?: unknown }).code === UNIMPLEMENTED && broken('checkpoint-unimplemented-501')) {
      // Test-only (breaks.ts): a runtime without the API answered 501, not 500.
      return text(res, 501, `checkpointing of ${namespace}/${podName}/${container} failed (${goError(err)})`);
    }
    // Test-only (breaks.ts): the runtime's error left out of the message.
    return failed(broken('checkpoint-runtime-error-details-dropped') ? 'the container runtime failed' : goError(err));
  }
  await narrowArchive(location, o.log);

  // Test-only (breaks.ts): the archive answered under another key than `items`.
  const body = broken('checkpoint-body-unlisted') ? JSON.stringify({ archive: location }) : JSON.stringify({ items: [location] });
  // Test-only (breaks.ts): 201 Created instead of 200.
  res.writeHead(broken('checkpoint-answers-201') ? 201 : 200, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(body);
}

/** The archive holds the container's memory: owner-only, whatever mode the runtime gave it. */
async function narrowArchive(location: string, log?: (msg: string) => void): Promise<void> {
  try {
    const st = await lstat(location);
    if (!st.isFile()) return;
    // Test-only (breaks.ts): the archive left readable by everyone.
    if (broken('checkpoint-archive-world-readable')) await chmod(location, 0o644);
    else if ((st.mode & 0o077) !== 0) await chmod(location, 0o600);
    // Test-only (breaks.ts): the archive cut short (not a whole tar archive any more).
    if (broken('checkpoint-archive-truncated')) await truncate(location, Math.floor(st.size / 2) + 100);
  } catch (err) {
    // A runtime that keeps archives elsewhere (or on another file system view) leaves nothing here to narrow.
    log?.(`checkpoint archive ${location}: ${(err as Error).message}`);
  }
}
