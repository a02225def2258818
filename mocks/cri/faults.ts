// Fault injection and the call log of the mock CRI runtime.
//
// A suite drives the node agent's error paths by making the runtime misbehave on purpose: answer an
// RPC with a chosen gRPC status, answer late, never answer, or do so only for the next N calls. Every
// RPC handler asks `Faults.before()` first and records itself in the `CallLog`, so a case can both
// provoke a failure and check afterwards what the agent asked for (sandbox, seccomp profile, mounts,
// labels...). Both are plain in-memory objects: the control HTTP API (control.ts) and in-process
// callers drive the same instances.
import { nowNs, rfc3339Nano } from './clock.js';
import { timerDelay } from '../../cri/timers.js';

/** Every RPC of runtime.v1 that the mock's api.proto declares, by service (a test keeps the lists and
 *  the .proto in step). A fault or a call-log filter naming anything else is refused, so a typo cannot
 *  silently match nothing. RPCs the mock does not implement are listed too: a fault on them fires
 *  before the UNIMPLEMENTED answer (Exec, Attach, PortForward, and the Stream* list RPCs of KEP-5825). */
export const RUNTIME_SERVICE_RPCS = [
  'Version',
  'RunPodSandbox',
  'StopPodSandbox',
  'RemovePodSandbox',
  'PodSandboxStatus',
  'ListPodSandbox',
  'StreamPodSandboxes',
  'CreateContainer',
  'StartContainer',
  'StopContainer',
  'RemoveContainer',
  'ListContainers',
  'StreamContainers',
  'ContainerStatus',
  'UpdateContainerResources',
  'ReopenContainerLog',
  'ExecSync',
  'Exec',
  'Attach',
  'PortForward',
  'ContainerStats',
  'ListContainerStats',
  'StreamContainerStats',
  'PodSandboxStats',
  'ListPodSandboxStats',
  'StreamPodSandboxStats',
  'UpdateRuntimeConfig',
  'Status',
  'CheckpointContainer',
  'GetContainerEvents',
  'ListMetricDescriptors',
  'ListPodSandboxMetrics',
  'StreamPodSandboxMetrics',
  'RuntimeConfig',
  'UpdatePodSandboxResources',
] as const;

export const IMAGE_SERVICE_RPCS = [
  'ListImages',
  'StreamImages',
  'ImageStatus',
  'PullImage',
  'RemoveImage',
  'ImageFsInfo',
] as const;

/** All RPC names of both services (no name occurs in both). */
export const CRI_RPCS: readonly string[] = [...RUNTIME_SERVICE_RPCS, ...IMAGE_SERVICE_RPCS];

const RPC_SERVICE = new Map<string, 'RuntimeService' | 'ImageService'>([
  ...RUNTIME_SERVICE_RPCS.map((r) => [r, 'RuntimeService'] as const),
  ...IMAGE_SERVICE_RPCS.map((r) => [r, 'ImageService'] as const),
]);

/** The service that declares `rpc`, or undefined for a name that is not a CRI RPC. */
export function criServiceOf(rpc: string): 'RuntimeService' | 'ImageService' | undefined {
  return RPC_SERVICE.get(rpc);
}

/** gRPC status names by code (grpc/doc/statuscodes.md), for default fault messages and errors. */
export const GRPC_STATUS_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
] as const;

const CANCELLED = 1;

/** Bounds that keep a fault from outliving any sensible test: 10 minutes of delay, a million calls,
 *  4 KiB of message (it travels in a gRPC trailer, where big values hurt). */
export const MAX_DELAY_MS = 600_000;
export const MAX_TIMES = 1_000_000;
export const MAX_MESSAGE_CHARS = 4096;

