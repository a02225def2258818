// Native histogram maths: bucket keys against known values, resolution halving, the 160-bucket
// limit, and the span/delta encoding.
import t from 'tap';
import {
  bucketBase,
  bucketBounds,
  bucketKey,
  decodeBuckets,
  encodeBuckets,
  frexp,
  halveBuckets,
  NativeHistogram,
  schemaForFactor,
} from '../../reference/observability/native-histogram.js';

t.test('frexp matches Go math.Frexp', async (t) => {
  t.same(frexp(1), [0.5, 1]);
  t.same(frexp(8), [0.5, 4]);
  t.same(frexp(0.75), [0.75, 0]);
  t.same(frexp(3), [0.75, 2]);
  t.same(frexp(-3), [-0.75, 2]);
  t.same(frexp(5e-324), [0.5, -1073], 'smallest subnormal');
  t.same(frexp(Number.MAX_VALUE)[1], 1024);
});

t.test('base and schema from a bucket factor', async (t) => {
  t.equal(bucketBase(0), 2);
  t.equal(bucketBase(1), Math.SQRT2);
  t.equal(bucketBase(-1), 4);
  t.equal(bucketBase(-4), 65536);
  t.equal(bucketBase(3), 2 ** (1 / 8));
  t.throws(() => bucketBase(9), RangeError);
  t.throws(() => bucketBase(-5), RangeError);
  t.equal(schemaForFactor(1.1), 3, 'client_golang/Kubernetes factor 1.1 is schema 3');
  t.equal(schemaForFactor(2), 0);
  t.equal(schemaForFactor(4), -1);
  t.equal(schemaForFactor(1.0001), 8, 'clamped to 8');
  t.equal(schemaForFactor(1e300), -4, 'clamped to -4');
  t.throws(() => schemaForFactor(1));
});

t.test('bucket keys: bucket i covers (base^(i-1), base^i]', async (t) => {
  const known: [number, number, number][] = [
    // [schema, value, key]
    [0, 1, 0], [0, 2, 1], [0, 3, 2], [0, 4, 2], [0, 4.0000001, 3], [0, 0.5, -1], [0, 0.75, 0], [0, 0.25, -2],
    [1, 1, 0], [1, 1.2, 1], [1, Math.SQRT2 + 1e-12, 2], [1, 2, 2], [1, 0.5, -2],
    [3, 1, 0], [3, 2, 8], [3, 1.09, 1], [3, 1.0906, 2], [3, 0.001, -79], [3, 0.5, -8],
    [8, 2, 256], [8, 1, 0], [8, 1.002, 1], [8, 1.003, 2],
    [-1, 1, 0], [-1, 4, 1], [-1, 5, 2], [-1, 16, 2], [-1, 17, 3], [-1, 0.25, -1], [-1, 0.3, 0], [-1, 2, 1],
    [-4, 1, 0], [-4, 2, 1], [-4, 65536, 1], [-4, 65537, 2], [-4, 2 ** -16, -1], [-4, 2 ** -16 + 1e-20, 0],
  ];
  for (const [schema, value, key] of known) t.equal(bucketKey(value, schema), key, `schema ${schema}: key(${value}) = ${key}`);
  t.equal(bucketKey(Infinity, 0), bucketKey(Number.MAX_VALUE, 0) + 1, '+Inf goes one above the largest finite bucket');
  t.throws(() => bucketKey(0, 0), RangeError);
  t.throws(() => bucketKey(-1, 0), RangeError);

  // Every schema: a value lies within the bounds of its bucket (up to rounding at the edges).
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  let bad = 0;
  for (let schema = -4; schema <= 8; schema++) {
    for (let i = 0; i < 400; i++) {
      const v = 10 ** (rand() * 24 - 12);
      const k = bucketKey(v, schema);
      const [lo, hi] = bucketBounds(k, schema);
      if (!(v > lo * (1 - 1e-12) && v <= hi * (1 + 1e-12))) bad++;
      if (bucketKey(v, schema - 1 < -4 ? -4 : schema - 1) !== (schema === -4 ? k : Math.ceil(k / 2) + 0)) bad++;
    }
  }
  t.equal(bad, 0, 'values fall in their bucket, and key at schema-1 is ceil(key/2)');
});

t.test('halving merges buckets 2k-1 and 2k into k', async (t) => {
  const halved = halveBuckets(new Map([[-3, 1], [-2, 2], [-1, 1], [0, 4], [1, 1], [2, 2], [3, 1]]));
  t.same([...halved.entries()].sort((a, b) => a[0] - b[0]), [[-1, 3], [0, 5], [1, 3], [2, 1]]);
  t.notOk(Object.is([...halved.keys()].find((k) => k === 0), -0), 'no negative zero key');
});

