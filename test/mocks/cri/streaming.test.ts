// The mock CRI runtime's streaming server: Exec, Attach and PortForward answer URLs of it, and a client
// speaks exec/attach (WebSocket v4/v5, SPDY v4 and older) and port forwarding (SPDY, WebSocket) there.
import t, { type Test } from 'tap';
import * as grpc from '@grpc/grpc-js';
import type { CriClient } from '../../../cri/proto.js';
import { failure, startCri, waitState } from './helpers.js';
import { collect, spdyCommand, spdyConnect, wsCommand, wsConnect, type CommandResult, type Refusal } from '../../helpers/streaming-clients.js';
import { commandPorts, netnsPath } from '../../../mocks/cri/streaming/portforward.js';

async function pod(c: CriClient, name: string, ports: number[] = []): Promise<string> {
  const port_mappings = ports.map((p) => ({ protocol: 'TCP', container_port: p, host_port: 0, host_ip: '' }));
  return (await c.call('RunPodSandbox', { config: { metadata: { name, uid: `uid-${name}`, namespace: 'team', attempt: 0 }, port_mappings } })).pod_sandbox_id;
}

async function container(c: CriClient, sb: string, name: string, command: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const id = (await c.call('CreateContainer', { pod_sandbox_id: sb, config: { metadata: { name }, image: { image: 'busybox' }, command, ...extra } })).container_id;
  await c.call('StartContainer', { container_id: id });
  return id;
}

async function setup(t: Test, opts = {}) {
  const { c, m } = await startCri(t, opts);
  const sb = await pod(c, 'streams', [8080]);
  const id = await container(c, sb, 'main', ['sleep', 'infinity']);
  const exec = async (cmd: string[], o: { stdin?: boolean; stdout?: boolean; stderr?: boolean; tty?: boolean } = {}) =>
    (await c.call('Exec', { container_id: id, cmd, stdin: !!o.stdin, stdout: o.stdout ?? true, stderr: !!o.stderr, tty: !!o.tty })).url as string;
  return { c, m, sb, id, exec };
}

const done = (r: CommandResult | Refusal): CommandResult => {
  if ('refused' in r) throw new Error(`refused ${r.status}: ${r.body}`);
  return r;
};
const SUCCESS = { metadata: {}, status: 'Success' };

t.test('Exec answers a URL of the streaming server on 127.0.0.1 with a random token', async (t) => {
  const { exec, m } = await setup(t);
  const a = await exec(['true']);
  const b = await exec(['true']);
  t.match(a, new RegExp(`^${m.streamingUrl}/exec/[A-Za-z0-9_-]{8}$`));
  t.match(m.streamingUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.not(a, b, 'every request has its own token');
});

t.test('exec over WebSocket v5: stdout, stderr, and a non-zero exit as upstream encodes it', async (t) => {
  const { exec } = await setup(t);
  const r = done(await wsCommand({ url: await exec(['sh', '-c', 'echo out; echo err >&2; exit 3'], { stderr: true }) }, 'v5.channel.k8s.io'));
  t.equal(r.protocol, 'v5.channel.k8s.io');
  t.equal(r.firstChannel, 1, 'the first message is the empty one on stdout that announces the connection');
  t.equal(r.stdout, 'out\n');
  t.equal(r.stderr, 'err\n');
  t.same(JSON.parse(r.error), {
    metadata: {}, status: 'Failure',
    message: 'command terminated with non-zero exit code: error executing command [sh -c echo out; echo err >&2; exit 3], exit code 3',
    reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '3' }] },
  });
  t.equal(r.error, '{"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: error executing command [sh -c echo out; echo err >&2; exit 3], exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}', 'Go\'s field order');
});

t.test('exec over WebSocket v4: Success on the error channel; stdin read by cat and by a bare sh', async (t) => {
  const { exec } = await setup(t);
  const ok = done(await wsCommand({ url: await exec(['echo', 'hi']) }, 'v4.channel.k8s.io'));
  t.equal(ok.protocol, 'v4.channel.k8s.io');
  t.equal(ok.stdout, 'hi\n');
  t.same(JSON.parse(ok.error), SUCCESS);

  // v4 has no way to close stdin: the command ends by itself (`exit`).
  const sh = done(await wsCommand({ url: await exec(['sh'], { stdin: true }) }, 'v4.channel.k8s.io', { stdin: ['echo one\n', 'echo two; exit 4\n', 'echo never\n'] }));
  t.equal(sh.stdout, 'one\ntwo\n', 'each line runs as it comes; exit ends the shell');
  t.equal(JSON.parse(sh.error).details.causes[0].message, '4');

  // v5 closes stdin (255, 0): cat copies it to stdout and ends at EOF.
  const cat = done(await wsCommand({ url: await exec(['cat'], { stdin: true }) }, 'v5.channel.k8s.io', { stdin: ['abc\n', 'déf'], closeStdin: true }));
  t.equal(cat.stdout, 'abc\ndéf');
  t.same(JSON.parse(cat.error), SUCCESS);
});

