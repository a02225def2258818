// Spec 001 §2.5, observed through pod admission: each namespaced sysctl of the table needs a minimum
// kernel. On a node whose kernel (status.nodeInfo.kernelVersion) meets it, a pod that sets the sysctl is
// admitted and runs. On an older kernel the rule cannot be observed: the spec notes that distributions
// may backport features, so an agent there may admit the sysctl or reject it (upstream rejects it with
// SysctlForbidden); the case skips, as it does for a kernel version that does not parse.
// A pod that runs has its sysctls set: the agent hands them to the runtime with the pod sandbox
// (CRI LinuxPodSandboxConfig.sysctls), which the mock CRI records; an agent that admits the pod and
// drops its sysctls fails agent.kernel.sysctls-in-sandbox.
import { defineCase, type Case, type CaseContext } from '../case.js';
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

/** The agent's node's kernel (status.nodeInfo.kernelVersion); skips when it does not parse. */
async function nodeKernel(ctx: CaseContext): Promise<{ release: string; kernel: Version }> {
  const node = await ctx.api.get(nodePath(ctx.agent().nodeName));
  if (node.status !== 200) fail('read the agent\'s Node', 'HTTP 200', `HTTP ${node.status}`);
  const release = node.json?.status?.nodeInfo?.kernelVersion;
  const kernel = parseKernel(release);
  if (!kernel) skip(`the node's kernel version ${JSON.stringify(release)} does not parse as a version`);
  return { release: String(release), kernel };
}

const admissionCases: Case[] = ROWS.map((row) => defineCase({
  ...agentCase('2.5', 'MUST', 'node'),
  id: `agent.kernel.${row.slug}`,
  title: `A pod setting ${row.feature} is admitted and runs when the node's kernel is ${row.kernel.slice(0, 2).join('.')}+`,
  requirements: [row.req],
  async run(ctx) {
    const { release, kernel } = await nodeKernel(ctx);
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

/**
 * The sysctls of a running pod reach its sandbox: every sysctl of the table the node's kernel
 * namespaces, set on one pod, is in the mock CRI's record of that pod's sandbox with its value.
 * Upstream's kubelet passes spec.securityContext.sysctls as they are, name to value, and so must
 * any agent: CRI has no other place for them. Names are written with dots (the separator the
 * runtime's map uses), so no normalisation is involved; other entries in the map are allowed.
 */
const sandboxCase = defineCase({
  ...agentCase('2.5', 'MUST', 'node'),
  id: 'agent.kernel.sysctls-in-sandbox',
  title: 'A running pod\'s sysctls reach its sandbox: RunPodSandbox carries them in config.linux.sysctls, name to value',
  requirements: ['001-2.5-pod-sysctls-in-sandbox'],
  async run(ctx) {
    const { release, kernel } = await nodeKernel(ctx);
    const want: Record<string, string> = Object.assign({}, ...ROWS.filter((r) => atLeast(kernel, r.kernel)).map((r) => r.sysctls));
    if (Object.keys(want).length === 0) skip(`the node's kernel ${release} is below every sysctl row of §2.5, so no pod sysctl is sure to be admitted`);
    const sysctls = Object.entries(want).map(([name, value]) => ({ name, value }));
    const pod = await createPodOnNode(ctx, { securityContext: { sysctls } }, 'sysctls');
    const seen = await waitFor(ctx, podPath(ctx, pod.metadata.name), finished, 'the agent runs the pod with the sysctls',
      'status.phase Running with container c running', 15_000);
    // Admission of these sysctls is the rule of the agent.kernel.<sysctl> cases; without a running
    // pod there is no sandbox whose sysctls could be read.
    if (!isRunning(seen)) skip(`the pod setting ${Object.keys(want).join(', ')} did not run (phase ${seen.status?.phase}: ${seen.status?.reason ?? ''} ${seen.status?.message ?? ''}); agent.kernel.* cases judge its admission`);
    const sandboxes = (await ctx.cri().state()).sandboxes.filter((s: any) => s.metadata?.uid === pod.metadata.uid && s.state === 'SANDBOX_READY');
    if (sandboxes.length === 0) fail('the running pod has a ready sandbox in the runtime', `a SANDBOX_READY sandbox with metadata.uid ${pod.metadata.uid}`, 'none');
    for (const sb of sandboxes) {
      const got: Record<string, unknown> = sb.sysctls ?? {};
      const wrong = Object.entries(want).filter(([name, value]) => got[name] !== value);
      if (wrong.length) {
        fail(`sandbox ${sb.id} of the pod: RunPodSandbox config.linux.sysctls holds the pod's sysctls`, show(want),
          show(Object.fromEntries(wrong.map(([name]) => [name, got[name] ?? '(absent)']))));
      }
    }
  },
});

export const agentKernelCases: Case[] = [...admissionCases, sandboxCase];
