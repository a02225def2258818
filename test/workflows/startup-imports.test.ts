// What `serve` and `agent` load before they start (issue 25, fast starts): module loading is most of
// a start, and an embedded run starts about 60 agents. These packages and modules are loaded on first
// use only; a static import of one of them from the start-up path would quietly undo that.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../..', import.meta.url));

/** Every module a fresh process loads when it imports `modules` (the commands' start-up graph), as URLs. */
function loadedBy(modules: readonly string[]): string[] {
  // ES modules: a module-loading hook (on a thread of its own) reports every URL it loads to the main
  // thread. CommonJS modules required from CommonJS do not pass the hook (Node 20): they are read
  // from require.cache. A last import of a marker module flushes the hook's messages.
  const hooks = `let port; export function initialize(d) { port = d.port; }
export async function load(url, context, next) { port.postMessage(url); return next(url, context); }`;
  const script = `import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const seen = [];
const MARKER = 'data:text/javascript,export const marker = 1;';
const flushed = new Promise((resolve) => port1.on('message', (u) => (u === MARKER ? resolve() : seen.push(u))));
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}), { data: { port: port2 }, transferList: [port2] });
for (const m of ${JSON.stringify(modules.map((m) => `${dist}${m}`))}) await import(m);
await import(MARKER);
await flushed;
port1.close();
const cjs = Object.keys(createRequire(import.meta.url).cache).map((f) => pathToFileURL(f).href);
process.stdout.write(JSON.stringify([...new Set([...seen, ...cjs])]));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) throw new Error(`child failed (${r.status ?? r.signal}): ${r.stderr}`);
  return JSON.parse(r.stdout) as string[];
}

t.test('serve and agent start without what only some requests or options need', async (t) => {
  const loaded = loadedBy(['bin/commands/serve.js', 'bin/commands/agent.js']);
  // Both ways of seeing a module report: an ES module of the commands' own, a CommonJS one that
  // CommonJS requires (grpc-js's channel, from its index).
  t.ok(loaded.some((u) => u.endsWith('/reference/agent/agent.js')), 'the agent module is among those reported');
  t.ok(loaded.some((u) => u.endsWith('/reference/server.js')), 'the reference server module is among those reported');
  t.ok(loaded.some((u) => u.endsWith('/@grpc/grpc-js/build/src/channel.js')), 'a CommonJS module required from CommonJS is among those reported');
  const unwanted: Array<[RegExp, string]> = [
    [/\/node_modules\/yaml\//, 'the YAML parser (kubeconfigs the runner writes are JSON; serve writes its own)'],
    [/\/node_modules\/@opentelemetry\//, "@opentelemetry/api (prom-client's default process metrics)"],
    [/\/node_modules\/prom-client\/index\.js$/, "prom-client's index (its default metrics, Pushgateway, cluster)"],
    [/\/node_modules\/(etcd3|fast-json-patch)\//, 'etcd3 and fast-json-patch (serve --storage etcd, JSON patches)'],
    [/\/reference\/agent\/pod-info\/field-mask\.js$/, 'the pod info field masks (and the Pod strategy they bring)'],
  ];
  for (const [re, what] of unwanted) t.same(loaded.filter((u) => re.test(u)), [], `not loaded at start: ${what}`);
});

t.test("serve's kubeconfig, written without the YAML library, is the document it was written by", async (t) => {
  const { parse } = await import('yaml');
  const { kubeconfigYaml, ADMIN_USER } = await import('../../bin/commands/serve-kubeconfig.js');
  // Values YAML would read otherwise if left plain: a colon and a hash, quotes, a leading dash, a newline.
  const server = 'https://[::1]:6443/#x';
  const token = `-a"b'c: d\ne`;
  const caPem = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
  t.same(parse(kubeconfigYaml(server, token, caPem)), {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'orch', cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
    users: [{ name: ADMIN_USER, user: { token } }],
    contexts: [{ name: 'orch', context: { cluster: 'orch', user: ADMIN_USER } }],
    'current-context': 'orch',
  });
  t.same(parse(kubeconfigYaml(server, 't', undefined)).clusters, [{ name: 'orch', cluster: { server } }], 'no CA: no certificate-authority-data');
});

t.test('a kubeconfig in JSON reads as the same kubeconfig in YAML', async (t) => {
  const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { stringify } = await import('yaml');
  const { loadKubeconfig } = await import('../../runner/kubeconfig.js');
  const doc = {
    apiVersion: 'v1', kind: 'Config', 'current-context': 'run',
    clusters: [{ name: 'run', cluster: { server: 'https://127.0.0.1:6443', 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'run', user: { token: 'abc' } }],
    contexts: [{ name: 'run', context: { cluster: 'run', user: 'run' } }],
  };
  const dir = mkdtempSync(join(tmpdir(), 'oc-kubeconfig-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'json'), JSON.stringify(doc, null, 2));
  writeFileSync(join(dir, 'yaml'), stringify(doc));
  // A flow map that is not JSON falls through to the YAML parser.
  writeFileSync(join(dir, 'flow'), `{apiVersion: v1, kind: Config, current-context: run, clusters: [{name: run, cluster: {server: "https://127.0.0.1:6443", insecure-skip-tls-verify: true}}], users: [{name: run, user: {token: abc}}], contexts: [{name: run, context: {cluster: run, user: run}}]}`);
  const { file: _j, ...fromJson } = loadKubeconfig(join(dir, 'json'));
  const { file: _y, ...fromYaml } = loadKubeconfig(join(dir, 'yaml'));
  const { file: _f, ...fromFlow } = loadKubeconfig(join(dir, 'flow'));
  t.same(fromJson, fromYaml);
  t.same(fromFlow, fromYaml);
  t.equal(fromJson.server, 'https://127.0.0.1:6443');
});
