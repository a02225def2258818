// Pod admission rules (admission.ts) without a cluster: sysctls per kernel (§2.5), node selector and
// required node affinity, resources with upstream's reasons and messages, and the rejected status.
import t from 'tap';
import {
  admitPod, nodeAffinityMatches, normalizeSysctlName, parseKernelVersion, podRequests, rejectedStatus, resourcesFit, SysctlAllowlist,
} from '../../reference/agent/admission.js';

const node = (labels: Record<string, string> = {}, allocatable: Record<string, string> = { cpu: '2', memory: '1Gi', pods: '3' }) =>
  ({ metadata: { name: 'n1', labels }, status: { allocatable } });
const pod = (spec: object) => ({ metadata: { name: 'p', namespace: 'default', uid: 'u' }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec } });
const withSysctl = (name: string, extra: object = {}) => pod({ securityContext: { sysctls: [{ name, value: '1' }] }, ...extra });

t.test('kernel versions', async (t) => {
  t.same(parseKernelVersion('6.8.0-1015-gcp'), [6, 8, 0]);
  t.same(parseKernelVersion('4.15'), [4, 15, 0]);
  t.equal(parseKernelVersion('weird'), undefined);
  t.equal(normalizeSysctlName('net/ipv4/conf/eno2.100/rp_filter'), 'net.ipv4.conf.eno2/100.rp_filter');
  t.equal(normalizeSysctlName('net.ipv4.tcp_fin_timeout'), 'net.ipv4.tcp_fin_timeout');
});

t.test('sysctls: §2.5 kernel table, unsafe, host namespaces', async (t) => {
  const table: Array<[string, string, boolean]> = [
    ['net.ipv4.ip_local_reserved_ports', '3.15.0', false], ['net.ipv4.ip_local_reserved_ports', '3.16.0', true],
    ['net.ipv4.tcp_keepalive_time', '4.4.0', false], ['net.ipv4.tcp_keepalive_time', '4.5.0', true],
    ['net.ipv4.tcp_keepalive_intvl', '4.4.9', false], ['net.ipv4.tcp_keepalive_probes', '4.5.1', true],
    ['net.ipv4.tcp_fin_timeout', '4.5.7', false], ['net.ipv4.tcp_fin_timeout', '4.6.0', true],
    ['net.ipv4.tcp_syncookies', '4.5.0', false], ['net.ipv4.tcp_syncookies', '4.6.0', true],
    ['net.ipv4.tcp_rmem', '4.14.0', false], ['net.ipv4.tcp_wmem', '4.15.0', true],
    ['net.ipv4.tcp_slow_start_after_idle', '4.14.300', false], ['net.ipv4.tcp_slow_start_after_idle', '5.10.0', true],
    ['net.ipv4.tcp_notsent_lowat', '4.5.0', false], ['net.ipv4.tcp_notsent_lowat', '4.6.0', true],
    ['kernel.shm_rmid_forced', '2.6.32', true], ['net.ipv4.ip_local_port_range', 'unknown', true],
    ['net.ipv4.tcp_keepalive_time', 'unknown', false],
  ];
  for (const [name, kernel, ok] of table) {
    const r = new SysctlAllowlist(kernel).admit(withSysctl(name));
    if (ok) t.same(r, { admit: true }, `${name} on ${kernel}: admitted`);
    else t.same(r, { admit: false, reason: 'SysctlForbidden', message: `forbidden sysctl: "${name}" not allowlisted` }, `${name} on ${kernel}: forbidden`);
  }
  const list = new SysctlAllowlist('6.1.0');
  t.same(list.admit(withSysctl('net.core.somaxconn')), { admit: false, reason: 'SysctlForbidden', message: 'forbidden sysctl: "net.core.somaxconn" not allowlisted' }, 'unsafe');
  t.same(list.admit(withSysctl('net.ipv4.tcp_syncookies', { hostNetwork: true })),
    { admit: false, reason: 'SysctlForbidden', message: 'forbidden sysctl: "net.ipv4.tcp_syncookies" not allowed with host net enabled' });
  t.same(list.admit(withSysctl('kernel.shm_rmid_forced', { hostIPC: true })),
    { admit: false, reason: 'SysctlForbidden', message: 'forbidden sysctl: "kernel.shm_rmid_forced" not allowed with host ipc enabled' });
  const unsafe = new SysctlAllowlist('6.1.0', ['net.core.somaxconn', 'kernel.msg*']);
  t.same(unsafe.admit(withSysctl('net.core.somaxconn')), { admit: true }, 'allowedUnsafeSysctls name');
  t.same(unsafe.admit(withSysctl('kernel.msgmax')), { admit: true }, 'allowedUnsafeSysctls prefix');
  t.throws(() => new SysctlAllowlist('6.1.0', ['vm.swappiness']), /not known to be namespaced/, 'node-level sysctl refused in config');
  t.same(list.admit(pod({})), { admit: true }, 'no sysctls');
});

