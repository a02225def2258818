// Server-side Table output (and PartialObjectMetadata), asked for in Accept as kubectl does:
// every kind gets upstream's columns (pkg/printers/internalversion), rows carry their object as
// includeObject says, the Table keeps the list's resourceVersion and continue, watches send one
// Table per event with the column definitions in the first only, and conversions this server does
// not make are passed over for the client's next range (406 when none is left).
import t from 'tap';
import { parse as parseYaml } from 'yaml';
import { startReference } from '../../reference/server.js';
import { REFERENCE_RESOURCES } from '../../reference/resources/index.js';
import { resolveStrategy, type ApiObject } from '../../reference/apiserver/strategy.js';
import { negotiateOutput } from '../../reference/apiserver/negotiation.js';
import { age, humanDuration } from '../../reference/apiserver/table/age.js';
import { printerFor } from '../../reference/apiserver/table/printers.js';
import { collectionPath } from '../../suites/000-control-plane/kinds.js';
import { ALL_GATES_ON, fakeContext, sampleOf } from './samples.js';
import { call, sc, SC, WatchReader } from './helpers.js';

const KUBECTL_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const ORCH_TABLE = 'application/json;as=Table;v=v1;g=meta.orch.io';

/** Upstream's columns per kind (name and priority); kinds without a printer get Name and Created At. */
const DEFAULT_COLUMNS = ['Name:0', 'Created At:0'];
const EXPECTED_COLUMNS: Record<string, string[]> = {
  'v1/Namespace': ['Name:0', 'Status:0', 'Age:0'],
  'v1/Node': ['Name:0', 'Status:0', 'Roles:0', 'Age:0', 'Version:0', 'Internal-IP:1', 'External-IP:1', 'OS-Image:1', 'Kernel-Version:1', 'Container-Runtime:1'],
  'v1/Pod': ['Name:0', 'Ready:0', 'Status:0', 'Restarts:0', 'Age:0', 'IP:1', 'Node:1', 'Nominated Node:1', 'Readiness Gates:1'],
  'v1/ResourceQuota': ['Name:0', 'Request:0', 'Limit:0', 'Age:0'],
  'storage.orch.io/v1/StorageClass': ['Name:0', 'Provisioner:0', 'ReclaimPolicy:0', 'VolumeBindingMode:0', 'AllowVolumeExpansion:0', 'Age:0'],
  'coordination.orch.io/v1/Lease': ['Name:0', 'Holder:0', 'Age:0'],
  'events.orch.io/v1/Event': ['Last Seen:0', 'Type:0', 'Reason:0', 'Object:0', 'Subobject:1', 'Source:1', 'Message:0', 'First Seen:1', 'Count:1', 'Name:1'],
  'v1/Event': ['Last Seen:0', 'Type:0', 'Reason:0', 'Object:0', 'Subobject:1', 'Source:1', 'Message:0', 'First Seen:1', 'Count:1', 'Name:1'],
  'rbac.authorization.orch.io/v1/RoleBinding': ['Name:0', 'Role:0', 'Age:0', 'Users:1', 'Groups:1', 'ServiceAccounts:1'],
  'rbac.authorization.orch.io/v1/ClusterRoleBinding': ['Name:0', 'Role:0', 'Age:0', 'Users:1', 'Groups:1', 'ServiceAccounts:1'],
  'rbac.authorization.orch.io/v1/Role': DEFAULT_COLUMNS,
  'rbac.authorization.orch.io/v1/ClusterRole': DEFAULT_COLUMNS,
  'storagemigration.orch.io/v1/StorageVersionMigration': ['Name:0', 'Resource:0'],
  'scheduling.orch.io/v1beta1/PodGroup': DEFAULT_COLUMNS,
  'lifecycle.orch.io/v1alpha1/EvictionRequest': DEFAULT_COLUMNS,
  'lifecycle.orch.io/v1alpha1/Eviction': DEFAULT_COLUMNS,
};

const NOW = Date.parse('2030-01-01T12:00:00Z');
/** A timestamp `ms` before NOW. */
const ago = (ms: number): string => new Date(NOW - ms).toISOString().replace(/\.\d+Z$/, 'Z');
const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

