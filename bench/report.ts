// How the benchmarks print their figures: one table format and one quantile for every script.

/** The value below which a share `q` (0..1) of the figures lies. */
export const quantile = (xs: readonly number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

/** A plain-text table: the first column left-aligned, the figures right-aligned. */
export function printTable(head: readonly string[], rows: readonly string[][]): void {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

/** A positive integer flag of a benchmark; anything else ends the process with exit 2 and says why. */
export function positiveInt(bench: string, flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`bench/${bench}: --${flag} must be a positive integer, got ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return n;
}
