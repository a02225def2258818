// Lists in the reference: selectors, chunks from one snapshot, remainingItemCount, continue tokens
// (format, expiry with a fresh token, the inconsistent continuation, compaction), resourceVersion
// and resourceVersionMatch, shardSelector, pretty, and `serve --continue-ttl`.
import t from 'tap';
import { execa } from 'execa';
import { startApiServer } from '../../reference/apiserver/apiserver.js';
import { storageClassStrategy } from '../../reference/resources/storageclass.js';
import { MemoryStorage, type MemoryStorageOptions } from '../../reference/storage/memory.js';
import { FeatureGates } from '../../reference/features.js';
import { fnv1a64 } from '../../reference/apiserver/shard-selector.js';
import { INCONSISTENT_CONTINUE } from '../../reference/apiserver/continue-token.js';
import { SC, WatchReader, call, sc, sleep, widgetStrategy, widgets } from './helpers.js';
import { BIN, startServe } from '../helpers/serve.js';

interface Opts {
  continueTtlSeconds?: number;
  gates?: Record<string, boolean>;
  storage?: MemoryStorageOptions;
}

async function start(t: { teardown(fn: () => unknown): void }, opts: Opts = {}) {
  const storage = new MemoryStorage(opts.storage);
  const api = await startApiServer({
    storage,
    strategies: [storageClassStrategy, widgetStrategy],
    featureGates: new FeatureGates(opts.gates),
    continueTtlSeconds: opts.continueTtlSeconds,
    log: (m, e) => console.error('unexpected server error:', m, e),
  });
  t.teardown(() => api.close());
  return { ...api, storage };
}

const names = (body: any): string[] => (body?.items ?? []).map((i: any) => i.metadata.name);
const token = (s: string): any => JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));

async function seed(u: string, n: number, labels: (i: number) => Record<string, string> = () => ({})): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const name = `sc-${String(i).padStart(2, '0')}`;
    const r = await call(u, 'POST', SC, sc(name, { metadata: { name, labels: labels(i) } }));
    if (r.status !== 201) throw new Error(`seed ${name}: ${r.status} ${r.text}`);
    out.push(name);
  }
  return out;
}

