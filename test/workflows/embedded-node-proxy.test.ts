// The embedded run's node proxy is wired as an operator would wire it (issue 23 §1): the reference
// verifies its agents' serving certificates against the CA it gave them (upstream's
// --kubelet-certificate-authority) and presents its agent-client certificate, never a token. Without
// this test a target started without the CA would still pass every case: the proxy would simply not
// verify. Two stand-in agents on loopback (the embedded run opts in to loopback nodes): one serving
// with the embedded agents' certificate is reached; one serving a certificate of another CA receives
// no request at all.
import t from 'tap';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { startEmbeddedTarget } from '../../runner/embedded.js';
import { generateSelfSigned, type SelfSigned } from '../../reference/tls.js';

interface Seen { authorization?: string; clientCert?: X509Certificate }

/** An HTTPS listener serving `cert`, asking for client certificates and recording every request. */
async function standIn(t: { teardown(fn: () => unknown): void }, cert: SelfSigned): Promise<{ port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server: Server = createServer({ cert: cert.certPem, key: cert.keyPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    seen.push({ authorization: req.headers.authorization, ...(peer?.raw ? { clientCert: new X509Certificate(peer.raw) } : {}) });
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise((r) => server.close(r)));
  return { port: (server.address() as AddressInfo).port, seen };
}

t.test('the embedded reference verifies its agents\' certificates and presents its own', async (t) => {
  const target = await startEmbeddedTarget({ overrides: {}, facts: [] }, { runId: 'nodeproxyca' });
  t.teardown(() => target.close());
  const { baseUrl, caPem, token } = target.group.conn;
  const call = (method: string, path: string, body?: unknown) => new Promise<{ status: number; text: string }>((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = request(`${baseUrl}${path}`, {
      method, ca: caPem, agent: false,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(text ? { 'content-type': 'application/json' } : {}) },
    }, (res) => {
      let out = '';
      res.on('data', (c: Buffer) => { out += c.toString(); });
      res.on('end', () => resolve({ status: res.statusCode!, text: out }));
    });
    req.on('error', reject);
    req.end(text);
  });
  const node = async (name: string, port: number) => {
    const r = await call('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name }, status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { agentEndpoint: { Port: port } } } });
    if (r.status !== 201) throw new Error(`node ${name}: ${r.status} ${r.text}`);
  };

  const trusted = await standIn(t, target.agentTls.serving);
  const stranger = await standIn(t, generateSelfSigned('127.0.0.1'));
  await node('oc-nodeproxyca-trusted', trusted.port);
  await node('oc-nodeproxyca-stranger', stranger.port);

  const ok = await call('GET', '/api/v1/nodes/oc-nodeproxyca-trusted/proxy/healthz');
  t.same([ok.status, ok.text], [200, 'ok'], 'an agent serving the embedded agents\' certificate is reached');
  const seen = trusted.seen.at(-1);
  t.equal(seen?.authorization, undefined, 'no bearer credential goes to the agent');
  t.ok(seen?.clientCert && target.agentTls.clientCaPem && seen.clientCert.verify(new X509Certificate(target.agentTls.clientCaPem).publicKey),
    'the reference presents a client certificate signed by the CA its agents are given (clientCAFile)');

  const refused = await call('GET', '/api/v1/nodes/oc-nodeproxyca-stranger/proxy/healthz');
  t.equal(refused.status, 503, `a certificate of another CA is refused: ${refused.text}`);
  t.match(refused.text, /error trying to reach the agent/);
  t.same(stranger.seen, [], 'and that listener receives no request: the handshake failed first');
});