/** A fault for one RPC name as the service defines it, e.g. 'CheckpointContainer', 'ListPodSandboxMetrics'. */
export interface FaultSpec {
  rpc: string;
  /** gRPC status code number (grpc.status.*) to answer with; absent with `delayMs` only = delay then
   *  answer normally. 0 (OK) also means "answer normally" after any delay. */
  code?: number;
  message?: string;
  /** Wait this long before answering (or before the error). */
  delayMs?: number;
  /** Never answer until the client cancels or the deadline passes (the call then ends
   *  CANCELLED/DEADLINE_EXCEEDED on the client side). */
  hang?: boolean;
  /** Only the next N calls; absent = every call until cleared. */
  times?: number;
  /**
   * Only calls about this pod, `<namespace>/<name>` of its sandbox metadata (RunPodSandbox,
   * CreateContainer and PullImage by their sandbox config; the others by the sandbox or container
   * id they name). Cases that share one runtime with other cases fault only their own pod.
   */
  pod?: string;
}

export interface ActiveFault extends FaultSpec {
  id: string;
  /** Calls left before the fault goes away; only for faults added with `times`. */
  remaining?: number;
}

/** A fault specification that cannot be applied; the message says which field and why. */
export class FaultSpecError extends Error {
  override name = 'FaultSpecError';
}

const SPEC_FIELDS = new Set(['rpc', 'code', 'message', 'delayMs', 'hang', 'times', 'pod']);

function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

/** Checks a fault specification of unknown origin (JSON from the control API as much as TS callers)
 *  and returns a clean copy holding only the known fields. */
export function validateFaultSpec(input: unknown): FaultSpec {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new FaultSpecError('a fault must be a JSON object with at least "rpc"');
  }
  const o = input as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (!SPEC_FIELDS.has(k)) {
      throw new FaultSpecError(`unknown fault field "${k}" (known: ${[...SPEC_FIELDS].join(', ')})`);
    }
  }
  if (typeof o.rpc !== 'string' || o.rpc === '') {
    throw new FaultSpecError('fault field "rpc" must be a non-empty string naming a CRI RPC, e.g. "CheckpointContainer"');
  }
  if (!RPC_SERVICE.has(o.rpc)) {
    throw new FaultSpecError(`fault field "rpc": "${o.rpc}" is not an RPC of runtime.v1 RuntimeService or ImageService`);
  }
  const spec: FaultSpec = { rpc: o.rpc };
  if (o.code !== undefined) {
    if (!isInt(o.code) || o.code < 0 || o.code > 16) {
      throw new FaultSpecError(`fault field "code" must be a gRPC status code, an integer 0..16 (got ${JSON.stringify(o.code)})`);
    }
    spec.code = o.code;
  }
  if (o.message !== undefined) {
    if (typeof o.message !== 'string') throw new FaultSpecError('fault field "message" must be a string');
    if (o.message.length > MAX_MESSAGE_CHARS) {
      throw new FaultSpecError(`fault field "message" is longer than ${MAX_MESSAGE_CHARS} characters`);
    }
    spec.message = o.message;
  }
  if (o.delayMs !== undefined) {
    if (!isInt(o.delayMs) || o.delayMs < 0 || o.delayMs > MAX_DELAY_MS) {
      throw new FaultSpecError(`fault field "delayMs" must be an integer 0..${MAX_DELAY_MS} (got ${JSON.stringify(o.delayMs)})`);
    }
    spec.delayMs = o.delayMs;
  }
  if (o.hang !== undefined) {
    if (typeof o.hang !== 'boolean') throw new FaultSpecError('fault field "hang" must be a boolean');
    if (o.hang) spec.hang = true;
  }
  if (o.times !== undefined) {
    // 0 would be a fault that never fires: refused rather than accepted and silently dropped.
    if (!isInt(o.times) || o.times < 1 || o.times > MAX_TIMES) {
      throw new FaultSpecError(`fault field "times" must be an integer 1..${MAX_TIMES} (got ${JSON.stringify(o.times)})`);
    }
    spec.times = o.times;
  }
  if (o.pod !== undefined) {
    if (typeof o.pod !== 'string' || !/^[^/\s]+\/[^/\s]+$/.test(o.pod) || o.pod.length > 512) {
      throw new FaultSpecError(`fault field "pod" must be "<namespace>/<name>" (got ${JSON.stringify(o.pod)})`);
    }
    spec.pod = o.pod;
  }
  if (spec.hang && (spec.code !== undefined || spec.delayMs !== undefined)) {
    throw new FaultSpecError('fault field "hang" excludes "code" and "delayMs": a hung call never answers');
  }
  if (spec.message !== undefined && spec.code === undefined) {
    throw new FaultSpecError('fault field "message" needs "code": it is the text of the error answered');
  }
  if (!spec.hang && spec.code === undefined && spec.delayMs === undefined) {
    throw new FaultSpecError('a fault needs "code", "delayMs" or "hang": this one would change nothing');
  }
  return spec;
}

