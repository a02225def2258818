// The whole conformance suite against the reference on etcd (issue 15): `serve --storage etcd` on a
// private etcd, run as users run it (`run --api` with its CA, the companions' metrics URLs and every
// controller), passes every case it can run: nothing fails or errors, and a case skips only for a gate
// state, a target fact or a node-agent target the run does not give, never because the storage keeps
// a rule from being observed. So the storage changes nothing an implementer can observe. (The same
// runs on memory are the embedded main run and cli-tls.test.ts's run against serve.)
import t from 'tap';
import { execaNode } from 'execa';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { etcdUnavailable, startEtcd } from './helpers/etcd.js';
import { BIN, startServe, type StartedServe } from './helpers/serve.js';

/**
 * Flags the server and the run share: short continue and compaction windows, so those cases run. The
 * continue window is wider than the embedded run's 2 s: a token must still be good half a window after
 * it was issued, and on a loaded CI machine a list through etcd can take most of a second each way.
 */
const WINDOWS = ['--continue-ttl', '4s', '--compaction-interval', '2s'];

async function suiteAgainst(serve: StartedServe, dir: string, label: string): Promise<Map<string, string>> {
  const metrics = Object.entries(serve.components ?? {}).flatMap(([name, url]) => ['--metrics', `${name}=${url}`]);
  const report = join(dir, `${label}.json`);
  const r = await execaNode(BIN, ['run', '--api', serve.url, '--ca', serve.ca!, ...metrics, '--controllers', 'all', ...WINDOWS, '--reporter', `json=${report}`], { reject: false, timeout: 400_000 });
  if (r.exitCode !== 0 && r.exitCode !== 1) throw new Error(`run against ${label} exited ${r.exitCode}: ${r.stderr}`);
  const cases = JSON.parse(readFileSync(report, 'utf8')).cases as Array<{ id: string; status: string; message?: string; expected?: string; actual?: string }>;
  // expected/actual too: a failure on CI must say what was seen, not only which assertion.
  const detail = (c: { expected?: string; actual?: string }) => (c.expected || c.actual ? ` (expected ${c.expected ?? '?'}; actual ${c.actual ?? '?'})` : '');
  return new Map(cases.map((c) => [c.id, `${c.status}${c.message ? `: ${c.message}` : ''}${detail(c)}`]));
}

const unavailable = etcdUnavailable();
t.test('every case passes on etcd, or skips only for a gate, a fact or a node-agent target', { skip: unavailable }, async (t) => {
  t.setTimeout(900_000);
  const dir = mkdtempSync(join(tmpdir(), 'oc-etcd-suite-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const etcd = await startEtcd(t);
  const onEtcd = await startServe(t, [...WINDOWS, '--storage', 'etcd', '--etcd-servers', etcd.clientUrls.join(',')]);
  t.ok(onEtcd.ca && onEtcd.components?.['controller-manager'] && onEtcd.components?.['scheduler'], 'serve printed its CA and companions');
  const stored = await suiteAgainst(onEtcd, dir, 'etcd');
  const passed = [...stored].filter(([, s]) => s === 'passed').map(([id]) => id);
  t.ok(passed.length > 600, `the etcd run passed most of the suite (${passed.length})`);
  const failed = [...stored].filter(([, s]) => s.startsWith('failed') || s.startsWith('errored') || s.startsWith('warned')).map(([id, s]) => `${id}: ${s}`);
  t.same(failed, [], 'no case fails, errors or warns on etcd');
  const skippedForStorage = [...stored].filter(([, s]) => s.startsWith('skipped') && !/needs feature gate|needs to know .*: pass --|pass --agent <url>|pass --cri-control|pass --agent-exec/.test(s)).map(([id, s]) => `${id}: ${s}`);
  t.same(skippedForStorage, [], 'no case is skipped for what the etcd storage does: only gate, fact and node-agent-target skips');
});
