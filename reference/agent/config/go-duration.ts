// Go's time.Duration text form, which upstream's configuration uses for every period
// (`syncFrequency: 1m0s`). Parsed as Go's time.ParseDuration does and written back as
// Duration.String() writes it, so /configz shows what upstream would show for the same input.

const UNIT_NS: Readonly<Record<string, number>> = {
  ns: 1,
  us: 1e3,
  'µs': 1e3, // U+00B5 micro sign
  'μs': 1e3, // U+03BC Greek mu
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/** Nanoseconds of a Go duration, or an error message worded as Go's (`time: invalid duration "x"`). */
export function parseGoDuration(text: string): number | { error: string } {
  const quoted = JSON.stringify(text);
  let s = text;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') return { error: `time: invalid duration ${quoted}` };
  let total = 0;
  const re = /(\d*)(?:\.(\d*))?([^\d.]*)/y;
  let pos = 0;
  while (pos < s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m || re.lastIndex === pos) return { error: `time: invalid duration ${quoted}` };
    const [, whole = '', frac, unit = ''] = m;
    if (whole === '' && (frac === undefined || frac === '')) return { error: `time: invalid duration ${quoted}` };
    if (unit === '') return { error: `time: missing unit in duration ${quoted}` };
    const scale = UNIT_NS[unit];
    if (scale === undefined) return { error: `time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}` };
    total += Number(`${whole || '0'}.${frac ?? ''}0`) * scale;
    pos = re.lastIndex;
  }
  // Go's Duration is an int64 of nanoseconds.
  if (total > 9.223372036854775e18) return { error: `time: invalid duration ${quoted}` };
  return sign * Math.round(total);
}

/** Go's Duration.String(): `0s`, `300ms`, `1.5µs`, `10s`, `1m0s`, `4h0m0s`, `2m30.5s`. */
export function formatGoDuration(ns: number): string {
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  let u = Math.abs(ns);
  const frac = (v: number): string => String(Number(v.toFixed(9)));
  if (u < 1e3) return `${sign}${u}ns`;
  if (u < 1e6) return `${sign}${frac(u / 1e3)}µs`;
  if (u < 1e9) return `${sign}${frac(u / 1e6)}ms`;
  const h = Math.floor(u / 3600e9);
  u -= h * 3600e9;
  const m = Math.floor(u / 60e9);
  u -= m * 60e9;
  const secs = `${frac(u / 1e9)}s`;
  if (h > 0) return `${sign}${h}h${m}m${secs}`;
  if (m > 0) return `${sign}${m}m${secs}`;
  return `${sign}${secs}`;
}

/** Milliseconds of a Go duration the configuration already validated (`1m0s` gives 60000). */
export function durationMs(text: string): number {
  const ns = parseGoDuration(text);
  if (typeof ns !== 'number') throw new Error(ns.error);
  return ns / 1e6;
}
