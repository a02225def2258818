// Real Prometheus for the tests (Debian's `prometheus` package; CI installs it): started on a free
// port with a generated scrape configuration, queried over its HTTP API.
import { execa } from 'execa';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../runner/agent-exec.js';

/** How long Prometheus may take to start, and a query to give an acceptable answer. */
export const WAIT_MS = 45_000;

/** Whether `name --version` runs (prometheus, promtool). */
export async function hasBinary(name: string): Promise<boolean> {
  const r = await execa(name, ['--version'], { reject: false, timeout: 20_000 });
  return r.exitCode === 0;
}

export interface Prometheus {
  url: string;
  log(): string;
  query(q: string): Promise<any[]>;
  /** Polls a query until `ok` accepts its result; fails with the last result and the log. */
  until(q: string, ok: (r: any[]) => boolean, what: string): Promise<any[]>;
}

/** One scrape job's target: a reference (its url and CA) or any endpoint with a path and a token. */
export interface ScrapeTarget {
  url: string;
  caPem?: string;
  /** Default /metrics. */
  metricsPath?: string;
  /** Sent as `Authorization: Bearer`, from a file, as an operator configures it. */
  bearerToken?: string;
}

/**
 * Starts Prometheus scraping every target once a second (job name = key) and waits until it is
 * ready; stopped, and its directory removed, at `t`'s teardown.
 */
export async function startPrometheus(t: { teardown(fn: () => unknown): void }, targets: Record<string, ScrapeTarget>, nativeHistograms: boolean): Promise<Prometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'orch-prometheus-'));
  const port = await freePort();
  // HTTPS targets: the scrape trusts the target's CA from a file, as an operator configures it.
  const tlsLines = (job: string, ref: ScrapeTarget): string[] => {
    if (!ref.url.startsWith('https:')) return [];
    const caFile = join(dir, `${job}-ca.pem`);
    writeFileSync(caFile, ref.caPem ?? '');
    return ['    scheme: https', '    tls_config:', `      ca_file: ${caFile}`];
  };
  const authLines = (job: string, ref: ScrapeTarget): string[] => {
    if (!ref.bearerToken) return [];
    const tokenFile = join(dir, `${job}-token`);
    writeFileSync(tokenFile, ref.bearerToken, { mode: 0o600 });
    return ['    authorization:', '      type: Bearer', `      credentials_file: ${tokenFile}`];
  };
  const config = [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 1s',
    '  evaluation_interval: 1s',
    'scrape_configs:',
    ...Object.entries(targets).flatMap(([job, ref]) => [
      `  - job_name: ${job}`,
      '    scrape_interval: 1s',
      ...(ref.metricsPath ? [`    metrics_path: ${ref.metricsPath}`] : []),
      ...tlsLines(job, ref),
      ...authLines(job, ref),
      '    static_configs:',
      `      - targets: ['${new URL(ref.url).host}']`,
    ]),
    '',
  ].join('\n');
  writeFileSync(join(dir, 'prometheus.yml'), config);
  const args = [
    `--config.file=${join(dir, 'prometheus.yml')}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--log.level=warn',
    ...(nativeHistograms ? ['--enable-feature=native-histograms'] : []),
  ];
  let log = '';
  const proc: ChildProcess = spawn('prometheus', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout!.on('data', (c: Buffer) => (log += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (log += c.toString()));
  let exited = false;
  proc.once('exit', () => (exited = true));
  t.teardown(async () => {
    if (!exited) {
      proc.kill('SIGTERM');
      const killer = setTimeout(() => proc.kill('SIGKILL'), 5_000);
      await new Promise<void>((resolve) => (exited ? resolve() : proc.once('exit', () => resolve())));
      clearTimeout(killer);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    if (exited) throw new Error(`prometheus exited early:\n${log}`);
    const ready = await fetch(`${url}/-/ready`).then((r) => r.status, () => 0);
    if (ready === 200) break;
    if (Date.now() > deadline) throw new Error(`prometheus not ready within ${WAIT_MS} ms:\n${log}`);
    await sleep(200);
  }
  const query = async (q: string): Promise<any[]> => {
    const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(q)}`);
    const body = (await res.json()) as { status: string; data?: { result: any[] }; error?: string };
    if (body.status !== 'success') throw new Error(`query ${q} failed: ${body.error}`);
    return body.data!.result;
  };
  return {
    url,
    log: () => log,
    query,
    async until(q, ok, what) {
      const end = Date.now() + WAIT_MS;
      let last: any[] = [];
      for (;;) {
        last = await query(q);
        if (ok(last)) return last;
        if (Date.now() > end) {
          const targetsNow = await fetch(`${url}/api/v1/targets`).then((r) => r.text(), (e) => String(e));
          throw new Error(`${what}: no acceptable result for ${q} within ${WAIT_MS} ms; last ${JSON.stringify(last)}; targets ${targetsNow}; log:\n${log}`);
        }
        await sleep(500);
      }
    },
  };
}
