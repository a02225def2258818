// Issue 26 part 3, evidence bundles: a small real run against a TLS reference is bundled with the
// target's fingerprint; the bundle is owner-only, verifies, signs, verifies with the signer's key,
// and fails with another key, without a signature, after a one-byte change (naming the file) and
// with a file added. One short CLI call checks `bundle verify`'s exit code and message.
import t from 'tap';
import { execaNode } from 'execa';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from '../helpers/serve.js';
import { startReference } from '../../reference/server.js';
import { runCases } from '../../runner/run.js';
import { parseGates } from '../../runner/gates.js';
import type { Case } from '../../suites/case.js';
import { fail } from '../../suites/verify.js';
import { REQUIREMENTS } from '../../suites/requirements/index.js';
import { verificationLines } from '../../bin/commands/bundle.js';
import { fingerprintTarget, readArchive, signBundle, verifyBundle, writeArchive, writeBundle, SIGNATURE } from '../../runner/bundle.js';

const REQ = REQUIREMENTS.find((r) => r.doc === '000')!.id;
const fake = (id: string, run: Case['run']): Case => ({ id, title: `fake ${id}`, suite: 'bundle', requirements: [REQ], spec: { doc: '000', section: '1' }, level: 'MUST', impact: 'read-only', needs: ['api'], run });

