// The node proxy subresource (upstream pkg/registry/core/node/rest ProxyREST, spec 002 §4):
// `/api/v1/nodes/{name}/proxy[/{path}]` forwards the request to the node agent's HTTPS port at the
// Node's preferred address, as the server itself: the client's credentials stay here and the agent
// sees the server's agent-client CERTIFICATE (agent-client-cert.ts), never a bearer credential: a
// Node's address is whatever its writer put there, and a listener there could replay a token, not a
// certificate. Targets are checked first (proxy-target.ts): loopback and unspecified addresses only
// with the operator's opt-in, link-local and non-unicast ones never, this server's own address never.
// Authorization (verb from the method on `nodes/proxy`) happened ahead of routing, in the auth filter.
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { request as httpRequest } from 'node:http';
import { connect as netConnect, isIP, type AddressInfo, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { badRequest, pathNotFound, serviceUnavailable } from './errors.js';
import type { Registry } from './registry.js';
import type { ApiObject } from './strategy.js';
import { addressKind, describeKind, isLocalAddress, LOOPBACK_KINDS, resolveHost, systemResolver, type Resolver } from './proxy-target.js';

/**
 * Address types tried in order (upstream --kubelet-preferred-address-types). Upstream's default
 * puts Hostname first; agents here register with --hostname-override names that do not resolve,
 * so the IPs come first.
 */
export const DEFAULT_AGENT_PREFERRED_ADDRESS_TYPES: readonly string[] = ['InternalIP', 'ExternalIP', 'Hostname'];
/** Used when a Node publishes no port (upstream --kubelet-port). */
export const DEFAULT_AGENT_PORT = 10250;
/** Connecting plus waiting for the response headers may take this long. */
const DEFAULT_TIMEOUT_MS = 30_000;

/** Hop-by-hop headers (RFC 9110 §7.6.1), never forwarded either way. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-connection']);

/** What the proxy connects to: always an IP address (already checked), TLS options for HTTPS. */
export interface ProxyConnection {
  readonly address: string;
  readonly port: number;
  readonly tls?: {
    /** The Node's host name when it gave one (SNI and the certificate check), else absent. */
    readonly servername?: string;
    readonly ca?: string;
    readonly rejectUnauthorized: boolean;
    /** The agent-client certificate: on the agent's own port only. */
    readonly cert?: string;
    readonly key?: string;
  };
}

/** Opens the connection for one proxied request; tests observe every attempt through it. */
export type ProxyConnect = (to: ProxyConnection) => Socket;

export const defaultConnect: ProxyConnect = (to) => {
  if (!to.tls) return netConnect({ host: to.address, port: to.port });
  const { servername, ...tls } = to.tls;
  // checkServerIdentity checks `servername` when given, else `host` (the IP address).
  return tlsConnect({ host: to.address, port: to.port, ...tls, ...(servername ? { servername } : {}) });
};

export interface NodeProxyOptions {
  readonly registry: Registry;
  /** Presented to agents on their own port as the TLS client certificate: the server's agent-client identity. */
  readonly clientCert: { readonly certPem: string; readonly keyPem: string };
  readonly preferredAddressTypes?: readonly string[];
  /** Verify agents' serving certificates against this CA; without it they are not verified (upstream without --kubelet-certificate-authority). */
  readonly caPem?: string;
  /**
   * Reach loopback and unspecified node addresses (`serve --node-proxy-allow-loopback`): single-machine
   * set-ups whose agents listen on 127.0.0.1. Link-local addresses and this server's own stay refused.
   */
  readonly allowLoopback?: boolean;
  /** Where this server listens, once it does: its own address and port are never a target. */
  readonly self?: () => AddressInfo | undefined;
  /** Host names to addresses (default the system's resolver). */
  readonly resolver?: Resolver;
  /** Opens connections (default TCP or TLS to the checked address). */
  readonly connect?: ProxyConnect;
  /** Connect and response-header timeout, ms (default 30 s). */
  readonly timeoutMs?: number;
}

interface Node extends ApiObject {
  status?: { addresses?: Array<{ type?: string; address?: string }>; daemonEndpoints?: { agentEndpoint?: { Port?: number } } };
}

export class NodeProxy {
  private readonly preferred: readonly string[];

  constructor(private readonly o: NodeProxyOptions) {
    this.preferred = o.preferredAddressTypes ?? DEFAULT_AGENT_PREFERRED_ADDRESS_TYPES;
  }

  /** Whether the path segments (decoded) address a node's proxy subresource. */
  static matches(segs: readonly string[]): boolean {
    return segs[0] === 'api' && segs[1] === 'v1' && segs[2] === 'nodes' && segs.length >= 5 && segs[4] === 'proxy';
  }

  /** Proxies the request; rejects with a StatusError only while nothing has been written. */
  async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = req.url ?? '/';
    const qi = raw.indexOf('?');
    const m = /^\/+api\/+v1\/+nodes\/+([^/]+)\/+proxy(\/.*)?$/.exec(qi < 0 ? raw : raw.slice(0, qi));
    if (!m) throw pathNotFound();
    let id: string;
    try {
      id = decodeURIComponent(m[1]!);
    } catch {
      throw badRequest(`invalid URL path escape in ${JSON.stringify(m[1])}`);
    }
    const target = await this.locate(id);
    const path = agentPath(m[2] ?? '');
    const address = await this.checkedAddress(target);
    return this.forward(req, res, target, address, `${path}${qi < 0 ? '' : raw.slice(qi)}`);
  }

  /**
   * The address to connect to for `to`: its host, or the first address its name resolves to, once
   * every one of them is allowed (upstream IsProxyableHostname checks them all). Refused targets are
   * a 400 BadRequest "address not allowed" Status, as upstream's, saying why.
   */
  private async checkedAddress(to: Target): Promise<string> {
    const where = hostPort(to.host, to.port);
    let addresses: string[];
    try {
      addresses = await resolveHost(to.host, this.o.resolver ?? systemResolver);
    } catch (err) {
      throw serviceUnavailable(`error trying to reach the agent at ${where}: ${(err as Error).message}`);
    }
    const self = this.o.self?.();
    for (const address of addresses) {
      const named = address === to.host.replace(/^\[(.*)\]$/, '$1') ? address : `${to.host} (which resolves to ${address})`;
      if (!isIP(address)) throw badRequest(`address not allowed: ${named} is not an IP address`);
      const kind = addressKind(address);
      if (kind && !(this.o.allowLoopback && LOOPBACK_KINDS.has(kind))) {
        const how = LOOPBACK_KINDS.has(kind) ? 'unless the server is started with --node-proxy-allow-loopback' : 'ever';
        throw badRequest(`address not allowed: the node proxy does not connect to ${named}, ${describeKind(kind)}, ${how}`);
      }
      // Any address of this machine at the server's own port may be the server: a request through
      // the proxy to it would proxy again, and again.
      if (self && to.port === self.port && isLocalAddress(address)) {
        throw badRequest(`address not allowed: ${to.host === address ? hostPort(address, to.port) : `${named} at port ${to.port}`} is this API server's own address; the node proxy never proxies to itself`);
      }
    }
    return addresses[0]!;
  }

  /** Where the node's agent listens (upstream node.ResourceLocation and NodeConnectionInfoGetter). */
  private async locate(id: string): Promise<Target> {
    // Upstream utilnet.SplitSchemeNamePort: `name`, `name:port` or `scheme:name:port`.
    const parts = id.split(':');
    const [scheme, name, port] = parts.length === 1 ? ['', parts[0]!, ''] : parts.length === 2 ? ['', parts[0]!, parts[1]!] : parts.length === 3 ? parts as [string, string, string] : ['', '', ''];
    if (!name || !['', 'http', 'https'].includes(scheme)) throw badRequest(`invalid node request ${JSON.stringify(id)}`);
    const store = this.o.registry.byGroupResource('', 'nodes');
    if (!store) throw pathNotFound();
    const node = (await store.get('', name)) as Node;
    const host = this.preferredAddress(node);
    const published = node.status?.daemonEndpoints?.agentEndpoint?.Port;
    const agentPort = typeof published === 'number' && published > 0 ? published : DEFAULT_AGENT_PORT;
    if (port === '' || port === String(agentPort)) return { scheme: 'https', host, port: agentPort, asServer: true };
    // Another port of the node: upstream's plain proxy transport, without the server's credentials.
    if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) throw badRequest(`invalid node request ${JSON.stringify(id)}`);
    return { scheme: scheme || 'http', host, port: Number(port), asServer: false };
  }

  /** Upstream nodeutil.GetPreferredNodeAddress; `HostName` (the spec's spelling) counts as `Hostname`. */
  private preferredAddress(node: Node): string {
    const addresses = node.status?.addresses ?? [];
    const norm = (t: string | undefined) => (t === 'HostName' ? 'Hostname' : t);
    for (const type of this.preferred) {
      const hit = addresses.find((a) => norm(a.type) === norm(type) && a.address);
      if (hit) return hit.address!;
    }
    const known = addresses.map((a) => `{${a.type ?? ''} ${a.address ?? ''}}`).join(' ');
    throw serviceUnavailable(`no preferred addresses found; known addresses: [${known}]`);
  }

  /**
   * Asks the agent of node `nodeName` for `path` (query included) as this server, with its agent-client
   * certificate, through the same checks as the node proxy (the pod subresources upstream serves via
   * the kubelet: pods/log). Resolves with the agent's response once its headers are in (a 503 Status
   * when it cannot be reached); `abort` ends the exchange (the client went away).
   */
  async agentRequest(nodeName: string, method: string, path: string, headers: OutgoingHttpHeaders = {}): Promise<{ response: IncomingMessage; abort(): void }> {
    const target = await this.locate(nodeName);
    const address = await this.checkedAddress(target);
    const where = hostPort(target.host, target.port);
    const out = httpRequest({ method, path, headers: { ...headers, host: where }, createConnection: () => (this.o.connect ?? defaultConnect)(this.connectionTo(target, address)) });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => out.destroy(new Error(`no response within ${Math.round(this.timeout / 1000)} s`)), this.timeout);
      out.on('response', (response) => {
        clearTimeout(timer);
        resolve({ response, abort: () => { out.destroy(); response.destroy(); } });
      });
      out.on('error', (err) => {
        clearTimeout(timer);
        reject(serviceUnavailable(`error trying to reach the agent at ${where}: ${err.message}`));
      });
      out.end();
    });
  }

  /**
   * A connection to the agent of node `name` on its own port, as the server (its agent-client
   * certificate), after the same address checks as the proxy: what pods/exec, attach and portforward
   * (pod-streaming.ts) forward their upgrades over. `where` names the agent in error messages.
   */
  async openAgent(name: string): Promise<{ socket: Socket; where: string }> {
    const target = await this.locate(name);
    const address = await this.checkedAddress(target);
    return { socket: (this.o.connect ?? defaultConnect)(this.connectionTo(target, address)), where: hostPort(target.host, target.port) };
  }

  /** Connect and response-header timeout, ms. */
  get timeout(): number {
    return this.o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  private connectionTo(to: Target, address: string): ProxyConnection {
    const bareHost = to.host.replace(/^\[(.*)\]$/, '$1');
    return {
      address, port: to.port,
      ...(to.scheme === 'https' ? {
        tls: {
          ...(isIP(bareHost) ? {} : { servername: bareHost }),
          rejectUnauthorized: this.o.caPem !== undefined, ca: this.o.caPem,
          // The server's identity goes to the agent's own port only, as a certificate: nothing a
          // listener there receives can be replayed.
          ...(to.asServer ? { cert: this.o.clientCert.certPem, key: this.o.clientCert.keyPem } : {}),
        },
      } : {}),
    };
  }

  private forward(req: IncomingMessage, res: ServerResponse, to: Target, address: string, path: string): Promise<void> {
    const where = hostPort(to.host, to.port);
    const headers = forwardedHeaders(req.headers);
    headers['host'] = where;
    const connection = this.connectionTo(to, address);
    const connect = this.o.connect ?? defaultConnect;
    const opts = {
      method: req.method, path, headers,
      // One connection per request, to the checked address (no second lookup, no pool): nothing of
      // one client's exchange lingers for the next.
      createConnection: () => connect(connection),
    };
    return new Promise<void>((resolve, reject) => {
      let answered = false;
      const out = httpRequest(opts);
      const timer = setTimeout(() => out.destroy(new Error(`no response within ${Math.round(this.timeout / 1000)} s`)), this.timeout);
      out.on('response', (back) => {
        clearTimeout(timer);
        answered = true;
        res.writeHead(back.statusCode ?? 502, backHeaders(back.headers));
        back.pipe(res);
        back.on('error', () => res.destroy());
        back.on('end', () => resolve());
      });
      out.on('error', (err) => {
        clearTimeout(timer);
        if (answered) {
          res.destroy();
          resolve();
          return;
        }
        reject(serviceUnavailable(`error trying to reach the agent at ${where}: ${err.message}`));
      });
      // The client went away: stop asking the agent, or stop reading its answer.
      res.on('close', () => {
        out.destroy(new Error('the client closed the connection'));
        resolve();
      });
      req.pipe(out);
    });
  }

}

