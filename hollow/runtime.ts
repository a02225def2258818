// The hollow runtime: ONE mock CRI runtime (mocks/cri/state.ts) in this process, shared by every hollow
// node, each node reaching it through an in-process CRI transport instead of a gRPC socket. A node sees
// only its own sandboxes and containers: the transport labels what the node creates with the node's name
// and adds that label to every List* selector (stats included); the mock indexes records by that label,
// so a node's relist reads its own records, not every node's.
//
// Requests and answers go through the CRI's protobuf codec (cri/grpc-services.ts) as over the wire: the
// agent gets messages exactly as its gRPC client decodes them (defaults filled, int64 as strings, enums
// by name) and the mock gets requests exactly as its gRPC server decodes them. Only the socket and
// HTTP/2 framing are left out.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as grpc from '@grpc/grpc-js';
import { loadCri } from '../cri/proto.js';
import { ImageStore } from '../mocks/cri/images.js';
import { imageServiceHandlers } from '../mocks/cri/image-service.js';
import { runtimeService } from '../mocks/cri/runtime-service.js';
import { CallLog, Faults } from '../mocks/cri/faults.js';
import { Runtime as MockRuntime } from '../mocks/cri/state.js';
import { makeControl, podOfRequest } from '../mocks/cri/server.js';
import { startControlServer } from '../mocks/cri/control.js';
import type { CriTransport } from '../reference/agent/runtime.js';

/** The label naming a sandbox's or container's hollow node (the mock's index key). */
export const HOLLOW_NODE_LABEL = 'orch-conformance.io/hollow-node';

/** No call log: thousands of calls a second that nobody reads. */
class NoCallLog extends CallLog {
  override record(): void { /* not kept */ }
}

/** The RPCs whose request carries a ListX filter with a label selector: scoped to the node there. */
const FILTERED_LISTS = new Set(['ListPodSandbox', 'ListContainers', 'ListContainerStats', 'ListPodSandboxStats']);

/** The relist's RPCs and the field of their answer holding the items. */
const RELIST_FIELD: Readonly<Record<string, string>> = { ListPodSandbox: 'items', ListContainers: 'containers' };

interface Method {
  handler: grpc.handleUnaryCall<any, any>;
  def: grpc.MethodDefinition<any, any>;
}

export interface HollowRuntimeOptions {
  /** State dir; default a fresh private temporary directory, removed by close(). */
  root?: string;
  /** How long PullImage takes, ms (default 0: the image cache of a hollow node is the shared store). */
  pullDelayMs?: number;
  /**
   * Serve the mock's control API (mocks/cri/control.ts: faults, call log, state) on this unix socket, as
   * `mock-cri --control` does, for the agent cases run against a hollow node; the call log is then kept.
   * What it controls is the one runtime every node shares.
   */
  control?: string;
}

export class HollowRuntime {
  readonly mock: MockRuntime;
  readonly root: string;
  private readonly methods = new Map<string, Method>();
  private readonly deps: { runtime: MockRuntime; faults: Faults; calls: CallLog };
  private readonly ownRoot: boolean;
  private controlServer: { close(): Promise<void> } | undefined;

  private constructor(root: string, ownRoot: boolean, pullDelayMs: number, controlled: boolean) {
    this.root = root;
    this.ownRoot = ownRoot;
    const images = new ImageStore({ pullDelayMs, fsMountpoint: join(root, 'images') });
    this.mock = new MockRuntime({ root, seccompDir: join(root, 'seccomp'), images, indexLabel: HOLLOW_NODE_LABEL });
    const faults = new Faults();
    faults.podOf = (_rpc, request) => podOfRequest(this.mock, request);
    const deps = { runtime: this.mock, faults, calls: controlled ? new CallLog() : new NoCallLog() };
    this.deps = deps;
    const defs = loadCri();
    const add = (handlers: grpc.UntypedServiceImplementation, service: grpc.ServiceDefinition) => {
      for (const [rpc, def] of Object.entries(service)) {
        if (def.responseStream || def.requestStream) continue; // GetContainerEvents: the agent relists instead
        this.methods.set(rpc, { handler: handlers[rpc] as grpc.handleUnaryCall<any, any>, def });
      }
    };
    add(runtimeService(deps).handlers, defs.RuntimeService.service);
    add(imageServiceHandlers({ ...deps, images }), defs.ImageService.service);
  }

  static async start(o: HollowRuntimeOptions = {}): Promise<HollowRuntime> {
    const root = o.root ?? await mkdtemp(join(tmpdir(), 'hollow-cri-'));
    await mkdir(join(root, 'seccomp'), { recursive: true, mode: 0o700 });
    const rt = new HollowRuntime(root, !o.root, o.pullDelayMs ?? 0, o.control !== undefined);
    if (o.control !== undefined) rt.controlServer = await startControlServer(o.control, makeControl(rt.mock, rt.deps.faults, rt.deps.calls));
    return rt;
  }

