// Spec 002 §4 and §8: /metrics/slis is meant to be scraped at high frequency (no numeric value is
// given); and §7 seen from the component: a scraper that cannot read the protobuf format (too old
// for native histograms) is never sent it. No case here measures time: a timing bound would flake
// on a loaded machine, while refused or inconsistent scrapes are facts.
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectCode, expectTrue, fail, show } from '../verify.js';
import { parseExposition, samplesOf, type Exposition } from './exposition.js';
import { debugCase, everyComponent, slis } from './debug-common.js';
import { isProtobufResponse, parseDelimited, parseMediaType, PROTOBUF_ACCEPT, scrape } from './metrics-protobuf.js';

const GAUGE = 'orch_healthcheck';
const COUNTER = 'orch_healthchecks_total';

/**
 * "Many" scrapes: enough that any throttle worth the name trips, few enough that a failure's
 * recorded exchanges stay readable. A watchdog and a Prometheus may scrape at the same moment,
 * hence the concurrent burst too, kept under ten: each request in flight listens on the case's
 * abort signal, and Node warns about a leak from the eleventh listener on.
 */
const SEQUENTIAL = 40;
const CONCURRENT = 8;
/** Scrapes compared with their predecessor for consistency. */
const CONSISTENCY_SCRAPES = 15;

/** One scrape of /metrics/slis that must answer a complete SLI exposition. */
async function slisScrape(ctx: CaseContext, what: string): Promise<Exposition> {
  const res = await ctx.component().get('/metrics/slis', { headers: { accept: 'text/plain' } });
  expectCode(res, 200, `${what}: GET /metrics/slis`);
  const exp = parseExposition(res.text);
  expectTrue(exp.errors.length === 0, `${what}: text exposition format`, 'no unreadable lines', exp.errors.slice(0, 5).join('; '));
  for (const name of [GAUGE, COUNTER]) {
    expectTrue(samplesOf(exp, name).length > 0, `${what}: ${name} in /metrics/slis`, 'its series (the checks evaluated so far)', [...exp.families.keys()].join(', ') || '(no family)');
  }
  return exp;
}

/** The SLI series of a scrape: `name{labels}` to value. */
function sliSeries(exp: Exposition): Map<string, { name: string; value: number }> {
  const out = new Map<string, { name: string; value: number }>();
  for (const s of exp.samples.filter((x) => x.name === GAUGE || x.name === COUNTER)) {
    const labels = Object.entries(s.labels).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',');
    out.set(`${s.name}{${labels}}`, { name: s.name, value: s.value });
  }
  return out;
}

/** Accept headers of scrapers that cannot read the protobuf exposition. */
const TEXT_ONLY_SCRAPERS: ReadonlyArray<readonly [string, string | undefined]> = [
  ['a client that sends no Accept header', undefined],
  ['a client that accepts anything', '*/*'],
  ['a scraper that reads the text format only', 'text/plain;version=0.0.4'],
  // Prometheus 2.x before 2.40 (no native histograms): OpenMetrics, then text, then anything.
  ['Prometheus before 2.40', 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'],
];
const TEXT_TYPES = ['text/plain', 'application/openmetrics-text'];

export const scrapingCases: Case[] = everyComponent([
  defineCase({
    ...debugCase,
    suite: 'slis',
    id: 'debug.slis.back-to-back',
    title: `/metrics/slis answers every one of ${SEQUENTIAL} back-to-back scrapes and ${CONCURRENT} simultaneous ones with the full SLI exposition: no throttling, no errors`,
    requirements: ['002-8-slis-scrape-frequency', '002-4-metrics-slis-scraping'],
    spec: { doc: '002', section: '8' },
    level: 'SHOULD',
    async run(ctx) {
      await slis(ctx); // evaluates /healthz and /readyz once, so that the SLIs have series
      for (let i = 1; i <= SEQUENTIAL; i++) await slisScrape(ctx, `back-to-back scrape ${i} of ${SEQUENTIAL}`);
      await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => slisScrape(ctx, `simultaneous scrape ${i + 1} of ${CONCURRENT}`)));
    },
  }),
  defineCase({
    ...debugCase,
    suite: 'slis',
    id: 'debug.slis.consistent-scrapes',
    title: 'Scraped in quick succession, /metrics/slis stays consistent: no series disappears, no counter goes back, every gauge is 0 or 1',
    requirements: ['002-4-metrics-slis-scraping'],
    spec: { doc: '002', section: '4' },
    level: 'SHOULD',
    async run(ctx) {
      let prev = sliSeries((await slis(ctx)).exp);
      for (let i = 1; i <= CONSISTENCY_SCRAPES; i++) {
        const what = `scrape ${i + 1} (of ${CONSISTENCY_SCRAPES + 1} in quick succession)`;
        const cur = sliSeries(await slisScrape(ctx, what));
        for (const [key, { name, value }] of cur) {
          if (name === GAUGE) expectTrue(value === 0 || value === 1, `${what}: ${key}`, '0 or 1', String(value));
        }
        // Other clients may evaluate health meanwhile: series may appear and counters may grow.
        for (const [key, was] of prev) {
          const now = cur.get(key);
          if (!now) fail(`${what}: ${key}, exposed by the scrape before, is still exposed`, 'the series', 'gone');
          if (was.name === COUNTER) expectTrue(now.value >= was.value, `${what}: counter ${key} does not go back`, `>= ${was.value} (the scrape before)`, show(now.value));
        }
        prev = cur;
      }
    },
  }),
  defineCase({
    ...debugCase,
    suite: 'metrics',
    id: 'metrics.negotiation.old-scraper',
    title: '/metrics never sends protobuf to a scraper that did not ask for it (no Accept, */*, text only, Prometheus before 2.40): they get a text format; a scraper asking for protobuf gets protobuf',
    requirements: ['002-7-native-histogram-old-scraper'],
    spec: { doc: '002', section: '7' },
    level: 'SHOULD',
    async run(ctx) {
      for (const [who, accept] of TEXT_ONLY_SCRAPERS) {
        const what = `GET /metrics as ${who} (Accept: ${accept ?? '(none)'})`;
        const res = await scrape(ctx, accept, false);
        const type = parseMediaType(res.headers['content-type']).type;
        expectTrue(!isProtobufResponse(res) && TEXT_TYPES.includes(type), `${what}: Content-Type`, TEXT_TYPES.join(' or '), res.headers['content-type'] ?? '(none)');
        // OpenMetrics exemplars (` # {...} v`) are outside the 0.0.4 reader's grammar.
        const exp = parseExposition(type === 'application/openmetrics-text' ? res.text.replace(/ # \{.*$/gm, '') : res.text);
        expectTrue(exp.errors.length === 0 && exp.samples.length > 0, `${what}: a readable text exposition`, 'samples, no unreadable lines', exp.errors.slice(0, 3).join('; ') || 'no samples');
      }
      const res = await scrape(ctx, PROTOBUF_ACCEPT, false);
      expectTrue(isProtobufResponse(res), `GET /metrics asking for protobuf (Accept: ${PROTOBUF_ACCEPT}): Content-Type`, PROTOBUF_ACCEPT, res.headers['content-type'] ?? '(none)');
      const { families, error } = parseDelimited(res.bytes);
      if (error || families.length === 0) fail('GET /metrics asking for protobuf: delimited MetricFamily messages', 'one or more messages', error ?? 'none');
    },
  }),
]);
