// Issue 23 §3: the controller manager's and the scheduler's endpoints are authenticated (TokenReview)
// and authorized (SubjectAccessReview on the non-resource path) by the API server, as upstream's
// components do, leaving health open. Checked on the real processes: `serve --token-auth-file
// --authorization-mode RBAC` with its in-process companions, and the `controller-manager` and
// `scheduler` commands pointed at it with tokens of their own; then the filter's caching, its
// always-allowed group and its failure answers against a fake API client.
import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch } from 'undici';
import { componentRequestAuth } from '../reference/components/request-auth.js';
import { SUBJECT_ACCESS_REVIEWS_PATH, TOKEN_REVIEWS_PATH } from '../reference/auth-delegation/reviews.js';
import { startComponent, startServe } from './helpers/serve.js';


const TOKENS = {
  admin: 'admin-secret',
  nobody: 'nobody-secret',
  monitor: 'monitor-secret',
  cm: 'cm-secret',
  sched: 'sched-secret',
};
/** What the runner and Prometheus read on a companion. */
const READ_PATHS = ['/metrics', '/metrics/slis', '/configz', '/statusz', '/flagz'];

t.test('the companions of serve (RBAC) and the controller-manager and scheduler commands check their callers', async (t) => {
  const t0 = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'oc-companion-auth-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const csv = join(dir, 'tokens.csv');
  writeFileSync(csv, [
    `${TOKENS.admin},admin,1,"system:masters"`,
    `${TOKENS.nobody},nobody,2`,
    `${TOKENS.monitor},monitor,3`,
    // The standalone companions' identities: the groups the built-in companion roles are bound to.
    `${TOKENS.cm},cm,4,"system:orch-controller-manager"`,
    `${TOKENS.sched},sched,5,"system:orch-scheduler"`,
    '',
  ].join('\n'), { mode: 0o600 });
  const serve = await startServe(t, ['--token-auth-file', csv, '--authorization-mode', 'RBAC']);
  if (!serve.ca) throw new Error('serve printed no ca: line');
  const caPem = readFileSync(serve.ca, 'utf8');
  const dispatcher = new Agent({ connect: { ca: caPem } });
  t.teardown(() => dispatcher.close());
  for (const [name, token] of [['cm', TOKENS.cm], ['sched', TOKENS.sched]] as const) writeFileSync(join(dir, name), token, { mode: 0o600 });
  const common = ['--api', serve.url, '--ca', serve.ca];
  // No controllers: the companion's endpoints are what is checked, and serve runs the controllers.
  const [cm, sched] = await Promise.all([
    startComponent(t, 'controller-manager', [...common, '--token-file', join(dir, 'cm'), '--controllers', '']),
    startComponent(t, 'scheduler', [...common, '--token-file', join(dir, 'sched')]),
  ]);
  // The commands serve with certificates of their own making (no CA printed): not verified here.
  const insecure = new Agent({ connect: { rejectUnauthorized: false } });
  t.teardown(() => insecure.close());
  const companions: Record<string, { base: string; dispatcher: Agent }> = {
    'serve controller-manager': { base: serve.components!['controller-manager']!, dispatcher },
    'serve scheduler': { base: serve.components!['scheduler']!, dispatcher },
    'controller-manager command': { base: cm, dispatcher: insecure },
    'scheduler command': { base: sched, dispatcher: insecure },
  };
  t.comment(`started in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const get = async (c: { base: string; dispatcher: Agent }, path: string, token?: string, method = 'GET') => {
    const res = await fetch(`${c.base}${path}`, { method, dispatcher: c.dispatcher, headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
  };
  // The right to read them, given as an operator gives it: a ClusterRole of non-resource URLs bound to the user.
  const admin = (path: string, obj: unknown) => fetch(`${serve.url}${path}`, { method: 'POST', dispatcher, headers: { authorization: `Bearer ${TOKENS.admin}`, 'content-type': 'application/json' }, body: JSON.stringify(obj) }).then((r) => r.status);
  t.equal(await admin('/apis/rbac.authorization.orch.io/v1/clusterroles', {
    apiVersion: 'rbac.authorization.orch.io/v1', kind: 'ClusterRole', metadata: { name: 'component-reader' },
    rules: [{ verbs: ['get'], nonResourceURLs: READ_PATHS }],
  }), 201, 'ClusterRole component-reader created');
  t.equal(await admin('/apis/rbac.authorization.orch.io/v1/clusterrolebindings', {
    apiVersion: 'rbac.authorization.orch.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'component-reader' },
    roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'component-reader' },
    subjects: [{ apiGroup: 'rbac.authorization.orch.io', kind: 'User', name: 'monitor' }],
  }), 201, 'bound to user monitor');

  for (const [name, c] of Object.entries(companions)) {
    t.test(name, async (t) => {
      for (const path of READ_PATHS) {
        const anonymous = await get(c, path);
        t.equal(anonymous.status, 403, `${path} anonymous: 403`);
        t.match(JSON.parse(anonymous.body), { kind: 'Status', reason: 'Forbidden', code: 403, message: `forbidden: User "system:anonymous" cannot get path "${path}"` }, `${path} anonymous: upstream's Forbidden Status`);
        const bad = await get(c, path, 'not-a-token');
        t.equal(bad.status, 401, `${path} unknown token: 401`);
        t.match(JSON.parse(bad.body), { kind: 'Status', reason: 'Unauthorized', code: 401 });
        const nobody = await get(c, path, TOKENS.nobody);
        t.equal(nobody.status, 403, `${path} user without the right: 403`);
        t.match(nobody.body, `User \\"nobody\\" cannot get path \\"${path}\\"`);
        t.equal((await get(c, path, TOKENS.monitor)).status, 200, `${path} user bound to a role with get on it: 200`);
        t.equal((await get(c, path, TOKENS.admin)).status, 200, `${path} system:masters: 200`);
      }
      const metrics = await get(c, '/metrics', TOKENS.monitor);
      t.match(metrics.body, /^orch_build_info\{/m, 'the allowed /metrics is the exposition');
      // The verb is the method: a right to `get` is not a right to `post`.
      t.equal((await get(c, '/metrics', TOKENS.monitor, 'POST')).status, 403, 'POST /metrics with get only: 403');
      for (const path of ['/healthz', '/livez', '/readyz', '/readyz/ping', '/healthz/log']) {
        t.equal((await get(c, path)).status, 200, `${path} anonymous: open`);
        t.equal((await get(c, path, 'not-a-token')).status, 200, `${path} with an unknown token: open (not authenticated)`);
      }
      // /version: authorized like any path; the built-in system:public-info-viewer grants it to everyone.
      t.equal((await get(c, '/version')).status, 200, '/version anonymous: allowed by system:public-info-viewer');
      t.equal((await get(c, '/version', 'not-a-token')).status, 401, '/version with an unknown token: 401');
    });
  }
});

