// The selector, shard selector and continue token modules on their own: parsing, matching and the
// upstream error texts.
import t from 'tap';
import {
  compileFieldSelector,
  fieldAt,
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  parseListSelectors,
} from '../../reference/apiserver/selectors.js';
import { fnv1a64, parseShardSelector } from '../../reference/apiserver/shard-selector.js';
import { ContinueTokens, decodeContinue, encodeContinue, INCONSISTENT_CONTINUE, continueExpired } from '../../reference/apiserver/continue-token.js';
import { isStatusError } from '../../reference/apiserver/errors.js';
import { FeatureGates } from '../../reference/features.js';
import { parseDurationMs } from '../../reference/duration.js';
import type { ApiObject } from '../../reference/apiserver/strategy.js';

const obj = (labels?: Record<string, string>, extra: Record<string, unknown> = {}): ApiObject => ({ metadata: { name: 'o', namespace: 'ns', uid: 'u-1', labels }, ...extra });
const sel = (s: string, labels?: Record<string, string>) => matchesLabels(parseLabelSelector(s), labels);
const CANDIDATES = Array.from({ length: 100 }, (_, i) => `u${i}`);
const lowHash = (): string => CANDIDATES.find((u) => fnv1a64(u) < 1n << 63n)!;
const highHash = (): string => CANDIDATES.find((u) => fnv1a64(u) >= 1n << 63n)!;
const parseError = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  return '(no error)';
};

t.test('label selectors: every operator, as upstream matches them', async (t) => {
  const a = { tier: 'a', env: 'prod', n: '5' };
  const none = { env: 'dev' };
  t.ok(sel('tier=a', a));
  t.ok(sel('tier==a', a));
  t.notOk(sel('tier=a', none), '= needs the key');
  t.ok(sel('tier!=b', a));
  t.ok(sel('tier!=b', none), '!= holds without the key');
  t.notOk(sel('tier!=a', a));
  t.ok(sel('tier in (a,b)', a));
  t.notOk(sel('tier in (b,c)', a));
  t.notOk(sel('tier in (a)', none), 'in needs the key');
  t.ok(sel('tier notin (b)', a));
  t.ok(sel('tier notin (a)', none), 'notin holds without the key');
  t.notOk(sel('tier notin (a,b)', a));
  t.ok(sel('tier', a));
  t.notOk(sel('tier', none));
  t.ok(sel('!tier', none));
  t.notOk(sel('!tier', a));
  t.ok(sel('n>4', a));
  t.notOk(sel('n>5', a));
  t.ok(sel('n<6', a));
  t.ok(sel('tier=a,env=prod', a), 'comma is AND');
  t.notOk(sel('tier=a,env=dev', a));
  t.ok(sel('', a), 'empty selects everything');
  t.ok(sel('  tier = a , env in ( prod , dev ) ', a), 'whitespace between tokens');
  t.ok(sel('tier=', { tier: '' }), 'an empty value');
  t.ok(sel('x in (in)', { x: 'in' }), 'in as a value');
  t.ok(sel('tier in (,a)', a) && sel('tier in ()', { tier: '' }), 'empty values in sets');
  t.same(parseLabelSelector('b=1,a in (y,x,x)'), [
    { key: 'a', operator: 'in', values: ['x', 'y'] },
    { key: 'b', operator: '=', values: ['1'] },
  ], 'sorted by key, values a sorted set');
});