t.test('ages are printed as upstream prints durations', async (t) => {
  const cases: Array<[number, string]> = [
    [-2500, '<invalid>'], [-1500, '0s'], [0, '0s'], [59 * S, '59s'], [119 * S, '119s'], [120 * S, '2m'], [5 * M + 2 * S, '5m2s'],
    [9 * M + 59 * S, '9m59s'], [10 * M + 30 * S, '10m'], [179 * M, '179m'], [3 * H, '3h'], [3 * H + 5 * M, '3h5m'], [8 * H + 5 * M, '8h'],
    [47 * H, '47h'], [48 * H, '2d'], [2 * D + 4 * H, '2d4h'], [8 * D, '8d'], [729 * D, '729d'], [730 * D, '2y'], [2 * 365 * D + 12 * D, '2y12d'],
    [8 * 365 * D, '8y'],
  ];
  for (const [ms, want] of cases) t.equal(humanDuration(ms), want, `${ms} ms`);
  t.equal(age(ago(5 * M + 2 * S), NOW), '5m2s', 'age of a timestamp');
  t.equal(age(undefined, NOW), '<unknown>', 'unset');
  t.equal(age('0001-01-01T00:00:00Z', NOW), '<unknown>', "Go's zero time is unset");
  t.equal(age('not a time', NOW), '<unknown>', 'unreadable');
});

const pod = (status: Record<string, unknown>, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): ApiObject => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', creationTimestamp: ago(3 * M), ...meta },
  spec: { containers: [{ name: 'a', image: 'i' }], ...spec }, status,
});
const running = (name: string, extra: Record<string, unknown> = {}) => ({ name, ready: true, restartCount: 0, state: { running: { startedAt: ago(M) } }, ...extra });

t.test('pod rows: READY, STATUS, RESTARTS as upstream sums a pod up', async (t) => {
  const p = printerFor('', 'Pod');
  const cells = (o: ApiObject) => p.cells(o, NOW);
  t.same(cells(pod({ phase: 'Pending' })), ['p', '0/1', 'Pending', '0', '3m', '<none>', '<none>', '<none>', '<none>'], 'a new pod');
  t.same(cells(pod({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] })).slice(2, 3), ['SchedulingGated']);
  t.same(cells(pod({ phase: 'Pending', containerStatuses: [{ name: 'a', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }] })).slice(1, 3), ['0/1', 'ContainerCreating']);
  const restarted = pod(
    { phase: 'Running', podIPs: [{ ip: '10.0.0.7' }, { ip: 'fd00::7' }], nominatedNodeName: 'n2', conditions: [{ type: 'Ready', status: 'True' }, { type: 'gate-a', status: 'True' }, { type: 'gate-b', status: 'False' }], containerStatuses: [running('a', { restartCount: 2, lastState: { terminated: { exitCode: 1, finishedAt: ago(5 * M) } } })] },
    { nodeName: 'n1', readinessGates: [{ conditionType: 'gate-a' }, { conditionType: 'gate-b' }] },
  );
  t.same(cells(restarted), ['p', '1/1', 'Running', '2 (5m ago)', '3m', '10.0.0.7', 'n1', 'n2', '1/2'], 'running, restarted, wide cells');
  t.same(cells(pod({ phase: 'Succeeded', containerStatuses: [{ name: 'a', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] })).slice(1, 3), ['0/1', 'Completed']);
  t.same(p.conditions!(pod({ phase: 'Succeeded' }))?.map((c) => [c.type, c.status, c.reason]), [['Completed', 'True', 'Succeeded']], 'a finished pod row is marked Completed');
  t.same(p.conditions!(pod({ phase: 'Failed' }))?.map((c) => c.reason), ['Failed']);
  t.equal(p.conditions!(pod({ phase: 'Running' })), undefined);
  t.same(cells(pod({ phase: 'Failed', containerStatuses: [{ name: 'a', state: { terminated: { exitCode: 137, signal: 9 } } }] }))[2], 'Signal:9');
  t.same(cells(pod({ phase: 'Failed', containerStatuses: [{ name: 'a', state: { terminated: { exitCode: 3 } } }] }))[2], 'ExitCode:3');
  // Two containers: one completed, one running and the pod Ready: Running; not Ready: NotReady.
  const two = (ready: boolean) => pod(
    { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }], containerStatuses: [running('a'), { name: 'b', ready: false, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] },
    { containers: [{ name: 'a' }, { name: 'b' }] },
  );
  t.same(cells(two(true)).slice(1, 3), ['1/2', 'Running']);
  t.same(cells(two(false)).slice(1, 3), ['1/2', 'NotReady']);
  t.same(cells(pod(
    { phase: 'Running', containerStatuses: [running('a'), { name: 'b', state: { terminated: { exitCode: 2, reason: 'Error' } } }, { name: 'c', state: { terminated: { exitCode: 0, reason: 'Completed' } } }] },
    { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] },
  ))[2], 'Error', 'a failed container wins over Completed');
  // Init containers: the first one not done decides.
  const init = (statuses: unknown[], initContainers: unknown[] = [{ name: 'i1' }, { name: 'i2' }]) => cells(pod({ phase: 'Pending', initContainerStatuses: statuses }, { initContainers }));
  t.equal(init([{ name: 'i1', state: { terminated: { exitCode: 0 } } }, { name: 'i2', state: { running: {} } }])[2], 'Init:1/2');
  t.equal(init([{ name: 'i1', state: { waiting: { reason: 'PodInitializing' } } }])[2], 'Init:0/2');
  t.equal(init([{ name: 'i1', restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } }])[2], 'Init:CrashLoopBackOff');
  t.equal(init([{ name: 'i1', state: { terminated: { exitCode: 1, reason: 'Error' } } }])[2], 'Init:Error');
  t.equal(init([{ name: 'i1', state: { terminated: { exitCode: 1 } } }])[2], 'Init:ExitCode:1');
  t.equal(init([{ name: 'i1', restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } }])[3], '4', 'restarts of an init container count while initializing');
  // A sidecar (restartable init container) counts among READY, and once started does not hold up the rest.
  const sidecar = cells(pod(
    { phase: 'Running', conditions: [{ type: 'Initialized', status: 'True' }, { type: 'Ready', status: 'True' }], initContainerStatuses: [{ name: 's', started: true, ready: true, restartCount: 1, state: { running: {} } }], containerStatuses: [running('a')] },
    { initContainers: [{ name: 's', restartPolicy: 'Always' }] },
  ));
  t.same(sidecar.slice(1, 4), ['2/2', 'Running', '1'], 'sidecar: ready, counted, its restarts kept');
  // Deletion.
  t.equal(cells(pod({ phase: 'Running', containerStatuses: [running('a')] }, {}, { deletionTimestamp: ago(S) }))[2], 'Terminating');
  t.equal(cells(pod({ phase: 'Succeeded' }, {}, { deletionTimestamp: ago(S) }))[2], 'Succeeded', 'a finished pod is not Terminating');
  t.equal(cells(pod({ phase: 'Running', reason: 'NodeLost' }, {}, { deletionTimestamp: ago(S) }))[2], 'Unknown');
  t.equal(cells(pod({ phase: 'Failed', reason: 'Evicted' }))[2], 'Evicted', 'status.reason over the phase');
  t.same(cells({ metadata: { resourceVersion: '9' } }), ['', '0/0', '', '0', '<unknown>', '<none>', '<none>', '<none>', '<none>'], 'an object with metadata only (a bookmark) does not throw');
});

