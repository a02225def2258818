// The agent's HTTPS endpoints (issue 11, spec 001 §4.3, spec 002): /healthz with upstream's kubelet
// checks (ping, log, syncloop), /pods (upstream's read-only pod list), /configz, and the debug
// endpoints every component serves through the shared ComponentEndpoints (/livez, /readyz, /statusz,
// /flagz, /metrics, /metrics/slis).
//
// Every request but health is authenticated and authorized first (auth/request-auth.ts, upstream's
// delegated webhook authn/authz); the TLS server asks for a client certificate, without requiring
// one, when a client CA is configured.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ComponentEndpoints } from '../observability/component-endpoints.js';
import { ComponentMetrics } from '../observability/metrics.js';
import { namedCheck, type HealthCheck, type HealthChecks } from '../observability/health.js';
import { PACKAGE_VERSION } from '../package-version.js';
import type { FeatureGates } from '../features.js';
import { answerPlainHttp, type ServingCert } from '../tls.js';
import type { AgentRequestAuth } from './auth/request-auth.js';
import type { Duplex } from 'node:stream';
import { writeRaw } from './streaming.js';

export const AGENT_COMPONENT = 'orch-agent';
/** Upstream's PLEG relist threshold: a PLEG silent this long makes the sync loop unhealthy. */
export const PLEG_RELIST_THRESHOLD_MS = 3 * 60_000;

function formatAgo(ms: number): string {
  const s = ms / 1000;
  return s >= 60 ? `${Math.floor(s / 60)}m${(s % 60).toFixed(3).replace(/\.?0+$/, '')}s` : `${s.toFixed(3).replace(/\.?0+$/, '')}s`;
}

/**
 * Upstream's kubelet /healthz checks: ping, log (standard error writable) and syncloop, which here
 * fails when the PLEG has not completed a relist within the threshold (upstream's "PLEG is not
 * healthy: pleg was last seen active ... ago; threshold is 3m0s").
 */
export function agentHealthChecks(o: { lastRelist(): number; thresholdMs?: number }): { checks: HealthChecks; all: readonly HealthCheck[] } {
  const threshold = o.thresholdMs ?? PLEG_RELIST_THRESHOLD_MS;
  const ping = namedCheck('ping', () => undefined);
  const log = namedCheck('log', () => {
    if (!process.stderr.writable) throw new Error('the log (standard error) is not writable');
  });
  const syncloop = namedCheck('syncloop', () => {
    const ago = Date.now() - o.lastRelist();
    if (ago > threshold) throw new Error(`PLEG is not healthy: pleg was last seen active ${formatAgo(ago)} ago; threshold is ${formatAgo(threshold)}`);
  });
  const all = [ping, log, syncloop];
  return { checks: { healthz: all, livez: all, readyz: all }, all };
}

/** True when every check passes (what the watchdog pings on). */
export async function allPass(checks: readonly HealthCheck[]): Promise<boolean> {
  for (const c of checks) {
    try {
      await c.check();
    } catch {
      return false;
    }
  }
  return true;
}

export interface AgentServerOptions {
  address: string;
  port: number;
  cert: ServingCert;
  checks: HealthChecks;
  featureGates: FeatureGates;
  /** /flagz: the flags in effect, defaults included. */
  flags: Readonly<Record<string, string>>;
  /** /configz: the configz body (`{"agentconfig": {...}}`). */
  configz: Readonly<Record<string, unknown>>;
  /** The pods the agent runs, for /pods. */
  pods(): any[];
  /** Further paths (checkpoint, stats, metrics of other sources), tried in order before the shared
   *  component endpoints. Modules that serve them own their handlers; this file only routes. */
  routes?: readonly AgentRoute[];
  /** Called with the component metrics once they exist, to register the agent's own series on /metrics. */
  onMetrics?(metrics: ComponentMetrics): void;
  /** Authentication and authorization of every request but health; absent: none (in-process tests). */
  auth?: AgentRequestAuth;
}

/** One path (or, when `path` ends in '/', every path under it) of the agent's HTTPS port. */
export interface AgentRoute {
  path: string;
  /** Methods served; another method answers 405 with an Allow header. */
  methods: readonly string[];
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
  /** An upgrade request (exec, attach, port forwarding: streaming.ts), on the socket it took over. */
  upgrade?(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): Promise<void>;
}