/** Resolves after `ms`, or early with `true` when `signal` aborts. */
function waitOrAbort(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(false);
    }, timerDelay(ms));
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Resolves when `signal` aborts, and only then. */
function untilAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

const NO_FAULT: Promise<undefined> = Promise.resolve(undefined);

/** The active faults, kept per RPC in the order they were added. */
export class Faults {
  private readonly byRpc = new Map<string, ActiveFault[]>();
  private nextId = 1;

  /** Validates `spec` (throws FaultSpecError) and activates it after any fault already on its RPC. */
  add(spec: FaultSpec): ActiveFault {
    const clean = validateFaultSpec(spec);
    const fault: ActiveFault = { id: `fault-${this.nextId++}`, ...clean };
    if (clean.times !== undefined) fault.remaining = clean.times;
    const list = this.byRpc.get(clean.rpc);
    if (list) list.push(fault);
    else this.byRpc.set(clean.rpc, [fault]);
    return { ...fault };
  }

  /** Copies of the active faults in the order they were added (which is also each RPC's firing order). */
  list(): ActiveFault[] {
    const all: ActiveFault[] = [];
    for (const list of this.byRpc.values()) for (const f of list) all.push({ ...f });
    return all.sort((a, b) => Number(a.id.slice(6)) - Number(b.id.slice(6)));
  }

  /** Removes one fault by id; false when none is active with it. */
  remove(id: string): boolean {
    for (const [rpc, list] of this.byRpc) {
      const i = list.findIndex((f) => f.id === id);
      if (i < 0) continue;
      list.splice(i, 1);
      if (list.length === 0) this.byRpc.delete(rpc);
      return true;
    }
    return false;
  }

  /** Removes every fault, or those of one RPC. Calls already hanging stay hung until cancelled. */
  clear(rpc?: string): void {
    if (rpc === undefined) this.byRpc.clear();
    else this.byRpc.delete(rpc);
  }

  /**
   * Called by every RPC handler before it runs. Resolves undefined to go on, or a {code, message} to
   * answer with; waits `delayMs`; for `hang`, never resolves until `cancelled` fires (then resolves
   * {code: CANCELLED}). Only the first active fault of the RPC applies to a call; a `times` fault is
   * counted when it fires and removed after its last call, letting the next one apply.
   */
  /** True when a fault is set for this rpc (callers skip `before` otherwise). */
  has(rpc: string): boolean {
    return (this.byRpc.get(rpc)?.length ?? 0) > 0;
  }

  /** Which pod (`<namespace>/<name>`) a request concerns; set by the server, which knows the ids. */
  podOf: (rpc: string, request: unknown) => string | undefined = () => undefined;

  before(rpc: string, cancelled: AbortSignal, request?: unknown): Promise<{ code: number; message: string } | undefined> {
    const list = this.byRpc.get(rpc);
    if (!list || list.length === 0) return NO_FAULT;
    let pod: string | undefined | null = null;
    const index = list.findIndex((f) => {
      if (f.pod === undefined) return true;
      if (pod === null) pod = this.podOf(rpc, request);
      return f.pod === pod;
    });
    if (index < 0) return NO_FAULT;
    const fault = list[index]!;
    if (fault.remaining !== undefined) {
      fault.remaining -= 1;
      if (fault.remaining <= 0) {
        list.splice(index, 1);
        if (list.length === 0) this.byRpc.delete(rpc);
      }
    }
    return this.apply(fault, cancelled);
  }

