// ExecSync built-ins and timeouts, the command convention of simulated processes, and CRI-format log
// files (where they are written, their format, partial lines, reopening after rotation).
import t, { type Test } from 'tap';
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { CriClient } from '../../../cri/proto.js';
import { parseScript } from '../../../mocks/cri/process.js';
import { failure, startCri, waitState } from './helpers.js';

async function start(t: Test) {
  const s = await startCri(t);
  return { ...s, logs: join(s.dir, 'pods', 'ns_p_uid') };
}

/** A sandbox with a log directory, and a started container running `command`. */
async function running(c: CriClient, logs: string, name: string, command: string[], extra: object = {}): Promise<{ sb: string; id: string }> {
  const existing = (await c.call('ListPodSandbox', {})).items[0]?.id;
  const sb = existing ?? (await c.call('RunPodSandbox', { config: { metadata: { name: 'p', uid: 'uid', namespace: 'ns' }, hostname: 'web-0', log_directory: logs } })).pod_sandbox_id;
  const id = (await c.call('CreateContainer', {
    pod_sandbox_id: sb,
    config: { metadata: { name }, image: { image: 'busybox' }, command, log_path: `${name}/0.log`, envs: [{ key: 'GREETING', value: Buffer.from('hi there') }], ...extra },
  })).container_id;
  await c.call('StartContainer', { container_id: id });
  return { sb, id };
}

const CRI_LINE = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z) (stdout|stderr) (F|P) (.*)$/;

/** The complete records of a CRI log file (a record being written, without its newline yet, is left out). */
function parseLog(path: string): { time: string; stream: string; tag: string; text: string }[] {
  const text = readFileSync(path, 'utf8');
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  if (complete === '') return [];
  return complete.slice(0, -1).split('\n').map((line) => {
    const m = CRI_LINE.exec(line);
    if (!m) throw new Error(`not a CRI log line: ${JSON.stringify(line)}`);
    return { time: m[1], stream: m[2], tag: m[3], text: m[4] };
  });
}

t.test('ExecSync built-ins: echo, sh -c scripts, cat of files the container wrote, hostname, env, true/false', async (t) => {
  const { c, logs } = await start(t);
  const { id } = await running(c, logs, 'app', ['sh', '-c', 'echo ready > /tmp/state; echo "$GREETING" >> /tmp/state; sleep infinity']);
  const exec = async (cmd: string[], timeout = 0) => {
    const r = await c.call('ExecSync', { container_id: id, cmd, timeout });
    return { out: r.stdout.toString(), err: r.stderr.toString(), code: r.exit_code };
  };
  t.same(await exec(['echo', 'a', 'b']), { out: 'a b\n', err: '', code: 0 });
  t.same(await exec(['true']), { out: '', err: '', code: 0 });
  t.same(await exec(['false']), { out: '', err: '', code: 1 });
  t.same(await exec(['hostname']), { out: 'web-0\n', err: '', code: 0 });
  t.same(await exec(['cat', '/etc/hostname']), { out: 'web-0\n', err: '', code: 0 });
  // The container's script wrote a file; an exec reads it.
  t.same(await exec(['cat', '/tmp/state']), { out: 'ready\nhi there\n', err: '', code: 0 });
  t.same(await exec(['cat', '/nope']), { out: '', err: "cat: can't open '/nope': No such file or directory\n", code: 1 });
  t.same(await exec(['sh', '-c', 'echo out; echo err >&2; exit 7']), { out: 'out\n', err: 'err\n', code: 7 });
  t.same(await exec(['/bin/sh', '-c', 'false || echo fallback && echo chained']), { out: 'fallback\nchained\n', err: '', code: 0 });
  t.same(await exec(['sh', '-c', 'echo x > /tmp/f; cat /tmp/f; echo $GREETING; printenv GREETING']), { out: 'x\nhi there\nhi there\n', err: '', code: 0 });
  t.same(await exec(['sh', '-c', "echo '$GREETING' 2>/dev/null"]), { out: '$GREETING\n', err: '', code: 0 }, 'no expansion in single quotes');
  t.same(await exec(['sh', '-c', 'nosuchtool --flag']), { out: '', err: 'sh: nosuchtool: not found\n', code: 127 });
  t.same(await exec(['sh', '-c', 'echo "unterminated']), { out: '', err: 'sh: unterminated quoted string\n', code: 2 });
  t.match((await exec(['env'])).out, /^PATH=.*\nHOSTNAME=web-0\nGREETING=hi there\n$/);
  const sleepy = await exec(['sh', '-c', 'sleep 0.1; echo slept'], 5);
  t.same(sleepy, { out: 'slept\n', err: '', code: 0 }, 'a sleep within the timeout');

  const unknown = await failure(c.call('ExecSync', { container_id: id, cmd: ['nosuchtool'] }));
  t.equal(unknown.code, grpc.status.UNKNOWN, 'a missing executable fails the call, as in a runtime');
  t.match(unknown.details, /executable file not found in \$PATH/);
  t.equal((await failure(c.call('ExecSync', { container_id: id, cmd: [] }))).code, grpc.status.INVALID_ARGUMENT);
  const gone = await failure(c.call('ExecSync', { container_id: 'nope', cmd: ['true'] }));
  t.equal(gone.code, grpc.status.NOT_FOUND);
  t.equal(gone.details, 'failed to exec in container: failed to find container "nope": not found');
});

