// Legal implementations pass: the whole suite runs against each legal variant (test/variants/), a
// target that differs from the reference only where the spec leaves freedom, and no case may fail
// or error there. Skips and warnings are allowed (the run is not strict: SHOULD cases that check
// upstream's wording may warn); each variant's are listed in the diagnostics.
// VARIANT_FOCUS=<regex> runs only the matching variants, CASE_FOCUS=<regex> only matching cases.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import t from 'tap';
import { VARIANTS } from './variants/index.js';
import type { VariantJob, VariantRun } from './variants/run-variant.js';

/** A variant per core: a run is mostly CPU (the reference, the proxy and the runner share a thread). */
const VARIANTS_AT_ONCE = Math.max(2, availableParallelism());

// About two minutes on two idle cores (15 runs of the whole suite); room for a busy CI machine.
t.setTimeout(10 * 60_000);

const variantFocus = process.env['VARIANT_FOCUS'] ? new RegExp(process.env['VARIANT_FOCUS']) : undefined;

function runInWorker(job: VariantJob): Promise<VariantRun> {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL('./variants/run-variant.js', import.meta.url), { workerData: job });
    w.once('message', (run: VariantRun) => {
      resolve(run);
      // Whatever the run left open (idle sockets) must not keep the test alive.
      void w.terminate();
    });
    w.once('error', reject);
    w.once('exit', (code) => reject(new Error(`the worker of variant ${job.variant} exited (${code}) without a report`)));
  });
}

t.test('variants have unique names and say what freedom they take', async (t) => {
  t.equal(new Set(VARIANTS.map((v) => v.name)).size, VARIANTS.length, 'unique names');
  for (const v of VARIANTS) t.ok(v.freedom.length > 10, `${v.name} names its freedom`);
});

t.test('the whole suite passes against every legal variant', async (t) => {
  const queue = VARIANTS.filter((v) => !variantFocus || variantFocus.test(v.name));
  const work = async () => {
    for (let v = queue.shift(); v; v = queue.shift()) {
      const t0 = performance.now();
      const { report, edits } = await runInWorker({ variant: v.name, caseFocus: process.env['CASE_FOCUS'] });
      const seconds = ((performance.now() - t0) / 1000).toFixed(1);
      const bad = report.cases.filter((c) => c.status === 'failed' || c.status === 'errored' || c.status === 'interrupted');
      for (const c of bad) {
        // The last exchanges say what the target answered (the whole record is in the case's report).
        const exchanges = c.exchanges.slice(-4).map((e) => `${e.method} ${e.url} -> ${e.status ?? e.error} (${e.durationMs} ms)`);
        t.fail(`${v.name}: ${c.id} ${c.status}: ${c.message}`, { expected: c.expected, actual: c.actual, exchanges, diagnostic: true });
      }
      const s = report.summary;
      t.equal(bad.length, 0, `${v.name} (${v.freedom}): no case fails or errors; ${s.passed} passed, ${s.warned} warned, ${s.skipped} skipped of ${s.total} in ${seconds}s`, {
        diagnostic: true,
        warned: report.cases.filter((c) => c.status === 'warned').map((c) => `${c.id}: ${c.message}`),
        skipped: report.cases.filter((c) => c.status === 'skipped').map((c) => `${c.id}: ${c.message}`),
      });
      t.same(report.leaks, [], `${v.name}: the run leaves nothing behind`);
      t.ok(edits > 0, `${v.name}: the variant changed ${edits} requests, responses or watch lines (one that changes nothing proves nothing)`);
    }
  };
  await Promise.all(Array.from({ length: VARIANTS_AT_ONCE }, work));
});
