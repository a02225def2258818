// The parts of the agent's stats (reference/agent/stats/): the readers of /proc and /proc/pressure,
// the node collector on a fixture /proc (PSI absent means no `psi` at all; usage rate from two
// samples), the text exposition writer, the resource metrics, the directory usage cache.
import t, { type Test } from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePressure, nodePressure, psiFromCri } from '../../reference/agent/stats/psi.js';
import { cpuNsFromProcStat, defaultRouteInterface, fsFigures, NodeCollector, parseMeminfo, parseNetDev } from '../../reference/agent/stats/node-collector.js';
import { TextExposition } from '../../reference/agent/stats/text-exposition.js';
import { resourceMetrics } from '../../reference/agent/stats/resource.js';
import { DirUsageCache, walkUsage } from '../../reference/agent/stats/dir-usage.js';
import { onlyCpuAndMemory } from '../../reference/agent/stats/agent-stats.js';
import { rfc3339, summaryJson } from '../../reference/agent/stats/summary-types.js';
import { parseExposition, samplesOf } from '../../suites/002-metrics-debug/exposition.js';

const PRESSURE_CPU = 'some avg10=1.50 avg60=0.75 avg300=0.10 total=123456\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n';
const PRESSURE_OLD_CPU = 'some avg10=2.00 avg60=1.00 avg300=0.50 total=42\n';
const MEMINFO = 'MemTotal:       16000000 kB\nMemFree:         4000000 kB\nMemAvailable:    9000000 kB\nInactive(file):  2000000 kB\nAnonPages:       3000000 kB\n';
const STAT = 'cpu  100 20 30 1000 50 5 5 10 0 0\ncpu0 50 10 15 500 25 2 3 5 0 0\n';
const NET_DEV = 'Inter-|   Receive                                                |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n    lo: 999 9 0 0 0 0 0 0 999 9 0 0 0 0 0 0\n  eth0: 1000 10 2 0 0 0 0 0 500 5 1 0 0 0 0 0\n  eth1: 7 1 0 0 0 0 0 0 8 1 0 0 0 0 0 0\n';
const ROUTE = 'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\neth1\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\neth1\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n';

t.test('/proc/pressure: totals from microseconds to nanoseconds, a missing cpu `full` line reads as zero', async (t) => {
  t.same(parsePressure(PRESSURE_CPU), { some: { avg10: 1.5, avg60: 0.75, avg300: 0.1, total: 123456000 }, full: { avg10: 0, avg60: 0, avg300: 0, total: 0 } });
  t.same(parsePressure(PRESSURE_OLD_CPU)?.full, { total: 0, avg10: 0, avg60: 0, avg300: 0 });
  t.equal(parsePressure(''), undefined, 'nothing readable: no PSI');
  t.equal(parsePressure('garbage avg10=x'), undefined);
  t.same(psiFromCri({ Some: { Total: '10', Avg10: 1, Avg60: 2, Avg300: 3 }, Full: { Total: '5', Avg10: 0.5, Avg60: 1, Avg300: 1.5 } }),
    { full: { total: 5, avg10: 0.5, avg60: 1, avg300: 1.5 }, some: { total: 10, avg10: 1, avg60: 2, avg300: 3 } });
  t.equal(psiFromCri(null), undefined, 'the runtime gave none: none');
});

t.test('/proc readers', async (t) => {
  const m = parseMeminfo(MEMINFO);
  t.equal(m.get('MemTotal'), 16000000 * 1024);
  t.equal(m.get('Inactive(file)'), 2000000 * 1024);
  t.equal(cpuNsFromProcStat(STAT), ((100 + 20 + 30 + 5 + 5 + 10) * 1e9) / 100, 'busy ticks (idle and iowait left out) at USER_HZ 100');
  t.equal(cpuNsFromProcStat('intr 1 2 3\n'), undefined);
  t.same(parseNetDev(NET_DEV).map((i) => i.name), ['eth0', 'eth1'], 'loopback left out');
  t.same(parseNetDev(NET_DEV)[0], { name: 'eth0', rxBytes: 1000, rxErrors: 2, txBytes: 500, txErrors: 1 });
  t.equal(defaultRouteInterface(ROUTE), 'eth1');
  t.equal(defaultRouteInterface('Iface\tDestination\n'), undefined);
});