t.test('a bundle of a real run verifies, signs, and fails when changed or checked with another key', async (t) => {
  const ref = await startReference({ tls: 'self-signed' });
  t.teardown(() => ref.close());
  const dir = mkdtempSync(join(tmpdir(), 'bundle-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const conn = { baseUrl: ref.url, caPem: ref.caPem };

  const fingerprint = await fingerprintTarget(conn);
  t.match(fingerprint, { embedded: false, api: ref.url, version: { gitVersion: String }, servingCertSha256: /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/, discoveryDigest: /^[0-9a-f]{64}$/ });
  t.notOk(fingerprint.unavailable, 'every part of the fingerprint was read');

  // One pass and one failure, so the bundle carries recorded exchanges.
  const report = await runCases({
    cases: [
      fake('b.ok', async (ctx) => { await ctx.api.get('/version'); }),
      fake('b.bad', async (ctx) => { const res = await ctx.api.get('/api'); fail('a planted failure', '418', String(res.status)); }),
    ],
    conn, embedded: false, gates: parseGates(undefined), version: 'test', timeoutMs: 10_000, command: ['run', '--api', ref.url, '--token', '<redacted>'],
  });
  t.equal(report.summary.failed, 1);

  const file = join(dir, 'out', 'run.tgz');
  await writeBundle(file, report, fingerprint);
  t.equal(statSync(file).mode & 0o777, 0o600, 'owner-only');
  const files = await readArchive(file);
  t.same([...files.keys()].sort(), ['manifest.json', 'metadata.json', 'reports/junit.xml', 'reports/report.html', 'reports/report.md', 'results.json']);
  const results = JSON.parse(files.get('results.json')!.toString());
  t.ok(results.cases.find((c: any) => c.id === 'b.bad').exchanges.some((e: any) => e.url.endsWith('/api')), 'the failure\'s exchanges are in the results');

  const unsigned = await verifyBundle(file);
  t.same({ ok: unsigned.ok, problems: unsigned.problems, signature: unsigned.signature }, { ok: true, problems: [], signature: 'absent' });
  t.match(unsigned.metadata, { runId: report.runId, command: ['run', '--api', ref.url, '--token', '<redacted>'], target: { discoveryDigest: fingerprint.discoveryDigest }, kit: { suitesSha256: /^[0-9a-f]{64}$/ } });

  const signer = generateKeyPairSync('ed25519');
  const other = generateKeyPairSync('ed25519');
  const unsignedWithKey = await verifyBundle(file, signer.publicKey);
  t.notOk(unsignedWithKey.ok, 'a key asks for a signature');
  t.match(unsignedWithKey.problems, [/^signature\.json: missing/]);

  await signBundle(file, signer.privateKey);
  t.equal(statSync(file).mode & 0o777, 0o600, 'still owner-only after signing');
  t.match(await verifyBundle(file, signer.publicKey), { ok: true, problems: [], signature: 'valid' });
  t.match(await verifyBundle(file), { ok: true, signature: 'unchecked' });
  const wrongKey = await verifyBundle(file, other.publicKey);
  t.match(wrongKey, { ok: false, signature: 'invalid', problems: [/^signature\.json: the signature over manifest\.json does not verify with the key given \(signed by key sha256 [0-9a-f]{64}, not by the key given/] });

  // One byte of the HTML report changed, archive rewritten: that file is named, and only it.
  const signed = await readArchive(file);
  const html = Buffer.from(signed.get('reports/report.html')!);
  html[100] = html[100]! ^ 1;
  const tampered = join(dir, 'tampered.tgz');
  await writeArchive(tampered, new Map([...signed, ['reports/report.html', html]]));
  const changed = await verifyBundle(tampered, signer.publicKey);
  t.notOk(changed.ok);
  t.equal(changed.problems.length, 1);
  t.match(changed.problems[0], /^reports\/report\.html: changed \(sha256 [0-9a-f]{64}, the manifest says [0-9a-f]{64}\)$/);

  // A file slipped in beside the others is not covered by the manifest.
  const added = join(dir, 'added.tgz');
  await writeArchive(added, new Map([...signed, ['extra.json', Buffer.from('{}')]]));
  t.match((await verifyBundle(added)).problems, [/^extra\.json: not in the manifest/]);

  // A signature copied onto another run's bundle does not verify.
  const second = join(dir, 'second.tgz');
  await writeBundle(second, { ...report, runId: 'other' }, fingerprint);
  await writeArchive(second, new Map([...(await readArchive(second)), [SIGNATURE, signed.get(SIGNATURE)!]]));
  t.match(await verifyBundle(second, signer.publicKey), { ok: false, signature: 'invalid' });

  // The lines `bundle verify` prints: the changed file named; with the right key, verdict and coverage.
  t.match(verificationLines(tampered, changed).join('\n'), /^NOT VERIFIED: .*tampered\.tgz\n {2}reports\/report\.html: changed/);
  const good = verificationLines(file, await verifyBundle(file, signer.publicKey)).join('\n');
  t.match(good, /^VERIFIED: .*signature valid\n[^]*\nverdict: FAIL[^]*\ncoverage: \d+ of \d+ requirements/);

  // `run --bundle` from the command line (one case, against this reference): owner-only, verifies, fingerprinted.
  const ca = join(dir, 'ca.pem');
  writeFileSync(ca, ref.caPem!);
  const cliFile = join(dir, 'cli', 'run.tgz');
  const args = ['run', '--api', ref.url, '--ca', ca, '--id', 'api.discovery.core-versions', '--reporter', `json=${join(dir, 'cli.json')}`, '--bundle', cliFile];
  const cli = await execaNode(BIN, args, { reject: false });
  t.equal(cli.exitCode, 0, cli.stderr);
  t.match(cli.stderr, /evidence bundle written to .*run\.tgz/);
  t.equal(statSync(cliFile).mode & 0o777, 0o600);
  const fromCli = await verifyBundle(cliFile);
  t.ok(fromCli.ok, fromCli.problems.join('; '));
  t.match(fromCli.metadata, { selection: { selectedCases: 1, ids: ['api.discovery.core-versions'] }, target: { api: ref.url, servingCertSha256: fingerprint.servingCertSha256, discoveryDigest: fingerprint.discoveryDigest } });
  t.same(fromCli.metadata?.command, args, 'the command line as given (no secret in it to redact)');
  t.equal(fromCli.report?.summary.passed, 1);
});
