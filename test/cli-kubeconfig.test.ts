// run --kubeconfig / --context / KUBECONFIG: the target and credentials as kubectl reads them, a
// kubeconfig written by the real kubectl and one written by hand (relative files, tokenFile), and
// mutual TLS: the runner presents the kubeconfig's client certificate.
import t from 'tap';
import { execa, execaNode } from 'execa';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createHttpsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { BIN } from './helpers/serve.js';
import { startReference } from '../reference/server.js';
import { generateSelfSigned } from '../reference/tls.js';
import { issue, certificatePem } from '../reference/certificate.js';
import { loadKubeconfig, kubeconfigFile } from '../runner/kubeconfig.js';
import { UsageError } from '../runner/errors.js';

const cli = (args: string[], opts: Record<string, unknown> = {}) => execaNode(BIN, args, { reject: false, timeout: 120_000, ...opts });
const tmp = () => mkdtempSync(join(tmpdir(), 'oc-kubeconfig-'));
const FOCUS = ['--focus', '^api\\.discovery\\.version$'];
const b64 = (s: string) => Buffer.from(s).toString('base64');

async function authReference(t: { teardown(fn: () => unknown): void }) {
  const ref = await startReference({ host: '127.0.0.1', port: 0, tls: 'self-signed', auth: { tokens: [{ token: 'admin-token', user: 'admin', groups: ['system:masters'] }], authorizationMode: 'RBAC', anonymous: false } });
  t.teardown(() => ref.close());
  return ref;
}

t.test('a kubeconfig written by kubectl: server, embedded CA, token, contexts; explicit flags win', async (t) => {
  const ref = await authReference(t);
  const dir = tmp();
  const kc = join(dir, 'config');
  writeFileSync(join(dir, 'ca.pem'), ref.caPem!);
  const kubectl = (...args: string[]) => execa('kubectl', ['config', '--kubeconfig', kc, ...args]);
  await kubectl('set-cluster', 'ref', '--server', ref.url, '--certificate-authority', join(dir, 'ca.pem'), '--embed-certs=true');
  await kubectl('set-credentials', 'admin', '--token', 'admin-token');
  await kubectl('set-credentials', 'stranger', '--token', 'wrong-token');
  await kubectl('set-context', 'good', '--cluster', 'ref', '--user', 'admin');
  await kubectl('set-context', 'bad', '--cluster', 'ref', '--user', 'stranger');
  await kubectl('use-context', 'good');

  const good = await cli(['run', '--kubeconfig', kc, ...FOCUS, '--reporter', `json=${dir}/r.json`]);
  t.equal(good.exitCode, 0, good.stderr);
  const report = JSON.parse(readFileSync(`${dir}/r.json`, 'utf8'));
  t.equal(report.target.api, ref.url, 'the kubeconfig\'s server is the target');
  t.equal(report.summary.passed, 1);

  const bad = await cli(['run', '--kubeconfig', kc, '--context', 'bad', ...FOCUS]);
  t.equal(bad.exitCode, 2, bad.stderr);
  t.match(bad.stderr, /the target rejected the credentials: pass --token or --kubeconfig/);

  // --token wins over the context's token; KUBECONFIG (first file of the list) with --context.
  const winning = await cli(['run', '--context', 'bad', '--token', 'admin-token', ...FOCUS], { env: { KUBECONFIG: `${kc}:${dir}/other` } });
  t.equal(winning.exitCode, 0, winning.stderr);

  // KUBECONFIG alone does not move a run off the embedded reference.
  t.equal(kubeconfigFile(undefined, undefined, { KUBECONFIG: kc }), undefined);
  t.equal(kubeconfigFile('', undefined, { KUBECONFIG: `${kc}:/x` }), kc, '--kubeconfig without a file: $KUBECONFIG\'s first');

  const noSuch = await cli(['run', '--kubeconfig', kc, '--context', 'nope', ...FOCUS]);
  t.equal(noSuch.exitCode, 2);
  t.match(noSuch.stderr, /no context "nope" \(named by --context\); contexts: (good, bad|bad, good)/);
});

