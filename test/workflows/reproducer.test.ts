// A reproducer per failure: the planted failure's reproducer, run with the real curl against the
// same target (HTTPS, a bearer token), gets the status the case saw; without the token it does not
// (the credential is a placeholder, never the secret). Every report carries it; its pure parts
// (watches, the run's TLS flags, the agent's CA, here-doc delimiters) are checked on exchanges.
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReference } from '../../reference/server.js';
import { processSelfSigned } from '../../reference/tls.js';
import { ALL_CASES } from '../../suites/index.js';
import { runCases } from '../../runner/run.js';
import { parseGates } from '../../runner/gates.js';
import { selectCases } from '../../runner/select.js';
import type { Exchange, RunReport } from '../../runner/results.js';
import { renderJson } from '../../reporters/json.js';
import { renderMarkdown } from '../../reporters/markdown.js';
import { renderHtml } from '../../reporters/html.js';
import { renderConsoleSummary } from '../../reporters/console.js';
import { curlReproducer, reproducerTarget } from '../../reporters/reproducer.js';
import { startBrokenTarget } from '../helpers/broken-target.js';

const SC = '/apis/storage.orch.io/v1/storageclasses';
const TOKEN = 's3cret-token';

/** Runs a reproducer as a user would paste it: bash, TOKEN in the environment; the status line curl printed. */
function replay(script: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', script], { env: { PATH: process.env.PATH, ...env }, timeout: 15_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${err.message}\n${stderr}`));
      const m = /^HTTP\/[\d.]+ (\d{3})/m.exec(stdout);
      m ? resolve(Number(m[1])) : reject(new Error(`no status line in:\n${stdout}\n${stderr}`));
    });
  });
}