  /** The CRI transport of one node: its own records only. */
  transport(nodeName: string): CriTransport {
    const scope = (req: any): any => {
      if (!req || typeof req !== 'object') return req;
      return { ...req, filter: { ...req.filter, label_selector: { ...req.filter?.label_selector, [HOLLOW_NODE_LABEL]: nodeName } } };
    };
    const labelled = (config: any) => (config ? { ...config, labels: { ...config.labels, [HOLLOW_NODE_LABEL]: nodeName } } : config);
    // The items of the node's relists as decoded, by id: a sandbox's or container's list entry changes
    // only with its state (the rest is fixed at creation), so an entry seen before in the same state is
    // not encoded and decoded again. The relists (PLEG, every second per node) are most of the calls.
    const decodedItems = new Map<string, Map<string, { state: string; item: any }>>();
    const relist = async (rpc: string, req: object, full: boolean): Promise<any> => {
      const field = RELIST_FIELD[rpc]!;
      const raw = await this.invoke<any>(rpc, req, false);
      let memo = decodedItems.get(rpc);
      if (!memo) decodedItems.set(rpc, (memo = new Map()));
      const next = full ? new Map<string, { state: string; item: any }>() : memo;
      const items = (raw[field] as any[]).map((entry) => {
        let known = memo!.get(entry.id);
        if (!known || known.state !== entry.state) known = { state: entry.state, item: this.decodeAnswer(rpc, { [field]: [entry] })[field][0] };
        next.set(entry.id, known);
        return known.item;
      });
      // A full relist names every entry of the node: those it lacks are gone.
      if (full) decodedItems.set(rpc, next);
      return { [field]: items };
    };
    return {
      call: async <T>(rpc: string, request: object = {}): Promise<T> => {
        let req: any = request;
        if (RELIST_FIELD[rpc]) return relist(rpc, scope(req), !(req as any).filter) as Promise<T>;
        if (FILTERED_LISTS.has(rpc)) req = scope(req);
        else if (rpc === 'RunPodSandbox' || rpc === 'CreateContainer') req = { ...req, config: labelled(req.config) };
        const res = await this.invoke<any>(rpc, req);
        // ListPodSandboxMetrics has no filter in the CRI: the node's sandboxes are picked from the answer.
        if (rpc === 'ListPodSandboxMetrics') {
          const own = new Set([...this.mock.sandboxesFor({ [HOLLOW_NODE_LABEL]: nodeName })].map((s) => s.id));
          res.pod_metrics = (res.pod_metrics ?? []).filter((m: any) => own.has(m.pod_sandbox_id));
        }
        return res as T;
      },
      close: () => { /* the runtime is shared: closed with the HollowRuntime */ },
    };
  }

  /** An answer of `rpc` through the protobuf codec, as a gRPC client decodes it. */
  private decodeAnswer(rpc: string, res: object): any {
    const def = this.methods.get(rpc)!.def;
    return def.responseDeserialize(def.responseSerialize(res));
  }

  /** One unary call through the mock's handler, the request (and unless `decode` is false, the answer) through the protobuf codec. */
  private invoke<T>(rpc: string, request: object, decode = true): Promise<T> {
    const m = this.methods.get(rpc);
    if (!m) return Promise.reject(Object.assign(new Error(`${rpc} is not a unary rpc of runtime.v1`), { code: 12, details: `unknown rpc ${rpc}` }));
    let decoded: unknown;
    try {
      decoded = m.def.requestDeserialize(m.def.requestSerialize(request));
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<T>((resolve, reject) => {
      // The handler reads the request and listens for the call's cancellation (never, here).
      const call = { request: decoded, on() { return call; } } as unknown as grpc.ServerUnaryCall<any, any>;
      m.handler(call, (err, res) => {
        if (err) {
          // As grpc-js's client rejects: an Error with the status code and details.
          const e = err as { code?: number; details?: string; message?: string };
          reject(Object.assign(new Error(`${e.code} ${e.details ?? e.message}`), { code: e.code, details: e.details ?? e.message }));
          return;
        }
        try {
          resolve((decode ? m.def.responseDeserialize(m.def.responseSerialize(res)) : res) as T);
        } catch (e) {
          reject(e);
        }
      });
    });
  }

  /** Sandboxes and containers of the whole runtime (every node). */
  counts(): { sandboxes: number; containers: number } {
    return { sandboxes: this.mock.sandboxes.size, containers: this.mock.containers.size };
  }

  async close(): Promise<void> {
    await this.controlServer?.close();
    await this.mock.close();
    if (this.ownRoot) await rm(this.root, { recursive: true, force: true });
  }
}
