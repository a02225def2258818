// Exec, attach and port forwarding through the reference agent's /exec, /attach and /portForward (the
// kubelet's paths), on a real agent with the mock CRI runtime and the reference API server (token
// authentication; the agent asks it TokenReview and SubjectAccessReview): real protocol clients, the agent
// proxying to the runtime's streaming server; an unauthorised caller refused; upstream's 400/404/500.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { httpsRequest } from './auth-fixtures.js';
import { until } from './helpers.js';
import { collect, spdyCommand, spdyConnect, startStreamingNode, wsCommand, wsConnect, type CommandResult, type Refusal } from '../helpers/streaming-clients.js';

const ADMIN = 'streaming-test-admin-token';
const NOBODY = 'streaming-test-nobody-token';

const done = (r: CommandResult | Refusal): CommandResult => {
  if ('refused' in r) throw new Error(`refused ${r.status}: ${r.body}`);
  return r;
};

t.test('exec, attach and port forwarding through the agent', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-stream-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { cri, agent, api, ca, as } = await startStreamingNode(t, dir, [{ token: ADMIN, user: 'admin', groups: ['system:masters'] }, { token: NOBODY, user: 'nobody', groups: [] }]);

  await api.create('/api/v1/namespaces/default/pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' },
    spec: {
      nodeName: 'n1', terminationGracePeriodSeconds: 1,
      containers: [
        { name: 'c', image: 'busybox:1.36', command: ['nc', '-l', '-p', '8080'] },
        { name: 'shell', image: 'busybox:1.36', command: ['sh'], stdin: true },
      ],
    },
  });
  const running = await until('pod web running', async () => {
    const p = await api.get('/api/v1/namespaces/default/pods/web');
    return p.status?.phase === 'Running' && p.status.containerStatuses?.every((s: any) => s.state?.running) ? p : undefined;
  }, 20_000);
  const uid = running.metadata.uid;

  t.test('exec over WebSocket v5 and SPDY v4: output, stdin, the exit code; the runtime got the right request', async (t) => {
    const ws = done(await wsCommand(as(ADMIN, '/exec/default/web/c?command=sh&command=-c&command=echo%20hi%3B%20exit%202&output=1&error=1'), 'v5.channel.k8s.io'));
    t.equal(ws.stdout, 'hi\n');
    t.match(JSON.parse(ws.error), { status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '2' }] } });
    const call = cri.control.calls.list({ rpc: 'Exec' }).at(-1)!;
    const cId = running.status.containerStatuses.find((s: any) => s.name === 'c').containerID.replace(/^[^:]+:\/\//, '');
    t.same(call.request, { container_id: cId, cmd: ['sh', '-c', 'echo hi; exit 2'], tty: false, stdin: false, stdout: true, stderr: true });

    const spdy = done(await spdyCommand(as(ADMIN, `/exec/default/web/${uid}/c?command=cat&input=1&output=1`), ['v4.channel.k8s.io'], { stdin: ['through the agent\n'], closeStdin: true }));
    t.equal(spdy.protocol, 'v4.channel.k8s.io');
    t.equal(spdy.stdout, 'through the agent\n');
    t.same(JSON.parse(spdy.error), { metadata: {}, status: 'Success' });

    const tty = done(await wsCommand(as(ADMIN, '/exec/default/web/c?command=echo&command=x&output=1&tty=1&error=1'), 'v4.channel.k8s.io'));
    t.equal(tty.stdout, 'x\r\n', 'tty=1 drops error=1 (upstream\'s NewOptions) and the terminal writes "\\r\\n"');
  });

  t.test('attach: stdin to the container, its output back', async (t) => {
    const s = await wsConnect(as(ADMIN, '/attach/default/web/shell?input=1&output=1&error=1'), ['v5.channel.k8s.io']);
    if ('refused' in s) throw new Error(`refused ${s.status}: ${s.body}`);
    t.equal(s.protocol, 'v5.channel.k8s.io');
    s.send(0, 'echo attached through the agent\n');
    const stdout = () => Buffer.concat(s.messages.filter((x) => x.ch === 1).map((x) => x.data)).toString();
    await s.until(() => stdout().includes('attached through the agent\n'), 'the echo');
    t.equal(stdout(), 'attached through the agent\n', 'the container\'s shell ran the line');
    s.ws.close();
  });

  t.test('port forwarding: SPDY and WebSocket to the echo responder; a port nobody listens on', async (t) => {
    const c = await spdyConnect(as(ADMIN, '/portForward/default/web'), ['portforward.k8s.io']);
    if ('refused' in c) throw new Error(`refused ${c.status}: ${c.body}`);
    await c.conn.openStream({ streamType: 'error', port: '8080', requestID: '0' });
    const data = await c.conn.openStream({ streamType: 'data', port: '8080', requestID: '0' });
    const echoed = new Promise<string>((resolve) => { data.ondata = (d) => resolve(d.toString()); });
    data.write(Buffer.from('ping'));
    t.equal(await echoed, 'ping');
    const err = await c.conn.openStream({ streamType: 'error', port: '9', requestID: '1' });
    const refused = collect(err);
    await c.conn.openStream({ streamType: 'data', port: '9', requestID: '1' });
    t.match(await refused, /^error forwarding port 9 to pod [0-9a-f]+, uid : failed to execute portforward in network namespace "[^"]+": failed to connect to localhost:9 inside namespace/);
    c.conn.destroy('done');

    const ws = await wsConnect(as(ADMIN, '/portForward/default/web?port=8080'), ['v4.channel.k8s.io']);
    if ('refused' in ws) throw new Error(`refused ${ws.status}: ${ws.body}`);
    await ws.until((m) => m.length >= 2, 'the port prefixes');
    ws.send(0, 'over websocket');
    await ws.until((m) => m.some((x) => x.ch === 0 && x.data.toString() === 'over websocket'), 'the echo');
    ws.ws.close();
  });

  t.test('an unauthorised caller is refused before anything reaches the runtime', async (t) => {
    const before = cri.control.calls.list({ rpc: 'Exec' }).length;
    const r = await wsCommand(as(NOBODY, '/exec/default/web/c?command=true&output=1'), 'v5.channel.k8s.io');
    t.match(r, { refused: true, status: 403, body: /^Forbidden \(user=nobody, verb=get, resource=nodes, subresource\(s\)=\[proxy\]\)/ });
    const s = await spdyConnect(as(NOBODY, '/portForward/default/web'), ['portforward.k8s.io']);
    t.match(s, { refused: true, status: 403, body: /verb=create, resource=nodes, subresource\(s\)=\[proxy\]/ });
    const anon = await wsCommand({ url: `${agent.url}/attach/default/web/shell?output=1`, tls: { ca } }, 'v5.channel.k8s.io');
    t.match(anon, { refused: true, status: 401, body: 'Unauthorized' }, 'no credentials: anonymous access is off by default');
    t.equal(cri.control.calls.list({ rpc: 'Exec' }).length, before);
  });

  t.test("upstream's 400, 404 and 500", async (t) => {
    const cases: Array<[string, number, RegExp]> = [
      ['/exec/default/web/c?command=true', 400, /^you must specify at least 1 of stdin, stdout, stderr$/],
      ['/exec/default/nope/c?command=true&output=1', 404, /^pod does not exist$/],
      ['/exec/default/web/not-a-uid/c?command=true&output=1', 404, /^pod not found$/],
      ['/exec/default/web/nope?command=true&output=1', 500, /^container not found \("nope"\)$/],
      ['/portForward/default/web?port=0', 400, /^port "0" must be > 0$/],
      ['/portForward/default/web', 400, /^query parameter "port" is required$/],
      ['/portForward/elsewhere/web?port=80', 404, /^pod does not exist$/],
    ];
    for (const [path, status, body] of cases) t.match(await wsCommand(as(ADMIN, path), 'v5.channel.k8s.io'), { refused: true, status, body }, path);
    const plain = await httpsRequest(`${agent.url}/exec/default/web/c?command=true&output=1`, { ca, method: 'POST', headers: { authorization: `Bearer ${ADMIN}` } });
    t.same([plain.status, plain.body], [400, 'Upgrade request required'], 'a request that does not upgrade');
  });
});
