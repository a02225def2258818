// How old something is, the way kubectl's tables print it: a short duration with two or three
// significant figures (`42s`, `5m2s`, `17m`, `3h5m`, `2d4h`, `400d`, `3y12d`), computed when the
// Table is served (upstream k8s.io/apimachinery/pkg/util/duration.HumanDuration, and the printers'
// translateTimestampSince: `<unknown>` for an unset time).

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const YEAR = 365 * DAY;

/** The duration `ms` (milliseconds) in kubectl's short form. */
export function humanDuration(ms: number): string {
  // Go converts toward zero; a clock a second or so ahead of ours still reads as "now".
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(ms / MINUTE);
  if (minutes < 10) return withRest(minutes, 'm', seconds % 60, 's');
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(ms / HOUR);
  if (hours < 8) return withRest(hours, 'h', minutes % 60, 'm');
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(ms / DAY);
  if (hours < 8 * 24) return withRest(days, 'd', hours % 24, 'h');
  if (days < 2 * 365) return `${days}d`;
  const years = Math.floor(ms / YEAR);
  if (days < 8 * 365) return withRest(years, 'y', days % 365, 'd');
  return `${years}y`;
}

/** `5m2s`, or just `5m` when the smaller unit is zero. */
const withRest = (n: number, unit: string, rest: number, restUnit: string): string => (rest === 0 ? `${n}${unit}` : `${n}${unit}${rest}${restUnit}`);

/** Go's zero time, which upstream treats as unset. */
const ZERO_TIME_MS = Date.parse('0001-01-01T00:00:00Z');

/** The time an RFC 3339 timestamp names, or undefined when it is unset (or Go's zero time) or unreadable. */
export function timestampMs(ts: unknown): number | undefined {
  if (typeof ts !== 'string' || ts === '') return undefined;
  const ms = Date.parse(ts);
  return Number.isNaN(ms) || ms <= ZERO_TIME_MS ? undefined : ms;
}

/** The age of a timestamp at `now` (ms since the epoch): `<unknown>` when it is unset. */
export function age(ts: unknown, now: number): string {
  const ms = timestampMs(ts);
  return ms === undefined ? '<unknown>' : humanDuration(now - ms);
}
