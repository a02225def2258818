// Node's setTimeout honours delays up to 2^31-1 ms (about 24.8 days): a longer one fires after 1 ms,
// turning a long wait into an instant one (a checkpoint's timeout expiring at once, a toleration's
// eviction due at once). Every timer whose delay a user or a client chooses goes through
// timerDelay(); one that must fire at an exact later time re-arms until then (taint-eviction.ts).

export const MAX_TIMER_MS = 2 ** 31 - 1;

/** `ms` as setTimeout honours it: at most MAX_TIMER_MS (a longer wait ends then), 0 for none or less. */
export function timerDelay(ms: number): number {
  if (!(ms > 0)) return 0;
  return Math.min(ms, MAX_TIMER_MS);
}

/**
 * The longest gRPC deadline a grpc-js server honours. It reads `grpc-timeout` into a 32-bit count of
 * milliseconds (a longer one wraps and expires at once), and clients send a deadline past 1e8 ms in
 * whole seconds rounded up: whole seconds, one short of MAX_TIMER_MS.
 */
export const MAX_GRPC_DEADLINE_MS = (Math.floor(MAX_TIMER_MS / 1000) - 1) * 1000;

/** A gRPC deadline `ms` from now as every grpc-js peer honours it (see MAX_GRPC_DEADLINE_MS). */
export function grpcDeadlineMs(ms: number): number {
  return Math.min(timerDelay(ms), MAX_GRPC_DEADLINE_MS);
}
