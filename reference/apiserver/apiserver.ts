// Assembles an API server from a storage and a set of strategies: registry, namespace lifecycle,
// REST handler and an HTTP server. `startReference` is this with the reference's resources (and a
// controller manager beside it: the namespace controller, the garbage collector and the other
// controllers are API clients, never part of the server); tests use it directly with their own
// strategies.
import { createServer, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { ApiHandler } from './handler.js';
import { ApiServerMetrics } from './metrics.js';
import { methodNotAllowed } from './errors.js';
import { apiServerEndpoints, type ApiServerIdentity } from './debug-endpoints.js';
import { requestUser, serverAuth, withAuth, type AuthOptions } from './auth/filter.js';
import { answerPlainHttp } from '../tls.js';
import { RbacAuthorizer, type Authorizer } from './auth/authorizer.js';
import { rbacEscalationCheck } from './auth/escalation.js';
import { Reviews } from './auth/reviews.js';
import type { StaticToken } from './auth/token-file.js';
import { NodeProxy, type ProxyConnect } from './node-proxy.js';
import { handOverUpgrade, isStreamingUrl, PodStreaming } from './pod-streaming.js';
import type { Resolver } from './proxy-target.js';
import { generateAgentClientCert, type AgentClientCert } from './agent-client-cert.js';
import type { WatchBounds } from './watch-budget.js';
import { Registry } from './registry.js';
import { admissionChain, type Admission } from './store.js';
import type { ResourceStrategy } from './strategy.js';
import { reconcileBootstrapRoles } from './auth/reconcile-bootstrap.js';
import { ensureInitialNamespaces, NamespaceLifecycle, namespaceStrategy } from '../resources/namespace.js';
import type { Storage } from '../storage/types.js';
import { InstrumentedStorage, StorageMetrics } from '../storage/instrumented.js';
import type { FeatureGates } from '../features.js';
import { componentLog } from '../log.js';

export interface ApiServerOptions {
  readonly storage: Storage;
  /** Served resources; Namespace is always added. */
  readonly strategies: readonly ResourceStrategy[];
  readonly host?: string;
  readonly port?: number;
  readonly minWatchTimeoutSeconds?: number;
  /** Validity of list continue tokens in seconds (default 300). */
  readonly continueTtlSeconds?: number;
  /** Period of watch BOOKMARK events in seconds (default 60). */
  readonly bookmarkIntervalSeconds?: number;
  /** Bounds on the events watches hold for clients that read slowly (watch-budget.ts). */
  readonly watchBounds?: Partial<WatchBounds>;
  readonly log?: (message: string, err?: unknown) => void;
  /** Default: release 1.37 defaults. */
  readonly featureGates?: FeatureGates;
  /**
   * Admission plug-ins after namespace lifecycle, in order (upstream's admission chain): each made
   * once with a getter of the registry (which exists only after the stores are built).
   */
  readonly admission?: readonly AdmissionFactory[];
  /** What the admission plug-ins are configured with (upstream's admission flags), given to every factory. */
  readonly admissionSettings?: AdmissionSettings;
  /**
   * In-process controllers with access to the registry, started before serving (none by default:
   * the reference's controllers are API clients in the controller manager).
   */
  readonly controllers?: readonly ControllerFactory[];
  /**
   * Upstream --enable-garbage-collector (default true): deletes add the `orphan` and
   * `foregroundDeletion` finalizers the options ask for, which a garbage collector (the controller
   * manager's, a client of this server) removes. Without a collector such objects stay pending, as
   * upstream. False: propagation is ignored and deletes are immediate.
   */
  readonly garbageCollection?: boolean;
  /** Flags, configuration and test-only health faults for the metrics and debug endpoints. */
  readonly identity?: ApiServerIdentity;
  /** Serve HTTPS with this certificate (chain) and key instead of plain HTTP. */
  readonly tls?: { readonly certPem: string; readonly keyPem: string };
  /** Authentication, impersonation and authorization ahead of every path; without it, none (everything allowed). */
  readonly auth?: AuthOptions;
  /**
   * Tokens of the server's own companions (the in-process controller manager and scheduler), added
   * to the token table after `auth.tokens`; made by the process that starts them, never printed.
   */
  readonly systemTokens?: readonly StaticToken[];
  /** How `/api/v1/nodes/{name}/proxy` reaches node agents (node-proxy.ts). */
  readonly agentProxy?: {
    /** Default DEFAULT_AGENT_PREFERRED_ADDRESS_TYPES. */
    readonly preferredAddressTypes?: readonly string[];
    /** CA of the agents' serving certificates; without it they are not verified (said once at start). */
    readonly caPem?: string;
    /**
     * The client certificate presented to agents (upstream --kubelet-client-certificate and
     * --kubelet-client-key); default: one generated at start with a CA of its own (`agentClientCaPem`).
     */
    readonly clientCert?: AgentClientCert;
    /** Reach agents at loopback addresses (single-machine set-ups; `serve --node-proxy-allow-loopback`). */
    readonly allowLoopback?: boolean;
    /** Test hooks: host name resolution and the connections the proxy opens. */
    readonly resolver?: Resolver;
    readonly connect?: ProxyConnect;
    /** Connect and response-header timeout, ms (default 30 s). */
    readonly timeoutMs?: number;
    /** Bounds on pods/exec, attach and portforward sessions (pod-streaming.ts defaults). */
    readonly streaming?: { readonly idleTimeoutMs?: number; readonly maxSessions?: number };
  };
}

/** An in-process controller: started after the registry exists, stopped on close. */
export interface Controller {
  start(): Promise<void>;
  stop(): void;
}

/** Admission plug-in configuration (kube-apiserver admission flags); unset: upstream's defaults. */
export interface AdmissionSettings {
  /** DefaultTolerationSeconds: `--default-not-ready-toleration-seconds` (default 300). */
  readonly defaultNotReadyTolerationSeconds?: number;
  /** DefaultTolerationSeconds: `--default-unreachable-toleration-seconds` (default 300). */
  readonly defaultUnreachableTolerationSeconds?: number;
}

export type AdmissionFactory = (registry: () => Registry, settings: AdmissionSettings) => Admission;

export type ControllerFactory = (registry: Registry, storage: Storage, log: (message: string, err?: unknown) => void) => Controller;

export interface RunningApiServer {
  /** http://host:port, or https://host:port with `tls`. */
  readonly url: string;
  readonly registry: Registry;
  readonly handler: ApiHandler;
  /** /metrics and the request metrics. */
  readonly metrics: ApiServerMetrics;
  /** The CA of the agent-client certificate, for agents' `authentication.x509.clientCAFile`, when known. */
  readonly agentClientCaPem?: string;
  close(): Promise<void>;
}

export async function startApiServer(opts: ApiServerOptions): Promise<RunningApiServer> {
  const log = opts.log ?? componentLog('reference');
  const strategies = opts.strategies.some((s) => s.group === '' && s.resource === 'namespaces')
    ? opts.strategies
    : [namespaceStrategy, ...opts.strategies];
  let registry: Registry | undefined;
  // The server's authorizer needs the registry: the escalation check reads it at each write.
  let authorizer: Authorizer | undefined;
  const lifecycle = new NamespaceLifecycle(() => registry?.byGroupResource('', 'namespaces'));
  // Built in, as upstream's RBAC storages are: it guards the RBAC kinds, ahead of plug-ins that record what they admit (quota).
  const escalation = rbacEscalationCheck(() => registry!, () => authorizer!);
  const plugins = (opts.admission ?? []).map((make) => make(() => registry!, opts.admissionSettings ?? {}));
  // The stores read and write through the storage metrics (their families are registered below).
  const storage = new InstrumentedStorage(opts.storage);
  registry = new Registry(storage, strategies, admissionChain([lifecycle, escalation, ...plugins]), opts.featureGates);

  const nsStore = registry.byGroupResource('', 'namespaces')!;
  let registered = false;
  await ensureInitialNamespaces(nsStore);
  // Upstream's rbac/bootstrap-roles post-start hook, before the server answers anyone.
  await reconcileBootstrapRoles(registry);
  if (opts.garbageCollection === false) for (const store of registry.stores) store.garbageCollection = false;
  const controllers: Controller[] = (opts.controllers ?? []).map((make) => make(registry!, opts.storage, log));
  registered = true;
  let controllersStarted = false;
  for (const c of controllers) await c.start();
  controllersStarted = true;

  let shuttingDown = false;
  const metrics = new ApiServerMetrics(registry.gates, registry);
  const reg = registry;
  storage.metrics = new StorageMetrics(metrics.component, () => opts.storage, () =>
    // A view of another collection (storedAs) holds no objects of its own: counted once, as its collection.
    reg.stores.filter((st) => !st.strategy.notStored && !st.strategy.storedAs).map((st) => ({ resource: storageResource(st.strategy), prefix: st.keyPrefix() })),
  );
  const endpoints = apiServerEndpoints({
    ...opts.identity,
    featureGates: registry.gates,
    metrics: { handle: (req, res) => metrics.component.serve(req, res) },
    state: { storage: opts.storage, registered: () => registered, controllersStarted: () => controllersStarted, shuttingDown: () => shuttingDown },
  });
  // The node proxy's identity towards agents: a client certificate, limited to node agent APIs
  // (bootstrap role system:agent-api-admin). No other client of this server runs in its process over
  // HTTP, so there is no loopback superuser token either.
  const { clientCert: givenClientCert, ...proxyOptions } = opts.agentProxy ?? {};
  const agentClientCert = givenClientCert ?? generateAgentClientCert();
  const auth = serverAuth(opts.auth, registry, opts.systemTokens);
  authorizer = auth.authorizer;
  const reviews = new Reviews({
    authenticateToken: (t) => auth.authenticator.authenticateToken(t), authorizer: auth.authorizer,
    ruleResolver: auth.authorizer instanceof RbacAuthorizer ? auth.authorizer : undefined,
  });
  const { streaming: streamingBounds, ...agentOptions } = proxyOptions;
  const nodeProxy = new NodeProxy({ registry, clientCert: agentClientCert, ...agentOptions, self: () => (server.address() as AddressInfo | null) ?? undefined });
  const podStreaming = new PodStreaming({ registry, agents: nodeProxy, authorizer: auth.authorizer, ...streamingBounds, log });
  const handler = new ApiHandler({
    registry, minWatchTimeoutSeconds: opts.minWatchTimeoutSeconds, continueTtlSeconds: opts.continueTtlSeconds, sharedStorage: opts.storage.shared, bookmarkIntervalSeconds: opts.bookmarkIntervalSeconds, log, endpoints,
    watchBounds: opts.watchBounds, onWatcherTerminated: (group, resource) => metrics.watcherTerminated(group, resource),
    reviews: { answer: (s, obj, req) => reviews.answer(s, obj, requestUser(req)) },
    nodeProxy, podStreaming,
  });
  const serve = metrics.instrument(opts.auth ? withAuth(auth, handler.handle, log) : handler.handle);
  // https.Server is an http.Server on TLS sockets: watches, keep-alive and close() work alike.
  const server: Server = opts.tls
    ? createHttpsServer({ keepAliveTimeout: 5000, cert: opts.tls.certPem, key: opts.tls.keyPem }, serve)
    : createServer({ keepAliveTimeout: 5000 }, serve);
  if (opts.tls) answerPlainHttp(server as import('node:https').Server);
  server.on('clientError', answerParseError);
  // Node gives CONNECT requests to 'connect' listeners only, and without one drops the connection;
  // Go hands them to the handler like any method, and no path of the API serves CONNECT (upstream's
  // node proxy neither).
  server.on('connect', (_req: IncomingMessage, socket: Socket) => answerRaw(socket, METHOD_NOT_ALLOWED));
  server.on(opts.tls ? 'secureConnection' : 'connection', lingerOnClose);
  // Upgrades to pods/exec, attach and portforward go through authentication, authorization and the
  // handler like any request, with a response on the socket for refusals; the handler takes the
  // socket over once it forwards the upgrade (pod-streaming.ts). Any other upgrade request is served
  // as the plain request it also is, as before there was a listener (Node then never upgrades).
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    if (!isStreamingUrl(req.url ?? '/')) return servePlain(server, opts.tls !== undefined, req, socket, head);
    handOverUpgrade(req, socket, head);
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    res.on('finish', () => socket.destroySoon());
    socket.on('error', () => socket.destroy());
    serve(req, res);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    // Port in use, say: the caller closes the storage, and running controllers would log its errors.
    for (const c of controllers) c.stop();
    throw err;
  }
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  // Once, at start, as upstream's API server warns without --kubelet-certificate-authority.
  if (proxyOptions.caPem === undefined) log('node proxy: agents\' serving certificates are not verified (no agent CA given: serve --agent-certificate-authority)');

  let closing: Promise<void> | undefined;
  return {
    url: `${opts.tls ? 'https' : 'http'}://${host}:${addr.port}`,
    registry,
    handler,
    metrics,
    agentClientCaPem: agentClientCert.caPem,
    close: () =>
      (closing ??= (async () => {
        shuttingDown = true;
        for (const c of controllers) c.stop();
        handler.closeWatches();
        podStreaming.closeAll();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // Idle keep-alive sockets would otherwise hold close() for the keep-alive timeout.
        server.closeIdleConnections();
        await opts.storage.close();
        // Whatever is still in flight after the storage closed can only fail; do not wait for it.
        server.closeAllConnections();
        await closed;
      })()),
  };
}