t.test('node, quota, storage class, binding, event, lease, migration and default rows', async (t) => {
  const node = (status: Record<string, unknown>, spec: Record<string, unknown> = {}, labels: Record<string, string> = {}) =>
    printerFor('', 'Node').cells({ metadata: { name: 'n1', creationTimestamp: ago(2 * D + 4 * H), labels }, spec, status }, NOW);
  t.same(
    node(
      { conditions: [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: 'True' }], addresses: [{ type: 'Hostname', address: 'n1' }, { type: 'InternalIP', address: '10.0.0.1' }, { type: 'InternalIP', address: '10.0.0.2' }], nodeInfo: { agentVersion: 'v1.37.0', osImage: 'Debian', kernelVersion: '6.1', containerRuntimeVersion: 'containerd://2.0' } },
      {},
      { 'node-role.orch.io/worker': '', 'node-role.orch.io/control-plane': 'x', 'orch.io/role': 'edge', 'node-role.orch.io/': 'ignored' },
    ),
    ['n1', 'Ready', 'control-plane,edge,worker', '2d4h', 'v1.37.0', '10.0.0.1', '<none>', 'Debian', '6.1', 'containerd://2.0'],
  );
  t.same(node({ conditions: [{ type: 'Ready', status: 'False' }] }, { unschedulable: true }).slice(1, 3), ['NotReady,SchedulingDisabled', '<none>']);
  t.same(node({ conditions: [{ type: 'Ready', status: 'Unknown' }] }).slice(1, 2), ['NotReady']);
  t.same(node({}).slice(1, 2), ['Unknown'], 'no Ready condition reported');
  t.same(node({}).slice(7), ['<unknown>', '<unknown>', '<unknown>']);

  const quota = printerFor('', 'ResourceQuota').cells({ metadata: { name: 'q', creationTimestamp: ago(H) }, status: { hard: { 'requests.cpu': '2', pods: '3', 'limits.memory': '1Gi', 'limits.cpu': '4' }, used: { pods: '1', 'limits.cpu': '500m' } } }, NOW);
  t.same(quota, ['q', 'pods: 1/3, requests.cpu: 0/2', 'limits.cpu: 500m/4, limits.memory: 0/1Gi', '60m']);

  const scRow = (extra: Record<string, unknown>, annotations: Record<string, string> = {}) => printerFor('storage.orch.io', 'StorageClass').cells({ metadata: { name: 'fast', creationTimestamp: ago(S), annotations }, provisioner: 'p.orch.io/x', ...extra }, NOW);
  t.same(scRow({}), ['fast', 'p.orch.io/x', 'Delete', 'Immediate', false, '1s'], 'defaults shown for unset fields');
  t.same(scRow({ reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer', allowVolumeExpansion: true }, { 'storageclass.orch.io/is-default-class': 'true' }), ['fast (default)', 'p.orch.io/x', 'Retain', 'WaitForFirstConsumer', true, '1s']);
  t.equal(scRow({}, { 'storageclass.beta.orch.io/is-default-class': 'true' })[0], 'fast (default)', 'the beta annotation too');

  const binding = printerFor('rbac.authorization.orch.io', 'RoleBinding').cells({
    metadata: { name: 'b', creationTimestamp: ago(M) },
    roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'User', name: 'alice' }, { kind: 'Group', name: 'devs' }, { kind: 'User', name: 'bob' }, { kind: 'ServiceAccount', namespace: 'ns1', name: 'robot' }],
  }, NOW);
  t.same(binding, ['b', 'ClusterRole/view', '60s', 'alice, bob', 'devs', 'ns1/robot']);

  const event = printerFor('events.orch.io', 'Event');
  const ev = (extra: Record<string, unknown>) => event.cells({ metadata: { name: 'e1' }, type: 'Warning', reason: 'BackOff', regarding: { kind: 'Pod', name: 'web', fieldPath: 'spec.containers{a}' }, note: ' Back-off restarting \n', reportingController: 'orch.io/agent', reportingInstance: 'n1', ...extra }, NOW);
  t.same(ev({ eventTime: ago(10 * M) }), ['10m', 'Warning', 'BackOff', 'pod/web', 'spec.containers{a}', 'orch.io/agent, n1', 'Back-off restarting', '10m', 1, 'e1'], 'a singleton event of the new API');
  t.same(ev({ eventTime: ago(10 * M), series: { count: 5, lastObservedTime: ago(M) } }).filter((_, i) => [0, 8].includes(i)), ['60s', 5], 'a series: its count and last time');
  t.same(ev({ deprecatedFirstTimestamp: ago(H), deprecatedLastTimestamp: ago(2 * M), deprecatedCount: 3, deprecatedSource: { component: 'old' } }).filter((_, i) => [0, 5, 7, 8].includes(i)), ['2m', 'old, n1', '60m', 3], 'the deprecated fields of the old API');

  t.same(printerFor('coordination.orch.io', 'Lease').cells({ metadata: { name: 'l', creationTimestamp: ago(S) }, spec: { holderIdentity: 'me' } }, NOW), ['l', 'me', '1s']);
  t.same(printerFor('storagemigration.orch.io', 'StorageVersionMigration').cells({ metadata: { name: 'm' }, spec: { resource: { group: 'storage.orch.io', resource: 'storageclasses' } } }, NOW), ['m', 'storageclasses.storage.orch.io']);
  t.same(printerFor('storagemigration.orch.io', 'StorageVersionMigration').cells({ metadata: { name: 'm' }, spec: { resource: { group: '', resource: 'pods' } } }, NOW), ['m', 'pods'], 'core group: the resource alone');
  t.same(printerFor('rbac.authorization.orch.io', 'ClusterRole').cells({ metadata: { name: 'r', creationTimestamp: '2024-05-06T07:08:09Z' } }, NOW), ['r', '2024-05-06T07:08:09Z'], 'default: Created At as an RFC 3339 date');
  t.same(printerFor('', 'Namespace').cells({ metadata: { name: 'ns', creationTimestamp: ago(S) }, status: { phase: 'Terminating' } }, NOW), ['ns', 'Terminating', '1s']);
});

