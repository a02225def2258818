// The whole conformance suite against the reference on etcd (issue 15): `serve --storage etcd` on a
// private etcd must pass every case that the same `serve` on memory passes, run the same way
// (`run --api` with its CA, the companions' metrics URLs and every controller), so that the storage
// changes nothing an implementer can observe.
import t from 'tap';
import { execaNode } from 'execa';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { etcdUnavailable, startEtcd } from './helpers/etcd.js';
import { BIN, startServe, type StartedServe } from './helpers/serve.js';

/** Flags both servers and the runs share: short continue and compaction windows, so those cases run. */
const WINDOWS = ['--continue-ttl', '2s', '--compaction-interval', '2s'];

async function suiteAgainst(serve: StartedServe, dir: string, label: string): Promise<Map<string, string>> {
  const metrics = Object.entries(serve.components ?? {}).flatMap(([name, url]) => ['--metrics', `${name}=${url}`]);
  const report = join(dir, `${label}.json`);
  const r = await execaNode(BIN, ['run', '--api', serve.url, '--ca', serve.ca!, ...metrics, '--controllers', 'all', ...WINDOWS, '--reporter', `json=${report}`], { reject: false, timeout: 400_000 });
  if (r.exitCode !== 0 && r.exitCode !== 1) throw new Error(`run against ${label} exited ${r.exitCode}: ${r.stderr}`);
  const cases = JSON.parse(readFileSync(report, 'utf8')).cases as Array<{ id: string; status: string; message?: string }>;
  return new Map(cases.map((c) => [c.id, `${c.status}${c.message ? `: ${c.message}` : ''}`]));
}

const unavailable = etcdUnavailable();
t.test('every case that passes on memory passes on etcd', { skip: unavailable }, async (t) => {
  t.setTimeout(900_000);
  const dir = mkdtempSync(join(tmpdir(), 'oc-etcd-suite-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const etcd = await startEtcd(t);
  const common = WINDOWS;
  const onEtcd = await startServe(t, [...common, '--storage', 'etcd', '--etcd-servers', etcd.clientUrls.join(',')]);
  const onMemory = await startServe(t, common);
  t.ok(onEtcd.ca && onEtcd.components?.['controller-manager'] && onEtcd.components?.['scheduler'], 'serve printed its CA and companions');
  const memory = await suiteAgainst(onMemory, dir, 'memory');
  const stored = await suiteAgainst(onEtcd, dir, 'etcd');
  const passedOnMemory = [...memory].filter(([, s]) => s === 'passed').map(([id]) => id);
  t.ok(passedOnMemory.length > 600, `the memory run passed most of the suite (${passedOnMemory.length})`);
  const lost = passedOnMemory.filter((id) => stored.get(id) !== 'passed').map((id) => `${id}: ${stored.get(id) ?? 'not run'}`);
  t.same(lost, [], 'nothing that passes on memory fails, errors or is skipped on etcd');
  const failed = [...stored].filter(([, s]) => s.startsWith('failed') || s.startsWith('errored')).map(([id, s]) => `${id}: ${s}`);
  t.same(failed, [], 'no case fails or errors on etcd');
});
