// Legal implementations pass: the whole suite runs against targets that differ from the reference
// only where the spec leaves freedom (test/variants/), and no case may fail or error there. Skips and
// warnings are allowed (the run is not strict: SHOULD cases that check upstream's wording may warn);
// each run's are listed in the diagnostics. The runs combine freedoms (VARIANT_RUNS says which and why).
// LEGAL_VARIANTS=each runs every variant alone; VARIANT_FOCUS=<regex> runs only the matching variants,
// each alone; VARIANT_RUN=<n> only the n-th run of VARIANT_RUNS (from 1), its variants combined;
// CASE_FOCUS=<regex> only matching cases.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import t from 'tap';
import { VARIANT_RUNS, VARIANTS } from './variants/index.js';
import { ALL_CASES } from '../suites/index.js';
import type { VariantJob, VariantRun } from './variants/run-variant.js';

/** A run per core: a run is mostly CPU (the reference, the proxies and the runner share a thread). */
const RUNS_AT_ONCE = Math.max(2, availableParallelism());

// About a minute and a half on two idle cores (four runs of the whole suite); room for a busy CI machine.
t.setTimeout(10 * 60_000);

const variantFocus = process.env['VARIANT_FOCUS'] ? new RegExp(process.env['VARIANT_FOCUS']) : undefined;
const eachAlone = process.env['LEGAL_VARIANTS'] === 'each' || !!variantFocus;
const runFocus = process.env['VARIANT_RUN'] ? Number(process.env['VARIANT_RUN']) : undefined;

function runInWorker(job: VariantJob): Promise<VariantRun> {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL('./variants/run-variant.js', import.meta.url), { workerData: job });
    w.once('message', (run: VariantRun) => {
      resolve(run);
      // Whatever the run left open (idle sockets) must not keep the test alive.
      void w.terminate();
    });
    w.once('error', reject);
    w.once('exit', (code) => reject(new Error(`the worker of variants ${job.variants.join(' + ')} exited (${code}) without a report`)));
  });
}

t.test('variants have unique names, say what freedom they take, and each is in exactly one run', async (t) => {
  t.equal(new Set(VARIANTS.map((v) => v.name)).size, VARIANTS.length, 'unique names');
  for (const v of VARIANTS) t.ok(v.freedom.length > 10, `${v.name} names its freedom`);
  const inRuns = VARIANT_RUNS.flat();
  t.same([...inRuns].sort(), VARIANTS.map((v) => v.name).sort(), 'every variant runs, once');
});

