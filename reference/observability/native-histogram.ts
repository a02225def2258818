// Native (exponential-bucket) histogram maths, as Prometheus client_golang does it, for any
// component. No HTTP, no exposition format: bucket keys, resolution halving, the span/delta
// encoding, and the per-series state a component observes into next to its classic histogram.
//
// Schema s (-4..8) gives base = 2^(2^-s); bucket key i covers (base^(i-1), base^i]. Values whose
// magnitude is at most the zero threshold go to the zero bucket; negative values to negative
// buckets keyed by their magnitude.

export const MIN_SCHEMA = -4;
export const MAX_SCHEMA = 8;
/** Spec 002 §8: at most 160 buckets per histogram. */
export const DEFAULT_MAX_BUCKETS = 160;
/** client_golang's default zero threshold (2^-128). */
export const DEFAULT_ZERO_THRESHOLD = 2 ** -128;

export interface BucketSpan {
  /** Gap to the previous span's end (for the first span: the first bucket's key). */
  readonly offset: number;
  readonly length: number;
}

/** Buckets as spans plus deltas: each bucket's count minus the previous bucket's (first: minus 0). */
export interface EncodedBuckets {
  readonly spans: BucketSpan[];
  readonly deltas: number[];
}

export function checkSchema(schema: number): void {
  if (!Number.isInteger(schema) || schema < MIN_SCHEMA || schema > MAX_SCHEMA) {
    throw new RangeError(`native histogram schema must be an integer in ${MIN_SCHEMA}..${MAX_SCHEMA}, got ${schema}`);
  }
}

/** base = 2^(2^-schema): the growth factor from one bucket boundary to the next. */
export function bucketBase(schema: number): number {
  checkSchema(schema);
  return 2 ** (2 ** -schema);
}

/**
 * The schema client_golang picks for a bucket factor: the coarsest whose base does not exceed
 * the factor (factor 1.1 gives schema 3, base ≈ 1.0905), clamped to -4..8.
 */
export function schemaForFactor(factor: number): number {
  if (!(factor > 1)) throw new RangeError(`native histogram bucket factor must be > 1, got ${factor}`);
  const floor = Math.floor(Math.log2(Math.log2(factor)));
  if (floor <= -MAX_SCHEMA) return MAX_SCHEMA;
  if (floor >= -MIN_SCHEMA) return MIN_SCHEMA;
  return -floor;
}

const view = new DataView(new ArrayBuffer(8));

/** Go's math.Frexp for finite, non-zero v: v = frac * 2^exp with |frac| in [0.5, 1). */
export function frexp(v: number): [number, number] {
  if (v === 0 || !Number.isFinite(v)) return [v, 0];
  view.setFloat64(0, v);
  let biased = (view.getUint32(0) >>> 20) & 0x7ff;
  let adjust = 0;
  if (biased === 0) {
    // Subnormal: scale into the normal range first.
    view.setFloat64(0, v * 2 ** 64);
    biased = (view.getUint32(0) >>> 20) & 0x7ff;
    adjust = -64;
  }
  const hi = view.getUint32(0);
  view.setUint32(0, (hi & 0x800fffff) | (1022 << 20));
  return [view.getFloat64(0), biased - 1022 + adjust];
}

/** Per positive schema: the lower bounds 2^(i/2^schema)/2, i = 0..2^schema-1, all in [0.5, 1). */
const boundsCache = new Map<number, Float64Array>();
function boundsFor(schema: number): Float64Array {
  let b = boundsCache.get(schema);
  if (!b) {
    const n = 2 ** schema;
    b = new Float64Array(n);
    for (let i = 0; i < n; i++) b[i] = i === 0 ? 0.5 : 2 ** (i / n) / 2;
    boundsCache.set(schema, b);
  }
  return b;
}