t.test('a planted failure\'s reproducer replays with curl to the same status', async (t) => {
  const ref = await startReference();
  t.teardown(() => ref.close());
  // A target that needs a token and accepts a StorageClass without provisioner (the rule
  // api.storageclass.provisioner.required is about): it answers such a create itself, 201, so
  // only a replay that sends the same body (and the token) meets the breakage again.
  const broken = await startBrokenTarget(ref.url, {
    request: (r) => {
      if (r.headers.authorization !== `Bearer ${TOKEN}`) return { status: 401, headers: { 'content-type': 'application/json' }, body: '{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Unauthorized","code":401}' };
      if (r.method !== 'POST' || r.path.split('?')[0] !== SC) return undefined;
      const obj = JSON.parse(r.body);
      if (obj.provisioner !== undefined) return undefined;
      return { status: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...obj, metadata: { ...obj.metadata, uid: 'planted' } }) };
    },
  }, { tls: processSelfSigned() });
  t.teardown(() => broken.close());
  const dir = await mkdtemp(join(tmpdir(), 'repro-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const caFile = join(dir, 'ca pem\'s.crt'); // a space and a quote: the path is quoted for the shell
  await writeFile(caFile, processSelfSigned().caPem);

  const cases = selectCases(ALL_CASES, { ids: ['api.storageclass.provisioner.required'] });
  const run = await runCases({ cases, conn: { baseUrl: broken.url, token: TOKEN, caPem: processSelfSigned().caPem }, embedded: false, gates: parseGates(undefined), version: 'test' });
  // What `run` records of its command line (the token redacted), which the reproducer takes --ca from.
  const report: RunReport = { ...run, command: ['run', '--api', broken.url, '--token', '<redacted>', '--ca', caFile] };
  const c = report.cases[0]!;
  t.equal(c.status, 'failed', c.message);

  const json = JSON.parse(renderJson(report)) as RunReport;
  const failing = json.cases[0]!.exchanges.find((ex) => ex.reproducer);
  t.ok(failing, 'the JSON report carries a reproducer');
  const repro = failing!.reproducer!;
  t.equal(failing!.status, 201, 'on the exchange the failure is about');
  t.notOk(repro.includes(TOKEN), 'never the token');
  t.match(repro, '"authorization: Bearer $TOKEN"');
  t.match(repro, `--cacert '${caFile.replace(/'/g, `'\\''`)}'`, 'the run\'s --ca, quoted');
  t.match(repro, /--data-binary @- \\\n {2}https:\S+ <<'EOF'\n\{.*\}\nEOF$/, 'the body in a here-doc');
  t.equal(await replay(repro, { TOKEN }), 201, 'curl gets the status the case saw');
  t.equal(await replay(repro, { TOKEN: 'wrong' }), 401, 'the token is the placeholder\'s: a wrong one is refused');

  t.equal(json.cases[0]!.exchanges.filter((ex) => ex.reproducer).length, 1, 'one reproducer per failure');
  t.ok(renderConsoleSummary(report).includes(`reproducer (exchange ${c.failedExchange! + 1}`), 'console: the first failure\'s');
  t.ok(renderConsoleSummary(report).includes(repro), 'console: whole and unindented, so that it pastes');
  t.match(renderMarkdown(report), `#### Reproducer (exchange ${c.failedExchange! + 1})\n\n\`\`\`sh\n`);
  const html = renderHtml(report);
  t.match(html, /<h4>Reproducer \(exchange \d+\)<button type="button" class="copy" data-copy="repro-api\.storageclass\.provisioner\.required">Copy<\/button><\/h4><pre id="repro-api\.storageclass\.provisioner\.required"># TOKEN: [^<]*\ncurl -sS -i -X POST/);
});

const ex = (over: Partial<Exchange>): Exchange => ({ method: 'GET', url: 'https://api.example:6443/api/v1/namespaces', requestHeaders: { accept: 'application/json', authorization: 'Bearer <redacted>' }, status: 200, durationMs: 1, ...over });

t.test('a watch opens with curl -N, followed by the write whose event it should carry', async (t) => {
  const list = [
    ex({ url: 'https://api.example:6443/api/v1/namespaces?watch=true&resourceVersion=5' }),
    ex({ url: 'https://api.example:6443/api/v1/namespaces/x' }),
    ex({ method: 'POST', url: 'https://api.example:6443/api/v1/namespaces', requestBody: '{"metadata":{"name":"x"}}\nEOF', status: 201 }),
  ];
  const r = curlReproducer(list, 0, reproducerTarget({ target: { api: 'https://api.example:6443', embedded: false } }));
  t.match(r, /^curl -sS -i -N --cacert "\$CA" /m, 'the watch streams; the CA a placeholder when the run named no file');
  t.match(r, /# CA: /);
  t.match(r, /in a second shell, the write .*\(the case saw 201\):\ncurl -sS -i -X POST/, 'the next write, not the GET between');
  t.match(r, /<<'EOF_1'\n\{"metadata":\{"name":"x"\}\}\nEOF\nEOF_1$/, 'a delimiter no body line equals');
});

t.test('the run\'s TLS flags: -k when it skipped verification; the agent with --agent-ca or -k', async (t) => {
  const target = { api: 'https://api.example:6443', embedded: false, agent: { url: 'https://node-1:10250', node: 'node-1' } };
  const insecure = reproducerTarget({ target, command: ['run', '--insecure-skip-tls-verify', '--agent-ca', '/etc/agent-ca.pem'] });
  t.match(curlReproducer([ex({})], 0, insecure), /^curl -sS -i -k /m);
  t.match(curlReproducer([ex({ url: 'https://node-1:10250/pods' })], 0, insecure), /^curl -sS -i --cacert \/etc\/agent-ca\.pem /m);
  const plain = reproducerTarget({ target, command: ['run', '--ca=/tmp/ca.pem'] });
  t.match(curlReproducer([ex({ url: 'https://node-1:10250/pods' })], 0, plain), /^curl -sS -i -k /m, 'the run did not verify the agent without --agent-ca');
  t.match(curlReproducer([ex({ method: 'DELETE' })], 0, plain), /^curl -sS -i -X DELETE --cacert \/tmp\/ca\.pem /m);
  t.match(curlReproducer([ex({ url: 'http://api.example:8080/healthz', requestHeaders: {} })], 0, plain), /^curl -sS -i \\\n  http:\/\/api\.example:8080\/healthz$/m, 'plain HTTP: no TLS flag');
  const kubeconfig = reproducerTarget({ target, command: ['run', '--kubeconfig', '/home/me/.kube/config'] });
  t.match(curlReproducer([ex({ requestHeaders: { accept: 'application/json' } })], 0, kubeconfig), /^# if the run authenticated with its kubeconfig's client certificate, add: --cert "\$CERT" --key "\$KEY"$/m, 'a client certificate is never recorded: the reproducer says where it goes');
  t.notMatch(curlReproducer([ex({})], 0, kubeconfig), /--cert/, 'not when the request carried a token');
});
