// The verifier helpers that keep cases from failing legal implementations: every success code the
// spec lists, lists in any order, maps with keys a server added, a reason worded either way.
import t from 'tap';
import { CaseFailure, expectEntries, expectSameMembers, expectStatus, SUCCESS } from '../suites/verify.js';
import type { ApiResponse } from '../runner/client.js';

/** A response carrying a failure Status with this code and reason. */
function status(code: number, reason: string): ApiResponse {
  const json = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message: 'm' };
  const text = JSON.stringify(json);
  return { status: code, headers: { 'content-type': 'application/json' }, text, bytes: Buffer.from(text), json };
}

t.test('SUCCESS lists the codes of spec 000 §4.2 per write', async (t) => {
  t.same(SUCCESS.create, [200, 201, 202]);
  t.same(SUCCESS.replace, [200, 201]);
  t.same(SUCCESS.patch, [200, 201]);
});

t.test('expectSameMembers: any order, each as often', async (t) => {
  t.doesNotThrow(() => expectSameMembers(['b', 'a', 'c'], ['a', 'b', 'c'], 'names'));
  t.throws(() => expectSameMembers(['a', 'b'], ['a', 'b', 'c'], 'names'), CaseFailure, 'one missing');
  t.throws(() => expectSameMembers(['a', 'a', 'b'], ['a', 'b'], 'names'), CaseFailure, 'one twice');
  try {
    expectSameMembers(['x'], ['y'], 'objects');
  } catch (e) {
    t.match((e as CaseFailure).message, /objects \(in any order\)/);
    t.equal((e as CaseFailure).expected, '["y"]');
  }
});

t.test('expectEntries: the keys set, none of the removed, others allowed', async (t) => {
  t.doesNotThrow(() => expectEntries({ a: '1', 'server.example/added': 'x' }, { a: '1' }, ['b'], 'labels'));
  t.throws(() => expectEntries({ a: '2' }, { a: '1' }, [], 'labels'), CaseFailure, 'a value differs');
  t.throws(() => expectEntries({}, { a: '1' }, [], 'labels'), CaseFailure, 'a key is missing');
  t.throws(() => expectEntries(undefined, { a: '1' }, [], 'labels'), CaseFailure, 'no map at all');
  t.throws(() => expectEntries({ a: '1', b: '2' }, { a: '1' }, ['b'], 'labels'), CaseFailure, 'a removed key is still there');
  t.doesNotThrow(() => expectEntries(undefined, {}, ['b'], 'annotations'), 'nothing set, nothing there');
});

t.test('expectStatus takes one reason or any of several', async (t) => {
  t.doesNotThrow(() => expectStatus(status(410, 'Expired'), { code: 410, reason: ['ResourceExpired', 'Expired'] }, 'expired'));
  t.doesNotThrow(() => expectStatus(status(410, 'ResourceExpired'), { code: 410, reason: ['ResourceExpired', 'Expired'] }, 'expired'));
  t.throws(() => expectStatus(status(410, 'Gone'), { code: 410, reason: ['ResourceExpired', 'Expired'] }, 'expired'), CaseFailure);
  t.throws(() => expectStatus(status(410, 'ResourceExpired'), { code: 410, reason: 'Expired' }, 'expired'), CaseFailure, 'a single reason is exact');
  try {
    expectStatus(status(400, 'BadRequest'), { code: 410, reason: ['ResourceExpired', 'Expired'] }, 'expired');
  } catch (e) {
    t.match((e as CaseFailure).expected, 'reason ResourceExpired or Expired');
  }
});
