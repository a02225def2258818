// Cost of `bundle verify` (issue 26 §3) on the bundle of a 1,000-case run: cases of the kit with
// one in twenty failed, each failure carrying six recorded exchanges with 8 KiB bodies, written as
// `run --bundle` writes it (results, Markdown, HTML and JUnit reports, manifest) and signed. Timed:
// the whole verification (gunzip, untar, every digest, the Ed25519 signature) in this process.
// Aim: under 1 s.
//
//   node dist/bench/bundle.js [--cases 1000] [--rounds 5]
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ALL_CASES } from '../suites/index.js';
import { computeCoverage } from '../reporters/coverage.js';
import { summarise } from '../runner/run.js';
import type { CaseResult, Exchange, RunReport } from '../runner/results.js';
import { signBundle, verifyBundle, writeBundle } from '../runner/bundle.js';
import { positiveInt, printTable, quantile } from './report.js';

const { values: args } = parseArgs({ options: { cases: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '5' } } });
const CASES = positiveInt('bundle', 'cases', args.cases!);
const ROUNDS = positiveInt('bundle', 'rounds', args.rounds!);
const AIM_MS = 1000;

const body = JSON.stringify({ kind: 'Status', message: 'x'.repeat(8 * 1024) });
const exchange = (i: number): Exchange => ({ method: 'GET', url: `https://127.0.0.1:6443/api/v1/namespaces/bench/pods/p${i}`, requestHeaders: { accept: 'application/json', authorization: '<redacted>' }, status: 422, responseHeaders: { 'content-type': 'application/json' }, responseBody: body, durationMs: 3 });

// The kit's cases, repeated when more are asked for than it has, with made-up ids past its end.
const cases: CaseResult[] = Array.from({ length: CASES }, (_, i) => {
  const c = ALL_CASES[i % ALL_CASES.length]!;
  const failed = i % 20 === 0;
  return {
    id: i < ALL_CASES.length ? c.id : `${c.id}#${i}`, title: c.title, suite: c.suite, requirements: [...c.requirements], spec: c.spec, level: c.level, impact: c.impact, needs: [...c.needs],
    status: failed ? 'failed' : 'passed', durationMs: 40, message: failed ? 'a planted failure' : '', ...(failed ? { expected: 'HTTP 201', actual: 'HTTP 422' } : {}),
    exchanges: failed ? Array.from({ length: 6 }, (_, j) => exchange(j)) : [],
  };
});
const report: RunReport = {
  tool: 'orch-conformance', version: 'bench', target: { api: 'https://127.0.0.1:6443', embedded: false }, runId: 'bench', startedAt: new Date().toISOString(), durationMs: 60_000,
  summary: summarise(cases), cases, leaks: [], cleanupUnverified: [], interrupted: false, strict: false, coverage: computeCoverage(cases), command: ['run', '--api', 'https://127.0.0.1:6443'],
};

const dir = mkdtempSync(join(tmpdir(), 'bench-bundle-'));
try {
  const file = join(dir, 'run.tgz');
  const keys = generateKeyPairSync('ed25519');
  await writeBundle(file, report, { embedded: false, api: 'https://127.0.0.1:6443' });
  await signBundle(file, keys.privateKey);
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now();
    const v = await verifyBundle(file, keys.publicKey);
    times.push(performance.now() - start);
    if (!v.ok) throw new Error(`the bench's bundle did not verify: ${v.problems.join('; ')}`);
  }
  console.log(`\nbundle verify of a ${CASES}-case run (${(statSync(file).size / 1024 / 1024).toFixed(1)} MiB archive), ${ROUNDS} rounds (aim: under ${AIM_MS} ms)\n`);
  printTable(['', 'ms'], [['median', quantile(times, 0.5).toFixed(0)], ['max', Math.max(...times).toFixed(0)]]);
  if (Math.max(...times) >= AIM_MS) console.log('\nabove the aim');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
