// The node-agent targets of a run (spec 001): cases that need an agent, the mock CRI's control or
// agent-exec are skipped, naming the flag, when the run lacks them; the CLI checks those flags; and
// the embedded run starts a mock CRI and the reference agent, so agent cases run there.
import t from 'tap';
import { execaNode } from 'execa';
import { runCases } from '../runner/run.js';
import { runEmbedded } from '../runner/embedded.js';
import { defineCase } from '../suites/case.js';
import { agentCase } from '../suites/001-node-agent/agent-kit.js';
import { agentSyncLoopCases } from '../suites/001-node-agent/agent-1-sync-loop.js';
import { BIN } from './helpers/serve.js';

const cli = (args: string[]) => execaNode(BIN, args, { reject: false, timeout: 60_000 });

const probe = (kind: 'node' | 'read' | 'exec', id: string) => defineCase({
  ...agentCase('1', 'MUST', kind), id, title: id, requirements: ['001-1-cri-client'],
  async run() { throw new Error('must not run without its targets'); },
});

t.test('without --agent, --cri-control or --agent-exec, agent cases are skipped and say which flag is missing', async (t) => {
  const cases = [probe('node', 'x.node'), probe('read', 'x.read'), probe('exec', 'x.exec')];
  // Nothing is sent to this address: no namespaced case runs, so no namespace is created.
  const report = await runCases({ cases, conn: { baseUrl: 'http://127.0.0.1:9' }, embedded: false, gates: {}, version: 'test' });
  t.same(report.cases.map((c) => c.status), ['skipped', 'skipped', 'skipped']);
  t.match(report.cases[0]!.message, /--agent <url> and --node <name>.*--cri-control <path>/);
  t.match(report.cases[1]!.message, /--agent <url> and --node <name>/);
  t.notMatch(report.cases[1]!.message, /--cri-control/);
  t.match(report.cases[2]!.message, /--agent-exec '<command>'/);
  t.equal(report.summary.skipped, 3);
});

t.test('the embedded run starts a mock CRI and the reference agent: agent cases run and pass', async (t) => {
  const report = await runEmbedded(agentSyncLoopCases.slice(0, 1), { version: 'test', timeoutMs: 30_000 });
  t.equal(report.cases[0]!.status, 'passed', report.cases[0]!.message);
  t.match(report.target, { embedded: true, agent: { url: /^https:\/\/127\.0\.0\.1:\d+$/, node: /^oc-.*-node$/ }, criControl: /control\.sock$/, agentExec: /orch-conformance\.js agent$/ });
  t.same(report.leaks, []);
});

t.test('CLI: node-agent flags need --api, go in pairs and name real sockets; list shows impacts and what a case needs', async (t) => {
  let r = await cli(['run', '--agent', 'https://127.0.0.1:10250', '--node', 'n1']);
  t.equal(r.exitCode, 2);
  t.match(r.stderr, /--agent, --node need --api/);
  r = await cli(['run', '--api', 'http://127.0.0.1:9', '--agent', 'https://127.0.0.1:10250']);
  t.equal(r.exitCode, 2);
  t.match(r.stderr, /--agent and --node go together/);
  r = await cli(['run', '--api', 'http://127.0.0.1:9', '--agent', '127.0.0.1:10250', '--node', 'n1']);
  t.equal(r.exitCode, 2);
  t.match(r.stderr, /--agent 127\.0\.0\.1:10250: not an http\(s\) URL/);
  r = await cli(['run', '--api', 'http://127.0.0.1:9', '--cri-control', '/nonexistent/control.sock']);
  t.equal(r.exitCode, 2);
  t.match(r.stderr, /--cri-control \/nonexistent\/control\.sock: no such socket/);
  r = await cli(['list', '--focus', '^agent\\.sync\\.pod-runs-through-cri$']);
  t.equal(r.exitCode, 0, r.stderr);
  t.match(r.stdout, /agent\.sync\.pod-runs-through-cri\n\s+MUST 001 §1  node  .*needs: --agent --node --cri-control/);
});
