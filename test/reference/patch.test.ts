// PATCH with JSON patch and JSON merge patch, on the main resource and on /status.
import t from 'tap';
import { mergePatch } from '../../reference/apiserver/patch.js';
import { SC, call, sc, startTestServer, widgets } from './helpers.js';

const MERGE = { 'content-type': 'application/merge-patch+json' };
const JSONP = { 'content-type': 'application/json-patch+json' };

t.test('RFC 7386 merge semantics', async (t) => {
  t.same(mergePatch({ a: 1, b: { c: 2, d: 3 } }, { b: { c: null, e: 4 }, f: [1] }), { a: 1, b: { d: 3, e: 4 }, f: [1] });
  t.same(mergePatch({ a: [1, 2] }, { a: [3] }), { a: [3] }, 'lists replace');
  t.same(mergePatch({ a: 1 }, 'x'), 'x', 'a non-object patch replaces');
});

t.test('merge patch and JSON patch on a StorageClass', async (t) => {
  const srv = await startTestServer(t);
  const u = srv.url;
  const created = await call(u, 'POST', SC, sc('p1', { mountOptions: ['ro'], metadata: { name: 'p1', labels: { a: 'b' } } }));
  t.equal(created.status, 201);

  const merged = await call(u, 'PATCH', `${SC}/p1`, { allowVolumeExpansion: true, metadata: { labels: { a: null, c: 'd' } } }, MERGE);
  t.equal(merged.status, 200);
  t.equal(merged.body.allowVolumeExpansion, true);
  t.same(merged.body.metadata.labels, { c: 'd' });
  t.not(merged.body.metadata.resourceVersion, created.body.metadata.resourceVersion);

  const jp = await call(u, 'PATCH', `${SC}/p1`, [{ op: 'test', path: '/allowVolumeExpansion', value: true }, { op: 'add', path: '/mountOptions/-', value: 'noatime' }], JSONP);
  t.equal(jp.status, 200);
  t.same(jp.body.mountOptions, ['ro', 'noatime']);

  const failedTest = await call(u, 'PATCH', `${SC}/p1`, [{ op: 'test', path: '/allowVolumeExpansion', value: false }, { op: 'remove', path: '/mountOptions' }], JSONP);
  t.equal(failedTest.status, 422);
  t.equal(failedTest.body.reason, 'Invalid');
  t.same((await call(u, 'GET', `${SC}/p1`)).body.mountOptions, ['ro', 'noatime'], 'a failed test op changes nothing');

  const immutable = await call(u, 'PATCH', `${SC}/p1`, { provisioner: 'other.orch.io/x' }, MERGE);
  t.equal(immutable.status, 422, 'update validation applies to patches');

  const stale = await call(u, 'PATCH', `${SC}/p1`, { metadata: { resourceVersion: created.body.metadata.resourceVersion }, mountOptions: [] }, MERGE);
  t.equal(stale.status, 409, 'a patch that pins an old resourceVersion conflicts');

  for (const [what, body, headers, code] of [
    ['not JSON', '{', MERGE, 400],
    ['merge patch that is not an object', '[1]', MERGE, 400],
    ['JSON patch that is not a list', '{}', JSONP, 400],
    ['JSON patch with a bad op', '[{"op":"frob","path":"/a"}]', JSONP, 400],
    ['patch changing kind', '{"kind":"Namespace"}', MERGE, 400],
  ] as const) {
    const r = await call(u, 'PATCH', `${SC}/p1`, body, headers);
    t.equal(r.status, code, `${what}: ${code}`);
    t.equal(r.body?.kind, 'Status', `${what}: a Status body`);
  }
  const force = await call(u, 'PATCH', `${SC}/p1?force=true`, {}, MERGE);
  t.equal(force.status, 422);
  t.equal(force.body.message, 'PatchOptions.meta.orch.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  t.equal((await call(u, 'PATCH', `${SC}/missing`, {}, MERGE)).status, 404);
});

t.test('patch on /status changes only status; on the main resource only the rest', async (t) => {
  const srv = await startTestServer(t);
  const u = srv.url;
  const base = widgets('default');
  t.equal((await call(u, 'POST', base, { metadata: { name: 'w' }, spec: { size: 1 } })).status, 201);
  const st = await call(u, 'PATCH', `${base}/w/status`, { spec: { size: 9 }, status: { phase: 'Ready' } }, MERGE);
  t.equal(st.status, 200);
  t.same(st.body.status, { phase: 'Ready' });
  t.equal(st.body.spec.size, 1, 'spec changes through /status are ignored');
  const main = await call(u, 'PATCH', `${base}/w`, { spec: { size: 2 }, status: { phase: 'Broken' } }, MERGE);
  t.equal(main.body.spec.size, 2);
  t.same(main.body.status, { phase: 'Ready' }, 'status changes through the main resource are ignored');
});

t.test('a JSON patch that sets metadata.resourceVersion is a precondition, as in merge patches', async (t) => {
  const srv = await startTestServer(t);
  const u = srv.url;
  const created = await call(u, 'POST', SC, sc('rv1', { mountOptions: [] }));
  t.equal(created.status, 201);
  const rv0 = created.body.metadata.resourceVersion;
  const bump = await call(u, 'PATCH', `${SC}/rv1`, [{ op: 'add', path: '/mountOptions/-', value: 'a' }], JSONP);
  t.equal(bump.status, 200);
  const stale = await call(u, 'PATCH', `${SC}/rv1`, [{ op: 'replace', path: '/metadata/resourceVersion', value: rv0 }, { op: 'add', path: '/mountOptions/-', value: 'lost' }], JSONP);
  t.equal(stale.status, 409, 'a stale resourceVersion conflicts');
  t.equal(stale.body.reason, 'Conflict');
  const current = bump.body.metadata.resourceVersion;
  const fresh = await call(u, 'PATCH', `${SC}/rv1`, [{ op: 'replace', path: '/metadata/resourceVersion', value: current }, { op: 'add', path: '/mountOptions/-', value: 'b' }], JSONP);
  t.equal(fresh.status, 200, 'the current resourceVersion applies');
  t.same(fresh.body.mountOptions, ['a', 'b']);

  // 20 clients doing read-modify-write with JSON patches (each pins what it read, retries on 409):
  // every update lands.
  const clients = 20;
  await Promise.all(Array.from({ length: clients }, async (_, i) => {
    for (;;) {
      const read = await call(u, 'GET', `${SC}/rv1`);
      const res = await call(u, 'PATCH', `${SC}/rv1`, [
        { op: 'replace', path: '/metadata/resourceVersion', value: read.body.metadata.resourceVersion },
        { op: 'replace', path: '/mountOptions', value: [...read.body.mountOptions, `c${i}`] },
      ], JSONP);
      if (res.status === 200) return;
      t.equal(res.status, 409, `client ${i}: only conflicts make it try again`);
    }
  }));
  const final = await call(u, 'GET', `${SC}/rv1`);
  t.equal(final.body.mountOptions.length, 2 + clients, 'no update was lost');
});

t.test('hostile patches are the client\'s error: deep merges and paths through __proto__ answer 4xx, never 500', async (t) => {
  const srv = await startTestServer(t);
  const u = srv.url;
  t.equal((await call(u, 'POST', SC, sc('h1', { mountOptions: ['ro'] }))).status, 201);
  for (const path of ['/__proto__/polluted', '/metadata/__proto__', '/constructor/prototype/polluted']) {
    const r = await call(u, 'PATCH', `${SC}/h1`, [{ op: 'add', path, value: 1 }], JSONP);
    t.equal(r.status, 422, `JSON patch add ${path}`);
    t.equal(r.body.kind, 'Status');
  }
  const from = await call(u, 'PATCH', `${SC}/h1`, [{ op: 'copy', from: '/__proto__', path: '/metadata/labels' }], JSONP);
  t.equal(from.status, 422, 'a from through __proto__');
  t.equal(({} as Record<string, unknown>)['polluted'], undefined, 'nothing reached Object.prototype');
  // Refused as it is read, past the depth limit (body-bounds.ts), before any merge recurses.
  for (const depth of [5_000, 50_000]) {
    const deep = `{"parameters":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
    for (const [kind, ct] of [['merge', 'application/merge-patch+json'], ['strategic merge', 'application/strategic-merge-patch+json']]) {
      const r = await call(u, 'PATCH', `${SC}/h1`, deep, { 'content-type': ct });
      t.equal(r.status, 400, `a ${kind} patch ${depth} levels deep`);
      t.match(r.body.message, /^error decoding patch: exceeded max depth/);
    }
  }
  const after = await call(u, 'GET', `${SC}/h1`);
  t.same(after.body.mountOptions, ['ro'], 'the object is as it was');
});

t.test('JSON patch operations with no place in the object: 422 as upstream answers, never a 500 (request-fuzz)', async (t) => {
  const srv = await startTestServer(t);
  const u = srv.url;
  t.equal((await call(u, 'POST', SC, sc('root', { mountOptions: ['ro'] }))).status, 201);
  for (const [ops, message] of [
    // The root removed, then a field added to what is left (was: a TypeError, 500).
    [[{ op: 'remove', path: '' }, { op: 'add', path: '/metadata', value: {} }], 'remove operation does not apply: doc is missing path: ""'],
    [[{ op: 'add', path: '', value: sc('root') }], 'add operation does not apply: doc is missing path: ""'],
    [[{ op: 'replace', path: '', value: 'text' }, { op: 'add', path: '/a', value: 1 }], 'replace operation value must be an object'],
    // The object moved into itself (was: a circular structure, 500).
    [[{ op: 'move', from: '', path: '/a' }], 'move operation does not apply: doc is missing from path: ""'],
    [[{ op: 'copy', from: '', path: '/a' }], 'copy operation does not apply: doc is missing from path: ""'],
    // A move into its own source (was: a TypeError, 500).
    [[{ op: 'move', from: '/metadata', path: '/metadata/x' }], 'move operation does not apply: doc is missing destination path: /metadata/x'],
  ] as const) {
    const r = await call(u, 'PATCH', `${SC}/root`, ops, JSONP);
    t.equal(r.status, 422, JSON.stringify(ops));
    t.match(r.body?.message, message);
  }
  const replaced = await call(u, 'PATCH', `${SC}/root`, [{ op: 'test', path: '', value: (await call(u, 'GET', `${SC}/root`)).body }, { op: 'replace', path: '', value: sc('root', { mountOptions: ['rw'] }) }], JSONP);
  t.equal(replaced.status, 200, 'test and replace (with an object) apply at the root');
  t.same(replaced.body.mountOptions, ['rw']);
});
