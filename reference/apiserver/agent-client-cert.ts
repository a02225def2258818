// The client certificate the API server presents to node agents through the node proxy (upstream
// kube-apiserver's --kubelet-client-certificate/--kubelet-client-key, here --agent-client-certificate
// and --agent-client-key). A certificate, unlike a bearer token, cannot be replayed by whoever
// receives it: a Node's address is whatever its writer put there, so nothing the proxy sends there may
// be a credential. Subject as upstream's kubeadm writes it, renamed: CN the agent-client user, O its
// group, the least the bootstrap roles need (system:agent-api-admin is bound to that group; upstream
// kubeadm puts the certificate in system:masters, which the reference does not need).
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { certificatePem, issue } from '../certificate.js';
import { checkPair, TlsConfigError } from '../tls.js';
import { AGENT_CLIENT_GROUP } from './auth/policy.js';

/** The user agents see (upstream: kube-apiserver-kubelet-client). */
export const AGENT_CLIENT_USER = 'orch-apiserver-agent-client';

export interface AgentClientCert {
  readonly certPem: string;
  readonly keyPem: string;
  /** The CA that signed it, for agents' `authentication.x509.clientCAFile`; absent when not known (given files). */
  readonly caPem?: string;
}

/** Files kept in a --cert-dir next to the serving pair, reused at the next start. */
export const AGENT_CLIENT_FILES = { cert: 'agent-client.crt', key: 'agent-client.key', ca: 'agent-client-ca.crt' } as const;

/** One year, as the serving certificates; NotBefore an hour back for slow clocks. */
const VALIDITY_MS = 365 * 24 * 3600 * 1000;
const BACKDATE_MS = 3600 * 1000;

/** A fresh CA and the agent-client certificate it signs (P-256, as the serving pairs). */
export function generateAgentClientCert(now: Date = new Date()): Required<AgentClientCert> {
  const validity = { notBefore: new Date(now.getTime() - BACKDATE_MS), notAfter: new Date(now.getTime() + VALIDITY_MS) };
  const ca = issue({ commonName: `${AGENT_CLIENT_USER}-ca@${Math.floor(now.getTime() / 1000)}`, ...validity });
  const leaf = issue({ commonName: AGENT_CLIENT_USER, organizations: [AGENT_CLIENT_GROUP], client: true, issuer: ca, ...validity });
  return { certPem: certificatePem(leaf.der), keyPem: leaf.key.export({ type: 'sec1', format: 'pem' }).toString(), caPem: certificatePem(ca.der) };
}

function read(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new TlsConfigError(`cannot read the ${what} ${path}: ${(err as Error).message}`);
  }
}

/** `--agent-client-certificate` / `--agent-client-key`: the given PEMs, checked to belong together. */
export function loadAgentClientCert(certFile: string, keyFile: string): AgentClientCert {
  const certPem = read(certFile, 'agent client certificate file');
  const keyPem = read(keyFile, 'agent client key file');
  checkPair(certPem, keyPem, certFile, keyFile);
  return { certPem, keyPem };
}

/**
 * The agent-client pair kept in `dir` (a --cert-dir, or serve's private directory): reused when
 * present, so agents configured with its CA keep accepting the server across restarts; generated
 * otherwise, the key owner-only. Returns the pair and the CA file agents should be given.
 */
export function certDirAgentClientCert(dir: string): { cert: AgentClientCert; caFile?: string } {
  const abs = resolve(dir);
  const certFile = join(abs, AGENT_CLIENT_FILES.cert);
  const keyFile = join(abs, AGENT_CLIENT_FILES.key);
  const caFile = join(abs, AGENT_CLIENT_FILES.ca);
  if (existsSync(abs) && !statSync(abs).isDirectory()) throw new TlsConfigError(`--cert-dir ${abs} is not a directory`);
  const haveCert = existsSync(certFile);
  const haveKey = existsSync(keyFile);
  if (haveCert && haveKey) {
    const cert = loadAgentClientCert(certFile, keyFile);
    return existsSync(caFile) ? { cert: { ...cert, caPem: read(caFile, 'CA file') }, caFile } : { cert };
  }
  if (haveCert || haveKey) throw new TlsConfigError(`--cert-dir ${abs} has ${haveCert ? AGENT_CLIENT_FILES.cert : AGENT_CLIENT_FILES.key} but not ${haveCert ? AGENT_CLIENT_FILES.key : AGENT_CLIENT_FILES.cert}: add the missing file or remove the other`);
  try {
    mkdirSync(abs, { recursive: true, mode: 0o700 });
    const cert = generateAgentClientCert();
    writeFileSync(keyFile, cert.keyPem, { mode: 0o600, flag: 'wx' });
    writeFileSync(certFile, cert.certPem, { mode: 0o644, flag: 'wx' });
    writeFileSync(caFile, cert.caPem, { mode: 0o644 });
    return { cert, caFile };
  } catch (err) {
    throw new TlsConfigError(`cannot write the agent client certificate to ${abs}: ${(err as Error).message}`);
  }
}
