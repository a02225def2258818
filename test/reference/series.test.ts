// The hot-path counter and histogram (reference/observability/series.ts) must be indistinguishable
// from prom-client's own in every exposition format: the same observations give the same bytes.
import t from 'tap';
import { Counter, Histogram, Registry } from 'prom-client';
import { renderOpenMetrics, renderText, toMetricFamilies } from '../../reference/observability/exposition.js';
import { SeriesCounter, SeriesHistogram } from '../../reference/observability/series.js';

const BUCKETS = [0.005, 0.025, 0.1, 1, 10];
const LABELS = ['verb', 'code', 'note'] as const;
const observations: Array<[Record<string, string>, number]> = [
  [{ verb: 'GET', code: '200' }, 0.001],
  [{ verb: 'GET', code: '200' }, 0.025],
  [{ verb: 'POST', code: '201', note: 'a "quoted"\nvalue\\' }, 0.3],
  [{ verb: 'GET', code: '200' }, 42],
  [{ verb: 'LIST', code: '200' }, 1],
];

function both(): { ours: Registry; theirs: Registry } {
  const ours = new Registry();
  const theirs = new Registry();
  const c1 = new SeriesCounter({ name: 'req_total', help: 'Requests.', labelNames: LABELS, registry: ours });
  const h1 = new SeriesHistogram({ name: 'req_seconds', help: 'Latency.', labelNames: LABELS, buckets: BUCKETS, registry: ours });
  const c2 = new Counter({ name: 'req_total', help: 'Requests.', labelNames: LABELS, registers: [theirs] });
  const h2 = new Histogram({ name: 'req_seconds', help: 'Latency.', labelNames: LABELS, buckets: BUCKETS, registers: [theirs] });
  for (const [labels, v] of observations) {
    c1.inc(labels);
    c2.inc(labels);
    h1.observe(labels, v);
    h2.observe(labels, v);
  }
  // Bound handles update the same series as label objects do.
  c1.series({ verb: 'GET', code: '200' }).inc(2);
  c2.inc({ verb: 'GET', code: '200' }, 2);
  h1.series({ verb: 'GET', code: '200' }).observe(0.02);
  h2.observe({ verb: 'GET', code: '200' }, 0.02);
  return { ours, theirs };
}

t.test('text, OpenMetrics and protobuf families are the same as prom-client renders', async (t) => {
  const { ours, theirs } = both();
  t.equal(await renderText(ours), await renderText(theirs), 'text 0.0.4');
  t.equal(await renderOpenMetrics(ours), await renderOpenMetrics(theirs), 'OpenMetrics');
  t.same(await toMetricFamilies(ours), await toMetricFamilies(theirs), 'protobuf MetricFamily messages');
  const json = async (r: Registry) => JSON.parse(JSON.stringify(await r.getMetricsAsJSON())) as unknown;
  t.same(await json(ours), await json(theirs), 'JSON');
});

t.test('reset empties every series, as prom-client does', async (t) => {
  const { ours, theirs } = both();
  ours.resetMetrics();
  theirs.resetMetrics();
  t.equal(await renderText(ours), await renderText(theirs));
});

t.test('bad observations are refused as prom-client refuses them', async (t) => {
  const reg = new Registry();
  const c = new SeriesCounter({ name: 'c_total', help: 'c', labelNames: ['a'], registry: reg });
  const h = new SeriesHistogram({ name: 'h', help: 'h', labelNames: ['a'], buckets: [1], registry: reg });
  t.throws(() => c.inc({ a: 'x' }, -1), /decrease/);
  t.throws(() => h.observe({ a: 'x' }, Number.NaN), /valid number/);
  t.throws(() => c.inc({ b: 'x' } as never), /not included/);
  t.throws(() => new SeriesCounter({ name: 'c_total', help: 'again', registry: reg }), /already been registered/);
});
