// Evidence bundles (`run --bundle`, `bundle sign`, `bundle verify`): one owner-only .tgz holding a
// run's results, its reports, what identifies the kit and the target, and a manifest of SHA-256
// digests that an Ed25519 signature covers, so an auditor can check offline that nothing changed.
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { chmodSync, closeSync, mkdtempSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve as resolvePath } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { fileURLToPath } from 'node:url';
import * as tar from 'tar';
import { ApiClient, createDispatcher, describeError, type TargetConnection } from './client.js';
import { UsageError } from './errors.js';
import type { RunReport, RunSelection, RunSummary } from './results.js';
import { renderJson } from '../reporters/json.js';
import { renderMarkdown } from '../reporters/markdown.js';
import { renderHtml } from '../reporters/html.js';
import { renderJunit } from '../reporters/junit.js';

export const BUNDLE_FORMAT = 'orch-conformance-bundle/1';
export const MANIFEST = 'manifest.json';
/** The detached signature over MANIFEST's bytes, added to the archive by `bundle sign`. */
export const SIGNATURE = 'signature.json';

/** What identifies the target the run checked, as far as it could be read. */
export interface TargetFingerprint {
  embedded: boolean;
  api?: string;
  /** GET /version as the target answered it. */
  version?: unknown;
  /** SHA-256 of the API's serving certificate (DER), colon-separated hex as openssl prints it. */
  servingCertSha256?: string;
  /** SHA-256 of GET /api and GET /apis, each as canonical JSON. */
  discoveryDigest?: string;
  agent?: { url: string; node: string; healthz?: string; servingCertSha256?: string; nodeInfo?: unknown };
  /** What could not be read, and why: a fingerprint with gaps is still evidence. */
  unavailable?: string[];
}

export interface BundleMetadata {
  format: typeof BUNDLE_FORMAT;
  kit: { tool: string; version: string; suitesSha256: string };
  runId: string;
  startedAt: string;
  endedAt: string;
  hostname: string;
  /** The run's arguments, secrets redacted (RunReport.command). */
  command: string[];
  selection?: RunSelection;
  summary: RunSummary;
  target: TargetFingerprint;
}

export interface BundleManifest {
  format: typeof BUNDLE_FORMAT;
  algorithm: 'sha256';
  /** Path in the archive to its hex digest, every file but the manifest and the signature. */
  files: Record<string, string>;
}

export interface BundleSignature {
  algorithm: 'ed25519';
  /** SHA-256 of the signer's public key (SPKI DER), to tell keys apart. */
  publicKeySha256: string;
  /** Base64 signature over the bytes of manifest.json. */
  signature: string;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** JSON with object keys sorted at every level: digests that do not depend on key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as any)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * A digest of the kit's compiled suites (every file under dist/suites, by relative path and
 * content): two runs with the same digest ran the same cases' code.
 */
export function suitesDigest(dir = fileURLToPath(new URL('../suites/', import.meta.url))): string {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) files.push(p);
    }
  };
  walk(dir);
  const lines = files.map((p) => relative(dir, p).split('\\').join('/')).sort().map((rel) => `${rel}\0${sha256(readFileSync(join(dir, rel)))}\n`);
  return sha256(lines.join(''));
}

/** The SHA-256 of the certificate an https URL serves (not verified: this identifies, it does not trust). */
function servingCertSha256(url: string, timeoutMs = 5000): Promise<string | undefined> {
  const u = new URL(url);
  if (u.protocol !== 'https:') return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: u.hostname, port: Number(u.port || 443), servername: /^[\d.]+$|:/.test(u.hostname) ? undefined : u.hostname, rejectUnauthorized: false });
    const timer = setTimeout(() => { socket.destroy(); reject(new Error('timed out')); }, timeoutMs);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      const cert = socket.getPeerCertificate();
      socket.end();
      resolve(cert?.fingerprint256);
    });
    socket.once('error', (err) => { clearTimeout(timer); reject(err); });
  });
}

