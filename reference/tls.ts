// Serving certificates for the reference, as upstream kube-apiserver gets them: PEM files given
// with --tls-cert-file/--tls-private-key-file, or a --cert-dir holding apiserver.crt/apiserver.key
// (reused when present, generated once otherwise), or a self-signed pair generated at start, in a
// fresh private directory (`serve` without flags) or in memory (embedded references).
//
// Keys are ECDSA P-256 and certificates are written by ./certificate.ts with node:crypto: both take
// a few milliseconds, where two RSA keys took hundreds (serve generates its pair at every start).
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { certificatePem, issue } from './certificate.js';

/** What a TLS server needs, and (when known) what its clients should trust. */
export interface ServingCert {
  /** The serving certificate, possibly followed by its chain. */
  readonly certPem: string;
  readonly keyPem: string;
  /** The CA that signed the serving certificate, for clients; absent when not known here. */
  readonly caPem?: string;
}

/** Bad TLS configuration (unreadable or mismatched files, a cert-dir that cannot be used). */
export class TlsConfigError extends Error {
  override readonly name = 'TlsConfigError';
}

/** Upstream's validity for self-signed serving certificates (certutil: one year). */
const VALIDITY_MS = 365 * 24 * 3600 * 1000;
/** Upstream backdates NotBefore by an hour so clients with a slightly slow clock accept it. */
const BACKDATE_MS = 3600 * 1000;

/** Files upstream keeps in --cert-dir; the CA file is ours, so users can pass it to `run --ca`. */
export const CERT_DIR_FILES = { cert: 'apiserver.crt', key: 'apiserver.key', ca: 'apiserver-ca.crt' } as const;

/** The file names a component keeps in its --cert-dir (the API server's above; the agent's its own). */
export interface CertDirFiles { readonly cert: string; readonly key: string; readonly ca: string }

function isUnspecified(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '';
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/**
 * The names a serving certificate for `host` covers: loopback (127.0.0.1, ::1, localhost, so local
 * clients verify whatever address they use) and the listen host itself when it is a real name or
 * address. Listening on every address (0.0.0.0, ::) adds the machine's host name instead.
 */
export function servingNames(host: string | undefined): { ips: string[]; dns: string[] } {
  const ips = new Set(['127.0.0.1', '::1']);
  const dns = new Set(['localhost']);
  const h = (host ?? '127.0.0.1').replace(/^\[(.*)\]$/, '$1');
  if (isUnspecified(h)) dns.add(hostname());
  else if (isIP(h)) ips.add(h);
  else dns.add(h.toLowerCase());
  return { ips: [...ips], dns: [...dns] };
}

export interface SelfSigned extends ServingCert {
  readonly caPem: string;
}

/**
 * A self-signed CA and a serving certificate it signs, as upstream's
 * certutil.GenerateSelfSignedCertKey but with P-256 keys: CNs `<host>-ca@<unix time>` and
 * `<host>@<unix time>`, one year; `certPem` is the serving certificate followed by the CA
 * (upstream's file layout); `keyPem` is SEC 1 ("EC PRIVATE KEY"), as upstream's keyutil writes it.
 */
export function generateSelfSigned(host?: string, now: Date = new Date()): SelfSigned {
  const names = servingNames(host);
  const h = (host ?? '').replace(/^\[(.*)\]$/, '$1');
  // Local listeners are named "localhost" as upstream's scheduler and controller manager do.
  const cnHost = isUnspecified(h) || isLoopback(h) ? 'localhost' : h;
  const unix = Math.floor(now.getTime() / 1000);
  const validity = { notBefore: new Date(now.getTime() - BACKDATE_MS), notAfter: new Date(now.getTime() + VALIDITY_MS) };
  const ca = issue({ commonName: `${cnHost}-ca@${unix}`, ...validity });
  const leaf = issue({ commonName: `${cnHost}@${unix}`, ...validity, issuer: ca, dns: names.dns, ips: names.ips });
  const caPem = certificatePem(ca.der);
  return { certPem: certificatePem(leaf.der) + caPem, keyPem: leaf.key.export({ type: 'sec1', format: 'pem' }).toString(), caPem };
}

const selfSignedByHost = new Map<string, SelfSigned>();

/**
 * generateSelfSigned, once per listen host per process: embedded runs and tests start many
 * references, and one CA to trust is simpler for their clients. The key never leaves the process.
 */
export function processSelfSigned(host?: string): SelfSigned {
  const key = host ?? '';
  let s = selfSignedByHost.get(key);
  if (!s) selfSignedByHost.set(key, (s = generateSelfSigned(host)));
  return s;
}

function readPem(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new TlsConfigError(`cannot read the ${what} ${path}: ${(err as Error).message}`);
  }
}

