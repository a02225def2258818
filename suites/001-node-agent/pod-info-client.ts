// A client of the agent's pod info gRPC service (spec 001 §4.2) for cases: ListPods, GetPod and WatchPods
// over the unix socket, with gRPC metadata (the field mask), pods decoded from their JSON bytes
// (pods.proto: this project's encoding of Pod). grpc-js and the proto are loaded on first use, so runs
// without pod info cases (list, API-only runs) do not pay for them. Calls answer their gRPC status
// instead of throwing, so that a case can expect an error code; a pod that is not JSON fails the case.
import type * as Grpc from '@grpc/grpc-js';
import { fail, show, skip } from '../verify.js';
import { FIELD_MASK_KEY, PODS_SERVICE } from '../../reference/agent/pod-info/names.js';

export { FIELD_MASK_KEY, PODS_SERVICE };

export interface CallOptions {
  /** The field mask: comma-joined paths under FIELD_MASK_KEY. */
  mask?: string;
  /** Further metadata entries, in order (a key given twice sends two values). */
  metadata?: ReadonlyArray<readonly [string, string | Buffer]>;
  deadlineMs?: number;
}

export interface GrpcStatus { code: number; codeName: string; details: string }
export type Outcome<T> = ({ ok: true } & T) | ({ ok: false } & GrpcStatus);

export interface PodEvent { type: string; pod: any }

export interface PodWatch {
  /** The next event, or the stream's end (a status), or undefined when `timeoutMs` passes first. */
  next(timeoutMs: number): Promise<{ event: PodEvent } | { end: GrpcStatus } | undefined>;
  close(): void;
}

export interface PodInfoClient {
  readonly socketPath: string;
  list(o?: CallOptions): Promise<Outcome<{ pods: any[] }>>;
  get(podUID: string, o?: CallOptions): Promise<Outcome<{ pod: any }>>;
  watch(o?: CallOptions): PodWatch;
  close(): void;
}

type GrpcModule = typeof Grpc;
let grpcModule: Promise<{ grpc: GrpcModule; Pods: Grpc.ServiceClientConstructor }> | undefined;
const load = () => grpcModule ??= (async () => {
  const [grpc, proto] = await Promise.all([import('@grpc/grpc-js'), import('../../reference/agent/pod-info/proto.js')]);
  return { grpc, Pods: proto.loadPods().Pods };
})();

/** The name of a gRPC status code (`NOT_FOUND`). */
export function codeName(grpc: GrpcModule, code: number): string {
  return (grpc.status as unknown as Record<number, string>)[code] ?? `code ${code}`;
}

/** A pod from its bytes: JSON (UTF-8), an object. Fails the case otherwise, showing what came. */
export function decodePod(bytes: Buffer | Uint8Array | undefined, what: string): any {
  const buf = Buffer.from(bytes ?? []);
  let pod: unknown;
  try {
    pod = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(buf));
  } catch {
    pod = undefined;
  }
  if (!pod || typeof pod !== 'object' || Array.isArray(pod)) {
    const preview = buf.length === 0 ? '(empty)' : /^[\x09\x0a\x0d\x20-\x7e]*$/.test(buf.subarray(0, 200).toString('latin1')) ? show(buf.subarray(0, 200).toString('latin1')) : `hex ${buf.subarray(0, 64).toString('hex')}`;
    fail(`${what}: the pod's bytes decode as a JSON object (this suite's encoding of Pod, UTF-8; see pods.proto)`, 'a JSON Pod object', `${buf.length} bytes: ${preview}`);
  }
  return pod;
}

