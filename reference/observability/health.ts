// Health endpoints (/healthz, /livez, /readyz) over named checks a component registers, with the
// upstream answers: `ok`, the `?verbose` listing, `?exclude=<name>` (repeatable), a failing check
// turning the endpoint 500 with the listing (reasons withheld), and `/<endpoint>/<check>` for one
// check (its reason shown). Component-agnostic: the API server and the node agent both mount it.

export const HEALTH_ENDPOINTS = ['healthz', 'livez', 'readyz'] as const;
export type HealthEndpoint = (typeof HEALTH_ENDPOINTS)[number];

/** A named check: resolves when healthy, throws (or rejects) with the reason when not. */
export interface HealthCheck {
  readonly name: string;
  check(): void | Promise<void>;
}

export function namedCheck(name: string, check: () => void | Promise<void>): HealthCheck {
  return { name, check };
}

/** The checks behind each endpoint, in the order they are listed. */
export type HealthChecks = Readonly<Record<HealthEndpoint, readonly HealthCheck[]>>;

/**
 * Test-only fault injection: check name to the reason it fails with. Tests and proofs add and
 * remove entries while the server runs; it is reachable only through the in-process options
 * (`ReferenceOptions.healthFaults`), never from the network.
 */
export type HealthFaults = Map<string, string>;

/** Called for every check a root endpoint evaluates (excluded checks are not evaluated). */
export type HealthObserver = (check: string, endpoint: HealthEndpoint, ok: boolean) => void;

export interface HealthAnswer {
  readonly status: 200 | 500;
  readonly body: string;
}

/** Wraps checks so that a fault named in `faults` fails them with its reason. */
export function withFaults(checks: HealthChecks, faults: HealthFaults | undefined): HealthChecks {
  if (!faults) return checks;
  const wrap = (c: HealthCheck): HealthCheck => ({
    name: c.name,
    check: () => {
      const reason = faults.get(c.name);
      if (reason !== undefined) throw new Error(reason);
      return c.check();
    },
  });
  return Object.fromEntries(HEALTH_ENDPOINTS.map((e) => [e, checks[e].map(wrap)])) as unknown as HealthChecks;
}

async function run(c: HealthCheck): Promise<unknown> {
  try {
    await c.check();
    return undefined;
  } catch (err) {
    return err ?? new Error('check failed');
  }
}

function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The root endpoint (upstream handleRootHealth): every check not excluded runs, in order. All
 * healthy: `ok`, or with `?verbose` the listing and `<endpoint> check passed`. Any failure: 500 with
 * the listing, whatever `verbose` says, and `<endpoint> check failed`; the public answer withholds
 * failure reasons (`/<endpoint>/<check>` shows them).
 */
export async function evaluateRoot(endpoint: HealthEndpoint, checks: readonly HealthCheck[], query: URLSearchParams, observe?: HealthObserver): Promise<HealthAnswer> {
  const excluded = new Set(query.getAll('exclude'));
  const lines: string[] = [];
  let failed = false;
  for (const c of checks) {
    if (excluded.delete(c.name)) {
      lines.push(`[+]${c.name} excluded: ok`);
      continue;
    }
    const err = await run(c);
    observe?.(c.name, endpoint, err === undefined);
    if (err === undefined) {
      lines.push(`[+]${c.name} ok`);
    } else {
      failed = true;
      lines.push(`[-]${c.name} failed: reason withheld`);
    }
  }
  if (excluded.size > 0) {
    lines.push(`warn: some health checks cannot be excluded: no matches for ${[...excluded].sort().map((n) => JSON.stringify(n)).join(',')}`);
  }
  const listing = lines.map((l) => `${l}\n`).join('');
  if (failed) return { status: 500, body: `${listing}${endpoint} check failed\n` };
  if (!query.has('verbose')) return { status: 200, body: 'ok' };
  return { status: 200, body: `${listing}${endpoint} check passed\n` };
}

/** `/<endpoint>/<check>`: `ok`, or 500 `internal server error: <reason>`. */
export async function evaluateOne(check: HealthCheck): Promise<HealthAnswer> {
  const err = await run(check);
  return err === undefined ? { status: 200, body: 'ok' } : { status: 500, body: `internal server error: ${reasonOf(err)}\n` };
}

/** Rejects after `ms` with `message`, for checks of something that may hang (a storage backend). */
export async function within<T>(ms: number, message: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