/** sort.SearchFloat64s: the smallest i with a[i] >= x, or a.length. */
function searchFloat64s(a: Float64Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! >= x) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The key of the bucket that holds magnitude m (> 0): the i with base^(i-1) < m <= base^i.
 * +Inf goes one bucket above the largest finite value's bucket.
 */
export function bucketKey(m: number, schema: number): number {
  checkSchema(schema);
  if (!(m > 0)) throw new RangeError(`bucket key of a non-positive magnitude: ${m}`);
  if (m === Infinity) return bucketKey(Number.MAX_VALUE, schema) + 1;
  const [frac, exp] = frexp(m);
  if (schema > 0) {
    const bounds = boundsFor(schema);
    return searchFloat64s(bounds, frac) + (exp - 1) * bounds.length;
  }
  let key = exp;
  if (frac === 0.5) key--;
  const shift = -schema;
  const offset = (1 << shift) - 1;
  return (key + offset) >> shift;
}

/** The interval (lower, upper] that bucket `key` covers at `schema`. */
export function bucketBounds(key: number, schema: number): [number, number] {
  const base = bucketBase(schema);
  return [base ** (key - 1), base ** key];
}

/** One step coarser: schema - 1, buckets 2k-1 and 2k merge into k (key -> ceil(key/2)). */
export function halveBuckets(buckets: ReadonlyMap<number, number>): Map<number, number> {
  const out = new Map<number, number>();
  for (const [key, count] of buckets) {
    const k = Math.ceil(key / 2) + 0; // + 0 turns -0 into 0
    out.set(k, (out.get(k) ?? 0) + count);
  }
  return out;
}

/**
 * Spans and deltas of the populated buckets, in key order. Every gap starts a new span (no
 * zero-filled buckets), so the sum of span lengths is the number of populated buckets.
 */
export function encodeBuckets(buckets: ReadonlyMap<number, number>): EncodedBuckets {
  const keys = [...buckets.entries()].filter(([, c]) => c !== 0).map(([k]) => k).sort((a, b) => a - b);
  const spans: { offset: number; length: number }[] = [];
  const deltas: number[] = [];
  let prevKey: number | undefined;
  let prevCount = 0;
  for (const key of keys) {
    const count = buckets.get(key)!;
    if (prevKey !== undefined && key === prevKey + 1) spans[spans.length - 1]!.length++;
    else spans.push({ offset: prevKey === undefined ? key : key - prevKey - 1, length: 1 });
    deltas.push(count - prevCount);
    prevCount = count;
    prevKey = key;
  }
  return { spans, deltas };
}

/** The inverse of encodeBuckets (accepts zero-filled buckets too): key to count. */
export function decodeBuckets(spans: readonly BucketSpan[], deltas: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  let key = 0;
  let count = 0;
  let i = 0;
  for (const span of spans) {
    key += span.offset;
    for (let j = 0; j < span.length; j++) {
      if (i >= deltas.length) throw new RangeError(`spans cover more buckets (${i + 1}+) than there are deltas (${deltas.length})`);
      count += deltas[i++]!;
      if (count !== 0) out.set(key, count);
      key++;
    }
  }
  if (i !== deltas.length) throw new RangeError(`spans cover ${i} buckets but there are ${deltas.length} deltas`);
  return out;
}

export interface NativeHistogramOptions {
  /** Initial schema (-4..8). Default: from bucketFactor, else 3. */
  readonly schema?: number;
  /** Largest acceptable ratio between neighbouring boundaries (client_golang's bucket factor). */
  readonly bucketFactor?: number;
  /** Populated buckets allowed (positive plus negative) before the resolution is halved. Default 160. */
  readonly maxBuckets?: number;
  /** Magnitudes at most this go to the zero bucket. Default 2^-128; 0 for an exact-zero bucket. */
  readonly zeroThreshold?: number;
}