  private async apply(fault: ActiveFault, cancelled: AbortSignal): Promise<{ code: number; message: string } | undefined> {
    const cancelledAnswer = { code: CANCELLED, message: `${fault.rpc} cancelled by the client while the mock held it (${fault.id})` };
    if (fault.hang) {
      await untilAbort(cancelled);
      return cancelledAnswer;
    }
    if (fault.delayMs) {
      if (await waitOrAbort(fault.delayMs, cancelled)) return cancelledAnswer;
    }
    if (fault.code === undefined || fault.code === 0) return undefined;
    return {
      code: fault.code,
      message: fault.message ?? `injected fault ${fault.id}: ${GRPC_STATUS_NAMES[fault.code]} on ${fault.rpc}`,
    };
  }
}

// ---- call log ----

export interface CallRecord {
  seq: number;
  time: string /* RFC3339Nano */;
  service: 'RuntimeService' | 'ImageService';
  rpc: string;
  request: unknown;
  /**
   * Present when the request was larger than a record keeps (CALL_LOG_MAX_ENTRY_BYTES): its size as
   * JSON, about; the request is then kept with long strings, bytes and lists cut.
   */
  truncatedFrom?: number;
}

export const CALL_LOG_CAPACITY = 10_000;
/** What the whole log keeps, counted as the JSON of its requests: the oldest records go past it. */
export const CALL_LOG_MAX_BYTES = 64 * 1024 * 1024;
/** What one record keeps of its request, as JSON. */
export const CALL_LOG_MAX_ENTRY_BYTES = 1024 * 1024;
/** A cut request keeps this much of each long string (characters) or bytes field, and this many list items. */
const CUT_TEXT = 4096;
const CUT_ITEMS = 256;

type RawRecord = Omit<CallRecord, 'time'> & { ns: bigint; bytes: number };

/**
 * Every RPC received, in arrival order, with its request as decoded. A ring of the last `capacity`
 * records (10,000 by default) holding at most `maxBytes` of requests (64 MiB, as JSON; a request over
 * `maxEntryBytes` is kept cut): recording stays O(1) in the record count at thousands of calls per
 * second, and `seq` keeps counting across evictions so a reader can ask for what came after the last
 * record it saw; `dropped` counts the records evicted to stay within the bounds.
 */
export class CallLog {
  // Records keep the raw nanoseconds: formatting the time costs more than the rest of recording,
  // and only a reader of the log needs it.
  private readonly ring: (RawRecord | undefined)[];
  private start = 0;
  private size = 0;
  private seq = 0;
  private bytes = 0;
  private droppedCount = 0;