/** The PEM blocks of certificates in `pem`, in order. */
function certificateBlocks(pem: string): string[] {
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
}

/**
 * Checks that `certPem` starts with a certificate and `keyPem` is the private key of that
 * certificate; otherwise a TlsConfigError naming `certWhat` / `keyWhat` (file names, usually).
 */
export function checkPair(certPem: string, keyPem: string, certWhat = 'certificate', keyWhat = 'private key'): void {
  const first = certificateBlocks(certPem)[0];
  if (!first) throw new TlsConfigError(`${certWhat} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(first);
  } catch (err) {
    throw new TlsConfigError(`${certWhat}: the first certificate cannot be parsed: ${(err as Error).message}`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(keyPem);
  } catch (err) {
    throw new TlsConfigError(`${keyWhat} holds no usable unencrypted PEM private key: ${(err as Error).message}`);
  }
  if (!cert.checkPrivateKey(key)) throw new TlsConfigError(`${keyWhat} is not the private key of ${certWhat} (subject ${cert.subject.replace(/\n/g, ', ')})`);
}

/** `--tls-cert-file` / `--tls-private-key-file`: the given PEMs, checked to belong together. */
export function loadServingCert(certFile: string, keyFile: string): ServingCert {
  const certPem = readPem(certFile, 'certificate file');
  const keyPem = readPem(keyFile, 'private key file');
  checkPair(certPem, keyPem, certFile, keyFile);
  return { certPem, keyPem };
}

/** The last certificate of a chain when it is self-signed: the root clients must trust. */
function selfSignedRoot(certPem: string): string | undefined {
  const last = certificateBlocks(certPem).at(-1);
  if (!last) return undefined;
  try {
    const c = new X509Certificate(last);
    return c.subject === c.issuer && c.verify(c.publicKey) ? `${last}\n` : undefined;
  } catch {
    return undefined;
  }
}

export interface CertDirResult {
  readonly cert: ServingCert;
  readonly certFile: string;
  readonly keyFile: string;
  /** Where clients find the CA to trust: our CA file, or the cert file when its chain ends in a root. */
  readonly caFile?: string;
  /** True when the pair was generated now, false when files already there were reused. */
  readonly generated: boolean;
}

/**
 * `--cert-dir`: upstream reuses `apiserver.crt`/`apiserver.key` there when both exist and
 * generates a self-signed pair into them otherwise. The directory is created owner-only (0700) and
 * the key written 0600: whoever reads it can impersonate the server.
 */
export function certDirServingCert(certDir: string, host?: string, files: CertDirFiles = CERT_DIR_FILES): CertDirResult {
  // Absolute, so the printed "ca:" path works from any directory.
  const dir = resolve(certDir);
  const certFile = join(dir, files.cert);
  const keyFile = join(dir, files.key);
  const caFile = join(dir, files.ca);
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new TlsConfigError(`--cert-dir ${dir} is not a directory`);
  const haveCert = existsSync(certFile);
  const haveKey = existsSync(keyFile);
  if (haveCert && haveKey) {
    const cert = loadServingCert(certFile, keyFile);
    if (existsSync(caFile)) return { cert: { ...cert, caPem: readPem(caFile, 'CA file') }, certFile, keyFile, caFile, generated: false };
    // Files put there by hand: a chain ending in a self-signed root names what to trust.
    const root = selfSignedRoot(cert.certPem);
    return { cert: { ...cert, caPem: root }, certFile, keyFile, caFile: root ? certFile : undefined, generated: false };
  }
  // One without the other is somebody's half-finished set-up: overwriting it could destroy a key.
  if (haveCert || haveKey) throw new TlsConfigError(`--cert-dir ${dir} has ${haveCert ? files.cert : files.key} but not ${haveCert ? files.key : files.cert}: add the missing file or remove the other`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const cert = generateSelfSigned(host);
    // 'wx': never overwrite a file that appeared meanwhile; the mode applies to the new key only.
    writeFileSync(keyFile, cert.keyPem, { mode: 0o600, flag: 'wx' });
    writeFileSync(certFile, cert.certPem, { mode: 0o644, flag: 'wx' });
    writeFileSync(caFile, cert.caPem, { mode: 0o644 });
    return { cert, certFile, keyFile, caFile, generated: true };
  } catch (err) {
    if (err instanceof TlsConfigError) throw err;
    throw new TlsConfigError(`cannot write serving certificates to --cert-dir ${dir}: ${(err as Error).message}`);
  }
}

export interface ServeTlsFlags {
  readonly tlsCertFile?: string;
  readonly tlsPrivateKeyFile?: string;
  readonly certDir?: string;
  readonly plainHttp?: boolean;
  readonly host?: string;
}

export interface ServeTls {
  /** Absent: plain HTTP (--plain-http). */
  readonly cert?: ServingCert;
  /** The CA file clients should trust (`serve` prints it as "ca:"), when known. */
  readonly caFile?: string;
  /** True when the pair was generated now. */
  readonly generated?: boolean;
  /** A private directory made for this process only, and what removes it: call when the server stops. */
  readonly tempDir?: string;
  readonly cleanup?: () => void;
}

/**
 * What `serve`'s TLS flags ask for: the given files, a --cert-dir pair, plain HTTP
 * (--plain-http), or by default a self-signed pair in a fresh private directory: spec 002 §1 has
 * every component serve HTTPS. That directory holds the serving key, so it is owner-only and goes
 * when the server does (the CA's key is never written: nobody should trust that CA afterwards).
 * Flags that cannot be meant together are a TlsConfigError: upstream silently ignores --cert-dir
 * next to explicit files, which hides a typo; here it is refused.
 */
export function serveTls(flags: ServeTlsFlags): ServeTls {
  const given = (v: string | undefined, flag: string) => {
    if (v !== undefined && v.trim() === '') throw new TlsConfigError(`${flag} needs a path`);
    return v !== undefined;
  };
  const certFile = given(flags.tlsCertFile, '--tls-cert-file');
  const keyFile = given(flags.tlsPrivateKeyFile, '--tls-private-key-file');
  const certDir = given(flags.certDir, '--cert-dir');
  if (flags.plainHttp && (certFile || keyFile || certDir)) throw new TlsConfigError('--plain-http serves without TLS: give it without --tls-cert-file, --tls-private-key-file and --cert-dir');
  if (flags.plainHttp) return {};
  if (certDir && (certFile || keyFile)) throw new TlsConfigError('--cert-dir generates or reuses apiserver.crt/apiserver.key there; with --tls-cert-file/--tls-private-key-file give those instead, not both');
  if (certFile !== keyFile) throw new TlsConfigError('--tls-cert-file and --tls-private-key-file go together: give both (or --cert-dir to have a self-signed pair made)');
  if (certFile) return { cert: loadServingCert(flags.tlsCertFile!, flags.tlsPrivateKeyFile!) };
  if (certDir) {
    const r = certDirServingCert(flags.certDir!, flags.host);
    return { cert: r.cert, caFile: r.caFile, generated: r.generated };
  }
  let tempDir: string;
  try {
    // mkdtemp makes the directory 0700 under a name nobody could have prepared.
    tempDir = mkdtempSync(join(tmpdir(), 'orch-conformance-serve-'));
  } catch (err) {
    throw new TlsConfigError(`cannot make a private directory for the serving certificate in ${tmpdir()}: ${(err as Error).message} (or give --cert-dir)`);
  }
  try {
    const r = certDirServingCert(tempDir, flags.host);
    return { cert: r.cert, caFile: r.caFile, generated: true, tempDir, cleanup: () => rmSync(tempDir, { recursive: true, force: true }) };
  } catch (err) {
    rmSync(tempDir, { recursive: true, force: true });
    throw err;
  }
}

/** What Go's TLS server writes to a client that speaks plain HTTP to it (then it closes). */
export const PLAIN_HTTP_ANSWER = 'HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n';

/**
 * Makes an HTTPS server answer plain HTTP as upstream's servers do (Go's net/http: 400 and a line that
 * says what happened) instead of dropping the connection. OpenSSL recognizes the HTTP request
 * (ERR_SSL_HTTP_REQUEST); the answer goes out in the clear on the TCP socket under the failed TLS
 * one (Node keeps it as `_parent`; without it the connection just closes, as before).
 */
export function answerPlainHttp(server: import('node:tls').Server): void {
  server.on('tlsClientError', (err: NodeJS.ErrnoException, tlsSocket: import('node:tls').TLSSocket) => {
    if (err.code !== 'ERR_SSL_HTTP_REQUEST') return;
    const raw = (tlsSocket as unknown as { _parent?: import('node:net').Socket })._parent;
    if (raw && !raw.destroyed) raw.end(PLAIN_HTTP_ANSWER);
  });
}