t.test('every kind answers a Table with upstream columns: list, get and status', async (t) => {
  const ref = await startReference({ featureGates: ALL_GATES_ON, controllerManager: false, scheduler: false });
  t.teardown(() => ref.close());
  const ctx = fakeContext('default');
  const covered = new Set<string>();
  for (const strategy of REFERENCE_RESOURCES) {
    if (strategy.notStored) continue;
    const s = resolveStrategy(strategy);
    const key = `${s.apiVersion}/${s.kind}`;
    const expected = EXPECTED_COLUMNS[key];
    if (!t.ok(expected, `${key}: expected columns are listed in this test`)) continue;
    covered.add(key);
    const k = sampleOf(s)!;
    const name = ctx.uniqueName(s.resource.slice(0, 5));
    const collection = collectionPath(k, 'default');
    const created = await call(ref.url, 'POST', collection, { apiVersion: k.apiVersion, kind: k.kind, metadata: { name }, ...k.valid(ctx) });
    if (!t.equal(created.status, 201, `${key}: sample created ${created.text.slice(0, 200)}`)) continue;

    const list = await call(ref.url, 'GET', collection, undefined, { accept: KUBECTL_ACCEPT });
    t.equal(list.status, 200, `${key}: list`);
    t.equal(list.body.kind, 'Table', `${key}: a Table`);
    t.equal(list.body.apiVersion, 'meta.k8s.io/v1', `${key}: in the group version kubectl asked for first`);
    t.same(list.body.columnDefinitions.map((c: any) => `${c.name}:${c.priority}`), expected, `${key}: columns`);
    t.ok(list.body.columnDefinitions.every((c: any) => typeof c.type === 'string' && typeof c.format === 'string' && c.description.length > 0), `${key}: every column has a type, a format and a description`);
    const nameAt = list.body.columnDefinitions.findIndex((c: any) => c.name === 'Name');
    const row = list.body.rows.find((r: any) => r.object?.metadata?.name === name);
    if (!t.ok(row, `${key}: a row for the new object`)) continue;
    t.equal(row.cells.length, expected.length, `${key}: a cell per column`);
    t.equal(row.cells[nameAt], name, `${key}: the Name cell`);
    t.same([row.object.kind, row.object.apiVersion, row.object.metadata.uid], ['PartialObjectMetadata', 'meta.k8s.io/v1', created.body.metadata.uid], `${key}: the row carries the object's metadata by default`);
    t.equal(list.body.metadata.resourceVersion, (await call(ref.url, 'GET', collection)).body.metadata.resourceVersion, `${key}: the list's resourceVersion`);

    const one = await call(ref.url, 'GET', `${collection}/${name}`, undefined, { accept: ORCH_TABLE });
    t.equal(one.body.apiVersion, 'meta.orch.io/v1', `${key}: get in meta.orch.io`);
    t.equal(one.body.rows.length, 1, `${key}: get: one row`);
    t.equal(one.body.rows[0].cells[nameAt], name, `${key}: get: the object's row`);
    t.equal(one.body.metadata.resourceVersion, created.body.metadata.resourceVersion, `${key}: get: the object's resourceVersion`);
    if (s.hasStatus) {
      const status = await call(ref.url, 'GET', `${collection}/${name}/status`, undefined, { accept: KUBECTL_ACCEPT });
      t.same(status.body.columnDefinitions?.map((c: any) => `${c.name}:${c.priority}`), expected, `${key}: the status subresource uses the same printer`);
    }
  }
  t.same([...covered].sort(), Object.keys(EXPECTED_COLUMNS).sort(), 'every listed kind is served and was checked');
});

