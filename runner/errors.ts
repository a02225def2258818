// What the CLI needs before it loads the runner: the errors it maps to exit codes and the defaults
// its help shows. Free of imports, so that `serve` and `--help` start without the runner's weight.

/** A mistake in how the tool was invoked (bad option, unknown reporter). The CLI maps it to exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * The target refused the run's credentials (401) or the rights the run needs (403): a set-up
 * problem, reported once before any case runs (the CLI exits 2), never as case failures.
 */
export class TargetAccessError extends Error {
  override readonly name = 'TargetAccessError';
}

/** No HTTP answer from the target (connection, TLS or silence): the CLI exits 3. */
export class TargetUnreachableError extends Error {
  override readonly name = 'TargetUnreachableError';
}

/** 16 MiB: far above any legitimate object or list page a case reads, far below what hurts. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** `run --background-nodes`: the hollow nodes did not get Ready (or their process ended): the CLI exits 2. */
export class BackgroundNodesError extends Error {
  override readonly name = 'BackgroundNodesError';
}
