// `run --shard i/n` and `report merge`: slices are deterministic, disjoint, complete and balanced;
// four shards run at once against one reference and merged give the verdicts, summary and coverage
// of one run of the same selection; merge refuses what would make its report wrong.
import t from 'tap';
import { startReference } from '../../reference/server.js';
import { ALL_CASES } from '../../suites/index.js';
import { runCases } from '../../runner/run.js';
import { parseGates } from '../../runner/gates.js';
import { selectCases } from '../../runner/select.js';
import { buildRunSelection } from '../../runner/selection.js';
import { assignShards, loadShardTimings, parseShard, shardCases, shardRunId } from '../../runner/shard.js';
import { mergeReports, type MergeInput } from '../../runner/merge.js';
import { UsageError } from '../../runner/errors.js';
import type { RunReport } from '../../runner/results.js';
import { verdictHeadline } from '../../reporters/format.js';

t.test('--shard parses i/n and refuses anything else', async (t) => {
  t.same(parseShard('2/4'), { index: 2, count: 4 });
  t.same(parseShard('1/1'), { index: 1, count: 1 });
  for (const bad of ['0/4', '5/4', '2', '2/0', 'a/b', '-1/2', '1.5/3']) t.throws(() => parseShard(bad), UsageError, bad);
  t.equal(shardRunId('ci42', { index: 3, count: 4 }), 'ci42s3');
});

t.test('hash slices: disjoint, complete, sizes within one, independent of the listing order', async (t) => {
  const ids = ALL_CASES.map((c) => c.id);
  const slices = [1, 2, 3, 4, 5].map((index) => shardCases(ALL_CASES, { index, count: 5 }).map((c) => c.id));
  t.equal(new Set(slices.flat()).size, ids.length, 'every case in exactly one slice');
  t.equal(slices.flat().length, ids.length, 'no case twice');
  const sizes = slices.map((s) => s.length);
  t.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `sizes ${sizes.join(', ')}`);
  const reversed = [...ALL_CASES].reverse();
  t.same(shardCases(reversed, { index: 2, count: 5 }).map((c) => c.id).sort(), [...slices[1]!].sort(), 'the same slice from a selection listed in another order');
  t.same(slices[0], ids.filter((id) => slices[0]!.includes(id)), 'a slice keeps the selection\'s order');
});

t.test('timed slices: longest first to the least loaded, unknown cases weigh the median', async (t) => {
  const ids = Array.from({ length: 40 }, (_, i) => `case.${i}`);
  // One long case and many short ones: a hash split would ignore the weights.
  const timings = new Map(ids.slice(0, 30).map((id, i) => [id, i === 0 ? 10_000 : 100 + i * 10]));
  const slots = assignShards(ids, 3, timings);
  const weight = (id: string) => timings.get(id) ?? [...timings.values()].sort((a, b) => a - b)[Math.floor(timings.size / 2)]!;
  const load = [1, 2, 3].map((s) => ids.filter((id) => slots.get(id) === s).reduce((n, id) => n + weight(id), 0));
  t.equal(slots.get('case.0'), 1, 'the longest case goes first, to shard 1');
  t.ok(Math.max(...load) - Math.min(...load) <= 10_000, `loads ${load.join(', ')}`);
  t.ok(load[1]! > 0 && load[2]! > 0, 'the other shards share the rest');
  t.same(assignShards([...ids].reverse(), 3, timings), slots, 'deterministic whatever the order');
  t.equal(new Set(ids.map((id) => slots.get(id))).size, 3);
});