/** Reads the target's fingerprint; each part that cannot be read is named under `unavailable`. */
export async function fingerprintTarget(conn: TargetConnection, agent?: { conn: TargetConnection; nodeName: string }): Promise<TargetFingerprint> {
  const fp: TargetFingerprint = { embedded: false, api: conn.baseUrl };
  const unavailable: string[] = [];
  const dispatcher = createDispatcher(conn);
  const api = new ApiClient(conn, dispatcher);
  const read = async (what: string, path: string, client = api): Promise<any> => {
    try {
      const res = await client.get(path, { timeoutMs: 10_000 });
      if (res.status !== 200) { unavailable.push(`${what}: ${path} answered ${res.status}`); return undefined; }
      return res.json ?? res.text;
    } catch (err) {
      unavailable.push(`${what}: ${describeError(err)}`);
      return undefined;
    }
  };
  const cert = async (what: string, url: string) => servingCertSha256(url).catch((err) => { unavailable.push(`${what}: ${describeError(err)}`); return undefined; });
  try {
    fp.version = await read('version', '/version');
    fp.servingCertSha256 = await cert('serving certificate', conn.baseUrl);
    const core = await read('discovery', '/api');
    const groups = await read('discovery', '/apis');
    if (core !== undefined && groups !== undefined) fp.discoveryDigest = sha256(canonicalJson({ api: core, apis: groups }));
    if (agent) {
      const agentDispatcher = createDispatcher(agent.conn);
      try {
        const healthz = await read('agent /healthz', '/healthz', new ApiClient(agent.conn, agentDispatcher));
        const node = await read('agent version', `/api/v1/nodes/${encodeURIComponent(agent.nodeName)}`);
        fp.agent = {
          url: agent.conn.baseUrl, node: agent.nodeName,
          ...(healthz !== undefined ? { healthz: String(healthz) } : {}),
          ...(node?.status?.nodeInfo ? { nodeInfo: node.status.nodeInfo } : {}),
        };
        const agentCert = await cert('agent serving certificate', agent.conn.baseUrl);
        if (agentCert) fp.agent.servingCertSha256 = agentCert;
      } finally {
        await agentDispatcher.close().catch(() => undefined);
      }
    }
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
  return { ...fp, ...(unavailable.length ? { unavailable } : {}) };
}

/** The files of a bundle of this run, by path in the archive (manifest and signature apart). */
export function bundleFiles(report: RunReport, target: TargetFingerprint, opts: { endedAt?: string; host?: string; suitesSha256?: string } = {}): Map<string, Buffer> {
  const endedAt = opts.endedAt ?? new Date(Date.parse(report.startedAt) + report.durationMs).toISOString();
  const metadata: BundleMetadata = {
    format: BUNDLE_FORMAT,
    kit: { tool: report.tool, version: report.version, suitesSha256: opts.suitesSha256 ?? suitesDigest() },
    runId: report.runId, startedAt: report.startedAt, endedAt, hostname: opts.host ?? hostname(),
    command: report.command ?? [], ...(report.selection ? { selection: report.selection } : {}),
    summary: report.summary, target,
  };
  // results.json holds every recorded exchange (the runner keeps them for failed and errored cases).
  return new Map<string, Buffer>([
    ['metadata.json', Buffer.from(`${JSON.stringify(metadata, null, 2)}\n`)],
    ['results.json', Buffer.from(renderJson(report))],
    ['reports/report.md', Buffer.from(renderMarkdown(report))],
    ['reports/report.html', Buffer.from(renderHtml(report))],
    ['reports/junit.xml', Buffer.from(renderJunit(report))],
  ]);
}

export function manifestOf(files: Map<string, Buffer>): BundleManifest {
  const entries = [...files].filter(([p]) => p !== MANIFEST && p !== SIGNATURE).sort(([a], [b]) => (a < b ? -1 : 1));
  return { format: BUNDLE_FORMAT, algorithm: 'sha256', files: Object.fromEntries(entries.map(([p, data]) => [p, sha256(data)])) };
}

/**
 * Writes the archive: the files under one folder per archive, owner-only (0600) from the first
 * byte, replaced atomically (a temporary file beside it, renamed).
 */
export async function writeArchive(file: string, files: Map<string, Buffer>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'orch-bundle-'));
  const target = resolvePath(file);
  mkdirSync(dirname(target), { recursive: true });
  const partial = join(dirname(target), `.${basename(target)}.${process.pid}.partial`);
  try {
    for (const [path, data] of files) {
      mkdirSync(dirname(join(dir, path)), { recursive: true, mode: 0o700 });
      writeFileSync(join(dir, path), data, { mode: 0o600 });
    }
    // Created 0600 before tar writes into it: the archive is never readable by others.
    closeSync(openSync(partial, 'w', 0o600));
    await tar.c({ gzip: true, file: partial, cwd: dir, portable: true }, [...files.keys()].sort());
    chmodSync(partial, 0o600);
    renameSync(partial, target);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(partial, { force: true });
  }
}