t.test('ExecSync timeout: a sleep longer than it is DEADLINE_EXCEEDED; exec in a stopped container fails', async (t) => {
  const { c, logs } = await start(t);
  const { id } = await running(c, logs, 'app', ['sleep', 'infinity']);
  const t0 = Date.now();
  const err = await failure(c.call('ExecSync', { container_id: id, cmd: ['sh', '-c', 'sleep 10'], timeout: 1 }));
  const took = Date.now() - t0;
  t.equal(err.code, grpc.status.DEADLINE_EXCEEDED);
  t.equal(err.details, 'failed to exec in container: timeout 1s exceeded: context deadline exceeded');
  t.ok(took >= 950 && took < 3000, `answered at the timeout (${took} ms)`);
  // The client's own deadline ends the exec too.
  t.equal((await failure(c.call('ExecSync', { container_id: id, cmd: ['sleep', '10'] }, { deadlineMs: 150 }))).code, grpc.status.DEADLINE_EXCEEDED);
  await c.call('StopContainer', { container_id: id, timeout: 0 });
  const stopped = await failure(c.call('ExecSync', { container_id: id, cmd: ['true'] }));
  t.equal(stopped.code, grpc.status.FAILED_PRECONDITION);
  t.match(stopped.details, /container is in CONTAINER_EXITED state/);
});