/** Opens a client on the socket at `socketPath`. */
export async function podInfoClient(socketPath: string): Promise<PodInfoClient> {
  const { grpc, Pods } = await load();
  const client = new Pods(`unix:${socketPath}`, grpc.credentials.createInsecure(), { 'grpc.max_receive_message_length': 64 * 1024 * 1024 });
  const watches = new Set<PodWatch>();
  const metadataOf = (o: CallOptions = {}): Grpc.Metadata => {
    const md = new grpc.Metadata();
    if (o.mask !== undefined) md.add(FIELD_MASK_KEY, o.mask);
    for (const [k, v] of o.metadata ?? []) md.add(k, v);
    return md;
  };
  const statusOf = (err: Grpc.ServiceError): GrpcStatus => ({ code: err.code, codeName: codeName(grpc, err.code), details: err.details ?? err.message });
  const unary = <T>(rpc: 'ListPods' | 'GetPod', req: object, o: CallOptions = {}, pick: (res: any) => T): Promise<Outcome<T>> =>
    new Promise((resolve, reject) => {
      const deadline = new Date(Date.now() + (o.deadlineMs ?? 5_000));
      (client as any)[rpc](req, metadataOf(o), { deadline }, (err: Grpc.ServiceError | null, res: any) => {
        if (err) return resolve({ ok: false, ...statusOf(err) });
        // A pod that does not decode fails the case where it awaits the call.
        try {
          resolve({ ok: true, ...pick(res) });
        } catch (e) {
          reject(e);
        }
      });
    });

  return {
    socketPath,
    list: (o) => unary('ListPods', {}, o, (res) => ({ pods: (res?.pods ?? []).map((b: Buffer, i: number) => decodePod(b, `ListPods: pods[${i}]`)) })),
    get: (uid, o) => unary('GetPod', { podUID: uid }, o, (res) => ({ pod: decodePod(res?.pod, 'GetPod: pod') })),
    watch(o) {
      const stream: Grpc.ClientReadableStream<any> = (client as any).WatchPods({}, metadataOf(o));
      // Messages are decoded in next(), so that a pod that is not JSON fails the case in its own flow.
      const queue: Array<{ message: any } | { end: GrpcStatus }> = [];
      let wake: (() => void) | undefined;
      const push = (item: { message: any } | { end: GrpcStatus }) => { queue.push(item); wake?.(); };
      let ended = false;
      stream.on('data', (message: any) => push({ message }));
      stream.on('error', (err: Grpc.ServiceError) => { if (!ended) { ended = true; push({ end: statusOf(err) }); } });
      stream.on('status', (s: Grpc.StatusObject) => { if (!ended && s.code === grpc.status.OK) { ended = true; push({ end: { code: 0, codeName: 'OK', details: s.details } }); } });
      const w: PodWatch = {
        async next(timeoutMs) {
          if (!queue.length) {
            await new Promise<void>((resolve) => {
              const t = setTimeout(resolve, Math.max(0, timeoutMs));
              wake = () => { clearTimeout(t); resolve(); };
            });
            wake = undefined;
          }
          const item = queue.shift();
          if (!item || 'end' in item) return item;
          return { event: { type: String(item.message?.type ?? 'ADDED'), pod: decodePod(item.message?.pod, 'WatchPods: pod') } };
        },
        close() {
          watches.delete(w);
          stream.cancel();
        },
      };
      watches.add(w);
      return w;
    },
    close() {
      for (const w of [...watches]) w.close();
      client.close();
    },
  };
}

/** Runs `fn` with a client on `socketPath`, closed afterwards. */
export async function withPodInfo<T>(socketPath: string, fn: (c: PodInfoClient) => Promise<T>): Promise<T> {
  const c = await podInfoClient(socketPath);
  try {
    return await fn(c);
  } finally {
    c.close();
  }
}

/**
 * The value of a call the case needs to succeed. UNIMPLEMENTED skips: the spec names the RPCs but no
 * gRPC package or service, and this suite calls upstream's (agent.podinfo.service-name checks that).
 */
export function expectOk<T>(o: Outcome<T>, what: string): { ok: true } & T {
  if (o.ok) return o;
  if (o.codeName === 'UNIMPLEMENTED') skip(`${what}: the agent answers UNIMPLEMENTED for ${PODS_SERVICE}; the spec names no gRPC package or service, so its own cannot be called (${o.details})`);
  return fail(what, 'gRPC status OK', `${o.codeName}: ${show(o.details)}`);
}

/**
 * Polls ListPods (every 200 ms) until the pod with `uid` is listed and satisfies `pred`; gives it.
 * Fails with the last answer when `timeoutMs` passes.
 */
export async function listedPod(c: PodInfoClient, uid: string, pred: (p: any) => boolean, what: string, expected: string, timeoutMs = 15_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = 'no answer';
  for (;;) {
    const r = await c.list();
    if (r.ok) {
      const p = r.pods.find((x) => x?.metadata?.uid === uid);
      if (p && pred(p)) return p;
      last = p ? p.status ?? p : `${r.pods.length} pod(s), none with UID ${uid}`;
    } else if (r.codeName === 'UNIMPLEMENTED') {
      expectOk(r, `${what}: ListPods`);
    } else {
      last = `${r.codeName}: ${r.details}`;
    }
    if (Date.now() >= deadline) fail(`${what} (within ${timeoutMs / 1000}s)`, expected, typeof last === 'string' ? last : show(last));
    await new Promise((r) => setTimeout(r, 200));
  }
}