t.test('label selectors: upstream parse errors', async (t) => {
  const cases: Array<[string, string]> = [
    ['tier in (a', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['tier=a b', "found 'b', expected: ',' or 'end of string'"],
    ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ['tier in a', "unable to parse requirement: found 'a' expected: '('"],
    ['tier=a,', "found '', expected: identifier after ','"],
    [',a', "found ',', expected: !, identifier, or 'end of string'"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['!!a', "unable to parse requirement: found '!', expected: identifier"],
    ['n>x', 'unable to parse requirement: values[0]: Invalid value: "x": for \'Gt\', \'Lt\' operators, the value must be an integer'],
  ];
  for (const [s, msg] of cases) t.equal(parseError(() => parseLabelSelector(s)), msg, JSON.stringify(s));
  t.match(parseError(() => parseLabelSelector('a$=b')), /^unable to parse requirement: <nil>: Invalid value: "a\$": name part must consist of alphanumeric characters/);
  t.match(parseError(() => parseLabelSelector('a=b$')), /^unable to parse requirement: values\[0\]\[a\]: Invalid value: "b\$": a valid label must be/);
});

t.test('field selectors: terms, escapes, errors', async (t) => {
  t.same(parseFieldSelector('metadata.name=a,metadata.namespace!=b'), [
    { field: 'metadata.name', operator: '=', value: 'a' },
    { field: 'metadata.namespace', operator: '!=', value: 'b' },
  ]);
  t.same(parseFieldSelector('a==x\\,y\\=z'), [{ field: 'a', operator: '==', value: 'x,y=z' }], 'escaped , and =');
  t.same(parseFieldSelector(''), []);
  t.equal(parseError(() => parseFieldSelector('metadata.name')), "invalid selector: 'metadata.name'; can't understand 'metadata.name'");
  t.equal(parseError(() => parseFieldSelector('a=b=c')), 'invalid field selector: unescaped character in value: 61');
  t.equal(parseError(() => parseFieldSelector('a=b\\x')), 'invalid field selector: invalid escape sequence: \\x');

  const plain = { namespaced: true };
  t.ok(matchesFields(compileFieldSelector('metadata.name=o,metadata.namespace=ns', plain), obj()));
  t.notOk(matchesFields(compileFieldSelector('metadata.name!=o', plain), obj()));
  t.equal(parseError(() => compileFieldSelector('spec.x=1', plain)), '"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"');
  const cluster = { namespaced: false, fieldSelectors: { 'status.phase': fieldAt('status.phase') } };
  t.ok(matchesFields(compileFieldSelector('status.phase=Active', cluster), obj(undefined, { status: { phase: 'Active' } })));
  t.equal(parseError(() => compileFieldSelector('metadata.namespace=x', cluster)), 'field label not supported: metadata.namespace', 'a kind with a table: metadata.namespace only when namespaced');
  t.equal(parseError(() => compileFieldSelector('spec.x=1', cluster)), 'field label not supported: spec.x');
  const bool = { namespaced: false, fieldSelectors: { 'spec.unschedulable': fieldAt('spec.unschedulable', 'false') } };
  t.ok(matchesFields(compileFieldSelector('spec.unschedulable=false', bool), obj()), 'an unset bool reads "false"');
});

t.test('parseListSelectors: one predicate, 400 for bad selectors, shardSelector only with its gate', async (t) => {
  const kind = { namespaced: true };
  const q = (s: string) => new URLSearchParams(s);
  const p = parseListSelectors(q('labelSelector=tier%3Da&fieldSelector=metadata.name%3Do'), kind);
  t.ok(p(obj({ tier: 'a' })));
  t.notOk(p(obj({ tier: 'b' })));
  t.equal(p.empty, false);
  t.equal(parseListSelectors(q(''), kind).empty, true);
  for (const bad of ['labelSelector=a%20in%20(', 'fieldSelector=nope']) {
    try {
      parseListSelectors(q(bad), kind);
      t.fail(`${bad} refused`);
    } catch (err) {
      t.ok(isStatusError(err) && err.code === 400 && err.status.reason === 'BadRequest', `${bad}: 400 BadRequest`);
    }
  }
  const lower = "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')";
  const off = parseListSelectors(q(`shardSelector=${encodeURIComponent(lower)}`), kind, new FeatureGates());
  t.equal(off.shardInfo, undefined, 'gate off: not honoured');
  t.equal(off.empty, true);
  const on = parseListSelectors(q(`shardSelector=${encodeURIComponent(lower)}`), kind, new FeatureGates({ ShardedListAndWatch: true }));
  t.same(on.shardInfo, { selector: lower });
  t.ok(on({ metadata: { uid: lowHash() } }), 'an object in the lower half');
  t.notOk(on({ metadata: { uid: highHash() } }), 'an object in the upper half');
  try {
    parseListSelectors(q('shardSelector=nonsense'), kind, new FeatureGates({ ShardedListAndWatch: true }));
    t.fail('malformed shardSelector refused');
  } catch (err) {
    t.ok(isStatusError(err) && err.code === 422, 'malformed shardSelector: 422');
    t.match((err as Error).message, /^ListOptions\.meta\.orch\.io "" is invalid: shardSelector: Invalid value: "nonsense": /);
  }
});

t.test('shard selectors: FNV-1a 64, ranges, paths, errors', async (t) => {
  t.equal(fnv1a64(''), 0xcbf29ce484222325n, 'offset basis');
  t.equal(fnv1a64('a'), 0xaf63dc4c8601ec8cn);
  t.equal(fnv1a64('foobar'), 0x85944171f73967e8n);
  const s = parseShardSelector("shardRange(object.metadata.uid, '0x0', '0x8000000000000000') || shardRange(object.metadata.namespace,'0x8000000000000000','0x10000000000000000')");
  t.equal(s.ranges.length, 2);
  const lowUid = lowHash();
  const lowNs = lowHash();
  const highUid = highHash();
  const highNs = highHash();
  t.ok(s.matches({ metadata: { uid: lowUid, namespace: lowNs } }), 'first term');
  t.ok(s.matches({ metadata: { uid: highUid, namespace: highNs } }), 'second term');
  t.notOk(s.matches({ metadata: { uid: highUid, namespace: lowNs } }), 'neither');
  const exact = parseShardSelector(`shardRange(object.metadata.uid, '0x${fnv1a64('a').toString(16)}', '0x${(fnv1a64('a') + 1n).toString(16)}')`);
  t.ok(exact.matches({ metadata: { uid: 'a' } }), 'start is inclusive');
  const below = parseShardSelector(`shardRange(object.metadata.uid, '0x0', '0x${fnv1a64('a').toString(16)}')`);
  t.notOk(below.matches({ metadata: { uid: 'a' } }), 'end is exclusive');
  for (const bad of [
    '',
    "shardRange(object.metadata.name, '0x0', '0x1')",
    "shardRange(object.metadata.uid, '0', '0x1')",
    "shardRange(object.metadata.uid, '0x1', '0x1')",
    "shardRange(object.metadata.uid, '0x0', '0x10000000000000001')",
    "shardRange(object.metadata.uid, '0x0', '0x1') && shardRange(object.metadata.uid, '0x1', '0x2')",
    "shardRange(object.metadata.uid, \"0x0\", '0x1')",
  ]) {
    try {
      parseShardSelector(bad);
      t.fail(`refused: ${bad}`);
    } catch (err) {
      t.ok(isStatusError(err) && err.code === 422 && err.status.details?.causes?.[0]?.field === 'shardSelector', `refused with 422: ${bad}`);
    }
  }
});

t.test('continue tokens: the upstream encoding and its errors', async (t) => {
  const tok = encodeContinue(42, 'ns/name\u0000');
  t.match(tok, /^[A-Za-z0-9_-]+$/, 'unpadded base64url');
  t.same(JSON.parse(Buffer.from(tok, 'base64url').toString()), { v: 'meta.orch.io/v1', rv: 42, start: 'ns/name\u0000' });
  t.same(decodeContinue(tok), { rv: 42, start: 'ns/name\u0000' });
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const cases: Array<[string, RegExp | string]> = [
    ['a=b', 'invalid continue token: continue key is not valid: illegal base64 data at input byte 1'],
    ['abcde', 'invalid continue token: continue key is not valid: illegal base64 data at input byte 4'],
    [enc([1]), /^invalid continue token: continue key is not valid: json: cannot unmarshal array/],
    [enc({ v: 'meta.k8s.io/v1', rv: 1, start: 'a' }), 'invalid continue token: continue key is not valid: server does not recognize this encoded version meta.k8s.io/v1'],
    [enc({ v: 'meta.orch.io/v1', rv: 0, start: 'a' }), 'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.orch.io/v1)'],
    [enc({ v: 'meta.orch.io/v1', rv: 1, start: '' }), 'invalid continue token: continue key is not valid: encoded start key empty (version meta.orch.io/v1)'],
    [enc({ v: 'meta.orch.io/v1', rv: 1, start: '../other/x' }), 'invalid continue token: continue key is not valid: ../other/x'],
  ];
  for (const [token, msg] of cases) {
    try {
      decodeContinue(token);
      t.fail(`refused: ${token}`);
    } catch (err) {
      t.ok(isStatusError(err) && err.code === 400, `400: ${token}`);
      if (typeof msg === 'string') t.equal((err as Error).message, msg);
      else t.match((err as Error).message, msg);
    }
  }
  const e = continueExpired('name\u0000');
  t.equal(e.code, 410);
  t.equal(e.status.reason, 'Expired');
  t.equal(e.status.message, INCONSISTENT_CONTINUE);
  t.same(decodeContinue(e.status.metadata.continue!), { rv: -1, start: 'name\u0000' }, 'the fresh token continues at the latest revision');
});

t.test('continue tokens expire a TTL after the first chunk of their snapshot', async (t) => {
  let now = 1000;
  const tokens = new ContinueTokens(5000, () => now);
  const first = decodeContinue(tokens.issue(7, 'a\u0000'));
  now += 3000;
  const second = decodeContinue(tokens.issue(7, 'b\u0000'));
  t.ok(tokens.valid(first) && tokens.valid(second));
  now += 2500;
  t.notOk(tokens.valid(second), 'the whole snapshot expires from its first chunk on');
  t.ok(tokens.valid({ rv: -1, start: 'x' }), 'a latest-revision token never expires');
  t.notOk(tokens.valid({ rv: 99, start: 'x' }), 'a revision this server never issued counts as expired');
  t.ok(tokens.valid(decodeContinue(tokens.issue(8, 'c\u0000'))));
});

t.test('durations for serve options', async (t) => {
  t.equal(parseDurationMs('500ms'), 500);
  t.equal(parseDurationMs('2s'), 2000);
  t.equal(parseDurationMs('5m'), 300_000);
  t.equal(parseDurationMs('1h30m'), 5_400_000);
  t.equal(parseDurationMs('1.5s'), 1500);
  t.equal(parseDurationMs('5'), undefined);
  t.equal(parseDurationMs('soon'), undefined);
});