/** A request as the filter sees it. */
const request = (token?: string, method = 'GET') => ({ method, headers: token ? { authorization: `Bearer ${token}` } : {}, socket: {} }) as unknown as IncomingMessage;

t.test('the filter: answers cached for 10 s, system:masters not reviewed, failures to ask', async (t) => {
  let now = 1_000_000;
  const asked: string[] = [];
  let fail = false;
  const users: Record<string, { username: string; groups: string[] }> = { a: { username: 'alice', groups: [] }, m: { username: 'root', groups: ['system:masters'] } };
  const api = {
    async create(path: string, obj: any): Promise<any> {
      asked.push(path === TOKEN_REVIEWS_PATH ? `token ${obj.spec.token}` : `access ${obj.spec.user} ${obj.spec.nonResourceAttributes.verb} ${obj.spec.nonResourceAttributes.path}`);
      if (fail) throw new Error('connect ECONNREFUSED');
      if (path === TOKEN_REVIEWS_PATH) {
        const u = users[obj.spec.token];
        return { status: u ? { authenticated: true, user: u } : { authenticated: false, error: 'invalid bearer token' } };
      }
      t.equal(path, SUBJECT_ACCESS_REVIEWS_PATH);
      t.notOk(obj.spec.resourceAttributes, 'a non-resource review');
      return { status: { allowed: obj.spec.user === 'alice' && obj.spec.nonResourceAttributes.path === '/metrics' } };
    },
  };
  const logs: string[] = [];
  const auth = componentRequestAuth({ api, now: () => now, log: (m) => logs.push(m) });

  t.equal(await auth.check(request('a'), '/metrics'), undefined, 'alice may get /metrics');
  t.equal(await auth.check(request('a'), '/metrics'), undefined, 'again');
  t.same(asked, ['token a', 'access alice get /metrics'], 'the second request is answered from the caches');
  const denied = await auth.check(request('a'), '/configz');
  t.equal(denied?.status, 403);
  t.equal(denied?.contentType, 'application/json');
  t.match(JSON.parse(denied!.body), { reason: 'Forbidden', message: 'forbidden: User "alice" cannot get path "/configz"' });
  t.equal(asked.length, 3, 'one review more for the other path');
  now += 10_001;
  await auth.check(request('a'), '/metrics');
  t.same(asked.slice(3), ['token a', 'access alice get /metrics'], 'asked again after 10 s');

  asked.length = 0;
  t.equal(await auth.check(request('m'), '/configz'), undefined, 'system:masters may');
  t.same(asked, ['token m'], 'authenticated, not reviewed (--authorization-always-allow-groups)');
  t.equal((await auth.check(request('zzz'), '/metrics'))?.status, 401, 'a rejected token: 401');
  t.equal(await auth.check(request(), '/readyz/informer-sync'), undefined, 'health: open');
  t.equal(asked.filter((a) => a.includes('readyz')).length, 0, 'health is not reviewed');

  fail = true;
  t.equal((await auth.check(request('new'), '/metrics'))?.status, 401, 'TokenReview not answered: 401');
  const error = await auth.check(request(), '/statusz');
  t.equal(error?.status, 500, 'SubjectAccessReview not answered: 500');
  t.match(error?.body, /^Internal Server Error: "\/statusz": connect ECONNREFUSED/);
  t.ok(logs.some((l) => /authorization error \(user=system:anonymous, verb=get, path=\/statusz\)/.test(l)), 'and logged');
  fail = false;
  t.equal((await auth.check(request(), '/statusz'))?.status, 403, 'failures are not cached: asked again, denied');
});