t.test('four shards against one reference, merged, equal one run', async (t) => {
  const ref = await startReference();
  t.teardown(() => ref.close());
  const focus = 'api\\.shape\\.(storageclass|resourcequota|namespace|node)';
  const selected = selectCases(ALL_CASES, { focus });
  t.ok(selected.length >= 4, `${selected.length} cases selected`);
  const base = { conn: { baseUrl: ref.url }, embedded: false, gates: parseGates(undefined), version: 'test-1', parallel: 2 };
  const selection = buildRunSelection({ focus, selected, all: ALL_CASES });
  const whole = await runCases({ ...base, cases: selected, selection });
  // At once, as a CI farm would run them against one shared target: each its own run id and cleanup.
  const shards = await Promise.all([1, 2, 3, 4].map((index) => {
    const shard = { index, count: 4 };
    return runCases({ ...base, cases: shardCases(selected, shard), shard, selection: { ...selection, partial: true } });
  }));
  t.equal(new Set(shards.map((s) => s.runId)).size, 4, 'each shard its own run id');
  t.same(shards.map((s) => s.shard), [1, 2, 3, 4].map((index) => ({ index, count: 4 })), 'report.shard set');
  t.same(shards.flatMap((s) => s.leaks), [], 'no shard left anything behind');
  const merged = mergeReports(shards.map((report, i) => ({ file: `s${i + 1}.json`, report })));
  const verdicts = (r: RunReport) => Object.fromEntries(r.cases.map((c) => [c.id, c.status]));
  t.same(verdicts(merged), verdicts(whole), 'the same verdict for every case');
  t.equal(merged.cases.length, whole.cases.length);
  t.same(merged.summary, whole.summary, 'the same summary');
  t.same(merged.coverage, whole.coverage, 'the same requirement coverage');
  t.same(merged.selection, whole.selection, 'the selection of the whole run');
  t.same(merged.merged?.map((m) => [m.runId, m.shard?.index, m.target.api, m.cases]), shards.map((s, i) => [s.runId, i + 1, ref.url, s.cases.length]), 'each shard recorded with its target');
  t.equal(merged.shard, undefined, 'a merged report is no shard');
  // The verdicts say what each report is: a shard's slice of the selection, a merge of the shards.
  t.match(verdictHeadline(shards[1]!), new RegExp(`^PASS \\(shard 2/4: ${shards[1]!.summary.total} of the ${selected.length} selected cases, of ${ALL_CASES.length} in the kit\\)`), 'a shard\'s verdict names its slice');
  t.match(verdictHeadline(merged), new RegExp(`^PASS \\(partial run: ${selected.length} of ${ALL_CASES.length} cases selected, merged from 4 shards\\)`), 'a merged verdict says it was merged');
});

/** Shard reports of a synthetic selection, as run --shard writes them. */
function shardReports(count: number, over: (i: number) => Partial<RunReport> = () => ({})): MergeInput[] {
  const ids = ['a.one', 'a.two', 'a.three', 'a.four', 'a.five'];
  const slots = assignShards(ids, count);
  const selection = { suites: [], facts: [], strict: false, selectedCases: ids.length, totalCases: 900, partial: true, focus: '^a\\.' };
  return Array.from({ length: count }, (_, k) => {
    const i = k + 1;
    const cases = ids.filter((id) => slots.get(id) === i).map((id) => ({
      id, title: id, suite: 's', requirements: [], spec: { doc: '000' as const, section: '2.2' }, level: 'MUST' as const, impact: 'read-only' as const,
      status: 'passed' as const, durationMs: 5, message: '', exchanges: [],
    }));
    const report: RunReport = {
      tool: 'orch-conformance', version: '1.0.0', target: { api: 'https://t', embedded: false }, runId: `r${i}`, startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      durationMs: 1000, summary: { total: cases.length, passed: cases.length, failed: 0, warned: 0, skipped: 0, errored: 0, interrupted: 0, knownFailures: 0, unexpectedPasses: 0 },
      cases, leaks: [], cleanupUnverified: [], interrupted: false, strict: false, selection: { ...selection }, shard: { index: i, count }, ...over(i),
    };
    return { file: `s${i}.json`, report };
  });
}

