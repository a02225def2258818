// The mock's streaming server and the agent's /exec, /attach, /portForward through an independent SPDY/3.1
// client: spdy-transport (test/helpers/spdy-transport-client.ts), whose framing, header compression and
// flow control share nothing with the mock's (mocks/cri/streaming/spdy.ts), which the other streaming tests
// use as their client. Its SYN_STREAMs also carry HTTP's `:method`, `:path`, `:version`, `:host` and
// `:scheme`, which the server must tolerate as the kubelet's does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { CriClient } from '../../../cri/proto.js';
import { startCri } from './helpers.js';
import { readAll, replied, spdyTransportCommand, spdyTransportConnect, type SpdyTransportSession } from '../../helpers/spdy-transport-client.js';
import { startStreamingNode, type CommandResult, type Refusal } from '../../helpers/streaming-clients.js';
import { until } from '../../agent/helpers.js';

const SUCCESS = { metadata: {}, status: 'Success' };

const done = (r: CommandResult | Refusal): CommandResult => {
  if ('refused' in r) throw new Error(`refused ${r.status}: ${r.body}`);
  return r;
};
const session = (r: SpdyTransportSession | Refusal): SpdyTransportSession => {
  if ('refused' in r) throw new Error(`refused ${r.status}: ${r.body}`);
  return r;
};

async function container(c: CriClient, sb: string, name: string, command: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const id = (await c.call('CreateContainer', { pod_sandbox_id: sb, config: { metadata: { name }, image: { image: 'busybox' }, command, ...extra } })).container_id;
  await c.call('StartContainer', { container_id: id });
  return id;
}

