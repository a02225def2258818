// `run --background-nodes` plumbing (runner/background-nodes.ts): the child `nodes` process is started
// with the run's connection and label, waited for, stopped, killed with the run, and its Nodes are
// left to it by the leak check and checked after it stopped. A stand-in for `nodes` (below) keeps to
// the command's contract so these run in a second; the embedded run with 200 real hollow nodes is in
// test/conformance-doc.test.ts.
import t from 'tap';
import { execaNode } from 'execa';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { HOLLOW_LABEL, startBackgroundNodes } from '../../runner/background-nodes.js';
import { HOLLOW_LABEL as NODES_LABEL } from '../../hollow/nodes.js';
import { BackgroundNodesError, UsageError } from '../../runner/errors.js';
import { cmdList } from '../../bin/commands/run.js';
import { exitCodeFor, runCases, RUN_LABEL } from '../../runner/run.js';
import { parseGates } from '../../runner/gates.js';
import { defineCase } from '../../suites/case.js';
import { fail } from '../../suites/verify.js';
import { startReference } from '../../reference/server.js';
import { startBrokenTarget } from '../helpers/broken-target.js';
import { silentSink } from '../../reference/log.js';
import { renderConsoleHeader } from '../../reporters/console.js';
import { renderJunit } from '../../reporters/junit.js';
import { summaryFacts } from '../../reporters/format.js';
import type { RunPlan } from '../../reporters/types.js';
import { BIN } from '../helpers/serve.js';

/**
 * A stand-in for `orch-conformance nodes`, as the contract has it: argv after the script is
 * `<mode> <dir>` then the flags the run appends (recorded in <dir>/args.json with the kubeconfig's
 * text and mode). Modes: ok (ready at once; on SIGTERM deletes its Nodes through the kubeconfig's
 * server, then "stopped"), keep (as ok, deletes nothing), fail (stderr, exit 3), hang (never ready),
 * die (ready, exits 1 soon after), stubborn (ready, ignores SIGTERM).
 */
const FAKE = `
const fs = require('node:fs');
const [mode, dir, ...args] = process.argv.slice(2);
const flag = (f) => args[args.indexOf(f) + 1];
const kubeconfig = flag('--kubeconfig');
const kc = JSON.parse(fs.readFileSync(kubeconfig, 'utf8'));
fs.writeFileSync(dir + '/args.json', JSON.stringify({ pid: process.pid, args, kubeconfig: kc, mode: fs.statSync(kubeconfig).mode & 0o777 }));
const count = Number(flag('--count'));
if (mode === 'fail') { process.stderr.write('cannot reach the API server\\nsecond line\\n'); process.exit(3); }
process.on('SIGTERM', async () => {
  fs.writeFileSync(dir + '/sigterm', '');
  if (mode === 'stubborn') return;
  if (mode === 'ok') for (let i = 0; i < count; i++) await fetch(kc.clusters[0].cluster.server + '/api/v1/nodes/' + flag('--name-prefix') + i, { method: 'DELETE' });
  process.stdout.write('stopped: ' + count + ' nodes ' + (mode === 'ok' ? 'deleted' : 'kept') + '\\n');
  process.exit(0);
});
if (mode !== 'hang') process.stdout.write('ready: ' + count + ' nodes\\n');
if (mode === 'die') setTimeout(() => { process.stderr.write('out of memory\\n'); process.exit(1); }, 100);
setInterval(() => {}, 1000);
`;

function fake(t: { teardown(fn: () => void): void }, mode: string): { command: string[]; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'oc-bg-test-'));
  writeFileSync(join(dir, 'nodes.cjs'), FAKE);
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return { command: [process.execPath, join(dir, 'nodes.cjs'), mode, dir], dir };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const NOWHERE = { baseUrl: 'http://127.0.0.1:1', token: 'secret-token' };