interface Target {
  readonly scheme: string;
  readonly host: string;
  readonly port: number;
  /** The agent's own port: the server presents its agent-client certificate there. */
  readonly asServer: boolean;
}

/** `host:port`, IPv6 addresses in brackets. */
function hostPort(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/**
 * The path to ask the agent for, as sent (escapes kept); refused with 400 when any segment is `..`
 * once decoded, so that no spelling of a parent step reaches the agent.
 */
export function agentPath(rest: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rest);
  } catch {
    throw badRequest(`invalid URL path escape in ${JSON.stringify(rest)}`);
  }
  if (decoded.split(/[/\\]/).some((seg) => seg === '..')) throw badRequest(`the proxied path may not contain ".." segments: ${JSON.stringify(rest)}`);
  return rest === '' ? '/' : rest;
}

/** The request headers the agent gets: neither hop-by-hop ones nor the client's credentials or impersonation. */
function forwardedHeaders(h: IncomingHttpHeaders): OutgoingHttpHeaders {
  const drop = connectionListed(h['connection']);
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined || HOP_BY_HOP.has(k) || drop.has(k) || k === 'authorization' || k === 'host' || k.startsWith('impersonate-')) continue;
    out[k] = v;
  }
  return out;
}

function backHeaders(h: IncomingHttpHeaders): OutgoingHttpHeaders {
  const drop = connectionListed(h['connection']);
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined && !HOP_BY_HOP.has(k) && !drop.has(k)) out[k] = v;
  return out;
}

function connectionListed(v: string | string[] | undefined): Set<string> {
  return new Set((Array.isArray(v) ? v.join(',') : v ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean));
}
