// The agent's serving certificate (`--cert-dir`, default <root>/pki): upstream's kubelet reuses
// kubelet.crt/kubelet.key there and generates a self-signed pair when they are absent. Here the
// files are agent.crt/agent.key (renamed), plus agent-ca.crt: the project's self-signed pair is a CA
// and a leaf it signs (reference/tls.ts), and the CA file is what clients trust. The directory is
// owner-only and the key 0600: whoever reads it can impersonate the agent.
import { certDirServingCert, type ServingCert } from '../tls.js';

export const AGENT_CERT_FILES = { cert: 'agent.crt', key: 'agent.key', ca: 'agent-ca.crt' } as const;

export interface AgentServingCert {
  readonly cert: ServingCert;
  /** The CA to trust, when known (the generated CA, or one left next to reused files). */
  readonly caFile?: string;
  /** True when the pair was generated now. */
  readonly generated: boolean;
}

/** Reuses agent.crt/agent.key in `certDir` or generates a self-signed pair for `host` there, as serve's --cert-dir does. */
export function agentServingCert(certDir: string, host?: string): AgentServingCert {
  const { cert, caFile, generated } = certDirServingCert(certDir, host, AGENT_CERT_FILES);
  return { cert, caFile, generated };
}
