// The node proxy between real processes, wired as an operator would: `serve` generates its agent-client
// certificate next to its serving pair and prints the CA ("agent-client-ca:"), verifies the agent's
// serving certificate with --agent-certificate-authority and reaches a loopback node with
// --node-proxy-allow-loopback; `agent --client-ca-file` accepts the server's certificate (no token of
// the server is involved) and authorizes its user with a SubjectAccessReview. Bad flags: exit 2.
import t from 'tap';
import { execaNode } from 'execa';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMockCri } from '../mocks/cri/server.js';
import { generateSelfSigned } from '../reference/tls.js';
import { AGENT_CERT_FILES } from '../reference/agent/serving-cert.js';
import { BIN, startServe } from './helpers/serve.js';

const dir = mkdtempSync(join(tmpdir(), 'orch-cli-node-proxy-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const TOKEN = 'admin-token';

t.test('serve and agent processes: the proxy reaches the agent with its certificate, both ways verified', async (t) => {
  writeFileSync(join(dir, 'tokens.csv'), `${TOKEN},admin,1,"system:masters"\n`);
  writeFileSync(join(dir, 'token'), TOKEN, { mode: 0o600 });
  // The agent's serving pair, from a CA the server is told to trust.
  const agentPki = join(dir, 'agent-pki');
  mkdirSync(agentPki, { mode: 0o700 });
  const serving = generateSelfSigned('127.0.0.1');
  writeFileSync(join(agentPki, AGENT_CERT_FILES.key), serving.keyPem, { mode: 0o600 });
  writeFileSync(join(agentPki, AGENT_CERT_FILES.cert), serving.certPem);
  writeFileSync(join(agentPki, AGENT_CERT_FILES.ca), serving.caPem);

  const certs = join(dir, 'certs');
  const s = await startServe(t, ['--cert-dir', certs, '--token-auth-file', join(dir, 'tokens.csv'), '--authorization-mode', 'RBAC', '--node-proxy-allow-loopback', '--agent-certificate-authority', join(agentPki, AGENT_CERT_FILES.ca), '--controllers', '', '--no-scheduler']);
  t.equal(s.agentClientCa, join(certs, 'agent-client-ca.crt'), 'the agent-client CA is printed, kept in --cert-dir');
  t.equal(statSync(join(certs, 'agent-client.key')).mode & 0o777, 0o600, 'its key owner-only');

  const cri = await startMockCri({ socket: join(dir, 'cri', 'cri.sock'), root: join(dir, 'cri-state') });
  t.teardown(() => cri.close());
  const agent = execaNode(BIN, ['agent', '--api', s.url, '--ca', s.ca!, '--token-file', join(dir, 'token'), '--client-ca-file', s.agentClientCa!,
    '--cert-dir', agentPki, '--root-dir', join(dir, 'root'), '--container-runtime-endpoint', cri.criUrl, '--hostname-override', 'cli-node',
    '--address', '127.0.0.1', '--port', '0', '--node-ip', '127.0.0.1'], { reject: false });
  t.teardown(() => { agent.kill('SIGTERM'); });
  let out = '';
  agent.stdout!.on('data', (c: Buffer) => { out += c.toString(); });
  agent.stderr!.on('data', (c: Buffer) => { out += c.toString(); });
  const deadline = Date.now() + 20_000;
  while (!/^agent: \S+$/m.test(out)) {
    if (agent.exitCode !== null || Date.now() > deadline) throw new Error(`the agent did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }

  const ca = readFileSync(s.ca!, 'utf8');
  // The Node object is written at start; bounded wait for it (it may trail the "agent:" line).
  let pods: { status: number; text: string } = { status: 0, text: '' };
  while (Date.now() < deadline) {
    pods = await fetchWithCa(`${s.url}/api/v1/nodes/cli-node/proxy/pods`, ca);
    if (pods.status !== 404) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(pods.status, 200, `through the proxy: ${pods.text.slice(0, 300)}`);
  t.equal(JSON.parse(pods.text).kind, 'PodList');
  // With the agents' CA given, serve has nothing to warn about them (kubectl-auth.test.ts: the
  // warning without it).
  s.proc.kill('SIGTERM');
  t.notMatch(String((await s.proc).stderr), /serving certificates are not verified/, 'no warning about unverified agents');
});

t.test('serve refuses bad node proxy flags with exit 2', async (t) => {
  writeFileSync(join(dir, 'not-a-ca.pem'), 'nothing here');
  const cases: Array<[string[], RegExp]> = [
    [['--agent-client-certificate', join(dir, 'a.crt')], /--agent-client-certificate and --agent-client-key go together/],
    [['--agent-client-certificate', join(dir, 'no.crt'), '--agent-client-key', join(dir, 'no.key')], /cannot read the agent client certificate file .*no\.crt/],
    [['--agent-certificate-authority', join(dir, 'not-a-ca.pem')], /--agent-certificate-authority .*: no PEM certificate in it/],
    [['--agent-certificate-authority', join(dir, 'missing.pem')], /cannot read the --agent-certificate-authority file/],
  ];
  for (const [args, message] of cases) {
    const r = await execaNode(BIN, ['serve', '--api-port', '0', '--plain-http', ...args], { reject: false, timeout: 20_000, env: { TMPDIR: dir } });
    t.equal(r.exitCode, 2, `serve ${args.join(' ')}: exit 2 (${r.stderr})`);
    t.match(r.stderr, message);
  }
});

/** GET with the admin token, trusting `ca`. */
async function fetchWithCa(url: string, ca: string): Promise<{ status: number; text: string }> {
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, headers: { authorization: `Bearer ${TOKEN}` }, agent: false }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => { text += c.toString(); });
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end();
  });
}
