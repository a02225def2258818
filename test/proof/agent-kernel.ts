// Breakages for the §2.5 kernel cases (suites/001-node-agent/agent-2.5-kernel.ts): each admission case's
// makes the agent require a kernel no machine has for one sysctl the case's pod sets, so the pod is
// rejected; the sandbox case's agent admits and runs the pod but creates its sandbox without the sysctls.
import type { AgentBreakage } from '../helpers/agent-node.js';

const brokenSysctl: Record<string, string> = {
  'agent.kernel.ip-local-reserved-ports': 'net.ipv4.ip_local_reserved_ports',
  'agent.kernel.tcp-keepalive': 'net.ipv4.tcp_keepalive_probes',
  'agent.kernel.tcp-fin-timeout': 'net.ipv4.tcp_fin_timeout',
  'agent.kernel.tcp-syncookies': 'net.ipv4.tcp_syncookies',
  'agent.kernel.tcp-rmem-wmem': 'net.ipv4.tcp_wmem',
  'agent.kernel.tcp-slow-start-after-idle': 'net.ipv4.tcp_slow_start_after_idle',
  'agent.kernel.tcp-notsent-lowat': 'net.ipv4.tcp_notsent_lowat',
};

export const agentKernelBreakages: Record<string, AgentBreakage> = {
  ...Object.fromEntries(Object.entries(brokenSysctl).map(([id, sysctl]) => [id, { switch: `admission-kernel-${sysctl}` }])),
  'agent.kernel.sysctls-in-sandbox': { switch: 'sandbox-drop-sysctls' },
};
