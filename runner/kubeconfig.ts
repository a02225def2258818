// `run --kubeconfig <file> [--context <name>]`: the target and credentials from a kubeconfig, read
// as kubectl reads them (server, CA data or file, bearer token or token file, client certificate
// and key, insecure-skip-tls-verify). Only what the runner can honour is accepted: a user that
// authenticates by exec plugin, auth provider or basic auth is refused with a clear message rather
// than run without credentials.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { UsageError } from './errors.js';

const require = createRequire(import.meta.url);

/**
 * A kubeconfig's document. JSON is YAML too, and the kubeconfigs the runner writes for the agents it
 * launches are JSON: JSON.parse reads those without loading the YAML parser (about 70 modules, a
 * tenth of an agent launch's start). Anything else goes to the YAML parser, loaded then.
 */
function parseKubeconfigText(text: string): unknown {
  if (text.trimStart().startsWith('{')) {
    try {
      return JSON.parse(text);
    } catch {
      // Not JSON after all (a YAML flow map): the YAML parser reads it or says what is wrong.
    }
  }
  return (require('yaml') as typeof import('yaml')).parse(text);
}

/** What a kubeconfig context gives the runner; every field optional but the server. */
export interface KubeconfigTarget {
  /** The file read and the context used, for messages. */
  file: string;
  context: string;
  server: string;
  caPem?: string;
  insecureSkipTlsVerify?: boolean;
  token?: string;
  certPem?: string;
  keyPem?: string;
}

/**
 * The kubeconfig file to read: `--kubeconfig <file>`; with `--kubeconfig` given empty or only
 * `--context`, the first file of `KUBECONFIG` (kubectl's list, joined by ':'), else ~/.kube/config.
 * Undefined when neither flag is given: `KUBECONFIG` alone never redirects a run away from the
 * embedded reference (a run creates and deletes objects; it goes to a cluster only when asked).
 */
export function kubeconfigFile(flag: string | undefined, context: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (flag) return flag;
  if (flag === undefined && context === undefined) return undefined;
  const first = (env.KUBECONFIG ?? '').split(delimiter).find((p) => p.trim() !== '');
  return first ?? join(homedir(), '.kube', 'config');
}

type Named<T> = { name?: unknown } & { [k: string]: T | unknown };

/** Reads the file and resolves the context (`--context`, else `current-context`). */
export function loadKubeconfig(file: string, contextName?: string): KubeconfigTarget {
  const where = `--kubeconfig ${file}`;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${where}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let doc: any;
  try {
    doc = parseKubeconfigText(text);
  } catch (err) {
    throw new UsageError(`${where}: not valid YAML (${(err as Error).message.split('\n')[0]})`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new UsageError(`${where}: not a kubeconfig (want a map with clusters, users and contexts)`);

  const name = contextName ?? doc['current-context'];
  if (typeof name !== 'string' || name === '') {
    throw new UsageError(`${where}: no current-context; name one with --context (contexts: ${names(doc.contexts).join(', ') || 'none'})`);
  }
  const ctx = entry(doc.contexts, name, 'context', where, contextName === undefined ? 'current-context' : '--context');
  const ctxBody = ctx.context ?? {};
  const clusterName = ctxBody.cluster;
  if (typeof clusterName !== 'string' || !clusterName) throw new UsageError(`${where}: context "${name}" names no cluster`);
  const cluster = entry(doc.clusters, clusterName, 'cluster', where, `context "${name}"`).cluster ?? {};
  const user = typeof ctxBody.user === 'string' && ctxBody.user ? entry(doc.users, ctxBody.user, 'user', where, `context "${name}"`).user ?? {} : {};

  const base = dirname(resolve(file));
  const server = cluster.server;
  if (typeof server !== 'string' || !server) throw new UsageError(`${where}: cluster "${clusterName}" has no server`);
  for (const field of ['tls-server-name', 'proxy-url']) {
    if (cluster[field] !== undefined) throw new UsageError(`${where}: cluster "${clusterName}" sets ${field}, which orch-conformance does not support`);
  }
  for (const field of ['exec', 'auth-provider', 'username', 'password', 'as', 'as-groups']) {
    if (user[field] !== undefined) {
      throw new UsageError(`${where}: user "${ctxBody.user}" uses ${field}, which orch-conformance does not support; give a bearer token (token, tokenFile, or --token-file) or a client certificate`);
    }
  }
  const what = (field: string) => `${where}: ${field}`;
  const out: KubeconfigTarget = { file, context: name, server };
  // As client-go: inline data wins over a file; files are relative to the kubeconfig's directory.
  out.caPem = pem(cluster['certificate-authority-data'], cluster['certificate-authority'], base, what('certificate-authority'));
  if (cluster['insecure-skip-tls-verify'] !== undefined) out.insecureSkipTlsVerify = cluster['insecure-skip-tls-verify'] === true;
  out.certPem = pem(user['client-certificate-data'], user['client-certificate'], base, what('client-certificate'));
  out.keyPem = pem(user['client-key-data'], user['client-key'], base, what('client-key'));
  if (!!out.certPem !== !!out.keyPem) throw new UsageError(`${where}: user "${ctxBody.user}" has a client ${out.certPem ? 'certificate but no key' : 'key but no certificate'}`);
  // As client-go: a tokenFile, when set, wins over an inline token.
  if (typeof user.tokenFile === 'string' && user.tokenFile) out.token = readTokenFile(at(base, user.tokenFile), `${where}: tokenFile`);
  else if (typeof user.token === 'string' && user.token) out.token = user.token;
  return out;
}

/** A bearer token file's content, trimmed (`--token-file`, kubeconfig `tokenFile`). */
export function readTokenFile(path: string, what: string): string {
  let token: string;
  try {
    token = readFileSync(path, 'utf8').trim();
  } catch (err) {
    throw new UsageError(`${what} ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  if (!token) throw new UsageError(`${what} ${path}: the file is empty`);
  if (/\s/.test(token)) throw new UsageError(`${what} ${path}: want one token (no whitespace inside it)`);
  return token;
}

function names(list: unknown): string[] {
  return Array.isArray(list) ? list.map((e: Named<unknown>) => e?.name).filter((n): n is string => typeof n === 'string') : [];
}

function entry(list: unknown, name: string, kind: string, where: string, from: string): any {
  const found = Array.isArray(list) ? list.find((e: Named<unknown>) => e?.name === name) : undefined;
  if (!found) throw new UsageError(`${where}: no ${kind} "${name}" (named by ${from}); ${kind}s: ${names(list).join(', ') || 'none'}`);
  return found;
}

function at(base: string, path: string): string {
  return isAbsolute(path) ? path : join(base, path);
}

/** PEM text from base64 `data` or a file, or undefined when neither is set. */
function pem(data: unknown, file: unknown, base: string, what: string): string | undefined {
  let text: string;
  if (typeof data === 'string' && data) {
    text = Buffer.from(data, 'base64').toString('utf8');
    if (!text.includes('-----BEGIN ')) throw new UsageError(`${what}-data: not base64 of a PEM block`);
    return text;
  }
  if (typeof file !== 'string' || !file) return undefined;
  const path = at(base, file);
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`${what} ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  if (!text.includes('-----BEGIN ')) throw new UsageError(`${what} ${path}: not a PEM file`);
  return text;
}