t.test('a hand-written kubeconfig: CA file and tokenFile relative to its directory; bad ones are usage errors', async (t) => {
  const ref = await authReference(t);
  const dir = tmp();
  mkdirSync(join(dir, 'creds'));
  writeFileSync(join(dir, 'creds', 'ca.pem'), ref.caPem!);
  writeFileSync(join(dir, 'creds', 'token'), 'admin-token\n');
  const kc = join(dir, 'kubeconfig.yaml');
  writeFileSync(kc, `apiVersion: v1
kind: Config
current-context: main
clusters:
- name: c
  cluster:
    server: ${ref.url}
    certificate-authority: creds/ca.pem
users:
- name: u
  user:
    token: stale-token
    tokenFile: creds/token
contexts:
- name: main
  context: {cluster: c, user: u}
`);
  const r = await cli(['run', '--kubeconfig', kc, ...FOCUS]);
  t.equal(r.exitCode, 0, `tokenFile wins over token, as client-go\n${r.stderr}`);

  const parsed = loadKubeconfig(kc);
  t.match(parsed, { context: 'main', server: ref.url, token: 'admin-token' });
  t.match(parsed.caPem, /BEGIN CERTIFICATE/);

  const write = (name: string, text: string) => { writeFileSync(join(dir, name), text); return join(dir, name); };
  t.throws(() => loadKubeconfig(write('exec.yaml', `current-context: x
clusters: [{name: c, cluster: {server: https://h}}]
users: [{name: u, user: {exec: {command: aws}}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
`)), /user "u" uses exec, which orch-conformance does not support/);
  t.throws(() => loadKubeconfig(write('nocur.yaml', 'clusters: []\ncontexts: [{name: a, context: {cluster: c}}]\n')), /no current-context; name one with --context \(contexts: a\)/);
  t.throws(() => loadKubeconfig(write('junk.yaml', ':\n  - : [')), UsageError);
  t.throws(() => loadKubeconfig(write('halfcert.yaml', `current-context: x
clusters: [{name: c, cluster: {server: https://h}}]
users: [{name: u, user: {client-certificate-data: ${b64('-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n')}}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
`)), /client certificate but no key/);

  const noScheme = write('noscheme.yaml', `current-context: x
clusters: [{name: c, cluster: {server: "127.0.0.1:6443"}}]
contexts: [{name: x, context: {cluster: c}}]
`);
  const bad = await cli(['run', '--kubeconfig', noScheme]);
  t.equal(bad.exitCode, 2);
  t.match(bad.stderr, /context "x"\) server 127\.0\.0\.1:6443: not an http\(s\) URL; give the scheme/);
});

t.test('mutual TLS: the kubeconfig\'s client certificate and key are presented', async (t) => {
  // The reference authenticates by token only, so this target is a small HTTPS server that
  // requires a client certificate signed by the CA it trusts, and records who connected.
  const serving = generateSelfSigned('127.0.0.1');
  const now = Date.now();
  const client = issue({ commonName: 'conformance-client', notBefore: new Date(now - 3600_000), notAfter: new Date(now + 3600_000) });
  const clientCert = certificatePem(client.der);
  const clientKey = client.key.export({ type: 'pkcs8', format: 'pem' }).toString();
  const seen: string[] = [];
  const srv = createHttpsServer({ cert: serving.certPem, key: serving.keyPem, ca: clientCert, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    seen.push(String((req.socket as TLSSocket).getPeerCertificate().subject?.CN));
    res.setHeader('content-type', 'application/json');
    if (req.url === '/version') res.end(JSON.stringify({ major: '1', minor: '37', gitVersion: 'v1.37.0' }));
    else if (req.url === '/api') res.end(JSON.stringify({ kind: 'APIVersions', versions: ['v1'] }));
    else { res.statusCode = 404; res.end('{}'); }
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.teardown(() => srv.close());
  const url = `https://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  const dir = tmp();
  writeFileSync(join(dir, 'client.crt'), clientCert);
  writeFileSync(join(dir, 'client.key'), clientKey);
  const kc = join(dir, 'config');
  writeFileSync(kc, `current-context: x
clusters: [{name: c, cluster: {server: "${url}", certificate-authority-data: ${b64(serving.caPem)}}}]
users: [{name: u, user: {client-certificate: client.crt, client-key: client.key}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
`);
  const r = await cli(['run', '--kubeconfig', kc, ...FOCUS, '--reporter', `json=${dir}/r.json`]);
  t.not(r.exitCode, 2, r.stderr);
  t.not(r.exitCode, 3, `the handshake succeeded\n${r.stderr}`);
  t.ok(seen.length > 0 && seen.every((cn) => cn === 'conformance-client'), `every connection presented the client certificate: ${seen}`);

  // The same target without the certificate: the handshake fails, which is "unreachable".
  writeFileSync(join(dir, 'ca.pem'), serving.caPem);
  const noCert = await cli(['run', '--api', url, '--ca', join(dir, 'ca.pem'), ...FOCUS]);
  t.equal(noCert.exitCode, 3, noCert.stderr);
});
