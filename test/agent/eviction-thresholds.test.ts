// The agent's pressure conditions from evictionHard (reference/agent/eviction.ts): thresholds parsed
// as upstream's parseThresholdStatement does, and met when a signal's availability is under them.
import t from 'tap';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_EVICTION_HARD, EvictionConfigError, observeSignals, parseEvictionHard, PressureTracker, thresholdsMet } from '../../reference/agent/eviction.js';

t.test('evictionHard parses quantities and percentages; 0% and 100% are ignored; bad input refused', async (t) => {
  t.same(parseEvictionHard({ 'memory.available': '100Mi' }), [{ signal: 'memory.available', quantity: 100 * 1024 * 1024 }]);
  t.same(parseEvictionHard({ 'nodefs.available': '10%' }), [{ signal: 'nodefs.available', fraction: 0.1 }]);
  t.same(parseEvictionHard({ 'nodefs.available': '0%', 'imagefs.available': '100%' }), []);
  t.equal(parseEvictionHard(DEFAULT_EVICTION_HARD).length, Object.keys(DEFAULT_EVICTION_HARD).length, "upstream's defaults parse");
  const bads: Array<Record<string, string>> = [{ 'cpu.available': '1' }, { 'memory.available': 'lots' }, { 'nodefs.available': '120%' }, { 'nodefs.available': '-5%' }, { 'memory.available': '0' }, { 'nodefs.available': '%' }];
  for (const bad of bads) {
    t.throws(() => parseEvictionHard(bad), EvictionConfigError, `refused: ${JSON.stringify(bad)}`);
  }
});

t.test('a threshold is met when the signal is under it, absolute or as a share of capacity', async (t) => {
  const obs = { 'memory.available': { available: 50, capacity: 1000 }, 'nodefs.available': { available: 200, capacity: 1000 } };
  t.same(thresholdsMet(parseEvictionHard({ 'memory.available': '100' }), obs), ['memory.available']);
  t.same(thresholdsMet(parseEvictionHard({ 'memory.available': '10' }), obs), [], 'more available than the threshold');
  t.same(thresholdsMet(parseEvictionHard({ 'nodefs.available': '25%' }), obs), ['nodefs.available']);
  t.same(thresholdsMet(parseEvictionHard({ 'nodefs.available': '15%' }), obs), []);
  t.same(thresholdsMet(parseEvictionHard({ 'pid.available': '10' }), obs), [], 'a signal not observed is not judged');
});

t.test('this machine: memory available is the kernel\'s MemAvailable, under total; the defaults report no pressure here', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'oc-evict-'));
  const obs = await observeSignals(dir);
  const mem = obs['memory.available']!;
  t.ok(mem.available > 0 && mem.available <= mem.capacity, 'memory.available within capacity');
  t.ok(obs['nodefs.available'], 'nodefs observed through statfs of the root dir');
  const tracker = new PressureTracker(parseEvictionHard({ 'memory.available': '1Pi' }), 60_000, dir);
  t.same(await tracker.pressure(1_000), { memory: true, disk: false, pid: false }, 'a threshold above the machine: MemoryPressure');
  const cleared = new PressureTracker(parseEvictionHard({ 'memory.available': '1' }), 60_000, dir);
  t.same(await cleared.pressure(1_000), { memory: false, disk: false, pid: false }, 'a threshold the machine meets: none');
});