/** What an exposition needs of one native histogram series. */
export interface NativeHistogramSnapshot {
  readonly schema: number;
  readonly zeroThreshold: number;
  readonly zeroCount: number;
  readonly count: number;
  readonly sum: number;
  readonly positiveSpans: BucketSpan[];
  readonly positiveDeltas: number[];
  readonly negativeSpans: BucketSpan[];
  readonly negativeDeltas: number[];
}

/** The native-bucket state of one series. */
export class NativeHistogram {
  private schemaNow: number;
  private zeroThresholdNow: number;
  private readonly maxBuckets: number;
  private positive = new Map<number, number>();
  private negative = new Map<number, number>();
  private zeroCount = 0;
  private count = 0;
  private sum = 0;

  constructor(opts: NativeHistogramOptions = {}) {
    this.schemaNow = opts.schema ?? (opts.bucketFactor !== undefined ? schemaForFactor(opts.bucketFactor) : 3);
    checkSchema(this.schemaNow);
    this.zeroThresholdNow = opts.zeroThreshold ?? DEFAULT_ZERO_THRESHOLD;
    if (!(this.zeroThresholdNow >= 0)) throw new RangeError(`zero threshold must be >= 0, got ${this.zeroThresholdNow}`);
    this.maxBuckets = opts.maxBuckets ?? DEFAULT_MAX_BUCKETS;
    if (!(this.maxBuckets >= 1)) throw new RangeError(`maxBuckets must be >= 1, got ${this.maxBuckets}`);
  }

  get schema(): number {
    return this.schemaNow;
  }

  get zeroThreshold(): number {
    return this.zeroThresholdNow;
  }

  /** Populated buckets, positive plus negative (the zero bucket is not counted). */
  get bucketCount(): number {
    return this.positive.size + this.negative.size;
  }

  /** NaN is counted and summed but has no bucket. */
  observe(v: number): void {
    this.count++;
    this.sum += v;
    if (Number.isNaN(v)) return;
    const m = Math.abs(v);
    if (m <= this.zeroThresholdNow) {
      this.zeroCount++;
      return;
    }
    const target = v > 0 ? this.positive : this.negative;
    const key = bucketKey(m, this.schemaNow);
    target.set(key, (target.get(key) ?? 0) + 1);
    if (this.bucketCount > this.maxBuckets) this.limitBuckets();
  }

  /** Halve the resolution while over the limit; at schema -4, widen the zero bucket instead. */
  private limitBuckets(): void {
    while (this.bucketCount > this.maxBuckets && this.schemaNow > MIN_SCHEMA) {
      this.positive = halveBuckets(this.positive);
      this.negative = halveBuckets(this.negative);
      this.schemaNow--;
    }
    while (this.bucketCount > this.maxBuckets) {
      // The lowest populated magnitude's bucket joins the zero bucket, with everything below it.
      const lowest = Math.min(...this.positive.keys(), ...this.negative.keys());
      const upper = bucketBounds(lowest, this.schemaNow)[1];
      for (const side of [this.positive, this.negative]) {
        for (const [key, c] of side) {
          if (key <= lowest) {
            this.zeroCount += c;
            side.delete(key);
          }
        }
      }
      this.zeroThresholdNow = upper;
    }
  }

  snapshot(): NativeHistogramSnapshot {
    const pos = encodeBuckets(this.positive);
    const neg = encodeBuckets(this.negative);
    // An empty native histogram with zero threshold 0 would be indistinguishable from a classic
    // one: it carries one empty span (client_golang does the same).
    const positiveSpans =
      this.zeroThresholdNow === 0 && this.zeroCount === 0 && pos.spans.length === 0 && neg.spans.length === 0
        ? [{ offset: 0, length: 0 }]
        : pos.spans;
    return {
      schema: this.schemaNow,
      zeroThreshold: this.zeroThresholdNow,
      zeroCount: this.zeroCount,
      count: this.count,
      sum: this.sum,
      positiveSpans,
      positiveDeltas: pos.deltas,
      negativeSpans: neg.spans,
      negativeDeltas: neg.deltas,
    };
  }
}