function fixtureProc(t: Test, pressure: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'stats-proc-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'stat'), STAT);
  writeFileSync(join(dir, 'meminfo'), MEMINFO);
  writeFileSync(join(dir, 'vmstat'), 'pgfault 77\npgmajfault 3\n');
  mkdirSync(join(dir, 'net'));
  writeFileSync(join(dir, 'net', 'dev'), NET_DEV);
  writeFileSync(join(dir, 'net', 'route'), ROUTE);
  if (pressure) {
    mkdirSync(join(dir, 'pressure'));
    for (const r of ['cpu', 'memory', 'io']) writeFileSync(join(dir, 'pressure', r), PRESSURE_CPU);
  }
  return dir;
}

t.test('node collector: figures of the fixture machine; no /proc/pressure, no psi', async (t) => {
  const proc = fixtureProc(t, false);
  const c = new NodeCollector({ procDir: proc, cgroupDir: join(proc, 'no-cgroup') });
  const s = await c.sample();
  t.equal(s.psi, undefined, 'no PSI invented');
  t.equal(s.cpu?.coreNs, 1.7e9);
  t.equal(s.cpu?.nanoCores, undefined, 'no earlier sample: no rate');
  const total = 16000000 * 1024;
  const usage = total - 4000000 * 1024;
  t.same(s.memory, { capacity: total, usage, workingSet: usage - 2000000 * 1024, available: total - (usage - 2000000 * 1024), rss: 3000000 * 1024, pageFaults: 77, majorPageFaults: 3 });
  t.equal(s.network?.default?.name, 'eth1', 'the default route\'s interface');
  t.equal(s.network?.interfaces.length, 2);
  t.ok(s.bootMs <= Date.now());
  t.same(await nodePressure(join(proc, 'pressure')), undefined);
});

t.test('node collector: PSI where /proc/pressure is; usage rate from two samples', async (t) => {
  const proc = fixtureProc(t, true);
  const c = new NodeCollector({ procDir: proc, cgroupDir: join(proc, 'no-cgroup') });
  await c.start();
  // One more second of busy time per core on both CPUs, a second later.
  await new Promise((r) => setTimeout(r, 1100));
  writeFileSync(join(proc, 'stat'), 'cpu  300 20 30 1000 50 5 5 10 0 0\n');
  const s = await c.sample();
  t.ok(s.psi?.cpu && s.psi.memory && s.psi.io, 'cpu, memory and io pressure');
  const rate = s.cpu!.nanoCores!;
  t.ok(rate > 1.5e9 && rate < 2e9, `about two cores busy: ${rate}`);
});

t.test('cgroup v2 root cpu.stat wins over /proc/stat where readable', async (t) => {
  const proc = fixtureProc(t, false);
  const cg = join(proc, 'cgroup');
  mkdirSync(cg);
  writeFileSync(join(cg, 'cpu.stat'), 'usage_usec 5000000\nuser_usec 1\nsystem_usec 2\n');
  const s = await new NodeCollector({ procDir: proc, cgroupDir: cg }).sample();
  t.equal(s.cpu?.coreNs, 5e9);
});

t.test('statfs of a path not there yet: its nearest existing ancestor', async (t) => {
  const f = await fsFigures(join(tmpdir(), 'no', 'such', 'dir'));
  t.ok(f && f.capacity > 0 && f.inodes >= f.inodesFree);
});

