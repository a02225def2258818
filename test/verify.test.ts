// The verifier helpers that keep cases from failing legal implementations: every success code the
// spec lists, lists in any order, maps with keys a server added, a reason worded either way.
import t from 'tap';
import { CaseFailure, expectEntries, expectSameMembers, expectStatus, SUCCESS } from '../suites/verify.js';
import type { ApiResponse } from '../runner/client.js';
import { collectFindings, noteMay, type Finding } from '../suites/findings.js';

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
    // Outside a case's collector an upstream finding throws (the strict reading): its code first.
    t.match((e as CaseFailure).expected, 'HTTP 410');
  }
});

t.test('expectStatus: the verdict is the spec\'s, upstream\'s shape is a finding', async (t) => {
  const run = async (check: () => void) => {
    const findings: Finding[] = [];
    let thrown: unknown;
    await collectFindings(findings, async () => {
      try {
        check();
      } catch (e) {
        thrown = e;
      }
    });
    return { findings, thrown };
  };
  const invalid = { code: 422, reason: 'Invalid', causes: [{ field: 'provisioner' }] } as const;
  const plain400 = await run(() => expectStatus(status(400, 'BadRequest'), invalid, 'create without provisioner'));
  t.equal(plain400.thrown, undefined, 'a 400 for a validation error holds the verdict (refused)');
  t.equal(plain400.findings.length, 1, 'one finding');
  t.match(plain400.findings[0], { level: 'SHOULD', basis: 'upstream', expected: 'HTTP 422' }, "upstream's code is the finding");
  const notStatus: ApiResponse = { status: 422, headers: {}, text: '{"error":"provisioner: Required"}', bytes: Buffer.from(''), json: { error: 'provisioner: Required' } };
  const small = await run(() => expectStatus(notStatus, invalid, 'create without provisioner'));
  t.equal(small.thrown, undefined, 'an error body that is no Status holds the verdict');
  t.match(small.findings[0]?.message, /a Status body/, 'the Status body is the finding');
  const accepted = await run(() => expectStatus({ ...status(201, 'x'), json: { kind: 'StorageClass' } }, invalid, 'create without provisioner'));
  t.type(accepted.thrown, CaseFailure, 'a write that succeeded fails the verdict');
  t.same(accepted.findings, [], 'and is no finding');
  const server = await run(() => expectStatus(status(500, 'InternalError'), invalid, 'create'));
  t.type(server.thrown, CaseFailure, 'a 5xx is no refusal of a bad write');
  const specCode = await run(() => expectStatus(status(400, 'BadRequest'), { code: 410, reason: 'Expired', spec: { code: 410 } }, 'expired token'));
  t.type(specCode.thrown, CaseFailure, 'a code the spec names is the verdict');
  const named = await run(() => expectStatus(status(400, 'BadRequest'), { code: 400, reason: 'BadRequest', spec: { code: 400, names: ['spec.extra'] } }, 'strict'));
  t.type(named.thrown, CaseFailure, 'a field the spec says the error names must be in the answer');
  const may = await run(() => noteMay('kind inferred', 'inferred', 'required'));
  t.same(may.findings.map((f) => f.level), ['MAY'], 'a MAY note is recorded as information');
});
