// Runs the whole suite (or the cases matching `caseFocus`) against a target that takes one or more
// legal freedoms at once: fresh embedded references, one per profile, each behind one proxy that
// applies every variant's hooks. Run in a worker thread by test/legal-variants.test.ts, so that runs
// use every core; it posts back the run report.
import { parentPort, workerData } from 'node:worker_threads';
import { ALL_CASES } from '../../suites/index.js';
import { newRunId, runGroups, type TargetGroup } from '../../runner/run.js';
import { startEmbeddedGroups } from '../../runner/embedded.js';
import type { RunReport } from '../../runner/results.js';
import { startVariantTarget, type LegalVariant, type VariantTarget } from '../helpers/variant-target.js';
import { VARIANTS } from './index.js';

export interface VariantJob {
  /**
   * The variants the target takes at once, nearest the reference first: each one's hooks apply to
   * what the ones before it made (as if each stood in front of the one before), so the target uses
   * every freedom of the list.
   */
  variants: string[];
  /** Source of a RegExp over case ids; all cases without it. */
  caseFocus?: string;
}

export interface VariantRun {
  report: RunReport;
  /** What each variant changed, over the targets of every profile (VariantTarget.edits), by name. */
  edits: Record<string, number>;
}

export async function runVariants(vs: readonly LegalVariant[], caseFocus?: RegExp): Promise<VariantRun> {
  const cases = ALL_CASES.filter((c) => !caseFocus || caseFocus.test(c.id));
  const runId = newRunId();
  const started = await startEmbeddedGroups(cases, { runId });
  const targets: VariantTarget[] = [];
  try {
    const groups: TargetGroup[] = await Promise.all(started.groups.map(async (g) => {
      // One proxy per profile takes every freedom of the list, each variant's hooks in order inside
      // the one hop: a chain of a proxy per variant cost a hop per variant per request (the run of
      // nine variants takes about 40% less CPU in one).
      const target = await startVariantTarget(g.conn.baseUrl, vs, { caPem: g.conn.caPem, facts: g.facts });
      targets.push(target);
      // The proxy, the reference and the runner share this worker's one thread with up to 64 cases
      // at once: on a loaded CI machine a TLS handshake waited 13 s behind them (undici's connect
      // timeout is 10 s), which says nothing about the variant.
      return { ...g, conn: { ...g.conn, baseUrl: target.url, caPem: target.caPem, connectTimeoutMs: 30_000 } };
    }));
    const parallel = Math.max(...vs.map((v) => v.parallel ?? 16));
    // A case's own waits are bounded well under this; the headroom is for a loaded CI machine, where
    // several runs share two cores.
    const report = await runGroups(groups, { embedded: false, runId, version: 'test', parallel, timeoutMs: 60_000 });
    const edits: Record<string, number> = Object.fromEntries(vs.map((v) => [v.name, 0]));
    for (const target of targets) for (const [name, n] of Object.entries(target.edits())) edits[name]! += n;
    return { report, edits };
  } finally {
    // The proxies before the references they stand in front of.
    for (const target of targets) await target.close();
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