  constructor(
    readonly capacity: number = CALL_LOG_CAPACITY,
    readonly maxBytes: number = CALL_LOG_MAX_BYTES,
    readonly maxEntryBytes: number = CALL_LOG_MAX_ENTRY_BYTES,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`call log capacity ${capacity}`);
    if (!Number.isInteger(maxBytes) || maxBytes < 1) throw new RangeError(`call log byte bound ${maxBytes}`);
    if (!Number.isInteger(maxEntryBytes) || maxEntryBytes < 1 || maxEntryBytes > maxBytes) throw new RangeError(`call log entry bound ${maxEntryBytes}`);
    this.ring = new Array(capacity);
  }

  /** Keeps the last records within the bounds. The request is kept as given: handlers must not mutate it. */
  record(service: CallRecord['service'], rpc: string, request: unknown): void {
    let size = jsonSize(request, this.maxEntryBytes);
    const rec: RawRecord = { seq: ++this.seq, ns: nowNs(), service, rpc, request, bytes: size };
    if (size > this.maxEntryBytes) {
      rec.truncatedFrom = jsonSize(request, Infinity);
      rec.request = cut(request);
      size = jsonSize(rec.request, this.maxEntryBytes);
      // Too many fields even when cut (a map of a million labels): only the marker stays.
      if (size > this.maxEntryBytes) rec.request = {};
      rec.bytes = size = Math.min(size, this.maxEntryBytes);
    }
    while (this.size > 0 && (this.size >= this.capacity || this.bytes + size > this.maxBytes)) {
      this.bytes -= this.ring[this.start]!.bytes;
      this.ring[this.start] = undefined;
      this.start = (this.start + 1) % this.capacity;
      this.size -= 1;
      this.droppedCount += 1;
    }
    this.ring[(this.start + this.size) % this.capacity] = rec;
    this.size += 1;
    this.bytes += size;
  }

  /** Records in order; `rpc` keeps one RPC's, `since` those with a `seq` greater than it. */
  list(filter: { rpc?: string; since?: number } = {}): CallRecord[] {
    const out: CallRecord[] = [];
    for (let i = 0; i < this.size; i++) {
      const rec = this.ring[(this.start + i) % this.capacity]!;
      if (filter.since !== undefined && rec.seq <= filter.since) continue;
      if (filter.rpc !== undefined && rec.rpc !== filter.rpc) continue;
      const r: CallRecord = { seq: rec.seq, time: rfc3339Nano(rec.ns), service: rec.service, rpc: rec.rpc, request: rec.request };
      if (rec.truncatedFrom !== undefined) r.truncatedFrom = rec.truncatedFrom;
      out.push(r);
    }
    return out;
  }

  /** Forgets every record; `seq` goes on counting, so `since` from before the clear stays meaningful. */
  clear(): void {
    this.ring.fill(undefined);
    this.start = 0;
    this.size = 0;
    this.bytes = 0;
  }

  /** The `seq` of the latest record ever made (0 before the first). */
  get lastSeq(): number {
    return this.seq;
  }

  /** Records evicted to stay within the bounds (not those a clear forgot). */
  get dropped(): number {
    return this.droppedCount;
  }

  /** What the kept requests weigh, as JSON (about). */
  get keptBytes(): number {
    return this.bytes;
  }
}

/**
 * About the length of JSON.stringify(v) as the control API writes it (bytes fields as Buffer JSON,
 * up to 4 characters a byte), without making it; stops counting once past `budget`.
 */
function jsonSize(v: unknown, budget: number): number {
  let n = 0;
  const walk = (x: unknown): void => {
    if (n > budget) return;
    if (typeof x === 'string') n += x.length + 2;
    else if (x === null || x === undefined || typeof x !== 'object') n += 8;
    else if (x instanceof Uint8Array) n += 4 * x.length + 32;
    else if (Array.isArray(x)) {
      n += 2;
      for (const e of x) {
        walk(e);
        n += 1;
        if (n > budget) return;
      }
    } else {
      n += 2;
      for (const k in x as Record<string, unknown>) {
        n += k.length + 4;
        walk((x as Record<string, unknown>)[k]);
        if (n > budget) return;
      }
    }
  };
  walk(v);
  return n;
}

/** A copy of `v` with long strings and bytes and long lists cut (a string says how much was cut). */
function cut(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return v.length > CUT_TEXT ? `${v.slice(0, CUT_TEXT)}…[${v.length - CUT_TEXT} more characters cut]` : v;
  if (v === null || typeof v !== 'object' || depth > 64) return typeof v === 'object' && v !== null ? {} : v;
  if (v instanceof Uint8Array) return v.length > CUT_TEXT ? Buffer.from(v.subarray(0, CUT_TEXT)) : v;
  if (Array.isArray(v)) return v.slice(0, CUT_ITEMS).map((e) => cut(e, depth + 1));
  const out: Record<string, unknown> = {};
  let keys = 0;
  for (const k in v as Record<string, unknown>) {
    if (keys++ >= CUT_ITEMS) break;
    out[k] = cut((v as Record<string, unknown>)[k], depth + 1);
  }
  return out;
}
