// The HTTPS port of a control-plane component other than the API server (controller manager,
// scheduler): spec 002's endpoints (/healthz, /livez, /readyz, /metrics, /metrics/slis, /statusz,
// /flagz, /configz) through the shared ComponentEndpoints, and a Status-shaped 404 for anything else.
// With `auth`, every request but health is authenticated and authorized first (request-auth.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ComponentEndpoints } from '../observability/component-endpoints.js';
import { ComponentMetrics } from '../observability/metrics.js';
import { namedCheck, type HealthCheck, type HealthChecks, type HealthFaults } from '../observability/health.js';
import { PACKAGE_VERSION } from '../package-version.js';
import { SERVER_VERSION, versionInfo } from '../apiserver/discovery.js';
import { answerPlainHttp, processSelfSigned } from '../tls.js';
import type { FeatureGates } from '../features.js';
import type { RequestMetrics } from '../client/api-client.js';
import type { ComponentRequestAuth } from './request-auth.js';

export interface ComponentServerOptions {
  /** As /statusz and /flagz name it, e.g. `orch-controller-manager`. */
  readonly name: string;
  readonly host?: string;
  /** Default 0: an ephemeral port. */
  readonly port?: number;
  readonly featureGates: FeatureGates;
  readonly flags: Readonly<Record<string, string>>;
  readonly config: Readonly<Record<string, unknown>>;
  /** Checks besides ping and log, listed under readyz only unless `everywhere`. */
  readonly readyChecks?: readonly HealthCheck[];
  readonly healthChecks?: readonly HealthCheck[];
  readonly healthFaults?: HealthFaults;
  /** Default: a self-signed CA and certificate for the host, as upstream without --tls-cert-file. */
  readonly tls?: { certPem: string; keyPem: string; caPem?: string };
  /** The component's client of the API server: its requests become rest_client_* metrics here. */
  readonly apiClient?: { metrics: RequestMetrics | undefined };
  /** Delegated authentication and authorization of callers; absent: every caller is served. */
  readonly auth?: ComponentRequestAuth;
}

/**
 * Where a component's HTTPS endpoints listen (default 127.0.0.1, an ephemeral port, the process's
 * self-signed certificate); `false`: none (in-process tests). `delegatedAuth` (default true): callers
 * are authenticated and authorized by the API server (request-auth.ts); false only where the API
 * server itself checks no one (`serve` without authentication), so that the companions are no
 * stricter than it.
 */
export type ComponentServe = { readonly host?: string; readonly port?: number; readonly tls?: { certPem: string; keyPem: string; caPem?: string }; readonly delegatedAuth?: boolean } | false;

export interface RunningComponentServer {
  readonly url: string;
  readonly caPem?: string;
  readonly metrics: ComponentMetrics;
  close(): Promise<void>;
}

export async function startComponentServer(o: ComponentServerOptions): Promise<RunningComponentServer> {
  const metrics = new ComponentMetrics({ featureGates: o.featureGates, buildInfo: buildInfo() });
  if (o.apiClient) o.apiClient.metrics = restClientMetrics(metrics);
  const ping = namedCheck('ping', () => undefined);
  const log = namedCheck('log', () => {
    if (!process.stderr.writable) throw new Error('the log (standard error) is not writable');
  });
  const base = [ping, log, ...(o.healthChecks ?? [])];
  const checks: HealthChecks = { healthz: base, livez: base, readyz: [...base, ...(o.readyChecks ?? [])] };
  const minor = Number(SERVER_VERSION.minor);
  const endpoints = new ComponentEndpoints({
    name: o.name,
    checks,
    flags: o.flags,
    config: o.config,
    featureGates: o.featureGates,
    binaryVersion: PACKAGE_VERSION,
    emulationVersion: `${SERVER_VERSION.major}.${minor}`,
    minimumCompatibilityVersion: `${SERVER_VERSION.major}.${minor - 1}`,
    metrics: { handle: (req, res) => metrics.serve(req, res) },
    healthFaults: o.healthFaults,
    otherPaths: ['/version'],
  });
  const tls = o.tls ?? processSelfSigned(o.host);
  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'https://component');
    // Checked on the path the handler below dispatches on, so that what is authorized is what is served.
    const refusal = await o.auth?.check(req, url.pathname);
    if (refusal) {
      res.writeHead(refusal.status, { 'Content-Type': refusal.contentType, 'Cache-Control': 'no-cache, private', 'X-Content-Type-Options': 'nosniff', 'Content-Length': String(Buffer.byteLength(refusal.body)) });
      res.end(refusal.body);
      return;
    }
    // /version: among spec 002 §4's essential read-only paths, on every component.
    if (url.pathname === '/version' && (req.method === 'GET' || req.method === 'HEAD')) {
      const body = `${JSON.stringify(versionInfo(), null, 2)}\n`;
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    if (await endpoints.handle(req, res, url.pathname, url.searchParams)) return;
    const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `the server could not find the requested resource (${url.pathname})`, reason: 'NotFound', details: {}, code: 404 });
    res.writeHead(404, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) });
    res.end(body);
  };
  const server: Server = createServer({ cert: tls.certPem, key: tls.keyPem, keepAliveTimeout: 5000 }, (req, res) => {
    serve(req, res).catch((err) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`internal error: ${(err as Error).message}\n`);
    });
  });
  answerPlainHttp(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `https://${host}:${addr.port}`,
    caPem: tls.caPem,
    metrics,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

/**
 * client-go's request metrics (rest_client_request_duration_seconds, rest_client_requests_total):
 * what every component that is a client of the API server exposes, histograms included.
 */
export function restClientMetrics(m: ComponentMetrics): RequestMetrics {
  const latency = m.histogram({
    name: 'rest_client_request_duration_seconds',
    help: '[ALPHA] Request latency in seconds. Broken down by verb, and host.',
    labelNames: ['verb', 'host'],
    buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60],
  });
  const requests = m.counter({ name: 'rest_client_requests_total', help: '[ALPHA] Number of HTTP requests, partitioned by status code, method, and host.', labelNames: ['code', 'method', 'host'] });
  return {
    observe: (verb, host, code, seconds) => {
      requests.inc({ code, method: verb, host });
      if (code !== '<error>') latency.observe({ verb, host }, seconds);
    },
  };
}

/** orch_build_info's labels, as the API server's /version reports them. */
function buildInfo(): Record<string, string> {
  const v = versionInfo();
  const labels: Record<string, string> = {};
  for (const [label, key] of [['major', 'major'], ['minor', 'minor'], ['git_version', 'gitVersion'], ['git_commit', 'gitCommit'], ['git_tree_state', 'gitTreeState'], ['build_date', 'buildDate'], ['go_version', 'goVersion'], ['compiler', 'compiler'], ['platform', 'platform']] as const) labels[label] = v[key] ?? '';
  return labels;
}
