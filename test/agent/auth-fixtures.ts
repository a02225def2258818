// What the agent's auth and checkpoint tests share: a fake control plane answering only TokenReview
// and SubjectAccessReview (recording what it was asked), client certificates made with openssl, and
// an HTTPS request that can present one.
import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import { request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { SUBJECT_ACCESS_REVIEWS_PATH, TOKEN_REVIEWS_PATH } from '../../reference/auth-delegation/reviews.js';

export interface FakeReviews {
  readonly url: string;
  /** Bearer tokens the fake authenticates, to their user. */
  readonly tokens: Map<string, { username: string; groups?: string[] }>;
  /** The SubjectAccessReview decision for a spec; 'error' answers 500. Default: allow. */
  decide: (spec: any) => boolean | 'error';
  /** TokenReviews answer 500 while true. */
  failTokenReviews: boolean;
  readonly tokenReviews: any[];
  readonly accessReviews: any[];
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
}

export async function startFakeReviews(): Promise<FakeReviews> {
  const f: Omit<FakeReviews, 'url' | 'close'> = { tokens: new Map(), decide: () => true, failTokenReviews: false, tokenReviews: [], accessReviews: [] };
  const server = createServer((req, res) => {
    void (async () => {
      const send = (status: number, obj: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(obj));
      };
      if (req.method !== 'POST') return send(405, { kind: 'Status', code: 405 });
      const obj = await body(req);
      if (req.url === TOKEN_REVIEWS_PATH) {
        f.tokenReviews.push(obj);
        if (f.failTokenReviews) return send(500, { kind: 'Status', code: 500, message: 'fake: token reviews failing' });
        const u = f.tokens.get(obj?.spec?.token);
        return send(201, { ...obj, status: u ? { authenticated: true, user: u } : { authenticated: false, error: 'invalid bearer token' } });
      }
      if (req.url === SUBJECT_ACCESS_REVIEWS_PATH) {
        f.accessReviews.push(obj);
        const d = f.decide(obj.spec);
        if (d === 'error') return send(500, { kind: 'Status', code: 500, message: 'fake: access reviews failing' });
        return send(201, { ...obj, status: d ? { allowed: true } : { allowed: false, reason: 'fake says no' } });
      }
      return send(404, { kind: 'Status', code: 404 });
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(f as FakeReviews, {
    url,
    close: () => new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections(); }),
  });
}

export interface ClientPki {
  caFile: string;
  /** PEM cert and key of a client of that CA (CN=alice, O=team-a, O=team-b, clientAuth). */
  alice: { cert: string; key: string };
  /** Signed by the CA but for servers only (extKeyUsage serverAuth). */
  serverOnly: { cert: string; key: string };
  /** Signed by another CA. */
  stranger: { cert: string; key: string };
}

/** A client CA and client certificates under `dir`, made with the openssl command. */
export function makeClientPki(dir: string): ClientPki {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const p = (n: string) => join(dir, n);
  const ca = (name: string) => ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', p(`${name}.key`), '-out', p(`${name}.crt`),
    '-subj', `/CN=${name}`, '-days', '2', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,digitalSignature');
  const leaf = (name: string, subj: string, signer: string, eku: string) => {
    ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', p(`${name}.key`), '-out', p(`${name}.csr`), '-subj', subj);
    writeFileSync(p(`${name}.ext`), `extendedKeyUsage=${eku}\n`);
    ssl('x509', '-req', '-in', p(`${name}.csr`), '-CA', p(`${signer}.crt`), '-CAkey', p(`${signer}.key`), '-CAcreateserial', '-out', p(`${name}.crt`), '-days', '1', '-extfile', p(`${name}.ext`));
    return { cert: readFileSync(p(`${name}.crt`), 'utf8'), key: readFileSync(p(`${name}.key`), 'utf8') };
  };
  ca('client-ca');
  ca('other-ca');
  return {
    caFile: p('client-ca.crt'),
    alice: leaf('alice', '/CN=alice/O=team-a/O=team-b', 'client-ca', 'clientAuth'),
    serverOnly: leaf('server-only', '/CN=svc', 'client-ca', 'serverAuth'),
    stranger: leaf('mallory', '/CN=mallory', 'other-ca', 'clientAuth'),
  };
}

export interface HttpsAnswer { status: number; body: string; headers: Record<string, string | string[] | undefined> }

/** One HTTPS request trusting `ca`, optionally with a client certificate. */
export function httpsRequest(url: string, o: { ca?: string; method?: string; headers?: Record<string, string>; cert?: string; key?: string; body?: string } = {}): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: o.method ?? 'GET', ca: o.ca, cert: o.cert, key: o.key, headers: o.headers, rejectUnauthorized: !!o.ca, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}