t.test('the whole suite passes against every legal variant', async (t) => {
  const queue: string[][] = eachAlone
    ? VARIANTS.filter((v) => !variantFocus || variantFocus.test(v.name)).map((v) => [v.name])
    : VARIANT_RUNS.filter((_, i) => runFocus === undefined || runFocus === i + 1).map((r) => [...r]);
  t.ok(queue.length > 0, 'the focus selects a run');
  const work = async () => {
    for (let names = queue.shift(); names; names = queue.shift()) {
      const label = names.join(' + ');
      const t0 = performance.now();
      const { report, edits } = await runInWorker({ variants: names, caseFocus: process.env['CASE_FOCUS'] });
      const seconds = ((performance.now() - t0) / 1000).toFixed(1);
      const bad = report.cases.filter((c) => c.status === 'failed' || c.status === 'errored' || c.status === 'interrupted');
      for (const c of bad) {
        // The last exchanges say what the target answered (the whole record is in the case's report).
        const exchanges = c.exchanges.slice(-4).map((e) => `${e.method} ${e.url} -> ${e.status ?? e.error} (${e.durationMs} ms)`);
        t.fail(`${label}: ${c.id} ${c.status}: ${c.message}`, { expected: c.expected, actual: c.actual, exchanges, diagnostic: true });
      }
      // A MUST case that records upstream's shape as findings says so in its header (upstreamShape),
      // so that CONFORMANCE.md tells which requirements are judged on the spec and which on upstream.
      const undeclared = report.cases.filter((c) => c.level === 'MUST' && c.findings?.some((f) => f.level === 'SHOULD' && f.basis === 'upstream') && !DECLARED.has(c.id));
      t.same(undeclared.map((c) => c.id), [], `${label}: every MUST case that recorded upstream findings declares upstreamShape`);
      for (const c of report.cases) if (c.findings?.some((f) => f.basis === 'upstream')) withFindings.add(c.id);
      // Only upstream's error shape changed (a validation error answered 400): no MUST verdict moves,
      // and the findings say what differs from upstream, the code first.
      if (names.includes('invalid-as-plain-400')) {
        const shaped = report.cases.filter((c) => c.level === 'MUST' && c.findings?.some((f) => f.level === 'SHOULD' && /HTTP code \(upstream's\)/.test(f.message) && f.expected === 'HTTP 422'));
        t.ok(shaped.length > 0, `${label}: MUST cases answered 400 instead of 422 pass, with a SHOULD finding naming upstream's code (${shaped.length})`);
      }
      // "May" is freedom at every level (issue 21 §2): the cases of the spec's "may" rules pass against
      // every legal variant without a warning, the variants taking the outcome the reference does not
      // included, so that --strict (warnings fail) never fails one either.
      const mayWarned = report.cases.filter((c) => MAY_RULE_CASES.includes(c.id) && c.status !== 'passed' && c.status !== 'skipped');
      t.same(mayWarned.map((c) => `${c.id} ${c.status}: ${c.message}`), [], `${label}: no case of a "may" rule warns (--strict passes it too)`);
      const s = report.summary;
      const freedoms = names.map((n) => `${n}: ${VARIANTS.find((v) => v.name === n)!.freedom}`);
      t.equal(bad.length, 0, `${label}: no case fails or errors; ${s.passed} passed, ${s.warned} warned, ${s.skipped} skipped of ${s.total} in ${seconds}s`, {
        diagnostic: true,
        freedoms,
        warned: report.cases.filter((c) => c.status === 'warned').map((c) => `${c.id}: ${c.message}`),
        skipped: report.cases.filter((c) => c.status === 'skipped').map((c) => `${c.id}: ${c.message}`),
      });
      t.same(report.leaks, [], `${label}: the run leaves nothing behind`);
      for (const n of names) {
        t.ok(edits[n]! > 0, `${n}: the variant changed ${edits[n]} requests, responses or watch lines (one that changes nothing proves nothing)`);
      }
    }
  };
  await Promise.all(Array.from({ length: RUNS_AT_ONCE }, work));
  // Over every freedom of the error answers together, each case that declares upstreamShape recorded
  // an upstream finding somewhere: a declaration that nothing backs is a claim CONFORMANCE.md repeats.
  if (!eachAlone && runFocus === undefined && !process.env['CASE_FOCUS']) {
    const idle = [...DECLARED].filter((id) => !withFindings.has(id));
    t.same(idle, [], 'every case declaring upstreamShape recorded an upstream finding against some variant');
  }
});

/**
 * The cases of the "may" rules of spec 000 that the legal variants take the other outcome of
 * (kind-required, api-version-unrecognized-accepted, continue-unrecognized-ignored, bookmarks-unasked);
 * the Eviction's "conditions may be reset" is a controller's, proven in proof-controllers.test.ts.
 */
const MAY_RULE_CASES = ['api.common.kind.inferred', 'api.common.api-version.unrecognized', 'api.list.continue.invalid-token', 'api.watch.bookmarks.unasked'];

t.test('the "may" rule cases named here exist', async (t) => {
  t.same(MAY_RULE_CASES.filter((id) => !ALL_CASES.some((c) => c.id === id)), [], 'no unknown case id');
});

const DECLARED = new Set(ALL_CASES.filter((c) => c.upstreamShape).map((c) => c.id));
const withFindings = new Set<string>();