t.test('exec with a TTY: one output stream, "\\n" as "\\r\\n", input echoed, ^D ends a shell, resize accepted', async (t) => {
  const { exec } = await setup(t);
  const url = await exec(['sh'], { stdin: true, tty: true });
  const r = done(await wsCommand({ url }, 'v5.channel.k8s.io', { resize: { Width: 80, Height: 24 }, stdin: ['echo hi >&2\r', '\x04'] }));
  t.equal(r.stdout, 'echo hi >&2\r\nhi\r\n', 'the echo of the typed line, then stderr merged into the terminal');
  t.equal(r.stderr, '');
  t.same(JSON.parse(r.error), SUCCESS);
  const c = done(await wsCommand({ url: await exec(['sh', '-c', 'sleep 10'], { stdin: true, tty: true }) }, 'v5.channel.k8s.io', { stdin: ['\x03'] }));
  t.equal(JSON.parse(c.error).details.causes[0].message, '130', '^C interrupts: 128 + SIGINT');
});

t.test('exec over SPDY/3.1: protocol negotiation, streams by streamType, v4 status and older text errors', async (t) => {
  const { exec } = await setup(t);
  const r = done(await spdyCommand({ url: await exec(['cat'], { stdin: true, stderr: true }) }, ['v5.channel.k8s.io', 'v4.channel.k8s.io', 'v3.channel.k8s.io'],
    { stdin: ['from spdy\n'], closeStdin: true, stderr: true }));
  t.equal(r.protocol, 'v4.channel.k8s.io', "the client's first protocol the server knows");
  t.equal(r.stdout, 'from spdy\n');
  t.same(JSON.parse(r.error), SUCCESS);

  const fail = done(await spdyCommand({ url: await exec(['sh', '-c', 'exit 7']) }, ['v4.channel.k8s.io']));
  t.equal(JSON.parse(fail.error).reason, 'NonZeroExitCode');
  t.equal(JSON.parse(fail.error).details.causes[0].message, '7');

  // v3: no Status on success, the error's text on failure.
  const v3ok = done(await spdyCommand({ url: await exec(['echo', 'x']) }, ['v3.channel.k8s.io']));
  t.same([v3ok.protocol, v3ok.stdout, v3ok.error], ['v3.channel.k8s.io', 'x\n', '']);
  const v3fail = done(await spdyCommand({ url: await exec(['false']) }, ['v3.channel.k8s.io']));
  t.equal(v3fail.error, 'command terminated with non-zero exit code: error executing command [false], exit code 1');

  const unknown = done(await spdyCommand({ url: await exec(['nosuchprogram']) }, ['v4.channel.k8s.io']));
  t.match(JSON.parse(unknown.error), { status: 'Failure', reason: 'InternalError', code: 500, message: /^Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "[0-9a-f]+": OCI runtime exec failed: .*executable file not found in \$PATH: unknown$/ });

  const refused = await spdyConnect({ url: await exec(['true']) }, ['v9.channel.k8s.io']);
  t.match(refused, { refused: true, status: 403, body: /unable to negotiate protocol: client supports \[v9.channel.k8s.io\], server accepts \[v4.channel.k8s.io v3.channel.k8s.io v2.channel.k8s.io channel.k8s.io\]/ });
});

t.test('attach: the container output from now on, and stdin to a container created with stdin', async (t) => {
  const { c, sb } = await setup(t);
  const ticker = await container(c, sb, 'ticker', ['sh', '-c', 'while true; do echo tick; sleep 0.02; done']);
  const s = await wsConnect({ url: (await c.call('Attach', { container_id: ticker, stdout: true, stderr: true, stdin: false, tty: false })).url }, ['v5.channel.k8s.io']);
  if ('refused' in s) throw new Error(s.body);
  await s.until((m) => Buffer.concat(m.filter((x) => x.ch === 1).map((x) => x.data)).toString().includes('tick\ntick\n'), 'two ticks');
  s.ws.close();

  const shell = await container(c, sb, 'shell', ['sh'], { stdin: true, stdin_once: true });
  const url = (await c.call('Attach', { container_id: shell, stdout: true, stderr: true, stdin: true, tty: false })).url;
  const r = done(await spdyCommand({ url }, ['v4.channel.k8s.io'], { stdin: ['echo attached\n', 'echo to-stderr >&2\n', 'exit 5\n'], stderr: true }));
  t.equal(r.stdout, 'attached\n');
  t.equal(r.stderr, 'to-stderr\n');
  t.same(JSON.parse(r.error), SUCCESS, 'the attach ends with Success when the container exits');
  t.match(await waitState(c, shell, 'CONTAINER_EXITED'), { exit_code: 5 });
});

