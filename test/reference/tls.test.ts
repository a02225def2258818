// The reference's serving certificates (reference/tls.ts) and HTTPS serving: the self-signed CA and
// serving certificate, their names, --cert-dir generation and reuse with owner-only permissions,
// given PEM files and their errors, and a TLS startReference that trusted clients reach and
// untrusted ones do not.
import t from 'tap';
import { request as httpsRequest } from 'node:https';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { certDirServingCert, generateSelfSigned, loadServingCert, serveTls } from '../../reference/tls.js';
import { startReference } from '../../reference/server.js';
import { ipBytes } from '../../reference/certificate.js';

function tempDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'orch-tls-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function certsOf(pem: string): X509Certificate[] {
  return (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? []).map((b) => new X509Certificate(b));
}

/** GET over TLS with node:https, trusting `ca` only (undefined: the system's CAs). */
function get(url: string, path: string, ca: string | undefined): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(new URL(path, url), { ca, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => { body += c.toString(); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('generateSelfSigned: a CA and a serving certificate it signs, named as upstream', async (t) => {
  const before = Math.floor(Date.now() / 1000);
  const s = generateSelfSigned('127.0.0.1');
  const [leaf, chainCa, ...rest] = certsOf(s.certPem);
  t.same(rest, [], 'the cert file is the serving certificate then the CA');
  const ca = new X509Certificate(s.caPem);
  t.equal(chainCa!.fingerprint256, ca.fingerprint256, 'the chain carries the CA');
  t.match(ca.subject, /^CN=localhost-ca@\d+$/);
  t.ok(Number(/@(\d+)$/.exec(ca.subject)![1]) >= before, 'the CN carries the unix time of generation');
  t.match(leaf!.subject, /^CN=localhost@\d+$/);
  t.ok(ca.ca, 'the CA is a CA');
  t.notOk(leaf!.ca, 'the serving certificate is not');
  t.ok(leaf!.checkIssued(ca) && leaf!.verify(ca.publicKey), 'the CA signed the serving certificate');
  t.ok(ca.verify(ca.publicKey), 'the CA is self-signed');
  t.same(leaf!.keyUsage, ['1.3.6.1.5.5.7.3.1'], 'for server authentication');
  t.equal(leaf!.subjectAltName, 'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
  t.equal(leaf!.publicKey.asymmetricKeyType, 'ec', 'ECDSA keys: generated in milliseconds, unlike RSA');
  t.equal(leaf!.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1', 'on P-256');
  t.match(s.keyPem, /^-----BEGIN EC PRIVATE KEY-----/, 'SEC 1, as upstream\'s keyutil writes EC keys');
  t.ok(leaf!.checkPrivateKey(createPrivateKey(s.keyPem)), 'the key is the serving certificate\'s');
  const days = (Date.parse(leaf!.validTo) - Date.parse(leaf!.validFrom)) / 86_400_000;
  t.ok(days > 365 && days < 366, `valid for a year (backdated an hour): ${days}`);
});

t.test('generateSelfSigned names the listen host: a name, an address, or the host name for every address', async (t) => {
  const named = certsOf(generateSelfSigned('api.example.test').certPem)[0]!;
  t.equal(named.subjectAltName, 'DNS:localhost, DNS:api.example.test, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
  t.match(named.subject, /^CN=api\.example\.test@\d+$/);
  t.match(named.issuer, /^CN=api\.example\.test-ca@\d+$/);
  const ip = certsOf(generateSelfSigned('10.1.2.3').certPem)[0]!;
  t.match(ip.subjectAltName, /IP Address:10\.1\.2\.3/);
  t.ok(ip.checkIP('10.1.2.3') && ip.checkIP('127.0.0.1') && ip.checkHost('localhost'));
  const any = certsOf(generateSelfSigned('0.0.0.0').certPem)[0]!;
  t.notMatch(any.subjectAltName, /0\.0\.0\.0/, 'the unspecified address is no name');
  t.ok(any.checkHost(hostname()), 'listening everywhere names the machine');
  const v6 = certsOf(generateSelfSigned('[::1]').certPem)[0]!;
  t.match(v6.subject, /^CN=localhost@/, 'loopback is called localhost');
});

t.test('ipBytes: the address bytes a subjectAltName carries, every IPv6 spelling', async (t) => {
  const hex = (ip: string) => ipBytes(ip).toString('hex');
  t.equal(hex('10.1.2.3'), '0a010203');
  t.equal(hex('::1'), '00000000000000000000000000000001');
  t.equal(hex('::'), '00000000000000000000000000000000');
  t.equal(hex('2001:db8::5'), '20010db8000000000000000000000005');
  t.equal(hex('fe80::1:2'), 'fe800000000000000000000000010002');
  t.equal(hex('2001:db8:0:0:1:0:0:1'), '20010db8000000000001000000000001');
  t.equal(hex('::ffff:1.2.3.4'), '00000000000000000000ffff01020304');
  t.throws(() => ipBytes('localhost'), TypeError);
  const v6 = certsOf(generateSelfSigned('2001:db8::5').certPem)[0]!;
  t.ok(v6.checkIP('2001:db8::5'), 'node reads the address back from the certificate');
});

t.test('--cert-dir: generated once with owner-only permissions, then reused', async (t) => {
  const dir = join(tempDir(t), 'nested', 'certs');
  const first = certDirServingCert(dir, '127.0.0.1');
  t.ok(first.generated);
  t.equal(statSync(dir).mode & 0o777, 0o700, 'the directory is owner-only');
  t.equal(statSync(first.keyFile).mode & 0o777, 0o600, 'the key is owner-only');
  t.equal(statSync(first.certFile).mode & 0o777 & ~0o022, 0o644 & ~0o022, 'the certificate is readable');
  t.equal(first.certFile, join(dir, 'apiserver.crt'));
  t.equal(first.keyFile, join(dir, 'apiserver.key'));
  t.equal(first.caFile, join(dir, 'apiserver-ca.crt'));
  t.equal(readFileSync(first.caFile!, 'utf8'), first.cert.caPem);
  t.equal(readFileSync(first.certFile, 'utf8'), first.cert.certPem);

  const again = certDirServingCert(dir, '127.0.0.1');
  t.notOk(again.generated, 'present files are reused');
  t.equal(again.cert.certPem, first.cert.certPem);
  t.equal(again.cert.keyPem, first.cert.keyPem);
  t.equal(again.cert.caPem, first.cert.caPem);

  rmSync(first.caFile!);
  const noCaFile = certDirServingCert(dir, '127.0.0.1');
  t.equal(noCaFile.caFile, first.certFile, 'without our CA file, the chain\'s self-signed root is what to trust');
  t.equal(noCaFile.cert.caPem?.trim(), first.cert.caPem?.trim());
});

t.test('--cert-dir refuses a half-present pair and a file in its place', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'apiserver.key'), 'x');
  t.throws(() => certDirServingCert(dir), { name: 'TlsConfigError', message: /has apiserver\.key but not apiserver\.crt/ });
  t.equal(readFileSync(join(dir, 'apiserver.key'), 'utf8'), 'x', 'nothing was overwritten');
  const file = join(dir, 'plain-file');
  writeFileSync(file, '');
  t.throws(() => certDirServingCert(file), { name: 'TlsConfigError', message: /is not a directory/ });
});

t.test('--tls-cert-file/--tls-private-key-file: loaded when they match, a clear error when not', async (t) => {
  const dir = tempDir(t);
  const a = generateSelfSigned();
  const b = generateSelfSigned();
  const w = (name: string, text: string) => { const p = join(dir, name); writeFileSync(p, text); return p; };
  const certA = w('a.crt', a.certPem);
  const keyA = w('a.key', a.keyPem);
  const keyB = w('b.key', b.keyPem);
  t.same(loadServingCert(certA, keyA), { certPem: a.certPem, keyPem: a.keyPem });
  t.throws(() => loadServingCert(certA, keyB), { name: 'TlsConfigError', message: new RegExp(`${keyB.replace(/[.]/g, '\\.')} is not the private key of ${certA.replace(/[.]/g, '\\.')}`) });
  t.throws(() => loadServingCert(join(dir, 'missing.crt'), keyA), { message: /cannot read the certificate file .*missing\.crt/ });
  t.throws(() => loadServingCert(certA, join(dir, 'missing.key')), { message: /cannot read the private key file .*missing\.key/ });
  t.throws(() => loadServingCert(w('junk.crt', 'hello'), keyA), { message: /holds no PEM certificate/ });
  t.throws(() => loadServingCert(certA, w('junk.key', 'hello')), { message: /holds no usable unencrypted PEM private key/ });
});

t.test('serveTls: a private self-signed pair without flags, plain HTTP on request; bad combinations are refused', async (t) => {
  const fresh = serveTls({ host: '127.0.0.1' });
  t.teardown(() => fresh.cleanup?.());
  t.ok(fresh.cert && fresh.generated && fresh.tempDir, 'no TLS flag: generated into a fresh directory');
  t.equal(statSync(fresh.tempDir!).mode & 0o777, 0o700, 'owner-only');
  t.equal(fresh.caFile, join(fresh.tempDir!, 'apiserver-ca.crt'));
  t.equal(readFileSync(fresh.caFile!, 'utf8'), fresh.cert!.caPem);
  t.equal(statSync(join(fresh.tempDir!, 'apiserver.key')).mode & 0o777, 0o600, 'the key owner-only');
  const second = serveTls({});
  t.not(second.tempDir, fresh.tempDir, 'each serve its own directory');
  second.cleanup!();
  t.throws(() => statSync(second.tempDir!), { code: 'ENOENT' }, 'cleanup removes it');
  t.same(serveTls({ plainHttp: true }), {}, '--plain-http: plain HTTP');
  t.throws(() => serveTls({ plainHttp: true, certDir: '/tmp/x' }), { name: 'TlsConfigError', message: /--plain-http serves without TLS/ });
  t.throws(() => serveTls({ plainHttp: true, tlsCertFile: 'a', tlsPrivateKeyFile: 'b' }), { message: /--plain-http serves without TLS/ });
  t.throws(() => serveTls({ tlsCertFile: 'a.crt' }), { name: 'TlsConfigError', message: /go together/ });
  t.throws(() => serveTls({ tlsPrivateKeyFile: 'a.key' }), { message: /go together/ });
  t.throws(() => serveTls({ certDir: '/tmp/x', tlsCertFile: 'a', tlsPrivateKeyFile: 'b' }), { message: /not both/ });
  t.throws(() => serveTls({ certDir: ' ' }), { message: /--cert-dir needs a path/ });
  const dir = tempDir(t);
  const r = serveTls({ certDir: dir });
  t.ok(r.cert && r.generated && r.caFile === join(dir, 'apiserver-ca.crt'));
  t.equal(r.cleanup, undefined, '--cert-dir is kept');
});

t.test('startReference with TLS: https URL, trusted clients get /healthz, untrusted ones are refused', async (t) => {
  const ref = await startReference({ tls: 'self-signed' });
  t.teardown(() => ref.close());
  t.match(ref.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  t.match(ref.caPem, /^-----BEGIN CERTIFICATE-----/);
  t.same(await get(ref.url, '/healthz', ref.caPem), { status: 200, body: 'ok' });
  const sc = await get(ref.url, '/apis/storage.orch.io/v1/storageclasses', ref.caPem);
  t.equal(sc.status, 200, 'the API is on the same HTTPS port');
  await t.rejects(get(ref.url, '/healthz', undefined), { code: /SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY/ }, 'a client that does not trust the CA is refused');
  const other = generateSelfSigned();
  await t.rejects(get(ref.url, '/healthz', other.caPem), { code: /SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY/ }, 'nor one trusting another CA');
  const plain = await fetch(ref.url.replace('https:', 'http:') + '/healthz');
  t.equal(plain.status, 400, 'plain HTTP to the HTTPS port: 400, as upstream (Go) answers');
  t.equal(await plain.text(), 'Client sent an HTTP request to an HTTPS server.\n');
  t.same(await get(ref.url, '/healthz', ref.caPem), { status: 200, body: 'ok' }, 'and TLS clients are still served');
  // Watches stream over TLS too, and close() does not wait for them.
  const watch = await new Promise<string>((resolve, reject) => {
    const req = httpsRequest(new URL('/apis/storage.orch.io/v1/storageclasses?watch=true&allowWatchBookmarks=false', ref.url), { ca: ref.caPem, agent: false }, (res) => {
      resolve(String(res.statusCode));
      res.resume();
    });
    req.on('error', reject);
    req.end();
  });
  t.equal(watch, '200');
  const started = Date.now();
  await ref.close();
  t.ok(Date.now() - started < 3000, 'close() ends open TLS watches promptly');
});

t.test('startReference with given PEMs serves them; a mismatched pair is refused at start', async (t) => {
  const s = generateSelfSigned();
  const ref = await startReference({ tls: { certPem: s.certPem, keyPem: s.keyPem, caPem: s.caPem } });
  t.teardown(() => ref.close());
  t.equal(ref.caPem, s.caPem);
  t.same(await get(ref.url, '/livez', s.caPem), { status: 200, body: 'ok' });
  const other = generateSelfSigned();
  await t.rejects(startReference({ tls: { certPem: s.certPem, keyPem: other.keyPem } }), { name: 'TlsConfigError', message: /tls\.keyPem is not the private key of tls\.certPem/ });
  const plain = await startReference({});
  t.teardown(() => plain.close());
  t.match(plain.url, /^http:\/\//, 'without tls: plain HTTP as before');
  t.equal(plain.caPem, undefined);
});
