// Real Prometheus (Debian's `prometheus` package, 2.42; CI installs it) scrapes the reference's
// /metrics every second: once with `--enable-feature=native-histograms` (it asks for protobuf and
// ingests native histograms), once without (it asks for OpenMetrics/text and ingests classic
// buckets), over HTTPS with the reference's CA as a real scrape config would. `promtool check
// metrics` lints the text exposition. The controller manager and the scheduler of an RBAC reference
// are scraped with a bearer token file, as their endpoints demand (issue 23 §3). Without Prometheus
// these tests fail rather than skip.
import t from 'tap';
import { execa } from 'execa';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, fetch as undiciFetch } from 'undici';
import { startReference, type RunningReference } from '../reference/server.js';
import { hasBinary, startPrometheus } from './helpers/prometheus.js';

/** Some API traffic, so the request counter and latency histogram have series and rates. */
function traffic(ref: RunningReference): () => void {
  let stop = false;
  // An HTTPS reference's own CA is trusted for these requests only.
  const dispatcher = ref.caPem ? new Agent({ connect: { ca: ref.caPem } }) : undefined;
  const get = (path: string) => undiciFetch(`${ref.url}${path}`, { dispatcher }).then((r) => r.text()).catch(() => undefined);
  void (async () => {
    while (!stop) {
      await Promise.all([get('/api/v1/namespaces'), get('/apis/storage.orch.io/v1/storageclasses/missing')]);
      await sleep(100);
    }
  })();
  return () => {
    stop = true;
    void dispatcher?.close();
  };
}

const nonEmpty = (r: any[]) => r.length > 0;
const value = (r: any[]) => Number(r[0]?.value?.[1]);

t.test('promtool check metrics finds no problem in the text exposition', async (t) => {
  if (!(await hasBinary('promtool'))) return void t.fail('promtool is not on PATH: install the Debian package `prometheus` (CI does)');
  const ref = await startReference({});
  t.teardown(() => ref.close());
  for (let i = 0; i < 3; i++) await (await fetch(`${ref.url}/api/v1/namespaces`)).text();
  await (await fetch(`${ref.url}/apis/storage.orch.io/v1/storageclasses/missing`)).text();
  for (const accept of [undefined, 'text/plain;version=0.0.4']) {
    const text = await (await fetch(`${ref.url}/metrics`, { headers: accept ? { accept } : {} })).text();
    const r = await execa('promtool', ['check', 'metrics'], { input: text, reject: false, timeout: 30_000 });
    t.equal(r.exitCode, 0, `promtool exit code (Accept ${accept ?? 'none'})`);
    t.equal(`${r.stdout}${r.stderr}`.trim(), '', 'promtool reports nothing');
  }
});

t.test('Prometheus with native histograms: protobuf scrape, native and classic series', async (t) => {
  if (!(await hasBinary('prometheus'))) return void t.fail('prometheus is not on PATH: install the Debian package `prometheus` (CI does)');
  const on = await startReference({ tls: 'self-signed' });
  t.teardown(() => on.close());
  const off = await startReference({ featureGates: { NativeHistograms: false }, tls: 'self-signed' });
  t.teardown(() => off.close());
  t.teardown(traffic(on));
  t.teardown(traffic(off));
  const prom = await startPrometheus(t, { 'orch-native': on, 'orch-classic': off }, true);

  const gate = await prom.until('orch_feature_enabled{job="orch-native",name="NativeHistograms"}', nonEmpty, 'gate metric of the native-on server');
  t.equal(value(gate), 1, 'orch_feature_enabled{name="NativeHistograms"} is 1');
  const requests = await prom.until('sum(apiserver_request_total{job="orch-native",resource="namespaces",verb="LIST",code="200"})', (r) => value(r) > 0, 'request counter');
  t.ok(value(requests) > 0, 'apiserver_request_total ingested');

  // The instant query of a native histogram series answers with a `histogram` field, not `value`.
  const native = await prom.until('apiserver_request_duration_seconds{job="orch-native",resource="namespaces",verb="LIST"}', nonEmpty, 'native histogram series');
  t.ok(native[0].histogram, 'the series is a native histogram');
  t.equal(native[0].value, undefined);
  const h = native[0].histogram[1];
  t.ok(Number(h.count) > 0, `native count ${h.count}`);
  t.ok(Array.isArray(h.buckets) && h.buckets.length > 0 && h.buckets.length <= 160, `native buckets: ${h.buckets?.length}`);
  const rate = await prom.until('histogram_count(rate(apiserver_request_duration_seconds{job="orch-native",resource="namespaces",verb="LIST"}[1m]))', (r) => value(r) > 0, 'native histogram rate');
  t.ok(value(rate) > 0, 'histogram_count(rate(...)) works on the native series');
  const quantile = await prom.query('histogram_quantile(0.9, sum(rate(apiserver_request_duration_seconds{job="orch-native"}[1m])))');
  t.ok(quantile.length > 0 && Number.isFinite(value(quantile)), 'native histogram_quantile answers');

  // The gate-off server, scraped by the same (protobuf-asking) Prometheus: classic buckets only.
  const gateOff = await prom.until('orch_feature_enabled{job="orch-classic",name="NativeHistograms"}', nonEmpty, 'gate metric of the native-off server');
  t.equal(value(gateOff), 0, 'orch_feature_enabled{name="NativeHistograms"} is 0');
  const classic = await prom.until('apiserver_request_duration_seconds_bucket{job="orch-classic",resource="namespaces",verb="LIST",le="+Inf"}', nonEmpty, 'classic +Inf bucket of the native-off server');
  t.ok(Number(classic[0].value[1]) > 0, 'classic buckets ingested from protobuf, +Inf implied by the count');
  const le = await prom.query('count(apiserver_request_duration_seconds_bucket{job="orch-classic",resource="namespaces",verb="LIST"})');
  t.equal(value(le), 24, '23 classic bounds plus +Inf');
  t.same(await prom.query('apiserver_request_duration_seconds{job="orch-classic"}'), [], 'no native series from the gate-off server');

  const targets = (await (await fetch(`${prom.url}/api/v1/targets`)).json()) as { data: { activeTargets: { health: string; lastError: string; labels: { job: string } }[] } };
  for (const tg of targets.data.activeTargets) t.same({ job: tg.labels.job, health: tg.health, lastError: tg.lastError }, { job: tg.labels.job, health: 'up', lastError: '' }, `${tg.labels.job} scrapes cleanly`);
});

