// Reaching the target before any case runs, so that a wrong URL is one clear message (exit 3),
// not forty errored cases; and the same for credentials the target rejects (exit 2).
import { ApiClient, createDispatcher, describeError, errorCode, ResponseTooLargeError, type ApiResponse, type TargetConnection } from './client.js';
import { TargetAccessError, TargetUnreachableError } from './errors.js';

export { TargetAccessError, TargetUnreachableError };

/** What credentials the connection carries, for messages. */
function credentialsGiven(conn: TargetConnection): string {
  const parts = [conn.token && 'a bearer token', conn.certPem && 'a client certificate'].filter(Boolean);
  return parts.length ? `sent ${parts.join(' and ')}` : 'no credentials were given';
}

/** 401: authentication failed. */
export function rejectedCredentials(conn: TargetConnection, request: string): TargetAccessError {
  return new TargetAccessError(
    `the target rejected the credentials: pass --token or --kubeconfig (or --token-file) with credentials ${conn.baseUrl} accepts (401 Unauthorized on ${request}; ${credentialsGiven(conn)})`,
  );
}

/** 403: authenticated (or anonymous) but not allowed what the run needs. */
export function permissionDenied(conn: TargetConnection, permission: string, doing: string, res: ApiResponse): TargetAccessError {
  const said = typeof res.json?.message === 'string' ? `: ${res.json.message}` : '';
  const who = conn.token || conn.certPem ? 'the user of these credentials' : 'anonymous requests (no credentials were given: pass --token or --kubeconfig)';
  return new TargetAccessError(
    `the target denied ${doing} (403 Forbidden${said}). The run needs permission to \`${permission}\` for ${who}; grant it (the run also creates, reads and deletes objects of every kind it checks) or pass other credentials`,
  );
}

/** Any HTTP answer counts as reachable; only a connection or TLS failure or silence does not. */
export async function probeTarget(conn: TargetConnection, timeoutMs = 10_000): Promise<void> {
  return probe(conn, '/version', 'the target API', '--api', timeoutMs);
}

/** The same for a component's metrics and debug endpoints (`run --metrics name=url`), on /healthz. */
export async function probeComponent(name: string, conn: TargetConnection, option = `--metrics ${name}=<url>`, timeoutMs = 10_000): Promise<void> {
  return probe(conn, '/healthz', `component "${name}"`, option, timeoutMs);
}

/**
 * The credentials, on a simple authenticated read (GET /api, API discovery, which upstream grants
 * every authenticated user): 401 means the target does not accept them, 403 that they (or anonymous
 * requests, without any) may not even discover the API. Both throw TargetAccessError. Reachability
 * is probeTarget's job: call that first.
 */
export async function checkCredentials(conn: TargetConnection, timeoutMs = 10_000): Promise<void> {
  const dispatcher = createDispatcher(conn);
  try {
    let res: ApiResponse;
    try {
      res = await new ApiClient(conn, dispatcher).get('/api', { timeoutMs });
    } catch (err) {
      // Whatever else goes wrong here (a huge body, a reset) is for the cases to report.
      if (err instanceof ResponseTooLargeError) return;
      throw new TargetUnreachableError(`cannot read ${conn.baseUrl}/api: ${describeError(err)}`);
    }
    if (res.status === 401) throw rejectedCredentials(conn, 'GET /api');
    if (res.status === 403) throw permissionDenied(conn, 'get /api', 'API discovery, GET /api', res);
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
}

/**
 * Node's codes for a certificate the client does not trust (or that does not name the host): the
 * target answered, so this is the run's TLS set-up, not reachability.
 */
const TLS_TRUST_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED', 'ERR_TLS_CERT_ALTNAME_INVALID',
]);

function tlsTrustCode(err: unknown): string | undefined {
  let e: any = err;
  for (let i = 0; e && i < 4; i++, e = e.cause) if (typeof e.code === 'string' && TLS_TRUST_CODES.has(e.code)) return e.code;
  return undefined;
}

async function probe(conn: TargetConnection, path: string, what: string, option: string, timeoutMs: number): Promise<void> {
  const dispatcher = createDispatcher(conn);
  try {
    await new ApiClient(conn, dispatcher).get(path, { timeoutMs });
  } catch (err) {
    // The target answered, with more than the runner reads: reachable all the same.
    if (err instanceof ResponseTooLargeError) return;
    const tls = tlsTrustCode(err);
    if (tls) {
      // An agent's TLS options are its own (--agent-ca); every other target shares --ca's.
      const fix = option.startsWith('--agent')
        ? 'pass --agent-ca <file> with the CA that signed the agent\'s certificate (or leave it out: the agent\'s certificate is then not verified)'
        : 'pass --ca <file> with the CA that signed it (or a kubeconfig with certificate-authority), or --insecure-skip-tls-verify to not verify it';
      const said = describeError(err);
      throw new TargetAccessError(`the certificate of ${what} at ${conn.baseUrl} is not trusted (${said.includes(tls) ? said : `${said}; ${tls}`}): ${fix}`);
    }
    const code = errorCode(err);
    const why = code ? describeError(err) : (err as Error)?.name === 'TimeoutError' || (err as Error)?.name === 'AbortError' ? `no answer within ${timeoutMs / 1000}s` : describeError(err);
    throw new TargetUnreachableError(
      `cannot reach ${what} at ${conn.baseUrl}: ${why}. Check ${option}, that the server is running and listening there, and the TLS options (--ca, --insecure-skip-tls-verify, --kubeconfig).`,
    );
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
}