t.test('merge refuses parts that would make a wrong report', async (t) => {
  const good = shardReports(3);
  const ok = mergeReports(good);
  t.equal(ok.cases.length, 5);
  t.equal(ok.durationMs, 3000 - 1000 + 1000, 'wall time from the first start to the last end');
  t.equal(ok.selection?.partial, true, 'a focused selection stays partial');
  t.equal(ok.label, undefined, 'no --label, none merged');
  t.equal(mergeReports(shardReports(3, () => ({ label: 'acme 2.3' }))).label, 'acme 2.3', 'the shards\' --label is kept (report matrix names the column by it)');
  t.equal(ok.backgroundLoad, undefined, 'no load, none merged');
  const loaded = mergeReports(shardReports(3, () => ({ backgroundLoad: { hollowNodes: 50, source: 'started by the run' as const, alreadyRunning: 4 } })));
  t.same(loaded.backgroundLoad, { hollowNodes: 150, source: 'started by the run', alreadyRunning: 4 }, 'each shard started its own nodes: they add up; the ones already there counted once');
  t.same(loaded.merged!.map((m) => m.backgroundLoad?.hollowNodes), [50, 50, 50], 'each shard\'s own load kept');
  t.same(mergeReports(shardReports(2, () => ({ backgroundLoad: { hollowNodes: 7, source: 'already running' as const } }))).backgroundLoad, { hollowNodes: 7, source: 'already running' }, 'nodes found already running are the same for every shard');
  const refuses = (parts: MergeInput[], re: RegExp, what: string) => t.throws(() => mergeReports(parts), { name: 'UsageError', message: re }, what);
  refuses([good[0]!, good[1]!], /shard 3\/3 missing/, 'a missing shard');
  refuses([good[0]!, good[1]!, good[1]!, good[2]!], /shard 2\/3 given twice/, 'a shard twice');
  refuses(shardReports(3, (i) => (i === 2 ? { version: '1.0.1' } : {})), /different kit versions/, 'another version');
  refuses(shardReports(3, (i) => (i === 3 ? { selection: { suites: [], facts: [], strict: true, selectedCases: 5, totalCases: 900, partial: true, focus: '^a\\.' } } : {})), /different selections \(strict differ\)/, 'another selection');
  refuses([...shardReports(2), ...shardReports(3).slice(2)], /different splits/, 'shards of another count');
  refuses(shardReports(3, (i) => (i === 2 ? { shard: undefined } : {})), /not a shard's results/, 'a whole run');
  const overlap = shardReports(3);
  overlap[1]!.report.cases.push(overlap[0]!.report.cases[0]!);
  refuses(overlap, /is in s1\.json and in s2\.json: the shards overlap/, 'overlapping shards');
  refuses([{ file: 'm.json', report: ok }, ...good.slice(1)], /itself a merged report/, 'a merged report');
  refuses([good[0]!], /at least two shards/, 'one part');
});

t.test('on the command line: run --shard with a named run, report merge; --shard-timings files', async (t) => {
  const { execFile } = await import('node:child_process');
  const { mkdtemp, readFile, rm, writeFile } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const cliPath = fileURLToPath(new URL('../../bin/orch-conformance.js', import.meta.url));
  const cli = (args: string[]) => new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [cliPath, ...args], { encoding: 'utf8', timeout: 120_000 }, (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }));
  });
  const dir = await mkdtemp(join(tmpdir(), 'oc-shards-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const focus = '^api\\.discovery\\.';
  const selected = selectCases(ALL_CASES, { focus }).map((c) => c.id);
  // Timings that put the first case alone in shard 1 (what a hash split would not do), read as
  // --shard-timings reads them.
  const timings = join(dir, 'timings.json');
  await writeFile(timings, JSON.stringify({ cases: [...selected.map((id, i) => ({ id, status: 'passed', durationMs: i === 0 ? 100_000 : 10 })), { id: 'x.skipped', status: 'skipped', durationMs: 0 }] }));
  const read = loadShardTimings(timings);
  t.equal(read.has('x.skipped'), false, 'a skip says nothing about a case\'s duration');
  t.same(shardCases(selected.map((id) => ({ id })), { index: 1, count: 2 }, read).map((c) => c.id), [selected[0]], 'the slice the timings make');
  t.throws(() => loadShardTimings(join(dir, 'none.json')), { name: 'UsageError', message: /--shard-timings .*cannot read it/ });
  const [s1, s2] = await Promise.all([
    cli(['run', '--focus', focus, '--shard', '1/2', '--run-id', 'ci7', '--reporter', `json=${join(dir, 's1.json')}`]),
    cli(['run', '--focus', focus, '--shard', '2/2', '--run-id', 'ci7', '--reporter', `json=${join(dir, 's2.json')}`]),
  ]);
  t.equal(s1.code, 0, s1.stderr);
  t.equal(s2.code, 0, s2.stderr);
  const r1 = JSON.parse(await readFile(join(dir, 's1.json'), 'utf8')) as RunReport;
  t.same([r1.runId, r1.shard, r1.selection?.selectedCases, r1.selection?.partial], ['ci7s1', { index: 1, count: 2 }, selected.length, true], 'a shard\'s own run id; the whole selection recorded');
  const merged = await cli(['report', 'merge', join(dir, 's1.json'), join(dir, 's2.json'), '--reporter', `json=${join(dir, 'merged.json')}`]);
  t.equal(merged.code, 0, merged.stderr);
  const m = JSON.parse(await readFile(join(dir, 'merged.json'), 'utf8')) as RunReport;
  t.same(m.cases.map((c) => c.id).sort(), [...selected].sort(), 'every selected case once');
  t.same(m.merged?.map((x) => x.runId), ['ci7s1', 'ci7s2']);
});