async function until(check: () => boolean, ms = 5_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

t.test('started with the run\'s connection (an owner-only kubeconfig), its label and names; stopped with SIGTERM', async (t) => {
  const { command, dir } = fake(t, 'keep');
  const bg = await startBackgroundNodes(NOWHERE, { count: 3, runId: 'bg0', runLabel: `${RUN_LABEL}=bg0`, command });
  const seen = JSON.parse(readFileSync(join(dir, 'args.json'), 'utf8'));
  const flag = (f: string) => seen.args[seen.args.indexOf(f) + 1];
  t.equal(flag('--count'), '3');
  t.equal(flag('--name-prefix'), 'oc-bg0-hollow-');
  t.equal(flag('--label'), `${RUN_LABEL}=bg0`, 'its Nodes carry the run\'s label: cleanup --run-id finds them');
  t.equal(seen.mode, 0o600, 'the kubeconfig is the owner\'s only');
  t.equal(seen.kubeconfig.clusters[0].cluster.server, NOWHERE.baseUrl);
  t.equal(seen.kubeconfig.users[0].user.token, NOWHERE.token, 'the run\'s token, in the file: never on a command line');
  t.notOk(seen.args.includes(NOWHERE.token));
  t.equal(HOLLOW_LABEL, NODES_LABEL, 'the label the run looks for is the one the nodes command sets');
  t.same(bg.names, ['oc-bg0-hollow-0', 'oc-bg0-hollow-1', 'oc-bg0-hollow-2']);
  t.same(bg.load, { hollowNodes: 3, source: 'started by the run' });
  t.ok(bg.owns('/api/v1/nodes', { metadata: { name: 'oc-bg0-hollow-1', labels: { 'orch-conformance.io/hollow': 'true' } } }));
  t.notOk(bg.owns('/api/v1/nodes', { metadata: { name: 'oc-bg0-hollow-1', labels: {} } }), 'a Node without the hollow label is not one of them');
  t.notOk(bg.owns('/api/v1/nodes', { metadata: { name: 'oc-bg0-node', labels: { 'orch-conformance.io/hollow': 'true' } } }), 'nor one of another name');
  t.same(await bg.stop(), [], 'nothing can be listed on an unreachable target: no leak claimed');
  t.ok(existsSync(join(dir, 'sigterm')), 'stopped with SIGTERM');
  t.notOk(existsSync(dirname(flag('--kubeconfig'))), 'its kubeconfig is removed');
  t.same(await bg.stop(), [], 'stop again: nothing more');
  t.notOk(bg.load.endedEarly, 'a stop is no early end');
});

t.test('a nodes process that ends before it is ready: a set-up error with its exit and its last stderr lines', async (t) => {
  const { command } = fake(t, 'fail');
  const err = await startBackgroundNodes(NOWHERE, { count: 2, runId: 'bg1', runLabel: 'a=b', command }).catch((e) => e);
  t.type(err, BackgroundNodesError);
  t.match(err.message, /^--background-nodes 2: the nodes process ended before its nodes were Ready \(exit code 3\); its last standard error lines:\n {2}cannot reach the API server\n {2}second line$/);
});

t.test('not ready in time, or interrupted while waiting: the child is stopped and the run told why', async (t) => {
  const late = fake(t, 'hang');
  const err = await startBackgroundNodes(NOWHERE, { count: 200, runId: 'bg2', runLabel: 'a=b', command: late.command, readyTimeoutMs: 300 }).catch((e) => e);
  t.type(err, BackgroundNodesError);
  t.match(err.message, /^--background-nodes 200: 200 hollow nodes were not all Ready within 0 s; it wrote nothing on standard error$/);
  // It may not have got as far as its SIGTERM handler on a busy machine: gone is what counts.
  const args = join(late.dir, 'args.json');
  t.ok(!existsSync(args) || !alive(JSON.parse(readFileSync(args, 'utf8')).pid), 'the late child was stopped');

  const cut = fake(t, 'hang');
  const interrupt = new AbortController();
  void until(() => existsSync(join(cut.dir, 'args.json'))).then(() => interrupt.abort());
  const err2 = await startBackgroundNodes(NOWHERE, { count: 5, runId: 'bg3', runLabel: 'a=b', command: cut.command, interrupt: interrupt.signal }).catch((e) => e);
  t.match(err2.message, /interrupted before the nodes were Ready/);
  t.ok(existsSync(join(cut.dir, 'sigterm')), 'the child was stopped');
});

t.test('a nodes process that ends during the run is said at once and recorded; one that ignores SIGTERM is killed', async (t) => {
  const warnings: string[] = [];
  const { command } = fake(t, 'die');
  const bg = await startBackgroundNodes(NOWHERE, { count: 1, runId: 'bg4', runLabel: 'a=b', command, warn: (l) => warnings.push(l) });
  t.ok(await until(() => bg.load.endedEarly !== undefined), 'recorded');
  t.equal(bg.load.endedEarly, 'the nodes process ended during the run (exit code 1)');
  t.match(warnings.join('\n'), /--background-nodes: the nodes process ended during the run \(exit code 1\); its last standard error lines:\n {2}out of memory/);
  await bg.stop();

  const stubborn = fake(t, 'stubborn');
  const bg2 = await startBackgroundNodes(NOWHERE, { count: 1, runId: 'bg5', runLabel: 'a=b', command: stubborn.command, stopTimeoutMs: 300, warn: (l) => warnings.push(l) });
  await bg2.stop();
  t.ok(existsSync(join(stubborn.dir, 'sigterm')), 'asked first');
  t.match(warnings.at(-1), /did not stop within 0 s of SIGTERM: killed \(their Nodes may be left: orch-conformance cleanup --run-id bg5\)/);
});

t.test('a run that quits at once (process.exit: a second Ctrl-C) still stops its background nodes', async (t) => {
  const { command, dir } = fake(t, 'keep');
  const module = new URL('../../runner/background-nodes.js', import.meta.url).href;
  const script = `const { startBackgroundNodes } = await import(${JSON.stringify(module)});
await startBackgroundNodes({ baseUrl: 'http://127.0.0.1:1' }, { count: 1, runId: 'bg6', runLabel: 'a=b', command: ${JSON.stringify(command)} });
process.exit(130);`;
  const parent = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
  const code = await new Promise((r) => parent.once('exit', r));
  t.equal(code, 130);
  t.ok(await until(() => existsSync(join(dir, 'sigterm'))), 'its child got SIGTERM (it deletes its Nodes on its own)');
});

t.test('in a run: the load is recorded and shown, the nodes are no leak while they run, and any left after their stop is one', async (t) => {
  const ref = await startReference({ host: '127.0.0.1', port: 0, log: silentSink });
  t.teardown(() => ref.close());
  // A case that creates a Node of its own: the leak check lists the Nodes, the hollow ones among them.
  const nodeCase = defineCase({
    id: 'x.node', title: 'x.node', suite: 'test', requirements: ['000-2.2-provisioner-required'], spec: { doc: '000', section: '2.2' }, level: 'MUST', impact: 'cluster-scoped', needs: ['api'],
    async run(ctx) {
      const name = ctx.uniqueName('node');
      ctx.track(`/api/v1/nodes/${name}`);
      const res = await ctx.api.post('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { ...ctx.labels } } });
      if (res.status !== 201) fail('create', '201', String(res.status));
    },
  });
  // A target that acknowledges deletes of hollow Nodes without doing them.
  const broken = await startBrokenTarget(ref.url, { request: (r) => (r.method === 'DELETE' && r.path.includes('-hollow-') ? { status: 200, headers: {}, body: '{}' } : undefined) });
  t.teardown(() => broken.close());
  const run = async (runId: string, mode: string, url = ref.url) => {
    // What a `nodes` process registers: Nodes with the hollow label and the run's.
    await fetch(`${ref.url}/api/v1/nodes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: `oc-${runId}-hollow-0`, labels: { 'orch-conformance.io/hollow': 'true', [RUN_LABEL]: runId } } }) });
    const background = await startBackgroundNodes({ baseUrl: url }, { count: 1, runId, runLabel: `${RUN_LABEL}=${runId}`, command: fake(t, mode).command });
    const plans: RunPlan[] = [];
    const report = await runCases({ cases: [nodeCase], conn: { baseUrl: url }, embedded: false, gates: parseGates(undefined), version: 't', runId, background, reporters: [{ name: 'spy', start: (p) => plans.push(p), end: () => undefined }] });
    return { report, plan: plans[0]! };
  };
  const exists = async (name: string) => (await fetch(`${ref.url}/api/v1/nodes/${name}`)).status === 200;

  const { report, plan } = await run('bgok', 'ok');
  t.equal(report.cases[0]!.status, 'passed');
  t.same(report.leaks, [], 'the hollow Node was no leak while its process ran, and was gone after its stop');
  t.same(report.backgroundLoad, { hollowNodes: 1, source: 'started by the run' });
  t.equal(Object.keys(report).at(-1), 'backgroundLoad', 'the field comes last in the report');
  t.same(plan.backgroundLoad, report.backgroundLoad, 'reporters know the load before the first case');
  t.match(renderConsoleHeader(plan), /^Run bgok against .*: 1 case\nBackground load: 1 hollow node, started by the run\n$/);
  t.match(renderJunit(report), /<property name="backgroundLoad" value="1 hollow node, started by the run"\/>/);
  t.same(summaryFacts(report).find(([k]) => k === 'Background load'), ['Background load', '1 hollow node, started by the run'], 'Markdown and HTML summary tables');

  const kept = await run('bgkeep', 'keep');
  t.same(kept.report.leaks, [], 'a Node its process did not delete (a request of its failed) the run deletes, as any object it labelled');
  t.notOk(await exists('oc-bgkeep-hollow-0'));
  const left = await run('bgleft', 'keep', broken.url);
  t.same(left.report.leaks.filter((l) => l.includes('-hollow-')), ['/api/v1/nodes/oc-bgleft-hollow-0'], 'one still there after that is left behind');
  t.equal(exitCodeFor(left.report), 1);

  const none = { ...report, backgroundLoad: undefined };
  t.notOk(summaryFacts(none).some(([k]) => k === 'Background load'), 'no row without a load');
  t.notMatch(renderConsoleHeader({ runId: 'x', target: report.target, total: 1 }), /Background/);
});

t.test('run --api --background-nodes: the real nodes command loads the target through the run\'s connection; hollow Nodes already there are recorded beside them', async (t) => {
  const ref = await startReference({ host: '127.0.0.1', port: 0, log: silentSink });
  t.teardown(() => ref.close());
  // A `nodes` process of the operator's: its Node (as it registers them) is counted, never touched.
  await fetch(`${ref.url}/api/v1/nodes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'hollow-0', labels: { [HOLLOW_LABEL]: 'true' } } }) });
  const dir = mkdtempSync(join(tmpdir(), 'oc-bg-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const r = await execaNode(BIN, ['run', '--api', ref.url, '--background-nodes', '2', '--run-id', 'bgcli', '--id', 'api.storageclass.list', '--reporter', 'console', '--reporter', `json=${dir}/r.json`], { reject: false, timeout: 60_000 });
  t.equal(r.exitCode, 0, `exit 0\n${r.stdout}\n${r.stderr}`);
  t.equal(r.stderr, '', 'quiet: the nodes\' progress stays theirs');
  const report = JSON.parse(readFileSync(`${dir}/r.json`, 'utf8'));
  t.same(report.backgroundLoad, { hollowNodes: 2, source: 'started by the run', alreadyRunning: 1 });
  t.match(r.stdout, /^Background load: 2 hollow nodes, started by the run \(and 1 hollow node already running\)$/m);
  const nodes = (await (await fetch(`${ref.url}/api/v1/nodes`)).json()) as { items: Array<{ metadata: { name: string } }> };
  t.same(nodes.items.map((n) => n.metadata.name), ['hollow-0'], 'the run\'s hollow Nodes are gone after it, the operator\'s is not touched');
});

t.test('--background-nodes takes a whole number (run and list check it alike)', async (t) => {
  for (const n of [1.5, -1]) t.throws(() => cmdList({ parallel: 1, timeout: 30, backgroundNodes: n }), new UsageError('--background-nodes must be a whole number of hollow nodes, 0 or more'));
});