/** Writes a run's bundle (unsigned): its files and their manifest. */
export async function writeBundle(file: string, report: RunReport, target: TargetFingerprint, opts: Parameters<typeof bundleFiles>[2] = {}): Promise<void> {
  const files = bundleFiles(report, target, opts);
  files.set(MANIFEST, Buffer.from(`${JSON.stringify(manifestOf(files), null, 2)}\n`));
  await writeArchive(file, files);
}

/** Every regular file of an archive, by path; anything else (links, paths leaving it, repeats) is refused. */
export async function readArchive(file: string): Promise<Map<string, Buffer>> {
  try {
    statSync(file);
  } catch (err) {
    throw new UsageError(`cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const files = new Map<string, Buffer>();
  const problems: string[] = [];
  try {
    await tar.t({
      file,
      strict: true,
      onReadEntry: (entry) => {
        const path = entry.path.replace(/^\.\//, '');
        if (entry.type === 'Directory') { entry.resume(); return; }
        if (entry.type !== 'File' || path.startsWith('/') || path.split('/').includes('..')) {
          problems.push(`${entry.path}: not a plain file of the bundle (${entry.type})`);
          entry.resume();
          return;
        }
        if (files.has(path)) problems.push(`${path}: present twice`);
        const chunks: Buffer[] = [];
        entry.on('data', (c: Buffer) => chunks.push(c));
        entry.on('end', () => files.set(path, Buffer.concat(chunks)));
      },
    });
  } catch (err) {
    throw new BundleError(`${file}: not a readable .tgz archive (${(err as Error).message})`);
  }
  if (problems.length) throw new BundleError(`${file}: ${problems.join('; ')}`);
  return files;
}

/** A bundle that cannot be taken as one (unreadable, malformed): verification fails. */
export class BundleError extends Error {}

/** The digests of the files against the manifest: one line per file that differs, is missing or is extra. */
export function checkDigests(files: Map<string, Buffer>): { manifest?: BundleManifest; problems: string[] } {
  const raw = files.get(MANIFEST);
  if (!raw) return { problems: [`${MANIFEST}: missing (not a bundle written by run --bundle)`] };
  let manifest: BundleManifest;
  try {
    manifest = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    return { problems: [`${MANIFEST}: not JSON (${(err as Error).message})`] };
  }
  if (manifest?.algorithm !== 'sha256' || !manifest.files || typeof manifest.files !== 'object') return { problems: [`${MANIFEST}: not a sha256 manifest`] };
  const problems: string[] = [];
  for (const [path, digest] of Object.entries(manifest.files)) {
    const data = files.get(path);
    if (!data) problems.push(`${path}: listed in the manifest but missing from the archive`);
    else if (sha256(data) !== digest) problems.push(`${path}: changed (sha256 ${sha256(data)}, the manifest says ${digest})`);
  }
  for (const path of files.keys()) {
    if (path !== MANIFEST && path !== SIGNATURE && !(path in manifest.files)) problems.push(`${path}: not in the manifest (added after the bundle was written)`);
  }
  return { manifest, problems };
}

/** A PEM key file, read as the kind asked for; any other kind of key, or a non-Ed25519 one, is a usage error. */
export function loadKey(path: string, kind: 'private' | 'public'): KeyObject {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`--key ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let key: KeyObject;
  try {
    // A private key also gives its public half, so verify accepts either file.
    key = kind === 'private' ? createPrivateKey(pem) : createPublicKey(pem);
  } catch (err) {
    throw new UsageError(`--key ${path}: not a PEM ${kind} key (${(err as Error).message})`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new UsageError(`--key ${path}: an ${key.asymmetricKeyType ?? 'unknown'} key; bundles are signed with Ed25519 keys`);
  return key;
}

const keyId = (key: KeyObject) => sha256((key.type === 'public' ? key : createPublicKey(key)).export({ type: 'spki', format: 'der' }));

/**
 * `bundle sign`: a detached Ed25519 signature over the manifest, added to the archive as
 * signature.json (replacing an earlier one). A bundle whose digests do not hold is not signed.
 */
export async function signBundle(file: string, privateKey: KeyObject): Promise<BundleSignature> {
  const files = await readArchive(file);
  const { problems } = checkDigests(files);
  if (problems.length) throw new BundleError(`${file}: will not sign a bundle that does not match its manifest: ${problems.join('; ')}`);
  const signature: BundleSignature = {
    algorithm: 'ed25519',
    publicKeySha256: keyId(privateKey),
    signature: sign(null, files.get(MANIFEST)!, privateKey).toString('base64'),
  };
  files.set(SIGNATURE, Buffer.from(`${JSON.stringify(signature, null, 2)}\n`));
  await writeArchive(file, files);
  return signature;
}

export interface BundleVerification {
  ok: boolean;
  /** What failed, each naming its file. */
  problems: string[];
  /** `unchecked`: signed, but no key was given to check it with. */
  signature: 'valid' | 'invalid' | 'absent' | 'unchecked';
  metadata?: BundleMetadata;
  report?: RunReport;
}

/** `bundle verify`: every digest, and the signature with the key given; offline. */
export async function verifyBundle(file: string, publicKey?: KeyObject): Promise<BundleVerification> {
  let files: Map<string, Buffer>;
  try {
    files = await readArchive(file);
  } catch (err) {
    if (err instanceof BundleError) return { ok: false, problems: [err.message], signature: 'absent' };
    throw err;
  }
  const { problems } = checkDigests(files);
  let signature: BundleVerification['signature'] = 'absent';
  const sigFile = files.get(SIGNATURE);
  if (sigFile) {
    signature = 'unchecked';
    if (publicKey) {
      let sig: BundleSignature | undefined;
      try {
        sig = JSON.parse(sigFile.toString('utf8'));
      } catch { /* reported below */ }
      const good = !!sig && sig.algorithm === 'ed25519' && typeof sig.signature === 'string' && !!files.get(MANIFEST)
        && verify(null, files.get(MANIFEST)!, publicKey, Buffer.from(sig.signature, 'base64'));
      signature = good ? 'valid' : 'invalid';
      if (!good) {
        const other = sig && sig.publicKeySha256 !== keyId(publicKey) ? ` (signed by key sha256 ${sig.publicKeySha256}, not by the key given, sha256 ${keyId(publicKey)})` : '';
        problems.push(`${SIGNATURE}: the signature over ${MANIFEST} does not verify with the key given${other}`);
      }
    }
  } else if (publicKey) {
    problems.push(`${SIGNATURE}: missing: the bundle is not signed (bundle sign <file> --key <private key>)`);
  }
  const parse = (path: string) => {
    try {
      return files.has(path) ? JSON.parse(files.get(path)!.toString('utf8')) : undefined;
    } catch {
      return undefined;
    }
  };
  return { ok: problems.length === 0, problems, signature, metadata: parse('metadata.json'), report: parse('results.json') };
}