/** The route serving `pathname`, if any: exact paths first, then the longest prefix. */
export function routeFor(routes: readonly AgentRoute[], pathname: string): AgentRoute | undefined {
  const exact = routes.find((r) => !r.path.endsWith('/') && r.path === pathname);
  if (exact) return exact;
  return routes.filter((r) => r.path.endsWith('/') && pathname.startsWith(r.path)).sort((a, b) => b.path.length - a.path.length)[0];
}

export interface AgentServer {
  /** `https://<address>:<port>` with the bound port. */
  readonly url: string;
  readonly port: number;
  readonly endpoints: ComponentEndpoints;
  close(): Promise<void>;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Content-Length': String(Buffer.byteLength(text)) });
  res.end(text);
}

export async function startAgentServer(o: AgentServerOptions): Promise<AgentServer> {
  const metrics = new ComponentMetrics({ featureGates: o.featureGates, buildInfo: { git_version: `v${PACKAGE_VERSION}`, platform: `${process.platform}/${process.arch}` } });
  o.onMetrics?.(metrics);
  const endpoints = new ComponentEndpoints({
    name: AGENT_COMPONENT,
    checks: o.checks,
    flags: o.flags,
    config: o.configz,
    featureGates: o.featureGates,
    binaryVersion: PACKAGE_VERSION,
    otherPaths: ['/pods', ...(o.routes ?? []).filter((r) => r.methods.includes('GET') && !r.path.endsWith('/')).map((r) => r.path)],
    metrics: { handle: (req, res) => metrics.serve(req, res) },
  });
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'https://agent');
    } catch {
      res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('bad request: unreadable request target\n');
      return;
    }
    // Authentication and authorization come before routing, as upstream's container filter does, so
    // an unauthenticated request learns nothing about which paths exist.
    const refusal = await o.auth?.check(req, url.pathname);
    if (refusal) {
      res.writeHead(refusal.status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
      res.end(refusal.body);
      return;
    }
    if (url.pathname === '/pods' || url.pathname === '/pods/') {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('method not allowed: /pods answers GET\n');
        return;
      }
      // Upstream's read-only /pods: a v1 PodList of the pods the agent is running.
      return sendJson(res, 200, { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: o.pods() });
    }
    const route = routeFor(o.routes ?? [], url.pathname);
    if (route) {
      if (!route.methods.includes(req.method ?? 'GET')) {
        res.writeHead(405, { Allow: route.methods.join(', '), 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(`method not allowed: ${route.path} answers ${route.methods.join(', ')}\n`);
        return;
      }
      return route.handle(req, res, url);
    }
    if (await endpoints.handle(req, res, url.pathname, url.searchParams)) return;
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('404 page not found\n');
  };
  // With a client CA the server asks for a client certificate and verifies it against that CA, but
  // does not require one: the filter decides (a bearer token or anonymous access may do instead).
  const clientCerts = o.auth?.clientCaPem ? { requestCert: true, rejectUnauthorized: false, ca: o.auth.clientCaPem } : {};
  const server: Server = createServer({ cert: o.cert.certPem, key: o.cert.keyPem, keepAliveTimeout: 5000, ...clientCerts }, (req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`internal error: ${(err as Error).message}\n`);
    });
  });
  // Upgrade requests (exec, attach, port forwarding) pass the same authentication and authorization,
  // then go to a route that takes upgrades; any other path answers as it would without the upgrade.
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    void (async () => {
      const url = new URL(req.url ?? '/', 'https://agent');
      const refusal = await o.auth?.check(req, url.pathname);
      if (refusal) return writeRaw(socket, refusal.status, refusal.body);
      const route = routeFor(o.routes ?? [], url.pathname);
      if (!route?.upgrade) return writeRaw(socket, 404, '404 page not found\n');
      if (!route.methods.includes(req.method ?? 'GET')) return writeRaw(socket, 405, `method not allowed: ${route.path} answers ${route.methods.join(', ')}\n`, { Allow: route.methods.join(', ') });
      await route.upgrade(req, socket, head, url);
    })().catch((err) => writeRaw(socket, 500, `internal error: ${(err as Error).message}\n`));
  });
  answerPlainHttp(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new Error(`cannot serve the agent's endpoints on ${o.address}:${o.port}: ${err.code === 'EADDRINUSE' ? 'address already in use' : err.message}`)));
    server.listen(o.port, o.address, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = o.address.includes(':') ? `[${o.address}]` : o.address;
  return {
    url: `https://${host}:${port}`,
    port,
    endpoints,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
