// `serve`'s node proxy flags: the client certificate presented to agents (--agent-client-certificate,
// --agent-client-key; upstream --kubelet-client-*) and the CA their serving certificates must chain to
// (--agent-certificate-authority; upstream --kubelet-certificate-authority).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { certDirAgentClientCert, loadAgentClientCert, type AgentClientCert } from '../../reference/apiserver/agent-client-cert.js';
import { TlsConfigError } from '../../reference/tls.js';

export interface AgentClientSetup {
  readonly cert: AgentClientCert;
  /** The CA file agents are given (`agent --client-ca-file`), printed as "agent-client-ca:"; absent with given files. */
  readonly caFile?: string;
  readonly agentCaPem?: string;
  /** Removes a private directory made for the pair alone. */
  readonly cleanup?: () => void;
}

/**
 * The given pair, or one kept next to the serving pair (--cert-dir: reused across starts; serve's
 * private directory: gone with it), or, with neither (--plain-http, --tls-cert-file), one in a
 * private directory of its own. Bad flags or files are a TlsConfigError.
 */
export function agentClientFromFlags(argv: { agentClientCertificate?: string; agentClientKey?: string; agentCertificateAuthority?: string; certDir?: string }, servingTempDir?: string): AgentClientSetup {
  const given = (v: string | undefined, flag: string) => {
    if (v !== undefined && v.trim() === '') throw new TlsConfigError(`${flag} needs a path`);
    return v !== undefined;
  };
  const certFile = given(argv.agentClientCertificate, '--agent-client-certificate');
  const keyFile = given(argv.agentClientKey, '--agent-client-key');
  if (certFile !== keyFile) throw new TlsConfigError('--agent-client-certificate and --agent-client-key go together: give both (or neither, to have a pair generated)');
  let agentCaPem: string | undefined;
  if (given(argv.agentCertificateAuthority, '--agent-certificate-authority')) {
    try {
      agentCaPem = readFileSync(argv.agentCertificateAuthority!, 'utf8');
    } catch (err) {
      throw new TlsConfigError(`cannot read the --agent-certificate-authority file ${argv.agentCertificateAuthority}: ${(err as Error).message}`);
    }
    if (!/-----BEGIN CERTIFICATE-----/.test(agentCaPem)) throw new TlsConfigError(`--agent-certificate-authority ${argv.agentCertificateAuthority}: no PEM certificate in it`);
  }
  if (certFile) return { cert: loadAgentClientCert(argv.agentClientCertificate!, argv.agentClientKey!), agentCaPem };
  const keptDir = argv.certDir ?? servingTempDir;
  if (keptDir !== undefined) {
    const r = certDirAgentClientCert(keptDir);
    return { cert: r.cert, caFile: r.caFile, agentCaPem };
  }
  let dir: string;
  try {
    // mkdtemp: 0700, under a name nobody could have prepared; the key goes with the process.
    dir = mkdtempSync(join(tmpdir(), 'orch-conformance-serve-'));
  } catch (err) {
    throw new TlsConfigError(`cannot make a private directory for the agent client certificate in ${tmpdir()}: ${(err as Error).message}`);
  }
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    const r = certDirAgentClientCert(dir);
    return { cert: r.cert, caFile: r.caFile, agentCaPem, cleanup };
  } catch (err) {
    cleanup();
    throw err;
  }
}
