// The real kubectl's typed commands, which speak protobuf (application/vnd.kubernetes.protobuf),
// against `serve`: `kubectl create namespace` and `kubectl create quota` send protobuf bodies and
// read protobuf answers (-v=8 shows both), errors come back as protobuf Status that kubectl
// reads, and `kubectl describe` reads namespaces, quotas and pods in protobuf. kubectl must be on
// PATH.
import t from 'tap';
import { parse } from 'yaml';
import { kubectlAgainst } from './helpers/kubectl.js';
import { startServe } from './helpers/serve.js';

const PB = 'application/vnd.kubernetes.protobuf';

/** The request and response headers kubectl -v=8 logs for its POST, in order. */
function exchange(stderr: string): { request: string[]; response: string[]; status: string } {
  const lines = stderr.split('\n');
  const post = lines.findIndex((l) => / POST http/.test(l));
  const statusAt = lines.findIndex((l, i) => i > post && /Response Status:/.test(l));
  const header = (l: string) => /round_trippers.go:\d+\]\s{4,}\S/.test(l);
  return {
    request: lines.slice(post + 1, statusAt).filter(header).map((l) => l.replace(/^.*\]\s+/, '')),
    response: lines.slice(statusAt + 1).filter(header).map((l) => l.replace(/^.*\]\s+/, '')),
    status: lines[statusAt]?.replace(/^.*Response Status: /, '') ?? '',
  };
}

t.test('kubectl create namespace and create quota speak protobuf', async (t) => {
  const ref = await startServe(t, ['--plain-http']);
  const { kubectl } = kubectlAgainst(t, ref.url);

  const ns = await kubectl('create', 'namespace', 'x', '-v=8');
  t.equal(ns.exitCode, 0, ns.exitCode === 0 ? 'kubectl create namespace x' : ns.stderr);
  t.match(ns.stdout, /^namespace\/x created$/m);
  const nsx = exchange(ns.stderr);
  t.ok(nsx.request.includes(`Content-Type: ${PB}`), `sent protobuf: ${nsx.request.join('; ')}`);
  t.ok(nsx.request.some((h) => h.startsWith(`Accept: ${PB}`)), 'asked for protobuf first');
  t.match(nsx.status, /^201 Created/);
  t.ok(nsx.response.includes(`Content-Type: ${PB}`), `received protobuf: ${nsx.response.join('; ')}`);

  const quota = await kubectl('create', 'quota', 'q', '--hard=pods=3', '-n', 'x', '-v=8');
  t.equal(quota.exitCode, 0, quota.exitCode === 0 ? 'kubectl create quota q' : quota.stderr);
  t.match(quota.stdout, /^resourcequota\/q created$/m);
  const qx = exchange(quota.stderr);
  t.ok(qx.request.includes(`Content-Type: ${PB}`), `sent protobuf: ${qx.request.join('; ')}`);
  t.match(qx.status, /^201 Created/);
  t.ok(qx.response.includes(`Content-Type: ${PB}`), `received protobuf: ${qx.response.join('; ')}`);

  const got = await kubectl('get', 'quota', 'q', '-n', 'x', '-o', 'yaml');
  t.equal(got.exitCode, 0, got.stderr);
  const obj = parse(got.stdout);
  t.equal(obj.spec.hard.pods, '3', 'hard pods 3');
  t.equal(obj.metadata.namespace, 'x');

  // Errors come back as a protobuf Status, which kubectl reads.
  const again = await kubectl('create', 'namespace', 'x', '-v=8');
  t.not(again.exitCode, 0);
  t.match(again.stderr, /Error from server \(AlreadyExists\): namespaces "x" already exists/);
  t.ok(exchange(again.stderr).response.includes(`Content-Type: ${PB}`), 'the Status in protobuf');
  const invalid = await kubectl('create', 'quota', 'bad', '--hard=pods=-1', '-n', 'x');
  t.not(invalid.exitCode, 0);
  t.match(invalid.stderr, /ResourceQuota "bad" is invalid: spec\.hard\[pods\]: Invalid value: "-1": must be greater than or equal to 0/);

  // kubectl describe reads through the typed client (protobuf): the quota controller's status
  // shows as the Used and Hard columns.
  let described = '';
  for (let i = 0; i < 50 && !/pods\s+0\s+3/.test(described); i++) {
    described = (await kubectl('describe', 'quota', 'q', '-n', 'x')).stdout;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.match(described, /pods\s+0\s+3/, described);
  const nsDescribed = await kubectl('describe', 'namespace', 'x');
  t.match(nsDescribed.stdout, /Status:\s+Active/);
  t.match(nsDescribed.stdout, /Name:\s+q/, 'the namespace\'s quotas, listed in protobuf');
  t.equal((await kubectl('run', 'p', '--image=registry.orch.io/app:1', '-n', 'x')).exitCode, 0);
  const pod = await kubectl('describe', 'pod', 'p', '-n', 'x');
  t.equal(pod.exitCode, 0, pod.stderr);
  t.match(pod.stdout, /Image:\s+registry\.orch\.io\/app:1/);

  // kubectl drain reads the node and lists its pods through the typed client.
  const node = await fetch(`${ref.url}/api/v1/nodes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }) });
  t.equal(node.status, 201);
  t.equal((await kubectl('run', 'on-n1', '--image=registry.orch.io/app:1', '-n', 'x', '--overrides={"spec":{"nodeName":"n1"}}')).exitCode, 0);
  const drain = await kubectl('drain', 'n1', '--force', '--grace-period=0', '--timeout=20s', '-v=8');
  t.equal(drain.exitCode, 0, drain.exitCode === 0 ? 'kubectl drain n1' : drain.stderr);
  t.match(drain.stdout, /node\/n1 drained/);
  const list = drain.stderr.split('\n').findIndex((l) => /GET http\S+\/api\/v1\/pods\?fieldSelector=spec\.nodeName/.test(l));
  t.ok(list >= 0, 'drain listed the pods of the node');
  t.match(drain.stderr.split('\n').slice(list).find((l) => /Content-Type:/.test(l) && /round_trippers.go:587/.test(l)) ?? '', PB, 'the pod list came in protobuf');
});