t.test('Prometheus without native histograms: text scrape, classic series; the companions scraped with a token', async (t) => {
  if (!(await hasBinary('prometheus'))) return void t.fail('prometheus is not on PATH: install the Debian package `prometheus` (CI does)');
  const ref = await startReference({ tls: 'self-signed' });
  t.teardown(() => ref.close());
  t.teardown(traffic(ref));
  // The companions of an RBAC reference check their callers (TokenReview, SubjectAccessReview):
  // Prometheus scrapes them with a token of group system:monitoring, whose built-in role reads
  // /metrics; the same job without the token is refused.
  const token = randomBytes(24).toString('base64url');
  const secured = await startReference({ tls: 'self-signed', auth: { tokens: [{ token, user: 'prometheus', groups: ['system:monitoring'] }], authorizationMode: 'RBAC' } });
  t.teardown(() => secured.close());
  const { controllerManager: cm, scheduler } = secured.components;
  if (!cm || !scheduler) throw new Error('the reference runs no companions');
  const prom = await startPrometheus(t, {
    orch: ref,
    'orch-cm': { ...cm, bearerToken: token },
    'orch-sched': { ...scheduler, bearerToken: token },
    'orch-cm-anonymous': cm,
  }, false);

  const gate = await prom.until('orch_feature_enabled{job="orch",name="NativeHistograms"}', nonEmpty, 'gate metric');
  t.equal(value(gate), 1);
  const requests = await prom.until('sum(apiserver_request_total{resource="storageclasses",code="404"})', (r) => value(r) > 0, 'request counter');
  t.ok(value(requests) > 0, 'apiserver_request_total ingested (OpenMetrics `_total` samples)');
  const buckets = await prom.until('count(apiserver_request_duration_seconds_bucket{resource="namespaces",verb="LIST"})', (r) => value(r) === 24, 'classic buckets');
  t.equal(value(buckets), 24);
  const q = await prom.until('histogram_quantile(0.9, sum by (le) (rate(apiserver_request_duration_seconds_bucket[1m])))', (r) => r.length > 0 && Number.isFinite(value(r)), 'classic quantile');
  t.ok(Number.isFinite(value(q)), 'classic histogram_quantile answers');
  t.same(await prom.query('apiserver_request_duration_seconds'), [], 'no native series');
  const build = await prom.until('orch_build_info{job="orch"}', nonEmpty, 'build info');
  t.equal(build[0].metric.git_version, 'v1.37.0');

  for (const job of ['orch-cm', 'orch-sched']) {
    const series = await prom.until(`orch_build_info{job="${job}"}`, nonEmpty, `${job} scraped with the token`);
    t.equal(series[0].metric.git_version, 'v1.37.0', `${job}: orch_build_info ingested`);
    t.ok(value(await prom.until(`sum(rest_client_requests_total{job="${job}"})`, (r) => value(r) > 0, `${job} client metrics`)) > 0, `${job}: rest_client_requests_total ingested`);
  }
  const anonymous = await prom.until('up{job="orch-cm-anonymous"}', (r) => r.length > 0 && value(r) === 0, 'the scrape without a token fails');
  t.equal(value(anonymous), 0, 'up is 0 without the token');
  const targets = (await (await fetch(`${prom.url}/api/v1/targets`)).json()) as { data: { activeTargets: { health: string; lastError: string; labels: { job: string } }[] } };
  const refused = targets.data.activeTargets.find((tg) => tg.labels.job === 'orch-cm-anonymous');
  t.match(refused?.lastError, /403/, `refused with 403: ${refused?.lastError}`);
  for (const tg of targets.data.activeTargets.filter((x) => x.labels.job !== 'orch-cm-anonymous')) t.same({ job: tg.labels.job, health: tg.health, lastError: tg.lastError }, { job: tg.labels.job, health: 'up', lastError: '' }, `${tg.labels.job} scrapes cleanly`);
});
