// API call latency as the server itself measured it (issue 27): the classic buckets of
// apiserver_request_duration_seconds scraped from /metrics before and after a load phase, summed per
// verb over every resource (and over every API server of a target), the difference taken, and the
// 99th percentile read from it as Prometheus' histogram_quantile does (linear within the bucket).
// Only the classic text exposition is read: every implementation serves it.

/** Cumulative bucket counts by verb, then by upper bound (`+Inf` as Infinity). */
export type VerbBuckets = Map<string, Map<number, number>>;

const BUCKET_LINE = /^apiserver_request_duration_seconds_bucket\{([^}]*)\} (\S+)/;

/** The request duration buckets of one /metrics text, summed per verb. */
export function parseRequestDurations(text: string): VerbBuckets {
  const out: VerbBuckets = new Map();
  for (const line of text.split('\n')) {
    const m = BUCKET_LINE.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...m[1]!.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]));
    const verb = labels['verb'];
    const le = labels['le'];
    if (!verb || le === undefined) continue;
    const bound = le === '+Inf' ? Infinity : Number(le);
    let byLe = out.get(verb);
    if (!byLe) out.set(verb, (byLe = new Map()));
    byLe.set(bound, (byLe.get(bound) ?? 0) + Number(m[2]));
  }
  return out;
}

/** a + b, bucket by bucket: the scrapes of several API servers of one target taken together. */
export function addBuckets(a: VerbBuckets, b: VerbBuckets): VerbBuckets {
  const out: VerbBuckets = new Map([...a].map(([v, m]) => [v, new Map(m)]));
  for (const [verb, byLe] of b) {
    let into = out.get(verb);
    if (!into) out.set(verb, (into = new Map()));
    for (const [le, n] of byLe) into.set(le, (into.get(le) ?? 0) + n);
  }
  return out;
}

/** after - before: what was observed between two scrapes of the same servers. */
export function diffBuckets(after: VerbBuckets, before: VerbBuckets): VerbBuckets {
  const out: VerbBuckets = new Map();
  for (const [verb, byLe] of after) {
    const was = before.get(verb);
    out.set(verb, new Map([...byLe].map(([le, n]) => [le, n - (was?.get(le) ?? 0)])));
  }
  return out;
}

/** Requests counted in one verb's buckets (its +Inf bucket). */
export function countOf(byLe: Map<number, number>): number {
  return byLe.get(Infinity) ?? Math.max(0, ...byLe.values());
}

/**
 * The q-quantile of cumulative buckets, as Prometheus' histogram_quantile: linear interpolation
 * within the bucket it falls in (from 0 for the first); in the +Inf bucket, the highest finite bound.
 * NaN when the buckets counted nothing.
 */
export function bucketQuantile(byLe: Map<number, number>, q: number): number {
  const bounds = [...byLe.keys()].sort((a, b) => a - b);
  const total = countOf(byLe);
  if (!total) return NaN;
  const rank = q * total;
  let prevBound = 0;
  let prevCount = 0;
  for (const le of bounds) {
    const c = byLe.get(le)!;
    if (c >= rank) {
      if (le === Infinity) return prevBound;
      return prevBound + (le - prevBound) * ((rank - prevCount) / Math.max(1e-12, c - prevCount));
    }
    prevBound = le;
    prevCount = c;
  }
  return prevBound;
}
