// Container logs end to end (issue 24 part 2): the agent's /containerLogs/{ns}/{pod}/{container} read
// from the CRI log files the mock runtime writes, and the API server's pods/log reaching it with its
// agent-client certificate; the options (tailLines, limitBytes, sinceTime, sinceSeconds, timestamps,
// previous, follow), upstream's refusals, a follow that ends when the client goes away or the container
// stops; the real kubectl (logs, --tail, --timestamps, --previous, -f) against the same set-up; configz
// podLogsDir naming where the files are. One process set: the reference, the mock CRI and an agent.
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startReference } from '../../reference/server.js';
import { startMockCri } from '../../mocks/cri/server.js';
import { startAgent } from '../../reference/agent/agent.js';
import { DEFAULT_AUTH_SETTINGS } from '../../reference/agent/auth/settings.js';
import { ApiClient } from '../../reference/client/api-client.js';
import { loadAgentConfig } from '../../reference/agent/config/merge.js';
import { kubectlAgainst } from '../helpers/kubectl.js';
import { until } from './helpers.js';
import { activeLogStreams } from '../../reference/agent/logs/container-logs.js';

const ADMIN = 'logs-test-admin';
const BOB = 'logs-test-bob';
/** The reference's CA (it serves HTTPS: kubectl sends tokens only over TLS). */
let CA = '';

interface Res { status: number; headers: IncomingMessage['headers']; text: string; body: any }

