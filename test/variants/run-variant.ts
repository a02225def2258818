// Runs the whole suite (or the cases matching `caseFocus`) against a target that takes one or more
// legal freedoms at once: fresh embedded references, one per profile, each behind a chain of the
// variants' proxies. Run in a worker thread by test/legal-variants.test.ts, so that runs use every
// core; it posts back the run report.
import { parentPort, workerData } from 'node:worker_threads';
import { ALL_CASES } from '../../suites/index.js';
import { newRunId, runGroups, type TargetGroup } from '../../runner/run.js';
import { startEmbeddedGroups } from '../../runner/embedded.js';
import type { RunReport } from '../../runner/results.js';
import { startVariantTarget, type LegalVariant, type VariantTarget } from '../helpers/variant-target.js';
import { VARIANTS } from './index.js';

export interface VariantJob {
  /**
   * The variants the target takes at once, nearest the reference first: each one's proxy stands in
   * front of the one before, so the target uses every freedom of the list.
   */
  variants: string[];
  /** Source of a RegExp over case ids; all cases without it. */
  caseFocus?: string;
}

export interface VariantRun {
  report: RunReport;
  /** What each variant changed, over all its proxies (VariantTarget.edits), by name. */
  edits: Record<string, number>;
}

export async function runVariants(vs: readonly LegalVariant[], caseFocus?: RegExp): Promise<VariantRun> {
  const cases = ALL_CASES.filter((c) => !caseFocus || caseFocus.test(c.id));
  const runId = newRunId();
  const started = await startEmbeddedGroups(cases, { runId });
  const proxies: Array<{ name: string; target: VariantTarget }> = [];
  try {
    const groups: TargetGroup[] = await Promise.all(started.groups.map(async (g) => {
      let conn = g.conn;
      const https = conn.baseUrl.startsWith('https:');
      for (const [i, v] of vs.entries()) {
        // Variants combine as a chain of proxies. Only the one the run connects to serves HTTPS as the
        // reference does: the hops between proxies are loopback plain HTTP, which saves a TLS layer per
        // variant per request (most of a combined run's CPU) and changes nothing any case can see.
        const serveTls = https && i === vs.length - 1;
        const target = await startVariantTarget(conn.baseUrl, v, { caPem: conn.caPem, facts: g.facts, serveTls });
        proxies.push({ name: v.name, target });
        conn = { ...conn, baseUrl: target.url, caPem: target.caPem };
      }
      return { ...g, conn };
    }));
    const parallel = Math.max(...vs.map((v) => v.parallel ?? 16));
    // A case's own waits are bounded well under this; the headroom is for a loaded CI machine, where
    // several runs share two cores.
    const report = await runGroups(groups, { embedded: false, runId, version: 'test', parallel, timeoutMs: 60_000 });
    const edits: Record<string, number> = Object.fromEntries(vs.map((v) => [v.name, 0]));
    for (const p of proxies) edits[p.name] += p.target.edits();
    return { report, edits };
  } finally {
    // Outermost first: a proxy's upstream stays up until it is closed.
    for (const p of proxies.reverse()) await p.target.close();
    await started.close();
  }
}

if (parentPort && workerData) {
  const job = workerData as VariantJob;
  const vs = job.variants.map((name) => {
    const v = VARIANTS.find((x) => x.name === name);
    if (!v) throw new Error(`no legal variant named ${name}`);
    return v;
  });
  parentPort.postMessage(await runVariants(vs, job.caseFocus ? new RegExp(job.caseFocus) : undefined));
}