t.test('every conversion of every kind: a 200 or a Status, never a 5xx; initial events and bookmarks too', async (t) => {
  const ref = await startReference({ featureGates: ALL_GATES_ON, controllerManager: false, scheduler: false });
  t.teardown(() => ref.close());
  const ctx = fakeContext('default');
  const accepts = [
    KUBECTL_ACCEPT, 'application/json;as=Table;v=v1beta1;g=meta.orch.io', 'application/yaml;as=Table;v=v1;g=meta.k8s.io',
    'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io', 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.orch.io',
  ];
  const problems: string[] = [];
  let sent = 0;
  for (const strategy of REFERENCE_RESOURCES) {
    if (strategy.notStored) continue;
    const s = resolveStrategy(strategy);
    const k = sampleOf(s)!;
    const name = ctx.uniqueName(s.resource.slice(0, 5));
    const collection = collectionPath(k, 'default');
    await call(ref.url, 'POST', collection, { apiVersion: k.apiVersion, kind: k.kind, metadata: { name }, ...k.valid(ctx) });
    const paths = [collection, `${collection}/${name}`, ...(s.hasStatus ? [`${collection}/${name}/status`] : []), `${collection}/missing`];
    for (const p of paths) {
      for (const accept of accepts) {
        for (const q of ['', '?includeObject=None', '?includeObject=Object', '?includeObject=bogus', '?limit=1']) {
          const r = await call(ref.url, 'GET', `${p}${q}`, undefined, { accept });
          sent++;
          if (r.status >= 500) problems.push(`${p}${q} ${accept}: ${r.status} ${r.text.slice(0, 200)}`);
          // Errors come in the negotiated format, YAML included.
          const body = r.headers.get('content-type') === 'application/yaml' ? parseYaml(r.text) : r.body;
          if (r.status >= 400 && body?.kind !== 'Status') problems.push(`${p}${q} ${accept}: ${r.status} without a Status`);
        }
      }
    }
    // A watch from the current state: its initial events, then the bookmark that ends them.
    const w = await WatchReader.open(`${ref.url}${collection}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`, { accept: KUBECTL_ACCEPT });
    const events = [];
    let ev = await w.next();
    for (; ev && ev.type !== 'BOOKMARK'; ev = await w.next()) events.push(ev);
    w.close();
    if (!events.some((e) => e.object.kind === 'Table' && e.object.rows[0]?.object?.metadata?.name === name)) problems.push(`${s.kind}: no Table event for ${name}`);
    // Upstream converts bookmarks too: a Table keeping the bookmark's resourceVersion.
    if (ev?.object.kind !== 'Table' || !ev.object.metadata.resourceVersion) problems.push(`${s.kind}: the bookmark is not a Table with a resourceVersion: ${JSON.stringify(ev).slice(0, 200)}`);
  }
  t.ok(sent > 500, `${sent} requests`);
  t.same(problems, [], 'no 5xx, every error a Status, every kind watched as Tables up to the bookmark');
});