function get(base: string, path: string, token = ADMIN): Promise<Res> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, ca: CA, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => { text += c.toString(); });
      res.on('end', () => {
        let body: any;
        try { body = JSON.parse(text); } catch { body = undefined; }
        resolve({ status: res.statusCode!, headers: res.headers, text, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** A follow: the lines as they come, `stop()` to go away, `ended` when the server ends the stream. */
function follow(base: string, path: string) {
  const u = new URL(base);
  let text = '';
  let stop!: () => void;
  const ended = new Promise<{ status: number; byServer: boolean }>((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, ca: CA, headers: { authorization: `Bearer ${ADMIN}` } }, (res) => {
      res.on('data', (c: Buffer) => { text += c.toString(); });
      res.on('end', () => resolve({ status: res.statusCode!, byServer: true }));
      res.on('aborted', () => resolve({ status: res.statusCode!, byServer: false }));
      res.on('error', () => resolve({ status: res.statusCode!, byServer: false }));
    });
    stop = () => req.destroy();
    req.on('error', (err) => (err.message === 'socket hang up' ? resolve({ status: 0, byServer: false }) : reject(err)));
    req.end();
  });
  return { text: () => text, stop: () => stop(), ended };
}

t.test('container logs through the agent and pods/log', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-logs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const ref = await startReference({
    port: 0, nodeProxyAllowLoopback: true, tls: 'self-signed',
    auth: { tokens: [{ token: ADMIN, user: 'admin', groups: ['system:masters'] }, { token: BOB, user: 'bob', groups: [] }], authorizationMode: 'RBAC' },
  });
  t.teardown(() => ref.close());
  CA = ref.caPem!;
  const cri = await startMockCri({ socket: join(dir, 'cri', 'cri.sock'), root: join(dir, 'cri-state') });
  t.teardown(() => cri.close());
  const clientCaFile = join(dir, 'agent-client-ca.crt');
  writeFileSync(clientCaFile, ref.agentClientCaPem!);
  const rootDir = join(dir, 'root');
  const agent = await startAgent({
    api: { url: ref.url, token: ADMIN, caPem: CA }, criEndpoint: cri.criUrl, nodeName: 'n1', nodeIP: '127.0.0.1', rootDir, relistPeriodMs: 200,
    backoffBaseMs: 200, backoffMaxMs: 400,
    serve: { address: '127.0.0.1', port: 0 }, auth: { ...DEFAULT_AUTH_SETTINGS, clientCaFile }, log: () => undefined,
  });
  t.teardown(() => agent.close());
  const api = new ApiClient({ url: ref.url, token: ADMIN, caPem: CA });
  t.teardown(() => api.close());

  const pod = (name: string, spec: Record<string, unknown>) => api.create('/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { terminationGracePeriodSeconds: 0, ...spec } });
  const sh = (script: string) => ({ name: 'c', image: 'busybox:1.36', command: ['sh', '-c', script] });
  await pod('three', { nodeName: 'n1', containers: [sh('echo one; echo two; echo three >&2; sleep 3600')] });
  await pod('ticker', { nodeName: 'n1', containers: [sh('i=0; while true; do i=$((i+1)); echo tick $i; sleep 0.1; done')] });
  await pod('crash', { nodeName: 'n1', containers: [sh('echo run; exit 1')] });
  await pod('two', { nodeName: 'n1', containers: [{ ...sh('sleep 3600'), name: 'a' }, { ...sh('sleep 3600'), name: 'b' }] });
  // Held back from scheduling: it stays on no node.
  await pod('nowhere', { schedulingGates: [{ name: 'held' }], containers: [sh('echo x')] });
  const logs = (p: string, q = '') => get(ref.url, `/api/v1/namespaces/default/pods/${p}/log${q}`);
  await until('three has written its lines', async () => { const r = await logs('three'); return r.status === 200 && r.text.endsWith('three\n') ? true : undefined; }, 20_000);

  t.test('the whole log, stdout and stderr in order; the agent itself answers the same', async (t) => {
    const r = await logs('three');
    t.equal(r.status, 200);
    t.match(r.headers['content-type'], /^text\/plain/);
    t.equal(r.text, 'one\ntwo\nthree\n');
    const viaProxy = await get(ref.url, '/api/v1/nodes/n1/proxy/containerLogs/default/three/c');
    t.equal(viaProxy.text, 'one\ntwo\nthree\n', 'the node proxy path containerLogs reaches the same');
  });

  t.test('tailLines, limitBytes, timestamps, sinceTime, sinceSeconds', async (t) => {
    t.equal((await logs('three', '?tailLines=2')).text, 'two\nthree\n');
    t.equal((await logs('three', '?tailLines=0')).text, '');
    t.equal((await logs('three', '?limitBytes=6')).text, 'one\ntw');
    const stamped = (await logs('three', '?timestamps=true')).text.split('\n').filter(Boolean);
    t.equal(stamped.length, 3);
    for (const l of stamped) t.match(l, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}(Z|[+-]\d\d:\d\d) (one|two|three)$/, 'RFC3339 with nine fraction digits, a space, the line');
    t.equal((await logs('three', `?sinceTime=${new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z')}`)).text, '', 'nothing after a future sinceTime');
    t.equal((await logs('three', '?sinceTime=2000-01-01T00:00:00Z')).text, 'one\ntwo\nthree\n');
    t.equal((await logs('three', '?sinceSeconds=3600')).text, 'one\ntwo\nthree\n');
  });

  t.test('upstream\'s refusals', async (t) => {
    const neg = await logs('three', '?tailLines=-1');
    t.same([neg.status, neg.body?.reason, neg.body?.details?.kind], [422, 'Invalid', 'PodLogOptions'], neg.text);
    t.match(neg.body?.message, /tailLines: Invalid value: -1: must be greater than or equal to 0/);
    const both = await logs('three', '?sinceSeconds=1&sinceTime=2000-01-01T00:00:00Z');
    t.equal(both.status, 422);
    t.equal((await logs('three', '?limitBytes=0')).status, 422);
    t.equal((await logs('three', '?tailLines=x')).status, 400, 'an undecodable query');
    const choose = await logs('two');
    t.same([choose.status, choose.body?.message], [400, 'a container name must be specified for pod two, choose one of: [a b]']);
    const wrong = await logs('three', '?container=zz');
    t.same([wrong.status, wrong.body?.message], [400, 'container zz is not valid for pod three']);
    t.equal((await logs('missing')).status, 404);
    t.equal((await logs('nowhere')).status, 204, 'a pod on no node: nothing yet');
    const prev = await logs('three', '?previous=true');
    t.same([prev.status, prev.body?.message], [400, 'previous terminated container "c" in pod "three" not found'], 'the agent\'s refusal as a BadRequest Status');
    const direct = await get(ref.url, '/api/v1/nodes/n1/proxy/containerLogs/default/three/zz');
    t.same([direct.status, direct.text.trim()], [404, 'container "zz" not found in pod "three"']);
    const bob = await get(ref.url, '/api/v1/namespaces/default/pods/three/log', BOB);
    t.equal(bob.status, 403, 'get on pods/log is authorized');
    const disc = await get(ref.url, '/api/v1');
    t.same(disc.body.resources.find((r: any) => r.name === 'pods/log'), { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] }, 'discovery lists pods/log');
  });

  t.test('previous: the instance before a restart', async (t) => {
    await until('crash restarted', async () => ((await api.get('/api/v1/namespaces/default/pods/crash')).status?.containerStatuses?.[0]?.lastState?.terminated ? true : undefined), 20_000);
    const r = await logs('crash', '?previous=true');
    t.same([r.status, r.text], [200, 'run\n'], r.text);
  });

  t.test('follow: lines as they come; the stream ends when the client goes away', async (t) => {
    const f = follow(ref.url, '/api/v1/namespaces/default/pods/ticker/log?follow=true&tailLines=1');
    const before = await until('two new ticks', () => (f.text().split('\n').filter(Boolean).length >= 3 ? f.text() : undefined), 10_000);
    const ticks = before.split('\n').filter(Boolean).map((l) => Number(l.replace('tick ', '')));
    t.ok(ticks.every((n, i) => i === 0 || n === ticks[i - 1]! + 1), `consecutive ticks: ${ticks.join(',')}`);
    f.stop();
    t.same((await f.ended).byServer, false);
    // The agent's side of that follow is gone too: its stream ended and closed the file.
    await until('the agent dropped the follower', () => (activeLogStreams() === 0 ? true : undefined), 5_000);
  });

  t.test('follow ends when the container stops', async (t) => {
    await pod('short', { nodeName: 'n1', restartPolicy: 'Never', containers: [sh('echo a; sleep 2; echo b')] });
    await until('short running', async () => ((await api.get('/api/v1/namespaces/default/pods/short')).status?.containerStatuses?.[0]?.state?.running ? true : undefined), 10_000);
    const f = follow(ref.url, '/api/v1/namespaces/default/pods/short/log?follow=true');
    let timer: any;
    const end = await Promise.race([f.ended, new Promise<undefined>((r) => { timer = setTimeout(r, 15_000); })]);
    clearTimeout(timer);
    t.ok(end?.byServer, 'the server ended the stream');
    t.equal(f.text(), 'a\nb\n');
  });

  t.test('configz podLogsDir names where the files are', async (t) => {
    const cfg = loadAgentConfig({ flags: { containerRuntimeEndpoint: cri.criUrl, rootDir } });
    t.equal(cfg.podLogsDir, join(rootDir, 'pods'));
    const three = await api.get('/api/v1/namespaces/default/pods/three');
    t.ok(existsSync(join(cfg.podLogsDir, `default_three_${three.metadata.uid}`, 'c', '0.log')), 'the log file is under podLogsDir');
    t.equal(loadAgentConfig({ flags: { containerRuntimeEndpoint: cri.criUrl, rootDir, podLogsDir: '/srv/logs' } as any }).podLogsDir, '/srv/logs', 'a podLogsDir given wins');
    t.throws(() => loadAgentConfig({ flags: { containerRuntimeEndpoint: cri.criUrl, podLogsDir: 'relative' } as any }), /must be absolute path/);
  });

  t.test('metrics/probes through the node proxy', async (t) => {
    const r = await get(ref.url, '/api/v1/nodes/n1/proxy/metrics/probes');
    t.same([r.status, r.text], [200, ''], 'no probes run, no series');
    t.match(r.headers['content-type'], /^text\/plain; version=0\.0\.4/);
  });

  t.test('the real kubectl: logs, --tail, --timestamps, --previous, -f', async (t) => {
    const { kubectl } = kubectlAgainst(t, ref.url, { caPem: CA });
    const k = (...a: string[]) => kubectl('--token', ADMIN, ...a);
    const all = await k('logs', 'three');
    t.same([all.exitCode, all.stdout], [0, 'one\ntwo\nthree'], all.stderr);
    t.equal((await k('logs', 'three', '--tail', '1')).stdout, 'three');
    t.match((await k('logs', 'three', '--timestamps')).stdout, /^\S+ one\n\S+ two\n\S+ three$/);
    t.equal((await k('logs', 'crash', '--previous')).stdout, 'run');
    const bad = await k('logs', 'two');
    t.match(bad.stderr, /Defaulted container "a" out of: a, b|a container name must be specified/);
    const f = await k('logs', '-f', 'short');
    t.same([f.exitCode, f.stdout], [0, 'a\nb'], 'kubectl logs -f ends when the container does');
    // -f on a running container: lines as they come, until kubectl is stopped; the agent's stream then ends.
    const live = k('logs', '-f', '--tail', '1', 'ticker');
    let out = '';
    let timer: any;
    const three = await Promise.race([
      new Promise<boolean>((resolve) => live.stdout!.on('data', (c: Buffer) => { out += c.toString(); if (out.split('\n').filter(Boolean).length >= 3) resolve(true); })),
      new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), 10_000); }),
    ]);
    clearTimeout(timer);
    live.kill();
    await live;
    t.ok(three, `kubectl logs -f printed new lines as they came: ${JSON.stringify(out)}`);
    t.match(out, /^tick \d+\ntick \d+\ntick \d+/);
    await until('the agent dropped kubectl\'s follow', () => (activeLogStreams() === 0 ? true : undefined), 5_000);
  });
});