t.test('port forwarding: the echo responder over SPDY and WebSocket, and a port nobody listens on', async (t) => {
  const { c, sb } = await setup(t);
  await container(c, sb, 'listener', ['nc', '-l', '-p', '7000']);
  const url = async (port: number[]) => (await c.call('PortForward', { pod_sandbox_id: sb, port })).url as string;

  const spdy = await spdyConnect({ url: await url([]) }, ['portforward.k8s.io']);
  if ('refused' in spdy) throw new Error(spdy.body);
  t.equal(spdy.protocol, 'portforward.k8s.io');
  const pair = async (port: number, requestID: string) => {
    const error = await spdy.conn.openStream({ streamType: 'error', port: String(port), requestID });
    const data = await spdy.conn.openStream({ streamType: 'data', port: String(port), requestID });
    return { error, data, errorText: collect(error) };
  };
  const a = await pair(8080, '0');
  const echoed = new Promise<string>((resolve) => { a.data.ondata = (d) => resolve(d.toString()); });
  a.data.write(Buffer.from('ping 8080'));
  t.equal(await echoed, 'ping 8080', 'a port_mappings port answers');
  const b = await pair(7000, '1');
  const echoed2 = new Promise<string>((resolve) => { b.data.ondata = (d) => resolve(d.toString()); });
  b.data.write(Buffer.from('ping 7000'));
  t.equal(await echoed2, 'ping 7000', 'a port named by `nc -l -p` answers');
  const none = await pair(9999, '2');
  // containerd names the sandbox's network namespace; the mock's is a made-up CNI path (no host network here).
  const ns = netnsPath({ id: sb, config: {} } as Parameters<typeof netnsPath>[0]);
  t.match(ns, /^\/var\/run\/netns\/cni-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  t.equal(await none.errorText, `error forwarding port 9999 to pod ${sb}, uid : failed to execute portforward in network namespace "${ns}": failed to connect to localhost:9999 inside namespace "${sb}", IPv4: dial tcp4 127.0.0.1:9999: connect: connection refused IPv6 dial tcp6 [::1]:9999: connect: connection refused `);
  spdy.conn.destroy('done');

  const ws = await wsConnect({ url: await url([8080, 9999]) }, ['v4.channel.k8s.io']);
  if ('refused' in ws) throw new Error(ws.body);
  await ws.until((m) => m.length >= 5, 'port prefixes and the refusal');
  t.same(ws.messages.slice(0, 4).map((m) => [m.ch, m.data.readUInt16LE(0)]), [[0, 8080], [1, 8080], [2, 9999], [3, 9999]], 'each channel starts with its port, little-endian');
  t.match(ws.messages[4], { ch: 3 });
  t.match(ws.messages[4].data.toString(), /^error forwarding port 9999 to pod /);
  ws.send(0, 'over websocket');
  await ws.until((m) => m.some((x) => x.ch === 0 && x.data.toString() === 'over websocket'), 'the echo');
  ws.ws.close();
});

t.test('the port convention reads nc and listen out of a command', async (t) => {
  t.same(commandPorts(['nc', '-l', '-p', '80']), [80]);
  t.same(commandPorts(['sh', '-c', 'nc -lp 81 && echo']), [81]);
  t.same(commandPorts(['netcat', '-l', '-v', '-p82']), [82]);
  t.same(commandPorts(['listen', '83']), [83]);
  t.same(commandPorts(['nc', 'host', '80']), [], 'a client, not a listener');
  t.same(commandPorts(['nc', '-p', '84']), [], 'no -l: not listening');
});

t.test('tokens are single-use and expire; unknown tokens and plain requests are refused', async (t) => {
  const { exec, m } = await setup(t, { streaming: { tokenTtlMs: 100 } });
  const url = await exec(['true']);
  done(await wsCommand({ url }, 'v5.channel.k8s.io'));
  t.match(await wsCommand({ url }, 'v5.channel.k8s.io'), { refused: true, status: 404, body: '404 page not found\n' }, 'used once');
  const old = await exec(['true']);
  await new Promise((r) => setTimeout(r, 250));
  t.match(await wsCommand({ url: old }, 'v5.channel.k8s.io'), { refused: true, status: 404 }, 'expired');
  t.match(await wsCommand({ url: `${m.streamingUrl}/exec/AAAAAAAA` }, 'v5.channel.k8s.io'), { refused: true, status: 404 });
  // Refusals of a live token, on a runtime whose tokens outlive a loaded machine's pauses (a 100 ms
  // token expired between Exec and the request once in CI, answering 404 for an expired token).
  const lasting = await setup(t);
  const plain = await fetch(await lasting.exec(['true']));
  t.equal(plain.status, 400, 'a request without an upgrade');
  t.match(await wsCommand({ url: await lasting.exec(['true']) }, 'v3.channel.k8s.io'), { refused: true, status: 400 }, 'WebSocket protocols older than v4 are not served');
});

t.test('bad requests are refused with the gRPC status upstream uses; calls are logged and faultable', async (t) => {
  const { c, m, sb, id } = await setup(t);
  const req = { container_id: id, cmd: ['true'], stdin: false, stdout: true, stderr: false, tty: false };
  t.match(await failure(c.call('Exec', { ...req, tty: true, stderr: true })), { code: grpc.status.INVALID_ARGUMENT, details: 'tty and stderr cannot both be true' });
  t.match(await failure(c.call('Exec', { ...req, stdout: false })), { code: grpc.status.INVALID_ARGUMENT, details: 'one of stdin, stdout, or stderr must be set' });
  t.match(await failure(c.call('Attach', { container_id: id, stdin: false, stdout: false, stderr: false, tty: false })), { code: grpc.status.INVALID_ARGUMENT, details: 'one of stdin, stdout, and stderr must be set' });
  t.match(await failure(c.call('Exec', { ...req, container_id: 'nope' })), { code: grpc.status.NOT_FOUND, details: 'failed to find container "nope" in store: not found' });
  const short = await container(c, sb, 'short', ['true']);
  await waitState(c, short, 'CONTAINER_EXITED');
  t.match(await failure(c.call('Exec', { ...req, container_id: short })), { code: grpc.status.UNKNOWN, details: 'container is in CONTAINER_EXITED state' });
  t.match(await failure(c.call('Attach', { container_id: short, stdin: false, stdout: true, stderr: false, tty: false })), { code: grpc.status.UNKNOWN, details: 'container is in CONTAINER_EXITED state' });
  t.match(await failure(c.call('PortForward', { pod_sandbox_id: 'nope', port: [80] })), { code: grpc.status.NOT_FOUND });
  // containerd's id index refuses an empty id before the streaming server's own check.
  t.match(await failure(c.call('PortForward', { pod_sandbox_id: '', port: [80] })), { code: grpc.status.UNKNOWN, details: 'failed to find sandbox "": Prefix can\'t be empty' });
  t.match(await failure(c.call('Exec', { ...req, container_id: '' })), { code: grpc.status.UNKNOWN, details: 'failed to find container "" in store: Prefix can\'t be empty' });
  await c.call('StopPodSandbox', { pod_sandbox_id: sb });
  t.match(await failure(c.call('PortForward', { pod_sandbox_id: sb, port: [80] })), { code: grpc.status.UNKNOWN, details: 'sandbox container is not running' });

  t.ok(m.control.calls.list({ rpc: 'Exec' }).length >= 4, 'Exec calls are in the call log');
  m.control.faults.add({ rpc: 'PortForward', code: grpc.status.UNAVAILABLE, message: 'injected', times: 1 });
  t.match(await failure(c.call('PortForward', { pod_sandbox_id: sb, port: [80] })), { code: grpc.status.UNAVAILABLE, details: 'injected' });
});

t.test('an idle connection is closed; a client that does not read is cut off', async (t) => {
  const { exec } = await setup(t, { streaming: { idleTimeoutMs: 200, maxQueuedBytes: 256 * 1024 } });
  const idle = await wsConnect({ url: await exec(['sleep', '30']) }, ['v5.channel.k8s.io']);
  if ('refused' in idle) throw new Error(idle.body);
  const started = Date.now();
  await idle.closed;
  t.ok(Date.now() - started < 5000, 'closed after the idle timeout');

  const flood = await wsConnect({ url: await exec(['sh', '-c', `while true; do echo ${'x'.repeat(4000)}; done`]) }, ['v5.channel.k8s.io']);
  if ('refused' in flood) throw new Error(flood.body);
  // Paused, the client reads nothing: the server's queue passes its bound and it drops the connection, which
  // the client sees once it reads again: the end without a close frame (1006) and without a status.
  flood.ws.pause();
  await new Promise((r) => setTimeout(r, 2000));
  const code = new Promise<number>((resolve) => flood.ws.on('close', (c: number) => resolve(c)));
  flood.ws.resume();
  t.equal(await code, 1006, 'the server cut the connection');
  t.notOk(flood.messages.some((m) => m.ch === 3), 'no status: the command did not end, its client was cut off');
});
