// "Did you mean": the nearest known names to a mistyped one (a flag, a command, a suite, a case id),
// so that a typo costs one look at the message rather than a trip to `list` or `--help`.

/** Levenshtein distance, one row at a time. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * Up to `max` known names close to `given`, nearest first: within a third of the longer name's
 * length in edits (so `fous` finds `focus` but `x` finds nothing), or names that contain it or that
 * it contains (a case id missing its suite prefix, a truncated id).
 */
export function closest(given: string, known: Iterable<string>, max = 3): string[] {
  const g = given.toLowerCase();
  const scored: Array<[string, number]> = [];
  for (const k of new Set(known)) {
    const kl = k.toLowerCase();
    const d = editDistance(g, kl);
    const near = d <= Math.max(1, Math.floor(Math.max(g.length, kl.length) / 3));
    const part = g.length >= 4 && (kl.includes(g) || (kl.length >= 4 && g.includes(kl)));
    if (near || part) scored.push([k, near ? d : d + 1000]);
  }
  return scored.sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0])).slice(0, max).map(([k]) => k);
}

/** " (did you mean x or y?)", or "" when nothing is close. */
export function didYouMean(given: string, known: Iterable<string>, format: (s: string) => string = (s) => s): string {
  const near = closest(given, known).map(format);
  if (near.length === 0) return '';
  const list = near.length === 1 ? near[0] : `${near.slice(0, -1).join(', ')} or ${near.at(-1)}`;
  return ` (did you mean ${list}?)`;
}
