// Reaching the target before any case runs, so that a wrong URL is one clear message (exit 3),
// not forty errored cases.
import { ApiClient, createDispatcher, describeError, errorCode, type TargetConnection } from './client.js';

export class TargetUnreachableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetUnreachableError';
  }
}

/** Any HTTP answer counts as reachable; only a connection or TLS failure or silence does not. */
export async function probeTarget(conn: TargetConnection, timeoutMs = 10_000): Promise<void> {
  return probe(conn, '/version', 'the target API', '--api', timeoutMs);
}

/** The same for a component's metrics and debug endpoints (`run --metrics name=url`), on /healthz. */
export async function probeComponent(name: string, conn: TargetConnection, timeoutMs = 10_000): Promise<void> {
  return probe(conn, '/healthz', `component "${name}"`, `--metrics ${name}=<url>`, timeoutMs);
}

async function probe(conn: TargetConnection, path: string, what: string, option: string, timeoutMs: number): Promise<void> {
  const dispatcher = createDispatcher(conn);
  try {
    await new ApiClient(conn, dispatcher).get(path, { timeoutMs });
  } catch (err) {
    const code = errorCode(err);
    const why = code ? describeError(err) : (err as Error)?.name === 'TimeoutError' || (err as Error)?.name === 'AbortError' ? `no answer within ${timeoutMs / 1000}s` : describeError(err);
    throw new TargetUnreachableError(
      `cannot reach ${what} at ${conn.baseUrl}: ${why}. Check ${option}, that the server is running and listening there, and the TLS options (--ca, --insecure-skip-tls-verify).`,
    );
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
}