t.test('node selector and required node affinity', async (t) => {
  const n = node({ disk: 'ssd', zone: 'a', gen: '5' });
  t.ok(nodeAffinityMatches(pod({ nodeSelector: { disk: 'ssd' } }), n));
  t.notOk(nodeAffinityMatches(pod({ nodeSelector: { disk: 'hdd' } }), n));
  t.notOk(nodeAffinityMatches(pod({ nodeSelector: { missing: '' } }), n));
  const aff = (terms: any[]) => pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } });
  t.ok(nodeAffinityMatches(aff([{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }]), n));
  t.notOk(nodeAffinityMatches(aff([{ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }]), n));
  t.ok(nodeAffinityMatches(aff([{ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, { matchExpressions: [{ key: 'disk', operator: 'Exists' }] }]), n), 'terms are ORed');
  t.notOk(nodeAffinityMatches(aff([{ matchExpressions: [{ key: 'disk', operator: 'Exists' }, { key: 'gpu', operator: 'Exists' }] }]), n), 'expressions are ANDed');
  t.ok(nodeAffinityMatches(aff([{ matchExpressions: [{ key: 'gpu', operator: 'DoesNotExist' }, { key: 'gen', operator: 'Gt', values: ['4'] }] }]), n));
  t.notOk(nodeAffinityMatches(aff([{ matchExpressions: [{ key: 'gen', operator: 'Lt', values: ['5'] }] }]), n));
  t.ok(nodeAffinityMatches(aff([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }]), n));
  t.notOk(nodeAffinityMatches(aff([{}]), n), 'an empty term matches nothing');
  t.same(admitPod(pod({ nodeSelector: { disk: 'hdd' } }), n, [], new SysctlAllowlist('6.1.0')),
    { admit: false, reason: 'NodeAffinity', message: "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector" });
});

t.test('resources: requests, reasons and messages', async (t) => {
  const c = (name: string, requests: object, extra: object = {}) => ({ name, image: 'busybox', resources: { requests }, ...extra });
  t.same(podRequests(pod({ containers: [c('a', { cpu: '500m', memory: '100Mi' }), c('b', { cpu: '1' })] })), { milliCPU: 1500n, memory: 104857600n, ephemeralStorage: 0n });
  t.same(podRequests(pod({ containers: [{ name: 'a', image: 'x', resources: { limits: { cpu: '250m' } } }] })).milliCPU, 250n, 'a limit alone counts as the request');
  t.same(podRequests(pod({ initContainers: [c('i', { cpu: '3' })], containers: [c('a', { cpu: '1' })] })).milliCPU, 3000n, 'the largest init container');
  t.same(podRequests(pod({ initContainers: [c('s', { cpu: '1' }, { restartPolicy: 'Always' }), c('i', { cpu: '1500m' })], containers: [c('a', { cpu: '1' })] })).milliCPU, 2500n, 'sidecars count for later init containers and with the containers');
  t.same(podRequests(pod({ overhead: { cpu: '100m' }, containers: [c('a', { cpu: '1' })] })).milliCPU, 1100n, 'overhead');

  const n = node();
  const big = (cpu: string, memory?: string) => pod({ containers: [c('a', { cpu, ...(memory ? { memory } : {}) })] });
  t.same(resourcesFit(big('1500m'), n, [big('1')]),
    { admit: false, reason: 'OutOfcpu', message: "Node didn't have enough resource: cpu, requested: 1500, used: 1000, capacity: 2000" });
  t.same(resourcesFit(big('1', '1Gi'), n, [big('500m', '1Mi')]),
    { admit: false, reason: 'OutOfmemory', message: "Node didn't have enough resource: memory, requested: 1073741824, used: 1048576, capacity: 1073741824" });
  t.same(resourcesFit(pod({}), n, [pod({}), pod({}), pod({})]),
    { admit: false, reason: 'OutOfpods', message: "Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3" });
  t.same(resourcesFit(big('1'), n, [big('1')]), { admit: true }, 'exactly full fits');
  t.same(resourcesFit(pod({}), n, [big('2')]), { admit: true }, 'a pod requesting nothing fits a full node');
  // Sysctls are checked before the node's predicates, as upstream's handlers run.
  t.equal((admitPod(withSysctl('net.core.somaxconn', { nodeSelector: { x: 'y' } }), n, [], new SysctlAllowlist('6.1.0')) as any).reason, 'SysctlForbidden');
  t.equal((admitPod(pod({ nodeSelector: { x: 'y' }, containers: [c('a', { cpu: '9' })] }), n, [], new SysctlAllowlist('6.1.0')) as any).reason, 'NodeAffinity');
});

t.test('rejected status', async (t) => {
  const p = { ...pod({}), status: { phase: 'Pending', qosClass: 'BestEffort' } };
  t.same(rejectedStatus(p, { reason: 'OutOfcpu', message: 'm' }, '2025-01-01T00:00:00Z'),
    { phase: 'Failed', reason: 'OutOfcpu', message: 'Pod was rejected: m', startTime: '2025-01-01T00:00:00Z', qosClass: 'BestEffort' });
});