/** Reads a stream until what came so far satisfies `pred` (bounded). */
function readUntil(s: NodeJS.ReadableStream, pred: (text: string) => boolean, what: string, ms = 10_000): Promise<string> {
  let text = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms (got ${JSON.stringify(text)})`)), ms);
    s.on('data', (d: Buffer) => { text += d.toString(); if (pred(text)) { clearTimeout(timer); resolve(text); } });
  });
}

t.test('the mock streaming server through spdy-transport', async (t) => {
  const { c } = await startCri(t);
  const sb = (await c.call('RunPodSandbox', {
    config: { metadata: { name: 'indep', uid: 'uid-indep', namespace: 'team', attempt: 0 }, port_mappings: [{ protocol: 'TCP', container_port: 8080, host_port: 0, host_ip: '' }] },
  })).pod_sandbox_id;
  const id = await container(c, sb, 'main', ['sleep', 'infinity']);
  const exec = async (cmd: string[], o: { stdin?: boolean; stdout?: boolean; stderr?: boolean; tty?: boolean } = {}) =>
    (await c.call('Exec', { container_id: id, cmd, stdin: !!o.stdin, stdout: o.stdout ?? true, stderr: !!o.stderr, tty: !!o.tty })).url as string;

  t.test('exec: stdout, stderr and a non-zero exit as a v1 Status', async (t) => {
    const r = done(await spdyTransportCommand({ url: await exec(['sh', '-c', 'echo out; echo err >&2; exit 3'], { stderr: true }) }, ['v4.channel.k8s.io'], { stderr: true }));
    t.equal(r.protocol, 'v4.channel.k8s.io');
    t.equal(r.stdout, 'out\n');
    t.equal(r.stderr, 'err\n');
    t.same(JSON.parse(r.error), {
      metadata: {}, status: 'Failure',
      message: 'command terminated with non-zero exit code: error executing command [sh -c echo out; echo err >&2; exit 3], exit code 3',
      reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '3' }] },
    });
  });

  t.test('exec: exit 0 is Success on the error stream', async (t) => {
    const r = done(await spdyTransportCommand({ url: await exec(['echo', 'hi']) }, ['v4.channel.k8s.io']));
    t.equal(r.stdout, 'hi\n');
    t.same(JSON.parse(r.error), SUCCESS);
  });

  t.test('exec: stdin to cat, its FIN is EOF; 200 KiB of output through spdy-transport\'s receive window', async (t) => {
    const small = done(await spdyTransportCommand({ url: await exec(['cat'], { stdin: true }) }, ['v4.channel.k8s.io'], { stdin: ['abc\n', 'déf'], closeStdin: true }));
    t.equal(small.stdout, 'abc\ndéf');
    t.same(JSON.parse(small.error), SUCCESS);
    // Uploads stay under 64 KiB: spdy-transport sends no more before a WINDOW_UPDATE, which neither
    // upstream's spdystream nor the mock sends (see the helper). Downloads are not limited that way.
    const upload = `${'u'.repeat(1023)}\n`.repeat(60);
    const echoed = done(await spdyTransportCommand({ url: await exec(['cat'], { stdin: true }) }, ['v4.channel.k8s.io'], { stdin: [upload], closeStdin: true }));
    t.equal(echoed.stdout, upload, '60 KiB through cat');
    const text = 'x'.repeat(200 * 1024);
    const big = done(await spdyTransportCommand({ url: await exec(['echo', text]) }, ['v4.channel.k8s.io']));
    t.equal(big.stdout, `${text}\n`, '200 KiB of output');
    t.same(JSON.parse(big.error), SUCCESS);
  });

  t.test('exec: v3 writes the error text and nothing on success; a TTY writes "\\r\\n"', async (t) => {
    const ok = done(await spdyTransportCommand({ url: await exec(['echo', 'x']) }, ['v3.channel.k8s.io']));
    t.same([ok.protocol, ok.stdout, ok.error], ['v3.channel.k8s.io', 'x\n', '']);
    const fail = done(await spdyTransportCommand({ url: await exec(['false']) }, ['v3.channel.k8s.io']));
    t.equal(fail.error, 'command terminated with non-zero exit code: error executing command [false], exit code 1');
    const tty = done(await spdyTransportCommand({ url: await exec(['echo', 'y'], { tty: true }) }, ['v4.channel.k8s.io'], { tty: true }));
    t.equal(tty.stdout, 'y\r\n');
    t.same(JSON.parse(tty.error), SUCCESS);
  });

  t.test('attach: a line to a container\'s sh, its output back', async (t) => {
    const shell = await container(c, sb, 'shell', ['sh'], { stdin: true });
    const url = (await c.call('Attach', { container_id: shell, stdin: true, stdout: true, stderr: true, tty: false })).url as string;
    const s = session(await spdyTransportConnect({ url }, ['v4.channel.k8s.io']));
    t.teardown(() => s.close());
    const error = s.open({ streamType: 'error' });
    const stdin = s.open({ streamType: 'stdin' });
    const stdout = s.open({ streamType: 'stdout' });
    s.open({ streamType: 'stderr' });
    await replied(error);
    const seen = readUntil(stdout, (x) => x.includes('attached\n'), 'the echo');
    stdin.write('echo attached\n');
    t.equal(await seen, 'attached\n');
    t.same(s.errors, []);
  });

  t.test('port forwarding: data and error streams paired by requestID', async (t) => {
    const url = (await c.call('PortForward', { pod_sandbox_id: sb, port: [] })).url as string;
    const s = session(await spdyTransportConnect({ url }, ['portforward.k8s.io']));
    t.teardown(() => s.close());
    t.equal(s.protocol, 'portforward.k8s.io');
    s.open({ streamType: 'error', port: '8080', requestID: '0' });
    const data = s.open({ streamType: 'data', port: '8080', requestID: '0' });
    await replied(data);
    const echoed = readUntil(data, (x) => x === 'ping', 'the echo');
    data.write('ping');
    t.equal(await echoed, 'ping');
    const err = s.open({ streamType: 'error', port: '9999', requestID: '1' });
    const refused = readAll(err);
    s.open({ streamType: 'data', port: '9999', requestID: '1' });
    t.match(await refused, new RegExp(`^error forwarding port 9999 to pod ${sb}, uid : failed to execute portforward in network namespace "/var/run/netns/cni-[0-9a-f-]{36}": failed to connect to localhost:9999 inside namespace "${sb}", IPv4: dial tcp4 127\\.0\\.0\\.1:9999: connect: connection refused `));
  });
});

t.test('the agent\'s /exec through spdy-transport', async (t) => {
  const ADMIN = 'independent-test-admin-token';
  const dir = mkdtempSync(join(tmpdir(), 'agent-indep-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const node = await startStreamingNode(t, dir, [{ token: ADMIN, user: 'admin', groups: ['system:masters'] }]);
  const { api } = node;
  const as = (path: string) => node.as(ADMIN, path);
  await api.create('/api/v1/namespaces/default/pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' },
    spec: { nodeName: 'n1', terminationGracePeriodSeconds: 1, containers: [{ name: 'c', image: 'busybox:1.36', command: ['sleep', 'infinity'] }] },
  });
  await until('pod web running', async () => {
    const p = await api.get('/api/v1/namespaces/default/pods/web');
    return p.status?.phase === 'Running' ? p : undefined;
  }, 20_000);

  const fail = done(await spdyTransportCommand(as('/exec/default/web/c?command=sh&command=-c&command=echo%20hi%3B%20exit%202&output=1&error=1'), ['v4.channel.k8s.io'], { stderr: true }));
  t.equal(fail.protocol, 'v4.channel.k8s.io');
  t.equal(fail.stdout, 'hi\n');
  t.match(JSON.parse(fail.error), { status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '2' }] } });
  const cat = done(await spdyTransportCommand(as('/exec/default/web/c?command=cat&input=1&output=1'), ['v4.channel.k8s.io'], { stdin: ['through the agent\n'], closeStdin: true }));
  t.equal(cat.stdout, 'through the agent\n');
  t.same(JSON.parse(cat.error), SUCCESS);
});
