// The machine's kubectl against `serve`: `kubectl get` prints the server's Tables, so the headers
// and cells are upstream's for every kind (reference/apiserver/table): storage classes, pods (wide
// too), nodes, namespaces, quotas, cluster roles, role bindings, and `kubectl get pods -w` prints a
// row for each change. kubectl must be on PATH.
import t from 'tap';
import { execa } from 'execa';
import { join } from 'node:path';
import { kubectlAgainst } from './helpers/kubectl.js';
import { startServe } from './helpers/serve.js';

const ago = (ms: number): string => new Date(Date.now() - ms).toISOString().replace(/\.\d+Z$/, 'Z');

/** The lines of a kubectl table, each split on its column gaps (two or more spaces). */
const rowsOf = (stdout: string): string[][] => stdout.trimEnd().split('\n').map((l) => l.trim().split(/\s{2,}/));

t.test('kubectl get prints the server-side Tables', async (t) => {
  const ref = await startServe(t, ['--plain-http', '--controllers', '', '--no-scheduler']);
  const { dir, kubeconfig, kubectl } = kubectlAgainst(t, ref.url);
  const send = async (method: string, path: string, body: unknown, contentType = 'application/json'): Promise<void> => {
    const res = await fetch(`${ref.url}${path}`, { method, headers: { 'content-type': contentType }, body: JSON.stringify(body) });
    t.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.status < 300 ? '' : await res.text()}`);
  };
  const status = (path: string, body: unknown) => send('PATCH', `${path}/status`, { status: body }, 'application/merge-patch+json');
  const get = async (...args: string[]): Promise<string[][]> => {
    const r = await kubectl('get', ...args);
    t.equal(r.exitCode, 0, `kubectl get ${args.join(' ')}: ${r.stderr}`);
    return rowsOf(r.stdout);
  };

  // Objects with the fields each printer reads; status set as the agent and controllers would.
  await send('POST', '/apis/storage.orch.io/v1/storageclasses', { apiVersion: 'storage.orch.io/v1', kind: 'StorageClass', metadata: { name: 'gold', annotations: { 'storageclass.orch.io/is-default-class': 'true' } }, provisioner: 'p.orch.io/gold', reclaimPolicy: 'Retain', allowVolumeExpansion: true });
  await send('POST', '/apis/storage.orch.io/v1/storageclasses', { apiVersion: 'storage.orch.io/v1', kind: 'StorageClass', metadata: { name: 'silver' }, provisioner: 'p.orch.io/silver', volumeBindingMode: 'WaitForFirstConsumer' });
  await send('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { 'node-role.orch.io/control-plane': '' } } });
  await status('/api/v1/nodes/n1', {
    conditions: [{ type: 'Ready', status: 'True', reason: 'AgentReady', message: 'ready', lastHeartbeatTime: ago(0), lastTransitionTime: ago(0) }],
    addresses: [{ type: 'InternalIP', address: '10.1.0.1' }, { type: 'Hostname', address: 'n1' }],
    nodeInfo: { agentVersion: 'v1.37.0', osImage: 'Debian GNU/Linux 12', kernelVersion: '6.1.0', containerRuntimeVersion: 'containerd://2.0.0' },
  });
  await send('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' }, spec: { unschedulable: true } });
  await status('/api/v1/nodes/n2', { conditions: [{ type: 'Ready', status: 'False', reason: 'AgentNotReady', message: 'down', lastHeartbeatTime: ago(0), lastTransitionTime: ago(0) }] });
  await send('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }] } });
  await status('/api/v1/namespaces/default/pods/web', {
    phase: 'Running', podIP: '10.1.0.5', podIPs: [{ ip: '10.1.0.5' }], conditions: [{ type: 'Ready', status: 'True' }],
    containerStatuses: [{ name: 'c', ready: true, restartCount: 2, image: 'busybox', imageID: '', state: { running: { startedAt: ago(60_000) } }, lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(5 * 60_000 + 5_000) } } }],
  });
  await send('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'queued' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
  await send('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
  await send('POST', '/api/v1/namespaces/team/resourcequotas', { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { pods: '3', 'requests.cpu': '2', 'limits.memory': '1Gi' } } });
  await status('/api/v1/namespaces/team/resourcequotas/q', { hard: { pods: '3', 'requests.cpu': '2', 'limits.memory': '1Gi' }, used: { pods: '1', 'requests.cpu': '500m' } });
  await send('POST', '/apis/rbac.authorization.orch.io/v1/clusterroles', { apiVersion: 'rbac.authorization.orch.io/v1', kind: 'ClusterRole', metadata: { name: 'table-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });
  await send('POST', '/apis/rbac.authorization.orch.io/v1/namespaces/default/rolebindings', {
    apiVersion: 'rbac.authorization.orch.io/v1', kind: 'RoleBinding', metadata: { name: 'readers' },
    roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'table-reader' },
    subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.orch.io' }, { kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.orch.io' }, { kind: 'ServiceAccount', name: 'robot', namespace: 'default' }],
  });

  const age = /^\d+s$/;
  const sc = await get('sc');
  t.same(sc[0], ['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION', 'AGE'], 'storage class headers');
  t.same(sc.find((r) => r[0]!.startsWith('gold'))?.slice(0, 5), ['gold (default)', 'p.orch.io/gold', 'Retain', 'Immediate', 'true'], 'the default class, its fields');
  t.same(sc.find((r) => r[0] === 'silver')?.slice(1, 5), ['p.orch.io/silver', 'Delete', 'WaitForFirstConsumer', 'false'], 'defaults for unset fields');
  t.match(sc[1]?.[5], age, 'AGE');

  const pods = await get('pods', '-o', 'wide');
  t.same(pods[0], ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES'], 'pod headers, wide');
  const web = pods.find((r) => r[0] === 'web');
  t.same(web && [...web.slice(0, 3), ...web.slice(5)], ['web', '1/1', 'Running', '10.1.0.5', 'n1', '<none>', '<none>'], 'a running pod');
  t.match(web?.[3], /^2 \(5m\d+s ago\)$/, 'restarted twice, the last time five minutes ago');
  const queued = pods.find((r) => r[0] === 'queued');
  t.same(queued && [...queued.slice(0, 4), ...queued.slice(5)], ['queued', '0/1', 'Pending', '0', '<none>', '<none>', '<none>', '<none>'], 'a pending pod');
  const narrow = await get('pods');
  t.same(narrow[0], ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE'], 'without -o wide: the priority 0 columns');
  const all = await get('pods', '-A');
  t.same(all[0]?.slice(0, 2), ['NAMESPACE', 'NAME'], 'kubectl adds NAMESPACE from the rows\' metadata');
  t.ok(all.some((r) => r[0] === 'default' && r[1] === 'web'), 'the pod with its namespace');

  const nodes = await get('nodes');
  t.same(nodes[0], ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION'], 'node headers');
  const n1 = nodes.find((r) => r[0] === 'n1');
  t.same(n1 && [n1[0], n1[1], n1[2], n1[4]], ['n1', 'Ready', 'control-plane', 'v1.37.0']);
  t.same(nodes.find((r) => r[0] === 'n2')?.slice(1, 3), ['NotReady,SchedulingDisabled', '<none>']);
  const wideNodes = await get('nodes', '-o', 'wide');
  t.same(wideNodes[0], ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION', 'INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME'], 'node headers, wide');
  t.same(wideNodes.find((r) => r[0] === 'n1')?.slice(5), ['10.1.0.1', '<none>', 'Debian GNU/Linux 12', '6.1.0', 'containerd://2.0.0']);

  const ns = await get('ns');
  t.same(ns[0], ['NAME', 'STATUS', 'AGE'], 'namespace headers');
  t.same(ns.find((r) => r[0] === 'team')?.slice(0, 2), ['team', 'Active']);

  const quota = await get('quota', '-n', 'team');
  t.same(quota[0], ['NAME', 'REQUEST', 'LIMIT', 'AGE'], 'quota headers');
  t.same(quota[1]?.slice(0, 3), ['q', 'pods: 1/3, requests.cpu: 500m/2', 'limits.memory: 0/1Gi'], 'used/hard per resource');

  const roles = await get('clusterroles', 'table-reader');
  t.same(roles[0], ['NAME', 'CREATED AT'], 'no printer upstream: the default columns');
  t.match(roles[1]?.[1], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, 'CREATED AT: an RFC 3339 time');

  const bindings = await get('rolebindings', '-o', 'wide');
  t.same(bindings[0], ['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS'], 'role binding headers, wide');
  t.same(bindings[1] && [bindings[1][0], bindings[1][1], ...bindings[1].slice(3)], ['readers', 'ClusterRole/table-reader', 'alice', 'devs', 'default/robot']);

  t.test('kubectl get pods -w prints a row per change', async (t) => {
    const proc = execa('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), 'get', 'pods', '-w'], {
      env: { HOME: dir, KUBECONFIG: kubeconfig },
      reject: false,
      buffer: false,
      timeout: 60_000,
    });
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    t.teardown(() => {
      proc.kill('SIGKILL');
      return proc.catch(() => {});
    });
    const line = async (re: RegExp, what: string): Promise<boolean> => {
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && !out.split('\n').some((l) => re.test(l))) await new Promise((r) => setTimeout(r, 100));
      return t.ok(out.split('\n').some((l) => re.test(l)), `${what} (stdout: ${JSON.stringify(out)})`);
    };
    if (!(await line(/^web\s+1\/1\s+Running\s/, 'the listed pod first'))) return;
    await send('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'late' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    if (!(await line(/^late\s+0\/1\s+Pending\s+0\s+\d+s$/, 'a row for the new pod'))) return;
    await status('/api/v1/namespaces/default/pods/late', { phase: 'Pending', containerStatuses: [{ name: 'c', ready: false, restartCount: 0, image: 'busybox', imageID: '', state: { waiting: { reason: 'ContainerCreating' } } }] });
    await line(/^late\s+0\/1\s+ContainerCreating\s/, 'a row for its change');
    t.equal(out.split('\n').filter((l) => /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/.test(l)).length, 1, 'the header once');
  });
});
