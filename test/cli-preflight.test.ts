// A bad set-up is not a verdict: credentials the target rejects, missing rights, a URL without a
// scheme and an unwritable report path are each one clear message and exit 2, before any case runs.
import t from 'tap';
import { execaNode } from 'execa';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BIN } from './helpers/serve.js';
import { startReference } from '../reference/server.js';

const cli = (args: string[], opts: Record<string, unknown> = {}) => execaNode(BIN, args, { reject: false, timeout: 120_000, ...opts });
const tmp = () => mkdtempSync(join(tmpdir(), 'oc-preflight-'));
const NAMESPACED = '^api\\.metadata\\.namespace\\.from-path$';
const READ_ONLY = '^api\\.discovery\\.version$';

t.test('credentials: 401 and 403 are exit 2 before any case, naming what to pass or grant', async (t) => {
  const ref = await startReference({
    host: '127.0.0.1', port: 0,
    auth: {
      tokens: [{ token: 'admin-token', user: 'admin', groups: ['system:masters'] }, { token: 'weak-token', user: 'weak', groups: [] }],
      authorizationMode: 'RBAC',
    },
  });
  t.teardown(() => ref.close());
  const dir = tmp();

  const wrong = await cli(['run', '--api', ref.url, '--token', 'not-a-token', '--focus', NAMESPACED, '--reporter', `json=${dir}/wrong.json`]);
  t.equal(wrong.exitCode, 2, wrong.stderr);
  t.match(wrong.stderr, /the target rejected the credentials: pass --token or --kubeconfig .*401 Unauthorized on GET \/api; sent a bearer token/);
  t.notOk(existsSync(`${dir}/wrong.json`), 'no report: no case ran');

  // Without credentials, anonymous may read /version but not discover the API (upstream's roles).
  const anonymous = await cli(['run', '--api', ref.url, '--focus', NAMESPACED]);
  t.equal(anonymous.exitCode, 2, anonymous.stderr);
  t.match(anonymous.stderr, /denied API discovery, GET \/api \(403 Forbidden.*`get \/api` for anonymous requests \(no credentials were given: pass --token or --kubeconfig\)/);

  // Authenticated, may discover, may not create namespaces.
  const weak = await cli(['run', '--api', ref.url, '--token', 'weak-token', '--focus', NAMESPACED, '--reporter', `json=${dir}/weak.json`]);
  t.equal(weak.exitCode, 2, weak.stderr);
  t.match(weak.stderr, /the target denied creating the run's namespace oc-\w+ \(403 Forbidden.*needs permission to `create namespaces` for the user of these credentials/);
  t.notOk(existsSync(`${dir}/weak.json`), 'no report: no case ran');
  t.notMatch(weak.stderr, /\n\s+at /, 'no stack trace');

  // The same rights are enough for a read-only selection: no namespace is needed.
  const readOnly = await cli(['run', '--api', ref.url, '--token', 'weak-token', '--focus', READ_ONLY]);
  t.equal(readOnly.exitCode, 0, readOnly.stderr);

  // The right token, from a file, runs.
  writeFileSync(`${dir}/token`, 'admin-token\n');
  const good = await cli(['run', '--api', ref.url, '--token-file', `${dir}/token`, '--focus', NAMESPACED, '--reporter', `json=${dir}/good.json`]);
  t.equal(good.exitCode, 0, good.stderr);
  t.equal(JSON.parse(readFileSync(`${dir}/good.json`, 'utf8')).summary.passed, 1);
});

t.test('usage errors: no scheme, token options without a target, bad token files', async (t) => {
  const dir = tmp();
  writeFileSync(`${dir}/empty`, '\n');
  for (const [args, msg] of [
    [['run', '--api', '127.0.0.1:6443'], /--api 127\.0\.0\.1:6443: not an http\(s\) URL; give the scheme, e\.g\. https:\/\/127\.0\.0\.1:6443/],
    [['run', '--api', 'ftp://127.0.0.1:6443'], /the scheme must be http or https/],
    [['run', '--token', 'x'], /--token describes a target: give it with --api or --kubeconfig/],
    [['run', '--api', 'http://127.0.0.1:1', '--token', 'x', '--token-file', `${dir}/empty`], /--token and --token-file: give one of them/],
    [['run', '--api', 'http://127.0.0.1:1', '--token-file', `${dir}/empty`], /--token-file .*empty: the file is empty/],
    [['run', '--api', 'http://127.0.0.1:1', '--token-file', `${dir}/nope`], /--token-file .*nope: cannot read it \(ENOENT\)/],
    [['run', '--api', 'http://127.0.0.1:1', '--max-response-bytes', '10'], /--max-response-bytes must be a whole number of bytes, at least 1024/],
  ] as const) {
    const r = await cli([...args]);
    t.equal(r.exitCode, 2, `${args.join(' ')} exits 2`);
    t.match(r.stderr, msg, `${args.join(' ')} says why`);
    t.notMatch(r.stderr, /\n\s+at /, 'no stack trace');
  }
});

t.test('report paths are checked before the first request to the target', async (t) => {
  let requests = 0;
  const srv = createServer((_q, s) => { requests++; s.setHeader('content-type', 'application/json'); s.end('{}'); });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.teardown(() => srv.close());
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  const dir = tmp();
  writeFileSync(`${dir}/a-file`, '');
  for (const [spec, msg] of [
    [`json=${dir}/a-file/r.json`, /cannot write .*a-file\/r\.json \(ENOTDIR\)/],
    [`junit=${dir}`, /is a directory; give a file name/],
  ] as const) {
    const r = await cli(['run', '--api', url, '--reporter', 'console', '--reporter', spec]);
    t.equal(r.exitCode, 2, `${spec}: exit 2\n${r.stderr}`);
    t.match(r.stderr, msg);
  }
  const twice = await cli(['run', '--api', url, '--reporter', `json=${dir}/r.json`, '--reporter', `tap=${dir}/r.json`]);
  t.equal(twice.exitCode, 2);
  t.match(twice.stderr, /is also the path of --reporter json=/);
  t.equal(requests, 0, 'nothing was sent to the target');
  // A path in a directory that does not exist yet is fine (created as the reporter would).
  const ok = await cli(['run', '--api', url, '--focus', '^api\\.discovery\\.version$', '--reporter', `json=${dir}/new/sub/r.json`]);
  t.not(ok.exitCode, 2, ok.stderr);
  t.equal(JSON.parse(readFileSync(`${dir}/new/sub/r.json`, 'utf8')).summary.total, 1, 'the report was written there');
});

t.test('list takes every option run takes and answers bad ones as run does', async (t) => {
  const dir = tmp();
  writeFileSync(`${dir}/token`, 'secret\n');
  writeFileSync(`${dir}/expect.yaml`, 'api.discovery.version: known\n');
  const r = await cli(['list', '--json', '--api', 'https://127.0.0.1:1', '--token-file', `${dir}/token`, '--insecure-skip-tls-verify', '--parallel', '3', '--timeout', '5',
    '--strict', '--run-id', 'abc', '--reporter', 'console', '--reporter', `junit=${dir}/j.xml`, '--expect', `${dir}/expect.yaml`, '--max-response-bytes', '2048',
    '--continue-ttl', '5m', '--metrics', 'agent=http://127.0.0.1:2', '--focus', '^api\\.discovery\\.']);
  t.equal(r.exitCode, 0, r.stderr);
  t.ok(JSON.parse(r.stdout).length >= 5);
  t.notOk(existsSync(`${dir}/j.xml`), 'list writes no report');
  for (const [args, msg] of [
    [['list', '--api', '127.0.0.1:6443'], /give the scheme/],
    [['list', '--focus', '('], /--focus: not a valid regular expression/],
    [['list', '--reporter', 'pdf'], /unknown reporter/],
    [['list', '--parallel', '0'], /--parallel/],
    [['list', '--kubeconfig', `${dir}/nope`], /--kubeconfig .*nope: cannot read it/],
    [['list', '--continue-ttl', '5m'], /--continue-ttl describes a target given with --api/],
  ] as const) {
    const bad = await cli([...args]);
    t.equal(bad.exitCode, 2, `${args.join(' ')} exits 2`);
    t.match(bad.stderr, msg);
    t.notMatch(bad.stderr, /\n\s+at /, 'no stack trace');
  }
});
