// Spec 001 §2.5, observed through pod admission: each namespaced sysctl of the table needs a minimum
// kernel. On a node whose kernel (status.nodeInfo.kernelVersion) meets it, a pod that sets the sysctl is
// admitted and runs. On an older kernel the rule cannot be observed: the spec notes that distributions
// may backport features, so an agent there may admit the sysctl or reject it (upstream rejects it with
// SysctlForbidden); the case skips, as it does for a kernel version that does not parse.
import { defineCase, type Case } from '../case.js';
import { fail, show, skip } from '../verify.js';
import { agentCase, createPodOnNode, isRunning, nodePath, podPath, waitFor } from './agent-kit.js';

type Version = [number, number, number];

/** "6.8.0-1015-gcp" → [6, 8, 0]; undefined when the release does not start with a version. */
function parseKernel(release: unknown): Version | undefined {
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(String(release ?? '').trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : undefined;
}

const atLeast = (v: Version, min: Version) => v[0] !== min[0] ? v[0] > min[0] : v[1] !== min[1] ? v[1] > min[1] : v[2] >= min[2];

interface Row { req: string; slug: string; kernel: Version; sysctls: Record<string, string>; feature: string }

// One row per requirement of the §2.5 table that is about a pod sysctl; values are valid settings.
const ROWS: Row[] = [
  { req: '001-2.5-ip-local-reserved-ports', slug: 'ip-local-reserved-ports', kernel: [3, 16, 0], feature: 'net.ipv4.ip_local_reserved_ports',
    sysctls: { 'net.ipv4.ip_local_reserved_ports': '30000' } },
  { req: '001-2.5-tcp-keepalive', slug: 'tcp-keepalive', kernel: [4, 5, 0], feature: 'net.ipv4.tcp_keepalive_time, tcp_keepalive_intvl, tcp_keepalive_probes',
    sysctls: { 'net.ipv4.tcp_keepalive_time': '600', 'net.ipv4.tcp_keepalive_intvl': '60', 'net.ipv4.tcp_keepalive_probes': '5' } },
  { req: '001-2.5-tcp-fin-timeout', slug: 'tcp-fin-timeout', kernel: [4, 6, 0], feature: 'net.ipv4.tcp_fin_timeout',
    sysctls: { 'net.ipv4.tcp_fin_timeout': '30' } },
  { req: '001-2.5-tcp-syncookies', slug: 'tcp-syncookies', kernel: [4, 6, 0], feature: 'net.ipv4.tcp_syncookies',
    sysctls: { 'net.ipv4.tcp_syncookies': '1' } },
  { req: '001-2.5-tcp-rmem-wmem', slug: 'tcp-rmem-wmem', kernel: [4, 15, 0], feature: 'net.ipv4.tcp_rmem, tcp_wmem',
    sysctls: { 'net.ipv4.tcp_rmem': '4096 87380 6291456', 'net.ipv4.tcp_wmem': '4096 16384 4194304' } },
  { req: '001-2.5-tcp-slow-start-after-idle', slug: 'tcp-slow-start-after-idle', kernel: [4, 15, 0], feature: 'net.ipv4.tcp_slow_start_after_idle',
    sysctls: { 'net.ipv4.tcp_slow_start_after_idle': '0' } },
  { req: '001-2.5-tcp-notsent-lowat', slug: 'tcp-notsent-lowat', kernel: [4, 6, 0], feature: 'net.ipv4.tcp_notsent_lowat',
    sysctls: { 'net.ipv4.tcp_notsent_lowat': '16384' } },
];

const finished = (p: any) => isRunning(p) || p?.status?.phase === 'Failed' || p?.status?.phase === 'Succeeded';

export const agentKernelCases: Case[] = ROWS.map((row) => defineCase({
  ...agentCase('2.5', 'MUST', 'node'),
  id: `agent.kernel.${row.slug}`,
  title: `A pod setting ${row.feature} is admitted and runs when the node's kernel is ${row.kernel.slice(0, 2).join('.')}+`,
  requirements: [row.req],
  async run(ctx) {
    const node = await ctx.api.get(nodePath(ctx.agent().nodeName));
    if (node.status !== 200) fail('read the agent\'s Node', 'HTTP 200', `HTTP ${node.status}`);
    const release = node.json?.status?.nodeInfo?.kernelVersion;
    const kernel = parseKernel(release);
    if (!kernel) skip(`the node's kernel version ${JSON.stringify(release)} does not parse as a version`);
    if (!atLeast(kernel, row.kernel)) {
      skip(`the node's kernel ${release} is below ${row.kernel.join('.')}, and distributions may backport features (§2.5), so admitting or rejecting a pod with ${Object.keys(row.sysctls).join(', ')} are both allowed there`);
    }
    const sysctls = Object.entries(row.sysctls).map(([name, value]) => ({ name, value }));
    const pod = await createPodOnNode(ctx, { securityContext: { sysctls } }, 'sysctl');
    const seen = await waitFor(ctx, podPath(ctx, pod.metadata.name), finished, 'the agent decides on the pod with the sysctl',
      'status.phase Running with container c running', 15_000);
    if (!isRunning(seen)) {
      fail(`kernel ${release} meets ${row.kernel.join('.')}: the pod setting ${Object.keys(row.sysctls).join(', ')} is admitted and runs`,
        'status.phase Running', show({ phase: seen.status?.phase, reason: seen.status?.reason, message: seen.status?.message }));
    }
  },
}));