t.test('text exposition: HELP/TYPE once per family, escaped labels, timestamps; the suites\' parser reads it', async (t) => {
  const e = new TextExposition();
  e.family('a_total', 'counter', 'help with \\ and\nnewline');
  e.family('a_total', 'gauge', 'ignored second declaration');
  e.sample('a_total', [['x', 'q"uo\\te\nnl']], 1.5, 1700000000123);
  e.sample('a_total', [], 2);
  t.throws(() => e.sample('b', [], 1), /not declared/);
  t.throws(() => e.family('bad-name', 'gauge', ''), /invalid metric name/);
  t.throws(() => e.sample('a_total', [['bad-label', '']], 1), /invalid label name/);
  const text = e.render();
  t.match(text, /^# HELP a_total help with \\\\ and\\nnewline\n# TYPE a_total counter\na_total\{x="q\\"uo\\\\te\\nnl"\} 1\.5 1700000000123\na_total 2\n$/);
  const exp = parseExposition(text);
  t.same(exp.errors, []);
  t.equal(samplesOf(exp, 'a_total')[0]?.labels['x'], 'q"uo\\te\nnl');
});

t.test('/metrics/resource from a summary: upstream\'s names and labels, timestamps, the scrape error', async (t) => {
  const time = 1700000000000;
  const text = resourceMetrics({
    node: { nodeName: 'n', startTime: time, cpu: { time, usageCoreNanoSeconds: 2e9 }, memory: { time, workingSetBytes: 100 } },
    pods: [{ podRef: { name: 'p', namespace: 'ns', uid: 'u' }, startTime: time, cpu: { time, usageCoreNanoSeconds: 1e9 }, memory: { time, workingSetBytes: 50 },
      containers: [{ name: 'c', startTime: time - 1000, cpu: { time, usageCoreNanoSeconds: 5e8 }, memory: { time, workingSetBytes: 40 } }] }],
  }, false);
  t.match(text, /\ncontainer_cpu_usage_seconds_total\{container="c",namespace="ns",pod="p"\} 0\.5 1700000000000\n/);
  t.match(text, /\ncontainer_start_time_seconds\{container="c",namespace="ns",pod="p"\} 1699999999 1699999999000\n/);
  t.match(text, /\npod_memory_working_set_bytes\{namespace="ns",pod="p"\} 50 1700000000000\n/);
  t.match(text, /\nnode_cpu_usage_seconds_total 2 1700000000000\n/);
  t.match(text, /\nresource_scrape_error 0\n$/);
  t.match(resourceMetrics({ node: { nodeName: 'n', startTime: time }, pods: [] }, true), /\nresource_scrape_error 1\n$/);
  t.same(parseExposition(text).errors, []);
});

t.test('only_cpu_and_memory as upstream reads it: one value, exactly "true"', async (t) => {
  const u = (q: string) => onlyCpuAndMemory(new URL(`https://a/stats/summary${q}`));
  t.equal(u('?only_cpu_and_memory=true'), true);
  t.equal(u(''), false);
  t.equal(u('?only_cpu_and_memory=1'), false);
  t.equal(u('?only_cpu_and_memory=TRUE'), false);
  t.equal(u('?only_cpu_and_memory=true&only_cpu_and_memory=true'), false);
});

t.test('summary JSON: times as RFC 3339, whole seconds', async (t) => {
  t.equal(rfc3339(Date.UTC(2024, 0, 2, 3, 4, 5, 678)), '2024-01-02T03:04:05Z');
  t.equal(summaryJson({ node: { startTime: 0, cpu: { time: 1000, usageCoreNanoSeconds: 5 } } }), '{"node":{"startTime":"1970-01-01T00:00:00Z","cpu":{"time":"1970-01-01T00:00:01Z","usageCoreNanoSeconds":5}}}');
});

t.test('directory usage: du of a tree, cached, a missing directory uses nothing', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'stats-du-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'c'));
  writeFileSync(join(dir, 'c', '0.log'), 'x'.repeat(10_000));
  const u = await walkUsage(dir);
  t.equal(u.inodes, 3, 'the directory, its subdirectory and the file');
  t.ok(u.bytes >= 10_000, `allocated bytes ${u.bytes}`);
  t.same(await walkUsage(join(dir, 'none')), { bytes: 0, inodes: 0 });
  let walks = 0;
  const cache = new DirUsageCache(60_000, async (d) => { walks++; return walkUsage(d); });
  await cache.usage(dir);
  await cache.usage(dir);
  t.equal(walks, 1, 'a fresh figure is served from the cache');
  cache.retain(new Set());
  await cache.usage(dir);
  t.equal(walks, 2, 'a forgotten directory is walked again');
});