t.test('span and delta encoding', async (t) => {
  const enc = encodeBuckets(new Map([[0, 2], [1, 3], [2, 1], [5, 4], [-3, 1]]));
  t.same(enc.spans, [{ offset: -3, length: 1 }, { offset: 2, length: 3 }, { offset: 2, length: 1 }]);
  t.same(enc.deltas, [1, 1, 1, -2, 3]);
  t.same([...decodeBuckets(enc.spans, enc.deltas).entries()].sort((a, b) => a[0] - b[0]), [[-3, 1], [0, 2], [1, 3], [2, 1], [5, 4]]);
  t.same(encodeBuckets(new Map()), { spans: [], deltas: [] });
  t.same(encodeBuckets(new Map([[7, 0], [8, 2]])), { spans: [{ offset: 8, length: 1 }], deltas: [2] }, 'empty buckets are left out');
  // Zero-filled buckets (as client_golang writes for small gaps) decode too.
  t.same([...decodeBuckets([{ offset: 1, length: 3 }], [2, -2, 1]).entries()], [[1, 2], [3, 1]]);
  t.throws(() => decodeBuckets([{ offset: 0, length: 2 }], [1]), RangeError);
  t.throws(() => decodeBuckets([{ offset: 0, length: 1 }], [1, 1]), RangeError);
});

t.test('a native histogram: zero bucket, negative buckets, snapshot', async (t) => {
  const h = new NativeHistogram({ schema: 0, zeroThreshold: 0.001 });
  for (const v of [0, 0.0005, -0.0009, 1, 1, 3, -2, -2, -5]) h.observe(v);
  const s = h.snapshot();
  t.equal(s.schema, 0);
  t.equal(s.zeroThreshold, 0.001);
  t.equal(s.zeroCount, 3);
  t.equal(s.count, 9);
  t.equal(s.sum, 0 + 0.0005 - 0.0009 + 1 + 1 + 3 - 2 - 2 - 5);
  t.same(s.positiveSpans, [{ offset: 0, length: 1 }, { offset: 1, length: 1 }]);
  t.same(s.positiveDeltas, [2, -1]);
  t.same(s.negativeSpans, [{ offset: 1, length: 1 }, { offset: 1, length: 1 }], '-2 in bucket 1, -5 in bucket 3');
  t.same(s.negativeDeltas, [2, -1]);
});

t.test('an empty native histogram with zero threshold 0 carries one span {0, 0}', async (t) => {
  t.same(new NativeHistogram({ zeroThreshold: 0 }).snapshot().positiveSpans, [{ offset: 0, length: 0 }]);
  t.same(new NativeHistogram({ zeroThreshold: 0 }).snapshot().positiveDeltas, []);
  t.same(new NativeHistogram().snapshot().positiveSpans, [], 'a positive zero threshold already marks it native');
  const z = new NativeHistogram({ zeroThreshold: 0 });
  z.observe(0);
  t.same(z.snapshot().positiveSpans, [], 'a zero-bucket count marks it native too');
  t.equal(z.snapshot().zeroCount, 1);
});

t.test('at most 160 buckets: resolution halved while over', async (t) => {
  const h = new NativeHistogram({ bucketFactor: 1.1 });
  t.equal(h.schema, 3);
  const values: number[] = [];
  for (let i = 0; i < 2000; i++) values.push(1e-6 * 1.01 ** i); // 1e-6 .. ~4e2: about 29 octaves
  for (const v of values) h.observe(v);
  t.ok(h.bucketCount <= 160, `bucket count ${h.bucketCount} <= 160`);
  t.ok(h.schema < 3, `schema lowered to ${h.schema}`);
  t.ok(h.bucketCount > 80, 'but not lower than needed');
  // The buckets are exactly what observing at the final schema gives.
  const s = h.snapshot();
  const want = new Map<number, number>();
  for (const v of values) {
    const k = bucketKey(v, s.schema);
    want.set(k, (want.get(k) ?? 0) + 1);
  }
  t.same(decodeBuckets(s.positiveSpans, s.positiveDeltas), want);
  t.equal(s.count, values.length);

  const small = new NativeHistogram({ schema: 0, maxBuckets: 4 });
  for (const v of [1, 2, 4, 8, 16]) small.observe(v);
  t.equal(small.schema, -1, 'five buckets at schema 0 become three at schema -1');
  t.same(decodeBuckets(small.snapshot().positiveSpans, small.snapshot().positiveDeltas), new Map([[0, 1], [1, 2], [2, 2]]));
});

t.test('at schema -4 and still over the limit, the zero bucket widens', async (t) => {
  const h = new NativeHistogram({ schema: -4, maxBuckets: 3, zeroThreshold: 0 });
  for (const v of [2 ** -40, 2 ** -20, 1, 2 ** 20, 2 ** 40]) h.observe(v);
  t.ok(h.bucketCount <= 3);
  t.equal(h.schema, -4);
  const s = h.snapshot();
  t.equal(s.zeroCount, 2);
  t.ok(s.zeroThreshold >= 2 ** -20, 'threshold covers the merged buckets');
  h.observe(2 ** -30);
  t.equal(h.snapshot().zeroCount, 3, 'later small values go to the widened zero bucket');
});

t.test('options are checked', async (t) => {
  t.throws(() => new NativeHistogram({ schema: 9 }), RangeError);
  t.throws(() => new NativeHistogram({ zeroThreshold: -1 }), RangeError);
  t.throws(() => new NativeHistogram({ maxBuckets: 0 }), RangeError);
  const n = new NativeHistogram();
  n.observe(NaN);
  t.equal(n.snapshot().count, 1, 'NaN is counted');
  t.equal(n.bucketCount, 0, 'but has no bucket');
});