t.test('includeObject, list metadata, YAML, negotiation', async (t) => {
  const ref = await startReference({ controllerManager: false, scheduler: false });
  t.teardown(() => ref.close());
  const u = ref.url;
  for (const n of ['a', 'b', 'c']) t.equal((await call(u, 'POST', SC, sc(`t-${n}`))).status, 201);

  const none = await call(u, 'GET', `${SC}?includeObject=None`, undefined, { accept: ORCH_TABLE });
  t.ok(none.body.rows.length >= 3 && none.body.rows.every((r: any) => r.object === null), 'None: no object in rows');
  const full = await call(u, 'GET', `${SC}?includeObject=Object`, undefined, { accept: ORCH_TABLE });
  t.same([full.body.rows[0].object.kind, full.body.rows[0].object.apiVersion, full.body.rows[0].object.provisioner], ['StorageClass', 'storage.orch.io/v1', 'example.orch.io/fast'], 'Object: the whole object');
  const meta = await call(u, 'GET', `${SC}/t-a?includeObject=Metadata`, undefined, { accept: ORCH_TABLE });
  t.same(Object.keys(meta.body.rows[0].object).sort(), ['apiVersion', 'kind', 'metadata'], 'Metadata: PartialObjectMetadata');
  t.equal(meta.body.rows[0].object.apiVersion, 'meta.orch.io/v1');
  const bad = await call(u, 'GET', `${SC}?includeObject=Everything`, undefined, { accept: ORCH_TABLE });
  t.equal(bad.status, 400);
  t.same([bad.body.kind, bad.body.reason, bad.body.message], ['Status', 'BadRequest', 'Unable to convert to Table as requested: includeObject: Unsupported value: "Everything": supported values: "Metadata", "None", "Object"']);
  t.equal((await call(u, 'GET', `${SC}?includeObject=Everything`)).status, 200, 'includeObject means nothing without a Table');

  const page = await call(u, 'GET', `${SC}?limit=1`, undefined, { accept: KUBECTL_ACCEPT });
  const plainPage = await call(u, 'GET', `${SC}?limit=1`);
  t.equal(page.body.rows.length, 1, 'a page of one');
  t.ok(page.body.metadata.continue, 'the page continues');
  t.equal(page.body.metadata.remainingItemCount, plainPage.body.metadata.remainingItemCount, 'remainingItemCount as the list has it');
  t.equal(page.body.metadata.resourceVersion, plainPage.body.metadata.resourceVersion, 'the list resourceVersion');
  const next = await call(u, 'GET', `${SC}?limit=5&continue=${encodeURIComponent(page.body.metadata.continue)}`, undefined, { accept: KUBECTL_ACCEPT });
  t.same(next.body.rows.map((r: any) => r.cells[0]), ['t-b', 't-c'], 'the Table continue token continues the list');

  const asYaml = await call(u, 'GET', `${SC}/t-a`, undefined, { accept: 'application/yaml;as=Table;v=v1;g=meta.orch.io' });
  t.equal(asYaml.headers.get('content-type'), 'application/yaml');
  t.match(asYaml.text, /^kind: Table\napiVersion: meta.orch.io\/v1\n/m, 'a Table in YAML');

  const v1beta1 = await call(u, 'GET', SC, undefined, { accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' });
  t.equal(v1beta1.body.apiVersion, 'meta.k8s.io/v1beta1', 'v1beta1 as asked');
  const any = await call(u, 'GET', SC, undefined, { accept: '*/*;as=Table;v=v1;g=meta.orch.io' });
  t.equal(any.body.kind, 'Table', '*/* with as=Table: a JSON Table');

  // Conversions this server does not make are passed over for the next range, else 406.
  for (const accept of ['application/json;as=Other;v=v1;g=meta.k8s.io', 'application/json;as=Table;v=v1;g=meta.example.io', 'application/json;as=Table;v=v2;g=meta.k8s.io', 'application/json;as=Table;g=meta.k8s.io', 'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io', 'text/plain;as=Table;v=v1;g=meta.k8s.io']) {
    const refused = await call(u, 'GET', SC, undefined, { accept });
    t.equal(refused.status, 406, `${accept}: 406`);
    t.equal(refused.body?.reason, 'NotAcceptable', `${accept}: a NotAcceptable Status`);
    const fallback = await call(u, 'GET', SC, undefined, { accept: `${accept}, application/json` });
    t.equal(fallback.body?.kind, 'StorageClassList', `${accept}: skipped for the plain fallback`);
  }
  const preferred = await call(u, 'GET', SC, undefined, { accept: 'application/json;q=0.5, application/json;as=Table;v=v1;g=meta.k8s.io' });
  t.equal(preferred.body.kind, 'Table', 'ranges are taken by q: the Table');
  const plainFirst = await call(u, 'GET', SC, undefined, { accept: 'application/json, application/json;as=Table;v=v1;g=meta.k8s.io' });
  t.equal(plainFirst.body.kind, 'StorageClassList', 'the plain list when the client prefers it');

  // Only reads are converted: a write answers with the object, or 406 when only a Table is accepted.
  const created = await call(u, 'POST', SC, sc('t-write'), { accept: KUBECTL_ACCEPT });
  t.same([created.status, created.body.kind], [201, 'StorageClass'], 'create: the object, not a Table');
  t.equal((await call(u, 'POST', SC, sc('t-write2'), { accept: ORCH_TABLE })).status, 406, 'create with only a Table accepted: 406');
  const patched = await call(u, 'PATCH', `${SC}/t-write`, { metadata: { labels: { x: 'y' } } }, { 'content-type': 'application/merge-patch+json', accept: KUBECTL_ACCEPT });
  t.equal(patched.body.kind, 'StorageClass', 'patch: the object');
  const deleted = await call(u, 'DELETE', `${SC}/t-write`, undefined, { accept: KUBECTL_ACCEPT });
  t.equal(deleted.body.kind, 'StorageClass', 'delete: the object');
  const discovery = await call(u, 'GET', '/apis/storage.orch.io/v1', undefined, { accept: KUBECTL_ACCEPT });
  t.equal(discovery.body.kind, 'APIResourceList', 'discovery is never a Table');
  t.equal((await call(u, 'GET', '/apis/storage.orch.io/v1', undefined, { accept: ORCH_TABLE })).status, 406, 'discovery with only a Table accepted: 406');

  // PartialObjectMetadata(List), as metadata-only clients ask.
  const pom = await call(u, 'GET', `${SC}/t-a`, undefined, { accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io,application/json' });
  t.same([pom.body.kind, pom.body.apiVersion, pom.body.metadata.name, pom.body.provisioner], ['PartialObjectMetadata', 'meta.k8s.io/v1', 't-a', undefined]);
  const poml = await call(u, 'GET', `${SC}?limit=2`, undefined, { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.orch.io' });
  t.same([poml.body.kind, poml.body.apiVersion, poml.body.items.length, poml.body.items[0].kind], ['PartialObjectMetadataList', 'meta.orch.io/v1', 2, 'PartialObjectMetadata']);
  t.ok(poml.body.metadata.continue && poml.body.metadata.resourceVersion, 'with the list metadata');
  const wrongOnList = await call(u, 'GET', SC, undefined, { accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io' });
  t.same([wrongOnList.status, wrongOnList.body.reason], [406, 'NotAcceptable'], 'PartialObjectMetadata of a list: 406');
  const wrongOnGet = await call(u, 'GET', `${SC}/t-a`, undefined, { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' });
  t.same([wrongOnGet.status, wrongOnGet.body.reason], [406, 'NotAcceptable'], 'PartialObjectMetadataList of one object: 406');

  // A plain GET is unchanged (and still served from the remembered text).
  const plain = await call(u, 'GET', `${SC}/t-a`);
  t.same([plain.body.kind, plain.headers.get('content-type')], ['StorageClass', 'application/json']);
});

t.test('negotiateOutput: conversions only where allowed', async (t) => {
  const table = 'application/json;as=Table;v=v1;g=meta.k8s.io';
  t.same(negotiateOutput(`${table}, application/json`), { type: 'json', pretty: false }, 'without conversions: the fallback');
  t.same(negotiateOutput(`${table}, application/json`, { conversions: true }), { type: 'json', pretty: false, convert: { kind: 'Table', apiVersion: 'meta.k8s.io/v1' } });
  t.same(negotiateOutput('application/yaml;as=Table;v=v1;g=meta.k8s.io', { conversions: true, stream: true }), undefined, 'no YAML on a watch');
  t.same(negotiateOutput(`${table};stream=watch`, { conversions: true, stream: true })?.convert?.kind, 'Table', 'stream=watch on a watch');
  t.same(negotiateOutput(`${table};stream=watch`, { conversions: true }), undefined, 'stream=watch elsewhere');
  t.same(negotiateOutput(`${table};pretty=1`, { conversions: true })?.pretty, true);
});

t.test('watch: a Table per event, column definitions in the first only', async (t) => {
  const ref = await startReference({ controllerManager: false, scheduler: false });
  t.teardown(() => ref.close());
  const u = ref.url;
  const rv = (await call(u, 'GET', SC)).body.metadata.resourceVersion;
  const w = await WatchReader.open(`${u}${SC}?watch=true&resourceVersion=${rv}`, { accept: KUBECTL_ACCEPT });
  t.teardown(() => w.close());
  t.equal(w.status, 200);
  await call(u, 'POST', SC, sc('w-1'));
  await call(u, 'POST', SC, sc('w-2'));
  await call(u, 'DELETE', `${SC}/w-1`);
  const events = [await w.next(), await w.next(), await w.next()];
  t.same(events.map((e) => [e?.type, e?.object.kind, e?.object.apiVersion, e?.object.rows[0].cells[0]]), [
    ['ADDED', 'Table', 'meta.k8s.io/v1', 'w-1'], ['ADDED', 'Table', 'meta.k8s.io/v1', 'w-2'], ['DELETED', 'Table', 'meta.k8s.io/v1', 'w-1'],
  ]);
  t.equal(events[0]?.object.columnDefinitions.length, 6, 'the first event has the columns');
  t.same(events.slice(1).map((e) => e?.object.columnDefinitions), [null, null], 'later events do not');
  t.ok(events.every((e) => e?.object.rows.length === 1 && e.object.metadata.resourceVersion === e.object.rows[0].object.metadata.resourceVersion), "each Table: one row, the object's resourceVersion");

  const meta = await WatchReader.open(`${u}${SC}?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true`, { accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.orch.io' });
  t.teardown(() => meta.close());
  const first = await meta.next();
  t.same([first?.type, first?.object.kind, first?.object.apiVersion, first?.object.metadata.name, first?.object.provisioner], ['ADDED', 'PartialObjectMetadata', 'meta.orch.io/v1', 'w-1', undefined], 'PartialObjectMetadata events');

  const none = await WatchReader.open(`${u}${SC}?watch=true&resourceVersion=${rv}&includeObject=None`, { accept: ORCH_TABLE });
  t.teardown(() => none.close());
  t.equal((await none.next())?.object.rows[0].object, null, 'includeObject applies to watch rows');

  const bad = await call(u, 'GET', `${SC}?watch=true&includeObject=All`, undefined, { accept: ORCH_TABLE });
  t.same([bad.status, bad.body.kind, bad.body.reason], [400, 'Status', 'BadRequest'], 'bad options: a plain error, not a stream');
});
