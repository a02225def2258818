// Starts the mock CRI runtime: runtime.v1 RuntimeService and ImageService over gRPC on a unix socket,
// and optionally the control API (control.ts) on a second unix socket. Both sockets are owner-only
// (0600, in a directory created 0700), as a container runtime's socket is root-only. Used in-process by
// the tests and the runner, and by `orch-conformance mock-cri`.
import { chmod, lstat, mkdir, mkdtemp, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { loadCri, MAX_MESSAGE_BYTES } from '../../cri/proto.js';
import { ImageStore, imageView } from './images.js';
import { checkDeclaration, declarationsOf, type ImageDeclaration } from './image-declarations.js';
import { CriError, Runtime } from './state.js';
import { runtimeService } from './runtime-service.js';
import { imageServiceHandlers } from './image-service.js';
import { CallLog, Faults } from './faults.js';
import { NotFoundError, startControlServer, type MockCriControl } from './control.js';
import { prepareSocketPath } from '../../cri/unix-socket.js';
import { StreamingServer, type StreamingOptions } from './streaming/server.js';
import { listenAnyAuthority, type AnyAuthorityListener } from '../../cri/authority.js';
import type { StreamBounds } from '../../cri/stream-bound.js';

export interface MockCriOptions {
  /** Unix socket path for the CRI gRPC services (parent dir created 0700; socket chmod 0600). */
  socket: string;
  /** Unix socket path for the control HTTP API (same permissions). */
  control?: string;
  /** State dir; default: a fresh mkdtemp (0700), removed by close(). Logs and checkpoints go where the requests say. */
  root?: string;
  /** Where Localhost seccomp profiles must be; default `<root>/seccomp`. */
  seccompDir?: string;
  /**
   * Images present at start and pullable, besides the default set (images.ts): lines in `--images`
   * syntax (`ref[,tag=ref2][,digest=sha256:...][,user=1002][,size=N]`) or declaration objects
   * ({tags, digests?, user?, size?}); see image-declarations.ts.
   */
  images?: ReadonlyArray<string | ImageDeclaration>;
  /** How long PullImage takes; default 50 ms. */
  pullDelayMs?: number;
  /** What RuntimeConfig reports; default SYSTEMD. */
  cgroupDriver?: 'SYSTEMD' | 'CGROUPFS';
  /** The streaming server's timeouts and bounds (streaming/server.ts). */
  streaming?: StreamingOptions;
  /** Bounds on what GetContainerEvents streams hold for clients that do not read (DEFAULT_EVENT_STREAM_BOUNDS). */
  eventStreamBounds?: Partial<StreamBounds>;
}

export interface MockCri {
  /** `unix://<socket>` */
  criUrl: string;
  socket: string;
  controlPath?: string;
  root: string;
  seccompDir: string;
  /** The same operations as the control API, in-process. */
  control: MockCriControl;
  /** `http://127.0.0.1:<port>` of the streaming server Exec, Attach and PortForward answer URLs of. */
  streamingUrl: string;
  /** Stops timers and processes, ends event streams, closes both servers, removes the sockets. */
  close(): Promise<void>;
}

export async function startMockCri(opts: MockCriOptions): Promise<MockCri> {
  // Bad image declarations are a usage error (ImageDeclarationError): refused before anything is created.
  const declared = declarationsOf(opts.images ?? []);
  const ownRoot = !opts.root;
  const root = opts.root ? resolve(opts.root) : await mkdtemp(join(tmpdir(), 'mock-cri-'));
  await mkdir(root, { recursive: true, mode: 0o700 });
  const seccompDir = resolve(opts.seccompDir ?? join(root, 'seccomp'));
  await mkdir(seccompDir, { recursive: true, mode: 0o700 });

  const images = new ImageStore({ declared, pullDelayMs: opts.pullDelayMs, fsMountpoint: join(root, 'images') });
  const runtime = new Runtime({ root, seccompDir, images, cgroupDriver: opts.cgroupDriver });
  const faults = new Faults();
  faults.podOf = (_rpc, request) => podOfRequest(runtime, request);
  const calls = new CallLog();
  const control = makeControl(runtime, faults, calls);

  // The streaming server (Exec, Attach, PortForward) lives and dies with the mock.
  const streaming = await StreamingServer.start(runtime, opts.streaming);
  const defs = loadCri();
  const server = new grpc.Server({ 'grpc.max_receive_message_length': MAX_MESSAGE_BYTES, 'grpc.max_send_message_length': MAX_MESSAGE_BYTES });
  const rs = runtimeService({ runtime, faults, calls, streaming, eventStreamBounds: opts.eventStreamBounds });
  server.addService(defs.RuntimeService.service, rs.handlers);
  server.addService(defs.ImageService.service, imageServiceHandlers({ faults, calls, images }));

  let socket: string;
  let socketIno = -1;
  let controlServer: { close(): Promise<void> } | undefined;
  let controlPath: string | undefined;
  let listener: AnyAuthorityListener | undefined;
  try {
    socket = await prepareSocketPath(opts.socket);
    // Not server.bindAsync: CRI clients may send any :authority (a socket path), which grpc-js's HTTP/2
    // server refuses; the listener (cri/authority.ts) hands connections over with it rewritten.
    listener = await listenAnyAuthority(server, socket);
    // The socket is made with the process umask; narrow it before anyone is told where it is.
    await chmod(socket, 0o600);
    socketIno = (await lstat(socket)).ino;
    if (opts.control) {
      controlPath = resolve(opts.control);
      controlServer = await startControlServer(controlPath, control);
    }
  } catch (err) {
    // Nothing half-started stays behind.
    server.forceShutdown();
    await streaming.close();
    await listener?.destroyConnections();
    if (socketIno >= 0) await removeSocket(socket!, socketIno);
    if (ownRoot) await rm(root, { recursive: true, force: true });
    throw err;
  }

  let closing: Promise<void> | undefined;
  return {
    criUrl: `unix://${socket}`,
    socket,
    controlPath,
    root,
    seccompDir,
    control,
    streamingUrl: streaming.baseUrl,
    close() {
      closing ??= (async () => {
        rs.endEventStreams();
        await streaming.close();
        await runtime.close();
        listener!.stop();
        await new Promise<void>((done) => {
          // Let answered calls finish; anything still running after a moment is cut.
          const t = setTimeout(() => server.forceShutdown(), 2000);
          server.tryShutdown(() => { clearTimeout(t); done(); });
        });
        await listener!.destroyConnections();
        await controlServer?.close();
        await removeSocket(socket, socketIno);
        // A root this server made for itself goes with it; a root given by the caller stays.
        if (ownRoot) await rm(root, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}

/** Removes the socket file if it is still the one this server made. */
async function removeSocket(path: string, ino: number): Promise<void> {
  try {
    if ((await lstat(path)).ino === ino) await unlink(path);
  } catch {
    /* already gone */
  }
}

/** `<namespace>/<name>` of the pod a request concerns, by its sandbox config or the id it names. */
export function podOfRequest(runtime: Runtime, request: unknown): string | undefined {
  const r = (request ?? {}) as Record<string, any>;
  const md = r.config?.metadata?.namespace !== undefined && r.config?.metadata?.uid !== undefined ? r.config.metadata : r.sandbox_config?.metadata;
  if (md?.namespace && md?.name) return `${md.namespace}/${md.name}`;
  const sandboxId: string | undefined = r.pod_sandbox_id || (r.container_id ? runtime.containers.get(r.container_id)?.sandboxId : undefined);
  const s = sandboxId ? runtime.sandboxes.get(sandboxId) : undefined;
  return s ? `${s.metadata.namespace}/${s.metadata.name}` : undefined;
}

/** The control operations (control.ts's interface) over this runtime. */
export function makeControl(runtime: Runtime, faults: Faults, calls: CallLog): MockCriControl {
  const exit = (id: string, exitCode: number, reason?: string) => {
    if (!Number.isInteger(exitCode) || exitCode < 0 || exitCode > 255) throw new RangeError(`exit code must be an integer 0..255 (got ${exitCode})`);
    try {
      runtime.exitContainer(id, exitCode, reason);
    } catch (err) {
      if (err instanceof CriError && err.code === grpc.status.NOT_FOUND) throw new NotFoundError(err.message);
      throw err;
    }
  };
  return {
    faults,
    calls,
    setRuntimeReady(ready, reason, message) {
      runtime.runtimeReady = ready
        ? { status: true, reason: '', message: '' }
        : { status: false, reason: reason ?? 'RuntimeNotReady', message: message ?? 'the runtime was made not ready through the control API' };
    },
    setNetworkReady(ready, reason, message) {
      // containerd's words when no CNI network is configured.
      runtime.networkReady = ready
        ? { status: true, reason: '', message: '' }
        : { status: false, reason: reason ?? 'NetworkPluginNotReady', message: message ?? 'Network plugin returns error: cni plugin not initialized' };
    },
    setCheckpointSupported(supported) { runtime.checkpointSupported = supported; },
    setMetricsEnabled(enabled) { runtime.metricsEnabled = enabled; },
    exitContainer: exit,
    oomKill(id) { exit(id, 137, 'OOMKilled'); },
    declareImage(decl) {
      return imageView(runtime.images.declare(checkDeclaration(decl)));
    },
    state: () => runtime.snapshot(),
    reset() {
      runtime.reset();
      faults.clear();
      calls.clear();
    },
  };
}
