// The mock runtime's clock: nanoseconds since the Unix epoch, as CRI timestamps are, and Go's
// RFC3339Nano text, as CRI log lines and the call log show them.

// The millisecond wall clock at start plus the monotonic high-resolution clock since: nanosecond
// resolution, and never backwards within a run (records made within one millisecond still sort).
const WALL_ANCHOR_NS = BigInt(Date.now()) * 1_000_000n;
const HR_ANCHOR = process.hrtime.bigint();

export function nowNs(): bigint {
  return WALL_ANCHOR_NS + (process.hrtime.bigint() - HR_ANCHOR);
}

/** Go's time.RFC3339Nano in UTC: trailing zeros of the fraction dropped, no fraction when it is zero. */
export function rfc3339Nano(ns: bigint): string {
  const ms = ns / 1_000_000n;
  const base = new Date(Number(ms)).toISOString().slice(0, 19);
  const frac = (ns % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${base}${frac ? `.${frac}` : ''}Z`;
}
