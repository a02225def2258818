// Go-style durations for command-line options (`300ms`, `30s`, `5m`, `1h30m`), in milliseconds.

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses `<number><unit>` sequences (units ms, s, m, h); undefined when the text is not one. */
export function parseDurationMs(text: string): number | undefined {
  const s = text.trim();
  if (!s) return undefined;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/y;
  let total = 0;
  let pos = 0;
  while (pos < s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m) return undefined;
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    pos = re.lastIndex;
  }
  return total;
}
