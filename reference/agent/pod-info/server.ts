// The pod info gRPC service (spec 001 §4.2, §6, §7, §8) on the unix socket <root_dir>/pods/agent.sock:
// ListPods, WatchPods and GetPod over the pods the agent manages (its pod workers, with the status it
// computed last), as pods.proto describes. The socket is owner-only: it is bound inside pods/ (0700,
// root-dir.ts), so nobody else can reach it before it is narrowed to 0600. Not served on Windows
// (spec: not supported there).
//
// Bad input answers a gRPC status and never takes the agent down: undecodable requests and unknown
// methods are grpc-js's (INTERNAL, UNIMPLEMENTED), requests are at most 16 KiB, field masks are
// bounded (field-mask.ts), and watches whose clients stop reading are cut with RESOURCE_EXHAUSTED
// (cri/stream-bound.ts: an HTTP/2 reset, so that what they left unread is freed at once) once more
// than `watchMaxPendingBytes` (default 16 MiB) past a watch's initial list wait to be sent, or more
// than 64 MiB over one connection's watches, or 128 MiB over all: the stream holding most goes first.
import { chmod, lstat, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { prepareSocketPath } from '../../../cri/unix-socket.js';
import { listenAnyAuthority, type AnyAuthorityListener } from '../../../cri/authority.js';
import { StreamBudget, type BoundedStream } from '../../../cri/stream-bound.js';
import { broken } from '../breaks.js';
import type * as FieldMasks from './field-mask.js';
import { FIELD_MASK_KEY, loadPods, type PodEventType } from './proto.js';

/** What the service serves: the agent's pods, as the JSON objects it sends, and their changes. */
export interface PodInfoSource {
  /** False until the agent's state is initialized after a start: every call is FAILED_PRECONDITION until then. */
  initialized(): boolean;
  /** Every pod the agent manages. */
  pods(): any[];
  pod(uid: string): any | undefined;
  /** `fn(uid)` is called when a pod may have been added, changed or forgotten; returns the unsubscribe. */
  onChange(fn: (uid: string) => void): () => void;
}

export interface PodInfoServerOptions {
  socketPath: string;
  source: PodInfoSource;
  /** A watch is dropped once this many bytes of events past its initial list wait for its client. */
  watchMaxPendingBytes?: number;
  /** The watches of one client connection are cut, slowest first, past this many unsent bytes together. */
  watchMaxConnectionPendingBytes?: number;
  /** All watches are cut, slowest first, past this many unsent bytes together. */
  watchMaxTotalPendingBytes?: number;
}

export interface PodInfoServer {
  readonly socketPath: string;
  /** Bytes of watch events not yet sent, over every watch. */
  readonly watchPendingBytes: number;
  close(): Promise<void>;
}

export const DEFAULT_WATCH_MAX_PENDING_BYTES = 16 * 1024 * 1024;
export const DEFAULT_WATCH_MAX_CONNECTION_PENDING_BYTES = 64 * 1024 * 1024;
export const DEFAULT_WATCH_MAX_TOTAL_PENDING_BYTES = 128 * 1024 * 1024;
const MAX_REQUEST_BYTES = 16 * 1024;
export const NOT_INITIALIZED = 'the agent is not initialized yet (its pod sources or its first runtime relist are not done); retry shortly';

interface GrpcError { code: grpc.status; details: string }
const failure = (code: grpc.status, details: string): GrpcError => ({ code, details });

const notFound = (uid: string) => failure(grpc.status.NOT_FOUND, `pod with UID ${uid.length > 256 ? `${uid.slice(0, 256)}…` : uid} not found`);

const uidOf = (pod: any): string => String(pod?.metadata?.uid ?? '');
const byUid = (a: any, b: any) => (uidOf(a) < uidOf(b) ? -1 : uidOf(a) > uidOf(b) ? 1 : 0);

/**
 * field-mask.ts, loaded by the first request that carries a mask: it checks paths against the Pod
 * schema, which brings in the reference's whole Pod strategy (about 30 modules, a tenth of an agent
 * launch's start), and most callers ask for whole pods.
 */
let fieldMasks: typeof FieldMasks | undefined;
const loadFieldMasks = async (): Promise<typeof FieldMasks> => (fieldMasks ??= await import('./field-mask.js'));

interface Watcher {
  call: grpc.ServerWritableStream<any, any>;
  mask?: string[];
  bounded: BoundedStream;
  done: boolean;
}

export async function startPodInfoServer(o: PodInfoServerOptions): Promise<PodInfoServer> {
  if (process.platform === 'win32') throw new Error('the pod info service is not supported on Windows');
  const source = o.source;
  const budget = new StreamBudget({
    perStream: o.watchMaxPendingBytes ?? DEFAULT_WATCH_MAX_PENDING_BYTES,
    perConnection: o.watchMaxConnectionPendingBytes ?? DEFAULT_WATCH_MAX_CONNECTION_PENDING_BYTES,
    total: o.watchMaxTotalPendingBytes ?? DEFAULT_WATCH_MAX_TOTAL_PENDING_BYTES,
  });
  const watchers = new Set<Watcher>();
  /** The JSON of each pod as last announced, for change detection and the DELETED event's body. */
  const known = new Map<string, string>();

  const encode = (json: string, mask?: string[]): Buffer => {
    // Test-only (breaks.ts): without a mask, the pod without its spec.
    const m = mask ?? (broken('podinfo-partial-pod') ? ['apiVersion', 'kind', 'metadata', 'status'] : undefined);
    // A mask was admitted (admit loaded field-mask.ts for it) or the break above loaded it at start.
    return Buffer.from(m ? JSON.stringify(fieldMasks!.applyFieldMask(JSON.parse(json), m)) : json, 'utf8');
  };

  /** The request's state check and field mask, or the status that refuses it. */
  const admit = async (metadata: grpc.Metadata): Promise<{ mask?: string[] } | GrpcError> => {
    // Test-only (breaks.ts): calls are answered before the agent's state is initialized.
    if (!source.initialized() && !broken('podinfo-no-precondition')) return failure(grpc.status.FAILED_PRECONDITION, NOT_INITIALIZED);
    // Test-only (breaks.ts): the mask is read from another metadata key.
    const key = broken('podinfo-mask-key-other') ? 'x-fieldmask' : FIELD_MASK_KEY;
    const values = metadata.get(key);
    if (values.length === 0) return {};
    const { fieldMaskOf, FieldMaskError } = await loadFieldMasks();
    try {
      return { mask: fieldMaskOf(values) };
    } catch (err) {
      if (err instanceof FieldMaskError) return failure(grpc.status.INVALID_ARGUMENT, err.message);
      throw err;
    }
  };

  const drop = (w: Watcher, err: GrpcError) => {
    if (w.done) return;
    w.done = true;
    watchers.delete(w);
    w.bounded.forget();
    w.call.emit('error', err);
  };

  const send = (w: Watcher, type: PodEventType, json: string): void => {
    if (w.done) return;
    // Test-only (breaks.ts): pod changes after the initial list are not streamed.
    if (type !== 'ADDED' && broken('podinfo-watch-no-updates')) return;
    let pod: Buffer;
    try {
      pod = encode(json, w.mask);
    } catch {
      return;
    }
    if (!w.bounded.write({ pod, type }, pod.length + 8)) {
      // Cut (stream-bound.ts): the reset already ended the call.
      w.done = true;
      watchers.delete(w);
    }
  };

  /** Compares a pod with what was last announced and streams the difference to every watcher. */
  const announce = (uid: string): void => {
    const pod = source.pod(uid);
    const json = pod === undefined ? undefined : JSON.stringify(pod);
    const before = known.get(uid);
    if (json === before) return;
    if (json === undefined) known.delete(uid);
    else known.set(uid, json);
    const type: PodEventType = before === undefined ? 'ADDED' : json === undefined ? 'DELETED' : 'MODIFIED';
    for (const w of [...watchers]) send(w, type, json ?? before!);
  };
  const unsubscribe = source.onChange((uid) => {
    try {
      announce(uid);
    } catch {
      // A pod that cannot be serialized is left as it was announced.
    }
  });

  const listPods = async (call: grpc.ServerUnaryCall<any, any>, cb: grpc.sendUnaryData<any>) => {
    const a = await admit(call.metadata);
    if ('code' in a) return cb(a);
    // Test-only (breaks.ts): the list is empty, or in descending UID order.
    const all = broken('podinfo-list-empty') ? [] : [...source.pods()].sort(byUid);
    if (broken('podinfo-list-unsorted')) all.reverse();
    cb(null, { pods: all.map((p) => encode(JSON.stringify(p), a.mask)) });
  };

  const getPod = async (call: grpc.ServerUnaryCall<any, any>, cb: grpc.sendUnaryData<any>) => {
    const a = await admit(call.metadata);
    if ('code' in a) return cb(a);
    const uid = String(call.request?.podUID ?? '');
    // Test-only (breaks.ts): GetPod finds no pod; an unknown UID answers an empty pod.
    if (broken('podinfo-get-unknown-empty')) {
      const pod = source.pod(uid);
      return cb(null, { pod: pod === undefined ? Buffer.alloc(0) : encode(JSON.stringify(pod), a.mask) });
    }
    const pod = broken('podinfo-get-not-found') ? undefined : source.pod(uid);
    if (pod === undefined) return cb(notFound(uid));
    cb(null, { pod: encode(JSON.stringify(pod), a.mask) });
  };

  const watchPods = async (call: grpc.ServerWritableStream<any, any>) => {
    const a = await admit(call.metadata);
    // Cancelled while field-mask.ts loaded: nothing to register (its 'cancelled' event has passed).
    if (call.cancelled) return;
    if ('code' in a) {
      call.emit('error', a);
      return;
    }
    const w: Watcher = { call, mask: a.mask, bounded: budget.open(call), done: false };
    const forget = () => { w.done = true; watchers.delete(w); w.bounded.forget(); };
    call.on('cancelled', forget);
    call.on('close', forget);
    call.on('error', forget);
    // The current pods first, as they are announced, then every change from here on.
    const current = [...source.pods()].sort(byUid);
    for (const p of current) announce(uidOf(p));
    // Test-only (breaks.ts): no initial list.
    const initial = broken('podinfo-watch-no-initial') ? [] : current.map((p) => known.get(uidOf(p))).filter((j): j is string => j !== undefined);
    w.bounded.allow(initial.reduce((n, j) => n + j.length + 8, 0));
    watchers.add(w);
    for (const json of initial) send(w, 'ADDED', json);
  };

  // Test-only (breaks.ts): every pod is answered masked, so the masks are needed from the start.
  if (broken('podinfo-partial-pod')) await loadFieldMasks();
  const serviceDef = loadPods().Pods.service;
  // Test-only (breaks.ts): served under another package than upstream's v1alpha1.
  const definition = broken('podinfo-package-renamed')
    ? Object.fromEntries(Object.entries(serviceDef).map(([k, m]) => [k, { ...m, path: m.path.replace('/v1alpha1.', '/podinfo.v1.') }]))
    : serviceDef;

  const server = new grpc.Server({ 'grpc.max_receive_message_length': MAX_REQUEST_BYTES, 'grpc.max_concurrent_streams': 256 });
  server.addService(definition as grpc.ServiceDefinition, { ListPods: listPods, GetPod: getPod, WatchPods: watchPods });

  let socketPath: string;
  let ino = -1;
  let listener: AnyAuthorityListener | undefined;
  try {
    socketPath = await prepareSocketPath(o.socketPath);
    // The socket is made with the process umask before it can be narrowed: only a private directory
    // keeps others from connecting in between.
    const dirMode = (await stat(dirname(socketPath))).mode & 0o777;
    if (dirMode & 0o077) throw new Error(`its directory ${dirname(socketPath)} is open to others (0${dirMode.toString(8)}); it must be owner-only (0700)`);
    // Not server.bindAsync: clients may send any :authority (grpc-go's socket path), which grpc-js's
    // HTTP/2 server refuses; the listener (cri/authority.ts) hands connections over with it rewritten.
    listener = await listenAnyAuthority(server, socketPath);
    // Bound with the process umask inside a 0700 directory; narrowed before anyone is told it exists.
    // Test-only (breaks.ts): left readable and writable by everyone, its directory open as well.
    await chmod(socketPath, broken('podinfo-socket-world') ? 0o666 : 0o600);
    if (broken('podinfo-socket-world')) await chmod(dirname(socketPath), 0o755);
    ino = (await lstat(socketPath)).ino;
  } catch (err) {
    unsubscribe();
    server.forceShutdown();
    await listener?.destroyConnections();
    throw new Error(`cannot serve the pod info socket ${o.socketPath}: ${(err as Error).message}`);
  }

  let closing: Promise<void> | undefined;
  return {
    socketPath,
    get watchPendingBytes() { return budget.pendingBytes; },
    close: () => closing ??= (async () => {
      unsubscribe();
      for (const w of [...watchers]) drop(w, failure(grpc.status.UNAVAILABLE, 'the agent is stopping'));
      listener!.stop();
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => server.forceShutdown(), 1000);
        server.tryShutdown(() => { clearTimeout(t); resolve(); });
      });
      await listener!.destroyConnections();
      // The socket goes only if it is still the one this server made.
      try {
        if ((await lstat(socketPath)).ino === ino) await unlink(socketPath);
      } catch { /* already gone */ }
    })(),
  };
}