/**
 * Hands an upgrade request that is not a streaming subresource back to the HTTP server as a plain
 * request: its head again, without the upgrade, then the bytes already read, on the same socket.
 */
function servePlain(server: Server, tls: boolean, req: IncomingMessage, socket: Socket, head: Buffer): void {
  const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    if (/^upgrade$/i.test(name)) continue;
    if (/^connection$/i.test(name)) {
      const kept = req.rawHeaders[i + 1]!.split(',').map((v) => v.trim()).filter((v) => v && v.toLowerCase() !== 'upgrade');
      if (kept.length) lines.push(`${name}: ${kept.join(', ')}`);
      continue;
    }
    lines.push(`${name}: ${req.rawHeaders[i + 1]}`);
  }
  socket.unshift(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), head]));
  server.emit(tls ? 'secureConnection' : 'connection', socket);
}

/** What Node's own clientError handling answers, by error code (else 400). */
const PARSE_ERROR_LINES: Readonly<Record<string, string>> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

/** Upstream's answer to a method no route serves, written raw: for requests no handler sees. */
const METHOD_NOT_ALLOWED = ((): string => {
  const body = `${JSON.stringify(methodNotAllowed().status)}\n`;
  return `HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/json\r\nCache-Control: no-cache, private\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
})();

/**
 * Requests Node's HTTP parser refuses. Its methods are a fixed list (`FOO`, `patch` are refused,
 * with a bare 400, before any handler runs), while Go's server takes any token and upstream answers
 * a method no route serves with a 405 MethodNotAllowed Status: so does this. Anything else the
 * parser refuses is answered as Node (and Go) answer it: a bare status line.
 */
function answerParseError(err: NodeJS.ErrnoException, socket: Socket): void {
  answerRaw(socket, err.code === 'HPE_INVALID_METHOD' ? METHOD_NOT_ALLOWED : `HTTP/1.1 ${PARSE_ERROR_LINES[err.code ?? ''] ?? '400 Bad Request'}\r\nConnection: close\r\n\r\n`);
}

/** Connections answered by answerRaw: the parser reports every further chunk as an error too. */
const answeredRaw = new WeakSet<Socket>();

/** Writes an answer no ServerResponse carries, once, and closes the connection. */
function answerRaw(socket: Socket, text: string): void {
  if (answeredRaw.has(socket)) return;
  answeredRaw.add(socket);
  const answer = (): void => {
    if (socket.writable) socket.end(text, () => socket.destroy());
    else socket.destroy();
  };
  // A pipelined request before this one may still be answering: this answer goes after it
  // (on 'close': once that response is complete, or its connection gone).
  const inFlight = (socket as { _httpMessage?: ServerResponse })._httpMessage;
  if (inFlight && !inFlight.writableFinished) inFlight.once('close', answer);
  else answer();
}

/** How long a connection closed after an answer stays open for the client to read it (upstream Go's rstAvoidanceDelay). */
const LINGER_MS = 500;

/**
 * Closes connections as Go's server does (closeWriteAndWait): the answer and FIN, then what the
 * client still sends is read (the HTTP parser drops it) until it closes too, or for LINGER_MS.
 * Node closes at once, and a socket closed with unread input resets the connection: a client still
 * sending a body nothing reads (a GET's, or one refused before it was read) lost the part of the
 * answer it had not read yet. (Node's HTTP server ends connections with destroySoon.)
 */
function lingerOnClose(socket: Socket): void {
  socket.destroySoon = function lingeringDestroySoon(this: Socket): void {
    if (this.writable) this.end();
    const linger = (): void => {
      if (this.readableEnded) return void this.destroy();
      const timer = setTimeout(() => this.destroy(), LINGER_MS);
      timer.unref();
      this.once('end', () => this.destroy());
      this.once('close', () => clearTimeout(timer));
    };
    if (this.writableFinished) linger();
    else this.once('finish', linger);
  };
}

/** apiserver_storage_objects's resource label: `pods`, `storageclasses.storage.orch.io`. */
function storageResource(s: { group: string; resource: string }): string {
  return s.group ? `${s.resource}.${s.group}` : s.resource;
}