t.test('logs: written to log_directory/log_path in the CRI format, stdout and stderr, as they happen', async (t) => {
  const { c, logs } = await start(t);
  const { id } = await running(c, logs, 'app', ['sh', '-c', 'echo first line; echo "to stderr" >&2; echo -n partial; echo " joined"; exit 4']);
  const s = await waitState(c, id, 'CONTAINER_EXITED');
  t.equal(s.exit_code, 4);
  const path = join(logs, 'app', '0.log');
  t.equal(s.log_path, path, 'ContainerStatus.log_path is the joined path');
  t.ok(readFileSync(path, 'utf8').endsWith('\n'), 'every record ends with a newline, all written when the container shows EXITED');
  t.equal(statSync(path).mode & 0o777, 0o640, 'log file 0640, as containerd');
  const records = parseLog(path);
  t.same(records.map((r) => [r.stream, r.tag, r.text]), [
    ['stdout', 'F', 'first line'],
    ['stderr', 'F', 'to stderr'],
    ['stdout', 'F', 'partial joined'],
  ]);
  const times = records.map((r) => r.time);
  t.same([...times].sort(), times, 'in order');
  t.ok(Math.abs(Date.parse(times[0]) - Date.now()) < 60_000, 'wall-clock times');

  // A long-running loop writes as it goes.
  const { id: loop } = await running(c, logs, 'loop', ['sh', '-c', 'while true; do echo tick; sleep 0.02; done']);
  const loopLog = join(logs, 'loop', '0.log');
  const deadline = Date.now() + 3000;
  while ((!existsSync(loopLog) || parseLog(loopLog).length < 3) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  t.ok(parseLog(loopLog).length >= 3, 'ticks appear while it runs');
  t.ok(parseLog(loopLog).every((r) => r.text === 'tick'));
  await c.call('StopContainer', { container_id: loop, timeout: 5 });
  t.equal((await c.call('ContainerStatus', { container_id: loop })).status.exit_code, 143);
});

t.test('logs: a line longer than 16 KiB is split into P records ending with F', async (t) => {
  const { c, logs } = await start(t);
  const long = 'x'.repeat(40 * 1024);
  const { id } = await running(c, logs, 'long', ['sh', '-c', `echo ${long}`]);
  await waitState(c, id, 'CONTAINER_EXITED');
  const records = parseLog(join(logs, 'long', '0.log'));
  t.same(records.map((r) => r.tag), ['P', 'P', 'F']);
  t.equal(records.map((r) => r.text).join(''), long);
});

t.test('logs: no log file without a log directory; a log_path may not leave the directory', async (t) => {
  const { c, dir } = await start(t);
  const bare = (await c.call('RunPodSandbox', { config: { metadata: { name: 'bare', uid: 'u', namespace: 'ns' } } })).pod_sandbox_id;
  const id = (await c.call('CreateContainer', { pod_sandbox_id: bare, config: { metadata: { name: 'a' }, image: { image: 'busybox' }, command: ['echo', 'x'], log_path: 'a/0.log' } })).container_id;
  await c.call('StartContainer', { container_id: id });
  t.equal((await waitState(c, id, 'CONTAINER_EXITED')).log_path, '');

  const logs = join(dir, 'pods', 'escape');
  const sb = (await c.call('RunPodSandbox', { config: { metadata: { name: 'esc', uid: 'u', namespace: 'ns' }, log_directory: logs } })).pod_sandbox_id;
  for (const bad of ['../../outside.log', '/etc/passwd', 'a/../../b.log']) {
    const err = await failure(c.call('CreateContainer', { pod_sandbox_id: sb, config: { metadata: { name: `x${bad.length}` }, image: { image: 'busybox' }, log_path: bad } }));
    t.equal(err.code, grpc.status.INVALID_ARGUMENT, bad);
  }
  t.notOk(existsSync(join(dir, 'pods', 'outside.log')));
});

t.test('a log file that cannot be created fails StartContainer; the container is EXITED 128 StartError', async (t) => {
  const { c, dir } = await start(t);
  const file = join(dir, 'not-a-dir');
  writeFileSync(file, 'x');
  const sb = (await c.call('RunPodSandbox', { config: { metadata: { name: 'p', uid: 'u', namespace: 'ns' }, log_directory: file } })).pod_sandbox_id;
  const id = (await c.call('CreateContainer', { pod_sandbox_id: sb, config: { metadata: { name: 'a' }, image: { image: 'busybox' }, log_path: 'a/0.log' } })).container_id;
  const err = await failure(c.call('StartContainer', { container_id: id }));
  t.equal(err.code, grpc.status.UNKNOWN);
  t.match(err.details, /failed to create container loggers/);
  t.match((await c.call('ContainerStatus', { container_id: id })).status, { state: 'CONTAINER_EXITED', exit_code: 128, reason: 'StartError', message: /failed to create container loggers/ });
});

t.test('ReopenContainerLog: after the kubelet rotates the file, output goes to a new file at the path', async (t) => {
  const { c, logs } = await start(t);
  const { id } = await running(c, logs, 'rot', ['sh', '-c', 'echo before; sleep 0.3; echo after; sleep infinity']);
  const path = join(logs, 'rot', '0.log');
  const deadline = Date.now() + 3000;
  while ((!existsSync(path) || readFileSync(path, 'utf8') === '') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  renameSync(path, `${path}.1`);
  await c.call('ReopenContainerLog', { container_id: id });
  while ((!existsSync(path) || readFileSync(path, 'utf8') === '') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  t.same(parseLog(`${path}.1`).map((r) => r.text), ['before']);
  t.same(parseLog(path).map((r) => r.text), ['after']);
  await c.call('StopContainer', { container_id: id, timeout: 0 });
  const err = await failure(c.call('ReopenContainerLog', { container_id: id }));
  t.equal(err.code, grpc.status.FAILED_PRECONDITION, 'not for a stopped container (and no new file is made)');
  t.equal((await failure(c.call('ReopenContainerLog', { container_id: 'nope' }))).code, grpc.status.NOT_FOUND);
});

t.test('the command convention: what runs and for how long', async (t) => {
  const { c, logs } = await start(t);
  const cases: [string, string[], number | 'running'][] = [
    ['exit-at-once', ['sh', '-c', 'exit 3'], 3],
    ['echo', ['echo', 'hello'], 0],
    ['false', ['false'], 1],
    ['bash', ['/bin/bash', '-c', 'echo x && exit 9'], 9],
    ['script-end', ['sh', '-c', 'true; false'], 1],
    ['sleep', ['sleep', '0.05'], 0],
    ['shell-no-script', ['sh'], 0],
    ['server', ['/app/server', '--port', '8080'], 'running'],
    ['script-server', ['sh', '-c', 'echo starting; exec /app/server'], 'running'],
  ];
  const ids: [string, string, number | 'running'][] = [];
  for (const [name, command, want] of cases) ids.push([name, (await running(c, logs, name, command)).id, want]);
  for (const [name, id, want] of ids) {
    if (want === 'running') continue;
    t.equal((await waitState(c, id, 'CONTAINER_EXITED')).exit_code, want, name);
  }
  // Give the long-running ones a moment to prove they keep running.
  await new Promise((r) => setTimeout(r, 100));
  for (const [name, id, want] of ids) {
    if (want !== 'running') continue;
    t.equal((await c.call('ContainerStatus', { container_id: id })).status.state, 'CONTAINER_RUNNING', name);
  }
  // Empty command and args: a long-running program (the convention; the image's default is not run).
  const { id: dflt } = await running(c, logs, 'default', []);
  t.equal((await c.call('ContainerStatus', { container_id: dflt })).status.state, 'CONTAINER_RUNNING');
  t.same(parseLog(join(logs, 'script-server', '0.log')).map((r) => r.text), ['starting']);
});

t.test('the script parser refuses what it does not understand, instead of guessing', async (t) => {
  t.throws(() => parseScript('sleep 1 & wait'), /unsupported shell syntax "&"/);
  t.throws(() => parseScript('while true; do echo'), /expected "done"/);
  t.throws(() => parseScript('echo >'), /without a file/);
  t.throws(() => parseScript('echo $((1 + 2)'), /unterminated/);
  t.ok(parseScript('while :; do echo x; sleep 1; done'));
  t.ok(parseScript('echo a | grep a'), 'pipes are understood');
});
