// metrics.native.bucket-limit against references whose histograms start at schema 8
// (metrics-native-limit.ts): where the bucket limit is kept, the case's load makes the reduction run
// and the case passes; where it is not, the same load takes a histogram past 160 buckets and the case
// fails. Both sides are observed, so neither verdict comes from load that never reached the limit.
import t from 'tap';
import { ALL_CASES } from '../../suites/index.js';
import { runCases } from '../../runner/run.js';
import { defaultGates } from '../../runner/gates.js';
import { PROTOBUF_ACCEPT, histogramSeries, nativeBuckets, parseDelimited } from '../../suites/002-metrics-debug/metrics-protobuf.js';
import { Agent, request } from 'undici';
import { FINE_SCHEMA, NO_LIMIT, startSwitchedReference, type SwitchedReference } from './metrics-native-limit.js';

const CASE = ALL_CASES.find((c) => c.id === 'metrics.native.bucket-limit')!;

async function runCase(ref: SwitchedReference) {
  const conn = { baseUrl: ref.url, caPem: ref.caPem };
  const report = await runCases({ cases: [CASE], conn, components: { apiserver: conn }, embedded: false, gates: defaultGates(), facts: {}, version: 'test', timeoutMs: 30_000, strict: true });
  return report.cases[0]!;
}

/** The native histogram series of the reference's scrape: schema and populated buckets. */
async function nativeState(ref: SwitchedReference) {
  const dispatcher = new Agent({ connect: { ca: ref.caPem } });
  try {
    const res = await request(new URL('/metrics', ref.url), { headers: { accept: PROTOBUF_ACCEPT }, dispatcher });
    const { families } = parseDelimited(Buffer.from(await res.body.arrayBuffer()));
    return histogramSeries(families).filter((s) => s.h.schema !== undefined).map((s) => ({
      series: s.series,
      schema: s.h.schema!,
      buckets: nativeBuckets(s.h.positive_span ?? [], s.h.positive_delta ?? []).buckets.size + nativeBuckets(s.h.negative_span ?? [], s.h.negative_delta ?? []).buckets.size,
    }));
  } finally {
    await dispatcher.close();
  }
}

t.test('the case passes where the limit is kept at schema 8: its load makes the reduction run', async (t) => {
  const ref = await startSwitchedReference([FINE_SCHEMA]);
  t.teardown(() => ref.close());
  const result = await runCase(ref);
  t.equal(result.status, 'passed', `metrics.native.bucket-limit passes${result.status !== 'passed' ? `: ${result.message} expected=${result.expected} actual=${result.actual}` : ''}`);
  const state = await nativeState(ref);
  // The series the case's 404s go to (their GETs name a namespace that does not exist).
  const driven = state.filter((s) => /^apiserver_request_duration_seconds\{/.test(s.series) && s.series.includes('code="404"') && s.series.includes('verb="GET"'));
  t.ok(driven.length > 0 && driven.every((s) => s.schema < 8), 'the series the case drove, started at schema 8, was reduced to a coarser schema', { driven });
  t.ok(state.every((s) => s.buckets <= 160), 'and every histogram holds at most 160 buckets');
});

t.test('the case fails where the limit is not kept: its load takes a histogram past 160 buckets', async (t) => {
  const ref = await startSwitchedReference([FINE_SCHEMA, NO_LIMIT]);
  t.teardown(() => ref.close());
  const result = await runCase(ref);
  t.equal(result.status, 'failed', `metrics.native.bucket-limit fails${result.status !== 'failed' ? ` (got ${result.status}: ${result.message})` : ''}`);
  t.match(result.message, /populated native buckets/, 'on the bucket count');
  const most = Math.max(...(await nativeState(ref)).map((s) => s.buckets));
  t.ok(most > 160, `the reference really exposes a histogram with more than 160 buckets (${most})`);
});