t.test('label and field selectors on lists, and their 400s', async (t) => {
  const srv = await start(t);
  const u = srv.url;
  await seed(u, 4, (i): Record<string, string> => (i < 3 ? { tier: ['a', 'b', 'c'][i]! } : {}));
  const list = async (q: string) => names((await call(u, 'GET', `${SC}?${q}`)).body);
  t.same(await list('labelSelector=tier%3Da'), ['sc-00']);
  t.same(await list('labelSelector=tier%3D%3Da'), ['sc-00']);
  t.same(await list('labelSelector=tier!%3Da'), ['sc-01', 'sc-02', 'sc-03']);
  t.same(await list('labelSelector=tier%20in%20(a,c)'), ['sc-00', 'sc-02']);
  t.same(await list('labelSelector=tier%20notin%20(a,c)'), ['sc-01', 'sc-03']);
  t.same(await list('labelSelector=tier'), ['sc-00', 'sc-01', 'sc-02']);
  t.same(await list('labelSelector=!tier'), ['sc-03']);
  t.same(await list('labelSelector=tier,tier!%3Db'), ['sc-00', 'sc-02']);
  t.same(await list('fieldSelector=metadata.name%3Dsc-01'), ['sc-01']);
  t.same(await list('fieldSelector=metadata.name!%3Dsc-01,metadata.name!%3Dsc-02'), ['sc-00', 'sc-03']);
  t.same(await list('fieldSelector=metadata.namespace%3D'), ['sc-00', 'sc-01', 'sc-02', 'sc-03'], 'cluster-scoped objects have an empty namespace');
  t.same(await list('fieldSelector=metadata.namespace%3Ddefault'), []);

  const bad = await call(u, 'GET', `${SC}?labelSelector=tier%20in%20(a`);
  t.equal(bad.status, 400);
  t.equal(bad.body.message, "unable to parse requirement: found '', expected: ',' or ')'");
  const field = await call(u, 'GET', `${SC}?fieldSelector=spec.x%3Dy`);
  t.equal(field.status, 400);
  t.equal(field.body.message, '"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"');
  const ns = await call(u, 'GET', `/api/v1/namespaces?fieldSelector=status.phase%3DActive,metadata.name%3Ddefault`);
  t.same(names(ns.body), ['default'], 'a kind\'s own field (Namespace status.phase)');
  const nsBad = await call(u, 'GET', `/api/v1/namespaces?fieldSelector=metadata.namespace%3Dx`);
  t.equal(nsBad.body.message, 'field label not supported: metadata.namespace', 'Namespace does not select on metadata.namespace');

  // Across namespaces, with a namespace field selector.
  for (const ns of ['ns-a', 'ns-b']) {
    await call(u, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
    await call(u, 'POST', widgets(ns), { metadata: { name: `w-${ns}` } });
  }
  const w = await call(u, 'GET', '/apis/test.orch.io/v1/widgets?fieldSelector=metadata.namespace%3Dns-b');
  t.same(names(w.body), ['w-ns-b']);
});

t.test('chunks: limit, continue, remainingItemCount, one snapshot', async (t) => {
  const srv = await start(t);
  const u = srv.url;
  await seed(u, 5);
  const p1 = (await call(u, 'GET', `${SC}?limit=2`)).body;
  t.same(names(p1), ['sc-00', 'sc-01']);
  t.equal(p1.metadata.remainingItemCount, 3);
  t.match(p1.metadata.continue, /^[A-Za-z0-9_-]+$/);
  t.same(token(p1.metadata.continue), { v: 'meta.orch.io/v1', rv: Number(p1.metadata.resourceVersion), start: 'sc-01\u0000' });

  // Writes between chunks: a new key in the remaining range, an update, a delete.
  await call(u, 'POST', SC, sc('sc-02a'));
  const s3 = (await call(u, 'GET', `${SC}/sc-03`)).body;
  await call(u, 'PUT', `${SC}/sc-03`, { ...s3, allowVolumeExpansion: true });
  await call(u, 'DELETE', `${SC}/sc-04`);

  const p2 = (await call(u, 'GET', `${SC}?limit=2&continue=${p1.metadata.continue}`)).body;
  t.same(names(p2), ['sc-02', 'sc-03'], 'the snapshot of the first chunk');
  t.equal(p2.items[1].allowVolumeExpansion, undefined, 'sc-03 as it was');
  t.equal(p2.metadata.resourceVersion, p1.metadata.resourceVersion);
  t.equal(p2.metadata.remainingItemCount, 1);
  const p3 = (await call(u, 'GET', `${SC}?limit=2&continue=${p2.metadata.continue}`)).body;
  t.same(names(p3), ['sc-04'], 'sc-04 was deleted after the first chunk, so it is still there');
  t.equal(p3.metadata.continue, undefined);
  t.equal(p3.metadata.remainingItemCount, undefined);

  // With a selector: chunks may hold fewer than limit, and no remainingItemCount.
  const sel = (await call(u, 'GET', `${SC}?limit=1&fieldSelector=metadata.name%3Dsc-02`)).body;
  t.same(names(sel), ['sc-02']);
  t.ok(sel.metadata.continue, 'more keys follow');
  t.equal(sel.metadata.remainingItemCount, undefined, 'unknown with a selector');
  const selNext = (await call(u, 'GET', `${SC}?limit=1&fieldSelector=metadata.name%3Dsc-02&continue=${sel.metadata.continue}`)).body;
  t.same(names(selNext), []);
  t.equal(selNext.metadata.continue, undefined);
  const none = (await call(u, 'GET', `${SC}?limit=1&fieldSelector=metadata.name%3Dsc-00`)).body;
  t.same(names(none), ['sc-00'], 'the first key matches');
  t.ok(none.metadata.continue, 'continue when keys remain, even if none of them matches');
});

t.test('continue: errors, expiry with a fresh token, the inconsistent continuation, compaction', async (t) => {
  const srv = await start(t, { continueTtlSeconds: 1 });
  const u = srv.url;
  await seed(u, 4);
  const p1 = (await call(u, 'GET', `${SC}?limit=1`)).body;

  const bad = await call(u, 'GET', `${SC}?continue=garbage!`);
  t.equal(bad.status, 400);
  t.match(bad.body.message, /^invalid continue token: /);
  const withRv = await call(u, 'GET', `${SC}?continue=${p1.metadata.continue}&resourceVersion=${p1.metadata.resourceVersion}`);
  t.equal(withRv.status, 400);
  t.equal(withRv.body.message, 'specifying resource version is not allowed when using continue');
  t.equal((await call(u, 'GET', `${SC}?limit=1&continue=${p1.metadata.continue}&resourceVersion=0`)).status, 200, 'resourceVersion=0 is allowed with continue');
  const match = await call(u, 'GET', `${SC}?continue=${p1.metadata.continue}&resourceVersion=1&resourceVersionMatch=Exact`);
  t.equal(match.status, 422);
  t.match(match.body.message, /resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided/);

  await call(u, 'POST', SC, sc('sc-01a'));
  await sleep(1200);
  const expired = await call(u, 'GET', `${SC}?limit=1&continue=${p1.metadata.continue}`);
  t.equal(expired.status, 410);
  t.equal(expired.body.reason, 'Expired');
  t.equal(expired.body.message, INCONSISTENT_CONTINUE);
  const fresh = expired.body.metadata.continue;
  t.same(token(fresh), { v: 'meta.orch.io/v1', rv: -1, start: 'sc-00\u0000' }, 'the fresh token: same key, latest revision');
  const after = (await call(u, 'GET', `${SC}?limit=2&continue=${fresh}`)).body;
  t.same(names(after), ['sc-01', 'sc-01a'], 'the rest from the next key at the latest revision (sc-01a is new)');
  t.equal(after.metadata.resourceVersion, String(await srv.storage.currentRevision()));
  t.equal(token(after.metadata.continue).rv, Number(after.metadata.resourceVersion), 'and its tokens carry that revision');
  t.same(names((await call(u, 'GET', `${SC}?limit=5&continue=${after.metadata.continue}`)).body), ['sc-02', 'sc-03']);

  const forged = Buffer.from(JSON.stringify({ v: 'meta.orch.io/v1', rv: 3, start: 'sc-00\u0000' })).toString('base64url');
  t.equal((await call(u, 'GET', `${SC}?continue=${forged}`)).status, 410, 'a token this server never issued has expired');

  // Compaction past the snapshot: the same 410 with a fresh token, before the TTL.
  const srv2 = await start(t);
  await seed(srv2.url, 3);
  const q1 = (await call(srv2.url, 'GET', `${SC}?limit=1`)).body;
  await call(srv2.url, 'POST', SC, sc('sc-zz'));
  await srv2.storage.compact(await srv2.storage.currentRevision());
  const compacted = await call(srv2.url, 'GET', `${SC}?limit=1&continue=${q1.metadata.continue}`);
  t.equal(compacted.status, 410);
  t.equal(compacted.body.message, INCONSISTENT_CONTINUE);
  t.equal(token(compacted.body.metadata.continue).rv, -1);
});

t.test('resourceVersion and resourceVersionMatch', async (t) => {
  const srv = await start(t);
  const u = srv.url;
  await seed(u, 1);
  const rv1 = (await call(u, 'GET', SC)).body.metadata.resourceVersion;
  await call(u, 'POST', SC, sc('sc-later'));
  const exact = (await call(u, 'GET', `${SC}?resourceVersion=${rv1}&resourceVersionMatch=Exact`)).body;
  t.same(names(exact), ['sc-00']);
  t.equal(exact.metadata.resourceVersion, rv1);
  const legacy = (await call(u, 'GET', `${SC}?resourceVersion=${rv1}&limit=5`)).body;
  t.same(names(legacy), ['sc-00'], 'a resourceVersion with limit and no match is exact (legacy)');
  const newer = (await call(u, 'GET', `${SC}?resourceVersion=${rv1}&resourceVersionMatch=NotOlderThan`)).body;
  t.same(names(newer), ['sc-00', 'sc-later'], 'NotOlderThan: the current state qualifies');
  const cases: Array<[string, number, RegExp]> = [
    ['resourceVersionMatch=NotOlderThan', 422, /resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided/],
    ['resourceVersion=0&resourceVersionMatch=Exact', 422, /resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"/],
    [`resourceVersion=${rv1}&resourceVersionMatch=Newest`, 422, /resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""/],
    ['resourceVersion=99999&resourceVersionMatch=Exact', 504, /Too large resource version/],
    ['sendInitialEvents=true', 422, /sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list/],
  ];
  for (const [q, code, msg] of cases) {
    const r = await call(u, 'GET', `${SC}?${q}`);
    t.equal(r.status, code, q);
    t.match(r.body.message, msg, q);
  }
  await srv.storage.compact(await srv.storage.currentRevision());
  const gone = await call(u, 'GET', `${SC}?resourceVersion=${rv1}&resourceVersionMatch=Exact`);
  t.equal(gone.status, 410);
  t.equal(gone.body.message, 'The resourceVersion for the provided list is too old.');
});

t.test('limit and continue are refused on watches', async (t) => {
  const srv = await start(t);
  const r = await call(srv.url, 'GET', `${SC}?watch=true&limit=1&continue=abc`);
  t.equal(r.status, 422);
  t.equal(r.body.message, 'ListOptions.meta.orch.io "" is invalid: [continue: Forbidden: continue is not supported when watch is true, limit: Forbidden: limit is not supported when watch is true]');
});

t.test('shardSelector: honoured with its gate (shardInfo), ignored without', async (t) => {
  const on = await start(t, { gates: { ShardedListAndWatch: true } });
  const all = await seed(on.url, 8);
  const uids = new Map((await call(on.url, 'GET', SC)).body.items.map((i: any) => [i.metadata.name, i.metadata.uid]));
  const lower = "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')";
  const upper = "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')";
  const l = (await call(on.url, 'GET', `${SC}?shardSelector=${encodeURIComponent(lower)}`)).body;
  const h = (await call(on.url, 'GET', `${SC}?shardSelector=${encodeURIComponent(upper)}`)).body;
  t.same(names(l), all.filter((n) => fnv1a64(uids.get(n) as string) < 1n << 63n));
  t.same(names(h), all.filter((n) => fnv1a64(uids.get(n) as string) >= 1n << 63n));
  t.same(l.metadata.shardInfo, { selector: lower });
  const both = (await call(on.url, 'GET', `${SC}?shardSelector=${encodeURIComponent(`${lower} || ${upper}`)}&limit=3`)).body;
  t.equal(both.items.length, 3, 'with limit');
  t.equal(both.metadata.remainingItemCount, undefined, 'a shard selector filters: no remainingItemCount');
  const bad = await call(on.url, 'GET', `${SC}?shardSelector=${encodeURIComponent('shardRange(object.metadata.name, \'0x0\', \'0x1\')')}`);
  t.equal(bad.status, 422);
  t.match(bad.body.message, /^ListOptions\.meta\.orch\.io "" is invalid: shardSelector: Invalid value: /);

  const off = await start(t);
  await seed(off.url, 3);
  const ignored = (await call(off.url, 'GET', `${SC}?shardSelector=${encodeURIComponent("shardRange(object.metadata.uid, '0x0', '0x1')")}`)).body;
  t.equal(ignored.items.length, 3, 'gate off: not honoured');
  t.equal(ignored.metadata.shardInfo, undefined);
  t.equal((await call(off.url, 'GET', `${SC}?shardSelector=garbage`)).status, 200, 'gate off: not even parsed');
});

t.test('pretty: the parameter, and the default for browsers and command-line tools', async (t) => {
  const srv = await start(t);
  await seed(srv.url, 1);
  const multiline = (text: string) => text.trim().includes('\n');
  t.ok(multiline((await call(srv.url, 'GET', `${SC}?pretty=true`)).text));
  t.notOk(multiline((await call(srv.url, 'GET', SC, undefined, { 'user-agent': 'client-go/1.37' })).text));
  for (const ua of ['curl/8.5.0', 'Wget/1.21', 'Mozilla/5.0 (X11)']) {
    t.ok(multiline((await call(srv.url, 'GET', SC, undefined, { 'user-agent': ua })).text), ua);
  }
  // Upstream's prefixes only: other command-line tools get the compact default.
  t.notOk(multiline((await call(srv.url, 'GET', SC, undefined, { 'user-agent': 'HTTPie/3.2.2' })).text), 'HTTPie/3.2.2');
  t.notOk(multiline((await call(srv.url, 'GET', `${SC}?pretty=false`, undefined, { 'user-agent': 'curl/8.5.0' })).text), 'pretty=false wins');
});

t.test('delete collection takes the same selectors', async (t) => {
  const srv = await start(t);
  await seed(srv.url, 3, (i): Record<string, string> => (i === 1 ? { doomed: 'yes' } : {}));
  const r = await call(srv.url, 'DELETE', `${SC}?labelSelector=doomed%3Dyes`);
  t.equal(r.status, 200);
  t.same(names((await call(srv.url, 'GET', SC)).body), ['sc-00', 'sc-02']);
});

t.test('serve --continue-ttl and --bookmark-interval', async (t) => {
  const bad = await execa('node', [BIN, 'serve', '--api-port', '0', '--continue-ttl', 'soon'], { reject: false, timeout: 20_000 });
  t.equal(bad.exitCode, 2);
  t.match(bad.stderr, /--continue-ttl soon: want a positive duration/);
  const { url: base } = await startServe(t, ['--plain-http', '--continue-ttl', '1s', '--bookmark-interval', '300ms']);
  await seed(base, 2);
  const p1 = (await call(base, 'GET', `${SC}?limit=1`)).body;
  t.equal((await call(base, 'GET', `${SC}?limit=1&continue=${p1.metadata.continue}`)).status, 200, 'within the TTL');
  await sleep(1200);
  t.equal((await call(base, 'GET', `${SC}?limit=1&continue=${p1.metadata.continue}`)).status, 410, 'after it');
  const w = await WatchReader.open(`${base}${SC}?watch=true&allowWatchBookmarks=true&resourceVersion=${p1.metadata.resourceVersion}`);
  t.teardown(() => w.close());
  t.equal((await w.next(2000))?.type, 'BOOKMARK', 'a bookmark within the interval');
});
