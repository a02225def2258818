// Runs the whole suite (or the cases matching `caseFocus`) against one legal variant: fresh
// embedded references, one per profile, each behind the variant's proxy. Run in a worker thread
// by test/legal-variants.test.ts, so that variants use every core; it posts back the run report.
import { parentPort, workerData } from 'node:worker_threads';
import { ALL_CASES } from '../../suites/index.js';
import { newRunId, runGroups, type TargetGroup } from '../../runner/run.js';
import { startEmbeddedGroups } from '../../runner/embedded.js';
import type { RunReport } from '../../runner/results.js';
import { startVariantTarget, type LegalVariant, type VariantTarget } from '../helpers/variant-target.js';
import { VARIANTS } from './index.js';

export interface VariantJob {
  variant: string;
  /** Source of a RegExp over case ids; all cases without it. */
  caseFocus?: string;
}

export interface VariantRun {
  report: RunReport;
  /** What the variant changed, over all its proxies (VariantTarget.edits). */
  edits: number;
}

export async function runVariant(v: LegalVariant, caseFocus?: RegExp): Promise<VariantRun> {
  const cases = ALL_CASES.filter((c) => !caseFocus || caseFocus.test(c.id));
  const runId = newRunId();
  const started = await startEmbeddedGroups(cases, { runId });
  const proxies: VariantTarget[] = [];
  try {
    const groups: TargetGroup[] = await Promise.all(started.groups.map(async (g) => {
      const proxy = await startVariantTarget(g.conn.baseUrl, v, { caPem: g.conn.caPem, facts: g.facts });
      proxies.push(proxy);
      return { ...g, conn: { ...g.conn, baseUrl: proxy.url, caPem: proxy.caPem } };
    }));
    const report = await runGroups(groups, { embedded: false, runId, version: 'test', parallel: v.parallel ?? 16, timeoutMs: 30_000 });
    return { report, edits: proxies.reduce((n, p) => n + p.edits(), 0) };
  } finally {
    await Promise.all(proxies.map((p) => p.close()));
    await started.close();
  }
}

if (parentPort && workerData) {
  const job = workerData as VariantJob;
  const v = VARIANTS.find((x) => x.name === job.variant);
  if (!v) throw new Error(`no legal variant named ${job.variant}`);
  parentPort.postMessage(await runVariant(v, job.caseFocus ? new RegExp(job.caseFocus) : undefined));
}
